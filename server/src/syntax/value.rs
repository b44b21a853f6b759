//! Ruby literal values as the Rails DSL uses them in arguments (`:comments`, `dependent: :destroy`,
//! `%i[show edit]`, `-> { order(:x) }`), read from a tree-sitter node. Anything that is not a literal
//! keeps its source text, so nothing is lost and nothing is evaluated.

use crate::syntax::NodeExt;
use std::fmt;

use serde::{Serialize, Serializer};
use tree_sitter::Node;

use super::text_of;

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub enum Value {
    Symbol(String),
    /// A string without interpolation (its content).
    String(String),
    Integer(i64),
    Float(String),
    Bool(bool),
    Nil,
    /// `Post`, `Admin::User`.
    Constant(String),
    Array(Vec<Value>),
    Hash(Vec<(Value, Value)>),
    /// `-> { … }`, `lambda { … }`, `proc { … }`: the source.
    Lambda(String),
    /// Anything else (an interpolated string, a method call, a local): the source.
    Code(String),
}

impl Value {
    pub fn from_node(node: Node<'_>, text: &str) -> Value {
        let source = || text_of(node, text).to_owned();
        match node.kind_name() {
            "simple_symbol" => Value::Symbol(text_of(node, text).trim_start_matches(':').to_owned()),
            "hash_key_symbol" | "bare_symbol" => Value::Symbol(text_of(node, text).to_owned()),
            "delimited_symbol" => match plain_string_content(node, text) {
                Some(content) => Value::Symbol(content),
                None => Value::Code(source()),
            },
            "string" | "bare_string" => match plain_string_content(node, text) {
                Some(content) => Value::String(content),
                None => Value::Code(source()),
            },
            // `'/a' \ '/b'`: Ruby joins adjacent string literals into one.
            "chained_string" => {
                let mut cursor = node.walk();
                let parts: Option<Vec<String>> = node.named_children(&mut cursor).map(|part| plain_string_content(part, text)).collect();
                match parts {
                    Some(parts) if !parts.is_empty() => Value::String(parts.concat()),
                    _ => Value::Code(source()),
                }
            }
            "integer" => text_of(node, text).replace('_', "").parse().map(Value::Integer).unwrap_or_else(|_| Value::Code(source())),
            "float" => Value::Float(source()),
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "nil" => Value::Nil,
            "constant" | "scope_resolution" => Value::Constant(source()),
            // `config.x = a, b`: Ruby assigns the array `[a, b]`.
            "array" | "string_array" | "symbol_array" | "right_assignment_list" => {
                let mut cursor = node.walk();
                let mut items: Vec<Value> =
                    node.named_children(&mut cursor).filter(|c| c.kind_name() != "comment").map(|c| Value::from_node(c, text)).collect();
                items.shrink_to_fit(); // collected through a filter: room for four at least; kept with the facts
                Value::Array(items)
            }
            "hash" => {
                let mut cursor = node.walk();
                let mut pairs: Vec<(Value, Value)> = node.named_children(&mut cursor).filter_map(|pair| pair_of(pair, text)).collect();
                pairs.shrink_to_fit();
                Value::Hash(pairs)
            }
            "lambda" => Value::Lambda(source()),
            "call" if is_proc_call(node, text) => Value::Lambda(source()),
            // `(x)` is `x`, except a lambda: `scope :x, (lambda do … end)` is not a lambda written in
            // place to Roundhouse, so the parentheses stay in the source kept.
            "parenthesized_statements" if node.named_child_count() == 1 => match node.named_child(0).map(|c| Value::from_node(c, text)) {
                Some(Value::Lambda(_)) | None => Value::Code(source()),
                Some(value) => value,
            },
            _ => Value::Code(source()),
        }
    }

    pub fn as_name(&self) -> Option<&str> {
        match self {
            Value::Symbol(s) | Value::String(s) | Value::Constant(s) => Some(s),
            _ => None,
        }
    }

    /// Names in a value that lists them: `:a`, `"a"`, `[:a, :b]`, `%i[a b]`.
    pub fn names(&self) -> Vec<String> {
        match self {
            Value::Array(items) => items.iter().filter_map(|v| v.as_name().map(str::to_owned)).collect(),
            other => other.as_name().map(str::to_owned).into_iter().collect(),
        }
    }
}

/// `key: value` or `key => value` as (key, value).
pub fn pair_of(pair: Node<'_>, text: &str) -> Option<(Value, Value)> {
    if pair.kind_name() != "pair" {
        return None;
    }
    let key = pair.field("key")?;
    let value = pair.field("value");
    let key = Value::from_node(key, text);
    // `foo:` shorthand (Ruby 3.1) has no value: it means the local `foo`.
    let value = value.map_or_else(|| Value::Code(key.as_name().unwrap_or("").to_owned()), |v| Value::from_node(v, text));
    Some((key, value))
}

fn plain_string_content(node: Node<'_>, text: &str) -> Option<String> {
    let mut cursor = node.walk();
    let mut content = String::new();
    for child in node.named_children(&mut cursor) {
        match child.kind_name() {
            "string_content" => content.push_str(text_of(child, text)),
            "escape_sequence" => content.push_str(&unescape(text_of(child, text))),
            _ => return None,
        }
    }
    if node.kind_name() == "bare_string" && node.named_child_count() == 0 {
        return Some(text_of(node, text).to_owned());
    }
    Some(content)
}

fn unescape(sequence: &str) -> String {
    match sequence {
        "\\n" => "\n".into(),
        "\\t" => "\t".into(),
        "\\\"" => "\"".into(),
        "\\\\" => "\\".into(),
        "\\'" => "'".into(),
        other => other.to_owned(),
    }
}

fn is_proc_call(node: Node<'_>, text: &str) -> bool {
    node.field("receiver").is_none()
        && node.field("block").is_some()
        && matches!(node.field("method").map(|m| text_of(m, text)), Some("lambda" | "proc"))
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Symbol(s) => write!(f, ":{s}"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Integer(i) => write!(f, "{i}"),
            Value::Float(s) | Value::Constant(s) | Value::Lambda(s) | Value::Code(s) => f.write_str(s),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Nil => f.write_str("nil"),
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Value::Hash(pairs) => {
                f.write_str("{ ")?;
                for (i, (key, value)) in pairs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match key {
                        Value::Symbol(k) => write!(f, "{k}: {value}")?,
                        other => write!(f, "{other} => {value}")?,
                    }
                }
                f.write_str(" }")
            }
        }
    }
}

/// Index dumps show values as Ruby source, which is what a reader diffs.
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

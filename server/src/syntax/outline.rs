//! A generic outline of a Ruby file: namespaces (class/module), methods with their visibility, and the
//! calls, blocks and assignments in class bodies and top-level code, with literal arguments read into
//! `Value`s. Rails extraction (`rails::*`) interprets this outline; it holds no Rails knowledge itself.

use serde::Serialize;
use tree_sitter::{Node, Tree};

use super::value::{Value, pair_of};
use super::{Span, text_of};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outline {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Namespace(Namespace),
    Method(MethodDef),
    Call(Call),
    Assignment(Assignment),
    /// `class << self … end`.
    SingletonClass { span: Span, items: Vec<Item> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NamespaceKind {
    Class,
    Module,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Namespace {
    pub kind: NamespaceKind,
    /// Fully qualified, as Ruby resolves the lexical nesting: `Admin::PostsController`.
    pub name: String,
    pub superclass: Option<String>,
    pub span: Span,
    pub name_span: Span,
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Public,
    Protected,
    Private,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MethodDef {
    pub name: String,
    /// `def self.x` or a `def` inside `class << self`.
    pub singleton: bool,
    pub visibility: Visibility,
    pub parameters: String,
    pub span: Span,
    pub name_span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub receiver: Option<String>,
    pub method: String,
    /// Positional arguments.
    pub arguments: Vec<Value>,
    /// Trailing `key: value` / `"key" => value` pairs, in order.
    pub options: Vec<(Value, Value)>,
    pub block: Option<Block>,
    pub span: Span,
    pub name_span: Span,
    /// Span of each positional argument, parallel to `arguments`.
    pub argument_spans: Vec<Span>,
}

impl Call {
    pub fn option(&self, key: &str) -> Option<&Value> {
        self.options.iter().find(|(k, _)| k.as_name() == Some(key)).map(|(_, v)| v)
    }

    /// Options as `(name, value)` with keys shown as Ruby would name them.
    pub fn named_options(&self) -> Vec<(String, Value)> {
        self.options.iter().map(|(k, v)| (k.as_name().map_or_else(|| k.to_string(), str::to_owned), v.clone())).collect()
    }

    pub fn first_name(&self) -> Option<&str> {
        self.arguments.first().and_then(Value::as_name)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub parameters: Vec<String>,
    pub span: Span,
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// Source of the left side: `self.table_name`, `config.time_zone`, `Time::DATE_FORMATS[:short]`.
    pub target: String,
    /// `=` or `||=`, `+=`…
    pub operator: String,
    pub value: Value,
    pub span: Span,
    pub target_span: Span,
}

impl Outline {
    pub fn new(tree: &Tree, text: &str) -> Outline {
        Outline { items: items_of(tree.root_node(), text, "", false) }
    }

    /// Every namespace, depth first, in source order.
    pub fn namespaces(&self) -> Vec<&Namespace> {
        fn walk<'a>(items: &'a [Item], out: &mut Vec<&'a Namespace>) {
            for item in items {
                match item {
                    Item::Namespace(ns) => {
                        out.push(ns);
                        walk(&ns.items, out);
                    }
                    Item::Call(Call { block: Some(block), .. }) => walk(&block.items, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.items, &mut out);
        out
    }
}

/// The statements of a body (program, class body, block body), as items.
fn items_of(body: Node<'_>, text: &str, namespace: &str, singleton: bool) -> Vec<Item> {
    let mut items = Vec::new();
    let mut visibility = Visibility::Public;
    let mut made_private: Vec<(String, Visibility)> = Vec::new();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        match statement.kind() {
            "class" | "module" => items.extend(namespace_of(statement, text, namespace).map(Item::Namespace)),
            "singleton_class" => {
                let items_inside = statement.child_by_field_name("body").map_or_else(Vec::new, |b| items_of(b, text, namespace, true));
                items.push(Item::SingletonClass { span: Span::of(statement), items: items_inside });
            }
            "method" | "singleton_method" => items.extend(method_of(statement, text, visibility, singleton).map(Item::Method)),
            "identifier" => {
                let name = text_of(statement, text);
                if let Some(v) = visibility_keyword(name) {
                    visibility = v;
                }
                items.push(Item::Call(bare_call(statement, text)));
            }
            "call" => {
                let Some(call) = call_of(statement, text, namespace) else { continue };
                if call.receiver.is_none() {
                    if let Some(v) = visibility_keyword(&call.method) {
                        // `private def x` defines x as private; `private :a, :b` marks earlier methods.
                        if let Some(def) = inline_def(statement, text, v, singleton) {
                            items.push(Item::Method(def));
                        } else {
                            made_private.extend(call.arguments.iter().filter_map(|a| a.as_name()).map(|n| (n.to_owned(), v)));
                        }
                    }
                }
                items.push(Item::Call(call));
            }
            "assignment" | "operator_assignment" => items.extend(assignment_of(statement, text).map(Item::Assignment)),
            _ => {}
        }
    }
    if !made_private.is_empty() {
        for item in &mut items {
            if let Item::Method(def) = item {
                if let Some((_, v)) = made_private.iter().find(|(n, _)| *n == def.name) {
                    def.visibility = *v;
                }
            }
        }
    }
    items
}

fn visibility_keyword(name: &str) -> Option<Visibility> {
    match name {
        "private" => Some(Visibility::Private),
        "protected" => Some(Visibility::Protected),
        "public" => Some(Visibility::Public),
        _ => None,
    }
}

fn namespace_of(node: Node<'_>, text: &str, outer: &str) -> Option<Namespace> {
    let name_node = node.child_by_field_name("name")?;
    let local = text_of(name_node, text).trim_start_matches("::");
    let name = if outer.is_empty() || text_of(name_node, text).starts_with("::") { local.to_owned() } else { format!("{outer}::{local}") };
    let superclass = node
        .child_by_field_name("superclass")
        .and_then(|s| s.named_child(0))
        .map(|s| text_of(s, text).trim_start_matches("::").to_owned());
    let items = node.child_by_field_name("body").map_or_else(Vec::new, |b| items_of(b, text, &name, false));
    Some(Namespace {
        kind: if node.kind() == "class" { NamespaceKind::Class } else { NamespaceKind::Module },
        name,
        superclass,
        span: Span::of(node),
        name_span: Span::of(name_node),
        items,
    })
}

fn method_of(node: Node<'_>, text: &str, visibility: Visibility, in_singleton_class: bool) -> Option<MethodDef> {
    let name_node = node.child_by_field_name("name")?;
    Some(MethodDef {
        name: text_of(name_node, text).to_owned(),
        singleton: in_singleton_class || node.kind() == "singleton_method",
        visibility,
        parameters: node.child_by_field_name("parameters").map_or_else(String::new, |p| text_of(p, text).to_owned()),
        span: Span::of(node),
        name_span: Span::of(name_node),
    })
}

fn inline_def(call: Node<'_>, text: &str, visibility: Visibility, singleton: bool) -> Option<MethodDef> {
    let arguments = call.child_by_field_name("arguments")?;
    let def = arguments.named_child(0).filter(|d| matches!(d.kind(), "method" | "singleton_method"))?;
    method_of(def, text, visibility, singleton)
}

fn bare_call(node: Node<'_>, text: &str) -> Call {
    Call {
        receiver: None,
        method: text_of(node, text).to_owned(),
        arguments: Vec::new(),
        options: Vec::new(),
        block: None,
        span: Span::of(node),
        name_span: Span::of(node),
        argument_spans: Vec::new(),
    }
}

/// A call node as a `Call`; `namespace` is the lexical namespace of classes defined in its block.
pub fn call_of(node: Node<'_>, text: &str, namespace: &str) -> Option<Call> {
    let method = node.child_by_field_name("method")?;
    let mut call = bare_call(method, text);
    call.span = Span::of(node);
    call.receiver = node.child_by_field_name("receiver").map(|r| text_of(r, text).to_owned());
    if let Some(arguments) = node.child_by_field_name("arguments") {
        let mut cursor = arguments.walk();
        for argument in arguments.named_children(&mut cursor) {
            match argument.kind() {
                "pair" => call.options.extend(pair_of(argument, text)),
                "comment" => {}
                _ => {
                    call.arguments.push(Value::from_node(argument, text));
                    call.argument_spans.push(Span::of(argument));
                }
            }
        }
    }
    call.block = node.child_by_field_name("block").map(|block| {
        let parameters = block
            .child_by_field_name("parameters")
            .map(|p| {
                let mut cursor = p.walk();
                p.named_children(&mut cursor).map(|n| text_of(n, text).to_owned()).collect()
            })
            .unwrap_or_default();
        let items = block.child_by_field_name("body").map_or_else(Vec::new, |b| items_of(b, text, namespace, false));
        Block { parameters, span: Span::of(block), items }
    });
    Some(call)
}

fn assignment_of(node: Node<'_>, text: &str) -> Option<Assignment> {
    let left = node.child_by_field_name("left")?;
    let right = node.child_by_field_name("right")?;
    let operator = if node.kind() == "assignment" {
        "=".to_owned()
    } else {
        let mut cursor = node.walk();
        node.children(&mut cursor).find(|c| !c.is_named()).map_or_else(|| "=".to_owned(), |c| text_of(c, text).to_owned())
    };
    Some(Assignment {
        target: text_of(left, text).to_owned(),
        operator,
        value: Value::from_node(right, text),
        span: Span::of(node),
        target_span: Span::of(left),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Language, ParsedFile};

    fn outline(text: &str) -> Outline {
        let parsed = ParsedFile::parse(Language::Ruby, text);
        Outline::new(parsed.ruby.as_ref().unwrap(), text)
    }

    #[test]
    fn reads_namespaces_visibility_and_calls() {
        let text = r#"
module Admin
  class PostsController < ApplicationController
    before_action :set_post, only: %i[show edit]
    def index; end
    private def helper; end
    def show; end
    private
    def set_post; end
  end
end
"#;
        let o = outline(text);
        let namespaces = o.namespaces();
        assert_eq!(namespaces[1].name, "Admin::PostsController");
        assert_eq!(namespaces[1].superclass.as_deref(), Some("ApplicationController"));
        let methods: Vec<String> = namespaces[1]
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Method(m) => Some(format!("{}:{:?}", m.name, m.visibility)),
                _ => None,
            })
            .collect();
        assert_eq!(methods, ["index:Public", "helper:Private", "show:Public", "set_post:Private"]);
        let Item::Call(filter) = &namespaces[1].items[0] else { panic!("not a call") };
        assert_eq!(filter.method, "before_action");
        assert_eq!(filter.option("only").map(|v| v.to_string()).as_deref(), Some("[:show, :edit]"));
    }
}

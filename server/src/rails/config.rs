//! Application configuration: `config/application.rb`, `config/environments/*.rb` and
//! `config/initializers/**`: config assignments, inflection rules, reopened classes and patches, and
//! time formats, each with its span.

use crate::syntax::NodeExt;
use serde::Serialize;
use tree_sitter::Node;

use crate::syntax::outline::{Call, Item, Outline};
use crate::syntax::value::Value;
use crate::syntax::{Span, text_of};

#[derive(Debug, Clone, Default, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct ConfigFacts {
    /// `module Blog; class Application < Rails::Application` → `Blog`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub application_module: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assignments: Vec<ConfigAssignment>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inflections: Vec<InflectionRule>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reopened: Vec<Reopened>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub time_formats: Vec<TimeFormat>,
    /// The top-level statements of an initializer that `require` something, as written: a `lib/`
    /// folder one of them names is loaded even when `autoload_lib(ignore:)` lists it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct ConfigAssignment {
    /// The key after `config.`: `time_zone`, `x.cache_ttl`, `active_job.queue_adapter`.
    pub key: String,
    pub operator: String,
    pub value: Value,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct InflectionRule {
    /// `acronym`, `irregular`, `plural`, `singular`, `uncountable`, `human`.
    pub kind: String,
    pub arguments: Vec<Value>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Reopened {
    pub name: String,
    /// `class`, `module`, or the patching call (`prepend`, `include`, `class_eval`…).
    pub how: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct TimeFormat {
    /// `Time::DATE_FORMATS`, `Date::DATE_FORMATS`.
    pub owner: String,
    pub name: Value,
    pub value: Value,
    pub span: Span,
}

const PATCH_METHODS: &[&str] = &["prepend", "include", "extend", "class_eval", "module_eval", "class_exec", "send"];

/// One shape found: its parts by name (the names `tests/queries/ruby/config.rb` asserts).
type Match<'t> = Vec<(&'static str, Node<'t>)>;

fn capture<'t>(m: &Match<'t>, name: &str) -> Option<Node<'t>> {
    m.iter().find(|(n, _)| *n == name).map(|(_, node)| *node)
}

/// Every part name `shapes` reports.
#[cfg(test)]
const PARTS: &[&str] = &[
    "config.target",
    "config.value",
    "config.assignment",
    "time_format.owner",
    "time_format.name",
    "time_format.value",
    "time_format.assignment",
];

/// The config file's assignments, in one walk: `config.time_zone = "UTC"`,
/// `Rails.application.config.x.feature = true`, `config.x.y ||= 1`; and
/// `Time::DATE_FORMATS[:short] = "%d %b"` (also `Date::`, `DateTime::`).
fn shapes<'t>(root: Node<'t>, text: &str) -> Vec<Match<'t>> {
    let mut out = Vec::new();
    crate::syntax::for_each_node(root, |node| {
        if !matches!(node.kind_name(), "assignment" | "operator_assignment") {
            return;
        }
        let (Some(left), Some(right)) = (node.field("left"), node.field("right")) else { return };
        if left.kind_name() == "call" {
            let target = text_of(left, text);
            if target.strip_prefix("Rails.application.").unwrap_or(target).starts_with("config.") {
                out.push(vec![("config.target", left), ("config.value", right), ("config.assignment", node)]);
            }
        } else if left.kind_name() == "element_reference" && node.kind_name() == "assignment" {
            let mut cursor = left.walk();
            let parts: Vec<Node<'t>> = left.named_children(&mut cursor).collect();
            if let [owner, name, ..] = parts.as_slice()
                && owner.kind_name() == "scope_resolution"
                && matches!(
                    text_of(*owner, text).trim_start_matches("::"),
                    "Time::DATE_FORMATS" | "Date::DATE_FORMATS" | "DateTime::DATE_FORMATS"
                )
            {
                out.push(vec![
                    ("time_format.owner", *owner),
                    ("time_format.name", *name),
                    ("time_format.value", right),
                    ("time_format.assignment", node),
                ]);
            }
        }
    });
    out
}

pub fn extract(outline: &Outline, root: Node<'_>, text: &str, is_initializer: bool) -> ConfigFacts {
    let mut facts = ConfigFacts::default();
    for m in shapes(root, text) {
        if let (Some(target), Some(value), Some(whole)) =
            (capture(&m, "config.target"), capture(&m, "config.value"), capture(&m, "config.assignment"))
        {
            let target_text = text_of(target, text);
            let key = target_text.trim_start_matches("Rails.application.").trim_start_matches("config.").to_owned();
            let operator = if whole.kind_name() == "assignment" {
                "=".to_owned()
            } else {
                text_of(whole, text).get(target_text.len()..).unwrap_or("").split_whitespace().next().unwrap_or("=").to_owned()
            };
            facts.assignments.push(ConfigAssignment { key, operator, value: Value::from_node(value, text), span: Span::of(whole) });
        } else if let (Some(owner), Some(name), Some(value), Some(whole)) = (
            capture(&m, "time_format.owner"),
            capture(&m, "time_format.name"),
            capture(&m, "time_format.value"),
            capture(&m, "time_format.assignment"),
        ) {
            facts.time_formats.push(TimeFormat {
                owner: text_of(owner, text).trim_start_matches("::").to_owned(),
                name: Value::from_node(name, text),
                value: Value::from_node(value, text),
                span: Span::of(whole),
            });
        }
    }
    facts.assignments.sort_by_key(|a| a.span.start_byte);
    walk_items(&outline.items, &mut facts, is_initializer, true);
    if is_initializer {
        let mut cursor = root.walk();
        facts.requires =
            root.named_children(&mut cursor).map(|n| text_of(n, text)).filter(|t| t.contains("require")).map(str::to_owned).collect();
    }
    facts
}

fn walk_items(items: &[Item], facts: &mut ConfigFacts, is_initializer: bool, top_level: bool) {
    for item in items {
        match item {
            Item::Namespace(ns) => {
                if ns.superclass.as_deref() == Some("Rails::Application") {
                    facts.application_module = ns.name.rsplit_once("::").map(|(module, _)| module.to_owned());
                } else if is_initializer && top_level {
                    let how = if ns.kind == crate::syntax::outline::NamespaceKind::Class { "class" } else { "module" };
                    facts.reopened.push(Reopened { name: ns.name.clone(), how: how.to_owned(), span: ns.span });
                }
                walk_items(&ns.items, facts, is_initializer, false);
            }
            Item::Call(call) => {
                if call.method == "inflections" {
                    inflection_block(call, facts);
                } else if is_initializer
                    && PATCH_METHODS.contains(&call.method.as_str())
                    && call.receiver.as_deref().is_some_and(is_constant)
                {
                    facts.reopened.push(Reopened {
                        name: call.receiver.clone().unwrap_or_default(),
                        how: call.method.clone(),
                        span: call.span,
                    });
                }
                if let Some(block) = &call.block {
                    // `Rails.application.configure do … end`, `ActiveSupport.on_load(:x) do … end`.
                    walk_items(&block.items, facts, is_initializer, top_level && call.method != "inflections");
                }
            }
            _ => {}
        }
    }
}

fn is_constant(text: &str) -> bool {
    text.trim_start_matches("::").starts_with(|c: char| c.is_ascii_uppercase())
        && text.chars().all(|c| c.is_alphanumeric() || c == ':' || c == '_')
}

fn inflection_block(call: &Call, facts: &mut ConfigFacts) {
    let Some(block) = &call.block else { return };
    let Some(receiver) = block.parameters.first() else { return };
    for item in &block.items {
        if let Item::Call(rule) = item
            && rule.receiver.as_deref() == Some(receiver.as_str())
        {
            facts.inflections.push(InflectionRule { kind: rule.method.clone(), arguments: rule.arguments.to_vec(), span: rule.span });
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn caret_fixture() {
        crate::syntax::carets::check_fixture("config.rb", super::PARTS, |root, text| {
            super::shapes(root, text).into_iter().flatten().map(|(name, node)| (name, node.range())).collect()
        });
    }
}

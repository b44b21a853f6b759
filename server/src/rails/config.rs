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
    /// What `config.paths["config/routes.rb"]` is set to (`= %w(config/routes/api.rb config/routes.rb)`,
    /// `<< "config/routes/admin.rb"`), in order: the files Rails draws the routes from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub routes_paths: Vec<RoutesPaths>,
    /// `config.omniauth :github, …` in a `Devise.setup` block: the provider, and whether the call
    /// stands under a condition (or its provider is not a literal name).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omniauth_providers: Vec<(String, bool)>,
}

/// One change to the list of routes files (`config.paths["config/routes.rb"]`).
#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub enum RoutesPaths {
    /// `= [...]`: the list is these files.
    Set(Vec<String>),
    /// `<< "x"`, `.push`, `.concat`: these files are drawn after the others.
    Append(Vec<String>),
    /// `.unshift`, `.prepend`: these files are drawn first.
    Prepend(Vec<String>),
    /// A change Switchyard cannot read (`concat(Dir[...])`): which files are drawn is unknown.
    Unknown(Span),
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
    /// `Time::DATE_FORMATS`, `Date::DATE_FORMATS`, or `ActiveSupport::TimeFormats` for
    /// `ActiveSupport::TimeFormats.register(:name, value)`.
    pub owner: String,
    pub name: Value,
    pub value: Value,
    /// A statement of the file itself, not inside a block, a condition or a class.
    pub top_level: bool,
    /// For a value written `->(time) { … }`: how many parameters the lambda takes.
    pub lambda_parameters: Option<usize>,
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
    "time_format.register",
];

/// The config file's assignments, in one walk: `config.time_zone = "UTC"`,
/// `Rails.application.config.x.feature = true`, `config.x.y ||= 1`; and
/// `Time::DATE_FORMATS[:short] = "%d %b"` (also `Date::`, `DateTime::`) and
/// `ActiveSupport::TimeFormats.register(:short, "%d %b")`.
fn shapes<'t>(root: Node<'t>, text: &str) -> Vec<Match<'t>> {
    let mut out = Vec::new();
    crate::syntax::for_each_node(root, |node| {
        if node.kind_name() == "call"
            && node.field("method").is_some_and(|m| text_of(m, text) == "register")
            && node.field("receiver").is_some_and(|r| text_of(r, text).trim_start_matches("::") == "ActiveSupport::TimeFormats")
            && let Some(arguments) = node.field("arguments")
        {
            let mut cursor = arguments.walk();
            let parts: Vec<Node<'t>> = arguments.named_children(&mut cursor).collect();
            if let [name, value] = parts.as_slice() {
                out.push(vec![
                    ("time_format.owner", node.field("receiver").unwrap_or(node)),
                    ("time_format.name", *name),
                    ("time_format.value", *value),
                    ("time_format.register", node),
                ]);
            }
            return;
        }
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
            capture(&m, "time_format.assignment").or_else(|| capture(&m, "time_format.register")),
        ) {
            let lambda_parameters = (value.kind_name() == "lambda").then(|| {
                value.field("parameters").map_or(0, |p| {
                    let mut cursor = p.walk();
                    p.named_children(&mut cursor).filter(|c| c.kind_name() != "comment").count()
                })
            });
            facts.time_formats.push(TimeFormat {
                owner: text_of(owner, text).trim_start_matches("::").to_owned(),
                name: Value::from_node(name, text),
                value: Value::from_node(value, text),
                top_level: whole.parent().is_some_and(|p| p.kind_name() == "program"),
                lambda_parameters,
                span: Span::of(whole),
            });
        }
    }
    facts.assignments.sort_by_key(|a| a.span.start_byte);
    facts.routes_paths = routes_paths(root, text);
    walk_items(&outline.items, &mut facts, is_initializer, true);
    if is_initializer {
        let mut cursor = root.walk();
        facts.requires =
            root.named_children(&mut cursor).map(|n| text_of(n, text)).filter(|t| t.contains("require")).map(str::to_owned).collect();
    }
    facts
}

/// The changes the file makes to `config.paths["config/routes.rb"]`, in order.
fn routes_paths(root: Node<'_>, text: &str) -> Vec<RoutesPaths> {
    if !text.contains("config/routes.rb") {
        return Vec::new();
    }
    let mut out = Vec::new();
    crate::syntax::for_each_node(root, |node| {
        if node.kind_name() != "element_reference" {
            return;
        }
        let source: String = text_of(node, text).chars().filter(|c| !c.is_whitespace()).collect();
        let source = source.trim_start_matches("Rails.application.").replace('\'', "\"");
        if source != "config.paths[\"config/routes.rb\"]" {
            return;
        }
        let Some(parent) = node.parent() else { return };
        let files = |value: Node<'_>| -> Option<Vec<String>> {
            match Value::from_node(value, text) {
                Value::String(s) => Some(vec![s]),
                Value::Array(items) => items.into_iter().map(|v| if let Value::String(s) = v { Some(s) } else { None }).collect(),
                _ => None,
            }
        };
        let change = match parent.kind_name() {
            "assignment" if parent.field("left") == Some(node) => parent.field("right").and_then(files).map(RoutesPaths::Set),
            "binary" if parent.field("left") == Some(node) && parent.field("operator").is_some_and(|o| text_of(o, text) == "<<") => {
                parent.field("right").and_then(files).map(RoutesPaths::Append)
            }
            "call" if parent.field("receiver") == Some(node) => {
                let method = parent.field("method").map(|m| text_of(m, text)).unwrap_or("");
                let arguments: Option<Vec<String>> = parent.field("arguments").and_then(|args| {
                    let mut cursor = args.walk();
                    let lists: Option<Vec<Vec<String>>> = args.named_children(&mut cursor).map(files).collect();
                    lists.map(|l| l.concat())
                });
                match method {
                    "push" | "concat" | "append" => arguments.map(RoutesPaths::Append),
                    "unshift" | "prepend" => arguments.map(RoutesPaths::Prepend),
                    // Reading the list (`.first`, `.to_a`) changes nothing.
                    "first" | "last" | "to_a" | "each" | "existent" | "expanded" => return,
                    _ => None,
                }
            }
            _ => return,
        };
        out.push(change.unwrap_or(RoutesPaths::Unknown(Span::of(parent))));
    });
    out
}

/// The routes files Rails draws, in order, as `config.paths["config/routes.rb"]` ends up; `None`
/// when a change to it cannot be read.
pub fn routes_files(changes: &[RoutesPaths]) -> Option<Vec<String>> {
    let mut files = vec!["config/routes.rb".to_owned()];
    for change in changes {
        match change {
            RoutesPaths::Set(list) => files.clone_from(list),
            RoutesPaths::Append(list) => files.extend(list.iter().cloned()),
            RoutesPaths::Prepend(list) => files.splice(0..0, list.iter().cloned()).for_each(drop),
            RoutesPaths::Unknown(_) => return None,
        }
    }
    Some(files.into_iter().map(|f| f.trim_start_matches("./").to_owned()).collect())
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
                if call.method == "setup"
                    && call.receiver.as_deref() == Some("Devise")
                    && let Some(block) = &call.block
                {
                    let parameter = block.parameters.first().map_or("config", String::as_str);
                    omniauth_calls(&block.items, parameter, false, facts);
                }
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

/// `config.omniauth :x, …` calls of a `Devise.setup` block, at any depth of its conditionals.
fn omniauth_calls(items: &[Item], parameter: &str, conditional: bool, facts: &mut ConfigFacts) {
    for item in items {
        match item {
            Item::Call(call) if call.method == "omniauth" && call.receiver.as_deref() == Some(parameter) => {
                let name = call.arguments.first().and_then(|v| match v {
                    Value::Symbol(s) | Value::String(s) => Some(s.clone()),
                    _ => None,
                });
                facts.omniauth_providers.push(name.map_or_else(|| (String::new(), true), |name| (name, conditional)));
            }
            Item::Conditional(branch) => {
                omniauth_calls(&branch.then_items, parameter, true, facts);
                omniauth_calls(&branch.else_items, parameter, true, facts);
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

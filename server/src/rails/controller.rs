//! Controllers: actions (public instance methods), private and protected methods, filters with their
//! `only/except/if/unless`, `layout`, included concerns and every other class-body macro.

use crate::syntax::NodeExt;
use serde::Serialize;

use super::{Macro, MethodSummary};
use crate::syntax::Span;
use crate::syntax::outline::{Item, Namespace, Visibility};
use crate::syntax::value::Value;

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Controller {
    pub class_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superclass: Option<String>,
    pub actions: Vec<MethodSummary>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub private_methods: Vec<MethodSummary>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<Filter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<Value>,
    /// The span of `layout`'s argument.
    #[serde(skip)]
    pub layout_span: Option<Span>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub concerns: Vec<Macro>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub macros: Vec<Macro>,
    /// For each action, the receiver-less names its body calls (and `super`/`yield`), sorted: whether it
    /// responds itself (`render`, `redirect_to`, `head`…) or relies on the implicit render.
    #[serde(skip)]
    pub action_calls: Vec<(String, Vec<String>)>,
    /// The same for each private or protected method (whether a filter it is the target of can
    /// answer the request, and so halt the chain).
    #[serde(skip)]
    pub method_calls: Vec<(String, Vec<String>)>,
    /// The actions whose body surely ends in a response (`ends_in_response`).
    #[serde(skip)]
    pub responding_actions: Vec<String>,
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Filter {
    /// `before_action`, `skip_before_action`, `around_action`, `prepend_before_action`…
    pub kind: String,
    /// Method names, or the source of a lambda/block.
    pub targets: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub except: Vec<String>,
    #[serde(rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_condition: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unless: Option<Value>,
    pub span: Span,
    /// Each target's span, parallel to `targets` (a block has none).
    #[serde(skip)]
    pub target_spans: Vec<Span>,
    /// A block-form filter's receiver-less calls (`before_action { redirect_to root_path }`).
    #[serde(skip)]
    pub block_calls: Vec<String>,
}

pub fn is_filter(method: &str) -> bool {
    let base = method
        .strip_prefix("skip_")
        .or_else(|| method.strip_prefix("prepend_"))
        .or_else(|| method.strip_prefix("append_"))
        .unwrap_or(method);
    matches!(base, "before_action" | "after_action" | "around_action" | "before_filter" | "after_filter" | "around_filter")
}

pub fn extract(namespace: &Namespace) -> Controller {
    let mut controller = Controller {
        class_name: namespace.name.clone(),
        superclass: namespace.superclass.clone(),
        actions: Vec::new(),
        private_methods: Vec::new(),
        filters: Vec::new(),
        layout: None,
        layout_span: None,
        concerns: Vec::new(),
        macros: Vec::new(),
        action_calls: Vec::new(),
        method_calls: Vec::new(),
        responding_actions: Vec::new(),
        span: namespace.span,
        name_span: namespace.name_span,
    };
    for item in &namespace.items {
        match item {
            Item::Method(def) if !def.singleton => {
                let summary = MethodSummary::of(def);
                if def.visibility == Visibility::Public {
                    controller.actions.push(summary);
                } else {
                    controller.private_methods.push(summary);
                }
            }
            Item::Call(call) if call.receiver.is_none() => {
                let method = call.method.as_str();
                if is_filter(method) {
                    controller.filters.push(filter_of(call));
                } else if method == "layout" {
                    controller.layout = call.arguments.first().cloned();
                    controller.layout_span = call.argument_spans.first().copied();
                } else if matches!(method, "include" | "extend" | "prepend") {
                    controller.concerns.push(Macro::of(call));
                } else if !matches!(method, "private" | "protected" | "public") {
                    controller.macros.push(Macro::of(call));
                }
            }
            _ => {}
        }
    }
    controller
}

/// A filter call (`before_action :set_post, only: [:show]`) as the index keeps it.
pub fn filter_of(call: &crate::syntax::outline::Call) -> Filter {
    let mut targets: Vec<String> = call.arguments.iter().map(|v| v.as_name().map_or_else(|| v.to_string(), str::to_owned)).collect();
    if call.block.is_some() {
        targets.push("{ block }".to_owned());
    }
    Filter {
        kind: call.method.clone(),
        targets,
        only: call.option("only").map(Value::names).unwrap_or_default(),
        except: call.option("except").map(Value::names).unwrap_or_default(),
        if_condition: call.option("if").cloned(),
        unless: call.option("unless").cloned(),
        span: call.span,
        target_spans: call.argument_spans.to_vec(),
        block_calls: call.block.as_ref().map(|b| receiverless_calls(&b.items)).unwrap_or_default(),
    }
}

/// The receiver-less calls among `items`, at any depth of their blocks.
fn receiverless_calls(items: &[Item]) -> Vec<String> {
    let mut out = Vec::new();
    for item in items {
        if let Item::Call(call) = item {
            if call.receiver.is_none() {
                out.push(call.method.clone());
            }
            if let Some(block) = &call.block {
                out.extend(receiverless_calls(&block.items));
            }
        }
    }
    out
}

/// Whether a method's body surely ends in a response, as the compiler decides whether to add the
/// implicit render: its last statement is a receiver-less `render`, `redirect_to` or `head` (or a
/// `respond_to` with a block), or an `if`/`unless`/ternary whose branches all do. A body with a
/// `rescue` or `ensure` clause does not.
pub fn ends_in_response(tree: &tree_sitter::Tree, text: &str, span: Span) -> bool {
    let Some(method) = crate::syntax::enclosing(tree, span, &["method"]) else { return false };
    let Some(body) = method.field("body") else { return false };
    let mut cursor = body.walk();
    if body.named_children(&mut cursor).any(|c| matches!(c.kind_name(), "rescue" | "ensure" | "else")) {
        return false;
    }
    last_statement(body).is_some_and(|last| responds(last, text))
}

fn last_statement(node: tree_sitter::Node<'_>) -> Option<tree_sitter::Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).filter(|c| !matches!(c.kind_name(), "comment" | "heredoc_body")).last()
}

fn responds(node: tree_sitter::Node<'_>, text: &str) -> bool {
    match node.kind_name() {
        "call" if node.field("receiver").is_none() => {
            let method = node.field("method").and_then(|m| text.get(m.byte_range())).unwrap_or("");
            matches!(method, "render" | "redirect_to" | "head") || (method == "respond_to" && node.field("block").is_some())
        }
        "if" | "unless" | "elsif" | "conditional" => {
            let branch = |field: &str| -> bool {
                let Some(branch) = node.field(field) else { return false };
                match branch.kind_name() {
                    "then" | "else" => last_statement(branch).is_some_and(|last| responds(last, text)),
                    _ => responds(branch, text),
                }
            };
            branch("consequence") && branch("alternative")
        }
        _ => false,
    }
}

/// The receiver-less names a method's body calls (and `super`/`yield`), sorted and unique.
pub fn calls_in(tree: &tree_sitter::Tree, text: &str, span: Span) -> Vec<String> {
    let Some(method) = crate::syntax::enclosing(tree, span, &["method"]) else { return Vec::new() };
    let mut out = Vec::new();
    // The walk hands each node its parent: `Node::parent` searches down from the tree's root.
    crate::syntax::for_each_node_with_parent(method, |node, parent, _| match node.kind_name() {
        "call" if node.field("receiver").is_none() => {
            if let Some(name) = node.field("method").and_then(|m| text.get(m.byte_range())) {
                out.push(name.to_owned());
            }
        }
        "identifier" if parent.is_some_and(|p| p.kind_name() != "call" && p.kind_name() != "method") => {
            out.extend(text.get(node.byte_range()).map(str::to_owned));
        }
        "super" | "yield" => out.push(node.kind_name().to_owned()),
        _ => {}
    });
    out.sort();
    out.dedup();
    out
}

//! `views.jbuilder-ignored`: what Roundhouse's jbuilder lowering does with each statement of a
//! `.json.jbuilder` template. It writes a JSON object from a narrow set of statements and drops or
//! rewrites the rest without a word. Measured on one-statement templates against the compiler
//! (`tests/fixtures/fidelity/views-jbuilder-statements.fixture`):
//!
//! - kept: `json.key value` (one argument, no block), `json.extract! record, :a, :b`,
//!   `json.partial! "x", local: v`, `json.array! records, partial: "x", as: :y`;
//! - written as a key named after the method (`"cache!": …`, `"merge!": …`), the block lost:
//!   `json.cache! x do … end`, `json.merge! hash`, `json.key_format! …`, any other `json.x! value`;
//! - a key whose value is the argument as is, the block lost: `json.tags list do |t| … end`;
//! - nothing at all: `json.set!`, `json.child!`, `json.key do … end`, `json.key record, :a`,
//!   `json.key records, partial: …`, `json.array!` with a block or attribute names, a bare `json.x!`,
//!   and every statement that is not a `json.` call (`if`, a loop, an assignment).
//!
//! It reads top-level statements only: what is inside a dropped statement is dropped with it.

use crate::syntax::NodeExt;
use tree_sitter::{Node, Tree};

use crate::diagnostic::Diagnostic;
use crate::syntax::{Span, text_of};

/// What the lowering does with one statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    Kept,
    /// Written as a key named after the call, with its first argument as the value.
    KeyOfCall(String),
    /// Written as the key with the argument as its value; the block is lost.
    BlockLost(String),
    Dropped,
}

/// The fate of each top-level statement of a jbuilder template, with its span.
pub fn statements(tree: &Tree, text: &str) -> Vec<(Span, String, Fate)> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind_name() != "comment")
        .map(|n| (Span::of(n), text_of(n, text).to_owned(), fate(n, text)))
        .collect()
}

fn fate(node: Node<'_>, text: &str) -> Fate {
    if node.kind_name() != "call" || node.field("receiver").is_none_or(|r| text_of(r, text) != "json") {
        return Fate::Dropped;
    }
    let method = node.field("method").map_or("", |m| text_of(m, text));
    let block = node.field("block").is_some();
    let arguments: Vec<Node<'_>> = node
        .field("arguments")
        .map(|a| {
            let mut c = a.walk();
            a.named_children(&mut c).filter(|n| n.kind_name() != "comment").collect()
        })
        .unwrap_or_default();
    let has_option = |key: &str| {
        arguments.iter().any(|a| {
            a.kind_name() == "pair" && a.field("key").is_some_and(|k| text_of(k, text).trim_end_matches(':').trim_start_matches(':') == key)
        })
    };
    match method {
        "extract!" | "partial!" => Fate::Kept,
        "array!" if !block && has_option("partial") => Fate::Kept,
        "array!" | "set!" | "child!" => Fate::Dropped,
        m if m.ends_with('!') && !arguments.is_empty() => Fate::KeyOfCall(m.to_owned()),
        m if m.ends_with('!') => Fate::Dropped,
        _ if arguments.len() == 1 && !block && arguments[0].kind_name() != "pair" => Fate::Kept,
        m if arguments.len() == 1 && block => Fate::BlockLost(m.to_owned()),
        _ => Fate::Dropped,
    }
}

/// What to write in place of a statement the lowering drops, by the statement's form.
fn instead_of_dropped(first_line: &str) -> String {
    if let Some(rest) = first_line.strip_prefix("json.(") {
        // `json.(obj, :a)` is Jbuilder's shorthand for `json.extract! obj, :a`, which the lowering keeps.
        return format!("write it as `json.extract! {}`", rest.strip_suffix(')').unwrap_or(rest));
    }
    let local = first_line.split_once(" = ").map(|(name, _)| name.trim()).filter(|name| {
        name.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    if let Some(name) = local {
        return format!("write its value in place of `{name}` in each `json.key` that reads it");
    }
    if first_line.starts_with("def ") {
        return "write what the method computes in place of each call to it (`json.key <expression>`)".to_owned();
    }
    "compute the value first and write it with `json.key value`".to_owned()
}

/// `views.jbuilder-ignored` on every statement the lowering does not keep.
pub fn check(tree: &Tree, text: &str) -> Vec<Diagnostic> {
    statements(tree, text)
        .into_iter()
        .filter_map(|(span, source, fate)| {
            let first_line = source.lines().next().unwrap_or("").trim();
            let message = match fate {
                Fate::Kept => return None,
                Fate::KeyOfCall(m) => format!(
                    "Roundhouse writes `json.{m}` as a key named \"{m}\" holding its first argument: the JSON differs from Rails' (and a block's keys are lost). Instead, write the keys out (`json.title @post.title`)."
                ),
                Fate::BlockLost(key) => format!(
                    "Roundhouse writes `json.{key}` with its argument as the value and drops the block: the keys the block builds are missing. Instead, render a partial (`json.{key} records, partial: …` is not read either: build the list in the controller)."
                ),
                Fate::Dropped => format!(
                    "Roundhouse drops `{first_line}` from this JSON: it reads only `json.key value`, `json.extract!`, `json.partial!` and `json.array! records, partial:, as:` statements. Instead, {}.",
                    instead_of_dropped(first_line)
                ),
            };
            Some(crate::diagnostic::Diagnostic::finding(rule!("views.jbuilder-ignored"), span, message))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::instead_of_dropped;

    #[test]
    fn each_dropped_form_is_given_the_rewrite_that_writes_its_keys() {
        assert_eq!(instead_of_dropped("json.(@post, :id, :title)"), "write it as `json.extract! @post, :id, :title`");
        assert_eq!(instead_of_dropped("author = @post.author"), "write its value in place of `author` in each `json.key` that reads it");
        assert_eq!(
            instead_of_dropped("def summary(entry)"),
            "write what the method computes in place of each call to it (`json.key <expression>`)"
        );
        // Not a local: an attribute write or a constant keeps the general advice.
        assert_eq!(instead_of_dropped("@post.title = 1"), "compute the value first and write it with `json.key value`");
        assert_eq!(instead_of_dropped("LIMIT = 3"), "compute the value first and write it with `json.key value`");
    }
}

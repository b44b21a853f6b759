//! Syntax errors as diagnostics with a precise span: the missing token, or the first line of the
//! unexpected text, never the whole file.

use super::NodeExt;
use tree_sitter::{Node, Tree};

use super::{LineCol, Span};
use crate::diagnostic::{Diagnostic, Severity};

/// More than this many errors in one file says "this file is broken"; the rest are noise.
const MAX_ERRORS_PER_FILE: usize = 20;

pub fn syntax_errors(tree: &Tree, text: &str, rule: crate::diagnostic::RuleId) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        if node.is_missing() {
            out.push(missing(node));
        } else if node.is_error() {
            out.push(unexpected(node, text));
        } else if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        if out.len() >= MAX_ERRORS_PER_FILE {
            break;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out.iter_mut().for_each(|d| d.rule = rule);
    out
}

fn missing(node: Node<'_>) -> Diagnostic {
    let kind = node.kind_name();
    let what = if kind.chars().all(|c| c.is_ascii_lowercase() || c == '_') && kind.len() > 3 {
        kind.replace('_', " ")
    } else {
        format!("`{kind}`")
    };
    Diagnostic {
        span: Span::of(node),
        severity: Severity::Error,
        rule: crate::diagnostic::rule::PARSE_ERROR,
        message: format!("syntax error: missing {what}"),
    }
}

/// An ERROR node. When a bracket inside it is never closed, that bracket is the error (tree-sitter's
/// recovery often wraps the whole enclosing class in the ERROR, which says little). Otherwise: its
/// first line, naming the first unexpected token.
fn unexpected(node: Node<'_>, text: &str) -> Diagnostic {
    if let Some(opener) = last_unclosed_bracket(node) {
        let bracket = text.get(opener.byte_range()).unwrap_or("(");
        return Diagnostic {
            span: Span::of(opener),
            severity: Severity::Error,
            rule: crate::diagnostic::rule::PARSE_ERROR,
            message: format!("syntax error: `{bracket}` is never closed"),
        };
    }
    let mut span = Span::of(node);
    let node_text = text.get(node.byte_range()).unwrap_or("");
    let first_line = node_text.split('\n').next().unwrap_or("");
    let trimmed = first_line.trim_end();
    if span.start.line != span.end.line || trimmed.len() != node_text.len() {
        span.end_byte = span.start_byte + trimmed.len() as u32;
        span.end = LineCol { line: span.start.line, col: span.start.col + trimmed.len() as u32 };
    }
    let token = first_token(node).map(|t| text.get(t.byte_range()).unwrap_or("")).unwrap_or(trimmed);
    let message = if node.end_byte() >= text.trim_end().len() && node.start_position().row != node.end_position().row {
        format!("syntax error: `{}` is not closed before the end of the file", short(trimmed))
    } else {
        format!("syntax error: unexpected `{}`", short(token))
    };
    Diagnostic { span, severity: Severity::Error, rule: crate::diagnostic::rule::PARSE_ERROR, message }
}

/// The last `(`, `[` or `{` in the subtree whose closing bracket never comes among its siblings.
fn last_unclosed_bracket(node: Node<'_>) -> Option<Node<'_>> {
    let mut found: Option<Node<'_>> = None;
    let mut stack = vec![node];
    while let Some(current) = stack.pop() {
        let mut open: Vec<Node<'_>> = Vec::new();
        let mut cursor = current.walk();
        for child in current.children(&mut cursor) {
            match child.kind_name() {
                "(" | "[" | "{" if !child.is_named() => open.push(child),
                ")" | "]" | "}" if !child.is_named() => {
                    open.pop();
                }
                _ if child.child_count() > 0 => stack.push(child),
                _ => {}
            }
        }
        for opener in open {
            if found.is_none_or(|f| opener.start_byte() > f.start_byte()) {
                found = Some(opener);
            }
        }
    }
    found
}

fn first_token(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node;
    while current.child_count() > 0 {
        current = current.child(0)?;
    }
    (current != node || node.child_count() == 0).then_some(current)
}

fn short(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() > 40 { format!("{}…", text.chars().take(40).collect::<String>()) } else { text.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Language, ParsedFile};

    fn errors(text: &str) -> Vec<String> {
        let parsed = ParsedFile::parse(Language::Ruby, text);
        syntax_errors(parsed.ruby.as_ref().unwrap(), text, rule!("syntax.parse-error"))
            .into_iter()
            .map(|d| format!("{:?} {}", serde_json::to_string(&d.span).unwrap(), d.message))
            .collect()
    }

    #[test]
    fn unclosed_method_points_at_its_first_line() {
        let found = errors("class Post\n  def title\n    x = (1 +\n  end\nend\n");
        assert!(!found.is_empty());
        for line in &found {
            assert!(!line.contains("\"1:1-6"), "span covers the whole file: {line}");
        }
    }

    #[test]
    fn valid_code_has_no_errors() {
        assert!(errors("class Post < ApplicationRecord\n  has_many :comments\nend\n").is_empty());
    }
}

//! Which statements of a template's program Roundhouse's view lowering drops. The lowering walks
//! the program's statements, and the bodies of the few it recurses into, and keeps what it knows:
//! the buffer appends (output, and an output block's body when it is template), local and instance variable assignments,
//! `if`/`unless`/`case`/`while`/`until`, `collection.each do |x|` without arguments, `cache … do`,
//! `content_for :name do` with a literal name, a call on a receiver without a block, and, without a
//! receiver or a block, `render`, `content_for :name, value` and Turbo's page directives. Any other
//! statement is dropped with everything inside it: a helper's block with its markup, a helper call
//! that sets a page title, `next`, `a, b = …`, `h[:k] += …`, `x&.y`, `begin … rescue` (measured against the
//! compiler, fixture `views-statement-dropped.fixture`; it warns `template statement dropped`).
//!
//! Statements whose dropping changes nothing (a literal, a local read, `yield` in a code tag) and
//! shapes the lowering's reading of is not measured (a block passed as `&blk`, a block body with
//! `rescue`) are left alone.

use ruby_prism::Node;

use super::convert::name_of;

/// A statement the lowering drops, at byte offsets of the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    pub start: usize,
    pub end: usize,
    pub kind: DroppedKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DroppedKind {
    /// A call with a block (the block's markup goes with it); the method's name.
    Block(String),
    /// A call without a receiver or a block; the method's name.
    Call(String),
    /// `x&.y`.
    SafeNavigation,
    /// `next`, `break`, `return`: the keyword.
    Jump(&'static str),
    /// `a, b = …`.
    MultipleAssignment,
    /// `h[:k] += …`, `x.y ||= …`: an operator assignment to an element or an attribute.
    CompoundAssignment,
    /// `a && b`, `a || b`.
    Condition,
    /// `begin … rescue … end`, `x rescue y`.
    Rescue,
}

/// Turbo's page directives, which the lowering moves into the page's head.
const TURBO_DIRECTIVES: &[&str] =
    &["turbo_exempts_page_from_cache", "turbo_exempts_page_from_preview", "turbo_page_requires_reload", "turbo_refreshes_with"];

/// The statements of the program (its top level) that the lowering drops, in order.
pub fn dropped(program: &ruby_prism::ProgramNode<'_>) -> Vec<Dropped> {
    let mut out = Vec::new();
    walk_statements(program.statements().body().iter(), &mut out);
    out
}

fn walk_statements<'pr>(statements: impl Iterator<Item = Node<'pr>>, out: &mut Vec<Dropped>) {
    for statement in statements {
        walk_statement(&statement, out);
    }
}

fn walk_body(body: Option<Node<'_>>, out: &mut Vec<Dropped>) {
    // A body with `rescue`/`ensure` (a `BeginNode`) is not measured.
    if let Some(statements) = body.as_ref().and_then(|b| b.as_statements_node()) {
        walk_statements(statements.body().iter(), out);
    }
}

fn walk_statement(statement: &Node<'_>, out: &mut Vec<Dropped>) {
    let (start, end) = (statement.location().start_offset(), statement.location().end_offset());
    let mut drop = |kind: DroppedKind| out.push(Dropped { start, end, kind });
    if let Some(write) = statement.as_local_variable_write_node() {
        // The buffer's appends: an output tag's block is walked as the template is.
        if name_of(write.name()) == "_buf"
            && let Some(append) = write.value().as_call_node()
            && name_of(append.name()) == "+"
            && let Some(argument) = append.arguments().and_then(|a| a.arguments().iter().next())
        {
            walk_output(&argument, out);
        }
        return;
    }
    if let Some(branch) = statement.as_if_node() {
        walk_body(branch.statements().map(|s| s.as_node()), out);
        if let Some(subsequent) = branch.subsequent() {
            walk_statement(&subsequent, out);
        }
        return;
    }
    if let Some(otherwise) = statement.as_else_node() {
        walk_body(otherwise.statements().map(|s| s.as_node()), out);
        return;
    }
    if let Some(branch) = statement.as_unless_node() {
        walk_body(branch.statements().map(|s| s.as_node()), out);
        walk_body(branch.else_clause().and_then(|e| e.statements()).map(|s| s.as_node()), out);
        return;
    }
    if let Some(case) = statement.as_case_node() {
        for condition in case.conditions().iter() {
            if let Some(when) = condition.as_when_node() {
                walk_body(when.statements().map(|s| s.as_node()), out);
            }
        }
        walk_body(case.else_clause().and_then(|e| e.statements()).map(|s| s.as_node()), out);
        return;
    }
    if let Some(repeat) = statement.as_while_node() {
        walk_body(repeat.statements().map(|s| s.as_node()), out);
        return;
    }
    if let Some(repeat) = statement.as_until_node() {
        walk_body(repeat.statements().map(|s| s.as_node()), out);
        return;
    }
    if let Some(call) = statement.as_call_node() {
        let name = name_of(call.name());
        if call.is_safe_navigation() {
            drop(DroppedKind::SafeNavigation);
            return;
        }
        let arguments: Vec<Node<'_>> = call.arguments().map(|a| a.arguments().iter().collect()).unwrap_or_default();
        match (call.receiver(), call.block()) {
            // `&blk`: not measured.
            (_, Some(block)) if block.as_block_node().is_none() => {}
            (None, Some(block)) => {
                let body = block.as_block_node().and_then(|b| b.body());
                let literal_slot =
                    arguments.len() == 1 && (arguments[0].as_symbol_node().is_some() || arguments[0].as_string_node().is_some());
                if name == "cache" || (name == "content_for" && literal_slot) {
                    walk_body(body, out);
                } else {
                    drop(DroppedKind::Block(name));
                }
            }
            (Some(_), Some(block)) => {
                if name == "each" && arguments.is_empty() {
                    walk_body(block.as_block_node().and_then(|b| b.body()), out);
                } else {
                    drop(DroppedKind::Block(name));
                }
            }
            (None, None) => {
                if !(name == "render" || name == "content_for" || TURBO_DIRECTIVES.contains(&name.as_str())) {
                    drop(DroppedKind::Call(name));
                }
            }
            (Some(_), None) => {}
        }
        return;
    }
    if statement.as_next_node().is_some() {
        drop(DroppedKind::Jump("next"));
    } else if statement.as_break_node().is_some() {
        drop(DroppedKind::Jump("break"));
    } else if statement.as_return_node().is_some() {
        drop(DroppedKind::Jump("return"));
    } else if statement.as_index_operator_write_node().is_some()
        || statement.as_index_or_write_node().is_some()
        || statement.as_index_and_write_node().is_some()
        || statement.as_call_operator_write_node().is_some()
        || statement.as_call_or_write_node().is_some()
        || statement.as_call_and_write_node().is_some()
    {
        drop(DroppedKind::CompoundAssignment);
    } else if statement.as_multi_write_node().is_some() {
        drop(DroppedKind::MultipleAssignment);
    } else if statement.as_and_node().is_some() || statement.as_or_node().is_some() {
        drop(DroppedKind::Condition);
    } else if statement.as_rescue_modifier_node().is_some() || statement.as_begin_node().is_some_and(|b| b.rescue_clause().is_some()) {
        drop(DroppedKind::Rescue);
    }
}

/// An output tag's expression (`(expr).to_s`): a block it opens is walked.
fn walk_output(argument: &Node<'_>, out: &mut Vec<Dropped>) {
    let Some(to_s) = argument.as_call_node() else { return };
    let Some(inner) = to_s.receiver().and_then(|r| r.as_parentheses_node()).and_then(|p| p.body()) else { return };
    let expression = match inner.as_statements_node() {
        Some(statements) => statements.body().iter().last(),
        None => Some(inner),
    };
    if let Some(call) = expression.as_ref().and_then(|e| e.as_call_node())
        && let Some(block) = call.block().and_then(|b| b.as_block_node())
        && (is_template(block.body()) || matches!(name_of(call.name()).as_str(), "render" | "form_with" | "form_tag"))
    {
        walk_body(block.body(), out);
    }
}

/// Whether a block's body is template (a statement of it appends to the buffer): only such a body is
/// walked (and those of `render`, `form_with` and `form_tag`, which the lowering always walks); a block that computes a value (`<%= link_to path do content_tag(:span, x) end %>`) is
/// Ruby the lowering keeps as it is.
fn is_template(body: Option<Node<'_>>) -> bool {
    body.and_then(|b| b.as_statements_node()).is_some_and(|statements| {
        statements.body().iter().any(|s| s.as_local_variable_write_node().is_some_and(|w| name_of(w.name()) == "_buf"))
    })
}

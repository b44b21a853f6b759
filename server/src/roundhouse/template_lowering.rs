//! What Roundhouse makes of a template's statements, decided once: the statements its view lowering
//! drops (`prism_ingest::template_walk` reads them on the program the compiler builds from the
//! template), each with where it is in the template — the whole of it, which goes with everything
//! inside it, and its first line, where the finding sits — and the finding that says so. The rule
//! (`views.statement-dropped`), the template preview (which shows a dropped statement, and what is
//! inside it, as comments) and the hint at the end of its line are views of it, as `lowering` is for
//! model bodies and `controller_lowering` for controllers.

use std::ops::Range;

use super::prism_ingest::template_walk::{self, DroppedKind};
use super::prism_ingest::{erb, haml, on_char};
use crate::diagnostic::{Diagnostic, Severity};
use crate::syntax::{Language, LineIndex};

/// A template, lowered: what of it the compiled page loses.
#[derive(Debug, Clone, Default)]
pub struct TemplateLowering {
    /// The statements dropped, in order (a dropped statement's inside is not listed again).
    pub dropped: Vec<DroppedStatement>,
}

#[derive(Debug, Clone)]
pub struct DroppedStatement {
    /// The whole statement in the template, from its code to the end of its block's `end`.
    pub range: Range<usize>,
    /// The same statement in the template's program (a HAML line's interpolation is placed in its
    /// text, which the template's range need not cover).
    pub program: Range<usize>,
    /// `views.statement-dropped`, on the statement's first line.
    pub finding: Diagnostic,
}

impl TemplateLowering {
    /// The dropped statement a template range lies in, if any.
    pub fn dropping(&self, range: Range<usize>) -> Option<&DroppedStatement> {
        self.dropped.iter().find(|d| d.range.start <= range.start && range.end <= d.range.end)
    }

    /// Whether a range of the template's program lies in a dropped statement.
    pub fn drops_program(&self, range: Range<usize>) -> bool {
        self.dropped.iter().any(|d| d.program.start <= range.start && range.end <= d.program.end)
    }
}

/// An ERB or HAML template's lowering, on the program Roundhouse compiles it into. Nothing is
/// dropped from a program that does not parse (the compile stops there instead).
pub fn lower(source: &str, language: Language, line_index: &LineIndex) -> TemplateLowering {
    let compiled = match language {
        Language::Erb => erb::compile(source),
        Language::Haml => Some(haml::compile(source)),
        _ => None,
    };
    let Some(compiled) = compiled else { return TemplateLowering::default() };
    let result = ruby_prism::parse(compiled.ruby.as_bytes());
    let Some(program) = result.node().as_program_node() else { return TemplateLowering::default() };
    if !super::prism_ingest::program_parses(super::prism_ingest::converted_template(&program, false).missing > 0, &result) {
        return TemplateLowering::default();
    }
    of_program(&compiled, &program, source, line_index)
}

/// The lowering of a template's program that parses (`judge_compiled` reads its findings from it).
pub(crate) fn of_program(
    compiled: &erb::Compiled,
    program: &ruby_prism::ProgramNode<'_>,
    source: &str,
    line_index: &LineIndex,
) -> TemplateLowering {
    let mut dropped = Vec::new();
    for statement in template_walk::dropped(program) {
        let first_line_end = compiled.ruby[statement.start..].find('\n').map_or(statement.end, |n| statement.start + n);
        let start = on_char(source, compiled.place(statement.start, source));
        let line_end = source[start..].find('\n').map_or(source.len(), |n| start + n);
        let end = on_char(source, compiled.place(statement.end.min(first_line_end), source)).clamp(start, line_end);
        let end = if end > start { end } else { line_end };
        let whole_end = on_char(source, compiled.place(statement.end, source)).max(end);
        let finding = statement_dropped(&statement.kind, &source[start..end], line_index.span(start..end));
        dropped.push(DroppedStatement { range: start..whole_end, program: statement.start..statement.end, finding });
    }
    TemplateLowering { dropped }
}

/// `views.statement-dropped`: what the compiled page loses with a statement the lowering drops.
fn statement_dropped(kind: &DroppedKind, code: &str, span: crate::syntax::Span) -> Diagnostic {
    let code = code.split("%>").next().unwrap_or(code).trim().trim_end_matches('-').trim_end();
    let keeps = "of a code tag's statements it keeps output, assignments, `if`/`unless`/`case`/`while`, `collection.each do |x|`, `cache … do`, `content_for :name do`, calls on a receiver without a block, `render` and `content_for :name, value`";
    let message = match kind {
        DroppedKind::Block(name) if name.starts_with("each_with_index") => format!(
            "Roundhouse drops `{code}` with everything inside it: the compiled page has none of the markup the block writes ({keeps}). Instead, iterate with `.each do |x|` and count the index in a local (`<% i = 0 %>` before it, `<% i += 1 %>` at the end of the block)."
        ),
        DroppedKind::Block(name) => format!(
            "Roundhouse drops `{code}` with everything inside it: the `{name}` call is never made and the compiled page has none of the markup its block writes ({keeps})."
        ),
        DroppedKind::Call(name) if name == "provide" => format!(
            "Roundhouse drops `{code}`: the call is never made, so the content it provides is missing from the compiled page ({keeps}). Instead, write `content_for` with the same arguments (what `provide` does when the page is not streamed)."
        ),
        DroppedKind::Call(name) if name == "raise" => format!(
            "Roundhouse drops `{code}`: the compiled page goes on rendering where Rails raises ({keeps}). Instead, raise in the controller before rendering."
        ),
        DroppedKind::Call(name) => format!(
            "Roundhouse drops `{code}`: the `{name}` call is never made, so what it sets or writes (a page title, a breadcrumb, `concat`ed markup) is missing from the compiled page ({keeps})."
        ),
        DroppedKind::SafeNavigation => format!(
            "Roundhouse drops `{code}`: a `&.` call in a code tag is never made. Instead, call it plainly behind a nil check (`<% x.y unless x.nil? %>`)."
        ),
        DroppedKind::Jump(keyword) => format!(
            "Roundhouse drops `{code}`: the compiled page goes on as if the `{keyword}` were not there ({keeps}). Instead, put what it skips inside an `if`/`unless`."
        ),
        DroppedKind::MultipleAssignment => format!(
            "Roundhouse drops `{code}`: the locals are never assigned in the compiled page. Instead, assign each local in a statement of its own."
        ),
        DroppedKind::CompoundAssignment => format!(
            "Roundhouse drops `{code}`: the compiled page never makes the assignment, so what reads it afterwards sees the old value. Instead, spell it out: `h[:k] = h[:k] + x` for `h[:k] += x`, `h[:k] = v unless h[:k]` for `h[:k] ||= v`."
        ),
        DroppedKind::Condition => format!(
            "Roundhouse drops `{code}` as a statement: neither side runs in the compiled page. Instead, write it as an `if` (`<% b if a %>` for `a && b`, `<% b unless a %>` for `a || b`)."
        ),
        DroppedKind::Rescue => format!(
            "Roundhouse drops `{code}` with everything inside it: the compiled page has none of its markup and none of its calls are made ({keeps})."
        ),
    };
    Diagnostic { span, severity: Severity::Warning, rule: rule!("views.statement-dropped"), message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::file_diagnostics;
    use crate::roundhouse::tree::{Target, map_file};

    /// The rule, the preview and the hint tell one story for every ERB and HAML template of the
    /// fidelity fixtures and the fixture apps: each statement the lowering drops is reported at its
    /// first line and hinted there, and the template's preview shows it (and every line inside it)
    /// as comments naming the rule; no `views.statement-dropped` is reported that the lowering does
    /// not drop; and what it keeps is code in the preview, never a comment that it is dropped.
    #[test]
    fn rule_preview_and_hint_tell_the_same_story() {
        let (mut templates, mut dropped, mut previewed) = (0, 0, 0);
        let mut check = |context: &crate::app::AppContext,
                         derived: &std::collections::HashMap<std::path::PathBuf, Vec<Diagnostic>>,
                         text_of: &dyn Fn(&crate::rails::FileFacts) -> String| {
            for facts in context.files.iter().filter(|f| f.template.as_ref().is_some_and(|t| matches!(t.handler.as_str(), "erb" | "haml")))
            {
                templates += 1;
                let text = text_of(facts);
                let language = if facts.template.as_ref().unwrap().handler == "erb" { Language::Erb } else { Language::Haml };
                let lowering = lower(&text, language, &facts.line_index);
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let hints = crate::ide::inlay::inlay_hints(facts, context, &diagnostics);
                let rule = rule!("views.statement-dropped");
                let reported: Vec<u32> = diagnostics.iter().filter(|d| d.rule == rule).map(|d| d.span.start.line).collect();
                let lowered: Vec<u32> = lowering.dropped.iter().map(|d| d.finding.span.start.line).collect();
                assert_eq!(reported, lowered, "{}: reported and lowered differ", facts.relative_path);
                let preview = super::super::preview::preview(
                    facts,
                    &text,
                    context,
                    &map_file(facts, context.tree_facts()),
                    &diagnostics,
                    Target::Ruby,
                );
                let lines: Vec<&str> = preview.text.lines().collect();
                // The function's body: lines mapped after the `def` (the header lists every finding).
                let def_line = lines.iter().position(|l| l.trim_start().starts_with("def self.")).map(|p| p as u32);
                let body_at = |line: u32| -> Vec<&str> {
                    preview
                        .mapping
                        .iter()
                        .filter(|(p, s)| def_line.is_some_and(|d| *p > d) && *s == line)
                        .map(|(p, _)| lines[*p as usize].trim_start())
                        .collect()
                };
                if def_line.is_some() {
                    previewed += 1;
                }
                let line_of = |offset: usize| facts.line_index.span(offset..offset).start.line;
                for statement in &lowering.dropped {
                    dropped += 1;
                    let line = statement.finding.span.start.line;
                    let place = format!("{}:{}", facts.relative_path, line + 1);
                    assert!(
                        hints.iter().any(|h| h.position.line == line && h.label.contains(rule.as_str())),
                        "{place}: no hint says {rule}"
                    );
                    if def_line.is_none() || language != Language::Erb {
                        continue;
                    }
                    let body = body_at(line);
                    assert!(
                        body.iter().any(|l| l.starts_with('#') && l.contains(rule.as_str())),
                        "{place}: the preview does not say {rule}: {body:?}"
                    );
                    // Inside it (not its last line, which may hold what follows): comments alone.
                    for inside in line..line_of(statement.range.end) {
                        let body = body_at(inside);
                        assert!(body.iter().all(|l| l.starts_with('#')), "{place}: dropped, yet line {} has code: {body:?}", inside + 1);
                    }
                }
                // What is kept is never shown dropped.
                if def_line.is_some() {
                    for (preview_line, source_line) in &preview.mapping {
                        if def_line.is_some_and(|d| *preview_line > d)
                            && lines[*preview_line as usize].trim_start().starts_with("# dropped")
                        {
                            assert!(
                                lowering
                                    .dropped
                                    .iter()
                                    .any(|d| line_of(d.range.start) <= *source_line && *source_line <= line_of(d.range.end)),
                                "{}:{}: shown dropped, yet kept",
                                facts.relative_path,
                                source_line + 1
                            );
                        }
                    }
                }
            }
        };
        crate::roundhouse::fidelity::each_fixture_app(|_, context, derived, texts| {
            check(context, derived, &|facts| texts[&facts.relative_path].clone());
        });
        let dirs = ["examples/blog", "tests/fixtures/apps/shop", "tests/fixtures/apps/rules", "tests/fixtures/apps/preload"];
        crate::test_fixture::each_app(&dirs, |context, derived, _| {
            check(context, derived, &|facts| std::fs::read_to_string(&facts.path).unwrap());
        });
        assert!(templates >= 40 && dropped >= 12 && previewed >= 20, "{templates} templates, {dropped} dropped, {previewed} previewed");
    }
}

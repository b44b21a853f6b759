//! An initializer as Roundhouse reads it: what becomes of each of its top-level statements, decided
//! once. The compiler reads an initializer for its app's configuration (`config.x = …`,
//! `Rails.application.config…`), the `to_fs` formats it registers (`roundhouse::time_formats`) and
//! the files it requires (how an app loads `lib/`); it names things with Rails' default inflections
//! (an `inflect.*` rule is ignored), carries no reopened core or framework class into any tree, and
//! runs nothing else. The `initializer.*` rules and the "Not read" part of the config preview are
//! views of `lower` (a test holds them to one story).

use crate::diagnostic::{Diagnostic, RuleId};
use crate::rails::FileFacts;
use crate::rails::project::FileKind;
use crate::syntax::Span;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub span: Span,
    pub fate: Fate,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// Read into the app's configuration (an `inflections` block is read for its rules, below).
    Config,
    /// A `to_fs` format the compiler reads.
    TimeFormat,
    /// Requires files: honoured (`ingest::AppReading`).
    Requires,
    /// `inflect.<kind>`: ignored.
    Inflection(String),
    /// `class String`, `X.prepend(…)`: not carried into any tree.
    Reopened { how: String, name: String },
    /// Runs in Rails only; what it is, as written (`Foo.setup`, `Bar.baz =`).
    NotRead(String),
}

impl Fate {
    /// The rule that says it, for what the compiler does not read.
    pub fn rule(&self) -> Option<RuleId> {
        match self {
            Fate::Config | Fate::TimeFormat | Fate::Requires => None,
            Fate::Inflection(_) => Some(rule!("initializer.inflection-ignored")),
            Fate::Reopened { .. } => Some(rule!("initializer.monkey-patch")),
            Fate::NotRead(_) => Some(rule!("initializer.not-read")),
        }
    }
}

/// Each top-level statement of an initializer, and each inflection rule and reopened class in it,
/// with its fate, in the order of the file. Empty for any other file.
pub fn lower(facts: &FileFacts, text: &str) -> Vec<Statement> {
    if facts.kind != Some(FileKind::Initializer) {
        return Vec::new();
    }
    let config = facts.config.as_deref();
    let time_format =
        |span: Span| config.is_some_and(|c| c.time_formats.iter().any(|f| f.span == span && super::time_formats::reads(f).is_some()));
    let reopened = |span: Span| config.is_some_and(|c| c.reopened.iter().any(|r| r.span == span));
    let mut out = Vec::new();
    for item in &facts.outline.items {
        match item {
            crate::syntax::outline::Item::Assignment(a) => {
                let fate = if a.target.starts_with("config.") || a.target.starts_with("Rails.application.config.") {
                    Fate::Config
                } else if time_format(a.span) {
                    Fate::TimeFormat
                } else {
                    Fate::NotRead(format!("{} =", a.target))
                };
                out.push(Statement { span: a.span, fate });
            }
            crate::syntax::outline::Item::Call(call) => {
                let fate = if call.receiver.as_deref().is_some_and(|r| r.contains("config")) || call.method == "inflections" {
                    Fate::Config
                } else if time_format(call.span) {
                    Fate::TimeFormat
                } else if reopened(call.span) {
                    continue; // Said with the reopened classes, below.
                } else if text.get(call.span.range()).is_some_and(|t| t.contains("require")) {
                    Fate::Requires
                } else {
                    Fate::NotRead(call.receiver.as_ref().map_or_else(|| call.method.clone(), |r| format!("{r}.{}", call.method)))
                };
                out.push(Statement { span: call.span, fate });
            }
            _ => {}
        }
    }
    if let Some(config) = config {
        out.extend(config.inflections.iter().map(|r| Statement { span: r.span, fate: Fate::Inflection(r.kind.clone()) }));
        out.extend(
            config.reopened.iter().map(|r| Statement { span: r.span, fate: Fate::Reopened { how: r.how.clone(), name: r.name.clone() } }),
        );
    }
    out.sort_by_key(|s| s.span.start_byte);
    out
}

/// The `initializer.*` findings of an initializer.
pub fn findings(facts: &FileFacts, text: &str) -> Vec<Diagnostic> {
    lower(facts, text)
        .into_iter()
        .filter_map(|statement| {
            let rule = statement.fate.rule()?;
            Some(Diagnostic::finding(rule, statement.span, message(&statement.fate)))
        })
        .collect()
}

fn message(fate: &Fate) -> String {
    match fate {
        Fate::Inflection(kind) => format!(
            "Roundhouse names classes and files with Rails' default inflections: `inflect.{kind}` is ignored, so emitted names may differ."
        ),
        Fate::Reopened { how, name } => format!("`{how} {name}` in an initializer is not carried into any emitted tree."),
        Fate::NotRead(what) => match what.strip_suffix(" =").and_then(|t| t.split_once("::DATE_FORMATS[")) {
            Some((_, name)) => format!(
                "Roundhouse reads `to_fs` formats only from `Time::DATE_FORMATS` (a string or a one-parameter `->` lambda, at the file's top level): `{what}` is not read, so `to_fs({})` is left as written in the compiled app, where it raises NoMethodError.",
                name.trim_end_matches(']')
            ),
            None => format!("Roundhouse does not read `{what}` in an initializer: it runs in Rails only."),
        },
        Fate::Config | Fate::TimeFormat | Fate::Requires => String::new(),
    }
}

/// How the config preview shows a statement the compiler does not read (a comment's text).
pub fn shown(fate: &Fate) -> Option<String> {
    let rule = fate.rule()?;
    Some(match fate {
        Fate::Inflection(kind) => format!("{rule}: inflect.{kind} (Roundhouse names things with Rails' default inflections)"),
        Fate::Reopened { how, name } => format!("{rule}: {how} {name} is not carried into any tree"),
        Fate::NotRead(what) => format!("{rule}: {what} is not read"),
        Fate::Config | Fate::TimeFormat | Fate::Requires => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::file_diagnostics;
    use crate::roundhouse::tree::{Target, map_file};

    /// The initializer rules and the config preview tell one story, for every initializer of the
    /// fidelity fixtures and the fixture apps: each statement the lowering says is not read is one
    /// finding of its rule on its line, and one comment of the preview's "Not read" part mapped to
    /// that line, naming the same rule; nothing else is either.
    fn three_rules() -> [RuleId; 3] {
        [rule!("initializer.not-read"), rule!("initializer.inflection-ignored"), rule!("initializer.monkey-patch")]
    }

    #[test]
    fn rules_and_preview_tell_the_same_story() {
        let (mut files, mut said) = (0, 0);
        let mut check = |context: &crate::app::AppContext,
                         derived: &std::collections::HashMap<std::path::PathBuf, Vec<Diagnostic>>,
                         text_of: &dyn Fn(&FileFacts) -> String| {
            for facts in context.files.iter().filter(|f| f.kind == Some(FileKind::Initializer)) {
                files += 1;
                let text = text_of(facts);
                let mut lowered: Vec<(u32, RuleId)> =
                    lower(facts, &text).iter().filter_map(|s| Some((s.span.start.line, s.fate.rule()?))).collect();
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let three = three_rules();
                let mut reported: Vec<(u32, RuleId)> =
                    diagnostics.iter().filter(|d| three.contains(&d.rule)).map(|d| (d.span.start.line, d.rule)).collect();
                lowered.sort();
                reported.sort();
                assert_eq!(reported, lowered, "{}: the findings are not the statements not read", facts.relative_path);
                said += lowered.len();
                let entry = map_file(facts, context.tree_facts());
                let preview = super::super::preview::preview(facts, &text, context, &entry, &diagnostics, Target::Ruby);
                let lines: Vec<&str> = preview.text.lines().collect();
                let mut shown: Vec<(u32, RuleId)> = preview
                    .mapping
                    .iter()
                    .filter_map(|(p, source)| {
                        let line = lines.get(*p as usize)?.trim_start().strip_prefix("# ")?;
                        let (rule, _) = line.split_once(": ")?;
                        let rule = three_rules().into_iter().find(|r| r.as_str() == rule)?;
                        Some((*source, rule))
                    })
                    .collect();
                shown.sort();
                shown.dedup();
                if preview.text.contains("Not read:") || !lowered.is_empty() {
                    assert_eq!(shown, lowered, "{}: the preview's \"Not read\" part:\n{}", facts.relative_path, preview.text);
                }
            }
        };
        crate::roundhouse::fidelity::each_fixture_app(|_, context, derived, texts| {
            check(context, derived, &|facts| texts[&facts.relative_path].clone());
        });
        crate::test_fixture::each_app(&["examples/blog", "tests/fixtures/apps/shop"], |context, derived, _| {
            check(context, derived, &|facts| std::fs::read_to_string(&facts.path).unwrap());
        });
        assert!(files >= 5 && said >= 5, "{files} initializers, {said} statements not read");
    }
}

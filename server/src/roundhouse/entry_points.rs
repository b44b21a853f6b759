//! What Roundhouse gives the class side of a job and of a mailer, decided once. Rails code calls a
//! job's `perform` through `Job.perform_later(…)` and a mailer's methods through
//! `Mailer.method(…).deliver_later`; the compiler writes those class-side methods itself, each
//! forwarding its arguments by position to a new instance:
//! - a job (its superclass reaches `ActiveJob::Base` through the app's classes, by the names as
//!   written) gets `self.perform_later` (which runs `perform` at once: jobs run inline), `self.perform_now`
//!   and `self.set(options)` (which returns the class: `wait:`, `queue:`, `priority:` are ignored),
//!   each unless the class defines it;
//! - a mailer (reaching `ActionMailer::Base`) gets a class-side twin of every instance method but
//!   `initialize` (private ones too) it does not define on its class side;
//! - a method with a required keyword parameter (`post_id:`) or a block parameter gets no wrapper
//!   at all, so the class-side call raises NoMethodError; an optional keyword (`notify: false`) is
//!   forwarded as a positional parameter with its default; a rest parameter (`*args`) is passed on
//!   as one array (`new.perform(args)`).
//!
//! The rules (`job.runs-inline`, `job.perform-not-wrapped`, `mailer.method-not-wrapped`), the
//! job's or mailer's preview and the hint at the end of the method's line are views of it, as
//! `lowering` is for model bodies. Measured against the compiler: fixtures `job-entry-points`,
//! `mailer-entry-points`.

use crate::app::AppContext;
use crate::diagnostic::Diagnostic;
use crate::rails::FileFacts;
use crate::syntax::Span;
use crate::syntax::outline::{Item, MethodDef, Namespace};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Job,
    Mailer,
}

/// A job or mailer class, lowered.
#[derive(Debug, Clone)]
pub struct EntryClass<'a> {
    pub namespace: &'a Namespace,
    /// Its methods the compiler reads (`compiled_methods`).
    pub methods: Vec<&'a MethodDef>,
    pub kind: Kind,
    /// One per instance method the compiler considers (a job's `perform`; a mailer's every one but
    /// `initialize` and those it defines on its class side), in source order.
    pub entries: Vec<Entry<'a>>,
}

#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub method: &'a MethodDef,
    pub fate: Fate,
    /// The findings that say what the class side lacks or does: the first is the entry point's own
    /// (`job.runs-inline`, `job.perform-not-wrapped`, `mailer.method-not-wrapped`), then
    /// `*.rest-arguments-nested` for a wrapped method with a rest parameter.
    pub findings: Vec<Diagnostic>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// The class-side methods written for it.
    Wrapped(Vec<Wrapper>),
    /// None: what of its parameters a wrapper that forwards by position cannot pass on.
    NotWrapped(&'static str),
}

/// A class-side method the compiler writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Wrapper {
    pub name: String,
    /// Its lines, as Ruby, from `def self.…` to `end`.
    pub lines: Vec<String>,
}

impl Wrapper {
    fn new(name: &str, parameters: &[String], body: &[String]) -> Wrapper {
        let head = if parameters.is_empty() { format!("def self.{name}") } else { format!("def self.{name}({})", parameters.join(", ")) };
        let mut lines = vec![head];
        lines.extend(body.iter().map(|l| format!("  {l}")));
        lines.push("end".to_owned());
        Wrapper { name: name.to_owned(), lines }
    }
}

/// The rules of this lowering. Each is on the method's name, where its parameters are; the compiler
/// places its note on the method body's first statement (`first_statement_line`), so a compiler
/// line from one to the other is the same note (`exact::ExactDiagnostic::said_by`).
pub const RULES: [crate::diagnostic::RuleId; 5] = [
    rule!("job.runs-inline"),
    rule!("job.perform-not-wrapped"),
    rule!("mailer.method-not-wrapped"),
    rule!("job.rest-arguments-nested"),
    rule!("mailer.rest-arguments-nested"),
];

/// The line (0-based) of the first statement of the method whose `def` is on `def_line`: past its
/// parameter list (which may run over lines) and the blank and comment lines after it; `def_line`
/// for a method whose body is on its own line or that has none.
pub fn first_statement_line(text: &str, def_line: u32) -> u32 {
    let mut depth = 0i32;
    let mut lines = text.lines().enumerate().skip(def_line as usize);
    for (i, line) in lines.by_ref() {
        let code = line.split(" #").next().unwrap_or(line);
        depth += code.matches('(').count() as i32 - code.matches(')').count() as i32;
        if depth <= 0 {
            // A method on one line (`def x; …; end`, `def x(a) = …`): its body is on it.
            if code.contains(';') || code.contains(") =") || code.split_whitespace().nth(2) == Some("=") {
                return i as u32;
            }
            break;
        }
    }
    for (i, line) in lines {
        let trimmed = line.trim();
        if !(trimmed.is_empty() || trimmed.starts_with('#')) {
            return if trimmed == "end" { def_line } else { i as u32 };
        }
    }
    def_line
}

/// The job and mailer classes of a file, lowered (none outside `app/` and `lib/`).
pub fn lower<'a>(file: &'a FileFacts, context: &AppContext) -> Vec<EntryClass<'a>> {
    if !(file.relative_path.starts_with("app/") || file.relative_path.starts_with("lib/")) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for namespace in file.outline.namespaces() {
        let kind = if context.job_classes().contains(&namespace.name) {
            Kind::Job
        } else if context.mailer_classes().contains(&namespace.name) {
            Kind::Mailer
        } else {
            continue;
        };
        let methods = compiled_methods(file, namespace);
        let class_side: Vec<&str> = methods.iter().filter(|m| m.singleton).map(|m| m.name.as_str()).collect();
        let class = &namespace.name;
        let entries = match kind {
            Kind::Job => methods
                .iter()
                .find(|m| m.name == "perform" && !m.singleton)
                .map(|perform| job_entry(class, perform, &class_side))
                .into_iter()
                .collect(),
            Kind::Mailer => methods
                .iter()
                .filter(|m| !m.singleton && m.name != "initialize" && !class_side.contains(&m.name.as_str()))
                .map(|m| mailer_entry(class, m))
                .collect(),
        };
        out.push(EntryClass { namespace, methods, kind, entries });
    }
    out
}

/// The methods of a class the compiler reads: not a `def` it reads as the argument of a call
/// (`private def x`), which it compiles as `nil` (`syntax.def-in-expression`, decided by the ingest
/// pass).
fn compiled_methods<'a>(file: &FileFacts, namespace: &'a Namespace) -> Vec<&'a MethodDef> {
    let lost: Vec<u32> =
        file.diagnostics.iter().filter(|d| d.rule == rule!("syntax.def-in-expression")).map(|d| d.span.start_byte).collect();
    namespace
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Method(def) if !lost.contains(&def.span.start_byte) => Some(def),
            _ => None,
        })
        .collect()
}

fn job_entry<'a>(class: &str, perform: &'a MethodDef, class_side: &[&str]) -> Entry<'a> {
    let (fate, finding) = match unforwarded_parameters(&perform.parameters) {
        Some(what) => (
            Fate::NotWrapped(what),
            Some(Diagnostic::finding(
                rule!("job.perform-not-wrapped"),
                perform.name_span,
                format!(
                    "Roundhouse writes no `{class}.perform_later` or `perform_now` for a `perform` with {what} (it forwards arguments by position), and its runtime's job base defines neither: a call to either raises NoMethodError, in every tree. Instead, take positional parameters: `def perform(record_id, notify)`."
                ),
            )),
        ),
        None => {
            let (parameters, arguments) = forwarded(&perform.parameters);
            let call = format!("new.perform({})", arguments.join(", "));
            let mut wrappers = Vec::new();
            if !class_side.contains(&"perform_later") {
                let record = format!("ActiveJob.record_performed({})", super::preview::ruby_string(class));
                wrappers.push(Wrapper::new(
                    "perform_later",
                    &parameters,
                    &[record, format!("{call} if !(ActiveJob.enqueue_only)"), "nil".to_owned()],
                ));
            }
            if !class_side.contains(&"perform_now") {
                wrappers.push(Wrapper::new("perform_now", &parameters, std::slice::from_ref(&call)));
            }
            if !class_side.contains(&"set") {
                wrappers.push(Wrapper::new("set", &["options".to_owned()], &["self".to_owned()]));
            }
            let finding = Diagnostic::finding(
                rule!("job.runs-inline"),
                perform.name_span,
                format!(
                    "Roundhouse runs jobs inline: `{class}.perform_later(…)` performs this job at once, in the process that enqueues it (the request waits for it, and what it raises reaches the caller), and `set(wait:, queue:, priority:)` options are ignored."
                ),
            );
            (Fate::Wrapped(wrappers), Some(finding))
        }
    };
    let findings = finding.into_iter().chain(rest_nested(class, perform, &fate, Kind::Job)).collect();
    Entry { method: perform, fate, findings }
}

fn mailer_entry<'a>(class: &str, method: &'a MethodDef) -> Entry<'a> {
    let name = &method.name;
    let (fate, finding) = match unforwarded_parameters(&method.parameters) {
        Some(what) => (
            Fate::NotWrapped(what),
            Some(Diagnostic::finding(
                rule!("mailer.method-not-wrapped"),
                method.name_span,
                format!(
                    "Roundhouse writes no class-side `{class}.{name}` for a mailer method with {what} (it forwards arguments by position), so `{class}.{name}(…).deliver_later` raises NoMethodError, in every tree. Instead, take positional parameters: `def {name}(record_id)`."
                ),
            )),
        ),
        None => {
            let (parameters, arguments) = forwarded(&method.parameters);
            (Fate::Wrapped(vec![Wrapper::new(name, &parameters, &[format!("new.{name}({})", arguments.join(", "))])]), None)
        }
    };
    let findings = finding.into_iter().chain(rest_nested(class, method, &fate, Kind::Mailer)).collect();
    Entry { method, fate, findings }
}

/// `job.rest-arguments-nested` / `mailer.rest-arguments-nested`: a wrapped method with a rest
/// parameter its body reads, which the compiler's wrapper passes on as one array
/// (`new.perform(args)`, not `*args`), so the method gets its arguments nested one level deeper
/// than the caller gave them.
fn rest_nested(class: &str, method: &MethodDef, fate: &Fate, kind: Kind) -> Option<Diagnostic> {
    let Fate::Wrapped(wrappers) = fate else { return None };
    // A rest parameter the body never reads changes nothing nested.
    let rest = method.collecting_read.iter().find(|p| is_rest(p))?.trim_start_matches('*').to_owned();
    let name = &method.name;
    let (rule, entry) = match kind {
        Kind::Job => (rule!("job.rest-arguments-nested"), wrappers.first().map_or("perform_now", |w| w.name.as_str()).to_owned()),
        Kind::Mailer => (rule!("mailer.rest-arguments-nested"), name.clone()),
    };
    Some(Diagnostic::finding(
        rule,
        method.name_span,
        format!(
            "Roundhouse's class-side `{class}.{entry}` passes `*{rest}` on as one array (`new.{name}(…{rest})`), so `{name}` gets its rest arguments nested in another array: `{class}.{entry}(1, 2)` gives `{rest}` as `[[1, 2]]`, not `[1, 2]`, in every tree. Instead, take a fixed list of positional parameters, or one array parameter the callers pass."
        ),
    ))
}

impl Entry<'_> {
    /// Where its finding and hint sit: the method's name.
    pub fn name_span(&self) -> Span {
        self.method.name_span
    }

    /// The hint at the end of the method's line.
    pub fn hint(&self, class: &str, kind: Kind) -> String {
        match (&self.fate, kind) {
            (Fate::Wrapped(wrappers), Kind::Job) => {
                let names: Vec<&str> = wrappers.iter().map(|w| w.name.as_str()).collect();
                if names.is_empty() { "runs inline".to_owned() } else { format!("{class}.{} written; runs inline", names.join(", ")) }
            }
            (Fate::Wrapped(_), Kind::Mailer) => format!("{class}.{} written", self.method.name),
            (Fate::NotWrapped(_), Kind::Job) => format!("no {class}.perform_later or perform_now"),
            (Fate::NotWrapped(_), Kind::Mailer) => format!("no {class}.{}", self.method.name),
        }
    }
}

/// The parameter list of a class-side wrapper, and the arguments it passes on, as the compiler
/// writes them (for a list it forwards: `unforwarded_parameters`): an optional keyword becomes a
/// positional parameter with its default, `**options` a positional `options = {}`, and a rest
/// parameter is passed on as one array. (Beside a rest parameter the compiler writes `**options` as
/// `options = {}` too, which is no Ruby: the preview keeps `**options` there.)
fn forwarded(parameters: &str) -> (Vec<String>, Vec<String>) {
    let list = top_level_parameters(parameters);
    let rest = list.iter().any(|p| is_rest(p));
    let mut out = (Vec::new(), Vec::new());
    for parameter in list {
        let name = parameter.split(['=', ':']).next().unwrap_or(parameter).trim().trim_start_matches('*');
        let written = match parameter.split_once(':') {
            Some((keyword, default)) if !keyword.contains('=') => format!("{} = {}", keyword.trim(), default.trim()),
            _ if parameter.starts_with("**") && !rest => format!("{name} = {{}}"),
            _ => parameter.to_owned(),
        };
        out.0.push(written);
        out.1.push(name.to_owned());
    }
    out
}

/// What of a method's parameters a class-side wrapper that forwards its arguments by position
/// cannot pass on (`None`: nothing): a required keyword (`account_id:`; an optional one,
/// `full: false`, is forwarded as a positional parameter with its default, and `**opts` beside one
/// does not help), an optional keyword beside a rest parameter (`*ids, full: false`: the compiler
/// keeps it a keyword, since `full = false` after `*ids` is no Ruby) or a block parameter.
fn unforwarded_parameters(parameters: &str) -> Option<&'static str> {
    let parameters: Vec<&str> = top_level_parameters(parameters);
    let rest = parameters.iter().any(|p| is_rest(p));
    let keyword =
        |p: &&str| p.split_once(':').is_some_and(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'));
    if parameters.iter().any(|p| p.strip_suffix(':').is_some_and(|name| name.chars().all(|c| c.is_alphanumeric() || c == '_'))) {
        Some("required keyword parameters")
    } else if rest && parameters.iter().any(keyword) {
        Some("keyword parameters beside a rest parameter")
    } else if parameters.iter().any(|p| p.starts_with('&')) {
        Some("a block parameter")
    } else {
        None
    }
}

/// A rest parameter (`*ids`), not `**options`.
fn is_rest(parameter: &str) -> bool {
    parameter.starts_with('*') && !parameter.starts_with("**")
}

/// A method's parameter list split at its top-level commas (`a, b = f(1, 2), c:` → three).
fn top_level_parameters(parameters: &str) -> Vec<&str> {
    let inner = parameters.trim().trim_start_matches('(').trim_end_matches(')');
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::file_diagnostics;
    use crate::roundhouse::tree::{Target, map_file};

    /// Where the compiler places a method's note: the first statement of its body.
    #[test]
    fn the_first_statement_is_past_the_parameters_and_comments() {
        let text = "class A\n  def one(a)\n    a\n  end\n  def many(\n    a,\n    b: 1\n  )\n    # why\n\n    a\n  end\n  def empty\n  end\n  def inline(a) = a\nend\n";
        assert_eq!(first_statement_line(text, 1), 2);
        assert_eq!(first_statement_line(text, 4), 10);
        assert_eq!(first_statement_line(text, 12), 12);
        assert_eq!(first_statement_line(text, 14), 14);
    }

    /// The rules, the preview and the hints tell one story for every job and mailer class of the
    /// fidelity fixtures and the fixture apps: each method's finding is the one reported at its line;
    /// a wrapped method's class-side methods are in the preview, mapped to it, and hinted; one with no
    /// wrapper has none in the preview, a comment naming its rule instead, and a hint; an undecided
    /// one has neither finding nor hint. Where a fixture records what the compiler emitted for the
    /// class (`emits`/`omits` a `def self.…`), the preview agrees.
    #[test]
    fn rule_preview_and_hint_tell_the_same_story() {
        let rules = RULES;
        let (mut classes, mut entries, mut held) = (0, 0, 0);
        let mut check = |header: &[&str],
                         context: &AppContext,
                         derived: &std::collections::HashMap<std::path::PathBuf, Vec<Diagnostic>>,
                         text_of: &dyn Fn(&FileFacts) -> String| {
            for facts in &context.files {
                let lowered = lower(facts, context);
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let mut reported: Vec<(String, u32)> =
                    diagnostics.iter().filter(|d| rules.contains(&d.rule)).map(|d| (d.rule.to_string(), d.span.start.line)).collect();
                let mut said: Vec<(String, u32)> = lowered
                    .iter()
                    .flat_map(|c| &c.entries)
                    .flat_map(|e| &e.findings)
                    .map(|d| (d.rule.to_string(), d.span.start.line))
                    .collect();
                reported.sort();
                said.sort();
                assert_eq!(reported, said, "{}: reported and lowered differ", facts.relative_path);
                if lowered.is_empty() {
                    continue;
                }
                let text = text_of(facts);
                let entry = map_file(facts, context.tree_facts());
                let preview = super::super::preview::preview(facts, &text, context, &entry, &diagnostics, Target::Ruby);
                let lines: Vec<&str> = preview.text.lines().collect();
                let mapped_to = |line: u32| -> Vec<&str> {
                    preview.mapping.iter().filter(|(_, s)| *s == line).map(|(p, _)| lines[*p as usize].trim_start()).collect()
                };
                let hints = crate::ide::inlay::inlay_hints(facts, context, &diagnostics);
                let hinted = |line: u32| hints.iter().any(|h| h.position.line == line && h.kind == crate::ide::inlay::HintKind::EntryPoint);
                for class in &lowered {
                    classes += 1;
                    for e in &class.entries {
                        entries += 1;
                        let line = e.name_span().start.line;
                        let place = format!("{}:{} ({})", facts.relative_path, line + 1, e.method.name);
                        match &e.fate {
                            Fate::Wrapped(wrappers) => {
                                for wrapper in wrappers {
                                    assert!(
                                        mapped_to(line).iter().any(|l| l.starts_with(&format!("def self.{}", wrapper.name))),
                                        "{place}: the preview has no `def self.{}`",
                                        wrapper.name
                                    );
                                }
                                assert!(hinted(line), "{place}: not hinted");
                            }
                            Fate::NotWrapped(_) => {
                                let rule = e.findings[0].rule;
                                let missing = if class.kind == Kind::Job { "perform_later".to_owned() } else { e.method.name.clone() };
                                assert!(
                                    !lines.iter().any(|l| l.trim_start().starts_with(&format!("def self.{missing}"))),
                                    "{place}: the preview writes `def self.{missing}`"
                                );
                                assert!(
                                    mapped_to(line).iter().any(|l| l.starts_with('#') && l.contains(rule.as_str())),
                                    "{place}: the preview does not say {rule}"
                                );
                                assert!(hinted(line), "{place}: not hinted");
                            }
                        }
                    }
                }
                // The compiler's own output, where the fixture recorded it for this file's class.
                let emitted = entry.target(Target::Ruby).map(|t| t.paths.clone()).unwrap_or_default();
                for verdict in header.iter().filter_map(|l| l.split_once(": ").map(|(_, v)| v)) {
                    let (emits, rest) = match verdict.split_once(' ') {
                        Some(("emits", rest)) => (true, rest),
                        Some(("omits", rest)) => (false, rest),
                        _ => continue,
                    };
                    let Some((path, wanted)) = rest.split_once(' ') else { continue };
                    if !emitted.iter().any(|p| p == path) || !wanted.starts_with("def self.") {
                        continue;
                    }
                    held += 1;
                    let code: Vec<&str> = lines.iter().map(|l| l.trim_start()).filter(|l| !l.starts_with('#')).collect();
                    assert_eq!(
                        code.iter().any(|l| l.starts_with(wanted)),
                        emits,
                        "{}: the compiler {} `{wanted}`; the preview:\n{}",
                        facts.relative_path,
                        if emits { "emits" } else { "omits" },
                        preview.text
                    );
                }
            }
        };
        crate::roundhouse::fidelity::each_fixture_app(|header, context, derived, texts| {
            check(header, context, derived, &|facts| texts[&facts.relative_path].clone());
        });
        crate::test_fixture::each_app(&["examples/blog", "tests/fixtures/apps/shop"], |context, derived, _| {
            check(&[], context, derived, &|facts| std::fs::read_to_string(&facts.path).unwrap());
        });
        assert!(classes >= 6 && entries >= 8 && held >= 4, "{classes} classes, {entries} entry points, {held} compiler verdicts");
    }
}

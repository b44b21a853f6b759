//! `to_fs(:format)` (and `to_formatted_s`) as Roundhouse compiles it. A call with a receiver and one
//! literal format it knows is expanded into `strftime("…")` (or the method the format names); every
//! other such call is left as written, and raises in the compiled app: no target's runtime defines
//! `to_fs` (Rails' `to_s` fallback for a format it does not know is not emitted either). The formats
//! it knows are seven of Rails' own and those an initializer registers at its top level on
//! `Time::DATE_FORMATS` (or with `ActiveSupport::TimeFormats.register`), as a string or a
//! one-parameter `->` lambda; `Date::DATE_FORMATS` is not read. A lambda is inlined with the
//! receiver in place of its parameter, so the receiver must be a plain read (a variable, a constant,
//! a chain of calls without arguments).
//!
//! Measured against the compiler (fixture `syntax-to-fs-not-expanded`): its own note says so only for
//! templates; in a model, controller, helper or library class the call is left the same way without
//! a word (the emitted file keeps it). The calls are found where the compiler reads code
//! (`prism_ingest`, which keeps them on the file's facts); the app's formats are its initializers'
//! (`AppReading::time_formats`); `syntax.to-fs-not-expanded` is a view of `fate`.

use std::collections::BTreeMap;

use crate::syntax::Span;

/// One `x.to_fs(…)` / `x.to_formatted_s(…)` in code the compiler reads.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct FormatCall {
    /// From the method's name to the end of its arguments (on its first line).
    pub span: Span,
    pub method: String,
    pub format: FormatArgument,
    pub receiver: Receiver,
}

/// What the call passes as its format.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub enum FormatArgument {
    /// `x.to_fs`: kept as written.
    None,
    /// `:short` or `"short"`.
    Literal(String),
    /// A variable, a call, an interpolated symbol.
    Computed,
    /// More than one argument (`to_fs(:human_size, precision: 2)`): kept as written.
    Several,
}

/// Whether the receiver can stand in for a format lambda's parameter (read again at each mention).
#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub enum Receiver {
    /// A variable, an instance variable, a constant, `self`, a literal, or calls without arguments
    /// on one of those.
    Plain,
    /// A call with arguments or a block somewhere in it, or another expression.
    Effects,
    /// `&.` in it: not measured.
    Unsure,
}

/// A format an initializer registers in a way the compiler reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppFormat {
    Strftime(String),
    Lambda,
}

/// A registration the compiler does not read (`Date::DATE_FORMATS[:ymd] = "%Y-%m-%d"`, one inside a
/// block or a condition, a lambda it cannot inline): what the message points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    pub owner: String,
    pub name: String,
    /// The string format, when it is one.
    pub strftime: Option<String>,
    pub file: String,
    pub line: u32,
}

/// The formats of the app's initializers: those the compiler reads, and the others.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AppFormats {
    pub read: BTreeMap<String, AppFormat>,
    pub unread: Vec<Unread>,
}

/// What the compiler reads of one registration: `None` when it does not read it.
pub fn reads(format: &crate::rails::config::TimeFormat) -> Option<AppFormat> {
    use crate::syntax::value::Value;
    let owner_read = matches!(format.owner.as_str(), "Time::DATE_FORMATS" | "ActiveSupport::TimeFormats");
    if !owner_read || !format.top_level || !matches!(format.name, Value::Symbol(_)) {
        return None;
    }
    match &format.value {
        Value::String(s) => Some(AppFormat::Strftime(s.clone())),
        _ if format.lambda_parameters == Some(1) => Some(AppFormat::Lambda),
        _ => None,
    }
}

impl AppFormats {
    /// Adds the registrations of one initializer.
    pub fn add(&mut self, formats: &[crate::rails::config::TimeFormat], file: &str) {
        use crate::syntax::value::Value;
        for format in formats {
            match (&format.name, reads(format)) {
                (Value::Symbol(name), Some(read)) => {
                    self.read.insert(name.clone(), read);
                }
                (name, _) => self.unread.push(Unread {
                    owner: format.owner.clone(),
                    name: match name {
                        Value::Symbol(name) => name.clone(),
                        other => other.to_string(),
                    },
                    strftime: match &format.value {
                        Value::String(s) => Some(s.clone()),
                        _ => None,
                    },
                    file: file.to_owned(),
                    line: format.span.start.line + 1,
                }),
            }
        }
    }
}

/// Rails' own formats the compiler expands, with what it writes for `to_fs(:name)` (of
/// `ActiveSupport::TimeFormats`' table; the others, such as `long_ordinal`, `rfc822`, `usec`, are
/// left as written).
const BUILT_IN: &[(&str, Expanded)] = &[
    ("db", Expanded::Strftime("%Y-%m-%d %H:%M:%S")),
    ("number", Expanded::Strftime("%Y%m%d%H%M%S")),
    ("time", Expanded::Strftime("%H:%M")),
    ("short", Expanded::Strftime("%d %b %H:%M")),
    ("long", Expanded::Strftime("%B %d, %Y %H:%M")),
    ("iso8601", Expanded::Method("iso8601")),
    ("rfc2822", Expanded::Method("rfc2822")),
];

/// What a built-in format becomes.
#[derive(Debug, Clone, Copy)]
enum Expanded {
    Strftime(&'static str),
    Method(&'static str),
}

/// What the compiler writes in place of `call`'s method and arguments when it expands it with a
/// string format (`strftime("%d %b %H:%M")`, `iso8601`); `None` when it leaves it as written or
/// inlines an app's lambda (whose body takes the receiver's place as well).
pub fn expansion(call: &FormatCall, formats: &AppFormats) -> Option<String> {
    if fate(call, formats).is_some() {
        return None;
    }
    let FormatArgument::Literal(name) = &call.format else { return None };
    match formats.read.get(name) {
        Some(AppFormat::Strftime(format)) => Some(format!("strftime({})", crate::roundhouse::preview::ruby_string(format))),
        Some(AppFormat::Lambda) => None,
        None => match BUILT_IN.iter().find(|(n, _)| n == name).map(|(_, e)| *e)? {
            Expanded::Strftime(format) => Some(format!("strftime({})", crate::roundhouse::preview::ruby_string(format))),
            Expanded::Method(method) => Some(method.to_owned()),
        },
    }
}

/// Why a call is left as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    NoFormat,
    NotLiteral,
    Several,
    /// A name the compiler does not know, with the registrations of it it does not read.
    Unknown(String, Vec<Unread>),
    /// An app's lambda format, on a receiver it will not read twice.
    LambdaReceiver(String),
}

/// What the compiler does with `call` in an app with `formats`: `None` when it expands it.
pub fn fate(call: &FormatCall, formats: &AppFormats) -> Option<Kept> {
    let name = match &call.format {
        FormatArgument::None => return Some(Kept::NoFormat),
        FormatArgument::Computed => return Some(Kept::NotLiteral),
        FormatArgument::Several => return Some(Kept::Several),
        FormatArgument::Literal(name) => name,
    };
    match formats.read.get(name) {
        Some(AppFormat::Strftime(_)) => None,
        Some(AppFormat::Lambda) => (call.receiver == Receiver::Effects).then(|| Kept::LambdaReceiver(name.clone())),
        None if BUILT_IN.iter().any(|(n, _)| n == name) => None,
        None => Some(Kept::Unknown(name.clone(), formats.unread.iter().filter(|u| &u.name == name).cloned().collect())),
    }
}

/// Rails' number formats (`ActiveSupport::NumberHelper`), Active Support's like the others.
const NUMBER_FORMATS: &[&str] = &["delimited", "human_size", "human", "currency", "percentage", "phone", "rounded"];

/// The finding's message for a call left as written.
pub fn message(call: &FormatCall, kept: &Kept) -> String {
    let method = &call.method;
    let left = format!("so the call is left as written, and the compiled app's Ruby has no `{method}` (it is Active Support's)");
    let names: Vec<String> = BUILT_IN.iter().map(|(name, _)| format!("`{name}`")).collect();
    let known = format!("Rails' {} and the formats an initializer registers at its top level on `Time::DATE_FORMATS`", names.join(", "));
    match kept {
        Kept::NoFormat => format!(
            "`{method}` without a format raises NoMethodError in the compiled app: Roundhouse expands only a call with a format, {left}. Instead, write `to_s` (what a Time's or Date's `{method}` returns when the app registers no `:default` format)."
        ),
        Kept::NotLiteral => format!(
            "This `{method}` raises NoMethodError in the compiled app: Roundhouse expands it only for a format written as a symbol, {left}. Instead, name the format (`case style when :short then x.{method}(:short) … end`), or call `strftime`."
        ),
        Kept::Several => format!(
            "This `{method}` raises NoMethodError in the compiled app: Roundhouse expands it only with a format alone, {left}. Instead, format the value another way (`number_with_precision(x, precision: 2)` for a number)."
        ),
        Kept::LambdaReceiver(name) => format!(
            "`{method}(:{name})` raises NoMethodError in the compiled app: the app's `:{name}` format is a lambda, which Roundhouse inlines only on a receiver it can read twice (a variable, or calls without arguments), {left}. Instead, assign the receiver to a local first."
        ),
        Kept::Unknown(name, unread) => {
            let head = format!("`{method}(:{name})` raises NoMethodError in the compiled app");
            match unread.first() {
                Some(u) if u.owner.ends_with("::DATE_FORMATS") && u.owner != "Time::DATE_FORMATS" => {
                    let class = u.owner.trim_end_matches("::DATE_FORMATS");
                    let instead = match &u.strftime {
                        Some(s) => format!(
                            "write `strftime(\"{s}\")` (the same text, for a {class}), or register the format on `Time::DATE_FORMATS` too"
                        ),
                        None => "register the format on `Time::DATE_FORMATS` too".to_owned(),
                    };
                    format!(
                        "{head}: `:{name}` is registered on `{}` ({}:{}), which Roundhouse does not read (it expands only {known}), {left}. Instead, {instead}.",
                        u.owner, u.file, u.line
                    )
                }
                Some(u) => format!(
                    "{head}: `:{name}` is registered ({}:{}) inside a block or a condition, or as a value Roundhouse does not read (it expands only {known}, as a string or a one-parameter `->` lambda), {left}. Instead, register it at the initializer's top level (`Time::DATE_FORMATS[:{name}] = \"…\"`).",
                    u.file, u.line
                ),
                None if name == "delimited" => format!(
                    "{head}: `:delimited` is Active Support's number format, which Roundhouse does not expand (it expands only {known}), {left}. Instead, write `number_with_delimiter(x)`, a helper the compiled app has."
                ),
                None if NUMBER_FORMATS.contains(&name.as_str()) => format!(
                    "{head}: `:{name}` is Active Support's number format, which Roundhouse does not expand (it expands only {known}), {left}. Instead, format the number another way (`number_with_precision`, `number_with_delimiter` are helpers the compiled app has)."
                ),
                None => format!(
                    "{head}: Roundhouse expands only {known}, and `:{name}` is none of them, {left}. Instead, register the format in an initializer (`Time::DATE_FORMATS[:{name}] = \"…\"`), or call `strftime(\"…\")`."
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::file_diagnostics;
    use crate::roundhouse::tree::{Target, map_file};

    /// The rule and the preview tell one story for every `to_fs` call of the fidelity fixtures and the
    /// fixture apps: a call the compiler leaves as written is the one `syntax.to-fs-not-expanded`
    /// finding at its place, and the preview (where it shows the line) keeps it as written; a call it
    /// expands has no finding, and the preview shows what it writes instead. Where a fixture records
    /// the compiler's output for the file (`emits PATH …strftime(…)…`), the preview has the same.
    #[test]
    fn rule_and_preview_tell_the_same_story() {
        let rule = rule!("syntax.to-fs-not-expanded");
        let (mut kept, mut expanded, mut held) = (0, 0, 0);
        let mut check = |header: &[&str],
                         context: &crate::app::AppContext,
                         derived: &std::collections::HashMap<std::path::PathBuf, Vec<crate::diagnostic::Diagnostic>>,
                         text_of: &dyn Fn(&crate::rails::FileFacts) -> String| {
            for facts in context.files.iter().filter(|f| !f.format_calls.is_empty()) {
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let mut reported: Vec<Span> = diagnostics.iter().filter(|d| d.rule == rule).map(|d| d.span).collect();
                let mut said: Vec<Span> =
                    facts.format_calls.iter().filter(|c| fate(c, &context.reading.time_formats).is_some()).map(|c| c.span).collect();
                reported.sort_by_key(|s| s.start_byte);
                said.sort_by_key(|s| s.start_byte);
                assert_eq!(reported, said, "{}: the findings are not the calls left as written", facts.relative_path);
                let text = text_of(facts);
                let entry = map_file(facts, context.tree_facts());
                let preview = super::super::preview::preview(facts, &text, context, &entry, &diagnostics, Target::Ruby);
                let lines: Vec<&str> = preview.text.lines().collect();
                let mut shows_calls = false;
                for call in &facts.format_calls {
                    let written = &text[call.span.range()];
                    let shown: Vec<&str> = preview
                        .mapping
                        .iter()
                        .filter(|(_, s)| *s == call.span.start.line)
                        .map(|(p, _)| lines[*p as usize])
                        .filter(|l| !l.trim_start().starts_with('#'))
                        .collect();
                    shows_calls |= !shown.is_empty();
                    let place = format!("{}:{}", facts.relative_path, call.span.start.line + 1);
                    match expansion(call, &context.reading.time_formats) {
                        Some(instead) => {
                            expanded += 1;
                            if !shown.is_empty() {
                                assert!(
                                    shown.iter().any(|l| l.contains(&instead)),
                                    "{place}: the preview does not show `{instead}`: {shown:?}"
                                );
                            }
                        }
                        None if fate(call, &context.reading.time_formats).is_some() => {
                            kept += 1;
                            if !shown.is_empty() {
                                assert!(
                                    shown.iter().any(|l| l.contains(written)),
                                    "{place}: the preview does not keep `{written}`: {shown:?}"
                                );
                            }
                        }
                        None => {}
                    }
                }
                // The compiler's own output, where the fixture recorded it for this file (a model's
                // preview shows no method bodies).
                if !shows_calls {
                    continue;
                }
                let emitted = entry.target(Target::Ruby).map(|t| t.paths.clone()).unwrap_or_default();
                for verdict in header.iter().filter_map(|l| l.split_once(": emits ").map(|(_, v)| v)) {
                    let Some((path, wanted)) = verdict.split_once(' ') else { continue };
                    if !emitted.iter().any(|p| p == path) || !wanted.contains("strftime(") {
                        continue;
                    }
                    held += 1;
                    assert!(
                        preview.text.contains(wanted),
                        "{}: the compiler emits `{wanted}`; the preview:\n{}",
                        facts.relative_path,
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
        assert!(kept >= 10 && expanded >= 2 && held >= 1, "{kept} kept, {expanded} expanded, {held} compiler verdicts");
    }
}

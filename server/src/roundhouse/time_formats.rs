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

/// Rails' own formats the compiler expands (of `ActiveSupport::TimeFormats`' table; the others, such
/// as `long_ordinal`, `rfc822`, `usec`, are left as written).
const BUILT_IN: &[&str] = &["db", "number", "time", "short", "long", "iso8601", "rfc2822"];

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
        None if BUILT_IN.contains(&name.as_str()) => None,
        None => Some(Kept::Unknown(name.clone(), formats.unread.iter().filter(|u| &u.name == name).cloned().collect())),
    }
}

/// Rails' number formats (`ActiveSupport::NumberHelper`), Active Support's like the others.
const NUMBER_FORMATS: &[&str] = &["delimited", "human_size", "human", "currency", "percentage", "phone", "rounded"];

/// The finding's message for a call left as written.
pub fn message(call: &FormatCall, kept: &Kept) -> String {
    let method = &call.method;
    let left = format!("so the call is left as written, and the compiled app's Ruby has no `{method}` (it is Active Support's)");
    let known = "Rails' `db`, `number`, `time`, `short`, `long`, `iso8601`, `rfc2822` and the formats an initializer registers at its top level on `Time::DATE_FORMATS`";
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

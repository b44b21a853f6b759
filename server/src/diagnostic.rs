//! The one diagnostic shape every layer produces: a rule id, a severity, a message and an exact span.
//!
//! It deliberately knows nothing about LSP or terminal output; `lsp::convert` and `cli::check` render it.

use serde::Serialize;

use crate::syntax::Span;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

/// A rule id: one of the catalogue's (`roundhouse::catalogue`) or one of Switchyard's own. The only ways
/// to make one are `rule!("id")`, checked against the catalogue when the crate compiles, and
/// `catalogue::lookup`, for ids that arrive as text (query capture names, settings): a misspelt id is a
/// build error, never a finding nobody can look up.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(&'static str);

/// In the persisted index, by its text; read back through the catalogue (an id this build does not
/// know makes the entry unreadable, and the file is indexed afresh).
impl bincode::Encode for RuleId {
    fn encode<E: bincode::enc::Encoder>(&self, encoder: &mut E) -> Result<(), bincode::error::EncodeError> {
        self.0.encode(encoder)
    }
}

impl<Context> bincode::Decode<Context> for RuleId {
    fn decode<D: bincode::de::Decoder<Context = Context>>(decoder: &mut D) -> Result<Self, bincode::error::DecodeError> {
        let id = String::decode(decoder)?;
        crate::roundhouse::catalogue::lookup(&id).ok_or_else(|| bincode::error::DecodeError::OtherString(format!("unknown rule id {id}")))
    }
}

bincode::impl_borrow_decode!(RuleId);

impl RuleId {
    /// Only the catalogue calls this, with an id it holds.
    pub(crate) const fn from_catalogue(id: &'static str) -> RuleId {
        RuleId(id)
    }

    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl std::ops::Deref for RuleId {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::fmt::Debug for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

/// Rule ids more than one layer names.
pub mod rule {
    use super::RuleId;
    pub const PARSE_ERROR: RuleId = rule!("syntax.parse-error");
    pub const TEMPLATE_PARSE_ERROR: RuleId = rule!("views.template-parse-error");
    /// Switchyard's own: a `# switchyard:disable` comment that silences nothing.
    pub const UNUSED_SUPPRESSION: RuleId = rule!("switchyard.unused-suppression");
    /// Switchyard's own: a mistake in `switchyard.toml`.
    pub const CONFIG: RuleId = rule!("switchyard.config");
    /// Switchyard's own: a file it does not read (nested too deep, too large, not a regular file).
    pub const SKIPPED_FILE: RuleId = rule!("switchyard.skipped-file");
    /// Switchyard's own: a routes call whose routes the table does not list (a gem's macro, a loop
    /// over something that is not a literal, a condition it cannot decide).
    pub const UNEXPANDED_ROUTES: RuleId = rule!("switchyard.unexpanded-routes");
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Diagnostic {
    pub span: Span,
    pub severity: Severity,
    pub rule: RuleId,
    pub message: String,
}

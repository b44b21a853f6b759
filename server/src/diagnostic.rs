//! The one diagnostic shape every layer produces: a rule id, a severity, a message and an exact span.
//!
//! It deliberately knows nothing about LSP or terminal output; `lsp::convert` and `cli::check` render it.

use serde::Serialize;

use crate::syntax::Span;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
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

/// Stable rule ids (see `shared/spec/rules.md`); the catalogue grows with the rules issue.
pub mod rule {
    pub const PARSE_ERROR: &str = "syntax.parse-error";
    pub const TEMPLATE_PARSE_ERROR: &str = "views.template-parse-error";
    /// Switchyard's own: a `# switchyard:disable` comment that silences nothing.
    pub const UNUSED_SUPPRESSION: &str = "switchyard.unused-suppression";
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub span: Span,
    pub severity: Severity,
    pub rule: &'static str,
    pub message: String,
}

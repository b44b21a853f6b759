//! The one diagnostic shape every layer produces: a rule id, a severity, a message and an exact span.
//!
//! It deliberately knows nothing about LSP or terminal output; `lsp::convert` and `cli::check` render it.

use serde::Serialize;

use crate::syntax::Span;

pub use crate::catalogue::{RuleId, Severity};

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

impl Diagnostic {
    /// A finding of catalogue rule `rule`, at the rule's own severity.
    pub fn finding(rule: RuleId, span: Span, message: String) -> Diagnostic {
        let severity = crate::catalogue::rule(&rule).map_or(Severity::Warning, |r| r.severity);
        Diagnostic { span, severity, rule, message }
    }
}

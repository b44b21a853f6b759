//! What Roundhouse does with a Rails app: the rules that flag constructs it rejects, drops or changes
//! (`shared/spec/rules.md`). Each check reads facts and returns diagnostics with exact spans.

pub mod catalogue;
pub mod erb_pairing;
pub mod exact;
pub mod facts_rules;
pub mod ingest;
pub mod preview;
pub mod routes;
pub mod rule_docs;
pub mod syntax_rules;
pub mod template_rules;
pub mod tree;

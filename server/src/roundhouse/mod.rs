//! What Roundhouse does with a Rails app: how it reads each file (`ingest`), where each file lands
//! (`tree`), the rules that flag constructs it rejects, drops or changes (`shared/spec/rules.md`), and
//! the built-in previews. Each check reads facts (`rails`) and returns diagnostics with exact spans;
//! `check_file` is the judgement of one file, run by the index right after the file's facts are read
//! (the syntax rules need its tree, which only lives that long).

pub mod catalogue;
pub mod erb_pairing;
pub mod exact;
pub mod facts_rules;
#[cfg(test)]
mod fidelity;
pub mod fixtures;
pub mod ingest;
pub mod jbuilder;
pub mod lowering;
pub mod preview;
pub mod routes;
pub mod rule_docs;
pub mod syntax_patterns;
pub mod syntax_rules;
pub mod template_rules;
pub mod tree;

use crate::diagnostic::Diagnostic;
use crate::rails::FileFacts;
use crate::rails::project::FileKind;
use crate::syntax::{Language, ParsedFile};

/// Every per-file finding of `facts`' file (no other file needed): the `syntax.*` rules on its Ruby,
/// the template rules, and the rules read off its facts. `schema.migration-verb` findings go to
/// `facts.migration_verbs` (they hold only in an app without `db/schema.rb`).
pub fn check_file<'t>(facts: &mut FileFacts, text: &str, parsed: &'t ParsedFile, shapes: syntax_rules::Shapes<'t>) {
    let kind = facts.kind;
    let mut found = Vec::new();
    // Template text rules hold for a template with no Ruby at all (`#{` in plain HTML).
    if parsed.language == Language::Erb && kind == Some(FileKind::View) {
        found.extend(template_rules::check(text, parsed, &facts.line_index));
    }
    // The syntax rules cost a walk of the tree: only for code Roundhouse may compile.
    if let Some(tree) = parsed.ruby.as_ref().filter(|_| ingest::reading(facts, None).compiles_code()) {
        found.extend(syntax_rules::check_shapes(tree, parsed.ruby_text(text), facts, shapes));
        if facts.template.as_ref().is_some_and(|t| t.handler == "jbuilder") {
            found.extend(jbuilder::check(tree, parsed.ruby_text(text)));
        }
        if parsed.language == Language::Haml {
            for range in crate::syntax::haml::for_loops(text) {
                let span = facts.line_index.span(range.clone());
                found.push(syntax_rules::finding(rule!("syntax.for-loop"), span, &text[range]));
            }
        }
    }
    if parsed.language == Language::Yaml && facts.relative_path.starts_with("test/fixtures/") {
        found.extend(fixtures::check(text, &facts.line_index));
    }
    found.extend(facts_rules::check(facts, text));
    let (verbs, found): (Vec<Diagnostic>, Vec<Diagnostic>) = found.into_iter().partition(|d| d.rule == facts_rules::MIGRATION_VERB);
    facts.diagnostics.extend(found);
    facts.migration_verbs = verbs;
}

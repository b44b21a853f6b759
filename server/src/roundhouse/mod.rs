//! What Roundhouse does with a Rails app: how it reads each file (`ingest`), where each file lands
//! (`tree`), the rules that flag constructs it rejects, drops or changes (`shared/spec/rules.md`), and
//! the built-in previews. Each check reads facts (`rails`) and returns diagnostics with exact spans;
//! `check_file` is the judgement of one file, run by the index right after the file's facts are read
//! (the syntax rules need its tree, which only lives that long).

pub mod config_lowering;
pub mod controller_lowering;
pub mod entry_points;
pub mod erb_pairing;
pub mod exact;
pub mod facts_rules;
#[cfg(test)]
pub(crate) mod fidelity;
pub mod fixtures;
pub mod ingest;
pub mod inline_queries;
pub mod jbuilder;
pub mod lowering;
pub mod preload;
pub mod preview;
pub mod prism_ingest;
pub mod routes;
pub mod rule_docs;
pub mod syntax_rules;
pub mod template_lowering;
pub mod template_rules;
pub mod template_signature;
pub mod time_formats;
pub mod tree;

use crate::diagnostic::Diagnostic;
use crate::rails::FileFacts;
use crate::rails::project::FileKind;
use crate::syntax::{Language, ParsedFile};

/// Every per-file finding of `facts`' file (no other file needed): Prism's syntax errors in a `.rb`
/// file, the constructs Roundhouse's ingest rejects or drops in code it compiles (`prism_ingest`,
/// on Prism's tree as the compiler reads it), the template rules, and the rules read off its facts.
/// `schema.migration-verb` findings go to `facts.migration_verbs` (they hold only in an app without
/// `db/schema.rb`).
pub fn check_file(facts: &mut FileFacts, text: &str, parsed: &ParsedFile) {
    if matches!(parsed.skipped, Some(crate::syntax::parse::Skipped::TooLarge { .. } | crate::syntax::parse::Skipped::TooCostly { .. })) {
        return; // Not read: its text is judged no more than it is parsed.
    }
    let kind = facts.kind;
    let mut found = Vec::new();
    // Template text rules hold for a template with no Ruby at all (`#{` in plain HTML).
    if parsed.language == Language::Erb && kind == Some(FileKind::View) {
        found.extend(template_rules::check(text, parsed, &facts.line_index));
    }
    let compiles = ingest::reading(facts, None).compiles_code();
    let walk = if compiles { prism_ingest::Walk::of(kind, &facts.relative_path) } else { prism_ingest::Walk::None };
    let dispatch = kind.is_some_and(FileKind::is_app_code);
    // A template's findings on the Ruby Roundhouse compiles it into, merged with the template rules'.
    let mut erb_found = None;
    let mut preload = None;
    match parsed.language {
        // A `.rb` file: Prism's verdict on its syntax wherever it is, the ingest's where it is compiled.
        Language::Ruby if parsed.ruby.is_some() => {
            let result = ruby_prism::parse(text.as_bytes());
            let prism_ingest::Judged { diagnostics: mut judged, format_calls, .. } =
                prism_ingest::judge_parsed(&result, text, &facts.line_index, walk, true, dispatch);
            facts.format_calls = format_calls;
            if let Some(tree) = parsed.ruby.as_ref() {
                tidy_parse_errors(&mut judged, tree, text);
            }
            if kind == Some(FileKind::View) {
                for d in judged.iter_mut().filter(|d| d.rule == crate::diagnostic::rule::PARSE_ERROR) {
                    d.rule = crate::diagnostic::rule::TEMPLATE_PARSE_ERROR;
                }
            }
            // A model statement the ingest rejects is the lowering's to say (its preview and hint too).
            let (statements, judged): (Vec<Diagnostic>, Vec<Diagnostic>) =
                judged.into_iter().partition(|d| [rule!("model.enum-mapping"), rule!("model.scope-body")].contains(&d.rule));
            for d in statements {
                if let Some(model) =
                    facts.models.iter_mut().find(|m| m.span.start_byte <= d.span.start_byte && d.span.end_byte <= m.span.end_byte)
                {
                    model.rejected_statements.push(d.span.start_byte);
                }
            }
            found.extend(judged);
            // The queries of its methods the compiler may write inline, on the same tree.
            facts.inline_queries = match walk {
                prism_ingest::Walk::ControllerFile => inline_queries::of_class_file(&result, text, &facts.line_index, Some("Controller")),
                prism_ingest::Walk::ModelFile if facts.models.iter().any(ingest::is_model_facts) => {
                    inline_queries::of_class_file(&result, text, &facts.line_index, None)
                }
                _ => Vec::new(),
            };
            // What the N+1 check reads of a controller's or a model's methods, on the same tree.
            preload = match walk {
                prism_ingest::Walk::ControllerFile => Some(preload::of_class_file(&result, text, &facts.line_index, Some("Controller"))),
                prism_ingest::Walk::ModelFile if facts.models.iter().any(ingest::is_model_facts) => {
                    Some(preload::of_class_file(&result, text, &facts.line_index, None))
                }
                _ => None,
            };
        }
        // An ERB or HAML template's Ruby as Roundhouse compiles it (merged below, with the template
        // rules), and what the N+1 check reads of it, on one parse of the program.
        Language::Erb | Language::Haml if walk != prism_ingest::Walk::None => {
            let compiled =
                if parsed.language == Language::Erb { prism_ingest::erb::compile(text) } else { Some(prism_ingest::haml::compile(text)) };
            if let Some(compiled) = compiled {
                let result = ruby_prism::parse(compiled.ruby.as_bytes());
                let judged = prism_ingest::judge_compiled(&compiled, &result, text, &facts.line_index, dispatch);
                facts.format_calls = judged.format_calls;
                facts.helper_calls = judged.helper_calls;
                facts.record_renders = judged.record_renders;
                // The names its function takes twice: the compiled app does not start.
                if let Some(names) = &judged.template_names {
                    let strict = facts.template.as_ref().is_some_and(|t| t.strict_locals.is_some());
                    found.extend(template_signature::findings(&facts.relative_path, names, strict));
                }
                // An output tag of several statements, in a program that parses (ERB: a HAML line
                // is one statement).
                if parsed.language == Language::Erb && judged.template_names.is_some() {
                    found.extend(prism_ingest::output_statements(&compiled, &result, text, &facts.line_index));
                }
                facts.template_names = judged.template_names.map(Box::new);
                erb_found = Some(judged.diagnostics);
                if walk == prism_ingest::Walk::Program {
                    preload = Some(preload::of_template(&compiled, &result, text, &facts.line_index));
                }
            }
        }
        _ => {}
    }
    // A controller's methods are kept even when they bind nothing: they are the actions that feed
    // templates.
    facts.preload = preload.filter(|p| walk == prism_ingest::Walk::ControllerFile || !p.is_empty()).map(Box::new);
    if let Some(tree) = parsed.ruby.as_ref().filter(|_| compiles)
        && facts.template.as_ref().is_some_and(|t| t.handler == "jbuilder")
    {
        found.extend(jbuilder::check(tree, parsed.ruby_text(text)));
    }
    if parsed.language == Language::Yaml && facts.relative_path.starts_with("test/fixtures/") {
        found.extend(fixtures::check(text, &facts.line_index));
    }
    found.extend(facts_rules::check(facts, text));
    found.extend(config_lowering::findings(facts, text));
    if let Some(compiled) = erb_found {
        merge_compiled_template(&mut found, compiled, &mut facts.diagnostics, text);
    }
    let (verbs, found): (Vec<Diagnostic>, Vec<Diagnostic>) = found.into_iter().partition(|d| d.rule == facts_rules::MIGRATION_VERB);
    facts.diagnostics.extend(found);
    facts.migration_verbs = verbs;
}

/// A template's findings on the Ruby Roundhouse compiles it into, beside the template rules'. The
/// program decides whether the compile stops: when it parses, the template rules that say the
/// compile stops (an `end` paired with the wrong block, a comment that swallows `).to_s`) and the
/// syntax errors of the template's masked Ruby are not true of it, and `#{…}` in its text is
/// evaluated, not a stop; when it does not parse, a template rule that names the construct on the
/// line says why (`=%>`, `#@x` in text), and otherwise the syntax error does.
fn merge_compiled_template(found: &mut Vec<Diagnostic>, compiled: Vec<Diagnostic>, earlier: &mut Vec<Diagnostic>, text: &str) {
    use crate::diagnostic::{Severity, rule::TEMPLATE_PARSE_ERROR};
    let stops = compiled.iter().any(|d| d.rule == TEMPLATE_PARSE_ERROR);
    if !stops {
        found.retain(|d| ![rule!("views.output-block-pairing"), rule!("views.output-tag-comment-or-heredoc")].contains(&d.rule));
        earlier.retain(|d| d.rule != TEMPLATE_PARSE_ERROR);
    }
    for f in found.iter_mut().filter(|f| f.rule == rule!("views.text-interpolation")) {
        if prism_ingest::text_interpolation_stops(text.get(f.span.start_byte as usize..).unwrap_or("")) {
            f.severity = Severity::Error;
            f.message.push_str(" Here it stops the compile: the interpolation does not compile.");
        } else {
            f.severity = Severity::Warning;
            f.message.push_str(" Roundhouse evaluates it: the page shows its value, not the text Rails shows.");
        }
    }
    let text_lines: Vec<u32> = found.iter().filter(|f| f.rule == rule!("views.text-interpolation")).map(|f| f.span.start.line).collect();
    let explained = |d: &Diagnostic| {
        d.severity == Severity::Error && (d.rule.family() == crate::catalogue::Family::Views || d.rule == TEMPLATE_PARSE_ERROR)
    };
    let stop_explained = found.iter().any(explained) || earlier.iter().any(explained);
    for d in compiled {
        if d.rule != TEMPLATE_PARSE_ERROR {
            // A rejection in the text (`#@x`) is the template rule's to say.
            if !(d.rule.family() == crate::catalogue::Family::Syntax && text_lines.contains(&d.span.start.line)) {
                found.push(d);
            }
        } else if let Some(tag) = found.iter_mut().find(|f| f.rule == rule!("views.literal-tag") && f.span.start.line == d.span.start.line)
        {
            tag.severity = Severity::Error;
            tag.message.push_str(" Here it stops the compile: the Ruby Roundhouse builds from this tag does not parse.");
        } else if !stop_explained {
            found.push(d);
        }
    }
}

/// Prism says whether a file parses, and every place it noticed; one slip (a bracket never closed, an
/// `end` missing) is noticed at several places, most of them the slip's fallout. The findings keep
/// what points at the slip: where Prism noticed a bracket that is never closed (`expected a `)` to
/// close the arguments`, at the `end` that came instead), tree-sitter's recovery names the bracket
/// itself, and that is the finding; otherwise Prism's own errors, without those that only say the file
/// ended early or an `end` is missing when another error says more, one per line.
fn tidy_parse_errors(found: &mut Vec<Diagnostic>, tree: &tree_sitter::Tree, text: &str) {
    use crate::diagnostic::rule::PARSE_ERROR;
    if !found.iter().any(|d| d.rule == PARSE_ERROR) {
        return;
    }
    let closing = |message: &str| ["`)`", "`]`", "`}`", "array elements", "arguments", "hash"].iter().any(|m| message.contains(m));
    let mut openers: Vec<Diagnostic> = Vec::new();
    if tree.root_node().has_error() && found.iter().any(|d| d.rule == PARSE_ERROR && closing(&d.message)) {
        let candidates: Vec<Diagnostic> =
            crate::syntax::syntax_errors(tree, text, PARSE_ERROR).into_iter().filter(|d| d.message.ends_with("is never closed")).collect();
        for d in found.iter().filter(|d| d.rule == PARSE_ERROR && closing(&d.message)) {
            if let Some(opener) = candidates.iter().rev().find(|o| o.span.start_byte <= d.span.start_byte)
                && !openers.contains(opener)
            {
                openers.push(opener.clone());
            }
        }
    }
    let (errors, mut others): (Vec<Diagnostic>, Vec<Diagnostic>) = std::mem::take(found).into_iter().partition(|d| d.rule == PARSE_ERROR);
    let kept: Vec<Diagnostic> = if !openers.is_empty() {
        openers
    } else {
        let fallout = |d: &Diagnostic| {
            d.message.contains("unexpected end-of-input")
                || d.message.contains("assuming it is closing")
                || d.message.contains("to close the `")
        };
        let said_more = errors.iter().any(|d| !fallout(d));
        let mut kept: Vec<Diagnostic> = Vec::new();
        for d in errors {
            if (said_more && fallout(&d)) || kept.iter().any(|k| k.span.start.line == d.span.start.line) {
                continue;
            }
            kept.push(d);
        }
        kept
    };
    others.extend(kept);
    others.sort_by_key(|d| (d.span.start_byte, d.rule));
    *found = others;
}

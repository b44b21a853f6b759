//! Every diagnostic of a file: its own findings (from extraction and `roundhouse::check_file`) and the
//! checks that need the whole app — the `rails.*` wiring checks, the `routes.*` rules, the statements of
//! model subclasses and concerns' `included` blocks, template collisions — each as true as the way
//! Roundhouse reads the file makes it (`roundhouse::ingest`). The server and `--check` both ask here,
//! so they always agree. It sits above `app` (the facts it judges) and below `ide` (the features).

pub mod nav;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use crate::app::AppContext;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rails::FileFacts;
use crate::rails::project::FileKind;
use crate::rails::route_table::RouteKind;
use crate::roundhouse;
use crate::roundhouse::ingest::AppReading;

pub const UNKNOWN_ROUTE_HELPER: crate::diagnostic::RuleId = rule!("rails.unknown-route-helper");
pub const MISSING_ACTION: crate::diagnostic::RuleId = rule!("rails.missing-action");
pub const MISSING_TEMPLATE: crate::diagnostic::RuleId = rule!("rails.missing-template");

/// Controllers that Rails or common engines provide, never defined in the app.
const FRAMEWORK_CONTROLLERS: &[&str] = &["rails/", "active_storage/", "action_mailbox/", "action_text/", "turbo/", "devise/"];

/// A file's diagnostics: its own (from extraction) and `derived` (the whole-app checks), as true as the
/// way Roundhouse reads the file makes them (`roundhouse::ingest`: none of its rules in a file it never
/// reads, a dropped file rather than a stopped compile in one it reads on its own). `app` is what
/// deciding that needs from the file's app; without it (an app still being indexed) the path decides.
pub fn file_diagnostics(facts: &FileFacts, derived: &[Diagnostic], app: Option<&AppReading>) -> Vec<Diagnostic> {
    let reading = roundhouse::ingest::reading(facts, app);
    // A file read on its own and dropped whole: no tree contains its statements.
    let dropped = reading == roundhouse::ingest::Reading::FileByFile && roundhouse::ingest::dropped_by(facts).is_some();
    let mut diagnostics: Vec<Diagnostic> = facts
        .diagnostics
        .iter()
        .chain(derived)
        .filter(|d| !dropped || roundhouse::ingest::holds_in_dropped_file(d))
        .cloned()
        .filter_map(|d| roundhouse::ingest::apply(&reading, &facts.relative_path, d))
        .collect();
    if let Some(app) = app {
        // A library class's body calls are replayed on a gem's base, and a model's subclass is the
        // model rules' to judge: what the class's base is decides, once the app is known.
        // A document store's class is said once, by `model.document-not-compiled`.
        let namespaces = facts.outline.namespaces();
        let documents: Vec<crate::syntax::Span> =
            diagnostics.iter().filter(|d| d.rule == rule!("model.document-not-compiled")).map(|d| d.span).collect();
        diagnostics.retain(|d| {
            if d.rule != rule!("library.class-body-call-dropped") {
                return true;
            }
            let owner = namespaces.iter().rfind(|n| n.span.start_byte <= d.span.start_byte && d.span.end_byte <= n.span.end_byte);
            if owner.is_some_and(|n| documents.iter().any(|s| n.span.start_byte <= s.start_byte && s.end_byte <= n.span.end_byte)) {
                return false;
            }
            match owner {
                Some(n) if n.kind == crate::syntax::outline::NamespaceKind::Class => {
                    let base = n.superclass.as_deref().map(|s| s.trim_start_matches("::"));
                    !roundhouse::ingest::replays_class_body(app, base) && !base.is_some_and(|b| app.models.contains(b))
                }
                _ => true,
            }
        });
        // A model whose compiled file is written from something else has none of its body compiled.
        for model in facts.models.iter().filter(|m| app.replaced.contains(&m.class_name)) {
            diagnostics.retain(|d| {
                !(d.rule == rule!("model.presence-check-never-passes")
                    && model.span.start_byte <= d.span.start_byte
                    && d.span.end_byte <= model.span.end_byte)
            });
        }
        // A class in a gem's namespace (`Doorkeeper::AccessToken`) reopens the gem's: its associations
        // are the gem's too, which the app's files do not list.
        for model in facts.models.iter().filter(|m| reopens_gem_class(app, &m.class_name)) {
            diagnostics.retain(|d| {
                !(d.rule == rule!("rails.unknown-association")
                    && model.span.start_byte <= d.span.start_byte
                    && d.span.end_byte <= model.span.end_byte)
            });
        }
        // An `include` of the app's own modules loses nothing, and one of a module it does not define
        // needs that module's gem: said as such, once the app is known.
        for model in &facts.models {
            // Looked up as Ruby does from inside the class: `include Closeable` in `Card` may be
            // `Card::Closeable`. Ruby's own modules (`Comparable`) are always there.
            for call in model.concerns.iter().filter(|c| c.name == "include") {
                let foreign: Vec<&str> = call
                    .arguments
                    .iter()
                    .filter_map(|a| a.as_name())
                    .filter(|m| !matches!(*m, "Comparable" | "Enumerable" | "Kernel") && !app.defines_module(m, &model.class_name))
                    .collect();
                let restated = roundhouse::lowering::include_finding(model, call, Some(&foreign));
                for d in diagnostics.iter_mut().filter(|d| d.rule == restated.rule && d.span == restated.span) {
                    *d = restated.clone();
                }
            }
        }
    }
    // `# switchyard:disable …` comments; one that silences nothing is said (info). The compiler's
    // own lines are known only to a run of it (`--check --exact`), which applies them itself.
    let mut unused = Vec::new();
    for suppression in &facts.suppressions {
        for rule in &suppression.rules {
            let compilers = crate::catalogue::rule(rule).is_some_and(|r| r.family == crate::catalogue::Family::Roundhouse);
            if !compilers && !diagnostics.iter().any(|d| silences(suppression, rule, d)) {
                let message = if crate::catalogue::rule(rule).is_none() && crate::diagnostic::rule::UNUSED_SUPPRESSION != rule.as_str() {
                    format!("`{rule}` is not a rule (`switchyard rules` lists them): this comment silences nothing.")
                } else {
                    format!("Nothing here reports `{rule}`: this comment silences nothing and can go.")
                };
                unused.push(Diagnostic {
                    span: suppression.span,
                    severity: Severity::Info,
                    rule: crate::diagnostic::rule::UNUSED_SUPPRESSION,
                    message,
                });
            }
        }
    }
    diagnostics.retain(|d| !silenced(&facts.suppressions, d));
    diagnostics.extend(unused);
    diagnostics.sort_by_key(|d| (d.span.start_byte, d.span.end_byte, d.rule));
    // One construct, one finding: two ways of reaching the same verdict say it once.
    diagnostics.dedup_by(|a, b| a.span == b.span && a.rule == b.rule && a.message == b.message);
    diagnostics
}

/// Whether a `# switchyard:disable` comment names `d`'s rule on its line (or for the whole file).
fn silences(suppression: &crate::rails::Suppression, rule: &str, d: &Diagnostic) -> bool {
    d.rule == rule && suppression.line.is_none_or(|l| l == d.span.start.line)
}

/// Whether one of a file's `# switchyard:disable` comments silences `d`.
pub fn silenced(suppressions: &[crate::rails::Suppression], d: &Diagnostic) -> bool {
    suppressions.iter().any(|s| s.rules.iter().any(|rule| silences(s, rule, d)))
}

/// Whether `class_name` sits in the namespace of a gem of the bundle (`Doorkeeper::AccessToken`).
fn reopens_gem_class(app: &AppReading, class_name: &str) -> bool {
    class_name.split_once("::").is_some_and(|(namespace, _)| app.names_gem(namespace.trim_start_matches("::")))
}

/// The whole-app diagnostics of every file of the app, by path (files with none are absent), each
/// file's `derived` worked out in parallel.
pub fn app_diagnostics(context: &AppContext) -> HashMap<PathBuf, Vec<Diagnostic>> {
    use rayon::prelude::*;
    context.files.par_iter().map(|file| (file.path.clone(), derived(context, file))).filter(|(_, found)| !found.is_empty()).collect()
}

/// Works out what `derived` reads of the context that is built when first asked (the whole-app
/// verdicts by file, the navigation model's indexes), so that a caller who builds a context in the
/// background hands on one whose checks of any file cost that file alone: an edit's own publish
/// never builds them, nor waits on a background thread building them.
pub fn prepare(context: &AppContext) {
    missing_actions(context);
    output_collisions(context);
    context.model_includes();
    context.nav().prepare_checks(context);
    context.lanes();
}

/// The whole-app diagnostics of one file: what the rest of the app makes of it (route helpers,
/// templates, macros, a subclass's or a concern's statements, collisions, missing actions). `file` may
/// be newer than the context's copy of it (an edit since the context was built): the findings on a
/// routes file that come from the expanded table (missing actions) are then left out, since their
/// positions are the old copy's; every other finding is placed by `file` itself.
pub fn derived(context: &AppContext, file: &FileFacts) -> Vec<Diagnostic> {
    let mut found = if context.has_schema_file { Vec::new() } else { file.migration_verbs.clone() };
    found.extend(routeless_checks(file, context));
    if context.has_routes_file {
        let undrawn = file
            .relative_path
            .strip_prefix("config/routes/")
            .and_then(|r| r.strip_suffix(".rb"))
            .filter(|name| !context.reading.routes_drawn.iter().any(|d| d == name));
        if let (Some(name), Some(routes)) = (undrawn, &file.routes) {
            found.extend(roundhouse::routes::not_drawn(name, &routes.calls));
        } else if let Some(routes) = &file.routes {
            let drawn = |name: &str| {
                context
                    .files
                    .iter()
                    .any(|f| f.relative_path.strip_prefix("config/routes/").and_then(|r| r.strip_suffix(".rb")) == Some(name))
            };
            found.extend(roundhouse::routes::check(&routes.calls, &|name| drawn(name)));
            let current = context.files.iter().any(|f| std::ptr::eq(&**f, file));
            if current {
                found.extend(missing_actions(context).get(&file.path).into_iter().flatten().cloned());
                found.extend(unexpanded_routes(context, file));
            }
        }
        found.extend(unknown_route_helpers(file, context));
        found.extend(missing_templates(file, context));
        found.extend(implicit_renders(file, context));
    }
    found.extend(output_collisions(context).get(&file.path).into_iter().flatten().cloned());
    found.extend(context.lanes().diagnostics_of(file).cloned());
    found
}

/// The whole-app checks of one file that do not need the routes.
fn routeless_checks(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let mut found = unexpanded_macros(file, context);
    found.extend(unknown_association_loads(file, context));
    found.extend(model_subclass_statements(file, context));
    found.extend(entry_points(file, context));
    found.extend(model_reopenings(file, context));
    found.extend(row_struct_collisions(file, context));
    found.extend(preload_crashes(file, context));
    found.extend(belongs_to_twice(file, context));
    found.extend(operator_writers(file, context));
    found.extend(nested_layout_keywords(file, context));
    found.extend(concern_statements(file, context));
    found.extend(json_hash_assignments(file, context));
    found.extend(permitted_fields_without_writer(file, context));
    found.extend(unexpanded_time_formats(file, context));
    found.extend(undefined_helpers(file, context));
    found.extend(raising_renders(file, context));
    found.extend(roundhouse::preload::findings(file, context));
    found.extend(roundhouse::preload::predicate_findings(file, context));
    found.extend(roundhouse::inline_queries::findings(file, context));
    found.extend(nav::check(file, context));
    found
}

/// `syntax.to-fs-not-expanded`: a `to_fs` call the compiler leaves as written (it raises in the
/// compiled app), given the formats the app's initializers register. Nothing is said in an app that
/// defines a `to_fs` of its own (the receiver may be one of its classes).
fn unexpanded_time_formats(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if file.format_calls.is_empty() || ["to_fs", "to_formatted_s"].iter().any(|m| context.method_names.contains(*m)) {
        return Vec::new();
    }
    let formats = &context.reading.time_formats;
    file.format_calls
        .iter()
        .filter_map(|call| {
            let kept = roundhouse::time_formats::fate(call, formats)?;
            Some(Diagnostic::finding(rule!("syntax.to-fs-not-expanded"), call.span, roundhouse::time_formats::message(call, &kept)))
        })
        .collect()
}

/// `views.helper-undefined`: a template's call of a view helper the compiler leaves as written,
/// which no method of the app defines (a helper of its own is called as that module's method).
fn undefined_helpers(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if file.helper_calls.is_empty() || written_over(file, context) {
        return Vec::new();
    }
    file.helper_calls
        .iter()
        .filter(|call| !context.method_names.contains(&call.name))
        .filter_map(|call| {
            let (name, span) = (&call.name, &call.span);
            let why = if roundhouse::prism_ingest::HELPERS_LEFT_AS_WRITTEN.contains(&name.as_str()) {
                "its runtime's view helpers do not, nor does the app"
            } else if !context.reading.helper_methods {
                "its runtime has one, but Roundhouse points a template's helper calls at it only in an app whose own helper modules define a method, and this app's define none"
            } else if name == "content_tag" && call.block {
                return Some(Diagnostic {
                    span: *span,
                    severity: Severity::Warning,
                    rule: rule!("views.content-tag-block-lost"),
                    message: "Roundhouse points this `content_tag` at its runtime's, which takes the tag's content as an argument and ignores a block: the compiled page has the tag empty, and options given beside the block (`class:`) become its text. Instead, write the tag's markup in the template (`<div class=\"card\">…</div>`), or give `content_tag` its content as an argument.".to_owned(),
                });
            } else {
                return None;
            };
            Some(Diagnostic::finding(
                rule!("views.helper-undefined"),
                *span,
                format!(
                    "Roundhouse writes this `{name}` call into the compiled template as it stands, and nothing there defines `{name}` ({why}): the page raises NoMethodError when it reaches it, in every tree. Instead, {}.",
                    helper_instead(name)
                ),
            ))
        })
        .collect()
}

/// `views.render-raises`: an output tag's `render` of records that the compiled template cannot
/// make: kept as written (the module has no `render`), or a call of a partial the app does not
/// have (the compiler names it after the instance variable or the method, where Rails asks each
/// record). Said in the templates of the app's top-level view folders (a namespaced controller's
/// views look for the partial under the namespace in Rails).
fn raising_renders(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let Some(template) = file.template.as_ref() else { return Vec::new() };
    if file.record_renders.is_empty() || template.logical_path.matches('/').count() != 1 || written_over(file, context) {
        return Vec::new();
    }
    file.record_renders
        .iter()
        .filter_map(|(partial, span)| {
            let message = match partial {
                None => "Roundhouse compiles a `render` of records into a call of their partial only for an instance variable (`render @posts`) or one association read on one (`render @post.comments`, `render post.comments` in a loop); this one it writes as it stands, and the compiled template has no `render`: the page raises NoMethodError here, in every tree. Instead, loop and render the partial by name: `<% records.each do |record| %><%= render \"records/record\", record: record %><% end %>`.".to_owned(),
                Some(path) if context.templates.contains(path) => return None,
                Some(path) => format!(
                    "Roundhouse compiles this `render` into a call of the partial `{path}` (named after the instance variable or the method, where Rails asks each record for its partial), which the app does not have: the page raises NameError here, in every tree. Instead, name the partial: `render partial: \"<folder>/<name>\", collection: …` (a loop of `render \"<folder>/<name>\", <name>: record` for one record)."
                ),
            };
            Some(Diagnostic::finding(rule!("views.render-raises"), *span, message))
        })
        .collect()
}

/// Whether another template is written to the same file as this one (`views.output-collision`): it
/// may not be in the tree at all, so nothing is said of what its compiled page does.
pub(crate) fn written_over(file: &FileFacts, context: &AppContext) -> bool {
    output_collisions(context).contains_key(&file.path)
}

/// What to write instead of a helper the compiled app lacks.
fn helper_instead(name: &str) -> &'static str {
    match name {
        "t" | "translate" | "l" | "localize" => {
            "write the text into the template, or define the helper in `app/helpers` (a method of your own is compiled and called)"
        }
        "can?" | "policy" | "user_signed_in?" | "will_paginate" | "paginate" | "pagy_nav" => {
            "define what the page needs as a method of a module in `app/helpers` (the gem's helpers are not compiled into the app)"
        }
        name if roundhouse::prism_ingest::HELPERS_ANSWERED_BY_THE_RUNTIME.contains(&name) => {
            "define a method in a module of `app/helpers` (any: `def app_name` / `\"Blog\"` / `end` in `ApplicationHelper`): Roundhouse then points this call at its runtime's helper"
        }
        _ => {
            "write the HTML it produces, or define the helper as a method of a module in `app/helpers` (a method of your own is compiled and called)"
        }
    }
}

/// `controller.permit-field-no-writer`: a field of a permit list of a model's resource (each sizes a
/// synthesized `update` and `from_params`) that the compiled model has no writer for; the compiler
/// leaves it out of both, and says so at the model's class.
fn permitted_fields_without_writer(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if !file.relative_path.starts_with("app/models/") || file.models.is_empty() {
        return Vec::new();
    }
    let specs = &context.tree_facts().params_specs;
    let bodies = roundhouse::ingest::bodies(file);
    let mut out = Vec::new();
    for model in &file.models {
        let superclass = model.superclass.as_deref().map(|s| s.trim_start_matches("::"));
        // The compiler's models (others are library classes), with the table it reads known: a
        // model that names its table, or a namespaced one, is left to exact mode.
        if bodies.get(&model.span.start()) != Some(&roundhouse::ingest::Body::Full)
            || !matches!(superclass, Some("ApplicationRecord" | "ActiveRecord::Base"))
            || model.class_name.contains("::")
            || model.table_name.is_some()
            || model.table_name_computed
        {
            continue;
        }
        let resource = roundhouse::tree::snake_case(&model.class_name);
        // Every permit list of the resource sizes a `from_params`/`update` pair of its own.
        let mut permitted: Vec<(&str, Vec<&str>)> = Vec::new();
        for spec in specs.iter().filter(|s| s.resource == resource) {
            for field in &spec.fields {
                let at = match permitted.iter().position(|(f, _)| *f == field.as_str()) {
                    Some(at) => at,
                    None => {
                        permitted.push((field, Vec::new()));
                        permitted.len() - 1
                    }
                };
                for controller in &spec.declaring {
                    if !permitted[at].1.contains(&controller.as_str()) {
                        permitted[at].1.push(controller);
                    }
                }
            }
        }
        if permitted.is_empty() {
            continue;
        }
        let Some(table) = context.nav().model_table(context, &model.class_name) else { continue };
        // The columns the compiled model has: a column of a type it cannot map is dropped.
        let columns: HashSet<&str> = table
            .table()
            .columns
            .iter()
            .filter(|c| roundhouse::facts_rules::KNOWN_COLUMN_TYPES.contains(&c.column_type.as_str()))
            .map(|c| c.name.as_str())
            .collect();
        permitted.retain(|(f, _)| !columns.contains(f));
        if permitted.is_empty() {
            continue;
        }
        // The writers its own body gives it, and the `included` blocks of the modules it includes
        // (a module's own methods are not the model's to the compiler).
        let Some(namespace) = file.outline.namespaces().into_iter().find(|ns| ns.span.start() == model.span.start()) else { continue };
        let Some(mut writers) = roundhouse::lowering::writer_names(&namespace.items) else { continue };
        let mut unknown = false;
        for (other, block) in context.included_blocks(model) {
            if !(other.relative_path.starts_with("app/") || other.relative_path.starts_with("lib/")) {
                continue;
            }
            match roundhouse::lowering::writer_names(&block.items) {
                Some(names) => writers.extend(names),
                None => unknown = true,
            }
        }
        if unknown {
            continue;
        }
        for (field, controllers) in permitted.into_iter().filter(|(f, _)| !writers.contains(*f)) {
            let controllers = controllers.join(", ");
            out.push(Diagnostic {
                span: model.name_span,
                severity: Severity::Warning,
                rule: rule!("controller.permit-field-no-writer"),
                message: format!(
                    "Roundhouse leaves `{field}` out of the `update` and `from_params` it writes for `{}`: {controllers} permits it, but the compiled model has no writer for it (not a column, a `belongs_to`, an `attr_accessor`/`attr_writer`/`attribute`, `has_secure_password`, a bare `has_rich_text` or a `def {field}=`), so a request's `{field}` is ignored (every target; Rails would assign it, or raise UnknownAttributeError). Instead, give the model a writer (`attr_accessor :{field}`, or `def {field}=(value)`), or stop permitting it.",
                    model.class_name
                ),
            });
        }
    }
    out
}

/// `model.json-hash-assignment`: a whole Hash written to a column some model declares with `has_json`.
fn json_hash_assignments(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if file.hash_writes.is_empty() {
        return Vec::new();
    }
    let columns: HashSet<&str> = context
        .models
        .values()
        .flat_map(|(f, i)| f.models[*i].macros.iter())
        .filter(|m| m.name == "has_json")
        .filter_map(|m| m.arguments.first().and_then(|a| a.as_name()))
        .collect();
    file.hash_writes
        .iter()
        .filter(|(column, _)| columns.contains(column.as_str()))
        .map(|(column, span)| {
            crate::diagnostic::Diagnostic::finding(
                rule!("model.json-hash-assignment"),
                *span,
                format!(
                    "Roundhouse does not model writing a whole Hash to the `{column}` json column: Rails casts each key through the `has_json` schema, the compiled app stores the Hash as given. Instead, write through the per-key writers (`{column}_<key>=`). (Roundhouse prints \"has_json not supported (all targets)\" for this line.)"
                ),
            )
        })
        .collect()
}

/// A concern's `included do … end` block: Roundhouse splices its statements into each model that
/// includes it, and lowers them there; the findings sit on the concern's lines.
fn concern_statements(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    use crate::syntax::outline::{Namespace, NamespaceKind};
    let mut out = Vec::new();
    for module in file.outline.namespaces().into_iter().filter(|ns| ns.kind == NamespaceKind::Module) {
        let Some(block) = module.included_block() else { continue };
        let last = module.name.rsplit("::").next().unwrap_or(&module.name);
        let namespace = module.name.strip_suffix(last).map(|ns| ns.trim_end_matches("::"));
        let includes = context.model_includes();
        let by_last = includes.get(last).into_iter().flatten().filter(|class| namespace.is_some_and(|ns| class.starts_with(ns)));
        let mut includers: Vec<&str> = includes.get(&module.name).into_iter().flatten().chain(by_last).map(String::as_str).collect();
        includers.sort_unstable();
        let Some(first) = includers.first() else { continue };
        let spliced = Namespace {
            kind: NamespaceKind::Class,
            name: (*first).to_owned(),
            superclass: Some("ApplicationRecord".to_owned()),
            span: block.span,
            name_span: module.name_span,
            items: block.items.clone(),
        };
        // What the includer gets the name from besides the block: its own body, its table's columns.
        let includer = context.model(first);
        let columns: Vec<String> = {
            let table = crate::app::nav::model_table_name(context, first);
            context
                .files
                .iter()
                .filter_map(|f| crate::app::nav::schema_of(f))
                .flat_map(|schema| schema.tables.iter().filter(|t| t.name == table))
                .flat_map(|t| t.columns.iter().map(|c| c.name.clone()))
                .collect()
        };
        let provided = |name: &str| -> Option<String> {
            if let Some(model) = includer {
                if model.methods.iter().any(|m| (if m.singleton { format!("self.{}", m.name) } else { m.name.clone() }) == name) {
                    return Some(format!("the `def {name}` of its own class body"));
                }
                if let Some(source) = roundhouse::lowering::provided_by_dsl(model, name) {
                    return Some(source);
                }
            }
            let column = name.trim_end_matches(['=', '?']);
            columns.iter().any(|c| c == column).then(|| format!("the `{column}` column's accessor"))
        };
        out.extend(roundhouse::lowering::spliced_findings(&crate::rails::model::extract(&spliced), &provided));
    }
    out
}

/// Whether `superclass` (named inside `namespace`) is one of the app's models, or a class that
/// inherits from one (`Group < Principal < ApplicationRecord`), at most eight levels up.
fn active_record_ancestry(context: &AppContext, namespace: Option<&str>, superclass: &str) -> bool {
    let mut name = superclass.to_owned();
    let mut namespace = namespace.map(str::to_owned);
    for _ in 0..8 {
        let qualified = namespace.as_deref().map(|ns| format!("{ns}::{name}"));
        let Some(model) = qualified.as_deref().and_then(|q| context.model(q)).or_else(|| context.model(&name)) else { return false };
        if roundhouse::ingest::is_model_facts(model) {
            return matches!(
                model.superclass.as_deref().map(|s| s.trim_start_matches("::")),
                Some("ApplicationRecord" | "ActiveRecord::Base")
            );
        }
        let Some(next) = model.superclass.as_deref() else { return false };
        namespace = model.class_name.rsplit_once("::").map(|(ns, _)| ns.to_owned());
        name = next.trim_start_matches("::").to_owned();
    }
    false
}

/// `model.reopened-without-superclass`: `class Post … end` without a superclass in another file the
/// compiler reads (`app/**`, `lib/**`): Roundhouse takes the reopening for a plain class of that name
/// and writes the model's emitted file from it, so the compiled model keeps only its scopes.
/// `model.row-struct-collision`: a model named like the row struct the compiler writes for another
/// model that has a table (`ImportRow` beside `Import`, both in `app/models`): the struct is written
/// to the same file and under the same name, and the model is lost.
fn row_struct_collisions(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if !file.relative_path.starts_with("app/models/") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for model in file.models.iter().filter(|m| roundhouse::ingest::is_model_facts(m)) {
        let Some(owner_name) = roundhouse::ingest::row_struct_of(&model.class_name) else { continue };
        let Some(owner) = context.model(owner_name).filter(|o| o.class_name == owner_name) else { continue };
        let direct =
            owner.superclass.as_deref().is_some_and(|s| matches!(s.trim_start_matches("::"), "ApplicationRecord" | "ActiveRecord::Base"));
        let Some(table) = context.nav().model_table(context, owner_name).filter(|_| direct && !owner.abstract_class) else { continue };
        let span = file
            .outline
            .namespaces()
            .into_iter()
            .find(|n| n.kind == crate::syntax::outline::NamespaceKind::Class && n.name == model.class_name)
            .map_or(model.span, |n| n.name_span);
        out.push(Diagnostic::finding(
            rule!("model.row-struct-collision"),
            span,
            format!(
                "Roundhouse writes, for the model `{owner_name}`, a struct of its table's rows (`{}`) named `{}`, to app/models/{}.rb: this model's name and file. The compiled `{}` is that struct, and this model's table, associations, validations, callbacks and methods are gone from every tree. Instead, rename this model, its file and its table, e.g. `{owner_name}Line` in `{}_line.rb`, with a migration `rename_table :{}, :{}_lines` (Roundhouse does not read `self.table_name`, so the table's name must follow the model's).",
                table.table().name,
                model.class_name,
                crate::rails::inflect::underscore(&model.class_name),
                model.class_name,
                crate::rails::inflect::underscore(owner_name),
                crate::app::nav::model_table_name(context, &model.class_name),
                crate::rails::inflect::underscore(owner_name),
            ),
        ));
    }
    out
}

fn model_reopenings(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    use crate::syntax::outline::{Item, NamespaceKind};
    let read = file.relative_path.starts_with("app/") || file.relative_path.starts_with("lib/");
    if !read || !roundhouse::ingest::reading(file, Some(&context.reading)).compiles_code() {
        return Vec::new();
    }
    // A controller file is read for its first controller class: a class around it is not read.
    let namespaces = file.outline.namespaces();
    if file.relative_path.starts_with("app/controllers/")
        && namespaces
            .iter()
            .any(|ns| ns.kind == NamespaceKind::Class && ns.name.rsplit("::").next().is_some_and(|n| n.ends_with("Controller")))
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    for class in namespaces.into_iter().filter(|ns| ns.kind == NamespaceKind::Class && ns.superclass.is_none()) {
        // The model: a class of that name declared with a superclass in a file of app/models.
        let Some(model_file) = context.model_definition(&class.name).filter(|f| f.relative_path != file.relative_path) else {
            continue;
        };
        let Some(model) = model_file.models.iter().find(|m| m.class_name == class.name && m.superclass.is_some()) else { continue };
        // An Active Record model the compiler reads as one (a model's subclass keeps its own file).
        let direct =
            model.superclass.as_deref().is_some_and(|s| matches!(s.trim_start_matches("::"), "ApplicationRecord" | "ActiveRecord::Base"));
        let read_as_model = roundhouse::ingest::bodies(model_file).get(&model.span.start()) == Some(&roundhouse::ingest::Body::Full);
        if !direct || !read_as_model {
            continue;
        }
        let only_namespaces = class.items.iter().all(|item| matches!(item, Item::Namespace(_)));
        let instead = if only_namespaces {
            let inner: Vec<String> = class
                .items
                .iter()
                .filter_map(|item| match item {
                    Item::Namespace(ns) => {
                        Some(format!("`{} {}`", if ns.kind == NamespaceKind::Module { "module" } else { "class" }, ns.name))
                    }
                    _ => None,
                })
                .collect();
            format!(
                "Instead, declare what it nests by its full name ({}), which does not reopen {}; inside it, {}'s constants are then written `{}::X`.",
                inner.join(", "),
                class.name,
                class.name,
                class.name
            )
        } else {
            format!("Instead, move what it adds into {}.", model_file.relative_path)
        };
        out.push(crate::diagnostic::Diagnostic::finding(
            rule!("model.reopened-without-superclass"),
            class.name_span,
            format!(
                "Roundhouse reads this `class {}` (no superclass) as a plain class and writes the compiled {} from it: the model defined in {} loses its columns, associations, validations, callbacks and methods, and keeps only its scopes (and what this reopening adds). {instead}",
                class.name, class.name, model_file.relative_path
            ),
        ));
    }
    out
}

/// `views.variable-name-not-ruby` at a template's `render template: "layouts/…"`: the compiler calls
/// the layout's function with the instance variables it takes, each under its own name: those the
/// layout reads, and those of the templates it renders in turn (`render template:`). One named like
/// a keyword (`@class`) is passed as `class`, which is not Ruby. (The layout's own file is said where
/// it assigns or reads it; the instance variables of the partials it renders are not followed.)
fn nested_layout_keywords(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if file.template.is_none() || roundhouse::tree::view_function(&file.relative_path).is_none() {
        return Vec::new();
    }
    let rendered_layout = |render: &crate::rails::references::RenderCall| {
        render.named.as_ref().filter(|(how, _)| how == "template").map(|(_, name)| name.trim_start_matches('/').to_owned())
    };
    let mut out = Vec::new();
    for render in &file.render_calls {
        let (Some(name), Some(span)) = (rendered_layout(render).filter(|n| n.starts_with("layouts/")), render.target_span) else {
            continue;
        };
        // The layout's instance variables, and those of the templates it renders, transitively.
        let (mut seen, mut queue, mut keyword) = (vec![name.clone()], vec![name.clone()], None);
        while let Some(current) = queue.pop() {
            let Some(template) = context
                .nav()
                .template_files(&current)
                .iter()
                .find(|t| t.template_names.is_some() && roundhouse::tree::view_function(&t.relative_path).is_some())
            else {
                continue;
            };
            let names = template.template_names.as_deref().into_iter().flat_map(|n| n.ivars.iter().map(|(ivar, _)| ivar.as_str()));
            // Kept as the function's parameter, which the compiler writes with a trailing underscore.
            if let Some(found) = names.into_iter().find_map(|n| n.strip_suffix('_').filter(|n| crate::syntax::is_ruby_keyword(n))) {
                keyword = Some(found.to_owned());
                break;
            }
            for next in template.render_calls.iter().filter_map(rendered_layout) {
                if !seen.contains(&next) {
                    seen.push(next.clone());
                    queue.push(next);
                }
            }
        }
        if let Some(keyword) = keyword {
            out.push(Diagnostic::finding(
                rule!("views.variable-name-not-ruby"),
                span,
                format!(
                    "Roundhouse compiles this into a call of the layout's function with the instance variables it takes, each under its own name: `@{keyword}` is passed as `{keyword}`, a Ruby keyword, which is not Ruby there. The emitted file does not parse, and the compiled app requires every view at boot, so it does not start (every tree). Instead, rename `@{keyword}` (`@{keyword}_name`) wherever the layouts set and read it."
                ),
            ));
        }
    }
    out
}

/// `model.operator-writer-not-ruby`: an Active Record model with a table gets an `update(attrs)` that
/// calls each instance method of its body whose name ends in `=` by the name without it; of the
/// operators, `[]=` and `==` make that call something that is not Ruby (`[]=(attrs[:[]])`,
/// `self == attrs[:=]`). (`<=`, `>=`, `!=`, `===` make a comparison that parses.)
fn operator_writers(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if !file.relative_path.starts_with("app/models/") || file.models.is_empty() {
        return Vec::new();
    }
    let bodies = roundhouse::ingest::bodies(file);
    let mut out = Vec::new();
    for model in &file.models {
        // The compiler's models, with the table it reads known: a model that names its table is left
        // to exact mode (the compiler may find no table under that name, and then writes no `update`).
        if bodies.get(&model.span.start()) != Some(&roundhouse::ingest::Body::Full)
            || !roundhouse::ingest::is_model_facts(model)
            || model.table_name.is_some()
            || model.table_name_computed
        {
            continue;
        }
        for method in model.methods.iter().filter(|m| !m.singleton && matches!(m.name.as_str(), "[]=" | "==")) {
            if context.nav().model_table(context, &model.class_name).is_none() {
                break;
            }
            let (written, why, instead) = if method.name == "[]=" {
                ("[]=(attrs[:[]])", "which is not Ruby", "`def write(key, value)`, and callers write `record.write(key, value)`")
            } else {
                ("self == attrs[:=]", "and `:=` is not a symbol", "`def same_as?(other)`")
            };
            out.push(Diagnostic::finding(
                rule!("model.operator-writer-not-ruby"),
                method.name_span,
                format!(
                    "Roundhouse's `update(attrs)` of {} calls every method of the model whose name ends in `=` by the name without it, so for `{}` it writes `{written}`, {why}: the emitted model does not parse, and the compiled app does not start (every tree). Instead, give this method a name ({instead}).",
                    model.class_name, method.name
                ),
            ));
        }
    }
    out
}

/// `model.belongs-to-declared-twice`: when the app turns on Roundhouse's preload methods
/// (`AppContext::preload_lowering`), it wraps each `belongs_to` reader in its cache guard once per
/// declaration, then memoizes a reader of exactly one guard and a query; a reader declared twice
/// (the model and a concern's `included` block, or the model twice) has two guards, and the memo
/// assigns the inner one: `@x_cache = return @x_cache if @x_loaded`, which is not Ruby. A
/// polymorphic reader is not memoized (its two guards are harmless).
fn belongs_to_twice(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    use crate::syntax::outline::Item;
    if !file.relative_path.starts_with("app/models/") {
        return Vec::new();
    }
    let Some((site, line)) = context.preload_lowering() else { return Vec::new() };
    let bodies = roundhouse::ingest::bodies(file);
    let mut out = Vec::new();
    for model in &file.models {
        if bodies.get(&model.span.start()) != Some(&roundhouse::ingest::Body::Full) || !roundhouse::ingest::is_model_facts(model) {
            continue;
        }
        let polymorphic =
            |options: &[(String, crate::syntax::value::Value)]| options.iter().any(|(k, v)| k == "polymorphic" && v.to_string() == "true");
        // The modules whose `included` block declares each name.
        let mut from_concerns: Vec<(String, String)> = Vec::new();
        for (concern_file, block) in context.included_blocks(model) {
            if !concern_file.relative_path.starts_with("app/") {
                continue;
            }
            for item in &block.items {
                if let Item::Call(c) = item
                    && c.receiver.is_none()
                    && c.method == "belongs_to"
                    && let Some(name) = c.arguments.first().and_then(|a| a.as_name())
                    && !c.options.iter().any(|(k, v)| k.as_name() == Some("polymorphic") && v.to_string() == "true")
                {
                    let module = concern_file.relative_path.rsplit('/').next().unwrap_or("").trim_end_matches(".rb").to_owned();
                    from_concerns.push((name.to_owned(), crate::rails::inflect::camelize(&module)));
                }
            }
        }
        let own: Vec<&crate::rails::model::Association> =
            model.associations.iter().filter(|a| a.kind == "belongs_to" && !polymorphic(&a.options)).collect();
        let mut said: Vec<&str> = Vec::new();
        for (i, association) in own.iter().enumerate() {
            let name = association.name.as_str();
            if said.contains(&name) {
                continue;
            }
            let again = own[i + 1..].iter().find(|a| a.name == name);
            let concern = from_concerns.iter().find(|(n, _)| n == name).map(|(_, m)| m.as_str());
            let (span, elsewhere) = match (again, concern) {
                (Some(again), _) => (again.span, format!("here and on line {}", association.span.start.line + 1)),
                (None, Some(module)) => (association.span, format!("here and in {module}'s `included` block")),
                (None, None) => continue,
            };
            said.push(name);
            out.push(Diagnostic::finding(
                rule!("model.belongs-to-declared-twice"),
                span,
                format!(
                    "`belongs_to :{name}` is declared twice, {elsewhere}. With the app's preload methods on (the `includes` at {site}:{line} turns them on), Roundhouse wraps the `{name}` reader in its cache guard once per declaration, and its memo then writes `@{name}_cache = return @{name}_cache if @{name}_loaded`, which is not Ruby: the emitted {} does not parse, and the compiled app does not start (every tree). Instead, declare it once.",
                    model.class_name
                ),
            ));
        }
    }
    out
}

/// `model.preload-crash`: when the app turns on Roundhouse's preload methods
/// (`AppContext::preload_lowering`), it writes a batch loader for each `has_many` of each model, keyed
/// by the association's foreign key; for a model in a namespace without `foreign_key:` that key is
/// taken from the class's full name (`custom_form::form_id`), which is not Ruby, and the compiler
/// panics before it writes any tree.
fn preload_crashes(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    use crate::syntax::outline::{Item, NamespaceKind};
    if !file.relative_path.starts_with("app/models/") {
        return Vec::new();
    }
    let Some((site, line)) = context.preload_lowering() else { return Vec::new() };
    let mut out = Vec::new();
    // A model's own `has_many`s.
    let bodies = roundhouse::ingest::bodies(file);
    for model in &file.models {
        let full = bodies.get(&model.span.start()) == Some(&roundhouse::ingest::Body::Full);
        if !full || !roundhouse::ingest::is_model_facts(model) {
            continue;
        }
        for association in model.associations.iter().filter(|a| a.kind == "has_many") {
            let option = |key: &str| association.options.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            let keyed = ["through", "foreign_key", "as"].iter().any(|k| option(k).is_some());
            let class_name = option("class_name").map(|v| v.as_name());
            let advice = format!("name the key Rails uses: `foreign_key: :{}`", crate::rails::inflect::foreign_key(&model.class_name));
            let whose = format!("`has_many :{}` on {}", association.name, model.class_name);
            out.extend(preload_crash(
                context,
                &model.class_name,
                &association.name,
                keyed,
                class_name,
                association.span,
                &whose,
                &advice,
                site,
                *line,
            ));
        }
    }
    // A concern's `included` block, spliced into each model that includes it: its `has_many` takes the
    // includer's key.
    for module in file.outline.namespaces().into_iter().filter(|ns| ns.kind == NamespaceKind::Module) {
        let Some(block) = module.included_block() else { continue };
        let mut includers: Vec<&String> = context.model_includes().get(&module.name).into_iter().flatten().collect();
        includers.sort_unstable();
        // Rails' key differs between includers of different names: the block cannot name one key.
        let keys: HashSet<String> = includers.iter().map(|c| crate::rails::inflect::foreign_key(c)).collect();
        for item in &block.items {
            let Item::Call(call) = item else { continue };
            if call.method != "has_many" || call.receiver.is_some() {
                continue;
            }
            let Some(name) = call.arguments.first().and_then(|a| a.as_name()) else { continue };
            let option = |key: &str| call.options.iter().find(|(k, _)| k.as_name() == Some(key)).map(|(_, v)| v);
            let keyed = ["through", "foreign_key", "as"].iter().any(|k| option(k).is_some());
            let class_name = option("class_name").map(|v| v.as_name());
            for includer in &includers {
                let Some((owner_file, i)) = context.models.get(includer.as_str()) else { continue };
                let owner = &owner_file.models[*i];
                if roundhouse::ingest::bodies(owner_file).get(&owner.span.start()) != Some(&roundhouse::ingest::Body::Full) {
                    continue;
                }
                let whose = format!("`has_many :{name}` of {}'s `included` block, spliced into {includer},", module.name);
                let advice = if keys.len() > 1 {
                    format!(
                        "declare the association in each model that includes {} with the key Rails uses there (`foreign_key:`), since their keys differ",
                        module.name
                    )
                } else {
                    format!("name the key Rails uses: `foreign_key: :{}`", crate::rails::inflect::foreign_key(includer))
                };
                if let Some(found) = preload_crash(context, includer, name, keyed, class_name, call.span, &whose, &advice, site, *line) {
                    out.push(found);
                    break;
                }
            }
        }
    }
    out
}

/// The `model.preload-crash` finding for one `has_many :name` of `owner` (`whose` says which, `advice`
/// what to write instead), if its key is written from a namespaced class name.
#[allow(clippy::too_many_arguments)]
fn preload_crash(
    context: &AppContext,
    owner: &str,
    name: &str,
    keyed: bool,
    class_name: Option<Option<&str>>,
    span: crate::syntax::Span,
    whose: &str,
    advice: &str,
    site: &str,
    line: u32,
) -> Option<Diagnostic> {
    use crate::rails::inflect;
    if keyed || !owner.contains("::") {
        return None;
    }
    let target = match class_name {
        Some(Some(class)) => class.to_owned(),
        Some(None) => return None,
        None => inflect::camelize(&inflect::singularize(name)),
    };
    if !context.model(&target).is_some_and(roundhouse::ingest::is_model_facts) {
        return None;
    }
    let written = inflect::underscore(owner).replace('/', "::");
    Some(crate::diagnostic::Diagnostic::finding(
        rule!("model.preload-crash"),
        span,
        format!(
            "Roundhouse crashes on this association, and writes no tree for any target: the app has scopes and loads associations ({site}:{line}), so it writes preload methods for every model, and for {whose} it takes the foreign key from the class's full name, `{written}_id`, which is not Ruby. Instead, {advice}."
        ),
    ))
}

/// The findings of the job and mailer classes' entry points, from their lowering.
fn entry_points(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    roundhouse::entry_points::lower(file, context).into_iter().flat_map(|class| class.entries).flat_map(|entry| entry.findings).collect()
}

/// A class of a model file whose superclass is one of the app's models (single-table inheritance, a
/// shared base): Roundhouse reads it as a plain class and drops its model statements.
fn model_subclass_statements(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if file.models.is_empty() {
        return Vec::new();
    }
    let bodies = roundhouse::ingest::bodies(file);
    let mut out = Vec::new();
    for model in &file.models {
        if bodies.get(&model.span.start()) != Some(&roundhouse::ingest::Body::Library) {
            continue;
        }
        let Some(superclass) = model.superclass.as_deref().map(|s| s.trim_start_matches("::")) else { continue };
        // Roundhouse finds the superclass by its name as written: `class Child < Base` inside
        // `module Partners` names no class of the app to it (not `Partners::Base`), and a class whose
        // superclass it does not know has its body replayed as it is, every statement kept.
        if context.model(superclass).is_none() {
            continue;
        }
        if active_record_ancestry(context, None, superclass) {
            let first = roundhouse::ingest::first_class(&file.outline.items).map_or("", |c| c.name.as_str());
            out.extend(roundhouse::lowering::subclass_findings(model, first));
        }
    }
    out
}

/// `rails.unknown-association` on `Post.includes(:comentz)` anywhere in the app: the model is the
/// constant the relation starts at, when every method between keeps it there (relation methods, the
/// model's scopes). Models that include modules or inherit from another model are left alone, as
/// are unknown constants.
fn unknown_association_loads(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // A migration queries the schema of its own day, often through models it defines for itself.
    if file.relative_path.starts_with("db/") && file.relative_path != "db/seeds.rb" {
        return out;
    }
    for load in &file.association_loads {
        let Some(model) = context.model(&load.model) else { continue };
        if !model.declares_all_associations() || reopens_gem_class(&context.reading, &model.class_name) {
            continue;
        }
        // `select`, `group` and `having` keep the model's associations (not its columns: an alias may add one).
        let keeps_model = |m: &String| {
            crate::rails::references::RELATION_METHODS.contains(&m.as_str())
                || matches!(m.as_str(), "select" | "group" | "having")
                || model.scopes.iter().any(|s| &s.name == m)
        };
        if !load.chain.iter().all(keeps_model) {
            continue;
        }
        for (name, span) in &load.names {
            if model.has_association(name) {
                continue;
            }
            let hint = closest(name, model.associations.iter().map(|a| a.name.as_str()))
                .map(|n| crate::catalogue::suggestion(&format!(":{n}")))
                .unwrap_or_default();
            out.push(crate::diagnostic::Diagnostic::finding(
                rule!("rails.unknown-association"),
                *span,
                format!(
                    "`{}(:{name})` names no association of {}: Rails raises ActiveRecord::AssociationNotFoundError (or ConfigurationError) when it runs.{hint}",
                    load.method, model.class_name
                ),
            ));
        }
    }
    out
}

/// Calls that answer the request, so an action that makes one does not rely on the implicit render.
const RESPONDERS: &[&str] = &[
    "render",
    "redirect_to",
    "redirect_back",
    "redirect_back_or_to",
    "head",
    "respond_to",
    "respond_with",
    "send_data",
    "send_file",
    "super",
    "yield",
];

/// `rails.missing-template` for the implicit render: an action a browser GET reaches that answers
/// nothing itself and has no template. Rails raises ActionController::MissingExactTemplate there;
/// Roundhouse's emitted controller answers 204 No Content. Silent when the action calls any method
/// the app defines (it may render), for API controllers, and where an inherited controller's folder
/// or `application/` could hold the template.
fn implicit_renders(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for controller in &file.controllers {
        if !matches!(controller.superclass.as_deref(), Some("ApplicationController" | "ActionController::Base")) {
            continue;
        }
        if controller.superclass.as_deref() == Some("ApplicationController")
            && context.controller("ApplicationController").is_some_and(|c| c.superclass.as_deref() != Some("ActionController::Base"))
        {
            continue;
        }
        let Some(path) = controller.class_name.strip_suffix("Controller").map(crate::rails::inflect::underscore) else { continue };
        for (action, calls) in &controller.action_calls {
            // An action that raises (an error page's `raise RoutingError`, a test hook's `fail`) may
            // never reach its render.
            let quiet = calls
                .iter()
                .any(|c| RESPONDERS.contains(&c.as_str()) || matches!(c.as_str(), "raise" | "fail") || context.method_names.contains(c));
            if quiet
                || !context.get_actions.contains(&(path.clone(), action.clone()))
                || context.templates.contains(&format!("application/{action}"))
                || context.has_view(&path, action)
                || context.view_supplied_elsewhere(&path, action)
            {
                continue;
            }
            let Some(summary) = controller.actions.iter().find(|a| &a.name == action) else { continue };
            out.push(crate::diagnostic::Diagnostic::finding(
                MISSING_TEMPLATE,
                summary.name_span,
                format!(
                    "`{action}` answers nothing itself and there is no template `{path}/{action}`: a browser GET raises ActionController::MissingExactTemplate in Rails, while Roundhouse's emitted controller answers 204 No Content. Add the template, or `render`/`redirect_to`/`head` in the action."
                ),
            ));
        }
    }
    out
}

/// `controller.concern-macro-not-expanded`: a class-body call of a class method of a module the
/// controller (or an ancestor) includes, which Roundhouse cannot expand into filters.
fn unexpanded_macros(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for controller in &file.controllers {
        let modules = context.included_modules(&controller.class_name);
        if modules.is_empty() {
            continue;
        }
        for call in controller.macros.iter().filter(|c| !c.block && !c.name.contains('.')) {
            let Some(found) = modules.iter().find_map(|m| context.module_macro(m, &call.name)) else { continue };
            let args = crate::rails::concern_macros::call_args(&call.arguments, &call.options);
            let Some(why) = crate::rails::concern_macros::not_expanded(found, &args) else { continue };
            out.push(crate::diagnostic::Diagnostic::finding(
                rule!("controller.concern-macro-not-expanded"),
                call.span,
                format!(
                    "Roundhouse does not expand `{}` from `{}` into filters: {why}. The call is dropped, so nothing it sets up runs in the emitted controller. Declare the filters here (`before_action …`), or keep the macro to filter calls with symbol targets.",
                    call.name, found.module
                ),
            ));
        }
    }
    out
}

/// `render "form"`, `render partial: "shared/nav"`, `render :edit` naming a template the app does not
/// have. Only names written out are checked, and only where Rails' lookup is certain: a bare name
/// that an inherited controller's folder or a shared partial could supply is given the benefit of
/// the doubt, as is a folder the app has no templates in (a gem's views).
fn missing_templates(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let (folder, in_view) = match file.kind {
        Some(FileKind::View) => (file.template.as_ref().and_then(|t| t.logical_path.rsplit_once('/')).map(|(dir, _)| dir.to_owned()), true),
        Some(FileKind::Controller) => {
            (file.relative_path.strip_prefix("app/controllers/").and_then(|p| p.strip_suffix("_controller.rb")).map(str::to_owned), false)
        }
        _ => (None, false),
    };
    let Some(folder) = folder else { return Vec::new() };
    // Where else a bare name may resolve: a parent controller's folder, or (for a shared partial or
    // layout) whichever controller renders it.
    let lookup_elsewhere = if in_view {
        // A template no controller of its folder renders is rendered from elsewhere (`render
        // "signup/topics"` in another controller), and its bare names resolve in that one's folders.
        file.template.as_ref().is_some_and(|t| t.partial || t.layout) || context.controller(&context.controller_class(&folder)).is_none()
    } else {
        file.controllers.iter().any(|c| {
            c.superclass
                .as_deref()
                .is_some_and(|s| !matches!(s, "ApplicationController" | "ActionController::Base" | "ActionController::API"))
        })
    };
    file.render_calls
        .iter()
        .filter_map(|call| {
            let (key, name) = call.named.as_ref()?;
            // `if defined?(Pro)`, `if path.exist?`: the app knows the template may be missing.
            if call.guarded {
                return None;
            }
            if call.options.iter().any(|o| matches!(o.as_str(), "inline" | "file" | "plain" | "html" | "body" | "json" | "xml" | "js")) {
                return None;
            }
            let partial = key == "partial" || (in_view && key.is_empty());
            let name = name.split('.').next().unwrap_or(name);
            let (dir, base) = match name.rsplit_once('/') {
                Some((dir, base)) if !dir.is_empty() && !base.is_empty() => (dir, base),
                Some(_) => return None,
                None => (folder.as_str(), name),
            };
            if base.is_empty() || !base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return None;
            }
            let file_name = if partial { format!("_{base}") } else { base.to_owned() };
            let logical = format!("{dir}/{file_name}");
            if context.has_view(dir, &file_name) || context.view_supplied_elsewhere(dir, &file_name) {
                return None;
            }
            let bare = !name.contains('/');
            // Rails looks a bare name up in the rendering controller's folders: its ancestors'
            // (`_prefixes`) and, for an inherited action or template, each subclass's own.
            if bare && context.lookup_folders(dir, true).iter().any(|f| context.has_view(f, &file_name)) {
                return None;
            }
            if bare
                && (context.templates.contains(&format!("application/{file_name}"))
                    || (lookup_elsewhere && {
                        let suffix = format!("/{file_name}");
                        context.templates.iter().any(|t| t.ends_with(&suffix))
                    }))
            {
                return None;
            }
            let folder_prefix = format!("{dir}/");
            if !bare && !context.templates.iter().any(|t| t.starts_with(&folder_prefix)) {
                return None; // Not the app's folder: a gem's or engine's views.
            }
            // A folder of a gem's views the app overrides in part (`devise/shared/_error_messages`
            // comes with Devise).
            if GEM_VIEW_FOLDERS.contains(&dir.split('/').next().unwrap_or("")) {
                return None;
            }
            let what = if partial { "partial" } else { "template" };
            Some(Diagnostic {
                span: call.span,
                severity: Severity::Warning,
                rule: MISSING_TEMPLATE,
                message: format!("No {what} `{logical}` in app/views: this `render` raises ActionView::MissingTemplate when it runs."),
            })
        })
        .collect()
}

/// View folders of gems that ship templates an app may override one by one.
const GEM_VIEW_FOLDERS: &[&str] = &["devise", "doorkeeper", "kaminari", "active_admin", "rails_admin", "administrate", "pagy"];

fn unknown_route_helpers(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    // A call Switchyard could not expand (a gem's macro, a dynamic route) may define helpers it
    // cannot see: say nothing of the names it may define (any, for most), rather than something wrong.
    use crate::rails::route_table::MayDefine;
    let open: Vec<&MayDefine> = context.table.skipped.iter().map(|s| &s.may_define).filter(|m| **m != MayDefine::Nothing).collect();
    // A routes file that draws nothing leaves the app's routes to something else (an engine gem
    // drawing into the app, as publify_core does).
    let draws_nothing = context.table.routes.is_empty() && context.table.helpers.is_empty();
    if draws_nothing || open.contains(&&MayDefine::Any) || file.kind == Some(FileKind::Routes) || !sees_route_helpers(file) {
        return Vec::new();
    }
    // An override of a gem's views (`app/views/doorkeeper/…`, `app/views/delayed/web/jobs/show` for
    // delayed-web's engine) renders in the gem's controller, with the gem's routes and helpers, which
    // define `_path` methods of their own (`doorkeeper_submit_path`).
    let in_gem_folder = file.template.as_ref().is_some_and(|t| {
        let segments: Vec<&str> = t.logical_path.split('/').collect();
        let folders = &segments[..segments.len() - 1];
        folders.first().is_some_and(|f| GEM_VIEW_FOLDERS.contains(f))
            || (1..=folders.len()).any(|n| context.reading.gems.contains(&folders[..n].join("_")))
    });
    if in_gem_folder {
        return Vec::new();
    }
    // A template's locals: what a partial's strict-locals comment declares, and any name a `render`
    // of the app passes as a local (to a partial, or to a template: `render "edit", locals: {…}`, a
    // mailer's `format.html { render …, locals: {…} }`). A template some render passes locals it
    // cannot list (`locals: header_props`) may read any name as one.
    let template = file.template.as_ref();
    let rendered_as = template.map(|t| match t.logical_path.rsplit_once('/') {
        Some((dir, base)) => (format!("{dir}/{}", base.trim_start_matches('_')), base.trim_start_matches('_').to_owned()),
        None => (t.logical_path.trim_start_matches('_').to_owned(), t.logical_path.trim_start_matches('_').to_owned()),
    });
    if rendered_as.is_some_and(|(path, base)| context.open_locals.contains(&path) || context.open_locals.contains(&base)) {
        return Vec::new();
    }
    let is_local = |name: &str| {
        template.is_some_and(|t| t.strict_locals.as_ref().is_some_and(|s| s.declares(name))) || context.passed_locals.contains(name)
    };
    file.route_helper_calls
        .iter()
        .filter_map(|reference| {
            let route_name = reference.name.strip_suffix("_path").or_else(|| reference.name.strip_suffix("_url"))?;
            if context.helper_names.contains(route_name)
                || context.method_names.contains(&*reference.name)
                || is_local(&reference.name)
                || open.iter().any(|m| m.covers(route_name))
                // Drawn by Rails' own engines (Active Storage's `rails_direct_uploads`, Action
                // Mailbox's conductor) and turbo-rails (`turbo_recede_historical_location`).
                || route_name.starts_with("rails_")
                || route_name.starts_with("turbo_")
            {
                return None;
            }
            let suggestion = closest(route_name, context.helper_names.iter().map(String::as_str))
                .map(|name| format!(" Did you mean `{name}{}`?", if reference.name.ends_with("_url") { "_url" } else { "_path" }))
                .unwrap_or_default();
            Some(Diagnostic {
                span: reference.span,
                severity: Severity::Error,
                rule: UNKNOWN_ROUTE_HELPER,
                message: format!(
                    "No route is named `{route_name}`, so `{}` is undefined (NameError when this runs).{suggestion}",
                    reference.name
                ),
            })
        })
        .collect()
}

/// Whether Rails gives this file's code the route helpers: controllers, views, helpers, mailers and
/// components, the tests that drive them, and any class that includes `routes.url_helpers`. A model,
/// a job, a `lib/` class or a deploy script calling `shared_path` calls something else.
fn sees_route_helpers(file: &FileFacts) -> bool {
    let path = file.relative_path.as_str();
    let in_web_layer = match file.kind {
        Some(FileKind::Controller | FileKind::View | FileKind::Helper) => true,
        Some(FileKind::Concern) => path.starts_with("app/controllers/"),
        Some(FileKind::AppSupport) => path.starts_with("app/mailers/") || path.starts_with("app/components/"),
        Some(FileKind::Test) => path.split('/').nth(1).is_some_and(|folder| {
            matches!(
                folder,
                "controllers"
                    | "requests"
                    | "request"
                    | "system"
                    | "features"
                    | "integration"
                    | "views"
                    | "helpers"
                    | "mailers"
                    | "routing"
                    | "components"
                    | "api"
                    | "acceptance"
            )
        }),
        _ => false,
    };
    in_web_layer || includes_url_helpers(&file.outline.items)
}

fn includes_url_helpers(items: &[crate::syntax::outline::Item]) -> bool {
    use crate::syntax::outline::Item;
    items.iter().any(|item| match item {
        Item::Call(call) if matches!(call.method.as_str(), "include" | "extend") => {
            call.arguments.iter().any(|a| a.to_string().contains("url_helpers"))
        }
        Item::Call(call) => call.block.as_ref().is_some_and(|b| includes_url_helpers(&b.items)),
        Item::Namespace(ns) => includes_url_helpers(&ns.items),
        _ => false,
    })
}

/// `switchyard.unexpanded-routes`: each call of this routes file whose routes the table could not list.
fn unexpanded_routes(context: &AppContext, file: &FileFacts) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = context
        .table
        .skipped
        .iter()
        // A call Rails rejects too has its own finding (`routes.malformed`, `routes.draw-missing`).
        .filter(|skipped| !skipped.invalid && context.root.join(&skipped.file) == file.path)
        .map(|skipped| Diagnostic {
            span: skipped.name_span,
            severity: Severity::Info,
            rule: crate::diagnostic::rule::UNEXPANDED_ROUTES,
            message: format!(
                "Switchyard lists no routes for this call: {}. `switchyard routes` leaves them out, and {}.",
                skipped.reason,
                match &skipped.may_define {
                    crate::rails::route_table::MayDefine::Containing(word) =>
                        format!("route helpers whose names contain `{word}` are not checked"),
                    _ => "route helpers are not checked in this app".to_owned(),
                }
            ),
        })
        .collect();
    // A routing concern drawn in several places is skipped once per place: said once, on its call.
    out.sort_by(|a, b| (a.span.start_byte, &a.message).cmp(&(b.span.start_byte, &b.message)));
    out.dedup_by(|a, b| a.span == b.span && a.message == b.message);
    out
}

/// Routes whose controller or action does not exist, by routes file: worked out once per context.
fn missing_actions(context: &AppContext) -> &BTreeMap<PathBuf, Vec<Diagnostic>> {
    context.missing_actions.get_or_init(|| missing_actions_of(context))
}

/// Routes whose controller or action does not exist, grouped by the call that made them.
fn missing_actions_of(context: &AppContext) -> BTreeMap<PathBuf, Vec<Diagnostic>> {
    // (file, call start) → (call span, missing actions, missing controller class).
    type Missing = (crate::syntax::Span, Vec<String>, Option<String>);
    let mut by_call: BTreeMap<(String, usize), Missing> = BTreeMap::new();
    for route in &context.table.routes {
        let (RouteKind::Action, Some(controller), Some(action)) = (route.kind, &route.controller, &route.action) else { continue };
        if FRAMEWORK_CONTROLLERS.iter().any(|p| controller.starts_with(p)) {
            continue;
        }
        let class_name = context.controller_class(controller);
        let missing_controller = context.controller(&class_name).is_none();
        if missing_controller && context.controller_from_gem(controller) {
            continue;
        }
        let has_action = if missing_controller { Some(false) } else { context.has_action(&class_name, action) };
        // An implicit action renders from the controller's folder or an ancestor's (`_prefixes`).
        let has_template = context.lookup_folders(controller, false).iter().any(|folder| context.has_view(folder, action));
        // An implicit action needs its template, and the controller still has to exist.
        if has_action == Some(false) && (missing_controller || !has_template) {
            let entry = by_call.entry((route.file.clone(), route.span.start())).or_insert_with(|| (route.span, Vec::new(), None));
            if missing_controller {
                entry.2 = Some(class_name);
            }
            if !entry.1.contains(action) {
                entry.1.push(action.clone());
            }
        }
    }
    let mut out: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
    for ((file, _), (span, actions, missing_controller)) in by_call {
        let list = actions.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
        let message = match missing_controller {
            Some(class_name) => match context.controllers.keys().find(|name| name.eq_ignore_ascii_case(&class_name)) {
                // `inflect.acronym` changes the name Rails looks for; the class is there under the other spelling.
                Some(written) => format!(
                    "No {class_name} in the app for {list}: the app's inflections name the controller {class_name}, but the class is written {written}, which Rails' autoloader does not find under that name: the route raises a routing error when requested."
                ),
                None => format!("No {class_name} in the app for {list}: the route raises a routing error when requested."),
            },
            None => {
                format!("The controller has no {list} action and no template for it: the route raises AbstractController::ActionNotFound.")
            }
        };
        out.entry(context.root.join(file)).or_default().push(Diagnostic {
            span,
            severity: Severity::Warning,
            rule: MISSING_ACTION,
            message,
        });
    }
    out
}

/// The closest name by edit distance, when it is close enough to be a typo.
fn closest<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    names
        .map(|name| (edit_distance(wanted, name), name))
        .filter(|(d, name)| *d <= 2.max(wanted.len() / 4) && *d < name.len())
        .min_by_key(|(distance, name)| (*distance, name.len().abs_diff(wanted.len()), *name))
        .map(|(_, name)| name)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

/// Templates that land in the same emitted file: the last one Roundhouse writes wins.
pub fn output_collisions(context: &AppContext) -> &BTreeMap<PathBuf, Vec<Diagnostic>> {
    context.collisions.get_or_init(|| collisions_of(context))
}

fn collisions_of(context: &AppContext) -> BTreeMap<PathBuf, Vec<Diagnostic>> {
    let mut by_path: BTreeMap<String, Vec<&FileFacts>> = BTreeMap::new();
    for file in context.files.iter().filter(|f| f.template.is_some()) {
        for path in crate::roundhouse::tree::template_paths(file) {
            by_path.entry(path).or_default().push(file);
        }
    }
    let mut out: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
    for (path, mut sources) in by_path.into_iter().filter(|(_, s)| s.len() > 1) {
        // Roundhouse writes them in path order: the last one's content is what survives.
        sources.sort_by(|a, b| a.relative_path.cmp(&b.relative_path));
        let winner = sources.last().map(|f| f.relative_path.clone()).unwrap_or_default();
        for source in &sources {
            let others: Vec<&str> =
                sources.iter().filter(|o| o.relative_path != source.relative_path).map(|o| o.relative_path.as_str()).collect();
            let fate = if source.relative_path == winner {
                "this one wins".to_owned()
            } else {
                format!("{winner} wins and this template's output is lost")
            };
            out.entry(source.path.clone()).or_default().push(Diagnostic {
                span: crate::syntax::Span::default(),
                severity: Severity::Warning,
                rule: rule!("views.output-collision"),
                message: format!("Roundhouse writes this template and {} to one file, {path}: {fate}.", others.join(", ")),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::test_fixture::Fixture;

    /// Every whole-app diagnostic of the fixture, as `file:line rule message`.
    fn check(fixture: &str, expect: Expect) {
        let fixture = Fixture::new(fixture);
        let snapshot = fixture.index.snapshot();
        let context = AppContext::new(&fixture.index, &fixture.root, &snapshot);
        let mut lines: Vec<String> = app_diagnostics(&context)
            .into_iter()
            .flat_map(|(path, diagnostics)| {
                let file = path.strip_prefix(&fixture.root).unwrap().display().to_string();
                diagnostics.into_iter().map(move |d| format!("{file}:{} {} {}", d.span.start.line + 1, d.rule, d.message))
            })
            .collect();
        lines.sort();
        let rendered = if lines.is_empty() { String::new() } else { lines.join("\n") + "\n" };
        expect.assert_eq(&rendered);
    }

    const ROUTES: &str = r#"
        #- /config/routes.rb
        Rails.application.routes.draw do
          resources :posts, only: [:index, :show]
          get "about", to: "pages#about"
        end
        #- /app/controllers/posts_controller.rb
        class PostsController < ApplicationController
          include Listing
          def show; end
        end
        #- /app/controllers/concerns/listing.rb
        module Listing
          def index; end
        end
        #- /app/controllers/application_controller.rb
        class ApplicationController < ActionController::Base; end
    "#;

    #[test]
    fn renders_of_templates_the_app_does_not_have() {
        check(
            r#"
            #- /config/routes.rb
            Rails.application.routes.draw do
              resources :posts
            end
            #- /app/controllers/posts_controller.rb
            class PostsController < ApplicationController
              def create
                render :new, status: :unprocessable_entity
                render :neww
                render "posts/show"
                render partial: "sidebar"
                render "kaminari/_paginator"
                render json: @posts
                render some_variable
              end
            end
            #- /app/controllers/admin/posts_controller.rb
            class Admin::PostsController < Admin::BaseController
              def index = render(:dashboard)
            end
            #- /app/views/posts/new.html.erb
            <%= render "form", post: @post %>
            <%= render "frm" %>
            <%= render partial: "comments/comment", collection: @comments %>
            <%= render "comments/coment" %>
            <%= render "nav" %>
            <%= render @posts %>
            #- /app/views/posts/_form.html.erb
            <%= render "errors" %>
            #- /app/views/posts/show.html.erb
            #- /app/views/comments/_comment.html.erb
            #- /app/views/application/_nav.html.erb
            #- /app/views/shared/_errors.html.erb
            #- /app/views/admin/base/dashboard.html.erb
            "#,
            expect![[r#"
                app/controllers/posts_controller.rb:4 rails.missing-template No template `posts/neww` in app/views: this `render` raises ActionView::MissingTemplate when it runs.
                app/controllers/posts_controller.rb:6 rails.missing-template No partial `posts/_sidebar` in app/views: this `render` raises ActionView::MissingTemplate when it runs.
                app/views/posts/new.html.erb:2 rails.missing-template No partial `posts/_frm` in app/views: this `render` raises ActionView::MissingTemplate when it runs.
                app/views/posts/new.html.erb:4 rails.missing-template No partial `comments/_coment` in app/views: this `render` raises ActionView::MissingTemplate when it runs.
                app/views/posts/new.html.erb:6 views.render-raises Roundhouse compiles this `render` into a call of the partial `posts/_post` (named after the instance variable or the method, where Rails asks each record for its partial), which the app does not have: the page raises NameError here, in every tree. Instead, name the partial: `render partial: "<folder>/<name>", collection: …` (a loop of `render "<folder>/<name>", <name>: record` for one record).
            "#]],
        );
    }

    #[test]
    fn implicit_renders_without_a_template() {
        check(
            r#"
            #- /config/routes.rb
            Rails.application.routes.draw do
              resources :posts, only: [:index, :show, :new, :create]
              get "feed", to: "posts#feed"
              get "stats", to: "posts#stats"
              post "ping", to: "posts#ping"
              resources :tokens, only: :index
            end
            #- /app/controllers/application_controller.rb
            class ApplicationController < ActionController::Base
            end
            #- /app/controllers/posts_controller.rb
            class PostsController < ApplicationController
              def index; end
              def show
                @post = Post.find(params[:id])
              end
              def new
                load_form
              end
              def create; end
              def feed
                respond_to { |format| format.rss }
              end
              def stats = head(:no_content)
              def ping; end

              private

              def load_form
                @post = Post.new
              end
            end
            #- /app/controllers/tokens_controller.rb
            class TokensController < ActionController::API
              def index; end
            end
            #- /app/views/posts/index.html.erb
            <h1>Posts</h1>
        "#,
            expect![[r#"
                app/controllers/posts_controller.rb:3 rails.missing-template `show` answers nothing itself and there is no template `posts/show`: a browser GET raises ActionController::MissingExactTemplate in Rails, while Roundhouse's emitted controller answers 204 No Content. Add the template, or `render`/`redirect_to`/`head` in the action.
            "#]],
        );
    }

    #[test]
    fn association_loads_name_the_models_associations() {
        check(
            r#"
            #- /app/models/post.rb
            class Post < ApplicationRecord
              has_many :comments
              belongs_to :author
              scope :published, -> { where(published: true) }
            end
            #- /app/models/comment.rb
            class Comment < ApplicationRecord
              include Reactable
              belongs_to :post
            end
            #- /app/controllers/posts_controller.rb
            class PostsController < ApplicationController
              def index
                @posts = Post.published.includes(:comentz, :author).order(:id)
                @drafts = Post.where(published: false).preload(author: :profile)
                @recent = Post.first.comments.includes(:anything)
                @odd = Comment.includes(:reactions)
                @joined = Post.joins(:tags)
              end
            end
            #- /app/views/posts/index.html.erb
            <% Post.eager_load(:autor).each do |post| %><%= post.id %><% end %>
        "#,
            expect![[r#"
                app/controllers/posts_controller.rb:3 rails.unknown-association `includes(:comentz)` names no association of Post: Rails raises ActiveRecord::AssociationNotFoundError (or ConfigurationError) when it runs. Did you mean `:comments`?
                app/controllers/posts_controller.rb:3 rails.unused-instance-variable `@posts` is set here and rendered with `posts/index`, but no code of the app reads it: not the template, its partials, a layout, a helper or the controller.
                app/controllers/posts_controller.rb:4 rails.unused-instance-variable `@drafts` is set here and rendered with `posts/index`, but no code of the app reads it: not the template, its partials, a layout, a helper or the controller.
                app/controllers/posts_controller.rb:5 rails.unused-instance-variable `@recent` is set here and rendered with `posts/index`, but no code of the app reads it: not the template, its partials, a layout, a helper or the controller.
                app/controllers/posts_controller.rb:6 rails.unused-instance-variable `@odd` is set here and rendered with `posts/index`, but no code of the app reads it: not the template, its partials, a layout, a helper or the controller.
                app/controllers/posts_controller.rb:7 rails.unknown-association `joins(:tags)` names no association of Post: Rails raises ActiveRecord::AssociationNotFoundError (or ConfigurationError) when it runs.
                app/controllers/posts_controller.rb:7 rails.unused-instance-variable `@joined` is set here and rendered with `posts/index`, but no code of the app reads it: not the template, its partials, a layout, a helper or the controller.
                app/views/posts/index.html.erb:1 rails.unknown-association `eager_load(:autor)` names no association of Post: Rails raises ActiveRecord::AssociationNotFoundError (or ConfigurationError) when it runs. Did you mean `:author`?
            "#]],
        );
    }

    #[test]
    fn concern_macros_that_are_not_filter_dsl() {
        check(
            r#"
            #- /app/controllers/concerns/authentication.rb
            module Authentication
              extend ActiveSupport::Concern

              class_methods do
                def allow_unauthenticated_access(**options)
                  skip_before_action :require_authentication, **options
                end

                def require_sudo_mode(**options)
                  before_action :require_sudo, **options
                  helper_method :sudo?
                end
              end
            end
            #- /app/controllers/application_controller.rb
            class ApplicationController < ActionController::Base
              include Authentication
            end
            #- /app/controllers/sessions_controller.rb
            class SessionsController < ApplicationController
              allow_unauthenticated_access only: %i[new create]
              allow_unauthenticated_access if: :trusted_network?
              require_sudo_mode only: :destroy
              rate_limit to: 10, within: 3.minutes
            end
            #- /app/controllers/reports_controller.rb
            class ReportsController < ActionController::Base
              require_sudo_mode only: :destroy
            end
        "#,
            expect![[r#"
                app/controllers/sessions_controller.rb:3 controller.concern-macro-not-expanded Roundhouse does not expand `allow_unauthenticated_access` from `Authentication` into filters: a filter in it has an `if:`/`unless:` condition. The call is dropped, so nothing it sets up runs in the emitted controller. Declare the filters here (`before_action …`), or keep the macro to filter calls with symbol targets.
                app/controllers/sessions_controller.rb:4 controller.concern-macro-not-expanded Roundhouse does not expand `require_sudo_mode` from `Authentication` into filters: its body holds `helper_method :sudo?`, which is not filter DSL. The call is dropped, so nothing it sets up runs in the emitted controller. Declare the filters here (`before_action …`), or keep the macro to filter calls with symbol targets.
            "#]],
        );
    }

    #[test]
    fn migration_verbs_matter_only_without_a_schema_file() {
        let migrations = r#"
            #- /config/routes.rb
            Rails.application.routes.draw do
            end
            #- /db/migrate/20240101000000_create_posts.rb
            class CreatePosts < ActiveRecord::Migration[8.0]
              def change
                create_table :posts do |t|
                  t.string :title
                end
                # execute "VACUUM" is only a comment
                create_join_table :posts, :tags
                reversible do |dir|
                  dir.up { execute "UPDATE posts SET title = ''" }
                end
              end
            end
        "#;
        check(
            migrations,
            expect![[r#"
                db/migrate/20240101000000_create_posts.rb:7 schema.migration-verb Without db/schema.rb Roundhouse reads the schema from db/migrate, and it cannot fold `create_join_table`: the compile stops. Run `bin/rails db:migrate` and commit db/schema.rb.
            "#]],
        );
        let with_schema = format!(
            "{migrations}\n            #- /db/schema.rb\n            ActiveRecord::Schema[8.0].define(version: 1) do\n            end\n"
        );
        check(&with_schema, expect![[""]]);
    }

    #[test]
    fn names_bound_in_the_app_are_no_route_helpers() {
        // Locals, parameters, a partial's locals (from its renders and its strict-locals comment),
        // readers and RSpec lets; a name bound nowhere is still reported.
        check(
            &format!(
                "{ROUTES}{}",
                r#"
        #- /app/views/posts/index.html.erb
        <% back_url = request.referrer %>
        <%= link_to "Back", back_url %>
        <%= render "type_picker", type_change_path: posts_path %>
        <%= link_to "Lost", lost_path %>
        #- /app/views/posts/_type_picker.html.erb
        <%= form_with url: type_change_path %>
        #- /app/views/posts/_strict.html.erb
        <%# locals: (cancel_url:, title: nil) -%>
        <%= link_to "Cancel", cancel_url %>
        #- /app/helpers/documents_helper.rb
        module DocumentsHelper
          attr_reader :return_url
          def fetch_document(untrusted_url) = open(untrusted_url, return_url)
        end
        #- /spec/requests/login_spec.rb
        RSpec.describe "login" do
          let(:login_path) { "/login" }
          it { get login_path; expect(page).to have_current_path(current_path) }
        end
        "#
            ),
            expect![[r#"
                app/controllers/posts_controller.rb:3 rails.missing-template `show` answers nothing itself and there is no template `posts/show`: a browser GET raises ActionController::MissingExactTemplate in Rails, while Roundhouse's emitted controller answers 204 No Content. Add the template, or `render`/`redirect_to`/`head` in the action.
                app/views/posts/index.html.erb:4 rails.unknown-route-helper No route is named `lost`, so `lost_path` is undefined (NameError when this runs). Did you mean `post_path`?
                config/routes.rb:3 rails.missing-action No PagesController in the app for `about`: the route raises a routing error when requested.
            "#]],
        );
    }

    #[test]
    fn unknown_route_helpers_suggest_the_closest_route() {
        check(
            &format!(
                "{ROUTES}{}",
                r#"
        #- /app/views/pages/about.html.erb
        <%= link_to "Posts", posts_path %> <%= link_to "Post", pots_url(1) %> <%= avatar_path %> <%= about_path %>
        #- /app/helpers/avatars_helper.rb
        module AvatarsHelper
          def avatar_path = "/a.png"
        end
        "#
            ),
            expect![[r#"
                app/controllers/posts_controller.rb:3 rails.missing-template `show` answers nothing itself and there is no template `posts/show`: a browser GET raises ActionController::MissingExactTemplate in Rails, while Roundhouse's emitted controller answers 204 No Content. Add the template, or `render`/`redirect_to`/`head` in the action.
                app/views/pages/about.html.erb:1 rails.unknown-route-helper No route is named `pots`, so `pots_url` is undefined (NameError when this runs). Did you mean `posts_url`?
                config/routes.rb:3 rails.missing-action No PagesController in the app for `about`: the route raises a routing error when requested.
            "#]],
        );
    }

    #[test]
    fn haml_templates_are_checked_at_the_exact_code() {
        let fixture = Fixture::new(&format!(
            "{ROUTES}{}",
            r##"
        #- /app/views/posts/index.html.haml
        %h1 Posts
        - @posts.each do |post|
          %li{data: {url: post_path(post)}}= link_to post.title, pots_path
          - if post.draft?
            = render "posts/draft_badge", post: post
        %p See #{link_to "the archive", archive_url}
        -# = link_to "old", ancient_path
        :javascript
          var url = "#{feed_path}";
        "##
        ));
        let snapshot = fixture.index.snapshot();
        let context = AppContext::new(&fixture.index, &fixture.root, &snapshot);
        let diagnostics = app_diagnostics(&context);
        let haml = fixture.root.join("app/views/posts/index.html.haml");
        let mut found: Vec<(u32, String)> = diagnostics[&haml]
            .iter()
            .map(|d| (d.span.start.line, format!("{}:{}-{} {}", d.span.start.line + 1, d.span.start.col + 1, d.span.end.col + 1, d.rule)))
            .collect();
        found.sort();
        let found: Vec<String> = found.into_iter().map(|(_, f)| f).collect();
        // Filters interpolate too; a `-#` comment is no code.
        assert_eq!(
            found,
            [
                "3:58-67 rails.unknown-route-helper",
                "5:7-45 rails.missing-template",
                "6:33-44 rails.unknown-route-helper",
                "9:16-25 rails.unknown-route-helper",
            ]
        );
    }

    /// Route helpers are held to the table Devise's router, Doorkeeper's `use_doorkeeper` and
    /// `config.paths["config/routes.rb"]` make, in the files Rails gives route helpers to.
    #[test]
    fn route_helpers_are_checked_through_devise_doorkeeper_and_listed_routes_files() {
        let fixture = Fixture::new(
            r#"
            #- /config/application.rb
            module Shop
              class Application < Rails::Application
                config.paths["config/routes.rb"] = %w(config/routes/api.rb config/routes.rb)
              end
            end
            #- /config/routes/api.rb
            Shop::Application.routes.draw do
              namespace :api do
                resources :orders, only: [:index]
              end
            end
            #- /config/routes.rb
            Rails.application.routes.draw do
              devise_for :users
              devise_for :members
              use_doorkeeper
              authenticated :user do
                resources :posts
              end
            end
            Spree::Core::Engine.routes.draw do
              resources :checkouts, only: [:show]
            end
            #- /app/models/user.rb
            class User < ApplicationRecord
              devise :database_authenticatable, :registerable, :recoverable
            end
            #- /app/models/member.rb
            class Member < ApplicationRecord
              devise :database_authenticatable, :recoverable if ENV["MEMBERS"]
            end
            #- /app/views/posts/index.html.erb
            <%= link_to "Orders", api_orders_path %>
            <%= link_to "Settings", edit_user_registration_path %>
            <%= link_to "Sign out", destroy_user_session_path %>
            <%= link_to "Apps", oauth_applications_path %>
            <%= link_to "Club", new_member_session_path %>
            <%= link_to "Checkout", checkout_path(1) %>
            <%= link_to "Password", new_password_path(:user) %>
            <%= link_to "Posts", posts_path %>
            <%= link_to "Typo", edit_user_registraton_path %>
            <%= link_to "Unlock", new_user_unlock_path %>
            #- /lib/tasks/deploy.rb
            class Deploy
              def run = shared_path
            end
            "#,
        );
        let snapshot = fixture.index.snapshot();
        let context = AppContext::new(&fixture.index, &fixture.root, &snapshot);
        let diagnostics = app_diagnostics(&context);
        let flagged = |path: &str| -> Vec<String> {
            diagnostics
                .get(&fixture.root.join(path))
                .into_iter()
                .flatten()
                .filter(|d| d.rule == UNKNOWN_ROUTE_HELPER)
                .map(|d| format!("{}: {}", d.span.start.line + 1, d.message))
                .collect()
        };
        // The listed routes file, the user's Devise routes, Doorkeeper's `oauth_*`, the unknown
        // `members` mapping's names, the engine's names, the generic helpers: all known or left
        // open. The typo and the unlock route (User is not `:lockable`) are not.
        assert_eq!(
            flagged("app/views/posts/index.html.erb"),
            [
                "9: No route is named `edit_user_registraton`, so `edit_user_registraton_path` is undefined (NameError when this runs). Did you mean `edit_user_registration_path`?",
                "10: No route is named `new_user_unlock`, so `new_user_unlock_path` is undefined (NameError when this runs).",
            ]
        );
        // Not code Rails gives route helpers.
        assert!(flagged("lib/tasks/deploy.rb").is_empty());
        let named: Vec<&str> = context.table.routes.iter().filter_map(|r| r.name.as_deref()).collect();
        assert_eq!(named[..2], ["api_orders", "new_user_session"], "the listed files drawn in order");
    }

    /// Each call whose routes the table cannot list is named at its method (an `if` at its
    /// condition), and the route helper check says nothing in the app rather than something wrong.
    #[test]
    fn unexpanded_routes_are_named_on_their_call() {
        let fixture = Fixture::new(
            r#"
            #- /config/routes.rb
            Rails.application.routes.draw do
              devise_for :users
              Plugin.all.each do |plugin|
                get "plugins/#{plugin}", to: "plugins#show"
              end
              if ENV["ADMIN"]
                get "admin", to: "admin#show"
              end
              %w[a b].each do |letter|
                get "letters/#{letter}", to: "letters#show"
              end
              get "dev", to: "dev#show" if Rails.env.development?
            end
            #- /app/views/pages/home.html.erb
            <%= link_to "Sign in", new_user_session_path %>
            "#,
        );
        let snapshot = fixture.index.snapshot();
        let context = AppContext::new(&fixture.index, &fixture.root, &snapshot);
        let diagnostics = app_diagnostics(&context);
        let routes = &diagnostics[&fixture.root.join("config/routes.rb")];
        let found: Vec<String> = routes
            .iter()
            .filter(|d| d.rule == crate::diagnostic::rule::UNEXPANDED_ROUTES)
            .map(|d| format!("{}:{}-{} {}", d.span.start.line + 1, d.span.start.col + 1, d.span.end.col + 1, d.message))
            .collect();
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(
            found[0].starts_with("2:3-13 ")
                && found[0].contains("the Devise routes of `User` are not decided by the app's files: the app defines no such model"),
            "{}",
            found[0]
        );
        assert!(found[0].contains("route helpers whose names contain `user` are not checked"), "{}", found[0]);
        assert!(found[1].starts_with("3:14-18 ") && found[1].contains("a loop over `Plugin.all`"), "{}", found[1]);
        assert!(found[2].starts_with("6:6-18 ") && found[2].contains("`if ENV[\"ADMIN\"]`"), "{}", found[2]);
        let template = fixture.root.join("app/views/pages/home.html.erb");
        assert!(diagnostics.get(&template).is_none_or(|d| d.iter().all(|d| d.rule != UNKNOWN_ROUTE_HELPER)));
        // The literal loop and the development-only route are listed.
        let paths: Vec<&str> = context.table.routes.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(paths, ["/letters/a(.:format)", "/letters/b(.:format)", "/dev(.:format)"]);
    }

    #[test]
    fn missing_controllers_and_actions_but_not_implicit_templates_or_concern_actions() {
        check(
            ROUTES,
            expect![[r#"
                app/controllers/posts_controller.rb:3 rails.missing-template `show` answers nothing itself and there is no template `posts/show`: a browser GET raises ActionController::MissingExactTemplate in Rails, while Roundhouse's emitted controller answers 204 No Content. Add the template, or `render`/`redirect_to`/`head` in the action.
                config/routes.rb:3 rails.missing-action No PagesController in the app for `about`: the route raises a routing error when requested.
            "#]],
        );
        check(
            &format!(
                "{ROUTES}\n#- /app/views/pages/about.html.erb\n<h1>About</h1>\n#- /app/controllers/pages_controller.rb\nclass PagesController < ApplicationController\nend\n"
            ),
            expect![[r#"
                app/controllers/posts_controller.rb:3 rails.missing-template `show` answers nothing itself and there is no template `posts/show`: a browser GET raises ActionController::MissingExactTemplate in Rails, while Roundhouse's emitted controller answers 204 No Content. Add the template, or `render`/`redirect_to`/`head` in the action.
            "#]],
        );
        // A concern from outside the app may define the action: no guess.
        check(
            r#"
            #- /config/routes.rb
            Rails.application.routes.draw do
              resources :posts, only: [:index, :destroy]
              resources :reports, only: :index
            end
            #- /app/controllers/posts_controller.rb
            class PostsController < ActionController::Base
              def index; end
            end
            #- /app/controllers/reports_controller.rb
            class ReportsController < ActionController::Base
              include SomeGem::Reporting
            end
            "#,
            expect![[r#"
                app/controllers/posts_controller.rb:2 rails.missing-template `index` answers nothing itself and there is no template `posts/index`: a browser GET raises ActionController::MissingExactTemplate in Rails, while Roundhouse's emitted controller answers 204 No Content. Add the template, or `render`/`redirect_to`/`head` in the action.
                config/routes.rb:2 rails.missing-action The controller has no `destroy` action and no template for it: the route raises AbstractController::ActionNotFound.
            "#]],
        );
    }

    #[test]
    fn routes_rules_fire_on_the_exact_construct() {
        check(
            r#"
            #- /config/routes.rb
            Rails.application.routes.draw do
              concern :commentable do
                resources :comments
              end
              devise_for :users
              resources :photos, path: "gallery", only: :index
              resources "posts"
              get
              get "legacy", to: redirect("/new")
              get "photos/search"
              mount Sidekiq::Web => "/sidekiq"
              draw :admin
              draw :missing
              namespace :api do
                get "ping", to: "health#ping"
              end
            end
            #- /config/routes/admin.rb
            get "admin", to: "admin#show"
            #- /app/controllers/photos_controller.rb
            class PhotosController < ActionController::Base
              def index; end
              def search; end
            end
            "#,
            expect![[r#"
                app/controllers/photos_controller.rb:2 rails.missing-template `index` answers nothing itself and there is no template `photos/index`: a browser GET raises ActionController::MissingExactTemplate in Rails, while Roundhouse's emitted controller answers 204 No Content. Add the template, or `render`/`redirect_to`/`head` in the action.
                app/controllers/photos_controller.rb:3 rails.missing-template `search` answers nothing itself and there is no template `photos/search`: a browser GET raises ActionController::MissingExactTemplate in Rails, while Roundhouse's emitted controller answers 204 No Content. Add the template, or `render`/`redirect_to`/`head` in the action.
                config/routes.rb:10 routes.missing-target Roundhouse drops a `get` route without `to:` outside `resources` (Rails would infer the controller from the path). Name the target: `to: "controller#action"`.
                config/routes.rb:11 routes.mount Roundhouse drops `mount`: the mounted app's routes do not exist in the compiled app.
                config/routes.rb:13 routes.draw-missing `draw(:missing)` but there is no config/routes/missing.rb: Roundhouse stops the compile (and Rails raises).
                config/routes.rb:15 rails.missing-action No Api::HealthController in the app for `ping`: the route raises a routing error when requested.
                config/routes.rb:2 routes.unsupported-dsl Roundhouse does not support `concern` (routing concerns) in routes: it stops the compile with "unsupported routes DSL". Write the routes it stands for with `resources`, `scope` or verbs.
                config/routes.rb:5 routes.unsupported-dsl Roundhouse does not support `devise_for` (gem routing macros) in routes: it stops the compile with "unsupported routes DSL". Write the routes it stands for with `resources`, `scope` or verbs.
                config/routes.rb:5 switchyard.unexpanded-routes Switchyard lists no routes for this call: the Devise routes of `User` are not decided by the app's files: the app defines no such model. `switchyard routes` leaves them out, and route helpers whose names contain `user` are not checked.
                config/routes.rb:6 routes.resource-option-ignored Roundhouse ignores `path:` on `resources` (it reads only `only`, `except` and `as`): the compiled route may reach a different controller or path than Rails'.
                config/routes.rb:7 rails.missing-action No PostsController in the app for `index`, `create`, `new`, `edit`, `show`, `update`, `destroy`: the route raises a routing error when requested.
                config/routes.rb:7 routes.malformed Roundhouse needs a symbol here ("resources name must be a symbol"): write `resources :posts`.
                config/routes.rb:8 routes.malformed `get` without a path: Roundhouse stops the compile ("verb route without arguments"). Give the path: `get "path", to: "controller#action"`.
                config/routes.rb:9 routes.redirect Roundhouse drops redirect routes: this URL answers 404 in the compiled app. Redirect from a controller action instead (`redirect_to "/b", status: :moved_permanently`).
                config/routes/admin.rb:1 rails.missing-action No AdminController in the app for `show`: the route raises a routing error when requested.
            "#]],
        );
    }
}

#[cfg(test)]
mod suppression_tests {
    use super::*;
    use crate::test_fixture::Fixture;

    #[test]
    fn disable_comments_silence_their_line_the_next_line_or_the_file() {
        let fixture = Fixture::new(
            r#"
            #- /app/models/report.rb
            class Report < ApplicationRecord
              alias a b # switchyard:disable syntax.alias-keyword
              # switchyard:disable-next-line syntax.undef
              undef c
              undef d
              alias e f # switchyard:disable syntax.undef
            end
            #- /lib/shell.rb
            # Legacy code, not compiled by Roundhouse anyway.
            # switchyard:disable syntax.backtick-command
            class Shell
              def run = `ls`
            end
            "#,
        );
        let report = fixture.facts("app/models/report.rb");
        let left: Vec<String> =
            file_diagnostics(&report, &[], None).iter().map(|d| format!("{} {}", d.span.start.line + 1, d.rule)).collect();
        assert_eq!(left, ["5 syntax.undef", "6 syntax.alias-keyword", "6 switchyard.unused-suppression"]);
        let unused =
            file_diagnostics(&report, &[], None).into_iter().find(|d| d.rule == crate::diagnostic::rule::UNUSED_SUPPRESSION).unwrap();
        // `  alias e f # switchyard:disable syntax.undef`: the span is the comment's directive.
        let columns = (unused.span.start.line, unused.span.start.col, unused.span.end.col);
        assert_eq!(columns, (5, 14, 14 + "switchyard:disable syntax.undef".len() as u32));
        assert_eq!(unused.severity, Severity::Info);
        assert!(file_diagnostics(&fixture.facts("lib/shell.rb"), &[], None).is_empty());
    }
}

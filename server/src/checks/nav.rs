//! Rails wiring checks that need the navigation model (`app::nav`) and no boot: a column no model
//! has, a migration the schema has not caught up with, an instance variable a template reads that
//! nothing feeding it sets (and, as info, one an action sets that nothing it renders reads), a
//! partial's strict locals, an i18n key the default locale lacks.
//!
//! Each says something only where the app's own files decide it: a model a gem's macro may add
//! attributes to, a controller that includes a gem's module, a translation a Ruby locale file may
//! define, a render of a variable — all are left alone. What a finding claims is a fact of the app's
//! files, measured on real apps (FIDELITY.md).

use std::collections::HashSet;
use std::sync::Arc;

use crate::app::AppContext;
use crate::app::nav::Nav;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::rails::FileFacts;
use crate::rails::project::FileKind;
use crate::rails::references::ColumnReceiver;
use crate::syntax::Span;

pub const UNKNOWN_COLUMN: RuleId = rule!("rails.unknown-column");
pub const PENDING_MIGRATION: RuleId = rule!("rails.pending-migration");
pub const UNSET_INSTANCE_VARIABLE: RuleId = rule!("rails.unset-instance-variable");
pub const UNUSED_INSTANCE_VARIABLE: RuleId = rule!("rails.unused-instance-variable");
pub const PARTIAL_LOCALS: RuleId = rule!("rails.partial-locals");
pub const MISSING_TRANSLATION: RuleId = rule!("rails.missing-translation");

/// Every navigation check of one file.
pub fn check(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let mut found = unknown_columns(file, context);
    found.extend(pending_migration(file, context));
    found.extend(unset_instance_variables(file, context));
    found.extend(unused_instance_variables(file, context));
    found.extend(partial_locals(file, context));
    found.extend(missing_translations(file, context));
    found
}

fn finding(rule: RuleId, severity: Severity, span: Span, message: String) -> Diagnostic {
    Diagnostic { span, severity, rule, message }
}

// ---- rails.unknown-column -----------------------------------------------------------------------

/// Whether `class_name` is an Active Record model through the app's classes.
fn is_active_record(context: &AppContext, class_name: &str) -> bool {
    let mut current = context.model(class_name);
    for _ in 0..16 {
        let Some(model) = current else { return false };
        match model.superclass.as_deref().map(|s| s.trim_start_matches("::")) {
            Some("ApplicationRecord" | "ActiveRecord::Base") => return true,
            Some(superclass) => current = context.model(superclass),
            None => return false,
        }
    }
    false
}

/// `Post.where(titel: …)`, `order(:craeted_at)`, `validates :titel`, `permit(:titel)`: a name the
/// model has no column, association or attribute for. Queries are checked against everything the
/// model declares; `validates` and `permit` (which take virtual attributes too) only where nothing
/// outside the app can add one.
fn unknown_columns(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let nav = context.nav();
    let mut out = Vec::new();
    // What pending migrations add, worked out once, when a name is first not found.
    let pending = std::cell::OnceCell::new();
    let pending_names = || pending.get_or_init(|| pending_names(context));
    // A migration (or an old one kept under db/) queries the schema of its own day.
    let current_schema = !file.relative_path.starts_with("db/") || file.relative_path == "db/seeds.rb";
    // A permit list is no query: whether its keys reach a model depends on what the controller does
    // with them, so it is navigated, not judged.
    for used in file.uses.columns.iter().filter(|u| current_schema && !matches!(u.receiver, ColumnReceiver::Params(_))) {
        let Some(model) = nav.column_model(context, file, used) else { continue };
        if !is_active_record(context, &model.class_name) || used.name == "id" {
            continue;
        }
        let attributes = nav.attributes(context, &model.class_name);
        if attributes.columns.is_empty() || attributes.knows(&used.name) {
            continue;
        }
        // `where(invited_by: user)` with an `invited_by_id` column: an association a gem's macro
        // declares (devise_invitable's, PaperTrail's `item`).
        if attributes.columns.iter().any(|c| c.strip_suffix("_id") == Some(used.name.as_str())) {
            continue;
        }
        if pending_names().contains(&used.name) || names_another_table_or_alias(used) {
            continue;
        }
        let consequence = "the query raises ActiveRecord::StatementInvalid when it runs".to_owned();
        out.push(unknown_column(&model.class_name, &used.name, &used.method, used.span, &consequence, &attributes));
    }
    for model in &file.models {
        if !is_active_record(context, &model.class_name) {
            continue;
        }
        let attributes = nav.attributes(context, &model.class_name);
        if attributes.columns.is_empty() || !attributes.closed {
            continue;
        }
        // `validates_acceptance_of :terms` (or `acceptance:`) defines the attribute it validates.
        let validations = model.validations.iter().filter(|v| {
            v.kind.starts_with("validates")
                && !matches!(v.kind.as_str(), "validates_with" | "validates_acceptance_of")
                && !v.options.iter().any(|(k, _)| k == "acceptance")
        });
        for validation in validations {
            for (name, span) in validation.attributes.iter().zip(&validation.attribute_spans) {
                if attributes.knows(name)
                    || name == "id"
                    || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    || pending_names().contains(name)
                {
                    continue;
                }
                let consequence = "validating it raises NoMethodError".to_owned();
                out.push(unknown_column(&model.class_name, name, &validation.kind, *span, &consequence, &attributes));
            }
        }
    }
    out
}

/// A name a query may take from elsewhere than the model's table: a joined table's column after
/// `joins(:tags)` (written unqualified), an alias `select("… AS n")` made, or the alias Rails gives a
/// grouped calculation (`group(:x).count` orders by `count_all`, `sum(:total)` by `sum_total`).
fn names_another_table_or_alias(used: &crate::rails::references::ColumnUse) -> bool {
    let chain = match &used.receiver {
        ColumnReceiver::Constant { chain, .. } | ColumnReceiver::OwnClass { chain } => chain.as_slice(),
        ColumnReceiver::Params(_) => return false,
    };
    const JOINS: &[&str] = &["joins", "left_joins", "left_outer_joins", "includes", "eager_load", "references"];
    let ordering = matches!(used.method.as_str(), "order" | "reorder" | "having" | "in_order_of");
    // A hash condition (`where(user_id: 1)`, `find_by`) is qualified with the model's own table, joins
    // or not; a bare name elsewhere (`pluck(:tag_id)`, `order(:position)`) is sent as written.
    let hash_condition = ["where", "rewhere", "find_by", "find_or_", "exists?", "create_with"].iter().any(|m| used.method.starts_with(m));
    (!hash_condition && chain.iter().any(|m| JOINS.contains(&m.as_str())))
        || (ordering && chain.iter().any(|m| matches!(m.as_str(), "select" | "group")))
        || (ordering && ["count_", "sum_", "average_", "maximum_", "minimum_"].iter().any(|operation| used.name.starts_with(operation)))
}

fn unknown_column(
    model: &str,
    name: &str,
    method: &str,
    span: Span,
    consequence: &str,
    attributes: &crate::app::nav::Attributes,
) -> Diagnostic {
    let names = attributes.columns.iter().map(String::as_str).chain(attributes.associations.iter().map(String::as_str));
    let suggestion = super::closest(name, names).map(crate::catalogue::suggestion).unwrap_or_default();
    finding(
        UNKNOWN_COLUMN,
        Severity::Warning,
        span,
        format!("{model} has no column, association or attribute `{name}`: `{method}` names it, and {consequence}.{suggestion}"),
    )
}

// ---- rails.pending-migration --------------------------------------------------------------------

/// Every name a pending migration's calls pass (`add_column :comments, :canonical_email, :string`):
/// the schema lacks them until it runs, and the pending migration is the one finding to make.
fn pending_names(context: &AppContext) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
    for file in context.files.iter().filter(|f| f.kind == Some(FileKind::Migration)) {
        if pending_migration(file, context).is_none() {
            continue;
        }
        names.extend(file.migration.iter().flat_map(|m| m.names.iter().cloned()));
    }
    names
}

/// A migration newer than the version the schema was dumped at: it has not run (or its dump was not
/// kept), so the schema the app and Roundhouse read lacks what it does.
fn pending_migration(file: &FileFacts, context: &AppContext) -> Option<Diagnostic> {
    if file.kind != Some(FileKind::Migration) || !file.relative_path.starts_with("db/migrate/") {
        return None;
    }
    let name = file.relative_path.rsplit('/').next()?;
    let version: String = name.chars().take_while(char::is_ascii_digit).collect();
    if version.len() < 14 || !name[version.len()..].starts_with('_') {
        return None;
    }
    let nav = context.nav();
    let schema_version = nav.schema_version.as_deref()?.replace('_', "");
    // Rails dumps the version as a migration's timestamp; anything else is no dump of a migrated app.
    if schema_version.len() < 14 || !schema_version.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let newer = (version.len(), version.as_str()) > (schema_version.len(), schema_version.as_str());
    if !newer {
        return None;
    }
    let schema_file = context
        .files
        .iter()
        .find(|f| f.relative_path == "db/schema.rb")
        .or_else(|| context.files.iter().find(|f| f.relative_path == "db/structure.sql"))?;
    let span = file.definitions.first().map(|d| d.name_span).unwrap_or_default();
    Some(finding(
        PENDING_MIGRATION,
        Severity::Warning,
        span,
        format!(
            "This migration ({version}) is newer than {}'s version ({schema_version}): it has not been run and dumped, so the schema Rails loads (and Roundhouse compiles) lacks it, and Rails raises ActiveRecord::PendingMigrationError in development. Run `bin/rails db:migrate`.",
            schema_file.relative_path
        ),
    ))
}

// ---- instance variables -------------------------------------------------------------------------

/// Receiver-less methods Rails gives a controller (and Ruby every object) that assign no instance
/// variable a template reads.
const CONTROLLER_METHODS: &[&str] = &[
    "action_name",
    "cookies",
    "controller_name",
    "controller_path",
    "expires_in",
    "expires_now",
    "flash",
    "format",
    "fresh_when",
    "head",
    "headers",
    "helpers",
    "logger",
    "params",
    "redirect_back",
    "redirect_back_or_to",
    "redirect_to",
    "render",
    "render_to_string",
    "request",
    "reset_session",
    "respond_to",
    "response",
    "send_data",
    "send_file",
    "session",
    "stale?",
    "t",
    "translate",
    "l",
    "localize",
    "url_for",
    "default_url_options",
    "raise",
    "loop",
    "lambda",
    "proc",
    "puts",
    "p",
    "pp",
    "require",
    "sleep",
    "rand",
    "block_given?",
    "yield",
    "super",
    "binding",
    "Integer",
    "Float",
    "String",
    "Array",
    "Hash",
    "format",
    "sprintf",
    "freeze",
    "dup",
    "tap",
    "then",
    "catch",
    "throw",
    "fail",
    "nil?",
    "present?",
    "blank?",
    "presence",
    "is_a?",
    "kind_of?",
    "respond_to?",
    "send",
    "public_send",
    "instance_of?",
    "authenticity_token",
    "form_authenticity_token",
    "verified_request?",
    "head?",
    "allow_browser",
    "http_basic_authenticate_or_request_with",
    "authenticate_or_request_with_http_basic",
    "authenticate_with_http_basic",
    "authenticate_or_request_with_http_token",
    "authenticate_with_http_token",
    "request_http_token_authentication",
    "redirect",
    "stream",
    "current_page?",
    "turbo_frame_request?",
    "turbo_native_app?",
    "turbo_stream",
];

/// Whether everything the actions rendering a template run (their bodies, their filters, and the
/// app's methods those call, transitively) calls only the app's own methods and Rails'. A method a
/// gem adds to every controller (`set_page_and_extract_portion_from` sets `@page`) makes it unknown.
fn calls_only_known_methods(context: &AppContext, actions: &[(String, String)]) -> bool {
    let nav = context.nav();
    let mut queue: Vec<(Arc<FileFacts>, Span)> = Vec::new();
    for (class, action) in actions {
        queue.extend(crate::app::nav::action_methods(context, class, action).into_iter().map(|(file, m)| (file, m.span)));
    }
    let mut seen: HashSet<(usize, usize, std::path::PathBuf)> = HashSet::new();
    while let Some((file, span)) = queue.pop() {
        if !seen.insert((span.start(), span.end(), file.path.clone())) {
            continue;
        }
        if seen.len() > 512 {
            return false;
        }
        for call in file.uses.calls.iter().filter(|c| span.start_byte <= c.span.start_byte && c.span.end_byte <= span.end_byte) {
            let defined = nav.methods_named(&call.name);
            if defined.is_empty() {
                if !CONTROLLER_METHODS.contains(&&*call.name) && !context.method_names.contains(&*call.name) {
                    return false;
                }
                continue;
            }
            queue.extend(defined.iter().map(|m| (Arc::clone(&m.file), m.span)));
        }
    }
    true
}

/// `rails.unset-instance-variable`: a template reads `@x` that no code of the app ever assigns, and
/// the actions that render it (with their filters and the app's methods they call) call nothing but
/// the app's methods and Rails': it is nil when the template renders.
fn unset_instance_variables(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let Some(template) = file.template.as_ref().filter(|t| !t.partial && !t.layout) else { return Vec::new() };
    if template.ivars_read.is_empty() {
        return Vec::new();
    }
    let nav = context.nav();
    // Assigned nowhere in the app (this file's newest copy included).
    let ivars = nav.ivars();
    let assigned = |name: &str| ivars.written.contains(name) || file.uses.ivars.iter().any(|u| u.write && &*u.name == name);
    let unset: Vec<&crate::rails::references::IvarUse> = file.uses.ivars.iter().filter(|u| !u.write && !assigned(&u.name)).collect();
    if unset.is_empty() || ivars.set_by_name {
        return Vec::new();
    }
    let actions = nav.template_actions(context, &template.logical_path);
    if actions.is_empty() || !calls_only_known_methods(context, &actions) {
        return Vec::new();
    }
    let names: Vec<String> = actions.iter().map(|(c, a)| format!("`{c}#{a}`")).collect();
    let mut reported = HashSet::new();
    let mut out = Vec::new();
    for read in unset {
        if !reported.insert(&*read.name) {
            continue;
        }
        out.push(finding(
            UNSET_INSTANCE_VARIABLE,
            Severity::Warning,
            read.span,
            format!(
                "`{}` is read here, but no code of the app assigns it, and what renders this template ({}, its filters and the methods they call) runs only the app's code and Rails': it is nil when the template renders.",
                read.name,
                names.join(", ")
            ),
        ));
    }
    out
}

/// `rails.unused-instance-variable` (info): an action assigns `@x` and renders its template
/// implicitly, and no code of the app reads `@x` anywhere: not that template, its partials, a layout,
/// a helper, nor any other code.
fn unused_instance_variables(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if file.controllers.is_empty() {
        return Vec::new();
    }
    let nav = context.nav();
    let read = &nav.ivars().read;
    let mut out = Vec::new();
    for controller in &file.controllers {
        let Some(folder) = crate::app::nav::controller_path(&controller.class_name) else { continue };
        for (action, calls) in &controller.action_calls {
            let Some(method) = controller.actions.iter().find(|a| &a.name == action) else { continue };
            if calls.iter().any(|c| super::RESPONDERS.contains(&c.as_str()) || c == "render_to_string") {
                continue;
            }
            let path = format!("{folder}/{action}");
            if reads_when_rendering(context, nav, &path).is_none() {
                continue;
            }
            let mut reported = HashSet::new();
            // `@x ||= …` reads it first (another action may have set it before rendering this one).
            let writes = file.uses.ivars.iter().filter(|u| {
                u.write && !u.compound && method.span.start_byte <= u.span.start_byte && u.span.end_byte <= method.span.end_byte
            });
            for write in writes {
                if read.contains(&*write.name) || !reported.insert(&*write.name) {
                    continue;
                }
                out.push(finding(
                    UNUSED_INSTANCE_VARIABLE,
                    Severity::Info,
                    write.span,
                    format!(
                        "`{}` is set here and rendered with `{path}`, but no code of the app reads it: not the template, its partials, a layout, a helper or the controller.",
                        write.name
                    ),
                ));
            }
        }
    }
    out
}

/// Whether rendering the template at `path` is all in the app's parsed files: its files exist and are
/// parsed (not Slim or RABL), and every `render` in them and the partials they render names its
/// partial literally. `None` when not.
fn reads_when_rendering(context: &AppContext, nav: &Nav, path: &str) -> Option<()> {
    if nav.template_files(path).is_empty() {
        return None;
    }
    let mut queue = vec![path.to_owned()];
    let mut seen = HashSet::new();
    while let Some(current) = queue.pop() {
        if !seen.insert(current.clone()) || seen.len() > 256 {
            continue;
        }
        for template in nav.template_files(&current) {
            if template.language == crate::syntax::Language::OtherTemplate {
                return None;
            }
            for render in &template.render_calls {
                queue.push(nav.render_path(context, template, render)?);
            }
        }
    }
    Some(())
}

// ---- rails.partial-locals -----------------------------------------------------------------------

/// A `render` of a partial that declares its locals (`<%# locals: (post:) -%>`) without a required
/// one, or with one it does not declare: Rails raises ArgumentError when it renders.
fn partial_locals(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let nav = context.nav();
    let mut out = Vec::new();
    for render in &file.render_calls {
        if !render.locals_known {
            continue;
        }
        let Some(path) = nav.render_path(context, file, render) else { continue };
        if !path.rsplit('/').next().is_some_and(|base| base.starts_with('_')) {
            continue;
        }
        let targets = nav.template_files(&path);
        // Every format of the partial must declare the same locals for a finding to hold.
        let declared: Vec<&crate::rails::StrictLocals> =
            targets.iter().filter_map(|t| t.template.as_ref()?.strict_locals.as_ref()).collect();
        let Some(strict) = declared.first().copied() else { continue };
        if declared.len() != targets.len() || declared.iter().any(|d| d.required != strict.required || d.any != strict.any) {
            continue;
        }
        let mut passed: Vec<String> = render.locals.clone();
        // In a view, `render "name", collection: items` is `render(partial: "name", locals: {…})`:
        // every key after the name is a local, `collection` too.
        let name_first =
            file.kind == Some(crate::rails::project::FileKind::View) && render.named.as_ref().is_some_and(|(key, _)| key.is_empty());
        if name_first {
            passed.extend(render.options.iter().cloned());
        }
        let implied = render.as_local.clone().filter(|_| !name_first).or_else(|| {
            (render.object.is_some() || (!name_first && render.options.iter().any(|o| o == "object" || o == "collection")))
                .then(|| path.rsplit('/').next().unwrap_or("").trim_start_matches('_').to_owned())
        });
        passed.extend(implied.clone());
        let span = render.target_span.unwrap_or(render.span);
        let missing: Vec<&String> = strict.required.iter().filter(|r| !passed.contains(r)).collect();
        if !missing.is_empty() {
            let list: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
            out.push(finding(
                PARTIAL_LOCALS,
                Severity::Warning,
                span,
                format!(
                    "`{path}` requires {} (its `locals:` comment), which this render does not pass: Rails raises ArgumentError (missing local) when it renders.",
                    list.join(", ")
                ),
            ));
        }
        // A collection also passes `<name>_counter` and `<name>_iteration`: only what is missing is checked.
        if strict.any || render.collection || render.options.iter().any(|o| o == "collection") {
            continue;
        }
        let unknown: Vec<&String> = render.locals.iter().filter(|l| !strict.declares(l)).collect();
        if !unknown.is_empty() {
            let list: Vec<String> = unknown.iter().map(|m| format!("`{m}`")).collect();
            out.push(finding(
                PARTIAL_LOCALS,
                Severity::Warning,
                span,
                format!(
                    "`{path}` does not declare {} in its `locals:` comment, and this render passes it: Rails raises ArgumentError (unknown local) when it renders.",
                    list.join(", ")
                ),
            ));
        }
    }
    out
}

// ---- rails.missing-translation ------------------------------------------------------------------

/// Key namespaces that Rails and common gems translate themselves: a key under them may be defined
/// outside the app.
const FRAMEWORK_NAMESPACES: &[&str] = &[
    "activerecord",
    "activemodel",
    "errors",
    "helpers",
    "number",
    "date",
    "time",
    "datetime",
    "support",
    "i18n",
    "views",
    "devise",
    "kaminari",
    "pagy",
    "simple_form",
    "will_paginate",
    "flash",
    "faker",
    "ransack",
    "doorkeeper",
    "action_text",
    "active_storage",
];

/// `t("posts.index.titel")` or `t(".titel")`: a literal key (no `default:`) that the default
/// locale's YAML does not have, in an app whose translations are all in its YAML files.
fn missing_translations(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if file.uses.translations.is_empty() {
        return Vec::new();
    }
    let nav = context.nav();
    let locale = nav.default_locale.as_str();
    if !nav.translations_complete || !nav.locales.contains(locale) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for translation in file.uses.translations.iter().filter(|t| !t.has_default) {
        let keys = nav.translation_keys(context, file, translation);
        let Some(key) = keys.first() else { continue };
        let first = key.split('.').next().unwrap_or("");
        if FRAMEWORK_NAMESPACES.contains(&first)
            || keys.iter().any(|k| k.contains("..") || k.ends_with('.') || nav.translation_open(locale, k))
        {
            continue;
        }
        // An absolute key in a namespace the app does not translate, or one named after a gem of the
        // bundle (`active_admin.dashboard` with ActiveAdmin), may be the gem's.
        if !translation.key.starts_with('.') && (!nav.has_translation(locale, first) || context.reading.names_gem(first)) {
            continue;
        }
        // `render "fields" do … t(".hint") … end`: the block runs while the partial renders, and its
        // lazy keys are the partial's. (A component's block, `render Dialog.new do`, is the caller's.)
        let in_render_block = |t: &crate::rails::references::Translation| {
            file.render_calls
                .iter()
                .filter(|r| r.named.is_some() || r.layout.is_some())
                .filter_map(|r| r.block_span)
                .any(|b| b.start_byte <= t.span.start_byte && t.span.end_byte <= b.end_byte)
        };
        if translation.key.starts_with('.') && in_render_block(translation) {
            continue;
        }
        if keys.iter().any(|k| nav.has_translation(locale, k)) {
            continue;
        }
        // A sibling key of the same scope (`posts.index.title` for `posts.index.titel`): the scope's
        // keys only, not the locale's thousands.
        let scope = key.rsplit_once('.').map_or("", |(scope, _)| scope);
        let siblings = nav.keys_under(locale, scope).filter(|k| k.rsplit_once('.').map_or("", |(s, _)| s) == scope);
        let suggestion = super::closest(key, siblings).map(crate::catalogue::suggestion).unwrap_or_default();
        out.push(finding(
            MISSING_TRANSLATION,
            Severity::Warning,
            translation.span,
            format!(
                "No `{locale}` translation for `{key}` in config/locales: the page shows \"Translation missing: {locale}.{key}\" (or raises, with `raise_on_missing_translations`).{suggestion}"
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use crate::app::AppContext;
    use crate::test_fixture::Fixture;

    /// The navigation checks' findings of every file, `file:line rule message`, sorted.
    fn check(fixture: &str, expect: Expect) {
        let fixture = Fixture::new(fixture);
        let context = AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot());
        let mut lines: Vec<String> = context
            .files
            .iter()
            .flat_map(|file| {
                super::check(file, &context)
                    .into_iter()
                    .map(move |d| format!("{}:{} {} {}", file.relative_path, d.span.start.line + 1, d.rule, d.message))
            })
            .collect();
        lines.sort();
        expect.assert_eq(&lines.join("\n"));
    }

    const SCHEMA: &str = r#"
        #- /db/schema.rb
        ActiveRecord::Schema[8.0].define(version: 2025_01_01_000000) do
          create_table "posts" do |t|
            t.string "title"
            t.integer "position"
            t.references "author"
          end
          create_table "items" do |t|
            t.integer "position"
            t.references "post"
          end
        end
        #- /app/models/application_record.rb
        class ApplicationRecord < ActiveRecord::Base
          primary_abstract_class
        end
        #- /app/models/item.rb
        class Item < ApplicationRecord
        end
    "#;

    #[test]
    fn unknown_columns_in_queries_and_validations_but_not_binds_migrations_or_permits() {
        check(
            &format!(
                "{SCHEMA}{}",
                r#"
        #- /app/models/post.rb
        class Post < ApplicationRecord
          belongs_to :author
          has_many :items, -> { order(:position) }
          validates :titel, presence: true
          scope :ranked, -> { where(author: nil).order(:postion) }
          scope :bound, -> { where("title = :limit", limit: 3) }
          scope :recent, -> { where.not(titl: nil) }
          has_many :tallies, -> { group(:post_id).select("count(*) as times").order(times: :desc) }, class_name: "Item"
          belongs_to :editor, optional: -> { where.not(editor_id: nil) }
        end
        #- /app/controllers/posts_controller.rb
        class PostsController < ApplicationController
          def index
            @posts = Post.where(title: params[:q]).pluck(:titel)
          end
          def post_params
            params.require(:post).permit(:title, :subtitle)
          end
        end
        #- /db/migrate/20240101000000_backfill.rb
        class Backfill < ActiveRecord::Migration[8.0]
          def up
            Post.where(legacy: true).update_all(title: "x")
          end
        end
        "#
            ),
            expect![[r#"
                app/controllers/posts_controller.rb:3 rails.unknown-column Post has no column, association or attribute `titel`: `pluck` names it, and the query raises ActiveRecord::StatementInvalid when it runs. Did you mean `title`?
                app/models/post.rb:4 rails.unknown-column Post has no column, association or attribute `titel`: `validates` names it, and validating it raises NoMethodError. Did you mean `title`?
                app/models/post.rb:5 rails.unknown-column Post has no column, association or attribute `postion`: `order` names it, and the query raises ActiveRecord::StatementInvalid when it runs. Did you mean `position`?
                app/models/post.rb:7 rails.unknown-column Post has no column, association or attribute `titl`: `where.not` names it, and the query raises ActiveRecord::StatementInvalid when it runs. Did you mean `title`?"#]],
        );
    }

    #[test]
    fn a_gem_macro_or_a_computed_table_leaves_a_model_unjudged() {
        check(
            &format!(
                "{SCHEMA}{}",
                r##"
        #- /app/models/post.rb
        class Post < ApplicationRecord
          monetize :price_cents
          validates :price, presence: true
        end
        #- /app/models/legacy.rb
        class Legacy < ApplicationRecord
          self.table_name = "#{PREFIX}posts"
          scope :x, -> { order(:anything) }
        end
        "##
            ),
            expect![""],
        );
    }

    #[test]
    fn a_pending_migration_against_a_dumped_schema() {
        check(
            &format!(
                "{SCHEMA}{}",
                r#"
        #- /db/migrate/20241231000000_done.rb
        class Done < ActiveRecord::Migration[8.0]
        end
        #- /db/migrate/20250102000000_add_slug.rb
        class AddSlug < ActiveRecord::Migration[8.0]
        end
        "#
            ),
            expect![[
                r#"db/migrate/20250102000000_add_slug.rb:1 rails.pending-migration This migration (20250102000000) is newer than db/schema.rb's version (20250101000000): it has not been run and dumped, so the schema Rails loads (and Roundhouse compiles) lacks it, and Rails raises ActiveRecord::PendingMigrationError in development. Run `bin/rails db:migrate`."#
            ]],
        );
    }

    const CONTROLLERS: &str = r#"
        #- /app/controllers/application_controller.rb
        class ApplicationController < ActionController::Base
        end
        #- /app/controllers/posts_controller.rb
        class PostsController < ApplicationController
          before_action :set_post, only: :show
          def index
            @pair, @other = [1, 2]
            @cache ||= {}
          end
          def show
            @unused = 1
          end
          def feed
            set_page_and_extract_portion_from Post.all
          end
          private
          def set_post
            @post = Post.find(params[:id])
          end
        end
        #- /app/views/posts/index.html.erb
        <%= @pair %> <%= @other %> <%= @missing %>
        #- /app/views/posts/show.html.erb
        <%= @post.title %>
        #- /app/views/posts/feed.html.erb
        <%= @page.records.size %>
    "#;

    #[test]
    fn instance_variables_unset_and_unused() {
        // `@page` is set by a gem's method the action calls: not judged. `@cache ||=` reads itself.
        check(
            CONTROLLERS,
            expect![[r#"
                app/controllers/posts_controller.rb:8 rails.unused-instance-variable `@unused` is set here and rendered with `posts/show`, but no code of the app reads it: not the template, its partials, a layout, a helper or the controller.
                app/views/posts/index.html.erb:1 rails.unset-instance-variable `@missing` is read here, but no code of the app assigns it, and what renders this template (`PostsController#index`, its filters and the methods they call) runs only the app's code and Rails': it is nil when the template renders."#]],
        );
    }

    #[test]
    fn strict_locals_of_a_partial() {
        check(
            r#"
        #- /app/views/posts/_card.html.erb
        <%# locals: (post:, compact: false) -%>
        #- /app/views/posts/_any.html.erb
        <%# locals: (post:, **attributes) -%>
        #- /app/views/posts/index.html.erb
        <%= render "card", post: @post %>
        <%= render "card", compact: true %>
        <%= render "card", post: @post, size: 2 %>
        <%= render @post, compact: true %>
        <%= render partial: "card", collection: @posts, as: :post %>
        <%= render "any", post: @post, anything: 1 %>
        <%= render "card", **options %>
        "#,
            expect![[r#"
                app/views/posts/index.html.erb:2 rails.partial-locals `posts/_card` requires `post` (its `locals:` comment), which this render does not pass: Rails raises ArgumentError (missing local) when it renders.
                app/views/posts/index.html.erb:3 rails.partial-locals `posts/_card` does not declare `size` in its `locals:` comment, and this render passes it: Rails raises ArgumentError (unknown local) when it renders."#]],
        );
    }

    #[test]
    fn missing_translations_as_rails_looks_them_up() {
        check(
            r#"
        #- /config/locales/en.yml
        en:
          posts:
            index:
              title: "Posts"
            box:
              heading: "In the box"
            greeting: "Hi"
          activerecord:
            models:
              post: "Post"
        #- /app/views/posts/index.html.erb
        <%= t(".title") %> <%= t(".titel") %> <%= t(".x", default: "X") %>
        <%= t("posts.index.title") %> <%= t("devise.failure.unauthenticated") %> <%= t("activerecord.models.user") %>
        <%= render layout: "box", locals: { title: t(".title") } do %><%= t(".heading") %><% end %>
        #- /app/views/posts/_box.html.erb
        <%= yield %>
        #- /app/controllers/posts_controller.rb
        class PostsController < ApplicationController
          def create
            redirect_to root_path, notice: t(".greeting")
          end
          def update
            redirect_to root_path, notice: t(".saved")
          end
        end
        "#,
            expect![[r#"
                app/controllers/posts_controller.rb:6 rails.missing-translation No `en` translation for `posts.update.saved` in config/locales: the page shows "Translation missing: en.posts.update.saved" (or raises, with `raise_on_missing_translations`).
                app/views/posts/index.html.erb:1 rails.missing-translation No `en` translation for `posts.index.titel` in config/locales: the page shows "Translation missing: en.posts.index.titel" (or raises, with `raise_on_missing_translations`). Did you mean `posts.index.title`?"#]],
        );
    }
}

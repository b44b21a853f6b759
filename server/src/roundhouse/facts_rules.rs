//! Rules read from a file's facts (no query needed): model, controller, view, initializer, JVM and
//! Spinel rules of `shared/spec/rules.md`. Each diagnostic sits on the construct's own span.

use crate::diagnostic::Diagnostic;
use crate::rails::FileFacts;
use crate::rails::project::FileKind;
use crate::syntax::Span;
use crate::syntax::value::Value;

/// `has_many :tags, through: :taggings` and the model's own `scope :x, -> { includes(:y) }` must name
/// one of its associations. A model that includes a module or inherits from another model may get
/// associations from there: it is left alone.
fn unknown_associations(model: &crate::rails::model::Model, out: &mut Vec<Diagnostic>) {
    static LOADS: std::sync::LazyLock<regex_lite::Regex> = std::sync::LazyLock::new(|| {
        regex_lite::Regex::new(r"\b(includes|preload|eager_load|joins|left_joins|left_outer_joins)\(\s*(:\w+(?:\s*,\s*:\w+)*)\s*\)")
            .unwrap()
    });
    if !model.declares_all_associations() {
        return;
    }
    let known = |name: &str| model.has_association(name);
    let closest = |name: &str| {
        let names: Vec<&str> = model.associations.iter().map(|a| a.name.as_str()).collect();
        names
            .iter()
            .find(|n| n.trim_end_matches('s') == name.trim_end_matches('s'))
            .map(|n| crate::catalogue::suggestion(&format!(":{n}")))
            .unwrap_or_default()
    };
    for association in &model.associations {
        let Some(through) = association.options.iter().find(|(k, _)| k == "through").and_then(|(_, v)| v.as_name()) else { continue };
        if !known(through) {
            push(
                out,
                rule!("rails.unknown-association"),
                association.span,
                format!(
                    "`{} :{}` goes through `:{through}`, which {} does not declare: Rails raises HasManyThroughAssociationNotFoundError.{}",
                    association.kind,
                    association.name,
                    model.class_name,
                    closest(through)
                ),
            );
        }
    }
    for scope in &model.scopes {
        for call in LOADS.captures_iter(&scope.body) {
            for name in call[2].split(',').map(|n| n.trim().trim_start_matches(':')) {
                if !known(name) {
                    push(
                        out,
                        rule!("rails.unknown-association"),
                        scope.span,
                        format!(
                            "`{}(:{name})` in scope `{}` names no association of {}: Rails raises AssociationNotFoundError.{}",
                            &call[1],
                            scope.name,
                            model.class_name,
                            closest(name)
                        ),
                    );
                }
            }
        }
    }
}

pub const MIGRATION_VERB: crate::diagnostic::RuleId = rule!("schema.migration-verb");

fn push(out: &mut Vec<Diagnostic>, rule: crate::diagnostic::RuleId, span: Span, message: String) {
    out.push(crate::diagnostic::Diagnostic::finding(rule, span, message));
}

const CONTROLLER_MACROS_DROPPED: &[&str] = &[
    "rescue_from",
    "protect_from_forgery",
    "skip_forgery_protection",
    "allow_browser",
    "caches_page",
    "prepend_before_action",
    "skip_after_action",
    "before_filter",
];

/// Column types Roundhouse maps; any other drops the column from the model.
pub const KNOWN_COLUMN_TYPES: &[&str] = &[
    "string",
    "text",
    "integer",
    "bigint",
    "float",
    "decimal",
    "numeric",
    "datetime",
    "timestamp",
    "date",
    "time",
    "binary",
    "blob",
    "boolean",
    "json",
];

/// `text` with what is inside strings, brackets and braces blanked (nested option keys are not the
/// call's own).
/// Why the compiler leaves `call` (`turbo_stream.replace`, `…_all`, `…morph`), followed on its line by
/// `rest`, as written when it has no options and no `{ … }` block: it lowers a `do … end` block only
/// on the six basic actions and with the target alone, and the positional form only as `remove
/// target` or `action target, content` where the content is a variable holding a record (whose
/// partial it renders). Measured (fixture `views-turbo-stream-forms`).
fn turbo_stream_positional_unread(call: &str, rest: &str) -> Option<String> {
    static DO_BLOCK: std::sync::LazyLock<regex_lite::Regex> =
        std::sync::LazyLock::new(|| regex_lite::Regex::new(r#"\bdo\s*(\|[^|]*\|\s*)?$"#).unwrap());
    let action = call.trim_start_matches("turbo_stream.");
    let block = DO_BLOCK.is_match(rest.trim_end());
    let arguments = rest.trim_start().strip_prefix('(').map_or(rest, |inner| inner.rsplit_once(')').map_or(inner, |(args, _)| args));
    let arguments = DO_BLOCK.replace(arguments.trim_end(), "");
    // A call that goes on to the next line is not all here.
    let arguments = arguments.trim_end();
    let top_level = outside_brackets(arguments);
    if arguments.ends_with([',', '(', '[', '{', '\\'])
        || top_level.chars().filter(|&c| c == '(').count() != top_level.chars().filter(|&c| c == ')').count()
    {
        return None;
    }
    let parts = crate::syntax::split_arguments(arguments);
    let basic = matches!(action, "append" | "prepend" | "replace" | "update" | "before" | "after");
    let plain_variable = |part: &str| {
        let name = part.trim().trim_start_matches('@');
        !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit() || c.is_uppercase())
    };
    let unread = match (block, parts.as_slice()) {
        (true, _) if !basic => {
            "a `do … end` block is read only on the six basic actions (`append`, `prepend`, `replace`, `update`, `before`, `after`)"
        }
        (true, [_]) => return None,
        (true, _) => "a `do … end` block is read only with the target alone",
        (false, _) if !basic && action != "remove" => "only the six basic actions and `remove` are lowered",
        (false, [_]) if action == "remove" => return None,
        (false, [_]) => "a target alone is lowered only for `remove` (Rails renders the record's partial here)",
        (false, [_, content]) if action != "remove" && plain_variable(content) => return None,
        (false, [_, _]) => "the content is rendered only when it is a variable holding a record (its partial)",
        _ => return None,
    };
    Some(format!(
        "Roundhouse leaves `{call}` as written ({unread}), so this template will not render. Instead, render a partial by name: `turbo_stream.{}(target, partial: \"…\", locals: {{ … }})`, or pass a record held in a variable (`turbo_stream.replace @post, @post`).",
        if basic { action } else { "replace" }
    ))
}

fn outside_brackets(text: &str) -> String {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    text.chars()
        .map(|c| match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                c
            }
            (Some(_), _) => ' ',
            (None, '"' | '\'') => {
                quote = Some(c);
                c
            }
            (None, '{' | '[') => {
                depth += 1;
                c
            }
            (None, '}' | ']') => {
                depth = depth.saturating_sub(1);
                c
            }
            (None, c) if depth > 0 => {
                let _ = c;
                ' '
            }
            (None, c) => c,
        })
        .collect()
}

fn span_at(facts: &FileFacts, start: usize, len: usize) -> Span {
    facts.line_index.span(start..start + len)
}

pub fn check(facts: &FileFacts, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let file_start = Span::default();
    if let Some(schema) = &facts.schema {
        for table in &schema.tables {
            for column in table.columns.iter().filter(|c| !KNOWN_COLUMN_TYPES.contains(&c.column_type.as_str())) {
                push(
                    &mut out,
                    rule!("schema.unknown-column-type"),
                    column.span,
                    format!(
                        "Roundhouse drops `{}.{}` ({}) from the model: the type has no mapping.",
                        table.name, column.name, column.column_type
                    ),
                );
            }
        }
    }
    // The array-valued keys of a permit list: the `<X>Params` record Roundhouse synthesizes from the
    // list has string fields only.
    for permit in &facts.permits {
        for (key, span) in &permit.dropped {
            push(
                &mut out,
                rule!("controller.permit-key-dropped"),
                *span,
                format!(
                    "Roundhouse drops `{key}` from the permitted parameters of `{}`: the `{}Params` record it writes for them holds string fields only, so an array-valued key is left out and the compiled app never assigns `{key}` (every target). Instead, assign it from `params` yourself (`record.{key} = params[:{}][:{key}]`), or leave it out knowingly.",
                    permit.resource,
                    crate::rails::inflect::camelize(&permit.resource),
                    permit.resource
                ),
            );
        }
    }
    // A list with nothing but array-valued keys: the `<X>Params` record has no field, and its `[]`
    // is a `case` with no `when`, which is not Ruby.
    for permit in facts.permits.iter().filter(|p| p.fields.is_empty()) {
        let Some((_, span)) = permit.dropped.first() else { continue };
        push(
            &mut out,
            rule!("controller.params-class-not-ruby"),
            *span,
            format!(
                "Roundhouse writes a params record for this `{}` permit list (a `…Params` class under `app/models`) with no field, since every key is array-valued and it keeps string fields only: its `[]` method is a `case` with no `when`, which is not Ruby. The emitted file does not parse, and the compiled app requires it at boot, so it does not start (every tree). Instead, permit at least one scalar field in this list, or read the array-valued keys from `params` yourself without a permit list.",
                permit.resource
            ),
        );
    }
    // A permitted key that is no Ruby name (`:"published_at(3i)"`, a date_select's part): the params
    // record gets an instance variable and a reader under it.
    for permit in &facts.permits {
        let Some(key) = permit.fields.iter().find(|f| !is_ruby_name(f)) else { continue };
        push(
            &mut out,
            rule!("controller.params-class-not-ruby"),
            permit.at,
            format!(
                "Roundhouse writes a params record for this `{}` permit list (a `…Params` class under `app/models`) with an instance variable and a reader for each key: `{key}` gives `@{key}_provided`, which is not Ruby. The emitted file does not parse, and the compiled app requires it at boot, so it does not start (every tree). Instead, permit only keys that are Ruby names (for a date, `:{}` sent whole, from a `date_field`), and read any other from `params` yourself.",
                permit.resource,
                key.split('(').next().unwrap_or(key)
            ),
        );
    }
    // A class another library persists (a Mongoid document): Roundhouse compiles it as a plain class.
    if facts.relative_path.starts_with("app/models/") {
        for namespace in facts.outline.namespaces().into_iter().filter(|ns| ns.kind == crate::syntax::outline::NamespaceKind::Class) {
            if let Some((library, span)) = crate::rails::model::document_mapper(namespace) {
                push(&mut out, rule!("model.document-not-compiled"), span, document_message(namespace, library));
            }
        }
    }
    // The outline of each Active Record model class: its methods' parameters.
    let bodies = super::ingest::bodies(facts);
    for namespace in facts.outline.namespaces() {
        if namespace.kind == crate::syntax::outline::NamespaceKind::Class
            && bodies.get(&namespace.span.start()) == Some(&super::ingest::Body::Library)
        {
            if let Some((span, message)) = delegate_forwarders_lost(namespace, text) {
                push(&mut out, rule!("library.delegates-lost"), span, message);
            }
            for (span, message) in delegates_dropped(namespace, text) {
                push(&mut out, rule!("library.class-body-call-dropped"), span, message);
            }
        }
    }
    for namespace in facts.outline.namespaces() {
        // The class Roundhouse reads as this file's model (its other classes are not read).
        let is_model = bodies.get(&namespace.span.start()) == Some(&super::ingest::Body::Full) && facts.kind == Some(FileKind::Model);
        for item in &namespace.items {
            match item {
                // Roundhouse drops a model method's `*`, `**` and `&` parameters: that changes nothing
                // for an anonymous one (a block still yields), but breaks a body that uses the name.
                crate::syntax::outline::Item::Method(def) if is_model => {
                    for parameter in &def.collecting_read {
                        let name = parameter.trim_start_matches(['*', '&']);
                        push(
                            &mut out,
                            rule!("model.method-parameters-dropped"),
                            def.span,
                            format!(
                                "Roundhouse drops the `{parameter}` parameter of `{}` (a model method keeps only its plain and keyword parameters), so `{name}` is undefined in the compiled method. Instead, take the values as plain parameters (`def {}(items)`).",
                                def.name, def.name
                            ),
                        );
                    }
                }
                _ => {}
            }
        }
    }
    if facts.template.as_ref().is_some_and(|t| t.handler == "erb") {
        if text.contains("\r\n") {
            push(
                &mut out,
                rule!("views.crlf-template"),
                file_start,
                "This template has CRLF line ends: Roundhouse keeps the `\r` in its output, Rails drops it.".to_owned(),
            );
        }
        for (at, literal) in text.match_indices("<%%").map(|(i, _)| (i, "<%%")).chain(text.match_indices("=%>").map(|(i, _)| (i, "=%>"))) {
            push(
                &mut out,
                rule!("views.literal-tag"),
                span_at(facts, at, 3),
                format!("Roundhouse compiles `{literal}` as code (Rails treats it as literal text): text is lost or swallowed."),
            );
        }
    }
    // Text searches, skipping comment lines.
    let code_lines = || text.lines().enumerate().filter(|(_, l)| !l.trim_start().starts_with('#'));
    let line_span = |line: usize, col: usize, len: usize| {
        let start = facts.line_index.offset(crate::syntax::LineCol { line: line as u32, col: col as u32 }).unwrap_or(0);
        span_at(facts, start, len)
    };
    for (verb, span) in facts.migration.iter().flat_map(|m| &m.unfoldable) {
        push(
            &mut out,
            MIGRATION_VERB,
            *span,
            format!(
                "Without db/schema.rb Roundhouse reads the schema from db/migrate, and it cannot fold `{verb}`: the compile stops. Run `bin/rails db:migrate` and commit db/schema.rb."
            ),
        );
    }
    if facts.template.as_ref().is_some_and(|t| t.handler == "haml") {
        static FILTER: std::sync::LazyLock<regex_lite::Regex> =
            std::sync::LazyLock::new(|| regex_lite::Regex::new(r"^\s*:([a-z_]+)\s*$").unwrap());
        static CLASS_MERGE: std::sync::LazyLock<regex_lite::Regex> = std::sync::LazyLock::new(|| {
            regex_lite::Regex::new(r#"^\s*(%[\w-]+)?(\.[\w-]+)+(#[\w-]+)?\{[^}]*(\bclass:|:class\s*=>|["']class["']\s*=>)"#).unwrap()
        });
        for (i, line) in text.lines().enumerate() {
            if let Some(name) = FILTER.captures(line).and_then(|c| c.get(1)).filter(|n| n.as_str() != "ruby") {
                push(
                    &mut out,
                    rule!("views.haml-filter"),
                    line_span(i, name.start() - 1, name.len() + 1),
                    format!("Roundhouse's HAML reader supports only the `:ruby` filter: the `:{}` block is not compiled.", name.as_str()),
                );
            }
            if let Some(tag) = CLASS_MERGE.find(line) {
                let start = line.len() - line.trim_start().len();
                push(
                    &mut out,
                    rule!("views.haml-class-merge"),
                    line_span(i, start, tag.end() - start),
                    "Roundhouse does not merge a `.class` shortcut with a `class:` attribute: one of the two classes is lost. Put every class in the attribute hash.".to_owned(),
                );
            }
        }
    }
    if facts.kind == Some(FileKind::View) || facts.kind == Some(FileKind::Controller) {
        // Measured: `partial:` (with `locals:`) and the `do … end` block are read on the six actions;
        // any other option, the `_all` actions' options and a `{ … }` block are not.
        static TURBO_STREAM: std::sync::LazyLock<regex_lite::Regex> = std::sync::LazyLock::new(|| {
            regex_lite::Regex::new(r#"turbo_stream\.(append|prepend|replace|update|before|after|morph|remove)(_all)?\b"#).unwrap()
        });
        static BRACE_BLOCK: std::sync::LazyLock<regex_lite::Regex> =
            std::sync::LazyLock::new(|| regex_lite::Regex::new(r#"^\s*\{|[)"']\s*\{"#).unwrap());
        static OPTION: std::sync::LazyLock<regex_lite::Regex> =
            std::sync::LazyLock::new(|| regex_lite::Regex::new(r#"(?:^|[,(\s])(\w+):\s"#).unwrap());
        // `regex-lite` scans each position; the literal finds the few lines worth its time.
        for (i, line) in code_lines().filter(|(_, l)| l.contains("turbo_stream.")) {
            for found in TURBO_STREAM.find_iter(line) {
                let rest = &line[found.end()..];
                // The call's own text: up to a closing `%>` or the end of the line.
                let rest = rest.split("%>").next().unwrap_or(rest);
                let top_level = outside_brackets(rest);
                let options: Vec<&str> = OPTION.captures_iter(&top_level).filter_map(|c| c.get(1)).map(|m| m.as_str()).collect();
                // A `{` right after the call or its last argument opens a block (a hash argument's
                // follows a `key:`).
                let brace_block = BRACE_BLOCK.is_match(rest);
                let all = found.as_str().ends_with("_all");
                let unread: Vec<&str> = options.iter().copied().filter(|o| all || !matches!(*o, "partial" | "locals")).collect();
                let message = if brace_block {
                    format!(
                        "Roundhouse drops `{}` with a `{{ … }}` block from the compiled template: it contributes nothing. Instead, use a `do … end` block or `partial:`.",
                        found.as_str()
                    )
                } else if let Some(option) = unread.first() {
                    format!(
                        "Roundhouse leaves `{}` with `{option}:` as written: it reads only `partial:` (and `locals:`) or a `do … end` block on the six basic actions, so this template will not render. Instead, render the partial: `{}(target, partial: \"…\", locals: {{ … }})`.",
                        found.as_str(),
                        found.as_str().trim_end_matches("_all")
                    )
                } else if let Some(why) = turbo_stream_positional_unread(found.as_str(), rest)
                    .filter(|_| options.is_empty() && facts.kind == Some(FileKind::View))
                {
                    why
                } else {
                    continue;
                };
                push(&mut out, rule!("views.turbo-stream-option-form"), line_span(i, found.start(), found.len()), message);
            }
        }
    }
    // Each model's class-body statements as Roundhouse lowers them (`lowering`): the one place that
    // decides what happens to a validation, an association, a callback or a macro.
    for model in &facts.models {
        if bodies.get(&model.span.start()) == Some(&super::ingest::Body::Full) {
            out.extend(super::lowering::findings(model));
            unknown_associations(model, &mut out);
        }
    }
    for controller in &facts.controllers {
        for filter in controller.filters.iter().filter(|f| f.kind == "after_action" || f.kind == "around_action") {
            push(
                &mut out,
                rule!("controller.after-around-filter"),
                filter.span,
                format!("Roundhouse never applies `{}` in the emitted dispatch: {} does not run.", filter.kind, filter.targets.join(", ")),
            );
        }
        for filter in controller.filters.iter().filter(|f| CONTROLLER_MACROS_DROPPED.contains(&f.kind.as_str())) {
            if filter.kind == "skip_after_action" {
                // Dropped, but what it skips never runs in the compiled app: nothing changes.
                let message = "Roundhouse drops `skip_after_action`, which changes nothing: it never runs an `after_action` at all.";
                let mut finding =
                    crate::diagnostic::Diagnostic::finding(rule!("controller.macro-dropped"), filter.span, message.to_owned());
                finding.severity = crate::diagnostic::Severity::Info;
                out.push(finding);
                continue;
            }
            push(&mut out, rule!("controller.macro-dropped"), filter.span, format!("Roundhouse drops `{}` in a controller.", filter.kind));
        }
        for call in controller.macros.iter().filter(|c| CONTROLLER_MACROS_DROPPED.contains(&c.name.as_str())) {
            push(
                &mut out,
                rule!("controller.macro-dropped"),
                call.span,
                format!("Roundhouse drops `{}` in a controller: its effect is lost.", call.name),
            );
        }
    }
    if let Some(template) = &facts.template {
        if matches!(template.handler.as_str(), "slim" | "ruby" | "builder" | "rabl") {
            push(
                &mut out,
                rule!("views.template-engine"),
                file_start,
                format!("Roundhouse does not read `.{}` templates: this view has no emitted template.", template.handler),
            );
        } else if let Some(format) = template.format.as_deref().filter(|f| !matches!(*f, "html" | "turbo_stream" | "svg"))
            && template.handler != "jbuilder"
        {
            push(
                &mut out,
                rule!("views.template-format"),
                file_start,
                format!("Roundhouse emits only html, turbo_stream and svg templates: this `{format}` template is not emitted."),
            );
        } else if let Some(function) = super::tree::view_function(&facts.relative_path) {
            for render in &facts.render_calls {
                let (Some((_, name)), Some(span)) = (&render.named, render.target_span) else { continue };
                // A local named like a keyword: the partial's function takes it as a parameter under
                // that name.
                for local in render.locals.iter().filter(|l| crate::syntax::is_ruby_keyword(l)) {
                    push(
                        &mut out,
                        rule!("views.variable-name-not-ruby"),
                        span,
                        format!(
                            "Roundhouse compiles the partial this renders into a function with a parameter for each local its renders pass: the local `{local}:` becomes `{local} = nil`, and `{local}` is a Ruby keyword, which no parameter can be named. The partial's emitted file does not parse, and the compiled app requires every view at boot, so it does not start (every tree). Instead, pass it under another name (`css_{local}:`) and read that in the partial."
                        ),
                    );
                }
                // A layout rendered from a template (a nested layout's `render template:
                // "layouts/application"`): the call passes the layout's instance variables, not the
                // page's content, which is the layout function's first parameter.
                if render.named.as_ref().is_some_and(|(how, n)| how == "template" && n.trim_start_matches('/').starts_with("layouts/")) {
                    push(
                        &mut out,
                        rule!("views.nested-layout-body-lost"),
                        span,
                        format!(
                            "Roundhouse compiles this into a call of the layout's function with the instance variables that layout reads, and not the page's content, which the function takes first: with none it raises ArgumentError, otherwise the first is taken for the content, so every page rendered with {} loses its content (every tree). Instead, use one layout for these pages: move what this one adds into `content_for` blocks the main layout yields, or give the controller the main layout.",
                            if template.layout { "this layout" } else { "this template" }
                        ),
                    );
                }
                // A view named from the root (`"/shared/tags"`): the module path begins empty.
                if let Some(rest) = name.strip_prefix('/') {
                    push(
                        &mut out,
                        rule!("views.render-path-leading-slash"),
                        span,
                        format!(
                            "Roundhouse compiles this render into a call of the view's function through its modules, and the leading `/` leaves the first one empty: `Views::::…`, which is not Ruby. The emitted file does not parse, and the compiled app requires every view at boot, so it does not start (every tree). Instead, name the view without the slash: `\"{rest}\"` (Rails looks it up from `app/views` either way)."
                        ),
                    );
                }
            }
            let not_ruby = function.not_ruby();
            if let Some(first) = not_ruby.first() {
                let path = std::iter::once("Views").chain(function.modules.iter().map(String::as_str)).collect::<Vec<_>>().join("::");
                let (what, fix) = if *first == function.name && function.name.contains('.') {
                    (
                        "a method name (a locale variant keeps its locale in it)",
                        "keep one template and translate inside it (`t(\".title\")`)",
                    )
                } else if *first == function.name {
                    ("a method name", "rename the file with underscores (`index_v2.html.erb`) and the renders that name it")
                } else {
                    ("a module name", "rename the folder with underscores (`ta_in`) and the renders that name it")
                };
                push(
                    &mut out,
                    rule!("views.function-name-not-ruby"),
                    file_start,
                    format!(
                        "Roundhouse compiles this template into `def self.{}` in `{path}`, and `{first}` is not {what}: the emitted file does not parse, and the compiled app requires every view at boot, so it does not start (every tree). Instead, {fix}.",
                        function.name
                    ),
                );
            }
        }
    }
    let compiled = facts.kind.is_some_and(|k| k.is_app_code() || k == FileKind::View);
    if compiled {
        for reference in &facts.sqlite3_uses {
            push(
                &mut out,
                rule!("jruby.c-extension"),
                reference.span,
                format!(
                    "`{}` is the sqlite3 gem's API, a C extension with no JVM build: the JVM tree reaches SQLite through JDBC and does not load the gem, so there this name is undefined (a NameError when it runs).",
                    reference.name
                ),
            );
        }
    }
    if facts.kind == Some(FileKind::Test)
        && matches!(super::ingest::reading(facts, None), super::ingest::Reading::Compiled)
        && let Some(test) = super::ingest::emitted_test(facts).filter(|t| t.aot)
    {
        push(
            &mut out,
            rule!("spinel.test-lane"),
            test.class_span,
            format!(
                "The Spinel tree compiles {} ahead of time (its AOT lane), as {}: Roundhouse turns it into a `TestBase` test, so every assertion it makes must compile.",
                test.class_name, test.spinel_path
            ),
        );
    }
    out
}

/// What Roundhouse makes of a class another library persists: the DSL it drops, counted by kind.
fn document_message(class: &crate::syntax::outline::Namespace, library: &str) -> String {
    use crate::syntax::outline::Item;
    let mut kinds: Vec<((&str, &str), Vec<String>)> = Vec::new();
    for item in &class.items {
        let Item::Call(call) = item else { continue };
        if call.receiver.is_some() {
            continue;
        }
        let kind = match call.method.as_str() {
            "field" | "attribute" | "key" => ("field", "fields"),
            "has_many"
            | "has_one"
            | "belongs_to"
            | "has_and_belongs_to_many"
            | "embeds_many"
            | "embeds_one"
            | "embedded_in"
            | "many"
            | "one" => ("association", "associations"),
            m if m.starts_with("validate") => ("validation", "validations"),
            "scope" | "default_scope" => ("scope", "scopes"),
            "index" | "store_in" => ("index or storage option", "indexes and storage options"),
            m if m.starts_with("before_") || m.starts_with("after_") || m.starts_with("around_") => ("callback", "callbacks"),
            _ => continue,
        };
        let name = call
            .arguments
            .first()
            .and_then(|a| a.as_name())
            .map(|n| format!("`{} :{n}`", call.method))
            .unwrap_or_else(|| format!("`{}`", call.method));
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, names)) => names.push(name),
            None => kinds.push((kind, vec![name])),
        }
    }
    let dropped: Vec<String> = kinds
        .iter()
        .map(|(kind, names)| {
            let shown: Vec<&str> = names.iter().take(2).map(String::as_str).collect();
            let more = if names.len() > 2 { ", …" } else { "" };
            let noun = if names.len() == 1 { kind.0 } else { kind.1 };
            format!("{} {noun} ({}{more})", names.len(), shown.join(", "))
        })
        .collect();
    let what = if dropped.is_empty() { "its persistence".to_owned() } else { dropped.join(", ") };
    format!(
        "Roundhouse compiles `{}` as a plain Ruby class in every tree (CRuby, JVM, Spinel): it compiles Active Record models only, not {library} documents. It keeps the class's methods and drops {what}: the compiled class has no attributes, queries or persistence. Instead, make it an Active Record model (`< ApplicationRecord`) with a table in db/schema.rb, or keep this app off Roundhouse.",
        class.name
    )
}

/// What Roundhouse makes of one `delegate` call in a library class's body: it writes the plain
/// declarations as methods (symbol names, `to:` a symbol, no option but `prefix: true` and
/// `allow_nil:`, no name the class calls with arguments or a block), all of the class's in one piece
/// of Ruby it then reads back; any other it leaves in the class body, which it drops.
enum DelegateFate<'a> {
    /// Written: the target, and each delegated name with its method's name.
    Written { to: &'a str, names: Vec<(&'a str, String)> },
    /// Dropped: why (in words), and the methods Rails would have defined.
    Dropped { why: String, methods: Vec<String> },
}

fn delegate_fate<'a>(
    call: &'a crate::syntax::outline::Call,
    called_with_arguments: &std::collections::HashSet<String>,
    text: &str,
) -> DelegateFate<'a> {
    let symbols: Vec<Option<&str>> =
        call.arguments.iter().map(|a| if let Value::Symbol(s) = a { Some(s.as_str()) } else { None }).collect();
    let names: Vec<&str> = symbols.iter().flatten().copied().collect();
    let (mut to, mut declined) = (None, None::<String>);
    for ((key, value), span) in call.options.iter().zip(call.option_spans.iter()) {
        match (key, value) {
            (Value::Symbol(k), Value::Symbol(target)) if k == "to" => to = Some(target.as_str()),
            (Value::Symbol(k), Value::Bool(true)) if k == "prefix" => {}
            (Value::Symbol(k), _) if k == "allow_nil" => {}
            _ => {
                declined.get_or_insert_with(|| {
                    let option = text.get(span.range()).unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ");
                    if key.as_name() == Some("to") {
                        format!("its target (`{option}`) is not a symbol")
                    } else {
                        format!("`{option}` is not an option it writes")
                    }
                });
            }
        }
    }
    // The methods as Rails names them: `prefix: true` puts the target's name before each, and
    // `prefix: :other` that name.
    let target = call.option("to").map(|v| match v {
        Value::Symbol(s) => s.clone(),
        other => other.to_string(),
    });
    let rails_prefix = match call.option("prefix") {
        Some(Value::Bool(true)) => target.as_deref().map(|t| t.trim_start_matches('@').to_ascii_lowercase()),
        Some(Value::Symbol(p) | Value::String(p)) => Some(p.clone()),
        _ => None,
    };
    let methods = || names.iter().map(|n| rails_prefix.as_ref().map_or_else(|| (*n).to_owned(), |p| format!("{p}_{n}"))).collect();
    let why = if symbols.iter().any(Option::is_none) {
        Some("its names are not all symbols".to_owned())
    } else if names.is_empty() {
        Some("it names no method".to_owned())
    } else if declined.is_some() {
        declined
    } else if to.is_none() {
        Some("it has no `to:` symbol".to_owned())
    } else {
        names
            .iter()
            .find(|n| called_with_arguments.contains(**n))
            .map(|n| format!("the class calls `{n}` with arguments, which a written method would not pass on"))
    };
    if let Some(why) = why {
        return DelegateFate::Dropped { why, methods: methods() };
    }
    let to = to.unwrap_or_default();
    let prefixed = matches!(call.option("prefix"), Some(Value::Bool(true)));
    let names = names.into_iter().map(|n| (n, if prefixed { format!("{to}_{n}") } else { n.to_owned() })).collect();
    DelegateFate::Written { to, names }
}

/// The methods of a library class (its own and its singleton class's), and their bodies' text.
fn library_methods<'a>(
    class: &'a crate::syntax::outline::Namespace,
    text: &'a str,
) -> (Vec<&'a crate::syntax::outline::MethodDef>, Vec<&'a str>) {
    use crate::syntax::outline::Item;
    let methods: Vec<&crate::syntax::outline::MethodDef> = class
        .items
        .iter()
        .flat_map(|item| match item {
            Item::Method(def) => vec![def],
            Item::SingletonClass { items, .. } => {
                items.iter().filter_map(|i| if let Item::Method(d) = i { Some(d) } else { None }).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    let bodies = methods.iter().filter_map(|m| text.get(m.span.range())).collect();
    (methods, bodies)
}

/// The `delegate` calls of a library class's body, each with its fate.
fn delegates<'a>(class: &'a crate::syntax::outline::Namespace, text: &'a str) -> Vec<(&'a crate::syntax::outline::Call, DelegateFate<'a>)> {
    use crate::syntax::outline::Item;
    if class.superclass.as_deref().is_some_and(|s| s.trim_start_matches("::") == "ActiveSupport::CurrentAttributes") {
        return Vec::new();
    }
    let calls: Vec<&crate::syntax::outline::Call> = class
        .items
        .iter()
        .filter_map(|item| if let Item::Call(call) = item { Some(call) } else { None })
        .filter(|call| call.receiver.is_none() && call.method == "delegate" && call.block.is_none())
        .collect();
    if calls.is_empty() {
        return Vec::new();
    }
    let (_, bodies) = library_methods(class, text);
    let called_with_arguments = names_called_with_arguments(&bodies);
    calls.into_iter().map(|call| (call, delegate_fate(call, &called_with_arguments, text))).collect()
}

/// `library.class-body-call-dropped` of a library class's `delegate`s Roundhouse does not write (see
/// [`DelegateFate`]): the class has none of their methods. Whether the class's base replays its body
/// (a gem's does) is the app's to say (`checks`).
fn delegates_dropped(class: &crate::syntax::outline::Namespace, text: &str) -> Vec<(Span, String)> {
    delegates(class, text)
        .into_iter()
        .filter_map(|(call, fate)| {
            let DelegateFate::Dropped { why, methods } = fate else { return None };
            let span = call.span.first_line(text);
            let listed = methods.iter().take(4).map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
            let more = if methods.len() > 4 { format!(" and {} more", methods.len() - 4) } else { String::new() };
            Some((
                span,
                format!(
                    "Roundhouse drops this `delegate` from the class body ({why}): it writes a `delegate` as methods only in its plain shape (symbol names, `to:` a symbol, no option but `prefix: true` and `allow_nil:`, no name the class calls with arguments), and replays a class body only for a class whose base is a gem's. So {} has no {listed}{more}, and calls raise NoMethodError (every target). Instead, define each method yourself (`def name`, the target's call, `end`), or write the `delegate` in its plain shape.",
                    class.name
                ),
            ))
        })
        .collect()
}

/// `library.delegates-lost`: of the `delegate`s Roundhouse writes as methods, in one piece of Ruby, a
/// setter (`delegate :x=, to: :y` becomes `def x=` without a parameter) or a keyword for a target
/// (`to: :class` becomes `class.x`) makes that piece unreadable, and the class gets none of them.
fn delegate_forwarders_lost(class: &crate::syntax::outline::Namespace, text: &str) -> Option<(Span, String)> {
    // Ruby's keywords that cannot stand as a receiver (`self`, `nil`, `true` and `false` can).
    const KEYWORDS: &[&str] = &[
        "class", "module", "def", "end", "if", "unless", "while", "until", "case", "when", "begin", "do", "for", "return", "yield",
        "super", "then", "else", "elsif", "and", "or", "not", "in", "rescue", "ensure", "alias", "undef", "defined?", "break", "next",
        "redo", "retry",
    ];
    let (methods, _) = library_methods(class, text);
    let defines = |name: &str| methods.iter().any(|m| !m.singleton && m.name == name);
    let mut written: Vec<String> = Vec::new();
    // The first delegation that cannot be written: its statement, and what to write instead.
    let mut broken: Option<(Span, String, String)> = None;
    for (call, fate) in delegates(class, text) {
        let DelegateFate::Written { to, names } = fate else { continue };
        for (name, method) in names {
            if defines(&method) {
                continue;
            }
            let setter = method.strip_suffix('=').and_then(|m| m.chars().last()).is_some_and(|c| c.is_alphanumeric() || c == '_');
            if broken.is_none() {
                let receiver = if to == "class" { "self.class".to_owned() } else { to.to_owned() };
                if setter {
                    let why = format!("the setter `{method}` (a `def {method}` without a parameter)");
                    let instead = format!(
                        "define the setter yourself (`def {method}(value)`, `{receiver}.{} = value`, `end`)",
                        name.trim_end_matches('=')
                    );
                    broken = Some((call.span, why, instead));
                } else if KEYWORDS.contains(&to) {
                    let why = format!("`{to}.{name}` (`{to}` is a keyword, not a receiver)");
                    let instead = format!("define the method yourself (`def {method}`, `{receiver}.{name}`, `end`)");
                    broken = Some((call.span, why, instead));
                }
            }
            written.push(method);
        }
    }
    let (span, why, instead) = broken?;
    let listed = written.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    Some((
        span,
        format!(
            "Roundhouse writes this class's `delegate`s as methods, in one piece of Ruby, and cannot write {why} there: the piece does not parse, so {} gets none of them ({listed}), and calls raise NoMethodError. Instead, {instead} and keep `delegate` for the rest.",
            class.name
        ),
    ))
}

/// Whether `name` reads as a Ruby local or method name (`title`, `Title2`, `_x`): not `a-b`, `x(3i)`.
fn is_ruby_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// The names `bodies` (methods' text) call without a receiver with arguments or a block (`name(x)`,
/// `name x`, `name do … end`), read with Prism as Roundhouse's delegate expansion looks for them
/// before it writes a method.
fn names_called_with_arguments(bodies: &[&str]) -> std::collections::HashSet<String> {
    struct Calls(std::collections::HashSet<String>);
    impl<'pr> ruby_prism::Visit<'pr> for Calls {
        fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
            if node.receiver().is_none() && (node.arguments().is_some() || node.block().is_some()) {
                self.0.insert(super::prism_ingest::convert::name_of(node.name()));
            }
            ruby_prism::visit_call_node(self, node);
        }
    }
    let mut calls = Calls(std::collections::HashSet::new());
    for body in bodies {
        let parsed = ruby_prism::parse(body.as_bytes());
        ruby_prism::Visit::visit(&mut calls, &parsed.node());
    }
    calls.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::Fixture;

    /// Each rule fires on its trigger and not on the near-miss beside it.
    #[test]
    fn triggers_and_near_misses() {
        let fixture = Fixture::new(
            r#"
            #- /app/models/post.rb
            class Post < ApplicationRecord
              scope :recent, -> { order(:id) }
              scope :legacy, :recent
              enum :status, { draft: 0 }
              enum :kind, KINDS
              belongs_to :author
              belongs_to :blog, counter_cache: true
              validates :title, presence: true, length: { minimum: 3 }
              validates :slug, uniqueness: true
              validates :body, presence: true, if: :published?
              before_save :strip
              before_save :notify, if: :changed?
              include Searchable
              attr_accessor :draft
            end
            #- /app/models/plain.rb
            class Plain
              attr_accessor :anything
            end
            #- /app/controllers/posts_controller.rb
            class PostsController < ApplicationController
              before_action :load
              after_action :track
              rescue_from ActiveRecord::RecordNotFound, with: :missing
              helper_method :current_user
            end
            #- /app/views/posts/feed.xml.erb
            <feed/>
            #- /app/views/posts/index.html.erb
            <p>ok</p>
            #- /app/views/posts/old.html.slim
            p old
            #- /config/initializers/inflections.rb
            ActiveSupport::Inflector.inflections(:en) do |inflect|
              inflect.acronym "API"
            end
            #- /config/initializers/patch.rb
            class String; end
            #- /app/models/hasher.rb
            class Hasher
              def store = SQLite3::Database.new("cache.db")
              def digest(s) = BCrypt::Password.create(s)
            end
            #- /test/integration/flow_test.rb
            class FlowTest < ActionDispatch::IntegrationTest; end
            #- /test/models/post_test.rb
            class PostTest < ActiveSupport::TestCase; end
            #- /db/schema.rb
            ActiveRecord::Schema[8.0].define(version: 1) do
              create_table "events" do |t|
                t.jsonb "payload"
                t.json "meta"
              end
            end
            #- /app/models/event.rb
            class Event < ApplicationRecord
              @@registry = nil
              class << self
                def recent = order(:id)
              end
              def log(*args) = args
              def name(value) = value
            end
            #- /app/models/ledger.rb
            class Ledger < ApplicationRecord
              class << self
                attr_accessor :book
              end
              class Entry < ApplicationRecord
              end
            end
            #- /app/models/importer.rb
            class Importer
              class Row
              end
            end
            #- /lib/registry.rb
            class Registry
              @@items = {}
              @@cache = nil
            end
            #- /config/initializers/mailer.rb
            Rails.application.config.x.sender = "a@b.c"
            ActionMailer::Base.default_url_options = { host: "x" }
            Rails.logger.info("booted")
            "#,
        );
        let mut found: Vec<String> = Vec::new();
        for facts in fixture.index.snapshot() {
            let text = std::fs::read_to_string(&facts.path).unwrap_or_default();
            for d in check(&facts, "").into_iter().chain(super::super::config_lowering::findings(&facts, &text)) {
                found.push(format!("{}:{} {}", facts.relative_path, d.span.start.line + 1, d.rule));
            }
        }
        found.sort();
        expect_test::expect![[r#"
            [
                "app/controllers/posts_controller.rb:3 controller.after-around-filter",
                "app/controllers/posts_controller.rb:4 controller.macro-dropped",
                "app/models/event.rb:6 model.method-parameters-dropped",
                "app/models/hasher.rb:2 jruby.c-extension",
                "app/models/post.rb:10 model.validation-option-ignored",
                "app/models/post.rb:12 model.callback-form",
                "app/models/post.rb:13 model.unsupported-macro",
                "app/models/post.rb:14 model.unsupported-macro",
                "app/models/post.rb:3 model.scope-body",
                "app/models/post.rb:5 model.enum-mapping",
                "app/models/post.rb:7 model.association-option-ignored",
                "app/models/post.rb:9 model.validation-ignored",
                "app/views/posts/feed.xml.erb:1 views.template-format",
                "app/views/posts/old.html.slim:1 views.template-engine",
                "config/initializers/inflections.rb:2 initializer.inflection-ignored",
                "config/initializers/mailer.rb:2 initializer.not-read",
                "config/initializers/mailer.rb:3 initializer.not-read",
                "config/initializers/patch.rb:1 initializer.monkey-patch",
                "db/schema.rb:3 schema.unknown-column-type",
                "test/models/post_test.rb:1 spinel.test-lane",
            ]
        "#]]
        .assert_debug_eq(&found);
    }

    /// After actions never run in the compiled app, so skipping one changes nothing: said as info
    /// (Roundhouse still drops the call), never as a warning.
    #[test]
    fn skipping_an_after_action_is_said_to_change_nothing() {
        let fixture = crate::test_fixture::Fixture::new(
            r#"
            #- /app/controllers/posts_controller.rb
            class PostsController < ApplicationController
              skip_after_action :verify_authorized
              prepend_before_action :load
            end
            "#,
        );
        let facts = fixture.index.snapshot().into_iter().find(|f| f.relative_path.ends_with("posts_controller.rb")).unwrap();
        let found: Vec<String> =
            check(&facts, "").iter().map(|d| format!("{} {:?} {}", d.span.start.line + 1, d.severity, d.message)).collect();
        expect_test::expect![[r#"
            [
                "2 Info Roundhouse drops `skip_after_action`, which changes nothing: it never runs an `after_action` at all.",
                "3 Warning Roundhouse drops `prepend_before_action` in a controller.",
            ]
        "#]]
        .assert_debug_eq(&found);
    }

    #[test]
    fn text_rules_skip_comments() {
        let rules = |path: &str, kind: FileKind, text: &str| -> Vec<String> {
            let language = crate::rails::project::language_of(std::path::Path::new(path)).unwrap();
            let parsed = crate::syntax::ParsedFile::parse(language, text);
            let facts = crate::index::analyze(std::path::PathBuf::from(format!("/app/{path}")), path.to_owned(), Some(kind), text, &parsed);
            facts.diagnostics.iter().map(|d| format!("{}:{} {}", d.span.start.line + 1, d.span.start.col + 1, d.rule)).collect()
        };
        assert_eq!(
            rules("app/views/posts/index.json.jbuilder", FileKind::View, "json.title @post.title\njson.merge! extra\n"),
            ["2:1 views.jbuilder-ignored"]
        );
        assert_eq!(
            rules(
                "app/controllers/posts_controller.rb",
                FileKind::Controller,
                "class PostsController < ApplicationController\n  def index\n    respond_to do |format|\n      format.html\n      format.json { render json: [] }\n    end\n  end\nend\n"
            ),
            ["5:7 controller.json-format-dropped"]
        );
        assert_eq!(
            rules("lib/meta.rb", FileKind::Library, "class Meta\n  # never .send(:x) here\n  def call(o) = o.public_send(:name)\nend\n"),
            ["3:19 spinel.dynamic-dispatch"]
        );
    }

    #[test]
    fn haml_filters_class_merges_and_turbo_stream_option_forms() {
        let rules = |path: &str, text: &str| -> Vec<String> {
            let language = crate::rails::project::language_of(std::path::Path::new(path)).unwrap();
            let parsed = crate::syntax::ParsedFile::parse(language, text);
            let facts = crate::index::analyze(
                std::path::PathBuf::from(format!("/app/{path}")),
                path.to_owned(),
                Some(FileKind::View),
                text,
                &parsed,
            );
            let text_of = |d: &Diagnostic| text[d.span.range()].to_owned();
            facts
                .diagnostics
                .iter()
                .map(|d| format!("{}:{} {} `{}`", d.span.start.line + 1, d.span.start.col + 1, d.rule, text_of(d)))
                .collect()
        };
        assert_eq!(
            rules(
                "app/views/posts/show.html.haml",
                "%h1.title= @post.title\n:javascript\n  alert(1)\n:ruby\n  x = 1\n%p.lead{class: \"big\"} Hi\n.card{:class => \"x\"}\n%p{class: \"only\"}\n"
            ),
            [
                "2:1 views.haml-filter `:javascript`",
                "6:1 views.haml-class-merge `%p.lead{class:`",
                "7:1 views.haml-class-merge `.card{:class =>`",
            ]
        );
        assert_eq!(
            rules(
                "app/views/posts/create.turbo_stream.erb",
                "<%= turbo_stream.append \"posts\", partial: \"posts/post\", locals: { post: @post } %>\n<%= turbo_stream.prepend \"posts\", @post %>\n<%= turbo_stream.update(\"count\") { \"1\" } %>\n<%= turbo_stream.remove @post %>\n<%= turbo_stream.replace \"flash\" do %>\n<% end %>\n<%= turbo_stream.append \"posts\", collection: @posts %>\n<%= turbo_stream.update \"count\", content: \"1\" %>\n<%= turbo_stream.append_all \".posts\", partial: \"posts/post\" %>\n"
            ),
            // Measured: partial: (and locals:) and a do block are read; a brace block, any other
            // option and the _all actions' options are not.
            [
                "3:5 views.turbo-stream-option-form `turbo_stream.update`",
                "7:5 views.turbo-stream-option-form `turbo_stream.append`",
                "8:5 views.turbo-stream-option-form `turbo_stream.update`",
                "9:5 views.turbo-stream-option-form `turbo_stream.append_all`",
            ]
        );
    }

    #[test]
    fn through_and_scope_loads_name_an_association() {
        let messages = |text: &str| -> Vec<String> {
            let parsed = crate::syntax::ParsedFile::parse(crate::syntax::Language::Ruby, text);
            let path = std::path::PathBuf::from("/app/app/models/post.rb");
            let facts = crate::index::analyze(path, "app/models/post.rb".to_owned(), Some(FileKind::Model), text, &parsed);
            facts
                .diagnostics
                .iter()
                .filter(|d| d.rule == rule!("rails.unknown-association"))
                .map(|d| format!("{}: {}", d.span.start.line + 1, d.message))
                .collect()
        };
        let model = "class Post < ApplicationRecord\n  has_many :taggings\n  has_many :tags, through: :tagging\n  has_many :labels, through: :taggings, source: :tag\n  scope :full, -> { includes(:tags, :author) }\n  scope :tagged, -> { joins(:taggings).where(taggings: { on: true }) }\nend\n";
        assert_eq!(
            messages(model),
            [
                "3: `has_many :tags` goes through `:tagging`, which Post does not declare: Rails raises HasManyThroughAssociationNotFoundError. Did you mean `:taggings`?",
                "5: `includes(:author)` in scope `full` names no association of Post: Rails raises AssociationNotFoundError.",
            ]
        );
        // A module or a parent model may declare what this file does not show.
        assert_eq!(messages(&model.replace("  has_many :taggings\n", "  include Taggable\n")), Vec::<String>::new());
        assert_eq!(messages(&model.replace("ApplicationRecord", "Content")), Vec::<String>::new());
    }

    #[test]
    fn template_text_rules() {
        let rules = |text: &str| -> Vec<String> {
            let parsed = crate::syntax::ParsedFile::parse(crate::syntax::Language::Erb, text);
            let facts = crate::index::analyze(
                std::path::PathBuf::from("/app/app/views/posts/x.html.erb"),
                "app/views/posts/x.html.erb".to_owned(),
                Some(FileKind::View),
                text,
                &parsed,
            );
            facts.diagnostics.iter().map(|d| format!("{}:{} {}", d.span.start.line + 1, d.span.start.col + 1, d.rule)).collect()
        };
        assert_eq!(rules("<p>a</p>\r\n<p>b</p>\r\n"), ["1:1 views.crlf-template"]);
        assert_eq!(rules("<p>a</p>\n<p><%%= literal %></p>\n"), ["2:4 views.literal-tag"]);
        assert_eq!(rules("<p><%= code %></p>\n"), Vec::<String>::new());
    }
}

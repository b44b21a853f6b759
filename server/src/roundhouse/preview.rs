//! Built-in previews: Switchyard's approximation of what Roundhouse makes of a file, from the index
//! (`shared/spec/trees-and-previews.md` §4). Every preview says so in its header, is valid Ruby (a test
//! parses every preview of every fixture), shows rule-flagged constructs as comments naming the rule,
//! and maps its lines back to source lines.
//!
//! Built so far: routes (the flat table and the path helpers), `db/schema.rb` (DDL without foreign keys),
//! models (column readers and writers, association readers as the query they run, `validate` with the
//! inline checks, callbacks, enum predicates). Other files show where they land and say that no built-in
//! preview exists for them yet.

use super::lowering::{self, Kind};
use super::tree::{Target, TreeEntry};
use crate::app::AppContext;
use crate::diagnostic::Diagnostic;
use crate::rails::model::Model;
use crate::rails::route_table::{Route, RouteKind};
use crate::rails::schema::{Schema, Table};
use crate::rails::{FileFacts, inflect};
use crate::syntax::NodeExt;
use crate::syntax::value::Value;

pub struct Preview {
    pub text: String,
    /// (preview line, source line), 0-based, for lines that come from one source line.
    pub mapping: Vec<(u32, u32)>,
}

#[derive(Default)]
struct Out {
    lines: Vec<String>,
    mapping: Vec<(u32, u32)>,
}

/// A comment whose text runs over lines (a mount's source, a filter's lambda) as one line.
fn one_comment_line(text: String) -> String {
    if text.trim_start().starts_with('#') && text.contains('\n') {
        text.split('\n').map(str::trim).collect::<Vec<_>>().join(" ")
    } else {
        text
    }
}

impl Out {
    fn line(&mut self, text: impl Into<String>) {
        let text = one_comment_line(text.into());
        for line in text.split('\n') {
            self.lines.push(line.to_owned());
        }
    }

    /// A line from `source_line`; text of several lines (a tag's code over lines) is as many lines,
    /// each from the source line it continues, so that a line of the preview is one line of text.
    fn from(&mut self, source_line: u32, text: impl Into<String>) {
        let text = one_comment_line(text.into());
        if !text.contains('\n') {
            self.mapping.push((self.lines.len() as u32, source_line));
            self.lines.push(text);
            return;
        }
        for (i, line) in text.split('\n').enumerate() {
            self.mapping.push((self.lines.len() as u32, source_line + i as u32));
            self.lines.push(line.to_owned());
        }
    }

    fn finish(self) -> Preview {
        Preview { text: self.lines.join("\n") + "\n", mapping: self.mapping }
    }
}

/// A Ruby string literal for `text`.
pub(crate) fn ruby_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '#' => out.push_str("\\#"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A comment line: never lets source text break out of the comment.
fn comment(text: &str) -> String {
    format!("# {}", text.replace('\n', " "))
}

fn header(out: &mut Out, source: &str, entry: &TreeEntry, target: Target) {
    out.line(comment(&format!(
        "Switchyard's approximation of Roundhouse's output for {source} (--target {}); not the compiler's text.",
        target.as_str()
    )));
    match entry.target(target).filter(|t| !t.paths.is_empty()) {
        Some(tree) => out.line(comment(&format!("Emitted as: {}", tree.paths.join(", ")))),
        None => out.line(comment(&format!("Lands in no tree: {}", entry.note.as_deref().unwrap_or("not emitted")))),
    }
    out.line("");
}

fn flagged(out: &mut Out, diagnostics: &[Diagnostic]) {
    for d in diagnostics.iter().filter(|d| d.rule.family() != crate::catalogue::Family::Rails) {
        out.from(d.span.start.line, comment(&format!("{} (line {}): {}", d.rule, d.span.start.line + 1, d.message)));
    }
    if diagnostics.iter().any(|d| d.rule.family() != crate::catalogue::Family::Rails) {
        out.line("");
    }
}

/// `text` is the file's current text (an open buffer's, else the disk's): controllers' actions are shown
/// with their bodies.
pub fn preview(
    facts: &FileFacts,
    text: &str,
    context: &AppContext,
    entry: &TreeEntry,
    diagnostics: &[Diagnostic],
    target: Target,
) -> Preview {
    let mut out = Out::default();
    header(&mut out, &facts.relative_path, entry, target);
    flagged(&mut out, diagnostics);
    if facts.routes.is_some() {
        routes(&mut out, context, &facts.relative_path);
    } else if let Some(schema) = &facts.schema {
        schema_ddl(&mut out, schema);
    } else if let Some((class, library)) = facts
        .outline
        .namespaces()
        .into_iter()
        .find_map(|ns| crate::rails::model::document_mapper(ns).map(|(library, _)| (ns.name.clone(), library)))
        .filter(|_| facts.relative_path.starts_with("app/models/"))
    {
        out.line(comment(&format!(
            "No model preview: `{class}` is a {library} document, and Roundhouse compiles Active Record models only. It emits `{class}` as a plain class with its methods; its fields, associations, validations, scopes and callbacks are dropped (model.document-not-compiled)."
        )));
    } else if let Some(model) = facts
        .models
        .first()
        .filter(|_| entry.target(target).is_some_and(|t| t.paths.iter().any(|p| p.ends_with("_row.rb") || p.starts_with("sig/"))))
    {
        model_class(&mut out, model, context);
    } else if facts.template.as_ref().is_some_and(|t| t.handler == "erb") && entry.target(target).is_some_and(|t| !t.paths.is_empty()) {
        template_function(&mut out, facts, text);
    } else if let Some(config) = facts.config.as_ref().filter(|_| entry.target(target).is_some_and(|t| !t.paths.is_empty())) {
        application_config(&mut out, config, facts, text);
    } else if let Some(controller) = facts.controllers.first().filter(|_| entry.target(target).is_some_and(|t| !t.paths.is_empty())) {
        let parses = !facts.diagnostics.iter().any(|d| d.rule == crate::diagnostic::rule::PARSE_ERROR);
        controller_class(&mut out, controller, facts, if parses { Some(text) } else { None }, context);
    } else if let Some(classes) = Some(super::entry_points::lower(facts, context))
        .filter(|classes| !classes.is_empty() && entry.target(target).is_some_and(|t| !t.paths.is_empty()))
    {
        entry_point_classes(&mut out, &classes, text);
    } else {
        out.line(comment("No built-in preview for this kind of file yet: configure a roundhouse binary for the exact output."));
    }
    expand_time_formats(&mut out, facts, text, context);
    out.finish()
}

/// Each `to_fs(:name)` the compiler expands, shown as what it writes (`strftime("%d %b %H:%M")`) on
/// the preview's lines from the call's line.
fn expand_time_formats(out: &mut Out, facts: &FileFacts, text: &str, context: &AppContext) {
    for call in &facts.format_calls {
        let Some(expanded) = super::time_formats::expansion(call, &context.reading.time_formats) else { continue };
        let Some(written) = text.get(call.span.range()).filter(|w| !w.is_empty()) else { continue };
        for &(line, source_line) in &out.mapping {
            if source_line != call.span.start.line {
                continue;
            }
            let Some(preview_line) = out.lines.get_mut(line as usize) else { continue };
            if !preview_line.trim_start().starts_with('#') && preview_line.contains(written) {
                *preview_line = preview_line.replacen(written, &expanded, 1);
                break;
            }
        }
    }
}

fn controller_symbol(controller: &str) -> String {
    // A bare symbol is a name: not empty, not starting with a digit (`:2257` is not Ruby).
    if !controller.is_empty()
        && !controller.starts_with(|c: char| c.is_ascii_digit())
        && controller.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        format!(":{controller}")
    } else {
        format!(":{}", ruby_string(controller))
    }
}

/// `/posts/:post_id/comments/:id(.:format)` → (`/posts/:post_id/comments/:id`, [`post_id`, `id`]).
fn plain_path(path: &str) -> (String, Vec<String>) {
    let without_format = path.replace("(.:format)", "").replace(".:format", "");
    // Optional segments are kept as written but their parentheses go: Roundhouse's table is flat.
    let flat: String = without_format.chars().filter(|c| *c != '(' && *c != ')').collect();
    let params = flat
        .split('/')
        .filter_map(|segment| segment.strip_prefix(':').or_else(|| segment.strip_prefix('*')))
        .map(|p| p.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>())
        .filter(|p| !p.is_empty())
        .collect();
    (if flat.is_empty() { "/".to_owned() } else { flat }, params)
}

fn routes(out: &mut Out, context: &AppContext, file: &str) {
    let table = &context.table;
    out.line(comment("config/routes.rb: the flat dispatch table, in Rails' order."));
    out.line("module RouteTable");
    out.line("  def self.table");
    out.line("    [");
    for route in &table.routes {
        let line = if route.file == file { Some(route.span.start.line) } else { None };
        let text = match route.kind {
            RouteKind::Action => {
                let (path, _) = plain_path(&route.path);
                let controller = route.controller.as_deref().unwrap_or("");
                let action = route.action.as_deref().unwrap_or("");
                format!(
                    "      ActionDispatch::Router::Route.new({}, {}, {}, {}),",
                    ruby_string(if route.verb.is_empty() { "GET" } else { route.verb.split('|').next().unwrap_or("GET") }),
                    ruby_string(&path),
                    controller_symbol(controller),
                    controller_symbol(action)
                )
            }
            RouteKind::Redirect => format!("      # routes.redirect: {} {} → {} is dropped", route.verb, route.path, route.endpoint),
            RouteKind::Mount => format!("      # routes.mount: {} at {} is dropped", route.endpoint, route.path),
        };
        match line {
            Some(source_line) => out.from(source_line, text),
            None => out.line(text),
        }
    }
    out.line("    ]");
    out.line("  end");
    if let Some(root) = table.routes.iter().find(|r| r.name.as_deref() == Some("root") && r.kind == RouteKind::Action) {
        out.line("");
        out.line("  def self.root");
        out.line(format!(
            "    ActionDispatch::Router::Route.new(\"GET\", \"/\", {}, {})",
            controller_symbol(root.controller.as_deref().unwrap_or("")),
            controller_symbol(root.action.as_deref().unwrap_or(""))
        ));
        out.line("  end");
    }
    out.line("end");
    out.line("");
    out.line(comment("app/route_helpers.rb"));
    out.line("module RouteHelpers");
    let mut seen = std::collections::HashSet::new();
    for route in table.routes.iter().filter(|r| r.kind == RouteKind::Action) {
        let Some(name) = &route.name else { continue };
        if !seen.insert(name.clone()) {
            continue;
        }
        helper(out, route, name, file);
    }
    out.line("end");
}

fn helper(out: &mut Out, route: &Route, name: &str, file: &str) {
    let (path, params) = plain_path(&route.path);
    let mut body = String::new();
    for segment in path.split('/').skip(1) {
        body.push('/');
        match segment.strip_prefix(':').or_else(|| segment.strip_prefix('*')) {
            Some(param) => body.push_str(&format!("#{{{param}}}")),
            None => body.push_str(&segment.replace('"', "\\\"").replace('#', "\\#")),
        }
    }
    if body.is_empty() {
        body.push('/');
    }
    let arguments = if params.is_empty() { String::new() } else { format!("({})", params.join(", ")) };
    let text = format!("  def self.{name}_path{arguments} = \"{body}\"");
    if route.file == file { out.from(route.span.start.line, text) } else { out.line(text) }
}

/// SQLite's column types for Rails' schema types; `None` for what Roundhouse drops.
fn sql_type(column_type: &str) -> Option<&'static str> {
    Some(match column_type {
        "string" | "text" | "citext_not" => "TEXT",
        "integer" | "bigint" | "references" | "belongs_to" | "boolean" => "INTEGER",
        "float" | "decimal" | "numeric" => "REAL",
        "datetime" | "timestamp" | "date" | "time" => "TEXT",
        "binary" | "blob" => "BLOB",
        "json" => "TEXT",
        _ => return None,
    })
}

fn schema_ddl(out: &mut Out, schema: &Schema) {
    out.line(comment("config/schema.rb: the DDL, without foreign keys."));
    out.line("module Schema");
    out.line("  def self.statements");
    out.line("    [");
    for table in &schema.tables {
        for column in table.columns.iter().filter(|c| sql_type(&c.column_type).is_none()) {
            out.from(
                column.span.start.line,
                format!(
                    "      # schema.unknown-column-type: {}.{} ({}) is dropped from the model",
                    table.name, column.name, column.column_type
                ),
            );
        }
        out.from(table.span.start.line, format!("      {},", ruby_string(&create_table(table))));
        for index in &table.indexes {
            let name = index.name.clone().unwrap_or_else(|| format!("index_{}_on_{}", table.name, index.columns.join("_and_")));
            let unique = if index.unique { "UNIQUE " } else { "" };
            out.from(
                index.span.start.line,
                format!("      {},", ruby_string(&format!("CREATE {unique}INDEX {name} ON {} ({})", table.name, index.columns.join(", ")))),
            );
        }
    }
    out.line("    ]");
    out.line("  end");
    out.line("end");
}

fn create_table(table: &Table) -> String {
    let columns: Vec<String> = table
        .columns
        .iter()
        .filter_map(|c| {
            let sql = sql_type(&c.column_type)?;
            if Some(&c.name) == table.primary_key.as_ref() {
                return Some(format!("{} INTEGER PRIMARY KEY AUTOINCREMENT", c.name));
            }
            let mut column = format!("{} {sql}", c.name);
            if !c.null {
                column.push_str(" NOT NULL");
            }
            if let Some(default) = &c.default {
                column.push_str(&format!(" DEFAULT {}", sql_default(default)));
            }
            Some(column)
        })
        .collect();
    format!("CREATE TABLE {} ({})", table.name, columns.join(", "))
}

fn sql_default(value: &Value) -> String {
    match value {
        Value::String(s) => format!("'{}'", s.replace('\'', "''")),
        Value::Bool(b) => (if *b { "1" } else { "0" }).to_owned(),
        Value::Nil => "NULL".to_owned(),
        other => other.to_string(),
    }
}

fn model_class(out: &mut Out, model: &Model, context: &AppContext) {
    let table_name = inflect::tableize(&model.class_name);
    let table = context.files.iter().filter_map(|f| f.schema.as_ref()).find_map(|s| s.table(&table_name));
    out.from(model.span.start.line, format!("class {} < ApplicationRecord", model.class_name));
    out.line(format!("  def self.table_name = {}", ruby_string(&table_name)));
    match table {
        Some(table) => {
            let names: Vec<String> =
                table.columns.iter().filter(|c| sql_type(&c.column_type).is_some()).map(|c| format!(":{}", c.name)).collect();
            out.line(format!("  def self.schema_columns = [{}]", names.join(", ")));
            for column in &table.columns {
                if sql_type(&column.column_type).is_none() {
                    out.line(format!("  # schema.unknown-column-type: {} ({}) has no accessor", column.name, column.column_type));
                    continue;
                }
                out.line("");
                out.line(format!("  # {}: {}{}", column.name, column.column_type, if column.null { "" } else { ", null: false" }));
                // A column whose name is no Ruby name (`ready?`) gets no accessor written here.
                if !column.name.chars().all(|c| c.is_alphanumeric() || c == '_') || column.name.starts_with(|c: char| c.is_ascii_digit()) {
                    continue;
                }
                out.line(format!("  def {} = @{}", column.name, column.name));
                out.line(format!("  def {}=(value)", column.name));
                out.line(format!("    @{} = value", column.name));
                out.line("  end");
            }
        }
        None => out.line(format!("  # no `{table_name}` table in db/schema.rb: no column accessors, no Row class")),
    }
    // The class-body statements, as the one lowering every view reads (`lowering`).
    let tables = |name: &str| context.files.iter().filter_map(|f| f.schema.as_ref()).find_map(|s| s.table(name));
    let items = lowering::lower(model, &tables);
    let of = |kind: Kind| items.iter().filter(move |item| item.kind == kind);
    for item in of(Kind::Association).chain(of(Kind::Macro)).chain(of(Kind::Scope)) {
        out.line("");
        for line in &item.emitted {
            out.from(item.span.start.line, line.clone());
        }
    }
    if of(Kind::Validation).next().is_some() {
        out.line("");
        out.line("  def validate");
        for item in of(Kind::Validation) {
            for line in &item.emitted {
                let line = if line.starts_with("    ") { line.clone() } else { format!("  {line}") };
                out.from(item.span.start.line, line);
            }
        }
        out.line("  end");
    }
    for item in of(Kind::Callback).chain(of(Kind::Enum)) {
        out.line("");
        for line in &item.emitted {
            out.from(item.span.start.line, line.clone());
        }
    }
    out.line("end");
}

/// Config keys as readers of the reopened application class; time formats; and what is not read.
fn application_config(out: &mut Out, config: &crate::rails::config::ConfigFacts, facts: &FileFacts, text: &str) {
    out.line(comment("config/application.rb: the reopened application, one reader per config key read."));
    out.line("module Rails");
    out.line("  class Application");
    for assignment in &config.assignments {
        let reader: String = assignment.key.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        let value = assignment.value.to_string();
        let line = assignment.span.start.line;
        if assignment.operator != "=" || value.contains('\n') || value.starts_with("<<") {
            out.from(line, format!("    # config.{} {} … (not a plain assignment: read at run time)", assignment.key, assignment.operator));
        } else {
            out.from(line, format!("    def {reader} = {value}"));
        }
    }
    out.line("  end");
    out.line("end");
    if !config.time_formats.is_empty() {
        out.line("");
        for format in &config.time_formats {
            let value = format.value.to_string();
            let line = format.span.start.line;
            let register = format.owner == "ActiveSupport::TimeFormats";
            match (value.contains('\n'), register) {
                (true, false) => out.from(line, format!("# {}[{}] = … (multi-line)", format.owner, format.name)),
                (true, true) => out.from(line, format!("# {}.register({}, …) (multi-line)", format.owner, format.name)),
                (false, false) => out.from(line, format!("{}[{}] = {value}", format.owner, format.name)),
                (false, true) => out.from(line, format!("{}.register({}, {value})", format.owner, format.name)),
            }
        }
    }
    // What the compiler does not read, from the lowering the initializer rules read too.
    let not_read: Vec<(u32, String)> = super::config_lowering::lower(facts, text)
        .iter()
        .filter_map(|s| Some((s.span.start.line, super::config_lowering::shown(&s.fate)?)))
        .collect();
    if !not_read.is_empty() {
        out.line("");
        out.line(comment("Not read:"));
        for (line, text) in not_read {
            out.from(line, comment(&text));
        }
    }
}

/// Roundhouse's stack effect of a code tag: +1 for an opener it counts, -1 for `end` / `end if …`.
fn block_delta(code: &str) -> i32 {
    if super::erb_pairing::pops(code) { -1 } else { i32::from(super::erb_pairing::opens_pass(code)) }
}

/// A template as the function Roundhouse compiles it to: `io = String.new`, HTML as appends, output
/// tags escaped, code as written, instance variables as parameters. Falls back to the same lines
/// commented out when the result would not parse (unusual tag pairings; see views.output-block-pairing).
fn template_function(out: &mut Out, facts: &FileFacts, text: &str) {
    let Some(template) = &facts.template else { return };
    let (_, file) = template.logical_path.rsplit_once('/').unwrap_or(("", template.logical_path.as_str()));
    // The function's modules and name, as the compiler names them (one answer with the rule).
    let Some(function) = super::tree::view_function(&facts.relative_path) else { return };
    let (modules, name) = (function.modules.clone(), function.name.clone());
    // `@post` read in the template is the function's parameter `post` (`end_` for `@end`).
    let ivar = |code: &str| -> String {
        let mut result = String::with_capacity(code.len());
        let mut chars = code.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '@' && chars.peek().is_some_and(|n| n.is_ascii_lowercase() || *n == '_') {
                let mut name = String::new();
                while let Some(n) = chars.peek().copied().filter(|n| n.is_ascii_alphanumeric() || *n == '_') {
                    name.push(n);
                    chars.next();
                }
                result.push_str(&name);
                if crate::syntax::is_ruby_keyword(&name) {
                    result.push('_');
                }
                continue;
            }
            result.push(c);
        }
        result
    };
    // Its parameters as the compiler writes them (the rule that says a name is taken twice reads the
    // same signature); without the program's names (it does not parse), as Rails names them.
    let mut named_twice: Vec<String> = Vec::new();
    let mut keyword_parameter: Option<String> = None;
    let mut parameters: Vec<String> = match &facts.template_names {
        Some(names) => {
            let signature = super::template_signature::signature(&function, names);
            named_twice = signature.named_twice().into_iter().map(str::to_owned).collect();
            keyword_parameter = signature.keywords().first().map(|n| (*n).to_owned());
            signature.required.into_iter().chain(signature.optional.into_iter().map(|n| format!("{n} = nil"))).collect()
        }
        None => {
            // A parameter cannot be named like a keyword (`@end` read, a partial named `_return`).
            let parameter = |name: &str| if crate::syntax::is_ruby_keyword(name) { format!("{name}_") } else { name.to_owned() };
            let mut parameters: Vec<String> = template.ivars_read.iter().map(|v| parameter(v.trim_start_matches('@'))).collect();
            if template.partial {
                let local = parameter(file.trim_start_matches('_'));
                if !parameters.contains(&local)
                    && local.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !local.starts_with(|c: char| c.is_ascii_digit())
                {
                    parameters.insert(0, format!("{local} = nil"));
                }
            } else {
                parameters.extend(["notice = nil".to_owned(), "alert = nil".to_owned()]);
            }
            parameters
        }
    };
    if template.partial {
        parameters.push("**locals".to_owned());
    }
    let mut body = Out::default();
    body.line("io = String.new");
    let parsed = crate::syntax::ParsedFile::parse(crate::syntax::Language::Erb, text);
    // What the compiler drops, from the template lowering the rule reads too: shown as comments.
    let lowering = super::template_lowering::lower(text, crate::syntax::Language::Erb, &facts.line_index);
    let mut stack: Vec<bool> = Vec::new(); // true: a block opened by an output tag
    if let Some(erb) = &parsed.erb {
        let root = erb.root_node();
        let mut cursor = root.walk();
        for node in root.children(&mut cursor) {
            let line = node.start_position().row as u32;
            let code_range = {
                let mut inner = node.walk();
                let code_node = node.children(&mut inner).find(|c| c.kind_name() == "code");
                code_node.map(|c| c.byte_range())
            };
            // The statements the lowering drops inside the tag's code (`next` in `next if x`).
            let inside: Vec<&super::template_lowering::DroppedStatement> = code_range
                .as_ref()
                .map(|range| lowering.dropped.iter().filter(|d| range.start <= d.range.start && d.range.end <= range.end).collect())
                .unwrap_or_default();
            // The tag's code, each statement dropped inside it as `nil`.
            let code = || {
                let Some(range) = code_range.clone() else { return String::new() };
                let mut code = text.get(range.clone()).unwrap_or("").to_owned();
                for d in inside.iter().rev() {
                    code.replace_range(d.range.start - range.start..d.range.end - range.start, "nil");
                }
                code.trim().to_owned()
            };
            // The tag's code without its surrounding blanks (text: the whole node), in the template.
            let extent = match code_range.clone() {
                Some(r) => {
                    let inner = text.get(r.clone()).unwrap_or("");
                    let start = r.start + (inner.len() - inner.trim_start().len());
                    start..(start + inner.trim().len()).max(start)
                }
                None => node.byte_range(),
            };
            if !extent.is_empty()
                && let Some(dropped) = lowering.dropping(extent.clone())
            {
                let source = text.get(extent.clone()).unwrap_or("");
                let what = if extent.start == dropped.range.start {
                    format!("dropped ({}): {}", dropped.finding.rule, source.trim())
                } else if node.kind_name() == "content" {
                    format!("  dropped with it: io << {}", ruby_string(source))
                } else {
                    format!("  dropped with it: {}", text.get(node.byte_range()).unwrap_or("").trim())
                };
                for (i, l) in what.lines().enumerate() {
                    body.from(line + i as u32, comment(l));
                }
                continue;
            }
            for d in &inside {
                body.from(line, comment(&format!("dropped ({}): {}", d.finding.rule, &text[d.range.clone()])));
            }
            match node.kind_name() {
                "content" => {
                    let content = text.get(node.byte_range()).unwrap_or("");
                    if !content.is_empty() {
                        body.from(line, format!("io << {}", ruby_string(content)));
                    }
                }
                "directive" => {
                    let code = ivar(&code());
                    if code.is_empty() {
                        continue;
                    }
                    let delta = block_delta(&code);
                    if delta < 0 && stack.pop() == Some(true) {
                        body.from(line, format!("{code}).to_s"));
                        continue;
                    }
                    if delta > 0 {
                        stack.push(false);
                    }
                    for (i, l) in code.lines().enumerate() {
                        body.from(line + i as u32, l.trim().to_owned());
                    }
                }
                "output_directive" => {
                    let code = ivar(&code());
                    let raw = text.get(node.byte_range()).is_some_and(|t| t.starts_with("<%=="));
                    if super::erb_pairing::is_block_expr(&code) {
                        stack.push(true);
                        body.from(line, format!("io << ({}", code));
                    } else if raw {
                        body.from(line, format!("io << ({}).to_s", code));
                    } else {
                        body.from(line, format!("io << ActionView::ViewHelpers.html_escape(({}).to_s)", code));
                    }
                }
                _ => {}
            }
        }
    }
    body.line("io");
    // The function as Ruby, checked: a template whose tags pair unusually must not yield a broken preview.
    let depth = modules.len();
    let mut lines = vec!["module Views".to_owned()];
    for (i, module) in modules.iter().enumerate() {
        lines.push(format!("{}module {module}", "  ".repeat(i + 1)));
    }
    let def_indent = "  ".repeat(depth + 1);
    lines.push(format!("{def_indent}def self.{name}({})", parameters.join(", ")));
    let body_start = lines.len() as u32;
    lines.extend(body.lines.iter().map(|l| format!("{def_indent}  {l}")));
    lines.push(format!("{def_indent}end"));
    for i in (0..depth).rev() {
        lines.push(format!("{}end", "  ".repeat(i + 1)));
    }
    lines.push("end".to_owned());
    let candidate = lines.join("\n") + "\n";
    // Judged by Prism, the parser Roundhouse reads Ruby with (tree-sitter recovers from a stray `end`).
    let parses =
        crate::syntax::ParsedFile::parse(crate::syntax::Language::Ruby, &candidate).ruby.is_some_and(|t| !t.root_node().has_error())
            && super::prism_ingest::parse_errors(&candidate, &crate::syntax::LineIndex::new(&candidate)).is_empty();
    let base = out.lines.len() as u32;
    if let Some(keyword) = &keyword_parameter {
        out.line(comment(&format!(
            "The function takes a parameter `{keyword}`, a Ruby keyword, so the emitted file does not parse (views.variable-name-not-ruby); the compiled function, commented out:"
        )));
    } else if let Some(twice) = named_twice.first() {
        out.line(comment(&format!(
            "The function takes `{twice}` twice, so the emitted file does not parse (views.parameter-named-twice); the compiled function, commented out:"
        )));
    } else if !function.not_ruby().is_empty() {
        out.line(comment(&format!(
            "`{}` is not a Ruby name, so the emitted file does not parse (views.function-name-not-ruby); the compiled function, commented out:",
            function.not_ruby()[0]
        )));
    } else if !parses {
        out.line(comment("This template's tags pair in a way Switchyard's preview cannot follow (see views.output-block-pairing); the compiled function, commented out:"));
    }
    let offset = base + u32::from(!parses);
    for line in lines {
        out.lines.push(if parses { line } else { format!("# {line}") });
    }
    out.mapping.extend(body.mapping.into_iter().map(|(preview, source)| (offset + body_start + preview, source)));
}

/// The lines of a method, re-indented to `indent` spaces; `None` for text that is not there.
fn method_lines(text: &str, span: crate::syntax::Span, indent: usize) -> Option<Vec<String>> {
    let source = text.get(span.range())?;
    let lines: Vec<&str> = source.lines().collect();
    let first_indent = span.start.col as usize;
    // A plain heredoc (`<<SQL`, not `<<~` or `<<-`) ends at a terminator in the first column, and
    // its body is text: those lines are kept as they are.
    let mut open: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if let Some(terminator) = open.first() {
            if line.trim_end() == terminator {
                open.remove(0);
            }
            out.push((*line).to_owned());
            continue;
        }
        let trimmed = if i == 0 {
            line.trim_start()
        } else {
            line.get(first_indent.min(line.len() - line.trim_start().len())..).unwrap_or(line.trim_start())
        };
        out.push(format!("{}{}", " ".repeat(indent), trimmed));
        open.extend(plain_heredocs(line));
    }
    Some(out)
}

/// The terminators of the plain heredocs a line opens (`<<SQL`, `<<'SQL'`).
fn plain_heredocs(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("<<") {
        let after = &rest[at + 2..];
        let quoted = after.strip_prefix(['\'', '"']);
        let name: String =
            quoted.unwrap_or(after).chars().take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_').collect();
        if !name.is_empty() && name.starts_with(|c: char| c.is_ascii_uppercase()) {
            out.push(name);
        }
        rest = after;
    }
    out
}

/// The body lines of a multi-line `def … end`, re-indented to `indent`.
fn body_lines(text: &str, span: crate::syntax::Span, indent: usize) -> Option<Vec<String>> {
    let lines = method_lines(text, span, indent.saturating_sub(2))?;
    if lines.len() < 2 || !lines.last()?.trim_start().starts_with("end") {
        return None;
    }
    Some(lines[1..lines.len() - 1].to_vec())
}

fn controller_class(
    out: &mut Out,
    controller: &crate::rails::controller::Controller,
    facts: &FileFacts,
    text: Option<&str>,
    context: &AppContext,
) {
    use super::controller_lowering::{Fate, StepKind};
    let lowered = super::controller_lowering::lower(controller, context);
    let line = controller.span.start.line;
    out.from(line, format!("class {} < {}", controller.class_name, controller.superclass.as_deref().unwrap_or("ApplicationController")));
    if let Some(dispatcher) = &lowered.dispatcher {
        out.line("  def process_action(action_name)");
        for step in &dispatcher.preamble {
            let from = |out: &mut Out, text: String| match step.span {
                Some(span) => out.from(span.start.line, text),
                None => out.line(text),
            };
            match &step.what {
                StepKind::Call(target) => {
                    // A method of this controller's own is called on `self`, as the compiler writes it.
                    let own = controller.actions.iter().chain(&controller.private_methods).any(|m| &m.name == target)
                        || lowered.spliced.iter().any(|m| &m.name == target);
                    let target = if own { format!("self.{target}") } else { target.clone() };
                    let call = match &step.condition {
                        Some(condition) => format!("    {target} if {condition}"),
                        None => format!("    {target}"),
                    };
                    from(out, format!("{call} # before_action ({})", step.owner));
                }
                StepKind::Block(span) => {
                    let body = text.and_then(|t| block_body(t, *span)).unwrap_or_default();
                    match &step.condition {
                        Some(condition) => {
                            from(out, format!("    if {condition} # before_action {{ … }} ({})", step.owner));
                            body.iter().for_each(|l| from(out, format!("      {l}")));
                            from(out, "    end".to_owned());
                        }
                        None => {
                            from(out, format!("    # before_action {{ … }} ({})", step.owner));
                            body.iter().for_each(|l| from(out, format!("    {l}")));
                        }
                    }
                }
            }
            if step.halts {
                from(out, "    return if self.performed?".to_owned());
            }
        }
        out.line("    case action_name");
        for (action, method) in &dispatcher.arms {
            match lowered.actions.iter().find(|a| &a.name == action) {
                Some(own) => {
                    out.from(own.span.start.line, format!("    when :{action}"));
                    out.line(format!("      self.{method}"));
                }
                None => {
                    out.line(format!("    when :{action} # inherited"));
                    out.line(format!("      {method}"));
                }
            }
        }
        out.line("    end");
        out.line("  end");
    }
    for fate in &lowered.filters {
        let said = match &fate.fate {
            Fate::NeverApplied => format!("controller.after-around-filter: {} is never applied", fate.target),
            Fate::Unresolved => format!("before_action :{}: no method of that name in the chain, so it is dropped", fate.target),
            _ => continue,
        };
        out.from(fate.span.start.line, format!("  # {said}"));
    }
    let controller_path = inflect::underscore(controller.class_name.strip_suffix("Controller").unwrap_or(&controller.class_name));
    for action in &lowered.actions {
        out.line("");
        out.from(action.span.start.line, format!("  def {}", action.method));
        for inlined in &action.inlined {
            // Mapped to the filter call when it is in this file.
            let from = |out: &mut Out, line: String| match inlined.filter {
                Some(filter) => out.from(filter.start.line, line),
                None => out.line(line),
            };
            let owner = match &inlined.method.0 {
                None => controller.class_name.clone(),
                Some(path) => crate::rails::project::relative_path(path, &context.root),
            };
            from(out, format!("    # before_action :{} ({owner}), inlined", inlined.target));
            let source = match &inlined.method.0 {
                None => text.map(str::to_owned),
                Some(path) => crate::files::read_source(path),
            };
            match source.as_deref().and_then(|t| body_lines(t, inlined.method.1, 4)) {
                Some(lines) => lines.into_iter().for_each(|l| from(out, l)),
                None => from(out, format!("    {}", inlined.target)),
            }
            if inlined.halts {
                from(out, "    return if self.performed?".to_owned());
            }
        }
        match text.and_then(|t| body_lines(t, action.span, 4)) {
            Some(lines) => {
                for (i, l) in lines.into_iter().enumerate() {
                    out.from(action.span.start.line + 1 + i as u32, l);
                }
            }
            None if text.is_none() => out.line("    # body not shown: the file does not parse"),
            None => {}
        }
        if let Some(implicit) = action.implicit {
            let template = format!("{controller_path}/{}", action.name);
            let ivars: Vec<String> = context
                .files
                .iter()
                .filter_map(|f| f.template.as_ref())
                .find(|t| t.logical_path == template && !t.partial)
                .map(|t| t.ivars_read.clone())
                .unwrap_or_default();
            let layout = match &controller.layout {
                Some(Value::String(name)) => name.clone(),
                _ => "application".to_owned(),
            };
            let module = inflect::camelize(&controller_path).replace("::", "");
            let render = if implicit.template {
                format!(
                    "render(Views::Layouts.{layout}(Views::{module}.{}({})))",
                    if action.name == "new" { "_new" } else { action.name.as_str() },
                    ivars.join(", ")
                )
            } else {
                "head(:no_content) # no template: what Rails answers".to_owned()
            };
            out.line("    # implicit render, made explicit");
            if implicit.guarded {
                out.line("    unless self.performed?");
                out.line(format!("      {render}"));
                out.line("    end");
            } else {
                out.line(format!("    {render}"));
            }
        }
        out.line("  end");
    }
    if let Some(text) = text {
        // Public methods no route reaches, then the private ones: as written.
        let helpers = controller.actions.iter().filter(|a| !lowered.actions.iter().any(|l| l.name == a.name));
        for method in helpers.chain(controller.private_methods.iter().filter(|m| !lowered.dead.contains(&m.name))) {
            out.line("");
            if let Some(lines) = method_lines(text, method.span, 2) {
                for (i, l) in lines.into_iter().enumerate() {
                    out.from(method.span.start.line + i as u32, l);
                }
            }
        }
    }
    // What its modules bring it, as written there (those it inlined and dropped aside).
    for method in lowered.spliced.iter().filter(|m| !lowered.dead.contains(&m.name)) {
        let Some(source) = crate::files::read_source(&method.path) else { continue };
        out.line("");
        out.line(format!("  # from {}", crate::rails::project::relative_path(&method.path, &context.root)));
        for line in method_lines(&source, method.span, 2).unwrap_or_default() {
            out.line(line);
        }
    }
    let _ = facts;
    out.line("end");
}

/// Job and mailer classes: their methods as written, then the class-side methods the compiler
/// writes for them (mapped to the method they call), or a comment where it writes none.
fn entry_point_classes(out: &mut Out, classes: &[super::entry_points::EntryClass<'_>], text: &str) {
    use super::entry_points::Fate;
    for class in classes {
        let namespace = class.namespace;
        let head = match &namespace.superclass {
            Some(superclass) => format!("class {} < {superclass}", namespace.name),
            None => format!("class {}", namespace.name),
        };
        out.from(namespace.name_span.start.line, head);
        let mut first = true;
        for def in &class.methods {
            if !std::mem::take(&mut first) {
                out.line("");
            }
            for (i, l) in method_lines(text, def.span, 2).unwrap_or_default().into_iter().enumerate() {
                out.from(def.span.start.line + i as u32, l);
            }
        }
        for entry in &class.entries {
            let line = entry.name_span().start.line;
            match &entry.fate {
                Fate::Wrapped(wrappers) => {
                    for wrapper in wrappers {
                        out.line("");
                        for l in &wrapper.lines {
                            out.from(line, format!("  {l}"));
                        }
                    }
                }
                Fate::NotWrapped(what) => {
                    let rule = entry.findings.first().map(|f| f.rule.as_str()).unwrap_or_default();
                    out.line("");
                    out.from(
                        line,
                        format!("  {}", comment(&format!("no class-side method for `{}` ({rule}): it has {what}", entry.method.name))),
                    );
                }
            }
        }
        out.line("end");
    }
}

/// The body of a block-form call (`before_action { @page = page }`, or `do … end`), one line each.
fn block_body(text: &str, span: crate::syntax::Span) -> Option<Vec<String>> {
    let source = text.get(span.range())?;
    let (open, close) = match (source.find('{'), source.find(" do")) {
        (Some(brace), Some(keyword)) if keyword < brace => (keyword + 3, source.rfind("end")?),
        (Some(brace), _) => (brace + 1, source.rfind('}')?),
        (None, Some(keyword)) => (keyword + 3, source.rfind("end")?),
        (None, None) => return None,
    };
    let inner = source.get(open..close)?.trim();
    let inner = inner.strip_prefix('|').and_then(|rest| rest.split_once('|')).map_or(inner, |(_, rest)| rest.trim());
    Some(inner.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{app_diagnostics, file_diagnostics};
    use crate::roundhouse::tree::map_file;
    use crate::syntax::{Language, ParsedFile};

    /// Every preview of every file of the example and the fixture apps parses as Ruby, for
    /// tree-sitter and for Prism (the parser Roundhouse reads with). `controllers` holds the shapes
    /// that once made a preview unparsable on real apps: a partial and an instance variable named
    /// like keywords, a view folder named `ta-in`, a multi-line output tag, a config value over two
    /// values and a heredoc, a lambda filter, a plain heredoc in a method.
    #[test]
    fn every_preview_of_every_fixture_parses() {
        let mut checked = 0;
        let dirs = [
            "examples/blog",
            "tests/fixtures/apps/shop",
            "tests/fixtures/apps/broken",
            "tests/fixtures/apps/monorepo",
            "tests/fixtures/apps/controllers",
            "tests/fixtures/apps/rules",
            "tests/fixtures/apps/resolution",
        ];
        crate::test_fixture::each_app(&dirs, |context, derived, app_facts| {
            for facts in &context.files {
                let entry = map_file(facts, app_facts);
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), None);
                let text = std::fs::read_to_string(&facts.path).unwrap_or_default();
                for target in Target::ALL {
                    let preview = preview(facts, &text, context, &entry, &diagnostics, target);
                    let parsed = ParsedFile::parse(Language::Ruby, &preview.text);
                    let tree = parsed.ruby.unwrap();
                    assert!(
                        !tree.root_node().has_error(),
                        "{} ({target:?}) preview does not parse:\n{}",
                        facts.path.display(),
                        preview.text
                    );
                    let prism = crate::roundhouse::prism_ingest::parse_errors(&preview.text, &crate::syntax::LineIndex::new(&preview.text));
                    assert!(prism.is_empty(), "{} ({target:?}) preview: Prism says {prism:?}:\n{}", facts.path.display(), preview.text);
                    assert!(preview.text.starts_with("# Switchyard's approximation"));
                    checked += 1;
                }
            }
        });
        assert!(checked >= 250, "every fixture file, three targets each: {checked}");
    }

    #[test]
    fn routes_preview_is_the_flat_table_and_the_helpers() {
        let fixture = crate::test_fixture::Fixture::new(
            r#"
            #- /config/routes.rb
            Rails.application.routes.draw do
              root "posts#index"
              resources :posts, only: [:index, :show] do
                resources :comments, only: :create
              end
              mount Sidekiq::Web => "/sidekiq"
            end
            "#,
        );
        let snapshot = fixture.index.snapshot();
        let context = AppContext::new(&fixture.index, &fixture.root, &snapshot);
        let facts = fixture.facts("config/routes.rb");
        let entry = map_file(&facts, context.tree_facts());
        let derived = app_diagnostics(&context);
        let diagnostics = file_diagnostics(&facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), None);
        let preview = preview(&facts, "", &context, &entry, &diagnostics, Target::Ruby);
        expect_test::expect![[r##"
            # Switchyard's approximation of Roundhouse's output for config/routes.rb (--target ruby); not the compiler's text.
            # Emitted as: config/routes.rb, app/route_helpers.rb

            # routes.mount (line 6): Roundhouse drops `mount`: the mounted app's routes do not exist in the compiled app.

            # config/routes.rb: the flat dispatch table, in Rails' order.
            module RouteTable
              def self.table
                [
                  ActionDispatch::Router::Route.new("GET", "/", :posts, :index),
                  ActionDispatch::Router::Route.new("POST", "/posts/:post_id/comments", :comments, :create),
                  ActionDispatch::Router::Route.new("GET", "/posts", :posts, :index),
                  ActionDispatch::Router::Route.new("GET", "/posts/:id", :posts, :show),
                  # routes.mount: Sidekiq::Web at /sidekiq is dropped
                ]
              end

              def self.root
                ActionDispatch::Router::Route.new("GET", "/", :posts, :index)
              end
            end

            # app/route_helpers.rb
            module RouteHelpers
              def self.root_path = "/"
              def self.post_comments_path(post_id) = "/posts/#{post_id}/comments"
              def self.posts_path = "/posts"
              def self.post_path(id) = "/posts/#{id}"
            end
        "##]]
        .assert_eq(&preview.text);
        assert!(preview.mapping.iter().any(|(_, source)| *source == 3), "{:?}", preview.mapping);
    }
}

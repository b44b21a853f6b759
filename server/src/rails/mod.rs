//! Rails knowledge: which file is what (`project`), naming (`inflect`), and the facts read from each
//! kind of file. `extract` turns one parsed file into its `FileFacts`; it never fails: broken code
//! yields the facts that could be read plus syntax diagnostics.

pub mod concern_macros;
pub mod config;
pub mod controller;
pub mod deploy;
pub mod devise;
pub mod i18n;
pub mod inflect;
pub mod migration;
pub mod model;
pub mod permits;
pub mod project;
pub mod references;
pub mod route_table;
pub mod routes;
pub mod schema;
pub mod structure_sql;

use crate::syntax::NodeExt;
use std::path::PathBuf;

use serde::{Serialize, Serializer, ser::SerializeMap};

use crate::diagnostic::{Diagnostic, rule};
use crate::syntax::outline::{Call, Item, MethodDef, NamespaceKind, Outline, Visibility};
use crate::syntax::parse::Skipped;
use crate::syntax::value::Value;
use crate::syntax::{Language, LineIndex, ParsedFile, Span, syntax_errors};
use project::FileKind;
use references::{Reference, RenderCall};

/// Everything the index knows about one file. Replacing a file's facts replaces all of it.
#[derive(Debug, Clone, Serialize, bincode::Encode, bincode::Decode)]
pub struct FileFacts {
    #[serde(skip)]
    pub path: PathBuf,
    /// Relative to the app root (or the path as given, outside any app).
    #[serde(rename = "file")]
    pub relative_path: String,
    /// `None` outside any Rails app.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<FileKind>,
    #[serde(skip)]
    pub language: Language,
    #[serde(skip)]
    pub line_index: LineIndex,
    /// Empty for a schema (`schema` and `database_schema` hold what is read of it).
    #[serde(skip)]
    pub outline: Outline,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<Definition>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<model::Model>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<controller::Controller>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<Box<schema::Schema>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routes: Option<Box<routes::RouteFile>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<Box<Template>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<Box<config::ConfigFacts>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub route_helper_calls: Vec<Reference>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub render_calls: Vec<RenderCall>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    /// `schema.migration-verb` findings of a migration: reported only when the app has no
    /// `db/schema.rb` (only then does Roundhouse fold `db/migrate`).
    #[serde(skip)]
    pub migration_verbs: Vec<Diagnostic>,
    /// Constants the code names (`Markly`, `SQLite3::Database`), sorted: which runtime swaps it reaches.
    #[serde(skip)]
    pub constants: Vec<String>,
    /// Where the code names the sqlite3 gem's API (`SQLite3::…`), which the JVM tree does not load.
    #[serde(skip)]
    pub sqlite3_uses: Vec<references::Reference>,
    /// `# switchyard:disable rule` comments.
    #[serde(skip)]
    pub suppressions: Vec<Suppression>,
    /// Permitted-parameter lists in controller methods (for `<X>Params` classes).
    #[serde(skip)]
    pub permits: Vec<permits::PermitList>,
    /// The queries its methods or its template loop over, for the N+1 check
    /// (`roundhouse::preload`).
    #[serde(skip)]
    pub preload: Option<Box<crate::roundhouse::preload::PreloadFacts>>,
    /// `x.to_fs(…)` calls in code Roundhouse compiles (whether each is expanded is the app's to say:
    /// `roundhouse::time_formats`).
    #[serde(skip)]
    pub format_calls: Vec<crate::roundhouse::time_formats::FormatCall>,
    /// A compiled template's calls of view helpers the compiler leaves as written: the name and where
    /// (`views.helper-undefined` where the app defines no method of that name).
    #[serde(skip)]
    pub helper_calls: Vec<crate::roundhouse::prism_ingest::HelperCall>,
    /// A compiled template's output tags that `render` a record or a collection: the partial the
    /// compiler calls, or `None` where it keeps the `render` as written (`views.render-raises`).
    #[serde(skip)]
    pub record_renders: Vec<(Option<String>, crate::syntax::Span)>,
    /// A compiled template's program: what becomes its function's parameters
    /// (`roundhouse::template_signature`).
    /// Queries of a model's or a controller's methods the compiler may write inline
    /// (`roundhouse::inline_queries`).
    #[serde(skip)]
    pub inline_queries: Vec<crate::roundhouse::inline_queries::InlineQuery>,
    #[serde(skip)]
    pub template_names: Option<Box<crate::roundhouse::template_signature::TemplateNames>>,
    /// `Post.includes(:comments)` and the like, checked against the model's associations.
    #[serde(skip)]
    pub association_loads: Vec<references::AssociationLoad>,
    /// Whole hashes written to an attribute (checked against `has_json` columns).
    #[serde(skip)]
    pub hash_writes: Vec<(String, Span)>,
    /// Class-side methods of modules: the macros a controller may call (`require_sudo_mode`).
    #[serde(skip)]
    pub concern_macros: Vec<concern_macros::ConcernMacro>,
    /// `def self.table_name_prefix` of the modules in a model-folder file: (namespace, prefix).
    #[serde(skip)]
    pub table_name_prefixes: Vec<(String, String)>,
    /// A migration, as the schema fold of an app without `db/schema.rb` reads it.
    #[serde(skip)]
    pub migration: Option<Box<migration::Migration>>,
    /// Where the file uses what the app defines (helpers, ivars, constants, i18n keys, columns), with
    /// their places: what navigation and the wiring checks resolve.
    #[serde(skip)]
    pub uses: references::Uses,
    /// A locale file's keys (`config/locales/*.yml`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<Box<i18n::LocaleFile>>,
    /// A schema Roundhouse does not read (`db/structure.sql`, `db/queue_schema.rb`): for navigation
    /// and the column checks, never for what Roundhouse emits (that is `schema`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database_schema: Option<Box<schema::Schema>>,
    /// A deployment file's facts (the lockfile, the Gemfile, Puma's configuration, a Procfile or
    /// Dockerfile): how the app runs, for `lanes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deploy: Option<Box<deploy::DeployFile>>,
    /// Calls that assume a runtime (`fork`, `ObjectSpace.each_object`, state written on a class…).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runtime_uses: Vec<deploy::RuntimeUse>,
    /// A hash of the text these facts were read from: two copies of a file's facts with the same
    /// hash place everything alike (an answer from an older context still lands right).
    #[serde(skip)]
    pub text_hash: u64,
}

/// A class or module defined in a file (any Ruby file; library code is mostly this).
#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Definition {
    pub kind: NamespaceKind,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superclass: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<MethodSummary>,
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct MethodSummary {
    pub name: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub singleton: bool,
    #[serde(skip_serializing_if = "is_public")]
    pub visibility: Visibility,
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
}

fn is_public(v: &Visibility) -> bool {
    *v == Visibility::Public
}

impl MethodSummary {
    pub fn of(def: &MethodDef) -> MethodSummary {
        MethodSummary {
            name: def.name.clone(),
            singleton: def.singleton,
            visibility: def.visibility,
            span: def.span,
            name_span: def.name_span,
        }
    }
}

/// Methods defined directly in a body, including `class << self` ones.
pub fn method_summaries(items: &[Item]) -> Vec<MethodSummary> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Method(def) => out.push(MethodSummary::of(def)),
            Item::SingletonClass { items, .. } => out.extend(method_summaries(items)),
            _ => {}
        }
    }
    out
}

/// What a class-body macro declares, by its method's name: an association, an attribute (a
/// validation, a reader, `attribute`), a callback or filter, a scope, an enum, a module mixed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declaration {
    Association,
    Attribute,
    Callback,
    Scope,
    Enum,
    Module,
}

pub fn declaration(method: &str) -> Option<Declaration> {
    Some(if model::ASSOCIATIONS.contains(&method) {
        Declaration::Association
    } else if method.starts_with("validate") || method.starts_with("attr_") || method == "attribute" || method == "store_accessor" {
        Declaration::Attribute
    } else if controller::is_filter(method) || ["before_", "after_", "around_"].iter().any(|prefix| method.starts_with(prefix)) {
        Declaration::Callback
    } else if method == "scope" {
        Declaration::Scope
    } else if method == "enum" {
        Declaration::Enum
    } else if matches!(method, "include" | "extend" | "prepend" | "include_context" | "include_examples" | "it_behaves_like") {
        Declaration::Module
    } else {
        return None;
    })
}

/// What a call with a block is to a test, in minitest's, shoulda's and RSpec's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestBlock {
    /// `describe`, `context`, `feature`, shared examples: a group of cases.
    Group,
    /// `test`, `it`, `specify`, `example`, `scenario`, `should`: one case (without a block, a pending
    /// one; shoulda's `should validate_presence_of(:name)` is a case of its own).
    Case,
    /// `setup`, `teardown`, `before`, `after`, `around`.
    Hook,
    /// `let`, `let!`, `subject`: a value the cases share.
    Value,
}

/// What a receiverless call of `method` in a test file is to the test (`RSpec.describe` is a group
/// too: see the document symbols).
pub fn test_block(method: &str) -> Option<TestBlock> {
    Some(match method {
        "describe" | "context" | "feature" | "shared_examples" | "shared_examples_for" | "shared_context" => TestBlock::Group,
        "test" | "it" | "specify" | "example" | "scenario" | "should" => TestBlock::Case,
        "setup" | "teardown" | "before" | "after" | "around" => TestBlock::Hook,
        "let" | "let!" | "subject" => TestBlock::Value,
        _ => return None,
    })
}

/// Whether a call of `method` inside a test's block (`test "…" do`, `describe`, `it`, `setup do`,
/// `included do`) declares something about the code around it, as a class body's macro does, rather
/// than doing the test's work (`assert_equal`, `expect(…).to`, `post path`, `assert_difference … do`):
/// one of the `declaration`s or `test_block`s, or visibility, a delegation, a method defined or
/// aliased, fixtures. A test file's outline keeps only these of its blocks' calls, and the other
/// calls with a block only for what their blocks keep: its document symbols show these, the app's
/// method names read `attr_*`, `delegate` and their kin, the test helpers come from
/// `test/test_helper.rb`'s `include`s, and nothing reads the rest, which is most of a large app's
/// outline.
pub fn declares(method: &str) -> bool {
    declaration(method).is_some()
        || test_block(method).is_some()
        || matches!(
            method,
            "private"
                | "protected"
                | "public"
                | "module_function"
                | "delegate"
                | "helper"
                | "helper_method"
                | "alias_method"
                | "define_method"
                | "fixtures"
                | "it_should_behave_like"
        )
}

/// A class-body call the index keeps as written: `has_secure_password`, `rescue_from X, with: :y`.
#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Macro {
    pub name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "options_map")]
    pub options: Vec<(String, Value)>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub block: bool,
    pub span: Span,
}

impl Macro {
    pub fn of(call: &Call) -> Macro {
        Macro {
            name: call.receiver.as_ref().map_or_else(|| call.method.clone(), |r| format!("{r}.{}", call.method)),
            arguments: call.arguments.to_vec(),
            options: call.named_options(),
            block: call.block.is_some(),
            span: call.span,
        }
    }
}

/// Options serialize as a JSON object in source order.
pub fn options_map<S: Serializer>(options: &[(String, Value)], serializer: S) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(options.len()))?;
    for (key, value) in options {
        map.serialize_entry(key, value)?;
    }
    map.end()
}

/// `[(key, text)]` as a JSON object, in order.
pub fn pairs_map<S: Serializer>(pairs: &[(String, String)], serializer: S) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(pairs.len()))?;
    for (key, value) in pairs {
        map.serialize_entry(key, value)?;
    }
    map.end()
}

/// A template under `app/views`.
#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Template {
    /// `posts/_form`, `layouts/application`.
    pub logical_path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `erb`, `haml`, `jbuilder`, `slim`…
    pub handler: String,
    pub partial: bool,
    pub layout: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ivars_read: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub helpers_called: Vec<String>,
    /// Its strict-locals comment (`<%# locals: (post:, title: nil) -%>`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "strict_local_names")]
    pub strict_locals: Option<StrictLocals>,
}

/// The locals a template declares with its magic comment: Rails raises ArgumentError when a render
/// leaves out a required one or passes one it does not declare (unless it takes `**rest`).
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct StrictLocals {
    /// `post:`: no default.
    pub required: Vec<String>,
    /// `title: nil`: with a default, as its source.
    pub optional: Vec<(String, String)>,
    /// `**rest`: any other local is taken.
    pub any: bool,
    /// The comment's parameter list.
    pub span: Span,
}

impl StrictLocals {
    pub fn declares(&self, name: &str) -> bool {
        self.required.iter().any(|r| r == name) || self.optional.iter().any(|(o, _)| o == name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.required.iter().map(String::as_str).chain(self.optional.iter().map(|(o, _)| o.as_str()))
    }
}

/// The index dump lists the declared names, as it always has.
fn strict_local_names<S: Serializer>(locals: &Option<StrictLocals>, serializer: S) -> Result<S::Ok, S::Error> {
    let names: Vec<&str> = locals.as_ref().map(|l| l.names().collect()).unwrap_or_default();
    names.serialize(serializer)
}

impl FileFacts {
    pub fn empty(path: PathBuf, relative_path: String, kind: Option<FileKind>, language: Language) -> FileFacts {
        FileFacts {
            path,
            relative_path,
            kind,
            language,
            line_index: LineIndex::default(),
            outline: Outline::default(),
            definitions: Vec::new(),
            models: Vec::new(),
            controllers: Vec::new(),
            schema: None,
            routes: None,
            template: None,
            config: None,
            route_helper_calls: Vec::new(),
            render_calls: Vec::new(),
            diagnostics: Vec::new(),
            migration_verbs: Vec::new(),
            format_calls: Vec::new(),
            helper_calls: Vec::new(),
            record_renders: Vec::new(),
            template_names: None,
            inline_queries: Vec::new(),
            constants: Vec::new(),
            sqlite3_uses: Vec::new(),
            suppressions: Vec::new(),
            permits: Vec::new(),
            preload: None,
            concern_macros: Vec::new(),
            association_loads: Vec::new(),
            hash_writes: Vec::new(),
            table_name_prefixes: Vec::new(),
            migration: None,
            uses: references::Uses::default(),
            locale: None,
            database_schema: None,
            deploy: None,
            runtime_uses: Vec::new(),
            text_hash: 0,
        }
    }
}

/// Every `table_name_prefix` the app's model folder declares, by namespace.
pub fn table_name_prefixes<'a>(
    files: impl IntoIterator<Item = &'a std::sync::Arc<FileFacts>>,
) -> std::collections::HashMap<String, String> {
    files.into_iter().flat_map(|f| f.table_name_prefixes.iter().cloned()).collect()
}

/// A `# switchyard:disable` comment.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Suppression {
    /// The 0-based line it silences, or `None` for the whole file.
    pub line: Option<u32>,
    pub rules: Vec<String>,
    /// `switchyard:disable… ids` in the comment.
    pub span: Span,
}

/// `# switchyard:disable rule-a rule-b` at the end of a line silences that line; on a line of its own
/// among the comments at the top of the file, the whole file; `# switchyard:disable-next-line rule`
/// silences the next line. ERB and HAML comments (`<%# switchyard:disable … %>`, `-# …`) work the same way.
fn suppressions(text: &str, line_index: &LineIndex) -> Vec<Suppression> {
    let mut out = Vec::new();
    let mut in_header = true;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        let is_comment = trimmed.starts_with('#') || trimmed.starts_with("<%#") || trimmed.starts_with("-#");
        if let Some(at) = line.find("switchyard:disable") {
            let rest = &line[at + "switchyard:disable".len()..];
            let (next_line, rest) = match rest.strip_prefix("-next-line") {
                Some(rest) => (true, rest),
                None => (false, rest),
            };
            let rules: Vec<String> = rest
                .split(|c: char| c.is_whitespace() || c == ',')
                .map(|r| r.trim_end_matches("%>"))
                .filter(|r| r.contains('.'))
                .map(str::to_owned)
                .collect();
            if !rules.is_empty() {
                let target = if next_line {
                    Some(i as u32 + 1)
                } else if is_comment && in_header {
                    None
                } else {
                    Some(i as u32)
                };
                let line_start = line_index.offset(crate::syntax::LineCol { line: i as u32, col: 0 }).unwrap_or(0);
                let end = line.trim_end().trim_end_matches("%>").trim_end().len().max(at);
                let span = line_index.span(line_start + at..line_start + end);
                out.push(Suppression { line: target, rules, span });
            }
        }
        if !is_comment && !trimmed.is_empty() {
            in_header = false;
        }
    }
    out
}

/// `<%# locals: (post:, title: "x", **rest) -%>` (`-# locals: (…)` in HAML): a template's strict
/// locals. The list is Ruby's keyword parameters, read by parsing it as a method's.
fn strict_locals(text: &str, line_index: &LineIndex) -> Option<StrictLocals> {
    let at = text.find("locals:")?;
    let before = text[..at].trim_end();
    if !(before.ends_with("<%#") || before.ends_with("-#")) {
        return None;
    }
    let open = at + "locals:".len() + text[at + "locals:".len()..].find(|c: char| !c.is_whitespace())?;
    if text.as_bytes().get(open) != Some(&b'(') {
        return None;
    }
    // The parenthesised list up to its matching `)`, on the comment's lines.
    let mut depth = 0usize;
    let mut close = None;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let list = &text[open + 1..close];
    let source = format!("def _locals({list})\nend\n");
    let parsed = ParsedFile::parse(Language::Ruby, &source);
    let tree = parsed.ruby.as_ref()?;
    // The source is one `def`: the program's first statement.
    let parameters = tree.root_node().named_child(0).and_then(|m| m.field("parameters"))?;
    let mut locals = StrictLocals { required: Vec::new(), optional: Vec::new(), any: false, span: line_index.span(open..close + 1) };
    let mut cursor = parameters.walk();
    for parameter in parameters.named_children(&mut cursor) {
        let name = parameter.field("name").map(|n| crate::syntax::text_of(n, &source).to_owned());
        match (parameter.kind_name(), name) {
            ("keyword_parameter", Some(name)) => match parameter.field("value") {
                Some(value) => locals.optional.push((name, crate::syntax::text_of(value, &source).to_owned())),
                None => locals.required.push(name),
            },
            ("hash_splat_parameter", _) => locals.any = true,
            _ => {}
        }
    }
    Some(locals)
}

/// The finding of a file Switchyard did not read, or not all of.
pub fn skipped_file(span: Span, why: String) -> Diagnostic {
    Diagnostic {
        span,
        severity: crate::diagnostic::Severity::Warning,
        rule: rule::SKIPPED_FILE,
        message: format!("Switchyard skipped this file: {why} (nothing in it is checked)"),
    }
}

/// What `FileFacts::text_hash` holds of a text.
pub fn text_hash(text: &str) -> u64 {
    crate::files::content_hash(text.as_bytes())
}

/// Reads the facts of one file from its parse: what it is, never what Roundhouse makes of it (that is
/// `roundhouse::check_file`, over these facts). `relative_path` and `kind` come from the app it
/// belongs to (`kind` is `None` outside any Rails app: then only syntax and definitions are read).
pub fn extract(path: PathBuf, relative_path: String, kind: Option<FileKind>, text: &str, parsed: &ParsedFile) -> FileFacts {
    let mut facts = FileFacts::empty(path, relative_path, kind, parsed.language);
    let unread = match parsed.skipped {
        Some(Skipped::TooLarge { len }) => Some(crate::files::too_large(len as u64, crate::files::MAX_SOURCE)),
        Some(Skipped::TooCostly { tokens }) => Some(format!(
            "about {} tokens of code, over the {} Switchyard reads in one file",
            crate::files::thousands(tokens),
            crate::files::thousands(crate::syntax::parse::MAX_TOKENS)
        )),
        _ => None,
    };
    if let Some(why) = unread {
        // Nothing of it is read, not even its lines.
        facts.diagnostics.push(skipped_file(Span::default(), why));
        return facts;
    }
    facts.line_index = LineIndex::new(text);
    facts.text_hash = text_hash(text);
    facts.suppressions = suppressions(text, &facts.line_index);
    if kind == Some(FileKind::View) {
        facts.template = project::template_parts(&facts.relative_path).map(|(logical_path, format, handler)| {
            let file_name = logical_path.rsplit('/').next().unwrap_or("");
            Box::new(Template {
                partial: file_name.starts_with('_'),
                layout: logical_path.starts_with("layouts/"),
                logical_path,
                format,
                handler,
                ivars_read: Vec::new(),
                helpers_called: Vec::new(),
                strict_locals: strict_locals(text, &facts.line_index),
            })
        });
    }
    match (kind, parsed.language) {
        (Some(FileKind::Locale), Language::Yaml) => facts.locale = Some(Box::new(i18n::extract(text, &facts.line_index))),
        (Some(FileKind::DatabaseSchema), Language::Sql) => {
            facts.database_schema = Some(Box::new(structure_sql::extract(text, &facts.line_index)));
        }
        (Some(FileKind::Deployment), Language::Text) => {
            facts.deploy = match deploy::deploy_kind(&facts.relative_path) {
                Some(deploy::DeployKind::Lockfile) => Some(deploy::DeployFile::Lockfile(deploy::read_lockfile(text, &facts.line_index))),
                Some(deploy::DeployKind::Procfile) => Some(deploy::DeployFile::Commands(deploy::read_procfile(text, &facts.line_index))),
                Some(deploy::DeployKind::Dockerfile) => {
                    Some(deploy::DeployFile::Commands(deploy::read_dockerfile(text, &facts.line_index)))
                }
                _ => None,
            }
            .map(Box::new);
        }
        _ => {}
    }
    let Some(tree) = parsed.ruby.as_ref() else {
        if let Some(Skipped::TooDeep { offset, .. }) = parsed.skipped {
            facts.diagnostics.push(skipped_file(
                facts.line_index.span(offset..offset),
                format!("its Ruby nests more than {} levels deep here", crate::syntax::parse::MAX_NESTING),
            ));
        }
        return facts;
    };
    let ruby_text = parsed.ruby_text(text);
    let error_rule =
        if parsed.language == Language::Ruby && kind != Some(FileKind::View) { rule::PARSE_ERROR } else { rule::TEMPLATE_PARSE_ERROR };
    // An ERB template's Ruby is held to Ruby's syntax here; a `.rb` file's syntax is Prism's to judge
    // (`roundhouse::check_file`, as the compiler parses it); a HAML template's masked Ruby has its
    // block structure taken out: not held to Ruby's syntax, only to the ingest's rules.
    if parsed.language == Language::Erb {
        facts.diagnostics = syntax_errors(tree, ruby_text, error_rule);
    }
    let outline = if kind == Some(FileKind::Test) { Outline::keeping(tree, ruby_text, declares) } else { Outline::new(tree, ruby_text) };
    let references = references::extract(tree.root_node(), ruby_text);
    facts.route_helper_calls = references.route_helpers;
    if parsed.language == Language::Haml {
        let parameters = references::opened_block_parameters(text);
        facts.route_helper_calls.retain(|r| !parameters.contains(&*r.name));
    }
    facts.constants = references.constants;
    facts.sqlite3_uses = references.sqlite3_uses;
    facts.render_calls = references.renders;
    facts.association_loads = references.association_loads;
    facts.hash_writes = references.hash_writes;
    facts.uses = references.uses;
    match deploy::deploy_kind(&facts.relative_path) {
        Some(deploy::DeployKind::Gemfile) => {
            facts.deploy = Some(Box::new(deploy::DeployFile::Gemfile(deploy::read_gemfile(tree.root_node(), ruby_text))));
        }
        Some(deploy::DeployKind::Puma) => {
            facts.deploy = Some(Box::new(deploy::DeployFile::Puma(deploy::read_puma(tree.root_node(), ruby_text))))
        }
        _ => {}
    }
    if parsed.language == Language::Ruby {
        match kind {
            // Not a rake task: it runs alone, not among a server's threads.
            Some(k)
                if (k.is_app_code() || matches!(k, FileKind::Initializer | FileKind::Application | FileKind::Environment))
                    && !facts.relative_path.ends_with(".rake")
                    && !facts.relative_path.starts_with("lib/tasks/") =>
            {
                facts.runtime_uses = deploy::runtime_uses(tree.root_node(), ruby_text, false);
            }
            Some(FileKind::Test) => facts.runtime_uses = deploy::runtime_uses(tree.root_node(), ruby_text, true),
            _ => {}
        }
    }
    if let Some(template) = facts.template.as_mut() {
        template.ivars_read = references.ivars_read;
        template.helpers_called = references.helper_calls;
    }
    // Models and controllers carry their own methods; definitions list the other namespaces.
    let is_model_or_controller = |ns: &&crate::syntax::outline::Namespace| {
        ns.kind == NamespaceKind::Class && matches!(kind, Some(FileKind::Model | FileKind::Controller))
    };
    facts.definitions = outline
        .namespaces()
        .into_iter()
        .filter(|ns| !is_model_or_controller(ns))
        .map(|ns| Definition {
            kind: ns.kind,
            name: ns.name.clone(),
            superclass: ns.superclass.clone(),
            methods: method_summaries(&ns.items),
            span: ns.span,
            name_span: ns.name_span,
        })
        .collect();
    match kind {
        Some(FileKind::Model) => {
            let namespaces = outline.namespaces();
            facts.models = namespaces.iter().filter(|ns| ns.kind == NamespaceKind::Class).map(|ns| model::extract(ns)).collect();
            facts.table_name_prefixes = model::table_name_prefixes(&namespaces, tree, ruby_text);
        }
        Some(FileKind::Controller) => {
            facts.controllers = outline
                .namespaces()
                .into_iter()
                .filter(|ns| {
                    ns.kind == NamespaceKind::Class
                        && (ns.name.ends_with("Controller") || ns.superclass.as_deref().is_some_and(|s| s.ends_with("Controller")))
                })
                .map(controller::extract)
                .collect();
            for controller in &mut facts.controllers {
                controller.action_calls =
                    controller.actions.iter().map(|a| (a.name.clone(), controller::calls_in(tree, ruby_text, a.span))).collect();
                controller.method_calls =
                    controller.private_methods.iter().map(|m| (m.name.clone(), controller::calls_in(tree, ruby_text, m.span))).collect();
                controller.responding_actions = controller
                    .actions
                    .iter()
                    .filter(|a| controller::ends_in_response(tree, ruby_text, a.span))
                    .map(|a| a.name.clone())
                    .collect();
            }
            let ranges: Vec<(String, std::ops::Range<usize>)> =
                facts.controllers.iter().map(|c| (c.class_name.clone(), c.span.range())).collect();
            facts.permits = permits::extract(tree.root_node(), ruby_text, &ranges);
        }
        Some(FileKind::Schema) => facts.schema = Some(Box::new(schema::extract(&outline))),
        Some(FileKind::DatabaseSchema) => facts.database_schema = Some(Box::new(schema::extract(&outline))),
        Some(FileKind::Migration) => facts.migration = Some(Box::new(migration::extract(tree.root_node(), ruby_text))),
        Some(FileKind::Routes) => facts.routes = Some(Box::new(routes::extract(&outline, facts.relative_path != "config/routes.rb"))),
        Some(FileKind::Application | FileKind::Environment | FileKind::Initializer) => {
            facts.config = Some(Box::new(config::extract(&outline, tree.root_node(), ruby_text, kind == Some(FileKind::Initializer))));
        }
        _ => {}
    }
    if kind.is_some_and(FileKind::is_app_code) {
        facts.concern_macros = concern_macros::extract(&outline.items, tree, ruby_text);
    }
    // A schema's outline is its tables' columns again, call by call: `schema` holds what is read of
    // them (a 500-table schema's outline was megabytes).
    if !matches!(kind, Some(FileKind::Schema | FileKind::DatabaseSchema)) {
        facts.outline = outline;
    }
    facts
}

//! The file → tree map: for each source file, where Roundhouse writes it in the CRuby, JVM and Spinel
//! trees (`shared/spec/trees-and-previews.md` §2, `shared/reference/emitted-naming.md`), which runtime
//! swaps its code reaches in the JVM tree, its Spinel lane, or why it lands in no tree.
//!
//! The unit of output is the class: only the class name decides an emitted path, with Roundhouse's own
//! `snake_case` (no break inside an acronym). Not modelled yet: `<X>Params` classes (they need the
//! controllers' permit lists), the `require` exception to `autoload_lib(ignore:)`, and
//! `action_text/rich_text*.rb`.

use serde::Serialize;

use super::ingest::{self, AppReading, Reading};
use crate::rails::FileFacts;
use crate::rails::inflect::pluralize;
use crate::rails::project::FileKind;
use crate::syntax::outline::{Item, Namespace, NamespaceKind};

pub use crate::catalogue::{Lane, Target};

/// Why a deployment file (`Gemfile.lock`, a `Procfile`, a `Dockerfile`) lands in no tree.
pub const DEPLOYMENT_NOT_READ: &str = "each tree brings its own Gemfile, lockfile and Puma configuration; the app's deployment files are read for its runtime lanes (`switchyard lanes`)";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetTree {
    pub paths: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub swaps: Vec<String>,
    /// `aot` or `cruby` in the Spinel tree; `None` elsewhere or where the file lands nowhere.
    pub lane: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeEntry {
    pub source: String,
    pub targets: Vec<(Target, TargetTree)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl TreeEntry {
    pub fn target(&self, target: Target) -> Option<&TargetTree> {
        self.targets.iter().find(|(t, _)| *t == target).map(|(_, tree)| tree)
    }

    /// The contract's JSON shape: `{"source", "targets": {"ruby": {"paths", "swaps", "lane"}, …}, "note"}`,
    /// with only the `targets` asked for.
    pub fn to_json(&self, targets: &[Target]) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        for (target, tree) in self.targets.iter().filter(|(t, _)| targets.contains(t)) {
            map.insert(target.as_str().to_owned(), serde_json::json!({"paths": tree.paths, "swaps": tree.swaps, "lane": tree.lane}));
        }
        let mut value = serde_json::json!({"source": self.source, "targets": map});
        if let Some(note) = &self.note {
            value["note"] = serde_json::Value::String(note.clone());
        }
        value
    }

    /// One line for a lens or a status item: `CRuby → app/models/post.rb · JVM → same · Spinel: AOT`.
    pub fn summary(&self) -> String {
        let ruby = self.target(Target::Ruby).map(|t| t.paths.clone()).unwrap_or_default();
        if ruby.is_empty() {
            return format!("No tree: {}", self.note.as_deref().unwrap_or("Roundhouse does not emit this file"));
        }
        let first = |paths: &[String]| if paths.len() > 1 { format!("{} (+{})", paths[0], paths.len() - 1) } else { paths[0].clone() };
        let mut parts = vec![format!("CRuby → {}", first(&ruby))];
        if let Some(jvm) = self.target(Target::Jruby) {
            let path = if jvm.paths == ruby { "same".to_owned() } else { first(&jvm.paths) };
            let swaps = if jvm.swaps.is_empty() {
                String::new()
            } else {
                format!(" ({} swap{})", jvm.swaps.len(), if jvm.swaps.len() == 1 { "" } else { "s" })
            };
            parts.push(format!("JVM → {path}{swaps}"));
        }
        if let Some(spinel) = self.target(Target::Spinel) {
            parts.push(match spinel.lane {
                Some("aot") => "Spinel: AOT".to_owned(),
                Some(lane) => format!("Spinel: {lane}"),
                None => "Spinel: none".to_owned(),
            });
        }
        parts.join(" · ")
    }
}

/// Every file of an app mapped, sorted by source path.
pub fn map_app(files: &[std::sync::Arc<FileFacts>]) -> Vec<TreeEntry> {
    let app = AppFacts::new(files);
    let mut entries: Vec<TreeEntry> = files.iter().map(|f| map_file(f, &app)).collect();
    entries.sort_by(|a, b| a.source.cmp(&b.source));
    entries
}

/// What the map needs to know about the whole app.
pub struct AppFacts {
    /// Table names in `db/schema.rb` (without one, the tables db/migrate creates).
    pub tables: Vec<String>,
    /// What deciding whether a file is read needs (`ingest::reading`).
    pub reading: AppReading,
    /// Source file → the `<X>Params` files its controllers' permit lists produce.
    pub params: std::collections::HashMap<String, Vec<String>>,
    /// The `<X>Params` classes, in the order the files above list them.
    pub params_specs: Vec<ParamsSpec>,
    /// Namespace → its `table_name_prefix` (Roundhouse reads them, as Rails does, before the models).
    pub table_prefixes: std::collections::HashMap<String, String>,
}

impl AppFacts {
    pub fn new(files: &[std::sync::Arc<FileFacts>]) -> AppFacts {
        let mut tables: Vec<String> =
            files.iter().filter_map(|f| f.schema.as_ref()).flat_map(|s| s.tables.iter().map(|t| t.name.clone())).collect();
        // Without db/schema.rb, the schema is db/migrate folded in file-name order.
        if !files.iter().any(|f| f.relative_path == "db/schema.rb") {
            let mut migrations: Vec<&std::sync::Arc<FileFacts>> = files.iter().filter(|f| f.migration.is_some()).collect();
            migrations.sort_by(|a, b| a.relative_path.cmp(&b.relative_path));
            tables.extend(crate::rails::migration::fold(migrations.iter().filter_map(|f| f.migration.as_deref())));
        }
        let params_specs = params_specs(files);
        AppFacts {
            tables,
            reading: AppReading::new(files),
            params: params_files(&params_specs),
            params_specs,
            table_prefixes: crate::rails::table_name_prefixes(files),
        }
    }
}

/// One `<X>Params` class Roundhouse writes (emitted-naming §6): one per distinct (resource, fields).
#[derive(Debug, Clone)]
pub struct ParamsSpec {
    pub resource: String,
    pub fields: Vec<String>,
    /// The controllers whose methods declare the list, in first-seen order.
    pub declaring: Vec<String>,
    /// The files declaring it.
    pub sources: Vec<String>,
    /// The class's name: `<Res>Params`, or prefixed, or numbered on a clash.
    pub name: String,
    /// Whether it holds the unqualified `<Res>Params` name: the list whose fields size the model's
    /// `from_params` and `update` (the only list of its resource, or the first declared by a
    /// controller named for the resource).
    pub canonical: bool,
}

/// `<X>Params` classes (emitted-naming §6): one per distinct (resource, fields); a resource with one
/// list gets `<Res>Params`; with several, the first list declared by a controller named for the
/// resource keeps it and the others are prefixed with their first controller's path; clashes get 2, 3….
pub fn params_specs(files: &[std::sync::Arc<FileFacts>]) -> Vec<ParamsSpec> {
    let mut specs: Vec<ParamsSpec> = Vec::new();
    let mut ordered: Vec<&std::sync::Arc<FileFacts>> = files.iter().filter(|f| !f.permits.is_empty()).collect();
    ordered.sort_by(|a, b| a.relative_path.cmp(&b.relative_path));
    for file in ordered {
        for permit in &file.permits {
            match specs.iter_mut().find(|s| s.resource == permit.resource && s.fields == permit.fields) {
                Some(spec) => {
                    if !spec.declaring.contains(&permit.controller) {
                        spec.declaring.push(permit.controller.clone());
                    }
                    if !spec.sources.contains(&file.relative_path) {
                        spec.sources.push(file.relative_path.clone());
                    }
                }
                None => specs.push(ParamsSpec {
                    resource: permit.resource.clone(),
                    fields: permit.fields.clone(),
                    declaring: vec![permit.controller.clone()],
                    sources: vec![file.relative_path.clone()],
                    name: String::new(),
                    canonical: false,
                }),
            }
        }
    }
    let names_resource = |controller: &str, resource: &str| {
        let last = controller.rsplit("::").next().unwrap_or(controller);
        let stem = snake_case(last.strip_suffix("Controller").unwrap_or(last));
        stem == resource || crate::rails::inflect::singularize(&stem) == resource
    };
    let mut taken: Vec<String> = Vec::new();
    let mut resources: Vec<String> = Vec::new();
    for spec in &specs {
        if !resources.contains(&spec.resource) {
            resources.push(spec.resource.clone());
        }
    }
    for resource in resources {
        let of_resource: Vec<usize> = (0..specs.len()).filter(|&i| specs[i].resource == resource).collect();
        let canonical = if of_resource.len() == 1 {
            Some(of_resource[0])
        } else {
            of_resource.iter().copied().find(|&i| specs[i].declaring.iter().any(|c| names_resource(c, &resource)))
        };
        let base = format!("{}Params", crate::rails::inflect::camelize(&resource));
        for i in of_resource {
            let mut name = if Some(i) == canonical {
                base.clone()
            } else {
                let first = specs[i].declaring.first().map(String::as_str).unwrap_or("");
                format!("{}{base}", first.strip_suffix("Controller").unwrap_or(first).replace("::", ""))
            };
            if taken.contains(&name) {
                let mut n = 2;
                while taken.contains(&format!("{name}{n}")) {
                    n += 1;
                }
                name = format!("{name}{n}");
            }
            taken.push(name.clone());
            specs[i].name = name;
            specs[i].canonical = Some(i) == canonical;
        }
    }
    specs
}

/// Source file → the `<X>Params` files its controllers' permit lists produce.
fn params_files(specs: &[ParamsSpec]) -> std::collections::HashMap<String, Vec<String>> {
    let mut out: std::collections::HashMap<String, Vec<String>> = std::collections::HashMap::new();
    let mut resources: Vec<&str> = Vec::new();
    for spec in specs {
        if !resources.contains(&spec.resource.as_str()) {
            resources.push(&spec.resource);
        }
    }
    for spec in resources.iter().flat_map(|r| specs.iter().filter(move |s| s.resource == *r)) {
        for source in &spec.sources {
            out.entry(source.clone()).or_default().push(format!("app/models/{}.rb", snake_case(&spec.name)));
        }
    }
    out
}

/// Roundhouse's `snake_case`: lowercase, with `_` only before a capital that follows a lowercase
/// letter or a digit (`HTMLParser` → `htmlparser`, `FAQRow` → `faqrow`).
pub fn snake_case(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len() + 4);
    let mut previous: Option<char> = None;
    for c in segment.chars() {
        if c.is_ascii_uppercase() && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit()) {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
        previous = Some(c);
    }
    out
}

/// `A::BClass` → `a/bclass`… per segment.
pub fn emitted_stem(class_name: &str) -> String {
    class_name.trim_start_matches("::").split("::").map(snake_case).collect::<Vec<_>>().join("/")
}

fn no_tree(source: &str, note: impl Into<String>) -> TreeEntry {
    let empty = TargetTree { paths: Vec::new(), swaps: Vec::new(), lane: None };
    TreeEntry { source: source.to_owned(), targets: Target::ALL.iter().map(|t| (*t, empty.clone())).collect(), note: Some(note.into()) }
}

/// The same paths in every tree; runtime swaps in the JVM tree; the Spinel lane.
fn landed(source: &str, paths: Vec<String>, swaps: Vec<String>, lane: &'static str, note: Option<String>) -> TreeEntry {
    let targets = Target::ALL
        .iter()
        .map(|t| {
            let tree = match t {
                Target::Ruby => TargetTree { paths: paths.clone(), swaps: Vec::new(), lane: None },
                Target::Jruby => TargetTree { paths: paths.clone(), swaps: swaps.clone(), lane: None },
                Target::Spinel => TargetTree { paths: paths.clone(), swaps: Vec::new(), lane: Some(lane) },
            };
            (*t, tree)
        })
        .collect();
    TreeEntry { source: source.to_owned(), targets, note }
}

/// The runtime swaps of the JVM tree that a file's code reaches.
fn swaps(facts: &FileFacts) -> Vec<String> {
    let mut found = Vec::new();
    let mentions = |needle: &str| facts.constants.iter().any(|c| c == needle || c.starts_with(&format!("{needle}::")));
    if mentions("Markly") {
        found.push("Markly → commonmark-java shim (runtime/markly_jruby.rb)".to_owned());
    }
    if mentions("SQLite3") {
        found.push("SQLite3 → undefined (the tree reaches SQLite through JDBC, without the sqlite3 gem)".to_owned());
    }
    found
}

/// Classes reachable through the program, module bodies and class bodies (not blocks), pre-order.
fn classes(items: &[Item]) -> Vec<&Namespace> {
    let mut out = Vec::new();
    for item in items {
        if let Item::Namespace(ns) = item {
            if ns.kind == NamespaceKind::Class {
                out.push(ns);
            }
            out.extend(classes(&ns.items));
        }
    }
    out
}

/// Modules whose body Roundhouse reads (`ingest::module_read`), reached the same way; a nested
/// `ClassMethods` folds into its parent.
fn qualifying_modules(items: &[Item], nested: bool) -> Vec<&Namespace> {
    let mut out = Vec::new();
    for item in items {
        if let Item::Namespace(ns) = item {
            let class_methods = nested && ns.name.rsplit("::").next() == Some("ClassMethods");
            if ns.kind == NamespaceKind::Module && !class_methods && ingest::module_read(ns) {
                out.push(ns);
            }
            out.extend(qualifying_modules(&ns.items, true));
        }
    }
    out
}

fn library_paths(facts: &FileFacts) -> Vec<String> {
    let mut paths: Vec<String> = classes(&facts.outline.items).iter().map(|c| format!("app/models/{}.rb", emitted_stem(&c.name))).collect();
    paths.extend(qualifying_modules(&facts.outline.items, false).iter().map(|m| format!("app/models/{}.rb", emitted_stem(&m.name))));
    paths.dedup();
    paths
}

/// Where one file lands.
pub fn map_file(facts: &FileFacts, app: &AppFacts) -> TreeEntry {
    let source = facts.relative_path.as_str();
    let Some(kind) = facts.kind else { return no_tree(source, "outside any Rails app") };
    if let Reading::NotRead(why) = ingest::reading(facts, Some(&app.reading)) {
        return no_tree(source, why);
    }
    let swaps = swaps(facts);
    let library = |facts: &FileFacts, what: &str| {
        let paths = library_paths(facts);
        if paths.is_empty() {
            no_tree(source, format!("{what} with no class and no module that declares something: nothing to emit"))
        } else {
            landed(source, paths, swaps.clone(), "aot", None)
        }
    };
    match kind {
        FileKind::Model | FileKind::Concern if source.starts_with("app/models/") => {
            let Some(class) = ingest::first_class(&facts.outline.items).filter(|c| ingest::is_model(c)) else {
                return library(facts, "a model-folder file");
            };
            let stem = emitted_stem(&class.name);
            let mut paths = vec![format!("app/models/{stem}.rb"), format!("sig/app/models/{stem}.rbs")];
            let last = class.name.rsplit("::").next().unwrap_or(&class.name);
            let table = format!("{}{}", crate::rails::model::table_prefix(&class.name, &app.table_prefixes), pluralize(&snake_case(last)));
            let mut notes = Vec::new();
            if app.tables.contains(&table) {
                paths.push(format!("app/models/{}.rb", emitted_stem(&format!("{}Row", class.name))));
            } else {
                notes.push(format!("no `{table}` table in db/schema.rb, so no {}Row", class.name));
            }
            if facts.models.iter().any(|m| !m.scopes.is_empty() || !m.enums.is_empty()) {
                paths.push("app/models/relation_scopes.rb".to_owned());
            }
            let others = classes(&facts.outline.items).len().saturating_sub(1 + classes(&class.items).len());
            if others > 0 {
                notes.push(format!("only {} is emitted from a model file: {others} other class(es) here are dropped", class.name));
            }
            landed(source, paths, swaps, "aot", (!notes.is_empty()).then(|| notes.join("; ")))
        }
        FileKind::Controller | FileKind::Concern if source.starts_with("app/controllers/") => {
            let all = classes(&facts.outline.items);
            let controller = all.iter().find(|c| c.name.rsplit("::").next().is_some_and(|n| n.ends_with("Controller"))).or(all.first());
            match controller {
                Some(controller) => {
                    let dropped = all.len() - 1;
                    let note = (dropped > 0).then(|| {
                        format!(
                            "only {} gets a file: the {dropped} other class(es) here are not emitted as files of their own",
                            controller.name
                        )
                    });
                    let mut paths = vec![format!("app/controllers/{}.rb", emitted_stem(&controller.name))];
                    paths.extend(app.params.get(source).cloned().unwrap_or_default());
                    landed(source, paths, swaps, "aot", note)
                }
                None => library(facts, "a controller-folder file"),
            }
        }
        FileKind::View => view_entry(source),
        FileKind::Routes => landed(source, vec!["config/routes.rb".to_owned(), "app/route_helpers.rb".to_owned()], Vec::new(), "aot", None),
        FileKind::Schema => landed(
            source,
            vec!["config/schema.rb".to_owned(), "db/seed.sql".to_owned()],
            Vec::new(),
            "aot",
            Some("foreign keys are dropped from the DDL".to_owned()),
        ),
        FileKind::Application => landed(source, vec!["config/application.rb".to_owned()], Vec::new(), "aot", None),
        FileKind::Initializer => landed(
            source,
            vec!["config/application.rb".to_owned()],
            Vec::new(),
            "aot",
            Some("only its config assignments are read, into config/application.rb; other statements are not carried".to_owned()),
        ),
        FileKind::Environment => no_tree(source, "config/environments/* is not read"),
        FileKind::Locale => no_tree(source, "config/locales/* is not read"),
        FileKind::DatabaseSchema => no_tree(source, "Roundhouse reads db/schema.rb (else db/migrate), not this file"),
        FileKind::Deployment => no_tree(source, DEPLOYMENT_NOT_READ),
        // Folded into config/schema.rb when there is no db/schema.rb (the reading says so).
        FileKind::Migration => landed(source, vec!["config/schema.rb".to_owned(), "db/seed.sql".to_owned()], Vec::new(), "aot", None),
        FileKind::Test => test_entry(facts),
        FileKind::Helper | FileKind::AppSupport | FileKind::Library | FileKind::Concern => match ingest::dropped_by(facts) {
            // Read on its own, the file is dropped whole when its ingest rejects a construct.
            Some(finding) if ingest::reading(facts, Some(&app.reading)) == Reading::FileByFile => no_tree(
                source,
                format!(
                    "Roundhouse drops this file: its ingest rejects what `{}` reports on line {}",
                    finding.rule,
                    finding.span.start.line + 1
                ),
            ),
            _ => library(facts, "a support file"),
        },
        FileKind::OtherRuby => match source {
            "db/seeds.rb" => landed(source, vec!["db/seeds.rb".to_owned()], swaps, "aot", None),
            "config/importmap.rb" => landed(source, vec!["config/importmap.rb".to_owned()], Vec::new(), "aot", None),
            _ => no_tree(source, "Roundhouse does not read this file"),
        },
        FileKind::Model | FileKind::Controller => no_tree(source, "not read"),
    }
}

/// The files a template writes in the CRuby tree (what `views.output-collision` compares): a
/// template's place depends on its path alone.
pub fn template_paths(facts: &FileFacts) -> Vec<String> {
    view_entry(&facts.relative_path).target(Target::Ruby).map(|t| t.paths.clone()).unwrap_or_default()
}

fn view_entry(source: &str) -> TreeEntry {
    let Some(name) = source.strip_prefix("app/views/") else { return no_tree(source, "not under app/views") };
    if let Some(stem) = name.strip_suffix(".jbuilder") {
        let (base, format) = stem.rsplit_once('.').map_or((stem, "json"), |(b, f)| (b, f));
        return if format == "json" {
            landed(source, vec![format!("app/views/{base}_json.rb")], Vec::new(), "aot", None)
        } else {
            no_tree(source, format!("jbuilder for `{format}` is not emitted (only json)"))
        };
    }
    let Some((base, format)) = template_stem(name) else {
        let engine = name.rsplit('.').next().unwrap_or("");
        return no_tree(source, format!("`.{engine}` templates are not read (views.template-engine)"));
    };
    if emitted_format(format) {
        landed(source, vec![format!("app/views/{base}.rb")], Vec::new(), "aot", None)
    } else {
        no_tree(source, format!("`{format}` templates are not emitted (views.template-format)"))
    }
}

/// Where a template's compiled function is, as the compiler names it: the modules under `Views`
/// (each folder camelized, `ta-in` → `Ta-in`) and the method (the file's name without a partial's
/// `_` and without its format and handler — a locale stays, `show.en` —, `_turbo_stream`/`_svg`
/// after it for those formats, `_` before a name that starts with a digit and before `new`).
/// `None` for a file that is no emitted ERB or HAML template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewFunction {
    pub modules: Vec<String>,
    pub name: String,
    pub kind: ViewKind,
    /// The parameter it takes first, named for its folder: a layout's `body`; a partial's folder in
    /// the singular (`comments/_form` → `comment`); for an action's template, the name left out of
    /// its optional locals (`posts/index` → `posts`, `posts/show` → `post`), which it does not take.
    pub record: String,
}

/// What a template is to the compiler, by its path: `app/views/layouts/…` (that folder exactly), a
/// partial (`_` first), else an action's template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewKind {
    Action,
    Partial,
    Layout,
}

impl ViewFunction {
    /// The names that are not Ruby (a method name, or a constant for a module), in order.
    pub fn not_ruby(&self) -> Vec<&str> {
        let word = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let method = word(&self.name) && !self.name.starts_with(|c: char| c.is_ascii_digit());
        let constant = |m: &&String| word(m) && m.starts_with(|c: char| c.is_ascii_uppercase());
        self.modules.iter().filter(|m| !constant(m)).map(String::as_str).chain((!method).then_some(self.name.as_str())).collect()
    }
}

pub fn view_function(source: &str) -> Option<ViewFunction> {
    let (stem, format) = template_stem(source.strip_prefix("app/views/")?).filter(|(_, format)| emitted_format(format))?;
    let (dir, file) = stem.rsplit_once('/').unwrap_or(("", stem));
    let partial = file.starts_with('_');
    let bare = file.trim_start_matches('_');
    let file = if format == "html" { bare.to_owned() } else { format!("{bare}_{format}") };
    let name = if file.starts_with(|c: char| c.is_ascii_digit()) || file == "new" { format!("_{file}") } else { file };
    let modules = if dir.is_empty() { Vec::new() } else { dir.split('/').map(module_name).collect() };
    let kind = if dir == "layouts" {
        ViewKind::Layout
    } else if partial {
        ViewKind::Partial
    } else {
        ViewKind::Action
    };
    let folder = dir.rsplit('/').next().unwrap_or(dir);
    let record = match kind {
        _ if dir.is_empty() => String::new(),
        ViewKind::Layout => "body".to_owned(),
        ViewKind::Action if bare == "index" => folder.to_owned(),
        _ => crate::rails::inflect::singularize(folder),
    };
    Some(ViewFunction { modules, name, kind, record })
}

/// An ERB or HAML template's path under `app/views` without its handler, split at its format
/// (`posts/show.en.html.erb` → `posts/show.en`, `html`; no format is `html`).
fn template_stem(name: &str) -> Option<(&str, &str)> {
    let stem = name.strip_suffix(".erb").or_else(|| name.strip_suffix(".haml"))?;
    Some(stem.rsplit_once('.').unwrap_or((stem, "html")))
}

/// The formats whose templates the compiler emits.
fn emitted_format(format: &str) -> bool {
    matches!(format, "html" | "turbo_stream" | "svg")
}

/// A view folder's module, as the compiler makes it: `snake_case`, then each `_` dropped and the
/// letter after it capitalized; every other character kept (`ta-in` → `Ta-in`).
fn module_name(folder: &str) -> String {
    let snake = snake_case(folder);
    let (mut out, mut upper) = (String::with_capacity(snake.len()), true);
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if std::mem::take(&mut upper) {
            out.push(c.to_ascii_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn test_entry(facts: &FileFacts) -> TreeEntry {
    let source = facts.relative_path.as_str();
    if source.starts_with("test/test_helpers/") {
        return no_tree(source, "no file of its own: its methods are copied into every compiled test class");
    }
    if let Some(fixture) = source.strip_prefix("test/fixtures/").and_then(|f| f.strip_suffix(".yml").or_else(|| f.strip_suffix(".yaml"))) {
        return landed(source, vec![format!("test/fixtures/{}.rb", fixture.replace('/', "_"))], Vec::new(), "aot", None);
    }
    let Some(test) = ingest::emitted_test(facts) else { return no_tree(source, "no test class: nothing to emit") };
    let lane = if test.aot { "aot" } else { "cruby" };
    let mut entry = landed(source, vec![test.path.clone()], Vec::new(), lane, None);
    if let Some((_, spinel)) = entry.targets.iter_mut().find(|(t, _)| *t == Target::Spinel) {
        spinel.paths = vec![test.spinel_path.clone()];
    }
    entry.note = Some(if test.aot {
        format!("{} becomes a `TestBase` test: the Spinel tree compiles it ahead of time", test.class_name)
    } else {
        format!(
            "{} does not inherit from ActiveSupport::TestCase or ActionDispatch::IntegrationTest: the Spinel tree runs it under CRuby",
            test.class_name
        )
    });
    entry
}

#[cfg(test)]
mod view_function_tests {
    use super::*;

    /// As the compiler names them (fixture `views-function-name-not-ruby`).
    #[test]
    fn a_template_is_named_as_the_compiler_names_it() {
        let f = |s: &str| view_function(s).map(|f| (f.modules.join("::"), f.name.clone(), f.not_ruby().len()));
        assert_eq!(f("app/views/posts/index.html.erb"), Some(("Posts".into(), "index".into(), 0)));
        assert_eq!(f("app/views/admin/user_profiles/_card.html.haml"), Some(("Admin::UserProfiles".into(), "card".into(), 0)));
        assert_eq!(f("app/views/posts/new.html.erb"), Some(("Posts".into(), "_new".into(), 0)));
        assert_eq!(f("app/views/errors/404.html.erb"), Some(("Errors".into(), "_404".into(), 0)));
        assert_eq!(f("app/views/posts/create.turbo_stream.erb"), Some(("Posts".into(), "create_turbo_stream".into(), 0)));
        assert_eq!(f("app/views/posts/index-v2.html.erb"), Some(("Posts".into(), "index-v2".into(), 1)));
        assert_eq!(f("app/views/posts/show.en.html.erb"), Some(("Posts".into(), "show.en".into(), 1)));
        assert_eq!(f("app/views/help/ta-in/show.html.erb"), Some(("Help::Ta-in".into(), "show".into(), 1)));
        assert_eq!(f("app/views/posts/index.erb"), Some(("Posts".into(), "index".into(), 0)));
        assert_eq!(f("app/views/posts/feed.xml.erb"), None);
        assert_eq!(f("app/views/posts/index.json.jbuilder"), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::Fixture;

    fn check(fixture: &str, expect: expect_test::Expect) {
        let fixture = Fixture::new(fixture);
        let snapshot = fixture.index.snapshot();
        let app = AppFacts::new(&snapshot);
        let mut out = String::new();
        for facts in &snapshot {
            let entry = map_file(facts, &app);
            let ruby = entry.target(Target::Ruby).map(|t| t.paths.join(", ")).unwrap_or_default();
            let spinel = entry.target(Target::Spinel).map(|t| format!("{} {:?}", t.paths.join(", "), t.lane)).unwrap_or_default();
            let swaps = entry.target(Target::Jruby).map(|t| t.swaps.join("; ")).unwrap_or_default();
            out.push_str(&format!("{} → [{ruby}] spinel [{spinel}]", entry.source));
            if !swaps.is_empty() {
                out.push_str(&format!(" swaps [{swaps}]"));
            }
            if let Some(note) = &entry.note {
                out.push_str(&format!(" — {note}"));
            }
            out.push('\n');
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn roundhouse_snake_case_keeps_acronyms_together() {
        assert_eq!(emitted_stem("HTMLParser"), "htmlparser");
        assert_eq!(emitted_stem("FAQRow"), "faqrow");
        assert_eq!(emitted_stem("NotAHelper"), "not_ahelper");
        assert_eq!(emitted_stem("RestrictedHTTP::PrivateNetworkGuard"), "restricted_http/private_network_guard");
        assert_eq!(emitted_stem("BadIPsError"), "bad_ips_error");
        assert_eq!(emitted_stem("Push::SubscriptionRow"), "push/subscription_row");
    }

    #[test]
    fn maps_each_kind_of_file() {
        check(
            r#"
            #- /config/application.rb
            module Shop
              class Application < Rails::Application
                config.autoload_lib(ignore: %w[assets tasks rails_ext])
              end
            end
            #- /db/schema.rb
            ActiveRecord::Schema[8.0].define(version: 1) do
              create_table "posts" do |t|
              end
            end
            #- /app/models/post.rb
            class Post < ApplicationRecord
              has_secure_password
              scope :recent, -> { order(:id) }
            end
            class Loose; end
            #- /app/models/widget.rb
            class Widget < ApplicationRecord
              self.table_name = "posts"
            end
            #- /app/models/open_room.rb
            class OpenRoom < Room; end
            #- /app/models/concerns/trashable.rb
            module Trashable
              extend ActiveSupport::Concern
              included do
                scope :trashed, -> { where.not(trashed_at: nil) }
              end
            end
            #- /app/helpers/messages/attachment_presentation.rb
            module Messages
              class AttachmentPresentation
                def html = Markly.render_html("x")
              end
            end
            #- /lib/html_parser.rb
            class HTMLParser; end
            #- /lib/rails_ext/filter.rb
            class Filter; end
            #- /app/forms/foo_form.rb
            class FooForm; end
            #- /app/controllers/admin/posts_controller.rb
            module Admin
              class LoginFailedError < StandardError; end
              class PostsController < ApplicationController
                def index; end
              end
            end
            #- /app/controllers/posts_controller.rb
            class PostsController < ApplicationController
              def create = Post.create(params.expect(post: [:title, :body]))
              private def post_params = params.require(:post).permit(:title)
              def comment_params = params.require(:comment).permit(:body).merge(user_id: 1)
            end
            #- /app/controllers/comments_controller.rb
            class CommentsController < ApplicationController
              def create = params.expect(comment: [:body, :user_id, tags: []])
              def other = params.permit(:x)
            end
            #- /app/views/posts/index.html.erb
            <h1>Posts</h1>
            #- /app/views/posts/_post.html.haml
            %p= post.title
            #- /app/views/posts/create.turbo_stream.erb
            <%= turbo_stream.remove "x" %>
            #- /app/views/posts/index.json.jbuilder
            json.array! @posts
            #- /app/views/posts/feed.xml.erb
            <feed/>
            #- /app/views/posts/legacy.html.slim
            h1 Legacy
            #- /config/routes.rb
            Rails.application.routes.draw do
            end
            #- /config/initializers/time.rb
            Time::DATE_FORMATS[:short] = "%d"
            #- /config/environments/production.rb
            Rails.application.configure do
            end
            #- /test/models/post_test.rb
            class PostTest < ActiveSupport::TestCase; end
            #- /test/models/comment_test.rb
            # Not an integration test, but this comment says < ActionDispatch::IntegrationTest
            class CommentTest < ActiveSupport::TestCase; end
            #- /test/controllers/posts_controller_test.rb
            class PostsControllerTest < ActionDispatch::IntegrationTest; end
            "#,
            expect_test::expect![[r#"
                app/controllers/admin/posts_controller.rb → [app/controllers/admin/posts_controller.rb] spinel [app/controllers/admin/posts_controller.rb Some("aot")] — only Admin::PostsController gets a file: the 1 other class(es) here are not emitted as files of their own
                app/controllers/comments_controller.rb → [app/controllers/comments_controller.rb, app/models/comment_params.rb] spinel [app/controllers/comments_controller.rb, app/models/comment_params.rb Some("aot")]
                app/controllers/posts_controller.rb → [app/controllers/posts_controller.rb, app/models/comment_params.rb, app/models/post_params.rb, app/models/posts_post_params.rb] spinel [app/controllers/posts_controller.rb, app/models/comment_params.rb, app/models/post_params.rb, app/models/posts_post_params.rb Some("aot")]
                app/forms/foo_form.rb → [] spinel [ None] — Roundhouse does not read app/forms/
                app/helpers/messages/attachment_presentation.rb → [app/models/messages/attachment_presentation.rb] spinel [app/models/messages/attachment_presentation.rb Some("aot")] swaps [Markly → commonmark-java shim (runtime/markly_jruby.rb)]
                app/models/concerns/trashable.rb → [app/models/trashable.rb] spinel [app/models/trashable.rb Some("aot")]
                app/models/open_room.rb → [app/models/open_room.rb] spinel [app/models/open_room.rb Some("aot")]
                app/models/post.rb → [app/models/post.rb, sig/app/models/post.rbs, app/models/post_row.rb, app/models/relation_scopes.rb] spinel [app/models/post.rb, sig/app/models/post.rbs, app/models/post_row.rb, app/models/relation_scopes.rb Some("aot")] — only Post is emitted from a model file: 1 other class(es) here are dropped
                app/models/widget.rb → [app/models/widget.rb, sig/app/models/widget.rbs] spinel [app/models/widget.rb, sig/app/models/widget.rbs Some("aot")] — no `widgets` table in db/schema.rb, so no WidgetRow
                app/views/posts/_post.html.haml → [app/views/posts/_post.rb] spinel [app/views/posts/_post.rb Some("aot")]
                app/views/posts/create.turbo_stream.erb → [app/views/posts/create.rb] spinel [app/views/posts/create.rb Some("aot")]
                app/views/posts/feed.xml.erb → [] spinel [ None] — `xml` templates are not emitted (views.template-format)
                app/views/posts/index.html.erb → [app/views/posts/index.rb] spinel [app/views/posts/index.rb Some("aot")]
                app/views/posts/index.json.jbuilder → [app/views/posts/index_json.rb] spinel [app/views/posts/index_json.rb Some("aot")]
                app/views/posts/legacy.html.slim → [] spinel [ None] — `.slim` templates are not read (views.template-engine)
                config/application.rb → [config/application.rb] spinel [config/application.rb Some("aot")]
                config/environments/production.rb → [] spinel [ None] — config/environments/* is not read
                config/initializers/time.rb → [config/application.rb] spinel [config/application.rb Some("aot")] — only its config assignments are read, into config/application.rb; other statements are not carried
                config/routes.rb → [config/routes.rb, app/route_helpers.rb] spinel [config/routes.rb, app/route_helpers.rb Some("aot")]
                db/schema.rb → [config/schema.rb, db/seed.sql] spinel [config/schema.rb, db/seed.sql Some("aot")] — foreign keys are dropped from the DDL
                lib/html_parser.rb → [app/models/htmlparser.rb] spinel [app/models/htmlparser.rb Some("aot")]
                lib/rails_ext/filter.rb → [] spinel [ None] — lib/rails_ext/ is in config.autoload_lib(ignore: …)
                test/controllers/posts_controller_test.rb → [test/controllers/posts_controller_test.rb] spinel [test/posts_controller_test.rb Some("aot")] — PostsControllerTest becomes a `TestBase` test: the Spinel tree compiles it ahead of time
                test/models/comment_test.rb → [test/models/comment_test.rb] spinel [test/comment_test.rb Some("aot")] — CommentTest becomes a `TestBase` test: the Spinel tree compiles it ahead of time
                test/models/post_test.rb → [test/models/post_test.rb] spinel [test/post_test.rb Some("aot")] — PostTest becomes a `TestBase` test: the Spinel tree compiles it ahead of time
            "#]],
        );
    }
}

//! Which files Roundhouse's ingest reads, and what a construct it rejects costs in each: the one answer
//! the tree map (`tree.rs`: where a file lands, or why nowhere), the rules (a file it never reads gets
//! no Roundhouse finding; a file it reads file by file loses its classes instead of stopping the
//! compile) and the previews share.
//!
//! Measured against Roundhouse itself (a one-construct app per folder, `scripts/fidelity.py ask`; the
//! cases are `tests/fixtures/fidelity/reading-*.fixture`):
//! - **compiled**: `app/models/**` (concerns and plain classes too), `app/controllers/**`, the templates
//!   it emits, `test/models/**`, `test/controllers/**`, `db/seeds.rb`, and the `test/test_helpers/*.rb`
//!   that `test/test_helper.rb` includes. A construct the ingest rejects stops a strict compile.
//! - **file by file**: `lib/` (minus `autoload_lib(ignore:)`), `extras/`, `app/{lib,jobs,channels,
//!   mailers,services,workers,serializers,policies,validators,presenters,helpers}`. A rejected
//!   construct drops the file (its classes are missing from every tree); the app compiles.
//! - **DSL only**: routes files, `db/schema.rb`, `config/application.rb` and initializers (their config
//!   settings), migrations (folded only without `db/schema.rb`), `config/importmap.rb`: their Ruby is
//!   not compiled, so no `syntax.*` rule applies.
//! - **not read**: everything else (`spec/`, `test/integration`, `test/system`, `app/components`,
//!   `.rb` files under `app/views`, `config/environments`, the `Gemfile`…).
//!
//! It does not decide what happens to a construct inside a file it reads: that is each rule's.

use crate::catalogue::{Family, Subject};
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::rails::FileFacts;
use crate::rails::project::FileKind;
use crate::syntax::outline::{Item, Namespace, NamespaceKind};

/// How the ingest reads one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// Compiled: a construct the ingest rejects stops a strict compile.
    Compiled,
    /// Compiled file by file: a construct the ingest rejects drops this file's classes from every tree.
    FileByFile,
    /// Read for its DSL (routes, schema, config keys, migrations, importmap pins), never compiled as code.
    Dsl,
    /// Not read: why.
    NotRead(String),
}

impl Reading {
    /// Whether its Ruby is compiled (the `syntax.*` rules and the model/controller rules apply).
    pub fn compiles_code(&self) -> bool {
        matches!(self, Reading::Compiled | Reading::FileByFile)
    }
}

/// The folders Roundhouse reads class by class, file by file.
pub const FILE_BY_FILE_DIRS: &[&str] = &[
    "extras",
    "lib",
    "app/lib",
    "app/jobs",
    "app/channels",
    "app/mailers",
    "app/services",
    "app/workers",
    "app/serializers",
    "app/policies",
    "app/validators",
    "app/presenters",
    "app/helpers",
];

/// What deciding a file's reading needs to know about its app.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AppReading {
    /// First-level `lib/` folders in `config.autoload_lib(ignore: …)` that no initializer requires.
    pub lib_ignored: Vec<String>,
    /// Modules `test/test_helper.rb` includes: the `test/test_helpers/*.rb` defining them are compiled.
    pub test_helpers_included: Vec<String>,
    /// Whether `db/schema.rb` exists (without it, Roundhouse folds `db/migrate`).
    pub has_schema: bool,
    /// The `config/routes/<name>.rb` files read: those `config/routes.rb` draws (`draw(:admin)`),
    /// directly or through a file it draws. Rails can load the others from `config/application.rb`;
    /// Roundhouse does not.
    pub routes_drawn: Vec<String>,
    /// The modules the app defines, by full name (`Taggable`, `Admin::Filterable`).
    pub modules: std::collections::HashSet<String>,
    /// The gems of the bundle (the lockfile's and the Gemfile's), `-` read as `_`.
    pub gems: std::collections::HashSet<String>,
    /// The classes the app defines, by full name (those of the files the compiler reads as code).
    pub classes: std::collections::HashSet<String>,
    /// The models whose superclasses, as written, reach Active Record: a subclass of one is the
    /// model rules' to judge. (A class on an Active Model base is a plain class to the compiler.)
    pub models: std::collections::HashSet<String>,
    /// The `to_fs` formats the initializers register, those the compiler reads and the others.
    pub time_formats: crate::roundhouse::time_formats::AppFormats,
    /// The models whose compiled file the compiler writes from something else: one named like the
    /// row struct it writes for another model (`ImportRow` beside `Import`), or one a class of the
    /// same name without a superclass reopens in another file it reads. Nothing of their bodies is
    /// compiled, so nothing is said of what it would make of them.
    pub replaced: std::collections::HashSet<String>,
    /// Whether a module of `app/helpers` defines a method, or a controller declares a
    /// `helper_method`: only then does the compiler point a template's helper calls at its runtime's
    /// view helpers (`views.helper-undefined`).
    pub helper_methods: bool,
}

impl AppReading {
    /// Whether `name` (a folder, a key, a constant's first name: `active_admin`, `Doorkeeper`) names a
    /// gem of the bundle, written with or without underscores (`activeadmin`, `doorkeeper`).
    pub fn names_gem(&self, name: &str) -> bool {
        let name = crate::rails::inflect::underscore(name);
        let squeezed = name.replace('_', "");
        self.gems.contains(&name) || self.gems.iter().any(|gem| gem.replace('_', "") == squeezed)
    }

    /// Whether `name`, as an `include` in a class inside `namespace` writes it, is a module the app
    /// defines (`Filterable` in `Admin::Post` may be `Admin::Filterable`).
    pub fn defines_module(&self, name: &str, namespace: &str) -> bool {
        let name = name.trim_start_matches("::");
        let mut scope = namespace;
        loop {
            let full = if scope.is_empty() { name.to_owned() } else { format!("{scope}::{name}") };
            if self.modules.contains(&full) {
                return true;
            }
            match scope.rsplit_once("::") {
                Some((outer, _)) => scope = outer,
                None if !scope.is_empty() => scope = "",
                None => return false,
            }
        }
    }
}

impl AppReading {
    pub fn new(files: &[std::sync::Arc<FileFacts>]) -> AppReading {
        let mut reading = AppReading::default();
        let mut required: Vec<&str> = Vec::new();
        let mut superclasses: std::collections::HashMap<&str, Option<&str>> = std::collections::HashMap::new();
        for file in files {
            match file.deploy.as_deref() {
                Some(crate::rails::deploy::DeployFile::Lockfile(lockfile)) => {
                    reading.gems.extend(lockfile.gems.iter().map(|g| g.name.replace('-', "_")));
                }
                Some(crate::rails::deploy::DeployFile::Gemfile(gemfile)) => {
                    reading.gems.extend(gemfile.gems.iter().map(|g| g.name.replace('-', "_")));
                }
                _ => {}
            }
            for namespace in file.outline.namespaces().into_iter().filter(|n| n.kind == crate::syntax::outline::NamespaceKind::Module) {
                reading.modules.insert(namespace.name.clone());
            }
            superclasses
                .extend(file.models.iter().map(|m| (m.class_name.as_str(), m.superclass.as_deref().map(|s| s.trim_start_matches("::")))));
            reading.helper_methods |= (file.relative_path.starts_with("app/helpers/")
                && file.definitions.iter().any(|d| !d.methods.is_empty()))
                || file.controllers.iter().any(|c| c.macros.iter().any(|m| m.name == "helper_method"));
            if let Some(config) = file.config.as_ref().filter(|_| file.kind == Some(FileKind::Initializer)) {
                required.extend(config.requires.iter().map(String::as_str));
                if file.relative_path.starts_with("config/initializers/") {
                    reading.time_formats.add(&config.time_formats, &file.relative_path);
                }
            }
            match file.relative_path.as_str() {
                "config/application.rb" => {
                    crate::syntax::outline::visit_calls(&file.outline.items, &mut |call| {
                        if call.method == "autoload_lib" {
                            reading.lib_ignored.extend(call.option("ignore").map(|v| v.names()).unwrap_or_default());
                        }
                    });
                }
                "test/test_helper.rb" => {
                    crate::syntax::outline::visit_calls(&file.outline.items, &mut |call| {
                        if call.method == "include" && call.receiver.is_none() {
                            reading.test_helpers_included.extend(call.arguments.iter().filter_map(|a| a.as_name()).map(str::to_owned));
                        }
                    });
                }
                "db/schema.rb" => reading.has_schema = true,
                _ => {}
            }
        }
        reading.routes_drawn = drawn_routes(files);
        // `autoload_lib(ignore:)` takes a folder off the autoload paths, not out of the app: one an
        // initializer requires by name (`require "rails_ext/…"`) is read after all.
        reading.lib_ignored.retain(|dir| !required.iter().any(|statement| statement.contains(dir.as_str())));
        // The classes of the files the compiler reads as code: a class of a folder it does not read
        // (`app/events/`) is no class of the compiled app, and a base to it is a gem's. Those written
        // without a superclass may reopen a model (`replaced`, below).
        let mut classes = std::collections::HashSet::new();
        let mut reopened = std::collections::HashSet::new();
        for file in files.iter().filter(|file| self::reading(file, Some(&reading)).compiles_code()) {
            for namespace in file.outline.namespaces().into_iter().filter(|n| n.kind != crate::syntax::outline::NamespaceKind::Module) {
                if namespace.kind == crate::syntax::outline::NamespaceKind::Class && namespace.superclass.is_none() {
                    reopened.insert(namespace.name.clone());
                }
                classes.insert(namespace.name.clone());
            }
        }
        reading.classes = classes;
        reading.models = superclasses
            .keys()
            .filter(|name| {
                let mut name: &str = name;
                (0..8).any(|_| match superclasses.get(name).copied().flatten() {
                    Some("ApplicationRecord" | "ActiveRecord::Base") => true,
                    Some(next) => {
                        name = next;
                        false
                    }
                    None => {
                        name = "";
                        false
                    }
                })
            })
            .map(|name| (*name).to_owned())
            .collect();
        reading.replaced = reading
            .models
            .iter()
            .filter(|name| reopened.contains(*name) || row_struct_of(name).is_some_and(|owner| reading.models.contains(owner)))
            .cloned()
            .collect();
        reading
    }
}

/// The model whose row struct the compiler names like `class_name` (`ImportRow` for `Import`), by
/// the name alone: a top-level name ending in `Row`.
pub fn row_struct_of(class_name: &str) -> Option<&str> {
    class_name.strip_suffix("Row").filter(|owner| !owner.is_empty() && !class_name.contains("::"))
}

/// The names of the `config/routes/*.rb` files reached from `config/routes.rb` through `draw`.
fn drawn_routes(files: &[std::sync::Arc<FileFacts>]) -> Vec<String> {
    fn draws(calls: &[crate::rails::routes::RouteCall], out: &mut Vec<String>) {
        for call in calls {
            if call.method == "draw"
                && call.receiver.is_none()
                && let Some(name) = call.arguments.first().and_then(|a| a.as_name())
            {
                out.push(name.to_owned());
            }
            draws(&call.children, out);
        }
    }
    let calls_of = |path: &str| files.iter().find(|f| f.relative_path == path).and_then(|f| f.routes.as_ref()).map(|r| &r.calls[..]);
    let mut drawn = Vec::new();
    let mut pending = Vec::new();
    draws(calls_of("config/routes.rb").unwrap_or_default(), &mut pending);
    while let Some(name) = pending.pop() {
        if drawn.contains(&name) {
            continue;
        }
        draws(calls_of(&format!("config/routes/{name}.rb")).unwrap_or_default(), &mut pending);
        drawn.push(name);
    }
    drawn.sort();
    drawn
}

/// How Roundhouse reads `facts`' file, from its path (and, given the app, `autoload_lib(ignore:)`, the
/// test helpers `test/test_helper.rb` includes and whether there is a `db/schema.rb`). Without the app
/// the path decides, and what depends on the app is taken to hold (a test helper is included, a `lib/`
/// folder is not ignored): what a file gets before its app is indexed, and what the per-file rules run
/// for.
pub fn reading(facts: &FileFacts, app: Option<&AppReading>) -> Reading {
    let source = facts.relative_path.as_str();
    let Some(kind) = facts.kind else { return Reading::NotRead("outside any Rails app".to_owned()) };
    match kind {
        FileKind::Model | FileKind::Controller | FileKind::Concern => Reading::Compiled,
        FileKind::View => view_reading(source),
        FileKind::Routes => match (source.strip_prefix("config/routes/").and_then(|r| r.strip_suffix(".rb")), app) {
            (Some(name), Some(app)) if !app.routes_drawn.iter().any(|d| d == name) => {
                Reading::NotRead(format!("config/routes.rb does not draw it (`draw(:{name})`), and Roundhouse reads no other routes file"))
            }
            _ => Reading::Dsl,
        },
        FileKind::Schema | FileKind::Initializer | FileKind::Application => Reading::Dsl,
        FileKind::Migration => match app {
            Some(app) if app.has_schema => Reading::NotRead("migrations are folded only when there is no db/schema.rb".to_owned()),
            _ => Reading::Dsl,
        },
        FileKind::Environment => Reading::NotRead("config/environments/* is not read".to_owned()),
        FileKind::Locale => Reading::NotRead("config/locales/* is not read".to_owned()),
        FileKind::DatabaseSchema => Reading::NotRead("Roundhouse reads db/schema.rb (else db/migrate), not this file".to_owned()),
        FileKind::Deployment => Reading::NotRead(super::tree::DEPLOYMENT_NOT_READ.to_owned()),
        FileKind::Test => test_reading(facts, app),
        FileKind::Helper | FileKind::AppSupport | FileKind::Library => {
            if !FILE_BY_FILE_DIRS.iter().any(|dir| source.starts_with(&format!("{dir}/"))) {
                let dir = source.rsplit_once('/').map_or(source, |(d, _)| d);
                return Reading::NotRead(format!("Roundhouse does not read {dir}/"));
            }
            // Of these folders Roundhouse reads only `.rb` files: a generator's ERB template
            // (`lib/templates/…/model.rb.erb`) is compiled by nothing.
            if !source.ends_with(".rb") {
                let dir = source.rsplit_once('/').map_or(source, |(d, _)| d);
                return Reading::NotRead(format!("Roundhouse reads only the Ruby files of {dir}/"));
            }
            let first = source.strip_prefix("lib/").and_then(|rest| rest.split_once('/')).map(|(first, _)| first);
            if let Some(first) = first.filter(|first| app.is_some_and(|a| a.lib_ignored.iter().any(|i| i == first))) {
                return Reading::NotRead(format!("lib/{first}/ is in config.autoload_lib(ignore: …)"));
            }
            Reading::FileByFile
        }
        FileKind::OtherRuby => match source {
            "db/seeds.rb" => Reading::Compiled,
            "config/importmap.rb" => Reading::Dsl,
            "Gemfile" => Reading::NotRead("the Gemfile is replaced by each tree's own (the JVM tree's uses jdbc-sqlite3)".to_owned()),
            _ => Reading::NotRead("Roundhouse does not read this file".to_owned()),
        },
    }
}

/// A template is compiled when Roundhouse emits it: ERB and HAML in html (or no format), turbo_stream
/// and svg; jbuilder for json.
fn view_reading(source: &str) -> Reading {
    let Some(name) = source.strip_prefix("app/views/") else { return Reading::NotRead("not under app/views".to_owned()) };
    if let Some(stem) = name.strip_suffix(".jbuilder") {
        let format = stem.rsplit_once('.').map_or("json", |(_, f)| f);
        return if format == "json" {
            Reading::Compiled
        } else {
            Reading::NotRead(format!("jbuilder for `{format}` is not emitted (only json)"))
        };
    }
    let Some(stem) = name.strip_suffix(".erb").or_else(|| name.strip_suffix(".haml")) else {
        let engine = name.rsplit('.').next().unwrap_or("");
        if engine == "rb" {
            return Reading::NotRead("Ruby files under app/views are not read".to_owned());
        }
        return Reading::NotRead(format!("`.{engine}` templates are not read (views.template-engine)"));
    };
    let format = stem.rsplit_once('.').map_or("html", |(_, f)| f);
    if matches!(format, "html" | "turbo_stream" | "svg") {
        Reading::Compiled
    } else {
        Reading::NotRead(format!("`{format}` templates are not emitted (views.template-format)"))
    }
}

fn test_reading(facts: &FileFacts, app: Option<&AppReading>) -> Reading {
    let source = facts.relative_path.as_str();
    if source.starts_with("test/models/") || source.starts_with("test/controllers/") {
        return Reading::Compiled;
    }
    if source.starts_with("test/fixtures/") && (source.ends_with(".yml") || source.ends_with(".yaml")) {
        return Reading::Compiled;
    }
    if let Some(name) = source.strip_prefix("test/test_helpers/") {
        let included = app.is_none_or(|app| {
            facts
                .definitions
                .iter()
                .any(|d| app.test_helpers_included.iter().any(|m| *m == d.name || m.ends_with(&format!("::{}", d.name))))
        });
        return if included {
            Reading::Compiled
        } else {
            Reading::NotRead(format!("test/test_helpers/{name} is read only when test/test_helper.rb includes its module"))
        };
    }
    Reading::NotRead("only test/models and test/controllers tests (and the test helpers test_helper.rb includes) are read".to_owned())
}

/// How Roundhouse reads the body of one class or module of a file it compiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// An Active Record model, an Active Model class or a controller: every class-body statement is
    /// compiled (a rejected construct there is the file's; a nested class is rejected).
    Full,
    /// A test class: its test and setup blocks and constants are compiled; a nested class is left out.
    Test,
    /// A library class or module (`lib/`, helpers, concerns, plain classes in `app/models`): methods and
    /// constant and class-variable assignments are compiled; other class-body calls are read one by
    /// one (a rejected construct drops the call), `alias` is dropped, and the rest is not read: calls
    /// on a receiver (`%w[a b].each do … end`), conditions, loops, other assignments (`@x = …`,
    /// `X ||= …`), bare expressions.
    Library,
    /// A class Roundhouse does not read: a model file's classes after the first, a controller file's
    /// classes beside its controller, a test file's beside its test.
    NotRead,
}

/// The first class, walking top-level statements and module bodies (not class bodies): the one class a
/// model file emits.
pub fn first_class(items: &[Item]) -> Option<&Namespace> {
    for item in items {
        if let Item::Namespace(ns) = item {
            if ns.kind == NamespaceKind::Class {
                return Some(ns);
            }
            if let Some(found) = first_class(&ns.items) {
                return Some(found);
            }
        }
    }
    None
}

/// Whether Roundhouse reads `class` as a model: it inherits from `ApplicationRecord` or
/// `ActiveRecord::Base` directly, or has no superclass and includes `ActiveModel::Model` or
/// `ActiveModel::Validations`. (A model's subclasses are library classes to its ingest.)
pub fn is_model(class: &Namespace) -> bool {
    let includes = class.items.iter().filter_map(|i| match i {
        Item::Call(c) if c.method == "include" && c.receiver.is_none() => Some(c.arguments.iter().filter_map(|a| a.as_name())),
        _ => None,
    });
    model_kind(class.superclass.as_deref(), includes.flatten())
}

/// The same decision from a model's facts (`rails::model::Model`).
pub fn is_model_facts(model: &crate::rails::model::Model) -> bool {
    let includes = model.concerns.iter().filter(|c| c.name == "include").flat_map(|c| c.arguments.iter().filter_map(|a| a.as_name()));
    model_kind(model.superclass.as_deref(), includes)
}

fn model_kind<'a>(superclass: Option<&str>, mut includes: impl Iterator<Item = &'a str>) -> bool {
    match superclass.map(|s| s.trim_start_matches("::")) {
        Some("ApplicationRecord" | "ActiveRecord::Base") => true,
        None => includes.any(|m| matches!(m, "ActiveModel::Model" | "ActiveModel::Validations")),
        _ => false,
    }
}

/// A compiled test, as Roundhouse emits it: the file is named after the test class
/// (`Opengraph::FetchTest` → `test/models/opengraph_fetch_test.rb`, `…ControllerTest` under
/// `test/controllers/`), and a class of `ActiveSupport::TestCase`, `Minitest::Test` or
/// `ActionDispatch::IntegrationTest` becomes a `TestBase` test that the Spinel tree compiles ahead of
/// time at `test/<stem>_test.rb`; a test of another base class stays in its folder, run by CRuby.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmittedTest {
    pub path: String,
    /// Where the Spinel tree puts it, and whether that is its AOT lane.
    pub spinel_path: String,
    pub aot: bool,
    /// The test class's name (its span: `class_span`).
    pub class_name: String,
    pub class_span: crate::syntax::Span,
}

/// The class a test file is about: of the classes at the top of the file (a class inside a module is
/// not one), the first that looks like a test (`…Test`, or a `…Test` / `…TestCase` /
/// `…IntegrationTest` parent), else the first. The others are the test's helpers.
pub fn test_class(facts: &FileFacts) -> Option<&Namespace> {
    let classes: Vec<&Namespace> = facts
        .outline
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Namespace(ns) if ns.kind == NamespaceKind::Class => Some(ns),
            _ => None,
        })
        .collect();
    let last_segment = |name: &str| name.rsplit("::").next().unwrap_or(name).to_owned();
    let looks_like_test = |class: &&&Namespace| {
        last_segment(&class.name).ends_with("Test")
            || class.superclass.as_deref().is_some_and(|s| matches!(last_segment(s).as_str(), "Test" | "TestCase" | "IntegrationTest"))
    };
    classes.iter().find(looks_like_test).or(classes.first()).copied()
}

pub fn emitted_test(facts: &FileFacts) -> Option<EmittedTest> {
    let class = test_class(facts)?;
    let stem_source = class.name.strip_suffix("Test").unwrap_or(&class.name);
    let stem = super::tree::emitted_stem(stem_source).replace('/', "_");
    let dir = if class.name.ends_with("ControllerTest") { "controllers" } else { "models" };
    let path = format!("test/{dir}/{stem}_test.rb");
    let aot = matches!(
        class.superclass.as_deref().map(|s| s.trim_start_matches("::")),
        Some("ActiveSupport::TestCase" | "Minitest::Test" | "ActionDispatch::IntegrationTest")
    );
    let spinel_path = if aot { format!("test/{stem}_test.rb") } else { path.clone() };
    Some(EmittedTest { path, spinel_path, aot, class_name: class.name.clone(), class_span: class.name_span })
}

/// Whether a module of a file read on its own has a body Roundhouse reads (and so emits it): one that
/// defines a method (in its body, a `class << self` or a nested `ClassMethods`), a constant or an
/// attribute (`attr_reader` and its kin), or holds a concern's `included` / `class_methods` block. A
/// module holding only other calls (`Inner.setting = 1`, `puts`) or only other namespaces is skipped,
/// its calls unread.
pub fn module_read(module: &Namespace) -> bool {
    module.items.iter().any(|item| match item {
        Item::Method(_) | Item::SingletonClass { .. } => true,
        Item::Assignment(a) => a.operator == "=" && is_constant_name(&a.target),
        Item::Conditional(_) => false,
        Item::Call(call) => {
            call.receiver.is_none()
                && (matches!(call.method.as_str(), "attr_reader" | "attr_writer" | "attr_accessor")
                    || matches!(call.method.as_str(), "included" | "class_methods") && call.block.is_some())
        }
        Item::Namespace(ns) => {
            ns.kind == NamespaceKind::Module && ns.name.ends_with("ClassMethods") && ns.items.iter().any(|i| matches!(i, Item::Method(_)))
        }
    })
}

fn is_constant_name(target: &str) -> bool {
    target.starts_with(|c: char| c.is_ascii_uppercase()) && target.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether the top-level code of a file read on its own (outside any class or module) is read: only
/// when the file defines a class, or a module whose body is read. A file of top-level statements
/// alone (`Dir[…].each { |f| require f }`) is not read.
pub fn top_level_read(facts: &FileFacts) -> bool {
    facts.outline.namespaces().iter().any(|ns| ns.kind == NamespaceKind::Class || module_read(ns))
}

/// How each class and module of `facts`' file is read, by the byte its definition starts at.
pub fn bodies(facts: &FileFacts) -> std::collections::HashMap<usize, Body> {
    let mut out = std::collections::HashMap::new();
    let kind = facts.kind;
    let classes: Vec<&Namespace> = facts.outline.namespaces().into_iter().filter(|ns| ns.kind == NamespaceKind::Class).collect();
    // The one class a model, controller or test file is about; the others beside it are not read.
    let main = match kind {
        // The first class decides: a model makes the file a model file (its other classes are not
        // read), anything else a library file (every class read as a library class).
        Some(FileKind::Model) => first_class(&facts.outline.items).filter(|c| is_model(c)).map(|c| (c, Body::Full)),
        Some(FileKind::Controller) => {
            classes.iter().find(|c| c.name.rsplit("::").next().is_some_and(|n| n.ends_with("Controller"))).map(|c| (*c, Body::Full))
        }
        Some(FileKind::Test) => test_class(facts).map(|c| (c, Body::Test)),
        _ => None,
    };
    let file_by_file = matches!(kind, Some(FileKind::Library | FileKind::Helper | FileKind::AppSupport));
    for ns in facts.outline.namespaces() {
        let body = match main {
            _ if ns.kind == NamespaceKind::Module && file_by_file && !module_read(ns) => Body::NotRead,
            _ if ns.kind == NamespaceKind::Module => Body::Library,
            Some((class, body)) if class.span == ns.span => body,
            // Inside the main class: a model's or controller's nested class is rejected as a whole
            // (`syntax.nested-definition` says so), a test's is left out, a library's is read.
            Some((class, body)) if class.span.start_byte < ns.span.start_byte && ns.span.end_byte <= class.span.end_byte => match body {
                Body::Full | Body::Test | Body::NotRead => Body::NotRead,
                Body::Library => Body::Library,
            },
            Some(_) => Body::NotRead,
            None => Body::Library,
        };
        out.insert(ns.span.start(), body);
    }
    out
}

/// Rules that describe how a file is read rather than a construct in it: they hold for files
/// Roundhouse does not read, and explain why.
fn about_reading(rule: RuleId) -> bool {
    crate::catalogue::subject(rule) == Subject::Reading
}

/// A finding as the file's reading makes it true: gone where Roundhouse does not read the construct,
/// a dropped file instead of a stopped compile where it reads the file on its own. A syntax error
/// holds in any file, except in a generator's template that nothing reads as Ruby (ERB that writes
/// Ruby, whatever its extension).
pub fn apply(reading: &Reading, relative_path: &str, finding: Diagnostic) -> Option<Diagnostic> {
    match reading {
        Reading::Compiled => Some(finding),
        Reading::NotRead(_)
            if finding.rule == rule!("syntax.parse-error") && crate::rails::project::is_generator_template(relative_path) =>
        {
            None
        }
        // A routes file nothing draws: its calls reach no route table.
        Reading::NotRead(_) => (about_reading(finding.rule)
            && (finding.rule.family() != Family::Routes || finding.rule == super::routes::FILE_NOT_DRAWN))
            .then_some(finding),
        Reading::Dsl => (about_reading(finding.rule)).then_some(finding),
        Reading::FileByFile if finding.severity == Severity::Error && rejects(finding.rule) => Some(Diagnostic {
            severity: Severity::Warning,
            message: format!(
                "{} Roundhouse compiles this file on its own, so it drops the file instead of stopping: its classes are missing from every tree.",
                finding.message
            ),
            ..finding
        }),
        Reading::FileByFile => Some(finding),
    }
}

/// Whether the compiler replays the calls of a library class's body written with `superclass`: only
/// on a base that is neither the app's own class, nor a framework base it models, nor a core class —
/// a gem's, whose DSL is the class. (The base is looked up as written, without the class's modules.)
pub fn replays_class_body(reading: &AppReading, superclass: Option<&str>) -> bool {
    let Some(base) = superclass.map(|s| s.trim_start_matches("::")) else { return false };
    const FRAMEWORK: &[&str] = &[
        "ActiveRecord::Base",
        "ActionController::Base",
        "ActionController::API",
        "ActionMailer::Base",
        "ActiveJob::Base",
        "ActionCable::Channel::Base",
        "ActionCable::Connection::Base",
    ];
    const CORE: &[&str] = &[
        "Integer",
        "Float",
        "String",
        "Symbol",
        "TrueClass",
        "FalseClass",
        "NilClass",
        "Array",
        "Hash",
        "Object",
        "Numeric",
        "Comparable",
        "Enumerable",
        "Kernel",
    ];
    !(FRAMEWORK.contains(&base) || CORE.contains(&base) || reading.classes.contains(base) || reading.models.contains(base))
}

/// The finding that makes Roundhouse drop a file it reads on its own (`Reading::FileByFile`): the first
/// construct its ingest rejects there, or a syntax error.
pub fn dropped_by(facts: &FileFacts) -> Option<&Diagnostic> {
    facts.diagnostics.iter().find(|d| d.severity == Severity::Error && (rejects(d.rule) || d.rule == rule!("syntax.parse-error")))
}

/// Whether a finding (as extracted, before `apply`) still holds in a file Roundhouse reads on its own
/// and drops whole (`dropped_by`): what drops it (each construct the ingest rejects there, and a
/// syntax error: the errors `dropped_by` looks for), and what describes how the file is read or
/// wired; not what the compiler would do with a statement of it, since no tree contains the file.
pub fn holds_in_dropped_file(finding: &Diagnostic) -> bool {
    finding.severity == Severity::Error && rejects(finding.rule) || about_reading(finding.rule)
}

/// Rules whose construct the ingest rejects (an error where the file is compiled).
fn rejects(rule: RuleId) -> bool {
    crate::catalogue::subject(rule) == Subject::Rejected
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::Fixture;

    fn readings(fixture: &str) -> String {
        let fixture = Fixture::new(fixture);
        let snapshot = fixture.index.snapshot();
        let app = AppReading::new(&snapshot);
        let mut lines: Vec<String> = snapshot.iter().map(|f| format!("{} {:?}", f.relative_path, reading(f, Some(&app)))).collect();
        lines.sort();
        lines.join("\n") + "\n"
    }

    #[test]
    fn each_folder_is_read_as_roundhouse_reads_it() {
        expect_test::expect![[r#"
            Gemfile NotRead("the Gemfile is replaced by each tree's own (the JVM tree's uses jdbc-sqlite3)")
            app/components/card.rb NotRead("Roundhouse does not read app/components/")
            app/controllers/concerns/guard.rb Compiled
            app/helpers/posts_helper.rb FileByFile
            app/jobs/cleanup_job.rb FileByFile
            app/models/post.rb Compiled
            app/views/posts/_card.rb NotRead("Ruby files under app/views are not read")
            app/views/posts/feed.rss.builder NotRead("`.builder` templates are not read (views.template-engine)")
            app/views/posts/index.html.erb Compiled
            app/views/posts/index.json.jbuilder Compiled
            app/views/posts/mail.text.erb NotRead("`text` templates are not emitted (views.template-format)")
            config/application.rb Dsl
            config/environments/production.rb NotRead("config/environments/* is not read")
            config/initializers/time.rb Dsl
            config/routes.rb Dsl
            db/migrate/001_create_posts.rb NotRead("migrations are folded only when there is no db/schema.rb")
            db/schema.rb Dsl
            db/seeds.rb Compiled
            extras/markdowner.rb FileByFile
            lib/assets/thing.rb NotRead("lib/assets/ is in config.autoload_lib(ignore: …)")
            lib/markdown.rb FileByFile
            spec/models/post_spec.rb NotRead("only test/models and test/controllers tests (and the test helpers test_helper.rb includes) are read")
            test/controllers/posts_controller_test.rb Compiled
            test/integration/flow_test.rb NotRead("only test/models and test/controllers tests (and the test helpers test_helper.rb includes) are read")
            test/models/post_test.rb Compiled
            test/test_helper.rb NotRead("only test/models and test/controllers tests (and the test helpers test_helper.rb includes) are read")
            test/test_helpers/login_helper.rb Compiled
            test/test_helpers/unused_helper.rb NotRead("test/test_helpers/unused_helper.rb is read only when test/test_helper.rb includes its module")
        "#]]
        .assert_eq(&readings(
            r#"
            #- /Gemfile
            source "https://rubygems.org"
            #- /config/application.rb
            module Blog
              class Application < Rails::Application
                config.autoload_lib(ignore: %w[assets tasks])
              end
            end
            #- /config/routes.rb
            Rails.application.routes.draw do
            end
            #- /config/environments/production.rb
            Rails.application.configure do
            end
            #- /config/initializers/time.rb
            Time::DATE_FORMATS[:short] = "%d"
            #- /db/schema.rb
            ActiveRecord::Schema[8.0].define(version: 1) do
            end
            #- /db/migrate/001_create_posts.rb
            class CreatePosts < ActiveRecord::Migration[8.0]; end
            #- /db/seeds.rb
            Post.create!(title: "x")
            #- /app/models/post.rb
            class Post < ApplicationRecord; end
            #- /app/controllers/concerns/guard.rb
            module Guard; end
            #- /app/helpers/posts_helper.rb
            module PostsHelper; end
            #- /app/jobs/cleanup_job.rb
            class CleanupJob < ApplicationJob; end
            #- /app/components/card.rb
            class Card; end
            #- /app/views/posts/index.html.erb
            <p>x</p>
            #- /app/views/posts/index.json.jbuilder
            json.x 1
            #- /app/views/posts/mail.text.erb
            x
            #- /app/views/posts/feed.rss.builder
            xml.rss
            #- /app/views/posts/_card.rb
            class Card; end
            #- /extras/markdowner.rb
            class Markdowner; end
            #- /lib/markdown.rb
            class Markdown; end
            #- /lib/assets/thing.rb
            class Thing; end
            #- /test/test_helper.rb
            class ActiveSupport::TestCase
              include LoginHelper
            end
            #- /test/test_helpers/login_helper.rb
            module LoginHelper; end
            #- /test/test_helpers/unused_helper.rb
            module UnusedHelper; end
            #- /test/models/post_test.rb
            class PostTest < ActiveSupport::TestCase; end
            #- /test/controllers/posts_controller_test.rb
            class PostsControllerTest < ActionDispatch::IntegrationTest; end
            #- /test/integration/flow_test.rb
            class FlowTest < ActionDispatch::IntegrationTest; end
            #- /spec/models/post_spec.rb
            RSpec.describe Post do; end
            "#,
        ));
    }
}

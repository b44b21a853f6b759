//! What whole-app checks and navigation need to know about one app, gathered once from a snapshot:
//! its route table, the names a `*_path` helper may resolve to, its controllers, templates, methods,
//! partials' locals and how Roundhouse reads its files. Facts, not judgements: the checks over them
//! are `checks`, the editor features `ide`.

pub mod nav;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::index::Index;
use crate::rails::controller::Controller;
use crate::rails::route_table::RouteTable;
use crate::rails::{FileFacts, inflect};

pub struct AppContext {
    pub root: PathBuf,
    pub has_routes_file: bool,
    /// Whether `db/schema.rb` exists (without it, Roundhouse folds `db/migrate`).
    pub has_schema_file: bool,
    pub table: std::sync::Arc<RouteTable>,
    /// Route names and `direct` helper names: `post` for `post_path`.
    pub helper_names: HashSet<String>,
    /// Every method name defined in the app: a `def avatar_path` is no route helper to flag.
    pub method_names: HashSet<String>,
    /// Controller class name → (file, index in its `controllers`).
    pub controllers: HashMap<String, (Arc<FileFacts>, usize)>,
    /// Model class name → (file, index in its `models`).
    pub models: HashMap<String, (Arc<FileFacts>, usize)>,
    /// Module name → public method names (concerns and other mixins defined in the app).
    pub modules: HashMap<String, Vec<String>>,
    /// Module name → its class-side methods (the macros a controller may call).
    pub macros: HashMap<String, Vec<crate::rails::concern_macros::ConcernMacro>>,
    /// `(controller path, action)` of every route a browser GET reaches: `("posts", "show")`.
    pub get_actions: HashSet<(String, String)>,
    /// Template logical paths: `posts/show`.
    pub templates: HashSet<String>,
    /// The app's own inflections (`inflect.acronym "API"`: `api` camelizes to `API`).
    pub inflections: inflect::AppInflections,
    /// Folders of `app/views` that `prepend_view_path`/`append_view_path` make view roots
    /// (`mailers` for `prepend_view_path Rails.root.join("app/views/mailers")`): a template under one
    /// is also found (and translated) by its path below it.
    pub view_roots: Vec<String>,
    /// Every local any `render` of the app passes by name (`locals: { resend_url: … }`, `render
    /// "form", post: @post`), to a partial or a template: a name a template reads may be one.
    pub passed_locals: HashSet<String>,
    /// Templates and partials (by logical path without the partial's `_`: `layouts/global_header`;
    /// by file name alone where the folder is not known) some `render` passes locals Switchyard
    /// cannot list (`locals: header_props`): any name they read may be a local.
    pub open_locals: HashSet<String>,
    /// The app's files, for checks that walk them.
    pub files: Vec<Arc<FileFacts>>,
    /// What deciding how Roundhouse reads each file needs (`roundhouse::ingest`).
    pub reading: crate::roundhouse::ingest::AppReading,
    /// `views.output-collision` findings, by template: worked out once per context, when first asked
    /// (`checks::output_collisions`).
    pub(crate) collisions: std::sync::OnceLock<BTreeMap<PathBuf, Vec<crate::diagnostic::Diagnostic>>>,
    /// `rails.missing-action` findings, by routes file: worked out once per context, when first asked.
    pub(crate) missing_actions: std::sync::OnceLock<BTreeMap<PathBuf, Vec<crate::diagnostic::Diagnostic>>>,
    /// Module name (as written in `include`) → the Active Record models that include it.
    model_includes: std::sync::OnceLock<HashMap<String, Vec<String>>>,
    /// What the file → tree map needs of the app: worked out once per context, when first asked.
    tree_facts: std::sync::OnceLock<crate::roundhouse::tree::AppFacts>,
    /// Navigation's whole-app facts (`nav`): worked out once per context, when first asked.
    nav: std::sync::OnceLock<nav::Nav>,
    /// Where the app turns on Roundhouse's preload methods, if it does (`preload_lowering`).
    preload_lowering: std::sync::OnceLock<Option<(String, u32)>>,
    /// What each template's renders give it, for the N+1 check (`template_envs`).
    template_envs: std::sync::OnceLock<crate::roundhouse::preload::TemplateEnvs>,
    /// Module last segment → where modules of that name with an `included` block are (`included_blocks`).
    included_modules: std::sync::OnceLock<HashMap<String, Vec<(usize, usize)>>>,
    /// The app's runtime lanes (`lanes::readiness`): worked out once per context, when first asked.
    lanes: std::sync::OnceLock<crate::lanes::Readiness>,
    /// Module name → the names it declares for its includers (`module_declarations`).
    module_declarations: std::sync::OnceLock<HashMap<String, nav::ModuleDeclarations>>,
    /// Class name → the file of `app/models` that declares it with a superclass (`model_definitions`).
    model_definitions: std::sync::OnceLock<HashMap<String, usize>>,
    /// Where else Rails may find the app's views (`view_sources`): worked out once per context.
    view_sources: std::sync::OnceLock<ViewSources>,
    /// What the modules controllers include bring them (`controller_modules`).
    controller_modules: std::sync::OnceLock<ControllerModules>,
    /// The app's Active Job classes (`job_classes`).
    job_classes: std::sync::OnceLock<HashSet<String>>,
    /// The app's Action Mailer classes (`mailer_classes`).
    mailer_classes: std::sync::OnceLock<HashSet<String>>,
}

/// For each module a controller of the app includes: the filters of its `included` block, and each
/// instance method's receiver-less calls (read from its file, when a controller lowering first asks).
#[derive(Default)]
pub struct ControllerModules {
    filters: HashMap<String, Vec<crate::rails::controller::Filter>>,
    methods: HashMap<String, Vec<ModuleMethod>>,
}

/// An instance method of a module a controller includes.
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleMethod {
    pub name: String,
    /// Its receiver-less calls.
    pub calls: Vec<String>,
    pub path: PathBuf,
    pub span: crate::syntax::Span,
}

/// Where a view the app's own `app/views` lacks may still come from when the app runs.
#[derive(Default)]
struct ViewSources {
    /// `app/views` of the engines inside the app's folder (`saas/app/views`) and of the app an
    /// engine sits in: Rails puts a loaded engine's views in every lookup.
    view_dirs: Vec<PathBuf>,
    /// The app is an engine (`lib/…/engine.rb`, no `config/application.rb`) with no host in the
    /// folders above it: its views may be the host's.
    host_unknown: bool,
    /// Patterns of `.gitignore` under `app/views/`: templates supplied at deployment.
    ignored: Option<globset::GlobSet>,
}

impl ViewSources {
    fn of(root: &Path, files: &[Arc<FileFacts>]) -> ViewSources {
        let is_app = |dir: &Path| dir.join("config/application.rb").is_file();
        let is_engine = |dir: &Path| {
            dir.join("app/views").is_dir()
                && (std::fs::read_dir(dir).into_iter().flatten().flatten().any(|e| e.file_name().to_string_lossy().ends_with(".gemspec"))
                    || dir.join("config/routes.rb").is_file())
        };
        let mut view_dirs = Vec::new();
        // Engines in the app's folder: `saas/`, `engines/billing/`, `components/admin/`.
        let children = |dir: &Path| -> Vec<PathBuf> {
            let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .filter(|p| {
                    !p.file_name().is_some_and(|n| matches!(n.to_str(), Some("app" | "node_modules" | "tmp" | "vendor" | "log" | ".git")))
                })
                .collect();
            out.sort();
            out
        };
        for child in children(root) {
            if is_engine(&child) && !is_app(&child) {
                view_dirs.push(child.join("app/views"));
            }
            for grandchild in children(&child).into_iter().take(256) {
                if is_engine(&grandchild) && !is_app(&grandchild) {
                    view_dirs.push(grandchild.join("app/views"));
                }
            }
        }
        // An engine's host: the nearest folder above it that holds an app.
        let mut host_unknown = false;
        let engine = files.iter().any(|f| crate::rails::project::is_engine_class(&f.relative_path))
            && !files.iter().any(|f| f.relative_path == "config/application.rb");
        if engine {
            match root.ancestors().skip(1).take(3).find(|dir| is_app(dir)) {
                Some(host) => view_dirs.push(host.join("app/views")),
                None => host_unknown = true,
            }
        }
        let ignored = std::fs::read_to_string(root.join(".gitignore")).ok().and_then(|text| {
            let mut builder = globset::GlobSetBuilder::new();
            let mut any = false;
            for line in text.lines().map(str::trim) {
                let Some(pattern) = line.trim_start_matches('/').strip_prefix("app/views/") else { continue };
                if let Ok(glob) = globset::Glob::new(pattern) {
                    builder.add(glob);
                    any = true;
                }
            }
            any.then(|| builder.build().ok()).flatten()
        });
        ViewSources { view_dirs, host_unknown, ignored }
    }
}

/// What a file contributes to its app's context, without positions: when an edit leaves it unchanged,
/// a context built before the edit still answers for every other file.
pub fn contribution(facts: &FileFacts) -> Vec<String> {
    let mut out = Vec::new();
    if facts.routes.is_some() {
        // Any edit to a routes file may change the table.
        out.push(format!("routes {:?}", facts.routes.as_ref().map(|r| r.calls.len())));
        out.push(format!("{:?}", facts.outline));
    }
    for definition in &facts.definitions {
        out.push(format!("{:?} {} <{:?}", definition.kind, definition.name, definition.superclass));
        out.extend(definition.methods.iter().map(|m| format!("  {} {:?} {}", m.name, m.visibility, m.singleton)));
    }
    for m in &facts.concern_macros {
        out.push(format!("macro {}.{} {:?} {:?}", m.module, m.name, m.params, m.body));
    }
    for model in &facts.models {
        out.push(format!("model {} <{:?} {}", model.class_name, model.superclass, model.concerns.len()));
        // A class method gives a query's records to the N+1 check (`model.missing-preload`).
        out.extend(model.methods.iter().map(|m| format!("  {} {}", m.name, m.singleton)));
        out.extend(model.associations.iter().map(|a| format!("  association {}", a.name)));
        // A scope's body decides what a query through it preloads (`model.missing-preload`).
        out.extend(model.scopes.iter().map(|s| format!("  scope {} {}", s.name, s.body)));
    }
    for controller in &facts.controllers {
        out.push(format!("controller {} <{:?}", controller.class_name, controller.superclass));
        out.extend(controller.actions.iter().map(|m| format!("  action {}", m.name)));
        out.extend(controller.private_methods.iter().map(|m| format!("  private {}", m.name)));
        out.extend(controller.concerns.iter().flat_map(|c| c.arguments.iter().map(|a| format!("  include {a}"))));
    }
    if !facts.controllers.is_empty() || facts.template.is_some() {
        // The queries a controller binds feed its templates' N+1 check; what a template passes
        // the partials it renders feeds theirs.
        out.extend(facts.preload.iter().flat_map(|p| p.contribution()));
    }
    // What a module's `included` block declares (associations, scopes) is its includers'.
    for namespace in facts.outline.namespaces() {
        if let Some(block) = namespace.included_block() {
            let calls = block.items.iter().filter_map(|item| match item {
                crate::syntax::outline::Item::Call(c) => Some(format!(
                    "  included {} {} {:?}",
                    namespace.name,
                    c.method,
                    c.arguments.iter().map(ToString::to_string).collect::<Vec<_>>()
                )),
                _ => None,
            });
            out.extend(calls);
        }
    }
    if let Some(template) = &facts.template {
        // Controller previews pass a template's instance variables; renders check a partial's locals.
        out.push(format!("template {} {:?} {:?}", template.logical_path, template.ivars_read, template.strict_locals));
    }
    for model in &facts.models {
        // What a model declares decides which names are its attributes (`rails.unknown-column`).
        out.push(format!(
            "  {:?} {:?} {:?} {}",
            model.attributes,
            model.delegates,
            model.macros.iter().map(|m| (&m.name, &m.arguments)).collect::<Vec<_>>(),
            model.table_name_computed
        ));
    }
    // Which instance variables the code assigns and reads decides the instance-variable checks of
    // other files.
    let mut written: Vec<&str> = facts.uses.ivars.iter().filter(|u| u.write).map(|u| &*u.name).collect();
    let mut read: Vec<&str> = facts.uses.ivars.iter().filter(|u| !u.write).map(|u| &*u.name).collect();
    for names in [&mut written, &mut read] {
        names.sort_unstable();
        names.dedup();
    }
    if !written.is_empty() || !read.is_empty() {
        out.push(format!("ivars {written:?} {read:?}"));
    }
    if !facts.controllers.is_empty() || facts.definitions.iter().any(|d| d.kind == crate::syntax::outline::NamespaceKind::Module) {
        // What a controller (or a module it may include) calls decides whether a template's unset
        // instance variable is judged (a gem's method may set it).
        let mut calls: Vec<&str> = facts.uses.calls.iter().map(|c| &*c.name).collect();
        calls.sort_unstable();
        calls.dedup();
        out.push(format!("calls {calls:?}"));
    }
    for schema in facts.schema.iter().chain(&facts.database_schema) {
        // Model previews read tables and columns; the migrations' check reads the version.
        out.push(format!("schema {:?}", schema.version));
        for table in &schema.tables {
            out.push(format!("table {}", table.name));
            out.extend(table.columns.iter().map(|c| format!("  {} {} {} {:?}", c.name, c.column_type, c.null, c.default)));
        }
    }
    if let Some(locale) = &facts.locale {
        // The keys (not their places) decide other files' translations.
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for entry in locale.entries() {
            entry.key.hash(&mut hasher);
        }
        locale.open_prefixes.hash(&mut hasher);
        locale.error.is_some().hash(&mut hasher);
        out.push(format!("locale {} {:x}", locale.len(), hasher.finish()));
    }
    out
}

impl AppContext {
    /// The context of the app at `root`, from `snapshot` (sorted by path: `Index::snapshot`).
    pub fn new(index: &Index, root: &Path, snapshot: &[Arc<FileFacts>]) -> AppContext {
        let files: Vec<Arc<FileFacts>> = index.files_of(snapshot, root);
        let table = index.route_table(root, snapshot);
        let mut helper_names: HashSet<String> = table.routes.iter().filter_map(|r| r.name.clone()).collect();
        helper_names.extend(table.helpers.iter().map(|h| h.name.clone()));
        helper_names.extend(table.engine_names.iter().cloned());
        let mut method_names = HashSet::new();
        let mut controllers = HashMap::new();
        let mut models = HashMap::new();
        let mut modules: HashMap<String, Vec<String>> = HashMap::new();
        let mut templates = HashSet::new();
        let mut macros: HashMap<String, Vec<crate::rails::concern_macros::ConcernMacro>> = HashMap::new();
        let mut passed_locals: HashSet<String> = HashSet::new();
        let mut open_locals: HashSet<String> = HashSet::new();
        let mut view_roots: Vec<String> = Vec::new();
        for file in &files {
            // Readers and delegations are methods too (`attr_reader :return_url`, `delegate :home_url`).
            crate::syntax::outline::visit_calls(&file.outline.items, &mut |call| {
                if call.receiver.is_none()
                    && matches!(
                        call.method.as_str(),
                        "attr_reader" | "attr_accessor" | "delegate" | "helper_method" | "alias_method" | "define_method"
                    )
                {
                    method_names.extend(call.arguments.iter().filter_map(|a| a.as_name()).map(str::to_owned));
                }
                // A method defined as a macro's argument: `memoize def image_url`, `helper_method def x`.
                if call.receiver.is_none()
                    && let Some(name) = call.arguments.first().and_then(|a| defined_name(&a.to_string()))
                {
                    method_names.insert(name);
                }
                if matches!(call.method.as_str(), "prepend_view_path" | "append_view_path") {
                    for argument in call.arguments.iter() {
                        let text = argument.to_string();
                        if let Some((_, rest)) = text.split_once("app/views/") {
                            let root: String = rest.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '/' | '-')).collect();
                            let root = root.trim_end_matches('/').to_owned();
                            if !root.is_empty() && !view_roots.contains(&root) {
                                view_roots.push(root);
                            }
                        }
                    }
                }
            });
            // A bare name renders from the controller's folder (a view's own, for a partial).
            let folder = file
                .relative_path
                .strip_prefix("app/controllers/")
                .and_then(|p| p.strip_suffix("_controller.rb"))
                .map(str::to_owned)
                .or_else(|| file.template.as_ref().and_then(|t| t.logical_path.rsplit_once('/')).map(|(dir, _)| dir.to_owned()));
            for render in &file.render_calls {
                passed_locals.extend(render.locals.iter().cloned());
                if !render.locals_known
                    && let Some((_, name)) = &render.named
                {
                    let name = name.split('.').next().unwrap_or(name);
                    let (dir, base) = match name.rsplit_once('/') {
                        Some((dir, base)) => (Some(dir.to_owned()), base),
                        None => (folder.clone(), name),
                    };
                    let base = base.trim_start_matches('_');
                    open_locals.insert(dir.map_or_else(|| base.to_owned(), |dir| format!("{dir}/{base}")));
                }
            }
            for m in &file.concern_macros {
                macros.entry(m.module.clone()).or_default().push(m.clone());
            }
            for definition in &file.definitions {
                method_names.extend(definition.methods.iter().map(|m| m.name.clone()));
                if definition.kind == crate::syntax::outline::NamespaceKind::Module {
                    let public = definition
                        .methods
                        .iter()
                        .filter(|m| m.visibility == crate::syntax::outline::Visibility::Public && !m.singleton)
                        .map(|m| m.name.clone());
                    modules.entry(definition.name.clone()).or_default().extend(public);
                }
            }
            for (i, model) in file.models.iter().enumerate() {
                method_names.extend(model.methods.iter().map(|m| m.name.clone()));
                // A class reopened elsewhere (`class LedgerAudit` around a nested model) is not
                // where it is defined: the definition with a superclass stands for it.
                let defined_elsewhere = models.get(&model.class_name).is_some_and(|(other, j): &(Arc<FileFacts>, usize)| {
                    other.models[*j].superclass.is_some() && model.superclass.is_none()
                });
                if !defined_elsewhere {
                    models.insert(model.class_name.clone(), (Arc::clone(file), i));
                }
            }
            for (i, controller) in file.controllers.iter().enumerate() {
                method_names.extend(controller.actions.iter().chain(&controller.private_methods).map(|m| m.name.clone()));
                controllers.insert(controller.class_name.clone(), (Arc::clone(file), i));
            }
            if let Some(template) = &file.template {
                templates.insert(template.logical_path.clone());
            }
        }
        let get_actions = table
            .routes
            .iter()
            .filter(|r| r.verb.is_empty() || r.verb.split('|').any(|v| v == "GET"))
            .filter_map(|r| Some((r.controller.clone()?, r.action.clone()?)))
            .collect();
        let has_routes_file = files.iter().any(|f| f.relative_path == "config/routes.rb");
        let has_schema_file = files.iter().any(|f| f.relative_path == "db/schema.rb");
        AppContext {
            root: root.to_path_buf(),
            has_routes_file,
            has_schema_file,
            table,
            helper_names,
            method_names,
            controllers,
            models,
            modules,
            macros,
            get_actions,
            templates,
            inflections: inflect::AppInflections::of_app(&files),
            view_roots,
            passed_locals,
            open_locals,
            reading: crate::roundhouse::ingest::AppReading::new(&files),
            files,
            collisions: std::sync::OnceLock::new(),
            missing_actions: std::sync::OnceLock::new(),
            model_includes: std::sync::OnceLock::new(),
            tree_facts: std::sync::OnceLock::new(),
            nav: std::sync::OnceLock::new(),
            module_declarations: std::sync::OnceLock::new(),
            model_definitions: std::sync::OnceLock::new(),
            view_sources: std::sync::OnceLock::new(),
            controller_modules: std::sync::OnceLock::new(),
            job_classes: std::sync::OnceLock::new(),
            mailer_classes: std::sync::OnceLock::new(),
            preload_lowering: std::sync::OnceLock::new(),
            template_envs: std::sync::OnceLock::new(),
            included_modules: std::sync::OnceLock::new(),
            lanes: std::sync::OnceLock::new(),
        }
    }

    /// What each runtime lane makes of the app (`lanes::readiness`).
    pub fn lanes(&self) -> &crate::lanes::Readiness {
        self.lanes.get_or_init(|| crate::lanes::readiness(self))
    }

    /// The instance variables each template is given by the actions that render it, as the N+1
    /// check types them: worked out for every template at once, when first asked.
    pub(crate) fn template_envs(&self) -> &crate::roundhouse::preload::TemplateEnvs {
        self.template_envs.get_or_init(|| crate::roundhouse::preload::template_envs(self))
    }

    /// Whether Roundhouse writes preload methods for the app's models, and the first call that makes
    /// it: it does when some model declares a scope (itself or in a concern's `included` block it
    /// includes) and Ruby it compiles (a controller, a model, a
    /// plain class; not a view) loads associations on a relation (`Post.includes(:comments)`,
    /// `preload`, `eager_load`). The file and 1-based line of that call.
    pub fn preload_lowering(&self) -> Option<&(String, u32)> {
        self.preload_lowering
            .get_or_init(|| {
                // A scope of a concern's `included` block is the model's (spliced into it).
                let concern_scope = |m: &crate::rails::model::Model| {
                    self.included_blocks(m).into_iter().filter(|(f, _)| f.relative_path.starts_with("app/")).any(|(_, block)| {
                        block.items.iter().any(
                            |item| matches!(item, crate::syntax::outline::Item::Call(c) if c.receiver.is_none() && c.method == "scope"),
                        )
                    })
                };
                let scoped = self
                    .models
                    .values()
                    .map(|(f, i)| &f.models[*i])
                    .any(|m| crate::roundhouse::ingest::is_model_facts(m) && (!m.scopes.is_empty() || concern_scope(m)));
                if !scoped {
                    return None;
                }
                let compiled_ruby = |f: &FileFacts| {
                    (f.relative_path.starts_with("app/") || f.relative_path.starts_with("lib/"))
                        && f.relative_path.ends_with(".rb")
                        && !f.relative_path.starts_with("app/views/")
                        && crate::roundhouse::ingest::reading(f, Some(&self.reading)).compiles_code()
                };
                let mut sites: Vec<(String, u32)> = self
                    .files
                    .iter()
                    .filter(|f| compiled_ruby(f))
                    .flat_map(|f| {
                        f.association_loads
                            .iter()
                            .filter(|l| matches!(l.method.as_str(), "includes" | "preload" | "eager_load"))
                            .filter_map(|l| l.names.first().map(|(_, span)| (f.relative_path.clone(), span.start.line + 1)))
                    })
                    .collect();
                sites.sort();
                sites.into_iter().next()
            })
            .as_ref()
    }

    /// The file of `app/models` that declares `class_name` with a superclass (`class Post <
    /// ApplicationRecord`), whatever other files reopen it: its own file (`app/models/post.rb`) when
    /// more than one does (`class Stat < ApplicationRecord` around a subclass in `stat/x.rb`), else
    /// the first. Worked out once per context.
    pub fn model_definition(&self, class_name: &str) -> Option<&Arc<FileFacts>> {
        let definitions = self.model_definitions.get_or_init(|| {
            let mut out: HashMap<String, usize> = HashMap::new();
            for (i, file) in self.files.iter().enumerate().filter(|(_, f)| f.relative_path.starts_with("app/models/")) {
                for model in file.models.iter().filter(|m| m.superclass.is_some()) {
                    let own = format!("app/models/{}.rb", crate::rails::inflect::underscore(&model.class_name));
                    if file.relative_path == own {
                        out.insert(model.class_name.clone(), i);
                    } else {
                        out.entry(model.class_name.clone()).or_insert(i);
                    }
                }
            }
            out
        });
        definitions.get(class_name).map(|i| &self.files[*i])
    }

    /// What the file → tree map needs of this app (tables, `<X>Params` files, prefixes, reading).
    pub fn tree_facts(&self) -> &crate::roundhouse::tree::AppFacts {
        self.tree_facts.get_or_init(|| crate::roundhouse::tree::AppFacts::new(&self.files))
    }

    /// The `included do … end` blocks of the modules `model` includes (a module found by its name as
    /// the `include` writes it, or by its last segment), each with its file.
    pub fn included_blocks<'c>(&'c self, model: &crate::rails::model::Model) -> Vec<(&'c FileFacts, &'c crate::syntax::outline::Block)> {
        let included: Vec<&str> =
            model.concerns.iter().filter(|c| c.name == "include").flat_map(|c| &c.arguments).filter_map(|a| a.as_name()).collect();
        // Where each module with an `included` block is: (file, its place among the file's
        // namespaces), by the module's last segment. Read once per context.
        let blocks = self.included_modules.get_or_init(|| {
            let mut blocks: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
            for (f, file) in self.files.iter().enumerate() {
                for (n, namespace) in file.outline.namespaces().into_iter().enumerate() {
                    if namespace.included_block().is_some() {
                        let last = namespace.name.rsplit("::").next().unwrap_or(&namespace.name);
                        blocks.entry(last.to_owned()).or_default().push((f, n));
                    }
                }
            }
            blocks
        });
        let mut out = Vec::new();
        for module in included {
            let last = module.rsplit("::").next().unwrap_or(module);
            for &(f, n) in blocks.get(last).into_iter().flatten() {
                let file = &*self.files[f];
                if let Some(block) = file.outline.namespaces().get(n).and_then(|ns| ns.included_block()) {
                    out.push((file, block));
                }
            }
        }
        out
    }

    /// Each module an Active Record model includes (the name as the `include` writes it), and the
    /// models that include it: worked out once per context, when first asked.
    pub fn model_includes(&self) -> &HashMap<String, Vec<String>> {
        self.model_includes.get_or_init(|| {
            let mut out: HashMap<String, Vec<String>> = HashMap::new();
            for model in self.models.values().map(|(f, i)| &f.models[*i]).filter(|m| crate::roundhouse::ingest::is_model_facts(m)) {
                let included = model.concerns.iter().filter(|c| c.name == "include").flat_map(|c| &c.arguments).filter_map(|a| a.as_name());
                for name in included {
                    out.entry(name.to_owned()).or_default().push(model.class_name.clone());
                }
            }
            out
        })
    }

    pub fn model(&self, class_name: &str) -> Option<&crate::rails::model::Model> {
        self.models.get(class_name).map(|(file, i)| &file.models[*i])
    }

    /// The app's Active Job classes, as the compiler finds them: those whose superclass, as written,
    /// is `ActiveJob::Base` or another of them.
    pub fn job_classes(&self) -> &HashSet<String> {
        self.job_classes.get_or_init(|| self.classes_reaching("ActiveJob::Base"))
    }

    /// The app's Action Mailer classes, as the compiler finds them: those whose superclass, as
    /// written, is `ActionMailer::Base` or another of them.
    pub fn mailer_classes(&self) -> &HashSet<String> {
        self.mailer_classes.get_or_init(|| self.classes_reaching("ActionMailer::Base"))
    }

    /// The classes whose superclass, as written, is `base` or another of them.
    fn classes_reaching(&self, base: &str) -> HashSet<String> {
        let parents: Vec<(&str, &str)> = self
            .files
            .iter()
            .flat_map(|f| f.outline.namespaces())
            .filter(|n| n.kind == crate::syntax::outline::NamespaceKind::Class)
            .filter_map(|n| Some((n.name.as_str(), n.superclass.as_deref()?.trim_start_matches("::"))))
            .collect();
        let mut found: HashSet<String> = HashSet::new();
        loop {
            let before = found.len();
            for (name, parent) in &parents {
                if *parent == base || found.contains(*parent) {
                    found.insert((*name).to_owned());
                }
            }
            if found.len() == before {
                break found;
            }
        }
    }

    /// The filters of the `included` block of a module a controller includes.
    pub fn memo_module_filters(&self, module: &str) -> &[crate::rails::controller::Filter] {
        self.controller_modules().filters.get(module).map_or(&[], Vec::as_slice)
    }

    /// The instance methods of a module a controller includes, with their receiver-less calls.
    pub fn memo_module_methods(&self, module: &str) -> &[ModuleMethod] {
        self.controller_modules().methods.get(module).map_or(&[], Vec::as_slice)
    }

    fn controller_modules(&self) -> &ControllerModules {
        self.controller_modules.get_or_init(|| {
            let mut out = ControllerModules::default();
            let included: std::collections::BTreeSet<String> = self
                .controllers
                .values()
                .flat_map(|(file, i)| file.controllers[*i].concerns.iter())
                .filter(|m| m.name == "include")
                .flat_map(|m| m.arguments.iter().filter_map(|a| a.as_name().map(str::to_owned)))
                .collect();
            for module in included {
                out.filters.insert(module.clone(), self.module_filters(&module));
                let mut methods = Vec::new();
                for file in self.files.iter().filter(|f| f.definitions.iter().any(|d| d.name == module)) {
                    let Some(text) = crate::files::read_source(&file.path) else { continue };
                    let parsed = crate::syntax::ParsedFile::parse(crate::syntax::Language::Ruby, &text);
                    let Some(tree) = parsed.ruby.as_ref() else { continue };
                    for namespace in file.outline.namespaces().into_iter().filter(|n| n.name == module) {
                        for item in &namespace.items {
                            if let crate::syntax::outline::Item::Method(def) = item
                                && !def.singleton
                            {
                                methods.push(ModuleMethod {
                                    name: def.name.clone(),
                                    calls: crate::rails::controller::calls_in(tree, &text, def.span),
                                    path: file.path.clone(),
                                    span: def.span,
                                });
                            }
                        }
                    }
                }
                out.methods.insert(module, methods);
            }
            out
        })
    }

    pub fn controller(&self, class_name: &str) -> Option<&Controller> {
        self.controllers.get(class_name).map(|(file, i)| &file.controllers[*i])
    }

    /// `admin/posts` → `Admin::PostsController`; with `inflect.acronym "API"`, `api/keys` →
    /// `API::KeysController`.
    pub fn controller_class(&self, controller_path: &str) -> String {
        format!("{}Controller", self.inflections.camelize(controller_path))
    }

    /// The view folders Rails may look a bare template name up in, for a template or `render` of
    /// the controller whose folder is `folder`: its own, its superclasses' the app defines (Rails'
    /// `_prefixes`), and its subclasses' (an inherited action renders in the subclass's folder).
    /// Just `folder` when no controller has it.
    pub fn lookup_folders(&self, folder: &str, descendants: bool) -> Vec<String> {
        let mut out = vec![folder.to_owned()];
        let class_name = self.controller_class(folder);
        let path_of = |class: &str| inflect::underscore(class.strip_suffix("Controller").unwrap_or(class));
        for ancestor in self.lineage(&class_name).iter().skip(1) {
            out.push(path_of(&ancestor.class_name));
        }
        for (name, (file, i)) in self.controllers.iter().filter(|_| descendants) {
            if name != &class_name && self.lineage(name).iter().any(|c| c.class_name == class_name) {
                out.push(path_of(&file.controllers[*i].class_name));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Whether the app has a view `dir/name` (`posts/_form`): one the index read, or any file for it
    /// on disk (`view_on_disk`).
    pub fn has_view(&self, dir: &str, name: &str) -> bool {
        self.templates.contains(&format!("{dir}/{name}")) || self.view_on_disk(dir, name)
    }

    /// Whether `app/views` holds a file for the logical path `dir/name` under any format and handler,
    /// including those the index does not read (`show.api.rsb`, `index.csv.shaper`, a bare
    /// `o2c.html`, `service_worker.js`): Rails renders a file with no handler it knows as is.
    /// The views of engines in the app's folder, and of the app an engine sits in, count: Rails
    /// looks in every loaded engine's `app/views`.
    pub fn view_on_disk(&self, dir: &str, name: &str) -> bool {
        let prefix = format!("{name}.");
        let sources = self.view_sources();
        std::iter::once(self.root.join("app/views")).chain(sources.view_dirs.iter().cloned()).any(|views| {
            let Ok(entries) = std::fs::read_dir(views.join(dir)) else { return false };
            entries.flatten().any(|e| e.file_name().to_str().is_some_and(|f| f == name || f.starts_with(&prefix)))
        })
    }

    /// Whether the template `dir/name` (`layouts/govuk_template`, `home/_show`) may come from outside
    /// the app's files: the app's `.gitignore` keeps it out of the repository (supplied at
    /// deployment), a gem of the bundle is named in its path, or the app is an engine whose host
    /// its folders do not hold.
    pub fn view_supplied_elsewhere(&self, dir: &str, name: &str) -> bool {
        let sources = self.view_sources();
        sources.host_unknown
            || sources.ignored.as_ref().is_some_and(|set| {
                let path = format!("{dir}/{name}");
                set.is_match(&path) || set.is_match(format!("{path}.html.erb")) || set.is_match(format!("{path}.html.haml"))
            })
            || dir.split('/').chain([name]).any(|segment| self.reading.gems.contains(segment))
    }

    /// Whether a gem of the bundle is named by the controller path's first folder (`clearance/passwords`
    /// with Clearance in the bundle): the gem may define the controller.
    pub fn controller_from_gem(&self, controller_path: &str) -> bool {
        let first = controller_path.split('/').next().unwrap_or(controller_path);
        controller_path.contains('/') && self.reading.gems.contains(first)
    }

    fn view_sources(&self) -> &ViewSources {
        self.view_sources.get_or_init(|| ViewSources::of(&self.root, &self.files))
    }

    /// The modules a controller includes, its in-app ancestors' included.
    pub fn included_modules(&self, class_name: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for controller in self.lineage(class_name) {
            for module in controller.concerns.iter().filter(|c| c.name == "include").flat_map(|c| &c.arguments).filter_map(|v| v.as_name())
            {
                if !out.iter().any(|m| m == module) {
                    out.push(module.to_owned());
                }
            }
        }
        out
    }

    /// The controller and the superclasses of it the app defines, nearest first (at most 16, so a
    /// cycle ends).
    fn lineage(&self, class_name: &str) -> Vec<&Controller> {
        let mut out: Vec<&Controller> = Vec::new();
        let mut current = self.controller(class_name);
        while let Some(controller) = current.filter(|_| out.len() < 16) {
            out.push(controller);
            current = controller.superclass.as_deref().and_then(|s| self.resolve_controller(&controller.class_name, s));
        }
        out
    }

    /// The controller a superclass name written inside `from` names: Ruby looks it up in `from`'s
    /// enclosing modules first (`class DescriptionsController < SectionsController` inside `module
    /// Profiles` is `Profiles::SectionsController` when the app has it).
    pub fn resolve_controller(&self, from: &str, written: &str) -> Option<&Controller> {
        let written = written.trim_start_matches("::");
        let mut scope = from;
        while let Some((outer, _)) = scope.rsplit_once("::") {
            if let Some(found) = self.controller(&format!("{outer}::{written}")) {
                return Some(found);
            }
            scope = outer;
        }
        self.controller(written)
    }

    /// The class-side method `name` of a module the app defines (`Guard`, or `Admin::Guard` when
    /// included by its last name only).
    pub fn module_macro(&self, module: &str, name: &str) -> Option<&crate::rails::concern_macros::ConcernMacro> {
        let find = |key: &str| self.macros.get(key).and_then(|ms| ms.iter().find(|m| m.name == name));
        find(module).or_else(|| {
            let suffix = format!("::{module}");
            self.macros.keys().filter(|k| k.ends_with(&suffix)).find_map(|k| find(k))
        })
    }

    /// Whether `action` is defined on the controller, its superclasses or included modules: `Some(true)`
    /// or `Some(false)` when everything it inherits is known, `None` when something comes from outside
    /// the app (a gem's base class or concern) and the answer cannot be known.
    pub fn has_action(&self, class_name: &str, action: &str) -> Option<bool> {
        let lineage = self.lineage(class_name);
        for controller in &lineage {
            if controller.actions.iter().any(|a| a.name == action) {
                return Some(true);
            }
            // `alias_method :browse, :show`: an action under another name.
            let aliased = controller.macros.iter().chain(&controller.concerns).any(|m| {
                matches!(m.name.as_str(), "alias_method" | "alias") && m.arguments.first().and_then(|a| a.as_name()) == Some(action)
            });
            if aliased {
                return Some(true);
            }
            for concern in &controller.concerns {
                for module in concern.arguments.iter().filter_map(|v| v.as_name()) {
                    match self.modules.get(module) {
                        Some(methods) if methods.iter().any(|m| m == action) => return Some(true),
                        Some(_) => {}
                        None => return None,
                    }
                }
            }
        }
        // Everything inherited is known only when the line ends at the framework.
        match lineage.last()?.superclass.as_deref() {
            Some("ActionController::Base" | "ActionController::API") | None => Some(false),
            Some(_) => None,
        }
    }
}

/// The name a `def` written as a value defines: `def image_url …` → `image_url`, `def self.x` → `x`.
fn defined_name(code: &str) -> Option<String> {
    let rest = code.strip_prefix("def ")?.trim_start();
    let rest = rest.strip_prefix("self.").unwrap_or(rest);
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '?' | '!' | '=')).collect();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::contribution;
    use crate::test_fixture::Fixture;

    /// What other files' N+1 findings read of a file changes its contribution (the editor then
    /// re-checks the app): a partial's locals as a template passes them, a model's class methods, a
    /// concern's scopes; typing elsewhere in the file does not.
    #[test]
    fn what_the_n_plus_one_check_reads_of_a_file_is_its_contribution() {
        let app = |template: &str, model: &str, concern: &str| {
            Fixture::from_files(&[
                ("app/views/posts/show.html.erb".to_owned(), template.to_owned()),
                ("app/models/post.rb".to_owned(), model.to_owned()),
                ("app/models/concerns/listable.rb".to_owned(), concern.to_owned()),
            ])
        };
        let template = "<%= render \"card\", user: @user %>\n";
        let model = "class Post < ApplicationRecord\n  def self.visible\n    where(a: 1)\n  end\nend\n";
        let concern =
            "module Listable\n  extend ActiveSupport::Concern\n  included do\n    scope :upcoming, -> { where(a: 1) }\n  end\nend\n";
        let before = app(template, model, concern);
        let of = |fixture: &Fixture, path: &str| contribution(&fixture.facts(path));
        let edits = [
            (app("<%= render \"card\", user: @user.author %>\n", model, concern), "app/views/posts/show.html.erb"),
            (app(template, &model.replace("def self.visible", "def visible"), concern), "app/models/post.rb"),
            (app(template, model, &concern.replace("where(a: 1)", "where(a: 1).includes(:user)")), "app/models/concerns/listable.rb"),
        ];
        for (after, path) in &edits {
            assert_ne!(of(&before, path), of(after, path), "{path}");
        }
        let typed = app(&format!("<p>hello</p>\n{template}"), model, concern);
        assert_eq!(of(&before, "app/views/posts/show.html.erb"), of(&typed, "app/views/posts/show.html.erb"));
    }
}

//! What a name in the app resolves to, as Rails resolves it, decided once for every feature that asks:
//! a model's table and attributes, the templates an action renders and the actions that render a
//! template, a `render`'s partial, a layout, a helper or method, a constant, an i18n key (lazy lookup
//! and the default locale), the instance variables an action and its filters set. Definition,
//! references, hover, completion, document links and the `rails.*` checks of `checks::nav` are views
//! of it.
//!
//! Built once per `AppContext`, when first asked (`AppContext::nav`), from the files' facts; nothing
//! here reads a tree. Where Rails' answer depends on what runs (a `render` of a variable, a gem's
//! macro), the answer is "unknown" (`None`, or an attribute set that is not `closed`), never a guess
//! that a check could take for a fact.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::AppContext;
use crate::rails::controller::Controller;
use crate::rails::model::{Association, Model};
use crate::rails::project::FileKind;
use crate::rails::references::{ColumnReceiver, ColumnUse, RenderCall, Translation};
use crate::rails::schema::{Column, Schema, Table};
use crate::rails::{FileFacts, MethodSummary, inflect};
use crate::syntax::Span;

/// A place in a file of the app: the file's facts carry what a client needs to show it.
#[derive(Clone)]
pub struct Target {
    pub file: Arc<FileFacts>,
    pub span: Span,
}

/// A table of one of the app's schemas.
#[derive(Clone)]
pub struct TableRef {
    pub file: Arc<FileFacts>,
    pub index: usize,
    /// `primary`, or the database a `db/<name>_schema.rb` describes.
    pub database: String,
}

impl TableRef {
    pub fn table(&self) -> &Table {
        &schema_of(&self.file).expect("a table's file has a schema").tables[self.index]
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.table().columns.iter().find(|c| c.name == name)
    }

    /// The indexes that cover `column`.
    pub fn indexes_on(&self, column: &str) -> Vec<&crate::rails::schema::TableIndex> {
        self.table().indexes.iter().filter(|i| i.columns.iter().any(|c| c == column)).collect()
    }
}

/// The schema a file holds, whether Roundhouse reads it or not.
pub fn schema_of(file: &FileFacts) -> Option<&Schema> {
    file.schema.as_deref().or(file.database_schema.as_deref())
}

/// A `render` of the app: its file and its index in the file's `render_calls`.
pub type RenderRef = (Arc<FileFacts>, usize);

/// A method the app defines.
#[derive(Clone)]
pub struct MethodRef {
    pub file: Arc<FileFacts>,
    /// The class or module that defines it.
    pub owner: Arc<str>,
    pub name_span: Span,
    pub span: Span,
    pub singleton: bool,
}

/// Every method and class or module the app defines, by name.
#[derive(Default)]
struct Symbols {
    methods: HashMap<String, Vec<MethodRef>>,
    constants: HashMap<String, Vec<Target>>,
}

impl Symbols {
    fn new(files: &[Arc<FileFacts>]) -> Symbols {
        let mut symbols = Symbols::default();
        for file in files {
            let mut add = |owner: &str, methods: &mut dyn Iterator<Item = &crate::rails::MethodSummary>, name_span: Span| {
                let owner: Arc<str> = Arc::from(owner);
                for m in methods {
                    symbols.methods.entry(m.name.clone()).or_default().push(MethodRef {
                        file: Arc::clone(file),
                        owner: Arc::clone(&owner),
                        name_span: m.name_span,
                        span: m.span,
                        singleton: m.singleton,
                    });
                }
                symbols.constants.entry(owner.to_string()).or_default().push(Target { file: Arc::clone(file), span: name_span });
            };
            for definition in &file.definitions {
                add(&definition.name, &mut definition.methods.iter(), definition.name_span);
            }
            for model in &file.models {
                add(&model.class_name, &mut model.methods.iter(), model.name_span);
            }
            for controller in &file.controllers {
                add(&controller.class_name, &mut controller.actions.iter().chain(&controller.private_methods), controller.name_span);
            }
        }
        symbols
    }
}

/// The instance variables the app's code assigns and reads, anywhere (controllers, helpers, views,
/// models), and whether any of it sets one by name (`instance_variable_set`), which no list holds.
#[derive(Default)]
pub struct IvarNames {
    pub written: HashSet<String>,
    pub read: HashSet<String>,
    pub set_by_name: bool,
}

impl IvarNames {
    fn new(files: &[Arc<FileFacts>]) -> IvarNames {
        let mut names = IvarNames::default();
        for file in files {
            for ivar in &file.uses.ivars {
                let set = if ivar.write { &mut names.written } else { &mut names.read };
                if !set.contains(&*ivar.name) {
                    set.insert(ivar.name.to_string());
                }
            }
            names.set_by_name |= file.uses.calls.iter().any(|c| &*c.name == "instance_variable_set")
                || file.uses.member_calls.iter().any(|c| &*c.name == "instance_variable_set");
        }
        names
    }
}

/// What is known of a model's attributes: what `where(x:)`, `validates :x` and `permit(:x)` may name.
pub struct Attributes {
    /// Its table's columns (none when its table is unknown).
    pub columns: Vec<String>,
    /// Associations, `alias_attribute`s, attributes, accessors, methods and every other name its class
    /// body and its concerns declare.
    pub declared: HashSet<String>,
    /// Associations by name.
    pub associations: Vec<String>,
    /// Whether every name it has is listed: its table is known and nothing outside the app (a gem's
    /// macro or module) can add one.
    pub closed: bool,
}

impl Attributes {
    pub fn knows(&self, name: &str) -> bool {
        self.columns.iter().any(|c| c == name) || self.declared.contains(name) || self.associations.iter().any(|a| a == name)
    }
}

/// The app's whole-app navigation facts.
pub struct Nav {
    /// Table name → its tables, `db/schema.rb`'s first.
    tables: HashMap<String, Vec<TableRef>>,
    /// Template logical path (`posts/_form`) → its files (one per format and handler).
    templates: HashMap<String, Vec<Arc<FileFacts>>>,
    /// The locale files by the locale they define (each with its keys sorted: a lookup is a binary
    /// search in each file of that locale).
    locale_files: HashMap<String, Vec<Arc<FileFacts>>>,
    /// Locales the app's files define.
    pub locales: BTreeSet<String>,
    /// `config.i18n.default_locale`, else `en`.
    pub default_locale: String,
    /// Key prefixes that merge an alias: their keys are not all spelled out.
    open_prefixes: Vec<String>,
    /// Whether every translation of the app is in its YAML files: no `.rb` locale, no file that
    /// stopped parsing, no `i18n.load_path` of its own.
    pub translations_complete: bool,
    /// The app's files, for what is worked out when first asked.
    files: Vec<Arc<FileFacts>>,
    /// Methods and constants by name: worked out when first asked.
    symbols: std::sync::OnceLock<Symbols>,
    /// The instance variables the app's code assigns and reads: worked out when first asked.
    ivars: std::sync::OnceLock<IvarNames>,
    /// The last migration the primary schema records.
    pub schema_version: Option<String>,
    /// Template logical path → every `render` in the app that names it (file, index in its renders):
    /// worked out once, when first asked.
    renders_to: std::sync::OnceLock<HashMap<String, Vec<RenderRef>>>,
    /// Template logical path → the (controller, action) pairs that render it: worked out once.
    rendered_by: std::sync::OnceLock<HashMap<String, Vec<(String, String)>>>,
    /// Each model's `attributes`, worked out when first asked: a file's queries ask them of the same
    /// few models over and over.
    attributes: std::sync::Mutex<HashMap<String, Arc<Attributes>>>,
}

impl Nav {
    pub fn new(context: &AppContext) -> Nav {
        let mut tables: HashMap<String, Vec<TableRef>> = HashMap::new();
        let mut templates: HashMap<String, Vec<Arc<FileFacts>>> = HashMap::new();
        let mut locale_files: HashMap<String, Vec<Arc<FileFacts>>> = HashMap::new();
        let mut locales = BTreeSet::new();
        let mut open_prefixes = Vec::new();
        let mut translations_complete = true;
        let mut default_locale = None;
        let mut schema_version = None;
        // `db/schema.rb` before the dumps Roundhouse does not read, so a table is its own first.
        let mut files: Vec<&Arc<FileFacts>> = context.files.iter().collect();
        files.sort_by_key(|f| (f.kind != Some(FileKind::Schema), f.relative_path.clone()));
        for file in files {
            if let Some(schema) = schema_of(file) {
                let database = crate::rails::project::schema_database(&file.relative_path).unwrap_or("primary").to_owned();
                if database == "primary" && schema_version.is_none() {
                    schema_version.clone_from(&schema.version);
                }
                for (index, table) in schema.tables.iter().enumerate() {
                    let table_ref = TableRef { file: Arc::clone(file), index, database: database.clone() };
                    tables.entry(table.name.clone()).or_default().push(table_ref);
                }
            }
            if let Some(template) = &file.template {
                templates.entry(template.logical_path.clone()).or_default().push(Arc::clone(file));
            }
            if file.kind == Some(FileKind::Locale) {
                match &file.locale {
                    Some(locale) => {
                        translations_complete &= locale.error.is_none();
                        for name in locale.locales() {
                            locales.insert(name.to_owned());
                            locale_files.entry(name.to_owned()).or_default().push(Arc::clone(file));
                        }
                        open_prefixes.extend(locale.open_prefixes.iter().cloned());
                    }
                    // A Ruby locale file: its keys are computed.
                    None => translations_complete = false,
                }
            }
            if let Some(config) = &file.config {
                for assignment in &config.assignments {
                    match assignment.key.as_str() {
                        "i18n.default_locale" => {
                            default_locale = assignment.value.as_name().map(str::to_owned);
                        }
                        key if key.starts_with("i18n.load_path") || key.starts_with("i18n.railties_load_path") => {
                            translations_complete = false;
                        }
                        _ => {}
                    }
                }
            }
        }
        Nav {
            tables,
            templates,
            locale_files,
            locales,
            default_locale: default_locale.unwrap_or_else(|| "en".to_owned()),
            open_prefixes,
            translations_complete,
            files: context.files.clone(),
            symbols: std::sync::OnceLock::new(),
            ivars: std::sync::OnceLock::new(),
            schema_version,
            renders_to: std::sync::OnceLock::new(),
            rendered_by: std::sync::OnceLock::new(),
            attributes: std::sync::Mutex::default(),
        }
    }

    // ---- schema and models -------------------------------------------------------------------

    pub fn table(&self, name: &str) -> Option<&TableRef> {
        self.tables.get(name).and_then(|t| t.first())
    }

    /// The table a model reads, when the app's schema has it.
    pub fn model_table(&self, context: &AppContext, class_name: &str) -> Option<&TableRef> {
        self.table(&model_table_name(context, class_name))
    }

    /// What a model's attribute names are: its columns, and what its class body, its in-app base
    /// classes and its in-app concerns declare.
    pub fn attributes(&self, context: &AppContext, class_name: &str) -> Arc<Attributes> {
        if let Some(attributes) = self.attributes.lock().ok().and_then(|memo| memo.get(class_name).map(Arc::clone)) {
            return attributes;
        }
        let attributes = Arc::new(self.attributes_of(context, class_name));
        if let Ok(mut memo) = self.attributes.lock() {
            memo.insert(class_name.to_owned(), Arc::clone(&attributes));
        }
        attributes
    }

    fn attributes_of(&self, context: &AppContext, class_name: &str) -> Attributes {
        // A table set by code is not known: no columns to speak of.
        let computed = lineage_models(context, class_name).any(|m| m.table_name_computed);
        let table = self.model_table(context, class_name).filter(|_| !computed);
        let mut attributes = Attributes {
            columns: table.map(|t| t.table().columns.iter().map(|c| c.name.clone()).collect()).unwrap_or_default(),
            declared: HashSet::new(),
            associations: Vec::new(),
            closed: table.is_some(),
        };
        let mut current = context.model(class_name);
        let mut seen = 0;
        while let Some(model) = current.filter(|_| seen < 16) {
            seen += 1;
            declare_model(context, model, &mut attributes);
            current = match model.superclass.as_deref() {
                Some("ApplicationRecord" | "ActiveRecord::Base") | None => None,
                Some(superclass) => {
                    let parent = context.model(superclass);
                    attributes.closed &= parent.is_some();
                    parent
                }
            };
        }
        if let Some(base) = context.model("ApplicationRecord") {
            declare_model(context, base, &mut attributes);
        }
        attributes
    }

    /// The model a column use names a column of: the relation's constant (through scopes and relation
    /// methods only), the class a scope or class method is in, or the model a `params.require(:x)`
    /// key names.
    pub fn column_model<'c>(&self, context: &'c AppContext, file: &FileFacts, used: &ColumnUse) -> Option<&'c Model> {
        match &used.receiver {
            ColumnReceiver::Constant { name, chain } => {
                let model = resolve_model(context, file, name, used.span)?;
                relation_methods_only(context, model, chain).then_some(model)
            }
            ColumnReceiver::OwnClass { chain } => {
                let model =
                    file.models.iter().rfind(|m| m.span.start_byte <= used.span.start_byte && used.span.end_byte <= m.span.end_byte)?;
                // An association's scope (`has_many :items, -> { order(:position) }`) runs on the
                // associated model.
                let within = |span: Span| span.start_byte <= used.span.start_byte && used.span.end_byte <= span.end_byte;
                if let Some(association) = model.associations.iter().find(|a| within(a.span)) {
                    // Only its scope lambda runs on the associated model; another option's lambda is
                    // not known to run on any.
                    if !association.scope_span.is_some_and(within) {
                        return None;
                    }
                    let declaring = context.model(&model.class_name)?;
                    let target = match association_models(context, declaring, association).as_slice() {
                        [only] => *only,
                        _ => return None,
                    };
                    return relation_methods_only(context, target, chain).then_some(target);
                }
                // Code in a module nested in the class (`class Item; module Pin; included do …`) runs
                // on whatever includes the module, not on the class.
                let within = |span: Span| span.start_byte <= used.span.start_byte && used.span.end_byte <= span.end_byte;
                let innermost = file
                    .outline
                    .namespaces()
                    .into_iter()
                    .filter(|ns| within(ns.span))
                    .min_by_key(|ns| ns.span.end_byte - ns.span.start_byte);
                if innermost.is_some_and(|ns| ns.kind == crate::syntax::outline::NamespaceKind::Module) {
                    return None;
                }
                // On the class: a scope's body, a class method, the class body itself; not an instance method.
                let in_instance_method = model
                    .methods
                    .iter()
                    .any(|m| !m.singleton && m.span.start_byte <= used.span.start_byte && used.span.end_byte <= m.span.end_byte);
                let model = (!in_instance_method).then(|| context.model(&model.class_name)).flatten()?;
                relation_methods_only(context, model, chain).then_some(model)
            }
            ColumnReceiver::Params(key) => context.model(&inflect::camelize(key)),
        }
    }

    // ---- templates, partials, layouts ----------------------------------------------------------

    pub fn template_files(&self, logical_path: &str) -> &[Arc<FileFacts>] {
        self.templates.get(logical_path).map_or(&[], Vec::as_slice)
    }

    pub fn template_paths(&self) -> impl Iterator<Item = &str> {
        self.templates.keys().map(String::as_str)
    }

    /// The templates a `render` in `file` names, as Rails looks them up: a partial or template by
    /// name (the file's folder, the controller's, `application/`, then any folder's partial of that
    /// name for a shared one), a record's or collection's partial (`posts/_post`), a partial layout.
    pub fn render_targets(&self, context: &AppContext, file: &FileFacts, render: &RenderCall) -> Vec<Arc<FileFacts>> {
        let Some(logical) = self.render_path(context, file, render) else { return Vec::new() };
        self.template_files(&logical).to_vec()
    }

    /// The logical path a `render` names, when the app has it.
    pub fn render_path(&self, context: &AppContext, file: &FileFacts, render: &RenderCall) -> Option<String> {
        if render.options.iter().any(|o| matches!(o.as_str(), "inline" | "file" | "plain" | "html" | "body" | "json" | "xml" | "js")) {
            return None;
        }
        let in_view = file.kind == Some(FileKind::View);
        if let Some((key, name)) = &render.named {
            let partial = key == "partial" || (in_view && key.is_empty());
            return self.lookup(context, file, name, partial);
        }
        // `render @post`, `render post.comments`, `render partial: x, collection: @posts`.
        let object = render.object.as_deref()?;
        let last = object.rsplit(['.', '@']).next().unwrap_or(object);
        if last.is_empty() || !last.starts_with(|c: char| c.is_ascii_lowercase()) {
            return None;
        }
        let singular = inflect::singularize(last);
        let path = format!("{}/_{singular}", inflect::pluralize(&singular));
        self.templates.contains_key(&path).then_some(path)
    }

    /// A partial layout (`render layout: "boxed"` in a view, `layout: "x"` beside a partial) or a
    /// controller's layout (`render layout:` in a controller).
    pub fn render_layout(&self, context: &AppContext, file: &FileFacts, name: &str) -> Option<String> {
        if file.kind == Some(FileKind::View) { self.lookup(context, file, name, true) } else { self.layout_path(name) }
    }

    /// `layout "admin"` → `layouts/admin`.
    pub fn layout_path(&self, name: &str) -> Option<String> {
        let path = if name.contains('/') { name.to_owned() } else { format!("layouts/{name}") };
        self.templates.contains_key(&path).then_some(path)
    }

    /// A template or partial named from `file`.
    fn lookup(&self, context: &AppContext, file: &FileFacts, name: &str, partial: bool) -> Option<String> {
        let name = name.split('.').next().unwrap_or(name);
        let file_name = |base: &str| if partial { format!("_{base}") } else { base.to_owned() };
        if let Some((dir, base)) = name.rsplit_once('/') {
            let path = format!("{dir}/{}", file_name(base));
            return self.templates.contains_key(&path).then_some(path);
        }
        let mut folders: Vec<String> = Vec::new();
        if let Some(dir) = file.template.as_ref().and_then(|t| t.logical_path.rsplit_once('/')).map(|(dir, _)| dir.to_owned()) {
            folders.push(dir);
        }
        for controller in &file.controllers {
            for ancestor in context.controller_lineage(&controller.class_name) {
                folders.extend(controller_path(&ancestor.class_name));
            }
        }
        folders.push("application".to_owned());
        for folder in &folders {
            let path = format!("{folder}/{}", file_name(name));
            if self.templates.contains_key(&path) {
                return Some(path);
            }
        }
        // A shared partial rendered from a template of another folder (a layout, a partial used by
        // several controllers): the one partial of that name, when there is one.
        if partial && file.kind == Some(FileKind::View) {
            let suffix = format!("/{}", file_name(name));
            let mut found = self.templates.keys().filter(|t| t.ends_with(&suffix));
            if let (Some(only), None) = (found.next(), found.next()) {
                return Some(only.clone());
            }
        }
        None
    }

    /// The templates an action renders itself: each `render` in its body that names one, and (unless
    /// it always answers itself) the implicit `<controller path>/<action>`, found through the
    /// controller's ancestors' folders as Rails looks it up.
    pub fn action_templates(&self, context: &AppContext, class_name: &str, action: &str) -> Vec<String> {
        let Some((file, i)) = context.controllers.get(class_name) else { return Vec::new() };
        let controller = &file.controllers[*i];
        let mut out = Vec::new();
        if let Some(method) = controller.actions.iter().find(|a| a.name == action) {
            for render in
                file.render_calls.iter().filter(|r| method.span.start_byte <= r.span.start_byte && r.span.end_byte <= method.span.end_byte)
            {
                if let Some(path) = self.render_path(context, file, render) {
                    out.push(path);
                }
            }
        }
        for ancestor in context.controller_lineage(class_name) {
            if let Some(folder) = controller_path(&ancestor.class_name) {
                let path = format!("{folder}/{action}");
                if self.templates.contains_key(&path) {
                    out.push(path);
                    break;
                }
            }
        }
        out.dedup();
        out
    }

    /// The controller actions that render the template at `logical_path`: each action whose implicit
    /// render finds it (in the controller's folder, or an ancestor's when its own has none), and every
    /// action whose `render` names it.
    pub fn template_actions(&self, context: &AppContext, logical_path: &str) -> Vec<(String, String)> {
        self.rendered_by.get_or_init(|| self.actions_by_template(context)).get(logical_path).cloned().unwrap_or_default()
    }

    fn actions_by_template(&self, context: &AppContext) -> HashMap<String, Vec<(String, String)>> {
        let mut out: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for (class_name, (file, i)) in &context.controllers {
            let controller = &file.controllers[*i];
            let lineage = context.controller_lineage(class_name);
            let folders: Vec<String> = lineage.iter().filter_map(|c| controller_path(&c.class_name)).collect();
            let mut actions: Vec<&str> = lineage.iter().flat_map(|c| c.actions.iter().map(|a| a.name.as_str())).collect();
            actions.sort_unstable();
            actions.dedup();
            for action in actions {
                if let Some(path) = folders.iter().map(|f| format!("{f}/{action}")).find(|p| self.templates.contains_key(p)) {
                    out.entry(path).or_default().push((class_name.clone(), action.to_owned()));
                }
            }
            for action in &controller.actions {
                let renders = file
                    .render_calls
                    .iter()
                    .filter(|r| action.span.start_byte <= r.span.start_byte && r.span.end_byte <= action.span.end_byte);
                for render in renders {
                    if let Some(path) = self.render_path(context, file, render) {
                        out.entry(path).or_default().push((class_name.clone(), action.name.clone()));
                    }
                }
            }
        }
        for pairs in out.values_mut() {
            pairs.sort();
            pairs.dedup();
        }
        out
    }

    /// Every `render` in the app that names the template at `logical_path` (as a template, partial or
    /// partial layout).
    pub fn callers(&self, context: &AppContext, logical_path: &str) -> Vec<(Arc<FileFacts>, usize)> {
        self.renders_to
            .get_or_init(|| {
                let mut out: HashMap<String, Vec<(Arc<FileFacts>, usize)>> = HashMap::new();
                for file in &context.files {
                    for (i, render) in file.render_calls.iter().enumerate() {
                        if let Some(path) = self.render_path(context, file, render) {
                            out.entry(path).or_default().push((Arc::clone(file), i));
                        }
                        if let Some(path) = render.layout.as_ref().and_then(|(name, _)| self.render_layout(context, file, name)) {
                            out.entry(path).or_default().push((Arc::clone(file), i));
                        }
                    }
                }
                out
            })
            .get(logical_path)
            .cloned()
            .unwrap_or_default()
    }

    /// Builds what the checks read of this model lazily (the app's methods and constants, its
    /// instance variables, which actions render which template), so no file's check builds it.
    pub fn prepare_checks(&self, context: &AppContext) {
        self.symbols();
        self.ivars();
        self.rendered_by.get_or_init(|| self.actions_by_template(context));
    }

    /// The instance variables the app's code assigns and reads.
    pub fn ivars(&self) -> &IvarNames {
        self.ivars.get_or_init(|| IvarNames::new(&self.files))
    }

    fn symbols(&self) -> &Symbols {
        self.symbols.get_or_init(|| Symbols::new(&self.files))
    }

    // ---- methods and constants -----------------------------------------------------------------

    /// The definitions of `name` that a receiver-less call in `file` reaches: in a view, the app's
    /// helpers and the controllers' `helper_method`s; in a class, its own methods, its in-app
    /// ancestors' and its modules'; else (or when those have none) every definition of that name.
    pub fn methods_called(&self, context: &AppContext, file: &FileFacts, offset: usize, name: &str) -> Vec<MethodRef> {
        let Some(all) = self.symbols().methods.get(name) else { return Vec::new() };
        let owners: Vec<String> = if file.kind == Some(FileKind::View) {
            let mut owners: Vec<String> = Vec::new();
            for definition in all.iter().filter(|m| m.file.kind == Some(FileKind::Helper)) {
                owners.push(definition.owner.to_string());
            }
            for (class_name, (f, i)) in &context.controllers {
                if declares_helper_method(&f.controllers[*i], name) {
                    owners.push(class_name.clone());
                }
            }
            owners
        } else {
            enclosing_class(file, offset).map(|class| context.ancestry(&class)).unwrap_or_default()
        };
        let found: Vec<MethodRef> = all.iter().filter(|m| owners.iter().any(|o| **o == *m.owner)).cloned().collect();
        if found.is_empty() { all.iter().take(16).cloned().collect() } else { found }
    }

    /// Every method named `name` the app defines.
    pub fn methods_named(&self, name: &str) -> &[MethodRef] {
        self.symbols().methods.get(name).map_or(&[], Vec::as_slice)
    }

    /// Where the class or module a constant names is defined: `Post`, or `Admin::Post` written as
    /// `Post` inside `module Admin`; a nested constant (`Post::STATES`) goes to its class.
    pub fn constant(&self, name: &str, file: &FileFacts, offset: usize) -> Vec<Target> {
        let name = name.trim_start_matches("::");
        // Lexical scopes, innermost first, then the top level.
        let mut scopes: Vec<String> = Vec::new();
        if let Some(namespace) = enclosing_class(file, offset) {
            let mut scope = namespace.as_str();
            loop {
                scopes.push(format!("{scope}::"));
                match scope.rsplit_once("::") {
                    Some((outer, _)) => scope = outer,
                    None => break,
                }
            }
        }
        scopes.push(String::new());
        // The name as written, then without its last segments (`Post::STATES` is in `Post`).
        let mut written = name;
        loop {
            for scope in &scopes {
                if let Some(found) = self.symbols().constants.get(&format!("{scope}{written}")) {
                    return found.clone();
                }
            }
            match written.rsplit_once("::") {
                Some((outer, _)) => written = outer,
                None => return Vec::new(),
            }
        }
    }

    pub fn constant_names(&self) -> impl Iterator<Item = &str> {
        self.symbols().constants.keys().map(String::as_str)
    }

    // ---- i18n -----------------------------------------------------------------------------------

    /// The keys a translation looks up, without their locale, in the order I18n tries them: a lazy
    /// `.title` expanded as Rails expands it — in a template, its path with `/` and a partial's `_`
    /// as dots (inside a `render layout:` block, the layout partial's: the block runs there); in a
    /// controller, its path and action, then its path alone (Rails' fallback).
    pub fn translation_keys(&self, context: &AppContext, file: &FileFacts, translation: &Translation) -> Vec<String> {
        let Some(relative) = translation.key.strip_prefix('.') else { return vec![translation.key.clone()] };
        if let Some(template) = &file.template {
            let within = |span: Span| span.start_byte <= translation.span.start_byte && translation.span.end_byte <= span.end_byte;
            let layout = file.render_calls.iter().filter(|r| r.block_span.is_some_and(within)).find_map(|r| r.layout.as_ref());
            let path = match layout {
                Some((name, _)) => match self.render_layout(context, file, name) {
                    Some(path) => path,
                    None => return Vec::new(),
                },
                None => template.logical_path.clone(),
            };
            let scope_of = |path: &str| path.replace("/_", "/").replace('/', ".");
            let mut keys = vec![format!("{}.{relative}", scope_of(&path))];
            // Under a folder `prepend_view_path` makes a root, Rails knows the template by the rest.
            for root in &context.view_roots {
                if let Some(below) = path.strip_prefix(root.as_str()).and_then(|p| p.strip_prefix('/')) {
                    keys.push(format!("{}.{relative}", scope_of(below)));
                }
            }
            return keys;
        }
        let inside = |span: Span| span.start_byte <= translation.span.start_byte && translation.span.end_byte <= span.end_byte;
        let Some(controller) = file.controllers.iter().find(|c| inside(c.span)) else { return Vec::new() };
        let Some(action) = controller.actions.iter().find(|a| inside(a.span)) else { return Vec::new() };
        // The path is the running controller's: this one's, or a subclass's that inherits the action.
        let mut keys = Vec::new();
        for class_name in std::iter::once(controller.class_name.clone()).chain(context.controller_descendants(&controller.class_name)) {
            if let Some(path) = controller_path(&class_name).map(|p| p.replace('/', ".")) {
                keys.push(format!("{path}.{}.{relative}", action.name));
                keys.push(format!("{path}.{relative}"));
            }
        }
        keys
    }

    /// The key a translation resolves to in the default locale (the first of `translation_keys` it
    /// has, else the first tried).
    pub fn translation_key(&self, context: &AppContext, file: &FileFacts, translation: &Translation) -> Option<String> {
        let keys = self.translation_keys(context, file, translation);
        let found = keys.iter().find(|k| self.has_translation(&self.default_locale, k));
        found.or(keys.first()).cloned()
    }

    /// The entries of `key` (without locale) in every locale: (locale, file, entry).
    pub fn translations_of(&self, key: &str) -> Vec<(String, Arc<FileFacts>, usize)> {
        let mut out = Vec::new();
        for locale in &self.locales {
            out.extend(self.translation_in(locale, key).into_iter().map(|(file, i)| (locale.clone(), file, i)));
        }
        out
    }

    /// The entries of `key` (without locale) in one locale: (file, entry).
    pub fn translation_in(&self, locale: &str, key: &str) -> Vec<(Arc<FileFacts>, usize)> {
        let full = format!("{locale}.{key}");
        let mut out = Vec::new();
        for file in self.locale_files.get(locale).into_iter().flatten() {
            let Some(entries) = file.locale.as_ref() else { continue };
            out.extend(entries.lookup(&full).map(|i| (Arc::clone(file), i)));
        }
        out
    }

    /// Whether `locale` has `key` (without locale).
    pub fn has_translation(&self, locale: &str, key: &str) -> bool {
        !self.translation_in(locale, key).is_empty()
    }

    /// Whether `key` (without locale) may come from somewhere the app's YAML does not spell out:
    /// under a mapping that merges an alias.
    pub fn translation_open(&self, locale: &str, key: &str) -> bool {
        let full = format!("{locale}.{key}");
        self.open_prefixes.iter().any(|p| full == *p || full.starts_with(&format!("{p}.")))
    }

    /// The keys of `locale` under `scope` (`posts.index`), without the locale.
    pub fn keys_under<'a>(&'a self, locale: &str, scope: &str) -> impl Iterator<Item = &'a str> {
        let locale_prefix = format!("{locale}.");
        let prefix = if scope.is_empty() { locale_prefix.clone() } else { format!("{locale}.{scope}.") };
        self.locale_files.get(locale).into_iter().flatten().filter_map(|f| f.locale.as_ref()).flat_map(move |l| {
            let locale_prefix = locale_prefix.clone();
            l.under(&prefix).filter_map(move |e| e.key.strip_prefix(locale_prefix.as_str()))
        })
    }
}

/// The model an association points at: `class_name:`, else its name's class (looked up in the
/// declaring model's namespace first); a polymorphic `belongs_to` points at every model that
/// declares the other side (`as: :name`); `through:` follows the chain (`source:` naming the hop).
pub fn association_models<'c>(context: &'c AppContext, model: &Model, association: &Association) -> Vec<&'c Model> {
    association_models_at(context, model, association, 0)
}

fn association_models_at<'c>(context: &'c AppContext, model: &Model, association: &Association, depth: usize) -> Vec<&'c Model> {
    if depth > 8 {
        return Vec::new();
    }
    let option = |key: &str| association.options.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    if association.kind == "belongs_to" && matches!(option("polymorphic"), Some(crate::syntax::value::Value::Bool(true))) {
        let mut out: Vec<&Model> = context
            .models
            .values()
            .map(|(f, i)| &f.models[*i])
            .filter(|m| {
                m.associations.iter().any(|a| a.options.iter().any(|(k, v)| k == "as" && v.as_name() == Some(association.name.as_str())))
            })
            .collect();
        out.sort_by(|a, b| a.class_name.cmp(&b.class_name));
        return out;
    }
    if let Some(class_name) = option("class_name").and_then(|v| v.as_name()) {
        return find_model_near(context, &model.class_name, class_name.trim_start_matches("::")).into_iter().collect();
    }
    // `through:` a polymorphic `belongs_to`: `source_type:` names the class.
    if option("through").is_some()
        && let Some(source_type) = option("source_type").and_then(|v| v.as_name())
    {
        return find_model_near(context, &model.class_name, source_type.trim_start_matches("::")).into_iter().collect();
    }
    if let Some(through) = option("through").and_then(|v| v.as_name()) {
        let Some(hop) = all_associations(context, model).into_iter().find(|a| a.name == through) else { return Vec::new() };
        let source = option("source").and_then(|v| v.as_name()).map(str::to_owned);
        let mut out = Vec::new();
        for middle in association_models_at(context, model, hop, depth + 1) {
            let names = [source.clone().unwrap_or_else(|| association.name.clone()), inflect::singularize(&association.name)];
            if let Some(next) = all_associations(context, middle).into_iter().find(|a| names.contains(&a.name)) {
                out.extend(association_models_at(context, middle, next, depth + 1));
            }
        }
        return out;
    }
    let class_name = match association.kind.as_str() {
        "has_many" | "has_and_belongs_to_many" => inflect::camelize(&inflect::singularize(&association.name)),
        _ => inflect::camelize(&association.name),
    };
    find_model_near(context, &model.class_name, &class_name).into_iter().collect()
}

/// A model's associations, its in-app base classes' too.
pub fn all_associations<'c>(context: &'c AppContext, model: &'c Model) -> Vec<&'c Association> {
    let mut out: Vec<&Association> = model.associations.iter().collect();
    let mut current = model.superclass.as_deref().and_then(|s| context.model(s));
    let mut seen = 0;
    while let Some(parent) = current.filter(|_| seen < 16) {
        seen += 1;
        out.extend(&parent.associations);
        current = parent.superclass.as_deref().and_then(|s| context.model(s));
    }
    out
}

/// `Comment` from `Admin::Post`: `Admin::Comment` when the app has it, else `Comment`.
pub fn find_model_near<'c>(context: &'c AppContext, from: &str, name: &str) -> Option<&'c Model> {
    let mut scope = from;
    while let Some((outer, _)) = scope.rsplit_once("::") {
        if let Some(found) = context.model(&format!("{outer}::{name}")) {
            return Some(found);
        }
        scope = outer;
    }
    context.model(name)
}

/// The methods that run for an action: the action itself, then each filter of its controller and
/// ancestors that applies to it (`before_action :m, only: …`, not skipped), where the app defines it.
pub fn action_methods(context: &AppContext, class_name: &str, action: &str) -> Vec<(Arc<FileFacts>, MethodSummary)> {
    let mut out = Vec::new();
    let lineage = context.controller_lineage(class_name);
    let mut filters: Vec<String> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    // Filters a concern declares in its `included do` block run first, where it is included.
    let concern_filters: Vec<crate::rails::controller::Filter> =
        context.ancestry(class_name).iter().flat_map(|m| context.module_filters(m)).collect();
    let own = lineage.iter().rev().flat_map(|c| c.filters.iter());
    for filter in concern_filters.iter().chain(own) {
        {
            let applies = (filter.only.is_empty() || filter.only.iter().any(|o| o == action)) && !filter.except.iter().any(|e| e == action);
            if !applies || !filter.kind.contains("before") && !filter.kind.contains("around") {
                continue;
            }
            if filter.kind.starts_with("skip_") {
                skipped.extend(filter.targets.iter().cloned());
            } else {
                filters.extend(filter.targets.iter().cloned());
            }
        }
    }
    let ancestry = context.ancestry(class_name);
    let find = |name: &str| -> Option<(Arc<FileFacts>, MethodSummary)> {
        for owner in &ancestry {
            if let Some(method) = context.nav().methods_named(name).iter().find(|m| *m.owner == **owner && !m.singleton) {
                let summary = MethodSummary {
                    name: name.to_owned(),
                    singleton: false,
                    visibility: crate::syntax::outline::Visibility::Public,
                    span: method.span,
                    name_span: method.name_span,
                };
                return Some((Arc::clone(&method.file), summary));
            }
        }
        None
    };
    for name in filters.iter().filter(|f| !skipped.contains(f)) {
        out.extend(find(name));
    }
    out.extend(find(action));
    out
}

/// Whether every method of `chain` keeps a relation on `model`'s columns: relation methods and the
/// model's scopes (a `select` may alias a column, a `joins` then `where` stays on the model, a class
/// method may return anything).
fn relation_methods_only(context: &AppContext, model: &Model, chain: &[String]) -> bool {
    let scopes: HashSet<&str> = lineage_models(context, &model.class_name).flat_map(|m| m.scopes.iter().map(|s| s.name.as_str())).collect();
    chain.iter().all(|m| crate::rails::references::RELATION_METHODS.contains(&m.as_str()) || scopes.contains(m.as_str()))
}

/// The table name Active Record gives `class_name` in this app.
pub fn model_table_name(context: &AppContext, class_name: &str) -> String {
    let prefixes = &context.tree_facts().table_prefixes;
    crate::rails::model::table_name(class_name, &|name| context.model(name), prefixes)
}

/// `Admin::PostsController` → `admin/posts`.
pub fn controller_path(class_name: &str) -> Option<String> {
    let stem = class_name.strip_suffix("Controller")?;
    (!stem.is_empty()).then(|| inflect::underscore(stem))
}

/// The model a constant names from `file`: `Post`, or `Admin::Post` written as `Post` inside `Admin`.
fn resolve_model<'c>(context: &'c AppContext, file: &FileFacts, name: &str, span: Span) -> Option<&'c Model> {
    if let Some(namespace) = enclosing_class(file, span.start()) {
        let mut scope = namespace.as_str();
        while let Some((outer, _)) = scope.rsplit_once("::") {
            if let Some(model) = context.model(&format!("{outer}::{name}")) {
                return Some(model);
            }
            scope = outer;
        }
        if let Some(model) = context.model(&format!("{namespace}::{name}")) {
            return Some(model);
        }
    }
    context.model(name)
}

/// The innermost class or module of `file` around `offset`.
pub fn enclosing_class(file: &FileFacts, offset: usize) -> Option<String> {
    let spans = file
        .models
        .iter()
        .map(|m| (m.span, &m.class_name))
        .chain(file.controllers.iter().map(|c| (c.span, &c.class_name)))
        .chain(file.definitions.iter().map(|d| (d.span, &d.name)));
    spans.filter(|(span, _)| span.contains(offset)).min_by_key(|(span, _)| span.end_byte - span.start_byte).map(|(_, n)| n.clone())
}

fn declares_helper_method(controller: &Controller, name: &str) -> bool {
    controller.macros.iter().any(|m| m.name == "helper_method" && m.arguments.iter().any(|a| a.as_name() == Some(name)))
}

fn lineage_models<'c>(context: &'c AppContext, class_name: &str) -> impl Iterator<Item = &'c Model> {
    let mut current = context.model(class_name);
    let mut seen = 0;
    std::iter::from_fn(move || {
        let model = current.filter(|_| seen < 16)?;
        seen += 1;
        current = model.superclass.as_deref().and_then(|s| context.model(s));
        Some(model)
    })
}

/// Adds what one model's class body declares to `attributes`.
fn declare_model(context: &AppContext, model: &Model, attributes: &mut Attributes) {
    for association in &model.associations {
        attributes.associations.push(association.name.clone());
        let singular = inflect::singularize(&association.name);
        attributes.declared.insert(format!("{}_attributes", association.name));
        if association.kind == "belongs_to" {
            attributes.declared.insert(format!("{}_id", association.name));
        } else if association.kind != "has_one" {
            attributes.declared.insert(format!("{singular}_ids"));
        }
    }
    for attribute in &model.attributes {
        attributes.declared.extend(attribute.names.iter().cloned());
    }
    for delegate in &model.delegates {
        let prefix = match delegate.options.iter().find(|(k, _)| k == "prefix").map(|(_, v)| v) {
            Some(crate::syntax::value::Value::Bool(true)) => delegate.to.clone().map(|to| format!("{to}_")),
            Some(other) => other.as_name().map(|p| format!("{p}_")),
            None => None,
        };
        attributes.declared.extend(delegate.methods.iter().map(|m| format!("{}{m}", prefix.clone().unwrap_or_default())));
    }
    for method in &model.methods {
        attributes.declared.insert(method.name.trim_end_matches('=').to_owned());
    }
    for enumeration in &model.enums {
        attributes.declared.insert(enumeration.name.clone());
    }
    for validation in &model.validations {
        // `validates :password, confirmation: true` adds `password_confirmation`.
        if validation.options.iter().any(|(k, _)| k == "confirmation") || validation.kind == "validates_confirmation_of" {
            attributes.declared.extend(validation.attributes.iter().map(|a| format!("{a}_confirmation")));
        }
    }
    for call in &model.macros {
        let name = call.name.as_str();
        // Every name a macro is given may be an attribute it declares (`has_one_attached :avatar`,
        // `alias_attribute :title, :name`, `store :settings, accessors: [:color]`).
        attributes.declared.extend(call.arguments.iter().flat_map(|a| a.names()));
        for (_, value) in &call.options {
            attributes.declared.extend(value.names());
        }
        match name {
            "has_secure_password" => {
                let attribute = call.arguments.first().and_then(|a| a.as_name()).unwrap_or("password");
                attributes.declared.insert(attribute.to_owned());
                attributes.declared.insert(format!("{attribute}_confirmation"));
                attributes.declared.insert(format!("{attribute}_challenge"));
            }
            "has_one_attached" | "has_many_attached" => {
                for attachment in call.arguments.iter().filter_map(|a| a.as_name()) {
                    attributes.declared.insert(format!("{attachment}_attachment"));
                    attributes.declared.insert(format!("{attachment}_attachments"));
                    attributes.declared.insert(format!("{attachment}_blob"));
                    attributes.declared.insert(format!("{attachment}_blobs"));
                }
            }
            "has_rich_text" => {
                for text in call.arguments.iter().filter_map(|a| a.as_name()) {
                    attributes.declared.insert(format!("rich_text_{text}"));
                }
            }
            _ if crate::rails::model::RAILS_MACROS.contains(&name) || name.contains('.') => {}
            // A gem's macro (`acts_as_taggable_on`, `monetize`, `translates`): it may add attributes.
            _ => attributes.closed = false,
        }
    }
    for concern in &model.concerns {
        for module in concern.arguments.iter().filter_map(|a| a.as_name()) {
            match context.module_declarations(module) {
                Some(declarations) => {
                    attributes.declared.extend(declarations.names.iter().cloned());
                    attributes.closed &= !declarations.open;
                }
                None => attributes.closed = false,
            }
        }
    }
}

impl AppContext {
    /// The app's navigation facts, built once per context when first asked.
    pub fn nav(&self) -> &Nav {
        self.nav.get_or_init(|| Nav::new(self))
    }

    /// The controllers of the app that inherit from `class_name`, at any depth.
    pub fn controller_descendants(&self, class_name: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut frontier = vec![class_name.to_owned()];
        while let Some(parent) = frontier.pop() {
            for (name, (file, i)) in &self.controllers {
                let inherits = file.controllers[*i]
                    .superclass
                    .as_deref()
                    .and_then(|s| self.resolve_controller(name, s))
                    .is_some_and(|c| c.class_name == parent);
                if inherits && !out.contains(name) && out.len() < 256 {
                    out.push(name.clone());
                    frontier.push(name.clone());
                }
            }
        }
        out.sort();
        out
    }

    /// The controller and its in-app superclasses, nearest first.
    pub fn controller_lineage(&self, class_name: &str) -> Vec<&Controller> {
        self.lineage(class_name)
    }

    /// A class or module and everything it takes methods from in the app: its superclasses and the
    /// modules it and they include (by the name the `include` writes), nearest first.
    pub fn ancestry(&self, class_name: &str) -> Vec<String> {
        let mut out = vec![class_name.to_owned()];
        let mut i = 0;
        while i < out.len() && out.len() < 64 {
            let current = out[i].clone();
            let (superclass, includes): (Option<String>, Vec<String>) = if let Some(c) = self.controller(&current) {
                (
                    c.superclass
                        .as_deref()
                        .map(|s| self.resolve_controller(&c.class_name, s).map_or_else(|| s.to_owned(), |p| p.class_name.clone())),
                    c.concerns.iter().flat_map(|m| m.arguments.iter().filter_map(|a| a.as_name().map(str::to_owned))).collect(),
                )
            } else if let Some(m) = self.model(&current) {
                (
                    m.superclass.clone(),
                    m.concerns.iter().flat_map(|m| m.arguments.iter().filter_map(|a| a.as_name().map(str::to_owned))).collect(),
                )
            } else {
                (None, Vec::new())
            };
            for next in superclass.into_iter().chain(includes) {
                if !out.contains(&next) {
                    out.push(next);
                }
            }
            i += 1;
        }
        out
    }

    /// The filters (`before_action :m`…) a module of the app declares in its `included do` block.
    pub fn module_filters(&self, module: &str) -> Vec<crate::rails::controller::Filter> {
        use crate::syntax::outline::Item;
        let mut out = Vec::new();
        for file in self.files.iter().filter(|f| f.definitions.iter().any(|d| d.name == module)) {
            for namespace in file.outline.namespaces().into_iter().filter(|n| n.name == module) {
                for item in &namespace.items {
                    let Item::Call(included) = item else { continue };
                    if included.method != "included" {
                        continue;
                    }
                    for inner in included.block.iter().flat_map(|b| &b.items) {
                        if let Item::Call(call) = inner
                            && call.receiver.is_none()
                            && crate::rails::controller::is_filter(&call.method)
                        {
                            out.push(crate::rails::controller::filter_of(call));
                        }
                    }
                }
            }
        }
        out
    }

    /// The names a module of the app declares for the classes that include it: its methods and the
    /// names its macros (in its body and its `included do` block) are given. `None` when the app does
    /// not define it (a gem's module).
    pub fn module_declarations(&self, module: &str) -> Option<&ModuleDeclarations> {
        let declarations = self.module_declarations.get_or_init(|| {
            // Each module's own names, and the modules it includes (`include Taggable` in a concern).
            let mut own: HashMap<String, (HashSet<String>, Vec<String>)> = HashMap::new();
            for file in &self.files {
                for namespace in file.outline.namespaces().into_iter().filter(|n| n.kind == crate::syntax::outline::NamespaceKind::Module) {
                    let (names, includes) = own.entry(namespace.name.clone()).or_default();
                    collect_declarations(&namespace.items, names, includes);
                }
            }
            let find = |name: &str| -> Option<&String> {
                own.get_key_value(name).map(|(k, _)| k).or_else(|| {
                    let suffix = format!("::{name}");
                    own.keys().filter(|k| k.ends_with(&suffix)).min()
                })
            };
            // What a module declares is what the modules it includes declare too, at any depth.
            own.keys()
                .map(|module| {
                    let mut out = ModuleDeclarations { names: HashSet::new(), open: false };
                    let mut queue = vec![module];
                    let mut seen: HashSet<&String> = HashSet::new();
                    while let Some(current) = queue.pop() {
                        if !seen.insert(current) || seen.len() > 64 {
                            continue;
                        }
                        let (names, includes) = &own[current];
                        out.names.extend(names.iter().cloned());
                        for included in includes {
                            match find(included) {
                                Some(found) => queue.push(found),
                                None if PLAIN_MODULES.contains(&included.as_str()) => {}
                                // A gem's module may declare anything.
                                None => out.open = true,
                            }
                        }
                    }
                    (module.clone(), out)
                })
                .collect()
        });
        declarations.get(module).or_else(|| {
            // Included by its last name from inside its namespace.
            let suffix = format!("::{module}");
            declarations.iter().filter(|(k, _)| k.ends_with(&suffix)).min_by_key(|(k, _)| *k).map(|(_, v)| v)
        })
    }
}

/// What a module of the app declares for the classes that include it.
#[derive(Debug, Default)]
pub struct ModuleDeclarations {
    /// Method names and the names its macros are given, its included modules' too.
    pub names: HashSet<String>,
    /// It includes a module the app does not define (a gem's), which may declare anything.
    pub open: bool,
}

/// Modules that declare no attribute for their includers.
const PLAIN_MODULES: &[&str] = &["ActiveSupport::Concern", "Comparable", "Enumerable", "Kernel"];

/// Method names and every name given to a macro, in a module's body and its blocks.
/// (The modules it includes or extends are listed in `includes`.)
fn collect_declarations(items: &[crate::syntax::outline::Item], names: &mut HashSet<String>, includes: &mut Vec<String>) {
    use crate::syntax::outline::Item;
    for item in items {
        match item {
            Item::Method(def) => {
                names.insert(def.name.trim_end_matches('=').to_owned());
            }
            Item::Call(call) => {
                if call.receiver.is_none() && matches!(call.method.as_str(), "include" | "extend" | "prepend") {
                    includes.extend(call.arguments.iter().filter_map(|a| a.as_name()).map(str::to_owned));
                }
                names.extend(call.arguments.iter().flat_map(|a| a.names()));
                for (_, value) in &call.options {
                    names.extend(value.names());
                }
                if let Some(block) = &call.block {
                    collect_declarations(&block.items, names, includes);
                }
            }
            Item::SingletonClass { items, .. } => collect_declarations(items, names, includes),
            _ => {}
        }
    }
}

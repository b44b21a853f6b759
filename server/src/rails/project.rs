//! Rails project detection and file classification.
//!
//! A Rails root is a folder with `config/application.rb` or `config/routes.rb`. Workspaces may hold
//! many (monorepos, engines, an engine's `test/dummy`): every one is found, and a file belongs to the
//! innermost root that contains it. The walk never enters `node_modules/`, and enters `tmp/`, `log/`,
//! `vendor/`, `public/` or `storage/` only inside the app's code (`app/controllers/public/` is the
//! app's; `public/` beside `app/` is its assets). It reads what Rails and Roundhouse read: a file
//! `.gitignore` names is still the app's (a site's own `about.html.erb`, kept out of git, is the
//! template Rails renders and the compiler emits); only `.ignore` files keep a path out.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::syntax::Language;

/// Folders never indexed.
const SKIPPED_DIRS: &[&str] = &["node_modules", ".git", ".bundle", "target"];
/// Folders an app keeps beside its code (its runtime files, its assets, its gems), skipped there but
/// not inside its code: `app/controllers/public/`, `app/models/storage/` are the app's own.
const SKIPPED_BESIDE_CODE: &[&str] = &["tmp", "log", "vendor", "public", "storage", "coverage"];
/// The folders of an app that hold its code: below one, every folder is code.
const CODE_DIRS: &[&str] = &["app", "lib", "config", "db", "test", "spec", "extras"];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, bincode::Encode, bincode::Decode)]
pub struct RailsApp {
    pub root: PathBuf,
    /// The folder name, or the application module from `config/application.rb` when the index read it.
    pub name: String,
}

impl RailsApp {
    /// The app rooted at `root`, named after its folder.
    pub fn at(root: PathBuf) -> RailsApp {
        let name = root.file_name().and_then(|n| n.to_str()).unwrap_or("app").to_owned();
        RailsApp { root, name }
    }
}

/// What a file is to Rails, from its path relative to the app root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    Model,
    Controller,
    View,
    Helper,
    Concern,
    /// `app/jobs`, `app/mailers`, `app/channels` and other `app/*` folders of Ruby classes.
    AppSupport,
    Schema,
    Migration,
    Routes,
    Application,
    Environment,
    Initializer,
    Library,
    Test,
    /// Any other Ruby file (`db/seeds.rb`, `Rakefile`, `config/puma.rb`…).
    OtherRuby,
    /// `config/locales/**/*.yml` (and `.rb`): translations, for navigation and the i18n check.
    Locale,
    /// A schema Roundhouse does not read: `db/structure.sql`, or another database's
    /// (`db/queue_schema.rb`, `db/animals_structure.sql`). Read for navigation and the column checks.
    DatabaseSchema,
    /// A deployment file that is not Ruby: `Gemfile.lock`, a `Procfile`, a `Dockerfile` (read for the
    /// runtime lanes; the Gemfile and `config/puma.rb` are Ruby, `OtherRuby`).
    Deployment,
}

impl FileKind {
    /// Ruby code Roundhouse compiles into the emitted trees: models, controllers, helpers, concerns,
    /// other `app/` support code and `lib/`.
    pub fn is_app_code(self) -> bool {
        matches!(
            self,
            FileKind::Model | FileKind::Controller | FileKind::Helper | FileKind::Concern | FileKind::AppSupport | FileKind::Library
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Model => "model",
            FileKind::Controller => "controller",
            FileKind::View => "view",
            FileKind::Helper => "helper",
            FileKind::Concern => "concern",
            FileKind::AppSupport => "app_support",
            FileKind::Schema => "schema",
            FileKind::Migration => "migration",
            FileKind::Routes => "routes",
            FileKind::Application => "application",
            FileKind::Environment => "environment",
            FileKind::Initializer => "initializer",
            FileKind::Library => "library",
            FileKind::Test => "test",
            FileKind::OtherRuby => "other_ruby",
            FileKind::Locale => "locale",
            FileKind::DatabaseSchema => "database_schema",
            FileKind::Deployment => "deployment",
        }
    }
}

/// The template engines Rails apps use; `.erb` is parsed, the others are recognized.
const TEMPLATE_HANDLERS: &[&str] = &["erb", "haml", "slim", "jbuilder", "builder", "ruby", "rabl"];

/// How to parse a file, from its name alone; `None` for files the index does not read.
pub fn language_of(path: &Path) -> Option<Language> {
    let name = path.file_name()?.to_str()?;
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match extension {
        "rb" | "rake" | "ru" | "jbuilder" | "builder" | "ruby" | "gemspec" => Some(Language::Ruby),
        "erb" => Some(Language::Erb),
        "haml" => Some(Language::Haml),
        "slim" | "rabl" => Some(Language::OtherTemplate),
        // Test fixtures (Roundhouse compiles them) and translations (navigation reads them); other
        // YAML is configuration.
        "yml" | "yaml" if path.components().any(|c| c.as_os_str() == "fixtures") => Some(Language::Yaml),
        "yml" | "yaml" if is_locale_path(path) => Some(Language::Yaml),
        "sql" if is_structure_dump(name) && path.parent().and_then(|p| p.file_name()).is_some_and(|d| d == "db") => Some(Language::Sql),
        _ if matches!(name, "Gemfile" | "Rakefile" | "Guardfile") => Some(Language::Ruby),
        _ if is_deployment_text(path) => Some(Language::Text),
        _ => None,
    }
}

/// `Gemfile.lock`, a `Procfile` or a `Dockerfile` by its name (which are an app's own, at its root,
/// `classify` decides).
fn is_deployment_text(path: &Path) -> bool {
    use crate::rails::deploy::{DeployKind, deploy_kind};
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    matches!(deploy_kind(name), Some(DeployKind::Lockfile | DeployKind::Procfile | DeployKind::Dockerfile))
}

/// Under `config/locales/`.
fn is_locale_path(path: &Path) -> bool {
    let parts: Vec<&std::ffi::OsStr> = path.components().map(|c| c.as_os_str()).collect();
    parts.windows(2).any(|w| w[0] == "config" && w[1] == "locales")
}

/// `structure.sql`, `animals_structure.sql`: a database's SQL dump.
fn is_structure_dump(name: &str) -> bool {
    name == "structure.sql" || name.strip_suffix("_structure.sql").is_some_and(|db| !db.is_empty())
}

/// The database a schema file describes: `primary` for `db/schema.rb` and `db/structure.sql`, `queue`
/// for `db/queue_schema.rb` (Rails' `<name>_schema.rb` for each database but the primary).
pub fn schema_database(relative: &str) -> Option<&str> {
    let name = relative.strip_prefix("db/").filter(|n| !n.contains('/'))?;
    match name {
        "schema.rb" | "structure.sql" => Some("primary"),
        _ => name.strip_suffix("_schema.rb").or_else(|| name.strip_suffix("_structure.sql")).filter(|db| !db.is_empty()),
    }
}

/// Classifies `relative` (a path relative to the app root, `/`-separated).
pub fn classify(relative: &str) -> FileKind {
    let parts: Vec<&str> = relative.split('/').collect();
    let in_app = |dir: &str| parts.len() > 2 && parts[0] == "app" && parts[1] == dir;
    if in_app("views") {
        return FileKind::View;
    }
    if (in_app("models") || in_app("controllers")) && parts.get(2) == Some(&"concerns") {
        return FileKind::Concern;
    }
    if in_app("models") {
        return FileKind::Model;
    }
    if in_app("controllers") {
        return FileKind::Controller;
    }
    if in_app("helpers") {
        return FileKind::Helper;
    }
    if parts.len() > 2 && parts[0] == "app" {
        return if parts[1] == "assets" || parts[1] == "javascript" { FileKind::OtherRuby } else { FileKind::AppSupport };
    }
    match relative {
        "db/schema.rb" => return FileKind::Schema,
        "config/routes.rb" => return FileKind::Routes,
        "config/application.rb" => return FileKind::Application,
        _ => {}
    }
    if schema_database(relative).is_some() {
        return FileKind::DatabaseSchema;
    }
    if matches!(
        crate::rails::deploy::deploy_kind(relative),
        Some(
            crate::rails::deploy::DeployKind::Lockfile
                | crate::rails::deploy::DeployKind::Procfile
                | crate::rails::deploy::DeployKind::Dockerfile
        )
    ) {
        return FileKind::Deployment;
    }
    match parts.as_slice() {
        ["db", "migrate", ..] => FileKind::Migration,
        ["config", "locales", ..] => FileKind::Locale,
        ["config", "routes", ..] => FileKind::Routes,
        ["config", "environments", ..] => FileKind::Environment,
        ["config", "initializers", ..] => FileKind::Initializer,
        // Roundhouse reads every `.rb` under lib/ (tasks included, unless `autoload_lib(ignore:)` names
        // them) and under extras/.
        ["lib" | "extras", _, ..] => FileKind::Library,
        ["test" | "spec", ..] => FileKind::Test,
        _ => FileKind::OtherRuby,
    }
}

/// For `app/views/posts/_form.html.erb`: the template's logical path (`posts/_form`), format, handler.
pub fn template_parts(relative: &str) -> Option<(String, Option<String>, String)> {
    let rest = relative.strip_prefix("app/views/")?;
    let (dir, file) = rest.rsplit_once('/').unwrap_or(("", rest));
    let mut pieces = file.split('.');
    let base = pieces.next()?;
    let extensions: Vec<&str> = pieces.collect();
    let handler = extensions.last().copied().filter(|h| TEMPLATE_HANDLERS.contains(h))?;
    // `show.en.html.erb`: the format is the extension before the handler (a locale may come first).
    let format = if extensions.len() >= 2 { Some(extensions[extensions.len() - 2].to_owned()) } else { None };
    let logical = if dir.is_empty() { base.to_owned() } else { format!("{dir}/{base}") };
    Some((logical, format, handler.to_owned()))
}

/// A generator's template (`lib/generators/<name>/templates/model.rb`, `lib/templates/…`): ERB that
/// writes Ruby, not Ruby itself, whatever its extension says.
pub fn is_generator_template(relative: &str) -> bool {
    relative.starts_with("lib/templates/") || (relative.starts_with("lib/generators/") && relative.contains("/templates/"))
}

/// An engine's class (`lib/billing/engine.rb`): where it calls `isolate_namespace` and may set
/// inflections.
pub fn is_engine_class(relative: &str) -> bool {
    relative.starts_with("lib/") && relative.ends_with("/engine.rb")
}

pub fn is_rails_root(dir: &Path) -> bool {
    dir.join("config/application.rb").is_file() || dir.join("config/routes.rb").is_file()
}

fn walker(root: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    let walk_root = root.to_path_buf();
    // The `ignore` crate reads its ignore files whole, through any link, and its parents' up to `/`: a
    // `.ignore` linked to `/dev/zero`, a FIFO or the server's own input would be read as text. It reads
    // none here; `IgnoreFiles` reads each one as every file is read (regular, bounded, a link only
    // inside the walk's folder) and the walk asks it.
    let ignores = IgnoreFiles::new(root);
    builder
        .hidden(true)
        .ignore(false)
        .parents(false)
        .git_ignore(false)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if is_dir && entry.file_name().to_str().is_some_and(|name| skipped_folder(name, entry.path(), &walk_root)) {
                return false;
            }
            !ignores.ignored(entry.path(), is_dir)
        });
    builder
}

/// The largest ignore file read (one bigger is not obeyed, and said so).
const IGNORE_FILE_LIMIT: u64 = 1 << 20;

/// The `.ignore` files that shape one walk: its folder's ancestors' (read before it starts) and each
/// folder's within it (read when the walk first asks about a path in it, once).
struct IgnoreFiles {
    root: PathBuf,
    /// The ancestors' rules, the nearest first.
    above: Vec<std::sync::Arc<ignore::gitignore::Gitignore>>,
    within: dashmap::DashMap<PathBuf, Option<std::sync::Arc<ignore::gitignore::Gitignore>>>,
}

impl IgnoreFiles {
    fn new(root: &Path) -> IgnoreFiles {
        let above = root.ancestors().skip(1).filter_map(|dir| read_ignore_file(dir, dir)).collect();
        IgnoreFiles { root: root.to_path_buf(), above, within: dashmap::DashMap::new() }
    }

    /// Whether an ignore file keeps `path` out: the nearest that says anything of it decides (a
    /// `!pattern` lets back in what a farther one keeps out), as the `ignore` crate decides.
    fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let decide = |rules: &ignore::gitignore::Gitignore| match rules.matched(path, is_dir) {
            ignore::Match::None => None,
            other => Some(other.is_ignore()),
        };
        for dir in path.ancestors().skip(1).take_while(|dir| dir.starts_with(&self.root)) {
            let rules = match self.within.get(dir) {
                Some(rules) => rules.clone(),
                None => {
                    let rules = read_ignore_file(dir, &self.root);
                    self.within.insert(dir.to_path_buf(), rules.clone());
                    rules
                }
            };
            if let Some(verdict) = rules.as_deref().and_then(decide) {
                return verdict;
            }
        }
        self.above.iter().find_map(|rules| decide(rules)).unwrap_or(false)
    }
}

/// The rules of `dir`'s ignore files (`IGNORE_FILES`), read as a workspace file is (`files::open_regular`:
/// a regular file, at most `IGNORE_FILE_LIMIT` bytes, through a link only inside `inside`); `None` when
/// it has none, or none that can be read (a warning says why).
fn read_ignore_file(dir: &Path, inside: &Path) -> Option<std::sync::Arc<ignore::gitignore::Gitignore>> {
    let mut builder = ignore::gitignore::GitignoreBuilder::new(dir);
    let mut any = false;
    for name in IGNORE_FILES {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            continue;
        }
        let text = match crate::files::read_regular(&path, Some(inside), IGNORE_FILE_LIMIT) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(refusal) => {
                tracing::warn!("{}: not obeyed: {refusal}", path.display());
                continue;
            }
        };
        for line in text.lines() {
            // A line the matcher cannot read is skipped, as Git skips it.
            let _ = builder.add_line(Some(path.clone()), line);
            any = true;
        }
    }
    if !any {
        return None;
    }
    builder.build().ok().filter(|rules| !rules.is_empty()).map(std::sync::Arc::new)
}

/// Whether the walk of the app at `root` reaches `folder` (no hidden or skipped folder on the way)
/// and finds a file to index in it: a folder created or moved into the app.
pub fn holds_indexable_files(root: &Path, folder: &Path) -> bool {
    walk_enters(root, folder)
        && walker(folder)
            .build()
            .filter_map(Result::ok)
            .any(|entry| entry.file_type().is_some_and(|t| t.is_file()) && language_of(entry.path()).is_some())
}

/// Whether a walk from `root` enters `folder`: no hidden or skipped folder on the way (a
/// `node_modules/` an install just made is not walked).
pub fn walk_enters(root: &Path, folder: &Path) -> bool {
    let Ok(relative) = folder.strip_prefix(root) else { return false };
    let mut at = root.to_path_buf();
    for component in relative.components() {
        at.push(component);
        // Hidden folders: the walk's `hidden(true)`.
        let Some(name) = component.as_os_str().to_str() else { return false };
        if name.starts_with('.') || skipped_folder(name, &at, root) {
            return false;
        }
    }
    true
}

/// Whether the walk from `walk_root` skips the folder `name` at `dir`: never indexed, or beside an
/// app's code (`public/` beside `app/`, not `app/controllers/public/`).
fn skipped_folder(name: &str, dir: &Path, walk_root: &Path) -> bool {
    SKIPPED_DIRS.contains(&name) || (SKIPPED_BESIDE_CODE.contains(&name) && !in_code(dir, walk_root))
}

/// Whether `dir` sits below a folder of an app's code (`app/`, `lib/`…), as seen from the walk's root.
fn in_code(dir: &Path, walk_root: &Path) -> bool {
    let relative = dir.strip_prefix(walk_root).unwrap_or(dir);
    let mut parents = relative.components().rev().skip(1);
    parents.any(|c| c.as_os_str().to_str().is_some_and(|c| CODE_DIRS.contains(&c)))
}

/// Every Rails app at or below `folder`, sorted by root.
pub fn discover_apps(folder: &Path) -> Vec<RailsApp> {
    discover(folder).0
}

/// One walk of `folder`, on every core: the Rails apps in it (a `config/routes.rb` or
/// `config/application.rb` makes its grandparent a root; no extra `stat` per folder) and every
/// indexable file, sorted.
pub fn discover(folder: &Path) -> (Vec<RailsApp>, Vec<PathBuf>) {
    let Discovered { apps, files, .. } = discover_recording(folder, false);
    (apps, files)
}

/// What one walk found, and (when asked) what it read to find it.
#[derive(Debug, Default)]
pub struct Discovered {
    pub apps: Vec<RailsApp>,
    pub files: Vec<PathBuf>,
    /// Every folder the walk listed and every ignore file that shaped it (the folder's own and its
    /// ancestors'), each with its status (`files::status`) taken before the walk read it: a
    /// later walk that finds them all with the same status finds the same files.
    pub read: Vec<(PathBuf, u64)>,
}

/// The ignore files the walk obeys (`walker`): the `ignore` crate's own (Git's are not: Rails and
/// the compiler read what they name).
const IGNORE_FILES: [&str; 1] = [".ignore"];

/// `discover`, also recording what the walk read when `record` is set.
pub fn discover_recording(folder: &Path, record: bool) -> Discovered {
    /// What the walking threads found, handed over as each ends.
    #[derive(Default)]
    struct Gathered {
        roots: std::collections::BTreeSet<PathBuf>,
        files: Vec<PathBuf>,
        read: Vec<(PathBuf, u64)>,
    }
    let gathered = std::sync::Mutex::new(Gathered::default());
    if record {
        let ancestors = folder.ancestors().skip(1).flat_map(statuses_of_ignore_files);
        gathered.lock().unwrap_or_else(std::sync::PoisonError::into_inner).read.extend(ancestors);
    }
    walker(folder).build_parallel().run(|| {
        // Each walking thread gathers its own finds and hands them over once, when it ends.
        struct Finds<'a> {
            own: Gathered,
            into: &'a std::sync::Mutex<Gathered>,
        }
        impl Drop for Finds<'_> {
            fn drop(&mut self) {
                if let Ok(mut into) = self.into.lock() {
                    into.roots.append(&mut self.own.roots);
                    into.files.append(&mut self.own.files);
                    into.read.append(&mut self.own.read);
                }
            }
        }
        let mut finds = Finds { own: Gathered::default(), into: &gathered };
        Box::new(move |entry| {
            let Ok(entry) = entry else { return ignore::WalkState::Continue };
            let path = entry.path();
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                // Called before the walk lists the folder: a change after this status changes it.
                if record {
                    let now = std::time::SystemTime::now();
                    let status = std::fs::metadata(path).map_or(0, |m| crate::files::status(&m, now));
                    finds.own.read.push((path.to_path_buf(), status));
                    finds.own.read.extend(statuses_of_ignore_files(path));
                }
                return ignore::WalkState::Continue;
            }
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return ignore::WalkState::Continue;
            }
            let name = entry.file_name().to_str().unwrap_or("");
            if matches!(name, "routes.rb" | "application.rb") {
                let config = path.parent();
                if config.and_then(|c| c.file_name()).is_some_and(|n| n == "config") {
                    finds.own.roots.extend(config.and_then(Path::parent).map(Path::to_path_buf));
                }
            }
            if language_of(path).is_some() {
                finds.own.files.push(path.to_path_buf());
            }
            ignore::WalkState::Continue
        })
    });
    let Gathered { roots, mut files, mut read } = gathered.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let apps: Vec<RailsApp> = roots.into_iter().map(RailsApp::at).collect();
    files.retain(|f| owning_app(f, &apps).is_some());
    files.sort();
    read.sort();
    Discovered { apps, files, read }
}

/// The ignore files in `dir`, with their statuses (one that is absent needs none: creating it
/// changes the folder's status).
fn statuses_of_ignore_files(dir: &Path) -> Vec<(PathBuf, u64)> {
    let now = std::time::SystemTime::now();
    IGNORE_FILES
        .iter()
        .filter_map(|name| {
            let path = dir.join(name);
            let metadata = std::fs::metadata(&path).ok()?;
            Some((path, crate::files::status(&metadata, now)))
        })
        .collect()
}

/// Every indexable file of an app, skipping nested apps' files (they are indexed under their own root).
pub fn app_files(app: &RailsApp, all_apps: &[RailsApp]) -> Vec<PathBuf> {
    let (_, files) = discover(&app.root);
    files.into_iter().filter(|path| owning_app(path, all_apps).is_some_and(|owner| owner.root == app.root)).collect()
}

/// The innermost app whose root contains `path`.
pub fn owning_app<'a>(path: &Path, apps: &'a [RailsApp]) -> Option<&'a RailsApp> {
    // Of two roots that both contain the path the longer is the inner one.
    apps.iter().filter(|app| is_within(path, &app.root)).max_by_key(|app| app.root.as_os_str().len())
}

/// Whether `path` is `root` or below it. Asked for every file against every app's root (by each
/// whole-app pass, by each app's context): the bytes turn most roots away before the component-wise
/// test (with thousands of apps in one folder, that test was most of a run).
pub fn is_within(path: &Path, root: &Path) -> bool {
    path.as_os_str().as_encoded_bytes().starts_with(root.as_os_str().as_encoded_bytes()) && path.starts_with(root)
}

/// `path` relative to `root`, `/`-separated.
pub fn relative_path(path: &Path, root: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_rails_paths() {
        let cases = [
            ("app/models/post.rb", FileKind::Model),
            ("app/models/concerns/trashable.rb", FileKind::Concern),
            ("app/controllers/admin/posts_controller.rb", FileKind::Controller),
            ("app/views/posts/_form.html.erb", FileKind::View),
            ("app/jobs/cleanup_job.rb", FileKind::AppSupport),
            ("db/schema.rb", FileKind::Schema),
            ("db/migrate/20240101000000_create_posts.rb", FileKind::Migration),
            ("config/routes/admin.rb", FileKind::Routes),
            ("config/initializers/inflections.rb", FileKind::Initializer),
            ("lib/markdown/renderer.rb", FileKind::Library),
            ("lib/tasks/cleanup.rake", FileKind::Library),
            ("extras/markdowner.rb", FileKind::Library),
            ("db/seeds.rb", FileKind::OtherRuby),
        ];
        for (path, kind) in cases {
            assert_eq!(classify(path), kind, "{path}");
        }
    }

    #[test]
    fn splits_template_names() {
        assert_eq!(template_parts("app/views/posts/_form.html.erb"), Some(("posts/_form".into(), Some("html".into()), "erb".into())));
        assert_eq!(template_parts("app/views/layouts/application.html.haml").map(|t| t.0), Some("layouts/application".into()));
        assert_eq!(template_parts("app/views/posts/index.json.jbuilder").map(|t| t.1), Some(Some("json".into())));
        assert_eq!(template_parts("app/views/posts/show.erb").map(|t| t.1), Some(None));
        assert_eq!(template_parts("app/views/posts/notes.txt"), None);
    }

    /// A recording walk lists what a later walk would have to find the same to find the same files:
    /// every folder it listed (not those it skips) and every ignore file it obeyed, its own folder's
    /// ancestors' included.
    #[test]
    fn a_recording_walk_lists_the_folders_and_ignore_files_it_read() {
        let dir = std::env::temp_dir().join(format!("switchyard-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let app = dir.join("shop");
        for folder in ["config", "app/models", "node_modules/pkg", "log"] {
            std::fs::create_dir_all(app.join(folder)).unwrap();
        }
        std::fs::write(app.join("config/routes.rb"), "").unwrap();
        std::fs::write(app.join("app/models/post.rb"), "class Post\nend\n").unwrap();
        std::fs::write(dir.join(".gitignore"), "").unwrap();
        // A template kept out of git is still the app's: Rails renders it, the compiler emits it.
        std::fs::create_dir_all(app.join("app/views/about")).unwrap();
        std::fs::write(app.join("app/views/about/about.html.erb"), "<p>About</p>\n").unwrap();
        std::fs::write(app.join(".gitignore"), "/coverage\napp/views/about/about.*\n").unwrap();
        std::fs::write(app.join("app/.ignore"), "").unwrap();
        // An `.ignore` file keeps a path out.
        std::fs::write(app.join("config/.ignore"), "local.rb\n").unwrap();
        std::fs::write(app.join("config/local.rb"), "x = 1\n").unwrap();
        let found = discover_recording(&app, true);
        assert!(!found.files.contains(&app.join("config/local.rb")), "{:?}", found.files);
        assert!(found.files.contains(&app.join("app/views/about/about.html.erb")), "{:?}", found.files);
        let read: Vec<PathBuf> = found.read.iter().map(|(path, _)| path.clone()).collect();
        for expected in [app.clone(), app.join("app"), app.join("app/models"), app.join("config"), app.join("app/.ignore")] {
            assert!(read.contains(&expected), "{} not among {read:?}", expected.display());
        }
        assert!(!read.iter().any(|p| p.starts_with(app.join("node_modules")) || p.starts_with(app.join("log"))), "{read:?}");
        assert_eq!(found.files, discover(&app).1);
        assert!(discover_recording(&app, false).read.is_empty());
        // Inside the app's code, a folder named like one beside it is code.
        std::fs::create_dir_all(app.join("app/controllers/public")).unwrap();
        std::fs::write(app.join("app/controllers/public/pages_controller.rb"), "class Public::PagesController; end\n").unwrap();
        std::fs::create_dir_all(app.join("public")).unwrap();
        std::fs::write(app.join("public/robots.rb"), "x = 1\n").unwrap();
        let files = discover(&app).1;
        assert!(files.contains(&app.join("app/controllers/public/pages_controller.rb")), "{files:?}");
        assert!(!files.contains(&app.join("public/robots.rb")), "{files:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! The workspace index: per-file facts in a `DashMap`, keyed by absolute path, plus the Rails apps
//! found in the workspace. Replacing a file's facts replaces everything derived from it; whole-app
//! answers (is this model Active Record through STI? which table?) are computed from the current facts
//! when asked, so they can never go stale.
//!
//! Architecture invariant: nothing here holds a tree-sitter tree. Trees live only in open documents
//! (`document`); closed files are parsed, extracted and their trees dropped.

pub mod cache;
mod dump;
pub mod published;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use dashmap::DashMap;
use rayon::prelude::*;

pub use dump::{IndexDump, dump};

use crate::rails::project::{self, RailsApp};
use crate::rails::{FileFacts, inflect};
use crate::syntax::ParsedFile;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileError {
    NotUtf8,
    Io(String),
    NotIndexable,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::NotUtf8 => f.write_str("not valid UTF-8; Switchyard reads UTF-8 source only"),
            FileError::Io(error) => f.write_str(error),
            FileError::NotIndexable => f.write_str("not a Ruby or template file"),
        }
    }
}

/// A file read: its facts, its length, and (in an app, with a cache) what the cache keeps of it.
struct ReadFile {
    facts: FileFacts,
    len: usize,
    saved: Option<Saved>,
}

/// What the cache is to keep of a file read: its relative path, fingerprint and status, its facts'
/// encoding when they came from the cache, and whether the cache had them under another status.
struct Saved {
    relative: String,
    fingerprint: cache::Fingerprint,
    status: u64,
    encoded: Option<cache::Encoded>,
    restamped: bool,
}

/// The persisted facts of each app's files, by app root and relative path, taken as they are used.
type CachedFacts = HashMap<PathBuf, DashMap<String, cache::Cached>>;

/// An app's last expanded route table and the routes files it was expanded from (by identity: facts
/// are replaced, never changed, so the same `Arc`s mean the same routes).
type RouteTableMemo = (Vec<Arc<FileFacts>>, Arc<crate::rails::route_table::RouteTable>);

#[derive(Default)]
pub struct Index {
    apps: RwLock<Vec<RailsApp>>,
    files: DashMap<PathBuf, Arc<FileFacts>>,
    /// By app root: an edit that leaves the routes files alone (most edits) reuses the expansion.
    route_tables: std::sync::Mutex<std::collections::HashMap<PathBuf, RouteTableMemo>>,
    /// Moves on with every change to the files or the apps: what was derived at one generation is
    /// current while the generation is the same.
    generation: std::sync::atomic::AtomicU64,
    /// Where the cold index finds the facts of unchanged files and leaves them for the next run.
    cache: RwLock<Option<cache::Cache>>,
    /// Whether the cold index records what it read (`IndexReport::read`).
    record_reads: std::sync::atomic::AtomicBool,
}

/// What a cold index did, for progress messages, `--check` and benchmarks.
#[derive(Debug, Default)]
pub struct IndexReport {
    pub files: usize,
    pub bytes: usize,
    pub errors: Vec<(PathBuf, FileError)>,
    /// When the index records what it read (`record_reads`): every folder it listed, ignore file it
    /// obeyed and file it indexed, with the status that vouched for it then (`0`: nothing vouches,
    /// such as a file changed too recently, or an open document's file, left unread).
    pub read: Vec<(PathBuf, u64)>,
}

impl Index {
    pub fn new() -> Index {
        Index::default()
    }

    /// The index's generation (see the field): read it before taking a snapshot to label what is
    /// derived from the snapshot.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn changed(&self) {
        self.generation.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// Lets the cold index (`index_workspace`) read and write the persisted index.
    pub fn use_cache(&self, cache: Option<cache::Cache>) {
        if let Ok(mut current) = self.cache.write() {
            *current = cache;
        }
    }

    /// Makes the cold index record what it read (`IndexReport::read`), at a `stat` per folder.
    pub fn record_reads(&self) {
        self.record_reads.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn apps(&self) -> Vec<RailsApp> {
        self.apps.read().map(|apps| apps.clone()).unwrap_or_default()
    }

    /// Adds apps (deduplicated by root).
    pub fn add_apps(&self, new_apps: Vec<RailsApp>) {
        if let Ok(mut apps) = self.apps.write() {
            for app in new_apps {
                if !apps.iter().any(|a| a.root == app.root) {
                    self.changed();
                    apps.push(app);
                }
            }
            apps.sort_by(|a, b| a.root.cmp(&b.root));
        }
    }

    /// Forgets the apps under `folder` (a workspace folder the client removed).
    pub fn remove_apps_under(&self, folder: &Path) {
        if let Ok(mut apps) = self.apps.write() {
            apps.retain(|app| !app.root.starts_with(folder));
            self.changed();
        }
    }

    pub fn app_for(&self, path: &Path) -> Option<RailsApp> {
        let apps = self.apps.read().ok()?;
        project::owning_app(path, &apps).cloned()
    }

    /// Whether `path` belongs to the app rooted at `root` (`app_for` without the copy).
    /// The files of the app at `root` among `snapshot` (sorted by path, as `snapshot` returns it): one
    /// run of it (a path's descendants sort together), less the files of an app nested in it. Each
    /// app's context takes its files this way, so a folder of thousands of apps costs each app its
    /// own files, not a look at every file.
    pub fn files_of(&self, snapshot: &[Arc<FileFacts>], root: &Path) -> Vec<Arc<FileFacts>> {
        let nested: Vec<PathBuf> = self
            .apps
            .read()
            .map(|apps| {
                apps.iter().filter(|app| app.root != root && project::is_within(&app.root, root)).map(|app| app.root.clone()).collect()
            })
            .unwrap_or_default();
        let start = snapshot.partition_point(|f| f.path.as_path() < root);
        snapshot[start..]
            .iter()
            .take_while(|f| f.path.starts_with(root))
            .filter(|f| !nested.iter().any(|inner| f.path.starts_with(inner)))
            .cloned()
            .collect()
    }

    pub fn get(&self, path: &Path) -> Option<Arc<FileFacts>> {
        self.files.get(path).map(|entry| Arc::clone(entry.value()))
    }

    pub fn insert(&self, facts: FileFacts) -> Arc<FileFacts> {
        self.replace(facts).0
    }

    /// Stores `facts`, returning them and the facts they replaced.
    pub fn replace(&self, facts: FileFacts) -> (Arc<FileFacts>, Option<Arc<FileFacts>>) {
        let facts = Arc::new(facts);
        let previous = self.files.insert(facts.path.clone(), Arc::clone(&facts));
        self.changed();
        (facts, previous)
    }

    pub fn remove(&self, path: &Path) -> Option<Arc<FileFacts>> {
        let removed = self.files.remove(path).map(|(_, facts)| facts);
        self.changed();
        removed
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Every file's facts, in no order (`snapshot` sorts them by path, which costs a path comparison
    /// per step: a few milliseconds per thousand files).
    pub fn unordered(&self) -> Vec<Arc<FileFacts>> {
        self.files.iter().map(|entry| Arc::clone(entry.value())).collect()
    }

    /// Every file's facts, sorted by path: a consistent view that holds no lock once returned.
    pub fn snapshot(&self) -> Vec<Arc<FileFacts>> {
        let mut all = self.unordered();
        all.sort_by(|a, b| a.path.cmp(&b.path));
        all
    }

    /// Facts and findings for `text` as the content of `path` (an open document or a file just read).
    pub fn extract_text(&self, path: &Path, text: &str, parsed: &ParsedFile) -> FileFacts {
        let (_, relative, kind) = self.placement(path);
        analyze(path.to_path_buf(), relative, kind, text, parsed)
    }

    /// The app `path` belongs to, its path relative to the app's root, and what it is to Rails.
    fn placement(&self, path: &Path) -> (Option<PathBuf>, String, Option<project::FileKind>) {
        match self.app_for(path) {
            Some(app) => {
                let relative = project::relative_path(path, &app.root);
                let kind = project::classify(&relative);
                (Some(app.root), relative, Some(kind))
            }
            None => (None, path.to_string_lossy().into_owned(), None),
        }
    }

    /// Reads `path` from disk, parses and extracts it, and replaces its facts.
    pub fn index_file(&self, path: &Path) -> Result<Arc<FileFacts>, FileError> {
        let (facts, _) = self.read_file(path)?;
        Ok(self.insert(facts))
    }

    fn read_file(&self, path: &Path) -> Result<(FileFacts, usize), FileError> {
        self.read_file_cached(path, None).map(|read| (read.facts, read.len))
    }

    /// Reads `path`, taking its facts from `cached` (by app root, then relative path) when the file is
    /// unchanged since they were written: unread when its status is the one they were read at, else
    /// when its content hashes the same. Without a cache nothing is hashed.
    fn read_file_cached(&self, path: &Path, cached: Option<&CachedFacts>) -> Result<ReadFile, FileError> {
        let language = project::language_of(path).ok_or(FileError::NotIndexable)?;
        let (root, relative, kind) = self.placement(path);
        let entry = root.as_ref().zip(cached).and_then(|(root, cached)| Some(cached.get(root)?.remove(&relative)?.1));
        let skipped = |why: String| {
            let mut facts = FileFacts::empty(path.to_path_buf(), relative.clone(), kind, language);
            facts.diagnostics.push(crate::rails::skipped_file(crate::syntax::Span::default(), why));
            Ok(ReadFile { facts, len: 0, saved: None })
        };
        let refused = |refusal: crate::files::Refusal| match refusal {
            crate::files::Refusal::Skipped(why) => skipped(why),
            crate::files::Refusal::Io(_, error) => Err(FileError::Io(error)),
        };
        let opened = match crate::files::open_regular(path, root.as_deref(), crate::files::MAX_SOURCE) {
            Ok(opened) => opened,
            Err(refusal) => return refused(refusal),
        };
        let read_at = std::time::SystemTime::now();
        let metadata = opened.metadata.clone();
        let status = if cached.is_some() { crate::files::status(&metadata, read_at) } else { 0 };
        let reuse = |entry: cache::Cached, fingerprint: cache::Fingerprint, len: usize| {
            let mut facts = cache::decode_facts(entry.facts.as_slice())?;
            facts.path = path.to_path_buf();
            let restamped = entry.status != status;
            let saved = Saved { relative: relative.clone(), fingerprint, status, encoded: Some(entry.facts), restamped };
            Some(ReadFile { facts, len, saved: Some(saved) })
        };
        let entry = match entry {
            Some(entry) if status != 0 && entry.status == status && entry.fingerprint.size == metadata.len() => {
                let fingerprint = entry.fingerprint;
                if let Some(read) = reuse(entry, fingerprint, metadata.len() as usize) {
                    return Ok(read);
                }
                None
            }
            other => other,
        };
        let bytes = match crate::files::read_opened(opened, crate::files::MAX_SOURCE) {
            Ok(bytes) => bytes,
            Err(refusal) => return refused(refusal),
        };
        let len = bytes.len();
        let fingerprint = root.as_ref().filter(|_| cached.is_some()).map(|_| cache::Fingerprint::of(&bytes));
        if let (Some(entry), Some(fingerprint)) = (entry, fingerprint)
            && entry.fingerprint == fingerprint
            && let Some(read) = reuse(entry, fingerprint, len)
        {
            return Ok(read);
        }
        let text = String::from_utf8(bytes).map_err(|_| FileError::NotUtf8)?;
        let parsed = ParsedFile::parse(language, &text);
        let facts = analyze(path.to_path_buf(), relative.clone(), kind, &text, &parsed);
        let saved = fingerprint.map(|fingerprint| Saved { relative, fingerprint, status, encoded: None, restamped: false });
        Ok(ReadFile { facts, len, saved })
    }

    /// Finds the Rails apps under `folders` and indexes all their files in parallel.
    /// `progress(done, total)` is called from worker threads as files finish.
    pub fn index_workspace(&self, folders: &[PathBuf], progress: &(dyn Fn(usize, usize) + Sync)) -> IndexReport {
        self.index_workspace_except(folders, &|_| false, progress)
    }

    /// `index_workspace`, leaving the files `keep` names (open documents, whose buffer is the truth)
    /// unread: they count in the report's files, not its bytes.
    pub fn index_workspace_except(
        &self,
        folders: &[PathBuf],
        keep: &(dyn Fn(&Path) -> bool + Sync),
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> IndexReport {
        let t0 = std::time::Instant::now();
        let record = self.record_reads.load(std::sync::atomic::Ordering::Relaxed);
        let mut files = Vec::new();
        let mut walked = Vec::new();
        for folder in folders {
            let mut found = project::discover_recording(folder, record);
            // A folder inside an app (its `config/`, its `app/`): index the app it belongs to.
            let enclosing = found.apps.iter().find(|a| !a.root.starts_with(folder)).map(|a| a.root.clone());
            let enclosing = if found.apps.is_empty() {
                folder.ancestors().find(|d| project::is_rails_root(d)).map(Path::to_path_buf)
            } else {
                enclosing
            };
            if let Some(root) = enclosing {
                found = project::discover_recording(&root, record);
            }
            self.add_apps(found.apps);
            files.extend(found.files);
            walked.extend(found.read);
        }
        files.sort();
        files.dedup();
        let total = files.len();
        tracing::debug!("found {total} files in {:?}", t0.elapsed());
        let done = std::sync::atomic::AtomicUsize::new(0);
        let cache = self.cache.read().ok().and_then(|c| c.clone());
        let roots: Vec<PathBuf> = {
            let mut roots: Vec<PathBuf> = files.iter().filter_map(|f| self.app_for(f)).map(|a| a.root).collect();
            roots.sort();
            roots.dedup();
            roots
        };
        let cached: CachedFacts = match &cache {
            Some(cache) => roots.par_iter().map(|root| (root.clone(), cache.load(root).into_iter().collect())).collect(),
            None => HashMap::new(),
        };
        tracing::debug!("persisted index read by {:?}", t0.elapsed());
        // What was read from disk this time, with the facts read (an open document's buffer may
        // replace them in the index meanwhile: the cache keeps what the disk holds); and the apps a
        // file was parsed or restamped in (an app whose every file came from its cache under the same
        // status, none gone, is not rewritten).
        let read: DashMap<PathBuf, cache::ToSave> = DashMap::new();
        let changed_in: DashMap<PathBuf, ()> = DashMap::new();
        let results: Vec<Result<usize, (PathBuf, FileError)>> = files
            .par_iter()
            .map(|path| {
                let result = if keep(path) {
                    Ok(0)
                } else {
                    self.read_file_cached(path, cache.as_ref().map(|_| &cached)).map(|ReadFile { facts, len, saved }| {
                        let facts = self.insert(facts);
                        if let Some(Saved { relative, fingerprint, status, encoded, restamped }) = saved {
                            if (encoded.is_none() || restamped)
                                && let Some(app) = self.app_for(path)
                            {
                                changed_in.insert(app.root, ());
                            }
                            read.insert(path.clone(), cache::ToSave { relative, fingerprint, status, facts, encoded });
                        }
                        len
                    })
                };
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                progress(n, total);
                result.map_err(|e| (path.clone(), e))
            })
            .collect();
        tracing::debug!("files read by {:?}", t0.elapsed());
        if record {
            walked.extend(files.iter().map(|path| (path.clone(), read.get(path).map_or(0, |saved| saved.status))));
            walked.sort();
            walked.dedup();
        }
        if let Some(cache) = &cache {
            // An app whose every file came from its cache under the same status, none gone, is not
            // rewritten.
            let to_save: Vec<&PathBuf> = roots
                .iter()
                .filter(|root| changed_in.contains_key(*root) || cached.get(*root).is_some_and(|left| !left.is_empty()))
                .collect();
            if !to_save.is_empty() {
                let mut by_root: HashMap<PathBuf, Vec<cache::ToSave>> = HashMap::new();
                for (path, file) in read.into_iter() {
                    if let Some(app) = self.app_for(&path).filter(|app| to_save.contains(&&app.root)) {
                        by_root.entry(app.root).or_default().push(file);
                    }
                }
                for (root, files) in by_root {
                    cache.save(&root, files);
                }
            }
        }
        tracing::debug!("persisted index written by {:?}", t0.elapsed());
        let mut report = IndexReport { files: total, read: walked, ..IndexReport::default() };
        for result in results {
            match result {
                Ok(len) => report.bytes += len,
                Err(error) => report.errors.push(error),
            }
        }
        report
    }

    /// Follows superclasses through the app's models: is `class_name` an Active Record model
    /// (directly, or through STI or an abstract base)?
    pub fn is_active_record(&self, class_name: &str, snapshot: &[Arc<FileFacts>]) -> bool {
        let mut current = class_name.to_owned();
        for _ in 0..32 {
            let Some(superclass) = find_model(snapshot, &current).and_then(|m| m.superclass.clone()) else { return false };
            if superclass == "ApplicationRecord" || superclass == "ActiveRecord::Base" {
                return true;
            }
            current = superclass;
        }
        false
    }

    /// The table a model reads (`rails::model::table_name`).
    pub fn table_name(&self, class_name: &str, snapshot: &[Arc<FileFacts>]) -> String {
        let prefixes = crate::rails::table_name_prefixes(snapshot);
        crate::rails::model::table_name(class_name, &|name| find_model(snapshot, name), &prefixes)
    }
}

impl Index {
    /// The expanded routes of the app rooted at `root`: its `config/routes.rb` and the files under
    /// `config/routes/` that `draw` names (`snapshot` sorted by path: `snapshot`).
    pub fn route_table(&self, root: &Path, snapshot: &[Arc<FileFacts>]) -> Arc<crate::rails::route_table::RouteTable> {
        let mut in_app = self.files_of(snapshot, root);
        // What the table is drawn from: the routes files, the config that lists them, and, for
        // `devise_for`, the models and the initializers (`Devise.setup`).
        let devise = in_app.iter().any(|f| f.routes.as_ref().is_some_and(|r| crate::rails::devise::draws_devise(&r.drawn)));
        in_app.retain(|f| {
            f.routes.is_some()
                || f.relative_path == "config/application.rb"
                || crate::rails::project::is_engine_class(&f.relative_path)
                || (devise && (f.relative_path.starts_with("app/models/") || f.relative_path.starts_with("config/initializers/")))
                // The app's inflections: `resource :totp` reaches `totp` when `totp` is uncountable.
                || f.config.as_ref().is_some_and(|c| c.inflections.iter().any(|r| matches!(r.kind.as_str(), "uncountable" | "singular" | "plural" | "irregular")))
        });
        let same = |cached: &[Arc<FileFacts>]| cached.len() == in_app.len() && cached.iter().zip(&in_app).all(|(a, b)| Arc::ptr_eq(a, b));
        let mut memo = self.route_tables.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((sources, table)) = memo.get(root)
            && same(sources)
        {
            return Arc::clone(table);
        }
        let table = Arc::new(Self::expand_routes(&in_app));
        memo.insert(root.to_path_buf(), (in_app, Arc::clone(&table)));
        table
    }

    fn expand_routes(in_app: &[Arc<FileFacts>]) -> crate::rails::route_table::RouteTable {
        use crate::rails::route_table::{RouteSources, expand};
        let Some(main) = in_app.iter().find(|f| f.relative_path == "config/routes.rb") else { return Default::default() };
        // `config.paths["config/routes.rb"]` in config/application.rb: the files, in order.
        let application = in_app.iter().find(|f| f.relative_path == "config/application.rb");
        let changes = application.and_then(|f| f.config.as_ref()).map_or(&[][..], |c| c.routes_paths.as_slice());
        let listed = crate::rails::config::routes_files(changes);
        let unknown_files = match (&listed, application) {
            (None, Some(application)) => changes.iter().find_map(|c| match c {
                crate::rails::config::RoutesPaths::Unknown(span) => Some((application.relative_path.as_str(), *span)),
                _ => None,
            }),
            _ => None,
        };
        let route_files: Vec<&Arc<FileFacts>> = listed
            .unwrap_or_else(|| vec!["config/routes.rb".to_owned()])
            .iter()
            .filter_map(|path| in_app.iter().find(|f| f.relative_path == *path && f.routes.is_some()))
            .collect();
        let devise = in_app
            .iter()
            .any(|f| f.routes.as_ref().is_some_and(|r| crate::rails::devise::draws_devise(&r.drawn)))
            .then(|| crate::rails::devise::Devise::of(in_app));
        let drawn = in_app
            .iter()
            .filter_map(|f| {
                let name = f.relative_path.strip_prefix("config/routes/")?.strip_suffix(".rb")?;
                Some((name.to_owned(), (f.relative_path.as_str(), f.routes.as_ref()?.drawn.as_slice())))
            })
            .collect();
        // An engine's routes name controllers in the module `isolate_namespace` gives, when its
        // engine class (under lib/) calls it; a non-isolated engine's are top-level, as an app's.
        let isolated = |engine: &str| -> Option<String> {
            let mut found = None;
            for file in in_app.iter().filter(|f| crate::rails::project::is_engine_class(&f.relative_path)) {
                crate::syntax::outline::visit_calls(&file.outline.items, &mut |call| {
                    if call.method == "isolate_namespace"
                        && let Some(crate::syntax::value::Value::Constant(module)) = call.arguments.first()
                    {
                        found = Some(module.trim_start_matches("::").to_owned());
                    }
                });
            }
            // No engine class to read (a fixture's bare engine): taken as isolated, as generated.
            let has_engine_file = in_app.iter().any(|f| crate::rails::project::is_engine_class(&f.relative_path));
            if has_engine_file { found } else { Some(engine.to_owned()) }
        };
        let engine_module = main
            .routes
            .as_ref()
            .and_then(|r| r.draw_receiver.as_deref())
            .and_then(|receiver| receiver.strip_suffix("::Engine.routes"))
            .and_then(isolated)
            .map(|module| inflect::underscore(&module));
        let sources = RouteSources {
            main: route_files
                .iter()
                .map(|f| (f.relative_path.as_str(), f.routes.as_ref().map_or(&[][..], |r| r.drawn.as_slice())))
                .collect(),
            unknown_files,
            engines: route_files
                .iter()
                .flat_map(|f| {
                    let draws = f.routes.as_ref().map_or(&[][..], |r| r.engine_draws.as_slice());
                    draws.iter().map(|(_, calls)| (f.relative_path.as_str(), calls.as_slice()))
                })
                .collect(),
            devise: devise.as_ref(),
            engine_module,
            drawn,
            inflections: crate::rails::inflect::AppInflections::of_app(in_app),
        };
        expand(&sources)
    }
}

fn find_model<'a>(snapshot: &'a [Arc<FileFacts>], class_name: &str) -> Option<&'a crate::rails::model::Model> {
    snapshot.iter().flat_map(|f| f.models.iter()).find(|m| m.class_name == class_name)
}

/// One file's facts (`rails::extract`) and Roundhouse's per-file judgement of them
/// (`roundhouse::check_file`): what the index stores for it.
pub fn analyze(path: std::path::PathBuf, relative: String, kind: Option<project::FileKind>, text: &str, parsed: &ParsedFile) -> FileFacts {
    let mut facts = crate::rails::extract(path, relative, kind, text, parsed);
    crate::roundhouse::check_file(&mut facts, text, parsed);
    facts
}

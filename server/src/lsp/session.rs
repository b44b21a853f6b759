//! The server's mutable state: the index, open documents, workspace folders and what the client can do.
//! Locks here are `std` locks held for short synchronous sections, never across an `.await`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::app::AppContext;
use crate::document::Document;
use crate::index::Index;
use crate::rails::FileFacts;

#[derive(Debug, Default, Clone, Copy)]
pub struct ClientFlags {
    pub work_done_progress: bool,
    pub dynamic_watched_files: bool,
    pub inlay_hint_refresh: bool,
    /// The client takes `workspace/codeLens/refresh` (VS Code does; Neovim asks again itself).
    pub code_lens_refresh: bool,
}

#[derive(Default)]
pub struct Session {
    /// Exact previews: the configured compiler, when any (from initializationOptions.roundhouse).
    pub exact: Mutex<Option<crate::roundhouse::exact::ExactConfig>>,
    /// Bumped by every save; a debounced run only starts if it is still the newest.
    pub exact_generation: std::sync::atomic::AtomicU64,
    /// One compiler run at a time.
    pub exact_lock: tokio::sync::Mutex<()>,
    /// Cancels the running compiler.
    pub exact_cancel: Mutex<Option<Arc<tokio::sync::Notify>>>,
    /// The compiler's last diagnostics, by file, ready to publish beside Switchyard's own.
    pub exact_diagnostics: Mutex<HashMap<PathBuf, Vec<crate::roundhouse::exact::ExactDiagnostic>>>,
    /// Apps whose last compiler run in this session succeeded: only their emitted tree is served as
    /// the exact preview (not a failed, cancelled or earlier session's).
    pub exact_served: Mutex<std::collections::HashSet<PathBuf>>,
    /// The Roundhouse targets whose rules the editor shows (`initializationOptions.targets`; default
    /// ruby and jruby).
    pub targets: Mutex<Vec<crate::roundhouse::tree::Target>>,
    /// The runtime lanes whose `lanes.*` rules the editor shows (`initializationOptions.lanes`;
    /// default: the app's `switchyard.toml`, else its targets' own).
    pub lanes: Mutex<Vec<crate::roundhouse::tree::Lane>>,
    /// Each app's `switchyard.toml` (by root), read when the app is indexed and when the file changes.
    configs: Mutex<HashMap<PathBuf, crate::config::Config>>,
    /// The editor's rule severities (`initializationOptions.rules`), over the apps' own.
    editor_rules: Mutex<std::collections::BTreeMap<String, crate::config::RuleLevel>>,
    /// Where a rule's documentation is, `{id}` standing for the rule: the pages written into the cache
    /// directory at start, or `initializationOptions.ruleDocs`. `None`: no links.
    rule_docs: Mutex<Option<String>>,
    /// Inlay-hint kinds turned off (`initializationOptions.inlayHints.<kind> = false`).
    pub hints_off: Mutex<Vec<String>>,
    /// Set when an app's context was rebuilt: other files' hints may have changed.
    pub hints_stale: AtomicBool,
    /// Folder indexes running or about to (taken by `begin_indexing`): until they end, an app's files are
    /// not all known, so whole-app checks wait for the refresh that ends each index and whole-app requests
    /// wait for it (`indexed`).
    indexing: tokio::sync::watch::Sender<usize>,
    /// The requests waiting in `indexed` (each holds one of the protocol library's slots meanwhile).
    whole_app_waiters: WholeAppWaiters,
    /// The last failure shown to the user (a different one is shown again; a success forgets it).
    pub exact_failure_shown: Mutex<Option<String>>,
    pub index: Arc<Index>,
    documents: Mutex<HashMap<PathBuf, Document>>,
    folders: Mutex<Vec<PathBuf>>,
    flags: Mutex<ClientFlags>,
    /// The last context built for each app (by root), with the re-check generation it was built
    /// for, reused while edits leave it valid.
    contexts: Mutex<HashMap<PathBuf, (u64, Arc<AppContext>)>>,
    /// The contexts requests use, each current for one index generation.
    pub request_contexts: Arc<ContextCache>,
    /// What was last published for each file, so a whole-app refresh only sends what changed.
    published: Mutex<HashMap<PathBuf, Vec<crate::diagnostic::Diagnostic>>>,
    /// Each app's whole-app re-checks (by root): the newest one wanted, and whether a worker runs.
    rechecks: Mutex<HashMap<PathBuf, Recheck>>,
    /// Held while diagnostics are worked out against the current facts and sent: a background
    /// re-check and a notification's own publish never interleave, so the last one sent for a file is
    /// always from its newest facts.
    pub publishing: tokio::sync::Mutex<()>,
    shutdown: AtomicBool,
    /// The last session's diagnostics, while they hold (`index::published`): from the start until
    /// the index's first re-check has published, or until an open document or a file departs from
    /// what they were worked out from.
    last_published: Mutex<Option<Arc<crate::index::published::Holding>>>,
    /// What the index read, with the status that vouched for it (`IndexReport::read`), by path: at
    /// shutdown a file still at that status needs no reading to vouch for its facts.
    pub read_at_index: Mutex<HashMap<PathBuf, u64>>,
    /// The index generation the kept diagnostics are of (`0`: none kept this session): at
    /// shutdown, nothing to keep again while it is the index's.
    pub kept_generation: std::sync::atomic::AtomicU64,
    /// Whether the user was told the workspace holds no Rails app (said once a session).
    pub said_no_app: AtomicBool,
    /// Notifications that change facts and have not yet published what they changed (`changing`).
    changes_in_flight: std::sync::atomic::AtomicUsize,
}

/// How many requests may wait for an index at once: few enough that most of the protocol library's
/// slots (`lsp::CONCURRENCY`) stay free for hovers and edits.
const WHOLE_APP_WAITERS: usize = 4;

/// The permits of the requests waiting for an index (`WHOLE_APP_WAITERS`).
struct WholeAppWaiters(tokio::sync::Semaphore);

impl Default for WholeAppWaiters {
    fn default() -> WholeAppWaiters {
        WholeAppWaiters(tokio::sync::Semaphore::new(WHOLE_APP_WAITERS))
    }
}

/// Held by a notification from before it changes facts until after it has published: while any is
/// held, what was published may lag what the index holds.
pub struct Changing<'a>(&'a Session);

impl Drop for Changing<'_> {
    fn drop(&mut self) {
        self.0.changes_in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The context each app's requests last used, with the index generation it was built at: requests
/// between two changes (a hover, the code lenses and inlay hints an edit asks for, a definition)
/// share one build, and any change to any file makes the next request build anew, so what a request
/// sees is never older than the index.
#[derive(Default)]
pub struct ContextCache(Mutex<HashMap<PathBuf, (u64, Arc<AppContext>)>>);

impl ContextCache {
    pub fn get(&self, index: &Index, root: &Path) -> Arc<AppContext> {
        let generation = index.generation();
        let entries = || lock(&self.0);
        if let Some((built_at, context)) = entries().get(root)
            && *built_at == generation
        {
            return Arc::clone(context);
        }
        // Built outside the lock: two requests may both build, never wait on each other.
        let context = Arc::new(AppContext::new(index, root, &index.snapshot()));
        self.put(generation, Arc::clone(&context));
        context
    }

    /// Keeps a context built from a snapshot taken after the index was at `generation` (a
    /// diagnostics refresh's), so the requests that follow it do not build their own.
    pub fn put(&self, generation: u64, context: Arc<AppContext>) {
        keep_context(&self.0, generation, context);
    }
}

/// One app's whole-app re-checks: `wanted` moves on with every change that needs one (a newer
/// change cancels the pass under way), `running` says a worker is on it.
#[derive(Default)]
struct Recheck {
    wanted: Arc<std::sync::atomic::AtomicU64>,
    running: bool,
    /// The re-check the last finished pass was for.
    done: u64,
}

/// Keeps `context` for its app, stamped `stamp`; the one it replaces is let go outside the lock, and
/// freed on the background pool if that was its last hold.
fn keep_context(contexts: &Mutex<HashMap<PathBuf, (u64, Arc<AppContext>)>>, stamp: u64, context: Arc<AppContext>) {
    let replaced = lock(contexts).insert(context.root.clone(), (stamp, context));
    if let Some((_, old)) = replaced {
        super::background::retire(old);
    }
}

/// Never published counts as published empty: a clean file needs no message.
fn last_published_is(
    published: &HashMap<PathBuf, Vec<crate::diagnostic::Diagnostic>>,
    path: &Path,
    diagnostics: &[crate::diagnostic::Diagnostic],
) -> bool {
    published.get(path).map_or(&[][..], Vec::as_slice) == diagnostics
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while a lock was held was already logged by a guard; the data is still usable.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One folder index under way: whole-app work resumes when the last one is dropped.
pub struct IndexingGuard(Arc<Session>);

impl Drop for IndexingGuard {
    fn drop(&mut self) {
        self.0.indexing.send_modify(|running| *running = running.saturating_sub(1));
    }
}

impl Session {
    /// Marks an index as under way until the guard is dropped. Taken before the index is spawned, so a
    /// request that arrives in between already waits for it.
    pub fn begin_indexing(self: &Arc<Self>) -> IndexingGuard {
        self.indexing.send_modify(|running| *running += 1);
        IndexingGuard(Arc::clone(self))
    }

    pub fn is_indexing(&self) -> bool {
        *self.indexing.borrow() > 0
    }

    /// Waits until no index is under way, or `limit` has passed (then the caller answers from what is
    /// indexed so far). An answer about the whole app given mid-index would describe half of it.
    /// Only `WHOLE_APP_WAITERS` requests wait at a time; one more answers at once from what is read.
    pub async fn indexed(&self, limit: std::time::Duration) {
        if !self.is_indexing() {
            return;
        }
        let Ok(_waiting) = self.whole_app_waiters.0.try_acquire() else { return };
        let mut receiver = self.indexing.subscribe();
        let _ = tokio::time::timeout(limit, receiver.wait_for(|running| *running == 0)).await;
    }

    /// Knows the app `path` belongs to before the workspace index has found it: the nearest enclosing
    /// Rails root, when it is in (or encloses) a workspace folder, so a document opened at start is read
    /// as part of its app, not as a stray file. A file outside every folder stays outside.
    fn adopt_app_of(&self, path: &Path) {
        if self.index.app_for(path).is_some() {
            return;
        }
        let folders = self.folders();
        let Some(root) = path.ancestors().skip(1).find(|dir| crate::rails::project::is_rails_root(dir)) else { return };
        if folders.iter().any(|folder| root.starts_with(folder) || folder.starts_with(root)) {
            self.index.add_apps(vec![crate::rails::project::RailsApp::at(root.to_path_buf())]);
        }
    }

    pub fn documents(&self) -> MutexGuard<'_, HashMap<PathBuf, Document>> {
        lock(&self.documents)
    }

    pub fn set_folders(&self, folders: Vec<PathBuf>) {
        *lock(&self.folders) = folders;
    }

    pub fn add_folder(&self, folder: PathBuf) {
        let mut folders = lock(&self.folders);
        if !folders.contains(&folder) {
            folders.push(folder);
        }
    }

    pub fn remove_folder(&self, folder: &Path) {
        lock(&self.folders).retain(|f| f != folder);
    }

    pub fn folders(&self) -> Vec<PathBuf> {
        lock(&self.folders).clone()
    }

    pub fn set_flags(&self, flags: ClientFlags) {
        *lock(&self.flags) = flags;
    }

    pub fn flags(&self) -> ClientFlags {
        *lock(&self.flags)
    }

    /// Records `diagnostics` as published for `path`; returns whether they differ from the last ones.
    pub fn record_published(&self, path: &Path, diagnostics: &[crate::diagnostic::Diagnostic]) -> bool {
        let mut published = lock(&self.published);
        if last_published_is(&published, path, diagnostics) {
            return false;
        }
        published.insert(path.to_path_buf(), diagnostics.to_vec());
        true
    }

    /// Whether `diagnostics` are what was last published for `path`.
    pub fn shows(&self, path: &Path, diagnostics: &[crate::diagnostic::Diagnostic]) -> bool {
        last_published_is(&lock(&self.published), path, diagnostics)
    }

    /// What was last published of Switchyard's own diagnostics for `path`.
    pub fn published(&self, path: &Path) -> Vec<crate::diagnostic::Diagnostic> {
        lock(&self.published).get(path).cloned().unwrap_or_default()
    }

    /// A file's findings as the editor shows them: none in an excluded file, else only the rules of
    /// the targets (the editor's setting, else the app's `switchyard.toml`, else ruby and jruby), at the
    /// severity the editor's settings, else the app's `[rules]`, give them.
    pub fn shown(&self, path: &Path, diagnostics: &[crate::diagnostic::Diagnostic]) -> Vec<crate::diagnostic::Diagnostic> {
        let root = self.index.app_for(path).map(|app| app.root.clone());
        let configs = lock(&self.configs);
        let no_config = crate::config::Config::default();
        let config = root.as_ref().and_then(|root| configs.get(root)).unwrap_or(&no_config);
        if root.as_ref().is_some_and(|root| config.excludes(&crate::rails::project::relative_path(path, root))) {
            return Vec::new();
        }
        let chosen = crate::config::Chosen { targets: lock(&self.targets).clone(), lanes: lock(&self.lanes).clone() };
        let levels = lock(&self.editor_rules);
        diagnostics.iter().filter_map(|d| config.report(d, &chosen, &levels)).collect()
    }

    /// Reads the app's `switchyard.toml` again. On a mistake the app keeps no settings (every rule at
    /// its own severity) and the message says what to fix.
    pub fn reload_config(&self, root: &Path) -> Result<(), (PathBuf, crate::config::ConfigError)> {
        let (config, result) = match crate::config::Config::load_located(root) {
            Ok(config) => (config.unwrap_or_default(), Ok(())),
            Err(error) => (crate::config::Config::default(), Err(error)),
        };
        lock(&self.configs).insert(root.to_path_buf(), config);
        result
    }

    /// Forgets what was published for the files under `root`, so the next refresh sends them all.
    pub fn forget_published_under(&self, root: &Path) {
        lock(&self.published).retain(|path, _| !path.starts_with(root));
    }

    pub fn set_editor_rules(&self, rules: std::collections::BTreeMap<String, crate::config::RuleLevel>) {
        *lock(&self.editor_rules) = rules;
    }

    pub fn set_rule_docs(&self, template: Option<String>) {
        *lock(&self.rule_docs) = template;
    }

    /// The link to a rule's documentation (a catalogue rule or one of Switchyard's own).
    pub fn rule_doc(&self, rule: &str) -> Option<tower_lsp_server::ls_types::Uri> {
        if !crate::roundhouse::rule_docs::documented(rule) {
            return None;
        }
        let template = lock(&self.rule_docs).clone()?;
        template.replace("{id}", rule).parse().ok()
    }

    pub fn set_lanes(&self, lanes: Vec<crate::roundhouse::tree::Lane>) {
        *lock(&self.lanes) = lanes;
    }

    pub fn set_targets(&self, targets: Vec<crate::roundhouse::tree::Target>) {
        *lock(&self.targets) = targets;
    }

    pub fn disabled_hints(&self) -> Vec<String> {
        lock(&self.hints_off).clone()
    }

    pub fn set_disabled_hints(&self, kinds: Vec<String>) {
        *lock(&self.hints_off) = kinds;
    }

    pub fn exact_config(&self) -> Option<crate::roundhouse::exact::ExactConfig> {
        lock(&self.exact).clone()
    }

    pub fn set_exact_config(&self, config: Option<crate::roundhouse::exact::ExactConfig>) {
        *lock(&self.exact) = config;
    }

    pub fn exact_for(&self, path: &Path) -> Vec<crate::roundhouse::exact::ExactDiagnostic> {
        lock(&self.exact_diagnostics).get(path).cloned().unwrap_or_default()
    }

    /// Replaces the compiler's diagnostics under `root`; returns every path whose set changed.
    pub fn replace_exact(&self, root: &Path, new: HashMap<PathBuf, Vec<crate::roundhouse::exact::ExactDiagnostic>>) -> Vec<PathBuf> {
        let mut current = lock(&self.exact_diagnostics);
        let mut touched: Vec<PathBuf> = current.keys().filter(|p| p.starts_with(root)).cloned().collect();
        current.retain(|p, _| !p.starts_with(root));
        touched.extend(new.keys().cloned());
        current.extend(new);
        touched.sort();
        touched.dedup();
        touched
    }

    /// Cancels the running compiler (if any) and returns the handle for a new run.
    pub fn new_exact_run(&self) -> Arc<tokio::sync::Notify> {
        let notify = Arc::new(tokio::sync::Notify::new());
        if let Some(previous) = lock(&self.exact_cancel).replace(Arc::clone(&notify)) {
            previous.notify_one();
        }
        notify
    }

    pub fn cancel_exact(&self) {
        if let Some(current) = lock(&self.exact_cancel).as_ref() {
            current.notify_one();
        }
    }

    /// Asks for a whole-app re-check of the app at `root`: a pass under way is cancelled (it sees a
    /// newer generation wanted) and starts over.
    pub fn want_recheck(&self, root: &Path) {
        lock(&self.rechecks).entry(root.to_path_buf()).or_default().wanted.fetch_add(1, Ordering::SeqCst);
    }

    /// The app's newest wanted re-check: a pass for an older one is stale.
    pub fn recheck_counter(&self, root: &Path) -> Arc<std::sync::atomic::AtomicU64> {
        Arc::clone(&lock(&self.rechecks).entry(root.to_path_buf()).or_default().wanted)
    }

    /// Takes the app's re-checks on, unless a worker already has them (it will see what is wanted).
    pub fn claim_rechecks(&self, root: &Path) -> bool {
        let mut rechecks = lock(&self.rechecks);
        let recheck = rechecks.entry(root.to_path_buf()).or_default();
        !std::mem::replace(&mut recheck.running, true)
    }

    /// Whether the worker may end after a pass for `done`: not when a newer re-check is wanted (then
    /// it goes on). Ending releases the claim (`release_rechecks`) with the check, under one lock, so
    /// a change that arrives meanwhile finds no worker and starts one.
    pub fn end_rechecks(&self, root: &Path, done: u64) -> bool {
        let mut rechecks = lock(&self.rechecks);
        let recheck = rechecks.entry(root.to_path_buf()).or_default();
        if recheck.wanted.load(Ordering::SeqCst) != done {
            return false;
        }
        recheck.running = false;
        recheck.done = done;
        true
    }

    /// Marks a notification that changes facts as under way until the guard drops.
    pub fn changing(&self) -> Changing<'_> {
        self.changes_in_flight.fetch_add(1, Ordering::SeqCst);
        Changing(self)
    }

    /// Whether no notification has changed facts it has not yet published.
    pub fn no_changes_in_flight(&self) -> bool {
        self.changes_in_flight.load(Ordering::SeqCst) == 0
    }

    /// Whether every app's newest wanted re-check has finished: what was published is then the
    /// diagnostics of the current facts.
    pub fn rechecks_settled(&self) -> bool {
        lock(&self.rechecks).values().all(|r| !r.running && r.wanted.load(Ordering::SeqCst) == r.done)
    }

    /// Releases the app's re-checks (a worker that ended, however it ended).
    pub fn release_rechecks(&self, root: &Path) {
        if let Some(recheck) = lock(&self.rechecks).get_mut(root) {
            recheck.running = false;
        }
    }

    pub fn forget_published(&self, path: &Path) {
        lock(&self.published).remove(path);
    }

    /// Forgets everything of `folder` (one no longer in the workspace): its apps, its files' facts and
    /// what was published of them. The files forgotten, by path.
    pub fn forget_under(&self, folder: &Path) -> Vec<PathBuf> {
        self.index.remove_apps_under(folder);
        let gone: Vec<PathBuf> = self.index.snapshot().iter().filter(|f| f.path.starts_with(folder)).map(|f| f.path.clone()).collect();
        for path in &gone {
            self.index.remove(path);
            self.forget_published(path);
        }
        gone
    }

    pub fn request_shutdown(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
    }

    pub fn shutdown_requested(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    pub fn is_open(&self, path: &Path) -> bool {
        self.documents().contains_key(path)
    }

    /// Re-extracts an open document's facts from its current text and stores them.
    pub fn refresh_document(&self, document: &Document) -> Arc<FileFacts> {
        self.replace_document_facts(document).0
    }

    /// Like `refresh_document`, also returning the facts replaced.
    pub fn replace_document_facts(&self, document: &Document) -> (Arc<FileFacts>, Option<Arc<FileFacts>>) {
        self.adopt_app_of(&document.path);
        let facts = self.index.extract_text(&document.path, &document.text, &document.parsed);
        let (facts, previous) = self.index.replace(facts);
        let mut last = lock(&self.last_published);
        if last.as_ref().is_some_and(|holding| !holding.agrees_with(&facts.path, facts.text_hash)) {
            tracing::debug!("{}: the last session's diagnostics no longer hold", facts.path.display());
            *last = None;
        }
        (facts, previous)
    }

    /// Holds the last session's diagnostics (`index::published::load` found them true of the disk),
    /// unless an open document already departs from them; `false` then.
    pub fn hold_last_published(&self, holding: crate::index::published::Holding) -> bool {
        let documents = self.documents();
        let agree = documents.keys().all(|path| self.index.get(path).is_some_and(|facts| holding.agrees_with(path, facts.text_hash)));
        if agree {
            *lock(&self.last_published) = Some(Arc::new(holding));
        }
        agree
    }

    /// A file's diagnostics as the last session published them, while they hold and `facts` are of
    /// the text they were worked out from.
    pub fn last_published_for(&self, facts: &FileFacts) -> Option<Vec<crate::diagnostic::Diagnostic>> {
        let holding = lock(&self.last_published).clone()?;
        holding.diagnostics(&facts.path, facts.text_hash).map(<[_]>::to_vec)
    }

    /// Stops using the last session's diagnostics (the index's own have been published, or a file
    /// changed on disk), returning them if they were held until now.
    pub fn take_last_published(&self) -> Option<Arc<crate::index::published::Holding>> {
        lock(&self.last_published).take()
    }

    /// The context last built for the app at `root`, when no change since has asked for a re-check
    /// (then it answers for every file but the edited ones' own facts, which callers read fresh).
    pub fn cached_context(&self, root: &Path) -> Option<Arc<AppContext>> {
        let wanted = self.recheck_counter(root).load(Ordering::SeqCst);
        lock(&self.contexts).get(root).filter(|(built_for, _)| *built_for == wanted).map(|(_, context)| Arc::clone(context))
    }

    /// The context last built for the app at `root`, even when a re-check under way will replace it:
    /// what an edit's own publish is checked against before the re-check publishes the rest.
    pub fn latest_context(&self, root: &Path) -> Option<Arc<AppContext>> {
        lock(&self.contexts).get(root).map(|(_, context)| Arc::clone(context))
    }

    /// Keeps `context`, built for the app's re-check generation `built_for`.
    pub fn cache_context(&self, built_for: u64, context: Arc<AppContext>) {
        keep_context(&self.contexts, built_for, context);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::Fixture;

    #[test]
    fn a_request_context_lasts_one_index_generation() {
        let fixture = Fixture::new(
            "#- /config/routes.rb\nRails.application.routes.draw do\n  resources :posts\nend\n#- /app/models/post.rb\nclass Post < ApplicationRecord\nend\n",
        );
        let cache = ContextCache::default();
        let first = cache.get(&fixture.index, &fixture.root);
        assert!(Arc::ptr_eq(&first, &cache.get(&fixture.index, &fixture.root)), "no change: the same context");
        // Any change to any file, even one that leaves what it contributes alone, makes a new one.
        let post = fixture.index.get(&fixture.root.join("app/models/post.rb")).unwrap();
        fixture.index.replace((*post).clone());
        let second = cache.get(&fixture.index, &fixture.root);
        assert!(!Arc::ptr_eq(&first, &second), "a changed index: a new context");
        assert_eq!(second.table.routes.len(), first.table.routes.len());
    }
}

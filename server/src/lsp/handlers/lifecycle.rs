//! `initialize`, `initialized` (file watchers and the cold index with `$/progress`), `shutdown`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::diagnostics::{Publish, claimed_recheck};
use crate::files::thousands;
use crate::lsp::backend::Backend;
use crate::lsp::progress::Reporter;
use crate::lsp::session::{ClientFlags, IndexingGuard, Session};
use crate::lsp::{capabilities, convert};

pub fn initialize(backend: &Backend, params: InitializeParams) -> Result<InitializeResult> {
    let mut folders: Vec<PathBuf> = params.workspace_folders.iter().flatten().filter_map(|f| convert::path_of(&f.uri)).collect();
    #[allow(deprecated)] // root_uri is how older clients name their single folder.
    if folders.is_empty() {
        folders.extend(params.root_uri.as_ref().and_then(convert::path_of));
    }
    hold_last_published(&backend.session, &folders);
    backend.session.set_folders(folders);
    backend.session.set_exact_config(super::exact::config_from(params.initialization_options.as_ref()));
    let capabilities = &params.capabilities;
    // One flag of the client's `workspace` capabilities, false when it says nothing.
    let workspace =
        |flag: fn(&WorkspaceClientCapabilities) -> Option<bool>| capabilities.workspace.as_ref().and_then(flag).unwrap_or(false);
    backend.session.set_flags(ClientFlags {
        work_done_progress: capabilities.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
        dynamic_watched_files: workspace(|w| w.did_change_watched_files.as_ref()?.dynamic_registration),
        inlay_hint_refresh: workspace(|w| w.inlay_hint.as_ref()?.refresh_support),
        code_lens_refresh: workspace(|w| w.code_lens.as_ref()?.refresh_support),
    });
    let hints_off: Vec<String> = params
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("inlayHints"))
        .and_then(|h| h.as_object())
        .map(|kinds| kinds.iter().filter(|(_, on)| on.as_bool() == Some(false)).map(|(kind, _)| kind.clone()).collect())
        .unwrap_or_default();
    backend.session.set_disabled_hints(hints_off);
    // `initializationOptions.targets` and `.lanes`: the names it knows, the others left out.
    let names = |key: &str| -> Vec<String> {
        let list = params.initialization_options.as_ref().and_then(|o| o.get(key)).and_then(|t| t.as_array());
        list.map(|items| items.iter().filter_map(|i| i.as_str().map(str::to_owned)).collect()).unwrap_or_default()
    };
    backend.session.set_targets(names("targets").iter().filter_map(|t| crate::roundhouse::tree::Target::parse(t)).collect());
    let lanes = names("lanes").iter().filter_map(|l| crate::roundhouse::tree::Lane::parse(l)).collect();
    backend.session.set_lanes(lanes);
    // `initializationOptions.rules`: the editor's own severities, over the app's switchyard.toml.
    let rules: std::collections::BTreeMap<String, crate::config::RuleLevel> = params
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("rules"))
        .and_then(|r| r.as_object())
        .map(|rules| rules.iter().filter_map(|(id, level)| Some((id.clone(), crate::config::RuleLevel::parse(level.as_str()?)?))).collect())
        .unwrap_or_default();
    backend.session.set_editor_rules(rules);
    backend.session.set_rule_docs(rule_docs(params.initialization_options.as_ref()));
    Ok(InitializeResult {
        capabilities: capabilities::server_capabilities(),
        server_info: Some(capabilities::server_info()),
        ..Default::default()
    })
}

/// Where diagnostics link their rule: `initializationOptions.ruleDocs` (a URL with `{id}`, for a team
/// that hosts docs/rules.md), else one page per rule written beside the cache (`cache::rule_pages_dir`:
/// a few kilobytes, rewritten only when this version's text differs); `null`, no cache or a failed
/// write: no links.
fn rule_docs(options: Option<&serde_json::Value>) -> Option<String> {
    match options.and_then(|o| o.get("ruleDocs")) {
        Some(serde_json::Value::String(template)) if template.contains("{id}") => return Some(template.clone()),
        Some(serde_json::Value::Null) => return None,
        Some(other) => {
            tracing::warn!("initializationOptions.ruleDocs must be a URL with `{{id}}` in it, not {other}: using the built-in pages")
        }
        None => {}
    }
    let dir = crate::index::cache::rule_pages_dir()?;
    if let Err(e) = crate::roundhouse::rule_docs::write_pages(&dir) {
        tracing::warn!("cannot write the rule pages into {}: {e}; diagnostics carry no rule links", dir.display());
        return None;
    }
    let base = convert::uri_of(&dir)?.to_string();
    Some(format!("{}/{{id}}.md", base.trim_end_matches('/')))
}

pub async fn initialized(backend: &Backend) {
    // Everything here waits on the client (registration, progress tokens): it runs in its own task so
    // `initialized` returns at once and a client that never answers cannot hold up `exit`.
    let client = backend.client.clone();
    let session = backend.session();
    let indexing = session.begin_indexing();
    tokio::spawn(async move {
        // The index does not wait for the client to answer the registration.
        if session.flags().dynamic_watched_files {
            let client = client.clone();
            tokio::spawn(async move { register_file_watchers(&client).await });
        }
        let folders = session.folders();
        index_folders(client, session, folders, indexing).await;
    });
}

/// When the last session's diagnostics still hold (nothing they were worked out from has changed on
/// disk), they are held before the index starts: a document opened at start gets its complete
/// diagnostics at once. Done before `initialize` answers (a `stat` per file and folder, on every core),
/// so no document can be opened before.
fn hold_last_published(session: &Session, folders: &[PathBuf]) {
    let Some(cache) = crate::index::cache::configured() else { return };
    if folders.is_empty() {
        return;
    }
    let started = Instant::now();
    let Some(holding) = crate::index::published::load(&cache, crate::index::published::Keeper::Server, folders) else { return };
    session.index.add_apps(holding.apps.iter().cloned().map(crate::rails::project::RailsApp::at).collect());
    for root in &holding.apps {
        // Mistakes in it are said when the index ends.
        let _ = session.reload_config(root);
    }
    let files = holding.files.len();
    if session.hold_last_published(holding) {
        tracing::info!("the last session's diagnostics of {files} files hold (checked in {:?})", started.elapsed());
    }
}

/// What a refresh asks the client to ask for again.
pub enum Refresh {
    CodeLenses,
    InlayHints,
}

/// Asks the client to ask for its lenses or hints again, without waiting for its answer (a request to
/// the client is never awaited where it could hold up anything else).
pub fn refresh(client: &tower_lsp_server::Client, what: Refresh) {
    let client = client.clone();
    tokio::spawn(async move {
        let _ = match what {
            Refresh::CodeLenses => client.code_lens_refresh().await,
            Refresh::InlayHints => client.inlay_hint_refresh().await,
        };
    });
}

async fn register_file_watchers(client: &tower_lsp_server::Client) {
    let options = DidChangeWatchedFilesRegistrationOptions {
        watchers: vec![
            FileSystemWatcher { glob_pattern: GlobPattern::String(capabilities::WATCHED_GLOB.to_owned()), kind: None },
            FileSystemWatcher { glob_pattern: GlobPattern::String(format!("**/{}", crate::config::FILE_NAME)), kind: None },
            // The deployment files the runtime lanes read (a `bundle install` rewrites the lockfile).
            FileSystemWatcher { glob_pattern: GlobPattern::String(capabilities::DEPLOYMENT_GLOB.to_owned()), kind: None },
            // Folders created, moved in or deleted: the globs above match files only.
            FileSystemWatcher { glob_pattern: GlobPattern::String("**/*".to_owned()), kind: Some(WatchKind::Create | WatchKind::Delete) },
        ],
    };
    let registration = Registration {
        id: "switchyard/watched-files".to_owned(),
        method: "workspace/didChangeWatchedFiles".to_owned(),
        register_options: serde_json::to_value(options).ok(),
    };
    if let Err(error) = client.register_capability(vec![registration]).await {
        tracing::warn!("client refused the file watcher registration: {error}");
    }
}

/// Indexes `folders` on a blocking thread, reporting `$/progress`, then publishes the diagnostics of
/// every indexed file and refreshes open documents (their buffer, not the disk, is the truth: the index
/// leaves their facts alone). `indexing` was taken by the caller; however this ends (a failed index
/// included), whole-app checks and requests resume when it is dropped.
pub async fn index_folders(client: tower_lsp_server::Client, session: Arc<Session>, folders: Vec<PathBuf>, indexing: IndexingGuard) {
    if folders.is_empty() {
        return;
    }
    let started = Instant::now();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<(usize, usize)>();
    let index = Arc::clone(&session.index);
    let open = Arc::clone(&session);
    let indexed = folders.clone();
    let work = tokio::task::spawn_blocking(move || {
        let last_reported = std::sync::atomic::AtomicUsize::new(0);
        index.index_workspace_except(&folders, &|path| open.is_open(path), &|done, total| {
            // About fifty reports per index, whatever its size.
            let step = (total / 50).max(1);
            let previous = last_reported.load(std::sync::atomic::Ordering::Relaxed);
            if done == total || done >= previous + step {
                last_reported.store(done, std::sync::atomic::Ordering::Relaxed);
                let _ = sender.send((done, total));
            }
        })
    });
    // The index starts first and never waits for the client: the progress is begun by a task of its
    // own (`progress::Reporter`), its reports queued until the client has answered.
    let token = format!("switchyard/indexing/{}", started.elapsed().as_nanos());
    let progress = Reporter::begin(&client, session.flags().work_done_progress, token, "Switchyard", "Finding Rails apps".to_owned(), true);
    while let Some((done, total)) = receiver.recv().await {
        let percentage = (done * 100 / total.max(1)) as u32;
        progress.report(format!("Indexing {} files", thousands(total)), percentage);
    }
    let report = match work.await {
        Ok(report) => report,
        Err(error) => {
            tracing::error!("indexing failed: {error}");
            progress.end(Some("Indexing failed (see the server log)".to_owned())).await;
            return;
        }
    };
    // A folder removed while it was indexed: what the index read of it after is forgotten too.
    let now = session.folders();
    for folder in indexed.iter().filter(|folder| !now.iter().any(|kept| folder.starts_with(kept))) {
        session.forget_under(folder);
    }
    for (path, error) in &report.errors {
        tracing::warn!("{}: {error}", path.display());
    }
    // What a user may want to read goes to the client's log (stderr is for what went wrong: editors
    // file it as errors).
    let apps_now = session.index.apps();
    let summary = format!(
        "Switchyard: indexed {} files ({} bytes) in {:.2?}; {} Rails app{}",
        thousands(report.files),
        thousands(report.bytes),
        started.elapsed(),
        apps_now.len(),
        if apps_now.len() == 1 { "" } else { "s" }
    );
    tracing::info!("{summary}");
    client.log_message(MessageType::INFO, summary).await;
    if apps_now.is_empty() && !session.said_no_app.swap(true, std::sync::atomic::Ordering::SeqCst) {
        let folders: Vec<String> = session.folders().iter().map(|f| f.display().to_string()).collect();
        let message = format!(
            "Switchyard found no Rails app in {}: it looks for a folder with config/routes.rb or config/application.rb.",
            if folders.is_empty() { "the workspace (no folder is open)".to_owned() } else { folders.join(", ") }
        );
        client.show_message(MessageType::INFO, message).await;
    }
    {
        // Open documents: the buffer, not the disk, is the truth.
        let documents = session.documents();
        for document in documents.values() {
            session.refresh_document(document);
        }
    }
    drop(indexing);
    // What every file's facts were read from when the index ended: what is kept must be of these.
    let texts = text_hashes(&session);
    let mut publishes = Vec::new();
    let mut config_errors = Vec::new();
    let apps = session.index.apps();
    for app in &apps {
        let read = session.reload_config(&app.root);
        if let Err((path, error)) = &read {
            config_errors.push(format!("{}: {error}", path.display()));
            publishes.extend(Publish::config(&session, &app.root, &read));
        }
    }
    Publish::send_all(publishes, &client).await;
    // Every app's diagnostics, open documents first; hints an editor asked for during the index came
    // from a partial app and are asked for again. The progress ends when they are all sent.
    for app in apps {
        session.want_recheck(&app.root);
        claimed_recheck(Arc::clone(&session), client.clone(), app.root).await;
    }
    *session.read_at_index.lock().unwrap_or_else(|e| e.into_inner()) = report.read.iter().cloned().collect();
    let held = session.take_last_published();
    if config_errors.is_empty()
        && let Some(cache) = crate::index::cache::configured()
    {
        let (session, read) = (Arc::clone(&session), report.read);
        let _ = tokio::task::spawn_blocking(move || keep_published(&session, &cache, read, &texts, held.as_deref())).await;
    }
    for message in config_errors {
        client.show_message(MessageType::WARNING, format!("Switchyard: {message}")).await;
    }
    // Lenses asked for during the index (a route over each action) came from an app half read.
    if session.flags().code_lens_refresh {
        refresh(&client, Refresh::CodeLenses);
    }
    progress.end(Some(format!("Indexed {} files", thousands(report.files)))).await;
}

/// Keeps what the index's first re-check published for the next start, when it was all worked out
/// from what is on disk and every file read has a status that vouches for it: nothing changed since
/// the index ended (every file's facts are of the text they were then: `texts`; a document opened since
/// with the text on disk changes nothing), and every open document's text is its file's. When the last
/// session's were `held` until now and say the same of the same files, they are left as they are.
fn keep_published(
    session: &Session,
    cache: &crate::index::cache::Cache,
    read: Vec<(PathBuf, u64)>,
    texts: &HashMap<PathBuf, u64>,
    held: Option<&crate::index::published::Holding>,
) {
    use crate::index::published::{Keeper, save, status_of_text};
    if read.is_empty() || text_hashes(session) != *texts {
        return;
    }
    let started = Instant::now();
    let snapshot = session.index.unordered();
    if let Some(held) = held
        && held.files.len() == snapshot.len()
        && snapshot.iter().all(|facts| held.diagnostics(&facts.path, facts.text_hash) == Some(session.published(&facts.path).as_slice()))
    {
        tracing::debug!("the last session's diagnostics still hold (compared in {:?})", started.elapsed());
        session.kept_generation.store(session.index.generation(), std::sync::atomic::Ordering::SeqCst);
        return;
    }
    // An open document's file was left unread by the index (status `0`): read now, it vouches when it
    // holds the document's text.
    let now = std::time::SystemTime::now();
    let read = read.into_iter().map(|(path, status)| match status {
        0 => {
            let status = session.index.get(&path).and_then(|facts| status_of_text(&path, facts.text_hash, now)).unwrap_or(0);
            (path, status)
        }
        _ => (path, status),
    });
    let Some(published) = published_now(session, &snapshot, read) else {
        tracing::debug!("the diagnostics of this session are not kept: not all they were worked out from vouches for them");
        return;
    };
    let generation = session.index.generation();
    if text_hashes(session) == *texts && save(cache, Keeper::Server, &session.folders(), &published) {
        session.kept_generation.store(generation, std::sync::atomic::Ordering::SeqCst);
        tracing::debug!("this session's diagnostics kept in {:?}", started.elapsed());
    }
}

/// What the session last published for the apps' files among `facts`, to keep for the next start,
/// with the `statuses` (files and folders read) that vouch for it; `None` when one does not.
fn published_now(
    session: &Session,
    facts: &[std::sync::Arc<crate::rails::FileFacts>],
    statuses: impl IntoIterator<Item = (PathBuf, u64)>,
) -> Option<crate::index::published::Published> {
    let apps = session.index.apps();
    let files = facts
        .iter()
        .filter(|facts| apps.iter().any(|app| facts.path.starts_with(&app.root)))
        .map(|facts| (facts.path.as_path(), facts.text_hash, session.published(&facts.path)));
    crate::index::published::Published::new(apps.iter().map(|app| app.root.as_path()), statuses, files)
}

/// Every indexed file's text hash, by path.
fn text_hashes(session: &Session) -> HashMap<PathBuf, u64> {
    session.index.unordered().iter().map(|facts| (facts.path.clone(), facts.text_hash)).collect()
}

pub fn shutdown(backend: &Backend) -> Result<()> {
    backend.session.request_shutdown();
    // A panic here loses what would have been kept, never the shutdown.
    let session = &backend.session;
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| keep_at_shutdown(session))).is_err() {
        tracing::error!("the diagnostics of this session were not kept (a panic; see above)");
    }
    Ok(())
}

/// At shutdown, keeps what was last published for the next start (as the index's end does), when it
/// is the diagnostics of what is on disk now: no index or re-check under way, nothing being
/// published, every folder walked again with the same files, and every file either at the status the
/// index read it at or read now with the text its facts are of. An edit-save-restart session then
/// starts as fast as an unchanged one. Costs a walk and a `stat` per file (a read of each file changed
/// during the session).
fn keep_at_shutdown(session: &Session) {
    use crate::index::published::{Keeper, save, status_of_text};
    use rayon::prelude::*;
    let Some(cache) = crate::index::cache::configured() else { return };
    let started = Instant::now();
    let Ok(_publishing) = session.publishing.try_lock() else { return };
    if session.is_indexing() || !session.rechecks_settled() || !session.no_changes_in_flight() {
        return;
    }
    if session.kept_generation.load(std::sync::atomic::Ordering::SeqCst) == session.index.generation() {
        return; // Nothing changed since they were kept.
    }
    let indexed_at = session.read_at_index.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if indexed_at.is_empty() {
        return;
    }
    let facts = session.index.unordered();
    let mut walked = Vec::new();
    let mut files = Vec::new();
    for folder in session.folders() {
        let found = crate::rails::project::discover_recording(&folder, true);
        // A folder inside an app is indexed as the whole app: left to the index's end.
        if found.apps.iter().any(|app| !app.root.starts_with(&folder)) || found.apps.is_empty() {
            return;
        }
        walked.extend(found.read);
        files.extend(found.files);
    }
    files.sort();
    files.dedup();
    let mut known: Vec<&std::path::Path> = facts.iter().map(|f| f.path.as_path()).collect();
    known.sort();
    if files.iter().map(PathBuf::as_path).ne(known.iter().copied()) || walked.iter().any(|(_, status)| *status == 0) {
        tracing::debug!("this session's diagnostics are not kept: the files on disk are not the ones indexed");
        return;
    }
    let now = std::time::SystemTime::now();
    // A file still at the status the index read it at vouches for its facts unread; one changed since
    // is read. The first that does not vouch ends it.
    let statuses: Option<Vec<(PathBuf, u64)>> = facts
        .par_iter()
        .map(|facts| {
            let status = crate::files::status(&std::fs::metadata(&facts.path).ok()?, now);
            if status == 0 {
                return None;
            }
            let vouched =
                if indexed_at.get(&facts.path) == Some(&status) { status } else { status_of_text(&facts.path, facts.text_hash, now)? };
            Some((facts.path.clone(), vouched))
        })
        .collect();
    let Some(published) = statuses.and_then(|statuses| published_now(session, &facts, walked.into_iter().chain(statuses))) else {
        tracing::debug!("this session's diagnostics are not kept: a file is not what its facts were read from");
        return;
    };
    if save(&cache, Keeper::Server, &session.folders(), &published) {
        tracing::debug!("this session's diagnostics kept at shutdown in {:?}", started.elapsed());
    }
}

//! Publishing diagnostics (`textDocument/publishDiagnostics`). A file's diagnostics depend on the
//! whole app (a route renamed in routes.rb breaks `post_path` in a view). A notification applies its
//! change synchronously and says what it changed (`Change`); `publish` then sends the changed file's
//! diagnostics at once, against the newest app context, and an edit that changed what the file
//! contributes to its app asks for a whole-app re-check, which runs in the background (`recheck`):
//! one worker per app, its pass cancelled by a newer change, the open documents' diagnostics first,
//! then every other file whose diagnostics changed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use tower_lsp_server::Client;

use crate::app::{AppContext, contribution};
use crate::checks::{derived, file_diagnostics};
use crate::diagnostic::Diagnostic;
use crate::lsp::session::Session;
use crate::lsp::{background, convert, guard};
use crate::rails::FileFacts;

/// What a notification changed, for `publish` to send once it has applied.
pub enum Change {
    /// A file's facts were replaced: its diagnostics are sent (with its document's version), and its
    /// app's re-check was asked for when what it contributes changed.
    File { path: PathBuf, version: Option<i32>, recheck: Option<PathBuf> },
    /// The app at this root is to be re-checked (a file gone, its settings changed).
    App(PathBuf),
    /// Sent as it is (a file cleared, a settings mistake).
    Ready(Publish),
}

/// Diagnostics to send, computed synchronously so the async part only sends.
pub struct Publish {
    pub uri: tower_lsp_server::ls_types::Uri,
    pub diagnostics: Vec<tower_lsp_server::ls_types::Diagnostic>,
    pub version: Option<i32>,
}

impl Publish {
    /// Switchyard's diagnostics for the file, then the compiler's last ones (exact previews), placed
    /// in `text` (the open document's, when it is open: an edit since the run moves or drops them).
    pub fn of(
        session: &Session,
        facts: &FileFacts,
        diagnostics: &[Diagnostic],
        version: Option<i32>,
        text: Option<&str>,
    ) -> Option<Publish> {
        let uri = convert::uri_of(&facts.path)?;
        let own = diagnostics;
        let mut diagnostics: Vec<_> =
            session.shown(&facts.path, own).iter().map(|d| convert::diagnostic(&facts.line_index, d, session.rule_doc(&d.rule))).collect();
        // The compiler's lines that none of Switchyard's own findings already says (`said_by`).
        diagnostics.extend(session.exact_for(&facts.path).iter().filter_map(|d| convert::exact_diagnostic(d, text, own)));
        Some(Publish { uri, diagnostics, version })
    }

    /// What to show on an app's `switchyard.toml` after reading it: nothing, or the mistake on its
    /// line (the app then runs on defaults).
    pub fn config(
        session: &Session,
        root: &Path,
        result: &Result<(), (std::path::PathBuf, crate::config::ConfigError)>,
    ) -> Option<Publish> {
        use tower_lsp_server::ls_types::{CodeDescription, Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range};
        let Err((path, error)) = result else {
            return Publish::clear(&root.join(crate::config::FILE_NAME));
        };
        let line = error.line.map_or(0, |l| l.saturating_sub(1)) as u32;
        let diagnostic = Diagnostic {
            range: Range::new(Position::new(line, 0), Position::new(line + 1, 0)),
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String(crate::diagnostic::rule::CONFIG.to_string())),
            code_description: session.rule_doc(&crate::diagnostic::rule::CONFIG).map(|href| CodeDescription { href }),
            source: Some("switchyard".to_owned()),
            message: format!("{}; Switchyard uses its defaults for this app until it is fixed.", error.message),
            ..Default::default()
        };
        Some(Publish { uri: convert::uri_of(path)?, diagnostics: vec![diagnostic], version: None })
    }

    pub fn clear(path: &Path) -> Option<Publish> {
        Some(Publish { uri: convert::uri_of(path)?, diagnostics: Vec::new(), version: None })
    }

    pub async fn send(self, client: &Client) {
        client.publish_diagnostics(self.uri, self.diagnostics, self.version).await;
    }

    pub async fn send_all(publishes: Vec<Publish>, client: &Client) {
        for publish in publishes {
            publish.send(client).await;
        }
    }
}

/// Notes that `changed` replaced `previous` (an open document's edit, a file read from disk), asking
/// for its app's re-check unless the edit left what the file contributes to the app alone (typing in a
/// method body, a template's text: a keystroke then costs the file, not the app). While an index is
/// under way nothing whole-app is asked: the index's end re-checks every app.
pub fn note(session: &Session, changed: &Arc<FileFacts>, previous: Option<&Arc<FileFacts>>, version: Option<i32>) -> Change {
    let path = changed.path.clone();
    let Some(app) = session.index.app_for(&path).filter(|_| !session.is_indexing()) else {
        return Change::File { path, version, recheck: None };
    };
    let unchanged = previous.is_some_and(|previous| changed.routes.is_none() && contribution(previous) == contribution(changed));
    if unchanged && session.latest_context(&app.root).is_some() {
        return Change::File { path, version, recheck: None };
    }
    session.want_recheck(&app.root);
    Change::File { path, version, recheck: Some(app.root) }
}

/// Sends what the changes left to publish, then starts the re-checks they asked for. A file's
/// diagnostics are worked out here, holding the publishing lock, from its newest facts and the newest
/// context of its app; a file a later edit has changed again is left to that edit.
pub async fn publish(session: &Arc<Session>, client: &Client, changes: Vec<Change>) {
    let mut rechecks: Vec<PathBuf> = Vec::new();
    {
        let _publishing = session.publishing.lock().await;
        let mut publishes = Vec::new();
        for change in changes {
            match change {
                Change::File { path, version, recheck } => {
                    rechecks.extend(recheck);
                    let documents = session.documents();
                    let current = documents.get(&path).map(|d| d.version);
                    if version.is_some() && current != version {
                        continue;
                    }
                    let Some(facts) = session.index.get(&path) else { continue };
                    // Guarded as notification work is: a panic in a check loses this publish only.
                    let publish = guard::notification("textDocument/publishDiagnostics", || {
                        let diagnostics = current_diagnostics(session, &facts);
                        session.record_published(&path, &diagnostics);
                        Publish::of(session, &facts, &diagnostics, current, documents.get(&path).map(|d| d.text.as_str()))
                    });
                    publishes.extend(publish.flatten());
                }
                Change::App(root) => {
                    session.want_recheck(&root);
                    rechecks.push(root);
                }
                Change::Ready(publish) => publishes.push(publish),
            }
        }
        Publish::send_all(publishes, client).await;
    }
    rechecks.sort();
    rechecks.dedup();
    for root in rechecks {
        spawn_recheck(Arc::clone(session), client.clone(), root);
    }
}

/// A file's diagnostics now: its own findings and, when its app has a context, the whole-app ones
/// against it (the newest built; a re-check under way replaces what is out of date). Before there is
/// one, the last session's, while they hold (`index::published`).
fn current_diagnostics(session: &Session, facts: &FileFacts) -> Vec<Diagnostic> {
    let context = session.index.app_for(&facts.path).filter(|_| !session.is_indexing()).and_then(|app| session.latest_context(&app.root));
    match context {
        Some(context) => {
            let diagnostics = file_diagnostics(facts, &derived(&context, facts), Some(&context.reading));
            // A re-check may have replaced the context meanwhile: its freeing is not the edit's.
            background::retire(context);
            diagnostics
        }
        None => session.last_published_for(facts).unwrap_or_else(|| file_diagnostics(facts, &[], None)),
    }
}

/// Starts the app's re-check worker, unless one runs (it sees the newer generation wanted).
pub fn spawn_recheck(session: Arc<Session>, client: Client, root: PathBuf) {
    if session.claim_rechecks(&root) {
        tokio::spawn(async move { recheck(session, client, root).await });
    }
}

/// Runs the app's re-check worker in this task until it is done, unless one runs already.
pub async fn claimed_recheck(session: Arc<Session>, client: Client, root: PathBuf) {
    if session.claim_rechecks(&root) {
        recheck(session, client, root).await;
    }
}

/// Files at most this many to a publishing batch: an edit's own publish waits for one batch at most.
const BATCH: usize = 200;

/// The worker of one app's whole-app re-checks (its caller claimed them): until no newer one is wanted,
/// builds the app's context from a snapshot and works out every file's diagnostics on blocking
/// threads, publishing the open documents' first, then the other files whose diagnostics changed. A
/// newer change wanted cancels the pass at its next step and the worker starts over.
async fn recheck(session: Arc<Session>, client: Client, root: PathBuf) {
    // A worker that panics releases the app's re-checks as it unwinds, so the next change starts one;
    // one that ends released them with its last check (`end_rechecks`).
    struct Claimed(Arc<Session>, PathBuf, bool);
    impl Drop for Claimed {
        fn drop(&mut self) {
            if self.2 {
                self.0.release_rechecks(&self.1);
            }
        }
    }
    let mut claimed = Claimed(Arc::clone(&session), root.clone(), true);
    passes(session, client, root).await;
    claimed.2 = false;
}

/// The worker's passes, until one ends with no newer re-check wanted.
async fn passes(session: Arc<Session>, client: Client, root: PathBuf) {
    let counter = session.recheck_counter(&root);
    'pass: loop {
        let wanted = counter.load(Ordering::SeqCst);
        let stale = {
            let counter = Arc::clone(&counter);
            move || counter.load(Ordering::SeqCst) != wanted
        };
        let built = {
            let (session, root, stale) = (Arc::clone(&session), root.clone(), stale.clone());
            tokio::task::spawn_blocking(move || background::pool().install(|| build(&session, &root, wanted, &stale))).await
        };
        let (context, open, opened) = match built {
            Ok(Some(built)) => built,
            Ok(None) if session.index.apps().iter().any(|app| app.root == root) => continue,
            Ok(None) | Err(_) => {
                if let Err(error) = built {
                    tracing::error!("the re-check of {} failed: {error}", root.display());
                }
                if session.end_rechecks(&root, wanted) {
                    return;
                }
                continue;
            }
        };
        if !send_batch(&session, &client, &context, open, &stale).await {
            continue;
        }
        let rest = {
            let (session, context, stale) = (Arc::clone(&session), Arc::clone(&context), stale.clone());
            tokio::task::spawn_blocking(move || {
                background::pool().install(|| diagnose(&session, &context, |f| !opened.contains(&f.path), &stale))
            })
            .await
        };
        let Ok(Some(mut rest)) = rest else {
            if session.end_rechecks(&root, wanted) {
                return;
            }
            continue;
        };
        while !rest.is_empty() {
            let batch: Vec<_> = rest.drain(..rest.len().min(BATCH)).collect();
            if !send_batch(&session, &client, &context, batch, &stale).await {
                continue 'pass;
            }
        }
        if session.hints_stale.swap(false, Ordering::SeqCst) && session.flags().inlay_hint_refresh {
            super::lifecycle::refresh(&client, super::lifecycle::Refresh::InlayHints);
        }
        if session.end_rechecks(&root, wanted) {
            return;
        }
    }
}

type Diagnosed = Vec<(Arc<FileFacts>, Vec<Diagnostic>)>;

/// The app's context from a snapshot, kept (as built for the re-check `wanted`) for the edits and
/// requests that follow; the open documents' diagnostics against it, and which documents were open
/// (the rest of the pass works out every other file). `None` when the app is gone or a newer re-check
/// is wanted.
fn build(
    session: &Session,
    root: &Path,
    wanted: u64,
    stale: &(dyn Fn() -> bool + Sync),
) -> Option<(Arc<AppContext>, Diagnosed, Vec<PathBuf>)> {
    if !session.index.apps().iter().any(|app| app.root == root) {
        return None;
    }
    let generation = session.index.generation();
    let context = Arc::new(AppContext::new(&session.index, root, &session.index.snapshot()));
    if stale() {
        return None;
    }
    // Here, on the background pool, not in the first edit's publish that reads the context.
    crate::checks::prepare(&context);
    if stale() {
        return None;
    }
    session.cache_context(wanted, Arc::clone(&context));
    session.request_contexts.put(generation, Arc::clone(&context));
    session.hints_stale.store(true, Ordering::SeqCst);
    let open: Vec<PathBuf> = session.documents().keys().cloned().collect();
    let diagnosed = diagnose(session, &context, |f| open.contains(&f.path), stale)?;
    Some((context, diagnosed, open))
}

/// The diagnostics of the context's files that `wanted` picks, in parallel, but for the files whose
/// diagnostics the editor shows already; `None` once `stale`.
///
/// Leaving those out here, on the background pool, keeps the foreground's share of a pass (its
/// publishing batches) to the files that changed: a handful after an edit, where comparing all of
/// them took a core for tens of milliseconds at 20,000 files. A file edited since the snapshot is
/// kept (`send_batch` works it out from its newest facts); one edited after this comparison is
/// published by its edit, against this pass's context (cached before any file is compared).
fn diagnose(
    session: &Session,
    context: &AppContext,
    wanted: impl Fn(&FileFacts) -> bool + Sync,
    stale: &(dyn Fn() -> bool + Sync),
) -> Option<Diagnosed> {
    use rayon::prelude::*;
    let diagnosed: Diagnosed = context
        .files
        .par_iter()
        .filter(|facts| wanted(facts) && !stale())
        .filter_map(|facts| {
            let diagnostics = file_diagnostics(facts, &derived(context, facts), Some(&context.reading));
            let current = session.index.get(&facts.path).is_some_and(|current| Arc::ptr_eq(&current, facts));
            (!current || !session.shows(&facts.path, &diagnostics)).then(|| (Arc::clone(facts), diagnostics))
        })
        .collect();
    // Once stale, stale for good (the wanted re-check only moves on): the files left were skipped.
    (!stale()).then_some(diagnosed)
}

/// Publishes a batch of a re-check's diagnostics whose files changed since last published, holding the
/// publishing lock; `false` (nothing sent) once a newer re-check is wanted. A file edited since the
/// snapshot (in a way that left the context valid, or a newer re-check would be wanted) is worked out
/// again from its newest facts.
async fn send_batch(session: &Session, client: &Client, context: &AppContext, batch: Diagnosed, stale: &(dyn Fn() -> bool + Sync)) -> bool {
    let _publishing = session.publishing.lock().await;
    if stale() {
        return false;
    }
    let publishes = guard::notification("textDocument/publishDiagnostics", || {
        batch
            .into_iter()
            .filter_map(|(facts, diagnostics)| {
                // Locked for one file at a time, so an edit waits for one file at most: an edit
                // replaces a document and its facts together, under this lock.
                let documents = session.documents();
                let current = session.index.get(&facts.path)?;
                let diagnostics = if Arc::ptr_eq(&current, &facts) {
                    diagnostics
                } else {
                    file_diagnostics(&current, &derived(context, &current), Some(&context.reading))
                };
                if !session.record_published(&current.path, &diagnostics) {
                    return None;
                }
                let document = documents.get(&current.path);
                Publish::of(session, &current, &diagnostics, document.map(|d| d.version), document.map(|d| d.text.as_str()))
            })
            .collect::<Vec<Publish>>()
    })
    .unwrap_or_default();
    Publish::send_all(publishes, client).await;
    true
}

//! Exact previews: after a save, run the configured roundhouse compiler in the background — debounced,
//! one run at a time, a newer save cancelling the running one — with `$/progress`; then publish its
//! stderr diagnostics (source `roundhouse`) beside Switchyard's own, placed on their lines as the
//! document is edited. Every failure is logged, and shown when it is not the one shown last (a
//! success forgets it); only a run of this session that succeeded is served as the exact preview.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{DidSaveTextDocumentParams, MessageType};

use super::diagnostics::Publish;
use crate::lsp::backend::Backend;
use crate::lsp::convert;
use crate::lsp::progress::Reporter;
use crate::lsp::session::Session;
use crate::roundhouse::exact::{self, ExactConfig, ExactDiagnostic};
use crate::roundhouse::tree::Target;

/// Saves closer together than this make one run.
const DEBOUNCE: Duration = Duration::from_millis(300);

/// `initializationOptions.roundhouse` = `{ binary, checkout }`, `initializationOptions.targets[0]`.
pub fn config_from(options: Option<&serde_json::Value>) -> Option<ExactConfig> {
    let options = options?;
    let binary = options.pointer("/roundhouse/binary")?.as_str().filter(|s| !s.trim().is_empty())?;
    let checkout = options.pointer("/roundhouse/checkout").and_then(|v| v.as_str()).filter(|s| !s.trim().is_empty());
    let target = options.pointer("/targets/0").and_then(|v| v.as_str()).and_then(Target::parse).unwrap_or(Target::Ruby);
    let binary = PathBuf::from(binary.trim());
    let checkout = checkout.map(|c| PathBuf::from(c.trim())).unwrap_or_else(|| exact::default_checkout(&binary));
    Some(ExactConfig { binary, checkout, target })
}

pub async fn did_save(backend: &Backend, params: DidSaveTextDocumentParams) {
    let session = backend.session();
    let Some(config) = session.exact_config() else { return };
    let Some(path) = convert::path_of(&params.text_document.uri) else { return };
    let Some(app) = session.index.app_for(&path) else { return };
    let generation = session.exact_generation.fetch_add(1, Ordering::SeqCst) + 1;
    session.cancel_exact();
    let client = backend.client.clone();
    tokio::spawn(async move {
        tokio::time::sleep(DEBOUNCE).await;
        if session.exact_generation.load(Ordering::SeqCst) != generation {
            return; // A newer save runs instead.
        }
        let _one_at_a_time = session.exact_lock.lock().await;
        if session.exact_generation.load(Ordering::SeqCst) != generation {
            return;
        }
        let cancel = session.new_exact_run();
        let progress = Reporter::begin(
            &client,
            session.flags().work_done_progress,
            format!("switchyard/roundhouse/{generation}"),
            "Roundhouse",
            format!("compiling for --target {}", config.target.as_str()),
            false,
        );
        let result = exact::run(&config, &app.root, cancel.notified()).await;
        // What the run decided is recorded before its progress ends, so a client that asks for the
        // preview when it sees the end gets this run's answer; what it says is sent after.
        let served = matches!(&result, Ok(output) if output.success);
        if result.as_ref().err().is_none_or(|e| e != "cancelled") {
            let mut served_roots = session.exact_served.lock().unwrap_or_else(|e| e.into_inner());
            if served {
                served_roots.insert(app.root.clone());
            } else {
                served_roots.remove(&app.root);
            }
        }
        progress.end(None).await;
        match result {
            Err(cancelled) if cancelled == "cancelled" => {}
            Err(error) => failed(&client, &session, &error).await,
            Ok(output) if !output.success => {
                failed(&client, &session, &format!("roundhouse failed: {}", output.cause)).await;
                publish(&client, &session, &app.root, output.diagnostics).await;
            }
            Ok(output) => {
                *session.exact_failure_shown.lock().unwrap_or_else(|e| e.into_inner()) = None;
                publish(&client, &session, &app.root, output.diagnostics).await;
            }
        }
    });
}

/// A run that did not produce a tree (its output is no longer served): the failure is logged, and
/// shown unless it is the one shown last.
async fn failed(client: &Client, session: &Arc<Session>, error: &str) {
    tracing::warn!("exact previews: {error}");
    let show = {
        let mut shown = session.exact_failure_shown.lock().unwrap_or_else(|e| e.into_inner());
        let show = shown.as_deref() != Some(error);
        *shown = Some(error.to_owned());
        show
    };
    if show {
        client.show_message(MessageType::WARNING, format!("Switchyard: {error}. Previews stay built-in.")).await;
    }
}

async fn publish(client: &Client, session: &Arc<Session>, root: &std::path::Path, found: Vec<ExactDiagnostic>) {
    let mut by_path: HashMap<PathBuf, Vec<ExactDiagnostic>> = HashMap::new();
    for d in found {
        by_path.entry(d.path.clone()).or_default().push(d);
    }
    // Under the publishing lock, as every publish is: the last one of a file is from its newest state.
    let _publishing = session.publishing.lock().await;
    let touched = session.replace_exact(root, by_path);
    let publishes: Vec<Publish> = {
        let documents = session.documents();
        touched
            .iter()
            .filter_map(|path| {
                let facts = session.index.get(path)?;
                let document = documents.get(path);
                Publish::of(session, &facts, &session.published(path), document.map(|d| d.version), document.map(|d| d.text.as_str()))
            })
            .collect()
    };
    Publish::send_all(publishes, client).await;
}

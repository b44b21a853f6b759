//! Publishing diagnostics (`textDocument/publishDiagnostics`). A file's diagnostics depend on the
//! whole app (a route renamed in routes.rb breaks `post_path` in a view), so after any change the
//! app's checks run again and every file whose diagnostics changed is published — the changed file
//! always, with its document version.

use std::path::Path;
use std::sync::Arc;

use tower_lsp_server::Client;

use crate::app::{AppContext, contribution};
use crate::checks::{app_diagnostics, file_derived, file_diagnostics};
use crate::diagnostic::Diagnostic;
use crate::lsp::convert;
use crate::lsp::session::Session;
use crate::rails::FileFacts;

/// Diagnostics to send, computed synchronously so the async part only sends.
pub struct Publish {
    pub uri: tower_lsp_server::ls_types::Uri,
    pub diagnostics: Vec<tower_lsp_server::ls_types::Diagnostic>,
    pub version: Option<i32>,
}

impl Publish {
    /// Switchyard's diagnostics for the file, then the compiler's last ones (exact previews).
    pub fn of(session: &Session, facts: &FileFacts, diagnostics: &[Diagnostic], version: Option<i32>) -> Option<Publish> {
        let uri = convert::uri_of(&facts.path)?;
        let mut diagnostics: Vec<_> = session
            .shown(&facts.path, diagnostics)
            .iter()
            .map(|d| convert::diagnostic(&facts.line_index, d, session.rule_doc(&d.rule)))
            .collect();
        diagnostics.extend(session.exact_for(&facts.path));
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
            code: Some(NumberOrString::String("switchyard.config".to_owned())),
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

    /// Sends the publishes, then asks for fresh inlay hints when the app's context was rebuilt (and the
    /// client can be asked).
    pub async fn send_all_and_refresh(publishes: Vec<Publish>, client: &Client, session: &Session) {
        Publish::send_all(publishes, client).await;
        if session.hints_stale.swap(false, std::sync::atomic::Ordering::SeqCst) && session.flags().inlay_hint_refresh {
            let _ = client.inlay_hint_refresh().await;
        }
    }
}

/// Re-runs the checks of the app `changed` belongs to and returns what to publish: `changed` always
/// (with `version`, when it is an open document), every other file of the app whose diagnostics
/// changed since they were last published. When the edit left what the file contributes to its app
/// unchanged (typing in a method body, a template's text), only the file's own checks run, against the
/// app context built before: a keystroke costs the file, not the app.
pub fn refresh(session: &Session, changed: &Arc<FileFacts>, previous: Option<&Arc<FileFacts>>, version: Option<i32>) -> Vec<Publish> {
    let indexing = session.is_indexing();
    let Some(app) = session.index.app_for(&changed.path).filter(|_| !indexing) else {
        let diagnostics = file_diagnostics(changed, &[], None);
        session.record_published(&changed.path, &diagnostics);
        return Publish::of(session, changed, &diagnostics, version).into_iter().collect();
    };
    if let (Some(previous), Some(context)) = (previous, session.cached_context(&app.root))
        && changed.routes.is_none()
        && contribution(previous) == contribution(changed)
    {
        let diagnostics = file_diagnostics(changed, &file_derived(&context, changed), Some(&context.reading));
        session.record_published(&changed.path, &diagnostics);
        return Publish::of(session, changed, &diagnostics, version).into_iter().collect();
    }
    let mut publishes = refresh_app(session, &app.root, Some(&changed.path));
    if let Some(publish) = publishes.iter_mut().find(|p| convert::path_of(&p.uri).as_deref() == Some(changed.path.as_path())) {
        publish.version = version;
    }
    publishes
}

/// Re-runs the checks of the app at `root`; publishes files whose diagnostics changed (and `always`).
pub fn refresh_app(session: &Session, root: &Path, always: Option<&Path>) -> Vec<Publish> {
    let generation = session.index.generation();
    let snapshot = session.index.snapshot();
    let context = Arc::new(AppContext::new(&session.index, root, &snapshot));
    session.cache_context(Arc::clone(&context));
    session.request_contexts.put(generation, Arc::clone(&context));
    session.hints_stale.store(true, std::sync::atomic::Ordering::SeqCst);
    let derived = app_diagnostics(&context);
    let versions: Vec<(std::path::PathBuf, i32)> = session.documents().iter().map(|(path, doc)| (path.clone(), doc.version)).collect();
    let mut publishes = Vec::new();
    let all: Vec<Vec<Diagnostic>> = {
        use rayon::prelude::*;
        context
            .files
            .par_iter()
            .map(|facts| file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading)))
            .collect()
    };
    for (facts, diagnostics) in context.files.iter().zip(all) {
        let changed = session.record_published(&facts.path, &diagnostics);
        if changed || always == Some(facts.path.as_path()) {
            let version = versions.iter().find(|(p, _)| *p == facts.path).map(|(_, v)| *v);
            publishes.extend(Publish::of(session, facts, &diagnostics, version));
        }
    }
    publishes
}

//! Switchyard's own requests, for the editor clients.
//!
//! - `switchyard/routes` `{ uri? }` → `{ apps: [{ name, root, table, routes }] }`: the route table of the
//!   app holding `uri` (every app when absent), as `bin/rails routes` prints it and as JSON rows.
//! - `switchyard/emittedTree` `{ uri }` → `{ source, targets: { ruby|jruby|spinel: { paths, swaps, lane } },
//!   note?, summary }`: where the file lands in each tree (`null` outside any app).
//! - `switchyard/preview` `{ uri, target? }` → `{ text, language, target, mapping: [[previewLine,
//!   sourceLine]] }`: the built-in preview (`null` outside any app); it follows the open buffer.
//!
//! Each describes the whole app, so each waits for an index under way (`WHOLE_APP_WAIT` at most).

use serde::{Deserialize, Serialize};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::Uri;

use crate::ide::routes::format_table;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};
use crate::rails::route_table::Route;

/// How long a whole-app request (routes, tree, preview) waits for an index under way before it answers
/// from the files read so far: long enough for a large app's cold index, short enough never to hang.
const WHOLE_APP_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Debug, Deserialize, Default)]
pub struct RoutesParams {
    pub uri: Option<Uri>,
}

#[derive(Debug, Serialize)]
pub struct RoutesResult {
    pub apps: Vec<AppRoutes>,
}

#[derive(Debug, Serialize)]
pub struct AppRoutes {
    pub name: String,
    pub root: Uri,
    pub table: String,
    pub routes: Vec<Route>,
}

pub async fn routes(backend: &Backend, params: RoutesParams) -> Result<RoutesResult> {
    backend.session.indexed(WHOLE_APP_WAIT).await;
    let index = std::sync::Arc::clone(&backend.session.index);
    let only = params.uri.as_ref().and_then(convert::path_of);
    guard::request("switchyard/routes", move || {
        let snapshot = index.snapshot();
        let apps = index
            .apps()
            .into_iter()
            .filter(|app| only.as_ref().is_none_or(|path| index.app_for(path).is_some_and(|owner| owner.root == app.root)))
            .filter_map(|app| {
                let table = index.route_table(&app.root, &snapshot);
                let rows: Vec<&Route> = table.routes.iter().collect();
                Some(AppRoutes {
                    name: app.name.clone(),
                    root: convert::uri_of(&app.root)?,
                    table: format_table(&rows),
                    routes: table.routes.clone(),
                })
            })
            .collect();
        RoutesResult { apps }
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct EmittedTreeParams {
    pub uri: Uri,
}

pub async fn emitted_tree(backend: &Backend, params: EmittedTreeParams) -> Result<Option<serde_json::Value>> {
    backend.session.indexed(WHOLE_APP_WAIT).await;
    let index = std::sync::Arc::clone(&backend.session.index);
    let contexts = std::sync::Arc::clone(&backend.session.request_contexts);
    let Some(path) = convert::path_of(&params.uri) else { return Ok(None) };
    guard::request("switchyard/emittedTree", move || {
        let app = index.app_for(&path)?;
        let facts = index.get(&path)?;
        let context = contexts.get(&index, &app.root);
        let entry = crate::roundhouse::tree::map_file(&facts, context.tree_facts());
        let mut value = entry.to_json(&crate::roundhouse::tree::Target::ALL);
        value["summary"] = serde_json::Value::String(entry.summary());
        Some(value)
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct PreviewParams {
    pub uri: Uri,
    pub target: Option<String>,
    /// `builtin` (default) or `exact`: the compiler's own output, when it has run.
    pub source: Option<String>,
}

pub async fn preview(backend: &Backend, params: PreviewParams) -> Result<Option<serde_json::Value>> {
    backend.session.indexed(WHOLE_APP_WAIT).await;
    let index = std::sync::Arc::clone(&backend.session.index);
    let Some(path) = convert::path_of(&params.uri) else { return Ok(None) };
    let target = match params.target.as_deref() {
        None => crate::roundhouse::tree::Target::Ruby,
        Some(name) => crate::roundhouse::tree::Target::parse(name)
            .ok_or_else(|| tower_lsp_server::jsonrpc::Error::invalid_params(format!("unknown target {name}: ruby, jruby or spinel")))?,
    };
    let exact = params.source.as_deref() == Some("exact")
        && backend.session.index.app_for(&path).is_some_and(|app| lock_served(&backend.session).contains(&app.root));
    let text = backend.session.documents().get(&path).map(|d| d.text.clone());
    // The context the last diagnostics refresh built: current for everything but the edited file's own
    // facts, which are read fresh.
    let context = backend.session.index.app_for(&path).and_then(|app| backend.session.cached_context(&app.root));
    let contexts = std::sync::Arc::clone(&backend.session.request_contexts);
    guard::request("switchyard/preview", move || {
        if exact {
            let app = index.app_for(&path)?;
            let facts = index.get(&path)?;
            let entry = crate::roundhouse::tree::map_file(&facts, contexts.get(&index, &app.root).tree_facts());
            let emitted = entry.target(target).and_then(|t| t.paths.first().cloned());
            if let Some(text) = emitted.as_deref().and_then(|e| crate::roundhouse::exact::emitted_text(&app.root, target, e)) {
                return Some(serde_json::json!({"text": text, "language": "ruby", "target": target.as_str(), "source": "exact", "mapping": []}));
            }
        }
        let preview = crate::ide::preview::preview_file(&index, &path, text, target, context)?;
        Some(serde_json::json!({"text": preview.text, "language": "ruby", "target": target.as_str(), "source": "builtin", "mapping": preview.mapping}))
    })
    .await
}

/// The apps whose last compiler run in this session succeeded (only their tree is served as exact).
fn lock_served(session: &crate::lsp::session::Session) -> std::sync::MutexGuard<'_, std::collections::HashSet<std::path::PathBuf>> {
    session.exact_served.lock().unwrap_or_else(|e| e.into_inner())
}

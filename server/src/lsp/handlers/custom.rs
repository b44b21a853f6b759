//! Switchyard's own requests, for the editor clients.
//!
//! - `switchyard/routes` `{ uri? }` → `{ apps: [{ name, root, table, routes }] }`: the route table of the
//!   app holding `uri` (every app when absent), as `bin/rails routes` prints it and as JSON rows.

use serde::{Deserialize, Serialize};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::Uri;

use crate::ide::routes::format_table;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};
use crate::rails::route_table::Route;

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

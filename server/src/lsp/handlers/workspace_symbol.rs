//! `workspace/symbol`: models, controllers, actions, templates, tables and library classes.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::ide::symbols::workspace_symbols;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

/// Enough for any picker; more only costs serialization.
const LIMIT: usize = 256;

pub async fn symbol(backend: &Backend, params: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
    let index = std::sync::Arc::clone(&backend.session.index);
    guard::request("workspace/symbol", move || {
        let snapshot = index.snapshot();
        let symbols = workspace_symbols(&snapshot, &params.query, LIMIT)
            .into_iter()
            .filter_map(|s| {
                let uri = convert::uri_of(&s.file.path)?;
                Some(WorkspaceSymbol {
                    name: s.name,
                    kind: convert::symbol_kind(s.kind),
                    tags: None,
                    container_name: s.container,
                    location: OneOf::Left(Location { uri, range: convert::range(&s.file.line_index, s.span) }),
                    data: None,
                })
            })
            .collect();
        Some(WorkspaceSymbolResponse::Nested(symbols))
    })
    .await
}

//! `textDocument/inlayHint`: what each Rails DSL line becomes (`ide::inlay`), minus the kinds the user
//! turned off (`initializationOptions.inlayHints.<kind> = false`). After an edit that changes what other
//! files' hints depend on (the schema, routes, actions), the server asks the client to refresh them.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::request::app_context;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

pub async fn inlay_hint(backend: &Backend, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    let session = &backend.session;
    let Some(path) = convert::path_of(&params.text_document.uri) else { return Ok(None) };
    let (Some(facts), Some(app)) = (session.index.get(&path), session.index.app_for(&path)) else { return Ok(None) };
    let cached = session.cached_context(&app.root);
    let build = app_context(session, app.root);
    let diagnostics = session.published(&path);
    let disabled = session.disabled_hints();
    let range = params.range;
    guard::request("textDocument/inlayHint", move || {
        let context = cached.unwrap_or_else(build);
        let hints = crate::ide::inlay::inlay_hints(&facts, &context, &diagnostics)
            .into_iter()
            .filter(|h| !disabled.iter().any(|d| d == h.kind.setting()))
            .map(|h| InlayHint {
                position: convert::position(&facts.line_index, h.position),
                label: InlayHintLabel::String(format!(" {}", h.label)),
                kind: None,
                text_edits: None,
                tooltip: None,
                padding_left: Some(true),
                padding_right: None,
                data: None,
            })
            .filter(|h| h.position.line >= range.start.line && h.position.line <= range.end.line)
            .collect();
        Some(hints)
    })
    .await
}

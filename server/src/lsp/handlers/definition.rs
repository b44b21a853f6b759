//! `textDocument/definition` and `textDocument/references`: what `ide::analysis` finds, as locations.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::request::{at_position, location};
use crate::lsp::backend::Backend;
use crate::lsp::guard;

pub async fn definition(backend: &Backend, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
    let position = params.text_document_position_params;
    let Some(at) = at_position(&backend.session, &position.text_document.uri, position.position) else { return Ok(None) };
    let cached = backend.session.cached_context(&at.root);
    guard::request("textDocument/definition", move || {
        // The context the last re-check left answers at once, its places found again in the newest
        // copy of a file edited since; when one cannot be, a context built for this generation does.
        let targets = cached
            .and_then(|context| crate::ide::analysis::refresh(&at.index, crate::ide::analysis::definition(&context, &at.facts, at.offset)))
            .unwrap_or_else(|| crate::ide::analysis::definition(&at.context(), &at.facts, at.offset));
        let locations: Vec<Location> = targets.iter().filter_map(location).collect();
        (!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations))
    })
    .await
}

pub async fn references(backend: &Backend, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let position = params.text_document_position;
    let include_declaration = params.context.include_declaration;
    let Some(at) = at_position(&backend.session, &position.text_document.uri, position.position) else { return Ok(None) };
    let cached = backend.session.cached_context(&at.root);
    guard::request("textDocument/references", move || {
        let targets = cached
            .and_then(|context| {
                crate::ide::analysis::refresh(
                    &at.index,
                    crate::ide::analysis::references(&context, &at.facts, at.offset, include_declaration),
                )
            })
            .unwrap_or_else(|| crate::ide::analysis::references(&at.context(), &at.facts, at.offset, include_declaration));
        let locations: Vec<Location> = targets.iter().filter_map(location).collect();
        (!locations.is_empty()).then_some(locations)
    })
    .await
}

//! `textDocument/documentSymbol`: the Rails-aware outline of a file.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::ide::symbols::document_symbols;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

pub async fn document_symbol(backend: &Backend, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
    let Some(path) = convert::path_of(&params.text_document.uri) else { return Ok(None) };
    let Some(facts) = backend.session.index.get(&path) else { return Ok(None) };
    guard::request("textDocument/documentSymbol", move || {
        let symbols = document_symbols(&facts).iter().map(|s| convert::document_symbol(&facts.line_index, s)).collect();
        Some(DocumentSymbolResponse::Nested(symbols))
    })
    .await
}

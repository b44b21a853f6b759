//! `textDocument/hover`: what `ide::analysis::hover` says about the name under the cursor.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::request::at_position;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

pub async fn hover(backend: &Backend, params: HoverParams) -> Result<Option<Hover>> {
    let position = params.text_document_position_params;
    let Some(at) = at_position(&backend.session, &position.text_document.uri, position.position) else { return Ok(None) };
    let text = convert::path_of(&position.text_document.uri).and_then(|p| backend.session.documents().get(&p).map(|d| d.text.clone()));
    let cached = backend.session.cached_context(&at.root);
    guard::request("textDocument/hover", move || {
        let context = cached.unwrap_or_else(|| at.context());
        let hover = crate::ide::analysis::hover(&context, &at.index, &at.facts, text, at.offset)?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: hover.markdown }),
            range: Some(convert::range(&at.facts.line_index, hover.span)),
        })
    })
    .await
}

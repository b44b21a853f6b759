//! `textDocument/documentLink`: each `render` target and layout name that names a template of the
//! app links to its file (`ide::nav::document_links`).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::request::app_context;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

pub async fn document_link(backend: &Backend, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
    let session = &backend.session;
    let Some(path) = convert::path_of(&params.text_document.uri) else { return Ok(None) };
    let (Some(facts), Some(app)) = (session.index.get(&path), session.index.app_for(&path)) else { return Ok(None) };
    // The app's context as the last re-check left it, when none is pending: what completes or links
    // lives in the app's other files, and the file itself is read from its newest facts.
    let cached = session.cached_context(&app.root);
    let context = app_context(session, app.root);
    guard::request("textDocument/documentLink", move || {
        let context = cached.unwrap_or_else(context);
        let links: Vec<DocumentLink> = crate::ide::nav::document_links(&context, &facts)
            .into_iter()
            .filter_map(|link| {
                Some(DocumentLink {
                    range: convert::range(&facts.line_index, link.span),
                    target: Some(convert::uri_of(&link.target.path)?),
                    tooltip: Some(link.target.relative_path.clone()),
                    data: None,
                })
            })
            .collect();
        (!links.is_empty()).then_some(links)
    })
    .await
}

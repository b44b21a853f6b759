//! `textDocument/codeLens`: over each controller action, the routes that reach it; the lens runs
//! `switchyard.openRoute`, which asks the client to show the route call (`window/showDocument`).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::request::{app_context, location};
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

pub const OPEN_ROUTE: &str = "switchyard.openRoute";

pub async fn code_lens(backend: &Backend, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let session = &backend.session;
    let Some(path) = convert::path_of(&params.text_document.uri) else { return Ok(None) };
    let (Some(facts), Some(app)) = (session.index.get(&path), session.index.app_for(&path)) else { return Ok(None) };
    let context = app_context(session, app.root);
    guard::request("textDocument/codeLens", move || {
        let context = context();
        // Line 1 of every file: where it lands (a title only: nothing to run).
        let entry = crate::roundhouse::tree::map_file(&facts, &crate::roundhouse::tree::AppFacts::new(&context.files));
        let start = Position { line: 0, character: 0 };
        let tree_lens = CodeLens {
            range: Range { start, end: start },
            command: Some(Command { title: entry.summary(), command: String::new(), arguments: None }),
            data: None,
        };
        let lenses = std::iter::once(tree_lens)
            .chain(crate::ide::routes::code_lenses(&context, &facts).into_iter().map(|lens| CodeLens {
                range: convert::range(&facts.line_index, lens.span),
                command: Some(Command {
                    title: lens.title,
                    command: OPEN_ROUTE.to_owned(),
                    arguments: location(&lens.target).and_then(|l| serde_json::to_value(l).ok()).map(|l| vec![l]),
                }),
                data: None,
            }))
            .collect();
        Some(lenses)
    })
    .await
}

/// `workspace/executeCommand` for `switchyard.openRoute`: the argument is a `Location`.
pub async fn execute_command(backend: &Backend, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
    if params.command != OPEN_ROUTE {
        return Err(tower_lsp_server::jsonrpc::Error::invalid_params(format!("unknown command {}", params.command)));
    }
    let Some(location) = params.arguments.first().and_then(|a| serde_json::from_value::<Location>(a.clone()).ok()) else {
        return Err(tower_lsp_server::jsonrpc::Error::invalid_params("switchyard.openRoute takes a Location"));
    };
    let shown = backend
        .client
        .show_document(ShowDocumentParams { uri: location.uri, external: None, take_focus: Some(true), selection: Some(location.range) })
        .await;
    if let Err(error) = shown {
        tracing::warn!("the client could not show the route: {error}");
    }
    Ok(None)
}

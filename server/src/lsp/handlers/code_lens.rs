//! `textDocument/codeLens`: over each controller action, the routes that reach it; on a template's
//! first line, the actions that render it. Those lenses run `switchyard.openRoute`, which asks the
//! client to show the place (`window/showDocument`).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::request::{app_context, location};
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

pub const OPEN_ROUTE: &str = "switchyard.openRoute";
/// Run by the client: open the preview of the file (argument 1) at its line (argument 2).
pub const PREVIEW: &str = "switchyard.preview";

pub async fn code_lens(backend: &Backend, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let session = &backend.session;
    let Some(path) = convert::path_of(&params.text_document.uri) else { return Ok(None) };
    let (Some(facts), Some(app)) = (session.index.get(&path), session.index.app_for(&path)) else { return Ok(None) };
    let context = app_context(session, app.root);
    guard::request("textDocument/codeLens", move || {
        let context = context();
        // Line 1 of every file: where it lands (a title only: nothing to run).
        let entry = crate::roundhouse::tree::map_file(&facts, context.tree_facts());
        let start = Position { line: 0, character: 0 };
        let tree_lens = CodeLens {
            range: Range { start, end: start },
            command: Some(Command { title: entry.summary(), command: String::new(), arguments: None }),
            data: None,
        };
        // Over each model and controller class, and a template's first line: open the preview there.
        let uri = convert::uri_of(&facts.path);
        let preview_at = |line: u32| CodeLens {
            range: Range { start: Position { line, character: 0 }, end: Position { line, character: 0 } },
            command: Some(Command {
                title: "Preview specialized output".to_owned(),
                command: PREVIEW.to_owned(),
                arguments: uri.as_ref().map(|u| vec![serde_json::json!(u.as_str()), serde_json::json!(line)]),
            }),
            data: None,
        };
        let mut preview_lines: Vec<u32> =
            facts.models.iter().map(|m| m.name_span.start.line).chain(facts.controllers.iter().map(|c| c.name_span.start.line)).collect();
        if facts.template.is_some() {
            preview_lines.push(0);
        }
        // A template's first line: the actions that render it (a partial: how many places do).
        let rendered = crate::ide::nav::template_lens(&context, &facts).map(|(title, targets)| CodeLens {
            range: Range { start, end: start },
            command: Some(Command {
                title,
                command: OPEN_ROUTE.to_owned(),
                arguments: targets.first().and_then(location).and_then(|l| serde_json::to_value(l).ok()).map(|l| vec![l]),
            }),
            data: None,
        });
        let lenses = std::iter::once(tree_lens)
            .chain(rendered)
            .chain(preview_lines.into_iter().map(preview_at))
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
    // The client shows it when it will; the request is answered at once (never waiting on the client).
    let client = backend.client.clone();
    tokio::spawn(async move {
        let params = ShowDocumentParams { uri: location.uri, external: None, take_focus: Some(true), selection: Some(location.range) };
        if let Err(error) = client.show_document(params).await {
            tracing::warn!("the client could not show the route: {error}");
        }
    });
    Ok(None)
}

//! `textDocument/codeAction`: the quick fixes of the diagnostics in the requested range (`ide::fixes`):
//! rewrites where a rule has one mechanical answer, and a `switchyard:disable` comment for the line
//! or the file.

use std::collections::HashMap;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

pub async fn code_action(backend: &Backend, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    if params.context.only.as_ref().is_some_and(|only| !only.iter().any(|k| CodeActionKind::QUICKFIX.as_str().starts_with(k.as_str()))) {
        return Ok(None);
    }
    let session = &backend.session;
    let uri = params.text_document.uri;
    let Some(path) = convert::path_of(&uri) else { return Ok(None) };
    let Some(facts) = session.index.get(&path) else { return Ok(None) };
    let text = session.documents().get(&path).map(|d| d.text.clone());
    let shown = session.shown(&path, &session.published(&path));
    let range = params.range;
    let links: Vec<Option<Uri>> = shown.iter().map(|d| session.rule_doc(d.rule)).collect();
    guard::request("textDocument/codeAction", move || {
        let text = text.or_else(|| std::fs::read_to_string(&facts.path).ok())?;
        let mut actions = Vec::new();
        for (diagnostic, link) in shown.iter().zip(links) {
            let lsp_diagnostic = convert::diagnostic(&facts.line_index, diagnostic, link);
            let (start, end) = (lsp_diagnostic.range.start.line, lsp_diagnostic.range.end.line);
            if end < range.start.line || start > range.end.line {
                continue;
            }
            for fix in crate::ide::fixes::fixes(&text, facts.language, diagnostic) {
                let edits = fix
                    .edits
                    .iter()
                    .map(|e| TextEdit {
                        range: Range {
                            start: convert::position(&facts.line_index, facts.line_index.line_col(e.start)),
                            end: convert::position(&facts.line_index, facts.line_index.line_col(e.end)),
                        },
                        new_text: e.new_text.clone(),
                    })
                    .collect();
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: fix.title,
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![lsp_diagnostic.clone()]),
                    edit: Some(WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits)])), ..WorkspaceEdit::default() }),
                    is_preferred: fix.preferred.then_some(true),
                    ..CodeAction::default()
                }));
            }
        }
        Some(actions)
    })
    .await
}

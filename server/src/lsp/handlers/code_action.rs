//! `textDocument/codeAction`: the quick fixes of the diagnostics in the requested range (`ide::fixes`):
//! rewrites where a rule has one mechanical answer, and a `switchyard:disable` comment for the line
//! or the file; and `source.fixAll.switchyard`, every safe fix of the file at once (what an editor runs
//! on save when asked to).

use std::collections::HashMap;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use crate::ide::fixes::Edit;
use crate::lsp::{backend::Backend, convert, guard};

pub const FIX_ALL: &str = "source.fixAll.switchyard";

pub async fn code_action(backend: &Backend, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    // `only: ["source"]` asks for every source action, `["source.fixAll"]` for every fixer's.
    let wanted = |kind: &str| {
        params.context.only.as_ref().is_none_or(|only| {
            only.iter().any(|k| kind == k.as_str() || kind.strip_prefix(k.as_str()).is_some_and(|rest| rest.starts_with('.')))
        })
    };
    let (quick_fixes, fix_all) = (wanted(CodeActionKind::QUICKFIX.as_str()), wanted(FIX_ALL));
    if !quick_fixes && !fix_all {
        return Ok(None);
    }
    let session = &backend.session;
    let uri = params.text_document.uri;
    let Some(path) = convert::path_of(&uri) else { return Ok(None) };
    let Some(facts) = session.index.get(&path) else { return Ok(None) };
    let text = session.documents().get(&path).map(|d| d.text.clone());
    let shown = session.shown(&path, &session.published(&path));
    let range = params.range;
    let links: Vec<Option<Uri>> = shown.iter().map(|d| session.rule_doc(&d.rule)).collect();
    // A finding whose fix is in another file (an N+1's query) needs the app.
    let context = shown
        .iter()
        .any(|d| crate::catalogue::fix(d.rule) == Some(crate::catalogue::Fix::Preload))
        .then(|| session.index.app_for(&path).map(|app| super::request::app_context(session, app.root)))
        .flatten();
    guard::request("textDocument/codeAction", move || {
        let context = context.map(|build| build());
        let text = text.or_else(|| crate::files::read_source(&facts.path))?;
        let text_edits = |edits: &[Edit]| -> Vec<TextEdit> {
            edits
                .iter()
                .map(|e| TextEdit {
                    range: convert::range(&facts.line_index, facts.line_index.span(e.start..e.end)),
                    new_text: e.new_text.clone(),
                })
                .collect()
        };
        let workspace_edit =
            |edits: Vec<TextEdit>| WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits)])), ..WorkspaceEdit::default() };
        let mut actions = Vec::new();
        for (diagnostic, link) in shown.iter().zip(links).filter(|_| quick_fixes) {
            let lsp_diagnostic = convert::diagnostic(&facts.line_index, diagnostic, link);
            let (start, end) = (lsp_diagnostic.range.start.line, lsp_diagnostic.range.end.line);
            if end < range.start.line || start > range.end.line {
                continue;
            }
            if let Some(context) =
                context.as_ref().filter(|_| crate::catalogue::fix(diagnostic.rule) == Some(crate::catalogue::Fix::Preload))
                && let Some(fix) = crate::roundhouse::preload::fix(&facts, context, diagnostic)
                && let Some(target) = context.files.iter().find(|f| f.relative_path == fix.path)
                && let Some(target_uri) = convert::uri_of(&target.path)
            {
                let at = target.line_index.span(fix.offset..fix.offset);
                let edit = TextEdit { range: convert::range(&target.line_index, at), new_text: fix.text.clone() };
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("Preload it in the query: `{}`", fix.text.trim_start_matches('.')),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![lsp_diagnostic.clone()]),
                    edit: Some(WorkspaceEdit { changes: Some(HashMap::from([(target_uri, vec![edit])])), ..WorkspaceEdit::default() }),
                    is_preferred: Some(true),
                    ..CodeAction::default()
                }));
            }
            for fix in crate::ide::fixes::fixes(&text, &facts, diagnostic) {
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: fix.title,
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![lsp_diagnostic.clone()]),
                    edit: Some(workspace_edit(text_edits(&fix.edits))),
                    is_preferred: fix.preferred.then_some(true),
                    ..CodeAction::default()
                }));
            }
        }
        let safe = crate::ide::fixes::safe_edits(&text, &facts, &shown);
        if fix_all && !safe.is_empty() {
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Fix {} Switchyard finding{} (safe fixes)", safe.len(), if safe.len() == 1 { "" } else { "s" }),
                kind: Some(CodeActionKind::new(FIX_ALL)),
                edit: Some(workspace_edit(text_edits(&safe))),
                ..CodeAction::default()
            }));
        }
        Some(actions)
    })
    .await
}

//! `textDocument/completion`: route helper names (`post_path`, `post_url`) with their verb and path,
//! in Ruby files and in the code of ERB and HAML templates; rule ids in `switchyard:disable` comments.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::request::app_context;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

pub async fn completion(backend: &Backend, params: CompletionParams) -> Result<Option<CompletionResponse>> {
    let session = &backend.session;
    let position = params.text_document_position;
    let Some(path) = convert::path_of(&position.text_document.uri) else { return Ok(None) };
    let Some(app) = session.index.app_for(&path) else { return Ok(None) };
    // The word being typed, from the open document (completion is asked for open documents only).
    let prefix = {
        let documents = session.documents();
        let Some(document) = documents.get(&path) else { return Ok(None) };
        let Some(offset) = convert::offset(&document.rope, position.position) else { return Ok(None) };
        if let Some(partial) = rule_id_before(&document.text, offset) {
            return Ok(rule_ids(&partial));
        }
        if document.parsed.in_ruby_code(offset) { word_before(&document.text, offset) } else { None }
    };
    let Some(prefix) = prefix else { return Ok(None) };
    let context = app_context(session, app.root);
    guard::request("textDocument/completion", move || {
        let context = context();
        let items: Vec<CompletionItem> = crate::ide::routes::completions(&context, &prefix)
            .into_iter()
            .map(|c| CompletionItem {
                label: c.label,
                kind: Some(CompletionItemKind::FUNCTION),
                detail: Some(c.detail),
                documentation: Some(Documentation::String(c.documentation)),
                ..CompletionItem::default()
            })
            .collect();
        (!items.is_empty()).then_some(CompletionResponse::Array(items))
    })
    .await
}

/// In a `switchyard:disable` comment, the rule id being typed at `offset` (possibly empty).
fn rule_id_before(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset)?;
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let directive = line.find("switchyard:disable")?;
    let after = &line[directive + "switchyard:disable".len()..];
    let after = after.strip_prefix("-next-line").unwrap_or(after);
    // The directive itself must be complete (a space after it) before ids follow.
    if !after.starts_with(' ') {
        return None;
    }
    let start = line.rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))).map_or(0, |i| i + 1);
    Some(line[start..].to_owned())
}

/// Every rule id starting with `partial`, with its severity and why.
fn rule_ids(partial: &str) -> Option<CompletionResponse> {
    let catalogue = crate::roundhouse::catalogue::RULES.iter().map(|r| r.id);
    let own = crate::roundhouse::rule_docs::OWN.iter().map(|(id, _)| *id);
    let items: Vec<CompletionItem> = catalogue
        .chain(own)
        .filter(|id| id.starts_with(partial))
        .map(|id| CompletionItem {
            label: id.to_owned(),
            kind: Some(CompletionItemKind::ENUM_MEMBER),
            documentation: crate::roundhouse::rule_docs::summary(id)
                .map(|value| Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value })),
            ..CompletionItem::default()
        })
        .collect();
    (!items.is_empty()).then_some(CompletionResponse::Array(items))
}

/// The identifier being typed at `offset` (possibly empty: `link_to "x", |`), unless it is a method
/// called on a receiver, a symbol or a variable.
fn word_before(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset)?;
    let start = before.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
    let word = &before[start..];
    let preceding = before[..start].chars().next_back();
    let is_name = word.is_empty() || word.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
    (is_name && !matches!(preceding, Some('.' | ':' | '@' | '$' | '"' | '\''))).then(|| word.to_owned())
}

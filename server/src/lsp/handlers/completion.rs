//! `textDocument/completion`: what `ide::completion` offers at the cursor of an open document (rule
//! ids, partials, i18n keys, instance variables, columns, constants, route and app helpers).

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::request::app_context;
use crate::ide::completion::Kind;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};

pub async fn completion(backend: &Backend, params: CompletionParams) -> Result<Option<CompletionResponse>> {
    let session = &backend.session;
    let position = params.text_document_position;
    let Some(path) = convert::path_of(&position.text_document.uri) else { return Ok(None) };
    let Some(app) = session.index.app_for(&path) else { return Ok(None) };
    // Completion is asked for open documents: their text, the cursor, whether it is in Ruby code.
    let (text, offset, in_code) = {
        let documents = session.documents();
        let Some(document) = documents.get(&path) else { return Ok(None) };
        let Some(offset) = convert::offset(&document.rope, position.position) else { return Ok(None) };
        (document.text.clone(), offset, document.parsed.in_ruby_code(offset))
    };
    let Some(facts) = session.index.get(&path) else { return Ok(None) };
    // The app's context as the last re-check left it, when none is pending: what completes or links
    // lives in the app's other files, and the file itself is read from its newest facts.
    let cached = session.cached_context(&app.root);
    let context = app_context(session, app.root);
    guard::request("textDocument/completion", move || {
        let context = cached.unwrap_or_else(context);
        let mut found = crate::ide::completion::complete(&context, &facts, &text, offset, in_code);
        // A long list is cut, and marked incomplete: the client asks again as the word grows.
        let incomplete = found.len() > MAX_ITEMS;
        found.truncate(MAX_ITEMS);
        let items: Vec<CompletionItem> = found
            .into_iter()
            .map(|item| {
                let text_edit = item.replace.as_ref().map(|range| {
                    let range = convert::range(&facts.line_index, facts.line_index.span(range.clone()));
                    CompletionTextEdit::Edit(TextEdit { range, new_text: item.insert.clone().unwrap_or_else(|| item.label.clone()) })
                });
                CompletionItem {
                    kind: Some(kind(item.kind)),
                    detail: (!item.detail.is_empty()).then(|| item.detail.clone()),
                    documentation: (!item.documentation.is_empty()).then(|| {
                        Documentation::MarkupContent(MarkupContent { kind: MarkupKind::Markdown, value: item.documentation.clone() })
                    }),
                    insert_text: if text_edit.is_none() { item.insert.clone() } else { None },
                    filter_text: item.replace.is_some().then(|| item.label.clone()),
                    text_edit,
                    label: item.label,
                    ..CompletionItem::default()
                }
            })
            .collect();
        (!items.is_empty()).then_some(CompletionResponse::List(CompletionList { is_incomplete: incomplete, items }))
    })
    .await
}

/// The most items one reply carries (a route helper with nothing typed yet, in a big app, is thousands).
const MAX_ITEMS: usize = 200;

fn kind(kind: Kind) -> CompletionItemKind {
    match kind {
        Kind::Function => CompletionItemKind::FUNCTION,
        Kind::Field => CompletionItemKind::FIELD,
        Kind::Reference => CompletionItemKind::REFERENCE,
        Kind::File => CompletionItemKind::FILE,
        Kind::Text => CompletionItemKind::TEXT,
        Kind::Variable => CompletionItemKind::VARIABLE,
        Kind::Class => CompletionItemKind::CLASS,
        Kind::Rule => CompletionItemKind::ENUM_MEMBER,
    }
}

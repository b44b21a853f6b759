//! Document sync: `didOpen`, `didChange` (incremental, version-checked), `didClose`.
//! Each mutates state synchronously and says what changed; `diagnostics::publish` sends the result.

use std::path::Path;

use tower_lsp_server::ls_types::*;

use super::diagnostics::{Change, Publish, note, publish};
use crate::document::{Document, SyncError};
use crate::lsp::backend::Backend;
use crate::lsp::session::Session;
use crate::lsp::{convert, guard};
use crate::rails::project;
use crate::syntax::Language;

fn language_for(path: &Path, language_id: &str) -> Language {
    project::language_of(path).unwrap_or(match language_id {
        "erb" | "eruby" | "html.erb" => Language::Erb,
        "haml" => Language::Haml,
        _ => Language::Ruby,
    })
}

pub async fn did_open(backend: &Backend, params: DidOpenTextDocumentParams) {
    let session = &backend.session;
    let changes = guard::notification("textDocument/didOpen", || {
        let item = params.text_document;
        let Some(path) = convert::path_of(&item.uri) else { return Vec::new() };
        let document = Document::new(path.clone(), item.version, language_for(&path, &item.language_id), item.text);
        let (facts, previous) = session.replace_document_facts(&document);
        session.documents().insert(path, document);
        vec![note(session, &facts, previous.as_ref(), Some(item.version))]
    });
    publish(&backend.session, &backend.client, changes.unwrap_or_default()).await;
}

pub async fn did_change(backend: &Backend, params: DidChangeTextDocumentParams) {
    let session = &backend.session;
    let changes = guard::notification("textDocument/didChange", || apply_changes(session, params));
    publish(&backend.session, &backend.client, changes.unwrap_or_default()).await;
}

fn apply_changes(session: &Session, params: DidChangeTextDocumentParams) -> Vec<Change> {
    let Some(path) = convert::path_of(&params.text_document.uri) else { return Vec::new() };
    let version = params.text_document.version;
    let mut documents = session.documents();
    let Some(document) = documents.get_mut(&path) else {
        // A change for a document we dropped (or never saw): a full-text change lets us start over.
        let Some(full_text) = params.content_changes.iter().rev().find(|c| c.range.is_none()) else {
            tracing::warn!("{}: change for a document that is not open; ignored", path.display());
            return Vec::new();
        };
        tracing::info!("{}: reopened from a full-text change", path.display());
        let language = project::language_of(&path).unwrap_or(Language::Ruby);
        let document = Document::new(path.clone(), version, language, full_text.text.clone());
        let (facts, previous) = session.replace_document_facts(&document);
        documents.insert(path, document);
        drop(documents);
        return vec![note(session, &facts, previous.as_ref(), Some(version))];
    };
    let result = if version <= document.version {
        Err(SyncError::StaleVersion { held: document.version, received: version })
    } else {
        params.content_changes.iter().try_for_each(|change| match change.range {
            None => {
                document.replace_all(&change.text);
                Ok(())
            }
            Some(range) => {
                let start = convert::offset(&document.rope, range.start);
                let end = convert::offset(&document.rope, range.end);
                match (start, end) {
                    (Some(start), Some(end)) => document.replace(start, end, &change.text),
                    _ => Err(SyncError::RangeOutOfBounds),
                }
            }
        })
    };
    if let Err(error) = result {
        tracing::warn!("{}: out of sync with the client ({error:?}); dropped, reading the file from disk", path.display());
        documents.remove(&path);
        drop(documents);
        return reindex_from_disk(session, &path);
    }
    document.commit(version);
    let (facts, previous) = session.replace_document_facts(document);
    drop(documents);
    vec![note(session, &facts, previous.as_ref(), Some(version))]
}

/// The on-disk file's facts replace a dropped or closed document's; outside any app, or gone from
/// the disk, it is forgotten. Diagnostics of the rest of its app are refreshed either way.
pub fn reindex_from_disk(session: &Session, path: &Path) -> Vec<Change> {
    let app = session.index.app_for(path);
    // A client names the path: through a linked folder it may lead outside the app.
    if path.is_file() && app.as_ref().is_some_and(|app| crate::files::resolves_inside(path, &app.root)) {
        let previous = session.index.get(path);
        match session.index.index_file(path) {
            Ok(facts) => return vec![note(session, &facts, previous.as_ref(), None)],
            Err(error) => tracing::warn!("{}: {error}", path.display()),
        }
    }
    session.index.remove(path);
    session.forget_published(path);
    let mut changes: Vec<Change> = Publish::clear(path).into_iter().map(Change::Ready).collect();
    changes.extend(app.map(|app| Change::App(app.root)));
    changes
}

pub async fn did_close(backend: &Backend, params: DidCloseTextDocumentParams) {
    let session = &backend.session;
    let changes = guard::notification("textDocument/didClose", || {
        let Some(path) = convert::path_of(&params.text_document.uri) else { return Vec::new() };
        session.documents().remove(&path);
        reindex_from_disk(session, &path)
    });
    publish(&backend.session, &backend.client, changes.unwrap_or_default()).await;
}

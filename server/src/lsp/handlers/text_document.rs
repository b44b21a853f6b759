//! Document sync: `didOpen`, `didChange` (incremental, version-checked), `didClose`.
//! Each mutates state synchronously, then publishes diagnostics.

use std::path::Path;

use tower_lsp_server::ls_types::*;

use super::diagnostics::Publish;
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
    let publish = guard::notification("textDocument/didOpen", || {
        let item = params.text_document;
        let path = convert::path_of(&item.uri)?;
        let document = Document::new(path.clone(), item.version, language_for(&path, &item.language_id), item.text);
        let facts = session.refresh_document(&document);
        session.documents().insert(path, document);
        Publish::of(&facts, Some(item.version))
    });
    if let Some(Some(publish)) = publish {
        publish.send(&backend.client).await;
    }
}

pub async fn did_change(backend: &Backend, params: DidChangeTextDocumentParams) {
    let session = &backend.session;
    let publish = guard::notification("textDocument/didChange", || apply_changes(session, params)).flatten();
    if let Some(publish) = publish {
        publish.send(&backend.client).await;
    }
}

fn apply_changes(session: &Session, params: DidChangeTextDocumentParams) -> Option<Publish> {
    let path = convert::path_of(&params.text_document.uri)?;
    let version = params.text_document.version;
    let mut documents = session.documents();
    let Some(document) = documents.get_mut(&path) else {
        // A change for a document we dropped (or never saw): a full-text change lets us start over.
        let full_text = params.content_changes.iter().rev().find(|c| c.range.is_none())?;
        tracing::info!("{}: reopened from a full-text change", path.display());
        let language = project::language_of(&path).unwrap_or(Language::Ruby);
        let document = Document::new(path.clone(), version, language, full_text.text.clone());
        let facts = session.refresh_document(&document);
        documents.insert(path, document);
        return Publish::of(&facts, Some(version));
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
    let facts = session.refresh_document(document);
    Publish::of(&facts, Some(version))
}

/// The on-disk file's facts replace a dropped or closed document's; outside any app it is forgotten.
pub fn reindex_from_disk(session: &Session, path: &Path) -> Option<Publish> {
    if session.index.app_for(path).is_some() && path.is_file() {
        match session.index.index_file(path) {
            Ok(facts) => return Publish::of(&facts, None),
            Err(error) => tracing::warn!("{}: {error}", path.display()),
        }
    }
    session.index.remove(path);
    Publish::clear(path)
}

pub async fn did_close(backend: &Backend, params: DidCloseTextDocumentParams) {
    let session = &backend.session;
    let publish = guard::notification("textDocument/didClose", || {
        let path = convert::path_of(&params.text_document.uri)?;
        session.documents().remove(&path);
        reindex_from_disk(session, &path)
    })
    .flatten();
    if let Some(publish) = publish {
        publish.send(&backend.client).await;
    }
}

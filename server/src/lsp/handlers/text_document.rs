//! Document sync: `didOpen`, `didChange` (incremental, version-checked), `didClose`.
//! Each mutates state synchronously and says what changed; `diagnostics::publish` sends the result.

use std::path::Path;

use tower_lsp_server::ls_types::*;

use super::diagnostics::{Change, Publish, note, publish};
use crate::document::Document;
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
    let _changing = backend.session.changing();
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
    let _changing = backend.session.changing();
    let session = &backend.session;
    let changes = guard::notification("textDocument/didChange", || apply_changes(session, params));
    publish(&backend.session, &backend.client, changes.unwrap_or_default()).await;
}

fn apply_changes(session: &Session, params: DidChangeTextDocumentParams) -> Vec<Change> {
    let Some(path) = convert::path_of(&params.text_document.uri) else { return Vec::new() };
    let version = params.text_document.version;
    let mut documents = session.documents();
    let opened_now = !documents.contains_key(&path);
    if opened_now {
        // A change for a document never opened: its text before the change is taken from a full-text
        // change, else from the disk (an editor opens files as they are saved), marked as possibly
        // out of sync until the next save.
        let full_text = params.content_changes.iter().rposition(|c| c.range.is_none());
        let language = project::language_of(&path).unwrap_or(Language::Ruby);
        let base = match full_text {
            Some(_) => Some(String::new()),
            None => read_inside_app(session, &path),
        };
        let Some(base) = base else {
            tracing::warn!("{}: change for a document that is not open and not readable; ignored", path.display());
            return Vec::new();
        };
        tracing::warn!(
            "{}: change for a document that is not open; opened from {}",
            path.display(),
            if full_text.is_some() { "its full text" } else { "the disk" }
        );
        let mut document = Document::new(path.clone(), version, language, base);
        document.diverged = full_text.is_none();
        documents.insert(path.clone(), document);
    }
    let Some(document) = documents.get_mut(&path) else { return Vec::new() };
    if version <= document.version && !opened_now {
        // Versions only grow; a change that says otherwise is still what the editor did to its text.
        tracing::warn!("{}: change for version {version}, not newer than {}; applied", path.display(), document.version);
    }
    for change in &params.content_changes {
        match change.range {
            None => {
                document.replace_all(&change.text);
                document.diverged = false;
            }
            Some(range) => {
                let start = convert::offset_clamped(&document.rope, range.start);
                let end = convert::offset_clamped(&document.rope, range.end);
                let fits = convert::offset(&document.rope, range.start).is_some()
                    && convert::offset(&document.rope, range.end).is_some()
                    && start <= end;
                if !fits && !document.diverged {
                    tracing::warn!(
                        "{}: a change's range lies outside the text held; applied at its end, resynchronised at the next save",
                        path.display()
                    );
                }
                document.diverged |= !fits;
                if let Err(error) = document.replace(start.min(end), start.max(end), &change.text) {
                    tracing::warn!("{}: a change could not be applied ({error:?}); resynchronised at the next save", path.display());
                    document.diverged = true;
                }
            }
        }
    }
    // The publish never carries an older version than one already sent.
    document.commit(version.max(document.version));
    let (facts, previous) = session.replace_document_facts(document);
    drop(documents);
    vec![note(session, &facts, previous.as_ref(), Some(version))]
}

/// The text of a file a client names, read from disk only when it is a file of an app (a client
/// must not have the server read what lies outside the workspace).
fn read_inside_app(session: &Session, path: &Path) -> Option<String> {
    let app = session.index.app_for(path).filter(|app| crate::files::resolves_inside(path, &app.root))?;
    crate::files::read_regular_text(path, Some(&app.root), crate::files::MAX_SOURCE).ok().flatten()
}

/// `didSave`: the saved text is the editor's (the server asks for it), so a document that drifted out
/// of sync is brought back to it; then the exact-preview compiler runs, when one is configured.
pub async fn did_save(backend: &Backend, params: DidSaveTextDocumentParams) {
    let _changing = backend.session.changing();
    let session = &backend.session;
    let changes = guard::notification("textDocument/didSave", || {
        let Some(path) = convert::path_of(&params.text_document.uri) else { return Vec::new() };
        let mut documents = session.documents();
        let Some(document) = documents.get_mut(&path) else { return Vec::new() };
        let saved = match &params.text {
            Some(text) => Some(text.clone()),
            None if document.diverged => read_inside_app(session, &path),
            None => None,
        };
        let Some(saved) = saved.filter(|saved| *saved != document.text) else {
            document.diverged = false;
            return Vec::new();
        };
        tracing::warn!("{}: the saved text differs from the text held; resynchronised", path.display());
        document.replace_all(&saved);
        document.diverged = false;
        let version = document.version;
        document.commit(version);
        let (facts, previous) = session.replace_document_facts(document);
        drop(documents);
        vec![note(session, &facts, previous.as_ref(), Some(version))]
    });
    publish(&backend.session, &backend.client, changes.unwrap_or_default()).await;
    super::exact::did_save(backend, params).await;
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
    let known = session.index.get(path).is_some();
    session.index.remove(path);
    session.forget_published(path);
    if !known && app.is_none() {
        return Vec::new(); // Nothing of it was said: nothing to take back (a path outside every app).
    }
    let mut changes: Vec<Change> = Publish::clear(path).into_iter().map(Change::Ready).collect();
    changes.extend(app.map(|app| Change::App(app.root)));
    changes
}

pub async fn did_close(backend: &Backend, params: DidCloseTextDocumentParams) {
    let _changing = backend.session.changing();
    let session = &backend.session;
    let changes = guard::notification("textDocument/didClose", || {
        let Some(path) = convert::path_of(&params.text_document.uri) else { return Vec::new() };
        session.documents().remove(&path);
        reindex_from_disk(session, &path)
    });
    publish(&backend.session, &backend.client, changes.unwrap_or_default()).await;
}

//! `workspace/didChangeWatchedFiles` (files created, changed or deleted on disk are re-indexed; a new
//! `config/routes.rb` or `config/application.rb` makes a new app) and
//! `workspace/didChangeWorkspaceFolders` (added folders are indexed, removed ones forgotten).

use std::path::PathBuf;

use tower_lsp_server::ls_types::*;

use super::diagnostics::{Change, Publish, publish};
use super::lifecycle::index_folders;
use super::text_document::reindex_from_disk;
use crate::lsp::backend::Backend;
use crate::lsp::{convert, guard};
use crate::rails::project;

pub async fn did_change_watched_files(backend: &Backend, params: DidChangeWatchedFilesParams) {
    let _changing = backend.session.changing();
    let session = &backend.session;
    let mut new_app_folders: Vec<PathBuf> = Vec::new();
    let mut config_errors: Vec<String> = Vec::new();
    let changes = guard::notification("workspace/didChangeWatchedFiles", || {
        // What the last session's diagnostics were worked out from is no longer all on disk.
        session.take_last_published();
        let mut changes = Vec::new();
        // Two watchers may report one change.
        let mut reported = std::collections::HashSet::new();
        for change in params.changes.iter().filter(|change| reported.insert((change.uri.as_str(), change.typ))) {
            let Some(path) = convert::path_of(&change.uri) else { continue };
            if path.file_name().is_some_and(|name| name == crate::config::FILE_NAME) {
                // The app's settings changed: every file of the app is shown again under them.
                if let Some(root) = path.parent()
                    && session.index.apps().iter().any(|app| app.root == root)
                {
                    let read = session.reload_config(root);
                    if let Err((path, error)) = &read {
                        config_errors.push(format!("{}: {error}", path.display()));
                    }
                    changes.extend(Publish::config(session, root, &read).map(Change::Ready));
                    session.forget_published_under(root);
                    changes.push(Change::App(root.to_path_buf()));
                }
                continue;
            }
            if session.is_open(&path) {
                continue; // The buffer is the truth for open documents.
            }
            if change.typ == FileChangeType::DELETED {
                let removed: Vec<PathBuf> =
                    session.index.snapshot().iter().filter(|f| f.path.starts_with(&path)).map(|f| f.path.clone()).collect();
                for removed_path in removed {
                    changes.extend(reindex_from_disk(session, &removed_path));
                }
                continue;
            }
            // What a new app's root or a folder moved in leads to is indexed only inside a workspace
            // folder (a client may name any path).
            let in_workspace = |dir: &std::path::Path| session.folders().iter().any(|folder| crate::files::resolves_inside(dir, folder));
            if (path.ends_with("config/routes.rb") || path.ends_with("config/application.rb"))
                && let Some(root) = path.parent().and_then(|p| p.parent())
                && session.index.app_for(&path).is_none_or(|app| app.root != root)
            {
                if in_workspace(root) {
                    new_app_folders.push(root.to_path_buf());
                }
                continue;
            }
            // A folder created or moved in (one event for the whole folder): its files are indexed
            // with their app, or the apps in it are.
            if change.typ == FileChangeType::CREATED && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
                let indexable = match session.index.app_for(&path) {
                    Some(app) => project::holds_indexable_files(&app.root, &path),
                    None => {
                        let folders = session.folders();
                        let folder = folders.iter().find(|folder| path.starts_with(folder));
                        folder.is_some_and(|folder| project::walk_enters(folder, &path)) && !project::discover_apps(&path).is_empty()
                    }
                };
                if indexable && in_workspace(&path) {
                    new_app_folders.push(path);
                }
                continue;
            }
            if project::language_of(&path).is_some() {
                changes.extend(reindex_from_disk(session, &path));
            }
        }
        changes
    })
    .unwrap_or_default();
    publish(&backend.session, &backend.client, changes).await;
    for message in config_errors {
        backend.client.show_message(MessageType::WARNING, format!("Switchyard: {message}")).await;
    }
    if !new_app_folders.is_empty() {
        // In a task of its own: a handler never waits for an index (nor the index for the client).
        let indexing = backend.session.begin_indexing();
        tokio::spawn(index_folders(backend.client.clone(), backend.session(), new_app_folders, indexing));
    }
}

pub async fn did_change_workspace_folders(backend: &Backend, params: DidChangeWorkspaceFoldersParams) {
    let _changing = backend.session.changing();
    let session = &backend.session;
    let mut publishes = Vec::new();
    for removed in &params.event.removed {
        let Some(folder) = convert::path_of(&removed.uri) else { continue };
        session.remove_folder(&folder);
        publishes.extend(session.forget_under(&folder).iter().filter_map(|path| Publish::clear(path)));
    }
    publish(&backend.session, &backend.client, publishes.into_iter().map(Change::Ready).collect()).await;
    let added: Vec<PathBuf> = params.event.added.iter().filter_map(|f| convert::path_of(&f.uri)).collect();
    for folder in &added {
        session.add_folder(folder.clone());
    }
    if !added.is_empty() {
        let indexing = backend.session.begin_indexing();
        tokio::spawn(index_folders(backend.client.clone(), backend.session(), added, indexing));
    }
}

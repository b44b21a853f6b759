//! What the server tells the client it can do.

use tower_lsp_server::ls_types::*;

pub fn server_capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            ..TextDocumentSyncOptions::default()
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities { supported: Some(true), change_notifications: Some(OneOf::Left(true)) }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}

pub fn server_info() -> ServerInfo {
    ServerInfo { name: "switchyard".to_owned(), version: Some(env!("CARGO_PKG_VERSION").to_owned()) }
}

/// Files whose change on disk changes the index.
pub const WATCHED_GLOB: &str = "**/*.{rb,erb,haml,slim,jbuilder,builder,rabl,rake,ru}";

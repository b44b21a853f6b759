//! What the server tells the client it can do.

use tower_lsp_server::ls_types::*;

pub fn server_capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            // A save carries the editor's text (a document out of sync is brought back to it) and
            // starts the exact-preview compiler, when one is configured.
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions { include_text: Some(true) })),
            ..TextDocumentSyncOptions::default()
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::new(super::handlers::code_action::FIX_ALL)]),
            ..CodeActionOptions::default()
        })),
        code_lens_provider: Some(CodeLensOptions { resolve_provider: Some(false) }),
        document_link_provider: Some(DocumentLinkOptions { resolve_provider: Some(false), work_done_progress_options: Default::default() }),
        // `@` for instance variables, quotes and `.`/`/` inside `render "…"` and `t("…")`, `:` for columns.
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(["_", "@", "\"", "'", ".", "/", ":"].map(str::to_owned).to_vec()),
            ..CompletionOptions::default()
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![super::handlers::code_lens::OPEN_ROUTE.to_owned()],
            ..ExecuteCommandOptions::default()
        }),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}

pub fn server_info() -> ServerInfo {
    ServerInfo { name: "switchyard".to_owned(), version: Some(env!("CARGO_PKG_VERSION").to_owned()) }
}

/// The deployment files without an extension the index reads (`rails::deploy`).
pub const DEPLOYMENT_GLOB: &str = "**/{Gemfile,Gemfile.lock,gems.rb,gems.locked,Procfile,Procfile.*,Dockerfile,Dockerfile.*,Dockerfile-*}";
/// Files whose change on disk changes the index.
pub const WATCHED_GLOB: &str = "**/*.{rb,erb,haml,slim,jbuilder,builder,rabl,rake,ru,yml,yaml,sql}";

//! The router: one line per LSP method, delegating to the handler file named after it.
//!
//! Where each runs (as ruff's server says per handler): notifications (`did*`) apply their change on
//! the message loop, synchronously and in the order sent, then publish the changed file; requests
//! gather `Arc` snapshots on the loop and do their work on a blocking thread (`guard::request`);
//! whole-app re-checks (`handlers::diagnostics`), the cold index (`handlers::lifecycle`) and the
//! compiler (`handlers::exact`) run in the background.

use std::sync::Arc;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use super::handlers;
use super::session::Session;

pub struct Backend {
    pub client: Client,
    pub session: Arc<Session>,
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        let session = Session::default();
        let cache = crate::index::cache::configured();
        if cache.is_some() {
            // What the index reads vouches for the diagnostics kept for the next start.
            session.index.record_reads();
        }
        session.index.use_cache(cache);
        Backend { client, session: Arc::new(session) }
    }

    pub fn session(&self) -> Arc<Session> {
        Arc::clone(&self.session)
    }

    /// `switchyard/preview` (registered as a custom method in `lsp::run_stdio`).
    pub async fn preview(&self, params: handlers::custom::PreviewParams) -> Result<Option<serde_json::Value>> {
        handlers::custom::preview(self, params).await
    }

    /// `switchyard/emittedTree` (registered as a custom method in `lsp::run_stdio`).
    pub async fn emitted_tree(&self, params: handlers::custom::EmittedTreeParams) -> Result<Option<serde_json::Value>> {
        handlers::custom::emitted_tree(self, params).await
    }

    /// `switchyard/routes` (registered as a custom method in `lsp::run_stdio`).
    pub async fn routes(&self, params: handlers::custom::RoutesParams) -> Result<handlers::custom::RoutesResult> {
        handlers::custom::routes(self, params).await
    }
}

// One line per method: the router reads as a table of contents.
#[rustfmt::skip]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> { handlers::lifecycle::initialize(self, params) }
    async fn initialized(&self, _: InitializedParams) { handlers::lifecycle::initialized(self).await }
    async fn shutdown(&self) -> Result<()> { handlers::lifecycle::shutdown(self) }

    async fn did_open(&self, params: DidOpenTextDocumentParams) { handlers::text_document::did_open(self, params).await }
    async fn did_change(&self, params: DidChangeTextDocumentParams) { handlers::text_document::did_change(self, params).await }
    async fn did_save(&self, params: DidSaveTextDocumentParams) { handlers::text_document::did_save(self, params).await }
    async fn did_close(&self, params: DidCloseTextDocumentParams) { handlers::text_document::did_close(self, params).await }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> { handlers::document_symbol::document_symbol(self, params).await }
    async fn symbol(&self, params: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> { handlers::workspace_symbol::symbol(self, params).await }
    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> { handlers::inlay_hint::inlay_hint(self, params).await }
    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> { handlers::hover::hover(self, params).await }
    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> { handlers::definition::definition(self, params).await }
    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> { handlers::definition::references(self, params).await }
    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> { handlers::code_action::code_action(self, params).await }
    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> { handlers::code_lens::code_lens(self, params).await }
    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> { handlers::completion::completion(self, params).await }
    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> { handlers::document_link::document_link(self, params).await }
    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> { handlers::code_lens::execute_command(self, params).await }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) { handlers::workspace::did_change_watched_files(self, params).await }
    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) { handlers::workspace::did_change_workspace_folders(self, params).await }
}

//! Publishing a file's diagnostics (`textDocument/publishDiagnostics`).

use std::sync::Arc;

use tower_lsp_server::Client;

use crate::ide::diagnostics::file_diagnostics;
use crate::lsp::convert;
use crate::rails::FileFacts;

/// Diagnostics to send, computed synchronously so the async part only sends.
pub struct Publish {
    pub uri: tower_lsp_server::ls_types::Uri,
    pub diagnostics: Vec<tower_lsp_server::ls_types::Diagnostic>,
    pub version: Option<i32>,
}

impl Publish {
    pub fn of(facts: &Arc<FileFacts>, version: Option<i32>) -> Option<Publish> {
        let uri = convert::uri_of(&facts.path)?;
        let diagnostics = file_diagnostics(facts).iter().map(|d| convert::diagnostic(&facts.line_index, d)).collect();
        Some(Publish { uri, diagnostics, version })
    }

    pub fn clear(path: &std::path::Path) -> Option<Publish> {
        Some(Publish { uri: convert::uri_of(path)?, diagnostics: Vec::new(), version: None })
    }

    pub async fn send(self, client: &Client) {
        client.publish_diagnostics(self.uri, self.diagnostics, self.version).await;
    }
}

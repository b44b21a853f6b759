//! What a position-based request needs: the file's facts, the byte offset of the position, and the
//! context of the app it belongs to, from one snapshot.

use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::ls_types::{Position, Uri};

use crate::app::AppContext;
use crate::index::Index;
use crate::lsp::convert;
use crate::lsp::session::{ContextCache, Session};
use crate::rails::FileFacts;

pub struct AtPosition {
    pub facts: Arc<FileFacts>,
    pub offset: usize,
    pub index: Arc<Index>,
    pub root: PathBuf,
    contexts: Arc<ContextCache>,
}

impl AtPosition {
    /// The app's context: whole-app work, for the blocking thread (built once per index generation).
    pub fn context(&self) -> Arc<AppContext> {
        self.contexts.get(&self.index, &self.root)
    }
}

/// Gathered synchronously with short locks; owned, so it moves to a blocking thread.
pub fn at_position(session: &Session, uri: &Uri, position: Position) -> Option<AtPosition> {
    let path = convert::path_of(uri)?;
    let facts = session.index.get(&path)?;
    let offset = convert::offset_in(&facts.line_index, position)?;
    let app = session.index.app_for(&path)?;
    Some(AtPosition { facts, offset, index: Arc::clone(&session.index), root: app.root, contexts: Arc::clone(&session.request_contexts) })
}

/// The context of the app at `root`, for handlers that do not start from a position.
pub fn app_context(session: &Session, root: PathBuf) -> impl FnOnce() -> Arc<AppContext> + Send + 'static {
    let index = Arc::clone(&session.index);
    let contexts = Arc::clone(&session.request_contexts);
    move || contexts.get(&index, &root)
}

pub fn location(target: &crate::ide::routes::Target) -> Option<tower_lsp_server::ls_types::Location> {
    Some(tower_lsp_server::ls_types::Location {
        uri: convert::uri_of(&target.file.path)?,
        range: convert::range(&target.file.line_index, target.span),
    })
}

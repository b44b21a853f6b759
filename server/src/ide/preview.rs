//! A file's built-in preview, from the index: its app's context, where it lands, its diagnostics.
//! The CLI (`switchyard preview`) and the server (`switchyard/preview`) both come here.

use std::path::Path;
use std::sync::Arc;

use crate::app::AppContext;
use crate::checks::{derived, file_diagnostics};
use crate::index::Index;
use crate::roundhouse::preview::{Preview, preview};
use crate::roundhouse::tree::{Target, map_file};

/// `None` when the file is not indexed or belongs to no Rails app. `text` is an open buffer's text; the
/// disk's is read otherwise. `context` is the app's context when the caller holds a current one (the
/// server caches it; building it walks every file of the app).
pub fn preview_file(index: &Index, path: &Path, text: Option<String>, target: Target, context: Option<Arc<AppContext>>) -> Option<Preview> {
    let app = index.app_for(path)?;
    let facts = index.get(path)?;
    let context = context.unwrap_or_else(|| Arc::new(AppContext::new(index, &app.root, &index.snapshot())));
    let entry = map_file(&facts, context.tree_facts());
    let diagnostics = file_diagnostics(&facts, &derived(&context, &facts), Some(&context.reading));
    let text = text.or_else(|| crate::files::read_source(path)).unwrap_or_default();
    Some(preview(&facts, &text, &context, &entry, &diagnostics, target))
}

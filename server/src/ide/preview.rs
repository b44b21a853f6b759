//! A file's built-in preview, from the index: its app's context, where it lands, its diagnostics.
//! The CLI (`switchyard preview`) and the server (`switchyard/preview`) both come here.

use std::path::Path;

use super::context::AppContext;
use super::diagnostics::{app_diagnostics, file_diagnostics};
use crate::index::Index;
use crate::roundhouse::preview::{Preview, preview};
use crate::roundhouse::tree::{AppFacts, Target, map_file};

/// `None` when the file is not indexed or belongs to no Rails app. `text` is an open buffer's text; the
/// disk's is read otherwise.
pub fn preview_file(index: &Index, path: &Path, text: Option<String>, target: Target) -> Option<Preview> {
    let app = index.app_for(path)?;
    let facts = index.get(path)?;
    let snapshot = index.snapshot();
    let context = AppContext::new(index, &app.root, &snapshot);
    let entry = map_file(&facts, &AppFacts::new(&context.files));
    let derived = app_diagnostics(&context);
    let diagnostics = file_diagnostics(&facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice));
    let text = text.or_else(|| std::fs::read_to_string(path).ok()).unwrap_or_default();
    Some(preview(&facts, &text, &context, &entry, &diagnostics, target))
}

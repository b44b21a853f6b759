//! The features as the editor asks for them (nil's `Analysis`): each request tries the features that
//! may answer it in one order, decided here, so the protocol handlers only convert.

use std::sync::Arc;

use super::nav;
use super::routes::{self, Hover, Target};
use crate::app::AppContext;
use crate::rails::FileFacts;

/// Whether every place in `targets` is in the index's newest copy of its file (or one read from the
/// same text): an answer worked out against a context older than an edit is still exact when it
/// lands in no file edited since.
pub fn current(index: &crate::index::Index, targets: &[Target]) -> bool {
    targets.iter().all(|t| {
        index
            .get(&t.file.path)
            .is_some_and(|newest| Arc::ptr_eq(&newest, &t.file) || (newest.text_hash == t.file.text_hash && newest.text_hash != 0))
    })
}

/// Go to definition: a route helper's route and action, else what navigation resolves the cursor to.
pub fn definition(context: &AppContext, facts: &FileFacts, offset: usize) -> Vec<Target> {
    let found = routes::definition(context, facts, offset);
    if !found.is_empty() {
        return found;
    }
    nav::definition(context, facts, offset)
}

/// Find references: a route's helper uses, else navigation's.
pub fn references(context: &AppContext, facts: &FileFacts, offset: usize, include_declaration: bool) -> Vec<Target> {
    let found = routes::references(context, facts, offset, include_declaration);
    if !found.is_empty() {
        return found;
    }
    nav::references(context, facts, offset, include_declaration)
}

/// Hover: a `switchyard:disable` comment, a route, then what the name under the cursor means to Rails
/// followed by what Roundhouse makes of its line (the preview slice), then a class's emitted file.
pub fn hover(
    context: &Arc<AppContext>,
    index: &crate::index::Index,
    facts: &FileFacts,
    text: Option<String>,
    offset: usize,
) -> Option<Hover> {
    if let Some(found) = super::diagnostics::suppression_hover(facts, offset).or_else(|| routes::hover(context, facts, offset)) {
        return Some(found);
    }
    let rails = nav::hover(context, facts, offset);
    let slice = super::inlay::hover_slice(context, index, facts, text, offset);
    let class = super::tree::class_hover(context, facts, offset);
    match (rails, slice, class) {
        (Some(rails), Some(slice), _) => {
            Some(Hover { markdown: format!("{}\n\n---\n\n{}", rails.markdown, slice.markdown), span: rails.span })
        }
        (Some(rails), None, _) => Some(rails),
        (None, Some(slice), _) => Some(slice),
        (None, None, Some(class)) => {
            // A model's own name: its table too.
            let model = facts.models.iter().find(|m| m.name_span == class.span);
            match model.and_then(|m| context.model(&m.class_name)) {
                Some(model) => {
                    Some(Hover { markdown: format!("{}\n\n---\n\n{}", nav::model_hover(context, model), class.markdown), span: class.span })
                }
                None => Some(class),
            }
        }
        (None, None, None) => None,
    }
}

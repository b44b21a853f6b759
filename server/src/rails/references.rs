//! References in Ruby code to things defined elsewhere in the app, read with `queries/ruby/references.scm`:
//! route helper calls, render calls, instance variables read, and receiver-less (helper) calls.
//! Resolution (does `post_path` name a route?) belongs to the layers that see the whole index.

use std::collections::BTreeSet;

use serde::Serialize;
use tree_sitter::Node;

use crate::syntax::outline::call_of;
use crate::syntax::queries::{self, capture};
use crate::syntax::{Span, text_of};

/// Rails' own `*_path`/`*_url` helpers, which are not named routes.
const BUILTIN_PATH_HELPERS: &[&str] = &[
    "asset_path", "asset_url", "audio_path", "audio_url", "font_path", "font_url", "image_path", "image_url",
    "javascript_path", "javascript_url", "stylesheet_path", "stylesheet_url", "video_path", "video_url",
    "polymorphic_path", "polymorphic_url", "compute_asset_path", "url_for", "full_url", "original_url",
    "rails_blob_path", "rails_blob_url", "rails_representation_path", "rails_representation_url",
    "rails_storage_proxy_path", "rails_storage_proxy_url",
];

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reference {
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenderCall {
    /// The first argument or the `partial:`/`template:`/`action:` option, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Option keys given (`locals`, `collection`, `status`…).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    pub span: Span,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct References {
    pub route_helpers: Vec<Reference>,
    pub renders: Vec<RenderCall>,
    /// Instance variables read (not only written), sorted.
    pub ivars_read: Vec<String>,
    /// Receiver-less calls, sorted and unique.
    pub helper_calls: Vec<String>,
}

pub fn extract(root: Node<'_>, text: &str) -> References {
    let mut references = References::default();
    let mut ivars = BTreeSet::new();
    let mut written = BTreeSet::new();
    let mut helpers = BTreeSet::new();
    let mut seen_helper_spans = BTreeSet::new();
    for m in queries::matches(&queries::REFERENCES, root, text) {
        if let Some(node) = capture(&m, "route_helper.name") {
            let name = text_of(node, text);
            if !BUILTIN_PATH_HELPERS.contains(&name) && seen_helper_spans.insert(node.start_byte()) {
                references.route_helpers.push(Reference { name: name.to_owned(), span: Span::of(node) });
            }
        } else if let Some(node) = capture(&m, "render.call") {
            if let Some(call) = call_of(node, text, "") {
                let target = call
                    .arguments
                    .first()
                    .map(|v| v.as_name().map_or_else(|| v.to_string(), str::to_owned))
                    .or_else(|| ["partial", "template", "action", "layout"].iter().find_map(|k| call.option(k)).map(|v| v.as_name().map_or_else(|| v.to_string(), str::to_owned)));
                let options = call.named_options().into_iter().map(|(k, _)| k).collect();
                references.renders.push(RenderCall { target, options, span: call.span });
            }
        } else if let Some(node) = capture(&m, "ivar.write") {
            written.insert((text_of(node, text).to_owned(), node.start_byte()));
        } else if let Some(node) = capture(&m, "ivar.reference") {
            ivars.insert((text_of(node, text).to_owned(), node.start_byte()));
        } else if let Some(node) = capture(&m, "helper.name") {
            helpers.insert(text_of(node, text).to_owned());
        }
    }
    references.route_helpers.sort_by_key(|r| r.span.start_byte);
    let read: BTreeSet<String> = ivars.difference(&written).map(|(name, _)| name.clone()).collect();
    references.ivars_read = read.into_iter().collect();
    references.helper_calls = helpers.into_iter().filter(|name| !references.route_helpers.iter().any(|r| r.name == *name)).collect();
    references
}

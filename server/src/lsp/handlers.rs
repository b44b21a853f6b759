//! One file per LSP method family.

pub mod code_action;
pub mod code_lens;
pub mod completion;
pub mod custom;
pub mod definition;
pub mod diagnostics;
pub mod document_link;
pub mod document_symbol;
pub mod exact;
pub mod hover;
pub mod inlay_hint;
pub mod lifecycle;
mod request;
pub mod text_document;
pub mod workspace;
pub mod workspace_symbol;

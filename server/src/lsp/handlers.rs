//! One file per LSP method family.

pub mod diagnostics;
pub mod document_symbol;
pub mod lifecycle;
pub mod text_document;
pub mod workspace;
pub mod workspace_symbol;

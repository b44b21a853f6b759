//! Switchyard: a static index of a Rails app and a language server over it, built for apps that are
//! compiled with Roundhouse.
//!
//! Layers (dependencies point one way): `lsp → ide → checks → app → index → roundhouse / rails →
//! syntax / document` (ARCHITECTURE.md has the map).
//! Only `lsp` knows the protocol; everything below speaks paths, byte spans and plain structs.

/// A rule id checked against the catalogue when the crate compiles: `rule!("syntax.for-loop")` (a
/// misspelt id does not build). Defined before the modules so that every one of them can use it.
macro_rules! rule {
    ($id:literal) => {{
        const ID: $crate::diagnostic::RuleId = $crate::catalogue::known($id);
        ID
    }};
}

pub mod app;
pub mod catalogue;
pub mod checks;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod document;
pub mod files;
pub mod ide;
pub mod index;
pub mod lanes;
pub mod lsp;
pub mod rails;
pub mod roundhouse;
pub mod syntax;
#[cfg(test)]
mod test_fixture;

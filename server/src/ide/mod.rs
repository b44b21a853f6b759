//! Features in editor terms — symbols, diagnostics — computed from the index with plain structs:
//! paths, spans, names. The `lsp` layer turns these into protocol types.

pub mod analysis;
pub mod completion;
pub mod diagnostics;
pub mod fixes;
pub mod inlay;
pub mod nav;
pub mod preview;
pub mod routes;
pub mod symbols;
pub mod tree;

/// The kinds of symbol the features produce; `lsp::convert` maps them onto the protocol's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    Module,
    Class,
    Method,
    /// Associations, columns.
    Field,
    /// Attributes, validations, config assignments.
    Property,
    /// Callbacks and filters.
    Event,
    /// Scopes.
    Function,
    Enum,
    Constant,
    /// Tables.
    Struct,
    /// Templates.
    File,
    /// Routes `namespace`/`scope`/`member`/`collection` blocks.
    Namespace,
    /// `include`/`extend` of a concern.
    Interface,
    /// Other class-body macros; indexes.
    Key,
}

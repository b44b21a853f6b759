//! Parsing: Ruby (tree-sitter-ruby) and ERB (tree-sitter-embedded-template plus a masked Ruby copy),
//! spans and line indexes, syntax-error extraction, compiled queries, and a generic Ruby outline.
//!
//! It knows Ruby and ERB, not Rails: `rails` interprets what this layer reads.

#[cfg(test)]
pub mod carets;
mod errors;
pub mod haml;
mod line_index;
pub mod outline;
pub mod parse;
pub mod value;

use serde::{Serialize, Serializer};
use tree_sitter::Node;

pub use errors::syntax_errors;
pub use line_index::{LineCol, LineIndex};
pub use parse::{Language, ParsedFile};

/// A byte range in a file plus its start/end points (0-based row, byte column), as tree-sitter reports
/// them. Serialized as `"line:col-line:col"`, 1-based, for index dumps that humans diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, bincode::Encode, bincode::Decode)]
pub struct Span {
    pub start_byte: usize,
    pub end_byte: usize,
    pub start: LineCol,
    pub end: LineCol,
}

impl Span {
    pub fn of(node: Node<'_>) -> Span {
        let (s, e) = (node.start_position(), node.end_position());
        Span {
            start_byte: node.start_byte(),
            end_byte: node.end_byte(),
            start: LineCol { line: s.row as u32, col: s.column as u32 },
            end: LineCol { line: e.row as u32, col: e.column as u32 },
        }
    }

    /// From the start of `first` to the end of `last`.
    pub fn cover(first: Node<'_>, last: Node<'_>) -> Span {
        let (a, b) = (Span::of(first), Span::of(last));
        Span { start_byte: a.start_byte, end_byte: b.end_byte, start: a.start, end: b.end }
    }

    pub fn contains(&self, offset: usize) -> bool {
        self.start_byte <= offset && offset <= self.end_byte
    }
}

impl Serialize for Span {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{}:{}-{}:{}", self.start.line + 1, self.start.col + 1, self.end.line + 1, self.end.col + 1))
    }
}

/// A node's child in a field, by name. `Node::child_by_field_name` finds the field's id by comparing
/// the name with each of the grammar's field names, on every call (a few percent of a cold index in
/// `perf`); `field` looks the Ruby grammar's ids up once. A node of another grammar asks tree-sitter.
pub trait FieldExt<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

/// The Ruby grammar's field count (which tells its nodes from other grammars') and ids by name.
static RUBY_FIELDS: std::sync::LazyLock<(usize, std::collections::HashMap<String, u16>)> = std::sync::LazyLock::new(|| {
    let language: tree_sitter::Language = tree_sitter_ruby::LANGUAGE.into();
    let count = language.field_count();
    let ids = (1..=count as u16).filter_map(|id| Some((language.field_name_for_id(id)?.to_owned(), id))).collect();
    (count, ids)
});

impl<'t> FieldExt<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        let (count, ids) = &*RUBY_FIELDS;
        if self.language().field_count() == *count
            && let Some(&id) = ids.get(name)
        {
            return self.child_by_field_id(id);
        }
        self.child_by_field_name(name)
    }
}

/// The source text of a node; empty when the node's range is not valid UTF-8 boundaries in `text`.
pub fn text_of<'a>(node: Node<'_>, text: &'a str) -> &'a str {
    text.get(node.byte_range()).unwrap_or("")
}

/// The node of one of `kinds` at `span` (the smallest one covering it).
pub fn enclosing<'t>(tree: &'t tree_sitter::Tree, span: Span, kinds: &[&str]) -> Option<tree_sitter::Node<'t>> {
    let mut node = tree.root_node().descendant_for_byte_range(span.start_byte, span.end_byte)?;
    loop {
        if kinds.contains(&node.kind()) {
            return Some(node);
        }
        node = node.parent()?;
    }
}

/// Calls `visit` on every node under `root` (itself included), in document order: one `TreeCursor`
/// walk, no recursion and no allocation.
pub fn for_each_node<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        visit(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() || cursor.node() == root {
                return;
            }
        }
    }
}

/// `for_each_node`, handing each node its parent too (`None` for `root`): the walk knows it, where
/// `Node::parent` searches down from the tree's root on every call.
pub fn for_each_node_with_parent<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, Option<Node<'t>>)) {
    let mut cursor = root.walk();
    let mut parents: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        visit(node, parents.last().copied());
        if cursor.goto_first_child() {
            parents.push(node);
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() || cursor.node() == root {
                return;
            }
            parents.pop();
        }
    }
}

/// Where the `do` of a trailing block opener starts in `code` (`… do`, `… do |x|`, `foo(a) do`; also a
/// bare `do`): the `do` must follow whitespace or `)`, or start the code.
pub fn trailing_do(code: &str) -> Option<usize> {
    let before = without_block_params(code).strip_suffix("do")?;
    (before.is_empty() || before.ends_with(|c: char| c.is_whitespace() || c == ')')).then_some(before.len())
}

/// `code` end-trimmed, without the `|params|` of a block it opens (`each do |x|` → `each do`).
pub fn without_block_params(code: &str) -> &str {
    let code = code.trim_end();
    match code.strip_suffix('|').and_then(|before| before.rfind('|').map(|open| &before[..open])) {
        Some(before) => before.trim_end(),
        None => code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_hands_each_node_its_parent() {
        let text = "class A\n  def f(x, y = 1) = [x, y].map { |z| z + 1 }\nend\n";
        let parsed = ParsedFile::parse(Language::Ruby, text);
        let tree = parsed.ruby.unwrap();
        let mut seen = 0;
        for_each_node_with_parent(tree.root_node(), |node, parent| {
            assert_eq!(parent, node.parent().filter(|_| node != tree.root_node()), "{}", node.kind());
            seen += 1;
        });
        let mut all = 0;
        for_each_node(tree.root_node(), |_| all += 1);
        assert!(seen > 20 && seen == all, "{seen} of {all}");
        // Below a subtree's root, the parents are those of the whole tree.
        let method = tree.root_node().named_child(0).unwrap().child_by_field_name("body").unwrap().named_child(0).unwrap();
        for_each_node_with_parent(method, |node, parent| {
            assert_eq!(parent, if node == method { None } else { node.parent() });
        });
    }
}

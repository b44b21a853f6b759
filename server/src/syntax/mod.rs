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
///
/// Offsets are `u32`, as tree-sitter's own are: every fact holds spans (an outline's call two and one
/// per argument), and 24 bytes instead of 32 is a quarter less of each (a file is at most
/// `files::MAX_SOURCE`, far below 4 GiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, bincode::Encode, bincode::Decode)]
pub struct Span {
    pub start_byte: u32,
    pub end_byte: u32,
    pub start: LineCol,
    pub end: LineCol,
}

impl Span {
    pub fn of(node: Node<'_>) -> Span {
        let (s, e) = (node.start_position(), node.end_position());
        Span {
            start_byte: node.start_byte() as u32,
            end_byte: node.end_byte() as u32,
            start: LineCol { line: s.row as u32, col: s.column as u32 },
            end: LineCol { line: e.row as u32, col: e.column as u32 },
        }
    }

    /// From the start of `first` to the end of `last`.
    pub fn cover(first: Node<'_>, last: Node<'_>) -> Span {
        let (a, b) = (Span::of(first), Span::of(last));
        Span { start_byte: a.start_byte, end_byte: b.end_byte, start: a.start, end: b.end }
    }

    /// The part of this span on its first line of `text`.
    pub fn first_line(self, text: &str) -> Span {
        let start = self.start_byte as usize;
        match text.get(start..self.end_byte as usize).and_then(|t| t.find('\n')) {
            Some(newline) => Span {
                end_byte: (start + newline) as u32,
                end: LineCol { line: self.start.line, col: self.start.col + newline as u32 },
                ..self
            },
            None => self,
        }
    }

    pub fn contains(&self, offset: usize) -> bool {
        self.start() <= offset && offset <= self.end()
    }

    /// The first byte, as an index into the file's text.
    pub fn start(&self) -> usize {
        self.start_byte as usize
    }

    /// The byte after the last, as an index into the file's text.
    pub fn end(&self) -> usize {
        self.end_byte as usize
    }

    /// The bytes covered, to index the file's text with.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start()..self.end()
    }
}

impl Serialize for Span {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("{}:{}-{}:{}", self.start.line + 1, self.start.col + 1, self.end.line + 1, self.end.col + 1))
    }
}

/// What the Ruby grammar's nodes are asked most, answered from tables made once. A node of another
/// grammar (ERB, HTML, YAML) asks tree-sitter.
///
/// - `field`: `Node::child_by_field_name` finds the field's id by comparing the name with each of the
///   grammar's field names, on every call (a few percent of a cold index in `perf`); the names
///   extraction uses are found without a comparison at run time (`known_fields`).
/// - `kind_name`: `Node::kind` measures the grammar's name for the kind with `strlen` and checks it
///   is UTF-8, on every call; extraction asks it of every node, often several times (a tenth of a
///   cold index). Clippy refuses `Node::kind` (`clippy.toml`).
pub trait NodeExt<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>>;
    /// The node's kind, as `Node::kind` names it (an alias's name for an aliased node).
    fn kind_name(&self) -> &'t str;
}

/// The fields extraction names (as literals, all but the syntax patterns'), each with its place in
/// `RubyGrammar::known`: where `field` is inlined with one of them, the comparisons fold to that
/// place, and the id is one load where a hash of the name was.
macro_rules! known_fields {
    ($($name:literal),* $(,)?) => {
        const KNOWN_FIELDS: &[&str] = &[$($name),*];

        #[inline(always)]
        fn known_field(name: &str) -> Option<usize> {
            let mut slot = 0;
            $(
                if name == $name {
                    return Some(slot);
                }
                slot += 1;
            )*
            let _ = slot;
            None
        }
    };
}

known_fields!(
    "alternative",
    "arguments",
    "block",
    "body",
    "condition",
    "consequence",
    "key",
    "left",
    "method",
    "name",
    "operand",
    "operator",
    "parameters",
    "pattern",
    "receiver",
    "right",
    "superclass",
    "value",
);

/// The Ruby grammar, and its fields' ids and kinds' names.
struct RubyGrammar {
    /// The grammar's address, which tells its nodes from other grammars'.
    language: usize,
    fields: std::collections::HashMap<&'static str, u16>,
    /// The ids of `KNOWN_FIELDS`, in their order.
    known: Vec<u16>,
    /// By kind id: `Node::kind_id` is the id of the first kind of the same name (the grammar's public
    /// symbol), so the name is the one `Node::kind` gives.
    kinds: Vec<&'static str>,
}

static RUBY: std::sync::LazyLock<RubyGrammar> = std::sync::LazyLock::new(|| {
    // Kept for the process's life, so the names it hands out are `'static`.
    let language: &'static tree_sitter::Language = Box::leak(Box::new(tree_sitter_ruby::LANGUAGE.into()));
    let fields = (1..=language.field_count() as u16).filter_map(|id| Some((language.field_name_for_id(id)?, id))).collect();
    let kinds = (0..language.node_kind_count() as u16).map(|id| language.node_kind_for_id(id).unwrap_or("")).collect();
    let known = KNOWN_FIELDS.iter().map(|name| language.field_id_for_name(name).map_or(0, u16::from)).collect();
    // SAFETY: `into_raw` hands back the grammar's static `TSLanguage`, the one every Ruby tree points to.
    let address = unsafe { tree_sitter_ruby::LANGUAGE.into_raw()() } as usize;
    RubyGrammar { language: address, fields, known, kinds }
});

fn is_ruby(node: &Node<'_>) -> bool {
    // SAFETY: `ts_node_language` reads the tree's language pointer; the node is alive for the call.
    (unsafe { tree_sitter::ffi::ts_node_language(node.into_raw()) }) as usize == RUBY.language
}

impl<'t> NodeExt<'t> for Node<'t> {
    #[inline]
    fn field(&self, name: &str) -> Option<Node<'t>> {
        if is_ruby(self) {
            let id = match known_field(name) {
                Some(slot) => RUBY.known.get(slot).copied(),
                None => RUBY.fields.get(name).copied(),
            };
            if let Some(id) = id.filter(|&id| id != 0) {
                return self.child_by_field_id(id);
            }
        }
        self.child_by_field_name(name)
    }

    #[allow(clippy::disallowed_methods)] // the one place `Node::kind` is asked
    fn kind_name(&self) -> &'t str {
        match RUBY.kinds.get(usize::from(self.kind_id())) {
            Some(name) if is_ruby(self) => name,
            // Another grammar's, or an ERROR node (its id is past the grammar's kinds).
            _ => self.kind(),
        }
    }
}

/// The source text of a node; empty when the node's range is not valid UTF-8 boundaries in `text`.
/// Ruby's reserved words.
const RUBY_KEYWORDS: &[&str] = &[
    "BEGIN",
    "END",
    "alias",
    "and",
    "begin",
    "break",
    "case",
    "class",
    "def",
    "defined?",
    "do",
    "else",
    "elsif",
    "end",
    "ensure",
    "false",
    "for",
    "if",
    "in",
    "module",
    "next",
    "nil",
    "not",
    "or",
    "redo",
    "rescue",
    "retry",
    "return",
    "self",
    "super",
    "then",
    "true",
    "undef",
    "unless",
    "until",
    "when",
    "while",
    "yield",
    "__FILE__",
    "__LINE__",
    "__ENCODING__",
];

/// Whether `name` is a Ruby keyword, which cannot name a local or a parameter.
/// A call's arguments, split at the commas outside brackets and strings.
pub fn split_arguments(text: &str) -> Vec<&str> {
    let (mut depth, mut quote, mut start, mut out) = (0i32, None::<char>, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(text[start..].trim());
    }
    out
}

pub fn is_ruby_keyword(name: &str) -> bool {
    RUBY_KEYWORDS.contains(&name)
}

pub fn text_of<'a>(node: Node<'_>, text: &'a str) -> &'a str {
    text.get(node.byte_range()).unwrap_or("")
}

/// The node of one of `kinds` at `span` (the smallest one covering it).
pub fn enclosing<'t>(tree: &'t tree_sitter::Tree, span: Span, kinds: &[&str]) -> Option<tree_sitter::Node<'t>> {
    let mut node = tree.root_node().descendant_for_byte_range(span.start(), span.end())?;
    loop {
        if kinds.contains(&node.kind_name()) {
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

/// The nodes whose identifiers a method, block or lambda binds as parameters (all of a list's, a
/// default's or a splat's name only).
const PARAMETER_KINDS: &[&str] = &[
    "method_parameters",
    "lambda_parameters",
    "block_parameters",
    "optional_parameter",
    "keyword_parameter",
    "splat_parameter",
    "hash_splat_parameter",
    "block_parameter",
    "destructured_parameter",
];

/// Whether `node`, a child of `parent`, is a parameter's name being bound: `x` in `|x, (y, z)|`,
/// `def f(x = default, key: value, *rest)`, not the names in a default value.
pub fn is_parameter_name(node: Node<'_>, parent: Node<'_>) -> bool {
    PARAMETER_KINDS.contains(&parent.kind_name()) && parent.field("name").is_none_or(|name| name == node)
}

/// `for_each_node`, handing each node its parent too (`None` for `root`) and its depth below `root`:
/// the walk knows them, where `Node::parent` searches down from the tree's root on every call.
pub fn for_each_node_with_parent<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, Option<Node<'t>>, usize)) {
    let mut cursor = root.walk();
    let mut parents: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        visit(node, parents.last().copied(), parents.len());
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

    /// `kind_name` and `field` answer as tree-sitter does for every node of the bundled example's
    /// Ruby and templates, and of broken code (ERROR and MISSING nodes), aliased kinds included.
    #[test]
    #[allow(clippy::disallowed_methods)]
    fn the_grammar_tables_answer_as_tree_sitter_does() {
        let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/blog");
        let mut texts: Vec<(Language, String)> = vec![
            (
                Language::Ruby,
                "class A < B\n  def f(a, *b, **c, &d) = a&.b(*b, **c) { |x, (y, z)| x }\n  x = <<~SQL\n    #{1}\n  SQL\nend\n".into(),
            ),
            (Language::Ruby, "class Broken\n  def f(\n  has_many :x, ->(y) { y.where(z: 1) }\n".into()),
            (Language::Ruby, "if x then y elsif z; w else v end; foo[1] ||= 2; a, *b = c; case d in [e, *] then e end".into()),
            (Language::Erb, "<% if x %><%= link_to 'a', b %><% end %><%# c %><%- d -%>".into()),
        ];
        let mut stack = vec![example];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if let Some(language) =
                    crate::rails::project::language_of(&path).filter(|l| matches!(l, Language::Ruby | Language::Erb))
                {
                    texts.push((language, std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
        let fields: Vec<&str> = RUBY.fields.keys().copied().collect();
        for name in KNOWN_FIELDS {
            assert!(fields.contains(name), "{name} is no field of the Ruby grammar");
        }
        let (mut nodes, mut erb_nodes, mut errors) = (0, 0, 0);
        for (language, text) in &texts {
            let parsed = ParsedFile::parse(*language, text);
            let trees = parsed.ruby.iter().chain(parsed.erb.iter());
            for tree in trees {
                for_each_node(tree.root_node(), |node| {
                    assert_eq!(node.kind_name(), node.kind(), "at {:?}", node.start_position());
                    for field in &fields {
                        assert_eq!(node.field(field), node.child_by_field_name(field), "{} of {}", field, node.kind());
                    }
                    nodes += 1;
                    erb_nodes += usize::from(!is_ruby(&node));
                    errors += usize::from(node.is_error() || node.is_missing());
                });
            }
        }
        assert!(nodes > 3_000 && erb_nodes > 100 && errors > 0, "{nodes} nodes, {erb_nodes} of ERB, {errors} ERROR or MISSING");
    }

    #[test]
    fn the_walk_hands_each_node_its_parent() {
        let text = "class A\n  def f(x, y = 1) = [x, y].map { |z| z + 1 }\nend\n";
        let parsed = ParsedFile::parse(Language::Ruby, text);
        let tree = parsed.ruby.unwrap();
        let mut seen = 0;
        for_each_node_with_parent(tree.root_node(), |node, parent, _| {
            assert_eq!(parent, node.parent().filter(|_| node != tree.root_node()), "{}", node.kind_name());
            seen += 1;
        });
        let mut all = 0;
        for_each_node(tree.root_node(), |_| all += 1);
        assert!(seen > 20 && seen == all, "{seen} of {all}");
        // Below a subtree's root, the parents are those of the whole tree.
        let method = tree.root_node().named_child(0).unwrap().child_by_field_name("body").unwrap().named_child(0).unwrap();
        for_each_node_with_parent(method, |node, parent, _| {
            assert_eq!(parent, if node == method { None } else { node.parent() });
        });
    }
}

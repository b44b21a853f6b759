//! Parsing files into trees, incrementally when the previous parse is at hand.
//!
//! Every layer remembers the exact text it was parsed from. A reparse diffs the old and new layer
//! texts (common prefix and suffix) into one `InputEdit`, edits the old tree and reparses with it. That
//! one mechanism is right for the plain Ruby layer, for the masked Ruby copy of an ERB template (where
//! typing `<%` changes bytes far from the edit) and for the `&` grammar-bug rewrite, which changes a few
//! bytes after the fact.

use super::NodeExt;
use std::cell::RefCell;

use tree_sitter::{InputEdit, Parser, Point, Range, Tree};

/// How a file is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, bincode::Encode, bincode::Decode)]
pub enum Language {
    /// `.rb`, `.rake`, `.jbuilder`, `.builder`, `.ruby`, `Gemfile`…
    Ruby,
    /// `.erb`: ERB layer plus a masked Ruby copy.
    Erb,
    /// `.haml`: a masked Ruby copy of its code (`syntax::haml`), without block structure.
    Haml,
    /// Other template engines (`.slim`, `.rabl`): recognized, not parsed.
    OtherTemplate,
    /// YAML: a test fixture (`test/fixtures/*.yml`, read line by line by `roundhouse::fixtures`) or a
    /// locale file (`rails::i18n`); no tree.
    Yaml,
    /// A database's SQL dump (`db/structure.sql`), read by `rails::structure_sql`; no tree.
    Sql,
    /// A deployment file that is not Ruby (`Gemfile.lock`, `Procfile`, `Dockerfile`), read line by
    /// line by `rails::deploy`; no tree.
    Text,
}

impl Language {
    pub fn is_template(self) -> bool {
        !matches!(self, Language::Ruby)
    }
}

/// The trees of one file. `ruby` is the Ruby tree: of the file itself, or of the masked copy of an
/// ERB or HAML template (positions map 1:1 to the template).
pub struct ParsedFile {
    pub language: Language,
    pub ruby: Option<Tree>,
    pub erb: Option<Tree>,
    ruby_input: Option<String>,
    erb_input: Option<String>,
    /// A HAML template's code ranges.
    haml_code: Vec<std::ops::Range<usize>>,
    /// Set when the file is not read: too large to parse, or its Ruby tree nested deeper than
    /// [`MAX_NESTING`] (the tree is then dropped, so no reader recurses into it).
    pub skipped: Option<Skipped>,
}

/// Why a file's text has no trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skipped {
    /// Longer than [`MAX_PARSED`] bytes: not parsed at all.
    TooLarge { len: usize },
    /// How deep the walk went and where it crossed the limit.
    TooDeep { depth: usize, offset: usize },
    /// More than [`MAX_TOKENS`] tokens of code (`token_estimate`): not parsed at all.
    TooCostly { tokens: usize },
}

/// The longest text parsed: an open document may be any size (a 50 MB generated file), and its
/// parse, facts and findings would take seconds per keystroke. The disk's limit is the same
/// (`files::MAX_SOURCE`).
pub const MAX_PARSED: usize = 8 << 20;

/// The most tokens (`token_estimate`) a file parsed as code may hold. What a parse, its facts and
/// Prism's judgement cost grows with the tokens, not the bytes: a 7.8 MB `X = [1,1,…]` is four
/// million nodes (30 s and 3.4 GB in a release build), where 8 MB of prose is a few thousand; a file
/// of 500,000 tokens of `x=1` lines cost 1.8 s per keystroke and 490 MB, one of 250,000 about half
/// (BENCHMARKS.md). Real files stay under: the most of 28 public Rails apps is an ERB template of an
/// inline SVG at about 127,000 (its text counts as if it were code), then Ruby files at 68,000.
pub const MAX_TOKENS: usize = 250_000;

/// About how many tokens `text` holds, in one pass over its bytes: each run of word characters
/// (letters, digits, `_`, anything not ASCII) and each other visible character. Never fewer than the
/// leaves a parse of it would have.
pub fn token_estimate(text: &str) -> usize {
    let mut count = 0;
    let mut in_word = false;
    for &byte in text.as_bytes() {
        let word = byte.is_ascii_alphanumeric() || byte == b'_' || byte >= 0x80;
        count += usize::from(if word { !in_word } else { !byte.is_ascii_whitespace() });
        in_word = word;
    }
    count
}

/// How deep (in tree nodes) a file's Ruby may nest. The readers of a tree recurse with it, and one
/// file nested ten thousand levels would overflow any thread's stack; real code stays under 50
/// (the deepest file of five public Rails apps, 1,500 files the largest: 38).
pub const MAX_NESTING: usize = 1000;

/// The stack of every thread that reads trees (the CLI's, the async runtime's, the thread pools'):
/// a tree [`MAX_NESTING`] deep takes about 8 MiB to read in a debug build (a `do` block is
/// three levels and 25 KiB of frames). Only the pages used are ever committed.
pub const STACK_SIZE: usize = 64 << 20;

thread_local! {
    static RUBY_PARSER: RefCell<Option<Parser>> = RefCell::new(new_parser(&tree_sitter_ruby::LANGUAGE.into()));
    static ERB_PARSER: RefCell<Option<Parser>> =
        RefCell::new(new_parser(&tree_sitter_embedded_template::LANGUAGE.into()));
}

fn new_parser(language: &tree_sitter::Language) -> Option<Parser> {
    let mut parser = Parser::new();
    match parser.set_language(language) {
        Ok(()) => Some(parser),
        Err(error) => {
            tracing::error!("tree-sitter grammar rejected: {error}");
            None
        }
    }
}

impl ParsedFile {
    /// Parses `text` from scratch.
    pub fn parse(language: Language, text: &str) -> ParsedFile {
        ParsedFile::reparse(language, text, None)
    }

    /// Parses `text`, reusing `previous` (the parse of an earlier version of the same file).
    pub fn reparse(language: Language, text: &str, previous: Option<&ParsedFile>) -> ParsedFile {
        let unread = |skipped: Skipped| {
            let mut parsed = ParsedFile::reparse_unbounded(Language::OtherTemplate, "", None);
            parsed.language = language;
            parsed.skipped = Some(skipped);
            parsed
        };
        if text.len() > MAX_PARSED {
            return unread(Skipped::TooLarge { len: text.len() });
        }
        if matches!(language, Language::Ruby | Language::Erb | Language::Haml) {
            let tokens = token_estimate(text);
            if tokens > MAX_TOKENS {
                return unread(Skipped::TooCostly { tokens });
            }
        }
        let mut parsed = ParsedFile::reparse_unbounded(language, text, previous);
        if let Some(tree) = &parsed.ruby {
            let (depth, offset) = nesting_depth(tree, MAX_NESTING);
            if depth > MAX_NESTING {
                parsed.ruby = None;
                parsed.ruby_input = None;
                parsed.skipped = Some(Skipped::TooDeep { depth, offset });
            }
        }
        parsed
    }

    fn reparse_unbounded(language: Language, text: &str, previous: Option<&ParsedFile>) -> ParsedFile {
        let previous = previous.filter(|p| p.language == language);
        match language {
            Language::Ruby => {
                let old = previous.and_then(|p| Some((p.ruby.as_ref()?, p.ruby_input.as_deref()?)));
                let (ruby, ruby_input) = parse_ruby_layer(text.to_owned(), old);
                ParsedFile { language, ruby, erb: None, ruby_input, erb_input: None, haml_code: Vec::new(), skipped: None }
            }
            Language::Erb => {
                let old_erb = previous.and_then(|p| Some((p.erb.as_ref()?, p.erb_input.as_deref()?)));
                let erb = ERB_PARSER.with(|p| incremental(&mut p.borrow_mut(), text, old_erb));
                let Some(erb) = erb else {
                    return ParsedFile {
                        language,
                        ruby: None,
                        erb: None,
                        ruby_input: None,
                        erb_input: None,
                        haml_code: Vec::new(),
                        skipped: None,
                    };
                };
                let code_ranges = erb_code_ranges(&erb);
                if code_ranges.is_empty() {
                    // No Ruby at all: nothing to parse.
                    return ParsedFile {
                        language,
                        ruby: None,
                        erb: Some(erb),
                        ruby_input: None,
                        erb_input: Some(text.to_owned()),
                        haml_code: Vec::new(),
                        skipped: None,
                    };
                }
                let masked = mask_template(text, &erb);
                let old_ruby = previous.and_then(|p| Some((p.ruby.as_ref()?, p.ruby_input.as_deref()?)));
                let (mut ruby, mut ruby_input) = parse_ruby_layer(masked, old_ruby);
                if ruby.as_ref().is_some_and(|t| t.root_node().has_error())
                    && let Some(fallback) = parse_included_ranges(text, &code_ranges)
                    && error_count(&fallback) < ruby.as_ref().map_or(usize::MAX, error_count)
                {
                    // The fallback tree was parsed from the template text itself with included
                    // ranges; it cannot be diffed against, so the next parse starts afresh.
                    ruby = Some(fallback);
                    ruby_input = None;
                }
                ParsedFile {
                    language,
                    ruby,
                    erb: Some(erb),
                    ruby_input,
                    erb_input: Some(text.to_owned()),
                    haml_code: Vec::new(),
                    skipped: None,
                }
            }
            Language::Haml => {
                let (masked, haml_code) = super::haml::mask(text);
                if haml_code.is_empty() {
                    return ParsedFile { language, ruby: None, erb: None, ruby_input: None, erb_input: None, haml_code, skipped: None };
                }
                let old_ruby = previous.and_then(|p| Some((p.ruby.as_ref()?, p.ruby_input.as_deref()?)));
                let (ruby, ruby_input) = parse_ruby_layer(masked, old_ruby);
                ParsedFile { language, ruby, erb: None, ruby_input, erb_input: None, haml_code, skipped: None }
            }
            Language::OtherTemplate | Language::Yaml | Language::Sql | Language::Text => {
                ParsedFile { language, ruby: None, erb: None, ruby_input: None, erb_input: None, haml_code: Vec::new(), skipped: None }
            }
        }
    }

    /// Whether `offset` is in Ruby code: anywhere in a Ruby file; inside a tag's code in a template.
    pub fn in_ruby_code(&self, offset: usize) -> bool {
        match (self.language, &self.erb) {
            (Language::Ruby, _) => true,
            (Language::Erb, Some(erb)) => erb_code_ranges(erb).iter().any(|r| r.start_byte <= offset && offset <= r.end_byte),
            (Language::Haml, _) => self.haml_code.iter().any(|r| r.start <= offset && offset <= r.end),
            _ => false,
        }
    }

    /// The text the Ruby tree's nodes should be read from: for ERB, the masked copy (same length as the
    /// template, code bytes identical) so a node's text never includes template markup.
    pub fn ruby_text<'a>(&'a self, source: &'a str) -> &'a str {
        match self.language {
            Language::Erb | Language::Haml => self.ruby_input.as_deref().unwrap_or(source),
            _ => source,
        }
    }
}

/// Parses (a possibly masked) Ruby text; applies the `&` workaround when the tree has errors.
fn parse_ruby_layer(input: String, old: Option<(&Tree, &str)>) -> (Option<Tree>, Option<String>) {
    let tree = RUBY_PARSER.with(|p| incremental(&mut p.borrow_mut(), &input, old));
    let Some(tree) = tree else { return (None, None) };
    if tree.root_node().has_error()
        && let Some(rewritten) = rewrite_bare_block_pass(&input)
    {
        let retry = RUBY_PARSER.with(|p| incremental(&mut p.borrow_mut(), &rewritten, Some((&tree, &input))));
        if let Some(retry) = retry
            && error_count(&retry) < error_count(&tree)
        {
            return (Some(retry), Some(rewritten));
        }
    }
    (Some(tree), Some(input))
}

fn incremental(parser: &mut Option<Parser>, text: &str, old: Option<(&Tree, &str)>) -> Option<Tree> {
    let parser = parser.as_mut()?;
    let mut edited;
    let old_tree = match old {
        Some((tree, old_text)) if old_text == text => return Some(tree.clone()),
        Some((tree, old_text)) => {
            edited = tree.clone();
            edited.edit(&diff_edit(old_text, text));
            Some(&edited)
        }
        None => None,
    };
    let tree = parser.parse(text, old_tree).or_else(|| {
        parser.reset();
        parser.parse(text, None)
    })?;
    // Error recovery depends on the old tree: a broken text parsed incrementally can come out unlike
    // the same text parsed fresh (found by the `incremental` fuzz target), and then an edited
    // document's findings unlike a reopened one's. A tree with errors is parsed again from scratch,
    // up to a size where that stays a few milliseconds a keystroke (the largest file of five public
    // apps is 0.3 MB); a larger broken file keeps its incremental recovery until it parses.
    if old_tree.is_some() && tree.root_node().has_error() && text.len() <= FRESH_RECOVERY {
        parser.reset();
        return parser.parse(text, None).or(Some(tree));
    }
    Some(tree)
}

/// See `incremental`.
const FRESH_RECOVERY: usize = 512 << 10;

/// The single edit that turns `old` into `new`: everything between their common prefix and suffix.
pub fn diff_edit(old: &str, new: &str) -> InputEdit {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a.iter().rev().zip(b.iter().rev()).take(max_suffix).take_while(|(x, y)| x == y).count();
    let start_byte = prefix;
    let old_end_byte = a.len() - suffix;
    let new_end_byte = b.len() - suffix;
    InputEdit {
        start_byte,
        old_end_byte,
        new_end_byte,
        start_position: point_at(a, start_byte),
        old_end_position: point_at(a, old_end_byte),
        new_end_position: point_at(b, new_end_byte),
    }
}

fn point_at(text: &[u8], offset: usize) -> Point {
    let before = &text[..offset];
    let row = before.iter().filter(|&&c| c == b'\n').count();
    let column = before.iter().rev().take_while(|&&c| c != b'\n').count();
    Point { row, column }
}

/// tree-sitter-ruby bug (#290): a bare `&` ending an unparenthesized argument list is an ERROR.
/// Rewrites ` &` at the end of a line to `&b` (same length, same lines) so it parses as a block pass.
fn rewrite_bare_block_pass(text: &str) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    let mut changed = false;
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let b = content.as_bytes();
        if b.len() >= 2 && b[b.len() - 1] == b'&' && matches!(b[b.len() - 2], b' ' | b'\t') {
            let amp = line_start + b.len() - 1;
            bytes[amp - 1] = b'&';
            bytes[amp] = b'b';
            changed = true;
        }
        line_start += line.len();
    }
    // Only ASCII bytes were replaced by ASCII bytes, so the text is still UTF-8.
    changed.then(|| String::from_utf8(bytes).ok()).flatten()
}

fn error_count(tree: &Tree) -> usize {
    let mut count = 0;
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() && !node.is_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    count
}

/// Byte ranges of the Ruby code in an ERB tree (`<% %>`, `<%= %>`, `<%- -%>`…; not comments).
fn erb_code_ranges(erb: &Tree) -> Vec<Range> {
    let root = erb.root_node();
    let mut cursor = root.walk();
    let mut ranges = Vec::new();
    for directive in root.children(&mut cursor) {
        if matches!(directive.kind_name(), "directive" | "output_directive") {
            let mut inner = directive.walk();
            for child in directive.children(&mut inner) {
                if child.kind_name() == "code" {
                    ranges.push(child.range());
                }
            }
        }
    }
    ranges
}

/// A same-length copy of the template: code bytes kept, everything else blanked (newlines kept), and
/// a `;` over the first byte of each closing delimiter so `<%= a %><%= b %>` reads `a ; b ;`.
pub fn mask_template(text: &str, erb: &Tree) -> String {
    let source = text.as_bytes();
    let mut masked: Vec<u8> = source.iter().map(|&c| if c == b'\n' || c == b'\r' { c } else { b' ' }).collect();
    let root = erb.root_node();
    let mut cursor = root.walk();
    for directive in root.children(&mut cursor) {
        if !matches!(directive.kind_name(), "directive" | "output_directive") {
            continue;
        }
        let mut inner = directive.walk();
        let mut saw_code = false;
        for child in directive.children(&mut inner) {
            if child.kind_name() == "code" {
                masked[child.byte_range()].copy_from_slice(&source[child.byte_range()]);
                saw_code = true;
            } else if saw_code && !child.is_named() && child.kind_name().ends_with("%>") && child.start_byte() < masked.len() {
                masked[child.start_byte()] = b';';
            }
        }
    }
    // Code bytes are whole characters and everything else became ASCII: still UTF-8.
    String::from_utf8(masked).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn parse_included_ranges(text: &str, ranges: &[Range]) -> Option<Tree> {
    RUBY_PARSER.with(|p| {
        let mut guard = p.borrow_mut();
        let parser = guard.as_mut()?;
        parser.set_included_ranges(ranges).ok()?;
        let tree = parser.parse(text, None);
        let _ = parser.set_included_ranges(&[]);
        tree
    })
}

/// How deep `tree` nests, counted in nodes, as far as `limit` (then `limit + 1` and where the
/// walk crossed it). Subtrees of fewer than [`SMALL_SUBTREE`] bytes are not entered: a subtree
/// nests at most a few levels per byte, so what they hide is bounded and the walk visits a small
/// share of the nodes.
pub fn nesting_depth(tree: &Tree, limit: usize) -> (usize, usize) {
    let mut cursor = tree.walk();
    let mut depth = 0;
    let mut deepest = 0;
    loop {
        let node = cursor.node();
        let enter = node.end_byte() - node.start_byte() >= SMALL_SUBTREE;
        if enter && cursor.goto_first_child() {
            depth += 1;
            if depth > deepest {
                deepest = depth;
                if deepest > limit {
                    return (deepest, cursor.node().start_byte());
                }
            }
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return (deepest, 0);
            }
            depth -= 1;
        }
    }
}

/// See [`nesting_depth`]: such a subtree hides at most a few hundred levels.
const SMALL_SUBTREE: usize = 128;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_deeper_than_the_limit_is_dropped_and_says_where() {
        let shallow = format!("x = {}1{}", "[".repeat(100), "]".repeat(100));
        let parsed = ParsedFile::parse(Language::Ruby, &shallow);
        assert!(parsed.ruby.is_some() && parsed.skipped.is_none());
        let deep = format!("x = {}1{}", "[".repeat(5000), "]".repeat(5000));
        let parsed = ParsedFile::parse(Language::Ruby, &deep);
        let Some(Skipped::TooDeep { depth, offset }) = parsed.skipped else { panic!("not too deep: {:?}", parsed.skipped) };
        assert!(parsed.ruby.is_none());
        assert!(depth > MAX_NESTING && (4..5000).contains(&offset), "{depth} {offset}");
        // A masked template copy is held to the same limit.
        let erb = "<% if a %>\n".repeat(2000) + &"<% end %>\n".repeat(2000);
        assert!(ParsedFile::parse(Language::Erb, &erb).skipped.is_some());
    }

    #[test]
    fn bare_block_pass_parses_after_rewrite() {
        let text = "module M\n  def x(&)\n    tag.div class: \"x\", &\n  end\nend\n";
        let parsed = ParsedFile::parse(Language::Ruby, text);
        let tree = parsed.ruby.unwrap();
        assert!(!tree.root_node().has_error(), "{}", tree.root_node().to_sexp());
        assert_eq!(tree.root_node().end_byte(), text.len());
    }

    #[test]
    fn masked_template_separates_adjacent_tags() {
        let text = "<p><%= a %><%= b %></p>\n<%# note %>\n<% if c %>x<% end %>\n";
        let parsed = ParsedFile::parse(Language::Erb, text);
        assert_eq!(parsed.ruby_text(text), "       a ;     b ;     \n           \n   if c ;     end ; \n");
        assert!(!parsed.ruby.unwrap().root_node().has_error());
    }

    #[test]
    fn diff_edit_finds_the_changed_middle() {
        let edit = diff_edit("abc\ndef", "abc\ndXef");
        assert_eq!((edit.start_byte, edit.old_end_byte, edit.new_end_byte), (5, 5, 6));
        assert_eq!(edit.start_position, Point { row: 1, column: 1 });
    }
}

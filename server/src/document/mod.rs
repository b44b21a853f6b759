//! Open documents: the rope the editor's edits are applied to, the text as of the last notification,
//! and its trees, reparsed incrementally after every change.
//!
//! Positions arrive here as byte offsets; converting the protocol's UTF-16 positions is `lsp::convert`'s
//! job, done against this rope between the changes of one notification (each change is relative to
//! the text the previous one produced).

use std::path::PathBuf;

use ropey::Rope;

use crate::syntax::{Language, ParsedFile};

pub struct Document {
    pub path: PathBuf,
    pub version: i32,
    pub language: Language,
    pub rope: Rope,
    /// The text as of the last `commit`, which the trees were parsed from.
    pub text: String,
    pub parsed: ParsedFile,
    /// Set when a change did not fit the text held (a range outside it): the client's text and
    /// ours may differ until the next save brings the editor's text (`didSave`).
    pub diverged: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncError {
    /// A change's range lies outside the document: client and server disagree about its text.
    RangeOutOfBounds,
}

impl Document {
    pub fn new(path: PathBuf, version: i32, language: Language, text: String) -> Document {
        let parsed = ParsedFile::parse(language, &text);
        Document { path, version, language, rope: Rope::from_str(&text), text, parsed, diverged: false }
    }

    /// Replaces the bytes `start..end` of the rope with `new_text`. Call `commit` after the last change
    /// of a notification.
    pub fn replace(&mut self, start: usize, end: usize, new_text: &str) -> Result<(), SyncError> {
        let len = self.rope.len_bytes();
        if start > end || end > len {
            return Err(SyncError::RangeOutOfBounds);
        }
        let (start_char, end_char) = (self.rope.try_byte_to_char(start), self.rope.try_byte_to_char(end));
        let (Ok(start_char), Ok(end_char)) = (start_char, end_char) else { return Err(SyncError::RangeOutOfBounds) };
        self.rope.remove(start_char..end_char);
        self.rope.insert(start_char, new_text);
        Ok(())
    }

    /// Replaces the whole text.
    pub fn replace_all(&mut self, new_text: &str) {
        self.rope = Rope::from_str(new_text);
    }

    /// Takes the rope's text as the document's text at `version` and reparses incrementally.
    pub fn commit(&mut self, version: i32) {
        // Into the old text's buffer: no reallocation, no fresh pages (a 50 MB document costs a copy).
        let mut text = std::mem::take(&mut self.text);
        text.clear();
        text.reserve(self.rope.len_bytes());
        self.rope.chunks().for_each(|chunk| text.push_str(chunk));
        self.parsed = ParsedFile::reparse(self.language, &text, Some(&self.parsed));
        self.text = text;
        self.version = version;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so edit sequences are reproducible without a dependency.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, bound: usize) -> usize {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % bound.max(1)
        }
    }

    fn char_boundary(text: &str, mut offset: usize) -> usize {
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }

    fn assert_same_as_fresh(doc: &Document) {
        let fresh = ParsedFile::parse(doc.language, &doc.text);
        let sexp = |p: &ParsedFile| (p.ruby.as_ref().map(|t| t.root_node().to_sexp()), p.erb.as_ref().map(|t| t.root_node().to_sexp()));
        assert_eq!(sexp(&doc.parsed), sexp(&fresh), "incremental parse differs from a fresh parse of:\n{}", doc.text);
    }

    const SNIPPETS: &[&str] = &[
        "has_many :tags\n",
        "é",
        "😀",
        "\r\n",
        "def x(&)\n  y a, &\nend\n",
        " do |f| ",
        "end\n",
        "(",
        "\"#{",
        "<%= ",
        " %>",
        "<% end %>",
        "",
        "\n",
        "  ",
    ];

    fn random_edits(language: Language, initial: &str, seed: u64) {
        let mut rng = Lcg(seed);
        let mut doc = Document::new(PathBuf::from("x"), 1, language, initial.to_owned());
        let mut expected = initial.to_owned();
        for step in 0..150 {
            // One notification holds one to three changes.
            for _ in 0..=rng.next(3) {
                let len = expected.len();
                let start = char_boundary(&expected, rng.next(len + 1));
                let end = char_boundary(&expected, (start + rng.next(8)).min(len));
                let insert = SNIPPETS[rng.next(SNIPPETS.len())];
                doc.replace(start, end, insert).unwrap();
                expected.replace_range(start..end, insert);
            }
            doc.commit(step + 2);
            assert_eq!(doc.text, expected);
            assert_same_as_fresh(&doc);
        }
    }

    #[test]
    fn incremental_ruby_edits_equal_a_fresh_parse() {
        let model = "class Post < ApplicationRecord\r\n  belongs_to :author # café ☕\n  scope :recent, -> { order(created_at: :desc) }\n  def title = \"😀 #{name}\"\nend\n";
        for seed in 1..=4 {
            random_edits(Language::Ruby, model, seed);
        }
    }

    #[test]
    fn incremental_erb_edits_equal_a_fresh_parse() {
        let template = "<h1><%= @post.title %> — é</h1>\n<% @post.tags.each do |tag| %>\r\n  <%= link_to tag.name, tag_path(tag) %><%= 😀 %>\n<% end %>\n";
        for seed in 1..=4 {
            random_edits(Language::Erb, template, seed);
        }
    }

    #[test]
    fn out_of_bounds_change_is_refused() {
        let mut doc = Document::new(PathBuf::from("x"), 1, Language::Ruby, "a = 1\n".to_owned());
        assert_eq!(doc.replace(3, 99, "x"), Err(SyncError::RangeOutOfBounds));
    }
}

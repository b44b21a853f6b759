//! An ERB template as Roundhouse compiles it: one Ruby program that appends each piece of text and
//! each output tag to a buffer (`_buf = _buf + (expr).to_s`), with code tags copied as they are.
//! Rails (Erubi) compiles the same template differently, so a template Rails renders can be one
//! Roundhouse cannot read: its Ruby is judged here as the compiler builds it, with a map from each
//! piece of the program back to the template.
//!
//! The compiler's reading, measured against it (fixtures `views-*.fixture`):
//! - text is a double-quoted string literal with only `"`, `\`, newlines, carriage returns and tabs
//!   escaped: `#{…}` and `#@x` in plain text are Ruby interpolation to it;
//! - `<%= expr %>` appends `(expr).to_s` after the expression's text, so a trailing `# comment` or
//!   a `=` before `%>` swallows or breaks the closing parenthesis; `<%== %>` is the same;
//! - `<%= … do %>` / `<%= … { %>` (a block opener by its text) leaves the parenthesis open, and the
//!   next `<% end %>` (or `<% end if … %>`) by its text closes it with `end).to_s`: block openers are
//!   counted by text (`if`, `unless`, `while`, `until`, `for`, `case`, `begin`, `class`, `def`,
//!   `module` first, or `do`/`{` last), so one it does not count pairs the `end` wrongly; `<% } %>`
//!   closes nothing;
//! - `<%# … %>` is dropped; `-%>` and `<%-` trim as Erubi does;
//! - a `<%` with no `%>` is no template at all (the compiler crashes: `views.unterminated-tag`).

use std::ops::Range;

/// A piece of the compiled program and the template bytes it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub compiled: Range<usize>,
    pub template: Range<usize>,
    /// Text (a string literal), as opposed to a tag's Ruby copied byte for byte.
    pub text: bool,
}

/// The program Roundhouse builds from an ERB template, and where each piece came from.
#[derive(Debug, Default)]
pub struct Compiled {
    pub ruby: String,
    pub segments: Vec<Segment>,
    /// HAML: each tag's inline Ruby (`%td= post.user.name`), by its range in the template, and the
    /// Ruby line of the block it is in (`- @posts.each do |post|`): where the compiler places what
    /// it finds in that Ruby (its `missing_preload` reads). Empty for ERB.
    pub anchors: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
}

impl Compiled {
    /// Where the compiler places a finding at template offset `offset`: the Ruby line of the block
    /// around a HAML tag's inline Ruby (`anchors`), else nowhere else.
    pub fn anchor(&self, offset: usize) -> Option<std::ops::Range<usize>> {
        self.anchors.iter().find(|(inline, _)| inline.start <= offset && offset < inline.end).map(|(_, line)| line.clone())
    }

    /// The template offset of a program offset: exact inside a tag's Ruby, the start of the text
    /// for an offset inside a text literal; the nearest piece before it otherwise.
    pub fn template_offset(&self, offset: usize) -> usize {
        let i = self.segments.partition_point(|s| s.compiled.start <= offset);
        let Some(segment) = i.checked_sub(1).map(|i| &self.segments[i]) else {
            return self.segments.first().map_or(0, |s| s.template.start);
        };
        // Between pieces (the program's own `_buf = _buf + (`): the piece it leads to.
        if offset > segment.compiled.end
            && let Some(next) = self.segments.get(i)
        {
            return next.template.start;
        }
        if segment.text {
            return segment.template.start;
        }
        let inside = offset.saturating_sub(segment.compiled.start).min(segment.template.len());
        segment.template.start + inside
    }

    /// The template offset of a program offset inside a text literal: the literal is the text with
    /// `"`, `\`, newlines, carriage returns and tabs escaped, so the text is walked character by
    /// character until its escaped length reaches the offset.
    pub fn text_offset(&self, segment: &Segment, offset: usize, source: &str) -> usize {
        let target = offset.saturating_sub(segment.compiled.start + 1);
        let text = source.get(segment.template.clone()).unwrap_or("");
        let mut written = 0;
        for (at, c) in text.char_indices() {
            if written >= target {
                return segment.template.start + at;
            }
            written += match c {
                '"' | '\\' | '\n' | '\r' | '\t' => 2,
                c => c.len_utf8(),
            };
        }
        segment.template.end
    }

    /// The template offset of any program offset: inside a text literal, the same character of the
    /// text (`text_offset`); elsewhere `template_offset`.
    pub fn place(&self, offset: usize, source: &str) -> usize {
        match self.text_segment(offset) {
            Some(segment) => self.text_offset(segment, offset, source),
            None => self.template_offset(offset),
        }
    }

    /// The text literal a program offset is inside, if any.
    pub fn text_segment(&self, offset: usize) -> Option<&Segment> {
        let i = self.segments.partition_point(|s| s.compiled.start <= offset);
        i.checked_sub(1).map(|i| &self.segments[i]).filter(|s| s.text && offset < s.compiled.end)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opened {
    /// An output tag's block: its `end` closes the parenthesis too.
    Output,
    /// A code tag's block.
    Code,
}

/// Text waiting to be appended, and the template bytes it spans.
#[derive(Default)]
struct Pending {
    text: String,
    range: Option<Range<usize>>,
}

impl Pending {
    fn push(&mut self, text: &str, at: Range<usize>) {
        if text.is_empty() {
            return;
        }
        self.text.push_str(text);
        self.range = Some(self.range.as_ref().map_or(at.start, |r| r.start)..at.end);
    }

    fn clear(&mut self) {
        self.text.clear();
        self.range = None;
    }

    fn flush(&mut self, out: &mut Compiled) {
        let Some(range) = self.range.take() else {
            self.text.clear();
            return;
        };
        if self.text.is_empty() {
            return;
        }
        out.ruby.push_str("_buf = _buf + ");
        let start = out.ruby.len();
        out.ruby.push('"');
        for c in self.text.chars() {
            match c {
                '"' => out.ruby.push_str("\\\""),
                '\\' => out.ruby.push_str("\\\\"),
                '\n' => out.ruby.push_str("\\n"),
                '\r' => out.ruby.push_str("\\r"),
                '\t' => out.ruby.push_str("\\t"),
                c => out.ruby.push(c),
            }
        }
        out.ruby.push('"');
        out.segments.push(Segment { compiled: start..out.ruby.len(), template: range, text: true });
        out.ruby.push('\n');
        self.text.clear();
    }
}

/// Whether a tag's Ruby opens a block by its last word: `do` (after a space or `)`), `do |x|`, `{`,
/// `{ |x|`.
pub fn opens_block(code: &str) -> bool {
    let code = code.trim_end();
    let head = match code.strip_suffix('|') {
        Some(without) => match without.rfind('|') {
            Some(bar) => without[..bar].trim_end(),
            None => return false,
        },
        None => code,
    };
    if head.ends_with('{') || head == "do" {
        return true;
    }
    head.strip_suffix("do").is_some_and(|before| before.chars().next_back().is_some_and(|c| c.is_whitespace() || c == ')'))
}

/// Whether a code tag opens a block Roundhouse counts: a keyword first, or a block opener last.
fn opens_counted(code: &str) -> bool {
    let code = code.trim();
    if code.is_empty() {
        return false;
    }
    const KEYWORDS: &[&str] = &["if", "unless", "while", "until", "for", "case", "begin", "class", "def", "module"];
    KEYWORDS.iter().any(|k| code == *k || code.strip_prefix(k).is_some_and(|rest| rest.starts_with([' ', '(']))) || opens_block(code)
}

/// `end`, or `end if …` / `unless` / `while` / `until`: the modifier, if the tag is one.
fn closes(code: &str) -> Option<&str> {
    if code == "end" {
        return Some("");
    }
    let rest = code.strip_prefix("end")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start();
    ["if ", "unless ", "while ", "until "].iter().any(|k| rest.starts_with(k)).then_some(rest)
}

/// The program Roundhouse builds from `source`, or `None` when a `<%` is never closed.
pub fn compile(source: &str) -> Option<Compiled> {
    let bytes = source.as_bytes();
    let mut out = Compiled { ruby: "_buf = \"\"\n".to_owned(), segments: Vec::new(), anchors: Vec::new() };
    let mut opened: Vec<Opened> = Vec::new();
    let mut pending = Pending::default();
    let mut cursor = 0;
    let mut at_line_start = true;
    while cursor < bytes.len() {
        let Some(open) = memchr::memmem::find(&bytes[cursor..], b"<%").map(|i| cursor + i) else {
            pending.push(&source[cursor..], cursor..source.len());
            break;
        };
        pending.push(&source[cursor..open], cursor..open);
        let output = bytes.get(open + 2) == Some(&b'=');
        let raw = output && bytes.get(open + 3) == Some(&b'=');
        let comment = !output && bytes.get(open + 2) == Some(&b'#');
        let trim_open = !output && !comment && bytes.get(open + 2) == Some(&b'-');
        let body_start = open
            + if raw {
                4
            } else if output || trim_open {
                3
            } else {
                2
            };
        let close = memchr::memmem::find(bytes.get(body_start..)?, b"%>").map(|i| body_start + i)?;
        let body = &source[body_start..close];
        let tail_dash = body.ends_with('-');
        let body = body.strip_suffix('-').unwrap_or(body);
        let ruby = body.trim();
        let after = close + 2;
        // The line's end after the tag (spaces, tabs, a carriage return, a newline), if nothing else.
        let right = {
            let mut j = after;
            while matches!(bytes.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            if bytes.get(j) == Some(&b'\r') {
                j += 1;
            }
            (bytes.get(j) == Some(&b'\n')).then(|| j + 1 - after)
        };
        // The indentation before a code tag alone on its line.
        let left = if output {
            None
        } else if pending.text.is_empty() {
            at_line_start.then_some(0)
        } else if pending.text.ends_with('\n') {
            Some(0)
        } else {
            let blank = |s: &str| s.bytes().all(|b| b == b' ' || b == b'\t');
            match pending.text.rfind('\n') {
                Some(newline) => {
                    let tail = &pending.text[newline + 1..];
                    blank(tail).then_some(tail.len())
                }
                None => (at_line_start && blank(&pending.text)).then_some(pending.text.len()),
            }
        };
        let trims = left.is_some() && right.is_some();
        if let (true, Some(left)) = (trims, left) {
            let keep = pending.text.len() - left;
            pending.text.truncate(keep);
            if pending.text.is_empty() {
                pending.range = None;
            }
        }
        at_line_start = right.is_some();
        let lead = body.len() - body.trim_start().len();
        let code_at = body_start + lead;
        let copy = |out: &mut Compiled, code: &str| {
            let start = out.ruby.len();
            out.ruby.push_str(code);
            out.segments.push(Segment { compiled: start..out.ruby.len(), template: code_at..code_at + code.len(), text: false });
        };
        if comment {
        } else if output {
            pending.flush(&mut out);
            out.ruby.push_str("_buf = _buf + (");
            copy(&mut out, ruby);
            if opens_block(ruby) {
                out.ruby.push('\n');
                opened.push(Opened::Output);
            } else {
                out.ruby.push_str(").to_s\n");
            }
        } else if let Some(modifier) = closes(ruby) {
            pending.flush(&mut out);
            copy(&mut out, "end");
            if !modifier.is_empty() {
                out.ruby.push(' ');
                out.ruby.push_str(modifier);
            }
            if opened.pop() == Some(Opened::Output) {
                out.ruby.push_str(").to_s");
            }
            out.ruby.push('\n');
        } else {
            if (ruby.starts_with("when ") || ruby.starts_with("in ")) && pending.text.bytes().all(|b| b.is_ascii_whitespace()) {
                pending.clear();
            }
            pending.flush(&mut out);
            copy(&mut out, ruby);
            out.ruby.push('\n');
            if opens_counted(ruby) {
                opened.push(Opened::Code);
            }
        }
        cursor = after;
        if trims || (output && tail_dash) {
            cursor += right.unwrap_or(0);
        }
    }
    pending.flush(&mut out);
    out.ruby.push_str("_buf\n");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_tags_become_one_program() {
        let compiled = compile("<ul>\n  <% @posts.each do |post| %>\n    <li><%= post.title %></li>\n  <% end %>\n</ul>\n").unwrap();
        expect_test::expect![[r#"
            _buf = ""
            _buf = _buf + "<ul>\n"
            @posts.each do |post|
            _buf = _buf + "    <li>"
            _buf = _buf + (post.title).to_s
            _buf = _buf + "</li>\n"
            end
            _buf = _buf + "</ul>\n"
            _buf
        "#]]
        .assert_eq(&compiled.ruby);
        let title = compiled.ruby.find("post.title").unwrap();
        assert_eq!(compiled.template_offset(title), "<ul>\n  <% @posts.each do |post| %>\n    <li><%= ".len());
    }

    #[test]
    fn output_blocks_close_with_the_parenthesis() {
        let compiled = compile("<%= form_with model: @post do |f| %>\n  <%= f.text_field :title %>\n<% end %>\n").unwrap();
        assert!(compiled.ruby.contains("_buf = _buf + (form_with model: @post do |f|\n"), "{}", compiled.ruby);
        assert!(compiled.ruby.contains("end).to_s\n"), "{}", compiled.ruby);
    }

    #[test]
    fn a_comment_in_an_output_tag_swallows_the_parenthesis() {
        let compiled = compile("<%= link_to \"x\", y # the link %>\n").unwrap();
        assert!(compiled.ruby.contains("(link_to \"x\", y # the link).to_s"), "{}", compiled.ruby);
    }

    #[test]
    fn an_unterminated_tag_is_no_program() {
        assert!(compile("<p><%= title </p>").is_none());
    }
}

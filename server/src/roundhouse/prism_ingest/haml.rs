//! A HAML template as Roundhouse compiles it: the same kind of program as an ERB template's
//! (`erb`), built line by line against a stack of open elements and blocks that close when the
//! indentation drops. Roundhouse reads a subset of HAML, and reads some of the rest differently from
//! the `haml` gem; this builds the program it builds, so that its Ruby is judged as the compiler
//! judges it.
//!
//! The compiler's reading, measured against it (fixtures `views-haml-*.fixture`):
//! - `= expr` and `%tag= expr` append `(expr` and `).to_s` on the next line; `== text` and
//!   `%tag== text` are not read as interpolated text but as `(= text`, which does not parse;
//! - `= expr do |x|` / `- expr do |x|` / `- if …` open a block closed with `end` (`end).to_s`) when the
//!   indentation drops; `else`, `elsif`, `when`, `in`, `rescue`, `ensure` continue it; blocks are
//!   recognised by the same text rules as ERB's (a brace block opened on a line is closed with
//!   `end`, which does not parse);
//! - only a trailing comma joins a Ruby line with the next one;
//! - `%tag{…}` attributes on one line are Ruby (`render_attrs`); an attribute hash over several lines,
//!   `(…)` attributes and object references are text;
//! - plain text is a double-quoted string: `#{…}` and `#@x` are Ruby interpolation;
//! - `:ruby` is Ruby; other filters and `-#` comments are dropped with their children.

use super::erb::{Compiled, Segment, opens_block};

const VOID_ELEMENTS: &[&str] =
    &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"];

/// How an open frame ends when the indentation drops to it.
enum Close {
    Tag(String),
    End,
    OutputEnd,
    Text(&'static str),
    Nothing,
}

#[derive(PartialEq)]
enum Children {
    Read,
    /// `:ruby`: each more indented line is Ruby.
    Ruby,
    /// A comment or an unread filter: dropped.
    Dropped,
}

struct Frame {
    indent: usize,
    close: Close,
    children: Children,
    /// A Ruby block, which `else` and the like continue.
    block: bool,
    /// The Ruby of the `-`/`=` line that opened it, in the template.
    line: Option<std::ops::Range<usize>>,
}

struct Builder {
    out: Compiled,
    stack: Vec<Frame>,
}

/// `else`, `elsif`, `when`, `in`, `rescue`, `ensure`: a block's middle, not its end.
fn continues_block(code: &str) -> bool {
    let head = code.trim_start();
    ["else", "elsif", "when", "in", "rescue", "ensure"].iter().any(|k| head == *k || head.starts_with(&format!("{k} ")))
}

/// A silent line that opens a block Roundhouse counts: a keyword first, or `do`/`{` last.
fn opens_counted(code: &str) -> bool {
    let code = code.trim();
    const KEYWORDS: &[&str] = &["if", "unless", "while", "until", "for", "case", "begin", "class", "def", "module"];
    !code.is_empty()
        && (KEYWORDS.iter().any(|k| code == *k || code.strip_prefix(k).is_some_and(|rest| rest.starts_with([' ', '('])))
            || opens_block(code))
}

/// Whether a line's Ruby may go on on the next line (after a trailing comma).
fn ruby_line(content: &str) -> bool {
    match content.as_bytes().first() {
        Some(b'=' | b'~') => true,
        Some(b'-') => !content.starts_with("-#"),
        Some(b'&') => content.starts_with("&="),
        Some(b'!') => content.starts_with("!="),
        Some(b'%' | b'.' | b'#') => content.contains("= "),
        _ => false,
    }
}

fn tag_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':')
}

fn name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_')
}

/// Whether an attribute body reads as `key: value` pairs (a comma, `=>` or `key: ` outside brackets).
fn hash_pairs(body: &str) -> bool {
    let bytes = body.as_bytes();
    let (mut depth, mut quote, mut i) = (0i32, None::<u8>, 0);
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(q) = quote {
            if b == b'\\' {
                i += 2;
                continue;
            }
            if b == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match b {
            b'\'' | b'"' => quote = Some(b),
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => return true,
            b'=' if depth == 0 && bytes.get(i + 1) == Some(&b'>') => return true,
            b':' if depth == 0 && (i == 0 || bytes[i - 1] != b':') && bytes.get(i + 1).is_none_or(|&n| n == b' ') => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

impl Builder {
    fn text(&mut self, text: &str) {
        self.text_at(text, None);
    }

    fn text_at(&mut self, text: &str, at: Option<std::ops::Range<usize>>) {
        self.out.ruby.push_str("_buf = _buf + ");
        let start = self.out.ruby.len();
        self.out.ruby.push('"');
        for c in text.chars() {
            match c {
                '"' => self.out.ruby.push_str("\\\""),
                '\\' => self.out.ruby.push_str("\\\\"),
                '\n' => self.out.ruby.push_str("\\n"),
                '\r' => self.out.ruby.push_str("\\r"),
                '\t' => self.out.ruby.push_str("\\t"),
                c => self.out.ruby.push(c),
            }
        }
        self.out.ruby.push('"');
        if let Some(at) = at {
            self.out.segments.push(Segment { compiled: start..self.out.ruby.len(), template: at, text: true });
        }
        self.out.ruby.push('\n');
    }

    /// Ruby copied from the template at `at` (the first line's, when joined lines make it longer).
    fn code(&mut self, code: &str, at: usize) {
        let start = self.out.ruby.len();
        self.out.ruby.push_str(code);
        self.out.segments.push(Segment { compiled: start..self.out.ruby.len(), template: at..at + code.len(), text: false });
    }

    fn close_to(&mut self, indent: usize, middle: bool) {
        while let Some(top) = self.stack.last() {
            if top.indent < indent || (middle && top.indent == indent && top.block) {
                break;
            }
            let frame = self.stack.pop().expect("a frame");
            self.close(&frame);
        }
    }

    fn close(&mut self, frame: &Frame) {
        match &frame.close {
            Close::Tag(tag) => self.text(&format!("</{tag}>")),
            Close::End => self.out.ruby.push_str("end\n"),
            Close::OutputEnd => self.out.ruby.push_str("end).to_s\n"),
            Close::Text(text) => self.text(text),
            Close::Nothing => {}
        }
    }

    fn push(&mut self, indent: usize, close: Close, children: Children, block: bool) {
        self.stack.push(Frame { indent, close, children, block, line: None });
    }

    /// A frame opened by a Ruby line, whose code is at `line` in the template.
    fn push_ruby(&mut self, indent: usize, close: Close, block: bool, line: std::ops::Range<usize>) {
        self.stack.push(Frame { indent, close, children: Children::Read, block, line: Some(line) });
    }

    fn line(&mut self, content: &str, indent: usize, at: usize) {
        if content.starts_with("-#") {
            self.push(indent, Close::Nothing, Children::Dropped, false);
            return;
        }
        let first = content.as_bytes()[0];
        match first {
            b'!' if content.starts_with("!!!") => self.text("<!DOCTYPE html>\n"),
            b'/' => {
                self.text("<!--");
                let rest = content[1..].trim();
                if !rest.is_empty() {
                    self.text(&format!(" {rest}"));
                }
                self.push(indent, Close::Text(" -->"), Children::Read, false);
            }
            b':' => {
                let children = if content[1..].trim() == "ruby" { Children::Ruby } else { Children::Dropped };
                self.push(indent, Close::Nothing, children, false);
            }
            b'=' | b'~' => self.output(&content[1..], indent, at + 1),
            b'&' if content.starts_with("&=") => self.output(&content[2..], indent, at + 2),
            b'!' if content.starts_with("!=") => self.output(&content[2..], indent, at + 2),
            b'-' => self.silent(&content[1..], indent, at + 1),
            b'%' => self.element(content, indent, at),
            b'.' | b'#' if content.as_bytes().get(1).is_some_and(|&b| name_char(b)) => self.element(content, indent, at),
            b'\\' => self.text_at(content, Some(at + 1..at + content.len())),
            _ => self.text_at(content, Some(at..at + content.len())),
        }
    }

    fn output(&mut self, expression: &str, indent: usize, at: usize) {
        let lead = expression.len() - expression.trim_start().len();
        let expression = expression.trim();
        self.out.ruby.push_str("_buf = _buf + (");
        self.code(expression, at + lead);
        if opens_block(expression) {
            self.out.ruby.push('\n');
            self.push_ruby(indent, Close::OutputEnd, false, at + lead..at + lead + expression.len());
        } else {
            self.out.ruby.push_str("\n).to_s\n");
        }
    }

    fn silent(&mut self, code: &str, indent: usize, at: usize) {
        let lead = code.len() - code.trim_start().len();
        let code = code.trim_start();
        self.code(code, at + lead);
        self.out.ruby.push('\n');
        if !continues_block(code) && opens_counted(code) {
            self.push_ruby(indent, Close::End, true, at + lead..at + lead + code.trim_end().len());
        }
    }

    fn element(&mut self, content: &str, indent: usize, at: usize) {
        let bytes = content.as_bytes();
        let mut pos = 0;
        let mut tag = String::new();
        if bytes[0] == b'%' {
            pos = 1;
            while pos < bytes.len() && tag_char(bytes[pos]) {
                tag.push(bytes[pos] as char);
                pos += 1;
            }
        }
        if tag.is_empty() {
            tag.push_str("div");
        }
        let (mut classes, mut id) = (Vec::new(), None);
        while pos < bytes.len() && matches!(bytes[pos], b'.' | b'#') {
            let kind = bytes[pos];
            pos += 1;
            let start = pos;
            while pos < bytes.len() && name_char(bytes[pos]) {
                pos += 1;
            }
            if kind == b'.' {
                classes.push(&content[start..pos]);
            } else {
                id = Some(&content[start..pos]);
            }
        }
        // Attributes: a brace on this line, closed on it (quotes are not looked at).
        let mut attributes = None;
        if bytes.get(pos) == Some(&b'{') {
            let mut depth = 0;
            let close = (pos..bytes.len()).find(|&i| {
                match bytes[i] {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    _ => {}
                }
                depth == 0
            });
            if let Some(close) = close {
                attributes = Some((pos + 1, close));
                pos = close + 1;
            }
        }
        let mut self_closing = false;
        while pos < bytes.len() {
            match bytes[pos] {
                b'/' => self_closing = true,
                b'<' | b'>' => {}
                _ => break,
            }
            pos += 1;
        }
        match attributes {
            None => {
                let mut open = format!("<{tag}");
                if !classes.is_empty() {
                    open.push_str(&format!(" class=\"{}\"", classes.join(" ")));
                }
                if let Some(id) = id {
                    open.push_str(&format!(" id=\"{id}\""));
                }
                open.push('>');
                self.text(&open);
            }
            Some((start, end)) => {
                self.text(&format!("<{tag}"));
                let body = content[start..end].trim();
                let mut shortcuts = String::new();
                if !classes.is_empty() && !body.contains("class:") {
                    shortcuts.push_str(&format!("class: {:?}, ", classes.join(" ")));
                }
                if let Some(id) = id.filter(|_| !body.contains("id:")) {
                    shortcuts.push_str(&format!("id: {id:?}, "));
                }
                let lead = content[start..end].len() - content[start..end].trim_start().len();
                self.out.ruby.push_str("_buf = _buf + (render_attrs(");
                if hash_pairs(body) {
                    self.out.ruby.push_str("{ ");
                    self.out.ruby.push_str(&shortcuts);
                    self.code(body, at + start + lead);
                    self.out.ruby.push_str(" }");
                } else if shortcuts.is_empty() {
                    self.code(body, at + start + lead);
                } else {
                    self.out.ruby.push_str("{ ");
                    self.out.ruby.push_str(shortcuts.trim_end().trim_end_matches(','));
                    self.out.ruby.push_str(" }.merge(");
                    self.code(body, at + start + lead);
                    self.out.ruby.push(')');
                }
                self.out.ruby.push_str(")).to_s\n");
                self.text(">");
            }
        }
        if self_closing || VOID_ELEMENTS.contains(&tag.as_str()) {
            return;
        }
        let rest = &content[pos..];
        let trimmed = rest.trim_start();
        let rest_at = at + pos + (rest.len() - trimmed.len());
        if trimmed.is_empty() {
            self.push(indent, Close::Tag(tag), Children::Read, false);
            return;
        }
        let inline = trimmed.strip_prefix("!=").map(|e| (e, 2)).or_else(|| trimmed.strip_prefix('=').map(|e| (e, 1)));
        if let Some((expression, skip)) = inline {
            let lead = expression.len() - expression.trim_start().len();
            self.out.ruby.push_str("_buf = _buf + (");
            let start = rest_at + skip + lead;
            if let Some(line) = self.stack.iter().rev().find_map(|f| f.line.clone()) {
                self.out.anchors.push((start..start + expression.trim().len(), line));
            }
            self.code(expression.trim(), start);
            self.out.ruby.push_str("\n).to_s\n");
        } else {
            self.text_at(trimmed, Some(rest_at..rest_at + trimmed.len()));
        }
        self.text(&format!("</{tag}>"));
    }
}

/// The program Roundhouse builds from a HAML template.
pub fn compile(source: &str) -> Compiled {
    let mut builder =
        Builder { out: Compiled { ruby: "_buf = \"\"\n".to_owned(), segments: Vec::new(), anchors: Vec::new() }, stack: Vec::new() };
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut start = 0;
    for (i, b) in source.bytes().enumerate() {
        if b == b'\n' {
            lines.push((start, &source[start..i]));
            start = i + 1;
        }
    }
    if start < source.len() {
        lines.push((start, &source[start..]));
    }
    let mut i = 0;
    while i < lines.len() {
        let (line_start, line) = lines[i];
        i += 1;
        let content = line.trim_start();
        if content.is_empty() {
            continue;
        }
        let indent = line.len() - content.len();
        if let Some(top) = builder.stack.last()
            && top.children != Children::Read
            && indent > top.indent
        {
            if top.children == Children::Ruby {
                builder.code(content, line_start + indent);
                builder.out.ruby.push('\n');
            }
            continue;
        }
        let mut content = content.to_owned();
        if ruby_line(&content) {
            while content.trim_end().ends_with(',') && i < lines.len() {
                content.push(' ');
                content.push_str(lines[i].1.trim_start());
                i += 1;
            }
        }
        let middle = content.starts_with('-') && continues_block(content.trim_start_matches('-').trim_start());
        builder.close_to(indent, middle);
        builder.line(&content, indent, line_start + indent);
    }
    while let Some(frame) = builder.stack.pop() {
        builder.close(&frame);
    }
    builder.out.ruby.push_str("_buf\n");
    builder.out.segments.sort_by_key(|s| s.compiled.start);
    builder.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_blocks_and_output() {
        let compiled =
            compile("%ul.posts\n  - @posts.each do |post|\n    %li= post.title\n  - if @more\n    %p more\n  - else\n    %p none\n");
        expect_test::expect![[r#"
            _buf = ""
            _buf = _buf + "<ul class=\"posts\">"
            @posts.each do |post|
            _buf = _buf + "<li>"
            _buf = _buf + (post.title
            ).to_s
            _buf = _buf + "</li>"
            end
            if @more
            _buf = _buf + "<p>"
            _buf = _buf + "more"
            _buf = _buf + "</p>"
            else
            _buf = _buf + "<p>"
            _buf = _buf + "none"
            _buf = _buf + "</p>"
            end
            _buf = _buf + "</ul>"
            _buf
        "#]]
        .assert_eq(&compiled.ruby);
        let title = compiled.ruby.find("post.title").unwrap();
        assert_eq!(compiled.template_offset(title), "%ul.posts\n  - @posts.each do |post|\n    %li= ".len());
    }

    #[test]
    fn interpolated_text_output_does_not_parse() {
        let compiled = compile("%p== Hello #{@name}\n");
        assert!(compiled.ruby.contains("_buf = _buf + (= Hello #{@name}\n).to_s"), "{}", compiled.ruby);
    }

    #[test]
    fn attributes_are_ruby_on_one_line_only() {
        let compiled = compile("%a.button{href: url, data: {x: 1}} Go\n%div{class: \"a\",\n  id: \"b\"}\n");
        assert!(compiled.ruby.contains("render_attrs({ class: \"button\", href: url, data: {x: 1} })"), "{}", compiled.ruby);
        // Over two lines the hash is text.
        assert!(compiled.ruby.contains("_buf = _buf + \"{class: \\\"a\\\",\"\n"), "{}", compiled.ruby);
    }
}

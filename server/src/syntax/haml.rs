//! The Ruby of a HAML template, as a same-length masked copy (like ERB's): code bytes kept where
//! they are, markup blanked, newlines kept, so a node of the Ruby tree has the template's positions.
//!
//! HAML closes blocks by indentation, not `end`, and there is no room for an `end` in a same-length
//! copy; so block structure is taken out instead: a trailing `do |x|` is blanked, and a leading
//! `if`/`elsif`/`unless`/`case`/`when`/`while`/`until`/`rescue` becomes a call (`p  cond`), a `for x
//! in` header and an `else`/`begin`/`ensure` nothing. Every code line is then a statement of its own:
//! what a reader of calls, helpers, renders and instance variables needs, and the expression-level
//! `syntax.*` rules; not Ruby's syntax errors (the block structure is gone).
//!
//! Code is: `- code`, `= code` (and `!=`, `&=`, `~`), an element's `= code` after its name and
//! attributes, its `{…}` attribute hash, `#{…}` in plain text, `:ruby` filter bodies, and the lines a
//! code line continues onto after a trailing comma. `-#` comments and `(…)`/`[…]`
//! attributes are markup; other filters' bodies are text (with `#{…}`).

use std::ops::Range;

/// Keywords that open or continue a block, and what they become: a call to `p` of the same length
/// (keeping the condition an expression) or nothing.
const BLOCK_KEYWORDS: [(&str, bool); 12] = [
    ("if", true),
    ("elsif", true),
    ("unless", true),
    ("case", true),
    ("when", true),
    ("while", true),
    ("until", true),
    ("rescue", true),
    ("in", true),
    ("else", false),
    ("begin", false),
    ("ensure", false),
];

/// The masked copy and the code ranges in it (byte ranges of the template).
pub fn mask(text: &str) -> (String, Vec<Range<usize>>) {
    let source = text.as_bytes();
    let mut masked: Vec<u8> = source.iter().map(|&c| if c == b'\n' || c == b'\r' { c } else { b' ' }).collect();
    let mut ranges: Vec<Range<usize>> = Vec::new();
    let mut copy = |masked: &mut Vec<u8>, range: Range<usize>, ranges: &mut Vec<Range<usize>>| {
        if range.start < range.end && range.end <= source.len() {
            masked[range.clone()].copy_from_slice(&source[range.clone()]);
            ranges.push(range);
        }
    };

    let lines = line_ranges(text);
    // Inside a filter or a `-#` comment: the indentation that ends it, and what its body is.
    let mut block: Option<(usize, Body)> = None;
    // The previous code line ended with a comma (or an open bracket): this one continues it.
    let mut continues = false;
    for line in lines {
        let content = &text[line.clone()];
        let trimmed = content.trim_start();
        let indent = content.len() - trimmed.len();
        let start = line.start + indent;
        let end = line.start + content.trim_end().len();
        if trimmed.trim().is_empty() {
            continue;
        }
        if let Some((base, body)) = block {
            if indent > base {
                match body {
                    Body::Ruby => copy(&mut masked, start..end, &mut ranges),
                    // Filters interpolate `#{…}` (Rails evaluates it, whatever the filter).
                    Body::Text => interpolations(text, &mut masked, start, end, &mut ranges, &mut copy),
                    Body::Comment => {}
                }
                continue;
            }
            block = None;
        }
        if continues {
            copy(&mut masked, start..end, &mut ranges);
            continues = continues_after(&text[start..end]);
            continue;
        }
        let bytes = trimmed.as_bytes();
        match bytes[0] {
            b'-' if bytes.get(1) == Some(&b'#') => block = Some((indent, Body::Comment)),
            b'-' => {
                let code_start = start + 1;
                statement(text, &mut masked, code_start, end, &mut ranges, &mut copy);
                continues = continues_after(&text[code_start..end]);
            }
            b'=' | b'~' => {
                let code_start = start + if bytes.get(1) == Some(&b'=') { 2 } else { 1 };
                if bytes.get(1) == Some(&b'=') {
                    // `==`: an interpolated string, not code.
                    interpolations(text, &mut masked, code_start, end, &mut ranges, &mut copy);
                } else {
                    statement(text, &mut masked, code_start, end, &mut ranges, &mut copy);
                    continues = continues_after(&text[code_start..end]);
                }
            }
            b'!' | b'&' if bytes.get(1) == Some(&b'=') => {
                statement(text, &mut masked, start + 2, end, &mut ranges, &mut copy);
                continues = continues_after(&text[start + 2..end]);
            }
            b':' => {
                let name: String = trimmed[1..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                block = Some((indent, if name == "ruby" { Body::Ruby } else { Body::Text }));
            }
            b'%' | b'.' | b'#' if bytes[0] != b'#' || bytes.get(1) != Some(&b'{') => {
                continues = element(text, &mut masked, start, end, &mut ranges, &mut copy);
            }
            b'\\' => interpolations(text, &mut masked, start + 1, end, &mut ranges, &mut copy),
            b'!' if trimmed.starts_with("!!!") => {}
            _ => interpolations(text, &mut masked, start, end, &mut ranges, &mut copy),
        }
    }
    // Code bytes are whole characters and everything else became ASCII: still UTF-8.
    let masked = String::from_utf8(masked).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (masked, ranges)
}

#[derive(Clone, Copy)]
enum Body {
    Comment,
    Ruby,
    Text,
}

type Copy<'a> = dyn FnMut(&mut Vec<u8>, Range<usize>, &mut Vec<Range<usize>>) + 'a;

fn line_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            out.push(start..i);
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push(start..text.len());
    }
    out
}

/// Code that goes on past its line: a trailing comma or an operator-free open bracket.
fn continues_after(code: &str) -> bool {
    let code = code.trim_end();
    code.ends_with(',') || code.ends_with('(') || code.ends_with('[') || code.ends_with('{') || code.ends_with('|') && code.ends_with(" |")
}

/// One line of code from `start` to `end`, its block structure taken out.
fn statement(text: &str, masked: &mut Vec<u8>, start: usize, end: usize, ranges: &mut Vec<Range<usize>>, copy: &mut Copy<'_>) {
    let code = &text[start..end];
    let lead = code.len() - code.trim_start().len();
    let (start, code) = (start + lead, code.trim_start());
    if code.is_empty() {
        return;
    }
    copy(masked, start..end, ranges);
    // `for x in xs`: only the collection is an expression (`p x in xs` would read as a pattern match).
    if let Some(rest) = code.strip_prefix("for ")
        && let Some(at) = rest.find(" in ")
    {
        let header = "for ".len() + at + " in ".len();
        masked[start..start + header].fill(b' ');
        return strip_do(code, start, end, masked);
    }
    // A leading block keyword.
    for (keyword, call) in BLOCK_KEYWORDS {
        let after = code.strip_prefix(keyword);
        if after.is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '(', '\t'])) {
            masked[start..start + keyword.len()].fill(b' ');
            if call && code.len() > keyword.len() {
                masked[start] = b'p';
            }
            break;
        }
    }
    strip_do(code, start, end, masked);
}

/// Blanks a trailing `do` / `do |x|`.
fn strip_do(code: &str, start: usize, end: usize, masked: &mut [u8]) {
    if let Some(at) = super::trailing_do(code) {
        masked[start + at..end].fill(b' ');
    }
}

/// An element line: `%tag.class#id{attrs}(html attrs)[ref]<>/= code` or plain text after it. Returns
/// whether its code continues on the next line.
fn element(text: &str, masked: &mut Vec<u8>, start: usize, end: usize, ranges: &mut Vec<Range<usize>>, copy: &mut Copy<'_>) -> bool {
    let bytes = text.as_bytes();
    let mut at = start;
    while at < end && (bytes[at].is_ascii_alphanumeric() || matches!(bytes[at], b'%' | b'.' | b'#' | b'-' | b'_' | b':')) {
        at += 1;
    }
    loop {
        match bytes.get(at) {
            Some(b'{') if at < end => {
                let close = closing(text, at, b'{', b'}', at + MULTI_LINE_LIMIT);
                let inner_end = close.unwrap_or(end).min(end);
                copy(masked, at..(inner_end + 1).min(end), ranges);
                let Some(close) = close.filter(|c| *c < end) else { return true };
                at = close + 1;
                // Separate the hash from what follows (`}= code`, `} text`).
                if at < end {
                    masked[at] = b';';
                }
            }
            Some(b'(') if at < end => match closing(text, at, b'(', b')', at + MULTI_LINE_LIMIT) {
                Some(close) if close < end => at = close + 1,
                _ => return false,
            },
            Some(b'[') if at < end => match closing(text, at, b'[', b']', at + MULTI_LINE_LIMIT) {
                Some(close) if close < end => at = close + 1,
                _ => return false,
            },
            Some(b'<' | b'>' | b'/') if at < end => at += 1,
            _ => break,
        }
    }
    let rest = &text[at..end];
    for marker in ["!=", "&=", "=", "~"] {
        if let Some(code) = rest.strip_prefix(marker)
            && !(marker == "=" && code.starts_with('='))
        {
            let code_start = at + marker.len();
            statement(text, masked, code_start, end, ranges, copy);
            return continues_after(code);
        }
    }
    if rest.starts_with("==") {
        interpolations(text, masked, at + 2, end, ranges, copy);
    } else {
        interpolations(text, masked, at, end, ranges, copy);
    }
    false
}

/// `#{…}` in plain text: the code inside, then `;` over the closing brace.
fn interpolations(text: &str, masked: &mut Vec<u8>, start: usize, end: usize, ranges: &mut Vec<Range<usize>>, copy: &mut Copy<'_>) {
    let mut at = start;
    while let Some(found) = text[at..end].find("#{") {
        let open = at + found + 1;
        if found > 0 && text.as_bytes()[at + found - 1] == b'\\' {
            at = open + 1;
            continue;
        }
        let Some(close) = closing(text, open, b'{', b'}', end) else { return };
        copy(masked, open + 1..close, ranges);
        masked[close] = b';';
        at = close + 1;
    }
}

/// How far an attribute hash may run over lines: an unclosed `{` being typed must not make every
/// keystroke scan the rest of a long template.
const MULTI_LINE_LIMIT: usize = 8 * 1024;

/// The matching closer of the bracket at `open` before `limit`, skipping quoted strings (attribute
/// hashes may span lines).
fn closing(text: &str, open: usize, opener: u8, closer: u8, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = open;
    while i < bytes.len().min(limit) {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == opener => depth += 1,
            None if b == closer => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            None => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(text: &str) -> String {
        let (masked, _) = mask(text);
        assert_eq!(masked.len(), text.len());
        masked.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn code_lines_elements_and_interpolation() {
        let text = "%h1= @post.title\n%p.lead{class: state, data: {url: post_path(@post)}} Hello #{current_user.name}!\n- if @post.published?\n  = link_to \"Edit\", edit_post_path(@post)\n- else\n  %em draft\n= form_with model: @post do |f|\n  = f.text_field :title,\n    placeholder: \"Title\"\n-# = not_code\n   = still_comment\n:javascript\n  var x = #{1};\n:ruby\n  total = @post.comments.count\n";
        assert_eq!(
            masked(text),
            "     @post.title\n       {class: state, data: {url: post_path(@post)}};        current_user.name;\n  p  @post.published?\n    link_to \"Edit\", edit_post_path(@post)\n\n\n  form_with model: @post\n    f.text_field :title,\n    placeholder: \"Title\"\n\n\n\n            1;\n\n  total = @post.comments.count"
        );
    }

    #[test]
    fn syntax_rules_read_haml_code_without_false_alarms() {
        let text = "- for post in @posts do\n  %p= \"By #@author\"\n  - case post.state\n  - when :draft\n    %em draft\n%p= `uptime`\n";
        let index = crate::syntax::LineIndex::new(text);
        let found: Vec<String> = crate::roundhouse::prism_ingest::judge_haml(text, &index, false)
            .iter()
            .map(|d| format!("{}:{} {}", d.span.start.line + 1, d.span.start.col + 1, d.rule))
            .collect();
        assert_eq!(found, ["1:3 syntax.for-loop", "2:11 syntax.embedded-variable", "6:5 syntax.backtick-command"]);
    }

    #[test]
    fn every_prefix_of_a_template_being_typed_is_masked_without_a_panic() {
        let text = "%p.é{a: \"ü{\", b: [1, (2)]}(x=1)[@r]<= f(\"#{é}\",\n  g) \\\n- for a in b do |x|\n  ~ \"#{\"\n!= `é`\n&= y\n==#{z} é\n:ruby\n  é = 1\n-#\n  x\n#{\n%\n.\n-\n=\n!\n&\n";
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let (masked, ranges) = mask(&text[..end]);
            assert_eq!(masked.len(), end);
            assert!(ranges.iter().all(|r| r.end <= end && text.is_char_boundary(r.start) && text.is_char_boundary(r.end)));
        }
    }

    #[test]
    fn masked_haml_parses_as_ruby() {
        let text = "- @posts.each do |post|\n  %li{id: dom_id(post)}= link_to post.title, post\n  - case post.state\n  - when :draft, :hidden\n    %em= t(\".draft\")\n  - else\n    = render \"posts/meta\", post: post\n%p.note Posted #{time_ago_in_words(@at)} ago\n";
        let (masked, ranges) = mask(text);
        let tree = crate::syntax::ParsedFile::parse(crate::syntax::Language::Ruby, &masked).ruby.unwrap();
        assert!(!tree.root_node().has_error(), "{masked}\n{}", tree.root_node().to_sexp());
        assert!(ranges.iter().any(|r| &text[r.clone()] == "time_ago_in_words(@at)"));
    }
}

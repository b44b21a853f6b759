//! How Roundhouse pairs `end`s in a template, against how Ruby does (`views.output-block-pairing`,
//! erb-compile T2a/T2b/T2c).
//!
//! Roundhouse wraps a block output tag as `(EXPR do … end).to_s`, so it must find the tag that closes
//! it; it does so by text, with a stack: an output tag ending like a block opener pushes an *output*
//! entry, a code tag starting with an opener keyword (or ending like a block opener) pushes a *pass*
//! entry, a tag that is exactly `end` / `end if …` pops. Rails needs no pairing (Ruby does it). Where
//! the two disagree about which tag closes an output block, the compiled Ruby does not parse.
//!
//! The Ruby side comes from the template's masked Ruby tree (what Rails compiles): the block
//! keywords, `do`, `end` and brackets of each tag give its net nesting, and an output block ends at
//! the tag that brings the nesting back to where it was before the block opened.

use crate::syntax::NodeExt;
use crate::syntax::{ParsedFile, Span};

/// Roundhouse's opener keywords for a code tag.
const KEYWORDS: [&str; 10] = ["if", "unless", "while", "until", "for", "case", "begin", "class", "def", "module"];

/// The code ends like a block opener: `… do`, `… do |x|`, `… {`, `… { |x|` (or is just `do`).
pub fn is_block_expr(code: &str) -> bool {
    // Roundhouse's pattern wants whitespace or `)` before a `do` with parameters; a bare `do` counts too.
    code.trim_end() == "do"
        || crate::syntax::without_block_params(code).ends_with('{')
        || crate::syntax::trailing_do(code).is_some_and(|at| at > 0)
}

/// A code tag Roundhouse counts as opening a block.
pub fn opens_pass(code: &str) -> bool {
    let code = code.trim();
    KEYWORDS.iter().any(|k| code == *k || code.strip_prefix(k).is_some_and(|rest| rest.starts_with(' ') || rest.starts_with('(')))
        || is_block_expr(code)
}

/// A code tag Roundhouse counts as closing a block: exactly `end`, or `end if|unless|while|until …`.
pub fn pops(code: &str) -> bool {
    let code = code.trim();
    if code == "end" {
        return true;
    }
    let Some(rest) = code.strip_prefix("end") else { return false };
    if !rest.starts_with(char::is_whitespace) {
        return false;
    }
    let rest = rest.trim_start();
    ["if", "unless", "while", "until"]
        .iter()
        .any(|k| rest.strip_prefix(k).is_some_and(|after| after.is_empty() || after.starts_with(char::is_whitespace)))
}

/// One tag with code, in template order.
struct Tag {
    output: bool,
    code: String,
    code_start: usize,
    code_end: usize,
    span: Span,
    /// Ruby's opens minus closes inside the tag.
    net: i32,
    /// The first nesting event in the tag is a close.
    closes_first: Option<bool>,
}

/// Why a tag breaks Roundhouse's pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The tag opens a block Roundhouse does not count (T2a).
    Uncounted,
    /// The tag closes with something other than a bare `end` (T2b).
    Closer,
    /// The tag opens and closes a block itself, and Roundhouse counts it as open (T2c).
    OverCounted,
}

/// A tag that makes Roundhouse close an output block at the wrong place, and the output tag it breaks.
#[derive(Debug, Clone)]
pub struct Mispairing {
    pub span: Span,
    pub cause: Cause,
    pub output: Span,
    pub output_line_text: String,
}

/// The mispaired tags of a template; none when its Ruby does not parse (Rails fails on it too, and the
/// syntax error says so).
pub fn check(text: &str, parsed: &ParsedFile) -> Vec<Mispairing> {
    let (Some(erb), Some(ruby)) = (&parsed.erb, &parsed.ruby) else { return Vec::new() };
    if ruby.root_node().has_error() {
        return Vec::new();
    }
    let mut tags = Vec::new();
    let root = erb.root_node();
    let mut cursor = root.walk();
    for node in root.children(&mut cursor) {
        let output = match node.kind_name() {
            "output_directive" => true,
            "directive" => false,
            _ => continue,
        };
        let mut inner = node.walk();
        let Some(code) = node.children(&mut inner).find(|c| c.kind_name() == "code") else { continue };
        tags.push(Tag {
            output,
            code: text.get(code.byte_range()).unwrap_or("").to_owned(),
            code_start: code.start_byte(),
            code_end: code.end_byte(),
            span: Span::of(node),
            net: 0,
            closes_first: None,
        });
    }
    if !tags.iter().any(|t| t.output && is_block_expr(&t.code)) {
        return Vec::new();
    }
    nesting_events(ruby.root_node(), &mut tags);

    // Roundhouse's stack: for each output entry, the tag that pops it.
    let mut stack: Vec<(bool, usize)> = Vec::new();
    let mut popped_at: Vec<(usize, Option<usize>)> = Vec::new();
    let mut model_net = vec![0i32; tags.len()];
    for (i, tag) in tags.iter().enumerate() {
        if tag.output {
            if is_block_expr(&tag.code) {
                stack.push((true, i));
                popped_at.push((i, None));
                model_net[i] = 1;
            }
        } else if pops(&tag.code) {
            if let Some((output, opened)) = stack.pop() {
                model_net[i] = -1;
                if output && let Some(entry) = popped_at.iter_mut().find(|(o, _)| *o == opened) {
                    entry.1 = Some(i);
                }
            }
        } else if opens_pass(&tag.code) {
            stack.push((false, i));
            model_net[i] = 1;
        }
    }

    // Ruby's nesting before and after each tag.
    let mut depth_before = Vec::with_capacity(tags.len());
    let mut depth = 0;
    for tag in &tags {
        depth_before.push(depth);
        depth += tag.net;
    }

    let mut found: Vec<Mispairing> = Vec::new();
    for (opened, roundhouse_close) in popped_at {
        let base = depth_before[opened];
        if tags[opened].net <= 0 {
            continue;
        }
        let ruby_close = (opened + 1..tags.len()).find(|&k| depth_before[k] + tags[k].net <= base);
        let Some(ruby_close) = ruby_close else { continue };
        if roundhouse_close == Some(ruby_close) {
            continue;
        }
        let last = roundhouse_close.map_or(ruby_close, |r| r.min(ruby_close));
        let culprit = (opened + 1..=last).find(|&k| tags[k].net != model_net[k]).unwrap_or(ruby_close);
        let tag = &tags[culprit];
        let cause = if tag.closes_first == Some(true) && !pops(&tag.code) {
            Cause::Closer
        } else if tag.net > model_net[culprit] {
            Cause::Uncounted
        } else {
            Cause::OverCounted
        };
        if found.iter().any(|f| f.span.start_byte == tag.span.start_byte) {
            continue;
        }
        let output = &tags[opened];
        found.push(Mispairing {
            span: tag.span,
            cause,
            output: output.span,
            output_line_text: output.code.trim().lines().next().unwrap_or("").to_owned(),
        });
    }
    found.sort_by_key(|f| f.span.start_byte);
    found
}

/// Adds each Ruby nesting token to the tag it sits in.
fn nesting_events(root: tree_sitter::Node<'_>, tags: &mut [Tag]) {
    crate::syntax::for_each_node_with_parent(root, |node, parent, _| {
        if node.child_count() != 0 {
            return;
        }
        let Some(delta) = nesting_delta(node, parent) else { return };
        let at = node.start_byte();
        let index = tags.partition_point(|t| t.code_end <= at);
        if let Some(tag) = tags.get_mut(index).filter(|t| t.code_start <= at) {
            tag.net += delta;
            tag.closes_first.get_or_insert(delta < 0);
        }
    });
}

/// +1 for a token that opens a nesting level in Ruby, -1 for one that closes one (`parent`: the
/// leaf's, from the walk; `Node::parent` would search down from the root for every leaf).
fn nesting_delta<'t>(leaf: tree_sitter::Node<'t>, parent_node: Option<tree_sitter::Node<'t>>) -> Option<i32> {
    let kind = leaf.kind_name();
    let parent = || parent_node.map_or("", |p| p.kind_name());
    match kind {
        "end" | ")" | "]" | "}" => Some(-1),
        "(" | "[" | "{" | "#{" => Some(1),
        "do" => (parent() == "do_block").then_some(1),
        "if" | "unless" | "while" | "until" | "for" | "case" | "begin" | "class" | "module" => {
            let parent = parent();
            (parent == kind || (kind == "case" && parent == "case_match") || (kind == "class" && parent == "singleton_class")).then_some(1)
        }
        "def" => {
            // An endless method (`def f = x`) has no `end`.
            let method = parent_node?;
            let mut cursor = method.walk();
            let has_end = method.children(&mut cursor).any(|c| c.kind_name() == "end");
            has_end.then_some(1)
        }
        _ if kind.starts_with('%') && kind.ends_with(['(', '[', '{']) => Some(1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::Language;

    fn causes(text: &str) -> Vec<(u32, Cause)> {
        let parsed = ParsedFile::parse(Language::Erb, text);
        check(text, &parsed).iter().map(|m| (m.span.start.line + 1, m.cause)).collect()
    }

    #[test]
    fn roundhouse_model() {
        assert!(is_block_expr("form_with model: @post do |f|"));
        assert!(is_block_expr("content_tag(:div) do"));
        assert!(is_block_expr("items.map {"));
        assert!(is_block_expr("items.map { |x|"));
        assert!(is_block_expr("do"));
        assert!(!is_block_expr("undo"));
        assert!(!is_block_expr("link_to 'x', y"));
        assert!(opens_pass("if x"));
        assert!(opens_pass("if(x)"));
        assert!(opens_pass("begin"));
        assert!(!opens_pass("if\n x"));
        assert!(!opens_pass("label = if x"));
        assert!(!opens_pass("iffy"));
        assert!(pops("end"));
        assert!(pops(" end if x "));
        assert!(!pops("end\n}"));
        assert!(!pops("end.join"));
        assert!(!pops("endless"));
    }

    #[test]
    fn two_openers_in_one_tag() {
        let text =
            "<%= content_tag :div do %>\n  <% @items.each do |i|\n       if i -%>\n    <%= i %>\n  <% end -%>\n  <% end -%>\n<% end %>\n";
        assert_eq!(causes(text), [(2, Cause::Uncounted)]);
        // The same tags outside an output block compile (a pass pop emits a bare `end`).
        let outside = "<div>\n  <% @items.each do |i|\n       if i -%>\n    <%= i %>\n  <% end -%>\n  <% end -%>\n</div>\n";
        assert_eq!(causes(outside), []);
        // One opener per tag is fine.
        let split =
            "<%= content_tag :div do %>\n  <% @items.each do |i| %>\n  <% if i -%>\n    <%= i %>\n  <% end -%>\n  <% end -%>\n<% end %>\n";
        assert_eq!(causes(split), []);
    }

    #[test]
    fn statements_after_the_do_line() {
        let text = "<%= gantt_subjects_tag do %>\n<%\n  query.columns.each do |column|\n    name = column.name.to_s\n%>\n  <%= name %>\n<% end %>\n<% end %>\n";
        assert_eq!(causes(text), [(2, Cause::Uncounted)]);
    }

    #[test]
    fn keyword_not_first_or_followed_by_a_newline_or_a_comment() {
        let assign = "<%= content_tag :p do %>\n<% label = if @a %>A<% else %>B<% end %>\n<%= label %>\n<% end %>\n";
        assert_eq!(causes(assign), [(2, Cause::Uncounted)]);
        let newline = "<%= content_tag :p do %>\n<% if\n  @a %>A<% end %>\n<% end %>\n";
        assert_eq!(causes(newline), [(2, Cause::Uncounted)]);
        let comment = "<%= content_tag :ul do %>\n<% @items.each do |i| # each item %>\n<li><%= i %></li>\n<% end %>\n<% end %>\n";
        assert_eq!(causes(comment), [(2, Cause::Uncounted)]);
        let fine = "<%= content_tag :p do %>\n<% if @a %>A<% else %>B<% end %>\n<% end %>\n";
        assert_eq!(causes(fine), []);
    }

    #[test]
    fn closing_tags_that_are_not_a_bare_end() {
        let text = "<%= render \"box\", { body: capture do %>\n  <p>hi</p>\n<% end\n} %>\n";
        assert_eq!(causes(text), [(3, Cause::Closer)]);
        let keyed = "<%= render \"box\", { body: capture do %>\n  <p>hi</p>\n<% end,\n  error: true\n} %>\n";
        assert_eq!(causes(keyed), [(3, Cause::Closer)]);
        let brace = "<%= @items.map { |i| %>\n<li><%= i %></li>\n<% } %>\n";
        assert_eq!(causes(brace), [(3, Cause::Closer)]);
        let modifier = "<%= content_tag :p do %>\n<% @a.each do |x| %>x<% end if @a %>\n<% end %>\n";
        assert_eq!(causes(modifier), []);
        // A brace block closed by `}` outside any output block compiles.
        let outside = "<% @tags.map { |t| %>\n<b><%= t %></b>\n<%- } %>\n";
        assert_eq!(causes(outside), []);
    }

    #[test]
    fn over_counted_openers() {
        let text = "<%= content_tag :div do %><% if a then b end %>x<% end %>\n";
        assert_eq!(causes(text), [(1, Cause::OverCounted)]);
        let endless = "<%= content_tag :div do %><% def f = 1 %>x<% end %>\n";
        assert_eq!(causes(endless), [(1, Cause::OverCounted)]);
        let outside = "<% if a then b end %>x\n";
        assert_eq!(causes(outside), []);
    }

    #[test]
    fn every_prefix_of_a_template_being_typed_is_checked_without_a_panic() {
        let text = "<%= form_with model: @é do |f| %>\n<% [1].each { |x| %><%= x %><% } %>\n<% if a then b end %><%- end -%>\n<%= c do %><% end\n} %>é";
        let mut reported = 0;
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let prefix = &text[..end];
            let parsed = ParsedFile::parse(Language::Erb, prefix);
            for m in check(prefix, &parsed) {
                // Every span it reports lies in the text typed so far, on character boundaries.
                for span in [m.span, m.output] {
                    assert!(span.start() <= span.end() && span.end() <= end, "{span:?} outside {end} bytes");
                    assert!(prefix.is_char_boundary(span.start()) && prefix.is_char_boundary(span.end()));
                }
                reported += 1;
            }
        }
        // Some prefixes are mispaired (the `<% end\n} %>` closer), so the walk really checks something.
        assert!(reported > 0);
    }

    #[test]
    fn nested_output_blocks_and_ordinary_templates() {
        let text = "<%= form_with model: @post do |f| %>\n  <%= f.fields_for :tags do |t| %>\n    <%= t.text_field :name %>\n  <% end %>\n  <% if @post.errors.any? %>\n    <% @post.errors.each do |e| %><%= e %><% end %>\n  <% end %>\n<% end %>\n";
        assert_eq!(causes(text), []);
        let broken_inner = "<%= form_with model: @post do |f| %>\n  <%= f.fields_for :tags do |t| %>\n    <% [1].each do |x|\n      if x %><%= x %><% end %>\n  <% end %>\n  <% end %>\n<% end %>\n";
        assert_eq!(causes(broken_inner), [(3, Cause::Uncounted)]);
    }
}

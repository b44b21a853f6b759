//! Template rules that need the ERB layer (`shared/reference/erb-compile.md`): text that Roundhouse's
//! compiler turns into Ruby (`#{` in plain text), output tags it cannot close (a heredoc or a trailing
//! comment inside `<%= %>`), tags that never close, and tags Roundhouse pairs differently from Ruby
//! (`erb_pairing`).

use crate::diagnostic::Diagnostic;
use crate::syntax::NodeExt;
use crate::syntax::{LineIndex, ParsedFile, Span};

fn push(out: &mut Vec<Diagnostic>, rule: crate::diagnostic::RuleId, span: Span, message: String) {
    out.push(crate::diagnostic::Diagnostic::finding(rule, span, message));
}

pub fn check(text: &str, parsed: &ParsedFile, line_index: &LineIndex) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(erb) = &parsed.erb else { return out };
    let root = erb.root_node();
    let mut cursor = root.walk();
    for node in root.children(&mut cursor) {
        let source = text.get(node.byte_range()).unwrap_or("");
        let closes = |n: tree_sitter::Node<'_>| {
            n.child(n.child_count().saturating_sub(1)).is_some_and(|last| last.kind_name().ends_with("%>") && !last.is_missing())
        };
        if node.is_error() || (matches!(node.kind_name(), "directive" | "output_directive" | "comment_directive") && !closes(node)) {
            push(
                &mut out,
                rule!("views.unterminated-tag"),
                line_index.span(node.start_byte()..node.start_byte() + 2),
                "This `<%` never closes: Rails keeps it as text, Roundhouse's ingest fails on the whole app. Close it with `%>`."
                    .to_owned(),
            );
            continue;
        }
        match node.kind_name() {
            "content" => {
                // Every place Ruby would interpolate: `#{`, and `#@`/`#$` before a name (`#@ ` is text).
                let mut markers: Vec<(usize, &str)> = ["#{", "#@", "#$"]
                    .iter()
                    .flat_map(|marker| source.match_indices(marker))
                    .filter(|(at, marker)| {
                        *marker == "#{" || source[at + 2..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '@')
                    })
                    .collect();
                markers.sort();
                for (at, marker) in markers {
                    {
                        let start = node.start_byte() + at;
                        push(
                            &mut out,
                            rule!("views.text-interpolation"),
                            line_index.span(start..start + 2),
                            format!(
                                "Roundhouse writes template text as a double-quoted Ruby string: `{marker}` here becomes Ruby interpolation. Escape it (`&#35;{{`) or move it into a tag."
                            ),
                        );
                    }
                }
                // `<%%` is the literal tag (views.literal-tag), not an opening one.
                if let Some(at) = source.match_indices("<%").map(|(i, _)| i).find(|&i| !source[i..].starts_with("<%%")) {
                    let start = node.start_byte() + at;
                    push(
                        &mut out,
                        rule!("views.unterminated-tag"),
                        line_index.span(start..start + 2),
                        "This `<%` never closes: Rails keeps it as text, Roundhouse's ingest fails on the whole app. Close it with `%>`."
                            .to_owned(),
                    );
                }
            }
            "output_directive" => {
                let mut inner = node.walk();
                let code = node.children(&mut inner).find(|c| c.kind_name() == "code");
                if let Some(code) = code {
                    let code_text = text.get(code.byte_range()).unwrap_or("");
                    let heredoc = code_text.contains("<<~") || code_text.contains("<<-");
                    let comment = ruby_comment_in(parsed, text, code.start_byte(), code.end_byte());
                    if heredoc || comment {
                        let what = if heredoc { "a heredoc" } else { "a trailing `# comment`" };
                        push(
                            &mut out,
                            rule!("views.output-tag-comment-or-heredoc"),
                            Span::of(node),
                            format!(
                                "Roundhouse's `).to_s` lands after {what} inside this `<%= %>` tag, which then does not compile. Move it out of the tag."
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }
    for m in super::erb_pairing::check(text, parsed) {
        let opened = format!("`<%= {} %>` (line {})", m.output_line_text, m.output.start.line + 1);
        let message = match m.cause {
            super::erb_pairing::Cause::Uncounted => format!(
                "Roundhouse pairs `end`s by text: it does not count the block this tag opens, so the `end` meant for it closes {opened} and the compiled template does not parse. Put one block opener per tag, each tag ending in `do`/`do |x|` or starting with `if`/`unless`/`case` followed by its condition on the same line."
            ),
            super::erb_pairing::Cause::Closer => format!(
                "Roundhouse closes {opened} only at a tag that is exactly `end` (or `end if …`); this closing tag is passed through and the block is never closed, so the compiled template does not parse. Capture the block first (`<% body = capture do %>…<% end %>`) and pass the variable."
            ),
            super::erb_pairing::Cause::OverCounted => format!(
                "Roundhouse counts this tag as opening a block, but it closes it itself; the `end` of {opened} then closes the wrong block and the compiled template does not parse. Write the condition as a modifier or a ternary (`<% b if a %>`), or split it across tags."
            ),
        };
        push(&mut out, rule!("views.output-block-pairing"), m.span, message);
    }
    out
}

/// Whether the masked Ruby has a comment inside `start..end` with no code after it: the `).to_s`
/// Roundhouse appends to the (trimmed) code lands in it. A comment with code on later lines of the
/// tag is fine.
fn ruby_comment_in(parsed: &ParsedFile, text: &str, start: usize, end: usize) -> bool {
    // A comment starts with `#`; most tags have none.
    let Some(tree) = parsed.ruby.as_ref().filter(|_| text.get(start..end).is_some_and(|code| code.contains('#'))) else { return false };
    // Only the nodes that overlap the tag are visited: each level starts at the first child that
    // reaches past `start` and stops at the first that starts at `end`.
    fn within(node: tree_sitter::Node<'_>, text: &str, start: usize, end: usize) -> bool {
        let mut cursor = node.walk();
        if cursor.goto_first_child_for_byte(start).is_none() {
            return false;
        }
        loop {
            let child = cursor.node();
            if child.start_byte() >= end {
                return false;
            }
            if child.kind_name() == "comment"
                && child.start_byte() >= start
                && child.end_byte() <= end
                && text.get(child.end_byte()..end).unwrap_or("").trim().is_empty()
            {
                return true;
            }
            if child.child_count() > 0 && within(child, text, start, end) {
                return true;
            }
            if !cursor.goto_next_sibling() {
                return false;
            }
        }
    }
    within(tree.root_node(), text, start, end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::Language;

    fn rules(text: &str) -> Vec<String> {
        let parsed = ParsedFile::parse(Language::Erb, text);
        check(text, &parsed, &LineIndex::new(text))
            .iter()
            .map(|d| format!("{}:{} {}", d.span.start.line + 1, d.span.start.col + 1, d.rule))
            .collect()
    }

    #[test]
    fn triggers_and_near_misses() {
        assert_eq!(rules("<p>Price: #{price}</p>\n"), ["1:11 views.text-interpolation"]);
        assert_eq!(rules("<p>Price: <%= \"#{price}\" %></p>\n"), Vec::<String>::new());
        assert_eq!(rules("<%= link_to \"x\", y # the link\n%>\n"), ["1:1 views.output-tag-comment-or-heredoc"]);
        assert_eq!(rules("<%= link_to \"#x\", y %>\n"), Vec::<String>::new());
        assert_eq!(rules("<%= <<~TEXT\n  hi\nTEXT\n%>\n"), ["1:1 views.output-tag-comment-or-heredoc"]);
        // A comment inside the call's arguments with code after it is fine; one that ends the tag is not,
        // however deep it sits, and only the tag it is in is flagged.
        assert_eq!(rules("<%= link_to(\n  \"x\", # first\n  y) %>\n"), Vec::<String>::new());
        assert_eq!(
            rules("<p><%= a %></p>\n<%= link_to(\n  \"x\", # first\n  y) # last\n%>\n"),
            ["2:1 views.output-tag-comment-or-heredoc"]
        );
        assert_eq!(rules("<%= items.map do |i| %>\n<%= i # the item\n%>\n<% end %>\n"), ["2:1 views.output-tag-comment-or-heredoc"]);
        assert_eq!(rules("<p>ok</p>\n<% if x\n"), ["2:1 views.unterminated-tag"]);
        assert_eq!(rules("<p>ok</p>\n<% if x %><% end %>\n"), Vec::<String>::new());
    }
}

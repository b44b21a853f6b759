//! Quick fixes for a diagnostic: rewrites where the rule has one mechanical answer (the catalogue's
//! `Rule::fix` says which: `"#@x"` →
//! `"#{@x}"`, `alias a b` → `alias_method :a, :b`, a text `#{` → `&#35;{`, a misspelt helper or
//! association → the name suggested, an unused suppression removed), and for every rule a
//! `switchyard:disable` comment for the line or the file, written in the file's own comment syntax.

use crate::catalogue::Fix as Rewrite;
use crate::diagnostic::Diagnostic;
use crate::rails::{FileFacts, Suppression};
use crate::syntax::Language;

/// One edit, in bytes of the file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub new_text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<Edit>,
    /// The fix an editor may apply on its own ("fix all", save actions).
    pub preferred: bool,
    /// Meaning-preserving, so `switchyard --check --fix` applies it (a guessed name is not).
    pub safe: bool,
}

/// The fixes for `diagnostic` in `text`. A rewrite is only offered when the text at the span still
/// reads as the diagnostic says (an edit may have moved things since it was published).
pub fn fixes(text: &str, facts: &FileFacts, diagnostic: &Diagnostic) -> Vec<Fix> {
    let span = diagnostic.span;
    let Some(found) = text.get(span.range()) else { return Vec::new() };
    let mut out = Vec::new();
    if let Some(fix) = rewrite(text, diagnostic, found) {
        out.push(fix);
    }
    if diagnostic.rule == crate::diagnostic::rule::UNUSED_SUPPRESSION {
        return out;
    }
    out.extend(disable_line(text, facts, diagnostic));
    out.push(disable_file(facts, &diagnostic.rule));
    out
}

fn replace(title: String, start: usize, end: usize, new_text: String) -> Option<Fix> {
    Some(Fix { title, edits: vec![Edit { start, end, new_text }], preferred: true, safe: false })
}

/// The rule's rewrite (`Rule::fix`), safe as the catalogue says it is.
fn rewrite(text: &str, diagnostic: &Diagnostic, found: &str) -> Option<Fix> {
    let rewrite = crate::catalogue::fix(diagnostic.rule)?;
    let fix = rewritten(text, diagnostic, found, rewrite)?;
    Some(Fix { safe: rewrite.is_safe(), ..fix })
}

fn rewritten(text: &str, diagnostic: &Diagnostic, found: &str, rewrite: Rewrite) -> Option<Fix> {
    let (start, end) = (diagnostic.span.start(), diagnostic.span.end());
    match rewrite {
        Rewrite::EmbeddedVariable => {
            let variable = found.strip_prefix('#').filter(|v| v.starts_with(['@', '$']))?;
            replace(format!("Write `#{{{variable}}}`"), start, end, format!("#{{{variable}}}"))
        }
        Rewrite::AliasMethod => {
            let mut words = found.split_whitespace();
            let (Some("alias"), Some(new), Some(old), None) = (words.next(), words.next(), words.next(), words.next()) else { return None };
            let symbol = |w: &str| {
                let name = w.trim_start_matches(':');
                name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '?' | '!' | '=')).then(|| format!(":{name}"))
            };
            let (new, old) = (symbol(new)?, symbol(old)?);
            let rewritten = format!("alias_method {new}, {old}");
            replace(format!("Write `{rewritten}`"), start, end, rewritten)
        }
        Rewrite::EscapeHash if found.starts_with('#') => {
            replace("Escape the `#` as `&#35;`".to_owned(), start, start + 1, "&#35;".to_owned())
        }
        Rewrite::SuggestedName => {
            let suggestion = crate::catalogue::suggested(&diagnostic.message)?;
            // A symbol is suggested as `:name`; a hash key is written without the colon.
            let suggestion = if found.starts_with(':') { suggestion } else { suggestion.trim_start_matches(':') };
            replace(format!("Change to `{suggestion}`"), start, end, suggestion.to_owned())
        }
        Rewrite::RemoveComment => {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
            let before = &text[line_start..start];
            let marker = before.trim_end().trim_end_matches(['#', '%', '<', '-']).len();
            if before[..marker].trim().is_empty() {
                // The comment is the whole line: remove the line.
                let next = (line_end + 1).min(text.len());
                replace("Remove the unused `switchyard:disable` comment".to_owned(), line_start, next, String::new())
            } else {
                // A trailing comment: remove it and the space before it.
                let comment = text[..start].rfind(['#']).filter(|&i| i >= line_start)?;
                let comment = if text[..comment].ends_with("<%") { comment - 2 } else { comment };
                let cut = text[line_start..comment].trim_end().len() + line_start;
                replace("Remove the unused `switchyard:disable` comment".to_owned(), cut, line_end, String::new())
            }
        }
        // `"/shared/tags"` (its quotes in the span): the slash after the opening quote.
        Rewrite::RenderPathSlash if found.get(1..2) == Some("/") && found.starts_with(['"', '\'']) => {
            replace("Remove the leading `/`".to_owned(), start + 1, start + 2, String::new())
        }
        // `@p.things.build(a: 1, b: 2)` (the span starts at the call): braces around its keywords,
        // where Prism places them (a `)` in a string is no end).
        Rewrite::BraceHash => {
            let result = ruby_prism::parse(&text.as_bytes()[start..]);
            let call = result.node().as_program_node()?.statements().body().iter().next()?;
            let call = call.as_call_node().filter(|c| c.name().as_slice() == b"build")?;
            let arguments: Vec<_> = call.arguments()?.arguments().iter().collect();
            let [keywords] = arguments.as_slice() else { return None };
            let keywords = keywords.as_keyword_hash_node()?.as_node().location();
            let (open, close) = (start + keywords.start_offset(), start + keywords.end_offset());
            Some(Fix {
                title: "Put braces around the attributes".to_owned(),
                edits: vec![
                    Edit { start: open, end: open, new_text: "{ ".to_owned() },
                    Edit { start: close, end: close, new_text: " }".to_owned() },
                ],
                preferred: true,
                safe: false,
            })
        }
        // `selected: @post.title` (the keywords' span): the value alone, when it is the only key.
        Rewrite::SelectedPositional => {
            let value = found.strip_prefix("selected:")?.trim();
            if value.is_empty() || found.contains('\n') || crate::syntax::split_arguments(value).len() > 1 {
                return None;
            }
            replace("Pass the selected value alone".to_owned(), start, end, value.to_owned())
        }
        // The query may be in another file: the LSP's code action writes it (`roundhouse::preload::fix`).
        Rewrite::EscapeHash | Rewrite::RenderPathSlash | Rewrite::Preload => None,
    }
}

/// `# …` in Ruby, `<%# … %>` in ERB, `-# …` in HAML.
fn comment(language: Language, body: &str) -> String {
    match language {
        Language::Erb => format!("<%# {body} %>"),
        Language::Haml => format!("-# {body}"),
        _ => format!("# {body}"),
    }
}

/// Adds `rule` to an existing `switchyard:disable` comment.
fn join(suppression: &Suppression, title: String, rule: &str) -> Fix {
    let at = suppression.span.end();
    Fix { title, edits: vec![Edit { start: at, end: at, new_text: format!(" {rule}") }], preferred: false, safe: false }
}

fn disable_line(text: &str, facts: &FileFacts, diagnostic: &Diagnostic) -> Option<Fix> {
    if matches!(facts.language, Language::OtherTemplate) {
        return None;
    }
    let rule = diagnostic.rule;
    let line = diagnostic.span.start.line;
    let title = format!("Disable `{rule}` for this line");
    // A `disable-next-line` comment right above: add the rule to it.
    if let Some(above) = facts.suppressions.iter().find(|s| s.line == Some(line) && s.span.start.line + 1 == line) {
        return Some(join(above, title, &rule));
    }
    let line_start = text[..diagnostic.span.start()].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line_start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let new_text = format!("{indent}{}\n", comment(facts.language, &format!("switchyard:disable-next-line {rule}")));
    Some(Fix { title, edits: vec![Edit { start: line_start, end: line_start, new_text }], preferred: false, safe: false })
}

fn disable_file(facts: &FileFacts, rule: &str) -> Fix {
    let title = format!("Disable `{rule}` for this file");
    // A file-wide comment among the first lines: add the rule to it.
    if let Some(file_wide) = facts.suppressions.iter().find(|s| s.line.is_none()) {
        return join(file_wide, title, rule);
    }
    let new_text = format!("{}\n", comment(facts.language, &format!("switchyard:disable {rule}")));
    Fix { title, edits: vec![Edit { start: 0, end: 0, new_text }], preferred: false, safe: false }
}

/// The edits of the safe fixes of `diagnostics`, in order, none overlapping another.
pub fn safe_edits(text: &str, facts: &FileFacts, diagnostics: &[Diagnostic]) -> Vec<Edit> {
    let mut edits: Vec<Edit> = diagnostics
        .iter()
        .filter_map(|d| fixes(text, facts, d).into_iter().find(|f| f.safe))
        .filter(|f| f.edits.len() == 1)
        .flat_map(|f| f.edits)
        .collect();
    edits.sort_by_key(|e| (e.start, e.end));
    let mut kept: Vec<Edit> = Vec::with_capacity(edits.len());
    for edit in edits {
        if kept.last().is_none_or(|last| last.end <= edit.start) {
            kept.push(edit);
        }
    }
    kept
}

/// `text` with the safe fixes of `diagnostics` applied, and how many.
pub fn apply_safe(text: &str, facts: &FileFacts, diagnostics: &[Diagnostic]) -> (String, usize) {
    let edits = safe_edits(text, facts, diagnostics);
    let mut out = text.to_owned();
    for edit in edits.iter().rev() {
        out.replace_range(edit.start..edit.end, &edit.new_text);
    }
    (out, edits.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ParsedFile;

    /// Applies each fix the diagnostics of `text` with `rule` get, by title.
    fn applied(language: Language, path: &str, text: &str, rule: &str) -> Vec<(String, String)> {
        let parsed = ParsedFile::parse(language, text);
        let kind = Some(crate::rails::project::classify(path));
        let facts = crate::index::analyze(path.into(), path.to_owned(), kind, text, &parsed);
        let diagnostic =
            facts.diagnostics.iter().find(|d| d.rule == rule).unwrap_or_else(|| panic!("no {rule} in {:?}", facts.diagnostics));
        fixes(text, &facts, diagnostic)
            .into_iter()
            .map(|fix| {
                let mut out = text.to_owned();
                for edit in fix.edits.iter().rev() {
                    out.replace_range(edit.start..edit.end, &edit.new_text);
                }
                (fix.title, out)
            })
            .collect()
    }

    /// The facts of `text` as `app/models/post.rb`.
    fn model_facts(text: &str) -> FileFacts {
        let parsed = ParsedFile::parse(Language::Ruby, text);
        let path = "app/models/post.rb";
        crate::index::analyze(path.into(), path.to_owned(), Some(crate::rails::project::FileKind::Model), text, &parsed)
    }

    /// What the editor shows for `text` as `app/models/post.rb` (suppressions applied).
    fn shown_in_model(text: &str) -> Vec<Diagnostic> {
        crate::checks::file_diagnostics(&model_facts(text), &[], None)
    }

    #[test]
    fn rewrites() {
        let model = "class Post < ApplicationRecord\n  def label = \"Post #@title\"\n  alias summary to_s\nend\n";
        let fixed = applied(Language::Ruby, "app/models/post.rb", model, "syntax.embedded-variable");
        assert_eq!(fixed[0], ("Write `#{@title}`".to_owned(), model.replace("#@title", "#{@title}")));
        let fixed = applied(Language::Ruby, "app/models/post.rb", model, "syntax.alias-keyword");
        assert_eq!(
            fixed[0],
            ("Write `alias_method :summary, :to_s`".to_owned(), model.replace("alias summary to_s", "alias_method :summary, :to_s"))
        );
        let view = "<p>Use #{name} here</p>\n";
        let fixed = applied(Language::Erb, "app/views/posts/show.html.erb", view, "views.text-interpolation");
        assert_eq!(fixed[0].1, "<p>Use &#35;{name} here</p>\n");
        // The view a render names from the root is the same view without the slash, and the
        // finding is gone once it is removed.
        let view = "<%= render \"/shared/tags\", span: 3 %>\n<%= render partial: '/shared/nav' %>\n";
        let fixed = applied(Language::Erb, "app/views/posts/show.html.erb", view, "views.render-path-leading-slash");
        assert_eq!(fixed[0], ("Remove the leading `/`".to_owned(), view.replacen("\"/shared", "\"shared", 1)));
        let facts = |text: &str| {
            let parsed = ParsedFile::parse(Language::Erb, text);
            let path = "app/views/posts/show.html.erb";
            crate::index::analyze(path.into(), path.to_owned(), Some(crate::rails::project::classify(path)), text, &parsed)
        };
        // A controller's `build` with keywords: the same hash, with braces.
        let controller = "class CommentsController < ApplicationController\n  def create\n    @comment = @post.comments.build(body: params[:body], post_id: (1 + 2), note: \")\")\n  end\nend\n";
        let fixed = applied(Language::Ruby, "app/controllers/comments_controller.rb", controller, "controller.build-attributes-not-ruby");
        let braced = controller.replace(
            "build(body: params[:body], post_id: (1 + 2), note: \")\")",
            "build({ body: params[:body], post_id: (1 + 2), note: \")\" })",
        );
        assert_eq!(fixed[0], ("Put braces around the attributes".to_owned(), braced.clone()));
        let path = "app/controllers/comments_controller.rb";
        let parsed = ParsedFile::parse(Language::Ruby, &braced);
        let after = crate::index::analyze(path.into(), path.to_owned(), Some(crate::rails::project::classify(path)), &braced, &parsed);
        assert!(!after.diagnostics.iter().any(|d| d.rule == "controller.build-attributes-not-ruby"), "{:?}", after.diagnostics);
        // A form builder's `options_for_select(…, selected: x)`: the value alone (what Rails reads
        // from the hash), and the finding is gone; with `disabled:` beside it there is no fix.
        let form = "<%= form_with model: @post do |form| %>\n  <%= form.select :title, options_for_select([[\"A\", \"a\"], [\"B, C\", \"b\"]], selected: @post.title) %>\n  <%= form.select :body, options_for_select([\"a\"], selected: \"a\", disabled: \"b\") %>\n<% end %>\n";
        let fixed = applied(Language::Erb, "app/views/posts/new.html.erb", form, "views.select-options-not-ruby");
        assert_eq!(fixed[0], ("Pass the selected value alone".to_owned(), form.replace("selected: @post.title", "@post.title")));
        let after = facts(&fixed[0].1);
        let left: Vec<_> = after.diagnostics.iter().filter(|d| d.rule == "views.select-options-not-ruby").collect();
        assert_eq!(left.len(), 1, "{:?}", after.diagnostics);
        assert!(fixes(&fixed[0].1, &after, left[0]).iter().all(|f| !f.title.starts_with("Pass")), "no rewrite beside `disabled:`");
        let (all_fixed, count) = apply_safe(view, &facts(view), &facts(view).diagnostics);
        assert_eq!((all_fixed.as_str(), count), ("<%= render \"shared/tags\", span: 3 %>\n<%= render partial: 'shared/nav' %>\n", 2));
        assert!(!facts(&all_fixed).diagnostics.iter().any(|d| d.rule == "views.render-path-leading-slash"));
    }

    #[test]
    fn disabling_in_each_comment_syntax() {
        let model = "class Post < ApplicationRecord\n  alias summary to_s\nend\n";
        let fixed = applied(Language::Ruby, "app/models/post.rb", model, "syntax.alias-keyword");
        assert_eq!(fixed[1].0, "Disable `syntax.alias-keyword` for this line");
        assert_eq!(fixed[1].1, model.replace("  alias", "  # switchyard:disable-next-line syntax.alias-keyword\n  alias"));
        assert_eq!(fixed[2].1, format!("# switchyard:disable syntax.alias-keyword\n{model}"));
        // Each fix, applied, silences the finding.
        for (_, text) in &fixed {
            let shown = shown_in_model(text);
            assert!(shown.iter().all(|d| d.rule != "syntax.alias-keyword"), "{text}: {shown:?}");
        }
        let view = "<ul>\n  <p>#{x}</p>\n</ul>\n";
        let fixed = applied(Language::Erb, "app/views/posts/show.html.erb", view, "views.text-interpolation");
        assert_eq!(fixed[1].1, "<ul>\n  <%# switchyard:disable-next-line views.text-interpolation %>\n  <p>#{x}</p>\n</ul>\n");
        // An existing comment takes the rule instead of a second comment.
        let commented = "# switchyard:disable syntax.for-loop\nclass Post < ApplicationRecord\n  # switchyard:disable-next-line syntax.undef\n  alias summary to_s\nend\n";
        let fixed = applied(Language::Ruby, "app/models/post.rb", commented, "syntax.alias-keyword");
        assert!(fixed[1].1.contains("# switchyard:disable-next-line syntax.undef syntax.alias-keyword\n  alias"), "{}", fixed[1].1);
        assert!(fixed[2].1.starts_with("# switchyard:disable syntax.for-loop syntax.alias-keyword\n"), "{}", fixed[2].1);
    }

    #[test]
    fn unused_suppressions_are_removed() {
        let text = "class Post < ApplicationRecord\n  # switchyard:disable-next-line syntax.undef\n  has_many :comments\n  scope :x, -> { all } # switchyard:disable model.scope-body\nend\n";
        let facts = model_facts(text);
        let shown = crate::checks::file_diagnostics(&facts, &[], None);
        let unused: Vec<&Diagnostic> = shown.iter().filter(|d| d.rule == crate::diagnostic::rule::UNUSED_SUPPRESSION).collect();
        assert_eq!(unused.len(), 2);
        let apply = |d: &Diagnostic| {
            let fixes = fixes(text, &facts, d);
            assert_eq!(fixes.len(), 1);
            let mut out = text.to_owned();
            let edit = &fixes[0].edits[0];
            out.replace_range(edit.start..edit.end, &edit.new_text);
            out
        };
        assert_eq!(apply(unused[0]), text.replace("  # switchyard:disable-next-line syntax.undef\n", ""));
        assert_eq!(apply(unused[1]), text.replace(" # switchyard:disable model.scope-body", ""));
    }
}

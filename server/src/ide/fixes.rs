//! Quick fixes for a diagnostic: rewrites where the rule has one mechanical answer (`"#@x"` →
//! `"#{@x}"`, `alias a b` → `alias_method :a, :b`, a text `#{` → `&#35;{`, a misspelt helper or
//! association → the name suggested, an unused suppression removed), and for every rule a
//! `switchyard:disable` comment for the line or the file, written in the file's own comment syntax.

use crate::diagnostic::Diagnostic;
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
pub fn fixes(text: &str, language: Language, diagnostic: &Diagnostic) -> Vec<Fix> {
    let span = diagnostic.span;
    let Some(found) = text.get(span.start_byte..span.end_byte) else { return Vec::new() };
    let mut out = Vec::new();
    if let Some(fix) = rewrite(text, diagnostic, found) {
        out.push(fix);
    }
    if diagnostic.rule == crate::diagnostic::rule::UNUSED_SUPPRESSION {
        return out;
    }
    out.extend(disable_line(text, language, diagnostic));
    out.push(disable_file(text, language, diagnostic.rule));
    out
}

fn replace(title: String, start: usize, end: usize, new_text: String) -> Option<Fix> {
    Some(Fix { title, edits: vec![Edit { start, end, new_text }], preferred: true, safe: true })
}

fn rewrite(text: &str, diagnostic: &Diagnostic, found: &str) -> Option<Fix> {
    let (start, end) = (diagnostic.span.start_byte, diagnostic.span.end_byte);
    match diagnostic.rule {
        "syntax.embedded-variable" => {
            let variable = found.strip_prefix('#').filter(|v| v.starts_with(['@', '$']))?;
            replace(format!("Write `#{{{variable}}}`"), start, end, format!("#{{{variable}}}"))
        }
        "syntax.alias-keyword" => {
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
        "views.text-interpolation" if found.starts_with('#') => {
            replace("Escape the `#` as `&#35;`".to_owned(), start, start + 1, "&#35;".to_owned())
        }
        "rails.unknown-route-helper" | "rails.unknown-association" => {
            let suggestion = diagnostic.message.split("Did you mean `").nth(1)?.split('`').next()?;
            // A symbol is suggested as `:name`; a hash key is written without the colon.
            let suggestion = if found.starts_with(':') { suggestion } else { suggestion.trim_start_matches(':') };
            // A guess: offered, never applied unasked.
            replace(format!("Change to `{suggestion}`"), start, end, suggestion.to_owned()).map(|fix| Fix { safe: false, ..fix })
        }
        crate::diagnostic::rule::UNUSED_SUPPRESSION => {
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
        _ => None,
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

fn disable_line(text: &str, language: Language, diagnostic: &Diagnostic) -> Option<Fix> {
    if matches!(language, Language::OtherTemplate) {
        return None;
    }
    let rule = diagnostic.rule;
    let line_start = text[..diagnostic.span.start_byte].rfind('\n').map_or(0, |i| i + 1);
    let title = format!("Disable `{rule}` for this line");
    // A `disable-next-line` comment right above: add the rule to it.
    if line_start > 0 {
        let previous_start = text[..line_start - 1].rfind('\n').map_or(0, |i| i + 1);
        let previous = &text[previous_start..line_start - 1];
        if let Some(at) = previous.find("switchyard:disable-next-line") {
            let end = previous.trim_end().trim_end_matches("%>").trim_end().len().max(at);
            let insert = previous_start + end;
            return Some(Fix {
                title,
                edits: vec![Edit { start: insert, end: insert, new_text: format!(" {rule}") }],
                preferred: false,
                safe: false,
            });
        }
    }
    let line = &text[line_start..];
    let indent: String = line.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
    let new_text = format!("{indent}{}\n", comment(language, &format!("switchyard:disable-next-line {rule}")));
    Some(Fix { title, edits: vec![Edit { start: line_start, end: line_start, new_text }], preferred: false, safe: false })
}

fn disable_file(text: &str, language: Language, rule: &str) -> Fix {
    let title = format!("Disable `{rule}` for this file");
    // A file-wide comment among the first lines: add the rule to it.
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        let is_comment = trimmed.starts_with('#') || trimmed.starts_with("<%#") || trimmed.starts_with("-#");
        if !is_comment {
            break;
        }
        if let Some(at) = line.find("switchyard:disable").filter(|&at| !line[at..].starts_with("switchyard:disable-next-line")) {
            let end = line.trim_end().trim_end_matches("%>").trim_end().len().max(at);
            let insert = offset + end;
            return Fix {
                title,
                edits: vec![Edit { start: insert, end: insert, new_text: format!(" {rule}") }],
                preferred: false,
                safe: false,
            };
        }
        offset += line.len();
    }
    let new_text = format!("{}\n", comment(language, &format!("switchyard:disable {rule}")));
    Fix { title, edits: vec![Edit { start: 0, end: 0, new_text }], preferred: false, safe: false }
}

/// The edits of the safe fixes of `diagnostics`, in order, none overlapping another.
pub fn safe_edits(text: &str, language: Language, diagnostics: &[Diagnostic]) -> Vec<Edit> {
    let mut edits: Vec<Edit> = diagnostics
        .iter()
        .filter_map(|d| fixes(text, language, d).into_iter().find(|f| f.safe))
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
pub fn apply_safe(text: &str, language: Language, diagnostics: &[Diagnostic]) -> (String, usize) {
    let edits = safe_edits(text, language, diagnostics);
    let mut out = text.to_owned();
    for edit in edits.iter().rev() {
        out.replace_range(edit.start..edit.end, &edit.new_text);
    }
    (out, edits.len())
}

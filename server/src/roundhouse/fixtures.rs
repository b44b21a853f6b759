//! `fixtures.unsupported-value`: the `test/fixtures/*.yml` (and `.yaml`) values Roundhouse's fixture reader rejects,
//! each of which stops the compile. Measured against the compiler
//! (`tests/fixtures/fidelity/fixtures-*.fixture`): a field whose value is a list or a hash (`[]`,
//! `{}`, `- a` lines, nested keys, a `<<: *defaults` merge), an ERB tag inside a larger value
//! (`url: file://<%= Rails.root %>/x`, labels made in an ERB loop), and a label whose value is ERB
//! rather than its fields. A value that is one ERB tag, quoted or not, and block scalars (`|`, `>`)
//! are read.
//!
//! Fixture files are read line by line, as their simple shape allows (labels at the left margin,
//! fields indented under them); it does not parse YAML in general.

use crate::diagnostic::Diagnostic;
use crate::syntax::LineIndex;

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `key: value` → (key, value), for a line that is a mapping entry.
fn entry(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim_start();
    if trimmed.starts_with('#') || trimmed.starts_with('-') {
        return None;
    }
    let (key, value) = trimmed.split_once(':')?;
    // `http://x` in a value line is no entry; a key has no spaces unless quoted.
    if key.contains(' ') && !key.starts_with(['"', '\'']) {
        return None;
    }
    Some((key.trim(), value.trim()))
}

/// Whether a value is exactly one ERB tag (quotes around it allowed).
fn whole_erb(value: &str) -> bool {
    let inner = value.trim_matches(|c| c == '"' || c == '\'');
    inner.starts_with("<%") && inner.ends_with("%>") && inner.matches("<%").count() == 1
}

/// The next line that is neither blank nor a comment.
fn next_significant<'a>(lines: &[&'a str]) -> Option<&'a str> {
    lines.iter().copied().find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

pub fn check(text: &str, line_index: &LineIndex) -> Vec<Diagnostic> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut offset = 0;
    let mut label = String::new();
    // Inside a block scalar (`filters: |`): lines indented deeper than its key are its text.
    let mut block_scalar: Option<usize> = None;
    let mut top_list = false;
    for (i, line) in lines.iter().enumerate() {
        let start = offset;
        offset += line.len() + 1;
        if let Some(key_indent) = block_scalar {
            if line.trim().is_empty() || indent(line) > key_indent {
                continue;
            }
            block_scalar = None;
        }
        let trimmed = line.trim_start();
        if trimmed.is_empty()
            || trimmed.starts_with('#')
            || trimmed.starts_with("---")
            || (trimmed.starts_with("<%") && indent(line) == 0 && !line.contains(':'))
        {
            continue;
        }
        if indent(line) == 0 && (trimmed == "-" || trimmed.starts_with("- ")) {
            if !top_list {
                top_list = true;
                let span = line_index.span(start..start + line.trim_end().len());
                out.push(crate::diagnostic::Diagnostic::finding(
                    rule!("fixtures.unsupported-value"),
                    span,
                    "Roundhouse's fixture reader rejects a file that is a list: it reads labels, each with its fields, and the compile stops. Instead, give each record a label: `first:` with its fields indented under it.".to_owned(),
                ));
            }
            continue;
        }
        let Some((key, value)) = entry(line) else { continue };
        // A comment after the colon is no value.
        let value = if value.starts_with('#') { "" } else { value };
        if value.starts_with(['|', '>']) {
            block_scalar = Some(indent(line));
            continue;
        }
        let span = line_index.span(start + indent(line)..start + line.trim_end().len());
        let mut report = |why: String, instead: &str| {
            out.push(crate::diagnostic::Diagnostic::finding(
                rule!("fixtures.unsupported-value"),
                span,
                format!("Roundhouse's fixture reader rejects {why}: the compile stops. Instead, {instead}"),
            ));
        };
        if indent(line) == 0 {
            label = key.to_owned();
            if key.contains("<%") {
                report(
                    format!("the label `{key}`, made by ERB (fixtures are read before ERB could repeat them)"),
                    "write the fixtures out, one label each.",
                );
            } else if value.contains("<%") {
                report(format!("`{key}`, whose value is ERB instead of its fields"), "write the label's fields under it.");
            } else if value.is_empty() {
                if next_significant(&lines[i + 1..]).is_some_and(|next| next.trim_start().starts_with("- ")) {
                    report(format!("`{key}`, whose value is a list instead of its fields"), FIELDS_UNDER_LABEL);
                }
            } else if !value.starts_with(['{', '&', '*']) {
                // An empty label is an empty record, and `{…}`, an anchor or an alias a map; anything
                // else (`~`, a string, a number, a `[…]` list) is not the map of fields the reader wants.
                report(format!("`{key}`, whose value is `{value}` instead of its fields"), FIELDS_UNDER_LABEL);
            }
            continue;
        }
        let field = format!("`{label}.{key}`");
        let not_scalar = || format!("{field}, whose value is a list or a hash, not a scalar");
        const AS_STRING: &str = "store the value as a string (`tags: \"a,b\"`, a JSON string), or build the record in the test.";
        if key == "<<" {
            report(format!("{field} (a merge of shared fields)"), "write the shared fields out in each fixture.");
        } else if value.starts_with('[') || value.starts_with('{') {
            report(not_scalar(), AS_STRING);
        } else if value.is_empty() {
            let nested = next_significant(&lines[i + 1..]);
            if nested.is_some_and(|next| indent(next) > indent(line) || next.trim_start().starts_with("- ")) {
                report(not_scalar(), AS_STRING);
            }
        } else if value.contains("<%") && !whole_erb(value) {
            report(
                format!("{field}, an ERB tag inside a larger value"),
                "make the whole value one tag: `url: <%= \"file://#{Rails.root}/x\" %>`.",
            );
        }
    }
    out
}

const FIELDS_UNDER_LABEL: &str =
    "write the label's fields indented under it (`title: ...`), or leave the label empty for a record of defaults.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejected_values_and_the_ones_read() {
        let text = "---\none:\n  filters: |\n    ---\n    cf_1:\n      :values:\n      - MySQL\n  title: <%= \"x\" %>\n  quoted: \"<%= 1 + 1 %>\"\n  url: file:///<%= Rails.root %>/tmp\n  tags: []\n  meta:\n    a: 1\n  list:\n    - a\n  body: |\n    multi\n  note: plain\ntwo: <%= {a: 1}.to_yaml %>\nthree:\n  <<: *defaults\n";
        let found: Vec<String> = check(text, &LineIndex::new(text))
            .iter()
            .map(|d| format!("{}:{}", d.span.start.line + 1, d.message.split(':').next().unwrap_or("")))
            .collect();
        assert_eq!(
            found,
            [
                "10:Roundhouse's fixture reader rejects `one.url`, an ERB tag inside a larger value",
                "11:Roundhouse's fixture reader rejects `one.tags`, whose value is a list or a hash, not a scalar",
                "12:Roundhouse's fixture reader rejects `one.meta`, whose value is a list or a hash, not a scalar",
                "14:Roundhouse's fixture reader rejects `one.list`, whose value is a list or a hash, not a scalar",
                "19:Roundhouse's fixture reader rejects `two`, whose value is ERB instead of its fields",
                "21:Roundhouse's fixture reader rejects `three.<<` (a merge of shared fields)",
            ]
        );
    }

    /// Each label must be a map of fields: measured against the compiler one file at a time (an empty
    /// label, `{}`, an anchor and an integer label are read; the rest stop the compile).
    #[test]
    fn a_label_that_is_not_a_map_of_fields() {
        let lines = |text: &str| -> Vec<u32> { check(text, &LineIndex::new(text)).iter().map(|d| d.span.start.line + 1).collect() };
        assert_eq!(lines("first: no fields here\n"), [1]);
        assert_eq!(lines("first: ~\n"), [1]);
        assert_eq!(lines("first: []\n"), [1]);
        assert_eq!(lines("# a note\nfirst:\n  - a\n"), [2]);
        assert_eq!(lines("- a\n- b\n"), [1]);
        assert!(lines("first:\nsecond:\n  title: x\n").is_empty());
        assert!(lines("first: {}\n1:\n  title: x\n").is_empty());
        assert!(lines("DEFAULTS: &DEFAULTS\n  title: x\nfirst: # later\n  title: y\n").is_empty());
        assert!(lines("").is_empty());
        assert!(lines("---\n# nothing\n").is_empty());
    }
}

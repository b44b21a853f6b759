//! Each rule's documentation: the catalogue's id, severity, targets and trigger, with the prose of
//! `rule_docs.md` (why, an example, the fix). One text, three readers: `switchyard explain <id>`, the
//! pages the editor's rule links open, and `docs/rules.md` (`switchyard rules --format markdown`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::catalogue::{RULES, Rule, severity_meaning};

const PROSE: &str = include_str!("rule_docs.md");

/// The prose of one rule, as `rule_docs.md` writes it.
#[derive(Debug, Default, PartialEq)]
pub struct Prose {
    pub why: String,
    pub example: String,
    pub fix: String,
}

/// The prose of `id`, if `rule_docs.md` has a section for it (read once).
pub fn prose(id: &str) -> Option<&'static Prose> {
    static BY_ID: std::sync::LazyLock<std::collections::HashMap<&'static str, Prose>> =
        std::sync::LazyLock::new(|| sections().map(|(id, body)| (id, parse(body))).collect());
    BY_ID.get(id)
}

/// Whether `id` has a page: a catalogue rule or one of Switchyard's own.
pub fn documented(id: &str) -> bool {
    crate::catalogue::rule(id).is_some() || OWN.iter().any(|(own, _)| *own == id)
}

/// `(id, body)` for every `## id` section of `rule_docs.md`.
fn sections() -> impl Iterator<Item = (&'static str, &'static str)> {
    PROSE.split("\n## ").skip(1).map(|section| {
        let (id, body) = section.split_once('\n').unwrap_or((section, ""));
        (id.trim(), body)
    })
}

fn parse(body: &str) -> Prose {
    // why, example, fix
    let mut fields: [String; 3] = Default::default();
    let mut current: Option<usize> = None;
    for line in body.lines() {
        let mut rest = line;
        for (i, prefix) in ["Why:", "Example:", "Fix:"].iter().enumerate() {
            if let Some(after) = line.strip_prefix(prefix) {
                current = Some(i);
                rest = after.trim_start_matches(' ');
            }
        }
        let Some(i) = current else { continue };
        let text = &mut fields[i];
        if !(text.is_empty() && rest.is_empty()) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(rest);
        }
    }
    let [why, example, fix] = fields.map(|f| f.trim_end().to_owned());
    Prose { why, example, fix }
}

/// One rule's page in Markdown, its title at heading `level` (1 for a page of its own).
pub fn page(rule: &Rule, level: usize) -> String {
    let title = "#".repeat(level);
    let sub = "#".repeat(level + 1);
    let targets: Vec<&str> = rule.targets.iter().map(|t| t.as_str()).collect();
    let none = Prose::default();
    let prose = prose(rule.id).unwrap_or(&none);
    let mut out = String::new();
    let _ = writeln!(out, "{title} {}\n", rule.id);
    let status = if rule.implemented { "" } else { " · not reported by this version yet" };
    if rule.lanes.is_empty() {
        let _ = writeln!(out, "**{}** · targets: {}{status}\n", rule.severity.as_str(), targets.join(", "));
    } else {
        let lanes: Vec<&str> = rule.lanes.iter().map(|l| l.as_str()).collect();
        let _ = writeln!(out, "**{}** · lanes: {}{status}\n", rule.severity.as_str(), lanes.join(", "));
    }
    let _ = writeln!(out, "{sub} What triggers it\n\n{}\n", rule.trigger.replace("\\|", "|"));
    for (heading, text) in [("Why", &prose.why), ("Example", &prose.example), ("Fix", &prose.fix)] {
        if !text.is_empty() {
            let _ = writeln!(out, "{sub} {heading}\n\n{text}\n");
        }
    }
    if let Some(fix) = rule.fix {
        let safe = if fix.is_safe() { " `switchyard --check --fix` applies it too." } else { "" };
        let _ = writeln!(out, "{sub} Quick fix\n\nThe editor offers one: it {}.{safe}\n", fix.describe());
    }
    let meaning = if rule.family == crate::catalogue::Family::Rails {
        "a wiring check that needs no compiler: Rails itself fails here when the code runs, whatever the target."
    } else if rule.family == crate::catalogue::Family::Lanes {
        "a runtime-lane finding: what the runtime does with the app's deployment files, gems or code, whichever tree it runs (`switchyard lanes` shows every lane; the default lanes are the targets' own, `--lane` and `lanes = [...]` in `switchyard.toml` choose others). Error: it stops there; warning: it fails or costs there until changed; info: a fact to know."
    } else {
        severity_meaning(rule.severity)
    };
    let _ = writeln!(out, "{sub} Severity\n\n{}: {meaning}\n", rule.severity.as_str());
    let _ = writeln!(
        out,
        "{sub} Silencing it\n\n`# switchyard:disable {id}` at the end of the line, `# switchyard:disable-next-line {id}` above it, \
         or `# switchyard:disable {id}` among the file's first comments for the whole file. In `switchyard.toml`: \
         `[rules]` `\"{id}\" = \"off\"` (or `\"info\"`, `\"warning\"`, `\"error\"`).",
        id = rule.id
    );
    out
}

/// Switchyard's own diagnostics, outside the catalogue (they are about Switchyard's settings, not about
/// Roundhouse): id and page body.
pub const OWN: &[(crate::diagnostic::RuleId, &str)] = &[
    (
        rule!("switchyard.unused-suppression"),
        "**info** · Switchyard's own\n\nA `# switchyard:disable` comment that silences nothing: no finding of the rules it names is on \
         its line (or, for a file-wide comment, in the file), or an id it names is no rule. It may have outlived the code it was \
         written for.\n\n## Fix\n\nRemove the comment (the quick fix does), or correct the rule id (`switchyard rules` lists them).\n",
    ),
    (
        rule!("switchyard.config"),
        "**error** · Switchyard's own\n\nThe app's `switchyard.toml` has a mistake on this line: an unknown key, target, rule or level, \
         or a glob that does not parse. Until it is fixed the app is checked with the defaults (targets ruby and jruby, every \
         rule at its own level, no excludes).\n\n## Fix\n\nSee the message; the settings are `targets = [\"ruby\", \"jruby\", \
         \"spinel\"]`, `exclude = [\"glob\", …]` and `[rules]` `\"rule.id\" = \"off\" | \"info\" | \"warning\" | \"error\"`.\n",
    ),
    (
        rule!("switchyard.skipped-file"),
        "**warning** · Switchyard's own\n\nSwitchyard did not read this file, or not all of it, and says why: its Ruby nests deeper than \
         1,000 levels (real code stays under 50; such a file is usually generated), or it is larger than Switchyard reads. \
         Nothing in it is checked, and what it defines (models, routes, methods) is unknown to the rest of the app, so \
         findings elsewhere that depend on it may be missing.\n\n## Fix\n\nNone is needed if the file is generated or \
         vendored: exclude it (`exclude = [\"path/glob\"]` in `switchyard.toml`). Otherwise split the nesting up.\n",
    ),
    (
        rule!("switchyard.unexpanded-routes"),
        "**info** · Switchyard's own\n\nSwitchyard reads the routes file as Rails draws it, without running it: \
         it expands the routing DSL, loops over literal arrays, hashes and ranges, constants and locals the file assigns, and \
         conditions on `Rails.env` (as `bin/rails routes` runs, in development). This call makes routes it cannot list: a \
         gem's macro (`devise_for`, `use_doorkeeper`), a loop over something else, a condition on more than the environment \
         (`ENV[\"ADMIN\"]`), or a call that is missing what it needs. Its routes are missing from `switchyard routes`, and \
         since their names are unknown, `rails.unknown-route-helper` says nothing in this app rather than something wrong.\n\n\
         ## Fix\n\nNone is needed. To have the routes listed, write them with the DSL (or loop over a literal).\n",
    ),
];

/// The page of one of Switchyard's own diagnostics.
pub fn own_page(id: &str) -> Option<String> {
    own_page_at(id, 1)
}

fn own_page_at(id: &str, level: usize) -> Option<String> {
    let (id, body) = OWN.iter().find(|(own, _)| *own == id)?;
    let body = body.replace("## ", &format!("{} ", "#".repeat(level + 1)));
    Some(format!("{} {id}\n\n{body}", "#".repeat(level)))
}

/// One line on a rule, for a hover: its id, severity, targets and why.
pub fn summary(id: &str) -> Option<String> {
    if let Some(rule) = crate::catalogue::rule(id) {
        let targets: Vec<&str> = rule.targets.iter().map(|t| t.as_str()).collect();
        let why = prose(id).map_or("", |p| p.why.as_str());
        return Some(format!("**{id}** ({}; {}): {why}", rule.severity.as_str(), targets.join(", ")));
    }
    OWN.iter().find(|(own, _)| *own == id).map(|(id, body)| {
        let text = body.split("\n\n").nth(1).unwrap_or("");
        format!("**{id}** (Switchyard's own): {text}")
    })
}

/// Every rule's page, in catalogue order: `docs/rules.md`.
pub fn book() -> String {
    let mut out = String::from(
        "# Switchyard rules\n\nEvery construct Roundhouse rejects, drops or compiles differently from Rails, as Switchyard reports it. \
         Generated by `switchyard rules --format markdown`; `switchyard explain <id>` prints one rule.\n\n",
    );
    let mut family = None;
    for rule in RULES {
        if family != Some(rule.family) {
            family = Some(rule.family);
            let _ = writeln!(out, "## {}\n", rule.family.as_str());
        }
        out.push_str(&page(rule, 3));
        out.push('\n');
    }
    out.push_str("## switchyard (Switchyard's own)\n\n");
    for (id, _) in OWN {
        out.extend(own_page_at(id, 3));
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// Writes one page per rule into `dir` (`<id>.md`), leaving files that already say the same alone.
/// Writes every rule's page into `dir`, leaving alone the pages already up to date; returns the pages
/// it wrote.
pub fn write_pages(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let pages =
        RULES.iter().map(|rule| (rule.id, page(rule, 1))).chain(OWN.iter().filter_map(|(id, _)| Some((id.as_str(), own_page(id)?))));
    let mut written = Vec::new();
    for (id, text) in pages {
        let path = dir.join(format!("{id}.md"));
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text)?;
            written.push(path);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_its_prose_and_nothing_else_does() {
        for rule in RULES {
            let prose = prose(rule.id).unwrap_or_else(|| panic!("rule_docs.md has no section for {}", rule.id));
            assert!(!prose.why.is_empty() && !prose.example.is_empty() && !prose.fix.is_empty(), "{}: {prose:?}", rule.id);
        }
        for (id, _) in sections() {
            assert!(crate::catalogue::rule(id).is_some(), "rule_docs.md documents `{id}`, which is no rule");
        }
    }

    #[test]
    fn a_page_has_the_catalogue_facts_and_the_prose() {
        let rule = crate::catalogue::rule("syntax.for-loop").unwrap();
        let page = page(rule, 1);
        assert!(page.starts_with("# syntax.for-loop\n\n**error** · targets: ruby, jruby, spinel\n"), "{page}");
        assert!(page.contains("## Why\n\nThe ingest has no `for … in` node"), "{page}");
        assert!(page.contains("## Fix\n\n```ruby\nrows.each { |row| total += row.amount }\n```\n"), "{page}");
    }

    #[test]
    fn pages_are_written_once() {
        let dir = std::env::temp_dir().join(format!("switchyard-rule-pages-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(write_pages(&dir).unwrap().len(), RULES.len() + OWN.len(), "every page is written the first time");
        assert_eq!(write_pages(&dir).unwrap(), Vec::<PathBuf>::new(), "pages already up to date are left alone");
        // A page left by another version (or edited by hand) is written again, with the current text.
        let path = dir.join("views.output-block-pairing.md");
        std::fs::write(&path, "stale").unwrap();
        assert_eq!(write_pages(&dir).unwrap(), vec![path.clone()]);
        let rule = crate::catalogue::rule("views.output-block-pairing").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), page(rule, 1));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), RULES.len() + OWN.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

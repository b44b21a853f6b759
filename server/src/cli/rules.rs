//! `switchyard rules` (the catalogue: id, severity, targets, whether Switchyard reports it yet) and
//! `switchyard explain <rule-id>`.

use std::io::Write;

use super::Outcome;
use crate::catalogue::{RULES, rule};

pub fn rules(markdown: bool) -> Result<Outcome, String> {
    let mut out = super::stdout();
    let io = super::write_failed;
    if markdown {
        out.write_all(crate::roundhouse::rule_docs::book().as_bytes()).map_err(io)?;
        super::finish(out)?;
        return Ok(Outcome::Clean);
    }
    let width = RULES.iter().map(|r| r.id.len()).max().unwrap_or(0);
    writeln!(out, "{:<width$}  {:<8} {:<22} reported", "rule", "severity", "targets (lanes)").map_err(io)?;
    for r in RULES {
        // A `lanes.*` rule is about runtime lanes, not targets: its lanes, in brackets.
        let targets: Vec<&str> = r.targets.iter().map(|t| t.as_str()).collect();
        let lanes: Vec<&str> = r.lanes.iter().map(|l| l.as_str()).collect();
        let shown = if lanes.is_empty() { targets.join(",") } else { format!("({})", lanes.join(",")) };
        writeln!(out, "{:<width$}  {:<8} {:<22} {}", r.id, r.severity.as_str(), shown, if r.implemented { "yes" } else { "not yet" })
            .map_err(io)?;
    }
    let reported = RULES.iter().filter(|r| r.implemented).count();
    writeln!(out, "\n{} rules, {reported} reported by this version. `switchyard explain <rule>` for one.", RULES.len()).map_err(io)?;
    super::finish(out)?;
    Ok(Outcome::Clean)
}

pub fn explain(id: &str) -> Result<Outcome, String> {
    if let Some(page) = crate::roundhouse::rule_docs::own_page(id) {
        return print_page(&page);
    }
    let Some(r) = rule(id) else {
        let close: Vec<&str> = RULES
            .iter()
            .map(|r| r.id)
            .filter(|other| other.contains(id) || id.contains(other.split('.').nth(1).unwrap_or("~")))
            .take(5)
            .collect();
        let hint =
            if close.is_empty() { "`switchyard rules` lists them".to_owned() } else { format!("did you mean {}?", close.join(", ")) };
        return Err(format!("no rule `{id}`: {hint}"));
    };
    print_page(&crate::roundhouse::rule_docs::page(r, 1))
}

/// A rule's Markdown page: rendered on a terminal (styled unless `--color never` or NO_COLOR says
/// otherwise) or with `--color always`; as Markdown when piped, for a pager or a Markdown tool.
fn print_page(page: &str) -> Result<Outcome, String> {
    use std::io::IsTerminal;
    let stdout = std::io::stdout();
    let choice = anstream::AutoStream::choice(&stdout);
    let rendered = if stdout.is_terminal() || anstream::ColorChoice::global() == anstream::ColorChoice::Always {
        super::markdown::render(page, choice != anstream::ColorChoice::Never)
    } else {
        page.to_owned()
    };
    stdout.lock().write_all(rendered.as_bytes()).map_err(super::write_failed)?;
    Ok(Outcome::Clean)
}

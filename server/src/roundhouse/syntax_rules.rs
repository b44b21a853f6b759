//! What each `syntax.*` finding says (`message`): what Roundhouse does with the construct, and what
//! to write instead. Where the constructs are found is `prism_ingest`'s (Roundhouse's ingest, on
//! Prism's tree).

use crate::catalogue;
use crate::diagnostic::{RuleId, Severity};

/// What Roundhouse does with the construct, and what to write instead (the catalogue's
/// `Rule::says`).
pub fn message(rule: RuleId, text: &str) -> String {
    let snippet = text.lines().next().unwrap_or("").trim();
    let snippet =
        if snippet.chars().count() > 40 { format!("{}…", snippet.chars().take(40).collect::<String>()) } else { snippet.to_owned() };
    if rule == rule!("spinel.dynamic-dispatch") {
        return format!(
            "`{snippet}` cannot be compiled ahead of time: the Spinel lane cannot run this code. Instead, call the method by name."
        );
    }
    let catalogued = catalogue::rule(&rule);
    let (what, instead) = catalogued.and_then(|r| r.says.as_ref()).map_or(("this form", "rewrite it"), |says| (says.what, says.instead));
    let consequence = match catalogued.map(|r| r.severity) {
        Some(Severity::Error) => "Roundhouse's ingest rejects",
        _ => "Roundhouse drops",
    };
    format!("{consequence} {what}: `{snippet}`. Instead, {instead}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_syntax_rule_message_names_the_fix() {
        for rule in catalogue::RULES
            .iter()
            .filter(|r| r.family == crate::catalogue::Family::Syntax && r.id != "syntax.parse-error" && r.id != "syntax.def-in-expression")
        {
            let text = message(crate::catalogue::lookup(rule.id).unwrap(), "x");
            assert!(text.contains("Instead, ") && !text.contains("this form"), "{}: {text}", rule.id);
        }
    }
}

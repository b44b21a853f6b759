//! Diagnostics in editor terms: what a hover on a `# switchyard:disable …` comment says. The
//! diagnostics themselves are `checks`.

use super::routes::Hover;
use crate::rails::FileFacts;
use crate::roundhouse;

/// Hover on a `# switchyard:disable …` comment: what each rule it names is, and what it silences.
pub fn suppression_hover(facts: &FileFacts, offset: usize) -> Option<Hover> {
    let suppression = facts.suppressions.iter().find(|s| s.span.contains(offset))?;
    let scope = match suppression.line {
        None => "the whole file".to_owned(),
        Some(line) if line == suppression.span.start.line => "this line".to_owned(),
        Some(line) => format!("line {}", line + 1),
    };
    let mut markdown = format!("Silences, for {scope}:\n");
    for rule in &suppression.rules {
        let line =
            roundhouse::rule_docs::summary(rule).unwrap_or_else(|| format!("**{rule}**: no such rule (`switchyard rules` lists them)"));
        markdown.push_str(&format!("\n- {line}"));
    }
    Some(Hover { markdown, span: suppression.span })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::Fixture;

    #[test]
    fn hover_on_a_suppression_names_its_rules() {
        let fixture = Fixture::new(
            "#- /app/models/post.rb\n# switchyard:disable syntax.for-loop\nclass Post < ApplicationRecord\n  has_many :tags # switchyard:disable model.nope\nend\n",
        );
        let facts = fixture.facts("app/models/post.rb");
        let file_wide = suppression_hover(&facts, 5).expect("a hover on the header comment");
        assert!(
            file_wide
                .markdown
                .starts_with("Silences, for the whole file:\n\n- **syntax.for-loop** (error; ruby, jruby, spinel): The ingest"),
            "{}",
            file_wide.markdown
        );
        let text =
            "# switchyard:disable syntax.for-loop\nclass Post < ApplicationRecord\n  has_many :tags # switchyard:disable model.nope\n";
        let at = text.find("model.nope").unwrap();
        let line = suppression_hover(&facts, at).unwrap();
        assert_eq!(line.markdown, "Silences, for this line:\n\n- **model.nope**: no such rule (`switchyard rules` lists them)");
        assert!(suppression_hover(&facts, text.find("has_many").unwrap()).is_none());
    }
}

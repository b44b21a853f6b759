//! The `syntax.*` rules: Ruby forms Roundhouse's ingest rejects. Most are patterns in
//! `queries/ruby/rules/syntax.scm` (each capture named after its rule); the two that need ancestry are
//! checked here: a class variable written inside a method, and a class or module defined inside a
//! method. They run on `.rb` files and on the Ruby inside templates.

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, QueryCursor, Tree};

use super::catalogue;
use crate::diagnostic::{Diagnostic, Severity};
use crate::syntax::queries::SYNTAX_RULES;
use crate::syntax::{Span, text_of};

/// What Roundhouse does with the construct, and what to write instead.
fn message(rule: &str, text: &str) -> String {
    let snippet = text.lines().next().unwrap_or("").trim();
    let snippet =
        if snippet.chars().count() > 40 { format!("{}…", snippet.chars().take(40).collect::<String>()) } else { snippet.to_owned() };
    let (what, instead) = match rule {
        "syntax.backtick-command" => ("shell commands (`cmd`, %x())", "use Open3 or Process.spawn in code Roundhouse does not compile"),
        "syntax.for-loop" => ("`for … in` loops", "write `collection.each do |x| … end`"),
        "syntax.pattern-matching" => ("pattern matching (`case … in`, `x in Pat`, `x => Pat`)", "use `case … when` or explicit checks"),
        "syntax.regex-named-capture" => {
            ("a regexp whose named captures assign locals (`/(?<y>…)/ =~ s`)", "use `m = s.match(/(?<y>…)/)` and `m[:y]`")
        }
        "syntax.global-variable-write" => ("writes to global variables", "use a constant, a class-level reader or configuration"),
        "syntax.class-variable-in-method" => {
            ("class variables written inside a method", "use a class-level instance variable (`@x` in `class << self`) or a constant")
        }
        "syntax.alias-keyword" => ("the `alias` keyword", "write `alias_method :new, :old`"),
        "syntax.undef" => ("`undef`", "remove the method from the class instead"),
        "syntax.magic-constant" => ("`__FILE__`, `__LINE__` and `__ENCODING__`", "use `__dir__` or a constant"),
        "syntax.rational-imaginary" => ("rational and imaginary literals (`1r`, `2i`)", "use `Rational(1)` or floats"),
        "syntax.begin-end-block" => ("`BEGIN { }` and `END { }` blocks", "call the code from an initializer or `at_exit`"),
        "syntax.argument-forwarding" => ("argument forwarding (`...`)", "name the parameters and pass them on"),
        "syntax.anonymous-keyword-forwarding" => ("anonymous keyword forwarding (`**`)", "name it: `**options`"),
        "syntax.flip-flop" => ("flip-flops", "track the state in a variable"),
        "syntax.nested-definition" => {
            ("a class or module defined inside a method (or a class nested in a model's body)", "define it at the top level of a file")
        }
        "syntax.multi-assign-target" => ("multiple assignment to attributes or around a splat", "assign one target per statement"),
        "syntax.regex-once-flag" => ("the `/o` flag on an interpolated regexp", "build the regexp once into a constant"),
        "syntax.defined-path" => ("`defined?` on a path or a method call", "use `defined?(Name)` or `respond_to?`"),
        "syntax.do-while" => ("`begin … end while` loops", "write `loop do … break unless c end`"),
        "syntax.multi-index-assign" => {
            ("compound assignment to a multi-index element (`m[i, j] += 1`)", "read, compute and write back in separate statements")
        }
        "syntax.empty-interpolation" => ("an empty interpolation (`#{}`)", "remove it"),
        "syntax.embedded-variable" => ("`#@x` / `#$x` interpolation", "write `#{@x}`"),
        "syntax.block-argument-form" => {
            ("a block argument other than `&:sym` or `&local`", "pass a block, or assign the proc to a local first")
        }
        "syntax.dynamic-class-name" => ("a class whose name is computed (`class (expr)::Foo`)", "name the class with constants"),
        "syntax.block-parameter-form" => (
            "destructuring, default, splat, keyword and block parameters of a block (they are dropped)",
            "take plain names and unpack inside the block",
        ),
        _ => ("this form", "rewrite it"),
    };
    let consequence = match catalogue::rule(rule).map(|r| r.severity) {
        Some(Severity::Error) => "Roundhouse's ingest rejects",
        _ => "Roundhouse drops",
    };
    format!("{consequence} {what}: `{snippet}`. Instead, {instead}.")
}

/// A finding of a `syntax.*` rule found outside the query (a HAML `for` loop), with the rule's message.
pub fn finding(rule: crate::diagnostic::RuleId, span: Span, snippet: &str) -> Diagnostic {
    let severity = catalogue::rule(&rule).map_or(Severity::Error, |r| r.severity);
    Diagnostic { span, severity, rule, message: message(&rule, snippet) }
}

fn diagnostic(rule: crate::diagnostic::RuleId, node: Node<'_>, text: &str) -> Diagnostic {
    let severity = catalogue::rule(&rule).map_or(Severity::Error, |r| r.severity);
    Diagnostic { span: Span::of(node), severity, rule, message: message(&rule, text_of(node, text)) }
}

/// A capture's name as its rule id (the query's captures are named after rules).
fn rule_id(capture: &str) -> Option<crate::diagnostic::RuleId> {
    catalogue::lookup(capture)
}

pub fn check(tree: &Tree, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(query) = SYNTAX_RULES.as_ref() {
        let names = query.capture_names();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
        while let Some(m) = matches.next() {
            for capture in m.captures() {
                if let Some(rule) = rule_id(names[capture.index as usize])
                    && !out.iter().any(|d: &Diagnostic| d.rule == rule && d.span.start_byte == capture.node.start_byte())
                {
                    out.push(diagnostic(rule, capture.node, text));
                }
            }
        }
    }
    ancestry_checks(tree.root_node(), text, false, &mut out);
    out.sort_by_key(|d| (d.span.start_byte, d.rule));
    out
}

/// Class variables written and classes defined inside a `def`; magic constants.
fn ancestry_checks(node: Node<'_>, text: &str, in_method: bool, out: &mut Vec<Diagnostic>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        let kind = child.kind();
        if kind == "identifier" && matches!(text_of(child, text), "__FILE__" | "__LINE__" | "__ENCODING__") {
            out.push(diagnostic(rule!("syntax.magic-constant"), child, text));
        }
        if in_method {
            if matches!(kind, "assignment" | "operator_assignment")
                && child.child_by_field_name("left").is_some_and(|l| l.kind() == "class_variable")
            {
                out.push(diagnostic(rule!("syntax.class-variable-in-method"), child, text));
            }
            if matches!(kind, "class" | "module" | "singleton_class") {
                out.push(diagnostic(rule!("syntax.nested-definition"), child, text));
            }
        }
        ancestry_checks(child, text, in_method || matches!(kind, "method" | "singleton_method"), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Language, ParsedFile};

    fn rules(text: &str) -> Vec<String> {
        let parsed = ParsedFile::parse(Language::Ruby, text);
        check(parsed.ruby.as_ref().unwrap(), text)
            .into_iter()
            .map(|d| format!("{}:{} {}", d.span.start.line + 1, d.span.start.col + 1, d.rule))
            .collect()
    }

    #[test]
    fn class_variables_and_classes_inside_methods() {
        let found = rules(
            "class Cache\n  @@store = nil\n  class << self\n    def store\n      @@store ||= {}\n    end\n  end\n  def build\n    klass = Class.new\n    class Inner; end\n  end\nend\n",
        );
        assert_eq!(found, ["5:7 syntax.class-variable-in-method", "10:5 syntax.nested-definition"]);
    }

    #[test]
    fn magic_constants_but_not_dir() {
        assert_eq!(rules("here = __FILE__\nline = __LINE__\ndir = __dir__\n"), ["1:8 syntax.magic-constant", "2:8 syntax.magic-constant"]);
    }

    #[test]
    fn every_syntax_rule_message_names_the_fix() {
        for rule in catalogue::RULES.iter().filter(|r| r.family == "syntax" && r.id != "syntax.parse-error") {
            let text = message(rule.id, "x");
            assert!(text.contains("Instead, ") && !text.contains("this form"), "{}: {text}", rule.id);
        }
    }
}

//! The node shapes of the `syntax.*` rules: Ruby forms Roundhouse's ingest rejects, each recognised
//! on one node as the tree walk passes it (`syntax_rules::ancestry_checks`). They were tree-sitter
//! query patterns once; compiling that query cost 100–180 ms at every start (BENCHMARKS.md), so they
//! are plain matches on node kinds and fields now. `tests/queries/ruby/rules/syntax.rb` still holds
//! them with caret assertions, as a query's fixture would.

use crate::syntax::NodeExt;
use std::sync::LazyLock;

use tree_sitter::Node;

use crate::diagnostic::RuleId;
use crate::syntax::text_of;

/// Every rule a shape here reports (the caret fixture may name only these).
pub const RULES: &[RuleId] = &[
    rule!("syntax.backtick-command"),
    rule!("syntax.for-loop"),
    rule!("syntax.pattern-matching"),
    rule!("syntax.regex-named-capture"),
    rule!("syntax.do-while"),
    rule!("syntax.flip-flop"),
    rule!("syntax.global-variable-write"),
    rule!("syntax.alias-keyword"),
    rule!("syntax.undef"),
    rule!("syntax.rational-imaginary"),
    rule!("syntax.begin-end-block"),
    rule!("syntax.dynamic-class-name"),
    rule!("syntax.argument-forwarding"),
    rule!("syntax.anonymous-keyword-forwarding"),
    rule!("syntax.block-argument-form"),
    rule!("syntax.block-parameter-form"),
    rule!("syntax.multi-assign-target"),
    rule!("syntax.multi-index-assign"),
    rule!("syntax.empty-interpolation"),
    rule!("syntax.embedded-variable"),
    rule!("syntax.defined-path"),
];

/// Parameters a block may not take (they are dropped): destructuring, defaults, splats, keywords, `&b`.
const BLOCK_PARAMETER_FORMS: &[&str] =
    &["destructured_parameter", "optional_parameter", "splat_parameter", "keyword_parameter", "block_parameter", "hash_splat_parameter"];

/// Conditions whose range operand is a flip-flop (`if (a == 1)..(b == 2)`), and those where a
/// parenthesized range is one too.
const CONDITIONALS: &[&str] = &["if", "unless", "while", "until", "if_modifier", "unless_modifier", "conditional"];
const PARENTHESIZED_CONDITIONALS: &[&str] = &["if", "if_modifier", "conditional"];

/// `defined?` of a bare local or method name, or of an instance variable: the only forms supported.
static DEFINED_SUPPORTED: LazyLock<regex_lite::Regex> =
    LazyLock::new(|| regex_lite::Regex::new(r"^defined\?\s*\(?\s*@?[a-z_][A-Za-z0-9_]*[?!]?\s*\)?$").expect("a valid regex"));

fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.field(name)
}

fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

fn operator_is(node: Node<'_>, operator: &str) -> bool {
    field(node, "operator").is_some_and(|o| o.kind_name() == operator)
}

/// The rule findings `node` (of kind `kind`) itself makes, each with the node to report.
pub fn at<'t>(node: Node<'t>, kind: &str, text: &str, out: &mut Vec<(RuleId, Node<'t>)>) {
    let mut found = |rule: RuleId, at: Node<'t>| out.push((rule, at));
    match kind {
        "subshell" => found(rule!("syntax.backtick-command"), node),
        "for" => found(rule!("syntax.for-loop"), node),
        "case_match" | "test_pattern" | "match_pattern" => found(rule!("syntax.pattern-matching"), node),
        // `/(?<y>\d+)/ =~ s` writes locals from named captures.
        "binary" if operator_is(node, "=~") => {
            if let Some(regex) = field(node, "left").filter(|l| l.kind_name() == "regex")
                && text_of(regex, text).split("(?<").skip(1).any(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
            {
                found(rule!("syntax.regex-named-capture"), regex);
            }
        }
        // `begin … end while c` runs its body before testing.
        "while_modifier" | "until_modifier" if field(node, "body").is_some_and(|b| b.kind_name() == "begin") => {
            found(rule!("syntax.do-while"), node)
        }
        "assignment" | "operator_assignment" if field(node, "left").is_some_and(|l| l.kind_name() == "global_variable") => {
            found(rule!("syntax.global-variable-write"), node)
        }
        "alias" => found(rule!("syntax.alias-keyword"), node),
        "undef" => found(rule!("syntax.undef"), node),
        "rational" | "complex" => found(rule!("syntax.rational-imaginary"), node),
        "begin_block" | "end_block" => found(rule!("syntax.begin-end-block"), node),
        // `class (expr)::Foo`
        "class" => {
            if let Some(name) = field(node, "name").filter(|n| {
                n.kind_name() == "scope_resolution"
                    && field(*n, "scope").is_some_and(|s| matches!(s.kind_name(), "parenthesized_statements" | "call"))
            }) {
                found(rule!("syntax.dynamic-class-name"), name);
            }
        }
        "forward_parameter" | "forward_argument" => found(rule!("syntax.argument-forwarding"), node),
        // Only the forwarding is rejected: an anonymous `**` parameter that is never passed on compiles.
        "hash_splat_argument" if text_of(node, text) == "**" => found(rule!("syntax.anonymous-keyword-forwarding"), node),
        // `&method(:f)`, `&proc { }`, `&self.blk`: only `&:sym` and `&local` survive.
        "block_argument" if named_children(node).iter().any(|c| c.kind_name() == "call") => {
            found(rule!("syntax.block-argument-form"), node)
        }
        "block_parameters" => {
            for parameter in named_children(node).into_iter().filter(|p| BLOCK_PARAMETER_FORMS.contains(&p.kind_name())) {
                found(rule!("syntax.block-parameter-form"), parameter);
            }
        }
        "left_assignment_list" => {
            let targets = named_children(node);
            // `a.b, c = 1, 2`
            for call in targets.iter().filter(|t| t.kind_name() == "call") {
                found(rule!("syntax.multi-assign-target"), *call);
            }
            // `a, *b, c = arr`, `*a, b = arr`: a target after the splat.
            if targets.iter().position(|t| t.kind_name() == "rest_assignment").is_some_and(|i| i + 1 < targets.len()) {
                found(rule!("syntax.multi-assign-target"), node);
            }
        }
        // `m[i, j] += 1`
        "operator_assignment" => {
            if let Some(left) = field(node, "left").filter(|l| l.kind_name() == "element_reference" && named_children(*l).len() >= 3) {
                found(rule!("syntax.multi-index-assign"), left);
            }
        }
        "interpolation" => {
            let source = text_of(node, text);
            if source == "#{}" {
                found(rule!("syntax.empty-interpolation"), node);
            } else if source.starts_with("#@") || source.starts_with("#$") {
                found(rule!("syntax.embedded-variable"), node);
            }
        }
        // `defined?(A::B)`, `defined?(a.b)`, `defined?(Foo)`, `defined?(@@x)`: only a bare local or method
        // name or an instance variable is supported (`!x` and `not x` are unary too: the operator decides).
        "unary" if operator_is(node, "defined?") => {
            let operand = field(node, "operand");
            let super_or_yield = |n: Node<'_>| matches!(n.kind_name(), "super" | "yield");
            let of_super_or_yield = operand.is_some_and(|o| {
                super_or_yield(o) || (o.kind_name() == "parenthesized_statements" && named_children(o).into_iter().any(super_or_yield))
            });
            if of_super_or_yield || !DEFINED_SUPPORTED.is_match(text_of(node, text)) {
                found(rule!("syntax.defined-path"), node);
            }
        }
        _ => {}
    }
    // `if (a == 1)..(b == 2)`: a range as a condition is a flip-flop, with hidden state between tests.
    if CONDITIONALS.contains(&node.kind_name())
        && let Some(condition) = field(node, "condition")
    {
        if condition.kind_name() == "range" {
            found(rule!("syntax.flip-flop"), condition);
        } else if condition.kind_name() == "parenthesized_statements" && PARENTHESIZED_CONDITIONALS.contains(&node.kind_name()) {
            for range in named_children(condition).into_iter().filter(|c| c.kind_name() == "range") {
                found(rule!("syntax.flip-flop"), range);
            }
        }
    }
}

/// Every shape in the tree under `root`, in walk order (for the caret fixture; the rules find them
/// in the walk they share with the ancestry checks).
pub fn all<'t>(root: Node<'t>, text: &str) -> Vec<(RuleId, Node<'t>)> {
    let mut out = Vec::new();
    crate::syntax::for_each_node(root, |node| at(node, node.kind_name(), text, &mut out));
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn caret_fixture() {
        let names: Vec<&str> = super::RULES.iter().map(|r| r.as_str()).collect();
        crate::syntax::carets::check_fixture("rules/syntax.rb", &names, |root, text| {
            super::all(root, text).into_iter().map(|(rule, node)| (rule.as_str(), node.range())).collect()
        });
    }
}

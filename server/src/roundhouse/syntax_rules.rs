//! What each `syntax.*` finding says (`message`): what Roundhouse does with the construct, and what
//! to write instead. Where the constructs are found is `prism_ingest`'s (Roundhouse's ingest, on
//! Prism's tree).

use super::catalogue;
use crate::diagnostic::Severity;

/// What Roundhouse does with the construct, and what to write instead.
pub fn message(rule: &str, text: &str) -> String {
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
        "syntax.regex-once-flag" => {
            ("an interpolated regexp with an encoding flag (`u`, `n`, `e`, `s`)", "drop the flag: source files are UTF-8 already")
        }
        "syntax.defined-path" => (
            "`defined?` around anything but a bare name (a constant, a path, a call with a receiver, `super`…)",
            "use `Object.const_defined?(\"Name\")` or `respond_to?(:name)`",
        ),
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
        "syntax.regex-condition" => ("a bare regexp as a condition (it matches `$_`)", "match against the string: `if line.match?(/x/)`"),
        "syntax.shareable-constant" => (
            "constants written under the `# shareable_constant_value:` magic comment",
            "remove the magic comment and freeze the values (`.freeze`)",
        ),
        "spinel.dynamic-dispatch" => {
            return format!(
                "`{snippet}` cannot be compiled ahead of time: the Spinel lane cannot run this code. Instead, call the method by name."
            );
        }
        _ => ("this form", "rewrite it"),
    };
    let consequence = match catalogue::rule(rule).map(|r| r.severity) {
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
        for rule in
            catalogue::RULES.iter().filter(|r| r.family == "syntax" && r.id != "syntax.parse-error" && r.id != "syntax.def-in-expression")
        {
            let text = message(rule.id, "x");
            assert!(text.contains("Instead, ") && !text.contains("this form"), "{}: {text}", rule.id);
        }
    }
}

//! The `syntax.*` rules: Ruby forms Roundhouse's ingest rejects. Most are shapes of one node
//! (`syntax_patterns`); those that need ancestry are checked here: a class variable written inside a
//! method, a class or module defined inside a method or a model's body, magic constants, dynamic
//! dispatch. One walk finds them all; each finding is then judged by where it sits (`site`). They run
//! on `.rb` files and on the Ruby inside templates.

use crate::syntax::NodeExt;
use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use super::catalogue;
use super::ingest::Body;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rails::FileFacts;
use crate::rails::project::FileKind;
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

/// A finding of a `syntax.*` rule found outside the query (a HAML `for` loop), with the rule's message.
pub fn finding(rule: crate::diagnostic::RuleId, span: Span, snippet: &str) -> Diagnostic {
    let severity = catalogue::rule(&rule).map_or(Severity::Error, |r| r.severity);
    Diagnostic { span, severity, rule, message: message(&rule, snippet) }
}

fn diagnostic(rule: crate::diagnostic::RuleId, node: Node<'_>, text: &str) -> Diagnostic {
    let severity = catalogue::rule(&rule).map_or(Severity::Error, |r| r.severity);
    Diagnostic { span: Span::of(node), severity, rule, message: message(&rule, text_of(node, text)) }
}

/// Where a construct sits, as Roundhouse's ingest treats that place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Site {
    /// Compiled: a construct the ingest rejects is rejected (the compile stops, or the file is dropped).
    Compiled,
    /// Read one statement at a time: a rejected construct drops that statement (or association) only.
    StatementDropped,
    /// A class-body `alias` outside a model or controller: dropped without a word.
    AliasDropped,
    /// Never read.
    NotRead,
}

const NAMESPACES: &[&str] = &["class", "module", "singleton_class"];

/// How the ingest treats `node`'s place in the file: the body it sits in (`ingest::bodies`), and within
/// a body, the statement it is part of.
fn site(node: Node<'_>, text: &str, kind: Option<FileKind>, bodies: &HashMap<usize, Body>, top_level_read: bool) -> Site {
    let mut in_method = false;
    let mut statement = node;
    // The statement of the namespace's own body that holds `node` (through methods and blocks).
    let mut outer = node;
    let mut current = node;
    while let Some(parent) = current.parent() {
        match parent.kind_name() {
            "method" | "singleton_method" => in_method = true,
            namespace if NAMESPACES.contains(&namespace) => {
                // `class << self` reads like the class around it.
                let owner = if namespace == "singleton_class" {
                    let mut up = parent.parent();
                    while let Some(n) = up.filter(|n| !matches!(n.kind_name(), "class" | "module")) {
                        up = n.parent();
                    }
                    up
                } else {
                    Some(parent)
                };
                let body = owner.and_then(|o| bodies.get(&o.start_byte()).copied()).unwrap_or(Body::Library);
                let file_by_file = matches!(kind, Some(FileKind::Library | FileKind::Helper | FileKind::AppSupport));
                return match body {
                    Body::NotRead => Site::NotRead,
                    // A file read on its own drops a class-body block (`included do … end`, a gem's
                    // macro) unread, methods and all; only `class_methods do` is read.
                    Body::Library if file_by_file && outer != node && is_dropped_block(outer, text) => Site::NotRead,
                    // A concern's `included` block is read statement by statement for its includers
                    // (its methods are dropped, `lowering::spliced_findings`): a rejected form in
                    // one of its methods is a gap that drops the statement, not the compile.
                    Body::Library if in_method && kind == Some(FileKind::Concern) && is_call_of(outer, text, &["included"]) => {
                        Site::StatementDropped
                    }
                    _ if in_method => Site::Compiled,
                    Body::Full if is_call_of(statement, text, crate::rails::model::ASSOCIATIONS) => Site::StatementDropped,
                    Body::Full | Body::Test => Site::Compiled,
                    Body::Library => library_statement(statement, node),
                };
            }
            _ => {}
        }
        if parent.kind_name() == "body_statement" {
            if !in_method {
                statement = current;
            }
            outer = current;
        }
        current = parent;
    }
    // Top-level code: a model's, controller's or test's file is read for its class alone; a file read
    // on its own only when it defines a class or a read module (`ingest::top_level_read`); a
    // template's `def` defines nothing in the compiled view.
    match kind {
        Some(FileKind::Model | FileKind::Controller | FileKind::Concern | FileKind::Test) => Site::NotRead,
        Some(FileKind::Library | FileKind::Helper | FileKind::AppSupport) if !top_level_read => Site::NotRead,
        Some(FileKind::View) if in_method => Site::NotRead,
        _ => Site::Compiled,
    }
}

/// A class-body statement of a library class or module (`Body::Library` says which are read).
fn library_statement(statement: Node<'_>, node: Node<'_>) -> Site {
    match statement.kind_name() {
        "alias" if statement == node => Site::AliasDropped,
        "alias" => Site::Compiled,
        "call" if statement.field("receiver").is_some() => Site::NotRead,
        // `included do … end`, `attr_accessor …`, a gem's macro: read one by one.
        "call" | "identifier" => Site::StatementDropped,
        "assignment" if statement.field("left").is_some_and(|l| matches!(l.kind_name(), "constant" | "class_variable")) => Site::Compiled,
        // Definitions (their bodies are reached through `in_method`) and nested namespaces.
        "method" | "singleton_method" | "class" | "module" | "singleton_class" => Site::Compiled,
        _ => Site::NotRead,
    }
}

/// A class-body call with a block, other than `class_methods do`.
fn is_dropped_block(statement: Node<'_>, text: &str) -> bool {
    statement.kind_name() == "call" && statement.field("block").is_some() && !is_call_of(statement, text, &["class_methods"])
}

fn is_call_of(statement: Node<'_>, text: &str, methods: &[&str]) -> bool {
    statement.kind_name() == "call"
        && statement.field("receiver").is_none()
        && statement.field("method").is_some_and(|m| methods.contains(&text_of(m, text)))
}

/// The finding on `node` as its site makes it true (`None` where the ingest never looks).
fn at_site(mut finding: Diagnostic, site: Site, node: Node<'_>, text: &str) -> Option<Diagnostic> {
    match site {
        Site::Compiled => Some(finding),
        Site::NotRead => None,
        Site::StatementDropped if finding.severity == Severity::Error => {
            finding.severity = Severity::Warning;
            finding.message = finding.message.replacen(
                "Roundhouse's ingest rejects",
                "Roundhouse reads this statement on its own and drops it, because its ingest rejects",
                1,
            );
            Some(finding)
        }
        Site::StatementDropped => Some(finding),
        Site::AliasDropped => Some(Diagnostic {
            severity: Severity::Warning,
            message: format!(
                "Roundhouse drops this `alias` without a word (it rejects `alias` only in models and controllers): the compiled class has no `{}`. Instead, write `alias_method`.",
                node.field("name").map_or("", |n| text_of(n, text))
            ),
            ..finding
        }),
    }
}

/// Every `syntax.*` finding of a file's Ruby (`text` is the Ruby: a template's masked copy), each as
/// true as its place in the file makes it (`site`).
pub fn check(tree: &Tree, text: &str, facts: &FileFacts) -> Vec<Diagnostic> {
    check_shapes(tree, text, facts, Shapes::of(tree.root_node(), text))
}

/// `check`, with the tree's shapes gathered on a walk already made.
pub fn check_shapes<'t>(tree: &'t Tree, text: &str, facts: &FileFacts, shapes: Shapes<'t>) -> Vec<Diagnostic> {
    let bodies = super::ingest::bodies(facts);
    let top_level_read = super::ingest::top_level_read(facts);
    let kind = facts.kind;
    let mut out = Vec::new();
    let push = |finding: Diagnostic, node: Node<'_>, out: &mut Vec<Diagnostic>| {
        if let Some(finding) = at_site(finding, site(node, text, kind, &bodies, top_level_read), node, text) {
            out.push(finding);
        }
    };
    for (finding, node) in shapes.found {
        if (!finding.rule.starts_with("spinel.") || kind.is_some_and(FileKind::is_app_code))
            && !out.iter().any(|d: &Diagnostic| d.rule == finding.rule && d.span.start_byte == finding.span.start_byte)
        {
            push(finding, node, &mut out);
        }
    }
    nested_definitions(tree.root_node(), text, &bodies, &mut out);
    if facts.kind == Some(FileKind::Controller) || facts.relative_path.starts_with("app/controllers/") {
        json_arms(tree.root_node(), text, &mut |finding, node| push(finding, node, &mut out));
    }
    out.sort_by_key(|d| (d.span.start_byte, d.rule));
    out
}

/// Calls the Spinel lane cannot compile ahead of time (`spinel.dynamic-dispatch`, app code only).
const DYNAMIC_DISPATCH: &[&str] = &[
    "send",
    "__send__",
    "public_send",
    "instance_variable_get",
    "instance_variable_set",
    "define_method",
    "class_eval",
    "instance_eval",
    "module_eval",
    "eval",
];

/// Every node's own shapes (`syntax_patterns`); class variables written and classes defined inside a
/// `def`; magic constants; dynamic dispatch (`send`, `define_method`, `Thread.new`, `def method_missing`).
/// Gathered node by node along a walk of the whole tree in document order: extraction's own
/// (`rails::extract_walking`), so the tree is walked once for both (`index::analyze`).
#[derive(Default)]
pub struct Shapes<'t> {
    /// The depths of the `def`s around the node being visited.
    methods: Vec<usize>,
    patterns: Vec<(crate::diagnostic::RuleId, Node<'t>)>,
    found: Vec<(Diagnostic, Node<'t>)>,
}

impl<'t> Shapes<'t> {
    /// Every node below `root`, in a walk of its own.
    pub fn of(root: Node<'t>, text: &str) -> Shapes<'t> {
        let mut shapes = Shapes::default();
        crate::syntax::for_each_node_with_parent(root, |node, _, depth| shapes.visit(node, node.kind_name(), depth, text));
        shapes
    }

    /// `node`, `depth` below the root (which is not read: a program's shapes are its statements').
    /// `kind`: the node's `kind_name`, which the walk has asked already.
    pub fn visit(&mut self, node: Node<'t>, kind: &str, depth: usize, text: &str) {
        if depth == 0 || !node.is_named() {
            return;
        }
        while self.methods.last().is_some_and(|&d| d >= depth) {
            self.methods.pop();
        }
        let in_method = !self.methods.is_empty();
        let out = &mut self.found;
        super::syntax_patterns::at(node, kind, text, &mut self.patterns);
        out.extend(self.patterns.drain(..).map(|(rule, at)| (diagnostic(rule, at, text), at)));
        if kind == "identifier" && matches!(text_of(node, text), "__FILE__" | "__LINE__" | "__ENCODING__") {
            out.push((diagnostic(rule!("syntax.magic-constant"), node, text), node));
        }
        if let Some(dispatch) = dynamic_dispatch(node, kind, text) {
            out.push((diagnostic(rule!("spinel.dynamic-dispatch"), dispatch, text), dispatch));
        }
        if in_method {
            if matches!(kind, "assignment" | "operator_assignment") && node.field("left").is_some_and(|l| l.kind_name() == "class_variable")
            {
                out.push((diagnostic(rule!("syntax.class-variable-in-method"), node, text), node));
            }
            if NAMESPACES.contains(&kind) {
                out.push((diagnostic(rule!("syntax.nested-definition"), node, text), node));
            }
        }
        if matches!(kind, "method" | "singleton_method") {
            self.methods.push(depth);
        }
    }
}

/// The node to report when `node` dispatches dynamically: the method of `x.send(…)`, `define_method`…;
/// a whole `Thread.new` / `Mutex.new`; the name of a `def method_missing`.
fn dynamic_dispatch<'t>(node: Node<'t>, kind: &str, text: &str) -> Option<Node<'t>> {
    match kind {
        "call" => {
            let method = node.field("method").filter(|m| m.kind_name() == "identifier")?;
            let name = text_of(method, text);
            if DYNAMIC_DISPATCH.contains(&name) {
                return Some(method);
            }
            let receiver = node.field("receiver").filter(|r| r.kind_name() == "constant")?;
            (name == "new" && matches!(text_of(receiver, text), "Thread" | "Mutex")).then_some(node)
        }
        "method" => node.field("name").filter(|n| n.kind_name() == "identifier" && text_of(*n, text) == "method_missing"),
        _ => None,
    }
}

/// `controller.json-format-dropped`: the Spinel tree answers a `respond_to` in an action with its html
/// branch when the `format.json` arm renders `json:` inline (the tree has no JSON encoder); other json
/// arms (`head :ok`, `render :show`, a bare `format.json`) are kept.
fn json_arms<'t>(root: Node<'t>, text: &str, report: &mut dyn FnMut(Diagnostic, Node<'t>)) {
    crate::syntax::for_each_node(root, |node| {
        if node.kind_name() != "call" || node.field("method").is_none_or(|m| text_of(m, text) != "json") {
            return;
        }
        let Some(block) = node.field("block") else { return };
        let in_action = {
            let mut up = node.parent();
            while let Some(n) = up.filter(|n| !matches!(n.kind_name(), "method" | "singleton_method" | "class" | "module")) {
                up = n.parent();
            }
            up.is_some_and(|n| n.kind_name() == "method")
        };
        let mut renders_json = false;
        crate::syntax::for_each_node(block, |inner| {
            if inner.kind_name() == "call"
                && inner.field("receiver").is_none()
                && inner.field("method").is_some_and(|m| text_of(m, text) == "render")
                && inner.field("arguments").is_some_and(|args| {
                    let mut c = args.walk();
                    args.named_children(&mut c)
                        .any(|a| a.kind_name() == "pair" && a.field("key").is_some_and(|k| text_of(k, text).trim_matches(':') == "json"))
                })
            {
                renders_json = true;
            }
        });
        if in_action && renders_json {
            let arm = node.field("receiver").map_or_else(|| "format.json".to_owned(), |r| format!("{}.json", text_of(r, text)));
            let span = node.field("method").map_or_else(|| Span::of(node), |m| Span::cover(node, m));
            report(
                Diagnostic {
                    span,
                    severity: Severity::Warning,
                    rule: rule!("controller.json-format-dropped"),
                    message: format!(
                        "The Spinel tree drops this `{arm}` arm: its inline `render json:` needs a JSON encoder that tree does not have, so a request for JSON gets the html branch's answer. The CRuby and JVM trees keep it."
                    ),
                },
                node,
            );
        }
    });
}

/// A class or module defined in the body of a model, an Active Model class or a controller, or in a
/// test's setup: Roundhouse's ingest rejects it (a `class << self` there is fine).
fn nested_definitions(root: Node<'_>, text: &str, bodies: &HashMap<usize, Body>, out: &mut Vec<Diagnostic>) {
    if !bodies.values().any(|b| *b == Body::NotRead) {
        return; // no class of the file is one the ingest leaves unread: nothing nested is rejected
    }
    crate::syntax::for_each_node(root, |node| {
        if !matches!(node.kind_name(), "class" | "module") || bodies.get(&node.start_byte()) != Some(&Body::NotRead) {
            return;
        }
        // The nearest namespace around it, and whether a block (a test's `setup do`) is between.
        let mut in_block = false;
        let mut up = node.parent();
        while let Some(parent) = up {
            match parent.kind_name() {
                "method" | "singleton_method" => return, // reported by the ancestry check
                "do_block" | "block" => in_block = true,
                "class" | "module" => {
                    let outer = bodies.get(&parent.start_byte()).copied();
                    let rejected = match outer {
                        Some(Body::Full) => true,
                        Some(Body::Test) => in_block,
                        _ => false,
                    };
                    if rejected {
                        let outer_name = parent.field("name").map_or("", |n| text_of(n, text));
                        let name = node.field("name").map_or("", |n| text_of(n, text));
                        out.push(Diagnostic {
                            message: format!(
                                "Roundhouse's ingest rejects a class or module defined inside {}: `{name}` in {outer_name}. Instead, define it in a file of its own.",
                                if outer == Some(Body::Test) { "a test's block" } else { "a model's or controller's body" }
                            ),
                            ..diagnostic(rule!("syntax.nested-definition"), node, text)
                        });
                    }
                    return;
                }
                _ => {}
            }
            up = parent.parent();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Language, ParsedFile};

    /// The findings of `text` as `path`, before the file's reading adjusts them (`ingest::apply`).
    fn findings_in(path: &str, text: &str) -> Vec<Diagnostic> {
        let language = crate::rails::project::language_of(std::path::Path::new(path)).unwrap_or(Language::Ruby);
        let parsed = ParsedFile::parse(language, text);
        let kind = crate::rails::project::classify(path);
        let facts = crate::rails::extract(format!("/app/{path}").into(), path.to_owned(), Some(kind), text, &parsed);
        check(parsed.ruby.as_ref().unwrap(), parsed.ruby_text(text), &facts)
    }

    fn rules(text: &str) -> Vec<String> {
        findings_in("lib/x.rb", text)
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
    fn dynamic_dispatch_in_app_code_only() {
        // Top-level code, read because the file defines a class.
        let text = "record.send(:title)\nrecord.public_send(name)\ndefine_method(:x) { 1 }\nworker = Thread.new { run }\nlock = Mutex.new\ndef method_missing(name, *args) = super\nrecord.sender\nnote = \"never .send(:x) here\"\nQueue.new\nclass X; end\n";
        let found: Vec<String> = findings_in("lib/x.rb", text)
            .iter()
            .filter(|d| d.rule == "spinel.dynamic-dispatch")
            .map(|d| format!("{}:{}-{}", d.span.start.line + 1, d.span.start.col + 1, d.span.end.col + 1))
            .collect();
        assert_eq!(found, ["1:8-12", "2:8-19", "3:1-14", "4:10-28", "5:8-17", "6:5-19"]);
        // Not app code: a test may send what it likes.
        assert!(findings_in("test/models/x_test.rb", text).iter().all(|d| d.rule != "spinel.dynamic-dispatch"));
    }

    #[test]
    fn magic_constants_but_not_dir() {
        assert_eq!(
            rules("class X\n  def f\n    here = __FILE__\n    line = __LINE__\n    dir = __dir__\n  end\nend\n"),
            ["3:12 syntax.magic-constant", "4:12 syntax.magic-constant"]
        );
    }

    #[test]
    fn every_syntax_rule_message_names_the_fix() {
        for rule in catalogue::RULES.iter().filter(|r| r.family == "syntax" && r.id != "syntax.parse-error") {
            let text = message(rule.id, "x");
            assert!(text.contains("Instead, ") && !text.contains("this form"), "{}: {text}", rule.id);
        }
    }
}

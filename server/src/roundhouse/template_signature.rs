//! The parameters of the function Roundhouse compiles a template into, and the names it gives twice.
//!
//! What this mirrors of the compiler (held by `tests/fixtures/fidelity/views-parameter-twice`):
//! - the function takes, positionally, its record (a layout's `body`; a partial's, named for its
//!   folder in the singular; none for an action's template) and then every instance variable the
//!   template reads, sorted (`@post` → `post`, `@end` → `end_`), including one read inside
//!   `defined?(@x)`; then, defaulting to nil, `notice` and `alert` (every template, for the flash)
//!   and each local the template marks as optional — `defined?(x)`, `defined?(@x)` (the instance
//!   variable, as a local), `local_assigns[:x]` — except the record's name (an action's template
//!   takes no record, but its folder's name is still left out of these);
//! - nothing checks that the two lists do not share a name: the emitted file then does not parse
//!   (duplicated argument name), and the compiled app requires every view at boot.
//!
//! What it leaves out (it says less there): the instance variables a template's partials read, which
//! the compiler adds to the template's own (a local marked optional here and read as `@x` only in a
//! partial); a partial a collection render binds under another name (`as:`), whose record is that
//! name; a partial with a strict-locals comment, whose signature is its declared locals; a marker
//! inside `case`, a loop or `begin`, which the compiler does not look into.
//!
//! The names are read from the template's program as Prism parses it (`names`, kept on the file's
//! facts); the signature is decided once (`signature`), and the rule (`findings`) and the template
//! preview are views of it.

use ruby_prism::{Node, Visit};

use super::prism_ingest::erb::Compiled;
use super::tree::{ViewFunction, ViewKind};
use crate::diagnostic::{Diagnostic, RuleId};
use crate::syntax::{LineIndex, Span};

pub const RULE: RuleId = rule!("views.parameter-named-twice");

/// Every compiled template takes these, defaulting to nil, for the flash.
const FLASH: [&str; 2] = ["notice", "alert"];

/// What a template's program names that becomes a parameter of its function.
#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct TemplateNames {
    /// The instance variables it reads, as locals (`@end` → `end_`), each with its first read.
    pub ivars: Vec<(String, Span)>,
    /// The locals it marks as optional, in the order it does.
    pub optional: Vec<OptionalLocal>,
}

#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct OptionalLocal {
    pub name: String,
    /// The marker: `defined?(x)`, `defined?(@x)`, `local_assigns[:x]`.
    pub span: Span,
    pub instance_variable: bool,
}

/// The function's parameters as the compiler writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub required: Vec<String>,
    /// Each defaulting to nil.
    pub optional: Vec<String>,
}

impl Signature {
    /// The names both lists hold (each once), in the order of the optional list.
    pub fn named_twice(&self) -> Vec<&str> {
        self.optional.iter().filter(|n| self.required.contains(n)).map(String::as_str).collect()
    }

    /// The parameters named like a keyword (`local_assigns[:end]` gives `end = nil`), in order.
    pub fn keywords(&self) -> Vec<&str> {
        self.required.iter().chain(&self.optional).map(String::as_str).filter(|n| crate::syntax::is_ruby_keyword(n)).collect()
    }

    /// `post, comment, notice = nil, alert = nil`.
    pub fn written(&self) -> String {
        self.required.iter().cloned().chain(self.optional.iter().map(|n| format!("{n} = nil"))).collect::<Vec<_>>().join(", ")
    }
}

/// An instance variable's name as the function's local: a keyword gets a trailing underscore.
fn local_of(ivar: &str) -> String {
    let name = ivar.trim_start_matches('@');
    if crate::syntax::is_ruby_keyword(name) { format!("{name}_") } else { name.to_owned() }
}

/// The function's signature from what its template names (the template's own reads: see the module).
pub fn signature(function: &ViewFunction, names: &TemplateNames) -> Signature {
    let record = function.record.as_str();
    let mut ivars: Vec<&str> = names.ivars.iter().map(|(n, _)| n.as_str()).collect();
    ivars.sort_unstable();
    ivars.dedup();
    let mut required: Vec<String> = Vec::new();
    if function.kind != ViewKind::Action && !record.is_empty() {
        required.push(record.to_owned());
    }
    required.extend(ivars.into_iter().filter(|n| function.kind == ViewKind::Action || *n != record).map(str::to_owned));
    let mut optional: Vec<String> = FLASH.iter().map(|n| (*n).to_owned()).collect();
    for local in &names.optional {
        if local.name != record && !optional.contains(&local.name) {
            optional.push(local.name.clone());
        }
    }
    Signature { required, optional }
}

/// `views.parameter-named-twice`: each name the function would take twice, at what makes it so.
pub fn findings(path: &str, names: &TemplateNames, strict_locals: bool) -> Vec<Diagnostic> {
    let Some(function) = super::tree::view_function(path) else { return Vec::new() };
    if strict_locals && function.kind == ViewKind::Partial {
        return Vec::new(); // Its declared locals are its signature.
    }
    let signature = signature(&function, names);
    // A local marked optional by `local_assigns[:end]` is a parameter under that name, which no
    // keyword can be (`defined?(@end)` gives `end_`, as a read of `@end` does).
    let mut out = Vec::new();
    for name in signature.keywords() {
        let Some(local) = names.optional.iter().find(|l| l.name == name) else { continue };
        let name = &local.name;
        out.push(Diagnostic::finding(
            rule!("views.variable-name-not-ruby"),
            local.span,
            format!(
                "Roundhouse compiles this template into a function with a parameter for each local it marks as optional: `local_assigns[:{name}]` becomes `{name} = nil`, and `{name}` is a Ruby keyword, which no parameter can be named. The emitted file does not parse, and the compiled app requires every view at boot, so it does not start (every tree). Instead, pass it under another name (`css_{name}:`) and read that."
            ),
        ));
    }
    let stem = path.rsplit('/').next().unwrap_or("").trim_start_matches('_').split('.').next().unwrap_or("");
    let tail = "Ruby rejects a parameter named twice, so the emitted file does not parse, and the compiled app requires every view at boot: it does not start (every tree).";
    for name in signature.named_twice() {
        // A partial a collection render binds under its own name takes that name as its record.
        if function.kind == ViewKind::Partial && name == stem && name != function.record {
            continue;
        }
        // The signature around the name (the template's partials may add instance variables to it).
        let first =
            if signature.required.first().is_some_and(|r| r == name) { format!("{name}, …") } else { format!("…, {name}, …") };
        let head = format!("def self.{}({first}, {name} = nil, …)", function.name);
        let read = names.ivars.iter().find(|(n, _)| n == name).map(|(_, span)| *span);
        let marker = names.optional.iter().find(|l| l.name == name);
        let (span, message) = match (marker, read) {
            (Some(marker), _) if marker.instance_variable => (
                marker.span,
                format!(
                    "Roundhouse compiles this template into a function that takes `{name}` twice, `{head}`: `@{name}` is a parameter for the instance variable the template reads, and `defined?(@{name})` makes `{name}` one again, as an optional local. {tail} Instead, test the value (`!@{name}.nil?` in place of `defined?(@{name})`), which is what the compiled template tests for it."
                ),
            ),
            (Some(marker), Some(_)) => (
                marker.span,
                format!(
                    "Roundhouse compiles this template into a function that takes `{name}` twice, `{head}`: the local `{name}` this marks as optional and the instance variable `@{name}` the template reads are both the parameter `{name}`. {tail} Instead, rename one of them (read the local alone, or give the instance variable another name)."
                ),
            ),
            (None, Some(span)) => (
                span,
                format!(
                    "Roundhouse compiles this template into a function that takes `{name}` twice, `{head}`: every compiled template takes `notice = nil, alert = nil` for the flash, and `@{name}` is a parameter `{name}` too. {tail} Instead, give the instance variable another name (`@{name}_text`)."
                ),
            ),
            _ => (
                Span::default(),
                format!(
                    "Roundhouse compiles this partial into a function that takes `{name}` twice, `{head}`: it takes its record named for its folder (`{name}`), and every compiled template takes `notice = nil, alert = nil` for the flash. {tail} Instead, move the partial to a folder of another name (and the renders that name it)."
                ),
            ),
        };
        out.push(Diagnostic::finding(RULE, span, message));
    }
    out
}

/// What the template's program names, placed in the template.
pub fn names(compiled: &Compiled, result: &ruby_prism::ParseResult<'_>, source: &str, line_index: &LineIndex) -> TemplateNames {
    let mut reader = Reader {
        found: TemplateNames::default(),
        place: |start: usize, end: usize| {
            let (start, end) = (compiled.place(start, source), compiled.place(end, source));
            line_index.span(start..end.max(start))
        },
        hidden: 0,
    };
    reader.visit(&result.node());
    reader.found
}

struct Reader<F: Fn(usize, usize) -> Span> {
    found: TemplateNames,
    place: F,
    /// How deep inside a construct whose markers the compiler does not look for (`case`, a loop,
    /// `begin`).
    hidden: u32,
}

impl<F: Fn(usize, usize) -> Span> Reader<F> {
    fn mark(&mut self, name: String, location: ruby_prism::Location<'_>, instance_variable: bool) {
        if self.hidden == 0 {
            let span = (self.place)(location.start_offset(), location.end_offset());
            self.found.optional.push(OptionalLocal { name, span, instance_variable });
        }
    }
}

impl<'pr, F: Fn(usize, usize) -> Span> Visit<'pr> for Reader<F> {
    fn visit_instance_variable_read_node(&mut self, node: &ruby_prism::InstanceVariableReadNode<'pr>) {
        let name = local_of(&String::from_utf8_lossy(node.name().as_slice()));
        if !self.found.ivars.iter().any(|(n, _)| *n == name) {
            let location = node.location();
            let span = (self.place)(location.start_offset(), location.end_offset());
            self.found.ivars.push((name, span));
        }
    }

    fn visit_defined_node(&mut self, node: &ruby_prism::DefinedNode<'pr>) {
        let value = node.value();
        if let Some(ivar) = value.as_instance_variable_read_node() {
            self.mark(local_of(&String::from_utf8_lossy(ivar.name().as_slice())), node.location(), true);
        } else if let Some(local) = value.as_local_variable_read_node() {
            self.mark(String::from_utf8_lossy(local.name().as_slice()).into_owned(), node.location(), false);
        } else if let Some(call) = value.as_call_node()
            && call.receiver().is_none()
            && call.arguments().is_none()
            && call.block().is_none()
        {
            self.mark(String::from_utf8_lossy(call.name().as_slice()).into_owned(), node.location(), false);
        }
        ruby_prism::visit_defined_node(self, node);
    }

    fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
        if node.name().as_slice() == b"[]"
            && node.block().is_none()
            && let Some(receiver) = node.receiver()
            && is_local_assigns(&receiver)
            && let Some(arguments) = node.arguments()
            && let [key] = arguments.arguments().iter().collect::<Vec<_>>().as_slice()
        {
            let name = key
                .as_symbol_node()
                .map(|s| String::from_utf8_lossy(s.unescaped()).into_owned())
                .or_else(|| key.as_string_node().map(|s| String::from_utf8_lossy(s.unescaped()).into_owned()));
            if let Some(name) = name {
                self.mark(name, node.location(), false);
            }
        }
        ruby_prism::visit_call_node(self, node);
    }

    fn visit_case_node(&mut self, node: &ruby_prism::CaseNode<'pr>) {
        self.hidden += 1;
        ruby_prism::visit_case_node(self, node);
        self.hidden -= 1;
    }
    fn visit_while_node(&mut self, node: &ruby_prism::WhileNode<'pr>) {
        self.hidden += 1;
        ruby_prism::visit_while_node(self, node);
        self.hidden -= 1;
    }
    fn visit_until_node(&mut self, node: &ruby_prism::UntilNode<'pr>) {
        self.hidden += 1;
        ruby_prism::visit_until_node(self, node);
        self.hidden -= 1;
    }
    fn visit_for_node(&mut self, node: &ruby_prism::ForNode<'pr>) {
        self.hidden += 1;
        ruby_prism::visit_for_node(self, node);
        self.hidden -= 1;
    }
    fn visit_begin_node(&mut self, node: &ruby_prism::BeginNode<'pr>) {
        self.hidden += 1;
        ruby_prism::visit_begin_node(self, node);
        self.hidden -= 1;
    }
}

fn is_local_assigns(node: &Node<'_>) -> bool {
    if let Some(local) = node.as_local_variable_read_node() {
        return local.name().as_slice() == b"local_assigns";
    }
    node.as_call_node().is_some_and(|c| {
        c.name().as_slice() == b"local_assigns" && c.receiver().is_none() && c.arguments().is_none() && c.block().is_none()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::file_diagnostics;
    use crate::roundhouse::tree::{Target, map_file};

    /// One signature, three views of it, for every compiled template of the fidelity fixtures and the
    /// fixture apps: the rule's findings are its names taken twice; the preview's `def` writes it (with
    /// `**locals` for a partial's render locals), commented out when a name is taken twice; and where a
    /// fixture records the compiler's own `def` for the template, it is the same, but for the instance
    /// variables of the partials the template renders (which the compiler adds and this reading does
    /// not follow), and a name taken twice there is taken twice here.
    #[test]
    fn rule_preview_and_compiler_take_the_same_parameters() {
        let (mut templates, mut twice, mut held, mut keyword_or_twice) = (0, 0, 0, 0);
        let mut check = |header: &[&str],
                         context: &crate::app::AppContext,
                         derived: &std::collections::HashMap<std::path::PathBuf, Vec<Diagnostic>>,
                         text_of: &dyn Fn(&crate::rails::FileFacts) -> String| {
            for facts in context.files.iter() {
                let (Some(names), Some(function)) = (&facts.template_names, super::super::tree::view_function(&facts.relative_path)) else {
                    continue;
                };
                templates += 1;
                let strict = facts.template.as_ref().is_some_and(|t| t.strict_locals.is_some());
                let signature = signature(&function, names);
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let reported = diagnostics.iter().filter(|d| d.rule == RULE).count();
                let place = &facts.relative_path;
                if !strict {
                    assert_eq!(reported, signature.named_twice().len(), "{place}: {:?}", signature);
                    twice += reported;
                }
                let text = text_of(facts);
                let entry = map_file(facts, context.tree_facts());
                let preview = super::super::preview::preview(facts, &text, context, &entry, &diagnostics, Target::Ruby);
                let partial = function.kind == ViewKind::Partial;
                let written = signature.written() + if partial { ", **locals" } else { "" };
                let def = format!("def self.{}({written})", function.name);
                let line =
                    preview.text.lines().find(|l| l.trim_start_matches(['#', ' ']).starts_with(&format!("def self.{}(", function.name)));
                if !strict && let Some(line) = line {
                    assert_eq!(line.trim_start_matches(['#', ' ']), def, "{place}: the preview's def");
                    if !signature.named_twice().is_empty() || !signature.keywords().is_empty() {
                        assert!(line.trim_start().starts_with('#'), "{place}: a def that does not parse is shown as code");
                        keyword_or_twice += 1;
                    }
                }
                // The compiler's `def`, where the fixture recorded it.
                let emitted = entry.target(Target::Ruby).map(|t| t.paths.clone()).unwrap_or_default();
                for verdict in header.iter().filter_map(|l| l.split_once(": emits ").map(|(_, v)| v)) {
                    let Some((path, wanted)) = verdict.split_once(' ') else { continue };
                    let Some(parameters) = wanted.strip_prefix(&format!("def self.{}(", function.name)).and_then(|w| w.strip_suffix(')'))
                    else {
                        continue;
                    };
                    if !emitted.iter().any(|p| p == path) || strict {
                        continue;
                    }
                    held += 1;
                    let theirs: Vec<&str> = parameters.split(", ").collect();
                    let (their_required, their_optional): (Vec<&str>, Vec<&str>) = theirs.iter().partition(|p| !p.ends_with(" = nil"));
                    let their_optional: Vec<String> = their_optional.iter().map(|p| p.trim_end_matches(" = nil").to_owned()).collect();
                    assert_eq!(their_optional, signature.optional, "{place}: the optional parameters");
                    for name in &signature.required {
                        assert!(their_required.contains(&name.as_str()), "{place}: `{name}` is not among {their_required:?}");
                    }
                    for name in signature.named_twice() {
                        assert_eq!(theirs.iter().filter(|p| p.trim_end_matches(" = nil") == name).count(), 2, "{place}: `{name}`");
                    }
                }
            }
        };
        crate::roundhouse::fidelity::each_fixture_app(|header, context, derived, texts| {
            check(header, context, derived, &|facts| texts[&facts.relative_path].clone());
        });
        crate::test_fixture::each_app(&["examples/blog", "tests/fixtures/apps/shop"], |context, derived, _| {
            check(&[], context, derived, &|facts| std::fs::read_to_string(&facts.path).unwrap());
        });
        assert!(
            templates >= 20 && twice >= 9 && held >= 9 && keyword_or_twice >= 10,
            "{templates} templates, {twice} names taken twice, {held} compiler verdicts, {keyword_or_twice} defs commented out"
        );
    }
}

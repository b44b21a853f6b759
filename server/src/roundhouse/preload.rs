//! The N+1 queries Roundhouse's analysis proves from source (its `missing_preload`), read on Prism's
//! tree: a loop over a query's records that reads, on each record, an association the query did not
//! `includes`/`preload`/`eager_load`. Rails runs one query per record there; Bullet finds it at run
//! time, on the traffic you happened to send.
//!
//! What this mirrors of the compiler (held by `tests/fixtures/fidelity/model-missing-preload*`):
//! - a query is a chain from a model's constant, or from a record's `has_many` (a record being `self`
//!   in an instance method, `Model.find`/`find_by`/`first`/`new`…, a `belongs_to`/`has_one` of one,
//!   or an instance variable bound to one), through `where`, `order`, `limit`, `joins` and the like
//!   (which keep its preloads), `includes`/`preload`/`eager_load` (which add theirs: symbols, a
//!   hash's keys, an array's elements) and the model's scopes whose lambda is such a chain; any
//!   other link makes it a query nothing is said about;
//! - it is iterated by a block (`each`, `map`, `select`, `find_each`…) or `map(&:x)`, directly or
//!   through a local or an instance variable bound to it earlier in the same method or template;
//! - a controller's instance variables reach the template its action renders (the one its explicit
//!   `render`s all name outside `respond_to`, else the one named for it), typed by what the action
//!   and the `before_action`s its controller declares for it bind (their methods may be inherited);
//!   the query is the one every such action binds (the preloads they all have);
//! - the record is the block's first parameter, and each call on it named like one of the model's
//!   associations (its own, or one a concern's `included` block declares) is a read;
//! - a controller's superclass is looked up from its namespaces outwards (`BaseController` in
//!   `Admin::PostsController` is `Admin::BaseController` when there is one), a scope may be a
//!   concern's (its `included` block), `references` keeps a query, and an `if`/`unless`/`case`
//!   whose branches give records of one model (or nothing) gives that model's record;
//! - a loop's block parameter is one record of what it iterates, so a loop nested in it over the
//!   record's `has_many` is checked; a query through one of the model's class methods gives its
//!   records with preloads unknown (nothing said of a loop over it, its members typed), and so does
//!   a `has_many` read without a receiver in a model's instance method (a `belongs_to` so read
//!   gives its record);
//! - a partial is given what the templates (not partials) that render it by name give it: the
//!   records among their instance variables, and a local every render passes a record of one model
//!   (`@post`, `@post.user`); a query is not followed into a partial.
//!
//! What the compiler decides by its types and this reading leaves out (it says nothing there): a
//! query from a call without a receiver in a class method, a record from a helper or a gem's filter,
//! a collection render's locals, what a partial rendered from another partial is given, a filter of
//! a module.
//!
//! The facts of one file are a function of its text (`PreloadFacts`, kept on `FileFacts`); what they
//! mean is decided against the app in `checks` (which models, associations and scopes there are).

use ruby_prism::{Node, Visit};

use crate::syntax::{LineIndex, Span};

/// The rule this module's findings are under.
pub const RULE: crate::diagnostic::RuleId = rule!("model.missing-preload");

/// Chain links that keep a query's records and preloads (the core of Active Record's query methods).
/// (The compiler keeps more — `group` — where its types follow them; these are the ones whose
/// records it always knows.)
pub const PRESERVERS: &[&str] =
    &["where", "not", "order", "reorder", "limit", "offset", "joins", "left_joins", "left_outer_joins", "distinct", "all", "references"];

/// Pagination (will_paginate's `paginate(page:)`, Kaminari's `page`/`per`): the compiler's types
/// keep a query from a model's constant through them, not one from a record's `has_many`, and not
/// a `paginate` given more than `page:` (`per_page:`).
pub const PAGINATION: &[&str] = &["paginate", "page", "per"];

/// Links that preload associations.
pub const PRELOADERS: &[&str] = &["includes", "preload", "eager_load"];

/// Block methods whose first block parameter is one record of the receiver.
const ITERATORS: &[&str] = &[
    "each",
    "map",
    "flat_map",
    "collect",
    "select",
    "filter",
    "reject",
    "find",
    "detect",
    "any?",
    "all?",
    "none?",
    "sum",
    "min_by",
    "max_by",
    "sort_by",
    "group_by",
    "index_by",
    "each_with_index",
    "each_with_object",
    "partition",
    "find_each",
    "count",
    "take_while",
    "drop_while",
];

/// An expression, as far as the N+1 check follows it: decided against the app later (`resolve`).
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub enum Value {
    /// A constant, as written (`Post`, `Admin::Post`), and where.
    Constant(String, Span),
    /// An instance variable not bound earlier in the same body: a controller's other methods bind
    /// it, or the actions a template is rendered for.
    Ivar(String),
    /// `self`.
    SelfRef,
    /// The receiver of a call written without one (no query is followed from it).
    Implicit,
    /// `@x ||= value`: a record it gives is bound, a query is not followed.
    OrAssigned(Box<Value>),
    /// `nil`: a branch that gives nothing.
    Nil,
    /// An `if`/`unless`/`case`/ternary's value: one of its branches' (a branch left out gives `nil`).
    Either(Vec<Value>),
    /// A loop's block parameter: one record of the query the loop iterates.
    Member(Box<Value>),
    /// A call: its receiver, its method, the associations it names when it preloads, and where it
    /// is (from its receiver's start to its own end, on one line).
    Call { receiver: Box<Value>, method: String, preloads: Vec<String>, span: Span, whole: bool },
}

/// A query as written: the value a loop iterates.
pub type Chain = Value;

/// A loop over a query's records.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Iteration {
    pub chain: Chain,
    /// The block's record parameter.
    pub member: String,
    /// Each call on the record (`post.user`): the method and the call's span.
    pub reads: Vec<(String, Span)>,
}

/// One body: a method (`name`), or a template's program (`name` empty).
#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Body {
    pub name: String,
    /// A class method (`def self.x`, or in `class << self`): its `self` is the class.
    pub singleton: bool,
    /// Each binding of an instance variable, in order: a query, or `None` for anything else.
    pub bindings: Vec<(String, Option<Chain>)>,
    pub iterations: Vec<Iteration>,
    /// The template its explicit `render`s name, when they all name one (`render :edit`,
    /// `render "users/show"`, `render template:/action:`), outside `respond_to` blocks: the
    /// template its instance variables reach instead of the one named for it.
    pub renders: Option<String>,
    /// Whether its `render`s name different templates (it then feeds the one named for it).
    pub renders_conflict: bool,
    /// Each partial it renders by name (`render "form", post: @post`, `render partial: "form",
    /// locals: { post: @post }`), in a template: what the partial's locals are given.
    pub partials: Vec<PartialRender>,
    /// Each `present?`/`blank?` of a template that the compiler writes as an `empty?` test.
    pub predicates: Vec<Predicate>,
}

/// A `present?`/`blank?` in a template's condition (an `if`/`unless`/`elsif`, a ternary or a
/// modifier, at the template's level or in an `each` loop's body; through `&&`, `||`, `!`) or in
/// the value of a template's local: the compiler writes it as `!(x || "").empty?` / `(x || "").empty?`
/// whatever `x` is (a single-record association's reader, or a call named with `_id` at its end,
/// excepted: those become `nil?` tests).
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Predicate {
    /// The receiver, as far as this reading follows it.
    pub receiver: Chain,
    /// `present?` or `blank?`.
    pub method: String,
    /// The call, from its receiver's start.
    pub span: Span,
    /// The name the compiler looks up among single-record association readers: the method of a
    /// call with a receiver; `None` for an instance variable, a local or a call without a receiver
    /// (an instance variable is a template's parameter by then: `@user` is tested with `empty?`
    /// even where `user` is an association's name).
    pub name: Option<String>,
}

/// A `render` of a partial named by a literal: the name as written, and each local it passes (a
/// query, or `None` for anything else); `locals` is `None` for a form this reading does not follow
/// (a collection, `object:`), which then leaves the partial's locals untyped.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct PartialRender {
    pub partial: String,
    pub locals: Option<Vec<(String, Option<Chain>)>>,
}

/// The N+1 facts of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct PreloadFacts {
    pub bodies: Vec<Body>,
}

impl PreloadFacts {
    pub fn is_empty(&self) -> bool {
        self.bodies.iter().all(|b| b.bindings.is_empty() && b.iterations.is_empty() && b.partials.is_empty() && b.predicates.is_empty())
    }

    /// What other files' findings read of these facts (the instance variables each method binds,
    /// and to what), without places: a re-check is owed when it changes, not when a line moves.
    pub fn contribution(&self) -> Vec<String> {
        fn shape(value: &Value) -> String {
            match value {
                Value::Constant(name, _) => name.clone(),
                Value::Ivar(name) => name.clone(),
                Value::SelfRef => "self".to_owned(),
                Value::Implicit => "_".to_owned(),
                Value::OrAssigned(value) => format!("||= {}", shape(value)),
                Value::Nil => "nil".to_owned(),
                Value::Either(branches) => format!("({})", branches.iter().map(shape).collect::<Vec<_>>().join(" | ")),
                Value::Member(value) => format!("each {}", shape(value)),
                Value::Call { receiver, method, preloads, .. } => format!("{}.{method}{preloads:?}", shape(receiver)),
            }
        }
        self.bodies
            .iter()
            .filter(|b| !b.bindings.is_empty() || !b.partials.is_empty())
            .map(|b| {
                let bindings: Vec<String> =
                    b.bindings.iter().map(|(name, value)| format!("{name}={}", value.as_ref().map_or("?".to_owned(), shape))).collect();
                let partials: Vec<String> = b
                    .partials
                    .iter()
                    .map(|r| {
                        let locals = r.locals.as_ref().map(|locals| {
                            locals
                                .iter()
                                .map(|(name, value)| format!("{name}={}", value.as_ref().map_or("?".to_owned(), shape)))
                                .collect::<Vec<_>>()
                        });
                        format!("{}{locals:?}", r.partial)
                    })
                    .collect();
                format!("preload {} {} {}", b.name, bindings.join(" "), partials.join(" "))
            })
            .collect()
    }
}

/// The bodies of the first class of a controller or model file: each `def`'s.
pub fn of_class_file(result: &ruby_prism::ParseResult<'_>, text: &str, line_index: &LineIndex, class_suffix: Option<&str>) -> PreloadFacts {
    let mut out = PreloadFacts::default();
    for (def, singleton) in crate::roundhouse::prism_ingest::class_defs(&result.node(), class_suffix) {
        let mut walker = Walker::new(text, line_index, |o| o);
        if let Some(body) = def.body() {
            walker.visit(&body);
        }
        let mut body = walker.finish(crate::roundhouse::prism_ingest::convert::name_of(def.name()));
        body.singleton = singleton;
        out.bodies.push(body);
    }
    out
}

/// A template's program (its Ruby as the compiler builds it), placed back in the template.
pub fn of_template(
    compiled: &crate::roundhouse::prism_ingest::erb::Compiled,
    result: &ruby_prism::ParseResult<'_>,
    source: &str,
    line_index: &LineIndex,
) -> PreloadFacts {
    let root = result.node();
    let place = |offset: usize| compiled.template_offset(offset).min(source.len());
    let mut walker = Walker::new(source, line_index, place);
    if let Some(program) = root.as_program_node() {
        rewritten_predicates(program.statements().body().iter(), &mut walker.rewritten);
        for statement in program.statements().body().iter() {
            walker.visit(&statement);
        }
    }
    let mut body = walker.finish(String::new());
    // A read in a HAML tag's inline Ruby is where the compiler places it: on the Ruby line of the
    // block around it.
    for (_, span) in body.iterations.iter_mut().flat_map(|i| i.reads.iter_mut()) {
        if let Some(line) = compiled.anchor(span.start_byte as usize) {
            *span = line_index.span(line.start.min(source.len())..line.end.min(source.len()));
        }
    }
    PreloadFacts { bodies: vec![body] }
}

struct Walker<'t, F: Fn(usize) -> usize> {
    text: &'t str,
    line_index: &'t LineIndex,
    place: F,
    /// Locals and instance variables bound in this body so far: a query, or `None`.
    env: Vec<(String, Option<Chain>)>,
    body: Body,
    /// How many `respond_to` blocks the walk is in.
    respond_to: u32,
    /// The `present?`/`blank?` calls (start, end) the compiler writes as `empty?` tests, in a
    /// template (`rewritten_predicates`).
    rewritten: std::collections::HashSet<(usize, usize)>,
}

/// The `present?`/`blank?` calls of a template's statements that the compiler's view lowering
/// rewrites into `empty?` tests: those in the condition of an `if`/`unless`/`elsif` statement (at
/// the template's level, in its branches, in an `each` loop's body), of an output tag that is an
/// `if`/ternary/modifier, and in a local's value; not in a helper's block, an output's other
/// calls, or a helper's arguments (left as written, answered at run time).
fn rewritten_predicates<'pr>(statements: impl Iterator<Item = Node<'pr>>, out: &mut std::collections::HashSet<(usize, usize)>) {
    fn condition(node: &Node<'_>, out: &mut std::collections::HashSet<(usize, usize)>) {
        if let Some(and) = node.as_and_node() {
            condition(&and.left(), out);
            condition(&and.right(), out);
        } else if let Some(or) = node.as_or_node() {
            condition(&or.left(), out);
            condition(&or.right(), out);
        } else if let Some(parentheses) = node.as_parentheses_node() {
            if let Some(statements) = parentheses.body().and_then(|b| b.as_statements_node()) {
                let inner: Vec<Node<'_>> = statements.body().iter().collect();
                if let [only] = inner.as_slice() {
                    condition(only, out);
                }
            }
        } else if let Some(call) = node.as_call_node() {
            let name = call.name();
            let Some(receiver) = call.receiver() else { return };
            if call.arguments().is_some() || call.block().is_some() || call.is_safe_navigation() {
                return;
            }
            if name.as_slice() == b"!" {
                condition(&receiver, out);
            } else if matches!(name.as_slice(), b"present?" | b"blank?") {
                let location = call.location();
                out.insert((location.start_offset(), location.end_offset()));
            }
        }
    }
    fn branch(statements: Option<ruby_prism::StatementsNode<'_>>, out: &mut std::collections::HashSet<(usize, usize)>) {
        if let Some(statements) = statements {
            rewritten_predicates(statements.body().iter(), out);
        }
    }
    for statement in statements {
        if let Some(node) = statement.as_if_node() {
            condition(&node.predicate(), out);
            branch(node.statements(), out);
            match node.subsequent() {
                Some(next) if next.as_else_node().is_some() => branch(next.as_else_node().and_then(|e| e.statements()), out),
                Some(next) => rewritten_predicates(std::iter::once(next), out),
                None => {}
            }
        } else if let Some(node) = statement.as_unless_node() {
            condition(&node.predicate(), out);
            branch(node.statements(), out);
            branch(node.else_clause().and_then(|e| e.statements()), out);
        } else if let Some(call) = statement.as_call_node() {
            if matches!(call.name().as_slice(), b"each" | b"each_with_index")
                && let Some(body) = call.block().and_then(|b| b.as_block_node()).and_then(|b| b.body())
                && let Some(statements) = body.as_statements_node()
            {
                rewritten_predicates(statements.body().iter(), out);
            }
        } else if let Some(write) = statement.as_local_variable_write_node() {
            if write.name().as_slice() != b"_buf" {
                condition(&write.value(), out);
                continue;
            }
            // An output tag whose expression is an `if`/ternary.
            let Some(output) = crate::roundhouse::prism_ingest::output_code(&write) else { continue };
            let inner: Vec<Node<'_>> = output.body().iter().collect();
            if let [only] = inner.as_slice() {
                if let Some(node) = only.as_if_node() {
                    condition(&node.predicate(), out);
                } else if let Some(node) = only.as_unless_node() {
                    condition(&node.predicate(), out);
                }
            }
        } else if let Some(write) = statement.as_local_variable_or_write_node() {
            condition(&write.value(), out);
        }
    }
}

impl<'t, F: Fn(usize) -> usize> Walker<'t, F> {
    fn new(text: &'t str, line_index: &'t LineIndex, place: F) -> Self {
        Walker { text, line_index, place, env: Vec::new(), body: Body::default(), respond_to: 0, rewritten: Default::default() }
    }

    fn finish(mut self, name: String) -> Body {
        self.body.name = name;
        self.body
    }

    fn span(&self, start: usize, end: usize) -> Span {
        let start = on_char(self.text, (self.place)(start));
        let end = on_char(self.text, (self.place)(end)).max(start);
        // At most one line: a finding's place, not the whole expression.
        let end = self.text[start..end].find('\n').map_or(end, |n| start + n);
        self.line_index.span(start..end)
    }

    fn bound(&self, name: &str) -> Option<&Option<Chain>> {
        self.env.iter().rev().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    fn bind(&mut self, name: String, chain: Option<Chain>) {
        if name.starts_with('@') {
            self.body.bindings.push((name.clone(), chain.clone()));
        }
        self.env.push((name, chain));
    }

    /// What `node` is, when it is something this reading follows.
    fn chain(&self, node: &Node<'_>, depth: u32) -> Option<Chain> {
        if depth > 16 {
            return None;
        }
        let location = node.location();
        if node.as_constant_read_node().is_some() || node.as_constant_path_node().is_some() {
            let here = self.span(location.start_offset(), location.end_offset());
            return Some(Value::Constant(self.text_of_program(node)?, here));
        }
        if node.as_self_node().is_some() {
            return Some(Value::SelfRef);
        }
        if node.as_nil_node().is_some() {
            return Some(Value::Nil);
        }
        if node.as_if_node().is_some() || node.as_unless_node().is_some() || node.as_case_node().is_some() {
            let mut branches = Vec::new();
            self.branches(node, &mut branches, depth + 1)?;
            return Some(Value::Either(branches));
        }
        if let Some(read) = node.as_local_variable_read_node() {
            return self.bound(&crate::roundhouse::prism_ingest::convert::name_of(read.name())).cloned().flatten();
        }
        if let Some(read) = node.as_instance_variable_read_node() {
            let name = crate::roundhouse::prism_ingest::convert::name_of(read.name());
            return match self.bound(&name) {
                Some(chain) => chain.clone(),
                None => Some(Value::Ivar(name)),
            };
        }
        if let Some(parentheses) = node.as_parentheses_node() {
            let body = parentheses.body()?;
            let statements = body.as_statements_node()?;
            let inner: Vec<Node<'_>> = statements.body().iter().collect();
            let [only] = inner.as_slice() else { return None };
            return self.chain(only, depth + 1);
        }
        let call = node.as_call_node()?;
        if call.block().is_some() || call.is_safe_navigation() {
            return None;
        }
        let receiver = match call.receiver() {
            Some(receiver) => self.chain(&receiver, depth + 1)?,
            // A receiverless call with arguments is a helper's or a local's, as often as self's.
            None if call.arguments().is_some()
                && !PRESERVERS.contains(&crate::roundhouse::prism_ingest::convert::name_of(call.name()).as_str())
                && !PRELOADERS.contains(&crate::roundhouse::prism_ingest::convert::name_of(call.name()).as_str()) =>
            {
                return None;
            }
            None => Value::Implicit,
        };
        let method = crate::roundhouse::prism_ingest::convert::name_of(call.name());
        if method == "paginate" && !only_page(&call) {
            return None;
        }
        // `find` given a list (`find(ids)`, `find([1, 2])`, `find(a, b)`) gives the records, not one.
        if method == "find" && !one_id(&call) {
            return None;
        }
        let mut preloads = Vec::new();
        if PRELOADERS.contains(&method.as_str()) {
            for argument in call.arguments().iter().flat_map(|a| a.arguments().iter()) {
                preload_names(&argument, &mut preloads);
            }
        }
        let span = self.span(location.start_offset(), location.end_offset());
        let whole = !location.as_slice().contains(&b'\n');
        Some(Value::Call { receiver: Box::new(receiver), method, preloads, span, whole })
    }

    /// The block parameter of a loop over something this reading follows, and what it is.
    fn loop_member(&self, call: &ruby_prism::CallNode<'_>) -> Option<(String, Chain)> {
        if !ITERATORS.iter().any(|m| m.as_bytes() == call.name().as_slice()) {
            return None;
        }
        let block = call.block()?;
        let member = block_member(&block.as_block_node()?)?;
        let chain = self.chain(&call.receiver()?, 0)?;
        Some((member, Value::Member(Box::new(chain))))
    }

    /// A `render` of a partial named by a literal, with the locals it passes.
    fn partial_render(&self, call: &ruby_prism::CallNode<'_>) -> Option<PartialRender> {
        let arguments: Vec<Node<'_>> = call.arguments()?.arguments().iter().collect();
        let literal = |node: &Node<'_>| node.as_string_node().map(|s| String::from_utf8_lossy(s.unescaped()).into_owned());
        let locals_of = |pairs: Vec<(String, Node<'_>)>| -> Vec<(String, Option<Chain>)> {
            pairs.into_iter().map(|(name, value)| (name, self.chain(&value, 0))).collect()
        };
        match arguments.as_slice() {
            // `render "form"`, `render "form", post: @post`.
            [first, rest @ ..] if literal(first).is_some() => {
                let partial = literal(first)?;
                let locals = match rest {
                    [] => Some(Vec::new()),
                    [hash] => pairs_of(hash).map(locals_of),
                    _ => None,
                };
                Some(PartialRender { partial, locals })
            }
            // `render partial: "form", locals: { post: @post }`.
            [hash] => {
                let pairs = pairs_of(hash)?;
                let partial = pairs.iter().find(|(k, _)| k == "partial").and_then(|(_, v)| literal(v))?;
                let unread = pairs.iter().any(|(k, _)| !matches!(k.as_str(), "partial" | "locals" | "formats" | "layout"));
                let locals = match pairs.iter().find(|(k, _)| k == "locals") {
                    _ if unread => None,
                    Some((_, hash)) => pairs_of(hash).map(locals_of),
                    None => Some(Vec::new()),
                };
                Some(PartialRender { partial, locals })
            }
            _ => None,
        }
    }

    /// The values an `if`/`unless`/`case` may give, each branch's last statement (`nil` for a branch
    /// left out or empty); `None` when one of them is not followed.
    fn branches(&self, node: &Node<'_>, out: &mut Vec<Value>, depth: u32) -> Option<()> {
        if depth > 16 {
            return None;
        }
        let last = |statements: Option<ruby_prism::StatementsNode<'_>>, out: &mut Vec<Value>| -> Option<()> {
            match statements.and_then(|s| s.body().iter().last()) {
                Some(value) => out.push(self.chain(&value, depth + 1)?),
                None => out.push(Value::Nil),
            }
            Some(())
        };
        if let Some(node) = node.as_if_node() {
            last(node.statements(), out)?;
            match node.subsequent() {
                Some(next) if next.as_else_node().is_some() => last(next.as_else_node()?.statements(), out)?,
                Some(next) => self.branches(&next, out, depth + 1)?,
                None => out.push(Value::Nil),
            }
        } else if let Some(node) = node.as_unless_node() {
            last(node.statements(), out)?;
            match node.else_clause() {
                Some(other) => last(other.statements(), out)?,
                None => out.push(Value::Nil),
            }
        } else if let Some(node) = node.as_case_node() {
            for condition in node.conditions().iter() {
                last(condition.as_when_node()?.statements(), out)?;
            }
            match node.else_clause() {
                Some(other) => last(other.statements(), out)?,
                None => out.push(Value::Nil),
            }
        } else {
            return None;
        }
        Some(())
    }

    /// A node's source, as the program has it (a constant's path).
    fn text_of_program(&self, node: &Node<'_>) -> Option<String> {
        let slice = node.location().as_slice();
        std::str::from_utf8(slice).ok().map(|s| s.trim_start_matches("::").to_owned())
    }

    fn iteration(&mut self, call: &ruby_prism::CallNode<'_>) {
        let method = call.name();
        if !ITERATORS.iter().any(|m| m.as_bytes() == method.as_slice()) {
            return;
        }
        let Some(receiver) = call.receiver() else { return };
        // `map(&:user)`: the compiler reads it as a block whose record is `x`, calling `x.user`.
        if let Some(argument) = call.block().and_then(|b| b.as_block_argument_node())
            && let Some(symbol) = argument.expression().and_then(|e| e.as_symbol_node())
        {
            let Some(chain) = self.chain(&receiver, 0) else { return };
            let location = call.location();
            let read = String::from_utf8_lossy(symbol.unescaped()).into_owned();
            let span = self.span(location.start_offset(), location.end_offset());
            self.body.iterations.push(Iteration { chain, member: "x".to_owned(), reads: vec![(read, span)] });
            return;
        }
        let Some(block) = call.block().and_then(|b| b.as_block_node()) else { return };
        let Some(member) = block_member(&block) else { return };
        let Some(chain) = self.chain(&receiver, 0) else { return };
        let mut reads = Vec::new();
        if let Some(body) = block.body() {
            let mut collect = Reads { member: &member, found: Vec::new() };
            collect.visit(&body);
            for (name, start, end) in collect.found {
                reads.push((name, self.span(start, end)));
            }
        }
        self.body.iterations.push(Iteration { chain, member, reads });
    }
}

/// The template a `render` names: `render :edit`, `render "users/show"`, `render template: "x"`,
/// `render action: :y` (a leading hash's `template:`/`action:`); `None` for the other forms.
fn rendered_template(call: &ruby_prism::CallNode<'_>) -> Option<String> {
    let first = call.arguments()?.arguments().iter().next()?;
    let literal = |node: &Node<'_>| -> Option<String> {
        if let Some(symbol) = node.as_symbol_node() {
            return Some(String::from_utf8_lossy(symbol.unescaped()).into_owned());
        }
        node.as_string_node().map(|s| String::from_utf8_lossy(s.unescaped()).into_owned())
    };
    if let Some(name) = literal(&first) {
        return Some(name);
    }
    let elements = first.as_keyword_hash_node().map(|h| h.elements()).or_else(|| first.as_hash_node().map(|h| h.elements()))?;
    let first_pair = elements.iter().next()?;
    let pair = first_pair.as_assoc_node()?;
    let key = pair.key();
    let key = key.as_symbol_node()?;
    matches!(key.unescaped(), b"template" | b"action").then(|| literal(&pair.value())).flatten()
}

/// Whether a `find` is given one id, as far as its text tells: one argument, not an array, a splat,
/// nor a name ending in `ids`.
fn one_id(call: &ruby_prism::CallNode<'_>) -> bool {
    let arguments: Vec<Node<'_>> = call.arguments().iter().flat_map(|a| a.arguments().iter()).collect();
    let [argument] = arguments.as_slice() else { return false };
    if argument.as_array_node().is_some() || argument.as_splat_node().is_some() {
        return false;
    }
    let name = if let Some(read) = argument.as_local_variable_read_node() {
        Some(read.name())
    } else if let Some(read) = argument.as_instance_variable_read_node() {
        Some(read.name())
    } else {
        argument.as_call_node().map(|c| c.name())
    };
    !name.is_some_and(|n| n.as_slice().ends_with(b"ids"))
}

/// Whether a `paginate` call is given `page:` alone.
fn only_page(call: &ruby_prism::CallNode<'_>) -> bool {
    let arguments: Vec<Node<'_>> = call.arguments().iter().flat_map(|a| a.arguments().iter()).collect();
    let [hash] = arguments.as_slice() else { return false };
    pairs_of(hash).is_some_and(|pairs| pairs.len() == 1 && pairs[0].0 == "page")
}

/// A hash's `key: value` pairs, each key a symbol; `None` when one is not.
fn pairs_of<'pr>(node: &Node<'pr>) -> Option<Vec<(String, Node<'pr>)>> {
    let elements = node.as_keyword_hash_node().map(|h| h.elements()).or_else(|| node.as_hash_node().map(|h| h.elements()))?;
    elements
        .iter()
        .map(|e| {
            let pair = e.as_assoc_node()?;
            let key = pair.key();
            let key = key.as_symbol_node()?;
            Some((String::from_utf8_lossy(key.unescaped()).into_owned(), pair.value()))
        })
        .collect()
}

/// The block's first parameter: a plain name, `it`, or `_1`.
fn block_member(block: &ruby_prism::BlockNode<'_>) -> Option<String> {
    let parameters = block.parameters()?;
    if parameters.as_it_parameters_node().is_some() {
        return Some("it".to_owned());
    }
    if parameters.as_numbered_parameters_node().is_some() {
        return Some("_1".to_owned());
    }
    let list = parameters.as_block_parameters_node()?.parameters()?;
    let first = list.requireds().iter().next()?;
    first.as_required_parameter_node().map(|p| crate::roundhouse::prism_ingest::convert::name_of(p.name()))
}

/// The associations an `includes` argument names: a symbol, a hash's keys, an array's elements.
fn preload_names(node: &Node<'_>, out: &mut Vec<String>) {
    if let Some(symbol) = node.as_symbol_node() {
        out.push(String::from_utf8_lossy(symbol.unescaped()).into_owned());
    } else if let Some(elements) = node.as_keyword_hash_node().map(|h| h.elements()).or_else(|| node.as_hash_node().map(|h| h.elements())) {
        for element in elements.iter() {
            if let Some(key) = element.as_assoc_node().and_then(|a| a.key().as_symbol_node()) {
                out.push(String::from_utf8_lossy(key.unescaped()).into_owned());
            }
        }
    } else if let Some(array) = node.as_array_node() {
        for element in array.elements().iter() {
            preload_names(&element, out);
        }
    }
}

/// The calls on the block's record, at any depth of its body.
struct Reads<'m> {
    member: &'m str,
    found: Vec<(String, usize, usize)>,
}

impl<'pr> Visit<'pr> for Reads<'_> {
    fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
        if let Some(receiver) = node.receiver() {
            let name = if let Some(read) = receiver.as_local_variable_read_node() {
                Some(crate::roundhouse::prism_ingest::convert::name_of(read.name()))
            } else if receiver.as_it_local_variable_read_node().is_some() {
                Some("it".to_owned())
            } else {
                None
            };
            if name.as_deref() == Some(self.member) {
                let location = node.location();
                self.found.push((
                    crate::roundhouse::prism_ingest::convert::name_of(node.name()),
                    location.start_offset(),
                    location.end_offset(),
                ));
            }
        }
        ruby_prism::visit_call_node(self, node);
    }
}

impl<'pr, F: Fn(usize) -> usize> Visit<'pr> for Walker<'_, F> {
    fn visit_local_variable_write_node(&mut self, node: &ruby_prism::LocalVariableWriteNode<'pr>) {
        self.visit(&node.value());
        let chain = self.chain(&node.value(), 0);
        self.bind(crate::roundhouse::prism_ingest::convert::name_of(node.name()), chain);
    }

    fn visit_instance_variable_write_node(&mut self, node: &ruby_prism::InstanceVariableWriteNode<'pr>) {
        self.visit(&node.value());
        let chain = self.chain(&node.value(), 0);
        self.bind(crate::roundhouse::prism_ingest::convert::name_of(node.name()), chain);
    }

    fn visit_instance_variable_or_write_node(&mut self, node: &ruby_prism::InstanceVariableOrWriteNode<'pr>) {
        self.visit(&node.value());
        let chain = self.chain(&node.value(), 0).map(|value| Value::OrAssigned(Box::new(value)));
        self.bind(crate::roundhouse::prism_ingest::convert::name_of(node.name()), chain);
    }

    fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
        let location = node.location();
        if self.rewritten.contains(&(location.start_offset(), location.end_offset()))
            && let Some(receiver) = node.receiver().and_then(|r| self.chain(&r, 0))
        {
            let span = self.span(location.start_offset(), location.end_offset());
            let method = crate::roundhouse::prism_ingest::convert::name_of(node.name());
            let name = node.receiver().and_then(|r| {
                let call = r.as_call_node()?;
                call.receiver().map(|_| crate::roundhouse::prism_ingest::convert::name_of(call.name()))
            });
            self.body.predicates.push(Predicate { receiver, method, span, name });
        }
        let respond_to = node.receiver().is_none() && node.name().as_slice() == b"respond_to";
        if node.receiver().is_none()
            && self.respond_to == 0
            && node.name().as_slice() == b"render"
            && let Some(name) = rendered_template(node)
        {
            match &self.body.renders {
                None if !self.body.renders_conflict => self.body.renders = Some(name),
                Some(first) if *first != name => {
                    self.body.renders = None;
                    self.body.renders_conflict = true;
                }
                _ => {}
            }
        }
        if node.receiver().is_none()
            && node.name().as_slice() == b"render"
            && let Some(render) = self.partial_render(node)
        {
            self.body.partials.push(render);
        }
        if let Some(receiver) = node.receiver() {
            self.visit(&receiver);
        }
        if let Some(arguments) = node.arguments() {
            self.visit_arguments_node(&arguments);
        }
        self.iteration(node);
        if let Some(block) = node.block() {
            // A loop's block parameter is one record of what it iterates, inside the block.
            let member = self.loop_member(node);
            let outside = member.as_ref().map(|(name, _)| self.bound(name).cloned());
            if let Some((name, chain)) = member.clone() {
                self.env.push((name, Some(chain)));
            }
            // A `respond_to` block's renders are a format's: not the action's template.
            self.respond_to += u32::from(respond_to);
            self.visit(&block);
            self.respond_to -= u32::from(respond_to);
            if let (Some((name, _)), Some(outside)) = (member, outside) {
                self.env.push((name, outside.flatten()));
            }
        }
    }

    // A method defined inside a body is not run by it.
    fn visit_def_node(&mut self, _node: &ruby_prism::DefNode<'pr>) {}
}

fn on_char(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

// ----------------------------------------------------------------------------------------------
// What the facts mean in the app

use std::collections::{BTreeSet, HashMap};

use crate::app::AppContext;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rails::FileFacts;

/// What a value is, as far as this reading follows it: a query (the model whose records it gives,
/// what it preloads, where it starts) or one record of a model.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Typed {
    /// `insert`: where `.includes(…)` can go without changing what the query gives (after its
    /// constant, or after a one-line `has_many` call, with no `joins` or `distinct` on the way).
    Query {
        model: String,
        preloads: BTreeSet<String>,
        origin: Span,
        path: String,
        insert: Option<Span>,
        /// Whether it starts from a record's `has_many`: the compiler's types follow no scope
        /// called on one (`@user.posts.published`), where they follow `where` and the like.
        association: bool,
    },
    /// Records of a model from a query whose preloads this reading does not know (through one of
    /// the model's class methods, `Post.order(:id).visible(x)`): the compiler says nothing of a
    /// loop over it, but its block parameter is one of the model's records.
    Records(String),
    Record(String),
}

type Env = HashMap<String, Typed>;

/// Where a value is resolved: the app, the file, the instance variables it starts from, and what
/// `self` is.
struct Scope<'a> {
    context: &'a AppContext,
    path: &'a str,
    env: &'a Env,
    /// The model whose method this is (`None` in a controller or a template), and whether its `self`
    /// is the class.
    model: Option<(&'a str, bool)>,
}

/// Methods that give one record of a query's model.
const RECORD: &[&str] = &["find", "find_by", "find_by!", "first", "first!", "last", "last!", "take", "take!", "new", "create", "create!"];

/// The associations a model's records answer to, as the compiler counts them: its own, and those
/// of the `included` blocks of the modules it includes.
fn associations(context: &AppContext, model: &crate::rails::model::Model) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = model.associations.iter().map(|a| a.name.clone()).collect();
    for (file, block) in context.included_blocks(model) {
        if !file.relative_path.starts_with("app/") {
            continue;
        }
        for inner in &block.items {
            if let crate::syntax::outline::Item::Call(c) = inner
                && c.receiver.is_none()
                && crate::rails::model::ASSOCIATIONS.contains(&c.method.as_str())
                && let Some(name) = c.arguments.first().and_then(|a| a.as_name())
            {
                out.insert(name.to_owned());
            }
        }
    }
    out
}

/// The body of the scope `name` of `model`: its own, or one a concern's `included` block declares.
fn scope_body(context: &AppContext, model: &crate::rails::model::Model, name: &str) -> Option<String> {
    if let Some(own) = model.scopes.iter().find(|s| s.name == name) {
        return Some(own.body.clone());
    }
    context.included_blocks(model).into_iter().filter(|(file, _)| file.relative_path.starts_with("app/")).find_map(|(_, block)| {
        block.items.iter().find_map(|item| match item {
            crate::syntax::outline::Item::Call(c) if c.receiver.is_none() && c.method == "scope" && c.first_name() == Some(name) => {
                c.arguments.get(1).map(ToString::to_string)
            }
            _ => None,
        })
    })
}

/// The model a record of `model` reaches through its association `name`, and whether the
/// association is a collection (`has_many`, `has_and_belongs_to_many`): one model the compiler
/// compiles, or nothing.
fn association_target(context: &AppContext, model: &str, name: &str) -> Option<(String, bool)> {
    let declaring = model_of(context, model)?;
    let association = declaring.associations.iter().find(|a| a.name == name)?;
    let targets = crate::app::nav::association_models(context, declaring, association);
    let [target] = targets.as_slice() else { return None };
    let target = model_of(context, &target.class_name)?.class_name.clone();
    Some((target, matches!(association.kind.as_str(), "has_many" | "has_and_belongs_to_many")))
}

/// Whether `name` is a class method `model` defines (`def self.visible`).
fn class_method(model: &crate::rails::model::Model, name: &str) -> bool {
    model.methods.iter().any(|m| m.singleton && m.name == name)
}

/// The model a query's constant names: one the compiler compiles as a model.
fn model_of<'c>(context: &'c AppContext, name: &str) -> Option<&'c crate::rails::model::Model> {
    context.model(name).filter(|m| {
        crate::roundhouse::ingest::is_model_facts(m) && m.superclass.as_deref().is_some_and(|s| !s.trim_start_matches("::").is_empty())
    })
}

/// The preloads of a scope whose lambda is a chain of the links kept here from the model itself
/// (`-> { includes(:user).order(:id) }`); `None` for any other scope.
fn scope_preloads(body: &str) -> Option<BTreeSet<String>> {
    let result = ruby_prism::parse(body.as_bytes());
    let root = result.node();
    let program = root.as_program_node()?;
    let statements: Vec<Node<'_>> = program.statements().body().iter().collect();
    let [lambda] = statements.as_slice() else { return None };
    let lambda = lambda.as_lambda_node()?;
    let inner = lambda.body()?;
    let inner = inner.as_statements_node()?;
    let inner: Vec<Node<'_>> = inner.body().iter().collect();
    let [chain] = inner.as_slice() else { return None };
    let mut preloads = BTreeSet::new();
    scope_links(chain, &mut preloads, 0).then_some(preloads)
}

fn scope_links(node: &Node<'_>, preloads: &mut BTreeSet<String>, depth: u32) -> bool {
    let Some(call) = node.as_call_node().filter(|_| depth < 16) else { return false };
    let method = crate::roundhouse::prism_ingest::convert::name_of(call.name());
    if PRELOADERS.contains(&method.as_str()) {
        let mut names = Vec::new();
        for argument in call.arguments().iter().flat_map(|a| a.arguments().iter()) {
            preload_names(&argument, &mut names);
        }
        preloads.extend(names);
    } else if !PRESERVERS.contains(&method.as_str()) {
        return false;
    }
    match call.receiver() {
        Some(receiver) => scope_links(&receiver, preloads, depth + 1),
        None => true,
    }
}

/// What `value` is in `scope`.
fn resolve(scope: &Scope<'_>, value: &Value, depth: u32) -> Option<Typed> {
    if depth > 24 {
        return None;
    }
    match value {
        Value::Constant(name, span) => {
            let model = model_of(scope.context, name)?;
            Some(Typed::Query {
                model: model.class_name.clone(),
                preloads: BTreeSet::new(),
                origin: *span,
                path: scope.path.to_owned(),
                insert: Some(*span),
                association: false,
            })
        }
        Value::Ivar(name) => scope.env.get(name).cloned(),
        // `self` in an instance method is the record. In a class method, and for a call without a
        // receiver, what the compiler's types make of the query varies with the shape around it
        // (a scope's name is followed, `where(…)` in a `{ }` block is not): nothing is said.
        Value::SelfRef => match scope.model {
            Some((model, false)) => Some(Typed::Record(model.to_owned())),
            _ => None,
        },
        Value::Implicit | Value::Nil => None,
        Value::Member(query) => match resolve(scope, query, depth + 1)? {
            Typed::Query { model, .. } | Typed::Records(model) => Some(Typed::Record(model)),
            Typed::Record(_) => None,
        },
        // The records of one model, whichever branch gives them (a `nil` branch gives none); a query
        // is not followed through a branch.
        Value::Either(branches) => {
            let mut records = branches.iter().filter(|b| **b != Value::Nil).map(|b| match resolve(scope, b, depth + 1)? {
                Typed::Record(model) => Some(model),
                Typed::Query { .. } | Typed::Records(_) => None,
            });
            let first = records.next()??;
            records.all(|other| other.as_ref() == Some(&first)).then_some(Typed::Record(first))
        }
        Value::OrAssigned(value) => match resolve(scope, value, depth + 1)? {
            Typed::Record(model) => Some(Typed::Record(model)),
            Typed::Query { .. } | Typed::Records(_) => None,
        },
        // A name read without a receiver in a partial: one of its locals, when its renders type it.
        Value::Call { receiver, method, .. } if **receiver == Value::Implicit && scope.env.contains_key(method) => {
            scope.env.get(method).cloned()
        }
        // An association read without a receiver in a model's instance method: `self`'s. A
        // `has_many` gives its records with preloads the compiler does not follow there (nothing
        // is said of a loop over it; its block parameter is typed); a `belongs_to`/`has_one` its
        // record.
        Value::Call { receiver, method, .. } if **receiver == Value::Implicit && matches!(scope.model, Some((_, false))) => {
            let (model, _) = scope.model?;
            match association_target(scope.context, model, method)? {
                (target, true) => Some(Typed::Records(target)),
                (target, false) => Some(Typed::Record(target)),
            }
        }
        Value::Call { receiver, method, preloads: named, span, whole } => match resolve(scope, receiver, depth + 1)? {
            Typed::Query { model, mut preloads, origin, path, mut insert, association } => {
                if PRELOADERS.contains(&method.as_str()) {
                    preloads.extend(named.iter().cloned());
                } else if PRESERVERS.contains(&method.as_str()) {
                    if matches!(method.as_str(), "joins" | "left_joins" | "left_outer_joins" | "distinct") {
                        insert = None;
                    }
                } else if RECORD.contains(&method.as_str()) {
                    return Some(Typed::Record(model));
                } else if association {
                    return None;
                } else if !PAGINATION.contains(&method.as_str()) {
                    // One of the model's scopes; or one of its class methods, which gives its
                    // records with preloads this reading does not follow; or nothing followed.
                    let declaring = scope.context.model(&model)?;
                    match scope_body(scope.context, declaring, method) {
                        Some(body) => preloads.extend(scope_preloads(&body)?),
                        None if class_method(declaring, method) => return Some(Typed::Records(model)),
                        None => return None,
                    }
                }
                Some(Typed::Query { model, preloads, origin, path, insert, association })
            }
            Typed::Records(model) => {
                let declaring = scope.context.model(&model)?;
                if RECORD.contains(&method.as_str()) {
                    Some(Typed::Record(model))
                } else if PRESERVERS.contains(&method.as_str())
                    || PRELOADERS.contains(&method.as_str())
                    || PAGINATION.contains(&method.as_str())
                    || scope_body(scope.context, declaring, method).is_some()
                    || class_method(declaring, method)
                {
                    Some(Typed::Records(model))
                } else {
                    None
                }
            }
            Typed::Record(model) => match association_target(scope.context, &model, method)? {
                (target, true) => Some(Typed::Query {
                    model: target,
                    preloads: BTreeSet::new(),
                    origin: *span,
                    path: scope.path.to_owned(),
                    insert: whole.then_some(*span),
                    association: true,
                }),
                (target, false) => Some(Typed::Record(target)),
            },
        },
    }
}

/// The instance variables a body leaves bound, from `base` (a value read through another instance
/// variable is typed by what is bound so far).
fn bindings(context: &AppContext, body: &Body, base: &Env, path: &str) -> Env {
    let mut env = base.clone();
    for (name, value) in &body.bindings {
        let scope = Scope { context, path, env: &env, model: None };
        match value.as_ref().and_then(|v| resolve(&scope, v, 0)) {
            Some(typed) => {
                env.insert(name.clone(), typed);
            }
            None => {
                env.remove(name);
            }
        }
    }
    env
}

/// A controller's methods and those of the app's controllers it inherits from (its own first), each
/// with its file: the compiler types a controller's instance variables through them all.
type Lineage<'c> = Vec<(&'c Body, &'c str)>;

fn lineage<'c>(
    context: &'c AppContext,
    controller: &crate::rails::controller::Controller,
) -> (Lineage<'c>, Vec<&'c crate::rails::controller::Filter>) {
    let mut bodies: Lineage<'c> = Vec::new();
    let mut filters: Vec<&'c crate::rails::controller::Filter> = Vec::new();
    let mut name = Some(controller.class_name.clone());
    let mut seen = 0;
    while let Some(class_name) = name.take().filter(|_| seen < 8) {
        seen += 1;
        let Some((facts, index)) = context.controllers.get(&class_name) else { break };
        let class = &facts.controllers[*index];
        // The controller's own filter calls: the compiler types no instance variable through one it
        // inherits (their methods it does follow).
        if seen == 1 {
            filters.extend(class.filters.iter());
        }
        if let Some(preload) = facts.preload.as_ref() {
            let own: Vec<&str> = bodies.iter().map(|(b, _)| b.name.as_str()).collect();
            // A method the subclass defines hides the inherited one.
            let inherited: Vec<&Body> = preload.bodies.iter().filter(|b| !own.contains(&b.name.as_str())).collect();
            bodies.extend(inherited.into_iter().map(|b| (b, facts.relative_path.as_str())));
        }
        name = class.superclass.as_deref().and_then(|s| superclass(context, &class_name, s));
    }
    (bodies, filters)
}

/// The controller class `written` names as the superclass of `class_name`, as the compiler's types
/// find it: in the class's enclosing namespaces first, innermost first (`BaseController` in
/// `Admin::PostsController` is `Admin::BaseController` when the app has one), then at the top.
fn superclass(context: &AppContext, class_name: &str, written: &str) -> Option<String> {
    if let Some(absolute) = written.strip_prefix("::") {
        return Some(absolute.to_owned());
    }
    let mut namespace = class_name;
    while let Some((outer, _)) = namespace.rsplit_once("::") {
        let candidate = format!("{outer}::{written}");
        if context.controllers.contains_key(&candidate) {
            return Some(candidate);
        }
        namespace = outer;
    }
    Some(written.to_owned())
}

/// The instance variables whose type this reading cannot tell across `bodies`, given what `known`
/// types: one bound anywhere to something not followed here, or to records of two models. The
/// compiler says nothing of a loop over one whose type is not a model's records.
fn untyped(context: &AppContext, bodies: &[(&Body, &str)], known: &Env) -> BTreeSet<String> {
    let mut dropped: BTreeSet<String> = BTreeSet::new();
    let mut models: HashMap<String, String> = HashMap::new();
    for (body, path) in bodies {
        let scope = Scope { context, path, env: known, model: None };
        for (name, value) in &body.bindings {
            let model = match value.as_ref().and_then(|v| resolve(&scope, v, 0)) {
                Some(Typed::Query { model, .. } | Typed::Records(model)) => format!("query {model}"),
                Some(Typed::Record(model)) => format!("record {model}"),
                None => {
                    dropped.insert(name.clone());
                    continue;
                }
            };
            if models.get(name).is_some_and(|m| *m != model) {
                dropped.insert(name.clone());
            }
            models.insert(name.clone(), model);
        }
    }
    dropped
}

/// The instance variables a template rendered for `action` knows the type of, as the compiler types
/// them: those the action binds, or a `before_action` of its controller that runs for it binds (in
/// its class or one it inherits), to a value this reading follows, and to records of one model.
fn typed_for(
    context: &AppContext,
    known: &Env,
    lineage: &[(&Body, &str)],
    filters: &[&crate::rails::controller::Filter],
    action: &Body,
) -> BTreeSet<String> {
    let targets: Vec<&str> = filters
        .iter()
        .filter(|f| f.kind == "before_action" && crate::roundhouse::controller_lowering::applies(f, &action.name))
        .flat_map(|f| f.targets.iter().map(String::as_str))
        .collect();
    let bodies: Vec<(&Body, &str)> =
        lineage.iter().copied().filter(|(b, _)| std::ptr::eq(*b, action) || targets.contains(&b.name.as_str())).collect();
    let untyped = untyped(context, &bodies, known);
    bodies.iter().flat_map(|(b, _)| b.bindings.iter().map(|(name, _)| name.clone())).filter(|name| !untyped.contains(name)).collect()
}

/// A controller's instance variables bound the same way by every method that binds them, and
/// typed (`untyped`). A value read through another instance variable (`@user.posts`, `@user` bound
/// by a filter) is typed once that one is: a few rounds, each from what the last one typed.
fn controller_env(context: &AppContext, bodies: &[(&Body, &str)]) -> Env {
    let mut known = Env::new();
    for _ in 0..3 {
        let next = merged(context, bodies, &known);
        if next == known {
            break;
        }
        known = next;
    }
    known
}

/// One round of `controller_env`: each binding typed by what `known` types.
fn merged(context: &AppContext, bodies: &[(&Body, &str)], known: &Env) -> Env {
    let mut merged = Env::new();
    let mut dropped = untyped(context, bodies, known);
    for (body, path) in bodies {
        let scope = Scope { context, path, env: known, model: None };
        for (name, value) in &body.bindings {
            if dropped.contains(name) {
                continue;
            }
            let Some(typed) = value.as_ref().and_then(|v| resolve(&scope, v, 0)) else { continue };
            match merged.get(name) {
                None => {
                    merged.insert(name.clone(), typed);
                }
                Some(previous) if *previous == typed => {}
                Some(previous) if let Some(joined) = joined(previous, &typed) => {
                    merged.insert(name.clone(), joined);
                }
                Some(_) => {
                    merged.remove(name);
                    dropped.insert(name.clone());
                }
            }
        }
    }
    merged
}

/// What each template is given by the actions that render it, as the compiler pairs them: an action
/// renders the template its explicit `render`s all name (outside `respond_to`), or else the one
/// named for it. The instance variables every one of them binds the same way (a query: with the
/// preloads they all have). Worked out for every template at once, once per context
/// (`AppContext::template_envs`): a controller's env is read once for all its templates.
pub(crate) struct TemplateEnvs(HashMap<String, Env>, BTreeSet<String>);

pub(crate) fn template_envs(context: &AppContext) -> TemplateEnvs {
    let mut given: HashMap<String, Vec<Env>> = HashMap::new();
    for (controller_facts, index) in context.controllers.values() {
        let controller = &controller_facts.controllers[*index];
        let Some(prefix) = crate::app::nav::controller_path(&controller.class_name) else { continue };
        let Some(preload) = controller_facts.preload.as_ref() else { continue };
        let path = controller_facts.relative_path.as_str();
        let mut base: Option<(Env, Lineage<'_>, Vec<&crate::rails::controller::Filter>)> = None;
        for action in &preload.bodies {
            let renders = match &action.renders {
                Some(name) if name.contains('/') => name.trim_start_matches('/').to_owned(),
                Some(name) => format!("{prefix}/{name}"),
                None => format!("{prefix}/{}", action.name),
            };
            // Only a template the app has is typed: a helper method renders nothing.
            if !context.templates.contains(&renders) {
                continue;
            }
            let (base, bodies, filters) = base.get_or_insert_with(|| {
                let (bodies, filters) = lineage(context, controller);
                (controller_env(context, &bodies), bodies, filters)
            });
            let mut env = bindings(context, action, base, path);
            let typed = typed_for(context, base, bodies, filters, action);
            env.retain(|name, _| typed.contains(name));
            given.entry(renders).or_default().push(env);
        }
    }
    let mut envs: HashMap<String, Env> = given.into_iter().map(|(template, envs)| (template, shared(envs))).collect();
    // A partial is given what the templates that render it by name give it, as the compiler types
    // it: the records among their instance variables (a query is not followed into a partial), and
    // each local every render passes a record of one model. A render in another partial does not
    // count; a partial some render gives locals this reading does not follow (a collection) knows
    // nothing.
    let mut given: HashMap<String, Vec<Option<Env>>> = HashMap::new();
    for file in context.files.iter() {
        let (Some(template), Some(preload)) = (file.template.as_ref(), file.preload.as_ref()) else { continue };
        if template.partial {
            continue;
        }
        let empty = Env::new();
        let site = envs.get(&template.logical_path).unwrap_or(&empty);
        let records: Env =
            site.iter().filter(|(_, typed)| matches!(typed, Typed::Record(_))).map(|(k, v)| (k.clone(), v.clone())).collect();
        let scope = Scope { context, path: &file.relative_path, env: site, model: None };
        for render in preload.bodies.iter().flat_map(|b| &b.partials) {
            let Some(partial) = partial_path(&template.logical_path, &render.partial) else { continue };
            let env = render.locals.as_ref().map(|locals| {
                let mut env = records.clone();
                // A local given a record (`@post`, `@post.user`); a query passed is not followed.
                env.extend(locals.iter().filter_map(|(name, value)| match resolve(&scope, value.as_ref()?, 0)? {
                    record @ Typed::Record(_) => Some((name.clone(), record)),
                    Typed::Query { .. } | Typed::Records(_) => None,
                }));
                env
            });
            given.entry(partial).or_default().push(env);
        }
    }
    for (partial, sites) in given {
        if let Some(sites) = sites.into_iter().collect::<Option<Vec<Env>>>() {
            envs.entry(partial).or_insert_with(|| shared(sites));
        }
    }
    TemplateEnvs(envs, single_record_readers(context))
}

/// The names the view lowering reads as a single record's reader, whose `present?`/`blank?` it
/// writes as a `nil?` test (`views.present-check-raises`): every `belongs_to`/`has_one` of the app's
/// models, and (not knowing their kinds) every association a concern's `included` block declares.
fn single_record_readers(context: &AppContext) -> BTreeSet<String> {
    let mut readers: BTreeSet<String> = BTreeSet::new();
    for (facts, index) in context.models.values() {
        let model = &facts.models[*index];
        readers.extend(model.associations.iter().filter(|a| matches!(a.kind.as_str(), "belongs_to" | "has_one")).map(|a| a.name.clone()));
        readers.extend(associations(context, model).into_iter().filter(|name| !model.associations.iter().any(|a| &a.name == name)));
    }
    readers
}

/// The logical path of the partial `name` a template at `from` renders: `posts/_form` for `"form"`
/// in `posts/new`, `shared/_nav` for `"shared/nav"`.
fn partial_path(from: &str, name: &str) -> Option<String> {
    if name.is_empty() || name.contains(['#', '{', '.']) {
        return None;
    }
    let (dir, base) = match name.rsplit_once('/') {
        Some((dir, base)) => (dir.trim_start_matches('/'), base),
        None => (from.rsplit_once('/').map_or("", |(dir, _)| dir), name),
    };
    Some(if dir.is_empty() { format!("_{base}") } else { format!("{dir}/_{base}") })
}

/// The instance variables every env binds the same way (a query: with the preloads all have).
/// One model's records from two queries, where one of them is a query whose preloads are not known.
fn joined(a: &Typed, b: &Typed) -> Option<Typed> {
    match (a, b) {
        (Typed::Records(model), Typed::Query { model: theirs, .. } | Typed::Records(theirs))
        | (Typed::Query { model, .. }, Typed::Records(theirs))
            if model == theirs =>
        {
            Some(Typed::Records(model.clone()))
        }
        _ => None,
    }
}

fn shared(envs: Vec<Env>) -> Env {
    let mut envs = envs.into_iter();
    let Some(mut env) = envs.next() else { return Env::new() };
    for other in envs {
        env.retain(|name, typed| match (typed, other.get(name)) {
            (Typed::Query { model, preloads, .. }, Some(Typed::Query { model: theirs, preloads: their_preloads, .. }))
                if model == theirs =>
            {
                preloads.retain(|p| their_preloads.contains(p));
                true
            }
            (Typed::Record(model), Some(Typed::Record(theirs))) => model == theirs,
            (mine, Some(theirs)) => match joined(mine, theirs) {
                Some(joined) => {
                    *mine = joined;
                    true
                }
                None => false,
            },
            _ => false,
        });
    }
    env
}

/// `model.missing-preload` in `file`: each loop over a query's records that reads an association the
/// query does not preload.
pub fn findings(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    found(file, context).into_iter().map(|(d, _)| d).collect()
}

/// The fix of a `model.missing-preload` finding of `file`: `.includes(:x)` in its query, which may
/// be in another file (the controller that feeds a template).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreloadFix {
    /// The query's file, relative to the app.
    pub path: String,
    /// Where the text goes, in bytes of that file.
    pub offset: usize,
    pub text: String,
}

pub fn fix(file: &FileFacts, context: &AppContext, diagnostic: &Diagnostic) -> Option<PreloadFix> {
    found(file, context).into_iter().find(|(d, _)| d.span == diagnostic.span && d.message == diagnostic.message).and_then(|(_, fix)| fix)
}

fn found(file: &FileFacts, context: &AppContext) -> Vec<(Diagnostic, Option<PreloadFix>)> {
    let Some(preload) = file.preload.as_ref() else { return Vec::new() };
    // No loop, nothing to say: the app's envs are not worked out for it.
    if preload.bodies.iter().all(|b| b.iterations.is_empty()) {
        return Vec::new();
    }
    let path = file.relative_path.as_str();
    let env: Env = if let Some(controller) = file.controllers.first().filter(|_| file.relative_path.starts_with("app/controllers/")) {
        controller_env(context, &lineage(context, controller).0)
    } else if let Some(template) = file.template.as_ref() {
        context.template_envs().0.get(&template.logical_path).cloned().unwrap_or_default()
    } else {
        Env::new()
    };
    // A model file's methods are its first class's, the model's.
    let model = if file.template.is_none() && file.relative_path.starts_with("app/models/") {
        file.models.iter().find(|m| crate::roundhouse::ingest::is_model_facts(m)).map(|m| m.class_name.as_str())
    } else {
        None
    };
    let mut out: Vec<(Diagnostic, Option<PreloadFix>)> = Vec::new();
    for body in &preload.bodies {
        let scope = Scope { context, path, env: &env, model: model.map(|m| (m, body.singleton)) };
        for iteration in &body.iterations {
            let Some(Typed::Query { model, preloads, origin, path: query_path, insert, .. }) = resolve(&scope, &iteration.chain, 0) else {
                continue;
            };
            let Some(declaring) = context.model(&model) else { continue };
            let associations = associations(context, declaring);
            let mut seen: Vec<&str> = Vec::new();
            for (read, span) in &iteration.reads {
                if !associations.contains(read) || preloads.contains(read) || seen.contains(&read.as_str()) {
                    continue;
                }
                seen.push(read);
                let site = if origin == Span::default() || (query_path == path && origin.start.line == span.start.line) {
                    "the query".to_owned()
                } else {
                    format!("the query at {}:{}", query_path, origin.start.line + 1)
                };
                let fix = insert.map(|at| PreloadFix {
                    path: query_path.clone(),
                    offset: at.end_byte as usize,
                    text: format!(".includes(:{read})"),
                });
                out.push((Diagnostic {
                    span: *span,
                    severity: Severity::Warning,
                    rule: RULE,
                    message: format!(
                        "N+1 query: this loop over `{model}` records reads `{}.{read}` on each, and {site} does not preload `{read}`, so every record runs one more query for it (in Rails too). Instead, preload it in the query: `.includes(:{read})`.",
                        iteration.member,
                    ),
                }, fix));
            }
        }
    }
    out.sort_by_key(|(d, _)| (d.span.start_byte, d.message.clone()));
    out.dedup_by(|a, b| a.0.span == b.0.span && a.0.message == b.0.message);
    out
}

/// The rule of [`predicate_findings`].
pub const PREDICATE_RULE: crate::diagnostic::RuleId = rule!("views.present-check-raises");

/// Column types whose compiled reader gives a value with no `empty?` (a number, a time, a date,
/// `true`/`false`).
const NOT_EMPTIABLE: &[&str] =
    &["integer", "bigint", "smallint", "float", "decimal", "numeric", "datetime", "timestamp", "timestamptz", "date", "time", "boolean"];

/// `views.present-check-raises` in a template: each `present?`/`blank?` the compiler writes as an
/// `empty?` test whose receiver this reading knows to hold a record (an instance variable the actions
/// rendering it bind to one, a partial's local, a loop's record, a local) or a number, time or
/// boolean column read on one. The compiled page raises NoMethodError there whenever it is not nil.
pub fn predicate_findings(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    let (Some(preload), Some(template)) = (file.preload.as_ref(), file.template.as_ref()) else { return Vec::new() };
    if preload.bodies.iter().all(|b| b.predicates.is_empty()) || crate::checks::written_over(file, context) {
        return Vec::new();
    }
    let (envs, empty) = (context.template_envs(), Env::new());
    let scope = Scope { context, path: &file.relative_path, env: envs.0.get(&template.logical_path).unwrap_or(&empty), model: None };
    let references = &envs.1;
    let mut out = Vec::new();
    for predicate in preload.bodies.iter().flat_map(|b| &b.predicates) {
        if predicate.name.as_ref().is_some_and(|name| references.contains(name) || name.ends_with("_id")) {
            continue;
        }
        let held = match resolve(&scope, &predicate.receiver, 0) {
            Some(Typed::Record(model)) => format!("a record of `{model}`"),
            _ => {
                let Value::Call { receiver, method, .. } = &predicate.receiver else { continue };
                if **receiver == Value::Implicit {
                    continue;
                }
                let Some(Typed::Record(model)) = resolve(&scope, receiver, 0) else { continue };
                let Some(kind) = column_kind(context, &model, method) else { continue };
                match kind {
                    "boolean" => format!("`true` (`{model}#{method}`, a column of type `boolean`)"),
                    "datetime" | "timestamp" | "timestamptz" | "date" | "time" => {
                        format!("a time (`{model}#{method}`, a column of type `{kind}`)")
                    }
                    _ => format!("a number (`{model}#{method}`, a column of type `{kind}`)"),
                }
            }
        };
        let (test, instead) = if predicate.method == "present?" {
            ("!(x || \"\").empty?", "test the value itself (`if x`: a record, a number or a time is present whenever it is there)")
        } else {
            ("(x || \"\").empty?", "test it for nil (`x.nil?`; `!x` for a boolean)")
        };
        out.push(Diagnostic {
            span: predicate.span,
            severity: Severity::Error,
            rule: PREDICATE_RULE,
            message: format!(
                "Roundhouse compiles this `{}` as an `empty?` test, `{test}`, whatever `x` holds; here it holds {held}, which has no `empty?`, so the compiled page raises NoMethodError whenever it is not nil (Rails answers `{}`). Instead, {instead}.",
                predicate.method,
                if predicate.method == "present?" { "true" } else { "false" },
            ),
        });
    }
    out
}

/// The type of `model`'s column `name`, when it is one whose compiled reader gives no `empty?` and
/// nothing in the model (an enum, an `attribute`, a method of that name…) declares it otherwise.
fn column_kind(context: &AppContext, model: &str, name: &str) -> Option<&'static str> {
    let declaring = model_of(context, model)?;
    let attributes = context.nav().attributes(context, &declaring.class_name);
    if attributes.declared.contains(name) || declaring.enums.iter().any(|e| e.name == name) {
        return None;
    }
    let table = context.nav().model_table(context, &declaring.class_name)?;
    let column = table.column(name)?;
    if column.options.iter().any(|(key, _)| key == "array") {
        return None;
    }
    NOT_EMPTIABLE.iter().find(|kind| **kind == column.column_type).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every prefix of a controller and of templates being typed is read without a panic, and every
    /// place it records is inside the text.
    #[test]
    fn a_partial_is_found_as_rails_finds_it_from_the_template_that_renders_it() {
        assert_eq!(partial_path("posts/show", "form").as_deref(), Some("posts/_form"));
        assert_eq!(partial_path("posts/show", "shared/nav").as_deref(), Some("shared/_nav"));
        assert_eq!(partial_path("admin/posts/index", "admin/notes/show").as_deref(), Some("admin/notes/_show"));
        assert_eq!(partial_path("home", "card").as_deref(), Some("_card"));
        assert_eq!(partial_path("posts/show", "#{kind}/row"), None);
    }

    #[test]
    fn every_prefix_of_a_file_being_typed_is_read_without_a_panic() {
        let controller = "class PostsController < ApplicationController\n  def index\n    @posts = Post.includes(:é, [:a, {b: 1}]).where(x: \"ü\").limit(2)\n    @posts.each { |p| p.user.name }\n    Post.all.map(&:author)\n    render template: \"posts/index\"\n  end\n\n  def show\n    @post ||= Post.find(params[:id])\n    @user = if a then (User.new if b) elsif c then nil else case d when 1 then User.find(1) end end\n    respond_to { |f| f.html { render :edit } }\n    @post.comments.each do |c|\n      c.user\n    end\n  end\nend\n";
        let erb = "<%= render \"form\", post: @post %><%= render partial: \"shared/é\", locals: { a: @a, b: 1 } %><% @posts.each do |post| %>é<%= post.author.name %>\n<% Post.where(a: 1).each_with_index do |p, i| %><%= p.user %><% end %><% end %>";
        let haml = "- @posts.each do |post|\n  %p= post.author.name\n  - post.comments.map(&:user)\n";
        let check = |facts: &PreloadFacts, text: &str| {
            for body in &facts.bodies {
                for iteration in &body.iterations {
                    for (_, span) in &iteration.reads {
                        assert!(span.start_byte <= span.end_byte && span.end_byte as usize <= text.len(), "{span:?} in {text:?}");
                    }
                }
            }
        };
        for end in (0..=controller.len()).filter(|&i| controller.is_char_boundary(i)) {
            let prefix = &controller[..end];
            check(&of_class_file(&ruby_prism::parse(prefix.as_bytes()), prefix, &LineIndex::new(prefix), Some("Controller")), prefix);
        }
        for end in (0..=erb.len()).filter(|&i| erb.is_char_boundary(i)) {
            let prefix = &erb[..end];
            if let Some(compiled) = crate::roundhouse::prism_ingest::erb::compile(prefix) {
                let result = ruby_prism::parse(compiled.ruby.as_bytes());
                check(&of_template(&compiled, &result, prefix, &LineIndex::new(prefix)), prefix);
            }
        }
        for end in (0..=haml.len()).filter(|&i| haml.is_char_boundary(i)) {
            let prefix = &haml[..end];
            let compiled = crate::roundhouse::prism_ingest::haml::compile(prefix);
            let result = ruby_prism::parse(compiled.ruby.as_bytes());
            check(&of_template(&compiled, &result, prefix, &LineIndex::new(prefix)), prefix);
        }
        // The whole controller: what it binds, renders and loops over.
        let facts = of_class_file(&ruby_prism::parse(controller.as_bytes()), controller, &LineIndex::new(controller), Some("Controller"));
        let index = &facts.bodies[0];
        assert_eq!(index.renders.as_deref(), Some("posts/index"));
        assert_eq!(index.iterations.iter().map(|i| i.member.as_str()).collect::<Vec<_>>(), ["p", "x"]);
        let show = &facts.bodies[1];
        // A respond_to block's render is a format's, not the action's.
        assert_eq!(show.renders, None);
        assert!(matches!(show.bindings.as_slice(), [(name, Some(Value::OrAssigned(_))), _] if name == "@post"));
        // `if … elsif … else case … end end`: every branch's value, a branch left out giving nil.
        let Some(Value::Either(branches)) = &show.bindings[1].1 else { panic!("{:?}", show.bindings[1]) };
        fn shape(value: &Value) -> String {
            match value {
                Value::Nil => "nil".to_owned(),
                Value::Call { method, .. } => method.clone(),
                Value::Either(branches) => format!("({})", branches.iter().map(shape).collect::<Vec<_>>().join(" | ")),
                _ => "other".to_owned(),
            }
        }
        assert_eq!(branches.iter().map(shape).collect::<Vec<_>>(), ["(new | nil)", "nil", "(find | nil)"]);
        assert_eq!(show.iterations[0].reads.iter().map(|(r, _)| r.as_str()).collect::<Vec<_>>(), ["user"]);
    }
}

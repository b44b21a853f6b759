//! The queries Roundhouse compiles to SQL in a place its expansion breaks the code around it.
//!
//! The compiler folds a few query shapes into SQL at compile time: `Model.all`, `Model.count`, and
//! `Model.where` / `find_by` / `exists?` given keywords naming columns with literal or instance
//! variable values, with `order(col: :asc|:desc)`, `limit(n)` and `includes`/`preload`/
//! `eager_load` on top (or on the bare constant). The expansion is several statements — prepare,
//! a loop that builds `results`, finalize, `results` — written where the query stood. It moves them
//! ahead of the statement only when the statement is one of two or more in its body (an action's
//! body counts the render the compiler appends), and only out of the positions it looks into: a
//! call's receiver or arguments, an assignment's value, `&&`/`||`, an array element, a hash value,
//! `return`. Anywhere else — a body of one statement (a method, an `if` branch, a block), the
//! condition of an `if`, a multiple assignment — the statements are written inline: the first one
//! lands in the expression (`@posts = stmt = Db.prepare(…)`, `return stmt = …`, `if stmt = …`), and
//! inside a call's parentheses, an array or a hash the file does not parse.
//!
//! What this mirrors of the compiler (held by `tests/fixtures/fidelity/model-query-inlined`): the
//! fold's shapes (a hash in braces, a symbol or a call as a value, a key that is no column, a string
//! `order` and a chain another `where`/`order` continues are not folded), the assignment to a name
//! the method later refines (`@posts = Post.all` then `@posts.where(…)`), which it leaves alone, and
//! the bodies it folds in: a model's and a controller's methods, less a controller's method no route
//! reaches that nothing in its controller or those inheriting from it calls (no compiled code runs
//! it) and a filter method inlined into the actions; in
//! a controller, a `where`/`find_by`/`exists?` is not folded (its keywords reach the fold as a hash).
//! What it leaves out (says nothing there): a model's class method that calls a query method
//! without a receiver (the compiler may run it on an association's relation instead), a method
//! with its own `rescue`, a concern's methods, a query inside parentheses, interpolation or a
//! `respond_to` block, a model named with a namespace (`OIDC::Provider`), one with
//! `self.table_name` or one inheriting from another model, and an app without `db/schema.rb`.
//!
//! The sites are read from the file's Prism tree (`of_class_file`, kept on its facts); whether each
//! folds and is moved is decided with the app (`findings`): its models, schema and controllers'
//! lowering.

use ruby_prism::Node;

use crate::app::AppContext;
use crate::diagnostic::{Diagnostic, RuleId};
use crate::rails::FileFacts;
use crate::syntax::{LineIndex, Span};

pub const RULE: RuleId = rule!("model.query-inlined");

/// Calls that continue a query: one on a query the compiler did not fold keeps the whole chain at
/// run time (nothing under it is folded).
const REFINERS: &[&str] = &[
    "where",
    "not",
    "joins",
    "left_outer_joins",
    "left_joins",
    "order",
    "group",
    "having",
    "limit",
    "offset",
    "merge",
    "includes",
    "preload",
    "eager_load",
    "references",
    "distinct",
    "select",
    "where!",
    "order!",
    "reorder",
    "rewhere",
];

/// Besides `REFINERS`, the relation methods a class method may call without a receiver
/// (`all`, `count`…): such a method may be run on an association's relation, and the compiler does
/// not fold its queries then.
const CHAIN_STARTS: &[&str] = &["unscope", "all", "none", "count", "find_by", "exists?", "first", "last", "find"];

/// A query the compiler may fold, where its expansion is not moved ahead of its statement (when the
/// app decides it folds and the statement's body is too short: `findings`).
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct InlineQuery {
    /// The query, on its first line.
    pub span: Span,
    /// The chain as written, on its first line (`Post.where(title: "x")`).
    pub text: String,
    /// The model's constant as written (`Post`, `Admin::Post`).
    pub model: String,
    /// The keywords of its `where` / `find_by` / `exists?`, which must be the model's columns.
    pub keys: Vec<String>,
    /// The method it is in.
    pub method: String,
    pub singleton: bool,
    /// How many statements its statement's body holds, and whether that body is the method's own
    /// (an action's gets the render the compiler appends).
    pub statements: usize,
    pub method_body: bool,
    /// Every position from its statement down to it is one the compiler moves an expansion out of.
    pub movable: bool,
    /// What the expansion lands in when it is written inline.
    pub lands: Lands,
}

#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub enum Lands {
    /// Between a call's parentheses, an array's brackets or a hash's braces: not Ruby.
    Brackets,
    /// `x = …`, `@x ||= …`: the name holds the prepared statement.
    Assigned(String),
    Returned,
    /// An `if`/`unless`/`while` condition (the keyword).
    Condition(String),
    /// The right of `&&`/`||`.
    Operand,
    /// A call's argument written without parentheses (its name).
    Argument(String),
    /// The value of `a, b = …`.
    MultipleAssignment,
}

/// How the walk reached a node from its statement.
#[derive(Debug, Clone, PartialEq)]
enum Edge {
    /// The receiver of a call; whether the call continues a query.
    Receiver {
        refiner: bool,
    },
    /// An argument; the call's name and whether it is written with parentheses.
    Argument {
        call: String,
        parentheses: bool,
    },
    Assigned {
        name: String,
    },
    Operand,
    Element,
    HashValue {
        braces: bool,
    },
    Returned,
    Condition(String),
    MultipleAssignment,
    /// An operator's operand (`0 < x`): what the expansion does there is not measured.
    OperatorOperand,
}

impl Edge {
    /// A position the compiler moves an expansion out of.
    fn movable(&self) -> bool {
        !matches!(self, Edge::Condition(_) | Edge::MultipleAssignment)
    }
}

/// The queries of a model's or a controller's methods (its first class's; for a controller, the one
/// named `…Controller`) that the compiler may write inline.
pub fn of_class_file(
    result: &ruby_prism::ParseResult<'_>,
    text: &str,
    line_index: &LineIndex,
    class_suffix: Option<&str>,
) -> Vec<InlineQuery> {
    let mut walker = Walker { text, line_index, out: Vec::new(), method: String::new(), singleton: false, refined: Vec::new() };
    for (def, singleton) in super::prism_ingest::class_defs(&result.node(), class_suffix) {
        let Some(body) = def.body() else { continue };
        // A method with its own `rescue` is compiled as a `begin`: not measured.
        let Some(body) = body.as_statements_node() else { continue };
        if singleton && calls_without_receiver(&body.as_node()) {
            continue;
        }
        walker.method = super::prism_ingest::convert::name_of(def.name());
        walker.singleton = singleton;
        walker.refined = refined_names(&body.as_node());
        walker.statements(&body, true);
    }
    walker.out
}

struct Walker<'t> {
    text: &'t str,
    line_index: &'t LineIndex,
    out: Vec<InlineQuery>,
    method: String,
    singleton: bool,
    /// Names the method continues a query on (`@posts.where(…)`): an assignment to one is not folded.
    refined: Vec<String>,
}

/// The statement an expression is in.
struct Statement {
    start: usize,
    statements: usize,
    method_body: bool,
}

impl Walker<'_> {
    fn statements(&mut self, statements: &ruby_prism::StatementsNode<'_>, method_body: bool) {
        let body: Vec<Node<'_>> = statements.body().iter().collect();
        for node in &body {
            let statement = Statement { start: node.location().start_offset(), statements: body.len(), method_body };
            self.expression(node, &statement, &mut Vec::new());
        }
    }

    /// A body of statements inside an expression (a branch, a block): its own statements.
    fn body(&mut self, node: Option<Node<'_>>) {
        let Some(node) = node else { return };
        if let Some(statements) = node.as_statements_node() {
            self.statements(&statements, false);
        } else if let Some(begin) = node.as_begin_node() {
            if let Some(statements) = begin.statements() {
                self.statements(&statements, false);
            }
        } else if let Some(branch) = node.as_else_node() {
            self.body(branch.statements().map(|s| s.as_node()));
        } else if let Some(branch) = node.as_if_node() {
            // An `elsif`: a condition, then its own bodies.
            self.branching(&branch.as_node(), None, &mut Vec::new());
        }
    }

    /// An `if`/`unless`/`while`/`until`: its condition in the expression, its bodies on their own.
    fn branching(&mut self, node: &Node<'_>, statement: Option<&Statement>, path: &mut Vec<Edge>) {
        let (keyword, predicate) = if let Some(branch) = node.as_if_node() {
            self.body(branch.statements().map(|s| s.as_node()));
            self.body(branch.subsequent());
            // A ternary's condition is not an `if` the compiler writes on its own line.
            if branch.if_keyword_loc().is_none() {
                return;
            }
            ("if", branch.predicate())
        } else if let Some(branch) = node.as_unless_node() {
            self.body(branch.statements().map(|s| s.as_node()));
            self.body(branch.else_clause().map(|e| e.as_node()));
            ("unless", branch.predicate())
        } else if let Some(branch) = node.as_while_node() {
            self.body(branch.statements().map(|s| s.as_node()));
            ("while", branch.predicate())
        } else if let Some(branch) = node.as_until_node() {
            self.body(branch.statements().map(|s| s.as_node()));
            ("until", branch.predicate())
        } else {
            return;
        };
        if let Some(statement) = statement {
            path.push(Edge::Condition(keyword.to_owned()));
            self.expression(&predicate, statement, path);
            path.pop();
        }
    }

    fn expression(&mut self, node: &Node<'_>, statement: &Statement, path: &mut Vec<Edge>) {
        if let Some(call) = node.as_call_node() {
            if let Some(query) = self.folded(&call) {
                self.site(node, query, statement, path);
                return;
            }
            let name = super::prism_ingest::convert::name_of(call.name());
            if let Some(receiver) = call.receiver() {
                path.push(Edge::Receiver { refiner: REFINERS.contains(&name.as_str()) });
                self.expression(&receiver, statement, path);
                path.pop();
            }
            if let Some(arguments) = call.arguments() {
                let edge = if is_operator(&name) {
                    Edge::OperatorOperand
                } else {
                    // The compiler writes a render or a redirect with parentheses.
                    let parentheses = call.opening_loc().is_some() || matches!(name.as_str(), "render" | "redirect_to");
                    Edge::Argument { call: name.clone(), parentheses }
                };
                for argument in arguments.arguments().iter() {
                    path.push(edge.clone());
                    self.hash_or_expression(&argument, statement, path);
                    path.pop();
                }
            }
            // A `respond_to`'s arms are inlined into the action or dropped: not measured.
            if let Some(block) = call.block().and_then(|b| b.as_block_node())
                && name != "respond_to"
            {
                self.body(block.body());
            }
            return;
        }
        if node.as_if_node().is_some()
            || node.as_unless_node().is_some()
            || node.as_while_node().is_some()
            || node.as_until_node().is_some()
        {
            self.branching(node, Some(statement), path);
            return;
        }
        // `x = …`, `@x = …`, `@x ||= …`, `x ||= …`: the name as written (`@x`).
        let assigned = |value, name: &[u8]| (Some(value), Some(Edge::Assigned { name: String::from_utf8_lossy(name).into_owned() }));
        let (value, edge) = if let Some(write) = node.as_local_variable_write_node() {
            assigned(write.value(), write.name().as_slice())
        } else if let Some(write) = node.as_instance_variable_write_node() {
            assigned(write.value(), write.name().as_slice())
        } else if let Some(write) = node.as_instance_variable_or_write_node() {
            assigned(write.value(), write.name().as_slice())
        } else if let Some(write) = node.as_local_variable_or_write_node() {
            assigned(write.value(), write.name().as_slice())
        } else if let Some(write) = node.as_multi_write_node() {
            (Some(write.value()), Some(Edge::MultipleAssignment))
        } else if let Some(and) = node.as_and_node() {
            self.expression(&and.left(), statement, path);
            (Some(and.right()), Some(Edge::Operand))
        } else if let Some(or) = node.as_or_node() {
            self.expression(&or.left(), statement, path);
            (Some(or.right()), Some(Edge::Operand))
        } else if let Some(ret) = node.as_return_node() {
            match ret.arguments().map(|a| a.arguments().iter().collect::<Vec<_>>()) {
                Some(values) if values.len() == 1 => (values.into_iter().next(), Some(Edge::Returned)),
                _ => (None, None),
            }
        } else if let Some(array) = node.as_array_node() {
            if array.opening_loc().is_some() {
                for element in array.elements().iter() {
                    path.push(Edge::Element);
                    self.expression(&element, statement, path);
                    path.pop();
                }
            }
            (None, None)
        } else if node.as_hash_node().is_some() {
            self.hash_or_expression(node, statement, path);
            (None, None)
        } else {
            // Anything else (a `case`, parentheses, interpolation, a lambda…): its bodies on their own.
            self.nested_bodies(node);
            (None, None)
        };
        if let (Some(value), Some(edge)) = (value, edge) {
            path.push(edge);
            self.expression(&value, statement, path);
            path.pop();
        }
    }

    /// A hash's values (`{ a: … }` in braces, or a call's keywords), else the expression.
    fn hash_or_expression(&mut self, node: &Node<'_>, statement: &Statement, path: &mut Vec<Edge>) {
        let (elements, braces) = if let Some(hash) = node.as_hash_node() {
            (hash.elements().iter().collect::<Vec<_>>(), true)
        } else if let Some(hash) = node.as_keyword_hash_node() {
            (hash.elements().iter().collect::<Vec<_>>(), false)
        } else {
            return self.expression(node, statement, path);
        };
        for element in elements {
            if let Some(pair) = element.as_assoc_node() {
                path.push(Edge::HashValue { braces });
                self.expression(&pair.value(), statement, path);
                path.pop();
            }
        }
    }

    /// The statement bodies under a node the walk does not follow as an expression (a `case`'s
    /// branches, a lambda's body, a `begin`): each is its own.
    fn nested_bodies(&mut self, node: &Node<'_>) {
        if let Some(case) = node.as_case_node() {
            for when in case.conditions().iter() {
                if let Some(when) = when.as_when_node() {
                    self.body(when.statements().map(|s| s.as_node()));
                }
            }
            self.body(case.else_clause().map(|e| e.as_node()));
        } else if let Some(begin) = node.as_begin_node() {
            self.body(begin.statements().map(|s| s.as_node()));
        } else if let Some(lambda) = node.as_lambda_node() {
            self.body(lambda.body());
        }
    }

    /// The chain at `call` when it is one the compiler may fold: its model and its keywords.
    fn folded(&self, call: &ruby_prism::CallNode<'_>) -> Option<(String, Vec<String>)> {
        if call.is_safe_navigation() || call.block().is_some() {
            return None;
        }
        let name = super::prism_ingest::convert::name_of(call.name());
        let receiver = call.receiver()?;
        let arguments: Vec<Node<'_>> = call.arguments().map(|a| a.arguments().iter().collect()).unwrap_or_default();
        let on_top = |receiver: &Node<'_>| -> Option<(String, Vec<String>)> {
            match receiver.as_call_node() {
                Some(inner) => self.folded(&inner),
                None => Some((self.constant(receiver)?, Vec::new())),
            }
        };
        match name.as_str() {
            "order" => {
                let [only] = arguments.as_slice() else { return None };
                let hash = only.as_keyword_hash_node()?;
                let pairs: Vec<Node<'_>> = hash.elements().iter().collect();
                if pairs.is_empty() {
                    return None;
                }
                for pair in &pairs {
                    let pair = pair.as_assoc_node()?;
                    pair.key().as_symbol_node()?;
                    let direction = pair.value().as_symbol_node()?;
                    if !matches!(direction.unescaped(), b"asc" | b"ASC" | b"desc" | b"DESC") {
                        return None;
                    }
                }
                on_top(&receiver)
            }
            "limit" => {
                let [only] = arguments.as_slice() else { return None };
                let digits = self.text.get(only.location().start_offset()..only.location().end_offset())?;
                if only.as_integer_node().is_none() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                on_top(&receiver)
            }
            "includes" | "preload" | "eager_load" => on_top(&receiver),
            "all" | "count" if arguments.is_empty() => Some((self.constant(&receiver)?, Vec::new())),
            "where" | "find_by" | "exists?" => {
                let model = self.constant(&receiver)?;
                let [only] = arguments.as_slice() else { return None };
                let hash = only.as_keyword_hash_node()?;
                let mut keys = Vec::new();
                for pair in hash.elements().iter() {
                    let pair = pair.as_assoc_node()?;
                    let key = pair.key();
                    let key = key.as_symbol_node()?;
                    let value = pair.value();
                    let literal = value.as_integer_node().is_some()
                        || value.as_string_node().is_some()
                        || value.as_true_node().is_some()
                        || value.as_false_node().is_some()
                        || value.as_nil_node().is_some()
                        || value.as_instance_variable_read_node().is_some();
                    if !literal {
                        return None;
                    }
                    keys.push(String::from_utf8_lossy(key.unescaped()).into_owned());
                }
                if keys.is_empty() {
                    return None;
                }
                Some((model, keys))
            }
            _ => None,
        }
    }

    /// A constant as written (`Post`, `Admin::Post`); not one from the top (`::Post`).
    fn constant(&self, node: &Node<'_>) -> Option<String> {
        if node.as_constant_read_node().is_none() && node.as_constant_path_node().is_none() {
            return None;
        }
        let written = self.text.get(node.location().start_offset()..node.location().end_offset())?;
        (!written.starts_with("::") && written.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .then(|| written.to_owned())
    }

    fn site(&mut self, node: &Node<'_>, (model, keys): (String, Vec<String>), statement: &Statement, path: &[Edge]) {
        let start = node.location().start_offset();
        // The whole statement, or the start of it (`Post.all.each { … }`): its expansion reads the
        // same inline.
        if start == statement.start {
            return;
        }
        if path.contains(&Edge::OperatorOperand) {
            return;
        }
        // A chain another query call continues is left to run time whole.
        if matches!(path.last(), Some(Edge::Receiver { refiner: true })) {
            return;
        }
        // An assignment to a name the method refines later is not folded.
        if path.iter().any(|e| matches!(e, Edge::Assigned { name } if self.refined.contains(name))) {
            return;
        }
        let bracketed =
            path.iter().any(|e| matches!(e, Edge::Argument { parentheses: true, .. } | Edge::Element | Edge::HashValue { braces: true }));
        let lands = if bracketed {
            Lands::Brackets
        } else {
            match path.first() {
                Some(Edge::Assigned { name }) => Lands::Assigned(name.clone()),
                Some(Edge::Returned) => Lands::Returned,
                Some(Edge::Condition(keyword)) => Lands::Condition(keyword.clone()),
                Some(Edge::Operand) => Lands::Operand,
                Some(Edge::MultipleAssignment) => Lands::MultipleAssignment,
                Some(Edge::Argument { call, .. }) => Lands::Argument(call.clone()),
                // A receiver that is not the statement's start (`x.y` of `a + x.y`): not measured.
                _ => return,
            }
        };
        let end = node.location().end_offset();
        let line_end = self.text[start..].find('\n').map_or(self.text.len(), |n| start + n).min(end);
        self.out.push(InlineQuery {
            span: self.line_index.span(start..line_end),
            text: self.text[start..line_end].trim_end().to_owned(),
            model,
            keys,
            method: self.method.clone(),
            singleton: self.singleton,
            statements: statement.statements,
            method_body: statement.method_body,
            movable: path.iter().all(Edge::movable),
            lands,
        });
    }
}

/// `+`, `==`, `<<` and the like: their argument is an operand.
fn is_operator(name: &str) -> bool {
    name.chars().next().is_some_and(|c| !(c.is_ascii_alphabetic() || c == '_'))
}

/// The names a method continues a query on (`@posts.where(…)`, `posts.order(…)`).
fn refined_names(body: &Node<'_>) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'pr> ruby_prism::Visit<'pr> for Names {
        fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
            let name = super::prism_ingest::convert::name_of(node.name());
            if REFINERS.contains(&name.as_str())
                && let Some(receiver) = node.receiver()
            {
                if let Some(ivar) = receiver.as_instance_variable_read_node() {
                    self.0.push(String::from_utf8_lossy(ivar.name().as_slice()).into_owned());
                } else if let Some(local) = receiver.as_local_variable_read_node() {
                    self.0.push(String::from_utf8_lossy(local.name().as_slice()).into_owned());
                }
            }
            ruby_prism::visit_call_node(self, node);
        }
    }
    let mut names = Names(Vec::new());
    ruby_prism::Visit::visit(&mut names, body);
    names.0
}

/// Whether a class method calls a query method without a receiver (or on `self`).
fn calls_without_receiver(body: &Node<'_>) -> bool {
    struct Found(bool);
    impl<'pr> ruby_prism::Visit<'pr> for Found {
        fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
            let name = super::prism_ingest::convert::name_of(node.name());
            let relation = REFINERS.contains(&name.as_str()) || CHAIN_STARTS.contains(&name.as_str());
            if relation && node.receiver().is_none_or(|r| r.as_self_node().is_some()) {
                self.0 = true;
            }
            ruby_prism::visit_call_node(self, node);
        }
    }
    let mut found = Found(false);
    ruby_prism::Visit::visit(&mut found, body);
    found.0
}

/// `model.query-inlined`: each query of `file` the compiler folds and writes inline.
pub fn findings(file: &FileFacts, context: &AppContext) -> Vec<Diagnostic> {
    if file.inline_queries.is_empty() {
        return Vec::new();
    }
    let controller = file.controllers.first().filter(|_| file.relative_path.starts_with("app/controllers/"));
    let lowering = controller.map(|c| super::controller_lowering::lower(c, context));
    let mut called: Option<std::collections::HashSet<String>> = None;
    let mut out = Vec::new();
    for query in &file.inline_queries {
        // A controller's `where`/`find_by`/`exists?` keep their keywords as a hash the fold does not
        // read: only `all`, `count`, `order`, `limit` and `includes` fold there.
        if !folds(query, context) || (controller.is_some() && !query.keys.is_empty()) {
            continue;
        }
        // The statements of its body, as the compiler has them.
        let mut statements = query.statements;
        if let (Some(controller), Some(lowering)) = (controller, &lowering) {
            let action = lowering.actions.iter().find(|a| a.name == query.method).filter(|_| context.has_routes_file);
            match action {
                Some(action) if query.method_body && (action.implicit.is_some() || !action.inlined.is_empty()) => statements += 1,
                Some(_) => {}
                None => {
                    // A method no route reaches is emitted all the same: said when something calls it
                    // (a filter, another method, `helper_method`), or when the file does not parse
                    // for it; else no compiled code runs it. A filter method inlined into the actions
                    // is not emitted.
                    let parses = !matches!(query.lands, Lands::Brackets);
                    if lowering.dead.contains(&query.method)
                        || (parses && !called.get_or_insert_with(|| called_methods(context, controller)).contains(&query.method))
                    {
                        continue;
                    }
                }
            }
        }
        if query.movable && statements >= 2 {
            continue;
        }
        out.push(Diagnostic::finding(RULE, query.span, message(query)));
    }
    out
}

/// The methods something calls in `controller` or a controller inheriting from it: a filter's
/// target, a call without a receiver in a method, a `helper_method`'s argument.
fn called_methods(context: &AppContext, controller: &crate::rails::controller::Controller) -> std::collections::HashSet<String> {
    let inherits = |other: &crate::rails::controller::Controller| {
        context.controller_lineage(&other.class_name).iter().any(|c| c.class_name == controller.class_name)
    };
    let mut out = std::collections::HashSet::new();
    for other in context.files.iter().flat_map(|f| &f.controllers).filter(|c| inherits(c)) {
        out.extend(other.filters.iter().flat_map(|f| f.targets.iter().cloned()));
        out.extend(other.action_calls.iter().chain(&other.method_calls).flat_map(|(_, calls)| calls.iter().cloned()));
        for helper in other.macros.iter().filter(|m| m.name == "helper_method") {
            out.extend(helper.arguments.iter().filter_map(|a| a.as_name()).map(str::to_owned));
        }
    }
    out
}

/// Whether the compiler folds the query: its model is one of the app's, reading a table of its
/// schema that has every keyword as a column.
fn folds(query: &InlineQuery, context: &AppContext) -> bool {
    // A constant path (`OIDC::Provider`) is looked up from where it is written: not measured.
    if query.model.contains("::") {
        return false;
    }
    let Some(model) = context.model(&query.model).filter(|m| !m.class_name.contains("::")) else { return false };
    let direct =
        model.superclass.as_deref().is_some_and(|s| matches!(s.trim_start_matches("::"), "ApplicationRecord" | "ActiveRecord::Base"));
    if !crate::roundhouse::ingest::is_model_facts(model) || model.abstract_class || model.table_name.is_some() || !direct {
        return false;
    }
    let Some(table) = context.nav().model_table(context, &model.class_name) else { return false };
    table.database == "primary" && query.keys.iter().all(|k| table.column(k).is_some())
}

fn message(query: &InlineQuery) -> String {
    let what = match &query.lands {
        Lands::Brackets => {
            "the first of them lands inside the brackets around it, where statements are not Ruby: the emitted file does not parse".to_owned()
        }
        Lands::Assigned(name) => format!("`{name}` is assigned the first of them, the prepared statement (`stmt`), not the records"),
        Lands::Returned => "the method returns the first of them, the prepared statement (`stmt`), not the records".to_owned(),
        Lands::Condition(keyword) => format!(
            "the `{keyword}` tests the first of them, the prepared statement (`stmt`, always true), and the rest of the expansion becomes its branch"
        ),
        Lands::Operand => {
            "the operand is the first of them, the prepared statement (`stmt`), and the rest of the expansion runs whatever the other operand is".to_owned()
        }
        Lands::Argument(call) => format!("`{call}` is given the first of them, the prepared statement (`stmt`), not the records"),
        Lands::MultipleAssignment => "the names are assigned from the first of them, the prepared statement (`stmt`), not the records".to_owned(),
    };
    let why = if !query.movable {
        "this place is not one the compiler moves it out of"
    } else {
        "its statement is alone in its body, and the compiler moves an expansion ahead only of a statement among others"
    };
    format!(
        "Roundhouse compiles `{}` into SQL and writes its expansion — prepare, a loop that fills `results`, finalize, `results` — as statements where the query stands; {why}, so {what} (every tree). Instead, give the query a statement of its own just before, in a body of two statements or more (`records = {}`), and use that local here.",
        query.text, query.text
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::file_diagnostics;

    /// The rule and the compiler's emitted text tell one story in the fidelity fixtures: each file
    /// with a finding has as many recorded lines of the compiler's at least where an expansion's
    /// first statement follows other code (`@memo ||= stmt = Db.prepare(`); a recorded line more is
    /// a method the compiled app never runs (`unrouted`).
    #[test]
    fn each_finding_is_an_expansion_the_compiler_writes_inline() {
        let (mut findings, mut lines) = (0, 0);
        crate::roundhouse::fidelity::each_fixture_app(|header, context, derived, _| {
            let inline: Vec<(&str, &str)> = header
                .iter()
                .filter_map(|l| l.split_once(": emits ").map(|(_, v)| v))
                .filter_map(|v| v.split_once(' '))
                .filter(|(_, text)| text.find("stmt = Db.prepare(").is_some_and(|at| at > 0 && !text[..at].trim_end().ends_with("if (")))
                .collect();
            for facts in context.files.iter() {
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let said = diagnostics.iter().filter(|d| d.rule == RULE).count();
                let recorded = inline.iter().filter(|(path, _)| *path == facts.relative_path).count();
                findings += said;
                lines += recorded;
                assert!(recorded >= said, "{}: {said} findings, {recorded} inline expansions recorded", facts.relative_path);
            }
        });
        assert!(findings >= 12 && lines <= findings + 1, "{findings} findings, {lines} recorded lines");
    }

    /// Every prefix of a model being typed is read without a panic.
    #[test]
    fn every_prefix_of_a_model_is_read() {
        let text = "class Post < ApplicationRecord\n  def self.a(flag)\n    return Post.where(title: \"x\").order(position: :desc) if flag\n    [Post.count, 2]\n  end\nend\n";
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let prefix = &text[..end];
            let result = ruby_prism::parse(prefix.as_bytes());
            let _ = of_class_file(&result, prefix, &LineIndex::new(prefix), None);
        }
        let result = ruby_prism::parse(text.as_bytes());
        let sites = of_class_file(&result, text, &LineIndex::new(text), None);
        assert_eq!(sites.len(), 2, "{sites:?}");
        assert_eq!(sites[0].lands, Lands::Returned);
        assert_eq!(sites[1].lands, Lands::Brackets);
    }
}

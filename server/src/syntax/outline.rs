//! A generic outline of a Ruby file: namespaces (class/module), methods with their visibility, and the
//! calls, blocks and assignments in class bodies and top-level code, with literal arguments read into
//! `Value`s. Rails extraction (`rails::*`) interprets this outline; it holds no Rails knowledge itself.

use crate::syntax::NodeExt;
use serde::Serialize;
use tree_sitter::{Node, Tree};

use super::value::{Value, pair_of};
use super::{Span, text_of};

#[derive(Debug, Clone, Default, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Outline {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub enum Item {
    Namespace(Namespace),
    Method(MethodDef),
    Call(Call),
    Assignment(Assignment),
    /// `class << self … end`.
    SingletonClass {
        span: Span,
        items: Vec<Item>,
    },
    /// `if cond … else … end`, `unless`, and their modifier forms. Only readers that decide a
    /// condition look inside (the routes file's `if Rails.env.development?`); the rest pass it by.
    Conditional(Conditional),
}

/// A condition as Ruby combines it: `!`/`not`, `&&`/`and`, `||`/`or`, around other expressions
/// (kept as their source).
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub enum Condition {
    Expression(String),
    Not(Box<Condition>),
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
}

impl Condition {
    fn of(node: Node<'_>, text: &str) -> Condition {
        let operator = || node.field("operator").map(|o| text_of(o, text));
        match node.kind_name() {
            "parenthesized_statements" if node.named_child_count() == 1 => {
                node.named_child(0).map_or_else(|| Condition::Expression(text_of(node, text).to_owned()), |c| Condition::of(c, text))
            }
            "unary" if matches!(operator(), Some("!" | "not")) => match node.field("operand") {
                Some(operand) => Condition::Not(Box::new(Condition::of(operand, text))),
                None => Condition::Expression(text_of(node, text).to_owned()),
            },
            "binary" if matches!(operator(), Some("&&" | "and" | "||" | "or")) => match (node.field("left"), node.field("right")) {
                (Some(left), Some(right)) => {
                    let (left, right) = (Box::new(Condition::of(left, text)), Box::new(Condition::of(right, text)));
                    if matches!(operator(), Some("&&" | "and")) { Condition::And(left, right) } else { Condition::Or(left, right) }
                }
                _ => Condition::Expression(text_of(node, text).to_owned()),
            },
            _ => Condition::Expression(text_of(node, text).to_owned()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Conditional {
    /// The condition's source: `Rails.env.development?` (for `unless`, the source after it).
    pub source: String,
    /// Its structure, `unless` as a `Not`.
    pub condition: Condition,
    pub condition_span: Span,
    pub span: Span,
    pub then_items: Vec<Item>,
    /// The `else` branch; an `elsif` is a conditional inside it.
    pub else_items: Vec<Item>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "lowercase")]
pub enum NamespaceKind {
    Class,
    Module,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Namespace {
    pub kind: NamespaceKind,
    /// Fully qualified, as Ruby resolves the lexical nesting: `Admin::PostsController`.
    pub name: String,
    pub superclass: Option<String>,
    pub span: Span,
    pub name_span: Span,
    pub items: Vec<Item>,
}

impl Namespace {
    /// A concern module's `included do … end` block, if it has one.
    pub fn included_block(&self) -> Option<&Block> {
        self.items.iter().find_map(|item| match item {
            Item::Call(call) if call.method == "included" && call.receiver.is_none() => call.block.as_deref(),
            _ => None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Public,
    Protected,
    Private,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct MethodDef {
    pub name: String,
    /// `def self.x` or a `def` inside `class << self`.
    pub singleton: bool,
    pub visibility: Visibility,
    pub parameters: String,
    pub span: Span,
    pub name_span: Span,
    /// Its collecting parameters (`*ids`, `**options`, `&block`, as written) that its body reads by
    /// name.
    pub collecting_read: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Call {
    pub receiver: Option<String>,
    /// The receiver when it is a literal (`%w(a b).each`, `(1..3).each`): arrays, hashes, ranges.
    pub receiver_value: Option<Box<Value>>,
    pub method: String,
    /// Positional arguments. (Boxed slices here: a call is kept as long as its file's facts, and a
    /// vector's capacity is 8 bytes more of every outline item.)
    pub arguments: Box<[Value]>,
    /// Trailing `key: value` / `"key" => value` pairs, in order.
    pub options: Box<[(Value, Value)]>,
    /// Span of each pair, parallel to `options`.
    pub option_spans: Box<[Span]>,
    /// Boxed: most calls have none, and every item of an outline is as large as its largest kind.
    pub block: Option<Box<Block>>,
    pub span: Span,
    pub name_span: Span,
    /// Span of each positional argument, parallel to `arguments`.
    pub argument_spans: Box<[Span]>,
}

impl Call {
    pub fn option(&self, key: &str) -> Option<&Value> {
        self.options.iter().find(|(k, _)| k.as_name() == Some(key)).map(|(_, v)| v)
    }

    /// Options as `(name, value)` with keys shown as Ruby would name them.
    pub fn named_options(&self) -> Vec<(String, Value)> {
        self.options.iter().map(|(k, v)| (k.as_name().map_or_else(|| k.to_string(), str::to_owned), v.clone())).collect()
    }

    pub fn first_name(&self) -> Option<&str> {
        self.arguments.first().and_then(Value::as_name)
    }
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Block {
    pub parameters: Vec<String>,
    pub span: Span,
    pub items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Assignment {
    /// Source of the left side: `self.table_name`, `config.time_zone`, `Time::DATE_FORMATS[:short]`.
    pub target: String,
    /// `=` or `||=`, `+=`…
    pub operator: String,
    pub value: Value,
    pub span: Span,
    pub target_span: Span,
}

impl Outline {
    /// Everything the outline reads of the file.
    pub fn new(tree: &Tree, text: &str) -> Outline {
        Outline::read(tree, Scope::top(text, "", None))
    }

    /// The outline without the work inside blocks: of a block's body, a call (or a bare name) is
    /// kept when `keep` says so of its method, or else when it has a block that keeps something;
    /// an assignment to a local or instance variable is left out. Namespaces and methods, and what
    /// they hold, are kept as `new` reads them.
    pub fn keeping(tree: &Tree, text: &str, keep: fn(&str) -> bool) -> Outline {
        Outline::read(tree, Scope::top(text, "", Some(keep)))
    }

    fn read(tree: &Tree, scope: Scope<'_>) -> Outline {
        let root = tree.root_node();
        let items = if root.is_error() { recover(root, scope) } else { items_of(root, scope) };
        Outline { items }
    }

    /// Every namespace, depth first, in source order.
    pub fn namespaces(&self) -> Vec<&Namespace> {
        fn walk<'a>(items: &'a [Item], out: &mut Vec<&'a Namespace>) {
            for item in items {
                match item {
                    Item::Namespace(ns) => {
                        out.push(ns);
                        walk(&ns.items, out);
                    }
                    Item::Call(Call { block: Some(block), .. }) => walk(&block.items, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.items, &mut out);
        out
    }
}

/// Visibility state while reading one body: bare `private` changes it for what follows, and
/// `private :a, :b` marks methods by name once the body is read.
#[derive(Default, bincode::Encode, bincode::Decode)]
struct Body {
    items: Vec<Item>,
    visibility: Option<Visibility>,
    marked: Vec<(String, Visibility)>,
}

impl Body {
    fn finish(mut self) -> Vec<Item> {
        for item in &mut self.items {
            if let Item::Method(def) = item
                && let Some((_, v)) = self.marked.iter().find(|(n, _)| *n == def.name)
            {
                def.visibility = *v;
            }
        }
        // Pushed one by one, the vector has up to twice the room it needs; an outline is kept as
        // long as its file's facts.
        self.items.shrink_to_fit();
        self.items
    }
}

/// Where a statement is read.
#[derive(Clone, Copy)]
struct Scope<'a> {
    text: &'a str,
    /// The lexical namespace of classes defined here.
    namespace: &'a str,
    /// Inside `class << self`.
    singleton: bool,
    /// `Outline::keeping`'s choice of a block body's calls; `None` keeps them all.
    keep: Option<fn(&str) -> bool>,
    /// Inside a block's body (and not in a class or module defined there).
    in_block: bool,
    /// The parameters of the blocks around, innermost first.
    bound: Option<&'a Bound<'a>>,
}

/// The names a block's parameters bind, and the block's around it.
struct Bound<'a> {
    names: Vec<&'a str>,
    outer: Option<&'a Bound<'a>>,
}

impl<'a> Scope<'a> {
    fn top(text: &'a str, namespace: &'a str, keep: Option<fn(&str) -> bool>) -> Scope<'a> {
        Scope { text, namespace, singleton: false, keep, in_block: false, bound: None }
    }

    fn namespace(self, namespace: &'a str) -> Scope<'a> {
        Scope { namespace, singleton: false, in_block: false, bound: None, ..self }
    }

    /// A block's body; `bound`, when known, the names its parameters bind (and the outer blocks').
    fn block(self, bound: Option<&'a Bound<'a>>) -> Scope<'a> {
        Scope { singleton: false, in_block: true, bound: bound.or(self.bound), ..self }
    }

    /// Whether `name` is a parameter of a block around: a bare `message` in `|type, message|` reads
    /// it, it calls nothing.
    fn binds(self, name: &str) -> bool {
        let mut bound = self.bound;
        while let Some(b) = bound {
            if b.names.contains(&name) {
                return true;
            }
            bound = b.outer;
        }
        false
    }

    /// Whether a call of `method` (or a bare name) is kept here whatever its block holds.
    fn keeps_call(self, method: &str) -> bool {
        !self.in_block || self.keep.is_none_or(|keep| keep(method))
    }

    /// Whether an assignment to `target` is kept here: a trimmed block leaves out its locals' and
    /// instance variables'.
    fn keeps_assignment(self, target: &str) -> bool {
        let variable =
            |name: &str| name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) && !name.starts_with(|c: char| c.is_ascii_uppercase());
        !self.in_block || self.keep.is_none() || !(variable(target) || target.strip_prefix('@').is_some_and(variable))
    }
}

/// The statements of a body (program, class body, block body), as items.
/// Ruby's reserved words: never the name of a bare call.
const RESERVED_WORDS: &[&str] = &[
    "BEGIN", "END", "alias", "and", "begin", "break", "case", "class", "def", "defined?", "do", "else", "elsif", "end", "ensure", "false",
    "for", "if", "in", "module", "next", "nil", "not", "or", "redo", "rescue", "retry", "return", "self", "super", "then", "true", "undef",
    "unless", "until", "when", "while", "yield",
];

fn items_of(body: Node<'_>, scope: Scope<'_>) -> Vec<Item> {
    let mut state = Body::default();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        read_statement(&mut state, statement, scope, false);
    }
    state.finish()
}

/// One statement into `state`. While `recovering` (inside an ERROR node), stray identifiers are
/// fragments of broken code, not bare calls, and are skipped.
fn read_statement(state: &mut Body, statement: Node<'_>, scope: Scope<'_>, recovering: bool) {
    let (text, singleton) = (scope.text, scope.singleton);
    let visibility = state.visibility.unwrap_or(Visibility::Public);
    match statement.kind_name() {
        "class" | "module" => state.items.extend(namespace_of(statement, scope).map(Item::Namespace)),
        "singleton_class" => {
            let items_inside = statement.field("body").map_or_else(Vec::new, |b| items_of(b, Scope { singleton: true, ..scope }));
            state.items.push(Item::SingletonClass { span: Span::of(statement), items: items_inside });
        }
        "method" | "singleton_method" => state.items.extend(method_of(statement, text, visibility, singleton).map(Item::Method)),
        // A keyword read as an identifier (`end` after an unclosed `(`) is broken code, not a call.
        "identifier" if !recovering && !RESERVED_WORDS.contains(&text_of(statement, text)) => {
            let name = text_of(statement, text);
            if let Some(v) = visibility_keyword(name) {
                state.visibility = Some(v);
            }
            if scope.keeps_call(name) && !scope.binds(name) {
                state.items.push(Item::Call(bare_call(statement, text)));
            }
        }
        "call" => {
            // Decided before the call is read: most of a trimmed block's calls are left out.
            if statement.field("block").is_none()
                && let Some(method) = statement.field("method")
                && !scope.keeps_call(text_of(method, text))
            {
                return;
            }
            let Some(call) = read_call(statement, scope) else { return };
            // `end def other … end` after an unclosed `(`: broken code, no call named `end`.
            if call.receiver.is_none() && RESERVED_WORDS.contains(&call.method.as_str()) {
                return;
            }
            if call.block.as_ref().is_some_and(|block| block.items.is_empty()) && !scope.keeps_call(&call.method) {
                return;
            }
            if call.receiver.is_none()
                && let Some(v) = visibility_keyword(&call.method)
            {
                // `private def x` defines x as private; `private :a, :b` marks methods by name.
                if let Some(def) = inline_def(statement, text, v, singleton) {
                    state.items.push(Item::Method(def));
                } else {
                    state.marked.extend(call.arguments.iter().filter_map(|a| a.as_name()).map(|n| (n.to_owned(), v)));
                }
            }
            state.items.push(Item::Call(call));
        }
        "assignment" | "operator_assignment" if statement.field("left").is_some_and(|left| scope.keeps_assignment(text_of(left, text))) => {
            state.items.extend(assignment_of(statement, text).map(Item::Assignment));
        }
        "if" | "unless" | "if_modifier" | "unless_modifier" if !recovering => {
            state.items.extend(conditional_of(statement, scope).map(Item::Conditional));
        }
        "body_statement" | "block_body" if recovering => {
            let mut cursor = statement.walk();
            for inner in statement.named_children(&mut cursor) {
                read_statement(state, inner, scope, false);
            }
        }
        "ERROR" => state.items.extend(recover(statement, scope)),
        _ => {}
    }
}

/// Reads what it can from an ERROR node, so a half-typed file still yields its class, the macros
/// before the damage and the methods after it. tree-sitter keeps the parts it understood as children
/// of the ERROR: a `class`/`module` keyword followed by its name, or the start of a call whose block
/// never closed, then whole statements.
fn recover(error: Node<'_>, scope: Scope<'_>) -> Vec<Item> {
    let (text, namespace) = (scope.text, scope.namespace);
    let mut cursor = error.walk();
    let children: Vec<Node<'_>> = error.children(&mut cursor).collect();
    let read_all = |nodes: &[Node<'_>], scope: Scope<'_>| {
        let mut state = Body::default();
        for node in nodes {
            read_statement(&mut state, *node, Scope { singleton: false, ..scope }, true);
        }
        state.finish()
    };
    let keyword = children.iter().position(|c| !c.is_named() && matches!(c.kind_name(), "class" | "module"));
    if let Some(k) = keyword
        && let Some(&name_node) = children.get(k + 1).filter(|n| matches!(n.kind_name(), "constant" | "scope_resolution"))
    {
        let local = text_of(name_node, text).trim_start_matches("::");
        let name = if namespace.is_empty() { local.to_owned() } else { format!("{namespace}::{local}") };
        let superclass = children
            .get(k + 2)
            .filter(|n| n.kind_name() == "superclass")
            .and_then(|s| s.named_child(0))
            .map(|s| text_of(s, text).to_owned());
        let mut items = read_all(&children[..k], scope);
        items.push(Item::Namespace(Namespace {
            kind: if children[k].kind_name() == "class" { NamespaceKind::Class } else { NamespaceKind::Module },
            superclass,
            span: Span::cover(children[k], error),
            name_span: Span::of(name_node),
            items: read_all(&children[k + 2..], scope.namespace(&name)),
            name,
        }));
        return items;
    }
    read_fragments(&children, scope)
}

/// Reads an ERROR node's children as a stream of fragments: whole statements are read as usual;
/// `recv.meth args do`, `meth args do` open a block that the next stray `end` closes (or the end of
/// the node, for a block that never closed); `meth args` without `do` is a call. Enough to keep the
/// routes and schema of a file whose `draw do`/`define do` lost its `end`.
fn read_fragments(nodes: &[Node<'_>], scope: Scope<'_>) -> Vec<Item> {
    let text = scope.text;
    let scope = Scope { singleton: false, ..scope };
    let mut open: Vec<(Call, Body)> = Vec::new();
    let mut current = Body::default();
    let mut i = 0;
    while i < nodes.len() {
        let node = nodes[i];
        let next_is = |offset: usize, kind: &str| nodes.get(i + offset).is_some_and(|n| n.kind_name() == kind);
        // A name after `def`, `(`, `,`, an operator…: a method being defined, a parameter, an operand,
        // never a statement of its own.
        let mid_expression =
            i > 0 && !nodes[i - 1].is_named() && !matches!(nodes[i - 1].kind_name(), "do" | "{" | "}" | "end" | "then" | ";");
        let call_start = if mid_expression {
            None
        } else if node.is_named() && next_is(1, ".") && nodes.get(i + 2).is_some_and(|n| n.kind_name() == "identifier") {
            Some((Some(node), nodes[i + 2], i + 3))
        } else if node.kind_name() == "identifier" && text_of(node, text) != "end" {
            Some((None, node, i + 1))
        } else {
            None
        };
        // Inside a block this stream opened, what a block's body holds.
        let here = if open.is_empty() { scope } else { scope.block(None) };
        match call_start {
            Some((receiver, method, mut j)) => {
                let mut call = bare_call(method, text);
                call.receiver = receiver.map(|r| text_of(r, text).to_owned());
                call.span = Span::cover(receiver.unwrap_or(method), method);
                if let Some(arguments) = nodes.get(j).filter(|n| n.kind_name() == "argument_list") {
                    read_arguments(&mut call, *arguments, text);
                    call.span = Span::cover(receiver.unwrap_or(method), *arguments);
                    j += 1;
                } else {
                    // A half-typed argument list: keep the literal values, skip the punctuation.
                    let (mut values, mut spans) = (Vec::new(), Vec::new());
                    while let Some(value) =
                        nodes.get(j).filter(|n| matches!(n.kind_name(), "simple_symbol" | "string" | "integer" | "constant" | ","))
                    {
                        if value.is_named() {
                            values.push(Value::from_node(*value, text));
                            spans.push(Span::of(*value));
                        }
                        j += 1;
                    }
                    call.arguments = values.into_boxed_slice();
                    call.argument_spans = spans.into_boxed_slice();
                }
                if nodes.get(j).is_some_and(|n| n.kind_name() == "do" || n.kind_name() == "{") {
                    open.push((call, std::mem::take(&mut current)));
                    j += 1;
                } else if here.keeps_call(&call.method) {
                    current.items.push(Item::Call(call));
                }
                i = j;
                continue;
            }
            None => match node.kind_name() {
                "identifier" if text_of(node, text) == "end" => close_block(&mut open, &mut current, Some(node)),
                "identifier" => {}
                "block_parameters" => {
                    if let Some((call, _)) = open.last_mut() {
                        let mut cursor = node.walk();
                        let parameters = node.named_children(&mut cursor).map(|p| text_of(p, text).to_owned()).collect();
                        call.block = Some(Box::new(Block { parameters, span: call.span, items: Vec::new() }));
                    }
                }
                "body_statement" | "block_body" => current.items.extend(items_of(node, here)),
                "ERROR" => current.items.extend(recover(node, here)),
                _ => read_statement(&mut current, node, here, true),
            },
        }
        i += 1;
    }
    while !open.is_empty() {
        close_block(&mut open, &mut current, nodes.last().copied());
    }
    current.finish()
}

/// Closes the innermost open block at `end_node`: its items become the block of its call.
fn close_block(open: &mut Vec<(Call, Body)>, current: &mut Body, end_node: Option<Node<'_>>) {
    let Some((mut call, outer)) = open.pop() else { return };
    let items = std::mem::replace(current, outer).finish();
    if let Some(end_node) = end_node {
        call.span.end_byte = end_node.end_byte() as u32;
        call.span.end = Span::of(end_node).end;
    }
    let parameters = call.block.take().map(|b| b.parameters).unwrap_or_default();
    call.block = Some(Box::new(Block { parameters, span: call.span, items }));
    current.items.push(Item::Call(call));
}

fn visibility_keyword(name: &str) -> Option<Visibility> {
    match name {
        "private" => Some(Visibility::Private),
        "protected" => Some(Visibility::Protected),
        "public" => Some(Visibility::Public),
        _ => None,
    }
}

fn namespace_of(node: Node<'_>, scope: Scope<'_>) -> Option<Namespace> {
    let (text, outer) = (scope.text, scope.namespace);
    let name_node = node.field("name")?;
    let local = text_of(name_node, text).trim_start_matches("::");
    let name = if outer.is_empty() || text_of(name_node, text).starts_with("::") { local.to_owned() } else { format!("{outer}::{local}") };
    let superclass = node.field("superclass").and_then(|s| s.named_child(0)).map(|s| text_of(s, text).trim_start_matches("::").to_owned());
    let items = node.field("body").map_or_else(Vec::new, |b| items_of(b, scope.namespace(&name)));
    Some(Namespace {
        kind: if node.kind_name() == "class" { NamespaceKind::Class } else { NamespaceKind::Module },
        name,
        superclass,
        span: Span::of(node),
        name_span: Span::of(name_node),
        items,
    })
}

fn method_of(node: Node<'_>, text: &str, visibility: Visibility, in_singleton_class: bool) -> Option<MethodDef> {
    let name_node = node.field("name")?;
    let parameters = node.field("parameters");
    // The body's text, after the parameters (or the name), searched for each collecting parameter.
    let body = text.get(parameters.unwrap_or(name_node).end_byte()..node.end_byte()).unwrap_or("");
    let collecting_read = parameters.map_or_else(Vec::new, |p| {
        let mut cursor = p.walk();
        p.named_children(&mut cursor)
            .filter(|c| matches!(c.kind_name(), "splat_parameter" | "hash_splat_parameter" | "block_parameter"))
            .filter(|c| c.field("name").is_some_and(|n| reads(body, text_of(n, text))))
            .map(|c| text_of(c, text).to_owned())
            .collect()
    });
    Some(MethodDef {
        name: text_of(name_node, text).to_owned(),
        singleton: in_singleton_class || node.kind_name() == "singleton_method",
        visibility,
        parameters: parameters.map_or_else(String::new, |p| text_of(p, text).to_owned()),
        span: Span::of(node),
        name_span: Span::of(name_node),
        collecting_read,
    })
}

/// Whether a method's body (`body`, the text after its parameters) reads the local `name`: the name
/// as a word, not `@name` or `:name`, not a hash key `name: 1`.
fn reads(body: &str, name: &str) -> bool {
    let word = |at: usize, len: usize| {
        let before = body[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '_' | '@' | '$' | ':')));
        let rest = &body[at + len..];
        let after = rest.chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let hash_key = rest.starts_with(':') && !rest.starts_with("::");
        before && after && !hash_key
    };
    body.match_indices(name).any(|(at, _)| word(at, name.len()))
}

fn inline_def(call: Node<'_>, text: &str, visibility: Visibility, singleton: bool) -> Option<MethodDef> {
    let arguments = call.field("arguments")?;
    let def = arguments.named_child(0).filter(|d| matches!(d.kind_name(), "method" | "singleton_method"))?;
    method_of(def, text, visibility, singleton)
}

fn bare_call(node: Node<'_>, text: &str) -> Call {
    Call {
        receiver: None,
        receiver_value: None,
        method: text_of(node, text).to_owned(),
        arguments: Box::default(),
        options: Box::default(),
        option_spans: Box::default(),
        block: None,
        span: Span::of(node),
        name_span: Span::of(node),
        argument_spans: Box::default(),
    }
}

/// Every call in `items`, through namespaces and blocks, in source order.
pub fn visit_calls(items: &[Item], f: &mut dyn FnMut(&Call)) {
    for item in items {
        match item {
            Item::Namespace(ns) => visit_calls(&ns.items, f),
            Item::Call(call) => {
                f(call);
                if let Some(block) = &call.block {
                    visit_calls(&block.items, f);
                }
            }
            _ => {}
        }
    }
}

/// A call node as a `Call`; `namespace` is the lexical namespace of classes defined in its block.
pub fn call_of(node: Node<'_>, text: &str, namespace: &str) -> Option<Call> {
    read_call(node, Scope::top(text, namespace, None))
}

fn read_call(node: Node<'_>, scope: Scope<'_>) -> Option<Call> {
    let text = scope.text;
    let method = node.field("method")?;
    let mut call = bare_call(method, text);
    call.span = Span::of(node);
    call.receiver = node.field("receiver").map(|r| text_of(r, text).to_owned());
    call.receiver_value = node.field("receiver").and_then(|r| literal_receiver(r, text)).map(Box::new);
    if let Some(arguments) = node.field("arguments") {
        read_arguments(&mut call, arguments, text);
    }
    call.block = node.field("block").map(|block| {
        let parameters_node = block.field("parameters");
        let parameters = parameters_node
            .map(|p| {
                let mut cursor = p.walk();
                p.named_children(&mut cursor).map(|n| text_of(n, text).to_owned()).collect()
            })
            .unwrap_or_default();
        let bound = Bound { names: parameters_node.map(|p| parameter_names(p, text)).unwrap_or_default(), outer: scope.bound };
        let items = block.field("body").map_or_else(Vec::new, |b| items_of(b, scope.block(Some(&bound))));
        Box::new(Block { parameters, span: Span::of(block), items })
    });
    Some(call)
}

/// The names a block's parameters bind: `|type, message|`, `|(a, b), *rest, key:, &blk|` (not the
/// names in a default value).
fn parameter_names<'t>(parameters: Node<'_>, text: &'t str) -> Vec<&'t str> {
    let mut names = Vec::new();
    crate::syntax::for_each_node_with_parent(parameters, |node, parent, _| {
        if node.kind_name() == "identifier" && parent.is_some_and(|parent| crate::syntax::is_parameter_name(node, parent)) {
            names.push(text_of(node, text));
        }
    });
    names
}

/// Positional arguments and trailing `key: value` pairs of an `argument_list`.
fn read_arguments(call: &mut Call, arguments: Node<'_>, text: &str) {
    let (mut values, mut value_spans, mut options, mut option_spans) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut cursor = arguments.walk();
    for argument in arguments.named_children(&mut cursor) {
        match argument.kind_name() {
            "pair" => {
                if let Some(pair) = pair_of(argument, text) {
                    options.push(pair);
                    option_spans.push(Span::of(argument));
                }
            }
            "comment" => {}
            _ => {
                values.push(Value::from_node(argument, text));
                value_spans.push(Span::of(argument));
            }
        }
    }
    // Pushed one by one, each vector has room for four at least; boxed, it holds what it needs.
    call.arguments = values.into_boxed_slice();
    call.argument_spans = value_spans.into_boxed_slice();
    call.options = options.into_boxed_slice();
    call.option_spans = option_spans.into_boxed_slice();
}

/// `%w(a b)`, `[:a, :b]`, `{a: 1}`, `(1..3)` as a receiver.
fn literal_receiver(node: Node<'_>, text: &str) -> Option<Value> {
    let node = if node.kind_name() == "parenthesized_statements" && node.named_child_count() == 1 { node.named_child(0)? } else { node };
    match node.kind_name() {
        "array" | "string_array" | "symbol_array" | "hash" => Some(Value::from_node(node, text)),
        "range" => Some(Value::Code(text_of(node, text).to_owned())),
        _ => None,
    }
}

/// `if`/`unless` (and modifiers): the condition's source and both branches' items.
fn conditional_of(node: Node<'_>, scope: Scope<'_>) -> Option<Conditional> {
    let text = scope.text;
    let condition_node = node.field("condition")?;
    let source = text_of(condition_node, text).to_owned();
    let condition = Condition::of(condition_node, text);
    let condition = if node.kind_name().starts_with("unless") { Condition::Not(Box::new(condition)) } else { condition };
    let branch = |n: Option<Node<'_>>| n.map_or_else(Vec::new, |n| items_of(n, scope));
    let (then_items, else_items) = if node.kind_name().ends_with("_modifier") {
        let mut state = Body::default();
        if let Some(body) = node.field("body") {
            read_statement(&mut state, body, scope, false);
        }
        (state.finish(), Vec::new())
    } else {
        let alternative = node.field("alternative");
        let else_items = match alternative {
            Some(alt) if alt.kind_name() == "elsif" => conditional_of(alt, scope).map(Item::Conditional).into_iter().collect(),
            other => branch(other),
        };
        (branch(node.field("consequence")), else_items)
    };
    Some(Conditional { source, condition, condition_span: Span::of(condition_node), span: Span::of(node), then_items, else_items })
}

fn assignment_of(node: Node<'_>, text: &str) -> Option<Assignment> {
    let left = node.field("left")?;
    let right = node.field("right")?;
    let operator = if node.kind_name() == "assignment" {
        "=".to_owned()
    } else {
        let mut cursor = node.walk();
        node.children(&mut cursor).find(|c| !c.is_named()).map_or_else(|| "=".to_owned(), |c| text_of(c, text).to_owned())
    };
    Some(Assignment {
        target: text_of(left, text).to_owned(),
        operator,
        value: Value::from_node(right, text),
        span: Span::of(node),
        target_span: Span::of(left),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Language, ParsedFile};

    fn outline(text: &str) -> Outline {
        let parsed = ParsedFile::parse(Language::Ruby, text);
        Outline::new(parsed.ruby.as_ref().unwrap(), text)
    }

    #[test]
    fn reads_namespaces_visibility_and_calls() {
        let text = r#"
module Admin
  class PostsController < ApplicationController
    before_action :set_post, only: %i[show edit]
    def index; end
    private def helper; end
    def show; end
    private
    def set_post; end
  end
end
"#;
        let o = outline(text);
        let namespaces = o.namespaces();
        assert_eq!(namespaces[1].name, "Admin::PostsController");
        assert_eq!(namespaces[1].superclass.as_deref(), Some("ApplicationController"));
        let methods: Vec<String> = namespaces[1]
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Method(m) => Some(format!("{}:{:?}", m.name, m.visibility)),
                _ => None,
            })
            .collect();
        assert_eq!(methods, ["index:Public", "helper:Private", "show:Public", "set_post:Private"]);
        let Item::Call(filter) = &namespaces[1].items[0] else { panic!("not a call") };
        assert_eq!(filter.method, "before_action");
        assert_eq!(filter.option("only").map(|v| v.to_string()).as_deref(), Some("[:show, :edit]"));
    }

    /// The calls `items` holds, through blocks, namespaces and conditionals, and its assignments'
    /// targets, in source order.
    fn names(items: &[Item], out: &mut Vec<String>) {
        for item in items {
            match item {
                Item::Call(call) => {
                    out.push(call.method.clone());
                    names(call.block.as_ref().map_or(&[][..], |b| &b.items), out);
                }
                Item::Namespace(ns) => names(&ns.items, out),
                Item::Assignment(a) => out.push(format!("{} =", a.target)),
                Item::Conditional(c) => {
                    names(&c.then_items, out);
                    names(&c.else_items, out);
                }
                Item::Method(_) | Item::SingletonClass { .. } => {}
            }
        }
    }

    #[test]
    fn keeping_trims_only_blocks_work() {
        let text = r#"
fixtures :all
frozen = true
ActiveSupport.on_load(:test) do
  include Helpers
  travel_to now
  stamp = Time.now
  @user = users(:one)
  LIMIT = 3
  self.count = 1
  freeze_time
  if ENV["CI"]
    include Retries
    retry_flaky
  end
  assert_difference("Post.count") do
    post :create
    include Deep
  end
  perform_enqueued_jobs do
    post :create
    assert_enqueued_emails 1
  end
  class Local
    attr_reader :x
    puts "class bodies are not blocks"
  end
end
"#;
        let parsed = ParsedFile::parse(Language::Ruby, text);
        let tree = parsed.ruby.as_ref().unwrap();
        let mut kept = Vec::new();
        names(&Outline::keeping(tree, text, |method| method == "include").items, &mut kept);
        assert_eq!(
            kept,
            [
                "fixtures",
                "frozen =",
                "on_load",
                "include",
                "LIMIT =",
                "self.count =",
                "include",
                "assert_difference",
                "include",
                "attr_reader",
                "puts"
            ]
        );
        let mut all = Vec::new();
        names(&Outline::new(tree, text).items, &mut all);
        for name in ["travel_to", "stamp =", "@user =", "freeze_time", "retry_flaky", "post", "perform_enqueued_jobs"] {
            assert!(all.iter().any(|n| n == name), "{name} in {all:?}");
        }
    }

    /// A bare name that a block around binds is a read of the parameter, not a call.
    #[test]
    fn block_parameters_are_no_calls() {
        let text = "items.each do |item, (a, b), *rest, key:, &blk|\n  item\n  a\n  rest\n  key\n  blk\n  other\n                      children.each { |child| item\n child\n outer_helper }\nend\nitem\n";
        let mut found = Vec::new();
        names(&outline(text).items, &mut found);
        assert_eq!(found, ["each", "other", "each", "outer_helper", "item"]);
    }

    #[test]
    fn a_half_typed_def_is_no_call() {
        // The `(` never closes: tree-sitter keeps the rest as fragments of an ERROR node. The method's
        // name and its parameter are not statements; the macros on either side still are.
        let text = "class Post < ApplicationRecord\n  include Publishable\n  delegate :name, to: :author\n\n  def to_param(x, \n    \"#{id}-#{title}\"\n  end\n\n  def excerpt(length = 140)\n    body.to_s\n  end\n\n  private\n\n  def strip\n    title.strip!\n  end\nend\n";
        let o = outline(text);
        let calls: Vec<&str> = o
            .namespaces()
            .iter()
            .flat_map(|n| n.items.iter())
            .filter_map(|i| match i {
                Item::Call(c) => Some(c.method.as_str()),
                _ => None,
            })
            .collect();
        assert!(!calls.contains(&"to_param") && !calls.contains(&"x"), "{calls:?}");
        assert!(calls.contains(&"include") && calls.contains(&"delegate"), "{calls:?}");
    }
}

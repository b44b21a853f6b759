//! `config/routes.rb` and the files it draws (`config/routes/*.rb`): the call structure of the routing
//! DSL, nested as written, with literal arguments and spans. Expanding these calls into a route table
//! is a separate layer; this one only records what the file says.

use serde::Serialize;

use crate::syntax::Span;
use crate::syntax::outline::{Call, Condition, Item, Outline};
use crate::syntax::value::Value;

#[derive(Debug, Clone, Default, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct RouteFile {
    /// Whether the calls sit in a `….routes.draw do` block (`config/routes.rb`) or at the top level of
    /// a drawn file (`config/routes/admin.rb`).
    pub in_draw_block: bool,
    /// The receiver of `draw`: `Rails.application.routes`, or `Billing::Engine.routes` in an engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_receiver: Option<String>,
    /// The calls as written: a loop is its `each` call (with its receiver), a conditional an `if`
    /// call whose children are both branches. Roundhouse reads this (it skips both).
    pub calls: Vec<RouteCall>,
    /// The calls as Rails draws them (`bin/rails routes`, development): constants, locals and loop
    /// variables read, literal loops unrolled, conditions on `Rails.env` decided. Route expansion
    /// reads this; what it could not evaluate stays a call for expansion to name.
    #[serde(skip)]
    pub drawn: Vec<RouteCall>,
    /// A block of this file that draws an engine's routes beside the app's own
    /// (`Spree::Core::Engine.routes.draw do … end` after `Shop::Application.routes.draw do … end`):
    /// the engine's receiver and its calls as Rails draws them. Its helpers belong to the engine.
    #[serde(skip)]
    pub engine_draws: Vec<(String, Vec<RouteCall>)>,
}

/// `Rails.application.routes`, `Shop::Application.routes`: the app's own route set (not an engine's).
fn is_application_routes(receiver: &str) -> bool {
    let receiver = receiver.trim_start_matches("::");
    receiver == "Rails.application.routes" || receiver.ends_with("::Application.routes") || receiver == "Application.routes"
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct RouteCall {
    /// The source of the receiver, for a call on something (`Plugin.all.each`, `Sidekiq::Web.set`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
    /// `resources`, `namespace`, `get`, `root`, `draw`, `mount`…; `if` for a conditional.
    pub method: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<Value>,
    /// `key: value` options (symbol keys).
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::options_map")]
    pub options: Vec<(String, Value)>,
    /// `"path" => "controller#action"` and `Engine => "/path"`: pairs whose key is not a symbol.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<(Value, Value)>,
    /// The span of each option pair, parallel to `options`.
    #[serde(skip)]
    pub option_spans: Vec<Span>,
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<RouteCall>,
}

impl RouteCall {
    /// The span of the `key:` option pair, when given.
    pub fn option_span(&self, key: &str) -> Option<Span> {
        self.options.iter().position(|(k, _)| k == key).and_then(|i| self.option_spans.get(i).copied())
    }

    /// `resources :posts` → `resources :posts`; for symbols and labels in outlines.
    pub fn label(&self) -> String {
        let mut label = self.method.clone();
        let parts: Vec<String> = self
            .arguments
            .iter()
            .map(ToString::to_string)
            .chain(self.targets.iter().map(|(k, v)| format!("{k} => {v}")))
            .chain(self.options.iter().map(|(k, v)| format!("{k}: {v}")))
            .collect();
        if !parts.is_empty() {
            label.push(' ');
            label.push_str(&parts.join(", "));
        }
        label
    }
}

pub fn extract(outline: &Outline, drawn_file: bool) -> RouteFile {
    // Constants the file assigns a literal (`DOMAINS = /[^\/]+/` above the draw block) are read
    // where the routes use them.
    let mut drawn = Reader { evaluate: true, bindings: Vec::new() };
    for item in &outline.items {
        if let Item::Assignment(a) = item
            && a.operator == "="
            && a.target.starts_with(|c: char| c.is_ascii_uppercase())
        {
            let value = drawn.resolve(&a.value);
            drawn.bindings.push((a.target.clone(), value));
        }
    }
    let mut written = Reader { evaluate: false, bindings: Vec::new() };
    let mut file = RouteFile::default();
    // The receiver of each `draw` block, `X::Engine::routes` read as `X::Engine.routes`.
    let draws: Vec<(Option<String>, &[Item])> = outline
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Call(call @ Call { block: Some(block), .. }) if call.method == "draw" => Some((
                call.receiver.as_deref().map(|r| r.strip_suffix("::routes").map_or_else(|| r.to_owned(), |stem| format!("{stem}.routes"))),
                block.items.as_slice(),
            )),
            _ => None,
        })
        .collect();
    // A file `config.paths["config/routes.rb"]` lists opens its own draw block; one `draw` names.
    if drawn_file && !draws.iter().any(|(receiver, _)| receiver.as_deref().is_some_and(|r| r.ends_with(".routes"))) {
        file.calls = written.calls_of(&outline.items);
        file.drawn = drawn.calls_of(&outline.items);
        return file;
    }
    let has_application = draws.iter().any(|(receiver, _)| receiver.as_deref().is_some_and(is_application_routes));
    let mut engine_draws = Vec::new();
    let mut receiver = None;
    let mut in_draw_block = false;
    if drawn_file {
        // Only Rails' reading changes for these: Roundhouse reads the file's top level as written.
        file.calls = written.calls_of(&outline.items);
    }
    for (draw_receiver, items) in draws {
        let engine = has_application && !draw_receiver.as_deref().is_some_and(is_application_routes);
        if drawn_file || engine {
            if !drawn_file {
                file.calls.extend(written.calls_of(items));
            }
            let calls = drawn.calls_of(items);
            if engine {
                engine_draws.push((draw_receiver.unwrap_or_default(), calls));
            } else {
                file.drawn.extend(calls);
            }
            continue;
        }
        in_draw_block = true;
        receiver = draw_receiver;
        file.calls.extend(written.calls_of(items));
        file.drawn.extend(drawn.calls_of(items));
    }
    file.in_draw_block = in_draw_block;
    file.draw_receiver = receiver;
    file.engine_draws = engine_draws;
    file
}

/// What the calls of a routes file see: the file's constants, its locals, and the variables of the
/// literal loops around them (`%w(browse raw).each do |action|`), innermost last.
struct Reader {
    /// Whether to read the calls as Rails runs them (`RouteFile::drawn`) or as written.
    evaluate: bool,
    bindings: Vec<(String, Value)>,
}

/// Loops over a literal that routes files write: each element once, in order.
const LOOPS: &[&str] = &["each", "each_with_index"];

impl Reader {
    fn calls_of(&mut self, items: &[Item]) -> Vec<RouteCall> {
        let mut out = Vec::new();
        for item in items {
            match item {
                Item::Call(call) if self.evaluate && LOOPS.contains(&call.method.as_str()) && call.block.is_some() => {
                    self.expand_loop(call, &mut out)
                }
                Item::Call(call) => out.push(self.route_call(call)),
                Item::Conditional(conditional) => match condition(&conditional.condition).filter(|_| self.evaluate) {
                    Some(true) => out.extend(self.calls_of(&conditional.then_items)),
                    Some(false) => out.extend(self.calls_of(&conditional.else_items)),
                    // Recorded as an `if` call, so expansion can say which routes it cannot list.
                    None => {
                        let mut children = self.calls_of(&conditional.then_items);
                        children.extend(self.calls_of(&conditional.else_items));
                        out.push(RouteCall {
                            receiver: None,
                            method: "if".to_owned(),
                            arguments: vec![Value::Code(conditional.source.clone())],
                            options: Vec::new(),
                            targets: Vec::new(),
                            option_spans: Vec::new(),
                            span: conditional.span,
                            name_span: conditional.condition_span,
                            children,
                        });
                    }
                },
                // A local (`id = /\d+/`) is read by the calls after it.
                Item::Assignment(a)
                    if self.evaluate && a.operator == "=" && a.target.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') =>
                {
                    let value = self.resolve(&a.value);
                    self.bindings.push((a.target.clone(), value));
                }
                _ => {}
            }
        }
        out
    }

    /// `%w(a b).each do |x| … end`, `{a: 1}.each do |k, v|`, `(1..3).each`: the block once per
    /// element with its variables bound. A loop over anything else is kept as the call it is, with
    /// the block's calls as its children, for expansion to name.
    fn expand_loop(&mut self, call: &Call, out: &mut Vec<RouteCall>) {
        let block = call.block.as_ref().expect("a loop has a block");
        let elements = call.receiver_value.as_ref().map(|v| self.resolve(v)).and_then(|v| elements(&v));
        let Some(elements) = elements.filter(|_| !block.parameters.is_empty()) else {
            out.push(self.route_call(call));
            return;
        };
        let mark = self.bindings.len();
        for (index, element) in elements.into_iter().enumerate() {
            let mut values = match element {
                Value::Array(parts) if block.parameters.len() > 1 => parts,
                other => vec![other],
            };
            if call.method == "each_with_index" {
                values.truncate(block.parameters.len().saturating_sub(1).max(1));
                values.resize(block.parameters.len().saturating_sub(1).max(1), Value::Nil);
                values.push(Value::Integer(index as i64));
            }
            for (name, value) in block.parameters.iter().zip(values) {
                self.bindings.push((name.trim_start_matches(['*', '&']).to_owned(), value));
            }
            out.extend(self.calls_of(&block.items));
            self.bindings.truncate(mark);
        }
    }

    fn route_call(&mut self, call: &Call) -> RouteCall {
        let mark = self.bindings.len();
        let children = call.block.as_ref().map(|b| self.calls_of(&b.items)).unwrap_or_default();
        self.bindings.truncate(mark);
        RouteCall {
            receiver: call.receiver.clone(),
            method: call.method.clone(),
            arguments: call.arguments.iter().map(|v| self.resolve(v)).collect(),
            options: call
                .options
                .iter()
                .filter(|(k, _)| matches!(k, Value::Symbol(_)))
                .map(|(k, v)| (k.as_name().unwrap_or("").to_owned(), self.resolve(v)))
                .collect(),
            targets: call
                .options
                .iter()
                .filter(|(k, _)| !matches!(k, Value::Symbol(_)))
                .map(|(k, v)| (self.resolve(k), self.resolve(v)))
                .collect(),
            option_spans: call
                .options
                .iter()
                .zip(&call.option_spans)
                .filter(|((k, _), _)| matches!(k, Value::Symbol(_)))
                .map(|(_, span)| *span)
                .collect(),
            span: call.span,
            name_span: call.name_span,
            children,
        }
    }

    fn lookup(&self, name: &str) -> Option<&Value> {
        self.bindings.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// A value with the constants, locals and loop variables it names read: `action` → `"raw"`,
    /// `"…/#{action}(/*path)"` → `"…/raw(/*path)"`.
    fn resolve(&self, value: &Value) -> Value {
        if !self.evaluate {
            return value.clone();
        }
        match value {
            Value::Constant(name) => self.lookup(name).cloned().unwrap_or_else(|| value.clone()),
            Value::Code(code) => {
                if let Some(bound) = self.lookup(code) {
                    return bound.clone();
                }
                match interpolate(code, |name| self.lookup(name)) {
                    Some(text) => Value::String(text),
                    None => value.clone(),
                }
            }
            Value::Array(items) => Value::Array(items.iter().map(|v| self.resolve(v)).collect()),
            Value::Hash(pairs) => Value::Hash(pairs.iter().map(|(k, v)| (self.resolve(k), self.resolve(v))).collect()),
            other => other.clone(),
        }
    }
}

/// The elements a literal loop visits: an array's items, a hash's pairs, an integer range's numbers.
fn elements(value: &Value) -> Option<Vec<Value>> {
    match value {
        Value::Array(items) => Some(items.clone()),
        Value::Hash(pairs) => Some(pairs.iter().map(|(k, v)| Value::Array(vec![k.clone(), v.clone()])).collect()),
        Value::Code(range) => {
            let (low, high, inclusive) = match range.split_once("...") {
                Some((l, h)) => (l, h, false),
                None => {
                    let (l, h) = range.split_once("..")?;
                    (l, h, true)
                }
            };
            let low: i64 = low.trim().parse().ok()?;
            let high: i64 = high.trim().parse().ok()?;
            let high = if inclusive { high } else { high - 1 };
            // A loop over a range that large is no routes file's.
            (high - low < 1000).then(|| (low..=high).map(Value::Integer).collect())
        }
        _ => None,
    }
}

/// A double-quoted string whose every `#{…}` names a bound symbol, string or integer, as its text.
fn interpolate<'v>(code: &str, lookup: impl Fn(&str) -> Option<&'v Value>) -> Option<String> {
    let body = code.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("#{") {
            let end = after.find('}')?;
            let name = after[..end].trim();
            match lookup(name)? {
                Value::Symbol(s) | Value::String(s) => out.push_str(s),
                Value::Integer(i) => out.push_str(&i.to_string()),
                _ => return None,
            }
            rest = &after[end + 1..];
        } else if rest.starts_with('\\') {
            let mut chars = rest[1..].chars();
            match chars.next()? {
                c @ ('"' | '\\' | '#') => out.push(c),
                _ => return None,
            }
            rest = chars.as_str();
        } else {
            let c = rest.chars().next()?;
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    Some(out)
}

/// A condition around routes, decided as `bin/rails routes` runs (the development environment):
/// `Rails.env.development?` and `Rails.env.local?` hold, another environment's question does not.
/// Three-valued: `None` when a part that matters is something else (`ENV["ADMIN"]`), and
/// `unknown || true` still holds.
pub fn condition(condition: &Condition) -> Option<bool> {
    match condition {
        Condition::Not(inner) => self::condition(inner).map(|v| !v),
        Condition::And(left, right) => match (self::condition(left), self::condition(right)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Condition::Or(left, right) => match (self::condition(left), self::condition(right)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Condition::Expression(source) => match source.as_str() {
            "true" => Some(true),
            "false" | "nil" => Some(false),
            "Rails.env.development?" | "Rails.env.local?" => Some(true),
            other => other.strip_prefix("Rails.env.").filter(|q| q.ends_with('?') && q.len() > 1 && !q.contains(' ')).map(|_| false),
        },
    }
}

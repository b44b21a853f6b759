//! `config/routes.rb` and the files it draws (`config/routes/*.rb`): the call structure of the routing
//! DSL, nested as written, with literal arguments and spans. Expanding these calls into a route table
//! is a separate layer; this one only records what the file says.

use serde::Serialize;

use crate::syntax::Span;
use crate::syntax::outline::{Call, Item, Outline};
use crate::syntax::value::Value;

#[derive(Debug, Clone, Default, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct RouteFile {
    /// Whether the calls sit in a `….routes.draw do` block (`config/routes.rb`) or at the top level of
    /// a drawn file (`config/routes/admin.rb`).
    pub in_draw_block: bool,
    /// The receiver of `draw`: `Rails.application.routes`, or `Billing::Engine.routes` in an engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_receiver: Option<String>,
    pub calls: Vec<RouteCall>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct RouteCall {
    /// `resources`, `namespace`, `get`, `root`, `draw`, `mount`…
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
    if drawn_file {
        return RouteFile { in_draw_block: false, draw_receiver: None, calls: calls_of(&outline.items) };
    }
    let mut file = RouteFile::default();
    for item in &outline.items {
        if let Item::Call(call @ Call { block: Some(block), .. }) = item
            && call.method == "draw"
        {
            file.in_draw_block = true;
            file.draw_receiver = call.receiver.clone();
            file.calls.extend(calls_of(&block.items));
        }
    }
    file
}

fn calls_of(items: &[Item]) -> Vec<RouteCall> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Call(call) => Some(RouteCall {
                method: call.method.clone(),
                arguments: call.arguments.clone(),
                options: call
                    .options
                    .iter()
                    .filter(|(k, _)| matches!(k, Value::Symbol(_)))
                    .map(|(k, v)| (k.as_name().unwrap_or("").to_owned(), v.clone()))
                    .collect(),
                targets: call.options.iter().filter(|(k, _)| !matches!(k, Value::Symbol(_))).cloned().collect(),
                option_spans: call
                    .options
                    .iter()
                    .zip(&call.option_spans)
                    .filter(|((k, _), _)| matches!(k, Value::Symbol(_)))
                    .map(|(_, span)| *span)
                    .collect(),
                span: call.span,
                name_span: call.name_span,
                children: call.block.as_ref().map(|b| calls_of(&b.items)).unwrap_or_default(),
            }),
            _ => None,
        })
        .collect()
}

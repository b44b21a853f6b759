//! `config/routes.rb` and the files it draws (`config/routes/*.rb`): the call structure of the routing
//! DSL, nested as written, with literal arguments and spans. Expanding these calls into a route table
//! is a separate layer; this one only records what the file says.

use serde::Serialize;

use crate::syntax::outline::{Call, Item, Outline};
use crate::syntax::value::Value;
use crate::syntax::Span;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RouteFile {
    /// Whether the calls sit in a `….routes.draw do` block (`config/routes.rb`) or at the top level of
    /// a drawn file (`config/routes/admin.rb`).
    pub in_draw_block: bool,
    pub calls: Vec<RouteCall>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
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
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<RouteCall>,
}

impl RouteCall {
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
        return RouteFile { in_draw_block: false, calls: calls_of(&outline.items) };
    }
    let mut file = RouteFile::default();
    for item in &outline.items {
        if let Item::Call(call @ Call { block: Some(block), .. }) = item
            && call.method == "draw" {
                file.in_draw_block = true;
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
                options: call.options.iter().filter(|(k, _)| matches!(k, Value::Symbol(_))).map(|(k, v)| (k.as_name().unwrap_or("").to_owned(), v.clone())).collect(),
                targets: call.options.iter().filter(|(k, _)| !matches!(k, Value::Symbol(_))).cloned().collect(),
                span: call.span,
                name_span: call.name_span,
                children: call.block.as_ref().map(|b| calls_of(&b.items)).unwrap_or_default(),
            }),
            _ => None,
        })
        .collect()
}

//! `db/schema.rb`: tables with their columns (name, type, null, default, limit), indexes and foreign
//! keys, read the way `ActiveRecord::Schema.define` would build them (`t.references`, `t.timestamps`,
//! implicit `id`), without running anything.

use serde::Serialize;

use super::inflect::{pluralize, singularize};
use crate::syntax::Span;
use crate::syntax::outline::{Call, Item, Outline};
use crate::syntax::value::Value;

#[derive(Debug, Clone, Default, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Schema {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub tables: Vec<Table>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub foreign_keys: Vec<ForeignKey>,
    /// `enable_extension`, `create_enum`, `execute`… with their spans.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_statements: Vec<super::Macro>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Table {
    pub name: String,
    /// The primary key column (`id` unless `primary_key:`), `None` for `id: false`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primary_key: Option<String>,
    pub columns: Vec<Column>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<TableIndex>,
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub column_type: String,
    pub null: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// Other options (`precision:`, `scale:`, `array:`, `comment:`…).
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::options_map")]
    pub options: Vec<(String, Value)>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct TableIndex {
    pub columns: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unique: bool,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct ForeignKey {
    pub from_table: String,
    pub to_table: String,
    pub column: String,
    pub span: Span,
}

impl Schema {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}

pub fn extract(outline: &Outline) -> Schema {
    let mut schema = Schema::default();
    for item in &outline.items {
        let Item::Call(define) = item else { continue };
        if define.method != "define" {
            continue;
        }
        schema.version = define.option("version").map(|v| v.to_string().replace('_', ""));
        for statement in define.block.iter().flat_map(|b| &b.items) {
            if let Item::Call(call) = statement {
                statement_call(&mut schema, call);
            }
        }
    }
    schema
}

fn statement_call(schema: &mut Schema, call: &Call) {
    match call.method.as_str() {
        "create_table" => {
            if let Some(table) = create_table(call, &mut schema.foreign_keys) {
                schema.tables.push(table);
            }
        }
        "add_index" => {
            let Some(table_name) = call.first_name() else { return };
            let index = index_of(call, call.arguments.get(1));
            if let Some(table) = schema.tables.iter_mut().find(|t| t.name == table_name) {
                table.indexes.push(index);
            }
        }
        "add_foreign_key" => {
            let (Some(from), Some(to)) = (call.first_name(), call.arguments.get(1).and_then(Value::as_name)) else { return };
            let column = call.option("column").and_then(Value::as_name).map_or_else(|| format!("{}_id", singularize(to)), str::to_owned);
            schema.foreign_keys.push(ForeignKey { from_table: from.to_owned(), to_table: to.to_owned(), column, span: call.span });
        }
        _ => schema.other_statements.push(super::Macro::of(call)),
    }
}

fn create_table(call: &Call, foreign_keys: &mut Vec<ForeignKey>) -> Option<Table> {
    let name = call.first_name()?.to_owned();
    let id = call.option("id");
    let primary_key = match id {
        Some(Value::Bool(false)) => None,
        _ => Some(call.option("primary_key").and_then(Value::as_name).unwrap_or("id").to_owned()),
    };
    let mut table = Table {
        name: name.clone(),
        columns: Vec::new(),
        indexes: Vec::new(),
        span: call.span,
        name_span: call.argument_spans.first().copied().unwrap_or(call.name_span),
        primary_key: primary_key.clone(),
    };
    if let Some(pk) = primary_key {
        let id_type = match id {
            Some(Value::Symbol(t) | Value::String(t)) => t.clone(),
            _ => "bigint".to_owned(),
        };
        table.columns.push(Column {
            name: pk,
            column_type: id_type,
            null: false,
            default: None,
            limit: None,
            options: Vec::new(),
            span: call.name_span,
        });
    }
    let receiver = call.block.as_ref().and_then(|b| b.parameters.first()).cloned().unwrap_or_else(|| "t".to_owned());
    for item in call.block.iter().flat_map(|b| &b.items) {
        let Item::Call(column_call) = item else { continue };
        if column_call.receiver.as_deref() != Some(receiver.as_str()) {
            continue;
        }
        table_statement(&mut table, column_call, foreign_keys);
    }
    Some(table)
}

fn table_statement(table: &mut Table, call: &Call, foreign_keys: &mut Vec<ForeignKey>) {
    let null = |default: bool| match call.option("null") {
        Some(Value::Bool(b)) => *b,
        _ => default,
    };
    match call.method.as_str() {
        "index" => table.indexes.push(index_of(call, call.arguments.first())),
        "timestamps" => {
            for name in ["created_at", "updated_at"] {
                table.columns.push(column(name, "datetime", null(false), call, &[]));
            }
        }
        "references" | "belongs_to" => {
            for reference in call.arguments.iter().filter_map(Value::as_name) {
                let id_type = call.option("type").and_then(Value::as_name).unwrap_or("bigint");
                let id_column = format!("{reference}_id");
                table.columns.push(column(&id_column, id_type, null(true), call, &["type", "null", "foreign_key", "index", "polymorphic"]));
                let polymorphic = matches!(call.option("polymorphic"), Some(Value::Bool(true)));
                if polymorphic {
                    table.columns.push(column(
                        &format!("{reference}_type"),
                        "string",
                        null(true),
                        call,
                        &["type", "null", "foreign_key", "index", "polymorphic"],
                    ));
                }
                if !matches!(call.option("index"), Some(Value::Bool(false))) {
                    let mut columns = vec![id_column.clone()];
                    if polymorphic {
                        columns.insert(0, format!("{reference}_type"));
                    }
                    table.indexes.push(TableIndex { columns, name: None, unique: false, span: call.span });
                }
                match call.option("foreign_key") {
                    Some(Value::Bool(true)) => foreign_keys.push(ForeignKey {
                        from_table: table.name.clone(),
                        to_table: pluralize(reference),
                        column: id_column,
                        span: call.span,
                    }),
                    Some(Value::Hash(options)) => {
                        let to_table = options
                            .iter()
                            .find(|(k, _)| k.as_name() == Some("to_table"))
                            .and_then(|(_, v)| v.as_name())
                            .map_or_else(|| pluralize(reference), str::to_owned);
                        foreign_keys.push(ForeignKey { from_table: table.name.clone(), to_table, column: id_column, span: call.span });
                    }
                    _ => {}
                }
            }
        }
        "column" => {
            if let (Some(name), Some(column_type)) = (call.first_name(), call.arguments.get(1).and_then(Value::as_name)) {
                table.columns.push(column(name, column_type, null(true), call, &["null", "default", "limit"]));
            }
        }
        "check_constraint" | "remove" | "rename" | "change" => {}
        column_type => {
            for name in call.arguments.iter().filter_map(Value::as_name) {
                table.columns.push(column(name, column_type, null(true), call, &["null", "default", "limit"]));
            }
        }
    }
}

fn column(name: &str, column_type: &str, null: bool, call: &Call, known: &[&str]) -> Column {
    let limit = match call.option("limit") {
        Some(Value::Integer(limit)) => Some(*limit),
        _ => None,
    };
    let options = call
        .named_options()
        .into_iter()
        .filter(|(k, _)| !known.contains(&k.as_str()) && !matches!(k.as_str(), "null" | "default" | "limit"))
        .collect();
    Column {
        name: name.to_owned(),
        column_type: column_type.to_owned(),
        null,
        default: call.option("default").cloned(),
        limit,
        options,
        span: call.span,
    }
}

fn index_of(call: &Call, columns: Option<&Value>) -> TableIndex {
    TableIndex {
        columns: columns.map(Value::names).unwrap_or_default(),
        name: call.option("name").and_then(Value::as_name).map(str::to_owned),
        unique: matches!(call.option("unique"), Some(Value::Bool(true))),
        span: call.span,
    }
}

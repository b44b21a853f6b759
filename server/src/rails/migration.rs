//! A migration as the schema fold reads it, for an app without `db/schema.rb`: the body of its first
//! class's `change` method (`up` when there is no `change`; never `down` or another method), and in
//! it every call without a receiver. `create_table`, `drop_table` and `rename_table` change which
//! tables exist; the verbs the fold cannot replay (`change_table`, `execute`, …) stop it.

use crate::syntax::NodeExt;
use tree_sitter::Node;

use crate::syntax::value::Value;
use crate::syntax::{Span, text_of};

/// The verbs a schema fold cannot replay without running the database.
pub const UNFOLDABLE: &[&str] = &["change_table", "create_join_table", "drop_join_table", "execute", "reversible", "revert", "up_only"];

#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub enum TableChange {
    Create(String),
    Drop(String),
    Rename(String, String),
}

#[derive(Debug, Clone, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Migration {
    /// In the order the fold meets them.
    pub tables: Vec<TableChange>,
    /// The first unfoldable verb the fold meets (it stops there), and the span of its name.
    pub unfoldable: Vec<(String, Span)>,
    /// Every symbol or string its `change`/`up` passes to a call (`add_column :users, :email`,
    /// `t.string :title`): the columns and tables it may add.
    pub names: Vec<String>,
}

pub fn extract(root: Node<'_>, text: &str) -> Migration {
    let mut migration = Migration::default();
    let Some(class) = first_class(root) else { return migration };
    let Some(body) = class.field("body") else { return migration };
    let mut cursor = body.walk();
    let methods: Vec<Node<'_>> =
        body.named_children(&mut cursor).filter(|n| matches!(n.kind_name(), "method" | "singleton_method")).collect();
    let named = |name: &str| methods.iter().find(|m| m.field("name").is_some_and(|n| text_of(n, text) == name)).copied();
    let Some(method) = named("change").or_else(|| named("up")) else { return migration };
    let mut calls = Vec::new();
    if let Some(body) = method.field("body") {
        reached_calls(body, &mut calls);
        crate::syntax::for_each_node(body, |node| {
            if matches!(node.kind_name(), "simple_symbol" | "string")
                && let crate::syntax::value::Value::Symbol(name) | crate::syntax::value::Value::String(name) =
                    crate::syntax::value::Value::from_node(node, text)
                && !migration.names.contains(&name)
            {
                migration.names.push(name);
            }
        });
    }
    for call in calls.into_iter().filter(|c| c.kind_name() == "identifier" || c.field("receiver").is_none()) {
        let Some(name) = (if call.kind_name() == "identifier" { Some(call) } else { call.field("method") }) else { continue };
        let verb = text_of(name, text);
        let names = || -> Vec<String> {
            let Some(arguments) = call.field("arguments") else { return Vec::new() };
            let mut cursor = arguments.walk();
            arguments.named_children(&mut cursor).map_while(|a| table_name(a, text)).collect()
        };
        match verb {
            // The fold stops at the first verb it cannot replay: what follows is never read.
            _ if UNFOLDABLE.contains(&verb) => {
                migration.unfoldable.push((verb.to_owned(), Span::of(name)));
                break;
            }
            "create_table" => migration.tables.extend(names().into_iter().next().map(TableChange::Create)),
            "drop_table" => migration.tables.extend(names().into_iter().next().map(TableChange::Drop)),
            "rename_table" => {
                if let [old, new, ..] = names().as_slice() {
                    migration.tables.push(TableChange::Rename(old.clone(), new.clone()));
                }
            }
            _ => {}
        }
    }
    migration
}

/// The tables that exist after `migrations`, replayed in order.
pub fn fold<'a>(migrations: impl IntoIterator<Item = &'a Migration>) -> Vec<String> {
    let mut tables: Vec<String> = Vec::new();
    for change in migrations.into_iter().flat_map(|m| &m.tables) {
        match change {
            TableChange::Create(name) => {
                if !tables.contains(name) {
                    tables.push(name.clone());
                }
            }
            TableChange::Drop(name) => tables.retain(|t| t != name),
            TableChange::Rename(old, new) => {
                if let Some(t) = tables.iter_mut().find(|t| *t == old) {
                    *t = new.clone();
                }
            }
        }
    }
    tables
}

/// The calls the fold reaches from a method's body, as it walks it: each statement that is a call,
/// and from a call its receiver, its arguments and its block's statements. Not the statements of a
/// conditional, a loop or an assignment, and nothing of a body with a `rescue` or an `ensure`.
fn reached_calls<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
    match node.kind_name() {
        "body_statement" | "block_body" => {
            if children.iter().any(|c| matches!(c.kind_name(), "rescue" | "ensure" | "else")) {
                return;
            }
            for child in children {
                reached_calls(child, out);
            }
        }
        "identifier" => out.push(node),
        "call" => {
            out.push(node);
            for field in ["receiver", "arguments", "block"] {
                if let Some(part) = node.field(field) {
                    reached_calls(part, out);
                }
            }
        }
        "argument_list" => {
            for child in children {
                reached_calls(child, out);
            }
        }
        "do_block" | "block" => {
            if let Some(body) = node.field("body") {
                reached_calls(body, out);
            }
        }
        _ => {}
    }
}

fn first_class(root: Node<'_>) -> Option<Node<'_>> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.kind_name() == "class" {
            return Some(node);
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// `:posts` or `"posts"`.
fn table_name(node: Node<'_>, text: &str) -> Option<String> {
    match Value::from_node(node, text) {
        Value::Symbol(name) | Value::String(name) => Some(name),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Language, ParsedFile};

    fn read(text: &str) -> Migration {
        let parsed = ParsedFile::parse(Language::Ruby, text);
        extract(parsed.ruby.as_ref().unwrap().root_node(), text)
    }

    #[test]
    fn only_change_or_else_up_is_replayed() {
        let m = read(
            "class AddThings < ActiveRecord::Migration[8.0]\n  def change\n    create_table :things do |t|\n      t.string :name\n    end\n    reversible do |dir|\n      dir.up { execute \"UPDATE things\" }\n    end\n  end\n\n  def up\n    change_table :ignored\n  end\n\n  def backfill\n    execute \"SELECT 1\"\n  end\nend\n",
        );
        assert_eq!(m.tables, [TableChange::Create("things".into())]);
        let verbs: Vec<(&str, u32)> = m.unfoldable.iter().map(|(v, s)| (v.as_str(), s.start.line)).collect();
        assert_eq!(verbs, [("reversible", 5)], "the fold stops at the first");
        let up = read(
            "class Old < ActiveRecord::Migration[4.2]\n  def self.up\n    create_table \"changes\"\n    rename_table :changes, :edits\n  end\n  def self.down\n    execute \"DROP\"\n  end\nend\n",
        );
        assert!(up.unfoldable.is_empty());
        assert_eq!(fold([&up]), ["edits"]);
    }
}

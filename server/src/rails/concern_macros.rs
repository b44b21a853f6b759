//! Class-side methods of the app's modules (`class_methods do … end`, `module ClassMethods`, `def
//! self.x`, `class << self`), read as the macros a controller may call in its class body
//! (`require_sudo_mode`, `allow_unauthenticated_access only: :new`).
//!
//! Roundhouse expands such a call into the filters its body declares, but only when every statement
//! of the body is filter DSL (`before_action`, `around_action`, `after_action`, `skip_before_action`
//! with symbol targets and an options hash without `if:`/`unless:`), once the call's arguments are
//! bound to the parameters. Otherwise the call is kept as an unknown statement and its effect is
//! lost (`controller.concern-macro-not-expanded`).

use crate::syntax::NodeExt;
use crate::syntax::outline::{Item, MethodDef, Namespace, NamespaceKind};
use tree_sitter::Node;
use tree_sitter::Tree;

use crate::syntax::Span;

/// The filter DSL a macro body may hold.
const FILTERS: [&str; 4] = ["before_action", "around_action", "after_action", "skip_before_action"];

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct ConcernMacro {
    /// The module it is defined on: `Authentication`, `Admin::Guard`.
    pub module: String,
    pub name: String,
    pub params: Vec<Param>,
    pub body: Body,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Param {
    pub name: String,
    /// What an omitted argument binds to: the default, `[]` for `*rest`, `{}` for `**rest`.
    pub omitted: Arg,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub enum Body {
    /// Nothing in it (Roundhouse does not expand it either, but nothing is lost).
    Empty,
    /// Every statement a filter call, with its arguments.
    Filters(Vec<Vec<Arg>>),
    /// The first statement that is not filter DSL (its first line).
    Other(String),
}

/// An argument as far as the expansion cares.
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub enum Arg {
    Symbol,
    /// An options hash: whether it has `if:`/`unless:`, and the parameters it splats (`**options`).
    Hash {
        guarded: bool,
        splats: Vec<String>,
    },
    /// A parameter of the macro, bound at the call.
    Param(String),
    /// Anything else: a string, a lambda, a method call, `nil`.
    Other(String),
}

/// Why a call of the macro is not expanded, or `None` when it is (or nothing is lost).
pub fn not_expanded(m: &ConcernMacro, call: &[Arg]) -> Option<String> {
    let statements = match &m.body {
        Body::Empty => return None,
        Body::Other(statement) => return Some(format!("its body holds `{statement}`, which is not filter DSL")),
        Body::Filters(statements) => statements,
    };
    let bound = |name: &str| -> Arg {
        let Some(i) = m.params.iter().position(|p| p.name == name) else { return Arg::Other(name.to_owned()) };
        call.get(i).cloned().unwrap_or_else(|| m.params[i].omitted.clone())
    };
    let mut targets = 0;
    for args in statements {
        for arg in args {
            let arg = match arg {
                Arg::Param(name) => bound(name),
                other => other.clone(),
            };
            match arg {
                Arg::Symbol => targets += 1,
                Arg::Hash { guarded, splats } => {
                    let splat_guarded = splats.iter().any(|s| matches!(bound(s), Arg::Hash { guarded: true, .. }));
                    if guarded || splat_guarded {
                        return Some("a filter in it has an `if:`/`unless:` condition".to_owned());
                    }
                    if let Some(bad) = splats.iter().find(|s| !matches!(bound(s), Arg::Hash { .. })) {
                        return Some(format!("it splats `**{bad}`, which this call does not bind to an options hash"));
                    }
                }
                Arg::Param(name) | Arg::Other(name) => {
                    return Some(format!("a filter in it names `{name}`, not a symbol"));
                }
            }
        }
    }
    (targets == 0).then(|| "its filters name no method".to_owned())
}

/// The call's arguments as the expansion binds them: positional, keywords folded into one trailing hash.
pub fn call_args(arguments: &[crate::syntax::value::Value], options: &[(String, crate::syntax::value::Value)]) -> Vec<Arg> {
    use crate::syntax::value::Value;
    let guarded = |k: &str| k == "if" || k == "unless";
    let mut out: Vec<Arg> = arguments
        .iter()
        .map(|v| match v {
            Value::Symbol(_) => Arg::Symbol,
            Value::Hash(pairs) => Arg::Hash { guarded: pairs.iter().filter_map(|(k, _)| k.as_name()).any(guarded), splats: Vec::new() },
            other => Arg::Other(other.to_string()),
        })
        .collect();
    if !options.is_empty() {
        out.push(Arg::Hash { guarded: options.iter().any(|(k, _)| guarded(k)), splats: Vec::new() });
    }
    out
}

/// Every class-side method of every module in the file.
pub fn extract(items: &[Item], tree: &Tree, text: &str) -> Vec<ConcernMacro> {
    let mut out = Vec::new();
    for item in items {
        if let Item::Namespace(ns) = item {
            if ns.kind == NamespaceKind::Module {
                module_macros(ns, &ns.name, tree, text, &mut out);
            }
            out.extend(extract(&ns.items, tree, text));
        }
    }
    out
}

fn module_macros(ns: &Namespace, module: &str, tree: &Tree, text: &str, out: &mut Vec<ConcernMacro>) {
    for item in &ns.items {
        let defs: Vec<&MethodDef> = match item {
            Item::Method(def) if def.singleton => vec![def],
            Item::Call(call) if call.receiver.is_none() && call.method == "class_methods" => {
                call.block.iter().flat_map(|b| &b.items).filter_map(method).collect()
            }
            Item::SingletonClass { items, .. } => items.iter().filter_map(method).collect(),
            Item::Namespace(inner) if inner.kind == NamespaceKind::Module && inner.name.rsplit("::").next() == Some("ClassMethods") => {
                inner.items.iter().filter_map(method).collect()
            }
            _ => Vec::new(),
        };
        for def in defs {
            if let Some(node) = crate::syntax::enclosing(tree, def.span, &["method", "singleton_method"]) {
                out.push(ConcernMacro {
                    module: module.to_owned(),
                    name: def.name.clone(),
                    params: params(node, text),
                    body: body(node, text),
                    span: def.span,
                });
            }
        }
    }
}

fn method(item: &Item) -> Option<&MethodDef> {
    match item {
        Item::Method(def) => Some(def),
        _ => None,
    }
}

fn source<'t>(node: Node<'_>, text: &'t str) -> &'t str {
    text.get(node.byte_range()).unwrap_or("")
}

fn params(method: Node<'_>, text: &str) -> Vec<Param> {
    let Some(list) = method.field("parameters") else { return Vec::new() };
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter_map(|p| {
            let name = p.field("name").map_or_else(|| source(p, text), |n| source(n, text)).to_owned();
            let omitted = match p.kind_name() {
                "optional_parameter" | "keyword_parameter" => p.field("value").map_or(Arg::Other("nil".to_owned()), |v| arg(v, text, &[])),
                "splat_parameter" => Arg::Other("[]".to_owned()),
                "hash_splat_parameter" => Arg::Hash { guarded: false, splats: Vec::new() },
                "block_parameter" => return None,
                _ => Arg::Other("nil".to_owned()),
            };
            Some(Param { name, omitted })
        })
        .collect()
}

fn body(method: Node<'_>, text: &str) -> Body {
    let names: Vec<String> = params(method, text).into_iter().map(|p| p.name).collect();
    let Some(body) = method.field("body") else { return Body::Empty };
    let mut statements = Vec::new();
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor).filter(|n| n.kind_name() != "comment") {
        match filter_args(statement, text, &names) {
            Some(args) => statements.push(args),
            None => return Body::Other(source(statement, text).lines().next().unwrap_or("").trim().to_owned()),
        }
    }
    if statements.is_empty() { Body::Empty } else { Body::Filters(statements) }
}

/// The arguments of a receiver-less, block-less filter call; `None` for any other statement.
fn filter_args(statement: Node<'_>, text: &str, params: &[String]) -> Option<Vec<Arg>> {
    if statement.kind_name() != "call" || statement.field("receiver").is_some() || statement.field("block").is_some() {
        return None;
    }
    let method = statement.field("method")?;
    if !FILTERS.contains(&source(method, text)) {
        return None;
    }
    let Some(list) = statement.field("arguments") else { return Some(Vec::new()) };
    let mut out = Vec::new();
    let mut trailing: Option<(bool, Vec<String>)> = None;
    let mut cursor = list.walk();
    for child in list.named_children(&mut cursor) {
        match child.kind_name() {
            "pair" | "hash_splat_argument" => {
                let entry = trailing.get_or_insert((false, Vec::new()));
                hash_entry(child, text, entry);
            }
            "block_argument" => return None,
            _ => out.push(arg(child, text, params)),
        }
    }
    if let Some((guarded, splats)) = trailing {
        out.push(Arg::Hash { guarded, splats });
    }
    Some(out)
}

fn hash_entry(entry: Node<'_>, text: &str, (guarded, splats): &mut (bool, Vec<String>)) {
    if entry.kind_name() == "hash_splat_argument" {
        let mut cursor = entry.walk();
        if let Some(name) = entry.named_children(&mut cursor).next() {
            splats.push(source(name, text).to_owned());
        }
        return;
    }
    let key = entry.field("key").map_or("", |k| source(k, text));
    let key = key.trim_start_matches(':').trim_end_matches(':').trim_matches('"');
    if key == "if" || key == "unless" {
        *guarded = true;
    }
}

fn arg(node: Node<'_>, text: &str, params: &[String]) -> Arg {
    match node.kind_name() {
        "simple_symbol" | "delimited_symbol" => Arg::Symbol,
        "hash" => {
            let mut entry = (false, Vec::new());
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                hash_entry(child, text, &mut entry);
            }
            Arg::Hash { guarded: entry.0, splats: entry.1 }
        }
        "identifier" if params.iter().any(|p| p == source(node, text)) => Arg::Param(source(node, text).to_owned()),
        _ => Arg::Other(source(node, text).lines().next().unwrap_or("").to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::outline::Outline;
    use crate::syntax::{Language, ParsedFile};

    fn macros(text: &str) -> Vec<ConcernMacro> {
        let parsed = ParsedFile::parse(Language::Ruby, text);
        let tree = parsed.ruby.as_ref().unwrap();
        extract(&Outline::new(tree, text).items, tree, text)
    }

    fn verdict(text: &str, name: &str, call: &[Arg]) -> Option<String> {
        let found = macros(text);
        let m = found.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no macro {name} in {found:?}"));
        not_expanded(m, call)
    }

    const AUTH: &str = r#"module Authentication
  extend ActiveSupport::Concern

  class_methods do
    def allow_unauthenticated_access(**options)
      skip_before_action :require_authentication, **options
    end

    def require_sudo_mode(only: nil)
      before_action :require_sudo, only: only
      session[:sudo_checked] = true
    end

    def guarded_by(flag)
      before_action :check_flag, if: flag
    end
  end

  module ClassMethods
    def audited(*actions)
      after_action :audit, only: actions
    end
  end

  def self.limited(name, to: :index)
    before_action name
  end
end
"#;

    #[test]
    fn class_side_methods_of_modules() {
        let found = macros(AUTH);
        let names: Vec<(&str, &str)> = found.iter().map(|m| (m.module.as_str(), m.name.as_str())).collect();
        assert_eq!(
            names,
            [
                ("Authentication", "allow_unauthenticated_access"),
                ("Authentication", "require_sudo_mode"),
                ("Authentication", "guarded_by"),
                ("Authentication", "audited"),
                ("Authentication", "limited"),
            ]
        );
        // Instance methods and classes are no macros.
        assert!(macros("module M\n  def x\n    before_action :y\n  end\nend\nclass C\n  def self.z; end\nend\n").is_empty());
    }

    #[test]
    fn expansion_follows_the_bound_arguments() {
        let options = |guarded| Arg::Hash { guarded, splats: Vec::new() };
        // Filter DSL only: expanded, with or without the options.
        assert_eq!(verdict(AUTH, "allow_unauthenticated_access", &[]), None);
        assert_eq!(verdict(AUTH, "allow_unauthenticated_access", &[options(false)]), None);
        assert_eq!(verdict(AUTH, "audited", &[Arg::Symbol]), None);
        // Conditions on a filter are not expanded, whether written in the body or passed in.
        assert!(verdict(AUTH, "allow_unauthenticated_access", &[options(true)]).unwrap().contains("if:"));
        assert!(verdict(AUTH, "guarded_by", &[Arg::Symbol]).unwrap().contains("if:"));
        // A statement that is not filter DSL.
        assert_eq!(
            verdict(AUTH, "require_sudo_mode", &[options(false)]).as_deref(),
            Some("its body holds `session[:sudo_checked] = true`, which is not filter DSL")
        );
        // A target that is a parameter bound to something other than a symbol.
        assert!(verdict(AUTH, "limited", &[Arg::Other("name".to_owned())]).unwrap().contains("not a symbol"));
        assert_eq!(verdict(AUTH, "limited", &[Arg::Symbol]), None);
        // An empty macro loses nothing.
        assert_eq!(verdict("module M\n  class_methods do\n    def noop; end\n  end\nend\n", "noop", &[]), None);
    }
}

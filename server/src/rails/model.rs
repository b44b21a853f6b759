//! Active Record models (and any class under `app/models`): associations with every option,
//! validations, callbacks, scopes, enums, included concerns, delegations, attributes and the other
//! class-body macros, each with its span. Table names and AR-ness through STI are resolved by the
//! index, which sees every model.

use crate::syntax::NodeExt;
use serde::Serialize;

use super::{Macro, MethodSummary, method_summaries};
use crate::syntax::Span;
use crate::syntax::outline::{Call, Item, Namespace};
use crate::syntax::value::Value;

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Model {
    pub class_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superclass: Option<String>,
    /// `self.table_name = "…"`, when the model sets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    /// Whether it sets its table some way other than a literal (`self.table_name = "#{x}_posts"`,
    /// `def self.table_name`): then its table is not known without running it.
    #[serde(skip)]
    pub table_name_computed: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub abstract_class: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub associations: Vec<Association>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub validations: Vec<Validation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub callbacks: Vec<Callback>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<Scope>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub enums: Vec<Enum>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub concerns: Vec<Macro>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub delegates: Vec<Delegate>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Attribute>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub macros: Vec<Macro>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<MethodSummary>,
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
    /// Where each statement Roundhouse's ingest rejects starts (an enum whose mapping it cannot read,
    /// a scope whose body is no lambda): decided on Prism's tree (`roundhouse::prism_ingest`), read
    /// by the lowering.
    #[serde(skip)]
    pub rejected_statements: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Association {
    /// `belongs_to`, `has_many`, `has_one`, `has_and_belongs_to_many`.
    pub kind: String,
    pub name: String,
    /// A scope lambda given before the options (`has_many :x, -> { order(:y) }`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The scope lambda's span.
    #[serde(skip)]
    pub scope_span: Option<Span>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::options_map")]
    pub options: Vec<(String, Value)>,
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Validation {
    /// `validates`, `validate`, `validates_presence_of`, `validates_with`, `validates_associated`…
    pub kind: String,
    /// Attributes (for `validates*`) or methods (for `validate`).
    pub attributes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::options_map")]
    pub options: Vec<(String, Value)>,
    pub span: Span,
    /// Each attribute's span, parallel to `attributes`.
    #[serde(skip)]
    pub attribute_spans: Vec<Span>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Callback {
    /// `before_save`, `after_create_commit`, `around_update`…
    pub kind: String,
    /// Method names, or the source of a lambda/block.
    pub targets: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::options_map")]
    pub options: Vec<(String, Value)>,
    pub span: Span,
    /// Each target's span, parallel to `targets` (a block has none).
    #[serde(skip)]
    pub target_spans: Vec<Span>,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Scope {
    pub name: String,
    /// The body's source (`-> { where(published: true) }`), or whatever was passed.
    pub body: String,
    pub span: Span,
    #[serde(skip)]
    pub name_span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Enum {
    pub name: String,
    pub values: Value,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::options_map")]
    pub options: Vec<(String, Value)>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Delegate {
    pub methods: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::options_map")]
    pub options: Vec<(String, Value)>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Attribute {
    /// `attribute`, `attr_accessor`, `attr_reader`, `attr_writer`, `store_accessor`.
    pub kind: String,
    pub names: Vec<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub attribute_type: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::options_map")]
    pub options: Vec<(String, Value)>,
    pub span: Span,
}

/// The association macros.
pub const ASSOCIATIONS: &[&str] = &["belongs_to", "has_many", "has_one", "has_and_belongs_to_many"];
const ATTRIBUTE_MACROS: &[&str] = &["attribute", "attr_accessor", "attr_reader", "attr_writer", "store_accessor"];

fn is_callback(method: &str) -> bool {
    let Some(rest) = ["before_", "after_", "around_"].iter().find_map(|p| method.strip_prefix(p)) else { return false };
    matches!(
        rest,
        "validation"
            | "save"
            | "create"
            | "update"
            | "destroy"
            | "commit"
            | "rollback"
            | "initialize"
            | "find"
            | "touch"
            | "create_commit"
            | "update_commit"
            | "destroy_commit"
            | "save_commit"
    )
}

fn is_validation(method: &str) -> bool {
    method == "validates" || method == "validate" || method == "validates!" || method.starts_with("validates_")
}

impl Model {
    /// Whether the associations it declares are all it has: it neither inherits from another model,
    /// includes a module nor calls a gem's macro (`acts_as_taggable_on :tags`), any of which could
    /// declare more.
    pub fn declares_all_associations(&self) -> bool {
        let inherits = self.superclass.as_deref().is_some_and(|s| !matches!(s, "ApplicationRecord" | "ActiveRecord::Base"));
        !inherits && self.concerns.is_empty() && self.macros.iter().all(|m| RAILS_MACROS.contains(&m.name.as_str()) || m.name.contains('.'))
    }

    /// Whether it has an association named `name`: one it declares, or one Rails declares for an
    /// attachment (`has_one_attached :file` gives `file_attachment` and `file_blob`) or rich text
    /// (`has_rich_text :body` gives `rich_text_body`).
    pub fn has_association(&self, name: &str) -> bool {
        self.associations.iter().any(|a| a.name == name)
            || self.macros.iter().any(|m| {
                let given = || m.arguments.iter().filter_map(|a| a.as_name());
                match m.name.as_str() {
                    "has_one_attached" => given().any(|a| name == format!("{a}_attachment") || name == format!("{a}_blob")),
                    "has_many_attached" => given().any(|a| name == format!("{a}_attachments") || name == format!("{a}_blobs")),
                    "has_rich_text" => given().any(|a| name == format!("rich_text_{a}")),
                    _ => false,
                }
            })
    }
}

/// Class-body macros Rails itself defines: a call of any other (a gem's) may add attributes the app
/// does not spell out.
pub const RAILS_MACROS: &[&str] = &[
    "alias_attribute",
    "attr_readonly",
    "accepts_nested_attributes_for",
    "after_initialize",
    "broadcasts",
    "broadcasts_refreshes",
    "broadcasts_to",
    "delegate",
    "delegate_missing_to",
    "default_scope",
    "encrypts",
    "generates_token_for",
    "has_one_attached",
    "has_many_attached",
    "has_rich_text",
    "has_secure_password",
    "has_secure_token",
    "ignored_columns",
    "include",
    "extend",
    "normalizes",
    "prepend",
    "primary_abstract_class",
    "private",
    "protected",
    "public",
    "self.table_name",
    "serialize",
    "store",
    "store_accessor",
    "strict_loading_by_default",
    "connects_to",
    "composed_of",
    "define_attribute_methods",
    "require",
    "require_relative",
    "attr_accessor",
    "attr_reader",
    "attr_writer",
    "attribute",
    "after_commit",
    "module_function",
    "private_constant",
    "public_constant",
    "private_class_method",
    "public_class_method",
    "alias_method",
    "class_attribute",
    "cattr_accessor",
    "mattr_accessor",
    "thread_mattr_accessor",
    "scope",
    "validate",
    "enum",
];

/// `module Push; def self.table_name_prefix = "push_"; end`: the namespace and the prefix its models'
/// tables take (Rails prepends the nearest enclosing module's). Only a body that is one plain string is
/// known without running the app.
pub fn table_name_prefixes(namespaces: &[&Namespace], tree: &tree_sitter::Tree, text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for namespace in namespaces.iter().filter(|ns| ns.kind == crate::syntax::outline::NamespaceKind::Module) {
        for item in &namespace.items {
            let Item::Method(method) = item else { continue };
            if !method.singleton || method.name != "table_name_prefix" {
                continue;
            }
            let Some(def) = tree.root_node().descendant_for_byte_range(method.span.start(), method.span.end()) else { continue };
            let mut cursor = def.walk();
            let body: Vec<_> = def.field("body").map(|b| b.named_children(&mut cursor).collect()).unwrap_or_default();
            if let [string] = body.as_slice()
                && string.kind_name() == "string"
                && let Value::String(prefix) = Value::from_node(*string, text)
            {
                out.push((namespace.name.clone(), prefix));
            }
        }
    }
    out
}

/// The table a model reads, as Active Record names it: `self.table_name`, else its STI base class's
/// table (up to an abstract class or the framework), else the class name tableized (demodulized),
/// after its namespace's `table_name_prefix`. `find` looks a model of the app up by class name.
pub fn table_name<'a>(
    class_name: &str,
    find: &dyn Fn(&str) -> Option<&'a Model>,
    prefixes: &std::collections::HashMap<String, String>,
) -> String {
    let mut current = class_name.to_owned();
    for _ in 0..32 {
        let Some(model) = find(&current) else { break };
        if let Some(table) = &model.table_name {
            return table.clone();
        }
        match model.superclass.as_deref() {
            Some(superclass) if superclass != "ApplicationRecord" && superclass != "ActiveRecord::Base" => {
                let base_is_abstract = find(superclass).is_some_and(|m| m.abstract_class);
                if base_is_abstract || find(superclass).is_none() {
                    break;
                }
                current = superclass.to_owned();
            }
            _ => break,
        }
    }
    // A model inside another model (`Admin::LedgerAudit::Task`) takes the outer one's table, made
    // singular, as a prefix: `admin_ledger_audit_tasks` (Active Record's `compute_table_name`).
    if let Some((outer, _)) = current.rsplit_once("::")
        && find(outer).is_some_and(|m| !m.abstract_class && m.superclass.is_some())
    {
        let contained = super::inflect::singularize(&table_name(outer, find, prefixes));
        return format!("{contained}_{}", super::inflect::tableize(&current));
    }
    format!("{}{}", table_prefix(&current, prefixes), super::inflect::tableize(&current))
}

/// The prefix `class_name`'s table takes: the nearest enclosing namespace's `table_name_prefix`.
pub fn table_prefix<'a>(class_name: &str, prefixes: &'a std::collections::HashMap<String, String>) -> &'a str {
    let mut namespace = class_name;
    while let Some((outer, _)) = namespace.rsplit_once("::") {
        if let Some(prefix) = prefixes.get(outer) {
            return prefix;
        }
        namespace = outer;
    }
    ""
}

pub fn extract(namespace: &Namespace) -> Model {
    let mut model = Model {
        class_name: namespace.name.clone(),
        superclass: namespace.superclass.clone(),
        table_name: None,
        table_name_computed: false,
        abstract_class: false,
        associations: Vec::new(),
        validations: Vec::new(),
        callbacks: Vec::new(),
        scopes: Vec::new(),
        enums: Vec::new(),
        concerns: Vec::new(),
        delegates: Vec::new(),
        attributes: Vec::new(),
        macros: Vec::new(),
        methods: method_summaries(&namespace.items),
        span: namespace.span,
        name_span: namespace.name_span,
        rejected_statements: Vec::new(),
    };
    model.table_name_computed |= model.methods.iter().any(|m| m.singleton && m.name == "table_name");
    for item in &namespace.items {
        match item {
            Item::Call(call) if call.receiver.is_none() => add_call(&mut model, call),
            // `devise :omniauthable, … if Settings.oidc?`: which modules the model has is decided when
            // the app runs; kept with the condition as an `if:` option.
            Item::Conditional(branch) => {
                for item in branch.then_items.iter().chain(&branch.else_items) {
                    if let Item::Call(call) = item
                        && call.receiver.is_none()
                        && call.method == "devise"
                    {
                        let mut conditional = Macro::of(call);
                        conditional.options.push(("if".to_owned(), Value::Code(branch.source.clone())));
                        model.macros.push(conditional);
                    }
                }
            }
            Item::Assignment(assignment) => match assignment.target.as_str() {
                "self.table_name" => {
                    model.table_name = assignment.value.as_name().map(str::to_owned);
                    model.table_name_computed = model.table_name.is_none();
                }
                "self.abstract_class" => model.abstract_class = assignment.value == Value::Bool(true),
                _ => {}
            },
            _ => {}
        }
    }
    model
}

fn add_call(model: &mut Model, call: &Call) {
    let method = call.method.as_str();
    let options = call.named_options();
    if ASSOCIATIONS.contains(&method) {
        if let Some(name) = call.first_name() {
            let scope = call.arguments.get(1).filter(|v| matches!(v, Value::Lambda(_))).map(ToString::to_string);
            let scope_span = scope.as_ref().and_then(|_| call.argument_spans.get(1).copied());
            let name_span = call.argument_spans.first().copied().unwrap_or(call.name_span);
            model.associations.push(Association {
                kind: method.to_owned(),
                name: name.to_owned(),
                scope,
                scope_span,
                options,
                span: call.span,
                name_span,
            });
            return;
        }
    } else if is_validation(method) {
        let attributes = call.arguments.iter().map(|v| v.as_name().map_or_else(|| v.to_string(), str::to_owned)).collect();
        model.validations.push(Validation {
            kind: method.to_owned(),
            attributes,
            options,
            span: call.span,
            attribute_spans: call.argument_spans.to_vec(),
        });
        return;
    } else if is_callback(method) {
        let mut targets: Vec<String> = call.arguments.iter().map(|v| v.as_name().map_or_else(|| v.to_string(), str::to_owned)).collect();
        if call.block.is_some() {
            targets.push("{ block }".to_owned());
        }
        model.callbacks.push(Callback {
            kind: method.to_owned(),
            targets,
            options,
            span: call.span,
            target_spans: call.argument_spans.to_vec(),
        });
        return;
    } else if method == "scope" {
        if let Some(name) = call.first_name() {
            let body = call.arguments.get(1).map_or_else(String::new, ToString::to_string);
            let name_span = call.argument_spans.first().copied().unwrap_or(call.name_span);
            model.scopes.push(Scope { name: name.to_owned(), body, span: call.span, name_span });
            return;
        }
    } else if method == "enum" {
        // Rails 7+: `enum :status, { draft: 0 }, prefix: true` or `enum :status, draft: 0, …`;
        // Rails 6: `enum status: { draft: 0 }`.
        if let Some(name) = call.first_name() {
            let (values, options) = match call.arguments.get(1) {
                Some(values) => (values.clone(), options),
                None => (Value::Hash(call.options.to_vec()), Vec::new()),
            };
            model.enums.push(Enum { name: name.to_owned(), values, options, span: call.span });
            return;
        }
        if let Some((key, values)) = call.options.first() {
            let rest = options.into_iter().skip(1).collect();
            model.enums.push(Enum { name: key.as_name().unwrap_or("").to_owned(), values: values.clone(), options: rest, span: call.span });
            return;
        }
    } else if matches!(method, "include" | "extend" | "prepend") {
        model.concerns.push(Macro::of(call));
        return;
    } else if method == "delegate" {
        let methods = call.arguments.iter().filter_map(|v| v.as_name().map(str::to_owned)).collect();
        let to = call.option("to").and_then(|v| v.as_name()).map(str::to_owned);
        let options = options.into_iter().filter(|(k, _)| k != "to").collect();
        model.delegates.push(Delegate { methods, to, options, span: call.span });
        return;
    } else if ATTRIBUTE_MACROS.contains(&method) {
        let names_from =
            |skip: usize| -> Vec<String> { call.arguments.iter().skip(skip).filter_map(|v| v.as_name().map(str::to_owned)).collect() };
        let (names, attribute_type, options) = match method {
            "attribute" => (names_from(0).into_iter().take(1).collect(), call.arguments.get(1).map(ToString::to_string), options),
            // `store_accessor :settings, :color, :size`: the first argument is the store column.
            "store_accessor" => {
                let mut options = options;
                options.extend(call.arguments.first().map(|store| ("store".to_owned(), store.clone())));
                (names_from(1), None, options)
            }
            _ => (names_from(0), None, options),
        };
        model.attributes.push(Attribute { kind: method.to_owned(), names, attribute_type, options, span: call.span });
        return;
    } else if method == "primary_abstract_class" {
        model.abstract_class = true;
    }
    model.macros.push(Macro::of(call));
}

/// Modules and base classes that make a class another library's persisted document rather than an
/// Active Record model, with the library's name.
const DOCUMENT_MAPPERS: &[(&str, &str)] = &[
    ("Mongoid::Document", "Mongoid"),
    ("MongoMapper::Document", "MongoMapper"),
    ("MongoMapper::EmbeddedDocument", "MongoMapper"),
    ("Dynamoid::Document", "Dynamoid"),
    ("NoBrainer::Document", "NoBrainer"),
    ("DataMapper::Resource", "DataMapper"),
    ("Neo4j::ActiveNode", "Neo4j"),
    ("Ripple::Document", "Ripple"),
    ("Sequel::Model", "Sequel"),
    ("Ohm::Model", "Ohm"),
    ("CouchRest::Model::Base", "CouchRest"),
    ("ActiveResource::Base", "Active Resource"),
];

/// The library that persists `class`, when it is not Active Record (`include Mongoid::Document`,
/// `< Sequel::Model`), and the span that says so (the `include`, or the class's name).
pub fn document_mapper(class: &crate::syntax::outline::Namespace) -> Option<(&'static str, crate::syntax::Span)> {
    use crate::syntax::outline::Item;
    let base = |name: &str| DOCUMENT_MAPPERS.iter().find(|(m, _)| *m == name.trim_start_matches("::")).map(|(_, lib)| *lib);
    if let Some(lib) = class.superclass.as_deref().and_then(|s| base(s.split('(').next().unwrap_or(s))) {
        return Some((lib, class.name_span));
    }
    class.items.iter().find_map(|item| match item {
        Item::Call(call) if call.receiver.is_none() && call.method == "include" => {
            call.arguments.iter().filter_map(|a| a.as_name()).find_map(base).map(|lib| (lib, call.span))
        }
        _ => None,
    })
}

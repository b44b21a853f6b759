//! What Roundhouse makes of each class-body statement of a model: kept as Rails runs it, kept with a
//! warning it prints, changed, dropped or rejected — with the finding that says so, the lines the
//! preview shows for it and the hint at the end of its line. The rules (`facts_rules`), the built-in
//! preview (`preview`) and the inlay hints (`ide::inlay`) are all views of this one description, so
//! they cannot disagree about a validation or an association.
//!
//! Measured against Roundhouse (one-statement models, `scripts/fidelity.py ask`; the cases are
//! `tests/fixtures/fidelity/model-*.fixture`):
//! - validations: `presence: true`, `absence: true`, `length: {minimum:, maximum:}` with integer
//!   literals and `validates_presence_of` / `validates_absence_of` without options are enforced; `if:`,
//!   `unless:` and `on:` are ignored (the check always runs); `presence:` with options, a `length:`
//!   with `is:`/`in:`/`within:` or a computed bound, and uniqueness, format, numericality, inclusion,
//!   exclusion, comparison, confirmation and acceptance are not enforced, without a word;
//!   `validate :m` is called from `validate`; `validate` with options or a block, `validates_each`,
//!   `validates_with`, `validates_associated` and the other `validates_*_of` (or with options) print
//!   "not supported" and are dropped;
//! - callbacks: a method name (or several, or a block) on a known hook runs; `on:` is read on
//!   validation and commit hooks only; `if:`/`unless:`/`prepend:`, an array `on:`, a lambda or an
//!   object argument, `around_*`, `after_find`, `after_touch` and `after_initialize :m` print "not
//!   supported" and are dropped;
//! - associations: `class_name`, `foreign_key`, `dependent`, `through`, `source`, `source_type`, `as`,
//!   `polymorphic`, `optional`, `default`, `join_table` and a `has_many` scope without parameters are
//!   read; every other option, a scope on `belongs_to`/`has_one` and a scope with parameters are
//!   ignored without a word (`required: true` and `validate: false` are what Roundhouse does anyway);
//! - other macros: `attr_accessor`/`attr_reader`/`attr_writer` print "not supported" but the accessors
//!   are written; `private`/`protected` print it and the methods below are public; `include` prints it
//!   and the `include` is written (an `ActiveModel::*` one is left out: Roundhouse models it);
//!   `has_one_attached` prints it and gets an `attached?`-style reader only; `has_secure_password`,
//!   `has_secure_token`, bare `has_rich_text`, `broadcasts_to`, `typed_store`, `has_json`,
//!   `primary_abstract_class` and `attribute :x, :type` are read; every other call prints "not
//!   supported" and is dropped.

use crate::diagnostic::{Diagnostic, Severity};
use crate::rails::inflect;
use crate::rails::model::{Association, Callback, Model, Validation};
use crate::rails::schema::Table;
use crate::syntax::Span;
use crate::syntax::value::Value;

/// What happens to one statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Compiled as Rails runs it.
    Kept,
    /// Compiled, but Roundhouse prints a warning for it (or it is kept in part).
    KeptWithWarning,
    /// Compiled differently from Rails.
    Changed,
    /// Left out of the compiled class.
    Dropped,
    /// Its ingest stops the compile.
    Rejected,
}

impl Fate {
    pub fn as_str(self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::KeptWithWarning => "kept, with a warning",
            Fate::Changed => "changed",
            Fate::Dropped => "dropped",
            Fate::Rejected => "stops the compile",
        }
    }
}

/// One class-body statement, lowered.
#[derive(Debug, Clone)]
pub struct Lowered {
    pub span: Span,
    pub fate: Fate,
    /// The rules' findings on it (none when kept as Rails runs it).
    pub findings: Vec<Diagnostic>,
    /// The preview's lines for it, inside the compiled class (comments for what is lost).
    pub emitted: Vec<String>,
    /// The inlay hint at the end of its line, when it has one.
    pub hint: Option<String>,
    pub kind: Kind,
    /// The DSL call it is (`validates`, `has_many`, `delegate`…), filled in by `lower`.
    pub construct: String,
}

impl Lowered {
    /// A statement the ingest rejects: its finding, and a comment where it would have been.
    fn rejected(span: Span, finding: Diagnostic, kind: Kind, what: String) -> Lowered {
        let emitted = vec![format!("  # {}: {what} is rejected", finding.rule)];
        Lowered { span, fate: Fate::Rejected, findings: vec![finding], emitted, hint: None, kind, construct: String::new() }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Association,
    Validation,
    Callback,
    Scope,
    Enum,
    Macro,
}

/// Where the lowering finds a table by name (the schema), for what the preview and hints show; the
/// findings never depend on it.
pub type Tables<'a> = &'a dyn Fn(&str) -> Option<&'a Table>;

/// A model's statements, lowered, in source order.
pub fn lower(model: &Model, tables: Tables<'_>) -> Vec<Lowered> {
    let mut out: Vec<Lowered> = Vec::new();
    let own_table = inflect::tableize(&model.class_name);
    for association in &model.associations {
        out.push(named(association_item(model, association, tables, &own_table), &association.kind));
    }
    for validation in &model.validations {
        out.push(named(validation_item(validation, &model.associations), &validation.kind));
    }
    for callback in &model.callbacks {
        out.push(named(callback_item(callback), &callback.kind));
    }
    for scope in &model.scopes {
        out.push(named(scope_item(scope, &own_table, model.rejected_statements.contains(&scope.span.start_byte)), "scope"));
    }
    for enumeration in &model.enums {
        out.push(named(enum_item(enumeration, model.rejected_statements.contains(&enumeration.span.start_byte)), "enum"));
    }
    for call in &model.concerns {
        out.push(named(include_item(model, call), &call.name));
    }
    for delegate in &model.delegates {
        let written = DelegateWritten::of(delegate);
        let defined: Vec<String> = delegate.methods.iter().map(|m| written.as_ref().map_or_else(|| m.clone(), |w| w.name(m))).collect();
        let mut message = format!(
            "`delegate` is dropped: the compiled {} has no {}, so calls to {} raise NoMethodError.",
            model.class_name,
            names(&defined),
            if defined.len() == 1 { "it" } else { "them" }
        );
        if let (Some(written), Some(first)) = (&written, delegate.methods.first()) {
            message.push_str(&format!(" Instead, write it out: `{}`.", written.method(first)));
        }
        out.push(named(
            dropped(delegate.span, Kind::Macro, unsupported(delegate.span, "delegate", &model.class_name, message)),
            "delegate",
        ));
    }
    for attribute in &model.attributes {
        out.push(named(attribute_item(model, attribute), &attribute.kind));
    }
    for call in &model.macros {
        if let Some(item) = macro_item(model, call) {
            out.push(named(item, &call.name));
        }
    }
    out.sort_by_key(|item| item.span.start_byte);
    out
}

/// `lower`'s items carry the DSL call they come from, and name every finding on them in their
/// preview lines (so the preview says what the rule says).
fn named(mut item: Lowered, construct: &str) -> Lowered {
    item.construct = construct.to_owned();
    for finding in &item.findings {
        if !item.emitted.iter().any(|line| line.contains(finding.rule.as_str())) {
            item.emitted.push(format!("  # {}: {}", finding.rule, first_sentence(&finding.message)));
        }
    }
    item
}

/// Every finding on a model's statements (what `facts_rules` reports).
pub fn findings(model: &Model) -> Vec<Diagnostic> {
    lower(model, &|_| None).into_iter().flat_map(|item| item.findings).collect()
}

/// Macros a concern's `included` block carries into its includers besides the model DSL proper.
const SPLICED_MACROS: &[&str] =
    &["has_one_attached", "has_rich_text", "has_secure_token", "has_secure_password", "has_json", "typed_store", "broadcasts_to"];

/// The findings on a concern's `included do … end` statements, lowered as part of the includer the
/// block's `model` is named after: Roundhouse splices associations, validations, callbacks, scopes,
/// enums and `SPLICED_MACROS` into each including model, and drops every other statement of the
/// block without a word (where the same statement in a model's body would print "not supported").
pub fn spliced_findings(model: &Model, provided: &dyn Fn(&str) -> Option<String>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for item in lower(model, &|_| None) {
        let printed = item.findings.iter().any(|f| f.message.contains(PRINTED));
        if !printed || SPLICED_MACROS.contains(&item.construct.as_str()) {
            out.extend(item.findings);
            continue;
        }
        let Some(first) = item.findings.into_iter().next() else { continue };
        out.push(Diagnostic {
            severity: Severity::Warning,
            message: format!(
                "Roundhouse drops this `{}` from the concern's `included` block without a word: {} does not get it. It splices only associations, validations, callbacks, scopes, enums and a few macros (`has_one_attached`, `has_secure_password`…) into the models that include the concern.",
                item.construct, model.class_name
            ),
            ..first
        });
    }
    // Methods defined in the block go with it: neither the model nor the compiled module has them,
    // unless the model gets the name from elsewhere (an enum's predicate, an association, a column).
    for method in &model.methods {
        let name = format!("{}{}", if method.singleton { "self." } else { "" }, method.name);
        let message = match provided(&name).or_else(|| provided_in_block(model, &name)) {
            Some(source) => format!(
                "Roundhouse drops `def {name}` from the concern's `included` block without a word: {}'s `{}` is {source}, not this method (in Rails this method replaces it).",
                model.class_name, method.name
            ),
            None => format!(
                "Roundhouse drops `def {name}` from the concern's `included` block without a word: {} does not get it, so calls to it raise NoMethodError. Instead, define it in the module's body (or a class method in `class_methods do`), outside `included do`, where it is kept.",
                model.class_name
            ),
        };
        out.push(Diagnostic { span: method.name_span, severity: Severity::Warning, rule: rule!("model.unsupported-macro"), message });
    }
    out
}

/// What a model's DSL defines under `name` (a method name, `self.x` for a class method): an
/// association's reader and writer, an enum's predicates and bang methods, a scope.
pub fn provided_by_dsl(model: &Model, name: &str) -> Option<String> {
    if let Some(scope) = name.strip_prefix("self.") {
        return model.scopes.iter().any(|s| s.name == scope).then(|| format!("the `scope :{scope}`"));
    }
    let plain = name.trim_end_matches('=');
    if let Some(association) = model.associations.iter().find(|a| a.name == plain) {
        let part = if name.ends_with('=') { "writer" } else { "reader" };
        return Some(format!("the `{} :{}` association's {part}", association.kind, association.name));
    }
    for enumeration in &model.enums {
        if enum_methods(enumeration).iter().any(|m| m == name) {
            return Some(format!("the one the `enum :{}` defines", enumeration.name));
        }
    }
    None
}

fn provided_in_block(model: &Model, name: &str) -> Option<String> {
    provided_by_dsl(model, name)
}

/// The predicates and bang methods an enum defines (`admin?`, `admin!`), with its `prefix:` and
/// `suffix:`; none when its values are not written out.
fn enum_methods(enumeration: &crate::rails::model::Enum) -> Vec<String> {
    use crate::syntax::value::Value;
    let values: Vec<String> = match &enumeration.values {
        Value::Hash(pairs) => pairs.iter().filter_map(|(k, _)| k.as_name().map(str::to_owned)).collect(),
        Value::Code(source) => {
            // `%i[ owner admin ].index_by(&:itself)`: the words of the literal.
            let words = source.split_once("%i[").or_else(|| source.split_once("%w[")).map(|(_, rest)| rest.split(']').next().unwrap_or(""));
            words.map(|w| w.split_whitespace().map(str::to_owned).collect()).unwrap_or_default()
        }
        other => other.names(),
    };
    let affix = |key: &str| {
        enumeration.options.iter().find(|(k, _)| k == key).map(|(_, v)| match v {
            Value::Bool(true) => Some(enumeration.name.clone()),
            Value::Bool(false) | Value::Nil => None,
            other => other.as_name().map(str::to_owned),
        })
    };
    let (prefix, suffix) = (affix("prefix").flatten(), affix("suffix").flatten());
    values
        .iter()
        .map(|v| {
            let mut name = v.clone();
            if let Some(p) = &prefix {
                name = format!("{p}_{name}");
            }
            if let Some(s) = &suffix {
                name = format!("{name}_{s}");
            }
            name
        })
        .flat_map(|n| [format!("{n}?"), format!("{n}!")])
        .collect()
}

/// How every message of a statement Roundhouse prints a warning for ends.
const PRINTED: &str = " (Roundhouse prints \"";

/// A class of `app/models` that inherits from another model (single-table inheritance, or a shared
/// base): Roundhouse reads it as a plain class.
/// The names a class body (a model's, or a module it includes) gives the compiled model a writer
/// for, as Roundhouse counts them when it sizes the `update` and `from_params` it synthesizes from
/// a permit list: `belongs_to` names, `attr_accessor`/`attr_writer` and `attribute` names,
/// `has_secure_password`'s pair, a bare `has_rich_text`'s, and each `def <name>=`. Looked for
/// through nested blocks and classes too, so that a name written anywhere counts (the finding is
/// then left out). `None` when the body holds a `typed_store`, whose attributes are not listed here.
pub fn writer_names(items: &[crate::syntax::outline::Item]) -> Option<std::collections::HashSet<String>> {
    use crate::syntax::outline::Item;
    fn walk(items: &[Item], out: &mut std::collections::HashSet<String>) -> bool {
        for item in items {
            match item {
                Item::Method(method) if !method.singleton => {
                    if let Some(name) = method.name.strip_suffix('=') {
                        out.insert(name.to_owned());
                    }
                }
                Item::Call(call) if call.receiver.is_none() => {
                    let names = call.arguments.iter().filter_map(|a| a.as_name().map(str::to_owned));
                    match call.method.as_str() {
                        "typed_store" => return false,
                        "belongs_to" | "has_rich_text" => out.extend(names.take(1)),
                        "attr_accessor" | "attr_writer" | "attribute" => out.extend(names),
                        "has_secure_password" => {
                            let name = call.arguments.first().and_then(|a| a.as_name()).unwrap_or("password").to_owned();
                            out.insert(format!("{name}_confirmation"));
                            out.insert(name);
                        }
                        _ => {}
                    }
                    if let Some(block) = &call.block
                        && !walk(&block.items, out)
                    {
                        return false;
                    }
                }
                Item::Namespace(namespace) if !walk(&namespace.items, out) => return false,
                Item::SingletonClass { items, .. } if !walk(items, out) => return false,
                _ => {}
            }
        }
        true
    }
    let mut out = std::collections::HashSet::new();
    walk(items, &mut out).then_some(out)
}

pub fn is_model_subclass(model: &Model) -> bool {
    model.superclass.as_deref().is_some_and(|s| {
        let s = s.trim_start_matches("::");
        !matches!(s, "ApplicationRecord" | "ActiveRecord::Base")
            && s.chars().next().is_some_and(char::is_uppercase)
            && !s.contains("Struct")
    })
}

/// The statements of a model Roundhouse reads as a plain class (a model's subclass, or a model that is
/// not its file's first class, `first_class`): it keeps its plain callbacks (`before_save :m`) and
/// drops every other model statement ("not modelled and is dropped").
pub fn subclass_findings(model: &Model, first_class: &str) -> Vec<Diagnostic> {
    let superclass = model.superclass.as_deref().unwrap_or("");
    let direct = matches!(superclass.trim_start_matches("::"), "ApplicationRecord" | "ActiveRecord::Base");
    // Plain callbacks run; what a plain class may hold (includes, accessors, visibility, delegations)
    // is read as in any library class.
    const LIBRARY_DSL: &[&str] = &[
        "include",
        "extend",
        "prepend",
        "attr_accessor",
        "attr_reader",
        "attr_writer",
        "private",
        "protected",
        "public",
        "private_class_method",
        "public_class_method",
        "delegate",
    ];
    lower(model, &|_| None)
        .into_iter()
        .filter(|item| !(item.kind == Kind::Callback && item.findings.is_empty()))
        .filter(|item| !LIBRARY_DSL.contains(&item.construct.as_str()))
        .map(|item| {
            let message = if direct {
                format!(
                    "Roundhouse reads this file as plain classes (its first class, {first_class}, is not a model), so it drops this statement of `{}` (\"not modelled and is dropped\"). Instead, move {} to a file of its own.",
                    model.class_name, model.class_name
                )
            } else {
                format!(
                    "Roundhouse reads `{}` (a subclass of {superclass}) as a plain class and drops this statement (\"not modelled and is dropped\"): only its plain callbacks are kept. Instead, declare it in {superclass}.",
                    model.class_name
                )
            };
            finding(rule!("model.unsupported-macro"), item.span, message)
        })
        .collect()
}

/// What Rails' `delegate` defines, to write it out by hand: each method's name (`prefix:` puts the
/// receiver's name or the one given before it) and the call it makes (`allow_nil:` makes it `&.`,
/// `to: :class` calls the class). `None` when the options do not say it here (a prefix computed at
/// run time, no `to:`).
struct DelegateWritten<'d> {
    prefix: String,
    receiver: &'d str,
    dot: &'static str,
}

impl<'d> DelegateWritten<'d> {
    fn of(delegate: &'d crate::rails::model::Delegate) -> Option<DelegateWritten<'d>> {
        let to = delegate.to.as_deref()?;
        let option = |key: &str| delegate.options.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        let prefix = match option("prefix") {
            None | Some(Value::Bool(false) | Value::Nil) => String::new(),
            // Rails takes the receiver's name only when it is a method's (not `@ivar`, not `Const`).
            Some(Value::Bool(true)) if to.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') => format!("{to}_"),
            Some(Value::Symbol(name) | Value::String(name)) => format!("{name}_"),
            Some(_) => return None,
        };
        let dot = if matches!(option("allow_nil"), Some(Value::Bool(true))) { "&." } else { "." };
        Some(DelegateWritten { prefix, receiver: if to == "class" { "self.class" } else { to }, dot })
    }

    /// The name `method` is defined under.
    fn name(&self, method: &str) -> String {
        format!("{}{method}", self.prefix)
    }

    /// `method` written out as the method Rails defines for it (a writer takes its value).
    fn method(&self, method: &str) -> String {
        let DelegateWritten { receiver, dot, .. } = self;
        match method.strip_suffix('=') {
            Some(attribute) => format!("def {}(value); {receiver}{dot}{attribute} = value; end", self.name(method)),
            None => format!("def {} = {receiver}{dot}{method}", self.name(method)),
        }
    }
}

fn names(list: &[String]) -> String {
    list.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

fn finding(rule: crate::diagnostic::RuleId, span: Span, message: String) -> Diagnostic {
    crate::diagnostic::Diagnostic::finding(rule, span, message)
}

/// `model.unsupported-macro`: what the compiled class does without the statement (`consequence`, a
/// sentence), and the warning Roundhouse prints for it, so the two can be matched up.
fn unsupported(span: Span, dsl: &str, model: &str, consequence: String) -> Diagnostic {
    finding(
        rule!("model.unsupported-macro"),
        span,
        format!("{consequence}{PRINTED}{dsl} not supported (all targets): model DSL call on `{model}` not lowered\" for this line.)"),
    )
}

fn dropped(span: Span, kind: Kind, finding: Diagnostic) -> Lowered {
    let emitted = vec![format!("  # {}: {}", finding.rule, first_sentence(&finding.message))];
    Lowered {
        span,
        fate: Fate::Dropped,
        findings: vec![finding],
        emitted,
        hint: Some("dropped".to_owned()),
        kind,
        construct: String::new(),
    }
}

const ASSOCIATION_OPTIONS_READ: &[&str] = &[
    "class_name",
    "foreign_key",
    "dependent",
    "through",
    "source",
    "source_type",
    "as",
    "polymorphic",
    "optional",
    "default",
    "join_table",
];

/// `has_and_belongs_to_many`: the compiler writes no reader or writer for it, and says nothing.
fn habtm_item(model: &Model, association: &Association, own_table: &str) -> Lowered {
    use crate::rails::inflect;
    let name = &association.name;
    let option = |key: &str| association.options.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.as_name());
    let target = inflect::singularize(name);
    let class_name = option("class_name").map(|c| c.trim_start_matches("::").to_owned());
    let target_table = class_name.as_deref().map_or_else(|| name.clone(), inflect::tableize);
    let join = option("join_table").map_or_else(|| habtm_join_table(own_table, &target_table), str::to_owned);
    let join_model = inflect::classify(&join);
    let owner = inflect::underscore(inflect::demodulize(&model.class_name));
    let target_belongs_to = match &class_name {
        Some(class) if inflect::camelize(&target) != *class => format!("belongs_to :{target}, class_name: \"{class}\""),
        _ => format!("belongs_to :{target}"),
    };
    let f = finding(
        rule!("model.unsupported-macro"),
        association.span,
        format!(
            "Roundhouse drops `has_and_belongs_to_many :{name}` without a word: the compiled {} has no `{name}`, `{name}=` or `{target}_ids`, so calls to them raise NoMethodError. Instead, give the join table a model and go through it: `has_many :{join}` and `has_many :{name}, through: :{join}`, with `class {join_model} < ApplicationRecord` (`belongs_to :{owner}`, `{target_belongs_to}`).",
            model.class_name
        ),
    );
    dropped(association.span, Kind::Association, f)
}

/// The join table Rails derives for a `has_and_belongs_to_many` pair: the two table names in lexical
/// order, joined by `_`, a shared leading `prefix_` written once (`catalog_categories` and
/// `catalog_products` → `catalog_categories_products`).
fn habtm_join_table(a: &str, b: &str) -> String {
    let (first, second) = if a <= b { (a, b) } else { (b, a) };
    // The longest `prefix_` both names start with that leaves something after it in each.
    let shared = first
        .match_indices('_')
        .map(|(i, _)| &first[..=i])
        .rfind(|prefix| second.starts_with(prefix) && second.len() > prefix.len() && first.len() > prefix.len());
    match shared {
        Some(prefix) => format!("{first}_{}", &second[prefix.len()..]),
        None => format!("{first}_{second}"),
    }
}

fn association_item(model: &Model, association: &Association, tables: Tables<'_>, own_table: &str) -> Lowered {
    if association.kind == "has_and_belongs_to_many" {
        return habtm_item(model, association, own_table);
    }
    let option = |key: &str| association.options.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let mut findings = Vec::new();
    for (key, value) in &association.options {
        let matches_default = match key.as_str() {
            "required" => matches!(value, Value::Bool(true)),
            "validate" => matches!(value, Value::Bool(false)) || (association.kind != "belongs_to" && matches!(value, Value::Bool(true))),
            _ => false,
        };
        if ASSOCIATION_OPTIONS_READ.contains(&key.as_str()) || matches_default {
            continue;
        }
        let effect = match key.as_str() {
            "counter_cache" => "the counter column is never updated".to_owned(),
            "touch" => "saving it does not touch the owner's `updated_at`".to_owned(),
            "inverse_of" => "loaded records do not point back at the same object".to_owned(),
            "autosave" => "saving the owner does not save these records".to_owned(),
            "required" => "the compiled model still requires it (\"must exist\")".to_owned(),
            "validate" => "the associated records are not validated on save".to_owned(),
            "primary_key" => "the query matches on `id`".to_owned(),
            other => format!("the compiled app behaves as if `{other}:` were not there"),
        };
        findings.push(finding(
            rule!("model.association-option-ignored"),
            association.span,
            format!("Roundhouse ignores `{key}:` on `{} :{}`: {effect}.", association.kind, association.name),
        ));
    }
    if let Some(scope) = &association.scope {
        let with_parameters =
            scope.trim_start().strip_prefix("->").is_some_and(|rest| rest.trim_start().starts_with('(')) || scope.contains('|');
        if association.kind != "has_many" || with_parameters {
            findings.push(finding(
                rule!("model.association-option-ignored"),
                association.span,
                format!(
                    "Roundhouse ignores the scope of `{} :{}`{}: the compiled reader loads every associated record.",
                    association.kind,
                    association.name,
                    if with_parameters { " (it takes parameters)" } else { "" }
                ),
            ));
        }
    }
    let class_name = option("class_name").and_then(Value::as_name).map(str::to_owned);
    let (emitted, hint) = if option("through").is_some() || option("as").is_some() || option("polymorphic").is_some() {
        (
            vec![format!("  # {} :{} (through/polymorphic): read at run time", association.kind, association.name)],
            "read at run time (through/polymorphic)".to_owned(),
        )
    } else {
        match association.kind.as_str() {
            "belongs_to" => {
                let class_name = class_name.unwrap_or_else(|| inflect::camelize(&association.name));
                let column =
                    option("foreign_key").and_then(Value::as_name).map_or_else(|| format!("{}_id", association.name), str::to_owned);
                let detail = tables(own_table)
                    .and_then(|t| t.columns.iter().find(|c| c.name == column))
                    .map(|c| format!(" · {column}: {}, null: {}", c.column_type, c.null))
                    .unwrap_or_else(|| format!(" · no {column} column"));
                (
                    vec![
                        format!("  # SELECT * FROM {} WHERE id = ? LIMIT 1", inflect::tableize(&class_name)),
                        format!("  def {} = {class_name}.find_by(id: @{column})", association.name),
                    ],
                    format!("{class_name}.find({column}){detail}"),
                )
            }
            "has_many" | "has_one" => {
                let class_name = class_name.unwrap_or_else(|| inflect::classify(&association.name));
                let foreign_key =
                    option("foreign_key").and_then(Value::as_name).map_or_else(|| inflect::foreign_key(&model.class_name), str::to_owned);
                let dependent = match option("dependent").and_then(Value::as_name) {
                    Some("destroy" | "destroy_async") => " · destroy cascades",
                    Some("delete_all") => " · deletes cascade (no callbacks)",
                    Some("nullify") => " · nullifies",
                    _ => "",
                };
                let limit = if association.kind == "has_one" { " LIMIT 1" } else { "" };
                let finder = if association.kind == "has_one" { "find_by" } else { "where" };
                (
                    vec![
                        format!("  # SELECT * FROM {} WHERE {foreign_key} = ?{limit}", inflect::tableize(&class_name)),
                        format!("  def {} = {class_name}.{finder}({foreign_key}: @id)", association.name),
                    ],
                    format!("SELECT … FROM {} WHERE {foreign_key} = ?{limit}{dependent}", inflect::tableize(&class_name)),
                )
            }
            _ => (
                vec![format!("  # {} :{}: a join-table read at run time", association.kind, association.name)],
                "join table, read at run time".to_owned(),
            ),
        }
    };
    let mut emitted: Vec<String> = std::iter::once(format!("  # {} :{}", association.kind, association.name)).chain(emitted).collect();
    emitted.extend(findings.iter().map(|f| format!("  # {}: {}", f.rule, first_sentence(&f.message))));
    let fate = if findings.is_empty() { Fate::Kept } else { Fate::Changed };
    Lowered { span: association.span, fate, findings, emitted, hint: Some(hint), kind: Kind::Association, construct: String::new() }
}

/// The message's first sentence, for a preview comment.
fn first_sentence(message: &str) -> &str {
    message.split(". ").next().unwrap_or(message).trim_end_matches('.')
}

fn humanize(attribute: &str) -> String {
    let text = attribute.strip_suffix("_id").unwrap_or(attribute).replace('_', " ");
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().collect::<String>() + chars.as_str())
}

/// A Ruby string literal.
fn ruby_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"").replace('#', "\\#"))
}

const VALIDATORS_IGNORED: &[&str] =
    &["uniqueness", "format", "numericality", "inclusion", "exclusion", "comparison", "confirmation", "acceptance"];
/// Options that make the rule conditional in Rails; Roundhouse runs it always.
const CONDITIONS: &[&str] = &["if", "unless", "on"];

fn validation_item(validation: &Validation, associations: &[Association]) -> Lowered {
    let span = validation.span;
    let attributes = &validation.attributes;
    let unsupported_form = |consequence: &str| {
        let f = finding(
            rule!("model.validation-ignored"),
            span,
            format!("{consequence}{PRINTED}{} not supported (all targets)\" for this line.)", validation.kind),
        );
        dropped(span, Kind::Validation, f)
    };
    match validation.kind.as_str() {
        "validate" => {
            if validation.options.is_empty() && !attributes.iter().any(|a| a == "{ block }") && !attributes.is_empty() {
                let emitted = attributes.iter().map(|m| format!("    {m}")).collect();
                return Lowered {
                    span,
                    fate: Fate::Kept,
                    findings: Vec::new(),
                    emitted,
                    hint: Some(format!("called from validate: {}", attributes.join(", "))),
                    kind: Kind::Validation,
                    construct: String::new(),
                };
            }
            let what = if validation.options.is_empty() { "a `validate` block".to_owned() } else { "`validate` with options".to_owned() };
            return unsupported_form(&format!(
                "{what} never runs in the compiled model. Instead, use a plain `validate :method` and test the condition inside the method."
            ));
        }
        "validates_presence_of" | "validates_absence_of" if validation.options.is_empty() => {
            let check = validation.kind.trim_start_matches("validates_").trim_end_matches("_of");
            return with_unread_presence(enforced(span, attributes, &[(check.to_owned(), Value::Bool(true))]), attributes, associations);
        }
        "validates" => {}
        other => {
            return unsupported_form(&format!("`{other}` is dropped: the compiled model accepts what Rails would reject."));
        }
    }
    let mut findings = Vec::new();
    let mut checks: Vec<(String, Value)> = Vec::new();
    let mut comments = Vec::new();
    for (key, value) in &validation.options {
        match key.as_str() {
            "presence" | "absence" if matches!(value, Value::Bool(true)) => checks.push((key.clone(), value.clone())),
            // `presence: false` asks for nothing, in Rails too.
            "presence" | "absence" if matches!(value, Value::Bool(false)) => {}
            "length" if length_bounds(value).is_some() => checks.push((key.clone(), value.clone())),
            "presence" | "absence" | "length" => {
                let why = match (key.as_str(), value) {
                    ("length", Value::Hash(_)) => {
                        "it enforces `minimum:` and `maximum:` given as numbers, not `is:`, `in:`, `within:` or a computed bound"
                    }
                    _ => "it enforces `presence: true`, not a hash of options",
                };
                findings.push(finding(
                    rule!("model.validation-ignored"),
                    span,
                    format!(
                        "Roundhouse does not enforce this `{key}:` ({why}): the compiled model accepts what Rails would reject for {}.",
                        attributes.join(", ")
                    ),
                ));
                comments.push(format!("    # model.validation-ignored: {key}: on {} is not enforced", attributes.join(", ")));
            }
            validator if VALIDATORS_IGNORED.contains(&validator) => {
                findings.push(finding(
                    rule!("model.validation-ignored"),
                    span,
                    format!(
                        "Roundhouse does not enforce `{validator}:` (on {}): the compiled model accepts what Rails would reject.",
                        attributes.join(", ")
                    ),
                ));
                comments.push(format!("    # model.validation-ignored: {validator}: on {} is not enforced", attributes.join(", ")));
            }
            // Options of `validates` itself.
            "allow_nil" | "allow_blank" | "message" | "strict" => {}
            condition if CONDITIONS.contains(&condition) => {
                findings.push(finding(
                    rule!("model.validation-option-ignored"),
                    span,
                    format!("Roundhouse ignores `{condition}:` on `validates`: the checks run on every save, whatever the condition."),
                ));
                comments.push(format!("    # model.validation-option-ignored: {condition}: ignored, the check always runs"));
            }
            // Any other key names a validator class (`gem_requirements: true` → GemRequirementsValidator).
            custom => {
                let class = format!("{}Validator", inflect::camelize(custom));
                findings.push(finding(
                    rule!("model.validation-ignored"),
                    span,
                    format!(
                        "Roundhouse does not run the custom validator `{custom}:` ({class}) on {}: the compiled model accepts what Rails would reject.",
                        attributes.join(", ")
                    ),
                ));
                comments.push(format!("    # model.validation-ignored: {custom}: ({class}) is not run"));
            }
        }
    }
    // Options that change an enforced check (a presence check skipped when `allow_blank:` is given is
    // what Rails does too: it never fails).
    let enforces = |check: &str| checks.iter().any(|(k, _)| k == check);
    let length_messages = checks.iter().any(|(k, v)| {
        k == "length"
            && matches!(v, Value::Hash(pairs) if pairs.iter().any(|(b, _)| b.as_name().is_some_and(|b| LENGTH_MESSAGES.contains(&b))))
    });
    for (key, value) in &validation.options {
        let effect = match key.as_str() {
            "allow_nil" if matches!(value, Value::Bool(true)) && enforces("presence") => "a nil value still fails the presence check",
            "allow_blank" if matches!(value, Value::Bool(true)) && enforces("length") => "a blank value still fails the length check",
            "message" if !checks.is_empty() => "the errors carry Rails' default messages, not this one",
            "strict" if matches!(value, Value::Bool(true)) && !checks.is_empty() => "an invalid record gets errors instead of raising",
            _ => continue,
        };
        findings.push(finding(
            rule!("model.validation-option-ignored"),
            span,
            format!("Roundhouse ignores `{key}:` on `validates`: {effect}."),
        ));
        comments.push(format!("    # model.validation-option-ignored: {key}: ignored"));
    }
    if length_messages {
        findings.push(finding(
            rule!("model.validation-option-ignored"),
            span,
            "Roundhouse ignores the messages given in `length:`: the errors carry Rails' default messages.".to_owned(),
        ));
        comments.push("    # model.validation-option-ignored: length messages: ignored".to_owned());
    }
    let enforces_presence = enforces("presence");
    let mut item = enforced(span, attributes, &checks);
    item.emitted.extend(comments);
    let ignored = findings.iter().filter(|f| f.rule == rule!("model.validation-ignored")).count();
    let hint = item.hint.take().map(|h| if ignored > 0 { format!("{h} · {ignored} not enforced") } else { h });
    item.hint = hint;
    if !findings.is_empty() {
        item.fate = if checks.is_empty() && ignored > 0 { Fate::Dropped } else { Fate::Changed };
    }
    item.findings = findings;
    if enforces_presence { with_unread_presence(item, attributes, associations) } else { item }
}

/// `model.presence-check-never-passes`: a presence check Roundhouse writes as a test of the
/// attribute's instance variable (`@user.nil? || …`), on an association of the model, whose reader
/// queries through its key and whose instance variable nothing in the compiled class assigns: the
/// check fails on every record.
fn with_unread_presence(mut item: Lowered, attributes: &[String], associations: &[Association]) -> Lowered {
    for attribute in attributes {
        let Some(association) = associations.iter().find(|a| &a.name == attribute) else { continue };
        let label = humanize(attribute);
        let test = match association.kind.as_str() {
            "has_many" | "has_and_belongs_to_many" => format!("{attribute}.empty?"),
            _ => format!("{attribute}.nil?"),
        };
        item.findings.push(finding(
            rule!("model.presence-check-never-passes"),
            item.span,
            format!(
                "Roundhouse compiles this presence check as a test of the instance variable `@{attribute}`, which nothing in the compiled model assigns (`{attribute}` is a `{}` association: its reader queries the database instead): every record fails it with \"{label} can't be blank\", so none saves. Instead, check the association in a method: `validate :{attribute}_present`, with `def {attribute}_present` / `errors.add(:{attribute}, \"can't be blank\") if {test}` / `end`.",
                association.kind
            ),
        ));
        item.fate = Fate::Changed;
    }
    item
}

/// Messages inside a `length:` hash: Roundhouse enforces the bounds with Rails' default messages.
const LENGTH_MESSAGES: &[&str] = &["message", "too_short", "too_long"];

/// `{minimum: 2, maximum: 5}` with integer literals: the bounds Roundhouse enforces (its messages
/// aside); `None` when it enforces none of them.
fn length_bounds(value: &Value) -> Option<Vec<(&'static str, i64)>> {
    let Value::Hash(pairs) = value else { return None };
    let mut out = Vec::new();
    for (key, bound) in pairs {
        match (key.as_name(), bound) {
            (Some("minimum"), Value::Integer(n)) => out.push(("minimum", *n)),
            (Some("maximum"), Value::Integer(n)) => out.push(("maximum", *n)),
            (Some(message), _) if LENGTH_MESSAGES.contains(&message) => {}
            _ => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The checks a validation adds to the compiled `validate`.
fn enforced(span: Span, attributes: &[String], checks: &[(String, Value)]) -> Lowered {
    let mut emitted = Vec::new();
    for attribute in attributes {
        let label = humanize(attribute);
        for (key, value) in checks {
            match key.as_str() {
                "presence" => emitted.push(format!(
                    "    errors << {} if @{attribute}.nil? || @{attribute}.to_s.empty?",
                    ruby_string(&format!("{label} can't be blank"))
                )),
                "absence" => emitted.push(format!(
                    "    errors << {} unless @{attribute}.nil? || @{attribute}.to_s.empty?",
                    ruby_string(&format!("{label} must be blank"))
                )),
                _ => {
                    for (bound, limit) in length_bounds(value).unwrap_or_default() {
                        let (op, words) = if bound == "minimum" { ("<", "too short (minimum is") } else { (">", "too long (maximum is") };
                        emitted.push(format!(
                            "    errors << {} if !@{attribute}.nil? && @{attribute}.length {op} {limit}",
                            ruby_string(&format!("{label} is {words} {limit} characters)"))
                        ));
                    }
                }
            }
        }
    }
    let hint = format!("{} check{} in validate", emitted.len(), if emitted.len() == 1 { "" } else { "s" });
    Lowered { span, fate: Fate::Kept, findings: Vec::new(), emitted, hint: Some(hint), kind: Kind::Validation, construct: String::new() }
}

/// `:normalize` as a callback target (not a lambda, not a callbacks object such as `Auditor`).
fn is_method_name(target: &str) -> bool {
    target.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && target.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '?' | '!'))
}

fn callback_item(callback: &Callback) -> Lowered {
    let kind = callback.kind.as_str();
    let validation_or_commit = kind.ends_with("_validation") || kind.contains("commit");
    let reason = if kind.starts_with("around_") {
        Some("`around_*` callbacks are dropped".to_owned())
    } else if matches!(kind, "after_find" | "after_touch") {
        Some(format!("`{kind}` is dropped"))
    } else if kind == "after_initialize" && callback.targets.iter().any(|t| is_method_name(t)) {
        Some("`after_initialize` is read only in its block form".to_owned())
    } else if let Some((key, _)) = callback.options.iter().find(|(k, _)| matches!(k.as_str(), "if" | "unless" | "prepend")) {
        Some(format!("a callback with `{key}:` is dropped"))
    } else if let Some((key, _)) =
        callback.options.iter().find(|(k, _)| k != "on").filter(|_| callback.targets.iter().all(|t| is_method_name(t)))
    {
        // The compiler reads `on:` and nothing else beside a callback's method names.
        Some(format!("a callback with `{key}:` is dropped (only `on:` is read)"))
    } else if let Some((_, value)) = callback.options.iter().find(|(k, _)| k == "on") {
        let sugar = matches!(kind, "after_create_commit" | "after_update_commit" | "after_destroy_commit");
        if matches!(value, Value::Array(_)) {
            Some("`on:` with a list is not read".to_owned())
        } else if sugar {
            Some(format!("`on:` beside `{kind}` is not read"))
        } else if !matches!(value.as_name(), Some("create" | "update" | "destroy")) {
            Some("`on:` is read only as `:create`, `:update` or `:destroy`".to_owned())
        } else if !validation_or_commit {
            Some(format!("`on:` is read on validation and commit callbacks only, not on `{kind}`"))
        } else {
            None
        }
    } else if callback.targets.iter().any(|t| t != "{ block }" && !is_method_name(t)) {
        Some("a lambda or a callbacks object is not run, only a method name or a block".to_owned())
    } else {
        None
    };
    match reason {
        Some(reason) => {
            let f = finding(
                rule!("model.callback-form"),
                callback.span,
                format!(
                    "This callback never runs in the compiled model: {reason}. Instead, name a method and test the condition inside it.{PRINTED}{kind} not supported (all targets)\" for this line.)"
                ),
            );
            dropped(callback.span, Kind::Callback, f)
        }
        None => {
            let mut emitted = vec![format!("  def {kind}")];
            emitted.extend(
                callback.targets.iter().map(|t| if is_method_name(t) { format!("    {t}") } else { "    # (the block's body)".to_owned() }),
            );
            emitted.push("  end".to_owned());
            Lowered {
                span: callback.span,
                fate: Fate::Kept,
                findings: Vec::new(),
                emitted,
                hint: Some(format!("runs in {kind}")),
                kind: Kind::Callback,
                construct: String::new(),
            }
        }
    }
}

fn scope_item(scope: &crate::rails::model::Scope, own_table: &str, rejected: bool) -> Lowered {
    let body = scope.body.trim_start();
    // Whether the ingest reads the body is decided on Prism's tree (`prism_ingest`).
    if rejected {
        let f = finding(
            rule!("model.scope-body"),
            scope.span,
            format!(
                "Roundhouse reads a scope's body only from a lambda written in place (`-> {{ … }}` or `lambda {{ … }}`): `scope :{}` stops the compile (\"scope body must be a lambda\"). Instead, write `scope :{}, -> {{ … }}`.",
                scope.name, scope.name
            ),
        );
        return Lowered::rejected(scope.span, f, Kind::Scope, format!("scope :{}", scope.name));
    }
    let sql = fold_scope(body);
    let hint = match &sql {
        Some(sql) => format!("SQL: SELECT … FROM {own_table} {sql}"),
        None => "dynamic".to_owned(),
    };
    let emitted = vec![match &sql {
        Some(sql) => format!("  # scope :{}: SELECT * FROM {own_table} {sql}", scope.name),
        None => format!("  # scope :{}: a relation built at run time", scope.name),
    }];
    Lowered {
        span: scope.span,
        fate: Fate::Kept,
        findings: Vec::new(),
        emitted,
        hint: Some(hint),
        kind: Kind::Scope,
        construct: String::new(),
    }
}

fn enum_item(enumeration: &crate::rails::model::Enum, rejected: bool) -> Lowered {
    let labels: Vec<(String, String)> = match &enumeration.values {
        Value::Hash(pairs) => pairs.iter().map(|(k, v)| (k.as_name().unwrap_or("").to_owned(), v.to_string())).collect(),
        Value::Array(items) => items.iter().enumerate().map(|(i, v)| (v.as_name().unwrap_or("").to_owned(), i.to_string())).collect(),
        _ => Vec::new(),
    };
    // Whether the ingest reads the mapping is decided on Prism's tree (`prism_ingest`).
    if rejected {
        let f = finding(
            rule!("model.enum-mapping"),
            enumeration.span,
            format!(
                "Roundhouse reads an enum's mapping only from a literal array of names, or a braced hash of names to strings or integers: `enum :{}` stops the compile (\"enum mapping must be an array or hash literal\"). Instead, write the mapping in place, in braces (`enum :status, {{ draft: 0, live: 1 }}`).",
                enumeration.name
            ),
        );
        return Lowered::rejected(enumeration.span, f, Kind::Enum, format!("enum :{}", enumeration.name));
    };
    let emitted = labels
        .iter()
        // A label that is no method name (`1_to_100`) gets no predicate Ruby could call.
        .filter(|(l, _)| {
            !l.is_empty() && !l.starts_with(|c: char| c.is_ascii_digit()) && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .map(|(label, value)| {
            let value = if value.chars().all(|c| c.is_ascii_digit()) { value.clone() } else { ruby_string(value.trim_matches('"')) };
            format!("  def {label}? = @{} == {value}", enumeration.name)
        })
        .collect();
    Lowered {
        span: enumeration.span,
        fate: Fate::Kept,
        findings: Vec::new(),
        emitted,
        hint: None,
        kind: Kind::Enum,
        construct: String::new(),
    }
}

/// What Roundhouse's line on `include` means for the app: nothing, for ActiveModel's modules (which it
/// models) and for the app's own modules (the compiled class includes them, their `included` blocks
/// spliced in); for a module the app does not define, that the compiled app must load it. `foreign`
/// is what the app is known not to define (`None` before the app is known: both are said).
pub fn include_finding(model: &Model, call: &crate::rails::Macro, foreign: Option<&[&str]>) -> Diagnostic {
    let modules: Vec<&str> = call.arguments.iter().filter_map(Value::as_name).collect();
    let framework = modules.iter().all(|m| m.starts_with("ActiveModel::"));
    let (severity, consequence) = match foreign {
        _ if framework => {
            (Severity::Info, "Nothing is lost: Roundhouse models ActiveModel itself and leaves this `include` out.".to_owned())
        }
        Some([]) => (
            Severity::Info,
            format!(
                "The include itself loses nothing: the compiled class still includes {}, the app's own (a concern's `included` block is spliced in), and whatever of the module is dropped is reported on its own lines.",
                modules.join(", ")
            ),
        ),
        Some(foreign) => (
            Severity::Warning,
            format!(
                "The compiled class still includes {} (a concern's `included` block is spliced in), and the app does not define {}: the compiled app must load the gem that does, or the class fails to load.",
                modules.join(", "),
                foreign.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
            ),
        ),
        None => (
            Severity::Warning,
            format!(
                "The compiled class still includes {} (a concern's `included` block is spliced in): nothing is lost when the module is the app's own, while a gem's module must be loadable by the compiled app.",
                modules.join(", ")
            ),
        ),
    };
    let mut f = unsupported(call.span, "include", &model.class_name, consequence);
    f.severity = severity;
    f
}

fn include_item(model: &Model, call: &crate::rails::Macro) -> Lowered {
    let modules: Vec<&str> = call.arguments.iter().filter_map(Value::as_name).collect();
    let verb = call.name.as_str();
    if verb != "include" {
        let f = unsupported(
            call.span,
            verb,
            &model.class_name,
            format!("`{verb} {}` is dropped: the methods it would add are missing from the compiled class.", modules.join(", ")),
        );
        return dropped(call.span, Kind::Macro, f);
    }
    let framework = modules.iter().all(|m| m.starts_with("ActiveModel::"));
    let f = include_finding(model, call, None);
    let emitted = if framework {
        vec!["  # include ActiveModel::…: modelled by Roundhouse".to_owned()]
    } else {
        vec![format!("  include {}", modules.join(", "))]
    };
    Lowered {
        span: call.span,
        fate: Fate::KeptWithWarning,
        findings: vec![f],
        emitted,
        hint: None,
        kind: Kind::Macro,
        construct: String::new(),
    }
}

fn attribute_item(model: &Model, attribute: &crate::rails::model::Attribute) -> Lowered {
    let kind = attribute.kind.as_str();
    match kind {
        "attr_accessor" | "attr_reader" | "attr_writer" => {
            let mut f = unsupported(
                attribute.span,
                kind,
                &model.class_name,
                format!(
                    "Nothing is lost: the compiled class has the {} all the same.",
                    if kind == "attr_reader" { "readers" } else { "accessors" }
                ),
            );
            f.severity = Severity::Info;
            let mut emitted = Vec::new();
            // `attr_accessor :ready?` raises NameError in Ruby: no method of it.
            for name in attribute.names.iter().filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_')) {
                if kind != "attr_writer" {
                    emitted.push(format!("  def {name} = @{name}"));
                }
                if kind != "attr_reader" {
                    // A setter cannot be an endless method.
                    emitted.push(format!("  def {name}=(value)"));
                    emitted.push(format!("    @{name} = value"));
                    emitted.push("  end".to_owned());
                }
            }
            Lowered {
                span: attribute.span,
                fate: Fate::KeptWithWarning,
                findings: vec![f],
                emitted,
                hint: None,
                kind: Kind::Macro,
                construct: String::new(),
            }
        }
        "attribute" if attribute.attribute_type.is_some() && attribute.options.is_empty() => Lowered {
            span: attribute.span,
            fate: Fate::Kept,
            findings: Vec::new(),
            emitted: Vec::new(),
            hint: None,
            kind: Kind::Macro,
            construct: String::new(),
        },
        // `attribute :tags, array: true` (options, no type): dropped without a word.
        "attribute" if attribute.attribute_type.is_none() => {
            let f = finding(
                rule!("model.unsupported-macro"),
                attribute.span,
                format!(
                    "Roundhouse drops `attribute :{}` without a word: the compiled class has no such attribute. It reads `attribute :name, :type` (a type, no options).",
                    attribute.names.first().map_or("name", String::as_str)
                ),
            );
            dropped(attribute.span, Kind::Macro, f)
        }
        _ => {
            let f = unsupported(
                attribute.span,
                kind,
                &model.class_name,
                if kind == "store_accessor" {
                    format!(
                        "`store_accessor` is dropped: the compiled class has no {} (they stay inside the store column).",
                        names(&attribute.names)
                    )
                } else {
                    "This attribute is missing from the compiled class: only `attribute :name, :type` (no default, no options) is read."
                        .to_owned()
                },
            );
            dropped(attribute.span, Kind::Macro, f)
        }
    }
}

/// Macros Roundhouse reads without a word.
const READ_MACROS: &[&str] =
    &["has_secure_password", "has_secure_token", "broadcasts_to", "typed_store", "has_json", "primary_abstract_class"];

fn macro_item(model: &Model, call: &crate::rails::Macro) -> Option<Lowered> {
    let name = call.name.as_str();
    // A call on a receiver (`self.inheritance_column = …` reads as an assignment) is never reported.
    if name.contains('.') || READ_MACROS.contains(&name) || (name == "has_rich_text" && call.options.is_empty()) {
        return None;
    }
    // `private def x`: the method itself is lost (`syntax.def-in-expression` says so).
    if matches!(name, "private" | "protected")
        && call.arguments.iter().any(|a| matches!(a, crate::syntax::value::Value::Code(code) if code.starts_with("def ")))
    {
        return None;
    }
    let consequence = match name {
        "private" | "protected" => format!("The methods below `{name}` are public in the compiled class."),
        "has_one_attached" => "The compiled class only gets a reader that finds the attachment: no blob, variants or uploads.".to_owned(),
        "default_scope" => "`default_scope` is dropped: the compiled queries return the records it would hide.".to_owned(),
        "serialize" => "`serialize` is dropped: the column is read and written as the plain string the database holds.".to_owned(),
        "normalizes" => "`normalizes` is dropped: values are saved as given.".to_owned(),
        "accepts_nested_attributes_for" => {
            "`accepts_nested_attributes_for` is dropped: the compiled model has no `…_attributes=` writer, so nested form fields are lost."
                .to_owned()
        }
        "has_many_attached" => "`has_many_attached` is dropped: the compiled class has no attachments reader.".to_owned(),
        "has_rich_text" => "`has_rich_text` with options is dropped: the compiled class has no rich-text reader.".to_owned(),
        _ => format!("`{name}` is dropped: its effect is missing from the compiled class."),
    };
    let f = unsupported(call.span, name, &model.class_name, consequence);
    Some(if matches!(name, "private" | "protected" | "has_one_attached") {
        let emitted = vec![format!("  # {name}: {}", first_sentence(&f.message))];
        Lowered {
            span: call.span,
            fate: Fate::Changed,
            findings: vec![f],
            emitted,
            hint: None,
            kind: Kind::Macro,
            construct: String::new(),
        }
    } else {
        dropped(call.span, Kind::Macro, f)
    })
}

/// `-> { where(published: true).order(created_at: :desc) }` → `WHERE published = ? ORDER BY created_at
/// DESC`; `None` when the chain does not fold (parameters, non-literal arguments, other methods).
pub fn fold_scope(body: &str) -> Option<String> {
    let inner = body.trim().strip_prefix("->")?.trim_start();
    if inner.starts_with('(') {
        return None; // Parameters: decided per call.
    }
    let chain = inner.strip_prefix('{')?.strip_suffix('}')?.trim();
    let mut sql = Vec::new();
    for link in split_chain(chain)? {
        let (method, args) = link.split_once('(').map(|(m, a)| (m, a.strip_suffix(')').unwrap_or(a))).unwrap_or((link.as_str(), ""));
        let pairs = || args.split(',').map(str::trim).filter(|a| !a.is_empty());
        match method.trim() {
            "where" => {
                let conditions: Vec<String> = pairs()
                    .map(|p| p.split(':').next().unwrap_or("").trim().to_owned())
                    .filter(|c| !c.is_empty() && !c.contains(' '))
                    .map(|c| format!("{c} = ?"))
                    .collect();
                if conditions.is_empty() {
                    return None;
                }
                sql.push(format!("WHERE {}", conditions.join(" AND ")));
            }
            "order" => {
                let terms: Vec<String> = pairs()
                    .map(|p| match p.split_once(':') {
                        Some((column, direction)) if !column.is_empty() => {
                            format!("{} {}", column.trim(), direction.trim().trim_start_matches(':').to_uppercase())
                        }
                        _ => p.trim_start_matches(':').to_owned(),
                    })
                    .collect();
                sql.push(format!("ORDER BY {}", terms.join(", ")));
            }
            "limit" if args.trim().parse::<u64>().is_ok() => sql.push(format!("LIMIT {}", args.trim())),
            _ => return None,
        }
    }
    (!sql.is_empty()).then(|| sql.join(" "))
}

/// `where(a: 1).order(:x)` → [`where(a: 1)`, `order(:x)`], at top-level dots only.
fn split_chain(chain: &str) -> Option<Vec<String>> {
    let mut links = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in chain.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '.' if depth == 0 => {
                links.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    links.push(current);
    (depth == 0 && links.iter().all(|l| !l.trim().is_empty())).then_some(links)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::file_diagnostics;
    use crate::roundhouse::tree::{Target, map_file};

    /// The rule, the preview and the inlay hint tell one story for every model statement of every
    /// fixture app: each finding the lowering makes is reported at its line, named in the preview's
    /// body at that line and in the hints at the end of it; a statement it drops leaves no code in the
    /// preview; a statement kept as Rails runs it is named by no rule anywhere.
    #[test]
    fn rule_preview_and_hint_tell_the_same_story() {
        let (mut statements, mut findings) = (0, 0);
        let dirs = ["examples/blog", "tests/fixtures/apps/shop", "tests/fixtures/apps/rules", "tests/fixtures/apps/monorepo"];
        crate::test_fixture::each_app(&dirs, |context, derived, app_facts| {
            let tables = |name: &str| context.files.iter().filter_map(|f| f.schema.as_ref()).find_map(|s| s.table(name));
            for facts in context.files.iter().filter(|f| !f.models.is_empty()) {
                let bodies = super::super::ingest::bodies(facts);
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let text = std::fs::read_to_string(&facts.path).unwrap();
                let preview =
                    super::super::preview::preview(facts, &text, context, &map_file(facts, app_facts), &diagnostics, Target::Ruby);
                let lines: Vec<&str> = preview.text.lines().collect();
                // The preview's body: what it maps to a source line after the class line (the header
                // lists every finding, which would make the check hollow).
                let class_line = lines.iter().position(|l| l.starts_with("class ")).unwrap_or(0) as u32;
                let body_at = |line: u32| -> Vec<&str> {
                    preview.mapping.iter().filter(|(p, s)| *p > class_line && *s == line).map(|(p, _)| lines[*p as usize]).collect()
                };
                let hints = crate::ide::inlay::inlay_hints(facts, context, &diagnostics);
                let hints_at =
                    |line: u32| -> Vec<String> { hints.iter().filter(|h| h.position.line == line).map(|h| h.label.clone()).collect() };
                for model in facts.models.iter().filter(|m| bodies.get(&m.span.start()) == Some(&super::super::ingest::Body::Full)) {
                    for item in lower(model, &tables) {
                        statements += 1;
                        let line = item.span.start.line;
                        let place = format!("{}:{}", facts.path.display(), line + 1);
                        let body = body_at(line);
                        for finding in &item.findings {
                            findings += 1;
                            assert!(
                                diagnostics.iter().any(|d| d.rule == finding.rule && d.span.start.line == line),
                                "{place}: {} is not reported",
                                finding.rule
                            );
                            assert!(
                                body.iter().any(|l| l.contains(finding.rule.as_str())),
                                "{place}: the preview does not say {}: {body:?}",
                                finding.rule
                            );
                            assert!(
                                hints_at(line).iter().any(|h| h.contains(finding.rule.as_str())),
                                "{place}: no hint says {}",
                                finding.rule
                            );
                        }
                        match item.fate {
                            Fate::Dropped | Fate::Rejected => assert!(
                                body.iter().all(|l| l.trim_start().starts_with('#')),
                                "{place}: dropped, yet the preview has code for it: {body:?}"
                            ),
                            Fate::Kept => {
                                assert!(
                                    !diagnostics
                                        .iter()
                                        .any(|d| d.span.start.line == line && d.rule.family() == crate::catalogue::Family::Model),
                                    "{place}: kept, yet a model rule fires"
                                );
                                assert!(!hints_at(line).iter().any(|h| h.contains("⚠ model.")), "{place}: kept, yet a hint flags it");
                            }
                            _ => {}
                        }
                    }
                }
            }
        });
        assert!(statements >= 60 && findings >= 30, "the fixture apps' models: {statements} statements, {findings} findings");
    }

    /// The join table Rails names for a `has_and_belongs_to_many` pair (ActiveRecord's own examples:
    /// `developers_projects`, and a shared `catalog_` prefix written once).
    #[test]
    fn habtm_join_table_is_named_as_rails_names_it() {
        assert_eq!(habtm_join_table("projects", "developers"), "developers_projects");
        assert_eq!(habtm_join_table("products", "tags"), "products_tags");
        assert_eq!(habtm_join_table("catalog_products", "catalog_categories"), "catalog_categories_products");
        assert_eq!(habtm_join_table("paper_boxes", "papers"), "paper_boxes_papers");
        assert_eq!(habtm_join_table("music_artists", "music_records"), "music_artists_records");
    }
}

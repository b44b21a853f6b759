//! What Devise's `devise_for` draws, worked out from the app's files as Devise's router does it: the
//! model's `devise` modules pick the route groups (sessions, passwords, registrations, confirmations,
//! unlocks, OmniAuth callbacks), the initializer's `Devise.setup` settles the rest (the unlock
//! strategy, the OmniAuth providers, the sign-out verb). Route expansion turns each group into the
//! `resource`/`match` calls Devise itself makes (`route_table`), so names, paths and verbs come out
//! of the same mapper as the app's own routes.
//!
//! Where the app's files do not decide (a module added under a condition or by a concern, a module
//! from another gem, a model Switchyard cannot find), the mapping is unknown: its routes are not
//! listed, and only route names containing its name are left unchecked.

use std::collections::HashMap;
use std::sync::Arc;

use super::FileFacts;
use crate::syntax::outline::{Item, NamespaceKind};
use crate::syntax::value::Value;

/// Devise's own modules in its order (`Devise::ALL`), with the route group each draws.
const MODULES: &[(&str, Option<Group>)] = &[
    ("database_authenticatable", Some(Group::Session)),
    ("rememberable", None),
    ("omniauthable", Some(Group::OmniauthCallback)),
    ("recoverable", Some(Group::Password)),
    ("registerable", Some(Group::Registration)),
    ("validatable", None),
    ("confirmable", Some(Group::Confirmation)),
    ("lockable", Some(Group::Unlock)),
    ("timeoutable", None),
    ("trackable", None),
];

/// Modules of other gems known to draw no routes (devise-two-factor's strategies).
const ROUTELESS_EXTENSIONS: &[&str] = &["two_factor_authenticatable", "two_factor_backupable"];

/// devise_invitable's `:invitable`: the generic helpers it adds (its `URL_HELPERS` entry). Its
/// routes are not listed; names containing the mapping's name are left unchecked.
pub const INVITABLE_HELPERS: &[&str] = &["invitation", "new_invitation", "accept_invitation", "remove_invitation"];

/// What a mapping's model declares that Switchyard cannot draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    /// Its routes, for the reason given: they are all named after the mapping (`…_user_…`).
    Routes(&'static str),
    /// A module of another gem: it may define helpers of any name.
    Anything,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Session,
    OmniauthCallback,
    Password,
    Registration,
    Confirmation,
    Unlock,
}

impl Group {
    pub const ALL: &[Group] =
        &[Group::Session, Group::OmniauthCallback, Group::Password, Group::Registration, Group::Confirmation, Group::Unlock];

    /// The name `only:`/`skip:` use, singular (`:sessions` → `session`), and the controller's.
    pub fn name(self) -> &'static str {
        match self {
            Group::Session => "session",
            Group::OmniauthCallback => "omniauth_callback",
            Group::Password => "password",
            Group::Registration => "registration",
            Group::Confirmation => "confirmation",
            Group::Unlock => "unlock",
        }
    }

    pub fn controller(self) -> &'static str {
        match self {
            Group::Session => "sessions",
            Group::OmniauthCallback => "omniauth_callbacks",
            Group::Password => "passwords",
            Group::Registration => "registrations",
            Group::Confirmation => "confirmations",
            Group::Unlock => "unlocks",
        }
    }

    /// The helpers Devise defines for every mapping that has the group (`new_session_path(:user)`).
    pub fn generic_helpers(self) -> &'static [&'static str] {
        match self {
            Group::Session => &["session", "new_session", "destroy_session"],
            Group::OmniauthCallback => &["omniauth_authorize", "omniauth_callback"],
            Group::Password => &["password", "new_password", "edit_password"],
            Group::Registration => &["registration", "new_registration", "edit_registration", "cancel_registration"],
            Group::Confirmation => &["confirmation", "new_confirmation"],
            Group::Unlock => &["unlock", "new_unlock"],
        }
    }
}

/// A Devise model as `devise_for` sees it: its route groups in Devise's order, its OmniAuth
/// providers, whether its unlock strategy mails a link.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    pub groups: Vec<Group>,
    pub providers: Vec<String>,
}

/// The app's Devise setup: its models' `devise` calls and its `Devise.setup`.
#[derive(Debug, Clone, Default)]
pub struct Devise {
    /// Class name → the model's `devise` calls (options as written), and its superclass.
    models: HashMap<String, (Vec<DeviseCall>, Option<String>)>,
    /// Modules an app concern adds with `devise` in its `included` block.
    concerns: Vec<String>,
    /// Class name → the concerns it includes.
    includes: HashMap<String, Vec<String>>,
    /// `config.omniauth :x` in `Devise.setup`; `None` when one is conditional or not a literal.
    providers: Option<Vec<String>>,
    /// `config.unlock_strategy`: `None` when it is not a literal symbol.
    unlock_strategy: Option<String>,
    /// `config.sign_out_via`, when set.
    pub sign_out_via: Option<Value>,
    /// `config.omniauth_path_prefix`, when set to a literal.
    pub omniauth_path_prefix: Option<String>,
}

#[derive(Debug, Clone)]
struct DeviseCall {
    modules: Vec<Value>,
    options: Vec<(String, Value)>,
}

impl Devise {
    pub fn of(files: &[Arc<FileFacts>]) -> Devise {
        let mut devise = Devise { unlock_strategy: Some("both".to_owned()), providers: Some(Vec::new()), ..Devise::default() };
        for file in files {
            for model in &file.models {
                let calls: Vec<DeviseCall> = model
                    .macros
                    .iter()
                    .filter(|m| m.name == "devise")
                    .map(|m| DeviseCall { modules: m.arguments.clone(), options: m.options.clone() })
                    .collect();
                let includes: Vec<String> = model.concerns.iter().flat_map(|c| c.arguments.iter().filter_map(constant)).collect();
                devise.includes.insert(model.class_name.clone(), includes);
                if !calls.is_empty() || !devise.models.contains_key(&model.class_name) {
                    devise.models.insert(model.class_name.clone(), (calls, model.superclass.clone()));
                }
            }
            concerns_calling_devise(&file.outline.items, &mut devise.concerns);
            if file.relative_path.starts_with("config/initializers/")
                && let Some(config) = &file.config
            {
                for assignment in &config.assignments {
                    match assignment.key.as_str() {
                        "unlock_strategy" => devise.unlock_strategy = assignment.value.as_name().map(str::to_owned),
                        "sign_out_via" => devise.sign_out_via = Some(assignment.value.clone()),
                        "omniauth_path_prefix" => devise.omniauth_path_prefix = assignment.value.as_name().map(str::to_owned),
                        _ => {}
                    }
                }
                for (provider, uncertain) in &config.omniauth_providers {
                    match (&mut devise.providers, uncertain) {
                        (Some(list), false) => list.push(provider.clone()),
                        (providers, _) => *providers = None,
                    }
                }
            }
        }
        devise
    }

    /// The mapping of `class_name`, or `None` when the app's files do not decide its routes.
    pub fn mapping(&self, class_name: &str) -> Result<Mapping, Unknown> {
        if self.extension_modules(class_name) {
            return Err(Unknown::Anything);
        }
        self.mapping_of(class_name).map_err(Unknown::Routes)
    }

    /// Whether the model (or a parent) names a module Devise does not define, other than
    /// devise_invitable's and the route-less ones.
    fn extension_modules(&self, class_name: &str) -> bool {
        self.lineage(class_name)
            .iter()
            .flat_map(|(_, own)| own.iter().flat_map(|c| &c.modules))
            .filter_map(Value::as_name)
            .any(|m| !known_module(m) && m != "invitable")
    }

    /// The model and the superclasses of it the app defines, nearest first (at most 16, so a cycle
    /// ends), each with its own `devise` calls.
    fn lineage(&self, class_name: &str) -> Vec<(&str, &[DeviseCall])> {
        let mut out = Vec::new();
        let mut current = class_name.trim_start_matches("::");
        while let Some((name, (own, superclass))) = self.models.get_key_value(current).filter(|_| out.len() < 16) {
            out.push((name.as_str(), own.as_slice()));
            match superclass {
                Some(parent) => current = parent.trim_start_matches("::"),
                None => break,
            }
        }
        out
    }

    fn mapping_of(&self, class_name: &str) -> Result<Mapping, &'static str> {
        let lineage = self.lineage(class_name);
        if lineage.is_empty() {
            return Err("the app defines no such model");
        }
        let mut calls = Vec::new();
        for (name, own) in lineage {
            if self.includes.get(name).is_some_and(|included| included.iter().any(|c| self.concerns.contains(c))) {
                return Err("a concern it includes calls `devise`");
            }
            calls.splice(0..0, own.iter().cloned());
        }
        if calls.is_empty() {
            return Err("the model calls no `devise`");
        }
        // `devise_modules |= selected`, each call's modules in Devise's order.
        let mut modules: Vec<&str> = Vec::new();
        let mut providers: Option<Vec<String>> = None;
        let mut unlock_strategy = self.unlock_strategy.clone();
        for call in &calls {
            if call.options.iter().any(|(k, _)| k == "if" || k == "unless") {
                return Err("its `devise` call is under a condition");
            }
            let mut selected = Vec::new();
            for module in &call.modules {
                let name = module.as_name().ok_or("its `devise` modules are not written out as symbols")?;
                if !known_module(name) {
                    // devise_invitable's `:invitable` draws routes of its own.
                    return Err("it uses another gem's Devise module, whose routes are not listed");
                }
                selected.push(name);
            }
            selected.sort_by_key(|m| MODULES.iter().position(|(known, _)| known == m).unwrap_or(0));
            for module in selected {
                if !modules.contains(&module) {
                    modules.push(module);
                }
            }
            for (key, value) in &call.options {
                match key.as_str() {
                    "omniauth_providers" => {
                        let unread = "its OmniAuth providers are not written out";
                        let Value::Array(items) = value else { return Err(unread) };
                        providers = Some(items.iter().map(|v| v.as_name().map(str::to_owned)).collect::<Option<Vec<_>>>().ok_or(unread)?);
                    }
                    "unlock_strategy" => unlock_strategy = value.as_name().map(str::to_owned),
                    _ => {}
                }
            }
        }
        let mut groups: Vec<Group> = Vec::new();
        for module in &modules {
            if let Some((_, Some(group))) = MODULES.iter().find(|(m, _)| m == module)
                && !groups.contains(group)
            {
                groups.push(*group);
            }
        }
        if groups.contains(&Group::Unlock) {
            match unlock_strategy.as_deref() {
                Some("email" | "both") => {}
                Some(_) => groups.retain(|g| *g != Group::Unlock),
                None => return Err("its unlock strategy is not written out"),
            }
        }
        let providers = if groups.contains(&Group::OmniauthCallback) {
            match providers {
                Some(list) => list,
                None => self.providers.clone().ok_or("Devise's OmniAuth providers are set under a condition")?,
            }
        } else {
            Vec::new()
        };
        Ok(Mapping { groups, providers })
    }
}

/// A module Devise defines, or one of another gem known to draw no routes.
fn known_module(name: &str) -> bool {
    MODULES.iter().any(|(known, _)| *known == name) || ROUTELESS_EXTENSIONS.contains(&name)
}

fn constant(value: &Value) -> Option<String> {
    match value {
        Value::Constant(name) => Some(name.trim_start_matches("::").to_owned()),
        _ => None,
    }
}

/// Modules whose `included do … end` calls `devise`.
fn concerns_calling_devise(items: &[Item], out: &mut Vec<String>) {
    for item in items {
        if let Item::Namespace(ns) = item {
            if ns.kind == NamespaceKind::Module && ns.items.iter().any(calls_devise) {
                out.push(ns.name.trim_start_matches("::").to_owned());
            }
            concerns_calling_devise(&ns.items, out);
        }
    }
}

fn calls_devise(item: &Item) -> bool {
    match item {
        Item::Call(call) if call.method == "devise" && call.receiver.is_none() => true,
        Item::Call(call) => call.block.as_ref().is_some_and(|b| b.items.iter().any(calls_devise)),
        Item::Conditional(branch) => branch.then_items.iter().chain(&branch.else_items).any(calls_devise),
        _ => false,
    }
}

/// Whether any of these calls (at any depth) is a `devise_for`.
pub fn draws_devise(calls: &[super::routes::RouteCall]) -> bool {
    calls.iter().any(|c| c.method == "devise_for" || draws_devise(&c.children))
}

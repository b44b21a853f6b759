//! The route table: `config/routes.rb` (and the files it draws) expanded with Rails' routing semantics
//! (Rails 7.1–8), from the call structure `routes` read — no Ruby, no app. The scope stack mirrors
//! ActionDispatch's `Mapper`: `scope`/`namespace`/`controller`/`defaults`/`constraints` merge their
//! options into a child scope; `resources`/`resource` open a resource scope whose `collection`,
//! `member`, `new` and `nested` blocks set the scope level that route naming depends on.
//!
//! What it does not do: evaluate Ruby (a route built in a loop or from a variable is reported as
//! dynamic and skipped), or list the routes of mounted engines.

use std::collections::HashMap;

use serde::Serialize;

use super::routes::RouteCall;
use crate::syntax::Span;
use crate::syntax::value::Value;

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Route {
    /// `GET`, `GET|POST` for `match … via: [:get, :post]`, empty for `via: :all` and mounts.
    pub verb: String,
    /// As `bin/rails routes` prints it: `/posts/:id(.:format)`.
    pub path: String,
    /// `posts#show`, `redirect(301, /posts)`, or a mounted app's source (`ActionCable.server`).
    pub endpoint: String,
    /// Defaults and constraints as Rails appends them to the endpoint: `{format: :json}`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub requirements: String,
    /// The patterns its segments must match, each inspected as Ruby does: `("id", "/\d+/")`.
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::pairs_map")]
    pub constraints: Vec<(String, String)>,
    /// Its defaults, inspected: `("format", "\"html\"")`.
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "super::pairs_map")]
    pub defaults: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The route name (`post` → `post_path`); `None` where Rails prints none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub kind: RouteKind,
    /// The routes file the call is in, relative to the app root.
    pub file: String,
    /// The call that produced the route.
    pub span: Span,
    /// The enclosing calls, outermost first: `namespace :admin`, `resources :posts`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chain: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "lowercase")]
pub enum RouteKind {
    Action,
    Mount,
    Redirect,
}

impl Route {
    /// `posts#show {format: :json}`: the Controller#Action column.
    pub fn controller_action(&self) -> String {
        if self.requirements.is_empty() { self.endpoint.clone() } else { format!("{} {}", self.endpoint, self.requirements) }
    }
}

/// A URL helper that is not a route (`direct :homepage`): it still defines `homepage_url`.
#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct CustomHelper {
    pub name: String,
    pub file: String,
    pub span: Span,
}

/// Something in a routes file that expansion had to skip or could not read, with the call's span.
#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Skipped {
    pub method: String,
    pub reason: String,
    pub file: String,
    pub span: Span,
    /// Where a diagnostic names the call: its method name (an `if`: its condition).
    #[serde(skip)]
    pub name_span: Span,
    /// The call is wrong for Rails too (a `get` without a path, a `draw` of a missing file): Rails
    /// raises when it draws it. Otherwise it is something Switchyard does not evaluate.
    pub invalid: bool,
    /// The route names the call may define that the table does not list.
    pub may_define: MayDefine,
}

/// The names of the routes a skipped call may define.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, bincode::Encode, bincode::Decode)]
#[serde(rename_all = "lowercase")]
pub enum MayDefine {
    /// None: Rails rejects the call, or it is not a route at all.
    Nothing,
    /// Names containing this word (`oauth` for Doorkeeper's `use_doorkeeper`, `user` for a
    /// `devise_for :users` whose model's modules are not known).
    Containing(String),
    /// Any name: the call runs code Switchyard does not read.
    Any,
}

impl MayDefine {
    /// Whether a route named `name` could be one the call defines.
    pub fn covers(&self, name: &str) -> bool {
        match self {
            MayDefine::Nothing => false,
            MayDefine::Any => true,
            MayDefine::Containing(word) => {
                name.split('_').collect::<Vec<_>>().windows(word.split('_').count()).any(|w| w.join("_") == *word)
            }
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct RouteTable {
    pub routes: Vec<Route>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub helpers: Vec<CustomHelper>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Skipped>,
    /// The names of the routes an engine draws in the app's routes files
    /// (`Spree::Core::Engine.routes.draw`): its helpers, in its controllers and views.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub engine_names: Vec<String>,
}

impl RouteTable {
    pub fn named(&self, name: &str) -> Option<&Route> {
        self.routes.iter().find(|r| r.name.as_deref() == Some(name))
    }
}

/// The files routes are read from: `config/routes.rb` first, then the files `draw` may name.
pub struct RouteSources<'a> {
    /// The files Rails draws the app's routes from, in order: `config/routes.rb`, or the files
    /// `config.paths["config/routes.rb"]` lists.
    pub main: Vec<(&'a str, &'a [RouteCall])>,
    /// Where `config.paths["config/routes.rb"]` is changed in a way Switchyard cannot read.
    pub unknown_files: Option<(&'a str, Span)>,
    /// Blocks drawing an engine's routes in the app's routes files.
    pub engines: Vec<(&'a str, &'a [RouteCall])>,
    /// The app's Devise models and setup, for `devise_for`.
    pub devise: Option<&'a super::devise::Devise>,
    /// For an engine's `Billing::Engine.routes.draw`: `billing`, the module its controllers live in
    /// (as `isolate_namespace Billing` makes them).
    pub engine_module: Option<String>,
    /// `admin` → (`config/routes/admin.rb`, its calls).
    pub drawn: HashMap<String, (&'a str, &'a [RouteCall])>,
    /// The app's own inflections (`inflect.uncountable "totp"`: `resource :totp` reaches `totp`, not
    /// `totps`; `inflect.singular`, `plural`, `irregular`).
    pub inflections: super::inflect::AppInflections,
}

impl<'a> RouteSources<'a> {
    /// One routes file and nothing else: no drawn files, engines or Devise.
    pub fn of(file: &'a str, calls: &'a [RouteCall]) -> RouteSources<'a> {
        RouteSources {
            main: vec![(file, calls)],
            unknown_files: None,
            engines: Vec::new(),
            devise: None,
            engine_module: None,
            drawn: HashMap::new(),
            inflections: Default::default(),
        }
    }
}

pub fn expand(sources: &RouteSources<'_>) -> RouteTable {
    let root = Scope { module: sources.engine_module.clone(), ..Scope::default() };
    let mut mapper = Mapper {
        table: RouteTable::default(),
        names: Default::default(),
        scopes: vec![root],
        concerns: HashMap::new(),
        sources,
        file: "config/routes.rb",
        chain: Vec::new(),
        draw_depth: 0,
    };
    for &(file, calls) in &sources.main {
        mapper.file = file;
        mapper.calls(calls);
    }
    if let Some((file, span)) = sources.unknown_files {
        mapper.table.skipped.push(Skipped {
            method: "config.paths".to_owned(),
            reason: "which files Rails draws the routes from is set by code Switchyard does not run (`config.paths[\"config/routes.rb\"]`)"
                .to_owned(),
            file: file.to_owned(),
            span,
            name_span: span,
            invalid: false,
            may_define: MayDefine::Any,
        });
    }
    // An engine's routes: their names, from a mapper of their own.
    let mut engine_names = Vec::new();
    for &(file, calls) in &sources.engines {
        let engine_sources =
            RouteSources { devise: sources.devise, inflections: sources.inflections.clone(), ..RouteSources::of(file, calls) };
        let engine = expand(&engine_sources);
        engine_names.extend(engine.routes.into_iter().filter_map(|r| r.name));
        engine_names.extend(engine.helpers.into_iter().map(|h| h.name));
        mapper.table.skipped.extend(engine.skipped);
    }
    mapper.table.engine_names = engine_names;
    mapper.table
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode)]
enum Level {
    None,
    Resources,
    Resource,
    Collection,
    Member,
    New,
    Nested,
    Root,
}

#[derive(Debug, Clone, bincode::Encode, bincode::Decode)]
struct Resource {
    singleton: bool,
    /// The path segment: `posts` (or `path:`).
    path: String,
    /// `post`.
    member_name: String,
    /// `posts` (the member name for a singleton).
    collection_name: String,
    /// `id` (or `param:`).
    param: String,
    only: Option<Vec<String>>,
    except: Vec<String>,
}

impl Resource {
    fn nested_param(&self) -> String {
        format!("{}_{}", self.member_name, self.param)
    }

    fn default_actions(&self) -> &'static [&'static str] {
        if self.singleton {
            &["show", "create", "update", "destroy", "new", "edit"]
        } else {
            &["index", "create", "new", "show", "update", "destroy", "edit"]
        }
    }

    fn has_action(&self, action: &str) -> bool {
        self.default_actions().contains(&action)
            && self.only.as_ref().is_none_or(|only| only.iter().any(|a| a == action))
            && !self.except.iter().any(|a| a == action)
    }
}

#[derive(Debug, Clone, bincode::Encode, bincode::Decode)]
struct Scope {
    path: String,
    shallow_path: String,
    module: Option<String>,
    as_name: Option<String>,
    shallow_prefix: Option<String>,
    controller: Option<String>,
    action: Option<String>,
    path_names: Vec<(String, String)>,
    defaults: Vec<(String, Value)>,
    constraints: Vec<(String, Value)>,
    /// Options a `scope` does not know (`scope id: /\d+/`): Rails passes them to every route inside.
    options: Vec<(String, Value)>,
    format: Option<Value>,
    shallow: bool,
    level: Level,
    resource: Option<Resource>,
    /// `only:`/`except:` given to a `scope`, applied to the resources inside it.
    action_only: Option<Vec<String>>,
    action_except: Vec<String>,
}

impl Default for Scope {
    fn default() -> Scope {
        Scope {
            path: String::new(),
            shallow_path: String::new(),
            module: None,
            as_name: None,
            shallow_prefix: None,
            controller: None,
            action: None,
            path_names: Vec::new(),
            defaults: Vec::new(),
            constraints: Vec::new(),
            options: Vec::new(),
            format: None,
            shallow: false,
            level: Level::None,
            resource: None,
            action_only: None,
            action_except: Vec::new(),
        }
    }
}

/// Constraints that describe the host; as plain values they also become defaults.
const URL_OPTIONS: &[&str] = &["protocol", "subdomain", "domain", "host", "port"];

const CANONICAL_ACTIONS: &[&str] = &["index", "create", "new", "show", "update", "destroy"];
const VERBS: &[&str] = &["get", "post", "patch", "put", "delete", "options"];
/// Scope options `scope`/`namespace` understand; the rest become route options (`defaults` etc.).
const RESOURCE_OPTIONS: &[&str] = &["as", "controller", "path", "only", "except", "param", "concerns"];

struct Mapper<'a> {
    table: RouteTable,
    /// Names taken so far (Rails gives a later route with a taken name no name).
    names: std::collections::HashSet<String>,
    scopes: Vec<Scope>,
    concerns: HashMap<String, std::rc::Rc<[RouteCall]>>,
    sources: &'a RouteSources<'a>,
    file: &'a str,
    chain: Vec<String>,
    draw_depth: usize,
}

/// Rails' `Mapper.normalize_path` (Journey's `normalize_path`, then its optional-segment rewrite):
/// one leading slash, no doubled or trailing slashes, upper-case `%xx` escapes; a slash before an
/// optional group moves inside it (`/s/:id/(:title)` → `/s/:id(/:title)`, `/(projects/:id)/search`
/// → `(/projects/:id)/search`), and a path of optional segments only keeps its leading slash outside
/// (`/(:locale)`), unless a later group holds a static part.
fn normalize_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 1);
    out.push('/');
    for c in path.chars() {
        if c == '/' && out.ends_with('/') {
            continue;
        }
        out.push(c);
    }
    if out.len() > 1 && out.ends_with('/') {
        out.pop();
    }
    let out = if out.contains('%') { upcase_escapes(&out) } else { out };
    if !out.contains("/(") {
        return out;
    }
    // `gsub(%r{/(\(+)/?}, '\1/')`: a slash, its run of `(`, and one slash after them.
    let bytes = out.as_bytes();
    let mut moved = String::with_capacity(out.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'(') {
            let mut j = i + 1;
            while bytes.get(j) == Some(&b'(') {
                j += 1;
            }
            moved.push_str(&out[i + 1..j]);
            moved.push('/');
            i = if bytes.get(j) == Some(&b'/') { j + 1 } else { j };
        } else {
            let c = out[i..].chars().next().unwrap_or('/');
            moved.push(c);
            i += c.len_utf8();
        }
    }
    if all_optional(&moved)
        && let Some(parens) = moved.find(|c| c != '(')
        && parens > 0
        && moved[parens..].starts_with('/')
    {
        moved = format!("/{}{}", &moved[..parens], &moved[parens + 1..]);
    }
    moved
}

/// Ruby's `URI::RFC2396_PARSER.escape`, which Rails applies to a route's path before normalizing it:
/// every byte outside RFC 2396's unreserved and reserved sets becomes `%XX` (`%` itself too, so
/// `caf%c3%a9` prints as `caf%25c3%25a9`).
fn escape_path(path: &str) -> std::borrow::Cow<'_, str> {
    const SAFE: &[u8] = b"-_.!~*'();/?:@&=+$,[]";
    if path.bytes().all(|b| b.is_ascii_alphanumeric() || SAFE.contains(&b)) {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || SAFE.contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `%2f` → `%2F`, as Journey writes escapes.
fn upcase_escapes(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b));
        if bytes[i] == b'%' && hex(bytes.get(i + 1)) && hex(bytes.get(i + 2)) {
            out.push('%');
            out.push_str(&path[i + 1..i + 3].to_ascii_uppercase());
            i += 3;
        } else {
            let c = path[i..].chars().next().unwrap_or('%');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Rails' `%r{^(\(+[^)]+\))(\(+/:[^)]+\))*$}`: a first optional group, then only groups that start
/// with a dynamic segment (`(/:platform)`).
fn all_optional(path: &str) -> bool {
    // One group: a run of `(`, then at least one character that is not `)`, then `)`.
    fn group(rest: &str) -> Option<(&str, &str)> {
        let body = rest.trim_start_matches('(');
        if body.len() == rest.len() {
            return None;
        }
        let close = body.find(')')?;
        (close > 0).then(|| (&body[..close], &body[close + 1..]))
    }
    let Some((_, mut rest)) = group(path) else { return false };
    while !rest.is_empty() {
        match group(rest) {
            Some((body, after)) if body.starts_with("/:") => rest = after,
            _ => return false,
        }
    }
    true
}

fn normalize_name(name: &str) -> String {
    normalize_path(name)[1..].replace('/', "_")
}

fn value_text(value: &Value) -> String {
    value.as_name().map_or_else(|| value.to_string(), str::to_owned)
}

/// The text of `key`'s value in a hash option (`path_names: { sign_in: "login" }`).
fn hash_entry(hash: Option<&Value>, key: &str) -> Option<String> {
    match hash {
        Some(Value::Hash(pairs)) => pairs.iter().find(|(k, _)| k.as_name() == Some(key)).map(|(_, v)| value_text(v)),
        _ => None,
    }
}

fn option<'v>(options: &'v [(String, Value)], key: &str) -> Option<&'v Value> {
    options.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Ruby's `Hash#inspect` as Ruby 3.4 (Rails 8) prints it: `{format: :json, id: /\d+/}`.
fn inspect_hash(pairs: &[(String, Value)]) -> String {
    let items: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}: {}", inspect(v))).collect();
    format!("{{{}}}", items.join(", "))
}

/// One value as Ruby's `inspect` writes it.
fn inspect(value: &Value) -> String {
    match value {
        Value::Code(code) if code.starts_with('/') => code.clone(),
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

fn inspect_values(pairs: &[(String, Value)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.clone(), inspect(v))).collect()
}

impl<'a> Mapper<'a> {
    /// Active Support's `pluralize`, after the app's own inflections.
    fn pluralize(&self, word: &str) -> String {
        self.sources.inflections.pluralize(word)
    }

    fn singularize(&self, word: &str) -> String {
        self.sources.inflections.singularize(word)
    }

    fn scope(&self) -> &Scope {
        self.scopes.last().expect("the root scope is never popped")
    }

    fn push(&mut self, scope: Scope) {
        self.scopes.push(scope);
    }

    fn pop(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    /// A call Rails itself rejects when it draws the routes.
    fn skip(&mut self, call: &RouteCall, reason: impl Into<String>) {
        self.skipped(call, reason.into(), true);
    }

    /// A call whose routes Switchyard cannot work out without running the app (or its gems).
    fn cannot_expand(&mut self, call: &RouteCall, reason: impl Into<String>) {
        self.skipped(call, reason.into(), false);
    }

    fn skipped(&mut self, call: &RouteCall, reason: String, invalid: bool) {
        let may_define = if invalid { MayDefine::Nothing } else { MayDefine::Any };
        self.skipped_defining(call, reason, invalid, may_define);
    }

    fn skipped_defining(&mut self, call: &RouteCall, reason: String, invalid: bool, may_define: MayDefine) {
        self.table.skipped.push(Skipped {
            method: call.method.clone(),
            reason,
            file: self.file.to_owned(),
            span: call.span,
            name_span: call.name_span,
            invalid,
            may_define,
        });
    }

    fn calls(&mut self, calls: &[RouteCall]) {
        for call in calls {
            self.call(call);
        }
    }

    fn block(&mut self, call: &RouteCall) {
        self.chain.push(call.label());
        self.calls(&call.children);
        self.chain.pop();
    }

    fn call(&mut self, call: &RouteCall) {
        let method = call.method.as_str();
        match method {
            "resources" | "resource" => self.resources(call, method == "resource", &call.arguments, &call.options),
            "namespace" => self.namespace(call),
            "scope" => {
                let mut options = call.options.clone();
                if let Some(first) = call.arguments.first() {
                    options.insert(0, ("path".to_owned(), Value::String(value_text(first))));
                }
                self.with_scope(call, &options, |m| m.block(call));
            }
            "controller" => {
                let mut options = call.options.clone();
                options.extend(call.arguments.first().map(|c| ("controller".to_owned(), c.clone())));
                self.with_scope(call, &options, |m| m.block(call));
            }
            "defaults" | "constraints" => {
                // `defaults format: :json do` or `defaults({ format: :json }) do`.
                let pairs = match call.arguments.first() {
                    Some(hash @ Value::Hash(_)) => hash.clone(),
                    _ => Value::Hash(call.options.iter().map(|(k, v)| (Value::Symbol(k.clone()), v.clone())).collect()),
                };
                self.with_scope(call, &[(call.method.clone(), pairs)], |m| m.block(call));
            }
            "member" | "collection" | "new" | "nested" => self.resource_block(call),
            "shallow" => {
                let mut scope = self.scope().clone();
                scope.shallow = true;
                self.push(scope);
                self.block(call);
                self.pop();
            }
            "root" => self.root(call),
            "match" => self.matches(call, None),
            verb if VERBS.contains(&verb) => self.matches(call, Some(verb)),
            "mount" => self.mount(call),
            "concern" => {
                if let Some(name) = call.arguments.first().and_then(Value::as_name) {
                    self.concerns.insert(name.to_owned(), call.children.clone().into());
                }
            }
            "concerns" => {
                let names: Vec<String> = call.arguments.iter().flat_map(Value::names).collect();
                self.apply_concerns(call, &names);
            }
            "draw" => self.draw(call),
            "direct" => {
                if let Some(name) = call.arguments.first().and_then(Value::as_name) {
                    self.table.helpers.push(CustomHelper { name: name.to_owned(), file: self.file.to_owned(), span: call.span });
                }
            }
            "resolve" => {}
            // A file's own dependencies: they draw nothing themselves.
            "require" | "require_relative" | "extend" | "include" => {}
            "devise_for" if self.sources.devise.is_some() => self.devise_for(call),
            // Devise's request constraints (`authenticate :user do`, `devise_scope :user do`, and
            // `as`, its alias): the routes inside are drawn as written.
            "devise_scope" | "authenticate" | "authenticated" | "unauthenticated" if self.sources.devise.is_some() => self.block(call),
            "as" if self.sources.devise.is_some() && !call.children.is_empty() => self.block(call),
            // Doorkeeper's routes are all named under `oauth` (`oauth_token`, `oauth_applications`).
            "use_doorkeeper" | "use_doorkeeper_openid_connect" => self.skipped_defining(
                call,
                format!("`{method}` is Doorkeeper's macro, and Switchyard does not list its routes (all named with `oauth`)"),
                false,
                MayDefine::Containing("oauth".to_owned()),
            ),
            // jsonapi-resources: the resource's routes and its relationships', all named after it.
            "jsonapi_resources" | "jsonapi_resource" if call.arguments.first().and_then(Value::as_name).is_some() => {
                let name = call.arguments.first().and_then(Value::as_name).unwrap_or_default();
                let stem = self.singularize(name);
                self.skipped_defining(
                    call,
                    format!("`{method}` is a jsonapi-resources macro, and Switchyard does not list its routes (all named with `{stem}`)"),
                    false,
                    MayDefine::Containing(stem),
                )
            }
            "if" => {
                let condition = call.arguments.first().map(ToString::to_string).unwrap_or_default();
                self.cannot_expand(call, format!("whether Rails draws the routes under `if {condition}` is decided when the app runs"))
            }
            "each" | "each_with_index" if call.receiver.is_some() => {
                let receiver = call.receiver.as_deref().unwrap_or("");
                self.cannot_expand(
                    call,
                    format!("the routes made in a loop over `{receiver}` (only loops over a literal array, hash or range are expanded)"),
                )
            }
            method if call.receiver.is_some() => {
                let receiver = call.receiver.as_deref().unwrap_or("");
                self.cannot_expand(call, format!("`{receiver}.{method}` is a call Switchyard does not run, and it may draw routes"))
            }
            other => self.cannot_expand(
                call,
                format!("`{other}` is not a routing method Switchyard knows (a gem's macro draws routes it cannot see)"),
            ),
        }
    }

    /// Devise's `devise_for :users, …`: per resource, the route groups its model's modules enable,
    /// drawn as Devise's router draws them (`resource :session, only: [] do … end`, …) inside an
    /// exclusive scope named after the mapping (`user`) at its path (`/users`).
    fn devise_for(&mut self, call: &RouteCall) {
        let Some(devise) = self.sources.devise else { return };
        let scope = self.scope().clone();
        let options_known = call.arguments.iter().all(|a| a.as_name().is_some());
        let as_option = option(&call.options, "as").map(value_text).or(scope.as_name.clone());
        for resource in call.arguments.iter().filter_map(Value::as_name) {
            let scoped_path = as_option.as_ref().map_or_else(|| resource.to_owned(), |a| format!("{a}/{resource}"));
            let singular = option(&call.options, "singular").map_or_else(|| self.singularize(&scoped_path.replace('/', "_")), value_text);
            let class_name =
                option(&call.options, "class_name").map_or_else(|| super::inflect::camelize(&self.singularize(resource)), value_text);
            // Devise defines its generic helpers (`new_session_path(scope)`) for every group: the
            // views it generates call them whichever modules a model has.
            for group in super::devise::Group::ALL {
                self.devise_helpers(call, *group);
            }
            for name in super::devise::INVITABLE_HELPERS {
                if !self.table.helpers.iter().any(|h| h.name == *name) {
                    self.table.helpers.push(CustomHelper { name: (*name).to_owned(), file: self.file.to_owned(), span: call.span });
                }
            }
            let mapping = if options_known { devise.mapping(&class_name) } else { Err(super::devise::Unknown::Routes("")) };
            let mapping = match mapping {
                Ok(mapping) => mapping,
                Err(super::devise::Unknown::Anything) => {
                    self.skipped_defining(
                        call,
                        format!("`{class_name}`'s `devise` call names a module of another gem, which may draw routes of its own"),
                        false,
                        MayDefine::Any,
                    );
                    continue;
                }
                Err(super::devise::Unknown::Routes(why)) => {
                    let reason = if options_known {
                        format!("the Devise routes of `{class_name}` are not decided by the app's files: {why}")
                    } else {
                        "`devise_for`'s options are built by code Switchyard does not run".to_owned()
                    };
                    self.skipped_defining(call, reason, false, MayDefine::Containing(singular));
                    continue;
                }
            };
            let only: Option<Vec<String>> = option(&call.options, "only").map(|v| v.names().iter().map(|n| self.singularize(n)).collect());
            let skip: Vec<String> =
                option(&call.options, "skip").map(|v| v.names().iter().map(|n| self.singularize(n)).collect()).unwrap_or_default();
            let used: Vec<super::devise::Group> = mapping
                .groups
                .iter()
                .copied()
                .filter(|g| match &only {
                    Some(only) => only.iter().any(|o| o == g.name()),
                    None => !skip.iter().any(|s| s == g.name() || s == "all"),
                })
                .collect();
            // The mapping's scope: `with_devise_exclusive_scope`.
            let path = option(&call.options, "path").map_or_else(|| resource.to_owned(), value_text);
            let prefix = option(&call.options, "path_prefix").map_or_else(|| scope.path.clone(), value_text);
            let mut exclusive = scope.clone();
            exclusive.path = normalize_path(&format!("/{prefix}/{path}"));
            exclusive.shallow_path = exclusive.path.clone();
            exclusive.as_name = Some(singular.clone());
            exclusive.module = None;
            for key in ["constraints", "defaults"] {
                if let Some(value) = option(&call.options, key) {
                    merge_pairs(if key == "defaults" { &mut exclusive.defaults } else { &mut exclusive.constraints }, value);
                }
            }
            if option(&call.options, "format") == Some(&Value::Bool(false)) {
                exclusive.format = Some(Value::Bool(false));
            }
            let path_name = |key: &str| -> String {
                hash_entry(option(&call.options, "path_names"), key)
                    .or_else(|| scope.path_names.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
                    .unwrap_or_else(|| if key == "registration" { String::new() } else { key.to_owned() })
            };
            let module = option(&call.options, "module").map(value_text).or(scope.module.clone()).unwrap_or_else(|| "devise".to_owned());
            let controller = |group: super::devise::Group| -> Value {
                let given = hash_entry(option(&call.options, "controllers"), group.controller());
                Value::String(given.unwrap_or_else(|| format!("{module}/{}", group.controller())))
            };
            let sign_out_via = option(&call.options, "sign_out_via")
                .cloned()
                .or_else(|| devise.sign_out_via.clone())
                .unwrap_or_else(|| Value::Symbol("delete".to_owned()));
            let made = |method: &str, arguments: Vec<Value>, options: Vec<(&str, Value)>, children: Vec<RouteCall>| RouteCall {
                receiver: None,
                method: method.to_owned(),
                arguments,
                options: options.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
                targets: Vec::new(),
                option_spans: Vec::new(),
                span: call.span,
                name_span: call.name_span,
                children,
            };
            let sym = |s: &str| Value::Symbol(s.to_owned());
            let string = |s: &str| Value::String(s.to_owned());
            let only_list = |actions: &[&str]| Value::Array(actions.iter().map(|a| sym(a)).collect());
            let mut drawn = Vec::new();
            let mut providers = Vec::new();
            for group in used {
                use super::devise::Group;
                match group {
                    Group::Session => drawn.push(made(
                        "resource",
                        vec![sym("session")],
                        vec![("only", only_list(&[])), ("controller", controller(group)), ("path", string(""))],
                        vec![
                            made("get", vec![sym("new")], vec![("path", string(&path_name("sign_in"))), ("as", string("new"))], Vec::new()),
                            made("post", vec![sym("create")], vec![("path", string(&path_name("sign_in")))], Vec::new()),
                            made(
                                "match",
                                vec![sym("destroy")],
                                vec![("path", string(&path_name("sign_out"))), ("as", string("destroy")), ("via", sign_out_via.clone())],
                                Vec::new(),
                            ),
                        ],
                    )),
                    Group::Password | Group::Confirmation | Group::Unlock => {
                        let actions: &[&str] =
                            if group == Group::Password { &["new", "create", "edit", "update"] } else { &["new", "create", "show"] };
                        drawn.push(made(
                            "resource",
                            vec![sym(group.name())],
                            vec![
                                ("only", only_list(actions)),
                                ("path", string(&path_name(group.name()))),
                                ("controller", controller(group)),
                            ],
                            Vec::new(),
                        ));
                    }
                    Group::Registration => {
                        let names = Value::Hash(
                            [("new", "sign_up"), ("edit", "edit"), ("cancel", "cancel")]
                                .iter()
                                .map(|(action, key)| (sym(action), string(&path_name(key))))
                                .collect(),
                        );
                        drawn.push(made(
                            "resource",
                            vec![sym("registration")],
                            vec![
                                ("only", only_list(&["new", "create", "edit", "update", "destroy"])),
                                ("path", string(&path_name("registration"))),
                                ("path_names", names),
                                ("controller", controller(group)),
                            ],
                            vec![made("get", vec![sym("cancel")], Vec::new(), Vec::new())],
                        ));
                    }
                    Group::OmniauthCallback => {
                        let prefix = devise.omniauth_path_prefix.clone().unwrap_or_else(|| format!("{}/auth", exclusive.path));
                        let Value::String(target) = controller(group) else { continue };
                        for provider in &mapping.providers {
                            let via = Value::Array(vec![sym("get"), sym("post")]);
                            providers.push(made(
                                "match",
                                vec![string(&format!("{prefix}/{provider}"))],
                                vec![
                                    ("to", string(&format!("{target}#passthru"))),
                                    ("as", string(&format!("{provider}_omniauth_authorize"))),
                                    ("via", via.clone()),
                                ],
                                Vec::new(),
                            ));
                            providers.push(made(
                                "match",
                                vec![string(&format!("{prefix}/{provider}/callback"))],
                                vec![
                                    ("to", string(&format!("{target}#{provider}"))),
                                    ("as", string(&format!("{provider}_omniauth_callback"))),
                                    ("via", via),
                                ],
                                Vec::new(),
                            ));
                        }
                        // Drawn where Devise draws them: in the group's place, with the scope's path set aside.
                        drawn.push(made("devise_omniauth", Vec::new(), Vec::new(), std::mem::take(&mut providers)));
                    }
                }
            }
            self.chain.push(call.label());
            self.push(exclusive);
            for child in &drawn {
                if child.method == "devise_omniauth" {
                    let mut pathless = self.scope().clone();
                    pathless.path = String::new();
                    pathless.shallow_path = String::new();
                    self.push(pathless);
                    self.calls(&child.children);
                    self.pop();
                } else {
                    self.call(child);
                }
            }
            self.pop();
            self.chain.pop();
        }
    }

    /// The helpers Devise defines for a route group whatever the mapping (`new_session_path(:user)`).
    fn devise_helpers(&mut self, call: &RouteCall, group: super::devise::Group) {
        for name in group.generic_helpers() {
            if !self.table.helpers.iter().any(|h| h.name == *name) {
                self.table.helpers.push(CustomHelper { name: (*name).to_owned(), file: self.file.to_owned(), span: call.span });
            }
        }
    }

    fn apply_concerns(&mut self, call: &RouteCall, names: &[String]) {
        for name in names {
            match self.concerns.get(name.as_str()).cloned() {
                Some(children) => {
                    self.chain.push(format!("concern :{name}"));
                    self.calls(&children);
                    self.chain.pop();
                }
                None => self.skip(call, format!("no concern named :{name} is defined before this call")),
            }
        }
    }

    fn draw(&mut self, call: &RouteCall) {
        let Some(name) = call.arguments.first().and_then(Value::as_name) else {
            return self.skip(call, "draw needs a name");
        };
        let Some(&(file, calls)) = self.sources.drawn.get(name) else {
            return self.skip(call, format!("no config/routes/{name}.rb"));
        };
        if self.draw_depth > 8 {
            return self.cannot_expand(call, "draw nests more than eight files deep");
        }
        let previous = std::mem::replace(&mut self.file, file);
        self.draw_depth += 1;
        self.chain.push(call.label());
        self.calls(calls);
        self.chain.pop();
        self.draw_depth -= 1;
        self.file = previous;
    }

    /// `scope(options) { … }`: merges the scope options Rails knows into a child scope.
    fn with_scope(&mut self, _call: &RouteCall, options: &[(String, Value)], body: impl FnOnce(&mut Self)) {
        let parent = self.scope().clone();
        let mut scope = parent.clone();
        let nested = matches!(parent.level, Level::Nested);
        for (key, value) in options {
            let text = value_text(value);
            match key.as_str() {
                "path" => {
                    scope.path = normalize_path(&format!("{}/{}", parent.path, text));
                    if !nested && option(options, "shallow_path").is_none() {
                        scope.shallow_path = normalize_path(&format!("{}/{}", parent.shallow_path, text));
                    }
                }
                "shallow_path" => scope.shallow_path = normalize_path(&format!("{}/{}", parent.shallow_path, text)),
                "module" => scope.module = Some(parent.module.as_ref().map_or_else(|| text.clone(), |m| format!("{m}/{text}"))),
                "as" => {
                    scope.as_name = Some(parent.as_name.as_ref().map_or_else(|| text.clone(), |a| format!("{a}_{text}")));
                    if !nested && option(options, "shallow_prefix").is_none() {
                        scope.shallow_prefix = Some(parent.shallow_prefix.as_ref().map_or_else(|| text.clone(), |a| format!("{a}_{text}")));
                    }
                }
                "shallow_prefix" => {
                    scope.shallow_prefix = Some(parent.shallow_prefix.as_ref().map_or_else(|| text.clone(), |a| format!("{a}_{text}")))
                }
                "controller" => scope.controller = Some(text),
                "action" => scope.action = Some(text),
                "path_names" => {
                    if let Value::Hash(pairs) = value {
                        for (k, v) in pairs {
                            scope.path_names.retain(|(name, _)| Some(name.as_str()) != k.as_name());
                            scope.path_names.push((value_text(k), value_text(v)));
                        }
                    }
                }
                "defaults" => merge_pairs(&mut scope.defaults, value),
                "constraints" => {
                    merge_pairs(&mut scope.constraints, value);
                    // Host-level constraints given as plain values are also defaults, and Rails prints them.
                    if let Value::Hash(pairs) = value {
                        let url_defaults: Vec<(Value, Value)> = pairs
                            .iter()
                            .filter(|(k, v)| {
                                URL_OPTIONS.contains(&value_text(k).as_str()) && matches!(v, Value::String(_) | Value::Integer(_))
                            })
                            .cloned()
                            .collect();
                        merge_pairs(&mut scope.defaults, &Value::Hash(url_defaults));
                    }
                }
                "format" => scope.format = Some(value.clone()),
                "shallow" => scope.shallow = *value == Value::Bool(true),
                "only" => scope.action_only = Some(value.names()),
                "except" => scope.action_except = value.names(),
                "via" | "to" | "on" | "anchor" | "blocks" => {}
                // Any other option reaches every route inside, as that route's own option would.
                other => merge_pair(&mut scope.options, other.to_owned(), value.clone()),
            }
        }
        self.push(scope);
        body(self);
        self.pop();
    }

    fn namespace(&mut self, call: &RouteCall) {
        // Rails' `Resources#namespace`: inside a resource's block it nests first (`/profile/oidc`).
        if self.scope().resource.is_some() && matches!(self.scope().level, Level::Resources | Level::Resource) {
            return self.nested(call, |m| m.namespace_scope(call));
        }
        self.namespace_scope(call);
    }

    fn namespace_scope(&mut self, call: &RouteCall) {
        let Some(name) = call.arguments.first().map(value_text) else {
            return self.skip(call, "namespace needs a name");
        };
        let path = option(&call.options, "path").map_or_else(|| name.clone(), value_text);
        let as_name = option(&call.options, "as").map_or_else(|| name.clone(), value_text);
        let mut options = vec![
            ("path".to_owned(), Value::String(path.clone())),
            ("module".to_owned(), Value::String(option(&call.options, "module").map_or_else(|| name.clone(), value_text))),
            ("shallow_path".to_owned(), Value::String(path)),
        ];
        if !as_name.is_empty() && option(&call.options, "as") != Some(&Value::Nil) {
            options.push(("as".to_owned(), Value::String(as_name.clone())));
            options.push(("shallow_prefix".to_owned(), Value::String(as_name)));
        }
        options.extend(call.options.iter().filter(|(k, _)| !matches!(k.as_str(), "path" | "module" | "as")).cloned());
        self.with_scope(call, &options, |m| m.block(call));
    }

    fn resources(&mut self, call: &RouteCall, singleton: bool, names: &[Value], options: &[(String, Value)]) {
        if names.is_empty() {
            return self.skip(call, "resources needs a name");
        }
        if names.len() > 1 {
            for name in names {
                self.resources(call, singleton, std::slice::from_ref(name), options);
            }
            return;
        }
        if option(options, "shallow") == Some(&Value::Bool(true)) {
            let rest: Vec<(String, Value)> = options.iter().filter(|(k, _)| k != "shallow").cloned().collect();
            let mut scope = self.scope().clone();
            scope.shallow = true;
            self.push(scope);
            self.resources(call, singleton, names, &rest);
            self.pop();
            return;
        }
        if self.scope().resource.is_some() && matches!(self.scope().level, Level::Resources | Level::Resource) {
            // Inside another resource: `nested`.
            self.nested(call, |m| m.resources(call, singleton, names, options));
            return;
        }
        // Rails' `apply_common_behavior_for`: a pattern option (`id: /\d+/`) is a constraint, and
        // what a resource does not know opens a scope around it.
        let mut options = options.to_vec();
        if options.iter().any(|(k, v)| is_pattern(v) && k != "constraints") {
            let mut constraints = match option(&options, "constraints") {
                Some(Value::Hash(pairs)) => pairs.clone(),
                _ => Vec::new(),
            };
            for (key, value) in options.iter().filter(|(k, v)| is_pattern(v) && k != "constraints") {
                constraints.push((Value::Symbol(key.clone()), value.clone()));
            }
            options.retain(|(k, v)| !is_pattern(v) && k != "constraints");
            options.push(("constraints".to_owned(), Value::Hash(constraints)));
        }
        let options = options.as_slice();
        let scope_options: Vec<(String, Value)> =
            options.iter().filter(|(k, _)| !RESOURCE_OPTIONS.contains(&k.as_str())).cloned().collect();
        if !scope_options.is_empty() {
            let rest: Vec<(String, Value)> = options.iter().filter(|(k, _)| RESOURCE_OPTIONS.contains(&k.as_str())).cloned().collect();
            self.with_scope(call, &scope_options, |m| m.resources(call, singleton, names, &rest));
            return;
        }
        let Some(name) = names[0].as_name().map(str::to_owned) else {
            return self.cannot_expand(call, "the resource is named by an expression Switchyard does not evaluate");
        };
        let scope = self.scope().clone();
        let as_option = option(options, "as").map(value_text);
        let (member_name, collection_name) = if singleton {
            let singular = as_option.clone().unwrap_or_else(|| name.clone());
            (singular.clone(), singular)
        } else {
            let plural = as_option.clone().unwrap_or_else(|| name.clone());
            let singular = self.singularize(&plural);
            // Rails' `collection_name`: a plural that is its own singular (`news`) names its
            // collection `news_index`.
            let collection = if singular == plural { format!("{plural}_index") } else { plural };
            (singular, collection)
        };
        let controller =
            option(options, "controller").map(value_text).unwrap_or_else(|| if singleton { self.pluralize(&name) } else { name.clone() });
        let only = option(options, "only").map(Value::names).or_else(|| scope.action_only.clone());
        let except = option(options, "except").map(Value::names).unwrap_or_else(|| scope.action_except.clone());
        let resource = Resource {
            singleton,
            path: option(options, "path").map_or_else(|| name.clone(), value_text),
            member_name,
            collection_name,
            param: option(options, "param").map_or_else(|| "id".to_owned(), value_text),
            only,
            except,
        };
        let mut inner = scope;
        inner.level = if singleton { Level::Resource } else { Level::Resources };
        inner.controller = Some(controller);
        inner.resource = Some(resource.clone());
        inner.action_only = None;
        inner.action_except = Vec::new();
        self.push(inner);
        self.chain.push(call.label());
        self.calls(&call.children);
        if let Some(concerns) = option(options, "concerns") {
            let names = concerns.names();
            self.apply_concerns(call, &names);
        }
        if singleton {
            if resource.has_action("new") {
                self.in_level(Level::New, &resource, |m| m.add_route(call, "new", None, &["GET"], &[]));
            }
            self.member_mappings(call, &resource);
            if resource.has_action("create") {
                self.in_level(Level::Collection, &resource, |m| m.add_route(call, "create", None, &["POST"], &[]));
            }
        } else {
            self.in_level(Level::Collection, &resource, |m| {
                if resource.has_action("index") {
                    m.add_route(call, "index", None, &["GET"], &[]);
                }
                if resource.has_action("create") {
                    m.add_route(call, "create", None, &["POST"], &[]);
                }
            });
            if resource.has_action("new") {
                self.in_level(Level::New, &resource, |m| m.add_route(call, "new", None, &["GET"], &[]));
            }
            self.member_mappings(call, &resource);
        }
        self.chain.pop();
        self.pop();
    }

    fn member_mappings(&mut self, call: &RouteCall, resource: &Resource) {
        self.in_level(Level::Member, resource, |m| {
            if resource.has_action("edit") {
                m.add_route(call, "edit", None, &["GET"], &[]);
            }
            if resource.has_action("show") {
                m.add_route(call, "show", None, &["GET"], &[]);
            }
            if resource.has_action("update") {
                m.add_route(call, "update", None, &["PATCH"], &[]);
                m.add_route(call, "update", None, &["PUT"], &[]);
            }
            if resource.has_action("destroy") {
                m.add_route(call, "destroy", None, &["DELETE"], &[]);
            }
        });
    }

    fn shallow(&self) -> bool {
        let scope = self.scope();
        scope.shallow && scope.resource.as_ref().is_some_and(|r| !r.singleton)
    }

    /// Enters `collection`, `member`, `new` or `nested` of `resource` (paths as Rails' `Resource`
    /// scopes them; shallow members jump to the shallow path and prefix).
    fn in_level(&mut self, level: Level, resource: &Resource, body: impl FnOnce(&mut Self)) {
        let mut scope = self.scope().clone();
        let new_path = scope.path_names.iter().find(|(k, _)| k == "new").map_or("new", |(_, v)| v.as_str()).to_owned();
        let segment = match level {
            Level::Collection => resource.path.clone(),
            Level::Member if resource.singleton => resource.path.clone(),
            Level::Member => format!("{}/:{}", resource.path, resource.param),
            Level::New => format!("{}/{}", resource.path, new_path),
            // A singleton has no id: what nests in it nests under its path.
            Level::Nested if resource.singleton => resource.path.clone(),
            Level::Nested => format!("{}/:{}", resource.path, resource.nested_param()),
            _ => resource.path.clone(),
        };
        if level == Level::Member && self.shallow() {
            scope.path = scope.shallow_path.clone();
            scope.as_name = scope.shallow_prefix.clone();
        }
        scope.path = normalize_path(&format!("{}/{}", scope.path, segment));
        scope.level = level;
        if level == Level::Nested {
            scope.as_name =
                Some(scope.as_name.as_ref().map_or_else(|| resource.member_name.clone(), |a| format!("{a}_{}", resource.member_name)));
            // Rails' `nested_options`: a pattern on the parent's param constrains the nested param.
            if let Some((_, pattern)) = scope.constraints.iter().find(|(k, v)| *k == resource.param && is_pattern(v)) {
                let pattern = pattern.clone();
                merge_pair(&mut scope.constraints, resource.nested_param(), pattern);
            }
        }
        self.push(scope);
        body(self);
        self.pop();
    }

    fn nested(&mut self, call: &RouteCall, body: impl FnOnce(&mut Self)) {
        let Some(resource) = self.scope().resource.clone() else {
            return self.skip(call, "nested outside a resource");
        };
        let depth = self.scopes.iter().filter(|s| s.level == Level::Nested).count();
        if self.shallow() && depth >= 1 {
            let mut scope = self.scope().clone();
            scope.path = scope.shallow_path.clone();
            scope.as_name = scope.shallow_prefix.clone();
            self.push(scope);
            self.in_level(Level::Nested, &resource, body);
            self.pop();
        } else {
            self.in_level(Level::Nested, &resource, body);
        }
    }

    /// `member do`, `collection do`, `new do`, `nested do`.
    fn resource_block(&mut self, call: &RouteCall) {
        let Some(resource) = self.scope().resource.clone() else {
            return self.skip(call, format!("{} outside a resource", call.method));
        };
        self.chain.push(call.label());
        match call.method.as_str() {
            "member" => self.in_level(Level::Member, &resource, |m| m.calls(&call.children)),
            "collection" => self.in_level(Level::Collection, &resource, |m| m.calls(&call.children)),
            "new" => self.in_level(Level::New, &resource, |m| m.calls(&call.children)),
            _ => self.nested(call, |m| m.calls(&call.children)),
        }
        self.chain.pop();
    }

    fn root(&mut self, call: &RouteCall) {
        let mut options: Vec<(String, Value)> = call.options.clone();
        if let Some(Value::String(to)) = call.arguments.first() {
            options.insert(0, ("to".to_owned(), Value::String(to.clone())));
        }
        if !options.iter().any(|(k, _)| k == "as") {
            options.push(("as".to_owned(), Value::Symbol("root".to_owned())));
        }
        // `root to: "site#index", via: [:get, :post]`: `via:` replaces the GET Rails gives a root.
        let via: Vec<String> = option(&options, "via").map(|v| v.names().iter().map(|n| n.to_uppercase()).collect()).unwrap_or_default();
        let verbs: Vec<&str> = if via.is_empty() { vec!["GET"] } else { via.iter().map(String::as_str).collect() };
        let options: Vec<(String, Value)> = options.into_iter().filter(|(k, _)| k != "via").collect();
        let in_resource = self.scope().resource.clone().filter(|_| matches!(self.scope().level, Level::Resources | Level::Resource));
        match in_resource {
            Some(resource) => {
                let mut scope = self.scope().clone();
                scope.level = Level::Root;
                scope.path = normalize_path(&format!("{}/{}", scope.path, resource.path));
                self.push(scope);
                self.map_match(call, "/", false, &verbs, &options);
                self.pop();
            }
            None => self.map_match(call, "/", false, &verbs, &options),
        }
    }

    /// `get :x`, `get "a/:b", to: "c#d"`, `match "x" => "c#a", via: [:get, :post]`, with `on:`.
    fn matches(&mut self, call: &RouteCall, verb: Option<&str>) {
        let mut options = call.options.clone();
        // Each path, and whether it is a symbol (`get :advanced`: an action, its path from the scope).
        let mut paths: Vec<(String, bool)> = Vec::new();
        for argument in &call.arguments {
            match argument {
                Value::Hash(pairs) => options.extend(pairs.iter().map(|(k, v)| (value_text(k), v.clone()))),
                Value::Array(items) => paths.extend(items.iter().map(|v| (value_text(v), matches!(v, Value::Symbol(_))))),
                other => paths.push((value_text(other), matches!(other, Value::Symbol(_)))),
            }
        }
        // `"path" => "controller#action"`; a symbol target names the action, a string without `#` the
        // controller.
        for (path, to) in &call.targets {
            paths.push((value_text(path), false));
            let key = match to {
                Value::Symbol(_) => "action",
                Value::String(s) if !s.contains('#') => "controller",
                _ => "to",
            };
            options.insert(0, (key.to_owned(), to.clone()));
        }
        if paths.is_empty() {
            return self.skip(call, format!("`{}` without a path", call.method));
        }
        let verbs: Vec<String> = match verb {
            Some(v) => vec![v.to_uppercase()],
            None => match option(&options, "via") {
                Some(via) => {
                    let names = via.names();
                    if names.iter().any(|n| n == "all") { Vec::new() } else { names.iter().map(|n| n.to_uppercase()).collect() }
                }
                None => return self.skip(call, "`match` without `via:`"),
            },
        };
        let verbs: Vec<&str> = verbs.iter().map(String::as_str).collect();
        let on = option(&options, "on").map(value_text);
        let options: Vec<(String, Value)> = options.into_iter().filter(|(k, _)| k != "on" && k != "via").collect();
        for (path, symbol) in &paths {
            let (path, symbol) = (path.as_str(), *symbol);
            match (on.as_deref(), self.scope().resource.clone()) {
                (Some(level @ ("member" | "collection" | "new")), Some(resource)) => {
                    let level = match level {
                        "member" => Level::Member,
                        "collection" => Level::Collection,
                        _ => Level::New,
                    };
                    self.in_level(level, &resource, |m| m.map_match(call, path, symbol, &verbs, &options));
                }
                (Some(_), _) => self.skip(call, "`on:` outside a resource"),
                (None, _) => {
                    if matches!(self.scope().level, Level::Resources | Level::Resource) {
                        // A verb directly in a resource block routes like `member` for a singleton and
                        // `nested` otherwise… Rails treats it as `nested` scope for resources.
                        let resource = self.scope().resource.clone();
                        if let Some(resource) = resource {
                            let level = if resource.singleton { Level::Member } else { Level::Nested };
                            if level == Level::Nested {
                                self.nested(call, |m| m.map_match(call, path, symbol, &verbs, &options));
                            } else {
                                self.in_level(level, &resource, |m| m.map_match(call, path, symbol, &verbs, &options));
                            }
                            continue;
                        }
                    }
                    self.map_match(call, path, symbol, &verbs, &options);
                }
            }
        }
    }

    /// Rails' `map_match` + `decomposed_match`: a path (symbol or string) with `to:`/`controller:`/
    /// `action:`, into `add_route`. A symbol is an action: its path is `path:` or the scope's.
    fn map_match(&mut self, call: &RouteCall, path: &str, symbol: bool, verbs: &[&str], options: &[(String, Value)]) {
        let mut options = options.to_vec();
        // `scope controller: "c", action: "a" do get "x" end` routes every path to `c#a`.
        if option(&options, "to").is_none()
            && let (Some(controller), Some(action)) = (&self.scope().controller, &self.scope().action)
        {
            options.push(("to".to_owned(), Value::String(format!("{controller}#{action}"))));
        }
        if symbol {
            let option_path = option(&options, "path").and_then(|p| p.as_name()).map(str::to_owned);
            return self.add_route(call, path, option_path.as_deref(), verbs, &options);
        }
        let path_without_format = path.strip_suffix("(.:format)").unwrap_or(path).to_owned();
        let to = option(&options, "to").cloned();
        // `get "photos/search"` without `to:` routes to `photos#search` (the match shorthand).
        if to.is_none() && option(&options, "action").is_none() && is_match_shorthand(&path_without_format) {
            let trimmed = path_without_format.trim_start_matches('/').replace('-', "_");
            if let Some((controller, action)) = trimmed.rsplit_once('/') {
                options.push(("to".to_owned(), Value::String(format!("{controller}#{action}"))));
            }
        }
        self.add_route(call, &path_without_format, Some(&path_without_format), verbs, &options);
    }

    fn path_for_action(&self, action: &str, path: Option<&str>) -> String {
        let scope = self.scope();
        if let Some(path) = path {
            return format!("{}/{}", scope.path, path);
        }
        if self.canonical(action) {
            scope.path.clone()
        } else {
            let segment = scope.path_names.iter().find(|(k, _)| k == action).map_or(action, |(_, v)| v.as_str());
            format!("{}/{}", scope.path, segment)
        }
    }

    fn canonical(&self, action: &str) -> bool {
        matches!(self.scope().level, Level::Collection | Level::Member | Level::New) && CANONICAL_ACTIONS.contains(&action)
    }

    fn name_for_action(&self, as_option: Option<&str>, action: Option<&str>) -> Option<String> {
        let prefix = match as_option {
            Some(as_name) => Some(as_name.to_owned()),
            None => action.filter(|a| !self.canonical(a)).map(str::to_owned),
        };
        let prefix = prefix.filter(|p| p != "/" && !p.is_empty()).map(|p| normalize_name(&p.replace('-', "_")));
        let scope = self.scope();
        let name_prefix = scope.as_name.clone();
        let (collection_name, member_name) = match &scope.resource {
            Some(resource) => {
                if as_option.is_none() && action.is_none() {
                    return None;
                }
                (Some(resource.collection_name.clone()), Some(resource.member_name.clone()))
            }
            None => (None, None),
        };
        let parts: Vec<Option<String>> = match scope.level {
            Level::Nested => vec![name_prefix, prefix],
            Level::Collection => vec![prefix, name_prefix, collection_name],
            Level::New => vec![prefix, Some("new".to_owned()), name_prefix, member_name],
            Level::Member => vec![prefix, name_prefix, member_name],
            Level::Root => vec![name_prefix, collection_name, prefix],
            _ => vec![name_prefix, member_name, prefix],
        };
        let candidate = parts.into_iter().flatten().filter(|p| !p.is_empty()).collect::<Vec<_>>().join("_");
        if candidate.is_empty() {
            return None;
        }
        if as_option.is_none() {
            let valid_start = candidate.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
            if !valid_start || self.names.contains(&candidate) {
                return None;
            }
        }
        Some(candidate)
    }

    /// Rails' `add_route`: the path, the name, the controller and action, and the Controller#Action text.
    fn add_route(&mut self, call: &RouteCall, action: &str, path: Option<&str>, verbs: &[&str], options: &[(String, Value)]) {
        let scope = self.scope().clone();
        let full_path = self.path_for_action(action, path);
        let action_is_simple = action.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '/');
        let default_action = option(options, "action")
            .map(value_text)
            .or_else(|| scope.action.clone())
            .or_else(|| (action_is_simple && !action.contains('/')).then(|| action.replace('-', "_")));
        let name_action = action_is_simple.then_some(action);
        let name = match option(options, "as") {
            Some(Value::Nil | Value::Bool(false)) => None,
            Some(as_value) => self.name_for_action(Some(&value_text(as_value)), name_action),
            None => self.name_for_action(None, name_action),
        };
        let format = option(options, "format").or(scope.format.as_ref());
        let mut route_path = normalize_path(&escape_path(&full_path));
        match format {
            Some(Value::Bool(true)) => route_path.push_str(".:format"),
            Some(Value::Bool(false)) => {}
            _ => {
                let has_format = route_path.ends_with("(.:format)") || route_path.ends_with(".:format") || route_path.ends_with('/');
                if !has_format {
                    route_path.push_str("(.:format)");
                }
            }
        }
        let to = option(options, "to");
        let (kind, endpoint, controller, action_name) = match to {
            Some(Value::Code(code)) if code.starts_with("redirect") => (RouteKind::Redirect, redirect_text(code), None, None),
            Some(Value::String(to)) if to.contains('#') => {
                let (controller, action) = to.split_once('#').unwrap_or((to, ""));
                let controller = with_module(&scope, controller);
                let action = if action.is_empty() { default_action.clone() } else { Some(action.to_owned()) };
                (RouteKind::Action, String::new(), Some(controller), action)
            }
            Some(Value::String(controller)) => {
                (RouteKind::Action, String::new(), Some(with_module(&scope, controller)), default_action.clone())
            }
            Some(other) => (RouteKind::Mount, other.to_string(), None, None),
            None => {
                // No controller anywhere: Rails' `add_controller_module` makes the module the
                // controller (`namespace :webhooks do post "plaid" end` → `webhooks#plaid`).
                let controller = option(options, "controller")
                    .map(value_text)
                    .or_else(|| scope.controller.clone())
                    .map(|c| with_module(&scope, &c))
                    .or_else(|| scope.module.clone());
                (RouteKind::Action, String::new(), controller, default_action.clone())
            }
        };
        if kind == RouteKind::Action && controller.is_none() {
            return self.skip(call, format!("no controller for `{action}`: add `to: \"controller#action\"`"));
        }
        let endpoint = if kind == RouteKind::Action {
            format!("{}#{}", controller.as_deref().unwrap_or(""), action_name.as_deref().unwrap_or(""))
        } else {
            endpoint
        };
        let requirements = requirements_of(&scope, options, &route_path, format);
        if let Some(name) = &name {
            self.names.insert(name.clone());
        }
        self.table.routes.push(Route {
            verb: verbs.join("|"),
            path: route_path,
            endpoint,
            requirements: if requirements.printed.is_empty() { String::new() } else { inspect_hash(&requirements.printed) },
            constraints: inspect_values(&requirements.requirements),
            defaults: inspect_values(&requirements.defaults),
            controller,
            action: action_name,
            name,
            kind,
            file: self.file.to_owned(),
            span: call.span,
            chain: self.chain.clone(),
        });
    }

    /// `mount Engine => "/path"` or `mount App, at: "/path"`: one route for every verb, no format,
    /// named after the engine (`Billing::Engine` → `billing`, as `isolate_namespace` names it) or the
    /// Rack class (`Sidekiq::Web` → `sidekiq_web`); an app built by a method call has no name.
    fn mount(&mut self, call: &RouteCall) {
        let (app, path) = match (call.arguments.first(), option(&call.options, "at")) {
            (Some(app), Some(at)) => (app.to_string(), value_text(at)),
            (None, _) => match call.targets.first() {
                Some((app, at)) => (app.to_string(), value_text(at)),
                None => return self.skip(call, "mount needs an app and a path"),
            },
            (Some(_), None) => return self.skip(call, "mount needs a path (`at:`)"),
        };
        let is_constant =
            app.starts_with(|c: char| c.is_ascii_uppercase()) && app.chars().all(|c| c.is_alphanumeric() || c == ':' || c == '_');
        let derived = if !is_constant {
            None
        } else if let Some(module) = app.strip_suffix("::Engine") {
            Some(super::inflect::underscore(module).replace('/', "_"))
        } else {
            Some(super::inflect::underscore(&app).replace('/', "_"))
        };
        let as_name = option(&call.options, "as").cloned().or(derived.map(Value::String)).unwrap_or(Value::Nil);
        let options = vec![("to".to_owned(), Value::Code(app)), ("format".to_owned(), Value::Bool(false)), ("as".to_owned(), as_name)];
        let path = path.trim_start_matches('/').to_owned();
        self.add_route(call, &path, Some(&path), &[], &options);
    }
}

/// Options a route's call consumes itself; the rest are its own options (Rails' `options` hash that
/// reaches `Mapping`).
const CONSUMED_OPTIONS: &[&str] =
    &["to", "controller", "action", "as", "via", "on", "format", "anchor", "constraints", "defaults", "path", "internal"];

/// What `bin/rails routes` appends to the endpoint, as ActionDispatch's `Mapping` and Journey's
/// `Route#requirements` compute it: the route's defaults (its format's, the scope's, the host ones of
/// `constraints:`, every plain option) merged with the constraints on segments the path has (a
/// constraint on any other key matches the request and is not printed), the non-greedy default of a
/// `*glob` dropped, controller and action left out.
fn requirements_of(scope: &Scope, options: &[(String, Value)], route_path: &str, format: Option<&Value>) -> Requirements {
    // The common route: nothing in scope or on the call that prints.
    let plain = |(key, _): &(String, Value)| CONSUMED_OPTIONS.contains(&key.as_str()) && key != "constraints" && key != "defaults";
    if scope.options.is_empty()
        && scope.constraints.is_empty()
        && scope.defaults.is_empty()
        && format.is_none()
        && !route_path.contains('*')
        && options.iter().all(plain)
    {
        return Requirements::default();
    }
    let (symbols, globs) = segments(route_path);
    let non_greedy = Value::Code("/.+?/".to_owned());
    let mut route_options: Vec<(String, Value)> = Vec::new();
    if format != Some(&Value::Bool(false)) {
        for glob in &globs {
            merge_pair(&mut route_options, glob.clone(), non_greedy.clone());
        }
    }
    for (key, value) in scope.options.iter().chain(options.iter().filter(|(k, _)| !CONSUMED_OPTIONS.contains(&k.as_str()))) {
        merge_pair(&mut route_options, key.clone(), value.clone());
    }
    let mut constraints = scope.constraints.clone();
    for (key, value) in route_options.iter().filter(|(_, v)| is_pattern(v)) {
        merge_pair(&mut constraints, key.clone(), value.clone());
    }
    let mut defaults: Vec<(String, Value)> = Vec::new();
    if let Some(Value::Hash(pairs)) = option(options, "constraints") {
        for (key, value) in pairs {
            let key = value_text(key);
            if URL_OPTIONS.contains(&key.as_str()) && matches!(value, Value::String(_) | Value::Integer(_)) {
                merge_pair(&mut defaults, key.clone(), value.clone());
            }
            merge_pair(&mut constraints, key, value.clone());
        }
    }
    for (key, value) in &scope.defaults {
        merge_pair(&mut defaults, key.clone(), value.clone());
    }
    if let Some(Value::Hash(pairs)) = option(options, "defaults") {
        for (key, value) in pairs {
            merge_pair(&mut defaults, value_text(key), value.clone());
        }
    }
    // `format: true` requires one; a pattern or a string constrains it (a string is also its default).
    let mut printed: Vec<(String, Value)> = Vec::new();
    let mut format_requirement = None;
    match format {
        Some(Value::Bool(true)) => format_requirement = Some(Value::Code("/.+/".to_owned())),
        Some(pattern) if is_pattern(pattern) => {
            printed.push(("format".to_owned(), Value::Nil));
            format_requirement = Some(pattern.clone());
        }
        Some(Value::String(text)) => {
            printed.push(("format".to_owned(), Value::String(text.clone())));
            format_requirement = Some(Value::Code(format!("/{}/", text.replace('/', "\\/"))));
        }
        _ => {}
    }
    for (key, value) in defaults {
        merge_pair(&mut printed, key, value);
    }
    for (key, value) in route_options.iter().filter(|(_, v)| !is_pattern(v)) {
        merge_pair(&mut printed, key.clone(), value.clone());
    }
    let shown = |(key, value): &(String, Value)| *value != non_greedy && key != "controller" && key != "action";
    let defaults: Vec<(String, Value)> = printed.iter().filter(|p| shown(p)).cloned().collect();
    let mut requirements: Vec<(String, Value)> = Vec::new();
    if let Some(requirement) = format_requirement {
        requirements.push(("format".to_owned(), requirement));
    }
    for (key, value) in constraints {
        if symbols.contains(&key) || key == "controller" {
            merge_pair(&mut requirements, key, value);
        }
    }
    for (key, value) in &requirements {
        merge_pair(&mut printed, key.clone(), value.clone());
    }
    printed.retain(|p| shown(p));
    requirements.retain(|p| shown(p));
    Requirements { printed, requirements, defaults }
}

/// What a route's endpoint column shows after it, and its two halves for `--format json`.
#[derive(Default)]
struct Requirements {
    /// Defaults merged with requirements, as Rails prints them.
    printed: Vec<(String, Value)>,
    /// The patterns its segments must match (`id: /\d+/`), and `format`'s.
    requirements: Vec<(String, Value)>,
    /// The values its params take when the URL does not give them (`format: "html"`).
    defaults: Vec<(String, Value)>,
}

/// The dynamic segments of a route path: every `:name` and `*name`, and the `*name` globs apart.
fn segments(path: &str) -> (Vec<String>, Vec<String>) {
    let mut symbols = Vec::new();
    let mut globs = Vec::new();
    let bytes = path.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if (bytes[i] == b':' || bytes[i] == b'*') && (i == 0 || bytes[i - 1] != b'\\') {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            if end > start {
                let name = path[start..end].to_owned();
                if bytes[i] == b'*' {
                    globs.push(name.clone());
                }
                symbols.push(name);
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    (symbols, globs)
}

/// A value Rails would take for a pattern: a regexp literal, or a constant named like one
/// (`Patterns::ROUTE_PATTERN`, defined where Switchyard does not read it).
fn is_pattern(value: &Value) -> bool {
    match value {
        Value::Code(code) => code.starts_with('/') || code.starts_with("%r"),
        Value::Constant(name) => {
            let last = name.rsplit("::").next().unwrap_or(name);
            last.contains('_') && last.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                || last.len() >= 5 && last.chars().all(|c| c.is_ascii_uppercase())
        }
        _ => false,
    }
}

/// `photos/search`, `/admin/reports/daily`: word segments only, at least two (Rails' match shorthand).
fn is_match_shorthand(path: &str) -> bool {
    let path = path.strip_prefix('/').unwrap_or(path);
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    match path.split_once('/') {
        Some((first, rest)) => {
            !first.is_empty() && first.chars().all(word) && !rest.is_empty() && rest.chars().all(|c| word(c) || c == '/')
        }
        None => false,
    }
}

fn with_module(scope: &Scope, controller: &str) -> String {
    match (&scope.module, controller.strip_prefix('/')) {
        (_, Some(absolute)) => absolute.to_owned(),
        (Some(module), None) => format!("{module}/{controller}"),
        (None, None) => controller.to_owned(),
    }
}

/// Ruby's `Hash#merge`: a key already there keeps its place and takes the new value.
fn merge_pairs(into: &mut Vec<(String, Value)>, value: &Value) {
    if let Value::Hash(pairs) = value {
        for (k, v) in pairs {
            merge_pair(into, value_text(k), v.clone());
        }
    }
}

fn merge_pair(into: &mut Vec<(String, Value)>, key: String, value: Value) {
    match into.iter_mut().find(|(existing, _)| *existing == key) {
        Some(slot) => slot.1 = value,
        None => into.push((key, value)),
    }
}

/// A redirect endpoint as Rails inspects it: `redirect("/products")` → `redirect(301, /products)`,
/// `redirect(path: "/way/%{id}", status: 302)` → `redirect(302, path: /way/%{id})`, a block or
/// lambda → `redirect(301)`.
fn redirect_text(code: &str) -> String {
    use crate::syntax::outline::{Item, Outline};
    use crate::syntax::{Language, ParsedFile};
    let parsed = ParsedFile::parse(Language::Ruby, code);
    let call = parsed.ruby.as_ref().and_then(|tree| {
        Outline::new(tree, code).items.into_iter().find_map(|item| match item {
            Item::Call(call) if call.method == "redirect" => Some(call),
            _ => None,
        })
    });
    let Some(call) = call else { return "redirect(301)".to_owned() };
    let status = match call.option("status") {
        Some(Value::Integer(status)) => status.to_string(),
        Some(other) => value_text(other),
        None => "301".to_owned(),
    };
    // `to_s` of each option's value, as Rails' `OptionRedirect#inspect` writes them.
    let to_s = |value: &Value| match value {
        Value::String(s) | Value::Symbol(s) => s.clone(),
        other => other.to_string(),
    };
    let options: Vec<String> =
        call.named_options().into_iter().filter(|(k, _)| k != "status").map(|(k, v)| format!("{k}: {}", to_s(&v))).collect();
    if !options.is_empty() {
        return format!("redirect({status}, {})", options.join(", "));
    }
    match call.arguments.first() {
        Some(Value::String(path)) => format!("redirect({status}, {path})"),
        // An interpolated path is the text Rails would fill in when the app runs.
        Some(Value::Code(path)) if path.starts_with('"') => format!("redirect({status}, {})", path.trim_matches('"')),
        _ => format!("redirect({status})"),
    }
}

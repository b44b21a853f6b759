//! References in Ruby code to things defined elsewhere in the app: route helper calls, render calls,
//! instance variables read, and receiver-less (helper) calls. Resolution (does `post_path` name a
//! route?) belongs to the layers that see the whole index.
//!
//! One `TreeCursor` pass, not a query: this runs on every file, and as a tree-sitter query
//! it cost 17% of the cold index on the synthetic benchmark app, where the walk costs a
//! fraction of that (BENCHMARKS.md).

use crate::syntax::NodeExt;
use std::collections::BTreeSet;

use serde::Serialize;
use tree_sitter::Node;

use crate::syntax::outline::call_of;
use crate::syntax::{Span, text_of};

/// Rails' own `*_path`/`*_url` helpers, which are not named routes.
const BUILTIN_PATH_HELPERS: &[&str] = &[
    "asset_path",
    "asset_url",
    "audio_path",
    "audio_url",
    "font_path",
    "font_url",
    "image_path",
    "image_url",
    "javascript_path",
    "javascript_url",
    "stylesheet_path",
    "stylesheet_url",
    "video_path",
    "video_url",
    "polymorphic_path",
    "polymorphic_url",
    "compute_asset_path",
    "url_for",
    "full_url",
    "original_url",
    "rails_blob_path",
    "rails_blob_url",
    "rails_representation_path",
    "rails_representation_url",
    "rails_storage_proxy_path",
    "rails_storage_proxy_url",
    "edit_polymorphic_path",
    "edit_polymorphic_url",
    "new_polymorphic_path",
    "new_polymorphic_url",
    // Action View's and Webpacker's own.
    "prepend_view_path",
    "append_view_path",
    "controller_path",
    "asset_pack_path",
    "asset_pack_url",
    "image_pack_path",
    "image_pack_url",
    // Capybara's and the test frameworks' own.
    "current_path",
    "current_url",
    "have_current_path",
    "assert_current_path",
    "assert_no_current_path",
    "refute_current_path",
];

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct Reference {
    pub name: Box<str>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, bincode::Encode, bincode::Decode)]
pub struct RenderCall {
    /// The first argument or the `partial:`/`template:`/`action:` option, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Option keys given (`locals`, `collection`, `status`…).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// The locals it passes: the keys of `locals:`, or of the hash after a partial's name
    /// (`render "form", post: @post`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locals: Vec<String>,
    /// The template it names when written as a string or symbol: where the name came from (`""` for
    /// the first argument, `partial`, `template` or `action`) and the name.
    #[serde(skip)]
    pub named: Option<(String, String)>,
    /// The span of the string or symbol that names the template (its quotes included).
    #[serde(skip)]
    pub target_span: Option<Span>,
    /// `layout: "boxed"` (a layout for a partial or a template): the name and its span.
    #[serde(skip)]
    pub layout: Option<(String, Span)>,
    /// What `render @posts`, `render post`, `collection: @posts` or `object: @post` renders: the
    /// variable, sigil and all (a partial named after each record's model).
    #[serde(skip)]
    pub object: Option<String>,
    /// Renders a collection (`render @posts`, `collection:`): the partial gets its local per record.
    #[serde(skip)]
    pub collection: bool,
    /// `as: :item`: the local the record or collection item is passed as.
    #[serde(skip)]
    pub as_local: Option<String>,
    /// Every local it passes is in `locals` (no `locals: variable`, no `**splat`).
    #[serde(skip)]
    pub locals_known: bool,
    /// Its block (`render layout: "box" do … end`): the code in it runs inside the partial.
    #[serde(skip)]
    pub block_span: Option<Span>,
    /// It runs only when a condition asks whether something exists (`if defined?(Pro)`,
    /// `if path.exist?`, `if lookup_context.exists?(…)`): what it names may be missing on purpose.
    #[serde(skip)]
    pub guarded: bool,
    pub span: Span,
}

/// `Post.published.includes(:comments, author: :profile)`: a load of associations on a relation that
/// starts at a constant.
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct AssociationLoad {
    /// The constant the chain starts at: `Post`, `Admin::Report`.
    pub model: String,
    /// The methods between the constant and the load (`published`): a load is checked only when they
    /// keep the relation on that model.
    pub chain: Vec<String>,
    /// `includes`, `preload`, `eager_load`, `joins`, `left_joins`, `left_outer_joins`.
    pub method: String,
    /// The associations named at the top level (symbols, and the keys of a hash), with their spans.
    pub names: Vec<(String, Span)>,
}

/// Where a file uses what the rest of the app defines, each with its place: what navigation
/// (definition, references, hover) and the wiring checks resolve against the whole app. Read in the
/// same walk as the other references; resolving them is `app::nav`'s.
#[derive(Debug, Clone, Default, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Uses {
    /// Receiver-less method calls and bare names the code does not bind (`current_user`,
    /// `format_price(x)`): helpers, a controller's own methods, a partial's locals.
    pub calls: Vec<Reference>,
    /// The names among `calls` written bare (`post`, not `post(1)` or `post x`), sorted and unique:
    /// in a partial, its locals are among them.
    pub bare_names: Vec<String>,
    /// Methods called on a variable: `post.comments`, `@post.author` (for an association's uses).
    pub member_calls: Vec<MemberCall>,
    /// Every instance variable, read or written.
    pub ivars: Vec<IvarUse>,
    /// Every constant named, outermost (`Admin::Post`, not its `Admin`).
    pub constants: Vec<Reference>,
    /// `t("posts.index.title")`, `t(".title")`: literal i18n keys.
    pub translations: Vec<Translation>,
    /// Column names in query methods: `Post.where(title: …)`, `order(:created_at)`,
    /// `params.require(:post).permit(:title)`.
    pub columns: Vec<ColumnUse>,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct MemberCall {
    /// The receiver's name without its sigil: `post` for `@post.comments`.
    pub receiver: Box<str>,
    pub name: Box<str>,
    /// The method name's span.
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct IvarUse {
    /// With its `@`.
    pub name: Box<str>,
    pub span: Span,
    /// Assigned here (`@post = …`, `@posts ||= …`), not read.
    pub write: bool,
    /// Assigned by an operator that reads it first (`@posts ||= …`, `@count += 1`).
    pub compound: bool,
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Translation {
    /// The key as written, `scope:` prepended when it is literal: `posts.index.title`, or `.title`
    /// for Rails' lazy lookup (relative to the template, or to the controller and action).
    pub key: String,
    /// The string or symbol that names it.
    pub span: Span,
    /// `default:` is given: a missing key is no error.
    pub has_default: bool,
}

/// Which model a column name is looked up in.
#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub enum ColumnReceiver {
    /// A relation that starts at a constant (`Post.published.where(…)`), with the methods in between.
    Constant { name: String, chain: Vec<String> },
    /// No receiver (or `self.`, or a receiver-less relation chain: `where(a: 1).order(:b)`), in a class
    /// body: the class the code is in, when it is a model and the code runs on the class (a scope's
    /// body, a class method), with the methods before the query.
    OwnClass { chain: Vec<String> },
    /// `params.require(:post).permit(…)`, `params.expect(post: […])`: the parameter key.
    Params(String),
}

#[derive(Debug, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct ColumnUse {
    /// `where`, `order`, `pluck`, `find_by`, `permit`…
    pub method: String,
    pub receiver: ColumnReceiver,
    pub name: String,
    pub span: Span,
}

/// What Rails gives every view without arguments (`params`, `request`…): names a template reads that
/// are no local of a partial.
pub const VIEW_CONTEXT_METHODS: &[&str] = &[
    "action_name",
    "asset_host",
    "capture",
    "concat",
    "config",
    "content_for",
    "content_for?",
    "controller",
    "controller_name",
    "controller_path",
    "cookies",
    "csp_meta_tag",
    "csrf_meta_tags",
    "current_page?",
    "flash",
    "form_authenticity_token",
    "headers",
    "local_assigns",
    "logger",
    "notice",
    "alert",
    "output_buffer",
    "params",
    "protect_against_forgery?",
    "raw",
    "request",
    "response",
    "session",
    "tag",
    "turbo_stream",
    "url_options",
    "yield",
    "safe_join",
    "stylesheet_link_tag",
    "javascript_importmap_tags",
    "javascript_include_tag",
    "favicon_link_tag",
    "__method__",
    "binding",
    "block_given?",
    "caller",
    "lambda",
    "proc",
    "loop",
    "puts",
    "p",
    "pp",
    "rand",
    "raise",
    "sleep",
];

/// Query methods whose symbol arguments and hash keys name columns of the relation's model.
pub const COLUMN_METHODS: &[&str] = &[
    "where",
    "rewhere",
    "find_by",
    "find_by!",
    "find_or_create_by",
    "find_or_create_by!",
    "find_or_initialize_by",
    "create_or_find_by",
    "order",
    "reorder",
    "pluck",
    "pick",
];

/// Methods that keep a relation on the same model and its columns, between a constant and a query
/// method (or an association load). Not `select`, `group`, `having`: an alias may add a column.
pub const RELATION_METHODS: &[&str] = &[
    "all",
    "where",
    "not",
    "rewhere",
    "order",
    "reorder",
    "limit",
    "offset",
    "includes",
    "preload",
    "eager_load",
    "joins",
    "left_joins",
    "left_outer_joins",
    "distinct",
    "unscoped",
    "readonly",
    "lock",
    "references",
    "strict_loading",
    "none",
    "excluding",
    "without",
    "unscope",
    // Kaminari's and will_paginate's pages.
    "page",
    "per",
    "paginate",
];

#[derive(Debug, Clone, Default, PartialEq, bincode::Encode, bincode::Decode)]
pub struct References {
    pub route_helpers: Vec<Reference>,
    pub renders: Vec<RenderCall>,
    /// Instance variables read (not only written), sorted.
    pub ivars_read: Vec<String>,
    /// Receiver-less calls, sorted and unique.
    pub helper_calls: Vec<String>,
    /// Constants named (`Markly`, `SQLite3::Database`), sorted and unique.
    pub constants: Vec<String>,
    /// Each place the sqlite3 gem's API is named (`SQLite3::Database`, `SQLite3::BusyException`).
    pub sqlite3_uses: Vec<Reference>,
    pub association_loads: Vec<AssociationLoad>,
    /// Whole hashes written to an attribute: `record.update!(settings: { … })`, `record.settings = { … }`
    /// (the attribute's name and the write's span).
    pub hash_writes: Vec<(String, Span)>,
    pub uses: Uses,
}

impl References {
    /// Pushed one by one, each list has up to twice the room it needs, and the facts keep them as
    /// long as the file.
    fn shrink_to_fit(&mut self) {
        self.route_helpers.shrink_to_fit();
        self.renders.shrink_to_fit();
        self.sqlite3_uses.shrink_to_fit();
        self.association_loads.shrink_to_fit();
        self.hash_writes.shrink_to_fit();
        let uses = &mut self.uses;
        uses.calls.shrink_to_fit();
        uses.bare_names.shrink_to_fit();
        uses.member_calls.shrink_to_fit();
        uses.ivars.shrink_to_fit();
        uses.constants.shrink_to_fit();
        uses.translations.shrink_to_fit();
        uses.columns.shrink_to_fit();
    }
}

/// Methods that write attributes from their keyword arguments.
const ATTRIBUTE_WRITERS: &[&str] = &["update", "update!", "assign_attributes", "new", "create", "create!", "update_columns"];

/// `update!(settings: { … })` → `settings`; `x.settings = { … }` → `settings`.
fn hash_writes(node: Node<'_>, kind: &str, text: &str, out: &mut Vec<(String, Span)>) {
    match kind {
        "call" => {
            let Some(method) = node.field("method").map(|m| text_of(m, text)) else { return };
            if !ATTRIBUTE_WRITERS.contains(&method) {
                return;
            }
            let Some(arguments) = node.field("arguments") else { return };
            let mut cursor = arguments.walk();
            for pair in arguments.named_children(&mut cursor).filter(|p| p.kind_name() == "pair") {
                if let (Some(key), Some(value)) = (pair.field("key"), pair.field("value"))
                    && value.kind_name() == "hash"
                {
                    out.push((text_of(key, text).trim_start_matches(':').trim_end_matches(':').to_owned(), Span::of(pair)));
                }
            }
        }
        "assignment" => {
            if let (Some(left), Some(right)) = (node.field("left"), node.field("right"))
                && left.kind_name() == "call"
                && right.kind_name() == "hash"
                && let Some(name) = left.field("method")
            {
                out.push((text_of(name, text).to_owned(), Span::of(node)));
            }
        }
        _ => {}
    }
}

const LOAD_METHODS: [&str; 6] = ["includes", "preload", "eager_load", "joins", "left_joins", "left_outer_joins"];

/// `Post.where(…).includes(:comments)`: the constant the receiver chain starts at, the methods in
/// between, and the associations named.
fn association_load(call: Node<'_>, text: &str) -> Option<AssociationLoad> {
    let method = text_of(call.field("method")?, text);
    if !LOAD_METHODS.contains(&method) {
        return None;
    }
    let mut chain = Vec::new();
    let mut receiver = call.field("receiver")?;
    while receiver.kind_name() == "call" {
        chain.push(text_of(receiver.field("method")?, text).to_owned());
        receiver = receiver.field("receiver")?;
    }
    if !matches!(receiver.kind_name(), "constant" | "scope_resolution") {
        return None;
    }
    chain.reverse();
    let arguments = call.field("arguments")?;
    let mut names = Vec::new();
    let mut cursor = arguments.walk();
    for argument in arguments.named_children(&mut cursor) {
        match argument.kind_name() {
            "simple_symbol" => names.push((text_of(argument, text).trim_start_matches(':').to_owned(), Span::of(argument))),
            "pair" => {
                let key = argument.field("key")?;
                if matches!(key.kind_name(), "hash_key_symbol" | "simple_symbol") {
                    names.push((text_of(key, text).trim_start_matches(':').to_owned(), Span::of(key)));
                }
            }
            "hash" => {
                let mut inner = argument.walk();
                for pair in argument.named_children(&mut inner).filter(|p| p.kind_name() == "pair") {
                    if let Some(key) = pair.field("key").filter(|k| matches!(k.kind_name(), "hash_key_symbol" | "simple_symbol")) {
                        names.push((text_of(key, text).trim_start_matches(':').to_owned(), Span::of(key)));
                    }
                }
            }
            // A variable, a string, an array: not read.
            _ => return None,
        }
    }
    let model = text_of(receiver, text).trim_start_matches("::").to_owned();
    (!names.is_empty()).then(|| AssociationLoad { model, chain, method: method.to_owned(), names })
}

/// The local variables in scope as a walk in document order reaches each node: methods, classes and
/// modules open a fresh scope, blocks and lambdas one that sees the scope around them; parameters,
/// assignments, `rescue => e` and `for x in` bind names from that point on, as Ruby's parser does.
#[derive(Default, bincode::Encode, bincode::Decode)]
struct Locals {
    /// (end byte of the scope's node, sees the scope around it, names bound in it).
    stack: Vec<(usize, bool, std::collections::HashSet<String>)>,
}

impl Locals {
    /// Leaves the scopes that end before `node`, and opens the one it starts.
    fn visit(&mut self, node: Node<'_>, kind: &str, parent: Option<Node<'_>>, text: &str) {
        while self.stack.last().is_some_and(|(end, ..)| *end <= node.start_byte()) {
            self.stack.pop();
        }
        match kind {
            "method" | "singleton_method" | "class" | "module" | "singleton_class" => {
                self.stack.push((node.end_byte(), false, Default::default()));
            }
            "block" | "do_block" | "lambda" => self.stack.push((node.end_byte(), true, Default::default())),
            "identifier" if Self::binds(node, parent) => {
                let name = text_of(node, text).to_owned();
                match self.stack.last_mut() {
                    Some((_, _, names)) => {
                        names.insert(name);
                    }
                    None => self.stack.push((usize::MAX, false, std::iter::once(name).collect())),
                }
            }
            _ => {}
        }
    }

    /// Whether this identifier is a name being bound: a parameter, an assignment's target, `=> e`.
    fn binds(node: Node<'_>, parent: Option<Node<'_>>) -> bool {
        let Some(parent) = parent else { return false };
        match parent.kind_name() {
            // `def f(url = root_url, back: home_url)`: the name binds, the default is a value.
            _ if crate::syntax::is_parameter_name(node, parent) => true,
            "assignment" | "operator_assignment" => parent.field("left") == Some(node),
            "left_assignment_list" | "rest_assignment" | "exception_variable" | "for" => {
                parent.kind_name() != "for" || parent.field("pattern") == Some(node)
            }
            _ => false,
        }
    }

    fn bound(&self, name: &str) -> bool {
        for (_, transparent, names) in self.stack.iter().rev() {
            if names.contains(name) {
                return true;
            }
            if !transparent {
                return false;
            }
        }
        false
    }
}

/// The parameters of the blocks `text` opens (`do |item|`, `{ |a, (b, c)|`), read from the text: a
/// HAML template's masked Ruby takes the block structure out (`- items.each do |item|`), so its
/// parameters are not in the tree.
pub fn opened_block_parameters(text: &str) -> BTreeSet<String> {
    static OPENED_BLOCK: std::sync::LazyLock<regex_lite::Regex> =
        std::sync::LazyLock::new(|| regex_lite::Regex::new(r"(?:\bdo|\{)\s*\|([\w\s,*&()]*)\|").unwrap());
    OPENED_BLOCK
        .captures_iter(text)
        .flat_map(|opened| {
            opened[1].split([',', '(', ')', '*', '&']).map(str::trim).filter(|p| !p.is_empty()).map(str::to_owned).collect::<Vec<_>>()
        })
        .collect()
}

pub fn extract(root: Node<'_>, text: &str) -> References {
    let mut references = References::default();
    let mut read = BTreeSet::new();
    let mut helpers = BTreeSet::new();
    let mut constants = BTreeSet::new();
    let mut bare = BTreeSet::new();
    let mut locals = Locals::default();
    // RSpec's `let(:x)`, `let!(:x)`, `subject(:x)`: methods of the example group, anywhere below it.
    let mut lets: BTreeSet<String> = BTreeSet::new();
    // Methods the file defines, wherever (`def stub_current_path(path)` inside an RSpec `describe`).
    let mut defined: BTreeSet<String> = BTreeSet::new();
    let mut block_parameters: BTreeSet<String> = BTreeSet::new();
    crate::syntax::for_each_node_with_parent(root, |node, parent, _| {
        // Asked once here for every reader of the node (tree-sitter answers it through two calls).
        let kind = node.kind_name();
        // Every kind read below is a named node's; the tokens between (`(`, `,`, `do`, `end`) are
        // half of a tree and bind or use nothing.
        if !node.is_named() {
            return;
        }
        locals.visit(node, kind, parent, text);
        hash_writes(node, kind, text, &mut references.hash_writes);
        if kind == "method"
            && let Some(name) = node.field("name")
        {
            defined.insert(text_of(name, text).to_owned());
        }
        // A block's parameters anywhere in the file: a HAML template's masked Ruby loses the block
        // structure that scopes them, so a use may sit outside the block as the tree sees it.
        if kind == "block_parameters" {
            let mut cursor = node.walk();
            for parameter in node.named_children(&mut cursor).filter(|p| p.kind_name() == "identifier") {
                block_parameters.insert(text_of(parameter, text).to_owned());
            }
        }
        match kind {
            "call" if node.field("receiver").is_none() => {
                if let Some(method) = node.field("method").filter(|m| m.kind_name() == "identifier") {
                    let name = text_of(method, text);
                    if name == "render" || name == "render_to_string" {
                        references.renders.extend(render_call(node, text));
                    }
                    if super::test_block(name) == Some(super::TestBlock::Value)
                        && let Some(first) = node.field("arguments").and_then(|a| a.named_child(0))
                        && first.kind_name() == "simple_symbol"
                    {
                        lets.insert(text_of(first, text).trim_start_matches(':').to_owned());
                    }
                    if is_route_helper(name) {
                        references.route_helpers.push(Reference { name: name.into(), span: Span::of(method) });
                    } else {
                        helpers.insert(name.to_owned());
                        references.uses.calls.push(Reference { name: name.into(), span: Span::of(method) });
                    }
                    if matches!(name, "t" | "translate") {
                        references.uses.translations.extend(translation(node, text));
                    }
                    if COLUMN_METHODS.contains(&name) {
                        column_uses(node, name, ColumnReceiver::OwnClass { chain: Vec::new() }, text, &mut references.uses.columns);
                    }
                }
            }
            // A bare name the code binds (a local, a parameter) is no route helper.
            "identifier" if is_value_position(node, parent) || is_receiver(node, parent) => {
                let name = text_of(node, text);
                if !locals.bound(name) {
                    if is_route_helper(name) {
                        if is_value_position(node, parent) {
                            references.route_helpers.push(Reference { name: name.into(), span: Span::of(node) });
                        }
                    } else if !matches!(name, "self" | "super" | "nil" | "true" | "false") {
                        references.uses.calls.push(Reference { name: name.into(), span: Span::of(node) });
                        bare.insert(name.to_owned());
                    }
                }
            }
            "call" => {
                references.association_loads.extend(association_load(node, text));
                call_uses(node, text, &mut references.uses);
            }
            "instance_variable" => {
                let assigned = is_assigned(node, parent);
                if !assigned {
                    read.insert(text_of(node, text).to_owned());
                }
                let compound = assigned && parent.is_some_and(|p| p.kind_name() == "operator_assignment");
                references.uses.ivars.push(IvarUse { name: text_of(node, text).into(), span: Span::of(node), write: assigned, compound });
            }
            "constant" | "scope_resolution" if parent.is_none_or(|p| p.kind_name() != "scope_resolution") => {
                let name = text_of(node, text).trim_start_matches("::");
                if name == "SQLite3" || name.starts_with("SQLite3::") {
                    references.sqlite3_uses.push(Reference { name: name.into(), span: Span::of(node) });
                }
                // A constant's own definition (`class Post`) is no use of it.
                if parent.is_none_or(|p| !matches!(p.kind_name(), "class" | "module") || p.field("name") != Some(node)) {
                    references.uses.constants.push(Reference { name: name.into(), span: Span::of(node) });
                }
                constants.insert(name.to_owned());
            }
            _ => {}
        }
    });
    references.uses.calls.retain(|r| !lets.contains(&*r.name));
    references.uses.bare_names = bare.into_iter().filter(|n: &String| !lets.contains(n)).collect();
    references.route_helpers.retain(|r| !lets.contains(&*r.name) && !defined.contains(&*r.name) && !block_parameters.contains(&*r.name));
    references.ivars_read = read.into_iter().collect();
    references.constants = constants.into_iter().collect();
    references.helper_calls = helpers.into_iter().collect();
    references.shrink_to_fit();
    references
}

/// A receiver's name (`post.comments` → `post`): a call on a method's result, never a local here.
fn is_receiver(node: Node<'_>, parent: Option<Node<'_>>) -> bool {
    parent.is_some_and(|p| p.kind_name() == "call" && p.field("receiver") == Some(node))
}

/// What a call with a receiver uses: `I18n.t("key")`, `post.comments`, `Post.where(title: …)`,
/// `params.require(:post).permit(:title)`.
fn call_uses(node: Node<'_>, text: &str, uses: &mut Uses) {
    let (Some(receiver), Some(method)) = (node.field("receiver"), node.field("method")) else { return };
    let name = text_of(method, text);
    match receiver.kind_name() {
        "constant" if matches!(name, "t" | "translate") && text_of(receiver, text) == "I18n" => {
            uses.translations.extend(translation(node, text));
        }
        "identifier" | "instance_variable" if method.kind_name() == "identifier" => {
            let receiver_name = text_of(receiver, text).trim_start_matches('@');
            if receiver_name == "params" {
                if name == "expect" {
                    params_expect(node, text, &mut uses.columns);
                }
            } else {
                uses.member_calls.push(MemberCall { receiver: receiver_name.into(), name: name.into(), span: Span::of(method) });
            }
        }
        _ => {}
    }
    // `where.not(title: nil)`, `Post.where.not(…)`: the columns of the relation `where` is called on.
    let bare_where = |n: Node<'_>| match n.kind_name() {
        "identifier" => text_of(n, text) == "where",
        "call" => n.field("method").is_some_and(|m| text_of(m, text) == "where") && n.field("arguments").is_none(),
        _ => false,
    };
    if name == "not" && bare_where(receiver) {
        let start = if receiver.kind_name() == "call" { receiver.field("receiver") } else { None };
        let relation = match start {
            None => Some(ColumnReceiver::OwnClass { chain: Vec::new() }),
            Some(start) => relation_start(start, text),
        };
        if let Some(relation) = relation {
            column_uses(node, "where.not", relation, text, &mut uses.columns);
        }
        return;
    }
    if name == "permit"
        && receiver.kind_name() == "call"
        && receiver.field("method").is_some_and(|m| matches!(text_of(m, text), "require" | "fetch"))
        && receiver.field("receiver").is_some_and(|r| text_of(r, text) == "params")
        && let Some(key) = receiver.field("arguments").and_then(|a| a.named_child(0)).and_then(|k| symbol_or_string(k, text))
    {
        column_uses(node, name, ColumnReceiver::Params(key), text, &mut uses.columns);
    } else if COLUMN_METHODS.contains(&name)
        && let Some(relation) = relation_start(receiver, text)
    {
        column_uses(node, name, relation, text, &mut uses.columns);
    }
}

/// Whether a call made on `node`'s result selects with SQL (`.pluck(Arel.sql("… as label"))`,
/// `.select("count(*) AS n")`): an `order` before it may name that alias.
fn aliased_later(node: Node<'_>, text: &str) -> bool {
    let mut current = node;
    while let Some(parent) =
        current.parent().filter(|p| p.kind_name() == "call" && p.field("receiver").is_some_and(|r| r.id() == current.id()))
    {
        let selects = parent.field("method").is_some_and(|m| matches!(text_of(m, text), "select" | "pluck" | "pick" | "group"));
        let sql = parent.field("arguments").is_some_and(|a| {
            let mut cursor = a.walk();
            a.named_children(&mut cursor).any(|argument| !matches!(argument.kind_name(), "simple_symbol" | "comment"))
        });
        if selects && sql {
            return true;
        }
        current = parent;
    }
    false
}

/// The relation a query is called on: a chain that starts at a constant (`Post.published.where` →
/// `Post`, `["published"]`), or at the class itself (`self.`, a receiver-less `where(…)`, a relation
/// method named bare). Whether the methods between keep the relation on the model is decided where
/// the model's scopes are known.
fn relation_start(mut receiver: Node<'_>, text: &str) -> Option<ColumnReceiver> {
    let mut chain = Vec::new();
    while receiver.kind_name() == "call" {
        let method = text_of(receiver.field("method")?, text);
        // `where.not(…)` keeps the relation; any other call with a block does not.
        if receiver.field("block").is_some() {
            return None;
        }
        chain.push(method.to_owned());
        match receiver.field("receiver") {
            Some(next) => receiver = next,
            None => {
                chain.reverse();
                return Some(ColumnReceiver::OwnClass { chain });
            }
        }
    }
    let own = |mut chain: Vec<String>| {
        chain.reverse();
        Some(ColumnReceiver::OwnClass { chain })
    };
    match receiver.kind_name() {
        "constant" | "scope_resolution" => {
            chain.reverse();
            Some(ColumnReceiver::Constant { name: text_of(receiver, text).trim_start_matches("::").to_owned(), chain })
        }
        "self" => own(chain),
        // A bare `where`, `all`, `order`… (a local of another name may hold anything).
        "identifier" if RELATION_METHODS.contains(&text_of(receiver, text)) => {
            chain.push(text_of(receiver, text).to_owned());
            own(chain)
        }
        _ => None,
    }
}

fn symbol_or_string(node: Node<'_>, text: &str) -> Option<String> {
    match crate::syntax::value::Value::from_node(node, text) {
        crate::syntax::value::Value::Symbol(s) | crate::syntax::value::Value::String(s) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// The column names a query call names: symbols (`order(:created_at)`, `pluck(:id, :title)`) and the
/// keys of its hash (`where(title: …)`, `order(created_at: :desc)`), but not a key whose value is a
/// hash (`where(authors: { name: … })` names a table) and nothing in a string (`"posts.title"`).
/// `permit`'s nested lists (`tags: []`, `address: [:city]`) name attributes by their keys.
fn column_uses(node: Node<'_>, method: &str, receiver: ColumnReceiver, text: &str, out: &mut Vec<ColumnUse>) {
    let Some(arguments) = node.field("arguments") else { return };
    // `order(label: :asc).pluck(Arel.sql("… as label"))`: the name may be the alias.
    if matches!(method, "order" | "reorder") && aliased_later(node, text) {
        return;
    }
    // `where("title = :t", t: x)`: after a SQL fragment, the hash holds bind values, not columns.
    let leading = arguments.named_child(0).filter(|a| a.kind_name() != "comment");
    if leading.is_some_and(|a| !matches!(a.kind_name(), "pair" | "hash" | "simple_symbol")) {
        return;
    }
    let mut push = |name: String, span: Span| {
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push(ColumnUse { method: method.to_owned(), receiver: receiver.clone(), name, span });
        }
    };
    let mut cursor = arguments.walk();
    for argument in arguments.named_children(&mut cursor) {
        match argument.kind_name() {
            "simple_symbol" if method != "where" && method != "rewhere" && !method.starts_with("find") => {
                push(text_of(argument, text).trim_start_matches(':').to_owned(), Span::of(argument));
            }
            "pair" | "hash" => {
                let pairs: Vec<Node<'_>> = if argument.kind_name() == "pair" {
                    vec![argument]
                } else {
                    let mut inner = argument.walk();
                    argument.named_children(&mut inner).filter(|p| p.kind_name() == "pair").collect()
                };
                for pair in pairs {
                    let (Some(key), Some(value)) = (pair.field("key"), pair.field("value")) else { continue };
                    if !matches!(key.kind_name(), "hash_key_symbol" | "simple_symbol") {
                        continue;
                    }
                    if value.kind_name() == "hash" && method != "permit" {
                        continue;
                    }
                    let name = text_of(key, text).trim_start_matches(':').trim_end_matches(':').to_owned();
                    push(name, Span::of(key));
                }
            }
            _ => {}
        }
    }
}

/// `params.expect(post: [:title, :body])`: the key and the attributes listed (Rails 8).
fn params_expect(node: Node<'_>, text: &str, out: &mut Vec<ColumnUse>) {
    let Some(arguments) = node.field("arguments") else { return };
    let mut cursor = arguments.walk();
    let pairs: Vec<Node<'_>> = arguments.named_children(&mut cursor).filter(|p| p.kind_name() == "pair").collect();
    for pair in pairs {
        let (Some(key), Some(value)) = (pair.field("key"), pair.field("value")) else { continue };
        if !matches!(key.kind_name(), "hash_key_symbol" | "simple_symbol") || value.kind_name() != "array" {
            continue;
        }
        let resource = text_of(key, text).trim_start_matches(':').trim_end_matches(':').to_owned();
        let mut inner = value.walk();
        for item in value.named_children(&mut inner) {
            match item.kind_name() {
                "simple_symbol" => out.push(ColumnUse {
                    method: "expect".to_owned(),
                    receiver: ColumnReceiver::Params(resource.clone()),
                    name: text_of(item, text).trim_start_matches(':').to_owned(),
                    span: Span::of(item),
                }),
                "pair" => {
                    if let Some(k) = item.field("key").filter(|k| matches!(k.kind_name(), "hash_key_symbol" | "simple_symbol")) {
                        out.push(ColumnUse {
                            method: "expect".to_owned(),
                            receiver: ColumnReceiver::Params(resource.clone()),
                            name: text_of(k, text).trim_start_matches(':').trim_end_matches(':').to_owned(),
                            span: Span::of(k),
                        });
                    }
                }
                _ => {}
            }
        }
    }
}

/// `t("a.b")`, `t(".b")`, `t(:b, scope: [:a])`, `I18n.t("a.b", default: "…")`: the literal key.
fn translation(node: Node<'_>, text: &str) -> Option<Translation> {
    let arguments = node.field("arguments")?;
    let first = arguments.named_child(0)?;
    if !matches!(first.kind_name(), "string" | "simple_symbol" | "delimited_symbol") {
        return None;
    }
    let key = symbol_or_string(first, text)?;
    let mut key = key;
    if let Some(scope) = option_value(arguments, "scope", text) {
        let scope = match crate::syntax::value::Value::from_node(scope, text) {
            crate::syntax::value::Value::Array(parts) => {
                parts.iter().map(|p| p.as_name().map(str::to_owned)).collect::<Option<Vec<String>>>()?.join(".")
            }
            other => other.as_name()?.to_owned(),
        };
        key = format!("{scope}.{key}");
    }
    let has_default = option_value(arguments, "default", text).is_some();
    // The span of the key itself, inside its quotes or after its colon.
    let mut span = Span::of(first);
    let written = text_of(first, text);
    let inner_start = written.find(|c: char| c != ':' && c != '"' && c != '\'').unwrap_or(0);
    let inner_end = written.trim_end_matches(['"', '\'']).len();
    if inner_start < inner_end && inner_start <= written.len() {
        span.start_byte += inner_start as u32;
        span.start.col += inner_start as u32;
        span.end_byte = span.start_byte + (inner_end - inner_start) as u32;
        if span.start.line == span.end.line {
            span.end.col = span.start.col + (inner_end - inner_start) as u32;
        }
    }
    Some(Translation { key, span, has_default })
}

/// `post_path`, `edit_admin_post_url`; not Rails' own asset and polymorphic helpers.
fn is_route_helper(name: &str) -> bool {
    let stem = name.strip_suffix("_path").or_else(|| name.strip_suffix("_url"));
    stem.is_some_and(|stem| !stem.is_empty() && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_'))
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !BUILTIN_PATH_HELPERS.contains(&name)
}

/// A bare identifier used as a value (`redirect_to posts_path`, `url: posts_path`, `<%= posts_path %>`),
/// not a method name, a parameter or an assignment target.
fn is_value_position(node: Node<'_>, parent: Option<Node<'_>>) -> bool {
    let Some(parent) = parent else { return false };
    match parent.kind_name() {
        "argument_list"
        | "program"
        | "body_statement"
        | "block_body"
        | "parenthesized_statements"
        | "then"
        | "else"
        | "interpolation"
        | "array" => true,
        "binary" | "unary" | "conditional" | "return" | "element_reference" | "if_modifier" | "unless_modifier" => true,
        "if" | "unless" | "elsif" => parent.field("condition") == Some(node),
        "pair" | "optional_parameter" | "keyword_parameter" => parent.field("value") == Some(node),
        // The body of an endless method: `def home = root_path`.
        "method" | "singleton_method" => parent.field("name") != Some(node),
        "assignment" | "operator_assignment" => parent.field("right") == Some(node),
        _ => false,
    }
}

/// `@post = …`, `@posts ||= …`: the variable is written there, not read.
fn is_assigned(node: Node<'_>, parent: Option<Node<'_>>) -> bool {
    parent.is_some_and(|p| match p.kind_name() {
        "assignment" | "operator_assignment" => p.field("left") == Some(node),
        // `@a, @b = pair`, `@head, *@rest = list`.
        "left_assignment_list" | "rest_assignment" | "destructured_left_assignment" => true,
        _ => false,
    })
}

/// `render`'s own options: any other key after a partial's name is a local.
const RENDER_OPTIONS: &[&str] = &[
    "partial",
    "locals",
    "collection",
    "object",
    "as",
    "layout",
    "formats",
    "status",
    "spacer_template",
    "cached",
    "content_type",
    "variants",
    "handlers",
    "template",
    "action",
    "inline",
    "plain",
    "html",
    "json",
    "xml",
    "js",
    "body",
    "file",
    "location",
];

/// Whether a condition around `node` (an `if`, `unless`, `elsif`, modifier, ternary or `&&`) asks
/// whether something exists: `defined?(X)`, `x.exist?`, `File.exist?(…)`, `template_exists?(…)`.
fn existence_guarded(node: Node<'_>, text: &str) -> bool {
    const ASKS: &[&str] = &["defined?", "exist?", "exists?", "any_templates?"];
    let mut current = node;
    while let Some(parent) = current.parent() {
        let condition = match parent.kind_name() {
            "if" | "unless" | "elsif" | "if_modifier" | "unless_modifier" | "conditional" => parent.field("condition"),
            "binary" => parent.field("left").filter(|left| left.id() != current.id()),
            _ => None,
        };
        if condition.is_some_and(|c| {
            let code = &text[c.byte_range()];
            ASKS.iter().any(|ask| code.contains(ask))
        }) {
            return true;
        }
        if matches!(parent.kind_name(), "method" | "singleton_method" | "class" | "module") {
            return false;
        }
        current = parent;
    }
    false
}

fn render_call(node: Node<'_>, text: &str) -> Option<RenderCall> {
    let call = call_of(node, text, "")?;
    let name_of = |v: &crate::syntax::value::Value| v.as_name().map_or_else(|| v.to_string(), str::to_owned);
    let target = call
        .arguments
        .first()
        .map(name_of)
        .or_else(|| ["partial", "template", "action", "layout"].iter().find_map(|k| call.option(k)).map(name_of));
    let options: Vec<String> = call.named_options().into_iter().map(|(k, _)| k).collect();
    let mut locals: Vec<String> = match call.option("locals") {
        Some(crate::syntax::value::Value::Hash(pairs)) => pairs.iter().filter_map(|(k, _)| k.as_name().map(str::to_owned)).collect(),
        _ => Vec::new(),
    };
    // `render "form", post: @post`, `render @post, compact: true`: after a partial or a record, the
    // hash is its locals (ActionView's `render(options, locals)`).
    if !call.arguments.is_empty() {
        locals.extend(options.iter().filter(|k| !RENDER_OPTIONS.contains(&k.as_str())).cloned());
    }
    let literal = |v: &crate::syntax::value::Value| match v {
        crate::syntax::value::Value::Symbol(s) | crate::syntax::value::Value::String(s) => Some(s.clone()),
        _ => None,
    };
    let named = match call.arguments.first() {
        Some(first) => literal(first).map(|name| (String::new(), name)),
        None => ["partial", "template", "action"].into_iter().find_map(|k| Some((k.to_owned(), literal(call.option(k)?)?))),
    };
    let arguments = node.field("arguments");
    let first_argument = arguments.and_then(|a| {
        let mut cursor = a.walk();
        a.named_children(&mut cursor).find(|c| c.kind_name() != "comment")
    });
    let target_span = match (&named, first_argument) {
        (Some((key, _)), Some(first)) if key.is_empty() => Some(Span::of(first)),
        (Some((key, _)), _) => arguments.and_then(|a| option_value(a, key, text)).map(Span::of),
        _ => None,
    };
    let layout = arguments
        .and_then(|a| option_value(a, "layout", text))
        .and_then(|v| Some((literal(&crate::syntax::value::Value::from_node(v, text))?, Span::of(v))));
    // `render @posts`, `render post.comments`, `render partial: "x", collection: @items`.
    let variable = |v: &crate::syntax::value::Value| match v {
        crate::syntax::value::Value::Code(code) if !code.contains(['(', ' ', '[', '"', '\'', ':']) => Some(code.clone()),
        _ => None,
    };
    let (object, collection) = match (call.arguments.first(), call.option("collection"), call.option("object")) {
        (_, Some(items), _) => (variable(items), true),
        (_, None, Some(object)) => (variable(object), false),
        (Some(first), None, None) if named.is_none() => {
            let object = variable(first);
            // A plural name renders a collection: `@posts`, `post.comments`.
            let last = object.as_deref().map(|o| o.rsplit(['.', '@']).next().unwrap_or(o).to_owned());
            let plural =
                last.as_deref().is_some_and(|l| crate::rails::inflect::pluralize(l) == l && crate::rails::inflect::singularize(l) != l);
            (object, plural)
        }
        _ => (None, false),
    };
    let as_local = call.option("as").and_then(|v| v.as_name()).map(str::to_owned);
    let splat = arguments.is_some_and(|a| {
        let mut cursor = a.walk();
        a.named_children(&mut cursor).any(|c| c.kind_name() == "hash_splat_argument")
    });
    let locals_known = !splat
        && match call.option("locals") {
            Some(crate::syntax::value::Value::Hash(_)) | None => arguments.and_then(|a| option_value(a, "locals", text)).is_none_or(|v| {
                let mut cursor = v.walk();
                v.kind_name() == "hash" && !v.named_children(&mut cursor).any(|c| c.kind_name() == "hash_splat_argument")
            }),
            Some(_) => false,
        };
    let block_span = call.block.as_ref().map(|b| b.span);
    let guarded = existence_guarded(node, text);
    Some(RenderCall {
        target,
        options,
        locals,
        named,
        target_span,
        layout,
        object,
        collection,
        as_local,
        locals_known,
        block_span,
        guarded,
        span: call.span,
    })
}

/// The value of the `key:` pair in an argument list.
fn option_value<'t>(arguments: Node<'t>, key: &str, text: &str) -> Option<Node<'t>> {
    let mut cursor = arguments.walk();
    let pairs: Vec<Node<'t>> = arguments
        .named_children(&mut cursor)
        .flat_map(|c| {
            if c.kind_name() == "hash" {
                let mut inner = c.walk();
                c.named_children(&mut inner).collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .filter(|c| c.kind_name() == "pair")
        .collect();
    pairs.into_iter().find_map(|pair| {
        let k = pair.field("key")?;
        let name = text_of(k, text).trim_start_matches(':').trim_end_matches(':').trim_matches('"');
        (name == key).then(|| pair.field("value")).flatten()
    })
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::syntax::{Language, ParsedFile};

    #[test]
    fn names_the_code_binds_are_no_route_helpers() {
        let text = r#"
def show(untrusted_url, fallback_url = root_url, return_url: home_url)
  back_url = request.referrer
  link_to "Back", back_url
  [untrusted_url, fallback_url, return_url, posts_path]
end
def other = back_url
items.each { |item_url| item_url.present? && item_path }
begin
  run
rescue => error_path
  error_path
end
let(:login_path) { "/login" }
it { visit login_path }
describe "links" do
  def stub_current_path(path) = path
  it { stub_current_path("/top") }
end
"#;
        let parsed = ParsedFile::parse(Language::Ruby, text);
        let found = extract(parsed.ruby.as_ref().unwrap().root_node(), text);
        let names: Vec<String> = found.route_helpers.iter().map(|r| format!("{}:{}", r.span.start.line, r.name)).collect();
        // The defaults are values; a local of one method is a method call in another.
        assert_eq!(names, ["1:root_url", "1:home_url", "4:posts_path", "6:back_url", "7:item_path"]);
    }

    #[test]
    fn finds_route_helpers_renders_ivars_and_helpers() {
        let text = r#"
class PostsController < ApplicationController
  def create
    @post = Post.new(post_params)
    @cache ||= {}
    redirect_to post_path(@post), notice: "Created"
    redirect_to posts_url
    link_to "All", url: admin_posts_path
    render :new, status: :unprocessable_entity
    request.path
    image_path("logo.png")
  end

  def index_path = root_path
end
"#;
        let parsed = ParsedFile::parse(Language::Ruby, text);
        let found = extract(parsed.ruby.as_ref().unwrap().root_node(), text);
        let helpers: Vec<String> =
            found.route_helpers.iter().map(|r| format!("{} {}", r.name, serde_json::to_string(&r.span).unwrap())).collect();
        expect![[r#"
            [
                "post_path \"6:17-6:26\"",
                "posts_url \"7:17-7:26\"",
                "admin_posts_path \"8:25-8:41\"",
                "root_path \"14:20-14:29\"",
            ]
        "#]]
        .assert_debug_eq(&helpers);
        assert_eq!(found.ivars_read, ["@post"]);
        assert_eq!(found.renders.len(), 1);
        assert_eq!(found.renders[0].target.as_deref(), Some("new"));
        assert_eq!(found.renders[0].options, ["status"]);
        expect![[r#"
            [
                "image_path",
                "link_to",
                "redirect_to",
                "render",
            ]
        "#]]
        .assert_debug_eq(&found.helper_calls);
    }
}

//! Document symbols (a Rails-aware outline: associations, validations, callbacks, scopes, actions,
//! filters, routes nested as written, schema tables and columns) and workspace symbols (models,
//! controllers, actions, templates, tables, library classes) with fuzzy matching.

use std::sync::Arc;

use super::SymbolKind;
use crate::rails::project::FileKind;
use crate::rails::{self, Declaration, FileFacts, TestBlock, inflect};
use crate::syntax::Span;
use crate::syntax::outline::{Call, Item, NamespaceKind, Visibility};

#[derive(Debug, Clone, PartialEq)]
pub struct DocumentSymbol {
    pub name: String,
    pub detail: Option<String>,
    pub kind: SymbolKind,
    pub span: Span,
    pub selection_span: Span,
    pub children: Vec<DocumentSymbol>,
}

const ROUTE_NAMESPACES: &[&str] = &[
    "namespace",
    "scope",
    "member",
    "collection",
    "constraints",
    "defaults",
    "controller",
    "concern",
    "nested",
    "shallow",
    "direct",
    "resolve",
];
const ROUTE_VERBS: &[&str] = &["get", "post", "put", "patch", "delete", "options", "match", "root", "mount", "draw", "concerns"];

pub fn document_symbols(facts: &FileFacts) -> Vec<DocumentSymbol> {
    if let Some(schema) = facts.schema.as_deref().or(facts.database_schema.as_deref()) {
        return schema
            .tables
            .iter()
            .map(|table| {
                let mut children: Vec<DocumentSymbol> = table
                    .columns
                    .iter()
                    .map(|c| symbol(c.name.clone(), Some(column_detail(c)), SymbolKind::Field, c.span, c.span))
                    .collect();
                children.extend(table.indexes.iter().map(|i| {
                    let name = format!("index [{}]", i.columns.join(", "));
                    symbol(name, i.unique.then(|| "unique".to_owned()), SymbolKind::Key, i.span, i.span)
                }));
                DocumentSymbol {
                    children,
                    ..symbol(table.name.clone(), Some("table".to_owned()), SymbolKind::Struct, table.span, table.name_span)
                }
            })
            .collect();
    }
    let context = Context { kind: facts.kind, in_routes: facts.routes.is_some() };
    items(&facts.outline.items, &context, false)
}

struct Context {
    kind: Option<FileKind>,
    in_routes: bool,
}

fn symbol(name: String, detail: Option<String>, kind: SymbolKind, span: Span, selection_span: Span) -> DocumentSymbol {
    DocumentSymbol { name, detail, kind, span, selection_span, children: Vec::new() }
}

fn column_detail(c: &crate::rails::schema::Column) -> String {
    let mut detail = c.column_type.clone();
    if !c.null {
        detail.push_str(", null: false");
    }
    if let Some(default) = &c.default {
        detail.push_str(&format!(", default: {default}"));
    }
    if let Some(limit) = c.limit {
        detail.push_str(&format!(", limit: {limit}"));
    }
    detail
}

fn items(items: &[Item], context: &Context, in_controller: bool) -> Vec<DocumentSymbol> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Namespace(ns) => {
                let is_controller = context.kind == Some(FileKind::Controller) && ns.kind == NamespaceKind::Class;
                let detail = match (&ns.superclass, context.kind) {
                    (Some(superclass), Some(FileKind::Model)) => Some(format!("< {superclass} · table {}", inflect::tableize(&ns.name))),
                    (Some(superclass), _) => Some(format!("< {superclass}")),
                    (None, _) => None,
                };
                let kind = if ns.kind == NamespaceKind::Class { SymbolKind::Class } else { SymbolKind::Module };
                out.push(DocumentSymbol {
                    children: self::items(&ns.items, context, is_controller),
                    ..symbol(ns.name.clone(), detail, kind, ns.span, ns.name_span)
                });
            }
            Item::Method(def) => {
                let detail = match (in_controller, def.visibility, def.singleton) {
                    (_, _, true) => Some("class method".to_owned()),
                    (true, Visibility::Public, _) => Some("action".to_owned()),
                    (_, Visibility::Private, _) => Some("private".to_owned()),
                    (_, Visibility::Protected, _) => Some("protected".to_owned()),
                    _ => None,
                };
                let name = if def.singleton && !def.name.starts_with("self.") { format!("self.{}", def.name) } else { def.name.clone() };
                out.push(symbol(name, detail, SymbolKind::Method, def.span, def.name_span));
            }
            Item::Call(call) => {
                if let Some(s) = call_symbol(call, context) {
                    out.push(s);
                } else if let Some(block) = &call.block {
                    // A block that is not itself a symbol (`Rails.application.routes.draw do`): its contents are.
                    out.extend(self::items(&block.items, context, in_controller));
                }
            }
            Item::Assignment(assignment) => {
                let is_constant = assignment.target.starts_with(|c: char| c.is_ascii_uppercase());
                let kind = if is_constant { SymbolKind::Constant } else { SymbolKind::Property };
                if is_constant
                    || assignment.target.starts_with("config.")
                    || assignment.target.starts_with("self.")
                    || assignment.target.contains("config.")
                {
                    out.push(symbol(
                        assignment.target.clone(),
                        Some(truncate(&assignment.value.to_string(), 60)),
                        kind,
                        assignment.span,
                        assignment.target_span,
                    ));
                }
            }
            Item::SingletonClass { span, items } => {
                out.push(DocumentSymbol {
                    children: self::items(items, context, false),
                    ..symbol("class << self".to_owned(), None, SymbolKind::Module, *span, *span)
                });
            }
            // What a conditional defines is listed where it stands, both branches.
            Item::Conditional(conditional) => {
                out.extend(self::items(&conditional.then_items, context, in_controller));
                out.extend(self::items(&conditional.else_items, context, in_controller));
            }
        }
    }
    out
}

fn call_symbol(call: &Call, context: &Context) -> Option<DocumentSymbol> {
    let method = call.method.as_str();
    if context.in_routes && call.receiver.is_none() {
        let kind = if ROUTE_NAMESPACES.contains(&method) {
            SymbolKind::Namespace
        } else if method == "resources" || method == "resource" {
            SymbolKind::Struct
        } else if ROUTE_VERBS.contains(&method) {
            SymbolKind::Method
        } else {
            SymbolKind::Function
        };
        let children = call.block.as_ref().map(|b| items(&b.items, context, false)).unwrap_or_default();
        return Some(DocumentSymbol { children, ..symbol(call_label(call), None, kind, call.span, call.name_span) });
    }
    if context.kind == Some(FileKind::Test)
        && let Some(symbol) = test_symbol(call, context)
    {
        return Some(symbol);
    }
    if call.receiver.is_some() {
        // `Rails.application.configure do`, `ActiveSupport.on_load(:x) do`: only calls with blocks matter.
        let block = call.block.as_ref()?;
        let children = items(&block.items, context, false);
        return Some(DocumentSymbol { children, ..symbol(call_label(call), None, SymbolKind::Function, call.span, call.name_span) });
    }
    let kind = match rails::declaration(method) {
        Some(Declaration::Association) => SymbolKind::Field,
        Some(Declaration::Attribute) => SymbolKind::Property,
        Some(Declaration::Callback) => SymbolKind::Event,
        Some(Declaration::Scope) => SymbolKind::Function,
        Some(Declaration::Enum) => SymbolKind::Enum,
        Some(Declaration::Module) => SymbolKind::Interface,
        None if matches!(method, "private" | "protected" | "public" | "require" | "require_relative") && call.block.is_none() => {
            return None;
        }
        // Outside a Rails app, a blockless call in a class body is just code.
        None if context.kind.is_none() && call.block.is_none() => return None,
        None => SymbolKind::Key,
    };
    let children = call.block.as_ref().map(|b| items(&b.items, context, false)).unwrap_or_default();
    Some(DocumentSymbol { children, ..symbol(call_label(call), None, kind, call.span, call.name_span) })
}

/// A test's groups (`describe`, `context`), cases (`test`, `it`, `should`), hooks (`setup`,
/// `before`) and shared values (`let`, `subject`), as minitest, shoulda and RSpec write them
/// (`rails::test_block`). A case's body is the test's work, not an outline; a case without a block
/// is a pending one, or a shoulda one-liner (`should validate_presence_of(:name)`).
fn test_symbol(call: &Call, context: &Context) -> Option<DocumentSymbol> {
    let kind = match (call.receiver.as_deref(), rails::test_block(&call.method)?) {
        (Some("RSpec"), TestBlock::Group) if call.method == "describe" => SymbolKind::Namespace,
        (Some(_), _) => return None,
        (None, TestBlock::Group) => SymbolKind::Namespace,
        (None, TestBlock::Case) => SymbolKind::Method,
        (None, TestBlock::Hook) => SymbolKind::Event,
        (None, TestBlock::Value) => SymbolKind::Property,
    };
    let children = match &call.block {
        _ if kind == SymbolKind::Method => Vec::new(),
        Some(block) => items(&block.items, context, false),
        None => return None,
    };
    Some(DocumentSymbol { children, ..symbol(call_label(call), None, kind, call.span, call.name_span) })
}

/// `has_many :comments, dependent: :destroy`, shortened for an outline.
pub fn call_label(call: &Call) -> String {
    let mut label = call.receiver.as_ref().map_or_else(|| call.method.clone(), |r| format!("{r}.{}", call.method));
    let parts: Vec<String> = call
        .arguments
        .iter()
        .filter(|v| !matches!(v, crate::syntax::value::Value::Lambda(_)))
        .map(ToString::to_string)
        .chain(call.options.iter().map(|(k, v)| match k.as_name() {
            Some(name) if matches!(k, crate::syntax::value::Value::Symbol(_)) => format!("{name}: {v}"),
            _ => format!("{k} => {v}"),
        }))
        .collect();
    if !parts.is_empty() {
        label.push(' ');
        label.push_str(&parts.join(", "));
    }
    truncate(&label, 80)
}

fn truncate(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > max { format!("{}…", one_line.chars().take(max - 1).collect::<String>()) } else { one_line }
}

#[derive(Debug, Clone)]
pub struct WorkspaceSymbol {
    pub name: String,
    pub kind: SymbolKind,
    pub container: Option<String>,
    pub file: Arc<FileFacts>,
    pub span: Span,
}

/// Symbols across the workspace whose name fuzzily matches `query` (case-insensitive subsequence),
/// best matches first: exact, then prefix, then substring, then subsequence.
pub fn workspace_symbols(snapshot: &[Arc<FileFacts>], query: &str, limit: usize) -> Vec<WorkspaceSymbol> {
    let query = query.to_lowercase();
    let mut found: Vec<(u8, WorkspaceSymbol)> = Vec::new();
    let mut push = |name: String, kind: SymbolKind, container: Option<String>, file: &Arc<FileFacts>, span: Span| {
        if let Some(rank) = match_rank(&name, &query) {
            found.push((rank, WorkspaceSymbol { name, kind, container, file: Arc::clone(file), span }));
        }
    };
    for file in snapshot {
        for model in &file.models {
            push(model.class_name.clone(), SymbolKind::Class, Some(format!("model · {}", file.relative_path)), file, model.name_span);
        }
        for controller in &file.controllers {
            push(
                controller.class_name.clone(),
                SymbolKind::Class,
                Some(format!("controller · {}", file.relative_path)),
                file,
                controller.name_span,
            );
            for action in &controller.actions {
                push(
                    format!("{}#{}", controller.class_name, action.name),
                    SymbolKind::Method,
                    Some("action".to_owned()),
                    file,
                    action.name_span,
                );
            }
        }
        if let Some(template) = &file.template {
            let name = file.relative_path.strip_prefix("app/views/").unwrap_or(&file.relative_path).to_owned();
            let kind = if template.partial {
                "partial"
            } else if template.layout {
                "layout"
            } else {
                "template"
            };
            push(name, SymbolKind::File, Some(kind.to_owned()), file, Span::default());
        }
        if let Some(schema) = &file.schema {
            for table in &schema.tables {
                push(
                    table.name.clone(),
                    SymbolKind::Struct,
                    Some(format!("table · {} columns", table.columns.len())),
                    file,
                    table.name_span,
                );
            }
        }
        for definition in &file.definitions {
            let kind = if definition.kind == NamespaceKind::Class { SymbolKind::Class } else { SymbolKind::Module };
            push(definition.name.clone(), kind, Some(file.relative_path.clone()), file, definition.name_span);
        }
    }
    found.sort_by(|(ra, a), (rb, b)| ra.cmp(rb).then(a.name.len().cmp(&b.name.len())).then(a.name.cmp(&b.name)));
    found.into_iter().take(limit).map(|(_, s)| s).collect()
}

fn match_rank(name: &str, query: &str) -> Option<u8> {
    if query.is_empty() {
        return Some(3);
    }
    let lower = name.to_lowercase();
    if lower == query {
        return Some(0);
    }
    if lower.starts_with(query) || lower.rsplit(['#', ':', '/']).next().is_some_and(|last| last.starts_with(query)) {
        return Some(1);
    }
    if lower.contains(query) {
        return Some(2);
    }
    let mut chars = lower.chars();
    query.chars().all(|q| chars.any(|c| c == q)).then_some(3)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::test_fixture::Fixture;

    fn render(symbols: &[DocumentSymbol], depth: usize, out: &mut String) {
        for s in symbols {
            let detail = s.detail.as_ref().map(|d| format!(" — {d}")).unwrap_or_default();
            out.push_str(&format!("{}{:?} {}{} @{}\n", "  ".repeat(depth), s.kind, s.name, detail, s.selection_span.start.line + 1));
            render(&s.children, depth + 1, out);
        }
    }

    fn check(fixture: &str, file: &str, expect: Expect) {
        let fixture = Fixture::new(fixture);
        let mut out = String::new();
        render(&document_symbols(&fixture.facts(file)), 0, &mut out);
        expect.assert_eq(&out);
    }

    #[test]
    fn model_outline_names_the_rails_dsl() {
        check(
            r#"
            #- /app/models/post.rb
            class Post < ApplicationRecord
              include Trashable
              belongs_to :author, class_name: "User"
              has_many :comments, -> { order(:id) }, dependent: :destroy
              validates :title, presence: true
              before_save :strip
              scope :recent, -> { order(created_at: :desc) }
              enum :status, { draft: 0, live: 1 }
              def self.search(q) = where(title: q)
              private
              def strip; end
            end
            "#,
            "app/models/post.rb",
            expect![[r#"
                Class Post — < ApplicationRecord · table posts @1
                  Interface include Trashable @2
                  Field belongs_to :author, class_name: "User" @3
                  Field has_many :comments, dependent: :destroy @4
                  Property validates :title, presence: true @5
                  Event before_save :strip @6
                  Function scope :recent @7
                  Enum enum :status, { draft: 0, live: 1 } @8
                  Method self.search — class method @9
                  Method strip — private @11
            "#]],
        );
    }

    #[test]
    fn controller_outline_marks_actions_and_filters() {
        check(
            r#"
            #- /app/controllers/admin/posts_controller.rb
            module Admin
              class PostsController < ApplicationController
                before_action :set_post, only: %i[show]
                def index; end
                def show; end
                private
                def set_post; end
              end
            end
            "#,
            "app/controllers/admin/posts_controller.rb",
            expect![[r#"
                Module Admin @1
                  Class Admin::PostsController — < ApplicationController @2
                    Event before_action :set_post, only: [:show] @3
                    Method index — action @4
                    Method show — action @5
                    Method set_post — private @7
            "#]],
        );
    }

    /// A template's outline is the helpers it calls; a block's parameter output bare is no call.
    #[test]
    fn template_outline_lists_calls_not_block_parameters() {
        check(
            r#"
            #- /app/views/layouts/application.html.erb
            <%= csrf_meta_tags %>
            <% flash.each do |type, message| %>
              <div class="<%= type %>"><%= message %></div>
              <%= link_to "Dismiss", root_path %>
            <% end %>
            "#,
            "app/views/layouts/application.html.erb",
            expect![[r#"
                Key csrf_meta_tags @1
                Function flash.each @2
                  Key link_to "Dismiss", root_path @4
            "#]],
        );
    }

    /// A test's outline is its cases and what they share, not the assertions inside them.
    #[test]
    fn test_outline_lists_cases_not_assertions() {
        check(
            r#"
            #- /test/models/post_test.rb
            require "test_helper"
            class PostTest < ActiveSupport::TestCase
              include ActiveJob::TestHelper
              fixtures :all
              setup do
                @post = posts(:one)
                sign_in users(:admin)
              end
              test "publishes" do
                post = Post.new
                assert_difference "Post.count" do
                  post.save!
                end
                assert_equal "live", post.status
              end
              context "when archived" do
                setup { @post.archive! }
                should "hide it" do
                  refute @post.visible?
                end
                should validate_presence_of(:title)
                Post.stub(:limit, 1) do
                  assert_predicate @post, :capped?
                end
              end
              test "drafts"
              def helper_for_tests; end
            end
            "#,
            "test/models/post_test.rb",
            expect![[r#"
                Class PostTest — < ActiveSupport::TestCase @2
                  Interface include ActiveJob::TestHelper @3
                  Key fixtures :all @4
                  Event setup @5
                  Method test "publishes" @9
                  Namespace context "when archived" @16
                    Event setup @17
                    Method should "hide it" @18
                    Method should validate_presence_of(:title) @21
                  Method test "drafts" @26
                  Method helper_for_tests @27
            "#]],
        );
        check(
            r##"
            #- /spec/models/post_spec.rb
            RSpec.describe Post do
              include_context "with a blog"
              let(:post) { create(:post) }
              subject { post.title }
              before { travel_to Time.current }
              describe "#publish" do
                it "publishes" do
                  expect(post.publish).to be(true)
                end
                it { is_expected.to eq("x") }
                it "unpublishes"
                %w[draft live].each do |state|
                  it "publishes a #{state} post" do
                    expect(post.publish).to be(true)
                  end
                end
              end
            end
            "##,
            "spec/models/post_spec.rb",
            expect![[r##"
                Namespace RSpec.describe Post @1
                  Interface include_context "with a blog" @2
                  Property let :post @3
                  Property subject @4
                  Event before @5
                  Namespace describe "#publish" @6
                    Method it "publishes" @7
                    Method it @10
                    Method it "unpublishes" @11
                    Function %w[draft live].each @12
                      Method it "publishes a #{state} post" @13
            "##]],
        );
    }

    #[test]
    fn routes_nest_as_written() {
        check(
            r#"
            #- /config/routes.rb
            Rails.application.routes.draw do
              root "posts#index"
              resources :posts do
                member { patch :publish }
              end
              namespace :admin do
                get "stats", to: "stats#show"
              end
            end
            "#,
            "config/routes.rb",
            expect![[r#"
                Function Rails.application.routes.draw @1
                  Method root "posts#index" @2
                  Struct resources :posts @3
                    Namespace member @4
                      Method patch :publish @4
                  Namespace namespace :admin @6
                    Method get "stats", to: "stats#show" @7
            "#]],
        );
    }

    #[test]
    fn schema_lists_tables_and_columns() {
        check(
            r#"
            #- /db/schema.rb
            ActiveRecord::Schema[8.0].define(version: 2025_01_01_000000) do
              create_table "posts", force: :cascade do |t|
                t.string "title", limit: 200, null: false
                t.references :author, foreign_key: { to_table: :users }
                t.timestamps
                t.index ["title"], unique: true
              end
            end
            "#,
            "db/schema.rb",
            expect![[r#"
                Struct posts — table @2
                  Field id — bigint, null: false @2
                  Field title — string, null: false, limit: 200 @3
                  Field author_id — bigint @4
                  Field created_at — datetime, null: false @5
                  Field updated_at — datetime, null: false @5
                  Key index [author_id] @4
                  Key index [title] — unique @6
            "#]],
        );
        // Another database's schema (not Roundhouse's, read for navigation) lists its tables alike.
        check(
            r#"
            #- /db/queue_schema.rb
            ActiveRecord::Schema[8.0].define(version: 1) do
              create_table "solid_queue_jobs", force: :cascade do |t|
                t.string "queue_name", null: false
              end
            end
            "#,
            "db/queue_schema.rb",
            expect![[r#"
                Struct solid_queue_jobs — table @2
                  Field id — bigint, null: false @2
                  Field queue_name — string, null: false @3
            "#]],
        );
    }

    #[test]
    fn workspace_symbols_rank_exact_and_prefix_matches_first() {
        let fixture = Fixture::new(
            r#"
            #- /app/models/post.rb
            class Post < ApplicationRecord; end
            #- /app/controllers/posts_controller.rb
            class PostsController < ApplicationController
              def index; end
            end
            #- /app/views/posts/index.html.erb
            <%= render @posts %>
            #- /db/schema.rb
            ActiveRecord::Schema[8.0].define(version: 1) do
              create_table "posts" do |t|
              end
            end
            "#,
        );
        let snapshot = fixture.index.snapshot();
        let names: Vec<String> = workspace_symbols(&snapshot, "post", 10).into_iter().map(|s| format!("{:?} {}", s.kind, s.name)).collect();
        expect![[r#"
            [
                "Class Post",
                "Struct posts",
                "Class PostsController",
                "File posts/index.html.erb",
                "Method PostsController#index",
            ]
        "#]]
        .assert_debug_eq(&names);
        let fuzzy: Vec<String> = workspace_symbols(&snapshot, "pcidx", 10).into_iter().map(|s| s.name).collect();
        assert_eq!(fuzzy, ["PostsController#index"]);
    }
}

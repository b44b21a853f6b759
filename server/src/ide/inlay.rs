//! Inline specialization: at the end of each Rails DSL line, what Roundhouse turns it into — the query
//! an association runs, how many checks a validation adds, the SQL a scope folds to, the actions a
//! filter is inlined into, how many routes a `resources` makes — and, on a line a rule flags, the rule
//! and what is lost. Hover on the same lines shows the slice of the built-in preview that the line
//! produces.

use std::sync::Arc;

use super::routes::Hover;
use crate::app::AppContext;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rails::FileFacts;
use crate::rails::route_table::{Route, RouteKind};
use crate::rails::routes::RouteCall;
use crate::roundhouse::lowering::Kind;
use crate::syntax::{LineCol, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HintKind {
    Association,
    Validation,
    Scope,
    Filter,
    Route,
    /// A job's or mailer's class-side methods (`entry_points`).
    EntryPoint,
    Rule,
}

impl HintKind {
    /// The name settings use to turn a kind off (`inlayHints.associations = false`).
    pub fn setting(self) -> &'static str {
        match self {
            HintKind::Association => "associations",
            HintKind::Validation => "validations",
            HintKind::Scope => "scopes",
            HintKind::Filter => "filters",
            HintKind::Route => "routes",
            HintKind::EntryPoint => "entryPoints",
            HintKind::Rule => "rules",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hint {
    /// Where the hint sits: the end of the construct's first line.
    pub position: LineCol,
    pub label: String,
    pub kind: HintKind,
}

fn at_line_end(facts: &FileFacts, span: Span) -> LineCol {
    facts.line_index.line_end(span.start.line)
}

pub fn inlay_hints(facts: &FileFacts, context: &AppContext, diagnostics: &[Diagnostic]) -> Vec<Hint> {
    let mut hints = Vec::new();
    // What each model statement becomes, from the one lowering the rules and the preview read too.
    let tables = |name: &str| context.files.iter().filter_map(|f| f.schema.as_ref()).find_map(|s| s.table(name));
    for model in &facts.models {
        for item in crate::roundhouse::lowering::lower(model, &tables) {
            let kind = match item.kind {
                Kind::Association => HintKind::Association,
                Kind::Validation => HintKind::Validation,
                Kind::Scope => HintKind::Scope,
                _ => continue,
            };
            if let Some(label) = item.hint {
                hints.push(Hint { position: at_line_end(facts, item.span), label, kind });
            }
        }
    }
    // What became of each filter: the controller lowering's verdict, as the preview shows it.
    for controller in &facts.controllers {
        use crate::roundhouse::controller_lowering::Fate;
        let lowered = crate::roundhouse::controller_lowering::lower(controller, context);
        let mut seen = Vec::new();
        for fate in &lowered.filters {
            let label = match &fate.fate {
                Fate::NeverApplied => "never applied".to_owned(),
                Fate::Skip | Fate::Dropped => continue,
                Fate::Inlined(actions) if actions.is_empty() => "inlined into no action".to_owned(),
                Fate::Inlined(actions) => format!("inlined into {}", actions.join(", ")),
                Fate::Dispatched => "runs in process_action".to_owned(),
                Fate::Unresolved => "dropped: no such method".to_owned(),
                Fate::NoRoutes => "not applied: no routes file, so no dispatcher".to_owned(),
            };
            // One hint per call: `before_action :a, :b` says each target's fate in one label.
            let label = if lowered.filters.iter().filter(|f| f.span == fate.span).count() > 1 {
                format!(":{} {label}", fate.target)
            } else {
                label
            };
            if seen.contains(&(fate.span, label.clone())) {
                continue;
            }
            seen.push((fate.span, label.clone()));
            hints.push(Hint { position: at_line_end(facts, fate.span), label, kind: HintKind::Filter });
        }
    }
    // What a job's or mailer's class side gets, from the lowering its rules and preview read.
    for class in crate::roundhouse::entry_points::lower(facts, context) {
        for entry in &class.entries {
            let label = entry.hint(&class.namespace.name, class.kind);
            hints.push(Hint { position: at_line_end(facts, entry.name_span()), label, kind: HintKind::EntryPoint });
        }
    }
    if let Some(routes) = &facts.routes {
        // This file's routes, by where they start: each call's are one run of them (a binary search,
        // not a pass over the app's whole table per call).
        let mut own: Vec<&Route> = context.table.routes.iter().filter(|r| r.file == facts.relative_path).collect();
        own.sort_by_key(|r| (r.span.start_byte, r.span.end_byte));
        route_hints(&routes.calls, facts, &own, &mut hints);
    }
    for diagnostic in
        diagnostics.iter().filter(|d| d.rule.family() != crate::catalogue::Family::Syntax && d.rule != rule!("views.template-parse-error"))
    {
        let fate = match diagnostic.severity {
            // Wiring checks: Rails itself fails there, whatever Roundhouse does.
            _ if diagnostic.rule.family() == crate::catalogue::Family::Rails => "fails at run time",
            Severity::Error => "not compiled",
            Severity::Warning => "dropped or changed",
            Severity::Info => "note",
        };
        hints.push(Hint {
            position: at_line_end(facts, diagnostic.span),
            label: format!("⚠ {} · {fate}", diagnostic.rule),
            kind: HintKind::Rule,
        });
    }
    hints.sort_by_key(|h| (h.position, h.kind as u8));
    hints
}

fn route_hints(calls: &[RouteCall], facts: &FileFacts, own: &[&Route], hints: &mut Vec<Hint>) {
    for call in calls {
        let from = own.partition_point(|r| r.span.start_byte < call.span.start_byte);
        let to = from + own[from..].partition_point(|r| r.span.start_byte <= call.span.end_byte);
        let inside: Vec<&&Route> = own[from..to].iter().filter(|r| r.span.end_byte <= call.span.end_byte).collect();
        match call.method.as_str() {
            "resources" | "resource" => {
                let own = inside.iter().filter(|r| r.span == call.span).count();
                let in_block = |label: &str| inside.iter().filter(|r| r.span != call.span && r.chain.iter().any(|c| c == label)).count();
                let (member, collection) = (in_block("member"), in_block("collection"));
                let on = |level: &str| {
                    call.children.iter().filter(|c| c.options.iter().any(|(k, v)| k == "on" && v.as_name() == Some(level))).count()
                };
                let (member, collection) = (member + on("member"), collection + on("collection"));
                let mut label = format!("{own} route{}", if own == 1 { "" } else { "s" });
                if member > 0 {
                    label.push_str(&format!(" · +{member} member"));
                }
                if collection > 0 {
                    label.push_str(&format!(" · +{collection} collection"));
                }
                hints.push(Hint { position: at_line_end(facts, call.span), label, kind: HintKind::Route });
            }
            "get" | "post" | "patch" | "put" | "delete" | "match" | "root" => {
                if let Some(route) = inside.iter().find(|r| r.span == call.span && r.kind == RouteKind::Action) {
                    let name = route.name.as_ref().map(|n| format!(" · {n}_path")).unwrap_or_default();
                    hints.push(Hint {
                        position: at_line_end(facts, call.span),
                        label: format!("{} {} → {}{name}", route.verb, route.path, route.controller_action()),
                        kind: HintKind::Route,
                    });
                }
            }
            _ => {}
        }
        route_hints(&call.children, facts, own, hints);
    }
}

/// Hover on a DSL line (or an action name): the preview lines that line produces, as Ruby.
pub fn hover_slice(
    context: &Arc<AppContext>,
    index: &crate::index::Index,
    facts: &FileFacts,
    text: Option<String>,
    offset: usize,
) -> Option<Hover> {
    let line = facts.line_index.line_col(offset).line;
    // An action name: the whole lowered action. A DSL line: what maps to it.
    let action = facts.controllers.iter().flat_map(|c| c.actions.iter()).find(|a| a.name_span.contains(offset));
    let dsl_span = facts
        .models
        .iter()
        .flat_map(|m| {
            m.associations
                .iter()
                .map(|a| a.span)
                .chain(m.validations.iter().map(|v| v.span))
                .chain(m.callbacks.iter().map(|c| c.span))
                .chain(m.scopes.iter().map(|s| s.span))
                .chain(m.enums.iter().map(|e| e.span))
        })
        .chain(facts.controllers.iter().flat_map(|c| c.filters.iter().map(|f| f.span)))
        .find(|span| span.start.line == line);
    let (from, to, span) = match (action, dsl_span) {
        (Some(action), _) => (action.span.start.line, action.span.end.line, action.name_span),
        (None, Some(span)) => (span.start.line, span.start.line, span),
        (None, None) => return None,
    };
    let preview = super::preview::preview_file(index, &facts.path, text, crate::roundhouse::tree::Target::Ruby, Some(Arc::clone(context)))?;
    let lines: Vec<&str> = preview.text.lines().collect();
    let mut picked: Vec<u32> = preview.mapping.iter().filter(|(_, source)| *source >= from && *source <= to).map(|(p, _)| *p).collect();
    picked.sort_unstable();
    picked.dedup();
    if picked.is_empty() {
        return None;
    }
    // An action: its whole `def … end` in the preview, from the first mapped line to the matching `end`.
    let slice: Vec<&str> = if action.is_some() {
        // The `def` among the mapped lines (`process_action`'s `when` lines map here too).
        let start = picked
            .iter()
            .map(|p| *p as usize)
            .find(|p| lines.get(*p).is_some_and(|l| l.trim_start().starts_with("def ")))
            .unwrap_or(picked[0] as usize);
        let indent = lines.get(start).map_or(0, |l| l.len() - l.trim_start().len());
        let end = (start + 1..lines.len())
            .find(|i| lines[*i].trim() == "end" && lines[*i].len() - lines[*i].trim_start().len() == indent)
            .unwrap_or(start);
        lines[start..=end].to_vec()
    } else {
        picked.iter().filter_map(|p| lines.get(*p as usize).copied()).collect()
    };
    let mut markdown = format!("Roundhouse's specialization (Switchyard's approximation):\n\n```ruby\n{}\n```", dedent(&slice));
    let diagnostics = facts.diagnostics.iter().filter(|d| d.span.start.line == line);
    for d in diagnostics {
        markdown.push_str(&format!("\n\n**{}**: {}", d.rule, d.message));
    }
    Some(Hover { markdown, span })
}

fn dedent(lines: &[&str]) -> String {
    let indent = lines.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    lines.iter().map(|l| l.get(indent..).unwrap_or(l.trim_start())).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::{app_diagnostics, file_diagnostics};
    use crate::test_fixture::Fixture;

    const APP: &str = r#"
        #- /db/schema.rb
        ActiveRecord::Schema[8.0].define(version: 1) do
          create_table "posts" do |t|
            t.references :author, null: false
            t.string "title"
          end
          create_table "comments" do |t|
            t.references :post
          end
        end
        #- /app/models/post.rb
        class Post < ApplicationRecord
          belongs_to :author, class_name: "User"
          has_many :comments, dependent: :destroy
          has_many :tags, through: :taggings
          validates :title, presence: true, length: { minimum: 3 }
          validates :slug, uniqueness: true
          scope :recent, -> { order(created_at: :desc) }
          scope :published, -> { where(published: true).limit(10) }
          scope :by, ->(user) { where(author: user) }
        end
        #- /app/controllers/posts_controller.rb
        class PostsController < ApplicationController
          before_action :set_post, only: %i[show edit]
          after_action :track
          def index; end
          def show; end
          def edit; end
          private
          def set_post
            @post = Post.find(params[:id])
          end
        end
        #- /config/routes.rb
        Rails.application.routes.draw do
          resources :posts do
            member { post :publish; post :archive }
            get :drafts, on: :collection
          end
          get "about", to: "pages#about"
          mount Sidekiq::Web => "/sidekiq"
        end
    "#;

    fn hints(fixture: &Fixture, file: &str) -> String {
        let snapshot = fixture.index.snapshot();
        let context = AppContext::new(&fixture.index, &fixture.root, &snapshot);
        let facts = fixture.facts(file);
        let derived = app_diagnostics(&context);
        let diagnostics = file_diagnostics(&facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), None);
        inlay_hints(&facts, &context, &diagnostics).iter().map(|h| format!("{}: {:?} {}\n", h.position.line + 1, h.kind, h.label)).collect()
    }

    #[test]
    fn model_hints() {
        let fixture = Fixture::new(APP);
        expect_test::expect![[r#"
            2: Association User.find(author_id) · author_id: bigint, null: false
            3: Association SELECT … FROM comments WHERE post_id = ? · destroy cascades
            4: Association read at run time (through/polymorphic)
            4: Rule ⚠ rails.unknown-association · fails at run time
            5: Validation 2 checks in validate
            6: Validation 0 checks in validate · 1 not enforced
            6: Rule ⚠ model.validation-ignored · dropped or changed
            6: Rule ⚠ rails.unknown-column · fails at run time
            7: Scope SQL: SELECT … FROM posts ORDER BY created_at DESC
            7: Rule ⚠ rails.unknown-column · fails at run time
            8: Scope SQL: SELECT … FROM posts WHERE published = ? LIMIT 10
            8: Rule ⚠ rails.unknown-column · fails at run time
            9: Scope dynamic
        "#]]
        .assert_eq(&hints(&fixture, "app/models/post.rb"));
    }

    #[test]
    fn controller_routes_and_flagged_hints() {
        let fixture = Fixture::new(APP);
        expect_test::expect![[r#"
            2: Filter inlined into show, edit
            3: Filter never applied
            3: Rule ⚠ controller.after-around-filter · dropped or changed
            4: Rule ⚠ rails.missing-template · fails at run time
            5: Rule ⚠ rails.missing-template · fails at run time
            6: Rule ⚠ rails.missing-template · fails at run time
        "#]]
        .assert_eq(&hints(&fixture, "app/controllers/posts_controller.rb"));
        expect_test::expect![[r#"
            2: Route 8 routes · +2 member · +1 collection
            3: Route POST /posts/:id/publish(.:format) → posts#publish · publish_post_path
            3: Route POST /posts/:id/archive(.:format) → posts#archive · archive_post_path
            4: Route GET /posts/drafts(.:format) → posts#drafts · drafts_posts_path
            6: Route GET /about(.:format) → pages#about · about_path
            6: Rule ⚠ rails.missing-action · fails at run time
            7: Rule ⚠ routes.mount · dropped or changed
        "#]]
        .assert_eq(&hints(&fixture, "config/routes.rb"));
    }

    #[test]
    fn hover_slices_show_what_a_line_becomes() {
        let fixture = Fixture::new(APP);
        let snapshot = fixture.index.snapshot();
        let context = Arc::new(AppContext::new(&fixture.index, &fixture.root, &snapshot));
        let model = fixture.facts("app/models/post.rb");
        let text = "class Post < ApplicationRecord\n".to_owned();
        let hover =
            hover_slice(&context, &fixture.index, &model, Some(text.clone()), fixture.at("app/models/post.rb", "ha$0s_many :comments"))
                .unwrap();
        expect_test::expect![[r#"
            Roundhouse's specialization (Switchyard's approximation):

            ```ruby
            # has_many :comments
            # SELECT * FROM comments WHERE post_id = ?
            def comments = Comment.where(post_id: @id)
            ```"#]]
        .assert_eq(&hover.markdown);
        let controller = fixture.facts("app/controllers/posts_controller.rb");
        let source = fixture.texts[&fixture.path("app/controllers/posts_controller.rb")].clone();
        let show = fixture.at("app/controllers/posts_controller.rb", "def $0show");
        let hover = hover_slice(&context, &fixture.index, &controller, Some(source), show).unwrap();
        expect_test::expect![[r#"
            Roundhouse's specialization (Switchyard's approximation):

            ```ruby
            def show
              # before_action :set_post (PostsController), inlined
              @post = Post.find(params[:id])
              # implicit render, made explicit
              head(:no_content) # no template: what Rails answers
            end
            ```"#]]
        .assert_eq(&hover.markdown);
    }
}

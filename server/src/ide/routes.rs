//! Route navigation: hover on a routes-file call (every route it expands to) or on a `*_path` helper,
//! go to definition from a helper (the route call, then the controller action), find the uses of a
//! route's helpers, a code lens over each controller action with its `VERB /path`, and completion of
//! route helper names.

use std::sync::Arc;

use crate::app::AppContext;
use crate::rails::route_table::{Route, RouteKind};
use crate::rails::routes::RouteCall;
use crate::rails::{FileFacts, inflect};
use crate::syntax::Span;

pub use crate::app::nav::Target;

pub struct Hover {
    pub markdown: String,
    pub span: Span,
}

pub struct Lens {
    pub span: Span,
    pub title: String,
    pub target: Target,
}

pub struct Completion {
    pub label: String,
    pub detail: String,
    pub documentation: String,
}

fn file(context: &AppContext, relative: &str) -> Option<Arc<FileFacts>> {
    context.files.iter().find(|f| f.relative_path == relative).cloned()
}

/// The innermost route call in `calls` that contains `offset`.
fn call_at(calls: &[RouteCall], offset: usize) -> Option<&RouteCall> {
    let call = calls.iter().find(|c| c.span.contains(offset))?;
    call_at(&call.children, offset).or(Some(call))
}

/// The route helper reference (`post_path`) under `offset`, and the route name it uses.
fn helper_at(facts: &FileFacts, offset: usize) -> Option<(&crate::rails::references::Reference, &str)> {
    let reference = facts.route_helper_calls.iter().find(|r| r.span.contains(offset))?;
    let name = reference.name.strip_suffix("_path").or_else(|| reference.name.strip_suffix("_url"))?;
    Some((reference, name))
}

fn route_row(route: &Route) -> String {
    let helper = route.name.as_ref().map(|n| format!("`{n}_path`")).unwrap_or_default();
    let verb = if route.verb.is_empty() { "any" } else { &route.verb };
    format!("| {verb} | `{}` | `{}` | {helper} |", route.path, route.controller_action())
}

pub fn hover(context: &AppContext, facts: &FileFacts, offset: usize) -> Option<Hover> {
    if let Some((reference, name)) = helper_at(facts, offset) {
        let route = context.table.routes.iter().find(|r| r.name.as_deref() == Some(name))?;
        let verb = if route.verb.is_empty() { "any verb" } else { &route.verb };
        let markdown = format!(
            "**`{}`** → `{verb} {}` → `{}`\n\n{}:{}",
            reference.name,
            route.path,
            route.controller_action(),
            route.file,
            route.span.start.line + 1
        );
        return Some(Hover { markdown, span: reference.span });
    }
    let routes_file = facts.routes.as_ref()?;
    let call = call_at(&routes_file.calls, offset)?;
    let routes: Vec<&Route> = context
        .table
        .routes
        .iter()
        .filter(|r| r.file == facts.relative_path && r.span.start_byte >= call.span.start_byte && r.span.end_byte <= call.span.end_byte)
        .collect();
    let mut markdown = format!("**`{}`**", call.label());
    if routes.is_empty() {
        markdown.push_str(" — no routes");
        if let Some(skipped) = context.table.skipped.iter().find(|s| s.file == facts.relative_path && s.span == call.span) {
            markdown.push_str(&format!(" ({})", skipped.reason));
        }
    } else {
        markdown.push_str(&format!(
            " → {} route{}\n\n| Verb | Path | Controller#Action | Helper |\n|---|---|---|---|\n",
            routes.len(),
            if routes.len() == 1 { "" } else { "s" }
        ));
        markdown.push_str(&routes.iter().map(|r| route_row(r)).collect::<Vec<_>>().join("\n"));
    }
    Some(Hover { markdown, span: call.name_span })
}

/// The controller action a route reaches, when the app defines it.
fn action_target(context: &AppContext, route: &Route) -> Option<Target> {
    let (controller, action) = (route.controller.as_ref()?, route.action.as_ref()?);
    let (file, i) = context.controllers.get(&context.controller_class(controller))?;
    let method = file.controllers[*i].actions.iter().find(|a| a.name == *action)?;
    Some(Target { file: Arc::clone(file), span: method.name_span })
}

/// From a `*_path`/`*_url` helper: the route call that defines it, then the controller action.
pub fn definition(context: &AppContext, facts: &FileFacts, offset: usize) -> Vec<Target> {
    let Some((_, name)) = helper_at(facts, offset) else { return Vec::new() };
    let mut targets = Vec::new();
    if let Some(route) = context.table.routes.iter().find(|r| r.name.as_deref() == Some(name)) {
        targets.extend(file(context, &route.file).map(|f| Target { file: f, span: route.span }));
        targets.extend(action_target(context, route));
    } else if let Some(helper) = context.table.helpers.iter().find(|h| h.name == name) {
        targets.extend(file(context, &helper.file).map(|f| Target { file: f, span: helper.span }));
    }
    targets
}

/// Every use of the helpers of the route(s) under `offset` (a helper, or a call in a routes file).
pub fn references(context: &AppContext, facts: &FileFacts, offset: usize, include_declaration: bool) -> Vec<Target> {
    let names: Vec<String> = match helper_at(facts, offset) {
        Some((_, name)) => vec![name.to_owned()],
        None => {
            let Some(call) = facts.routes.as_ref().and_then(|r| call_at(&r.calls, offset)) else { return Vec::new() };
            context
                .table
                .routes
                .iter()
                .filter(|r| r.file == facts.relative_path && r.span == call.span)
                .filter_map(|r| r.name.clone())
                .collect()
        }
    };
    let mut targets = Vec::new();
    if include_declaration {
        for route in context.table.routes.iter().filter(|r| r.name.as_ref().is_some_and(|n| names.contains(n))) {
            targets.extend(file(context, &route.file).map(|f| Target { file: f, span: route.span }));
        }
    }
    for file in &context.files {
        for reference in &file.route_helper_calls {
            let name = reference.name.strip_suffix("_path").or_else(|| reference.name.strip_suffix("_url")).unwrap_or("");
            if names.iter().any(|n| n == name) {
                targets.push(Target { file: Arc::clone(file), span: reference.span });
            }
        }
    }
    targets
}

/// Over each action of each controller in `facts`: the routes that reach it.
pub fn code_lenses(context: &AppContext, facts: &FileFacts) -> Vec<Lens> {
    let mut lenses = Vec::new();
    for controller in &facts.controllers {
        let controller_path = inflect::underscore(controller.class_name.strip_suffix("Controller").unwrap_or(&controller.class_name));
        for action in &controller.actions {
            let routes: Vec<&Route> = context
                .table
                .routes
                .iter()
                .filter(|r| {
                    r.kind == RouteKind::Action
                        && r.controller.as_deref() == Some(controller_path.as_str())
                        && r.action.as_deref() == Some(action.name.as_str())
                })
                .collect();
            let Some(first) = routes.first() else { continue };
            let Some(route_file) = file(context, &first.file) else { continue };
            // PATCH and PUT of one update read as one line.
            let mut shown: Vec<String> = Vec::new();
            for route in &routes {
                let text = format!("{} {}", route.verb, route.path);
                let merged = shown.iter_mut().find(|s| s.ends_with(&format!(" {}", route.path)) && route.verb == "PUT");
                match merged {
                    Some(existing) if existing.starts_with("PATCH ") => *existing = existing.replacen("PATCH ", "PATCH|PUT ", 1),
                    _ => shown.push(text),
                }
            }
            lenses.push(Lens { span: action.name_span, title: shown.join(" · "), target: Target { file: route_file, span: first.span } });
        }
    }
    lenses
}

/// Route helpers whose name starts with `prefix` (both `_path` and `_url`).
pub fn completions(context: &AppContext, prefix: &str) -> Vec<Completion> {
    let mut out = Vec::new();
    for route in &context.table.routes {
        let Some(name) = &route.name else { continue };
        for suffix in ["_path", "_url"] {
            let label = format!("{name}{suffix}");
            if label.starts_with(prefix) {
                let verb = if route.verb.is_empty() { "any" } else { &route.verb };
                out.push(Completion { label, detail: format!("{verb} {}", route.path), documentation: route.controller_action() });
            }
        }
    }
    out
}

/// ActionDispatch's `ConsoleFormatter::Sheet`: the header is padded to the widest route (not to the
/// header words), the rows to the wider of the two; names right-aligned, the rest left-aligned.
pub fn format_table(routes: &[&Route]) -> String {
    if routes.is_empty() {
        return "You don't have any routes defined!\n\nPlease add some routes in config/routes.rb.\n".to_owned();
    }
    let names: Vec<&str> = routes.iter().map(|r| r.name.as_deref().unwrap_or("")).collect();
    let width = |f: &dyn Fn(usize) -> usize| (0..routes.len()).map(f).max().unwrap_or(0);
    let name_width = width(&|i| names[i].chars().count());
    let verb_width = width(&|i| routes[i].verb.chars().count());
    let path_width = width(&|i| routes[i].path.chars().count());
    let mut out = format!("{:>name_width$} {:<verb_width$} {:<path_width$} Controller#Action\n", "Prefix", "Verb", "URI Pattern");
    let (name_width, verb_width, path_width) = (name_width.max(6), verb_width.max(4), path_width.max(11));
    for (route, name) in routes.iter().zip(&names) {
        out.push_str(&format!(
            "{name:>name_width$} {:<verb_width$} {:<path_width$} {}\n",
            route.verb,
            route.path,
            route.controller_action()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixture::Fixture;

    const APP: &str = r#"
        #- /config/routes.rb
        Rails.application.routes.draw do
          resources :posts, only: [:index, :show, :update] do
            get :drafts, on: :collection
          end
        end
        #- /app/controllers/posts_controller.rb
        class PostsController < ApplicationController
          def index; end
          def show; end
          def update; end
          def drafts; end
        end
        #- /app/views/posts/index.html.erb
        <%= link_to "Drafts", drafts_posts_path %> <%= link_to "One", post_url(1) %>
    "#;

    fn context(fixture: &Fixture) -> AppContext {
        AppContext::new(&fixture.index, &fixture.root, &fixture.index.snapshot())
    }

    #[test]
    fn hover_on_a_resources_call_lists_its_routes() {
        let fixture = Fixture::new(APP);
        let facts = fixture.facts("config/routes.rb");
        let offset = fixture.at("config/routes.rb", "re$0sources :posts");
        let hover = hover(&context(&fixture), &facts, offset).unwrap();
        expect_test::expect![[r#"
            **`resources :posts, only: [:index, :show, :update]`** → 5 routes

            | Verb | Path | Controller#Action | Helper |
            |---|---|---|---|
            | GET | `/posts/drafts(.:format)` | `posts#drafts` | `drafts_posts_path` |
            | GET | `/posts(.:format)` | `posts#index` | `posts_path` |
            | GET | `/posts/:id(.:format)` | `posts#show` | `post_path` |
            | PATCH | `/posts/:id(.:format)` | `posts#update` |  |
            | PUT | `/posts/:id(.:format)` | `posts#update` |  |"#]]
        .assert_eq(&hover.markdown);
    }

    #[test]
    fn definition_goes_to_the_route_and_the_action() {
        let fixture = Fixture::new(APP);
        let view = fixture.facts("app/views/posts/index.html.erb");
        let offset = fixture.at("app/views/posts/index.html.erb", "d$0rafts_posts_path");
        let targets: Vec<String> = definition(&context(&fixture), &view, offset)
            .iter()
            .map(|t| format!("{}:{}", t.file.relative_path, t.span.start.line + 1))
            .collect();
        assert_eq!(targets, ["config/routes.rb:3", "app/controllers/posts_controller.rb:5"]);
    }

    #[test]
    fn references_find_path_and_url_uses() {
        let fixture = Fixture::new(APP);
        let view = fixture.facts("app/views/posts/index.html.erb");
        let offset = fixture.at("app/views/posts/index.html.erb", "$0post_url(1)");
        let found = references(&context(&fixture), &view, offset, true);
        let names: Vec<String> =
            found.iter().map(|t| format!("{}:{}:{}", t.file.relative_path, t.span.start.line + 1, t.span.start.col + 1)).collect();
        assert_eq!(names, ["config/routes.rb:2:3", "app/views/posts/index.html.erb:1:63"]);
    }

    #[test]
    fn code_lenses_show_each_actions_routes() {
        let fixture = Fixture::new(APP);
        let lenses = code_lenses(&context(&fixture), &fixture.facts("app/controllers/posts_controller.rb"));
        let titles: Vec<&str> = lenses.iter().map(|l| l.title.as_str()).collect();
        assert_eq!(
            titles,
            ["GET /posts(.:format)", "GET /posts/:id(.:format)", "PATCH|PUT /posts/:id(.:format)", "GET /posts/drafts(.:format)"]
        );
    }

    #[test]
    fn completion_offers_path_and_url_helpers_with_their_route() {
        let fixture = Fixture::new(APP);
        let items: Vec<String> =
            completions(&context(&fixture), "pos").iter().map(|c| format!("{} {} {}", c.label, c.detail, c.documentation)).collect();
        assert_eq!(
            items,
            [
                "posts_path GET /posts(.:format) posts#index",
                "posts_url GET /posts(.:format) posts#index",
                "post_path GET /posts/:id(.:format) posts#show",
                "post_url GET /posts/:id(.:format) posts#show"
            ]
        );
    }
}

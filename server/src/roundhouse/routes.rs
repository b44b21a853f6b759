//! The `routes.*` rules: routing DSL Roundhouse rejects (`routes.unsupported-dsl`, `routes.malformed`,
//! `routes.draw-missing`) or drops and changes (`routes.mount`, `routes.redirect`,
//! `routes.missing-target`, `routes.resource-option-ignored`). Roundhouse reads `get/post/put/patch/
//! delete/head/options/match`, `root`, `resources`/`resource` (`only`, `except`, `as`), `namespace`,
//! `scope`, `member`/`collection`/`constraints` blocks, `draw(:name)` and `direct`; anything else in a
//! routes file stops its compile.

use crate::diagnostic::{Diagnostic, Severity};
use crate::rails::routes::RouteCall;
use crate::syntax::value::Value;

pub const UNSUPPORTED_DSL: crate::diagnostic::RuleId = rule!("routes.unsupported-dsl");
pub const MOUNT: crate::diagnostic::RuleId = rule!("routes.mount");
pub const DRAW_MISSING: crate::diagnostic::RuleId = rule!("routes.draw-missing");
pub const REDIRECT: crate::diagnostic::RuleId = rule!("routes.redirect");
pub const MISSING_TARGET: crate::diagnostic::RuleId = rule!("routes.missing-target");
pub const RESOURCE_OPTION_IGNORED: crate::diagnostic::RuleId = rule!("routes.resource-option-ignored");
pub const MALFORMED: crate::diagnostic::RuleId = rule!("routes.malformed");
pub const STATEMENT_SKIPPED: crate::diagnostic::RuleId = rule!("routes.statement-skipped");
pub const FILE_NOT_DRAWN: crate::diagnostic::RuleId = rule!("routes.file-not-drawn");

/// `routes.file-not-drawn` on the first call of `config/routes/<name>.rb`, which nothing draws.
pub fn not_drawn(name: &str, calls: &[RouteCall]) -> Option<Diagnostic> {
    let first = calls.iter().find(|c| !c.method.starts_with("require")).or(calls.first())?;
    let span = if first.name_span.end_byte > first.name_span.start_byte { first.name_span } else { first.span };
    Some(crate::diagnostic::Diagnostic::finding(
        FILE_NOT_DRAWN,
        span,
        format!(
            "config/routes.rb does not draw this file (`draw(:{name})`), and Roundhouse reads no other routes file: none of its routes are in the compiled app. Add `draw(:{name})` to config/routes.rb, with this file holding the calls alone."
        ),
    ))
}

const VERBS: &[&str] = &["get", "post", "put", "patch", "delete", "head", "options", "match"];
const SUPPORTED: &[&str] =
    &["root", "resources", "resource", "namespace", "scope", "member", "collection", "constraints", "draw", "direct", "mount"];
const IGNORED_RESOURCE_OPTIONS: &[&str] = &["controller", "path", "param", "shallow", "module", "concerns", "constraints", "defaults"];

/// An option that says what Rails does without it (`resources :users, controller: "users"`,
/// `resource :session, controller: :sessions`, `path: "users"`, `param: :id`, `shallow: false`):
/// ignoring it changes no route, so there is nothing to report.
fn option_is_default(method: &str, name: Option<&str>, key: &str, value: &Value) -> bool {
    let written = value.as_name();
    match (key, name, written) {
        ("controller", Some(name), Some(controller)) => {
            let default = if method == "resource" { crate::rails::inflect::pluralize(name) } else { name.to_owned() };
            controller == default
        }
        ("path", Some(name), Some(path)) => path.trim_matches('/') == name,
        ("param", _, Some(param)) => param == "id",
        ("shallow", _, _) => matches!(value, Value::Bool(false)),
        _ => false,
    }
}

/// Checks the calls of one routes file. `drawn_exists(name)` says whether `config/routes/<name>.rb` is there.
pub fn check(calls: &[RouteCall], drawn_exists: &dyn Fn(&str) -> bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    walk(calls, false, drawn_exists, &mut out);
    out
}

fn diagnostic(out: &mut Vec<Diagnostic>, span: crate::syntax::Span, severity: Severity, rule: crate::diagnostic::RuleId, message: String) {
    out.push(Diagnostic { span, severity, rule, message });
}

fn walk(calls: &[RouteCall], in_resources: bool, drawn_exists: &dyn Fn(&str) -> bool, out: &mut Vec<Diagnostic>) {
    for call in calls {
        // Roundhouse reads only calls without a receiver: a loop (`%w(a b).each do`), a call on
        // something, and a statement that is no call (an `if`) are skipped, routes and all. Each
        // routing call inside says so, where its routes are written.
        if call.receiver.is_some() || call.method == "if" {
            let around = match &call.receiver {
                Some(receiver) => format!("`{receiver}.{}`", call.method),
                None => format!("the `if {}`", call.arguments.first().map(ToString::to_string).unwrap_or_default()),
            };
            skipped_routes(&call.children, &around, out);
            continue;
        }
        let method = call.method.as_str();
        let mut descend = true;
        if VERBS.contains(&method) {
            if call.arguments.is_empty() && call.targets.is_empty() {
                diagnostic(
                    out,
                    call.span,
                    Severity::Error,
                    MALFORMED,
                    format!(
                        "`{method}` without a path: Roundhouse stops the compile (\"verb route without arguments\"). Give the path: `{method} \"path\", to: \"controller#action\"`."
                    ),
                );
            } else if let Some(to) = call.options.iter().find(|(k, _)| k == "to").map(|(_, v)| v) {
                if matches!(to, Value::Code(code) if code.starts_with("redirect")) {
                    let span = call.option_span("to").unwrap_or(call.span);
                    diagnostic(out, span, Severity::Warning, REDIRECT, "Roundhouse drops redirect routes: this URL answers 404 in the compiled app. Redirect from a controller action instead (`redirect_to \"/b\", status: :moved_permanently`).".to_owned());
                }
            } else if call.targets.is_empty() && !in_resources && !call.options.iter().any(|(k, _)| k == "action") {
                diagnostic(
                    out,
                    call.span,
                    Severity::Warning,
                    MISSING_TARGET,
                    format!(
                        "Roundhouse drops a `{method}` route without `to:` outside `resources` (Rails would infer the controller from the path). Name the target: `to: \"controller#action\"`."
                    ),
                );
            }
        } else if method == "mount" {
            diagnostic(
                out,
                call.span,
                Severity::Warning,
                MOUNT,
                "Roundhouse drops `mount`: the mounted app's routes do not exist in the compiled app.".to_owned(),
            );
            descend = false;
        } else if method == "direct" {
            // Its block builds a URL (`route_for`, `url_for`…): Ruby, not routing DSL.
            descend = false;
        } else if method == "draw" {
            match call.arguments.first().and_then(Value::as_name) {
                Some(name) if !drawn_exists(name) => diagnostic(
                    out,
                    call.span,
                    Severity::Error,
                    DRAW_MISSING,
                    format!("`draw(:{name})` but there is no config/routes/{name}.rb: Roundhouse stops the compile (and Rails raises)."),
                ),
                None => diagnostic(
                    out,
                    call.span,
                    Severity::Error,
                    MALFORMED,
                    "`draw` without a route-file name: Roundhouse stops the compile.".to_owned(),
                ),
                _ => {}
            }
        } else if method == "namespace" && call.arguments.is_empty() {
            diagnostic(
                out,
                call.span,
                Severity::Error,
                MALFORMED,
                "`namespace` without a name: Roundhouse stops the compile. Name it: `namespace :admin do`.".to_owned(),
            );
        } else if method == "resources" || method == "resource" {
            match call.arguments.first() {
                None => diagnostic(
                    out,
                    call.span,
                    Severity::Error,
                    MALFORMED,
                    format!("`{method}` without a name: Roundhouse stops the compile."),
                ),
                Some(Value::String(name)) => {
                    let span = call.arguments.first().map_or(call.span, |_| call.span);
                    diagnostic(
                        out,
                        span,
                        Severity::Error,
                        MALFORMED,
                        format!("Roundhouse needs a symbol here (\"resources name must be a symbol\"): write `{method} :{name}`."),
                    );
                }
                _ => {}
            }
            let name = call.arguments.first().and_then(Value::as_name);
            for (key, value) in &call.options {
                if IGNORED_RESOURCE_OPTIONS.contains(&key.as_str()) && !option_is_default(method, name, key, value) {
                    let span = call.option_span(key).unwrap_or(call.span);
                    diagnostic(
                        out,
                        span,
                        Severity::Warning,
                        RESOURCE_OPTION_IGNORED,
                        format!(
                            "Roundhouse ignores `{key}:` on `{method}` (it reads only `only`, `except` and `as`): the compiled route may reach a different controller or path than Rails'."
                        ),
                    );
                }
            }
        } else if !SUPPORTED.contains(&method) {
            let what = match method {
                "concern" | "concerns" => "routing concerns",
                "devise_for" | "use_doorkeeper" | "authenticate" => "gem routing macros",
                "controller" | "defaults" | "nested" | "shallow" | "new" => "this block",
                "redirect" => "a top-level redirect",
                _ => "this routing method",
            };
            diagnostic(
                out,
                call.name_span,
                Severity::Error,
                UNSUPPORTED_DSL,
                format!(
                    "Roundhouse does not support `{method}` ({what}) in routes: it stops the compile with \"unsupported routes DSL\". Write the routes it stands for with `resources`, `scope` or verbs."
                ),
            );
            descend = false;
        }
        if descend {
            walk(&call.children, in_resources || method == "resources" || method == "resource", drawn_exists, out);
        }
    }
}

/// The routing calls inside a statement Roundhouse skips, each named once (the outermost: a
/// `resources` block is one finding, not one per route in it).
fn skipped_routes(calls: &[RouteCall], around: &str, out: &mut Vec<Diagnostic>) {
    for call in calls {
        let routing = VERBS.contains(&call.method.as_str()) || SUPPORTED.contains(&call.method.as_str());
        if call.receiver.is_none() && routing && call.method != "direct" {
            let method = &call.method;
            diagnostic(
                out,
                call.span,
                Severity::Warning,
                STATEMENT_SKIPPED,
                format!(
                    "Roundhouse skips {around} around this `{method}` (it reads only the calls of a routes file), so the compiled app has none of its routes. Write them out with the DSL."
                ),
            );
        } else {
            skipped_routes(&call.children, around, out);
        }
    }
}

#[cfg(test)]
mod consistency {
    use crate::checks::file_diagnostics;
    use crate::rails::route_table::{Route, RouteKind};
    use crate::rails::routes::RouteCall;
    use crate::roundhouse::tree::{Target, map_file};

    /// The routes preview, the route hints and the route rules tell one story for every routes file
    /// of the fixture apps, all read off the one table (`AppContext::table`): each route the table
    /// draws from a call is a `Route.new` line of the preview mapped to the call's line, with its
    /// verb and path; a `resources` call is hinted with the number of routes it draws itself, a
    /// verb call with its verb, path and endpoint; a redirect or a mount is reported at its line by
    /// its rule, shown dropped in the preview and hinted with the rule.
    #[test]
    fn table_preview_hint_and_rule_tell_the_same_story() {
        let (mut routes, mut calls) = (0, 0);
        let dirs = [
            "examples/blog",
            "tests/fixtures/apps/shop",
            "tests/fixtures/apps/rules",
            "tests/fixtures/apps/resolution",
            "tests/fixtures/apps/monorepo",
        ];
        crate::test_fixture::each_app(&dirs, |context, derived, app_facts| {
            for facts in context.files.iter().filter(|f| f.routes.is_some()) {
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), Some(&context.reading));
                let text = std::fs::read_to_string(&facts.path).unwrap();
                let preview =
                    super::super::preview::preview(facts, &text, context, &map_file(facts, app_facts), &diagnostics, Target::Ruby);
                let lines: Vec<&str> = preview.text.lines().collect();
                // The table: from `module RouteTable` to the helpers.
                let table_start = lines.iter().position(|l| *l == "module RouteTable").expect("a table") as u32;
                let table_end = lines.iter().position(|l| *l == "module RouteHelpers").expect("helpers") as u32;
                let table_at = |line: u32| -> Vec<&str> {
                    preview
                        .mapping
                        .iter()
                        .filter(|(p, s)| table_start < *p && *p < table_end && *s == line)
                        .map(|(p, _)| lines[*p as usize].trim_start())
                        .collect()
                };
                let hints = crate::ide::inlay::inlay_hints(facts, context, &diagnostics);
                let hinted =
                    |line: u32| -> Vec<String> { hints.iter().filter(|h| h.position.line == line).map(|h| h.label.clone()).collect() };
                let own: Vec<&Route> = context.table.routes.iter().filter(|r| r.file == facts.relative_path).collect();
                for route in &own {
                    routes += 1;
                    let line = route.span.start.line;
                    let place = format!("{}:{} ({} {})", facts.relative_path, line + 1, route.verb, route.path);
                    let shown = table_at(line);
                    match route.kind {
                        RouteKind::Action => {
                            let drawn = own.iter().filter(|r| r.kind == RouteKind::Action && r.span.start.line == line).count();
                            let news = shown.iter().filter(|l| l.starts_with("ActionDispatch::Router::Route.new(")).count();
                            assert_eq!(news, drawn, "{place}: the preview's table has {news} routes at the line, the table {drawn}");
                            let verb = route.verb.split('|').next().filter(|v| !v.is_empty()).unwrap_or("GET");
                            let path = route.path.trim_end_matches("(.:format)");
                            assert!(
                                shown.iter().any(|l| l.contains(&format!("(\"{verb}\", \"{path}\""))),
                                "{place}: not in the preview's table: {shown:?}"
                            );
                        }
                        RouteKind::Redirect | RouteKind::Mount => {
                            let rule = if route.kind == RouteKind::Redirect { rule!("routes.redirect") } else { rule!("routes.mount") };
                            assert!(
                                diagnostics.iter().any(|d| d.rule == rule && d.span.start.line == line),
                                "{place}: {rule} is not reported"
                            );
                            assert!(shown.iter().any(|l| l.starts_with('#') && l.contains(rule.as_str())), "{place}: not shown dropped");
                            assert!(hinted(line).iter().any(|h| h.contains(rule.as_str())), "{place}: not hinted");
                        }
                    }
                }
                fn each<'a>(calls: &'a [RouteCall], out: &mut Vec<&'a RouteCall>) {
                    for call in calls {
                        out.push(call);
                        each(&call.children, out);
                    }
                }
                let mut all = Vec::new();
                each(&facts.routes.as_ref().unwrap().calls, &mut all);
                for call in all {
                    let line = call.span.start.line;
                    let place = format!("{}:{} ({})", facts.relative_path, line + 1, call.method);
                    let drawn: Vec<&&Route> = own.iter().filter(|r| r.span == call.span && r.kind == RouteKind::Action).collect();
                    match call.method.as_str() {
                        "resources" | "resource" => {
                            calls += 1;
                            let count = format!("{} route{}", drawn.len(), if drawn.len() == 1 { "" } else { "s" });
                            assert!(
                                hinted(line).iter().any(|h| h.starts_with(&count)),
                                "{place}: hinted {:?}, drawn {count}",
                                hinted(line)
                            );
                        }
                        "get" | "post" | "patch" | "put" | "delete" | "match" | "root" if !drawn.is_empty() => {
                            calls += 1;
                            let route = drawn[0];
                            let label = format!("{} {} → {}", route.verb, route.path, route.controller_action());
                            assert!(hinted(line).iter().any(|h| h.starts_with(&label)), "{place}: hinted {:?}, not {label}", hinted(line));
                        }
                        _ => {}
                    }
                }
            }
        });
        assert!(routes >= 60 && calls >= 20, "{routes} routes, {calls} calls");
    }
}

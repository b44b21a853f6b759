//! The `rails.*` checks resolve names as Rails does, on a fixture app whose every case is marked
//! with what Rails does (`tests/fixtures/apps/resolution`, comments beginning `Rails:`): views
//! found through a nested engine, a gem of the bundle, `.gitignore` or a guard; controllers through
//! inflection acronyms, uncountable words and the app's own singular rules, or a gem; a method two
//! includes away, or defined as a macro's argument in a component; columns of a joined table or an
//! alias (a grouped count's, or one a later `pluck` selects), of a model inside a model, or used in a
//! concern nested in a class; an attachment's association, and a gem's class reopened; locals passed
//! to a template or a partial (after its name, or as a hash a method returns); lazy keys in a
//! partial's block; locale keys through YAML anchors and aliases; a HAML block's parameter; an
//! override of a gem engine's view; a migration's own model. Only the five findings planted as true
//! remain.

mod support;

use std::process::Command;

use expect_test::expect;
use support::repo_root;

/// `file:line rule` of each finding of the fixture app `app` whose rule starts with `prefix`, sorted.
fn findings(app: &str, prefix: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["--check", "--no-cache", "--format", "json"])
        .arg(repo_root().join(app))
        .output()
        .expect("run switchyard --check");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut lines: Vec<String> = stdout
        .lines()
        .filter_map(|line| {
            let finding: serde_json::Value = serde_json::from_str(line).ok()?;
            let (rule, file) = (finding["rule"].as_str()?, finding["file"].as_str()?);
            rule.starts_with(prefix).then(|| format!("{file}:{} {rule}", finding["line"]))
        })
        .collect();
    lines.sort();
    lines.join("\n")
}

/// In an app that uses Devise (`tests/fixtures/apps/devise`: modules, OmniAuth, `path_names`,
/// `controllers:`, a namespaced `devise_for`, `devise_scope`, `authenticated`), every route is listed
/// and the route-helper check is on: the one typo planted in a view is caught, and nothing else.
#[test]
fn route_helpers_are_checked_in_a_devise_app() {
    expect!["app/views/posts/welcome.html.erb:5 rails.unknown-route-helper"]
        .assert_eq(&findings("tests/fixtures/apps/devise", "rails.unknown-route-helper"));
    expect![""].assert_eq(&findings("tests/fixtures/apps/devise", "switchyard.unexpanded-routes"));
}

#[test]
fn the_rails_checks_find_what_rails_finds_and_only_that() {
    let lines = findings("tests/fixtures/apps/resolution", "rails.");
    expect![[r#"
        app/models/attachment.rb:7 rails.unknown-association
        app/models/post.rb:25 rails.unknown-column
        app/views/home/show.html.erb:15 rails.missing-template
        app/views/posts/index.html.erb:3 rails.missing-translation
        config/routes.rb:17 rails.missing-action"#]]
    .assert_eq(&lines);
}

/// Roundhouse prints "not supported" for every `include`; what that means depends on the module: the
/// app's own concern loses nothing (information), a module the app does not define needs its gem
/// (a warning that names it).
#[test]
fn an_include_is_a_warning_only_when_the_app_does_not_define_the_module() {
    let output = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["--check", "--no-cache", "--format", "json"])
        .arg(repo_root().join("tests/fixtures/apps/resolution"))
        .output()
        .expect("run switchyard --check");
    let includes: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|d| d["message"].as_str().is_some_and(|m| m.contains("include not supported")))
        .filter(|d| matches!(d["file"].as_str(), Some("app/models/comment.rb" | "app/models/post.rb")))
        .map(|d| {
            let named = d["message"].as_str().unwrap().contains("the app does not define `PgSearch::Model`");
            format!("{}:{} {} {named}", d["file"].as_str().unwrap(), d["line"], d["severity"].as_str().unwrap())
        })
        .collect();
    assert_eq!(includes, ["app/models/comment.rb:3 warning true", "app/models/post.rb:2 info false"]);
}

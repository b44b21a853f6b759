//! `switchyard routes` against Rails itself: each file under `tests/fixtures/routes/` is a routes file
//! (with the files it draws in a folder of the same name) and `<name>.expected.txt` is the table Rails
//! prints for it, produced by `scripts/rails-routes-oracle.rb` (ActionDispatch from Debian's
//! ruby-actionpack). CI regenerates the expected tables with real Rails and fails on any difference
//! (`scripts/check-routes-oracle.sh`), so these files cannot drift from Rails.

mod support;

use support::{copy_recursive, repo_root};

use std::path::{Path, PathBuf};
use std::process::Command;

/// A throwaway app whose `config/routes.rb` is the corpus file.
fn app_for(name: &str, test: &str) -> PathBuf {
    let corpus = repo_root().join("tests/fixtures/routes");
    let app = std::env::temp_dir().join(format!("switchyard-routes-{}-{name}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&app);
    std::fs::create_dir_all(app.join("config")).unwrap();
    std::fs::copy(corpus.join(format!("{name}.rb")), app.join("config/routes.rb")).unwrap();
    if corpus.join(name).is_dir() {
        copy_recursive(&corpus.join(name), &app.join("config/routes"));
    }
    app
}

fn routes(app: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_switchyard")).arg("routes").arg(app).args(args).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn check(name: &str) {
    let app = app_for(name, "table");
    let expected = std::fs::read_to_string(repo_root().join(format!("tests/fixtures/routes/{name}.expected.txt"))).unwrap();
    let actual = routes(&app, &[]);
    let _ = std::fs::remove_dir_all(&app);
    if actual != expected {
        let diff: Vec<String> = expected
            .lines()
            .zip(actual.lines().chain(std::iter::repeat("")))
            .filter(|(e, a)| e != a)
            .map(|(e, a)| format!("rails:      {e}\nswitchyard: {a}"))
            .collect();
        panic!(
            "{name}: the table differs from Rails' ({} vs {} lines)\n{}",
            expected.lines().count(),
            actual.lines().count(),
            diff.join("\n")
        );
    }
}

#[test]
fn resources() {
    check("resources");
}

#[test]
fn singular_resources() {
    check("resource");
}

#[test]
fn namespaces_scopes_and_blocks() {
    check("scopes");
}

#[test]
fn shallow_nesting() {
    check("shallow");
}

#[test]
fn verbs_redirects_and_mounts() {
    check("verbs");
}

#[test]
fn concerns_and_drawn_files() {
    check("drawn");
}

/// `%w(…).each do |action|`, hashes, ranges, `each_with_index`, nested blocks, `if false` inside.
#[test]
fn literal_loops() {
    check("loops");
}

/// A plural that is its own singular (`news`, `sheep`, `as: "wiki_page"`) names its collection `…_index`.
#[test]
fn collection_names_of_uncountable_plurals() {
    check("naming");
}

/// Journey's path normalisation: a slash before an optional group moves inside it, escapes, slashes.
#[test]
fn paths_normalised_as_journey_does() {
    check("normalized");
}

/// Inline patterns, formats, plain options, scope constraints on routes with and without the
/// segment, host defaults, a resource's param constraint passed to what nests in it, constants.
#[test]
fn requirements_and_defaults() {
    check("requirements");
}

/// Verb routes in a namespace (the module is the controller), a namespace inside a resource,
/// canonical actions given as symbols, `scope controller:, action:`.
#[test]
fn namespaces_and_symbol_actions() {
    check("namespaces");
}

/// Path, option, status, block and lambda redirects; a root with `via:`.
#[test]
fn redirects_as_rails_inspects_them() {
    check("redirects");
}

/// `if`/`unless`/`elsif` and modifiers decided as `bin/rails routes` runs them (development).
#[test]
fn conditions_on_the_environment() {
    check("conditions");
}

/// The example app and every fixture app (one table per app; `broken`'s routes do not parse).
#[test]
fn example_and_fixture_apps() {
    for (name, root) in [
        ("blog", "examples/blog"),
        ("shop", "tests/fixtures/apps/shop"),
        ("storefront", "tests/fixtures/apps/monorepo/apps/storefront"),
        ("backoffice", "tests/fixtures/apps/monorepo/apps/backoffice"),
        ("billing", "tests/fixtures/apps/monorepo/engines/billing"),
        ("dummy", "tests/fixtures/apps/monorepo/engines/billing/test/dummy"),
        // `devise_for` expanded from the models' `devise` modules, held to Devise's own router.
        ("devise", "tests/fixtures/apps/devise"),
    ] {
        let expected = std::fs::read_to_string(repo_root().join(format!("tests/fixtures/routes/apps/{name}.expected.txt"))).unwrap();
        assert_eq!(routes(&repo_root().join(root), &[]), expected, "{name}");
    }
}

#[test]
fn json_lines_name_the_file_and_line() {
    let app = app_for("drawn", "json");
    let lines: Vec<serde_json::Value> = routes(&app, &["--format", "json"]).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let _ = std::fs::remove_dir_all(&app);
    let ban = lines.iter().find(|r| r["name"] == "ban_admin_user").expect("ban_admin_user");
    assert_eq!(ban["verb"], "PATCH");
    assert_eq!(ban["path"], "/admin/users/:id/ban(.:format)");
    assert_eq!(ban["controller_action"], "admin/users#ban");
    assert_eq!(ban["file"], "config/routes/admin.rb");
    assert_eq!(ban["line"], 3);
    let unnamed = lines.iter().find(|r| r["verb"] == "POST" && r["path"] == "/messages/:message_id/comments(.:format)").unwrap();
    assert_eq!(unnamed["name"], "", "Rails prints no name: neither do we");
    assert_eq!(unnamed["file"], "config/routes.rb");
    assert_eq!(unnamed["line"], 3, "the route comes from the concern's `resources` call");
}

/// `--format json` splits what the table prints after the endpoint into the route's requirements and
/// its defaults, as Rails holds them (`route.path.requirements`, `route.defaults`).
#[test]
fn json_requirements_and_defaults_are_rails_own() {
    let app = app_for("requirements", "json");
    let ours: Vec<serde_json::Value> = routes(&app, &["--format", "json"]).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let _ = std::fs::remove_dir_all(&app);
    let expected = std::fs::read_to_string(repo_root().join("tests/fixtures/routes/requirements.expected.json")).unwrap();
    let rails: Vec<serde_json::Value> = expected.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(ours.len(), rails.len());
    let empty = serde_json::json!({});
    for (ours, rails) in ours.iter().zip(&rails) {
        let row = format!("{} {}", rails["verb"], rails["path"]);
        assert_eq!(ours["path"], rails["path"], "{row}");
        assert_eq!(ours["controller_action"], rails["reqs"], "{row}");
        for field in ["requirements", "defaults"] {
            assert_eq!(ours.get(field).unwrap_or(&empty), rails.get(field).unwrap_or(&empty), "{row}: {field}");
        }
    }
}

#[test]
fn grep_filters_like_rails() {
    let app = app_for("scopes", "grep");
    let table = routes(&app, &["--grep", "ADMIN/posts"]);
    // A pattern that matches nothing is said to, as Rails says it (not "no routes defined").
    let none = routes(&app, &["--grep", "zzz"]);
    let _ = std::fs::remove_dir_all(&app);
    assert_eq!(
        none,
        "No routes were found for this grep pattern.\nFor more information about routes, see the Rails guide: https://guides.rubyonrails.org/routing.html.\n"
    );
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{table}");
    assert!(rows.iter().all(|r| r.contains("admin/posts#")), "{table}");
}

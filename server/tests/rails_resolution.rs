//! The `rails.*` checks resolve names as Rails does, on a fixture app whose every case is marked
//! with what Rails does (`tests/fixtures/apps/resolution`, comments beginning `Rails:`): views
//! found through a nested engine, a gem of the bundle, `.gitignore` or a guard; controllers through
//! inflection acronyms or a gem; a method two includes away; columns of a joined table or an alias;
//! an attachment's association; a partial's locals written after its name; lazy keys in a partial's
//! block; locale keys through YAML anchors and aliases; a HAML block's parameter. Only the five
//! findings planted as true remain.

mod support;

use std::process::Command;

use expect_test::expect;
use support::repo_root;

#[test]
fn the_rails_checks_find_what_rails_finds_and_only_that() {
    let output = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["--check", "--no-cache", "--format", "json"])
        .arg(repo_root().join("tests/fixtures/apps/resolution"))
        .output()
        .expect("run switchyard --check");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut lines: Vec<String> = stdout
        .lines()
        .filter_map(|line| {
            let finding: serde_json::Value = serde_json::from_str(line).ok()?;
            let (rule, file) = (finding["rule"].as_str()?, finding["file"].as_str()?);
            rule.starts_with("rails.").then(|| format!("{file}:{} {rule}", finding["line"]))
        })
        .collect();
    lines.sort();
    expect![[r#"
        app/models/attachment.rb:7 rails.unknown-association
        app/models/post.rb:20 rails.unknown-column
        app/views/home/show.html.erb:15 rails.missing-template
        app/views/posts/index.html.erb:3 rails.missing-translation
        config/routes.rb:13 rails.missing-action"#]]
    .assert_eq(&lines.join("\n"));
}

//! The index of each fixture app (and the bundled example) as `switchyard index --format json` prints
//! it, and its findings as `switchyard --check --format json` prints them for all three targets
//! (whole-app checks included), compared with snapshots under `tests/fixtures/snapshots/`. `UPDATE_EXPECT=1 cargo test`
//! rewrites the snapshots; review the diff like code.

mod support;

use support::repo_root;

use std::process::Command;

use expect_test::{ExpectFile, expect_file};

fn index_json(app: &str) -> (String, String, Option<i32>) {
    let output = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["index", "--format", "json"])
        .arg(repo_root().join(app))
        .output()
        .expect("run switchyard index");
    (String::from_utf8(output.stdout).unwrap(), String::from_utf8(output.stderr).unwrap(), output.status.code())
}

fn check(app: &str, snapshot: ExpectFile) {
    let (stdout, stderr, code) = index_json(app);
    assert_eq!(code, Some(0), "{stderr}");
    snapshot.assert_eq(&stdout);
}

fn findings(app: &str, snapshot: ExpectFile) {
    let output = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["--check", "--format", "json", "--target", "ruby", "--target", "jruby", "--target", "spinel"])
        .arg(repo_root().join(app))
        .output()
        .expect("run switchyard --check");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(matches!(output.status.code(), Some(0 | 1)), "{stderr}");
    snapshot.assert_eq(&String::from_utf8(output.stdout).unwrap());
}

#[test]
fn findings_of_every_app() {
    findings("examples/blog", expect_file!["../../tests/fixtures/snapshots/blog.check.jsonl"]);
    findings("tests/fixtures/apps/shop", expect_file!["../../tests/fixtures/snapshots/shop.check.jsonl"]);
    findings("tests/fixtures/apps/monorepo", expect_file!["../../tests/fixtures/snapshots/monorepo.check.jsonl"]);
    findings("tests/fixtures/apps/rules", expect_file!["../../tests/fixtures/snapshots/rules.check.jsonl"]);
}

#[test]
fn example_blog() {
    check("examples/blog", expect_file!["../../tests/fixtures/snapshots/blog.index.json"]);
}

#[test]
fn shop() {
    check("tests/fixtures/apps/shop", expect_file!["../../tests/fixtures/snapshots/shop.index.json"]);
}

#[test]
fn monorepo_with_engine_and_dummy_app() {
    check("tests/fixtures/apps/monorepo", expect_file!["../../tests/fixtures/snapshots/monorepo.index.json"]);
}

#[test]
fn constructs_roundhouse_rejects() {
    check("tests/fixtures/apps/rules", expect_file!["../../tests/fixtures/snapshots/rules.index.json"]);
}

#[test]
fn broken_files_yield_what_can_be_read() {
    let (stdout, stderr, code) = index_json("tests/fixtures/apps/broken");
    // One file is not UTF-8: it is named on stderr, the exit code says so, and the rest is indexed.
    assert_eq!(code, Some(2));
    assert!(stderr.contains("app/models/legacy.rb: not valid UTF-8"), "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.contains("legacy.rb")).count(), 1, "{stderr}");
    expect_file!["../../tests/fixtures/snapshots/broken.index.json"].assert_eq(&stdout);
}

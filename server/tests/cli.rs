//! The headless commands as CI runs them: exit codes, output formats, and one clear line for errors.

mod support;

use support::{copy_recursive, deep_files, repo_root, write_app};

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn switchyard(args: &[&str]) -> Output {
    support::run_switchyard(args, "cli")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A copy of the broken fixture without its non-UTF-8 file, so only syntax errors remain.
fn broken_but_readable(test: &str) -> PathBuf {
    let to = std::env::temp_dir().join(format!("switchyard-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&to);
    copy_recursive(&repo_root().join("tests/fixtures/apps/broken"), &to);
    std::fs::remove_file(to.join("app/models/legacy.rb")).unwrap();
    to
}

#[test]
fn warnings_alone_exit_0_unless_the_fail_level_says_so() {
    // The example app compiles with Roundhouse, with some Rails behaviour dropped (warnings).
    let out = switchyard(&["--check", "examples/blog"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("files checked, ") && stdout.contains(" warnings") && !stdout.contains(" error"), "{stdout}");
    let strict = switchyard(&["--check", "examples/blog", "--fail-level", "warning"]);
    assert_eq!(strict.status.code(), Some(1));
    let clean = switchyard(&["--check", "examples/blog", "--rule", "syntax.for-loop"]);
    assert!(text(&clean.stdout).contains("files checked, no findings"), "{}", text(&clean.stdout));
}

#[test]
fn findings_print_like_rustc_and_exit_1() {
    let app = broken_but_readable("rustc");
    let out = switchyard(&["--check", app.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("error[syntax.parse-error]: syntax error: `(` is never closed"), "{stdout}");
    assert!(stdout.contains("app/models/post.rb:8:18"), "{stdout}");
    assert!(stdout.contains("8 |     body.truncate(40\n"), "{stdout}");
    assert!(stdout.contains("  |                  ^\n"), "caret under the bracket: {stdout}");
    assert!(stdout.contains("views.template-parse-error"), "{stdout}");
    let _ = std::fs::remove_dir_all(app);
}

#[test]
fn json_lines_carry_positions_relative_to_the_app() {
    let app = broken_but_readable("json");
    let out = switchyard(&["--check", app.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let findings: Vec<Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("one JSON object per line")).collect();
    let post = findings.iter().find(|f| f["file"] == "app/models/post.rb").expect("post.rb finding");
    assert_eq!(
        (post["line"].as_u64(), post["column"].as_u64(), post["end_line"].as_u64(), post["end_column"].as_u64()),
        (Some(8), Some(18), Some(8), Some(19))
    );
    assert_eq!(post["severity"], "error");
    assert_eq!(post["rule"], "syntax.parse-error");
    for finding in &findings {
        for key in ["file", "line", "column", "end_line", "end_column", "severity", "rule", "message"] {
            assert!(finding.get(key).is_some(), "{key} missing in {finding}");
        }
    }
    let _ = std::fs::remove_dir_all(app);
}

#[test]
fn usage_and_io_errors_exit_2_with_one_line() {
    let missing = switchyard(&["--check", "no/such/app"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(text(&missing.stderr).lines().count(), 1, "{}", text(&missing.stderr));
    assert!(text(&missing.stderr).starts_with("switchyard: error: no/such/app"));

    let not_rails = switchyard(&["--check", "server/src"]);
    assert_eq!(not_rails.status.code(), Some(2));
    assert!(text(&not_rails.stderr).contains("no Rails app at server/src"), "{}", text(&not_rails.stderr));

    let unreadable = switchyard(&["--check", "tests/fixtures/apps/broken"]);
    assert_eq!(unreadable.status.code(), Some(2));
    assert!(text(&unreadable.stderr).contains("app/models/legacy.rb: not valid UTF-8"));

    let bad_flag = switchyard(&["--check", "--format", "xml"]);
    assert_eq!(bad_flag.status.code(), Some(2));
}

#[test]
fn a_path_inside_an_app_checks_what_it_names() {
    let app = broken_but_readable("scoped");
    let file = app.join("app/models/post.rb");
    let out = switchyard(&["--check", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.contains(&format!("--> {}/post.rb:8:18", app.join("app/models").display())), "{stdout}");
    assert!(stdout.contains("1 files checked, 1 error"), "{stdout}");
    assert!(!stdout.contains("routes.rb"), "only the named file is reported: {stdout}");

    let folder = app.join("app/views");
    let out = switchyard(&["--check", folder.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let findings: Vec<Value> = text(&out.stdout).lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).collect();
    let files: Vec<&str> = findings.iter().map(|f| f["file"].as_str().unwrap()).collect();
    // The index's `render @posts` names a partial the app does not have (`views.render-raises`).
    assert_eq!(files, ["app/views/posts/index.html.erb", "app/views/posts/show.html.erb"]);
    assert_eq!(findings[0]["app"], "../..", "the app's root, seen from the checked folder");
    let _ = std::fs::remove_dir_all(app);
}

#[test]
fn version_and_help() {
    let version = switchyard(&["--version"]);
    assert_eq!(version.status.code(), Some(0));
    assert_eq!(text(&version.stdout).trim(), format!("switchyard {}", env!("CARGO_PKG_VERSION")));
    let help = switchyard(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help.stdout).contains("--check"));
}

#[test]
fn index_text_summary_names_the_app() {
    let out = switchyard(&["index", "examples/blog"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("blog (.): "), "{stdout}");
    assert!(stdout.contains("model Post → posts (app/models/post.rb)"), "{stdout}");
}

#[test]
fn a_folder_inside_an_app_indexes_the_whole_app() {
    // Editors sometimes hand the server `config/` (or `app/`) as the workspace folder.
    let out = switchyard(&["index", "examples/blog/config"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("controller PostsController ["), "{}", text(&out.stdout));
}

#[test]
fn tree_json_follows_the_contract() {
    let out = switchyard(&["tree", "examples/blog/app/views/posts/index.html.erb", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1, "PATH naming one file maps that file");
    let entry = &lines[0];
    assert_eq!(entry["source"], "app/views/posts/index.html.erb");
    for target in ["ruby", "jruby", "spinel"] {
        assert_eq!(entry["targets"][target]["paths"], serde_json::json!(["app/views/posts/index.rb"]), "{target}");
    }
    assert_eq!(entry["targets"]["spinel"]["lane"], "aot");
    assert!(entry["targets"]["ruby"]["lane"].is_null());

    let only_jvm = switchyard(&["tree", "examples/blog", "--target", "jruby", "--format", "json"]);
    let first: Value = serde_json::from_str(text(&only_jvm.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(first["targets"].as_object().unwrap().keys().collect::<Vec<_>>(), ["jruby"]);
}

#[test]
fn check_filters_by_rule_and_prints_github_annotations() {
    let only = switchyard(&["--check", "tests/fixtures/apps/rules", "--rule", "syntax.for-loop", "--format", "json"]);
    assert_eq!(only.status.code(), Some(1));
    let findings: Vec<Value> = text(&only.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // The model's loop and the HAML template's.
    let files: Vec<&str> = findings.iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["app/models/report.rb", "app/views/reports/index.html.haml"]);
    assert!(findings.iter().all(|f| f["rule"] == "syntax.for-loop"));
    assert_eq!(findings[0]["targets"], serde_json::json!(["ruby", "jruby", "spinel"]));

    let github = switchyard(&["--check", "tests/fixtures/apps/rules", "--rule", "syntax.backtick-command", "--format", "github"]);
    assert_eq!(
        text(&github.stdout).trim(),
        "::warning file=tests/fixtures/apps/rules/lib/legacy/shell.rb,line=5,col=7,endLine=5,endColumn=15,title=syntax.backtick-command::Roundhouse's ingest rejects shell commands (`cmd`, %25x()): ``uptime``. Instead, use Open3 or Process.spawn in code Roundhouse does not compile. Roundhouse compiles this file on its own, so it drops the file instead of stopping: its classes are missing from every tree.",
        "`%` is escaped as GitHub's workflow commands require"
    );

    let unknown = switchyard(&["--check", "tests/fixtures/apps/rules", "--rule", "syntax.nope"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("no rule `syntax.nope`"));
}

#[test]
fn rules_and_explain_document_the_catalogue() {
    let rules = switchyard(&["rules"]);
    assert_eq!(rules.status.code(), Some(0));
    let listing = text(&rules.stdout);
    assert!(listing.lines().any(|l| l.starts_with("syntax.for-loop") && l.contains("error") && l.ends_with("yes")), "{listing}");
    assert!(listing.lines().any(|l| l.starts_with("jruby.c-extension") && l.contains(" jruby ")), "{listing}");
    let explain = switchyard(&["explain", "routes.mount"]);
    assert_eq!(explain.status.code(), Some(0));
    let page = text(&explain.stdout);
    assert!(page.starts_with("# routes.mount\n\n**warning** · targets: ruby, jruby, spinel\n"), "{page}");
    for section in ["## What triggers it", "## Why", "## Example", "## Fix", "## Silencing it"] {
        assert!(page.contains(section), "{section} missing from {page}");
    }
    let own = text(&switchyard(&["explain", "switchyard.unused-suppression"]).stdout);
    assert!(own.starts_with("# switchyard.unused-suppression\n\n**info** · Switchyard's own"), "{own}");
    let missing = switchyard(&["explain", "mount"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("did you mean routes.mount"), "{}", text(&missing.stderr));
}

#[test]
fn docs_rules_md_is_what_rules_markdown_prints() {
    let book = switchyard(&["rules", "--format", "markdown"]);
    assert_eq!(book.status.code(), Some(0));
    let committed = std::fs::read_to_string(repo_root().join("docs/rules.md")).unwrap();
    assert!(text(&book.stdout) == committed, "docs/rules.md is stale: run `cargo run -- rules --format markdown > docs/rules.md`");
}

#[test]
fn switchyard_toml_sets_the_targets_and_rule_levels() {
    let app = std::env::temp_dir().join(format!("switchyard-cli-{}-toml", std::process::id()));
    let _ = std::fs::remove_dir_all(&app);
    copy_recursive(&repo_root().join("tests/fixtures/apps/rules"), &app);
    std::fs::write(app.join("lib/meta.rb"), "class Meta\n  def call(o) = o.public_send(:name)\nend\n").unwrap();
    let app_arg = app.to_str().unwrap();
    let rules_of = |output: &Output| -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = text(&output.stdout)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|f| (f["rule"].as_str().unwrap().to_owned(), f["severity"].as_str().unwrap().to_owned()))
            .collect();
        found.sort();
        found.dedup();
        found
    };
    let before = rules_of(&switchyard(&["--check", app_arg, "--format", "json"]));
    assert!(before.contains(&("syntax.for-loop".into(), "error".into())), "{before:?}");
    assert!(!before.iter().any(|(rule, _)| rule == "spinel.dynamic-dispatch"), "spinel is not a default target");

    std::fs::write(
        app.join("switchyard.toml"),
        "targets = [\"ruby\", \"spinel\"]\n\n[rules]\n\"syntax.for-loop\" = \"off\"\n\"syntax.backtick-command\" = \"info\"\n",
    )
    .unwrap();
    let configured = switchyard(&["--check", app_arg, "--format", "json"]);
    let after = rules_of(&configured);
    assert!(after.contains(&("spinel.dynamic-dispatch".into(), "warning".into())), "{after:?}");
    assert!(!after.iter().any(|(rule, _)| rule == "syntax.for-loop"), "turned off: {after:?}");
    assert!(after.contains(&("syntax.backtick-command".into(), "info".into())), "{after:?}");
    assert_eq!(after.len(), before.len(), "one rule off, one target's rule on: {after:?}");
    let files_of = |output: &Output| -> Vec<String> {
        text(&output.stdout).lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["file"].as_str().unwrap().to_owned()).collect()
    };
    assert!(files_of(&configured).iter().any(|f| f.starts_with("lib/legacy/")));
    std::fs::write(app.join("switchyard.toml"), "exclude = [\"lib/legacy/**\"]\n").unwrap();
    let excluded = files_of(&switchyard(&["--check", app_arg, "--format", "json"]));
    assert!(!excluded.is_empty() && !excluded.iter().any(|f| f.starts_with("lib/legacy/")), "excluded: {excluded:?}");

    // `--target` on the command line wins over the file's targets.
    let ruby_only = rules_of(&switchyard(&["--check", app_arg, "--format", "json", "--target", "ruby"]));
    assert!(!ruby_only.iter().any(|(rule, _)| rule == "spinel.dynamic-dispatch"), "{ruby_only:?}");

    std::fs::write(app.join("switchyard.toml"), "[rules]\n\"syntax.for-loops\" = \"off\"\n").unwrap();
    let mistake = switchyard(&["--check", app_arg]);
    assert_eq!(mistake.status.code(), Some(2));
    let stderr = text(&mistake.stderr);
    assert!(stderr.contains("switchyard.toml: line 2: no rule `syntax.for-loops`"), "{stderr}");
    let _ = std::fs::remove_dir_all(&app);
}

#[test]
fn fix_applies_the_safe_fixes_and_reports_what_is_left() {
    let app = std::env::temp_dir().join(format!("switchyard-cli-{}-fix", std::process::id()));
    let _ = std::fs::remove_dir_all(&app);
    copy_recursive(&repo_root().join("tests/fixtures/apps/rules"), &app);
    std::fs::write(
        app.join("app/models/note.rb"),
        "class Note < ApplicationRecord\n  has_many :tags # switchyard:disable syntax.undef\nend\n",
    )
    .unwrap();
    let app_arg = app.to_str().unwrap();
    let rules_of = |output: &Output| -> Vec<String> {
        text(&output.stdout).lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["rule"].as_str().unwrap().to_owned()).collect()
    };
    let before = switchyard(&["--check", app_arg, "--format", "json", "--target", "ruby"]);
    let before_rules = rules_of(&before);
    for rule in ["syntax.alias-keyword", "syntax.embedded-variable", "switchyard.unused-suppression"] {
        assert!(before_rules.iter().any(|r| r == rule), "{rule} in {before_rules:?}");
    }
    let fixed = switchyard(&["--check", app_arg, "--format", "json", "--target", "ruby", "--fix"]);
    assert_eq!(text(&fixed.stderr), "switchyard: fixed 3 findings in 3 files\n");
    let after = rules_of(&fixed);
    for rule in ["syntax.alias-keyword", "syntax.embedded-variable", "switchyard.unused-suppression"] {
        assert!(!after.iter().any(|r| r == rule), "{rule} still in {after:?}");
    }
    // What has no safe fix is still reported, and still fails the check.
    assert!(after.iter().any(|r| r == "syntax.for-loop"), "{after:?}");
    assert_eq!(fixed.status.code(), Some(1));
    let report = std::fs::read_to_string(app.join("app/models/report.rb")).unwrap();
    assert!(report.contains("  alias_method :summary, :to_s\n"), "{report}");
    let show = std::fs::read_to_string(app.join("app/views/reports/show.html.erb")).unwrap();
    assert!(show.starts_with("<h1><%= \"Report #{@title}\" %></h1>"), "{show}");
    assert_eq!(std::fs::read_to_string(app.join("app/models/note.rb")).unwrap(), "class Note < ApplicationRecord\n  has_many :tags\nend\n");
    let _ = std::fs::remove_dir_all(&app);
}

/// Sets a file's modification time back to `modified` (an edit that keeps size and time).
fn set_modified(path: &std::path::Path, modified: std::time::SystemTime) {
    use std::os::unix::ffi::OsStrExt;
    let since = modified.duration_since(std::time::UNIX_EPOCH).unwrap();
    let time = libc::timespec { tv_sec: since.as_secs() as libc::time_t, tv_nsec: since.subsec_nanos() as libc::c_long };
    let times = [time, time];
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::utimensat(libc::AT_FDCWD, c_path.as_ptr(), times.as_ptr(), 0) }, 0);
}

#[test]
fn a_second_check_reads_the_persisted_index_and_notices_every_change() {
    let app = std::env::temp_dir().join(format!("switchyard-cli-{}-cache-app", std::process::id()));
    let cache = std::env::temp_dir().join(format!("switchyard-cli-{}-cache-dir", std::process::id()));
    let _ = std::fs::remove_dir_all(&app);
    let _ = std::fs::remove_dir_all(&cache);
    copy_recursive(&repo_root().join("examples/blog"), &app);
    let check = |extra: &[&str]| {
        let mut args = vec!["--check", app.to_str().unwrap(), "--format", "json", "--cache-dir", cache.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = switchyard(&args);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let cache_files = || std::fs::read_dir(&cache).map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>()).unwrap_or_default();

    let fresh = check(&["--no-cache"]);
    assert!(cache_files().is_empty(), "--no-cache writes nothing");
    assert_eq!(check(&[]), fresh, "the run that writes the cache");
    let written = cache_files();
    assert_eq!(written.len(), 1, "one file per app: {written:?}");
    let written_at = std::fs::metadata(&written[0]).unwrap().modified().unwrap();
    assert_eq!(check(&[]), fresh, "the run that reads it");
    assert_eq!(std::fs::metadata(&written[0]).unwrap().modified().unwrap(), written_at, "nothing changed: nothing rewritten");

    // A new modification time alone (a fresh checkout) changes nothing: the cache is used, not rewritten.
    let tag = app.join("app/models/tag.rb");
    let before = std::fs::metadata(&tag).unwrap().modified().unwrap();
    set_modified(&tag, before + std::time::Duration::from_secs(3600));
    assert_eq!(check(&[]), fresh);
    assert_eq!(std::fs::metadata(&written[0]).unwrap().modified().unwrap(), written_at, "a new time alone: nothing rewritten");

    // An edit that keeps the file's size and modification time is still seen (the content hash).
    let source = std::fs::read_to_string(&tag).unwrap();
    std::fs::write(&tag, source.replace("  validates :name, presence: true", "  validates :nick, presence: true")).unwrap();
    set_modified(&tag, before);
    assert_eq!(std::fs::metadata(&tag).unwrap().len() as usize, source.len(), "the same size");
    let edited = check(&[]);
    assert_ne!(edited, fresh, "the edited file's findings changed");
    assert_eq!(edited, check(&["--no-cache"]), "and they are what a fresh index says");

    // A truncated, a foreign and a garbage cache are each ignored and written anew.
    let bytes = std::fs::read(&written[0]).unwrap();
    for broken in [bytes[..bytes.len() / 2].to_vec(), b"SWYDIDX1\x05other".to_vec(), vec![0xff; 64]] {
        std::fs::write(&written[0], &broken).unwrap();
        assert_eq!(check(&[]), edited);
        assert_ne!(std::fs::read(&written[0]).unwrap(), broken, "rewritten");
        assert_eq!(check(&[]), edited);
    }
    let _ = std::fs::remove_dir_all(app);
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn deep_files_are_read_or_skipped_with_a_finding_in_every_command() {
    for (scale, name) in [(1, "cli-nearly-too-deep"), (10, "cli-too-deep")] {
        let files = deep_files(scale);
        let app = write_app(name, &files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect::<Vec<_>>());
        let app_arg = app.to_str().unwrap();
        let out = switchyard(&["--check", "--no-cache", "--format", "json", app_arg]);
        assert!(out.status.code().is_some_and(|c| c < 2), "scale {scale}: {}", text(&out.stderr));
        let skipped: Vec<String> = text(&out.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|finding| finding["rule"] == "switchyard.skipped-file")
            .map(|finding| finding["path"].as_str().unwrap_or_default().to_owned())
            .collect();
        let expected = if scale > 1 { files.len() - 2 } else { 0 };
        assert_eq!(skipped.len(), expected, "scale {scale}: {skipped:?}");
        for args in [vec!["index", app_arg], vec!["tree", app_arg], vec!["routes", app_arg]] {
            let out = switchyard(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?} at scale {scale}: {}", text(&out.stderr));
        }
        for (relative, _) in &files[..files.len() - 2] {
            let file = app.join(relative);
            let out = switchyard(&["preview", file.to_str().unwrap()]);
            assert!(out.status.code().is_some_and(|c| c < 101), "preview {relative} at scale {scale}: {}", text(&out.stderr));
        }
    }
}

/// `switchyard … | head`: a reader that goes away early is no error to print. Each command that
/// writes more than a pipe holds exits as SIGPIPE would end it (141), with nothing on stderr.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let cache = std::env::temp_dir().join(format!("switchyard-cli-cache-{}", std::process::id()));
    // Two thousand findings: far more than a pipe holds (64 KiB).
    let aliases: String = (0..2000).map(|i| format!("  alias a{i} b{i}\n")).collect();
    let app = write_app(
        "closed-pipe",
        &[("config/routes.rb", ""), ("app/models/post.rb", &format!("class Post < ApplicationRecord\n{aliases}end\n"))],
    );
    let app = app.to_str().unwrap();
    for args in [&["rules", "--format", "markdown"][..], &["--check", app][..], &["--check", app, "--format", "json"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchyard"))
            .current_dir(repo_root())
            .env("SWITCHYARD_CACHE_DIR", &cache)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert_eq!(text(&output.stderr), "", "{args:?}");
        assert_eq!(output.status.code(), Some(141), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(app);
}

/// Colour on a terminal (or when asked), never in a pipe unless asked, never with NO_COLOR.
#[test]
fn colour_follows_the_flag_the_terminal_and_no_color() {
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
        command.current_dir(repo_root()).env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE").env_remove("CLICOLOR");
        command.env("SWITCHYARD_CACHE_DIR", std::env::temp_dir().join(format!("switchyard-cli-cache-{}", std::process::id())));
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.args(["--check", "examples/blog"]).args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        text(&output.stdout).contains("\u{1b}[")
    };
    assert!(!run(&[], &[]), "a pipe gets no colour by default");
    assert!(run(&["--color", "always"], &[]));
    assert!(run(&["--color", "always"], &[("NO_COLOR", "1")]), "the flag wins over the environment");
    assert!(run(&[], &[("CLICOLOR_FORCE", "1")]), "auto colours when the environment forces it");
    assert!(!run(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]), "NO_COLOR turns auto off");
    assert!(!run(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
    // JSON is never coloured.
    let json = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .current_dir(repo_root())
        .args(["--check", "examples/blog", "--format", "json", "--color", "always"])
        .output()
        .unwrap();
    assert!(!text(&json.stdout).contains("\u{1b}["));
}

/// `switchyard completions bash` completes commands and option values in a real bash; zsh and fish
/// get their own scripts.
#[test]
fn shell_completions_complete_commands_and_values() {
    let script = switchyard(&["completions", "bash"]);
    assert_eq!(script.status.code(), Some(0));
    let file = std::env::temp_dir().join(format!("switchyard-completions-{}.bash", std::process::id()));
    std::fs::write(&file, &script.stdout).unwrap();
    let complete = |words: &str| {
        let words: Vec<&str> = words.split(' ').collect();
        let program = format!(
            "source {}; COMP_WORDS=({}); COMP_CWORD={}; _switchyard switchyard {} {}; echo \"${{COMPREPLY[@]}}\"",
            file.display(),
            words.join(" "),
            words.len() - 1,
            words[words.len() - 1],
            words[words.len() - 2],
        );
        let output = Command::new("bash").args(["-c", &program]).output().expect("bash");
        text(&output.stdout).trim().to_owned()
    };
    assert_eq!(complete("switchyard rou"), "routes");
    assert_eq!(complete("switchyard --check --format s"), "sarif");
    let _ = std::fs::remove_file(&file);
    assert!(text(&switchyard(&["completions", "zsh"]).stdout).starts_with("#compdef switchyard"));
    assert!(text(&switchyard(&["completions", "fish"]).stdout).contains("complete -c switchyard"));
    assert_eq!(switchyard(&["completions", "tcsh"]).status.code(), Some(2), "an unknown shell is a usage error");
}

/// Bare `switchyard` typed in a terminal says what it is and how to check an app (on stderr, so an
/// editor's stdout stays LSP); text that is no LSP is said before it exits.
#[test]
fn by_hand_it_says_it_is_a_language_server() {
    use std::io::{Read, Write};
    use std::os::fd::FromRawFd;
    use std::process::Stdio;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two new descriptors into the two integers; the null pointers ask for
    // no name, default terminal settings and no window size.
    let opened = unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null()) };
    assert_eq!(opened, 0, "openpty");
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (mut terminal, stdin) = unsafe { (std::fs::File::from_raw_fd(master), Stdio::from_raw_fd(slave)) };
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .env("SWITCHYARD_LOG", "off")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // What a user types, then Ctrl-D (the terminal's end of input).
    terminal.write_all(b"hello\n\x04").unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert!(stderr.contains("a language server") && stderr.contains("switchyard --check [PATH]"), "{stderr}");
    assert!(stderr.contains("the input ended without a Language Server Protocol message"), "{stderr}");
    assert_eq!(status.code(), Some(1), "no `shutdown` came before the input ended");
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    assert_eq!(stdout, "", "nothing but LSP on stdout");
    // Piped, not typed: no greeting, only the note on what was read.
    let mut piped = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .env("SWITCHYARD_LOG", "off")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    piped.stdin.take().unwrap().write_all(b"not lsp").unwrap();
    let output = piped.wait_with_output().unwrap();
    let stderr = text(&output.stderr);
    assert!(!stderr.contains("a language server for Rails"), "{stderr}");
    assert!(stderr.contains("(7 bytes read)"), "{stderr}");
}

/// The GitHub Action's check step (`scripts/github-action.sh`, which `action.yml` runs): a SARIF
/// log for the upload step, the exit status kept for the last step, annotations for the run.
#[test]
fn the_github_action_keeps_the_status_for_after_the_upload() {
    let scratch = std::env::temp_dir().join(format!("switchyard-action-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let run = |path: &str, fail_level: &str| {
        let outputs = scratch.join(format!("outputs-{fail_level}"));
        let sarif = scratch.join(format!("log-{fail_level}.sarif"));
        let _ = std::fs::remove_file(&outputs);
        let _ = std::fs::remove_file(&sarif);
        let output = Command::new("bash")
            .arg(repo_root().join("scripts/github-action.sh"))
            .current_dir(repo_root())
            .env("SWITCHYARD", env!("CARGO_BIN_EXE_switchyard"))
            .env("SWITCHYARD_CACHE_DIR", scratch.join("cache"))
            .env("INPUT_PATH", path)
            .env("INPUT_TARGETS", "ruby jruby")
            .env("INPUT_FAIL_LEVEL", fail_level)
            .env("SARIF_FILE", &sarif)
            .env("GITHUB_OUTPUT", &outputs)
            .output()
            .unwrap();
        (output, std::fs::read_to_string(&outputs).unwrap_or_default(), std::fs::read_to_string(&sarif).unwrap_or_default())
    };
    // The example app has warnings and no errors.
    let (output, outputs, sarif) = run("examples/blog", "error");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(outputs.contains("status=0\n") && outputs.contains("sarif="), "{outputs}");
    let log: Value = serde_json::from_str(&sarif).expect("a SARIF log");
    assert!(!log["runs"][0]["results"].as_array().unwrap().is_empty());
    assert!(text(&output.stdout).contains("::warning file=examples/blog/"), "annotations too");
    let (output, outputs, _) = run("examples/blog", "warning");
    assert_eq!(output.status.code(), Some(0), "the step itself passes: the last step fails the job");
    assert!(outputs.contains("status=1\n"), "{outputs}");
    // A path that is no app fails at once, with nothing to upload.
    let (output, outputs, _) = run("no/such/app", "error");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(outputs, "");
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The pre-commit hook's command checks the app, and its file pattern names the files it reads.
#[test]
fn the_pre_commit_hook_runs_the_check_on_the_files_it_reads() {
    let hooks = std::fs::read_to_string(repo_root().join(".pre-commit-hooks.yaml")).unwrap();
    let field = |name: &str| {
        hooks.lines().find_map(|l| l.trim().strip_prefix(&format!("{name}: "))).unwrap_or_else(|| panic!("no {name}")).to_owned()
    };
    let entry = field("entry");
    let mut words = entry.split(' ');
    assert_eq!(words.next(), Some("switchyard"));
    let args: Vec<&str> = words.collect();
    let output = switchyard(&[&args[..], &["examples/blog"]].concat());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let files = regex_lite::Regex::new(&field("files")).unwrap();
    for path in ["app/models/post.rb", "app/views/posts/index.html.erb", "Gemfile", "config/database.yml", "apps/web/switchyard.toml"] {
        assert!(files.is_match(path), "{path}");
    }
    for path in ["README.md", "app/assets/stylesheets/app.css", "Gemfile.lock"] {
        assert!(!files.is_match(path), "{path}");
    }
}

/// A second `--check` of a folder where nothing changed prints what the first worked out, without
/// reading the app again: the same output in every format and with `--rule`; any change (a file
/// edited, a file added) and it reads the app again.
#[test]
fn a_second_check_of_an_unchanged_folder_prints_the_kept_findings() {
    let app = std::env::temp_dir().join(format!("switchyard-cli-{}-kept", std::process::id()));
    let _ = std::fs::remove_dir_all(&app);
    copy_recursive(&repo_root().join("examples/blog"), &app);
    let cache = app.with_extension("cache");
    let _ = std::fs::remove_dir_all(&cache);
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_switchyard"))
            .current_dir(repo_root())
            .env("SWITCHYARD_CACHE_DIR", &cache)
            .env("SWITCHYARD_LOG", "debug")
            .arg("--check")
            .arg(&app)
            .args(args)
            .output()
            .unwrap();
        let kept = text(&output.stderr).contains("the last run's findings of");
        (output.status.code(), text(&output.stdout), kept)
    };
    let formats: [&[&str]; 5] =
        [&[], &["--format", "json"], &["--format", "sarif"], &["--format", "github"], &["--rule", "model.validation-ignored"]];
    // Just copied: nothing vouches for the files yet, nothing is kept.
    let (_, _, kept) = run(&[]);
    assert!(!kept);
    std::thread::sleep(std::time::Duration::from_millis(3200));
    let first: Vec<_> = formats.iter().map(|args| run(args)).collect();
    let second: Vec<_> = formats.iter().map(|args| run(args)).collect();
    for ((code, out, _), (again_code, again, kept)) in first.iter().zip(&second) {
        assert!(kept, "the kept findings were used");
        assert_eq!((code, out), (again_code, again));
    }
    assert!(first[0].1.contains("model.validation-ignored"), "{}", first[0].1);

    // A file edited: read again, and its new finding is there.
    std::fs::write(app.join("app/models/tag.rb"), "class Tag < ApplicationRecord\n  alias label name\nend\n").unwrap();
    let (_, out, kept) = run(&[]);
    assert!(!kept);
    assert_ne!(out, first[0].1);
    // A file added beside the others: read again.
    std::thread::sleep(std::time::Duration::from_millis(3200));
    run(&[]);
    assert!(run(&[]).2);
    std::fs::write(app.join("app/models/start_probe.rb"), "class StartProbe < ApplicationRecord\nend\n").unwrap();
    assert!(!run(&[]).2, "a new file");
    let _ = std::fs::remove_dir_all(&app);
    let _ = std::fs::remove_dir_all(&cache);
}

/// `explain` renders its Markdown page when asked for colour (as on a terminal), and hands the
/// Markdown itself to a pipe.
#[test]
fn explain_renders_the_page_for_a_terminal_and_gives_markdown_to_a_pipe() {
    let piped = text(&switchyard(&["explain", "rails.missing-action"]).stdout);
    assert!(piped.starts_with("# rails.missing-action\n"), "{piped}");
    assert!(piped.contains("\n## Why\n"), "{piped}");
    let shown = text(&switchyard(&["explain", "--color", "always", "rails.missing-action"]).stdout);
    assert!(shown.starts_with("\u{1b}[1m\u{1b}[4mrails.missing-action\u{1b}[0m\n"), "{shown:?}");
    for markdown in ["## ", "**", "```", "`rails"] {
        assert!(!shown.contains(markdown), "{markdown:?} left in {shown:?}");
    }
}

/// A `(` left open is reported where it opens, and error recovery's leftovers (an `end` read as a
/// call of what follows it) are no findings.
#[test]
fn an_unclosed_paren_is_reported_where_it_opens_and_nothing_else() {
    let output = switchyard(&["--check", "--format", "json", "tests/fixtures/apps/broken"]);
    let found: Vec<String> = text(&output.stdout)
        .lines()
        .filter(|l| l.contains("\"file\":\"app/models/widget.rb\""))
        .map(|l| {
            let d: serde_json::Value = serde_json::from_str(l).unwrap();
            format!("{}:{} {}", d["line"], d["column"], d["rule"].as_str().unwrap())
        })
        .collect();
    assert_eq!(found, ["6:11 syntax.parse-error"]);
}

/// `--check --exact` with `tests/fixtures/roundhouse-double/roundhouse` standing for the compiler: it
/// prints an `unsupported` line Switchyard already says (post.rb:2, an include) and a `lower_residue`
/// line nothing of Switchyard's says (post.rb:17), each more than once, for each target it is run
/// for; it fails, as the real one does, when the checkout has no `runtime/spinel/scaffold/`.
fn exact(app: &std::path::Path, args: &[&str], test: &str) -> Output {
    let home = std::env::temp_dir().join(format!("switchyard-exact-home-{}-{test}", std::process::id()));
    Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .current_dir(repo_root())
        .env("XDG_CACHE_HOME", &home)
        .env("SWITCHYARD_CACHE_DIR", home.join("index"))
        .arg("--check")
        .arg(app)
        .arg("--exact")
        .args(args)
        .output()
        .expect("run switchyard")
}

fn double_checkout(test: &str, complete: bool) -> PathBuf {
    let checkout = std::env::temp_dir().join(format!("switchyard-cli-checkout-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&checkout);
    std::fs::create_dir_all(checkout.join(if complete { "runtime/spinel/scaffold" } else { "runtime" })).unwrap();
    std::fs::copy(repo_root().join("tests/fixtures/roundhouse-double/roundhouse"), checkout.join("roundhouse")).unwrap();
    checkout
}

#[test]
fn exact_adds_what_the_compiler_says_that_switchyard_does_not() {
    let checkout = double_checkout("adds", true);
    let binary = checkout.join("roundhouse");
    let app = PathBuf::from("examples/blog");
    let out = exact(&app, &["--roundhouse", binary.to_str().unwrap(), "--format", "json"], "adds");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let compilers: Vec<&Value> = lines.iter().filter(|f| f["rule"].as_str().unwrap().starts_with("roundhouse.")).collect();
    // Printed twice a run, for ruby and for jruby: one finding, on `order`, under the compiler's kind.
    assert_eq!(compilers.len(), 1, "{compilers:?}");
    let residue = compilers[0];
    assert_eq!(residue["rule"], "roundhouse.lower_residue");
    assert_eq!(
        (residue["file"].as_str(), residue["line"].as_u64(), residue["column"].as_u64()),
        (Some("app/models/post.rb"), Some(17), Some(23))
    );
    assert_eq!(residue["end_column"], 28);
    assert!(residue["message"].as_str().unwrap().starts_with("relation chain stays dynamic"), "{residue}");
    // The include on line 2 is said once, by Switchyard's own rule.
    let line_2: Vec<&str> =
        lines.iter().filter(|f| f["file"] == "app/models/post.rb" && f["line"] == 2).map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(line_2, ["model.unsupported-macro"]);

    // Every format carries it; `--rule` picks it out.
    let sarif = exact(&app, &["--roundhouse", binary.to_str().unwrap(), "--format", "sarif", "--rule", "roundhouse.lower_residue"], "adds");
    let log: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["ruleId"], "roundhouse.lower_residue");
    let rule_index = results[0]["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][rule_index]["id"], "roundhouse.lower_residue");
    let github = exact(&app, &["--roundhouse", binary.to_str().unwrap(), "--format", "github"], "adds");
    assert!(
        text(&github.stdout).contains("::warning file=examples/blog/app/models/post.rb,line=17,col=23,endLine=17,endColumn=28,title=roundhouse.lower_residue::relation chain"),
        "{}",
        text(&github.stdout)
    );
    let human = exact(&app, &["--roundhouse", binary.to_str().unwrap()], "adds");
    let human = text(&human.stdout);
    assert!(human.contains("warning[roundhouse.lower_residue]: relation chain stays dynamic"), "{human}");
    assert!(human.contains("17 |   scope :recent, -> { order(created_at: :desc) }\n   |                       ^^^^^"), "{human}");
}

#[test]
fn exact_reads_the_compiler_from_switchyard_toml_and_says_when_it_fails() {
    let app = std::env::temp_dir().join(format!("switchyard-cli-exact-toml-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&app);
    copy_recursive(&repo_root().join("examples/blog"), &app);
    // A `# switchyard:disable` comment silences the compiler's line as it does Switchyard's.
    let post = app.join("app/models/post.rb");
    let source = std::fs::read_to_string(&post).unwrap();
    let disabled = "  scope :recent, -> { order(created_at: :desc) } # switchyard:disable roundhouse.lower_residue";
    std::fs::write(&post, source.replace("  scope :recent, -> { order(created_at: :desc) }", disabled)).unwrap();

    // Without a compiler named anywhere: one line, exit 2.
    let none = exact(&app, &[], "toml");
    assert_eq!(none.status.code(), Some(2));
    assert!(text(&none.stderr).contains("--exact needs the Roundhouse compiler: pass --roundhouse BINARY"), "{}", text(&none.stderr));

    // Named in the app's settings, relative to the app; the checkout is the binary's folder.
    let checkout = double_checkout("toml", false);
    let relative = format!("../{}", checkout.file_name().unwrap().to_str().unwrap());
    std::fs::write(app.join("switchyard.toml"), format!("targets = [\"ruby\"]\n\n[roundhouse]\nbinary = \"{relative}/roundhouse\"\n"))
        .unwrap();
    let failed = exact(&app, &["--format", "json"], "toml");
    // The double fails as the compiler does without `runtime/spinel/scaffold/`: the run is named on
    // stderr with its cause, what it printed before is still reported, and the check fails.
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    let stderr = text(&failed.stderr);
    assert!(
        stderr.contains("roundhouse --target ruby did not finish on") && stderr.contains("missing runtime/spinel/scaffold/"),
        "{stderr}"
    );
    assert!(!text(&failed.stdout).contains("roundhouse.lower_residue"), "silenced by its comment: {}", text(&failed.stdout));
    assert!(!text(&failed.stdout).contains("switchyard.unused-suppression"), "{}", text(&failed.stdout));

    // A checkout that is none is named as such, with where to set it.
    std::fs::remove_dir_all(checkout.join("runtime")).unwrap();
    let wrong = exact(&app, &[], "toml");
    assert_eq!(wrong.status.code(), Some(2));
    assert!(
        text(&wrong.stderr)
            .contains("has no runtime/ folder: it is not a Roundhouse checkout (--roundhouse-checkout, or `checkout` under [roundhouse])"),
        "{}",
        text(&wrong.stderr)
    );
}

//! End to end, a restart: the server keeps what its first re-check published, and the next session
//! shows it for a file opened at start, before the index is read, only while nothing it was worked out
//! from has changed on disk.

mod support;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use support::{Client, copy_dir, repo_root};

const CHILD: &str = "app/models/start_probe_child.rb";
/// A whole-app finding: Roundhouse drops a validation from a subclass of a model, which only the
/// parent's file says is a model.
const DROPPED: &str = "model.unsupported-macro";

/// One session: opens the child at once, returns the diagnostics first published for it and the
/// server's log, and waits for the index's end before shutting down.
fn session(app: &Path, cache: &Path, log: &Path) -> (Vec<Value>, String) {
    let mut client = Client::spawn_logging(&[("SWITCHYARD_CACHE_DIR", cache)], Some(log));
    client.initialize(app);
    let uri = client.open(&app.join(CHILD), "ruby", 1);
    let first = client.diagnostics(&uri, Some(1));
    client.wait_indexed();
    assert_eq!(client.shutdown().code(), Some(0));
    (first, std::fs::read_to_string(log).unwrap())
}

/// What the server logs when it holds the last session's diagnostics.
const HOLD: &str = "the last session's diagnostics of";

/// A copy of the example app with the two probe models, and an empty cache folder beside it.
fn probe_app(name: &str) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let app = copy_dir(&repo_root().join("examples/blog"), name);
    let cache = app.with_extension("cache");
    let _ = std::fs::remove_dir_all(&cache);
    let parent = app.join("app/models/start_probe.rb");
    std::fs::write(&parent, "class StartProbe < ApplicationRecord\nend\n").unwrap();
    std::fs::write(app.join(CHILD), "class StartProbeChild < StartProbe\n  validates :name, presence: true\nend\n").unwrap();
    (app, cache, parent)
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics.iter().filter_map(|d| d["code"].as_str()).collect()
}

#[test]
fn a_restart_shows_the_last_sessions_diagnostics_only_while_they_hold() {
    let (app, cache, parent) = probe_app("restart");
    let log = |n: u32| app.with_extension(format!("{n}.log"));

    // Files changed within the last seconds vouch for nothing: nothing is kept.
    let (_, said) = session(&app, &cache, &log(1));
    assert!(!said.contains(HOLD), "{said}");
    assert!(!has_published(&cache), "kept though the files had just been written");

    // Settled, a session keeps what it published; the next one shows it before its index.
    std::thread::sleep(Duration::from_millis(3200));
    session(&app, &cache, &log(2));
    assert!(has_published(&cache), "kept");
    let (first, said) = session(&app, &cache, &log(3));
    assert!(said.contains(HOLD), "{said}");
    assert!(codes(&first).contains(&DROPPED), "the whole-app finding, from the last session: {first:?}");

    // The parent is no longer a model: the last session's finding is not shown.
    std::fs::write(&parent, "class StartProbe\nend\n").unwrap();
    let (first, said) = session(&app, &cache, &log(4));
    assert!(!said.contains(HOLD), "{said}");
    assert!(!codes(&first).contains(&DROPPED), "a stale finding: {first:?}");

    // Nor when the opened document is not what the disk holds.
    std::thread::sleep(Duration::from_millis(3200));
    session(&app, &cache, &log(5));
    let mut client = Client::spawn_logging(&[("SWITCHYARD_CACHE_DIR", &cache)], Some(&log(6)));
    client.initialize(&app);
    let uri = support::uri(&app.join(CHILD));
    client.notify(
        "textDocument/didOpen",
        serde_json::json!({"textDocument": {"uri": uri, "languageId": "ruby", "version": 1,
            "text": "class StartProbeChild < ApplicationRecord\n  validates :name, presence: true\nend\n"}}),
    );
    let first = client.diagnostics(&uri, Some(1));
    assert!(!codes(&first).contains(&DROPPED), "the buffer's class is a model: {first:?}");
    client.wait_indexed();
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
    let _ = std::fs::remove_dir_all(&cache);
}

fn has_published(cache: &Path) -> bool {
    std::fs::read_dir(cache).into_iter().flatten().flatten().any(|e| e.path().extension().is_some_and(|x| x == "published"))
}

/// A session that edits the app and ends keeps its last diagnostics at shutdown: the next start holds
/// them, with the edit's effect, not the start of the session's.
#[test]
fn a_session_that_edited_the_app_keeps_its_last_diagnostics_at_shutdown() {
    let (app, cache, parent) = probe_app("edited");
    std::thread::sleep(Duration::from_millis(3200));
    let log = |n: u32| app.with_extension(format!("{n}.log"));

    let mut client = Client::spawn_logging(&[("SWITCHYARD_CACHE_DIR", &cache)], Some(&log(1)));
    client.initialize(&app);
    client.wait_indexed();
    let child = support::uri(&app.join(CHILD));
    // The parent stops being a model, on disk: the child's finding goes.
    std::fs::write(&parent, "class StartProbe\nend\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", serde_json::json!({"changes": [{"uri": support::uri(&parent), "type": 2}]}));
    client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == child.as_str()
            && !codes(m["params"]["diagnostics"].as_array().unwrap()).contains(&DROPPED)
    });
    std::thread::sleep(Duration::from_millis(3200));
    assert_eq!(client.shutdown().code(), Some(0));

    let (first, said) = session(&app, &cache, &log(2));
    assert!(said.contains(HOLD), "kept at shutdown: {said}");
    assert!(!codes(&first).contains(&DROPPED), "the edit's effect: {first:?}");
    let _ = std::fs::remove_dir_all(&app);
    let _ = std::fs::remove_dir_all(&cache);
}

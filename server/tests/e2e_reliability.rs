//! The server against a hostile client or repository, over raw stdio with the real binary: a client
//! that never answers the server's own requests cannot deadlock or stall it, `exit` ends it whatever
//! is in flight, and what is not a file, or is outside the workspace, is never read.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use support::{Client, uri, write_app};

const ROUTES: &str = "Rails.application.routes.draw do\n  resources :posts\nend\n";
/// A model with a finding, so the index publishes something for it.
const POST: &str = "class Post < ApplicationRecord\n  has_and_belongs_to_many :tags\nend\n";

/// A small app at `root`, whose one model is named `model`.
fn small_app(root: &Path, model: &str) {
    std::fs::create_dir_all(root.join("config")).unwrap();
    std::fs::create_dir_all(root.join("app/models")).unwrap();
    std::fs::write(root.join("config/routes.rb"), ROUTES).unwrap();
    std::fs::write(root.join(format!("app/models/{}.rb", model.to_lowercase())), POST.replace("Post", model)).unwrap();
}

/// A fresh folder `name` holding one app, `main` (whose model is `Post`): the folder and the app.
fn folder_with_main(name: &str) -> (PathBuf, PathBuf) {
    let folder = write_app(name, &[]);
    let main = folder.join("main");
    small_app(&main, "Post");
    (folder, main)
}

fn folders_added(folders: &[PathBuf]) -> Value {
    let added: Vec<Value> = folders.iter().map(|f| json!({"uri": uri(f), "name": f.file_name().unwrap().to_str()})).collect();
    json!({"event": {"added": added, "removed": []}})
}

fn symbol_names(reply: &Value) -> Vec<String> {
    reply["result"].as_array().into_iter().flatten().filter_map(|s| s["name"].as_str().map(str::to_owned)).collect()
}

/// Four folders added and four apps created on disk while the client never answers a request of the
/// server's (progress tokens, refreshes), then a burst of edits longer than the protocol library's
/// queue: every request is still answered, the added apps are indexed, and `shutdown`/`exit` end it.
#[test]
fn a_client_that_never_answers_cannot_deadlock_the_server() {
    let (workspace, main) = folder_with_main("never-answers");
    let added: Vec<PathBuf> = (0..4).map(|i| workspace.join(format!("added{i}"))).collect();
    for (i, folder) in added.iter().enumerate() {
        small_app(folder, &format!("Added{i}"));
    }
    let mut client = Client::spawn();
    client.answers = false;
    client.initialize(&main);
    // The index publishes without the client's answer to the progress token.
    let post = main.join("app/models/post.rb");
    let post_uri = uri(&post);
    assert!(!client.diagnostics(&post_uri, None).is_empty());

    for folder in &added {
        client.notify("workspace/didChangeWorkspaceFolders", folders_added(std::slice::from_ref(folder)));
    }
    // Apps made inside the workspace folder: each announced by its `config/routes.rb`.
    for i in 0..4 {
        let app = main.join(format!("engines/made{i}"));
        small_app(&app, &format!("Made{i}"));
        let changes = json!({"changes": [{"uri": uri(&app.join("config/routes.rb")), "type": 1}]});
        client.notify("workspace/didChangeWatchedFiles", changes);
    }
    client.open(&post, "ruby", 1);
    for version in 2..200 {
        let text = format!("{POST}# edit {version}\n");
        client.change(&post_uri, version, json!([{"text": text}]));
    }
    let reply = client.request("workspace/symbol", json!({"query": "Post"}));
    assert!(symbol_names(&reply).contains(&"Post".to_owned()), "{reply}");
    // The added folders and the apps made are indexed (their diagnostics published) without the client.
    for (i, folder) in added.iter().enumerate() {
        assert!(!client.published(&uri(&folder.join(format!("app/models/added{i}.rb")))).is_empty());
        assert!(!client.published(&uri(&main.join(format!("engines/made{i}/app/models/made{i}.rb")))).is_empty());
    }
    let reply = client.request("workspace/symbol", json!({"query": "Added3"}));
    assert!(symbol_names(&reply).contains(&"Added3".to_owned()), "{reply}");
    let reply = client.request("shutdown", Value::Null);
    assert!(reply.get("error").is_none(), "{reply}");
    client.notify("exit", Value::Null);
    assert!(client.exits_within(Duration::from_secs(20)), "the server did not end after exit");
    let _ = std::fs::remove_dir_all(&workspace);
}

/// `exit` ends the process while added folders are being indexed, whole-app requests wait for them
/// and a burst of edits is queued, before any `shutdown` and with a client that answers nothing.
#[test]
fn exit_ends_the_process_whatever_is_in_flight() {
    let (workspace, main) = folder_with_main("exit-in-flight");
    let mut client = Client::spawn();
    client.answers = false;
    client.initialize(&main);
    for i in 0..4 {
        let extra = workspace.join(format!("extra{i}"));
        small_app(&extra, &format!("Extra{i}"));
        client.notify("workspace/didChangeWorkspaceFolders", folders_added(std::slice::from_ref(&extra)));
    }
    let post = main.join("app/models/post.rb");
    let post_uri = client.open(&post, "ruby", 1);
    for _ in 0..8 {
        client.send_request("switchyard/preview", json!({"uri": post_uri}));
    }
    for version in 2..150 {
        client.change(&post_uri, version, json!([{"text": format!("{POST}# edit {version}\n")}]));
    }
    client.notify("exit", Value::Null);
    assert!(client.exits_within(Duration::from_secs(15)), "the server did not end after exit");
    let _ = std::fs::remove_dir_all(&workspace);
}

/// Whole-app requests made during a cold index wait for it, but a hover never waits behind them:
/// it is answered while the index still runs.
#[test]
fn a_hover_never_waits_behind_whole_app_requests() {
    let app = support::synthetic_app();
    let model = std::fs::read_dir(app.join("app/models"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "rb") && !p.ends_with("application_record.rb"));
    let model_uri = uri(&model.expect("a model in the synthetic app"));
    // A client that answers the server's requests, and one that never does (no progress then).
    for answers in [true, false] {
        let cache = std::env::temp_dir().join(format!("switchyard-test-{}-stall-cache", std::process::id()));
        let _ = std::fs::remove_dir_all(&cache);
        let mut client = Client::spawn_with(&[("SWITCHYARD_CACHE_DIR", &cache)]);
        client.answers = answers;
        client.initialize(&app);
        let previews: Vec<i64> = (0..8).map(|_| client.send_request("switchyard/preview", json!({"uri": model_uri}))).collect();
        let position = json!({"textDocument": {"uri": model_uri}, "position": {"line": 0, "character": 7}});
        let hover = client.send_request("textDocument/hover", position);
        let answered = client.answer(hover);
        assert!(answered.get("error").is_none(), "{answered}");
        let index_ended = |m: &Value| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end";
        let is_answer = |id: i64| move |m: &Value| m.get("id") == Some(&json!(id)) && m.get("method").is_none();
        assert!(!client.seen.iter().any(index_ended), "the index ended before the hover was answered: the test proves nothing");
        // The first few waited for the index and describe the whole app; the rest answered at once,
        // from what was read (nothing yet, for a file not yet read).
        let hover_at = client.seen.iter().position(is_answer(hover)).unwrap();
        for (n, id) in previews.into_iter().enumerate() {
            let reply = client.answer(id);
            assert!(reply.get("error").is_none(), "{reply}");
            if n < 4 {
                assert!(reply["result"]["text"].is_string(), "answers {answers}: {reply}");
                assert!(client.seen.iter().position(is_answer(id)).unwrap() > hover_at, "answers {answers}: the hover waited");
            }
        }
        assert!(client.request("shutdown", Value::Null).get("error").is_none());
        client.notify("exit", Value::Null);
        assert!(client.exits_within(Duration::from_secs(15)));
        let _ = std::fs::remove_dir_all(&cache);
    }
}

/// An app whose `.ignore` files are links to devices, to the process's own input, or FIFOs: `--check`
/// and the server read none of them, say so, and index the app (an `.ignore` that is a file still
/// keeps its paths out).
#[test]
fn ignore_files_that_are_not_files_are_not_read() {
    let app = write_app("ignore-links", &[]);
    small_app(&app, "Post");
    std::fs::create_dir_all(app.join("app/views/posts")).unwrap();
    std::fs::write(app.join("app/views/posts/index.html.erb"), "<p>Posts</p>\n").unwrap();
    std::fs::create_dir_all(app.join("app/models/legacy")).unwrap();
    std::fs::write(app.join("app/models/legacy/.ignore"), "kept_out.rb\n").unwrap();
    std::fs::write(app.join("app/models/legacy/kept_out.rb"), POST.replace("Post", "Legacy::KeptOut")).unwrap();
    let links = [("", "/dev/zero"), ("app", "/dev/urandom"), ("app/models", "/dev/stdin"), ("config", "/proc/self/fd/0")];
    for (folder, target) in links {
        std::os::unix::fs::symlink(target, app.join(folder).join(".ignore")).unwrap();
    }
    let fifo = std::ffi::CString::new(app.join("app/views/posts/.ignore").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);

    let check = std::process::Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["--check", "--no-cache", "--format", "json"])
        .arg(&app)
        .stdin(std::process::Stdio::piped())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&check.stdout);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(stdout.contains("model.unsupported-macro") && !stdout.contains("kept_out"), "{stdout}\n{stderr}");
    assert!(stderr.contains("a FIFO, not a regular file") && stderr.contains("/dev/zero"), "{stderr}");

    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let reply = client.request("workspace/symbol", json!({"query": "Post"}));
    assert!(symbol_names(&reply).contains(&"Post".to_owned()), "{reply}");
    let reply = client.request("workspace/symbol", json!({"query": "KeptOut"}));
    assert!(!reply.to_string().contains("kept_out.rb"), "{reply}");
    assert!(client.shutdown().success());
    let _ = std::fs::remove_dir_all(&app);
}

/// A `created` event for `path`.
fn created(path: &Path) -> Value {
    json!({"changes": [{"uri": uri(path), "type": 1}]})
}

/// A server over `<base>/workspace`, which holds one app, `main`, indexed: the client, base and app.
fn workspace_of_one_app(name: &str) -> (Client, PathBuf, PathBuf) {
    let base = write_app(name, &[]);
    let main = base.join("workspace/main");
    small_app(&main, "Post");
    let mut client = Client::spawn();
    client.initialize(&base.join("workspace"));
    client.wait_indexed();
    (client, base, main)
}

/// A watched-file event names a path outside every workspace folder: the app there is not indexed,
/// nor is the whole disk for `file:///config/routes.rb`; one inside a folder still is.
#[test]
fn watched_file_events_never_reach_outside_the_workspace() {
    let (mut client, base, _) = workspace_of_one_app("outside-events");
    let outside = base.join("elsewhere");
    small_app(&outside, "Secret");
    client.notify("workspace/didChangeWatchedFiles", created(&outside.join("config/routes.rb")));
    client.notify("workspace/didChangeWatchedFiles", created(Path::new("/config/routes.rb")));
    client.notify("workspace/didChangeWatchedFiles", created(&outside.join("app/models/secret.rb")));
    let inside = base.join("workspace/later");
    small_app(&inside, "Later");
    client.notify("workspace/didChangeWatchedFiles", created(&inside.join("config/routes.rb")));
    assert!(!client.published(&uri(&inside.join("app/models/later.rb"))).is_empty());
    let reply = client.request("workspace/symbol", json!({"query": "Secret"}));
    assert!(symbol_names(&reply).is_empty(), "{reply}");
    let reply = client.request("switchyard/routes", json!({}));
    let roots: Vec<&str> = reply["result"]["apps"].as_array().unwrap().iter().filter_map(|a| a["root"].as_str()).collect();
    assert_eq!(roots.len(), 2, "{roots:?}");
    assert!(!client.seen.iter().any(|m| m.to_string().contains("elsewhere")), "something of the outside app was published");
    assert!(client.shutdown().success());
    let _ = std::fs::remove_dir_all(&base);
}

/// A folder moved into an app is announced by one event for the folder: its files are indexed; a
/// folder made under `tmp/` is not read; a whole app moved into the workspace is indexed.
#[test]
fn a_folder_moved_into_the_app_is_indexed() {
    let (mut client, base, main) = workspace_of_one_app("moved-in");
    // Made by the app at run time, under `tmp/`: not the app's code, not read.
    let made = main.join("tmp/cache/generated");
    std::fs::create_dir_all(&made).unwrap();
    std::fs::write(made.join("cached.rb"), POST.replace("Post", "Cached")).unwrap();
    client.notify("workspace/didChangeWatchedFiles", created(&main.join("tmp/cache")));
    // An install's folder beside the apps, holding what looks like an app: not walked.
    let installed = base.join("workspace/node_modules/pkg");
    small_app(&installed, "Cached");
    client.notify("workspace/didChangeWatchedFiles", created(&base.join("workspace/node_modules")));

    let staged = base.join("staged/billing");
    std::fs::create_dir_all(&staged).unwrap();
    std::fs::write(staged.join("invoice.rb"), POST.replace("Post", "Billing::Invoice")).unwrap();
    let moved = main.join("app/models/billing");
    std::fs::rename(&staged, &moved).unwrap();
    client.notify("workspace/didChangeWatchedFiles", created(&moved));
    let diagnostics = client.published(&uri(&moved.join("invoice.rb")));
    assert!(diagnostics.iter().any(|d| d["code"] == "model.unsupported-macro"), "{diagnostics:?}");

    let app = base.join("staged/shop");
    small_app(&app, "Order");
    let moved_app = base.join("workspace/shop");
    std::fs::rename(&app, &moved_app).unwrap();
    client.notify("workspace/didChangeWatchedFiles", created(&moved_app));
    assert!(!client.published(&uri(&moved_app.join("app/models/order.rb"))).is_empty());
    let reply = client.request("workspace/symbol", json!({"query": "Invoice"}));
    assert!(symbol_names(&reply).iter().any(|n| n.contains("Invoice")), "{reply}");
    let reply = client.request("workspace/symbol", json!({"query": "Cached"}));
    assert!(symbol_names(&reply).is_empty(), "{reply}");
    assert!(client.shutdown().success());
    let _ = std::fs::remove_dir_all(&base);
}

/// With no home folder, the cache goes to a folder of the user's own in the temporary folder: one
/// someone else planted there (a link, another user's folder) is refused and nothing is written
/// through it; one of the user's open to others is closed to them.
#[test]
fn the_cache_in_the_temporary_folder_is_private() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tmp = write_app("private-cache", &[]);
    let app = tmp.join("app");
    small_app(&app, "Post");
    let uid = unsafe { libc::geteuid() };
    let own = tmp.join(format!("switchyard-{uid}"));
    let check = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_switchyard"))
            .arg("--check")
            .arg(&app)
            .env_remove("HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("SWITCHYARD_CACHE_DIR")
            .env("TMPDIR", &tmp)
            .output()
            .unwrap()
    };
    // Planted as a link to a folder the planter reads.
    let planted = tmp.join("planted");
    std::fs::create_dir_all(&planted).unwrap();
    std::os::unix::fs::symlink(&planted, &own).unwrap();
    let output = check();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("model.unsupported-macro"));
    assert!(String::from_utf8_lossy(&output.stderr).contains("refused"), "{output:?}");
    assert_eq!(std::fs::read_dir(&planted).unwrap().count(), 0, "written through the planted link");
    std::fs::remove_file(&own).unwrap();
    // The user's own, open to everyone: closed, then used.
    std::fs::create_dir(&own).unwrap();
    std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o777)).unwrap();
    let output = check();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(std::fs::metadata(&own).unwrap().mode() & 0o777, 0o700);
    assert!(std::fs::read_dir(own.join("index")).unwrap().count() > 0, "the index is kept");
    // Another user's (only root can make one here).
    if uid == 0 {
        std::fs::remove_dir_all(&own).unwrap();
        std::fs::create_dir(&own).unwrap();
        std::os::unix::fs::chown(&own, Some(65534), Some(65534)).unwrap();
        let output = check();
        assert!(String::from_utf8_lossy(&output.stderr).contains("another user"), "{output:?}");
        assert_eq!(std::fs::read_dir(&own).unwrap().count(), 0);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `--no-cache` writes nothing into the cache folder (not even the rule pages diagnostics would link
/// to: they carry no link then); `--cache-dir` keeps the pages there.
#[test]
fn the_server_writes_nothing_into_the_cache_folder_without_a_cache() {
    let base = write_app("no-cache-pages", &[]);
    let app = base.join("app");
    small_app(&app, "Post");
    let home = base.join("cache-home");
    std::fs::create_dir_all(&home).unwrap();
    let post = uri(&app.join("app/models/post.rb"));
    for (args, links) in [(vec!["--no-cache"], false), (vec!["--cache-dir", base.join("named").to_str().unwrap()], true)] {
        let mut client = Client::spawn_args(&args, &[("XDG_CACHE_HOME", &home)], None);
        client.initialize(&app);
        let diagnostics = client.diagnostics(&post, None);
        let link = diagnostics[0]["codeDescription"]["href"].as_str().map(str::to_owned);
        assert!(client.shutdown().success());
        assert_eq!(std::fs::read_dir(&home).unwrap().count(), 0, "{args:?} wrote into the cache folder");
        assert_eq!(link.is_some(), links, "{args:?}: {link:?}");
        if let Some(link) = link {
            assert!(link.starts_with(&uri(&base.join("named"))), "{link}");
        }
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// A document just under the size limit whose parse would cost millions of nodes (`X = [1,1,…]`,
/// `x=1` lines, a template of tags) is not parsed: it says so at once, each keystroke in it is
/// answered at once, and a hover elsewhere is not held up.
#[test]
fn a_file_that_would_cost_millions_of_nodes_is_not_parsed() {
    let app = write_app("costly-file", &[]);
    small_app(&app, "Post");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let size = 7_800_000;
    let documents = [
        ("app/models/big.rb", "ruby", format!("X = [{}1]\n", "1,".repeat(size / 2 - 4))),
        ("app/models/assign.rb", "ruby", "x=1\n".repeat(size / 4)),
        ("app/views/posts/big.html.erb", "erb", "<%= 1 %>\n".repeat(size / 9)),
    ];
    for (relative, language, text) in documents {
        let document = uri(&app.join(relative));
        client
            .notify("textDocument/didOpen", json!({"textDocument": {"uri": document, "languageId": language, "version": 1, "text": text}}));
        let diagnostics = client.diagnostics(&document, Some(1));
        assert!(
            diagnostics.iter().any(|d| d["code"] == "switchyard.skipped-file" && d["message"].as_str().unwrap().contains("tokens")),
            "{relative}: {diagnostics:?}"
        );
        for version in 2..5 {
            let edit = json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# x\n"}]);
            client.change(&document, version, edit);
        }
        client.diagnostics(&document, Some(4));
        let post = uri(&app.join("app/models/post.rb"));
        let hover = client.request("textDocument/hover", json!({"textDocument": {"uri": post}, "position": {"line": 1, "character": 4}}));
        assert!(hover.get("error").is_none(), "{hover}");
    }
    assert!(client.shutdown().success());
    let _ = std::fs::remove_dir_all(&app);
}

/// A folder removed while its index still runs leaves nothing of it behind: not its classes in
/// `workspace/symbol`, not its routes.
#[test]
fn a_folder_removed_while_it_is_indexed_leaves_nothing() {
    let (base, main) = folder_with_main("removed-mid-index");
    let cache = base.join("cache");
    let mut client = Client::spawn_with(&[("SWITCHYARD_CACHE_DIR", &cache)]);
    client.initialize(&main);
    client.wait_indexed();
    let big = support::synthetic_app();
    client.notify("workspace/didChangeWorkspaceFolders", folders_added(std::slice::from_ref(&big)));
    let removed: Vec<Value> = vec![json!({"uri": uri(&big), "name": "big"})];
    client.notify("workspace/didChangeWorkspaceFolders", json!({"event": {"added": [], "removed": removed}}));
    client.wait_indexed();
    let reply = client.request("workspace/symbol", json!({"query": "Event"}));
    assert!(!reply.to_string().contains(big.to_str().unwrap()), "{reply}");
    let reply = client.request("switchyard/routes", json!({}));
    assert_eq!(reply["result"]["apps"].as_array().map(Vec::len), Some(1), "{reply}");
    assert!(client.shutdown().success());
    let _ = std::fs::remove_dir_all(&base);
}

/// What a user may want to read reaches the client, not stderr (which editors file as errors): the
/// index's summary as `window/logMessage`; a folder with no Rails app is said once, with what was
/// looked for.
#[test]
fn the_client_is_told_what_the_index_found() {
    let base = write_app("no-app-here", &[("README.md", "# not an app\n"), ("lib/tool.rb", "class Tool; end\n")]);
    let mut client = Client::spawn();
    client.initialize(&base);
    client.wait_indexed();
    let said = match client.seen.iter().find(|m| m["method"] == "window/showMessage") {
        Some(said) => said.clone(),
        None => client.wait_for(|m| m["method"] == "window/showMessage"),
    };
    let text = said["params"]["message"].as_str().unwrap();
    assert!(text.contains("no Rails app") && text.contains("config/routes.rb") && text.contains(base.to_str().unwrap()), "{text}");
    let logged = client.seen.iter().find(|m| m["method"] == "window/logMessage").cloned();
    assert!(logged.is_some_and(|m| m["params"]["message"].as_str().unwrap().contains("0 Rails apps")));
    assert!(client.shutdown().success());

    let app = base.join("shop");
    small_app(&app, "Post");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let logged = client.seen.iter().find(|m| m["method"] == "window/logMessage").cloned();
    assert!(logged.is_some_and(|m| m["params"]["message"].as_str().unwrap().contains("1 Rails app")), "{:?}", client.seen.len());
    assert!(!client.seen.iter().any(|m| m["method"] == "window/showMessage"));
    assert!(client.shutdown().success());
    let _ = std::fs::remove_dir_all(&base);
}

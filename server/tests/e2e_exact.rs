//! End to end, exact previews: the server runs a configured `roundhouse` after a save and publishes its
//! diagnostics; `switchyard/preview` with `source: "exact"` serves what it wrote. The compiler here is
//! `tests/fixtures/roundhouse-double/roundhouse`, a double of the documented CLI contract.

mod support;

use serde_json::{Value, json};
use support::{Client, copy_dir, repo_root, uri};

fn start(binary: &std::path::Path, checkout: &std::path::Path, name: &str) -> (Client, std::path::PathBuf) {
    let app = copy_dir(&repo_root().join("examples/blog"), name);
    let mut client = Client::spawn();
    let result = client.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": uri(&app),
            "workspaceFolders": [{"uri": uri(&app), "name": "blog"}],
            "capabilities": {"window": {"workDoneProgress": true}},
            "initializationOptions": {"targets": ["ruby"], "roundhouse": {"binary": binary, "checkout": checkout}}
        }),
    );
    assert_eq!(result["result"]["capabilities"]["textDocumentSync"]["save"], json!({"includeText": true}));
    client.notify("initialized", json!({}));
    client.wait_indexed();
    (client, app)
}

/// A folder standing for a Roundhouse checkout: `runtime/`, and `runtime/spinel/scaffold/` unless
/// the compiler is to fail as the real one does without it.
fn checkout(name: &str, complete: bool) -> std::path::PathBuf {
    let checkout = std::env::temp_dir().join(format!("switchyard-checkout-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&checkout);
    std::fs::create_dir_all(checkout.join(if complete { "runtime/spinel/scaffold" } else { "runtime" })).unwrap();
    checkout
}

fn double() -> std::path::PathBuf {
    repo_root().join("tests/fixtures/roundhouse-double/roundhouse")
}

fn save(client: &mut Client, uri: &str, generation: u32) {
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    let token = format!("switchyard/roundhouse/{generation}");
    client.wait_for(|m| m["method"] == "$/progress" && m["params"]["token"] == token.as_str() && m["params"]["value"]["kind"] == "end");
}

fn compiler_diagnostics(message: &Value) -> Vec<Value> {
    message["params"]["diagnostics"].as_array().unwrap().iter().filter(|d| d["source"] == "roundhouse").cloned().collect()
}

fn last_compiler_diagnostics(client: &mut Client, uri: &str, version: i64) -> Vec<Value> {
    let message = client.diagnostics_message(uri, Some(version));
    compiler_diagnostics(&message)
}

#[test]
fn a_save_runs_the_compiler_and_its_output_is_served() {
    let checkout = checkout("served", true);
    let (mut client, app) = start(&double(), &checkout, "exact");
    let post = app.join("app/models/post.rb");
    let post_uri = client.open(&post, "ruby", 1);
    client.diagnostics(&post_uri, Some(1));
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": post_uri}}));
    let published = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == post_uri && !compiler_diagnostics(m).is_empty()
    });
    // The compiler printed each line more than once, with its prefix and an absolute path. Its
    // `unsupported` line on the include is what Switchyard's own finding there says: not repeated.
    // Its `lower_residue` line is one finding, under the compiler's kind, over the name it is about.
    let found = compiler_diagnostics(&published);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["code"], "roundhouse.lower_residue");
    assert_eq!(found[0]["range"], json!({"start": {"line": 16, "character": 22}, "end": {"line": 16, "character": 27}}));
    let own: Vec<&Value> =
        published["params"]["diagnostics"].as_array().unwrap().iter().filter(|d| d["range"]["start"]["line"] == 1).collect();
    assert_eq!(own.len(), 1, "{own:?}");
    assert_eq!(own[0]["code"], "model.unsupported-macro");
    assert_eq!(published["params"]["version"], 1, "the open document's version");
    assert!(client.seen.iter().any(|m| m["method"] == "$/progress" && m["params"]["value"]["title"] == "Roundhouse"));

    let exact = client.request("switchyard/preview", json!({"uri": post_uri, "source": "exact"}));
    assert_eq!(exact["result"]["source"], "exact");
    assert_eq!(exact["result"]["text"], "# emitted by the roundhouse test double (--target ruby) from app/models/post.rb\n");
    let builtin = client.request("switchyard/preview", json!({"uri": post_uri}));
    assert_eq!(builtin["result"]["source"], "builtin");

    // Lines added above move the finding with its line; editing the line itself drops it until the
    // next run.
    client.change(
        &post_uri,
        2,
        json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# one\n# two\n"}]),
    );
    let moved = last_compiler_diagnostics(&mut client, &post_uri, 2);
    assert_eq!(moved.len(), 1);
    assert_eq!(moved[0]["range"]["start"], json!({"line": 18, "character": 22}));
    client.change(
        &post_uri,
        3,
        json!([{"range": {"start": {"line": 18, "character": 48}, "end": {"line": 18, "character": 48}}, "text": " # newest"}]),
    );
    assert_eq!(last_compiler_diagnostics(&mut client, &post_uri, 3), Vec::<Value>::new());

    // The emitted tree is this user's alone.
    let cache = std::path::Path::new(concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache/switchyard/roundhouse"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(cache).unwrap().permissions().mode() & 0o777, 0o700);
    assert_eq!(client.shutdown().code(), Some(0));

    // A new session does not serve the last one's output as exact before its own run.
    let (mut client, _) = start(&double(), &checkout, "exact");
    let post_uri = client.open(&post, "ruby", 1);
    let preview = client.request("switchyard/preview", json!({"uri": post_uri, "source": "exact"}));
    assert_eq!(preview["result"]["source"], "builtin");
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
    let _ = std::fs::remove_dir_all(&checkout);
}

#[test]
fn a_failed_run_says_its_cause_and_its_old_output_is_no_longer_served() {
    let checkout = checkout("failing", true);
    let (mut client, app) = start(&double(), &checkout, "failing");
    let post_uri = client.open(&app.join("app/models/post.rb"), "ruby", 1);
    client.diagnostics(&post_uri, Some(1));
    save(&mut client, &post_uri, 1);
    let exact = client.request("switchyard/preview", json!({"uri": post_uri, "source": "exact"}));
    assert_eq!(exact["result"]["source"], "exact");
    // The checkout loses what the compiler needs: it fails, and says why on its last line.
    std::fs::remove_dir_all(checkout.join("runtime/spinel")).unwrap();
    save(&mut client, &post_uri, 2);
    let message = client.wait_for(|m| m["method"] == "window/showMessage");
    let text = message["params"]["message"].as_str().unwrap();
    assert!(text.contains("missing runtime/spinel/scaffold/"), "{text}");
    let preview = client.request("switchyard/preview", json!({"uri": post_uri, "source": "exact"}));
    assert_eq!(preview["result"]["source"], "builtin", "a failed run's tree is not served");
    // The same failure again is logged, not shown again; another one is shown.
    save(&mut client, &post_uri, 3);
    std::fs::remove_dir_all(checkout.join("runtime")).unwrap();
    save(&mut client, &post_uri, 4);
    client.wait_for(|m| {
        m["method"] == "window/showMessage" && m["params"]["message"].as_str().is_some_and(|t| t.contains("has no runtime/"))
    });
    let shown: Vec<String> = client
        .seen
        .iter()
        .filter(|m| m["method"] == "window/showMessage")
        .map(|m| m["params"]["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert!(shown[1].contains("has no runtime/ folder: it is not a Roundhouse checkout"), "{shown:?}");
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
    let _ = std::fs::remove_dir_all(&checkout);
}

#[test]
fn a_missing_compiler_or_checkout_is_named_for_what_it_is() {
    let missing = std::path::Path::new("/nonexistent/roundhouse");
    let (mut client, app) = start(missing, &std::env::temp_dir(), "missing");
    let post = app.join("app/models/post.rb");
    let post_uri = client.open(&post, "ruby", 1);
    client.diagnostics(&post_uri, Some(1));
    save(&mut client, &post_uri, 1);
    let message = client.wait_for(|m| m["method"] == "window/showMessage");
    assert!(
        message["params"]["message"].as_str().unwrap().contains("the Roundhouse binary /nonexistent/roundhouse does not exist"),
        "{message}"
    );
    // A second save runs again (its progress ends) but says nothing more.
    save(&mut client, &post_uri, 2);
    let preview = client.request("switchyard/preview", json!({"uri": post_uri, "source": "exact"}));
    assert_eq!(preview["result"]["source"], "builtin");
    let reply_to_shutdown = client.request("shutdown", Value::Null);
    assert!(reply_to_shutdown.get("error").is_none());
    assert_eq!(client.seen.iter().filter(|m| m["method"] == "window/showMessage").count(), 1);
    client.notify("exit", Value::Null);

    // The binary is there, the checkout is not: the checkout is blamed.
    let (mut client, _) = start(&double(), std::path::Path::new("/nonexistent/checkout"), "missing");
    let post_uri = client.open(&post, "ruby", 1);
    save(&mut client, &post_uri, 1);
    let message = client.wait_for(|m| m["method"] == "window/showMessage");
    assert!(
        message["params"]["message"].as_str().unwrap().contains("the Roundhouse checkout /nonexistent/checkout does not exist"),
        "{message}"
    );
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
}

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

#[test]
fn a_save_runs_the_compiler_and_its_output_is_served() {
    let checkout = std::env::temp_dir().join(format!("switchyard-checkout-{}", std::process::id()));
    std::fs::create_dir_all(checkout.join("runtime")).unwrap();
    let double = repo_root().join("tests/fixtures/roundhouse-double/roundhouse");
    let (mut client, app) = start(&double, &checkout, "exact");
    let post = app.join("app/models/post.rb");
    let post_uri = client.open(&post, "ruby", 1);
    client.diagnostics(&post_uri, Some(1));
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": post_uri}}));
    let published = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == post_uri
            && m["params"]["diagnostics"].as_array().is_some_and(|ds| ds.iter().any(|d| d["source"] == "roundhouse"))
    });
    let diagnostic = published["params"]["diagnostics"].as_array().unwrap().iter().find(|d| d["source"] == "roundhouse").unwrap().clone();
    assert_eq!(diagnostic["code"], "E-MODEL-DSL");
    assert_eq!(diagnostic["range"]["start"], json!({"line": 1, "character": 2}));
    assert_eq!(published["params"]["version"], 1, "the open document's version");
    assert!(client.seen.iter().any(|m| m["method"] == "$/progress" && m["params"]["value"]["title"] == "Roundhouse"));

    let exact = client.request("switchyard/preview", json!({"uri": post_uri, "source": "exact"}));
    assert_eq!(exact["result"]["source"], "exact");
    assert_eq!(exact["result"]["text"], "# emitted by the roundhouse test double (--target ruby) from app/models/post.rb\n");
    let builtin = client.request("switchyard/preview", json!({"uri": post_uri}));
    assert_eq!(builtin["result"]["source"], "builtin");
    assert_eq!(client.shutdown().code(), Some(0));
    let _ = std::fs::remove_dir_all(&app);
    let _ = std::fs::remove_dir_all(&checkout);
}

#[test]
fn a_missing_compiler_is_said_once_and_previews_stay_built_in() {
    let missing = std::path::Path::new("/nonexistent/roundhouse");
    let (mut client, app) = start(missing, &std::env::temp_dir(), "missing");
    let post = app.join("app/models/post.rb");
    let post_uri = client.open(&post, "ruby", 1);
    client.diagnostics(&post_uri, Some(1));
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": post_uri}}));
    let message = client.wait_for(|m| m["method"] == "window/showMessage");
    assert!(message["params"]["message"].as_str().unwrap().contains("/nonexistent/roundhouse"), "{message}");
    // A second save runs again (its progress ends) but says nothing more.
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": post_uri}}));
    client.wait_for(|m| {
        m["method"] == "$/progress" && m["params"]["token"] == "switchyard/roundhouse/2" && m["params"]["value"]["kind"] == "end"
    });
    let preview = client.request("switchyard/preview", json!({"uri": post_uri, "source": "exact"}));
    assert_eq!(preview["result"]["source"], "builtin");
    let reply_to_shutdown = client.request("shutdown", Value::Null);
    assert!(reply_to_shutdown.get("error").is_none());
    assert_eq!(client.seen.iter().filter(|m| m["method"] == "window/showMessage").count(), 1);
    client.notify("exit", Value::Null);
    let _ = std::fs::remove_dir_all(&app);
}

//! Hostile input against the real binary. The base protocol through raw stdio frames: a frame or
//! message the server cannot read is skipped (logged), the stream re-synchronises, and the next
//! request is answered. Files nested deeper than any stack: skipped with a diagnostic that says so,
//! while files nested nearly as deep are read and served.

mod support;

use serde_json::{Value, json};
use support::{Client, deep_files, repo_root, write_app};

fn frame(body: &[u8]) -> Vec<u8> {
    [format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes(), body].concat()
}

/// Sends `bad`, then asks for the workspace's symbols: the answer must come, and be a real one.
fn still_answers(client: &mut Client, bad: &[u8], case: &str) {
    client.send_bytes(bad);
    let reply = client.request("workspace/symbol", json!({"query": "Post"}));
    let names: Vec<&str> =
        reply["result"].as_array().map(|all| all.iter().filter_map(|s| s["name"].as_str()).collect()).unwrap_or_default();
    assert!(names.contains(&"Post"), "after {case}: {reply}");
    assert!(client.is_running(), "after {case}");
}

#[test]
fn no_frame_or_message_a_client_sends_ends_or_deafens_the_server() {
    let app = repo_root().join("examples/blog");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();

    let deep = format!(r#"{{"jsonrpc":"2.0","method":"x","params":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
    let messages: [(&str, &str); 11] = [
        ("an empty object", "{}"),
        ("a number", "42"),
        ("null", "null"),
        ("an empty batch", "[]"),
        ("a batch", r#"[{"jsonrpc":"2.0","id":99,"method":"shutdown"}]"#),
        ("JSON-RPC 1.0", r#"{"jsonrpc":"1.0","id":99,"method":"shutdown"}"#),
        ("no jsonrpc member", r#"{"id":99,"method":"shutdown"}"#),
        ("an object id", r#"{"jsonrpc":"2.0","id":{},"method":"shutdown"}"#),
        ("a fractional id", r#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#),
        ("a numeric method", r#"{"jsonrpc":"2.0","id":99,"method":7}"#),
        ("nesting deeper than 128", &deep),
    ];
    for (case, body) in messages {
        still_answers(&mut client, &frame(body.as_bytes()), case);
    }

    let initialized = br#"{"jsonrpc":"2.0","method":"$/noSuchNotification","params":{}}"#;
    let with_header = |header: &str| [header.as_bytes(), b"\r\n", initialized].concat();
    let characters = r#"{"jsonrpc":"2.0","method":"$/x","params":{"text":"é😀"}}"#;
    let framings: Vec<(&str, Vec<u8>)> = vec![
        ("a length shorter than the body", with_header(&format!("Content-Length: {}\r\n", initialized.len() - 10))),
        ("a length longer than the body", with_header(&format!("Content-Length: {}\r\n", initialized.len() + 10))),
        ("a length that is no number", with_header("Content-Length: twelve\r\n")),
        ("a negative length", with_header("Content-Length: -3\r\n")),
        ("no length", with_header("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n")),
        ("two different lengths", with_header("Content-Length: 10\r\nContent-Length: 20\r\n")),
        ("a length of a terabyte", with_header("Content-Length: 1099511627776\r\n")),
        ("the largest u64 as length", with_header("Content-Length: 18446744073709551615\r\n")),
        ("a header line that is not UTF-8", [b"X: \xff\xfe\r\n".as_slice(), &frame(initialized)].concat()),
        ("random bytes", b"\x00\x17\xff\xfe garbage }{ \r\n\r\n\x80".to_vec()),
        (
            "characters counted instead of bytes",
            [format!("Content-Length: {}\r\n\r\n", characters.chars().count()).as_bytes(), characters.as_bytes()].concat(),
        ),
        ("a body that is not JSON", frame(b"{ this is not json")),
    ];
    for (case, bytes) in &framings {
        still_answers(&mut client, bytes, case);
    }
    assert_eq!(client.shutdown().code(), Some(0));
}

fn skipped_file(diagnostics: &[Value]) -> bool {
    diagnostics.iter().any(|d| d["code"] == "switchyard.skipped-file")
}

#[test]
fn deep_files_are_read_or_skipped_with_a_diagnostic_never_a_dead_server() {
    for (scale, name) in [(1, "nearly-too-deep"), (10, "too-deep")] {
        let files = deep_files(scale);
        let app = write_app(name, &files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect::<Vec<_>>());
        let files = &files[..files.len() - 2]; // Not the Gemfile and the controller.
        let mut client = Client::spawn();
        client.initialize(&app);
        client.wait_indexed();
        for (relative, _) in files {
            let path = app.join(relative);
            let language = if relative.ends_with(".erb") { "erb" } else { "ruby" };
            let file_uri = client.open(&path, language, 1);
            let diagnostics = client.diagnostics(&file_uri, Some(1));
            assert_eq!(skipped_file(&diagnostics), scale > 1, "{relative} at scale {scale}: {diagnostics:?}");
            for (method, params) in [
                ("textDocument/documentSymbol", json!({"textDocument": {"uri": file_uri}})),
                ("textDocument/hover", json!({"textDocument": {"uri": file_uri}, "position": {"line": 1, "character": 3}})),
                (
                    "textDocument/inlayHint",
                    json!({"textDocument": {"uri": file_uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9999, "character": 0}}}),
                ),
                ("textDocument/codeLens", json!({"textDocument": {"uri": file_uri}})),
                ("switchyard/preview", json!({"uri": file_uri, "target": "ruby"})),
                ("switchyard/emittedTree", json!({"uri": file_uri})),
            ] {
                let reply = client.request(method, params);
                assert!(reply.get("error").is_none(), "{method} on {relative} at scale {scale}: {reply}");
            }
            // An edit at the deepest point is read too.
            client.change(&file_uri, 2, json!([{"text": format!("{}\n", std::fs::read_to_string(&path).unwrap())}]));
            client.diagnostics(&file_uri, Some(2));
        }
        let symbols = client.request("workspace/symbol", json!({"query": "Post"}));
        assert!(symbols.get("error").is_none());
        assert_eq!(client.shutdown().code(), Some(0), "scale {scale}");
    }
}

fn symbol_names(client: &mut Client, query: &str) -> Vec<String> {
    let reply = client.request("workspace/symbol", json!({"query": query}));
    reply["result"].as_array().map(|all| all.iter().filter_map(|s| s["name"].as_str().map(String::from)).collect()).unwrap_or_default()
}

#[test]
fn nothing_outside_the_workspace_is_read_whatever_a_client_or_a_repository_names() {
    let root = write_app(
        "escape",
        &[
            ("app/Gemfile", "gem 'rails'\n"),
            ("app/config/routes.rb", "Rails.application.routes.draw do\n  resources :posts\nend\n"),
            ("app/app/models/post.rb", "class Post < ApplicationRecord\nend\n"),
            ("app/app/models/visible.rb", "class Visible < ApplicationRecord\nend\n"),
            ("secret/secret.rb", "class SecretThing < ApplicationRecord\nend\n"),
        ],
    );
    let app = root.join("app");
    std::os::unix::fs::symlink(root.join("secret"), app.join("app/models/linked")).unwrap();
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    assert!(symbol_names(&mut client, "Post").contains(&"Post".to_owned()));
    std::fs::write(app.join("app/models/visible.rb"), "class Visible < ApplicationRecord\nend\nclass NewlyShown\nend\n").unwrap();

    let base = format!("file://{}", app.display());
    let host = format!("//otherhost{}", app.display());
    let named = [
        format!("{base}/app/../../secret/secret.rb"),
        format!("{base}/app/%2e%2e/%2e%2e/secret/secret.rb"),
        format!("{base}/app/..%2f..%2fsecret/secret.rb"),
        format!("{base}/app/models/linked/secret.rb"),
        format!("http:{host}/app/models/visible.rb"),
        format!("file:{host}/app/models/visible.rb"),
    ];
    let changes: Vec<Value> = named.iter().map(|uri| json!({"uri": uri, "type": 1})).collect();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": changes}));
    for uri in &named {
        let preview = client.request("switchyard/preview", json!({"uri": uri, "target": "ruby"}));
        assert!(!preview.to_string().contains("SecretThing"), "{uri}: {preview}");
        let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
        assert!(!symbols.to_string().contains("SecretThing"), "{uri}: {symbols}");
    }
    assert_eq!(symbol_names(&mut client, "SecretThing"), Vec::<String>::new());
    // The in-app file named through another host or scheme was not re-read either; named as itself,
    // it is.
    assert_eq!(symbol_names(&mut client, "NewlyShown"), Vec::<String>::new());
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": format!("{base}/app/models/visible.rb"), "type": 2}]}));
    assert_eq!(symbol_names(&mut client, "NewlyShown"), ["NewlyShown"]);
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn a_settings_file_that_is_a_device_a_fifo_or_a_link_outside_is_refused_not_read() {
    for (name, target) in [("zero", Some("/dev/zero")), ("stdin", Some("/dev/stdin")), ("fifo", None)] {
        let app = write_app(
            &format!("settings-{name}"),
            &[
                ("Gemfile", "gem 'rails'\n"),
                ("config/routes.rb", "Rails.application.routes.draw do\nend\n"),
                ("app/models/post.rb", "class Post < ApplicationRecord\nend\n"),
            ],
        );
        let settings = app.join("switchyard.toml");
        match target {
            Some(target) => std::os::unix::fs::symlink(target, &settings).unwrap(),
            None => {
                let c_path = std::ffi::CString::new(settings.to_str().unwrap()).unwrap();
                assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
            }
        }
        let mut client = Client::spawn();
        client.initialize(&app);
        let settings_uri = format!("file://{}", settings.display());
        let diagnostics = client.diagnostics(&settings_uri, None);
        client.wait_indexed();
        assert!(
            diagnostics.iter().any(|d| d["code"] == "switchyard.config" && d["message"].as_str().unwrap_or("").contains("not read")),
            "{name}: {diagnostics:?}"
        );
        assert!(symbol_names(&mut client, "Post").contains(&"Post".to_owned()), "{name}");
        assert_eq!(client.shutdown().code(), Some(0), "{name}");
    }
}

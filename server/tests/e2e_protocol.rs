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

/// A small deterministic generator: a failing seed reproduces.
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, bound: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

/// The documents the random edits go to, and lines an editor might add to each (routes among them,
/// so whole-app re-checks run while edits arrive).
const EDITED: &[(&str, &str, &[&str])] = &[
    (
        "config/routes.rb",
        "ruby",
        &[
            "  resources :articles\n",
            "  get \"about\", to: \"pages#nowhere\"\n",
            "  resources :posts do\n",
            "  end\n",
            "  root \"posts#index\"\n",
        ],
    ),
    (
        "app/models/post.rb",
        "ruby",
        &["  has_many :ghosts\n", "  validates :title, presence: true\n", "  def x(\n", "  after_commit :y\n", "end\n"],
    ),
    (
        "app/controllers/posts_controller.rb",
        "ruby",
        &["  def extra; end\n", "  before_action :nothing\n", "  def show\n    @post = Post.find(params[:id])\n  end\n"],
    ),
    (
        "app/views/posts/index.html.erb",
        "erb",
        &["<%= link_to \"A\", articles_path %>\n", "<%= link_to \"P\", posts_path %>\n", "<% if x %>\n", "<%= @post.title %>\n"],
    ),
];

/// The last diagnostics published for each file (by path relative to `root`), in a comparable form.
fn last_published(client: &Client, root: &std::path::Path) -> std::collections::BTreeMap<String, Vec<String>> {
    let prefix = format!("file://{}/", root.display());
    let mut last = std::collections::BTreeMap::new();
    for message in client.seen.iter().filter(|m| m["method"] == "textDocument/publishDiagnostics") {
        let Some(relative) = message["params"]["uri"].as_str().and_then(|u| u.strip_prefix(&prefix)) else { continue };
        let mut found: Vec<String> = message["params"]["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| format!("{} {} {} {}", d["range"], d["code"], d["severity"], d["message"]))
            .collect();
        found.sort();
        last.insert(relative.to_owned(), found);
    }
    last.retain(|_, found| !found.is_empty());
    last
}

#[test]
fn random_edits_end_where_a_fresh_server_on_the_final_text_starts() {
    for seed in [1u64, 7, 42] {
        let mut random = Lcg(seed);
        let edited = support::copy_dir(&repo_root().join("examples/blog"), &format!("random-{seed}"));
        let mut client = Client::spawn();
        client.initialize(&edited);
        client.wait_indexed();
        let mut texts: Vec<Vec<String>> = Vec::new();
        let mut uris = Vec::new();
        for (relative, language, _) in EDITED {
            let path = edited.join(relative);
            uris.push(client.open(&path, language, 1));
            texts.push(std::fs::read_to_string(&path).unwrap().split_inclusive('\n').map(String::from).collect());
        }
        let mut versions = vec![1i64; EDITED.len()];
        for _ in 0..80 {
            let doc = random.below(EDITED.len());
            let lines = &mut texts[doc];
            let line = random.below(lines.len() + 1);
            let (range, text) = if random.below(3) == 0 && line < lines.len() {
                lines.remove(line);
                (json!({"start": {"line": line, "character": 0}, "end": {"line": line + 1, "character": 0}}), String::new())
            } else {
                let snippets = EDITED[doc].2;
                let snippet = snippets[random.below(snippets.len())].to_owned();
                lines.insert(line, snippet.clone());
                // A snippet of several lines is several lines of the model.
                *lines = lines.concat().split_inclusive('\n').map(String::from).collect();
                (json!({"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}), snippet)
            };
            versions[doc] += 1;
            client.change(&uris[doc], versions[doc], json!([{"range": range, "text": text}]));
        }
        client.settle(std::time::Duration::from_millis(2000));
        for uri in &uris {
            let published: Vec<i64> = client
                .seen
                .iter()
                .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == *uri)
                .filter_map(|m| m["params"]["version"].as_i64())
                .collect();
            assert!(published.windows(2).all(|w| w[0] <= w[1]), "seed {seed}, {uri}: versions published out of order: {published:?}");
        }
        let after_edits = last_published(&client, &edited);
        assert_eq!(client.shutdown().code(), Some(0));

        // A fresh server on the final texts, written to disk and opened as they are.
        let fresh_app = support::copy_dir(&repo_root().join("examples/blog"), &format!("random-{seed}-fresh"));
        for ((relative, _, _), lines) in EDITED.iter().zip(&texts) {
            std::fs::write(fresh_app.join(relative), lines.concat()).unwrap();
        }
        let mut fresh = Client::spawn();
        fresh.initialize(&fresh_app);
        fresh.wait_indexed();
        for (relative, language, _) in EDITED {
            fresh.open(&fresh_app.join(relative), language, 1);
        }
        fresh.settle(std::time::Duration::from_millis(2000));
        let from_scratch = last_published(&fresh, &fresh_app);
        assert_eq!(fresh.shutdown().code(), Some(0));
        assert_eq!(
            after_edits,
            from_scratch,
            "seed {seed}: final texts:\n{}",
            texts.iter().map(|l| l.concat()).collect::<Vec<_>>().join("\n----\n")
        );
    }
}

fn document_symbols(client: &mut Client, uri: &str) -> Vec<String> {
    let reply = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    support::symbol_names(&reply["result"])
}

fn insert_at(line: u32, text: &str) -> Value {
    json!([{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}}, "text": text}])
}

#[test]
fn after_a_sync_error_edits_are_still_checked_and_a_save_brings_the_editors_text_back() {
    let app = write_app(
        "resync",
        &[
            ("Gemfile", "gem 'rails'\n"),
            ("config/routes.rb", "Rails.application.routes.draw do\nend\n"),
            ("lib/shapes.rb", "class Square\nend\n"),
        ],
    );
    let path = app.join("lib/shapes.rb");
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    let file = client.open(&path, "ruby", 1);
    // A change labelled with a version already held is still what the editor did.
    client.change(&file, 1, insert_at(0, "class Stale\nend\n"));
    client.change(&file, 2, insert_at(0, "class Circle\nend\n"));
    assert_eq!(document_symbols(&mut client, &file), ["Circle", "Stale", "Square"]);
    // A change outside the text held: the client's text is not ours any more; later edits are
    // applied and checked all the same (no full-text change is needed).
    client.change(&file, 3, insert_at(900, "class Far\nend\n"));
    client.change(&file, 4, insert_at(0, "class Later\nend\n"));
    let diagnostics = client.diagnostics(&file, Some(4));
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let symbols = document_symbols(&mut client, &file);
    assert_eq!(symbols.first().map(String::as_str), Some("Later"), "{symbols:?}");
    // The save carries the editor's text, and the server is back on it.
    let editors = "class Later\nend\nclass Circle\nend\nclass Square\nend\nclass Triangle\nend\n";
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": file}, "text": editors}));
    assert_eq!(document_symbols(&mut client, &file), ["Later", "Circle", "Square", "Triangle"]);
    // A client that sends no text on save: the saved file is read instead, once out of sync.
    client.change(&file, 5, insert_at(900, "class Lost\nend\n"));
    std::fs::write(&path, "class Hexagon\nend\n").unwrap();
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": file}}));
    assert_eq!(document_symbols(&mut client, &file), ["Hexagon"]);
    // And a change for a document never opened starts from the file on disk.
    let other = app.join("lib/other.rb");
    std::fs::write(&other, "class Pentagon\nend\n").unwrap();
    let other_uri = support::uri(&other);
    client.change(&other_uri, 7, insert_at(0, "class Octagon\nend\n"));
    assert_eq!(document_symbols(&mut client, &other_uri), ["Octagon", "Pentagon"]);
    assert_eq!(client.shutdown().code(), Some(0));
}

#[test]
fn a_50_mb_document_gets_bounded_work_and_says_so() {
    let app = write_app("huge", &[("Gemfile", "gem 'rails'\n"), ("config/routes.rb", "Rails.application.routes.draw do\nend\n")]);
    let path = app.join("lib/generated.rb");
    let line = "VALUES << [1, 2, 3, \"a generated line of data\"]\n";
    let text = line.repeat(50_000_000 / line.len());
    let file = support::uri(&path);
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    client.notify("textDocument/didOpen", json!({"textDocument": {"uri": file, "languageId": "ruby", "version": 1, "text": text}}));
    let diagnostics = client.diagnostics(&file, Some(1));
    assert!(
        diagnostics.iter().any(|d| d["code"] == "switchyard.skipped-file" && d["message"].as_str().unwrap().contains("50.0 MB")),
        "{diagnostics:?}"
    );
    for version in 2..=4 {
        client.change(&file, version, insert_at(1000, "VALUES << 0\n"));
        client.diagnostics(&file, Some(version));
    }
    // Edited down under the limit, it is read again.
    client.change(&file, 5, json!([{"text": "class Small\nend\n"}]));
    assert!(client.diagnostics(&file, Some(5)).is_empty());
    assert_eq!(document_symbols(&mut client, &file), ["Small"]);
    assert_eq!(client.shutdown().code(), Some(0));
}

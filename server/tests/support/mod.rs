//! A minimal LSP client for end-to-end tests: spawns the real `switchyard` binary, frames JSON-RPC over
//! its stdio, answers the server's own requests (`client/registerCapability`,
//! `window/workDoneProgress/create`) and lets a test wait for a given message. Waiting has a generous
//! deadline so a hung server fails the test instead of hanging CI; nothing sleeps.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(60);

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Every message received so far, in order.
    pub seen: Vec<Value>,
    /// Whether the server's own requests are answered (a client that never answers: `false`).
    pub answers: bool,
}

pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

impl Client {
    pub fn spawn() -> Client {
        Client::spawn_with(&[])
    }

    /// `spawn`, with these environment variables besides (a cache directory, say).
    pub fn spawn_with(env: &[(&str, &Path)]) -> Client {
        Client::spawn_logging(env, None)
    }

    /// `spawn_with`, the server's log (at `info`) written to `log` when given.
    pub fn spawn_logging(env: &[(&str, &Path)], log: Option<&Path>) -> Client {
        Client::spawn_args(&[], env, log)
    }

    /// `spawn_logging`, with these command-line arguments.
    pub fn spawn_args(args: &[&str], env: &[(&str, &Path)], log: Option<&Path>) -> Client {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
        command
            .args(args)
            .env("SWITCHYARD_LOG", if log.is_some() { "info" } else { "warn" })
            // The rule pages diagnostics link to are written here, not into the user's cache.
            .env("XDG_CACHE_HOME", concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache"))
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match log {
                Some(log) => Stdio::from(std::fs::File::create(log).expect("create the log")),
                None => Stdio::inherit(),
            });
        let mut child = command.spawn().expect("spawn switchyard");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, incoming) = channel();
        let reading = std::thread::Builder::new().stack_size(64 << 20);
        reading
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                loop {
                    let mut length = None;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let line = line.trim_end();
                        if line.is_empty() {
                            break;
                        }
                        if let Some(value) = line.strip_prefix("Content-Length: ") {
                            length = value.parse::<usize>().ok();
                        }
                    }
                    let mut body = vec![0; length.expect("Content-Length header")];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    // Without serde_json's depth limit: editors' JSON readers have none (or 1,000).
                    let mut reader = serde_json::Deserializer::from_slice(&body);
                    reader.disable_recursion_limit();
                    let message: Value = serde::Deserialize::deserialize(&mut reader).expect("server sent invalid JSON");
                    if sender.send(message).is_err() {
                        return;
                    }
                }
            })
            .expect("spawn the reader");
        Client { child, stdin, incoming, next_id: 1, seen: Vec::new(), answers: true }
    }

    pub fn send_raw(&mut self, body: &[u8]) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(body).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Writes these bytes as they are: no framing (hostile-client tests).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response (answering server requests meanwhile).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// Waits for the first message (not yet consumed) that satisfies `pred`.
    pub fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            let message = match self.incoming.recv_timeout(remaining) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => panic!("no matching message within {DEADLINE:?}; seen: {:#?}", self.seen),
                Err(RecvTimeoutError::Disconnected) => panic!("server closed its output; seen: {:#?}", self.seen),
            };
            // Server-to-client requests get the reply a real client gives.
            if let (Some(id), Some(method), true) = (message.get("id"), message.get("method"), self.answers) {
                let result = if method == "window/showDocument" { json!({"success": true}) } else { Value::Null };
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
            }
            self.seen.push(message.clone());
            if pred(&message) {
                return message;
            }
        }
    }

    /// Every message that arrives until `quiet` passes without one (answering the server's requests):
    /// what a burst of work left to say once it has settled.
    pub fn settle(&mut self, quiet: Duration) -> Vec<Value> {
        let mut out = Vec::new();
        while let Ok(message) = self.incoming.recv_timeout(quiet) {
            if let (Some(id), Some(_), true) = (message.get("id"), message.get("method"), self.answers) {
                self.send(json!({"jsonrpc": "2.0", "id": id, "result": Value::Null}));
            }
            self.seen.push(message.clone());
            out.push(message);
        }
        out
    }

    /// Waits for `publishDiagnostics` for `uri` (and `version`, when given).
    pub fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Vec<Value> {
        let message = self.diagnostics_message(uri, version);
        message["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    /// The diagnostics last published for `uri`, among those already received, else the next.
    pub fn published(&mut self, uri: &str) -> Vec<Value> {
        let last = self.seen.iter().rev().find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri).cloned();
        match last {
            Some(message) => message["params"]["diagnostics"].as_array().cloned().unwrap_or_default(),
            None => self.diagnostics(uri, None),
        }
    }

    /// `diagnostics`, the whole message.
    pub fn diagnostics_message(&mut self, uri: &str, version: Option<i64>) -> Value {
        self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && version.is_none_or(|v| m["params"]["version"] == json!(v))
        })
    }

    pub fn initialize(&mut self, root: &Path) -> Value {
        self.initialize_with(
            root,
            json!({
                "window": {"workDoneProgress": true},
                "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}, "workspaceFolders": true},
                "textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": true}}
            }),
            Value::Null,
        )
    }

    /// `initialize` (then `initialized`) with these client capabilities and initialization options.
    pub fn initialize_with(&mut self, root: &Path, capabilities: Value, options: Value) -> Value {
        let mut params = json!({
            "processId": null,
            "rootUri": uri(root),
            "workspaceFolders": [{"uri": uri(root), "name": "app"}],
            "capabilities": capabilities
        });
        if !options.is_null() {
            params["initializationOptions"] = options;
        }
        let result = self.request("initialize", params);
        self.notify("initialized", json!({}));
        result
    }

    /// Waits until the cold index has finished (its progress ended).
    pub fn wait_indexed(&mut self) -> Value {
        self.wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
    }

    pub fn open(&mut self, path: &Path, language_id: &str, version: i64) -> String {
        let text = std::fs::read_to_string(path).unwrap();
        let uri = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language_id, "version": version, "text": text}}),
        );
        uri
    }

    pub fn change(&mut self, uri: &str, version: i64, changes: Value) {
        self.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}));
    }

    /// `shutdown`, `exit`, and the process's exit status.
    pub fn shutdown(mut self) -> std::process::ExitStatus {
        let reply = self.request("shutdown", Value::Null);
        assert!(reply.get("error").is_none(), "shutdown failed: {reply}");
        self.notify("exit", Value::Null);
        self.child.wait().unwrap()
    }

    /// Sends a request without waiting for its answer; its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Waits for the answer to the request `id`.
    pub fn answer(&mut self, id: i64) -> Value {
        if let Some(seen) = self.seen.iter().find(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none()) {
            return seen.clone();
        }
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// Whether the process ends within `limit` (a hang fails a test instead of hanging CI).
    pub fn exits_within(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if !self.is_running() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }

    /// Blocks until the process exits.
    pub fn wait_for_exit(&mut self) {
        let _ = self.child.wait();
    }

    pub fn shutdown_status(&mut self) -> std::process::ExitStatus {
        self.child.wait().unwrap()
    }

    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Rails app of the given files (relative path, text) in a fresh temporary folder.
pub fn write_app(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = std::env::temp_dir().join(format!("switchyard-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (relative, text) in files {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    root
}

/// The app a benchmark measures when `SWITCHYARD_BENCH_APP` names one (a real app), else `None`.
pub fn bench_app() -> Option<PathBuf> {
    std::env::var_os("SWITCHYARD_BENCH_APP").map(|app| std::path::absolute(PathBuf::from(app)).unwrap())
}

/// The synthetic benchmark app (`scripts/gen-synthetic-app.py`) of `SWITCHYARD_SYNTHETIC` resources
/// (250 unless set: ~2,000 files; 2500: ~20,000), written to `target/synthetic-<N>` when missing.
pub fn synthetic_app() -> PathBuf {
    let resources = std::env::var("SWITCHYARD_SYNTHETIC").unwrap_or_else(|_| "250".to_owned());
    let app = repo_root().join(format!("target/synthetic-{resources}"));
    if !app.join("config/routes.rb").exists() {
        let status = Command::new("python3")
            .arg(repo_root().join("scripts/gen-synthetic-app.py"))
            .arg(&resources)
            .arg(&app)
            .status()
            .expect("python3");
        assert!(status.success());
    }
    app
}

/// A private copy of a folder, for tests that change files on disk.
pub fn copy_dir(from: &Path, name: &str) -> PathBuf {
    let to = std::env::temp_dir().join(format!("switchyard-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&to);
    copy_recursive(from, &to);
    to
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_recursive(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_recursive(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn nested(open: &str, middle: &str, close: &str, levels: usize) -> String {
    format!("{}{middle}{}", open.repeat(levels), close.repeat(levels))
}

fn model(body: &str) -> String {
    format!("class Post < ApplicationRecord\n  has_many :comments\n{body}\nend\n")
}

/// An app of each shape nested nearly as deep as Switchyard reads (`scale` 1) or ten times deeper
/// (10): files, then the Gemfile and a controller.
pub fn deep_files(scale: usize) -> Vec<(String, String)> {
    let routes =
        |open: &str| format!("Rails.application.routes.draw do\n{}\nend\n", nested(open, "get 'x', to: 'a#b'\n", "end\n", 300 * scale));
    vec![
        ("app/models/post.rb".into(), model(&nested("a do\n", "", "end\n", 300 * scale))),
        ("app/models/array.rb".into(), model(&format!("X = {}", nested("[", "", "]", 900 * scale)))),
        ("app/models/paren.rb".into(), model(&format!("X = {}", nested("(", "1", ")", 900 * scale)))),
        ("app/models/chain.rb".into(), model(&format!("X = a{}", ".b".repeat(900 * scale)))),
        ("app/models/sum.rb".into(), model(&format!("X = 1{}", " + 1".repeat(900 * scale)))),
        ("app/models/hash.rb".into(), model(&format!("X = {}", nested("{a: ", "1", "}", 450 * scale)))),
        ("app/models/branch.rb".into(), model(&nested("if a\n", "", "end\n", 450 * scale))),
        ("app/models/lambda.rb".into(), model(&format!("X = {}", nested("-> { ", "1", " }", 300 * scale)))),
        ("lib/nest.rb".into(), nested("module A\n", "", "end\n", 450 * scale)),
        ("app/views/posts/index.html.erb".into(), nested("<% if a %>\n", "", "<% end %>\n", 450 * scale)),
        (
            "db/schema.rb".into(),
            format!(
                "ActiveRecord::Schema.define(version: 1) do\n{}end\n",
                nested("create_table :posts do |t|\n", "", "end\n", 300 * scale)
            ),
        ),
        ("config/routes.rb".into(), routes("namespace :a do\n")),
        ("config/routes/resources.rb".into(), routes("resources :a do\n")),
        ("Gemfile".into(), "gem 'rails'\n".into()),
        ("app/controllers/posts_controller.rb".into(), "class PostsController < ApplicationController\n  def index; end\nend\n".into()),
    ]
}

/// The names in a `documentSymbol` reply, depth first.
pub fn symbol_names(symbols: &Value) -> Vec<String> {
    let mut names = Vec::new();
    fn walk(symbols: &Value, names: &mut Vec<String>) {
        for s in symbols.as_array().into_iter().flatten() {
            names.push(s["name"].as_str().unwrap_or("").to_owned());
            walk(&s["children"], names);
        }
    }
    walk(symbols, &mut names);
    names
}

/// The `switchyard` binary run from the repository's root with `args`, its persisted index in a scratch
/// folder of this test process named by `cache` (not the user's cache).
pub fn run_switchyard(args: &[&str], cache: &str) -> std::process::Output {
    let cache = std::env::temp_dir().join(format!("switchyard-{cache}-cache-{}", std::process::id()));
    std::process::Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .current_dir(repo_root())
        .env("SWITCHYARD_CACHE_DIR", cache)
        .args(args)
        .output()
        .expect("run switchyard")
}

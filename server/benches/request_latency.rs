//! Navigation requests' latency over stdio against the real binary: definition, references, hover,
//! completion and document links, each asked 200 times at places of their kind across the app's
//! files (a `render` target, an association, a column, an instance variable, a partial's callers, a
//! helper's uses…), one at a time, the way an editor asks them. Prints the median, p90, p99 and max
//! of each, then the same requests right after an edit (the first request after a change builds the
//! app's context and navigation facts again).
//!
//!     cargo bench --bench request_latency                  # the synthetic app (~2,000 files)
//!     SWITCHYARD_APP=path/to/app cargo bench --bench request_latency
//!
//! Positions are found by the text they are on, in each kind of file the app has.

#![allow(clippy::print_stdout)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::Client;

const ROUNDS: usize = 200;

/// A request to time: its method and its params.
struct Ask {
    kind: &'static str,
    method: &'static str,
    params: Value,
}

fn main() {
    let app = std::env::var_os("SWITCHYARD_APP").map(PathBuf::from).unwrap_or_else(support::synthetic_app);
    let files = sources(&app);
    println!("app: {} ({} files)", app.display(), files.len());
    let asks = asks(&files);
    let kinds: Vec<&str> = {
        let mut k: Vec<&str> = asks.iter().map(|a| a.kind).collect();
        k.sort_unstable();
        k.dedup();
        k
    };
    let mut client = Client::spawn();
    client.initialize(&app);
    client.wait_indexed();
    // Open every file a request is asked in, as an editor has them open.
    let mut opened = std::collections::HashSet::new();
    for ask in &asks {
        let uri = ask.params["textDocument"]["uri"].as_str().unwrap().to_owned();
        if opened.insert(uri.clone()) {
            let path = PathBuf::from(uri.trim_start_matches("file://"));
            let language = match path.extension().and_then(|e| e.to_str()) {
                Some("erb") => "erb",
                Some("haml") => "haml",
                _ => "ruby",
            };
            client.open(&path, language, 1);
        }
    }
    // Until the server is quiet (the opens' publishes and re-checks done), then one warm-up pass.
    client.settle(Duration::from_secs(15));
    for ask in &asks {
        client.request(ask.method, ask.params.clone());
    }
    for kind in &kinds {
        let of_kind: Vec<&Ask> = asks.iter().filter(|a| a.kind == *kind).collect();
        let mut times = Vec::with_capacity(ROUNDS);
        let mut answered = 0;
        for i in 0..ROUNDS {
            let ask = of_kind[i % of_kind.len()];
            let started = Instant::now();
            let reply = client.request(ask.method, ask.params.clone());
            times.push(started.elapsed());
            answered += usize::from(!reply["result"].is_null());
        }
        report(kind, &mut times, answered);
    }
    // The first request after an edit: each time a template is typed in first.
    let template =
        asks.iter().find(|a| a.kind == "definition (render)").map(|a| a.params["textDocument"]["uri"].as_str().unwrap().to_owned());
    if let Some(uri) = template {
        for kind in &kinds {
            let of_kind: Vec<&Ask> = asks.iter().filter(|a| a.kind == *kind).collect();
            let mut times = Vec::with_capacity(40);
            let mut answered = 0;
            for i in 0..40 {
                let version = 1000 + i as i64;
                let text = if i % 2 == 0 { "x" } else { "" };
                let end = if i % 2 == 0 { 0 } else { 1 };
                client.change(
                    &uri,
                    version,
                    json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": end}}, "text": text}]),
                );
                let ask = of_kind[i % of_kind.len()];
                let started = Instant::now();
                let reply = client.request(ask.method, ask.params.clone());
                times.push(started.elapsed());
                answered += usize::from(!reply["result"].is_null());
            }
            report(&format!("{kind}, after an edit"), &mut times, answered);
        }
    }
    // A definition whose answer is in the file just edited (a filter's method in the same
    // controller): the older context's places would be off, so a new one is built.
    if let Some(ask) = asks.iter().find(|a| a.kind == "definition (filter)") {
        let uri = ask.params["textDocument"]["uri"].as_str().unwrap().to_owned();
        let mut times = Vec::with_capacity(40);
        let mut answered = 0;
        for i in 0..40 {
            // A line added at the top, then removed: the method moves down a line and back.
            let version = 2000 + i as i64;
            let (text, end_line) = if i % 2 == 0 { ("\n", 0) } else { ("", 1) };
            client.change(
                &uri,
                version,
                json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": end_line, "character": 0}}, "text": text}]),
            );
            let mut params = ask.params.clone();
            let line = params["position"]["line"].as_u64().unwrap() + u64::from(i % 2 == 0);
            params["position"]["line"] = json!(line);
            let started = Instant::now();
            let reply = client.request(ask.method, params);
            times.push(started.elapsed());
            answered += usize::from(!reply["result"].is_null());
        }
        report("definition in the file just edited", &mut times, answered);
    }
    let _ = client.shutdown();
}

fn report(kind: &str, times: &mut [Duration], answered: usize) {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{kind:<40} n={:<4} answered={answered:<4} median {:>6.2} ms  p90 {:>6.2} ms  p99 {:>6.2} ms  max {:>6.2} ms",
        times.len(),
        ms(at(0.5)),
        ms(at(0.9)),
        ms(at(0.99)),
        ms(*times.last().unwrap())
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The app's templates, models, controllers and helpers.
fn sources(app: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["app/views", "app/models", "app/controllers", "app/helpers"] {
        walk(&app.join(dir), &mut out);
    }
    out.sort();
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rb" || e == "erb" || e == "haml") {
            out.push(path);
        }
    }
}

/// A position on the first occurrence of `needle` (plus `into` bytes) in `text`.
fn position(uri: &str, text: &str, at: usize) -> Value {
    let line = text[..at].matches('\n').count();
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let character: usize = text[line_start..at].chars().map(char::len_utf16).sum();
    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
}

/// Up to 50 places of each kind across the files.
fn asks(files: &[PathBuf]) -> Vec<Ask> {
    let mut out = Vec::new();
    // (kind, method, file filter, needle, offset into it)
    type Probe = (&'static str, &'static str, fn(&str) -> bool, &'static str, usize);
    let probes: &[Probe] = &[
        ("definition (render)", "textDocument/definition", |p| p.contains("/app/views/"), "render \"", 9),
        ("definition (render)", "textDocument/definition", |p| p.contains("/app/views/"), "render :partial => '", 22),
        ("definition (association)", "textDocument/definition", |p| p.contains("/app/models/"), "belongs_to :", 13),
        ("definition (filter)", "textDocument/definition", |p| p.contains("/app/controllers/"), "before_action :", 16),
        ("definition (ivar in a view)", "textDocument/definition", |p| p.contains("/app/views/"), "<%= @", 6),
        ("hover (column)", "textDocument/hover", |p| p.contains("/app/models/"), "validates :", 12),
        ("hover (model constant)", "textDocument/hover", |p| p.contains("/app/controllers/"), " = ", 4),
        ("hover (ivar in a view)", "textDocument/hover", |p| p.contains("/app/views/"), "<%= @", 6),
        ("references (partial callers)", "textDocument/references", |p| p.contains("/app/views/") && p.contains("/_"), "<", 1),
        ("references (template's actions)", "textDocument/references", |p| p.ends_with("show.html.erb"), "<", 1),
        ("completion (ivar in a view)", "textDocument/completion", |p| p.contains("/app/views/"), "<%= @", 5),
        ("completion (column in a query)", "textDocument/completion", |p| p.contains("/app/models/"), "where(", 6),
        ("documentLink", "textDocument/documentLink", |p| p.contains("/app/views/"), "render", 0),
    ];
    for (kind, method, filter, needle, into) in probes {
        let mut n = out.iter().filter(|a: &&Ask| a.kind == *kind).count();
        for file in files.iter().filter(|f| filter(&f.to_string_lossy())) {
            let Ok(text) = std::fs::read_to_string(file) else { continue };
            let Some(found) = text.find(needle) else { continue };
            let uri = support::uri(file);
            let mut params = position(&uri, &text, found + into);
            if *method == "textDocument/references" {
                params["context"] = json!({"includeDeclaration": false});
            }
            if *method == "textDocument/documentLink" {
                params = json!({"textDocument": {"uri": uri}});
            }
            out.push(Ask { kind, method, params });
            n += 1;
            if n >= 50 {
                break;
            }
        }
    }
    out
}

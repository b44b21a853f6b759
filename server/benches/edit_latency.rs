//! didChange → publishDiagnostics latency for a 1-character edit in a 300-line model, over stdio
//! against the real binary.
//!
//!     cargo bench --bench edit_latency
//!
//! 20 warm-up edits, then 400 measured (alternately typing and deleting a character inside a method
//! body); prints the median, p90, p99 and max. Twice: in an app of its own, and inside the synthetic
//! 2,026-file app (`scripts/gen-synthetic-app.py`), where every edit also re-runs the whole-app checks
//! (route table, route helpers of every file) before its diagnostics are published.

#![allow(clippy::print_stdout)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use support::Client;

const WARMUP: usize = 20;
const REBUILDS: usize = 120;
const MEASURED: usize = 400;

fn model_300_lines() -> String {
    let mut lines = vec!["class Invoice < ApplicationRecord".to_owned()];
    lines.push("  belongs_to :customer, class_name: \"User\"".to_owned());
    lines.push("  has_many :line_items, -> { order(:position) }, dependent: :destroy".to_owned());
    lines.push("  validates :number, presence: true, uniqueness: true".to_owned());
    lines.push("  before_save :compute_totals".to_owned());
    lines.push("  scope :overdue, -> { where(\"due_on < ?\", Date.current) }".to_owned());
    let mut i = 0;
    while lines.len() < 299 {
        lines.push(String::new());
        lines.push(format!("  def amount_{i}(rate = 1.0)"));
        lines.push("    total = line_items.sum { |item| item.quantity * item.unit_price * rate }".to_string());
        lines.push(format!("    total.round({})", i % 4));
        lines.push("  end".to_owned());
        i += 1;
    }
    lines.push("end".to_owned());
    lines.join("\n") + "\n"
}

fn main() {
    let alone = std::env::temp_dir().join(format!("switchyard-bench-{}", std::process::id()));
    std::fs::create_dir_all(alone.join("config")).unwrap();
    std::fs::write(alone.join("config/routes.rb"), "Rails.application.routes.draw do\nend\n").unwrap();
    measure("own app", &alone);
    let _ = std::fs::remove_dir_all(&alone);

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let synthetic = root.join("target/synthetic-app");
    if !synthetic.join("config/routes.rb").exists() {
        let status = std::process::Command::new("python3")
            .arg(root.join("scripts/gen-synthetic-app.py"))
            .arg("400")
            .arg(&synthetic)
            .status()
            .expect("python3");
        assert!(status.success());
    }
    measure("synthetic app", &synthetic);
    let _ = std::fs::remove_file(synthetic.join("app/models/invoice.rb"));
}

fn measure(label: &str, app: &std::path::Path) {
    std::fs::create_dir_all(app.join("app/models")).unwrap();
    let model = app.join("app/models/invoice.rb");
    let text = model_300_lines();
    std::fs::write(&model, &text).unwrap();
    let line_count = text.lines().count();

    let mut client = Client::spawn();
    client.initialize(app);
    client.wait_indexed();
    let uri = client.open(&model, "ruby", 1);
    client.diagnostics(&uri, Some(1));

    // Line 153 (0-based 152) is `total = …` inside a method body; type a character at its end, then
    // delete it.
    let line = 152;
    let column = text.lines().nth(line).unwrap().len() as u32;
    let mut latencies = Vec::new();
    let mut preview_latencies = Vec::new();
    let mut hint_latencies = Vec::new();
    for step in 0..WARMUP + MEASURED {
        let version = step as i64 + 2;
        let change = if step % 2 == 0 {
            json!([{"range": {"start": {"line": line, "character": column}, "end": {"line": line, "character": column}}, "text": "x"}])
        } else {
            json!([{"range": {"start": {"line": line, "character": column}, "end": {"line": line, "character": column + 1}}, "text": ""}])
        };
        let start = Instant::now();
        client.change(&uri, version, change);
        client.diagnostics(&uri, Some(version));
        if step >= WARMUP {
            latencies.push(start.elapsed());
        }
        // Every other edit: the model's preview right after the edit, as an editor beside it asks.
        if step % 2 == 1 {
            let start = Instant::now();
            let reply = client.request("switchyard/preview", json!({"uri": uri, "target": "ruby"}));
            assert!(reply["result"]["text"].as_str().is_some_and(|t| t.contains("class Invoice")));
            if step >= WARMUP {
                preview_latencies.push(start.elapsed());
            }
        } else if step > 0 {
            // The other edits: the inlay hints of the whole model, as the editor asks after a change.
            let start = Instant::now();
            let reply = client.request(
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": line_count, "character": 0}}}),
            );
            assert!(reply["result"].as_array().is_some_and(|h| !h.is_empty()));
            if step >= WARMUP {
                hint_latencies.push(start.elapsed());
            }
        }
    }
    report(label, &format!("{line_count}-line model, {MEASURED} edits"), latencies);
    report(label, &format!("preview after an edit, {} requests", preview_latencies.len()), preview_latencies);
    report(label, &format!("inlay hints after an edit, {} requests", hint_latencies.len()), hint_latencies);

    // Edits that change what the file contributes to its app: typing into a method's name rebuilds the
    // app's context and re-checks every file of the app.
    let (def_line, def_text) = text.lines().enumerate().find(|(_, l)| l.trim_start().starts_with("def amount_")).unwrap();
    let name_end = def_text.find('(').unwrap() as u32;
    let base = (WARMUP + MEASURED) as i64 + 2;
    let mut rebuilds = Vec::new();
    for step in 0..REBUILDS {
        let version = base + step as i64;
        let change = if step % 2 == 0 {
            json!([{"range": {"start": {"line": def_line, "character": name_end}, "end": {"line": def_line, "character": name_end}}, "text": "x"}])
        } else {
            json!([{"range": {"start": {"line": def_line, "character": name_end}, "end": {"line": def_line, "character": name_end + 1}}, "text": ""}])
        };
        let start = Instant::now();
        client.change(&uri, version, change);
        client.diagnostics(&uri, Some(version));
        if step >= WARMUP {
            rebuilds.push(start.elapsed());
        }
    }
    report(label, &format!("method-name edits (whole-app re-check), {} edits", rebuilds.len()), rebuilds);

    // Requests with no edit between them (moving the cursor, a lens refresh): each reuses the app
    // context the first one built at this index generation.
    let mut lenses = Vec::new();
    for step in 0..WARMUP + MEASURED {
        let start = Instant::now();
        let reply = client.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
        assert!(reply["result"].as_array().is_some_and(|l| !l.is_empty()));
        if step >= WARMUP {
            lenses.push(start.elapsed());
        }
    }
    report(label, &format!("code lenses with no edit between, {} requests", lenses.len()), lenses);
    assert_eq!(client.shutdown().code(), Some(0));
}

/// Prints the median, p90, p99 and max of `latencies`.
fn report(label: &str, what: &str, mut latencies: Vec<Duration>) {
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{label:<14} {what}: median {:.3} ms | p90 {:.3} ms | p99 {:.3} ms | max {:.3} ms",
        ms(at(0.5)),
        ms(at(0.9)),
        ms(at(0.99)),
        ms(*latencies.last().unwrap())
    );
}

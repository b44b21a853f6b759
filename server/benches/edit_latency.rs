//! didChange → publishDiagnostics latency for a 1-character edit in a 300-line model, over stdio
//! against the real binary.
//!
//!     cargo bench --bench edit_latency
//!
//! 20 warm-up edits, then 400 measured (alternately typing and deleting a character inside a method
//! body); then method renames, which ask for a whole-app re-check (timed to the file's own publish and
//! to the re-check's publish of a template they affect), and typing right after a rename, while its
//! re-check runs; requests after an edit. Prints the median, p90, p99 and max of each. Twice: in an app
//! of its own, and inside the synthetic app (`scripts/gen-synthetic-app.py`, ~2,000 files;
//! `SWITCHYARD_SYNTHETIC=2500` for ~20,000), where diagnostics depend on the whole app.

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
    // One route: with none at all, route helpers are not judged (the table may come from elsewhere).
    std::fs::write(alone.join("config/routes.rb"), "Rails.application.routes.draw do\n  get \"invoices\", to: \"invoices#index\"\nend\n")
        .unwrap();
    std::fs::create_dir_all(alone.join("app/controllers")).unwrap();
    std::fs::write(
        alone.join("app/controllers/invoices_controller.rb"),
        "class InvoicesController < ApplicationController\n  def index\n  end\nend\n",
    )
    .unwrap();
    measure("own app", &alone);
    let _ = std::fs::remove_dir_all(&alone);

    let synthetic = support::synthetic_app();
    measure("synthetic app", &synthetic);
    let _ = std::fs::remove_file(synthetic.join("app/models/invoice.rb"));
    let _ = std::fs::remove_dir_all(synthetic.join("app/views/invoices"));
}

fn measure(label: &str, app: &std::path::Path) {
    std::fs::create_dir_all(app.join("app/models")).unwrap();
    let model = app.join("app/models/invoice.rb");
    let text = model_300_lines();
    std::fs::write(&model, &text).unwrap();
    let line_count = text.lines().count();
    // A template that calls `amount_0_path`: no route, so a finding, until the model defines a method
    // of that name.
    std::fs::create_dir_all(app.join("app/views/invoices")).unwrap();
    let view = app.join("app/views/invoices/summary.html.erb");
    std::fs::write(&view, "<%= link_to \"Total\", amount_0_path %>\n").unwrap();
    let view_uri = support::uri(&view);

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

    // Edits that change what the file contributes to its app: renaming a method (`amount_0` to
    // `amount_0_path` and back) asks for a whole-app re-check, which runs in the background while the
    // next edit comes. Timed twice: to the edited file's own publish, and to the publish of the
    // (unopened) template whose finding each rename adds or takes away, which only the re-check sends.
    let (def_line, def_text) = text.lines().enumerate().find(|(_, l)| l.trim_start().starts_with("def amount_0(")).unwrap();
    let name_end = def_text.find('(').unwrap() as u32;
    let base = (WARMUP + MEASURED) as i64 + 2;
    let mut rebuilds = Vec::new();
    let mut rechecks = Vec::new();
    for step in 0..REBUILDS {
        let version = base + step as i64;
        let (change, defined) = if step % 2 == 0 {
            let at = json!({"line": def_line, "character": name_end});
            (json!([{"range": {"start": at, "end": at}, "text": "_path"}]), true)
        } else {
            let range = json!({"start": {"line": def_line, "character": name_end}, "end": {"line": def_line, "character": name_end + 5}});
            (json!([{"range": range, "text": ""}]), false)
        };
        let start = Instant::now();
        client.change(&uri, version, change);
        client.diagnostics(&uri, Some(version));
        let own = start.elapsed();
        client.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == view_uri
                && m["params"]["diagnostics"].as_array().is_some_and(|d| d.is_empty() == defined)
        });
        if step >= WARMUP {
            rebuilds.push(own);
            rechecks.push(start.elapsed());
        }
    }
    report(label, &format!("method renames, the file's own publish, {} edits", rebuilds.len()), rebuilds);
    report(label, &format!("method renames, the re-check's publish of another file, {} edits", rechecks.len()), rechecks);

    // Ordinary edits while a whole-app re-check runs: each follows a rename as soon as the rename's own
    // publish arrives, while the re-check it started is still under way.
    let base = base + REBUILDS as i64;
    let mut during = Vec::new();
    let body = json!({"line": line, "character": column});
    for step in 0..REBUILDS {
        let version = base + 3 * step as i64;
        let rename = if step % 2 == 0 {
            let at = json!({"line": def_line, "character": name_end});
            json!([{"range": {"start": at, "end": at}, "text": "_path"}])
        } else {
            json!([{"range": {"start": {"line": def_line, "character": name_end}, "end": {"line": def_line, "character": name_end + 5}}, "text": ""}])
        };
        client.change(&uri, version, rename);
        client.diagnostics(&uri, Some(version));
        let start = Instant::now();
        client.change(&uri, version + 1, json!([{"range": {"start": body, "end": body}, "text": "x"}]));
        client.diagnostics(&uri, Some(version + 1));
        if step >= WARMUP {
            during.push(start.elapsed());
        }
        let typed = json!({"start": body, "end": {"line": line, "character": column + 1}});
        client.change(&uri, version + 2, json!([{"range": typed, "text": ""}]));
        client.diagnostics(&uri, Some(version + 2));
    }
    report(label, &format!("typing while a re-check runs, {} edits", during.len()), during);

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

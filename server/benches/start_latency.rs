//! A file opened at start: how long until its complete diagnostics (its own and the whole-app ones)
//! are published, with the persisted index warm and cold, over stdio against the real binary.
//!
//!     cargo bench --bench start_latency
//!     SWITCHYARD_BENCH_APP=path/to/app cargo bench --bench start_latency
//!
//! The app is the synthetic one (`scripts/gen-synthetic-app.py`, ~2,000 files;
//! `SWITCHYARD_SYNTHETIC=2500` for ~20,000) or `SWITCHYARD_BENCH_APP`. Two probe models are written
//! into it (and removed after): a model, and a subclass of it with a validation, which Roundhouse
//! drops from a subclass. That finding is whole-app (it needs the other file), so it is published
//! only once the app's context is built: the time to it is the time to complete diagnostics. The editor's sequence: `initialize`, `initialized`, `didOpen` of the probe at
//! once. One cold start (an empty cache directory), then seven warm ones; prints the time from
//! `didOpen` to the probe's own findings and to its complete ones, and from the process's spawn to
//! the index's progress end.

#![allow(clippy::print_stdout)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use support::Client;

const WARM: usize = 7;

fn main() {
    let app: PathBuf = match std::env::var_os("SWITCHYARD_BENCH_APP") {
        Some(app) => std::path::absolute(PathBuf::from(app)).unwrap(),
        None => support::synthetic_app(),
    };
    let base = app.join("app/models/switchyard_probe.rb");
    let probe = app.join("app/models/switchyard_probe_child.rb");
    std::fs::write(&base, "class SwitchyardProbe < ApplicationRecord\nend\n").unwrap();
    std::fs::write(&probe, "class SwitchyardProbeChild < SwitchyardProbe\n  validates :name, presence: true\nend\n").unwrap();
    let cache = std::env::temp_dir().join(format!("switchyard-start-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let files = ignore::WalkBuilder::new(&app).build().filter(|e| e.as_ref().is_ok_and(|e| e.path().is_file())).count();
    println!("{} ({files} files)", app.display());
    let cold = start(&app, &probe, &cache);
    print_run("cold", &cold);
    let warm: Vec<Run> = (0..WARM).map(|_| start(&app, &probe, &cache)).collect();
    for run in &warm {
        print_run("warm", run);
    }
    let median = |pick: fn(&Run) -> Duration| {
        let mut all: Vec<Duration> = warm.iter().map(pick).collect();
        all.sort();
        ms(all[all.len() / 2])
    };
    println!(
        "warm median of {WARM}: own findings {:.1} ms, complete {:.1} ms after didOpen; index end {:.1} ms after spawn",
        median(|r| r.own),
        median(|r| r.complete),
        median(|r| r.indexed)
    );
    let _ = std::fs::remove_file(&base);
    let _ = std::fs::remove_file(&probe);
    let _ = std::fs::remove_dir_all(&cache);
}

struct Run {
    own: Duration,
    complete: Duration,
    indexed: Duration,
}

fn start(app: &Path, probe: &Path, cache: &Path) -> Run {
    let spawned = Instant::now();
    let mut client = Client::spawn_with(&[("SWITCHYARD_CACHE_DIR", cache)]);
    client.initialize(app);
    let opened = Instant::now();
    let uri = client.open(probe, "ruby", 1);
    let mut own = None;
    let mut complete = None;
    let mut indexed = None;
    while complete.is_none() || indexed.is_none() {
        let message = client.wait_for(|m| {
            (m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
                || (m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
        });
        if message["method"] == "$/progress" {
            indexed = Some(spawned.elapsed());
            continue;
        }
        own.get_or_insert(opened.elapsed());
        let whole_app =
            message["params"]["diagnostics"].as_array().is_some_and(|d| d.iter().any(|d| d["code"] == json!("model.unsupported-macro")));
        if whole_app {
            complete = Some(opened.elapsed());
        }
    }
    assert_eq!(client.shutdown().code(), Some(0));
    Run { own: own.unwrap(), complete: complete.unwrap(), indexed: indexed.unwrap() }
}

fn print_run(label: &str, run: &Run) {
    println!(
        "{label}: own findings {:.1} ms, complete {:.1} ms after didOpen; index end {:.1} ms after spawn",
        ms(run.own),
        ms(run.complete),
        ms(run.indexed)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

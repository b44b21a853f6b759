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
//! only once the app's context is built, or held from the last session (`index::published`): the
//! time to it is the time to complete diagnostics. The editor's sequence: `initialize`,
//! `initialized`, `didOpen` of the probe at once. The probes are left to settle first (a file changed
//! within the last seconds vouches for nothing). One cold start (an empty cache directory), seven warm
//! ones, then seven warm ones after an unrelated file was written again with the same text (the
//! persisted index still serves every file, but the last session's diagnostics no longer hold);
//! prints the time from `didOpen` to the probe's own findings and to its complete ones, from the
//! process's spawn to the complete ones and to the index's progress end, and `initialize`'s round
//! trip.

#![allow(clippy::print_stdout)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use support::Client;

const WARM: usize = 7;

fn main() {
    let app = support::bench_app().unwrap_or_else(support::synthetic_app);
    let base = app.join("app/models/switchyard_probe.rb");
    let probe = app.join("app/models/switchyard_probe_child.rb");
    std::fs::write(&base, "class SwitchyardProbe < ApplicationRecord\nend\n").unwrap();
    std::fs::write(&probe, "class SwitchyardProbeChild < SwitchyardProbe\n  validates :name, presence: true\nend\n").unwrap();
    // Written just now, they would vouch for nothing for the next seconds.
    std::thread::sleep(Duration::from_millis(3200));
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
    // The base probe written again, the same text: a new status.
    let rewritten: Vec<Run> = (0..WARM)
        .map(|_| {
            std::fs::write(&base, "class SwitchyardProbe < ApplicationRecord\nend\n").unwrap();
            start(&app, &probe, &cache)
        })
        .collect();
    for run in &rewritten {
        print_run("warm, a file rewritten", run);
    }
    for (label, runs) in [("warm", &warm), ("warm, a file rewritten", &rewritten)] {
        let median = |pick: fn(&Run) -> Duration| {
            let mut all: Vec<Duration> = runs.iter().map(pick).collect();
            all.sort();
            ms(all[all.len() / 2])
        };
        println!(
            "{label}, median of {WARM}: own findings {:.1} ms, complete {:.1} ms after didOpen, {:.1} ms after spawn; initialize {:.1} ms; index end {:.1} ms after spawn",
            median(|r| r.own),
            median(|r| r.complete),
            median(|r| r.complete_from_spawn),
            median(|r| r.initialize),
            median(|r| r.indexed)
        );
    }
    let _ = std::fs::remove_file(&base);
    let _ = std::fs::remove_file(&probe);
    let _ = std::fs::remove_dir_all(&cache);
}

struct Run {
    own: Duration,
    complete: Duration,
    complete_from_spawn: Duration,
    initialize: Duration,
    indexed: Duration,
}

fn start(app: &Path, probe: &Path, cache: &Path) -> Run {
    let spawned = Instant::now();
    let mut client = Client::spawn_with(&[("SWITCHYARD_CACHE_DIR", cache)]);
    let asked = Instant::now();
    client.initialize(app);
    let initialize = asked.elapsed();
    let opened = Instant::now();
    let uri = client.open(probe, "ruby", 1);
    let mut own = None;
    let mut complete = None;
    let mut complete_from_spawn = None;
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
        if whole_app && complete.is_none() {
            complete = Some(opened.elapsed());
            complete_from_spawn = Some(spawned.elapsed());
        }
    }
    assert_eq!(client.shutdown().code(), Some(0));
    Run {
        own: own.unwrap(),
        complete: complete.unwrap(),
        complete_from_spawn: complete_from_spawn.unwrap(),
        initialize,
        indexed: indexed.unwrap(),
    }
}

fn print_run(label: &str, run: &Run) {
    println!(
        "{label}: own findings {:.1} ms, complete {:.1} ms after didOpen, {:.1} ms after spawn; initialize {:.1} ms; index end {:.1} ms after spawn",
        ms(run.own),
        ms(run.complete),
        ms(run.complete_from_spawn),
        ms(run.initialize),
        ms(run.indexed)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

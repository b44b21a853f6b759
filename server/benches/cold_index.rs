//! Cold index time and peak RSS, against the raw tree-sitter parse time of the same files.
//!
//!     cargo bench --bench cold_index
//!     SWITCHYARD_BENCH_APP=path/to/app cargo bench --bench cold_index
//!
//! Prints, for the bundled example and a synthetic app of ~2,000 files (written by
//! `scripts/gen-synthetic-app.py` when missing; `SWITCHYARD_SYNTHETIC=2500` for ~20,000): the median of 5 runs of (a) parsing every file with
//! tree-sitter, texts already in memory, in parallel as the indexer does; (b) the whole cold index
//! (walk, read, parse, extract, insert); their ratio; and the peak RSS of `switchyard index` on it.

#![allow(clippy::print_stdout)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use switchyard::index::Index;
use switchyard::rails::project;
use switchyard::syntax::ParsedFile;

const RUNS: usize = 5;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn peak_rss_kib_of_index(app: &Path) -> i64 {
    let status = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["index", "--no-cache", "--format", "json"])
        .arg(app)
        .stdout(Stdio::null())
        .status()
        .expect("run switchyard index");
    assert!(status.success());
    // Max RSS over the waited-for children: each app is larger than the one before it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss
}

fn bench(name: &str, app: &Path) {
    let apps = project::discover_apps(app);
    let files: Vec<PathBuf> = apps.iter().flat_map(|a| project::app_files(a, &apps)).collect();
    let texts: Vec<(PathBuf, String)> = files.iter().filter_map(|f| Some((f.clone(), std::fs::read_to_string(f).ok()?))).collect();
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();

    let parse_all = || {
        texts.par_iter().for_each(|(path, text)| {
            if let Some(language) = project::language_of(path) {
                std::hint::black_box(ParsedFile::parse(language, text));
            }
        })
    };
    parse_all(); // warm the page cache and the thread pool
    let parse = median((0..RUNS).map(|_| time(parse_all)).collect());
    let extract_all = || {
        let index = Index::new();
        index.add_apps(apps.clone());
        texts.par_iter().for_each(|(path, text)| {
            if let Some(language) = project::language_of(path) {
                let parsed = ParsedFile::parse(language, text);
                std::hint::black_box(index.extract_text(path, text, &parsed));
            }
        })
    };
    let extract = median((0..RUNS).map(|_| time(extract_all)).collect());
    let index = median(
        (0..RUNS)
            .map(|_| {
                time(|| {
                    std::hint::black_box(Index::new().index_workspace(&[app.to_path_buf()], &|_, _| {}));
                })
            })
            .collect(),
    );
    let rss = peak_rss_kib_of_index(app);
    println!(
        "{name:<12} {:>6} files {:>8.1} KiB | parse {:>8.1} ms | parse+extract {:>8.1} ms | cold index {:>8.1} ms | index/parse {:>4.2}× | peak RSS {:>7.1} MiB",
        files.len(),
        bytes as f64 / 1024.0,
        ms(parse),
        ms(extract),
        ms(index),
        index.as_secs_f64() / parse.as_secs_f64(),
        rss as f64 / 1024.0
    );
}

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    println!("median of {RUNS} runs, {} threads", rayon::current_num_threads());
    // A real app in place of the synthetic one: its parse, extraction and index alone.
    if let Some(app) = support::bench_app() {
        bench(&app.file_name().unwrap_or_default().to_string_lossy(), &app);
        return;
    }
    let synthetic = support::synthetic_app();
    bench("blog", &root.join("examples/blog"));
    bench("synthetic", &synthetic);
    // The whole CI job on the synthetic app: `switchyard --check` end to end, process start included;
    // cold (no persisted index), then warm (the index the first warm run wrote, read back).
    let cache = std::env::temp_dir().join(format!("switchyard-bench-cache-{}", std::process::id()));
    let check = |extra: &[&str]| {
        let start = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_switchyard"))
            .arg("--check")
            .arg(&synthetic)
            .args(["--cache-dir", cache.to_str().unwrap()])
            .args(extra)
            .stdout(Stdio::null())
            .status()
            .expect("run switchyard --check");
        assert!(status.code().is_some_and(|c| c <= 1));
        start.elapsed()
    };
    let cold: Vec<Duration> = (0..RUNS).map(|_| check(&["--no-cache"])).collect();
    check(&[]);
    let warm: Vec<Duration> = (0..RUNS).map(|_| check(&[])).collect();
    let _ = std::fs::remove_dir_all(&cache);
    let (cold, warm) = (ms(median(cold)), ms(median(warm)));
    println!("switchyard --check on the synthetic app: cold median {cold:.1} ms, warm median {warm:.1} ms ({:.1}×)", cold / warm);
}

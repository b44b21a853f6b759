//! Where extraction's time goes: each part of reading one file's facts, timed alone over every file
//! of an app (trees parsed once, up front), one thread.
//!
//!     SWITCHYARD_BENCH_APP=path/to/app cargo bench --bench extract_parts
//!
//! Without `SWITCHYARD_BENCH_APP`, the synthetic ~2,000-file app. Prints each part's total, the
//! median of 5 runs, beside the parse of the same files; and the runtime lanes' judgement of the whole
//! app beside the building of the context it reads.

#![allow(clippy::print_stdout)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use switchyard::index::Index;
use switchyard::rails::project;
use switchyard::syntax::ParsedFile;

const RUNS: usize = 5;

fn main() {
    let app = support::bench_app().unwrap_or_else(support::synthetic_app);
    let apps = project::discover_apps(&app);
    let index = Index::new();
    index.add_apps(apps.clone());
    let files: Vec<PathBuf> = apps.iter().flat_map(|a| project::app_files(a, &apps)).collect();
    let texts: Vec<(PathBuf, String)> = files.iter().filter_map(|f| Some((f.clone(), std::fs::read_to_string(f).ok()?))).collect();
    let parsed: Vec<(&PathBuf, &String, ParsedFile)> =
        texts.iter().filter_map(|(p, t)| Some((p, t, ParsedFile::parse(project::language_of(p)?, t)))).collect();
    let facts: Vec<_> = parsed.iter().map(|(p, t, f)| index.extract_text(p, t, f)).collect();
    for f in &facts {
        index.insert(f.clone());
    }
    let snapshot = index.snapshot();

    let time = |f: &dyn Fn()| {
        let mut samples: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect();
        samples.sort();
        samples[RUNS / 2].as_secs_f64() * 1000.0
    };
    let ruby = |f: &dyn Fn(&tree_sitter::Tree, &str, usize)| {
        for (i, (_, text, file)) in parsed.iter().enumerate() {
            if let Some(tree) = file.ruby.as_ref() {
                f(tree, file.ruby_text(text), i);
            }
        }
    };
    println!("{} files, one thread, median of {RUNS}", parsed.len());
    let parse = time(&|| {
        for (p, t, _) in &parsed {
            std::hint::black_box(ParsedFile::parse(project::language_of(p).unwrap(), t));
        }
    });
    let rows: Vec<(&str, f64)> = vec![
        ("parse", parse),
        (
            "extract + check_file",
            time(&|| {
                for (p, t, f) in &parsed {
                    std::hint::black_box(index.extract_text(p, t, f));
                }
            }),
        ),
        (
            "outline",
            time(&|| {
                ruby(&|tree, text, _| {
                    std::hint::black_box(switchyard::syntax::outline::Outline::new(tree, text));
                })
            }),
        ),
        (
            "references",
            time(&|| {
                ruby(&|tree, text, _| {
                    std::hint::black_box(switchyard::rails::references::extract(tree.root_node(), text));
                })
            }),
        ),
        (
            "syntax errors",
            time(&|| {
                ruby(&|tree, text, _| {
                    std::hint::black_box(switchyard::syntax::syntax_errors(tree, text, switchyard::diagnostic::rule::PARSE_ERROR));
                })
            }),
        ),
        (
            "check_file (with the Prism pass)",
            time(&|| {
                for (i, (_, t, f)) in parsed.iter().enumerate() {
                    let mut copy = facts[i].clone();
                    copy.diagnostics.clear();
                    switchyard::roundhouse::check_file(&mut copy, t, f);
                    std::hint::black_box(copy);
                }
            }),
        ),
        (
            "Prism parse alone (.rb files)",
            time(&|| {
                for (p, t, _) in &parsed {
                    if p.extension().is_some_and(|e| e == "rb") {
                        std::hint::black_box(ruby_prism::parse(t.as_bytes()).errors().count());
                    }
                }
            }),
        ),
        (
            "clone facts (check_file's overhead)",
            time(&|| {
                for f in &facts {
                    std::hint::black_box(f.clone());
                }
            }),
        ),
        (
            "runtime uses (the lanes' reading)",
            time(&|| {
                ruby(&|tree, text, _| {
                    std::hint::black_box(switchyard::rails::deploy::runtime_uses(tree.root_node(), text, false));
                })
            }),
        ),
        (
            "lanes: the app's readiness (whole app)",
            time(&|| {
                let context = switchyard::app::AppContext::new(&index, &apps[0].root, &snapshot);
                std::hint::black_box(switchyard::lanes::readiness(&context));
            }),
        ),
        (
            "the app's context alone (for the row above)",
            time(&|| {
                std::hint::black_box(switchyard::app::AppContext::new(&index, &apps[0].root, &snapshot));
            }),
        ),
        (
            "a bare walk of every node",
            time(&|| {
                ruby(&|tree, _, _| {
                    let mut n = 0usize;
                    switchyard::syntax::for_each_node(tree.root_node(), |_| n += 1);
                    std::hint::black_box(n);
                })
            }),
        ),
    ];
    for (name, ms) in rows {
        println!("{name:<40} {ms:>8.1} ms  {:>5.2}× parse", ms / parse);
    }
}

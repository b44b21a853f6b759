//! The headless commands: `--check` (diagnostics for CI, human or JSON lines) and `index` (a dump of
//! the index). They share the index with the server and print to stdout; failures are one line on
//! stderr and exit code 2.

mod check;
mod lanes;
mod markdown;
mod preview;
mod routes;
mod rules;
mod tree;

use std::io::Write;
use std::path::{Path, PathBuf};

pub use check::{CheckFormat, CheckOptions, ExactOptions, check};
pub use lanes::{lanes, lanes_json};
pub use preview::{preview, preview_all};
pub use routes::routes;
pub use rules::{explain, rules};
pub use tree::tree;

use crate::index::{Index, IndexReport, dump};
use crate::rails::project;

/// Exit codes: 0 clean, 1 findings at or above the fail level (2 is a usage or IO error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Clean = 0,
    Findings = 1,
}

/// An indexed workspace for a command, and the part of it the user asked about.
pub struct Loaded {
    pub index: Index,
    pub report: IndexReport,
    /// The folder PATH names (or the folder of the file it names): paths are shown relative to it.
    pub base: PathBuf,
    /// What PATH names, canonical: only files at or below it are reported.
    pub scope: PathBuf,
}

/// Indexes every app at or below `path`, or the app that contains it (`--check app/models` or
/// `--check app/models/post.rb` index the whole app and report on what PATH names).
pub fn load(path: &Path) -> Result<Loaded, String> {
    let scope = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = if scope.is_file() { scope.parent().map(Path::to_path_buf).unwrap_or_else(|| scope.clone()) } else { scope.clone() };
    let index = Index::new();
    let cache = crate::index::cache::configured();
    if cache.is_some() {
        // What the walk and the index read vouches for the findings `--check` keeps.
        index.record_reads();
    }
    index.use_cache(cache);
    let mut report = index.index_workspace(std::slice::from_ref(&base), &|_, _| {});
    if index.apps().is_empty() {
        // PATH may be inside an app: look upwards for its root.
        if let Some(root) = base.ancestors().find(|dir| project::is_rails_root(dir)) {
            report = index.index_workspace(&[root.to_path_buf()], &|_, _| {});
        }
    }
    if index.apps().is_empty() {
        return Err(format!("no Rails app at {} (looked for config/application.rb or config/routes.rb)", path.display()));
    }
    Ok(Loaded { index, report, base, scope })
}

/// The apps a command reports on: the app PATH names by its root (not the dummy app inside an
/// engine), else every app found at or below it.
pub fn apps_in_scope(index: &Index, scope: &Path) -> Vec<project::RailsApp> {
    let all_apps = index.apps();
    match all_apps.iter().find(|a| a.root == scope) {
        Some(app) => vec![app.clone()],
        None => all_apps,
    }
}

/// What a command returns when its reader went away (`switchyard --check | head`): not an error to
/// report, and `main` exits as a process the pipe's SIGPIPE ended would.
pub const OUTPUT_CLOSED: &str = "the output was closed";

/// A failed write to stdout, as the command's error.
/// Standard output for a command's report, written in blocks: Rust's `stdout` writes each line as it
/// ends, a system call per line (1,700 of them for lobsters' findings, after the work was done).
/// Flush it (`finish`) to learn whether the last block was written.
pub fn stdout() -> std::io::BufWriter<std::io::StdoutLock<'static>> {
    std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock())
}

/// Writes what `out` holds still.
pub fn finish(mut out: impl Write) -> Result<(), String> {
    out.flush().map_err(write_failed)
}

pub fn write_failed(error: std::io::Error) -> String {
    if error.kind() == std::io::ErrorKind::BrokenPipe { OUTPUT_CLOSED.to_owned() } else { format!("cannot write output: {error}") }
}

pub fn json_failed(error: serde_json::Error) -> String {
    write_failed(error.into())
}

pub fn index(path: &Path, json: bool) -> Result<Outcome, String> {
    let Loaded { index, report, base, .. } = load(path)?;
    let mut out = stdout();
    let dumped = dump(&index, &base);
    let written = if json {
        serde_json::to_writer_pretty(&mut out, &dumped).map_err(json_failed).and_then(|()| writeln!(out).map_err(write_failed))
    } else {
        write_summary(&mut out, &dumped)
    };
    written?;
    finish(out)?;
    report_file_errors(&report, &base)
}

fn write_summary(out: &mut impl Write, dumped: &crate::index::IndexDump) -> Result<(), String> {
    let io = write_failed;
    for app in &dumped.apps {
        let c = &app.counts;
        writeln!(
            out,
            "{} ({}): {} files, {} models, {} controllers, {} actions, {} templates, {} tables, {} route calls",
            app.name, app.root, c.files, c.models, c.controllers, c.actions, c.templates, c.tables, c.route_calls
        )
        .map_err(io)?;
        for model in app.models.iter().filter(|m| m.active_record) {
            writeln!(out, "  model {} → {} ({})", model.class_name, model.table_name.as_deref().unwrap_or("abstract"), model.file)
                .map_err(io)?;
        }
        for file in &app.files {
            for controller in &file.controllers {
                let actions: Vec<&str> = controller.actions.iter().map(|a| a.name.as_str()).collect();
                writeln!(out, "  controller {} [{}] ({})", controller.class_name, actions.join(", "), file.relative_path).map_err(io)?;
            }
        }
    }
    Ok(())
}

/// Files that could not be read are reported one line each; any makes the exit code 2.
fn report_file_errors(report: &IndexReport, base: &Path) -> Result<Outcome, String> {
    if report.errors.is_empty() {
        return Ok(Outcome::Clean);
    }
    let mut err = std::io::stderr().lock();
    for (path, error) in &report.errors {
        let _ = writeln!(err, "switchyard: error: {}: {error}", project::relative_path(path, base));
    }
    Err(format!("{} file(s) could not be read", report.errors.len()))
}

//! `switchyard lanes`: which runtime each app is ready for. A view of the same diagnostics `--check`
//! reports (its `lanes.*` findings, and the compiler's errors on each lane's tree), as a table a
//! person reads in ten seconds or as JSON lines.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::{Loaded, Outcome, load, report_file_errors};
use crate::app::AppContext;
use crate::catalogue;
use crate::checks::{app_diagnostics, file_diagnostics};
use crate::config::{Chosen, Config};
use crate::diagnostic::{Diagnostic, Severity};
use crate::rails::FileFacts;
use crate::rails::project;
use crate::roundhouse::tree::Lane;

/// One lane's verdict.
#[derive(Debug, Default, Serialize)]
struct Verdict {
    errors: usize,
    warnings: usize,
    infos: usize,
    /// The compiler's errors on the lane's tree (`--check --target …`).
    compile_errors: usize,
}

impl Verdict {
    fn word(&self) -> &'static str {
        if self.errors > 0 || self.compile_errors > 0 {
            "blocked"
        } else if self.warnings > 0 {
            "needs changes"
        } else {
            "ready"
        }
    }
}

/// One lane's verdict and its findings, each with its file.
type LaneReport<'a> = (Lane, Verdict, Vec<(&'a FileFacts, Diagnostic)>);

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum JsonLine<'a> {
    Finding {
        lane: &'static str,
        file: &'a str,
        line: u32,
        column: u32,
        rule: &'static str,
        severity: &'static str,
        message: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        app: Option<&'a str>,
    },
    Summary {
        lane: &'static str,
        verdict: &'static str,
        #[serde(flatten)]
        counts: &'a Verdict,
        #[serde(skip_serializing_if = "Option::is_none")]
        app: Option<&'a str>,
    },
}

pub fn lanes(path: &Path, chosen_lanes: &[Lane]) -> Result<Outcome, String> {
    lanes_as(path, chosen_lanes, false)
}

pub fn lanes_json(path: &Path, chosen_lanes: &[Lane]) -> Result<Outcome, String> {
    lanes_as(path, chosen_lanes, true)
}

fn lanes_as(path: &Path, chosen_lanes: &[Lane], json: bool) -> Result<Outcome, String> {
    let Loaded { index, report, base, scope } = load(path)?;
    let snapshot = index.snapshot();
    let apps = super::apps_in_scope(&index, &scope);
    let lanes: Vec<Lane> = if chosen_lanes.is_empty() { Lane::ALL.to_vec() } else { chosen_lanes.to_vec() };
    let mut out = super::stdout();
    let io = super::write_failed;
    for app in &apps {
        let config = Config::load(&app.root)?.unwrap_or_default();
        let context = AppContext::new(&index, &app.root, &snapshot);
        let derived = app_diagnostics(&context);
        // Every file's diagnostics as `--check` reports them, before lanes and targets pick.
        let files: Vec<(&std::sync::Arc<FileFacts>, Vec<Diagnostic>)> = context
            .files
            .iter()
            .filter(|f| !config.excludes(&f.relative_path))
            .map(|f| (f, file_diagnostics(f, derived.get(&f.path).map_or(&[][..], Vec::as_slice), Some(&context.reading))))
            .collect();
        let app_root = project::relative_path(&app.root, &base);
        let app_root = if app_root.is_empty() { ".".to_owned() } else { app_root };
        let shown_app = (apps.len() > 1).then_some(app_root.as_str());
        let no_levels = BTreeMap::new();
        let mut verdicts: Vec<LaneReport> = Vec::new();
        for &lane in &lanes {
            let chosen = Chosen { targets: vec![lane.target()], lanes: vec![lane] };
            let mut verdict = Verdict::default();
            let mut found = Vec::new();
            for (facts, diagnostics) in &files {
                for d in diagnostics.iter().filter_map(|d| config.report(d, &chosen, &no_levels)) {
                    let is_lane = catalogue::rule(&d.rule).is_some_and(|r| !r.lanes.is_empty());
                    match (is_lane, d.severity) {
                        (false, Severity::Error) => verdict.compile_errors += 1,
                        (false, _) => {}
                        (true, Severity::Error) => verdict.errors += 1,
                        (true, Severity::Warning) => verdict.warnings += 1,
                        (true, Severity::Info) => verdict.infos += 1,
                    }
                    if is_lane {
                        found.push((&***facts, d));
                    }
                }
            }
            verdicts.push((lane, verdict, found));
        }
        if json {
            for (lane, verdict, found) in &verdicts {
                for (facts, d) in found {
                    let line = JsonLine::Finding {
                        lane: lane.as_str(),
                        file: &facts.relative_path,
                        line: d.span.start.line + 1,
                        column: facts.line_index.char_col(d.span.start) + 1,
                        rule: d.rule.as_str(),
                        severity: d.severity.as_str(),
                        message: &d.message,
                        app: shown_app,
                    };
                    serde_json::to_writer(&mut out, &line).map_err(super::json_failed)?;
                    writeln!(out).map_err(io)?;
                }
                let summary = JsonLine::Summary { lane: lane.as_str(), verdict: verdict.word(), counts: verdict, app: shown_app };
                serde_json::to_writer(&mut out, &summary).map_err(super::json_failed)?;
                writeln!(out).map_err(io)?;
            }
        } else {
            write_table(&mut out, &app.name, &app_root, &verdicts).map_err(io)?;
        }
    }
    super::finish(out)?;
    report_file_errors(&report, &base)
}

fn write_table(out: &mut impl Write, name: &str, root: &str, verdicts: &[LaneReport]) -> std::io::Result<()> {
    writeln!(out, "{name} ({root}): runtime lanes\n")?;
    writeln!(out, "{:<12} {:<14} {:>6} {:>8} {:>6} {:>8}  runs", "lane", "verdict", "errors", "warnings", "infos", "compile")?;
    for (lane, verdict, _) in verdicts {
        writeln!(
            out,
            "{:<12} {:<14} {:>6} {:>8} {:>6} {:>8}  {}",
            lane.as_str(),
            verdict.word(),
            verdict.errors,
            verdict.warnings,
            verdict.infos,
            verdict.compile_errors,
            lane.describe()
        )?;
    }
    writeln!(out, "\n(compile: the compiler's errors on the lane's tree; `switchyard --check --target <tree>` lists them)")?;
    for (lane, _, found) in verdicts {
        if found.is_empty() {
            continue;
        }
        writeln!(out, "\n{}: {}", lane.as_str(), lane.describe())?;
        // A rule's notes are shown in full up to three; more collapse to one line below.
        let mut infos: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, d) in found.iter().filter(|(_, d)| d.severity == Severity::Info) {
            *infos.entry(d.rule.as_str()).or_default() += 1;
        }
        let collapsed = |d: &Diagnostic| d.severity == Severity::Info && infos.get(d.rule.as_str()).is_some_and(|n| *n > 3);
        for (facts, d) in found.iter().filter(|(_, d)| !collapsed(d)) {
            writeln!(out, "  {}:{}  {} {}", facts.relative_path, d.span.start.line + 1, d.severity.as_str(), d.rule.as_str())?;
            writeln!(out, "      {}", d.message)?;
        }
        // Notes, one line per rule: the places are in `--format json` and `--check`.
        let mut notes: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (facts, d) in found.iter().filter(|(_, d)| collapsed(d)) {
            notes.entry(d.rule.as_str()).or_default().push(format!("{}:{}", facts.relative_path, d.span.start.line + 1));
        }
        for (rule, places) in notes {
            let first: Vec<&str> = places.iter().take(3).map(String::as_str).collect();
            let more = if places.len() > 3 { format!(" and {} more", places.len() - 3) } else { String::new() };
            writeln!(out, "  info {rule} ×{}: {}{more}", places.len(), first.join(", "))?;
        }
    }
    writeln!(out)
}

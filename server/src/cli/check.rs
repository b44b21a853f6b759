//! `switchyard --check`: every diagnostic of every indexed file, as rustc-style text or JSON lines.

use std::collections::BTreeMap;
use std::io::Write;

use anstyle::{AnsiColor, Style};
use std::path::Path;

use serde::Serialize;

use super::{Loaded, Outcome, load, report_file_errors};
use crate::app::AppContext;
use crate::catalogue;
use crate::checks::{app_diagnostics, file_diagnostics};
use crate::config::Config;
use crate::diagnostic::{Diagnostic, Severity};
use crate::rails::FileFacts;
use crate::rails::project;
use crate::roundhouse::exact::ExactConfig;
use crate::roundhouse::tree::Target;

/// One JSON line per finding (1-based lines and character columns, paths relative to the app root).
#[derive(Serialize)]
struct JsonFinding<'a> {
    file: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    severity: &'static str,
    rule: &'static str,
    message: &'a str,
    /// The targets the rule applies to.
    targets: Vec<&'static str>,
    /// The runtime lanes a `lanes.*` finding is about.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    lanes: Vec<&'static str>,
    /// The app's root relative to the checked folder (`.` for the folder itself).
    app: &'a str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckFormat {
    Human,
    Json,
    Github,
    Sarif,
}

pub struct CheckOptions {
    pub format: CheckFormat,
    pub fail_level: Severity,
    /// Rules apply when they apply to one of these targets; when empty, the app's `switchyard.toml`
    /// `targets`, else ruby and jruby.
    pub targets: Vec<Target>,
    /// `lanes.*` rules apply when they are about one of these lanes; when empty, the app's
    /// `switchyard.toml` `lanes`, else the targets' own.
    pub lanes: Vec<crate::roundhouse::tree::Lane>,
    /// Only these rules, when given.
    pub rules: Vec<String>,
    /// Apply the safe fixes first (`--fix`), then report what is left.
    pub fix: bool,
    /// Run the compiler too (`--exact`), and report what it says that Switchyard does not.
    pub exact: Option<ExactOptions>,
}

/// The compiler `--exact` runs, as the command line names it (else the app's `switchyard.toml`).
#[derive(Debug, Clone, Default)]
pub struct ExactOptions {
    pub binary: Option<std::path::PathBuf>,
    pub checkout: Option<std::path::PathBuf>,
}

pub fn check(path: &Path, options: &CheckOptions) -> Result<Outcome, String> {
    check_with(path, options, !options.fix && options.exact.is_none())
}

/// The compiler to run on the app at `root`: the command line's, else the app's `[roundhouse]`
/// (relative to the app), the checkout the binary's folder unless named.
fn exact_config(exact: &ExactOptions, root: &Path, config: &Config, target: Target) -> Result<ExactConfig, String> {
    let (binary, checkout) = match (&exact.binary, &config.roundhouse) {
        (Some(binary), _) => (binary.clone(), exact.checkout.clone()),
        (None, Some(setting)) => (root.join(&setting.binary), setting.checkout.as_ref().map(|c| root.join(c))),
        (None, None) => {
            return Err(format!(
                "--exact needs the Roundhouse compiler: pass --roundhouse BINARY, or name it in {} (`[roundhouse]` `binary = \"…\"`)",
                root.join(crate::config::FILE_NAME).display()
            ));
        }
    };
    // The compiler runs in its checkout: a path relative to here would no longer name it there.
    let absolute = |path: std::path::PathBuf| std::path::absolute(&path).unwrap_or(path);
    let binary = absolute(binary);
    let checkout = checkout.unwrap_or_else(|| crate::roundhouse::exact::default_checkout(&binary));
    Ok(ExactConfig { binary: absolute(binary), checkout: absolute(checkout), target })
}

/// The most characters of a failed run's cause printed.
const CAUSE: usize = 400;

/// Runs the compiler on every app for each of its targets and adds what it says to `files`: a line
/// of its once (the same line from several targets is one), where the file is in `scope`, unless a
/// finding of Switchyard's own already says it there. A run that fails is named on stderr, and
/// counts as a finding at error level.
fn add_compiler_lines(
    files: &mut Vec<(std::sync::Arc<FileFacts>, Vec<Diagnostic>)>,
    apps: &[project::RailsApp],
    configs: &std::collections::HashMap<std::path::PathBuf, Config>,
    options: &CheckOptions,
    exact: &ExactOptions,
    scope: &Path,
) -> Result<bool, String> {
    let mut failed = false;
    let mut by_path: std::collections::HashMap<std::path::PathBuf, Vec<crate::roundhouse::exact::ExactDiagnostic>> =
        std::collections::HashMap::new();
    let mut seen = std::collections::HashSet::new();
    for app in apps {
        let config = configs.get(&app.root).cloned().unwrap_or_default();
        let targets: Vec<Target> = if !options.targets.is_empty() {
            options.targets.clone()
        } else {
            config.targets.clone().unwrap_or_else(|| vec![Target::Ruby, Target::Jruby])
        };
        for target in targets {
            let exact_config = exact_config(exact, &app.root, &config, target)?;
            let out = crate::roundhouse::exact::check_dir(&app.root, target)?;
            let t0 = std::time::Instant::now();
            let run = crate::roundhouse::exact::run_blocking(&exact_config, &app.root, &out)?;
            tracing::debug!("roundhouse --target {}: {} lines in {:?}", target.as_str(), run.diagnostics.len(), t0.elapsed());
            if !run.success {
                failed = true;
                // Its cause may quote a whole syntax tree: the start names the file and the node.
                let mut cause: String = run.cause.chars().take(CAUSE).collect();
                if cause.len() < run.cause.len() {
                    cause.push('…');
                }
                writeln!(
                    std::io::stderr(),
                    "switchyard: roundhouse --target {} did not finish on {}: {cause}",
                    target.as_str(),
                    app.root.display()
                )
                .map_err(super::write_failed)?;
            }
            for line in run.diagnostics {
                let key = (line.path.clone(), line.line, line.column, line.code.clone(), line.message.clone());
                if line.path.starts_with(scope) && seen.insert(key) {
                    by_path.entry(line.path.clone()).or_default().push(line);
                }
            }
        }
    }
    let mut at: std::collections::HashMap<std::path::PathBuf, usize> =
        files.iter().enumerate().map(|(i, (facts, _))| (facts.path.clone(), i)).collect();
    let mut paths: Vec<_> = by_path.into_iter().collect();
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, lines) in paths {
        let Some(text) = crate::files::read_source(&path) else { continue };
        let i = match at.get(&path) {
            Some(&i) => i,
            None => {
                // A file the compiler reads and Switchyard does not index: its lines are placed all the same.
                let relative = project::owning_app(&path, apps)
                    .map_or_else(|| path.to_string_lossy().into_owned(), |app| project::relative_path(&path, &app.root));
                let language = project::language_of(&path).unwrap_or(crate::syntax::Language::Ruby);
                let mut facts = FileFacts::empty(path.clone(), relative, None, language);
                facts.line_index = crate::syntax::LineIndex::new(&text);
                facts.text_hash = crate::rails::text_hash(&text);
                files.push((std::sync::Arc::new(facts), Vec::new()));
                at.insert(path.clone(), files.len() - 1);
                files.len() - 1
            }
        };
        let (facts, own) = &files[i];
        let line_index = facts.line_index.clone();
        let suppressions = facts.suppressions.clone();
        let found: Vec<Diagnostic> = lines
            .iter()
            .filter_map(|line| line.finding(&text, &line_index, own))
            .filter(|d| !crate::checks::silenced(&suppressions, d))
            .collect();
        files[i].1.extend(found);
        files[i].1.sort_by_key(|d| (d.span.start_byte, d.span.end_byte, d.rule));
    }
    files.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    Ok(failed)
}

/// What a check reports on: every file of the apps it found, with its diagnostics before the apps'
/// settings pick which to report. From the index, or from what the last run kept (`index` `None`:
/// then a file's facts hold only its path and the hash of its text).
struct Run {
    index: Option<crate::index::Index>,
    report: crate::index::IndexReport,
    base: std::path::PathBuf,
    scope: std::path::PathBuf,
    apps: Vec<project::RailsApp>,
    files: Vec<(std::sync::Arc<FileFacts>, Vec<Diagnostic>)>,
    /// How many files were checked: those under `scope` (a kept run is of one folder, and its `files`
    /// are only those with findings).
    checked: usize,
}

/// Indexes `path` and works out the diagnostics of its files; keeps them for the next run when they
/// were all worked out from what is on disk, under statuses that vouch for it.
fn indexed(path: &Path) -> Result<Run, String> {
    let t0 = std::time::Instant::now();
    let Loaded { index, report, base, scope } = load(path)?;
    let snapshot = index.snapshot();
    let apps = index.apps();
    let mut derived = std::collections::HashMap::new();
    let mut readings = std::collections::HashMap::new();
    for app in &apps {
        let context = AppContext::new(&index, &app.root, &snapshot);
        derived.extend(app_diagnostics(&context));
        readings.insert(app.root.clone(), context.reading);
    }
    tracing::debug!("whole-app checks done by {:?}", t0.elapsed());
    let files: Vec<(std::sync::Arc<FileFacts>, Vec<Diagnostic>)> = {
        use rayon::prelude::*;
        snapshot
            .par_iter()
            .filter(|facts| facts.path.starts_with(&scope))
            .map(|facts| {
                let reading = index.app_for(&facts.path).and_then(|app| readings.get(&app.root));
                let diagnostics = file_diagnostics(facts, derived.get(&facts.path).map_or(&[][..], Vec::as_slice), reading);
                (std::sync::Arc::clone(facts), diagnostics)
            })
            .collect()
    };
    if files.len() == snapshot.len() {
        keep(&scope, &apps, &report, &files);
    }
    std::mem::forget((snapshot, derived));
    let checked = files.len();
    Ok(Run { index: Some(index), report, base, scope, apps, files, checked })
}

/// Keeps a whole folder's run for the next (`index::published`, `Keeper::Check`).
fn keep(
    scope: &Path,
    apps: &[project::RailsApp],
    report: &crate::index::IndexReport,
    files: &[(std::sync::Arc<FileFacts>, Vec<Diagnostic>)],
) {
    use crate::index::published::{Keeper, Published, save};
    let Some(cache) = crate::index::cache::configured() else { return };
    if !report.errors.is_empty() || report.read.is_empty() {
        return;
    }
    let files = files.iter().map(|(facts, found)| (facts.path.as_path(), facts.text_hash, found.clone()));
    if let Some(published) = Published::new(apps.iter().map(|app| app.root.as_path()), report.read.iter().cloned(), files) {
        save(&cache, Keeper::Check, &[scope.to_path_buf()], &published);
    }
}

/// The last run's diagnostics of the folder at `path`, when they still hold.
fn kept(path: &Path) -> Option<Run> {
    let cache = crate::index::cache::configured()?;
    let scope = std::fs::canonicalize(path).ok().filter(|scope| scope.is_dir())?;
    let holding = crate::index::published::load(&cache, crate::index::published::Keeper::Check, std::slice::from_ref(&scope))?;
    let apps: Vec<project::RailsApp> = holding.apps.iter().cloned().map(project::RailsApp::at).collect();
    let checked = holding.files.len();
    // A file without findings prints nothing: only the others are placed.
    let mut files: Vec<(std::sync::Arc<FileFacts>, Vec<Diagnostic>)> = holding
        .files
        .into_iter()
        .filter(|(_, (_, diagnostics))| !diagnostics.is_empty())
        .map(|(path, (text_hash, diagnostics))| {
            let relative = project::owning_app(&path, &apps)
                .map_or_else(|| path.to_string_lossy().into_owned(), |app| project::relative_path(&path, &app.root));
            let language = project::language_of(&path).unwrap_or(crate::syntax::Language::Ruby);
            let mut facts = FileFacts::empty(path, relative, None, language);
            facts.text_hash = text_hash;
            (std::sync::Arc::new(facts), diagnostics)
        })
        .collect();
    files.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    tracing::debug!("the last run's findings of {checked} files hold");
    Some(Run { index: None, report: crate::index::IndexReport::default(), base: scope.clone(), scope, apps, files, checked })
}

/// A file's facts with its lines, to place its findings, and its text when `wanted` (the human format
/// quotes it): the facts as they are from the index; for a kept run, read from disk, and `None` when
/// its text is no longer the one its findings are of.
fn placed(facts: std::sync::Arc<FileFacts>, from_index: bool, wanted: bool) -> Option<(std::sync::Arc<FileFacts>, Option<String>)> {
    if from_index {
        let text = if wanted { crate::files::read_source(&facts.path) } else { None };
        return Some((facts, text));
    }
    let text = crate::files::read_source(&facts.path)?;
    if crate::rails::text_hash(&text) != facts.text_hash {
        return None;
    }
    let mut facts = (*facts).clone();
    facts.line_index = crate::syntax::LineIndex::new(&text);
    Some((std::sync::Arc::new(facts), wanted.then_some(text)))
}

fn check_with(path: &Path, options: &CheckOptions, use_kept: bool) -> Result<Outcome, String> {
    for rule in &options.rules {
        if catalogue::rule(rule).is_none() {
            return Err(format!("no rule `{rule}` (`switchyard rules` lists them)"));
        }
    }
    let json = options.format == CheckFormat::Json;
    let fail_level = options.fail_level;
    let t0 = std::time::Instant::now();
    // The last run's findings when nothing they were worked out from has changed (`--fix` needs the
    // files' facts), else the index's.
    let run = match use_kept.then(|| kept(path)).flatten() {
        Some(kept) => kept,
        None => indexed(path)?,
    };
    let Run { index, report, base, scope, apps, mut files, checked } = run;
    let mut configs = std::collections::HashMap::new();
    for app in &apps {
        configs.insert(app.root.clone(), Config::load(&app.root)?.unwrap_or_default());
    }
    let compile_failed = match &options.exact {
        Some(exact) => add_compiler_lines(&mut files, &apps, &configs, options, exact, &scope)?,
        None => false,
    };
    let no_config = Config::default();
    // A quiet rule `--rule` names is reported at its own level.
    let no_levels: BTreeMap<String, crate::config::RuleLevel> = options
        .rules
        .iter()
        .filter(|r| catalogue::QUIET.contains(&r.as_str()))
        .filter_map(|r| Some((r.clone(), crate::config::RuleLevel::Severity(catalogue::rule(r)?.severity))))
        .collect();
    let chosen = crate::config::Chosen { targets: options.targets.clone(), lanes: options.lanes.clone() };
    // The finding as the app's settings report it (`None` when they or `--rule` leave it out).
    let selected = |config: &Config, d: &Diagnostic| -> Option<Diagnostic> {
        if !(options.rules.is_empty() || options.rules.iter().any(|r| d.rule == r.as_str())) {
            return None;
        }
        config.report(d, &chosen, &no_levels)
    };
    // Paths are shown as the user would type them: the folder they named, then the file below it.
    let sarif_root = sarif_root(&base);
    let shown_base = if scope.is_file() { path.parent().map(Path::to_path_buf).unwrap_or_default() } else { path.to_path_buf() };
    let mut out = super::stdout();
    // `--color`, NO_COLOR, CLICOLOR(_FORCE) and whether stdout is a terminal, as anstream decides.
    let color = anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never;
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut by_severity: BTreeMap<Severity, usize> = BTreeMap::new();
    let mut failing = false;
    let mut sarif_results: Vec<serde_json::Value> = Vec::new();
    let mut fixed = (0, 0);
    // Each file's findings as its app's settings report them, in parallel; written in path order.
    let found: Vec<(std::sync::Arc<FileFacts>, Option<project::RailsApp>, Vec<Diagnostic>)> = {
        use rayon::prelude::*;
        files
            .par_iter()
            .filter_map(|(facts, diagnostics)| {
                let app = project::owning_app(&facts.path, &apps).cloned();
                let config = app.as_ref().and_then(|app| configs.get(&app.root)).unwrap_or(&no_config);
                if config.excludes(&facts.relative_path) {
                    return None;
                }
                let diagnostics: Vec<Diagnostic> = diagnostics.iter().filter_map(|d| selected(config, d)).collect();
                (!diagnostics.is_empty()).then(|| (std::sync::Arc::clone(facts), app, diagnostics))
            })
            .collect()
    };
    let from_index = index.is_some();
    // Each file with findings read again, in parallel (a warm run reads nothing else).
    let placed: Option<Vec<_>> = {
        use rayon::prelude::*;
        found.into_par_iter().map(|(facts, app, diagnostics)| Some((placed(facts, from_index, !json)?, app, diagnostics))).collect()
    };
    let Some(found) = placed else {
        // A file with findings changed after all: the index decides.
        return check_with(path, options, false);
    };
    for ((facts, text), app, diagnostics) in &found {
        let facts = &**facts;
        if options.fix {
            let text = crate::files::read_source(&facts.path)
                .ok_or_else(|| format!("{}: no longer a file Switchyard reads", facts.path.display()))?;
            let (new_text, applied) = crate::ide::fixes::apply_safe(&text, facts, diagnostics);
            if applied > 0 {
                std::fs::write(&facts.path, new_text).map_err(|e| format!("cannot write {}: {e}", facts.path.display()))?;
                fixed = (fixed.0 + applied, fixed.1 + 1);
            }
            continue;
        }
        let app_root = app.as_ref().map(|a| app_relative_to(&a.root, &base)).unwrap_or_default();
        let app_root = if app_root.is_empty() { ".".to_owned() } else { app_root };
        let source = text.as_deref();
        for diagnostic in diagnostics {
            *counts.entry(diagnostic.rule.as_str()).or_default() += 1;
            *by_severity.entry(diagnostic.severity).or_default() += 1;
            failing |= diagnostic.severity >= fail_level;
            let written = if options.format == CheckFormat::Sarif {
                let shown_path = project::relative_path(&facts.path, &sarif_root);
                sarif_results.push(sarif_result(facts, diagnostic, &shown_path));
                Ok(())
            } else if json {
                write_json(&mut out, facts, diagnostic, &app_root)
            } else if options.format == CheckFormat::Github {
                let shown_path = display_path(&shown_base, &project::relative_path(&facts.path, &base));
                write_github(&mut out, facts, diagnostic, &shown_path)
            } else {
                let shown_path = display_path(&shown_base, &project::relative_path(&facts.path, &base));
                write_human(&mut out, facts, diagnostic, &shown_path, source.unwrap_or(""), color)
            };
            written.map_err(super::write_failed)?;
        }
    }
    tracing::debug!("findings written by {:?}", t0.elapsed());
    if options.fix {
        super::finish(out)?;
        let (findings, files) = fixed;
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        writeln!(std::io::stderr(), "switchyard: fixed {findings} finding{} in {files} file{}", plural(findings), plural(files))
            .map_err(super::write_failed)?;
        // What is left, read again from the fixed files.
        return check_with(
            path,
            &CheckOptions {
                fix: false,
                rules: options.rules.clone(),
                targets: options.targets.clone(),
                lanes: options.lanes.clone(),
                exact: None,
                ..*options
            },
            false,
        );
    }
    if options.format == CheckFormat::Sarif {
        serde_json::to_writer_pretty(&mut out, &sarif_log(sarif_results, &sarif_root)).map_err(super::json_failed)?;
        writeln!(out).map_err(super::write_failed)?;
    }
    if options.format == CheckFormat::Human {
        let checked = if scope.is_file() { 1 } else { checked };
        write_summary(&mut out, &counts, &by_severity, checked).map_err(super::write_failed)?;
    }
    super::finish(out)?;
    report_file_errors(&report, &base)?;
    // The process ends after the report: freeing every file's facts one by one would cost more than
    // a tenth of a warm run.
    std::mem::forget((index, files));
    Ok(if failing || compile_failed { Outcome::Findings } else { Outcome::Clean })
}

/// The app's root as seen from the checked folder: below it (`shop`), the folder itself (`.`), or
/// above it when a folder inside the app was checked (`../..`).
fn app_relative_to(root: &Path, base: &Path) -> String {
    match base.strip_prefix(root) {
        Ok(inside) => {
            let up: Vec<&str> = inside.components().map(|_| "..").collect();
            up.join("/")
        }
        Err(_) => project::relative_path(root, base),
    }
}

/// A path the user can click from where they ran the command: the folder they named, then the file.
fn display_path(shown_base: &Path, relative: &str) -> String {
    let base = shown_base.to_string_lossy();
    let base = base.trim_end_matches('/');
    if base == "." || base.is_empty() { relative.to_owned() } else { format!("{base}/{relative}") }
}

fn columns(facts: &FileFacts, d: &Diagnostic) -> (u32, u32, u32, u32) {
    let li = &facts.line_index;
    (d.span.start.line + 1, li.char_col(d.span.start) + 1, d.span.end.line + 1, li.char_col(d.span.end) + 1)
}

fn write_json(out: &mut impl Write, facts: &FileFacts, d: &Diagnostic, app: &str) -> std::io::Result<()> {
    let (line, column, end_line, end_column) = columns(facts, d);
    let targets =
        catalogue::rule(&d.rule).map_or_else(|| vec!["ruby", "jruby", "spinel"], |r| r.targets.iter().map(|t| t.as_str()).collect());
    let lanes = catalogue::rule(&d.rule).map(|r| r.lanes.iter().map(|l| l.as_str()).collect()).unwrap_or_default();
    let finding = JsonFinding {
        targets,
        lanes,
        file: &facts.relative_path,
        line,
        column,
        end_line,
        end_column,
        severity: d.severity.as_str(),
        rule: d.rule.as_str(),
        message: &d.message,
        app,
    };
    serde_json::to_writer(&mut *out, &finding)?;
    writeln!(out)
}

fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// One SARIF 2.1.0 result; the path is relative to `%SRCROOT%` ([`sarif_root`]).
fn sarif_result(facts: &FileFacts, d: &Diagnostic, path: &str) -> serde_json::Value {
    let (line, column, end_line, end_column) = columns(facts, d);
    let rule_index = catalogue::RULES.iter().position(|r| d.rule == r.id);
    let mut result = serde_json::json!({
        "ruleId": d.rule,
        "level": sarif_level(d.severity),
        "message": {"text": d.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column.max(column)}
            }
        }]
    });
    if let Some(index) = rule_index {
        result["ruleIndex"] = serde_json::json!(index);
    }
    result
}

/// A rule's help as plain text: why, then the fix (`switchyard explain` has the example).
fn help_text(r: &catalogue::Rule) -> String {
    let none = crate::roundhouse::rule_docs::Prose::default();
    let prose = crate::roundhouse::rule_docs::prose(r.id).unwrap_or(&none);
    let fix: Vec<&str> = prose.fix.lines().filter(|l| !l.starts_with("```") && !l.trim().is_empty()).map(str::trim).collect();
    format!("{} Fix: {} (`switchyard explain {}` has an example.)", prose.why, fix.join(" "), r.id)
}

/// The SARIF log: the tool with every rule of the catalogue (help text included), and the results.
/// The folder SARIF paths are relative to: the repository that holds the checked folder (GitHub
/// code scanning places a result by its path in the repository, and an app is often a subfolder),
/// else the checked folder.
fn sarif_root(base: &Path) -> std::path::PathBuf {
    let absolute = std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
    absolute.ancestors().find(|dir| dir.join(".git").exists()).map_or(absolute.clone(), Path::to_path_buf)
}

/// `file:///a/b%20c/` for a folder, as SARIF's `originalUriBaseIds` want it (ending in a slash).
fn folder_uri(folder: &Path) -> String {
    let mut uri = String::from("file://");
    for byte in folder.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

fn sarif_log(results: Vec<serde_json::Value>, root: &Path) -> serde_json::Value {
    let rules: Vec<serde_json::Value> = catalogue::RULES
        .iter()
        .map(|r| {
            let trigger = r.trigger.replace("\\|", "|");
            serde_json::json!({
                "id": r.id,
                "shortDescription": {"text": format!("{}: {}", r.id, trigger.replace('`', ""))},
                "fullDescription": {"text": format!("{} {}", trigger.replace('`', ""), catalogue::severity_meaning(r.severity))},
                "help": {"text": help_text(r), "markdown": crate::roundhouse::rule_docs::page(r, 2)},
                "defaultConfiguration": {"level": sarif_level(r.severity)},
                "properties": {"targets": r.targets.iter().map(|t| t.as_str()).collect::<Vec<_>>()}
            })
        })
        .collect();
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "switchyard",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules
            }},
            "originalUriBaseIds": {"%SRCROOT%": {
                "uri": folder_uri(root),
                "description": {"text": "The repository holding the checked folder (the checked folder when it is in none)."}
            }},
            "results": results
        }]
    })
}

/// A GitHub Actions workflow command: `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`.
fn write_github(out: &mut impl Write, facts: &FileFacts, d: &Diagnostic, shown_path: &str) -> std::io::Result<()> {
    let (line, column, end_line, end_column) = columns(facts, d);
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    // Workflow commands escape `%`, CR and LF in data, and also `:` and `,` in properties.
    let data = |s: &str| s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    let property = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    writeln!(
        out,
        "::{level} file={},line={line},col={column},endLine={end_line},endColumn={end_column},title={}::{}",
        property(shown_path),
        property(d.rule.as_str()),
        data(&d.message)
    )
}

/// The colours of the human format, as rustc uses them: the severity (and its carets) in red, yellow
/// or cyan, the message bold, the gutter blue. All plain when `color` is off.
struct Palette {
    severity: Style,
    message: Style,
    gutter: Style,
}

impl Palette {
    fn new(color: bool, severity: Severity) -> Palette {
        if !color {
            return Palette { severity: Style::new(), message: Style::new(), gutter: Style::new() };
        }
        let hue = match severity {
            Severity::Error => AnsiColor::BrightRed,
            Severity::Warning => AnsiColor::BrightYellow,
            Severity::Info => AnsiColor::BrightCyan,
        };
        Palette {
            severity: Style::new().bold().fg_color(Some(hue.into())),
            message: Style::new().bold(),
            gutter: Style::new().bold().fg_color(Some(AnsiColor::BrightBlue.into())),
        }
    }
}

/// The most characters of a line the human format quotes.
const QUOTED: usize = 160;

fn write_human(
    out: &mut impl Write,
    facts: &FileFacts,
    d: &Diagnostic,
    shown_path: &str,
    source: &str,
    color: bool,
) -> std::io::Result<()> {
    let Palette { severity, message, gutter: blue } = Palette::new(color, d.severity);
    let (line, column, end_line, end_column) = columns(facts, d);
    writeln!(out, "{severity}{}[{}]{severity:#}{message}: {}{message:#}", d.severity.as_str(), d.rule, d.message)?;
    let gutter = line.to_string().len();
    writeln!(out, "{:gutter$}{blue}-->{blue:#} {shown_path}:{line}:{column}", "")?;
    if let Some(text) = source.lines().nth((line - 1) as usize) {
        let width = if end_line == line {
            end_column.saturating_sub(column).max(1)
        } else {
            (text.chars().count() as u32 + 1).saturating_sub(column).max(1)
        };
        // A long line (generated code, a minified file) is quoted around the finding, not whole.
        let column = column as usize - 1;
        let start = if text.len() > QUOTED { column.saturating_sub(QUOTED / 4) } else { 0 };
        let mut shown: String = text.chars().skip(start).take(QUOTED).collect();
        let before = if start > 0 { "…" } else { "" };
        if text.len() > QUOTED && text.chars().nth(start + QUOTED).is_some() {
            shown.push('…');
        }
        let at = column - start + before.chars().count();
        let width = (width as usize).min(QUOTED + 1 - (column - start).min(QUOTED));
        writeln!(out, "{:gutter$} {blue}|{blue:#}", "")?;
        writeln!(out, "{blue}{line} |{blue:#} {before}{shown}")?;
        let carets = "^".repeat(width);
        writeln!(out, "{:gutter$} {blue}|{blue:#} {}{severity}{carets}{severity:#}", "", " ".repeat(at))?;
    }
    writeln!(out)
}

fn write_summary(
    out: &mut impl Write,
    counts: &BTreeMap<&str, usize>,
    by_severity: &BTreeMap<Severity, usize>,
    files: usize,
) -> std::io::Result<()> {
    let total: usize = counts.values().sum();
    if total == 0 {
        return writeln!(out, "switchyard: {files} files checked, no findings");
    }
    let severities: Vec<String> = [Severity::Error, Severity::Warning, Severity::Info]
        .iter()
        .filter_map(|s| by_severity.get(s).map(|n| format!("{n} {}{}", s.as_str(), if *n == 1 { "" } else { "s" })))
        .collect();
    writeln!(out, "switchyard: {files} files checked, {}", severities.join(", "))?;
    for (rule, n) in counts {
        writeln!(out, "  {n:>4}  {rule}")?;
    }
    if let Some(documents) = counts.get(rule!("model.document-not-compiled").as_str()) {
        writeln!(
            out,
            "note: {documents} model{} {} persisted by a document store (Mongoid or another): Roundhouse compiles Active Record models only, so {} plain classes in every tree.",
            if *documents == 1 { "" } else { "s" },
            if *documents == 1 { "is" } else { "are" },
            if *documents == 1 { "it compiles as" } else { "they compile as" }
        )?;
    }
    if let Some(rule) = counts.keys().find(|r| crate::catalogue::rule(r).is_some()) {
        writeln!(out, "`switchyard explain <rule>` says why and how to fix each (`switchyard explain {rule}`).")?;
    }
    Ok(())
}

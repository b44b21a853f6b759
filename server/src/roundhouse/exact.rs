//! Exact previews from the real compiler: run `roundhouse --target T --allow-unsupported APP -o CACHE`
//! from a Roundhouse checkout (it reads `runtime/` relative to its working directory), read the files it
//! wrote, and its stderr diagnostics. It prints each as `roundhouse: /abs/path:line:col:
//! warning[code]: message`, some several times over (once per pass that meets the construct), and
//! notes about the whole app without a path; a fatal cause (`roundhouse: missing runtime/…`) is its
//! last such line. The emitted tree is kept in a folder of this user's only (`files::private_dir`),
//! emptied before each run.
//!
//! This module runs the process and reads its output; when to run (after saves, debounced, one at a time,
//! cancelled by a newer save) is the server's business (`lsp::handlers::exact`).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::AsyncReadExt;

use super::tree::Target;
use crate::diagnostic::{Diagnostic, Severity};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactConfig {
    pub binary: PathBuf,
    pub checkout: PathBuf,
    pub target: Target,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExactDiagnostic {
    /// Absolute: the compiler's path, resolved against the app root.
    pub path: PathBuf,
    /// 1-based, as printed.
    pub line: u32,
    pub column: u32,
    pub severity: Severity,
    pub code: Option<String>,
    pub message: String,
    /// The text of its line when the compiler read the file (`anchor`): an edit moves the finding
    /// with its line, and drops it when the line itself changes, until the next run.
    pub line_text: Option<String>,
}

#[derive(Debug)]
pub struct RunOutput {
    pub success: bool,
    pub diagnostics: Vec<ExactDiagnostic>,
    /// Why a failed run failed: the compiler's last line that is no diagnostic.
    pub cause: String,
}

/// Where the emitted tree of `app_root` for `target` is kept: under the user's cache folder, in
/// folders only this user can open (another user could otherwise read it, or plant the folder and
/// have the compiler write where they chose, then serve a doctored "exact" preview).
pub fn cache_dir(app_root: &Path, target: Target) -> Result<PathBuf, String> {
    tree_dir("roundhouse", app_root, target)
}

/// Where `--check --exact` has the compiler write its tree: apart from the editor's, which a server
/// running at the same time may be serving.
pub fn check_dir(app_root: &Path, target: Target) -> Result<PathBuf, String> {
    tree_dir("roundhouse-check", app_root, target)
}

fn tree_dir(purpose: &str, app_root: &Path, target: Target) -> Result<PathBuf, String> {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    app_root.hash(&mut hasher);
    let relative = Path::new(purpose).join(format!("{:016x}", hasher.finish())).join(target.as_str());
    crate::files::switchyard_cache_dir(&relative)
}

/// Empties the folder the compiler writes into, so a failed or cancelled run leaves nothing that
/// could pass for its output.
fn clear(out: &Path) -> Result<(), String> {
    if let Ok(entries) = std::fs::read_dir(out) {
        for entry in entries.flatten() {
            let path = entry.path();
            let removed =
                if entry.file_type().is_ok_and(|t| t.is_dir()) { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
            removed.map_err(|e| format!("cannot clear {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The compiler's command line: `BINARY --target T --allow-unsupported APP -o OUT`, run in the
/// checkout (it reads `runtime/` from its working folder), its stderr read.
fn command(config: &ExactConfig, app_root: &Path, out: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(&config.binary);
    command
        .current_dir(&config.checkout)
        .arg("--target")
        .arg(config.target.as_str())
        .arg("--allow-unsupported")
        .arg(app_root)
        .arg("-o")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// Runs the compiler once and waits for it (`--check --exact`), writing its tree into `out`.
pub fn run_blocking(config: &ExactConfig, app_root: &Path, out: &Path) -> Result<RunOutput, String> {
    check_config_named(config, CHECK_SETTINGS)?;
    clear(out)?;
    let output = command(config, app_root, out).output().map_err(|e| format!("cannot run {}: {e}", config.binary.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut diagnostics = parse_diagnostics(&stderr, app_root);
    anchor(&mut diagnostics);
    Ok(RunOutput { success: output.status.success(), diagnostics, cause: failure_cause(&stderr, app_root) })
}

impl ExactDiagnostic {
    /// The rule it is reported under: the compiler's kind (`roundhouse.lower_residue`).
    pub fn rule(&self) -> crate::diagnostic::RuleId {
        crate::catalogue::compiler_rule(self.code.as_deref())
    }

    /// Its message as reported: a kind this version does not know is named first.
    pub fn reported_message(&self) -> String {
        match &self.code {
            Some(code) if self.rule() == rule!("roundhouse.other") => format!("[{code}] {}", self.message),
            _ => self.message.clone(),
        }
    }

    /// Its severity as reported: the rule's, or an error when the compiler says error.
    pub fn reported_severity(&self) -> Severity {
        let default = crate::catalogue::rule(&self.rule()).map_or(Severity::Warning, |r| r.severity);
        if self.severity == Severity::Error { Severity::Error } else { default }
    }

    /// Whether one of Switchyard's own findings (`own`, of the file whose text is `text`) already
    /// says it: a finding of a rule that echoes its kind (`catalogue::echoes`) within a line of
    /// `line` (0-based, where it is now) — or, for a job's or mailer's method, anywhere from its name
    /// to its body's first statement, where the compiler places its note (`entry_points::RULES`).
    pub fn said_by(&self, line: u32, own: &[Diagnostic], text: Option<&str>) -> bool {
        own.iter().any(|d| {
            // The method's first statement, found in the text only for a finding that could say it.
            let last = || match text.filter(|_| super::entry_points::RULES.contains(&d.rule)) {
                Some(text) => d.span.end.line.max(super::entry_points::first_statement_line(text, d.span.start.line)),
                None => d.span.end.line,
            };
            d.span.start.line.saturating_sub(1) <= line
                && crate::catalogue::echoes(d.rule, self.code.as_deref(), &self.message)
                && line <= last() + 1
        })
    }

    /// As a finding of the file whose text is `text`, unless its line is gone or `own` already says
    /// it.
    pub fn finding(&self, text: &str, line_index: &crate::syntax::LineIndex, own: &[Diagnostic]) -> Option<Diagnostic> {
        let (line, start, end) = locate(self, Some(text))?;
        if self.said_by(line, own, Some(text)) {
            return None;
        }
        let at = |col: usize| line_index.offset(crate::syntax::LineCol { line, col: col as u32 });
        let (start, end) = (at(start)?, at(end).unwrap_or(text.len()));
        Some(Diagnostic {
            span: line_index.span(start..end.max(start)),
            severity: self.reported_severity(),
            rule: self.rule(),
            message: self.reported_message(),
        })
    }
}

/// The diagnostics of the compiler's stderr (`[roundhouse: ]path:line:col: severity[code]: message`),
/// each once; every other line is ignored.
pub fn parse_diagnostics(stderr: &str, app_root: &Path) -> Vec<ExactDiagnostic> {
    let mut found: Vec<ExactDiagnostic> = Vec::new();
    for line in stderr.lines() {
        let Some(diagnostic) = parse_line(line, app_root) else { continue };
        if !found.contains(&diagnostic) {
            found.push(diagnostic);
        }
    }
    found
}

fn parse_line(line: &str, app_root: &Path) -> Option<ExactDiagnostic> {
    let line = line.strip_prefix(PREFIX).unwrap_or(line);
    let mut parts = line.splitn(4, ':');
    let (path, line_no, column, rest) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let (line_no, column) = (line_no.trim().parse::<u32>().ok()?, column.trim().parse::<u32>().ok()?);
    let rest = rest.trim_start();
    let (kind, message) = rest.split_once(':')?;
    let (severity_text, code) = match kind.split_once('[') {
        Some((severity, code)) => (severity.trim(), Some(code.trim_end_matches(']').to_owned())),
        None => (kind.trim(), None),
    };
    let severity = match severity_text {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        "note" | "info" => Severity::Info,
        _ => return None,
    };
    let path = Path::new(path.trim());
    let path = if path.is_absolute() { path.to_path_buf() } else { app_root.join(path) };
    Some(ExactDiagnostic { path, line: line_no, column, severity, code, message: message.trim().to_owned(), line_text: None })
}

/// What the compiler puts before each line it prints.
const PREFIX: &str = "roundhouse: ";

/// Why a run failed, from its stderr: the last line that is neither a diagnostic nor a warning
/// about the whole app (`missing runtime/spinel/scaffold/`), else the last line.
fn failure_cause(stderr: &str, app_root: &Path) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let is_note = |line: &str| {
        let bare = line.strip_prefix(PREFIX).unwrap_or(line);
        parse_line(line, app_root).is_some() || bare.starts_with("warning") || bare.starts_with("note")
    };
    let cause = lines.iter().rev().find(|l| !is_note(l)).or(lines.last()).copied().unwrap_or("no output");
    cause.strip_prefix(PREFIX).unwrap_or(cause).to_owned()
}

/// The checkout of a binary no checkout was named for: the nearest folder above it that holds
/// `runtime/` (a build's `target/release/roundhouse` sits two below), else its own folder.
pub fn default_checkout(binary: &Path) -> PathBuf {
    let folder = binary.parent().unwrap_or(Path::new(""));
    folder.ancestors().find(|dir| dir.join("runtime").is_dir()).unwrap_or(folder).to_path_buf()
}

/// Why the compiler cannot be run as configured, before trying: a missing binary, a missing
/// checkout, a checkout without `runtime/` (the compiler reads it from its working folder).
pub fn check_config(config: &ExactConfig) -> Result<(), String> {
    check_config_named(config, EDITOR_SETTINGS)
}

/// Where the editor's settings name the compiler and its checkout.
const EDITOR_SETTINGS: [&str; 2] = ["switchyard.roundhouse.binary", "switchyard.roundhouse.checkout"];
/// Where `--check --exact` is told them.
pub const CHECK_SETTINGS: [&str; 2] =
    ["--roundhouse, or `binary` under [roundhouse] in switchyard.toml", "--roundhouse-checkout, or `checkout` under [roundhouse]"];

/// As `check_config`, naming the settings the user gave them in.
fn check_config_named(config: &ExactConfig, [binary, checkout]: [&str; 2]) -> Result<(), String> {
    if !config.binary.is_file() {
        return Err(format!("the Roundhouse binary {} does not exist ({binary})", config.binary.display()));
    }
    if !config.checkout.is_dir() {
        return Err(format!("the Roundhouse checkout {} does not exist ({checkout})", config.checkout.display()));
    }
    if !config.checkout.join("runtime").is_dir() {
        return Err(format!("{} has no runtime/ folder: it is not a Roundhouse checkout ({checkout})", config.checkout.display()));
    }
    Ok(())
}

/// Runs the compiler once; `cancel` resolving first kills it (`Err("cancelled")`). The output folder
/// is emptied first, so a failed or cancelled run leaves nothing that could pass for its output.
pub async fn run(config: &ExactConfig, app_root: &Path, cancel: impl std::future::Future<Output = ()>) -> Result<RunOutput, String> {
    check_config(config)?;
    let out = cache_dir(app_root, config.target)?;
    clear(&out)?;
    let started = std::time::Instant::now();
    tracing::debug!(
        "exact previews: running {} --target {} --allow-unsupported {} -o {} in {}",
        config.binary.display(),
        config.target.as_str(),
        app_root.display(),
        out.display(),
        config.checkout.display()
    );
    let mut child = tokio::process::Command::from(command(config, app_root, &out))
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", config.binary.display()))?;
    let mut stderr_pipe = child.stderr.take().ok_or("no stderr pipe")?;
    let reader = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr_pipe.read_to_string(&mut text).await;
        text
    });
    let status = tokio::select! {
        status = child.wait() => status.map_err(|e| e.to_string())?,
        () = cancel => {
            let _ = child.kill().await;
            tracing::debug!("exact previews: run cancelled after {:?}", started.elapsed());
            return Err("cancelled".to_owned());
        }
    };
    let stderr = reader.await.unwrap_or_default();
    let mut diagnostics = parse_diagnostics(&stderr, app_root);
    anchor(&mut diagnostics);
    tracing::debug!(
        "exact previews: {status} after {:?}, {} diagnostics from {} lines of stderr",
        started.elapsed(),
        diagnostics.len(),
        stderr.lines().count()
    );
    Ok(RunOutput { success: status.success(), diagnostics, cause: failure_cause(&stderr, app_root) })
}

/// Gives each diagnostic the text of its line, as the compiler read it (the file on disk).
fn anchor(diagnostics: &mut [ExactDiagnostic]) {
    let mut texts: std::collections::HashMap<PathBuf, Option<String>> = std::collections::HashMap::new();
    for diagnostic in diagnostics {
        let text = texts
            .entry(diagnostic.path.clone())
            .or_insert_with(|| crate::files::read_regular_text(&diagnostic.path, None, crate::files::MAX_SOURCE).ok().flatten());
        diagnostic.line_text = text.as_deref().and_then(|t| t.lines().nth(diagnostic.line.saturating_sub(1) as usize)).map(str::to_owned);
    }
}

/// Where a compiler diagnostic is in `text` now: its line, found by its text nearest where it was
/// (edits above move it), and the byte columns from its column to the line's last non-blank; `None`
/// once its line is gone or changed.
pub fn locate(diagnostic: &ExactDiagnostic, text: Option<&str>) -> Option<(u32, usize, usize)> {
    let printed = diagnostic.line.saturating_sub(1) as usize;
    let start = diagnostic.column.saturating_sub(1) as usize;
    let (line, content) = match (text, diagnostic.line_text.as_deref()) {
        (Some(text), Some(anchor)) => {
            let lines: Vec<&str> = text.lines().collect();
            let nearest = (0..lines.len()).filter(|&i| lines[i] == anchor).min_by_key(|&i| i.abs_diff(printed))?;
            (nearest, anchor)
        }
        (_, Some(anchor)) => (printed, anchor),
        (_, None) => return Some((printed as u32, start, start + 1)),
    };
    // A finding about a name (`local read \`user\``) covers the name when the column is at it; one
    // about a statement, the rest of its line.
    let named = diagnostic.message.split('`').nth(1).filter(|name| !name.is_empty());
    let at = content.get(start..).unwrap_or("");
    let end = match named {
        Some(name) if at.starts_with(name) => start + name.len(),
        _ => content.trim_end().len().max(start + 1),
    };
    Some((line as u32, start.min(content.len()), end))
}

/// The text Roundhouse wrote at `emitted` (a path relative to the tree's root), if it has run.
pub fn emitted_text(app_root: &Path, target: Target, emitted: &str) -> Option<String> {
    let dir = cache_dir(app_root, target).ok()?;
    crate::files::read_regular_text(&dir.join(emitted), Some(&dir), crate::files::MAX_SOURCE).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_compiler_diagnostic_format() {
        let stderr = "compiling...\napp/models/post.rb:12:3: error[E-MODEL-DSL]: default_scope not supported (all targets)\n/abs/x.rb:1:1: warning: dropped: mount\nnot a diagnostic: here\n";
        let found = parse_diagnostics(stderr, Path::new("/app"));
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].path, Path::new("/app/app/models/post.rb"));
        assert_eq!((found[0].line, found[0].column, found[0].severity), (12, 3, Severity::Error));
        assert_eq!(found[0].code.as_deref(), Some("E-MODEL-DSL"));
        assert_eq!(found[0].message, "default_scope not supported (all targets)");
        assert_eq!(found[1].path, Path::new("/abs/x.rb"));
        assert_eq!((found[1].severity, found[1].code.as_deref()), (Severity::Warning, None));
    }

    /// What the compiler prints (measured on examples/blog with Roundhouse fda6906d): a prefix on
    /// every line, absolute paths, each finding once per pass, notes without a path.
    const REAL: &str = "roundhouse: treeshake (ruby): dropped 21 runtime defs\n\
        roundhouse: /w/blog/app/models/post.rb:2:3: warning[unsupported]: include not supported (all targets): model DSL call on `Post` not lowered\n\
        roundhouse: /w/blog/app/models/post.rb:2:3: warning[unsupported]: include not supported (all targets): model DSL call on `Post` not lowered\n\
        roundhouse: warning[lower_residue]: relation chain stays dynamic\n\
        roundhouse: /w/blog/app/models/post.rb:2:3: warning[unsupported]: include not supported (all targets): model DSL call on `Post` not lowered\n\
        roundhouse: missing runtime/spinel/scaffold/\n";

    #[test]
    fn the_real_compilers_lines_are_read_once_each_and_its_cause_found() {
        let found = parse_diagnostics(REAL, Path::new("/w/blog"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, Path::new("/w/blog/app/models/post.rb"));
        assert_eq!((found[0].line, found[0].column, found[0].code.as_deref()), (2, 3, Some("unsupported")));
        assert_eq!(failure_cause(REAL, Path::new("/w/blog")), "missing runtime/spinel/scaffold/");
    }

    fn own(rule: crate::diagnostic::RuleId, line: u32) -> Diagnostic {
        let at = crate::syntax::LineCol { line, col: 2 };
        Diagnostic {
            span: crate::syntax::Span { start: at, end: at, ..Default::default() },
            severity: Severity::Warning,
            rule,
            message: String::new(),
        }
    }

    fn line(code: &str, line: u32, message: &str) -> ExactDiagnostic {
        ExactDiagnostic {
            path: PathBuf::from("/app/x.rb"),
            line,
            column: 3,
            severity: Severity::Warning,
            code: Some(code.to_owned()),
            message: message.to_owned(),
            line_text: None,
        }
    }

    #[test]
    fn a_compiler_line_is_not_repeated_where_switchyard_says_it() {
        let unsupported = line("unsupported", 5, "delegate not supported (all targets)");
        // Any rule about the compiler within a line says an `unsupported` line; a wiring check does not.
        assert!(unsupported.said_by(4, &[own(rule!("model.unsupported-macro"), 5)], None));
        assert!(unsupported.said_by(4, &[own(rule!("syntax.for-loop"), 3)], None));
        assert!(!unsupported.said_by(4, &[own(rule!("model.unsupported-macro"), 2)], None), "two lines away");
        assert!(!unsupported.said_by(4, &[own(rule!("rails.unknown-column"), 4)], None));
        // A `lower_residue` line only by the rule that reports that lowering.
        let dropped = line("lower_residue", 3, "template statement dropped (unknown stmt) — it contributes no output");
        assert!(dropped.said_by(2, &[own(rule!("views.statement-dropped"), 2)], None));
        assert!(!dropped.said_by(2, &[own(rule!("views.literal-tag"), 2)], None));
        let chain = line("lower_residue", 3, "relation chain stays dynamic (`where` returns Relation[Post])");
        assert!(!chain.said_by(2, &[own(rule!("views.statement-dropped"), 2), own(rule!("model.scope-body"), 2)], None));
        assert_eq!(chain.rule(), rule!("roundhouse.lower_residue"));
        // A job's note, which the compiler places on `perform`'s first statement, is said by the
        // finding on its name, however far below that statement is; not past it.
        let text = "class SyncJob < ApplicationJob\n  def perform(\n    id\n  )\n    # why\n    Post.find(id)\n    x\n  end\nend\n";
        let set = line(
            "lower_residue",
            6,
            "job_class_side: `perform` — set(wait:/queue:/priority:) options are dropped under inline job semantics",
        );
        assert!(set.said_by(5, &[own(rule!("job.runs-inline"), 1)], Some(text)));
        assert!(!set.said_by(5, &[own(rule!("job.runs-inline"), 1)], None), "without the text: within a line only");
        assert!(!set.said_by(7, &[own(rule!("job.runs-inline"), 1)], Some(text)), "past the first statement");
        // A kind this version does not know keeps its name in the message.
        let new = line("brand_new", 1, "something");
        assert_eq!((new.rule(), new.reported_message().as_str()), (rule!("roundhouse.other"), "[brand_new] something"));
        assert_eq!(ExactDiagnostic { code: None, ..new.clone() }.rule(), rule!("roundhouse.other"));
        assert_eq!(ExactDiagnostic { severity: Severity::Error, ..new }.reported_severity(), Severity::Error);
    }

    #[test]
    fn a_binary_without_a_checkout_runs_in_the_folder_above_it_that_has_runtime() {
        let root = std::env::temp_dir().join(format!("switchyard-default-checkout-{}", std::process::id()));
        std::fs::create_dir_all(root.join("runtime")).unwrap();
        std::fs::create_dir_all(root.join("target/release")).unwrap();
        assert_eq!(default_checkout(&root.join("target/release/roundhouse")), root);
        assert_eq!(default_checkout(Path::new("/nowhere/bin/roundhouse")), Path::new("/nowhere/bin"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_finding_moves_with_its_line_and_goes_when_the_line_changes() {
        let mut diagnostic = parse_diagnostics(REAL, Path::new("/w/blog")).remove(0);
        diagnostic.line_text = Some("  include Publishable".to_owned());
        let before = "class Post < ApplicationRecord\n  include Publishable\nend\n";
        assert_eq!(locate(&diagnostic, Some(before)), Some((1, 2, 21)));
        let moved = "# a comment\n# another\nclass Post < ApplicationRecord\n  include Publishable\nend\n";
        assert_eq!(locate(&diagnostic, Some(moved)), Some((3, 2, 21)));
        let changed = "class Post < ApplicationRecord\n  include Publishable, Other\nend\n";
        assert_eq!(locate(&diagnostic, Some(changed)), None);
        assert_eq!(locate(&diagnostic, None), Some((1, 2, 21)));
        let read = ExactDiagnostic {
            line: 3,
            column: 5,
            message: "local read `user` has unresolved type".to_owned(),
            line_text: Some("    user.name".to_owned()),
            ..diagnostic
        };
        assert_eq!(locate(&read, None), Some((2, 4, 8)));
    }
}

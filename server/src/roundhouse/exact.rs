//! Exact previews from the real compiler: run `roundhouse --target T --allow-unsupported APP -o CACHE`
//! from a Roundhouse checkout (it reads `runtime/` relative to its working directory), read the files it
//! wrote, and its stderr diagnostics (`path:line:col: error|warning[code]: message`).
//!
//! This module runs the process and reads its output; when to run (after saves, debounced, one at a time,
//! cancelled by a newer save) is the server's business (`lsp::handlers::exact`).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::AsyncReadExt;

use super::tree::Target;
use crate::diagnostic::Severity;

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
}

#[derive(Debug)]
pub struct RunOutput {
    pub success: bool,
    pub diagnostics: Vec<ExactDiagnostic>,
    /// The last lines of stderr, for a failure message.
    pub stderr_tail: String,
}

/// Where the emitted tree of `app_root` for `target` is kept.
pub fn cache_dir(app_root: &Path, target: Target) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    app_root.hash(&mut hasher);
    std::env::temp_dir().join("switchyard-roundhouse").join(format!("{:016x}", hasher.finish())).join(target.as_str())
}

/// `app/models/post.rb:12:3: error[E-MODEL-DSL]: …` lines; everything else is ignored.
pub fn parse_diagnostics(stderr: &str, app_root: &Path) -> Vec<ExactDiagnostic> {
    stderr
        .lines()
        .filter_map(|line| {
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
            Some(ExactDiagnostic { path, line: line_no, column, severity, code, message: message.trim().to_owned() })
        })
        .collect()
}

/// Runs the compiler once; `cancel` resolving first kills it (`Err("cancelled")`).
pub async fn run(config: &ExactConfig, app_root: &Path, cancel: impl std::future::Future<Output = ()>) -> Result<RunOutput, String> {
    let out = cache_dir(app_root, config.target);
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut child = tokio::process::Command::new(&config.binary)
        .current_dir(&config.checkout)
        .arg("--target")
        .arg(config.target.as_str())
        .arg("--allow-unsupported")
        .arg(app_root)
        .arg("-o")
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
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
            return Err("cancelled".to_owned());
        }
    };
    let stderr = reader.await.unwrap_or_default();
    let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
    Ok(RunOutput {
        success: status.success(),
        diagnostics: parse_diagnostics(&stderr, app_root),
        stderr_tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
    })
}

/// The text Roundhouse wrote at `emitted` (a path relative to the tree's root), if it has run.
pub fn emitted_text(app_root: &Path, target: Target, emitted: &str) -> Option<String> {
    std::fs::read_to_string(cache_dir(app_root, target).join(emitted)).ok()
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
}

//! `switchyard tree [PATH] [--target T]… [--format table|json]`: where each source file lands in the
//! CRuby, JVM and Spinel trees (or why nowhere). PATH may name one file.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use super::{Loaded, Outcome, load, report_file_errors};
use crate::rails::FileFacts;
use crate::roundhouse::tree::{Target, map_app};

pub fn tree(path: &Path, targets: &[Target], json: bool) -> Result<Outcome, String> {
    let Loaded { index, report, base, scope } = load(path)?;
    let targets: Vec<Target> = if targets.is_empty() { Target::ALL.to_vec() } else { targets.to_vec() };
    let snapshot = index.snapshot();
    let mut out = super::stdout();
    let io = super::write_failed;
    for app in index.apps() {
        let files: Vec<Arc<FileFacts>> =
            snapshot.iter().filter(|f| index.app_for(&f.path).is_some_and(|a| a.root == app.root)).cloned().collect();
        for entry in map_app(&files) {
            let source_path = app.root.join(&entry.source);
            if !source_path.starts_with(&scope) {
                continue;
            }
            if json {
                serde_json::to_writer(&mut out, &entry.to_json(&targets)).map_err(super::json_failed)?;
                writeln!(out).map_err(io)?;
                continue;
            }
            writeln!(out, "{}", crate::rails::project::relative_path(&source_path, &base)).map_err(io)?;
            for target in &targets {
                let Some(tree) = entry.target(*target) else { continue };
                let label = match target {
                    Target::Ruby => "CRuby",
                    Target::Jruby => "JVM",
                    Target::Spinel => "Spinel",
                };
                let mut line = if tree.paths.is_empty() { "—".to_owned() } else { tree.paths.join(", ") };
                if let Some(lane) = tree.lane {
                    line.push_str(&format!(" · lane {lane}"));
                }
                if !tree.swaps.is_empty() {
                    line.push_str(&format!(" · swaps: {}", tree.swaps.join("; ")));
                }
                writeln!(out, "  {label:<7}{line}").map_err(io)?;
            }
            if let Some(note) = &entry.note {
                writeln!(out, "  note   {note}").map_err(io)?;
            }
        }
    }
    super::finish(out)?;
    report_file_errors(&report, &base)
}

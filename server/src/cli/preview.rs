//! `switchyard preview FILE [--target T]`: the built-in preview alone on stdout, so it can be piped
//! to `ruby -c`; `switchyard preview FOLDER --out DIR`: every file's, one file each.

use std::io::Write;
use std::path::Path;

use super::{Loaded, Outcome, load};
use crate::roundhouse::tree::Target;

pub fn preview(path: &Path, target: Target) -> Result<Outcome, String> {
    let Loaded { index, scope, .. } = load(path)?;
    if !scope.is_file() {
        return Err(format!("{} is not a file: preview takes one source file", path.display()));
    }
    let preview = crate::ide::preview::preview_file(&index, &scope, None, target, None)
        .ok_or_else(|| format!("{} is not a file Switchyard indexes", path.display()))?;
    std::io::stdout().lock().write_all(preview.text.as_bytes()).map_err(super::write_failed)?;
    Ok(Outcome::Clean)
}

/// Every previewed file of the apps at `path` (a file of Ruby, ERB or HAML, or an app's config),
/// written to `out` at its path in its app plus `.rb`; the count on stderr.
pub fn preview_all(path: &Path, target: Target, out: &Path) -> Result<Outcome, String> {
    let Loaded { index, scope, .. } = load(path)?;
    if !scope.is_dir() {
        return Err(format!("{} is not a folder: --out previews every file of a folder", path.display()));
    }
    let mut written = 0;
    for app in super::apps_in_scope(&index, &scope) {
        let context = std::sync::Arc::new(crate::app::AppContext::new(&index, &app.root, &index.snapshot()));
        let mut files: Vec<_> = context.files.iter().map(|f| (f.path.clone(), f.relative_path.clone())).collect();
        files.sort();
        for (file, relative) in files {
            let Some(preview) = crate::ide::preview::preview_file(&index, &file, None, target, Some(context.clone())) else { continue };
            let app_name = app.root.strip_prefix(&scope).map(Path::to_path_buf).unwrap_or_default();
            let to = out.join(app_name).join(format!("{relative}.rb"));
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            std::fs::write(&to, preview.text).map_err(|e| format!("cannot write {}: {e}", to.display()))?;
            written += 1;
        }
    }
    writeln!(std::io::stderr(), "switchyard: {written} previews written to {}", out.display()).map_err(super::write_failed)?;
    Ok(Outcome::Clean)
}

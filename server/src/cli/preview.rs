//! `switchyard preview FILE [--target T]`: the built-in preview alone on stdout, so it can be piped
//! to `ruby -c`.

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

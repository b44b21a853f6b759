//! The diagnostics of a file: today its syntax errors, read at extraction time. Later rule passes
//! add theirs here, so both the server and `--check` see one list.

use crate::diagnostic::Diagnostic;
use crate::rails::FileFacts;

pub fn file_diagnostics(facts: &FileFacts) -> Vec<Diagnostic> {
    let mut diagnostics = facts.diagnostics.clone();
    diagnostics.sort_by_key(|d| (d.span.start_byte, d.span.end_byte));
    diagnostics
}

//! Caret fixtures, as tree-sitter grammar repositories write them for queries: under a line of Ruby, a
//! comment line with `^` at a column (or `<-` at the comment's own column) and the names that must
//! (or, with `!`, must not) cover that column. Switchyard's node shapes are Rust, not queries; their
//! fixtures keep this form (`tests/queries/ruby/**/*.rb`).

/// Checks every caret assertion of `text` against `captured` (name, range); `names` are the names the
/// shapes can report, so a misspelt assertion fails instead of passing as a negation.
pub fn check(fixture: &str, text: &str, captured: &[(&str, tree_sitter::Range)], names: &[&str]) {
    let mut target_row = 0;
    let mut assertions = 0;
    for (row, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let Some(rest) = trimmed.strip_prefix('#') else {
            target_row = row;
            continue;
        };
        let (column, asserted) = if let Some(caret) = rest.find('^') {
            (line.len() - trimmed.len() + 1 + caret, &rest[caret + 1..])
        } else if let Some(arrow) = rest.trim_start().strip_prefix("<-") {
            (line.len() - trimmed.len(), arrow)
        } else {
            target_row = row;
            continue;
        };
        for expected in asserted.split_whitespace() {
            let (negated, name) = expected.strip_prefix('!').map_or((false, expected), |n| (true, n));
            assert!(names.contains(&name), "{fixture}:{}: nothing reports `{name}`", row + 1);
            let covered = captured.iter().any(|(n, r)| {
                *n == name
                    && (r.start_point.row, r.start_point.column) <= (target_row, column)
                    && (target_row, column) < (r.end_point.row, r.end_point.column)
            });
            assert!(
                covered != negated,
                "{fixture}:{}: `{name}` {} cover line {} column {}",
                row + 1,
                if negated { "must not" } else { "must" },
                target_row + 1,
                column + 1
            );
            assertions += 1;
        }
    }
    assert!(assertions > 0, "{fixture} has no caret assertions");
}

/// Reads `tests/queries/ruby/<fixture>`, parses it, and checks its carets against what `find` reports
/// on its tree.
pub fn check_fixture(fixture: &str, names: &[&str], find: impl Fn(tree_sitter::Node<'_>, &str) -> Vec<(&'static str, tree_sitter::Range)>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/queries/ruby").join(fixture);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parsed = super::ParsedFile::parse(super::Language::Ruby, &text);
    let tree = parsed.ruby.expect("a Ruby tree");
    check(fixture, &text, &find(tree.root_node(), &text), names);
}

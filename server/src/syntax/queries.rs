//! The `.scm` queries under `queries/ruby/`, embedded at compile time and compiled once per process
//! (compiling one costs tens of milliseconds; a `Query` is `Send + Sync` and shared by all threads).

use std::sync::LazyLock;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor};

pub struct QuerySource {
    pub name: &'static str,
    pub source: &'static str,
}

/// Every query file, for the compile test and the caret fixtures.
pub const ALL: &[QuerySource] = &[
    QuerySource { name: "rules/syntax", source: include_str!("../../../queries/ruby/rules/syntax.scm") },
    QuerySource { name: "config", source: include_str!("../../../queries/ruby/config.scm") },
];

fn compile(name: &str) -> Option<Query> {
    let source = ALL.iter().find(|q| q.name == name)?.source;
    match Query::new(&tree_sitter_ruby::LANGUAGE.into(), source) {
        Ok(query) => Some(query),
        Err(error) => {
            // A test compiles every query, so this only happens in a broken build.
            tracing::error!("query {name}.scm does not compile: {error}");
            None
        }
    }
}

pub static CONFIG: LazyLock<Option<Query>> = LazyLock::new(|| compile("config"));
pub static SYNTAX_RULES: LazyLock<Option<Query>> = LazyLock::new(|| compile("rules/syntax"));

/// One match: its captures as (capture name, node), in pattern order.
pub type Match<'tree> = Vec<(&'static str, Node<'tree>)>;

/// Runs `query` over `root` and returns every match with its captures.
pub fn matches<'tree>(query: &'static Option<Query>, root: Node<'tree>, text: &str) -> Vec<Match<'tree>> {
    let Some(query) = query.as_ref() else { return Vec::new() };
    let names = query.capture_names();
    let mut cursor = QueryCursor::new();
    let mut out = Vec::new();
    let mut it = cursor.matches(query, root, text.as_bytes());
    while let Some(m) = it.next() {
        out.push(m.captures().iter().map(|c| (names[c.index as usize], c.node)).collect());
    }
    out
}

/// The node captured as `name` in a match.
pub fn capture<'tree>(m: &Match<'tree>, name: &str) -> Option<Node<'tree>> {
    m.iter().find(|(n, _)| *n == name).map(|(_, node)| *node)
}

#[cfg(test)]
mod tests {
    //! Caret fixtures, as tree-sitter grammar repos write them: under a line of Ruby, a comment line
    //! with `^` at a column and the capture names that must (or, with `!`, must not) cover that column.

    use super::*;
    use crate::syntax::{Language, ParsedFile};

    #[test]
    fn every_query_compiles() {
        for q in ALL {
            if let Err(e) = Query::new(&tree_sitter_ruby::LANGUAGE.into(), q.source) {
                panic!("{}.scm: {e}", q.name);
            }
        }
    }

    #[test]
    fn caret_fixtures() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/queries/ruby");
        for q in ALL {
            let path = dir.join(format!("{}.rb", q.name));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            check_carets(q, &text);
        }
    }

    fn check_carets(q: &QuerySource, text: &str) {
        let query = Query::new(&tree_sitter_ruby::LANGUAGE.into(), q.source).unwrap();
        let parsed = ParsedFile::parse(Language::Ruby, text);
        let tree = parsed.ruby.unwrap();
        let names = query.capture_names();
        let mut captured: Vec<(&str, tree_sitter::Range)> = Vec::new();
        let mut cursor = QueryCursor::new();
        let mut it = cursor.matches(&query, tree.root_node(), text.as_bytes());
        while let Some(m) = it.next() {
            captured.extend(m.captures().iter().map(|c| (names[c.index as usize], c.node.range())));
        }
        let mut target_row = 0;
        let mut assertions = 0;
        for (row, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            let Some(rest) = trimmed.strip_prefix('#') else {
                target_row = row;
                continue;
            };
            // `# ^ name` asserts at the caret's column, `# <- name` at the comment's own column.
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
                assert!(names.contains(&name), "{}.scm has no capture @{name} (line {})", q.name, row + 1);
                let covered = captured.iter().any(|(n, r)| {
                    *n == name
                        && (r.start_point.row, r.start_point.column) <= (target_row, column)
                        && (target_row, column) < (r.end_point.row, r.end_point.column)
                });
                assert!(
                    covered != negated,
                    "{}.rb:{}: @{name} {} cover line {} column {}",
                    q.name,
                    row + 1,
                    if negated { "must not" } else { "must" },
                    target_row + 1,
                    column + 1
                );
                assertions += 1;
            }
        }
        assert!(assertions > 0, "{}.rb has no caret assertions", q.name);
    }
}

//! Multi-file fixtures for feature tests: `#- /app/models/post.rb` starts a file, `$0` marks the
//! cursor. Files are indexed in memory under a fake app root; nothing touches the disk.

use std::path::{Path, PathBuf};

use crate::index::Index;
use crate::rails::project::{RailsApp, language_of};
use crate::syntax::ParsedFile;

pub struct Fixture {
    pub index: Index,
    pub root: PathBuf,
    /// The file holding `$0`, and the cursor's byte offset in it.
    pub cursor: Option<(PathBuf, usize)>,
    /// Each file's text as indexed (`$0` removed).
    pub texts: std::collections::HashMap<PathBuf, String>,
}

impl Fixture {
    pub fn new(text: &str) -> Fixture {
        let root = PathBuf::from("/fixture");
        let index = Index::new();
        index.add_apps(vec![RailsApp { root: root.clone(), name: "fixture".to_owned() }]);
        let mut cursor = None;
        let mut texts = std::collections::HashMap::new();
        for chunk in text.split("#- ").filter(|c| !c.trim().is_empty()) {
            let (header, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
            let path = root.join(header.trim().trim_start_matches('/'));
            let body = trim_indent(body);
            let body = match body.find("$0") {
                Some(offset) => {
                    cursor = Some((path.clone(), offset));
                    body.replacen("$0", "", 1)
                }
                None => body,
            };
            let language = language_of(&path).unwrap_or(crate::syntax::Language::Ruby);
            let parsed = ParsedFile::parse(language, &body);
            let facts = index.extract_text(&path, &body, &parsed);
            index.insert(facts);
            texts.insert(path, body);
        }
        Fixture { index, root, cursor, texts }
    }

    /// An app of these files exactly as given (`(relative path, text)`), nothing trimmed.
    pub fn from_files(files: &[(String, String)]) -> Fixture {
        let root = PathBuf::from("/fixture");
        let index = Index::new();
        index.add_apps(vec![RailsApp { root: root.clone(), name: "fixture".to_owned() }]);
        for (relative, text) in files {
            let path = root.join(relative.trim_start_matches('/'));
            let language = language_of(&path).unwrap_or(crate::syntax::Language::Ruby);
            let parsed = ParsedFile::parse(language, text);
            index.insert(index.extract_text(&path, text, &parsed));
        }
        Fixture { index, root, cursor: None, texts: Default::default() }
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative.trim_start_matches('/'))
    }

    /// The offset of a cursor written in the test: `marked` is text of the file at `relative` with
    /// `$0` where the cursor goes (`"reso$0urces :posts"`), found exactly once. For fixtures that put
    /// the cursor in several places, one `Fixture::new` for all of them.
    pub fn at(&self, relative: &str, marked: &str) -> usize {
        let (before, after) = marked.split_once("$0").unwrap_or_else(|| panic!("no $0 in {marked:?}"));
        let text = self.texts.get(&self.path(relative)).unwrap_or_else(|| panic!("no file {relative} in the fixture"));
        let needle = format!("{before}{after}");
        let mut found = text.match_indices(&needle).map(|(at, _)| at);
        let at = found.next().unwrap_or_else(|| panic!("{needle:?} is not in {relative}"));
        assert!(found.next().is_none(), "{needle:?} is in {relative} more than once");
        at + before.len()
    }

    pub fn facts(&self, relative: &str) -> std::sync::Arc<crate::rails::FileFacts> {
        let path = self.path(relative);
        self.index.get(Path::new(&path)).unwrap_or_else(|| panic!("no file {relative} in the fixture"))
    }
}

/// Removes the common leading indentation, so fixtures can be indented inside a raw string.
fn trim_indent(text: &str) -> String {
    let indent = text.lines().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let mut out: String = text.lines().map(|l| l.get(indent..).unwrap_or("").trim_end()).collect::<Vec<_>>().join("\n");
    out.push('\n');
    out
}

/// Each app under the repository's `dirs` (the example and fixture apps), indexed from disk: its
/// context, its whole-app findings and the facts its tree map reads.
pub fn each_app(
    dirs: &[&str],
    mut visit: impl FnMut(
        &crate::app::AppContext,
        &std::collections::HashMap<PathBuf, Vec<crate::diagnostic::Diagnostic>>,
        &crate::roundhouse::tree::AppFacts,
    ),
) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    for dir in dirs {
        let index = Index::new();
        index.index_workspace(&[root.join(dir)], &|_, _| {});
        let snapshot = index.snapshot();
        for app in index.apps() {
            let context = crate::app::AppContext::new(&index, &app.root, &snapshot);
            let derived = crate::checks::app_diagnostics(&context);
            visit(&context, &derived, context.tree_facts());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_files_and_finds_the_cursor() {
        let fixture = Fixture::new(
            "
            #- /app/models/post.rb
            class Post < ApplicationRecord
              has_many :com$0ments
            end
            #- /config/routes.rb
            Rails.application.routes.draw do
            end
            ",
        );
        let (path, offset) = fixture.cursor.clone().unwrap();
        assert_eq!(path, fixture.path("app/models/post.rb"));
        assert_eq!(&fixture.facts("app/models/post.rb").models[0].associations[0].name, "comments");
        assert_eq!(offset, "class Post < ApplicationRecord\n  has_many :com".len());
        assert!(fixture.facts("config/routes.rb").routes.is_some());
    }
}

//! What the last session published, kept for the next start: every file's complete diagnostics (its
//! own and the whole-app ones) and the state of the disk they were worked out from. A server that
//! starts on an unchanged workspace shows the open documents' complete diagnostics from it at once,
//! while the index is still being read; the index's own re-check then takes over.
//!
//! It is written only when every file the diagnostics depend on was read from disk under a status
//! that vouches for it (`cache::status`): every folder the walk listed, every ignore file that shaped
//! the walk, every indexed file (an open document's too, when its buffer is what the disk holds). It is
//! used only when every one of those statuses is still the same: then the walk would find the same
//! files, each with the same text, so the facts, the app's context and the diagnostics would all be
//! the same. One file per set of workspace folders and user (`Keeper`): `<cache dir>/<hash of the
//! folders>.published` for the editor's server, `.checked` for `--check`; stamped with the build like
//! the index; anything unreadable or stale is ignored and logged.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::cache::{self, Cache};
use crate::diagnostic::Diagnostic;

const MAGIC: &[u8; 8] = b"SWYDPUB1";

/// The diagnostics of one workspace, and the disk they are true of.
#[derive(Debug, Default, Clone, PartialEq, bincode::Encode, bincode::Decode)]
pub struct Published {
    /// The roots of the apps the walk found.
    pub apps: Vec<String>,
    /// Every folder, ignore file and indexed file read, with its status then (never `0`).
    pub read: Vec<(String, u64)>,
    /// Every indexed file: the hash of its text (`FileFacts::text_hash`) and its complete
    /// diagnostics (before the editor's settings pick which to show).
    pub files: Vec<(String, u64, Vec<Diagnostic>)>,
}

impl Published {
    /// What to keep: the apps' roots, what was read with the status that vouched for it, and each
    /// file's text hash and diagnostics; `None` when anything read has no status that vouches (`0`)
    /// or a path is not UTF-8.
    pub fn new<'a>(
        apps: impl IntoIterator<Item = &'a Path>,
        read: impl IntoIterator<Item = (PathBuf, u64)>,
        files: impl IntoIterator<Item = (&'a Path, u64, Vec<Diagnostic>)>,
    ) -> Option<Published> {
        let text = |path: &Path| path.to_str().map(str::to_owned);
        Some(Published {
            apps: apps.into_iter().map(text).collect::<Option<_>>()?,
            read: read.into_iter().map(|(path, status)| Some((text(&path)?, status)).filter(|_| status != 0)).collect::<Option<_>>()?,
            files: files.into_iter().map(|(path, hash, found)| Some((text(path)?, hash, found))).collect::<Option<_>>()?,
        })
    }
}

/// The status of the file at `path` as of `now`, when it vouches for a text hashing to `text_hash`:
/// it has settled, and reading it gives that text.
pub fn status_of_text(path: &Path, text_hash: u64, now: std::time::SystemTime) -> Option<u64> {
    let status = crate::files::status(&std::fs::metadata(path).ok()?, now);
    let text = crate::files::read_source(path)?;
    (status != 0 && crate::rails::text_hash(&text) == text_hash).then_some(status)
}

/// A `Published` that still holds, by path: the text hash and the diagnostics of every file.
#[derive(Debug, Default)]
pub struct Holding {
    pub apps: Vec<PathBuf>,
    pub files: HashMap<PathBuf, (u64, Vec<Diagnostic>)>,
}

impl Holding {
    /// The diagnostics of the file at `path` when `text_hash` is the text they were worked out from.
    pub fn diagnostics(&self, path: &Path, text_hash: u64) -> Option<&[Diagnostic]> {
        self.files.get(path).filter(|(hash, _)| *hash == text_hash && text_hash != 0).map(|(_, d)| d.as_slice())
    }

    /// Whether an open document's text (by its hash) is what the diagnostics assumed: a document
    /// outside every app does not matter; one in an app must be a file they knew, with that text.
    pub fn agrees_with(&self, path: &Path, text_hash: u64) -> bool {
        !self.apps.iter().any(|root| path.starts_with(root)) || self.diagnostics(path, text_hash).is_some()
    }
}

/// Who keeps them: the server's and `--check`'s work out each file's diagnostics along their own
/// paths, so neither reads the other's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keeper {
    Server,
    Check,
}

fn file(cache: &Cache, keeper: Keeper, folders: &[PathBuf]) -> PathBuf {
    let mut folders = folders.to_vec();
    folders.sort();
    cache.file_named(&folders, if keeper == Keeper::Server { "published" } else { "checked" })
}

/// What a kept file is of: its folders, sorted, one per line.
fn scope(folders: &[PathBuf]) -> String {
    let mut folders: Vec<String> = folders.iter().map(|f| f.to_string_lossy().into_owned()).collect();
    folders.sort();
    folders.join("\n")
}

/// The body of a kept-findings file, decoded (for the fuzz target).
pub fn decode_body(body: &[u8]) -> Result<Published, String> {
    cache::decode_whole(body)
}

/// Writes what `published` says of `folders`; `false` (logged) when it could not.
pub fn save(cache: &Cache, keeper: Keeper, folders: &[PathBuf], published: &Published) -> bool {
    let file = file(cache, keeper, folders);
    let written = cache::stamped(MAGIC, &scope(folders), published)
        .map_err(|e| e.to_string())
        .and_then(|bytes| cache.write(&file, &bytes).map_err(|e| e.to_string()));
    if let Err(error) = &written {
        tracing::warn!("last diagnostics {} not written: {error}", file.display());
    }
    written.is_ok()
}

/// What the last session published of `folders`, when it still holds: `None` when there is none,
/// it cannot be read, or anything it was worked out from has changed (each said in the log).
pub fn load(cache: &Cache, keeper: Keeper, folders: &[PathBuf]) -> Option<Holding> {
    load_at(cache, keeper, folders, std::time::SystemTime::now())
}

/// `load`, with statuses taken as at `now`.
fn load_at(cache: &Cache, keeper: Keeper, folders: &[PathBuf], now: std::time::SystemTime) -> Option<Holding> {
    let file = file(cache, keeper, folders);
    let bytes = cache::read_cache_file(&file, "last diagnostics")?;
    let published: Published = match cache::unstamped(MAGIC, &scope(folders), &bytes).and_then(cache::decode_whole) {
        Ok(published) => published,
        Err(why) => {
            tracing::info!("last diagnostics {} not used ({why})", file.display());
            return None;
        }
    };
    let changed = published.read.par_iter().find_any(|(path, status)| {
        *status == 0 || std::fs::metadata(path).map_or(true, |metadata| crate::files::status(&metadata, now) != *status)
    });
    if let Some((path, _)) = changed {
        tracing::debug!("last diagnostics not used: {path} changed");
        return None;
    }
    Some(Holding {
        apps: published.apps.into_iter().map(PathBuf::from).collect(),
        files: published.files.into_iter().map(|(path, hash, diagnostics)| (PathBuf::from(path), (hash, diagnostics))).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn last_diagnostics_hold_only_while_everything_they_read_is_unchanged() {
        let dir = std::env::temp_dir().join(format!("switchyard-published-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("cache")).unwrap();
        std::fs::create_dir_all(dir.join("app")).unwrap();
        let model = dir.join("app/post.rb");
        std::fs::write(&model, "class Post\nend\n").unwrap();
        let cache = Cache::at(dir.join("cache"));
        let folders = vec![dir.clone()];
        let diagnostic = Diagnostic {
            span: crate::syntax::Span::default(),
            severity: crate::diagnostic::Severity::Warning,
            rule: crate::diagnostic::rule::UNUSED_SUPPRESSION,
            message: "m".to_owned(),
        };
        // Statuses are taken as if an hour from now, when what was just written has settled.
        let later = SystemTime::now() + Duration::from_secs(3600);
        let status = |path: &Path| crate::files::status(&std::fs::metadata(path).unwrap(), later);
        let published = |read: Vec<(String, u64)>| Published {
            apps: vec![dir.display().to_string()],
            read,
            files: vec![(model.display().to_string(), 7, vec![diagnostic.clone()])],
        };
        let read =
            || vec![(dir.join("app").display().to_string(), status(&dir.join("app"))), (model.display().to_string(), status(&model))];
        assert!(save(&cache, Keeper::Server, &folders, &published(read())));
        let holding = load_at(&cache, Keeper::Server, &folders, later).expect("nothing changed");
        assert_eq!(holding.diagnostics(&model, 7), Some(&[diagnostic.clone()][..]));
        assert_eq!(holding.diagnostics(&model, 8), None, "another text: not these diagnostics");
        assert!(holding.agrees_with(&model, 7));
        assert!(!holding.agrees_with(&model, 8));
        assert!(!holding.agrees_with(&dir.join("app/new.rb"), 1), "a document the last session did not index");
        // Copied under another workspace's name, it is not that workspace's.
        let elsewhere = vec![dir.join("elsewhere")];
        std::fs::copy(file(&cache, Keeper::Server, &folders), file(&cache, Keeper::Server, &elsewhere)).unwrap();
        assert!(load_at(&cache, Keeper::Server, &elsewhere, later).is_none());
        assert!(holding.agrees_with(Path::new("/elsewhere/gem.rb"), 1), "outside every app");
        assert!(
            load_at(&cache, Keeper::Server, &folders, SystemTime::now()).is_none(),
            "a file changed within the last seconds vouches for nothing"
        );
        let kept =
            |status: u64| Published::new([dir.as_path()], [(model.clone(), status)], [(model.as_path(), 7, vec![diagnostic.clone()])]);
        assert_eq!(kept(status(&model)), Some(published(vec![(model.display().to_string(), status(&model))])));
        assert_eq!(kept(0), None, "a status that vouches for nothing is never kept");
        assert!(save(&cache, Keeper::Server, &folders, &published(vec![(model.display().to_string(), 0)])));
        assert!(load_at(&cache, Keeper::Server, &folders, later).is_none(), "nothing vouched for it");

        // A file changed, or one added to a folder read: the diagnostics no longer hold.
        assert!(save(&cache, Keeper::Server, &folders, &published(read())));
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&model, "class Post < ApplicationRecord\nend\n").unwrap();
        assert!(load_at(&cache, Keeper::Server, &folders, later).is_none(), "a file changed");
        assert!(save(&cache, Keeper::Server, &folders, &published(read())));
        assert!(load_at(&cache, Keeper::Server, &folders, later).is_some());
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(dir.join("app/comment.rb"), "class Comment\nend\n").unwrap();
        assert!(load_at(&cache, Keeper::Server, &folders, later).is_none(), "a file added");

        // A truncated file, or another kind's, is not read.
        assert!(save(&cache, Keeper::Server, &folders, &published(read())));
        assert!(load_at(&cache, Keeper::Check, &folders, later).is_none(), "--check keeps its own");
        let file = file(&cache, Keeper::Server, &folders);
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
        assert!(load_at(&cache, Keeper::Server, &folders, later).is_none());
        std::fs::write(&file, [&b"SWYDIDX2"[..], &bytes[8..]].concat()).unwrap();
        assert!(load_at(&cache, Keeper::Server, &folders, later).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

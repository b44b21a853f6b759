//! The persisted index: each file's facts (a pure function of its path in its app and its text) from
//! the last run, so a restart or a second `--check` parses only what changed.
//!
//! One file per app, `<cache dir>/switchyard/index/<hash of the app root>.bin`: a header (a magic
//! number and the build's stamp: the version and a hash of the sources, so facts another build wrote
//! are never read) and, per source file, its relative path, size, a hash of its content and its
//! facts, in bincode's own encoding (bincode 2.0's derive, which leaves the serde
//! attributes that shape the JSON dump alone; compact, and decoded without a schema). An entry is
//! used unread when the file's status is the one it was read with (size, modification and change
//! times, inode: what git's index compares), else when its size and content hash match (a fresh CI
//! checkout, whose files all have new times, keeps its cache). A status is trusted only when the file
//! was last changed well before it was read, so a change in the same clock tick is never missed. A
//! cache that is missing, truncated, corrupt or from another build is ignored (said once in the log)
//! and written anew; writes go to a temporary file renamed into place, so two writers (an editor and a
//! CI run) never leave half a file.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::rails::FileFacts;

const MAGIC: &[u8; 8] = b"SWYDIDX2";

/// The build's stamp: a cache is read only by a build of the same sources (`build.rs` hashes them).
const STAMP: &str = concat!(env!("CARGO_PKG_VERSION"), " ", env!("SWITCHYARD_BUILD_ID"));

/// What identifies a file's content: its size and a hash of its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub struct Fingerprint {
    pub size: u64,
    pub hash: u64,
}

impl Fingerprint {
    pub fn of(bytes: &[u8]) -> Fingerprint {
        Fingerprint { size: bytes.len() as u64, hash: crate::files::content_hash(bytes) }
    }
}

fn nanos(time: std::time::SystemTime) -> u32 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos())
}

/// One file, as written: its facts are encoded on their own, so they are decoded only when the file
/// is unchanged, in the cold index's parallel pass. Read back as an `EntryRef`.
#[derive(bincode::Encode)]
struct Entry<'a> {
    relative: &'a str,
    fingerprint: Fingerprint,
    /// The file's `status` when it was read (`0`: none to trust).
    status: u64,
    facts: &'a [u8],
}

/// An `Entry` as read: borrowed from the cache file's bytes (bincode reads a borrowed byte slice in
/// one copy, a `Vec<u8>` byte by byte), the same encoding.
#[derive(bincode::BorrowDecode)]
struct EntryRef<'a> {
    relative: &'a str,
    fingerprint: Fingerprint,
    status: u64,
    facts: &'a [u8],
}

/// A file's facts as encoded: a range of the cache file's bytes, shared by all its files (read once,
/// never copied per file), or encoded afresh.
#[derive(Clone)]
pub struct Encoded {
    bytes: std::sync::Arc<Vec<u8>>,
    range: std::ops::Range<usize>,
}

impl Encoded {
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[self.range.clone()]
    }
}

impl From<Vec<u8>> for Encoded {
    fn from(bytes: Vec<u8>) -> Encoded {
        let range = 0..bytes.len();
        Encoded { bytes: std::sync::Arc::new(bytes), range }
    }
}

/// A file's cached facts, still encoded, with what they were read from.
pub struct Cached {
    pub fingerprint: Fingerprint,
    pub status: u64,
    pub facts: Encoded,
}

/// A file to write: its facts as encoded when they came from the cache, or to encode.
pub struct ToSave {
    pub relative: String,
    pub fingerprint: Fingerprint,
    pub status: u64,
    pub facts: std::sync::Arc<FileFacts>,
    pub encoded: Option<Encoded>,
}

/// Decoding never allocates more than this for one read (a corrupt length is an error, not a crash).
fn reading() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ 1 << 31 }>()
}

/// The facts of one cached entry, or `None` when they do not decode.
pub fn decode_facts(bytes: &[u8]) -> Option<FileFacts> {
    match bincode::decode_from_slice::<FileFacts, _>(bytes, reading()) {
        Ok((facts, read)) if read == bytes.len() => Some(facts),
        _ => None,
    }
}

/// Where apps' caches live.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    /// Named by the user (`--cache-dir`, `SWITCHYARD_CACHE_DIR`), not Switchyard's own folder.
    named: bool,
}

/// The process's choice (`configure`, from the command line): `None` until made, and for `--no-cache`.
static CONFIGURED: std::sync::OnceLock<Option<Cache>> = std::sync::OnceLock::new();

/// Sets the cache the CLI and the server use: off, a directory, or the default location.
pub fn configure(off: bool, dir: Option<PathBuf>) {
    let choice = if off { None } else { dir.map(Cache::at).or_else(Cache::default_location) };
    let _ = CONFIGURED.set(choice);
}

/// Where the server writes the rule pages its diagnostics link to (`rule_docs::write_pages`): beside
/// the configured cache, per version (in Switchyard's private cache folder unless a cache directory was
/// named); `None` with no cache (`--no-cache`): nothing is written, and diagnostics carry no links.
pub fn rule_pages_dir() -> Option<PathBuf> {
    let cache = configured()?;
    let version = concat!("rules-", env!("CARGO_PKG_VERSION"));
    if cache.named {
        return Some(cache.dir.join(version));
    }
    crate::files::switchyard_cache_dir(Path::new(version)).inspect_err(|why| tracing::warn!("no rule pages: {why}")).ok()
}

/// The configured cache (none unless `configure` chose one: tests that index in-process write nothing).
pub fn configured() -> Option<Cache> {
    CONFIGURED.get().cloned().flatten()
}

impl Cache {
    /// `SWITCHYARD_CACHE_DIR`, else `index` in Switchyard's folder of the user's cache folder, made
    /// private to the user (`files::switchyard_cache_dir`); `None` (no cache, with a warning) when that
    /// folder cannot be made or belongs to someone else.
    pub fn default_location() -> Option<Cache> {
        if let Some(dir) = std::env::var_os("SWITCHYARD_CACHE_DIR").map(PathBuf::from).filter(|p| p.is_absolute()) {
            return Some(Cache::at(dir));
        }
        match crate::files::switchyard_cache_dir(Path::new("index")) {
            Ok(dir) => Some(Cache { dir, named: false }),
            Err(why) => {
                tracing::warn!("the index is not kept between runs: {why}");
                None
            }
        }
    }

    /// The cache in `dir`, a folder the user named.
    pub fn at(dir: PathBuf) -> Cache {
        Cache { dir, named: true }
    }

    fn file_for(&self, root: &Path) -> PathBuf {
        self.file_named(root, "bin")
    }

    /// The cache's file for what `key` names, with `extension`.
    pub(super) fn file_named(&self, key: &(impl Hash + ?Sized), extension: &str) -> PathBuf {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut hasher);
        self.dir.join(format!("{:016x}.{extension}", hasher.finish()))
    }

    /// Writes `bytes` to `file` through a temporary file renamed into place: a reader sees the old
    /// file or the new one, never half of one.
    pub(super) fn write(&self, file: &Path, bytes: &[u8]) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let nonce = nanos(std::time::SystemTime::now());
        let temporary = file.with_extension(format!("tmp.{}.{nonce}", std::process::id()));
        // A failed write or rename (a full disk) leaves nothing behind.
        std::fs::write(&temporary, bytes).and_then(|()| std::fs::rename(&temporary, file)).inspect_err(|_| {
            let _ = std::fs::remove_file(&temporary);
        })
    }

    /// The app's cached facts by relative path (empty when there is no usable cache).
    pub fn load(&self, root: &Path) -> HashMap<String, Cached> {
        let file = self.file_for(root);
        let Some(bytes) = read_cache_file(&file, "index cache") else { return HashMap::new() };
        let start = bytes.as_ptr() as usize;
        let read = decode_entries(&root.to_string_lossy(), &bytes).map(|entries| {
            // Where each file's facts are in `bytes` (an offset: the slices borrow what is shared next).
            let at = |facts: &[u8]| facts.as_ptr() as usize - start..facts.as_ptr() as usize - start + facts.len();
            entries.into_iter().map(|e| (e.relative.to_owned(), e.fingerprint, e.status, at(e.facts))).collect::<Vec<_>>()
        });
        match read {
            Ok(entries) => {
                let bytes = std::sync::Arc::new(bytes);
                let facts = |range| Encoded { bytes: std::sync::Arc::clone(&bytes), range };
                entries
                    .into_iter()
                    .map(|(relative, fingerprint, status, range)| (relative, Cached { fingerprint, status, facts: facts(range) }))
                    .collect()
            }
            Err(why) => {
                tracing::info!("index cache {} not used ({why}): the app is indexed afresh", file.display());
                HashMap::new()
            }
        }
    }

    /// Writes the app's cache: every file's facts read from disk with the fingerprint they were read at.
    pub fn save(&self, root: &Path, files: Vec<ToSave>) {
        use rayon::prelude::*;
        let file = self.file_for(root);
        let encoded: Result<Vec<(ToSave, Encoded)>, _> = files
            .into_par_iter()
            .map(|mut f| {
                let facts = match f.encoded.take() {
                    Some(encoded) => encoded,
                    None => bincode::encode_to_vec(&*f.facts, bincode::config::standard())?.into(),
                };
                Ok::<_, bincode::error::EncodeError>((f, facts))
            })
            .collect();
        let bytes = encoded.and_then(|encoded| {
            let entries: Vec<Entry<'_>> = encoded
                .iter()
                .map(|(f, facts)| Entry { relative: &f.relative, fingerprint: f.fingerprint, status: f.status, facts: facts.as_slice() })
                .collect();
            stamped(MAGIC, &root.to_string_lossy(), &entries)
        });
        let Ok(bytes) = bytes else {
            tracing::warn!("index cache for {} not written: its facts did not encode", root.display());
            return;
        };
        if let Err(error) = self.write(&file, &bytes) {
            tracing::warn!("index cache {} not written: {error}", file.display());
        }
    }
}

/// `body` encoded after `magic` and the build's stamp.
pub(super) fn stamped(magic: &[u8; 8], scope: &str, body: &impl bincode::Encode) -> Result<Vec<u8>, bincode::error::EncodeError> {
    let encoded = bincode::encode_to_vec(body, bincode::config::standard())?;
    let mut bytes = magic.to_vec();
    let header = Header { stamp: STAMP, scope, checksum: crate::files::content_hash(&encoded) };
    bincode::encode_into_std_write(header, &mut bytes, bincode::config::standard())?;
    bytes.extend_from_slice(&encoded);
    Ok(bytes)
}

/// What a cache file says of itself before its body: the build that wrote it, what it is of (an app's
/// root, a set of folders: a file copied under another's name is not read as that one's), and a hash
/// of the body (a flipped byte that still decodes is not read as facts).
#[derive(bincode::Encode, bincode::BorrowDecode)]
struct Header<'a> {
    stamp: &'a str,
    scope: &'a str,
    checksum: u64,
}

/// The body that follows `magic` and this build's header of `scope` in `bytes`, or why there is none.
pub fn unstamped<'a>(magic: &[u8; 8], scope: &str, bytes: &'a [u8]) -> Result<&'a [u8], String> {
    let rest = bytes.strip_prefix(magic.as_slice()).ok_or("not a Switchyard cache file of this kind")?;
    let (header, used): (Header<'_>, usize) =
        bincode::borrow_decode_from_slice(rest, reading()).map_err(|e| format!("unreadable header: {e}"))?;
    if header.stamp != STAMP {
        return Err(format!("written by another build ({})", header.stamp));
    }
    if header.scope != scope {
        return Err(format!("written for {}, not {scope}", header.scope));
    }
    let body = &rest[used..];
    if crate::files::content_hash(body) != header.checksum {
        return Err("its content is not what was written (a damaged file)".to_owned());
    }
    Ok(body)
}

/// The largest cache file read (a bigger one is not this build's).
const CACHE_FILE_LIMIT: u64 = 1 << 30;

/// A cache file's bytes: a regular file, at most `CACHE_FILE_LIMIT` (a FIFO planted in its place is
/// refused, not waited on). `None` when there is none, or (said in the log as `what`'s) none to read.
pub(super) fn read_cache_file(file: &Path, what: &str) -> Option<Vec<u8>> {
    match crate::files::read_regular(file, None, CACHE_FILE_LIMIT) {
        Ok(bytes) => Some(bytes),
        Err(crate::files::Refusal::Io(std::io::ErrorKind::NotFound, _)) => None,
        Err(refusal) => {
            tracing::warn!("{what} {} not read: {refusal}", file.display());
            None
        }
    }
}

/// A whole body, decoded (borrowing from `bytes`); trailing bytes are an error.
pub(super) fn decode_whole<'a, T: bincode::BorrowDecode<'a, ()>>(bytes: &'a [u8]) -> Result<T, String> {
    let (decoded, read): (T, usize) = bincode::borrow_decode_from_slice(bytes, reading()).map_err(|e| format!("unreadable: {e}"))?;
    if read != bytes.len() {
        return Err("trailing bytes".to_owned());
    }
    Ok(decoded)
}

/// The body of an app's cache file, as the cold index reads it: its entries, and each one's facts
/// (`None` where they do not decode). For the fuzz target: no bytes may panic it or make it allocate
/// past `reading`'s limit.
pub fn decode_body(body: &[u8]) -> Result<Vec<(String, Option<FileFacts>)>, String> {
    let entries: Vec<EntryRef<'_>> = decode_whole(body)?;
    Ok(entries.into_iter().map(|e| (e.relative.to_owned(), decode_facts(e.facts))).collect())
}

fn decode_entries<'a>(root: &str, bytes: &'a [u8]) -> Result<Vec<EntryRef<'a>>, String> {
    decode_whole(unstamped(MAGIC, root, bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache file is read only as what it was written for: copied under another app's name, with a
    /// byte flipped, or replaced by a FIFO, it is not used (and nothing waits); a write that fails leaves
    /// no temporary file behind.
    #[test]
    fn a_cache_file_is_used_only_for_its_app_and_as_written() {
        let dir = std::env::temp_dir().join(format!("switchyard-cache-scope-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = Cache::at(dir.clone());
        let (shop, blog) = (Path::new("/apps/shop"), Path::new("/apps/blog"));
        let text = "class Post < ApplicationRecord\nend\n";
        let parsed = crate::syntax::ParsedFile::parse(crate::syntax::Language::Ruby, text);
        let facts = crate::rails::extract(shop.join("app/models/post.rb"), "app/models/post.rb".into(), None, text, &parsed);
        let save = || ToSave {
            relative: "app/models/post.rb".into(),
            fingerprint: Fingerprint::of(text.as_bytes()),
            status: 1,
            facts: std::sync::Arc::new(facts.clone()),
            encoded: None,
        };
        cache.save(shop, vec![save()]);
        assert_eq!(cache.load(shop).len(), 1);
        std::fs::copy(cache.file_for(shop), cache.file_for(blog)).unwrap();
        assert!(cache.load(blog).is_empty(), "a copy under another app's name");
        let mut bytes = std::fs::read(cache.file_for(shop)).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x01;
        std::fs::write(cache.file_for(shop), &bytes).unwrap();
        assert!(cache.load(shop).is_empty(), "a flipped byte");
        std::fs::remove_file(cache.file_for(shop)).unwrap();
        let fifo = std::ffi::CString::new(cache.file_for(shop).to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(cache.load(shop).is_empty(), "a FIFO");
        // A folder where the file goes: the rename fails, and the temporary file is removed.
        std::fs::remove_file(cache.file_for(shop)).unwrap();
        std::fs::create_dir(cache.file_for(shop)).unwrap();
        cache.save(shop, vec![save()]);
        let left: Vec<_> =
            std::fs::read_dir(&dir).unwrap().filter_map(Result::ok).filter(|e| e.file_name().to_string_lossy().contains(".tmp.")).collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

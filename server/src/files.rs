//! Reading a file of the workspace from disk, as a repository may hold anything: only regular files
//! (a FIFO, a device such as `/dev/zero` or `/dev/stdin`, a socket is never opened for reading, so
//! nothing blocks or grows without end), never more than a limit, and through a symbolic link only
//! when it resolves inside the folder given (git commits symlinks).
//!
//! It does not decide what a caller does with a file it refuses: the index reports it as a
//! `switchyard.skipped-file` finding, the settings file as a settings error.

use std::io::Read;
use std::path::Path;

/// The largest source file read, the longest text parsed (the largest file of five public Rails
/// apps is 0.3 MB; a `db/structure.sql` of a large app about 2 MB).
pub const MAX_SOURCE: u64 = crate::syntax::parse::MAX_PARSED as u64;

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The file could not be opened or read (it does not exist, permissions…).
    Io(std::io::ErrorKind, String),
    /// Not read on purpose: the text says why ("a FIFO, not a regular file").
    Skipped(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Io(_, error) | Refusal::Skipped(error) => f.write_str(error),
        }
    }
}

/// An open regular file and its metadata (from the open file, so it is the file that was checked).
pub struct Opened {
    pub file: std::fs::File,
    pub metadata: std::fs::Metadata,
}

/// Opens `path` if it is a regular file of at most `limit` bytes inside `inside` (when given; only
/// a symbolic link is resolved to check it).
pub fn open_regular(path: &Path, inside: Option<&Path>, limit: u64) -> Result<Opened, Refusal> {
    let io = |e: std::io::Error| Refusal::Io(e.kind(), e.to_string());
    let link = std::fs::symlink_metadata(path).map_err(io)?;
    if link.file_type().is_symlink() {
        let Ok(target) = std::fs::canonicalize(path) else {
            let named = std::fs::read_link(path).map(|to| to.display().to_string()).unwrap_or_default();
            return Err(Refusal::Skipped(format!("a symbolic link to {named}, which leads to no file")));
        };
        let contained = inside.is_none_or(|root| std::fs::canonicalize(root).is_ok_and(|root| target.starts_with(root)));
        if !contained {
            return Err(Refusal::Skipped(format!("a symbolic link to {}, outside the app", target.display())));
        }
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Opening a FIFO for reading waits for a writer; without blocking it returns at once and is
    // refused below by its type.
    #[cfg(target_os = "linux")]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    #[cfg(not(target_os = "linux"))]
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(Refusal::Skipped("not a regular file".to_string()));
    }
    let file = options.open(path).map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(Refusal::Skipped(format!("{}, not a regular file", file_type_name(&metadata))));
    }
    if metadata.len() > limit {
        return Err(Refusal::Skipped(too_large(metadata.len(), limit)));
    }
    Ok(Opened { file, metadata })
}

/// A hash of a file's content, to tell one text from another (`FileFacts::text_hash`, the persisted
/// index's fingerprints): foldhash takes the bytes a word and more at a time, where the standard
/// library's SipHash was a fortieth of a warm `--check`. Like the cache, it holds within one build.
pub fn content_hash(bytes: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x5357_4954_4348_5944).hash_one(bytes)
}

/// Reads what `open_regular` opened, stopping past `limit` (a file may grow while it is read).
pub fn read_opened(opened: Opened, limit: u64) -> Result<Vec<u8>, Refusal> {
    let mut bytes = Vec::with_capacity(opened.metadata.len() as usize + 1);
    opened.file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| Refusal::Io(e.kind(), e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(Refusal::Skipped(too_large(bytes.len() as u64, limit)));
    }
    Ok(bytes)
}

/// Whether `path`, every symbolic link in it resolved, is inside `root` (for paths a client names;
/// the walk of the workspace follows no link to a folder).
pub fn resolves_inside(path: &Path, root: &Path) -> bool {
    match (std::fs::canonicalize(path), std::fs::canonicalize(root)) {
        (Ok(path), Ok(root)) => path.starts_with(root),
        _ => false,
    }
}

/// `base/relative` as a folder only this user can use, for output other users must neither read
/// nor plant (the compiler's emitted tree, which is served as the exact preview): each folder from
/// `relative`'s first component down is created `0700` where missing, and refused when it is a
/// symbolic link or owned by another user; one of ours open to others is closed to them.
pub fn private_dir(base: &Path, relative: &Path) -> Result<std::path::PathBuf, String> {
    std::fs::create_dir_all(base).map_err(|e| format!("cannot create {}: {e}", base.display()))?;
    let mut path = base.to_path_buf();
    for component in relative.components() {
        path.push(component);
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
        }
        let metadata = std::fs::symlink_metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !metadata.file_type().is_dir() {
            return Err(format!("{} is not a folder (a symbolic link?); refused", path.display()));
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::{MetadataExt, PermissionsExt};
            if metadata.uid() != unsafe { libc::geteuid() } {
                return Err(format!("{} belongs to another user; refused", path.display()));
            }
            if metadata.mode() & 0o077 != 0 {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))
                    .map_err(|e| format!("cannot restrict {}: {e}", path.display()))?;
            }
        }
    }
    Ok(path)
}

/// `relative` under Switchyard's folder in the user's cache folder (`$XDG_CACHE_HOME/switchyard`,
/// else `~/.cache/switchyard`, else `switchyard-<uid>` in the temporary folder), made a folder only
/// this user can use (`private_dir`). Under the shared temporary folder every folder from
/// `switchyard-<uid>` down is checked: another user who made it first would read what is kept there,
/// or plant what it reads.
pub fn switchyard_cache_dir(relative: &Path) -> Result<std::path::PathBuf, String> {
    let home = std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").filter(|home| !home.is_empty()).map(|home| std::path::PathBuf::from(home).join(".cache")));
    match home {
        Some(home) => private_dir(&home, &Path::new("switchyard").join(relative)),
        None => {
            #[cfg(target_os = "linux")]
            let user = unsafe { libc::geteuid() }.to_string();
            #[cfg(not(target_os = "linux"))]
            let user = std::env::var("USER").unwrap_or_default();
            private_dir(&std::env::temp_dir(), &Path::new(&format!("switchyard-{user}")).join(relative))
        }
    }
}

/// The text of a file the index read, read again (a quick fix's, a preview's, a kept finding's): as
/// the index reads it (a regular file, at most `MAX_SOURCE`), `None` when it no longer is one.
pub fn read_source(path: &Path) -> Option<String> {
    read_regular_text(path, None, MAX_SOURCE).ok().flatten()
}

/// `open_regular` and `read_opened` in one.
pub fn read_regular(path: &Path, inside: Option<&Path>, limit: u64) -> Result<Vec<u8>, Refusal> {
    read_opened(open_regular(path, inside, limit)?, limit)
}

/// As `read_regular`, as UTF-8 text (`None` when it is not).
pub fn read_regular_text(path: &Path, inside: Option<&Path>, limit: u64) -> Result<Option<String>, Refusal> {
    read_regular(path, inside, limit).map(|bytes| String::from_utf8(bytes).ok())
}

/// `1234` → `1,234`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How a text over the limit is said, wherever it is refused.
pub fn too_large(len: u64, limit: u64) -> String {
    format!("{:.1} MB, over the {} MB Switchyard reads", len as f64 / 1e6, limit / 1_000_000)
}

fn file_type_name(metadata: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = metadata.file_type();
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if metadata.is_dir() { "a folder" } else { "a special file" }
}

/// How long before it is read a file must have last changed for its status to vouch for its content:
/// longer than any file system's timestamp granularity (FAT's is two seconds).
const SETTLED: std::time::Duration = std::time::Duration::from_secs(3);

/// A file's status as one number (size, modification and change times, inode), when it can vouch for
/// the content read at `read_at`: `0` when the file changed too recently (a second write within the
/// same tick would leave the same status) or its times cannot be read.
pub fn status(metadata: &std::fs::Metadata, read_at: std::time::SystemTime) -> u64 {
    let Ok(modified) = metadata.modified() else { return 0 };
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    metadata.len().hash(&mut hasher);
    modified.hash(&mut hasher);
    // The later of the modification and the change time (unix; elsewhere the modification time).
    #[cfg(unix)]
    let last_change = {
        use std::os::unix::fs::MetadataExt;
        (metadata.ino(), metadata.dev(), metadata.ctime(), metadata.ctime_nsec()).hash(&mut hasher);
        let changed = std::time::UNIX_EPOCH
            + std::time::Duration::new(metadata.ctime().max(0) as u64, metadata.ctime_nsec().clamp(0, 999_999_999) as u32);
        modified.max(changed)
    };
    #[cfg(not(unix))]
    let last_change = modified;
    match read_at.duration_since(last_change) {
        Ok(age) if age >= SETTLED => hasher.finish().max(1),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("switchyard-files-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn skipped(result: Result<Vec<u8>, Refusal>) -> String {
        match result {
            Err(Refusal::Skipped(why)) => why,
            other => panic!("expected a skip, got {other:?}"),
        }
    }

    #[test]
    fn a_private_folder_is_created_closed_and_a_planted_link_or_foreign_folder_refused() {
        use std::os::unix::fs::PermissionsExt;
        let base = scratch("private");
        let made = private_dir(&base, Path::new("switchyard/roundhouse/abc/ruby")).unwrap();
        for folder in ["switchyard", "switchyard/roundhouse", "switchyard/roundhouse/abc", "switchyard/roundhouse/abc/ruby"] {
            let mode = std::fs::metadata(base.join(folder)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{folder}");
        }
        assert_eq!(made, base.join("switchyard/roundhouse/abc/ruby"));
        // One of ours left open by an earlier version is closed.
        std::fs::set_permissions(&made, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&base, Path::new("switchyard/roundhouse/abc/ruby")).unwrap();
        assert_eq!(std::fs::metadata(&made).unwrap().permissions().mode() & 0o777, 0o700);
        // A symbolic link planted where a folder goes is refused, not followed.
        let elsewhere = scratch("planted-target");
        std::os::unix::fs::symlink(&elsewhere, base.join("switchyard/roundhouse/planted")).unwrap();
        let refused = private_dir(&base, Path::new("switchyard/roundhouse/planted/ruby")).unwrap_err();
        assert!(refused.contains("symbolic link"), "{refused}");
        assert!(!elsewhere.join("ruby").exists());
        // A folder of another user's (root's /, seen from here, when the tests run unprivileged;
        // as root every folder is ours, so the ownership check shows only with another user).
        if unsafe { libc::geteuid() } != 0 {
            assert!(private_dir(Path::new("/"), Path::new("tmp")).unwrap_err().contains("another user"));
        }
    }

    #[test]
    fn only_regular_files_inside_the_folder_and_under_the_limit_are_read() {
        let app = scratch("app");
        let outside = scratch("outside");
        std::fs::write(app.join("post.rb"), "class Post; end\n").unwrap();
        std::fs::write(outside.join("secret.rb"), "SECRET = 1\n").unwrap();
        assert_eq!(read_regular(&app.join("post.rb"), Some(&app), MAX_SOURCE).unwrap(), b"class Post; end\n");

        std::os::unix::fs::symlink(app.join("post.rb"), app.join("alias.rb")).unwrap();
        assert!(read_regular(&app.join("alias.rb"), Some(&app), MAX_SOURCE).is_ok());
        std::os::unix::fs::symlink(outside.join("secret.rb"), app.join("secret.rb")).unwrap();
        assert!(skipped(read_regular(&app.join("secret.rb"), Some(&app), MAX_SOURCE)).contains("outside the app"));

        for device in ["/dev/zero", "/dev/stdin"] {
            let link = app.join(format!("{}.rb", &device[5..]));
            std::os::unix::fs::symlink(device, &link).unwrap();
            assert!(skipped(read_regular(&link, None, MAX_SOURCE)).contains("not a regular file"), "{device}");
        }
        let fifo = app.join("fifo.rb");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        assert_eq!(skipped(read_regular(&fifo, Some(&app), MAX_SOURCE)), "a FIFO, not a regular file");

        std::fs::write(app.join("big.rb"), vec![b'#'; 2000]).unwrap();
        assert!(skipped(read_regular(&app.join("big.rb"), Some(&app), 1000)).starts_with("0.0 MB, over"));
        assert!(matches!(read_regular(&app.join("missing.rb"), Some(&app), 1000), Err(Refusal::Io(std::io::ErrorKind::NotFound, _))));
    }

    #[test]
    fn a_status_vouches_only_for_a_settled_file_and_changes_with_any_write() {
        let dir = std::env::temp_dir().join(format!("switchyard-status-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("post.rb");
        std::fs::write(&file, "class Post\nend\n").unwrap();
        let first = std::fs::metadata(&file).unwrap();
        let now = std::time::SystemTime::now();
        assert_eq!(status(&first, now), 0, "just written: its status vouches for nothing");
        let later = now + std::time::Duration::from_secs(60);
        let settled = status(&first, later);
        assert_ne!(settled, 0);
        assert_eq!(status(&std::fs::metadata(&file).unwrap(), later), settled, "untouched: the same status");
        // The same size, and the old modification time put back: the change time still tells.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&file, "class Page\nend\n").unwrap();
        std::fs::File::options().write(true).open(&file).unwrap().set_modified(first.modified().unwrap()).unwrap();
        let rewritten = std::fs::metadata(&file).unwrap();
        assert_eq!(rewritten.len(), first.len());
        assert_eq!(rewritten.modified().unwrap(), first.modified().unwrap());
        #[cfg(unix)]
        assert_ne!(status(&rewritten, later), settled, "a rewrite with the old time and size is seen");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

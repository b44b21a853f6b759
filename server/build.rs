//! The build's identity for the persisted index (`index::cache`): a hash of the sources and the
//! dependency lock, so a cache written by one build is read by any build of the same code (a CI run
//! that rebuilds the binary keeps its cache) and by no other.

use std::hash::{Hash, Hasher};
use std::path::Path;

fn main() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&manifest.join("src"), &mut files);
    files.push(manifest.join("Cargo.toml"));
    files.push(manifest.join("../Cargo.lock"));
    files.sort();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for file in &files {
        file.strip_prefix(manifest).unwrap_or(file).hash(&mut hasher);
        std::fs::read(file).unwrap_or_default().hash(&mut hasher);
    }
    println!("cargo:rustc-env=SWITCHYARD_BUILD_ID={:016x}", hasher.finish());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=../Cargo.lock");
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

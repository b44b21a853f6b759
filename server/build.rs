//! The build's identity for the persisted index (`index::cache`): a hash of the sources and the
//! dependency lock, so a cache written by one build is read by any build of the same code (a CI run
//! that rebuilds the binary keeps its cache) and by no other. And, in a release build, the layout of
//! the binary's code (`link-order.txt`).

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
    link_order(manifest);
}

/// A release build's code laid out by use: the functions in `link-order.txt` (the ones runs call, in
/// groups, written by `scripts/link-order.py`) come first, so a run touches fewer of the binary's
/// pages of code (BENCHMARKS.md). Only where the linker is known to be lld:
/// rustc's own for x86-64 Linux from 1.90, unless a linker is set by hand. A name the file lists that
/// the build no longer has is skipped; a function it does not list is laid out after.
fn link_order(manifest: &Path) {
    println!("cargo:rerun-if-changed=link-order.txt");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let order = manifest.join("link-order.txt");
    // Asking rustc its version last: a dev build's script runs at every source change.
    if var("PROFILE") == "release"
        && order.exists()
        && var("TARGET") == "x86_64-unknown-linux-gnu"
        && std::env::var_os("RUSTC_LINKER").is_none()
        && !var("CARGO_ENCODED_RUSTFLAGS").contains("link")
        && rustc_minor(&var("RUSTC")).is_some_and(|minor| minor >= 90)
    {
        println!("cargo:rustc-link-arg-bin=switchyard=-Wl,--symbol-ordering-file={}", order.display());
        println!("cargo:rustc-link-arg-bin=switchyard=-Wl,--no-warn-symbol-ordering");
    }
}

/// The `1.x` of `rustc -vV`'s `release: 1.x.y`.
fn rustc_minor(rustc: &str) -> Option<u32> {
    let output = std::process::Command::new(if rustc.is_empty() { "rustc" } else { rustc }).arg("-vV").output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let release = text.lines().find_map(|line| line.strip_prefix("release: "))?;
    release.split('.').nth(1)?.parse().ok()
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

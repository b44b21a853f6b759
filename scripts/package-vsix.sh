#!/usr/bin/env bash
# A platform-specific VS Code extension with the server inside, so users need no Rust:
#
#   cargo build --release && scripts/package-vsix.sh linux-x64
#   scripts/package-vsix.sh linux-x64 target/debug/switchyard    # any binary for that platform
#
# writes editors/vscode/dist/switchyard-TARGET.vsix. The extension runs the binary in its `server/`
# folder before looking on PATH. For another platform, build the server there (or cross-compile:
# `cargo build --release --target aarch64-apple-darwin`) and pass its binary and VS Code's name for
# the platform: win32-x64 (switchyard.exe), darwin-arm64, darwin-x64, linux-arm64, alpine-x64…
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: scripts/package-vsix.sh TARGET [BINARY]}"
binary="${2:-target/release/switchyard}"
[ -x "$binary" ] || { echo "no server binary at $binary (cargo build --release)" >&2; exit 2; }
name=switchyard
case "$target" in win32-*) name=switchyard.exe ;; esac
server="$PWD/editors/vscode/server"
rm -rf "$server"
mkdir -p "$server"
trap 'rm -rf "$server"' EXIT
cp "$binary" "$server/$name"
chmod 755 "$server/$name"
cd editors/vscode
npm run build --silent
npx vsce package --no-dependencies --allow-missing-repository --target "$target" --out "dist/switchyard-$target.vsix" </dev/null

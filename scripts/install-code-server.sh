#!/usr/bin/env bash
# VS Code's own server build (npm's code-server) for the tests in a real VS Code, and the Node it
# needs (24, from npm's `node` package), into PREFIX (default: $TMPDIR/switchyard-code-server).
# Idempotent. Needs Debian's libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config
# build-essential for its native modules (.ci/run installs them); about two minutes to build.
set -euo pipefail
prefix="${1:-${TMPDIR:-/tmp}/switchyard-code-server}"
version=4.139.1
# Written last, so an install that stopped halfway is made again.
done_marker="$prefix/installed-$version"
if [ -f "$done_marker" ]; then
  echo "$prefix"
  exit 0
fi
mkdir -p "$prefix/node" "$prefix/npm" "$prefix/code-server"
npm install --no-audit --no-fund --prefix "$prefix/node" node@24 >&2
export PATH="$prefix/node/node_modules/.bin:$PATH"
# npm 10, which runs the install scripts code-server's build is made of (npm 11 runs a dependency's
# only when a project allows it, and code-server's own install runs npm again in lib/vscode).
npm install --no-audit --no-fund --prefix "$prefix/npm" npm@10 >&2
export PATH="$prefix/npm/node_modules/.bin:$PATH"
npm install --no-audit --no-fund --prefix "$prefix/code-server" "code-server@$version" >&2
touch "$done_marker"
echo "$prefix"

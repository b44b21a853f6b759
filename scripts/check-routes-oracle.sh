#!/usr/bin/env bash
# Regenerates every expected route table under tests/fixtures/routes/ with Rails itself
# (scripts/rails-routes-oracle.rb, Debian's ruby-actionpack) and fails if any differs from the
# committed one. Run by .ci/run; `--write` rewrites the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for routes in tests/fixtures/routes/*.rb; do
  expected="${routes%.rb}.expected.txt"
  actual=$(ruby scripts/rails-routes-oracle.rb "$routes")
  if [ "${1:-}" = "--write" ]; then
    printf '%s\n' "$actual" > "$expected"
  elif ! diff -u "$expected" <(printf '%s\n' "$actual"); then
    echo "rails disagrees with $expected" >&2
    status=1
  fi
done
[ "$status" = 0 ] && echo "route tables: Rails agrees with every expected table"
exit "$status"

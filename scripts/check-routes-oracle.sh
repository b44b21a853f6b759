#!/usr/bin/env bash
# Regenerates every expected route table under tests/fixtures/routes/ with Rails itself
# (scripts/rails-routes-oracle.rb, Debian's ruby-actionpack) and fails if any differs from the
# committed one. Run by .ci/run; `--write` rewrites the files instead.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
# Corpus files, and the routes of the example app and of every fixture app (`broken` has none Rails
# can read: its routes file does not parse).
pairs=()
for routes in tests/fixtures/routes/*.rb; do
  pairs+=("$routes:${routes%.rb}.expected.txt")
done
for app in blog:examples/blog shop:tests/fixtures/apps/shop \
  storefront:tests/fixtures/apps/monorepo/apps/storefront backoffice:tests/fixtures/apps/monorepo/apps/backoffice \
  billing:tests/fixtures/apps/monorepo/engines/billing dummy:tests/fixtures/apps/monorepo/engines/billing/test/dummy; do
  pairs+=("${app#*:}/config/routes.rb:tests/fixtures/routes/apps/${app%%:*}.expected.txt")
done
# Compares (or with --write, rewrites) one expected file with what Rails printed.
compare() {
  local expected="$1" actual="$2"
  if [ "${mode:-}" = "--write" ]; then
    printf '%s\n' "$actual" > "$expected"
  elif ! diff -u "$expected" <(printf '%s\n' "$actual"); then
    echo "rails disagrees with $expected" >&2
    status=1
  fi
}
mode="${1:-}"
for pair in "${pairs[@]}"; do
  routes="${pair%%:*}"
  compare "${pair#*:}" "$(ruby scripts/rails-routes-oracle.rb "$routes")"
done
# An app whose routes call `devise_for`, drawn with Devise's own router from the app's models.
for app in devise:tests/fixtures/apps/devise; do
  compare "tests/fixtures/routes/apps/${app%%:*}.expected.txt" "$(ruby scripts/rails-routes-oracle.rb --app "${app#*:}")"
done
# The requirements and defaults of each route, as `--format json` gives them.
for routes in tests/fixtures/routes/requirements.rb; do
  compare "${routes%.rb}.expected.json" "$(ruby scripts/rails-routes-oracle.rb "$routes" --json)"
done
[ "$status" = 0 ] && echo "route tables: Rails agrees with every expected table"
exit "$status"

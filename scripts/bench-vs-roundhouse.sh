#!/usr/bin/env bash
# Side by side on real apps: the compiler's own whole-app pass against `switchyard --check`, cold
# (no persisted index) and warm (the index a first run wrote). Medians of three; time and peak RSS.
#
#   cargo build --release
#   scripts/bench-vs-roundhouse.sh ~/roundhouse APP...
#
# ROUNDHOUSE is a built checkout (target/release/roundhouse-check); each APP a Rails app's root.
set -euo pipefail
roundhouse=$1; shift
switchyard=$(cd "$(dirname "$0")/.." && pwd)/target/release/switchyard
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT

# Runs "$@" three times; prints the median seconds and the median peak RSS in MiB.
median3() {
  local runs=() out="$cache/time"
  for _ in 1 2 3; do
    /usr/bin/time -o "$out" -f "%e %M" "$@" >/dev/null 2>&1 || true
    runs+=("$(tail -1 "$out")")
  done
  printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p | awk '{printf "%.2f s %.1f MiB", $1, $2 / 1024}'
}

printf '| app | roundhouse-check --continue | cold | warm |\n|---|---|---|---|\n'
for app in "$@"; do
  name=$(basename "$app")
  rh=$(cd "$roundhouse" && median3 target/release/roundhouse-check --continue "$app")
  cold=$(median3 "$switchyard" --check --no-cache "$app")
  "$switchyard" --check --cache-dir "$cache" "$app" >/dev/null 2>&1 || true
  warm=$(median3 "$switchyard" --check --cache-dir "$cache" "$app")
  printf '| %s | %s | %s | %s |\n' "$name" "$rh" "$cold" "$warm"
done

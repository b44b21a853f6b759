#!/usr/bin/env bash
# The check step of the GitHub Action (action.yml): `switchyard --check` as SARIF, with the exit
# code kept for a later step, so the log is uploaded to code scanning even when findings fail it.
#
# Reads SWITCHYARD (the binary), INPUT_PATH, INPUT_TARGETS (space-separated), INPUT_FAIL_LEVEL and
# SARIF_FILE; writes `status=N` and `sarif=FILE` to $GITHUB_OUTPUT. A usage or IO error (exit 2)
# fails the step at once: there is no log to upload.
set -uo pipefail
targets=()
for target in ${INPUT_TARGETS:-}; do
  targets+=(--target "$target")
done
"$SWITCHYARD" --check "${INPUT_PATH:-.}" --format sarif --fail-level "${INPUT_FAIL_LEVEL:-error}" "${targets[@]}" > "$SARIF_FILE"
status=$?
if [ "$status" -ge 2 ]; then
  exit "$status"
fi
{
  echo "status=$status"
  echo "sarif=$SARIF_FILE"
} >> "$GITHUB_OUTPUT"
# Annotations on the pull request too, from the same findings.
"$SWITCHYARD" --check "${INPUT_PATH:-.}" --format github --fail-level "${INPUT_FAIL_LEVEL:-error}" "${targets[@]}" || true

#!/usr/bin/env python3
"""Holds `switchyard routes` to Rails' own route table on real apps (FIDELITY.md, "Routes").

    python3 scripts/routes-vs-rails.py BINARY APP_DIR... [--diff]

For each app: Rails' table (scripts/rails-routes-oracle.rb --app, Debian's ruby-actionpack) against
`BINARY routes APP --format json`, row by row on (verb, path, controller#action with requirements,
name), as multisets. Prints one line per app: Rails' rows, rows equal in all four, rows equal but for the value of a
requirement Rails evaluates when the app runs ("values"), rows missing, rows extra; with --diff, the
rows that differ. The DSL methods of gems the oracle skipped are listed: neither side can know their routes.
"""
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def rails_rows(app):
    run = subprocess.run(
        ["ruby", os.path.join(HERE, "rails-routes-oracle.rb"), "--app", app, "--json"],
        capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        raise SystemExit(f"{app}: the oracle failed:\n{run.stderr}")
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    skipped = sorted({l.split(": ", 1)[1] for l in run.stderr.splitlines() if l.startswith("skipped: ")})
    return [(r["verb"], r["path"], r["reqs"], r["name"] or "") for r in rows], skipped


def switchyard_rows(binary, app):
    run = subprocess.run([binary, "routes", "--no-cache", "--format", "json", app],
                         capture_output=True, text=True, timeout=300)
    if run.returncode not in (0, 1):
        raise SystemExit(f"{app}: switchyard failed:\n{run.stderr}")
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    return [(r["verb"], r["path"], r["controller_action"], r["name"]) for r in rows]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_diff = "--diff" in sys.argv
    if len(args) < 2:
        raise SystemExit(__doc__)
    binary, apps = args[0], args[1:]
    print(f"{'app':<16} {'rails':>6} {'equal':>6} {'values':>7} {'missing':>8} {'extra':>6}  skipped by the oracle")
    for app in apps:
        ours, (theirs, skipped) = switchyard_rows(binary, app), rails_rows(app)
        a, b = collections.Counter(theirs), collections.Counter(ours)
        missing, extra = a - b, b - a
        equal = sum((a & b).values())
        # Rows equal but for the value of a requirement Rails evaluates when the app runs (a method
        # call, a constant defined elsewhere, an interpolated regexp): same verb, path, endpoint,
        # name and requirement keys.
        def shape(row):
            endpoint, _, reqs = row[2].partition(" {")
            keys = tuple(k.split(":")[0].strip() for k in reqs.rstrip("}").split(", ") if k) if reqs else ()
            return (row[0], row[1], endpoint, row[3], keys)
        ma, mb = collections.Counter(map(shape, missing.elements())), collections.Counter(map(shape, extra.elements()))
        values = sum((ma & mb).values())
        name = os.path.basename(os.path.normpath(app))
        print(f"{name:<16} {len(theirs):>6} {equal:>6} {values:>7} {sum(missing.values()) - values:>8} "
              f"{sum(extra.values()) - values:>6}  {', '.join(skipped)}")
        if show_diff:
            for row in sorted(missing.elements()):
                print("  - rails     ", " | ".join(row))
            for row in sorted(extra.elements()):
                print("  + switchyard", " | ".join(row))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Cold `--check --no-cache` of one app by several builds, run in turn (A, B, A, B…) so a shared,
noisy machine slows them alike. Prints each build's medians: wall time, CPU time (user + system)
and peak RSS (by GNU time where there is one: see `run`), with the ratio to the first build.

    scripts/bench-ab.py [--runs N] [--roundhouse CHECKOUT] [--warm] APP BINARY...

With --roundhouse, the compiler's own whole-app pass (`target/release/roundhouse-check --continue
APP`, run from CHECKOUT) takes its turn first in every round and is the reference of the ratios.
With --warm, each build runs `--check` with a cache folder of its own, written by one run before
the rounds: what a second run in CI or an editor's restart costs.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time


# A child forked from this Python process starts with Python's resident pages, and the kernel keeps
# that high-water mark through `exec`: the peak RSS `wait4` reports is never below Python's own
# (about 15 MiB). GNU time forks from its own small process and reports its child's peak.
GNU_TIME = "/usr/bin/time"


def run(command, cwd=None):
    with tempfile.NamedTemporaryFile("r") as peak:
        measured = [GNU_TIME, "-f", "%M", "-o", peak.name, *command] if os.path.exists(GNU_TIME) else command
        start = time.perf_counter()
        child = subprocess.Popen(measured, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        rss = int(peak.read().split()[-1]) / 1024 if measured is not command else usage.ru_maxrss / 1024
    return wall, usage.ru_utime + usage.ru_stime, rss


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--roundhouse", help="a built Roundhouse checkout")
    parser.add_argument("--warm", action="store_true", help="time runs that read the cache an earlier run kept")
    parser.add_argument("app")
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    app = os.path.abspath(args.app)
    commands = []
    if args.roundhouse:
        commands.append(("roundhouse-check", ["target/release/roundhouse-check", "--continue", app], args.roundhouse))
    caches = []
    for binary in args.binaries:
        if args.warm:
            caches.append(tempfile.mkdtemp(prefix="switchyard-bench-ab-"))
            command = [binary, "--check", "--cache-dir", caches[-1], app]
            run(command)
        else:
            command = [binary, "--check", "--no-cache", app]
        commands.append((binary, command, None))
    results = {name: [] for name, _, _ in commands}
    for _ in range(args.runs):
        for name, command, cwd in commands:
            results[name].append(run(command, cwd))
    for cache in caches:
        shutil.rmtree(cache, ignore_errors=True)
    medians = {name: [statistics.median(r[i] for r in runs) for i in range(3)] for name, runs in results.items()}
    wall0, cpu0, rss0 = medians[commands[0][0]]
    print(f"{os.path.basename(app)}, {args.runs} rounds{', warm' if args.warm else ''}, medians")
    for name, (wall, cpu, rss) in medians.items():
        print(
            f"  {name:40} wall {wall * 1000:8.1f} ms ({wall / wall0:.2f})  cpu {cpu * 1000:8.1f} ms ({cpu / cpu0:.2f})"
            f"  peak RSS {rss:6.1f} MiB ({rss / rss0:.2f})"
        )


if __name__ == "__main__":
    main()

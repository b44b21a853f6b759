#!/usr/bin/env python3
"""Which files of the trees Roundhouse emitted do not parse, and which of them Switchyard said so of.

    python3 scripts/emitted-parse.py WORK... --switchyard target/debug/switchyard [--checker BIN] [--show]

Each WORK is a `scripts/fidelity.py apps --work` folder: for each app, its emitted CRuby tree (`ruby/`)
and the copy it compiled (`repaired-app`, else the app itself). Every `.rb` file under the tree's `app/`
and `lib/` is given to Prism (`cargo run --example parse_check`, or --checker); Switchyard checks the
copy, and each finding of the rules that say an emitted file will not parse is matched to the file it
emits into (a template: its `app/views/<path>.rb`; anything else: a file of the tree with its name;
a permit list: the tree's `*_params.rb` files whose `case` has no `when`, or that hold the instance
variable a key that is no Ruby name gives — the record's name is the
compiler's choice, so this one is matched per app). Prints, per rule, its findings and how many
land in a file that does not parse (borne out), and how many of the files that do not parse a
finding is in (said), with the first error of each file not said under --show.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess

RULES = {
    "controller.build-attributes-not-ruby",
    "model.operator-writer-not-ruby",
    "views.function-name-not-ruby",
    "views.render-path-leading-slash",
    "views.variable-name-not-ruby",
    "library.parameters-not-ruby",
    "syntax.ternary-argument",
    "controller.params-class-not-ruby",
    "syntax.yield-not-ruby",
    "views.select-options-not-ruby",
    "syntax.grouping-not-ruby",
    "views.parameter-named-twice",
    "model.belongs-to-declared-twice",
    "views.output-statements-not-ruby",
    "syntax.symbol-quotes-dropped",
    "syntax.safe-navigation-arguments",
    "controller.format-arm-jump",
}

# Rules that say so in some of their findings only: those whose message says the file does not parse.
SOME_RULES = {"model.query-inlined"}


def key_in(finding, path):
    """Whether a params record's file holds the instance variable a finding names (`@x(3i)_provided`)."""
    named = re.search(r"gives `(@[^`]*_provided)`", finding["message"])
    with open(path, encoding="utf-8", errors="replace") as f:
        return bool(named) and named.group(1) in f.read()


def parse_errors(checker, files):
    errors = {}
    for i in range(0, len(files), 500):
        run = subprocess.run(checker + files[i:i + 500], capture_output=True, text=True)
        for line in run.stdout.splitlines():
            path, _, rest = line.partition(":")
            number, _, message = rest.partition(":")
            errors[path] = (int(number), message.strip())
    return errors


def emitted_files(tree, finding):
    path = finding["file"]
    if finding["rule"] == "views.variable-name-not-ruby" and "renders into" in finding["message"]:
        # The partial's file: the one the render names (matched per app to a view that does not parse).
        return glob.glob(os.path.join(tree, "app/views", "**", "_*.rb"), recursive=True)
    if path.startswith("app/views/"):
        stem = re.sub(r"(\.(html|turbo_stream|svg))?\.(erb|haml)$", "", path[len("app/views/"):])
        return [os.path.join(tree, "app/views", stem + ".rb")]
    if finding["rule"] == "controller.params-class-not-ruby":
        return glob.glob(os.path.join(tree, "app/models", "*_params.rb"))
    name = os.path.basename(path)
    return [os.path.join(root, name) for root, _, files in os.walk(os.path.join(tree, "app")) if name in files]


def yield_files(tree, source, finding, errors):
    """A library's module may be emitted into a file of its own (`lib/redmine/pagination.rb`'s
    `Helper` into `pagination/helper.rb`): the files that do not parse at a line holding the yield as
    the compiler writes it (`yield text`, from `yield(text, …)`)."""
    try:
        with open(os.path.join(source, finding["file"]), encoding="utf-8", errors="replace") as f:
            line = f.read().splitlines()[finding["line"] - 1]
    except (OSError, IndexError):
        return []
    match = re.search(r"yield\(([^,)]*)", line[finding["column"] - 1 :])
    if not match:
        return []
    written = "yield " + match.group(1).strip()
    hit = []
    for path, (number, _) in errors.items():
        if not path.startswith(tree + os.sep):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        if written in (lines[number - 1] if 0 < number <= len(lines) else ""):
            hit.append(path)
    return hit


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("work", nargs="+")
    parser.add_argument("--switchyard", required=True)
    parser.add_argument("--checker", help="a built parse_check binary (default: cargo run --example parse_check)")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    checker = [args.checker] if args.checker else ["cargo", "run", "-q", "--example", "parse_check", "--"]
    found, borne = collections.Counter(), collections.Counter()
    unparsed, said, apps, broken_apps = 0, 0, 0, 0
    families = collections.Counter()
    for compiler in sorted(p for work in args.work for p in glob.glob(os.path.join(work, "*", "compiler.json"))):
        folder = os.path.dirname(compiler)
        tree = os.path.join(folder, "ruby")
        if not os.path.isdir(tree):
            continue
        source = os.path.join(folder, "repaired-app")
        if not os.path.isdir(source):
            source = json.load(open(compiler))["app"]
        files = sorted(p for d in ("app", "lib") for p in glob.glob(os.path.join(tree, d, "**", "*.rb"), recursive=True))
        errors = parse_errors(checker, files)
        apps += 1
        broken_apps += bool(errors)
        run = subprocess.run([args.switchyard, "--check", source, "--format", "json", "--no-cache"], capture_output=True, text=True)
        findings = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
        covered = set()
        for finding in findings:
            if finding.get("app", ".") != ".":
                continue
            if finding["rule"] not in RULES and not (finding["rule"] in SOME_RULES and "does not parse" in finding["message"]):
                continue
            found[finding["rule"]] += 1
            hit = [
                f for f in emitted_files(tree, finding)
                if f in errors and (finding["rule"] != "controller.params-class-not-ruby" or "`when`" in errors[f][1] or key_in(finding, f))
            ]
            if not hit and finding["rule"] == "syntax.yield-not-ruby":
                hit = yield_files(tree, source, finding, errors)
            if hit:
                borne[finding["rule"]] += 1
                covered.update(hit)
            elif args.show:
                print(f"  not borne out: {os.path.basename(folder)} {finding['file']}:{finding['line']} {finding['rule']}")
        unparsed += len(errors)
        said += len(covered & set(errors))
        for path, (line, message) in sorted(errors.items()):
            if path not in covered:
                families[re.sub(r"`[^`]*`", "X", message)] += 1
                if args.show:
                    print(f"  not said: {os.path.relpath(path, os.path.dirname(folder))}:{line}: {message}")
    print(f"{apps} emitted trees, {broken_apps} with a file that does not parse; {unparsed} such files, {said} said")
    for rule in sorted(RULES | SOME_RULES):
        print(f"{rule:36} {borne[rule]}/{found[rule]} in a file that does not parse")
    print("not said, by the parser's message:")
    for message, n in families.most_common(12):
        print(f"  {n:4}  {message}")


if __name__ == "__main__":
    main()

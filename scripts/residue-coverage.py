#!/usr/bin/env python3
"""How much of what the compiler says past `warning[unsupported]` Switchyard says at the line.

    python3 scripts/residue-coverage.py WORK... --switchyard target/debug/switchyard [--show KIND]

Each WORK is a `scripts/fidelity.py apps --work` folder: for each app, `compiler.json` (the compiler's
warnings from `--allow-unsupported` on ruby and spinel, with file and line) and the copy it compiled
(`repaired-app`, else the app itself). For each app whose lowering ran to its end (no crash, a
tree written), Switchyard checks the same copy on every target. Per kind of compiler line
(`lower_residue` by the lowering its message names, `blank_unlowered`, `missing_preload`): how many
distinct sites have a Switchyard finding within one line, and which rules they are. Per rule that
stands for a kind: how many of its findings have a compiler line of that kind within one line
(findings in an app nested in the compiled one, which its compile does not read, are left out).
A job's or mailer's method finding sits on the method's name, where the compiler's note is on the
body's first statement: for those rules, a line from the one to the other counts (METHOD_RULES).
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess

KINDS = [
    ("class-body statement dropped", r"in the body of `[^`]*` is not modelled and is dropped"),
    ("respond_to arm dropped", r"`respond_to` arm `format\."),
    ("template statement dropped", r"template statement dropped"),
    ("job set() options dropped", r"set\(wait:/queue:/priority:\) options are dropped"),
    ("mailer method not wrapped", r"gets no class-side wrapper"),
    ("job perform not wrapped", r"job_class_side: `[^`]*` — (keyword parameters|the wrapper cannot)"),
    ("permitted key array-valued", r"is array-valued"),
    ("permitted field without writer", r"has no writer on"),
    ("errors.add dynamic", r"`errors\.add` left as dynamic"),
    ("errors[] dynamic", r"`errors\[:field\]` left as dynamic"),
    ("kwargs update uninlined", r"kwargs-form"),
    ("nested-through writer", r"is nested"),
    ("relation chain dynamic", r"relation chain stays dynamic"),
    ("reflective dispatch", r"reflective `"),
    ("to_fs left as written", r"`to_fs` left in source shape"),
    ("tag.<name> not expanded", r"`tag\.<name>` not expanded"),
    ("turbo_stream option form", r"`turbo_stream\.[a-z_]*` left in source shape"),
]
RULE_KIND = {
    "library.class-body-call-dropped": "class-body statement dropped",
    "controller.format-arm-dropped": "respond_to arm dropped",
    "views.statement-dropped": "template statement dropped",
    "job.runs-inline": "job set() options dropped",
    "job.perform-not-wrapped": "job perform not wrapped",
    "controller.permit-key-dropped": "permitted key array-valued",
    "model.errors-add-dynamic": "errors.add dynamic",
    "model.errors-index-dynamic": "errors[] dynamic",
    "model.missing-preload": "missing_preload",
    "mailer.method-not-wrapped": "mailer method not wrapped",
    "controller.permit-field-no-writer": "permitted field without writer",
    "syntax.to-fs-not-expanded": "to_fs left as written",
    "views.turbo-stream-option-form": "turbo_stream option form",
}

# Rules whose construct the compiler leaves as written without a word outside templates: a finding
# no compiler line bears out is borne out by the emitted tree when it keeps the call as written.
TREE_RULES = {"syntax.to-fs-not-expanded"}

# A job whose `perform` begins with an early return gets the compiler's note on set() options
# without a line (the note sits on the rewritten body); the emitted class bears the finding out
# when its class-side `set` answers the class and drops its options.
SET_RULES = {"job.runs-inline"}


def set_dropped_in_tree(finding, source, tree):
    try:
        with open(os.path.join(source, finding["file"]), encoding="utf-8", errors="replace") as f:
            found = re.search(r"^\s*class\s+([A-Z][\w:]*)", f.read(), re.M)
    except OSError:
        return False
    if not found:
        return False
    name = found.group(1).split("::")[-1]
    shape = re.compile(r"class " + re.escape(name) + r"\b[^\n]*\n(?:.*\n)*?\s*def self\.set\(options\)\n\s*self\n")
    for root, _, files in os.walk(os.path.join(tree, "app")):
        for file in files:
            with open(os.path.join(root, file), encoding="utf-8", errors="replace") as f:
                if shape.search(f.read()):
                    return True
    return False


def kept_in_tree(finding, source, tree):
    try:
        with open(os.path.join(source, finding["file"]), encoding="utf-8", errors="replace") as f:
            line = f.read().splitlines()[finding["line"] - 1]
    except (OSError, IndexError):
        return False
    start = finding["column"] - 1
    start -= 1 if start > 0 and line[start - 1] == "." else 0
    start -= 1 if start > 0 and line[start - 1] == "&" else 0
    while start > 0 and (line[start - 1].isalnum() or line[start - 1] in "_?!"):
        start -= 1
    # The call with the receiver's last word (`used.to_fs(:human_size)` of `@user.used.to_fs(…)`): a concern's method is
    # spliced into its includers' files, so any emitted file may hold it.
    call = line[start : finding["end_column"] - 1].strip()
    for folder in ("app", "test"):
        for root, _, files in os.walk(os.path.join(tree, folder)):
            for name in files:
                with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                    if call and call in f.read():
                        return True
    return False


def kind_of(code, message):
    if code != "lower_residue":
        return code
    for kind, pattern in KINDS:
        if re.search(pattern, message):
            return kind
    return "other: " + re.sub(r"`[^`]*`", "X", message)[:60]


# Rules on a method's name whose compiler note is on the method body's first statement (the
# server's `entry_points::RULES`): a compiler line from the one to the other is the same note.
METHOD_RULES = {"job.runs-inline", "job.perform-not-wrapped", "mailer.method-not-wrapped"}


def first_statement_line(lines, def_line):
    """1-based line of the first statement of the method whose `def` is on `def_line` (1-based), as
    the server's `entry_points::first_statement_line` finds it."""
    depth, i = 0, def_line - 1
    while i < len(lines):
        code = lines[i].split(" #")[0]
        depth += code.count("(") - code.count(")")
        i += 1
        if depth <= 0:
            words = code.split()
            if ";" in code or ") =" in code or (len(words) > 2 and words[2] == "="):
                return def_line
            break
    while i < len(lines):
        stripped = lines[i].strip()
        if stripped and not stripped.startswith("#"):
            return def_line if stripped == "end" else i + 1
        i += 1
    return def_line


def last_line(finding, source):
    """The last line a compiler note of the finding's kind may be on and still be its."""
    if finding["rule"] not in METHOD_RULES:
        return finding["end_line"]
    try:
        with open(os.path.join(source, finding["file"]), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return finding["end_line"]
    return max(finding["end_line"], first_statement_line(lines, finding["line"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("work", nargs="+")
    parser.add_argument("--switchyard", required=True)
    parser.add_argument("--show", help="print the sites of this kind that no finding is near")
    args = parser.parse_args()
    apps = {}
    for path in sorted(p for work in args.work for p in glob.glob(os.path.join(work, "*", "compiler.json"))):
        name = os.path.basename(os.path.dirname(path))
        if name in apps:
            continue
        compiler = json.load(open(path))
        if compiler.get("crash") or not compiler.get("tree"):
            continue
        source = os.path.join(os.path.dirname(path), "repaired-app")
        if not os.path.isdir(source):
            source = compiler["app"]
        run = subprocess.run(
            [args.switchyard, "--check", source, "--format", "json", "--no-cache", "--target", "ruby", "--target", "jruby", "--target", "spinel"],
            capture_output=True, text=True,
        )
        findings = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
        for finding in findings:
            finding["last"] = last_line(finding, source)
        apps[name] = (compiler, findings, source)
    total, covered = collections.Counter(), collections.Counter()
    rules_near = collections.defaultdict(collections.Counter)
    borne, found, missed = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    by_tree = collections.Counter()
    for name, (compiler, findings, source) in apps.items():
        own = collections.defaultdict(list)
        for finding in findings:
            if not finding["rule"].startswith(("rails.", "lanes.", "switchyard.")):
                own[finding["file"]].append(finding)
        sites = set()
        by_kind = collections.defaultdict(set)
        for warning in (compiler.get("warnings") or []) + (compiler.get("spinel_warnings") or []):
            if warning["code"] not in ("lower_residue", "blank_unlowered", "missing_preload") or not warning.get("path"):
                continue
            kind = kind_of(warning["code"], warning["message"])
            sites.add((kind, warning["path"], int(warning["line"])))
            by_kind[(kind, warning["path"])].add(int(warning["line"]))
        for kind, path, line in sites:
            total[kind] += 1
            near = [f for f in own[path] if f["line"] - 1 <= line <= f["last"] + 1]
            if near:
                covered[kind] += 1
                for f in near:
                    rules_near[kind][f["rule"]] += 1
            elif args.show == kind:
                print(f"  not said: {name} {path}:{line}")
        for finding in findings:
            kind = RULE_KIND.get(finding["rule"])
            # An app nested in the one compiled (an engine's folder) is not read by its compile.
            if not kind or finding.get("app", ".") != ".":
                continue
            found[finding["rule"]] += 1
            if any(finding["line"] - 1 <= s <= finding["last"] + 1 for s in by_kind[(kind, finding["file"])]):
                borne[finding["rule"]] += 1
            elif finding["rule"] in TREE_RULES and kept_in_tree(finding, source, compiler["tree"]):
                borne[finding["rule"]] += 1
                by_tree[finding["rule"]] += 1
            elif finding["rule"] in SET_RULES and set_dropped_in_tree(finding, source, compiler["tree"]):
                borne[finding["rule"]] += 1
                by_tree[finding["rule"]] += 1
            else:
                missed[finding["rule"]].append(f"{name} {finding['file']}:{finding['line']}")
    print(f"{len(apps)} apps whose lowering ran to its end")
    print(f"{'kind':62} {'sites':>6} {'said':>6}  rules near")
    for kind, n in total.most_common():
        rules = ", ".join(f"{r} {c}" for r, c in rules_near[kind].most_common(3))
        print(f"{kind[:62]:62} {n:6} {covered[kind]:6} {100 * covered[kind] // n:3}%  {rules}")
    print()
    for rule, n in sorted(found.items()):
        tree = f" ({by_tree[rule]} by the emitted tree)" if by_tree[rule] else ""
        print(f"{rule:36} {borne[rule]}/{n} borne out at the line{tree}; not: {missed[rule][:5]}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where the compiler writes a folded query's expansion inline, and which of those Switchyard said.

    python3 scripts/query-inlined.py WORK... --switchyard target/release/switchyard [--show]

Each WORK is a `scripts/fidelity.py apps --work` folder: for each app, its emitted CRuby tree (`ruby/`)
and the copy it compiled (`repaired-app`). The compiler prints nothing about these: the emitted tree
is the referee. A site is a line of an emitted model or controller where `stmt = Db.prepare(` — the
first statement of a query's expansion — follows other code on the line (`@x = stmt = …`,
`return stmt = …`, `pagy(stmt = …`), but for `if (stmt = …` (a parenthesized group, which reads
right). Each `model.query-inlined` finding of Switchyard on the copy is borne out when the emitted
method it is in (found by name in the file of the same path) has such a line. Prints the findings,
how many are borne out, and how many sites a finding is in the method of (said); with --show, each
site. Sites in methods the compiled app never runs (an action no route reaches, in a copy whose
routes were taken out) are among them: the rule says nothing there.
"""
import argparse
import glob
import json
import os
import re
import subprocess

PREFIXED = re.compile(r"^\s*(?!(?:if|unless|while|until) \(stmt)\S.*?\bstmt = Db\.prepare\(")
DEF = re.compile(r"\s*def (self\.)?([\w?!=]+)")


def method_of(lines, number):
    """The method a 1-based line is in: (singleton, name)."""
    for i in range(number - 1, -1, -1):
        match = DEF.match(lines[i])
        if match:
            return (match.group(1) is not None, match.group(2))
    return None


def emitted_body(path, singleton, name):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read().splitlines()
    except OSError:
        return None
    name = "new_action" if name == "new" else name
    pattern = re.compile(r"(\s*)def " + (r"self\." if singleton else "") + re.escape(name) + r"\b")
    for i, line in enumerate(text):
        match = pattern.match(line)
        if match:
            indent, body = match.group(1), []
            for rest in text[i + 1 :]:
                if rest.rstrip() == indent + "end":
                    break
                body.append(rest)
            return body
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("work", nargs="+")
    parser.add_argument("--switchyard", required=True)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    findings = borne = 0
    not_borne, sites, said = [], [], set()
    for work in args.work:
        for app in sorted(glob.glob(os.path.join(work, "*"))):
            tree, source = os.path.join(app, "ruby"), os.path.join(app, "repaired-app")
            if not os.path.isdir(tree) or not os.path.isdir(source):
                continue
            run = subprocess.run([args.switchyard, "--check", source, "--format", "json", "--no-cache"], capture_output=True, text=True)
            for line in run.stdout.splitlines():
                if not line.startswith("{"):
                    continue
                finding = json.loads(line)
                if finding.get("rule") != "model.query-inlined" or finding.get("app", ".") != ".":
                    continue
                findings += 1
                with open(os.path.join(source, finding["file"]), encoding="utf-8", errors="replace") as f:
                    method = method_of(f.read().splitlines(), finding["line"])
                path = os.path.join(tree, finding["file"])
                body = emitted_body(path, *method) if method else None
                said.add((path, method))
                if body is not None and any(PREFIXED.match(l) for l in body):
                    borne += 1
                else:
                    not_borne.append(f"{os.path.basename(app)} {finding['file']}:{finding['line']}")
            for path in glob.glob(os.path.join(tree, "app", "**", "*.rb"), recursive=True):
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read().splitlines()
                for i, line in enumerate(text):
                    if PREFIXED.match(line):
                        method = method_of(text, i + 1)
                        if method and method[1] == "new_action":
                            method = (method[0], "new")
                        sites.append((os.path.basename(app), path, method))
    print(f"model.query-inlined: {findings} findings, {borne} borne out by the emitted method")
    for n in not_borne:
        print(f"  not borne out: {n}")
    said_sites = [s for s in sites if (s[1], s[2]) in said]
    print(f"emitted lines with an inline expansion: {len(sites)}, in a method said: {len(said_sites)}")
    if args.show:
        for app, path, method in sites:
            mark = "said" if (path, method) in said else "    "
            print(f"  {mark} {app} {path.split('/ruby/', 1)[-1]} {method}")


if __name__ == "__main__":
    main()

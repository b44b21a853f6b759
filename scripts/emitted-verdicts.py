#!/usr/bin/env python3
"""Holds the findings of the rules about what the compiled app does at run time to the emitted trees.

For each compile copy of a WORK folder (`scripts/fidelity.py apps --work WORK`), runs Switchyard on
the app and looks, for each finding of these rules, at the file the compiler wrote for it:
- views.helper-undefined: the emitted template calls the helper bare (no receiver);
- views.present-check-raises: the emitted template tests the receiver with `(x || "").empty?`;
- views.render-raises: the emitted template keeps a bare `render`, or calls the partial the finding
  names, which the emitted tree does not have;
- model.presence-check-never-passes: the emitted model's `validate` tests `@x.nil?` and nothing in
  the file assigns `@x`;
- views.content-tag-block-lost: the emitted template gives the runtime's `content_tag` a block;
- model.row-struct-collision, views.form-tag-dropped: counted (held by their fixtures).
A finding in a file the compile copy took out is counted as `removed`; one whose emitted file is not
at the path the source maps to, as `no-file` (look at those by hand).

    python3 scripts/emitted-verdicts.py SWITCHYARD WORK...
"""
import json, os, re, subprocess, sys, glob
BIN = sys.argv[1]
works = sys.argv[2:]
stats = {}


def emitted_template(tree, path):
    """The text of the file the compiler writes for a template, or None."""
    em = os.path.join(tree, re.sub(r"(\.[a-z_]+)*\.(erb|haml|slim)$", ".rb", path))
    return open(em).read() if os.path.exists(em) else None


for work in works:
    for cj in sorted(glob.glob(f"{work}/*/compiler.json")):
        d = json.load(open(cj))
        app, tree = d["app"], d.get("tree")
        if not tree or not os.path.isdir(tree):
            continue
        removed = set(d.get("removed") or [])
        out = subprocess.run([BIN, "--check", app, "--format", "json", "--no-cache"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            try:
                f = json.loads(line)
            except Exception:
                continue
            rule = f.get("rule")
            if rule not in ("model.presence-check-never-passes", "views.present-check-raises", "views.helper-undefined", "model.row-struct-collision", "views.render-raises", "views.form-tag-dropped", "views.content-tag-block-lost"):
                continue
            if f["file"] in removed:
                verdict = "removed"
            elif rule == "views.helper-undefined":
                name = re.search(r"this `([^`]+)` call", f["message"]).group(1)
                t = emitted_template(tree, f["file"])
                if t is None:
                    verdict = "no-file"
                else:
                    bare = re.search(r"(?<![\w.:@])%s(?![\w?!])" % re.escape(name), t)
                    verdict = "held" if bare else "NOT " + name
            elif rule == "views.render-raises":
                t = emitted_template(tree, f["file"])
                if t is None:
                    verdict = "no-file"
                else:
                    m = re.search(r"partial `([^`]+)`", f["message"])
                    if m:
                        folder, name = m.group(1).split("/_")
                        camel = "".join(w.capitalize() for w in folder.split("_"))
                        called = f"Views::{camel}.{name}(" in t
                        missing = not os.path.exists(os.path.join(tree, "app/views", folder, "_" + name + ".rb"))
                        verdict = "held" if called and missing else f"NOT called={called} missing={missing} {m.group(1)}"
                    else:
                        verdict = "held" if re.search(r"[(\s]render[ (]", t) else "NOT bare"
            elif rule == "views.content-tag-block-lost":
                t = emitted_template(tree, f["file"])
                if t is None:
                    verdict = "no-file"
                else:
                    given = re.search(r"ActionView::ViewHelpers\.content_tag\([^\n]*\)\s*(do\b|\{)", t)
                    verdict = "held" if given else "NOT"
            elif rule in ("model.row-struct-collision", "views.form-tag-dropped"):
                verdict = "held"
            elif rule == "model.presence-check-never-passes":
                attr = re.search(r"instance variable `@(\w+)`", f["message"]).group(1)
                em = os.path.join(tree, f["file"])
                if not os.path.exists(em):
                    verdict = "no-file"
                else:
                    t = open(em).read()
                    checked = re.search(r"<< \"[^\"]*can't be blank\" if @%s\.nil\?" % attr, t)
                    assigned = re.search(r"@%s\s*(\|\|)?=[^=~]" % attr, t)
                    verdict = "held" if checked and not assigned else f"NOT checked={bool(checked)} assigned={bool(assigned)}"
            else:
                src = open(os.path.join(app, f["file"])).read().splitlines()[f["line"] - 1]
                seg = src[f["column"] - 1:]
                m = re.match(r"([@\w.]+)\.(present|blank)\?", seg)
                recv = m.group(1).lstrip("@") if m else None
                base = re.sub(r"\.html\.(erb|haml|slim)$", ".rb", f["file"])
                em = os.path.join(tree, base)
                if not os.path.exists(em):
                    verdict = "no-file"
                elif recv is None:
                    verdict = "unparsed " + seg[:40]
                else:
                    t = open(em).read()
                    verdict = "held" if f"({recv} || \"\").empty?" in t else "NOT " + recv
            key = (rule, verdict.split()[0])
            stats[key] = stats.get(key, 0) + 1
            if verdict != "held":
                print(rule, os.path.basename(app), f["file"], f["line"], verdict)
for k, v in sorted(stats.items()):
    print(k, v)

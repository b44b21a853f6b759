#!/usr/bin/env python3
"""Holds Switchyard's controller previews to the controllers Roundhouse emitted.

    python3 scripts/compare-previews.py PREVIEWS EMITTED [--verbose]

PREVIEWS is what `switchyard preview APP --out PREVIEWS` wrote for an app, EMITTED the tree
`roundhouse --target ruby --allow-unsupported APP -o EMITTED` wrote for the same app. For each
controller both have, it compares: whether there is a `process_action`; its filter chain (the
statements before `case action_name`, comments and spacing aside); its arms (`when :x`); and the
names of the instance methods the class defines. Then, for each job and mailer both have (the
compiler writes `app/jobs/x.rb` and `app/mailers/x.rb` as `app/models/x.rb`), the names of the
class-side methods (`def self.…`: the entry points it writes) and of the instance methods. Prints
the agreement of each, and with --verbose each class that differs.
"""
import os
import re
import sys


def strip(line):
    # A trailing `# …` comment, outside strings (the previews' own annotations).
    out, quote = [], None
    for i, c in enumerate(line):
        if quote:
            if c == quote and line[i - 1] != "\\":
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(c)
    return "".join(out).rstrip()


def reading(text):
    lines = [strip(l) for l in text.splitlines()]
    lines = [l for l in lines if l.strip()]
    # The class may sit in modules (`module Api` / `  class PrisonsController`): its methods are
    # one level in from its `class` line.
    indent = next((len(l) - len(l.lstrip()) for l in lines if l.lstrip().startswith("class ")), 0) + 2
    member = " " * indent
    lines = [l[indent - 2:] if l.startswith(member[:-2]) else l for l in lines]
    chain, arms, methods, inside, has_dispatcher = [], [], set(), False, False
    for line in lines:
        s = line.strip()
        if line.startswith("  def ") and not line.startswith("  def self."):
            name = re.match(r"\s*def ([\w?!=]+)", line).group(1)
            methods.add(name)
            if name == "process_action":
                inside, has_dispatcher = True, True
                continue
        if inside:
            if s == "case action_name":
                inside = "arms"
                continue
            if inside == "arms":
                m = re.match(r"when :([\w?!]+)", s)
                if m:
                    arms.append(m.group(1))
                if line.startswith("  end"):
                    inside = False
                continue
            if line.startswith("  end"):
                inside = False
                continue
            chain.append(re.sub(r"\s+", " ", s))
    return has_dispatcher, chain, arms, methods


def main():
    previews, emitted = sys.argv[1], sys.argv[2]
    verbose = "--verbose" in sys.argv
    counts = {"controllers": 0, "dispatcher": 0, "chain": 0, "arms": 0, "methods": 0}
    for root, _, files in os.walk(os.path.join(emitted, "app/controllers")):
        for name in sorted(files):
            if not name.endswith("_controller.rb"):
                continue
            path = os.path.join(root, name)
            relative = os.path.relpath(path, emitted)
            preview_path = os.path.join(previews, relative + ".rb")
            if not os.path.exists(preview_path):
                continue
            with open(preview_path, encoding="utf-8") as f:
                preview_text = f.read()
            if "class " not in preview_text:
                continue
            with open(path, encoding="utf-8") as f:
                ours, theirs = reading(preview_text), reading(f.read())
            counts["controllers"] += 1
            same = {
                "dispatcher": ours[0] == theirs[0],
                "chain": ours[1] == theirs[1],
                "arms": ours[2] == theirs[2],
                "methods": ours[3] == theirs[3],
            }
            for key, agrees in same.items():
                counts[key] += agrees
            if verbose and not all(same.values()):
                print(f"{relative}:")
                for key, index in (("chain", 1), ("arms", 2)):
                    if not same[key]:
                        print(f"  {key}: preview {ours[index]}\n  {key}: emitted {theirs[index]}")
                if not same["methods"]:
                    print(f"  methods only in the preview: {sorted(ours[3] - theirs[3])}")
                    print(f"  methods only in the emitted file: {sorted(theirs[3] - ours[3])}")
    n = counts.pop("controllers")
    print(f"{n} controllers: " + ", ".join(f"{key} {value}/{n}" for key, value in counts.items()))
    entry_points(previews, emitted, verbose)


def defined(text):
    """The class-side and instance method names a file's code defines (comments aside)."""
    class_side, instance = set(), set()
    for line in text.splitlines():
        m = re.match(r"\s*def (self\.)?([\w?!=]+)", strip(line))
        if m:
            (class_side if m.group(1) else instance).add(m.group(2))
    return class_side, instance


def entry_points(previews, emitted, verbose):
    counts = {"classes": 0, "class-side": 0, "instance": 0}
    for folder in ("app/jobs", "app/mailers"):
        for root, _, files in os.walk(os.path.join(previews, folder)):
            for name in sorted(files):
                preview_path = os.path.join(root, name)
                source = os.path.relpath(preview_path, previews)[: -len(".rb")]
                target = os.path.join(emitted, "app/models", os.path.relpath(source, folder))
                if not os.path.exists(target):
                    continue
                with open(preview_path, encoding="utf-8") as f:
                    preview_text = f.read()
                if "class " not in preview_text or "No built-in preview" in preview_text:
                    continue
                with open(target, encoding="utf-8") as f:
                    ours, theirs = defined(preview_text), defined(f.read())
                counts["classes"] += 1
                counts["class-side"] += ours[0] == theirs[0]
                counts["instance"] += ours[1] == theirs[1]
                if verbose and ours != theirs:
                    print(f"{source}: class-side preview {sorted(ours[0])} emitted {sorted(theirs[0])}; "
                          f"instance only in preview {sorted(ours[1] - theirs[1])}, only emitted {sorted(theirs[1] - ours[1])}")
    n = counts.pop("classes")
    print(f"{n} jobs and mailers: " + ", ".join(f"{key} {value}/{n}" for key, value in counts.items()))


if __name__ == "__main__":
    main()

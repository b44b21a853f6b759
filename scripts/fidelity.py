#!/usr/bin/env python3
"""The real compiler as referee: holds Switchyard's findings to what Roundhouse does.

    scripts/fidelity.py apps --roundhouse DIR [--switchyard BIN] [--work DIR] [--json FILE] APP...
        For each app: asks Roundhouse (its ingest survey, a strict transpile, a transpile with
        --allow-unsupported for ruby and spinel with their warnings and emitted trees) and Switchyard
        (`--check --format json`, every target), then prints per rule: findings, confirmed by the
        compiler, not confirmed (listed), and what the compiler reports that Switchyard misses (listed).
        Ingest gaps are matched per file (the survey has no lines), warnings per line (±1).
        APP is a path, or NAME=PATH to name it in the report.

    scripts/fidelity.py ask --roundhouse DIR APP_OR_FIXTURE
        What the compiler says about one small app: gaps, the strict result, warnings. A `.fixture`
        file is written out as an app first (see tests/fixtures/fidelity/README.md).

    scripts/fidelity.py fixtures --roundhouse DIR [FIXTURE...]
        Re-asks the compiler for every fixture's recorded verdict (`# roundhouse:` lines) and says
        which still hold. CI holds the `# switchyard:` lines without the compiler (cargo test).

Roundhouse reads `runtime/` from its working directory, so every command runs from DIR. Nothing here
needs anything but Python's standard library.
"""

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FIXTURES = os.path.join(REPO, "tests", "fixtures", "fidelity")

# ---------------------------------------------------------------------------------------------------
# What counts as the compiler's word for each rule. Each Switchyard rule names the channel where the
# compiler shows the same construct: an ingest gap in the file (`gap`), a warning on the line
# (`warning`), or its emitted tree (`tree`, checked per finding below). A rule with none of them is a
# wiring check of Rails itself (`rails.*`) or an info fact, and is not scored here.
# ---------------------------------------------------------------------------------------------------

GAP = {
    "syntax.parse-error": r"parse error|MissingNode",
    "syntax.backtick-command": r"XStringNode",
    "syntax.for-loop": r"ForNode",
    "syntax.pattern-matching": r"CaseMatchNode|MatchPredicateNode|MatchRequiredNode|expected when",
    "syntax.regex-named-capture": r"MatchWriteNode",
    "syntax.global-variable-write": r"GlobalVariable\w*WriteNode",
    "syntax.class-variable-in-method": r"ClassVariable\w*WriteNode",
    "syntax.alias-keyword": r"Alias\w*Node",
    "syntax.undef": r"UndefNode",
    "syntax.magic-constant": r"Source(File|Line|Encoding)Node",
    "syntax.rational-imaginary": r"RationalNode|ImaginaryNode",
    "syntax.begin-end-block": r"(Pre|Post)ExecutionNode",
    "syntax.argument-forwarding": r"Forwarding(Arguments|Parameter)Node",
    "syntax.anonymous-keyword-forwarding": r"anonymous `\*\*`",
    "syntax.flip-flop": r"FlipFlopNode",
    "syntax.nested-definition": r"ClassNode|ModuleNode|SingletonClassNode",
    "syntax.multi-assign-target": r"multi-write",
    "syntax.regex-once-flag": r"once/encoding flag",
    "syntax.defined-path": r"`defined\?`",
    "syntax.do-while": r"do-while|do-until",
    "syntax.multi-index-assign": r"indices|multi-dim",
    "syntax.empty-interpolation": r"empty `#\{\}`",
    "syntax.embedded-variable": r"EmbeddedVariableNode",
    "syntax.block-argument-form": r"block-argument forms",
    "syntax.dynamic-class-name": r"must be a simple constant",
    "model.enum-mapping": r"enum :\w+ mapping",
    "model.singleton-class-statement": r"inside `class << self`",
    "model.scope-body": r"scope :\w+ body",
    "model.class-variable-initializer": r"class-variable initializer|ClassVariableWriteNode",
    "schema.migration-verb": r"migration verb",
    "routes.unsupported-dsl": r"unsupported routes DSL",
    "routes.mount": r"`mount`",
    "routes.draw-missing": r"draw",
    "routes.malformed": r"without a name|without arguments|resources (call|name)",
    "views.template-engine": r"not ingested: (?!erb|haml)",
    "views.template-format": r"non-html format",
    "views.haml-filter": r"haml filter",
    "views.haml-class-merge": r"class shortcut",
    "views.template-parse-error": r"MissingNode|parse error",
    "views.text-interpolation": r"MissingNode|parse error|Node\(",
    "views.output-block-pairing": r"MissingNode|parse error|Node\(",
    "views.output-tag-comment-or-heredoc": r"MissingNode|parse error|Node\(",
    "views.unterminated-tag": r".",
    "controller.concern-macro-not-expanded": r"class-body macro not expanded",
    "fixtures.unsupported-value": r"fixture|yaml",
}

# Survey records that do not stop a strict compile (the construct is dropped, the app still builds).
NON_REJECTING_GAP = re.compile(r"route dropped: `mount`|view template not ingested|haml filter|class shortcut|class-body macro not expanded")
# Folders Roundhouse reads file by file: a gap there drops the file, not the app.
FILE_BY_FILE = re.compile(r"^(extras|lib|app/(lib|jobs|channels|mailers|services|workers|serializers|policies|validators|presenters|helpers))/|^config/application\.rb$")


def rejecting(file, message):
    # `<delegate>`: Ruby the compiler writes itself for a library class's delegations; a gap there
    # loses the methods and does not stop the compile (fixture `library-delegates-lost-setter`).
    return not NON_REJECTING_GAP.search(message) and not FILE_BY_FILE.search(file) and not file.startswith("<")

WARNING = {
    "model.unsupported-macro": r"not supported \(all targets\)",
    "model.callback-form": r"not supported \(all targets\)",
    "model.validation-option-ignored": r"not supported \(all targets\)",
    "model.method-parameters-dropped": r"not supported|dropped",
    "views.turbo-stream-option-form": r"turbo_stream",
    "controller.json-format-dropped": r"respond_to` arm",
    "controller.macro-dropped": r"is not modelled and is dropped",
    "views.statement-dropped": r"template statement dropped",
}

# Rules whose finding the emitted tree confirms (a silent drop leaves no message): see tree_evidence.
# Borne out by the compiler's panic: with the others fixed, the compile still panics on this one.
CRASH = {"model.preload-crash"}

TREE = {
    "controller.format-arms-unread",  # the emitted controller's raw `format.x { }` calls
    "library.delegates-lost",  # the class's emitted file without the delegated methods
    "syntax.block-parameter-form",  # the emitted block's parameters
    "controller.concern-macro-not-expanded",
    "model.validation-ignored",
    "model.validation-option-ignored",
    "model.association-option-ignored",
    "model.method-parameters-dropped",
    "model.unsupported-macro",  # only its silent drops from a concern's `included` block
    "model.callback-form",  # the same
    "model.reopened-without-superclass",
    "controller.macro-dropped",
    "controller.after-around-filter",
    "schema.unknown-column-type",
    "routes.redirect",
    "routes.missing-target",
    "routes.resource-option-ignored",
    "routes.statement-skipped",
    "views.jbuilder-ignored",
    "syntax.alias-keyword",  # a library body's alias, dropped without a word
    "views.haml-class-merge",
    "views.text-interpolation",  # text `#{…}` the compiler evaluates
}

SCORED_FAMILIES = ("syntax.", "model.", "library.", "schema.", "routes.", "views.", "controller.", "initializer.", "jruby.", "spinel.", "fixtures.")
MODEL_CONTROLLER = ("model.", "controller.")

WARNING_LINE = re.compile(r"^roundhouse: (?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<level>warning|error)\[(?P<code>\w+)\]: (?P<message>.*)$")


def run(cmd, cwd, timeout=900):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, errors="replace")


def survey(roundhouse, app):
    """Every ingest gap, as (relative path, message): roundhouse-mcp's `diagnostics` tool."""
    proc = subprocess.Popen([os.path.join(roundhouse, "target/release/roundhouse-mcp"), app], cwd=roundhouse,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def send(obj):
        proc.stdin.write(json.dumps(obj) + "\n")
        proc.stdin.flush()

    def receive():
        while True:
            line = proc.stdout.readline()
            if not line:
                return None
            if line.strip().startswith("{"):
                return json.loads(line)

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "switchyard-fidelity", "version": "1"}}})
        receive()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "diagnostics", "arguments": {}}})
        reply = receive() or {}
    finally:
        proc.kill()
    prefix = app.rstrip("/") + "/"
    gaps = []
    for content in reply.get("result", {}).get("content", []):
        for line in content.get("text", "").splitlines():
            if ": ingest gap: " in line:
                path, message = line.split(": ingest gap: ", 1)
                gaps.append((path.replace(prefix, "", 1), message))
    return gaps


def transpile(roundhouse, app, target, out, lenient):
    """(exit code, warnings as dicts with relative paths, other stderr lines)."""
    cmd = [os.path.join(roundhouse, "target/release/roundhouse"), "--target", target, app, "-o", out]
    if lenient:
        cmd.insert(3, "--allow-unsupported")
    # Keep every method in the tree (Roundhouse's tree-shake drops the unused ones), so the tree can
    # show what became of each.
    result = subprocess.run(cmd, cwd=roundhouse, capture_output=True, text=True, timeout=900, errors="replace", env={**os.environ, "ROUNDHOUSE_NO_TREESHAKE": "1"})
    prefix = app.rstrip("/") + "/"
    found, other = [], []
    for line in result.stderr.splitlines():
        m = WARNING_LINE.match(line)
        if m:
            d = m.groupdict()
            d["path"] = d["path"].replace(prefix, "", 1)
            d["line"] = int(d["line"])
            found.append(d)
        else:
            other.append(line)
    return result.returncode, found, other


def switchyard(binary, app):
    result = run([binary, "--check", app, "--format", "json", "--target", "ruby", "--target", "jruby", "--target", "spinel"], REPO)
    if result.returncode not in (0, 1):
        sys.exit(f"switchyard --check {app} failed ({result.returncode}): {result.stderr.strip()}")
    findings = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    # Paths relative to the app checked (an app nested in it reports relative to its own root).
    for f in findings:
        if f.get("app") not in (None, "", "."):
            f["file"] = os.path.normpath(os.path.join(f["app"], f["file"]))
    return findings


def controller_path(class_name):
    """`Settings::HostingsController` → app/controllers/settings/hostings_controller.rb (gaps name the class)."""
    parts = [re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", p).lower() for p in class_name.split("::")]
    return "app/controllers/" + "/".join(parts) + ".rb"


def gap_file(path):
    return controller_path(path) if re.fullmatch(r"[A-Z][\w:]*", path) else path


# ---------------------------------------------------------------------------------------------------
# The emitted tree as evidence for silent drops.
# ---------------------------------------------------------------------------------------------------

RAILS_MESSAGES = {
    "uniqueness": "has already been taken",
    "format": "is invalid",
    "numericality": "is not a number",
    "inclusion": "is not included in the list",
    "exclusion": "is reserved",
    "confirmation": "doesn't match",
    "acceptance": "must be accepted",
    "comparison": "must be greater than",
    "length": "is the wrong length",
}


def class_of(app, relative):
    """The first class a source file defines (models and controllers name their emitted file)."""
    try:
        text = open(os.path.join(app, relative), errors="replace").read()
    except OSError:
        return None
    modules, names = [], []
    for line in text.splitlines():
        m = re.match(r"\s*(module|class)\s+([A-Z][\w:]*)", line)
        if m:
            if m.group(1) == "module":
                modules.append(m.group(2))
            else:
                names.append("::".join(modules + [m.group(2)]))
    # A controller file is about its controller; a model file about its first class.
    controllers = [n for n in names if n.endswith("Controller")] if relative.startswith("app/controllers/") else []
    return (controllers or names or [None])[0]


def snake(segment):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", segment).lower()


def emitted_text(tree, path):
    try:
        return open(os.path.join(tree, path), errors="replace").read()
    except OSError:
        return None


def tree_evidence(finding, app, tree, source_lines):
    """Why the emitted tree confirms a silent-drop finding, or None."""
    rule, file, line = finding["rule"], finding["file"], finding["line"]
    text = source_lines(file)[line - 1] if line - 1 < len(source_lines(file)) else ""
    message = finding["message"]
    if rule == "views.text-interpolation" and "Roundhouse evaluates it" in message:
        # The emitted view writes the text with the interpolation live: `#{code}` inside a string.
        code = re.search(r"#\{([^}]*)\}", text)
        for path in EMITTED.get(tree, {}).get(file, []):
            if code and "#{" + code.group(1) + "}" in (emitted_text(tree, path) or ""):
                return f"{path} interpolates `{code.group(1)}`"
        return None
    if rule == "model.unsupported-macro" and "drops `has_and_belongs_to_many" in message:
        # The model the message names, wherever the statement is (a concern's `included` block).
        return model_evidence(rule, message, text, file, emitted_text(tree, file) or "", source_lines, file, line, "", tree)
    if rule == "controller.format-arms-unread":
        # The emitted controller still calls `format.<x> { … }` (the block's parameter is gone).
        for path in EMITTED.get(tree, {}).get(file, []):
            if re.search(r"^\s*format\.\w+", emitted_text(tree, path) or "", re.M):
                return f"{path} calls `format.…` as written"
        return None
    if rule == "library.delegates-lost":
        # The class's emitted file has none of the delegated methods the finding lists.
        names = re.findall(r"`([\w?!=]+)`", message.split("none of them (", 1)[-1].split(")", 1)[0])
        paths = EMITTED.get(tree, {}).get(file, [])
        texts = [emitted_text(tree, p) or "" for p in paths]
        if names and texts and not any(re.search(r"def " + re.escape(n) + r"(?![\w?!=])", t) for n in names for t in texts):
            return f"{paths[0]} has none of " + ", ".join(names[:3])
        return None
    if rule == "syntax.block-parameter-form":
        # The same call's block in the emitted file takes other parameters than the source's (the
        # dropped ones are gone), and none of its occurrences there keeps the source's list.
        # The block whose parameters hold the finding's column (a line may open several).
        column = finding.get("column", 1) - 1
        blocks = list(re.finditer(r"\.?(\w+[?!]?)(?:\([^()]*\))?\s*(?:do|\{)\s*\|([^|]*)\|", text))
        block = next((b for b in blocks if b.start(2) - 1 <= column <= b.end(2)), blocks[0] if len(blocks) == 1 else None)
        lambdas = [m for m in re.finditer(r"->\s*\(([^()]*)\)", text) if m.start(1) - 1 <= column <= m.end(1)]
        if not block and lambdas:
            # A lambda's parameters: the emitted file has the lambda, without them.
            params = re.sub(r"\s+", "", lambdas[0].group(1))
            texts = [emitted_text(tree, p) or "" for p in EMITTED.get(tree, {}).get(file, [])]
            kept = any(re.sub(r"\s+", "", m.group(1)) == params for t in texts for m in re.finditer(r"->\s*\(([^()]*)\)", t))
            if texts and not kept and any("->" in t for t in texts):
                return f"no emitted lambda takes ({params})"
            return None
        if not block:
            return None
        call, params = block.group(1), re.sub(r"\s+", "", block.group(2))
        shape = re.compile(r"\b" + re.escape(call) + r"(?:\([^()]*\))?\s*(?:do|\{)\s*(?:\|([^|]*)\|)?")
        seen = []
        for path in EMITTED.get(tree, {}).get(file, []):
            for m in shape.finditer(emitted_text(tree, path) or ""):
                seen.append(re.sub(r"\s+", "", m.group(1) or ""))
        if seen and params not in seen:
            return f"the emitted `{call}` block takes |{seen[0]}|, not |{params}|"
        return None
    if rule == "model.reopened-without-superclass":
        # The model's emitted file is a plain class: no superclass.
        m = re.search(r"`class ([\w:]+)` \(no superclass\).*model defined in (\S+) loses", message)
        emitted = emitted_text(tree, m.group(2)) if m else None
        last = m.group(1).split("::")[-1] if m else ""
        if emitted is not None and re.search(r"class " + re.escape(last) + r"\b", emitted) and not re.search(r"class " + re.escape(last) + r"\s*<", emitted):
            return f"{m.group(2)} is emitted as a plain class"
        return None
    if rule in ("model.unsupported-macro", "model.validation-ignored", "model.callback-form"):
        # A statement of a concern's `included` block dropped without a word: the including model lacks it.
        dropped = re.search(r"drops this `(\w+)` from the concern's `included` block without a word: ([\w:]+) does not", message)
        if dropped:
            method, includer = dropped.group(1), dropped.group(2)
            emitted = emitted_text(tree, "app/models/" + "/".join(snake(p) for p in includer.split("::")) + ".rb")
            if emitted is None:
                return None
            after = text.split(method, 1)[-1]
            if method.startswith(("attr_", "cattr_", "mattr_")) or method == "delegate":
                names = re.findall(r"(?<![\w:]):(\w+)", after.split("to:", 1)[0])
                if names and not any(re.search(r"def (self\.)?" + re.escape(n) + r"\b", emitted) for n in names):
                    return f"{includer} has no `{names[0]}` method"
                return None
            if method in ("include", "extend", "prepend"):
                module = re.search(method + r"\s*\(?\s*([\w:]+)", text)
                if module and not re.search(r"\b" + method + r"\s*\(?\s*" + re.escape(module.group(1)) + r"\b", emitted):
                    return f"{includer} does not {method} {module.group(1)}"
                return None
            if method.startswith(("before_", "after_", "around_")) or method == "validate":
                target = re.match(r"\s*\(?\s*:(\w+[?!]?)", after)
                # A lambda or block callback: the first call of its body.
                target = target or re.search(r"(?:->\s*(?:\([^)]*\))?\s*\{|\bdo\b|\{)\s*(?:\|[^|]*\|)?\s*([a-z_]\w*[?!]?)", after)
                if target and not re.search(r"(?<!def )(?<![\w])" + re.escape(target.group(1)) + r"(?![\w?!])", emitted):
                    return f"{includer} never calls `{target.group(1)}`"
                return None
            if not re.search(r"(?<![\w.])" + re.escape(method) + r"(?![\w?!])", emitted):
                return f"{includer}'s emitted model has no `{method}`"
            return None
    if rule == "model.callback-form" and "never runs in the compiled model" in message:
        # The emitted model has no method for the callback's point (`after_update_commit` for
        # `after_commit on: :update`), so nothing of it runs.
        callback = re.match(r"\s*((?:before|after|around)_\w+)\b", text)
        on = re.search(r"\bon:\s*:(\w+)", text)
        paths = EMITTED.get(tree, {}).get(file, [])
        if callback and paths:
            kind = callback.group(1)
            if on and kind.endswith("_commit"):
                name = f"{kind[: -len('_commit')]}_{on.group(1)}_commit"
            elif on:
                return None
            else:
                name = kind
            if not any(re.search(r"def " + re.escape(name) + r"\b", emitted_text(tree, p) or "") for p in paths):
                return f"{paths[0]} has no `{name}`"
        return None
    if rule in ("model.unsupported-macro", "model.validation-ignored", "model.callback-form") and "as a plain class and drops this statement" in message:
        # A model's subclass, read as a plain class: its emitted file has no such statement.
        statement = re.match(r"\s*(\w+)[\s(]+:?(\w+)", text)
        paths = EMITTED.get(tree, {}).get(file, [])
        if statement and paths:
            pattern = r"\b" + re.escape(statement.group(1)) + r"[\s(]+:?" + re.escape(statement.group(2)) + r"\b"
            if not any(re.search(pattern, emitted_text(tree, p) or "") for p in paths):
                return f"{paths[0]} has no `{statement.group(1)} {statement.group(2)}`"
        return None
    if rule == "model.unsupported-macro":
        attribute = re.search(r"drops `attribute :(\w+)` without a word", message)
        if attribute:
            name = class_of(app, file)
            emitted = emitted_text(tree, "app/models/" + "/".join(snake(p) for p in (name or "").split("::")) + ".rb") if name else None
            if emitted is not None and not re.search(r"def " + re.escape(attribute.group(1)) + r"\b", emitted):
                return f"the emitted class has no `{attribute.group(1)}` reader"
            return None
    if rule == "syntax.alias-keyword" and "without a word" in message:
        # The emitted file of the library class lacks the new name.
        m = re.search(r"has no `([^`]+)`", message)
        paths = EMITTED.get(tree, {}).get(file, [])
        texts = [t for t in (emitted_text(tree, p) for p in paths) if t is not None]
        if m and texts and not any(re.search(r"def (self\.)?" + re.escape(m.group(1)) + r"(?![\w?!=])|alias(_method)?\s+:?" + re.escape(m.group(1)) + r"\b", t) for t in texts):
            return f"{paths[0]} has no `{m.group(1)}`"
        return None
    if rule.startswith("model.") or rule.startswith("controller."):
        dropped_def = re.search(r"drops `def (?:self\.)?(\w+[?!=]?)` from the concern's `included` block without a word: ([\w:]+) does not", message)
        if rule == "model.unsupported-macro" and dropped_def:
            # Neither the including model nor the concern's own compiled module defines it.
            module = re.search(r"^\s*module\s+([A-Z][\w:]*)", "\n".join(source_lines(file)), re.M)
            paths = ["app/models/" + "/".join(snake(p) for p in n.split("::")) + ".rb" for n in [dropped_def.group(2)] + ([module.group(1)] if module else [])]
            texts = [emitted_text(tree, p) for p in paths]
            defines = re.compile(r"def (self\.)?" + re.escape(dropped_def.group(1)) + r"(?![\w?!=])")
            if texts[0] is not None and not any(t and defines.search(t) for t in texts):
                return f"no `def {dropped_def.group(1)}` in {' or '.join(p for p, t in zip(paths, texts) if t is not None)}"
            return None
        replaced = re.search(r"drops `def (?:self\.)?(\w+[?!=]?)` from the concern's `included` block without a word: ([\w:]+)'s `[^`]+` is .*, not this method", message)
        if rule == "model.unsupported-macro" and replaced:
            # The including model defines the name, and not with the dropped method's body: the
            # method's first statement is nowhere in the definition the model has.
            emitted = emitted_text(tree, "app/models/" + "/".join(snake(p) for p in replaced.group(2).split("::")) + ".rb") or ""
            definition = re.search(r"\n(\s*)def " + re.escape(replaced.group(1)) + r"(?![\w?!=]).*?\n\1end\b", emitted, re.S)
            body = next((l.strip() for l in source_lines(file)[line:line + 6] if l.strip() and not l.strip().startswith("#")), "")
            if definition and body and body != "end" and body not in definition.group(0):
                return f"{replaced.group(2)}'s `{replaced.group(1)}` is another definition"
            return None
        name = class_of(app, file)
        folder = "models" if rule.startswith("model.") else "controllers"
        if name:
            models = ["/".join(snake(p) for p in name.split("::"))]
        else:
            # A concern's `included` statement: each model that includes the module gets it.
            module = re.search(r"^\s*module\s+([A-Z][\w:]*)", "\n".join(source_lines(file)), re.M)
            models = includers_of(app, module.group(1)) if module and rule.startswith("model.") else []
        verdicts = []
        for model_path in models:
            emitted_path = f"app/{folder}/{model_path}.rb"
            emitted = emitted_text(tree, emitted_path)
            if emitted is None:
                return None
            verdicts.append(model_evidence(rule, message, text, emitted_path, emitted, source_lines, file, line, name or model_path.split("/")[-1], tree))
        return verdicts[0] if verdicts and all(verdicts) else None
    if rule == "schema.unknown-column-type":
        m = re.search(r"`(\w+)\.(\w+)`", message)
        schema = emitted_text(tree, "config/schema.rb") or ""
        if m and not re.search(r'create_table[^\n]*"%s".*?\bend\b' % re.escape(m.group(1)), schema, re.S):
            return "config/schema.rb has no such table"
        if m:
            block = re.search(r'create_table[^\n]*"%s".*?\n\s*end\b' % re.escape(m.group(1)), schema, re.S)
            if block and f'"{m.group(2)}"' not in block.group(0):
                return f"config/schema.rb's `{m.group(1)}` has no `{m.group(2)}`"
        return None
    if rule in ("routes.redirect", "routes.missing-target", "routes.resource-option-ignored", "routes.statement-skipped"):
        return route_evidence(finding, tree, source_lines)
    if rule == "views.haml-class-merge":
        # The element's attributes in the emitted view carry `class:` twice: the shortcut's is lost.
        shortcut = re.match(r"\s*%?[\w-]*((?:\.[\w-]+)+)", text)
        classes = " ".join(c for c in (shortcut.group(1).split(".") if shortcut else []) if c)
        for path in EMITTED.get(tree, {}).get(file, []):
            emitted = emitted_text(tree, path) or ""
            if classes and re.search(r'class: "' + re.escape(classes) + r'"[^\n]*\bclass:', emitted):
                return f"{path} gives the element `class:` twice, the shortcut's first"
        return None
    if rule == "views.jbuilder-ignored":
        # `app/views/a/_x.json.jbuilder` is emitted as `app/views/a/_x_json.rb`, which writes each key.
        emitted = emitted_text(tree, re.sub(r"\.json\.jbuilder$", "_json.rb", file))
        if emitted is None:
            return None
        as_key = re.search(r'as a key named "([^"]+)"', message)
        if as_key and f'\\"{as_key.group(1)}\\":' in emitted:
            return f"the emitted view writes a \"{as_key.group(1)}\" key"
        dropped = re.search(r"drops `json\.(\w+)", message)
        if dropped and f'\\"{dropped.group(1)}\\"' not in emitted:
            return f"the emitted view has no \"{dropped.group(1)}\" key"
        shorthand = re.search(r"drops `json\.\(([^`]*)\)`", message)
        if shorthand:
            # `json.(obj, :a, :b)` writes keys a and b: none of them is in the emitted view.
            keys = re.findall(r":(\w+)", shorthand.group(1))
            if keys and not any(f'\\"{k}\\":' in emitted for k in keys):
                return f"the emitted view writes none of {', '.join(keys[:3])}"
            return None
        assigned = re.search(r"drops `(\w+) = ", message)
        if assigned and not re.search(r"^\s*" + assigned.group(1) + r" = ", emitted, re.M):
            return f"the emitted view never assigns `{assigned.group(1)}`"
        defined = re.search(r"drops `def (\w+)", message)
        if defined:
            return f"the emitted view defines no `{defined.group(1)}`" if f"def {defined.group(1)}" not in emitted else None
        if re.search(r"drops `(if|unless|case) ", message) or re.search(r"drops `[^`]* do( \|[^`|]*\|)?`", message):
            # The keys written inside the dropped conditional are nowhere in the emitted view.
            lines = source_lines(file)
            indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
            body = []
            for l in lines[line:]:
                if l.strip() == "end" and len(l) - len(l.lstrip()) == indent:
                    break
                body.append(l)
            # The keys the conditional writes at its own level (not those nested inside them).
            inner = min((len(l) - len(l.lstrip()) for l in body if l.strip().startswith("json.")), default=indent + 2)
            keys = {k for l in body if len(l) - len(l.lstrip()) == inner for k in re.findall(r"^\s*json\.(\w+)", l)}
            if keys and not any(f'\\"{k}\\":' in emitted for k in keys):
                return f"the emitted view writes none of {', '.join(sorted(keys)[:3])}"
            return None
        with_argument = re.search(r"writes `json\.(\w+)` with its argument as the value and drops the block", message)
        if with_argument and f'\\"{with_argument.group(1)}\\":' in emitted and "do |" not in emitted:
            return f"the emitted view writes \"{with_argument.group(1)}\" from the argument alone"
        return None
    return None


# ---------------------------------------------------------------------------------------------------
# apps
# ---------------------------------------------------------------------------------------------------


EMITTED_ROUTE = re.compile(r'Route\.new\("(\w+)", "([^"]*)", :(\w+), :(\w+)\)')


def emitted_routes(tree):
    """(verb, path) → (controller, action) of the emitted flat route table."""
    text = emitted_text(tree, "config/routes.rb") or ""
    return {(v, p): (c, a) for v, p, c, a in EMITTED_ROUTE.findall(text)}


RAILS_ROUTES = {}
# By emitted tree: each source file's emitted paths in the CRuby tree (`switchyard tree`).
EMITTED = {}



def model_evidence(rule, message, text, emitted_path, emitted, source_lines, file, line, name, tree=None):
    """What a model's or controller's emitted file shows of a finding on one of its statements, or None."""
    habtm = re.search(r"drops `has_and_belongs_to_many :(\w+)` without a word: the compiled ([\w:]+) has no", message)
    if habtm:
        # The model the message names (a concern's `included` block is spliced into its includer).
        path = "app/models/" + "/".join(snake(p) for p in habtm.group(2).split("::")) + ".rb"
        model = emitted_text(tree, path) if tree else None
        text_of_model, where = (model, path) if model is not None else (emitted, emitted_path)
        reader = re.search(r"def " + re.escape(habtm.group(1)) + r"\b", text_of_model)
        return None if reader else f"{where} has no `{habtm.group(1)}`"
    if rule == "model.validation-ignored":
        m = re.search(r"enforce (?:this )?`(\w+):`|custom validator `(\w+):` \((\w+)\)", message)
        lead = re.search(r"validates\w*\s*\(?\s*((?::\w+\s*,\s*)*:\w+)", text)
        attrs = re.findall(r":(\w+)", lead.group(1)) if lead else []
        labels = [a.replace("_", " ").capitalize() for a in attrs]
        if m and m.group(3):
            return f"{emitted_path} never calls {m.group(3)}" if m.group(3) not in emitted else None
        validator = m.group(1) if m else None
        # The compiled model's checks are its `def validate`: the app's own methods may say the same.
        checks = re.search(r"\n(\s*)def validate\b.*?(?=\n\1def |\n\1end\b|\Z)", emitted, re.S)
        if checks and validator in RAILS_MESSAGES and validator != "length":
            emitted = checks.group(0)
        # A message the app gives the validation: the compiled check would carry it.
        statement = " ".join(source_lines(file)[line - 1:line + 6])
        custom = re.search(r"message:\s*\"([^\"#]{6,})", statement)
        if validator and custom and custom.group(1) not in emitted:
            return f"{emitted_path} has no check with the message \"{custom.group(1)}\""
        if validator == "comparison" and not re.search(r"must be (greater|less|equal|other) than|must be equal to", emitted):
            return f"{emitted_path} has no comparison check"
        if validator in RAILS_MESSAGES and RAILS_MESSAGES[validator] not in emitted:
            return f"{emitted_path} has no `{RAILS_MESSAGES[validator]}` check"
        if validator == "length" and labels and not any(f"{l} is too" in emitted for l in labels):
            return f"{emitted_path} has no length check of {', '.join(attrs)}"
        if validator == "presence" and labels and not any(f"{l} can't be blank" in emitted for l in labels):
            return f"{emitted_path} has no presence check of {', '.join(attrs)}"
        return None
    if rule == "model.validation-option-ignored":
        m = re.search(r"`(\w+):`", message)
        if m and f"{m.group(1)}:" not in emitted.split("def validate", 1)[-1][:4000]:
            return f"{emitted_path}'s validate runs without `{m.group(1)}:`"
        return None
    if rule == "model.association-option-ignored":
        m = re.search(r"`(\w+):` on `\w+ :(\w+)`", message)
        if m and m.group(1) == "counter_cache":
            # The counter the option names (or `<table>_count`), written anywhere by the emitted model.
            lines = source_lines(file)[line - 1:]
            statement = []
            for l in lines:
                statement.append(l)
                if not l.rstrip().endswith((",", "(")):
                    break
            named = re.search(r"counter_cache:\s*(?::(\w+)|[\"'](\w+)[\"'])", " ".join(statement))
            plural = re.sub(r"y$", "ies", snake(name.split("::")[-1])) if snake(name.split("::")[-1]).endswith("y") else snake(name.split("::")[-1]) + "s"
            column = (named.group(1) or named.group(2)) if named else plural + "_count"
            writes = re.compile(r"(update_counters|increment|decrement|update_column)[^\n]*\b" + re.escape(column) + r"\b|\b" + re.escape(column) + r"\s*[+-]=")
            if not writes.search(emitted):
                return f"{emitted_path} never writes the counter `{column}`"
            return None
        if m and m.group(1) == "inverse_of":
            # The reader of the association never sets the inverse on what it loads.
            statement = " ".join(l.strip() for l in source_lines(file)[line - 1:line + 4])
            inverse = re.search(r"inverse_of:\s*:?[\"']?(\w+)", statement)
            reader = re.search(r"\n(\s*)def " + re.escape(m.group(2)) + r"\b.*?(?=\n\1def |\Z)", emitted, re.S)
            if inverse and reader and not re.search(r"\b" + re.escape(inverse.group(1)) + r"\s*=[^=]|@" + re.escape(inverse.group(1)) + r"\b", reader.group(0)):
                return f"the compiled `{m.group(2)}` never sets `{inverse.group(1)}` on what it loads"
            return None
        if m:
            key, name = m.group(1), m.group(2)
            probe = {
                # The association's record touched (`board.touch`), not the model's own `touch`.
                "touch": r"\b" + re.escape(name) + r"&?\.touch\b",
                "inverse_of": r"inverse",
                "autosave": r"_autosave_" + re.escape(name) + r"\b",
            }.get(key, re.escape(key))
            if not re.search(probe, emitted):
                return f"{emitted_path} has no trace of `{key}:`"
        scoped = re.search(r"ignores the scope of `\w+ :(\w+)`", message)
        if scoped:
            # The scope's first condition (`where(latest: true)` → `latest`) is nowhere in the
            # association's compiled reader.
            statement = " ".join(l.strip() for l in source_lines(file)[line - 1:line + 5])
            body = re.search(r"->\s*(?:\([^)]*\))?\s*\{(.*?)\}\s*(?:,|$)|lambda\s*\{(.*?)\}", statement)
            token = re.search(r"\b(?:where|order|joins|includes|not|rewhere|merge|select|preload|eager_load)\(\s*[:\"']?(\w+)", (body.group(1) or body.group(2) or "") if body else "")
            reader = re.search(r"\n(\s*)def " + re.escape(scoped.group(1)) + r"\b.*?(?=\n\1def |\Z)", emitted, re.S)
            used = token and reader and re.search(r"\b" + re.escape(token.group(1)) + r"\b\s*(=|<|>|IN\b|IS\b|:)|ORDER BY[^\"]*\b" + re.escape(token.group(1)) + r"\b|\." + re.escape(token.group(1)) + r"\b", reader.group(0))
            if token and reader and not used:
                return f"the compiled `{scoped.group(1)}` has no condition on `{token.group(1)}`"
            return None
        return None
    if rule == "model.method-parameters-dropped":
        m = re.search(r"parameter of `(\w+[?!]?)`", message)
        if m:
            d = re.search(r"def (self\.)?" + re.escape(m.group(1)) + r"(\(([^)]*)\))?", emitted)
            if d and not re.search(r"[*&]", d.group(3) or ""):
                return f"{emitted_path}: `def {m.group(1)}({d.group(3) or ''})`"
        return None
    if rule == "controller.concern-macro-not-expanded":
        m = re.search(r"expand `(\w+[?!]?)`", message)
        called = m and re.search(r"(?<![\w.])" + re.escape(m.group(1)) + r"(?![\w?!])", emitted)
        return f"{emitted_path} never calls `{m.group(1)}`" if m and not called else None
    if rule in ("controller.macro-dropped", "controller.after-around-filter"):
        m = re.search(r"`(\w+)`", message)
        if m and not re.search(r"(?<![\w.])" + re.escape(m.group(1)) + r"(?![\w?!])", emitted):
            return f"{emitted_path} has no `{m.group(1)}`"
        return None
    return None



def includers_of(app, module):
    """The app's models (`app/models` paths without `.rb`) that `include` the module."""
    out = []
    root = os.path.join(app, "app", "models")
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".rb"):
                continue
            path = os.path.join(folder, name)
            try:
                text = open(path, errors="replace").read()
            except OSError:
                continue
            if re.search(r"^\s*include\s+(::)?" + re.escape(module) + r"\b", text, re.M) and re.search(r"<\s*(ApplicationRecord|ActiveRecord::Base)\b", text):
                out.append(os.path.relpath(path, root)[:-3])
    return sorted(out)

def route_evidence(finding, tree, source_lines=None):
    """The routes Rails makes from the finding's line (and the block it opens: an ignored `path:` on
    `resources … do` moves the routes nested in it), against the emitted table: a dropped route is
    absent, an ignored option sends it to another controller or path."""
    lines = {finding["line"]}
    source = source_lines(finding["file"]) if source_lines else []
    # An option on a continuation line (`resources :x,\n  controller: "y"`): the call's rows carry the
    # line the call starts on.
    first = finding["line"]
    while first > 1 and first - 2 < len(source) and source[first - 2].rstrip().endswith((",", "(")):
        first -= 1
        lines.add(first)
    opener = source[finding["line"] - 1] if finding["line"] - 1 < len(source) else ""
    if re.search(r"\bdo(\s*\|[^|]*\|)?\s*$", opener):
        indent = len(opener) - len(opener.lstrip())
        for n in range(finding["line"], len(source)):
            if source[n].strip() == "end" and len(source[n]) - len(source[n].lstrip()) == indent:
                break
            lines.add(n + 1)
    rails = [r for r in RAILS_ROUTES.get(tree, []) if r.get("file") == finding["file"] and r.get("line") in lines]
    if not rails:
        if finding["rule"] == "routes.statement-skipped":
            return skipped_route_evidence(tree, [source[n - 1] for n in sorted(lines) if n - 1 < len(source)])
        return None
    emitted = emitted_routes(tree)
    differences = []
    for r in rails:
        path = r["path"].replace("(.:format)", "")
        for verb in (r["verb"] or "GET").split("|"):
            target = emitted.get((verb, path))
            want = r["controller_action"]
            if "#" not in want:
                if target is None:
                    differences.append(f"{verb} {path} is not in the emitted table")
                continue
            controller, action = want.split("#", 1)
            if target is None:
                differences.append(f"{verb} {path} is not in the emitted table")
            elif target != (controller.replace("/", "_"), action):
                differences.append(f"{verb} {path} reaches {target[0]}#{target[1]}, not {want}")
    return "; ".join(differences[:2]) or None


ROUTE_SEGMENT = re.compile(
    r"""\b(?:get|post|put|patch|delete|match|scope|namespace|resources?)\b\s*\(?\s*(?:["']/?([\w\-/]+)["']|:(\w+))"""
    r"""|\b(?:path|at):\s*["']/?([\w\-/]+)["']|=>\s*["']/([\w\-/]+)["']"""
)
ROUTE_TARGET = re.compile(r"""(?:\bto:\s*|=>\s*)["']([\w/]+)#(\w+)["']""")


def skipped_route_evidence(tree, statement):
    """A routes statement the compiler skips (and Switchyard's own table leaves out with it): every
    path segment it names is absent from the emitted table; with no segment (`root to: "c#a"`),
    every controller#action it names is."""
    emitted = emitted_routes(tree)
    paths = [p for _, p in emitted]
    targets = set(emitted.values())
    segments, actions = [], []
    for line in statement:
        code = line.split("#", 1)[0] if not re.search(r"[\"'][^\"']*#", line) else line
        for m in ROUTE_SEGMENT.finditer(code):
            segment = next(g for g in m.groups() if g is not None)
            segments.extend(part for part in segment.split("/") if part and not part.startswith(":"))
        actions.extend(ROUTE_TARGET.findall(line))
    if segments:
        present = [s for s in segments if any(re.search(r"/" + re.escape(s) + r"(/|$|\.)", p) for p in paths)]
        return None if present else "no emitted route has " + ", ".join(f"/{s}" for s in segments[:3])
    if actions:
        present = [a for a in actions if (a[0].replace("/", "_"), a[1]) in targets]
        return None if present else "no emitted route reaches " + ", ".join(f"{c}#{a}" for c, a in actions[:3])
    return None


def near(warnings, file, line, pattern=None):
    return [w for w in warnings if w["path"] == file and abs(w["line"] - line) <= 1 and (pattern is None or re.search(pattern, w["message"]))]


def fatal_of(lines):
    return next((l for l in lines if "ingest" in l and ("unsupported construct" in l or "parse error" in l)), None)


def repaired_copy(app, gaps, roundhouse, work):
    """A copy of an app the strict ingest refuses, without the files it refuses (every file with a
    rejecting gap, then each file a strict compile still stops at): its warnings and tree stand for
    the files that remain. (The real compiler stops at the first such file; this is how the rest of
    the app is held to it too.)"""
    copy = os.path.join(work, "repaired-app")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(app, copy, symlinks=True, ignore=beside_code(app))
    removed, stops = [], []
    for path, message in gaps:
        file = gap_file(path)
        if rejecting(file, message) and os.path.isfile(os.path.join(copy, file)):
            os.remove(os.path.join(copy, file))
            removed.append(file)
    for _ in range(150):
        _, _, other = transpile(roundhouse, copy, "ruby", os.path.join(work, "probe"), lenient=False)
        if "migration verb" in (fatal_of(other) or ""):
            # Without db/schema.rb every migration is folded: take out each the fold cannot replay at once.
            verbs = re.compile(r"^\s*(change_table|create_join_table|drop_join_table|execute|reversible|revert|up_only)\b", re.M)
            migrate = os.path.join(copy, "db", "migrate")
            for name in sorted(os.listdir(migrate)) if os.path.isdir(migrate) else []:
                path = os.path.join(migrate, name)
                if name.endswith(".rb") and verbs.search(open(path, errors="replace").read()):
                    os.remove(path)
                    removed.append(f"db/migrate/{name}")
            continue
        fatal = fatal_of(other)
        m = re.search(r"in (\S+?): ", fatal or "")
        if not m:
            break
        file = m.group(1).replace(copy.rstrip("/") + "/", "")
        if not os.path.isfile(os.path.join(copy, file)):
            break
        os.remove(os.path.join(copy, file))
        removed.append(file)
        stops.append(file)
    return copy, sorted(set(removed)), stops


# ---------------------------------------------------------------------------------------------------
# Line level: a finding of a gap rule is borne out when taking its construct out of the file takes a
# gap of its kind out of the survey (the survey names files, never lines).
# ---------------------------------------------------------------------------------------------------

# What to put where the construct was, tried in order until the file still parses: an expression
# (`nil`), nothing (text in a template, a string's `#@x`), a splat for a parameter list.
NEUTRAL = {
    "syntax.argument-forwarding": ["*a", "nil", ""],
    "syntax.anonymous-keyword-forwarding": ["**{}", "**nil", "nil", ""],
    "syntax.embedded-variable": ["", "nil"],
    "syntax.empty-interpolation": ["", "nil"],
    "views.text-interpolation": ["", "nil"],
    "syntax.block-argument-form": ["&:itself", "nil", ""],
    # A routes method the ingest does not know, by name: `scope`, which it reads with or without a block.
    "routes.unsupported-dsl": ["drop-block", "scope", "nil"],
    "views.haml-class-merge": [""],
    # `begin … end while c`: a plain `begin … end`.
    "syntax.do-while": ["do-while", "nil"],
    # A tag whose code Roundhouse pairs wrongly, as one tag per line (each opener counted on its own).
    "views.output-block-pairing": ["split", "nil"],
    # An unread filter, as a HAML comment (its lines dropped, no gap).
    "views.haml-filter": ["-#"],
    # A template's line the compiler cannot read: without it.
    "views.template-parse-error": [""],
    # A statement of a model's `class << self` that is not a `def`: without it.
    "model.singleton-class-statement": [""],
}
PARSE_BROKEN = re.compile(r"parse error|MissingNode")
# Rules whose construct is the whole file (its name, its format) or whose reader records only the
# first of several (a fixture file): the file's gap is their verdict.
FILE_LEVEL = {"syntax.parse-error", "views.template-engine", "views.template-format", "fixtures.unsupported-value"}


FOR_HEAD = re.compile(r"for\s+(.+?)\s+in\s+(.+?)(?:\s+do)?\s*;?\s*$")


def neutral_options(finding, file):
    """What to put in the construct's place, in order of preference; `None` blanks its lines."""
    options = list(NEUTRAL.get(finding["rule"], ["nil", ""]))
    if finding["rule"] == "syntax.for-loop":
        options.insert(0, "for")  # rewritten as `.each` below
    if finding["rule"] == "views.output-block-pairing" and "this closing tag is passed through" in finding.get("message", ""):
        options.insert(0, "<% end ")  # the closing tag (up to its `%>`) as one the compiler pairs
    return options + [None]


def spliced(text, finding, replacement, template=False):
    """`text` with the finding's span (1-based lines, character columns) replaced; `replacement` None
    puts `nil` on each of its lines. In a template, a construct over several lines (a block across
    tags) is replaced on its first line, up to the tag's end."""
    lines = text.split("\n")
    first, last = finding["line"] - 1, finding.get("end_line", finding["line"]) - 1
    if first >= len(lines):
        return None
    last = min(last, len(lines) - 1)
    start_col, end_col = finding["column"] - 1, finding.get("end_column", finding["column"] + 1) - 1
    if replacement == "drop-block":
        # A call with a block (`use_doorkeeper do … end`): the call and its block, to the `end` at its
        # indentation (the block's own calls would be read as the same kind of construct).
        line = lines[first]
        if not re.search(r"\bdo(\s*\|[^|]*\|)?\s*$", line):
            return None
        indent = len(line) - len(line.lstrip())
        for i in range(first + 1, len(lines)):
            if lines[i].strip() == "end" and len(lines[i]) - len(lines[i].lstrip()) == indent:
                return "\n".join(lines[:first] + [""] * (i - first + 1) + lines[i + 1:])
        return None
    if replacement == "do-while":
        # `begin … end while c` as a plain `begin … end`: the loop's condition goes, the body stays.
        for i in range(first, len(lines)):
            m = re.match(r"(\s*)end\s+(while|until)\b", lines[i])
            if m:
                out = list(lines)
                out[i] = m.group(1) + "end"
                return "\n".join(out)
        return None
    if replacement == "split":
        # The tag over its lines: each line ends the tag and the next opens one of the same kind.
        opening = lines[first][start_col:start_col + 3]
        kind = "<%=" if opening.startswith("<%=") else "<%"
        closing_line = next((i for i in range(first, len(lines)) if "%>" in lines[i][(start_col if i == first else 0):]), None)
        if closing_line is None or closing_line == first:
            return None
        out = list(lines)
        for i in range(first, closing_line):
            out[i] = out[i] + " %>"
            out[i + 1] = kind + " " + out[i + 1]
        return "\n".join(out)
    if template:
        # Within the tag (or the HAML line) the construct starts on: never its `%>`.
        closing = lines[first].find("%>", start_col)
        if last > first:
            last, end_col = first, (closing if closing >= 0 else len(lines[first]))
        elif closing >= 0:
            end_col = min(end_col, closing)
    if replacement is None:
        if template:
            return None
        return "\n".join(lines[:first] + ["nil"] * (last - first + 1) + lines[last + 1:])
    head, tail = lines[first][:start_col], lines[last][end_col:]
    if replacement == "for":
        m = FOR_HEAD.match((lines[first][start_col:end_col] if first == last else lines[first][start_col:]).rstrip().rstrip("-"))
        if not m:
            return None
        replacement = f"({m.group(2)}).each do |{m.group(1)}|"
        if first != last:  # the whole loop: keep its body and `end`, rewrite the head alone
            return "\n".join(lines[:first] + [head + replacement] + lines[first + 1:])
    # The construct's lines stay lines (blank after its first), so that other findings' lines still hold.
    return "\n".join(lines[:first] + [head + replacement + tail] + [""] * (last - first) + lines[last + 1:])


def beside_code(app):
    """A copytree ignore for an app's copy: what the compiler never reads beside its code (`.git`,
    `node_modules` anywhere; `tmp`, `log`, `vendor`, `public`, `storage`, `coverage` at the root),
    never a folder of its code that shares the name (`app/controllers/public`)."""
    root = os.path.abspath(app)

    def ignore(folder, names):
        at_root = os.path.abspath(folder) == root
        return [n for n in names if n in (".git", "node_modules") or at_root and n in ("tmp", "log", "vendor", "public", "storage", "coverage")]

    return ignore


class LineJudge:
    """Re-surveys one file of an app with one construct taken out at a time. The file is surveyed in a
    small app of its own (the fixtures' base files and the file) when the compiler says the same of it
    there as in the whole app, else in a working copy of the whole app. Verdicts are kept in
    WORK/../line-verdicts.json by (app, file, span, rule, the file's text), so a later run asks the
    compiler only about findings it has not seen."""

    def __init__(self, name, app, roundhouse, work, gaps):
        self.name, self.app, self.roundhouse, self.work = name, app, roundhouse, work
        self.whole = os.path.join(work, "line-app")
        self.store = os.path.join(os.path.dirname(work.rstrip("/")), "line-verdicts.json")
        try:
            with open(self.store) as f:
                self.kept = json.load(f)
        except (OSError, ValueError):
            self.kept = {}
        self.full_gaps = collections.defaultdict(list)
        for path, message in gaps:
            self.full_gaps[gap_file(path)].append(message)
        self.place = {}  # file -> (app dir to survey, baseline gaps there)

    def gaps_in(self, root, file):
        prefix = root.rstrip("/") + "/"
        return [m for p, m in survey(self.roundhouse, root) if gap_file(p.replace(prefix, "", 1)) == file or p == ""]

    def where(self, file, text):
        """The app to survey `file` in, and its gaps there before any change."""
        if file in self.place:
            return self.place[file]
        mini = small_app({file: text}, os.path.join(self.work, "line-mini"))
        here = self.gaps_in(mini, file)
        # Compared by kind (a message up to its node's fields, which print pointers that differ per run).
        bucket = lambda messages: sorted(m.split("(", 1)[0] for m in messages)
        # A HAML template's gaps name no file in the whole app's survey: its own small app is the only
        # place they are its own.
        if bucket(here) == bucket(self.full_gaps.get(file, [])) or file.endswith(".haml"):
            self.place[file] = (mini, here)
        else:
            if not os.path.isdir(self.whole):
                shutil.copytree(self.app, self.whole, symlinks=True, ignore=beside_code(self.app))
            # The copy is the app itself: its gaps are the survey's.
            self.place[file] = (self.whole, list(self.full_gaps.get(file, [])))
        return self.place[file]

    def fails_to_parse(self, text):
        """Whether the compiler's reader, given `text` as a model of a small app, reports it unparsable:
        the channel for a syntax error in a file the compile of the whole app never reads."""
        probe = small_app({"app/models/parse_probe.rb": text}, os.path.join(self.work, "parse-probe"))
        if any(re.search(GAP["syntax.parse-error"], m) for m in self.gaps_in(probe, "app/models/parse_probe.rb")):
            return True
        # A syntax error Prism recovers from is no survey gap: the strict compile names it.
        _, _, other = transpile(self.roundhouse, probe, "ruby", os.path.join(self.work, "parse-probe-out"), lenient=False)
        return any("error[parse]" in line for line in other)

    def preload_crash(self, finding, siblings, copy_of):
        """A `model.preload-crash`: with every other such finding fixed as it suggests (the key written
        out) in a copy of `copy_of`, the `--allow-unsupported` compile still panics on this key."""
        key_written = re.search(r"full name, `([\w:]+)`", finding["message"])
        file_text = open(os.path.join(copy_of, finding["file"]), errors="replace").read()
        key = "|".join([self.name, finding["file"], str(finding["line"]), finding["rule"], hashlib.sha1(file_text.encode()).hexdigest()[:16], str(len(siblings))])
        if key in self.kept:
            return self.kept[key]
        copy = os.path.join(self.work, "crash-app")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(copy_of, copy, symlinks=True, ignore=beside_code(copy_of))
        for other in sorted(siblings, key=lambda f: (f["file"], f["end_line"], f["end_column"]), reverse=True):
            if other is finding:
                continue
            path = os.path.join(copy, other["file"])
            if not os.path.isfile(path):
                continue
            lines = open(path, errors="replace").read().split("\n")
            rewrite = re.search(r"foreign_key: :(\w+)", other["message"])
            at, col = other["end_line"] - 1, other["end_column"] - 1
            if rewrite and at < len(lines):
                lines[at] = lines[at][:col] + f", foreign_key: :{rewrite.group(1)}" + lines[at][col:]
                with open(path, "w", encoding="utf-8") as f:
                    f.write("\n".join(lines))
        rc, _, other_lines = transpile(self.roundhouse, copy, "ruby", os.path.join(self.work, "crash-out"), lenient=True)
        printed = "\n".join(other_lines)
        result = bool(key_written) and rc != 0 and "apply_preload_lowering" in printed and key_written.group(1) in printed
        self.kept[key] = result
        with open(self.store, "w") as f:
            json.dump(self.kept, f)
        return result

    def attempt(self, root, file, text, finding, before, gap_pattern):
        """Takes the finding's construct out of `text` (surveyed at `root`): "line" when a gap of the
        kind goes with it, "gap-stays", or "inconclusive" when no stand-in keeps the file parsing."""
        target = os.path.join(root, file)
        template = file.endswith((".erb", ".haml"))
        before_kind = sum(1 for m in before if re.search(gap_pattern, m))
        before_broken = sum(1 for m in before if PARSE_BROKEN.search(m))
        try:
            for replacement in neutral_options(finding, file):
                variant = spliced(text, finding, replacement, template)
                if variant is None:
                    continue
                with open(target, "w", encoding="utf-8") as f:
                    f.write(variant)
                after = self.gaps_in(root, file)
                broken = sum(1 for m in after if PARSE_BROKEN.search(m))
                if broken > before_broken and not PARSE_BROKEN.search(gap_pattern):
                    continue  # the stand-in does not parse: try another
                kind = sum(1 for m in after if re.search(gap_pattern, m))
                return "line" if kind < before_kind else "gap-stays"
            return "inconclusive"
        finally:
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)

    def without(self, text, findings, file):
        """`text` with each of `findings`' constructs replaced by its first stand-in that applies,
        from the last to the first (so that earlier positions hold)."""
        template = file.endswith((".erb", ".haml"))
        for f in sorted(findings, key=lambda f: (f["line"], f["column"]), reverse=True):
            for replacement in neutral_options(f, file):
                variant = spliced(text, f, replacement, template)
                if variant is not None:
                    text = variant
                    break
        return text

    def verdict(self, finding, gap_pattern, others):
        """Whether taking the finding's construct out takes a gap of its kind out of the survey. When
        it does not, the same is asked of the file with every other finding's construct taken out
        first: a reader that stops at its first error (a library body's `@@x = {}`, a fixture) or a
        second construct of the kind on the line hides the rest."""
        file = finding["file"]
        try:
            text = open(os.path.join(self.app, file), encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            return "unreadable"
        key = "|".join([self.name, file, str(finding["line"]), str(finding["column"]), str(finding.get("end_line")), str(finding.get("end_column")), finding["rule"], hashlib.sha1(text.encode()).hexdigest()[:16]])
        if key in self.kept:
            return self.kept[key]
        root, before = self.where(file, text)
        result = self.attempt(root, file, text, finding, before, gap_pattern)
        if result != "line" and others:
            alone = self.without(text, others, file)
            target = os.path.join(root, file)
            try:
                with open(target, "w", encoding="utf-8") as f:
                    f.write(alone)
                before_alone = self.gaps_in(root, file)
            finally:
                with open(target, "w", encoding="utf-8") as f:
                    f.write(text)
            # The others' stand-ins must leave the file parsing (unless a parse error is the kind asked about).
            parses = PARSE_BROKEN.search(gap_pattern) or not any(PARSE_BROKEN.search(m) for m in before_alone)
            if any(re.search(gap_pattern, m) for m in before_alone) and parses:
                try:
                    if self.attempt(root, file, alone, finding, before_alone, gap_pattern) == "line":
                        result = "line (alone)"
                finally:
                    with open(target, "w", encoding="utf-8") as f:
                        f.write(text)
        self.kept[key] = result
        with open(self.store, "w") as f:
            json.dump(self.kept, f)
        return result


def stops_alone(app, file, roundhouse, work):
    """Whether a strict compile of the fixtures' base app with `file` added stops at `file` (or
    `None` when that says nothing: the file does not stop it there, but the whole app's may)."""
    try:
        text = open(os.path.join(app, file), encoding="utf-8").read()
    except (OSError, UnicodeDecodeError):
        return True
    mini = small_app({file: text}, os.path.join(work, "stop-mini"))
    _, _, other = transpile(roundhouse, mini, "ruby", os.path.join(work, "stop-probe"), lenient=False)
    shutil.rmtree(os.path.join(work, "stop-probe"), ignore_errors=True)
    fatal = fatal_of(other) or ""
    return file in fatal


def compiler_side(app, roundhouse, work, reuse):
    """What the compiler says of the app: its survey, the strict compile's first stop, every file a
    strict compile stops at (in order), and the warnings and tree of a copy without those files. Kept
    in WORK/compiler.json: with `reuse`, a later run takes it from there (the app and the compiler
    are what they were; only Switchyard changed)."""
    kept = os.path.join(work, "compiler.json")
    if reuse and os.path.isfile(kept):
        with open(kept) as f:
            answer = json.load(f)
        if answer.get("app") == app and os.path.isdir(answer.get("tree") or work):
            return answer
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    gaps = survey(roundhouse, app)
    strict_rc, strict_found, strict_other = transpile(roundhouse, app, "ruby", os.path.join(work, "strict"), lenient=False)
    fatal = fatal_of(strict_other)
    warnings, spinel_warnings, tree, removed, stops = [], [], None, [], []
    compiled = app
    if fatal is not None:
        compiled, removed, stops = repaired_copy(app, gaps, roundhouse, work)
    crash = None
    if fatal_of(transpile(roundhouse, compiled, "ruby", os.path.join(work, "probe"), lenient=False)[2]) is None:
        code, warnings, other = transpile(roundhouse, compiled, "ruby", os.path.join(work, "ruby"), lenient=True)
        _, spinel_warnings, _ = transpile(roundhouse, compiled, "spinel", os.path.join(work, "spinel"), lenient=True)
        tree = os.path.join(work, "ruby")
        if code == 101:
            # The compiler crashed after its ingest: no tree and no warnings to hold findings to.
            crash = next((l for l in other if "panicked" in l), "a panic")
            crash = (crash + " " + next((l for l in other[other.index(crash) + 1:] if l.strip()), "")) if crash in other else crash
            warnings, spinel_warnings, tree = [], [], None
    shutil.rmtree(os.path.join(work, "probe"), ignore_errors=True)
    shutil.rmtree(os.path.join(work, "strict"), ignore_errors=True)
    first = re.search(r"in (\S+?): ", fatal or "")
    answer = {
        "app": app,
        "gaps": gaps,
        "strict_rc": strict_rc,
        "fatal": fatal,
        "first_stop": first.group(1).replace(app.rstrip("/") + "/", "", 1) if first else None,
        "stops": stops,
        "removed": removed,
        "warnings": warnings,
        "spinel_warnings": spinel_warnings,
        "tree": tree,
        "strict_errors": [w for w in strict_found if w["level"] == "error"],
        "crash": crash,
    }
    with open(kept, "w") as f:
        json.dump(answer, f)
    return answer


def measure(name, app, roundhouse, binary, work, reuse=False, line_level=True):
    answer = compiler_side(app, roundhouse, work, reuse)
    gaps, fatal, removed = answer["gaps"], answer["fatal"], answer["removed"]
    warnings, spinel_warnings, tree = answer["warnings"], answer["spinel_warnings"], answer["tree"]
    strict_rc, strict_found = answer["strict_rc"], answer["strict_errors"]
    findings = switchyard(binary, app)
    entries = []
    if tree:
        routes = run([binary, "routes", app, "--format", "json"], REPO).stdout
        RAILS_ROUTES[tree] = [json.loads(l) for l in routes.splitlines() if l.strip()]
        entries = [json.loads(l) for l in run([binary, "tree", app, "--format", "json", "--target", "ruby"], REPO).stdout.splitlines() if l.strip()]
        EMITTED[tree] = {e["source"]: e["targets"].get("ruby", {}).get("paths", []) for e in entries}

    cache = {}

    def source_lines(file):
        if file not in cache:
            try:
                cache[file] = open(os.path.join(app, file), errors="replace").read().splitlines()
            except OSError:
                cache[file] = []
        return cache[file]

    gap_files = collections.defaultdict(list)
    for path, message in gaps:
        gap_files[gap_file(path)].append(message)
    error_files = {w["path"] for w in strict_found if w["level"] == "error"}

    per_rule = collections.OrderedDict()
    confirmed_findings, unscored = set(), set()
    judge = LineJudge(name, app, roundhouse, work, gaps) if line_level else None
    line_confirmed = set()

    # Model files a reopening elsewhere makes the compiler write as plain classes.
    gutted = {m.group(1) for f in findings if f["rule"] == "model.reopened-without-superclass" for m in [re.search(r"model defined in (\S+) loses", f["message"])] if m}

    def row(rule):
        return per_rule.setdefault(rule, {"findings": 0, "confirmed": 0, "scored": 0, "by": collections.Counter(), "unconfirmed": [], "unscored": 0})

    for f in findings:
        rule = f["rule"]
        if not rule.startswith(SCORED_FAMILIES) or f["severity"] == "info":
            continue
        if f["file"] in removed and f["severity"] != "error":
            continue  # the file is not in the compiled copy: nothing to confirm a warning with
        r = row(rule)
        r["findings"] += 1
        where = f"{f['file']}:{f['line']}"
        why = None
        if f.get("app") not in (None, "", "."):
            r["unscored"] += 1
            r["unconfirmed"].append(f"{where} (an app nested in this one, which the compile of this one does not read) {f['message'][:80]}")
            continue
        if tree is None and rule not in GAP and rule not in CRASH:
            r["unscored"] += 1
            continue  # no emitted tree or warnings to hold it to: the app never compiles
        parent = re.search(r"\(a subclass of ([\w:]+)\)", f["message"])
        if parent and removed and ("app/models/" + "/".join(snake(p) for p in parent.group(1).split("::")) + ".rb") in removed:
            r["findings"] -= 1
            r["unscored"] += 1
            unscored.add(id(f))
            continue  # its superclass is not in the compiled copy: the verdict there would be another
        if f["file"] in gutted and rule in TREE and rule not in GAP and rule != "model.reopened-without-superclass":
            r["findings"] -= 1
            r["unscored"] += 1
            unscored.add(id(f))
            continue  # a reopening makes the compiled model a plain class: the statement is gone with it
        if rule == "syntax.alias-keyword" and "without a word" in f["message"] and gap_files.get(f["file"]):
            r["findings"] -= 1
            r["unscored"] += 1
            unscored.add(id(f))
            continue  # a silent drop in a library file the compiler drops for another construct: no tree shows it
        includer = re.search(r"without a word: ([\w:]+)(?: does not get it|'s `)", f["message"])
        if includer and removed and ("app/models/" + "/".join(snake(p) for p in includer.group(1).split("::")) + ".rb") in removed:
            r["findings"] -= 1
            r["unscored"] += 1
            unscored.add(id(f))
            continue  # the including model is not in the compiled copy: nothing shows what it gets
        line_verdict = None
        # HAML gaps name no file: a HAML template's are found in a small app of its own.
        haml = f["file"].endswith(".haml") and bool(gap_files.get(""))
        if rule in GAP and rule not in FILE_LEVEL and (gap_files.get(f["file"]) or haml) or rule in GAP and any(re.search(GAP[rule], m) for m in gap_files.get(f["file"], [])):
            # The file has a gap; at the line level, the construct must be the cause of one of its kind.
            others = [g for g in findings if g is not f and g["file"] == f["file"] and g["rule"] in GAP and g["severity"] != "info" and g["rule"] not in FILE_LEVEL]
            if rule == "schema.migration-verb":
                # The fold stops at a migration's first verb, and Switchyard names only that one: the
                # verbs after it would keep the gap when it is taken out, so they are taken out too
                # (the gap must still be there with them gone, and go with the finding's).
                for n, l in enumerate(source_lines(f["file"])[f["line"]:], start=f["line"] + 1):
                    m = re.match(r"(\s*)execute\b", l)
                    if m:
                        others.append({"file": f["file"], "line": n, "column": len(m.group(1)) + 1, "end_line": n, "end_column": len(m.group(1)) + 8, "rule": rule})
            line_verdict = "line" if judge is None or rule in FILE_LEVEL else judge.verdict(f, GAP[rule], others)
            if line_verdict.startswith("line"):
                why = "gap"
                line_confirmed.add(id(f))
        # Otherwise the compiler's other channels: a warning on the line, the emitted tree.
        if why:
            pass
        elif rule in WARNING and near(spinel_warnings if rule == "controller.json-format-dropped" else warnings, f["file"], f["line"], WARNING[rule]):
            why = "warning"
        elif rule in TREE and tree and tree_evidence(f, app, tree, source_lines):
            why = "tree"
        elif f["severity"] == "warning" and [w for w in near(warnings, f["file"], f["line"]) if w["code"] in ("unsupported", "lower_residue")]:
            why = "other warning on line"
        if not why and rule == "model.preload-crash":
            # Asked even at the file level: a panic names no line, so there is nothing finer to ask.
            crash_judge = judge or LineJudge(name, app, roundhouse, work, gaps)
            # The compile must reach the models: the copy without the files the strict ingest refuses.
            repaired = os.path.join(work, "repaired-app")
            base = repaired if removed and os.path.isdir(repaired) else app
            # The association's target, as the compiler resolves it (`class_name:`, else the name).
            lines = source_lines(f["file"])[f["line"] - 1 : f.get("end_line", f["line"])]
            named = re.search(r"class_name:\s*[\"']:*([\w:]+)[\"']", " ".join(lines))
            plural = re.search(r"has_many\s*\(?\s*:(\w+)", " ".join(lines))
            target = named.group(1) if named else (plural.group(1)[:-1] if plural and plural.group(1).endswith("s") else "")
            target_file = "app/models/" + "/".join(snake(p) for p in target.split("::")) + ".rb"
            if not os.path.isfile(os.path.join(base, f["file"])) or target_file in removed:
                # The owner or the target is not in the compiled copy: nothing here can panic on it.
                r["findings"] -= 1
                r["unscored"] += 1
                unscored.add(id(f))
                continue
            siblings = [g for g in findings if g["rule"] == rule]
            if crash_judge.preload_crash(f, siblings, base):
                why = "crash"
        if not why and rule == "syntax.parse-error" and judge is not None and not gap_files.get(f["file"]):
            # A file the whole app's compile does not read: its text, read alone, must not parse.
            text = "\n".join(source_lines(f["file"])) + "\n"
            if judge.fails_to_parse(text):
                why = "gap (read alone)"
        if not why and tree is None and rule in TREE:
            # What the tree would have borne out (a silent drop) cannot be looked for: the compile crashed.
            r["findings"] -= 1
            r["unscored"] += 1
            unscored.add(id(f))
            continue
        if not why and line_verdict is not None:
            r["scored"] += 1
            r["unconfirmed"].append(f"{where} (file has a gap; line: {line_verdict}) {f['message'][:100]}")
            continue
        if why:
            r["confirmed"] += 1
            r["scored"] += 1
            r["by"][why] += 1
            confirmed_findings.add(id(f))
        elif rule not in GAP and rule not in WARNING and rule not in TREE and rule not in CRASH:
            r["unscored"] += 1
            r["unconfirmed"].append(f"{where} (no compiler channel) {f['message'][:110]}")
        else:
            r["scored"] += 1
            r["unconfirmed"].append(f"{where} {f['message'][:120]}")

    # Ingest, file level.
    error_rule_files = {f["file"] for f in findings if f["severity"] == "error" and f["rule"].startswith(SCORED_FAMILIES)}
    confirmed_files = {f for f in error_rule_files if f in gap_files}
    rejecting_files = {file for file, messages in gap_files.items() if any(rejecting(file, m) for m in messages)}
    # A gap the survey records does not always stop a strict compile (a model concern's `included`
    # block is read for its includers and its failures skipped): each such file is compiled strictly
    # in a small app of its own, and is a stop only if that compile stops at it.
    stopping = answer.setdefault("stopping", {})
    for file in sorted(rejecting_files):
        # Migrations are folded only without a db/schema.rb, routes may draw other files: the app's.
        if file not in stopping and file.startswith(("app/", "test/")):
            stopping[file] = stops_alone(app, file, roundhouse, work)
    if stopping:
        with open(os.path.join(work, "compiler.json"), "w") as out:
            json.dump(answer, out)
    rejecting_files = {f for f in rejecting_files if stopping.get(f, True)}
    rejecting_files |= set(answer["stops"]) | ({answer["first_stop"]} if answer["first_stop"] else set())
    flagged = {f["file"] for f in findings if f["severity"] == "error"}
    # A stop file is flagged at the line when one of its errors is borne out there.
    flagged_at_line = {f["file"] for f in findings if f["severity"] == "error" and (id(f) in line_confirmed or f["rule"] == "syntax.parse-error" and id(f) in confirmed_findings)}
    first_stop = answer["first_stop"]
    missed_gaps = sorted((file, m) for file in rejecting_files - flagged for m in (gap_files.get(file) or ["the strict compile stops in this file"]) if rejecting(file, m))
    any_finding = collections.defaultdict(list)
    for f in findings:
        any_finding[f["file"]].append(f)
    nonrejecting_missed = sorted(
        (file, m)
        for file, messages in gap_files.items()
        for m in messages
        if not rejecting(file, m) and not any_finding.get(file)
        and not (file == "<delegate>" and any(f["rule"] == "library.delegates-lost" for f in findings))
    )

    # Warnings, line level.
    unsupported = [w for w in warnings if w["code"] == "unsupported"]
    sites = sorted({(w["path"], w["line"], w["message"][:110]) for w in unsupported})
    site_keys = sorted({(p, l) for p, l, _ in sites})
    covered = [k for k in site_keys if any(f["file"] == k[0] and abs(f["line"] - k[1]) <= 1 for f in findings)]
    missed_sites = [s for s in sites if (s[0], s[1]) not in covered]
    # The template statements the view lowering drops (`warning[lower_residue]`), by the rule that names them.
    dropped_sites = sorted({(w["path"], w["line"]) for w in warnings if w["code"] == "lower_residue" and "template statement dropped" in w["message"]})
    dropped_covered = [k for k in dropped_sites if any(f["file"] == k[0] and abs(f["line"] - k[1]) <= 1 and f["rule"] == "views.statement-dropped" for f in findings)]

    mc = [f for f in findings if f["rule"].startswith(MODEL_CONTROLLER) and f["severity"] == "warning" and f["file"] not in removed and id(f) not in unscored]
    mc_confirmed = sum(1 for f in mc if id(f) in confirmed_findings)

    # Tree paths: what `switchyard tree` says each file writes in the CRuby tree, against the tree.
    tree_report = {"predicted": 0, "found": 0, "missing": [], "unclaimed": []}
    if tree:
        emitted_files = set()
        for top in ("app", "config", "db", "test", "sig"):
            for base, _, names in os.walk(os.path.join(tree, top)):
                emitted_files.update(os.path.relpath(os.path.join(base, n), tree) for n in names)
        claimed = set()
        for entry in entries:
            if entry["source"] in removed:
                continue  # not in the compiled copy
            for path in entry["targets"].get("ruby", {}).get("paths", []):
                claimed.add(path)
                tree_report["predicted"] += 1
                if path in emitted_files:
                    tree_report["found"] += 1
                else:
                    tree_report["missing"].append(f"{entry['source']} → {path}")
        # Emitted app files no source claims (runtime and scaffold files aside).
        app_sources = {os.path.relpath(os.path.join(b, n), app) for top in ("app", "test") for b, _, ns in os.walk(os.path.join(app, top)) for n in ns}
        for path in sorted(emitted_files):
            if path.startswith(("app/models/", "app/controllers/", "app/views/", "test/models/", "test/controllers/")) and path not in claimed and path.endswith(".rb"):
                tree_report["unclaimed"].append(path)
        tree_report["unclaimed"] = [p for p in tree_report["unclaimed"] if not p.endswith(("_row.rb", "relation_scopes.rb")) or p not in claimed]
    return {
        "crash": answer.get("crash"),
        "removed": removed,
        "tree": tree_report,
        "name": name,
        "gaps": len(gaps),
        "strict": "ingests" if fatal is None else fatal.replace(app.rstrip("/") + "/", ""),
        "strict_exit": strict_rc,
        "warnings_unsupported": len(unsupported),
        "per_rule": per_rule,
        "ingest": {
            "files_with_error_findings": len(error_rule_files),
            "confirmed": len(confirmed_files),
            "unconfirmed": sorted(error_rule_files - confirmed_files),
            "rejecting_gap_files": len(rejecting_files),
            "flagged": len(rejecting_files & flagged),
            "flagged_at_line": len(rejecting_files & flagged_at_line),
            "first_stop": first_stop,
            "first_stop_flagged": first_stop is None or first_stop in flagged,
            "missed": missed_gaps,
            "nonrejecting_missed": nonrejecting_missed,
        },
        "warnings": {"sites": len(site_keys), "covered": len(covered), "missed": missed_sites},
        "dropped": {"sites": len(dropped_sites), "covered": len(dropped_covered), "missed": [k for k in dropped_sites if k not in dropped_covered]},
        "model_controller": {"findings": len(mc), "confirmed": mc_confirmed},
    }


def pct(a, b):
    return "n/a" if b == 0 else f"{100.0 * a / b:.1f}%"


def report(result, verbose):
    out = []
    out.append(f"## {result['name']}")
    out.append(f"strict transpile: {result['strict'][:300]}; {result['gaps']} ingest gaps; {result['warnings_unsupported']} warning[unsupported]")
    if result.get("crash"):
        out.append(f"the compile with --allow-unsupported crashed after its ingest ({result['crash'][:200]}): no tree or warnings to hold findings to")
    if result["removed"]:
        out.append(f"warnings and tree measured on a copy without the {len(result['removed'])} files the strict ingest refuses: {', '.join(result['removed'][:12])}{' …' if len(result['removed']) > 12 else ''}")
    i = result["ingest"]
    out.append(f"files with a Roundhouse-rule error: {i['files_with_error_findings']}, with an ingest gap: {i['confirmed']} ({pct(i['confirmed'], i['files_with_error_findings'])})")
    out.append(f"files where the strict compile stops: {i['rejecting_gap_files']}, flagged with an error: {i['flagged']} ({pct(i['flagged'], i['rejecting_gap_files'])}), with an error borne out at its line: {i['flagged_at_line']}")
    if i["first_stop"]:
        out.append(f"first stop: {i['first_stop']} — {'flagged' if i['first_stop_flagged'] else 'MISSED'}")
    w = result["warnings"]
    out.append(f"warning[unsupported] sites: {w['sites']}, covered (±1 line): {w['covered']} ({pct(w['covered'], w['sites'])})")
    dr = result.get("dropped", {"sites": 0, "covered": 0, "missed": []})
    out.append(f"template statements dropped (warning[lower_residue]): {dr['sites']}, covered (±1 line): {dr['covered']} ({pct(dr['covered'], dr['sites'])})")
    for path, line in dr["missed"][:10]:
        out.append(f"  missed: {path}:{line}")
    mc = result["model_controller"]
    out.append(f"model/controller warnings: {mc['findings']}, confirmed: {mc['confirmed']} ({pct(mc['confirmed'], mc['findings'])})")
    t = result["tree"]
    out.append(f"CRuby tree paths predicted: {t['predicted']}, in the emitted tree: {t['found']} ({pct(t['found'], t['predicted'])}); emitted app files no source claims: {len(t['unclaimed'])}")
    out.append("")
    out.append(f"{'rule':44} {'found':>6} {'conf':>6}  by")
    for rule, r in result["per_rule"].items():
        by = ", ".join(f"{k} {v}" for k, v in r["by"].most_common())
        out.append(f"{rule:44} {r['findings']:6} {r['confirmed']:6}  {by}")
    listed = [(rule, r) for rule, r in result["per_rule"].items() if r["unconfirmed"]]
    if listed:
        out.append("")
        out.append("not confirmed:")
        for rule, r in listed:
            shown = r["unconfirmed"] if verbose else r["unconfirmed"][:8]
            for u in shown:
                out.append(f"  {rule}: {u}")
            if len(shown) < len(r["unconfirmed"]):
                out.append(f"  {rule}: … {len(r['unconfirmed']) - len(shown)} more")
    def listing(title, lines, limit):
        """A titled list, cut at `limit` lines unless verbose."""
        if not lines:
            return
        out.append("")
        out.append(title)
        shown = lines if verbose or limit is None else lines[:limit]
        out.extend(f"  {line}" for line in shown)
        if len(shown) < len(lines):
            out.append(f"  … {len(lines) - len(shown)} more")

    listing("files with an error finding but no ingest gap:", i["unconfirmed"], 20)
    listing("rejecting gaps Switchyard misses:", [f"{f}: {m[:140]}" for f, m in i["missed"]], None)
    listing("gaps that drop a file or a construct (not the app) with no finding in the file:",
            [f"{f}: {m[:140]}" for f, m in i["nonrejecting_missed"]], None)
    listing("predicted tree paths the compiler did not write:", t["missing"], 25)
    listing("emitted files no source is mapped to:", t["unclaimed"], 25)
    listing("warning[unsupported] sites Switchyard misses:", [f"{p}:{l}: {m}" for p, l, m in w["missed"]], 40)
    return "\n".join(out)


def corpus_apps(corpus, apps_dir, held_out=False):
    """NAME=PATH for each app of a corpus file (`name repository commit [subfolder]`, `#` comments):
    the apps tuned on, or (`held_out`) those after the `# Held out` line."""
    specs, in_held_out = [], False
    for line in open(corpus):
        if line.startswith("# Held out"):
            in_held_out = True
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 3 and in_held_out == held_out:
            name, sub = fields[0], fields[3] if len(fields) > 3 else ""
            specs.append(f"{name}={os.path.join(apps_dir, name, sub)}")
    return specs


def summary(results):
    """Per app and overall: the figures the issue's targets name."""
    out = ["## Summary", "", "| app | findings borne out | stop files with an error | … borne out at the line | first stop | warning[unsupported] covered | template statements dropped, covered |", "|---|---|---|---|---|---|---|"]
    total = collections.Counter()
    for r in results:
        # Findings of a rule with no compiler channel (and not borne out by another) are not scored.
        scored = sum(v["scored"] for v in r["per_rule"].values())
        confirmed = sum(v["confirmed"] for v in r["per_rule"].values())
        i, w = r["ingest"], r["warnings"]
        dr = r.get("dropped", {"sites": 0, "covered": 0})
        total.update({"dropped": dr["sites"], "dropped_covered": dr["covered"]})
        total.update({"scored": scored, "confirmed": confirmed, "stops": i["rejecting_gap_files"], "flagged": i["flagged"],
                      "at_line": i["flagged_at_line"], "sites": w["sites"], "covered": w["covered"],
                      "firsts": 1 if i["first_stop"] else 0, "firsts_flagged": 1 if i["first_stop"] and i["first_stop_flagged"] else 0})
        first = "—" if not i["first_stop"] else ("flagged" if i["first_stop_flagged"] else "**missed**")
        out.append(f"| {r['name']} | {confirmed}/{scored} ({pct(confirmed, scored)}) | {i['flagged']}/{i['rejecting_gap_files']} | {i['flagged_at_line']}/{i['rejecting_gap_files']} | {first} | {w['covered']}/{w['sites']} ({pct(w['covered'], w['sites'])}) | {dr['covered']}/{dr['sites']} ({pct(dr['covered'], dr['sites'])}) |")
    out.append(f"| **all {len(results)}** | {total['confirmed']}/{total['scored']} ({pct(total['confirmed'], total['scored'])}) | {total['flagged']}/{total['stops']} ({pct(total['flagged'], total['stops'])}) | {total['at_line']}/{total['stops']} ({pct(total['at_line'], total['stops'])}) | {total['firsts_flagged']}/{total['firsts']} | {total['covered']}/{total['sites']} ({pct(total['covered'], total['sites'])}) | {total['dropped_covered']}/{total['dropped']} ({pct(total['dropped_covered'], total['dropped'])}) |")
    return "\n".join(out)


def cmd_apps(args):
    binary = args.switchyard or os.path.join(REPO, "target", "release", "switchyard")
    specs = list(args.apps)
    if args.corpus:
        specs += corpus_apps(args.corpus, args.apps_dir or os.path.dirname(os.path.abspath(args.corpus)), args.held_out)
    if args.only:
        specs = [s for s in specs if s.partition("=")[0] in args.only.split(",")]
    results = []
    for spec in specs:
        name, _, path = spec.rpartition("=")
        path = os.path.abspath(path)
        name = name or os.path.basename(path.rstrip("/"))
        work = os.path.join(args.work, name)
        if not args.reuse:
            shutil.rmtree(work, ignore_errors=True)
        result = measure(name, path, os.path.abspath(args.roundhouse), binary, work, reuse=args.reuse, line_level=not args.file_level)
        results.append(result)
        print(report(result, args.verbose), flush=True)
        print(flush=True)
    print(summary(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=list)


# ---------------------------------------------------------------------------------------------------
# fixtures: one construct per small app, with the compiler's verdict beside it
# ---------------------------------------------------------------------------------------------------

def parse_fixture(path):
    """(header lines, {relative path: text}); files start at `#- /path` lines, as in the Rust fixtures."""
    header, files, current = [], {}, None
    for line in open(path).read().splitlines(keepends=True):
        if line.startswith("#- "):
            current = line[3:].strip().lstrip("/")
            files[current] = ""
        elif current is None:
            header.append(line.rstrip("\n"))
        else:
            files[current] += line
    return header, files


def write_app(files, dest):
    """The fixture's files over the base app; a file whose text is `(absent)` takes a base file away."""
    _, base = parse_fixture(os.path.join(FIXTURES, "_base.fixture"))
    for relative, text in {**base, **files}.items():
        if text.strip() == "(absent)":
            continue
        full = os.path.join(dest, relative)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)


def small_app(files, dest):
    """A fresh small app at `dest`: the fixtures' base app with `files` over it. Returns `dest`."""
    shutil.rmtree(dest, ignore_errors=True)
    write_app(files, dest)
    return dest


def emitted(root, tops=None):
    """{relative path: text} of an emitted tree (only under `tops`, when given)."""
    tree = {}
    for top in tops or [""]:
        for base, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                p = os.path.join(base, n)
                tree[os.path.relpath(p, root)] = open(p, errors="replace").read()
    return tree


def ask(roundhouse, app, jruby=False):
    gaps = survey(roundhouse, app)
    with tempfile.TemporaryDirectory() as out:
        strict_rc, _, strict_other = transpile(roundhouse, app, "ruby", os.path.join(out, "strict"), lenient=False)
        fatal = next((l for l in strict_other if "ingest" in l and ("unsupported construct" in l or "parse error" in l)), None)
        rc, warnings, other = transpile(roundhouse, app, "ruby", os.path.join(out, "ruby"), lenient=True)
        _, spinel, _ = transpile(roundhouse, app, "spinel", os.path.join(out, "spinel"), lenient=True)
        tree = emitted(os.path.join(out, "ruby"), ("app", "config", "db", "test"))
        jruby_tree = None
        if jruby:
            transpile(roundhouse, app, "jruby", os.path.join(out, "jruby"), lenient=True)
            jruby_tree = emitted(os.path.join(out, "jruby"))
    prefix = app.rstrip("/") + "/"
    return {
        "gaps": gaps,
        "fatal": fatal.replace(prefix, "") if fatal else None,
        "compiles": rc == 0,
        # A panic (the compiler's own failure, after its ingest): what it printed, strict and lenient.
        "crash": "\n".join(l for lines in (strict_other, other) for l in next((lines[i:] for i, l in enumerate(lines) if "panicked" in l), [])),
        "warnings": [w for w in warnings if w["code"] in ("unsupported", "lower_residue", "missing_preload", "blank_unlowered")],
        "spinel_warnings": [w for w in spinel if w["code"] in ("unsupported", "lower_residue", "missing_preload", "blank_unlowered")],
        "tree": tree,
        "jruby_tree": jruby_tree,
    }


def verdict_holds(line, answer):
    """One `# roundhouse:` line against the compiler's answer: (holds, what was seen)."""
    kind, _, rest = line.partition(" ")
    rest = rest.strip()
    if kind == "gap":
        file, _, pattern = rest.partition(" ")
        seen = [m for p, m in answer["gaps"] if gap_file(p) == file]
        return any(pattern in m for m in seen), seen
    if kind == "no-gap":
        seen = [(p, m) for p, m in answer["gaps"] if not rest or gap_file(p) == rest]
        return not seen, seen
    if kind == "fatal":
        return answer["fatal"] is not None and rest in answer["fatal"], answer["fatal"]
    if kind == "compiles":
        return answer["compiles"] and answer["fatal"] is None, answer["fatal"]
    if kind in ("warning", "spinel-warning"):
        where, _, pattern = rest.partition(" ")
        file, _, line_no = where.rpartition(":")
        pool = answer["warnings"] if kind == "warning" else answer["spinel_warnings"]
        seen = [f"{w['path']}:{w['line']} {w['message'][:100]}" for w in pool if w["path"] == file]
        return any(w["path"] == file and w["line"] == int(line_no) and pattern in w["message"] for w in pool), seen
    if kind in ("no-warning", "no-spinel-warning"):
        pool = answer["warnings"] if kind == "no-warning" else answer["spinel_warnings"]
        file, _, line_no = rest.partition(":")
        seen = [f"{w['path']}:{w['line']} {w['message'][:100]}" for w in pool if (not file or w["path"] == file) and (not line_no or w["line"] == int(line_no))]
        return not seen, seen
    if kind in ("emits", "omits", "jruby-emits", "jruby-omits"):
        file, _, text = rest.partition(" ")
        body = (answer["jruby_tree"] or {} if kind.startswith("jruby-") else answer["tree"]).get(file)
        kind = kind.removeprefix("jruby-")
        if body is None:
            return kind == "omits" and text == "", f"no {file} in the tree"
        return (text in body) == (kind == "emits"), f"{file}: {len(body)} bytes"
    if kind == "no-file":
        return rest not in answer["tree"], sorted(answer["tree"])[:20]
    if kind == "crash":
        return bool(answer.get("crash")) and rest in answer["crash"], answer.get("crash", "")[:300]
    return False, f"unknown verdict kind `{kind}`"


def cmd_ask(args):
    roundhouse = os.path.abspath(args.roundhouse)
    with tempfile.TemporaryDirectory() as tmp:
        app = os.path.abspath(args.app)
        if os.path.isfile(app):
            _, files = parse_fixture(app)
            app = os.path.join(tmp, "app")
            write_app(files, app)
        answer = ask(roundhouse, app)
        print("gaps:")
        for p, m in answer["gaps"]:
            print(f"  {p}: {m[:200]}")
        print(f"strict: {answer['fatal'] or 'ingests'}")
        print(f"--allow-unsupported: {'exit 0' if answer['compiles'] else 'fails'}")
        for label, pool in (("warnings (ruby)", answer["warnings"]), ("warnings (spinel only)", [w for w in answer["spinel_warnings"] if w not in answer["warnings"]])):
            print(f"{label}:")
            for w in pool:
                print(f"  {w['path']}:{w['line']}: {w['code']}: {w['message'][:200]}")
        if args.show:
            for path in args.show:
                print(f"--- {path}")
                print(answer["tree"].get(path, "(not emitted)"))


def cmd_fixtures(args):
    roundhouse = os.path.abspath(args.roundhouse)
    paths = args.fixtures or sorted(os.path.join(FIXTURES, n) for n in os.listdir(FIXTURES) if n.endswith(".fixture") and not n.startswith("_"))
    head = args.commit or run(["git", "rev-parse", "HEAD"], roundhouse).stdout.strip()
    failures = 0
    for path in paths:
        header, files = parse_fixture(path)
        verdicts, commits = [], set()
        for line in header:
            m = re.match(r"# roundhouse(?: (\w+))?: (.*)$", line)
            if m:
                commits.add(m.group(1))
                verdicts.append(m.group(2).strip())
        with tempfile.TemporaryDirectory() as tmp:
            app = os.path.join(tmp, "app")
            write_app(files, app)
            answer = ask(roundhouse, app, jruby=any(v.startswith("jruby-") for v in verdicts))
        bad = [(v, seen) for v in verdicts for ok, seen in [verdict_holds(v, answer)] if not ok]
        name = os.path.relpath(path, REPO)
        if not verdicts:
            failures += 1
            print(f"FAIL {name}: no `# roundhouse:` verdict")
        elif bad:
            failures += 1
            print(f"FAIL {name}")
            for v, seen in bad:
                print(f"     {v}\n       saw: {seen}")
        else:
            stale = sorted(c for c in commits if c and not head.startswith(c))
            print(f"ok   {name}" + (f" (recorded at {', '.join(stale)}; this checkout is {head[:8]})" if stale and head else ""))
    print(f"{len(paths) - failures} of {len(paths)} fixtures hold")
    sys.exit(1 if failures else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    apps = sub.add_parser("apps")
    apps.add_argument("--roundhouse", required=True)
    apps.add_argument("--switchyard")
    apps.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "switchyard-fidelity"))
    apps.add_argument("--json")
    apps.add_argument("--verbose", action="store_true")
    apps.add_argument("--corpus", help="a corpus file: `name repository commit [subfolder]` per line")
    apps.add_argument("--apps-dir", help="where the corpus's apps are extracted, one folder per name")
    apps.add_argument("--held-out", action="store_true", help="the corpus's held-out apps instead of those tuned on")
    apps.add_argument("--only", help="comma-separated names of the corpus to measure")
    apps.add_argument("--reuse", action="store_true", help="take the compiler's answers from the last run's WORK (the apps and the compiler unchanged)")
    apps.add_argument("--file-level", action="store_true", help="skip the line-level re-surveys")
    apps.add_argument("apps", nargs="*")
    one = sub.add_parser("ask")
    one.add_argument("--roundhouse", required=True)
    one.add_argument("--show", action="append", help="print this emitted file")
    one.add_argument("app")
    fixtures = sub.add_parser("fixtures")
    fixtures.add_argument("--roundhouse", required=True)
    fixtures.add_argument("--commit", help="the Roundhouse commit DIR was built from (when DIR is not a git checkout)")
    fixtures.add_argument("fixtures", nargs="*")
    args = parser.parse_args()
    {"apps": cmd_apps, "ask": cmd_ask, "fixtures": cmd_fixtures}[args.command](args)


if __name__ == "__main__":
    main()

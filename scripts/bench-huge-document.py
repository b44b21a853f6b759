#!/usr/bin/env python3
"""Time and memory of a large open document: didOpen of a generated Ruby file of SIZE MB (default 50)
to its first publishDiagnostics, then each of EDITS incremental edits to its publish; the server's
peak resident memory (VmHWM). SHAPE is what the file is made of: `lines` (default: lines of data),
`broken` (the same, opening with a syntax error it keeps, so each edit's tree has errors and is
reparsed from scratch), `array` (one `X = [1,1,…]`: two tokens a byte and a half), `assign`
(`x=1` lines) or `erb` (a template of `<%= 1 %>` tags).
Usage: scripts/bench-huge-document.py BINARY [SIZE_MB] [EDITS] [SHAPE]"""
import os, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_stdio import Server

binary = sys.argv[1]
size_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 50
edits = int(sys.argv[3]) if len(sys.argv) > 3 else 20
shape = sys.argv[4] if len(sys.argv) > 4 else "lines"
broken = shape == "broken"

app = tempfile.mkdtemp(prefix="switchyard-huge-")
os.makedirs(os.path.join(app, "config"))
open(os.path.join(app, "Gemfile"), "w").write("gem 'rails'\n")
open(os.path.join(app, "config/routes.rb"), "w").write("Rails.application.routes.draw do\nend\n")
size = int(size_mb * 1_000_000)
relative, language = ("app/views/generated/index.html.erb", "erb") if shape == "erb" else ("lib/generated.rb", "ruby")
uri = "file://" + os.path.join(app, relative)
if shape == "array":
    text = "X = [" + "1," * ((size - 7) // 2) + "1]\n"
else:
    line = {"assign": "x=1\n", "erb": "<%= 1 %>\n"}.get(shape, 'VALUES << [1, 2, 3, "a generated line of data"]\n')
    text = ("def broken(\n" if broken else "") + line * (size // len(line))

server = Server([binary], env={**os.environ, "SWITCHYARD_LOG": "error"})

def published(version):
    return lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"].get("version") == version

server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": "file://" + app, "capabilities": {"window": {"workDoneProgress": True}}}})
server.wait(lambda m: m.get("id") == 1)
server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
server.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"].get("kind") == "end")
start = time.perf_counter()
server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}})
server.wait(published(1))
opened = time.perf_counter() - start
latencies = []
at = min(1000, text.count("\n") // 2)
edit = "<%= 0 %>\n" if shape == "erb" else "VALUES << 0\n"
for version in range(2, edits + 2):
    start = time.perf_counter()
    server.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": version},
          "contentChanges": [{"range": {"start": {"line": at, "character": 0}, "end": {"line": at, "character": 0}}, "text": edit}]}})
    server.wait(published(version))
    latencies.append(time.perf_counter() - start)
peak = next(l for l in open(f"/proc/{server.pid}/status") if l.startswith("VmHWM")).split()[1]
server.exit()
print(f"{size_mb} MB {shape} document: didOpen to diagnostics {opened * 1000:.0f} ms; "
      f"edit to diagnostics median {statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms ({edits} edits); "
      f"peak memory {int(peak) / 1024:.0f} MiB")

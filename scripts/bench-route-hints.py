#!/usr/bin/env python3
"""Time of `textDocument/inlayHint` on a `config/routes.rb` of N `resources` lines (default 10,000),
asked for its first screen (50 lines) and for the whole file, after the index has ended; medians of
RUNS asks each.
Usage: scripts/bench-route-hints.py BINARY [N] [RUNS]"""
import os, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_stdio import Server

binary = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
app = tempfile.mkdtemp(prefix="switchyard-routes-")
os.makedirs(os.path.join(app, "config"))
routes = "Rails.application.routes.draw do\n" + "".join(f"  resources :things{i}\n" for i in range(n)) + "end\n"
open(os.path.join(app, "config/routes.rb"), "w").write(routes)
uri = "file://" + os.path.join(app, "config/routes.rb")
server = Server([binary, "--no-cache"])

server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": "file://" + app, "capabilities": {"window": {"workDoneProgress": True}}}})
server.wait(lambda m: m.get("id") == 1)
server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
server.wait(lambda m: m.get("method") == "$/progress" and m["params"]["value"].get("kind") == "end")
server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "ruby", "version": 1, "text": routes}}})
ask_id = 10
def ask(last_line):
    global ask_id
    ask_id += 1
    start = time.perf_counter()
    server.send({"jsonrpc": "2.0", "id": ask_id, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": uri},
          "range": {"start": {"line": 0, "character": 0}, "end": {"line": last_line, "character": 0}}}})
    reply = server.wait(lambda m: m.get("id") == ask_id and "method" not in m)
    return time.perf_counter() - start, len(reply.get("result") or [])
screen = [ask(50) for _ in range(runs)]
whole = [ask(n + 2) for _ in range(runs)]
server.exit()
print(f"{n} resources: first screen median {statistics.median(t for t, _ in screen) * 1000:.1f} ms ({screen[0][1]} hints); "
      f"whole file median {statistics.median(t for t, _ in whole) * 1000:.1f} ms ({whole[0][1]} hints)")

import { test } from "node:test";
import * as assert from "node:assert/strict";

import { logLine, parseLogLine } from "../src/serverLog";

test("tracing lines keep their level, without the timestamp", () => {
  assert.deepEqual(parseLogLine("2026-12-01T19:33:13.864288Z  INFO switchyard::lsp: indexed 40 files"), {
    level: "info",
    text: "switchyard::lsp: indexed 40 files",
  });
  assert.equal(parseLogLine("2026-12-01T19:33:13.864288Z  WARN switchyard::lsp::transport: client input: skipped 3 bytes").level, "warn");
  assert.equal(parseLogLine("2026-12-01T19:33:13.864288Z ERROR switchyard: indexing failed").level, "error");
  assert.equal(parseLogLine("2026-12-01T19:33:13.864288Z DEBUG switchyard::index: read").level, "debug");
  assert.equal(parseLogLine("2026-12-01T19:33:13.864288Z TRACE switchyard::index: read").level, "trace");
});

test("other lines: a panic or an error is an error, the rest is information", () => {
  assert.equal(parseLogLine("thread 'main' panicked at server/src/main.rs:1:1:").level, "error");
  assert.equal(parseLogLine("switchyard: error: cannot start a thread").level, "error");
  assert.equal(parseLogLine("switchyard: the input ended without a Language Server Protocol message").level, "info");
});

test("each line goes to the channel at its level; blank lines are dropped", () => {
  const logged: string[] = [];
  const channel = Object.fromEntries(
    ["trace", "debug", "info", "warn", "error"].map((level) => [level, (text: string) => logged.push(`${level}: ${text}`)]),
  ) as unknown as Parameters<typeof logLine>[0];
  logLine(channel, "2026-12-01T19:33:13.864288Z  INFO switchyard::lsp: started");
  logLine(channel, "   ");
  logLine(channel, "2026-12-01T19:33:13.864288Z  WARN switchyard::config: bad key");
  assert.deepEqual(logged, ["info: switchyard::lsp: started", "warn: switchyard::config: bad key"]);
});

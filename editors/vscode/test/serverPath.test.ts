import { test } from "node:test";
import * as assert from "node:assert/strict";

import { resolveServerPath } from "../src/serverPath";

const fsWith = (...executables: string[]) => ({ isExecutable: (file: string) => executables.includes(file) });

test("the setting wins, even when the file is missing", () => {
  assert.deepEqual(resolveServerPath(" /opt/switchyard ", "/ext", "/usr/bin", fsWith(), "linux"), { command: "/opt/switchyard", source: "setting" });
});

test("then the bundled binary", () => {
  const fs = fsWith("/ext/server/switchyard", "/usr/bin/switchyard");
  assert.deepEqual(resolveServerPath("", "/ext", "/usr/bin", fs, "linux"), { command: "/ext/server/switchyard", source: "bundled" });
});

test("then PATH, in order", () => {
  const fs = fsWith("/b/switchyard", "/c/switchyard");
  assert.deepEqual(resolveServerPath(undefined, "/ext", "/a::/b:/c", fs, "linux"), { command: "/b/switchyard", source: "path" });
});

test("Windows names and separators", () => {
  const fs = fsWith("C:\\tools\\switchyard.exe".replace(/\\/g, "/"));
  const found = resolveServerPath("", "/ext", "/x;C:/tools", { isExecutable: (f) => fs.isExecutable(f.replace(/\\/g, "/")) }, "win32");
  assert.equal(found?.source, "path");
  assert.ok(found?.command.endsWith("switchyard.exe"));
});

test("nothing found", () => {
  assert.equal(resolveServerPath("", "/ext", "/usr/bin", fsWith(), "linux"), undefined);
});

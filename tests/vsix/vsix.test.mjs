// The platform-specific extension (`scripts/package-vsix.sh`) carries the server, executable, where
// the extension looks for it first, and names its platform.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const binary = process.env.SWITCHYARD_BIN ?? "target/debug/switchyard";

test("the linux-x64 package holds the server", () => {
  const packed = spawnSync("scripts/package-vsix.sh", ["linux-x64", binary], { cwd: repo, encoding: "utf8" });
  assert.equal(packed.status, 0, packed.stderr + packed.stdout);
  const vsix = path.join(repo, "editors/vscode/dist/switchyard-linux-x64.vsix");
  const listing = spawnSync(
    "python3",
    [
      "-c",
      "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nfor i in z.infolist(): print(i.filename, oct(i.external_attr >> 16))\nprint(z.read('extension.vsixmanifest').decode())",
      vsix,
    ],
    { encoding: "utf8" },
  );
  assert.equal(listing.status, 0, listing.stderr);
  assert.match(listing.stdout, /^extension\/server\/switchyard 0o100755$/m);
  assert.match(listing.stdout, /^extension\/dist\/extension\.js /m);
  assert.match(listing.stdout, /TargetPlatform="linux-x64"/);
  assert.ok(!existsSync(path.join(repo, "editors/vscode/server")), "the copy of the binary is cleaned up");
});

test("no binary, no package", () => {
  const packed = spawnSync("scripts/package-vsix.sh", ["linux-x64", "target/no-such-binary"], { cwd: repo, encoding: "utf8" });
  assert.equal(packed.status, 2);
  assert.match(packed.stderr, /no server binary/);
});

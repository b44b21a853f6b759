import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { initializationOptions } from "../src/settings";

const reader = (values: Record<string, unknown>) => ({ get: <T>(key: string, fallback: T) => (key in values ? (values[key] as T) : fallback) });

test("defaults: no targets (switchyard.toml decides), no overrides", () => {
  assert.deepEqual(initializationOptions(reader({})), { targets: [], lanes: [], rules: {}, roundhouse: {}, inlayHints: {} });
});

test("settings become initializationOptions, invalid values dropped", () => {
  const options = initializationOptions(
    reader({
      targets: ["spinel", "cobol"],
      lanes: ["truffleruby", "graal"],
      rules: { "routes.mount": "off", "rails.missing-action": "loud" },
      "roundhouse.binary": " /opt/roundhouse ",
      "roundhouse.checkout": "",
      inlayHints: { scopes: false, colors: false, routes: "no" },
      ruleDocs: "https://docs.example.test/rules#{id}",
    }),
  );
  assert.deepEqual(options, {
    targets: ["spinel"],
    lanes: ["truffleruby"],
    rules: { "routes.mount": "off" },
    roundhouse: { binary: "/opt/roundhouse" },
    inlayHints: { scopes: false },
    ruleDocs: "https://docs.example.test/rules#{id}",
  });
});

test("a rule-docs URL without {id} is not sent", () => {
  assert.equal(initializationOptions(reader({ ruleDocs: "https://docs.example.test/rules" })).ruleDocs, undefined);
});

test("no valid target leaves the choice to switchyard.toml", () => {
  assert.deepEqual(initializationOptions(reader({ targets: ["cobol"] })).targets, []);
});

test("settings that name a program are the user's own: a repository's .vscode/settings.json cannot set them", () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"));
  const properties = manifest.contributes.configuration.properties;
  const programs = ["switchyard.server.path", "switchyard.roundhouse.binary", "switchyard.roundhouse.checkout"];
  for (const key of programs) {
    assert.equal(properties[key].scope, "machine", key);
  }
  assert.equal(manifest.capabilities.untrustedWorkspaces.supported, "limited");
  assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, programs);
});

import { test } from "node:test";
import * as assert from "node:assert/strict";

import { recorded } from "./mockVscode";

test("activation registers the commands and says clearly when no server is found", async () => {
  // Loaded after the stand-in is installed (a static import would load it first).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const extension = require("../src/extension") as { activate(context: unknown): Promise<void> };
  const saved = process.env.PATH;
  process.env.PATH = "";
  try {
    await extension.activate({ extensionPath: "/nonexistent", subscriptions: [] } as never);
  } finally {
    process.env.PATH = saved;
  }
  for (const command of ["switchyard.preview", "switchyard.showRoutes", "switchyard.showEmittedTree", "switchyard.restartServer", "switchyard.showOutput"]) {
    assert.ok(recorded.commands.has(command), `${command} registered`);
  }
  assert.ok(recorded.contentProviders.has("switchyard-routes"));
  assert.ok(recorded.contentProviders.has("switchyard-tree"));
  assert.ok(recorded.contentProviders.has("switchyard-preview"));
  assert.equal(recorded.errors.length, 1);
  assert.match(recorded.errors[0], /switchyard\.server\.path/);
  // With no server, the routes document says so instead of failing.
  const provider = recorded.contentProviders.get("switchyard-routes")!;
  assert.equal(await provider.provideTextDocumentContent({ toString: () => "switchyard-routes:/routes?x" }), "Switchyard is not running.\n");
});

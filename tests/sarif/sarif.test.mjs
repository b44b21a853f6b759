// `switchyard --check --format sarif` validated against the SARIF 2.1.0 schema (the copy Microsoft ships
// in @microsoft/jest-sarif), on an app with findings of many rules and on the example app.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
// The schema is JSON Schema draft-04.
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const binary = process.env.SWITCHYARD_BIN ? path.resolve(repo, process.env.SWITCHYARD_BIN) : path.join(repo, "target/debug/switchyard");
const schema = JSON.parse(readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"));
// One of the schema's patterns is not valid as a Unicode regexp; everything else is checked, formats too.
const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

function sarif(app) {
  const run = spawnSync(binary, ["--check", app, "--format", "sarif", "--target", "ruby", "--target", "jruby", "--target", "spinel"], { cwd: repo, encoding: "utf8" });
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  return JSON.parse(run.stdout);
}

for (const app of ["tests/fixtures/apps/rules", "tests/fixtures/apps/shop", "examples/blog"]) {
  test(`SARIF for ${app} validates against the 2.1.0 schema`, () => {
    const log = sarif(app);
    const valid = validate(log);
    assert.ok(valid, JSON.stringify(validate.errors?.slice(0, 5), null, 2));
    const run = log.runs[0];
    assert.equal(run.tool.driver.name, "switchyard");
    assert.ok(run.results.length > 0, "findings are reported");
    for (const result of run.results) {
      const rule = run.tool.driver.rules[result.ruleIndex];
      assert.equal(rule.id, result.ruleId, "ruleIndex points at the rule");
      assert.ok(rule.help.text.length > 0);
      const region = result.locations[0].physicalLocation.region;
      assert.ok(region.startLine >= 1 && region.startColumn >= 1);
    }
  });
}

// GitHub code scanning places a result by its path in the repository: an app in a subfolder of one
// gets paths from the repository's root, an app in no repository from the folder checked.
test("SARIF paths are relative to the repository that holds the app", async () => {
  const { mkdtempSync, mkdirSync, cpSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { pathToFileURL } = await import("node:url");
  const scratch = mkdtempSync(path.join(tmpdir(), "switchyard-sarif-"));
  try {
    const app = path.join(scratch, "apps", "web");
    cpSync(path.join(repo, "examples/blog"), app, { recursive: true });
    const uris = (log) => log.runs[0].results.map((r) => r.locations[0].physicalLocation.artifactLocation);
    const alone = sarif(app);
    const appFiles = new Set(uris(alone).map((l) => l.uri));
    assert.ok(uris(alone).every((l) => l.uriBaseId === "%SRCROOT%" && !l.uri.startsWith("apps/")), JSON.stringify(uris(alone)[0]));
    assert.ok(appFiles.has("app/controllers/application_controller.rb"), [...appFiles].join(" "));
    mkdirSync(path.join(scratch, ".git"));
    const inRepo = sarif(app);
    assert.ok(validate(inRepo), JSON.stringify(validate.errors?.slice(0, 5), null, 2));
    assert.deepEqual(new Set(uris(inRepo).map((l) => l.uri)), new Set([...appFiles].map((uri) => `apps/web/${uri}`)));
    const root = inRepo.runs[0].originalUriBaseIds["%SRCROOT%"].uri;
    assert.equal(root, pathToFileURL(scratch).href + "/");
    assert.equal(inRepo.runs[0].tool.driver.version, inRepo.runs[0].tool.driver.semanticVersion);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

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

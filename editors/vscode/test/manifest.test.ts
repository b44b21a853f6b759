// What package.json contributes: commands under one category, shown where they apply, ERB and HAML
// known as languages, the trace setting every LSP extension has, and no made-up repository.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"));
const contributes = manifest.contributes;

test("every command is in the Switchyard category, its title without the prefix", () => {
  for (const command of contributes.commands) {
    assert.equal(command.category, "Switchyard", command.command);
    assert.ok(!command.title.startsWith("Switchyard"), command.title);
  }
});

test("the preview sits in the editor title bar of Ruby, ERB and HAML files only", () => {
  const [title] = contributes.menus["editor/title"];
  assert.equal(title.command, "switchyard.preview");
  const when = /resourceExtname =~ \/(.*)\/$/.exec(title.when)![1];
  const files = new RegExp(when);
  for (const ext of [".rb", ".erb", ".haml", ".rake", ".jbuilder"]) assert.ok(files.test(ext), ext);
  for (const ext of [".md", ".js", ".yml", ".rbs"]) assert.ok(!files.test(ext), ext);
  const palette = contributes.menus.commandPalette.map((m: { command: string }) => m.command);
  assert.deepEqual(palette.sort(), ["switchyard.preview", "switchyard.showEmittedTree"]);
});

test("ERB and HAML are languages even without another extension", () => {
  const languages = Object.fromEntries(contributes.languages.map((l: { id: string; extensions: string[] }) => [l.id, l.extensions]));
  assert.deepEqual(languages, { erb: [".erb"], haml: [".haml"] });
  assert.ok(manifest.activationEvents.includes("onLanguage:erb") && manifest.activationEvents.includes("onLanguage:haml"));
});

test("switchyard.trace.server traces the protocol", () => {
  const trace = contributes.configuration.properties["switchyard.trace.server"];
  assert.deepEqual(trace.enum, ["off", "messages", "verbose"]);
  assert.equal(trace.default, "off");
});

test("no placeholder repository", () => {
  assert.ok(!JSON.stringify(manifest).includes("example.invalid"));
});

test("the extension README names every command", () => {
  const readme = readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");
  for (const command of contributes.commands) assert.ok(readme.includes(command.title), command.title);
});

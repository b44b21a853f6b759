import { test } from "node:test";
import * as assert from "node:assert/strict";

import { EmittedTree, statusText, treeText } from "../src/tree";

const user: EmittedTree = {
  source: "app/models/user.rb",
  targets: {
    ruby: { paths: ["app/models/user.rb", "app/models/user_row.rb"], swaps: [], lane: null },
    jruby: { paths: ["app/models/user.rb", "app/models/user_row.rb"], swaps: ["Markly → commonmark-java shim (runtime/markly_jruby.rb)"], lane: null },
    spinel: { paths: ["app/models/user.rb", "app/models/user_row.rb"], swaps: [], lane: "aot" },
  },
  summary: "CRuby → app/models/user.rb (+1) · JVM → same (1 swap) · Spinel: AOT",
};

test("status item names the trees a file lands in", () => {
  assert.equal(statusText(user), "CRuby · JVM (swaps) · Spinel AOT");
  const gemfile: EmittedTree = {
    source: "Gemfile",
    targets: { ruby: { paths: [], swaps: [], lane: null }, jruby: { paths: [], swaps: [], lane: null }, spinel: { paths: [], swaps: [], lane: null } },
    note: "the Gemfile is replaced",
    summary: "No tree: the Gemfile is replaced",
  };
  assert.equal(statusText(gemfile), "No tree");
  assert.equal(statusText(null), "");
});

test("the tree document lists paths, lane, swaps and the note", () => {
  const text = treeText({ ...user, note: "a note" });
  assert.match(text, /^app\/models\/user\.rb\n/);
  assert.match(text, /JVM:\n  app\/models\/user\.rb\n  app\/models\/user_row\.rb\n  swap: Markly → commonmark-java shim \(runtime\/markly_jruby\.rb\)\n/);
  assert.match(text, /Spinel:\n[\s\S]*  lane: aot\n/);
  assert.match(text, /Note: a note\n$/);
});

import { test } from "node:test";
import * as assert from "node:assert/strict";

import { routesText, routesUri, sourceOfRoutesUri } from "../src/routes";

test("routes URIs round-trip the source URI, spaces and all", () => {
  const source = "file:///home/me/my app/app/models/post.rb";
  const uri = routesUri(source);
  assert.ok(uri.startsWith("switchyard-routes:/routes?"));
  assert.equal(sourceOfRoutesUri(uri), source);
});

test("foreign and broken URIs are refused", () => {
  assert.equal(sourceOfRoutesUri("file:///x"), undefined);
  assert.equal(sourceOfRoutesUri("switchyard-routes:/routes?%E0%A4%A"), undefined);
});

test("one app: its table; several: headed by name; none: a clear line", () => {
  assert.equal(routesText({ apps: [{ name: "blog", root: "file:///b", table: "T\n" }] }), "T\n");
  assert.equal(
    routesText({ apps: [{ name: "a", root: "file:///a", table: "A\n" }, { name: "b", root: "file:///b", table: "B\n" }] }),
    "# a\nA\n\n# b\nB\n",
  );
  assert.match(routesText({ apps: [] }), /no config\/routes\.rb/);
});

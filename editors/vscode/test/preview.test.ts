import { test } from "node:test";
import * as assert from "node:assert/strict";

import { previewLineFor, previewUri, sourceOfPreviewUri } from "../src/preview";

test("preview URIs carry the source and the target, and name the tab after the file", () => {
  const source = "file:///home/me/my app/app/models/post.rb";
  const uri = previewUri(source, "jruby");
  assert.ok(uri.startsWith("switchyard-preview:/post.rb%20(jruby)?"), uri);
  assert.deepEqual(sourceOfPreviewUri(uri), { source, target: "jruby" });
  assert.deepEqual(sourceOfPreviewUri(previewUri(source))?.target, "ruby");
});

test("foreign URIs and unknown targets are refused", () => {
  assert.equal(sourceOfPreviewUri("file:///x"), undefined);
  assert.equal(sourceOfPreviewUri("switchyard-preview:/x?file%3A%2F%2F%2Fa#cobol"), undefined);
});

test("the preview line for a source line is the last mapped line at or before it", () => {
  const mapping: [number, number][] = [[4, 0], [60, 3], [61, 3], [70, 5]];
  assert.equal(previewLineFor(mapping, 3), 60);
  assert.equal(previewLineFor(mapping, 4), 60);
  assert.equal(previewLineFor(mapping, 9), 70);
  assert.equal(previewLineFor([], 2), undefined);
});

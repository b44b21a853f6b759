// The server driven exactly as the extension's client drives it: vscode-languageserver-protocol (the
// library under vscode-languageclient) over the real binary's stdio, with the initializationOptions the
// extension sends and its custom `switchyard/routes` request.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  InitializeRequest,
  InitializedNotification,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  PublishDiagnosticsNotification,
  PublishDiagnosticsParams,
  HoverRequest,
  CodeActionRequest,
  CodeAction,
  ShutdownRequest,
  ExitNotification,
  WorkDoneProgressCreateRequest,
  RegistrationRequest,
} from "vscode-languageserver-protocol/node";

import { initializationOptions } from "../src/settings";
import { RoutesResult, routesText } from "../src/routes";
import { EmittedTree, statusText } from "../src/tree";
import { PreviewResult } from "../src/preview";

const repo = path.resolve(__dirname, "../../../..");
const binary = process.env.SWITCHYARD_BIN ? path.resolve(repo, process.env.SWITCHYARD_BIN) : path.join(repo, "target/debug/switchyard");
const app = path.join(repo, "examples/blog");
const uri = (file: string) => pathToFileURL(file).toString();

test("initialize, diagnostics, hover, switchyard/routes, shutdown", { timeout: 60_000 }, async (t) => {
  assert.ok(fs.existsSync(binary), `build the server first: ${binary}`);
  // The rule pages the server writes go to a scratch cache, not the user's.
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-cache-"));
  const server = spawn(binary, [], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, SWITCHYARD_LOG: "warn", XDG_CACHE_HOME: cache } });
  const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
  // A failed assertion must not leave the server running (node would wait on it for ever).
  t.after(() => server.kill());
  const connection = createProtocolConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  connection.onRequest(WorkDoneProgressCreateRequest.type, () => null);
  connection.onRequest(RegistrationRequest.type, () => null);
  const diagnostics: PublishDiagnosticsParams[] = [];
  const waiters: (() => void)[] = [];
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
    diagnostics.push(params);
    waiters.splice(0).forEach((wake) => wake());
  });
  const diagnosticsFor = (file: string, version: number) =>
    new Promise<PublishDiagnosticsParams>((resolve) => {
      const look = () => {
        const found = diagnostics.find((d) => d.uri === uri(file) && d.version === version);
        if (found) resolve(found);
        else waiters.push(look);
      };
      look();
    });
  connection.listen();

  const settings = { get: <T>(key: string, fallback: T) => (key === "targets" ? (["ruby"] as T) : fallback) };
  const init = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: uri(app),
    workspaceFolders: [{ uri: uri(app), name: "blog" }],
    capabilities: { window: { workDoneProgress: true }, workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
    initializationOptions: initializationOptions(settings),
  });
  assert.equal(init.serverInfo?.name, "switchyard");
  await connection.sendNotification(InitializedNotification.type, {});

  const post = path.join(app, "app/models/post.rb");
  const text = fs.readFileSync(post, "utf8");
  await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: uri(post), languageId: "ruby", version: 1, text } });
  // Read as part of its app from the first keystroke, while the index may still be running: the
  // file's own findings (`switchyard --check` reports the same three).
  const opened = (await diagnosticsFor(post, 1)).diagnostics;
  assert.deepEqual(
    opened.map((d) => [d.code, d.range.start.line]),
    [
      ["model.unsupported-macro", 1],
      ["model.unsupported-macro", 19],
      ["model.unsupported-macro", 29],
    ],
  );
  await connection.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri: uri(post), version: 2 },
    contentChanges: [{ range: { start: { line: 21, character: 14 }, end: { line: 21, character: 14 } }, text: "(x, " }],
  });
  const broken = await diagnosticsFor(post, 2);
  const parseError = broken.diagnostics.find((d) => d.code === "syntax.parse-error");
  assert.ok(parseError, JSON.stringify(broken.diagnostics));
  assert.equal(parseError.range.start.line, 21);
  // The rule's page, written by the server, is the diagnostic's codeDescription.
  const href = parseError.codeDescription?.href ?? "";
  assert.match(href, /^file:\/\/.*\/syntax\.parse-error\.md$/);
  assert.match(fs.readFileSync(new URL(href), "utf8"), /^# syntax\.parse-error\n/);
  // Quick fixes for it: a comment silencing the line or the file.
  const actions = (await connection.sendRequest(CodeActionRequest.type, {
    textDocument: { uri: uri(post) },
    range: parseError.range,
    context: { diagnostics: [parseError] },
  })) as CodeAction[];
  assert.deepEqual(
    actions.map((a) => a.title),
    ["Disable `syntax.parse-error` for this line", "Disable `syntax.parse-error` for this file"],
  );

  // The routes table, as the "Show routes" document renders it: asked while the first index may still
  // be running, answered once it is done (a whole-app answer never describes half the app).
  const expected = fs.readFileSync(path.join(repo, "tests/fixtures/routes/apps/blog.expected.txt"), "utf8");
  const routes = await connection.sendRequest<RoutesResult>("switchyard/routes", { uri: uri(post) });
  assert.equal(routesText(routes), expected);

  const routesFile = path.join(app, "config/routes.rb");
  await connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri: uri(routesFile), languageId: "ruby", version: 1, text: fs.readFileSync(routesFile, "utf8") },
  });
  const hover = await connection.sendRequest(HoverRequest.type, { textDocument: { uri: uri(routesFile) }, position: { line: 5, character: 4 } });
  const contents = hover?.contents as { value: string };
  assert.match(contents.value, /^\*\*`resources :posts`\*\* → 12 routes/);

  // Where the model lands, as the status item and "Show emitted tree" show it.
  const tree = await connection.sendRequest<EmittedTree>("switchyard/emittedTree", { uri: uri(post) });
  assert.equal(statusText(tree), "CRuby · JVM · Spinel AOT");
  assert.deepEqual(tree.targets.ruby?.paths, ["app/models/post.rb", "sig/app/models/post.rbs", "app/models/post_row.rb", "app/models/relation_scopes.rb"]);

  // The preview follows the open buffer: the broken edit above still leaves a class to show.
  const preview = await connection.sendRequest<PreviewResult>("switchyard/preview", { uri: uri(routesFile), target: "jruby" });
  assert.equal(preview.language, "ruby");
  assert.equal(preview.target, "jruby");
  assert.match(preview.text, /^# Switchyard's approximation/);
  assert.match(preview.text, /def self\.edit_post_path\(id\) = "\/posts\/#\{id\}\/edit"/);
  assert.ok(preview.mapping.length > 0);

  await connection.sendRequest(ShutdownRequest.type);
  await connection.sendNotification(ExitNotification.type);
  assert.equal(await exited, 0);
  connection.dispose();
});

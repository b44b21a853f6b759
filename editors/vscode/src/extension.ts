// The VS Code client: starts the server over stdio, restarts it (visibly) when it dies, and adds the
// Switchyard commands. Everything testable without VS Code lives in serverPath.ts, settings.ts and
// routes.ts.
import * as fs from "fs";
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, State } from "vscode-languageclient/node";

import { ROUTES_SCHEME, RoutesResult, routesText, routesUri, sourceOfRoutesUri } from "./routes";
import { resolveServerPath } from "./serverPath";
import { initializationOptions } from "./settings";
import { EmittedTree, TREE_SCHEME, statusText, treeText } from "./tree";
import { logLine } from "./serverLog";
import * as readline from "readline";
import { PREVIEW_SCHEME, PreviewResult, previewLineFor, previewUri, sourceOfPreviewUri } from "./preview";

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let status: vscode.StatusBarItem | undefined;

async function emittedTree(uri: vscode.Uri | undefined): Promise<EmittedTree | null> {
  if (!client || !uri || uri.scheme !== "file") return null;
  try {
    return await client.sendRequest<EmittedTree | null>("switchyard/emittedTree", { uri: uri.toString(true) });
  } catch {
    return null;
  }
}

/** The status item: where the active file lands (`CRuby · JVM · Spinel AOT`). */
async function updateStatus(): Promise<void> {
  if (!status) return;
  const tree = await emittedTree(vscode.window.activeTextEditor?.document.uri);
  const text = statusText(tree);
  if (!text) {
    status.hide();
    return;
  }
  status.text = `$(git-merge) ${text}`;
  status.tooltip = tree?.summary;
  status.show();
}

const DOCUMENT_SELECTOR = [
  { scheme: "file", language: "ruby" },
  { scheme: "file", language: "erb" },
  { scheme: "file", language: "haml" },
  { scheme: "file", pattern: "**/*.erb" },
  { scheme: "file", pattern: "**/*.haml" },
];

const executable = {
  isExecutable(file: string): boolean {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  },
};

async function start(context: vscode.ExtensionContext): Promise<void> {
  const settings = vscode.workspace.getConfiguration("switchyard");
  const resolved = resolveServerPath(settings.get<string>("server.path"), context.extensionPath, process.env.PATH, executable);
  if (!resolved) {
    void vscode.window.showErrorMessage(
      "Switchyard: no server binary. Set `switchyard.server.path`, or put `switchyard` on PATH (cargo build --release).",
    );
    return;
  }
  output.info(`Starting ${resolved.command} (from the ${resolved.source})`);
  const serverOptions: ServerOptions = { command: resolved.command, args: [] };
  // Each line of the server's stderr at the level it was logged at (the client's default logs all
  // of stderr as errors).
  const lines = (input: NodeJS.ReadableStream, log: (line: string) => void) =>
    readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on("line", log);
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    stdioOptions: {
      stdout: (input, channel) => lines(input, (line) => channel.info(line)),
      stderr: (input, channel) => lines(input, (line) => logLine(channel, line)),
    },
    initializationOptions: initializationOptions(settings),
    synchronize: {
      fileEvents: [
        vscode.workspace.createFileSystemWatcher("**/*.{rb,erb,haml,jbuilder}"),
        vscode.workspace.createFileSystemWatcher("**/switchyard.toml"),
      ],
    },
  };
  client = new LanguageClient("switchyard", "Switchyard", serverOptions, clientOptions);
  client.onDidChangeState((event) => {
    if (event.oldState === State.Running && event.newState === State.Stopped) {
      void vscode.window.showWarningMessage("Switchyard: the server stopped. Run “Switchyard: Restart server” to start it again.");
    }
  });
  await client.start();
  await updateStatus();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Switchyard", { log: true });
  context.subscriptions.push(output);

  const routesChanged = new vscode.EventEmitter<vscode.Uri>();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(ROUTES_SCHEME, {
      onDidChange: routesChanged.event,
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        if (!client) return "Switchyard is not running.\n";
        const source = sourceOfRoutesUri(uri.toString(true));
        const result = await client.sendRequest<RoutesResult>("switchyard/routes", source ? { uri: source } : {});
        return routesText(result);
      },
    }),
    vscode.commands.registerCommand("switchyard.showRoutes", async () => {
      const source = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
      const uri = vscode.Uri.parse(routesUri(source ? source.toString(true) : ""));
      routesChanged.fire(uri);
      const document = await vscode.workspace.openTextDocument(uri);
      // The table is wide: a tab of the editor group in use (or the group already showing it), not a
      // new narrow group beside the others.
      const showing = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === ROUTES_SCHEME);
      await vscode.window.showTextDocument(document, { viewColumn: showing?.viewColumn ?? vscode.ViewColumn.Active, preview: true });
    }),
    vscode.commands.registerCommand("switchyard.restartServer", async () => {
      if (client) {
        await client.stop().catch(() => undefined);
        client = undefined;
      }
      await start(context);
    }),
    vscode.commands.registerCommand("switchyard.showOutput", () => output.show(true)),
    vscode.workspace.registerTextDocumentContentProvider(TREE_SCHEME, {
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const tree = await emittedTree(vscode.Uri.parse(decodeURIComponent(uri.query)));
        return tree ? treeText(tree) : "This file is in no Rails app Switchyard knows.\n";
      },
    }),
    vscode.commands.registerCommand("switchyard.showEmittedTree", async () => {
      const source = vscode.window.activeTextEditor?.document.uri;
      if (!source) return;
      const uri = vscode.Uri.parse(`${TREE_SCHEME}:/tree?${encodeURIComponent(source.toString(true))}`);
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    }),
    vscode.window.onDidChangeActiveTextEditor(() => void updateStatus()),
  );

  // "Preview specialized output": a read-only document beside the source that follows its edits and
  // scrolls with it.
  const previewChanged = new vscode.EventEmitter<vscode.Uri>();
  const openPreviews = new Map<string, vscode.Uri>(); // source URI → preview URI
  const mappings = new Map<string, [number, number][]>(); // preview URI → mapping
  const timers = new Map<string, NodeJS.Timeout>();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
      onDidChange: previewChanged.event,
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const parsed = sourceOfPreviewUri(uri.toString(true));
        if (!client || !parsed) return "# Switchyard is not running.\n";
        // With a roundhouse binary configured, the compiler's own output (after a save) when it has run.
        const exact = vscode.workspace.getConfiguration("switchyard").get<string>("roundhouse.binary", "").trim() !== "";
        const result = await client.sendRequest<PreviewResult | null>("switchyard/preview", {
          uri: parsed.source,
          target: parsed.target,
          source: exact ? "exact" : "builtin",
        });
        if (!result) return "# This file is in no Rails app Switchyard knows.\n";
        mappings.set(uri.toString(true), result.mapping);
        return result.text;
      },
    }),
    // From the palette (the active file) or a lens (file and line).
    vscode.commands.registerCommand("switchyard.preview", async (lensUri?: string, lensLine?: number) => {
      const editor = vscode.window.activeTextEditor;
      const source = lensUri ?? editor?.document.uri.toString(true);
      if (!source) return;
      const uri = vscode.Uri.parse(previewUri(source, "ruby"));
      openPreviews.set(source, uri);
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.languages.setTextDocumentLanguage(document, "ruby");
      const shown = await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
      const line = typeof lensLine === "number" ? previewLineFor(mappings.get(uri.toString(true)) ?? [], lensLine) : undefined;
      if (line !== undefined) shown.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
    }),
    vscode.workspace.onDidChangeTextDocument((event) => {
      const source = event.document.uri.toString(true);
      const preview = openPreviews.get(source);
      if (!preview) return;
      clearTimeout(timers.get(source));
      timers.set(source, setTimeout(() => previewChanged.fire(preview), 200));
    }),
    vscode.window.onDidChangeTextEditorVisibleRanges((event) => {
      const preview = openPreviews.get(event.textEditor.document.uri.toString(true));
      const mapping = preview && mappings.get(preview.toString(true));
      const top = event.visibleRanges[0]?.start.line;
      if (!preview || !mapping || top === undefined) return;
      const line = previewLineFor(mapping, top);
      const target = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString(true) === preview.toString(true));
      if (target && line !== undefined) {
        target.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
      }
    }),
  );
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  status.command = "switchyard.showEmittedTree";
  context.subscriptions.push(status);
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

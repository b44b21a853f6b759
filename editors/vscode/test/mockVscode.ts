// A stand-in for the `vscode` module (VS Code itself cannot run here): records what the extension
// registers and shows. Installed into Node's module loader before the extension is imported.
import Module = require("module");

export interface Recorded {
  commands: Map<string, (...args: unknown[]) => unknown>;
  contentProviders: Map<string, { provideTextDocumentContent(uri: { toString(skip?: boolean): string }): Promise<string> }>;
  errors: string[];
  settings: Record<string, unknown>;
}

export const recorded: Recorded = { commands: new Map(), contentProviders: new Map(), errors: [], settings: {} };

class EventEmitter<T> {
  private listeners: ((value: T) => void)[] = [];
  event = (listener: (value: T) => void) => {
    this.listeners.push(listener);
    return { dispose() {} };
  };
  fire(value: T) {
    this.listeners.forEach((l) => l(value));
  }
  dispose() {}
}

const disposable = { dispose() {} };

const known = {
  EventEmitter,
  ViewColumn: { Active: -1, Beside: -2 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  Uri: { parse: (value: string) => ({ toString: () => value }) },
  window: {
    createOutputChannel: () => ({ info() {}, appendLine() {}, show() {}, dispose() {} }),
    showErrorMessage: (message: string) => {
      recorded.errors.push(message);
      return Promise.resolve(undefined);
    },
    showWarningMessage: () => Promise.resolve(undefined),
    createStatusBarItem: () => ({ show() {}, hide() {}, dispose() {}, text: "", tooltip: "", command: "" }),
    onDidChangeActiveTextEditor: () => disposable,
    onDidChangeTextEditorVisibleRanges: () => disposable,
    visibleTextEditors: [],
    activeTextEditor: undefined,
  },
  workspace: {
    getConfiguration: () => ({ get: <T>(key: string, fallback?: T) => (key in recorded.settings ? (recorded.settings[key] as T) : fallback) }),
    registerTextDocumentContentProvider: (scheme: string, provider: Recorded["contentProviders"] extends Map<string, infer P> ? P : never) => {
      recorded.contentProviders.set(scheme, provider);
      return disposable;
    },
    createFileSystemWatcher: () => disposable,
    onDidChangeTextDocument: () => disposable,
    workspaceFolders: undefined,
  },
  commands: {
    registerCommand: (name: string, callback: (...args: unknown[]) => unknown) => {
      recorded.commands.set(name, callback);
      return disposable;
    },
  },
};

// vscode-languageclient subclasses VS Code's classes (CompletionItem, CodeLens…) when it loads: every
// name the stand-in does not define is an empty class.
export const vscode = new Proxy(known as Record<string | symbol, unknown>, {
  get(target, property) {
    if (property in target) return target[property];
    if (typeof property === "symbol" || property === "then") return undefined;
    return class {};
  },
});

// Any `require("vscode")` from here on gets the stand-in.
const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
const original = loader._load;
loader._load = function (request: string, parent: unknown, isMain: boolean) {
  if (request === "vscode") return vscode;
  return original.call(this, request, parent, isMain);
};

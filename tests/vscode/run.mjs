// The extension in a real VS Code: code-server (VS Code's own server build, from npm), driven by
// Debian's Chromium through playwright-core, offline, bound to 127.0.0.1, every folder per run.
//
//   node tests/vscode/run.mjs [CODE_SERVER_PREFIX]     (scripts/install-code-server.sh makes one)
//
// 1. Extension-host tests: a workbench URL whose payload names the extension (editors/vscode) and
//    tests/vscode/suite.js; the real `vscode` API runs them against the real server, and the
//    workbench hands their exit code to the page (`codeAutomationExit`).
// 2. A UI drive of the packaged extension as a user installs it: open examples/blog, wait for
//    Switchyard's findings in the Problems panel, run "Preview specialized output" from the command
//    palette, check the preview, save a screenshot (target/vscode/preview.png).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const prefix = process.argv[2] ?? process.env.SWITCHYARD_CODE_SERVER ?? path.join(os.tmpdir(), "switchyard-code-server");
const node = path.join(prefix, "node/node_modules/.bin/node");
const entry = path.join(prefix, "code-server/node_modules/code-server/out/node/entry.js");
const browser = process.env.CHROMIUM ?? "/usr/bin/chromium";
const binary = path.resolve(repo, process.env.SWITCHYARD_BIN ?? "target/debug/switchyard");
const blog = path.join(repo, "examples/blog");
const extension = path.join(repo, "editors/vscode");
const shots = path.join(repo, "target/vscode");

const run = mkdtempSync(path.join(os.tmpdir(), "switchyard-vscode-"));
const dirs = Object.fromEntries(["user", "extensions", "config", "data", "cache", "index"].map((d) => [d, path.join(run, d)]));
for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
mkdirSync(path.join(dirs.user, "User"), { recursive: true });
mkdirSync(path.join(dirs.user, "Machine"), { recursive: true });
// `switchyard.server.path` is machine-scoped: in a remote window (code-server is one) it is read from
// the remote machine's settings, and a user-settings value is dropped once the extension's settings
// are known (before that it may be seen: that race made the server start in some runs only).
writeFileSync(path.join(dirs.user, "Machine/settings.json"), JSON.stringify({ "switchyard.server.path": binary }));
writeFileSync(
  path.join(dirs.user, "User/settings.json"),
  JSON.stringify({
    "switchyard.server.path": binary,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
    "chat.disableAIFeatures": true,
  }),
);
const env = {
  ...process.env,
  XDG_CONFIG_HOME: dirs.config,
  XDG_DATA_HOME: dirs.data,
  XDG_CACHE_HOME: dirs.cache,
  SWITCHYARD_CACHE_DIR: dirs.index,
};
const codeServerArgs = ["--user-data-dir", dirs.user, "--extensions-dir", dirs.extensions];

function say(line) {
  process.stdout.write(`${line}\n`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function waitForPort(port, child, timeout = 60000) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode}`);
    const open = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("code-server did not listen in time");
}

let codeServer;
let chrome;
let failures = 0;
try {
  // The packaged extension, installed as a user installs a .vsix.
  const packaged = spawnSync("npm", ["run", "package", "--silent"], { cwd: repo, encoding: "utf8", env });
  if (packaged.status !== 0) throw new Error(`npm run package failed:\n${packaged.error ?? ""}${packaged.stderr ?? ""}${packaged.stdout ?? ""}`);
  const installed = spawnSync(node, [entry, ...codeServerArgs, "--install-extension", path.join(extension, "dist/switchyard.vsix")], {
    encoding: "utf8",
    env,
  });
  if (installed.status !== 0) {
    throw new Error(`installing the vsix failed (is ${prefix} made by scripts/install-code-server.sh?):\n${installed.error ?? ""}${installed.stderr ?? ""}${installed.stdout ?? ""}`);
  }

  const port = await freePort();
  codeServer = spawn(
    node,
    [
      entry,
      ...codeServerArgs,
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--auth",
      "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--ignore-last-opened",
      "--vscode-option",
      "enable-smoke-test-driver",
    ],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let serverLog = "";
  codeServer.stdout.on("data", (d) => (serverLog += d));
  codeServer.stderr.on("data", (d) => (serverLog += d));
  await waitForPort(port, codeServer);
  chrome = await chromium.launch({ executablePath: browser, args: ["--no-sandbox", "--disable-gpu"] });
  const base = `http://127.0.0.1:${port}`;

  // 1. Extension-host tests with the real API.
  {
    const page = await chrome.newPage();
    const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
    const exit = new Promise((resolve) => {
      void page.exposeFunction("codeAutomationLog", (type, args) => say(`  ${Array.isArray(args) ? args.join(" ") : args}`));
      void page.exposeFunction("codeAutomationExit", (code) => resolve(code));
    });
    const payload = JSON.stringify([
      ["extensionDevelopmentPath", remote(extension)],
      ["extensionTestsPath", remote(path.join(repo, "tests/vscode/suite.js"))],
    ]);
    await page.goto(`${base}/?folder=${encodeURIComponent(blog)}&payload=${encodeURIComponent(payload)}`);
    const code = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve("timeout"), 240000))]);
    say(`${code === 0 ? "ok  " : "FAIL"} extension-host tests in a real VS Code (exit ${code})`);
    if (code !== 0) failures += 1;
    await page.close();
  }

  // 2. The installed extension, driven as a user drives it.
  {
    const page = await chrome.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${base}/?folder=${encodeURIComponent(blog)}`);
    await page.waitForSelector(".monaco-workbench", { timeout: 120000 });
    const step = async (name, work) => {
      try {
        await work();
        say(`ok   ${name}`);
      } catch (error) {
        failures += 1;
        say(`FAIL ${name}: ${String(error).split("\n")[0]}`);
        await page.screenshot({ path: path.join(shots, "failure.png") }).catch(() => undefined);
      }
    };
    mkdirSync(shots, { recursive: true });
    const palette = async (text) => {
      await page.keyboard.press("F1");
      await page.waitForSelector(".quick-input-widget input", { state: "visible" });
      await page.keyboard.type(text);
      await page.waitForTimeout(300);
      await page.keyboard.press("Enter");
    };
    await step("opens app/models/post.rb from the Explorer", async () => {
      for (const name of ["app", "models", "post.rb"]) {
        await page.getByRole("treeitem", { name, exact: true }).first().click({ timeout: 60000 });
      }
      await page.locator(".tabs-container .tab", { hasText: "post.rb" }).first().waitFor({ timeout: 30000 });
    });
    await step("the preview's button in the editor title bar", async () => {
      await page.locator('.editor-actions [aria-label="Preview specialized output"]').first().waitFor({ timeout: 30000 });
    });
    await step("Switchyard's findings in the Problems panel", async () => {
      await palette("View: Focus Problems");
      await page.locator(".markers-panel").getByText("controller.macro-dropped").first().waitFor({ timeout: 60000 });
    });
    await step("Preview specialized output from the command palette", async () => {
      await page.locator(".tabs-container .tab", { hasText: "post.rb" }).first().click();
      await palette("Switchyard: Preview specialized output");
      await page.locator(".view-lines").getByText("def self.table_name", { exact: false }).first().waitFor({ timeout: 60000 });
      await page.screenshot({ path: path.join(shots, "preview.png") });
    });
    await page.close();
  }
  if (failures) say(serverLog.split("\n").slice(-40).join("\n"));
} catch (error) {
  failures += 1;
  say(`FAIL ${error.stack ?? error}`);
} finally {
  await chrome?.close().catch(() => undefined);
  codeServer?.kill("SIGTERM");
  rmSync(run, { recursive: true, force: true });
}
say(failures ? `vscode: ${failures} failed` : "vscode: every check passed");
process.exit(failures ? 1 : 0);

// Runs inside a real VS Code (code-server's extension host), with the real `vscode` API, against the
// real server on examples/blog: tests/vscode/run.mjs loads it as the workbench's extensionTestsPath.
// Resolves when every check passed; the workbench reports the exit code to the page.
const assert = require("assert");
const vscode = require("vscode");

async function waitFor(what, probe, timeout = 60000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function check(name) {
  console.log(`ok   ${name}`);
}

exports.run = async function run() {
  const extension = vscode.extensions.getExtension("switchyard.switchyard");
  assert.ok(extension, "the extension under test is loaded");
  const root = vscode.workspace.workspaceFolders[0].uri;
  const file = (relative) => vscode.Uri.joinPath(root, relative);
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file("app/models/post.rb")));
  await waitFor("activation", () => extension.isActive);
  check("activates on a Ruby file");

  const commands = await vscode.commands.getCommands(true);
  for (const command of ["switchyard.preview", "switchyard.showRoutes", "switchyard.showEmittedTree", "switchyard.restartServer", "switchyard.showOutput"]) {
    assert.ok(commands.includes(command), command);
  }
  check("registers its five commands");

  const controller = file("app/controllers/application_controller.rb");
  const diagnostics = await waitFor("diagnostics", () => {
    const found = vscode.languages.getDiagnostics(controller);
    return found.some((d) => (d.code?.value ?? d.code) === "controller.macro-dropped") && found;
  }).catch(async (error) => {
    // What did arrive, for the log.
    for (const [uri, found] of vscode.languages.getDiagnostics()) {
      console.log(`  diagnostics of ${uri.toString()}: ${found.map((d) => d.code?.value ?? d.code).join(", ")}`);
    }
    await vscode.commands.executeCommand("switchyard.showOutput");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const document of vscode.workspace.textDocuments.filter((d) => d.uri.scheme === "output")) {
      console.log(`  output ${document.uri.toString()}:\n${document.getText().slice(-3000)}`);
    }
    throw error;
  });
  const dropped = diagnostics.find((d) => (d.code?.value ?? d.code) === "controller.macro-dropped");
  assert.equal(dropped.range.start.line, 3);
  assert.equal(dropped.severity, vscode.DiagnosticSeverity.Warning);
  assert.ok(String(dropped.code.target).length > 0, "the rule's page is linked");
  check("diagnostics of a file never opened reach the Problems panel");

  const view = file("app/views/posts/new.html.erb");
  const erb = await vscode.workspace.openTextDocument(view);
  assert.equal(erb.languageId, "erb");
  const targets = await waitFor("a definition", async () => {
    const found = await vscode.commands.executeCommand("vscode.executeDefinitionProvider", view, new vscode.Position(2, 25));
    return found && found.length > 0 && found;
  });
  const paths = targets.map((t) => (t.uri ?? t.targetUri).path);
  assert.ok(paths.some((p) => p.endsWith("/config/routes.rb")), paths.join(", "));
  check("go to definition from posts_path in ERB reaches the route");

  // Line 2 of new.html.erb: `<%= render "form", post: @post %>` — the partial's file.
  const partial = await waitFor("the partial", async () => {
    const found = await vscode.commands.executeCommand("vscode.executeDefinitionProvider", view, new vscode.Position(1, 13));
    return found && found.length > 0 && found;
  });
  const partialPath = (partial[0].uri ?? partial[0].targetUri).path;
  assert.ok(partialPath.endsWith("/app/views/posts/_form.html.erb"), partialPath);
  check("go to definition from render \"form\" opens the partial");

  // Line 11 of post.rb: `  validates :title, …` — the column's type from db/schema.rb.
  const columnHovers = await vscode.commands.executeCommand("vscode.executeHoverProvider", file("app/models/post.rb"), new vscode.Position(10, 14));
  const columnText = columnHovers.flatMap((h) => h.contents.map((c) => c.value ?? String(c))).join("\n");
  assert.ok(columnText.includes("**Post#title** · column of `posts`") && columnText.includes("`string`, not null"), columnText);
  check("hover on a column shows its type");

  // Line 6: `resources :posts do`.
  const hovers = await vscode.commands.executeCommand("vscode.executeHoverProvider", file("config/routes.rb"), new vscode.Position(5, 4));
  const hoverText = hovers.flatMap((h) => h.contents.map((c) => c.value ?? String(c))).join("\n");
  assert.ok(hoverText.includes("/posts/:id/edit(.:format)") && hoverText.includes("edit_post_path"), hoverText);
  check("hover on a routes call lists its routes");

  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file("app/models/post.rb")));
  await vscode.commands.executeCommand("switchyard.preview");
  const preview = await waitFor("the preview", () =>
    vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme !== "file" && e.document.getText().includes('def self.table_name = "posts"')),
  );
  assert.equal(preview.document.languageId, "ruby");
  check("Preview specialized output opens beside the source");

  const groups = vscode.window.tabGroups.all.length;
  const column = vscode.window.activeTextEditor?.viewColumn;
  await vscode.commands.executeCommand("switchyard.showRoutes");
  const routes = await waitFor("the routes table", () =>
    vscode.window.visibleTextEditors.find((e) => /edit_post GET\s+\/posts\/:id\/edit\(\.:format\)\s+posts#edit/.test(e.document.getText())),
  );
  check("Show routes opens the table");
  // A tab of the group in use, not one more narrow group beside the source and the preview.
  assert.equal(vscode.window.tabGroups.all.length, groups, "editor groups after Show routes");
  assert.equal(routes.viewColumn, column, "the routes table's editor group");
  check("Show routes opens in the editor group in use");
};

-- Headless Neovim against the real server, on every supported version:
--   SWITCHYARD_BIN=target/debug/switchyard nvim --headless --clean -u NONE -c "luafile tests/nvim/test.lua"
-- Attaches to the bundled example app, receives diagnostics for a broken edit made with
-- nvim_buf_set_lines, asks for a definition, and runs :SwitchyardRoutes. Exits 0 when every check
-- passed, 1 otherwise, printing one line per check.
local repo = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")
local bin = vim.env.SWITCHYARD_BIN or (repo .. "/target/debug/switchyard")
if bin:sub(1, 1) ~= "/" then
  bin = repo .. "/" .. bin
end
vim.opt.swapfile = false
vim.opt.runtimepath:prepend(repo .. "/editors/nvim")
vim.cmd("runtime plugin/switchyard.lua")
vim.cmd("filetype on")

local passed, failures = 0, 0
local function check(name, ok, detail)
  io.stdout:write((ok and "ok   " or "FAIL ") .. name .. (ok and "" or (": " .. tostring(detail))) .. "\n")
  if ok then
    passed = passed + 1
  else
    failures = failures + 1
  end
end
-- Presses CTRL-] at `pos` (`normal!`; as a user presses it, mappings on, when `mapped`) and checks
-- that it opens a buffer whose name matches `opens`.
local function ctrl_bracket(name, pos, opens, mapped)
  vim.api.nvim_win_set_cursor(0, pos)
  local ok, err = pcall(vim.cmd, (mapped and "normal " or "normal! ") .. "\29")
  check(name, ok and vim.api.nvim_buf_get_name(0):match(opens) ~= nil, tostring(err) .. " " .. vim.api.nvim_buf_get_name(0))
end
local function finish()
  local v = vim.version()
  io.stdout:write(string.format("nvim-%d.%d.%d: %d passed, %d failed\n", v.major, v.minor, v.patch, passed, failures))
  vim.cmd(failures == 0 and "qall!" or "cquit 1")
end

local function run()
local modern = vim.fn.has("nvim-0.11") == 1
if modern then
  vim.lsp.config("switchyard", { cmd = { bin } })
  vim.lsp.enable("switchyard")
else
  require("switchyard").setup({ cmd = { bin } })
end

local switchyard = require("switchyard")
local app = repo .. "/examples/blog"
vim.cmd("edit " .. app .. "/app/models/post.rb")
local post = vim.api.nvim_get_current_buf()

local attached = vim.wait(20000, function()
  return #switchyard.clients_for(post) > 0
end, 50)
check("attaches (" .. (modern and "vim.lsp.enable" or "setup()") .. ")", attached)
if not attached then
  return
end

-- The first buffer's code lenses arrive once the first index ends, with no event to ask again.
local lensed = vim.wait(20000, function()
  return #(vim.lsp.codelens.get(post) or {}) > 0
end, 50)
check("code lenses on the first buffer without an event", lensed, vim.inspect(vim.lsp.codelens.get(post)))
-- On a big app the lenses asked for at attach come from a half-read app: the client's handler asks
-- again when the server's index progress ends (and only then).
do
  local client = switchyard.clients_for(post)[1]
  local handler = (client.handlers or {})["$/progress"] or ((client.config or {}).handlers or {})["$/progress"]
  local refreshed = 0
  local real = vim.lsp.codelens.refresh
  vim.lsp.codelens.refresh = function()
    refreshed = refreshed + 1
  end
  local ctx = { client_id = client.id, method = "$/progress", bufnr = post }
  for _, kind in ipairs({ "begin", "report", "end" }) do
    local value = { kind = kind, title = "Switchyard", percentage = 100 }
    pcall(handler, nil, { token = "switchyard/indexing/test", value = value }, ctx, {})
  end
  vim.wait(1000, function()
    return refreshed > 0
  end, 10)
  vim.lsp.codelens.refresh = real
  check("the index's end asks for code lenses again", handler == switchyard.handlers["$/progress"] and refreshed == 1, refreshed)
end

-- :help works from the runtimepath alone (doc/tags ships with the plugin).
local help_ok, help_err = pcall(vim.cmd, "help switchyard-keys")
check(":help switchyard-keys", help_ok and vim.bo.buftype == "help", help_err)
if help_ok then
  vim.cmd("close")
end

-- Inlay hints are on where Neovim has them (0.10+); 0.7–0.9 show the same on hover.
if vim.lsp.inlay_hint and vim.lsp.inlay_hint.is_enabled then
  local enabled = vim.wait(5000, function()
    return vim.lsp.inlay_hint.is_enabled({ bufnr = post })
  end, 50)
  check("inlay hints enabled on attach", enabled)
end

-- Break line 22 (`  def to_param`): a syntax error arrives as a diagnostic.
vim.api.nvim_buf_set_lines(post, 21, 22, false, { "  def to_param(x, " })
local got = vim.wait(20000, function()
  for _, d in ipairs(vim.diagnostic.get(post)) do
    if d.code == "syntax.parse-error" or (d.user_data and d.user_data.lsp and d.user_data.lsp.code == "syntax.parse-error") then
      return true
    end
  end
  return false
end, 50)
check("diagnostic for a broken edit", got, vim.inspect(vim.diagnostic.get(post)))

-- Its quick fixes, through the client: a comment silencing the line or the file.
local titles = {}
local action_params = {
  textDocument = { uri = vim.uri_from_bufnr(post) },
  range = { start = { line = 21, character = 0 }, ["end"] = { line = 21, character = 17 } },
  context = { diagnostics = {} },
}
for _, response in pairs(vim.lsp.buf_request_sync(post, "textDocument/codeAction", action_params, 5000) or {}) do
  for _, action in ipairs(response.result or {}) do
    table.insert(titles, action.title)
  end
end
check("quick fixes for the syntax error", vim.tbl_contains(titles, "Disable `syntax.parse-error` for this line"), vim.inspect(titles))

-- Repair it: the syntax error clears (the model's Roundhouse warnings stay).
vim.api.nvim_buf_set_lines(post, 21, 22, false, { "  def to_param" })
local cleared = vim.wait(20000, function()
  for _, d in ipairs(vim.diagnostic.get(post)) do
    if d.severity == vim.diagnostic.severity.ERROR then
      return false
    end
  end
  return true
end, 50)
check("the syntax error clears after the repair", cleared, vim.inspect(vim.diagnostic.get(post)))

-- Definition of `posts_path` in a template: the route in config/routes.rb.
vim.cmd("edit " .. app .. "/app/views/posts/new.html.erb")
local view = vim.api.nvim_get_current_buf()
check("ERB buffer is eruby", vim.bo[view].filetype == "eruby", vim.bo[view].filetype)
vim.wait(20000, function()
  return #switchyard.clients_for(view) > 0
end, 50)
local params = { textDocument = { uri = vim.uri_from_bufnr(view) }, position = { line = 2, character = 25 } }
local targets = {}
-- While the first index is still running the controller may not be known yet: ask until it is
-- (a plain loop: buf_request_sync waits itself, and waits must not nest).
for _ = 1, 100 do
  targets = {}
  local responses = vim.lsp.buf_request_sync(view, "textDocument/definition", params, 5000) or {}
  for _, response in pairs(responses) do
    for _, location in ipairs(response.result or {}) do
      table.insert(targets, (location.uri or location.targetUri):match("[^/]+$"))
    end
  end
  if #targets >= 2 then
    break
  end
  vim.wait(200)
end
check("definition of posts_path", targets[1] == "routes.rb" and targets[2] == "posts_controller.rb", vim.inspect(targets))

-- CTRL-] on the helper jumps to its route: the plugin sets 'tagfunc' on every version.
ctrl_bracket("CTRL-] on posts_path opens the route", { 3, 25 }, "config/routes%.rb$")
vim.cmd("edit " .. app .. "/app/views/posts/new.html.erb")

-- CTRL-] on a partial's name (line 2 is `<%= render "form", post: @post %>`) opens the partial.
ctrl_bracket("CTRL-] on render \"form\" opens the partial", { 2, 13 }, "app/views/posts/_form%.html%.erb$")

-- Hover on a column in a model (line 11 is `  validates :title, presence: true, …`): its type.
vim.cmd("edit " .. app .. "/app/models/post.rb")
local model_buf = vim.api.nvim_get_current_buf()
vim.wait(20000, function()
  return #switchyard.clients_for(model_buf) > 0
end, 50)
local hover_params = { textDocument = { uri = vim.uri_from_bufnr(model_buf) }, position = { line = 10, character = 14 } }
local hover_text = ""
local hovers = vim.lsp.buf_request_sync(model_buf, "textDocument/hover", hover_params, 5000) or {}
for _, response in pairs(hovers) do
  local contents = response.result and response.result.contents
  hover_text = hover_text .. ((type(contents) == "table" and contents.value) or "")
end
check("hover on a column shows its type", hover_text:find("**Post#title** · column of `posts`", 1, true) ~= nil, hover_text)
vim.cmd("edit " .. app .. "/app/views/posts/new.html.erb")

-- :SwitchyardRoutes opens the table.
vim.cmd("SwitchyardRoutes")
local shown = vim.wait(20000, function()
  return vim.bo.filetype == "switchyard-routes"
end, 50)
local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
local found = false
for _, line in ipairs(lines) do
  if line:match("edit_post GET%s+/posts/:id/edit%(%.:format%)%s+posts#edit") then
    found = true
  end
end
check(":SwitchyardRoutes shows the table", shown and found, table.concat(lines, "\n"))

-- :SwitchyardTree on the model: its emitted paths and lane.
vim.cmd("edit " .. app .. "/app/models/user.rb")
local user = vim.api.nvim_get_current_buf()
vim.wait(20000, function()
  return #switchyard.clients_for(user) > 0
end, 50)
vim.cmd("SwitchyardTree")
local tree_shown = vim.wait(20000, function()
  return vim.bo.filetype == "switchyard-tree"
end, 50)
local tree = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
check(
  ":SwitchyardTree shows where the file lands",
  tree_shown and tree:find("CRuby → app/models/user.rb", 1, true) and tree:find("lane aot", 1, true) and tree:find("JVM → same", 1, true),
  tree
)

-- :SwitchyardPreview on the model follows an edit made with nvim_buf_set_lines.
vim.cmd("wincmd p")
vim.cmd("edit " .. app .. "/app/models/post.rb")
local model = vim.api.nvim_get_current_buf()
vim.cmd("SwitchyardPreview")
local preview_buf = vim.api.nvim_get_current_buf()
local function preview_text()
  return table.concat(vim.api.nvim_buf_get_lines(preview_buf, 0, -1, false), "\n")
end
local first = vim.wait(20000, function()
  return preview_text():find('def self.table_name = "posts"', 1, true) ~= nil
end, 50)
check(":SwitchyardPreview shows the model's preview", first, preview_text())
vim.api.nvim_buf_set_lines(model, 2, 2, false, { "  has_one :cover_image" })
vim.api.nvim_exec_autocmds("TextChanged", { buffer = model })
local followed = vim.wait(20000, function()
  return preview_text():find("def cover_image = CoverImage.find_by(post_id: @id)", 1, true) ~= nil
end, 50)
check(":SwitchyardPreview follows edits", followed, preview_text())

-- The line-1 "Preview specialized output" lens, run as Neovim runs a lens's client command: the
-- preview opens from the buffer as it is (no "not attached").
do
  vim.cmd("only")
  vim.api.nvim_set_current_buf(model)
  local lens
  vim.wait(20000, function()
    for _, l in ipairs(vim.lsp.codelens.get(model) or {}) do
      if l.command and l.command.command == "switchyard.preview" then
        lens = l
      end
    end
    return lens ~= nil
  end, 50)
  local warned = {}
  local notify = vim.notify
  vim.notify = function(msg, level)
    table.insert(warned, msg)
  end
  local client = switchyard.clients_for(model)[1]
  local ok, err = pcall(vim.lsp.commands["switchyard.preview"], lens and lens.command or {}, { bufnr = model, client_id = client.id })
  local lens_preview = vim.api.nvim_get_current_buf()
  local shown = vim.wait(20000, function()
    local text = table.concat(vim.api.nvim_buf_get_lines(lens_preview, 0, -1, false), "\n")
    return text:find('def self.table_name = "posts"', 1, true) ~= nil
  end, 50)
  vim.notify = notify
  check(
    "the line-1 preview lens opens the preview",
    lens ~= nil and lens.range.start.line == 0 and ok and shown and lens_preview ~= model and #warned == 0,
    vim.inspect({ lens = lens, err = err, warned = warned })
  )
  vim.cmd("only")
  vim.api.nvim_set_current_buf(model)
end

-- CTRL-] as a user presses it (mappings on) in a Ruby buffer with Neovim's Ruby ftplugin loaded,
-- which maps it to `:tag <identifier>`: line 49 of the controller is `redirect_to posts_path, …`.
vim.cmd("filetype plugin on")
vim.cmd("edit " .. app .. "/app/controllers/posts_controller.rb")
local controller = vim.api.nvim_get_current_buf()
vim.wait(20000, function()
  return #switchyard.clients_for(controller) > 0
end, 50)
ctrl_bracket("CTRL-] in a Ruby buffer (its ftplugin loaded) opens the route", { 49, 18 }, "config/routes%.rb$", true)
end

-- A Lua error must fail the run, not leave a headless Neovim waiting.
local ok, err = pcall(run)
if not ok then
  check("test script", false, err)
end
finish()

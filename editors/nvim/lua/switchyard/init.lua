-- Switchyard for Neovim 0.7–0.10 (`require("switchyard").setup(opts)`), and the helpers both setups
-- share. On 0.11+ prefer `vim.lsp.enable("switchyard")` with lsp/switchyard.lua.
local M = {}

M.defaults = {
  cmd = { "switchyard" },
  filetypes = { "ruby", "eruby", "haml" },
  root_markers = { "config/routes.rb", "Gemfile", ".git" },
  settings = {},
  init_options = {},
  on_attach = nil,
  -- Show and refresh code lenses (the routes over each controller action).
  codelens = true,
  -- Inlay hints at the end of DSL lines (Neovim 0.10+).
  inlay_hints = true,
}

local uv = vim.loop

-- The nearest folder above `path` holding one of `markers`, in order of preference (works on 0.7,
-- which has no vim.fs).
local function find_root(path, markers)
  for _, marker in ipairs(markers) do
    local dir = vim.fn.fnamemodify(path, ":p:h")
    while dir and dir ~= "" do
      if uv.fs_stat(dir .. "/" .. marker) then
        return dir
      end
      local parent = vim.fn.fnamemodify(dir, ":h")
      if parent == dir then
        break
      end
      dir = parent
    end
  end
  return vim.fn.getcwd()
end
M.find_root = find_root

local function clients_for(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = "switchyard" })
  end
  local found = {}
  for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if client.name == "switchyard" then
      table.insert(found, client)
    end
  end
  return found
end

M.clients_for = clients_for

-- The buffer (the current one unless given) and its Switchyard client; nil (after saying so) when
-- none is attached.
local function current_client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = clients_for(bufnr)[1]
  if not client then
    vim.notify("Switchyard is not attached to this buffer", vim.log.levels.WARN)
  end
  return client, bufnr
end

-- A code lens runs `switchyard.openRoute` with a Location: jump there (every version has this table).
vim.lsp.commands["switchyard.openRoute"] = function(command)
  local location = command.arguments and command.arguments[1]
  if location and vim.lsp.util.show_document then
    vim.lsp.util.show_document(location, "utf-16", { focus = true })
  elseif location then
    vim.lsp.util.jump_to_location(location, "utf-16")
  end
end

-- The "Preview specialized output" lens: open the preview of that file. The lens sits in the file
-- it previews, whose buffer is used as it is (editing it again would reload it); another file is
-- opened first, and its client waited for.
vim.lsp.commands["switchyard.preview"] = function(command, ctx)
  local args = command.arguments or {}
  local bufnr = (ctx and ctx.bufnr) or vim.api.nvim_get_current_buf()
  if args[1] then
    local target = vim.uri_to_bufnr(args[1])
    if target ~= bufnr and target ~= vim.api.nvim_get_current_buf() then
      vim.cmd("edit " .. vim.fn.fnameescape(vim.uri_to_fname(args[1])))
      vim.wait(5000, function()
        return #clients_for(target) > 0
      end, 20)
    end
    bufnr = target
  end
  M.preview(nil, bufnr)
end

-- Per-client handlers. `$/progress`: when the server's first index ends, its code lenses are
-- asked for again (the ones asked for at attach came from an app half read; Neovim does not take
-- the server's `workspace/codeLens/refresh`).
M.handlers = {
  ["$/progress"] = function(err, result, ctx, config)
    local default = vim.lsp.handlers["$/progress"]
    if default then
      default(err, result, ctx, config)
    end
    local token = result and result.token
    local value = result and result.value
    if type(token) == "string" and token:find("^switchyard/indexing/") and value and value.kind == "end" then
      vim.schedule(function()
        pcall(vim.lsp.codelens.refresh)
      end)
    end
  end,
}

-- The tag keys Neovim's Ruby ftplugin maps in a Ruby buffer: each runs `:tag <identifier>`, which
-- asks 'tagfunc' for a name (no `c` flag), so the server is asked for symbols, not for what is
-- under the cursor. Where the ftplugin made them, they go; the keys then ask 'tagfunc' at the cursor.
local ruby_tag_keys = { "<C-]>", "g<C-]>", "g]", "<C-W>]", "<C-W><C-]>" }

local function cursor_tags(bufnr)
  if vim.bo[bufnr].tagfunc == "" then
    vim.bo[bufnr].tagfunc = "v:lua.vim.lsp.tagfunc"
  end
  vim.api.nvim_buf_call(bufnr, function()
    for _, lhs in ipairs(ruby_tag_keys) do
      local mapping = vim.fn.maparg(lhs, "n", false, true)
      local rhs = mapping.rhs or ""
      -- The ftplugin's: buffer-local, script-local (`<SID>` calls its identifier function), `:tag`.
      local ftplugin = rhs:find("RubyCursorIdentifier", 1, true) or (rhs:find("<SID>", 1, true) and rhs:find("tag", 1, true))
      if mapping.buffer == 1 and ftplugin then
        pcall(vim.api.nvim_buf_del_keymap, bufnr, "n", lhs)
      end
    end
  end)
end

function M.on_attach(client, bufnr, opts)
  opts = opts or M.defaults
  -- Now, and once the FileType event that may have attached it is over (the ftplugin maps after a
  -- FileType autocmd made before it), and whenever the ftplugin runs again for the buffer.
  cursor_tags(bufnr)
  vim.schedule(function()
    if vim.api.nvim_buf_is_valid(bufnr) then
      cursor_tags(bufnr)
    end
  end)
  vim.api.nvim_create_autocmd("FileType", {
    group = vim.api.nvim_create_augroup("switchyard_tags_" .. bufnr, { clear = true }),
    buffer = bufnr,
    callback = function()
      vim.schedule(function()
        if vim.api.nvim_buf_is_valid(bufnr) then
          cursor_tags(bufnr)
        end
      end)
    end,
  })
  -- Inline specialization hints (0.10+; 0.7–0.9 show the same on hover).
  if opts.inlay_hints ~= false and vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  end
  if opts.codelens ~= false and client.server_capabilities and client.server_capabilities.codeLensProvider then
    local group = vim.api.nvim_create_augroup("switchyard_codelens_" .. bufnr, { clear = true })
    vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
      group = group,
      buffer = bufnr,
      callback = function()
        pcall(vim.lsp.codelens.refresh)
      end,
    })
    pcall(vim.lsp.codelens.refresh)
  end
  if opts.on_attach then
    opts.on_attach(client, bufnr)
  end
end

-- 0.7 has no vim.lsp.start: one client per root, attached to each buffer.
local started = {}

function M.attach(bufnr, opts)
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == "" then
    return
  end
  local root = find_root(path, opts.root_markers)
  local config = {
    name = "switchyard",
    cmd = opts.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    settings = opts.settings,
    init_options = opts.init_options,
    handlers = M.handlers,
    on_attach = function(client, attached)
      M.on_attach(client, attached, opts)
    end,
  }
  if vim.lsp.start then
    vim.lsp.start(config, { bufnr = bufnr })
    return
  end
  local id = started[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(config)
    started[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

function M.setup(opts)
  opts = vim.tbl_deep_extend("force", M.defaults, opts or {})
  M.options = opts
  local group = vim.api.nvim_create_augroup("switchyard", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = opts.filetypes,
    callback = function(args)
      M.attach(args.buf, opts)
    end,
  })
  -- Buffers already open when setup runs.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(opts.filetypes, vim.bo[bufnr].filetype) then
      M.attach(bufnr, opts)
    end
  end
end

-- client:request on 0.11+, client.request before.
function M.request(client, method, params, handler, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

-- A scratch buffer in a new split (`command`: "botright new", "botright vnew"…).
local function scratch_split(command, filetype, name)
  vim.cmd(command)
  local scratch = vim.api.nvim_get_current_buf()
  vim.bo[scratch].buftype = "nofile"
  vim.bo[scratch].bufhidden = "wipe"
  vim.bo[scratch].swapfile = false
  vim.bo[scratch].filetype = filetype
  if name then
    pcall(vim.api.nvim_buf_set_name, scratch, name)
  end
  return scratch
end

-- `lines` in a read-only scratch split.
local function show_lines(command, filetype, name, lines)
  local scratch = scratch_split(command, filetype, name)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
  vim.bo[scratch].modifiable = false
end

-- Asks the current buffer's server `method` about the buffer: `on_result` gets the answer; a failure
-- or no answer is said (`failure`) at `level`.
local function ask_about_buffer(method, failure, level, on_result)
  local client, bufnr = current_client()
  if not client then
    return
  end
  M.request(client, method, { uri = vim.uri_from_bufnr(bufnr) }, function(err, result)
    if err or not result then
      vim.notify("Switchyard: " .. (err and err.message or failure), level)
      return
    end
    on_result(result)
  end, bufnr)
end

-- :SwitchyardRoutes — the table `bin/rails routes` would print, in a scratch split.
function M.routes()
  ask_about_buffer("switchyard/routes", "no routes", vim.log.levels.ERROR, function(result)
    local lines = {}
    for _, app in ipairs(result.apps) do
      if #result.apps > 1 then
        table.insert(lines, "# " .. app.name)
      end
      for _, line in ipairs(vim.split(app.table, "\n", { trimempty = true })) do
        table.insert(lines, line)
      end
    end
    show_lines("botright new", "switchyard-routes", "switchyard://routes", lines)
  end)
end

-- :SwitchyardPreview — Switchyard's preview of what Roundhouse makes of the current file, in a scratch
-- split that follows edits to the source buffer.
function M.preview(target, bufnr)
  local client, source = current_client(bufnr)
  if not client then
    return
  end
  target = (target ~= nil and target ~= "") and target or "ruby"
  local name = "switchyard://preview/" .. target .. "/" .. vim.fn.fnamemodify(vim.api.nvim_buf_get_name(source), ":t")
  local scratch = scratch_split("botright vnew", "ruby", name)
  vim.b[scratch].switchyard_preview = true

  local function refresh()
    if not vim.api.nvim_buf_is_valid(scratch) then
      return
    end
    M.request(client, "switchyard/preview", { uri = vim.uri_from_bufnr(source), target = target }, function(err, result)
      if err or not result or not vim.api.nvim_buf_is_valid(scratch) then
        return
      end
      vim.bo[scratch].modifiable = true
      vim.api.nvim_buf_set_lines(scratch, 0, -1, false, vim.split(result.text, "\n", { trimempty = true }))
      vim.bo[scratch].modifiable = false
      vim.b[scratch].switchyard_preview_version = (vim.b[scratch].switchyard_preview_version or 0) + 1
    end, source)
  end

  local group = vim.api.nvim_create_augroup("switchyard_preview_" .. scratch, { clear = true })
  local pending = false
  vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, {
    group = group,
    buffer = source,
    callback = function()
      if pending then
        return
      end
      pending = true
      -- After the change notification went out: the server answers from the new text.
      vim.defer_fn(function()
        pending = false
        refresh()
      end, 150)
    end,
  })
  vim.api.nvim_create_autocmd("BufWipeout", {
    group = group,
    buffer = scratch,
    callback = function()
      pcall(vim.api.nvim_del_augroup_by_id, group)
    end,
  })
  refresh()
end

-- :SwitchyardTree — where the current file lands in the CRuby, JVM and Spinel trees.
function M.tree()
  ask_about_buffer("switchyard/emittedTree", "this file is in no Rails app", vim.log.levels.WARN, function(result)
    local lines = { result.source, "  " .. result.summary }
    for _, target in ipairs({ "ruby", "jruby", "spinel" }) do
      local tree = result.targets[target]
      if tree then
        local paths = #tree.paths > 0 and table.concat(tree.paths, ", ") or "—"
        local lane = tree.lane ~= vim.NIL and tree.lane and (" · lane " .. tree.lane) or ""
        local swaps = #tree.swaps > 0 and (" · swaps: " .. table.concat(tree.swaps, "; ")) or ""
        table.insert(lines, string.format("  %-7s%s%s%s", target, paths, lane, swaps))
      end
    end
    if result.note then
      table.insert(lines, "  note   " .. result.note)
    end
    show_lines("botright " .. (#lines + 1) .. "new", "switchyard-tree", nil, lines)
  end)
end

return M

-- Switchyard for Neovim 0.11+:
--   vim.lsp.enable("switchyard")
-- Override any field with vim.lsp.config("switchyard", { cmd = { "/path/to/switchyard" } }).
local markers = { "config/routes.rb", "Gemfile", ".git" }

return {
  cmd = { "switchyard" },
  filetypes = { "ruby", "eruby", "haml" },
  root_markers = markers,
  -- `config/routes.rb` is a path, not a name: find the app root ourselves (root_markers would stop
  -- at `config/`).
  root_dir = function(bufnr, on_dir)
    on_dir(require("switchyard").find_root(vim.api.nvim_buf_get_name(bufnr), markers))
  end,
  handlers = require("switchyard").handlers,
  on_attach = function(client, bufnr)
    require("switchyard").on_attach(client, bufnr)
  end,
}

-- User commands, whichever way the server was started (lsp/switchyard.lua or require("switchyard").setup).
if vim.g.loaded_switchyard then
  return
end
vim.g.loaded_switchyard = true

vim.api.nvim_create_user_command("SwitchyardRoutes", function()
  require("switchyard").routes()
end, { desc = "Switchyard: show the app's routes in a scratch split" })

vim.api.nvim_create_user_command("SwitchyardTree", function()
  require("switchyard").tree()
end, { desc = "Switchyard: where this file lands in the CRuby, JVM and Spinel trees" })

vim.api.nvim_create_user_command("SwitchyardPreview", function(args)
  require("switchyard").preview(args.args)
end, {
  nargs = "?",
  complete = function()
    return { "ruby", "jruby", "spinel" }
  end,
  desc = "Switchyard: preview what Roundhouse makes of this file (follows edits)",
})

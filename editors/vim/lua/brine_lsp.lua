-- Neovim: brine's language server (`brine lsp`) for every .br buffer, with
-- the built-in LSP client (Neovim 0.7 and later; nvim-lspconfig not needed).
--
--   require("brine_lsp").setup()                 -- in init.lua
--   require("brine_lsp").setup({ cmd = { "/opt/brine/bin/brine", "lsp" } })
--
-- Diagnostics appear as you type; K hovers, gd goes to the definition, and
-- vim.lsp.buf.rename(), .references(), .format(), .code_action() work as
-- for any server.
local M = {}

function M.start(bufnr, opts)
  opts = opts or {}
  local config = {
    name = "brine",
    cmd = opts.cmd or { "brine", "lsp" },
    root_dir = opts.root_dir or vim.fn.getcwd(),
    init_options = opts.init_options,
    on_attach = opts.on_attach,
  }
  local client_id
  if vim.lsp.start then -- 0.8+: reuses a running client
    client_id = vim.lsp.start(config, { bufnr = bufnr })
  else
    M._client = M._client or vim.lsp.start_client(config)
    client_id = M._client
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  return client_id
end

function M.setup(opts)
  vim.api.nvim_create_autocmd("FileType", {
    pattern = "brine",
    callback = function(args)
      M.start(args.buf, opts)
      local map = function(lhs, fn) vim.keymap.set("n", lhs, fn, { buffer = args.buf }) end
      map("K", vim.lsp.buf.hover)
      map("gd", vim.lsp.buf.definition)
      map("gr", vim.lsp.buf.references)
    end,
  })
end

return M

-- Neovim headless with its built-in LSP client attached to `brine lsp`
-- (tests/editors/nvim.sh runs it): the editor's own files (ftdetect, syntax,
-- ftplugin, indent, lua/brine_lsp.lua) on the runtimepath, a .br file with
-- an error opened, then its diagnostic, a hover, a definition and the
-- formatter asked for through the client. Exits 0 when all hold.
local brine = os.getenv("BRINE")
local dir = os.getenv("WORK")
local failures = 0
local function check(ok, what)
  if ok then
    io.stdout:write("ok: " .. what .. "\n")
  else
    io.stdout:write("FAIL: " .. what .. "\n")
    failures = failures + 1
  end
end

local path = dir .. "/demo.br"
local f = assert(io.open(path, "w"))
f:write("fn main():\n    var total = 0\n    for i in 0..10:\n        total += i\n    print(totl)\n")
f:close()

require("brine_lsp").setup({ cmd = { brine, "lsp" } })
vim.cmd("edit " .. path)
local buf = vim.api.nvim_get_current_buf()
check(vim.bo[buf].filetype == "brine", "ftdetect: filetype is brine (" .. vim.bo[buf].filetype .. ")")
check(vim.bo[buf].shiftwidth == 4 and vim.bo[buf].expandtab, "ftplugin: 4 spaces")
vim.cmd("syntax on")
local syn = vim.fn.synIDattr(vim.fn.synID(1, 1, 1), "name")
check(syn == "brineDeclare", "syntax: 'fn' is brineDeclare (" .. syn .. ")")
check(vim.bo[buf].indentexpr ~= "", "indent: indentexpr set")
check(vim.fn.BrineIndent(4) == 8, "indent: the line after 'for ...:' one level deeper")

local got = vim.wait(15000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
check(got, "diagnostics arrived")
local d = vim.diagnostic.get(buf)[1] or {}
check(d.lnum == 4 and d.col == 10, "diagnostic at 5:11 (" .. tostring(d.lnum) .. ":" .. tostring(d.col) .. ")")
check(d.message == "undefined name 'totl'; did you mean 'total'?", "diagnostic message: " .. tostring(d.message))
check(d.severity == vim.diagnostic.severity.ERROR, "diagnostic is an error")

local function request(method, line, col)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = col } }
  local res = vim.lsp.buf_request_sync(buf, method, params, 10000) or {}
  for _, r in pairs(res) do
    if r.result then return r.result end
  end
  return nil
end
local hover = request("textDocument/hover", 3, 9)
local text = hover and hover.contents and hover.contents.value or ""
check(text:find("var total: int", 1, true) ~= nil, "hover on total: " .. text:gsub("\n", " "))
local def = request("textDocument/definition", 3, 9)
check(def and def.range and def.range.start.line == 1 and def.range.start.character == 8, "definition of total at 2:9")

-- a fix through the code action, then the diagnostics clear
local actions = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = 4, character = 10 }, ["end"] = { line = 4, character = 14 } },
  context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, 4) },
}, 10000) or {}
local edit
for _, r in pairs(actions) do
  for _, a in ipairs(r.result or {}) do edit = edit or a.edit end
end
check(edit ~= nil, "a quick fix for the misspelt name")
if edit then
  vim.lsp.util.apply_workspace_edit(edit, "utf-16")
  check(vim.fn.getline(5) == "    print(total)", "the fix applied: " .. vim.fn.getline(5))
  local cleared = vim.wait(15000, function() return #vim.diagnostic.get(buf) == 0 end, 50)
  check(cleared, "the diagnostic cleared after the change")
end

if failures > 0 then
  vim.cmd("cquit 1")
end
vim.cmd("qall!")

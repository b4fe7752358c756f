-- Drives icm's language server from Neovim (0.7 or later), a client icm did
-- not write: it opens a contract with a seeded error, waits for the
-- published diagnostics, asks for a hover on the title, and writes what it
-- got to $ICM_OUT as JSON. nvim_test.go runs it headless and checks the file.
local icm, root, file, out = os.getenv("ICM_BIN"), os.getenv("ICM_ROOT"), os.getenv("ICM_FILE"), os.getenv("ICM_OUT")
local result = { diagnostics = {}, hover = "", errors = {} }

local function finish()
  local f = io.open(out, "w")
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qa!")
end

local client_id = vim.lsp.start_client({
  name = "icm",
  cmd = { icm, "lsp" },
  root_dir = root,
  init_options = { ollamaHost = "127.0.0.1:1" },
  on_exit = function(code) result.exit_code = code end,
})
if not client_id then
  table.insert(result.errors, "the client did not start")
  finish()
  return
end

vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client_id)

local got = vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
if not got then table.insert(result.errors, "no diagnostics within 30s") end
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local lsp = (d.user_data and d.user_data.lsp) or {}
  table.insert(result.diagnostics, {
    code = d.code or lsp.code, message = d.message, line = d.lnum, col = d.col, severity = d.severity,
  })
end

local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 0, character = 3 } }
local responses, err = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 30000)
if err then table.insert(result.errors, "hover: " .. tostring(err)) end
for _, r in pairs(responses or {}) do
  if r.error then table.insert(result.errors, "hover: " .. vim.inspect(r.error)) end
  if r.result and r.result.contents then result.hover = r.result.contents.value or "" end
end

vim.lsp.stop_client(client_id)
vim.wait(5000, function() return result.exit_code ~= nil end, 50)
finish()

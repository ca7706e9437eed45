--- perflab.embed: the Lua side of the C embedding API (src/perflab.h) and
-- of the `perflab` Lua C module: loading profiles into named globals,
-- running a recipe to rendered text, evaluating code to rendered values.
local perflab = require "perflab"
local profile = require "perflab.profile"
local errors = require "perflab.errors"
local repl = require "perflab.repl"

local M = {}

--- Sets up a workbench state: the `perflab` global and the REPL helpers.
function M.setup()
  repl.setup { announce = false }
end

--- load(path, name) -> the global name it was stored under
function M.load(path, name)
  local p = perflab.load(path)
  local list = rawget(_G, "profiles")
  if type(list) ~= "table" then list = {}; _G.profiles = list end
  list[#list + 1] = p
  if not name then
    local i = 1
    while rawget(_G, "p" .. i) ~= nil do i = i + 1 end
    name = "p" .. i
  end
  _G[name] = p
  return name
end

--- run(recipe, inputs, options, format) -> rendered report
-- inputs: names of profile globals or file paths; options: "KEY=VALUE" strings.
function M.run(recipe, inputs, options, format)
  local list = {}
  for i, v in ipairs(inputs or {}) do
    local g = rawget(_G, v)
    list[i] = profile.is_profile(g) and g or perflab.load(v)
  end
  local opts = {}
  for _, kv in ipairs(options or {}) do
    local k, v = kv:match("^([^=]+)=(.*)$")
    if not k then errors.fail(string.format("recipe option '%s': expected KEY=VALUE", kv)) end
    opts[k] = v
  end
  local rep = perflab.run(recipe, list, opts)
  return rep:render(format or "text")
end

--- eval(code) -> the values rendered as the REPL prints them
function M.eval(code)
  local fn, err = repl.compile(code, "=eval")
  if not fn then error(err, 0) end
  local res = table.pack(fn())
  local out = {}
  for i = 1, res.n do out[i] = repl.render(res[i]) end
  return table.concat(out)
end

return M

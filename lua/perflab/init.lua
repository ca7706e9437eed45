--- perflab: the public Lua API (what `require "perflab"` returns and what
-- scripts, recipes and the REPL use).
--   perflab.load(path [, opts])       -> profile (raises on bad input)
--   perflab.try_load(path [, opts])   -> profile | nil, message
--   perflab.parse(name, text [, opts])-> profile from text in memory
--   perflab.load_many(paths [, {jobs=N}]) -> {profile...}: parsed on N threads
--   perflab.run(recipe, inputs [, options]) -> report
--   perflab.recipes()                 -> {{name, summary, origin, path}...}
--   perflab.formats                   -> the readers (require "perflab.formats":
--                                        list, detect, short_name, ...); calling
--                                        it, perflab.formats(), is formats.list()
--   perflab.report{recipe=...}        -> an empty report (for scripts)
--   perflab.table                     -> the table module (from_rows, ...)
--   perflab.fail(msg [, exit])        -> raise a user-facing error
--   perflab.units                     -> human formatting of ns, bytes, %
--   perflab.modules()                 -> names of every perflab module
-- Modules loaded on first use: perflab.stats, perflab.intervals, perflab.gpu
-- (any name modules() lists).  docs/api.md says which are stable.
local profile = require "perflab.profile"
local recipes = require "perflab.recipes"
local report = require "perflab.report"
local errors = require "perflab.errors"
local formats = require "perflab.formats"
local sys = require "perflab.sys"

local M = {
  version = sys.version,
  table = require "perflab.table",
  units = require "perflab.units",
  json = require "perflab.json",
  load = profile.load,
  try_load = profile.try_load,
  load_many = profile.load_many,
  parse = profile.parse,
  is_profile = profile.is_profile,
  is_report = report.is_report,
  fail = errors.fail,
  -- one name, one meaning: perflab.formats is the module require
  -- "perflab.formats" returns; calling it lists the formats (as it did)
  formats = getmetatable(formats) == nil
    and setmetatable(formats, { __call = function(_, ...) return formats.list(...) end }) or formats,
}

function M.recipes() return recipes.list() end

function M.report(fields) return report.new(fields) end

--- run(recipe, inputs, options): inputs is a profile, a path, or a list of
-- them; recipe is a name on the search path, a path, or a recipe table.
function M.run(recipe, inputs, options)
  if type(inputs) == "string" or profile.is_profile(inputs) then inputs = { inputs } end
  local list = {}
  for i, v in ipairs(inputs or {}) do
    list[i] = type(v) == "string" and profile.load(v) or v
  end
  return recipes.run(recipe, list, options)
end

--- modules() -> sorted names of every perflab module, loaded or not: the C
-- modules in package.preload and the Lua library (embedded, or the files
-- under PERFLAB_LUA_DIR).  "stats" stands for perflab.stats.
function M.modules()
  local set = {}
  for name in pairs(package.preload) do
    local m = type(name) == "string" and name:match("^perflab%.([%w_]+)$")
    if m then set[m] = true end
  end
  for _, path in ipairs(sys.embedded_list("lua/perflab/")) do
    local m = path:match("^lua/perflab/([%w_]+)%.lua$")
    if m and m ~= "init" then set[m] = true end
  end
  if sys.lua_dir then
    for _, f in ipairs(sys.listdir(sys.lua_dir .. "/perflab", ".lua")) do
      local m = f:match("^([%w_]+)%.lua$")
      if m and m ~= "init" then set[m] = true end
    end
  end
  local list = {}
  for m in pairs(set) do list[#list + 1] = m end
  table.sort(list)
  return list
end

-- Lazily loaded submodules: perflab.stats etc. resolve on first access.
-- Only names of modules that exist are looked up, and their load errors
-- are raised, not turned into nil (a syntax error in gpu.lua used to make
-- perflab.gpu quietly nil).
return setmetatable(M, {
  __index = function(t, k)
    if type(k) ~= "string" or not k:match("^[%w_]+$") then return nil end
    local known = false
    for _, m in ipairs(M.modules()) do if m == k then known = true; break end end
    if not known then return nil end
    local mod = require("perflab." .. k)
    rawset(t, k, mod)
    return mod
  end,
})

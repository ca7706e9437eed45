--- perflab.figures: the helpers the recipes' figures share.  Each bundled
-- recipe draws its own figure (a local `figure(report, ...)` in
-- recipes/NAME.lua, exposed as the recipe's `figure` field and called at the
-- end of its run) with perflab.chart from the tables it has put in its
-- report, so what the reader sees is what is drawn.  What they share:
--   figures.rows_of(t, cols [, n])  the first n rows of a table as Lua rows
--   figures.label(name)             a kernel's short name for an axis label
--   figures.ms(ns)                  a duration for a hover title ("1.23 ms")
--   figures.pct(v)                  a percentage for a hover title ("12.3 %")
--   figures.base(path)              a file name without its folders (subtitles)
local units = require "perflab.units"

local M = {}

--- rows_of(t, cols [, n]) -> the first n rows (all without n) of t as Lua
-- rows of cols (a column t lacks reads as missing), or nil when t is nil
-- or empty; only those rows are converted
function M.rows_of(t, cols, n)
  if not t or t:nrows() == 0 then return nil end
  if n and n < t:nrows() then t = t:head(n) end
  local out, arr = {}, {}
  for _, c in ipairs(cols) do arr[c] = t:has(c) and t:col(c):to_lua() or {} end
  for i = 1, math.min(t:nrows(), n or t:nrows()) do
    local r = {}
    for _, c in ipairs(cols) do r[c] = arr[c][i] end
    out[i] = r
  end
  return out
end

--- label(name) -> a kernel's short name for an axis label (core/names.c:
-- no return type, namespaces, template or call arguments); hover titles
-- keep the full name
function M.label(name)
  local ok, short = pcall(require("perflab.formats").short_name, tostring(name))
  if ok and type(short) == "string" and short ~= "" then return short end
  return tostring(name)
end

--- ms(ns) -> a duration in ns as text, 3 significant digits (units.ns)
function M.ms(v) return units.ns(v, 3) end
--- pct(v) -> a percentage as text, 3 significant digits and " %"
function M.pct(v) return units.sig(v, 3) .. " %" end
--- base(path) -> the file name of a path (the text after the last "/")
function M.base(s) return tostring(s or ""):match("[^/]+$") or tostring(s) end

return M

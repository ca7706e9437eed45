--- perflab.util: the small helpers recipes share, written once: the sorted
-- keys of a set, rounding to decimals (of a number or a column) and the
-- last part of a path.  Pure Lua.
local M = {}

--- sorted_keys(t) -> the keys of t, sorted (notes and tables in a fixed
--- order: pairs' order changes from run to run in Lua 5.4).
function M.sorted_keys(t)
  local k = {}
  for x in pairs(t) do k[#k + 1] = x end
  table.sort(k)
  return k
end

--- round(x [, digits]) -> x rounded half up to `digits` decimals (2), a
--- float; x a number (nil stays nil) or a column (a number column).
function M.round(x, digits)
  if x == nil then return nil end
  local s = 10 ^ (digits or 2)
  s = math.tointeger(s) or s
  if type(x) == "number" then return math.floor(x * s + 0.5) / s end
  return (x * s + 0.5):floor() / s
end

--- basename(path) -> the part of a path after its last "/".
function M.basename(path) return (tostring(path):gsub("^.*/", "")) end

return M

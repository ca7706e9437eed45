-- test_table_fill.lua -- c:fill, c:floor and perflab.table.sprintf
-- (docs/table.md, "Filling, rounding and text from columns"): each vector
-- result against a plain Lua loop over the same rows (string.format,
-- math.floor, `or`), and the errors.
local lu = require "luaunit"
local perflab = require "perflab"
local T = perflab.table

local rows = {}
for i = 1, 300 do
  local r = { i = i, x = (i % 7 == 0) and nil or (i * 0.37 - 40), s = (i % 5 == 0) and nil or ("k" .. i % 11) }
  if i % 3 ~= 0 then r.n = i * 13 - 1000 end
  rows[i] = r
end
local t = T.from_rows(rows, { "i", "x", "s", "n" })

function test_fill_against_lua()
  local f = t:col("x"):fill(t:col("n")):to_lua()
  local g = t:col("s"):fill("none"):to_lua()
  local h = t:col("n"):fill(-1)
  lu.assertEquals(h:type(), "integer")
  local hv = h:to_lua()
  for i, r in ipairs(rows) do
    lu.assertEquals(f[i], r.x or r.n)
    lu.assertEquals(g[i], r.s or "none")
    lu.assertEquals(hv[i], r.n or -1)
  end
end

function test_floor_against_lua()
  local f = t:col("x"):floor():to_lua()
  for i, r in ipairs(rows) do lu.assertEquals(f[i], r.x and math.floor(r.x) + 0.0 or nil) end
  lu.assertEquals(t:col("i"):floor():type(), "integer")
end

function test_sprintf_against_string_format()
  local fmt = "%s|%.4g|%d|%8.3f|%-5s|%x|%%"
  local c = T.sprintf(fmt, t:col("s"), t:col("x"), t:col("n"), t:col("x"), t:col("s"), t:col("i")):to_lua()
  for i, r in ipairs(rows) do
    local want = (r.s and r.x and r.n) and string.format(fmt, r.s, r.x, r.n, r.x, r.s, r.i) or nil
    lu.assertEquals(c[i], want)
  end
  -- numbers under %s as tostring writes them; a value beside columns
  local d = T.sprintf("%s %s %s", t:col("i"), t:col("i") / 2, "v"):to_lua()
  for i = 1, #rows do lu.assertEquals(d[i], string.format("%s %s %s", i, i / 2, "v")) end
end

function test_errors()
  lu.assertErrorMsgContains("fill: cannot fill numbers with strings", function() return t:col("x"):fill("a") end)
  lu.assertErrorMsgContains("floor: expected numbers, got strings", function() return t:col("s"):floor() end)
  lu.assertErrorMsgContains("sprintf: row 1: %d: number -39.63 has no integer representation", function() return T.sprintf("%d", t:col("x")) end)
  lu.assertErrorMsgContains("sprintf: invalid conversion '%q' in the format", function() return T.sprintf("%q", t:col("x")) end)
  lu.assertErrorMsgContains("sprintf: the format has 2 conversions for 1 values", function() return T.sprintf("%g %g", t:col("x")) end)
  lu.assertErrorMsgContains("sprintf: expected at least one column", function() return T.sprintf("%g", 1) end)
end

os.exit(lu.LuaUnit.run())

-- test_table_fill.lua -- c:fill, c:floor and perflab.table.sprintf
-- (docs/table-api.md, "Filling, rounding and text from columns"): each vector
-- result against a plain Lua loop over the same rows (string.format,
-- math.floor, `or`), and the errors.  Also pivot's first/last (a path of
-- their own in C) against a Lua loop, with missing values and strings.
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

function test_pivot_first_last_against_lua()
  -- long rows: id (some missing), metric (some missing), v (number, some
  -- missing), s (string, some missing)
  local long = {}
  for i = 1, 500 do
    local r = { metric = (i % 13 == 0) and nil or ("m" .. (i * 7) % 6) }
    if i % 17 ~= 0 then r.id = (i * 5) % 23 end
    if i % 4 ~= 0 then r.v = i * 0.5 end
    if i % 6 ~= 0 then r.s = "s" .. i % 9 end
    long[i] = r
  end
  local t = T.from_rows(long, { "id", "metric", "v", "s" })
  for _, agg in ipairs({ "first", "last" }) do
    for _, val in ipairs({ "v", "s" }) do
      local w = t:pivot { index = "id", columns = "metric", values = val, agg = agg }
      -- the same by hand: index keys and metric names in order of first appearance
      local NA = {}
      local ids, nid, idrow, metrics, mseen, cell = {}, 0, {}, {}, {}, {}
      for _, r in ipairs(long) do
        local id = r.id == nil and NA or r.id
        if not idrow[id] then nid = nid + 1; ids[nid] = r.id; idrow[id] = nid; cell[nid] = {} end
        local m = r.metric or "NA"
        if not mseen[m] then mseen[m] = true; metrics[#metrics + 1] = m end
        local x = r[val]
        if x ~= nil and (agg == "last" or cell[idrow[id]][m] == nil) then cell[idrow[id]][m] = x end
      end
      lu.assertEquals(w:nrows(), nid)
      local cols = w:columns()
      lu.assertEquals(#cols, #metrics + 1)
      for j, m in ipairs(metrics) do
        lu.assertEquals(cols[j + 1], m)
        local got = w:col(m):to_lua()
        for i = 1, nid do lu.assertEquals(got[i], cell[i][m], agg .. " " .. val .. " " .. m .. " row " .. i) end
      end
      local gid = w:col("id"):to_lua()
      for i = 1, nid do lu.assertEquals(gid[i], ids[i]) end
    end
  end
end

function test_to_json_indent()
  local t2 = T.from_rows({ { a = 1, b = "x" }, { a = 2 } }, { "a", "b" })
  lu.assertEquals(t2:to_json(), '[\n {"a":1, "b":"x"},\n {"a":2, "b":null}\n]')
  lu.assertEquals(t2:to_json("    ", "  "), '[\n    {"a":1, "b":"x"},\n    {"a":2, "b":null}\n  ]')
  lu.assertEquals(t2:head(0):to_json("    ", "  "), "[]")
  -- in a report: the same text as re-indenting the plain form
  local json = require "perflab.json"
  local plain = t2:to_json():gsub("\n ", "\n    "):gsub("\n%]$", "\n  ]")
  lu.assertEquals(json.encode({ t = t2 }, "  "), '{\n  "t": ' .. plain .. "\n}")
end

function test_to_json_escapes()
  -- runs of plain characters and every escape, in values and in a column name
  local t2 = T.from_rows({ { ['n"m'] = 'a"b\\c\nd\re\tf\1g\127h\195\169' } }, { 'n"m' })
  lu.assertEquals(t2:to_json(), '[\n {"n\\"m":"a\\"b\\\\c\\nd\\re\\tf\\u0001g\\u007fh\195\169"}\n]')
end

function test_map_booleans_against_lua()
  -- a mask with missing values (x > 0 where x is missing is false; ~ of a
  -- missing value stays missing): each value mapped, in any order of first
  -- appearance
  local x = t:col("x")
  local m = x:gt(0) | x:lt(-30):keep(x:present() & x:lt(-20))   -- true, false and missing
  local got = m:map({ [true] = "yes", [false] = "no" }):to_lua()
  local fn = m:map(function(v) return v and 1 or 0 end):to_lua()
  local raw = m:to_lua()
  local seen = { [true] = 0, [false] = 0, missing = 0 }
  for i = 1, #rows do
    local v = raw[i]
    seen[v == nil and "missing" or v] = seen[v == nil and "missing" or v] + 1
    if v == nil then lu.assertNil(got[i]); lu.assertNil(fn[i])
    else lu.assertEquals(got[i], v and "yes" or "no"); lu.assertEquals(fn[i], v and 1 or 0) end
  end
  lu.assertTrue(seen[true] > 0 and seen[false] > 0 and seen.missing > 0)
  local calls = 0
  m:map(function(v) calls = calls + 1; return v end)
  lu.assertEquals(calls, 2)                  -- once per distinct value (missing is not one)
end

function test_sprintf_long_texts()
  -- texts longer than any fixed buffer, with and without a width
  local long = T.from_rows({ { s = string.rep("ab", 700), x = 1e300 } }, { "s", "x" })
  local got = T.sprintf("%-20s|%5s|%.99f", long:col("s"), long:col("s"), long:col("x")):to_lua()[1]
  lu.assertEquals(got, string.format("%-20s|%5s|%.99f", string.rep("ab", 700), string.rep("ab", 700), 1e300))
  lu.assertEquals(#got, 1400 + 1 + 1400 + 1 + 301 + 1 + 99)
end

function test_errors()
  lu.assertErrorMsgContains("fill: cannot fill numbers with strings", function() return t:col("x"):fill("a") end)
  lu.assertErrorMsgContains("floor: expected numbers, got strings", function() return t:col("s"):floor() end)
  lu.assertErrorMsgContains("sprintf: row 1: %d: number -39.63 has no integer representation",
      function() return T.sprintf("%d", t:col("x")) end)
  lu.assertErrorMsgContains("sprintf: invalid conversion '%q' in the format",
      function() return T.sprintf("%q", t:col("x")) end)
  lu.assertErrorMsgContains("sprintf: the format has 2 conversions for 1 values",
      function() return T.sprintf("%g %g", t:col("x")) end)
  lu.assertErrorMsgContains("sprintf: expected at least one column", function() return T.sprintf("%g", 1) end)
end

-- many rows (the number texts are cached per conversion past 4096 rows):
-- 20000 rows over 3000 distinct doubles, with 0.0, -0.0, tiny and huge
-- values and colliding cache slots, each row equal to string.format's text
function test_sprintf_many_rows_against_string_format()
  local distinct = { 0.0, -0.0, 1e-300, -2.5e300, 1 / 3, 123456.789 }
  for d = #distinct + 1, 3000 do distinct[d] = ((d * 7919) % 100003) / 97 - 400 + d * 1e-7 end
  local xs, ys = {}, {}
  for r = 1, 20000 do
    xs[r] = distinct[(r * 37) % 3000 + 1]
    ys[r] = (r % 11 == 0) and nil or distinct[(r * 101) % 3000 + 1]
  end
  local len = { __len = function() return 20000 end }
  local tt = T.from_columns({ x = xs }, { "x" }):add_column("y", setmetatable(ys, len), "number")
  local got = T.sprintf("%.4g|%10.3f|%e", tt:col("x"), tt:col("y"), tt:col("x")):to_lua()
  for r = 1, 20000 do
    local want = ys[r] ~= nil and string.format("%.4g|%10.3f|%e", xs[r], ys[r], xs[r]) or nil
    lu.assertEquals(got[r], want, "row " .. r)
  end
end

os.exit(lu.LuaUnit.run())

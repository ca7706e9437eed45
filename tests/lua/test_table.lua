-- test_table.lua -- the perflab.table API, call by call (docs/table-api.md
-- mirrors these examples).  Run: build/perflab tests/lua/test_table.lua -v
-- Expected values are written out by hand or recomputed with plain Lua
-- loops over the same data; nothing here is read back from the engine
-- and compared with itself.
local lu = require "luaunit"
local perflab = require "perflab"
local T = perflab.table
local cjson = require "cjson"

-- a small launch list used by most tests (k: kernel, d: duration, u: util)
local ROWS = {
  { k = "gemm", d = 100, u = 0.5 },
  { k = "relu", d = 10, u = 0.25 },
  { k = "gemm", d = 300, u = 0.75 },
  { k = "copy", d = 40 },              -- u missing
  { k = "relu", d = 30, u = 0.125 },
}
local function launches() return T.from_rows(ROWS, { "k", "d", "u" }, "launches") end

-- plain-Lua helpers (the independent side)
local function col_of(rows, c) local o = {} for i, r in ipairs(rows) do o[i] = r[c] end return o end
local function lsum(xs) local s = 0 for _, x in pairs(xs) do s = s + x end return s end

local function lines(s) local o = {} for l in (s):gmatch("([^\n]*)\n") do o[#o + 1] = l end return o end

-- ---------------------------------------------------------------------------
TestBuild = {}

function TestBuild:test_from_rows_order_and_types()
  local t = launches()
  lu.assertEquals(t:columns(), { "k", "d", "u" })
  lu.assertEquals(t:types(), { k = "string", d = "integer", u = "number" })
  lu.assertEquals(t:nrows(), 5)
  lu.assertEquals(#t, 5)
  lu.assertEquals(t:name(), "launches")
end

function TestBuild:test_from_rows_sorted_names_without_order()
  local t = T.from_rows({ { zeta = 1, alpha = "a" }, { mid = true } })
  lu.assertEquals(t:columns(), { "alpha", "mid", "zeta" })
  lu.assertEquals(t:types(), { alpha = "string", mid = "boolean", zeta = "integer" })
  lu.assertEquals(t:name(), "table")
  -- cells a row does not set are missing (nil)
  lu.assertEquals(t:row(1), { alpha = "a", zeta = 1 })
  lu.assertEquals(t:row(2), { mid = true })
end

function TestBuild:test_type_inference()
  -- integers stay integers; one float makes the column number; a string makes it string
  local t = T.from_rows({ { a = 1, b = 1, c = 1 }, { a = 2, b = 2.5, c = "x" } }, { "a", "b", "c" })
  lu.assertEquals(t:types(), { a = "integer", b = "number", c = "string" })
  lu.assertEquals(math.type(t:get(1, "a")), "integer")
  lu.assertEquals(math.type(t:get(1, "b")), "float")
  lu.assertEquals(t:get(1, "c"), "1")     -- converted to text
end

function TestBuild:test_from_columns()
  local t = T.from_columns({ x = { 1, 2, 3 }, name = { "a", "b", "c" } }, { "name", "x" }, "cols")
  lu.assertEquals(t:columns(), { "name", "x" })
  lu.assertEquals(t:name(), "cols")
  lu.assertEquals(t:nrows(), 3)
  lu.assertEquals(t:row(2), { name = "b", x = 2 })
  local s = T.from_columns({ b = { 1 }, a = { 2 } })   -- no order: names sorted
  lu.assertEquals(s:columns(), { "a", "b" })
end

function TestBuild:test_from_columns_length_mismatch()
  lu.assertErrorMsgContains("column 'y' has 1 values, expected 2", T.from_columns, { x = { 1, 2 }, y = { 1 } },
      { "x", "y" })
end

function TestBuild:test_from_rows_bad_arguments()
  lu.assertErrorMsgContains("row 1 is not a table", T.from_rows, { 1, 2 })
  lu.assertErrorMsgContains("bad argument #1 to 'perflab.table.from_rows' (table expected, got string)", T.from_rows,
      "x")
end

function TestBuild:test_empty()
  local t = T.from_rows({})
  lu.assertEquals(t:nrows(), 0)
  lu.assertEquals(t:columns(), {})
  lu.assertEquals(t:to_json(), "[]")
  lu.assertEquals(t:to_lua(), {})
  lu.assertTrue(T.is_table(t))
  lu.assertFalse(T.is_table({}))
end

-- ---------------------------------------------------------------------------
TestAccess = {}

function TestAccess:test_row_and_get()
  local t = launches()
  lu.assertEquals(t:row(1), { k = "gemm", d = 100, u = 0.5 })
  lu.assertEquals(t:row(-1), { k = "relu", d = 30, u = 0.125 })   -- negative: from the end
  lu.assertEquals(t:get(3, "d"), 300)
  lu.assertNil(t:get(4, "u"))
  lu.assertErrorMsgContains("row index out of range", function() return t:row(6) end)
  lu.assertErrorMsgContains("row index out of range", function() return t:get(0, "d") end)
end

function TestAccess:test_rows_iteration()
  local t = launches()
  local n, total = 0, 0
  for i, r in t:rows() do
    n = n + 1
    lu.assertEquals(i, n)
    lu.assertEquals(r.k, ROWS[i].k)
    total = total + r.d
  end
  lu.assertEquals(n, 5)
  lu.assertEquals(total, 480)
end

function TestAccess:test_has_name_docs()
  local t = launches()
  lu.assertTrue(t:has("d"))
  lu.assertFalse(t:has("nope"))
  lu.assertEquals(t:name("renamed"), t)         -- setter returns the table
  lu.assertEquals(t:name(), "renamed")
  lu.assertEquals(t:docs(), {})
end

function TestAccess:test_to_lua()
  local t = launches()
  local l = t:to_lua()
  lu.assertEquals(#l, 5)
  for i = 1, 5 do lu.assertEquals(l[i], ROWS[i]) end
  lu.assertEquals(math.type(l[1].d), "integer")
end

-- ---------------------------------------------------------------------------
TestColumn = {}

function TestColumn:test_reductions_int()
  local c = launches():col("d")
  local ds = col_of(ROWS, "d")
  lu.assertEquals(c:sum(), lsum(ds))                 -- 480
  lu.assertEquals(math.type(c:sum()), "integer")     -- integer columns sum exactly
  lu.assertEquals(c:mean(), lsum(ds) / #ds)          -- 96.0
  lu.assertEquals(c:min(), 10)
  lu.assertEquals(c:max(), 300)
  lu.assertEquals(c:count(), 5)
  lu.assertEquals(c:to_lua(), ds)
  lu.assertEquals(#c, 5)
  lu.assertEquals(c[3], 300)
  lu.assertNil(c[6])
  lu.assertEquals(c:name(), "d")
  lu.assertEquals(c:type(), "integer")
  lu.assertEquals(tostring(c), "column 'd' (integer, 5 values)")
end

function TestColumn:test_reductions_skip_missing()
  local c = launches():col("u")
  local us = { 0.5, 0.25, 0.75, 0.125 }   -- row 4 is missing
  lu.assertEquals(c:count(), 4)
  lu.assertEquals(c:sum(), lsum(us))       -- 1.625, exact in binary
  lu.assertEquals(c:mean(), lsum(us) / 4)
  lu.assertEquals(c:min(), 0.125)
  lu.assertEquals(c:max(), 0.75)
  lu.assertEquals(c:to_lua()[5], 0.125)
  lu.assertNil(c:to_lua()[4])
end

function TestColumn:test_quantile()
  -- linear interpolation between order statistics (type 7):
  -- sorted d = 10 30 40 100 300; q=0.5 -> 40; q=0.25 -> 30; q=0.9 -> 100 + 0.6*200 = 220
  local c = launches():col("d")
  lu.assertEquals(c:quantile(0.5), 40)
  lu.assertEquals(c:quantile(0), 10)
  lu.assertEquals(c:quantile(1), 300)
  lu.assertAlmostEquals(c:quantile(0.9), 220, 1e-9)
  lu.assertEquals(c:quantile({ 0.25, 0.5, 1 }), { 30, 40, 300 })
  lu.assertErrorMsgContains("quantile must be in [0, 1]", function() return c:quantile(1.5) end)
  -- missing values are skipped: u sorted 0.125 0.25 0.5 0.75 -> median 0.375
  lu.assertEquals(launches():col("u"):quantile(0.5), 0.375)
end

function TestColumn:test_string_column_errors()
  local c = launches():col("k")
  lu.assertErrorMsgContains("column 'k' holds strings, not numbers", function() return c:sum() end)
  lu.assertErrorMsgContains("column 'k' holds strings, not numbers", function() return c:quantile(0.5) end)
  lu.assertEquals(c:count(), 5)
end

function TestColumn:test_empty_column()
  local t = T.from_columns({ x = {} })
  lu.assertEquals(t:col("x"):sum(), 0)
  lu.assertNil(t:col("x"):mean())
  lu.assertNil(t:col("x"):min())
  lu.assertNil(t:col("x"):quantile(0.5))
end

function TestColumn:test_unknown_column_lists_columns()
  local t = launches()
  lu.assertErrorMsgContains("bad argument #1 to 'col' (no column 'dur' in table 'launches' (columns: k, d, u))",
    function() return t:col("dur") end)
end

-- ---------------------------------------------------------------------------
TestTransform = {}

function TestTransform:test_where()
  local t = launches()
  local w = t:where(function(r) return r.d >= 40 end)
  lu.assertEquals(col_of(w:to_lua(), "d"), { 100, 300, 40 })
  local byindex = t:where(function(_, i) return i % 2 == 0 end)
  lu.assertEquals(col_of(byindex:to_lua(), "k"), { "relu", "copy" })
  lu.assertEquals(t:nrows(), 5)                 -- the original is untouched
  lu.assertEquals(t:where(function() return false end):columns(), { "k", "d", "u" })
  lu.assertErrorMsgContains("bad argument #1 to 'where' (function expected, got number)",
      function() return t:where(5) end)
end

function TestTransform:test_sort_by_single_and_desc()
  local t = launches()
  lu.assertEquals(col_of(t:sort_by("d"):to_lua(), "d"), { 10, 30, 40, 100, 300 })
  lu.assertEquals(col_of(t:sort_by("-d"):to_lua(), "d"), { 300, 100, 40, 30, 10 })
  lu.assertEquals(col_of(t:sort_by({ "d", desc = true }):to_lua(), "d"), { 300, 100, 40, 30, 10 })
  lu.assertEquals(col_of(t:sort_by("k"):to_lua(), "k"), { "copy", "gemm", "gemm", "relu", "relu" })
end

function TestTransform:test_sort_by_multi_key()
  -- k ascending, then d descending within a kernel
  local s = launches():sort_by("k", "-d")
  local got = {}
  for _, r in s:rows() do got[#got + 1] = r.k .. ":" .. r.d end
  lu.assertEquals(got, { "copy:40", "gemm:300", "gemm:100", "relu:30", "relu:10" })
end

function TestTransform:test_sort_by_stable()
  -- equal keys keep their input order, ascending and descending
  local t = T.from_rows({ { g = 1, i = 1 }, { g = 0, i = 2 }, { g = 1, i = 3 }, { g = 0, i = 4 }, { g = 1, i = 5 } },
      { "g", "i" })
  lu.assertEquals(col_of(t:sort_by("g"):to_lua(), "i"), { 2, 4, 1, 3, 5 })
  lu.assertEquals(col_of(t:sort_by("-g"):to_lua(), "i"), { 1, 3, 5, 2, 4 })
  -- long input (beyond the insertion-sort cutoff): stable and ordered
  local rows = {}
  for i = 1, 200 do rows[i] = { g = (i * 7) % 5, i = i } end
  local s = T.from_rows(rows, { "g", "i" }):sort_by("g"):to_lua()
  for n = 2, #s do
    lu.assertTrue(s[n - 1].g < s[n].g or (s[n - 1].g == s[n].g and s[n - 1].i < s[n].i))
  end
end

function TestTransform:test_sort_by_missing_last()
  local t = launches()
  lu.assertEquals(t:sort_by("u"):to_lua()[5].k, "copy")
  lu.assertEquals(t:sort_by("-u"):to_lua()[5].k, "copy")
  lu.assertEquals(col_of(t:sort_by("-u"):to_lua(), "u"), { 0.75, 0.5, 0.25, 0.125 })
end

function TestTransform:test_sort_by_errors()
  local t = launches()
  lu.assertErrorMsgContains("bad argument #2 to 'sort_by' (no column 'nope' in table 'launches' (columns: k, d, u))",
    function() return t:sort_by("d", "nope") end)
  lu.assertErrorMsgContains("expected at least one sort key", function() return t:sort_by() end)
end

function TestTransform:test_top()
  local t = launches()
  lu.assertEquals(col_of(t:top(2, "d"):to_lua(), "d"), { 300, 100 })
  lu.assertEquals(col_of(t:top(2, "d", { asc = true }):to_lua(), "d"), { 10, 30 })
  lu.assertEquals(t:top(0, "d"):nrows(), 0)
  lu.assertEquals(t:top(99, "d"):nrows(), 5)
  -- ties keep row order; missing ranks last
  local ties = T.from_rows({ { v = 1, i = 1 }, { v = 2, i = 2 }, { v = 2, i = 3 }, { i = 4 }, { v = 2, i = 5 } },
      { "v", "i" })
  lu.assertEquals(col_of(ties:top(3, "v"):to_lua(), "i"), { 2, 3, 5 })
  lu.assertEquals(col_of(ties:top(5, "v"):to_lua(), "i"), { 2, 3, 5, 1, 4 })
  lu.assertErrorMsgContains("no column 'x' in table 'launches' (columns: k, d, u)", function() return t:top(1, "x") end)
  lu.assertErrorMsgContains("row count must not be negative", function() return t:top(-1, "d") end)
end

function TestTransform:test_head_slice()
  local t = launches()
  lu.assertEquals(col_of(t:head(2):to_lua(), "d"), { 100, 10 })
  lu.assertEquals(t:head():nrows(), 5)           -- default 10, capped
  lu.assertEquals(t:head(0):nrows(), 0)
  lu.assertEquals(col_of(t:slice(2, 3):to_lua(), "d"), { 10, 300 })
  lu.assertEquals(col_of(t:slice(4):to_lua(), "d"), { 40, 30 })
  lu.assertEquals(t:slice(0, 100):nrows(), 5)    -- clamped
  lu.assertEquals(t:slice(3, 2):nrows(), 0)
end

function TestTransform:test_select()
  local t = launches()
  local s = t:select("u", "k")
  lu.assertEquals(s:columns(), { "u", "k" })
  lu.assertEquals(s:row(1), { u = 0.5, k = "gemm" })
  lu.assertEquals(t:select({ "d" }):columns(), { "d" })
  lu.assertErrorMsgContains("no column 'x' in table 'launches' (columns: k, d, u)", function() return t:select("x") end)
  lu.assertErrorMsgContains("select: no column 'x' in table 'launches' (columns: k, d, u)",
      function() return t:select({ "x" }) end)
end

function TestTransform:test_add_column_values_and_function()
  local t = launches()
  lu.assertEquals(t:add_column("n", { 1, 2, 3, 4, 5 }), t)   -- in place, returns t
  lu.assertEquals(t:types().n, "integer")
  t:add_column("twice", function(r, i) return r.d * 2 + i end)
  lu.assertEquals(t:col("twice"):to_lua(), { 201, 22, 603, 84, 65 })
  lu.assertEquals(t:types().twice, "integer")
  t:add_column("f", { 1, 2.5, 3, 4, 5 })
  lu.assertEquals(t:types().f, "number")
  t:add_column("s", { "a", 1, 2, 3, 4 })
  lu.assertEquals(t:types().s, "string")
  t:add_column("b", { true, false, nil, true, false })
  lu.assertEquals(t:types().b, "boolean")
  lu.assertNil(t:get(3, "b"))
  t:add_column("forced", { 1, 2, 3, 4, 5 }, "number")
  lu.assertEquals(math.type(t:get(1, "forced")), "float")
  lu.assertEquals(t:columns(), { "k", "d", "u", "n", "twice", "f", "s", "b", "forced" })
end

function TestTransform:test_add_column_replaces_in_place()
  local t = launches()
  t:add_column("d", function(r) return r.d + 1 end)
  lu.assertEquals(t:columns(), { "k", "d", "u" })      -- keeps its place
  lu.assertEquals(t:col("d"):to_lua(), { 101, 11, 301, 41, 31 })
end

function TestTransform:test_add_column_errors()
  local t = launches()
  lu.assertErrorMsgContains("add_column 'z': 1 values for 5 rows", function() return t:add_column("z", { 1 }) end)
  lu.assertErrorMsgContains("bad argument #3 to 'add_column' (invalid option 'bogus')",
    function() return t:add_column("z", { 1, 2, 3, 4, 5 }, "bogus") end)
end

function TestTransform:test_drop_rename_copy()
  local t = launches()
  local c = t:copy()
  c:drop("u")
  c:rename("d", "dur")
  lu.assertEquals(c:columns(), { "k", "dur" })
  lu.assertEquals(t:columns(), { "k", "d", "u" })    -- the copy is independent
  c:add_column("x", { 1, 2, 3, 4, 5 })
  lu.assertFalse(t:has("x"))
  lu.assertErrorMsgContains("no column 'q' in table 'launches' (columns: k, d, u)", function() return t:drop("q") end)
  lu.assertErrorMsgContains("a column of that name exists", function() return t:rename("d", "u") end)
end

-- ---------------------------------------------------------------------------
TestGroup = {}

-- plain-Lua group-by over ROWS: {key -> {n, sum, vals}} in first-seen order
local function lua_groups(rows, key, col)
  local order, g = {}, {}
  for _, r in ipairs(rows) do
    local k = r[key]
    if not g[k] then g[k] = { n = 0, vals = {} }; order[#order + 1] = k end
    g[k].n = g[k].n + 1
    if r[col] ~= nil then g[k].vals[#g[k].vals + 1] = r[col] end
  end
  return order, g
end

function TestGroup:test_agg_all_ops()
  local t = launches()
  local r = t:group_by("k"):agg {
    n = "count", total = "sum(d)", avg = "mean(d)", lo = "min(d)", hi = "max(d)",
    med = "quantile(d, 0.5)", first_u = "first(u)", sd = "sd(d)", distinct = "count_distinct(u)",
  }
  -- string specs: output columns are the keys, then the aggregates sorted by name
  lu.assertEquals(r:columns(), { "k", "avg", "distinct", "first_u", "hi", "lo", "med", "n", "sd", "total" })
  local order, g = lua_groups(ROWS, "k", "d")
  lu.assertEquals(r:col("k"):to_lua(), order)      -- groups in order of first appearance
  for i, k in ipairs(order) do
    local vals = g[k].vals
    local row = r:row(i)
    lu.assertEquals(row.n, g[k].n)
    lu.assertEquals(row.total, lsum(vals))
    lu.assertEquals(row.avg, lsum(vals) / #vals)
    lu.assertEquals(row.lo, math.min(table.unpack(vals)))
    lu.assertEquals(row.hi, math.max(table.unpack(vals)))
    if #vals > 1 then
      local m = lsum(vals) / #vals
      local ss = 0
      for _, v in ipairs(vals) do ss = ss + (v - m) ^ 2 end
      lu.assertAlmostEquals(row.sd, math.sqrt(ss / (#vals - 1)), 1e-12)
    else
      lu.assertNil(row.sd)                          -- sd of one value is missing
    end
  end
  -- by hand: gemm {100, 300}: median 200, first u 0.5; copy: u missing
  lu.assertEquals(r:row(1).med, 200)
  lu.assertEquals(r:row(1).first_u, 0.5)
  lu.assertEquals(r:row(1).distinct, 2)
  lu.assertNil(r:row(3).first_u)
  lu.assertEquals(r:row(3).distinct, 0)          -- missing values are not a distinct value
  lu.assertEquals(math.type(r:row(1).total), "integer")   -- sum of an integer column stays integer
end

function TestGroup:test_agg_array_spec_order()
  local r = launches():group_by("k"):agg { { "n", "count" }, { "total", "sum", "d" }, { "p25", "quantile", "d", 0.25 } }
  lu.assertEquals(r:columns(), { "k", "n", "total", "p25" })
  -- relu {10, 30}: p25 = 10 + 0.25*20 = 15
  lu.assertEquals(r:row(2), { k = "relu", n = 2, total = 40, p25 = 15 })
end

function TestGroup:test_multi_key_and_table_keys()
  local t = T.from_rows({ { a = "x", b = 1, v = 1 }, { a = "x", b = 2, v = 2 }, { a = "x", b = 1, v = 4 },
      { a = "y", b = 1, v = 8 } }, { "a", "b", "v" })
  local r = t:group_by("a", "b"):agg { s = "sum(v)" }
  lu.assertEquals(r:to_lua(), { { a = "x", b = 1, s = 5 }, { a = "x", b = 2, s = 2 }, { a = "y", b = 1, s = 8 } })
  local r2 = t:group_by({ "b", "a" }):agg { s = "sum(v)" }
  lu.assertEquals(r2:columns(), { "b", "a", "s" })
end

function TestGroup:test_agg_errors()
  local t = launches()
  lu.assertErrorMsgContains("agg 's': no column 'nope' in table 'launches' (columns: k, d, u)",
    function() return t:group_by("k"):agg { s = "sum(nope)" } end)
  lu.assertErrorMsgContains("agg 's': unknown aggregate 'bogus' (count, sum, mean, min, max, quantile, first, sd, count_distinct, wmean, last, ids, first_row)",
    function() return t:group_by("k"):agg { s = "bogus(d)" } end)
  lu.assertErrorMsgContains("aggregate 's': column 'k' holds strings, not numbers",
    function() return t:group_by("d"):agg { s = "sum(k)" } end)
  lu.assertErrorMsgContains("agg 'q': quantile must be in [0, 1]",
    function() return t:group_by("k"):agg { q = "quantile(d, 2)" } end)
  lu.assertErrorMsgContains("no column 'x' in table 'launches' (columns: k, d, u)",
      function() return t:group_by("x") end)
  lu.assertErrorMsgContains("group_by: no column 'x' in table 'launches' (columns: k, d, u)",
      function() return t:group_by({ "x" }) end)
end

function TestGroup:test_unique()
  lu.assertEquals(launches():unique("k"), { "gemm", "relu", "copy" })
  lu.assertEquals(launches():unique("u"), { 0.5, 0.25, 0.75, 0.125 })   -- missing is not a value
end

-- ---------------------------------------------------------------------------
TestJoin = {}

local function left() return T.from_rows({ { k = "x", n = 1, v = 10 }, { k = "y", n = 2, v = 20 },
    { k = "z", n = 3, v = 30 } }, { "k", "n", "v" }, "L") end
local function right() return T.from_rows({ { k = "x", n = 1, w = "p" }, { k = "y", n = 9, w = "q" },
    { k = "x", n = 1, w = "r" } }, { "k", "n", "w" }, "R") end

function TestJoin:test_inner_with_clash_suffix()
  local j = left():join(right(), { on = "k" })
  lu.assertEquals(j:columns(), { "k", "n", "v", "n_b", "w" })
  -- every left row with every matching right row, in left order then right order
  lu.assertEquals(j:to_lua(), {
    { k = "x", n = 1, v = 10, n_b = 1, w = "p" },
    { k = "x", n = 1, v = 10, n_b = 1, w = "r" },
    { k = "y", n = 2, v = 20, n_b = 9, w = "q" },
  })
  lu.assertEquals(left():join(right(), { on = "k", suffix = "_r" }):columns()[4], "n_r")
end

function TestJoin:test_left_multi_key()
  local j = left():join(right(), { on = { "k", "n" }, how = "left" })
  lu.assertEquals(j:columns(), { "k", "n", "v", "w" })
  lu.assertEquals(j:to_lua(), {
    { k = "x", n = 1, v = 10, w = "p" },
    { k = "x", n = 1, v = 10, w = "r" },
    { k = "y", n = 2, v = 20 },          -- no match: right columns missing
    { k = "z", n = 3, v = 30 },
  })
  -- keys named differently on the two sides
  local r2 = right():copy():rename("k", "key")
  lu.assertEquals(left():join(r2, { on = { { "k", "key" } } }):nrows(), 3)
end

function TestJoin:test_errors()
  local a, b = left(), right()
  lu.assertErrorMsgContains("join: key missing in the left table: no column 'q' in table 'L' (columns: k, n, v)",
    function() return a:join(b, { on = "q" }) end)
  lu.assertErrorMsgContains("join: key missing in the right table: no column 'v' in table 'R' (columns: k, n, w)",
    function() return a:join(b, { on = { "v" } }) end)
  lu.assertErrorMsgContains("join: how must be 'inner' or 'left'",
      function() return a:join(b, { on = "k", how = "outer" }) end)
  lu.assertErrorMsgContains("expected {on = KEY or {KEYS...}}", function() return a:join(b, {}) end)
  lu.assertErrorMsgContains("join key 'k' is a string on one side and an integer on the other",
    function() return a:join(T.from_rows({ { k = 1 } }), { on = "k" }) end)
end

-- ---------------------------------------------------------------------------
TestConcat = {}

function TestConcat:test_concat()
  local a = T.from_rows({ { k = "x", v = 1 } }, { "k", "v" }, "first")
  local b = T.from_rows({ { k = "y", v = 0.5, w = true } }, { "k", "v", "w" })
  local c = T.concat(a, b)
  lu.assertEquals(c:name(), "first")
  lu.assertEquals(c:columns(), { "k", "v", "w" })
  lu.assertEquals(c:types(), { k = "string", v = "number", w = "boolean" })   -- int + number -> number
  lu.assertEquals(c:to_lua(), { { k = "x", v = 1 }, { k = "y", v = 0.5, w = true } })
  lu.assertErrorMsgContains("concat: column 'k' is a string in one table and an integer in another",
    T.concat, a, T.from_rows({ { k = 1 } }))
end

-- ---------------------------------------------------------------------------
TestWrite = {}

function TestWrite:test_to_csv()
  local t = T.from_rows({
    { s = "plain", x = 1 }, { s = "a,b", x = 0.5 }, { s = 'say "hi"', x = -2 }, { s = " pad", x = 1e300 }, { x = 3 },
  }, { "s", "x" })
  lu.assertEquals(t:to_csv(), table.concat({
    "s,x", "plain,1", '"a,b",0.5', '"say ""hi""",-2', '" pad",1e+300', ",3", "" }, "\n"))
  lu.assertEquals(T.from_rows({ { b = true }, { b = false } }):to_csv(), "b\ntrue\nfalse\n")
end

function TestWrite:test_to_json_full_precision()
  local t = T.from_columns({ x = { 0.1 + 0.2, 1 / 3, 2 ^ 53, 1e-300, 7 }, s = { "q\"\\\n", "é", "a", "b", "c" } },
      { "s", "x" })
  local text = t:to_json()
  -- shortest text that reads back exactly
  lu.assertStrContains(text, '"x":0.30000000000000004')
  lu.assertStrContains(text, '"x":0.3333333333333333}')
  lu.assertStrContains(text, '"x":9007199254740992')
  lu.assertStrContains(text, '"s":"q\\"\\\\\\n"')
  local d = cjson.decode(text)
  lu.assertEquals(#d, 5)
  lu.assertTrue(d[1].x == 0.1 + 0.2)
  lu.assertTrue(d[2].x == 1 / 3)
  lu.assertTrue(d[4].x == 1e-300)
  lu.assertEquals(d[1].s, "q\"\\\n")
  lu.assertEquals(d[2].s, "é")
end

function TestWrite:test_to_json_missing_is_null()
  local text = launches():to_json()
  lu.assertEquals(lines(text .. "\n")[5], ' {"k":"copy", "d":40, "u":null},')
  local d = cjson.decode(text)
  lu.assertEquals(d[4].u, cjson.null)
  lu.assertEquals(d[1], { k = "gemm", d = 100, u = 0.5 })
end

function TestWrite:test_to_json_indent_and_integers()
  -- integers as string.format("%d") writes them, extremes included
  local ints = { 0, -1, 7, 10, -10, 1234567890123, math.maxinteger, math.mininteger + 1 }
  local t = T.from_columns({ i = ints, s = { "a\n b", "x", "", "q\"", "\n ", "é", "z", "]" } }, { "i", "s" })
  local d = cjson.decode(t:to_json())
  for r, v in ipairs(ints) do
    lu.assertEquals(lines(t:to_json() .. "\n")[r + 1]:match('"i":(%-?%d+)'), string.format("%d", v))
  end
  lu.assertEquals(#d, #ints)
  -- indented: the same text as re-indenting the default one line by line
  -- (what perflab.json did before), on strings that hold newlines
  for _, tb in ipairs({ t, launches(), T.from_rows({}, { "a" }) }) do
    local want = tb:to_json():gsub("\n ", "\n      "):gsub("\n%]$", "\n    ]")
    lu.assertEquals(tb:to_json("      ", "    "), want)
  end
  lu.assertEquals(T.from_rows({ { a = 1 }, { a = 2 } }, { "a" }):to_json("    ", "  "),
      '[\n    {"a":1},\n    {"a":2}\n  ]')
  lu.assertEquals(T.from_rows({}, { "a" }):to_json("    ", "  "), "[]")
end

function TestWrite:test_to_json_repeated_doubles()
  -- 3000 rows over 700 distinct doubles (more than the writer's text cache
  -- holds, so slots collide), with 0.0 and -0.0: every row's text is what a
  -- one-row table (one lookup, always computed) gives for that value
  local vals, distinct = {}, {}
  for d = 1, 700 do distinct[d] = (d * 7919 % 1000003) / 977 + d * 1e-9 end
  distinct[1], distinct[2] = 0.0, -0.0
  for r = 1, 3000 do vals[r] = distinct[(r * 37) % 700 + 1] end
  local got = lines(T.from_columns({ x = vals }):to_json() .. "\n")
  for r = 1, 3000 do
    local one = T.from_columns({ x = { vals[r] } }):to_json():match('"x":([^}]+)}')
    lu.assertEquals(got[r + 1]:match('"x":([^}]+)}'), one, "row " .. r)
  end
  lu.assertEquals(got[2]:match('"x":([^}]+)}'),
      T.from_columns({ x = { distinct[38] } }):to_json():match('"x":([^}]+)}'))
end

-- the indented form perflab.json nests in a report: rows after the given
-- prefix, "]" after the closing one; the same text as indenting the plain
-- form line by line (the second method: gsub on its output)
-- integers and integral doubles print as their digits (the writer's fast
-- path; the text must be what "%d" / the shortest round trip give)
function TestWrite:test_to_json_integers()
  local t = T.from_columns({ i = { -12, math.maxinteger, math.mininteger + 1, 0, 7 },
    d = { -5.0, 1e14, 99999999999999.0, -0.0, 1e15 } }, { "i", "d" })
  local text = t:to_json()
  lu.assertStrContains(text, '{"i":-12, "d":-5}')
  lu.assertStrContains(text, '{"i":9223372036854775807, "d":100000000000000}')
  lu.assertStrContains(text, '{"i":-9223372036854775807, "d":99999999999999}')
  lu.assertStrContains(text, '{"i":0, "d":-0}')
  lu.assertStrContains(text, '{"i":7, "d":1e+15}')
  for i, r in ipairs(cjson.decode(text)) do
    lu.assertEquals(r.d, t:get(i, "d"))
  end
end

function TestWrite:test_to_json_indented()
  local t = T.from_rows({ { a = 1, s = "x\n y" }, { a = 2 } }, { "a", "s" })
  lu.assertEquals(t:to_json("    ", "  "), '[\n    {"a":1, "s":"x\\n y"},\n    {"a":2, "s":null}\n  ]')
  lu.assertEquals(t:to_json("    ", "  "), (t:to_json():gsub("\n ", "\n    "):gsub("\n%]$", "\n  ]")))
  lu.assertEquals(t:to_json(" ", ""), t:to_json())
  lu.assertEquals(T.from_rows({}, { "a" }):to_json("    ", "  "), "[]")
end

function TestWrite:test_write_files()
  local t = launches()
  local p = os.tmpname()
  lu.assertTrue(t:write_csv(p))
  local f = io.open(p); local s = f:read("a"); f:close()
  lu.assertEquals(s, t:to_csv())
  lu.assertEquals(lines(s)[1], "k,d,u")
  lu.assertTrue(t:write_json(p))
  f = io.open(p); s = f:read("a"); f:close()
  lu.assertEquals(s, t:to_json())
  os.remove(p)
  local ok, err = t:write_csv("/nonexistent-dir/x.csv")
  lu.assertNil(ok)
  lu.assertEquals(err, "/nonexistent-dir/x.csv: cannot write: No such file or directory")
end

-- write_json_to: the text of to_json, handed to the file in ~1 MB pieces
-- (a table of over 2 MB here, so several pieces and a last partial one);
-- the second method: the rows decoded by cjson against the values made here
function TestWrite:test_write_json_to_pieces()
  local n, ks, vs = 40000, {}, {}
  for i = 1, n do ks[i] = string.format("kernel_%05d<%s>", i, string.rep("x", i % 50)); vs[i] = i * 3 end
  local t = T.from_columns({ k = ks, v = vs }, { "k", "v" })
  local p = os.tmpname()
  for _, ind in ipairs({ { " ", "" }, { "      ", "    " } }) do
    local f = io.open(p, "w")
    lu.assertEquals(t:write_json_to(f, ind[1], ind[2]), f)
    f:close()
    f = io.open(p); local s = f:read("a"); f:close()
    lu.assertTrue(#s > 2 * 1024 * 1024)
    lu.assertEquals(s, t:to_json(ind[1], ind[2]))
    local d = cjson.decode(s)
    lu.assertEquals(#d, n)
    for _, i in ipairs({ 1, 17, 26214, n }) do lu.assertEquals(d[i], { k = ks[i], v = i * 3 }) end
  end
  -- perflab.json.write to a file: the same text as encode's
  local json = require "perflab.json"
  local doc = { a = 1, t = t, z = { "x" } }
  local f = io.open(p, "w"); json.write(f, doc, "  ", "\n"); f:close()
  f = io.open(p); local s = f:read("a"); f:close()
  lu.assertEquals(s, json.encode(doc, "  ", "\n"))
  lu.assertEquals(#cjson.decode(s).t, n)
  os.remove(p)
  f = io.open(p, "w"); f:close()
  lu.assertErrorMsgContains("closed file", function() t:write_json_to(f) end)
  os.remove(p)
end

function TestWrite:test_format_text()
  lu.assertEquals(launches():format {}, table.concat({
    "k       d      u",
    "----  ---  -----",
    "gemm  100    0.5",
    "relu   10   0.25",
    "gemm  300   0.75",
    "copy   40      -",
    "relu   30  0.125",
    "" }, "\n"))
end

function TestWrite:test_format_max_rows()
  lu.assertEquals(launches():format { max_rows = 2 }, table.concat({
    "k       d     u",
    "----  ---  ----",
    "gemm  100   0.5",
    "relu   10  0.25",
    "… 3 more rows (5 in all)",
    "" }, "\n"))
end

function TestWrite:test_format_markdown()
  local t = T.from_rows({ { name = "a|b", v = 1.5 }, { name = "plain", v = 2 } }, { "name", "v" })
  lu.assertEquals(t:format { markdown = true }, table.concat({
    "| name  |   v |",
    "| ----- | --: |",
    "| a\\|b  | 1.5 |",
    "| plain |   2 |",
    "" }, "\n"))
  lu.assertEquals(launches():format { markdown = true, max_rows = 1 }, table.concat({
    "| k    |   d |   u |",
    "| ---- | --: | --: |",
    "| gemm | 100 | 0.5 |",
    "",
    "… 4 more rows (5 in all)",
    "" }, "\n"))
end

function TestWrite:test_format_width_cuts_text_not_numbers()
  local t = T.from_rows({ { name = "a_very_long_kernel_name", v = 123456789 } }, { "name", "v" })
  lu.assertEquals(t:format { width = 8 }, table.concat({
    "name              v",
    "--------  ---------",
    "a_very_…  123456789",
    "" }, "\n"))
  lu.assertEquals(t:format { width = 8, markdown = true }, table.concat({
    "| name     |         v |",
    "| -------- | --------: |",
    "| a_very_… | 123456789 |",
    "" }, "\n"))
end

function TestWrite:test_format_digits()
  local t = T.from_rows({ { v = 1 / 3 } })
  lu.assertEquals(lines(t:format {})[3], "0.333333")
  lu.assertEquals(lines(t:format { digits = 3 })[3], "0.333")
end

function TestWrite:test_tostring()
  local s = tostring(launches())
  lu.assertEquals(lines(s)[1], "table 'launches': 5 rows x 3 columns")
  lu.assertEquals(lines(s)[2], "k       d      u")
  lu.assertEquals(#lines(s), 8)
  -- more than 20 rows: tostring shows 20 and says how many more
  local rows = {}
  for i = 1, 25 do rows[i] = { i = i } end
  local big = lines(tostring(T.from_rows(rows)))
  lu.assertEquals(big[#big], "… 5 more rows (25 in all)")
end

function TestWrite:test_close()
  local t = launches()
  t:close()
  lu.assertEquals(tostring(t), "table (closed)")
  lu.assertErrorMsgContains("table already closed", function() return t:nrows() end)
end

-- Column names without an order are sorted in C (strcoll, as table.sort
-- would), so a script that replaces the global `table` breaks nothing
-- (review 5.3: the bindings looked up table.sort by name).
TestSortedNames = {}
function TestSortedNames:test_no_global_table_sort()
  local saved = table
  table = { sort = function() error("global table.sort called") end }
  local ok, a, b, c = pcall(function()
    local t1 = T.from_columns({ b = { 1 }, a = { 2 }, c = { 3 } })
    local t2 = T.from_rows({ { z = 1, y = 2, x = 3 } })
    local g = T.from_rows({ { k = "a", v = 1 }, { k = "b", v = 2 }, { k = "a", v = 3 } })
      :group_by("k"):agg({ zz = { "sum", "v" }, aa = { "count" } })
    return t1:columns(), t2:columns(), g
  end)
  table = saved
  lu.assertTrue(ok, tostring(a))
  lu.assertEquals(a, { "a", "b", "c" })
  lu.assertEquals(b, { "x", "y", "z" })
  lu.assertEquals(c:columns(), { "k", "aa", "zz" })
  lu.assertEquals(c:col("zz"):to_lua(), { 4, 2 })   -- a: 1 + 3, b: 2
  -- Column:match calls the string library's find, not the global `string`
  local ks = T.from_rows({ { k = "ab" }, { k = "b" }, { k = "ab" } }):col("k")
  local saved_string = string
  string = { find = function() error("global string.find called") end }
  local ok2, m = pcall(ks.match, ks, "^a")
  string = saved_string
  lu.assertTrue(ok2, tostring(m))
  lu.assertEquals(m:to_lua(), { true, false, true })
  -- names that cannot be ordered: the error table.sort gave
  lu.assertErrorMsgContains("attempt to compare", function() return T.from_columns({ [2] = { 1 }, a = { 2 } }) end)
  -- a column type by name: luaL_checkoption
  local t = T.from_rows({ { a = 1 } })
  lu.assertEquals(t:add_column("b", { 2 }, "integer"):types().b, "integer")
  lu.assertErrorMsgContains("invalid option 'float'", function() return t:add_column("b", { 2 }, "float") end)
end

-- perflab.json.number and the C writers (pl_fmt_double, Table:to_json) are
-- two copies of the shortest round-trip double: they must print the same
-- text (review 1.4), and it must read back exactly.
function TestSortedNames:test_json_number_is_the_c_text()
  local json = require "perflab.json"
  local xs = { 0.1, 1 / 3, 2 / 3, 1e300, -1e-300, 123.456, 5e-324, 1.7976931348623157e308, 2 ^ 53 + 2.0,
    0.30000000000000004, 100.0, 1e15 + 0.5, 6.02214076e23, -2.5, 9007199254740993.0, 1e-7 }
  for _, x in ipairs(xs) do
    local c = T.from_columns({ x = { x } }):to_json():match('"x":%s*([^}%s]+)')
    lu.assertEquals(json.number(x), c, string.format("%.17g", x))
    lu.assertEquals(tonumber(c), x)
  end
end

os.exit(lu.LuaUnit.run())

-- test_table_vec.lua -- column expressions, masks, filter/order/take/with,
-- map, pivot, the wmean/last/ids aggregates with where masks, frozen
-- profile tables and histograms (docs/table-api.md, "Column expressions" on).
-- Every vector result is compared with a plain Lua loop over the same
-- random data (with missing values); small cases are written out by hand.
local lu = require "luaunit"
local perflab = require "perflab"
local T = perflab.table
local S = perflab.stats

-- random rows: i (integer, some missing), j (integer), x, y (numbers, some
-- missing), s (string from a small set, some missing), b (boolean)
local N = 400
local WORDS = { "gemm", "relu", "copy", "softmax", "gemm_fp16", "reduce" }
local function make_rows(seed)
  local state = seed
  local function rnd(n)   -- a small LCG, so the data does not depend on math.random
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n
  end
  local rows = {}
  for r = 1, N do
    local row = {}
    if rnd(7) ~= 0 then row.i = rnd(2001) - 1000 end
    row.j = rnd(50) - 25
    if rnd(5) ~= 0 then row.x = (rnd(100000) - 50000) / 128 end
    if rnd(6) ~= 0 then row.y = (rnd(1000) + 1) / 8 end
    if rnd(9) ~= 0 then row.s = WORDS[rnd(#WORDS) + 1] end
    row.b = rnd(2) == 0
    rows[r] = row
  end
  return rows
end
local ROWS = make_rows(42)
local function tbl() return T.from_rows(ROWS, { "i", "j", "x", "y", "s", "b" }, "rand") end

-- the value of a column cell as the engine gives it (to_lua) vs a plain loop
local function check_vec(col, fn, typ)
  lu.assertEquals(col:type(), typ)
  local got = col:to_lua()
  for r = 1, N do
    local want = fn(ROWS[r])
    if want ~= want then want = nil end     -- NaN reads as missing
    if type(want) == "number" and math.type(want) == "float" and want ~= got[r] then
      lu.assertAlmostEquals(got[r], want, 1e-12 * math.max(1, math.abs(want)), "row " .. r)
    else
      lu.assertEquals(got[r], want, "row " .. r)
    end
  end
end

local function arith(op)
  return function(a, b)
    if a == nil or b == nil then return nil end
    if op == "+" then return a + b elseif op == "-" then return a - b
    elseif op == "*" then return a * b else return a / b end
  end
end

TestArith = {}

function TestArith:test_column_with_column()
  local t = tbl()
  local i, j, x, y = t:col("i"), t:col("j"), t:col("x"), t:col("y")
  check_vec(i + j, function(r) return arith("+")(r.i, r.j) end, "integer")
  check_vec(i - j, function(r) return arith("-")(r.i, r.j) end, "integer")
  check_vec(i * j, function(r) return arith("*")(r.i, r.j) end, "integer")
  check_vec(i / j, function(r) return r.i and r.i / r.j end, "number")
  check_vec(x + y, function(r) return arith("+")(r.x, r.y) end, "number")
  check_vec(x * i, function(r) return arith("*")(r.x, r.i) end, "number")
  check_vec(x / y, function(r) return arith("/")(r.x, r.y) end, "number")
  check_vec(-x, function(r) return r.x and -r.x end, "number")
end

function TestArith:test_column_with_number()
  local t = tbl()
  local i, x = t:col("i"), t:col("x")
  check_vec(i + 3, function(r) return r.i and r.i + 3 end, "integer")
  check_vec(2 * i, function(r) return r.i and 2 * r.i end, "integer")
  check_vec(i * 0.5, function(r) return r.i and r.i * 0.5 end, "number")
  check_vec(10 - x, function(r) return r.x and 10 - r.x end, "number")
  check_vec(i / 4, function(r) return r.i and r.i / 4 end, "number")
  check_vec((i + 1) * 2 - i, function(r) return r.i and (r.i + 1) * 2 - r.i end, "integer")
end

function TestArith:test_unary()
  local t = tbl()
  local i, x = t:col("i"), t:col("x")
  check_vec(i:abs(), function(r) return r.i and math.abs(r.i) end, "integer")
  check_vec(x:abs(), function(r) return r.x and math.abs(r.x) end, "number")
  check_vec(i:clip(-100, 250), function(r) return r.i and math.min(math.max(r.i, -100), 250) end, "integer")
  check_vec(x:clip(nil, 0.5), function(r) return r.x and math.min(r.x, 0.5) end, "number")
  check_vec(i:clip(0.5), function(r) return r.i and math.max(r.i, 0.5) end, "number")
  check_vec(i:min_with(t:col("j")), function(r) return r.i and math.min(r.i, r.j) end, "integer")
  check_vec(x:max_with(0), function(r) return r.x and math.max(r.x, 0) end, "number")
  check_vec(x:min_with(t:col("y")), function(r) return r.x and r.y and math.min(r.x, r.y) end, "number")
end

function TestArith:test_fill()
  local t = tbl()
  local i, j, x, y = t:col("i"), t:col("j"), t:col("x"), t:col("y")
  -- independent: the plain Lua `a or b` per row
  check_vec(i:fill(j), function(r) if r.i ~= nil then return r.i end return r.j end, "integer")
  check_vec(i:fill(7), function(r) if r.i ~= nil then return r.i end return 7 end, "integer")
  check_vec(x:fill(y), function(r) if r.x ~= nil then return r.x end return r.y end, "number")
  check_vec(i:fill(y), function(r) if r.i ~= nil then return r.i end return r.y end, "number")
  check_vec(x:fill(0.25), function(r) if r.x ~= nil then return r.x end return 0.25 end, "number")
  -- the smallest present value of two columns (missing only where both are)
  check_vec(x:fill(y):min_with(y:fill(x)), function(r)
    if r.x and r.y then return math.min(r.x, r.y) end
    if r.x ~= nil then return r.x end
    return r.y
  end, "number")
  -- by hand
  local h = T.from_rows({ { a = 1 }, { b = 5 }, { a = 3, b = 4 }, {} }, { "a", "b" })
  lu.assertEquals(h:col("a"):fill(h:col("b")):to_lua(), { 1, 5, 3, nil })
  lu.assertEquals(h:col("a"):fill(0):to_lua(), { 1, 0, 3, 0 })
  -- the examples of docs/table-api.md
  local L = T.from_rows({
    { k = "gemm", d = 100, u = 0.5 }, { k = "relu", d = 10, u = 0.25 }, { k = "gemm", d = 300, u = 0.75 },
    { k = "copy", d = 40 }, { k = "relu", d = 30, u = 0.125 },
  }, { "k", "d", "u" }, "launches")
  local d, u = L:col("d"), L:col("u")
  lu.assertEquals(u:fill(0):to_lua(), { 0.5, 0.25, 0.75, 0, 0.125 })
  lu.assertEquals(u:fill(0):type(), "number")
  lu.assertEquals(d:keep(d:gt(50)):fill(d * 2):to_lua(), { 100, 20, 300, 80, 60 })
  lu.assertEquals((d // 40):to_lua(), { 2, 0, 7, 1, 0 })
  lu.assertEquals((d % 40):to_lua(), { 20, 10, 20, 0, 30 })
  lu.assertEquals((d / 40):ceil():to_lua(), { 3, 1, 8, 1, 1 })
  lu.assertEquals(t:col("s"):fill("x"):type(), "string")   -- strings fill with strings
  lu.assertErrorMsgContains("fill: cannot fill strings with integers", function() return t:col("s"):fill(1) end)
end

function TestArith:test_idiv_mod_floor_ceil()
  local t = tbl()
  local i, j, x, y = t:col("i"), t:col("j"), t:col("x"), t:col("y")
  -- independent: Lua's own // and % and math.floor / math.ceil per row
  -- (an integer division by zero is missing; Lua would raise)
  local function op(f) return function(a, b) if a == nil or b == nil then return nil end return f(a, b) end end
  local idiv = op(function(a, b) if math.type(a) == "integer" and math.type(b) == "integer"
      and b == 0 then return nil end return a // b end)
  local mod = op(function(a, b) if math.type(a) == "integer" and math.type(b) == "integer"
      and b == 0 then return nil end return a % b end)
  check_vec(i // j, function(r) return idiv(r.i, r.j) end, "integer")
  check_vec(i % j, function(r) return mod(r.i, r.j) end, "integer")
  check_vec(i // 7, function(r) return idiv(r.i, 7) end, "integer")
  check_vec(i % -7, function(r) return mod(r.i, -7) end, "integer")
  check_vec(x // y, function(r) return idiv(r.x, r.y) end, "number")
  check_vec(x % y, function(r) return mod(r.x, r.y) end, "number")
  check_vec(x % -3, function(r) return mod(r.x, -3) end, "number")
  check_vec(1000 // j, function(r) return idiv(1000, r.j) end, "integer")
  check_vec(x:floor(), function(r) return r.x and math.floor(r.x) end, "integer")
  check_vec(x:ceil(), function(r) return r.x and math.ceil(r.x) end, "integer")
  check_vec(i:floor(), function(r) return r.i end, "integer")
  -- by hand: Lua's signs (the remainder takes the divisor's)
  local h = T.from_rows({ { a = 7, b = 2 }, { a = -7, b = 2 }, { a = 7, b = -2 }, { a = 5, b = 0 } }, { "a", "b" })
  lu.assertEquals((h:col("a") // h:col("b")):to_lua(), { 3, -4, -4, nil })
  lu.assertEquals((h:col("a") % h:col("b")):to_lua(), { 1, 1, -1, nil })
  local f = T.from_rows({ { v = 2.5 }, { v = -2.5 }, { v = 1e300 } }, { "v" })
  lu.assertEquals(f:col("v"):floor():to_lua(), { 2.0, -3.0, 1e300 })   -- 1e300 does not fit: a number column
  lu.assertEquals(f:col("v"):floor():type(), "number")
  lu.assertErrorMsgContains("floor: expected numbers", function() return t:col("s"):floor() end)
end

function TestArith:test_integer_overflow_becomes_number()
  local t = T.from_rows({ { a = math.maxinteger }, { a = 1 } }, { "a" })
  local c = t:col("a") + 1
  lu.assertEquals(c:type(), "number")
  lu.assertEquals(c:to_lua()[2], 2.0)
end

function TestArith:test_errors()
  local t = tbl()
  lu.assertErrorMsgContains("+: arithmetic on strings: expected numbers", function() return t:col("s") + 1 end)
  local short = T.from_rows({ { a = 1 } }, { "a" })
  lu.assertErrorMsgContains("columns of different lengths (400 and 1 rows)",
      function() return t:col("i") + short:col("a") end)
  lu.assertErrorMsgContains("clip: lower bound 2 above upper bound 1", function() return t:col("x"):clip(2, 1) end)
end

TestMasks = {}

local function cmp(op, a, b)
  if a == nil or b == nil then return false end
  if op == "eq" then return a == b elseif op == "ne" then return a ~= b
  elseif op == "lt" then return a < b elseif op == "le" then return a <= b
  elseif op == "gt" then return a > b else return a >= b end
end

function TestMasks:test_comparisons()
  local t = tbl()
  for _, op in ipairs({ "eq", "ne", "lt", "le", "gt", "ge" }) do
    check_vec(t:col("i")[op](t:col("i"), 0), function(r) return cmp(op, r.i, 0) end, "boolean")
    check_vec(t:col("x")[op](t:col("x"), t:col("y")), function(r) return cmp(op, r.x, r.y) end, "boolean")
    check_vec(t:col("i")[op](t:col("i"), t:col("j")), function(r) return cmp(op, r.i, r.j) end, "boolean")
    check_vec(t:col("s")[op](t:col("s"), "gemm"), function(r) return cmp(op, r.s, "gemm") end, "boolean")
  end
  check_vec(t:col("b"):eq(true), function(r) return r.b == true end, "boolean")
  check_vec(t:col("x"):between(-10, 20.5), function(r) return r.x ~= nil and r.x >= -10 and r.x <= 20.5 end, "boolean")
  lu.assertErrorMsgContains("cannot compare strings with integers", function() return t:col("s"):eq(1) end)
end

function TestMasks:test_isin_and_match()
  local t = tbl()
  local set = { gemm = true, copy = true }
  check_vec(t:col("s"):isin { "gemm", "copy" }, function(r) return set[r.s] == true end, "boolean")
  check_vec(t:col("j"):isin { 1, 2, 3, -25 }, function(r) return r.j == 1 or r.j == 2 or r.j == 3 or r.j == -25 end,
      "boolean")
  check_vec(t:col("s"):match("^gemm"), function(r) return r.s ~= nil and r.s:find("^gemm") ~= nil end, "boolean")
  check_vec(t:col("s"):match("e.*e"), function(r) return r.s ~= nil and r.s:find("e.*e") ~= nil end, "boolean")
  lu.assertErrorMsgContains("match: column 'i' holds integer, not strings", function() return t:col("i"):match("x") end)
end

function TestMasks:test_match_tries_each_distinct_string_once()
  local t = tbl()
  local calls, find = 0, string.find
  string.find = function(...) calls = calls + 1 return find(...) end   -- luacheck: ignore
  local ok, err = pcall(function() return t:col("s"):match("^g") end)
  string.find = find                                                     -- luacheck: ignore
  lu.assertTrue(ok, err)
  lu.assertEquals(calls, #WORDS)    -- 400 rows, 6 distinct strings
end

function TestMasks:test_and_or_not()
  local t = tbl()
  local a, b = t:col("i"):gt(0), t:col("s"):eq("relu")
  check_vec(a & b, function(r) return cmp("gt", r.i, 0) and cmp("eq", r.s, "relu") end, "boolean")
  check_vec(a | b, function(r) return cmp("gt", r.i, 0) or cmp("eq", r.s, "relu") end, "boolean")
  check_vec(~a, function(r) return not cmp("gt", r.i, 0) end, "boolean")
  check_vec(~a & t:col("b"), function(r) return (not cmp("gt", r.i, 0)) and r.b end, "boolean")
  -- Kleene logic on a boolean column with missing values
  local k = T.from_rows({ { p = true, q = nil }, { p = false, q = nil }, { p = true, q = false } }, { "p", "q" })
  k:add_column("q", { nil, nil, false }, "boolean")
  local p, q = k:col("p"), k:col("q")
  lu.assertEquals((p & q):to_lua(), { [2] = false, [3] = false })
  lu.assertEquals((p | q):to_lua(), { true, nil, true })
  lu.assertEquals((~q):to_lua(), { [3] = true })
  lu.assertErrorMsgContains("&: expected booleans, got integers", function() return t:col("i") & a end)
end

TestRows = {}

function TestRows:test_filter()
  local t = tbl()
  local f = t:filter(t:col("x"):gt(0) & t:col("s"):ne("copy"))
  local want = {}
  for _, r in ipairs(ROWS) do if r.x ~= nil and r.x > 0 and r.s ~= nil
      and r.s ~= "copy" then want[#want + 1] = r end end
  lu.assertEquals(f:nrows(), #want)
  for k, r in ipairs(want) do lu.assertEquals(f:row(k), r) end
  lu.assertEquals(f:name(), "filter(rand)")
  lu.assertErrorMsgContains("filter: expected a boolean column (a mask), got column 'i' of integer",
      function() return t:filter(t:col("i")) end)
end

function TestRows:test_order_take()
  local t = tbl()
  local ord = t:order("s", "-x")
  lu.assertEquals(ord:type(), "integer")
  -- independent: a stable insertion sort in Lua with missing last
  local idx = {}
  for r = 1, N do idx[r] = r end
  local function before(a, b)
    local ra, rb = ROWS[a], ROWS[b]
    if ra.s ~= rb.s then
      if ra.s == nil then return false elseif rb.s == nil then return true end
      return ra.s < rb.s
    end
    if ra.x ~= rb.x then
      if ra.x == nil then return false elseif rb.x == nil then return true end
      return ra.x > rb.x
    end
    return false
  end
  for k = 2, N do
    local v, m = idx[k], k
    while m > 1 and before(v, idx[m - 1]) do idx[m] = idx[m - 1]; m = m - 1 end
    idx[m] = v
  end
  lu.assertEquals(ord:to_lua(), idx)
  local tk = t:take(ord)
  for k = 1, N do lu.assertEquals(tk:row(k), ROWS[idx[k]]) end
  lu.assertEquals(t:take({ 3, 1, 3 }):col("j"):to_lua(), { ROWS[3].j, ROWS[1].j, ROWS[3].j })
  lu.assertErrorMsgContains("take: row 401 out of range (table 'rand' has 400 rows)",
      function() return t:take({ 401 }) end)
end

function TestRows:test_with()
  local t = tbl()
  lu.assertIs(t:with("z", t:col("i") * 2), t)
  check_vec(t:col("z"), function(r) return r.i and r.i * 2 end, "integer")
  t:with("i", t:col("j"))                 -- replaces where it stands
  lu.assertEquals(t:columns(), { "i", "j", "x", "y", "s", "b", "z" })
  check_vec(t:col("i"), function(r) return r.j end, "integer")
  -- a string column of another table (another pool) keeps its texts
  local o = T.from_rows({ { w = "a" }, { w = "b" } }, { "w" })
  local two = T.from_rows({ { n = 1 }, { n = 2 } }, { "n" })
  lu.assertEquals(two:with("w", o:col("w")):col("w"):to_lua(), { "a", "b" })
  lu.assertErrorMsgContains("with 'w': the column has 2 rows, table 'rand' 400",
      function() return t:with("w", o:col("w")) end)
end

function TestRows:test_where_table()
  local t = tbl()
  local w = t:where { s = "relu", b = true }
  local n = 0
  for _, r in ipairs(ROWS) do if r.s == "relu" and r.b then n = n + 1; lu.assertEquals(w:row(n), r) end end
  lu.assertEquals(w:nrows(), n)
  local w2 = t:where { s = { "copy", "reduce" } }
  local n2 = 0
  for _, r in ipairs(ROWS) do if r.s == "copy" or r.s == "reduce" then n2 = n2 + 1 end end
  lu.assertEquals(w2:nrows(), n2)
  lu.assertErrorMsgContains("where: no column 'q' in table 'rand'", function() return t:where { q = 1 } end)
end

function TestRows:test_map()
  local t = tbl()
  local len = { gemm = 4, relu = 4, copy = 4, softmax = 7, gemm_fp16 = 9 }   -- reduce absent: missing
  check_vec(t:col("s"):map(len), function(r) return r.s and len[r.s] end, "integer")
  local calls = 0
  check_vec(t:col("s"):map(function(s) calls = calls + 1 return s:upper() end),
      function(r) return r.s and r.s:upper() end, "string")
  lu.assertEquals(calls, #WORDS)
  local jc = 0
  check_vec(t:col("j"):map(function(v) jc = jc + 1 return v % 2 == 0 end), function(r) return r.j % 2 == 0 end,
      "boolean")
  local distinct = {}
  for _, r in ipairs(ROWS) do distinct[r.j] = true end
  local nd = 0
  for _ in pairs(distinct) do nd = nd + 1 end
  lu.assertEquals(jc, nd)
  lu.assertErrorMsgContains("map: column 'x' holds numbers", function() return t:col("x"):map({}) end)
end

TestAgg = {}

function TestAgg:test_wmean_last_ids_where()
  local t = tbl()
  local mask = t:col("x"):gt(0)
  local g, ids = t:group_by("s"):agg {
    { "w", "wmean", "x", "y" }, { "l", "last", "x" }, { "rows", "ids" },
    { "n", "count", where = mask }, { "pos", "sum", "x", where = mask }, { "pos_i", "sum", "i", where = mask },
    { "prow", "ids", where = mask },
  }
  -- independent: one pass in Lua
  local want, order = {}, {}
  for r, row in ipairs(ROWS) do
    local k = row.s == nil and "<nil>" or row.s
    local w = want[k]
    if not w then
      w = { sxw = 0, sw = 0, rows = {}, n = 0, pos = 0, pos_i = 0, prow = {}, first = r }
      want[k] = w; order[#order + 1] = k
    end
    if row.x and row.y then w.sxw = w.sxw + row.x * row.y; w.sw = w.sw + row.y end
    if row.x then w.l = row.x end
    w.rows[#w.rows + 1] = r
    if row.x and row.x > 0 then
      w.n = w.n + 1; w.pos = w.pos + row.x; w.prow[#w.prow + 1] = r
      if row.i then w.pos_i = w.pos_i + row.i end
    end
  end
  lu.assertEquals(g:nrows(), #order)
  for gi, k in ipairs(order) do
    local r, w = g:row(gi), want[k]
    lu.assertAlmostEquals(r.w, w.sxw / w.sw, 1e-9)
    lu.assertEquals(r.l, w.l)
    lu.assertEquals(r.rows, w.first)
    lu.assertEquals(ids.rows[gi], w.rows)
    lu.assertEquals(ids.prow[gi], w.prow)
    lu.assertEquals(r.n, w.n)
    lu.assertAlmostEquals(r.pos, w.pos, 1e-9)
    lu.assertEquals(r.pos_i, w.pos_i)
    lu.assertEquals(math.type(r.pos_i), "integer")
  end
  -- by hand: wmean of u weighted by d
  local h = T.from_rows({ { k = "a", u = 0.5, d = 100 }, { k = "a", u = 0.75, d = 300 }, { k = "a", d = 50 } },
      { "k", "u", "d" })
  lu.assertEquals(h:group_by("k"):agg { { "w", "wmean", "u", "d" } }:row(1).w, 0.6875)
  lu.assertEquals(h:group_by("k"):agg { w = "wmean(u, d)" }:row(1).w, 0.6875)
  lu.assertErrorMsgContains("agg 'w': wmean needs a weight column",
      function() return h:group_by("k"):agg { { "w", "wmean", "u" } } end)
  lu.assertErrorMsgContains("agg 'n': expected a boolean column (a mask)",
      function() return h:group_by("k"):agg { { "n", "count", where = h:col("d") } } end)
end

function TestAgg:test_first_row()
  local t = tbl()
  local mask = t:col("x"):gt(0)
  local g = t:group_by("s", "b"):agg { { "r", "first_row" }, { "pr", "first_row", where = mask } }
  -- independent: one pass in Lua, groups in order of first appearance
  local want, order = {}, {}
  for r, row in ipairs(ROWS) do
    local k = tostring(row.s) .. "|" .. tostring(row.b)
    if not want[k] then want[k] = { first = r }; order[#order + 1] = k end
    if row.x and row.x > 0 and not want[k].pos then want[k].pos = r end
  end
  lu.assertEquals(g:nrows(), #order)
  lu.assertEquals(g:col("r"):type(), "integer")
  for gi, k in ipairs(order) do
    lu.assertEquals(g:get(gi, "r"), want[k].first)
    lu.assertEquals(g:get(gi, "pr"), want[k].pos)
  end
  -- by hand: k = a a b a, v = 1 5 2 7; first_row: a 1, b 3; where v > 3: a 2, b missing
  local h = T.from_rows({ { k = "a", v = 1 }, { k = "a", v = 5 }, { k = "b", v = 2 }, { k = "a", v = 7 } },
      { "k", "v" })
  local hg = h:group_by("k"):agg { { "r", "first_row" }, { "big", "first_row", where = h:col("v"):gt(3) } }
  lu.assertEquals(hg:col("r"):to_lua(), { 1, 3 })
  lu.assertEquals(hg:col("big"):to_lua(), { 2, nil })
end

function TestAgg:test_masked_reductions()
  local t = tbl()
  local m = t:col("s"):eq("gemm")
  local s, n, mn = 0, 0, math.huge
  for _, r in ipairs(ROWS) do
    if r.s == "gemm" and r.x then s = s + r.x; n = n + 1; mn = math.min(mn, r.x) end
  end
  lu.assertAlmostEquals(t:col("x"):sum { where = m }, s, 1e-9)
  lu.assertEquals(t:col("x"):count { where = m }, n)
  lu.assertEquals(t:col("x"):min { where = m }, mn)
  lu.assertAlmostEquals(t:col("x"):mean { where = m }, s / n, 1e-9)
end

function TestAgg:test_pivot()
  local long = T.from_rows({
    { id = 1, metric = "sm__throughput", v = 50.5 },
    { id = 1, metric = "dram__bytes", v = 1024 },
    { id = 2, metric = "sm__throughput", v = 20 },
    { id = 2, metric = "sm__throughput", v = 30 },
    { id = 3, metric = "dram__bytes", v = 8 },
  }, { "id", "metric", "v" }, "metrics")
  local w = long:pivot { index = "id", columns = "metric", values = "v", agg = "sum" }
  lu.assertEquals(w:columns(), { "id", "sm__throughput", "dram__bytes" })
  lu.assertEquals(w:to_lua(), {
    { id = 1, sm__throughput = 50.5, dram__bytes = 1024 },
    { id = 2, sm__throughput = 50 },
    { id = 3, dram__bytes = 8 },
  })
  local f = long:pivot { index = { "id" }, columns = "metric", values = "v" }   -- first
  lu.assertEquals(f:row(2), { id = 2, sm__throughput = 20 })
  local c = long:pivot { index = "id", columns = "metric", values = "v", agg = "count" }
  lu.assertEquals(c:to_lua(), {
    { id = 1, sm__throughput = 1, dram__bytes = 1 },
    { id = 2, sm__throughput = 2, dram__bytes = 0 },
    { id = 3, sm__throughput = 0, dram__bytes = 1 },
  })
  lu.assertErrorMsgContains("pivot: values: no column 'x'", function() return long:pivot { index = "id",
      columns = "metric", values = "x" } end)
  lu.assertErrorMsgContains("pivot: unknown agg 'median' (first, last, sum, mean, min, max, count)",
      function() return long:pivot { index = "id", columns = "metric", values = "v", agg = "median" } end)
end

TestStable = {}

function TestStable:test_profile_tables_are_frozen()
  local p = perflab.load((os.getenv("PERFLAB_SRC") or ".") .. "/tests/fixtures/kernel-table/small.txt")
  local k = p:table("kernels")
  lu.assertTrue(k:frozen())
  local cols = k:columns()
  local k2 = k:add_column("helper", function() return 1 end)
  lu.assertNotIs(k2, k)
  lu.assertEquals(k:columns(), cols)                 -- the profile's table is unchanged
  lu.assertEquals(k2:col("helper"):sum(), k:nrows())
  local k3 = k:with("h2", k:col("latency_ns") * 2)
  lu.assertEquals(k:columns(), cols)
  lu.assertTrue(k3:has("h2"))
  lu.assertFalse(k3:frozen())
  lu.assertIs(k3:with("h3", k3:col("h2")), k3)       -- a copy is the script's own
  lu.assertEquals(k:drop("name"):columns()[1] ~= nil, true)
  lu.assertEquals(k:columns(), cols)
  -- a derived table does not keep its source's name
  lu.assertEquals(k:head(2):name(), "head(kernels)")
  lu.assertEquals(k:sort_by("latency_ns"):name(), "sort_by(kernels)")
end

function TestStable:test_kernel_table_duration_is_latency()
  -- the kernel-table reader stores duration_ns as latency_ns itself (one
  -- buffer); both read the same, and a script's changes to one leave the other
  local p = perflab.load((os.getenv("PERFLAB_SRC") or ".") .. "/tests/fixtures/kernel-table/small.txt")
  local k = p:table("kernels")
  lu.assertEquals(k:columns()[3], "latency_ns")
  lu.assertEquals(k:columns()[4], "duration_ns")
  lu.assertEquals(k:col("duration_ns"):to_lua(), k:col("latency_ns"):to_lua())
  local c = k:copy()
  c:with("latency_ns", c:col("latency_ns") * 2)
  lu.assertEquals(c:col("duration_ns"):to_lua(), k:col("latency_ns"):to_lua())
  lu.assertEquals(c:col("latency_ns"):sum(), 2 * k:col("duration_ns"):sum())
end

function TestStable:test_callback_errors_name_the_row()
  local t = T.from_rows({ { a = 1 }, { a = 2 }, {} }, { "a" }, "t3")
  lu.assertErrorMsgContains("where (table 't3'), row 3, column 'a':",
      function() return t:where(function(r) return r.a > 1 end) end)
  lu.assertErrorMsgContains("add_column 'b' (table 't3'), row 3, column 'a':",
      function() return t:add_column("b", function(r) return r.a + 1 end) end)
  lu.assertErrorMsgContains("(field 'a')", function() return t:add_column("b", function(r) return r.a + 1 end) end)
  -- the column named is the one read last before the error
  local u = T.from_rows({ { a = 1, b = 2 }, { a = 2 } }, { "a", "b" }, "t2")
  lu.assertErrorMsgContains("where (table 't2'), row 2, column 'b':",
      function() return u:where(function(r) return r.a + r.b > 0 end) end)
  -- an error that reads no column names none
  lu.assertErrorMsgContains("where (table 't2'), row 1: ", function() return u:where(function() error("boom") end) end)
  -- error objects that are not strings pass through unchanged
  local ok, e = pcall(function() return u:where(function() error({ code = 7 }) end) end)
  lu.assertFalse(ok)
  lu.assertEquals(e.code, 7)
end

TestHistogram = {}

function TestHistogram:test_under_over_and_integers()
  local x = { 0, 0, 1, 2, 2, 3, 5, 8, 13, 100 }
  local h = S.histogram(x, { edges = { 1, 5, 13 } })
  -- by hand: [1,5): 1 2 2 3; [5,13]: 5 8 13; under 0 0; over 100
  lu.assertEquals(h.counts, { 4, 3 })
  lu.assertEquals(math.type(h.counts[1]), "integer")
  lu.assertEquals(h.under, 2)
  lu.assertEquals(h.over, 1)
  local t = h:table()
  lu.assertEquals(t:to_lua(), { { hi = 1, count = 2 }, { lo = 1, hi = 5, count = 4 }, { lo = 5, hi = 13, count = 3 },
      { lo = 13, count = 1 } })
  lu.assertStrContains(tostring(h), "lo  hi  count")
end

function TestHistogram:test_log_bins()
  local h = S.histogram({ 0, 1, 10, 100, 1000 }, { bins = 3, log = true })
  lu.assertEquals(#h.edges, 4)
  lu.assertEquals(h.edges[1], 1)
  lu.assertEquals(h.edges[4], 1000)
  lu.assertAlmostEquals(h.edges[2], 10, 1e-9)
  lu.assertAlmostEquals(h.edges[3], 100, 1e-9)
  lu.assertEquals(h.counts, { 1, 1, 2 })   -- 1 | 10 | 100 1000 (last bin closed)
  lu.assertEquals(h.under, 1)              -- the zero
  lu.assertEquals(h.over, 0)
  lu.assertErrorMsgContains("log bins need at least one value > 0",
      function() return S.histogram({ 0, -1 }, { log = true }) end)
end

-- the examples of docs/table-api.md, sections "Column expressions" to "Errors
-- inside callbacks", on the page's table (values worked out by hand)
TestDocExamples = {}
local function launches()
  return T.from_rows({
    { k = "gemm", d = 100, u = 0.5 }, { k = "relu", d = 10, u = 0.25 }, { k = "gemm", d = 300, u = 0.75 },
    { k = "copy", d = 40 }, { k = "relu", d = 30, u = 0.125 },
  }, { "k", "d", "u" }, "launches")
end

function TestDocExamples:test_expressions_and_masks()
  local t = launches()
  local d, u = t:col("d"), t:col("u")
  lu.assertEquals((d + 1):to_lua(), { 101, 11, 301, 41, 31 })
  lu.assertEquals((d * u):to_lua(), { 50.0, 2.5, 225.0, nil, 3.75 })
  lu.assertEquals(d:clip(20, 100):to_lua(), { 100, 20, 100, 40, 30 })
  lu.assertEquals(d:min_with(50):to_lua(), { 50, 10, 50, 40, 30 })
  local m = d:gt(30) & t:col("k"):eq("gemm")
  lu.assertEquals(m:to_lua(), { true, false, true, false, false })
  lu.assertEquals(u:lt(0.3):to_lua(), { false, true, false, false, true })
  lu.assertEquals(t:col("k"):isin { "copy", "relu" }:to_lua(), { false, true, false, true, true })
  lu.assertEquals(t:col("k"):match("^[gc]"):to_lua(), { true, false, true, true, false })
  lu.assertEquals(d:between(30, 100):to_lua(), { true, false, false, true, true })
  lu.assertErrorMsgContains("&: expected booleans, got integers", function() return d & m end)
  lu.assertErrorMsgContains("==: cannot compare strings with integers", function() return t:col("k"):eq(1) end)
  lu.assertEquals(t:filter(m):col("d"):to_lua(), { 100, 300 })
  lu.assertEquals(t:where { k = "relu" }:col("d"):to_lua(), { 10, 30 })
  lu.assertEquals(t:where { k = { "relu", "copy" } }:nrows(), 3)
  lu.assertEquals(t:order("-d"):to_lua(), { 3, 1, 4, 5, 2 })
  lu.assertEquals(t:take(t:order("d")):col("d"):to_lua(), { 10, 30, 40, 100, 300 })
  lu.assertEquals(t:take({ 2, 2 }):col("k"):to_lua(), { "relu", "relu" })
  lu.assertEquals(t:with("busy", d * u):col("busy"):to_lua(), { 50.0, 2.5, 225.0, nil, 3.75 })
  lu.assertEquals(t:col("k"):map({ gemm = "matmul", relu = "act" }):to_lua(), { "matmul", "act", "matmul", nil, "act" })
  local calls = 0
  lu.assertEquals(t:col("k"):map(function(s) calls = calls + 1 return #s end):to_lua(), { 4, 4, 4, 4, 4 })
  lu.assertEquals(calls, 3)
end

function TestDocExamples:test_aggregates()
  local t = launches()
  local d = t:col("d")
  local g, ids = t:group_by("k"):agg {
    { "n", "count" }, { "util", "wmean", "u", "d" }, { "last_d", "last", "d" }, { "rows", "ids" },
    { "long_ns", "sum", "d", where = d:gt(50) },
  }
  lu.assertEquals(g:to_lua(), {
    { k = "gemm", n = 2, util = 0.6875, last_d = 300, rows = 1, long_ns = 400 },
    { k = "relu", n = 2, util = 0.15625, last_d = 30, rows = 2, long_ns = 0 },
    { k = "copy", n = 1, last_d = 40, rows = 4, long_ns = 0 },
  })
  lu.assertEquals(ids.rows, { { 1, 3 }, { 2, 5 }, { 4 } })
  lu.assertEquals(d:sum { where = t:col("k"):eq("relu") }, 40)
  -- the map form takes where too: {op, col, where = mask}
  local m = t:group_by("k"):agg { long_ns = { "sum", "d", where = d:gt(50) }, n = "count" }
  lu.assertEquals(m:col("long_ns"):to_lua(), { 400, 0, 0 })
  lu.assertEquals(m:col("n"):to_lua(), { 2, 2, 1 })
end

function TestDocExamples:test_keep_present_broadcast()
  local t = launches()
  local d, u = t:col("d"), t:col("u")
  lu.assertEquals(u:present():to_lua(), { true, true, true, false, true })
  lu.assertEquals(d:keep(d:gt(50)):to_lua(), { 100, nil, 300 })
  local by_k = t:group_by("k")
  local g = by_k:agg { { "n", "count" } }                     -- gemm, relu, copy
  local per_group = T.from_rows({ { tag = "G" }, { tag = "R" }, { tag = "C" } }, { "tag" })
  lu.assertEquals(by_k:broadcast(per_group):col("tag"):to_lua(), { "G", "R", "G", "C", "R" })
  lu.assertEquals(g:nrows(), 3)
  lu.assertErrorMsgContains("broadcast: table 'table' has 1 rows for 3 groups",
    function() return by_k:broadcast(T.from_rows({ { tag = "x" } }, { "tag" })) end)
  lu.assertErrorMsgContains("keep: expected a boolean column (a mask)", function() return d:keep(d) end)
end

function TestDocExamples:test_fill()
  local t = launches()
  local u, d = t:col("u"), t:col("d")
  local f = u:fill(0)
  lu.assertEquals(f:to_lua(), { 0.5, 0.25, 0.75, 0.0, 0.125 })
  lu.assertEquals(f:type(), "number")
  -- an integer column stays integer with an integral value; the missing row only changes
  local k = d:keep(d:gt(50)):fill(1)
  lu.assertEquals(k:to_lua(), { 100, 1, 300, 1, 1 })
  lu.assertEquals(k:type(), "integer")
  lu.assertEquals(d:keep(d:gt(50)):fill(0.5):type(), "number")
  -- a product whose factor may be absent (block_y): 1 where it is
  lu.assertEquals((d * d:keep(d:lt(50)):fill(1)):to_lua(), { 100, 100, 300, 1600, 900 })
  lu.assertErrorMsgContains("fill: cannot fill strings with integers", function() return t:col("k"):fill(0) end)
  -- from another column: the first value present of the two
  lu.assertEquals(u:fill(d):to_lua(), { 0.5, 0.25, 0.75, 40.0, 0.125 })
  local s = T.from_rows({ { a = "x", b = "y" }, { b = "z" }, { a = "q" }, {} }, { "a", "b" })
  lu.assertEquals(s:col("a"):fill(s:col("b")):to_lua(), { "x", "z", "q" })
  lu.assertEquals(s:col("a"):fill(s:col("b")):fill("-"):to_lua(), { "x", "z", "q", "-" })
  -- a column of another table (another string pool): texts, not ids
  local o = T.from_rows({ { n = "p1" }, { n = "p2" }, { n = "p3" }, { n = "p4" } }, { "n" })
  lu.assertEquals(s:col("a"):fill(o:col("n")):to_lua(), { "x", "p2", "q", "p4" })
  lu.assertErrorMsgContains("fill: cannot fill strings with integers", function() return t:col("k"):fill(d) end)
  lu.assertErrorMsgContains("fill: columns of different lengths", function() return d:fill(s:col("a")) end)
end

-- t:with(name, column) shares the column's values with its table (no
-- copy): they stay whole when the source table is freed, and a change to
-- the new table's column leaves the source as it was
function TestDocExamples:test_with_shares_values()
  local src = T.from_rows({ { a = 1, s = "x" }, { a = 2, s = "y" } }, { "a", "s" })
  local dst = src:select({ "s" }):with("a", src:col("a")):with("b", src:col("a"))
  local other = T.from_rows({ { z = 0 }, { z = 0 } }, { "z" }):with("a", src:col("a"))
  src:close()
  collectgarbage()
  lu.assertEquals(dst:col("a"):to_lua(), { 1, 2 })
  lu.assertEquals(dst:col("b"):to_lua(), { 1, 2 })
  dst:add_column("a", { 5, 6 })
  lu.assertEquals(dst:col("b"):to_lua(), { 1, 2 })
  lu.assertEquals(other:col("a"):to_lua(), { 1, 2 })
  lu.assertEquals(dst:columns(), { "s", "a", "b" })
end

-- min and max of an int64 column are exact (epoch nanoseconds beyond 2^53):
-- through a double, 2^60 + 3 came back as 2^60
TestExactMinMax = {}
function TestExactMinMax:test_int64_beyond_2_53()
  local big = (1 << 60) + 3
  local t = T.from_columns({ v = { big, big - 7, big + 5, 42 } }, { "v" })
  lu.assertEquals(math.type(t:col("v"):max()), "integer")
  lu.assertEquals(t:col("v"):max(), big + 5)
  lu.assertEquals(t:col("v"):min(), 42)
  local m = t:col("v"):ne(42)
  lu.assertEquals(t:col("v"):min{ where = m }, big - 7)
  lu.assertEquals(T.from_columns({ v = { math.mininteger, math.maxinteger } }, { "v" }):col("v"):max(), math.maxinteger)
end

-- One int64 key: group_by, join and isin take direct paths (no row hash);
-- compared here with plain loops over the rows.  A missing key is a key of
-- its own in group_by and matches a missing key in a join, as on every
-- other path; isin never holds for a missing value.
TestIntKeys = {}

function TestIntKeys:test_group_by_int()
  local t = tbl()
  local g = t:group_by("i"):agg { { "n", "count" }, { "first_j", "first", "j" } }
  local order, n, fj, seen = {}, {}, {}, {}
  for r = 1, N do
    local k = ROWS[r].i
    local key = k == nil and "nil" or k
    if not seen[key] then seen[key] = true; order[#order + 1] = k == nil and "nil"
        or k; n[key] = 0; fj[key] = ROWS[r].j end
    n[key] = n[key] + 1
  end
  lu.assertEquals(g:nrows(), #order)
  for gi, row in g:rows() do
    local key = order[gi]
    lu.assertEquals(row.i == nil and "nil" or row.i, key)
    lu.assertEquals(row.n, n[key])
    lu.assertEquals(row.first_j, fj[key])
  end
end

function TestIntKeys:test_join_int()
  local t = tbl()
  local b = T.from_rows({ { j = 3, w = "a" }, { j = -25, w = "b" }, { j = 3, w = "c" }, { w = "d" },
      { j = 99, w = "e" } },
    { "j", "w" }, "b")
  for _, how in ipairs({ "inner", "left" }) do
    local got = t:select("j"):join(b, { on = "j", how = how }):to_lua()
    local want = {}
    for r = 1, N do
      local hit = false
      for _, br in ipairs({ { 3, "a" }, { -25, "b" }, { 3, "c" } }) do
        if ROWS[r].j == br[1] then want[#want + 1] = { j = ROWS[r].j, w = br[2] }; hit = true end
      end
      if not hit and how == "left" then want[#want + 1] = { j = ROWS[r].j } end
    end
    lu.assertEquals(got, want)
  end
  -- missing keys: i has missing values; b's row without a key matches them
  local bi = T.from_rows({ { i = 5, w = "x" }, { w = "y" } }, { "i", "w" }, "bi")
  local got = t:select("i"):join(bi, { on = "i" }):to_lua()
  local want = {}
  for r = 1, N do
    if ROWS[r].i == 5 then want[#want + 1] = { i = 5, w = "x" } end
    if ROWS[r].i == nil then want[#want + 1] = { w = "y" } end
  end
  lu.assertEquals(got, want)
end

function TestIntKeys:test_isin_column()
  local t = tbl()
  local set = T.from_rows({ { v = 1 }, { v = -25 }, {}, { v = 7 }, { v = 1 } }, { "v" }, "set")
  check_vec(t:col("j"):isin(set:col("v")), function(r) return r.j == 1 or r.j == -25 or r.j == 7 end, "boolean")
  check_vec(t:col("i"):isin(t:col("j")), function(r)
    if r.i == nil then return false end
    for q = 1, N do if ROWS[q].j == r.i then return true end end
    return false
  end, "boolean")
  local words = T.from_rows({ { w = "relu" }, { w = "copy" } }, { "w" }, "words")
  check_vec(t:col("s"):isin(words:col("w")), function(r) return r.s == "relu" or r.s == "copy" end, "boolean")
  check_vec(t:col("x"):isin(set:col("v")), function(r) return r.x == 1 or r.x == -25 or r.x == 7 end, "boolean")
end

-- filter(mask, cols): the rows of select(cols):filter(mask), in one copy
function TestIntKeys:test_filter_columns()
  local t = tbl()
  local m = t:col("j"):gt(0) & t:col("s"):present()
  local got = t:filter(m, { "s", "i", "s" })
  lu.assertEquals(got:columns(), { "s", "i" })
  local want = {}
  for r = 1, N do
    if ROWS[r].j > 0 and ROWS[r].s ~= nil then want[#want + 1] = { s = ROWS[r].s, i = ROWS[r].i } end
  end
  lu.assertEquals(got:to_lua(), want)
  lu.assertEquals(t:filter(m, {}):nrows(), #want)  -- no column: the rows kept, as select({}):filter(m)
  lu.assertErrorMsgContains("no column 'nope'", function() return t:filter(m, { "i", "nope" }) end)
end

-- Table:const and Table:rownum: columns of the table's length, compared
-- with the values written out (3 rows)
function test_const_and_rownum()
  local t = T.from_rows({ { a = 1, s = "x" }, { a = 2 }, { a = 3, s = "y" } }, { "a", "s" })
  lu.assertEquals(t:const(5):to_lua(), { 5, 5, 5 })
  lu.assertEquals(t:const(5):type(), "integer")
  lu.assertEquals(math.type(t:const(5, "number"):to_lua()[1]), "float")
  lu.assertEquals(t:const(2.5):to_lua(), { 2.5, 2.5, 2.5 })
  lu.assertEquals(t:const(4.0, "integer"):type(), "integer")
  lu.assertEquals(t:const("gemm"):to_lua(), { "gemm", "gemm", "gemm" })
  lu.assertEquals(t:const(true):type(), "boolean")
  lu.assertEquals(t:const(false):count_true(), 0)
  -- all missing, of a given type
  for _, ty in ipairs({ "number", "integer", "string", "boolean" }) do
    local c = t:const(nil, ty)
    lu.assertEquals(c:type(), ty)
    lu.assertEquals(c:count(), 0)
  end
  -- a string constant shares the table's strings: it compares with them
  lu.assertEquals(t:col("s"):eq(t:const("x")):to_lua(), { true, false, false })
  lu.assertEquals(t:with("k", t:const("k")):col("k"):to_lua(), { "k", "k", "k" })
  lu.assertEquals(t:rownum():to_lua(), { 1, 2, 3 })
  lu.assertEquals(t:rownum():type(), "integer")
  lu.assertEquals((t:col("a") * 10 + t:rownum()):to_lua(), { 11, 22, 33 })
  local empty = T.from_rows({}, { "a" })
  lu.assertEquals(empty:rownum():count(), 0)
  lu.assertEquals(empty:const(1):count(), 0)
  lu.assertErrorMsgContains("a type for a column of missing values", function() return t:const(nil) end)
  lu.assertErrorMsgContains("const: string cannot make a column of number",
      function() return t:const("a", "number") end)
  lu.assertErrorMsgContains("const: 2.5 is not an integer", function() return t:const(2.5, "integer") end)
  lu.assertErrorMsgContains("invalid option 'text'", function() return t:const(1, "text") end)
  lu.assertError(function() return t:const({}) end)
end

os.exit(lu.LuaUnit.run())

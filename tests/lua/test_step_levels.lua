-- test_step_levels.lua -- perflab.intervals.step_levels (a counter's level
-- from +/- steps, launch-latency's queue) against a Lua walk written here
-- over the same random steps; the column calls the timeline recipes added
-- (nth, cummax, cumsum, at, index_of; fill) against sorts and Lua loops.
local lu = require "luaunit"
local perflab = require "perflab"
local I = perflab.intervals
local T = perflab.table

TestStepLevels = {}

function TestStepLevels:test_hand_example()
  -- levels 1, 2, 1, 2, 1, 0; area 1*2 + 2*1 + 2*2 + 1*1 = 9 over [0, 6]
  local r = I.step_levels({ 0, 2, 3, 3, 5, 6 }, { 1, 1, -1, 1, -1, -1 }, { windows = 3 })
  lu.assertEquals({ r.max, r.at, r.area, r.mean, r.lo, r.hi }, { 2, 2, 9, 1.5, 0, 6 })
  lu.assertEquals(r.window_start, { 0, 2, 4 })
  lu.assertEquals(r.window_max, { 1, 2, 2 })
  -- the same steps as columns, shuffled, with a row missing a delta (left out)
  local t = T.from_rows({ { t = 6, d = -1 }, { t = 3, d = 1 }, { t = 9 }, { t = 0, d = 1 }, { t = 5, d = -1 },
                          { t = 3, d = -1 }, { t = 2, d = 1 } }, { "t", "d" })
  local c = I.step_levels(t:col("t"), t:col("d"), { windows = 3 })
  lu.assertEquals({ c.max, c.at, c.area, c.mean }, { 2, 2, 9, 1.5 })
  lu.assertEquals(c.window_max, { 1, 2, 2 })
  -- one instant: mean 0 (an integer, as hi > lo and a / b or 0 gives)
  local one = I.step_levels({ 4, 4 }, { 1, 1 })
  lu.assertEquals({ one.max, one.at, one.area }, { 2, 4, 0 })
  lu.assertEquals(math.type(one.mean), "integer")
  lu.assertNil(I.step_levels({}, {}))
  lu.assertErrorMsgContains("2 times and 1 deltas", I.step_levels, { 1, 2 }, { 1 })
  lu.assertErrorMsgContains("windows must be", I.step_levels, { 1 }, { 1 }, { windows = 0 })
end

-- the walk launch-latency did in Lua before step_levels
local function walk(ts, ds, windows)
  local idx = {}
  for i = 1, #ts do idx[i] = i end
  table.sort(idx, function(a, b)
    if ts[a] ~= ts[b] then return ts[a] < ts[b] end
    if ds[a] ~= ds[b] then return ds[a] < ds[b] end
    return a < b
  end)
  local t, d = {}, {}
  for k, i in ipairs(idx) do t[k], d[k] = ts[i], ds[i] end
  local n, lo, hi = #t, t[1], t[#t]
  local span = hi - lo
  local function wstart(k) return lo + (span * (k - 1)) // windows end
  local q, qmax, at, area, w = 0, 0, lo, 0, {}
  for i = 1, n do
    if i > 1 then area = area + q * (t[i] - t[i - 1]) end
    q = q + d[i]
    if q > qmax then qmax, at = q, t[i] end
    local k = 1
    if span > 0 then
      k = math.min(windows, ((t[i] - lo) * windows) // span + 1)
      while k > 1 and t[i] < wstart(k) do k = k - 1 end
      while k < windows and t[i] >= wstart(k + 1) do k = k + 1 end
    end
    if not w[k] or q > w[k] then w[k] = q end
  end
  local level, j, starts, maxes = 0, 1, {}, {}
  for k = 1, windows do
    starts[k] = wstart(k)
    while j <= n and t[j] < starts[k] do level = level + d[j]; j = j + 1 end
    maxes[k] = (not w[k] or level > w[k]) and level or w[k]
  end
  return { max = qmax, at = at, area = area, starts = starts, maxes = maxes,
           mean = hi > lo and area / (hi - lo) or 0 }
end

function TestStepLevels:test_random_against_walk()
  math.randomseed(11)
  for round = 1, 200 do
    local n, windows = math.random(1, 40), math.random(1, 12)
    local base = round % 2 == 0 and 1700000000000000000 or 0   -- epoch nanoseconds stay exact
    local ts, ds = {}, {}
    for i = 1, n do
      ts[i] = base + math.random(0, round % 3 == 0 and 2 or 500)   -- some rounds crowd a few instants
      ds[i] = math.random(-2, 2)
    end
    local want = walk(ts, ds, windows)
    local got = I.step_levels(ts, ds, { windows = windows })
    lu.assertEquals({ got.max, got.at, got.area, got.mean }, { want.max, want.at, want.area, want.mean })
    lu.assertEquals(got.window_start, want.starts)
    lu.assertEquals(got.window_max, want.maxes)
  end
end

function TestStepLevels:test_nth()
  local t = T.from_rows({ { d = 100, u = 0.5 }, { d = 10, u = 0.25 }, { d = 300, u = 0.75 }, { d = 40 },
      { d = 30, u = 0.125 } },
    { "d", "u" })
  local d = t:col("d")
  lu.assertEquals({ d:nth(1), d:nth(4) }, { 10, 100 })
  lu.assertNil(d:nth(6))
  lu.assertEquals(t:col("u"):nth(4), 0.75)
  lu.assertNil(t:col("u"):nth(5))                     -- one value is missing
  lu.assertEquals(math.type(d:nth(2)), "integer")
  -- exact beyond 2^53
  local big = T.from_rows({ { x = (1 << 60) + 3 }, { x = (1 << 60) + 1 }, { x = (1 << 60) + 2 } }, { "x" }):col("x")
  lu.assertEquals(big:nth(2), (1 << 60) + 2)
  lu.assertErrorMsgContains("k must be 1 or more", d.nth, d, 0)
  lu.assertErrorMsgContains("holds string", function() return T.from_rows({ { s = "a" } }):col("s"):nth(1) end)
  -- random columns against a sort
  math.randomseed(3)
  for _ = 1, 50 do
    local vals, n = {}, math.random(1, 200)
    for i = 1, n do vals[i] = math.random(-50, 50) end
    local c = T.from_columns({ v = vals }, { "v" }):col("v")
    table.sort(vals)
    for _ = 1, 5 do local k = math.random(1, n); lu.assertEquals(c:nth(k), vals[k]) end
  end
end

function TestStepLevels:test_cummax()
  local t = T.from_rows({ { d = 3, u = 0.5 }, { d = 1 }, { u = 0.25 }, { d = 7, u = 2.5 }, { d = 5, u = -1.0 } },
      { "d", "u" })
  lu.assertEquals(t:col("d"):cummax():to_lua(), { 3, 3, 3, 7, 7 })     -- a missing value carries the maximum
  lu.assertEquals(t:col("d"):cummax():type(), "integer")
  local u = t:col("u"):cummax():to_lua()
  lu.assertEquals(u, { 0.5, 0.5, 0.5, 2.5, 2.5 })     -- row 2's u is missing: 0.5 carries
  local m = T.from_rows({ { x = 1 }, { x = 4 } }, { "x" }):col("x")
  lu.assertEquals((-m):cummax():to_lua(), { -1, -1 })
  -- missing until the first value
  local lead = T.from_rows({ { y = "a" }, { x = 2, y = "b" } }, { "x", "y" }):col("x"):cummax():to_lua()
  lu.assertNil(lead[1]); lu.assertEquals(lead[2], 2)
  -- exact beyond 2^53
  local big = T.from_rows({ { x = (1 << 60) + 1 }, { x = (1 << 60) }, { x = (1 << 60) + 3 } }, { "x" }):col("x")
  lu.assertEquals(big:cummax():to_lua(), { (1 << 60) + 1, (1 << 60) + 1, (1 << 60) + 3 })
  lu.assertErrorMsgContains("holds string", function() return T.from_rows({ { s = "a" } }):col("s"):cummax() end)
  -- random columns against a Lua running maximum
  math.randomseed(9)
  for _ = 1, 30 do
    local vals, n, want, m2 = {}, math.random(1, 100), {}, nil
    for i = 1, n do vals[i] = math.random(-1000, 1000); m2 = m2 and math.max(m2, vals[i]) or vals[i]; want[i] = m2 end
    lu.assertEquals(T.from_columns({ v = vals }, { "v" }):col("v"):cummax():to_lua(), want)
  end
end

function TestStepLevels:test_cumsum_at_fill()
  local t = T.from_rows({ { a = 3, s = "x" }, { s = "y" }, { a = -1 }, { a = 5, s = "x" } }, { "a", "s" }, "t")
  lu.assertEquals(t:col("a"):cumsum():to_lua(), { 3, 3, 2, 7 })          -- a missing value adds nothing
  lu.assertEquals(t:col("a"):cumsum():type(), "integer")
  local f = T.from_rows({ { x = 0.5 }, { x = 0.25 }, { x = 1.0 } }, { "x" }):col("x"):cumsum():to_lua()
  lu.assertEquals(f, { 0.5, 0.75, 1.75 })
  -- leaving int64: the column becomes numbers
  local big = T.from_rows({ { x = math.maxinteger }, { x = 1 } }, { "x" }):col("x"):cumsum()
  lu.assertEquals(big:type(), "number")
  lu.assertEquals(big:to_lua()[2], math.maxinteger + 1.0)
  -- at: gather by row numbers, missing where the row number is
  local rows = T.from_rows({ { r = 4 }, {}, { r = 1 }, { r = 4 } }, { "r" }):col("r")
  local s = t:col("s"):at(rows):to_lua()
  lu.assertEquals({ s[1], s[2], s[3], s[4] }, { "x", nil, "x", "x" })
  lu.assertEquals(t:col("a"):at(rows):to_lua()[1], 5)
  lu.assertErrorMsgContains("row 9 out of range (table 't' has 4 rows)", function()
    return t:col("a"):at(T.from_rows({ { r = 9 } }, { "r" }):col("r")) end)
  lu.assertErrorMsgContains("expected an integer column", function() return t:col("a"):at(t:col("s")) end)
  -- fill: the column where present, else the other
  local a = t:col("a"):fill(0):to_lua()
  lu.assertEquals(a, { 3, 0, -1, 5 })
  lu.assertEquals(t:col("s"):fill("z"):to_lua(), { "x", "y", "z", "x" })
  local o = T.from_rows({ { s = "p" }, { s = "q" }, { s = "r" }, {} }, { "s" })   -- another table's strings
  lu.assertEquals(t:col("s"):fill(o:col("s")):to_lua(), { "x", "y", "r", "x" })
  lu.assertEquals(t:col("a"):fill(0.5):type(), "number")
  lu.assertErrorMsgContains("fill: cannot fill", function() return t:col("a"):fill("z") end)
  lu.assertErrorMsgContains("different lengths",
      function() return t:col("a"):fill(T.from_rows({ { a = 1 } }):col("a")) end)
  -- random: gather and fill against Lua loops
  math.randomseed(13)
  for _ = 1, 30 do
    local n, vals, idx, alt = math.random(1, 60), {}, {}, {}
    for i = 1, n do
      vals[i] = math.random(1, 4) > 1 and math.random(-9, 9) or nil
      idx[i] = math.random(1, 5) > 1 and math.random(1, n) or nil
      alt[i] = math.random(100, 200)
    end
    local len = { __len = function() return n end }
    tt = T.from_columns({ alt = alt }, { "alt" }):add_column("v", setmetatable(vals, len), "integer")
      :add_column("i", setmetatable(idx, len), "integer")
    local got, co = tt:col("v"):at(tt:col("i")):to_lua(), tt:col("v"):fill(tt:col("alt")):to_lua()
    for i = 1, n do
      lu.assertEquals(got[i], idx[i] and vals[idx[i]] or nil)
      lu.assertEquals(co[i], vals[i] or alt[i])
    end
  end
end

-- searchsorted: per value, how many values of the sorted column are below
-- it (left) or at most it (right), against a count in Lua
function TestStepLevels:test_searchsorted()
  local s = T.from_rows({ { v = 1 }, { v = 3 }, { v = 3 }, { v = 7 } }, { "v" }):col("v")
  local q = T.from_rows({ { x = 0 }, { x = 3 }, {}, { x = 9 }, { x = 2.5 } }, { "x" }):col("x")
  lu.assertEquals(s:searchsorted(q, "right"):to_lua(), { 0, 3, nil, 4, 1 })
  lu.assertEquals(s:searchsorted(q):to_lua(), { 0, 1, nil, 4, 1 })
  math.randomseed(3)
  for _ = 1, 50 do
    local a, b, x = {}, {}, math.random(-3, 3)
    for i = 1, math.random(0, 12) do x = x + math.random(0, 2); a[i] = { v = x } end
    for i = 1, 10 do b[i] = { v = math.random(-5, 30) } end
    local got = T.from_rows(a, { "v" }):col("v"):searchsorted(T.from_rows(b, { "v" }):col("v"), "right"):to_lua()
    for i = 1, 10 do
      local want = 0
      for _, r in ipairs(a) do if r.v <= b[i].v then want = want + 1 end end
      lu.assertEquals(got[i], want)
    end
  end
  lu.assertErrorMsgContains("not sorted ascending (row 2)", function()
    return T.from_rows({ { v = 5 }, { v = 1 } }, { "v" }):col("v"):searchsorted(s)
  end)
  lu.assertErrorMsgContains("expected a column", function() return s:searchsorted({ 1 }) end)
  lu.assertErrorMsgContains("invalid option", function() return s:searchsorted(q, "middle") end)
end

function TestStepLevels:test_index_of()
  local t = T.from_rows({ { k = 5, s = "b" }, { k = 7, s = "a" }, { s = "b" }, { k = 5, s = "c" }, { k = 9 } },
      { "k", "s" }, "t")
  local q = T.from_rows({ { k = 5, s = "c" }, { k = 8 }, {}, { k = 9, s = "b" }, { k = 7, s = "z" } }, { "k", "s" },
      "q")
  local r = t:col("k"):index_of(q:col("k")):to_lua()
  lu.assertEquals({ r[1], r[2], r[3], r[4], r[5] }, { 1, nil, nil, 5, 2 })      -- the first 5 is row 1
  local rs = t:col("s"):index_of(q:col("s")):to_lua()                       -- strings of another table's pool
  lu.assertEquals({ rs[1], rs[2], rs[3], rs[4], rs[5] }, { 4, nil, nil, 1, nil })
  -- integers against numbers, by value
  local f = T.from_rows({ { x = 7.0 }, { x = 5.5 } }, { "x" }):col("x")
  local rf = t:col("k"):index_of(f):to_lua()
  lu.assertEquals({ rf[1], rf[2] }, { 2, nil })
  -- exact beyond 2^53
  local big = T.from_rows({ { x = (1 << 60) + 1 }, { x = 1 << 60 } }, { "x" }):col("x")
  lu.assertEquals(big:index_of(T.from_rows({ { y = 1 << 60 } }, { "y" }):col("y")):to_lua(), { 2 })
  lu.assertErrorMsgContains("index_of: cannot look up string in integer",
      function() return t:col("k"):index_of(t:col("s")) end)
  lu.assertErrorMsgContains("expected a column", function() return t:col("k"):index_of({ 1 }) end)
  -- random keys (many repeats, holes) against a Lua first-occurrence map
  math.randomseed(21)
  for _ = 1, 30 do
    local n, m, keys, qs, first = math.random(1, 80), math.random(1, 80), {}, {}, {}
    for i = 1, n do
      keys[i] = math.random(1, 6) > 1 and math.random(-20, 20) or nil
      if keys[i] and not first[keys[i]] then first[keys[i]] = i end
    end
    for i = 1, m do qs[i] = math.random(1, 6) > 1 and math.random(-25, 25) or nil end
    local tt
    local len_n, len_m = { __len = function() return n end }, { __len = function() return m end }
    tt = T.from_columns({ z = (function() local a = {}; for i = 1, n do a[i] = 0 end; return a end)() }, { "z" })
      :add_column("k", setmetatable(keys, len_n), "integer")
    local qq = T.from_columns({ z = (function() local a = {}; for i = 1, m do a[i] = 0 end; return a end)() }, { "z" })
      :add_column("k", setmetatable(qs, len_m), "integer")
    local got = tt:col("k"):index_of(qq:col("k")):to_lua()
    for i = 1, m do lu.assertEquals(got[i], qs[i] and first[qs[i]] or nil) end
  end
end

os.exit(lu.LuaUnit.run())

-- test_intervals.lua -- perflab.intervals' table entry points (from_table
-- with by/where, locate, innermost, step_integral) against brute-force Lua
-- computed here from the same random rows.
local lu = require "luaunit"
local perflab = require "perflab"
local I = perflab.intervals
local T = perflab.table

-- covered unit cells [x, x+1) of the rows (s, e) kept
local function cells(rows, keep)
  local c = {}
  for i, r in ipairs(rows) do
    if r.s and r.e and (not keep or keep(i, r)) then for x = r.s, r.e - 1 do c[x] = true end end
  end
  return c
end

local function set_cells(set)
  local c = {}
  for a, b in set:iter() do for x = a, b - 1 do c[x] = true end end
  return c
end

local function random_rows(n)
  local rows = {}
  for i = 1, n do
    local s = math.random(0, 80)
    local r = { s = s, d = math.random(-2, 15), g = ({ "x", "y", "z" })[math.random(1, 3)], v = math.random(1, 8) / 4 }
    if math.random(1, 10) == 1 then r.s = nil end
    r.e = r.s and r.s + r.d
    rows[i] = r
  end
  return rows
end

TestIntervalsTable = {}

function TestIntervalsTable:test_from_table_by_where()
  math.randomseed(5)
  for _ = 1, 100 do
    local rows = random_rows(math.random(0, 25))
    local t = T.from_rows(rows, { "s", "e", "d", "g", "v" })
    lu.assertEquals(set_cells(I.from_table(t, "s", "e")), cells(rows))
    lu.assertEquals(set_cells(I.from_table(t, "s", "d", { duration = true })), cells(rows))
    local keep = function(i) return i % 3 ~= 0 end
    lu.assertEquals(set_cells(I.from_table(t, "s", "e", { where = keep })), cells(rows, keep))
    local sets, keys = I.from_table(t, "s", "e", { by = "g", where = keep })
    local want_keys, seen = {}, {}
    for _, r in ipairs(rows) do if not seen[r.g] then seen[r.g] = true; want_keys[#want_keys + 1] = r.g end end
    table.sort(want_keys)
    lu.assertEquals(keys, want_keys)
    for _, k in ipairs(keys) do
      lu.assertEquals(set_cells(sets[k]), cells(rows, function(i, r) return keep(i) and r.g == k end))
    end
  end
  -- a where mask that is a boolean column
  local t = T.from_rows({ { s = 0, e = 5, ok = true }, { s = 10, e = 20, ok = false } }, { "s", "e", "ok" })
  lu.assertEquals(I.from_table(t, "s", "e", { where = t:col("ok") }):length(), 5)
  -- a missing end leaves its row out; a missing mask value drops its row
  local t2 = T.from_rows({ { s = 0, e = 5, ok = true }, { s = 7, ok = true }, { s = 10, e = 20 },
      { s = 30, e = 32, ok = true } },
    { "s", "e", "ok" })
  lu.assertEquals(I.from_table(t2, "s", "e", { where = t2:col("ok") }):to_lua(), { { 0, 5 }, { 30, 32 } })
  lu.assertEquals(I.from_table(t2, "s", "e"):to_lua(), { { 0, 5 }, { 10, 20 }, { 30, 32 } })
  lu.assertErrorMsgContains("no column 'nope'", I.from_table, t, "s", "nope")
  lu.assertErrorMsgContains("boolean column", I.from_table, t, "s", "e", { where = t:col("s") })
end

function TestIntervalsTable:test_locate()
  math.randomseed(6)
  for _ = 1, 100 do
    local rows = random_rows(math.random(0, 20))
    local set = I.from_table(T.from_rows(rows, { "s", "e" }), "s", "e")
    local ss, se = set:to_arrays()
    local pts = {}
    for k = 1, 30 do pts[k] = math.random(-5, 100) end
    if math.random(1, 2) == 1 then table.sort(pts) end
    local got = set:locate(pts):to_lua()
    for k, x in ipairs(pts) do
      local want
      for i = 1, #ss do if ss[i] <= x and x < se[i] then want = i end end
      lu.assertEquals(got[k], want)
    end
  end
end

function TestIntervalsTable:test_innermost()
  -- nested ops per thread (pid, tid): each query's answer is the shortest
  -- op of its thread holding [start, start + duration] (ends included)
  math.randomseed(8)
  for _ = 1, 30 do
    local ops = {}
    local function nest(s, e, depth, pid, tid)
      if e - s < 2 then return end
      ops[#ops + 1] = { start_ns = s, duration_ns = e - s, pid = pid, tid = tid }
      if depth == 0 then return end
      local t = s
      while true do
        local a = t + math.random(1, 4)
        local b = math.min(e, a + math.random(1, (e - s) // 2 + 1))
        if a >= b then break end
        nest(a, b, depth - 1, pid, tid)
        t = b
      end
    end
    nest(0, 500, 3, "p1", "t1"); nest(0, 500, 3, "p1", "t2"); nest(100, 300, 2, "p2", "t1")
    for i = #ops, 2, -1 do local j = math.random(1, i); ops[i], ops[j] = ops[j], ops[i] end
    local q = {}
    for k = 1, 80 do
      q[k] = { start_ns = math.random(-5, 510), pid = math.random(1, 2) == 1 and "p1" or "p2",
               tid = math.random(1, 3) == 1 and "t2" or "t1" }
      if math.random(1, 2) == 1 then q[k].duration_ns = math.random(0, 10) end
    end
    local cols = { "start_ns", "duration_ns", "pid", "tid" }
    local got = I.innermost(T.from_rows(ops, cols), T.from_rows(q, cols), { by = { "pid", "tid" } }):to_lua()
    for k, x in ipairs(q) do
      local want, wl
      local qe = x.start_ns + (x.duration_ns or 0)
      for i, o in ipairs(ops) do
        if o.pid == x.pid and o.tid == x.tid and o.start_ns <= x.start_ns and qe <= o.start_ns + o.duration_ns
           and (not wl or o.duration_ns < wl) then want, wl = i, o.duration_ns end
      end
      lu.assertEquals(got[k], want)
    end
  end
end

function TestIntervalsTable:test_step_integral()
  math.randomseed(9)
  for _ = 1, 100 do
    local rows = random_rows(math.random(0, 12))
    local s, e, v = {}, {}, {}
    for i, r in ipairs(rows) do s[i], e[i], v[i] = r.s, r.s and math.max(r.s, r.e), r.v end
    local lo, hi, cap = math.random(0, 40), math.random(20, 100), math.random(1, 12) / 4
    local want = 0.0
    for x = lo, hi - 1 do
      local level = 0
      for i = 1, #rows do if s[i] and s[i] <= x and x < e[i] then level = level + v[i] end end
      if level > 0 then want = want + math.min(level, cap) end
    end
    lu.assertAlmostEquals(I.step_integral(s, e, v, { n = #rows, cap = cap, lo = lo, hi = hi }), want, 1e-9)
    -- columns give the same
    local t = T.from_rows(rows, { "s", "e", "v" })
    local tw = 0.0
    for x = lo, hi - 1 do
      local level = 0
      for _, r in ipairs(rows) do if r.s and r.s <= x and x < r.e then level = level + r.v end end
      if level > 0 then tw = tw + math.min(level, cap) end
    end
    lu.assertAlmostEquals(I.step_integral(t:col("s"), t:col("e"), t:col("v"), { cap = cap, lo = lo, hi = hi }), tw,
        1e-9)
  end
end

-- series_windows: unit cells.  Point samples: cell x (x >= the first
-- sample) holds the value of the last sample at or before x; interval
-- samples: every sample adds its value on the cells of [ts, te).
function TestIntervalsTable:test_series_windows()
  math.randomseed(10)
  for _ = 1, 150 do
    local n = math.random(0, 8)
    local ts, te, v = {}, {}, {}
    local t = math.random(0, 10)
    for k = 1, n do
      t = t + math.random(0, 6); ts[k] = t
      te[k] = t + math.random(0, 12); v[k] = math.random(-4, 8) / 2
    end
    local ws, we = {}, {}
    for j = 1, 12 do ws[j] = math.random(-5, 60); we[j] = ws[j] + math.random(-3, 20) end
    for _, interval in ipairs({ false, true }) do
      local area, cov, at = I.series_windows(ts, interval and te, v, ws, we)
      for j = 1, #ws do
        local wa, wc, wat = 0.0, 0, nil
        for x = ws[j], we[j] - 1 do
          if interval then
            for k = 1, n do if ts[k] <= x and x < te[k] then wa = wa + v[k]; wc = wc + 1 end end
          else
            local last
            for k = 1, n do if ts[k] <= x then last = k end end
            if last then wa = wa + v[last]; wc = wc + 1 end
          end
        end
        for k = 1, n do if ts[k] <= ws[j] then wat = k end end      -- the last sample at or before the start,
        if interval and wat and te[wat] < ws[j] then wat = nil end   -- unless it ended before it
        lu.assertAlmostEquals(area[j], wa, 1e-9)
        lu.assertEquals(cov[j], wc)
        lu.assertEquals(at[j], wat)
      end
    end
  end
  lu.assertErrorMsgContains("sorted", I.series_windows, { 5, 1 }, false, { 1, 1 }, { 0 }, { 9 })
end

-- series_windows {by = G}: the windows summed per group.  Point samples 2
-- from t=0 and 4 from t=10: [0,10) has area 20 over 10 ns, [5,15) 10 + 20
-- over 10, the empty window [12,12) covers nothing and takes the sample in
-- force at 12 (4), [-5,-1) covers nothing and has none.  Groups: {1, 1, 3,
-- 3}, the last window's group missing; group 2 has no windows.
function TestIntervalsTable:test_series_windows_by_group()
  local T = require("perflab").table
  local g = I.series_windows({ 0, 10 }, false, { 2.0, 4.0 }, { 0, 5, 12, -5, 1 }, { 10, 15, 12, -1, 2 },
    { by = T.from_rows({ { g = 1 }, { g = 1 }, { g = 3 }, { g = 3 }, {} }, { "g" }):col("g") })
  lu.assertEquals(g:nrows(), 3)
  lu.assertEquals(g:col("area"):to_lua(), { 20.0 + 30.0, 0.0, 0.0 })
  lu.assertEquals(g:col("cov"):to_lua(), { 20, 0, 0 })
  lu.assertEquals(g:col("point_sum"):to_lua(), { 0.0, 0.0, 4.0 })
  lu.assertEquals(g:col("points"):to_lua(), { 0, 0, 1 })
  lu.assertEquals(I.series_windows({ 0 }, false, { 1.0 }, { 0 }, { 5 }, { by = { 1 }, groups = 4 }):nrows(), 4)
  lu.assertErrorMsgContains("by: group 0", I.series_windows, { 0 }, false, { 1.0 }, { 0 }, { 5 }, { by = { 0 } })
  lu.assertErrorMsgContains("each of the 1 windows", I.series_windows, { 0 }, false, { 1.0 }, { 0 }, { 5 },
    { by = { 1, 2 } })
end

-- first_window: the plugin's tie of a runtime call to its step, by hand
-- (windows [0,10] [10,20] [15,40]; see tests/c/test_intervals.c for the
-- random comparison with the plugin's merge loop) and from columns with a
-- missing value.
function TestIntervalsTable:test_first_window()
  local w = I.first_window({ 0, 10, 15 }, { 10, 20, 40 }, { 2, 8, 10, 25, -5, 40 }, { 5, 12, 20, 30, -1, 41 })
  lu.assertEquals(w:type(), "integer")
  local l = w:to_lua()
  -- [2,5] in window 1; [8,12] starts in 1 and ends after it; [10,20] at 1's
  -- end -> window 2; [25,30] -> 3; [-5,-1] before every window; [40,41] after
  lu.assertEquals({ l[1], l[2], l[3], l[4], l[5], l[6] }, { 1, nil, 2, 3, nil, nil })
  local t = perflab.table.from_rows({ { s = 12, e = 14 }, { s = 3 }, { s = 1, e = 9 } }, { "s", "e" })
  l = I.first_window({ 0, 10 }, { 10, 20 }, t:col("s"), t:col("e")):to_lua()
  lu.assertEquals({ l[1], l[2], l[3] }, { 2, nil, 1 })   -- out of start order: sorted inside
  local none = I.first_window({}, {}, { 1 }, { 2 })                 -- no window: one row, missing
  lu.assertEquals(#none, 1)
  lu.assertEquals(none:count(), 0)
  lu.assertErrorMsgContains("window ends", I.first_window, { 0, 1 }, { 5 }, { 1 }, { 2 })
  lu.assertErrorMsgContains("query ends", I.first_window, { 0 }, { 5 }, { 1, 2 }, { 2 })
end

os.exit(lu.LuaUnit.run())

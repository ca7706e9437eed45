--- perflab.timeline: interval sets for timeline recipes (step-breakdown,
-- idle-time, launch-latency).
--
-- An interval set is a Lua table {s = {...}, e = {...}, n = N}: N disjoint,
-- sorted, half-open intervals [s[i], e[i]) with s[i] < e[i], and e[i] <
-- s[i+1] (intervals that touch are merged, so [1,2) and [2,3) become [1,3)).
-- Times are int64 nanoseconds held as Lua integers, so every length is exact.
--
-- This is the adapter the recipes call.  It is written in plain Lua (sort and
-- merge); when the C module `perflab.intervals` is present it is used for
-- `set` (the O(n log n) part) and the plain-Lua code stays as the reference
-- that tests/lua/test_timeline.lua checks it against.
local T = require "perflab.table"

local M = {}

local function new(s, e, n) return { s = s, e = e, n = n } end

--- The empty set.
function M.empty() return new({}, {}, 0) end

--- Plain-Lua construction: starts and ends are arrays (or ends = nil and
-- durs given via M.from_durations).  Empty and inverted intervals are dropped.
function M.lua_set(starts, ends, n)
  n = n or #starts
  local idx, k = {}, 0
  for i = 1, n do
    local a, b = starts[i], ends[i]
    if a ~= nil and b ~= nil and b > a then k = k + 1; idx[k] = i end
  end
  table.sort(idx, function(x, y)
    local sx, sy = starts[x], starts[y]
    if sx ~= sy then return sx < sy end
    return x < y
  end)
  local s, e, m = {}, {}, 0
  for j = 1, k do
    local i = idx[j]
    local a, b = starts[i], ends[i]
    if m > 0 and a <= e[m] then
      if b > e[m] then e[m] = b end
    else
      m = m + 1; s[m] = a; e[m] = b
    end
  end
  return new(s, e, m)
end

M.set = M.lua_set
M.backend = "lua"

--- Interval set from start and duration arrays.
function M.from_durations(starts, durs, n)
  n = n or #starts
  local ends = {}
  for i = 1, n do
    local a, d = starts[i], durs[i]
    if a ~= nil and d ~= nil then ends[i] = a + d end
  end
  return M.set(starts, ends, n)
end

--- Interval set from two columns of a perflab table (start, and end or
-- duration: {dur = "duration_ns"} or {stop = "end_ns"}), optionally only the
-- rows where keep(i) is true.
function M.from_table(t, start_col, how, keep)
  local st = t:col(start_col):to_lua()
  local n = t:nrows()
  local other = how.dur and t:col(how.dur):to_lua() or t:col(how.stop):to_lua()
  local s, e, k = {}, {}, 0
  for i = 1, n do
    if not keep or keep(i) then
      local a, b = st[i], other[i]
      if a ~= nil and b ~= nil then
        k = k + 1; s[k] = a; e[k] = how.dur and (a + b) or b
      end
    end
  end
  return M.set(s, e, k)
end

--- a ∪ b
function M.union(a, b)
  local s, e, m = {}, {}, 0
  local i, j = 1, 1
  while i <= a.n or j <= b.n do
    local x, y
    if j > b.n or (i <= a.n and a.s[i] <= b.s[j]) then
      x, y = a.s[i], a.e[i]; i = i + 1
    else
      x, y = b.s[j], b.e[j]; j = j + 1
    end
    if m > 0 and x <= e[m] then
      if y > e[m] then e[m] = y end
    else
      m = m + 1; s[m] = x; e[m] = y
    end
  end
  return new(s, e, m)
end

--- a ∩ b
function M.intersect(a, b)
  local s, e, m = {}, {}, 0
  local i, j = 1, 1
  while i <= a.n and j <= b.n do
    local lo = a.s[i] > b.s[j] and a.s[i] or b.s[j]
    local hi = a.e[i] < b.e[j] and a.e[i] or b.e[j]
    if lo < hi then m = m + 1; s[m] = lo; e[m] = hi end
    if a.e[i] < b.e[j] then i = i + 1 else j = j + 1 end
  end
  return new(s, e, m)
end

--- a − b
function M.subtract(a, b)
  local s, e, m = {}, {}, 0
  local j = 1
  for i = 1, a.n do
    local lo, hi = a.s[i], a.e[i]
    while j <= b.n and b.e[j] <= lo do j = j + 1 end
    local k = j
    while k <= b.n and b.s[k] < hi do
      if b.s[k] > lo then m = m + 1; s[m] = lo; e[m] = b.s[k] end
      if b.e[k] > lo then lo = b.e[k] end
      if lo >= hi then break end
      k = k + 1
    end
    if lo < hi then m = m + 1; s[m] = lo; e[m] = hi end
  end
  return new(s, e, m)
end

--- a ∩ [lo, hi)
function M.clip(a, lo, hi)
  if hi <= lo then return M.empty() end
  return M.intersect(a, new({ lo }, { hi }, 1))
end

--- Total covered length (an integer when the bounds are integers).
function M.length(a)
  local t = 0
  for i = 1, a.n do t = t + (a.e[i] - a.s[i]) end
  return t
end

function M.count(a) return a.n end

--- Length of a ∩ [lo, hi), by binary search (no new set is built).
function M.length_within(a, lo, hi)
  if hi <= lo or a.n == 0 then return 0 end
  local l, h = 1, a.n
  while l < h do                       -- first interval with e > lo
    local mid = (l + h) // 2
    if a.e[mid] > lo then h = mid else l = mid + 1 end
  end
  local t = 0
  for i = l, a.n do
    local x, y = a.s[i], a.e[i]
    if x >= hi then break end
    if x < lo then x = lo end
    if y > hi then y = hi end
    if y > x then t = t + (y - x) end
  end
  return t
end

--- The gaps between consecutive intervals, as a set (optionally within
-- [lo, hi): the parts of [lo, hi) not covered by a).
function M.gaps(a, lo, hi)
  if lo ~= nil then return M.subtract(new({ lo }, { hi }, hi > lo and 1 or 0), a) end
  local s, e, m = {}, {}, 0
  for i = 2, a.n do m = m + 1; s[m] = a.e[i - 1]; e[m] = a.s[i] end
  return new(s, e, m)
end

--- Whether t lies in the set (binary search).
function M.contains(a, t)
  local lo, hi = 1, a.n
  while lo <= hi do
    local mid = (lo + hi) // 2
    if t < a.s[mid] then hi = mid - 1
    elseif t >= a.e[mid] then lo = mid + 1
    else return true end
  end
  return false
end

--- Integral over time of min(sum of values of the intervals active at t,
-- cap), within [lo, hi): the tb-profiler plugin's SM-efficiency sweep
-- (values are added at starts and removed at ends; a start and an end at the
-- same instant: the start first).  Returns the integral (value x ns).
function M.capped_value_integral(starts, ends, values, n, cap, lo, hi)
  local pt, pk, pv = {}, {}, {}     -- time, 0 start / 1 end, value
  local k = 0
  for i = 1, n do
    if starts[i] and ends[i] and values[i] then
      k = k + 1; pt[k] = starts[i]; pk[k] = 0; pv[k] = values[i]
      k = k + 1; pt[k] = ends[i]; pk[k] = 1; pv[k] = values[i]
    end
  end
  local total = 0.0
  if k == 0 then return total end
  local order = M.order(k, { t = pt, k = pk }, { "t", "k" })
  local j = order[1]
  local last_t, level = pt[j], pv[j]
  for i = 2, k do
    j = order[i]
    local t = pt[j]
    if t > last_t and level > 0 then
      local a = last_t > lo and last_t or lo
      local b = t < hi and t or hi
      if b > a then total = total + (level < cap and level or cap) * (b - a) end
    end
    last_t = t
    if pk[j] == 0 then level = level + pv[j] else level = level - pv[j] end
  end
  return total
end

--- The order (indices 1..n) that sorts n rows by integer keys: keys maps a
-- name to an array of n values, by lists the names as T:sort_by takes them
-- ("k" ascending, "-k" descending); ties stay in index order.  The table
-- engine's stable sort: no Lua call per comparison (a comparator sort of a
-- million rows takes seconds).  nil when a value is not an integer (a
-- double column would round epoch nanoseconds): M.order then sorts in Lua.
function M.int_order(n, keys, by)
  local cols, names = { ["#"] = {} }, { "#" }
  for name, vals in pairs(keys) do
    for i = 1, n do if math.type(vals[i]) ~= "integer" then return nil end end
    cols[name] = vals; names[#names + 1] = name
  end
  local ix = cols["#"]
  for i = 1, n do ix[i] = i end
  if n < 2 then return ix end
  return T.from_columns(cols, names):sort_by(table.unpack(by)):col("#"):to_lua()
end

--- The same order for any comparable keys (no nil): int_order where every
-- key is an integer, else Lua's sort with the same rule.
function M.order(n, keys, by)
  local o = M.int_order(n, keys, by)
  if o then return o end
  o = {}
  for i = 1, n do o[i] = i end
  local spec = {}
  for j, b in ipairs(by) do
    local desc = b:sub(1, 1) == "-"
    spec[j] = { keys[desc and b:sub(2) or b], desc }
  end
  table.sort(o, function(x, y)
    for _, sp in ipairs(spec) do
      local a, b = sp[1][x], sp[1][y]
      if a ~= b then if sp[2] then return a > b end return a < b end
    end
    return x < y
  end)
  return o
end

--- Device-side operations of a timeline profile, each joined to the runtime
-- call that launched it (same correlation id; where the runtime table and
-- the device table both carry `pid`, as nsys exports do, on (pid,
-- correlation): correlation ids are unique within a process only):
--   {s, e, dur, name, kind = "kernel"|"memcpy"|"memset", device, stream,
--    corr, rt_s, rt_e, rt_name}   (rt_* nil when no runtime call matches)
-- sorted by start.  kinds: set of kinds to keep (default all three).
function M.device_ops(p, kinds)
  kinds = kinds or { kernel = true, memcpy = true, memset = true }
  local rt = p.tables.runtime
  local rts, rte, rtn = {}, {}, {}
  -- (pid, correlation) when every table has pid (nsys); correlation alone
  -- otherwise (Kineto: one process, GPU rows without pid)
  local use_pid = rt ~= nil and rt:has("pid")
  for _, name in ipairs({ "kernels", "memcpy", "memset" }) do
    local t = p.tables[name]
    if t and t:nrows() > 0 and not t:has("pid") then use_pid = false end
  end
  local rt_pid = use_pid and rt:col("pid"):to_lua()
  if rt and rt:nrows() > 0 then
    local c, s, d, n = rt:col("correlation"):to_lua(), rt:col("start_ns"):to_lua(), rt:col("duration_ns"):to_lua(), rt:col("name"):to_lua()
    for i = 1, rt:nrows() do
      local k = c[i]
      if k and rt_pid then k = tostring(rt_pid[i]) .. ":" .. k end
      if k and rts[k] == nil then rts[k] = s[i]; rte[k] = s[i] + (d[i] or 0); rtn[k] = n[i] end
    end
  end
  local ops = {}
  for _, kind in ipairs({ "kernel", "memcpy", "memset" }) do
    local t = kinds[kind] and p.tables[kind == "kernel" and "kernels" or kind]
    if t and t:nrows() > 0 then
      local s, d = t:col("start_ns"):to_lua(), t:col("duration_ns"):to_lua()
      local nm = t:col("name"):to_lua()
      local dev = t:has("device") and t:col("device"):to_lua() or {}
      local st = t:has("stream") and t:col("stream"):to_lua() or {}
      local co = t:has("correlation") and t:col("correlation"):to_lua() or {}
      local pid = rt_pid and t:has("pid") and t:col("pid"):to_lua()
      for i = 1, t:nrows() do
        if s[i] then
          local k = co[i]
          local key = k
          if k and rt_pid then key = pid and (tostring(pid[i]) .. ":" .. k) or nil end
          ops[#ops + 1] = { s = s[i], e = s[i] + (d[i] or 0), dur = d[i] or 0, name = nm[i], kind = kind,
                            device = dev[i] or 0, stream = st[i] or -1, corr = k,
                            rt_s = key and rts[key], rt_e = key and rte[key], rt_name = key and rtn[key] }
        end
      end
    end
  end
  -- by start, then insertion (3 s -> 1 s for 650 k operations with the
  -- engine's sort)
  local n, ss = #ops, {}
  for i = 1, n do ss[i] = ops[i].s end
  local order = M.order(n, { s = ss }, { "s" })
  local sorted = {}
  for k = 1, n do sorted[k] = ops[order[k]] end
  return sorted
end

--- ops grouped by (device, stream): returns an array of
-- {device, stream, ops = {...}} sorted by device then stream.
function M.by_stream(ops)
  local g, order = {}, {}
  for _, o in ipairs(ops) do
    local key = o.device .. ":" .. o.stream
    local e = g[key]
    if not e then e = { device = o.device, stream = o.stream, ops = {} }; g[key] = e; order[#order + 1] = e end
    e.ops[#e.ops + 1] = o
  end
  table.sort(order, function(a, b)
    if a.device ~= b.device then return a.device < b.device end
    return a.stream < b.stream
  end)
  return order
end

--- Use the C module perflab.intervals for construction when it exists
-- (its sets are converted to this adapter's shape).
do
  local ok, C = pcall(require, "perflab.intervals")
  if ok and type(C) == "table" and C.from_arrays and C.to_arrays then
    M.c_set = function(starts, ends, n)
      local set = C.from_arrays(starts, ends, n)
      local s, e = C.to_arrays(set)
      return new(s, e, #s)
    end
  end
end

return M

--- perflab.timeline: what the timeline recipes (step-breakdown, idle-time,
-- launch-latency, roofline) share: interval sets, the order of events, the
-- device operations of a profile and the op that launched each kernel.
--
-- Interval sets are the C engine's (perflab.intervals, docs/intervals.md):
-- sorted, disjoint, half-open [s, e) on int64 nanoseconds, touching
-- intervals merged, so every length is exact.  The functions below are the
-- shapes the recipes call; a set also has its own methods
-- (set:union(o), set:length(), set:locate(points), ...).
local T = require "perflab.table"
local I = require "perflab.intervals"

local M = {}

--- The empty set.
M.empty = I.empty

--- A set from arrays (or columns) of starts and ends, n of them (default
-- all); an empty or inverted pair is dropped; a float time is rounded to the
-- nearest nanosecond.
function M.set(starts, ends, n)
  return I.from_arrays(starts, ends, n or #starts)
end

--- A set from start and duration arrays (an index where either is nil is
-- left out).
function M.from_durations(starts, durs, n)
  local s, e, k = {}, {}, 0
  for i = 1, n or #starts do
    local a, d = starts[i], durs[i]
    if a and d then k = k + 1; s[k] = a; e[k] = a + d end
  end
  return I.from_arrays(s, e, k)
end

--- A set from two columns of a perflab table (start, and end or duration:
-- {dur = "duration_ns"} or {stop = "end_ns"}), optionally only the rows
-- where keep(i) is true (or keep, a boolean column, is true); rows with a
-- missing value are left out.  perflab.intervals.from_table with `by` gives
-- one set per value of a column.
function M.from_table(t, start_col, how, keep)
  return I.from_table(t, start_col, how.dur or how.stop, { duration = how.dur ~= nil, where = keep })
end

function M.union(a, b) return a:union(b) end
function M.intersect(a, b) return a:intersect(b) end
function M.subtract(a, b) return a:subtract(b) end
--- a ∩ [lo, hi)
function M.clip(a, lo, hi) return a:clip(lo, hi) end
--- Total covered length (an integer).
function M.length(a) return a:length() end
function M.count(a) return a:count() end
--- Length of a ∩ [lo, hi), without building the clipped set.
function M.length_within(a, lo, hi) return a:length_within(lo, hi) end
--- The gaps between consecutive intervals (within [lo, hi): the parts of
-- [lo, hi) a does not cover).
function M.gaps(a, lo, hi) return a:gaps(lo, hi) end
--- Whether t lies in the set.
function M.contains(a, t) return a:contains(t) end

--- Integral over time of min(sum of values of the intervals active at t,
-- cap), within [lo, hi): the tb-profiler plugin's SM-efficiency sweep
-- (values are added at starts and removed at ends; a start and an end at the
-- same instant: the start first).  Returns the integral (value x ns).  An
-- index where a start, end or value is nil is left out.
function M.capped_value_integral(starts, ends, values, n, cap, lo, hi)
  return I.step_integral(starts, ends, values, { n = n, cap = cap, lo = lo, hi = hi })
end

--- Device-side operations of a timeline profile as one table, each row
-- joined to the runtime call that launched it (same correlation id; where
-- the runtime table and the device tables all carry `pid`, as nsys exports
-- do, on (pid, correlation): correlation ids are unique within a process
-- only).  Columns:
--   start_ns, end_ns, duration_ns (missing as 0), name,
--   kind ("kernel" | "memcpy" | "memset" | "graph": a whole replay that nsys
--   recorded as one row, graph_trace), device (missing as 0),
--   stream (missing as -1), correlation,
--   rt_start_ns, rt_end_ns, rt_name (missing where no runtime call matches;
--   where the device record keeps its own launch time, kernels.launch_ns
--   such as rocprof's DispatchNs, rt_start_ns falls back to it),
--   graph_id (only where a source table has one: nsys' CUDA graph id)
-- rows sorted by start, ties in kernel, memcpy, memset and table order; a
-- row without a start is left out.  kinds: set of kinds to keep (default
-- all four).  The engine does the work: a concat, a join and an order.
local SOURCES = { { "kernel", "kernels" }, { "memcpy", "memcpy" }, { "memset", "memset" },
                  { "graph", "graph_trace" } }   -- nsys' whole-graph replays (--cuda-graph-trace=graph)

-- a column of t of the value v
local function const(t, v) return t:const(v) end

--- Column `name` of t with its missing values as v (a constant column where
-- t has no such column): Column:fill in the engine.
function M.filled(t, name, v)
  if not t:has(name) then return const(t, v) end
  local c = t:col(name)
  if c:count() == #c then return c end
  return c:fill(v)
end

-- the first runtime call of each correlation (or (pid, correlation)): its
-- start, end and name
local function launches(rt, keys)
  rt = rt:filter(rt:col("correlation"):present())
  local g = rt:group_by(keys):agg { { "rt_start_ns", "first", "start_ns" }, { "rt_dur", "first", "duration_ns" },
                                    { "rt_name", "first", "name" } }
  return g:with("rt_end_ns", g:col("rt_start_ns") + M.filled(g, "rt_dur", 0)):drop("rt_dur")
end

function M.device_ops(p, kinds)
  kinds = kinds or { kernel = true, memcpy = true, memset = true, graph = true }
  local rt = p.tables.runtime
  if rt and rt:nrows() == 0 then rt = nil end
  local use_pid = rt ~= nil and rt:has("pid")
  local parts = {}
  for _, src in ipairs(SOURCES) do
    local t = p.tables[src[2]]
    if t and t:nrows() > 0 then
      if not t:has("pid") then use_pid = false end
      if kinds[src[1]] then parts[#parts + 1] = { src[1], t } end
    end
  end
  -- no rows anywhere: the (empty) kernels table gives the columns
  if #parts == 0 and p.tables.kernels then parts[1] = { "kernel", p.tables.kernels }; use_pid = false end
  -- graph_id (nsys: the CUDA graph a kernel was replayed from) where any
  -- source has it, missing in the others (perflab.graphs)
  local gid = false
  for _, part in ipairs(parts) do gid = gid or part[2]:has("graph_id") end
  for i, part in ipairs(parts) do
    local kind, t = part[1], part[2]
    local s, d = t:col("start_ns"), M.filled(t, "duration_ns", 0)
    local o = t:select("start_ns"):with("end_ns", s + d):with("duration_ns", d):with("name", t:col("name"))
      :with("kind", const(t, kind)):with("device", M.filled(t, "device", 0)):with("stream", M.filled(t, "stream", -1))
    if t:has("correlation") then o:with("correlation", t:col("correlation")) end
    if t:has("launch_ns") then o:with("launch_ns", t:col("launch_ns")) end
    if gid then o:with("graph_id", t:has("graph_id") and t:col("graph_id") or s:keep(s:lt(s))) end
    if use_pid then o:with("pid", t:col("pid")) end
    -- rows without a start left out, from the narrow table (not a copy of
    -- every column of the source)
    if s:count() < #s then o = o:filter(s:present()) end
    parts[i] = o
  end
  if #parts == 0 then return nil end
  local ops = T.concat(table.unpack(parts))
  if not ops:has("correlation") then rt = nil end
  local whole = rt and not use_pid and rt:has("start_ns") and rt:has("duration_ns") and rt:has("name")
  for _, c in ipairs(whole and { "start_ns", "duration_ns", "name" } or {}) do
    if rt:col(c):count() < rt:nrows() then whole = false end
  end
  if whole then
    -- no value missing: the first call of a correlation has the first
    -- values launches() takes, found by one hash lookup per op
    local at = rt:col("correlation"):index_of(ops:col("correlation"))
    local s = rt:col("start_ns"):at(at)
    ops:with("rt_start_ns", s):with("rt_name", rt:col("name"):at(at))
      :with("rt_end_ns", s + rt:col("duration_ns"):at(at))
  elseif rt then
    local keys = use_pid and { "pid", "correlation" } or { "correlation" }
    ops = ops:join(launches(rt, keys), { on = keys, how = "left" })
  else
    local s, none = ops:col("start_ns"), ops:col("start_ns"):present()
    none = ~none
    ops:with("rt_start_ns", s:keep(none)):with("rt_end_ns", s:keep(none)):with("rt_name", ops:col("name"):keep(none))
  end
  if use_pid then ops = ops:drop("pid") end
  if ops:has("launch_ns") then
    -- the launch time the device record keeps, where no runtime call matches
    ops = ops:with("rt_start_ns", ops:col("rt_start_ns"):fill(ops:col("launch_ns"))):drop("launch_ns")
  end
  return ops:take(ops:order("start_ns"))
end

--- ops (a device_ops table) by (device, stream): an array of
-- {device, stream, ops = table} sorted by device then stream, each ops
-- table in start order.
function M.by_stream(ops)
  local out = {}
  if not ops or ops:nrows() == 0 then return out end
  local sorted = ops:take(ops:order("device", "stream"))   -- stable: start order within a stream
  local from = 1
  for _, g in sorted:group_by("device", "stream"):agg { { "n", "count" } }:rows() do
    out[#out + 1] = { device = g.device, stream = g.stream, ops = sorted:slice(from, from + g.n - 1) }
    from = from + g.n
  end
  return out
end

--- The operator that launched each kernel of a Kineto profile: returns a
-- copy of p.tables.kernels with the columns launch_op_id (the op's External
-- id), launch_op_name and launch_op_link ("id" or "time"); the profile's own
-- table stays as loaded.
--   * By the trace's ids first: the kernel's External id, else the External
--     id of its runtime call (same correlation), names a cpu op; the link
--     is taken when the runtime call starts within that op (HTA-processed
--     traces give GPU events their correlation as External id, which then
--     names an unrelated op: 78 of 79 kernels of the alexnet trace).
--   * Else by time: the innermost cpu op with an External id on the runtime
--     call's thread (pid, tid) enclosing the call (perflab.intervals.innermost).
-- A kernel with neither keeps the three columns missing.  Profiles with no
-- cpu_ops or runtime table get the columns all missing.
--
-- M.launch_links(p) gives the same as three arrays (id, name, link; one
-- entry per kernel row, nil where missing) without changing the table: what
-- a recipe uses, so a profile's tables stay as they were loaded.
function M.launching_op(p)
  local k = p.tables.kernels
  if not k then error("launching_op: the profile has no kernels table", 2) end
  local id, name, link = M.launch_link_columns(p)
  -- a profile's tables are frozen: each with gives a copy, so the profile
  -- keeps its kernels table as loaded
  if id then return k:with("launch_op_id", id):with("launch_op_name", name):with("launch_op_link", link) end
  -- no link at all: the columns all missing (arrays with holes: __len
  -- gives add_column the row count)
  local len = { __len = function() return k:nrows() end }
  k = k:add_column("launch_op_id", setmetatable({}, len), "integer")
  k = k:add_column("launch_op_name", setmetatable({}, len), "string")
  return k:add_column("launch_op_link", setmetatable({}, len), "string")
end

function M.launch_links(p)
  local k = p.tables.kernels
  if not k then error("launch_links: the profile has no kernels table", 2) end
  local id, name, link = M.launch_link_columns(p)
  if not id then return {}, {}, {} end
  return id:to_lua(), name:to_lua(), link:to_lua()
end

-- for each value of column qkey of q: the first row of t whose column tkey
-- holds it (an integer column of q's length, missing where none does):
-- one hash pass in the engine (Column:index_of)
local function first_rows(t, tkey, q, qkey)
  return t:col(tkey):index_of(q:col(qkey))
end

--- The launch links as columns of the kernels table's length: launch_op_id,
-- launch_op_name, launch_op_link (the rules above), or nothing when no
-- kernel can have a link (no cpu ops, or ops without External ids).  The
-- engine does the work: first rows by key (Column:index_of), gathers
-- (Column:at), masks, and perflab.intervals.innermost for the time rule.
function M.launch_link_columns(p)
  local k = p.tables.kernels
  if not k then error("launch_link_columns: the profile has no kernels table", 2) end
  local ops, rt = p.tables.cpu_ops, p.tables.runtime
  if not (ops and ops:nrows() > 0 and ops:has("external_id") and k:nrows() > 0) then return nil end
  local oext = ops:col("external_id")
  if rt and rt:nrows() == 0 then rt = nil end
  -- c: the runtime call of each kernel (the first with its correlation);
  -- cs: its start; e2: its External id
  local c, cs, e2
  if rt and k:has("correlation") and rt:has("correlation") then
    c = first_rows(rt, "correlation", k, "correlation")
    if rt:has("start_ns") then cs = rt:col("start_ns"):at(c) end
    if rt:has("external_id") then e2 = rt:col("external_id"):at(c) end
  end
  local os_ = ops:has("start_ns") and ops:col("start_ns")
  local od = ops:has("duration_ns") and ops:col("duration_ns")
  -- the op an External id names, where the runtime call starts within it
  -- (or has no start)
  local function by_id(q, col)
    local j = first_rows(ops, "external_id", q, col)
    local ok = j:present()
    if cs then
      local free = ~cs:present()
      if os_ and od then
        local s = os_:at(j)
        free = free | (cs:ge(s) & cs:le(s + od:at(j)))
      end
      ok = ok & free
    end
    return j:keep(ok)
  end
  local j
  if k:has("external_id") then j = by_id(k, "external_id") end
  if e2 and not (j and j:count() == k:nrows()) then      -- (every kernel linked already: nothing to add)
    local q = k:select(k:columns()[1]):with("_e", e2)
    local j2 = by_id(q, "_e")
    j = j and j:fill(j2) or j2
  end
  local byid = j and j:present()
  local byt
  if c and ops:has("pid") and rt:has("pid") then
    local open = byid and (~byid & c:present()) or c:present()
    if c:count { where = open } > 0 then
      -- ops with no External id take no part
      local inner = I.innermost(ops, rt, { by = { "pid", "tid" }, where = oext:present() })
      local o = inner:at(c):keep(open)
      byt = o:present()
      j = j and j:fill(o) or o
    end
  end
  if not j then return nil end
  local oname = ops:has("name") and ops:col("name"):at(j)
  local none = (oname or k:col("name")):keep(j:present() & ~j:present())     -- strings, all missing
  local link = none
  if byid and byid:count { where = byid } > 0 then link = link:fill(byid:map({ [true] = "id" })) end
  if byt and byt:count { where = byt } > 0 then link = link:fill(byt:map({ [true] = "time" })) end
  local name = oname or none
  return oext:at(j), name, link
end

--- device_label(p) -> function(device) -> text: the device index, with the
-- device's name in brackets where the profile's kernels (or copies) carry a
-- device_name (nvprof traces name their GPUs; Kineto and nsys give only
-- the index here): "0 (Tesla V100-SXM2-16GB)", else "0".
function M.device_label(p)
  local names = {}
  for _, tn in ipairs({ "kernels", "memcpy", "memset" }) do
    local t = p.tables and p.tables[tn]
    if t and t:has("device") and t:has("device_name") then
      local g = t:group_by("device"):agg { { "name", "first", "device_name" } }
      for _, r in g:rows() do
        if r.device ~= nil and r.name and names[r.device] == nil then names[r.device] = r.name end
      end
    end
  end
  return function(dev)
    local n = dev ~= nil and names[dev]
    return n and string.format("%s (%s)", tostring(dev), n) or tostring(dev)
  end
end

return M

--- perflab.steps: the training steps of a timeline, bounded as the PyTorch
-- TensorBoard plugin bounds them (step-breakdown's steps; distributed's
-- per-rank steps).
--
-- Host bounds: a Kineto trace's ProfilerStep#N spans (the `steps` table);
-- an Nsight Systems export's NVTX ranges named opts.step (exact name, else
-- names that start with it) of one process (opts.pid, default the first
-- process with such ranges); without either, the whole host span is one
-- step (step 0).  Device bounds: each runtime call is tied to the step it
-- starts in (I.first_window, the plugin's merge of calls and steps), each
-- device op to the step of its call (same correlation id); a step then
-- starts no earlier than the previous one ends and ends when the last
-- device op it launched ends.  Trailing steps that launched no device op,
-- or fewer than thresholds.tail_step_kernel_ratio of the ops of the step
-- before, are dropped (the plugin does).
local T = require "perflab.table"
local I = require "perflab.intervals"
local IV = require "perflab.timeline"
local D = require "perflab.timeline_data"
local units = require "perflab.units"

local M = {}

local MAXI = math.maxinteger
local MINI = math.mininteger

local sorted_keys = require("perflab.util").sorted_keys

-- the smallest / largest value of a time column where mask holds, exact
-- (an int64 column's min/max is exact; a number column's is taken from its
-- offset to the smallest): nil when no row counts
local function extreme(col, mask, op)
  if col:type() == "integer" then return col[op](col, { where = mask }) end
  if col:count { where = mask } == 0 then return nil end
  local base = math.floor(col:min { where = mask })
  return base + (col - base)[op](col - base, { where = mask })
end

--- Column c of t (a name or a column) as text: a column that holds no
-- string at all (every value missing, so typed as numbers) becomes a string
-- column all missing, so that comparisons with text give false.
function M.text(t, c)
  c = type(c) == "string" and t:col(c) or c
  if c:type() == "string" then return c end
  return t:const(nil, "string")
end
local text = M.text

--- `perflab.steps.complete(p)` -> e, lc: the complete events of a Kineto trace (ph "X" with a start; name, cat, ts_ns,
-- dur_ns, correlation, external_id, tid and end_ns, a missing duration taken as 0) and their category lower-cased (a
-- text column).  M.bound returns them: a recipe that reads them too filters the events once.
function M.complete(p)
  local ev = p:table("events")
  local cols = {}
  for _, c in ipairs({ "name", "cat", "ts_ns", "dur_ns", "correlation", "external_id", "tid" }) do
    if ev:has(c) then cols[#cols + 1] = c end
  end
  local e = ev:filter(text(ev, "ph"):eq("X") & ev:col("ts_ns"):present(), cols)
  e:with("end_ns", e:col("ts_ns") + IV.filled(e, "dur_ns", 0))
  return e, text(e, text(e, "cat"):map(string.lower))
end

-- Kineto: device ops, runtime calls and the host span from the events
local function kineto(p)
  local e, lc = M.complete(p)
  local cpu = lc:isin(sorted_keys(D.cpu_cats))
  -- host ops and steps, not annotations
  local span = cpu & (text(e, "name"):match("^ProfilerStep#") | lc:ne("user_annotation"))
  return {
    device = e:filter(lc:isin { "kernel", "memcpy", "gpu_memcpy", "memset", "gpu_memset" },
        { "ts_ns", "end_ns", "correlation" }),
    runtime = e:filter(lc:isin(sorted_keys(D.runtime_cats)), { "ts_ns", "end_ns", "correlation" }),
    cpu_min = extreme(e:col("ts_ns"), span, "min") or MAXI,
    cpu_max = extreme(e:col("end_ns"), span, "max") or MINI,
    complete = { e = e, lc = lc },
  }
end

-- Nsight Systems: the step ranges, their process, its device ops, runtime
-- calls and host span (runtime calls and the NVTX ranges but the steps)
local function nsys(p, opts, notes)
  local c = { cpu_min = MAXI, cpu_max = MINI, keys = { "pid", "correlation" }, steps = {} }
  local nv = p.tables.nvtx
  local step = opts.step or ""
  local steps = c.steps
  local pid = (opts.pid or 0) ~= 0 and opts.pid or nil
  if step ~= "" and nv and nv:nrows() > 0 then
    local nm, st, en, pp = nv:col("name"):to_lua(), nv:col("start_ns"):to_lua(), nv:col("end_ns"):to_lua(),
        nv:col("pid"):to_lua()
    local exact = false
    for i = 1, nv:nrows() do if nm[i] == step then exact = true; break end end
    local n = #step
    for i = 1, nv:nrows() do
      local x = nm[i]
      if x and st[i] and en[i] and (x == step or (not exact and x:sub(1, n) == step)) then
        if pid == nil then pid = pp[i] end
        if pp[i] == pid then steps[#steps + 1] = { s = st[i], e = en[i] } end
      end
    end
    table.sort(steps, function(x, y) return x.s < y.s end)
    for i, s in ipairs(steps) do s.name = i end
    if #steps == 0 then
      notes[#notes + 1] = string.format("No NVTX range named '%s'%s: the whole capture is taken as one step (step 0).",
        step, pid and (" in process " .. pid) or "")
    else
      local procs = {}
      for i = 1, nv:nrows() do
        if nm[i] == step or (not exact and nm[i] and nm[i]:sub(1, n) == step) then procs[pp[i]] = true end
      end
      local np = 0
      for _ in pairs(procs) do np = np + 1 end
      notes[#notes + 1] = string.format("Steps: %d NVTX ranges %s '%s' of process %s%s.", #steps,
        exact and "named" or "whose name starts with", step, tostring(pid),
        np > 1 and string.format(" (%d processes have such ranges; --set pid=N picks another)", np) or "")
    end
  else
    -- the most frequent range names, to say what --set step could be
    local hint = ""
    if nv and nv:nrows() > 0 then
      local g = nv:group_by("name"):agg { { "n", "count" } }:sort_by("-n", "name"):head(5)
      local names = {}
      for _, r in g:rows() do names[#names + 1] = string.format("'%s' (%d)", units.label(r.name or "", 40), r.n) end
      hint = " (most frequent ranges: " .. table.concat(names, ", ") .. ")"
    end
    notes[#notes + 1] = "Nsight Systems export without --set step=NAME: the whole capture is taken as one step (step 0); "
      .. "name the NVTX range that marks a training step with --set step=NAME" .. hint .. "."
  end
  c.pid = pid
  local function span(t, where)
    local lo, hi = extreme(t:col("start_ns"), where, "min"), extreme(t:col("end_ns"), where, "max")
    if lo and lo < c.cpu_min then c.cpu_min = lo end
    if hi and hi > c.cpu_max then c.cpu_max = hi end
  end
  -- start, end, pid, correlation of the kept rows (joined on (pid,
  -- correlation): nsys' correlation ids are unique within a process)
  local function keys(t, m)
    local x = t:select("start_ns", "end_ns", "correlation"):rename("start_ns", "ts_ns")
    local ts = x:col("ts_ns")
    x:with("pid", t:has("pid") and t:col("pid") or ts:keep(ts:lt(ts)))   -- no pid: matches no call
    return x:filter(m)
  end
  local dev = {}
  for _, name in ipairs({ "kernels", "memcpy", "memset" }) do
    local t = p.tables[name]
    if t and t:nrows() > 0 then dev[#dev + 1] = keys(t, M.kept(t, pid)) end
  end
  c.device = #dev > 0 and T.concat(table.unpack(dev)) or nil
  local rt = p.tables.runtime
  if rt and rt:nrows() > 0 then
    local m = M.kept(rt, pid)
    span(rt, m)
    c.runtime = keys(rt, m)
  end
  if nv and nv:nrows() > 0 then
    local m = M.kept(nv, pid)
    if step ~= "" then m = m & ~nv:col("name"):eq(step) end
    span(nv, m)
  end
  return c
end

--- `perflab.steps.kept(t, pid)` -> mask of the rows of t (an Nsight Systems table) with a start and an end, of process
-- pid (every process when pid is nil).
function M.kept(t, pid)
  local m = t:col("start_ns"):present() & t:col("end_ns"):present()
  if pid ~= nil and t:has("pid") then m = m & t:col("pid"):eq(pid) end
  return m
end

-- the host bounds, in start order
local function host_steps(p, c, notes)
  local st = p.tables.steps
  local steps = {}
  if c.steps then
    for i, x in ipairs(c.steps) do steps[i] = x end
    if #steps == 0 and c.cpu_min <= c.cpu_max then steps[1] = { name = 0, s = c.cpu_min, e = c.cpu_max } end
  elseif st and st:nrows() > 0 then
    for _, r in st:rows() do
      steps[#steps + 1] = { name = r.step, s = r.start_ns, e = r.start_ns + (r.duration_ns or 0) }
    end
    for i, x in ipairs(steps) do x.pos = i end   -- ties in table order (table.sort is not stable)
    table.sort(steps, function(x, y) if x.s ~= y.s then return x.s < y.s end return x.pos < y.pos end)
  elseif c.cpu_min <= c.cpu_max then
    steps[1] = { name = 0, s = c.cpu_min, e = c.cpu_max }
    notes[#notes + 1] = "No ProfilerStep#N span: the whole host span is taken as one step (step 0)."
  end
  return steps
end

-- the device bounds (see the head of this file)
local function device_bound(steps, c, notes)
  local dev, rt, keys = c.device, c.runtime, c.keys or { "correlation" }
  if not dev or not rt or rt:nrows() == 0 then
    notes[#notes + 1] = "No device op was launched from inside a step: steps keep their host bounds."
    return steps
  end
  local nsteps = #steps
  local ss, se = {}, {}
  for i = 1, nsteps do ss[i], se[i] = steps[i].s, steps[i].e end
  local at = I.first_window(ss, se, rt:col("ts_ns"), rt:col("end_ns"))
  rt:with("step_at", at)          -- rt is this call's own table
  local cols = { table.unpack(keys) }
  cols[#cols + 1] = "step_at"
  local calls = rt:filter(at:present() & rt:col("correlation"):present(), cols)
  -- device ops and the step of each call of their correlation (none: missing)
  local d = dev:join(calls, { on = keys, how = "left" })
  local tied = d:col("step_at"):present()
  local dev_min, dev_max, matched_count = {}, {}, {}
  for i = 1, nsteps do dev_min[i] = MAXI; dev_max[i] = MINI; matched_count[i] = 0 end
  local any_matched = false
  for _, g in d:filter(tied):group_by("step_at")
      :agg { { "dmin", "min", "ts_ns" }, { "dmax", "max", "end_ns" }, { "dn", "count" } }:rows() do
    dev_min[g.step_at], dev_max[g.step_at], matched_count[g.step_at] = g.dmin, g.dmax, g.dn
    any_matched = true
  end
  if not any_matched then
    notes[#notes + 1] = "No device op was launched from inside a step: steps keep their host bounds."
    return steps
  end
  local prev_end = steps[1].s
  if dev_min[1] ~= MAXI then
    -- the last end of the device ops no step launched (no call of their
    -- correlation is tied to a step) that ended before the first step's
    -- first device op
    local en = d:col("end_ns")
    local free = ~tied & en:lt(dev_min[1]) & en:gt(prev_end)
    prev_end = extreme(en, free, "max") or prev_end
  end
  for i = 1, nsteps do
    local s = steps[i].s > prev_end and steps[i].s or prev_end
    local e = steps[i].e
    if dev_min[i] == MAXI then
      if s > e then e = s end
    else
      if dev_max[i] > e then e = dev_max[i] end
      if e < s then e = s end
    end
    steps[i].host_s, steps[i].host_e = steps[i].s, steps[i].e
    steps[i].s, steps[i].e = s, e
    steps[i].device_ops = matched_count[i]
    prev_end = e
  end
  if nsteps > 1 then
    local last = nsteps
    while last >= 1 and matched_count[last] == 0 do last = last - 1 end
    if last >= 1 then
      local keep = last
      if last > 1 and matched_count[last - 1] * D.thresholds.tail_step_kernel_ratio > matched_count[last] then
        keep = last - 1
      end
      if keep < nsteps then
        local dropped = {}
        for i = keep + 1, nsteps do dropped[#dropped + 1] = tostring(steps[i].name); steps[i] = nil end
        notes[#notes + 1] = string.format("Dropped the last step(s) %s: they launched no device op, or fewer "
          .. "than %d %% of the ops of the step before (the profiler may have missed their kernels), as the plugin does.",
          table.concat(dropped, ", "), math.floor(D.thresholds.tail_step_kernel_ratio * 100 + 0.5))
      end
    end
  end
  return steps
end

--- `perflab.steps.bound(p [, opts])` -> steps, notes, pid, complete: the steps of a Kineto trace or an Nsight Systems
-- export (opts.step, opts.pid: its NVTX step ranges and process), each { name, s, e, host_s, host_e, device_ops } in
-- start order, bounded on the device side; notes say where the bounds came from (steps is empty when the profile has no
-- step and no host op); pid is the export's chosen process; complete = { e =, lc = } is M.complete(p) (a Kineto trace).
function M.bound(p, opts)
  opts = opts or {}
  local notes = {}
  local c = p.tables.events and kineto(p) or nsys(p, opts, notes)
  local steps = host_steps(p, c, notes)
  if #steps == 0 then return steps, notes, c.pid, c.complete end
  return device_bound(steps, c, notes), notes, c.pid, c.complete
end

return M

--- distributed: computation against communication on every rank of a job,
-- and how much of each collective is data transfer and how much waiting --
-- the TensorBoard profiler plugin's Distributed view, with HTA's overlap
-- ratio and temporal breakdown.  Input: one trace per rank (Kineto).
--
-- Per rank (the map step, a pure function of one file):
--  * steps: perflab.steps.bound, as step-breakdown's (the plugin's step
--    bounds; the whole host span when the trace has no ProfilerStep#N);
--  * Kernel = device kernels that are not communication; Communication =
--    kernels launched by a collective host op (same external id: nccl:*,
--    gloo:*; cpu ops, or user annotations as older PyTorch wrote them) or
--    named communication by lua/perflab/comm.lua, and those host ops
--    themselves.  A trace with no kernel at all (Gloo on CPU) takes its
--    other host ops as computation, as the plugin does.
--    Per step [s, e): computation = |Kernel ∩ step|, communication =
--    |Comm ∩ step|, overlap = |Kernel ∩ Comm ∩ step|, other = (e - s) +
--    overlap - computation - communication (the plugin's formulas,
--    overall_parser.py / run_generator.py); overlap_pct = overlap /
--    communication (HTA's ratio, per step and per rank);
--    memcpy = |Mem ∩ step| less what Kernel or Comm overlaps (Mem = the
--    memcpy and memset rows): the part of other spent in copies, which
--    the summary shows as memcpy, not idle;
--  * collectives: each collective host op with the kernels it launched, and
--    each communication kernel no such op launched, in start order (ties:
--    longer first); its ranges = the op's span and its kernels' spans; a
--    collective belongs to the step that contains it;
--  * HTA (analyzers/breakdown_analysis.py, communication_analysis.py): over
--    the kernels, memcpy and memset whose launch (same correlation id)
--    started before the last ProfilerStep (HTA drops the last step; all of
--    them when the trace has fewer than 2 steps): span = last end - first
--    start, idle = span - |∪ all|, compute = |∪ compute kernels|,
--    non_compute = span - compute - idle, comm = |∪ comm kernels|,
--    overlap = |comm ∩ compute|, ratio = overlap / comm.
-- Across ranks (the merge step):
--  * collectives are matched by order; every rank must have the same number
--    (and the same number of ranges in each), else an error: the files are
--    ranks of different jobs, or a trace was cut short;
--  * for the j-th range of the i-th collective, min = the shortest duration
--    over ranks; a rank's transfer range = (end - min, end).  Data transfer
--    = |∪ transfer ranges|, synchronisation = |∪ ranges| - transfer, per
--    collective and per step (the plugin's loader.py/communication.py);
--  * who waits for whom: in each collective the rank whose last range
--    starts latest arrived last; the others waited for it.
-- Findings: low overlap, synchronisation dominating (the waiting ranks and
-- the rank they wait for), step-time imbalance across ranks.
-- Tables (API): ranks, steps, collectives, comm_ops (the plugin's op table).
--
-- Map / merge: `perflab run distributed --map FILE --output DIR` writes the
-- per-rank summary (CSV tables and manifest.json); `perflab run distributed
-- --merge DIR...` gives the same report as the direct run.
local perflab = require "perflab"
local T = perflab.table
local I = require "perflab.intervals"
local comm = require "perflab.comm"
local S = require "perflab.steps"
local ranks_mod = require "perflab.ranks"
local units = perflab.units
local errors = require "perflab.errors"
local chart = require "perflab.chart"
local figures = require "perflab.figures"

-- bytes per element of a collective's input (the plugin's list, plus double)
local TYPE_BYTES = { ["long int"] = 8, float = 4, int = 4, ["c10::Half"] = 2, ["c10::BFloat16"] = 2,
  ["unsigned char"] = 1, double = 8 }

local function col(t, name)
  if t and t:has(name) then return t:col(name):to_lua() end
  return {}
end

local function input_bytes(dims, types)
  if not dims or not types then return 0 end
  local shapes, tys = {}, {}
  local inner = dims:match("^%s*%[(.*)%]%s*$") or ""
  for sh in inner:gmatch("%[([^%[%]]*)%]") do shapes[#shapes + 1] = sh end
  for ty in types:gmatch('"([^"]*)"') do tys[#tys + 1] = ty end
  local total = 0
  for i, sh in ipairs(shapes) do
    local b = TYPE_BYTES[tys[i] or ""] or 0
    local n = 1
    for d in sh:gmatch("%-?%d+") do n = n * tonumber(d) end
    total = total + n * b
  end
  return math.tointeger(total) or total
end

local function iv(s, e) return I.from_arrays(s, e, #s) end

-- ---- map: one rank ------------------------------------------------------------

local function hta_breakdown(p, kt, kc)
  -- GPU events launched before the last ProfilerStep (HTA's default filter):
  -- their runtime call (same correlation id) starts before the cut; masks
  -- and sets in the table engine
  local steps = p.tables.steps
  local cut
  if steps and steps:nrows() >= 2 then
    cut = math.mininteger
    for _, s in ipairs(col(steps, "start_ns")) do if s > cut then cut = s end end
  end
  local launched = {}   -- the correlation ids of the calls before the cut
  if cut then
    local rt = p.tables.runtime
    if rt and rt:has("correlation") and rt:nrows() > 0 then
      local rc = rt:col("correlation")
      launched = rt:filter(rc:present() & rt:col("start_ns"):lt(cut)):col("correlation")
    end
  end
  -- the rows of t launched before the cut (nil: every row, without a cut)
  local function kept(t)
    if not cut then return nil end
    local ts = t:col("start_ns")
    if t:has("correlation") then return t:col("correlation"):isin(launched) end
    return ts:lt(ts)                       -- no correlation: none is kept
  end
  local nkept, allk, compute, commset = 0, I.empty(), I.empty(), I.empty()
  if kc then
    local keepk = kept(kt)
    nkept = keepk and keepk:count { where = keepk } or kt:nrows()
    local function set(m) return I.from_table(kt, "start_ns", "duration_ns", { duration = true, where = m }) end
    allk = set(keepk)
    compute = set(keepk and (keepk & ~kc) or ~kc)
    commset = set(keepk and (keepk & kc) or kc)
  end
  -- memcpy and memset
  local mem, nmem = I.empty(), 0
  for _, tn in ipairs({ "memcpy", "memset" }) do
    local t = p.tables[tn]
    if t and t:nrows() > 0 and t:has("start_ns") and t:has("duration_ns") then
      local m = kept(t)
      local rows = t:col("start_ns"):present()
      if m then rows = rows & m end
      nmem = nmem + rows:count { where = rows }
      mem = mem + I.from_table(t, "start_ns", "duration_ns", { duration = true, where = m })
    end
  end
  local h = { span_ns = 0, idle_ns = 0, compute_ns = 0, non_compute_ns = 0, comm_ns = 0, overlap_ns = 0 }
  if nmem == 0 and nkept == 0 then return h end
  local all = allk + mem
  local first = all:get(1)
  local _, last = all:get(all:count())
  h.span_ns = last - first
  h.idle_ns = h.span_ns - all:length()
  h.compute_ns = compute:length()
  h.non_compute_ns = h.span_ns - h.compute_ns - h.idle_ns
  h.comm_ns = commset:length()
  h.overlap_ns = (compute * commset):length()
  return h
end

local function map_rank(p)
  local notes = {}
  local kt = p.tables.kernels
  local nk = kt and kt:has("name") and kt:nrows() or 0
  local ct = p.tables.cpu_ops
  -- collectives: host ops first (picked by a mask, the name tested once
  -- per distinct name), then their kernels by external id
  local nodes, by_ext = {}, {}
  local comm_s, comm_e = {}, {}
  local isop       -- the mask of the collective host ops
  if ct and ct:has("name") and ct:nrows() > 0 then
    isop = ct:col("name"):map(comm.is_op):eq(true)
    local co = ct:filter(isop)
    local C = { name = col(co, "name"), start = col(co, "start_ns"), dur = col(co, "duration_ns"),
                ext = col(co, "external_id"), dims = col(co, "input_dims"), types = col(co, "input_types") }
    for i = 1, co:nrows() do
      local a, b = C.start[i], C.start[i] + C.dur[i]
      local nd = { name = C.name[i], s = a, e = b, bytes = input_bytes(C.dims[i], C.types[i]),
                   ranges = { { a, b } }, idx = #nodes + 1 }
      nodes[#nodes + 1] = nd
      if C.ext[i] then by_ext[C.ext[i]] = nd end
      comm_s[#comm_s + 1] = a; comm_e[#comm_e + 1] = b
    end
  end
  -- collective calls recorded as user annotations (record_function around
  -- the call, as older PyTorch wrote them): in the events table only
  -- (the few such events picked by a mask in the table engine: the
  -- category tested once per distinct string, not per event)
  local et = p.tables.events
  if et and et:has("cat") and et:has("ph") and et:has("name") and et:has("ts_ns") then
    local ops = {}
    for n, v in pairs(comm.op_names) do if v == true then ops[#ops + 1] = n end end
    table.sort(ops)
    local ts = et:col("ts_ns")
    local mask = et:col("ph"):eq("X") & et:col("name"):isin(ops) & ts:eq(ts)
      & et:col("cat"):map(function(c) return c:lower() == "user_annotation" end):eq(true)
    local ev = et:filter(mask)
    local en, ets, edur, eext = col(ev, "name"), col(ev, "ts_ns"), col(ev, "dur_ns"), col(ev, "external_id")
    for i = 1, #en do
      local a, b = ets[i], ets[i] + (edur[i] or 0)
      local nd = { name = en[i], s = a, e = b, bytes = 0, ranges = { { a, b } }, idx = #nodes + 1 }
      nodes[#nodes + 1] = nd
      if eext[i] and not by_ext[eext[i]] then by_ext[eext[i]] = nd end
      comm_s[#comm_s + 1] = a; comm_e[#comm_e + 1] = b
    end
  end
  -- the collectives' kernels (linked by external id to a host collective,
  -- or a communication library's kernel by name) by a mask in the table
  -- engine, the name tested once per distinct string: only those rows go
  -- to Lua, the other kernels make the computation set in C
  local kc, kset   -- the mask of communication kernels; the computation set
  if nk > 0 then
    kc = kt:col("name"):map(function(n) return comm.is_kernel(n) end):eq(true)
    if kt:has("external_id") and next(by_ext) then
      local exts = {}
      for e in pairs(by_ext) do exts[#exts + 1] = e end
      table.sort(exts)
      kc = kt:col("external_id"):isin(exts) | kc
    end
    local ck = kt:filter(kc)
    local kn, ks, kd, ke = col(ck, "name"), col(ck, "start_ns"), col(ck, "duration_ns"), col(ck, "external_id")
    for i = 1, ck:nrows() do
      local a, b = ks[i], ks[i] + kd[i]
      local nd = ke[i] and by_ext[ke[i]]
      if nd then nd.ranges[#nd.ranges + 1] = { a, b }
      else nodes[#nodes + 1] = { name = kn[i], s = a, e = b, bytes = 0, ranges = { { a, b } }, idx = #nodes + 1 } end
      comm_s[#comm_s + 1] = a; comm_e[#comm_e + 1] = b
    end
    kset = I.from_table(kt, "start_ns", "duration_ns", { duration = true, where = ~kc })
  end
  local cpu_fallback = nk == 0
  if cpu_fallback then
    -- the other host ops (not a collective, not a ProfilerStep#N span)
    if isop then
      kset = I.from_table(ct, "start_ns", "duration_ns",
        { duration = true, where = ~isop & ~ct:col("name"):match("^ProfilerStep#") })
    end
    notes[#notes + 1] = string.format("%s: no device kernels: its host ops count as computation (the plugin's CPU fallback)", p.source)
  end
  table.sort(nodes, function(x, y)
    if x.s ~= y.s then return x.s < y.s end
    if x.e ~= y.e then return x.e > y.e end
    return x.idx < y.idx
  end)
  local compset, commset = kset or I.empty(), iv(comm_s, comm_e)
  local both = compset * commset
  -- memory copies and sets that neither computation nor communication
  -- overlaps: part of the plugin's "other", said apart (an nsys export
  -- whose steps are mostly host<->device copies is not idle)
  local memset_ = I.empty()
  for _, tn in ipairs({ "memcpy", "memset" }) do
    local t = p.tables[tn]
    if t and t:nrows() > 0 and t:has("start_ns") and t:has("duration_ns") then
      memset_ = memset_ + I.from_table(t, "start_ns", "duration_ns", { duration = true })
    end
  end
  local copies = memset_ - (compset + commset)
  local steps = S.bound(p)   -- in start order, bounded on the device side
  local srows = {}
  for i, st in ipairs(steps) do
    local c1, c2, ov = compset:length_within(st.s, st.e), commset:length_within(st.s, st.e),
        both:length_within(st.s, st.e)
    srows[i] = { step = st.name, start_ns = st.s, duration_ns = st.e - st.s, computation_ns = c1,
                 communication_ns = c2, overlap_ns = ov, other_ns = (st.e - st.s) + ov - c1 - c2,
                 memcpy_ns = copies:length_within(st.s, st.e) }
  end
  -- each collective's step: the step that contains it
  local crow, rrow = {}, {}
  for i, nd in ipairs(nodes) do
    table.sort(nd.ranges, function(x, y) if x[1] ~= y[1] then return x[1] < y[1] end return x[2] > y[2] end)
    -- the step that contains it: the last step starting at or before it
    local step = -1
    local lo, hi, k = 1, #steps, 0
    while lo <= hi do
      local mid = (lo + hi) // 2
      if steps[mid].s <= nd.s then k = mid; lo = mid + 1 else hi = mid - 1 end
    end
    if k > 0 and nd.e <= steps[k].e then step = steps[k].name end
    crow[i] = { collective = i, name = nd.name, step = step, bytes = nd.bytes, start_ns = nd.s, end_ns = nd.e,
                nranges = #nd.ranges }
    for j, r in ipairs(nd.ranges) do rrow[#rrow + 1] = { collective = i, j = j, start_ns = r[1], end_ns = r[2] } end
  end
  local h = hta_breakdown(p, kt, kc)
  return {
    -- a rank that only came from the file order is left to the merge (which
    -- ranks by the order of its inputs, and says so)
    source = p.source, format = p.format,
    rank = p.rank_from ~= "order" and p.rank or nil, world_size = p.rank_from ~= "order" and p.world_size or nil,
    meta = { cpu_fallback = cpu_fallback },
    notes = notes,
    table_order = { "steps", "collectives", "ranges", "hta" },
    tables = {
      steps = T.from_rows(srows, { "step", "start_ns", "duration_ns", "computation_ns", "communication_ns",
        "overlap_ns", "other_ns", "memcpy_ns" }, "steps"),
      collectives = T.from_rows(crow, { "collective", "name", "step", "bytes", "start_ns", "end_ns", "nranges" },
          "collectives"),
      ranges = T.from_rows(rrow, { "collective", "j", "start_ns", "end_ns" }, "ranges"),
      hta = T.from_rows({ h }, { "span_ns", "idle_ns", "compute_ns", "non_compute_ns", "comm_ns", "overlap_ns" },
          "hta"),
    },
  }
end

-- ---- merge: all ranks ---------------------------------------------------------

-- a table as an array of row tables (none: empty)
local function rows(t) return t and t:to_lua() or {} end

local function pct(a, b) if b and b > 0 then return 100 * a / b end return 0 end

local function rank_list(list)
  local s = {}
  for i, r in ipairs(list) do
    if i > 12 then s[#s + 1] = string.format("and %d more", #list - 12); break end
    s[#s + 1] = tostring(r)
  end
  return table.concat(s, ", ")
end

local function merge(parts, opts, report)
  local sorted, notes = ranks_mod.assign(parts)
  for _, n in ipairs(notes) do report:note(n) end
  for _, s in ipairs(sorted) do for _, n in ipairs(s.notes or {}) do report:note(n) end end
  -- the report lists its inputs in rank order, whichever order they came in
  local ins = {}
  for i, s in ipairs(sorted) do ins[i] = { source = s.source, format = s.format, role = s.role } end
  report.inputs = ins
  local R = {}
  for k, s in ipairs(sorted) do
    R[k] = { part = s, steps = rows(s.tables.steps), coll = rows(s.tables.collectives),
        hta = rows(s.tables.hta)[1] or {} }
    local rg = rows(s.tables.ranges)
    for _, c in ipairs(R[k].coll) do c.ranges = {} end
    for _, r in ipairs(rg) do
      local c = R[k].coll[r.collective]
      c.ranges[r.j] = { r.start_ns, r.end_ns }
    end
  end
  -- collectives matched by order
  local n0 = #R[1].coll
  for k = 2, #R do
    if #R[k].coll ~= n0 then
      errors.fail(string.format("ranks disagree on the collective count: rank %d (%s) has %d collectives, rank %d (%s) has %d: "
        .. "the files are ranks of different jobs, or a trace was cut short (collectives are matched across ranks by order)",
        R[1].part.rank, R[1].part.source, n0, R[k].part.rank, R[k].part.source, #R[k].coll), 2)
    end
  end
  for i = 1, n0 do
    for k = 2, #R do
      local a, b = R[1].coll[i], R[k].coll[i]
      if #a.ranges ~= #b.ranges then
        errors.fail(string.format("ranks disagree on collective %d: rank %d (%s) has %s with %d kernel range(s), rank %d (%s) has %s with %d",
          i, R[1].part.rank, R[1].part.source, a.name, #a.ranges, R[k].part.rank, R[k].part.source, b.name, #b.ranges),
              2)
      end
    end
  end
  -- the shortest duration over ranks of each range: the data transfer
  local minr = {}
  for i = 1, n0 do
    minr[i] = {}
    for j = 1, #R[1].coll[i].ranges do
      local m = math.maxinteger
      for k = 1, #R do
        local r = R[k].coll[i].ranges[j]
        if r[2] - r[1] < m then m = r[2] - r[1] end
      end
      minr[i][j] = m
    end
  end
  -- who arrived last at each collective
  local last_count = {}
  for k = 1, #R do last_count[k] = 0 end
  for i = 1, n0 do
    local best, bk, tie = nil, nil, false
    for k = 1, #R do
      local rg = R[k].coll[i].ranges
      local arr = rg[#rg][1]
      if best == nil or arr > best then best, bk, tie = arr, k, false
      elseif arr == best then tie = true end
    end
    if bk and not tie and #R > 1 then last_count[bk] = last_count[bk] + 1 end
  end
  -- per rank: collectives, steps, totals
  local rank_rows, step_rows, coll_rows, op_rows = {}, {}, {}, {}
  for k, x in ipairs(R) do
    local rank = x.part.rank
    local by_step, by_name, names = {}, {}, {}
    for i, c in ipairs(x.coll) do
      local ks, ke, ts, te = {}, {}, {}, {}
      for j, r in ipairs(c.ranges) do
        ks[j] = r[1]; ke[j] = r[2]
        ts[j] = r[2] - minr[i][j]; te[j] = r[2]
      end
      local lat, tr = iv(ks, ke):length(), iv(ts, te):length()
      coll_rows[#coll_rows + 1] = { collective = i, rank = rank, name = c.name, step = c.step, bytes = c.bytes,
        start_ns = c.start_ns, latency_ns = lat, transfer_ns = tr, sync_ns = lat - tr }
      for _, key in ipairs({ "step", "name" }) do
        local map, v = key == "step" and by_step or by_name, c[key]
        local g = map[v]
        if not g then
          g = { ks = {}, ke = {}, ts = {}, te = {}, calls = 0, bytes = 0 }
          map[v] = g
          if key == "name" then names[#names + 1] = v end
        end
        g.calls = g.calls + 1; g.bytes = g.bytes + c.bytes
        for j = 1, #ks do
          g.ks[#g.ks + 1] = ks[j]; g.ke[#g.ke + 1] = ke[j]; g.ts[#g.ts + 1] = ts[j]; g.te[#g.te + 1] = te[j]
        end
      end
    end
    for _, nm in ipairs(names) do
      local g = by_name[nm]
      local lat, tr = iv(g.ks, g.ke):length(), iv(g.ts, g.te):length()
      op_rows[#op_rows + 1] = { rank = rank, name = nm, calls = g.calls, total_bytes = g.bytes,
          avg_bytes = g.bytes / g.calls,
        total_latency_ns = lat, avg_latency_ns = lat / g.calls, transfer_ns = tr, avg_transfer_ns = tr / g.calls }
    end
    local tot = { duration_ns = 0, computation_ns = 0, communication_ns = 0, overlap_ns = 0, other_ns = 0,
                  memcpy_ns = 0, transfer_ns = 0, sync_ns = 0 }
    for _, s in ipairs(x.steps) do
      local g = by_step[s.step]
      local tr, sy = 0, 0
      if g then
        tr = iv(g.ts, g.te):length()
        sy = iv(g.ks, g.ke):length() - tr
      end
      step_rows[#step_rows + 1] = { rank = rank, step = s.step, start_ns = s.start_ns, duration_ns = s.duration_ns,
        computation_ns = s.computation_ns, communication_ns = s.communication_ns, overlap_ns = s.overlap_ns,
        other_ns = s.other_ns, memcpy_ns = s.memcpy_ns or 0, overlap_pct = pct(s.overlap_ns, s.communication_ns),
        transfer_ns = tr, sync_ns = sy }
      for key in pairs(tot) do
        if key == "transfer_ns" then tot[key] = tot[key] + tr
        elseif key == "sync_ns" then tot[key] = tot[key] + sy
        else tot[key] = tot[key] + (s[key] or 0) end
      end
    end
    local n = #x.steps
    local h = x.hta
    rank_rows[k] = { rank = rank, source = x.part.source, steps = n,
      step_mean_ns = n > 0 and tot.duration_ns / n or 0,
      computation_ns = n > 0 and tot.computation_ns / n or 0,
      communication_ns = n > 0 and tot.communication_ns / n or 0,
      overlap_ns = n > 0 and tot.overlap_ns / n or 0,
      other_ns = n > 0 and tot.other_ns / n or 0,
      memcpy_ns = n > 0 and tot.memcpy_ns / n or 0,
      overlap_pct = pct(tot.overlap_ns, tot.communication_ns),
      transfer_ns = tot.transfer_ns, sync_ns = tot.sync_ns, sync_pct = pct(tot.sync_ns, tot.transfer_ns + tot.sync_ns),
      last_arrivals = last_count[k],
      hta_span_ns = h.span_ns or 0, hta_idle_ns = h.idle_ns or 0, hta_compute_ns = h.compute_ns or 0,
      hta_non_compute_ns = h.non_compute_ns or 0, hta_comm_ns = h.comm_ns or 0, hta_overlap_ns = h.overlap_ns or 0,
      hta_overlap_pct = pct(h.overlap_ns or 0, h.comm_ns or 0) }
  end
  if n0 == 0 then report:note("No collective (communication host op or kernel) in any rank: no transfer/synchronisation split.") end

  -- findings
  local low, lowest = {}, nil
  for _, r in ipairs(rank_rows) do
    if r.communication_ns > 0 and r.overlap_pct < opts.min_overlap_pct then
      low[#low + 1] = r.rank
      if not lowest or r.overlap_pct < lowest.overlap_pct then lowest = r end
    end
  end
  if #low > 0 then
    report:finding {
      severity = "opt", rule = "distributed.low_overlap",
      subject = "ranks " .. rank_list(low),
      message = string.format("%d of %d ranks overlap less than %g %% of their communication with computation (lowest: rank %d, %.1f %% of %s per step): "
        .. "overlap gradient all-reduce with the backward pass (DDP bucket size, FSDP prefetch) or compute while communicating",
        #low, #rank_rows, opts.min_overlap_pct, lowest.rank, lowest.overlap_pct, units.ns(lowest.communication_ns)),
      evidence = { ranks = rank_list(low), lowest_rank = lowest.rank, lowest_overlap_pct = lowest.overlap_pct,
                   threshold_pct = opts.min_overlap_pct,
                       formula = "overlap_pct = |Kernel ∩ Comm| / |Comm| over the steps" },
    }
  end
  local waiting = {}
  for _, r in ipairs(rank_rows) do
    if r.transfer_ns + r.sync_ns > 0 and r.sync_pct > opts.max_sync_pct then waiting[#waiting + 1] = r.rank end
  end
  if #waiting > 0 and n0 > 0 then
    local top, topk = -1, nil
    for k, c in ipairs(last_count) do if c > top then top, topk = c, k end end
    local who = topk and top > 0
        and string.format("; the rank they wait for is mostly rank %d (last to arrive at %d of %d collectives)",
      R[topk].part.rank, top, n0) or ""
    report:finding {
      severity = "warn", rule = "distributed.synchronisation",
      subject = "ranks " .. rank_list(waiting),
      message = string.format("synchronisation (waiting for the other ranks) is more than %g %% of the collective time on %d of %d ranks (%s)%s: "
        .. "balance the work before the collectives, or look at what delays that rank",
        opts.max_sync_pct, #waiting, #rank_rows, rank_list(waiting), who),
      evidence = { ranks = rank_list(waiting), threshold_pct = opts.max_sync_pct,
                   waited_for_rank = topk and top > 0 and R[topk].part.rank or nil, last_arrivals = top,
                   collectives = n0,
                       formula = "sync = |∪ kernel ranges| - |∪ (end - min over ranks of the duration, end)|" },
    }
  end
  if #rank_rows > 1 then
    local lo, hi, sum = nil, nil, 0
    for _, r in ipairs(rank_rows) do
      sum = sum + r.step_mean_ns
      if not lo or r.step_mean_ns < lo.step_mean_ns then lo = r end
      if not hi or r.step_mean_ns > hi.step_mean_ns then hi = r end
    end
    local mean = sum / #rank_rows
    local spread = pct(hi.step_mean_ns - lo.step_mean_ns, mean)
    if spread > opts.imbalance_pct then
      report:finding {
        severity = "warn", rule = "distributed.step_imbalance", subject = "rank " .. hi.rank,
        message = string.format("step time differs across ranks by %.1f %% of the mean: rank %d %s per step, rank %d %s",
          spread, hi.rank, units.ns(hi.step_mean_ns), lo.rank, units.ns(lo.step_mean_ns)),
        evidence = { spread_pct = spread, threshold_pct = opts.imbalance_pct, slowest_rank = hi.rank,
            fastest_rank = lo.rank,
                     formula = "(max - min of the ranks' mean step time) / mean" },
      }
    end
  end

  -- where the time goes, for run all's summary: the mean step per rank;
  -- communication counts what computation does not hide
  local bd = {}
  for i, r in ipairs(rank_rows) do
    bd[i] = { subject = "rank " .. r.rank, steps = r.steps, step_ns = r.step_mean_ns, computation_ns = r.computation_ns,
              communication_ns = math.max(0, r.communication_ns - r.overlap_ns), memcpy_ns = r.memcpy_ns,
              idle_ns = math.max(0, r.other_ns - r.memcpy_ns) }
  end
  if #rank_rows > 1 or n0 > 0 then
    report:breakdown(bd, "communication = what computation does not overlap; memcpy = copies and sets neither "
      .. "overlaps; idle = none of these")
  end
  if #rank_rows == 1 and n0 == 0 then
    report:collapse(string.format("one rank (%s) and no collective: nothing to compare across ranks "
      .. "(step-breakdown and idle-time break its time down)", rank_rows[1].source))
  end
  report:table("ranks", T.from_rows(rank_rows, { "rank", "source", "steps", "step_mean_ns", "computation_ns",
    "communication_ns", "overlap_ns", "other_ns", "memcpy_ns", "overlap_pct", "transfer_ns", "sync_ns", "sync_pct",
        "last_arrivals",
    "hta_span_ns", "hta_idle_ns", "hta_compute_ns", "hta_non_compute_ns", "hta_comm_ns", "hta_overlap_ns",
    "hta_overlap_pct" }, "ranks"),
    { title = "per rank: mean per step of computation, communication, overlap, other (ns; memcpy: the part of "
      .. "other in copies and sets); transfer and synchronisation (ns, all steps); HTA breakdown" })
  report:table("steps", T.from_rows(step_rows, { "rank", "step", "start_ns", "duration_ns", "computation_ns",
    "communication_ns", "overlap_ns", "other_ns", "memcpy_ns", "overlap_pct", "transfer_ns", "sync_ns" }, "steps"),
    { title = "per rank and step (ns; memcpy = the part of other in copies and sets; "
      .. "overlap_pct = overlap / communication)" })
  report:table("collectives", T.from_rows(coll_rows, { "collective", "rank", "name", "step", "bytes", "start_ns",
    "latency_ns", "transfer_ns", "sync_ns" }, "collectives"),
    { title = "per collective (matched across ranks by order) and rank: data transfer and synchronisation (ns)" })
  report:table("comm_ops", T.from_rows(op_rows, { "rank", "name", "calls", "total_bytes", "avg_bytes",
    "total_latency_ns", "avg_latency_ns", "transfer_ns", "avg_transfer_ns" }, "comm_ops"),
    { title = "per rank and collective name (the plugin's op table)" })
end

--- distributed (per rank, the plugin's Distributed view): one stacked bar per
-- rank of its mean step: computation only, overlap, communication only,
-- other (step = computation + communication - overlap + other).
-- Reads the `ranks` table (rank, computation_ns, communication_ns, overlap_ns, other_ns).
local function figure(report, tname)
  local rows = figures.rows_of(report.tables[tname or "ranks"],
      { "rank", "computation_ns", "communication_ns", "overlap_ns",
      "other_ns" })
  if not rows or rows[1].computation_ns == nil and rows[1].communication_ns == nil then return end
  local cats = {}
  local names = { "computation only", "overlap", "communication only", "other" }
  local series = {}
  for i, n in ipairs(names) do series[i] = { name = n, values = {}, titles = {} } end
  for k, r in ipairs(rows) do
    cats[k] = "rank " .. tostring(r.rank)
    local comp, comm, ov, oth = r.computation_ns or 0, r.communication_ns or 0, r.overlap_ns or 0, r.other_ns or 0
    local v = { comp - ov, ov, comm - ov, oth }
    for i = 1, 4 do
      series[i].values[k] = v[i] / 1e6
      series[i].titles[k] = string.format("%s · %s: %s per step", cats[k], names[i], figures.ms(v[i]))
    end
  end
  report:figure("ranks.svg", chart.bars {
    title = "Mean step per rank", subtitle = "computation and communication, their overlap, and other time",
    horizontal = true, stacked = true, categories = cats, series = series, value_label = "time per step (ms)",
  }, { title = "per-rank stacked step time" })
end

return {
  name = "distributed",
  figure = figure,   -- its figures from its report's tables (run calls it)
  usage = "perflab run distributed FILE... [--jobs N] [--set KEY=VALUE]...\n"
    .. "       perflab run distributed --map FILE --output DIR      (per-rank summary)\n"
    .. "       perflab run distributed --merge DIR... [--set KEY=VALUE]...",
  summary = "all ranks of a job: computation/communication/overlap per step, data transfer vs synchronisation per collective, who waits for whom (tb-plugin Distributed view, HTA overlap)",
  needs = { "kernels.start_ns|cpu_ops.start_ns", "events|runtime" },   -- a timeline (Kineto, Nsight Systems)
  options = {
    min_overlap_pct = { type = "number", default = 30,
        help = "report ranks overlapping less than this share of communication" },
    max_sync_pct = { type = "number", default = 50,
        help = "report ranks whose collective time is more than this share synchronisation" },
    imbalance_pct = { type = "number", default = 5,
        help = "report a spread of the ranks' mean step time above this share of the mean" },
  },
  map = map_rank,
  merge = function(parts, opts, report)   -- --merge: the same report, figure included
    merge(parts, opts, report)
    figure(report)
  end,
  run = function(inputs, opts, report)
    local parts = {}
    inputs = ranks_mod.split(inputs)      -- each process of an nsys export is a rank
    for i, p in ipairs(inputs) do parts[i] = map_rank(p) end
    merge(parts, opts, report)
    figure(report)   -- per-rank stacked bars of the mean step
  end,
}

--- memory: the allocator's memory over time, its peak per device, what held
-- it there, and which operators allocate (the TensorBoard profiler plugin's
-- Memory View, which was removed with the plugin, and more).  docs/memory.md.
--
-- Input: the `memory_events` table (Kineto [memory] events recorded with
-- profile_memory=True; nsys exports; PyTorch's raw memory timeline).  Every
-- step below is column-wise (masks, group-by, joins, the interval engine);
-- Lua loops only over devices and steps.
--
-- Tables (part of the API):
--   curve       device, ts_ns, since_start_ns (from the trace's start), allocated_bytes,
--               reserved_bytes: one point per event with an address and a
--               Total Allocated (tb-plugin's curve), per device
--   peaks       device, peak_bytes, reserved_bytes, ts_ns, time_ms, op, step,
--               capacity_bytes, capacity_pct
--   at_peak     device, bytes, alloc_ts_ns, op, step: the allocations live at
--               each device's peak (allocated at or before it, not yet freed),
--               largest first
--   operators   device, name, self_increase_bytes, self_alloc_bytes,
--               self_alloc_count, increase_bytes, alloc_bytes, alloc_count,
--               calls (tb-plugin's columns, in its order)
--   allocations device, addr, bytes, alloc_ts_ns, release_ts_ns, lifetime_ns,
--               op, step: allocations paired with the next free of the same
--               address; release missing when never freed in the trace
--   steps       device, step, end_allocated_bytes, max_allocated_bytes
--   categories  (raw memory timeline only) ts_ns and one column per category
local perflab = require "perflab"
local T = perflab.table
local I = perflab.intervals
local units = perflab.units
local gpus = require "perflab.gpus"
local chart = require "perflab.chart"

-- tb-plugin's "not an operator" (node.py is_operator_node): these names hold
-- no memory themselves; an event whose deepest node is one is left out
local NOT_OP = { "^Optimizer%.", "^enumerate%(DataLoader%)#.*%.__next__$", "^enumerate%(DataPipe%)#",
                 "^DataParallel%.forward$", "^DistributedDataParallel%.forward$" }

local kept_ops

local function is_op(namecol)
  local bad
  for _, pat in ipairs(NOT_OP) do
    local m = namecol:match(pat)
    bad = bad and (bad | m) or m
  end
  return namecol:present() & ~bad
end

local function dev_label(dtype, dev)
  if dtype == 0 then return "CPU" end
  if dtype == nil then return dev and ("device " .. dev) or "device" end
  return "GPU" .. tostring(dev)
end

-- the trace's first timestamp (tb-plugin's profiler start): the parser's
-- meta start_ns (the smallest time of any event), else the first memory event
local function trace_start(p, mem)
  local s = p.meta and p.meta.start_ns
  s = s and math.tointeger(tonumber(s))
  return s or mem:col("ts_ns"):min() or 0
end

-- the step number of each value of ts (a column), missing outside steps
local function step_of(p, ts)
  local st = p.tables.steps
  if not st or st:nrows() == 0 or not st:has("start_ns") or not st:has("duration_ns") then return nil end
  st = st:take(st:order("start_ns"))
  local w = I.first_window(st:col("start_ns"), st:col("start_ns") + st:col("duration_ns"), ts, ts)
  return w:map(st:col("step"):to_lua()), st      -- window row -> its step number (few steps)
end

-- allocations paired with the next event of the same address when that is
-- a free (one sort, then each row against the next)
local function pair(mem)
  local keys = { "device_type", "device", "addr", "ts_ns" }
  local s = mem:filter(mem:col("addr"):present())
  s = s:take(s:order("device_type", "device", "addr", "ts_ns"))
  local n = s:nrows()
  local allocs = s:filter(s:col("bytes"):gt(0))
  if n < 2 then return allocs:with("release_ts_ns", allocs:col("ts_ns") * 0):filter(allocs:col("ts_ns"):lt(0)), 0,
      s:col("bytes"):count { where = s:col("bytes"):lt(0) } end
  local a, b = s:slice(1, n - 1), s:slice(2, n)
  local P = a:col("bytes"):gt(0) & b:col("bytes"):lt(0) & a:col("addr"):eq(b:col("addr"))
    & a:col("device"):fill(-2):eq(b:col("device"):fill(-2)) & a:col("device_type"):fill(-2):eq(b:col("device_type"):fill(-2))
  local pr = a:filter(P, keys):with("release_ts_ns", b:filter(P):col("ts_ns"))
  local out = allocs:join(pr, { on = keys, how = "left" })
  local frees = s:col("bytes"):count { where = s:col("bytes"):lt(0) }
  return out, pr:nrows(), frees - pr:nrows()
end

-- The operators that stay in tb-plugin's tree: an operator whose only
-- child operator has its name is one call with it (torch.autograd.profiler's
-- EventList._remove_dup_nodes, which the plugin follows): the child goes,
-- its events count for the parent (same name), and it is not a call.
local kept_cache = setmetatable({}, { __mode = "k" })
kept_ops = function(ops)
  if kept_cache[ops] then return kept_cache[ops] end
  local par = I.parents(ops, { by = { "pid", "tid" } })
  local with_parent = ops:select("name"):with("parent", par)
  local nchild = with_parent:filter(par:present()):group_by("parent"):agg { { "n", "count" } }
  local only = nchild:filter(nchild:col("n"):eq(1)):col("parent")      -- parents with one child
  local has_one = par:isin(only)
  -- the parent's name, for the children of one-child parents
  local names = ops:take(par:fill(1)):col("name")
  local merged = has_one & names:eq(ops:col("name")) & par:present()
  local kept = ~merged
  kept_cache[ops] = kept
  return kept
end

-- tb-plugin's per-operator table for the events in mask (one device)
local function operators(p, mem, mask, label)
  local ops = p.tables.cpu_ops
  if not ops or ops:nrows() == 0 or not mem:has("op_row") then return nil end
  local m = mem:filter(mask & is_op(mem:col("op")))
  if m:nrows() == 0 then return nil end
  local alloc = m:col("bytes"):max_with(0)
  m = m:select("op", "ts_ns", "bytes", "pid", "tid"):with("alloc", alloc):with("acount", alloc:min_with(1))
  local self = m:group_by("op"):agg { { "self_increase_bytes", "sum", "bytes" }, { "self_alloc_bytes", "sum", "alloc" },
                                     { "self_alloc_count", "sum", "acount" } }
  local kept = kept_ops(ops)
  local incl = I.sum_within(ops, m, { by = { "pid", "tid" }, values = { "bytes", "alloc", "acount" }, where = kept })
  local inst = ops:select("name"):with("increase_bytes", incl:col("bytes")):with("alloc_bytes", incl:col("alloc"))
    :with("alloc_count", incl:col("acount"))
  inst = inst:filter(is_op(inst:col("name")) & kept)
  local byname = inst:group_by("name"):agg { { "increase_bytes", "sum", "increase_bytes" },
      { "alloc_bytes", "sum", "alloc_bytes" },
                                           { "alloc_count", "sum", "alloc_count" }, { "calls", "count" } }
  local t = byname:join(self, { on = { { "name", "op" } }, how = "left" })
  for _, c in ipairs { "self_increase_bytes", "self_alloc_bytes", "self_alloc_count" } do t = t:with(c,
      t:col(c):fill(0)) end
  t = t:with("device", t:col("name"):map(function() return label end))
  t = t:select("device", "name", "self_increase_bytes", "self_alloc_bytes", "self_alloc_count", "increase_bytes",
      "alloc_bytes", "alloc_count", "calls")
  local any = t:col("self_increase_bytes"):ne(0) | t:col("self_alloc_bytes"):ne(0) | t:col("self_alloc_count"):ne(0)
    | t:col("increase_bytes"):ne(0) | t:col("alloc_bytes"):ne(0) | t:col("alloc_count"):ne(0)
  t = t:filter(any)
  return t:take(t:order("-alloc_bytes", "-increase_bytes", "name"))
end

-- least-squares slope of y over x (arrays), nil for fewer than 2 points
local function slope(xs, ys)
  local n = #xs
  if n < 2 then return nil end
  local mx, my = 0, 0
  for i = 1, n do mx = mx + xs[i]; my = my + ys[i] end
  mx, my = mx / n, my / n
  local sxy, sxx = 0, 0
  for i = 1, n do sxy = sxy + (xs[i] - mx) * (ys[i] - my); sxx = sxx + (xs[i] - mx) ^ 2 end
  return sxx > 0 and sxy / sxx or nil
end

local function capacity_of(p, dtype, dev)
  if dtype == 0 then return nil end
  local dv = p.tables.devices
  if dv and dv:has("id") and dv:has("memory_bytes") then
    local r = dv:filter(dv:col("id"):eq(dev))
    if r:nrows() > 0 and r:get(1, "memory_bytes") then return r:get(1, "memory_bytes"),
        "the trace's deviceProperties" end
    if r:nrows() > 0 and r:has("name") and r:get(1, "name") then
      local m = gpus.model(r:get(1, "name"))
      if m and m.dram_bytes then return m.dram_bytes, "perflab.gpus: " .. m.id end
    end
  end
  return nil
end

-- PyTorch's raw memory timeline: cumulative bytes per category over the
-- distinct timestamps (HTA MemoryAnalysis)
local function categories(p, mem, report)
  -- pre-existing tensors are a point of their own at the first time (HTA)
  local bucket = mem:col("ts_ns") * 2 + mem:col("action"):ne("preexisting"):map { [true] = 1, [false] = 0 }
  local m = mem:select("bytes", "category"):with("bucket", bucket)
  local w = m:pivot { index = "bucket", columns = "category", values = "bytes", agg = "sum" }
  w = w:take(w:order("bucket"))
  local order = { "parameter", "optimizer state", "input", "temporary", "activation", "gradient", "autograd detail",
      "unknown" }
  local cols = { "ts_ns" }
  w = w:with("ts_ns", w:col("bucket") // 2)
  for _, c in ipairs(order) do
    if w:has(c) then
      w = w:with(c, w:col(c):fill(0):cumsum())
      cols[#cols + 1] = c
    end
  end
  w = w:select(cols)
  report:table("categories", w,
      { title = "bytes live per category after each timestamp (PyTorch raw memory timeline; HTA MemoryAnalysis)" })
  return w, cols
end

--- memory: per device, allocated and reserved bytes over time as step
-- lines (the `curve` table), the peak marked (`peaks`), profiler steps
-- shaded (the curve's step column); at most max_points points a device
-- (evenly spaced rows, the peak always kept).
local function figure(report, max_points)
  local curve, peaks = report.tables.curve, report.tables.peaks
  if not curve or curve:nrows() == 0 then return end
  max_points = max_points or 1500
  local devs = curve:unique("device")
  for _, dev in ipairs(devs) do
    local c = curve:filter(curve:col("device"):eq(dev))
    local pk = peaks and peaks:filter(peaks:col("device"):eq(dev)):row(1) or nil
    local n = c:nrows()
    if n > max_points then
      local idx = {}
      local stride = n / max_points
      for k = 0, max_points - 1 do idx[#idx + 1] = math.floor(k * stride) + 1 end
      local sampled = c:take(idx)
      if pk then                          -- the peak's point, wherever the sampling fell
        local top = c:filter(c:col("ts_ns"):eq(pk.ts_ns) & c:col("allocated_bytes"):eq(pk.peak_bytes)):head(1)
        sampled = T.concat(sampled, top)
        sampled = sampled:take(sampled:order("ts_ns"))
      end
      c = sampled
    end
    local t, a, r = (c:col("since_start_ns") / 1e6):to_lua(), c:col("allocated_bytes"):to_lua(),
        c:col("reserved_bytes"):to_lua()
    local sa, sr = {}, {}
    for i = 1, #t do
      if i > 1 then
        sa[#sa + 1] = { t[i], a[i - 1] }
        if r[i - 1] then sr[#sr + 1] = { t[i], r[i - 1] } end
      end
      sa[#sa + 1] = { t[i], a[i] }      -- lines without markers: no hover text per point
      if r[i] then sr[#sr + 1] = { t[i], r[i] } end
    end
    local series = { { name = "allocated", points = sa, marker = false } }
    if #sr > 0 then series[2] = { name = "reserved", points = sr, marker = false } end
    local regions, vlines = {}, {}
    if c:has("step") and c:col("step"):count() > 0 then
      local cs = curve:filter(curve:col("device"):eq(dev) & curve:col("step"):present())
      local g = cs:group_by("step"):agg { { "t0", "min", "since_start_ns" }, { "t1", "max", "since_start_ns" } }
      g = g:take(g:order("step"))
      local k = 0
      for _, st in g:rows() do
        k = k + 1
        regions[#regions + 1] = { x0 = st.t0 / 1e6, x1 = st.t1 / 1e6, y0 = 0,
            y1 = (pk and pk.reserved_bytes or pk and pk.peak_bytes) or a[1],
          label = "step " .. st.step, fill = k % 2 == 1 and "#dde8f0" or "#f0e6d6" }
      end
    end
    if pk then
      vlines[1] = { x = pk.time_ms, label = string.format("peak %s%s", units.bytes(pk.peak_bytes),
          pk.op and (" in " .. chart.short(pk.op, 30)) or "") }
      series[#series + 1] = { name = "peak", line = false, points = { { pk.time_ms, pk.peak_bytes, r = 6,
        title = string.format("peak %s at %s ms in %s", units.bytes(pk.peak_bytes), units.sig(pk.time_ms, 6),
            pk.op or "no operator") } } }
    end
    report:figure("memory_" .. tostring(dev):gsub("[^%w]", "_") .. ".svg", chart.plot {
      title = "Memory over time: " .. dev, subtitle = n > max_points and string.format("%d of %d points", #t, n) or nil,
      series = series, regions = regions, vlines = vlines, x_label = "time from trace start (ms)", y_label = "bytes",
      y_format = function(v) return units.bytes(v) end,
    }, { title = "allocated and reserved memory of " .. dev .. ", peak marked, steps shaded" })
  end
end

return {
  name = "memory",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "memory over time per device, the peak and what held it, per-operator allocations (tb-plugin Memory View), alloc/free pairs, growth",
  needs = { "memory_events" },
  tables = { "memory_events", "cpu_ops", "steps", "devices" },
  options = {
    top = { type = "integer", default = 20, help = "live allocations listed per device at its peak" },
    capacity_pct = { type = "number", default = 90,
        help = "warn when the peak is above this share of the device's memory" },
    fragmentation_pct = { type = "number", default = 30,
      help = "warn when reserved exceeds allocated by more than this share of reserved at the peak" },
    fragmentation_min_bytes = { type = "number", default = 256 * 1024 * 1024,
      help = "... and by at least this many bytes" },
    growth_min_bytes = { type = "number", default = 1024 * 1024, help = "growth per step below this is not reported" },
  },
  run = function(inputs, opts, report)
    local all = { curve = {}, peaks = {}, at_peak = {}, operators = {}, allocations = {}, steps = {} }
    for _, p in ipairs(inputs) do
      local mem = p.tables.memory_events
      if not mem or mem:nrows() == 0 then
        report:note(string.format("%s: no memory events: record with torch.profiler.profile(profile_memory=True)",
            p.source))
        goto next
      end
      if mem:has("category") then
        categories(p, mem, report)
        goto next
      end
      do
        local t0 = trace_start(p, mem)
        local ts = mem:col("ts_ns")
        local step = step_of(p, ts)
        if step then mem = mem:with("step", step) end
        local key = mem:col("device_type"):fill(-1) * 1000000 + mem:col("device"):fill(-1)
        mem = mem:with("device_label", key:map(function(k)
          local dt = k // 1000000
          local dv = k - dt * 1000000
          if dv > 500000 then dt, dv = dt + 1, dv - 1000000 end
          return dev_label(dt >= 0 and dt or nil, dv)
        end))
        local devs = mem:group_by("device_type", "device"):agg { { "n", "count" } }
        devs = devs:take(devs:order("device_type", "device"))
        local has_total = mem:has("total_allocated_bytes") and mem:col("total_allocated_bytes"):count() > 0
        if not has_total then
          report:note(string.format("%s: the memory events have no 'Total Allocated' (PyTorch < 1.10): per-operator statistics only; the curve and the peak need Total Allocated", p.source))
        end
        local pairs_t, npaired, unmatched_frees = pair(mem)
        for _, d in devs:rows() do
          local label = dev_label(d.device_type, d.device)
          local dm = mem:col("device_type"):fill(-2):eq(d.device_type or -2) & mem:col("device"):fill(-2):eq(d.device
              or -2)
          local ot = operators(p, mem, dm, label)
          if ot then all.operators[#all.operators + 1] = ot end
          local pm = pairs_t:col("device_type"):fill(-2):eq(d.device_type
              or -2) & pairs_t:col("device"):fill(-2):eq(d.device or -2)
          local pd = pairs_t:filter(pm)
          local life = pd:col("release_ts_ns") - pd:col("ts_ns")
          local at = pd:select(pd:has("step") and { "addr", "bytes", "ts_ns", "release_ts_ns", "op", "step" }
            or { "addr", "bytes", "ts_ns", "release_ts_ns", "op" })
          at = at:with("device", pd:col("device_label")):with("lifetime_ns", life):rename("ts_ns", "alloc_ts_ns")
          at = at:select(pd:has("step") and { "device", "addr", "bytes", "alloc_ts_ns", "release_ts_ns", "lifetime_ns",
              "op", "step" }
            or { "device", "addr", "bytes", "alloc_ts_ns", "release_ts_ns", "lifetime_ns", "op" })
          all.allocations[#all.allocations + 1] = at
          if has_total then
            local cm = dm & mem:col("addr"):present() & mem:col("total_allocated_bytes"):present()
            local c = mem:filter(cm)
            if c:nrows() > 0 then
              local curve = c:select(c:has("step") and { "ts_ns", "total_allocated_bytes", "total_reserved_bytes",
                  "step" }
                or { "ts_ns", "total_allocated_bytes", "total_reserved_bytes" })
              curve = curve:with("device", c:col("device_label")):with("since_start_ns", c:col("ts_ns") - t0)
                :rename("total_allocated_bytes", "allocated_bytes"):rename("total_reserved_bytes", "reserved_bytes")
              curve = curve:select(c:has("step") and { "device", "ts_ns", "since_start_ns", "allocated_bytes",
                  "reserved_bytes", "step" }
                or { "device", "ts_ns", "since_start_ns", "allocated_bytes", "reserved_bytes" })
              all.curve[#all.curve + 1] = curve
              local top = c:top(1, "total_allocated_bytes")
              local pk = top:row(1)
              local cap, capsrc = capacity_of(p, d.device_type, d.device)
              local peak = { device = label, peak_bytes = pk.total_allocated_bytes,
                  reserved_bytes = pk.total_reserved_bytes,
                ts_ns = pk.ts_ns, time_ms = (pk.ts_ns - t0) / 1e6, op = pk.op, step = pk.step, capacity_bytes = cap,
                capacity_pct = cap and 100 * pk.total_allocated_bytes / cap or nil }
              all.peaks[#all.peaks + 1] = peak
              -- what held it: live at the peak
              local rel = at:col("release_ts_ns")
              local live = at:filter(at:col("alloc_ts_ns"):le(pk.ts_ns) & (rel:gt(pk.ts_ns) | ~rel:present()))
              live = live:take(live:order("-bytes", "alloc_ts_ns")):head(opts.top)
              all.at_peak[#all.at_peak + 1] = live:select(live:has("step")
                  and { "device", "bytes", "alloc_ts_ns", "addr", "op", "step" }
                or { "device", "bytes", "alloc_ts_ns", "addr", "op" })
              if cap and peak.capacity_pct > opts.capacity_pct then
                report:finding { severity = "warn", rule = "memory.capacity", subject = label,
                  message = string.format("%s: peak allocated %s is %.1f %% of the device's %s (at %s, in %s)", label,
                    units.bytes(pk.total_allocated_bytes), peak.capacity_pct, units.bytes(cap),
                        units.ns(pk.ts_ns - t0), pk.op or "no operator"),
                  evidence = { peak_bytes = pk.total_allocated_bytes, capacity_bytes = cap,
                      capacity_pct = peak.capacity_pct,
                    threshold_pct = opts.capacity_pct, capacity_source = capsrc,
                        formula = "max Total Allocated / device memory" } }
              elseif cap then
                report:finding { severity = "info", rule = "memory.capacity", subject = label,
                  message = string.format("%s: peak allocated %s, %.1f %% of the device's %s", label,
                    units.bytes(pk.total_allocated_bytes), peak.capacity_pct, units.bytes(cap)),
                  evidence = { peak_bytes = pk.total_allocated_bytes, capacity_bytes = cap,
                      capacity_pct = peak.capacity_pct,
                    threshold_pct = opts.capacity_pct, capacity_source = capsrc } }
              end
              local res = pk.total_reserved_bytes
              if res and res > 0 then
                local gap = res - pk.total_allocated_bytes
                if gap > opts.fragmentation_min_bytes and 100 * gap / res > opts.fragmentation_pct then
                  report:finding { severity = "warn", rule = "memory.fragmentation", subject = label,
                    message = string.format("%s: at the peak the caching allocator reserves %s but only %s is allocated (%.1f %% unused): "
                      .. "fragmentation; try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", label, units.bytes(res),
                      units.bytes(pk.total_allocated_bytes), 100 * gap / res),
                    evidence = { reserved_bytes = res, allocated_bytes = pk.total_allocated_bytes, unused_bytes = gap,
                      threshold_pct = opts.fragmentation_pct, threshold_bytes = opts.fragmentation_min_bytes,
                      formula = "(reserved - allocated) / reserved at the peak" } }
                end
              end
              -- growth across steps: allocated at the end of each step
              if c:has("step") then
                local g = c:filter(c:col("step"):present()):group_by("step"):agg {
                  { "end_allocated_bytes", "last", "total_allocated_bytes" },
                      { "max_allocated_bytes", "max", "total_allocated_bytes" } }
                g = g:take(g:order("step"))
                all.steps[#all.steps + 1] = g:with("device", g:col("step"):map(function() return label end))
                  :select("device", "step", "end_allocated_bytes", "max_allocated_bytes")
                local xs, ys = g:col("step"):to_lua(), g:col("end_allocated_bytes"):to_lua()
                local mono = #xs >= 3
                for i = 2, #ys do if ys[i] < ys[i - 1] then mono = false end end
                local sl = slope(xs, ys)
                if mono and sl and sl >= opts.growth_min_bytes then
                  local nf = at:col("release_ts_ns"):count() < at:nrows()
                      and (at:nrows() - at:col("release_ts_ns"):count()) or 0
                  report:finding { severity = "warn", rule = "memory.growth", subject = label,
                    message = string.format("%s: allocated memory grows %s per step over %d steps (%s -> %s); %d allocations are never freed in the trace: a leak candidate",
                      label, units.bytes(sl), #xs, units.bytes(ys[1]), units.bytes(ys[#ys]), nf),
                    evidence = { slope_bytes_per_step = sl, steps = #xs, first_bytes = ys[1], last_bytes = ys[#ys],
                        never_freed = nf,
                      threshold_bytes = opts.growth_min_bytes,
                          formula = "least-squares slope of allocated bytes at each step's end" } }
                end
              end
            end
          end
          local nf = at:nrows() - at:col("release_ts_ns"):count()
          if nf > 0 then
            report:note(string.format("%s: %d allocations (%s) are not freed within the trace (listed in `allocations` with no release); "
              .. "not a leak unless memory grows from step to step", label, nf,
              units.bytes(at:col("bytes"):sum { where = ~at:col("release_ts_ns"):present() })))
          end
        end
        if unmatched_frees > 0 then
          report:note(string.format("%s: %d frees of blocks allocated before the trace began", p.source,
              unmatched_frees))
        end
      end
      ::next::
    end
    local function put(name, list, title)
      if #list > 0 then report:table(name, T.concat(table.unpack(list)), { title = title }) end
    end
    put("peaks", { #all.peaks > 0 and T.from_rows(all.peaks, { "device", "peak_bytes", "reserved_bytes", "ts_ns",
        "time_ms", "op", "step",
      "capacity_bytes", "capacity_pct" }) or nil },
          "peak allocated memory per device (max Total Allocated), when, in which operator")
    put("at_peak", all.at_peak,
        "allocations live at each device's peak, largest first, with the operator that made each")
    put("operators", all.operators,
        "per operator and device (tb-plugin Memory View): self increase, self allocation size and count, the same including children, calls")
    put("curve", all.curve, "allocated and reserved bytes after each event, per device")
    put("allocations", all.allocations,
        "allocations paired with the next free of the same address (release missing: not freed within the trace)")
    put("steps", all.steps, "allocated bytes per profiler step")
    figure(report)
  end,
}

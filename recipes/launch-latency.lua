--- launch-latency: how long kernels wait between the host's launch call and
-- their start on the GPU, which kernels cost more to launch than to run,
-- how deep each stream's queue gets, and how much communication overlaps
-- computation (HTA's cuda_kernel_analysis and queue-length analyses).
--
-- Each kernel is joined to the runtime call that launched it by correlation
-- id.  launch delay = GPU start - end of the runtime call (negative values
-- mean the host and device clocks disagree; they are kept).
--
-- Tables (part of the API):
--   launch_delay  (device, stream, launches, mean_ns, p50_ns, p90_ns, p99_ns,
--                  max_ns, outliers) -- per stream and a row "all" (stream
--                  missing); outliers: delay > launch_delay_outlier_ns (100 us)
--   outliers      the worst launches: kernel, device, stream, delay_ns,
--                  runtime, runtime_ns, start_ns, duration_ns, correlation
--                  (start, duration and correlation join back to the kernels)
--   runtime_calls (runtime, calls, total_ns, p50_ns, max_ns, over_threshold)
--                  -- over_threshold: calls longer than runtime_outlier_ns (50 us)
--   short_kernels (kernel, calls, short_calls, kernel_ns, launch_ns) --
--                  kernels whose GPU time is below the runtime call's time
--   queue_length  (device, stream, max, mean, at_ns, flagged) -- launched
--                  but unfinished ops on the stream (+1 at the runtime
--                  call's start, -1 at the op's end); mean is time-weighted
--                  over [first launch, last end]; flagged when max >= 1024
--   queue_series  (device, stream, window, start_ns, max) -- the maximum
--                  queue length in each of `windows` equal time windows
--   overlap       (device, comm_ns, comp_ns, overlap_ns, overlap_pct) -- only
--                  when communication kernels (perflab.comm: nccl*, multimem_*, ...) exist: overlap_pct =
--                  |comp ∩ comm| / |comm|
local perflab = require "perflab"
local T = perflab.table
local units = perflab.units
local IV = require "perflab.timeline"
local D = require "perflab.timeline_data"
local ranks = require "perflab.ranks"

local function quantiles(vals)
  if #vals == 0 then return {} end
  local t = T.from_columns({ v = vals }, { "v" })
  local c = t:col("v")
  local q = c:quantile({ 0.5, 0.9, 0.99 })
  return { mean = c:mean(), p50 = q[1], p90 = q[2], p99 = q[3], max = c:max() }
end

local is_comm = require("perflab.comm").is_kernel

--- Queue length over time for one stream: returns max, time-weighted mean,
-- the first time the max was reached, and per-window maxima.
local function queue(ops, windows)
  local pt, pd, k = {}, {}, 0
  for _, o in ipairs(ops) do
    k = k + 1; pt[k] = o.rt_s or o.s; pd[k] = 1
    k = k + 1; pt[k] = o.e; pd[k] = -1
  end
  -- at equal times, ends (-1) before launches (+1)
  local order = IV.order(k, { t = pt, d = pd }, { "t", "d" })
  local ts, ds = {}, {}             -- the points in order: time, +1 / -1
  for i = 1, k do local j = order[i]; ts[i] = pt[j]; ds[i] = pd[j] end
  local lo, hi = ts[1], ts[k]
  local q, qmax, at, area = 0, 0, lo, 0
  local w = {}
  local span = hi - lo
  -- window k covers [lo + span*(k-1)//windows, lo + span*k//windows): integer
  -- arithmetic, so epoch-nanosecond bounds stay exact
  local function wstart(k) return lo + (span * (k - 1)) // windows end
  local function win(t)
    if span <= 0 then return 1 end
    local k = ((t - lo) * windows) // span + 1
    if k > windows then k = windows end
    while k > 1 and t < wstart(k) do k = k - 1 end
    while k < windows and t >= wstart(k + 1) do k = k + 1 end
    return k
  end
  for i = 1, k do
    local t = ts[i]
    if i > 1 then area = area + q * (t - ts[i - 1]) end
    q = q + ds[i]
    if q > qmax then qmax = q; at = t end
    local wk = win(t)
    if not w[wk] or q > w[wk] then w[wk] = q end
  end
  -- windows with no event keep the level carried in
  local level = 0
  local series = {}
  local j = 1
  for wk = 1, windows do
    local m = w[wk]
    -- the level entering window wk is the queue after the last event before it
    local start = wstart(wk)
    while j <= k and ts[j] < start do
      level = level + ds[j]; j = j + 1
    end
    if not m or level > m then m = level end
    series[wk] = { start = start, max = m }
  end
  return qmax, hi > lo and area / (hi - lo) or 0, at, series
end

return {
  name = "launch-latency",
  summary = "launch delay (GPU start - CPU launch end) per stream, outliers, kernels cheaper than their launch, queue length, comm/compute overlap (HTA)",
  needs = { "kernels.start_ns" },   -- a timeline: kernels with start times
  tables = { "kernels", "runtime", "memcpy", "memset" },   -- all it reads (perflab.timeline.device_ops)
  options = {
    top = { type = "integer", min = 0, default = 10, help = "how many worst launches to list" },
    windows = { type = "integer", min = 1, max = 10000, default = 20, help = "time windows in queue_series" },
    launch_delay_outlier_ns = { type = "number", default = D.hta.launch_delay_outlier_ns,
                                help = "a launch delay above this is an outlier (ns)" },
    runtime_outlier_ns = { type = "number", default = D.hta.runtime_outlier_ns,
                           help = "a runtime call longer than this is an outlier (ns)" },
  },
  run = function(inputs, opts, report)
    local ld_rows, out_rows, rt_rows, short_rows, q_rows, qs_rows, ov_rows = {}, {}, {}, {}, {}, {}, {}
    local lists = { ld_rows, out_rows, rt_rows, short_rows, q_rows, qs_rows, ov_rows }
    -- several ranks of one job: every table gets a leading rank column
    local per_rank = ranks.of_job(inputs)
    local C = function(cols) return ranks.columns(per_rank, cols) end
    for _, p in ipairs(inputs) do
      local marks = {}
      for i, l in ipairs(lists) do marks[i] = #l end
      local all = IV.device_ops(p)      -- kernels, memcpy, memset: by start
      local kern = {}
      for _, o in ipairs(all) do if o.kind == "kernel" then kern[#kern + 1] = o end end
      local all_delays, unmatched = {}, 0
      local launched = {}
      for _, o in ipairs(kern) do
        if o.rt_e then
          o.delay = o.s - o.rt_e
          all_delays[#all_delays + 1] = o.delay
          launched[#launched + 1] = o
        else
          unmatched = unmatched + 1
        end
      end
      -- per stream delay distribution
      local total_out = 0
      for _, g in ipairs(IV.by_stream(launched)) do
        local d = {}
        local nout = 0
        for i, o in ipairs(g.ops) do
          d[i] = o.delay
          if o.delay > opts.launch_delay_outlier_ns then nout = nout + 1 end
        end
        total_out = total_out + nout
        local q = quantiles(d)
        ld_rows[#ld_rows + 1] = { device = g.device, stream = g.stream, launches = #d, mean_ns = q.mean, p50_ns = q.p50,
                                  p90_ns = q.p90, p99_ns = q.p99, max_ns = q.max, outliers = nout }
      end
      perflab.figures.launch_delay(report, all_delays, opts.launch_delay_outlier_ns, p.source,
        #inputs > 1 and ("launch_delay_" .. _ .. ".svg") or nil)   -- distribution of launch delay
      if #all_delays > 0 then
        local q = quantiles(all_delays)
        ld_rows[#ld_rows + 1] = { device = nil, stream = nil, launches = #all_delays, mean_ns = q.mean, p50_ns = q.p50,
                                  p90_ns = q.p90, p99_ns = q.p99, max_ns = q.max, outliers = total_out }
        if total_out > 0 then
          report:finding { severity = "warn", rule = "launch-latency.delay_outliers",
            message = string.format("%d of %d kernel launches waited more than %s between the launch call's end and "
              .. "the kernel's start (p50 %s, max %s): the stream was busy or blocked; see idle-time and queue_length",
              total_out, #all_delays, units.ns(opts.launch_delay_outlier_ns), units.ns(q.p50), units.ns(q.max)),
            evidence = { outliers = total_out, launches = #all_delays, threshold_ns = opts.launch_delay_outlier_ns,
                         p50_ns = q.p50, p99_ns = q.p99, max_ns = q.max, source = p.source,
                         formula = "delay = kernel start - (runtime start + runtime duration)" } }
        end
      end
      if unmatched > 0 then
        report:note(string.format("%s: %d kernels have no runtime call with their correlation id (no launch delay).",
          p.source, unmatched))
      end
      -- worst launches
      -- longest delay first, then earliest start, then device_ops order
      local dl, st = {}, {}
      for i, o in ipairs(launched) do dl[i] = o.delay; st[i] = o.s end
      local sorted = {}
      for i, j in ipairs(IV.order(#launched, { delay = dl, s = st }, { "-delay", "s" })) do sorted[i] = launched[j] end
      launched = sorted
      for i = 1, math.min(opts.top, #launched) do
        local o = launched[i]
        out_rows[#out_rows + 1] = { kernel = o.name, device = o.device, stream = o.stream, delay_ns = o.delay,
                                    runtime = o.rt_name, runtime_ns = o.rt_e - o.rt_s, start_ns = o.s,
                                    duration_ns = o.dur, correlation = o.corr }
      end
      -- runtime calls
      local rt = p.tables.runtime
      if rt and rt:nrows() > 0 then
        local g = rt:group_by("name"):agg { { "calls", "count" }, { "total_ns", "sum", "duration_ns" },
          { "p50_ns", "quantile", "duration_ns", 0.5 }, { "max_ns", "max", "duration_ns" } }
        local over = {}
        local names, durs = rt:col("name"):to_lua(), rt:col("duration_ns"):to_lua()
        local nover = 0
        for i = 1, rt:nrows() do
          if durs[i] and durs[i] > opts.runtime_outlier_ns then
            over[names[i]] = (over[names[i]] or 0) + 1; nover = nover + 1
          end
        end
        for _, r in g:rows() do
          rt_rows[#rt_rows + 1] = { runtime = r.name, calls = r.calls, total_ns = r.total_ns, p50_ns = r.p50_ns,
                                    max_ns = r.max_ns, over_threshold = over[r.name] or 0 }
        end
        if nover > 0 then
          local worst, wn = nil, 0
          for n, c in pairs(over) do if c > wn or (c == wn and n < worst) then worst, wn = n, c end end
          report:finding { severity = "info", rule = "launch-latency.runtime_outliers", subject = worst,
            message = string.format("%d runtime calls took longer than %s (most often %s, %d times): "
              .. "synchronising calls or a blocked launch queue stall the host",
              nover, units.ns(opts.runtime_outlier_ns), worst, wn),
            evidence = { calls = nover, threshold_ns = opts.runtime_outlier_ns, source = p.source } }
        end
      end
      -- kernels shorter than their launch
      local sk, sorder = {}, {}
      local nshort, nlaunch = 0, 0
      for _, o in ipairs(launched) do
        local e = sk[o.name]
        if not e then e = { kernel = o.name, calls = 0, short_calls = 0, kernel_ns = 0, launch_ns = 0 }; sk[o.name] = e; sorder[#sorder + 1] = e end
        e.calls = e.calls + 1
        nlaunch = nlaunch + 1
        if o.dur < (o.rt_e - o.rt_s) then
          e.short_calls = e.short_calls + 1
          e.kernel_ns = e.kernel_ns + o.dur
          e.launch_ns = e.launch_ns + (o.rt_e - o.rt_s)
          nshort = nshort + 1
        end
      end
      local with_short = {}
      for _, e in ipairs(sorder) do if e.short_calls > 0 then with_short[#with_short + 1] = e end end
      table.sort(with_short, function(a, b)
        if a.short_calls ~= b.short_calls then return a.short_calls > b.short_calls end
        return a.kernel < b.kernel
      end)
      for i, e in ipairs(with_short) do
        if opts.top <= 0 or i <= opts.top then short_rows[#short_rows + 1] = e end
      end
      if nshort > 0 then
        report:finding { severity = nshort * 2 > nlaunch and "warn" or "info", rule = "launch-latency.short_kernels",
          subject = with_short[1].kernel,
          message = string.format("%d of %d kernel launches ran for less time on the GPU than their launch call took "
            .. "on the host (%d kernels): launch overhead dominates; fuse them or capture them in a CUDA graph",
            nshort, nlaunch, #with_short),
          evidence = { short_launches = nshort, launches = nlaunch, kernels = #with_short, source = p.source,
                       formula = "kernel duration < runtime call duration" } }
      end
      -- queue length per stream (all device ops)
      for _, g in ipairs(IV.by_stream(all)) do
        local qmax, qmean, at, series = queue(g.ops, opts.windows)
        q_rows[#q_rows + 1] = { device = g.device, stream = g.stream, max = qmax, mean = qmean, at_ns = at,
                                flagged = qmax >= D.hta.queue_length_flag }
        for k, s in ipairs(series) do
          qs_rows[#qs_rows + 1] = { device = g.device, stream = g.stream, window = k, start_ns = s.start, max = s.max }
        end
        if qmax >= D.hta.queue_length_flag then
          report:finding { severity = "warn", rule = "launch-latency.queue_full",
            subject = string.format("device %s stream %s", g.device, g.stream),
            message = string.format("device %s stream %s had %d launched-but-unfinished ops: at %d the launch "
              .. "queue is full and the host blocks", g.device, g.stream, qmax, D.hta.queue_length_flag),
            evidence = { max = qmax, threshold = D.hta.queue_length_flag, at_ns = at, source = p.source } }
        end
      end
      -- communication / computation overlap
      local per = {}
      local dorder = {}
      for _, o in ipairs(kern) do
        local d = per[o.device]
        if not d then d = { cs = {}, ce = {}, ks = {}, ke = {} }; per[o.device] = d; dorder[#dorder + 1] = o.device end
        if is_comm(o.name) then d.cs[#d.cs + 1] = o.s; d.ce[#d.ce + 1] = o.e
        else d.ks[#d.ks + 1] = o.s; d.ke[#d.ke + 1] = o.e end
      end
      table.sort(dorder)
      for _, dev in ipairs(dorder) do
        local d = per[dev]
        if #d.cs > 0 then
          local comm, comp = IV.set(d.cs, d.ce), IV.set(d.ks, d.ke)
          local ov = IV.length(IV.intersect(comm, comp))
          local cl = IV.length(comm)
          local row = { device = dev, comm_ns = cl, comp_ns = IV.length(comp), overlap_ns = ov,
                        overlap_pct = cl > 0 and 100 * ov / cl or nil }
          ov_rows[#ov_rows + 1] = row
          if row.overlap_pct and row.overlap_pct < 50 then
            report:finding { severity = "info", rule = "launch-latency.comm_overlap", subject = (per_rank and ("rank " .. p.rank .. " ") or "") .. "device " .. dev,
              message = (per_rank and ("rank " .. p.rank .. ": ") or "") .. string.format("device %s: only %.1f %% of communication kernel time (%s) overlaps computation",
                dev, row.overlap_pct, units.ns(cl)),
              evidence = { overlap_pct = row.overlap_pct, comm_ns = cl, overlap_ns = ov, source = p.source,
                           formula = "|comp ∩ comm| / |comm|" } }
          end
        end
      end
      for i, l in ipairs(lists) do ranks.tag(per_rank, p.rank, l, marks[i]) end
    end
    report:table("launch_delay", T.from_rows(ld_rows, C({ "device", "stream", "launches", "mean_ns", "p50_ns", "p90_ns",
      "p99_ns", "max_ns", "outliers" }), "launch_delay"),
      { title = "launch delay = kernel start - launch call end (ns); last row: all streams" })
    report:table("outliers", T.from_rows(out_rows, C({ "kernel", "device", "stream", "delay_ns", "runtime", "runtime_ns",
      "start_ns", "duration_ns", "correlation" }), "outliers"), { title = string.format("the %d longest launch delays", opts.top) })
    report:table("runtime_calls", T.from_rows(rt_rows, C({ "runtime", "calls", "total_ns", "p50_ns", "max_ns",
      "over_threshold" }), "runtime_calls"):sort_by("-total_ns", "runtime"),
      { title = string.format("runtime API calls (over_threshold: longer than %s)", units.ns(opts.runtime_outlier_ns)) })
    report:table("short_kernels", T.from_rows(short_rows, C({ "kernel", "calls", "short_calls", "kernel_ns", "launch_ns" }),
      "short_kernels"), { title = string.format("kernels whose GPU time is below their launch call's time (short_calls of calls; top %d by short calls)", opts.top) })
    report:table("queue_length", T.from_rows(q_rows, C({ "device", "stream", "max", "mean", "at_ns", "flagged" }),
      "queue_length"), { title = "launched but unfinished ops per stream" })
    report:table("queue_series", T.from_rows(qs_rows, C({ "device", "stream", "window", "start_ns", "max" }),
      "queue_series"), { title = "maximum queue length per time window" })
    if #ov_rows > 0 then
      report:table("overlap", T.from_rows(ov_rows, C({ "device", "comm_ns", "comp_ns", "overlap_ns", "overlap_pct" }),
        "overlap"), { title = "communication kernels overlapping computation kernels" })
    end
  end,
}

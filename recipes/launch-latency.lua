--- launch-latency: how long kernels wait between the host's launch call and
-- their start on the GPU, which kernels cost more to launch than to run,
-- how deep each stream's queue gets, and how much communication overlaps
-- computation (HTA's cuda_kernel_analysis and queue-length analyses).
--
-- Each kernel is joined to the runtime call that launched it by correlation
-- id.  launch delay = GPU start - end of the runtime call (negative values
-- mean the host and device clocks disagree; they are kept).  A graph replay
-- (perflab.graphs: the kernels sharing a cudaGraphLaunch's correlation) is
-- one launch: its launch call against its first kernel; its other kernels
-- are graph nodes, neither launches nor "short kernels".
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
local I = perflab.intervals
local D = require "perflab.timeline_data"
local ranks = require "perflab.ranks"
local graphs = require "perflab.graphs"

-- (each quantile by selection, not a sort of the column: the same values)
local function quantiles(c)
  return { mean = c:mean(), p50 = c:quantile(0.5), p90 = c:quantile(0.9), p99 = c:quantile(0.99), max = c:max() }
end

local is_comm = require("perflab.comm").is_kernel
local chart = require "perflab.chart"
local figures = require "perflab.figures"

--- Queue length over time for one stream: returns max, time-weighted mean,
-- the first time the max was reached, and per-window maxima.
-- The points (+1 at each launch: the runtime call's start, else the op's
-- start; -1 at each end) are built by the engine; the level, a running
-- sum over them in time order (at equal times, ends before launches), is
-- perflab.intervals.step_levels (C).
local function points(t, col, d)
  if t:nrows() == 0 then return nil end
  local p = t:select(col):rename(col, "t")
  return p:with("d", p:const(d))
end

local function queue(ops, windows)
  local has = ops:col("rt_start_ns"):present()
  local parts, each = {}, { points(ops, "end_ns", -1), points(ops:filter(has), "rt_start_ns", 1),
                            points(ops:filter(~has), "start_ns", 1) }
  for i = 1, 3 do parts[#parts + 1] = each[i] end
  local pts = T.concat(table.unpack(parts))
  local r = I.step_levels(pts:col("t"), pts:col("d"), { windows = windows })
  local series = {}
  for k = 1, windows do series[k] = { start = r.window_start[k], max = r.window_max[k] } end
  return r.max, r.mean, r.at, series
end

--- launch-latency: histogram of launch delays (log-spaced bins), the
-- outlier threshold and the p50 / p99 marked; bins above the threshold are
-- drawn as outliers.
local function figure(report, delays, threshold_ns, source, figname)
  if not delays then return end
  -- a column (or an array, made one): the engine finds the order
  -- statistics and counts the bins, no Lua pass over the launches
  if type(delays) == "table" then
    delays = T.from_columns({ d = delays }, { "d" }):col("d")
  end
  local n = delays:count()
  if n == 0 then return end
  -- the value at rank round(p * (n - 1)) + 1 of the sorted delays
  local function q(p) return delays:nth(math.max(1, math.min(n, math.floor(p * (n - 1) + 0.5) + 1))) end
  -- bins in µs: negative delays (clock skew) into the first bin
  local lo, hi = math.max(delays:min(), 1000), math.max(delays:max(), 2000)
  local l0, l1 = math.floor(math.log(lo, 10) * 4) / 4, math.ceil(math.log(hi, 10) * 4 + 1e-9) / 4
  if l1 <= l0 then l1 = l0 + 0.25 end
  local bins, edges = {}, {}
  for e = l0, l1 - 1e-9, 0.25 do
    bins[#bins + 1] = { 10 ^ e / 1e3, 10 ^ (e + 0.25) / 1e3, 0 }
    edges[#edges + 1] = 10 ^ e
  end
  edges[#edges + 1] = 10 ^ (l0 + 0.25 * #bins)
  -- quarter-decade bins [10^e, 10^(e + 1/4)); values below the first edge
  -- (negative delays) count in the first bin, above the last in the last
  local h = require("perflab.stats").histogram(delays, { edges = edges })
  for k, b in ipairs(bins) do b[3] = h.counts[k] end
  bins[1][3] = bins[1][3] + h.under
  bins[#bins][3] = bins[#bins][3] + h.over
  for _, b in ipairs(bins) do
    b.outlier = b[1] * 1e3 >= threshold_ns
    b.title = string.format("%s – %s: %d launch%s%s", units.ns(b[1] * 1e3, 3), units.ns(b[2] * 1e3, 3), b[3],
        b[3] == 1 and "" or "es",
      b.outlier and " (outliers)" or "")
  end
  local marks = { { x = q(0.5) / 1e3, label = "p50 " .. units.ns(q(0.5), 3) },
      { x = q(0.99) / 1e3, label = "p99 " .. units.ns(q(0.99), 3) } }
  if threshold_ns / 1e3 >= bins[1][1] and threshold_ns / 1e3 <= bins[#bins][2] then
    marks[#marks + 1] = { x = threshold_ns / 1e3, label = "outlier threshold " .. units.ns(threshold_ns, 3),
        colour = "#D55E00" }
  end
  for _, m in ipairs(marks) do m.x = math.max(m.x, bins[1][1]) end
  report:figure(figname or "launch_delay.svg", chart.histogram {
    title = "Launch delay distribution", subtitle = string.format("%d launches, kernel start - launch call end; %s", n,
        figures.base(source)),
    bins = bins, marks = marks, x_log = true, x_label = "launch delay (µs, log scale)", y_label = "launches",
    x_format = function(v) return units.ns(v * 1e3, 3) end, legend = { "launches", "outliers (above the threshold)" },
  }, { title = "distribution of launch delay, outliers marked" })
end

return {
  name = "launch-latency",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "launch delay (GPU start - CPU launch end) per stream, outliers, kernels cheaper than their launch, queue length, comm/compute overlap (HTA)",
  needs = { "kernels.start_ns" },   -- a timeline: kernels with start times
  tables = { "kernels", "runtime", "memcpy", "memset", "graph_trace" },   -- all it reads (perflab.timeline.device_ops)
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
      local dev_label = IV.device_label(p)   -- "0 (GPU name)" where the input names its devices
      -- (kind "graph": a whole replay nsys recorded as one row, a launch too)
      local kern = all:nrows() > 0 and all:filter(all:col("kind"):isin { "kernel", "graph" }) or all
      -- a graph replay is one launch: its launch call against the replay's
      -- first kernel, not each kernel against it (perflab.graphs)
      local nodes = 0
      if kern:nrows() > 0 then
        kern = graphs.mark(kern)
        local gr = kern:col("graph_replay")
        nodes = gr:count_true()
        if nodes > 0 then
          local first = kern:col("position"):eq(1)
          local nrep = first:count_true()
          report:note(string.format("%s: %d kernels are nodes of %d graph replays (cudaGraphLaunch, hipGraphLaunch, ...): "
            .. "each replay counts as one launch, its launch call against its first kernel; see the graphs recipe.",
            p.source, nodes, nrep))
          kern = kern:filter(~gr | first)
        end
      end
      local launched = kern:filter(kern:col("rt_end_ns"):present())
      local unmatched = kern:nrows() - launched:nrows()
      local delay = launched:col("start_ns") - launched:col("rt_end_ns")
      launched = launched:with("delay_ns", delay)
        :with("runtime_ns", launched:col("rt_end_ns") - launched:col("rt_start_ns"))
      local outlier = delay:gt(opts.launch_delay_outlier_ns)
      -- per stream delay distribution: one group-by (quantiles by selection
      -- per stream), the mean per stream as the column's mean under a mask
      local per = launched:group_by("device", "stream"):agg { { "launches", "count" },
        { "p50_ns", "quantile", "delay_ns", 0.5 }, { "p90_ns", "quantile", "delay_ns", 0.9 },
        { "p99_ns", "quantile", "delay_ns", 0.99 }, { "max_ns", "max", "delay_ns" },
            { "outliers", "count", where = outlier } }
      for _, g in per:sort_by("device", "stream"):rows() do
        g.mean_ns = delay:mean { where = launched:col("device"):eq(g.device) & launched:col("stream"):eq(g.stream) }
        ld_rows[#ld_rows + 1] = g
      end
      local nlaunch = launched:nrows()
      figure(report, delay, opts.launch_delay_outlier_ns, p.source,
        #inputs > 1 and ("launch_delay_" .. _ .. ".svg") or nil)   -- distribution of launch delay
      if nlaunch > 0 then
        local q = quantiles(delay)
        local total_out = delay:count { where = outlier }
        ld_rows[#ld_rows + 1] = { device = nil, stream = nil, launches = nlaunch, mean_ns = q.mean, p50_ns = q.p50,
                                  p90_ns = q.p90, p99_ns = q.p99, max_ns = q.max, outliers = total_out }
        if total_out > 0 then
          report:finding { severity = "warn", rule = "launch-latency.delay_outliers",
            message = string.format("%d of %d kernel launches waited more than %s between the launch call's end and "
              .. "the kernel's start (p50 %s, max %s): the stream was busy or blocked; see idle-time and queue_length",
              total_out, nlaunch, units.ns(opts.launch_delay_outlier_ns), units.ns(q.p50), units.ns(q.max)),
            evidence = { outliers = total_out, launches = nlaunch, threshold_ns = opts.launch_delay_outlier_ns,
                         p50_ns = q.p50, p99_ns = q.p99, max_ns = q.max, source = p.source,
                         formula = "delay = kernel start - (runtime start + runtime duration)" } }
        end
      end
      if unmatched > 0 then
        report:note(string.format("%s: %d kernels have no runtime call with their correlation id (no launch delay).",
          p.source, unmatched))
      end
      -- worst launches: longest delay first, then earliest start, then device_ops order
      -- (launched is in start order, ties in device_ops order: top keeps
      -- that order among equal delays, a top-k instead of a sort)
      local worst = opts.top > 0 and launched:top(opts.top, "delay_ns") or launched:head(0)
      for _, o in worst:rows() do
        out_rows[#out_rows + 1] = { kernel = o.name, device = o.device, stream = o.stream, delay_ns = o.delay_ns,
                                    runtime = o.rt_name, runtime_ns = o.runtime_ns, start_ns = o.start_ns,
                                    duration_ns = o.duration_ns, correlation = o.correlation }
      end
      -- runtime calls
      local rt = p.tables.runtime
      if rt and rt:nrows() > 0 then
        local over = rt:col("duration_ns"):gt(opts.runtime_outlier_ns)
        local g = rt:group_by("name"):agg { { "calls", "count" }, { "total_ns", "sum", "duration_ns" },
          { "p50_ns", "quantile", "duration_ns", 0.5 }, { "max_ns", "max", "duration_ns" },
          { "over_threshold", "count", where = over } }
        local nover, worst_rt, wn = 0, nil, 0
        for _, r in g:rows() do
          rt_rows[#rt_rows + 1] = { runtime = r.name, calls = r.calls, total_ns = r.total_ns, p50_ns = r.p50_ns,
                                    max_ns = r.max_ns, over_threshold = r.over_threshold }
          local c, n = r.over_threshold, r.name
          nover = nover + c
          if c > 0 and (c > wn or (c == wn and n < worst_rt)) then worst_rt, wn = n, c end
        end
        if nover > 0 then
          report:finding { severity = "info", rule = "launch-latency.runtime_outliers", subject = worst_rt,
            message = string.format("%d runtime calls took longer than %s (most often %s, %d times): "
              .. "synchronising calls or a blocked launch queue stall the host",
              nover, units.ns(opts.runtime_outlier_ns), worst_rt, wn),
            evidence = { calls = nover, threshold_ns = opts.runtime_outlier_ns, source = p.source } }
        end
      end
      -- kernels shorter than their launch
      -- (a graph replay's kernels are not launches: never "capture them in a graph")
      local short = launched:col("duration_ns"):lt(launched:col("runtime_ns"))
      if nodes > 0 then short = short & ~launched:col("graph_replay") end
      local sk = launched:group_by("name"):agg { { "calls", "count" }, { "short_calls", "count", where = short },
        { "kernel_ns", "sum", "duration_ns", where = short }, { "launch_ns", "sum", "runtime_ns", where = short } }
      sk = sk:filter(sk:col("short_calls"):gt(0)):rename("name", "kernel"):sort_by("-short_calls", "kernel")
      local nshort = short:count_true()
      for i, e in sk:rows() do
        if opts.top <= 0 or i <= opts.top then
          short_rows[#short_rows + 1] = { kernel = e.kernel, calls = e.calls, short_calls = e.short_calls,
                                          kernel_ns = e.kernel_ns, launch_ns = e.launch_ns }
        end
      end
      if nshort > 0 then
        report:finding { severity = nshort * 2 > nlaunch and "warn" or "info", rule = "launch-latency.short_kernels",
          subject = sk:col("kernel")[1],
          message = string.format("%d of %d kernel launches ran for less time on the GPU than their launch call took "
            .. "on the host (%d kernels): launch overhead dominates; %s",
            nshort, nlaunch, sk:nrows(), nodes > 0
              and "fuse them (they run outside the trace's graph replays, which may leave them out on purpose, as piecewise graphs leave attention eager)"
              or "fuse them or capture them in a CUDA graph"),
          evidence = { short_launches = nshort, launches = nlaunch, kernels = sk:nrows(), source = p.source,
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
            subject = string.format("device %s stream %s", dev_label(g.device), g.stream),
            message = string.format("device %s stream %s had %d launched-but-unfinished ops: at %d the launch "
              .. "queue is full and the host blocks", dev_label(g.device), g.stream, qmax, D.hta.queue_length_flag),
            evidence = { max = qmax, threshold = D.hta.queue_length_flag, at_ns = at, source = p.source } }
        end
      end
      -- communication / computation overlap, per device with communication kernels
      if kern:nrows() > 0 then
        local comm = kern:col("name"):map(is_comm)
        local comms = I.from_table(kern, "start_ns", "end_ns", { by = "device", where = comm })
        local comps = I.from_table(kern, "start_ns", "end_ns", { by = "device", where = ~comm })
        local devs = kern:group_by("device"):agg { { "n", "count", where = comm } }
        devs = devs:filter(devs:col("n"):gt(0)):sort_by("device"):col("device"):to_lua()
        for _, dev in ipairs(devs) do
          local cm, cp = comms[dev] or I.empty(), comps[dev] or I.empty()
          local ov, cl = cm:intersect(cp):length(), cm:length()
          local row = { device = dev, comm_ns = cl, comp_ns = cp:length(), overlap_ns = ov,
                        overlap_pct = cl > 0 and 100 * ov / cl or nil }
          ov_rows[#ov_rows + 1] = row
          if row.overlap_pct and row.overlap_pct < 50 then
            report:finding { severity = "info", rule = "launch-latency.comm_overlap",
                subject = (per_rank and ("rank " .. p.rank .. " ") or "") .. "device " .. dev_label(dev),
              message = (per_rank and ("rank " .. p.rank .. ": ") or "")
                  .. string.format("device %s: only %.1f %% of communication kernel time (%s) overlaps computation",
                dev_label(dev), row.overlap_pct, units.ns(cl)),
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
    report:table("outliers", T.from_rows(out_rows, C({ "kernel", "device", "stream", "delay_ns", "runtime",
        "runtime_ns",
      "start_ns", "duration_ns", "correlation" }), "outliers"),
          { title = string.format("the %d longest launch delays", opts.top) })
    report:table("runtime_calls", T.from_rows(rt_rows, C({ "runtime", "calls", "total_ns", "p50_ns", "max_ns",
      "over_threshold" }), "runtime_calls"):sort_by("-total_ns", "runtime"),
      { title = string.format("runtime API calls (over_threshold: longer than %s)",
          units.ns(opts.runtime_outlier_ns)) })
    report:table("short_kernels", T.from_rows(short_rows, C({ "kernel", "calls", "short_calls", "kernel_ns",
        "launch_ns" }),
      "short_kernels"),
          { title = string.format("kernels whose GPU time is below their launch call's time (short_calls of calls; top %d by short calls)", opts.top) })
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

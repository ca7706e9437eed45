--- critical-path: the longest chain of dependent work in a step of a Kineto
-- trace (HTA's CriticalPathAnalysis; the rules are in docs/critical-path.md
-- and perflab.critical_path), and what bounds it: the CPU, GPU compute, GPU
-- communication, kernel-launch overhead or gaps between kernels.
--
-- Tables (part of the API; t_us: microseconds from the window's start):
--   bound_by         (bound_by, time_us, share_pct) -- HTA's summary(): the
--                    path's time per class; shares of the path length
--   critical_events  (t_us, dur_us, name, cat, stream, on_path_us, waits_for)
--                    -- the events on the path in path order; on_path_us: the
--                    path's time attributed to the event; waits_for: what the
--                    path came from into the event (edge type: event)
--   path             (t_us, node, edge, weight_us, bound_by) -- every node of
--                    the path (event start or end) and the edge leaving it
local perflab = require "perflab"
local T = perflab.table
local CPA = require "perflab.critical_path"
local chart = require "perflab.chart"

-- text, Markdown and HTML show the first rows of the path and its events
-- (a whole trace's path has hundreds of thousands); JSON and CSV have all
local SHOWN_ROWS = 100

local SHORT = { critical_path_operator = "span", critical_path_dependency = "next op",
  critical_path_kernel_launch_delay = "launch", critical_path_kernel_kernel_delay = "after kernel",
  critical_path_sync_dependency = "sync" }

-- the figure: the whole step (every CPU thread and GPU stream with events
-- in the window, grey) with the path drawn over it in colour and its
-- launch and sync hops as arrows.  At most max_bg context events (the
-- longest) and max_links arrows are drawn.  The path is drawn whole at the
-- figure's resolution: its events are merged per lane where they touch or
-- lie within a pixel of each other (perflab.critical_path.spans), so a path of
-- 765,019 nodes is a few bars, each titled with how many events it holds.
local CONTEXT_CATS = { "cpu_op", "user_annotation", "cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy",
  "gpu_memset", "Kernel", "Memcpy", "Memset" }
local PIXELS = 1200   -- the time axis' resolution for merging path events

local function lane_of(pid, tid, stream)
  return (stream or -1) >= 0 and string.format("GPU %s stream %s", pid, stream) or string.format("CPU %s/%s", pid, tid)
end

local function figure(r, max_links, max_bg)
  local ev, path = r.events, r.path
  local t0, t1 = r.window_lo_ns, r.window_hi_ns
  local cols = { "name", "ts_ns", "dur_ns", "pid", "tid", "stream", "cat" }
  local cat = ev:col("cat")
  local ends = ev:col("ts_ns") + ev:col("dur_ns")
  -- the axis runs to the end of the path's last event (GPU work launched in
  -- the window may run past its end)
  local hi = t1
  t1 = math.max(t1, ends:keep(r.critical):max() or t1)
  -- the step's other events: CPU events that start in the window, GPU
  -- events that run in the drawn range; the longest max_bg of them, taken
  -- by their duration before any column is copied
  local on_gpu = ev:col("stream"):fill(-1):ge(0)
  local mask = (cat:type() == "string" and cat:isin(CONTEXT_CATS) or ev:col("ts_ns"):present())
    & ev:col("ts_ns"):le(t1) & ends:ge(t0) & (on_gpu | ev:col("ts_ns"):le(hi)) & ~r.critical
  local nctx = mask:count_true()
  if nctx > max_bg then
    local cut = max_bg > 0 and ev:col("dur_ns"):keep(mask):nth(nctx - max_bg + 1)
    mask = cut and (mask & ev:col("dur_ns"):ge(cut)) or (mask & ~mask)
  end
  local ctx = ev:filter(mask, cols)
  if nctx > max_bg then ctx = ctx:sort_by("-dur_ns"):head(max_bg) end
  ctx = ctx:sort_by("ts_ns", "-dur_ns")           -- parents before (under) their children
  local items, lanes, seen = {}, {}, {}
  local function lane(row)
    local l = lane_of(row.pid, row.tid, row.stream)
    if not seen[l] then seen[l] = true; lanes[#lanes + 1] = l end
    return l
  end
  for _, row in ctx:rows() do
    items[#items + 1] = { lane = lane(row), start = (row.ts_ns - t0) / 1000,
        finish = (row.ts_ns + row.dur_ns - t0) / 1000,
      label = row.name, kind = (row.stream or -1) >= 0 and "GPU (other)" or "CPU (other)" }
  end
  -- the path: spans of its events per lane (CPU thread or GPU stream),
  -- merged in C where they touch or lie within a pixel; Lua once per span
  local px = math.max(1, (t1 - t0) // PIXELS)
  local ct = ev:filter(r.critical, { "name", "ts_ns", "dur_ns", "pid", "tid", "stream" })
  local gpu = ct:col("stream"):fill(-1):ge(0)
  ct:with("gpu", gpu):with("lane_stream", ct:col("stream"):keep(gpu)):with("lane_tid", ct:col("tid"):keep(~gpu))
  ct:with("stop_ns", ct:col("ts_ns") + ct:col("dur_ns"))
  local S = CPA.spans(ct, { start = "ts_ns", stop = "stop_ns", gap = px,
    by = { "pid", "gpu", "lane_stream", "lane_tid" } })
  local sr = S:col("row")
  S:with("name", ct:col("name"):at(sr)):with("pid", ct:col("pid"):at(sr)):with("tid", ct:col("tid"):at(sr))
    :with("stream", ct:col("stream"):at(sr))
  for _, sp in S:rows() do
    local key = lane_of(sp.pid, sp.tid, sp.stream)
    if not seen[key] then seen[key] = true; lanes[#lanes + 1] = key end
    local a, b = (sp.ts_ns - t0) / 1000, (sp.stop_ns - t0) / 1000
    local c, nm = sp.events, sp.name or "?"
    items[#items + 1] = { lane = key, start = a, finish = b, kind = (sp.stream or -1) >= 0 and "GPU on path"
        or "CPU on path",
      label = c == 1 and nm or string.format("%d path events", c),
      title = c == 1 and string.format("%s: %.1f us", nm, b - a)
        or string.format("%d events on the path, %.1f us from %s", c, b - a, nm) }
  end
  -- GPU streams below the CPU threads, each group in name order
  table.sort(lanes, function(a, b)
    local ga, gb = a:sub(1, 3) == "GPU", b:sub(1, 3) == "GPU"
    if ga ~= gb then return gb end
    return a < b
  end)
  -- the path's hops between lanes (launch, sync), drawn as arrows: the
  -- first max_links hop rows picked in the engine, Lua once per arrow
  local links = {}
  local np = path:nrows()
  if np > 1 then
    local rowno = path:rownum()
    local hop = path:col("edge"):isin { "critical_path_kernel_launch_delay", "critical_path_sync_dependency" }
      & rowno:lt(np)
    local H = path:select("ts_ns", "event", "edge"):with("next", rowno + 1):filter(hop):head(max_links)
    local ea, eb = H:col("event"), path:col("event"):at(H:col("next"))
    H:with("tb", path:col("ts_ns"):at(H:col("next")))
      :with("pa", ev:col("pid"):at(ea)):with("ta", ev:col("tid"):at(ea)):with("sa", ev:col("stream"):at(ea))
      :with("pb", ev:col("pid"):at(eb)):with("tb_", ev:col("tid"):at(eb)):with("sb", ev:col("stream"):at(eb))
    for _, h in H:rows() do
      links[#links + 1] = { from_lane = lane_of(h.pa, h.ta, h.sa), to_lane = lane_of(h.pb, h.tb_, h.sb),
        from = (h.ts_ns - t0) / 1000, to = (h.tb - t0) / 1000, title = SHORT[h.edge] }
    end
  end
  local notes = {}
  if nctx > max_bg then notes[#notes + 1] = string.format("the %d longest of %d other events", max_bg, nctx) end
  if S:nrows() < r.critical_events then
    notes[#notes + 1] = string.format("the path's %d events merged into %d bars where closer than a pixel (%s us)",
      r.critical_events, S:nrows(), chart.num(px / 1000))
  end
  return chart.gantt { title = "Critical path over the step",
    subtitle = string.format("%s: path %.0f us; grey: the rest of the step; arrows: launch, sync%s",
      r.annotation ~= "" and (chart.short(r.annotation, 32) .. " #" .. r.instance) or "whole trace", r.length_ns / 1000,
      #notes > 0 and " (" .. table.concat(notes, "; ") .. ")" or ""),
    lanes = lanes, items = items, links = links, kinds = { "CPU on path", "GPU on path", "CPU (other)", "GPU (other)" },
    kind_fills = { ["CPU (other)"] = "#d9d9d9", ["GPU (other)"] = "#bdbdbd" },
    time_label = "time from the window start (us)", t0 = 0, t1 = (t1 - t0) / 1000 }
end

return {
  name = "critical-path",
  summary = "the critical path of a step (HTA's algorithm): its length, what bounds it (CPU, GPU, launch, gaps, sync) and its events",
  needs = { "events|runtime" },   -- runtime: an Nsight Systems export
  tables = { "events", "kernels", "runtime", "memcpy", "memset" },
  options = {
    annotation = { type = "string", default = "auto",
                   help = "the step: events whose name contains this text (\"auto\": ProfilerStep when there are steps; empty: the whole trace)" },
    instance = { type = "integer", min = 0, default = 0,
        help = "which instance of the annotation (0-based, in time order)" },
    instance_last = { type = "integer", min = -1, default = -1, help = "last instance of a range (-1: just instance)" },
    round = { type = "string", default = "auto",
        help = "HTA's whole-microsecond rounding: auto (fractional traces), on, off" },
    zero_weight_launch = { type = "boolean", default = false,
        help = "add a 0-weight launch edge for every kernel (HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE)" },
    allow_missing_sync = { type = "boolean", default = false,
        help = "build the path from a trace without cuda_sync events (GPU->CPU waits then missing)" },
    figure_events = { type = "integer", min = 1, default = 400,
        help = "at most this many launch and sync arrows in the figure" },
    figure_context = { type = "integer", min = 0, default = 3000,
        help = "at most this many other events of the step in the figure (the longest)" },
  },
  run = function(inputs, opts, report)
    for _, p in ipairs(inputs) do
      local r, why = CPA.analyze(p, { annotation = opts.annotation, instance = opts.instance,
        instance_last = opts.instance_last >= 0 and opts.instance_last or nil, round = opts.round,
        zero_weight_launch = opts.zero_weight_launch, allow_missing_sync = opts.allow_missing_sync })
      if not r then
        report:finding { severity = "warn", rule = "critical_path.unsupported", subject = p.source,
          message = "no critical path: " .. why, evidence = { reason = why } }
        goto continue
      end
      r.instance = opts.instance
      do
        local total = 0
        for _, v in pairs(r.bound_by) do total = total + v end
        local rows = {}
        for _, k in ipairs(CPA.categories) do
          local v = r.bound_by[k] or 0
          rows[#rows + 1] = { bound_by = k, time_us = v / 1000, share_pct = total ~= 0 and 100 * v / total or 0 }
        end
        report:table("bound_by", T.from_rows(rows, { "bound_by", "time_us", "share_pct" }),
          { title = "what bounds the critical path (HTA's bound_by)" })
        local top, topv = nil, -1
        for _, row in ipairs(rows) do if row.share_pct > topv then top, topv = row.bound_by, row.share_pct end end
        report:finding { severity = "info", rule = "critical_path.length", subject = p.source,
          message = string.format("critical path %.0f us over %d events (%s): %.1f %% %s",
            r.length_ns / 1000, r.critical_events,
            r.annotation ~= "" and (r.annotation .. " instance " .. opts.instance) or "whole trace", topv, top),
          evidence = { length_us = r.length_ns / 1000, graph_nodes = r.nodes, graph_edges = r.edges,
            path_nodes = r.path:nrows(), critical_events = r.critical_events, rounded_to_us = r.rounded,
            launch_edges = r.launch_edges, kernel_kernel_edges = r.kernel_kernel_edges, sync_edges = r.sync_edges,
            graph_launches = r.graph_launches, overlapping_kernels = r.overlapping_kernels,
            window_start_us = r.window_lo_ns / 1000, window_end_us = r.window_hi_ns / 1000 } }
      end
      if r.overlapping_kernels > 0 then
        report:finding { severity = "info", rule = "critical_path.overlap", subject = p.source,
          message = string.format("%d kernels started before the previous kernel on their stream ended "
            .. "(programmatic dependent launch, or timestamps out of order): the path links each to the previous "
            .. "kernel's start, not its end", r.overlapping_kernels),
          evidence = { overlapping_kernels = r.overlapping_kernels } }
      end
      -- the path, node by node
      local ev, path = r.events, r.path
      local names = ev:col("name"):at(path:col("event"))
      local node = T.sprintf("%s %s", names, path:col("is_start"):map { [true] = "start", [false] = "end" })
      local pt = path:select("ts_ns")
      pt:with("t_us", (path:col("ts_ns") - r.window_lo_ns) / 1000):drop("ts_ns")
      pt:with("node", node):with("edge", path:col("edge"):map(SHORT))
        :with("weight_us", path:col("edge_weight_ns") / 1000):with("bound_by", path:col("bound_by"))
      report:table("path", pt, { title = "the critical path, node by node (the edge leaving each node)",
        rows = SHOWN_ROWS })
      -- the events: first node of each event on the path (perflab.critpath's
      -- on_path table), what the path came from into it
      local onp = r.on_path
      local row = onp:col("row")
      local prev = (row - 1):keep(row:gt(1))
      local waits = T.sprintf("%s: %s", path:col("edge"):at(prev):map(SHORT), names:at(prev))
      local er = onp:col("event")
      local out = onp:select("event")
      out:with("t_us", (ev:col("ts_ns"):at(er) - r.window_lo_ns) / 1000):with("dur_us", ev:col("dur_ns"):at(er) / 1000)
        :with("name", ev:col("name"):at(er)):with("cat", ev:col("cat"):at(er)):with("stream", ev:col("stream"):at(er))
        :with("on_path_us", onp:col("on_path_ns") / 1000):with("waits_for", waits):drop("event")
      report:table("critical_events", out, { title = "the events on the critical path, in path order",
        rows = SHOWN_ROWS })
      report:figure("critical-path.svg", figure(r, opts.figure_events, opts.figure_context),
          { title = "the step's timeline with its critical path" })
      if r.rounded then
        report:note("timestamps rounded to whole microseconds as HTA does for fractional traces (ts up, end down; pytorch/pytorch#122425)")
      end
      ::continue::
    end
  end,
}

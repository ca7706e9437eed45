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

local SHORT = { critical_path_operator = "span", critical_path_dependency = "next op",
  critical_path_kernel_launch_delay = "launch", critical_path_kernel_kernel_delay = "after kernel",
  critical_path_sync_dependency = "sync" }

local function figure(r, max_items)
  local ev, path = r.events, r.path
  local crit = ev:filter(r.critical, { "name", "ts_ns", "dur_ns", "pid", "tid", "stream", "cat" })
  local n = math.min(crit:nrows(), max_items)
  local items, lanes, seen = {}, {}, {}
  local t0 = r.window_lo_ns
  local function lane(row)
    local l = (row.stream or -1) >= 0 and string.format("GPU %s stream %s", row.pid, row.stream)
      or string.format("CPU %s/%s", row.pid, row.tid)
    if not seen[l] then seen[l] = true; lanes[#lanes + 1] = l end
    return l
  end
  local lane_of = {}
  for i = 1, n do
    local row = crit:row(i)
    local l = lane(row)
    local kind = (row.stream or -1) >= 0 and "GPU on path" or "CPU on path"
    items[#items + 1] = { lane = l, start = (row.ts_ns - t0) / 1000, finish = (row.ts_ns + row.dur_ns - t0) / 1000,
      label = row.name, kind = kind }
    lane_of[row.name .. "\0" .. row.ts_ns] = l
  end
  table.sort(lanes, function(a, b) return a < b end)
  -- the path's hops between lanes (launch, sync, kernel-kernel), drawn as arrows
  local links = {}
  local np = math.min(path:nrows(), 2 * max_items)
  local names = ev:col("name"):at(path:col("event"))
  local tss = ev:col("ts_ns"):at(path:col("event"))
  for i = 1, np - 1 do
    local e = path:get(i, "edge")
    if e == "critical_path_kernel_launch_delay" or e == "critical_path_sync_dependency" then
      local a = lane_of[names[i] .. "\0" .. tss[i]]
      local b = lane_of[names[i + 1] .. "\0" .. tss[i + 1]]
      if a and b then
        links[#links + 1] = { from_lane = a, to_lane = b, from = (path:get(i, "ts_ns") - t0) / 1000,
          to = (path:get(i + 1, "ts_ns") - t0) / 1000, title = SHORT[e] }
      end
    end
  end
  return chart.gantt { title = "Critical path", subtitle = string.format("%s, %.0f us; arrows: launch and sync hops%s",
      r.annotation ~= "" and (r.annotation .. " instance " .. r.instance) or "whole trace", r.length_ns / 1000,
      n < crit:nrows() and string.format(" (first %d of %d events)", n, crit:nrows()) or ""),
    lanes = lanes, items = items, links = links, kinds = { "CPU on path", "GPU on path" },
    time_label = "time from the window start (us)", t0 = 0, t1 = (r.window_hi_ns - t0) / 1000 }
end

return {
  name = "critical-path",
  summary = "the critical path of a step (HTA's algorithm): its length, what bounds it (CPU, GPU, launch, gaps, sync) and its events",
  needs = { "events|runtime" },   -- runtime: an Nsight Systems export
  tables = { "events", "kernels", "runtime", "memcpy", "memset" },
  options = {
    annotation = { type = "string", default = "auto",
                   help = "the step: events whose name contains this text (\"auto\": ProfilerStep when there are steps; empty: the whole trace)" },
    instance = { type = "integer", min = 0, default = 0, help = "which instance of the annotation (0-based, in time order)" },
    instance_last = { type = "integer", min = -1, default = -1, help = "last instance of a range (-1: just instance)" },
    round = { type = "string", default = "auto", help = "HTA's whole-microsecond rounding: auto (fractional traces), on, off" },
    zero_weight_launch = { type = "boolean", default = false, help = "add a 0-weight launch edge for every kernel (HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE)" },
    allow_missing_sync = { type = "boolean", default = false, help = "build the path from a trace without cuda_sync events (GPU->CPU waits then missing)" },
    figure_events = { type = "integer", min = 1, default = 400, help = "at most this many path events in the figure" },
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
            graph_launches = r.graph_launches,
            window_start_us = r.window_lo_ns / 1000, window_end_us = r.window_hi_ns / 1000 } }
      end
      -- the path, node by node
      local ev, path = r.events, r.path
      local names = ev:col("name"):at(path:col("event"))
      local node = T.sprintf("%s %s", names, path:col("is_start"):map { [true] = "start", [false] = "end" })
      local pt = path:select("ts_ns")
      pt:with("t_us", (path:col("ts_ns") - r.window_lo_ns) / 1000):drop("ts_ns")
      pt:with("node", node):with("edge", path:col("edge"):map(SHORT))
        :with("weight_us", path:col("edge_weight_ns") / 1000):with("bound_by", path:col("bound_by"))
      report:table("path", pt, { title = "the critical path, node by node (the edge leaving each node)" })
      -- the events: first node of each event on the path, what the path came from
      local ones = path:col("event"):present():map { [true] = 1 }
      local rowno = ones:cumsum()
      local prev = (rowno - 1):keep(rowno:gt(1))
      local prev_name = names:at(prev)
      local prev_edge = path:col("edge"):at(prev):map(SHORT)
      local waits = T.sprintf("%s: %s", prev_edge, prev_name)
      local firsts = path:col("event"):index_of(path:col("event"))
      local first_mask = firsts:eq(rowno)
      local on = path:filter(path:col("edge_event"):present(), { "edge_event", "edge_weight_ns" })
        :group_by("edge_event"):agg { { "ns", "sum", "edge_weight_ns" } }
      local ce = path:select("event"):with("waits_for", waits):filter(first_mask)
      local er = ce:col("event")
      local ons = on:col("ns"):at(on:col("edge_event"):index_of(er)):fill(0)
      local out = ce:select("event")
      out:with("t_us", (ev:col("ts_ns"):at(er) - r.window_lo_ns) / 1000):with("dur_us", ev:col("dur_ns"):at(er) / 1000)
        :with("name", ev:col("name"):at(er)):with("cat", ev:col("cat"):at(er)):with("stream", ev:col("stream"):at(er))
        :with("on_path_us", ons / 1000):with("waits_for", ce:col("waits_for")):drop("event")
      report:table("critical_events", out, { title = "the events on the critical path, in path order" })
      report:figure("critical-path.svg", figure(r, opts.figure_events), { title = "the step's critical path" })
      if r.rounded then
        report:note("timestamps rounded to whole microseconds as HTA does for fractional traces (ts up, end down; pytorch/pytorch#122425)")
      end
      ::continue::
    end
  end,
}

--- timeline: a Gantt chart of the GPU streams and CPU threads of a trace,
-- with an arrow from each launch (runtime call) to its kernel.
-- The window is the slowest ProfilerStep, or --set window=START:END (times
-- from the trace's first event, with units: 2ms:5.5ms), or, for a trace
-- without steps, the device activity after its long idle gaps (its last
-- 150 device operations).  The table lists each track in the window: its
-- events and busy time (the union of its events).
-- For the whole trace in a real viewer: perflab export chrome-trace FILE.
local perflab = require "perflab"
local T = perflab.table
local trace = require "perflab.trace"
local chart = require "perflab.chart"
local units = require "perflab.units"
local figures = require "perflab.figures"

--- timeline: a Gantt chart of the GPU streams and CPU threads in a window
-- (default: the slowest step, else the whole trace), launch → kernel arrows.
-- window = {start_ns, end_ns} (absolute, as the trace's own times).
local function figure(report, p, window, figname)
  local tl = trace.collect(p, { window = window, slowest_step = window == nil, max_events = 2000, last_ops = 150 })
  if not tl or #tl.gpu == 0 then return end
  local lanes, lane_ix, items, links = {}, {}, {}, {}
  local function lane(name)
    if not lane_ix[name] then lanes[#lanes + 1] = name; lane_ix[name] = #lanes end
    return name
  end
  for _, tk in ipairs(tl.tracks) do lane(tk.label) end
  for _, e in ipairs(tl.cpu) do
    items[#items + 1] = { lane = e.track, start = e.start, finish = e.start + e.dur, label = e.name, kind = e.kind,
      title = string.format("%s · %s: %s", e.track, e.name, units.ns(e.dur, 3)) }
  end
  for _, e in ipairs(tl.gpu) do
    items[#items + 1] = { lane = e.track, start = e.start, finish = e.start + e.dur, label = e.name, kind = e.kind,
      title = string.format("%s · %s: %s", e.track, e.name, units.ns(e.dur, 3)) }
  end
  for _, f in ipairs(tl.flows) do
    links[#links + 1] = { from_lane = f.from_track, from = f.from, to_lane = f.to_track, to = f.to,
      title = string.format("launch → %s (%s later)", f.name, units.ns(f.to - f.from, 3)) }
  end
  report:figure(figname or "timeline.svg", chart.gantt {
    title = "Timeline: " .. (tl.what or "trace"), subtitle = figures.base(p.source)
        .. (tl.truncated and " (first events only)" or ""),
    lanes = lanes, items = items, links = links, t0 = tl.t0, t1 = tl.t1,
        kinds = { "kernel", "memcpy", "memset", "runtime", "cpu op" },
    time_format = function(v) return units.ns(v, 3) end, time_label = "time from window start",
  }, { title = "GPU streams and CPU threads (" .. (tl.what or "trace") .. ")" })
end

return {
  name = "timeline",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "Gantt chart of GPU streams and CPU threads (slowest step or a window), launch -> kernel arrows",
  needs = { "kernels.start_ns" },
  tables = { "kernels", "memcpy", "memset", "runtime", "cpu_ops", "steps" },
  options = {
    window = { type = "string", default = "",
        help = "START:END from the first event (2ms:5ms); empty: the slowest step" },
  },
  run = function(inputs, opts, report)
    for idx, p in ipairs(inputs) do
      local window = opts.window ~= "" and trace.parse_window(opts.window, p, "window") or nil
      local tl = trace.collect(p, { window = window, slowest_step = window == nil, max_events = 2000, last_ops = 150 })
      local per, order = {}, {}
      for _, l in ipairs({ tl.cpu, tl.gpu }) do
        for _, e in ipairs(l) do
          local r = per[e.track]
          if not r then r = { track = e.track, kind = e.tk.kind, events = 0, spans = {} }; per[e.track] = r end
          r.events = r.events + 1
          local s, f = math.max(e.start, tl.t0), math.min(e.start + e.dur, tl.t1)
          if f > s then r.spans[#r.spans + 1] = { s, f } end
        end
      end
      local rows = {}
      for _, tk in ipairs(tl.tracks) do
        local r = per[tk.label]
        if r then
          -- busy time: the union of the track's spans in the window
          table.sort(r.spans, function(a, b) return a[1] < b[1] end)
          local busy, reach = 0, -math.huge
          for _, sp in ipairs(r.spans) do
            local s = math.max(sp[1], reach)
            if sp[2] > s then busy = busy + (sp[2] - s) end
            reach = math.max(reach, sp[2])
          end
          rows[#rows + 1] = { track = r.track, kind = r.kind, events = r.events, busy_ns = busy,
            busy_pct = tl.t1 > tl.t0 and 100 * busy / (tl.t1 - tl.t0) or nil }
          order[#order + 1] = r.track
        end
      end
      local name = #inputs > 1 and ("timeline_" .. idx) or "timeline"
      report:table(name, T.from_rows(rows, { "track", "kind", "events", "busy_ns", "busy_pct" }, name), {
        title = string.format("%s: %s, %s%s", (p.source or ""):match("[^/]+$") or p.source, tl.what,
          perflab.units.ns(math.max(tl.t1 - tl.t0, 0)), tl.truncated and " (first 2000 device operations)" or "") })
      if #rows == 0 then report:note(string.format("%s has no events in the window.", p.source)) end
      figure(report, p, window, name .. ".svg")
    end
  end,
}

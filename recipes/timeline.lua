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

return {
  name = "timeline",
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
      perflab.figures.timeline(report, p, window, name .. ".svg")
    end
  end,
}

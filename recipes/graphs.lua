--- graphs: CUDA/HIP graph replays of a timeline, one row per graph.
--
-- Every kernel of a graph replay carries the correlation id of the
-- cudaGraphLaunch / cuGraphLaunch / hipGraphLaunch call that started it;
-- the ops of one device sharing it are one replay.  A graph is a graph id
-- where the input names one (nsys: kernels.graph_id), else the multiset
-- of kernel names of a replay (perflab.graphs; docs/graphs.md).
--
-- Tables (part of the API):
--   graphs     graph, device, graph_id, launch, first_kernel, replays,
--              partial_replays, kernels_per_replay, launch_mean_ns,
--              launch_max_ns, span_{mean,min,max}_ns, busy_{mean,min,max}_ns
--              (over whole replays), busy_total_ns, delay_{mean,min,max}_ns
--              (first op start - launch call end)
--   positions  graph, position, kernel, replays, mean_ns, min_ns, max_ns,
--              total_ns: the op at each place of a graph across its whole
--              replays (TraceLens' per-position mean)
--   replays    one row per replay (perflab.graphs.analyse)
--   empty_launches  graph launch calls with no GPU work recorded
-- Findings: graphs.partial (warn) when replays lost ops or launches
-- recorded none; graphs.summary (info) with the share of GPU time in
-- graph replays.
local perflab = require "perflab"
local T = perflab.table
local units = perflab.units
local G = require "perflab.graphs"
local ranks = require "perflab.ranks"

local GCOLS = { "graph", "device", "graph_id", "launch", "first_kernel", "replays", "partial_replays",
  "kernels_per_replay", "launch_mean_ns", "launch_max_ns", "span_mean_ns", "span_min_ns", "span_max_ns",
  "busy_mean_ns", "busy_min_ns", "busy_max_ns", "busy_total_ns", "delay_mean_ns", "delay_min_ns", "delay_max_ns" }
local PCOLS = { "graph", "position", "kernel", "replays", "mean_ns", "min_ns", "max_ns", "total_ns" }
local RCOLS = { "replay", "graph", "device", "stream", "correlation", "graph_id", "launch", "kernels", "usual",
  "partial", "start_ns", "end_ns", "span_ns", "busy_ns", "launch_ns", "delay_ns" }
local ECOLS = { "name", "start_ns", "duration_ns", "correlation" }

-- t's columns `cols` (those it has; the others all missing), with an input column first
local function part(t, cols, idx, n)
  local out = t:select(table.unpack(cols))
  if n > 1 then out:with("input", out:col(cols[1]):present():map(function() return idx end)) end
  return out
end

return {
  name = "graphs",
  summary = "CUDA/HIP graph replays: one row per graph (replays, kernels, launch, span, busy, delay, per-position times); partial recordings",
  needs = { "kernels.start_ns" },
  tables = { "kernels", "runtime", "memcpy", "memset", "graph_trace" },
  options = {
    top = { type = "integer", min = 0, default = 0, help = "list at most this many replays (0: all)" },
  },
  run = function(inputs, opts, report)
    local gs, ps, rs, es = {}, {}, {}, {}
    local per_rank = ranks.of_job(inputs)
    for idx, p in ipairs(inputs) do
      local who = (per_rank and ("rank " .. p.rank .. ": ") or "") .. (#inputs > 1 and (p.source .. ": ") or "")
      local res = G.analyse(p)
      if not res then
        report:note(who
            .. "no graph launch (cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch) and no graph id in the input: "
          .. "every kernel is its own launch.")
      else
        if res.graphs then
          gs[#gs + 1] = part(res.graphs, GCOLS, idx, #inputs)
          ps[#ps + 1] = part(res.positions, PCOLS, idx, #inputs)
          local r = res.replays
          if opts.top > 0 then r = r:head(opts.top) end
          rs[#rs + 1] = part(r, RCOLS, idx, #inputs)
          local ops = res.ops
          local gbusy = perflab.intervals.from_table(ops, "start_ns", "end_ns",
              { where = ops:col("graph_replay") }):length()
          local all = perflab.intervals.from_table(ops, "start_ns", "end_ns"):length()
          report:finding { severity = "info", rule = "graphs.summary",
            message = string.format("%s%d graph%s, %d replays, %d of %d GPU ops replayed by a graph: %s of %s busy GPU time (%.1f %%)",
              who, res.graphs:nrows(), res.graphs:nrows() == 1 and "" or "s", res.replays:nrows(),
              ops:col("graph_replay"):count { where = ops:col("graph_replay") }, ops:nrows(), units.ns(gbusy),
              units.ns(all), all > 0 and 100 * gbusy / all or 0),
            evidence = { graphs = res.graphs:nrows(), replays = res.replays:nrows(), graph_busy_ns = gbusy,
                         busy_ns = all, source = p.source,
                         formula = "replay = the ops sharing a graph launch's correlation id; busy = union of op intervals" } }
        end
        if res.empty and res.empty:nrows() > 0 then
          local e = res.empty
          local cols = {}
          for _, c in ipairs(ECOLS) do if e:has(c) then cols[#cols + 1] = c end end
          es[#es + 1] = part(e, cols, idx, #inputs)
        end
        local rec = G.recording(p, nil, res)
        if rec then
          report:finding { severity = "warn", rule = "graphs.partial",
            message = who .. "partial recording: " .. rec.reason
                .. "; idle and busy times of this trace are unreliable",
            evidence = { partial_replays = rec.partial_replays, empty_launches = rec.empty_launches, source = p.source,
                         formula = "a replay is partial when its op count differs from the most frequent count of its graph (graph id known; "
                           .. "without one: its kernels are a graph's with more replays, in order, and the missing ones fit in its "
                           .. "stream's idle time where they belong); a graph launch is empty when no device op carries its correlation" } }
        end
      end
    end
    local function emit(name, list, cols, title)
      if #list == 0 then return end
      local t = T.concat(table.unpack(list))
      if #inputs > 1 then table.insert(cols, 1, "input") end
      report:table(name, t:select(table.unpack(cols)):name(name), { title = title })
    end
    emit("graphs", gs, { table.unpack(GCOLS) },
      "one row per graph (ns; span, busy over whole replays; delay = first op start - launch call end)")
    emit("positions", ps, { table.unpack(PCOLS) }, "each kernel position of a graph across its whole replays (ns)")
    emit("replays", rs, { table.unpack(RCOLS) }, "graph replays (ns)")
    if #es > 0 then
      local cols = {}
      for _, c in ipairs(ECOLS) do if es[1]:has(c) then cols[#cols + 1] = c end end
      emit("empty_launches", es, cols, "graph launches with no GPU work recorded")
    end
  end,
}

--- idle-time: how long each GPU stream sat idle between its operations, and
-- why, as HTA (Holistic Trace Analysis) attributes it.
--
-- Per (device, stream), operations (kernels, and memcpy/memset unless
-- --set kernels_only=true) sorted by start; for each op k after the first,
-- the gap = start_k - end of everything before it on the stream (the latest
-- end so far, so overlapping ops make no gap).  A gap > 0 is
--   host wait   when the runtime call that launched op k started after the
--               stream had drained (launch start > previous end): the GPU
--               waited for the host to enqueue work;
--   kernel wait when the launch was already issued and the gap is shorter
--               than kernel_wait_ns (30 ns by default): the inherent
--               back-to-back launch overhead;
--   other       otherwise (launched in time but not started: a dependency
--               on another stream, an event wait, a synchronisation).
--   launch time unknown  when neither a runtime call nor the device record
--               (kernels.launch_ns, rocprof's DispatchNs) says when op k was
--               launched: no cause is claimed for that gap.
--
-- Table `idle` (part of the API): device, stream, ops, span_ns (first start
-- to last end), busy_ns (union of the ops), idle_ns (= span - busy),
-- host_wait_ns, kernel_wait_ns, other_ns, unknown_ns (launch time
-- unknown), idle_pct (of span), host_wait_pct, kernel_wait_pct, other_pct,
-- unknown_pct (of idle), graph_busy_ns (the
-- union of the stream's ops replayed by a CUDA/HIP graph: perflab.graphs),
-- reliable (false when the input recorded graph replays in part: a graph
-- launch without GPU work, or a replay short of its graph's ops; a finding
-- idle-time.unreliable gives the reason, and idle findings are info).
-- Thresholds: lua/perflab/timeline_data.lua (D.hta).
local perflab = require "perflab"
local T = perflab.table
local units = perflab.units
local IV = require "perflab.timeline"
local I = perflab.intervals
local D = require "perflab.timeline_data"
local ranks = require "perflab.ranks"
local graphs = require "perflab.graphs"
local chart = require "perflab.chart"
local figures = require "perflab.figures"

local COLS = { "device", "stream", "ops", "span_ns", "busy_ns", "idle_ns", "host_wait_ns", "kernel_wait_ns",
  "other_ns", "unknown_ns", "idle_pct", "host_wait_pct", "kernel_wait_pct", "other_pct", "unknown_pct",
  "graph_busy_ns", "reliable" }

--- Idle attribution for one stream's ops (a device_ops table, by start).
-- A gap opens where an op starts after every op before it has ended: the
-- ops fall into blocks, the closed-interval union of their [start, end]
-- (touching ops share a block, a zero-length op is a block of its own).
-- The engine finds the blocks as the union of [2 start, 2 end + 1) (half
-- open, so zero-length ops count and a 1 ns gap stays a gap); the first op
-- of each block after the first ends a gap from the previous block's end.
local function attribute(ops, kernel_wait_ns)
  local s, e = ops:col("start_ns"), ops:col("end_ns")
  local r = { ops = ops:nrows() }
  r.span_ns = (e - s[1]):max()          -- (c:max() of epoch ns goes through a double)
  r.busy_ns = I.from_table(ops, "start_ns", "end_ns"):length()
  local g = ops:has("graph_replay") and ops:col("graph_replay")
  r.graph_busy_ns = g and I.from_table(ops, "start_ns", "end_ns", { where = g }):length() or 0
  r.idle_ns = r.span_ns - r.busy_ns
  local blocks = I.from_arrays(s * 2, e * 2 + 1)
  ops = ops:with("block", blocks:locate(s * 2))
  local b = ops:group_by("block"):agg { { "end_ns", "max", "end_ns" }, { "first", "ids" } }
  local after = b:filter(b:col("block"):gt(1))          -- blocks that a gap precedes
  local prev_end = b:take(after:col("block") - 1):col("end_ns")
  local first = ops:take(after:col("first"))
  local gap = first:col("start_ns") - prev_end
  local known = first:col("rt_start_ns"):present()       -- a recorded launch time
  local host = known & first:col("rt_start_ns"):gt(prev_end)     -- launched after the stream drained
  local kernel = known & ~host & gap:lt(kernel_wait_ns)
  r.host_wait_ns = gap:sum { where = host }
  r.kernel_wait_ns = gap:sum { where = kernel }
  r.other_ns = gap:sum { where = known & ~host & ~kernel }
  r.unknown_ns = gap:sum { where = ~known }
  local idle = r.idle_ns
  r.idle_pct = r.span_ns > 0 and 100 * idle / r.span_ns or 0
  r.host_wait_pct = idle > 0 and 100 * r.host_wait_ns / idle or 0
  r.kernel_wait_pct = idle > 0 and 100 * r.kernel_wait_ns / idle or 0
  r.other_pct = idle > 0 and 100 * r.other_ns / idle or 0
  r.unknown_pct = idle > 0 and 100 * r.unknown_ns / idle or 0
  return r
end

--- idle-time: per stream, its idle time split into host wait, kernel wait and other.
local function figure(report, tname)
  tname = tname or "idle"
  local rows = figures.rows_of(report.tables[tname], { "device", "stream", "host_wait_ns", "kernel_wait_ns", "other_ns",
      "unknown_ns", "busy_ns", "span_ns" })
  if not rows then return end
  local cats = {}
  local series = { { name = "host wait", values = {}, titles = {} }, { name = "kernel wait", values = {}, titles = {} },
                   { name = "other idle", values = {}, titles = {} } }
  local keys = { "host_wait_ns", "kernel_wait_ns", "other_ns" }
  local unknown = false
  for _, r in ipairs(rows) do if (r.unknown_ns or 0) > 0 then unknown = true end end
  if unknown then   -- gaps before ops whose launch time the input does not record
    series[4] = { name = "launch time unknown", values = {}, titles = {} }
    keys[4] = "unknown_ns"
  end
  for k, r in ipairs(rows) do
    cats[k] = string.format("device %s stream %s", tostring(r.device), tostring(r.stream))
    for i, key in ipairs(keys) do
      series[i].values[k] = r[key] and r[key] / 1e6 or nil
      series[i].titles[k] = string.format("%s · %s: %s (busy %s of %s)", cats[k], series[i].name, figures.ms(r[key]),
          figures.ms(r.busy_ns), figures.ms(r.span_ns))
    end
  end
  report:figure("idle_time.svg", chart.bars {
    title = "Idle time per stream", subtitle = "why each stream waited (HTA's idle-time categories)",
    horizontal = true, stacked = true, categories = cats, series = series, value_label = "idle time (ms)",
  }, { title = "idle time per stream by cause" })
end

return {
  name = "idle-time",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "per GPU stream: idle time between operations, attributed to host wait, kernel wait or other (HTA)",
  needs = { "kernels.start_ns" },   -- a timeline: kernels with start times
  tables = { "kernels", "runtime", "memcpy", "memset", "graph_trace" },   -- all it reads (perflab.timeline.device_ops)
  options = {
    kernel_wait_ns = { type = "number", default = D.hta.kernel_wait_ns,
                       help = "a gap shorter than this, with the launch already issued, is kernel wait (ns)" },
    kernels_only = { type = "boolean", default = false, help = "consider kernels only, not memcpy/memset" },
    min_idle_pct = { type = "number", default = 20, help = "report a stream idle more than this share of its span" },
  },
  run = function(inputs, opts, report)
    local rows = {}
    local per_rank = ranks.of_job(inputs)   -- several ranks of one job: a rank column
    for idx, p in ipairs(inputs) do
      local kinds = opts.kernels_only and { kernel = true, graph = true } or nil   -- graph: nsys' whole-graph rows
      local all = IV.device_ops(p, kinds)
      -- graph replays recorded in part: idle and busy are not facts
      local gres = all and graphs.analyse(p, all)
      local rec = gres and graphs.recording(p, nil, gres)
      if gres and gres.ops then all = gres.ops end
      if rec then
        report:finding { severity = "warn", rule = "idle-time.unreliable",
          subject = per_rank and ("rank " .. p.rank) or nil,
          message = (per_rank and ("rank " .. p.rank .. ": ") or "") .. "idle and busy times below are unreliable: "
              .. rec.reason,
          evidence = { partial_replays = rec.partial_replays, empty_launches = rec.empty_launches, source = p.source } }
      end
      local streams = IV.by_stream(all)
      local dev_label = IV.device_label(p)   -- "0 (GPU name)" where the input names its devices
      -- the busy time of each device (the union of all its streams' ops): a
      -- stream's wait saves at most the time no stream of its device ran
      local dev_busy = (all and all:nrows() > 0 and all:has("device") and all:col("device"):count() > 0)
          and I.from_table(all, "start_ns", "end_ns", { by = "device" }) or {}
      local pending = {}   -- this input's findings, their savings shared out per device below
      for _, g in ipairs(streams) do
        local r = attribute(g.ops, opts.kernel_wait_ns)
        local ds = g.device ~= nil and dev_busy[g.device] or nil
        local s0 = g.ops:nrows() > 0 and g.ops:col("start_ns")[1] or nil
        r.device_idle_ns = (ds and s0) and r.span_ns - ds:length_within(s0, s0 + r.span_ns) or nil
        r.device, r.stream = g.device, g.stream
        r.reliable = rec == nil
        if #inputs > 1 then r.input = idx end
        if per_rank then r.rank = p.rank end
        rows[#rows + 1] = r
        if r.span_ns > 0 and r.idle_pct > opts.min_idle_pct and r.ops > 1 then
          local dominant, share = "other", r.other_pct
          if r.host_wait_pct >= share then dominant, share = "host wait", r.host_wait_pct end
          if r.kernel_wait_pct > share then dominant, share = "kernel wait", r.kernel_wait_pct end
          if r.unknown_pct > share then dominant, share = "launch time unknown", r.unknown_pct end
          local others = ""
          -- (said where other streams ran during 1 % or more of the idle time)
          local ran = r.device_idle_ns and r.idle_ns > 0 and r.device_idle_ns <= 0.99 * r.idle_ns
          -- most of the stream's idle time, other streams kept the device busy
          local busy_device = ran and r.device_idle_ns < r.idle_ns / 2
          if ran then
            others = string.format(" (other streams of the device ran during %.0f %% of it)",
              100 * (r.idle_ns - r.device_idle_ns) / r.idle_ns)
          end
          local host_advice = "reduce host overhead per launch (CUDA graphs, torch.compile, fewer small ops, faster "
            .. "data loading)"
          local advice = ({
            -- the stream waited; the GPU did only where no other stream ran
            ["host wait"] = not ran and ("the GPU waited for the host to enqueue work: " .. host_advice)
              or busy_device and string.format("the stream waited for the host to enqueue work, but the device ran "
                .. "other streams during most of that time and was idle only %s of it: feeding this stream sooner "
                .. "gains at most that; %s", units.ns(r.device_idle_ns), host_advice)
              or string.format("the stream waited for the host to enqueue work (the device was idle %s of it): %s",
                units.ns(r.device_idle_ns), host_advice),
            ["kernel wait"] = "back-to-back launch overhead: fuse small kernels or use CUDA graphs",
            other = busy_device and "ops were launched in time but waited while other streams of the device ran: "
              .. "the device was busy, not idle; the stream queued behind their work (a dependency on another stream, "
              .. "or no room on the GPU beside them)"
              or "ops were launched in time but waited: look for cross-stream dependencies, events and synchronisations",
            ["launch time unknown"] = "the input records no launch time for those ops (no runtime call matches them, "
              .. "and the device records keep no dispatch time), so no cause is claimed; a trace with the API calls "
              .. "(rocprofv3 --hip-trace, nsys -t cuda, Kineto) or rocprof's per-dispatch DispatchNs would tell",
          })[dominant]
          -- at most the wait the fix removes ("other" waits on dependencies the
          -- trace does not size), and at most the time the whole device was idle
          local saved = not rec and ((dominant == "host wait" and r.host_wait_ns)
              or (dominant == "kernel wait" and r.kernel_wait_ns)) or nil
          local capped = saved and r.device_idle_ns and r.device_idle_ns < saved
          if capped then saved = r.device_idle_ns > 0 and r.device_idle_ns or nil end
          pending[#pending + 1] = { device = g.device, stream = g.stream, saved = saved, capped = capped, s0 = s0,
            span = r.span_ns, f = {
            -- a stream idle while other streams keep its device busy is no GPU idle time
            severity = (r.idle_pct > 50 and dominant ~= "launch time unknown" and not rec
              and not busy_device) and "warn" or "info",
            rule = "idle-time." .. (dominant == "launch time unknown" and "launch_unknown" or dominant:gsub(" ", "_")),
            subject = (per_rank and ("rank " .. p.rank .. " ") or "")
                .. string.format("device %s stream %s", dev_label(g.device), g.stream),
            message = (per_rank and ("rank " .. p.rank .. " ") or "")
                .. (rec and "unreliable (graph replays recorded in part): " or "")
              .. string.format("device %s stream %s is idle %.1f %% of its span (%s of %s)%s; %.0f %% of that is %s: %s",
              dev_label(g.device), g.stream, r.idle_pct, units.ns(r.idle_ns), units.ns(r.span_ns), others, share,
                  dominant, advice),
            evidence = { idle_pct = r.idle_pct, threshold_pct = opts.min_idle_pct, host_wait_ns = r.host_wait_ns,
                         device_idle_ns = ran and r.device_idle_ns or nil,
                         kernel_wait_ns = r.kernel_wait_ns, other_ns = r.other_ns, unknown_ns = r.unknown_ns,
                             span_ns = r.span_ns,
                         kernel_wait_threshold_ns = opts.kernel_wait_ns, source = p.source,
                         formula = "gap = start_k - max end before k; host wait if launch_k > previous end; "
                           .. "kernel wait if gap < threshold; else other; launch time unknown where no launch time is recorded" },
          } }
        end
      end
      -- the streams of one device share its idle time: a stream's saving
      -- is at most the time in its span that no stream of the device ran,
      -- less what a stream with a larger saving already counts of that same
      -- time (two streams waiting at once are one idle GPU)
      local order = {}
      for i, x in ipairs(pending) do
        if x.saved and x.device ~= nil and dev_busy[x.device] then order[#order + 1] = i end
      end
      table.sort(order, function(a, b)
        if pending[a].saved ~= pending[b].saved then return pending[a].saved > pending[b].saved end
        return a < b
      end)
      local claimed = {}    -- device -> {set = the idle time counted, by = the first stream counting it}
      for _, i in ipairs(order) do
        local x = pending[i]
        local idle = I.from_arrays({ x.s0 }, { x.s0 + x.span }, 1) - dev_busy[x.device]
        local c = claimed[x.device]
        if c then
          local free = (idle - c.set):length()
          if x.saved > free then
            x.shared = { stream = c.by, counted = x.saved - free }
            x.saved = free > 0 and free or nil
          end
          c.set = c.set + idle
        else
          claimed[x.device] = { set = idle, by = x.stream }
        end
      end
      for _, x in ipairs(pending) do
        local f = x.f
        f.saved_ns = x.saved
        local how = x.saved and ("the stream's " .. (f.rule == "idle-time.host_wait" and "host wait" or "kernel wait")
          .. " time (an upper bound: the stream kept fed)"
          .. (x.capped and ", capped at the time no stream of its device ran" or "")) or nil
        if x.shared then
          f.message = f.message .. string.format("; %s of the saving is device idle time already counted under stream "
            .. "%s (the device was idle once for both)", units.ns(x.shared.counted), tostring(x.shared.stream))
          f.evidence.shared_with_stream = x.shared.stream
          if how then how = how .. ", less what other streams of the device already count" end
        end
        f.saved_how = how
        report:finding(f)
      end
    end
    local cols = {}
    if #inputs > 1 then cols[1] = "input" end
    if per_rank then cols[#cols + 1] = "rank" end
    for _, c in ipairs(COLS) do cols[#cols + 1] = c end
    report:table("idle", T.from_rows(rows, cols, "idle"),
      { title = "idle time per stream (ns; shares of idle time)" })
    if #rows == 0 then report:note("No device operations with a stream in the input.") end
    figure(report)   -- per stream: host wait, kernel wait, other
  end,
}

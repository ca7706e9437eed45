--- suspicion: why is the target (slow) run slower than the baseline (normal)
-- runs?  Ranks (function, metric, device) triplets by a suspicion score, as
-- the comparison report of seed 002 does.
--
--   perflab run suspicion --baseline A.json [B.json...] --target C.json [D.json...]
--
-- Inputs, each side one or more files:
--   * Kineto traces: a cycle is a ProfilerStep#N span (or, with
--     --set cycle=NAME, every complete event named NAME or NAME#...; the
--     GPU-side gpu_user_annotation copies are not used); functions are
--     kernels, memcpys and memsets by name (--set key=short_name to group by
--     short name) on device "GPU <n>"; a launch belongs to the cycle that
--     holds its CPU launch (cudaLaunchKernel with the same correlation id;
--     the kernel's own start when there is none).  Resource metrics are the
--     counter events (ph "C"): metric = the event name; device "GPU <n>" when
--     the argument is called "GPU n" / "cuda:n" / "device n" / "n" or the pid is
--     a small integer (Kineto's GPU pids are device indices), "Host" otherwise.
--   * a long CSV pair, read through the generic csv format:
--       function samples: run, cycle, function, device, duration_ns
--         (or duration_us / duration_ms / duration in ns), optional start_ns
--         (execution start, for time-weighted metrics) and cycle_ns (the
--         cycle's duration; without it a cycle's time is the sum of its
--         durations)
--       metric samples: run, device, metric, value and either timestamp_ns
--         (or ts_ns / timestamp; a value holds until the next sample of the
--         same run, device and metric) or cycle (the cycle's value)
--     Function and metric files of a side are matched by run.
--
-- Per cycle c: beta_c = 100 * (time of the function in c) / (duration of c)
-- (0 in cycles without it); mu_c = the metric's mean over the function's
-- executions in c, time-weighted over the overlapping samples (a sample
-- holds its value until the next one).  Per triplet, over the cycles of
-- each side (runs pooled):
--   beta_* / mu_*  means;  delta_* = target - baseline
--   z_beta, z_mu   Welch's t statistic of target vs baseline (SciPy
--                  ttest_ind(equal_var=False)); printed 0 when undefined
--   z_log_mu       the same on log(mu) (values <= 0 left out)
--   p_beta, p_mu   its two-sided p;  u_p_*  Mann-Whitney U two-sided p
--   suspicion_score = |delta_beta| * (|z_beta| + |z_log_mu|)
-- A function is significant when p_beta and u_p_beta are both < alpha and
-- |delta_beta| >= min_delta_beta.
local perflab = require "perflab"
local T = perflab.table
local compare = require "perflab.compare"
local I = require "perflab.intervals"
local units = perflab.units

local finite = compare.finite

local basename = require("perflab.util").basename
local chart = require "perflab.chart"
local figures = require "perflab.figures"

-- ---- a side as tables -------------------------------------------------------
--
-- Each side (baseline, target) is read into four tables:
--   cycles   one row per cycle, in side order (files in order; a trace's
--            cycles by start): run, cycle, duration_ns
--   execs    one row per execution of a function: cycle (row of cycles),
--            function, device, busy_ns, start_ns, end_ns, series (the
--            sample set its metrics come from: the trace, or the CSV run;
--            missing: none)
--   samples  one row per metric sample: series, device, metric, ts_ns,
--            end_ns, value, _ranged (a series with a ranged sample covers
--            [ts_ns, end_ns) per sample; else a sample holds until the next)
--   cvalues  per-cycle metric values (CSV): cycle, device, metric, value
-- and `metrics`, the (device, metric) pairs the side records.

local function new_side()
  return { cycles = {}, execs = {}, samples = {}, cvalues = {}, metrics = {}, runs = {}, dropped = 0, ncycles = 0 }
end

-- the execution columns every reader gives, in this order
local EXEC = { "cycle", "function", "device", "busy_ns", "start_ns", "end_ns", "series" }

local function counter_device(series, pid)
  local n = series and (series:match("^[Gg][Pp][Uu]%s*(%d+)$") or series:match("^cuda:(%d+)$")
    or series:match("^[Dd]evice%s*(%d+)$") or series:match("^(%d+)$"))
  if n then return "GPU " .. n end
  if series and (series == "Host" or series == "CPU" or series == "cpu") then return "Host" end
  local p = tonumber(pid)
  if p and p >= 0 and p < 64 then return "GPU " .. math.floor(p) end
  return "Host"
end

-- A trace's cycles, by start (ties in input order): start_ns, duration_ns, cycle
local function kineto_cycles(p, opts)
  if opts.cycle == "ProfilerStep" and p:has("steps") and p:table("steps"):nrows() > 0
      and p:table("steps"):has("start_ns") then
    local st = p:table("steps")
    return st:take(st:order("start_ns")):select("start_ns", "duration_ns", "step"):rename("step", "cycle")
  end
  if not p:has("events") then
    -- a tb-profiler export has per-step times but no timeline to place them on
    perflab.fail(string.format("%s (%s): suspicion needs cycles with start times (a Kineto trace's ProfilerStep "
      .. "spans or events) or function/metric CSVs; this has tables %s", p.source, p.format,
          table.concat(p:table_names(), ", ")))
  end
  -- complete spans named WANT or WANT#N (the name test once per distinct name)
  local ev = p:table("events")
  local want = opts.cycle
  local named = ev:col("name"):map(function(nm) return nm == want or nm:sub(1, #want + 1) == want .. "#" end)
  local spans = ev:filter(named & ev:col("ph"):eq("X") & ev:col("dur_ns"):gt(0)
    & ~ev:col("cat"):eq("gpu_user_annotation"))
  local num = spans:col("name"):map(function(nm) return tonumber(nm:match("#(%d+)$")) end)
  spans = spans:with("cycle", num:fill(spans:rownum()))
  spans = spans:rename("ts_ns", "start_ns"):rename("dur_ns", "duration_ns")
  return spans:take(spans:order("start_ns")):select("start_ns", "duration_ns", "cycle")
end

-- A trace's counter series: samples (series, device, metric, ts_ns, end_ns, value).
-- Device and metric once per distinct (name, series, pid, ranged):
-- {"name": M, "args": {"GPU 0": v}} -> metric M; a CUPTI range (name =
-- kernel, arg = metric) -> the arg; else NAME.ARG.
local function kineto_samples(p, set)
  if not p:has("counters") then return nil end
  local ct = p:table("counters")
  ct = ct:filter(ct:col("name"):present() & ct:col("value"):present() & ct:col("ts_ns"):present())
  ct = ct:with("_ranged", ct:col("dur_ns"):gt(0))
  local ranged = ct:col("_ranged")
  local by = ct:group_by("name", "series", "pid", "_ranged")
  local dm = {}
  for g, r in by:agg({ { "n", "count" } }):rows() do
    local dev, metric, s_ = counter_device(r.series, r.pid), r.name, r.series
    if s_ and s_ ~= "" and s_ ~= r.name and s_ ~= "Host" and s_ ~= "CPU" and s_ ~= "cpu"
      and not counter_device(s_, nil):match("^GPU") then
      metric = r._ranged and s_ or (r.name .. "." .. s_)
    end
    dm[g] = { device = dev, metric = metric }
  end
  if #dm == 0 then return nil end
  local keys = by:broadcast(T.from_rows(dm, { "device", "metric" }))
  return ct:with("device", keys:col("device")):with("metric", keys:col("metric")):with("series", ct:const(set))
    :with("end_ns", ct:col("ts_ns") + ct:col("dur_ns"):keep(ranged):fill(0))
    :select("series", "device", "metric", "ts_ns", "end_ns", "value", "_ranged")
end

-- Per device operation, the time of its CPU launch: the last runtime call
-- with its correlation id (by (pid, correlation) where the device table has
-- pid: nsys exports repeat correlation ids across processes).
local function launch_times(p, k)
  if not p:has("runtime") then return nil end
  local rt = p:table("runtime")
  rt = rt:filter(rt:col("correlation"):present() & rt:col("start_ns"):present())
  rt = rt:take(-rt:rownum() + (rt:nrows() + 1)) -- last first: index_of finds the first
  if k:has("pid") then
    if not rt:has("pid") then return nil end
    local key = function(t) return T.sprintf("%s:%s", t:col("pid"), t:col("correlation")) end
    return rt:col("start_ns"):at(key(rt):index_of(key(k)))
  end
  if not k:has("correlation") then return nil end
  return rt:col("start_ns"):at(rt:col("correlation"):index_of(k:col("correlation")))
end

-- Kineto trace -> one run
local function read_kineto(side, p, opts)
  local run = basename(p.source)
  side.runs[#side.runs + 1] = run
  local set = "trace " .. #side.runs
  local cyc = kineto_cycles(p, opts)
  if cyc:nrows() == 0 then
    perflab.fail(string.format("%s has no cycles: no ProfilerStep#N spans%s (name the annotation that marks a cycle with --set cycle=NAME)",
      p.source, opts.cycle ~= "ProfilerStep" and (" and no complete events named '" .. opts.cycle .. "'") or ""))
  end
  local cend = cyc:col("start_ns") + cyc:col("duration_ns")
  -- executions: kernels, memcpys, memsets, each in the cycle that holds its
  -- CPU launch (its own start where none): the last cycle starting at or
  -- before it, if it ends at or after it
  for _, tn in ipairs({ "kernels", "memcpy", "memset" }) do
    if p:has(tn) then
      local k = p:table(tn)
      local key = (tn == "kernels" and opts.key == "short_name" and k:has("short_name")) and "short_name" or "name"
      k = k:filter(k:col(key):present() & k:col("start_ns"):present() & k:col("duration_ns"):present())
      local st = k:col("start_ns")
      local at = launch_times(p, k)
      at = at and at:fill(st) or st
      local c = cyc:col("start_ns"):searchsorted(at, "right")
      c = c:keep(c:ge(1))
      c = c:keep(at:le(cend:at(c)))
      local placed = c:present()
      side.dropped = side.dropped + k:nrows() - placed:count_true()
      local e = k:with("cycle", c + side.ncycles):with("function", k:col(key))
        :with("device", T.sprintf("GPU %s", k:col("device"):fill(0))):with("end_ns", st + k:col("duration_ns"))
      e = e:with("busy_ns", e:col("end_ns") - st):with("series", k:const(set))
      side.execs[#side.execs + 1] = e:filter(placed, EXEC)
    end
  end
  side.cycles[#side.cycles + 1] = cyc:with("run", cyc:const(run)):select("run", "cycle", "duration_ns")
  side.ncycles = side.ncycles + cyc:nrows()
  local s = kineto_samples(p, set)
  if s then
    side.samples[#side.samples + 1] = s
    side.metrics[#side.metrics + 1] = s:select("device", "metric")
  end
end

local function col_of(t, names)
  for _, n in ipairs(names) do if t:has(n) then return n end end
  return nil
end

-- a CSV's run column as text (the file's name where it has none)
local function run_of(t, p)
  local base = basename(p.source)
  return t:has("run") and T.sprintf("%s", t:col("run")):fill(base) or t:const(base)
end

-- CSV function samples, in file order: run, cycle, function, device, d, start_ns, cycle_ns
local function read_fn_csv(t, p)
  local cdur = col_of(t, { "duration_ns", "duration_us", "duration_ms", "duration" })
  local scale = ({ duration_ns = 1, duration_us = 1e3, duration_ms = 1e6, duration = 1 })[cdur]
  local d = cdur and (t:col(cdur) * scale):fill(0) or t:const(0)
  local opt = function(name) return t:has(name) and t:col(name) or t:const(nil, "integer") end
  return t:with("run", run_of(t, p)):with("function", T.sprintf("%s", t:col("function")):fill("nil"))
    :with("device", t:has("device") and T.sprintf("%s", t:col("device")):fill("-") or t:const("-"))
    :with("_d", d):with("start_ns", opt("start_ns")):with("cycle_ns", opt("cycle_ns")):with("cycle", opt("cycle"))
    :select("run", "cycle", "function", "device", "_d", "start_ns", "cycle_ns")
end

-- CSV metric samples: timestamped ones (a series per run, device, metric)
-- and per-cycle ones
local function read_metric_csv(side, t, p, state)
  local cts = col_of(t, { "timestamp_ns", "ts_ns", "timestamp" })
  t = t:with("run", run_of(t, p)):with("device", t:has("device") and T.sprintf("%s", t:col("device")):fill("-")
    or t:const("-")):with("metric", T.sprintf("%s", t:col("metric")))
  side.metrics[#side.metrics + 1] = t:select("device", "metric")
  local timed = cts and t:col(cts):present() or t:const(false)
  if cts then
    local s = t:filter(timed)
    s = s:with("series", T.sprintf("csv %s", s:col("run"))):with("ts_ns", s:col(cts))
      :with("end_ns", s:col(cts)):with("_ranged", s:const(false))
    side.samples[#side.samples + 1] = s:select("series", "device", "metric", "ts_ns", "end_ns", "value", "_ranged")
  end
  if t:has("cycle") then
    local c = t:filter(~timed & t:col("cycle"):present())
    state.cvalues[#state.cvalues + 1] = c:with("value", c:col("value"):fill(0)):select("run", "cycle", "device",
      "metric", "value")
  end
end

-- The CSV function samples of a side: cycles in first-seen order, a
-- cycle's duration its cycle_ns (the last given) or else the sum of its
-- functions' times; per-cycle metric values by (run, cycle).
local function finish_csv(side, state)
  if #state.fn == 0 then return end
  local f = T.concat(table.unpack(state.fn))
  local key = T.sprintf("%s\t%s", f:col("run"), T.sprintf("%s", f:col("cycle")):fill("nil"))
  f = f:with("_key", key)
  local g = f:group_by("_key"):agg { { "run", "first", "run" }, { "cycle", "first", "cycle" },
    { "cycle_ns", "last", "cycle_ns" }, { "sum", "sum", "_d" } }
  local dur = g:col("cycle_ns"):keep(g:col("cycle_ns"):ne(0)):fill(g:col("sum"))
  local cyc = g:with("duration_ns", dur):select("run", "cycle", "duration_ns", "_key")
  local row = cyc:col("_key"):index_of(f:col("_key")) + side.ncycles
  local st = f:col("start_ns")
  local s0 = st:fill(0)
  local e = f:with("cycle", row):with("end_ns", s0 + f:col("_d"))
  e = e:with("busy_ns", e:col("end_ns") - s0):with("start_ns", s0)
    :with("series", T.sprintf("csv %s", f:col("run")):keep(st:present()))
  side.execs[#side.execs + 1] = e:select(table.unpack(EXEC))
  if #state.cvalues > 0 then
    local cv = T.concat(table.unpack(state.cvalues))
    cv = cv:with("_key", T.sprintf("%s\t%s", cv:col("run"), T.sprintf("%s", cv:col("cycle")):fill("nil")))
    cv = cv:group_by("_key", "device", "metric"):agg { { "sum", "sum", "value" }, { "n", "count" } }
    cv = cv:with("value", cv:col("sum") / cv:col("n"))
    side.cvalues[#side.cvalues + 1] = cv:with("cycle", cyc:col("_key"):index_of(cv:col("_key")) + side.ncycles)
      :select("cycle", "device", "metric", "value")
  end
  side.cycles[#side.cycles + 1] = cyc:select("run", "cycle", "duration_ns")
  side.ncycles = side.ncycles + cyc:nrows()
  local seen = {}
  for _, r in ipairs(side.runs) do seen[r] = true end
  for _, r in ipairs(cyc:unique("run")) do
    if not seen[r] then side.runs[#side.runs + 1] = r; seen[r] = true end
  end
end

-- Per (cycle, function, device, metric): mu, the metric's mean over the
-- function's executions in the cycle.  Each series (set, device, metric)
-- against the executions of its set on its device, in one call of the
-- interval engine (perflab.intervals.series_windows, summed per row of the
-- busy table): the integral and the covered length, and the samples in
-- force at the starts of executions that cover nothing.  mu = integral /
-- covered; where nothing is covered, the mean of those samples and of the
-- cycle's own value (CSV).
local function mus_of(side)
  local ex, busy = side.execs, side.busy
  local obs = {}
  if #side.samples > 0 then
    local smp = T.concat(table.unpack(side.samples))
    local wins = ex:filter(ex:col("series"):present())
    local g, ids = smp:group_by("series", "device", "metric"):agg { { "rows", "ids" }, { "ranged", "count",
      where = smp:col("_ranged") } }
    local wg, wids = wins:group_by("series", "device"):agg { { "rows", "ids" } }
    local wix = T.sprintf("%s\t%s", wg:col("series"), wg:col("device")):index_of(
      T.sprintf("%s\t%s", g:col("series"), g:col("device")))
    for i, r in g:rows() do
      local w = wix[i] and wins:take(wids.rows[wix[i]])
      if w then
        local sr = smp:take(ids.rows[i])
        sr = sr:take(sr:order("ts_ns"))
        local sw = I.series_windows(sr:col("ts_ns"), r.ranged > 0 and sr:col("end_ns"), sr:col("value"),
          w:col("start_ns"), w:col("end_ns"), { by = w:col("_busy"), groups = busy:nrows() })
        sw = sw:with("_busy", sw:rownum()):with("metric", sw:const(r.metric))
        obs[#obs + 1] = sw:filter(sw:col("cov"):gt(0) | sw:col("points"):gt(0))
      end
    end
  end
  if #side.cvalues > 0 then
    -- a cycle's own value applies to every function of the cycle on that device
    local cv = T.concat(table.unpack(side.cvalues))
    local fns = busy:join(cv, { on = { "cycle", "device" } })
    obs[#obs + 1] = fns:with("area", fns:const(0, "number")):with("cov", fns:const(0))
      :with("point_sum", fns:col("value") * 1.0):with("points", fns:const(1))
      :select("area", "cov", "point_sum", "points", "_busy", "metric")
  end
  if #obs == 0 then return nil end
  local o = T.concat(table.unpack(obs))
  local m = o:group_by("_busy", "metric"):agg { { "area", "sum", "area" }, { "cov", "sum", "cov" },
    { "point_sum", "sum", "point_sum" }, { "points", "sum", "points" } }
  local cov = m:col("cov")
  m = m:with("mu", (m:col("area") / cov):keep(cov:gt(0)):fill(m:col("point_sum") / m:col("points")))
  for _, c in ipairs({ "cycle", "function", "device" }) do m = m:with(c, busy:col(c):at(m:col("_busy"))) end
  m = m:filter(m:col("mu"):present())
  return m:take(m:order("function", "device", "metric", "cycle"))
end

local function read_side(profiles, opts)
  local side = new_side()
  local state = { fn = {}, cvalues = {} }
  for _, p in ipairs(profiles) do
    if p:has("csv") then
      local t = p:table("csv")
      if t:has("function") then state.fn[#state.fn + 1] = read_fn_csv(t, p)
      elseif t:has("metric") and t:has("value") then read_metric_csv(side, t, p, state)
      else
        perflab.fail(string.format("%s: a CSV for suspicion needs columns run, cycle, function, device, duration_ns (function samples) or run, timestamp_ns|cycle, device, metric, value (metric samples); it has: %s",
          p.source, table.concat(t:columns(), ", ")))
      end
    elseif p:has("kernels") or p:has("steps") then
      read_kineto(side, p, opts)
    else
      perflab.fail(string.format("%s (%s): suspicion reads Kineto traces or function/metric CSVs; this has tables %s",
        p.source, p.format, table.concat(p:table_names(), ", ")))
    end
  end
  finish_csv(side, state)
  if side.ncycles == 0 then perflab.fail("suspicion: a side has no cycles (no function samples?)") end
  side.cycles = T.concat(table.unpack(side.cycles))
  side.execs = T.concat(table.unpack(side.execs))
  -- per (cycle, function, device): busy time and calls
  local by = side.execs:group_by("cycle", "function", "device")
  side.busy = by:agg { { "busy_ns", "sum", "busy_ns" }, { "calls", "count" } }
  side.busy = side.busy:with("_busy", side.busy:rownum())
  side.execs = side.execs:with("_busy", by:broadcast(side.busy):col("_busy"))
  side.mu = mus_of(side)
  side.metrics = #side.metrics > 0 and T.concat(table.unpack(side.metrics)) or nil
  return side
end

-- ---- statistics per triplet ------------------------------------------------

-- Every function of either side with its share of each cycle (β, percent,
-- 0 where it does not run), key by key in cycle order: rows (k - 1) * n + 1
-- .. k * n of the result are key k's n cycles.
local function betas(side, keys)
  local cyc = side.cycles:with("cycle", side.cycles:rownum())
  local grid = keys:with("_one", keys:const(1)):join(cyc:select("cycle", "duration_ns"):with("_one", cyc:const(1)),
    { on = "_one" })
  grid = grid:join(side.busy, { on = { "cycle", "function", "device" }, how = "left" })
  local dur = grid:col("duration_ns")
  return grid:with("beta", (grid:col("busy_ns"):keep(dur:gt(0)) * 100 / dur):fill(0))
end

-- the rows of the side's mu table per triplet: first row and count (0: none)
local function mu_rows(side, trip)
  if not side.mu then return trip:const(0), trip:const(0) end
  local g = side.mu:group_by("function", "device", "metric"):agg { { "first", "first_row" }, { "n", "count" } }
  local j = trip:join(g, { on = { "function", "device", "metric" }, how = "left" })
  return j:col("first"), j:col("n"):fill(0)
end

local function slice(t, col, from, n)
  if n == 0 then return {} end
  return t:slice(from, from + n - 1):col(col)
end

local function logs(x)
  local out = {}
  for i = 1, #x do local v = x[i]; if v > 0 then out[#out + 1] = math.log(v) end end
  return out
end

local function mean_or_nil(x) if #x == 0 then return nil end return compare.mean(x) end

local function nanil(x) if x == nil or x ~= x then return nil end return x end

local function fmt_num(x)
  if x == nil then return "-" end
  local s = string.format("%.2f", x)
  local int, frac = s:match("^(-?%d+)(%.%d+)$")
  if not int then return s end
  local neg = int:sub(1, 1) == "-"
  if neg then int = int:sub(2) end
  int = int:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
  return (neg and "-" or "") .. int .. frac
end

local function fmt_p(p)
  if p == nil then return "n/a" end
  if p < 0.001 then return string.format("%.1e", p) end
  return string.format("%.3f", p)
end

local legend = {
  { "β (Beta)",
      "The percentage of cycle time consumed by this function: its execution time in a cycle divided by the cycle's duration, averaged over the cycles of a side (0 in cycles where it does not run)." },
  { "μ (Mu)",
      "The average value of a resource metric during the function's executions, time-weighted over the samples that overlap them (a sample holds until the next), averaged over cycles." },
  { "Device", "The device of the function and of the metric (GPU n, Host)." },
  { "Z-Score(β), Z-Score(μ), Z-Score(log_μ)",
      "Welch's t statistic of target against baseline over cycles (SciPy ttest_ind equal_var=False), on β, μ and log μ; positive when the target is higher; 0 when undefined (no variance, too few cycles)." },
  { "p-value / U-test p",
      "Two-sided p of Welch's t-test and of the Mann-Whitney U test (SciPy method auto). Lower values (e.g. < 0.01) suggest the difference is statistically significant." },
  { "Suspicion Score",
      "|Δβ| * (|Z-Score(β)| + |Z-Score(log_μ)|), to rank potential issues. Focus on items with the highest score first." },
}

--- suspicion: the score of each of the top (function, metric, device) triplets.
local function figure(report, tname, n)
  local rows = figures.rows_of(report.tables[tname or "details"], { "function", "metric", "device", "suspicion_score",
      "delta_beta_pct" }, n or 20)
  if not rows then return end
  local cats, vals, tips = {}, {}, {}
  for _, r in ipairs(rows) do
    if r.suspicion_score then
      local k = #cats + 1
      -- the metric and device stay readable: the function name is cut first
      cats[k] = string.format("%s · %s · %s", chart.short(figures.label(r["function"]), 28), tostring(r.metric),
          tostring(r.device))
      vals[k] = r.suspicion_score
      tips[k] = string.format("%s · %s · %s: suspicion score %s%s", tostring(r["function"]), tostring(r.metric),
          tostring(r.device),
        units.sig(r.suspicion_score, 4),
        r.delta_beta_pct and string.format(", Δβ %+.3g ppt", r.delta_beta_pct) or "")
    end
  end
  if #cats == 0 then return end
  report:figure("suspicion.svg", chart.bars {
    title = "Suspicion scores of the top triplets",
        subtitle = "function · metric · device, score = |Δβ|·(|Z(β)| + |Z(log μ)|)",
    horizontal = true, labels = true, categories = cats, format = function(v) return units.sig(v, 4) end,
        label_chars = 60, width = 900,
    series = { { name = "suspicion score", values = vals, titles = tips } }, value_label = "suspicion score",
  }, { title = "scores of the top triplets" })
end

return {
  name = "suspicion",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "rank (function, metric, device) triplets of slow runs against normal ones by a suspicion score",
  usage = "perflab run suspicion --baseline FILE... --target FILE... [--set KEY=VALUE]...",
  description = [[Baseline (normal) and target (slow) runs: Kineto traces (cycles = ProfilerStep
spans or --set cycle=NAME; functions = kernels, memcpy, memset; metrics =
counter events) or CSV pairs: function samples (run, cycle, function, device,
duration_ns[, start_ns, cycle_ns]) and metric samples (run, timestamp_ns or
cycle, device, metric, value).  Per cycle β = % of cycle time in a function,
μ = time-weighted mean of a metric over its executions; per triplet Welch and
Mann-Whitney tests; score = |Δβ|·(|Z(β)| + |Z(log μ)|).
Tables: summary, cycle_distribution, key_findings, details, one_sided, legend.]],
  needs = {},
  options = {
    cycle = { type = "string", default = "ProfilerStep", help = "annotation that marks a cycle in Kineto traces" },
    key = { type = "string", default = "name", choices = { "name", "short_name" },
        help = "group kernels by full or short name" },
    alpha = { type = "number", default = 0.01, help = "significance level for p(β) and U-test p(β)" },
    min_delta_beta = { type = "number", default = 0.1, help = "smallest |Δβ| (percentage points) called significant" },
    top = { type = "integer", min = 0, default = 3, help = "functions described in the key findings" },
    rows = { type = "integer", min = 0, default = 0, help = "rows of the details table to show (0 = all)" },
    metrics_per_finding = { type = "integer", min = 0, default = 3, help = "metric changes listed per key finding" },
  },
  run = function(inputs, opts, report)
    if #inputs == 0 then perflab.fail("suspicion needs inputs: perflab run suspicion --baseline FILE... --target FILE...") end
    local bp, tp = compare.split_roles(inputs, "suspicion")
    local B, A = read_side(bp, opts), read_side(tp, opts)

    -- summary and cycle distribution
    local function cyc_durs(side) return side.cycles:sort_by("-duration_ns"):col("duration_ns") end
    local db, da = cyc_durs(B), cyc_durs(A)
    local mb, ma = compare.mean(db), compare.mean(da)
    report:table("summary", T.from_rows({
      { metric = "Total Cycles", normal = #db, abnormal = #da, delta = #da - #db },
      { metric = "Avg Cycle Time (ns)", normal = mb, abnormal = ma, delta = ma - mb,
          change_pct = 100 * (ma - mb) / mb },
    }, { "metric", "normal", "abnormal", "delta", "change_pct" }), {
      title = string.format("baseline (normal): %d cycles of %d run(s); target (abnormal): %d cycles of %d run(s)",
        #db, #B.runs, #da, #A.runs) })
    local dist = {}
    for r = 1, math.max(#db, #da) do
      local x, y = r <= #db and db[r] or nil, r <= #da and da[r] or nil
      dist[r] = { rank = r, normal_ns = x, abnormal_ns = y, delta_ns = (x and y) and (y - x) or nil,
                  delta_pct = (x and y and x ~= 0) and 100 * (y - x) / x or nil }
    end
    report:table("cycle_distribution", T.from_rows(dist, { "rank", "normal_ns", "abnormal_ns", "delta_ns",
        "delta_pct" }),
      { title = "cycle durations, longest first, rank by rank" })

    -- triplets: every function of either side (sorted by name, device)
    -- with each metric recorded on its device (or none)
    local fd = { "function", "device" }
    local keys = T.concat(B.busy:select(table.unpack(fd)), A.busy:select(table.unpack(fd)))
    keys = keys:group_by(table.unpack(fd)):agg({ { "n", "count" } }):sort_by(table.unpack(fd)):select(table.unpack(fd))
    keys = keys:with("k", keys:rownum())
    for _, s in ipairs({ { B, "calls_b" }, { A, "calls_a" } }) do
      local calls = s[1].busy:group_by(table.unpack(fd)):agg { { "calls", "sum", "calls" } }
      keys = keys:with(s[2], keys:join(calls, { on = fd, how = "left" }):col("calls"))
    end
    local bgrid, agrid = betas(B, keys), betas(A, keys)
    local nb, na = B.cycles:nrows(), A.cycles:nrows()
    local mets = {}
    for _, side in ipairs({ B, A }) do mets[#mets + 1] = side.metrics end
    local trip
    if #mets > 0 then
      mets = T.concat(table.unpack(mets))
      mets = mets:group_by("device", "metric"):agg({ { "n", "count" } }):select("device", "metric")
      trip = keys:join(mets, { on = "device", how = "left" })
    else
      trip = keys:with("metric", keys:const(nil, "string"))
    end
    trip = trip:sort_by("function", "device", "metric")
    local fb, nbm = mu_rows(B, trip)
    local fa, nam = mu_rows(A, trip)
    trip = trip:with("_fb", fb):with("_nb", nbm):with("_fa", fa):with("_na", nam)
    local rows, onesided = {}, {}
    local fstat = {} -- key -> {dbeta, p, up, sig, beta_b, beta_a}
    for _, t in trip:rows() do
      local k = t.k
      local s = fstat[k]
      if not s then
        local bb, ba = slice(bgrid, "beta", (k - 1) * nb + 1, nb), slice(agrid, "beta", (k - 1) * na + 1, na)
        local beta_b, beta_a = compare.mean(bb), compare.mean(ba)
        local zb, pb = compare.welch(ba, bb)
        local upb = compare.mwu(ba, bb)
        local sig = nanil(pb) and nanil(upb) and pb < opts.alpha and upb < opts.alpha
          and math.abs(beta_a - beta_b) >= opts.min_delta_beta or false
        s = { dbeta = beta_a - beta_b, p = nanil(pb), up = nanil(upb), sig = sig, beta_b = beta_b, beta_a = beta_a,
            zb = zb }
        fstat[k] = s
        if not t.calls_b or not t.calls_a then
          onesided[#onesided + 1] = { ["function"] = t["function"], device = t.device,
            present = t.calls_b and "baseline only" or "target only",
            beta_pct = t.calls_b and beta_b or beta_a, calls = t.calls_b or t.calls_a }
        end
      end
      local m = t.metric or false
      local ub, ua = {}, {}
      if m then ub, ua = slice(B.mu, "mu", t._fb, t._nb), slice(A.mu, "mu", t._fa, t._na) end
      local zm, pm = compare.welch(ua, ub)
      local zl = compare.welch(logs(ua), logs(ub))
      local upm = compare.mwu(ua, ub)
      local mub, mua = mean_or_nil(ub), mean_or_nil(ua)
      local beta_b, beta_a, zb, pb, upb = s.beta_b, s.beta_a, s.zb, s.p, s.up
      local db_ = beta_a - beta_b
      rows[#rows + 1] = {
        ["function"] = t["function"], metric = m or "-", device = t.device,
        suspicion_score = compare.suspicion_score(db_, zb, zl),
        beta_normal_pct = beta_b, beta_abnormal_pct = beta_a, delta_beta_pct = db_,
        z_beta = finite(zb), p_beta = pb, u_p_beta = upb,
        mu_normal = mub, mu_abnormal = mua, delta_mu = (mub and mua) and (mua - mub) or nil,
        z_mu = m and finite(zm) or nil, z_log_mu = m and finite(zl) or nil, p_mu = nanil(pm), u_p_mu = nanil(upm),
        _key = k,
      }
    end
    table.sort(rows, function(x, y)
      if x.suspicion_score ~= y.suspicion_score then return x.suspicion_score > y.suspicion_score end
      if x["function"] ~= y["function"] then return x["function"] < y["function"] end
      return x.metric < y.metric
    end)

    -- key findings: the top functions among the significant ones
    local nsig, fnseen, kf = 0, {}, {}
    for _, s in pairs(fstat) do if s.sig then nsig = nsig + 1 end end
    for _, r in ipairs(rows) do
      local s = fstat[r._key]
      if s.sig and not fnseen[r._key] and #kf < opts.top then
        fnseen[r._key] = true
        local mchanges = {}
        for _, r2 in ipairs(rows) do
          if r2._key == r._key and r2.metric ~= "-" and r2.mu_normal and r2.mu_abnormal and r2.p_mu
              and r2.p_mu < opts.alpha
            and #mchanges < opts.metrics_per_finding then
            mchanges[#mchanges + 1] = string.format("%s: %s from %s to %s", r2.metric,
              r2.mu_abnormal > r2.mu_normal and "increased" or "decreased", fmt_num(r2.mu_normal),
                  fmt_num(r2.mu_abnormal))
          end
        end
        local dir = s.dbeta > 0 and "increased" or "decreased"
        kf[#kf + 1] = { ["function"] = r["function"], device = r.device, direction = dir,
          beta_from = s.beta_b, beta_to = s.beta_a, delta_ppt = s.dbeta, p_value = s.p, u_p_value = s.up,
          suspicion_score = r.suspicion_score, correlated = table.concat(mchanges, "; ") }
        report:finding {
          severity = "warn", rule = "suspicion.beta_shift", subject = r["function"],
          message = string.format("%s on device %s: its share of cycle time (β) %s from %.2f%% to %.2f%% (%+.2f ppt), statistically significant (p-value %s, U-test p %s)%s",
            r["function"], r.device, dir, s.beta_b, s.beta_a, s.dbeta, fmt_p(s.p), fmt_p(s.up),
            #mchanges > 0 and ("; with it the resource metrics (μ) changed: " .. table.concat(mchanges, "; "))
                or "; no resource metric changed significantly with it"),
          evidence = { beta_normal_pct = s.beta_b, beta_abnormal_pct = s.beta_a, p_beta = s.p, u_p_beta = s.up,
                       suspicion_score = r.suspicion_score, alpha = opts.alpha,
                       formula = "score = |Δβ|·(|Z(β)| + |Z(log μ)|)" },
        }
      end
    end
    report:table("key_findings", T.from_rows(kf, { "function", "device", "direction", "beta_from", "beta_to",
        "delta_ppt",
      "p_value", "u_p_value", "suspicion_score", "correlated" }), { title = string.format(
      "the %d most suspicious functions whose β changed significantly (Welch and Mann-Whitney p < %g, |Δβ| >= %g ppt)",
      #kf, opts.alpha, opts.min_delta_beta) })

    local cols = { "function", "metric", "device", "suspicion_score", "beta_normal_pct", "beta_abnormal_pct",
        "delta_beta_pct",
      "z_beta", "p_beta", "u_p_beta", "mu_normal", "mu_abnormal", "delta_mu", "z_mu", "z_log_mu", "p_mu", "u_p_mu" }
    for _, r in ipairs(rows) do r._key = nil end
    local details = T.from_rows(rows, cols, "details")
    local shown = (opts.rows > 0 and details:nrows() > opts.rows) and details:head(opts.rows) or details
    report:table("details", shown, { title = string.format(
      "%d (function, metric, device) triplets, sorted by suspicion score%s", details:nrows(),
      shown ~= details and string.format(" (top %d shown)", opts.rows) or "") })
    if #onesided > 0 then
      report:table("one_sided", T.from_rows(onesided, { "function", "device", "present", "beta_pct", "calls" }),
        { title = "functions present on one side only (their β on the other side is 0)" })
      report:finding { severity = "info", rule = "suspicion.one_sided",
        message = string.format("%d function(s) ran on one side only (table one_sided)", #onesided),
        evidence = { count = #onesided } }
    end
    local lrows = {}
    for i, l in ipairs(legend) do lrows[i] = { term = l[1], definition = l[2] } end
    report:table("legend", T.from_rows(lrows, { "term", "definition" }), { title = "what the columns mean" })

    -- verdict
    local change = 100 * (ma - mb) / mb
    if nsig == 0 then
      report:finding { severity = "info", rule = "suspicion.none",
        message = string.format("No function's share of cycle time changed significantly (%d functions; Welch and Mann-Whitney p < %g and |Δβ| >= %g ppt required); average cycle time %s -> %s (%+.2f%%).",
          keys:nrows(), opts.alpha, opts.min_delta_beta, units.ns(mb), units.ns(ma), change),
        evidence = { functions = keys:nrows(), alpha = opts.alpha, cycles_normal = #db, cycles_abnormal = #da } }
    else
      report:note(string.format("%d of %d functions changed their share of cycle time significantly; average cycle time %s -> %s (%+.2f%%). Focus on the highest suspicion score first.",
        nsig, keys:nrows(), units.ns(mb), units.ns(ma), change))
    end
    if B.dropped + A.dropped > 0 then
      report:note(string.format("%d kernel/memcpy/memset executions were launched outside every cycle and are not counted.",
        B.dropped + A.dropped))
    end
    figure(report)   -- scores of the top triplets
  end,
}

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

local finite, NaN = compare.finite, compare.NaN

local basename = require("perflab.util").basename
local chart = require "perflab.chart"
local figures = require "perflab.figures"

-- ---- counters: device and series ------------------------------------------

local function counter_device(series, pid)
  local n = series and (series:match("^[Gg][Pp][Uu]%s*(%d+)$") or series:match("^cuda:(%d+)$")
    or series:match("^[Dd]evice%s*(%d+)$") or series:match("^(%d+)$"))
  if n then return "GPU " .. n end
  if series and (series == "Host" or series == "CPU" or series == "cpu") then return "Host" end
  local p = tonumber(pid)
  if p and p >= 0 and p < 64 then return "GPU " .. math.floor(p) end
  return "Host"
end

-- A series: sorted ts, value, optional end (interval samples).
local function new_series() return { ts = {}, v = {}, e = nil } end

local function sort_series(s)
  local idx = {}
  for i = 1, #s.ts do idx[i] = i end
  table.sort(idx, function(a, b) if s.ts[a] ~= s.ts[b] then return s.ts[a] < s.ts[b] end return a < b end)
  local ts, v, e = {}, {}, s.e and {} or nil
  for k, i in ipairs(idx) do ts[k] = s.ts[i]; v[k] = s.v[i]; if e then e[k] = s.e[i] end end
  s.ts, s.v, s.e = ts, v, e
end

-- last index with ts[i] <= t (0 when none)
local function upper(ts, t)
  local lo, hi = 1, #ts
  local ans = 0
  while lo <= hi do
    local mid = (lo + hi) // 2
    if ts[mid] <= t then ans = mid; lo = mid + 1 else hi = mid - 1 end
  end
  return ans
end

-- ---- a side: cycles, executions, metrics ---------------------------------

-- side = { cycles = { {run=, id=, dur=, fn = {key -> {busy=, area = {metric -> a}, cov = {metric -> c}, calls=}}} },
--          fnames = {key -> {function=, device=}},
--          metrics = {device -> {metric -> true}},
--          cmetric = {cycle index -> {device -> {metric -> value}}} (per-cycle metric samples) }

local function new_side()
  return { cycles = {}, fnames = {}, metrics = {}, runs = {}, pending = {}, pending_order = {} }
end

local function fkey(name, dev) return name .. "\0" .. dev end

-- An execution [s, e) of a function: its busy time now; its metric values
-- (the time-weighted mean of each of the device's series over [s, e), or
-- the value in force at s when no sample covers it) when settle() runs.
local function add_exec(side, cyc, name, dev, s, e, series_by_dev)
  local key = fkey(name, dev)
  if not side.fnames[key] then side.fnames[key] = { name = name, device = dev } end
  local f = cyc.fn[key]
  if not f then f = { busy = 0, calls = 0, area = {}, cov = {}, point = {} }; cyc.fn[key] = f end
  f.busy = f.busy + (e - s)
  f.calls = f.calls + 1
  local ser = series_by_dev and series_by_dev[dev]
  if ser and s then
    local q = side.pending[ser]
    if not q then q = { f = {}, s = {},
        e = {} }; side.pending[ser] = q; side.pending_order[#side.pending_order + 1] = ser end
    local k = #q.f + 1
    q.f[k], q.s[k], q.e[k] = f, s, e
  end
end

-- The pending executions against their device's series: one call of the
-- interval engine per series (perflab.intervals.series_windows) gives each
-- execution's integral, covered length and the sample in force at its
-- start; they are added in execution order, per function and metric.
local function settle(side)
  for _, ser in ipairs(side.pending_order) do
    local q = side.pending[ser]
    local ms = {}
    for m in pairs(ser) do ms[#ms + 1] = m end
    table.sort(ms)
    for _, m in ipairs(ms) do
      local sr = ser[m]
      local area, cov, at = I.series_windows(sr.ts, sr.e or false, sr.v, q.s, q.e)
      for k, f in ipairs(q.f) do
        if cov[k] > 0 then
          f.area[m] = (f.area[m] or 0) + area[k]
          f.cov[m] = (f.cov[m] or 0) + cov[k]
        elseif at[k] then
          f.point[m] = f.point[m] or {}
          f.point[m][#f.point[m] + 1] = sr.v[at[k]]
        end
      end
    end
  end
  side.pending, side.pending_order = {}, {}
end

-- Kineto trace -> one run
local function read_kineto(side, p, opts)
  local run = basename(p.source)
  side.runs[#side.runs + 1] = run
  -- cycles
  local cyc = {}
  if opts.cycle == "ProfilerStep" and p:has("steps") and p:table("steps"):nrows() > 0
      and p:table("steps"):has("start_ns") then
    for _, r in p:table("steps"):rows() do
      cyc[#cyc + 1] = { run = run, id = r.step, start = r.start_ns, dur = r.duration_ns, fn = {} }
    end
  else
    if not p:has("events") then
      -- a tb-profiler export has per-step times but no timeline to place them on
      perflab.fail(string.format("%s (%s): suspicion needs cycles with start times (a Kineto trace's ProfilerStep "
        .. "spans or events) or function/metric CSVs; this has tables %s", p.source, p.format,
            table.concat(p:table_names(), ", ")))
    end
    -- complete spans named WANT or WANT#N (the name test once per distinct name)
    local ev = p:table("events")
    local want = opts.cycle == "ProfilerStep" and "ProfilerStep" or opts.cycle
    local named = ev:col("name"):map(function(nm) return nm == want or nm:sub(1, #want + 1) == want .. "#" end)
    local spans = ev:filter(named & ev:col("ph"):eq("X") & ev:col("dur_ns"):gt(0)
      & ~ev:col("cat"):eq("gpu_user_annotation"))
    for n, r in spans:rows() do
      cyc[#cyc + 1] = { run = run, id = tonumber(r.name:match("#(%d+)$")) or n, start = r.ts_ns, dur = r.dur_ns,
          fn = {} }
    end
  end
  if #cyc == 0 then
    perflab.fail(string.format("%s has no cycles: no ProfilerStep#N spans%s (name the annotation that marks a cycle with --set cycle=NAME)",
      p.source, opts.cycle ~= "ProfilerStep" and (" and no complete events named '" .. opts.cycle .. "'") or ""))
  end
  for i, c in ipairs(cyc) do c.pos = i end     -- ties in input order (table.sort is not stable)
  table.sort(cyc, function(a, b) if a.start ~= b.start then return a.start < b.start end return a.pos < b.pos end)
  local starts = {}
  for i, c in ipairs(cyc) do starts[i] = c.start end
  -- counters
  local series = {}
  if p:has("counters") then
    local ct = p:table("counters")
    ct = ct:filter(ct:col("name"):present() & ct:col("value"):present() & ct:col("ts_ns"):present())
    ct = ct:with("_ranged", ct:col("dur_ns"):gt(0))
    -- device and metric once per distinct (name, series, pid, ranged):
    -- {"name": M, "args": {"GPU 0": v}} -> metric M; a CUPTI range
    -- (name = kernel, arg = metric) -> the arg; else NAME.ARG
    local by = ct:group_by("name", "series", "pid", "_ranged")
    local keys, dm = {}, {}
    for g, r in by:agg({ { "n", "count" } }):rows() do
      local dev, metric, s_ = counter_device(r.series, r.pid), r.name, r.series
      if s_ and s_ ~= "" and s_ ~= r.name and s_ ~= "Host" and s_ ~= "CPU" and s_ ~= "cpu"
        and not counter_device(s_, nil):match("^GPU") then
        metric = r._ranged and s_ or (r.name .. "." .. s_)
      end
      keys[g] = { _series = dev .. "\0" .. metric }
      dm[keys[g]._series] = { dev, metric }
    end
    if #keys > 0 then
      ct = ct:with("_series", by:broadcast(T.from_rows(keys, { "_series" })):col("_series"))
      -- each series in time order (stable: equal times keep input order)
      local g, ids = ct:group_by("_series"):agg { { "rows", "ids" }, { "ranged", "count", where = ct:col("_ranged") } }
      for i, r in g:rows() do
        local dev, metric = dm[r._series][1], dm[r._series][2]
        local sub = ct:take(ids.rows[i])
        sub = sub:take(sub:order("ts_ns"))
        local s = { ts = sub:col("ts_ns"):to_lua(), v = sub:col("value"):to_lua() }
        if r.ranged > 0 then
          local du = sub:col("dur_ns"):to_lua()
          s.e = {}
          for k = 1, #s.ts do s.e[k] = (du[k] and du[k] > 0) and s.ts[k] + du[k] or s.ts[k] end
        end
        series[dev] = series[dev] or {}
        series[dev][metric] = s
        side.metrics[dev] = side.metrics[dev] or {}
        side.metrics[dev][metric] = true
      end
    end
  end
  -- launches: correlation -> CPU launch time; also by (pid, correlation)
  -- for device tables that carry pid (nsys exports: correlation ids repeat
  -- across processes)
  local launch, launch_pc = {}, {}
  if p:has("runtime") then
    local rt = p:table("runtime")
    local co, st = rt:col("correlation"):to_lua(), rt:col("start_ns"):to_lua()
    local pp = rt:has("pid") and rt:col("pid"):to_lua() or {}
    for i = 1, rt:nrows() do
      if co[i] and st[i] then
        launch[co[i]] = st[i]
        if pp[i] ~= nil then launch_pc[tostring(pp[i]) .. ":" .. co[i]] = st[i] end
      end
    end
  end
  local function place(t)
    local i = upper(starts, t)
    if i == 0 then return nil end
    local c = cyc[i]
    if t <= c.start + c.dur then return c end
    return nil
  end
  local dropped = 0
  for _, tn in ipairs({ "kernels", "memcpy", "memset" }) do
    if p:has(tn) then
      local k = p:table(tn)
      local key = (tn == "kernels" and opts.key == "short_name" and k:has("short_name")) and "short_name" or "name"
      local nm, st, du, dv = k:col(key):to_lua(), k:col("start_ns"):to_lua(), k:col("duration_ns"):to_lua(),
        k:col("device"):to_lua()
      local co = k:has("correlation") and k:col("correlation"):to_lua() or {}
      local kp = k:has("pid") and k:col("pid"):to_lua()
      for i = 1, k:nrows() do
        if nm[i] and st[i] and du[i] then
          local l
          if kp then l = co[i] and kp[i] ~= nil and launch_pc[tostring(kp[i]) .. ":" .. co[i]]
          else l = launch[co[i] or -1] end
          local c = place(l or st[i])
          if c then
            local dev = "GPU " .. tostring(dv[i] or 0)
            add_exec(side, c, nm[i], dev, st[i], st[i] + du[i], series)
          else
            dropped = dropped + 1
          end
        end
      end
    end
  end
  settle(side)
  for _, c in ipairs(cyc) do side.cycles[#side.cycles + 1] = c end
  return dropped
end

local function col_of(t, names)
  for _, n in ipairs(names) do if t:has(n) then return n end end
  return nil
end

-- CSV function samples
local function read_fn_csv(side, t, p, state)
  local cdur = col_of(t, { "duration_ns", "duration_us", "duration_ms", "duration" })
  local scale = ({ duration_ns = 1, duration_us = 1e3, duration_ms = 1e6, duration = 1 })[cdur]
  local rows = t:to_lua()
  local cyc = state.cycles
  for _, r in ipairs(rows) do
    local run = tostring(r.run or basename(p.source))
    local key = run .. "\0" .. tostring(r.cycle)
    local c = cyc[key]
    if not c then
      c = { run = run, id = r.cycle, dur = 0, fn = {}, sum = 0 }
      cyc[key] = c
      state.order[#state.order + 1] = c
    end
    local d = (r[cdur] or 0) * scale
    c.sum = c.sum + d
    if r.cycle_ns then c.dur = r.cycle_ns end
    local s = r.start_ns
    c.execs = c.execs or {}
    c.execs[#c.execs + 1] = { name = tostring(r["function"]), device = tostring(r.device or "-"), s = s,
        e = s and s + d, d = d }
  end
end

-- CSV metric samples
local function read_metric_csv(side, t, p, state)
  local cts = col_of(t, { "timestamp_ns", "ts_ns", "timestamp" })
  for _, r in ipairs(t:to_lua()) do
    local run = tostring(r.run or basename(p.source))
    local dev, m = tostring(r.device or "-"), tostring(r.metric)
    side.metrics[dev] = side.metrics[dev] or {}
    side.metrics[dev][m] = true
    if cts and r[cts] then
      state.series[run] = state.series[run] or {}
      local sd = state.series[run]
      sd[dev] = sd[dev] or {}
      local s = sd[dev][m]
      if not s then s = new_series(); sd[dev][m] = s end
      s.ts[#s.ts + 1] = r[cts]
      s.v[#s.v + 1] = r.value
    elseif r.cycle ~= nil then
      local key = run .. "\0" .. tostring(r.cycle)
      state.cval[key] = state.cval[key] or {}
      local cv = state.cval[key]
      cv[dev] = cv[dev] or {}
      local a = cv[dev][m] or { 0, 0 }
      a[1], a[2] = a[1] + (r.value or 0), a[2] + 1
      cv[dev][m] = a
    end
  end
end

local function finish_csv(side, state)
  for _, sd in pairs(state.series) do
    for _, ms in pairs(sd) do for _, s in pairs(ms) do sort_series(s) end end
  end
  for _, c in ipairs(state.order) do
    if not c.dur or c.dur == 0 then c.dur = c.sum end
    local series = state.series[c.run]
    for _, x in ipairs(c.execs or {}) do
      add_exec(side, c, x.name, x.device, x.s or 0, (x.s or 0) + x.d, x.s and series or nil)
    end
    settle(side)
    -- per-cycle metric values apply to every function of the cycle on that device
    local cv = state.cval[c.run .. "\0" .. tostring(c.id)]
    if cv then
      for key, f in pairs(c.fn) do
        local dev = side.fnames[key].device
        for m, a in pairs(cv[dev] or {}) do
          f.point[m] = f.point[m] or {}
          f.point[m][#f.point[m] + 1] = a[1] / a[2]
        end
      end
    end
    c.execs = nil
    side.cycles[#side.cycles + 1] = c
    local seen = false
    for _, r in ipairs(side.runs) do if r == c.run then seen = true end end
    if not seen then side.runs[#side.runs + 1] = c.run end
  end
end

local function read_side(profiles, opts)
  local side = new_side()
  local state = { cycles = {}, order = {}, series = {}, cval = {} }
  local dropped = 0
  for _, p in ipairs(profiles) do
    if p:has("csv") then
      local t = p:table("csv")
      if t:has("function") then read_fn_csv(side, t, p, state)
      elseif t:has("metric") and t:has("value") then read_metric_csv(side, t, p, state)
      else
        perflab.fail(string.format("%s: a CSV for suspicion needs columns run, cycle, function, device, duration_ns (function samples) or run, timestamp_ns|cycle, device, metric, value (metric samples); it has: %s",
          p.source, table.concat(t:columns(), ", ")))
      end
    elseif p:has("kernels") or p:has("steps") then
      dropped = dropped + read_kineto(side, p, opts)
    else
      perflab.fail(string.format("%s (%s): suspicion reads Kineto traces or function/metric CSVs; this has tables %s",
        p.source, p.format, table.concat(p:table_names(), ", ")))
    end
  end
  finish_csv(side, state)
  if #side.cycles == 0 then perflab.fail("suspicion: a side has no cycles (no function samples?)") end
  side.dropped = dropped
  return side
end

-- ---- statistics per triplet ------------------------------------------------

local function betas(side, key)
  local b = {}
  for i, c in ipairs(side.cycles) do
    local f = c.fn[key]
    b[i] = (f and c.dur > 0) and 100 * f.busy / c.dur or 0
  end
  return b
end

local function mus(side, key, metric)
  local m = {}
  for _, c in ipairs(side.cycles) do
    local f = c.fn[key]
    if f then
      local cov = f.cov[metric]
      if cov and cov > 0 then m[#m + 1] = f.area[metric] / cov
      elseif f.point[metric] then m[#m + 1] = compare.mean(f.point[metric]) end
    end
  end
  return m
end

local function logs(x)
  local out = {}
  for _, v in ipairs(x) do if v > 0 then out[#out + 1] = math.log(v) end end
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
    local function cyc_durs(side)
      local d = {}
      for i, c in ipairs(side.cycles) do d[i] = c.dur end
      table.sort(d, function(x, y) return x > y end)
      return d
    end
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
      local x, y = db[r], da[r]
      dist[r] = { rank = r, normal_ns = x, abnormal_ns = y, delta_ns = (x and y) and (y - x) or nil,
                  delta_pct = (x and y and x ~= 0) and 100 * (y - x) / x or nil }
    end
    report:table("cycle_distribution", T.from_rows(dist, { "rank", "normal_ns", "abnormal_ns", "delta_ns",
        "delta_pct" }),
      { title = "cycle durations, longest first, rank by rank" })

    -- triplets
    local keys, seen = {}, {}
    for _, side in ipairs({ B, A }) do
      for k in pairs(side.fnames) do if not seen[k] then seen[k] = true; keys[#keys + 1] = k end end
    end
    table.sort(keys)
    local fname = function(k) return (B.fnames[k] or A.fnames[k]) end
    local rows, onesided = {}, {}
    local fstat = {} -- key -> {dbeta, p, up, sig, row}
    for _, k in ipairs(keys) do
      local f = fname(k)
      local bb, ba = betas(B, k), betas(A, k)
      local beta_b, beta_a = compare.mean(bb), compare.mean(ba)
      local zb, pb = compare.welch(ba, bb)
      local upb = compare.mwu(ba, bb)
      local sig = nanil(pb) and nanil(upb) and pb < opts.alpha and upb < opts.alpha
        and math.abs(beta_a - beta_b) >= opts.min_delta_beta or false
      fstat[k] = { dbeta = beta_a - beta_b, p = nanil(pb), up = nanil(upb), sig = sig, beta_b = beta_b,
          beta_a = beta_a }
      if not B.fnames[k] or not A.fnames[k] then
        local side = B.fnames[k] and "baseline only" or "target only"
        local calls = 0
        for _, c in ipairs((B.fnames[k] and B or A).cycles) do calls = calls + (c.fn[k] and c.fn[k].calls or 0) end
        onesided[#onesided + 1] = { ["function"] = f.name, device = f.device, present = side,
          beta_pct = B.fnames[k] and beta_b or beta_a, calls = calls }
      end
      local ms = {}
      for _, side in ipairs({ B, A }) do
        for m in pairs(side.metrics[f.device] or {}) do ms[m] = true end
      end
      local mlist = {}
      for m in pairs(ms) do mlist[#mlist + 1] = m end
      table.sort(mlist)
      if #mlist == 0 then mlist = { false } end
      for _, m in ipairs(mlist) do
        local ub, ua = {}, {}
        if m then ub, ua = mus(B, k, m), mus(A, k, m) end
        local zm, pm = compare.welch(ua, ub)
        local zl = compare.welch(logs(ua), logs(ub))
        local upm = compare.mwu(ua, ub)
        local mub, mua = mean_or_nil(ub), mean_or_nil(ua)
        local db_ = beta_a - beta_b
        rows[#rows + 1] = {
          ["function"] = f.name, metric = m or "-", device = f.device,
          suspicion_score = compare.suspicion_score(db_, zb, zl),
          beta_normal_pct = beta_b, beta_abnormal_pct = beta_a, delta_beta_pct = db_,
          z_beta = finite(zb), p_beta = nanil(pb), u_p_beta = nanil(upb),
          mu_normal = mub, mu_abnormal = mua, delta_mu = (mub and mua) and (mua - mub) or nil,
          z_mu = m and finite(zm) or nil, z_log_mu = m and finite(zl) or nil, p_mu = nanil(pm), u_p_mu = nanil(upm),
          _key = k,
        }
      end
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
          #keys, opts.alpha, opts.min_delta_beta, units.ns(mb), units.ns(ma), change),
        evidence = { functions = #keys, alpha = opts.alpha, cycles_normal = #db, cycles_abnormal = #da } }
    else
      report:note(string.format("%d of %d functions changed their share of cycle time significantly; average cycle time %s -> %s (%+.2f%%). Focus on the highest suspicion score first.",
        nsig, #keys, units.ns(mb), units.ns(ma), change))
    end
    if B.dropped + A.dropped > 0 then
      report:note(string.format("%d kernel/memcpy/memset executions were launched outside every cycle and are not counted.",
        B.dropped + A.dropped))
    end
    figure(report)   -- scores of the top triplets
  end,
}

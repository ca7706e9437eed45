--- stragglers: which ranks of a job arrive late at its collectives -- HTA's
-- straggler method (hta/analyzers/straggler.py) and a statistical verdict
-- per rank.  Input: one trace per rank (Kineto).
--
-- HTA's method, with its name test fixed (communication kernels are what
-- lua/perflab/comm.lua says, so ncclDevKernel_* and torch symmetric-memory
-- kernels count; HTA tests the prefix "ncclKernel"):
--  1. iterations: the ProfilerStep#N spans, the last one dropped (HTA's
--     default; --set include_last=true keeps it); a kernel belongs to the
--     iteration whose span holds its launch (the runtime call with its
--     correlation id), else its start;
--  2. t_min = the earliest iteration start over all ranks, mean_iter =
--     (latest end - t_min) / number of iterations;
--  3. communication kernels on a stream > 0, in an iteration, lasting at
--     least min_share_pct (1 %) of mean_iter; the last one per (rank,
--     stream, iteration, name);
--  4. the (stream, name) whose duration / mean_iter has the largest mean
--     over iterations of its standard deviation across ranks (a waiting
--     rank's kernel is long, the late rank's short);
--  5. metric = (start - t_min) / mean_iter of that kernel; per iteration
--     the ranks at or above the `candidates`-th largest metric are flagged
--     (HTA's num_candidates; default here 1, HTA's 2 flags half of a
--     4-rank job every time); result: how many iterations each rank was
--     flagged.
-- Verdict: per rank, its lateness in each iteration (metric minus the
-- median metric of the ranks in that iteration, so iterations compare),
-- Mann-Whitney U against the lateness values of every other rank
-- (perflab.stats, two-sided p) and Cliff's delta (the share of pairs where
-- it is later minus the share where it is earlier): a straggler when p <
-- alpha and delta >= min_delta, else normal.  (Earlier than the others is
-- not reported: against a pool that holds a straggler every normal rank
-- looks early.)
-- Tables: ranks (rank, source, comm_kernels, iterations, flagged,
-- flagged_pct, median_lateness, mw_u, mw_p, cliffs_delta, step_p,
-- step_delta, verdict),
-- iterations (iteration, rank, start_metric, lateness, duration_metric,
-- flagged),
-- kernels (stream, name, iterations, mean_std: the candidates of step 4).
local perflab = require "perflab"
local T = perflab.table
local S = require "perflab.stats"
local I = perflab.intervals
local comm = require "perflab.comm"
local ranks_mod = require "perflab.ranks"
local units = perflab.units
local names = require "perflab.names"
local chart = require "perflab.chart"
local figures = require "perflab.figures"
local per_rank_text, few_steps

local function col(t, name)
  if t and t:has(name) then return t:col(name):to_lua() end
  return {}
end

-- a table as an array of row tables (none: empty)
local function rows(t) return t and t:to_lua() or {} end

-- ---- map: one rank ------------------------------------------------------------

local function map_rank(p, opts)
  local st = p.tables.steps
  local sn, ss, sd = col(st, "step"), col(st, "start_ns"), col(st, "duration_ns")
  local spans = {}
  for i = 1, #sn do spans[i] = { it = sn[i], s = ss[i], e = ss[i] + sd[i] } end
  table.sort(spans, function(a, b) return a.s < b.s end)
  if not opts.include_last and #spans >= 2 then spans[#spans] = nil end
  -- each kernel's iteration: the span that holds its launch (the last
  -- runtime call of its correlation, a group and a join), else its start;
  -- the spans in start order against all kernels at once (I.first_window
  -- on [t, t + 1]: the span with s <= t < e)
  local t_max = math.mininteger
  for _, sp in ipairs(spans) do if sp.e > t_max then t_max = sp.e end end
  local krows, ncomm = {}, 0
  local kt = p.tables.kernels
  if kt and kt:nrows() > 0 and #spans > 0 then
    local ws, we = {}, {}
    for i, sp in ipairs(spans) do ws[i], we[i] = sp.s, sp.e end
    local start, dur = kt:col("start_ns"), kt:col("duration_ns")
    local rt = p.tables.runtime
    local launch                       -- per kernel, missing where no call
    if rt and rt:nrows() > 0 and rt:has("correlation") and kt:has("correlation") then
      local last = rt:filter(rt:col("correlation"):present(), { "correlation", "start_ns" }):group_by("correlation")
        :agg { { "launch_ns", "last", "start_ns" } }
      launch = kt:select("correlation"):join(last, { on = "correlation", how = "left" }):col("launch_ns")
    end
    local s0 = launch and start:keep(~launch:present()) or start
    local at = kt:select("start_ns"):with("at_s", I.first_window(ws, we, s0, s0 + 1))
    local inside = at:col("at_s"):present()
    if launch then
      at:with("at_l", I.first_window(ws, we, launch, launch + 1))
      inside = inside | at:col("at_l"):present()
    end
    local kend = (start + dur):max { where = inside }
    if kend and kend > t_max then t_max = kend end
    -- the communication kernels in an iteration (few) go to Lua
    local kc = inside & kt:col("name"):map(comm.is_kernel):eq(true)
    ncomm = kc:count { where = kc }
    local cols = { "name", "start_ns", "duration_ns" }
    if kt:has("stream") then cols[4] = "stream" end
    local ck = kt:filter(kc, cols)
    local name, kstart, kdur, stream = col(ck, "name"), col(ck, "start_ns"), col(ck, "duration_ns"), col(ck, "stream")
    local ats = at:filter(kc, launch and { "at_s", "at_l" } or { "at_s" })
    local as, al = col(ats, "at_s"), col(ats, "at_l")
    for i = 1, ck:nrows() do
      krows[i] = { stream = stream[i] or -1, iteration = spans[al[i] or as[i]].it, name = name[i], start_ns = kstart[i],
                   duration_ns = kdur[i] }
    end
  end
  local irows = {}
  for i, sp in ipairs(spans) do irows[i] = { iteration = sp.it, start_ns = sp.s, end_ns = sp.e } end
  return {
    -- a rank that only came from the file order is left to the merge (which
    -- ranks by the order of its inputs, and says so)
    source = p.source, format = p.format,
    rank = p.rank_from ~= "order" and p.rank or nil, world_size = p.rank_from ~= "order" and p.world_size or nil,
    meta = {},
    notes = {},
    table_order = { "iterations", "comm_kernels", "extent" },
    tables = {
      -- int64 values go in tables (exact in CSV), not in the manifest
      extent = T.from_rows({ { t_max = #spans > 0 and t_max or 0, comm_kernels = ncomm } },
          { "t_max", "comm_kernels" }, "extent"),
      iterations = T.from_rows(irows, { "iteration", "start_ns", "end_ns" }, "iterations"),
      comm_kernels = T.from_rows(krows, { "stream", "iteration", "name", "start_ns", "duration_ns" }, "comm_kernels"),
    },
  }
end

-- ---- merge ----------------------------------------------------------------------

local function std(v)
  local n = #v
  if n < 2 then return nil end
  local m = 0
  for _, x in ipairs(v) do m = m + x end
  m = m / n
  local s = 0
  for _, x in ipairs(v) do s = s + (x - m) ^ 2 end
  return math.sqrt(s / (n - 1))
end

local function median(v)
  local c = {}
  for i, x in ipairs(v) do c[i] = x end
  table.sort(c)
  local n = #c
  if n == 0 then return 0 / 0 end
  if n % 2 == 1 then return c[(n + 1) // 2] end
  return (c[n // 2] + c[n // 2 + 1]) / 2
end

--- "rank 0 X; rank 1 Y; ..." over at most 8 ranks (the ranks table has all)
per_rank_text = function(sorted, fn)
  local parts = {}
  for k, s in ipairs(sorted) do
    if k > 8 then parts[#parts + 1] = string.format("and %d more (the ranks table lists every one)",
        #sorted - 8); break end
    parts[#parts + 1] = string.format("rank %s %s", tostring(s.rank), fn(s, k))
  end
  return table.concat(parts, "; ")
end

--- One rank, or fewer than two steps compared: no verdict can be made
-- (Mann-Whitney needs two values per rank and a rank to compare with);
-- the section collapses to what the steps do show: per rank, the total
-- step time, its communication kernels, and in a single step who started
-- the compared kernel last and by how much.
few_steps = function(report, sorted, n_its, sdur, byit, itlist, best, mean_iter)
  local function total(k)
    local sum, n = 0, 0
    for _, d in pairs(sdur[k]) do sum = sum + d; n = n + 1 end
    return sum, n
  end
  if #sorted < 2 then
    local sum, n = total(1)
    report:collapse(string.format("one rank (%s): stragglers compares ranks, and has none to compare it with; its %d step(s) "
      .. "take %s in all, %d communication kernel(s) (step-breakdown and idle-time break its time down)",
      sorted[1].source, n, units.ns(sum), sorted[1].comm_kernels))
    return
  end
  -- one step compared: who started the compared kernel last in it
  local it, latest, earliest
  for _, i in ipairs(itlist) do if byit[i] then it = i end end
  if it then
    for k = 1, #sorted do
      local r = byit[it][k]
      if r then
        if not latest or r.start_ns > byit[it][latest].start_ns then latest = k end
        if not earliest or r.start_ns < byit[it][earliest].start_ns then earliest = k end
      end
    end
  end
  local what = ""
  if it and latest ~= earliest then
    what = string.format(" In step %s, rank %s started %s (stream %d) last, %s after rank %s (%.2f of the mean step): "
      .. "one step cannot tell a late rank from noise.", tostring(it), tostring(sorted[latest].rank),
          names.display(best.name, 60),
      best.stream, units.ns(byit[it][latest].start_ns - byit[it][earliest].start_ns), tostring(sorted[earliest].rank),
      (byit[it][latest].start_ns - byit[it][earliest].start_ns) / mean_iter)
  end
  report:collapse(string.format("%d step compared over %d ranks: a straggler verdict needs at least 2 steps per rank "
    .. "(Mann-Whitney; profile more steps, or --set include_last=true keeps the last one).%s Per rank, step time and "
    .. "communication kernels: %s.", n_its, #sorted, what, per_rank_text(sorted, function(s, k)
      local sum = total(k)
      return string.format("%s, %d", units.ns(sum), s.comm_kernels)
    end)))
end

local function merge(parts, opts, report)
  local sorted, notes = ranks_mod.assign(parts)
  for _, n in ipairs(notes) do report:note(n) end
  local ins = {}
  for i, s in ipairs(sorted) do ins[i] = { source = s.source, format = s.format, role = s.role } end
  report.inputs = ins
  -- iterations and t_min / mean_iter over all ranks
  local t_min, t_max, its, itlist = math.maxinteger, math.mininteger, {}, {}
  for _, s in ipairs(sorted) do
    for _, r in ipairs(rows(s.tables.iterations)) do
      if r.start_ns < t_min then t_min = r.start_ns end
      if not its[r.iteration] then its[r.iteration] = true; itlist[#itlist + 1] = r.iteration end
    end
    local ext = rows(s.tables.extent)[1] or {}
    s.comm_kernels = ext.comm_kernels or 0
    if (ext.t_max or 0) > t_max and #rows(s.tables.iterations) > 0 then t_max = ext.t_max end
  end
  table.sort(itlist)
  local rank_rows, it_rows, cand_rows = {}, {}, {}
  local function finish_tables()
    report:table("ranks", T.from_rows(rank_rows, { "rank", "source", "comm_kernels", "iterations", "flagged",
        "flagged_pct",
      "median_lateness", "mw_u", "mw_p", "cliffs_delta", "step_p", "step_delta", "verdict" }, "ranks"),
      { title = "per rank: iterations flagged as a straggler (HTA), and the Mann-Whitney verdict on its start metric" })
    report:table("iterations", T.from_rows(it_rows, { "iteration", "rank", "start_metric", "lateness",
        "duration_metric", "flagged" }, "iterations"),
      { title = "per iteration and rank: start of the chosen kernel, (start - t_min) / mean iteration; lateness = that minus the median over ranks; its duration / mean iteration" })
    report:table("kernels", T.from_rows(cand_rows, { "stream", "name", "iterations", "mean_std" }, "kernels"),
      { title = "candidate (stream, kernel) pairs: mean over iterations of the std across ranks of duration / mean iteration" })
  end
  local function plain_ranks()
    for k, s in ipairs(sorted) do
      rank_rows[k] = { rank = s.rank, source = s.source, comm_kernels = s.comm_kernels,
        iterations = 0, flagged = 0, flagged_pct = 0, verdict = "-" }
    end
  end
  if #itlist == 0 then
    report:note("No ProfilerStep#N iterations in the ranks: HTA's method needs them.")
    plain_ranks(); finish_tables()
    report:collapse(string.format("no ProfilerStep#N step in %s: HTA's method compares the ranks step by step, "
      .. "and needs them (communication kernels: %s)", #sorted == 1 and "the trace" or ("the " .. #sorted .. " ranks"),
      #sorted == 1 and tostring(sorted[1].comm_kernels) or per_rank_text(sorted,
          function(s) return tostring(s.comm_kernels) end)))
    return
  end
  local mean_iter = (t_max - t_min) / #itlist
  local min_dur = opts.min_share_pct / 100 * mean_iter
  -- last long communication kernel per (rank, stream, iteration, name)
  local last = {}     -- key stream|name -> iteration -> rank index -> row
  local groups = {}
  for k, s in ipairs(sorted) do
    for _, r in ipairs(rows(s.tables.comm_kernels)) do
      if r.stream > 0 and r.duration_ns >= min_dur then
        local key = string.format("%d\0%s", r.stream, r.name)
        local g = last[key]
        if not g then
          g = {}; last[key] = g
          groups[#groups + 1] = { key = key, stream = r.stream, name = r.name }
        end
        g[r.iteration] = g[r.iteration] or {}
        local cur = g[r.iteration][k]
        if not cur or r.start_ns >= cur.start_ns then g[r.iteration][k] = r end
      end
    end
  end
  if #groups == 0 then
    report:note(string.format("No communication kernel of at least %g %% of the mean iteration (%s) on a stream: nothing to compare.",
      opts.min_share_pct, units.ns(mean_iter)))
    plain_ranks(); finish_tables()
    report:collapse(string.format("no communication kernel of at least %g %% of the mean iteration (%s) on a stream "
      .. "in %d step(s): nothing to compare across ranks", opts.min_share_pct, units.ns(mean_iter), #itlist))
    return
  end
  table.sort(groups,
      function(a, b) if a.stream ~= b.stream then return a.stream < b.stream end return a.name < b.name end)
  local best
  for _, g in ipairs(groups) do
    local sum, n = 0, 0
    for _, it in ipairs(itlist) do
      local byr = last[g.key][it]
      if byr then
        local v = {}
        for k = 1, #sorted do if byr[k] then v[#v + 1] = byr[k].duration_ns / mean_iter end end
        local sd = std(v)
        if sd then sum = sum + sd; n = n + 1 end
      end
    end
    g.mean_std = n > 0 and sum / n or nil
    g.n = n
    cand_rows[#cand_rows + 1] = { stream = g.stream, name = g.name, iterations = n, mean_std = g.mean_std }
    if g.mean_std and (not best or g.mean_std > best.mean_std) then best = g end
  end
  best = best or groups[1]
  report:note(string.format("Kernel compared: %s on stream %d (mean iteration %s; kernels of at least %s counted).",
    best.name, best.stream, units.ns(mean_iter), units.ns(min_dur)))
  -- metric per rank and iteration; flags
  local flagged, metric = {}, {}
  for k = 1, #sorted do flagged[k] = 0; metric[k] = {} end
  local n_its = 0
  for _, it in ipairs(itlist) do
    local byr = last[best.key][it]
    if byr then
      local vals = {}
      for k = 1, #sorted do
        if byr[k] then vals[#vals + 1] = (byr[k].start_ns - t_min) / mean_iter end
      end
      local mid = median(vals)
      table.sort(vals, function(a, b) return a > b end)
      local th = vals[math.min(math.max(opts.candidates, 1), #vals)]
      n_its = n_its + 1
      for k = 1, #sorted do
        local r = byr[k]
        if r then
          local m = (r.start_ns - t_min) / mean_iter
          local f = m >= th
          if f then flagged[k] = flagged[k] + 1 end
          metric[k][#metric[k] + 1] = m - mid
          it_rows[#it_rows + 1] = { iteration = it, rank = sorted[k].rank, start_metric = m, lateness = m - mid,
            duration_metric = r.duration_ns / mean_iter, flagged = f }
        end
      end
    end
  end
  -- longer: each rank's step durations minus the median over ranks of that
  -- step's duration
  local sdur, excess = {}, {}
  for k, s in ipairs(sorted) do
    sdur[k] = {}; excess[k] = {}
    for _, r in ipairs(rows(s.tables.iterations)) do sdur[k][r.iteration] = r.end_ns - r.start_ns end
  end
  for _, it in ipairs(itlist) do
    local v = {}
    for k = 1, #sorted do if sdur[k][it] then v[#v + 1] = sdur[k][it] end end
    if #v >= 2 then
      local mid = median(v)
      for k = 1, #sorted do if sdur[k][it] then excess[k][#excess[k] + 1] = sdur[k][it] - mid end end
    end
  end
  for k, s in ipairs(sorted) do
    local others = {}
    for q = 1, #sorted do if q ~= k then for _, v in ipairs(metric[q]) do others[#others + 1] = v end end end
    local oex = {}
    for q = 1, #sorted do if q ~= k then for _, v in ipairs(excess[q]) do oex[#oex + 1] = v end end end
    local row = { rank = s.rank, source = s.source, comm_kernels = s.comm_kernels,
      iterations = #metric[k], flagged = flagged[k], flagged_pct = #metric[k] > 0 and 100 * flagged[k] / #metric[k]
          or 0,
      median_lateness = median(metric[k]), verdict = "-" }
    if #metric[k] >= 2 and #others >= 2 then
      local mw = S.mann_whitney_u(metric[k], others)
      local d = S.cliffs_delta(metric[k], others)
      row.mw_u, row.mw_p, row.cliffs_delta = mw.u, mw.p, d
      if mw.p < opts.alpha and d >= opts.min_delta then row.verdict = "straggler"
      else row.verdict = "normal" end
    end
    if #excess[k] >= 2 and #oex >= 2 then
      local mw = S.mann_whitney_u(excess[k], oex)
      row.step_p, row.step_delta = mw.p, S.cliffs_delta(excess[k], oex)
      if row.verdict == "normal" and mw.p < opts.alpha and row.step_delta >= opts.min_delta then
        row.verdict = "slow steps"
        report:finding {
          severity = "warn", rule = "stragglers.slow_steps", subject = "rank " .. s.rank,
          message = string.format("rank %d's steps take longer than the other ranks' (median %s over the step's median; "
            .. "Mann-Whitney p = %.3g, Cliff's delta = %.2f)", s.rank, units.ns(median(excess[k])), mw.p,
                row.step_delta),
          evidence = { mw_p = mw.p, cliffs_delta = row.step_delta, alpha = opts.alpha, min_delta = opts.min_delta,
            formula = "excess = step duration - median over ranks of that step's duration" },
        }
      end
    end
    rank_rows[k] = row
    if row.verdict == "straggler" then
      report:finding {
        severity = "warn", rule = "stragglers.late_rank", subject = "rank " .. s.rank,
        message = string.format("rank %d is a straggler: flagged in %d of %d iterations; its %s on stream %d starts later than the other ranks' "
          .. "(Mann-Whitney p = %.3g, Cliff's delta = %.2f): the other ranks wait for it at every collective",
          s.rank, flagged[k], #metric[k], best.name, best.stream, row.mw_p, row.cliffs_delta),
        evidence = { flagged = flagged[k], iterations = #metric[k], mw_u = row.mw_u, mw_p = row.mw_p,
          cliffs_delta = row.cliffs_delta, alpha = opts.alpha, min_delta = opts.min_delta, kernel = best.name,
          stream = best.stream, mean_iteration_ns = mean_iter,
          formula = "metric = (start of the last such kernel in the iteration - t_min) / mean iteration" },
      }
    end
  end
  finish_tables()
  if #sorted < 2 or n_its < 2 then few_steps(report, sorted, n_its, sdur, last[best.key], itlist, best, mean_iter) end
end

--- stragglers: a rank × iteration heat map of lateness (the `iterations`
-- table: iteration, rank, lateness, flagged); flagged cells say so on hover.
local function figure(report, tname)
  local rows = figures.rows_of(report.tables[tname or "iterations"], { "iteration", "rank", "lateness", "flagged" })
  if not rows then return end
  local ranks, its, ri, ii = {}, {}, {}, {}
  for _, r in ipairs(rows) do
    if r.rank ~= nil and not ri[r.rank] then ranks[#ranks + 1] = r.rank; ri[r.rank] = true end
    if r.iteration ~= nil and not ii[r.iteration] then its[#its + 1] = r.iteration; ii[r.iteration] = true end
  end
  local function cmp(a, b)
    if type(a) == type(b) and type(a) == "number" then return a < b end
    return tostring(a) < tostring(b)
  end
  table.sort(ranks, cmp); table.sort(its, cmp)
  for k, v in ipairs(ranks) do ri[v] = k end
  for k, v in ipairs(its) do ii[v] = k end
  local values = {}
  for k = 1, #ranks do values[k] = {} end
  for _, r in ipairs(rows) do
    if r.rank ~= nil and r.iteration ~= nil and r.lateness then values[ri[r.rank]][ii[r.iteration]] = r.lateness end
  end
  local rl, cl = {}, {}
  for k, v in ipairs(ranks) do rl[k] = "rank " .. tostring(v) end
  for k, v in ipairs(its) do cl[k] = tostring(v) end
  report:figure("stragglers.svg", chart.heatmap {
    title = "Lateness per rank and iteration",
        subtitle = "start of the chosen kernel minus the median over ranks, in mean iterations",
    rows = rl, cols = cl, values = values, row_label = "rank", col_label = "iteration",
    format = function(v) return units.sig(v, 3) end,
  }, { title = "rank × iteration heat map of lateness" })
end

return {
  name = "stragglers",
  figure = figure,   -- its figures from its report's tables (run calls it)
  usage = "perflab run stragglers FILE... [--jobs N] [--set KEY=VALUE]...\n"
    .. "       perflab run stragglers --map FILE --output DIR      (per-rank summary)\n"
    .. "       perflab run stragglers --merge DIR... [--set KEY=VALUE]...",
  summary = "ranks that arrive late at the collectives: HTA's straggler method (fixed for ncclDevKernel_*) and a Mann-Whitney verdict per rank",
  needs = { "kernels.start_ns" },
  options = {
    candidates = { type = "number", default = 1, help = "ranks flagged per iteration (HTA's num_candidates)" },
    min_share_pct = { type = "number", default = 1,
        help = "communication kernels shorter than this share of the mean iteration are ignored" },
    include_last = { type = "boolean", default = false, help = "keep the last ProfilerStep (HTA drops it)" },
    alpha = { type = "number", default = 0.01, help = "Mann-Whitney significance level of the verdict" },
    min_delta = { type = "number", default = 0.5, help = "Cliff's delta (later minus earlier) a straggler must reach" },
  },
  map = map_rank,
  map_options = { "include_last" },
  merge = function(parts, opts, report)   -- --merge: the same report, figure included
    merge(parts, opts, report)
    figure(report)
  end,
  run = function(inputs, opts, report)
    local parts = {}
    inputs = ranks_mod.split(inputs)      -- each process of an nsys export is a rank
    for i, p in ipairs(inputs) do parts[i] = map_rank(p, opts) end
    merge(parts, opts, report)
    figure(report)   -- rank × iteration heat map of lateness
  end,
}

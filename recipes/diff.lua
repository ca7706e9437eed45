--- diff: what changed between two profiles, kernel by kernel.
--
--   perflab run diff FILE_A FILE_B       (A = before/baseline, B = after)
--   perflab run diff FILE                a file holding two runs (a `run`
--                                        column, e.g. tb-profiler JSON):
--                                        run_a vs run_b (default: the first two)
--   perflab run diff --baseline A --target B   the same as FILE_A FILE_B
--
-- Kernels are matched by short name (--set key=name for full names), so
-- ncu, nsys, Kineto and kernel-table outputs of the same program line up; a
-- name cut with "..." matches the one name of the other side it is a prefix
-- of.  Per kernel: calls and total time on each side, delta_ns = B - A,
-- regression_share_pct = 100 * delta_ns / (sum of the positive delta_ns),
-- and, when both sides have per-launch durations for >= min_launches
-- launches, Welch's t-test and the Mann-Whitney U test of the launch
-- durations (two-sided p); where a side is a summary (nsys stats, with a
-- standard deviation column) Welch's t from each side's mean, standard
-- deviation and count (perflab.stats.welch_t_from_stats), and where no test
-- can be made a column `test` says why (tb-profiler and nvprof summaries
-- have no standard deviation; fewer launches than min_launches).
-- status: added (B only), removed (A only),
-- slower / faster (a test has p < alpha; without tests: |delta| > rel_pct %
-- of A's total), same.  Configuration drift: the same kernel launched with
-- another grid, block, registers per thread or shared memory per block,
-- with the theoretical occupancy of each (perflab.gpu.occupancy) when the
-- compute capability is known (meta cc, or --set cc=8.0 / --gpu NAME).
local perflab = require "perflab"
local T = perflab.table
local compare = require "perflab.compare"
local units = perflab.units
local cuda = require "perflab.cuda_occupancy"
local gpus = require "perflab.gpus"
local device = require "perflab.device"
local chart = require "perflab.chart"
local figures = require "perflab.figures"

local function nanil(x) if x == nil or x ~= x then return nil end return x end

-- one side: kernel key -> {calls, total, durs = {...} | nil, configs = {cfg -> n}}
-- (per kernel by group_by; only the per-launch durations of each kernel,
-- for the tests, and its distinct launch configurations come to Lua)
local CFG_COLS = { "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers",
  "smem_bytes", "smem_static_bytes", "smem_dynamic_bytes" }
local function cfg_of(r)
  local smem = r.smem_bytes or ((r.smem_static_bytes or r.smem_dynamic_bytes)
    and ((r.smem_static_bytes or 0) + (r.smem_dynamic_bytes or 0))) or nil
  local function s(v) return tostring(v or "-") end
  return string.format("grid (%s,%s,%s) block (%s,%s,%s) regs %s smem %s", s(r.grid_x), s(r.grid_y), s(r.grid_z),
    s(r.block_x), s(r.block_y), s(r.block_z), s(r.registers), smem and tostring(math.floor(smem)) or "-"),
    { n = 0, block = { r.block_x or 1, r.block_y or 1, r.block_z or 1 }, registers = r.registers, smem = smem }
end

-- the rows of one run (all rows without a run), with a `key` column: the
-- key column's value, else the name (worked out per distinct pair)
local function keyed(tbl, keycol, run)
  local t = tbl
  if run ~= nil then
    if not t:has("run") then return nil end
    local want = tostring(run)
    t = t:filter(t:col("run"):map(function(v) return tostring(v) == want end))
  end
  local kc = t:has(keycol) and keycol or nil
  local nc = t:has("name") and "name" or nil
  if not (kc or nc) or t:nrows() == 0 then return nil end
  local by
  if kc and nc and kc ~= nc then
    by = t:group_by(kc, nc)
    local keys = {}
    for g, r in by:agg({ { "n", "count" } }):rows() do keys[g] = { key = r[kc] or r[nc] } end
    t = t:with("key", by:broadcast(T.from_rows(keys, { "key" })):col("key"))
  else
    t = t:with("key", t:col(kc or nc))
  end
  t = t:filter(t:col("key"):present())
  return t:nrows() > 0 and t or nil
end

local function collect(tbl, keycol, run, side)
  local per, order = {}, {}
  local has_launch = tbl:has("duration_ns") and not tbl:has("total_ns")
  local t = keyed(tbl, keycol, run)
  if t and has_launch then
    local dur = t:col("duration_ns")
    local g, ids = t:group_by("key"):agg { { "calls", "count", where = dur:present() },
      { "total", "sum", "duration_ns" }, { "rows", "ids" } }
    for i, r in g:rows() do
      local durs = t:take(ids.rows[i]):col("duration_ns"):to_lua()
      local d = {}
      for j = 1, #ids.rows[i] do if durs[j] then d[#d + 1] = durs[j] end end
      per[r.key] = { calls = r.calls, total = r.total, durs = d, configs = {}, cfgorder = {} }
      order[#order + 1] = r.key
    end
    -- the distinct launch configurations of each kernel, in order of first launch
    local cols = { "key" }
    for _, c in ipairs(CFG_COLS) do if t:has(c) then cols[#cols + 1] = c end end
    local mask = t:has("block_x") and t:col("block_x"):present() or nil
    if t:has("registers") then mask = mask and (mask | t:col("registers"):present()) or t:col("registers"):present() end
    if mask then
      local c = t:filter(mask)
      if c:nrows() > 0 then
        for _, r in c:group_by(cols):agg({ { "n", "count" } }):rows() do
          local e = per[r.key]
          local cfg, rec = cfg_of(r)
          if not e.configs[cfg] then e.configs[cfg] = rec; e.cfgorder[#e.cfgorder + 1] = cfg end
          e.configs[cfg].n = e.configs[cfg].n + r.n
        end
      end
    end
  elseif t then
    local function col(c) return t:has(c) and t:col(c):to_lua() or {} end
    local keys, calls, total, mean, sdev = col("key"), col("calls"), col("total_ns"), col("mean_ns"), col("stddev_ns")
    for r = 1, t:nrows() do   -- a summary: a row per kernel (or a few)
      local key = keys[r]
      local e = per[key]
      if not e then
        e = { calls = 0, total = 0, configs = {}, cfgorder = {} }
        per[key] = e
        order[#order + 1] = key
      end
      e.calls = e.calls + (calls[r] or 0)
      e.total = e.total + (total[r] or 0)
      -- summary statistics for Welch's t from (mean, sd, n): rows of one
      -- key pooled (sum S of the values, sum Q of their squares)
      local c, m, sd = calls[r], mean[r] or (calls[r] and calls[r] > 0 and total[r] and total[r] / calls[r]), sdev[r]
      if c and c > 0 and m then
        e.sn = (e.sn or 0) + c
        e.S = (e.S or 0) + c * m
        if sd and e.sd_ok ~= false then e.Q = (e.Q or 0) + (c - 1) * sd * sd + c * m * m; e.sd_ok = true
        else e.sd_ok = false end
      end
    end
  end
  if #order == 0 then
    perflab.fail(string.format("diff: %s has no kernels%s", side, run and (" in run " .. tostring(run)) or ""))
  end
  -- n, mean and sample sd of each key (nil sd where the input has none)
  for _, key in ipairs(order) do
    local e = per[key]
    if e.durs and #e.durs > 0 then
      e.n, e.mean = #e.durs, compare.stats.mean(e.durs)
      if #e.durs > 1 then e.sd = compare.stats.sd(e.durs) end
    elseif e.sn and e.sn > 0 then
      e.n, e.mean = e.sn, e.S / e.sn
      if e.sd_ok and e.sn > 1 then e.sd = math.sqrt(math.max(0, (e.Q - e.sn * e.mean * e.mean) / (e.sn - 1))) end
    end
  end
  return per, order
end

-- why a pair of sides cannot be tested (nil when Welch from summaries can)
local function untested(a, b, min_launches)
  if a.durs and b.durs then return string.format("fewer than %d launches a side", min_launches) end
  local why = {}
  for _, x in ipairs({ { "A", a }, { "B", b } }) do
    local e = x[2]
    if not e.n or e.n < 2 then why[#why + 1] = x[1] .. " has fewer than 2 calls"
    elseif not e.sd then why[#why + 1] = x[1] .. " has no per-launch durations or standard deviation" end
  end
  if #why > 0 then return "no test: " .. table.concat(why, "; ") end
  return nil
end

local function kernel_table(p)
  local k = p.tables.kernels
  if k and k:nrows() > 0 and k:has("duration_ns") then return k end
  local s = p.tables.kernel_summary
  if s and s:nrows() > 0 then return s end
  if k then return k end
  return p:table("kernel_summary")
end

-- what the input says of its device: "NVIDIA A100-SXM4-80GB (cc 8.0)",
-- "AMD Instinct MI300X (gfx942)"; with a run of a file of several runs,
-- that run's device (meta runN.device).  nil when the input does not say.
local function device_of(p, run)
  local m = p.meta or {}
  local name = run and m["run" .. tostring(run) .. ".device"] or nil
  local d = p.tables and p.tables.devices
  local d0 = (d and d:nrows() > 0) and d:row(1) or {}
  if not name then name = m.device or d0.name end
  local arch = m.arch or d0.arch
  local tag = arch or ((m.cc or d0.cc) and ("cc " .. tostring(m.cc or d0.cc))) or nil
  if run and m["run" .. tostring(run) .. ".device"] then tag = nil end   -- per-run: the name is all there is
  if name and tag then return string.format("%s (%s)", name, tag) end
  return name or tag
end

-- the number of profiler steps of a side (distinct ProfilerStep#N), or nil
local function step_count(p, run)
  local st = p.tables and p.tables.steps
  if run or not st or st:nrows() == 0 then return nil end
  return st:has("step") and #st:unique("step") or st:nrows()
end

-- Captures of different length (issue 28, point 11): B's kernel time per
-- A-iteration is total_b / ratio, where ratio = B's steps (or iterations)
-- over A's: from the steps tables when both sides have steps and their
-- numbers differ, else from the call counts when those of most of the
-- kernel time move together by one exact ratio (perflab.compare.common_ratio).
-- nil when the captures are of the same length.
local function length_ratio(pa, pb, ra, rb, A, B, aorder, map)
  local na, nb = step_count(pa, ra), step_count(pb, rb)
  if na and nb then
    if na == nb then return nil end
    return { ratio = nb / na, num = nb, den = na, how = string.format("B has %d steps, A %d", nb, na), unit = "step" }
  end
  local pairs_ = {}
  for _, key in ipairs(aorder) do
    local bk = map[key]
    if bk and A[key] and B[bk] then pairs_[#pairs_ + 1] = { a = A[key].calls, b = B[bk].calls, w = A[key].total } end
  end
  local c = compare.common_ratio(pairs_)
  if not c then return nil end
  c.how = string.format("the calls of %d kernels holding %.1f%% of A's kernel time moved together by %d/%d",
    c.kernels, 100 * c.share, c.num, c.den)
  c.unit = "iteration"
  return c
end

local function occupancy(cc, c)
  if not cc or not c.registers or not gpus.cc(cc) then return nil end
  local ok, o = pcall(cuda.occupancy, { cc = cc, block_size = c.block, registers = c.registers,
      smem_static = c.smem or 0 })
  if ok and o and not o.invalid then return o.theoretical_occupancy_pct end
  return nil
end

--- diff: a waterfall from run A's kernel time to run B's, one step per kernel
-- (largest change first), the rest summed.
local function figure(report, tname, max_items)
  tname = tname or "diff"
  local rows = figures.rows_of(report.tables[tname], { "kernel", "total_ns_a", "total_ns_b", "delta_ns" })
  if not rows then return end
  local ta, tb = 0, 0
  local items = {}
  for _, r in ipairs(rows) do
    ta = ta + (r.total_ns_a or 0); tb = tb + (r.total_ns_b or 0)
    local d = (r.total_ns_b or 0) - (r.total_ns_a or 0)
    items[#items + 1] = { label = tostring(r.kernel), delta = d, ad = math.abs(d), a = r.total_ns_a, b = r.total_ns_b,
        i = #items + 1 }
  end
  table.sort(items, function(x, y)
    if x.ad ~= y.ad then return x.ad > y.ad end
    if x.label ~= y.label then return x.label < y.label end
    return x.i < y.i
  end)
  local n = max_items or 15
  local shown, rest, nrest = {}, 0, 0
  for i, it in ipairs(items) do
    if i <= n then
      shown[#shown + 1] = { label = figures.label(it.label), delta = it.delta / 1e6,
          title = string.format("%s: %s → %s (%s%s)", it.label,
        figures.ms(it.a or 0), figures.ms(it.b or 0), it.delta >= 0 and "+" or "", figures.ms(it.delta)) }
    else rest = rest + it.delta; nrest = nrest + 1 end
  end
  if nrest > 0 then
    shown[#shown + 1] = { label = string.format("%d other kernels", nrest), delta = rest / 1e6,
      title = string.format("%d other kernels: %s%s", nrest, rest >= 0 and "+" or "", figures.ms(rest)) }
  end
  local a_name = report.inputs[1] and figures.base(report.inputs[1].source) or "A"
  local b_name = report.inputs[2] and figures.base(report.inputs[2].source) or "B"
  report:figure("diff_waterfall.svg", chart.waterfall {
    title = "Kernel time change per kernel, largest first", subtitle = a_name .. " → " .. b_name,
    start = ta / 1e6, start_label = "A total", end_label = "B total", items = shown, value_label = "kernel time (ms)",
        horizontal = true,
    format = function(v) return units.sig(v, 4) .. " ms" end,
  }, { title = "per-kernel change (waterfall)" })
end

return {
  name = "diff",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "kernel-by-kernel difference of two profiles: calls, time, regression share, tests, added/removed, config drift",
  usage = "perflab run diff FILE_A FILE_B | perflab run diff FILE (two runs) [--set KEY=VALUE]...",
  needs = { "kernels|kernel_summary" },
  -- all it reads (devices: perflab.gpu; cpu_ops ...: the op pairing)
  tables = { "kernels", "kernel_summary", "devices", "cpu_ops", "runtime", "memcpy", "memset", "steps" },
  options = {
    key = { type = "string", default = "short_name", choices = { "short_name", "name" },
        help = "match kernels by short or full name" },
    run_a = { type = "string", default = "",
        help = "with one input holding several runs: the run of side A (default: the first)" },
    run_b = { type = "string", default = "",
        help = "with one input holding several runs: the run of side B (default: the second)" },
    alpha = { type = "number", default = 0.01, help = "p below which a per-launch shift is called slower/faster" },
    min_launches = { type = "integer", min = 0, default = 3,
        help = "launches each side needs for the per-launch tests" },
    rel_pct = { type = "number", default = 5,
        help = "without per-launch data: |delta| above this % of A's total is slower/faster" },
    cc = { type = "string", default = "",
        help = "compute capability for occupancy when the input does not say (e.g. 8.0)" },
    gpu = { type = "string", default = "", help = "GPU model (gives the compute capability)" },
    top = { type = "integer", min = 0, default = 0, help = "rows of the diff table to show (0 = all)" },
  },
  run = function(inputs, opts, report)
    local pa, pb, ra, rb
    if #inputs == 1 then
      local t = kernel_table(inputs[1])
      if not t:has("run") then
        perflab.fail("diff needs two profiles (perflab run diff FILE_A FILE_B) or one holding two runs (a run column)")
      end
      local runs = t:unique("run")
      ra = opts.run_a ~= "" and opts.run_a or (runs[1] and tostring(runs[1]))
      rb = opts.run_b ~= "" and opts.run_b or (runs[2] and tostring(runs[2]))
      if not rb then perflab.fail(string.format("diff: %s holds one run; give two files", inputs[1].source)) end
      pa, pb = inputs[1], inputs[1]
    elseif #inputs == 2 then
      pa, pb = inputs[1], inputs[2]
      if pa.role == "target" and pb.role == "baseline" then pa, pb = pb, pa end
    else
      perflab.fail(string.format("diff compares two profiles (or two runs of one); got %d inputs", #inputs))
    end
    local ta, tb = kernel_table(pa), kernel_table(pb)
    local keycol = opts.key
    local ka = ta:has(keycol) and keycol or "name"
    local kb = tb:has(keycol) and keycol or "name"
    local A, aorder = collect(ta, ka, ra, pa.source)
    local B, border = collect(tb, kb, rb, pb.source)
    local labels = { ra and (pa.source .. " run " .. ra) or pa.source,
        rb and (pb.source .. " run " .. rb) or pb.source }
    -- another device (or vendor) on each side: said first, kernel times are
    -- not comparable as a regression of the same program on the same GPU
    local deva, devb = device_of(pa, ra), device_of(pb, rb)
    local devices_differ = deva and devb and deva ~= devb
    if devices_differ then
      report:finding { severity = "warn", rule = "diff.devices", subject = "devices",
        message = string.format("devices differ (A: %s, B: %s): time differences below include the change of device",
          deva, devb),
        evidence = { device_a = deva, device_b = devb } }
    end

    -- match names (exact, then truncated "..." by prefix)
    local map = compare.match_names(aorder, border)
    -- captures of different length: compared per step or iteration
    local norm = length_ratio(pa, pb, ra, rb, A, B, aorder, map)
    local function scaled(b) return norm and b / norm.ratio or b end
    local rows, btaken = {}, {}
    local pos_sum = 0
    local function add(key, a, b)
      local r = { kernel = key, calls_a = a and a.calls or 0, calls_b = b and b.calls or 0,
        total_ns_a = a and a.total or 0, total_ns_b = b and b.total or 0 }
      r.delta_ns = r.total_ns_b - r.total_ns_a
      if norm then
        -- B at A's number of steps (iterations); the regression is read on it
        r.total_ns_b_norm = scaled(r.total_ns_b)
        r.delta_norm_ns = r.total_ns_b_norm - r.total_ns_a
      end
      local d = r.delta_norm_ns or r.delta_ns
      if d > 0 then pos_sum = pos_sum + d end
      if a and b and a.durs and b.durs and #a.durs >= opts.min_launches and #b.durs >= opts.min_launches then
        local _, pw = compare.welch(b.durs, a.durs)
        r.p_welch = nanil(pw)
        r.p_mwu = nanil((compare.mwu(b.durs, a.durs)))
      elseif a and b then
        r.test = untested(a, b, opts.min_launches)
        if not r.test then
          -- a summary side: Welch's t from (mean, sd, n) of each side
          r.p_welch = nanil(compare.stats.welch_t_from_stats(b.mean, b.sd, b.n, a.mean, a.sd, a.n).p)
          r.test = "Welch from mean, sd, n"
        end
      end
      if not a then r.status = "added"
      elseif not b then r.status = "removed"
      else
        local tested = r.p_welch or r.p_mwu
        local shifted
        if tested then
          shifted = (r.p_welch and r.p_welch < opts.alpha) or (r.p_mwu and r.p_mwu < opts.alpha)
          local ma, mb = a.mean, b.mean
          r.status = shifted and (mb > ma and "slower" or "faster") or "same"
        else
          shifted = a.total > 0 and math.abs(d) > opts.rel_pct / 100 * a.total
          r.status = shifted and (d > 0 and "slower" or "faster") or "same"
        end
      end
      rows[#rows + 1] = r
      return r
    end
    for _, key in ipairs(aorder) do
      local bk = map[key]
      if bk then btaken[bk] = true end
      local label = key
      if bk and bk ~= key and #bk > #key then label = bk end -- the longer (untruncated) name
      add(label, A[key], bk and B[bk] or nil)
    end
    for _, key in ipairs(border) do
      if not btaken[key] then add(key, nil, B[key]) end
    end
    local function dl(r) return r.delta_norm_ns or r.delta_ns end
    for _, r in ipairs(rows) do
      r.regression_share_pct = pos_sum > 0 and 100 * dl(r) / pos_sum or nil
    end
    table.sort(rows, function(x, y)
      if dl(x) ~= dl(y) then return dl(x) > dl(y) end
      return x.kernel < y.kernel
    end)
    local cols = { "kernel", "calls_a", "calls_b", "total_ns_a", "total_ns_b", "delta_ns", "regression_share_pct",
      "p_welch", "p_mwu", "status" }
    if norm then table.insert(cols, 6, "total_ns_b_norm"); table.insert(cols, 8, "delta_norm_ns") end
    local any_test = false
    for _, r in ipairs(rows) do if r.test then any_test = true end end
    if any_test then table.insert(cols, #cols, "test") end
    local t = T.from_rows(rows, cols, "diff")
    local tot_a, tot_b = 0, 0
    local counts = { added = 0, removed = 0, slower = 0, faster = 0, same = 0 }
    for _, r in ipairs(rows) do
      tot_a, tot_b = tot_a + r.total_ns_a, tot_b + r.total_ns_b
      counts[r.status] = counts[r.status] + 1
    end
    local shown = (opts.top > 0 and t:nrows() > opts.top) and t:head(opts.top) or t
    local raw_pct = tot_a > 0 and 100 * (tot_b - tot_a) / tot_a or 0
    local norm_pct = norm and tot_a > 0 and 100 * (scaled(tot_b) - tot_a) / tot_a or nil
    local norm_text = norm and string.format("captures differ in length (%s): per %s, kernel time %s%+.2f%%; "
      .. "as captured, ", norm.how, norm.unit, norm.unit == "step"
          and string.format("%s -> %s, ", units.ns(tot_a / norm.den),
      units.ns(tot_b / norm.num)) or "", norm_pct) or ""
    if norm then
      -- said first: the raw totals compare captures of different length
      report:finding { severity = "warn", rule = "diff.length", subject = "kernel time",
        message = string.format("the captures differ in length (%s, B/A = %.4f): per %s, kernel time changed %+.2f%%; "
          .. "the raw totals (%s -> %s, %+.2f%%) compare captures of different length. Deltas below are per %s: "
          .. "B scaled to A's %s count (total_ns_b_norm = total_ns_b x %d/%d)", norm.how, norm.ratio, norm.unit,
              norm_pct,
          units.ns(tot_a), units.ns(tot_b), raw_pct, norm.unit, norm.unit, norm.den, norm.num),
        evidence = { ratio = norm.ratio, ratio_num = norm.num, ratio_den = norm.den, per_unit_change_pct = norm_pct,
                     raw_change_pct = raw_pct, total_ns_a = tot_a, total_ns_b = tot_b,
                         total_ns_b_norm = scaled(tot_b) } }
    end
    report:table("diff", shown, { title = string.format(
      "%s%sA = %s, B = %s: kernel time %s -> %s (%+.2f%%); %d kernels: %d slower, %d faster, %d same, %d added, %d removed%s",
      devices_differ and string.format("devices differ (A: %s, B: %s); ", deva, devb) or "", norm_text, labels[1],
          labels[2], units.ns(tot_a), units.ns(tot_b), raw_pct,
      #rows, counts.slower, counts.faster, counts.same, counts.added, counts.removed,
      shown ~= t and string.format(" (top %d shown)", opts.top) or ""),
      note = (norm
          and string.format("total_ns_b_norm = total_ns_b x %d/%d (B at A's %s count); delta_norm_ns = total_ns_b_norm - total_ns_a; "
        .. "delta_ns = total_ns_b - total_ns_a (as captured); regression_share_pct = delta_norm_ns / sum of positive delta_norm_ns (the order and, without tests, the status are read on delta_norm_ns too);", norm.den, norm.num, norm.unit)
        or "delta_ns = total_ns_b - total_ns_a; regression_share_pct = delta_ns / sum of positive delta_ns;")
        .. " p_welch, p_mwu: two-sided tests of the per-launch durations (B vs A) when each side has enough launches"
        .. (any_test
            and "; test: how p_welch was found where not from launches (Welch's t from each side's mean, standard deviation and count, as scipy ttest_ind_from_stats), or why there is no test." or ".") })

    -- findings: the biggest contributors to the regression, added and removed.
    -- Equal totals are no regression, whatever moved between kernels
    -- (one run read through two readers that name kernels differently)
    local same_total = (norm and scaled(tot_b) or tot_b) == tot_a
    if same_total and #rows > 0 then
      report:finding { severity = "info", rule = "diff.same_total", subject = "kernel time",
        message = string.format("total kernel time is the same on both sides (%s): no regression; "
          .. "%d kernel(s) differ in time, %d added, %d removed", units.ns(tot_a),
          counts.slower + counts.faster, counts.added, counts.removed),
        evidence = { total_ns_a = tot_a, total_ns_b = tot_b } }
    end
    for i, r in ipairs(rows) do
      if same_total or i > 3 or dl(r) <= 0 then break end
      report:finding { severity = (r.regression_share_pct or 0) >= 20 and "warn" or "info", rule = "diff.regression",
        subject = r.kernel,
        message = string.format("%s: %s -> %s (+%s%s, %.1f%% of the regression; calls %d -> %d)%s",
            units.label(r.kernel),
          units.ns(r.total_ns_a), units.ns(r.total_ns_b_norm or r.total_ns_b), units.ns(dl(r)),
          norm and string.format(" at A's %s count; as captured %s", norm.unit, units.ns(r.total_ns_b)) or "",
              r.regression_share_pct or 0,
          r.calls_a, r.calls_b, r.status == "added" and ", added in B" or (r.p_welch and string.format(
            ", per-launch shift p %.2g (Welch)%s", r.p_welch,
            r.p_mwu and string.format(", %.2g (Mann-Whitney)", r.p_mwu) or "") or "")),
        evidence = { delta_ns = r.delta_ns, delta_norm_ns = r.delta_norm_ns,
            regression_share_pct = r.regression_share_pct, status = r.status,
                     p_welch = r.p_welch, p_mwu = r.p_mwu } }
    end
    if counts.added + counts.removed > 0 then
      report:finding { severity = "info", rule = "diff.added_removed",
        message = string.format("%d kernel(s) only in B (added), %d only in A (removed)", counts.added, counts.removed),
        evidence = { added = counts.added, removed = counts.removed } }
    end

    -- configuration drift
    local function cc_of(p)
      if opts.cc ~= "" then return opts.cc end
      if opts.gpu ~= "" then
        local g = gpus.model(opts.gpu)
        if g and g.cc then return tostring(g.cc) end
      end
      -- the cc the input records, of the kernels' device (a host of several
      -- GPU models has no one cc: nil)
      if not (p.meta and p.meta.cc) then return nil end
      local ctx = device.context(p, {})
      if ctx and ctx.mixed then return nil end
      return tostring(ctx and ctx.cc or p.meta.cc)
    end
    local cca, ccb = cc_of(pa), cc_of(pb)
    local drift = {}
    for _, key in ipairs(aorder) do
      local bk = map[key]
      local a, b = A[key], bk and B[bk]
      if a and b and #a.cfgorder > 0 and #b.cfgorder > 0 then
        local sa, sb = table.concat(a.cfgorder, " | "), table.concat(b.cfgorder, " | ")
        local seta, setb = {}, {}
        for _, c in ipairs(a.cfgorder) do seta[c] = true end
        for _, c in ipairs(b.cfgorder) do setb[c] = true end
        local same = #a.cfgorder == #b.cfgorder
        for c in pairs(seta) do if not setb[c] then same = false end end
        if not same then
          local ca, cb = a.configs[a.cfgorder[1]], b.configs[b.cfgorder[1]]
          drift[#drift + 1] = { kernel = bk, config_a = sa, config_b = sb,
            occupancy_a_pct = occupancy(cca, ca), occupancy_b_pct = occupancy(ccb, cb) }
        end
      end
    end
    if #drift > 0 then
      report:table("config_drift", T.from_rows(drift, { "kernel", "config_a", "config_b", "occupancy_a_pct",
          "occupancy_b_pct" }),
        { title = "kernels launched with another configuration (grid, block, registers per thread, shared memory per block)",
          note = "occupancy_*_pct: theoretical occupancy of the first configuration of each side (perflab.gpu.occupancy), when the compute capability is known." })
      for _, d in ipairs(drift) do
        report:finding { severity = "info", rule = "diff.config_drift", subject = d.kernel,
          message = string.format("%s changed launch configuration: %s -> %s%s", units.label(d.kernel), d.config_a,
              d.config_b,
            (d.occupancy_a_pct and d.occupancy_b_pct) and string.format(" (theoretical occupancy %.1f%% -> %.1f%%)",
              d.occupancy_a_pct, d.occupancy_b_pct) or ""),
          evidence = { occupancy_a_pct = d.occupancy_a_pct, occupancy_b_pct = d.occupancy_b_pct } }
      end
    end
    -- PyTorch operators paired by (name, dims, dtype) where both runs
    -- recorded shapes (perflab.ops.diff; docs/ops.md)
    if pa ~= pb and pa.tables.cpu_ops and pb.tables.cpu_ops and pa.tables.cpu_ops:has("input_dims")
       and pb.tables.cpu_ops:has("input_dims") then
      local og, on = require("perflab.ops").diff(pa, pb)
      if og then
        report:table("op_groups", og:select("name", "input_dims", "input_types", "calls_a", "calls_b", "kernel_us_a",
          "kernel_us_b", "delta_us", "delta_pct", "tflops_a", "tflops_b", "status"),
          { title = "PyTorch operators paired by (name, input dims, dtype, strides, scalars): kernel time of their calls (µs), B - A" })
        report:table("op_names", on, { title = "PyTorch operators by name (modelled ops): kernel time (ms), B - A" })
      end
    end
    figure(report)   -- per-kernel change, largest first (waterfall)
  end,
}

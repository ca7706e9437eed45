--- perflab.figures: the figure of each bundled recipe, drawn with
-- perflab.chart from the tables the recipe has put in its report (what the
-- reader sees is what is drawn).  Each function adds its figures to the
-- report and returns nothing; a table that is missing or empty draws nothing.
--   figures.top_kernels(report [, table_name])       horizontal bars of time share
--   figures.speed_of_light(report, table_name, name)  ncu's SOL chart: compute % vs memory %
--   figures.occupancy(report [, table_name])           occupancy vs block size, registers, shared memory
--   figures.launch(report [, table_name])              waves per SM and the partial last wave
--   figures.step_breakdown(report [, table_name])      stacked bars per step
--   figures.idle_time(report [, table_name])           per stream: host wait, kernel wait, other
--   figures.launch_delay(report, delays, threshold_ns, source)  distribution of launch delay
--   figures.suspicion(report [, table_name])           scores of the top triplets
--   figures.diff(report [, table_name])                per-kernel change, largest first (waterfall)
--   figures.timeline(report, profile [, window])       Gantt of GPU streams and CPU threads
--   figures.distributed(report [, table_name])         per-rank stacked bars (for the distributed recipe)
--   figures.stragglers(report [, table_name])          rank × iteration heat map of lateness
--   figures.memory(report [, max_points])               per device: allocated/reserved over time, peak, steps
local chart = require "perflab.chart"
local units = require "perflab.units"

local M = {}

-- the first n rows (all without n) of t as Lua rows of cols (a column t
-- lacks reads as missing); only those rows are converted
local function rows_of(t, cols, n)
  if not t or t:nrows() == 0 then return nil end
  if n and n < t:nrows() then t = t:head(n) end
  local out, arr = {}, {}
  for _, c in ipairs(cols) do arr[c] = t:has(c) and t:col(c):to_lua() or {} end
  for i = 1, math.min(t:nrows(), n or t:nrows()) do
    local r = {}
    for _, c in ipairs(cols) do r[c] = arr[c][i] end
    out[i] = r
  end
  return out
end

--- a kernel's short name for an axis label (core/names.c: no return type,
-- namespaces, template or call arguments); hover titles keep the full name
local function label(name)
  local ok, short = pcall(require("perflab.formats").short_name, tostring(name))
  if ok and type(short) == "string" and short ~= "" then return short end
  return tostring(name)
end

local function ms(v) return units.ns(v, 3) end
local function pct(v) return units.sig(v, 3) .. " %" end
local function base(s) return tostring(s or ""):match("[^/]+$") or tostring(s) end

--- top-kernels: share of kernel time per kernel, largest first.
function M.top_kernels(report, tname)
  for _, name in ipairs(report.table_order) do
    if name == (tname or name) and name:match("^top_kernels") then
      local rows = rows_of(report.tables[name], { "kernel", "share_pct", "total_ns", "calls", "run" }, 25)
      local known = false   -- no figure of shares that are all unknown (an input without durations)
      for _, r in ipairs(rows or {}) do if r.share_pct then known = true; break end end
      if rows and known then
        local cats, vals, tips = {}, {}, {}
        for i, r in ipairs(rows) do
          cats[i] = (r.run and (tostring(r.run) .. ": ") or "") .. label(r.kernel)
          vals[i] = r.share_pct
          tips[i] = string.format("%s%s: %s of kernel time, %s%s", r.run and (tostring(r.run) .. ": ") or "",
              tostring(r.kernel),
            r.share_pct and pct(r.share_pct) or "?",
            ms(r.total_ns), r.calls and string.format(", %d calls", r.calls) or "")
        end
        report:figure(name .. ".svg", chart.bars {
          title = "Share of kernel time by kernel", subtitle = report.inputs[1] and base(report.inputs[1].source),
          horizontal = true, labels = true, categories = cats, format = pct,
          series = { { name = "share of kernel time", values = vals, titles = tips } },
          value_label = "share of kernel time (%)", max = 0,
        }, { title = "time share per kernel (" .. name .. ")" })
      end
    end
  end
end

--- roofline without FLOPs and bytes: ncu's Speed-of-Light view, compute
-- (SM) throughput % against memory throughput % per kernel, marker size by
-- time share; the 60 % and 80 % lines ncu's SOL rules use.
function M.speed_of_light(report, tname, figname)
  local rows = rows_of(report.tables[tname], { "kernel", "compute_pct", "memory_pct", "time_share_pct", "bound" })
  if not rows then return end
  local series, byb, order = {}, {}, {}
  for _, r in ipairs(rows) do
    if r.compute_pct and r.memory_pct then
      local b = r.bound or "kernel"
      if not byb[b] then byb[b] = { name = b, line = false, points = {}, size = {} }; order[#order + 1] = b end
      local s = byb[b]
      s.points[#s.points + 1] = { r.memory_pct, r.compute_pct,
          title = string.format("%s: compute %s, memory %s%s (%s)", r.kernel,
        pct(r.compute_pct), pct(r.memory_pct), r.time_share_pct and (", " .. pct(r.time_share_pct) .. " of time")
            or "", b) }
      s.size[#s.points] = 3 + 14 * math.sqrt(math.max(r.time_share_pct or 0, 0) / 100)
    end
  end
  table.sort(order)
  for _, b in ipairs(order) do series[#series + 1] = byb[b] end
  if #series == 0 then return end
  report:figure(figname or "speed_of_light.svg", chart.plot {
    title = "Speed of Light: compute vs memory throughput", subtitle = "per kernel, marker area = share of time; "
      .. (report.inputs[1] and base(report.inputs[1].source) or ""),
    x_label = "memory throughput (% of peak)", y_label = "compute (SM) throughput (% of peak)",
    x_min = 0, x_max = 100, y_min = 0, y_max = 100, width = 640, height = 560,
    regions = {
      { x0 = 0, x1 = 60, y0 = 0, y1 = 60, label = "both < 60 %: latency-bound", fill = "#F0E442" },
      { x0 = 80, x1 = 100, y0 = 0, y1 = 100, label = "≥ 80 %", fill = "#56B4E9" },
      { x0 = 0, x1 = 80, y0 = 80, y1 = 100, label = "≥ 80 %", fill = "#56B4E9" },
    },
    vlines = { { x = 60, label = "60 %" } }, hlines = { { y = 60, label = "60 %" } },
    series = series,
  }, { title = "Speed-of-Light chart (compute % vs memory %)" })
end

--- roofline: for each roofline table whose figure was not drawn (FLOPs,
-- bytes or peaks unknown), the Speed-of-Light chart instead.
function M.roofline_fallback(report)
  for _, name in ipairs(report.table_order) do
    local n = name:match("^roofline(_?%d*)$")
    if n and not report.figures["roofline" .. n .. ".svg"] then
      M.speed_of_light(report, name, "speed_of_light" .. n .. ".svg")
    end
  end
end

--- occupancy: ncu's three graphs for the first kernels of the table.
function M.occupancy(report, tname, max_kernels)
  tname = tname or "occupancy"
  local gpu = require "perflab.gpu"
  -- the first launch of each of the first kernels with a CC, block size
  -- and registers, found in C (the table has a row per launch)
  local t = report.tables[tname]
  if not t or t:nrows() == 0 then return end
  for _, c in ipairs({ "kernel", "cc", "block_size", "registers" }) do if not t:has(c) then return end end
  local cols = {}
  for _, c in ipairs({ "kernel", "cc", "block_size", "registers", "smem_bytes", "smem_config_bytes",
      "theoretical_occupancy_pct" }) do
    if t:has(c) then cols[#cols + 1] = c end
  end
  local ok = t:col("cc"):present() & t:col("block_size"):present() & t:col("registers"):present() & t:col("kernel"):present()
  local sel = t:select(cols):filter(ok)
  local picked = {}
  for _, g in sel:group_by("kernel"):agg { { "n", "count" } }:head(max_kernels or 3):rows() do
    picked[#picked + 1] = sel:where { kernel = g.kernel }:row(1)
  end
  if #picked == 0 then return end
  -- the theoretical occupancy of a list of {r, block size, registers,
  -- shared memory} in one call of the calculator (0 where it cannot run)
  local function occ_all(q)
    local rows = {}
    for i, e in ipairs(q) do
      rows[i] = { cc = e[1].cc, bs = e[2], regs = e[3], smem = e[4], cfg = e[1].smem_config_bytes }
    end
    local qt = require("perflab.table").from_rows(rows, { "cc", "bs", "regs", "smem", "cfg" })
    local o = gpu.columns { cc = qt:col("cc"), block_size = qt:col("bs"), registers = qt:col("regs"),
      smem_static = qt:col("smem"), smem_config = qt:col("cfg"):count() > 0 and qt:col("cfg") or nil }
    local pcts, inval, out = o:col("theoretical_occupancy_pct"):to_lua(), o:col("invalid"):to_lua(), {}
    for i = 1, #q do out[i] = (inval[i] or not pcts[i]) and 0 or pcts[i] end
    return out
  end
  local dims = {
    { key = "block_size", label = "threads per block", x_max = 1024, xs = function() local t = {}; for b = 32, 1024,
        32 do t[#t + 1] = b end; return t end,
      a = function(r, x) return x, r.registers, r.smem_bytes or 0 end },
    { key = "registers", label = "registers per thread", xs = function() local t = {}; for g = 8, 255,
        1 do t[#t + 1] = g end; return t end,
      a = function(r, x) return r.block_size, x, r.smem_bytes or 0 end },
    { key = "smem_bytes", label = "shared memory per block (bytes)",
      xs = function()
        local hi = 48 * 1024
        for _, r in ipairs(picked) do hi = math.max(hi, 2 * (r.smem_bytes or 0), r.smem_config_bytes or 0) end
        hi = math.min(hi, 256 * 1024)
        local t = {}
        for k = 0, 64 do t[#t + 1] = math.floor(hi * k / 64 / 128) * 128 end
        return t
      end,
      a = function(r, x) return r.block_size, r.registers, x end },
  }
  for _, d in ipairs(dims) do
    local series = {}
    local xs = d.xs()
    -- every point of every kernel (and its current configuration), one call
    local q = {}
    for _, r in ipairs(picked) do
      for _, x in ipairs(xs) do q[#q + 1] = { r, d.a(r, x) } end
      q[#q + 1] = { r, d.a(r, r[d.key] or 0) }
    end
    local res, at = occ_all(q), 0
    for i, r in ipairs(picked) do
      local pts = {}
      for _, x in ipairs(xs) do at = at + 1; pts[#pts + 1] = { x, res[at] } end
      local cur = r[d.key] or 0
      at = at + 1
      local now = res[at]
      series[#series + 1] = { name = chart.short(label(r.kernel), 40), points = pts, marker = false }
      series[#series + 1] = { name = "current: " .. chart.short(label(r.kernel), 24), line = false,
          marker_shape = chart.markers[i + 4],
        colour = chart.palette[(2 * i - 2) % #chart.palette + 1],
        points = { { cur, now, r = 7, title = string.format("%s: %s = %s → %s theoretical occupancy", r.kernel, d.label,
          units.count(cur), pct(now)) } } }
    end
    -- a kernel's curve and its current marker share a colour
    for i = 1, #series, 2 do series[i].colour = chart.palette[(i - 1) % #chart.palette + 1] end
    report:figure("occupancy_" .. d.key .. ".svg", chart.plot {
      title = "Impact of varying " .. d.label,
          subtitle = "theoretical occupancy (perflab.gpu.occupancy), current configuration marked",
      x_label = d.label, y_label = "theoretical occupancy (%)", y_min = 0, y_max = 100, x_min = 0,
      x_max = d.x_max or (d.key == "registers" and 255) or nil, x_nice = (d.key == "smem_bytes"),
      x_format = d.key == "smem_bytes" and function(v) return units.bytes(v, 3) end or nil,
      series = series, height = 360,
    }, { title = "occupancy vs " .. d.label })
  end
end

--- launch: waves per SM per kernel, whole waves and the partial last wave.
function M.launch(report, tname)
  tname = tname or "launch"
  local t = report.tables[tname]
  if not t or t:nrows() == 0 then return end
  -- one bar per distinct launch configuration, the first 25 in table order,
  -- with its launch count: grouped in the engine, only those rows in Lua
  local keys = {}
  for _, c in ipairs({ "kernel", "grid_size", "block_size", "sm_count", "active_blocks" }) do
    if t:has(c) then keys[#keys + 1] = c end
  end
  local firsts, counts
  if #keys > 0 then
    local g = t:group_by(keys):agg({ { "n", "count" }, { "first", "first_row" } }):head(25)
    firsts, counts = t:take(g:col("first")), g:col("n"):to_lua()
  else
    firsts, counts = t:head(1), { t:nrows() }
  end
  local rows = rows_of(firsts, { "kernel", "grid_size", "block_size", "sm_count", "active_blocks", "waves_per_sm",
      "tail_pct" })
  for i, r in ipairs(rows) do r.n = counts[i] end
  local cats, whole, part, tw, tp = {}, {}, {}, {}, {}
  for _, r in ipairs(rows) do
    if r.waves_per_sm and r.waves_per_sm == r.waves_per_sm then
      local k = #cats + 1
      cats[k] = r.n > 1 and string.format("%s (×%d)", chart.short(label(r.kernel), 32), r.n) or label(r.kernel)
      local w = math.floor(r.waves_per_sm)
      whole[k], part[k] = w, r.waves_per_sm - w
      local desc = string.format("%s: grid %s blocks over %s SMs × %s blocks = %.3g waves", r.kernel,
          units.count(r.grid_size or 0),
        units.count(r.sm_count or 0), units.count(r.active_blocks or 0), r.waves_per_sm)
      tw[k] = desc .. string.format("; %d whole wave%s", w, w == 1 and "" or "s")
      tp[k] = desc .. string.format("; partial last wave %.0f %% full%s", 100 * (r.waves_per_sm - w),
        r.tail_pct and string.format(", tail estimate %s", pct(r.tail_pct)) or "")
    end
  end
  if #cats == 0 then return end
  report:figure("launch_waves.svg", chart.bars {
    title = "Waves per SM", subtitle = "whole waves and the partial last wave (a tail that leaves SMs idle)",
    horizontal = true, stacked = true, categories = cats, value_label = "waves",
    series = { { name = "whole waves", values = whole, titles = tw },
        { name = "partial last wave", values = part, titles = tp } },
  }, { title = "waves and the partial last wave" })
end

--- step-breakdown: one stacked bar per step, a segment per category.
function M.step_breakdown(report, tname)
  tname = tname or "steps"
  local t = report.tables[tname]
  if not t or t:nrows() == 0 or not t:has("step") then return end
  local cats = {}
  for _, c in ipairs(t:columns()) do
    if c:match("_ns$") and c ~= "total_ns" and c ~= "start_ns" and not c:match("^duration") then cats[#cats + 1] = c end
  end
  if #cats == 0 then return end
  local cols = { "step" }
  for _, c in ipairs(cats) do cols[#cols + 1] = c end
  local rows = rows_of(t, cols, 60)
  local labels, series = {}, {}
  for i, c in ipairs(cats) do series[i] = { name = c:gsub("_ns$", ""), values = {}, titles = {} } end
  for k, r in ipairs(rows) do
    labels[k] = tostring(r.step)
    for i, c in ipairs(cats) do
      series[i].values[k] = r[c] and r[c] / 1e6 or nil
      series[i].titles[k] = string.format("step %s · %s: %s", labels[k], series[i].name, ms(r[c]))
    end
  end
  report:figure("step_breakdown.svg", chart.bars {
    title = "Step time breakdown", subtitle = t:nrows() > 60 and string.format("first 60 of %d steps", t:nrows())
        or nil,
    stacked = true, categories = labels, series = series, value_label = "time (ms)", category_label = "step",
  }, { title = "stacked step time per category" })
end

--- idle-time: per stream, its idle time split into host wait, kernel wait and other.
function M.idle_time(report, tname)
  tname = tname or "idle"
  local rows = rows_of(report.tables[tname], { "device", "stream", "host_wait_ns", "kernel_wait_ns", "other_ns",
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
      series[i].titles[k] = string.format("%s · %s: %s (busy %s of %s)", cats[k], series[i].name, ms(r[key]),
          ms(r.busy_ns), ms(r.span_ns))
    end
  end
  report:figure("idle_time.svg", chart.bars {
    title = "Idle time per stream", subtitle = "why each stream waited (HTA's idle-time categories)",
    horizontal = true, stacked = true, categories = cats, series = series, value_label = "idle time (ms)",
  }, { title = "idle time per stream by cause" })
end

--- launch-latency: histogram of launch delays (log-spaced bins), the
-- outlier threshold and the p50 / p99 marked; bins above the threshold are
-- drawn as outliers.
function M.launch_delay(report, delays, threshold_ns, source, figname)
  if not delays then return end
  -- a column (or an array, made one): the engine finds the order
  -- statistics and counts the bins, no Lua pass over the launches
  if type(delays) == "table" then
    delays = require("perflab.table").from_columns({ d = delays }, { "d" }):col("d")
  end
  local n = delays:count()
  if n == 0 then return end
  -- the value at rank round(p * (n - 1)) + 1 of the sorted delays
  local function q(p) return delays:nth(math.max(1, math.min(n, math.floor(p * (n - 1) + 0.5) + 1))) end
  -- bins in µs: negative delays (clock skew) into the first bin
  local lo, hi = math.max(delays:min(), 1000), math.max(delays:max(), 2000)
  local l0, l1 = math.floor(math.log(lo, 10) * 4) / 4, math.ceil(math.log(hi, 10) * 4 + 1e-9) / 4
  if l1 <= l0 then l1 = l0 + 0.25 end
  local bins, edges = {}, {}
  for e = l0, l1 - 1e-9, 0.25 do
    bins[#bins + 1] = { 10 ^ e / 1e3, 10 ^ (e + 0.25) / 1e3, 0 }
    edges[#edges + 1] = 10 ^ e
  end
  edges[#edges + 1] = 10 ^ (l0 + 0.25 * #bins)
  -- quarter-decade bins [10^e, 10^(e + 1/4)); values below the first edge
  -- (negative delays) count in the first bin, above the last in the last
  local h = require("perflab.stats").histogram(delays, { edges = edges })
  for k, b in ipairs(bins) do b[3] = h.counts[k] end
  bins[1][3] = bins[1][3] + h.under
  bins[#bins][3] = bins[#bins][3] + h.over
  for _, b in ipairs(bins) do
    b.outlier = b[1] * 1e3 >= threshold_ns
    b.title = string.format("%s – %s: %d launch%s%s", units.ns(b[1] * 1e3, 3), units.ns(b[2] * 1e3, 3), b[3],
        b[3] == 1 and "" or "es",
      b.outlier and " (outliers)" or "")
  end
  local marks = { { x = q(0.5) / 1e3, label = "p50 " .. units.ns(q(0.5), 3) },
      { x = q(0.99) / 1e3, label = "p99 " .. units.ns(q(0.99), 3) } }
  if threshold_ns / 1e3 >= bins[1][1] and threshold_ns / 1e3 <= bins[#bins][2] then
    marks[#marks + 1] = { x = threshold_ns / 1e3, label = "outlier threshold " .. units.ns(threshold_ns, 3),
        colour = "#D55E00" }
  end
  for _, m in ipairs(marks) do m.x = math.max(m.x, bins[1][1]) end
  report:figure(figname or "launch_delay.svg", chart.histogram {
    title = "Launch delay distribution", subtitle = string.format("%d launches, kernel start - launch call end; %s", n,
        base(source)),
    bins = bins, marks = marks, x_log = true, x_label = "launch delay (µs, log scale)", y_label = "launches",
    x_format = function(v) return units.ns(v * 1e3, 3) end, legend = { "launches", "outliers (above the threshold)" },
  }, { title = "distribution of launch delay, outliers marked" })
end

--- suspicion: the score of each of the top (function, metric, device) triplets.
function M.suspicion(report, tname, n)
  local rows = rows_of(report.tables[tname or "details"], { "function", "metric", "device", "suspicion_score",
      "delta_beta_pct" }, n or 20)
  if not rows then return end
  local cats, vals, tips = {}, {}, {}
  for _, r in ipairs(rows) do
    if r.suspicion_score then
      local k = #cats + 1
      -- the metric and device stay readable: the function name is cut first
      cats[k] = string.format("%s · %s · %s", chart.short(label(r["function"]), 28), tostring(r.metric),
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

--- diff: a waterfall from run A's kernel time to run B's, one step per kernel
-- (largest change first), the rest summed.
function M.diff(report, tname, max_items)
  tname = tname or "diff"
  local rows = rows_of(report.tables[tname], { "kernel", "total_ns_a", "total_ns_b", "delta_ns" })
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
      shown[#shown + 1] = { label = label(it.label), delta = it.delta / 1e6,
          title = string.format("%s: %s → %s (%s%s)", it.label,
        ms(it.a or 0), ms(it.b or 0), it.delta >= 0 and "+" or "", ms(it.delta)) }
    else rest = rest + it.delta; nrest = nrest + 1 end
  end
  if nrest > 0 then
    shown[#shown + 1] = { label = string.format("%d other kernels", nrest), delta = rest / 1e6,
      title = string.format("%d other kernels: %s%s", nrest, rest >= 0 and "+" or "", ms(rest)) }
  end
  local a_name = report.inputs[1] and base(report.inputs[1].source) or "A"
  local b_name = report.inputs[2] and base(report.inputs[2].source) or "B"
  report:figure("diff_waterfall.svg", chart.waterfall {
    title = "Kernel time change per kernel, largest first", subtitle = a_name .. " → " .. b_name,
    start = ta / 1e6, start_label = "A total", end_label = "B total", items = shown, value_label = "kernel time (ms)",
        horizontal = true,
    format = function(v) return units.sig(v, 4) .. " ms" end,
  }, { title = "per-kernel change (waterfall)" })
end

--- distributed (per rank, the plugin's Distributed view): one stacked bar per
-- rank of its mean step: computation only, overlap, communication only,
-- other (step = computation + communication - overlap + other).
-- Reads the `ranks` table (rank, computation_ns, communication_ns, overlap_ns, other_ns).
function M.distributed(report, tname)
  local rows = rows_of(report.tables[tname or "ranks"], { "rank", "computation_ns", "communication_ns", "overlap_ns",
      "other_ns" })
  if not rows or rows[1].computation_ns == nil and rows[1].communication_ns == nil then return end
  local cats = {}
  local names = { "computation only", "overlap", "communication only", "other" }
  local series = {}
  for i, n in ipairs(names) do series[i] = { name = n, values = {}, titles = {} } end
  for k, r in ipairs(rows) do
    cats[k] = "rank " .. tostring(r.rank)
    local comp, comm, ov, oth = r.computation_ns or 0, r.communication_ns or 0, r.overlap_ns or 0, r.other_ns or 0
    local v = { comp - ov, ov, comm - ov, oth }
    for i = 1, 4 do
      series[i].values[k] = v[i] / 1e6
      series[i].titles[k] = string.format("%s · %s: %s per step", cats[k], names[i], ms(v[i]))
    end
  end
  report:figure("ranks.svg", chart.bars {
    title = "Mean step per rank", subtitle = "computation and communication, their overlap, and other time",
    horizontal = true, stacked = true, categories = cats, series = series, value_label = "time per step (ms)",
  }, { title = "per-rank stacked step time" })
end

--- stragglers: a rank × iteration heat map of lateness (the `iterations`
-- table: iteration, rank, lateness, flagged); flagged cells say so on hover.
function M.stragglers(report, tname)
  local rows = rows_of(report.tables[tname or "iterations"], { "iteration", "rank", "lateness", "flagged" })
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

--- timeline: a Gantt chart of the GPU streams and CPU threads in a window
-- (default: the slowest step, else the whole trace), launch → kernel arrows.
-- window = {start_ns, end_ns} (absolute, as the trace's own times).
function M.timeline(report, p, window, figname)
  local trace = require "perflab.trace"
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
    title = "Timeline: " .. (tl.what or "trace"), subtitle = base(p.source)
        .. (tl.truncated and " (first events only)" or ""),
    lanes = lanes, items = items, links = links, t0 = tl.t0, t1 = tl.t1,
        kinds = { "kernel", "memcpy", "memset", "runtime", "cpu op" },
    time_format = function(v) return units.ns(v, 3) end, time_label = "time from window start",
  }, { title = "GPU streams and CPU threads (" .. (tl.what or "trace") .. ")" })
end

--- memory: per device, allocated and reserved bytes over time as step
-- lines (the `curve` table), the peak marked (`peaks`), profiler steps
-- shaded (the curve's step column); at most max_points points a device
-- (evenly spaced rows, the peak always kept).
function M.memory(report, max_points)
  local curve, peaks = report.tables.curve, report.tables.peaks
  if not curve or curve:nrows() == 0 then return end
  max_points = max_points or 1500
  local devs = curve:unique("device")
  for _, dev in ipairs(devs) do
    local c = curve:filter(curve:col("device"):eq(dev))
    local pk = peaks and peaks:filter(peaks:col("device"):eq(dev)):row(1) or nil
    local n = c:nrows()
    if n > max_points then
      local idx = {}
      local stride = n / max_points
      for k = 0, max_points - 1 do idx[#idx + 1] = math.floor(k * stride) + 1 end
      local sampled = c:take(idx)
      if pk then                          -- the peak's point, wherever the sampling fell
        local top = c:filter(c:col("ts_ns"):eq(pk.ts_ns) & c:col("allocated_bytes"):eq(pk.peak_bytes)):head(1)
        sampled = require("perflab.table").concat(sampled, top)
        sampled = sampled:take(sampled:order("ts_ns"))
      end
      c = sampled
    end
    local t, a, r = (c:col("since_start_ns") / 1e6):to_lua(), c:col("allocated_bytes"):to_lua(),
        c:col("reserved_bytes"):to_lua()
    local sa, sr = {}, {}
    for i = 1, #t do
      if i > 1 then
        sa[#sa + 1] = { t[i], a[i - 1] }
        if r[i - 1] then sr[#sr + 1] = { t[i], r[i - 1] } end
      end
      sa[#sa + 1] = { t[i], a[i] }      -- lines without markers: no hover text per point
      if r[i] then sr[#sr + 1] = { t[i], r[i] } end
    end
    local series = { { name = "allocated", points = sa, marker = false } }
    if #sr > 0 then series[2] = { name = "reserved", points = sr, marker = false } end
    local regions, vlines = {}, {}
    if c:has("step") and c:col("step"):count() > 0 then
      local cs = curve:filter(curve:col("device"):eq(dev) & curve:col("step"):present())
      local g = cs:group_by("step"):agg { { "t0", "min", "since_start_ns" }, { "t1", "max", "since_start_ns" } }
      g = g:take(g:order("step"))
      local k = 0
      for _, st in g:rows() do
        k = k + 1
        regions[#regions + 1] = { x0 = st.t0 / 1e6, x1 = st.t1 / 1e6, y0 = 0,
            y1 = (pk and pk.reserved_bytes or pk and pk.peak_bytes) or a[1],
          label = "step " .. st.step, fill = k % 2 == 1 and "#dde8f0" or "#f0e6d6" }
      end
    end
    if pk then
      vlines[1] = { x = pk.time_ms, label = string.format("peak %s%s", units.bytes(pk.peak_bytes),
          pk.op and (" in " .. chart.short(pk.op, 30)) or "") }
      series[#series + 1] = { name = "peak", line = false, points = { { pk.time_ms, pk.peak_bytes, r = 6,
        title = string.format("peak %s at %s ms in %s", units.bytes(pk.peak_bytes), units.sig(pk.time_ms, 6),
            pk.op or "no operator") } } }
    end
    report:figure("memory_" .. tostring(dev):gsub("[^%w]", "_") .. ".svg", chart.plot {
      title = "Memory over time: " .. dev, subtitle = n > max_points and string.format("%d of %d points", #t, n) or nil,
      series = series, regions = regions, vlines = vlines, x_label = "time from trace start (ms)", y_label = "bytes",
      y_format = function(v) return units.bytes(v) end,
    }, { title = "allocated and reserved memory of " .. dev .. ", peak marked, steps shaded" })
  end
end

return M

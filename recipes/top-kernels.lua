--- top-kernels: where the GPU time goes, kernel by kernel.
-- Groups launches by kernel name (or short name), ranks them by total time,
-- and reports calls, total/mean/min/max time, share of all kernel time, and
-- time-weighted tensor and DRAM utilisation where the input has them.
-- Works on any profile with a `kernels` table (one row per launch), and on
-- profiles that carry only a `kernel_summary` (one row per kernel).
local perflab = require "perflab"
local chart = require "perflab.chart"
local figures = require "perflab.figures"
local T = perflab.table
local units = perflab.units
local names = require "perflab.names"

local function per_launch(k, key)
  local keys = { key }
  if k:has("run") and #k:unique("run") > 1 then keys = { "run", key } end
  local aggs = {
    { "calls", "count" },
    { "total_ns", "sum", "duration_ns" },
    { "mean_ns", "mean", "duration_ns" },
    { "min_ns", "min", "duration_ns" },
    { "max_ns", "max", "duration_ns" },
  }
  -- utilisation weighted by kernel time
  local util = {}
  for _, c in ipairs({ "tensor_util", "dram_util" }) do
    if k:has(c) then
      util[#util + 1] = c
      aggs[#aggs + 1] = { c, "wmean", c, "duration_ns" }
    end
  end
  return k:group_by(keys):agg(aggs), keys, util
end

-- A name the tool cut ("...", or nsys's "…"): different kernels can print
-- the same cut name, so in a summary each such row stays its own kernel.
local function is_cut(s) return s ~= nil and (s:sub(-3) == "..." or s:sub(-3) == "\u{2026}") end

local function from_summary(s, key)
  if not s:has(key) then key = "name" end
  local keys = { key }
  if s:has("run") and #s:unique("run") > 1 then keys = { "run", key } end
  local ncut, gkeys = 0, keys
  if s:has("name") then
    local names, cut = s:col("name"):to_lua(), {}
    for i = 1, s:nrows() do
      if is_cut(names[i]) then ncut = ncut + 1; cut[i] = i else cut[i] = 0 end
    end
    if ncut > 0 then
      s = s:copy():add_column("cut_row_", cut, "integer")
      gkeys = { table.unpack(keys) }
      gkeys[#gkeys + 1] = "cut_row_"
    end
  end
  local aggs = { { "total_ns", "sum", "total_ns" } }
  -- some summaries (a comparison report's shares) do not know the calls
  if s:has("calls") and s:col("calls"):count() > 0 then table.insert(aggs, 1, { "calls", "sum", "calls" }) end
  if s:has("min_ns") then aggs[#aggs + 1] = { "min_ns", "min", "min_ns" } end
  if s:has("max_ns") then aggs[#aggs + 1] = { "max_ns", "max", "max_ns" } end
  local g = s:group_by(gkeys):agg(aggs)
  if g:has("calls") then
    g:with("mean_ns", (g:col("total_ns") / g:col("calls")):keep(g:col("calls"):gt(0)))
  else
    g:add_column("mean_ns", function() return nil end, "number")
  end
  local order = {}
  for _, c in ipairs(keys) do order[#order + 1] = c end
  for _, c in ipairs({ "calls", "total_ns", "mean_ns", "min_ns", "max_ns" }) do
    if g:has(c) then order[#order + 1] = c end
  end
  return g:select(order), keys, {}, ncut
end

-- Memory operations of a summary-only input (nvprof's and rocprof's
-- memcpy_summary, nsys stats' cuda_gpu_mem_time_sum): their total time and
-- the largest rows; nil when the input has none.
local COPY_TABLES = { "memcpy_summary", "cuda_gpu_mem_time_sum" }
local COPY_PCT = 20   -- copies above this share of kernel + copy time: a finding

local function copies(p)
  for _, tn in ipairs(COPY_TABLES) do
    local t = p.tables[tn]
    if t and t:nrows() > 0 and t:has("total_ns") and t:has("name") and t:col("total_ns"):count() > 0 then
      local calls = t:has("calls") and "calls" or (t:has("count") and "count" or nil)
      local aggs = { { "total_ns", "sum", "total_ns" } }
      if calls then aggs[2] = { "calls", "sum", calls } end
      local g = t:group_by({ "name" }):agg(aggs):sort_by("-total_ns", "name")
      return { table = tn, total = g:col("total_ns"):sum(), g = g }
    end
  end
  return nil
end

-- The finding on copies that take COPY_PCT % or more of the GPU time a
-- summary records (kernels + copies: a summary cannot say how they overlap).
local function copy_finding(report, p, total)
  local c = copies(p)
  if not c or not total or c.total <= 0 then return end
  local pct = 100 * c.total / (c.total + total)
  if pct < COPY_PCT then return end
  local parts = {}
  for i, r in c.g:rows() do
    if i > 3 then break end
    parts[#parts + 1] = string.format("%s %s%s", r.name, units.ns(r.total_ns),
      r.calls and string.format(" over %d calls", r.calls) or "")
  end
  report:finding {
    severity = "warn",
    rule = "top-kernels.memcpy",
    subject = "memory copies",
    message = string.format("memory operations take %.1f %% of the GPU time the summary records (%s of %s: %s; "
      .. "kernels %s): keep data on the device between kernels, batch small copies, and use pinned host memory "
      .. "with asynchronous copies that overlap computation", pct, units.ns(c.total), units.ns(c.total + total),
      table.concat(parts, ", "), units.ns(total)),
    evidence = { copy_pct = pct, copy_ns = c.total, kernel_time_ns = total, threshold_pct = COPY_PCT,
                 table = c.table, formula = "copy time / (copy time + kernel time); a summary does not say how "
                   .. "they overlap", source = p.source },
  }
end

--- top-kernels: share of kernel time per kernel, largest first.
local function figure(report, tname)
  for _, name in ipairs(report.table_order) do
    if name == (tname or name) and name:match("^top_kernels") then
      local rows = figures.rows_of(report.tables[name], { "kernel", "share_pct", "total_ns", "calls", "run" }, 25)
      local known = false   -- no figure of shares that are all unknown (an input without durations)
      for _, r in ipairs(rows or {}) do if r.share_pct then known = true; break end end
      if rows and known then
        local cats, vals, tips = {}, {}, {}
        for i, r in ipairs(rows) do
          cats[i] = (r.run and (tostring(r.run) .. ": ") or "") .. figures.label(r.kernel)
          vals[i] = r.share_pct
          tips[i] = string.format("%s%s: %s of kernel time, %s%s", r.run and (tostring(r.run) .. ": ") or "",
              tostring(r.kernel),
            r.share_pct and figures.pct(r.share_pct) or "?",
            figures.ms(r.total_ns), r.calls and string.format(", %d calls", r.calls) or "")
        end
        report:figure(name .. ".svg", chart.bars {
          title = "Share of kernel time by kernel", subtitle = report.inputs[1]
              and figures.base(report.inputs[1].source),
          horizontal = true, labels = true, categories = cats, format = figures.pct,
          series = { { name = "share of kernel time", values = vals, titles = tips } },
          value_label = "share of kernel time (%)", max = 0,
        }, { title = "time share per kernel (" .. name .. ")" })
      end
    end
  end
end

return {
  name = "top-kernels",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "kernels ranked by total GPU time: calls, total, mean, min, max, share, utilisation",
  needs = { "kernels|kernel_summary" },
  -- all it reads: perflab run loads only these
  tables = { "kernels", "kernel_summary", "pseudo_kernels", "memcpy_summary", "cuda_gpu_mem_time_sum" },
  options = {
    top = { type = "integer", min = 0, default = 20, help = "how many kernels to list (0 = all)" },
    group = { type = "string", default = "name", choices = { "name", "short_name" },
              help = "group launches by the full kernel name or the short name" },
  },
  run = function(inputs, opts, report)
    -- several ranks of one job: also one table of every rank's top kernels
    local per_rank = require("perflab.ranks").of_job(inputs)
    local rank_rows = {}
    for _, p in ipairs(inputs) do
      local g, keys, util, ncut
      local k = p.tables.kernels
      -- launches without any duration column (no timestamps, or timestamps
      -- the reader could not trust) and no summary: listed by name and count
      if k and not k:has("duration_ns") and not p.tables.kernel_summary then
        k = k:select(k:columns()):with("duration_ns", k:const(nil, "number"))
      end
      if k and k:has("duration_ns") then
        local key = opts.group
        if not k:has(key) then key = "name" end
        g, keys, util = per_launch(k, key)
      else
        g, keys, util, ncut = from_summary(p:table("kernel_summary"), opts.group)
      end
      if ncut and ncut > 0 then
        report:note(string.format("%s: %d kernel name%s cut by the tool (ending in \"…\" or \"...\"): each of those rows "
          .. "is kept as its own kernel, not merged with rows of the same printed name (they may be different kernels).",
          p.source, ncut, ncut == 1 and " was" or "s were"))
      end
      -- an input without durations (a metrics-only ncu run) has no kernel
      -- time: its totals are missing, not 0 ns (a sum of nothing is 0)
      local src = (k and k:has("duration_ns")) and k or p.tables.kernel_summary
      local tcol = (k and k:has("duration_ns")) and "duration_ns" or "total_ns"
      local timed = not src or src:nrows() == 0 or (src:has(tcol) and src:col(tcol):count() > 0)
      if not timed then
        for _, c in ipairs({ "total_ns", "mean_ns", "min_ns", "max_ns" }) do
          if g:has(c) then g:drop(c); g:add_column(c, function() return nil end, "number") end
        end
      end
      -- shares are of the kernel time of the same run (profiles such as
      -- tb-profiler JSON hold several runs)
      local total = timed and g:col("total_ns"):sum() or nil
      -- a summary that lists part of the device time its input records (a
      -- key_averages table cut by row_limit): shares of the recorded total
      local recorded = not (k and k:has("duration_ns")) and keys[1] ~= "run"
          and tonumber(p.meta and p.meta.kernel_summary_total_ns) or nil
      if recorded and total and recorded <= total then recorded = nil end
      local run_total = {}
      if keys[1] == "run" then
        for _, r in g:rows() do run_total[r.run] = (run_total[r.run] or 0) + (r.total_ns or 0) end
        local tot = g:col("run"):map(run_total)
        g:with("share_pct", (g:col("total_ns") * 100 / tot):keep(tot:ne(0)))
      elseif total and total ~= 0 then
        g:with("share_pct", g:col("total_ns") * 100 / (recorded or total))
      else
        g:add_column("share_pct", function() return nil end, "number")
      end
      local key = keys[#keys]
      g:rename(key, "kernel")
      local order = {}
      if keys[1] == "run" then order[1] = "run" end
      for _, c in ipairs({ "kernel", "calls", "total_ns", "mean_ns", "min_ns", "max_ns", "share_pct" }) do
        if g:has(c) then order[#order + 1] = c end
      end
      for _, c in ipairs(util) do order[#order + 1] = c end
      g = g:select(order):sort_by("-total_ns", "kernel")
      local shown = opts.top > 0 and g:head(opts.top) or g
      local name = #inputs > 1 and ("top_kernels_" .. _) or "top_kernels"
      local calls = g:has("calls") and g:col("calls"):sum() or nil
      report:table(name, shown, {
        title = string.format("%d kernels, %s launches, %s%s", g:nrows(), calls and units.count(calls) or "unknown",
          total and (units.ns(total) .. " of kernel time" .. (recorded and string.format(
            " listed, of %s of %s recorded", units.ns(recorded), p.meta.kernel_summary_total_what or "device time")
                or "")) or "kernel time unknown",
          (opts.top > 0 and g:nrows() > opts.top) and string.format(" (top %d shown)", opts.top) or ""),
        note = #util > 0 and g:nrows() > 0
          and "tensor_util and dram_util are fractions 0-1 as the input gives them, weighted by kernel time." or nil,
      })
      -- AQL barrier / wait packets ("<barrier packet>"): the loader keeps
      -- them out of kernel time; their own line says how much time they hold
      local pk = p.tables.pseudo_kernels
      if pk and pk:nrows() > 0 then
        local pt = pk:has("total_ns") and pk:col("total_ns"):sum() or nil
        local pn = pk:has("calls") and pk:col("calls"):sum() or nil
        local cols = {}
        for _, c in ipairs({ "name", "calls", "total_ns", "mean_ns", "min_ns", "max_ns" }) do
          if pk:has(c) then cols[#cols + 1] = c end
        end
        report:table(#inputs > 1 and ("pseudo_kernels_" .. _) or "pseudo_kernels", pk:select(cols), {
          title = string.format("not kernels (AQL barrier / wait packets, outside kernel time and the ranking): %s packets, %s%s",
            pn and units.count(pn) or "unknown", pt and units.ns(pt) or "time unknown",
            (pt and total and total > 0) and string.format(" (%.1f %% on top of the kernel time)", 100 * pt / total)
                or ""),
        })
      end
      if per_rank then
        for _, r in shown:rows() do
          rank_rows[#rank_rows + 1] = { rank = p.rank, kernel = r.kernel, calls = r.calls, total_ns = r.total_ns,
                                        share_pct = r.share_pct, i = #rank_rows + 1 }
        end
      end
      if g:nrows() == 0 then report:note(string.format("%s has no kernel launches.", p.source)) end
      if g:nrows() > 0 and not total then
        report:note(string.format("%s has no kernel durations (a metrics-only profile): times and shares are "
          .. "missing, kernels are listed by name with their launch counts.", p.source))
      end
      if g:nrows() > 0 and total and total > 0 then
        local first = g:row(1)
        report:finding {
          severity = "info",
          rule = "top-kernels.dominant",
          subject = first.kernel,
          message = recorded and string.format("%s takes %.1f %% of the %s of %s the input records (%s%s); "
            .. "the input lists only %s of kernel time (%.1f %%): its table is an excerpt, cut (row_limit) or "
            .. "sorted by another column, so a larger kernel may be missing", names.display(first.kernel),
                first.share_pct,
            units.ns(recorded), p.meta.kernel_summary_total_what or "device time", units.ns(first.total_ns),
            first.calls and string.format(" over %d calls", first.calls) or "", units.ns(total), 100 * total / recorded)
            or string.format("%s takes %.1f %% of kernel time%s (%s%s)",
            names.display(first.kernel), first.share_pct, first.run and (" in run " .. first.run) or "",
            units.ns(first.total_ns), first.calls and string.format(" over %d calls", first.calls) or ""),
          evidence = { share_pct = first.share_pct, total_ns = first.total_ns, calls = first.calls,
                       kernel_time_ns = (first.run and run_total[first.run]) or total, recorded_ns = recorded,
                       source = p.source },
        }
      end
      -- a summary's copies (a timeline's are step-breakdown's Memcpy)
      if not (k and k:has("duration_ns")) then copy_finding(report, p, total) end
    end
    if per_rank then
      table.sort(rank_rows, function(a, b) if a.rank ~= b.rank then return a.rank < b.rank end return a.i < b.i end)
      report:table("per_rank", perflab.table.from_rows(rank_rows,
          { "rank", "kernel", "calls", "total_ns", "share_pct" }, "per_rank"),
        { title = "top kernels of each rank (share of that rank's kernel time)" })
    end
    figure(report)   -- horizontal bars of time share
  end,
}

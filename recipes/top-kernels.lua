--- top-kernels: where the GPU time goes, kernel by kernel.
-- Groups launches by kernel name (or short name), ranks them by total time,
-- and reports calls, total/mean/min/max time, share of all kernel time, and
-- time-weighted tensor and DRAM utilisation where the input has them.
-- Works on any profile with a `kernels` table (one row per launch), and on
-- profiles that carry only a `kernel_summary` (one row per kernel).
local perflab = require "perflab"
local T = perflab.table
local units = perflab.units

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

local function from_summary(s, key)
  if not s:has(key) then key = "name" end
  local keys = { key }
  if s:has("run") and #s:unique("run") > 1 then keys = { "run", key } end
  local aggs = { { "total_ns", "sum", "total_ns" } }
  -- some summaries (a comparison report's shares) do not know the calls
  if s:has("calls") and s:col("calls"):count() > 0 then table.insert(aggs, 1, { "calls", "sum", "calls" }) end
  if s:has("min_ns") then aggs[#aggs + 1] = { "min_ns", "min", "min_ns" } end
  if s:has("max_ns") then aggs[#aggs + 1] = { "max_ns", "max", "max_ns" } end
  local g = s:group_by(keys):agg(aggs)
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
  return g:select(order), keys, {}
end

return {
  name = "top-kernels",
  summary = "kernels ranked by total GPU time: calls, total, mean, min, max, share, utilisation",
  needs = { "kernels|kernel_summary" },
  tables = { "kernels", "kernel_summary" },   -- all it reads: perflab run loads only these
  options = {
    top = { type = "integer", min = 0, default = 20, help = "how many kernels to list (0 = all)" },
    group = { type = "string", default = "name", choices = { "name", "short_name" },
              help = "group launches by the full kernel name or the short name" },
  },
  run = function(inputs, opts, report)
    for _, p in ipairs(inputs) do
      local g, keys, util
      local k = p.tables.kernels
      if k and k:has("duration_ns") then
        local key = opts.group
        if not k:has(key) then key = "name" end
        g, keys, util = per_launch(k, key)
      else
        g, keys, util = from_summary(p:table("kernel_summary"), opts.group)
      end
      -- shares are of the kernel time of the same run (profiles such as
      -- tb-profiler JSON hold several runs)
      local total = g:col("total_ns"):sum()
      local run_total = {}
      if keys[1] == "run" then
        for _, r in g:rows() do run_total[r.run] = (run_total[r.run] or 0) + (r.total_ns or 0) end
        local tot = g:col("run"):map(run_total)
        g:with("share_pct", (g:col("total_ns") * 100 / tot):keep(tot:ne(0)))
      elseif total ~= 0 then
        g:with("share_pct", g:col("total_ns") * 100 / total)
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
        title = string.format("%d kernels, %s launches, %s of kernel time%s", g:nrows(), calls and units.count(calls) or "unknown",
          units.ns(total), (opts.top > 0 and g:nrows() > opts.top) and string.format(" (top %d shown)", opts.top) or ""),
        note = #util > 0 and g:nrows() > 0
          and "tensor_util and dram_util are fractions 0-1 as the input gives them, weighted by kernel time." or nil,
      })
      if g:nrows() == 0 then report:note(string.format("%s has no kernel launches.", p.source)) end
      if g:nrows() > 0 and total > 0 then
        local first = g:row(1)
        report:finding {
          severity = "info",
          rule = "top-kernels.dominant",
          subject = first.kernel,
          message = string.format("%s takes %.1f %% of kernel time%s (%s%s)",
            units.label(first.kernel), first.share_pct, first.run and (" in run " .. first.run) or "",
            units.ns(first.total_ns), first.calls and string.format(" over %d calls", first.calls) or ""),
          evidence = { share_pct = first.share_pct, total_ns = first.total_ns, calls = first.calls,
                       kernel_time_ns = (first.run and run_total[first.run]) or total, source = p.source },
        }
      end
    end
  end,
}

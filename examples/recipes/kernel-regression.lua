--- kernel-regression: the kernel time of a run against a baseline.
-- Two inputs, baseline first.  Both go through the bundled top-kernels
-- recipe (every kernel, top = 0); totals and per-kernel times are compared.
-- An `error` finding when total kernel time grew by more than `threshold`
-- percent (so `perflab run ... --fail-on error` exits 1: a CI gate), a `warn`
-- finding for each kernel that grew by more than `threshold` percent and
-- more than 1 % of the baseline total, and notes for kernels that appeared or
-- went away.  Usage:
--   perflab run examples/recipes/kernel-regression.lua BASE CURRENT --set threshold=5 --fail-on error
local perflab = require "perflab"
local units = perflab.units

--- Per-kernel totals of one profile, from the bundled recipe.
local function per_kernel(p)
  return perflab.run("top-kernels", p, { top = 0 }).tables.top_kernels:select { "kernel", "calls", "total_ns" }
end

local function pct(new, old)
  if old == nil or old == 0 then return nil end
  return 100 * (new - old) / old
end

return {
  name = "kernel-regression",
  summary = "kernel time of a run against a baseline (two inputs, baseline first): error above a threshold",
  needs = { "kernels|kernel_summary" },
  options = {
    threshold = { type = "number", default = 5, help = "percent growth of kernel time that counts as a regression" },
    top = { type = "number", default = 10, help = "kernels listed, largest growth first (0 = all)" },
  },
  run = function(inputs, opts, report)
    if #inputs ~= 2 then perflab.fail("kernel-regression needs two inputs: BASELINE CURRENT") end
    local base, cur = per_kernel(inputs[1]), per_kernel(inputs[2])
    local tb, tc = base:col("total_ns"):sum(), cur:col("total_ns"):sum()
    local change = pct(tc, tb) or 0
    local regressed = change > opts.threshold
    report:finding {
      severity = regressed and "error" or "info",
      rule = "kernel-regression.total",
      subject = "total kernel time",
      message = string.format("total kernel time %s -> %s (%+.2f %%), %s the %g %% threshold",
        units.ns(tb), units.ns(tc), change, regressed and "above" or "within", opts.threshold),
      evidence = { baseline_ns = tb, current_ns = tc, change_pct = change, threshold_pct = opts.threshold,
                   formula = "100 * (current - baseline) / baseline" },
    }

    -- per kernel: current left-joined to the baseline
    local b = base:select { "kernel", "total_ns" }
    b:rename("total_ns", "baseline_ns")
    local d = cur:select { "kernel", "total_ns" }:join(b, { on = "kernel", how = "left" })
    d:rename("total_ns", "current_ns")
    d:add_column("delta_ns", function(r) return r.current_ns - (r.baseline_ns or 0) end, "number")
    d:add_column("change_pct", function(r) return pct(r.current_ns, r.baseline_ns) end, "number")
    d = d:select { "kernel", "baseline_ns", "current_ns", "delta_ns", "change_pct" }:sort_by("-delta_ns", "kernel")
    for _, r in d:rows() do
      if r.baseline_ns == nil then
        report:note(string.format("new kernel %s: %s", r.kernel, units.ns(r.current_ns)))
      elseif r.change_pct > opts.threshold and r.delta_ns > 0.01 * tb then
        report:finding {
          severity = "warn",
          rule = "kernel-regression.kernel",
          subject = r.kernel,
          message = string.format("%s grew %s (%+.2f %%)", r.kernel, units.ns(r.delta_ns), r.change_pct),
          evidence = { baseline_ns = r.baseline_ns, current_ns = r.current_ns, change_pct = r.change_pct,
                       threshold_pct = opts.threshold },
        }
      end
    end
    local seen = {}
    for _, k in ipairs(cur:col("kernel"):to_lua()) do seen[k] = true end
    for _, r in base:rows() do
      if not seen[r.kernel] then report:note(string.format("kernel %s is gone (was %s)", r.kernel,
          units.ns(r.total_ns))) end
    end
    report:table("kernels", opts.top > 0 and d:head(opts.top) or d, {
      title = string.format("largest growth first; baseline %s, current %s", inputs[1].source, inputs[2].source),
    })
  end,
}

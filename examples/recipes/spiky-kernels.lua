--- spiky-kernels: the bundled top-kernels report, plus a finding for each
-- kernel whose slowest launch is far above its mean (a sign of contention,
-- a cold cache, or an input that is sometimes much larger).
-- An example of a recipe that extends a bundled one through the public API:
-- it runs top-kernels with perflab.run, copies its findings and tables into
-- its own report, and adds what it checks itself.
--   perflab run examples/recipes/spiky-kernels.lua FILE [--set ratio=10] [--set top=10]
-- Copy it to ./recipes/ or ~/.config/perflab/recipes/ to run it by name.
local perflab = require "perflab"
local units = perflab.units

return {
  name = "spiky-kernels",
  summary = "top-kernels, plus a warning for kernels whose slowest launch is >= ratio x their mean",
  needs = { "kernels" },
  options = {
    top = { type = "number", default = 10, help = "kernels in the top-kernels table (0 = all)" },
    ratio = { type = "number", default = 10, help = "warn when max_ns >= ratio * mean_ns" },
    min_calls = { type = "number", default = 2, help = "only kernels launched at least this often" },
  },
  run = function(inputs, opts, report)
    -- 1. what the bundled recipe says, as it says it
    local base = perflab.run("top-kernels", inputs, { top = opts.top })
    for _, f in ipairs(base.findings) do report:finding(f) end
    for _, name in ipairs(base.table_order) do report:table(name, base.tables[name], base.table_info[name]) end
    -- 2. the extension: every kernel (top = 0), spikes first
    local all = perflab.run("top-kernels", inputs, { top = 0 }).tables.top_kernels
    local spiky = all:where(function(r)
      return r.calls >= opts.min_calls and r.mean_ns > 0 and r.max_ns >= opts.ratio * r.mean_ns
    end)
    spiky:add_column("max_over_mean", function(r) return r.max_ns / r.mean_ns end, "number")
    spiky = spiky:select { "kernel", "calls", "mean_ns", "max_ns", "max_over_mean", "total_ns" }
      :sort_by("-max_over_mean", "kernel")
    for _, r in spiky:rows() do
      report:finding {
        severity = "warn",
        rule = "spiky-kernels.spike",
        subject = r.kernel,
        message = string.format("%s: slowest launch %s is %.1fx its mean %s over %d calls",
          r.kernel, units.ns(r.max_ns), r.max_over_mean, units.ns(r.mean_ns), r.calls),
        evidence = { max_ns = r.max_ns, mean_ns = r.mean_ns, calls = r.calls, ratio = r.max_over_mean,
                     threshold = opts.ratio, formula = "max_ns / mean_ns" },
      }
    end
    report:table("spiky", spiky, { title = string.format("kernels with max >= %g x mean (%d calls or more)",
      opts.ratio, opts.min_calls) })
  end,
}

--- perflab.gpu: kernel-level GPU arithmetic under one name (a facade).
-- The work lives in four modules, re-exported here under the
-- old names so recipes and scripts keep running:
--   perflab.cuda_occupancy  occupancy calculator, what-if, Kineto's estimate
--   perflab.ncu_math        ncu rule arithmetic (roofline, SOL, launch) + thresholds
--   perflab.device          device context (context, row_device, infer_cc_row, dim, choices)
--   perflab.chart           the roofline chart (roofline_svg, xml_escape are thin wrappers)
-- What stays here: the SI number formatting.  (memoize, the launch-shape
-- cache recipes used before the table engine grouped first, is gone: no
-- recipe needs it.)
--
-- Pure Lua (no host needed): runs under a stock lua5.4 with
--   package.path = "lua/?.lua;" .. package.path

local M = {}
local check = require("perflab.options").check

-- re-export: the same functions and the same thresholds table (editing
-- gpu.thresholds edits perflab.ncu_math.thresholds)
for _, name in ipairs({ "perflab.cuda_occupancy", "perflab.ncu_math", "perflab.device" }) do
  for k, v in pairs(require(name)) do M[k] = v end
end

---------------------------------------------------------------------------
-- formatting shared with the roofline recipe; the roofline chart itself is
-- perflab.chart.roofline (gpu.roofline_svg is kept as its old name)
---------------------------------------------------------------------------

local function si(x, unit)
  local prefixes = { { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } }
  for _, p in ipairs(prefixes) do
    if math.abs(x) >= p[1] then return string.format("%g %s%s", math.floor(x / p[1] * 100 + 0.5) / 100, p[2], unit) end
  end
  return string.format("%g %s", math.floor(x * 100 + 0.5) / 100, unit)
end
M.si = si

function M.xml_escape(s) return require("perflab.chart").escape(s) end
--- roofline_svg{ ceilings, bandwidth, bandwidth_label, points, title, max_labels } -> SVG text (perflab.chart.roofline)
function M.roofline_svg(c)
  check(c, { "bandwidth", "bandwidth_label", "ceilings", "max_labels", "points", "title" }, "perflab.gpu.roofline_svg")
  return require("perflab.chart").roofline(c)
end

return M

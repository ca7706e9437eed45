-- perflab.gpu -- kernel-level GPU arithmetic under one name (a facade).
-- Since issue 18 the work lives in four modules, re-exported here under the
-- old names so recipes and scripts keep running:
--   perflab.cuda_occupancy  occupancy calculator, what-if, Kineto's estimate
--   perflab.ncu_math        ncu rule arithmetic (roofline, SOL, launch) + thresholds
--   perflab.device          device context (context, row_device, infer_cc_row, dim, choices)
--   perflab.chart           the roofline chart (roofline_svg, xml_escape are thin wrappers)
-- What stays here: memoize (the launch-shape cache recipes used before
-- grouping in the table engine) and the SI number formatting.
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
-- helpers shared by the kernel recipes (occupancy, roofline, launch)
---------------------------------------------------------------------------

--- memoize(f) -> g, where g(args, k1, k2, ...) returns f(args) computed once
-- per distinct (k1, k2, ...): the values f reads from args.  For pure
-- calculators (occupancy, Kineto's estimate, an op's FLOPs from its shapes):
-- a trace repeats a few hundred launch shapes over hundreds of thousands of
-- launches.  Keys are the values
-- themselves in a tree of tables (exact; nil and NaN have their own keys).
-- The result is shared between calls: read it, do not change it.
-- With no key arguments the one result is computed once (it used to return
-- the empty cache table instead of f(args)).
function M.memoize(f)
  local cache, NONE, NAN = {}, {}, {}
  local computed, only
  return function(args, ...)
    local node, n = cache, select("#", ...)
    if n == 0 then
      if not computed then only = f(args); computed = true end
      return only
    end
    for j = 1, n do
      local v = select(j, ...)
      if v == nil then v = NONE elseif v ~= v then v = NAN end
      local nx = node[v]
      if nx == nil then
        if j == n then nx = f(args) else nx = {} end
        node[v] = nx
      end
      node = nx
    end
    return node
  end
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

-- tests/lua/test_weighting.lua -- "weighted by the real run": ncu-rules
-- findings joined to a timeline by short name (and grid/block when both
-- sides have them) and weighted by the kernel's share of GPU time.
-- The corpus has no ncu report and timeline of the very same program, so
-- the join is exercised on the gpumode A100 ncu log and the HTA A100
-- alexnet Kineto trace, which share kernels (PyTorch elementwise kernels).
-- Expected times computed independently with python3 json/gzip over the
-- trace: all kernels 10,692 us; vectorized_elementwise_kernel 683 us
-- (6.388 %); distribution_elementwise_grid_stride_kernel 71 us, one launch
-- with grid 864 / block 256 -- the same configuration as ncu's launch 0.
local lu = require "luaunit"
local perflab = require "perflab"

local shared = os.getenv("PERFLAB_SHARED") or "../shared"
local NCU = shared .. "/corpus/ncu_text/gpumode_lecture001_ncu_logs_cc80.txt"
local TRACE = shared .. "/corpus/kineto_trace/hta_a100_alexnet_trace.json.gz"

local function have()
  local a, b = io.open(NCU), io.open(TRACE)
  if a then a:close() end
  if b then b:close() end
  if not (a and b) then print("skipped: corpus files absent"); return false end
  return true
end

TestWeighting = {}

local function check(rep)
  local w = rep.tables.weighted
  lu.assertNotNil(w)
  local by = {}
  for _, r in w:rows() do by[r.rule .. "|" .. r.kernel] = r end
  -- tail effect on distribution_elementwise_grid_stride_kernel: 50 % of 71 us
  local t = by["ncu.tail_effect|distribution_elementwise_grid_stride_kernel"]
  lu.assertEquals(t.join, "name, grid and block")
  lu.assertAlmostEquals(t.time_share_pct, 0.66, 1e-9)          -- 71 / 10692
  lu.assertAlmostEquals(t.saved_ns, 71000 * 0.5, 1e-6)
  lu.assertAlmostEquals(t.weighted_speedup_pct, 100 * 71 / 10692 * 0.5, 1e-9)
  -- vectorized_elementwise_kernel: ncu's grids differ from the trace's -> name only
  local v = by["ncu.tail_effect|vectorized_elementwise_kernel"]
  lu.assertStrContains(v.join, "name only")
  lu.assertAlmostEquals(v.saved_ns, 683000 * 0.5, 1e-6)
  -- ranked by saved time
  local prev = math.huge
  for _, r in w:rows() do
    lu.assertTrue(r.saved_ns <= prev); prev = r.saved_ns
  end
  lu.assertEquals(w:row(1).rank, 1)
  lu.assertEquals(w:row(1).kernel, "vectorized_elementwise_kernel")
  -- findings follow the same order; evidence carries the weighting
  lu.assertEquals(rep.findings[1].subject, "vectorized_elementwise_kernel")
  lu.assertNotNil(rep.findings[1].evidence.saved_ns)
  -- unmatched both ways
  local u = rep.tables.unmatched
  local sides = {}
  for _, r in u:rows() do sides[r.side .. "|" .. r.kernel] = r end
  lu.assertNotNil(sides["report|square_kernel_0d1d234"])
  lu.assertAlmostEquals(sides["timeline|ampere_sgemm_32x32_sliced1x4_tn"].time_share_pct, 24.51, 0.01)
end

function TestWeighting:test_two_inputs()
  if not have() then return end
  check(perflab.run("ncu-rules", { NCU, TRACE }))
end

function TestWeighting:test_set_timeline()
  if not have() then return end
  check(perflab.run("ncu-rules", { NCU }, { timeline = TRACE }))
end

function TestWeighting:test_kernel_summary_timeline_joins_by_name()
  -- a summary timeline (no grid/block): the join is by name only
  local T = perflab.table
  local Profile = require("perflab.profile").Profile
  local ks = T.from_rows({
      { name = "vectorized_elementwise_kernel", short_name = "vectorized_elementwise_kernel", total_ns = 3000 },
      { name = "other", short_name = "other", total_ns = 7000 } },
    { "name", "short_name", "total_ns" })
  local tl = setmetatable({ format = "nsys-stats", source = "mem", meta = {}, tables = { kernel_summary = ks },
    table_order = { "kernel_summary" }, diagnostics = {} }, Profile)
  if not io.open(NCU) then print("skipped"); return end
  local rep = perflab.run("ncu-rules", { perflab.load(NCU), tl })
  local r = rep.tables.weighted:row(1)
  lu.assertEquals(r.kernel, "vectorized_elementwise_kernel")
  lu.assertEquals(r.join, "name")
  lu.assertEquals(r.time_share_pct, 30)
  lu.assertAlmostEquals(r.saved_ns, 3000 * r.speedup_pct / 100, 1e-9)
end

os.exit(lu.LuaUnit.run())

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
-- The same pair drives the occupancy and launch recipes (shared
-- perflab.weighting).  Figures for those, from python3 over the two files
-- (re over the ncu log's "Registers Per Thread" / "Achieved Occupancy"
-- lines, json/gzip over the trace's cat == "kernel" events):
--   * the log's 14 vectorized_elementwise_kernel launches; the 7 with 16
--     registers average 64.3814 % achieved (theoretical 100 %), so their
--     occupancy.achieved_gap finding gets 7/14 of the trace's 683 us:
--     341,500 ns x 35.6186 % = 121,636.6 ns saved;
--   * over all five vectorized achieved_gap groups the saved times add up
--     to 683 us x (100 - 64.04429) % = 245,577.5 ns (the mean achieved over
--     all 14 launches) -- no group claims the whole kernel;
--   * distribution_elementwise_grid_stride_kernel: theoretical 75 %
--     (registers) -> 71 us x 25 % = 17,750 ns; achieved 58.78 % ->
--     71 us x (75 - 58.78) / 75 = 15,354.9 ns.
local lu = require "luaunit"
local perflab = require "perflab"
local tdata = require "tdata"

local shared = os.getenv("PERFLAB_DATA") or "tests/data"
local NCU = shared .. "/corpus/ncu_text/gpumode_lecture001_ncu_logs_cc80.txt"
local TRACE = shared .. "/corpus/kineto_trace/hta_a100_alexnet_trace.json.gz"

local function have()   -- raises, naming the file, when one is absent
  tdata.need(NCU); tdata.need(TRACE)
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
  tdata.need(NCU)
  local rep = perflab.run("ncu-rules", { perflab.load(NCU), tl })
  local r = rep.tables.weighted:row(1)
  lu.assertEquals(r.kernel, "vectorized_elementwise_kernel")
  lu.assertEquals(r.join, "name")
  lu.assertEquals(r.time_share_pct, 30)
  lu.assertAlmostEquals(r.saved_ns, 3000 * r.speedup_pct / 100, 1e-9)
end

-- occupancy: the same join, findings split by configuration share the time
local function check_occupancy(rep)
  local w = rep.tables.weighted
  lu.assertNotNil(w)
  lu.assertNotNil(rep.tables.occupancy)          -- the trace is a timeline, not analysed
  lu.assertNil(rep.tables.occupancy_2)
  local r1 = w:row(1)
  lu.assertEquals(r1.rule, "occupancy.achieved_gap")
  lu.assertEquals(r1.kernel, "vectorized_elementwise_kernel")
  lu.assertStrContains(r1.join, "7 of 14 profiled launches")
  lu.assertAlmostEquals(r1.saved_ns, 341500 * (100 - 64.3814286) / 100, 0.1)
  local vec_sum, by = 0, {}
  for _, r in w:rows() do
    if r.kernel == "vectorized_elementwise_kernel"
        and r.rule == "occupancy.achieved_gap" then vec_sum = vec_sum + r.saved_ns end
    by[r.rule .. "|" .. r.kernel] = r
  end
  lu.assertAlmostEquals(vec_sum, 245577.53, 0.1)
  local lim = by["occupancy.limiter|distribution_elementwise_grid_stride_kernel"]
  lu.assertEquals(lim.join, "name, grid and block")
  lu.assertAlmostEquals(lim.saved_ns, 17750, 1e-6)
  lu.assertAlmostEquals(lim.time_share_pct, 0.66, 1e-9)
  lu.assertAlmostEquals(by["occupancy.achieved_gap|distribution_elementwise_grid_stride_kernel"].saved_ns,
    71000 * (75 - 58.78) / 75, 0.01)
  -- evidence on the findings, which follow the weighted order
  local f = rep.findings[1]
  lu.assertEquals(f.rule, "occupancy.achieved_gap")
  lu.assertAlmostEquals(f.evidence.saved_ns, r1.saved_ns, 1e-9)
  lu.assertEquals(f.evidence.time_share_pct, 3.19)        -- 341.5 / 10692
  lu.assertAlmostEquals(f.evidence.weighted_speedup_pct, 100 * r1.saved_ns / 10692000, 1e-9)
  lu.assertEquals(f.evidence.match, r1.join)
  local prev = math.huge
  for _, x in ipairs(rep.findings) do
    if x.evidence.saved_ns then lu.assertTrue(x.evidence.saved_ns <= prev); prev = x.evidence.saved_ns end
  end
  -- square_kernel and reduce_kernel have findings but are not in the trace
  local u = {}
  for _, r in rep.tables.unmatched:rows() do u[r.side .. "|" .. r.kernel] = r end
  lu.assertNotNil(u["report|square_kernel_0d1d234"])
  lu.assertNotNil(u["report|reduce_kernel"])
  lu.assertAlmostEquals(u["timeline|ampere_sgemm_32x32_sliced1x4_tn"].time_share_pct, 24.51, 0.01)
end

function TestWeighting:test_occupancy_two_inputs()
  if not have() then return end
  check_occupancy(perflab.run("occupancy", { NCU, TRACE }))
end

function TestWeighting:test_occupancy_set_timeline()
  if not have() then return end
  check_occupancy(perflab.run("occupancy", { NCU }, { timeline = TRACE }))
end

function TestWeighting:test_occupancy_without_timeline_unchanged()
  if not have() then return end
  local rep = perflab.run("occupancy", { NCU })
  lu.assertNil(rep.tables.weighted)
  lu.assertNil(rep.findings[1].evidence.saved_ns)
  -- a trace alone is still analysed as the report (no ncu input)
  rep = perflab.run("occupancy", { TRACE })
  lu.assertNotNil(rep.tables.occupancy)
  lu.assertNil(rep.tables.weighted)
end

-- launch: tail effect, one finding per configuration
local function check_launch(rep)
  local w = rep.tables.weighted
  lu.assertEquals(w:nrows(), 2)
  local r1, r2 = w:row(1), w:row(2)
  lu.assertEquals(r1.rule, "launch.tail_effect")
  lu.assertEquals(r1.kernel, "vectorized_elementwise_kernel")
  lu.assertStrContains(r1.join, "name only")
  lu.assertAlmostEquals(r1.saved_ns, 683000 * 0.5, 1e-6)    -- all 14 launches: the whole kernel
  lu.assertAlmostEquals(r1.weighted_speedup_pct, 100 * 683 / 10692 * 0.5, 1e-9)
  lu.assertEquals(r2.kernel, "distribution_elementwise_grid_stride_kernel")
  lu.assertEquals(r2.join, "name, grid and block")
  lu.assertAlmostEquals(r2.saved_ns, 71000 * 0.5, 1e-6)
  lu.assertEquals(rep.findings[1].evidence.kernel_time_ns, 683000)
  lu.assertEquals(rep.findings[1].evidence.match, r1.join)
  lu.assertEquals(rep.findings[2].evidence.time_share_pct, 0.66)
  -- square_kernel's tail effect is not in the trace: after the weighted ones
  lu.assertNil(rep.findings[3].evidence.saved_ns)
  local u = {}
  for _, r in rep.tables.unmatched:rows() do u[r.side .. "|" .. r.kernel] = r end
  lu.assertNotNil(u["report|square_kernel_0d1d234"])
  lu.assertNotNil(u["report|reduce_kernel"])
end

function TestWeighting:test_launch_two_inputs()
  if not have() then return end
  check_launch(perflab.run("launch", { NCU, TRACE }))
end

function TestWeighting:test_launch_set_timeline()
  if not have() then return end
  check_launch(perflab.run("launch", { NCU }, { timeline = TRACE }))
end

function TestWeighting:test_launch_finding_over_several_kernels()
  -- one small-grid finding covers kernels A (2 launches), B and C; the
  -- timeline has A with this configuration (300 ns) and another (700 ns), B
  -- (1000 ns) and D (8000 ns): the finding gets A's 300 + B's 1000 ns, C is
  -- unmatched.  Speedup (108 - 10) / 108 = 90.74 %; by hand:
  -- saved = 1300 x 98 / 108 = 1179.63 ns, share 13 %.
  local T = perflab.table
  local Profile = require("perflab.profile").Profile
  local function prof(fmt, rows, cols)
    return setmetatable({ format = fmt, source = fmt, meta = {}, tables = { kernels = T.from_rows(rows, cols) },
      table_order = { "kernels" }, diagnostics = {} }, Profile)
  end
  local rcols = { "id", "name", "short_name", "grid_size", "block_size", "sm_count" }
  local rep_in = prof("ncu-text", {
    { id = 0, name = "A", short_name = "A", grid_size = 10, block_size = 128, sm_count = 108 },
    { id = 1, name = "A", short_name = "A", grid_size = 10, block_size = 128, sm_count = 108 },
    { id = 2, name = "B", short_name = "B", grid_size = 10, block_size = 128, sm_count = 108 },
    { id = 3, name = "C", short_name = "C", grid_size = 10, block_size = 128, sm_count = 108 } }, rcols)
  local tcols = { "name", "short_name", "duration_ns", "grid_size", "block_size" }
  local tl = prof("kineto", {
    { name = "A", short_name = "A", duration_ns = 300, grid_size = 10, block_size = 128 },
    { name = "A", short_name = "A", duration_ns = 700, grid_size = 20, block_size = 128 },
    { name = "B", short_name = "B", duration_ns = 1000, grid_size = 10, block_size = 128 },
    { name = "D", short_name = "D", duration_ns = 8000, grid_size = 1, block_size = 32 } }, tcols)
  local rep = perflab.run("launch", { rep_in, tl })
  local w = rep.tables.weighted
  lu.assertEquals(w:nrows(), 1)
  local r = w:row(1)
  lu.assertEquals(r.rule, "launch.small_grid")
  lu.assertEquals(r.kernel, "A, B")
  lu.assertEquals(r.join, "name, grid and block (2 of 3 kernels matched)")
  lu.assertEquals(r.time_share_pct, 13)
  lu.assertAlmostEquals(r.saved_ns, 1300 * 98 / 108, 1e-9)
  local u = {}
  for _, x in rep.tables.unmatched:rows() do u[x.side .. "|" .. x.kernel] = x end
  lu.assertNotNil(u["report|C"])
  lu.assertEquals(u["timeline|D"].time_share_pct, 80)
end

function TestWeighting:test_timeline_without_kernels_fails()
  if not have() then return end
  local T = perflab.table
  local Profile = require("perflab.profile").Profile
  local bad = setmetatable({ format = "nsys-stats", source = "mem", meta = {},
    tables = { memcpy = T.from_rows({ { bytes = 1 } }, { "bytes" }) }, table_order = { "memcpy" }, diagnostics = {} },
        Profile)
  local ok, err = pcall(perflab.run, "launch", { perflab.load(NCU), bad })
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "kernels or kernel_summary")
end

os.exit(lu.LuaUnit.run())

-- test_nvprof_rules.lua -- the nvprof-rules recipe: what limits each kernel
-- of an nvprof --metrics run, on the ncu-rules evaluator with nvprof's
-- metric names mapped (perflab.nvprof_rules).  Every expected value is
-- worked out by hand from the input text in the comment above its test.
-- Inputs: tests/fixtures/nvprof/metrics_v100_guided.txt (hand-made, README
-- there) and the corpus file thrust2d_gtx1070_nvprof_metrics_shared-descent.profile.
-- Run: build/perflab tests/lua/test_nvprof_rules.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local NV = require "perflab.nvprof_rules"

local FIX = "tests/fixtures/nvprof/metrics_v100_guided.txt"
local CORPUS = "tests/data/corpus/nvprof/thrust2d_gtx1070_nvprof_metrics_shared-descent.profile"

local function fired(rep)
  local s = {}
  local t = rep.tables.nvprof_rules
  for i = 1, t:nrows() do
    local r = t:row(i)
    s[#s + 1] = r.kernel_id .. " " .. r.rule .. (r.evidence:match("op=(%a+)") and (" " .. r.evidence:match("op=(%a+)"))
        or "")
  end
  return s
end

TestNvprofRules = {}

function TestNvprofRules:test_level()
  lu.assertEquals(NV.level("Low (1)"), 1)
  lu.assertEquals(NV.level("Max (10)"), 10)
  lu.assertEquals(NV.level("Idle (0)"), 0)
  lu.assertNil(NV.level("82.14%"))
end

-- metrics_v100_guided.txt, Tesla V100-PCIE-16GB (perflab.gpus v100-pcie:
-- 14 TFLOP/s FP32, 7 FP64, 900 GB/s).
-- saxpy (kernel 0): compute levels FP32 2, load/store 3 -> 3 (load/store);
-- memory dram 9, l2 4 -> 9; 9 >= 8 and 3 < 9 -> memory-bound.
-- AI = 2e6 flop_count_sp / (8e6 + 4e6 bytes) = 0.1667; ridge 14e12/900e9
-- = 15.56 -> memory side.  achieved_occupancy 0.5 -> 50 % < 80 fires;
-- stalls 62.5 / 20 / 5 -> memory_dependency 62.5 > 30 fires; gst 50 % fires
-- (store), gld 100 no, shared 0 % (no requests) no.
-- reduce_kernel (1): levels FP32 1, dram 2, both < 6 -> latency-bound.
-- flop_count_dp 1e6 > sp 10 -> fp64; bytes (100000 + 25000) x 32 = 4e6 ->
-- AI = 1000010 / 4e6 = 0.2500025; ridge 7e12/900e9 = 7.778 -> memory side.
-- occupancy 90 no; stalls sync 25 (dominant) < 30 no; warp execution
-- 62.5 % -> 20 threads < 24 fires; shared 85 % -> 15 % >= 10 fires.
function TestNvprofRules:test_guided_fixture()
  local p = perflab.load(FIX)
  local rep = perflab.run("nvprof-rules", { p })
  local k = rep.tables.nvprof_kernels
  lu.assertEquals(k:nrows(), 2)
  local a, b = k:row(1), k:row(2)
  lu.assertEquals({ a.kernel, a.invocations, a.bound, a.compute_level, a.compute_unit, a.memory_level, a.memory_unit },
                  { "saxpy", 4, "memory-bound", 3, "load/store", 9, "device memory" })
  lu.assertAlmostEquals(a.arithmetic_intensity, 2e6 / 12e6, 1e-12)
  lu.assertAlmostEquals(a.ridge, 14e12 / 900e9, 1e-9)
  lu.assertEquals({ a.roofline_side, a.achieved_occupancy_pct, a.sm_efficiency_pct }, { "memory side", 50, 90 })
  lu.assertEquals({ a.dominant_stall, a.dominant_stall_pct, a.gst_efficiency_pct }, { "memory_dependency", 62.5, 50 })
  lu.assertEquals({ b.kernel, b.bound, b.roofline_side, b.dominant_stall, b.dominant_stall_pct },
                  { "reduce_kernel", "latency-bound", "memory side", "sync", 25 })
  lu.assertAlmostEquals(b.arithmetic_intensity, 1000010 / 4e6, 1e-12)
  lu.assertAlmostEquals(b.ridge, 7e12 / 900e9, 1e-9)
  lu.assertNil(b.sm_efficiency_pct)
  lu.assertEquals(fired(rep), {
    "0 nvprof.bound", "0 nvprof.roofline", "0 nvprof.occupancy", "0 nvprof.warp_stall",
    "0 nvprof.global_efficiency store",
    "1 nvprof.bound", "1 nvprof.roofline", "1 nvprof.thread_divergence", "1 nvprof.shared_efficiency" })
  -- no speedup and no time anywhere: nvprof --metrics records no durations
  for _, f in ipairs(rep.findings) do
    lu.assertNil(f.speedup_pct)
    lu.assertNil(f.message:find("µs") or f.message:find(" ms") or f.message:find("speedup"))
  end
  lu.assertFalse(rep.tables.nvprof_rules:has("speedup_pct"))
end

-- the corpus file records only efficiencies and shared_utilization (a
-- memory level, no compute level): bound, roofline, occupancy, stall and
-- divergence are unknown and the note says which rules could not run.
-- Fired: kernel 0 gld 82.14 % (load) and shared 37.35 % (62.65 >= 10);
-- kernel 1 shared 97.66 % (2.34 < 10) nothing; kernel 2 gst 12.5 %
-- (store), shared 97.77 % no; kernel 3 gld 0.00 % (no loads: not fired),
-- shared 3.12 % (96.88 >= 10).
function TestNvprofRules:test_corpus_efficiencies()
  local p = perflab.load(CORPUS)
  local rep = perflab.run("nvprof-rules", { p })
  lu.assertEquals(fired(rep), { "0 nvprof.global_efficiency load", "0 nvprof.shared_efficiency",
    "2 nvprof.global_efficiency store", "3 nvprof.shared_efficiency" })
  local k = rep.tables.nvprof_kernels
  lu.assertEquals(k:nrows(), 4)
  lu.assertEquals(k:col("bound"):to_lua(), { "unknown", "unknown", "unknown", "unknown" })
  lu.assertEquals(k:col("dominant_stall"):to_lua()[1], "unknown")
  lu.assertEquals(k:col("memory_level"):to_lua(), { 1, 1, 1, 1 })
  lu.assertEquals(k:col("invocations"):to_lua(), { 1, 1, 20, 2 })
  local notes = table.concat(rep.notes or {}, "\n")
  lu.assertStrContains(notes, "nvprof.bound")
  lu.assertStrContains(notes, "nvprof.occupancy")
  lu.assertStrContains(notes, "nvprof.roofline")
end

-- a GPU perflab.gpus has no peaks for: the ridge point is unknown, said so
function TestNvprofRules:test_ridge_unknown()
  local rep = perflab.run("nvprof-rules", { perflab.load(FIX) }, { gpu = "auto" })
  lu.assertEquals(rep.tables.nvprof_kernels:row(1).roofline_side, "memory side")
  -- the same metrics on an unknown device
  local text = io.open(FIX):read("a"):gsub("Tesla V100%-PCIE%-16GB", "GeForce GT 650M")
  local path = os.tmpname()
  local f = assert(io.open(path, "w")); f:write(text); f:close()
  local rep2 = perflab.run("nvprof-rules", { perflab.load(path) })
  os.remove(path)
  local a = rep2.tables.nvprof_kernels:row(1)
  lu.assertEquals(a.roofline_side, "unknown")
  lu.assertAlmostEquals(a.arithmetic_intensity, 2e6 / 12e6, 1e-12)
  lu.assertStrContains(table.concat(rep2.notes or {}, "\n"), "the ridge point is unknown")
end

os.exit(lu.LuaUnit.run())

-- test_field_inputs_other.lua -- recipes on the real-world input shapes of
-- issue 22 (classes 10, 12, 13, 14, 18).  Expected values are the figures
-- written in the fixtures (tests/fixtures/README.md), worked out by hand
-- below each test.
-- Run: build/perflab tests/lua/test_field_inputs_other.lua -v
local lu = require "luaunit"
local perflab = require "perflab"

local FIX = "tests/fixtures/"

local function notes_with(rep, text)
  local n = 0
  for _, s in ipairs(rep.notes or {}) do if s:find(text, 1, true) then n = n + 1 end end
  return n
end

TestFieldInputs = {}

-- Class 10: two nvprof runs in one log.  Run 1: matmul_kernel 10 calls,
-- 4.62 ms (mean 462 us); run 2: 10 calls, 1.1 s (mean 110 ms).  Merged they
-- were 20 calls with a mean of 55.231 ms; per run they stay apart.
function TestFieldInputs:test_nvprof_runs_top_kernels()
  local rep = perflab.run("top-kernels", { FIX .. "nvprof/two_runs_summary.txt" })
  local t = rep.tables.top_kernels
  lu.assertEquals(t:nrows(), 2)
  local r1, r2 = t:row(1), t:row(2)
  lu.assertEquals(r1.run, 2)
  lu.assertEquals(r1.calls, 10)
  lu.assertEquals(r1.mean_ns, 110e6)
  lu.assertEquals(r2.run, 1)
  lu.assertEquals(r2.mean_ns, 462e3)
  lu.assertEquals(r2.share_pct, 100)         -- of its run's kernel time
end

-- diff FILE on the two runs: 4.62 ms -> 1100 ms, delta 1095.38 ms, slower.
function TestFieldInputs:test_nvprof_runs_diff()
  local rep = perflab.run("diff", { FIX .. "nvprof/two_runs_summary.txt" })
  local d = rep.tables.diff
  lu.assertEquals(d:nrows(), 1)
  local r = d:row(1)
  lu.assertEquals(r.kernel, "matmul_kernel")
  lu.assertEquals(r.total_ns_a, 4620000)
  lu.assertEquals(r.total_ns_b, 1100000000)
  lu.assertEquals(r.delta_ns, 1095380000)
  lu.assertEquals(r.status, "slower")
end

-- Class 12: five nsys rows, three of them the same cut name ("…").  Each
-- stays its own kernel: 5 rows, not 3; the 1000-call row keeps its own
-- min/max (1000, 2000 ns) instead of the merged 1000 / 110000.
function TestFieldInputs:test_truncated_names_not_merged()
  for _, group in ipairs({ "name", "short_name" }) do
    local rep = perflab.run("top-kernels", { FIX .. "nsys/nsys_truncated_names.txt" }, { group = group })
    local t = rep.tables.top_kernels
    lu.assertEquals(t:nrows(), 5)
    lu.assertEquals(t:col("calls"):sum(), 1460)
    local r = t:row(3)
    lu.assertEquals(r.calls, 1000)
    lu.assertEquals(r.min_ns, 1000)
    lu.assertEquals(r.max_ns, 2000)
    lu.assertEquals(notes_with(rep, "3 kernel names were cut by the tool"), 1)
  end
  -- a summary without cut names: no note, rows as they are
  local rep = perflab.run("top-kernels", { FIX .. "rocprof/rocm4_stats_unquoted_commas.csv" })
  lu.assertEquals(rep.tables.top_kernels:nrows(), 3)
  lu.assertEquals(notes_with(rep, "cut by the tool"), 0)
end

local function findings(rep, rule)
  local out = {}
  for _, f in ipairs(rep.findings) do if f.rule == rule then out[#out + 1] = f end end
  return out
end

-- Class 14: the four traces of fixtures/gen/gen_tensor_core_traces.py.  Per step
-- the GEMMs (under aten::mm, tensor-core eligible) take 600 us and the add
-- 100 us of kernel time: eligible share 1200 / 1400 = 85.714 %.
function TestFieldInputs:test_tensor_core_advice()
  local function run(f) return perflab.run("step-breakdown", { FIX .. "kineto/" .. f }) end
  -- A100, FP32 SGEMM, no recorded dtypes: a kernel name is no evidence, so
  -- no advice; the note says unknown and how to record the dtypes
  local rep = run("tc_a100_fp32.json")
  lu.assertEquals(#findings(rep, "step-breakdown.tensor_cores"), 0)
  lu.assertEquals(notes_with(rep, "step-breakdown.tensor_cores: unknown"), 1)
  lu.assertEquals(notes_with(rep, "record_shapes=True"), 1)
  -- the same workload with its dtypes recorded (float on an A100): the advice
  rep = run("ops_a100_fp32_shapes.json")
  local tc = findings(rep, "step-breakdown.tensor_cores")
  lu.assertEquals(#tc, 1)
  lu.assertAlmostEquals(tc[1].evidence.tc_eligible_pct, 100 * 1200 / 1400, 1e-9)
  lu.assertStrContains(tc[1].message, "FP16/BF16")
  -- B200, FP8 nvjet/bmm_E4m3/fmhaSm100: no AMP advice, a note naming FP8
  rep = run("tc_b200_fp8.json")
  lu.assertEquals(#findings(rep, "step-breakdown.tensor_cores"), 0)
  lu.assertEquals(notes_with(rep, "FP8 among them"), 1)
  lu.assertEquals(notes_with(rep, "cuBLAS nvjet"), 1)
  for _, f in ipairs(rep.findings) do lu.assertNotStrContains(f.message, "FP16") end
  -- MI300X, BF16 on matrix cores (Cijk_..._MI16x16x1_): no advice
  rep = run("tc_mi300x_bf16.json")
  lu.assertEquals(#findings(rep, "step-breakdown.tensor_cores"), 0)
  lu.assertEquals(notes_with(rep, "AMD MFMA"), 1)
  -- MI300X, an FP32 Tensile GEMM without MFMA and no recorded dtypes: unknown
  rep = run("tc_mi300x_fp32.json")
  lu.assertEquals(#findings(rep, "step-breakdown.tensor_cores"), 0)
  lu.assertEquals(notes_with(rep, "step-breakdown.tensor_cores: unknown"), 1)
  -- MI300X, a GEMM named outside Tensile's naming, no dtypes: unknown
  rep = run("tc_mi300x_unnamed.json")
  lu.assertEquals(#findings(rep, "step-breakdown.tensor_cores"), 0)
  lu.assertEquals(notes_with(rep, "step-breakdown.tensor_cores: unknown"), 1)
  -- no deviceProperties: the rule is skipped, and the note says why
  rep = run("tc_nodevice_fp32.json")
  lu.assertEquals(#findings(rep, "step-breakdown.tensor_cores"), 0)
  lu.assertEquals(notes_with(rep, "the trace names no GPU"), 1)
end

-- Class 13: HIP's computeMajor/Minor is the gfx version: MI300X's 9.4 is
-- vendor AMD, arch gfx942, and no compute capability.
function TestFieldInputs:test_kineto_amd_device()
  local p = perflab.load(FIX .. "kineto/tc_mi300x_bf16.json")
  lu.assertEquals(p.meta.vendor, "AMD")
  lu.assertEquals(p.meta.arch, "gfx942")
  lu.assertEquals(p.meta.gfx_version, "9.4")
  lu.assertNil(p.meta.cc)
  local d = p:table("devices"):row(1)
  lu.assertNil(d.cc)
  lu.assertEquals(d.vendor, "AMD")
  lu.assertEquals(d.arch, "gfx942")
  -- MI250 (HTA corpus copy): 9.0 with 104 CUs -> gfx90a
  p = perflab.load("tests/data/corpus/kineto_trace/hta_mi250_rocm6_2_minitoy_kineto.json.gz")
  lu.assertEquals(p.meta.arch, "gfx90a")
  lu.assertNil(p.meta.cc)
  -- NVIDIA keeps its compute capability
  p = perflab.load(FIX .. "kineto/tc_b200_fp8.json")
  lu.assertEquals(p.meta.cc, "10.0")
  lu.assertNil(p.meta.vendor)
  lu.assertEquals(p:table("devices"):row(1).vendor, "NVIDIA")
end

-- Class 18: diff across devices says so first (a warn finding before the
-- regression findings, and the head of the diff table's title).
function TestFieldInputs:test_diff_devices_differ()
  local rep = perflab.run("diff", { FIX .. "kineto/tc_a100_fp32.json", FIX .. "kineto/tc_mi300x_bf16.json" })
  local f = rep:sorted_findings()[1]
  lu.assertEquals(f.rule, "diff.devices")
  lu.assertEquals(f.evidence.device_a, "NVIDIA A100-SXM4-80GB (cc 8.0)")
  lu.assertEquals(f.evidence.device_b, "AMD Instinct MI300X (gfx942)")
  lu.assertStrContains(f.message, "devices differ (A: NVIDIA A100-SXM4-80GB (cc 8.0), B: AMD Instinct MI300X (gfx942))")
  lu.assertStrContains(rep.table_info.diff.title, "devices differ (A: ")
  -- two runs of one nvprof log, on a V100 and a T4 (meta run1/run2.device)
  rep = perflab.run("diff", { FIX .. "nvprof/two_runs_gpu_trace.txt" })
  f = rep:sorted_findings()[1]
  lu.assertEquals(f.rule, "diff.devices")
  lu.assertStrContains(f.message, "devices differ (A: Tesla V100-SXM2, B: Tesla T4): ")
  -- the same device, or a side that does not say: nothing
  rep = perflab.run("diff", { FIX .. "kineto/tc_a100_fp32.json", FIX .. "kineto/tc_a100_fp32.json" })
  lu.assertEquals(#findings(rep, "diff.devices"), 0)
  rep = perflab.run("diff", { FIX .. "kineto/tc_a100_fp32.json", FIX .. "kineto/tc_nodevice_fp32.json" })
  lu.assertEquals(#findings(rep, "diff.devices"), 0)
end

-- Class 13: occupancy --gpu mi300x on a rocprof per-dispatch CSV.  By hand
-- with gfx942's limits (8 waves/SIMD, 512 VGPRs, 800 SGPRs, 64 KB LDS/CU):
--  vector_add  wg 256 (4 waves), 8 VGPRs, 16 SGPRs, no LDS: 512/8 = 64, 800/16 = 50 -> 8 waves, 100 %
--  gemm_tile   128 + 128 VGPRs = 256: 512/256 = 2; LDS 32 KB: 2 WGs x 4 waves / 4 SIMDs = 2 -> 2 waves, 25 %
--  block_reduce wg 1024 (16 waves), 40 VGPRs: 12 -> 8; 112 SGPRs: 800/112 = 7; LDS 16 KB: 4 x 16 / 4 = 16 -> 8;
--              -> 7 waves, 87.5 %
function TestFieldInputs:test_amd_occupancy_rocprof()
  local rep = perflab.run("occupancy", { FIX .. "rocprof/mi300x_dispatches_results.csv" }, { gpu = "mi300x" })
  local t = rep.tables.amd_occupancy
  lu.assertEquals(t:nrows(), 3)
  local want = { { "vector_add", 8, 100, "" }, { "gemm_tile", 2, 25, "VGPRs, LDS" },
      { "block_reduce", 7, 87.5, "SGPRs" } }
  for i, w in ipairs(want) do
    local r = t:row(i)
    lu.assertEquals(r.kernel, w[1])
    lu.assertEquals(r.arch, "gfx942")
    lu.assertEquals(r.waves_per_simd, w[2])
    lu.assertEquals(r.occupancy_pct, w[3])
    lu.assertEquals(r.limiter or "", w[4])
  end
  local f = findings(rep, "occupancy.amd_limiter")
  lu.assertEquals(#f, 1)
  lu.assertEquals(f[1].subject, "gemm_tile")
  lu.assertEquals(f[1].evidence.dispatches, 2)
  lu.assertEquals(f[1].speedup_pct, 75)
  -- without --gpu: said plainly, no CUDA calculator on AMD
  rep = perflab.run("occupancy", { FIX .. "rocprof/mi300x_dispatches_results.csv" })
  lu.assertNil(rep.tables.occupancy)
  lu.assertEquals(notes_with(rep, "pass --gpu mi300x"), 1)
end

-- An nvprof summary saved as CSV without quotes: "axpy(float*, float const *,
-- float, int)" splits into 4 extra fields at its commas; the name is the last
-- column, so the rest of the record is the name.  Values by hand from the
-- fixture: axpy 4 calls, 3.0000ms = 3,000,000 ns, mean 750 us; scale 10
-- calls, 500 us; kernel time 3.5 ms, axpy's share 3/3.5 = 85.714 %.
function TestFieldInputs:test_nvprof_summary_csv_unquoted_names()
  local p = perflab.load(FIX .. "nvprof/summary_csv_unquoted.csv")
  lu.assertEquals(p.format, "nvprof")
  local ks = p.tables.kernel_summary
  lu.assertEquals(ks:nrows(), 2)
  local r = ks:row(1)
  lu.assertEquals(r.name, "axpy(float*, float const *, float, int)")
  lu.assertEquals(r.calls, 4)
  lu.assertEquals(r.total_ns, 3000000)
  lu.assertEquals(r.mean_ns, 750000)
  lu.assertEquals(r.min_ns, 700000)
  lu.assertEquals(ks:row(2).name, "scale(float*, int)")
  lu.assertEquals(ks:row(2).total_ns, 500000)
  lu.assertEquals(p.tables.memcpy_summary:row(1).name, "[CUDA memcpy HtoD]")
  lu.assertEquals(p.tables.summary:nrows(), 4)
  lu.assertEquals(p.tables.summary:row(4).type, "API calls")
  lu.assertEquals(p.tables.summary:row(4).total_ns, 90e6)
  local said = 0
  for _, d in ipairs(p.diagnostics) do
    if tostring(d.message or d):find("2 summary rows with unquoted commas", 1, true) then said = said + 1 end
  end
  lu.assertEquals(said, 1)
  local rep = perflab.run("top-kernels", { p })
  local t = rep.tables.top_kernels
  lu.assertEquals(t:row(1).kernel, "axpy(float*, float const *, float, int)")
  lu.assertAlmostEquals(t:row(1).share_pct, 300 / 3.5, 1e-9)
  -- a row that has fewer fields than the header is still an error
  local bad = os.tmpname()
  local f = assert(io.open(bad, "w"))
  f:write("Time(%),Time,Calls,Avg,Min,Max,Name\n60.00%,3.0000ms,4,750.00us\n")
  f:close()
  local ok, err = pcall(perflab.load, bad)
  os.remove(bad)
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), ":2:")
  lu.assertStrContains(tostring(err), "7 fields as in the header")
end

os.exit(lu.LuaUnit.run())

-- test_diff.lua -- the diff recipe against values computed independently
-- with /usr/bin/python3 (json + scipy) over the same files.
-- Run: build/perflab tests/lua/test_diff.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local compare = require "perflab.compare"

local SHARED = os.getenv("PERFLAB_DATA") or "tests/data"
local SEED1 = SHARED .. "/seeds/001_e0954df1c8df0a17.txt"
local FIX = "tests/fixtures/suspicion/"

local function row_of(t, kernel)
  for _, r in t:rows() do if r.kernel == kernel then return r end end
  return nil
end

TestDiff = {}

-- Seed 001 holds two tb-profiler runs.  python3: json.loads of lines 4 and 9
-- (the kernel tables), summing Calls and "Total Duration (us)" per Name:
-- 61 names in run 1, 62 in run 2; sum of positive deltas 5258 us;
-- cncl::d2d_tnc only in run 2 (69 calls, 3522 us, 66.98364397109167 %);
-- MLUUnionXKernelBatchNormBackward 106 calls, 96916 -> 97476 us
-- (10.650437428680107 %); totals 578421 -> 583538 us.
function TestDiff:test_seed001_two_runs()
  require("tdata").need(SEED1)
  local rep = perflab.run("diff", { SEED1 }, { key = "name" })
  local d = rep.tables.diff
  lu.assertEquals(d:nrows(), 62)
  local first = d:row(1)
  lu.assertEquals(first.kernel, "cncl::d2d_tnc(void*, void*, unsigned long)")
  lu.assertEquals(first.status, "added")
  lu.assertEquals(first.calls_a, 0)
  lu.assertEquals(first.calls_b, 69)
  lu.assertEquals(first.total_ns_b, 3522000)
  lu.assertAlmostEquals(first.regression_share_pct, 66.98364397109167, 1e-9)
  local bn = d:row(2)
  lu.assertStrContains(bn.kernel, "MLUUnionXKernelBatchNormBackward(")
  lu.assertEquals(bn.total_ns_a, 96916000)
  lu.assertEquals(bn.total_ns_b, 97476000)
  lu.assertEquals(bn.delta_ns, 560000)
  lu.assertAlmostEquals(bn.regression_share_pct, 10.650437428680107, 1e-9)
  lu.assertNil(bn.p_welch) -- a summary has no per-launch durations
  lu.assertEquals(d:col("total_ns_a"):sum(), 578421000)
  lu.assertEquals(d:col("total_ns_b"):sum(), 583538000)
  local pos = 0
  for _, r in d:rows() do if r.delta_ns > 0 then pos = pos + r.delta_ns end end
  lu.assertEquals(pos, 5258000)
  -- by short name two concatHigh<...> variants fold into one row
  local rs = perflab.run("diff", { SEED1 })
  lu.assertEquals(rs.tables.diff:nrows(), 61)
  lu.assertEquals(rs.tables.diff:row(1).kernel, "d2d_tnc")
end

-- Two Kineto traces: planted kernel 30 launches each side; python3 over the
-- JSON (durations in ns = round(dur * 1000)): totals 12422110 -> 19061220,
-- scipy ttest_ind(b, a, equal_var=False).pvalue 8.90534613425291e-43,
-- mannwhitneyu(b, a).pvalue 3.019859359162157e-11; sum of positive per-name
-- deltas 6701932 ns, planted share 99.06262850771986 %; all kernels
-- 28907282 -> 35525817 ns.
function TestDiff:test_kineto_per_launch_tests()
  local rep = perflab.run("diff", { FIX .. "normal_1.pt.trace.json.gz", FIX .. "abnormal_1.pt.trace.json.gz" })
  local d = rep.tables.diff
  local r = d:row(1)
  lu.assertEquals(r.kernel, "ampere_sgemm_128x64_nn")
  lu.assertEquals(r.calls_a, 30)
  lu.assertEquals(r.calls_b, 30)
  lu.assertEquals(r.total_ns_a, 12422110)
  lu.assertEquals(r.total_ns_b, 19061220)
  lu.assertAlmostEquals(r.p_welch / 8.90534613425291e-43, 1, 1e-5)
  lu.assertAlmostEquals(r.p_mwu / 3.019859359162157e-11, 1, 1e-6)
  lu.assertAlmostEquals(r.regression_share_pct, 99.06262850771986, 1e-9)
  lu.assertEquals(r.status, "slower")
  lu.assertEquals(d:col("total_ns_a"):sum(), 28907282)
  lu.assertEquals(d:col("total_ns_b"):sum(), 35525817)
  for i = 2, d:nrows() do lu.assertEquals(d:row(i).status, "same") end
  lu.assertNil(rep.tables.config_drift)
  lu.assertEquals(rep:sorted_findings()[1].subject, "ampere_sgemm_128x64_nn")
end

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local function trace(kernels)
  local ev = {}
  for i, k in ipairs(kernels) do
    ev[#ev + 1] = string.format(
      '{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":%s,"args":{"device":0,"stream":7,"correlation":%d,"registers per thread":%d,"shared memory":%d,"grid":[%d,1,1],"block":[%d,1,1]}}',
      k[1], 1000 + 100 * i, k[2], i, k[3], k[4], k[5], k[6])
  end
  return '{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA A100-SXM4-80GB","computeMajor":8,"computeMinor":0,"numSms":108,"maxThreadsPerBlock":1024,"maxThreadsPerMultiprocessor":2048,"regsPerBlock":65536,"regsPerMultiprocessor":65536,"warpSize":32,"sharedMemPerBlock":49152,"sharedMemPerMultiprocessor":167936,"sharedMemPerBlockOptin":166912}],"traceEvents":['
    .. table.concat(ev, ",") .. "]}"
end

-- Config drift: gemm goes from 256 threads x 32 registers to 256 x 128.
-- A100 (CC 8.0), by hand: 32 regs -> 1024 regs per warp, 65536 / (8 warps x
-- 1024) = 8 blocks = 64 warps = 100 %; 128 regs -> 4096 per warp, 16 warps
-- fit = 2 blocks of 8 warps = 25 %.  relu: same config; scan only in B.
function TestDiff:test_config_drift_and_added_removed()
  local a, b = os.tmpname() .. ".json", os.tmpname() .. ".json"
  write(a, trace({ { "gemm", "10.0", 32, 0, 108, 256 }, { "gemm", "11.0", 32, 0, 108, 256 },
      { "gemm", "10.5", 32, 0, 108, 256 },
    { "relu", "2.0", 16, 0, 64, 128 }, { "old_kernel", "3.0", 16, 0, 64, 128 } }))
  write(b, trace({ { "gemm", "20.0", 128, 0, 108, 256 }, { "gemm", "21.0", 128, 0, 108, 256 },
      { "gemm", "20.5", 128, 0, 108, 256 },
    { "relu", "2.0", 16, 0, 64, 128 }, { "scan", "1.5", 16, 0, 64, 128 } }))
  local rep = perflab.run("diff", { a, b })
  os.remove(a); os.remove(b)
  local d = rep.tables.diff
  lu.assertEquals(d:nrows(), 4)
  local g = row_of(d, "gemm")
  lu.assertEquals(g.total_ns_a, 31500)
  lu.assertEquals(g.total_ns_b, 61500)
  -- 30000 of 31500 positive ns (scan adds 1500)
  lu.assertAlmostEquals(g.regression_share_pct, 100 * 30000 / 31500, 1e-9)
  lu.assertEquals(row_of(d, "scan").status, "added")
  lu.assertEquals(row_of(d, "old_kernel").status, "removed")
  lu.assertAlmostEquals(row_of(d, "old_kernel").regression_share_pct, -100 * 3000 / 31500, 1e-9)
  lu.assertEquals(row_of(d, "relu").status, "same")
  local cd = rep.tables.config_drift
  lu.assertEquals(cd:nrows(), 1)
  local r = cd:row(1)
  lu.assertEquals(r.kernel, "gemm")
  lu.assertEquals(r.config_a, "grid (108,1,1) block (256,1,1) regs 32 smem 0")
  lu.assertEquals(r.config_b, "grid (108,1,1) block (256,1,1) regs 128 smem 0")
  lu.assertEquals(r.occupancy_a_pct, 100)
  lu.assertEquals(r.occupancy_b_pct, 25)
  -- Welch by hand: A 10000, 11000, 10500 (var 250000), B 20000, 21000, 20500:
  -- t = 10000 / sqrt(2 * 250000 / 3) = 24.49489742783178, df = 4,
  -- p = 2 * t_sf(24.4949, 4) (scipy ttest_ind: 1.648308898718124e-05)
  lu.assertAlmostEquals(g.p_welch / 1.648308898718124e-05, 1, 1e-6)
  -- Mann-Whitney, exact (3 vs 3, no ties): 2 / C(6,3) = 0.1
  lu.assertAlmostEquals(g.p_mwu, 0.1, 1e-12)
  lu.assertEquals(g.status, "slower")
end

function TestDiff:test_truncated_names_match_by_prefix()
  local map = compare.match_names({ "void gemm_kernel<float, 128>...", "relu_kernel", "softmax..." },
    { "void gemm_kernel<float, 128>(float*, int)", "relu_kernel", "softmax_fwd", "softmax_bwd", "other" })
  lu.assertEquals(map["void gemm_kernel<float, 128>..."], "void gemm_kernel<float, 128>(float*, int)")
  lu.assertEquals(map["relu_kernel"], "relu_kernel")
  lu.assertNil(map["softmax..."]) -- two candidates: not matched
end

function TestDiff:test_one_run_is_an_error()
  local ok, err = pcall(perflab.run, "diff", { FIX .. "normal_1.pt.trace.json.gz" })
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err.message or err), "diff needs two profiles")
end

-- Summary-only inputs (nsys stats cuda_gpu_kern_sum: mean, sd, count per
-- kernel; hand-made fixtures tests/fixtures/nsys/kern_sum_{a,b}.csv): Welch's
-- t from the summaries.  Expected p from /usr/bin/python3 with SciPy 1.10:
--   stats.ttest_ind_from_stats(3306000.0, 198000.5, 32, 3105800.0, 216832.4, 32, equal_var=False).pvalue
--     = 0.00027752651356166666
--   stats.ttest_ind_from_stats(192068.0, 270000.0, 200, 195479.1, 266509.9, 193, equal_var=False).pvalue
--     = 0.8997703990223406
function TestDiff:test_summaries_welch_from_stats()
  local rep = perflab.run("diff", { "tests/fixtures/nsys/kern_sum_a.csv", "tests/fixtures/nsys/kern_sum_b.csv" })
  local d = rep.tables.diff
  local fa, dq = row_of(d, "flash_attention_prefill_f16"), row_of(d, "dequant_q4_k_f16")
  lu.assertAlmostEquals(fa.p_welch, 0.00027752651356166666, 1e-12)
  lu.assertAlmostEquals(dq.p_welch, 0.8997703990223406, 1e-12)
  lu.assertEquals(fa.status, "slower")        -- p < alpha 0.01, mean 3105800 -> 3306000
  lu.assertEquals(dq.status, "same")
  lu.assertEquals(fa.test, "Welch from mean, sd, n")
  lu.assertNil(fa.p_mwu)
end

-- tb-profiler summaries have mean, min and max but no standard deviation:
-- the test column says so instead of leaving p_welch silently empty
function TestDiff:test_summaries_without_sd_say_why()
  local rep = perflab.run("diff", { "examples/tb-profiler.json" })
  local r = row_of(rep.tables.diff, "MLUUnionXKernelBatchNormBackward")
  lu.assertNil(r.p_welch)
  lu.assertEquals(r.test, "no test: A has no per-launch durations or standard deviation; "
    .. "B has no per-launch durations or standard deviation")
  local added = row_of(rep.tables.diff, "d2d_tnc")
  lu.assertNil(added.test)                    -- added: nothing to test
end

-- compare.welch on degenerate samples, as scipy.stats.ttest_ind(a, b,
-- equal_var=False) returns them (SciPy 1.10): both variances 0 and means
-- 1 vs 2 -> t = -inf, p = 0; equal constant samples -> nan, nan; fewer than
-- two values a side -> nan, nan
function TestDiff:test_welch_degenerate_cases()
  local t, p = compare.welch({ 1, 1, 1 }, { 2, 2 })
  lu.assertEquals(t, -math.huge); lu.assertEquals(p, 0)
  t, p = compare.welch({ 3, 3 }, { 1, 1, 1 })
  lu.assertEquals(t, math.huge); lu.assertEquals(p, 0)
  t, p = compare.welch({ 1, 1, 1 }, { 1, 1 })
  lu.assertTrue(t ~= t and p ~= p)
  t, p = compare.welch({ 1 }, { 1, 2 })
  lu.assertTrue(t ~= t and p ~= p)
end

-- compare.common_ratio: kernels grouped by the exact fraction calls_b/calls_a
-- (3 per iteration over 34 -> 30 iterations is 102 -> 90 = 15/17)
function TestDiff:test_common_ratio()
  local c = compare.common_ratio({ { a = 68, b = 60, w = 70 }, { a = 102, b = 90, w = 10 },
      { a = 871, b = 788, w = 20 } })
  lu.assertEquals({ c.num, c.den, c.kernels }, { 15, 17, 2 })
  lu.assertAlmostEquals(c.share, 0.8, 1e-12)
  -- the group with the most weight is 1/1 (a setup kernel): same length, nil
  lu.assertNil(compare.common_ratio({ { a = 1, b = 1, w = 90 }, { a = 68, b = 60, w = 5 }, { a = 34, b = 30, w = 5 } }))
  -- a single kernel is no common ratio, nor a group under half the weight
  lu.assertNil(compare.common_ratio({ { a = 68, b = 60, w = 100 } }))
  lu.assertNil(compare.common_ratio({ { a = 68, b = 60, w = 20 }, { a = 34, b = 30, w = 20 },
      { a = 10, b = 11, w = 30 }, { a = 7, b = 9, w = 30 } }))
end

os.exit(lu.LuaUnit.run())

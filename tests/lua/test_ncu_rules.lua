-- tests/lua/test_ncu_rules.lua -- the ncu-rules recipe against Nsight
-- Compute's own rule output in the same files (table `rules`): every rule
-- ncu fired that perflab implements must fire on the same launch, unless the
-- metrics it needs are not in the exported file (then the report says so).
-- Speedup estimates are compared with ncu's printed Est. (Local) Speedup.
-- Reads $PERFLAB_DATA at test time; a missing file or folder fails, naming it.
local lu = require "luaunit"
local perflab = require "perflab"
local sys = require "perflab.sys"
local R = require "perflab.ncu_rules"
local tdata = require "tdata"

local shared = os.getenv("PERFLAB_DATA") or "tests/data"

local function files()
  local out = {}
  for _, d in ipairs({ "ncu_text", "ncu_csv" }) do
    local dir = tdata.dir_need(shared .. "/corpus/" .. d)
    for _, n in ipairs(sys.listdir(dir)) do out[#out + 1] = dir .. "/" .. n end
  end
  out[#out + 1] = tdata.need(shared .. "/seeds/003_ebb91119a615c85c.txt")
  table.sort(out)
  return out
end

TestNcuRules = {}

-- The totals of the report's public ncu_compare table (ncu's own firings
-- per rule id): implemented = ncu's firings of rules perflab implements,
-- matched = perflab's firings on the same launches, metrics_absent = those
-- perflab could not evaluate; missed = the rest (ncu fired, perflab did
-- not, with its metrics present).  nil when the file has no ncu rule output.
local function comparison(rep)
  local t = rep.tables.ncu_compare
  if not t then return nil end
  local c = { implemented = 0, matched = 0, metrics_absent = 0 }
  for _, r in t:rows() do
    if r.implemented == "yes" then
      c.implemented = c.implemented + r.ncu_launches
      c.matched = c.matched + r.perflab_same_launch
      c.metrics_absent = c.metrics_absent + r.metrics_absent
    end
  end
  c.missed = c.implemented - c.matched - c.metrics_absent
  return c
end

function TestNcuRules:test_fires_what_ncu_fired()
  local by = {}
  local total, matched, absent = 0, 0, 0
  for _, f in ipairs(files()) do
    local rep = perflab.run("ncu-rules", { f })
    local c = comparison(rep)
    if c then
      lu.assertEquals(c.missed, 0, f)
      total, matched, absent = total + c.implemented, matched + c.matched, absent + c.metrics_absent
      by[f:match("[^/]+$")] = { c.implemented, c.matched, c.metrics_absent }
    end
  end
  -- per file: ncu's firings of implemented rules, perflab's on the same
  -- launch, not evaluable (counted by reading each file's rule blocks)
  -- 21 x (SOL, issue, occupancy, small grid | FMA, stall)
  lu.assertEquals(by["003_ebb91119a615c85c.txt"], { 126, 84, 42 })
  -- 52: launch 0's OPT paragraph holds the theoretical- and the achieved-
  -- occupancy sentences (ncu 2022 layout), read as both rules since issue 22
  lu.assertEquals(by["gpumode_lecture001_ncu_logs_cc80.txt"], { 52, 52, 0 })
  lu.assertEquals(by["unknownrepo_v100_ncu2021_wide_matrix_sums.txt"], { 6, 6, 0 })
  lu.assertEquals(by["cuda_gemm_a800_tc_03_wmma_pipe.details.txt"], { 7, 4, 3 })
  lu.assertEquals(by["superbench_b200_cc100_cublaslt_ncu_details.csv"], { 5, 4, 1 })
  lu.assertEquals(matched + absent, total)
  lu.assertEquals(matched, 167)   -- 84 + 52 + 6 + 4 + 4 + 4 + 5 + 3 + 1 + 4 (the ten files with rules)
end

-- ncu's Est. Speedup / Est. Local Speedup vs perflab's, per (launch, rule)
-- where both exist: equal to 0.01 points, which also checks the parent
-- capping (a800: occupancy 62.5 % capped by issue slots to 11.52 %).
-- Known difference: gpumode launch 0's theoretical occupancy (ncu 2023.x
-- printed 21.63 %, perflab 25 % = 100 - 75): that ncu version weighted the
-- estimate by a factor it does not print.
function TestNcuRules:test_speedups_match_ncu()
  local compared, equal, diffs = 0, 0, {}
  for _, f in ipairs(files()) do
    local p = perflab.load(f)
    local rep = perflab.run("ncu-rules", { p })
    local mine = {}
    for _, r in rep.tables.ncu_rules:rows() do mine[r.kernel_id .. "|" .. r.rule] = r.speedup_pct end
    local seen = {}
    local rules = p.tables.rules or perflab.table.from_rows({}, { "kernel_id", "message" })
    for _, r in rules:rows() do
      local id = R.classify(r.message)
      local want = r.est_speedup_pct or r.est_local_speedup_pct
      local key = tostring(r.kernel_id) .. "|" .. tostring(id)
      if id and R.rule(id) and want and mine[key] and not seen[key] then
        seen[key] = true
        compared = compared + 1
        if math.abs(mine[key] - want) <= 0.011 then equal = equal + 1
        else diffs[#diffs + 1] = string.format("%s %s: ncu %g, perflab %g", f:match("[^/]+$"), key, want, mine[key]) end
      end
    end
  end
  print(string.format("\nspeedups: %d of %d equal to ncu's", equal, compared))
  for _, d in ipairs(diffs) do print("  " .. d) end
  lu.assertEquals(diffs, { "gpumode_lecture001_ncu_logs_cc80.txt 0|ncu.theoretical_occupancy: ncu 21.63, perflab 25" })
  lu.assertEquals(compared, 47)
end

function TestNcuRules:test_seed003_findings_and_capping()
  local path = shared .. "/seeds/003_ebb91119a615c85c.txt"
  tdata.need(path)
  local rep = perflab.run("ncu-rules", { path })
  local f = {}
  for _, x in ipairs(rep.findings) do f[x.rule] = x end
  -- one finding per rule for the 21 identical launches
  lu.assertEquals(#rep.findings, 4)
  lu.assertStrContains(f["ncu.small_grid"].message, "8 blocks on 28 SMs")
  lu.assertEquals(f["ncu.small_grid"].evidence.launches, 21)
  lu.assertEquals(f["ncu.sol_bottleneck"].evidence.class, "small_grid")
  -- theoretical 8.33 % -> 91.67 % uncapped, capped by the issue-slot estimate
  local occ = f["ncu.theoretical_occupancy"]
  lu.assertEquals(occ.evidence.capped_by, "ncu.issue_slots")
  lu.assertAlmostEquals(occ.evidence.uncapped_speedup_pct, 91.67, 0.01)
  lu.assertTrue(occ.speedup_pct < 91)
  lu.assertAlmostEquals(occ.speedup_pct, f["ncu.issue_slots"].speedup_pct, 1e-9)
  local notes = table.concat(rep.notes, "\n")
  lu.assertStrContains(notes, "ncu.fma_fusion")      -- not evaluable: no instruction-mix metrics
  lu.assertStrContains(notes, "ncu.warp_stall")
end

function TestNcuRules:test_raw_metrics_rules()
  -- rules whose inputs only the raw page / --metrics output carries, on a
  -- profile built in memory with those metric names (values hand-picked):
  -- bank conflicts 300/1000 wavefronts = 30 % (>= 10), L1 50 % -> 15 %;
  -- FMA: 400 fadd + 400 fmul, 200 ffma -> ratio 0.8/2 = 0.4 > 0.1,
  --   speedup 0.5 x 800/1000 x 60 (SM %) = 24;
  -- sectors 1000 vs ideal 250 -> 75 % excess, x active/elapsed 0.5 = 37.5;
  -- SM cycles max 100, min 60, avg 80 -> max_dist 20 %, x 80/100 = 16;
  -- divergence: 12 active threads -> (1 - 12/32) x 60 = 37.5.
  local T = perflab.table
  local k = T.from_rows({ { id = 0, name = "k", short_name = "k", compute_throughput_pct = 60,
      memory_throughput_pct = 30, l1tex_throughput_pct = 50 } },
    { "id", "name", "short_name", "compute_throughput_pct", "memory_throughput_pct", "l1tex_throughput_pct" })
  local mrows = {}
  local function m(name, v) mrows[#mrows + 1] = { kernel_id = 0, metric = name, value = v } end
  m("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 300)
  m("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1000)
  m("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 400)
  m("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 400)
  m("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 200)
  m("memory_l2_theoretical_sectors_global", 1000)
  m("memory_l2_theoretical_sectors_global_ideal", 250)
  m("lts__cycles_active.avg", 50); m("lts__cycles_elapsed.avg", 100)
  m("sm__cycles_active.max", 100); m("sm__cycles_active.min", 60); m("sm__cycles_active.avg", 80)
  m("sm__cycles_elapsed.avg", 100)
  m("Avg. Active Threads Per Warp", 12)
  local p = setmetatable({ format = "ncu-csv", source = "mem", meta = {},
    tables = { kernels = k, metrics = T.from_rows(mrows, { "kernel_id", "metric", "value" }) },
    table_order = { "kernels", "metrics" }, diagnostics = {} }, require("perflab.profile").Profile)
  local rep = perflab.run("ncu-rules", { p })
  local f = {}
  for _, x in ipairs(rep.findings) do f[x.rule] = x end
  lu.assertAlmostEquals(f["ncu.bank_conflicts"].speedup_pct, 15, 1e-9)
  lu.assertAlmostEquals(f["ncu.fma_fusion"].speedup_pct, 24, 1e-9)
  lu.assertAlmostEquals(f["ncu.uncoalesced_global"].speedup_pct, 37.5, 1e-9)
  lu.assertAlmostEquals(f["ncu.workload_imbalance"].speedup_pct, 16, 1e-9)
  lu.assertAlmostEquals(f["ncu.thread_divergence"].speedup_pct, 37.5, 1e-9)
  lu.assertEquals(f["ncu.sol_bottleneck"].evidence.class, "compute")   -- 60 vs 30: >= 10 apart
  -- messages and evidence written from the same values: 800 non-fused
  -- (400 + 400), 30 % of 1000 wavefronts, 1000 - 250 = 750 excess sectors,
  -- min 60 / avg 80 = 25 % below and max 100 / avg 80 = 25 % above; the FP
  -- pipe share falls back to SM % (60) and no request count is exported
  lu.assertEquals(f["ncu.fma_fusion"].message,
      "k: FP32: 200 fused and 800 non-fused instructions; converting ADD/MUL pairs to FMA could cut them by up to 40 % (--fmad=true, --use_fast_math) (launch 0)")
  lu.assertEquals(f["ncu.bank_conflicts"].message,
      "k: shared loads: 30 % of 1000 wavefronts are bank conflicts (launch 0)")
  lu.assertEquals(f["ncu.uncoalesced_global"].message,
      "k: uncoalesced global accesses: 750 excessive L2 sectors (75 % of 1000) (launch 0)")
  lu.assertEquals(f["ncu.workload_imbalance"].message,
      "k: SMs: active cycles range from 25 % below to 25 % above the average (launch 0)")
  lu.assertEquals(f["ncu.thread_divergence"].message,
      "k: on average only 12.0 of 32 threads per warp are active: divergent branches or predication waste lanes (launch 0)")
  local e = f["ncu.fma_fusion"].evidence
  lu.assertEquals({ e.non_fused, e.fused, e.pipe_pct, e.precision, e.launches }, { 800, 200, 60, "FP32", 1 })
  lu.assertAlmostEquals(e.ratio, 0.4, 1e-12)
  e = f["ncu.bank_conflicts"].evidence
  lu.assertEquals({ e.conflicts, e.wavefronts, e.l1_pct, e.op, e.requests }, { 300, 1000, 50, "load", nil })
  lu.assertEquals(f["ncu.uncoalesced_global"].evidence.excess, 750)
  lu.assertEquals(rep.tables.ncu_rules:filter(rep.tables.ncu_rules:col("rule"):eq("ncu.bank_conflicts")):get(1,
      "evidence"),
    "conflicts=300 l1_pct=50 op=load threshold_pct=10 wavefronts=1000")
end

-- the loader's raw_text option: metrics.raw holds a number's printed text
-- only when asked; text values always; the rules see the same findings
function TestNcuRules:test_raw_text_option()
  local f = "examples/ncu-details.txt"
  local d, a = perflab.load(f), perflab.load(f, { raw_text = true })
  local md, ma = d.tables.metrics, a.tables.metrics
  lu.assertEquals(md:nrows(), ma:nrows())
  lu.assertEquals(md:col("raw")[1], nil)
  lu.assertEquals(ma:col("raw")[1], "7.05")                  -- DRAM Frequency 7.05 cycle/nsecond
  lu.assertEquals(md:col("value")[1], 7.05e9)
  local texts = 0
  for _, r in md:rows() do
    if r.value == nil then texts = texts + 1; lu.assertNotNil(r.raw) else lu.assertNil(r.raw) end
  end
  lu.assertEquals(texts, 21)                                       -- Function Cache Configuration, per launch
  local function ids(rep) local t = {} for _, r in rep.tables.ncu_rules:rows() do t[#t + 1] = r.kernel_id .. "|"
      .. r.rule end return t end
  lu.assertEquals(ids(perflab.run("ncu-rules", { d })), ids(perflab.run("ncu-rules", { a })))
end

os.exit(lu.LuaUnit.run())

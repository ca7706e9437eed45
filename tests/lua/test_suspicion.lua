-- test_suspicion.lua -- the suspicion recipe: (1) seed 002's scores recomputed
-- from their own columns; (2) planted-cause Kineto traces
-- (tools/gen_planted_traces.py, seed 7, committed under
-- tests/fixtures/suspicion/); (3) a CSV pair with hand-computed β and μ.
-- Run: build/perflab tests/lua/test_suspicion.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local compare = require "perflab.compare"

local SHARED = os.getenv("PERFLAB_DATA") or "tests/data"
local SEED2 = SHARED .. "/seeds/002_713e97ee5e652e9e.txt"
local FIX = "tests/fixtures/suspicion/"
local PLANTED = "ampere_sgemm_128x64_nn"

local function load_role(path, role)
  local p = perflab.load(path)
  p.role = role
  return p
end

local function run(base, target, opts)
  local inputs = {}
  for _, f in ipairs(base) do inputs[#inputs + 1] = load_role(f, "baseline") end
  for _, f in ipairs(target) do inputs[#inputs + 1] = load_role(f, "target") end
  return perflab.run("suspicion", inputs, opts)
end

local function finding(rep, rule)
  local out = {}
  for _, f in ipairs(rep:sorted_findings()) do if f.rule == rule then out[#out + 1] = f end end
  return out
end

-- ---- (1) seed 002 ------------------------------------------------------------

TestSeed002 = {}

-- Half a unit in the last place of a number printed with 6 significant
-- digits (how the report prints scores: 1561.72, 470.955, 90.8133).
local function half_ulp6(x)
  if x == 0 then return 0.5e-6 end
  return 0.5 * 10 ^ (math.floor(math.log(math.abs(x), 10)) - 5)
end

function TestSeed002:test_every_score_recomputes_from_its_columns()
  require("tdata").need(SEED2)
  local p = perflab.load(SEED2)
  lu.assertEquals(p.format, "comparison-report")
  local d = p:table("details")
  lu.assertEquals(d:nrows(), 264)
  local checked, prev = 0, math.huge
  for i, r in d:rows() do
    -- Δβ, Z(β), Z(log μ) are printed with at most 2 decimals: each is within
    -- 0.005 of the value the tool multiplied, so the true score lies in
    -- [lo, hi]; the printed score (6 significant digits) must fall there.
    local db, zb, zl = math.abs(r.delta_beta_pct), math.abs(r.z_beta), math.abs(r.z_log_mu)
    local mid = compare.suspicion_score(r.delta_beta_pct, r.z_beta, r.z_log_mu)
    local lo = math.max(0, db - 0.005) * math.max(0, zb + zl - 0.01)
    local hi = (db + 0.005) * (zb + zl + 0.01)
    local s, h = r.suspicion_score, half_ulp6(r.suspicion_score)
    lu.assertTrue(s + h >= lo - 1e-9 and s - h <= hi + 1e-9,
      string.format("row %d (line %d): printed %g, recomputed %g in [%g, %g]", i, r.line, s, mid, lo, hi))
    -- Δβ = β_abnormal - β_normal to the rounding of the three printed numbers
    lu.assertTrue(math.abs(r.delta_beta_pct - (r.beta_abnormal_pct - r.beta_normal_pct)) <= 0.015 + 1e-9,
      "delta beta of row " .. i)
    -- sorted by score, descending
    lu.assertTrue(s <= prev + 1e-9, "sorted at row " .. i)
    prev = s
    checked = checked + 1
  end
  lu.assertEquals(checked, 264)
  -- the top row by hand: 5.91 * (246.52 + 17.8) = 1562.13; the tool multiplied
  -- unrounded values, printed 1561.72 (within 0.005 * 264.32 + 5.91 * 0.01 = 1.38)
  local top = d:row(1)
  lu.assertEquals(top.suspicion_score, 1561.72)
  lu.assertAlmostEquals(compare.suspicion_score(top.delta_beta_pct, top.z_beta, top.z_log_mu), 1562.1312, 1e-9)
end

-- ---- (2) planted-cause traces -----------------------------------------------

TestPlanted = {}

local N = { FIX .. "normal_1.pt.trace.json.gz", FIX .. "normal_2.pt.trace.json.gz" }
local A = { FIX .. "abnormal_1.pt.trace.json.gz", FIX .. "abnormal_2.pt.trace.json.gz" }

function TestPlanted:test_planted_kernel_ranks_first()
  local rep = run(N, A)
  local d = rep.tables.details
  local top = d:row(1)
  lu.assertEquals(top["function"], PLANTED)
  lu.assertEquals(top.metric, "gpu_sm_frequency")
  lu.assertEquals(top.device, "GPU 0")
  -- independent values: /usr/bin/python3 over the trace JSON (gzip + json):
  -- per ProfilerStep, the planted kernel's durations whose cudaLaunchKernel
  -- (same correlation) starts in the step, / step dur * 100; then
  -- scipy.stats.ttest_ind(abnormal, normal, equal_var=False) and
  -- mannwhitneyu(abnormal, normal): β 41.53307402615759 -> 51.93056444704862,
  -- t 73.56279266186495, p 5.516743223696794e-42, U p 6.795615128173358e-08.
  -- μ: per step, sum over its executions of the integral of the step-function
  -- counter / sum of their durations: 1410.1802398956609 -> 1006.4407902010544,
  -- Welch t -234.1774655797552, on logs -228.00300707790072.
  lu.assertAlmostEquals(top.beta_normal_pct, 41.53307402615759, 1e-9)
  lu.assertAlmostEquals(top.beta_abnormal_pct, 51.93056444704862, 1e-9)
  lu.assertAlmostEquals(top.z_beta, 73.56279266186495, 1e-6)
  lu.assertTrue(top.p_beta < 0.01 and top.u_p_beta < 0.01)
  lu.assertAlmostEquals(top.p_beta / 5.516743223696794e-42, 1, 1e-5)
  lu.assertAlmostEquals(top.u_p_beta / 6.795615128173358e-08, 1, 1e-6)
  lu.assertAlmostEquals(top.mu_normal, 1410.1802398956609, 1e-6)
  lu.assertAlmostEquals(top.mu_abnormal, 1006.4407902010544, 1e-6)
  lu.assertAlmostEquals(top.z_mu, -234.1774655797552, 1e-5)
  lu.assertAlmostEquals(top.z_log_mu, -228.00300707790072, 1e-5)
  lu.assertAlmostEquals(top.suspicion_score,
      (51.93056444704862 - 41.53307402615759) * (73.56279266186495 + 228.00300707790072), 1e-4)
  -- the key findings start with it, and name the counter that moved with it
  local kf = rep.tables.key_findings
  lu.assertEquals(kf:row(1)["function"], PLANTED)
  lu.assertEquals(kf:row(1).direction, "increased")
  lu.assertStrContains(kf:row(1).correlated, "gpu_sm_frequency: decreased from 1,410.18 to 1,006.44")
  local f = finding(rep, "suspicion.beta_shift")
  lu.assertEquals(f[1].subject, PLANTED)
  lu.assertEquals(#finding(rep, "suspicion.none"), 0)
  -- summary: 2 x 10 cycles a side
  local s = rep.tables.summary
  lu.assertEquals(s:row(1).normal, 20)
  lu.assertEquals(s:row(1).abnormal, 20)
  lu.assertEquals(rep.tables.cycle_distribution:nrows(), 20)
  -- every row: score = |Δβ| (|Zβ| + |Z log μ|)
  for i, r in d:rows() do
    lu.assertAlmostEquals(r.suspicion_score, math.abs(r.delta_beta_pct) * (math.abs(r.z_beta) + math.abs(r.z_log_mu)),
        1e-9)
    lu.assertTrue(i == 1 or r.suspicion_score <= d:row(i - 1).suspicion_score)
  end
  -- 7 kernels x 2 counters
  lu.assertEquals(d:nrows(), 14)
end

function TestPlanted:test_two_normal_runs_show_nothing()
  local rep = run({ N[1] }, { N[2] })
  local d = rep.tables.details
  for _, r in d:rows() do
    lu.assertFalse(r.p_beta < 0.01 and r.u_p_beta < 0.01, r["function"])
  end
  -- same inputs through python: planted kernel t 1.0246316880699202,
  -- p 0.321766785657689, U p 0.3846730627355087
  local row
  for _, r in d:rows() do if r["function"] == PLANTED then row = r break end end
  lu.assertAlmostEquals(row.p_beta, 0.321766785657689, 1e-9)
  lu.assertAlmostEquals(row.u_p_beta, 0.3846730627355087, 1e-9)
  lu.assertEquals(#finding(rep, "suspicion.beta_shift"), 0)
  local none = finding(rep, "suspicion.none")
  lu.assertEquals(#none, 1)
  lu.assertStrContains(none[1].message, "No function's share of cycle time changed significantly (7 functions")
  lu.assertEquals(rep.tables.key_findings:nrows(), 0)
end

function TestPlanted:test_json_has_the_sections()
  local rep = run(N, A, { rows = 3 })
  local j = rep:render("json")
  for _, t in ipairs({ '"summary"', '"cycle_distribution"', '"key_findings"', '"details"', '"legend"',
      '"role": "baseline"' }) do
    lu.assertStrContains(j, t)
  end
  lu.assertEquals(rep.tables.details:nrows(), 3)
  local md = rep:render("markdown")
  lu.assertStrContains(md, "### details")
  lu.assertNotNil(md:find("|%s`ampere_sgemm_128x64_nn`%s+|%sgpu_sm_frequency%s+|%sGPU 0%s+|%s+3135%.53 |"))
end

function TestPlanted:test_roles_required()
  local ok, err = pcall(perflab.run, "suspicion", { perflab.load(N[1]), perflab.load(N[2]), perflab.load(A[1]) })
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err.message or err), "--baseline FILE... --target FILE...")
end

function TestPlanted:test_cycle_annotation_by_name()
  -- ProfilerStep#N events named explicitly give the same cycles
  local rep = run({ N[1] }, { A[1] }, { cycle = "ProfilerStep#3" })
  lu.assertEquals(rep.tables.summary:row(1).normal, 1)
  local ok, err = pcall(run, { N[1] }, { A[1] }, { cycle = "NoSuchRange" })
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err.message or err), "no complete events named 'NoSuchRange'")
end

-- ---- (3) CSV pair ----------------------------------------------------------------

TestCsv = {}

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

function TestCsv:test_function_and_metric_samples()
  local dir = os.tmpname()
  os.remove(dir)
  local fn_b, m_b, fn_t, m_t = dir .. "_fb.csv", dir .. "_mb.csv", dir .. "_ft.csv", dir .. "_mt.csv"
  -- baseline: 3 cycles of 100 ns; f runs 10, 12, 11 ns -> β 10, 12, 11 (mean 11);
  -- g runs 50 each cycle.  Metric util: 50 from t=0, 70 from t=5 (cycle 1),
  -- so f's execution [0, 10) in cycle 1 has μ = (5*50 + 5*70)/10 = 60;
  -- cycles 2 and 3 start at 100, 200 with util 40 from 100 and 80 from 200.
  write(fn_b, "run,cycle,function,device,duration_ns,start_ns,cycle_ns\n" ..
    "r1,1,f,GPU 0,10,0,100\nr1,1,g,GPU 0,50,20,100\n" ..
    "r1,2,f,GPU 0,12,100,100\nr1,2,g,GPU 0,50,120,100\n" ..
    "r1,3,f,GPU 0,11,200,100\nr1,3,g,GPU 0,50,220,100\n")
  write(m_b, "run,timestamp_ns,device,metric,value\n" ..
    "r1,0,GPU 0,util,50\nr1,5,GPU 0,util,70\nr1,100,GPU 0,util,40\nr1,200,GPU 0,util,80\n")
  -- target: 2 cycles of 100 ns; f 30, 32 (β mean 31); g 50; util 90 throughout
  write(fn_t, "run,cycle,function,device,duration_ns,start_ns,cycle_ns\n" ..
    "r9,1,f,GPU 0,30,0,100\nr9,1,g,GPU 0,50,40,100\nr9,2,f,GPU 0,32,100,100\nr9,2,g,GPU 0,50,140,100\n" ..
    "r9,2,h,GPU 0,5,195,100\n")
  write(m_t, "run,timestamp_ns,device,metric,value\nr9,0,GPU 0,util,90\n")
  local rep = run({ fn_b, m_b }, { fn_t, m_t })
  for _, p in ipairs({ fn_b, m_b, fn_t, m_t }) do os.remove(p) end
  local d = rep.tables.details
  local rows = {}
  for _, r in d:rows() do rows[r["function"]] = r end
  local f = rows.f
  lu.assertEquals(f.metric, "util")
  lu.assertAlmostEquals(f.beta_normal_pct, 11, 1e-12)
  lu.assertAlmostEquals(f.beta_abnormal_pct, 31, 1e-12)
  -- μ baseline per cycle: 60, 40 ([100,112) all 40), 80 -> mean 60
  lu.assertAlmostEquals(f.mu_normal, 60, 1e-12)
  lu.assertAlmostEquals(f.mu_abnormal, 90, 1e-12)
  -- Welch by hand: target 30, 32 (var 2), baseline 10, 12, 11 (var 1):
  -- t = 20 / sqrt(2/2 + 1/3) = 17.320508075688775
  lu.assertAlmostEquals(f.z_beta, 20 / math.sqrt(1 + 1 / 3), 1e-9)
  -- h ran in the target only
  local one = rep.tables.one_sided
  lu.assertEquals(one:nrows(), 1)
  lu.assertEquals(one:row(1)["function"], "h")
  lu.assertEquals(one:row(1).present, "target only")
  lu.assertAlmostEquals(rows.h.beta_abnormal_pct, 2.5, 1e-12)
  lu.assertEquals(rows.h.beta_normal_pct, 0)
  lu.assertNil(rows.h.mu_normal)
  -- summary: 3 vs 2 cycles, 100 ns each
  lu.assertEquals(rep.tables.summary:row(1).normal, 3)
  lu.assertEquals(rep.tables.summary:row(1).abnormal, 2)
  lu.assertEquals(rep.tables.summary:row(2).change_pct, 0)
end

os.exit(lu.LuaUnit.run())

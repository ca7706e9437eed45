-- tests/lua/test_ncu_rules_engine.lua -- perflab.ncu_rules.run, the
-- evaluator behind recipes/ncu-rules.lua, on a rule the test defines and a
-- profile of four launches built by hand: the expected findings, rows,
-- capping and notes are worked out below from the numbers in the tables.
-- Run: build/perflab tests/lua/test_ncu_rules_engine.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local R = require "perflab.ncu_rules"
local T = perflab.table

-- a rule of the test's own, appended to the rule data for the test's run
local RULE = { id = "test.low_compute", ncu = "TestLowCompute", title = "compute throughput below 50 %",
  parent = "ncu.issue_slots", inputs = { "compute_pct" }, formula = "speedup = 100 - compute %" }

-- launches 0 and 1 of k_a (compute 30 % and 20 %), 2 of k_b (80 %), 3 of
-- k_b without the metric; the raw-page name is one of compute_pct's aliases
local function profile(with_metric)
  local kernels = T.from_rows({ { id = 0, short_name = "k_a" }, { id = 1, short_name = "k_a" },
    { id = 2, short_name = "k_b" }, { id = 3, short_name = "k_b" } }, { "id", "short_name" })
  local rows = {}
  if with_metric then
    for id, v in pairs({ [0] = 30.0, [1] = 20.0, [2] = 80.0 }) do
      rows[#rows + 1] = { kernel_id = id, metric = "sm__throughput.avg.pct_of_peak_sustained_elapsed", value = v }
    end
  end
  local metrics = T.from_rows(rows, { "kernel_id", "metric", "value" })
  return { source = "tiny", tables = { kernels = kernels, metrics = metrics } }
end

-- the rule block: fires below 50 %, estimate 100 - compute, capped at cap
local function rules(cap)
  return function(S, th)
    lu.assertEquals(th, R.thresholds)
    local c = S.get("compute_pct")
    S.absent("test.low_compute", ~c:present())
    S.emit("test.low_compute", 1, c:lt(50), { sev = "opt", sp = 100 - c,
      cap = cap and S.k:const(cap, "number") or nil,
      ev = { compute_pct = c, threshold = 50 },
      msg = function(v) return string.format("compute %.0f %% is below 50 %%", v.compute_pct) end })
  end
end

TestNcuRulesEngine = {}

function TestNcuRulesEngine:setUp() R.rules[#R.rules + 1] = RULE end
function TestNcuRulesEngine:tearDown()
  for i = #R.rules, 1, -1 do if R.rules[i] == RULE then table.remove(R.rules, i) end end
end

function TestNcuRulesEngine:test_a_rule_gives_its_finding()
  local rep = perflab.report { recipe = "test" }
  local found = R.run(rep, profile(true), {}, rules(nil), { launch_ids = true })
  -- one group: k_a's two launches; its representative is launch 1, the
  -- larger estimate (100 - 20 = 80 > 100 - 30 = 70)
  lu.assertEquals(#rep.findings, 1)
  local f = rep.findings[1]
  lu.assertEquals(f.rule, "test.low_compute")
  lu.assertEquals(f.subject, "k_a")
  lu.assertEquals(f.severity, "opt")
  lu.assertEquals(f.message, "k_a: compute 20 % is below 50 % (2 launches: 0, 1)")
  lu.assertAlmostEquals(f.speedup_pct, 80, 1e-9)
  lu.assertEquals(f.evidence, { launches = 2, formula = "speedup = 100 - compute %", compute_pct = 20.0,
    threshold = 50 })
  lu.assertEquals(#found, 1)
  lu.assertIs(found[1].finding, f)
  lu.assertEquals(found[1].kernel, "k_a")
  lu.assertEquals(found[1].launch_ids, { 0, 1 })
  -- the ncu_rules table: a row per launch that fired, in launch order
  local t = rep.tables.ncu_rules
  lu.assertEquals(t:nrows(), 2)
  lu.assertEquals(t:col("kernel_id"):to_lua(), { 0, 1 })
  lu.assertEquals(t:col("rule"):to_lua(), { "test.low_compute", "test.low_compute" })
  lu.assertEquals(t:col("ncu_rule"):to_lua(), { "TestLowCompute", "TestLowCompute" })
  lu.assertEquals(t:col("speedup_pct"):to_lua(), { 70.0, 80.0 })
  lu.assertEquals(t:col("evidence"):to_lua(), { "compute_pct=30 threshold=50", "compute_pct=20 threshold=50" })
  lu.assertEquals(t:col("capped_by"):count(), 0)
  lu.assertEquals(rep.table_info.ncu_rules.title, "2 rule firings on 4 launches (tiny)")
  -- launch 3 has no compute %: not evaluated there, but not on every launch
  lu.assertEquals(rep.notes, {})
  lu.assertNil(rep.tables.ncu_compare)      -- the file carries no ncu rule output
end

function TestNcuRulesEngine:test_the_parent_caps_the_estimate()
  local rep = perflab.report { recipe = "test" }
  R.run(rep, profile(true), {}, rules(75), { suffix = "_2" })
  -- launch 1's 80 % is capped at the parent's 75 %; launch 0's 70 % is not
  local t = rep.tables.ncu_rules_2
  lu.assertEquals(t:col("speedup_pct"):to_lua(), { 70.0, 75.0 })
  lu.assertEquals(t:col("capped_by"):to_lua(), { nil, "ncu.issue_slots" })
  local f = rep.findings[1]
  lu.assertAlmostEquals(f.speedup_pct, 75, 1e-9)
  lu.assertEquals(f.evidence.capped_by, "ncu.issue_slots")
  lu.assertEquals(f.evidence.uncapped_speedup_pct, 80)
end

function TestNcuRulesEngine:test_absent_metrics_give_a_note()
  local rep = perflab.report { recipe = "test" }
  local found = R.run(rep, profile(false), {}, rules(nil))
  lu.assertEquals(found, {})
  lu.assertEquals(#rep.findings, 0)
  lu.assertEquals(rep.tables.ncu_rules:nrows(), 0)
  lu.assertEquals(rep.notes, { "not evaluated (metrics absent in this file): test.low_compute" })
end

function TestNcuRulesEngine:test_an_unknown_metric_is_an_error()
  local rep = perflab.report { recipe = "test" }
  lu.assertErrorMsgContains("metric 'no_such_metric' is read but was not pivoted", R.run, rep, profile(true), {},
    function(S) S.get("no_such_metric") end)
end

os.exit(lu.LuaUnit.run())

-- test_grouped_findings.lua -- occupancy and launch on a real trace where
-- their rules fire on many launch configurations (hta_v100_ns_resolution:
-- a V100 Kineto trace, tests/data/corpus): the folded tables
-- findings.RULE hold one row per configuration with its launches and
-- time_ns, and those add up to what the launch tables say, summed here
-- independently (filter and sum over the per-launch tables).
-- Run: build/perflab tests/lua/test_grouped_findings.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local tdata = require "tdata"

local TRACE = tdata.path("corpus/kineto_trace/hta_v100_ns_resolution_rank-0.pt.trace.json.gz")

TestGroupedFindings = {}

function TestGroupedFindings:test_occupancy_limiter_table()
  local rep = perflab.run("occupancy", { TRACE })
  local _, tables = rep:shown_findings()
  local ft
  for _, t in ipairs(tables) do if t.name == "findings.occupancy.limiter" then ft = t.table end end
  lu.assertNotNil(ft)
  -- the launches below the threshold (80 %), from the launch table
  local occ = rep.tables.occupancy
  local low = occ:filter(occ:col("theoretical_occupancy_pct"):lt(rep.options.threshold))
  lu.assertTrue(ft:nrows() > 10)
  lu.assertEquals(ft:col("launches"):sum(), low:nrows())
  lu.assertEquals(ft:col("time_ns"):sum(), low:col("duration_ns"):sum())
  lu.assertEquals(#rep.findings, rep:finding_count())   -- report.findings makes every one
  -- one row per configuration: no two rows with the same message
  lu.assertEquals(#ft:unique("message"), ft:nrows())
end

function TestGroupedFindings:test_launch_small_grid_table()
  local rep = perflab.run("launch", { TRACE })
  local _, tables = rep:shown_findings()
  local ft
  for _, t in ipairs(tables) do if t.name == "findings.launch.small_grid" then ft = t.table end end
  lu.assertNotNil(ft)
  local l = rep.tables.launch
  local hit = l:filter(l:col("findings"):match("launch%.small_grid"))
  lu.assertEquals(ft:col("launches"):sum(), hit:nrows())
  lu.assertEquals(ft:col("time_ns"):sum(), hit:col("duration_ns"):sum())
  -- the grid that leaves the most SMs idle first: 1 block on 80 SMs
  lu.assertStrContains(ft:get(1, "message"), "1 block on 80 SMs: the grid leaves 79 SMs idle (900 launches")
  lu.assertEquals(ft:get(1, "launches"), 900)
end

os.exit(lu.LuaUnit.run())

-- tests/lua/test_stragglers.lua -- the stragglers recipe.
--
-- 1. HTA's own figure (corpus MANIFEST, "Other HTA outputs on the sampled
--    pair"): get_potential_stragglers(profiler_steps=[551],
--    num_candidates=1) = [1]: rank 1 flagged once, rank 0 never, over the
--    one iteration HTA keeps (551; the last step, 552, is dropped).
-- 2. The planted straggler (tools/gen_rank_traces.py --straggler 2
--    --delay-us 1500 --seed 7, committed in tests/fixtures/multirank/
--    straggler): rank 2 is flagged in every iteration and gets the
--    "straggler" verdict (Mann-Whitney p < 0.01, Cliff's delta 1); ranks 0,
--    1, 3 are never flagged and are "normal".  Second computation: straight
--    from each rank's kernels, the last ncclDevKernel per iteration starts
--    latest on rank 2, and the first one starts 1500 +- 50 us (the planted
--    delay, +- the jitter of the compute before it) after the median of the
--    other ranks'.
-- 3. The same job without a straggler (--seed 8, no_straggler/): no
--    finding, every verdict "normal", no rank flagged in every iteration.
-- 4. ncclDevKernel_* counts as communication (HTA's "ncclKernel" prefix
--    test would find none in the planted job).
local lu = require "luaunit"
local perflab = require "perflab"
local recipes = require "perflab.recipes"

local DATA = os.getenv("PERFLAB_DATA") or "tests/data"
local MR = DATA .. "/corpus/kineto_multirank/"

local function set(dir)
  local fs = {}
  for r = 0, 3 do fs[#fs + 1] = string.format("tests/fixtures/multirank/%s/rank-%d.json.gz", dir, r) end
  return fs
end

local function rows_of(t)
  local out = {}
  for i, r in t:rows() do out[i] = r end
  return out
end

TestStragglers = {}

function TestStragglers:test_hta_sampled_pair()
  local ps = perflab.load_many({ MR .. "hta_trace_filter_sampled_2rank/sampled_rank-0.json.gz",
    MR .. "hta_trace_filter_sampled_2rank/sampled_rank-1.json.gz" })
  local rep = recipes.run("stragglers", ps, { candidates = 1 })
  local rr = rows_of(rep.tables.ranks)
  lu.assertEquals({ rr[1].rank, rr[1].flagged, rr[1].iterations }, { 0, 0, 1 })
  lu.assertEquals({ rr[2].rank, rr[2].flagged, rr[2].iterations }, { 1, 1, 1 })
  local its = rows_of(rep.tables.iterations)
  lu.assertEquals(its[1].iteration, 551)
  -- one step compared: no verdict, the section collapses to what that step
  -- shows.  Second computation, from the kernels: the last
  -- ncclKernel_SendRecv on stream 84 in step 551 starts on rank 1 this long
  -- after rank 0's
  lu.assertEquals(#rep.findings, 0)
  local at = {}
  for r, p in ipairs(ps) do
    local s = rows_of(p:table("steps"))
    local span
    for _, x in ipairs(s) do if x.step == 551 then span = x end end
    for _, k in ipairs(rows_of(p:table("kernels"))) do
      if k.stream == 84 and k.name:find("^ncclKernel_SendRecv") and k.start_ns >= span.start_ns
          and k.start_ns < span.start_ns + span.duration_ns then
        at[r] = math.max(at[r] or 0, k.start_ns)
      end
    end
  end
  lu.assertTrue(at[2] > at[1])
  lu.assertStrContains(rep.collapsed,
      "1 step compared over 2 ranks: a straggler verdict needs at least 2 steps per rank")
  lu.assertStrContains(rep.collapsed,
      "In step 551, rank 1 started ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(…) (stream 84) last, "
    .. perflab.units.ns(at[2] - at[1]) .. " after rank 0")
  lu.assertStrContains(rep:render_text(), "Not applicable: 1 step compared")
  -- one rank alone: nothing to compare it with, and its steps' total
  local one = recipes.run("stragglers", { ps[1] }, {})
  lu.assertStrContains(one.collapsed, "one rank (")
  lu.assertStrContains(one.collapsed, "its 1 step(s) take")
end

function TestStragglers:test_planted()
  local ps = perflab.load_many(set("straggler"), { jobs = 2 })
  local rep = recipes.run("stragglers", ps, {})
  local rr = rows_of(rep.tables.ranks)
  for _, r in ipairs(rr) do
    if r.rank == 2 then
      lu.assertEquals(r.flagged, r.iterations)
      lu.assertEquals(r.iterations, 11)     -- 12 steps, the last dropped
      lu.assertEquals(r.verdict, "straggler")
      lu.assertTrue(r.mw_p < 0.01)
      lu.assertEquals(r.cliffs_delta, 1)
      lu.assertEquals(r.comm_kernels, 22)
    else
      lu.assertEquals(r.flagged, 0, "rank " .. r.rank)
      lu.assertEquals(r.verdict, "normal", "rank " .. r.rank)
    end
  end
  lu.assertEquals(#rep.findings, 1)
  lu.assertEquals(rep.findings[1].subject, "rank 2")
  -- second computation, from the kernels themselves
  local last, first = {}, {}   -- rank -> step -> start of the last / first nccl kernel
  for r, p in ipairs(ps) do
    last[r], first[r] = {}, {}
    local st = rows_of(p:table("steps"))
    for _, k in ipairs(rows_of(p:table("kernels"))) do
      if k.name:find("^ncclDevKernel") then
        for _, s in ipairs(st) do
          if k.start_ns >= s.start_ns and k.start_ns < s.start_ns + s.duration_ns then
            last[r][s.step] = math.max(last[r][s.step] or 0, k.start_ns)
            first[r][s.step] = math.min(first[r][s.step] or math.maxinteger, k.start_ns)
          end
        end
      end
    end
  end
  for step = 0, 10 do
    for _, r in ipairs({ 1, 2, 4 }) do lu.assertTrue(last[3][step] > last[r][step]) end
    local others = { first[1][step], first[2][step], first[4][step] }
    table.sort(others)
    local late = first[3][step] - others[2]
    lu.assertTrue(math.abs(late - 1500000) < 50000, string.format("step %d: rank 2 late by %d ns", step, late))
  end
end

function TestStragglers:test_no_straggler()
  local rep = recipes.run("stragglers", perflab.load_many(set("no_straggler")), {})
  lu.assertEquals(#rep.findings, 0)
  for _, r in ipairs(rows_of(rep.tables.ranks)) do
    lu.assertEquals(r.verdict, "normal", "rank " .. r.rank)
    lu.assertTrue(r.flagged < r.iterations, "rank " .. r.rank)
  end
end

function TestStragglers:test_hta_prefix_would_miss_them()
  local p = perflab.load(set("straggler")[1])
  local n, hta = 0, 0
  for _, k in ipairs(rows_of(p:table("kernels"))) do
    if require("perflab.comm").is_kernel(k.name) then n = n + 1 end
    if k.name:sub(1, 10) == "ncclKernel" then hta = hta + 1 end
  end
  lu.assertEquals(n, 24)
  lu.assertEquals(hta, 0)
end

-- Longer, not later: three hand-built ranks with the same collectives, rank
-- 1's ProfilerStep spans 990 us instead of 900 (8 steps, the last dropped):
-- its step excess over the per-step median is +90 us in all 7 steps, the
-- others' 0, so "slow steps" (p < 0.01, Cliff's delta 1); no rank is late.
function TestStragglers:test_slow_steps()
  local cjson = require "cjson"
  local ps = {}
  for r = 0, 2 do
    local ev = {}
    for i = 0, 7 do
      local t0 = i * 1000
      ev[#ev + 1] = { ph = "X", cat = "user_annotation", name = "ProfilerStep#" .. i, pid = 1, tid = 1, ts = t0,
        dur = r == 1 and 990 or 900, args = {} }
      ev[#ev + 1] = { ph = "X", cat = "kernel", name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL", pid = 0, tid = 20,
        ts = t0 + 100, dur = 50, args = { device = 0, stream = 20 } }
    end
    ps[#ps + 1] = perflab.parse("r" .. r .. ".json", cjson.encode({ distributedInfo = { rank = r, world_size = 3 },
        traceEvents = ev }))
  end
  local rep = recipes.run("stragglers", ps, {})
  local rr = rows_of(rep.tables.ranks)
  lu.assertEquals({ rr[1].verdict, rr[2].verdict, rr[3].verdict }, { "normal", "slow steps", "normal" })
  lu.assertTrue(rr[2].step_p < 0.01)
  lu.assertEquals(rr[2].step_delta, 1)
  lu.assertEquals(rr[2].iterations, 7)
  lu.assertEquals(#rep.findings, 1)
  lu.assertEquals(rep.findings[1].rule, "stragglers.slow_steps")
end

os.exit(lu.LuaUnit.run())

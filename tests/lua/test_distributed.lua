-- tests/lua/test_distributed.lua -- the distributed recipe.
--
-- 1. The TensorBoard plugin's own expected Distributed view for its three
--    simulated worker pairs (tests/data/reference/tbplugin-distributed-
--    expected.json, copied from pytorch/kineto tb_plugin/test): overlap bars
--    [computation - overlap, overlap, communication - overlap, other],
--    wait bars [data transfer, synchronising], and the op table rows
--    (calls, sizes, latencies, transfer; averages rounded to 1 us); and its
--    per-step role costs through step-breakdown.
-- 2. HTA's temporal breakdown and comm/comp overlap (MANIFEST.md of the
--    corpus, "HTA reference figures") on the sampled 2-rank pair and on each
--    rank of the trace_diff pair, to the microsecond.
-- 3. Hand-built random 3-rank jobs: every per-step figure and the transfer /
--    synchronisation split recomputed on a 1-us grid (a second method: no
--    interval sets, just ticks).
-- 4. Bad input: ranks of different jobs (world size; collective count), a
--    missing rank (a note), two files of one rank.
local lu = require "luaunit"
local perflab = require "perflab"
local cjson = require "cjson"
local recipes = require "perflab.recipes"

local DATA = os.getenv("PERFLAB_DATA") or "tests/data"
local MR = DATA .. "/corpus/kineto_multirank/"

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function rows_of(t)
  local out = {}
  for i, r in t:rows() do out[i] = r end
  return out
end

local function run(files)
  return recipes.run("distributed", perflab.load_many(files, { jobs = 2 }), {})
end

local function us(ns) return ns / 1000 end

-- Python's round (half to even) of a value in us, as the plugin rounds averages
local function pyround(x)
  local f = math.floor(x)
  local d = x - f
  if d > 0.5 then return f + 1 elseif d < 0.5 then return f end
  return (f % 2 == 0) and f or f + 1
end

-- ---- 1. the plugin's expected view ---------------------------------------------

TestPluginOracle = {}

local function check_pair(set)
  local want = cjson.decode(read(DATA .. "/reference/tbplugin-distributed-expected.json"))[set]
  local base = MR .. "tbplugin_distributed_test_inline/" .. set .. "/"
  local rep = run({ base .. "worker0.json", base .. "worker1.json" })
  local steps = rows_of(rep.tables.steps)
  local ops = rows_of(rep.tables.comm_ops)
  for w = 0, 1 do
    local exp = want["worker" .. w]
    local s = steps[w + 1]
    lu.assertEquals(s.rank, w)
    lu.assertEquals(s.step, 0)
    local got = { us(s.computation_ns - s.overlap_ns), us(s.overlap_ns), us(s.communication_ns - s.overlap_ns),
        us(s.other_ns) }
    lu.assertEquals(got, exp.steps_to_overlap, set .. " worker" .. w .. " overlap bars")
    lu.assertEquals({ us(s.transfer_ns), us(s.sync_ns) }, exp.steps_to_wait, set .. " worker" .. w .. " wait bars")
    local mine = {}
    for _, o in ipairs(ops) do
      if o.rank == w then
        mine[#mine + 1] = { o.name, o.calls, o.total_bytes, pyround(o.avg_bytes), us(o.total_latency_ns),
          pyround(us(o.avg_latency_ns)), us(o.transfer_ns), pyround(us(o.avg_transfer_ns)) }
      end
    end
    lu.assertEquals(mine, exp.comm_ops_rows, set .. " worker" .. w .. " op table")
    local n = 0
    for _, c in ipairs(rows_of(rep.tables.collectives)) do if c.rank == w then n = n + 1 end end
    lu.assertEquals(n, exp.comm_node_list_len)
  end
end

-- The same expected file's steps_costs: the plugin's overview roles per step
-- [Kernel, Memcpy, Memset, Communication, Runtime, DataLoader, CpuOp, Other,
-- Total], which step-breakdown computes (its Communication category uses
-- perflab.comm).
function TestPluginOracle:test_step_costs()
  local want = cjson.decode(read(DATA .. "/reference/tbplugin-distributed-expected.json"))
  local n = 0
  for _, set in ipairs({ "nccl", "gloo_gpu", "gloo_cpu" }) do
    for w = 0, 1 do
      local exp = want[set]["worker" .. w]
      local p = perflab.load(MR .. "tbplugin_distributed_test_inline/" .. set .. "/worker" .. w .. ".json")
      local r = rows_of(recipes.run("step-breakdown", { p }, {}).tables.steps)[1]
      local got = { us(r.kernel_ns), us(r.memcpy_ns), us(r.memset_ns), us(r.communication_ns), us(r.runtime_ns),
        us(r.dataloader_ns), us(r.cpu_exec_ns), us(r.other_ns), us(r.total_ns) }
      if exp.steps_costs then
        lu.assertEquals(got, exp.steps_costs, set .. " worker" .. w)
        n = n + 1
      else
        lu.assertEquals(got[4], exp.steps_costs_index3_communication, set .. " worker" .. w)
      end
    end
  end
  lu.assertEquals(n, 5)
end

function TestPluginOracle:test_nccl() check_pair("nccl") end
function TestPluginOracle:test_gloo_gpu() check_pair("gloo_gpu") end
function TestPluginOracle:test_gloo_cpu() check_pair("gloo_cpu") end

-- ---- 2. HTA's figures -------------------------------------------------------------

-- kernel_time, idle, compute, non_compute, comm union, comm ∩ comp (us), ratio (%)
local HTA = {
  { file = "hta_trace_filter_sampled_2rank/sampled_rank-0.json.gz", 600058, 321378, 106252, 172428, 195327, 23068,
      11.81 },
  { file = "hta_trace_filter_sampled_2rank/sampled_rank-1.json.gz", 600674, 328671, 135548, 136455, 168027, 33691,
      20.05 },
  { file = "hta_trace_diff/control/control.json.gz", 383404, 62119, 234760, 86525, 132510, 62313, 47.03 },
  { file = "hta_trace_diff/test/test.json.gz", 628371, 46910, 429216, 152245, 190234, 130876, 68.80 },
}

TestHTA = {}

local function check_hta(r, w)
  lu.assertEquals({ us(r.hta_span_ns), us(r.hta_idle_ns), us(r.hta_compute_ns), us(r.hta_non_compute_ns),
    us(r.hta_comm_ns), us(r.hta_overlap_ns) }, { w[1], w[2], w[3], w[4], w[5], w[6] }, w.file)
  lu.assertAlmostEquals(r.hta_overlap_pct, w[7], 0.005)
end

function TestHTA:test_sampled_pair()
  local rep = run({ MR .. HTA[2].file, MR .. HTA[1].file })
  local rr = rows_of(rep.tables.ranks)
  lu.assertEquals(rr[1].rank, 0)
  check_hta(rr[1], HTA[1])
  check_hta(rr[2], HTA[2])
  -- 2 of 128 ranks: a note, not an error
  local noted = false
  for _, n in ipairs(rep.notes) do if n:find("2 of 128 ranks present", 1, true) then noted = true end end
  lu.assertTrue(noted)
  -- per rank 10 SendRecv kernels (no host op launched them) and 4
  -- nccl:all_reduce user annotations (no kernel kept by HTA's sampling):
  -- 14 collectives each, matched by order
  local per = {}
  for _, c in ipairs(rows_of(rep.tables.collectives)) do
    local k = c.rank .. (c.name:find("^ncclKernel") and "k" or c.name)
    per[k] = (per[k] or 0) + 1
  end
  lu.assertEquals(per, { ["0k"] = 10, ["1k"] = 10, ["0nccl:all_reduce"] = 4, ["1nccl:all_reduce"] = 4 })
end

function TestHTA:test_trace_diff_ranks()
  for k = 3, 4 do
    local rep = run({ MR .. HTA[k].file })
    check_hta(rows_of(rep.tables.ranks)[1], HTA[k])
  end
end

-- ---- 3. hand-built jobs, checked on a 1-us grid ---------------------------------------

-- A job of 3 ranks, two host steps [0, 500) and [500, 1000) us (no launches,
-- so the steps keep their host bounds).  Each rank: 12 compute kernels and 5
-- collectives (an nccl:all_reduce host op on its own thread with one
-- ncclKernel tied by external id), random integer times.
local function gen_job(seed)
  local rng = seed
  local function rand(n) rng = (rng * 1103515245 + 12345) % 2147483648; return rng % n end
  local job = {}
  for r = 1, 3 do
    local ev = {
      { ph = "X", cat = "cpu_op", name = "ProfilerStep#1", pid = 1, tid = 1, ts = 0, dur = 500, args = {} },
      { ph = "X", cat = "cpu_op", name = "ProfilerStep#2", pid = 1, tid = 1, ts = 500, dur = 500, args = {} },
    }
    local comp, colls = {}, {}
    for _ = 1, 12 do
      local s = rand(950); local d = 1 + rand(60)
      comp[#comp + 1] = { s, s + d }
      ev[#ev + 1] = { ph = "X", cat = "kernel", name = "gemm", pid = 0, tid = 7, ts = s, dur = d,
        args = { device = 0, stream = 7 } }
    end
    for c = 1, 5 do
      local os_ = (c - 1) * 190 + rand(40); local od = 1 + rand(10)
      local ks = os_ + rand(20); local kd = 5 + rand(80)
      colls[c] = { op = { os_, os_ + od }, k = { ks, ks + kd } }
      ev[#ev + 1] = { ph = "X", cat = "cpu_op", name = "nccl:all_reduce", pid = 1, tid = 2, ts = os_, dur = od,
        args = { ["External id"] = 100 + c, ["Input Dims"] = { { 256 } }, ["Input type"] = { "float" } } }
      ev[#ev + 1] = { ph = "X", cat = "kernel", name = "ncclKernel_AllReduce_RING_LL_Sum_float", pid = 0, tid = 20,
        ts = ks, dur = kd, args = { device = 0, stream = 20, ["External id"] = 100 + c } }
    end
    job[r] = { ev = ev, comp = comp, colls = colls }
  end
  return job
end

local function grid_len(pred, lo, hi)
  local n = 0
  for t = lo, hi - 1 do if pred(t) then n = n + 1 end end
  return n
end

local function covers(list, t)
  for _, iv in ipairs(list) do if t >= iv[1] and t < iv[2] then return true end end
  return false
end

local function sorted_ranges(c)
  local a, b = c.op, c.k
  if a[1] < b[1] or (a[1] == b[1] and a[2] >= b[2]) then return { a, b } end
  return { b, a }
end

TestHandBuilt = {}

function TestHandBuilt:test_against_a_grid()
  for seed = 1, 4 do
    local job = gen_job(seed)
    local profiles = {}
    for r, j in ipairs(job) do
      profiles[r] = perflab.parse(string.format("rank%d.json", r - 1),
        cjson.encode({ distributedInfo = { rank = r - 1, world_size = 3 }, traceEvents = j.ev }))
    end
    local rep = recipes.run("distributed", profiles, {})
    local steps = rows_of(rep.tables.steps)
    lu.assertEquals(#steps, 6)
    -- min duration of each range over ranks
    local minr = {}
    for c = 1, 5 do
      minr[c] = {}
      for jx = 1, 2 do
        local m = math.huge
        for r = 1, 3 do local g = sorted_ranges(job[r].colls[c])[jx]; m = math.min(m, g[2] - g[1]) end
        minr[c][jx] = m
      end
    end
    for r = 1, 3 do
      local j = job[r]
      local comm = {}
      for _, c in ipairs(j.colls) do comm[#comm + 1] = c.op; comm[#comm + 1] = c.k end
      for si, st in ipairs({ { 0, 500 }, { 500, 1000 } }) do
        local row = steps[(r - 1) * 2 + si]
        lu.assertEquals(row.rank, r - 1)
        local comp_n = grid_len(function(t) return covers(j.comp, t) end, st[1], st[2])
        local comm_n = grid_len(function(t) return covers(comm, t) end, st[1], st[2])
        local ov_n = grid_len(function(t) return covers(j.comp, t) and covers(comm, t) end, st[1], st[2])
        lu.assertEquals(row.computation_ns, comp_n * 1000)
        lu.assertEquals(row.communication_ns, comm_n * 1000)
        lu.assertEquals(row.overlap_ns, ov_n * 1000)
        lu.assertEquals(row.other_ns, (500 + ov_n - comp_n - comm_n) * 1000)
        -- transfer / sync over the collectives wholly inside the step
        local kr, tr = {}, {}
        for c, col in ipairs(j.colls) do
          -- a collective belongs to the step containing its host op
          if col.op[1] >= st[1] and col.op[2] <= st[2] then
            for jx, g in ipairs(sorted_ranges(col)) do
              kr[#kr + 1] = g
              tr[#tr + 1] = { g[2] - minr[c][jx], g[2] }
            end
          end
        end
        local t_n = grid_len(function(t) return covers(tr, t) end, -200, 1300)
        local k_n = grid_len(function(t) return covers(kr, t) end, -200, 1300)
        lu.assertEquals(row.transfer_ns, t_n * 1000, string.format("seed %d rank %d step %d transfer", seed, r - 1, si))
        lu.assertEquals(row.sync_ns, (k_n - t_n) * 1000, string.format("seed %d rank %d step %d sync", seed, r - 1, si))
      end
    end
  end
end

-- ---- 4. bad input ---------------------------------------------------------------------

TestBadInput = {}

function TestBadInput:test_different_world_sizes()
  local ok, err = pcall(run, { MR .. "hta_trace_diff/control/control.json.gz",
      MR .. "hta_trace_diff/test/test.json.gz" })
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "ranks of different jobs")
end

function TestBadInput:test_collective_count()
  local job = gen_job(9)
  -- rank 1 loses its last collective (host op and kernel)
  local ev = {}
  for _, e in ipairs(job[2].ev) do
    local ext = e.args["External id"]
    if ext ~= 105 then ev[#ev + 1] = e end
  end
  local p0 = perflab.parse("r0.json", cjson.encode({ distributedInfo = { rank = 0, world_size = 2 },
      traceEvents = job[1].ev }))
  local p1 = perflab.parse("r1.json", cjson.encode({ distributedInfo = { rank = 1, world_size = 2 },
      traceEvents = ev }))
  local ok, err = pcall(recipes.run, "distributed", { p0, p1 }, {})
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err),
      "ranks disagree on the collective count: rank 0 (r0.json) has 5 collectives, rank 1 (r1.json) has 4")
end

function TestBadInput:test_missing_rank_and_duplicates()
  local job = gen_job(3)
  local p0 = perflab.parse("r0.json", cjson.encode({ distributedInfo = { rank = 0, world_size = 3 },
      traceEvents = job[1].ev }))
  local p2 = perflab.parse("r2.json", cjson.encode({ distributedInfo = { rank = 2, world_size = 3 },
      traceEvents = job[3].ev }))
  local rep = recipes.run("distributed", { p2, p0 }, {})
  local noted = false
  for _, n in ipairs(rep.notes) do if n:find("missing rank(s) 1", 1, true) then noted = true end end
  lu.assertTrue(noted)
  lu.assertEquals(rep.inputs[1].source, "r0.json")   -- inputs in rank order
  local q = perflab.parse("r0b.json", cjson.encode({ distributedInfo = { rank = 0, world_size = 3 },
      traceEvents = job[2].ev }))
  local ok, err = pcall(recipes.run, "distributed", { p0, q }, {})
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "both are rank 0")
end

-- ---- 5. the per-input recipes on several ranks --------------------------------------

-- Given two ranks of one job, top-kernels, idle-time, launch-latency and
-- step-breakdown report per rank: a rank column whose rows, for each rank,
-- equal those of the recipe run on that rank's file alone.
TestPerRank = {}

local function strip(rows_, drop)
  local out = {}
  for i, r in ipairs(rows_) do
    local c = {}
    for k, v in pairs(r) do if not drop[k] then c[k] = v end end
    out[i] = c
  end
  return out
end

function TestPerRank:test_rank_columns()
  local F = { "tests/fixtures/multirank/straggler/rank-1.json.gz", "tests/fixtures/multirank/straggler/rank-0.json.gz" }
  local both = perflab.load_many(F)
  for _, case in ipairs({ { "top-kernels", "per_rank", "top_kernels" }, { "idle-time", "idle", "idle" },
                          { "launch-latency", "launch_delay", "launch_delay" },
                              { "launch-latency", "overlap", "overlap" },
                          { "step-breakdown", "steps", "steps" } }) do
    local rep = recipes.run(case[1], both, {})
    local t = rep.tables[case[2]]
    lu.assertNotNil(t, case[1] .. " " .. case[2])
    lu.assertTrue(t:has("rank"), case[1])
    for _, k in ipairs({ 2, 1 }) do
      local alone = rows_of(recipes.run(case[1], { both[k] }, {}).tables[case[3]])
      local mine = {}
      for _, r in ipairs(rows_of(t)) do if r.rank == both[k].rank then mine[#mine + 1] = r end end
      lu.assertEquals(#mine, #alone, case[1])
      -- the columns the per-rank table has (top-kernels' per_rank keeps five)
      local drop = { run = true }
      local keep = {}
      for _, c in ipairs(t:columns()) do keep[c] = true end
      for _, r in ipairs(alone) do for c in pairs(r) do if not keep[c] then drop[c] = true end end end
      lu.assertEquals(strip(mine, { rank = true, run = true, input = true }), strip(alone, drop),
        case[1] .. " rank " .. both[k].rank)
    end
  end
end

os.exit(lu.LuaUnit.run())

-- The memory recipe and the memory_events table against three reference
-- implementations (tests/data/reference/memory/README.md): the TensorBoard
-- profiler plugin's Memory View (its own test input and its output on a
-- real H100 trace), and HTA's MemoryAnalysis on PyTorch's raw memory
-- timeline.  Every expected value below comes from those tools' tests or
-- runs, not from perflab.
local lu = require "luaunit"
local perflab = require "perflab"
local recipes = require "perflab.recipes"
local cjson = require "cjson"

local D = (os.getenv("PERFLAB_DATA") or "tests/data") .. "/reference/memory/"
local TB = D .. "tbplugin_test_memory_view_input.json"
local H100 = D .. "falconsai_h100.json.gz"
local MI300 = D .. "falconsai_mi300.json.gz"
local HTA = D .. "hta_memory_timeline.raw.gz"
local COLS = { "self_increase_bytes", "self_alloc_bytes", "self_alloc_count", "increase_bytes", "alloc_bytes",
    "alloc_count", "calls" }

local function optable(rep)
  local out = {}
  for _, r in rep.tables.operators:rows() do
    local v = {}
    for i, c in ipairs(COLS) do v[i] = r[c] end
    out[r.device .. "|" .. r.name] = v
  end
  return out
end

local function count(t, col, val)
  return t:filter(t:col(col):eq(val)):nrows()
end

TestMemory = {}

-- tb-plugin test_profiler.py test_memory_view: the expected tables, exact
function TestMemory:test_tbplugin_operator_tables()
  local rep = recipes.run("memory", { perflab.load(TB) }, {})
  local o = optable(rep)
  local gpu = {
    ["aten::to"] = { 104, 104, 2, 104, 204, 3, 4 }, ["aten::nll_loss_backward"] = { 0, 10, 1, 0, 10, 1, 1 },
    ["aten::copy_"] = { 0, 100, 1, 0, 100, 1, 1 }, ["aten::addmm"] = { 0, 30, 1, 0, 30, 1, 1 },
    ["aten::tranas_stride"] = { 0, 50, 1, 0, 50, 1, 1 }, ["aten::transpose"] = { 0, 50, 1, 0, 100, 2, 1 },
    ["aten::t"] = { 0, 100, 1, 0, 200, 3, 1 }, ["aten::liner"] = { 20, 130, 3, 20, 360, 7, 1 },
  }
  local cpu = {
    ["aten::to"] = { 4, 4, 1, 4, 4, 1, 4 }, ["aten::liner"] = { 0, 100, 1, 50, 150, 2, 1 },
    ["aten::tranas_stride"] = { 50, 50, 1, 50, 50, 1, 1 }, ["aten::transpose"] = { 0, 0, 0, 50, 50, 1, 1 },
    ["aten::t"] = { 0, 0, 0, 50, 50, 1, 1 },
  }
  local n = 0
  for name, v in pairs(gpu) do lu.assertEquals(o["GPU0|" .. name], v, name); n = n + 1 end
  for name, v in pairs(cpu) do lu.assertEquals(o["CPU|" .. name], v, name); n = n + 1 end
  lu.assertEquals(rep.tables.operators:nrows(), n)      -- nothing else (all-zero rows dropped)
  -- no Total Allocated in this input: a note, no curve
  lu.assertNil(rep.tables.curve)
  local noted = false
  for _, s in ipairs(rep.notes) do if s:find("Total Allocated", 1, true) then noted = true end end
  lu.assertTrue(noted)
end

-- the operator of each event: deepest cpu op on the thread, [start, end)
function TestMemory:test_event_operator()
  local m = perflab.load(TB):table("memory_events")
  local ops = m:col("op"):to_lua()
  lu.assertNil(ops[1])                                   -- ts 90: inside ProfilerStep#1 only
  lu.assertEquals(ops[3], "aten::to")                    -- ts 200
  lu.assertEquals(ops[15], "aten::liner")                -- ts 796: liner [700, 800)
  lu.assertEquals(ops[20], "aten::tranas_stride")        -- ts 725 within t > transpose > tranas_stride
end

-- tb-plugin TestMemoryCurve: 12 CPU and 10 GPU points (the step plot: 2n - 1)
function TestMemory:test_tbplugin_memory_curve()
  local rows = {
    { 1, 0, 0, 1, 4, 4, 0 }, { 20, 0, 0, 1, -4, 0, 0 }, { 100, 0, 0, 2, 8000, 8000, 0 }, { 200, 0, 0, 2, -8000, 0, 0 },
    { 300, 0, 0, 3, 4, 4, 0 }, { 400, 0, 0, 4, 16, 20, 0 }, { 500, 0, 0, 5, 4000, 4020, 0 },
        { 600, 0, 0, 4, -16, 4004, 0 },
    { 700, 0, 0, 7, 80, 4084, 0 }, { 800, 0, 0, 3, -4, 4080, 0 }, { 900, 0, 0, 7, -80, 4000, 0 },
        { 905, 0, 0, 4, -4000, 0, 0 },
    { 2, 1, 0, 11, 400, 400, 512 }, { 22, 1, 0, 11, -400, 0, 512 }, { 105, 1, 0, 12, 5000, 5000, 10240 },
    { 106, 1, 0, 13, 3000, 8000, 10240 }, { 205, 1, 0, 12, -5000, 3000, 10240 }, { 401, 1, 0, 14, 1024, 4024, 10240 },
    { 499, 1, 0, 15, 4, 4028, 10240 }, { 501, 1, 0, 13, -3000, 1028, 10240 }, { 502, 1, 0, 15, -4, 1024, 10240 },
    { 906, 1, 0, 14, -1024, 0, 10240 },
  }
  local ev = {}
  for _, r in ipairs(rows) do
    ev[#ev + 1] = { ph = "i", s = "t", name = "[memory]", pid = 1, tid = 1, ts = r[1], args = { ["Device Type"] = r[2],
      ["Device Id"] = r[3], Addr = r[4], Bytes = r[5], ["Total Allocated"] = r[6], ["Total Reserved"] = r[7] } }
  end
  local p = perflab.parse("curve.json", cjson.encode({ traceEvents = ev }), { format = "kineto" })
  local rep = recipes.run("memory", { p }, {})
  local c = rep.tables.curve
  lu.assertEquals(count(c, "device", "CPU"), 12)
  lu.assertEquals(count(c, "device", "GPU0"), 10)
  -- profiler start = 1: (ts - 1) in order
  local g = c:filter(c:col("device"):eq("GPU0"))
  lu.assertEquals(g:col("since_start_ns"):to_lua()[3], (105 - 1) * 1000)
  local pk = {}
  for _, r in rep.tables.peaks:rows() do pk[r.device] = r.peak_bytes end
  lu.assertEquals(pk, { CPU = 8000, GPU0 = 8000 })
  lu.assertNotNil(rep.figures["memory_GPU0.svg"])
end

-- tb-plugin run on a real H100 ViT trace (reference/memory/falconsai_h100_tbplugin_memory.json)
function TestMemory:test_h100_vit()
  local rep = recipes.run("memory", { perflab.load(H100) }, {})
  local pk = rep.tables.peaks:filter(rep.tables.peaks:col("device"):eq("GPU0")):row(1)
  lu.assertEquals(pk.peak_bytes, 231332864)
  lu.assertEquals(count(rep.tables.curve, "device", "GPU0"), 572)
  lu.assertEquals(count(rep.tables.curve, "device", "CPU"), 48)
  lu.assertEquals(count(rep.tables.allocations, "device", "GPU0"), 286)
  lu.assertEquals(count(rep.tables.allocations, "device", "CPU"), 24)
  -- every operator row of tb-plugin's output, exact
  local f = assert(io.open(D .. "falconsai_h100_tbplugin_memory.json"))
  local ref = cjson.decode(f:read("a")); f:close()
  local o, n = optable(rep), 0
  for dev, ops in pairs(ref.memory_stats) do
    for name, v in pairs(ops) do
      lu.assertEquals(o[dev .. "|" .. name], v, dev .. " " .. name); n = n + 1
    end
  end
  lu.assertEquals(n, 22)
  lu.assertEquals(o["GPU0|aten::addmm"], { 57063424, 133609472, 73, 133609472, 210155520, 146, 73 })
  -- what held it: live allocations at the peak, largest first, each with its operator
  local live = rep.tables.at_peak:filter(rep.tables.at_peak:col("device"):eq("GPU0"))
  lu.assertTrue(live:nrows() > 0)
  local b = live:col("bytes"):to_lua()
  for i = 2, #b do lu.assertTrue(b[i] <= b[i - 1]) end
end

-- a 2021 trace (no Addr, no Total Allocated): tb-plugin's per-operator
-- table all the same, nested calls of one name counted once (aten::div)
function TestMemory:test_resnet50_2021_operator_table()
  local R = (os.getenv("PERFLAB_DATA") or "tests/data")
      .. "/corpus/kineto_trace/kineto_tb_plugin_sample_resnet50_v100_worker0.1623143089861.pt.trace.json.gz"
  local rep = recipes.run("memory", { perflab.load(R) }, {})
  local f = assert(io.open(D .. "resnet50_v100_worker0_tbplugin_memory_stats.json"))
  local ref = cjson.decode(f:read("a")); f:close()
  local o, n = optable(rep), 0
  for dev, ops in pairs(ref) do
    for name, v in pairs(ops) do
      lu.assertEquals(o[dev .. "|" .. name], v, dev .. " " .. name); n = n + 1
    end
  end
  lu.assertEquals(n, 56)
  lu.assertEquals(rep.tables.operators:nrows(), 56)
  lu.assertEquals(o["GPU0|aten::div"], { 77070336, 77070336, 6, 77070336, 77070336, 6, 198 })
  lu.assertNil(rep.tables.curve)
end

-- the same model on an MI300X: Device Type 6 (HIP), which tb-plugin drops
function TestMemory:test_mi300_hip()
  local p = perflab.load(MI300)
  local m = p:table("memory_events")
  lu.assertEquals(count(m, "device_type", 6) > 0, true)
  local rep = recipes.run("memory", { p }, {})
  local pk = rep.tables.peaks:filter(rep.tables.peaks:col("device"):eq("GPU0")):row(1)
  lu.assertEquals(pk.peak_bytes, 272628736)
  lu.assertEquals(pk.reserved_bytes, 291504128)
end

-- HTA tests/test_memory_analysis.py on PyTorch's raw memory timeline
function TestMemory:test_hta_raw_timeline()
  local p = perflab.load(HTA)
  lu.assertEquals(p.format, "memory-timeline")
  local rep = recipes.run("memory", { p }, {})
  local c = rep.tables.categories
  lu.assertEquals(c:nrows(), 7721)
  local r = c:row(745)
  local v = {}
  for i, n in ipairs { "parameter", "optimizer state", "input", "temporary", "activation", "gradient",
      "autograd detail", "unknown" } do v[i] = r[n] end
  lu.assertEquals(v, { 102440608, 102228128, 19395584, 0, 2618160128, 58417152, 41811968, 25494440 })
end

-- an Nsight Systems export with --cuda-memory-usage: CUDA_GPU_MEMORY_USAGE_EVENTS
-- (values from sqlite3 over the same file: 15 cudaMalloc and 15 cudaHostAlloc
-- blocks of 4,000,000 B, at most five live at once, first at 552605270 ns;
-- memKind 1 inside cudaHostAlloc calls, 2 inside cudaMalloc calls)
function TestMemory:test_nsys_memory_usage_events()
  local F = (os.getenv("PERFLAB_DATA") or "tests/data")
      .. "/corpus/nsys_sqlite/extrap_gtx1060_nsys2022.1.1_concurrent.s1_profile1.sqlite"
  local p = perflab.load(F)
  local m = p:table("memory_events")
  lu.assertEquals(m:nrows(), 60)
  lu.assertEquals(count(m, "op", "cudaMalloc"), 15)
  lu.assertEquals(count(m, "op", "cudaHostAlloc"), 15)
  lu.assertEquals(count(m, "mem_kind", "Device"), 30)
  local rep = recipes.run("memory", { p }, {})
  local pk = rep.tables.peaks:filter(rep.tables.peaks:col("device"):eq("GPU0")):row(1)
  lu.assertEquals(pk.peak_bytes, 20000000)
  lu.assertEquals(pk.ts_ns, 552605270)
  lu.assertEquals(pk.op, "cudaMalloc")
  local a = rep.tables.allocations
  lu.assertEquals(count(a, "device", "GPU0"), 15)
  lu.assertEquals(a:col("release_ts_ns"):count(), 30)     -- every block freed
end

-- a trace without memory events: one line saying how to record them
function TestMemory:test_no_memory_events()
  local ev = { { ph = "X", cat = "cpu_op", name = "aten::mm", pid = 1, tid = 1, ts = 1, dur = 5 } }
  local p = perflab.parse("none.json", cjson.encode({ traceEvents = ev }), { format = "kineto" })
  local rep = recipes.run("memory", { p }, {})
  lu.assertEquals(#rep.notes, 1)
  lu.assertStrContains(rep.notes[1], "profile_memory=True")
end

-- growth across steps and fragmentation, on a trace made here: 4 steps of
-- 10 ms; in each, one 100 MB block is allocated and kept (never freed) and
-- a 50 MB temporary allocated and freed; reserved stays at 2 GB.  At the
-- end of step k, 100 k MB are allocated: slope 100 MB per step, exactly.
-- The peak (450 MB, the temporary of step 4) has 2 GB reserved: 78 %
-- unused, over the 30 % and 256 MiB thresholds.
local function growth_trace()
  local MB = 1000000
  local ev, alloc, addr = {}, 0, 4096
  local function mem(ts, b, a)
    alloc = alloc + b
    ev[#ev + 1] = { ph = "i", s = "t", name = "[memory]", pid = 1, tid = 1, ts = ts, args = { ["Device Type"] = 1,
      ["Device Id"] = 0, Addr = a, Bytes = b, ["Total Allocated"] = alloc, ["Total Reserved"] = 2000 * MB } }
  end
  for k = 1, 4 do
    local s = (k - 1) * 10000
    ev[#ev + 1] = { ph = "X", cat = "user_annotation", name = "ProfilerStep#" .. k, pid = 1, tid = 1, ts = s,
        dur = 10000 }
    ev[#ev + 1] = { ph = "X", cat = "cpu_op", name = "aten::empty", pid = 1, tid = 1, ts = s + 100, dur = 100 }
    ev[#ev + 1] = { ph = "X", cat = "cpu_op", name = "aten::mm", pid = 1, tid = 1, ts = s + 1000, dur = 2000 }
    addr = addr + 1; mem(s + 150, 100 * MB, addr)
    addr = addr + 1; mem(s + 1500, 50 * MB, addr); mem(s + 2500, -50 * MB, addr)
  end
  return perflab.parse("growth.json", cjson.encode({ traceEvents = ev }), { format = "kineto" })
end

function TestMemory:test_growth_and_fragmentation()
  local rep = recipes.run("memory", { growth_trace() }, {})
  local g, f
  for _, x in ipairs(rep.findings) do
    if x.rule == "memory.growth" then g = x elseif x.rule == "memory.fragmentation" then f = x end
  end
  lu.assertNotNil(g)
  lu.assertAlmostEquals(g.evidence.slope_bytes_per_step, 100000000, 1e-3)
  lu.assertEquals(g.evidence.steps, 4)
  lu.assertEquals(g.evidence.never_freed, 4)
  lu.assertNotNil(f)
  lu.assertEquals(f.evidence.allocated_bytes, 450000000)
  lu.assertEquals(f.evidence.unused_bytes, 1550000000)
  local pk = rep.tables.peaks:row(1)
  lu.assertEquals({ pk.peak_bytes, pk.op, pk.step }, { 450000000, "aten::mm", 4 })
  -- what held it: the four kept blocks and the temporary, largest first
  local held = rep.tables.at_peak:col("bytes"):to_lua()
  lu.assertEquals(held, { 100000000, 100000000, 100000000, 100000000, 50000000 })
  local ops = rep.tables.at_peak:col("op"):to_lua()
  lu.assertEquals(ops[5], "aten::mm")
  lu.assertEquals(ops[1], "aten::empty")
  -- allocated at the end of each step (the growth finding's series)
  local st = rep.tables.steps
  lu.assertEquals(st:col("end_allocated_bytes"):to_lua(), { 100000000, 200000000, 300000000, 400000000 })
end

-- no growth: everything freed in its step, no growth finding, no note
function TestMemory:test_no_growth()
  local ev, MB = {}, 1000000
  for k = 1, 4 do
    local s = (k - 1) * 10000
    ev[#ev + 1] = { ph = "X", cat = "user_annotation", name = "ProfilerStep#" .. k, pid = 1, tid = 1, ts = s,
        dur = 10000 }
    ev[#ev + 1] = { ph = "i", s = "t", name = "[memory]", pid = 1, tid = 1, ts = s + 100, args = { ["Device Type"] = 1,
      ["Device Id"] = 0, Addr = k, Bytes = 10 * MB, ["Total Allocated"] = 10 * MB, ["Total Reserved"] = 20 * MB } }
    ev[#ev + 1] = { ph = "i", s = "t", name = "[memory]", pid = 1, tid = 1, ts = s + 200, args = { ["Device Type"] = 1,
      ["Device Id"] = 0, Addr = k, Bytes = -10 * MB, ["Total Allocated"] = 0, ["Total Reserved"] = 20 * MB } }
  end
  local rep = recipes.run("memory", { perflab.parse("flat.json", cjson.encode({ traceEvents = ev }),
      { format = "kineto" }) }, {})
  for _, x in ipairs(rep.findings) do lu.assertNotEquals(x.rule, "memory.growth") end
  lu.assertEquals(#rep.notes, 0)
  lu.assertEquals(rep.tables.allocations:col("lifetime_ns"):to_lua(), { 100000, 100000, 100000, 100000 })
end

os.exit(lu.LuaUnit.run())

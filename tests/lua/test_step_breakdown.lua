-- tests/lua/test_step_breakdown.lua -- the step-breakdown recipe and the
-- interval adapter perflab.timeline.
--
-- 1. Real oracle: tests/data/corpus/torch_tb_profiler/kineto_tb_plugin_test_result_check_file.txt
--    is the TensorBoard profiler plugin's own expected output (BSD-3, from
--    pytorch/kineto tb_plugin/test); its first line is the overview of the
--    resnet50 sample trace kineto_trace/kineto_tb_plugin_sample_resnet50_v100_
--    worker0.1623143089861.pt.trace.json.gz (read from $PERFLAB_DATA,
--    the test fails when it is absent).  Per step 5-10: Kernel, Memcpy, Memset, Runtime,
--    DataLoader, CPU Exec, Other and the step total (from the tooltip) must
--    equal ours in microseconds exactly; the averages (rounded to 1 us) and
--    their percentages (2 decimals), GPU utilisation, est. SM efficiency and
--    est. achieved occupancy (2 decimals), tensor-core share, and the
--    tensor-core-eligible share of the recommendation (integer %) too.
-- 2. A hand-made trace whose every figure is worked out in the comments.
-- 3. Seed 001 (tb-profiler JSON): the stored steps come back unchanged and
--    the recomputed percentages agree with the stored ones to their rounding.
-- 4. The interval adapter against a brute-force unit-grid computation.
-- Run from the repository root:  build/perflab tests/lua/test_step_breakdown.lua -v

local lu = require "luaunit"
local perflab = require "perflab"
local cjson = require "cjson"
local IV = require "perflab.timeline"
local recipes = require "perflab.recipes"

local SHARED = os.getenv("PERFLAB_DATA") or "tests/data"
local CHECK = "tests/data/corpus/torch_tb_profiler/kineto_tb_plugin_test_result_check_file.txt"
local RESNET = SHARED
    .. "/corpus/kineto_trace/kineto_tb_plugin_sample_resnet50_v100_worker0.1623143089861.pt.trace.json.gz"
local SEED1 = SHARED .. "/seeds/001_e0954df1c8df0a17.txt"

local function rows_of(t)
  local out = {}
  for i, r in t:rows() do out[i] = r end
  return out
end

local function summary_map(rep)
  local m = {}
  for _, r in rep.tables.summary:rows() do m[r.metric .. (r.device and ("|" .. r.device) or "")] = r end
  return m
end

local function round(x, d)
  local f = 10 ^ (d or 0)
  return math.floor(x * f + 0.5) / f
end

local function has_rule(rep, rule)
  for _, f in ipairs(rep.findings) do if f.rule == rule then return f end end
  return nil
end

-- ---- 1. the plugin's own expected output -------------------------------------

TestPluginOracle = {}

function TestPluginOracle:test_resnet50_steps_to_the_microsecond()
  require("tdata").need(RESNET)
  local f = assert(io.open(CHECK, "rb"))
  local line = f:read("l")
  f:close()
  local ov = cjson.decode(line)
  -- columns: Step, then (value, tooltip) pairs for each category
  local cats = {}
  for i, c in ipairs(ov.steps.columns) do
    if c.type == "number" then cats[#cats + 1] = { name = c.name, idx = i } end
  end
  lu.assertEquals(#cats, 7)
  local key = { Kernel = "kernel_ns", Memcpy = "memcpy_ns", Memset = "memset_ns", Runtime = "runtime_ns",
                DataLoader = "dataloader_ns", ["CPU Exec"] = "cpu_exec_ns", Other = "other_ns" }
  local rep = recipes.run("step-breakdown", { perflab.load(RESNET) }, {})
  local got = rows_of(rep.tables.steps)
  lu.assertEquals(#got, #ov.steps.rows)
  lu.assertEquals(#got, 6)
  for i, row in ipairs(ov.steps.rows) do
    local g = got[i]
    lu.assertEquals(g.step, tonumber(row[1]))
    for _, c in ipairs(cats) do
      local want_us = row[c.idx]
      lu.assertEquals(g[key[c.name]], want_us * 1000, string.format("step %s %s", row[1], c.name))
    end
    local total_us = tonumber(row[3]:match("Total: (%d+)us"))
    lu.assertEquals(g.total_ns, total_us * 1000, "step " .. row[1] .. " total")
    lu.assertEquals(g.communication_ns, 0)
  end
  -- averages and shares
  local sm = summary_map(rep)
  local perf = ov.performance[1]
  lu.assertEquals(round(sm["Average Step Time"].value / 1000), perf.value)
  for _, ch in ipairs(perf.children) do
    local r = sm[ch.name]
    lu.assertEquals(round(r.value / 1000), ch.value, ch.name)
    lu.assertEquals(round(r.pct, 2), ch.extra, ch.name)
  end
  -- GPU summary: "55.51 %", ...
  local want = {}
  for _, d in ipairs(ov.gpu_metrics.data) do
    local v = d.value:match("^([%d%.]+) %%$")
    if v then want[d.title] = tonumber(v) end
  end
  lu.assertEquals(round(sm["GPU Utilization|GPU 0"].value, 2), want["GPU Utilization"])
  lu.assertEquals(round(sm["Est. SM Efficiency|GPU 0"].value, 2), want["Est. SM Efficiency"])
  lu.assertEquals(round(sm["Est. Achieved Occupancy|GPU 0"].value, 2), want["Est. Achieved Occupancy"])
  lu.assertEquals(round(sm["Kernel Time using Tensor Cores|GPU 0"].value, 1), want["Kernel Time using Tensor Cores"])
  -- recommendations: DataLoader 33.4 %, and "Kernels with 68% time are launched by Tensor Cores eligible operators"
  local dl = ov.recommendations:match("(%d+%.%d)%% of the step time is in DataLoader")
  local f1 = has_rule(rep, "step-breakdown.dataloader")
  lu.assertNotNil(f1)
  lu.assertEquals(string.format("%.1f", f1.evidence.dataloader_pct), dl)
  local tc = tonumber(ov.recommendations:match("Kernels with (%d+)%% time"))
  local f2 = has_rule(rep, "step-breakdown.tensor_cores")
  lu.assertNotNil(f2)
  lu.assertEquals(round(f2.evidence.tc_eligible_pct), tc)
  -- 55.51 % is above the 50 % threshold: no utilisation finding, as in the plugin's list
  lu.assertNil(has_rule(rep, "step-breakdown.gpu_utilization"))
end

-- ---- 2. a hand-made trace ------------------------------------------------------
--
-- Times in us.  Host thread 1:
--   ProfilerStep#1 [0,100)   ProfilerStep#2 [100,200)   ProfilerStep#3 [250,270)
--   DataLoader __next__ [0,20)           aten::mm [20,50) ext 10
--   cudaLaunchKernel [25,35) corr 1      -> kernel k1 [40,90) (0.5 blocks/SM, occ 40 %)
--   aten::copy_ [110,150) ext 11         cudaMemcpyAsync [115,120) corr 2 -> memcpy [150,170)
-- aten::relu [178,193) ext 12 cudaLaunchKernel [180,190) corr 3 -> volta_h884gemm [195,225) (2 blocks/SM, occ 60 %)
--   a stray kernel [2,5) with no runtime (corr 99; 1 block/SM, occ 10 %)
-- Device-side bounds: step 1 starts at max(0, end of the stray kernel 5) = 5
-- (the stray kernel ended before step 1's first device op at 40) and ends at
-- max(100, 90) = 100; step 2 = [100, max(200, 225)) = [100,225); step 3
-- launched nothing and is dropped.
-- Step 1 [5,100): Kernel [40,90) 50; Runtime [25,35) 10; DataLoader [5,20) 15;
--   CPU Exec [20,25)+[35,40) 10; Other [90,100) 10; total 95.
-- Step 2 [100,225): Kernel [195,225) 30; Memcpy [150,170) 20; Runtime
--   [115,120)+[180,190) 15; CPU Exec [110,115)+[120,150)+[178,180)+[190,193) 40;
--   Other [100,110)+[170,178)+[193,195) 20; total 125.
-- Averages: total 110, kernel 40, DataLoader 7.5 (6.82 % > 5 %: finding).
-- GPU 0 over [5,225) = 220: busy 80 -> 36.36 % (< 50 %: finding); SM eff
--   (0.5*50 + min(2,1)*30)/220 = 25 %; occupancy (40*50 + 60*30)/80 = 47.5 %
--   (the stray kernel lies outside); tensor cores 30/80 = 37.5 %; eligible
--   ops: k1 (aten::mm) 50 of 80 kernel-us launched by ops -> 62.5 %, but a
--   tensor-core kernel ran, so no AMP finding.
local function ev(t) return t end
local HAND = {
  ev { ph = "X", cat = "cpu_op", name = "ProfilerStep#1", pid = 1, tid = 1, ts = 0, dur = 100,
      args = { ["External id"] = 1 } },
  ev { ph = "X", cat = "cpu_op", name = "ProfilerStep#2", pid = 1, tid = 1, ts = 100, dur = 100,
      args = { ["External id"] = 2 } },
  ev { ph = "X", cat = "cpu_op", name = "ProfilerStep#3", pid = 1, tid = 1, ts = 250, dur = 20,
      args = { ["External id"] = 3 } },
  ev { ph = "X", cat = "cpu_op", name = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", pid = 1, tid = 1,
       ts = 0, dur = 20, args = { ["External id"] = 4 } },
  ev { ph = "X", cat = "cpu_op", name = "aten::mm", pid = 1, tid = 1, ts = 20, dur = 30,
      args = { ["External id"] = 10 } },
  ev { ph = "X", cat = "cuda_runtime", name = "cudaLaunchKernel", pid = 1, tid = 1, ts = 25, dur = 10,
       args = { correlation = 1, ["External id"] = 10 } },
  ev { ph = "X", cat = "kernel", name = "k1", pid = 0, tid = 7, ts = 40, dur = 50,
       args = { device = 0, stream = 7, correlation = 1, ["External id"] = 10, ["blocks per SM"] = 0.5,
                ["est. achieved occupancy %"] = 40 } },
  ev { ph = "X", cat = "cpu_op", name = "aten::copy_", pid = 1, tid = 1, ts = 110, dur = 40,
      args = { ["External id"] = 11 } },
  ev { ph = "X", cat = "cuda_runtime", name = "cudaMemcpyAsync", pid = 1, tid = 1, ts = 115, dur = 5,
       args = { correlation = 2, ["External id"] = 11 } },
  ev { ph = "X", cat = "gpu_memcpy", name = "Memcpy HtoD (Pageable -> Device)", pid = 0, tid = 7, ts = 150, dur = 20,
       args = { device = 0, stream = 7, correlation = 2, ["External id"] = 11, bytes = 1024 } },
  ev { ph = "X", cat = "cpu_op", name = "aten::relu", pid = 1, tid = 1, ts = 178, dur = 15,
      args = { ["External id"] = 12 } },
  ev { ph = "X", cat = "cuda_runtime", name = "cudaLaunchKernel", pid = 1, tid = 1, ts = 180, dur = 10,
       args = { correlation = 3, ["External id"] = 12 } },
  ev { ph = "X", cat = "kernel", name = "volta_h884gemm_64x64_nn", pid = 0, tid = 7, ts = 195, dur = 30,
       args = { device = 0, stream = 7, correlation = 3, ["External id"] = 12, ["blocks per SM"] = 2,
                ["est. achieved occupancy %"] = 60 } },
  ev { ph = "X", cat = "kernel", name = "stray", pid = 0, tid = 7, ts = 2, dur = 3,
       args = { device = 0, stream = 7, correlation = 99, ["blocks per SM"] = 1, ["est. achieved occupancy %"] = 10 } },
}

local function hand_profile()
  return perflab.parse("hand.json", cjson.encode({ traceEvents = HAND }))
end

TestHand = {}

function TestHand:test_steps()
  local rep = recipes.run("step-breakdown", { hand_profile() }, {})
  local got = rows_of(rep.tables.steps)
  lu.assertEquals(#got, 2)
  local want = {
    { step = 1, kernel_ns = 50, memcpy_ns = 0, memset_ns = 0, communication_ns = 0, runtime_ns = 10,
      dataloader_ns = 15, cpu_exec_ns = 10, other_ns = 10, total_ns = 95, start_ns = 5 },
    { step = 2, kernel_ns = 30, memcpy_ns = 20, memset_ns = 0, communication_ns = 0, runtime_ns = 15,
      dataloader_ns = 0, cpu_exec_ns = 40, other_ns = 20, total_ns = 125, start_ns = 100 },
  }
  for i, w in ipairs(want) do
    for k, v in pairs(w) do
      local scale = k == "step" and 1 or 1000
      lu.assertEquals(got[i][k], v * scale, string.format("step %d %s", i, k))
      if k ~= "step" then lu.assertEquals(math.type(got[i][k]), "integer", k) end
    end
  end
  local sm = summary_map(rep)
  lu.assertEquals(sm["Average Step Time"].value, 110000)
  lu.assertEquals(sm.Kernel.value, 40000)
  lu.assertAlmostEquals(sm.DataLoader.pct, 100 * 7.5 / 110, 1e-9)
  lu.assertAlmostEquals(sm["GPU Utilization|GPU 0"].value, 100 * 80 / 220, 1e-9)
  lu.assertAlmostEquals(sm["Est. SM Efficiency|GPU 0"].value, 25, 1e-9)
  lu.assertAlmostEquals(sm["Est. Achieved Occupancy|GPU 0"].value, 47.5, 1e-9)
  lu.assertAlmostEquals(sm["Kernel Time using Tensor Cores|GPU 0"].value, 37.5, 1e-9)
  lu.assertAlmostEquals(sm["Kernel Time of Tensor-Core-Eligible Ops"].value, 62.5, 1e-9)
  lu.assertNotNil(has_rule(rep, "step-breakdown.dataloader"))
  lu.assertNotNil(has_rule(rep, "step-breakdown.gpu_utilization"))
  lu.assertNil(has_rule(rep, "step-breakdown.tensor_cores"))
  lu.assertNil(has_rule(rep, "step-breakdown.communication"))
  local dropped = false
  for _, n in ipairs(rep.notes) do if n:find("Dropped the last step%(s%) 3") then dropped = true end end
  lu.assertTrue(dropped)
end

-- steps.text: a column without strings (all missing, typed as numbers)
-- becomes an all-missing string column; a string column is returned as is
function TestHand:test_steps_text()
  local T, S = perflab.table, require("perflab.steps")
  local t = T.from_rows({ { ts_ns = 1, cat = "kernel" }, { ts_ns = 2 } }, { "ts_ns", "ph", "cat" })
  lu.assertEquals(t:col("ph"):type(), "number")
  local ph = S.text(t, "ph")
  lu.assertEquals(ph:type(), "string")
  lu.assertEquals(ph:eq("X"):to_lua(), { false, false })
  lu.assertEquals(S.text(t, t:col("cat")):eq("kernel"):to_lua(), { true, false })
end

-- perflab.steps.bound on the same trace (the bounds worked out above):
-- step 1 host [0,100) -> [5,100) with 1 device op (k1; the stray kernel is
-- tied to no call), step 2 host [100,200) -> [100,225) with 2 (the memcpy
-- and the gemm), step 3 dropped.  Without the ProfilerStep events the host
-- span of the cpu ops [0,193) is step 0: it starts after the stray kernel
-- (5) and ends with the gemm (225), all 3 device ops tied to it.
function TestHand:test_steps_bound()
  local steps, notes = require("perflab.steps").bound(hand_profile())
  lu.assertEquals(#steps, 2)
  local want = { { name = 1, s = 5, e = 100, host_s = 0, host_e = 100, device_ops = 1 },
                 { name = 2, s = 100, e = 225, host_s = 100, host_e = 200, device_ops = 2 } }
  for i, w in ipairs(want) do
    for k, v in pairs(w) do lu.assertEquals(steps[i][k], (k == "name" or k == "device_ops") and v or v * 1000,
        string.format("step %d %s", i, k)) end
  end
  lu.assertEquals(#notes, 1)
  lu.assertStrContains(notes[1], "Dropped the last step(s) 3")
  local evs = {}
  for _, e in ipairs(HAND) do if not e.name:find("^ProfilerStep#") then evs[#evs + 1] = e end end
  steps, notes = require("perflab.steps").bound(perflab.parse("nostep.json", cjson.encode({ traceEvents = evs })))
  lu.assertEquals(#steps, 1)
  for k, v in pairs({ name = 0, s = 5000, e = 225000, host_s = 0, host_e = 193000, device_ops = 3 }) do
    lu.assertEquals(steps[1][k], v, k)
  end
  lu.assertEquals(notes, { "No ProfilerStep#N span: the whole host span is taken as one step (step 0)." })
end

-- perflab.steps.complete: the X events of the hand trace (every event has
-- a ts), in file order, each end = ts + dur (µs -> ns), the category
-- lower-cased; bound returns the same as its fourth value.  Expected from
-- HAND itself, not from the reader's tables.
function TestHand:test_steps_complete()
  local S = require "perflab.steps"
  local p = hand_profile()
  local e, lc = S.complete(p)
  local want_end, want_lc = {}, {}
  for _, x in ipairs(HAND) do
    if x.ph == "X" then
      want_end[#want_end + 1] = (x.ts + (x.dur or 0)) * 1000
      want_lc[#want_lc + 1] = x.cat:lower()
    end
  end
  lu.assertEquals(e:nrows(), #want_end)
  lu.assertEquals(e:col("end_ns"):to_lua(), want_end)
  lu.assertEquals(lc:to_lua(), want_lc)
  for _, c in ipairs({ "name", "cat", "ts_ns", "dur_ns", "correlation", "external_id", "tid" }) do
    lu.assertTrue(e:has(c), c)
  end
  local _, _, _, complete = S.bound(p)
  lu.assertEquals(complete.e:col("end_ns"):to_lua(), want_end)
  lu.assertEquals(complete.lc:to_lua(), want_lc)
end

-- Communication: a kernel launched by an nccl:all_reduce op (same external
-- id) overlapping a compute kernel on another stream: the overlap is Kernel,
-- the rest Communication.  Step [0,100): compute kernel [10,40), nccl kernel
-- [30,70), host op nccl:all_reduce [3,9) (Communication too, and above
-- Runtime).  Kernel 30; Communication [40,70) + [3,9) = 36; Runtime [1,3) 2
-- ([4,6) lies in the nccl op); CPU Exec aten::add [0,8) minus all that: [0,1)
-- 1; Other 31.  Communication 36 % > 10 %: finding.
function TestHand:test_communication()
  local evs = {
    { ph = "X", cat = "cpu_op", name = "ProfilerStep#1", pid = 1, tid = 1, ts = 0, dur = 100, args = {} },
    { ph = "X", cat = "cpu_op", name = "aten::add", pid = 1, tid = 1, ts = 0, dur = 8, args = { ["External id"] = 5 } },
    { ph = "X", cat = "cuda_runtime", name = "cudaLaunchKernel", pid = 1, tid = 1, ts = 1, dur = 2,
        args = { correlation = 1, ["External id"] = 5 } },
    { ph = "X", cat = "cpu_op", name = "nccl:all_reduce", pid = 1, tid = 2, ts = 3, dur = 6,
        args = { ["External id"] = 6 } },
    { ph = "X", cat = "cuda_runtime", name = "cudaLaunchKernel", pid = 1, tid = 2, ts = 4, dur = 2,
        args = { correlation = 2, ["External id"] = 6 } },
    { ph = "X", cat = "kernel", name = "add_kernel", pid = 0, tid = 7, ts = 10, dur = 30,
        args = { device = 0, stream = 7, correlation = 1, ["External id"] = 5 } },
    { ph = "X", cat = "kernel", name = "ncclKernel_AllReduce_RING_LL_Sum_float", pid = 0, tid = 20, ts = 30, dur = 40,
      args = { device = 0, stream = 20, correlation = 2, ["External id"] = 6 } },
  }
  local rep = recipes.run("step-breakdown", { perflab.parse("comm.json", cjson.encode({ traceEvents = evs })) }, {})
  local r = rep.tables.steps:row(1)
  lu.assertEquals(r.total_ns, 100000)
  lu.assertEquals(r.kernel_ns, 30000)
  lu.assertEquals(r.communication_ns, 36000)
  lu.assertEquals(r.runtime_ns, 2000)
  lu.assertEquals(r.cpu_exec_ns, 1000)
  lu.assertEquals(r.other_ns, 31000)
  lu.assertNotNil(has_rule(rep, "step-breakdown.communication"))
end

-- The memory trigger (tb_plugin data.py): peak 'Total Allocated' of the CUDA
-- [memory] events per device / the device's totalGlobalMem > 90 %.
-- GPU 0 (capacity 1e9 B) peaks at 600e6 + 350e6 = 950e6 = 95.0 % (fires);
-- GPU 1 at 850e6 = 85.0 % (does not); the CPU event (type 0, id -1, a
-- total of 990e6) is never compared with a GPU.
local function memory_trace(with_totals)
  local props = {}
  for id = 0, 1 do
    props[#props + 1] = { id = id, name = "Test GPU", totalGlobalMem = 1000000000, computeMajor = 8, computeMinor = 0,
      maxThreadsPerBlock = 1024, maxThreadsPerMultiprocessor = 2048, regsPerBlock = 65536,
          regsPerMultiprocessor = 65536,
      warpSize = 32, sharedMemPerBlock = 49152, sharedMemPerMultiprocessor = 167936, numSms = 108,
          sharedMemPerBlockOptin = 166912 }
  end
  local evs = {
    { ph = "X", cat = "cpu_op", name = "ProfilerStep#1", pid = 1, tid = 1, ts = 0, dur = 100, args = {} },
    { ph = "X", cat = "cpu_op", name = "aten::add", pid = 1, tid = 1, ts = 0, dur = 8, args = { ["External id"] = 5 } },
    { ph = "X", cat = "cuda_runtime", name = "cudaLaunchKernel", pid = 1, tid = 1, ts = 1, dur = 2,
        args = { correlation = 1, ["External id"] = 5 } },
    { ph = "X", cat = "kernel", name = "add_kernel", pid = 0, tid = 7, ts = 10, dur = 30,
        args = { device = 0, stream = 7, correlation = 1, ["External id"] = 5 } },
  }
  local function mem(ts, dtype, dev, bytes, total)
    local a = { ["Device Type"] = dtype, ["Device Id"] = dev, Bytes = bytes, Addr = 94000000000000 + ts }
    if with_totals then a["Total Allocated"] = total; a["Total Reserved"] = total + 2097152 end
    evs[#evs + 1] = { ph = "i", s = "t", name = "[memory]", pid = 1, tid = 1, ts = ts, args = a }
  end
  mem(2, 1, 0, 600000000, 600000000); mem(3, 1, 0, 350000000, 950000000); mem(4, 1, 0, -350000000, 600000000)
  mem(5, 1, 1, 850000000, 850000000); mem(6, 0, -1, 990000000, 990000000)
  return perflab.parse("mem.json", cjson.encode({ deviceProperties = props, traceEvents = evs }))
end

TestMemory = {}

function TestMemory:test_table()
  local m = memory_trace(true).tables.memory_events
  lu.assertEquals(m:nrows(), 5)
  local r = m:row(2)
  lu.assertEquals({ r.ts_ns, r.device_type, r.device, r.bytes, r.addr, r.total_allocated_bytes,
      r.total_reserved_bytes },
                  { 3000, 1, 0, 350000000, 94000000000003, 950000000, 952097152 })
  lu.assertEquals(m:row(5).device, -1)
  local old = memory_trace(false).tables.memory_events
  lu.assertNil(old:row(1).total_allocated_bytes)
  lu.assertEquals(old:row(3).bytes, -350000000)
end

function TestMemory:test_trigger()
  local rep = recipes.run("step-breakdown", { memory_trace(true) }, {})
  local f = has_rule(rep, "step-breakdown.memory")
  lu.assertNotNil(f)
  lu.assertEquals(f.subject, "GPU 0")
  lu.assertAlmostEquals(f.evidence.memory_pct, 95.0, 1e-12)
  lu.assertEquals(f.evidence.peak_allocated_bytes, 950000000)
  local n = 0
  for _, g in ipairs(rep.findings) do if g.rule == "step-breakdown.memory" then n = n + 1 end end
  lu.assertEquals(n, 1)                     -- GPU 1 at 85 % does not fire
  local sm = summary_map(rep)
  lu.assertEquals(sm["Peak Memory Allocated|GPU 0"].value, 950000000)
  lu.assertAlmostEquals(sm["Peak Memory Allocated|GPU 1"].pct, 85.0, 1e-12)
  lu.assertNil(sm["Peak Memory Allocated|CPU"])
  -- before PyTorch 1.10 there are no totals: no figure, no finding
  local old = recipes.run("step-breakdown", { memory_trace(false) }, {})
  lu.assertNil(has_rule(old, "step-breakdown.memory"))
  lu.assertNil(summary_map(old)["Peak Memory Allocated|GPU 0"])
end

function TestMemory:test_resnet50_memory_events()
  require("tdata").need(RESNET)
  -- counted with Python's json over the same file: 12838 [memory] events,
  -- 8220 on CUDA device 0 and 4618 on the CPU (id -1); no totals (2021)
  local m = perflab.load(RESNET).tables.memory_events
  lu.assertEquals(m:nrows(), 12838)
  local cuda, cpu = 0, 0
  for _, r in m:rows() do
    if r.device_type == 1 and r.device == 0 then cuda = cuda + 1 elseif r.device_type == 0
        and r.device == -1 then cpu = cpu + 1 end
    lu.assertNil(r.total_allocated_bytes)
  end
  lu.assertEquals({ cuda, cpu }, { 8220, 4618 })
end

-- ---- 3. seed 001 -----------------------------------------------------------------

TestSeed001 = {}

function TestSeed001:test_stored_breakdown_and_percentages()
  require("tdata").need(SEED1)
  local p = perflab.load(SEED1)
  local rep = recipes.run("step-breakdown", { p }, {})
  -- the stored step rows, unchanged (two runs -> a run column)
  local st = rows_of(rep.tables.steps)
  lu.assertEquals(#st, 2)
  lu.assertEquals(st[1].run, 1)
  lu.assertEquals(st[1].kernel_ns, 576891000)    -- seed line 1: "Kernel", 576891 us
  lu.assertEquals(st[1].runtime_ns, 4826274000)
  lu.assertEquals(st[2].total_ns, 1068245000)
  -- every recomputed share agrees with the stored one to its 2 decimals
  local n = 0
  for _, r in rep.tables.summary:rows() do
    if r.stored_pct then
      n = n + 1
      lu.assertTrue(math.abs(r.pct - r.stored_pct) <= 0.005 + 1e-9, r.metric)
    end
  end
  lu.assertEquals(n, 16)      -- 8 categories x 2 runs
  lu.assertNil(has_rule(rep, "step-breakdown.stored_pct_mismatch"))
  -- run 1 Runtime 4826274/6286787 = 76.77 %; MLU 0 at 9.18 % is below 50 %
  local sm = {}
  for _, r in rep.tables.summary:rows() do sm[r.run .. r.metric] = r end
  lu.assertAlmostEquals(sm["1Runtime"].pct, 100 * 4826274 / 6286787, 1e-9)
  local f = has_rule(rep, "step-breakdown.gpu_utilization")
  lu.assertNotNil(f)
  lu.assertEquals(f.evidence.gpu_util_pct, 9.18)
end

-- ---- 4. the interval adapter -------------------------------------------------------

local function grid(set, n)
  local g = {}
  for i = 0, n - 1 do g[i] = false end
  for a, b in set:iter() do for x = a, b - 1 do g[x] = true end end
  return g
end

local function random_set(rng, n, len)
  local s, e = {}, {}
  for i = 1, n do
    s[i] = rng(0, len - 1)
    e[i] = s[i] + rng(-2, 12)       -- some empty and inverted ones
  end
  return s, e
end

TestIntervals = {}

function TestIntervals:test_against_a_unit_grid()
  math.randomseed(7)
  local rng = math.random
  local L = 120
  for _ = 1, 200 do
    local as, ae = random_set(rng, rng(0, 12), L)
    local bs, be = random_set(rng, rng(0, 12), L)
    local a, b = IV.set(as, ae), IV.set(bs, be)
    -- canonical: sorted, disjoint, not touching, non-empty
    for _, x in ipairs({ a, b }) do
      local xs, xe = x:to_arrays()
      for i = 1, x:count() do
        lu.assertTrue(xs[i] < xe[i])
        if i > 1 then lu.assertTrue(xe[i - 1] < xs[i]) end
      end
    end
    local ga, gb = grid(a, L + 20), grid(b, L + 20)
    -- the set itself is the union of the inputs
    local raw = {}
    for i = 1, #as do for x = as[i], ae[i] - 1 do raw[x] = true end end
    local u, it, sb = grid(IV.union(a, b), L + 20), grid(IV.intersect(a, b), L + 20), grid(IV.subtract(a, b), L + 20)
    local nu, ni, ns, na = 0, 0, 0, 0
    for x = 0, L + 19 do
      lu.assertEquals(ga[x], raw[x] == true)
      lu.assertEquals(u[x], ga[x] or gb[x])
      lu.assertEquals(it[x], ga[x] and gb[x])
      lu.assertEquals(sb[x], ga[x] and not gb[x])
      lu.assertEquals(IV.contains(a, x), ga[x])
      if ga[x] then na = na + 1 end
      if ga[x] or gb[x] then nu = nu + 1 end
      if ga[x] and gb[x] then ni = ni + 1 end
      if ga[x] and not gb[x] then ns = ns + 1 end
    end
    lu.assertEquals(IV.length(a), na)
    lu.assertEquals(IV.length(IV.union(a, b)), nu)
    lu.assertEquals(IV.length(IV.intersect(a, b)), ni)
    lu.assertEquals(IV.length(IV.subtract(a, b)), ns)
    local lo, hi = rng(0, L), rng(0, L + 10)
    local inside = 0
    for x = lo, hi - 1 do if ga[x] then inside = inside + 1 end end
    lu.assertEquals(IV.length_within(a, lo, hi), inside)
    lu.assertEquals(IV.length(IV.clip(a, lo, hi)), inside)
    -- gaps within [lo,hi) = the uncovered part
    lu.assertEquals(IV.length(IV.gaps(a, lo, hi)), math.max(0, hi - lo) - inside)
  end
end

function TestIntervals:test_exact_int64()
  -- epoch nanoseconds: 1.6e18 + small offsets stay exact integers
  local base = 1623142623460172000
  local a = IV.set({ base, base + 5 }, { base + 3, base + 9 })
  lu.assertEquals(a:count(), 2)
  lu.assertEquals(IV.length(a), 7)
  lu.assertEquals(math.type(IV.length(a)), "integer")
  lu.assertEquals(IV.length(IV.subtract(a, IV.set({ base + 1 }, { base + 6 }))), 1 + 3)
end

function TestIntervals:test_capped_value_integral()
  -- [0,10) value 0.5 and [5,20) value 0.75: 0.5*5 + min(1.25,1)*5 + 0.75*10 = 15
  local v = IV.capped_value_integral({ 0, 5 }, { 10, 20 }, { 0.5, 0.75 }, 2, 1.0, 0, 100)
  lu.assertAlmostEquals(v, 15, 1e-12)
  -- clipped to [6, 12): 1*4 + 0.75*2 = 5.5
  lu.assertAlmostEquals(IV.capped_value_integral({ 0, 5 }, { 10, 20 }, { 0.5, 0.75 }, 2, 1.0, 6, 12), 5.5, 1e-12)
  -- the same with float times (sorted by Lua's sort, not the table engine's)
  lu.assertAlmostEquals(IV.capped_value_integral({ 0.0, 5.0 }, { 10.0, 20.0 }, { 0.5, 0.75 }, 2, 1.0, 0, 100), 15,
      1e-12)
  -- epoch nanoseconds beyond 2^53 stay exact: the same intervals shifted
  local b = 1 << 60
  lu.assertAlmostEquals(IV.capped_value_integral({ b + 5, b }, { b + 20, b + 10 }, { 0.75, 0.5 }, 2, 1.0, b, b + 100),
      15, 1e-12)
end

-- the capped integral against a unit-step sum: with integer ends in [0, 60)
-- the level is constant on each [x, x+1), so the integral is the sum over x
-- of min(sum of the values of the intervals holding x, cap)
function TestIntervals:test_capped_value_integral_against_unit_steps()
  math.randomseed(13)
  local rng = math.random
  for _ = 1, 200 do
    local n = rng(0, 8)
    local s, e, v = {}, {}, {}
    for i = 1, n do
      s[i] = rng(0, 50); e[i] = s[i] + rng(0, 10)
      if rng(1, 5) > 1 then v[i] = rng(1, 8) / 4 end          -- some values missing: left out
    end
    local lo, hi, cap = rng(0, 30), rng(20, 70), rng(1, 12) / 4
    local want = 0.0
    for x = lo, hi - 1 do
      local level = 0
      for i = 1, n do if v[i] and s[i] <= x and x < e[i] then level = level + v[i] end end
      if level > 0 then want = want + math.min(level, cap) end
    end
    lu.assertAlmostEquals(IV.capped_value_integral(s, e, v, n, cap, lo, hi), want, 1e-9)
  end
end

os.exit(lu.LuaUnit.run())

-- test_graphs.lua -- CUDA/HIP graph replays (issue 27, perflab.graphs and
-- the recipes that read them).
-- Expected values: TraceLens' vLLM graph trace and its GPU timeline
-- (tests/data/reference/cuda_graphs, MANIFEST.md), TraceLens' synthetic
-- graph case rebuilt by hand (tests/fixtures/graphs, gen_graph_traces.py),
-- a brute-force union written here, and hand-made traces whose figures are
-- worked out in their comments.
local lu = require "luaunit"
local perflab = require "perflab"
local G = require "perflab.graphs"
local IV = require "perflab.timeline"
local tdata = require "tdata"

local VLLM = tdata.path("reference/cuda_graphs/graph_execution.json.gz")
local FIX = "tests/fixtures/graphs/"

local function findings(rep, rule)
  local out = {}
  for _, f in ipairs(rep.findings) do if rule == nil or f.rule == rule then out[#out + 1] = f end end
  return out
end

local function read(path)
  local fh = assert(io.open(tdata.need(path), "rb"))
  local s = fh:read("a"); fh:close()
  return s
end

TestLaunchKinds = {}

function TestLaunchKinds:test_names()
  lu.assertEquals(G.launch_kind("cudaGraphLaunch"), "graph")
  lu.assertEquals(G.launch_kind("cudaGraphLaunch_ptsz"), "graph")
  lu.assertEquals(G.launch_kind("cuGraphLaunch"), "graph")
  lu.assertEquals(G.launch_kind("hipGraphLaunch"), "graph")
  lu.assertEquals(G.launch_kind("cuLaunchKernelEx"), "kernel")
  lu.assertEquals(G.launch_kind("cudaLaunchKernelExC"), "kernel")
  lu.assertEquals(G.launch_kind("hipExtModuleLaunchKernel"), "kernel")
  lu.assertEquals(G.launch_kind("cudaMemcpyAsync"), "memcpy")
  lu.assertEquals(G.launch_kind("hipMemsetAsync"), "memset")
  lu.assertNil(G.launch_kind("cudaStreamSynchronize"))
  lu.assertNil(G.launch_kind(nil))
  lu.assertTrue(G.is_graph_launch("hipGraphLaunch"))
  lu.assertFalse(G.is_graph_launch("cudaLaunchKernel"))
end

TestGraphsVllm = {}

-- 25 graph launches; 361 of 423 GPU events share a launch's correlation
-- (15 x 23, 12 x 1, 4 x 1); Σ dur of those 149,919.755 us (oracle README)
function TestGraphsVllm:test_replays()
  local p = perflab.load(VLLM)
  local rt = p.tables.runtime
  local kinds = G.launch_kinds(rt:col("name"))
  lu.assertEquals(kinds:count { where = kinds:eq("graph") }, 25)
  local res = G.analyse(p)
  local g = res.ops:col("graph_replay")
  lu.assertEquals(res.ops:nrows(), 423)
  lu.assertEquals(g:count { where = g }, 361)
  local sum = res.ops:col("duration_ns"):sum { where = g }
  lu.assertTrue(math.abs(sum - 149919755) <= 361, "sum of graph op durations " .. sum)
  lu.assertEquals(res.replays:nrows(), 25)
  lu.assertEquals(res.empty:nrows(), 0)
  lu.assertEquals(res.partial, 0)
  lu.assertNil(G.recording(p, nil, res))
  -- one row per graph: the 4-op first piece, the 15-op layer piece, the 12-op last piece
  local gt = res.graphs
  lu.assertEquals(gt:nrows(), 3)
  lu.assertEquals(gt:col("replays"):to_lua(), { 1, 23, 1 })
  lu.assertEquals(gt:col("kernels_per_replay"):to_lua(), { 4, 15, 12 })
  lu.assertEquals(gt:col("partial_replays"):to_lua(), { 0, 0, 0 })
  lu.assertEquals(gt:col("launch"):to_lua(), { "hipGraphLaunch", "hipGraphLaunch", "hipGraphLaunch" })
  -- per-position statistics: 4 + 15 + 12 positions; position counts = replays
  lu.assertEquals(res.positions:nrows(), 31)
  lu.assertEquals(res.positions:col("replays"):sum(), 361)
  -- the first replay's launch: hipGraphLaunch at correlation 51848, 30.51 us
  local r1 = res.replays:row(1)
  lu.assertEquals(r1.correlation, 51848)
  lu.assertEquals(r1.launch_ns, 30510)
  lu.assertEquals(r1.kernels, 4)
  lu.assertEquals(r1.delay_ns, r1.start_ns - (r1.start_ns - r1.delay_ns))
end

-- a brute-force union of the GPU events against TraceLens' gpu_timeline.csv
-- (ms): busy 156.085798828125, idle 0.3806171875, total 156.466416015625;
-- each start and end is rounded to the ns here, so within 1 us
function TestGraphsVllm:test_idle_time_matches_tracelens()
  local p = perflab.load(VLLM)
  local iv = {}
  for _, tn in ipairs({ "kernels", "memcpy", "memset" }) do
    for _, r in p.tables[tn]:rows() do iv[#iv + 1] = { r.start_ns, r.start_ns + r.duration_ns } end
  end
  table.sort(iv, function(a, b) return a[1] < b[1] end)
  local busy, cs, ce = 0, iv[1][1], iv[1][2]
  local lo, hi = iv[1][1], iv[1][2]
  for i = 2, #iv do
    local s, e = iv[i][1], iv[i][2]
    if s > ce then busy = busy + (ce - cs); cs, ce = s, e elseif e > ce then ce = e end
    if e > hi then hi = e end
  end
  busy = busy + (ce - cs)
  lu.assertTrue(math.abs(busy - 156085798.828125) < 1000, "busy " .. busy)
  lu.assertTrue(math.abs((hi - lo) - 156466416.015625) < 1000, "total " .. (hi - lo))
  local rep = perflab.run("idle-time", p)
  local t = rep.tables.idle
  lu.assertEquals(t:nrows(), 1)
  local r = t:row(1)
  lu.assertEquals(r.busy_ns, busy)
  lu.assertEquals(r.span_ns, hi - lo)
  lu.assertTrue(math.abs(r.idle_ns - 380617.1875) < 1000, "idle " .. r.idle_ns)
  lu.assertEquals(r.reliable, true)
  lu.assertEquals(r.graph_busy_ns, 149919643)
  lu.assertEquals(#findings(rep, "idle-time.unreliable"), 0)
end

-- no "capture them in a CUDA graph" for a graph's own kernels; one launch per replay
function TestGraphsVllm:test_launch_latency()
  local rep = perflab.run("launch-latency", VLLM)
  for _, f in ipairs(rep.findings) do
    lu.assertNil(f.message:find("capture"), f.message)
  end
  local ld = rep.tables.launch_delay
  local all = ld:row(ld:nrows())
  lu.assertNil(all.stream)
  lu.assertEquals(all.launches, 52 + 25)   -- 413 kernels - 361 replayed + 25 replays
  local sk = findings(rep, "launch-latency.short_kernels")[1]
  lu.assertEquals(sk.evidence.short_launches, 3)
end

-- step-breakdown: the replays' GPU time as its own row, no unreliable mark
function TestGraphsVllm:test_step_breakdown()
  local rep = perflab.run("step-breakdown", VLLM)
  lu.assertEquals(#findings(rep, "step-breakdown.unreliable"), 0)
  local row
  for _, r in rep.tables.summary:rows() do if r.metric == "Graph Replay GPU Time" then row = r end end
  lu.assertEquals(row.value, 149919643)    -- one step: the union of the 361 replayed ops
end

function TestGraphsVllm:test_graphs_recipe()
  local rep = perflab.run("graphs", VLLM)
  lu.assertEquals(rep.tables.graphs:nrows(), 3)
  lu.assertEquals(#findings(rep, "graphs.partial"), 0)
  local s = findings(rep, "graphs.summary")[1]
  lu.assertEquals(s.evidence.replays, 25)
  lu.assertEquals(s.evidence.graphs, 3)
end

TestGraphsSynthetic = {}

-- TraceLens' synthetic case: two replays of three kernels under
-- aten::graph_wrapper_fwd, 20/30/40 and 22/28/41 us -> 181 us; per-position
-- means 21, 29, 40.5 us
local function check_synthetic(p, total, means)
  local id, name, replayed = G.kernel_ops(p)
  local k = p.tables.kernels
  lu.assertEquals(replayed:count { where = replayed }, 6)
  local on = name:eq("aten::graph_wrapper_fwd")
  lu.assertEquals(on:count { where = on }, 6)
  lu.assertEquals(id:to_lua(), { 100, 100, 100, 100, 100, 100 })
  lu.assertEquals(k:col("duration_ns"):sum { where = on }, total)
  local res = G.analyse(p)
  lu.assertEquals(res.graphs:nrows(), 1)
  lu.assertEquals(res.graphs:row(1).replays, 2)
  lu.assertEquals(res.graphs:row(1).kernels_per_replay, 3)
  lu.assertEquals(res.positions:col("replays"):to_lua(), { 2, 2, 2 })
  lu.assertEquals(res.positions:col("mean_ns"):to_lua(), means)
  lu.assertEquals(res.positions:col("total_ns"):sum(), total)
  return res
end

function TestGraphsSynthetic:test_tracelens_181()
  local p = perflab.load(FIX .. "synthetic_two_replays.json")
  local res = check_synthetic(p, 181000, { 21000, 29000, 40500 })
  -- launch 5 us; spans 90 and 91 us (kernels back to back); delay 5 us each
  local g = res.graphs:row(1)
  lu.assertEquals(g.launch_mean_ns, 5000)
  lu.assertEquals(g.span_min_ns, 90000)
  lu.assertEquals(g.span_max_ns, 91000)
  lu.assertEquals(g.busy_mean_ns, 90500)
  lu.assertEquals(g.delay_mean_ns, 5000)
  lu.assertEquals(res.ops:col("position"):to_lua(), { 1, 2, 3, 1, 2, 3 })
end

function TestGraphsSynthetic:test_tracelens_180()
  local text = read(FIX .. "synthetic_two_replays.json")
  local n
  text, n = text:gsub('"dur": 22,', '"dur": 20,'):gsub('"dur": 28,', '"dur": 30,'):gsub('"dur": 41,', '"dur": 40,')
  local p = perflab.parse("synthetic_180.json", text)
  check_synthetic(p, 180000, { 20000, 30000, 40000 })
end

TestGraphsPartial = {}

-- five launches of one graph, the third with no GPU work recorded
function TestGraphsPartial:test_dropped_replay()
  local p = perflab.load(FIX .. "dropped_replay.json")
  local res = G.analyse(p)
  lu.assertEquals(res.graphs:nrows(), 1)
  lu.assertEquals(res.graphs:row(1).replays, 4)
  lu.assertEquals(res.empty:nrows(), 1)
  lu.assertEquals(res.empty:row(1).correlation, 602)
  local rec = G.recording(p, nil, res)
  lu.assertEquals(rec.empty_launches, 1)
  lu.assertEquals(rec.partial_replays, 0)
  lu.assertStrContains(rec.reason, "1 graph launch recorded no GPU work")
  local rep = perflab.run("graphs", p)
  lu.assertEquals(#findings(rep, "graphs.partial"), 1)
  lu.assertEquals(rep.tables.empty_launches:nrows(), 1)
  local it = perflab.run("idle-time", p)
  lu.assertEquals(#findings(it, "idle-time.unreliable"), 1)
  lu.assertEquals(it.tables.idle:row(1).reliable, false)
  local sb = perflab.run("step-breakdown", p)
  lu.assertEquals(#findings(sb, "step-breakdown.unreliable"), 1)
  local util = findings(sb, "step-breakdown.gpu_utilization")[1]
  lu.assertEquals(util.severity, "info")
  lu.assertStrContains(util.message, "unreliable")
  -- the stream's idle finding is no longer a warning, and says why
  lu.assertEquals(#findings(it, "idle-time.host_wait"), 1)
  for _, f in ipairs(findings(it, "idle-time.host_wait")) do
    lu.assertEquals(f.severity, "info")
    lu.assertStrContains(f.message, "unreliable")
  end
end

-- short replays without graph ids (Kineto): the 3-op graph G replayed four
-- times in full, correlation 904 without relu_b (30 us idle where relu_b,
-- at least 29 us, belongs), 907 cut by the end of the recording; 905 is a
-- 2-op prefix graph whose stream runs add_kernel 1 us after it (gemm_c,
-- 40 us, cannot have run there): a graph of its own
function TestGraphsPartial:test_short_replays_by_sequence()
  local p = perflab.load(FIX .. "short_replays.json")
  local res = G.analyse(p)
  lu.assertEquals(res.graphs:nrows(), 2)
  lu.assertEquals(res.graphs:col("replays"):to_lua(), { 6, 1 })
  lu.assertEquals(res.graphs:col("partial_replays"):to_lua(), { 2, 0 })
  lu.assertEquals(res.graphs:col("kernels_per_replay"):to_lua(), { 3, 2 })
  lu.assertEquals(res.partial, 2)
  local partial = res.replays:filter(res.replays:col("partial"))
  lu.assertEquals(partial:col("correlation"):to_lua(), { 904, 907 })
  lu.assertEquals(partial:col("usual"):to_lua(), { 3, 3 })
  -- per-position figures come from the four whole replays only
  lu.assertEquals(res.positions:filter(res.positions:col("graph"):eq(1)):col("min_ns"):to_lua(),
      { 20000, 29000, 40000 })
  local rec = G.recording(p, nil, res)
  lu.assertEquals(rec.partial_replays, 2)
  lu.assertStrContains(rec.reason, "2 graph replays recorded a different number of ops")
  lu.assertEquals(#findings(perflab.run("graphs", p), "graphs.partial"), 1)
  lu.assertEquals(#findings(perflab.run("idle-time", p), "idle-time.unreliable"), 1)
end

-- the same graph where the stream had no room: relu_b's gap closed to 20 us
-- (less than its 29 us shortest run), so 904 is a graph of its own
function TestGraphsPartial:test_short_replay_without_room()
  local doc = require("cjson").decode(read(FIX .. "short_replays.json"))
  for _, e in ipairs(doc.traceEvents) do
    if e.name == "gemm_c" and e.args.correlation == 904 then e.ts = e.ts - 10 end
  end
  local dir = os.tmpname(); os.remove(dir); os.execute("mkdir -p " .. dir)
  local f = assert(io.open(dir .. "/t.json", "w")); f:write(require("cjson").encode(doc)); f:close()
  local res = G.analyse(perflab.load(dir .. "/t.json"))
  os.remove(dir .. "/t.json"); os.remove(dir)
  lu.assertEquals(res.graphs:col("replays"):to_lua(), { 5, 1, 1 })
  lu.assertEquals(res.partial, 1)
  lu.assertEquals(res.replays:filter(res.replays:col("partial")):col("correlation"):to_lua(), { 907 })
end

-- a graph launch with no kernels beside two ordinary launches
function TestGraphsPartial:test_graph_launch_without_kernels()
  local p = perflab.load(FIX .. "graph_launch_no_kernels.json")
  local res = G.analyse(p)
  lu.assertNil(res.graphs)
  lu.assertEquals(res.empty:nrows(), 1)
  lu.assertEquals(res.empty:row(1).correlation, 701)
  lu.assertEquals(G.recording(p, nil, res).empty_launches, 1)
  local ops = res.ops
  lu.assertEquals(ops:col("graph_replay"):count { where = ops:col("graph_replay") }, 0)
end

-- nsys export: graph 7 replayed four times, the fourth short of k_c
function TestGraphsPartial:test_nsys_graph_id()
  local p = perflab.load("tests/fixtures/nsys_sqlite/graphs_small.sqlite")
  lu.assertEquals(p.format, "nsys-sqlite")
  local res = G.analyse(p)
  lu.assertEquals(res.graphs:nrows(), 1)
  local g = res.graphs:row(1)
  lu.assertEquals(g.graph_id, 7)
  lu.assertEquals(g.replays, 4)
  lu.assertEquals(g.partial_replays, 1)
  lu.assertEquals(g.kernels_per_replay, 3)
  lu.assertEquals(g.busy_mean_ns, 250)     -- whole replays: [100, 350) of each launch's second
  lu.assertEquals(g.busy_total_ns, 900)    -- 3 x 250 + 150
  lu.assertEquals(g.delay_mean_ns, 50)     -- kernel at +100, launch ends at +50
  lu.assertEquals(g.launch_mean_ns, 50)
  lu.assertEquals(res.partial, 1)
  lu.assertEquals(res.positions:col("replays"):to_lua(), { 3, 3, 3 })
  lu.assertEquals(res.positions:col("kernel"):to_lua(), { "k_a", "k_b", "k_c" })
  local partial = res.replays:filter(res.replays:col("partial"))
  lu.assertEquals(partial:col("correlation"):to_lua(), { 4 })
  lu.assertEquals(G.recording(p, nil, res).partial_replays, 1)
  local it = perflab.run("idle-time", p)
  lu.assertEquals(#findings(it, "idle-time.unreliable"), 1)
  lu.assertEquals(it.tables.idle:row(1).reliable, false)
end

-- nsys --cuda-graph-trace=graph: one GRAPH_TRACE row per replay, no kernel rows;
-- the replays are GPU work (busy), one launch each, not empty launches
function TestGraphsPartial:test_nsys_graph_trace()
  local p = perflab.load("tests/fixtures/nsys_sqlite/graph_trace_small.sqlite")
  local gt = p.tables.graph_trace
  lu.assertEquals(gt:nrows(), 3)
  lu.assertEquals(gt:col("graph_id"):to_lua(), { 9, 9, 9 })
  lu.assertEquals(gt:col("graph_exec_id"):to_lua(), { 90, 90, 90 })
  lu.assertEquals(gt:col("duration_ns"):to_lua(), { 300, 300, 300 })
  lu.assertEquals(gt:col("pid"):to_lua(), { 100, 100, 100 })
  local res = G.analyse(p)
  lu.assertEquals(res.empty:nrows(), 0)
  lu.assertNil(G.recording(p, nil, res))
  lu.assertEquals(res.graphs:nrows(), 1)
  local g = res.graphs:row(1)
  lu.assertEquals(g.graph_id, 9)
  lu.assertEquals(g.replays, 3)
  lu.assertEquals(g.busy_total_ns, 900)
  lu.assertEquals(g.delay_mean_ns, 50)
  local it = perflab.run("idle-time", p)
  local r = it.tables.idle:row(1)
  lu.assertEquals(r.busy_ns, 920)           -- 3 x 300 + the 20 ns kernel
  lu.assertEquals(r.span_ns, 4120 - 1100)
  lu.assertEquals(r.graph_busy_ns, 900)
  lu.assertEquals(r.reliable, true)
  local ll = perflab.run("launch-latency", p)
  local ld = ll.tables.launch_delay
  lu.assertEquals(ld:row(ld:nrows()).launches, 4)
end

TestLaunchEx = {}

-- cuLaunchKernelEx and cudaLaunchKernelExC: ordinary launches, linked
function TestLaunchEx:test_linked()
  local p = perflab.load(FIX .. "launch_kernel_ex.json")
  local ops = IV.device_ops(p)
  local by = {}
  for _, r in ops:rows() do by[r.name] = r end
  lu.assertEquals(by["triton_poi_fused_add_0"].rt_name, "cuLaunchKernelEx")
  lu.assertEquals(by["cutlass_gemm_kernel"].rt_name, "cudaLaunchKernelExC")
  lu.assertNil(G.analyse(p))
  local m = G.kernel_mask(p)
  lu.assertEquals(m:count { where = m }, 0)
  local rep = perflab.run("launch-latency", p)
  local ld = rep.tables.launch_delay
  lu.assertEquals(ld:row(ld:nrows()).launches, 3)
  -- delays: 30 - 18, 70 - 56, 320 - 315 us
  lu.assertEquals(ld:row(ld:nrows()).max_ns, 14000)
end

-- no grid checks on a communication kernel (1 block of ncclDevKernel_Generic on 108 SMs)
function TestLaunchEx:test_no_grid_checks_on_comm()
  local rep = perflab.run("launch", FIX .. "launch_kernel_ex.json")
  for _, f in ipairs(rep.findings) do
    lu.assertNil(tostring(f.subject):find("nccl"), f.message)
    lu.assertNil(f.message:find("nccl"), f.message)
  end
  local t = rep.tables.launch
  lu.assertEquals(t:nrows(), 2)
  local note = false
  for _, n in ipairs(rep.notes) do note = note or n:find("1 communication launch") ~= nil end
  lu.assertTrue(note)
end

os.exit(lu.LuaUnit.run())

-- test_critical_path.lua -- the critical-path recipe against HTA's own
-- results (tests/data/critical_path: HTA at f4d0062 on six traces, default
-- options and zero-weight launch edges) and over every Kineto trace of
-- tests/data (each gets a path or a reason).
local lu = require "luaunit"
local perflab = require "perflab"
local cjson = require "cjson"
local CPA = require "perflab.critical_path"
local DATA = os.getenv("PERFLAB_DATA") or "tests/data"
local K = DATA .. "/corpus/kineto_trace/"

local function read(path)
  local f = assert(io.open(path, "rb")); local s = f:read("a"); f:close(); return s
end

local ORACLE = {
  default = cjson.decode(read(DATA .. "/critical_path/hta_summary_default.json")),
  zero = cjson.decode(read(DATA .. "/critical_path/hta_summary_zero_weight.json")),
}
local ALEX = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
local CASES = {
  simple_add = { K .. "hta_a100_simple_add_trace.json.gz", ALEX, 1 },
  alexnet = { K .. "hta_a100_alexnet_trace.json.gz", ALEX, 1 },
  event_sync = { DATA .. "/critical_path/event_sync_trace.json.gz", "ProfilerStep", 0 },
  ns_resolution = { K .. "hta_v100_ns_resolution_rank-0.pt.trace.json.gz", "ProfilerStep", 1 },
  amd_mi250 = { K .. "hta_mi250_rocm6_2_minitoy_kineto.json.gz", "ProfilerStep", 1 },
  -- HTA's end-to-end case: the whole simple_add trace
  end_to_end_simple_add = { K .. "hta_a100_simple_add_trace.json.gz", "", 0 },
}

local loaded = {}
local function load(path) loaded[path] = loaded[path] or perflab.load(path); return loaded[path] end

local function check(name, which)
  local c, o = CASES[name], ORACLE[which][name]
  local r = assert(CPA.analyze(load(c[1]), { annotation = c[2], instance = c[3], zero_weight_launch = which == "zero",
    allow_missing_sync = name == "amd_mi250" or name == "ns_resolution" }))
  lu.assertEquals(r.length_ns, o.path_length_us * 1000, name .. " " .. which .. ": path length")
  lu.assertEquals(r.path:nrows(), o.critical_nodes, name .. ": path nodes")
  lu.assertEquals(r.critical_events, o.critical_events, name .. ": critical events")
  -- the graph itself, as HTA's networkx graph counts it (ns_resolution:
  -- one dependency edge fewer than HTA, 915 against 916, on a path that
  -- matches; docs/critical-path.md, "Agreement with HTA")
  local off = name == "ns_resolution" and 1 or 0
  lu.assertEquals(r.nodes, o.graph_nodes, name .. " " .. which .. ": graph nodes")
  lu.assertEquals(r.edges + off, o.graph_edges, name .. " " .. which .. ": graph edges")
  for t, k in pairs(r.edge_types) do
    if t == "critical_path_dependency" then k = k + off end
    lu.assertEquals(k, o.graph_edge_types[t] or 0, name .. " " .. which .. ": " .. t .. " edges")
  end
  local total = 0
  for _, v in pairs(r.bound_by) do total = total + v end
  for k, pct in pairs(o.bound_by_pct) do
    if k:sub(1, 1) ~= "(" then
      lu.assertAlmostEquals(100 * (r.bound_by[k] or 0) / total, pct, 1e-6, name .. " " .. which .. ": " .. k)
    end
  end
end

TestCriticalPath = {}
for name in pairs(CASES) do
  TestCriticalPath["test_" .. name .. "_default"] = function() check(name, "default") end
  TestCriticalPath["test_" .. name .. "_zero_weight"] = function() check(name, "zero") end
end

-- HTA's unit test: relu_ -> clamp_min_ -> cudaLaunchKernel edge weights
-- 15, 14, 17, 15, 32 us, a 27 us launch delay and a 7 us kernel-kernel delay
-- somewhere in the graph's path for simple_add instance 1
function TestCriticalPath:test_simple_add_nesting_weights()
  local c = CASES.simple_add
  local r = CPA.analyze(load(c[1]), { annotation = c[2], instance = c[3], zero_weight_launch = true })
  local names = r.events:col("name"):at(r.path:col("event"))
  local w = r.path:col("edge_weight_ns")
  local found = false
  for i = 1, r.path:nrows() - 5 do
    if names[i] == "aten::relu_" and names[i + 1] == "aten::clamp_min_" and names[i + 2] == "cudaLaunchKernel" then
      lu.assertEquals({ w[i], w[i + 1], w[i + 2], w[i + 3], w[i + 4] }, { 15000, 14000, 17000, 15000, 32000 })
      found = true
      break
    end
  end
  lu.assertTrue(found)
  -- the simple_add path has HTA's 159 events at the same (ts, name)
  local want = {}
  for line in read(DATA .. "/critical_path/simple_add.critical_events.csv"):gmatch("[^\n]+") do
    local ts, dur = line:match("^(%d+),(%d+),")
    if ts then want[ts .. "/" .. dur] = true end
  end
  local crit = r.events:filter(r.critical, { "ts_ns", "dur_ns" })
  local miss = 0
  for _, row in crit:rows() do if not want[string.format("%d/%d", row.ts_ns // 1000,
      row.dur_ns // 1000)] then miss = miss + 1 end end
  lu.assertEquals(crit:nrows(), 159)
  lu.assertEquals(miss, 0)
end

-- HTA's end-to-end case (whole trace): HTA's events on the path, the same
-- (ts, dur) pairs, with default options and with zero-weight launch edges.
-- The case that pins the kernel-kernel rule: the Memset (Device) at
-- 1694040009799861 was launched 11.8 ms after its stream went idle and
-- missed the launch test (the next launch came before it started); with a
-- kernel-kernel edge there the path would be 41,435,234 us, through the GPU
local function events_of(r)
  local got = {}
  for _, row in r.events:filter(r.critical, { "ts_ns", "dur_ns" }):rows() do
    got[#got + 1] = string.format("%d/%d", row.ts_ns // 1000, row.dur_ns // 1000)
  end
  table.sort(got)
  return got
end
local function oracle_events(file)
  local want = {}
  for line in read(DATA .. "/critical_path/" .. file):gmatch("[^\n]+") do
    local ts, dur = line:match("^(%d+),(%d+),")
    if ts then want[#want + 1] = ts .. "/" .. dur end
  end
  table.sort(want)
  return want
end
function TestCriticalPath:test_end_to_end_events()
  local p = load(K .. "hta_a100_simple_add_trace.json.gz")
  local r = assert(CPA.analyze(p, { annotation = "" }))
  lu.assertEquals(r.length_ns, 41435012000)
  lu.assertEquals(events_of(r), oracle_events("end_to_end_simple_add.critical_events.csv"))
  local z = assert(CPA.analyze(p, { annotation = "", zero_weight_launch = true }))
  lu.assertEquals(z.length_ns, 41435045000)
  lu.assertEquals(events_of(z), oracle_events("end_to_end_simple_add.zero_weight.critical_events.csv"))
  -- the memset has no edge from its stream (and no launch edge by default)
  local ev = r.events
  local m = ev:col("name"):eq("Memset (Device)") & ev:col("ts_ns"):eq(1694040009799861000)
  lu.assertEquals(ev:filter(m):nrows(), 1)
  lu.assertEquals((r.critical & m):sum(), 0)
end

-- perflab.critpath.run classifies the events by the rules in C (once per
-- distinct name); the same run from flags, category codes and dense ids
-- worked out in Lua (name_flags, one name at a time) gives the same graph
function TestCriticalPath:test_rules_in_c_as_in_lua()
  local CP = require "perflab.critpath"
  for _, c in ipairs { { CASES.event_sync[1], "ProfilerStep" }, { CASES.amd_mi250[1], "ProfilerStep" },
    { CASES.simple_add[1], "" } } do
    local ev = load(c[1]):table("events")
    ev = ev:filter(ev:col("dur_ns"):present() & ev:col("cat"):present() & ev:col("cat"):ne("Trace"))
    local function dense(col)
      local ids, k = {}, 0
      return col:map(function(v)
        if not ids[v] then k = k + 1; ids[v] = k end
        return ids[v]
      end)
    end
    local base = { ts = ev:col("ts_ns"), dur = ev:col("dur_ns"), corr = ev:col("correlation"),
        stream = ev:col("stream"),
      -- events has the wait columns only where the trace records a wait
      wait_stream = ev:has("wait_on_stream") and ev:col("wait_on_stream") or nil,
      wait_record = ev:has("wait_on_record_corr") and ev:col("wait_on_record_corr") or nil, whole = c[2] == "" }
    local lua_spec, c_spec = {}, {}
    for k, v in pairs(base) do lua_spec[k], c_spec[k] = v, v end
    lua_spec.flags = ev:col("name"):map(function(s) return CPA.name_flags(s, c[2]) end)
    lua_spec.cat = ev:col("cat"):map(function(s)
      local k = CPA.rules.categories[s]
      return k and CP.codes["cat_" .. k] or 0
    end)
    lua_spec.pid = dense(ev:col("pid"))
    lua_spec.thread = dense(perflab.table.sprintf("%s\t%s", ev:col("pid"), ev:col("tid")))
    c_spec.names, c_spec.rules, c_spec.annotation = ev:col("name"), CPA.rules, c[2]
    c_spec.cats, c_spec.categories, c_spec.pids, c_spec.tids = ev:col("cat"), CPA.rules.categories, ev:col("pid"),
      ev:col("tid")
    local a, b = assert(CP.run(lua_spec)), assert(CP.run(c_spec))
    lu.assertTrue(a.path:nrows() > 10)
    for _, k in ipairs { "length_ns", "nodes", "edges", "launch_edges", "kernel_kernel_edges", "sync_edges",
      "graph_launches" } do
      lu.assertEquals(b[k], a[k], c[1] .. " " .. k)
    end
    lu.assertEquals(b.path:col("event"):to_lua(), a.path:col("event"):to_lua())
    lu.assertEquals(b.path:col("edge_type"):to_lua(), a.path:col("edge_type"):to_lua())
  end
end

-- the figure's spans, worked out by hand: lane a: [0,10) [12,15) (gap 2:
-- 12 <= 10 + 2, one span [0,15) of 2), [30,31) alone; lane b: [5,50) holds
-- [6,7) and [49,60) (starts within), then [63,64) (63 > 60 + 2)
function TestCriticalPath:test_spans()
  local CP = require "perflab.critpath"
  local t = perflab.table.from_columns({ lane = { "a", "b", "a", "b", "a", "b", "b" },
    s = { 12, 5, 0, 6, 30, 49, 63 }, e = { 15, 50, 10, 7, 31, 60, 64 } }, { "lane", "s", "e" })
  local S = CP.spans(t, { start = "s", stop = "e", by = { "lane" }, gap = 2 })
  lu.assertEquals(S:col("row"):to_lua(), { 3, 5, 2, 7 })
  lu.assertEquals(S:col("s"):to_lua(), { 0, 30, 5, 63 })
  lu.assertEquals(S:col("e"):to_lua(), { 15, 31, 60, 64 })
  lu.assertEquals(S:col("events"):to_lua(), { 2, 1, 3, 1 })
  lu.assertEquals(CP.spans(t, { start = "s", stop = "e", gap = 0 }):col("events"):to_lua(), { 6, 1 })
end

-- figure_context: the longest of the step's other events, the rest left
-- out and said so
function TestCriticalPath:test_figure_context_cut()
  local c = CASES.alexnet
  local p = load(c[1])
  local rep = perflab.run("critical-path", p, { annotation = c[2], instance = c[3], figure_context = 25 })
  local svg = rep.figures["critical-path.svg"].svg
  local grey = select(2, svg:gsub('fill="#d9d9d9" stroke="[^"]*" stroke%-width="0.4"><title>', ""))
    + select(2, svg:gsub('fill="#bdbdbd" stroke="[^"]*" stroke%-width="0.4"><title>', ""))
  lu.assertEquals(grey, 25)
  lu.assertStrContains(svg, "the 25 longest of ")
end

-- the chrome-trace export marks the 159 events and draws HTA's 21 critical
-- flow edges (dependency, launch, sync) of simple_add instance 1
function TestCriticalPath:test_export_marks_path()
  local c = CASES.simple_add
  local p = load(c[1])
  local r = CPA.analyze(p, { annotation = c[2], instance = c[3] })
  local text = require("perflab.trace").chrome(p, { critical_path = r })
  local crit = select(2, text:gsub('"critical":1', ""))
  local flows = select(2, text:gsub('"ph":"s","id":%d+,"pid":%d+,"tid":%d+,"ts":[%d.]+,"cat":"critical_path_', ""))
  lu.assertEquals(crit, 159)
  lu.assertEquals(flows, 21)
end

-- the figure: the whole step in grey with the path over it.  alexnet
-- instance 1: every CPU thread and GPU stream of the step has a lane, each
-- non-path event of the step (cpu_op, user_annotation, runtime, kernel,
-- memcpy, memset) is one grey box, and the 77 path events are all drawn
-- (merged spans whose titles count them)
function TestCriticalPath:test_figure_whole_step()
  local c = CASES.alexnet
  local p = load(c[1])
  local rep = perflab.run("critical-path", p, { annotation = c[2], instance = c[3] })
  local svg = rep.figures["critical-path.svg"].svg
  local r = CPA.analyze(p, { annotation = c[2], instance = c[3] })
  local ev = r.events
  local cats = ev:col("cat"):isin { "cpu_op", "user_annotation", "cuda_runtime", "cuda_driver", "kernel",
    "gpu_memcpy", "gpu_memset" }
  local gpu = ev:col("stream"):fill(-1):ge(0)
  local last = (ev:col("ts_ns") + ev:col("dur_ns")):keep(r.critical):max()
  local ends = ev:col("ts_ns") + ev:col("dur_ns")
  local ctx = cats & ~r.critical & ev:col("ts_ns"):le(last) & ends:ge(r.window_lo_ns)
    & (gpu | ev:col("ts_ns"):le(r.window_hi_ns))
  local nctx = ctx:sum()
  lu.assertTrue(nctx > 0 and nctx < 3000)
  -- grey boxes: one rect per context event, filled with the fixed greys
  -- (the legend's two swatches are closed rects without a title)
  local grey = select(2, svg:gsub('fill="#d9d9d9" stroke="[^"]*" stroke%-width="0.4"><title>', ""))
    + select(2, svg:gsub('fill="#bdbdbd" stroke="[^"]*" stroke%-width="0.4"><title>', ""))
  lu.assertEquals(grey, nctx)
  -- every path event is counted once in the path spans' titles
  local counted = 0
  for n in svg:gmatch("<title>(%d+) events on the path") do counted = counted + tonumber(n) end
  for _ in svg:gmatch("<title>[^<]-: [%d.]+ us</title>") do counted = counted + 1 end
  lu.assertEquals(counted, r.critical_events)
  for _, lane in ipairs { "GPU 0 stream 7", "GPU 0 stream 20" } do lu.assertStrContains(svg, ">" .. lane .. "<") end
end

-- what cannot be analysed says why
function TestCriticalPath:test_refusals()
  local r, why = CPA.analyze(load(K .. "hta_cpu_only_rank-34.pt.trace.json.gz"), {})
  lu.assertNil(r)
  lu.assertStrContains(why, "no GPU work")
  r, why = CPA.analyze(load(K .. "hta_mi250_rocm6_2_minitoy_kineto.json.gz"), {})
  lu.assertNil(r)
  lu.assertStrContains(why, "no sync events")
  r, why = CPA.analyze(load(CASES.alexnet[1]), { annotation = "NoSuchStep" })
  lu.assertNil(r)
  lu.assertStrContains(why, "no event named like 'NoSuchStep'")
end

-- Two kernels on one stream that overlap (B starts at 200 us, before A ends
-- at 400: programmatic dependent launch, or timestamps out of order).  A's
-- launch edge (10 -> 50) and A's running time up to B's start (50 -> 200)
-- lead to B (200 -> 600): 40 + 150 + 400 = 590 us, from the first launch
-- call to the last kernel's end.  Through A's end and a gap of -200 us
-- counted 0, the path was 40 + 350 + 400 = 790 us, longer than that span.
function TestCriticalPath:test_overlapping_kernels()
  local ev = {
    { ph = "X", cat = "user_annotation", name = "ProfilerStep#1", pid = 1, tid = 1, ts = 0, dur = 100 },
    { ph = "X", cat = "cuda_runtime", name = "cudaLaunchKernel", pid = 1, tid = 1, ts = 10, dur = 5,
      args = { correlation = 1 } },
    { ph = "X", cat = "cuda_runtime", name = "cudaLaunchKernel", pid = 1, tid = 1, ts = 60, dur = 5,
      args = { correlation = 2 } },
    { ph = "X", cat = "kernel", name = "kernel_a", pid = 0, tid = 7, ts = 50, dur = 350,
      args = { correlation = 1, stream = 7, device = 0 } },
    { ph = "X", cat = "kernel", name = "kernel_b", pid = 0, tid = 7, ts = 200, dur = 400,
      args = { correlation = 2, stream = 7, device = 0 } },
  }
  local path = os.tmpname()
  local f = assert(io.open(path, "wb")); f:write(cjson.encode { traceEvents = ev }); f:close()
  local p = perflab.load(path, { format = "kineto" })
  os.remove(path)
  local r = assert(CPA.analyze(p, { annotation = "ProfilerStep", allow_missing_sync = true }))
  lu.assertEquals(r.overlapping_kernels, 1)
  lu.assertEquals(r.length_ns, 590000)
  lu.assertEquals(r.bound_by.gpu_compute_bound, 550000)
  lu.assertEquals(r.bound_by.gpu_kernel_launch_overhead, 40000)
  lu.assertNil(r.bound_by.gpu_kernel_kernel_overhead)
  local rep = perflab.run("critical-path", p, { allow_missing_sync = true })
  local seen = false
  for _, fd in ipairs(rep.findings) do
    if fd.rule == "critical_path.overlap" then seen = true; lu.assertEquals(fd.evidence.overlapping_kernels, 1) end
  end
  lu.assertTrue(seen)
end

-- every Kineto trace of tests/data: a path with a positive length, or a reason
function TestCriticalPath:test_sweep_kineto()
  local files = {}
  local pipe = io.popen("find " .. DATA .. " -name '*.json' -o -name '*.json.gz' | sort")
  for f in pipe:lines() do files[#files + 1] = f end
  pipe:close()
  local n, ok = 0, 0
  for _, f in ipairs(files) do
    local p = perflab.try_load(f)
    if p and p.format == "kineto" then
      n = n + 1
      local okr, rep = pcall(perflab.run, "critical-path", p)
      local got = false
      if not okr then
        -- device work of categories perflab has no reader for: refused, and said so
        lu.assertTrue((p.meta.unread_device_events or 0) > 0, f .. ": " .. tostring(rep and rep.message or rep))
        lu.assertStrContains(rep.message, "has none that perflab reads")
        got, rep = true, { findings = {} }
      end
      for _, fd in ipairs(rep.findings) do
        if fd.rule == "critical_path.length" then got = true; ok = ok + 1; lu.assertTrue(fd.evidence.length_us > 0,
            f) end
        if fd.rule == "critical_path.unsupported" then got = true; lu.assertTrue(#fd.evidence.reason > 10, f) end
      end
      lu.assertTrue(got, f)
    end
  end
  lu.assertTrue(n >= 10, "kineto traces found: " .. n)
  lu.assertTrue(ok >= 3, "paths built: " .. ok)
end
os.exit(lu.LuaUnit.run())

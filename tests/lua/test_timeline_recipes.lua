-- tests/lua/test_timeline_recipes.lua -- the idle-time and launch-latency
-- recipes against an independent computation.
--
-- The expected numbers below were printed by tools/timeline_check.py (plain
-- Python: json + gzip + decimal, no perflab code; its docstring states the
-- definitions) over the MIT-licensed HTA fixture
-- tests/data/corpus/kineto_trace/hta_sampled_rank-0.json.gz:
--   python3 tools/timeline_check.py tests/data/corpus/kineto_trace/hta_sampled_rank-0.json.gz [5000]
-- When /usr/bin/python3 is present the test also runs the script live on two
-- fixtures (sampled rank 0 and alexnet) and compares every line it prints.
-- Run from the repository root:  build/perflab tests/lua/test_timeline_recipes.lua -v

local lu = require "luaunit"
local perflab = require "perflab"
local recipes = require "perflab.recipes"

local SAMPLED = "tests/data/corpus/kineto_trace/hta_sampled_rank-0.json.gz"
local ALEXNET = "tests/data/corpus/kineto_trace/hta_a100_alexnet_trace.json.gz"

local function by_stream(t)
  local m = {}
  for _, r in t:rows() do m[(r.device or "-") .. ":" .. (r.stream or "-")] = r end
  return m
end

local function find(rep, rule)
  for _, f in ipairs(rep.findings) do if f.rule == rule then return f end end
  return nil
end

-- device_ops orders operations by start, ties in insertion order (kernels,
-- then memcpy, then memset; rows in table order), by the table engine's
-- stable sort, for integer and for fractional starts: checked here against
-- a hand-made list
TestDeviceOps = {}

function TestDeviceOps:test_order_with_ties()
  local T = perflab.table
  local IV = require "perflab.timeline"
  local function prof(starts_k, starts_m)
    local k, m = {}, {}
    for i, s in ipairs(starts_k) do k[i] = { start_ns = s, duration_ns = 1, name = "k" .. i, stream = 7 } end
    for i, s in ipairs(starts_m) do m[i] = { start_ns = s, duration_ns = 1, name = "m" .. i, stream = 7 } end
    return { tables = { kernels = T.from_rows(k, { "start_ns", "duration_ns", "name", "stream" }),
                        memcpy = T.from_rows(m, { "start_ns", "duration_ns", "name", "stream" }) } }
  end
  local function names(ops) return ops:col("name"):to_lua() end
  -- integer starts (the engine's sort), 2^60 + small offsets: beyond a double's 53 bits
  local big = 1 << 60
  local ops = IV.device_ops(prof({ big + 5, big + 1, big + 5, big + 2 }, { big + 1, big + 5, big + 3 }))
  lu.assertEquals(names(ops), { "k2", "m1", "k4", "m3", "k1", "k3", "m2" })
  lu.assertEquals(ops:col("start_ns")[1], big + 1)
  lu.assertEquals(ops:col("kind"):to_lua(), { "kernel", "memcpy", "kernel", "memcpy", "kernel", "kernel", "memcpy" })
  lu.assertEquals(ops:col("end_ns")[2], big + 2)
  lu.assertEquals(ops:col("device"):to_lua(), { 0, 0, 0, 0, 0, 0, 0 })   -- no device column: 0
  lu.assertNil(ops:col("rt_start_ns")[1])                                   -- no runtime table
  -- fractional starts: the same rule
  ops = IV.device_ops(prof({ 5, 1.5, 5, 2 }, { 1.5, 5, 3 }))
  lu.assertEquals(names(ops), { "k2", "m1", "k4", "m3", "k1", "k3", "m2" })
end

-- launch-latency's worst launches and queue lengths on a hand-made profile,
-- once with integer times (the table engine's sort) and once with the same
-- times as floats (Lua's sort).  Stream 7: launch calls end at 10, 15, 10,
-- 25, 35 and their kernels start at 30, 35, 12, 45, 50 (delays 20, 20, 2,
-- 20, 15); stream 8: two launches at 40-45 whose kernels both start at 65
-- (delay 20 each: a full tie, kept in table order).  Queue of stream 7:
-- +1 at 0, 5, 6, 20, 32 and -1 at 32, 40, 40, 46, 52 (the end at 32 counts
-- before the launch at 32), so at most 4, first at 20, area 147 over 52 ns.
-- Stream 8: 2 from 40 to 66, 1 to 68: at most 2 at 40, area 54 over 28 ns.
function TestDeviceOps:test_launch_latency_orders()
  local T = perflab.table
  local function prof(f)
    local K = { { 30, 10, 7, 1 }, { 35, 5, 7, 2 }, { 12, 20, 7, 3 }, { 45, 1, 7, 4 }, { 50, 2, 7, 5 },
                { 65, 3, 8, 6 }, { 65, 1, 8, 7 } }
    local R = { { 0, 10, 1 }, { 5, 10, 2 }, { 6, 4, 3 }, { 20, 5, 4 }, { 32, 3, 5 }, { 40, 5, 6 }, { 40, 5, 7 } }
    local k, r = {}, {}
    for i, x in ipairs(K) do
      k[i] = { name = "k" .. i, start_ns = f(x[1]), duration_ns = f(x[2]), stream = x[3], device = 0,
          correlation = x[4] }
    end
    for i, x in ipairs(R) do r[i] = { name = "cudaLaunchKernel", start_ns = f(x[1]), duration_ns = f(x[2]),
        correlation = x[3] } end
    return { source = "hand-made", tables = {
      kernels = T.from_rows(k, { "name", "start_ns", "duration_ns", "stream", "device", "correlation" }),
      runtime = T.from_rows(r, { "name", "start_ns", "duration_ns", "correlation" }) } }
  end
  for _, f in ipairs({ function(v) return v end, function(v) return v + 0.0 end }) do
    local rep = recipes.run("launch-latency", { prof(f) }, {})
    local worst = {}
    for _, row in rep.tables.outliers:rows() do worst[#worst + 1] = row.kernel .. "=" .. math.floor(row.delay_ns) end
    lu.assertEquals(worst, { "k1=20", "k2=20", "k4=20", "k6=20", "k7=20", "k5=15", "k3=2" })
    local q = by_stream(rep.tables.queue_length)
    lu.assertEquals({ q["0:7"].max, q["0:7"].at_ns }, { 4, 20 })
    lu.assertAlmostEquals(q["0:7"].mean, 147 / 52, 1e-12)
    lu.assertEquals({ q["0:8"].max, q["0:8"].at_ns }, { 2, 40 })
    lu.assertAlmostEquals(q["0:8"].mean, 54 / 28, 1e-12)
  end
end

TestIdle = {}

-- Gap attribution by hand on one stream: A [0,10) launched 0-1; B [15,15)
-- (zero length) launched at 12, after A ended: host wait 5; C [16,20)
-- launched at 1: a 1 ns gap after B, kernel wait 1; D [20,25) touches C:
-- no gap; E [100,110) launched at 20: a 75 ns gap, other.  Span 110, busy
-- 10 + 4 + 5 + 10 = 29, idle 81 = 5 + 1 + 75.
function TestIdle:test_gaps_by_hand()
  local T = perflab.table
  local K = { { 0, 10, 1 }, { 15, 0, 2 }, { 16, 4, 3 }, { 20, 5, 4 }, { 100, 10, 5 } }
  local R = { { 0, 1, 1 }, { 12, 1, 2 }, { 1, 1, 3 }, { 2, 1, 4 }, { 20, 1, 5 } }
  local k, r = {}, {}
  for i, x in ipairs(K) do k[i] = { name = "k" .. i, start_ns = x[1], duration_ns = x[2], stream = 7, device = 0,
      correlation = x[3] } end
  for i, x in ipairs(R) do r[i] = { name = "cudaLaunchKernel", start_ns = x[1], duration_ns = x[2],
      correlation = x[3] } end
  local p = { source = "hand-made", tables = {
    kernels = T.from_rows(k, { "name", "start_ns", "duration_ns", "stream", "device", "correlation" }),
    runtime = T.from_rows(r, { "name", "start_ns", "duration_ns", "correlation" }) } }
  local m = by_stream(recipes.run("idle-time", { p }, {}).tables.idle)["0:7"]
  lu.assertEquals({ m.ops, m.span_ns, m.busy_ns, m.idle_ns, m.host_wait_ns, m.kernel_wait_ns, m.other_ns },
                  { 5, 110, 29, 81, 5, 1, 75 })
end

-- An nvprof GPU trace names its device ("GeForce GTX 950 (0)"); the reader
-- gives it index 0 (first appearance) in `device`, as Kineto's index, and
-- keeps the name in `device_name`.  Spans and busy times by
-- hand from the CSV's Start (ms) and Duration (us) columns: stream 13 runs
-- 215.481427 ms .. 215.532884 + 7.744 us = 59201 ns, busy 8256 + 7968 +
-- 2016 + 7744 = 25984 ns; stream 14 49441 ns, busy 8192 + 7904 + 1696 + 7744.
function TestIdle:test_nvprof_trace_device_index()
  local p = perflab.load(require("tdata").path("corpus/nvprof/cuda_timeline_gtx950_nvprof_gpu_trace.csv"))
  local k = p:table("kernels")
  lu.assertEquals(k:col("device"):type(), "integer")
  lu.assertEquals(k:col("start_ns"):type(), "integer")
  lu.assertEquals(k:row(1).device, 0)
  lu.assertEquals(k:row(1).device_name, "GeForce GTX 950 (0)")
  local rep = recipes.run("idle-time", { p }, {})
  local m = by_stream(rep.tables.idle)
  local a, b = m["0:13"], m["0:14"]
  lu.assertEquals({ a.ops, a.span_ns, a.busy_ns, a.idle_ns }, { 4, 59201, 25984, 33217 })
  lu.assertEquals({ b.ops, b.span_ns, b.busy_ns, b.idle_ns }, { 4, 49441, 25536, 23905 })
  -- an nvprof GPU trace without the API calls records no launch time: the
  -- whole idle time is "launch time unknown", and no cause is claimed
  -- (issue 28: it used to say "launched in time but waited")
  lu.assertEquals({ a.unknown_ns, a.host_wait_ns, a.kernel_wait_ns, a.other_ns }, { 33217, 0, 0, 0 })
  local f = find(rep, "idle-time.launch_unknown")
  lu.assertStrContains(f.message, "device 0 (GeForce GTX 950 (0)) stream 13 is idle 56.1 %")
  lu.assertStrContains(f.message, "no cause is claimed")
  lu.assertEquals(f.severity, "info")
  lu.assertNil(find(rep, "idle-time.other"))
end

function TestIdle:test_sampled_rank0_default_threshold()
  local rep = recipes.run("idle-time", { perflab.load(SAMPLED) }, {})
  local m = by_stream(rep.tables.idle)
  -- stream: ops, span, busy, host wait, kernel wait, other (timeline_check.py, threshold 30 ns)
  local want = {
    ["0:7"] = { 1052, 1202935000, 202918000, 397917000, 0, 602100000 },
    ["0:23"] = { 126, 1222847000, 7860000, 1214793000, 0, 194000 },
    ["0:25"] = { 16, 661435000, 867000, 560120000, 0, 100448000 },
    ["0:84"] = { 8, 1088108000, 290059000, 794901000, 0, 3148000 },
    ["0:203"] = { 2, 664213000, 106140000, 558073000, 0, 0 },
  }
  lu.assertEquals(rep.tables.idle:nrows(), 5)
  for k, w in pairs(want) do
    local r = m[k]
    lu.assertNotNil(r, k)
    lu.assertEquals({ r.ops, r.span_ns, r.busy_ns, r.host_wait_ns, r.kernel_wait_ns, r.other_ns }, w, k)
    -- the three causes add up to the idle time exactly
    lu.assertEquals(r.host_wait_ns + r.kernel_wait_ns + r.other_ns, r.idle_ns, k)
    lu.assertEquals(r.span_ns - r.busy_ns, r.idle_ns, k)
  end
  -- stream 7 is idle 83.1 % of its span, mostly "other"; stream 23 waits on the host
  local f = find(rep, "idle-time.other")
  lu.assertNotNil(f)
  lu.assertStrContains(f.message, "stream 7")
  lu.assertAlmostEquals(f.evidence.idle_pct, 100 * 1000017000 / 1202935000, 1e-9)
end

function TestIdle:test_kernel_wait_threshold_option()
  -- with --set kernel_wait_ns=5000: stream 7 has 467 us of kernel wait, stream 23 33 us
  local rep = recipes.run("idle-time", { perflab.load(SAMPLED) }, { kernel_wait_ns = 5000 })
  local m = by_stream(rep.tables.idle)
  lu.assertEquals({ m["0:7"].host_wait_ns, m["0:7"].kernel_wait_ns, m["0:7"].other_ns },
      { 397917000, 467000, 601633000 })
  lu.assertEquals({ m["0:23"].host_wait_ns, m["0:23"].kernel_wait_ns, m["0:23"].other_ns },
      { 1214793000, 33000, 161000 })
end

TestLaunch = {}

function TestLaunch:test_sampled_rank0()
  local rep = recipes.run("launch-latency", { perflab.load(SAMPLED) }, {})
  local all
  for _, r in rep.tables.launch_delay:rows() do if r.stream == nil then all = r end end
  lu.assertNotNil(all)
  lu.assertEquals(all.launches, 1154)
  lu.assertAlmostEquals(all.mean_ns, 16615609.185442, 1e-5)
  lu.assertAlmostEquals(all.p50_ns, 10802000, 1e-6)
  lu.assertAlmostEquals(all.p90_ns, 55396300, 1e-6)
  lu.assertAlmostEquals(all.p99_ns, 100279990, 1e-6)
  lu.assertEquals(all.max_ns, 111018000)
  lu.assertEquals(all.outliers, 903)
  local f = find(rep, "launch-latency.short_kernels")
  lu.assertNotNil(f)
  lu.assertEquals(f.evidence.short_launches, 250)
  -- queue maxima per stream
  local q = by_stream(rep.tables.queue_length)
  lu.assertEquals({ q["0:7"].max, q["0:23"].max, q["0:25"].max, q["0:84"].max, q["0:203"].max }, { 80, 5, 8, 2, 1 })
  -- the series never exceeds the stream's maximum and reaches it in some window
  local seen = {}
  for _, r in rep.tables.queue_series:rows() do
    local k = r.device .. ":" .. r.stream
    lu.assertTrue(r.max <= q[k].max)
    if r.max == q[k].max then seen[k] = true end
  end
  for k in pairs(q) do lu.assertTrue(seen[k], k) end
  -- window starts are exact integer nanoseconds, increasing; window 1 of
  -- stream 7 starts at its first launch call (1682725898100575 us in the file)
  local prev
  for _, r in rep.tables.queue_series:rows() do
    lu.assertEquals(math.type(r.start_ns), "integer")
    if r.device == 0 and r.stream == 7 then
      if r.window == 1 then lu.assertEquals(r.start_ns, 1682725898100575000) end
      if prev then lu.assertTrue(r.start_ns > prev) end
      prev = r.start_ns
    end
  end
  -- communication (nccl*) kernels: 396.199 ms, 59.216 ms of it under computation
  local ov = rep.tables.overlap:row(1)
  lu.assertEquals(ov.comm_ns, 396199000)
  lu.assertEquals(ov.overlap_ns, 59216000)
  lu.assertAlmostEquals(ov.overlap_pct, 100 * 59216000 / 396199000, 1e-9)
end

function TestLaunch:test_no_overlap_table_without_communication()
  local rep = recipes.run("launch-latency", { perflab.load(ALEXNET) }, {})
  lu.assertNil(rep.tables.overlap)
  lu.assertEquals(rep.tables.launch_delay:row(-1).launches, 79)
end

-- ---- live comparison with the Python script ------------------------------------

local function python_figures(path, kwait)
  local py = io.open("/usr/bin/python3", "rb")
  if not py then return nil end
  py:close()
  local h = io.popen(string.format("/usr/bin/python3 tools/timeline_check.py %s %d", path, kwait))
  local out = {}
  for line in h:lines() do
    local k, v = line:match("^(%S+) (%S+)$")
    if k then out[k] = tonumber(v) end
  end
  h:close()
  return out
end

TestLive = {}

local function compare_live(path, kwait)
  local py = python_figures(path, kwait)
  if not py then require("tdata").optional_tool("/usr/bin/python3",
      "the live comparison with tools/timeline_check.py") return end
  local p = perflab.load(path)
  local idle = by_stream(recipes.run("idle-time", { p }, { kernel_wait_ns = kwait }).tables.idle)
  local rep = recipes.run("launch-latency", { p }, {})
  local q = by_stream(rep.tables.queue_length)
  local all = rep.tables.launch_delay:row(-1)
  local n = 0
  for k, v in pairs(py) do
    local kind, rest = k:match("^(%a+)%.(.*)$")
    local got
    if kind == "idle" then
      local s, col = rest:match("^(%d+:%-?%d+)%.(.*)$")
      got = idle[s][col]
    elseif kind == "queue" then
      local s = rest:match("^(%d+:%-?%d+)%.max$")
      got = q[s].max
    elseif kind == "launch" then
      if rest == "unmatched" then got = 0
      elseif rest == "short" then
        local f = find(rep, "launch-latency.short_kernels")
        got = f and f.evidence.short_launches or 0
      else
        got = all[({ launches = "launches", mean_ns = "mean_ns", p50_ns = "p50_ns", p90_ns = "p90_ns",
                     p99_ns = "p99_ns", max_ns = "max_ns", outliers = "outliers" })[rest]]
      end
    elseif kind == "overlap" then
      local d, col = rest:match("^(%d+)%.(.*)$")
      for _, r in rep.tables.overlap:rows() do if r.device == tonumber(d) then got = r[col] end end
    end
    lu.assertNotNil(got, k)
    lu.assertAlmostEquals(got, v, 1e-5 * math.max(1, math.abs(v)), k)
    n = n + 1
  end
  lu.assertTrue(n > 10)
end

function TestLive:test_sampled() compare_live(SAMPLED, 30) end
function TestLive:test_sampled_5us() compare_live(SAMPLED, 5000) end
function TestLive:test_alexnet() compare_live(ALEXNET, 30) end

os.exit(lu.LuaUnit.run())

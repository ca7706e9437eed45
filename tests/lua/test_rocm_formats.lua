-- test_rocm_formats.lua -- issue 28's AMD classes: rocpd and KERN SQLite,
-- rocprofv3 JSON, rocprof-compute and hip_api_trace CSV, scientific-notation
-- timestamps, pseudo-kernels, DispatchNs in idle-time, one .kd
-- normalisation, diff of equal totals.  Fixtures: tests/fixtures/rocprof
-- (README there); every expected value is worked out by hand from the
-- fixture text in the comment above its test.
-- Run: build/perflab tests/lua/test_rocm_formats.lua -v
local lu = require "luaunit"
local perflab = require "perflab"

local FIX = "tests/fixtures/rocprof/"

local function find(rep, rule)
  for _, f in ipairs(rep.findings) do if f.rule == rule then return f end end
  return nil
end
local function diag_with(p, text)
  for _, d in ipairs(p.diagnostics or {}) do
    local m = type(d) == "table" and (d.message or d.msg or d[2]) or d
    if tostring(m):find(text, 1, true) then return true end
  end
  return false
end
local function by_name(t, col)
  local m = {}
  for _, r in t:rows() do m[r[col or "name"]] = r end
  return m
end
local function by_stream(t)
  local m = {}
  for _, r in t:rows() do m[r.device .. ":" .. r.stream] = r end
  return m
end

TestRocpd = {}

-- rocpd_small.sql: dispatches vector_add [1000, 11000] and [230000, 240000]
-- (workgroup 256, grid 1048576 work-items -> 4096 workgroups), gemm_tile
-- [20000, 220000] (16x16 workgroups over 1024x1024 -> 64x64; LDS 32768,
-- VGPR 128 + 64 AGPR, SGPR 96) on the MI300X (type_index 0) queue 1.
function TestRocpd:test_kernels()
  local p = perflab.load(FIX .. "rocpd_small.db")
  lu.assertEquals(p.format, "rocpd")
  lu.assertEquals(p.meta.device, "AMD Instinct MI300X")
  lu.assertEquals(p.meta.arch, "gfx942")
  local k = p:table("kernels")
  lu.assertEquals(k:nrows(), 3)
  lu.assertEquals(k:col("duration_ns"):sum(), 10000 + 200000 + 10000)
  local g = k:row(2)
  lu.assertEquals(g.name, "gemm_tile(float const*, float const*, float*, int)")
  lu.assertEquals(g.short_name, "gemm_tile")
  lu.assertEquals({ g.start_ns, g.end_ns, g.device, g.stream, g.correlation, g.pid, g.tid },
                  { 20000, 220000, 0, 1, 2, 4242, 4243 })
  lu.assertEquals({ g.grid_x, g.grid_y, g.grid_z, g.block_x, g.block_y, g.block_z }, { 64, 64, 1, 16, 16, 1 })
  lu.assertEquals({ g.arch_vgpr, g.accum_vgpr, g.sgpr, g.registers, g.smem_static_bytes }, { 128, 64, 96, 128, 32768 })
  local v = k:row(1)
  lu.assertEquals({ v.short_name, v.grid_x, v.block_x, v.arch_vgpr, v.sgpr }, { "vector_add", 4096, 256, 8, 16 })
  local s = by_name(p:table("kernel_summary"), "short_name")
  lu.assertEquals({ s.vector_add.calls, s.vector_add.total_ns }, { 2, 20000 })
  lu.assertEquals({ s.gemm_tile.calls, s.gemm_tile.total_ns }, { 1, 200000 })
end

-- regions: three hipLaunchKernel (corr 1-3) and a hipMemcpyAsync (corr 4);
-- the roctx range is a marker, not an API call.  The copy: 4 MiB host to
-- device [450, 950] on the GPU.
function TestRocpd:test_runtime_and_copies()
  local p = perflab.load(FIX .. "rocpd_small.db")
  local rt = p:table("runtime")
  lu.assertEquals(rt:nrows(), 4)
  local names = {}
  for _, r in rt:rows() do names[#names + 1] = r.name end
  lu.assertEquals(names, { "hipMemcpyAsync", "hipLaunchKernel", "hipLaunchKernel", "hipLaunchKernel" })
  lu.assertEquals(rt:row(1).cat, "HIP_RUNTIME_API")
  lu.assertEquals(rt:col("duration_ns"):sum(), 300 + 400 + 50 + 1000)
  local m = p:table("memcpy"):row(1)
  lu.assertEquals({ m.kind, m.bytes, m.start_ns, m.end_ns, m.device, m.correlation, m.src_kind, m.dst_kind },
                  { "HtoD", 4194304, 450, 950, 0, 4, "CPU", "GPU" })
  lu.assertTrue(diag_with(p, "1 marker (roctx) ranges"))
end

-- idle-time on queue 1: the gap before gemm_tile (11000 -> 20000, 9000 ns)
-- follows a launch at 950, before the stream drained: other; the gap
-- before the second vector_add (220000 -> 230000) follows a launch at
-- 225000, after: host wait 10000.
function TestRocpd:test_idle_time()
  local rep = perflab.run("idle-time", { FIX .. "rocpd_small.db" })
  local r = by_stream(rep.tables.idle)["0:1"]
  lu.assertEquals({ r.ops, r.span_ns, r.busy_ns, r.host_wait_ns, r.kernel_wait_ns, r.other_ns, r.unknown_ns },
                  { 3, 239000, 220000, 10000, 0, 9000, 0 })
end

-- kern_small.sql (rocprof v1 KERN table): fillBufferAligned [1100, 1600],
-- mmq_kernel [1700, 5700] dispatched at 1200, [9100, 13100] dispatched at
-- 9000.  Gaps: 100 ns (dispatched before the end at 1600: other), 3400 ns
-- (dispatched at 9000 after the end at 5700: host wait).  grd 65536 / wgr
-- 128 = 512 workgroups.
function TestRocpd:test_kern_table()
  local p = perflab.load(FIX .. "kern_small.db")
  lu.assertEquals(p.format, "rocpd")
  local k = p:table("kernels")
  lu.assertEquals(k:nrows(), 3)
  local m = k:row(2)
  lu.assertEquals({ m.short_name, m.grid_x, m.block_x, m.arch_vgpr, m.sgpr, m.smem_static_bytes, m.wave_size,
      m.launch_ns },
                  { "mmq_kernel", 512, 128, 96, 48, 16384, 32, 1200 })
  lu.assertEquals(k:row(1).short_name, "__amd_rocclr_fillBufferAligned")
  local rep = perflab.run("idle-time", { p })
  local r = by_stream(rep.tables.idle)["2:0"]
  lu.assertEquals({ r.span_ns, r.busy_ns, r.idle_ns, r.host_wait_ns, r.other_ns, r.unknown_ns },
      { 12000, 8500, 3500, 3400, 100, 0 })
  lu.assertNotNil(find(rep, "idle-time.host_wait"))
end

-- the nsys reader is no longer what names a rocprof database
function TestRocpd:test_detection()
  for _, f in ipairs({ "rocpd_small.db", "kern_small.db" }) do
    local ok, err = pcall(perflab.load, FIX .. f, { format = "nsys-sqlite" })
    -- read through nsys-sqlite by force, it hands the file over
    lu.assertTrue(ok, tostring(err))
    lu.assertEquals(err.format, "rocpd")
  end
end

TestRocprofv3Json = {}

-- rocprofv3_small.json: rmsnorm (kernel_id 7) [5000, 8000] and [9000,
-- 12000], initHeap (1) [1000, 1500] on the MI350X (handle 200, logical
-- type id 0), queue 16.  Launches (hipLaunchKernel, same correlation):
-- 400, 4000, 10000.  Gaps: 1500 -> 5000 launched at 4000 (> 1500): host
-- wait 3500; 8000 -> 9000 launched at 10000: host wait 1000.
function TestRocprofv3Json:test_tables()
  local p = perflab.load(FIX .. "rocprofv3_small.json")
  lu.assertEquals(p.format, "rocprofv3-json")
  lu.assertEquals(p.meta.device, "AMD Instinct MI350X")
  local k = p:table("kernels")
  lu.assertEquals(k:nrows(), 3)
  local first = k:row(1)   -- sorted by start
  lu.assertEquals({ first.short_name, first.start_ns, first.grid_x, first.block_x, first.correlation },
                  { "__amd_rocclr_initHeap", 1000, 1, 64, 10 })
  local r = k:row(2)
  lu.assertEquals(r.name, "void rmsnorm<256>(float*, float const*, int)")
  lu.assertEquals({ r.short_name, r.device, r.stream, r.tid, r.grid_x, r.block_x },
                  { "rmsnorm", 0, 16, 5151, 256, 256 })
  lu.assertEquals({ r.arch_vgpr, r.accum_vgpr, r.sgpr, r.registers, r.smem_static_bytes, r.scratch_bytes },
                  { 40, 4, 24, 40, 1024, 16 })
  local s = by_name(p:table("kernel_summary"), "short_name")
  lu.assertEquals({ s.rmsnorm.calls, s.rmsnorm.total_ns }, { 2, 6000 })
  local rt = p:table("runtime")
  lu.assertEquals(rt:nrows(), 4)
  lu.assertEquals(by_name(rt).hipMemcpyAsync.correlation, 13)
  lu.assertEquals(rt:row(1).cat, "HIP_RUNTIME_API")
  local m = p:table("memcpy"):row(1)
  lu.assertEquals({ m.name, m.kind, m.bytes, m.device, m.duration_ns },
      { "MEMORY_COPY_HOST_TO_DEVICE", "HtoD", 1048576, 0, 1000 })
end

function TestRocprofv3Json:test_timeline_recipes()
  local rep = perflab.run("idle-time", { FIX .. "rocprofv3_small.json" })
  local r = by_stream(rep.tables.idle)["0:16"]
  lu.assertEquals({ r.ops, r.busy_ns, r.host_wait_ns, r.other_ns, r.unknown_ns }, { 3, 6500, 4500, 0, 0 })
  -- the other timeline recipes run on it
  for _, name in ipairs({ "launch-latency", "top-kernels", "occupancy" }) do
    local ok, e = pcall(perflab.run, name, { FIX .. "rocprofv3_small.json" })
    lu.assertTrue(ok, name .. ": " .. tostring(e))
  end
end

TestRocprofCsv = {}

-- compute_timestamps.csv (rocprof-compute timestamps.csv): three dispatches;
-- stream_triad 200000 -> 450000 (250000 ns), 1048576 / 256 = 4096
-- workgroups, Arch_VGPR 24; DispatchNs kept as launch_ns.
function TestRocprofCsv:test_compute_timestamps()
  local p = perflab.load(FIX .. "compute_timestamps.csv")
  lu.assertEquals(p.meta.tool, "rocprof-compute")
  local k = p:table("kernels")
  lu.assertEquals(k:nrows(), 3)
  local r = k:row(2)
  lu.assertEquals({ r.short_name, r.duration_ns, r.grid_x, r.block_x, r.registers, r.launch_ns, r.device },
                  { "stream_triad", 250000, 4096, 256, 24, 9000000110000, 2 })
  lu.assertEquals(k:col("duration_ns"):sum(), 6400 + 250000 + 12000)
  local rep = perflab.run("top-kernels", { p })
  lu.assertEquals(rep.tables.top_kernels:row(1).kernel,
      "stream_triad(double*, double const*, double const*, double) [clone .kd]")
end

-- compute_pmc_perf.csv: counters between the dispatch columns and the times
function TestRocprofCsv:test_compute_pmc_perf()
  local k = perflab.load(FIX .. "compute_pmc_perf.csv"):table("kernels")
  lu.assertEquals(k:nrows(), 2)
  lu.assertEquals(k:row(1).short_name, "vecCopy")
  lu.assertEquals(k:col("duration_ns"):sum(), 40000 + 39000)
  lu.assertEquals(k:row(2)["TCC_MISS[0]"], 50993)
end

-- 8.1097E+14 start and end: no times at all, and a diagnostic says why
function TestRocprofCsv:test_scientific_notation()
  local p = perflab.load(FIX .. "compute_timestamps_sci.csv")
  local k = p:table("kernels")
  lu.assertEquals(k:nrows(), 2)
  lu.assertEquals(k:col("start_ns"):count(), 0)
  lu.assertFalse(k:has("duration_ns"))
  lu.assertNil(p.tables.kernel_summary)
  lu.assertTrue(diag_with(p, "scientific notation"))
  lu.assertTrue(diag_with(p, "2 of 2 dispatches have start == end"))
end

-- hip_api_trace.csv with the blank second line rocprofv2 writes
function TestRocprofCsv:test_hip_api_trace_blank_line()
  local rt = perflab.load(FIX .. "hip_api_trace_blank_line.csv"):table("runtime")
  lu.assertEquals(rt:nrows(), 3)
  lu.assertEquals(rt:row(2).name, "hipMalloc")
  lu.assertEquals(rt:col("duration_ns"):sum(), 300 + 900 + 50)
  lu.assertEquals(rt:row(3).correlation, 3)
end

-- a header longer than the 64 KiB sniffing window (3000 counter columns)
function TestRocprofCsv:test_long_header()
  local cols, vals = { "Dispatch_ID", "GPU_ID", "Grid_Size", "Workgroup_Size", "Kernel_Name" },
      { "0", "2", "1024", "64", "k1.kd" }
  for i = 1, 3000 do cols[#cols + 1] = string.format("SQ_COUNTER_WITH_A_LONG_NAME_%04d[0]",
      i); vals[#vals + 1] = tostring(i) end
  cols[#cols + 1] = "SQ_COUNTER_WITH_A_LONG_NAME_0001[0]"; vals[#vals + 1] = "7"   -- a repeated name: _2
  local text = table.concat(cols, ",") .. "\n" .. table.concat(vals, ",") .. "\n"
  lu.assertTrue(#table.concat(cols, ",") > 65536)
  local path = os.tmpname()
  local f = assert(io.open(path, "wb")); f:write(text); f:close()
  local ok, p = pcall(perflab.load, path)
  os.remove(path)
  lu.assertTrue(ok, tostring(p))
  lu.assertEquals(p.format, "rocprof")
  local k = p:table("kernels")
  lu.assertEquals({ k:row(1).short_name, k:row(1).grid_x, k:row(1)["SQ_COUNTER_WITH_A_LONG_NAME_3000[0]"] },
      { "k1", 16, 3000 })
  lu.assertEquals({ k:row(1)["SQ_COUNTER_WITH_A_LONG_NAME_0001[0]"],
      k:row(1)["SQ_COUNTER_WITH_A_LONG_NAME_0001[0]_2"] }, { 1, 7 })
end

-- stats_barrier_packet.csv: "<barrier packet>" 300 calls, 6 ms; kernels
-- 8 ms + 2 ms = 10 ms.  The packets are outside kernel time and the
-- ranking: gemm_tile is 80 % of the 10 ms, and the packets' own line says
-- 6 ms, 60 % on top of the kernel time.
function TestRocprofCsv:test_pseudo_kernels()
  local rep = perflab.run("top-kernels", { FIX .. "stats_barrier_packet.csv" })
  local t = rep.tables.top_kernels
  lu.assertEquals(t:nrows(), 2)
  lu.assertEquals(t:row(1).kernel, "gemm_tile(float const*, float const*, float*, int)")
  lu.assertAlmostEquals(t:row(1).share_pct, 80, 1e-9)
  lu.assertEquals(t:col("total_ns"):sum(), 10e6)
  local pk = rep.tables.pseudo_kernels
  lu.assertEquals({ pk:row(1).name, pk:row(1).calls, pk:row(1).total_ns }, { "<barrier packet>", 300, 6e6 })
  -- the profile: shares recomputed without the packets (37.5/50/12.5 in the file)
  local p = perflab.load(FIX .. "stats_barrier_packet.csv")
  local s = by_name(p:table("kernel_summary"), "short_name")
  lu.assertAlmostEquals(s.gemm_tile.share_pct, 80, 1e-9)
  lu.assertAlmostEquals(s.ncclDevKernel_Generic.share_pct, 20, 1e-9)
  lu.assertTrue(diag_with(p, "they account for 6000000 ns"))
end

TestKdNames = {}

-- kd_pair_results.csv (rocprof per-dispatch CSV) and kd_pair_trace.json
-- (rocprof --hip-trace Chrome JSON) hold the same two dispatches of
-- vector_add_f32.kd (55555 + 44445 ns): one short name, and diff finds
-- nothing added or removed and no regression.
function TestKdNames:test_one_name_two_readers()
  local a = perflab.load(FIX .. "kd_pair_results.csv"):table("kernels")
  local b = perflab.load(FIX .. "kd_pair_trace.json"):table("kernels")
  lu.assertEquals(a:row(1).short_name, "vector_add_f32")
  lu.assertEquals(b:row(1).short_name, "vector_add_f32")
  local rep = perflab.run("diff", { FIX .. "kd_pair_results.csv", FIX .. "kd_pair_trace.json" })
  local d = rep.tables.diff
  lu.assertEquals(d:nrows(), 1)
  lu.assertEquals({ d:row(1).total_ns_a, d:row(1).total_ns_b, d:row(1).status }, { 100000, 100000, "same" })
  lu.assertNil(find(rep, "diff.regression"))
  lu.assertNil(find(rep, "diff.added_removed"))
  lu.assertNotNil(find(rep, "diff.same_total"))
end

-- equal totals with kernels moved between names: no "regression"
function TestKdNames:test_equal_totals_no_regression()
  local T = perflab.table
  local function prof(rows)
    return { source = "hand", tables = { kernel_summary = T.from_rows(rows, { "name", "calls", "total_ns" }) } }
  end
  local rep = perflab.run("diff", { prof({ { name = "a", calls = 1, total_ns = 100 },
      { name = "b", calls = 1, total_ns = 300 } }),
                                    prof({ { name = "a", calls = 1, total_ns = 300 },
                                        { name = "b", calls = 1, total_ns = 100 } }) })
  lu.assertNil(find(rep, "diff.regression"))
  lu.assertStrContains(find(rep, "diff.same_total").message, "no regression")
end

os.exit(lu.LuaUnit.run())

-- test_rocprof_counters.lua -- rocprofv3's counter collection CSV
-- (`rocprofv3 --pmc ... --output-format csv`, counter_collection.csv, one
-- row per dispatch and counter): kernels one row per dispatch, the
-- standard metrics table long, the launch shape for the occupancy recipe.
-- Fixtures: tests/fixtures/rocprof (README there); every expected value is
-- worked out by hand from the fixture text in the comment above its test.
-- Run: build/perflab tests/lua/test_rocprof_counters.lua -v
local lu = require "luaunit"
local perflab = require "perflab"

local FIX = "tests/fixtures/rocprof/"

TestRocprofCounters = {}

-- counter_collection.csv: 6 rows, counters SQ_WAVES then GRBM_GUI_ACTIVE,
-- dispatches in the order 1, 2, 3 (first rows on lines 2, 3, 4).
-- Dispatch 2 gemm_tile: Grid_Size 1048576 work-items / Workgroup_Size
-- 256 -> 4096 workgroups, LDS 32768, VGPR 128, SGPR 96, queue 1.
function TestRocprofCounters:test_kernels()
  local p = perflab.load(FIX .. "counter_collection.csv")
  lu.assertEquals(p.format, "rocprof")
  lu.assertEquals(p.meta.rocprof_file, "counter_collection")
  local k = p:table("kernels")
  lu.assertEquals(k:nrows(), 3)
  lu.assertEquals(k:col("dispatch_id"):to_lua(), { 1, 2, 3 })
  lu.assertEquals(k:col("id"):to_lua(), { 0, 1, 2 })
  lu.assertEquals(k:col("line"):to_lua(), { 2, 3, 4 })
  lu.assertEquals(k:col("stream"):to_lua(), { 1, 1, 2 })
  local g = k:row(2)
  lu.assertEquals(g.name, "gemm_tile(float const*, float const*, float*, int)")
  lu.assertEquals(g.short_name, "gemm_tile")
  lu.assertEquals({ g.device, g.correlation, g.pid, g.tid }, { 1, 2, 4242, 4242 })
  lu.assertEquals({ g.grid_items_x, g.block_x, g.grid_x }, { 1048576, 256, 4096 })
  lu.assertEquals({ g.smem_static_bytes, g.scratch_bytes, g.registers, g.SGPR_Count }, { 32768, 0, 128, 96 })
  lu.assertEquals(k:row(1).short_name, "vector_add")
  -- untimed: no durations, no kernel_summary
  lu.assertFalse(k:has("duration_ns"))
  lu.assertNil(p.tables.kernel_summary)
end

-- the metrics: one row per input row, kernel_id the dispatch's kernels.id
-- (line 5 is dispatch 1's GRBM_GUI_ACTIVE 20000, line 6 dispatch 3's
-- 21000, line 7 dispatch 2's 300000); SQ_WAVES 16384 on each.
function TestRocprofCounters:test_metrics()
  local p = perflab.load(FIX .. "counter_collection.csv")
  local m = p:table("metrics")
  lu.assertEquals(m:nrows(), 6)
  lu.assertEquals(m:col("kernel_id"):to_lua(), { 0, 1, 2, 0, 2, 1 })
  lu.assertEquals(m:col("line"):to_lua(), { 2, 3, 4, 5, 6, 7 })
  lu.assertEquals(m:col("metric"):to_lua()[4], "GRBM_GUI_ACTIVE")
  lu.assertEquals(m:col("value"):to_lua(), { 16384, 16384, 16384, 20000, 21000, 300000 })
  lu.assertEquals(m:types().value, "number")
  local w = m:pivot { index = "kernel_id", columns = "metric", values = "value", agg = "first" }
  lu.assertEquals(w:col("GRBM_GUI_ACTIVE"):to_lua(), { 20000, 300000, 21000 })
end

-- counter_collection_timed.csv (newer columns): dispatches 4 and 5 of
-- reduce_rows, [5000000, 5030000] and [5100000, 5125000] -> 30000 + 25000
-- ns; Grid_Size 65536 / 128 -> 512 workgroups; registers from
-- Arch_VGPR_Count 60 (not VGPR_Count 64); a fractional counter 123000.5.
function TestRocprofCounters:test_timed_newer_columns()
  local p = perflab.load(FIX .. "counter_collection_timed.csv")
  local k = p:table("kernels")
  lu.assertEquals(k:nrows(), 2)
  lu.assertEquals(k:col("duration_ns"):to_lua(), { 30000, 25000 })
  lu.assertEquals({ k:row(1).grid_x, k:row(1).registers, k:row(1).Accum_VGPR_Count }, { 512, 60, 32 })
  local s = p:table("kernel_summary")
  lu.assertEquals({ s:row(1).calls, s:row(1).total_ns }, { 2, 55000 })
  local m = p:table("metrics")
  lu.assertEquals(m:col("kernel_id"):to_lua(), { 0, 0, 1, 1 })
  lu.assertEquals(m:col("value"):to_lua()[4], 123000.5)
end

-- the occupancy recipe on the launch shape, gfx942 (--gpu mi300x):
-- gemm_tile VGPR 128 -> 512/128 = 4 waves; SGPR 96 -> 800/96 = 8; LDS
-- 32768 -> 65536/32768 = 2 workgroups x 4 waves / 4 SIMDs = 2: 2 of 8
-- waves per SIMD, 25 %, limited by LDS.  vector_add: 8 of 8.
function TestRocprofCounters:test_occupancy()
  local p = perflab.load(FIX .. "counter_collection.csv")
  local rep = perflab.run("occupancy", { p }, { gpu = "mi300x" })
  local t = rep.tables.amd_occupancy
  lu.assertEquals(t:nrows(), 2)
  local r = t:row(2)
  lu.assertEquals({ r.kernel, r.waves_per_simd, r.occupancy_pct, r.limiter }, { "gemm_tile", 2, 25, "LDS" })
  lu.assertEquals(t:row(1).waves_per_simd, 8)
  local found
  for _, f in ipairs(rep.findings) do if f.rule == "occupancy.amd_limiter" then found = f end end
  lu.assertNotNil(found)
  lu.assertEquals(found.subject, "gemm_tile")
end

-- a counter value that is not a number: an error naming line 3, column 16
function TestRocprofCounters:test_bad_value()
  local ok, err = pcall(perflab.load, FIX .. "bad/counter_collection_text_value.csv")
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "counter_collection_text_value.csv:3:16")
  lu.assertStrContains(tostring(err), "expected a number in Counter_Value, found 'n/a'")
end

os.exit(lu.LuaUnit.run())

-- tests/lua/test_gpu_recipes.lua -- the occupancy, launch and roofline recipes
-- on synthetic profiles that use the kernels columns of the ncu-text /
-- ncu-csv / kineto parsers (so the recipes are tested before those parsers
-- land), plus seed 000 (kernel-table) for the roofline's utilisation mode.
-- Needs the host (perflab.table):  build/perflab tests/lua/test_gpu_recipes.lua

package.path = "lua/?.lua;" .. package.path
package.path = package.path .. ";/usr/share/lua/5.4/?.lua"
local lu = require("luaunit")

local ok_pl, perflab = pcall(require, "perflab")
if not ok_pl or not perflab.table then
  print("skipped (needs the perflab host: build/perflab tests/lua/test_gpu_recipes.lua)")
  os.exit(0)
end
local Profile = require("perflab.profile").Profile
local T = perflab.table

local function profile(rows, cols, meta, extra)
  local tables = { kernels = T.from_rows(rows, cols) }
  for k, v in pairs(extra or {}) do tables[k] = v end
  return setmetatable({ format = "synthetic", source = "synthetic", meta = meta or {},
    tables = tables, table_order = { "kernels" }, diagnostics = {} }, Profile)
end

local function findings(rep, rule)
  local out = {}
  for _, f in ipairs(rep.findings) do if f.rule == rule then out[#out + 1] = f end end
  return out
end

-- seed 003 as the ncu-text parser reports it: 21 launches of one cutlass
-- kernel, grid 8, block 128, 254 registers, 98,304 B dynamic + 1 KB driver,
-- 102.40 KB configuration, Waves Per SM 0.29, no CC and no device printed.
local NCU_COLS = { "name", "grid_size", "block_size", "registers", "smem_static_bytes",
  "smem_dynamic_bytes", "smem_driver_bytes", "smem_config_bytes", "waves_per_sm", "block_limit_sm",
  "block_limit_registers", "block_limit_smem", "block_limit_warps", "theoretical_occupancy_pct",
  "achieved_occupancy_pct", "duration_ns" }
local function seed003_like()
  local rows = {}
  for i = 1, 21 do
    rows[i] = { name = "cutlass::Kernel", grid_size = 8, block_size = 128, registers = 254,
      smem_static_bytes = 0, smem_dynamic_bytes = 98304, smem_driver_bytes = 1024,
      smem_config_bytes = 102400, waves_per_sm = 0.29, block_limit_sm = 16, block_limit_registers = 2,
      block_limit_smem = 1, block_limit_warps = 12, theoretical_occupancy_pct = 8.33,
      achieved_occupancy_pct = 8.33, duration_ns = 1000 + i }
  end
  return profile(rows, NCU_COLS)
end

TestOccupancyRecipe = {}

function TestOccupancyRecipe:test_seed003_like()
  local rep = perflab.run("occupancy", { seed003_like() })
  local t = rep.tables.occupancy
  lu.assertEquals(t:nrows(), 21)
  local r = t:row(1)
  lu.assertEquals(r.cc, "8.6")                  -- inferred from the printed limits
  lu.assertEquals(r.block_limit_smem, 1)
  lu.assertEquals(r.block_limit_registers, 2)
  lu.assertEquals(r.theoretical_occupancy_pct, 8.33)
  lu.assertEquals(r.reported_occupancy_pct, 8.33)
  lu.assertEquals(r.limiter, "shared memory")
  lu.assertEquals(r.smem_config_bytes, 102400)
  local f = findings(rep, "occupancy.limiter")
  lu.assertEquals(#f, 1)                        -- one finding for 21 identical launches
  lu.assertStrContains(f[1].message, "limited by shared memory")
  lu.assertStrContains(f[1].message, "at <= 50176 bytes of shared memory per block")
  lu.assertEquals(f[1].evidence.launches, 21)
  lu.assertAlmostEquals(f[1].speedup_pct, 100 - 100 * 4 / 48, 1e-9)
  lu.assertEquals(#findings(rep, "occupancy.mismatch"), 0)
  lu.assertEquals(#findings(rep, "occupancy.achieved_gap"), 0)   -- 8.33 achieved = theoretical
end

function TestOccupancyRecipe:test_achieved_gap_and_kineto_estimate()
  -- gpumode A100 distribution kernel: T 75 %, A 58.78 % -> gap 16.22 > 10
  local p = profile({ { name = "dist", cc = "8.0", block_size = 256, registers = 38, smem_static_bytes = 0,
      smem_dynamic_bytes = 0, smem_driver_bytes = 1024, smem_config_bytes = 32768,
      theoretical_occupancy_pct = 75, achieved_occupancy_pct = 58.78, duration_ns = 10 } },
    { "name", "cc", "block_size", "registers", "smem_static_bytes", "smem_dynamic_bytes",
      "smem_driver_bytes", "smem_config_bytes", "theoretical_occupancy_pct", "achieved_occupancy_pct", "duration_ns" })
  local rep = perflab.run("occupancy", { p })
  local g = findings(rep, "occupancy.achieved_gap")
  lu.assertEquals(#g, 1)
  lu.assertAlmostEquals(g[1].speedup_pct, (75 - 58.78) / 75 * 100, 1e-9)
  lu.assertEquals(#findings(rep, "occupancy.limiter"), 1)   -- 75 < 80
  -- Kineto-style rows: grid/block xyz, "shared memory" as static, est. occupancy;
  -- device from the input's meta (A100, 108 SMs, CC 8.0)
  local k = profile({
      { name = "k1", grid_x = 864, grid_y = 1, grid_z = 1, block_x = 256, block_y = 1, block_z = 1,
        registers = 47, smem_static_bytes = 0, smem_dynamic_bytes = 0, est_achieved_occupancy_pct = 63 },
      { name = "k2", grid_x = 256, grid_y = 1, grid_z = 1, block_x = 256, block_y = 1, block_z = 1,
        registers = 47, smem_static_bytes = 0, smem_dynamic_bytes = 0, est_achieved_occupancy_pct = 30 } },
    { "name", "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "registers",
      "smem_static_bytes", "smem_dynamic_bytes", "est_achieved_occupancy_pct" },
    { device = "NVIDIA A100-PG509-200", cc = "8.0", sm_count = 108 })
  rep = perflab.run("occupancy", { k })
  local t = rep.tables.occupancy
  lu.assertEquals(t:row(1).est_achieved_occupancy_pct, 63)
  lu.assertEquals(t:row(2).est_achieved_occupancy_pct, 30)
  lu.assertEquals(t:row(1).reported_occupancy_pct, 63)
  lu.assertEquals(t:row(1).theoretical_occupancy_pct, 62.5)   -- 5 blocks x 8 warps / 64
  lu.assertEquals(#findings(rep, "occupancy.mismatch"), 0)
  lu.assertTrue(#rep.notes > 0)                               -- the config-size assumption
end

function TestOccupancyRecipe:test_no_cc_names_choices()
  local p = profile({ { name = "x", block_size = 128, registers = 32 } }, { "name", "block_size", "registers" })
  local rep = perflab.run("occupancy", { p })
  lu.assertEquals(rep.tables.occupancy:nrows(), 0)
  lu.assertStrContains(table.concat(rep.notes, "\n"), "--gpu NAME")
  rep = perflab.run("occupancy", { p }, { gpu = "h100-sxm" })
  lu.assertEquals(rep.tables.occupancy:nrows(), 1)
  lu.assertEquals(rep.tables.occupancy:row(1).cc, "9.0")
end

TestLaunchRecipe = {}

function TestLaunchRecipe:test_seed003_like_small_grid_once()
  local rep = perflab.run("launch", { seed003_like() })
  local f = findings(rep, "launch.small_grid")
  lu.assertEquals(#f, 1)                        -- one finding listing the 21 launches
  lu.assertStrContains(f[1].message, "8 blocks on 28 SMs")
  lu.assertStrContains(f[1].message, "21 launches")
  lu.assertAlmostEquals(f[1].speedup_pct, 20 / 28 * 100, 1e-9)
  local t = rep.tables.launch
  lu.assertEquals(t:nrows(), 21)
  lu.assertEquals(t:row(1).sm_count, 28)        -- from Waves Per SM 0.29 = 8 / (28 x 1)
  lu.assertStrContains(table.concat(rep.notes, "\n"), "Waves Per SM")
  lu.assertEquals(#findings(rep, "launch.tail_effect"), 0)   -- less than one wave
end

function TestLaunchRecipe:test_block_size_and_tail()
  -- 864 blocks of 256, 38 regs on an A100 (108 SMs): 6 blocks/SM -> 1.33 waves, tail 50 %;
  -- "odd": 48 threads, 32 blocks/SM: 34560 = 108 x 32 x 10 -> exactly 10 waves, no tail
  local p = profile({
      { name = "dist", cc = "8.0", grid_size = 864, block_size = 256, registers = 38, smem_config_bytes = 32768,
        smem_driver_bytes = 1024, sm_count = 108 },
      { name = "odd", cc = "8.0", grid_size = 34560, block_size = 48, registers = 16, smem_config_bytes = 32768,
        smem_driver_bytes = 1024, sm_count = 108 } },
    { "name", "cc", "grid_size", "block_size", "registers", "smem_config_bytes", "smem_driver_bytes", "sm_count" })
  local rep = perflab.run("launch", { p })
  local tail = findings(rep, "launch.tail_effect")
  lu.assertEquals(#tail, 1)
  lu.assertEquals(tail[1].subject, "dist")
  lu.assertAlmostEquals(tail[1].speedup_pct, 50, 1e-9)
  lu.assertAlmostEquals(rep.tables.launch:row(1).waves_per_sm, 864 / 648, 1e-9)
  local bs = findings(rep, "launch.block_size")
  lu.assertEquals(#bs, 1)
  lu.assertAlmostEquals(bs[1].speedup_pct, 25, 1e-9)
end

TestRooflineRecipe = {}

function TestRooflineRecipe:test_flops_bytes_and_svg()
  -- on an A100 80GB: fp32 peak 19.5 TFLOP/s, 2039 GB/s
  -- k_mem: 1e9 FLOP, 4e9 B in 4 ms: AI 0.25, 0.25 TFLOP/s, 1 TB/s;
  --        attainable 0.25 x 2.039e12 = 509.75 GFLOP/s -> efficiency 49.04 %
  -- k_bad: 1e12 FLOP, 1e9 B in 1 ms = 1000 TFLOP/s: above the roof
  local p = profile({
      { name = "k_mem", flops = 1e9, dram_bytes = 4e9, duration_ns = 4e6 },
      { name = "k_bad", flops = 1e12, dram_bytes = 1e9, duration_ns = 1e6 },
      { name = "k_sol", compute_throughput_pct = 85, memory_throughput_pct = 30, duration_ns = 5e6 } },
    { "name", "flops", "dram_bytes", "duration_ns", "compute_throughput_pct", "memory_throughput_pct" },
    { device = "NVIDIA A100-SXM4-80GB" })
  local rep = perflab.run("roofline", { p })
  local t = rep.tables.roofline
  local by = {}
  for _, r in t:rows() do by[r.kernel] = r end
  lu.assertAlmostEquals(by.k_mem.arithmetic_intensity, 0.25, 1e-12)
  lu.assertAlmostEquals(by.k_mem.attainable_flops_per_s, 0.25 * 2039e9, 1)
  lu.assertAlmostEquals(by.k_mem.efficiency_pct, 100 * 0.25e12 / (0.25 * 2039e9), 1e-6)
  lu.assertEquals(by.k_mem.bound, "latency-bound")      -- 1.3 % compute, 49 % memory: both < 60
  lu.assertEquals(by.k_sol.bound, "compute-bound")      -- 85 >= 80
  lu.assertEquals(by.k_sol.time_share_pct, 50)
  lu.assertEquals(#findings(rep, "roofline.above_roof"), 1)
  local svg = rep.figures["roofline.svg"].svg
  lu.assertStrContains(svg, "<svg")
  lu.assertStrContains(svg, "Arithmetic intensity (FLOP/byte)")
  lu.assertStrContains(svg, "Performance (FLOP/s)")
  lu.assertStrContains(svg, "<title>k_mem: 0.25 FLOP/byte")
  lu.assertStrContains(svg, "FP32 ridge point")
  -- well-formed XML, checked by an external parser when one is installed
  local path = os.tmpname()
  local f = assert(io.open(path, "w")); f:write(svg); f:close()
  local okx = os.execute("command -v xmllint >/dev/null 2>&1")
  if okx then lu.assertTrue(os.execute("xmllint --noout " .. path)) end
  local okr = os.execute("command -v rsvg-convert >/dev/null 2>&1")
  if okr then
    lu.assertTrue(os.execute("rsvg-convert -o " .. path .. ".png " .. path))
    local png = io.open(path .. ".png", "rb")
    lu.assertEquals(png:read(4), "\137PNG")
    png:close()
    os.remove(path .. ".png")
  else
    print("rsvg-convert not installed: render check skipped")
  end
  os.remove(path)
end

function TestRooflineRecipe:test_seed000_utilisation()
  local shared = os.getenv("PERFLAB_SHARED") or "../shared"
  local path = shared .. "/seeds/000_86950a828dffa530.txt"
  local fh = io.open(path)
  if not fh then print("skipped (no seed 000)"); return end
  fh:close()
  local rep = perflab.run("roofline", { path })
  local t = rep.tables.roofline
  lu.assertEquals(t:nrows(), 83)
  -- time shares add up to 100
  local s = 0
  for _, r in t:rows() do s = s + (r.time_share_pct or 0) end
  lu.assertAlmostEquals(s, 100, 0.1)
  local f = findings(rep, "roofline.time_by_bound")
  lu.assertEquals(#f, 1)
  lu.assertStrContains(f[1].message, "latency-bound")
end

os.exit(lu.LuaUnit.run())

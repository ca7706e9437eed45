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
  io.stderr:write("FAIL: needs the perflab host: build/perflab tests/lua/test_gpu_recipes.lua\n")
  os.exit(1)
end
local tdata = require("tdata")
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

local corpus_file = tdata.path   -- a missing file fails, naming it

TestOccupancyRecipe = {}

-- seed 003 itself: tests/lua/test_oracles.lua (TestSeed003)

function TestOccupancyRecipe:test_achieved_gap_real_ncu()
  -- gpumode A100 log, first launch (distribution_elementwise_grid_stride_kernel):
  -- ncu printed Theoretical 75 %, Achieved 58.78 % -> gap 16.22 > 10 points
  local path = corpus_file("corpus/ncu_text/gpumode_lecture001_ncu_logs_cc80.txt")
  local rep = perflab.run("occupancy", { path })
  local g
  for _, f in ipairs(findings(rep, "occupancy.achieved_gap")) do
    if f.subject == "distribution_elementwise_grid_stride_kernel" then g = f end
  end
  lu.assertNotNil(g)
  lu.assertAlmostEquals(g.speedup_pct, (75 - 58.78) / 75 * 100, 1e-9)
  local lim = findings(rep, "occupancy.limiter")
  lu.assertEquals(#lim, 1)                                  -- only 75 % < 80 %
  lu.assertStrContains(lim[1].message, "at <= 32 registers per thread, 8 blocks fit per SM: 100 %")
  local r = rep.tables.occupancy:row(1)
  lu.assertEquals(r.achieved_occupancy_pct, 58.78)
  lu.assertEquals(r.reported_occupancy_pct, 75)
  lu.assertEquals(r.cc, "8.0")                              -- printed on the kernel line
end

function TestOccupancyRecipe:test_kineto_trace()
  -- hta_a100_alexnet_trace: A100 (108 SMs, CC 8.0) from deviceProperties;
  -- fused_dropout_kernel_vec: grid 864, block 256, 47 registers, 0 B shared:
  -- 5 blocks x 8 warps / 64 = 62.5 %; Kineto printed 63 (min(5, 8) x 256 / 2048)
  local path = corpus_file("corpus/kineto_trace/hta_a100_alexnet_trace.json.gz")
  local rep = perflab.run("occupancy", { path })
  local t = rep.tables.occupancy
  lu.assertEquals(t:nrows(), 79)
  local seen
  for _, r in t:rows() do
    if r.kernel == "fused_dropout_kernel_vec" then seen = r; break end
  end
  lu.assertNotNil(seen)
  lu.assertEquals(seen.cc, "8.0")
  lu.assertEquals(seen.theoretical_occupancy_pct, 62.5)
  lu.assertEquals(seen.est_achieved_occupancy_pct, 63)
  lu.assertEquals(seen.reported_occupancy_pct, 63)
  -- Kineto's one shared-memory total is used (smem_bytes): a cudnn kernel
  -- with shared memory shows it in the occupancy table
  local with_smem = 0
  for _, r in t:rows() do if (r.smem_bytes or 0) > 0 then with_smem = with_smem + 1 end end
  lu.assertTrue(with_smem > 0)
  lu.assertEquals(#findings(rep, "occupancy.mismatch"), 0)
  lu.assertStrContains(table.concat(rep.notes, "\n"), "smem_bytes")
end

function TestOccupancyRecipe:test_amd_trace_is_not_cuda()
  -- the MI250 trace's devices carry gfx90a as "cc" 9.0: not a Hopper
  local path = corpus_file("corpus/kineto_trace/hta_mi250_rocm6_2_minitoy_kineto.json.gz")
  local rep = perflab.run("launch", { path })
  lu.assertStrContains(table.concat(rep.notes, "\n"), "AMD GPU")
  for _, r in rep.tables.launch:rows() do lu.assertNil(r.active_blocks) end
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

-- a launch without a name is "launch N", N its row: rows 2 and 4 of four
-- (CC 8.0, 256 threads, 32 registers: 8 blocks of 8 warps, 100 %)
function TestOccupancyRecipe:test_nameless_launches()
  local rows = {}
  for i = 1, 4 do
    rows[i] = { name = (i % 2 == 1) and ("k" .. i) or nil, cc = "8.0", block_size = 256, grid_size = 1000,
        registers = 32 }
  end
  local p = profile(rows, { "name", "cc", "block_size", "grid_size", "registers" })
  local t = perflab.run("occupancy", { p }).tables.occupancy
  lu.assertEquals(t:col("kernel"):to_lua(), { "k1", "launch 2", "k3", "launch 4" })
  lu.assertEquals(t:col("theoretical_occupancy_pct"):to_lua(), { 100, 100, 100, 100 })
end

TestLaunchRecipe = {}

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

function TestLaunchRecipe:test_sm_count_sources_skipped_and_nameless()
  -- no sm_count column: launch 1 (and the nameless launch 4) print Waves
  -- Per SM 1.33 and block limits (min 6): 864 / (n x 6) rounds to 1.33
  -- only for n = 108 (107: 1.35, 109: 1.32) -> 108 SMs, 1 whole wave + a
  -- partial one, tail 100 / 2 = 50 %.  Launch 2 prints neither: 80 SMs
  -- from the rule text; block 100 is not a multiple of 32 (speedup
  -- 1/4 x (1 - 4/32) x 100 = 21.875 %) and 40 blocks < 80 SMs (small grid,
  -- (80 - 40) / 80 = 50 %).  Launch 3 has no grid: skipped.
  local p = profile({
      { name = "k1", grid_size = 864, block_size = 128, waves_per_sm = 1.33, block_limit_sm = 6,
          block_limit_warps = 16 },
      { name = "k2", grid_size = 40, block_size = 100 },
      { name = "k3", block_size = 128 },
      { grid_size = 864, block_size = 128, waves_per_sm = 1.33, block_limit_sm = 32, block_limit_warps = 6 } },
    { "name", "grid_size", "block_size", "waves_per_sm", "block_limit_sm", "block_limit_warps" }, {},
    { rules = T.from_rows({ { message = "a grid of 40 blocks is less than the GPU's 80 multiprocessors" } },
        { "message" }) })
  local rep = perflab.run("launch", { p })
  local t = rep.tables.launch
  lu.assertEquals(t:col("kernel"):to_lua(), { "k1", "k2", "launch 4" })
  lu.assertEquals(t:col("sm_count"):to_lua(), { 108, 80, 108 })
  lu.assertEquals(t:col("active_blocks"):to_lua(), { 6, nil, 6 })
  lu.assertEquals(t:col("id"):to_lua(), { 0, 1, 3 })
  lu.assertEquals(t:col("findings"):to_lua(), { "launch.tail_effect", "launch.block_size, launch.small_grid",
      "launch.tail_effect" })
  lu.assertAlmostEquals(t:get(1, "waves_per_sm"), 864 / 648, 1e-12)
  lu.assertEquals(t:get(2, "waves_per_sm"), nil)
  local tail = findings(rep, "launch.tail_effect")
  lu.assertEquals(#tail, 1)
  lu.assertEquals(tail[1].evidence.launches, 2)
  lu.assertEquals(tail[1].evidence.kernels, nil)
  lu.assertStrContains(tail[1].message, "2 launches: k1, launch 4")
  lu.assertAlmostEquals(tail[1].speedup_pct, 50, 1e-12)
  lu.assertAlmostEquals(findings(rep, "launch.block_size")[1].speedup_pct, 21.875, 1e-12)
  lu.assertAlmostEquals(findings(rep, "launch.small_grid")[1].speedup_pct, 50, 1e-12)
  lu.assertEquals(rep.notes[1], "SM count from Waves Per SM, the rule text")
  lu.assertEquals(rep.notes[2], "1 launches without grid or block size were skipped")
end

TestRooflineRecipe = {}

function TestRooflineRecipe:test_precision_unknown_not_fp32()
  -- no dtype or metric: the name is a marked last resort, else "unknown"
  -- (placed against the FP32 roof, said in a note), never "fp32" as a fact
  local p = profile({
      { name = "mul_mat_q4", flops = 1e9, dram_bytes = 1e9, duration_ns = 1e6 },
      { name = "Cijk_Alik_Bljk_HSS_BH_MT128x128x32", flops = 1e9, dram_bytes = 1e9, duration_ns = 1e6 },
      { name = "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_ffma", flops = 1e9, dram_bytes = 1e9,
          duration_ns = 1e6 } },
    { "name", "flops", "dram_bytes", "duration_ns" },
    { device = "NVIDIA A100-SXM4-80GB" })
  local rep = perflab.run("roofline", { p })
  local by = {}
  for _, r in rep.tables.roofline:rows() do by[r.kernel] = r end
  lu.assertEquals(by.mul_mat_q4.precision, "unknown")
  lu.assertEquals(by["Cijk_Alik_Bljk_HSS_BH_MT128x128x32"].precision, "fp16")
  lu.assertEquals(by["sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_ffma"].precision, "fp32")
  -- AI 1 on an A100 80GB: attainable = min(19.5e12, 1 x 2039e9) against the assumed FP32 roof
  lu.assertAlmostEquals(by.mul_mat_q4.attainable_flops_per_s, 2039e9, 1)
  local notes = table.concat(rep.notes, "\n")
  lu.assertStrContains(notes,
      "1 kernel: precision unknown (no dtype, metric or name records it): placed against the FP32 roof")
  lu.assertStrContains(notes, "2 kernels: precision read from the kernel name (a last resort")
end

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
  if okx then lu.assertTrue(os.execute("xmllint --noout " .. path))
  else tdata.optional_tool("xmllint", "the XML well-formedness check of the SVG") end
  local okr = os.execute("command -v rsvg-convert >/dev/null 2>&1")
  if okr then
    lu.assertTrue(os.execute("rsvg-convert -o " .. path .. ".png " .. path))
    local png = io.open(path .. ".png", "rb")
    lu.assertEquals(png:read(4), "\137PNG")
    png:close()
    os.remove(path .. ".png")
  else
    tdata.optional_tool("rsvg-convert", "the SVG render check (the SVG's structure was checked)")
  end
  os.remove(path)
end

local function svg_ok(svg)
  local path = os.tmpname()
  local f = assert(io.open(path, "w")); f:write(svg); f:close()
  if os.execute("command -v xmllint >/dev/null 2>&1") then lu.assertTrue(os.execute("xmllint --noout " .. path))
  else tdata.optional_tool("xmllint", "the XML well-formedness check of the SVG") end
  if os.execute("command -v rsvg-convert >/dev/null 2>&1") then
    lu.assertTrue(os.execute("rsvg-convert -o " .. path .. ".png " .. path))
    local png = io.open(path .. ".png", "rb"); lu.assertEquals(png:read(4), "\137PNG"); png:close()
    os.remove(path .. ".png")
  else
    tdata.optional_tool("rsvg-convert", "the SVG render check")
  end
  os.remove(path)
end

function TestRooflineRecipe:test_kineto_gemm_flops_from_shapes()
  -- hta_a100_sxm4_80gb_rank0: the sgemm kernels' FLOPs from the aten::mm /
  -- aten::addmm that launched them (runtime correlation -> innermost cpu op
  -- on the same thread), 2*M*N*K split over the op's kernels by duration.
  -- 7,334,789,120 computed independently with python3 json/gzip over the trace.
  local path = corpus_file("corpus/kineto_trace/hta_a100_sxm4_80gb_rank0.json.gz")
  local rep = perflab.run("roofline", { path })
  local by = {}
  for _, r in rep.tables.roofline:rows() do by[r.kernel] = r end
  local g = by.ampere_sgemm_128x64_nn
  lu.assertEquals(g.flops, 7334789120)
  lu.assertTrue(g.bytes > 0)
  lu.assertAlmostEquals(g.arithmetic_intensity, g.flops / g.bytes, 1e-9)
  lu.assertEquals(g.attainable_flops_per_s, 19.5e12)        -- AI 30.8 > ridge 9.6: the FP32 peak
  lu.assertStrContains(table.concat(rep.notes, "\n"), "Kineto input shapes (GEMM 2*M*N*K)")
  local svg = rep.figures["roofline.svg"].svg
  lu.assertStrContains(svg, "ampere_sgemm_128x64_nn")
  svg_ok(svg)
end

function TestRooflineRecipe:test_ncu_dram_bytes_from_details_page()
  -- a800 wmma_pipe: Memory Workload Analysis "Memory Throughput 47.33 Gbyte/s"
  -- x Duration 536.64 us = 25,399,171 B (the SOL "Memory Throughput %" is not it)
  local path = corpus_file("corpus/ncu_text/cuda_gemm_a800_tc_03_wmma_pipe.details.txt")
  local rep = perflab.run("roofline", { path })
  local r = rep.tables.roofline:row(1)
  lu.assertAlmostEquals(r.bytes, 47.33e9 * 536.64e-6, 1)
  lu.assertAlmostEquals(r.achieved_bytes_per_s, 47.33e9, 1)
  lu.assertEquals(r.memory_pct, 88.48)
  lu.assertEquals(r.bound, "memory-bound")
end

function TestRooflineRecipe:test_work_csv_option()
  -- --set work=FILE.csv: per-launch flops and bytes joined by kernel name;
  -- seed 003 has 21 launches of "Kernel" -> 21e9 FLOP, 2.1e9 B, AI 10
  local path = corpus_file("seeds/003_ebb91119a615c85c.txt")
  local csv = os.tmpname()
  local f = assert(io.open(csv, "w")); f:write("kernel,flops,bytes\nKernel,1e6,2e5\n"); f:close()
  local rep = perflab.run("roofline", { path }, { work = csv, gpu = "rtx-3060" })
  os.remove(csv)
  local r = rep.tables.roofline:row(1)
  lu.assertEquals(r.flops, 21e6)
  lu.assertEquals(r.bytes, 4.2e6)
  lu.assertAlmostEquals(r.arithmetic_intensity, 5, 1e-12)
  -- attainable = min(FP32 peak, 5 x 360 GB/s) = 1.8 TFLOP/s
  lu.assertAlmostEquals(r.attainable_flops_per_s, 5 * 360e9, 1)
  local p = perflab.load(path)
  local ns = 0
  for _, k in p.tables.kernels:rows() do ns = ns + k.duration_ns end
  lu.assertAlmostEquals(r.achieved_flops_per_s, 21e6 / (ns * 1e-9), 1e-3)
  lu.assertStrContains(table.concat(rep.notes, "\n"), "--set work")
  svg_ok(rep.figures["roofline.svg"].svg)
end

function TestRooflineRecipe:test_seed000_utilisation()
  local path = tdata.path("seeds/000_86950a828dffa530.txt")
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

-- perflab.ncu_math's column forms against its scalar functions, launch by
-- launch, on generated launches (grids, block sizes, SM counts and active
-- blocks from an LCG, some missing, some 0)
TestNcuMathColumns = {}

function TestNcuMathColumns:test_columns_equal_scalars()
  local nm = require("perflab.ncu_math")
  local state = 7
  local function rnd(n) state = (state * 1103515245 + 12345) % 2147483648; return state % n end
  local rows = {}
  for i = 1, 600 do
    local r = { grid = rnd(4000) + 1, bs = rnd(1024) + 1, sms = ({ 80, 108, 132, 28 })[rnd(4) + 1] }
    if rnd(10) ~= 0 then r.active = rnd(9) end          -- 0 .. 8, some missing
    if i % 7 == 0 then r.grid = r.sms * (r.active or 1) * (rnd(3) + 1) end   -- whole waves, no partial
    rows[i] = r
  end
  local t = T.from_rows(rows, { "grid", "bs", "sms", "active" })
  local g, b, s, a = t:col("grid"), t:col("bs"), t:col("sms"), t:col("active")
  local th = { tail_min_speedup = 25 }
  local tc, bc, sg = nm.tail_col(g, s, a, th), nm.block_size_check_col(b), nm.small_grid_col(g, s)
  local w = nm.waves_col(g, s, a):to_lua()
  local tl = {}
  for k, c in pairs(tc) do tl[k] = c:to_lua() end
  local bl, sl = {}, {}
  for k, c in pairs(bc) do bl[k] = c:to_lua() end
  for k, c in pairs(sg) do sl[k] = c:to_lua() end
  local fired = 0
  for i, r in ipairs(rows) do
    lu.assertEquals(w[i], nm.waves(r.grid, r.sms, r.active), "waves row " .. i)
    local want = nm.tail(r.grid, r.sms, r.active, th)
    for _, k in ipairs({ "waves", "whole", "partial", "last_wave_fill_pct", "partial_blocks", "speedup_pct" }) do
      lu.assertEquals(tl[k][i], want and want[k], k .. " row " .. i)
    end
    lu.assertEquals(tl.fires[i], want and want.fires or false, "fires row " .. i)
    if want and want.fires then fired = fired + 1 end
    local wb = nm.block_size_check(r.bs)
    lu.assertEquals(bl.fires[i], wb ~= nil)
    lu.assertEquals(bl.speedup_pct[i], wb and wb.speedup_pct, "block speedup row " .. i)
    lu.assertEquals(bl.wasted_threads[i], wb and wb.wasted_threads)
    local ws = nm.small_grid(r.grid, r.sms)
    lu.assertEquals(sl.high[i], ws ~= nil and ws.severity == "high")
    lu.assertEquals(sl.low[i], ws ~= nil and ws.severity == "low")
    lu.assertEquals(sl.speedup_pct[i], ws and ws.speedup_pct, "small grid row " .. i)
  end
  lu.assertTrue(fired > 10)   -- the data exercise the rule
  -- by hand: 864 blocks on 108 SMs x 6 = 1.333 waves, 1 whole, 25 %% full
  -- last wave (216 blocks), speedup 100 / 2 = 50
  local one = T.from_rows({ { g = 864, s = 108, a = 6 } }, { "g", "s", "a" })
  local h = nm.tail_col(one:col("g"), one:col("s"), one:col("a"))
  lu.assertEquals(h.whole[1], 1)
  lu.assertEquals(math.type(h.whole[1]), "integer")
  lu.assertEquals(h.partial_blocks[1], 216)
  lu.assertEquals(h.speedup_pct[1], 50.0)
  lu.assertTrue(h.fires[1])
end

os.exit(lu.LuaUnit.run())

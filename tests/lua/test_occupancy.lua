-- tests/lua/test_occupancy.lua -- Oracle 1 of issue 6 and hand-checked cases.
--
-- Runs from the repository root, either with a stock interpreter
--   lua5.4 tests/lua/test_occupancy.lua
-- or inside the host
--   build/perflab tests/lua/test_occupancy.lua
--
-- Oracle 1: every launch in tests/data/corpus ncu text and CSV files that
-- prints block size, registers, shared memory and the configuration size
-- (the occupancy-oracle table of tests/data/corpus/MANIFEST.md, plus the CSV
-- launches it names).  Inputs and ncu's printed outputs were typed in from
-- the corpus files (file and kernel named on each row).  ncu prints sizes in
-- decimal Kbyte: 1.02 KB = 1024 B, 8.19 = 8192, 16.38 = 16384, 32.77 = 32768,
-- 65.54 = 65536, 102.40 = 102400, 135.17 = 135168 (132 KiB), 36.86 = 36864,
-- 98.30 = 98304, 2.05 = 2048 (all multiples of 128 B that round to the
-- printed text; the allocation only depends on the 128 B multiple).

package.path = "lua/?.lua;" .. package.path
package.path = package.path .. ";/usr/share/lua/5.4/?.lua"

local lu = require("luaunit")
local gpu = require("perflab.gpu")
local gpus = require("perflab.gpus")

-- columns: file, kernel (as printed, shortened), cc, block (threads), regs,
-- static, dynamic, driver smem (bytes), config size (bytes),
-- expected { SM, Registers, Shared Mem, Warps, theoretical warps, occupancy
-- text as ncu printed it (2 decimals; ncu drops ".00" in some versions) },
-- barriers = Block Limit Barriers where ncu printed it.
local ORACLE = {
  -- ncu text ----------------------------------------------------------------
  { "cuda_gemm_a800_tc_03_wmma_pipe.details.txt", "wmma_pipe_kernel", "8.0", 256, 66, 36864, 0, 1024, 135168,
      { 32, 3, 3, 8, 24, "37.50" } },
  { "cuda_gemm_h20_doc_raw_warptile.txt", "warptile_kernel (first run, --set basic)", "9.0", 128, 211, 8192, 0, 1024,
      65536, { 32, 2, 7, 16, 8, "12.50" }, barriers = 32 },
  { "cuda_gemm_h20_tc_04_wgmma_tma_ws.details.txt", "wgmma_kernel<64, 128, 16, ...>", "9.0", 256, 154, 128, 98304,
      1024, 102400, { 32, 1, 1, 8, 8, "12.50" }, barriers = 32 },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "distribution_elementwise_grid_stride_kernel (line 20)", "8.0", 256, 38, 0,
      0, 1024, 32768, { 32, 6, 32, 8, 48, "75" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "square_kernel_0d1d234 (line 84)", "8.0", 128, 18, 0, 0, 1024, 32768,
      { 32, 21, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel pow (line 148)", "8.0", 128, 16, 0, 0, 1024,
      32768, { 32, 32, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel CompareEq (line 212)", "8.0", 128, 24, 0, 0,
      1024, 32768, { 32, 21, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel Mul (line 277)", "8.0", 128, 16, 0, 0, 1024,
      32768, { 32, 32, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 341)", "8.0", 128, 16, 0, 0, 1024,
      32768, { 32, 32, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 405)", "8.0", 128, 16, 0, 0, 1024,
      32768, { 32, 32, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 469)", "8.0", 128, 22, 0, 0, 1024,
      32768, { 32, 21, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 534)", "8.0", 128, 16, 0, 0, 1024,
      32768, { 32, 32, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 598)", "8.0", 128, 16, 0, 0, 1024,
      32768, { 32, 32, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 662)", "8.0", 128, 16, 0, 0, 1024,
      32768, { 32, 32, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 726)", "8.0", 128, 24, 0, 0, 1024,
      32768, { 32, 21, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 790)", "8.0", 128, 20, 0, 0, 1024,
      32768, { 32, 21, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 854)", "8.0", 128, 22, 0, 0, 1024,
      32768, { 32, 21, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 919)", "8.0", 128, 20, 0, 0, 1024,
      32768, { 32, 21, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "vectorized_elementwise_kernel (line 983)", "8.0", 128, 23, 0, 0, 1024,
      32768, { 32, 21, 32, 16, 64, "100" } },
  { "gpumode_lecture001_ncu_logs_cc80.txt", "reduce_kernel<512, 1, ...> (line 1047)", "8.0", 512, 32, 16, 512, 1024,
      16384, { 32, 4, 9, 4, 64, "100" } },
  { "gpumode_lecture001_triton_profile_cc89.txt", "distribution_elementwise_grid_stride_kernel", "8.9", 256, 38, 0, 0,
      1024, 16384, { 24, 6, 16, 6, 48, "100" } },
  { "gpumode_lecture001_triton_profile_cc89.txt", "square_kernel_0d1d234", "8.9", 128, 20, 0, 0, 1024, 32768,
      { 24, 21, 32, 12, 48, "100" } },
  { "unknownrepo_llmc_softmax_forward_cc86.txt", "softmax_forward_kernel1", "8.6", 512, 39, 0, 0, 1024, 8192,
      { 16, 3, 8, 3, 48, "100" } },
  { "unknownrepo_llmc_softmax_forward_cc86.txt", "softmax_forward_kernel2", "8.6", 512, 22, 0, 2048, 1024, 16384,
      { 16, 5, 5, 3, 48, "100" } },
  { "unknownrepo_llmc_softmax_forward_cc86.txt", "softmax_forward_kernel3", "8.6", 32, 18, 0, 128, 1024, 32768,
      { 16, 84, 28, 48, 16, "33.33" } },
  { "unknownrepo_rtx2050_cc86_max_flops_and_matmul.txt", "gpu_kernel", "8.6", 256, 16, 0, 0, 1024, 8192,
      { 16, 16, 8, 6, 48, "100" } },
  { "unknownrepo_rtx2050_cc86_max_flops_and_matmul.txt", "matmul_kernel_v3 (16,16,1)", "8.6", 256, 100, 8192, 0, 1024,
      65536, { 16, 2, 7, 6, 16, "33.33" } },
  { "unknownrepo_sgemm_naive_cc75.txt", "sgemm (32,32,1)", "7.5", 1024, 49, 0, 0, 0, 32768,
      { 16, 1, 16, 1, 32, "100" } },
  -- CC not printed in this old wide layout; V100 inferred (80 SMs, 64 warps/SM)
  { "unknownrepo_v100_ncu2021_wide_matrix_sums.txt", "row_sums", "7.0", 256, 21, 0, 0, 0, 0,
      { 32, 10, 32, 8, 64, "100" } },
  { "unknownrepo_v100_ncu2021_wide_matrix_sums.txt", "column_sums", "7.0", 256, 26, 0, 0, 0, 0,
      { 32, 8, 32, 8, 64, "100" } },
  -- ncu CSV -----------------------------------------------------------------
  { "ncu_csv/superbench_b200_cc100_cublaslt_ncu_details.csv", "cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_...",
      "10.0", 384, 168, 0, 205696, 1024, 233472, { 32, 1, 1, 5, 12, "18.75" }, barriers = 9 },
  -- Tesla V100-SXM2-16GB; the 2020 CSV has no driver-smem row (0 on CC 7.x)
  { "ncu_csv/xplacer_v100_aws_nsight_cfd_097K_first3kernels.log", "cuda_compute_step_factor", "7.0", 192, 20, 0, 0, 0,
      0, { 32, 14, 32, 10, 60, "93.75" } },
  { "ncu_csv/xplacer_v100_aws_nsight_cfd_097K_first3kernels.log", "cuda_compute_flux", "7.0", 192, 60, 0, 0, 0, 0,
      { 32, 5, 32, 10, 30, "46.88" } },
  { "ncu_csv/xplacer_v100_aws_nsight_cfd_097K_first3kernels.log", "cuda_time_step", "7.0", 192, 22, 0, 0, 0, 0,
      { 32, 14, 32, 10, 60, "93.75" } },
  { "ncu_csv/xplacer_v100_lassen_nsight_cfd_097K_first3kernels.log", "cuda_compute_step_factor", "7.0", 192, 20, 0, 0,
      0, 0, { 32, 14, 32, 10, 60, "93.75" } },
  { "ncu_csv/xplacer_v100_lassen_nsight_cfd_097K_first3kernels.log", "cuda_compute_flux", "7.0", 192, 58, 0, 0, 0, 0,
      { 32, 5, 32, 10, 30, "46.88" } },
  { "ncu_csv/xplacer_v100_lassen_nsight_cfd_097K_first3kernels.log", "cuda_time_step", "7.0", 192, 22, 0, 0, 0, 0,
      { 32, 14, 32, 10, 60, "93.75" } },
}

-- Block Limit Barriers needs the kernel's named-barrier count, which ncu does
-- not print.  With k = 2 on CC 9.0/10.0 (gpu-facts 1.4 step 5) the printed
-- values fit: H20 32 = floor(2*32/2), B200 9 = floor(2*32/7).  These counts
-- are inferred from the printed limit, so the barrier column checks the
-- formula's consistency, not an independent oracle.
local BARRIERS = { [32] = 2, [9] = 7 }

local function ncu_pct(x, printed)
  -- ncu prints "75" / "100" for integral values in older versions, else 2 decimals
  if not printed:find("%.") then return string.format("%d", math.floor(x + 0.5)) end
  return string.format("%.2f", x)
end

local function run_row(row)
  local file, kernel, cc, block, regs, st, dyn, drv, cfg, exp =
    row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10]
  local r = gpu.occupancy{ cc = cc, block_size = block, registers = regs, smem_static = st,
    smem_dynamic = dyn, smem_driver = drv, smem_config = cfg,
    barriers = row.barriers and BARRIERS[row.barriers] or nil }
  local where = file .. " / " .. kernel
  lu.assertEquals(r.block_limit_sm, exp[1], where .. ": Block Limit SM")
  lu.assertEquals(r.block_limit_registers, exp[2], where .. ": Block Limit Registers")
  lu.assertEquals(r.block_limit_smem, exp[3], where .. ": Block Limit Shared Mem")
  lu.assertEquals(r.block_limit_warps, exp[4], where .. ": Block Limit Warps")
  lu.assertEquals(r.theoretical_warps, exp[5], where .. ": Theoretical Active Warps per SM")
  lu.assertEquals(ncu_pct(r.theoretical_occupancy_pct, exp[6]), exp[6], where .. ": Theoretical Occupancy")
  if row.barriers then
    lu.assertEquals(r.block_limit_barriers, row.barriers, where .. ": Block Limit Barriers")
  end
  lu.assertNil(r.assumption, where .. ": config size given, no assumption")
  return r
end

TestOracle1 = {}

function TestOracle1:test_all_launches()
  lu.assertEquals(#ORACLE, 37)
  local n = 0
  for _, row in ipairs(ORACLE) do run_row(row); n = n + 1 end
  lu.assertEquals(n, 37)
end

function TestOracle1:test_counts_by_cc()
  -- MANIFEST: text 7.0 x2, 7.5 x1, 8.0 x18, 8.6 x5, 8.9 x2, 9.0 x2; CSV 7.0 x6, 10.0 x1
  local by = {}
  for _, row in ipairs(ORACLE) do by[row[3]] = (by[row[3]] or 0) + 1 end
  lu.assertEquals(by, { ["7.0"] = 8, ["7.5"] = 1, ["8.0"] = 18, ["8.6"] = 5, ["8.9"] = 2,
                        ["9.0"] = 2, ["10.0"] = 1 })
end

function TestOracle1:test_limiters()
  -- a800 wmma_pipe: registers and shared memory tie at 3
  local r = run_row(ORACLE[1])
  lu.assertEquals(r.limiter, { "registers", "shared memory" })
  lu.assertEquals(r.smem_per_block_allocated, 37888)   -- MANIFEST: static+dyn+driver
  -- softmax_forward_kernel3: the SM block limit (16 blocks x 1 warp)
  r = run_row(ORACLE[25])
  lu.assertEquals(r.limiter, { "blocks" })
  lu.assertEquals(r.smem_per_block_allocated, 1152)
  -- reduce_kernel: 16 + 512 + 1024 = 1552 -> 1664 (13 x 128); 16384 // 1664 = 9
  r = run_row(ORACLE[20])
  lu.assertEquals(r.smem_per_block_allocated, 1664)
  lu.assertEquals(r.limiter, { "warps", "registers" })
  -- B200 cutlass: 205696 + 1024 = 206720 = 1615 x 128
  r = run_row(ORACLE[31])
  lu.assertEquals(r.smem_per_block_allocated, 206720)
  lu.assertEquals(r.limiter, { "registers", "shared memory" })
end

-- The known exception (MANIFEST): the 2020-era V100 hotspot CSVs report Block
-- Limit Shared Mem = 32 with 3,072 B static shared memory and a 32,768 B
-- configuration.  That ncu evaluated the limit against the 96 KB maximum
-- carveout, not the configured size.  A calculator that uses the configuration
-- size gets 10; the final occupancy (75 %, registers-limited) agrees.
TestKnownException = {}

function TestKnownException:test_hotspot_2020_v100()
  for _, file in ipairs{ "ncu_csv/xplacer_v100_nsight_hotspot_1024.csvlog",
                         "ncu_csv/xplacer_v100_nsight_hotspot_64.csvlog" } do
    local args = { cc = "7.0", block_size = 256, registers = 40, smem_static = 3072,
                   smem_dynamic = 0, smem_config = 32768 }
    local r = gpu.occupancy(args)
    lu.assertEquals(r.block_limit_smem, 10, file)         -- 32768 // 3072
    lu.assertEquals(r.block_limit_registers, 6, file)     -- ncu: 6
    lu.assertEquals(r.block_limit_warps, 8, file)         -- ncu: 8
    lu.assertEquals(r.theoretical_warps, 48, file)        -- ncu: 48
    lu.assertEquals(string.format("%.0f", r.theoretical_occupancy_pct), "75", file)
    -- against the 96 KB maximum the old ncu's 32 is reproduced
    args.smem_config = 98304
    lu.assertEquals(gpu.occupancy(args).block_limit_smem, 32, file)
  end
end

-- Hand-checked cases of tests/data/reference/gpu-facts.md
TestWorkedExamples = {}

function TestWorkedExamples:test_section_1_5_user_sample()
  local r = gpu.occupancy{ cc = "8.6", block_size = 128, registers = 254,
    smem_static = 0, smem_dynamic = 98304, smem_config = 102400 }
  lu.assertEquals(r.warps_per_block, 4)
  lu.assertEquals(r.block_limit_sm, 16)
  lu.assertEquals(r.block_limit_warps, 12)
  lu.assertEquals(r.regs_per_warp_allocated, 8192)      -- 254*32 = 8128 -> 8192
  lu.assertEquals(r.block_limit_registers, 2)
  lu.assertEquals(r.smem_per_block_allocated, 99328)
  lu.assertEquals(r.block_limit_smem, 1)
  lu.assertNil(r.block_limit_barriers)                   -- not on CC 8.6
  lu.assertEquals(r.active_blocks, 1)
  lu.assertEquals(r.theoretical_warps, 4)
  lu.assertEquals(string.format("%.2f", r.theoretical_occupancy_pct), "8.33")
  lu.assertEquals(r.limiter, { "shared memory" })
  -- any dynamic size printing as 98.30 KB (98295..98304) allocates the same
  for d = 98295, 98304 do
    lu.assertEquals(gpu.occupancy{ cc = "8.6", block_size = 128, registers = 254,
      smem_dynamic = d, smem_config = 102400 }.smem_per_block_allocated, 99328)
  end
end

function TestWorkedExamples:test_section_1_6_cc120()
  -- sample C: 128 threads, 40 regs, 0 + 1 KB, C = 32768 on CC 12.0
  local r = gpu.occupancy{ cc = "12.0", block_size = 128, registers = 40, smem_config = 32768 }
  lu.assertEquals({ r.block_limit_sm, r.block_limit_registers, r.block_limit_smem,
                    r.block_limit_warps, r.block_limit_barriers }, { 24, 12, 32, 12, 24 })
  lu.assertEquals(r.theoretical_warps, 48)
  lu.assertEquals(r.theoretical_occupancy_pct, 100)
  lu.assertEquals(r.limiter, { "warps", "registers" })
end

function TestWorkedExamples:test_section_1_6_cc86_B_without_config()
  -- sample B without the config size: the runtime rule assumes the full
  -- 100 KB carveout (102400 // 9216 = 11) and says so
  local r = gpu.occupancy{ cc = "8.6", block_size = 256, registers = 100, smem_static = 8192 }
  lu.assertEquals(r.smem_config_used, 102400)
  lu.assertEquals(r.block_limit_smem, 11)
  lu.assertEquals(r.active_blocks, 2)
  lu.assertStrContains(r.assumption, "100 KB")
  lu.assertStrContains(r.assumption, "upper bound")
  -- a 50 % carveout rounds up to 64 KB (the next supported capacity)
  r = gpu.occupancy{ cc = "8.6", block_size = 256, registers = 100, smem_static = 8192,
    carveout_pct = 50 }
  lu.assertEquals(r.smem_config_used, 65536)
  lu.assertEquals(r.block_limit_smem, 7)
  -- Turing has no 0 KB carveout: a tiny request rounds to 32 KB
  r = gpu.occupancy{ cc = "7.5", block_size = 128, registers = 32, smem_static = 1024,
    carveout_pct = 1 }
  lu.assertEquals(r.smem_config_used, 32768)
end

function TestWorkedExamples:test_impossible_launches()
  -- 1025 threads: warps limit 0
  local r = gpu.occupancy{ cc = "8.0", block_size = 1025, registers = 16, smem_config = 0 }
  lu.assertEquals(r.active_blocks, 0)
  lu.assertNotNil(r.invalid)
  -- 1024 threads x 255 regs: 8192 regs/warp x 32 warps > 65536
  r = gpu.occupancy{ cc = "8.0", block_size = 1024, registers = 255, smem_config = 32768 }
  lu.assertEquals(r.block_limit_registers, 0)
  lu.assertEquals(r.active_blocks, 0)
  -- 1024 threads x 72 regs: 2304 regs/warp x 32 warps = 73728 > 65536 -> 0
  r = gpu.occupancy{ cc = "8.0", block_size = 1024, registers = 72, smem_config = 32768 }
  lu.assertEquals(r.block_limit_registers, 0)
  -- hardware check only: 992 threads = 31 warps (rounded to 32 for the
  -- check), 66 regs -> 2304/warp: 31 x 2304 = 71424 fails the software check
  -- too; 64 regs -> 2048/warp: 31 x 2048 = 63488 passes, 32 x 2048 = 65536
  -- passes -> (16384 // 2048) * 4 = 32 warps // 31 = 1 block
  r = gpu.occupancy{ cc = "8.0", block_size = 992, registers = 64, smem_config = 32768 }
  lu.assertEquals(r.block_limit_registers, 1)
  -- 96 threads = 3 warps of 64 regs: (16384 // 2048) * 4 = 32 warps // 3 = 10
  r = gpu.occupancy{ cc = "8.0", block_size = 96, registers = 64, smem_config = 32768 }
  lu.assertEquals(r.regs_per_warp_allocated, 2048)
  lu.assertEquals(r.block_limit_registers, 10)          -- (16384//2048)*4 = 32 warps // 3
  -- shared memory above the 48 KB default without opt-in
  r = gpu.occupancy{ cc = "8.0", block_size = 128, registers = 32, smem_dynamic = 60000, optin = false }
  lu.assertEquals(r.block_limit_smem, 0)
  lu.assertNotNil(r.invalid)
end

TestWhatIf = {}

function TestWhatIf:test_registers_step()
  -- 8.6, 128 threads, 254 regs, little shared memory: registers limit at 2
  -- blocks (8 warps = 16.7 %).  At <= 168 regs: 168*32 = 5376 = 21 x 256 ->
  -- 16384 // 5376 = 3 per sub-partition = 12 warps = 3 blocks (25 %).
  -- 169 regs -> 5408 -> 5632 -> 2 per sub-partition: still 2 blocks.
  local args = { cc = "8.6", block_size = 128, registers = 254, smem_config = 102400 }
  local r = gpu.occupancy(args)
  lu.assertEquals(r.active_blocks, 2)
  lu.assertEquals(r.limiter, { "registers" })
  local w = gpu.what_if(args, r)
  lu.assertEquals(w[1].resource, "registers")
  lu.assertEquals(w[1].value, 168)
  lu.assertEquals(w[1].active_blocks, 3)
  lu.assertEquals(w[1].text, "at <= 168 registers per thread, 3 blocks fit per SM: 25 %")
end

function TestWhatIf:test_smem_step_user_sample()
  -- section 1.5 sample: 1 block (8.3 %), shared memory the limiter, but
  -- registers cap at 2 blocks: 2 blocks need A <= 102400 // 2 = 51200 ->
  -- 51200 - 1024 = 50176 bytes of static+dynamic shared memory -> 16.7 %
  local args = { cc = "8.6", block_size = 128, registers = 254, smem_dynamic = 98304,
                 smem_config = 102400 }
  local w = gpu.what_if(args)
  local s
  for _, x in ipairs(w) do if x.resource == "shared memory" then s = x end end
  lu.assertNotNil(s)
  lu.assertEquals(s.value, 50176)
  lu.assertEquals(s.active_blocks, 2)
  lu.assertStrContains(s.text, "2 blocks fit per SM: 16.7 %")
  -- no register-only step: registers are not the binding limit
  for _, x in ipairs(w) do lu.assertNotEquals(x.resource, "registers") end
end

function TestWhatIf:test_full_occupancy_has_none()
  lu.assertEquals(gpu.what_if{ cc = "8.0", block_size = 128, registers = 16, smem_config = 32768 }, {})
end

-- Kineto's "est. achieved occupancy %": launches typed in from corpus traces
-- (kineto_trace/*, the integer Kineto printed in the last column).
TestKinetoEstimate = {}

function TestKinetoEstimate:test_events()
  local cases = {
    -- hta_a100_alexnet_trace.json.gz: grid 864, block 256, 47 regs, 0 smem, 108 SMs
    -- regs: 47*32 = 1504 -> 1536; 16384 // 1536 = 10 -> 40 warps // 8 = 5 blocks;
    -- min(5, 864/108 = 8) * 256 / 2048 = 62.5 % -> 63
    { cc = "8.0", grid = { 864, 1, 1 }, block = { 256, 1, 1 }, registers = 47, smem = 0, sm_count = 108, want = 63 },
    -- hta_a100_et_simple_add_trace.json.gz: 256/108 = 2.37 blocks/SM -> 29.6 -> 30
    { cc = "8.0", grid = { 256, 1, 1 }, block = { 256, 1, 1 }, registers = 47, smem = 0, sm_count = 108, want = 30 },
    -- hta_a100_sxm4_80gb_rank0.json.gz: 1 block of 128 -> 0.06 % -> 0
    { cc = "8.0", grid = { 1, 1, 1 }, block = { 128, 1, 1 }, registers = 48, smem = 0, sm_count = 108, want = 0 },
    -- kineto_tb_plugin_sample_resnet50_v100: 256 threads, 80 regs, 6400 B, grid 1024:
    -- regs 2560/warp -> 6 per sub-partition = 24 warps = 3 blocks; 3*256/2048 = 37.5 -> 38
    { cc = "7.0", grid = { 1024, 1, 1 }, block = { 256, 1, 1 }, registers = 80, smem = 6400, sm_count = 80, want = 38 },
    -- the same trace: 64 threads, grid 576 on 80 SMs: 7.2*64/2048 = 22.5 in
    -- exact arithmetic, but Kineto's float gives 22.4999994 -> 22
    { cc = "7.0", grid = { 576, 1, 1 }, block = { 64, 1, 1 }, registers = 20, smem = 0, sm_count = 80, want = 22 },
    -- hta_v100_ns_resolution: grid (4,106,1) = 424 blocks of 128, 30 regs: 5.3 * 128 / 2048 = 33.1 -> 33
    { cc = "7.0", grid = { 4, 106, 1 }, block = { 128, 1, 1 }, registers = 30, smem = 0, sm_count = 80, want = 33 },
  }
  for i, c in ipairs(cases) do
    local want = c.want
    c.want = nil                  -- not an argument: the calculator's tables are strict
    local e = gpu.est_achieved_occupancy(c)
    lu.assertEquals(e.pct, want, "case " .. i)
  end
  local e = gpu.est_achieved_occupancy(cases[1])
  lu.assertEquals(e.active_blocks, 5)
  lu.assertAlmostEquals(e.exact, 62.5, 1e-9)
  lu.assertAlmostEquals(e.warps_pct, 62.5, 1e-9)
end

TestRooflineLaunch = {}

function TestRooflineLaunch:test_roofline()
  local a100 = gpus.model("NVIDIA A100-SXM4-80GB")
  local peak, bw = a100.peaks.fp32, a100.dram_bw_bytes_per_s
  lu.assertAlmostEquals(gpu.ridge(peak, bw), 19.5e12 / 2039e9, 1e-9)   -- 9.56 FLOP/B
  lu.assertAlmostEquals(gpu.attainable(peak, bw, 1), 2039e9, 1)
  lu.assertAlmostEquals(gpu.attainable(peak, bw, 100), 19.5e12, 1)
  lu.assertEquals(gpu.bound_by_ai(1, peak, bw), "memory")
  lu.assertEquals(gpu.bound_by_ai(20, peak, bw), "compute")
  -- SOL rule: thresholds 80 / 60 / 10
  lu.assertEquals({ (gpu.sol_class(85, 20)) }, { "high_throughput" })
  lu.assertEquals(select(2, gpu.sol_class(20, 85)), "memory-bound")
  lu.assertEquals(select(2, gpu.sol_class(30, 40, 2.0)), "latency-bound")
  lu.assertEquals((gpu.sol_class(30, 40, 0.5)), "small_grid")
  lu.assertEquals((gpu.sol_class(75, 62)), "compute")
  lu.assertEquals((gpu.sol_class(65, 75)), "memory")
  lu.assertEquals((gpu.sol_class(70, 65)), "balanced")
  lu.assertEquals((gpu.sol_class(59.9, 60)), "balanced")   -- 60 is not below 60
end

function TestRooflineLaunch:test_launch()
  -- block 48: (1/2) * (1 - 16/32) * 100 = 25 %
  lu.assertAlmostEquals(gpu.block_size_check(48).speedup_pct, 25, 1e-9)
  lu.assertNil(gpu.block_size_check(256))
  -- seed 003 style: 8 blocks on 28 SMs -> (28 - 8)/28 = 71.4 %
  local s = gpu.small_grid(8, 28)
  lu.assertEquals(s.severity, "high")
  lu.assertAlmostEquals(s.speedup_pct, 20 / 28 * 100, 1e-9)
  lu.assertEquals(gpu.small_grid(40, 28).severity, "low")
  lu.assertNil(gpu.small_grid(56, 28))
  -- tail: 864 blocks, 108 SMs, 6 blocks/SM -> 1.333 waves: whole 1, partial
  -- 1/3 -> 100/2 = 50 % >= 20 fires; partial-wave blocks ceil(864*(1/3)/1.333) = 216
  local t = gpu.tail(864, 108, 6)
  lu.assertAlmostEquals(t.waves, 864 / 648, 1e-12)
  lu.assertEquals(t.whole, 1)
  lu.assertEquals(t.partial_blocks, 216)
  lu.assertAlmostEquals(t.speedup_pct, 50, 1e-9)
  lu.assertTrue(t.fires)
  -- 10.5 waves: 100/11 = 9.1 % < 20: does not fire
  lu.assertFalse(gpu.tail(108 * 6 * 10 + 324, 108, 6).fires)
  -- less than one wave never fires
  lu.assertFalse(gpu.tail(100, 108, 6).fires)
  lu.assertEquals(gpu.tail(100, 108, 6).speedup_pct, 0)
end

TestGpus = {}

function TestGpus:test_cc_lookup()
  lu.assertEquals(gpus.cc("8.6").max_warps_per_sm, 48)
  lu.assertEquals(gpus.cc(86).cc, "8.6")
  lu.assertEquals(gpus.cc("sm_90a").cc, "9.0")
  lu.assertEquals(gpus.cc(10.0).cc, "10.0")
  lu.assertEquals(gpus.cc(120).cc, "12.0")
  lu.assertEquals(gpus.cc({ major = 7, minor = 5 }).max_blocks_per_sm, 16)
  lu.assertEquals(gpus.cc("12.0").max_blocks_per_sm, 24)
  lu.assertEquals(gpus.cc("8.0").smem_reserved_per_block, 1024)
  lu.assertEquals(gpus.cc("7.0").smem_reserved_per_block, 0)
  local a, err = gpus.cc("6.1")
  lu.assertNil(a)
  lu.assertStrContains(err, "known: 7.0")
end

function TestGpus:test_model_names()
  local cases = {
    ["NVIDIA A100-SXM4-80GB"] = "a100-sxm4-80gb",
    ["NVIDIA A100-SXM4-40GB"] = "a100-sxm4-40gb",
    ["NVIDIA A100-PG509-200"] = "a100-sxm4-40gb",
    ["Tesla V100-SXM2-16GB"] = "v100-sxm2",
    ["Tesla V100-PCIE-32GB"] = "v100-pcie",
    ["Tesla V100-DGXS-32GB"] = "v100-sxm2",
    ["NVIDIA GeForce RTX 3090"] = "rtx-3090",
    ["NVIDIA GeForce RTX 2050"] = "rtx-2050",
    ["NVIDIA H100 80GB HBM3"] = "h100-sxm",
    ["NVIDIA H100 PCIe"] = "h100-pcie",
    ["NVIDIA H20"] = "h20",
    ["NVIDIA L4"] = "l4",
    ["NVIDIA L40S"] = "l40s",
    ["NVIDIA A10"] = "a10",
    ["NVIDIA A800-SXM4-80GB"] = "a800-sxm",
    ["AMD Instinct MI300X"] = "mi300x",
    ["h200-sxm"] = "h200-sxm",
  }
  for name, id in pairs(cases) do
    local m = gpus.model(name)
    lu.assertNotNil(m, name)
    lu.assertEquals(m.id, id, name)
  end
  local m, err = gpus.model("AMD Radeon Graphics")
  lu.assertNil(m)
  lu.assertStrContains(err, "a100-sxm4-80gb")
  -- every model names a known CC (NVIDIA) and has an SM count
  for _, g in ipairs(gpus.list()) do
    lu.assertNotNil(g.sm_count, g.id)
    if g.vendor ~= "amd" then lu.assertNotNil(gpus.cc(g.cc), g.id) end
  end
end

function TestGpus:test_overrides()
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write([[
return {
  arch = { ["8.9"] = { max_blocks_per_sm = 24 } },
  models = {
    { id = "my-lab-gpu", name = "Lab GPU", cc = "8.9", sm_count = 60,
      aliases = { { "labgpu" } }, dram_bw_bytes_per_s = 500e9, peaks = { fp32 = 40e12 } },
    { id = "a100-sxm4-80gb", sm_count = 107, peaks = { fp32 = 19.0e12 } },
  },
}
]])
  f:close()
  local saved = gpus.model("a100-sxm4-80gb")
  local old_sm, old_fp32, old_tf32 = saved.sm_count, saved.peaks.fp32, saved.peaks.tf32
  lu.assertTrue(gpus.load_overrides(path))
  os.remove(path)
  lu.assertEquals(gpus.model("NVIDIA LabGPU rev 2").id, "my-lab-gpu")
  local a = gpus.model("NVIDIA A100-SXM4-80GB")
  lu.assertEquals(a.sm_count, 107)
  lu.assertEquals(a.peaks.fp32, 19.0e12)
  lu.assertEquals(a.peaks.tf32, old_tf32)        -- deep merge keeps the rest
  a.sm_count, a.peaks.fp32 = old_sm, old_fp32    -- restore for other tests
  for i, g in ipairs(gpus.list()) do
    if g.id == "my-lab-gpu" then table.remove(gpus.list(), i) break end
  end
  lu.assertFalse((gpus.load_overrides("/nonexistent/perflab/gpus.lua")))
  -- an override file cannot reach the environment
  path = os.tmpname()
  f = assert(io.open(path, "w")); f:write("return { models = { { id = os.getenv('HOME') } } }"); f:close()
  lu.assertError(gpus.load_overrides, path)
  os.remove(path)
end

os.exit(lu.LuaUnit.run())

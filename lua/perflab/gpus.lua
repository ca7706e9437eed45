--- perflab.gpus: GPU knowledge as data: per compute capability occupancy
-- constants and per GPU model identity, memory and peak throughput.
--
-- Everything here is plain Lua data that users may edit or override from
-- their config directory (gpus.load_overrides, called by the host with
-- ~/.config/perflab/gpus.lua).
--
-- Sources (see ../shared/reference/gpu-facts.md for the full notes and the
-- trust tags [V] read in a primary source, [V-obs] seen in real tool output,
-- [D] derived by arithmetic, [K] vendor figure not re-checked):
--   * cuda_occupancy.h (CUDA 13.0 / 12.6)                       [V]
--   * CUDA C++ Programming Guide, Table 27 and sections 20.6-20.10   [V]
--   * NVIDIA CCCL libcudacxx cuda/__device/arch_traits.h         [V]
--   * Nsight Compute reports in ../shared/corpus                  [V-obs]
--   * vendor datasheets / whitepapers listed per model below      [V]/[K]
--
-- Units: bytes, hertz, FLOP/s (or OP/s for INT8), bytes/s.  KB = 1024 B
-- (the CUDA guide's convention), vendor bandwidths are decimal (1 GB/s =
-- 1e9 B/s).  All throughput peaks are DENSE (no 2:4 sparsity).

local M = {}

local KB = 1024
local T = 1e12   -- tera
local G = 1e9    -- giga

---------------------------------------------------------------------------
-- Per compute capability constants.
--
-- Common to every CC 7.0 - 12.x [V: guide Table 27, CCCL, cuda_occupancy.h]:
-- warp size 32, 1024 threads per block, 65536 32-bit registers per SM
-- (4 sub-partitions x 16384), 65536 registers per block, 255 registers per
-- thread, register allocation unit 256 registers allocated per warp, warp
-- allocation granularity 4 (= sub-partitions; only used by the hardware
-- register check), default shared memory per block without opt-in 48 KB.
---------------------------------------------------------------------------
local common = {
  warp_size = 32,
  max_threads_per_block = 1024,
  regs_per_sm = 65536,
  sub_partitions = 4,
  regs_per_sub_partition = 16384,
  max_regs_per_block = 65536,
  max_regs_per_thread = 255,
  reg_alloc_unit = 256,            -- registers
  reg_alloc_granularity = "warp",
  warp_alloc_granularity = 4,      -- warps (register hardware check only)
  max_smem_per_block_default = 48 * KB,
}

-- carveouts: shared-memory capacities (KB) the driver can configure
-- [V: guide 20.6.4, 20.7.3, 20.8.3, 20.9.3, 20.10.3; header round-up switch]
local carve_volta  = { 0, 8, 16, 32, 64, 96 }
local carve_turing = { 32, 64 }                  -- header: no 0 KB option
local carve_ga100  = { 0, 8, 16, 32, 64, 100, 132, 164 }
local carve_ga10x  = { 0, 8, 16, 32, 64, 100 }
local carve_hopper = { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 }

local function arch(t)
  for k, v in pairs(common) do if t[k] == nil then t[k] = v end end
  t.max_threads_per_sm = t.max_warps_per_sm * t.warp_size
  return t
end

-- max_warps_per_sm, max_blocks_per_sm, smem_per_sm, max_smem_per_block_optin:
--   guide Table 27 (7.5-12.0) and CCCL (all) [V]; 7.0 also nvbench GV100 [V-obs]
-- smem_alloc_unit: header [V] (256 B for major 7, 128 B for 8-12)
-- smem_reserved_per_block: guide + CCCL + header [V] (1 KB from CC 8.0);
--   ncu prints it as "Driver Shared Memory Per Block = 1.02 KB" [V-obs]
-- barrier_factor k: header [V]; Block Limit Barriers = floor(k * max blocks /
--   barriers per block), computed for CC >= 9.0 only.
-- max_cluster_size: portable thread-block-cluster size limit for CC >= 9.0
--   (CUDA guide, cluster launch; NOT in the reference notes -- [K]).
M.arch = {
  ["7.0"] = arch{ name = "Volta", examples = "V100, GV100",
    max_warps_per_sm = 64, max_blocks_per_sm = 32, smem_per_sm = 96 * KB,
    smem_carveouts_kb = carve_volta, max_smem_per_block_optin = 96 * KB,
    smem_alloc_unit = 256, smem_reserved_per_block = 0 },
  -- 7.2: the header treats it as Volta [V]; the 64-warp figure is the CUDA
  -- 12.x guide's [K].
  ["7.2"] = arch{ name = "Volta (Xavier)", examples = "Jetson AGX Xavier",
    max_warps_per_sm = 64, max_blocks_per_sm = 32, smem_per_sm = 96 * KB,
    smem_carveouts_kb = carve_volta, max_smem_per_block_optin = 96 * KB,
    smem_alloc_unit = 256, smem_reserved_per_block = 0 },
  ["7.5"] = arch{ name = "Turing", examples = "T4, RTX 20",
    max_warps_per_sm = 32, max_blocks_per_sm = 16, smem_per_sm = 64 * KB,
    smem_carveouts_kb = carve_turing, max_smem_per_block_optin = 64 * KB,
    smem_alloc_unit = 256, smem_reserved_per_block = 0 },
  ["8.0"] = arch{ name = "Ampere (GA100)", examples = "A100, A30, A800",
    max_warps_per_sm = 64, max_blocks_per_sm = 32, smem_per_sm = 164 * KB,
    smem_carveouts_kb = carve_ga100, max_smem_per_block_optin = 163 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB },
  ["8.6"] = arch{ name = "Ampere (GA10x)", examples = "RTX 30, A10, A40, RTX A6000",
    max_warps_per_sm = 48, max_blocks_per_sm = 16, smem_per_sm = 100 * KB,
    smem_carveouts_kb = carve_ga10x, max_smem_per_block_optin = 99 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB },
  ["8.7"] = arch{ name = "Ampere (Orin)", examples = "Jetson Orin",
    max_warps_per_sm = 48, max_blocks_per_sm = 16, smem_per_sm = 164 * KB,
    smem_carveouts_kb = carve_ga100, max_smem_per_block_optin = 163 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB },
  ["8.9"] = arch{ name = "Ada", examples = "RTX 40, L4, L40S, RTX 6000 Ada",
    max_warps_per_sm = 48, max_blocks_per_sm = 24, smem_per_sm = 100 * KB,
    smem_carveouts_kb = carve_ga10x, max_smem_per_block_optin = 99 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB },
  ["9.0"] = arch{ name = "Hopper", examples = "H100, H200, H20, GH200",
    max_warps_per_sm = 64, max_blocks_per_sm = 32, smem_per_sm = 228 * KB,
    smem_carveouts_kb = carve_hopper, max_smem_per_block_optin = 227 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB,
    barrier_factor = 2, max_cluster_size = 8 },
  ["10.0"] = arch{ name = "Blackwell (datacenter)", examples = "B200, GB200",
    max_warps_per_sm = 64, max_blocks_per_sm = 32, smem_per_sm = 228 * KB,
    smem_carveouts_kb = carve_hopper, max_smem_per_block_optin = 227 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB,
    barrier_factor = 2, max_cluster_size = 8 },
  -- 10.3: header shares 10.0's branch, CCCL copies sm_100 [V]
  ["10.3"] = arch{ name = "Blackwell Ultra", examples = "B300, GB300",
    max_warps_per_sm = 64, max_blocks_per_sm = 32, smem_per_sm = 228 * KB,
    smem_carveouts_kb = carve_hopper, max_smem_per_block_optin = 227 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB,
    barrier_factor = 2, max_cluster_size = 8 },
  -- 11.0 (Thor): CCCL 1536 threads, 24 blocks, 228 KB; header k = 1 [V].
  -- Carveouts assumed as 9.0 (same 228 KB maximum).
  ["11.0"] = arch{ name = "Blackwell (Thor)", examples = "Jetson Thor",
    max_warps_per_sm = 48, max_blocks_per_sm = 24, smem_per_sm = 228 * KB,
    smem_carveouts_kb = carve_hopper, max_smem_per_block_optin = 227 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB,
    barrier_factor = 1, max_cluster_size = 8 },
  ["12.0"] = arch{ name = "Blackwell (RTX)", examples = "RTX 50, RTX PRO Blackwell",
    max_warps_per_sm = 48, max_blocks_per_sm = 24, smem_per_sm = 100 * KB,
    smem_carveouts_kb = carve_ga10x, max_smem_per_block_optin = 99 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB,
    barrier_factor = 1, max_cluster_size = 8 },
  -- 12.1 (GB10) is the same as 12.0 [V]
  ["12.1"] = arch{ name = "Blackwell (GB10)", examples = "DGX Spark GB10",
    max_warps_per_sm = 48, max_blocks_per_sm = 24, smem_per_sm = 100 * KB,
    smem_carveouts_kb = carve_ga10x, max_smem_per_block_optin = 99 * KB,
    smem_alloc_unit = 128, smem_reserved_per_block = 1 * KB,
    barrier_factor = 1, max_cluster_size = 8 },
}
for k, a in pairs(M.arch) do a.cc = k end

---------------------------------------------------------------------------
-- GPU models.  Fields (all optional except id/cc): name, aliases (lists of
-- name tokens that must all appear in a device name), vendor, cc, sm_count,
-- boost_clock_hz, tensor_clock_hz, dram_bytes, dram_bw_bytes_per_s,
-- l2_bytes, peaks = { fp64, fp64_tc, fp32, tf32, fp16, bf16, fp16_acc16,
-- fp8, int8 } in FLOP/s (OP/s).  For GeForce parts fp16/bf16 are the FP32-
-- accumulate rate (what deep-learning GEMMs use) and fp16_acc16 the FP16-
-- accumulate rate.  Only values the reference gives; tags as in gpu-facts.md
-- part 2.
---------------------------------------------------------------------------
local MB = 1024 * 1024
local models = {
  { id = "v100-sxm2", name = "Tesla V100 SXM2", cc = "7.0", sm_count = 80,
    aliases = { { "v100", "sxm2" }, { "v100", "sxm" }, { "v100" }, { "gv100" } },
    boost_clock_hz = 1530e6, dram_bw_bytes_per_s = 900 * G, l2_bytes = 6 * MB,
    peaks = { fp64 = 7.8 * T, fp32 = 15.7 * T, fp16 = 125 * T },
    source = "Volta whitepaper Table 1 [V, copy]; BW [K]; L2 [V-obs GV100 6144 KiB]" },
  { id = "v100-pcie", name = "Tesla V100 PCIe", cc = "7.0", sm_count = 80,
    aliases = { { "v100", "pcie" } },
    boost_clock_hz = 1380e6, dram_bw_bytes_per_s = 900 * G, l2_bytes = 6 * MB,
    peaks = { fp64 = 7.0 * T, fp32 = 14.0 * T, fp16 = 112 * T },
    source = "V100 datasheet [K]" },
  { id = "t4", name = "Tesla T4", cc = "7.5", sm_count = 40, aliases = { { "t4" } },
    boost_clock_hz = 1590e6, dram_bw_bytes_per_s = 320 * G, l2_bytes = 4 * MB,
    peaks = { fp64 = 0.25 * T, fp32 = 8.1 * T, fp16 = 65 * T, int8 = 130 * T },
    source = "T4 datasheet [K]; FP64 [D]" },
  { id = "a10", name = "NVIDIA A10", cc = "8.6", sm_count = 72, aliases = { { "a10" } },
    boost_clock_hz = 1695e6, dram_bw_bytes_per_s = 600 * G, l2_bytes = 6291456,
    peaks = { fp64 = 0.49 * T, fp32 = 31.2 * T, tf32 = 62.5 * T, fp16 = 125 * T,
              bf16 = 125 * T, int8 = 250 * T },
    source = "A10 datasheet [K]; clock and L2 [V-obs device query]; FP64 [D]" },
  { id = "a30", name = "NVIDIA A30", cc = "8.0", sm_count = 56, aliases = { { "a30" } },
    boost_clock_hz = 1440e6, dram_bw_bytes_per_s = 933 * G, l2_bytes = 24 * MB,
    peaks = { fp64 = 5.2 * T, fp64_tc = 10.3 * T, fp32 = 10.3 * T, tf32 = 82 * T,
              fp16 = 165 * T, bf16 = 165 * T, int8 = 330 * T },
    source = "A30 datasheet [K]" },
  { id = "a100-sxm4-40gb", name = "NVIDIA A100 SXM4 40GB", cc = "8.0", sm_count = 108,
    aliases = { { "a100", "sxm4", "40gb" }, { "a100", "40gb" }, { "a100", "sxm4" },
                { "a100", "sxm" }, { "a100" } },
    boost_clock_hz = 1410e6, dram_bytes = 40e9, dram_bw_bytes_per_s = 1555 * G,
    l2_bytes = 40 * MB,
    peaks = { fp64 = 9.7 * T, fp64_tc = 19.5 * T, fp32 = 19.5 * T, tf32 = 156 * T,
              fp16 = 312 * T, bf16 = 312 * T, int8 = 624 * T },
    source = "A100 datasheet [V, copy] for peaks; BW/clock/L2 [K]" },
  { id = "a100-sxm4-80gb", name = "NVIDIA A100 SXM4 80GB", cc = "8.0", sm_count = 108,
    aliases = { { "a100", "sxm4", "80gb" }, { "a100", "80gb" } },
    boost_clock_hz = 1410e6, dram_bytes = 80e9, dram_bw_bytes_per_s = 2039 * G,
    l2_bytes = 40 * MB,
    peaks = { fp64 = 9.7 * T, fp64_tc = 19.5 * T, fp32 = 19.5 * T, tf32 = 156 * T,
              fp16 = 312 * T, bf16 = 312 * T, int8 = 624 * T },
    source = "A100 product table [V, copy]: BW 2039 GB/s and peaks; rest [K]" },
  { id = "a100-pcie-40gb", name = "NVIDIA A100 PCIe 40GB", cc = "8.0", sm_count = 108,
    aliases = { { "a100", "pcie", "40gb" }, { "a100", "pcie" } },
    boost_clock_hz = 1410e6, dram_bytes = 40e9, dram_bw_bytes_per_s = 1555 * G,
    l2_bytes = 40 * MB,
    peaks = { fp64 = 9.7 * T, fp64_tc = 19.5 * T, fp32 = 19.5 * T, tf32 = 156 * T,
              fp16 = 312 * T, bf16 = 312 * T, int8 = 624 * T },
    source = "[K]; peaks A100 datasheet [V]" },
  { id = "a100-pcie-80gb", name = "NVIDIA A100 PCIe 80GB", cc = "8.0", sm_count = 108,
    aliases = { { "a100", "pcie", "80gb" } },
    boost_clock_hz = 1410e6, dram_bytes = 80e9, dram_bw_bytes_per_s = 1935 * G,
    l2_bytes = 40 * MB,
    peaks = { fp64 = 9.7 * T, fp64_tc = 19.5 * T, fp32 = 19.5 * T, tf32 = 156 * T,
              fp16 = 312 * T, bf16 = 312 * T, int8 = 624 * T },
    source = "A100 product table [V, copy]: BW 1935 GB/s and peaks; rest [K]" },
  -- A800: only what the corpus ncu report shows (CC 8.0, 108 SMs) [V-obs];
  -- no peaks in the reference.
  { id = "a800-sxm", name = "NVIDIA A800 SXM", cc = "8.0", sm_count = 108,
    aliases = { { "a800" } },
    source = "corpus ncu_text/cuda_gemm_a800_* (CC 8.0, 108 SMs) [V-obs]; no peaks in the reference" },
  { id = "a40", name = "NVIDIA A40", cc = "8.6", sm_count = 84, aliases = { { "a40" } },
    boost_clock_hz = 1740e6, dram_bw_bytes_per_s = 696 * G, l2_bytes = 6 * MB,
    peaks = { fp64 = 0.58 * T, fp32 = 37.4 * T, tf32 = 74.8 * T, fp16 = 149.7 * T,
              bf16 = 149.7 * T, int8 = 299.3 * T },
    source = "A40 datasheet [K]; FP64 [D]" },
  { id = "l4", name = "NVIDIA L4", cc = "8.9", sm_count = 58, aliases = { { "l4" } },
    boost_clock_hz = 2040e6, dram_bw_bytes_per_s = 300 * G, l2_bytes = 48 * MB,
    peaks = { fp64 = 0.47 * T, fp32 = 30.3 * T, tf32 = 60 * T, fp16 = 121 * T,
              bf16 = 121 * T, fp8 = 242.5 * T, int8 = 242.5 * T },
    source = "L4 datasheet [K]; FP64 [D]" },
  { id = "l40s", name = "NVIDIA L40S", cc = "8.9", sm_count = 142, aliases = { { "l40s" } },
    boost_clock_hz = 2520e6, dram_bw_bytes_per_s = 864 * G, l2_bytes = 96 * MB,
    peaks = { fp64 = 1.43 * T, fp32 = 91.6 * T, tf32 = 183 * T, fp16 = 362 * T,
              bf16 = 362 * T, fp8 = 733 * T, int8 = 733 * T },
    source = "L40S datasheet [K]; FP64 [D]" },
  { id = "h100-sxm", name = "NVIDIA H100 SXM5", cc = "9.0", sm_count = 132,
    aliases = { { "h100", "sxm5" }, { "h100", "sxm" }, { "h100", "hbm3" }, { "h100" } },
    boost_clock_hz = 1980e6, tensor_clock_hz = 1830e6, dram_bytes = 80e9,
    dram_bw_bytes_per_s = 3.35 * T, l2_bytes = 50 * MB,
    peaks = { fp64 = 34 * T, fp64_tc = 67 * T, fp32 = 67 * T, tf32 = 494.5 * T,
              fp16 = 989.5 * T, bf16 = 989.5 * T, fp8 = 1979 * T, int8 = 1979 * T },
    source = "H100 product table [V, copy; dense = half of the * sparse values]; " ..
             "SMs and L2 [V, Hopper in-depth blog]; clocks [D]" },
  { id = "h100-pcie", name = "NVIDIA H100 PCIe", cc = "9.0", sm_count = 114,
    aliases = { { "h100", "pcie" } },
    boost_clock_hz = 1755e6, dram_bytes = 80e9, dram_bw_bytes_per_s = 2.0 * T,
    l2_bytes = 50 * MB,
    peaks = { fp64 = 26 * T, fp64_tc = 51 * T, fp32 = 51 * T, tf32 = 378 * T,
              fp16 = 756 * T, bf16 = 756 * T, fp8 = 1513 * T, int8 = 1513 * T },
    source = "H100 PCIe product brief [K]" },
  { id = "h100-nvl", name = "NVIDIA H100 NVL", cc = "9.0", sm_count = 132,
    aliases = { { "h100", "nvl" } },
    boost_clock_hz = 1785e6, dram_bytes = 94e9, dram_bw_bytes_per_s = 3.9 * T,
    l2_bytes = 50 * MB,
    peaks = { fp64 = 30 * T, fp64_tc = 60 * T, fp32 = 60 * T, tf32 = 417.5 * T,
              fp16 = 835.5 * T, bf16 = 835.5 * T, fp8 = 1670.5 * T, int8 = 1670.5 * T },
    source = "H100 product table NVL column [V, copy]; SMs [D]; clock [K]" },
  -- H20: only what the corpus shows (CC 9.0, 78 SMs per the CUDA_GEMM
  -- README) [V-obs]; no peaks in the reference.
  { id = "h20", name = "NVIDIA H20", cc = "9.0", sm_count = 78, aliases = { { "h20" } },
    source = "corpus ncu_text/cuda_gemm_h20_* (CC 9.0, # SMs 78) [V-obs]; no peaks in the reference" },
  { id = "h200-sxm", name = "NVIDIA H200 SXM", cc = "9.0", sm_count = 132,
    aliases = { { "h200" } },
    boost_clock_hz = 1980e6, dram_bytes = 141e9, dram_bw_bytes_per_s = 4.8 * T,
    l2_bytes = 50 * MB,
    peaks = { fp64 = 34 * T, fp64_tc = 67 * T, fp32 = 67 * T, tf32 = 494.5 * T,
              fp16 = 989.5 * T, bf16 = 989.5 * T, fp8 = 1979 * T, int8 = 1979 * T },
    source = "H200 product table [V, copy]; rest [K]" },
  { id = "gh200", name = "NVIDIA GH200 (GPU)", cc = "9.0", sm_count = 132,
    aliases = { { "gh200" } },
    boost_clock_hz = 1980e6, dram_bw_bytes_per_s = 4.0 * T, l2_bytes = 50 * MB,
    peaks = { fp64 = 34 * T, fp64_tc = 67 * T, fp32 = 67 * T, tf32 = 494.5 * T,
              fp16 = 989.5 * T, bf16 = 989.5 * T, fp8 = 1979 * T, int8 = 1979 * T },
    source = "GH200 datasheet [K] (96 GB HBM3 variant: 4.0 TB/s)" },
  { id = "b200", name = "NVIDIA B200 (HGX, per GPU)", cc = "10.0", sm_count = 148,
    aliases = { { "b200" } },
    dram_bytes = 180e9, dram_bw_bytes_per_s = 7.7 * T, l2_bytes = 129536 * KB,
    peaks = { fp64 = 37 * T, fp64_tc = 37 * T, fp32 = 75 * T, tf32 = 1100 * T,
              fp16 = 2250 * T, bf16 = 2250 * T, fp8 = 4500 * T, int8 = 4500 * T,
              fp4 = 9000 * T },
    source = "HGX B200 spec table [V, copy]; SMs and L2 [V-obs device query]" },
  { id = "rtx-2050", name = "NVIDIA GeForce RTX 2050 (laptop)", cc = "8.6", sm_count = 16,
    aliases = { { "rtx", "2050" } },
    source = "corpus ncu_text/unknownrepo_rtx2050_* device query (CC 8.6, 16 SMs) [V-obs]; no peaks in the reference" },
  { id = "rtx-3060", name = "NVIDIA GeForce RTX 3060", cc = "8.6", sm_count = 28,
    aliases = { { "rtx", "3060" } },
    boost_clock_hz = 1777e6, dram_bw_bytes_per_s = 360 * G, l2_bytes = 3 * MB,
    peaks = { fp64 = 0.20 * T, fp32 = 12.7 * T, tf32 = 12.7 * T, fp16 = 25.5 * T,
              bf16 = 25.5 * T, fp16_acc16 = 51.0 * T, int8 = 101.9 * T },
    source = "RTX 3060 spec page [K]; per-SM rates GA102 whitepaper [K]; all peaks [D]" },
  { id = "rtx-3090", name = "NVIDIA GeForce RTX 3090", cc = "8.6", sm_count = 82,
    aliases = { { "rtx", "3090" } },
    boost_clock_hz = 1695e6, dram_bw_bytes_per_s = 936 * G, l2_bytes = 6291456,
    peaks = { fp64 = 0.56 * T, fp32 = 35.6 * T, tf32 = 35.6 * T, fp16 = 71 * T,
              bf16 = 71 * T, fp16_acc16 = 142 * T, int8 = 284 * T },
    source = "GA102 whitepaper appendix [K]; SMs and L2 [V-obs device query]; FP64 [D]" },
  { id = "rtx-4090", name = "NVIDIA GeForce RTX 4090", cc = "8.9", sm_count = 128,
    aliases = { { "rtx", "4090" } },
    boost_clock_hz = 2520e6, dram_bw_bytes_per_s = 1008 * G, l2_bytes = 72 * MB,
    peaks = { fp64 = 1.29 * T, fp32 = 82.6 * T, tf32 = 82.6 * T, fp16 = 165.2 * T,
              bf16 = 165.2 * T, fp16_acc16 = 330.3 * T, fp8 = 330.3 * T, int8 = 660.6 * T },
    source = "Ada whitepaper appendix [K]; FP64 [D]; fp8 = FP32-accumulate rate" },
  { id = "rtx-5090", name = "NVIDIA GeForce RTX 5090", cc = "12.0", sm_count = 170,
    aliases = { { "rtx", "5090" } },
    boost_clock_hz = 2407e6, dram_bw_bytes_per_s = 1792 * G, l2_bytes = 96 * MB,
    peaks = { fp64 = 1.64 * T, fp32 = 104.8 * T, tf32 = 104.8 * T, fp16 = 209.5 * T,
              bf16 = 209.5 * T, fp16_acc16 = 419 * T, fp8 = 419 * T, int8 = 838 * T },
    source = "RTX Blackwell whitepaper [K]; SMs and CC [V-obs]; FP64 [D]" },
  { id = "rtx-a6000", name = "NVIDIA RTX A6000", cc = "8.6", sm_count = 84,
    aliases = { { "rtx", "a6000" } },
    boost_clock_hz = 1800e6, dram_bw_bytes_per_s = 768 * G, l2_bytes = 6 * MB,
    peaks = { fp64 = 0.60 * T, fp32 = 38.7 * T, tf32 = 77.4 * T, fp16 = 154.8 * T,
              bf16 = 154.8 * T, int8 = 309.7 * T },
    source = "RTX A6000 datasheet [K]; TF32/INT8/FP64 [D]" },
  { id = "rtx-6000-ada", name = "NVIDIA RTX 6000 Ada", cc = "8.9", sm_count = 142,
    aliases = { { "rtx", "6000", "ada" } },
    boost_clock_hz = 2505e6, dram_bw_bytes_per_s = 960 * G, l2_bytes = 96 * MB,
    peaks = { fp64 = 1.42 * T, fp32 = 91.1 * T, tf32 = 182.1 * T, fp16 = 364.2 * T,
              bf16 = 364.2 * T, fp8 = 728.5 * T, int8 = 728.5 * T },
    source = "RTX 6000 Ada datasheet [K]; TF32/FP16/INT8/FP64 [D]" },
  -- AMD.  MI250X shows up as two devices (one per GCD); this entry is ONE
  -- GCD: half the CUs, bandwidth, L2 and peaks of the package [D].
  { id = "mi250x-gcd", name = "AMD Instinct MI250X (one GCD)", vendor = "amd", arch = "gfx90a",
    sm_count = 110, aliases = { { "mi250x" } },
    boost_clock_hz = 1700e6, dram_bw_bytes_per_s = 1.6384 * T, l2_bytes = 8 * MB,
    peaks = { fp64 = 23.95 * T, fp64_tc = 47.85 * T, fp32 = 23.95 * T,
              fp16 = 191.5 * T, bf16 = 191.5 * T, int8 = 191.5 * T },
    source = "CUs and L2 [V, ROCm table]; package peaks MI250X datasheet [K], halved per GCD [D]" },
  { id = "mi300x", name = "AMD Instinct MI300X", vendor = "amd", arch = "gfx942",
    sm_count = 304, aliases = { { "mi300x" } },
    boost_clock_hz = 2100e6, dram_bytes = 192e9, dram_bw_bytes_per_s = 5.3 * T,
    l2_bytes = 32 * MB,
    peaks = { fp64 = 81.7 * T, fp64_tc = 163.4 * T, fp32 = 163.4 * T, tf32 = 653.7 * T,
              fp16 = 1307.4 * T, bf16 = 1307.4 * T, fp8 = 2614.9 * T, int8 = 2614.9 * T },
    source = "CUs, L2 [V, ROCm table]; 2100 MHz [V-obs]; peaks and BW [K]" },
  -- MI325X: the MI300X's compute (same CDNA 3 die, CUs and clock) with
  -- 256 GB HBM3E at 6 TB/s.
  { id = "mi325x", name = "AMD Instinct MI325X", vendor = "amd", arch = "gfx942",
    sm_count = 304, aliases = { { "mi325x" } },
    boost_clock_hz = 2100e6, dram_bytes = 256e9, dram_bw_bytes_per_s = 6.0 * T,
    peaks = { fp64 = 81.7 * T, fp64_tc = 163.4 * T, fp32 = 163.4 * T, tf32 = 653.7 * T,
              fp16 = 1307.4 * T, bf16 = 1307.4 * T, fp8 = 2614.9 * T, int8 = 2614.9 * T },
    source = "MI325X datasheet [K]: MI300X peaks, 256 GB HBM3E, 6 TB/s" },
  -- MI355X (CDNA 4): 8 XCDs x 32 CUs, 2.4 GHz, 8192 dense FP8 FLOP/clock
  -- per CU (ISSCC 2026) -> 5033 TFLOP/s FP8, half that FP16/BF16 [D];
  -- FP64/FP32, memory [K].  No TF32 on CDNA 4.
  { id = "mi355x", name = "AMD Instinct MI355X", vendor = "amd", arch = "gfx950",
    sm_count = 256, aliases = { { "mi355x" } },
    boost_clock_hz = 2400e6, dram_bytes = 288e9, dram_bw_bytes_per_s = 8.0 * T,
    peaks = { fp64 = 78.6 * T, fp64_tc = 78.6 * T, fp32 = 157.3 * T,
              fp16 = 2516.6 * T, bf16 = 2516.6 * T, fp8 = 5033.2 * T, int8 = 5033.2 * T,
              fp4 = 10066.3 * T },
    source = "MI355X datasheet [K] (288 GB HBM3E, 8 TB/s, FP64 78.6, FP32 157.3); matrix peaks [D]: 256 CUs x 8192 FP8 FLOP/clk x 2.4 GHz" },
}
M.models = models

-- precisions in the order a roofline draws them, with labels
M.precisions = {
  { id = "fp64", label = "FP64" }, { id = "fp64_tc", label = "FP64 tensor" },
  { id = "fp32", label = "FP32" }, { id = "tf32", label = "TF32 tensor" },
  { id = "fp16", label = "FP16 tensor" }, { id = "bf16", label = "BF16 tensor" },
  { id = "fp8", label = "FP8 tensor" }, { id = "int8", label = "INT8 tensor" },
}

---------------------------------------------------------------------------
-- functions
---------------------------------------------------------------------------

local function cc_key(x)
  if type(x) == "table" then
    if x.cc then return cc_key(x.cc) end
    if x.major then return string.format("%d.%d", x.major, x.minor or 0) end
    return nil
  end
  if type(x) == "number" then
    if x >= 20 then -- 86, 90, 100, 120
      local major = math.floor(x / 10)
      return string.format("%d.%d", major, math.floor(x - major * 10 + 0.5))
    end
    local major = math.floor(x)
    return string.format("%d.%d", major, math.floor((x - major) * 10 + 0.5))
  end
  if type(x) ~= "string" then return nil end
  local s = x:lower():gsub("^%s+", ""):gsub("%s+$", "")
  s = s:gsub("^cc%s*", ""):gsub("^compute_", ""):gsub("^sm_?", "")
  s = s:gsub("[af]$", "")             -- sm_90a, sm_100f
  local a, b = s:match("^(%d+)%.(%d+)$")
  if a then return string.format("%d.%d", tonumber(a), tonumber(b)) end
  if s:match("^%d+$") then
    local n = tonumber(s)
    if #s >= 2 then return string.format("%d.%d", n // 10, n % 10) end
    return string.format("%d.0", n)
  end
  return nil
end
M.cc_key = cc_key

local function cc_choices()
  local keys = {}
  for k in pairs(M.arch) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tonumber(a) < tonumber(b) end)
  return table.concat(keys, ", ")
end

--- gpus.cc(x) -> arch table or nil, message.  x: "8.6", 8.6, 86, "sm_86",
--- "CC 8.6", {major=8, minor=6}.
function M.cc(x)
  local k = cc_key(x)
  if k and M.arch[k] then return M.arch[k] end
  return nil, string.format("unknown compute capability %s (known: %s)", tostring(x), cc_choices())
end

local function tokens(name)
  local s = name:lower()
  local t, set = {}, {}
  for w in s:gmatch("[%w]+") do
    if w ~= "nvidia" and w ~= "tesla" and w ~= "geforce" and w ~= "amd"
       and w ~= "instinct" and w ~= "quadro" then
      t[#t + 1] = w; set[w] = true
    end
  end
  return t, set
end

--- gpus.model(name) -> model table or nil, message.  Accepts ids
--- ("a100-sxm4-80gb") and device names as tools print them ("NVIDIA
--- A100-SXM4-80GB", "Tesla V100-SXM2-16GB"): the model whose alias has the
--- most tokens, all present in the name, wins; ties go to the earlier entry
--- (user overrides come first).
function M.model(name)
  if type(name) == "table" then return name end
  if type(name) ~= "string" or name == "" then return nil, "no GPU name given" end
  local lname = name:lower()
  for _, m in ipairs(models) do
    if m.id == lname then return m end
  end
  local _, set = tokens(name)
  local best, best_score = nil, 0
  for _, m in ipairs(models) do
    local aliases = m.aliases or {}
    local cand = { table.unpack(aliases) }
    cand[#cand + 1] = (select(1, tokens(m.id)))
    for _, alias in ipairs(cand) do
      local ok = #alias > 0
      for _, w in ipairs(alias) do
        if not set[w] then ok = false; break end
      end
      if ok and #alias > best_score then best, best_score = m, #alias end
    end
  end
  if best then return best end
  local ids = {}
  for _, m in ipairs(models) do ids[#ids + 1] = m.id end
  return nil, string.format("unknown GPU '%s' (known: %s)", name, table.concat(ids, ", "))
end

--- gpus.list() -> array of models (the live table, in priority order)
function M.list() return models end

local function merge(dst, src)
  for k, v in pairs(src) do
    if type(v) == "table" and type(dst[k]) == "table" and k ~= "aliases"
       and k ~= "smem_carveouts_kb" then
      merge(dst[k], v)
    else
      dst[k] = v
    end
  end
  return dst
end

--- gpus.load_overrides(path) -> true | false, message
--- path is a Lua data file run in an empty environment that returns
---   { arch = { ["8.6"] = { max_blocks_per_sm = 16, ... } },
---     models = { { id = "my-gpu", cc = "8.9", sm_count = 60, ... }, ... } }
--- or just a list of models.  Models with a known id are updated field by
--- field; new ones are put first so their aliases win name matching.
--- A missing file is not an error (returns false, "not found").
function M.load_overrides(path)
  local f = io.open(path, "r")
  if not f then return false, "not found: " .. tostring(path) end
  f:close()
  local chunk, err = loadfile(path, "t", {})
  if not chunk then error("gpus: " .. err, 2) end
  local ok, data = pcall(chunk)
  if not ok then error("gpus: " .. path .. ": " .. tostring(data), 2) end
  if type(data) ~= "table" then error("gpus: " .. path .. ": must return a table", 2) end
  local mlist = data.models or (data[1] and data) or {}
  for k, a in pairs(data.arch or {}) do
    local key = cc_key(k) or k
    if M.arch[key] then merge(M.arch[key], a)
    else
      a.cc = key
      M.arch[key] = arch(a)
    end
  end
  local added = 0
  for _, m in ipairs(mlist) do
    if type(m) ~= "table" or not m.id then
      error("gpus: " .. path .. ": every model needs an id", 2)
    end
    local found
    for _, e in ipairs(models) do if e.id == m.id then found = e end end
    if found then merge(found, m)
    else
      if m.cc then m.cc = cc_key(m.cc) or m.cc end
      table.insert(models, 1 + added, m); added = added + 1
    end
  end
  return true
end

--- user overrides from the config directory, loaded once:
--- $XDG_CONFIG_HOME/perflab/gpus.lua or ~/.config/perflab/gpus.lua
--- (set PERFLAB_NO_USER_GPUS=1 to skip).
local user_loaded = false
function M.load_user_overrides()
  if user_loaded then return end
  user_loaded = true
  local ng = os.getenv("PERFLAB_NO_USER_GPUS")
  if ng and ng ~= "" and ng ~= "0" then return end
  local xdg = os.getenv("XDG_CONFIG_HOME")
  local dir = (xdg and xdg ~= "") and (xdg .. "/perflab")
    or (os.getenv("HOME") and (os.getenv("HOME") .. "/.config/perflab"))
  if dir then M.load_overrides(dir .. "/gpus.lua") end
end

local function tf(x) return x and (math.floor(x / 1e12 * 100 + 0.5) / 100) or nil end

--- rows for `perflab gpus`: one per model, peaks in TFLOPS (dense)
function M.columns()
  return { "id", "name", "cc", "sm_count", "boost_mhz", "l2_mib", "dram_gb_per_s",
           "fp64", "fp32", "tf32", "fp16", "fp8", "int8" }
end
function M.rows()
  M.load_user_overrides()
  local rows = {}
  for _, m in ipairs(models) do
    local pk = m.peaks or {}
    rows[#rows + 1] = { id = m.id, name = m.name, cc = m.cc or m.arch, sm_count = m.sm_count,
      boost_mhz = m.boost_clock_hz and math.floor(m.boost_clock_hz / 1e6 + 0.5) or nil,
      l2_mib = m.l2_bytes and math.floor(m.l2_bytes / 1048576 * 10 + 0.5) / 10 or nil,
      dram_gb_per_s = m.dram_bw_bytes_per_s and math.floor(m.dram_bw_bytes_per_s / 1e9 + 0.5) or nil,
      fp64 = tf(pk.fp64), fp32 = tf(pk.fp32), tf32 = tf(pk.tf32), fp16 = tf(pk.fp16),
      fp8 = tf(pk.fp8), int8 = tf(pk.int8) }
  end
  return rows
end

--- infer_cc{block_limit_sm=, block_limit_warps=, warps_per_block=,
--- smem_driver=, smem_config=} -> list of CC keys consistent with what an
--- ncu report printed (for reports that print no "CC x.y"), in order.
function M.infer_cc(e)
  local out = {}
  local keys = {}
  for k in pairs(M.arch) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tonumber(a) < tonumber(b) end)
  for _, k in ipairs(keys) do
    local a = M.arch[k]
    local ok = true
    if e.block_limit_sm and a.max_blocks_per_sm ~= e.block_limit_sm then ok = false end
    if ok and e.block_limit_warps and e.warps_per_block and e.warps_per_block > 0
       and a.max_warps_per_sm // e.warps_per_block ~= e.block_limit_warps then ok = false end
    if ok and e.smem_driver and a.smem_reserved_per_block ~= e.smem_driver then ok = false end
    if ok and e.max_warps_per_sm and a.max_warps_per_sm ~= e.max_warps_per_sm then ok = false end
    if ok and e.smem_config and e.smem_config > 0 then
      local found = false
      for _, c in ipairs(a.smem_carveouts_kb) do if c * 1024 == e.smem_config then found = true end end
      if not found then ok = false end
    end
    if ok then out[#out + 1] = k end
  end
  return out
end

--- infer_sm_count(grid, waves_printed, active_blocks [, decimals=2]) -> n or nil:
--- the SM count n for which grid / (n x active) rounds to the printed waves,
--- when exactly one n does.
function M.infer_sm_count(grid, waves, active, decimals)
  if not (grid and waves and active) or waves <= 0 or active <= 0 then return nil end
  local scale = 10 ^ (decimals or 2)
  local guess = grid / (waves * active)
  local found
  for n = math.max(1, math.floor(guess * 0.8)), math.ceil(guess * 1.2) + 1 do
    local w = grid / (n * active)
    if math.floor(w * scale + 0.5) == math.floor(waves * scale + 0.5) then
      if found then return nil end
      found = n
    end
  end
  return found
end

return M

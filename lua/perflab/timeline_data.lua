--- perflab.timeline_data: the editable data behind the timeline recipes
-- (step-breakdown, idle-time, launch-latency).  Copy this file to a
-- directory on PERFLAB_LUA_DIR (or edit it in place) to change a pattern or a
-- threshold; no rebuild is needed when PERFLAB_LUA_DIR points at lua/.
--
-- Sources: the TensorBoard profiler plugin (pytorch/kineto tb_plugin,
-- torch_tb_profiler/profiler/{trace,event_parser,tensor_core,data}.py) and
-- HTA (facebookresearch/HolisticTraceAnalysis, hta/analyzers/*.py), as
-- summarised in shared/reference/analysis-rules.md items 20-27 and 32.
local M = {}

--- Step-time categories, highest priority first (tb_plugin ProfileRole).
M.categories = {
  { key = "kernel",        label = "Kernel" },
  { key = "memcpy",        label = "Memcpy" },
  { key = "memset",        label = "Memset" },
  { key = "communication", label = "Communication" },
  { key = "runtime",       label = "Runtime" },
  { key = "dataloader",    label = "DataLoader" },
  { key = "cpu_exec",      label = "CPU Exec" },
  { key = "other",         label = "Other" },
}

--- Event categories (the trace's `cat`, lower-cased) that count as runtime
-- calls: they are the Runtime category and, through their correlation id,
-- tie device work to the host step that launched it.  The plugin counts
-- "cuda_driver" in neither role; add it here for traces whose kernels are
-- launched with cuLaunchKernel (Triton).
M.runtime_cats = { runtime = true, cuda_runtime = true, mtia_runtime = true, glow_runtime = true,
                   xpu_runtime = true, privateuse1_runtime = true }

--- Host-side categories that count as CPU Exec (and DataLoader when the name
-- matches below).  The plugin also counts "gpu_user_annotation" here; we do
-- not, since those spans lie on the GPU timeline, not the host's.
M.cpu_cats = { cpu_op = true, operator = true, python = true, user_annotation = true }

--- DataLoader: a host op whose name matches one of these (Lua patterns).
M.dataloader_patterns = { "^enumerate%(DataLoader%)#.*%.__next__$", "^enumerate%(DataPipe%)#" }

--- Collective communication (host ops and kernel names): one rule set for
-- every recipe, in lua/perflab/comm.lua (edit it there).
M.comm_ops = require("perflab.comm").op_names

--- Tensor-core kernels: a kernel uses tensor cores when its name contains
-- one of these substrings (tb_plugin tensor_core.py, after NVIDIA PyProf).
M.tc_kernel_substrings = {
  "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816",
  "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1",
  "conv2d_c1_k1", "direct_group", "xmma_implicit_gemm",
  "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm",
  "xmma_gemm", "xmma_sparse_gemm", "c1688",
}

--- Tensor-core and matrix-core kernel families the plugin's list above
-- predates: Lua patterns on the lower-cased kernel name.  They
-- decide only whether the tensor_cores advice applies; the "Kernel Time
-- using Tensor Cores" figure stays the plugin's.  `precision` is what the
-- name says of the data type (nil: not said).  Edit to add a library.
M.tc_kernel_families = {
  -- FP8 / FP4 (Hopper, Blackwell; cuBLASLt, TensorRT-LLM, CUTLASS)
  { pat = "e4m3", family = "FP8 (E4M3)", precision = "fp8" },
  { pat = "e5m2", family = "FP8 (E5M2)", precision = "fp8" },
  { pat = "fp8", family = "FP8", precision = "fp8" },
  { pat = "e2m1", family = "FP4 (E2M1)", precision = "fp4" },
  { pat = "nvfp4", family = "NVFP4", precision = "fp4" },
  { pat = "mxfp4", family = "MXFP4", precision = "fp4" },
  { pat = "mxfp8", family = "MXFP8", precision = "fp8" },
  -- NVIDIA tensor-core GEMM/attention families of CUDA 12+
  { pat = "^nvjet", family = "cuBLAS nvjet (Hopper/Blackwell tensor cores)" },
  { pat = "tcgen05", family = "tcgen05 (Blackwell tensor cores)" },
  { pat = "fmhasm1%d%d", family = "FMHA sm100" },
  { pat = "fmhasm90", family = "FMHA sm90" },
  { pat = "sm90_xmma", family = "sm90 xmma" },
  { pat = "sm100_xmma", family = "sm100 xmma" },
  { pat = "wgmma", family = "wgmma (Hopper)" },
  { pat = "gmma", family = "gmma (Hopper)" },
  { pat = "cutlass3x_sm%d+", family = "CUTLASS 3 sm90+" },
  { pat = "_sm1[02]0[af]?_", family = "sm100/sm120 kernels" },
  { pat = "_sm1[02]0[af]?$", family = "sm100/sm120 kernels" },
  { pat = "_sm90a?_", family = "sm90 kernels" },
  { pat = "tensorop", family = "CUTLASS tensorop" },
  { pat = "flash_fwd", family = "FlashAttention" },
  { pat = "flash_bwd", family = "FlashAttention" },
  -- AMD matrix cores (MFMA): Tensile / hipBLASLt "Cijk_..._MI16x16x1_...",
  -- composable_kernel xdl, rocWMMA
  { pat = "^cijk_.*_mi%d+x%d+x%d+", family = "AMD MFMA (Tensile/hipBLASLt)", vendor = "amd" },
  { pat = "mfma", family = "AMD MFMA", vendor = "amd" },
  { pat = "xdlops", family = "AMD MFMA (composable_kernel xdl)", vendor = "amd" },
  { pat = "_xdl_", family = "AMD MFMA (composable_kernel xdl)", vendor = "amd" },
  { pat = "wmma", family = "WMMA" },
}

--- Operators whose kernels could use tensor cores (exact names).
M.tc_eligible_ops = {}
for _, n in ipairs({
  "aten::_convolution", "aten::_convolution_nogroup",
  "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_tbc",
  "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
  "aten::convolution", "aten::cudnn_convolution", "aten::cudnn_convolution_transpose",
  "aten::prelu", "aten::addmm", "aten::addmv", "aten::addr",
  "aten::matmul", "aten::mm", "aten::mv",
  "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm",
  "aten::chain_matmul", "aten::linalg_multi_dot",
  "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell", "aten::lstm_cell",
  "aten::gru_cell", "aten::rnn_tanh_cell", "aten::rnn_relu_cell",
  "CudnnConvolutionBackward", "BmmBackward0",
  "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward",
  "MmBackward", "aten::cudnn_convolution_backward_weight", "aten::addmm_",
  "AddmvBackward", "MvBackward",
  "aten::cudnn_convolution_transpose_backward_weight",
  "aten::cudnn_convolution_transpose_backward_input",
  "AddmmBackward", "aten::cudnn_convolution_backward_input",
  "AddbmmBackward", "aten::cudnn_convolution_backward",
}) do M.tc_eligible_ops[n] = true end

--- Recommendation thresholds (tb_plugin data.py).
M.thresholds = {
  dataloader_pct = 5,        -- DataLoader share of the step above this
  communication_pct = 10,    -- communication share of the step above this
  gpu_util_pct = 50,         -- GPU utilisation below this
  memcpy_pct = 20,           -- copies no kernel overlaps above this share of the step (perflab's, not tb_plugin's)
  memory_pct = 90,           -- peak device memory above this share of capacity
  tc_min_cc_major = 7,       -- tensor cores exist from compute capability 7.0
  nccl_min_cc = 3.5,         -- NCCL recommended for DDP from cc 3.5
  tail_step_kernel_ratio = 0.8, -- last step dropped when it matched < 80 % of the previous step's device ops
}

--- HTA idle-time and launch statistics (analysis-rules.md items 21-23).
M.hta = {
  kernel_wait_ns = 30,             -- a gap shorter than this, launch already issued: kernel wait
  runtime_outlier_ns = 50000,      -- runtime call longer than 50 us
  launch_delay_outlier_ns = 100000, -- launch delay longer than 100 us
  queue_length_flag = 1024,        -- outstanding ops at which the CPU blocks
}

return M

--- perflab.nvprof_rules: what limits each kernel of an nvprof `--metrics`
-- run, the way the Visual Profiler's guided analysis read the same
-- metrics, as data for the ncu-rules evaluator (perflab.ncu_rules.run):
-- the mapping from nvprof metric names to the keys the rules read (with
-- the unit conversion), the rule list, the stall-reason texts, and the
-- helpers that turn nvprof's metrics table into what the evaluator reads.
-- The rule blocks are in recipes/nvprof-rules.lua; docs/nvprof-rules.md.
--
-- Metric definitions: CUDA Profiler User's Guide, "Metrics Reference"
-- (nvprof / nvvp, https://docs.nvidia.com/cuda/profiler-users-guide/,
-- section "Metrics Reference"; nvprof --query-metrics prints the same
-- texts).  Thresholds: Nsight Compute's rules for the same quantity,
-- ../shared/reference/analysis-rules.md (items named at each threshold) --
-- nvvp's own guided-analysis thresholds are not in the reference, so none
-- is invented here.  nvprof --metrics runs record no kernel durations
-- (kernels are replayed): no rule prints a time or a speedup estimate.
local R = require "perflab.ncu_rules"

local M = {}

local ncu = R.thresholds
M.thresholds = {
  -- analysis-rules.md item 1 (SOLBottleneck) on nvprof's 0-10 utilization
  -- levels, a level being a tenth of the peak ("utilization level ...
  -- relative to the peak utilization on a scale of 0 to 10"): >= 8 high,
  -- both < 6 latency, a difference >= 1 level (10 points) decides
  level_high = ncu.sol_high / 10,
  level_low = ncu.sol_low / 10,
  level_diff = ncu.sol_diff / 10,
  occupancy_low = ncu.occupancy_low,     -- item 5: occupancy below 80 % of the maximum
  stall_share = ncu.stall_ratio * 100,   -- item 8: a reason taking > 30 % of the stalls
  active_threads = ncu.active_threads,   -- item 9: < 24 of 32 threads active per warp
  global_excess_pct = ncu.uncoalesced_pct, -- item 14: any excess global transactions
  shared_excess_pct = ncu.bank_conflict_pct, -- item 16: >= 10 % of shared wavefronts are replays
}

-- nvprof metric -> the key a rule reads; {name, scale} converts the unit
-- (perflab.ncu_rules aliases).  Keys that ncu's rules read too
-- (active_threads, pred_on_threads, fadd...) carry the ncu meaning.
M.aliases = {
  active_threads = { { "warp_execution_efficiency", 32 / 100 } },        -- % of 32 lanes -> threads
  pred_on_threads = { { "warp_nonpred_execution_efficiency", 32 / 100 } },
  achieved_occupancy_pct = { { "achieved_occupancy", 100 } },            -- ratio 0-1 -> %
  sm_efficiency_pct = { "sm_efficiency" },
  warp_execution_efficiency_pct = { "warp_execution_efficiency" },
  branch_efficiency_pct = { "branch_efficiency" },
  gld_efficiency_pct = { "gld_efficiency" },
  gst_efficiency_pct = { "gst_efficiency" },
  shared_efficiency_pct = { "shared_efficiency" },
  flops_sp = { "flop_count_sp" },
  flops_dp = { "flop_count_dp" },
  flops_hp = { "flop_count_hp" },
  dram_read_bytes = { "dram_read_bytes", { "dram_read_transactions", 32 } },   -- 32 B per transaction
  dram_write_bytes = { "dram_write_bytes", { "dram_write_transactions", 32 } },
}

-- utilization levels (0-10): the units nvprof reports, by side
M.compute_units = {
  { "alu_fu_utilization", "arithmetic (ALU)" }, { "single_precision_fu_utilization", "FP32" },
      { "double_precision_fu_utilization", "FP64" },
  { "half_precision_fu_utilization", "FP16" }, { "tensor_precision_fu_utilization", "tensor" },
  { "tensor_int_fu_utilization", "tensor INT" }, { "special_fu_utilization", "special functions" },
  { "ldst_fu_utilization", "load/store" }, { "cf_fu_utilization", "control flow" },
  { "tex_fu_utilization", "texture" },
}
M.memory_units = {
  { "dram_utilization", "device memory" }, { "l2_utilization", "L2" }, { "tex_utilization", "unified (L1/tex) cache" },
  { "shared_utilization", "shared memory" }, { "l1_shared_utilization", "L1/shared memory" },
      { "sysmem_utilization", "system memory" },
}

-- stall reasons: nvprof's stall_* metrics are the percentage of stalls
-- due to the reason (Metrics Reference); the texts paraphrase it
M.stalls = {
  { "stall_inst_fetch", "the next instruction not yet fetched" },
  { "stall_exec_dependency",
      "an input not yet available (execution dependency): increase instruction-level parallelism" },
  { "stall_memory_dependency",
      "a memory operation waiting for resources or data (memory dependency): improve locality or coalescing, hide latency" },
  { "stall_texture", "the texture subsystem fully used or with too many outstanding requests" },
  { "stall_sync", "a __syncthreads barrier" },
  { "stall_constant_memory_dependency", "an immediate constant cache miss" },
  { "stall_pipe_busy", "a busy compute pipeline" },
  { "stall_memory_throttle", "memory throttle (too many pending memory operations): fewer, wider accesses" },
  { "stall_not_selected", "not being selected while eligible (enough parallelism; not a problem by itself)" },
  { "stall_other", "a miscellaneous reason" },
  { "stall_sleeping", "sleeping threads" },
}

-- the rules (ids, the ncu rule whose threshold each applies, inputs)
M.rules = {
  { id = "nvprof.bound", ncu = "SOLBottleneck", title = "utilization bottleneck",
    inputs = { "*_fu_utilization", "dram/l2/tex/shared/sysmem_utilization" } },
  { id = "nvprof.roofline", title = "arithmetic intensity vs the ridge point",
    inputs = { "flop_count_sp/dp/hp", "dram_read/write_bytes (or _transactions x 32 B)", "device peaks" },
    formula = "AI = flops / (dram read + write bytes); ridge = peak FLOP/s / peak bytes/s" },
  { id = "nvprof.occupancy", ncu = "TheoreticalOccupancy", title = "achieved occupancy",
    inputs = { "achieved_occupancy" } },
  { id = "nvprof.warp_stall", ncu = "CPIStall", title = "dominant stall reason", inputs = { "stall_*" } },
  { id = "nvprof.thread_divergence", ncu = "ThreadDivergence", title = "warp execution efficiency",
    inputs = { "warp_execution_efficiency" }, formula = "active threads = warp_execution_efficiency x 32 / 100" },
  { id = "nvprof.global_efficiency", ncu = "UncoalescedGlobalAccess", title = "global load/store efficiency",
    inputs = { "gld_efficiency", "gst_efficiency" }, formula = "excess = 100 - efficiency %" },
  { id = "nvprof.shared_efficiency", ncu = "SharedMemoryConflicts", title = "shared-memory efficiency",
    inputs = { "shared_efficiency" }, formula = "replayed share = 100 - efficiency %" },
}
for _, r in ipairs(M.rules) do R.other_rules[#R.other_rules + 1] = r end

-- every metric name the rules read, for the evaluator's pivot
for _, list in ipairs({ M.compute_units, M.memory_units, M.stalls }) do
  for _, u in ipairs(list) do M.aliases[u[1]] = { u[1] } end
end

--- level(text) -> the number in "Low (1)" .. "Max (10)", or nil
function M.level(s)
  local n = type(s) == "string" and s:match("%((%d+)%)%s*$")
  return n and tonumber(n) or nil
end

--- metrics(p) -> p's metrics table with `value` filled from the level
--- of utilization rows ("Low (1)" -> 1; nvprof prints them as text)
function M.metrics(p)
  local m = p.tables.metrics
  local lv = m:col("raw"):map(M.level) / 1
  return m:copy():with("value", m:col("value"):fill(lv))
end

--- launches(p) -> one row per Kernel: block of the metrics table: id (=
--- kernel_id), name, short_name, invocations, device
function M.launches(p)
  local m = p.tables.metrics
  local aggs = { { "name", "first", "kernel" }, { "invocations", "max", "invocations" } }
  if m:has("short_name") then aggs[#aggs + 1] = { "short_name", "first", "short_name" } end
  if m:has("device") then aggs[#aggs + 1] = { "device", "first", "device" } end
  local k = m:group_by("kernel_id"):agg(aggs)
  return k:with("id", k:col("kernel_id"))
end

return M

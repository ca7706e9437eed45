--- perflab.ncu_rules: Nsight Compute's rule set as editable Lua data:
-- thresholds, the metrics each rule reads (every name it has had in the
-- details page and on the raw page), the parent that caps its speedup, the
-- message texts, and the patterns that recognise ncu's own rule output.
--
-- Thresholds and formulas: ../shared/reference/analysis-rules.md items 1-10,
-- 14, 16, 17, 19 (ncu 2025.x sections/*.py).  Users may edit a copy in
-- ~/.config/perflab or change the tables at run time
-- (require("perflab.ncu_rules").thresholds.issue_active = 0.5).
local M = {}

M.thresholds = {
  sol_high = 80,              -- SOLBottleneck: either throughput >= 80 %
  sol_low = 60,               -- both < 60 %: latency issue / small grid
  sol_diff = 10,              -- |SM - memory| >= 10 points: compute or memory dominates
  issue_active = 0.6,         -- IssueSlotUtilization: issued warps per cycle per scheduler
  stall_issue_active = 0.8,   -- CPIStall: only while issue_active < 0.8 ...
  stall_ratio = 0.3,          -- ... and a reason takes > 30 % of the cycles between issues
  occupancy_low = 80,         -- TheoreticalOccupancy: theoretical < 80 % of the maximum
  achieved_gap = 10,          -- AchievedOccupancy: theoretical - achieved > 10 points
  active_threads = 24,        -- ThreadDivergence: average active (or not predicated-off) threads per warp
  fma_ratio = 0.10,           -- FPInstructions: non_fused / (non_fused + fused) / 2 > 0.10
  bank_conflict_pct = 10,     -- SharedMemoryConflicts: conflicts / wavefronts >= 10 %
  uncoalesced_pct = 0,        -- UncoalescedGlobalAccess: any excessive L2 sectors (ncu reports them all)
  imbalance_pct = 5,          -- WorkloadImbalance: max or min distance from the average >= 5 %
  tail_min_speedup = 20,      -- LaunchStatistics tail effect (2025.x)
}

-- Metric aliases: the details-page name (any generation) first, then raw
-- metric names.  A rule runs only when all of its required inputs exist for
-- the launch; otherwise the report says which metric was absent.
M.metrics = {
  compute_pct = { "compute_throughput_pct", "Compute (SM) Throughput", "Compute (SM) [%]", "SM [%]",
                  "sm__throughput.avg.pct_of_peak_sustained_elapsed" },
  memory_pct = { "memory_throughput_pct", "Memory Throughput", "Memory [%]",
                 "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed" },
  l1_pct = { "l1tex_throughput_pct", "L1/TEX Cache Throughput", "SOL TEX",
             "l1tex__throughput.avg.pct_of_peak_sustained_active" },
  waves = { "waves_per_sm", "Waves Per SM", "launch__waves_per_multiprocessor" },
  issue_active = { "Issued Warp Per Scheduler", "smsp__issue_active.avg.per_cycle_active" },
  eligible_pct = { "One or More Eligible", "smsp__issue_active.avg.pct_of_peak_sustained_active" },
  active_warps = { "Active Warps Per Scheduler", "smsp__warps_active.avg.per_cycle_active" },
  eligible_warps = { "Eligible Warps Per Scheduler", "smsp__warps_eligible.avg.per_cycle_active" },
  cycles_per_issue = { "Warp Cycles Per Issued Instruction", "smsp__average_warp_latency_per_inst_issued.ratio",
                       "smsp__average_warps_issue_stalled_per_issue_active.ratio" },
  active_threads = { "Avg. Active Threads Per Warp", "smsp__thread_inst_executed_per_inst_executed.ratio" },
  pred_on_threads = { "Avg. Not Predicated Off Threads Per Warp",
                      "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio" },
  fadd = { "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum" },
  fmul = { "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum" },
  ffma = { "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" },
  dadd = { "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum" },
  dmul = { "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum" },
  dfma = { "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum" },
  fp_pipe_pct = { "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
                  "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active" },
  conflicts_ld = { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum" },
  conflicts_st = { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum" },
  wavefronts_ld = { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum" },
  wavefronts_st = { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum" },
  requests_ld = { "l1tex__data_pipe_lsu_requests_mem_shared_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_shared_op_ld.sum" },
  requests_st = { "l1tex__data_pipe_lsu_requests_mem_shared_op_st.sum",
      "l1tex__t_requests_pipe_lsu_mem_shared_op_st.sum" },
  sectors_global = { "memory_l2_theoretical_sectors_global", "Theoretical Sectors Global" },
  sectors_global_ideal = { "memory_l2_theoretical_sectors_global_ideal", "Theoretical Sectors Global Ideal" },
  l2_active = { "Average L2 Active Cycles", "lts__cycles_active.avg" },
  l2_elapsed = { "lts__cycles_elapsed.avg" },
}

-- WorkloadImbalance units: the max / min / avg active cycles per instance
-- and the elapsed cycles (raw page names; the details page prints only the
-- average and the total, so the rule cannot be re-derived from it).
M.imbalance_units = {
  { unit = "SMs", prefix = "sm__cycles_active", elapsed = "sm__cycles_elapsed.avg" },
  { unit = "SMSPs", prefix = "smsp__cycles_active", elapsed = "smsp__cycles_elapsed.avg" },
  { unit = "L1 Slices", prefix = "l1tex__cycles_active", elapsed = "l1tex__cycles_elapsed.avg" },
  { unit = "L2 Slices", prefix = "lts__cycles_active", elapsed = "lts__cycles_elapsed.avg" },
  { unit = "DRAM", prefix = "dram__cycles_active", elapsed = "dram__cycles_elapsed.avg" },
}

-- CPIStall: the per-reason metric name patterns (cycles per issued
-- instruction spent in the reason), and a one-line paraphrase per reason.
M.stall_patterns = {
  "^smsp__average_warps_issue_stalled_([%w_]-)_per_issue_active%.ratio$",
  "^smsp__average_warp_latency_issue_stalled_([%w_]-)%.ratio$",
  "^smsp__average_warps_issue_stalled_([%w_]-)_per_warp_active%.ratio$",
}
M.stall_text = {
  barrier = "waiting at a barrier (__syncthreads) for sibling warps: balance the work before the barrier",
  branch_resolving = "waiting for a branch target to resolve: fewer or more uniform branches",
  dispatch_stall = "a dispatcher stall (pipeline interlock)",
  drain = "draining memory writes at exit",
  imc_miss = "an immediate constant cache miss",
  lg_throttle = "the local/global memory queue being full: fewer, wider memory instructions",
  long_scoreboard = "a scoreboard dependency on an L1TEX (global, local, texture) operation: improve locality or hide latency",
  math_pipe_throttle = "a busy math execution pipe: the kernel is bound by that pipe",
  membar = "a memory barrier",
  mio_throttle = "the MIO (memory input/output) queue being full: shared-memory or special-math pressure",
  misc = "a miscellaneous hardware reason",
  no_instruction = "no fetched instruction (instruction cache miss or after a branch)",
  not_selected = "another eligible warp being selected (enough parallelism; not a problem by itself)",
  short_scoreboard = "a scoreboard dependency on an MIO operation (shared memory, special math): reduce bank conflicts, keep values in registers",
  sleeping = "sleeping threads (nanosleep, yield)",
  tex_throttle = "the texture unit queue being full",
  wait = "a fixed-latency dependency: increase instruction-level parallelism",
  warpgroup_arrive = "a warpgroup arrive/wait (Hopper wgmma)",
}

-- The rules perflab implements.  parent: the rule whose speedup caps this
-- one's (ncu's normalised parent speedup); inputs: metric keys required;
-- formula: how the speedup estimate is computed (shown in the evidence).
M.rules = {
  { id = "ncu.sol_bottleneck", ncu = "SOLBottleneck", title = "Speed-of-Light bottleneck",
    inputs = { "compute_pct", "memory_pct" } },
  { id = "ncu.issue_slots", ncu = "IssueSlotUtilization", title = "issue-slot utilisation",
    inputs = { "issue_active" },
    formula = "speedup = min(100 - issue %, 100 - max(SM %, memory %))" },
  { id = "ncu.theoretical_occupancy", ncu = "TheoreticalOccupancy", title = "theoretical occupancy",
    parent = "ncu.issue_slots", inputs = { "theoretical_occupancy_pct" },
    formula = "speedup = 100 - theoretical %" },
  { id = "ncu.achieved_occupancy", ncu = "AchievedOccupancy", title = "achieved vs theoretical occupancy",
    parent = "ncu.issue_slots", inputs = { "theoretical_occupancy_pct", "achieved_occupancy_pct" },
    formula = "speedup = (T - A) / T x 100" },
  { id = "ncu.warp_stall", ncu = "CPIStall", title = "warp-stall reasons",
    parent = "ncu.issue_slots", inputs = { "cycles_per_issue", "stall reasons (smsp__average_warps_issue_stalled_*)" },
    formula = "speedup = stall cycles / cycles per issued instruction" },
  { id = "ncu.thread_divergence", ncu = "ThreadDivergence", title = "thread divergence",
    inputs = { "active_threads", "compute_pct" },
    formula = "speedup = (1 - min(active, predicated-on)/32) x compute %" },
  { id = "ncu.fma_fusion", ncu = "FPInstructions", title = "FMA fusion",
    inputs = { "fadd", "fmul", "ffma" },
    formula = "speedup = 0.5 x non_fused / all x FP-pipe (or SM) utilisation" },
  { id = "ncu.bank_conflicts", ncu = "SharedMemoryConflicts", title = "shared-memory bank conflicts",
    inputs = { "conflicts_ld", "wavefronts_ld" },
    formula = "speedup = conflicts % x L1 throughput" },
  { id = "ncu.uncoalesced_global", ncu = "UncoalescedGlobalAccess", title = "uncoalesced global access",
    inputs = { "sectors_global", "sectors_global_ideal" },
    formula = "speedup = L2 active/elapsed x excess/total x 100" },
  { id = "ncu.workload_imbalance", ncu = "WorkloadImbalance", title = "workload imbalance",
    inputs = { "<unit>__cycles_active.max/.min/.avg" },
    formula = "speedup = (1 - avg/max) x active/elapsed" },
  { id = "ncu.block_size", ncu = "LaunchConfiguration", title = "block size not a multiple of 32",
    inputs = { "block_size" },
    formula = "speedup = (1/ceil(bs/32)) x (1 - (bs mod 32)/32) x 100" },
  { id = "ncu.small_grid", ncu = "LaunchConfiguration", title = "grid smaller than the SM count",
    inputs = { "grid_size", "sm_count" },
    formula = "speedup = (SMs - grid) / SMs x 100" },
  { id = "ncu.grid_below_2x_sms", ncu = "LaunchConfiguration", title = "grid below twice the SM count",
    inputs = { "grid_size", "sm_count" } },
  { id = "ncu.tail_effect", ncu = "LaunchConfiguration", title = "tail effect",
    inputs = { "grid_size", "sm_count", "active blocks" },
    formula = "speedup = 100 / (whole waves + 1)" },
}

-- ncu rules perflab does not re-derive, and why (shown in the report and
-- the docs).
M.not_implemented = {
  { ncu = "UncoalescedSharedAccess",
      why = "needs per-source-line shared wavefront counts (Source Counters tables), not exported in text/CSV details" },
  { ncu = "MemoryCacheAccessPattern",
      why = "needs bytes-per-sector per cache level and access kind; only sectors per request is ever exported" },
  { ncu = "HighPipeUtilization / SlowPipeLimiter",
      why = "needs per-pipeline utilisation (sm__inst_executed_pipe_*), printed only as a chart" },
  { ncu = "SpeedOfLight_Roofline (FP64 vs FP32)",
      why = "needs the per-precision FLOP counts of the roofline section; see the roofline recipe" },
  { ncu = "MemoryL2Compression / MemoryApertureUsage",
      why = "advice about a compression unit / aperture; rare, not in the issue's list" },
}

-- Recognising ncu's own rule output (text and CSV): message pattern -> id.
-- Lua patterns on the message, lower-cased.  nil id = informational text
-- that is not a finding (pointers to other sections, missing metrics).
M.ncu_patterns = {
  { "utilizing greater than 80", "ncu.sol_bottleneck" },
  { "low compute throughput and memory bandwidth", "ncu.sol_bottleneck" },
  { "grid is too small to fill", "ncu.sol_bottleneck" },
  { "more heavily utilized than", "ncu.sol_bottleneck" },
  { "balanced throughput", "ncu.sol_bottleneck" },
  { "every scheduler is capable of issuing", "ncu.issue_slots" },
  { "theoretical warps per scheduler", "ncu.theoretical_occupancy" },
  { "theoretical occupancy %([%d.]+%%%) is limited", "ncu.theoretical_occupancy" },
  { "difference between calculated theoretical", "ncu.achieved_occupancy" },
  { "cycles being stalled", "ncu.warp_stall" },
  { "non%-fused", "ncu.fma_fusion" },
  { "bank conflict", "ncu.bank_conflicts" },
  { "uncoalesced global accesses", "ncu.uncoalesced_global" },
  { "number of active cycles than the average", "ncu.workload_imbalance" },
  { "not a multiple of", "ncu.block_size" },
  { "configured to execute only", "ncu.small_grid" },
  { "__syncthreads", "ncu.grid_below_2x_sms" },
  { "a wave of thread blocks", "ncu.tail_effect" },
  { "active threads per warp", "ncu.thread_divergence" },
  { "uncoalesced shared accesses", "UncoalescedSharedAccess" },
  { "memory access pattern for", "MemoryCacheAccessPattern" },
  { "pipelines are under%-utilized", "HighPipeUtilization" },
  { "highest%-utilized pipeline", "HighPipeUtilization" },
  { "ratio of peak float", "SpeedOfLight_Roofline" },
  { "l2 compression unit", "MemoryL2Compression" },
}

--- classify(message) -> perflab rule id, the name of an ncu rule perflab
--- does not implement, or nil (informational)
function M.classify(message)
  local m = (message or ""):lower()
  for _, p in ipairs(M.ncu_patterns) do
    if m:find(p[1]) then return p[2] end
  end
  return nil
end

--- The sentences of a rule message: ncu versions lay the same advice out
--- differently (ncu 2022 merges the theoretical- and achieved-occupancy
--- advice into one paragraph), so messages are matched sentence by
--- sentence.  A sentence ends at . ! or ? before a space and a capital
--- letter or the end ("33.3%" and "e.g. the" do not end one).
function M.sentences(message)
  local out, start = {}, 1
  local m = message or ""
  for pos in m:gmatch("()[%.!?]%s+%u") do
    out[#out + 1] = m:sub(start, pos)
    start = pos + 1
  end
  out[#out + 1] = m:sub(start)
  for i, s in ipairs(out) do out[i] = s:match("^%s*(.-)%s*$") end
  return out
end

--- classify_all(message) -> every rule its sentences name, in order, each once
function M.classify_all(message)
  local ids, seen = {}, {}
  for _, s in ipairs(M.sentences(message)) do
    local id = M.classify(s)
    if id and not seen[id] then seen[id] = true; ids[#ids + 1] = id end
  end
  return ids
end

local by_id      -- rule id -> rule, built on first use
function M.rule(id)
  if not by_id then
    by_id = {}
    for _, r in ipairs(M.rules) do if by_id[r.id] == nil then by_id[r.id] = r end end
  end
  return by_id[id]
end

return M

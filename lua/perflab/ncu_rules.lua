--- perflab.ncu_rules: Nsight Compute's rule set as editable Lua data:
-- thresholds, the metrics each rule reads (every name it has had in the
-- details page and on the raw page), the parent that caps its speedup, the
-- message texts, and the patterns that recognise ncu's own rule output;
-- and the evaluator, run(), that runs the rule blocks of
-- recipes/ncu-rules.lua over a report and builds the findings and tables.
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

-- Rule lists of other tools that run on this evaluator (each {id, ncu =
-- the ncu rule whose threshold it applies, or nil, title, inputs,
-- formula}); perflab.nvprof_rules adds nvprof's.
M.other_rules = {}

local by_id      -- rule id -> rule, built on first use (again after M.rules grows)
function M.rule(id)
  if not by_id or by_id[id] == nil then
    by_id = {}
    for _, list in ipairs({ M.rules, M.other_rules }) do
      for _, r in ipairs(list) do if by_id[r.id] == nil then by_id[r.id] = r end end
    end
  end
  return by_id[id]
end

---------------------------------------------------------------------------
-- The evaluator: runs a list of rule blocks (recipes/ncu-rules.lua) over
-- one Nsight Compute report.  A rule block reads metrics as columns
-- (S.get), states its firing condition as a mask and its estimate and
-- evidence as column expressions, and hands them to S.emit; the evaluator
-- builds the findings, the ncu_rules table, the comparison with ncu's own
-- rule output and the notes.  Lua works once per rule, stall reason and
-- distinct value, not once per launch.
---------------------------------------------------------------------------

local T = require "perflab.table"
local cuda = require "perflab.cuda_occupancy"
local device = require "perflab.device"
local gpus = require "perflab.gpus"
local round = require("perflab.util").round

--- maybe(column): an evidence value missing on some firing launches (the
--- key is then left out of the evidence and the message reads nil)
function M.maybe(c) return { maybe = c } end
--- list(column): a "+"-joined text column that the evidence shows as a list
function M.list(c) return { list = c } end

-- the launch frame: kernels with the first value of each metric (pivot,
-- left-joined on the launch id), F.get(key) the metric by its aliases as a
-- column, the stall-reason columns
-- An alias is a metric name, or {name, scale}: the metric times scale (a
-- tool that records the same quantity in another unit, e.g. nvprof's
-- warp_execution_efficiency % x 32/100 = active threads per warp).
local function alias_name(a) return type(a) == "table" and a[1] or a end

local function frame(p, k, extra, mtable)
  local F = { k = k }
  local aliases = setmetatable({}, { __index = function(_, key)     -- ncu's names, then extra's
    local a, b = M.metrics[key], extra and extra[key]
    if not (a and b) then return a or b end
    local all = { table.unpack(a) }
    for _, x in ipairs(b) do all[#all + 1] = x end
    return all
  end })
  F.FALSE, F.ZERO, F.NONE = k:const(false), k:const(0), k:const(nil, "number")
  local types = k:types()
  F.row = k:rownum()
  local id = k:has("id") and types.id == "integer" and k:col("id") or nil
  F.id = id and id:fill(F.row - 1) or (F.row - 1)
  local kernel
  for _, c in ipairs({ "short_name", "name" }) do
    if k:has(c) and types[c] == "string" then kernel = kernel and kernel:fill(k:col(c)) or k:col(c) end
  end
  -- "launch N" only where a launch has no name (a text per row costs)
  local lname = T.sprintf("launch %s", kernel and F.id:keep(~kernel:present()) or F.id)
  F.kernel = kernel and kernel:fill(lname) or lname
  F.base = k:select({}):with("row", F.row):with("kernel_id", F.id):with("kernel", F.kernel)
  -- metrics, wide
  local mcol, stall = {}, {}
  local m = mtable or p.tables.metrics
  -- only the metrics a rule can read: the aliases of M.metrics, the
  -- imbalance units' and the stall reasons' (the launch statistics are
  -- columns of the kernels already); F.get refuses any other name
  local wanted = {}
  for _, map in ipairs({ M.metrics, extra or {} }) do
    for key, al in pairs(map) do
      wanted[key] = true
      for _, a in ipairs(al) do wanted[alias_name(a)] = true end
    end
  end
  for _, u in ipairs(M.imbalance_units) do
    for _, s in ipairs({ ".max", ".min", ".avg" }) do wanted[u.prefix .. s] = true end
    wanted[u.elapsed] = true
  end
  if m and m:nrows() > 0 then
    local names, name = {}, m:col("metric")
    for n in pairs(wanted) do names[#names + 1] = n end
    local use = name:isin(names)
    for _, pat in ipairs(M.stall_patterns) do use = use | name:match(pat) end
    m = m:filter(use, { "kernel_id", "metric", "value" })
  end
  if m and m:nrows() > 0 then
    -- (pivot's first skips missing values; rows without a launch id or a
    -- metric name give a row or a column "NA" that no rule reads)
    local wide = m:pivot { index = "kernel_id", columns = "metric", values = "value", agg = "first" }
    local J = F.base:select("kernel_id"):join(wide, { on = "kernel_id", how = "left" })
    local names = wide:columns()
    table.remove(names, 1)                              -- kernel_id
    for _, name in ipairs(names) do mcol[name] = J:col(J:has(name .. "_b") and name .. "_b" or name) end
    table.sort(names)
    local by_reason, order = {}, {}
    for _, name in ipairs(names) do
      for _, pat in ipairs(M.stall_patterns) do
        local reason = name:match(pat)
        if reason then
          if not by_reason[reason] then order[#order + 1] = reason; by_reason[reason] = mcol[name]
          else by_reason[reason] = by_reason[reason]:fill(mcol[name]) end
        end
      end
    end
    for _, reason in ipairs(order) do stall[#stall + 1] = { reason, by_reason[reason] } end
  end
  F.stall = stall
  local cache = {}
  function F.kcol(name)
    local t = types[name]
    if t == "number" or t == "integer" then return k:col(name) end
  end
  function F.get(key)
    local c = cache[key]
    if c then return c end
    if not aliases[key] and not wanted[key] then error("ncu-rules: metric '" .. key
        .. "' is read but was not pivoted") end
    for _, a in ipairs(aliases[key] or { key }) do
      local name, scale = alias_name(a), type(a) == "table" and a[2] or nil
      for _, v in ipairs({ F.kcol(name) or false, mcol[name] or false }) do
        if v and scale then v = v * scale end
        if v then c = c and c:fill(v) or v end
      end
    end
    c = c or F.NONE
    cache[key] = c
    return c
  end
  return F
end

-- results per distinct value of the key columns of table t: fn(row) once
-- per group gives a Lua row of `names`, broadcast to t's rows
local function per_distinct(t, keys, names, fn)
  local grp = t:select(keys):group_by(keys)
  local groups = grp:agg { { "n", "count" } }
  local rows = {}
  for g = 1, groups:nrows() do rows[g] = fn(groups:row(g)) end
  return grp:broadcast(T.from_rows(rows, names))
end

-- the launch-configuration rules' inputs as columns: block and grid size
-- (device.dim), SM count (device.row_device), active blocks per SM (printed block
-- limits, else the occupancy calculator once per distinct launch shape)
local function launch_columns(F, ctx, active)
  local k, get = F.k, F.kcol
  local function dim(scalar, prefix)
    local x = get(prefix .. "_x")
    local prod = x and x * (get(prefix .. "_y") or F.NONE):fill(1) * (get(prefix .. "_z") or F.NONE):fill(1)
    local s = get(scalar)
    return (s and prod and s:fill(prod)) or s or prod or F.NONE
  end
  local bs, grid = dim("block_size", "block"), dim("grid_size", "grid")
  local sms = get("sm_count") or F.NONE
  if ctx.devices and k:has("device") and k:types().device == "integer" then
    sms = sms:fill(k:col("device"):map(function(d) return ctx.devices[d] and ctx.devices[d].sm_count end) / 1)
  end
  if ctx.sm_count then sms = sms:fill(ctx.sm_count) end
  active = active or F.NONE
  if (~active:present() & grid:present() & sms:present() & (get("registers") or F.NONE):present()):count_true() > 0 then
    local keys = {}
    for _, c in ipairs({ "device", "cc", "sm_count", "block_size", "block_x", "block_y", "block_z", "registers",
      "smem_static_bytes", "smem_dynamic_bytes", "smem_config_bytes", "smem_driver_bytes" }) do
      if k:has(c) then keys[#keys + 1] = c end
    end
    local occ = per_distinct(k, keys, { "active" }, function(r)
      local cc = device.row_device(r, ctx)
      local b = device.dim(r, "block_size", "block")
      if cc and r.registers and gpus.cc(cc) then
        return { active = cuda.occupancy { cc = cc, block_size = b, registers = r.registers,
            smem_static = r.smem_static_bytes,
          smem_dynamic = r.smem_dynamic_bytes, smem_config = r.smem_config_bytes,
              smem_driver = r.smem_driver_bytes }.active_blocks }
      end
      return {}
    end)
    active = active:fill(occ:col("active") / 1)
  end
  return bs, grid, sms, active
end

-- the smallest printed block limit (active blocks per SM) and the limits
-- that equal it, "+"-joined (cuda_occupancy.LIMIT_NAMES order)
local function block_limits(F)
  local active
  for _, l in ipairs(cuda.LIMIT_NAMES) do
    local v = F.kcol(l.key)
    if v then active = active and active:min_with(v):fill(active):fill(v) or v end
  end
  local code = F.ZERO
  for j, l in ipairs(cuda.LIMIT_NAMES) do
    local v = F.kcol(l.key)
    if v and active then code = code + v:eq(active) * (1 << (j - 1)) end
  end
  local limiter = code:map(function(c)
    local lim = {}
    for j, l in ipairs(cuda.LIMIT_NAMES) do if c & (1 << (j - 1)) ~= 0 then lim[#lim + 1] = l.name end end
    return table.concat(lim, "+")
  end)
  return active, limiter
end

-- a string column by priority: the value of the first case whose mask
-- holds, else `default` (one Lua call per distinct combination of masks)
local function pick(zero, cases, default)
  local code = zero
  for j, c in ipairs(cases) do code = code + c[1] * (1 << (j - 1)) end
  return code:map(function(v)
    for j, c in ipairs(cases) do if v & (1 << (j - 1)) ~= 0 then return c[2] end end
    return default
  end)
end

-- what ncu itself fired in this file: per rule id, the mask of the rules
-- rows (message names it; each distinct message classified once) and the
-- launch mask (F's rows whose id has such a row)
local function ncu_fired(p, F)
  local rules = p.tables.rules
  local out = { ids = {}, rows = {}, launches = {}, n = {} }
  if not rules or rules:nrows() == 0 then return out end
  local ids_of, seen = {}, {}
  for _, msg in ipairs(rules:unique("message")) do
    ids_of[msg] = M.classify_all(msg)
    for _, id in ipairs(ids_of[msg]) do if not seen[id] then seen[id] = true; out.ids[#out.ids + 1] = id end end
  end
  table.sort(out.ids)
  local msgc, haskid = rules:col("message"), rules:col("kernel_id"):present()
  for _, rid in ipairs(out.ids) do
    local mk = msgc:map(function(msg)
      for _, id in ipairs(ids_of[msg]) do if id == rid then return true end end
      return false
    end) & haskid
    out.rows[rid] = mk
    local per = rules:filter(mk):group_by("kernel_id"):agg { { "n", "count" } }
    out.n[rid] = per:nrows()
    out.launches[rid] = F.base:select("kernel_id"):join(per, { on = "kernel_id", how = "left" }):col("n"):present()
  end
  local ids = {}
  for _, rid in ipairs(out.ids) do if out.n[rid] > 0 then ids[#ids + 1] = rid end end
  out.ids = ids
  return out
end

-- the evidence texts of the firing rows t: "name=value" in name order
-- (%.4g for numbers), a maybe() value only where it is present
local function evidence_column(t, ev)
  local names = {}
  for name in pairs(ev) do names[#names + 1] = name end
  table.sort(names)
  local fmt_, args, sep = "", {}, ""
  for _, name in ipairs(names) do
    local a = ev[name]
    local v = type(a) == "string" and a or type(a) == "number" and a or t:col("ev." .. name)
    local f = name .. ((type(v) == "string" or type(v) == "userdata" and v:type() == "string") and "=%s" or "=%.4g")
    if type(a) == "table" and a.maybe then
      fmt_ = fmt_ .. "%s"
      args[#args + 1] = T.sprintf(sep == "" and f .. " " or " " .. f, v):fill("")
    else
      fmt_ = fmt_ .. sep .. f
      args[#args + 1] = v
      sep = " "
    end
  end
  return T.sprintf(fmt_, table.unpack(args, 1, #args))
end

-- the evaluator S a rule block sees (documented at M.run): the firing rows
-- of each emit (S.parts), the masks per rule of the launches it fired on
-- (S.mine) and of those it could not evaluate (S.miss)
local function evaluator(F, ctx, fired, have_ncu_rules)
  local S = { k = F.k, get = F.get, kcol = F.kcol, stall = F.stall, parts = {}, mine = {}, miss = {} }
  local parts, mine = S.parts, S.mine
  local function addmask(tbl, id, m) tbl[id] = tbl[id] and (tbl[id] | m) or m end
  function S.absent(id, mask) S.miss[id] = mask end
  function S.pick(cases, default) return pick(F.ZERO, cases, default) end
  function S.launch(active) return launch_columns(F, ctx, active) end
  function S.block_limits() return block_limits(F) end
  -- one rule's firing rows: the rows of the ncu_rules table (part.t) and
  -- the values its finding reads (part.vals); o's fields at M.run
  function S.emit(id, seq, mask, o)
    addmask(mine, id, mask)
    if mask:count_true() == 0 then return end
    local t = F.base:copy()
    local private = {}
    local function carry(name, c) t:with(name, c); private[#private + 1] = name end
    for name, a in pairs(o.ev) do
      local c = type(a) == "table" and (a.maybe or a.list) or a
      if type(c) == "userdata" then carry("ev." .. name, c) end
    end
    for name, c in pairs(o.x or {}) do carry("x." .. name, c) end
    local sp = o.sp
    if sp and o.cap then
      carry("capm", sp:gt(o.cap)); carry("uncapped", sp)
      sp = o.cap:keep(t:col("capm")):fill(sp)
    end
    t:with("speedup", sp or F.NONE)
    if have_ncu_rules then carry("nf", fired.launches[id] or F.FALSE) end
    if type(o.sev) ~= "string" then t:with("severity", o.sev) end
    if o.gkey and type(o.gkey) ~= "string" then t:with("gkey", o.gkey) end
    t:with("sv", o.sv or F.NONE)
    t = t:filter(mask)
    t:with("evidence", evidence_column(t, o.ev))
    if o.cap and t:col("capm"):count_true() > 0 then t:with("capped_by",
        t:col("capm"):map({ [true] = M.rule(id).parent })) end
    if have_ncu_rules then t:with("ncu_fired", t:col("nf"):map({ [true] = "yes", [false] = "no" })) end
    local one = t:col("row"):present()
    t:with("seq", one * seq):with("sub", one * (o.sub or 0)):with("rule", one:map({ [true] = id }))
     :with("ncu_rule", one:map({ [true] = M.rule(id).ncu or "" }))
     :with("skey", one:map({ [true] = o.skey or "" }))
    if not o.gkey or type(o.gkey) == "string" then t:with("gkey", one:map({ [true] = o.gkey or "" })) end
    if type(o.sev) == "string" then t:with("severity", one:map({ [true] = o.sev })) end
    -- the values the finding reads, kept on the rows that can be a group's
    -- representative: per kernel and gkey, the first with the largest estimate
    local grp = t:group_by("kernel", "gkey")
    local best = grp:broadcast(grp:agg { { "best", "max", "speedup" } }):col("best")
    local repm = t:col("speedup"):eq(best) | ~best:present()
    local cand = t:col("row"):eq(grp:broadcast(grp:agg { { "r", "first", "row", where = repm } }):col("r"))
    local c_t = t:filter(cand)
    local vals = c_t:select("row", "speedup", "severity")
    for _, c in ipairs(c_t:columns()) do
      if c:find("^%a+%.") or c == "uncapped" or c == "capped_by" then vals:with(c, c_t:col(c)) end
    end
    t:drop(table.unpack(private))
    local at, rows = {}, vals:col("row")
    for j = 1, #rows do at[rows[j]] = j end                -- launch row -> row of vals
    local consts, lists = {}, {}
    for name, a in pairs(o.ev) do
      if type(a) == "string" or type(a) == "number" then consts[name] = a end
      if type(a) == "table" and a.list then lists[name] = true end
    end
    parts[#parts + 1] = { id = id, t = t, vals = vals, at = at, consts = consts, lists = lists, msg = o.msg }
    parts[id .. "|" .. (o.skey or "")] = parts[#parts]   -- rule and skey name the emit of a row
  end
  return S
end

-- the report's findings: one per group of identical findings (rule, kernel
-- and message shape), its message and evidence the values of the group's
-- representative launch (its largest estimate, the first among equals)
local function group_findings(report, fin, parts, want_ids, unit)
  unit = unit or { "launch", "launches" }
  local found = {}
  local grp = fin:group_by("rule", "kernel", "gkey")
  local G, ids = grp:agg { { "n", "count" }, { "best", "max", "speedup" }, { "rows", "ids" } }
  local best = grp:broadcast(G:select("best")):col("best")
  local repm = fin:col("speedup"):eq(best) | ~best:present()
  local rep = grp:agg { { "row", "first", "row", where = repm }, { "skey", "first", "skey", where = repm } }
  local kid = fin:col("kernel_id")
  for g = 1, G:nrows() do
    local kernel, n = G:get(g, "kernel"), G:get(g, "n")
    local o = parts[G:get(g, "rule") .. "|" .. rep:get(g, "skey")]
    local i = o.at[rep:get(g, "row")]
    local ev, v = { launches = n, formula = M.rule(o.id).formula }, {}     -- the evidence; what the message reads
    for name, x in pairs(o.consts) do ev[name], v[name] = x, x end
    for c, x in pairs(o.vals:row(i)) do
      local kind, name = c:match("^(%a+)%.(.*)$")
      if o.lists[name] then
        local l = {}
        for s in x:gmatch("[^+]+") do l[#l + 1] = s end
        x = l
      end
      if kind == "ev" then ev[name] = x end
      if name then v[name] = x end
    end
    local capped = o.vals:has("capped_by") and o.vals:get(i, "capped_by")
    if capped then ev.capped_by, ev.uncapped_speedup_pct = capped, round(o.vals:get(i, "uncapped")) end
    local rws = ids.rows[g]
    local shown = {}
    for j = 1, math.min(n, 3) do shown[j] = tostring(kid[rws[j]]) end
    local who = n == 1 and (unit[1] .. " " .. shown[1])
      or string.format("%d %s: %s%s", n, unit[2], table.concat(shown, ", "), n > 3 and ", ..." or "")
    local fd = report:finding { severity = o.vals:get(i, "severity"), rule = o.id, subject = kernel,
      message = string.format("%s: %s (%s)", kernel, o.msg(v), who), evidence = ev,
          speedup_pct = o.vals:get(i, "speedup") }
    local lids = {}
    if want_ids then for j, r in ipairs(rws) do lids[j] = kid[r] end end   -- only a timeline weighs them
    found[#found + 1] = { finding = fd, kernel = kernel, launch_ids = lids }
  end
  return found
end

local COLS = { "kernel_id", "kernel", "rule", "ncu_rule", "severity", "speedup_pct", "capped_by",
  "ncu_fired", "evidence" }

-- the comparison with ncu's own rule output: table ncu_compare<suffix> and
-- the note of what ncu fired that perflab did not
local function compare(report, p, F, rows, fired, mine, miss, suffix)
  local crow = {}
  local ncu_total, matched, no_inputs, missed, nmissed = 0, 0, 0, {}, 0
  for _, rid in ipairs(fired.ids) do
    local impl = M.rule(rid) ~= nil
    local perfl, absent
    if impl then
      local L = fired.launches[rid]
      local mn = mine[rid] or L & ~L
      local ms = miss[rid] or L & ~L
      ncu_total = ncu_total + L:count_true()
      matched = matched + (L & mn):count_true()
      absent = (L & ~mn & ms):count_true()
      no_inputs = no_inputs + absent
      local mm = L & ~mn & ~ms
      nmissed = nmissed + mm:count_true()
      local c = F.base:filter(mm):head(5)
      for j = 1, c:nrows() do missed[#missed + 1] = { c:get(j, "row"), rid, c:get(j, "kernel_id") } end
      perfl = rows:nrows() > 0 and (rows:col("rule"):eq(rid) & rows:col("ncu_fired"):eq("yes")):count_true() or 0
    end
    crow[#crow + 1] = { rule = rid, ncu_launches = fired.n[rid], implemented = impl and "yes" or "no",
      perflab_same_launch = impl and perfl or nil, metrics_absent = impl and absent or nil }
  end
  table.sort(missed, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
  local texts = {}
  local rules = p.tables.rules
  for j = 1, math.min(5, #missed) do
    local e = missed[j]
    local msg = rules:filter(fired.rows[e[2]] & rules:col("kernel_id"):eq(e[3])):get(1, "message")
    texts[j] = string.format("launch %d %s: %s", e[3], e[2], msg:sub(1, 80))
  end
  report:table("ncu_compare" .. suffix,
    T.from_rows(crow, { "rule", "ncu_launches", "implemented", "perflab_same_launch", "metrics_absent" }),
    { title = "ncu's own rule output in the file, by rule" })
  report:note(string.format("ncu's own output: %d rule firings that perflab implements; perflab fired %d of them on the same launch; %d could not be evaluated (their metrics are not in the exported file)%s",
    ncu_total, matched, no_inputs, nmissed > 0 and ("; NOT fired: " .. table.concat(texts, "; ")) or ""))
end

--- run(report, p, ctx, rules [, {suffix =, thresholds =, launch_ids =}])
--- -> {{finding, kernel, launch_ids}...}: runs rules(S, thresholds) over
--- the launches of p (tables kernels, metrics, and rules when the file
--- carries ncu's own rule output), adds to the report a finding per group
--- of identical firings (rule, kernel, gkey; message and evidence from its
--- largest estimate), table ncu_rules<suffix> (a row per launch and rule
--- that fired), ncu_compare<suffix> (what ncu fired, per rule) and the
--- notes; returns the findings with their kernel and, with launch_ids =
--- true, their launch ids (perflab.weighting.item).  ctx: device.context's.
--- Inside rules, S.get(key) is a metric of M.metrics (or a raw name) as a
--- column, S.kcol(name) a numeric kernels column or nil, S.k the kernels
--- table, S.stall {{reason, column}...}, S.pick({{mask, text}...}, default)
--- a text column by priority, S.launch([active]) -> block size, grid size,
--- SM count, active blocks, S.block_limits() -> active blocks, limiter
--- names, S.absent(id, mask) the launches a rule cannot evaluate, and
--- S.emit(id, seq, mask, o) the rule's firings on mask: o.ev the evidence
--- (name -> column, value, M.maybe(column) or M.list(column)), o.x further
--- values the message reads, o.msg(v) the message from one launch's values,
--- o.sp the estimate (%), o.cap its parent's estimate that caps it, o.sev the
--- severity (text or column), o.gkey what tells a kernel's groups apart,
--- o.sv, o.skey, o.sub the order of one launch's rows; seq orders the rules.
--- Other tools' metrics (perflab.nvprof_rules): opts.kernels the launch
--- table when p has none (one row per launch, `id` = metrics.kernel_id),
--- opts.metrics the metrics table to read instead of p's, opts.aliases more
--- keys -> aliases (a name or {name, scale}) for S.get, opts.table the name
--- of the firing table instead of ncu_rules, opts.columns its columns,
--- opts.unit what a row of opts.kernels is in the messages ({"launch",
--- "launches"}).
function M.run(report, p, ctx, rules, opts)
  opts = opts or {}
  local suffix = opts.suffix or ""
  local k = opts.kernels or p.tables.kernels
  if not k then error("ncu_rules.run: " .. tostring(p.source) .. " has no kernels table", 2) end
  local n = k:nrows()
  local have_ncu_rules = p.tables.rules and p.tables.rules:nrows() > 0
  local F, fin, fired, mine, miss
  local found = {}
  if n > 0 then
    F = frame(p, k, opts.aliases, opts.metrics)
    fired = ncu_fired(p, F)
    local S = evaluator(F, ctx, fired, have_ncu_rules)
    rules(S, opts.thresholds or M.thresholds)
    mine, miss = S.mine, S.miss
    if #S.parts > 0 then
      local pub = {}
      for j, o in ipairs(S.parts) do pub[j] = o.t end
      local cat = T.concat(table.unpack(pub))
      fin = cat:take(cat:order("row", "seq", "-sv", "skey", "sub"))
      found = group_findings(report, fin, S.parts, opts.launch_ids, opts.unit)
    end
  else
    fired, mine, miss = { ids = {}, launches = {}, n = {}, rows = {} }, {}, {}
  end
  local rows
  if fin and fin:nrows() > 0 then
    local none = fin:const(nil, "number")
    rows = fin:with("speedup_pct", round(fin:col("speedup")))
    for _, c in ipairs(COLS) do if not rows:has(c) then rows:with(c, none) end end
    rows = rows:select(opts.columns or COLS)
  else
    rows = T.from_rows({}, opts.columns or COLS)
  end
  report:table((opts.table or "ncu_rules") .. suffix, rows,
      { title = string.format("%d rule firings on %d launches (%s)",
      rows:nrows(), n, p.source) })
  if have_ncu_rules then compare(report, p, F, rows, fired, mine, miss, suffix) end
  local absent = {}
  for id, mask in pairs(miss) do
    if n > 0 and mask:count_true() == n then absent[#absent + 1] = id end
  end
  table.sort(absent)
  if #absent > 0 then
    report:note("not evaluated (metrics absent in this file): " .. table.concat(absent, ", "))
  end
  return found
end

return M

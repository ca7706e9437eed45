--- step-breakdown: where each profiler step's time goes, as the PyTorch
-- TensorBoard profiler plugin (torch-tb-profiler) computed it, from a Kineto
-- trace -- and the same figures read back from a tb-profiler JSON.
--
-- Kineto trace:
--  1. Steps (perflab.steps.bound, lua/perflab/steps.lua, which distributed
--     uses too) are the host's ProfilerStep#N spans, then bounded on the GPU
--     side the plugin's way: a runtime call that lies wholly inside a host step
--     (start >= step start, end <= step end) ties the device ops it launched
--     (same correlation id) to that step; the step ends at the later of its
--     host end and its last device op's end; it starts at the later of its
--     host start and the previous step's (new) end, the first step at the
--     later of its host start and the end of the last device op that no step
--     launched and that ended before the first step's first device op.
--     Trailing steps that launched no device op are dropped, and the last
--     one too when it launched fewer than 80 % of the ops of the one before
--     (the profiler may have missed its kernels).
--  2. Roles, highest priority first: Kernel (device kernels), Memcpy, Memset,
--     Communication (kernels launched by nccl:/gloo: ops, or whose name is
--     communication by the rules in lua/perflab/comm.lua: nccl*, rccl,
--     torch symmetric memory, Gloo, HCCL),
--     Runtime (runtime API calls), DataLoader (enumerate(DataLoader)#...
--     __next__ ops), CPU Exec (other host ops), Other (the rest of the step).
--     Each role = the union of its intervals minus the union of every
--     higher role, within the steps; per step, the length inside the step.
--  3. GPU utilisation = |union of kernels ∩ [first step start, last step
--     end)| / that span; est. SM efficiency = integral of min(sum of
--     blocks-per-SM of the running kernels, 1) over the span / span; est.
--     achieved occupancy = the kernels' "est. achieved occupancy %" weighted
--     by their time in the span; tensor-core share = time of kernels whose
--     name has a tensor-core pattern / kernel time, in the span.
--  4. The plugin's recommendations, with their evidence.
-- The patterns and thresholds are data in lua/perflab/timeline_data.lua.
--
-- Where this differs from the plugin, on purpose:
--  * the plugin, once a higher role covers every step completely, takes the
--    next role's intervals unclipped (its slot list is empty, which it reads
--    as "not started"); here each role is always clipped to what is left;
--  * GPU-side `gpu_user_annotation` spans (newer traces) are not CPU Exec,
--    and their ProfilerStep#N copies are not steps (the plugin counts both);
--  * kernels that perflab.comm names communication (nccl*, multimem_*, ...)
--    are Communication even without an nccl:* host op;
--  * the tensor-core advice is not given when kernels of tensor/matrix-core
--    families the plugin's list predates run (FP8/FP4, nvjet, sm90/sm100,
--    AMD MFMA: D.tc_kernel_families; a note says so), is worded for matrix
--    cores and BF16 on AMD, and is skipped with a note when the trace names
--    no GPU or an AMD trace's GEMMs are not Tensile-named;
--  * the memory-capacity trigger (peak 'Total Allocated' > 90 % of the
--    device's memory) is checked for every CUDA device, not only the first
--    one over, and CPU-side [memory] events are never compared with a GPU
--    (the plugin indexes device properties with the CPU's id -1); traces
--    older than PyTorch 1.10 record no 'Total Allocated' and get no figure.
--
-- tb-profiler JSON: the stored step rows and average breakdown, the
-- percentages recomputed from the stored averages (and compared with the
-- stored ones), the stored utilisation figures, and the same triggers.
--
-- Tables (part of the API):
--   steps   (step, kernel_ns, memcpy_ns, memset_ns, communication_ns,
--            runtime_ns, dataloader_ns, cpu_exec_ns, other_ns, total_ns,
--            start_ns) -- a leading `run` column when there are several runs
--   summary (metric, device, value, unit, pct) -- one row per category
--            (value = average ns per step, pct = share of the average step)
--            and per utilisation figure (value in percent, unit "pct"),
--            and "Peak Memory Allocated" per GPU (unit "bytes", pct of its
--            memory) when the trace has memory events with totals.
--            With CUDA/HIP graph replays (perflab.graphs): "Graph Replay GPU
--            Time" (the union of replayed ops within the steps, per step;
--            part of the Kernel/Memcpy/Memset rows, not added to them); when
--            the recording of the replays is partial, a finding
--            step-breakdown.unreliable with the reason, a row "GPU
--            Utilization Reliable" (0) per GPU, and the utilisation finding
--            as info, marked unreliable.
local perflab = require "perflab"
local T = perflab.table
local units = perflab.units
local IV = require "perflab.timeline"
local I = perflab.intervals
local D = require "perflab.timeline_data"
local S = require "perflab.steps"
local comm = require "perflab.comm"
local ranks = require "perflab.ranks"
local graphs = require "perflab.graphs"

local STEP_COLS = { "step", "kernel_ns", "memcpy_ns", "memset_ns", "communication_ns", "runtime_ns",
  "dataloader_ns", "cpu_exec_ns", "other_ns", "total_ns" }

local function matches_any(s, pats)
  for _, p in ipairs(pats) do if s:find(p) then return true end end
  return false
end

-- the tensor/matrix-core family a kernel name belongs to (D.tc_kernel_families), or false
local function tc_family(name)
  local l = name:lower()
  for _, f in ipairs(D.tc_kernel_families) do
    if l:find(f.pat) then return f end
  end
  return false
end

--- Kernel time in tensor/matrix-core families the plugin's list does not
-- know: { ns, pct (of all kernel time), names = {family, ...}, low = "FP8"|"FP4"|nil }.
local function family_use(p)
  local k = p.tables.kernels
  local out = { ns = 0, pct = 0, names = {} }
  if not k or k:nrows() == 0 then return out end
  local per = k:group_by("name"):agg { { "ns", "sum", "duration_ns" } }   -- names in order of first launch
  local seen, low = {}, {}
  for _, r in per:rows() do
    local nm = r.name or ""
    if nm:sub(1, 5) == "Cijk_" then out.tensile = true end   -- Tensile/hipBLASLt GEMM naming
    local f = tc_family(nm)
    if f then
      out.ns = out.ns + r.ns
      if not seen[f.family] then seen[f.family] = true; out.names[#out.names + 1] = f.family end
      if f.precision then low[f.precision] = true end
    end
  end
  local all = k:col("duration_ns"):sum()
  out.pct = all > 0 and 100 * out.ns / all or 0
  out.low = (low.fp8 and low.fp4) and "FP8 and FP4" or low.fp8 and "FP8" or low.fp4 and "FP4" or nil
  return out
end

-- the name rule, last resort (perflab.ops.tc_by_name): the plugin's
-- substrings and tensorop/wmma/hmma/gmma, but not an FFMA (ffma,
-- f32f32_f32f32) GEMM, which the plugin's "xmma_gemm" would count
local function has_tc_pattern(name)
  return require("perflab.ops").tc_by_name(name, D.tc_kernel_substrings)
end

-- ---- Kineto: collect the events by role --------------------------------------

local sorted_keys = require("perflab.util").sorted_keys
local chart = require "perflab.chart"
local figures = require "perflab.figures"

local function any(mask) return mask:count_true() > 0 end

-- Roles by masks over the events table: the category (lower-cased once per
-- distinct text), name tests run once per distinct name (c:map, c:match),
-- one interval set per role from the masked rows.  The device ops, runtime
-- calls and host ops the later passes need are tables filtered from it.
local function collect(p, complete)
  local ev = p:table("events")
  local text = S.text   -- (a column without strings compares false with text)
  local X, ext = text(ev, "ph"):eq("X"), ev:col("external_id")
  local commop_ev = text(ev, "name"):isin(sorted_keys(D.comm_ops))
  -- external ids of communication ops: their kernels are communication
  local comm_ext = ev:filter(X & commop_ev & ext:present()):col("external_id")
  -- the complete events with a start, a missing duration 0 (perflab.steps: S.bound's)
  local e, lc
  if complete then e, lc = complete.e, complete.lc else e, lc = S.complete(p) end
  local name = text(e, "name")
  local commop = name:isin(sorted_keys(D.comm_ops))
  local commk = e:col("external_id"):isin(comm_ext) | name:map(comm.is_kernel):eq(true)
  local kernel, memcpy, memset = lc:eq("kernel"), lc:isin { "memcpy", "gpu_memcpy" }, lc:isin { "memset", "gpu_memset" }
  -- other vendors' device work (MTIA: mtia_ccp_events), as the Kineto reader reads it into kernels
  kernel = kernel | lc:match("^[a-z0-9]+_ccp_events$") | lc:match("^[a-z0-9]+_kernel$")
  local runtime = lc:isin(sorted_keys(D.runtime_cats)) | lc:match("^[a-z0-9]+_runtime$")
  local cpu = lc:isin(sorted_keys(D.cpu_cats))
  local op = cpu & ~name:match("^ProfilerStep#")     -- steps come from perflab.steps
  local dl = name:map(function(k) return matches_any(k, D.dataloader_patterns) end):eq(true)
  local cpu_comm = op & ~dl & commop
  local masks = {
    kernel = kernel & ~commk, communication = (kernel & commk) | cpu_comm, memcpy = memcpy, memset = memset,
    runtime = runtime, dataloader = op & dl, cpu_exec = op & ~dl & ~commop,
  }
  local c = {
    role = {},
    ops = e:filter(op, { "name", "ts_ns", "end_ns", "external_id", "tid" }),
    nccl = any(cpu_comm & name:match("^nccl:")),
    use_dp = any(op & name:eq("DataParallel.forward")),
    use_ddp = any(op & name:eq("DistributedDataParallel.forward")),
  }
  for _, k in ipairs(D.categories) do
    c.role[k.key] = masks[k.key] and I.from_table(e, "ts_ns", "end_ns", { where = masks[k.key] }) or I.empty()
  end
  return c
end

-- ---- Nsight Systems exports: the same roles from nsys' tables ----------------
-- Steps and their process come from perflab.steps (NVTX ranges named --set
-- step=NAME); device ops and runtime calls of that process only.  Roles:
-- kernels (communication when named nccl*), memcpy, memset, runtime calls,
-- CPU Exec = the other NVTX ranges of the process (host annotations; nsys
-- records no operator events).
local function collect_nsys(p, opts, pid)
  local c = { role = {}, use_dp = false, use_ddp = false, nccl = false, nsys = true }
  local sets = {}
  local function add(key, t, where)
    local set = I.from_table(t, "start_ns", "end_ns", { where = where })
    sets[key] = sets[key] and sets[key]:union(set) or set
  end
  for _, spec in ipairs({ { "kernels", "kernel" }, { "memcpy", "memcpy" }, { "memset", "memset" } }) do
    local t = p.tables[spec[1]]
    if t and t:nrows() > 0 then
      local m = S.kept(t, pid)
      if spec[2] == "kernel" then
        local commk = t:col("name"):map(comm.is_kernel):eq(true)   -- communication kernels (perflab.comm)
        add("kernel", t, m & ~commk)
        add("communication", t, m & commk)
        if (m & commk):count { where = m & commk } > 0 then c.nccl = true end
      else
        add(spec[2], t, m)
      end
    end
  end
  -- nsys' whole-graph replays (--cuda-graph-trace=graph): kernel work whose kernels were not recorded
  local gt = p.tables.graph_trace
  if gt and gt:nrows() > 0 then add("kernel", gt, S.kept(gt, pid)) end
  local rt = p.tables.runtime
  if rt and rt:nrows() > 0 then add("runtime", rt, S.kept(rt, pid)) end
  local nv = p.tables.nvtx
  if nv and nv:nrows() > 0 then
    local m = S.kept(nv, pid)
    if (opts.step or "") ~= "" then m = m & ~nv:col("name"):eq(opts.step) end
    add("cpu_exec", nv, m)
  end
  for _, k in ipairs(D.categories) do c.role[k.key] = sets[k.key] or I.empty() end
  return c
end

-- ---- Kineto: the breakdown ---------------------------------------------------

local function breakdown(steps, c)
  local ss, se = {}, {}
  for i, s in ipairs(steps) do ss[i] = s.s; se[i] = s.e end
  local slots = IV.set(ss, se, #steps)
  local cost = {}
  for _, k in ipairs(D.categories) do
    if k.key ~= "other" then
      local r = IV.intersect(c.role[k.key], slots)
      cost[k.key] = r
      slots = IV.subtract(slots, r)
    end
  end
  cost.other = slots
  local rows = {}
  for i, s in ipairs(steps) do
    local row = { step = s.name, start_ns = s.s, total_ns = s.e - s.s }
    for _, k in ipairs(D.categories) do row[k.key .. "_ns"] = IV.length_within(cost[k.key], s.s, s.e) end
    rows[i] = row
  end
  return rows
end

-- ---- Kineto: GPU figures -----------------------------------------------------

local function gpu_figures(p, steps)
  local k = p.tables.kernels
  if not k or k:nrows() == 0 or #steps == 0 then return {} end
  local lo, hi = steps[1].s, steps[#steps].e
  local span = hi - lo
  local a, d = k:col("start_ns"), IV.filled(k, "duration_ns", 0)
  local b = a + d
  local w = (b:min_with(hi) - a:max_with(lo)):max_with(0)          -- time inside the span
  local kw = k:select("name"):with("device", IV.filled(k, "device", 0)):with("a", a):with("b", b):with("d",
      d):with("w", w)
  local bps = k:has("blocks_per_sm") and k:col("blocks_per_sm") or nil
  local occ = k:has("est_achieved_occupancy_pct") and k:col("est_achieved_occupancy_pct") or nil
  if bps then kw:with("bps", bps:keep(bps:gt(0))) end
  if occ then kw:with("occ", occ) end
  -- tensor cores from the launching op's dtype and the device where the
  -- trace records shapes; the kernel-name rule where it does not
  local tc = kw:col("name"):map(has_tc_pattern):eq(true)
  local by_data = require("perflab.ops").kernel_tensor_core(p, require("perflab.device").context(p, {}))
  if by_data then tc = by_data:fill(tc) end
  local inside = w:gt(0)
  local spec = { { "kernels", "count" }, { "kernel_ns", "sum", "w" }, { "tc_kernel_ns", "sum", "w", where = tc },
                 { "k_all", "sum", "d" }, { "tc_all", "sum", "d", where = tc } }
  if occ then
    local counted = inside & occ:ge(0)
    spec[#spec + 1] = { "occ_t", "sum", "w", where = counted }
    spec[#spec + 1] = { "occupancy_pct", "wmean", "occ", "w", where = counted }
  end
  if bps then spec[#spec + 1] = { "nbps", "count", where = kw:col("bps"):present() } end
  local out = {}
  for _, g in kw:group_by("device"):agg(spec):sort_by("device"):rows() do
    local on = kw:filter(kw:col("device"):eq(g.device), bps and { "a", "b", "bps" } or { "a", "b" })
    local busy = I.from_table(on, "a", "b"):length_within(lo, hi)
    local f = { device = g.device, span_ns = span, busy_ns = busy, util_pct = span > 0 and 100 * busy / span or nil,
                kernels = g.kernels, tc_kernel_ns = g.tc_kernel_ns, kernel_ns = g.kernel_ns }
    if (g.nbps or 0) > 0 and span > 0 then
      f.sm_eff_pct = 100 * I.step_integral(on:col("a"), on:col("b"), on:col("bps"),
          { cap = 1.0, lo = lo, hi = hi }) / span
    end
    if (g.occ_t or 0) > 0 then f.occupancy_pct = g.occupancy_pct end
    f.tc_pct = g.kernel_ns > 0 and 100 * g.tc_kernel_ns / g.kernel_ns or 0
    f.tc_used_ratio = g.k_all > 0 and g.tc_all / g.k_all or 0
    f.tc_from_data = by_data ~= nil
    out[#out + 1] = f
  end
  return out
end

--- Share of kernel time launched by "bottom" tensor-core-eligible operators
-- (an eligible op with no eligible op nested inside it), among the kernels
-- launched by any host op: the plugin's tc_eligible_ops_kernel_ratio.
local function tc_eligible_ratio(p, c)
  local k, rt = p.tables.kernels, p.tables.runtime
  if c.nsys or not k or not rt or k:nrows() == 0 then return nil end   -- nsys: no operators (external ids)
  -- bottom eligible ops: by thread, start, longest first; an op whose next
  -- op on its thread lies inside it has a child
  local ops = c.ops
  local el = ops:filter(ops:col("name"):isin(sorted_keys(D.tc_eligible_ops)),
      { "tid", "ts_ns", "end_ns", "external_id" })
  el = el:take(el:order("tid", "ts_ns", "-end_ns"))
  local m = el:nrows()
  local bottom = el
  if m > 1 then
    local o, nxt = el:slice(1, m - 1), el:slice(2, m)
    local child = nxt:col("tid"):eq(o:col("tid")) & nxt:col("ts_ns"):ge(o:col("ts_ns"))
        & nxt:col("end_ns"):le(o:col("end_ns"))
    bottom = T.concat(o:filter(~child), el:slice(m, m))
  end
  local bottom_ext = bottom:col("external_id")
  -- kernel -> its runtime call (correlation; the last such call's External
  -- id) -> a host op with that External id
  local rt_ext = rt:filter(rt:col("correlation"):present(), { "correlation", "external_id" }):group_by("correlation")
    :agg { { "ext", "last", "external_id" } }
  local kl = k:select("correlation", "duration_ns"):join(rt_ext, { on = "correlation" })
  kl = kl:filter(kl:col("ext"):isin(ops:col("external_id")))
  local d = kl:col("duration_ns")
  local all = d:sum()
  local elig = d:sum { where = kl:col("ext"):isin(bottom_ext) }
  if all == 0 then return 0, 0, 0 end
  return elig / all, elig, all
end

-- ---- shared: summary rows and triggers ---------------------------------------

local function averages(rows)
  local avg = {}
  local n = #rows
  for _, col in ipairs(STEP_COLS) do
    if col ~= "step" then
      local s = 0
      for _, r in ipairs(rows) do s = s + (r[col] or 0) end
      avg[col] = n > 0 and s / n or 0
    end
  end
  avg.steps = n
  return avg
end

local function summary_rows(out, run, avg)
  local total = avg.total_ns
  out[#out + 1] = { run = run, metric = "Average Step Time", value = total, unit = "ns",
      pct = total > 0 and 100 or nil }
  for _, k in ipairs(D.categories) do
    local v = avg[k.key .. "_ns"] or 0
    out[#out + 1] = { run = run, metric = k.label, value = v, unit = "ns", pct = total > 0 and 100 * v / total or nil }
  end
end

local function pct_of(avg, key)
  if not avg.total_ns or avg.total_ns <= 0 then return 0 end
  return 100 * (avg[key] or 0) / avg.total_ns
end

local function triggers(report, src, run, avg, gpu, extra)
  local th = D.thresholds
  local where = run and string.format("run %s: ", run) or ""
  local dl = pct_of(avg, "dataloader_ns")
  if dl > th.dataloader_pct then
    report:finding { severity = "warn", rule = "step-breakdown.dataloader", subject = "DataLoader",
      message = string.format("%s%.1f %% of the step time is in DataLoader: set num_workers on the DataLoader "
        .. "to load data in worker processes (multi-process data loading)", where, dl),
      evidence = { dataloader_pct = dl, threshold_pct = th.dataloader_pct, avg_dataloader_ns = avg.dataloader_ns,
                   avg_step_ns = avg.total_ns, formula = "avg DataLoader / avg step time", source = src, run = run },
      speedup_pct = dl,
      saved_ns = avg.dataloader_ns and avg.steps and avg.dataloader_ns * avg.steps or nil,
      saved_how = "DataLoader time per step x steps (an upper bound: loading hidden behind the step)" }
  end
  local cm = pct_of(avg, "communication_ns")
  if cm > th.communication_pct then
    report:finding { severity = "warn", rule = "step-breakdown.communication", subject = "Communication",
      message = string.format("%s%.1f %% of the step time is in communication not hidden by computation: try "
        .. "gradient compression, gradient accumulation or a larger batch", where, cm),
      evidence = { communication_pct = cm, threshold_pct = th.communication_pct,
          avg_communication_ns = avg.communication_ns,
                   avg_step_ns = avg.total_ns, source = src, run = run } }
  end
  -- copies: the Memcpy role holds copy time no kernel overlaps (roles are
  -- exclusive, Kernel first), so all of it is time the GPU computes nothing
  local mc = pct_of(avg, "memcpy_ns")
  if mc > th.memcpy_pct then
    report:finding { severity = "warn", rule = "step-breakdown.memcpy", subject = "Memcpy",
      message = string.format("%s%.1f %% of the step time is in memory copies that no kernel overlaps: keep data "
        .. "on the device between steps, batch small copies, and use pinned host memory with asynchronous copies "
        .. "on another stream so that they overlap computation", where, mc),
      evidence = { memcpy_pct = mc, threshold_pct = th.memcpy_pct, avg_memcpy_ns = avg.memcpy_ns,
                   avg_step_ns = avg.total_ns, formula = "avg Memcpy (copies outside kernels) / avg step time",
                   source = src, run = run },
      speedup_pct = mc,
      saved_ns = avg.memcpy_ns and avg.steps and avg.memcpy_ns * avg.steps or nil,
      saved_how = "Memcpy time per step x steps (an upper bound: every copy hidden behind computation)" }
  end
  for _, g in ipairs(gpu or {}) do
    if g.util_pct and g.util_pct < th.gpu_util_pct then
      -- graph replays recorded in part: the busy figure is not a fact
      local unrel = extra and extra.unreliable
      report:finding { severity = unrel and "info" or "warn", rule = "step-breakdown.gpu_utilization",
          subject = g.label or ("GPU " .. g.device),
        message = (unrel and "unreliable (graph replays recorded in part): " or "")
          .. string.format("%s%s is busy %.2f %% of the step time (below %d %%): increase the batch size, "
          .. "or look at what the Runtime, DataLoader, CPU Exec and Other shares say the host is doing", where,
          g.label or ("GPU " .. g.device), g.util_pct, th.gpu_util_pct),
        evidence = { gpu_util_pct = g.util_pct, threshold_pct = th.gpu_util_pct, busy_ns = g.busy_ns,
            span_ns = g.span_ns,
                     formula = "|union(kernels) within steps| / steps time", source = src, run = run } }
    end
  end
  extra = extra or {}
  local fam = extra.families
  if extra.tc_eligible_pct and extra.tc_eligible_pct > 0 and extra.tc_used_pct == 0 then
    if fam and fam.ns > 0 then
      -- tensor/matrix-core kernels of families the plugin's list predates
      -- (FP8/FP4 among them): nothing to advise, never FP16 AMP to FP8
      report:note(string.format("%s%s: step-breakdown.tensor_cores not advised: %.1f %% of kernel time is in "
        .. "tensor/matrix-core kernels the plugin's name list does not know (%s)%s.", where, src,
        fam.pct, table.concat(fam.names, ", "), fam.low and (", " .. fam.low .. " among them") or ""))
    elseif extra.gpu_known == false then
      report:note(string.format("%s%s: step-breakdown.tensor_cores skipped: the trace names no GPU (no deviceProperties), "
        .. "so whether its kernels could use tensor cores, and under which names, is unknown.", where, src))
    elseif extra.tc_from_names then
      -- no recorded dtypes: whether a kernel uses tensor cores is not in the
      -- data, and a kernel name is no evidence to advise on
      report:note(string.format("%s%s: step-breakdown.tensor_cores: unknown. The trace records no operator dtypes "
        .. "(profile with record_shapes=True), so whether its kernels use tensor cores is not in the data; by "
        .. "the plugin's kernel-name list none does, and %d %% of the time is launched by tensor-core-eligible "
        .. "operators.", where, src, math.floor(extra.tc_eligible_pct + 0.5)))
    elseif extra.vendor == "amd" and not (fam and fam.tensile) then
      report:note(string.format("%s%s: step-breakdown.tensor_cores skipped: no GEMM kernel is named the way Tensile / "
        .. "hipBLASLt name theirs (Cijk_...), so whether the kernels use matrix cores cannot be told from their names.",
        where, src))
    elseif extra.vendor == "amd" then
      report:finding { severity = "opt", rule = "step-breakdown.tensor_cores", subject = "Matrix Cores",
        message = string.format("%sKernels with %d %% of the time are launched by matrix-core-eligible operators, and "
          .. "no kernel name shows matrix cores (MFMA): enable Automatic Mixed Precision (BF16)", where,
          math.floor(extra.tc_eligible_pct + 0.5)),
        evidence = { tc_eligible_pct = extra.tc_eligible_pct, tc_used_pct = extra.tc_used_pct, arch = extra.arch,
                     vendor = "AMD", eligible_kernel_ns = extra.eligible_ns, op_kernel_ns = extra.op_kernel_ns,
                     source = src, run = run } }
    elseif extra.cc_major == nil or extra.cc_major >= th.tc_min_cc_major then
      report:finding { severity = "opt", rule = "step-breakdown.tensor_cores", subject = "Tensor Cores",
        message = string.format("%sKernels with %d %% of the time are launched by tensor-core-eligible operators, and "
          .. "no kernel uses tensor cores: enable Automatic Mixed Precision (FP16/BF16)", where,
          math.floor(extra.tc_eligible_pct + 0.5)),
        evidence = { tc_eligible_pct = extra.tc_eligible_pct, tc_used_pct = extra.tc_used_pct,
            cc_major = extra.cc_major,
                     eligible_kernel_ns = extra.eligible_ns, op_kernel_ns = extra.op_kernel_ns, source = src,
                         run = run } }
    end
  end
  for _, m in ipairs(extra.memory or {}) do
    if m.capacity and m.capacity > 0 and 100 * m.peak / m.capacity > th.memory_pct then
      local pct = 100 * m.peak / m.capacity
      report:finding { severity = "warn", rule = "step-breakdown.memory", subject = "GPU " .. m.device,
        message = string.format("%sPeak device memory is at the limit of its capacity (%.1f %% of %s on GPU %d): "
          .. "gradient checkpointing or Automatic Mixed Precision would free memory for a larger batch", where, pct,
          units.bytes(m.capacity), m.device),
        evidence = { peak_allocated_bytes = m.peak, capacity_bytes = m.capacity, memory_pct = pct,
                     threshold_pct = th.memory_pct,
                         formula = "max 'Total Allocated' of the [memory] events / totalGlobalMem",
                     source = src, run = run } }
    end
  end
  if extra.use_dp and (extra.devices_used or 0) > 1 then
    report:finding { severity = "opt", rule = "step-breakdown.dp_to_ddp", subject = "DataParallel",
      message = where .. "DataParallel runs on several GPUs: use DistributedDataParallel instead",
      evidence = { devices_used = extra.devices_used, source = src, run = run } }
  end
  if extra.use_ddp and not extra.nccl and extra.cc and extra.cc >= th.nccl_min_cc then
    report:finding { severity = "opt", rule = "step-breakdown.ddp_backend", subject = "DistributedDataParallel",
      message = where .. "DistributedDataParallel without NCCL: NCCL is the fastest backend for DDP on these GPUs",
      evidence = { cc = extra.cc, source = src, run = run } }
  end
end

-- ---- the two input kinds -------------------------------------------------------

local function from_kineto(p, report, acc, opts)
  local steps, notes, pid, complete = S.bound(p, opts)   -- notes say where the bounds came from
  if #steps == 0 then
    report:note(string.format("%s: no ProfilerStep#N span and no host op: nothing to break down.", p.source))
    for _, n in ipairs(notes) do report:note(p.source .. ": " .. n) end
    return
  end
  local c = p.tables.events and collect(p, complete) or collect_nsys(p, opts, pid)
  local rows = breakdown(steps, c)
  local avg = averages(rows)
  local run = acc.multi and acc.next_run() or nil
  for _, r in ipairs(rows) do r.run = run; acc.steps[#acc.steps + 1] = r end
  summary_rows(acc.summary, run, avg)
  local gpu = gpu_figures(p, steps)
  for _, g in ipairs(gpu) do
    local label = "GPU " .. g.device
    g.label = label
    acc.summary[#acc.summary + 1] = { run = run, metric = "GPU Utilization", device = label, value = g.util_pct,
        unit = "pct" }
    if g.sm_eff_pct then
      acc.summary[#acc.summary + 1] = { run = run, metric = "Est. SM Efficiency", device = label, value = g.sm_eff_pct,
          unit = "pct" }
    end
    if g.occupancy_pct then
      acc.summary[#acc.summary + 1] = { run = run, metric = "Est. Achieved Occupancy", device = label,
          value = g.occupancy_pct, unit = "pct" }
    end
    acc.summary[#acc.summary + 1] = { run = run, metric = "Kernel Time using Tensor Cores", device = label,
        value = g.tc_pct, unit = "pct" }
  end
  -- CUDA/HIP graph replays (perflab.graphs): their share of the step, and
  -- whether the profiler recorded them whole
  local gres = p.tables.kernels and graphs.analyse(p) or nil
  local grec = graphs.recording(p, nil, gres)
  if gres and gres.ops and gres.graphs then
    local gset = I.from_table(gres.ops, "start_ns", "end_ns", { where = gres.ops:col("graph_replay") })
    local gns = 0
    for _, s in ipairs(steps) do gns = gns + IV.length_within(gset, s.s, s.e) end
    gns = gns / #steps
    acc.summary[#acc.summary + 1] = { run = run, metric = "Graph Replay GPU Time",
      value = gns, unit = "ns", pct = avg.total_ns > 0 and 100 * gns / avg.total_ns or nil }
  end
  if grec then
    report:finding { severity = "warn", rule = "step-breakdown.unreliable",
      message = string.format("%s: the busy and idle figures (Kernel, Other, GPU Utilization) are unreliable: %s",
        p.source, grec.reason),
      evidence = { partial_replays = grec.partial_replays, empty_launches = grec.empty_launches, source = p.source } }
    for _, g in ipairs(gpu) do
      acc.summary[#acc.summary + 1] = { run = run, metric = "GPU Utilization Reliable", device = g.label, value = 0,
          unit = "bool" }
    end
  end
  local ratio, elig_ns, op_ns = tc_eligible_ratio(p, c)
  if ratio then
    acc.summary[#acc.summary + 1] = { run = run, metric = "Kernel Time of Tensor-Core-Eligible Ops",
        value = 100 * ratio, unit = "pct" }
  end
  local devs = p.tables.devices
  local cc_major, cc, vendor, arch
  if devs and devs:nrows() > 0 then
    local d0 = devs:row(1)
    if d0.vendor == "AMD" or (p.meta or {}).vendor == "AMD" then
      vendor, arch = "amd", d0.arch or (p.meta or {}).arch     -- HIP's gfx version is no compute capability
    else
      cc_major = d0.cc_major
      if d0.cc_major then cc = d0.cc_major + (d0.cc_minor or 0) / 10 end
    end
  end
  local gpu_known = (devs and devs:nrows() > 0) or (p.meta or {}).device ~= nil
  -- peak device memory (tb_plugin: the largest 'Total Allocated' of the
  -- [memory] events per CUDA device, PyTorch >= 1.10 traces) against capacity
  local memory = {}
  local mt = p.tables.memory_events
  if mt and mt:nrows() > 0 then
    local peak = {}
    if mt:has("device_type") and mt:has("device") and mt:has("total_allocated_bytes") then
      local tot = mt:col("total_allocated_bytes")
      local cuda = mt:col("device_type"):isin { 1, 6 } & mt:col("device"):present() & tot:present()   -- 6: HIP (ROCm)
      for _, g in mt:filter(cuda):group_by("device"):agg { { "peak", "max", "total_allocated_bytes" } }:rows() do
        peak[g.device] = math.max(0, g.peak)
      end
    end
    local cap = {}
    if devs then for _, d in devs:rows() do if d.id then cap[d.id] = d.memory_bytes end end end
    local ids = {}
    for d in pairs(peak) do ids[#ids + 1] = d end
    table.sort(ids)
    for _, d in ipairs(ids) do
      memory[#memory + 1] = { device = d, peak = peak[d], capacity = cap[d] }
      acc.summary[#acc.summary + 1] = { run = run, metric = "Peak Memory Allocated", device = "GPU " .. d,
        value = peak[d], unit = "bytes", pct = cap[d] and cap[d] > 0 and 100 * peak[d] / cap[d] or nil }
    end
  end
  local any_tc = false
  for _, g in ipairs(gpu) do if g.tc_used_ratio > 0 then any_tc = true end end
  triggers(report, p.source, run, avg, gpu, {
    tc_eligible_pct = ratio and 100 * ratio or nil, tc_used_pct = (#gpu > 0 and not any_tc) and 0
        or (#gpu > 0 and 1 or nil),
    eligible_ns = elig_ns, op_kernel_ns = op_ns, cc_major = cc_major, cc = cc,
    vendor = vendor, arch = arch, gpu_known = gpu_known, families = family_use(p),
    use_dp = c.use_dp, use_ddp = c.use_ddp, nccl = c.nccl, devices_used = #gpu, memory = memory,
    unreliable = grec and grec.reason or nil,
    tc_from_names = #gpu > 0 and not gpu[1].tc_from_data,
  })
  report:note(string.format("%s: %d steps, %s per step on average (steps bounded on the device side: a step "
    .. "ends when the last device op it launched ends).", p.source, #rows, units.ns(avg.total_ns)))
  for _, n in ipairs(notes) do report:note(p.source .. ": " .. n) end
end

local function from_tb(p, report, acc)
  local st = p.tables.steps
  local runs = {}
  local seen = {}
  if st then
    for _, r in st:rows() do
      local run = r.run or 1
      if not seen[run] then seen[run] = true; runs[#runs + 1] = run end
    end
  end
  local sb = p.tables.step_breakdown
  if sb then
    for _, r in sb:rows() do
      local run = r.run or 1
      if not seen[run] then seen[run] = true; runs[#runs + 1] = run end
    end
  end
  table.sort(runs)
  local dm = p.tables.device_metrics
  local ops = p.tables.operators
  local ks = p.tables.kernel_summary
  for _, run in ipairs(runs) do
    local label = acc.multi_tb(#runs) and acc.next_run() or nil
    if st then
      for _, r in st:rows() do
        if (r.run or 1) == run then
          local row = { run = label }
          for _, col in ipairs(STEP_COLS) do row[col] = r[col] end
          row.communication_ns = row.communication_ns or 0
          acc.steps[#acc.steps + 1] = row
        end
      end
    end
    -- averages: the stored breakdown (or the step rows' mean)
    local avg, stored_pct = {}, {}
    local by_label = {}
    for _, k in ipairs(D.categories) do by_label[k.label:lower()] = k.key end
    if sb then
      for _, r in sb:rows() do
        if (r.run or 1) == run then
          local cat = (r.category or ""):lower()
          if cat == "average step time" then
            avg.total_ns = r.avg_ns
          elseif by_label[cat] then
            avg[by_label[cat] .. "_ns"] = r.avg_ns
            stored_pct[by_label[cat]] = r.pct
          end
        end
      end
    end
    if not avg.total_ns then
      local rows = {}
      for _, r in ipairs(acc.steps) do if r.run == label then rows[#rows + 1] = r end end
      avg = averages(rows)
    end
    local total = avg.total_ns or 0
    acc.summary[#acc.summary + 1] = { run = label, metric = "Average Step Time", value = total, unit = "ns",
        pct = total > 0 and 100 or nil }
    for _, k in ipairs(D.categories) do
      local v = avg[k.key .. "_ns"]
      if v then
        local pct = total > 0 and 100 * v / total or nil
        acc.summary[#acc.summary + 1] = { run = label, metric = k.label, value = v, unit = "ns", pct = pct,
                                          stored_pct = stored_pct[k.key] }
        if pct and stored_pct[k.key] and math.abs(pct - stored_pct[k.key]) > 0.006 then
          report:finding { severity = "warn", rule = "step-breakdown.stored_pct_mismatch", subject = k.label,
            message = string.format("run %s: the stored %s share %.2f %% differs from %.2f %% recomputed from the stored averages",
              run, k.label, stored_pct[k.key], pct),
            evidence = { stored_pct = stored_pct[k.key], recomputed_pct = pct, avg_ns = v, avg_step_ns = total,
                source = p.source } }
        end
      end
    end
    local gpu = {}
    local tc_used
    if dm then
      for _, r in dm:rows() do
        if (r.run or 1) == run then
          local m = r.metric or ""
          acc.summary[#acc.summary + 1] = { run = label, metric = m, device = r.device, value = r.value, unit = r.unit }
          if m:find("Utilization") then gpu[#gpu + 1] = { label = r.device, util_pct = r.value } end
          if m:find("Tensor Cores") then tc_used = r.value end
        end
      end
    end
    local elig_pct
    if ops and ops:has("tc_eligible") and ops:has("device_self_ns") then
      local e, a = 0, 0
      for _, r in ops:rows() do
        if (r.run or 1) == run and r.device_self_ns then
          a = a + r.device_self_ns
          if r.tc_eligible then e = e + r.device_self_ns end
        end
      end
      if a > 0 then
        elig_pct = 100 * e / a
        acc.summary[#acc.summary + 1] = { run = label, metric = "Kernel Time of Tensor-Core-Eligible Ops",
            value = elig_pct, unit = "pct" }
      end
    end
    if tc_used == nil and ks and ks:has("tensor_cores_used") then
      local t, a = 0, 0
      for _, r in ks:rows() do
        if (r.run or 1) == run and r.total_ns then
          a = a + r.total_ns
          if r.tensor_cores_used then t = t + r.total_ns end
        end
      end
      if a > 0 then tc_used = 100 * t / a end
    end
    triggers(report, p.source, run, avg, gpu, { tc_eligible_pct = elig_pct, tc_used_pct = tc_used })
  end
  local rec = p.tables.recommendations
  if rec and rec:nrows() > 0 then
    for _, r in rec:rows() do
      report:note(string.format("%s run %s, the plugin's own recommendation: %s", p.source, r.run or 1, r.text or ""))
    end
  end
end

--- step-breakdown: one stacked bar per step, a segment per category.
local function figure(report, tname)
  tname = tname or "steps"
  local t = report.tables[tname]
  if not t or t:nrows() == 0 or not t:has("step") then return end
  local cats = {}
  for _, c in ipairs(t:columns()) do
    if c:match("_ns$") and c ~= "total_ns" and c ~= "start_ns" and not c:match("^duration") then cats[#cats + 1] = c end
  end
  if #cats == 0 then return end
  local cols = { "step" }
  for _, c in ipairs(cats) do cols[#cols + 1] = c end
  local rows = figures.rows_of(t, cols, 60)
  local labels, series = {}, {}
  for i, c in ipairs(cats) do series[i] = { name = c:gsub("_ns$", ""), values = {}, titles = {} } end
  for k, r in ipairs(rows) do
    labels[k] = tostring(r.step)
    for i, c in ipairs(cats) do
      series[i].values[k] = r[c] and r[c] / 1e6 or nil
      series[i].titles[k] = string.format("step %s · %s: %s", labels[k], series[i].name, figures.ms(r[c]))
    end
  end
  report:figure("step_breakdown.svg", chart.bars {
    title = "Step time breakdown", subtitle = t:nrows() > 60 and string.format("first 60 of %d steps", t:nrows())
        or nil,
    stacked = true, categories = labels, series = series, value_label = "time (ms)", category_label = "step",
  }, { title = "stacked step time per category" })
end

return {
  name = "step-breakdown",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "per profiler step: Kernel/Memcpy/Memset/Communication/Runtime/DataLoader/CPU Exec/Other, GPU utilisation, recommendations (tb-profiler rules)",
  needs = { "events|steps|step_breakdown|runtime" },   -- runtime: an Nsight Systems export
  -- the device share of a step: refuses a trace whose device work it cannot read (perflab.recipes)
  device_side = true,
  options = {
    step = { type = "string", default = "",
        help = "Nsight Systems exports: the NVTX range that marks a step (exact name, else a name prefix)" },
    pid = { type = "integer", default = 0,
        help = "Nsight Systems exports: the process whose steps to break down (0: the first with step ranges)" },
  },
  run = function(inputs, opts, report)
    local acc = { steps = {}, summary = {}, run = 0 }
    -- a `run` column when more than one run is reported
    local nruns = 0
    for _, p in ipairs(inputs) do
      if p.tables.events or p.format == "nsys-sqlite" then nruns = nruns + 1
      else nruns = nruns + math.max(1, math.floor(p.meta and p.meta.runs or 1)) end
    end
    acc.multi = nruns > 1
    acc.multi_tb = function() return nruns > 1 end
    acc.next_run = function() acc.run = acc.run + 1; return acc.run end
    for _, p in ipairs(inputs) do
      if p.tables.events or p.format == "nsys-sqlite" then from_kineto(p, report, acc, opts) else from_tb(p, report,
          acc) end
    end
    -- several ranks of one job (one run per trace): a rank column beside run
    local per_rank = ranks.of_job(inputs) and acc.multi
    if per_rank then
      for _, r in ipairs(acc.steps) do r.rank = inputs[r.run] and inputs[r.run].rank end
      for _, r in ipairs(acc.summary) do r.rank = r.run and inputs[r.run] and inputs[r.run].rank end
    end
    local cols = {}
    if acc.multi then cols[1] = "run" end
    if per_rank then cols[#cols + 1] = "rank" end
    for _, c in ipairs(STEP_COLS) do cols[#cols + 1] = c end
    if #acc.steps > 0 and acc.steps[1].start_ns then cols[#cols + 1] = "start_ns" end
    report:table("steps", T.from_rows(acc.steps, cols, "steps"),
      { title = "time per step by category (ns; each category minus every higher one, within the step)" })
    local scols = {}
    if acc.multi then scols[1] = "run" end
    if per_rank then scols[#scols + 1] = "rank" end
    for _, c in ipairs({ "metric", "device", "value", "unit", "pct" }) do scols[#scols + 1] = c end
    local has_stored = false
    for _, r in ipairs(acc.summary) do if r.stored_pct then has_stored = true end end
    if has_stored then scols[#scols + 1] = "stored_pct" end
    report:table("summary", T.from_rows(acc.summary, scols, "summary"),
      { title = "average step and utilisation (value in ns for categories, percent for utilisation, bytes for peak memory; pct = share of the average step, or of the device memory)" })
    figure(report)   -- stacked bars per step
    -- where the time goes, for run all's summary: the mean step per run
    -- (rank); the GPU is busy in kernel, memcpy/memset and communication
    -- time, the host holds it up in runtime, DataLoader and CPU Exec time
    local runs, order = {}, {}
    for _, r in ipairs(acc.steps) do   -- one row per step: few
      local key = r.rank or r.run or 1
      local b = runs[key]
      if not b then
        b = { subject = r.rank and ("rank " .. r.rank) or (acc.multi and ("run " .. (r.run or 1))) or "trace",
              steps = 0, step_ns = 0, computation_ns = 0, communication_ns = 0, memcpy_ns = 0, host_bound_ns = 0,
                  idle_ns = 0 }
        runs[key] = b; order[#order + 1] = key
      end
      b.steps = b.steps + 1
      b.step_ns = b.step_ns + (r.total_ns or 0)
      b.computation_ns = b.computation_ns + (r.kernel_ns or 0)
      b.communication_ns = b.communication_ns + (r.communication_ns or 0)
      b.memcpy_ns = b.memcpy_ns + (r.memcpy_ns or 0) + (r.memset_ns or 0)
      b.host_bound_ns = b.host_bound_ns + (r.runtime_ns or 0) + (r.dataloader_ns or 0) + (r.cpu_exec_ns or 0)
      b.idle_ns = b.idle_ns + (r.other_ns or 0)
    end
    local bd = {}
    for i, key in ipairs(order) do
      local b = runs[key]
      for _, k in ipairs({ "step_ns", "computation_ns", "communication_ns", "memcpy_ns", "host_bound_ns",
          "idle_ns" }) do
        b[k] = b[k] / b.steps
      end
      bd[i] = b
    end
    if #bd > 0 then
      report:breakdown(bd,
          "host-bound = Runtime + DataLoader + CPU Exec, idle = Other (the GPU waits on nothing the trace names)")
    end
  end,
}

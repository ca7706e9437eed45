--- ncu-rules: Nsight Compute's rule set re-derived offline from the metrics
-- an exported report carries (ncu text or CSV, details or raw page, any
-- generation): SOL bottleneck, issue-slot utilisation, theoretical and
-- achieved occupancy, warp-stall reasons, thread divergence, FMA fusion,
-- shared-memory bank conflicts, uncoalesced global access, workload
-- imbalance and the launch-configuration rules.  Formulas and thresholds:
-- ../shared/reference/analysis-rules.md (ncu's sections/*.py).
--
-- This file is the list of rules: each block reads its metrics as columns
-- (S.get: a metric by every name it has had), states where it fires as a
-- mask, its estimate and evidence as column expressions, and its message.
-- Thresholds, metric names, texts and parent links are data in
-- lua/perflab/ncu_rules.lua, which also runs the rules (ncu_rules.run): the
-- findings, the tables and the comparison with ncu's own output.
--
-- Each finding carries its evidence and speedup estimate; a child rule's
-- estimate is capped by its parent's (ncu's normalised parent speedup:
-- occupancy and stall rules under issue-slot utilisation).  Where the file
-- also carries ncu's own rule output (table `rules`), each perflab row says
-- whether ncu fired the same rule on the same launch (column ncu_fired) and
-- a note lists what ncu fired that perflab did not.
--
-- Weighted by the real run: a second input that is a timeline (Kineto,
-- nsys stats, kernel table, nvprof/rocprof) -- or --set timeline=FILE --
-- joins kernels by short name (and grid/block when both sides have them)
-- and weights each finding's speedup by the kernel's share of GPU time in
-- the timeline: est. saved time = share x speedup; findings are ranked by
-- it and unmatched kernels are listed (perflab.weighting).
--
-- Table `ncu_rules` (one row per launch and rule that fired): kernel_id,
-- kernel, rule, ncu_rule, severity, speedup_pct, capped_by, ncu_fired,
-- evidence.  Table `ncu_compare`: what ncu itself fired per rule.
-- Findings group identical firings (rule, kernel, message shape); each
-- group's message is the rule's text of the evidence values of its
-- representative launch (its largest estimate).
local perflab = require "perflab"
local cuda = require "perflab.cuda_occupancy"
local ncu = require "perflab.ncu_math"
local device = require "perflab.device"
local R = require "perflab.ncu_rules"
local weighting = require "perflab.weighting"

local fmt = cuda.fmt_pct

-- the rules, in ncu's order of sections (the numbers: analysis-rules.md
-- items).  S is the evaluator (perflab.ncu_rules.run, docs/api.md): S.get
-- reads a metric as a column, S.absent says where a rule cannot run, and
-- S.emit(rule, order, where it fires, {sev, sp = the estimate %, cap = the
-- parent's, ev = the evidence, msg}) fires it.  th: the thresholds.
local function rules(S, th)
  local get = S.get
  local no, none = S.k:const(false), S.k:const(nil, "number")
  local sm, mem, waves = get("compute_pct"), get("memory_pct"), get("waves")
  local maxthr = sm:max_with(mem)

  -- 1 SOL bottleneck
  do
    local ok = sm:present() & mem:present()
    S.absent("ncu.sol_bottleneck", ~ok)
    local hi = sm:ge(th.sol_high) | mem:ge(th.sol_high)
    local lo = sm:lt(th.sol_low) & mem:lt(th.sol_low)
    local cases = {
      { hi & sm:ge(mem), "high_throughput|compute-bound" }, { hi, "high_throughput|memory-bound" },
      { lo & waves:lt(1), "small_grid|latency-bound" }, { lo, "latency|latency-bound" },
      { (sm - mem):abs():ge(th.sol_diff) & sm:gt(mem), "compute|compute-bound" },
      { (sm - mem):abs():ge(th.sol_diff), "memory|memory-bound" },
    }
    local cb = S.pick(cases, "balanced|balanced")
    local class = cb:map(function(s) return (s:match("^([^|]*)")) end)
    local bound = cb:map(function(s) return (s:match("|(.*)$")) end)
    local sev = class:map(function(c) return (c == "high_throughput" or c == "balanced") and "info" or "opt" end)
    S.emit("ncu.sol_bottleneck", 1, ok, { sev = sev, gkey = class,
      ev = { bound = bound, class = class, compute_pct = sm, memory_pct = mem, waves_per_sm = R.maybe(waves),
             thresholds = string.format("%d / %d / %d", th.sol_high, th.sol_low, th.sol_diff) },
      msg = function(v) return select(3, ncu.sol_class(v.compute_pct, v.memory_pct, v.waves_per_sm, th)) end })
  end

  -- 7 issue slots
  local issue, elig = get("issue_active"), get("eligible_pct")
  local idle = (100 - elig):fill((1 - issue) * 100)
  local est = idle:min_with(100 - maxthr):fill(idle)         -- the parent estimate, where issue is known
  local cap = est:keep(issue:present())
  S.absent("ncu.issue_slots", ~issue:present())
  S.emit("ncu.issue_slots", 2, issue:lt(th.issue_active), { sev = "opt", sp = est,
    ev = { issue_active = issue, eligible_pct = R.maybe(elig), max_throughput_pct = R.maybe(maxthr) },
    x = { active_warps = get("active_warps"), eligible_warps = get("eligible_warps") },
    msg = function(v)
      return string.format("each scheduler issues an instruction only every %.1f cycles (%.2f per cycle, threshold %.1f)%s",
        1 / math.max(v.issue_active, 1e-9), v.issue_active, th.issue_active, v.eligible_warps and string.format(
          "; %.2f active and %.2f eligible warps per scheduler", v.active_warps or 0, v.eligible_warps) or "")
    end })

  -- 5 theoretical occupancy / 6 achieved gap
  local tocc, aocc = S.kcol("theoretical_occupancy_pct") or none, S.kcol("achieved_occupancy_pct") or none
  local active, limiter = S.block_limits()   -- the smallest printed block limit, the limits that equal it
  do
    S.absent("ncu.theoretical_occupancy", ~tocc:present())
    S.emit("ncu.theoretical_occupancy", 3, tocc:lt(th.occupancy_low), { sev = "opt", sp = 100 - tocc, cap = cap,
      ev = { limiter = R.list(limiter), theoretical_pct = tocc, threshold_pct = th.occupancy_low },
      msg = function(v)
        return string.format("theoretical occupancy %s %% is below %d %%%s", fmt(v.theoretical_pct), th.occupancy_low,
          #v.limiter > 0 and (", limited by " .. table.concat(v.limiter, " and ")) or "")
      end })
    S.emit("ncu.achieved_occupancy", 4, (tocc - aocc):gt(th.achieved_gap) & tocc:gt(0), { sev = "opt",
      sp = (tocc - aocc) / tocc * 100, cap = cap,
      ev = { achieved_pct = aocc, gap_threshold = th.achieved_gap, theoretical_pct = tocc },
      msg = function(v)
        local t, a = v.theoretical_pct, v.achieved_pct
        return string.format("achieved occupancy %s %% is %s points below theoretical %s %%: warp scheduling overheads or workload imbalance",
          fmt(a), fmt(t - a), fmt(t))
      end })
  end

  -- 8 warp stalls: one row per launch and reason over the threshold
  do
    local cpi = get("cycles_per_issue")
    local anyst = no
    for _, s in ipairs(S.stall) do anyst = anyst | s[2]:present() end
    local ok = cpi:present() & anyst
    S.absent("ncu.warp_stall", ~ok)
    local gate = ok & (issue:lt(th.stall_issue_active) | ~issue:present())
    for _, s in ipairs(S.stall) do
      local ratio = s[2] / cpi
      S.emit("ncu.warp_stall", 5, gate & ratio:gt(th.stall_ratio), { sev = "opt", sp = ratio * 100, cap = cap,
        sv = s[2], gkey = s[1], skey = s[1],
        ev = { cycles_per_issue = cpi, ratio_threshold = th.stall_ratio, reason = s[1], stall_cycles = s[2] },
        msg = function(v)
          return string.format("each warp spends %.2f of its %.2f cycles between issued instructions stalled on %s (%s %%)",
            v.stall_cycles, v.cycles_per_issue, R.stall_text[v.reason] or v.reason,
                fmt(v.stall_cycles / v.cycles_per_issue * 100))
        end })
    end
  end

  -- 9 thread divergence
  do
    local act, pon = get("active_threads"), get("pred_on_threads")
    local ok = act:present() & sm:present()
    S.absent("ncu.thread_divergence", ~ok)
    local lo = act:min_with(pon):fill(act)
    S.emit("ncu.thread_divergence", 6, ok & lo:lt(th.active_threads), { sev = "opt", sp = (1 - lo / 32) * sm,
      ev = { active_threads = act, compute_pct = sm, pred_on_threads = R.maybe(pon), threshold = th.active_threads },
      msg = function(v)
        return string.format("on average only %.1f of 32 threads per warp are active%s: divergent branches or predication waste lanes",
          v.active_threads, v.pred_on_threads and string.format(" (%.1f not predicated off)", v.pred_on_threads) or "")
      end })
  end

  -- 10 FMA fusion
  do
    local any_fp = no
    for j, prec in ipairs({ { "FP32", "fadd", "fmul", "ffma" }, { "FP64", "dadd", "dmul", "dfma" } }) do
      local a, m, f = get(prec[2]), get(prec[3]), get(prec[4])
      local ok = a:present() & m:present() & f:present()
      any_fp = any_fp | ok
      local non = a + m
      local all = non + f
      local ratio = non / all / 2
      local pipe = get("fp_pipe_pct"):fill(sm):fill(100)
      S.emit("ncu.fma_fusion", 7, ok & all:gt(0) & ratio:gt(th.fma_ratio), { sev = "opt", sp = 0.5 * non / all * pipe,
        sub = j, skey = prec[1],
        ev = { fused = f, non_fused = non, pipe_pct = pipe, precision = prec[1], ratio = ratio,
            threshold = th.fma_ratio },
        msg = function(v)
          return string.format("%s: %d fused and %d non-fused instructions; converting ADD/MUL pairs to FMA could cut them by up to %s %% (--fmad=true, --use_fast_math)",
            v.precision, v.fused, v.non_fused, fmt(v.ratio * 100))
        end })
    end
    S.absent("ncu.fma_fusion", ~any_fp)
  end

  -- 16 shared-memory bank conflicts
  do
    local any_bc = no
    local l1 = get("l1_pct"):fill(100)
    for j, op in ipairs({ { "load", "conflicts_ld", "wavefronts_ld", "requests_ld" },
                          { "store", "conflicts_st", "wavefronts_st", "requests_st" } }) do
      local c, w, req = get(op[2]), get(op[3]), get(op[4])
      local ok = c:present() & w:gt(0)
      any_bc = any_bc | ok
      local pct = c / w * 100
      S.emit("ncu.bank_conflicts", 8, ok & pct:ge(th.bank_conflict_pct), { sev = "opt", sp = pct * l1 / 100,
        sub = j, gkey = op[1], skey = op[1],
        ev = { conflicts = c, l1_pct = l1, op = op[1], requests = R.maybe(req), threshold_pct = th.bank_conflict_pct,
            wavefronts = w },
        msg = function(v)
          local r = v.requests
          return string.format("shared %ss: %s %% of %d wavefronts are bank conflicts%s", v.op,
              fmt(v.conflicts / v.wavefronts * 100),
            v.wavefronts, r and r > 0 and string.format(" (%.1f-way on average)", v.wavefronts / r) or "")
        end })
    end
    S.absent("ncu.bank_conflicts", ~any_bc)
  end

  -- 14 uncoalesced global access
  do
    local sec, ideal = get("sectors_global"), get("sectors_global_ideal")
    local ok = ideal:present() & sec:gt(0)
    S.absent("ncu.uncoalesced_global", ~ok)
    local excess = sec - ideal
    local el = get("l2_elapsed")
    local w = (get("l2_active") / el):keep(el:gt(0)):fill(1)
    S.emit("ncu.uncoalesced_global", 9, ok & excess:gt(0) & (excess / sec * 100):gt(th.uncoalesced_pct), { sev = "opt",
      sp = w * excess / sec * 100,
      ev = { excess = excess, ideal_sectors = ideal, l2_active_ratio = w, sectors = sec },
      msg = function(v)
        return string.format("uncoalesced global accesses: %d excessive L2 sectors (%s %% of %d)",
          v.excess, fmt(v.excess / v.sectors * 100), v.sectors)
      end })
  end

  -- 17 workload imbalance
  do
    local any_wi = no
    for j, u in ipairs(R.imbalance_units) do
      local mx, mn, avg = get(u.prefix .. ".max"), get(u.prefix .. ".min"), get(u.prefix .. ".avg")
      local el = get(u.elapsed)
      local ok = mn:present() & mx:gt(0) & avg:gt(0)
      any_wi = any_wi | ok
      local maxd = (1 - avg / mx) * 100
      local mind = (1 - mn / avg) * 100
      local ratio = (avg / el):keep(el:gt(0)):fill(1)
      S.emit("ncu.workload_imbalance", 10, ok & (maxd:ge(th.imbalance_pct) | mind:ge(th.imbalance_pct)), { sev = "opt",
        sp = maxd * ratio, sub = j, gkey = u.unit, skey = u.unit,
        ev = { avg = avg, max = mx, min = mn, threshold_pct = th.imbalance_pct, unit = u.unit },
        msg = function(v)
          return string.format("%s: active cycles range from %s %% below to %s %% above the average",
            v.unit, fmt((1 - v.min / v.avg) * 100), fmt((v.max / v.avg - 1) * 100))
        end })
    end
    S.absent("ncu.workload_imbalance", ~any_wi)
  end

  -- 2-4 launch configuration
  do
    local bs, grid, sms, act = S.launch(active)
    local bc = ncu.block_size_check_col(bs)
    S.emit("ncu.block_size", 11, bc.fires, { sev = "warn", sp = bc.speedup_pct, ev = { block_size = bs },
      msg = function(v)
        return string.format("block size %d is not a multiple of 32 (%d idle lanes per block)", v.block_size,
            32 - v.block_size % 32)
      end })
    local sg = ncu.small_grid_col(grid, sms)
    S.emit("ncu.small_grid", 12, sg.high, { sev = "warn", sp = sg.speedup_pct,
        ev = { grid_size = grid, sm_count = sms },
      msg = function(v)
        local g, s = v.grid_size, v.sm_count
        return string.format("%d block%s on %d SMs: %d SMs idle", g, g == 1 and "" or "s", s, s - g)
      end })
    S.emit("ncu.grid_below_2x_sms", 12, sg.low, { sev = "info", ev = { grid_size = grid, sm_count = sms },
      msg = function(v)
        return string.format("%d blocks on %d SMs is less than two per SM: a second resident block hides __syncthreads() stalls",
          v.grid_size, v.sm_count)
      end })
    S.absent("ncu.small_grid", grid:present() & ~sms:present())
    local tl = ncu.tail_col(grid, sms, act, th)
    S.emit("ncu.tail_effect", 13, tl.fires, { sev = "opt", sp = tl.speedup_pct,
      ev = { active_blocks = act, partial_blocks = tl.partial_blocks, waves = tl.waves, whole_waves = tl.whole },
      x = { sms = sms, speedup = tl.speedup_pct },
      msg = function(v)
        return string.format("%.2f waves (%d SMs x %d blocks): the partial last wave (%d blocks) can take up to %s %% of the run",
          v.waves, v.sms, v.active_blocks, v.partial_blocks, fmt(v.speedup))
      end })
  end
end

local NR
NR = {
  name = "ncu-rules",
  summary = "Nsight Compute's rules re-derived from exported metrics, compared with ncu's own output, optionally weighted by a timeline",
  needs = { "kernels" },                           -- each Nsight Compute report (per launch) ...
  timeline_needs = { "kernels|kernel_summary" },   -- ... and a timeline beside it
  ncu_only = true,
  options = {
    gpu = { type = "string", default = "auto",
        help = "GPU model when the input does not say (SM count for the launch rules)" },
    timeline = weighting.option,
  },
  run = function(inputs, opts, report)
    local reports_in, timelines = weighting.inputs(inputs, opts, { recipe_def = NR })
    if #reports_in == 0 then perflab.fail("ncu-rules needs an Nsight Compute report (ncu text or CSV) among the inputs") end
    local all = {}   -- every grouped finding, for the weighting
    for idx, p in ipairs(reports_in) do
      local ctx, err = device.context(p, opts)
      if not ctx then perflab.fail(err) end
      local found = R.run(report, p, ctx, rules, { suffix = #reports_in > 1 and ("_" .. idx) or "",
        launch_ids = #timelines > 0 })
      for _, f in ipairs(found) do all[#all + 1] = weighting.item(f.finding, p, f.kernel, f.launch_ids) end
    end
    weighting.apply(report, all, timelines)
  end,
}
return NR

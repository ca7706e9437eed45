--- nvprof-rules: what limits each kernel of an nvprof `--metrics` run, the
-- way the Visual Profiler's guided analysis read the same metrics:
-- utilization bottleneck (compute vs memory levels), arithmetic intensity
-- against the device's ridge point, achieved occupancy, the dominant stall
-- reason, warp execution, global and shared-memory efficiency.
--
-- The rules run on the ncu-rules evaluator (perflab.ncu_rules.run) with
-- nvprof's metric names mapped onto the keys it reads
-- (perflab.nvprof_rules.aliases, unit conversions included) and the
-- thresholds of the Nsight Compute rule for the same quantity
-- (../shared/reference/analysis-rules.md); metric definitions from the
-- CUDA Profiler User's Guide, Metrics Reference.  A separate recipe and
-- not more blocks in ncu-rules because the quantities differ: nvprof gives
-- utilization levels 0-10 and stall shares where ncu gives throughput % and
-- cycles per instruction, and no throughput from which ncu's speedup
-- estimates follow.  So no finding carries a speedup or a time: nvprof
-- --metrics runs replay kernels and record no durations.  Where a metric
-- was not collected the table says "unknown" and the note lists the rules
-- not evaluated.  docs/nvprof-rules.md.
--
-- Table `nvprof_kernels` (one row per kernel): the verdicts and the values
-- they rest on.  Table `nvprof_rules` (one row per kernel and rule that
-- fired): kernel_id, kernel, rule, ncu_rule (whose threshold), severity,
-- evidence.
local perflab = require "perflab"
local device = require "perflab.device"
local R = require "perflab.ncu_rules"
local NV = require "perflab.nvprof_rules"
local gpus = require "perflab.gpus"

local function fmt(x) return string.format("%.4g", x) end

-- the largest of the level columns present, and the label of the unit
-- (the first among equals, in list order)
local function top_level(S, units)
  local best, label
  for _, u in ipairs(units) do
    local v = S.get(u[1])
    best = best and best:max_with(v):fill(best):fill(v) or v
  end
  local cases = {}
  for _, u in ipairs(units) do cases[#cases + 1] = { S.get(u[1]):eq(best), u[2] } end
  label = S.pick(cases, "")
  return best, label
end

local function rules_for(ctx, out)
  return function(S, th)
    local get = S.get
    local none = S.k:const(nil, "number")
    out.base = S.k:select({})

    -- utilization bottleneck (analysis-rules.md item 1 on levels 0-10)
    do
      local cl, cu = top_level(S, NV.compute_units)
      local ml, mu = top_level(S, NV.memory_units)
      local ok = cl:present() & ml:present()
      S.absent("nvprof.bound", ~ok)
      local hi = cl:ge(th.level_high) | ml:ge(th.level_high)
      local lo = cl:lt(th.level_low) & ml:lt(th.level_low)
      local bound = S.pick({
        { hi & cl:ge(ml), "compute-bound" }, { hi, "memory-bound" }, { lo, "latency-bound" },
        { (cl - ml):abs():ge(th.level_diff) & cl:gt(ml), "compute-bound" },
        { (cl - ml):abs():ge(th.level_diff), "memory-bound" } }, "balanced")
      out.compute_level, out.compute_unit, out.memory_level, out.memory_unit = cl, cu, ml, mu
      out.bound = bound:keep(ok)
      local sev = bound:map(function(b) return b == "latency-bound" and "opt" or "info" end)
      S.emit("nvprof.bound", 1, ok, { sev = sev, gkey = bound,
        ev = { bound = bound, compute_level = cl, compute_unit = cu, memory_level = ml, memory_unit = mu,
               thresholds = string.format("levels %g / %g / %g of 10", th.level_high, th.level_low, th.level_diff) },
        msg = function(v)
          local what = v.bound == "latency-bound"
            and "neither compute nor memory is busy: latency (too few warps, or stalls) limits it"
            or v.bound == "balanced" and "compute and memory are about equally busy"
            or ("limited by " .. (v.bound == "compute-bound" and "compute" or "memory"))
          return string.format("%s: highest compute unit %s at level %d of 10, highest memory unit %s at level %d of 10",
            what, v.compute_unit, v.compute_level, v.memory_unit, v.memory_level)
        end })
    end

    -- arithmetic intensity vs the ridge point (analysis-rules.md item 33)
    do
      local sp, dp, hp = get("flops_sp"), get("flops_dp"), get("flops_hp")
      local flops = sp:fill(0) + dp:fill(0) + hp:fill(0)
      local anyf = sp:present() | dp:present() | hp:present()
      local bytes = get("dram_read_bytes") + get("dram_write_bytes")
      -- the precision with the most operations names the roof
      local prec = S.pick({ { dp:fill(0):gt(sp:fill(0)) & dp:fill(0):ge(hp:fill(0)), "fp64" },
                            { hp:fill(0):gt(sp:fill(0)), "fp16" } }, "fp32")
      local m = ctx.model
      local bw = m and m.dram_bw_bytes_per_s
      -- FP32 and FP64 only: perflab.gpus' fp16 is the tensor-core peak, not
      -- the rate of the non-tensor half-precision operations flop_count_hp counts
      local peaks = m and m.peaks or {}
      local peak = prec:map(function(pr) return pr ~= "fp16" and peaks[pr] or nil end) / 1
      local ridge = bw and (peak / bw) or none
      local ai = (flops / bytes):keep(bytes:gt(0) & anyf)
      local ok = ai:present() & ridge:present()
      out.ai, out.ridge, out.precision = ai, ridge, prec:keep(anyf)
      out.side = S.pick({ { ok & ai:lt(ridge), "memory side" }, { ok, "compute side" } }, ""):keep(ok)
      S.absent("nvprof.roofline", ~ok)
      if (ai:present() & ~ridge:present() & prec:eq("fp16")):count_true() > 0 then
        out.roofline_unknown = "the ridge point of the FP16-dominated kernels is unknown: perflab.gpus holds the "
          .. "tensor-core FP16 peak, not the non-tensor half-precision rate flop_count_hp counts"
      elseif (ai:present() & ~ridge:present()):count_true() > 0 then
        out.roofline_unknown = string.format("the ridge point is unknown: no peak FLOP/s and bandwidth for %s in "
          .. "perflab.gpus (--gpu MODEL, or a ~/.config/perflab/gpus.lua entry)", ctx.name or "this device")
      end
      S.emit("nvprof.roofline", 2, ok, { sev = "info", gkey = out.side,
        ev = { arithmetic_intensity = ai, bytes = bytes, flops = flops, precision = prec, ridge = ridge,
               peak_bytes_per_s = bw or 0 },
        msg = function(v)
          local below = v.arithmetic_intensity < v.ridge
          return string.format("%.3g FLOP per DRAM byte (%s) is %s the %s ridge point of %.3g FLOP/byte: %s",
            v.arithmetic_intensity, v.precision, below and "below" or "above", m.name, v.ridge,
            below and "memory bandwidth caps it before compute does" or "compute caps it before memory bandwidth does")
        end })
    end

    -- achieved occupancy (item 5's threshold: achieved <= theoretical,
    -- which nvprof does not record)
    do
      local occ = get("achieved_occupancy_pct")
      out.occupancy, out.sm_efficiency = occ, get("sm_efficiency_pct")
      S.absent("nvprof.occupancy", ~occ:present())
      S.emit("nvprof.occupancy", 3, occ:lt(th.occupancy_low), { sev = "opt",
        ev = { achieved_pct = occ, sm_efficiency_pct = R.maybe(out.sm_efficiency), threshold_pct = th.occupancy_low },
        msg = function(v)
          return string.format("achieved occupancy %s %% is below %d %% of the maximum warps per SM%s; whether the "
            .. "launch configuration (theoretical occupancy) or scheduling limits it is unknown: nvprof --metrics "
            .. "records neither registers nor block size", fmt(v.achieved_pct), th.occupancy_low,
            v.sm_efficiency_pct and string.format(" (SMs busy %s %% of the time)", fmt(v.sm_efficiency_pct)) or "")
        end })
    end

    -- dominant stall reason (item 8's threshold on nvprof's stall shares)
    do
      local best, any = none, S.k:const(false)
      for _, s in ipairs(NV.stalls) do
        local v = get(s[1])
        any = any | v:present()
        best = best:max_with(v):fill(best):fill(v)
      end
      local cases = {}
      for _, s in ipairs(NV.stalls) do cases[#cases + 1] = { get(s[1]):eq(best), s[1]:sub(7) } end
      out.stall, out.stall_pct = S.pick(cases, ""):keep(any), best
      S.absent("nvprof.warp_stall", ~any)
      for j, s in ipairs(NV.stalls) do
        local v = get(s[1])
        S.emit("nvprof.warp_stall", 4, v:gt(th.stall_share), { sev = "opt", sv = v, gkey = s[1], skey = s[1], sub = j,
          ev = { reason = s[1]:sub(7), share_pct = v, threshold_pct = th.stall_share },
          msg = function(x)
            return string.format("%s %% of warp stalls are on %s", fmt(x.share_pct), s[2])
          end })
      end
    end

    -- warp execution efficiency (item 9: < 24 of 32 threads active)
    do
      local act, pon = get("active_threads"), get("pred_on_threads")
      out.wee, out.branch = get("warp_execution_efficiency_pct"), get("branch_efficiency_pct")
      S.absent("nvprof.thread_divergence", ~act:present())
      S.emit("nvprof.thread_divergence", 5, act:lt(th.active_threads), { sev = "opt",
        ev = { active_threads = act, branch_efficiency_pct = R.maybe(out.branch), pred_on_threads = R.maybe(pon),
               threshold = th.active_threads },
        msg = function(v)
          return string.format("on average %.1f of 32 threads per warp are active (warp execution efficiency %s %%)%s: "
            .. "divergent branches or predication waste lanes", v.active_threads, fmt(v.active_threads / 32 * 100),
            v.branch_efficiency_pct and string.format("; branch efficiency %s %%", fmt(v.branch_efficiency_pct)) or "")
        end })
    end

    -- global load/store efficiency (item 14: any excess transactions)
    do
      local any = S.k:const(false)
      out.gld, out.gst = get("gld_efficiency_pct"), get("gst_efficiency_pct")
      for j, op in ipairs({ { "load", out.gld }, { "store", out.gst } }) do
        local eff = op[2]
        any = any | eff:present()
        -- 0 %: nvprof prints 0 where the kernel makes no such request (0 / 0)
        S.emit("nvprof.global_efficiency", 6, (100 - eff):gt(th.global_excess_pct) & eff:gt(0),
            { sev = "opt", sv = 100 - eff,
          gkey = op[1], skey = op[1], sub = j,
          ev = { efficiency_pct = eff, op = op[1] },
          msg = function(v)
            return string.format("global %s efficiency %s %%: the kernel moves %.2fx the bytes it requests "
              .. "(uncoalesced or strided accesses)", v.op, fmt(v.efficiency_pct),
                  100 / math.max(v.efficiency_pct, 1e-9))
          end })
      end
      S.absent("nvprof.global_efficiency", ~any)
    end

    -- shared-memory efficiency (item 16: >= 10 % replays)
    do
      local eff = get("shared_efficiency_pct")
      out.shared = eff
      S.absent("nvprof.shared_efficiency", ~eff:present())
      S.emit("nvprof.shared_efficiency", 7, (100 - eff):ge(th.shared_excess_pct) & eff:gt(0), { sev = "opt",
        ev = { efficiency_pct = eff, threshold_pct = th.shared_excess_pct },
        msg = function(v)
          return string.format("shared-memory efficiency %s %%: %s %% of the shared-memory throughput serves no "
            .. "requested byte (bank conflicts or sub-word accesses)", fmt(v.efficiency_pct),
                fmt(100 - v.efficiency_pct))
        end })
    end
  end
end

local COLS = { "kernel_id", "kernel", "invocations", "bound", "compute_level", "compute_unit", "memory_level",
  "memory_unit", "arithmetic_intensity", "ridge", "roofline_side", "achieved_occupancy_pct", "sm_efficiency_pct",
  "dominant_stall", "dominant_stall_pct", "warp_execution_efficiency_pct", "branch_efficiency_pct",
  "gld_efficiency_pct", "gst_efficiency_pct", "shared_efficiency_pct" }

local NR
NR = {
  name = "nvprof-rules",
  summary = "what limits each kernel of an nvprof --metrics run (utilization, arithmetic intensity, occupancy, stalls, efficiencies), on the ncu-rules evaluator",
  needs = { "metrics.invocations" },
  options = {
    gpu = { type = "string", default = "auto",
        help = "GPU model when the input does not say (peaks for the ridge point)" },
  },
  run = function(inputs, opts, report)
    for idx, p in ipairs(inputs) do
      local ctx, err = device.context(p, opts)
      if not ctx then perflab.fail(err) end
      if not ctx.model and ctx.name then ctx.model = gpus.model(ctx.name) end
      local suffix = #inputs > 1 and ("_" .. idx) or ""
      local k = NV.launches(p)
      local out = {}
      R.run(report, p, ctx, rules_for(ctx, out), { suffix = suffix, kernels = k, metrics = NV.metrics(p),
        aliases = NV.aliases, table = "nvprof_rules", thresholds = NV.thresholds,
        columns = { "kernel_id", "kernel", "rule", "ncu_rule", "severity", "evidence" },
        unit = { "kernel", "kernels" } })
      if out.base then
        local t = k:select({}):with("kernel_id", k:col("id")):with("kernel", k:col(k:has("short_name")
            and "short_name" or "name")):with("invocations", k:col("invocations"))
        local function put(name, c, unknown)
          t:with(name, unknown and c:type() == "string" and c:fill(unknown) or c)
        end
        put("bound", out.bound, "unknown")
        put("compute_level", out.compute_level)
        put("compute_unit", out.compute_unit:keep(out.compute_level:present()))
        put("memory_level", out.memory_level)
        put("memory_unit", out.memory_unit:keep(out.memory_level:present()))
        put("arithmetic_intensity", out.ai)
        put("ridge", out.ridge)
        put("roofline_side", out.side, "unknown")
        put("achieved_occupancy_pct", out.occupancy)
        put("sm_efficiency_pct", out.sm_efficiency)
        put("dominant_stall", out.stall, "unknown")
        put("dominant_stall_pct", out.stall_pct)
        put("warp_execution_efficiency_pct", out.wee)
        put("branch_efficiency_pct", out.branch)
        put("gld_efficiency_pct", out.gld)
        put("gst_efficiency_pct", out.gst)
        put("shared_efficiency_pct", out.shared)
        report:table("nvprof_kernels" .. suffix, t:select(COLS), { title = string.format(
          "what limits each kernel (%s, %s); levels 0-10 as nvprof prints them, - = metric not collected",
          p.source, ctx.name or "device unknown"),
          note = "No times and no speedup estimates: nvprof --metrics replays each kernel and records no durations. "
            .. "Thresholds: the Nsight Compute rule for the same quantity (docs/nvprof-rules.md)." })
        if out.roofline_unknown then report:note(out.roofline_unknown) end
      end
    end
  end,
}
return NR

--- ncu-rules: Nsight Compute's rule set re-derived offline from the metrics
-- an exported report carries (ncu text or CSV, details or raw page, any
-- generation): SOL bottleneck, issue-slot utilisation, theoretical and
-- achieved occupancy, warp-stall reasons, thread divergence, FMA fusion,
-- shared-memory bank conflicts, uncoalesced global access, workload
-- imbalance and the launch-configuration rules.  Thresholds, metric names,
-- texts and parent links are data in lua/perflab/ncu_rules.lua.
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
local perflab = require "perflab"
local gpu = require "perflab.gpu"
local gpus = require "perflab.gpus"
local R = require "perflab.ncu_rules"
local weighting = require "perflab.weighting"
local T = perflab.table
-- the standard functions as locals: a recipe's globals resolve through the
-- strict environment's __index function, per call, in the per-launch loop
local ipairs, pairs, type, tostring, next = ipairs, pairs, type, tostring, next
local math, string, table = math, string, table

local function r2(x) return x and math.floor(x * 100 + 0.5) / 100 end
local fmt = gpu.fmt_pct

-- per-launch metric maps from the long-form `metrics` table: one row per
-- launch, one column per metric (the first value of each), by pivot, read
-- as a Lua table launch by launch (map_of(kernel_id)); and the stall-reason
-- columns among the metrics, matched once per metric name (not per
-- launch): { {metric, reason}, ... } in metric-name order
local function metric_maps(p)
  local stall_cols = {}
  local m = p.tables.metrics
  if not m then return function() return nil end, stall_cols, {} end
  local known = m:col("kernel_id"):present() & m:col("metric"):present() & m:col("value"):present()
  local wide = m:select("kernel_id", "metric", "value"):filter(known):pivot { index = "kernel_id", columns = "metric", values = "value", agg = "first" }
  local row_of = {}
  for j, id in ipairs(wide:col("kernel_id"):to_lua()) do row_of[id] = j end
  local function map_of(id)
    local j = row_of[id]
    return j and wide:row(j)
  end
  local names = wide:columns()
  local cols = wide:columns()
  table.sort(names)
  for _, name in ipairs(names) do
    for _, pat in ipairs(R.stall_patterns) do
      local reason = name:match(pat)
      if reason then stall_cols[#stall_cols + 1] = { name, reason } end
    end
  end
  return map_of, stall_cols, cols
end

-- the aliases of each metric key that name a column of the launch row or the
-- metric map (the others are nil on every launch), resolved once per report
local function alias_resolver(present)
  local cache = {}
  return function(key)
    local list = cache[key]
    if not list then
      list = {}
      for _, a in ipairs(R.metrics[key] or { key }) do
        if present[a] then list[#list + 1] = a end
      end
      cache[key] = list
    end
    return list
  end
end

local function getter(r, mm, resolve)
  return function(key)
    for _, a in ipairs(resolve(key)) do
      local v = r[a]
      if v == nil and mm then v = mm[a] end
      if type(v) == "number" and v == v then return v end
    end
    return nil
  end
end

local function printed_active(r)
  local m
  for _, c in ipairs({ "block_limit_sm", "block_limit_warps", "block_limit_registers",
                       "block_limit_smem", "block_limit_barriers" }) do
    local v = r[c]
    if v and (not m or v < m) then m = v end
  end
  return m
end

-- evaluate every rule on one launch -> list of { id, severity, message, evidence, speedup }
-- and the set of rules that could not run (missing inputs)
local function evaluate(r, mm, ctx, th, stall_cols, resolve)
  local get = getter(r, mm, resolve)
  local out, missing = {}, {}
  local function fire(id, sev, msg, ev, sp) out[#out + 1] = { id = id, severity = sev, message = msg, evidence = ev, speedup = sp } end
  local sm, mem = get("compute_pct"), get("memory_pct")
  local waves = get("waves")
  local maxthr = (sm and mem) and math.max(sm, mem) or nil

  -- 1 SOL bottleneck
  if sm and mem then
    local kind, bound, text = gpu.sol_class(sm, mem, waves, { sol_high = th.sol_high, sol_low = th.sol_low, sol_diff = th.sol_diff })
    local sev = (kind == "high_throughput" or kind == "balanced") and "info" or "opt"
    fire("ncu.sol_bottleneck", sev, text, { compute_pct = sm, memory_pct = mem, waves_per_sm = waves,
      class = kind, bound = bound, thresholds = string.format("%d / %d / %d", th.sol_high, th.sol_low, th.sol_diff) })
  else missing["ncu.sol_bottleneck"] = true end

  -- 7 issue slots (parent of occupancy and stall rules)
  local issue = get("issue_active")
  local elig = get("eligible_pct")
  local parent = {}
  if issue then
    local idle = elig and (100 - elig) or (1 - issue) * 100
    local est = idle
    if maxthr then est = math.min(idle, 100 - maxthr) end
    parent["ncu.issue_slots"] = est
    if issue < th.issue_active then
      fire("ncu.issue_slots", "opt", string.format(
        "each scheduler issues an instruction only every %.1f cycles (%.2f per cycle, threshold %.1f)%s",
        1 / math.max(issue, 1e-9), issue, th.issue_active,
        get("eligible_warps") and string.format("; %.2f active and %.2f eligible warps per scheduler",
          get("active_warps") or 0, get("eligible_warps")) or ""),
        { issue_active = issue, eligible_pct = elig, max_throughput_pct = maxthr,
          formula = "speedup = min(100 - issue %, 100 - max(SM %, memory %))" }, est)
    end
  else missing["ncu.issue_slots"] = true end

  -- 5 theoretical occupancy / 6 achieved gap
  local tocc, aocc = r.theoretical_occupancy_pct, r.achieved_occupancy_pct
  if tocc then
    if tocc < th.occupancy_low then
      local lim = {}
      for _, l in ipairs(gpu.LIMIT_NAMES) do
        local a = printed_active(r)
        if a and r[l.key] == a then lim[#lim + 1] = l.name end
      end
      fire("ncu.theoretical_occupancy", "opt", string.format("theoretical occupancy %s %% is below %d %%%s",
        fmt(tocc), th.occupancy_low, #lim > 0 and (", limited by " .. table.concat(lim, " and ")) or ""),
        { theoretical_pct = tocc, threshold_pct = th.occupancy_low, limiter = lim,
          formula = "speedup = 100 - theoretical %" }, 100 - tocc)
    end
    if aocc then
      if tocc - aocc > th.achieved_gap and tocc > 0 then
        fire("ncu.achieved_occupancy", "opt", string.format(
          "achieved occupancy %s %% is %s points below theoretical %s %%: warp scheduling overheads or workload imbalance",
          fmt(aocc), fmt(tocc - aocc), fmt(tocc)),
          { theoretical_pct = tocc, achieved_pct = aocc, gap_threshold = th.achieved_gap,
            formula = "speedup = (T - A) / T x 100" }, (tocc - aocc) / tocc * 100)
      end
    end
  else missing["ncu.theoretical_occupancy"] = true end

  -- 8 warp stalls
  local cpi = get("cycles_per_issue")
  local stalls = {}
  if mm then                           -- the first metric of a reason in name order
    for _, sc in ipairs(stall_cols) do
      local v = mm[sc[1]]
      if type(v) == "number" and not stalls[sc[2]] then stalls[sc[2]] = v end
    end
  end
  if cpi and next(stalls) then
    local sorted = {}
    for reason, v in pairs(stalls) do sorted[#sorted + 1] = { reason, v } end
    table.sort(sorted, function(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return a[1] < b[1] end)
    for _, s in ipairs(sorted) do
      local ratio = s[2] / cpi
      if (not issue or issue < th.stall_issue_active) and ratio > th.stall_ratio then
        fire("ncu.warp_stall", "opt", string.format(
          "each warp spends %.2f of its %.2f cycles between issued instructions stalled on %s (%s %%)",
          s[2], cpi, R.stall_text[s[1]] or s[1], fmt(ratio * 100)),
          { reason = s[1], stall_cycles = s[2], cycles_per_issue = cpi, ratio_threshold = th.stall_ratio,
            formula = "speedup = stall cycles / cycles per issued instruction" }, ratio * 100)
      end
    end
  else missing["ncu.warp_stall"] = true end

  -- 9 thread divergence
  local act, pon = get("active_threads"), get("pred_on_threads")
  if act and sm then
    local lo = math.min(act, pon or act)
    if lo < th.active_threads then
      fire("ncu.thread_divergence", "opt", string.format(
        "on average only %.1f of 32 threads per warp are active%s: divergent branches or predication waste lanes",
        act, pon and string.format(" (%.1f not predicated off)", pon) or ""),
        { active_threads = act, pred_on_threads = pon, threshold = th.active_threads, compute_pct = sm,
          formula = "speedup = (1 - min(active, predicated-on)/32) x compute %" }, (1 - lo / 32) * sm)
    end
  else missing["ncu.thread_divergence"] = true end

  -- 10 FMA fusion (FP32, FP64)
  local any_fp = false
  for _, prec in ipairs({ { "FP32", "fadd", "fmul", "ffma" }, { "FP64", "dadd", "dmul", "dfma" } }) do
    local a, m, f = get(prec[2]), get(prec[3]), get(prec[4])
    if a and m and f then
      any_fp = true
      local non = a + m
      local all = non + f
      if all > 0 then
        local ratio = non / all / 2
        if ratio > th.fma_ratio then
          local pipe = get("fp_pipe_pct") or sm or 100
          fire("ncu.fma_fusion", "opt", string.format(
            "%s: %d fused and %d non-fused instructions; converting ADD/MUL pairs to FMA could cut them by up to %s %% (--fmad=true, --use_fast_math)",
            prec[1], f, non, fmt(ratio * 100)),
            { precision = prec[1], fused = f, non_fused = non, ratio = ratio, threshold = th.fma_ratio,
              pipe_pct = pipe, formula = "speedup = 0.5 x non_fused / all x FP-pipe (or SM) utilisation" },
            0.5 * non / all * pipe)
        end
      end
    end
  end
  if not any_fp then missing["ncu.fma_fusion"] = true end

  -- 16 shared-memory bank conflicts
  local any_bc = false
  for _, op in ipairs({ { "load", "conflicts_ld", "wavefronts_ld", "requests_ld" },
                        { "store", "conflicts_st", "wavefronts_st", "requests_st" } }) do
    local c, w = get(op[2]), get(op[3])
    if c and w and w > 0 then
      any_bc = true
      local pct = c / w * 100
      if pct >= th.bank_conflict_pct then
        local req = get(op[4])
        local l1 = get("l1_pct") or 100
        fire("ncu.bank_conflicts", "opt", string.format(
          "shared %ss: %s %% of %d wavefronts are bank conflicts%s",
          op[1], fmt(pct), w, req and req > 0 and string.format(" (%.1f-way on average)", w / req) or ""),
          { op = op[1], conflicts = c, wavefronts = w, requests = req, threshold_pct = th.bank_conflict_pct,
            l1_pct = l1, formula = "speedup = conflicts % x L1 throughput" }, pct * l1 / 100)
      end
    end
  end
  if not any_bc then missing["ncu.bank_conflicts"] = true end

  -- 14 uncoalesced global access
  local sec, ideal = get("sectors_global"), get("sectors_global_ideal")
  if sec and ideal and sec > 0 then
    local excess = sec - ideal
    if excess > 0 and excess / sec * 100 > th.uncoalesced_pct then
      local act2, el = get("l2_active"), get("l2_elapsed")
      local w = (act2 and el and el > 0) and act2 / el or 1
      fire("ncu.uncoalesced_global", "opt", string.format(
        "uncoalesced global accesses: %d excessive L2 sectors (%s %% of %d)", excess, fmt(excess / sec * 100), sec),
        { sectors = sec, ideal_sectors = ideal, excess = excess, l2_active_ratio = w,
          formula = "speedup = L2 active/elapsed x excess/total x 100" }, w * excess / sec * 100)
    end
  else missing["ncu.uncoalesced_global"] = true end

  -- 17 workload imbalance
  local any_wi = false
  for _, u in ipairs(R.imbalance_units) do
    local mx, mn, avg = get(u.prefix .. ".max"), get(u.prefix .. ".min"), get(u.prefix .. ".avg")
    local el = get(u.elapsed)
    if mx and mn and avg and mx > 0 and avg > 0 then
      any_wi = true
      local maxd = (1 - avg / mx) * 100
      local mind = (1 - mn / avg) * 100
      if maxd >= th.imbalance_pct or mind >= th.imbalance_pct then
        local ratio = (el and el > 0) and avg / el or 1
        fire("ncu.workload_imbalance", "opt", string.format(
          "%s: active cycles range from %s %% below to %s %% above the average",
          u.unit, fmt(mind), fmt((mx / avg - 1) * 100)),
          { unit = u.unit, max = mx, min = mn, avg = avg, threshold_pct = th.imbalance_pct,
            formula = "speedup = (1 - avg/max) x active/elapsed" }, maxd * ratio)
      end
    end
  end
  if not any_wi then missing["ncu.workload_imbalance"] = true end

  -- 2-4 launch configuration
  local bs = gpu.dim(r, "block_size", "block")
  local grid = gpu.dim(r, "grid_size", "grid")
  local cc, sms = gpu.row_device(r, ctx)
  if not sms then sms = ctx.sm_count end
  if bs then
    local bc = gpu.block_size_check(bs)
    if bc then
      fire("ncu.block_size", "warn", string.format("block size %d is not a multiple of 32 (%d idle lanes per block)", bs, 32 - bs % 32),
        { block_size = bs, formula = "speedup = (1/ceil(bs/32)) x (1 - (bs mod 32)/32) x 100" }, bc.speedup_pct)
    end
  end
  if grid and sms then
    local sg = gpu.small_grid(grid, sms)
    if sg and sg.severity == "high" then
      fire("ncu.small_grid", "warn", string.format("%d block%s on %d SMs: %d SMs idle", grid, grid == 1 and "" or "s", sms, sms - grid),
        { grid_size = grid, sm_count = sms, formula = "speedup = (SMs - grid) / SMs x 100" }, sg.speedup_pct)
    elseif sg then
      fire("ncu.grid_below_2x_sms", "info", string.format("%d blocks on %d SMs is less than two per SM: a second resident block hides __syncthreads() stalls", grid, sms),
        { grid_size = grid, sm_count = sms })
    end
    local active = printed_active(r)
    if not active and cc and r.registers and gpus.cc(cc) then
      active = gpu.occupancy{ cc = cc, block_size = bs, registers = r.registers, smem_static = r.smem_static_bytes,
        smem_dynamic = r.smem_dynamic_bytes, smem_config = r.smem_config_bytes, smem_driver = r.smem_driver_bytes }.active_blocks
    end
    if active and active > 0 then
      local t = gpu.tail(grid, sms, active, { tail_min_speedup = th.tail_min_speedup })
      if t.fires then
        fire("ncu.tail_effect", "opt", string.format("%.2f waves (%d SMs x %d blocks): the partial last wave (%d blocks) can take up to %s %% of the run",
          t.waves, sms, active, t.partial_blocks, fmt(t.speedup_pct)),
          { waves = t.waves, whole_waves = t.whole, partial_blocks = t.partial_blocks, active_blocks = active,
            formula = "speedup = 100 / (whole waves + 1)" }, t.speedup_pct)
      end
    end
  elseif grid then missing["ncu.small_grid"] = true end

  -- parent-child capping
  for _, f in ipairs(out) do
    local rule = R.rule(f.id)
    local cap = rule and rule.parent and parent[rule.parent]
    if cap and f.speedup and f.speedup > cap then
      f.uncapped = f.speedup; f.speedup = cap; f.capped_by = rule.parent
    end
  end
  return out, missing
end

-- what ncu itself fired in this file: by launch id, rule id -> message
local function ncu_fired(p)
  local by = {}
  local rules = p.tables.rules
  if not rules then return by end
  -- one message may hold several rules' sentences (ncu 2022's occupancy
  -- paragraph); classified once per distinct message
  local ids_of, none = {}, R.classify_all(nil)
  for _, msg in ipairs(rules:unique("message")) do ids_of[msg] = R.classify_all(msg) end
  local kid, msgs = rules:col("kernel_id"):to_lua(), rules:col("message"):to_lua()
  for i = 1, rules:nrows() do
    local k, msg = kid[i], msgs[i]
    if k then
      for _, id in ipairs(ids_of[msg] or none) do
        by[k] = by[k] or {}
        by[k][id] = by[k][id] or { message = msg }
      end
    end
  end
  return by
end

local COLS = { "kernel_id", "kernel", "rule", "ncu_rule", "severity", "speedup_pct", "capped_by",
  "ncu_fired", "evidence" }

local function evidence_text(ev)
  local keys = {}
  for k in pairs(ev) do if k ~= "formula" then keys[#keys + 1] = k end end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    local v = ev[k]
    if type(v) == "table" then v = table.concat(v, "+") end
    if type(v) == "number" then v = string.format("%.4g", v) end
    parts[#parts + 1] = k .. "=" .. tostring(v)
  end
  return table.concat(parts, " ")
end

local NR
NR = {
  name = "ncu-rules",
  summary = "Nsight Compute's rules re-derived from exported metrics, compared with ncu's own output, optionally weighted by a timeline",
  needs = { "kernels" },                           -- each Nsight Compute report (per launch) ...
  timeline_needs = { "kernels|kernel_summary" },   -- ... and a timeline beside it
  ncu_only = true,
  options = {
    gpu = { type = "string", default = "auto", help = "GPU model when the input does not say (SM count for the launch rules)" },
    timeline = weighting.option,
  },
  run = function(inputs, opts, report)
    local th = R.thresholds
    local reports_in, timelines = weighting.inputs(inputs, opts, { recipe_def = NR })
    if #reports_in == 0 then perflab.fail("ncu-rules needs an Nsight Compute report (ncu text or CSV) among the inputs") end
    local all = {}   -- every grouped finding, for the weighting
    for idx, p in ipairs(reports_in) do
      local ctx, err = gpu.context(p, opts)
      if not ctx then perflab.fail(err) end
      local k = p:table("kernels")
      local map_of, stall_cols, mcols = metric_maps(p)
      local present = {}
      for _, c in ipairs(k:columns()) do present[c] = true end
      for _, c in ipairs(mcols) do present[c] = true end
      local resolve = alias_resolver(present)
      local fired = ncu_fired(p)
      local rows, groups, gorder = {}, {}, {}
      local missing_count = {}
      local have_ncu_rules = p.tables.rules and p.tables.rules:nrows() > 0
      local matched, ncu_total, ncu_missed = 0, 0, {}
      local not_evaluable, no_inputs = {}, 0
      for i, r in k:rows() do
        local id = r.id or (i - 1)
        local kernel = r.short_name or r.name or ("launch " .. id)
        local fs, missing = evaluate(r, map_of(id), ctx, th, stall_cols, resolve)
        for m in pairs(missing) do missing_count[m] = (missing_count[m] or 0) + 1 end
        local mine = {}
        for _, f in ipairs(fs) do
          mine[f.id] = true
          local nf = fired[id] and fired[id][f.id]
          rows[#rows + 1] = { kernel_id = id, kernel = kernel, rule = f.id, ncu_rule = R.rule(f.id).ncu,
            severity = f.severity, speedup_pct = r2(f.speedup), capped_by = f.capped_by,
            ncu_fired = have_ncu_rules and (nf and "yes" or "no") or nil, evidence = evidence_text(f.evidence) }
          -- group per rule and kernel (and message shape) for findings
          local gk = f.id .. "|" .. kernel .. "|" .. (f.evidence.class or f.evidence.reason or f.evidence.op or f.evidence.unit or "")
          local g = groups[gk]
          if not g then
            g = { f = f, kernel = kernel, ids = {}, best = f.speedup, dur = 0 }
            groups[gk] = g; gorder[#gorder + 1] = gk
          end
          g.ids[#g.ids + 1] = id
          if f.speedup and (not g.best or f.speedup > g.best) then g.best = f.speedup; g.f = f end
          g.dur = g.dur + (r.duration_ns or 0)
        end
        -- what ncu fired that perflab implements but did not fire here
        local rids = {}
        for rid in pairs(fired[id] or {}) do rids[#rids + 1] = rid end
        table.sort(rids)
        for _, rid in ipairs(rids) do
          local info = fired[id][rid]
          if R.rule(rid) then
            ncu_total = ncu_total + 1
            if mine[rid] then matched = matched + 1
            elseif missing[rid] then
              not_evaluable[rid] = (not_evaluable[rid] or 0) + 1
              no_inputs = no_inputs + 1
            else ncu_missed[#ncu_missed + 1] = string.format("launch %d %s: %s", id, rid, info.message:sub(1, 80)) end
          end
        end
      end
      local tname = #reports_in > 1 and ("ncu_rules_" .. idx) or "ncu_rules"
      report:table(tname, T.from_rows(rows, COLS), { title = string.format("%d rule firings on %d launches (%s)", #rows, k:nrows(), p.source) })
      for _, gk in ipairs(gorder) do
        local g = groups[gk]
        local f = g.f
        local ids = {}
        for j = 1, math.min(#g.ids, 3) do ids[j] = tostring(g.ids[j]) end
        local who = #g.ids == 1 and ("launch " .. g.ids[1])
          or string.format("%d launches: %s%s", #g.ids, table.concat(ids, ", "), #g.ids > 3 and ", ..." or "")
        local ev = {}
        for kk, v in pairs(f.evidence) do ev[kk] = v end
        ev.launches = #g.ids
        if f.capped_by then ev.capped_by = f.capped_by; ev.uncapped_speedup_pct = r2(f.uncapped) end
        local fd = report:finding { severity = f.severity, rule = f.id, subject = g.kernel,
          message = string.format("%s: %s (%s)", g.kernel, f.message, who), evidence = ev, speedup_pct = f.speedup }
        all[#all + 1] = weighting.item(fd, p, g.kernel, g.ids)
      end
      if have_ncu_rules then
        -- ncu's own output, per rule id: how many launches, and implemented or not
        local cmp, corder = {}, {}
        for lid, byid in pairs(fired) do
          for rid in pairs(byid) do
            if not cmp[rid] then cmp[rid] = { n = 0 }; corder[#corder + 1] = rid end
            cmp[rid].n = cmp[rid].n + 1
          end
        end
        table.sort(corder)
        local crow = {}
        for _, rid in ipairs(corder) do
          local impl = R.rule(rid) ~= nil
          local perfl = 0
          if impl then
            for _, row in ipairs(rows) do if row.rule == rid and row.ncu_fired == "yes" then perfl = perfl + 1 end end
          end
          crow[#crow + 1] = { rule = rid, ncu_launches = cmp[rid].n, implemented = impl and "yes" or "no",
            perflab_same_launch = impl and perfl or nil, metrics_absent = impl and (not_evaluable[rid] or 0) or nil }
        end
        report:table(#reports_in > 1 and ("ncu_compare_" .. idx) or "ncu_compare",
          T.from_rows(crow, { "rule", "ncu_launches", "implemented", "perflab_same_launch", "metrics_absent" }),
          { title = "ncu's own rule output in the file, by rule" })
        report:note(string.format("ncu's own output: %d rule firings that perflab implements; perflab fired %d of them on the same launch; %d could not be evaluated (their metrics are not in the exported file)%s",
          ncu_total, matched, no_inputs, #ncu_missed > 0 and ("; NOT fired: " .. table.concat(ncu_missed, "; ", 1, math.min(5, #ncu_missed))) or ""))
      end
      local miss = {}
      for m, n in pairs(missing_count) do
        if n == k:nrows() then miss[#miss + 1] = m end
      end
      table.sort(miss)
      if #miss > 0 then
        report:note("not evaluated (metrics absent in this file): " .. table.concat(miss, ", "))
      end
    end
    weighting.apply(report, all, timelines)
  end,
}
return NR

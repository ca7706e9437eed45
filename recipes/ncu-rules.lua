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
--
-- The rules run over whole columns (metrics pivoted wide, one column per
-- metric; conditions as masks, estimates as column expressions, evidence
-- texts by perflab.table.sprintf on the firing rows), so Lua works once per
-- rule, stall reason and distinct value, not once per launch.  Findings
-- group identical firings (rule, kernel, message shape); each group's
-- message comes from evaluate(), the same rules written for one launch, run
-- on the group's representative launch (its largest estimate), and a
-- disagreement between the two forms is an error, not a silent difference.
local perflab = require "perflab"
local gpu = require "perflab.gpu"
local gpus = require "perflab.gpus"
local R = require "perflab.ncu_rules"
local weighting = require "perflab.weighting"
local T = perflab.table
-- the standard functions as locals: a recipe's globals resolve through the
-- strict environment's __index function, per call
local ipairs, pairs, type, tostring, next = ipairs, pairs, type, tostring, next
local math, string, table = math, string, table

local function r2(x) return x and math.floor(x * 100 + 0.5) / 100 end
local fmt = gpu.fmt_pct

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

-- the launch-configuration rules (2-4) of one launch (or one launch shape:
-- they read only the launch's dimensions, device and block limits)
local function launch_findings(r, ctx, th, fire, missing)
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

  launch_findings(r, ctx, th, fire, missing)

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

---------------------------------------------------------------------------
-- Column-wise evaluation: every rule's condition, estimate and evidence
-- text as column expressions over all launches at once (one Lua step per
-- rule, per stall reason and per distinct value, none per launch).
-- evaluate() above, the per-launch form, writes the finding of each group
-- of identical findings from its representative launch.
---------------------------------------------------------------------------

-- the number of true values of a mask
local function ntrue(m) return m:keep(m):count() end

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

-- an evidence text: T.sprintf(fmt, ...) made by emit() on the firing rows
-- only; an argument opt(fmt, c) is "fmt" of c, or "" where c is missing
-- (an optional evidence key)
local function evs(fmt, ...) return { fmt = fmt, ... } end
local function opt(fmt, c) return { opt = fmt, c } end

-- r2 of a column: floor(x * 100 + 0.5) / 100
local function r2c(c) return (c * 100 + 0.5):floor() / 100 end

-- the launch frame: kernels with the first value of each metric (pivot,
-- left-joined on the launch id), the get(key) of evaluate as a column, the
-- stall-reason columns
local function frame(p, k)
  local n = k:nrows()
  local F = { n = n, k = k }
  local any = k:col(k:columns()[1]):present()
  F.TRUE, F.FALSE = any | ~any, any & ~any
  F.ZERO = F.FALSE * 0
  F.NONE = F.ZERO:keep(F.FALSE) / 1
  local types = k:types()
  local base = k:select(k:columns()[1]):with("z", F.FALSE)
  F.row = base:order("z")                               -- 1..n
  local id = k:has("id") and types.id == "integer" and k:col("id") or nil
  F.id = id and id:fill(F.row - 1) or (F.row - 1)
  local kernel
  for _, c in ipairs({ "short_name", "name" }) do
    if k:has(c) and types[c] == "string" then kernel = kernel and kernel:fill(k:col(c)) or k:col(c) end
  end
  local lname = T.sprintf("launch %s", F.id)
  F.kernel = kernel and kernel:fill(lname) or lname
  F.base = base:select("z"):with("row", F.row):with("kernel_id", F.id):with("kernel", F.kernel):drop("z")
  -- metrics, wide
  local mcol, stall = {}, {}
  local m = p.tables.metrics
  if m and m:nrows() > 0 then
    -- (pivot's first skips missing values; rows without a launch id or a
    -- metric name give a row or a column "NA" that no rule reads)
    local wide = m:pivot { index = "kernel_id", columns = "metric", values = "value", agg = "first" }
    local J = F.base:select("kernel_id"):join(wide, { on = "kernel_id", how = "left" })
    F.J = J
    local names = wide:columns()
    table.remove(names, 1)                              -- kernel_id
    for _, name in ipairs(names) do mcol[name] = J:col(J:has(name .. "_b") and name .. "_b" or name) end
    table.sort(names)
    local by_reason, order = {}, {}
    for _, name in ipairs(names) do
      for _, pat in ipairs(R.stall_patterns) do
        local reason = name:match(pat)
        if reason then
          if not by_reason[reason] then order[#order + 1] = reason; by_reason[reason] = mcol[name]
          else by_reason[reason] = by_reason[reason]:fill(mcol[name]) end
        end
      end
    end
    for _, reason in ipairs(order) do stall[#stall + 1] = { reason, by_reason[reason] } end
    F.metric_names = names
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
    for _, a in ipairs(R.metrics[key] or { key }) do
      for _, v in ipairs({ F.kcol(a) or false, mcol[a] or false }) do
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

-- launch_findings' inputs as columns: block and grid size (gpu.dim), SM
-- count (gpu.row_device), active blocks per SM (printed block limits, else
-- the occupancy calculator once per distinct launch shape)
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
  if ntrue(~active:present() & grid:present() & sms:present() & (get("registers") or F.NONE):present()) > 0 then
    local keys = {}
    for _, c in ipairs({ "device", "cc", "sm_count", "block_size", "block_x", "block_y", "block_z", "registers",
      "smem_static_bytes", "smem_dynamic_bytes", "smem_config_bytes", "smem_driver_bytes" }) do
      if k:has(c) then keys[#keys + 1] = c end
    end
    local occ = per_distinct(k, keys, { "active" }, function(r)
      local cc = gpu.row_device(r, ctx)
      local b = gpu.dim(r, "block_size", "block")
      if cc and r.registers and gpus.cc(cc) then
        return { active = gpu.occupancy { cc = cc, block_size = b, registers = r.registers, smem_static = r.smem_static_bytes,
          smem_dynamic = r.smem_dynamic_bytes, smem_config = r.smem_config_bytes, smem_driver = r.smem_driver_bytes }.active_blocks }
      end
      return {}
    end)
    active = active:fill(occ:col("active") / 1)
  end
  return bs, grid, sms, active
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
    ids_of[msg] = R.classify_all(msg)
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

-- every rule on every launch: the firing rows, the masks per rule of the
-- launches it fired on and of those it could not evaluate
local function evaluate_columns(F, ctx, th, fired, have_ncu_rules)
  local get = F.get
  local parts, mine, miss = {}, {}, {}
  local function addmask(tbl, id, m) tbl[id] = tbl[id] and (tbl[id] | m) or m end
  -- one rule's firing rows: mask, evidence text and the optional columns;
  -- the per-row texts are made on the firing rows only
  local function emit(id, seq, mask, o)
    addmask(mine, id, mask)
    if ntrue(mask) == 0 then return end
    local t = F.base:copy()
    local carried = {}
    local function carry(c)
      local nm = "_c" .. (#carried + 1)
      carried[#carried + 1] = nm
      t:with(nm, c)
      return nm
    end
    local ev = o.ev
    local args = {}
    if type(ev) == "table" then
      for i, a in ipairs(ev) do
        if type(a) == "userdata" then args[i] = carry(a)
        elseif type(a) == "table" then args[i] = { opt = a.opt, carry(a[1]) }
        else args[i] = { value = a } end
      end
    else
      args = carry(ev)
    end
    local sp, capm
    if o.sp then
      sp = o.sp
      if o.cap then
        capm = carry(sp:gt(o.cap))
        sp = o.cap:keep(t:col(capm)):fill(sp)
      end
    end
    t:with("speedup", sp or F.NONE)
    local nf = have_ncu_rules and carry(fired.launches[id] or F.FALSE)
    if type(o.sev) ~= "string" then t:with("severity", o.sev) end
    if o.gkey and type(o.gkey) ~= "string" then t:with("gkey", o.gkey) end
    t:with("sv", o.sv or F.NONE)
    t = t:filter(mask)
    local function col(a)
      if type(a) == "string" then return t:col(a) end
      if a.opt then return T.sprintf(a.opt, t:col(a[1])):fill("") end
      return a.value
    end
    if type(args) == "table" then
      local vals = {}
      for i, a in ipairs(args) do vals[i] = col(a) end
      t:with("evidence", T.sprintf(ev.fmt, table.unpack(vals, 1, #args)))
    else
      t:with("evidence", t:col(args))
    end
    if capm and ntrue(t:col(capm)) > 0 then t:with("capped_by", t:col(capm):map({ [true] = R.rule(id).parent })) end
    if nf then t:with("ncu_fired", t:col(nf):map({ [true] = "yes", [false] = "no" })) end
    t:drop(table.unpack(carried))
    local one = t:col("row"):present()
    t:with("seq", one * seq):with("sub", one * (o.sub or 0)):with("rule", one:map({ [true] = id }))
     :with("ncu_rule", one:map({ [true] = R.rule(id).ncu }))
     :with("skey", one:map({ [true] = o.skey or "" }))
    if not o.gkey or type(o.gkey) == "string" then t:with("gkey", one:map({ [true] = o.gkey or "" })) end
    if type(o.sev) == "string" then t:with("severity", one:map({ [true] = o.sev })) end
    parts[#parts + 1] = t
  end

  local sm, mem, waves = get("compute_pct"), get("memory_pct"), get("waves")
  local maxthr = sm:max_with(mem)

  -- 1 SOL bottleneck
  do
    local ok = sm:present() & mem:present()
    miss["ncu.sol_bottleneck"] = ~ok
    local hi = sm:ge(th.sol_high) | mem:ge(th.sol_high)
    local lo = sm:lt(th.sol_low) & mem:lt(th.sol_low)
    local cases = {
      { hi & sm:ge(mem), "high_throughput|compute-bound" }, { hi, "high_throughput|memory-bound" },
      { lo & waves:lt(1), "small_grid|latency-bound" }, { lo, "latency|latency-bound" },
      { (sm - mem):abs():ge(th.sol_diff) & sm:gt(mem), "compute|compute-bound" },
      { (sm - mem):abs():ge(th.sol_diff), "memory|memory-bound" },
    }
    local cb = pick(F.ZERO, cases, "balanced|balanced")
    local class = cb:map(function(s) return (s:match("^([^|]*)")) end)
    local bound = cb:map(function(s) return (s:match("|(.*)$")) end)
    local sev = class:map(function(c) return (c == "high_throughput" or c == "balanced") and "info" or "opt" end)
    emit("ncu.sol_bottleneck", 1, ok, { sev = sev, gkey = class,
      ev = evs("bound=%s class=%s compute_pct=%.4g memory_pct=%.4g thresholds=%s%s", bound, class, sm, mem,
        string.format("%d / %d / %d", th.sol_high, th.sol_low, th.sol_diff), opt(" waves_per_sm=%.4g", waves)) })
  end

  -- 7 issue slots
  local issue, elig = get("issue_active"), get("eligible_pct")
  local idle = (100 - elig):fill((1 - issue) * 100)
  local est = idle:min_with(100 - maxthr):fill(idle)         -- the parent estimate, where issue is known
  local cap = est:keep(issue:present())
  miss["ncu.issue_slots"] = ~issue:present()
  emit("ncu.issue_slots", 2, issue:lt(th.issue_active), { sev = "opt", sp = est,
    ev = evs("%sissue_active=%.4g%s", opt("eligible_pct=%.4g ", elig), issue, opt(" max_throughput_pct=%.4g", maxthr)) })

  -- 5 theoretical occupancy / 6 achieved gap
  local tocc, aocc = F.kcol("theoretical_occupancy_pct") or F.NONE, F.kcol("achieved_occupancy_pct") or F.NONE
  local active
  do
    for _, c in ipairs({ "block_limit_sm", "block_limit_warps", "block_limit_registers", "block_limit_smem", "block_limit_barriers" }) do
      local v = F.kcol(c)
      if v then active = active and active:min_with(v):fill(active):fill(v) or v end
    end
    local code = F.ZERO
    for j, l in ipairs(gpu.LIMIT_NAMES) do
      local v = F.kcol(l.key)
      if v and active then code = code + v:eq(active) * (1 << (j - 1)) end
    end
    local limiter = code:map(function(c)
      local lim = {}
      for j, l in ipairs(gpu.LIMIT_NAMES) do if c & (1 << (j - 1)) ~= 0 then lim[#lim + 1] = l.name end end
      return table.concat(lim, "+")
    end)
    miss["ncu.theoretical_occupancy"] = ~tocc:present()
    emit("ncu.theoretical_occupancy", 3, tocc:lt(th.occupancy_low), { sev = "opt", sp = 100 - tocc, cap = cap,
      ev = evs("limiter=%s theoretical_pct=%.4g threshold_pct=%.4g", limiter, tocc, th.occupancy_low) })
    emit("ncu.achieved_occupancy", 4, (tocc - aocc):gt(th.achieved_gap) & tocc:gt(0), { sev = "opt",
      sp = (tocc - aocc) / tocc * 100, cap = cap,
      ev = evs("achieved_pct=%.4g gap_threshold=%.4g theoretical_pct=%.4g", aocc, th.achieved_gap, tocc) })
  end

  -- 8 warp stalls: one row per launch and reason over the threshold
  do
    local cpi = get("cycles_per_issue")
    local anyst = F.FALSE
    for _, s in ipairs(F.stall) do anyst = anyst | s[2]:present() end
    local ok = cpi:present() & anyst
    miss["ncu.warp_stall"] = ~ok
    local gate = ok & (issue:lt(th.stall_issue_active) | ~issue:present())
    for _, s in ipairs(F.stall) do
      local ratio = s[2] / cpi
      emit("ncu.warp_stall", 5, gate & ratio:gt(th.stall_ratio), { sev = "opt", sp = ratio * 100, cap = cap,
        sv = s[2], gkey = s[1], skey = s[1],
        ev = evs("cycles_per_issue=%.4g ratio_threshold=%.4g reason=%s stall_cycles=%.4g", cpi, th.stall_ratio, s[1], s[2]) })
    end
    if #F.stall == 0 then addmask(mine, "ncu.warp_stall", F.FALSE) end
  end

  -- 9 thread divergence
  do
    local act, pon = get("active_threads"), get("pred_on_threads")
    local ok = act:present() & sm:present()
    miss["ncu.thread_divergence"] = ~ok
    local lo = act:min_with(pon):fill(act)
    emit("ncu.thread_divergence", 6, ok & lo:lt(th.active_threads), { sev = "opt", sp = (1 - lo / 32) * sm,
      ev = evs("active_threads=%.4g compute_pct=%.4g%s threshold=%.4g", act, sm, opt(" pred_on_threads=%.4g", pon), th.active_threads) })
  end

  -- 10 FMA fusion
  do
    local any_fp = F.FALSE
    for j, prec in ipairs({ { "FP32", "fadd", "fmul", "ffma" }, { "FP64", "dadd", "dmul", "dfma" } }) do
      local a, m, f = get(prec[2]), get(prec[3]), get(prec[4])
      local ok = a:present() & m:present() & f:present()
      any_fp = any_fp | ok
      local non = a + m
      local all = non + f
      local ratio = non / all / 2
      local pipe = get("fp_pipe_pct"):fill(sm):fill(100)
      emit("ncu.fma_fusion", 7, ok & all:gt(0) & ratio:gt(th.fma_ratio), { sev = "opt", sp = 0.5 * non / all * pipe,
        sub = j, skey = prec[1],
        ev = evs("fused=%.4g non_fused=%.4g pipe_pct=%.4g precision=%s ratio=%.4g threshold=%.4g", f, non, pipe, prec[1], ratio, th.fma_ratio) })
    end
    miss["ncu.fma_fusion"] = ~any_fp
  end

  -- 16 shared-memory bank conflicts
  do
    local any_bc = F.FALSE
    local l1 = get("l1_pct"):fill(100)
    for j, op in ipairs({ { "load", "conflicts_ld", "wavefronts_ld", "requests_ld" },
                          { "store", "conflicts_st", "wavefronts_st", "requests_st" } }) do
      local c, w, req = get(op[2]), get(op[3]), get(op[4])
      local ok = c:present() & w:gt(0)
      any_bc = any_bc | ok
      local pct = c / w * 100
      emit("ncu.bank_conflicts", 8, ok & pct:ge(th.bank_conflict_pct), { sev = "opt", sp = pct * l1 / 100,
        sub = j, gkey = op[1], skey = op[1],
        ev = evs("conflicts=%.4g l1_pct=%.4g op=%s%s threshold_pct=%.4g wavefronts=%.4g", c, l1, op[1],
          opt(" requests=%.4g", req), th.bank_conflict_pct, w) })
    end
    miss["ncu.bank_conflicts"] = ~any_bc
  end

  -- 14 uncoalesced global access
  do
    local sec, ideal = get("sectors_global"), get("sectors_global_ideal")
    local ok = ideal:present() & sec:gt(0)
    miss["ncu.uncoalesced_global"] = ~ok
    local excess = sec - ideal
    local el = get("l2_elapsed")
    local w = (get("l2_active") / el):keep(el:gt(0)):fill(1)
    emit("ncu.uncoalesced_global", 9, ok & excess:gt(0) & (excess / sec * 100):gt(th.uncoalesced_pct), { sev = "opt",
      sp = w * excess / sec * 100,
      ev = evs("excess=%.4g ideal_sectors=%.4g l2_active_ratio=%.4g sectors=%.4g", excess, ideal, w, sec) })
  end

  -- 17 workload imbalance
  do
    local any_wi = F.FALSE
    for j, u in ipairs(R.imbalance_units) do
      local mx, mn, avg = get(u.prefix .. ".max"), get(u.prefix .. ".min"), get(u.prefix .. ".avg")
      local el = get(u.elapsed)
      local ok = mn:present() & mx:gt(0) & avg:gt(0)
      any_wi = any_wi | ok
      local maxd = (1 - avg / mx) * 100
      local mind = (1 - mn / avg) * 100
      local ratio = (avg / el):keep(el:gt(0)):fill(1)
      emit("ncu.workload_imbalance", 10, ok & (maxd:ge(th.imbalance_pct) | mind:ge(th.imbalance_pct)), { sev = "opt",
        sp = maxd * ratio, sub = j, gkey = u.unit, skey = u.unit,
        ev = evs("avg=%.4g max=%.4g min=%.4g threshold_pct=%.4g unit=%s", avg, mx, mn, th.imbalance_pct, u.unit) })
    end
    miss["ncu.workload_imbalance"] = ~any_wi
  end

  -- 2-4 launch configuration
  do
    local bs, grid, sms, act = launch_columns(F, ctx, active)
    local bsc = per_distinct(F.base:select("row"):with("bs", bs), { "bs" }, { "sp", "ev" }, function(r)
      local bc = r.bs and gpu.block_size_check(r.bs)
      return bc and { sp = bc.speedup_pct, ev = evidence_text({ block_size = r.bs }) } or {}
    end)
    emit("ncu.block_size", 11, bsc:col("ev"):present(), { sev = "warn", sp = bsc:col("sp") / 1, ev = bsc:col("ev") })
    local both = grid:present() & sms:present()
    local small = grid:lt(sms)
    local gev = evs("grid_size=%.4g sm_count=%.4g", grid, sms)
    emit("ncu.small_grid", 12, small, { sev = "warn", sp = (sms - grid) / sms * 100, ev = gev })
    emit("ncu.grid_below_2x_sms", 12, both & ~small & grid:lt(sms * 2), { sev = "info", ev = gev })
    miss["ncu.small_grid"] = grid:present() & ~sms:present()
    -- tail effect (ncu_math.tail)
    local w = grid / (sms * act)
    local whole = w:floor()
    local partial = w - whole
    local pb = -(-(grid * partial / w)):floor()
    local tail = both & act:gt(0) & partial:gt(1e-9) & whole:ge(1)
    local sp = 100 / (whole + 1)
    emit("ncu.tail_effect", 13, tail & sp:ge(th.tail_min_speedup), { sev = "opt", sp = sp,
      ev = evs("active_blocks=%.4g partial_blocks=%.4g waves=%.4g whole_waves=%.4g", act, pb, w, whole) })
  end
  return parts, mine, miss
end

local COLS = { "kernel_id", "kernel", "rule", "ncu_rule", "severity", "speedup_pct", "capped_by",
  "ncu_fired", "evidence" }

-- the report's findings: one per group of identical findings (rule, kernel
-- and message shape), written by evaluate() on the group's representative
-- launch (its largest estimate, the first among equals)
local function group_findings(report, p, F, ctx, th, fin, timelines, all)
  local grp = fin:group_by("rule", "kernel", "gkey")
  local G, ids = grp:agg { { "n", "count" }, { "best", "max", "speedup" }, { "rows", "ids" } }
  local best = grp:broadcast(G:select("best")):col("best")
  local repm = fin:col("speedup"):eq(best) | ~best:present()
  local rep = grp:agg { { "reprow", "first", "row", where = repm }, { "skey", "first", "skey", where = repm } }
  local present = {}
  for _, c in ipairs(F.k:columns()) do present[c] = true end
  for _, c in ipairs(F.metric_names or {}) do present[c] = true end
  local resolve = alias_resolver(present)
  local stall_cols = {}
  for _, name in ipairs(F.metric_names or {}) do
    for _, pat in ipairs(R.stall_patterns) do
      local reason = name:match(pat)
      if reason then stall_cols[#stall_cols + 1] = { name, reason } end
    end
  end
  local kid = fin:col("kernel_id")
  for g = 1, G:nrows() do
    local rule, kernel, gkey = G:get(g, "rule"), G:get(g, "kernel"), G:get(g, "gkey")
    local row, skey = rep:get(g, "reprow"), rep:get(g, "skey")
    local r = F.k:row(row)
    local fs = evaluate(r, F.J and F.J:row(row) or nil, ctx, th, stall_cols, resolve)
    local f
    for _, x in ipairs(fs) do
      local ev = x.evidence
      if x.id == rule and (ev.class or ev.reason or ev.op or ev.unit or "") == gkey
         and (ev.reason or ev.precision or ev.op or ev.unit or "") == skey then f = x; break end
    end
    if not f then perflab.fail(string.format("ncu-rules: %s on launch row %d: the per-launch evaluation disagrees with the column-wise one", rule, row)) end
    local rws, n = ids.rows[g], G:get(g, "n")
    local shown = {}
    for j = 1, math.min(n, 3) do shown[j] = tostring(kid[rws[j]]) end
    local who = n == 1 and ("launch " .. shown[1])
      or string.format("%d launches: %s%s", n, table.concat(shown, ", "), n > 3 and ", ..." or "")
    local ev = {}
    for kk, v in pairs(f.evidence) do ev[kk] = v end
    ev.launches = n
    if f.capped_by then ev.capped_by = f.capped_by; ev.uncapped_speedup_pct = r2(f.uncapped) end
    local fd = report:finding { severity = f.severity, rule = f.id, subject = kernel,
      message = string.format("%s: %s (%s)", kernel, f.message, who), evidence = ev, speedup_pct = f.speedup }
    local lids = {}
    if #timelines > 0 then for j, i in ipairs(rws) do lids[j] = kid[i] end end   -- only a timeline weighs them
    all[#all + 1] = weighting.item(fd, p, kernel, lids)
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
      local n = k:nrows()
      local have_ncu_rules = p.tables.rules and p.tables.rules:nrows() > 0
      local F, fin, fired, mine, miss
      if n > 0 then
        F = frame(p, k)
        fired = ncu_fired(p, F)
        local parts
        parts, mine, miss = evaluate_columns(F, ctx, th, fired, have_ncu_rules)
        if #parts > 0 then
          local cat = T.concat(table.unpack(parts))
          fin = cat:take(cat:order("row", "seq", "-sv", "skey", "sub"))
          group_findings(report, p, F, ctx, th, fin, timelines, all)
        end
        fin = fin or F.base:filter(F.FALSE)
        F.fin = fin
      else
        fired, mine, miss = { ids = {}, launches = {}, n = {}, rows = {} }, {}, {}
      end
      local rows
      if fin and fin:nrows() > 0 then
        local none = fin:col("row"):present():map({})
        rows = fin:with("speedup_pct", fin:has("speedup") and r2c(fin:col("speedup")) or none)
        for _, c in ipairs(COLS) do if not rows:has(c) then rows:with(c, none) end end
        rows = rows:select(COLS)
      else
        rows = T.from_rows({}, COLS)
      end
      local tname = #reports_in > 1 and ("ncu_rules_" .. idx) or "ncu_rules"
      report:table(tname, rows, { title = string.format("%d rule firings on %d launches (%s)", rows:nrows(), n, p.source) })
      if have_ncu_rules then
        local crow = {}
        local ncu_total, matched, no_inputs, missed, nmissed = 0, 0, 0, {}, 0
        for _, rid in ipairs(fired.ids) do
          local impl = R.rule(rid) ~= nil
          local perfl, absent
          if impl then
            local L = fired.launches[rid]
            local mn = mine[rid] or L & ~L
            local ms = miss[rid] or L & ~L
            ncu_total = ncu_total + ntrue(L)
            matched = matched + ntrue(L & mn)
            absent = ntrue(L & ~mn & ms)
            no_inputs = no_inputs + absent
            local mm = L & ~mn & ~ms
            nmissed = nmissed + ntrue(mm)
            local c = F.base:filter(mm):head(5)
            for j = 1, c:nrows() do missed[#missed + 1] = { c:get(j, "row"), rid, c:get(j, "kernel_id") } end
            perfl = rows:nrows() > 0 and ntrue(rows:col("rule"):eq(rid) & rows:col("ncu_fired"):eq("yes")) or 0
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
        report:table(#reports_in > 1 and ("ncu_compare_" .. idx) or "ncu_compare",
          T.from_rows(crow, { "rule", "ncu_launches", "implemented", "perflab_same_launch", "metrics_absent" }),
          { title = "ncu's own rule output in the file, by rule" })
        report:note(string.format("ncu's own output: %d rule firings that perflab implements; perflab fired %d of them on the same launch; %d could not be evaluated (their metrics are not in the exported file)%s",
          ncu_total, matched, no_inputs, nmissed > 0 and ("; NOT fired: " .. table.concat(texts, "; ")) or ""))
      end
      local absent = {}
      for m, mask in pairs(miss) do
        if n > 0 and ntrue(mask) == n then absent[#absent + 1] = m end
      end
      table.sort(absent)
      if #absent > 0 then
        report:note("not evaluated (metrics absent in this file): " .. table.concat(absent, ", "))
      end
    end
    weighting.apply(report, all, timelines)
  end,
}
return NR

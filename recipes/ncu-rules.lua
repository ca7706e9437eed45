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
-- metric; conditions as masks, estimates and evidence as column
-- expressions), so Lua works once per rule, stall reason and distinct
-- value, not once per launch.  Findings group identical firings (rule,
-- kernel, message shape); each group's message is the rule's text of the
-- evidence values of its representative launch (its largest estimate).
local perflab = require "perflab"
local cuda = require "perflab.cuda_occupancy"
local ncu = require "perflab.ncu_math"
local device = require "perflab.device"
local gpus = require "perflab.gpus"
local R = require "perflab.ncu_rules"
local weighting = require "perflab.weighting"
local T = perflab.table

local fmt = cuda.fmt_pct

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

-- evidence values that are not plain (see emit): maybe(c) is missing on
-- some firing rows (the key is then left out); list(c) is a "+"-joined
-- text column that the finding's evidence shows as a list
local function maybe(c) return { maybe = c } end
local function list(c) return { list = c } end

-- x rounded to 2 decimals, of a number and of a column
local r2 = require("perflab.util").round
local r2c = r2

-- the launch frame: kernels with the first value of each metric (pivot,
-- left-joined on the launch id), F.get(key) the metric by its aliases as a
-- column, the stall-reason columns
local function frame(p, k)
  local F = { k = k }
  F.FALSE, F.ZERO, F.NONE = k:const(false), k:const(0), k:const(nil, "number")
  local types = k:types()
  local base = k:select(k:columns()[1]):with("z", F.FALSE)
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
  F.base = base:select("z"):with("row", F.row):with("kernel_id", F.id):with("kernel", F.kernel):drop("z")
  -- metrics, wide
  local mcol, stall = {}, {}
  local m = p.tables.metrics
  -- only the metrics a rule can read: the aliases of R.metrics, the
  -- imbalance units' and the stall reasons' (the launch statistics are
  -- columns of the kernels already); F.get refuses any other name
  local wanted = {}
  for key, al in pairs(R.metrics) do
    wanted[key] = true
    for _, a in ipairs(al) do wanted[a] = true end
  end
  for _, u in ipairs(R.imbalance_units) do
    for _, s in ipairs({ ".max", ".min", ".avg" }) do wanted[u.prefix .. s] = true end
    wanted[u.elapsed] = true
  end
  if m and m:nrows() > 0 then
    local names, name = {}, m:col("metric")
    for n in pairs(wanted) do names[#names + 1] = n end
    local use = name:isin(names)
    for _, pat in ipairs(R.stall_patterns) do use = use | name:match(pat) end
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
      for _, pat in ipairs(R.stall_patterns) do
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
    if not R.metrics[key] and not wanted[key] then error("ncu-rules: metric '" .. key
        .. "' is read but was not pivoted") end
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

-- every rule on every launch: the firing rows (one table per emit, with
-- the evidence values), the masks per rule of the launches it fired on and
-- of those it could not evaluate
local function evaluate_columns(F, ctx, th, fired, have_ncu_rules)
  local get = F.get
  local parts, mine, miss = {}, {}, {}
  local function addmask(tbl, id, m) tbl[id] = tbl[id] and (tbl[id] | m) or m end
  -- one rule's firing rows: the rows of the ncu_rules table (part.t) and
  -- the values its finding reads (part.vals).  o.ev: the evidence, name ->
  -- column, maybe(column), list(column) or value; o.x: further values the
  -- message reads; o.msg(v): the message from one launch's values v; o.sp:
  -- the estimate, o.cap: its parent's that caps it; o.sev: the severity
  -- (text or column); o.gkey: what tells groups of one kernel apart;
  -- o.sv, o.skey, o.sub: the order of one launch's rows
  local function emit(id, seq, mask, o)
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
        t:col("capm"):map({ [true] = R.rule(id).parent })) end
    if have_ncu_rules then t:with("ncu_fired", t:col("nf"):map({ [true] = "yes", [false] = "no" })) end
    local one = t:col("row"):present()
    t:with("seq", one * seq):with("sub", one * (o.sub or 0)):with("rule", one:map({ [true] = id }))
     :with("ncu_rule", one:map({ [true] = R.rule(id).ncu }))
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
      ev = { bound = bound, class = class, compute_pct = sm, memory_pct = mem, waves_per_sm = maybe(waves),
             thresholds = string.format("%d / %d / %d", th.sol_high, th.sol_low, th.sol_diff) },
      msg = function(v) return select(3, ncu.sol_class(v.compute_pct, v.memory_pct, v.waves_per_sm, th)) end })
  end

  -- 7 issue slots
  local issue, elig = get("issue_active"), get("eligible_pct")
  local idle = (100 - elig):fill((1 - issue) * 100)
  local est = idle:min_with(100 - maxthr):fill(idle)         -- the parent estimate, where issue is known
  local cap = est:keep(issue:present())
  miss["ncu.issue_slots"] = ~issue:present()
  emit("ncu.issue_slots", 2, issue:lt(th.issue_active), { sev = "opt", sp = est,
    ev = { issue_active = issue, eligible_pct = maybe(elig), max_throughput_pct = maybe(maxthr) },
    x = { active_warps = get("active_warps"), eligible_warps = get("eligible_warps") },
    msg = function(v)
      return string.format("each scheduler issues an instruction only every %.1f cycles (%.2f per cycle, threshold %.1f)%s",
        1 / math.max(v.issue_active, 1e-9), v.issue_active, th.issue_active, v.eligible_warps and string.format(
          "; %.2f active and %.2f eligible warps per scheduler", v.active_warps or 0, v.eligible_warps) or "")
    end })

  -- 5 theoretical occupancy / 6 achieved gap
  local tocc, aocc = F.kcol("theoretical_occupancy_pct") or F.NONE, F.kcol("achieved_occupancy_pct") or F.NONE
  local active
  do
    for _, l in ipairs(cuda.LIMIT_NAMES) do             -- the smallest printed block limit
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
    miss["ncu.theoretical_occupancy"] = ~tocc:present()
    emit("ncu.theoretical_occupancy", 3, tocc:lt(th.occupancy_low), { sev = "opt", sp = 100 - tocc, cap = cap,
      ev = { limiter = list(limiter), theoretical_pct = tocc, threshold_pct = th.occupancy_low },
      msg = function(v)
        return string.format("theoretical occupancy %s %% is below %d %%%s", fmt(v.theoretical_pct), th.occupancy_low,
          #v.limiter > 0 and (", limited by " .. table.concat(v.limiter, " and ")) or "")
      end })
    emit("ncu.achieved_occupancy", 4, (tocc - aocc):gt(th.achieved_gap) & tocc:gt(0), { sev = "opt",
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
    local anyst = F.FALSE
    for _, s in ipairs(F.stall) do anyst = anyst | s[2]:present() end
    local ok = cpi:present() & anyst
    miss["ncu.warp_stall"] = ~ok
    local gate = ok & (issue:lt(th.stall_issue_active) | ~issue:present())
    for _, s in ipairs(F.stall) do
      local ratio = s[2] / cpi
      emit("ncu.warp_stall", 5, gate & ratio:gt(th.stall_ratio), { sev = "opt", sp = ratio * 100, cap = cap,
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
    miss["ncu.thread_divergence"] = ~ok
    local lo = act:min_with(pon):fill(act)
    emit("ncu.thread_divergence", 6, ok & lo:lt(th.active_threads), { sev = "opt", sp = (1 - lo / 32) * sm,
      ev = { active_threads = act, compute_pct = sm, pred_on_threads = maybe(pon), threshold = th.active_threads },
      msg = function(v)
        return string.format("on average only %.1f of 32 threads per warp are active%s: divergent branches or predication waste lanes",
          v.active_threads, v.pred_on_threads and string.format(" (%.1f not predicated off)", v.pred_on_threads) or "")
      end })
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
        ev = { fused = f, non_fused = non, pipe_pct = pipe, precision = prec[1], ratio = ratio,
            threshold = th.fma_ratio },
        msg = function(v)
          return string.format("%s: %d fused and %d non-fused instructions; converting ADD/MUL pairs to FMA could cut them by up to %s %% (--fmad=true, --use_fast_math)",
            v.precision, v.fused, v.non_fused, fmt(v.ratio * 100))
        end })
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
        ev = { conflicts = c, l1_pct = l1, op = op[1], requests = maybe(req), threshold_pct = th.bank_conflict_pct,
            wavefronts = w },
        msg = function(v)
          local r = v.requests
          return string.format("shared %ss: %s %% of %d wavefronts are bank conflicts%s", v.op,
              fmt(v.conflicts / v.wavefronts * 100),
            v.wavefronts, r and r > 0 and string.format(" (%.1f-way on average)", v.wavefronts / r) or "")
        end })
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
      ev = { excess = excess, ideal_sectors = ideal, l2_active_ratio = w, sectors = sec },
      msg = function(v)
        return string.format("uncoalesced global accesses: %d excessive L2 sectors (%s %% of %d)",
          v.excess, fmt(v.excess / v.sectors * 100), v.sectors)
      end })
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
        ev = { avg = avg, max = mx, min = mn, threshold_pct = th.imbalance_pct, unit = u.unit },
        msg = function(v)
          return string.format("%s: active cycles range from %s %% below to %s %% above the average",
            v.unit, fmt((1 - v.min / v.avg) * 100), fmt((v.max / v.avg - 1) * 100))
        end })
    end
    miss["ncu.workload_imbalance"] = ~any_wi
  end

  -- 2-4 launch configuration
  do
    local bs, grid, sms, act = launch_columns(F, ctx, active)
    local bc = ncu.block_size_check_col(bs)
    emit("ncu.block_size", 11, bc.fires, { sev = "warn", sp = bc.speedup_pct, ev = { block_size = bs },
      msg = function(v)
        return string.format("block size %d is not a multiple of 32 (%d idle lanes per block)", v.block_size,
            32 - v.block_size % 32)
      end })
    local sg = ncu.small_grid_col(grid, sms)
    emit("ncu.small_grid", 12, sg.high, { sev = "warn", sp = sg.speedup_pct, ev = { grid_size = grid, sm_count = sms },
      msg = function(v)
        local g, s = v.grid_size, v.sm_count
        return string.format("%d block%s on %d SMs: %d SMs idle", g, g == 1 and "" or "s", s, s - g)
      end })
    emit("ncu.grid_below_2x_sms", 12, sg.low, { sev = "info", ev = { grid_size = grid, sm_count = sms },
      msg = function(v)
        return string.format("%d blocks on %d SMs is less than two per SM: a second resident block hides __syncthreads() stalls",
          v.grid_size, v.sm_count)
      end })
    miss["ncu.small_grid"] = grid:present() & ~sms:present()
    local tl = ncu.tail_col(grid, sms, act, th)
    emit("ncu.tail_effect", 13, tl.fires, { sev = "opt", sp = tl.speedup_pct,
      ev = { active_blocks = act, partial_blocks = tl.partial_blocks, waves = tl.waves, whole_waves = tl.whole },
      x = { sms = sms, speedup = tl.speedup_pct },
      msg = function(v)
        return string.format("%.2f waves (%d SMs x %d blocks): the partial last wave (%d blocks) can take up to %s %% of the run",
          v.waves, v.sms, v.active_blocks, v.partial_blocks, fmt(v.speedup))
      end })
  end
  return parts, mine, miss
end

local COLS = { "kernel_id", "kernel", "rule", "ncu_rule", "severity", "speedup_pct", "capped_by",
  "ncu_fired", "evidence" }

-- the report's findings: one per group of identical findings (rule, kernel
-- and message shape), its message and evidence the values of the group's
-- representative launch (its largest estimate, the first among equals)
local function group_findings(report, p, fin, parts, timelines, all)
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
    local ev, v = { launches = n, formula = R.rule(o.id).formula }, {}     -- the evidence; what the message reads
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
    if capped then ev.capped_by, ev.uncapped_speedup_pct = capped, r2(o.vals:get(i, "uncapped")) end
    local rws = ids.rows[g]
    local shown = {}
    for j = 1, math.min(n, 3) do shown[j] = tostring(kid[rws[j]]) end
    local who = n == 1 and ("launch " .. shown[1])
      or string.format("%d launches: %s%s", n, table.concat(shown, ", "), n > 3 and ", ..." or "")
    local fd = report:finding { severity = o.vals:get(i, "severity"), rule = o.id, subject = kernel,
      message = string.format("%s: %s (%s)", kernel, o.msg(v), who), evidence = ev,
          speedup_pct = o.vals:get(i, "speedup") }
    local lids = {}
    if #timelines > 0 then for j, r in ipairs(rws) do lids[j] = kid[r] end end   -- only a timeline weighs them
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
    gpu = { type = "string", default = "auto",
        help = "GPU model when the input does not say (SM count for the launch rules)" },
    timeline = weighting.option,
  },
  run = function(inputs, opts, report)
    local th = R.thresholds
    local reports_in, timelines = weighting.inputs(inputs, opts, { recipe_def = NR })
    if #reports_in == 0 then perflab.fail("ncu-rules needs an Nsight Compute report (ncu text or CSV) among the inputs") end
    local all = {}   -- every grouped finding, for the weighting
    for idx, p in ipairs(reports_in) do
      local ctx, err = device.context(p, opts)
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
          local pub = {}
          for j, o in ipairs(parts) do pub[j] = o.t end
          local cat = T.concat(table.unpack(pub))
          fin = cat:take(cat:order("row", "seq", "-sv", "skey", "sub"))
          group_findings(report, p, fin, parts, timelines, all)
        end
      else
        fired, mine, miss = { ids = {}, launches = {}, n = {}, rows = {} }, {}, {}
      end
      local rows
      if fin and fin:nrows() > 0 then
        local none = fin:const(nil, "number")
        rows = fin:with("speedup_pct", r2c(fin:col("speedup")))
        for _, c in ipairs(COLS) do if not rows:has(c) then rows:with(c, none) end end
        rows = rows:select(COLS)
      else
        rows = T.from_rows({}, COLS)
      end
      local tname = #reports_in > 1 and ("ncu_rules_" .. idx) or "ncu_rules"
      report:table(tname, rows, { title = string.format("%d rule firings on %d launches (%s)", rows:nrows(), n,
          p.source) })
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
        report:table(#reports_in > 1 and ("ncu_compare_" .. idx) or "ncu_compare",
          T.from_rows(crow, { "rule", "ncu_launches", "implemented", "perflab_same_launch", "metrics_absent" }),
          { title = "ncu's own rule output in the file, by rule" })
        report:note(string.format("ncu's own output: %d rule firings that perflab implements; perflab fired %d of them on the same launch; %d could not be evaluated (their metrics are not in the exported file)%s",
          ncu_total, matched, no_inputs, nmissed > 0 and ("; NOT fired: " .. table.concat(texts, "; ")) or ""))
      end
      local absent = {}
      for m, mask in pairs(miss) do
        if n > 0 and mask:count_true() == n then absent[#absent + 1] = m end
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

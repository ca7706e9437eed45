--- occupancy: theoretical occupancy per launch with the CUDA occupancy
-- calculator (perflab.gpu.occupancy, the algorithm of cuda_occupancy.h with
-- ncu's Shared Memory Configuration Size), what limits it, how far achieved
-- occupancy falls short, and the change of one resource that reaches the
-- next occupancy step.
--
-- Input: a `kernels` table with block size (block_size or block_x/y/z) and
-- registers; shared memory from smem_static_bytes, smem_dynamic_bytes,
-- smem_config_bytes, smem_driver_bytes when present.  Where a report prints
-- its own figures (ncu block_limit_*, theoretical_occupancy_pct; Kineto
-- est_achieved_occupancy_pct) they are kept in reported_occupancy_pct and
-- compared.  Compute capability: the row's cc, the input's device, --gpu,
-- or, for old ncu reports that print none, the only CCs consistent with the
-- printed block limits.
--
-- Table `occupancy` (one row per launch; part of the API): kernel,
-- block_size, registers, smem_bytes (static + dynamic), smem_config_bytes
-- (used: reported or assumed), block_limit_sm, block_limit_warps,
-- block_limit_registers, block_limit_smem, block_limit_barriers (CC >= 9.0),
-- active_blocks, theoretical_warps, theoretical_occupancy_pct,
-- achieved_occupancy_pct (measured, ncu), est_achieved_occupancy_pct (from
-- the grid, Kineto's formula), reported_occupancy_pct (what the input
-- printed: ncu's theoretical or Kineto's estimate), limiter.
--
-- Weighted by the real run: with an ncu report, any other input is a
-- timeline of the same program (Kineto, nsys stats, kernel table) -- or
-- --set timeline=FILE -- and each finding gets evidence time_share_pct,
-- kernel_time_ns, weighted_speedup_pct, saved_ns and match; findings are
-- ranked by saved time, with tables `weighted` and `unmatched`
-- (perflab.weighting; without an ncu report, every input is analysed).
--
-- Communication kernels (perflab.comm: nccl*, rccl*, ...) keep their rows
-- but get no findings: a collective's time is set by its peers and the
-- link, not by its occupancy (NCCL sizes its blocks per channel on
-- purpose); a note counts them.
local perflab = require "perflab"
local cuda = require "perflab.cuda_occupancy"
local ncu = require "perflab.ncu_math"
local device = require "perflab.device"
local gpus = require "perflab.gpus"
local weighting = require "perflab.weighting"
local T = perflab.table

local COLS = { "kernel", "cc", "block_size", "registers", "smem_bytes", "smem_config_bytes",
  "block_limit_sm", "block_limit_warps", "block_limit_registers", "block_limit_smem",
  "block_limit_barriers", "active_blocks", "theoretical_warps", "theoretical_occupancy_pct",
  "achieved_occupancy_pct", "est_achieved_occupancy_pct", "reported_occupancy_pct", "limiter",
  "id", "start_ns", "duration_ns" }   -- the launch's join keys (id: the input's id or the 0-based row)

local sorted_keys = require("perflab.util").sorted_keys

local round2 = require("perflab.util").round   -- to 2 decimals
local chart = require "perflab.chart"
local units = require "perflab.units"
local figures = require "perflab.figures"
local is_comm = require("perflab.comm").is_kernel

-- The note on communication kernels left without findings (n launches or
-- dispatches); nothing when there are none.
local function comm_note(report, n, what)
  if n > 0 then
    report:note(string.format("%d communication %s (perflab.comm: nccl, rccl, ...) %s no occupancy findings: a "
      .. "collective's time is set by its peers and the link, not by its occupancy", n,
      n == 1 and (what:gsub("es$", ""):gsub("s$", "")) or what, n == 1 and "has" or "have"))
  end
end

-- AMD devices (rocprof dispatches, HIP Kineto traces): waves per SIMD from
-- VGPRs, SGPRs and LDS (perflab.amd_occupancy), never the CUDA calculator.
-- Table `amd_occupancy`; finding occupancy.amd_limiter below the threshold.
local AMD_COLS = { "kernel", "arch", "workgroup_size", "waves_per_workgroup", "arch_vgpr", "accum_vgpr",
  "vgprs_allocated", "sgpr", "lds_bytes", "limit_vgpr", "limit_sgpr", "limit_lds", "waves_per_simd",
  "max_waves_per_simd", "occupancy_pct", "limiter" }
local function amd_report(p, ctx, opts, report, name)
  local amd = require "perflab.amd_occupancy"
  local k = p:table("kernels")
  local arch = ctx.gfx
  if not arch or not amd.arch[arch] then
    report:note(string.format("%s: AMD device%s: occupancy needs the gfx target's limits (known: gfx90a, gfx942, gfx950); "
      .. "pass --gpu mi300x or --gpu mi250x-gcd", p.source, arch and (" " .. arch) or " of unknown arch"))
    return
  end
  local function col(...)
    for _, c in ipairs({ ... }) do if k:has(c) then return k:col(c):to_lua() end end
    return {}
  end
  local names, wx, wy, wz = col("short_name", "name"), col("block_x"), col("block_y"), col("block_z")
  local wg = {}
  for i = 1, k:nrows() do wg[i] = wx[i] and wx[i] * (wy[i] or 1) * (wz[i] or 1) or nil end
  local vg, ag, sg = col("arch_vgpr", "Arch_VGPR_Count", "registers"), col("accum_vgpr", "Accum_VGPR_Count"),
      col("sgpr", "SGPR_Count")
  local lds, ws = col("smem_static_bytes", "smem_bytes", "lds"), col("wave_size", "Wave_Size")
  local rows, seen, skipped = {}, {}, 0
  for i = 1, k:nrows() do
    if not wg[i] or not vg[i] then skipped = skipped + 1
    else
      local key = table.concat({ names[i] or "", wg[i], vg[i], ag[i] or 0, sg[i] or 0, lds[i] or 0, ws[i] or 64 }, "|")
      local row = seen[key]
      if row then row.dispatches = row.dispatches + 1
      else
        local o = amd.occupancy{ arch = arch, workgroup_size = wg[i], arch_vgpr = vg[i], accum_vgpr = ag[i],
          sgpr = sg[i], lds_bytes = lds[i], wave_size = ws[i] }
        row = { kernel = names[i] or ("dispatch " .. i), arch = arch, workgroup_size = wg[i],
          waves_per_workgroup = o.waves_per_workgroup, arch_vgpr = vg[i], accum_vgpr = ag[i],
              vgprs_allocated = o.vgprs_allocated,
          sgpr = sg[i], lds_bytes = lds[i] or 0, limit_vgpr = o.limit_vgpr, limit_sgpr = o.limit_sgpr,
              limit_lds = o.limit_lds,
          waves_per_simd = o.waves_per_simd, max_waves_per_simd = o.max_waves_per_simd, occupancy_pct = o.occupancy_pct,
          limiter = table.concat(o.limiter, ", "), dispatches = 1, o = o }
        seen[key] = row
        rows[#rows + 1] = row
      end
    end
  end
  report:table(name, T.from_rows(rows, AMD_COLS), { title = string.format(
    "%d kernel configurations (%s), AMD %s (%s), device from %s", #rows, p.source, arch, amd.arch[arch].name,
        ctx.source),
    note = "waves per SIMD = min(8, 512 VGPRs / allocated VGPRs, 800 SGPRs / allocated SGPRs, LDS-limited workgroups "
      .. "per CU x waves per workgroup / 4 SIMDs); occupancy_pct = waves per SIMD / 8 (perflab.amd_occupancy: workgroup "
      .. "slots, barriers and reserved SGPRs are not modelled)." })
  local ncomm = 0
  for _, r in ipairs(rows) do
    if is_comm(r.kernel) then ncomm = ncomm + r.dispatches
    elseif r.o.invalid then
      report:finding { severity = "error", rule = "occupancy.invalid", subject = r.kernel,
        message = string.format("%s cannot run on %s: %s", r.kernel, arch, r.o.invalid), evidence = { arch = arch } }
    elseif r.occupancy_pct < opts.threshold then
      report:finding { severity = "warn", rule = "occupancy.amd_limiter", subject = r.kernel,
        message = string.format("%s: theoretical occupancy %s %% (%d of %d waves per SIMD) is limited by %s",
          r.kernel, cuda.fmt_pct(r.occupancy_pct), r.waves_per_simd, r.max_waves_per_simd, r.limiter),
        evidence = { arch = arch, dispatches = r.dispatches, waves_per_simd = r.waves_per_simd,
          limit_vgpr = r.limit_vgpr, limit_sgpr = r.limit_sgpr, limit_lds = r.limit_lds, threshold_pct = opts.threshold,
          formula = "speedup = 100 - occupancy %" },
        speedup_pct = 100 - r.occupancy_pct }
    end
  end
  comm_note(report, ncomm, "dispatches")
  if skipped > 0 then report:note(string.format("%d dispatches without workgroup size or VGPR count were skipped",
      skipped)) end
end

-- helpers of the CUDA path: every step a column operation (C) over the
-- launches, or a loop over distinct values (devices, CCs, finding groups)
local function opt(k, c) return k:has(c) and k:col(c) or nil end
-- a column with at least one value, else nil (an absent or empty column)
local function some(c) return (c and c:count() > 0) and c or nil end
-- the first value present of two columns (either may be nil)
local function first_of(a, b) if a and b then return a:fill(b) end return a or b end
-- how many rows a mask holds true
local function ntrue(m) return m:count_true() end

-- The CUDA calculator on one input's kernels: the launch table (COLS), the
-- finding groups (each with its first launch's figures and the calculator's
-- arguments for the what-if; the launch ids only with want_ids) and what the
-- notes and the mismatch finding say.
local function cuda_report(p, ctx, want_ids)
  local k = p:table("kernels")
  local n = k:nrows()
  local is_trace = k:has("est_achieved_occupancy_pct") or p.format == "kineto"
  local assumptions, inferred = {}, {}
  local nostr, noint = k:const(nil, "string"), k:const(nil, "integer")   -- what the input lacks
  -- launch shape: block size, registers
  local bs, regs = some(device.dim_col(k, "block_size", "block")), some(opt(k, "registers"))
  local none = k:const(false)
  local has_dims = (bs and regs) and (bs:present() & regs:present()) or none
  -- the device, once per distinct (cc, device, sm_count) of the launches
  local dv = device.launch_devices(k, ctx)
  local cc, sms, maxthr = some(dv:col("cc")), some(dv:col("sm_count")), some(dv:col("max_threads_per_sm"))
  -- old ncu reports print no CC: the CCs their block limits fit, once per
  -- distinct set of printed limits
  local bls = some(opt(k, "block_limit_sm"))
  if bls then
    local need = has_dims & bls:present()
    if cc then need = need & ~cc:present() end
    if ntrue(need) > 0 then
      local it = k:select({}):with("need", need):with("block_size", bs):with("block_limit_sm", bls)
      for _, c in ipairs({ "block_limit_warps", "smem_driver_bytes", "smem_config_bytes", "theoretical_warps",
                           "theoretical_occupancy_pct" }) do
        if k:has(c) then it:with(c, k:col(c)) end
      end
      local sm_for = sms and (ctx.sm_count and sms:fill(ctx.sm_count) or sms) or nil
      if sm_for then it:with("sm_for", sm_for) end
      local by = it:group_by(it:columns())
      local res = {}
      for gi, r in by:agg { { "n", "count" } }:rows() do
        res[gi] = {}
        if r.need then
          local c, cands, how = device.infer_cc_row(r, r.sm_for or (not sm_for and ctx.sm_count) or nil)
          if c then
            res[gi].cc = c
            inferred[string.format("CC %s (from %s)", table.concat(cands, " or "), how)] = true
          end
        end
      end
      local inf = some(by:broadcast(T.from_rows(res, { "cc" })):col("cc"))
      cc = first_of(cc, inf)
    end
  end
  -- which CCs the calculator knows (once per distinct CC)
  local known = cc and cc:map(function(c) return gpus.cc(c) ~= nil end):eq(true) or nil
  local kept = (cc and known) and (has_dims & known) or none
  local skipped = n - ntrue(has_dims)
  local no_cc = ntrue(cc and (has_dims & ~cc:present()) or has_dims)
  local unknown = {}
  if cc then
    local uk = has_dims & cc:present() & ~known
    if ntrue(uk) > 0 then
      for _, r in k:select({}):with("cc", cc):filter(uk):group_by("cc"):agg { { "n", "count" } }:rows() do
        unknown[#unknown + 1] = string.format("%d at CC %s", r.n, r.cc)
      end
    end
  end
  -- shared memory: ncu prints static and dynamic; Kineto writes one total
  -- ("shared memory" = static + dynamic) into smem_bytes
  local ss_eff, kineto = device.smem_static_col(k)
  local kineto_smem = kineto and ntrue(has_dims & kineto) or 0
  ss_eff = ss_eff and ss_eff:fill(0) or 0
  local sd = some(opt(k, "smem_dynamic_bytes"))
  local sd_eff = sd and sd:fill(0) or 0
  local cfg, drv = some(opt(k, "smem_config_bytes")), some(opt(k, "smem_driver_bytes"))
  -- the calculator, once over every launch (C)
  local args = { cc = cc or nostr, block_size = bs or noint, registers = regs, smem_static = ss_eff,
    smem_dynamic = sd_eff, smem_config = cfg, smem_driver = drv,
    grid_size = is_trace and some(device.dim_col(k, "grid_size", "grid")) or nil, sm_count = sms,
        max_threads_per_sm = maxthr }
  local oc = cuda.columns(args)
  local pct = oc:col("theoretical_occupancy_pct")
  -- the table's rounded occupancy: once per distinct (warps, max warps)
  local maxw = cc and some(cc:map(function(c) local a = gpus.cc(c); return a and a.max_warps_per_sm end)) or nil
  local tw = oc:col("theoretical_warps")
  local pct2 = maxw and (tw * 100000 + maxw):map(function(key)
    return round2(100 * (key // 100000) / (key % 100000))
  end) or pct
  -- the launch table (COLS), one row per launch
  local rn = k:rownum()
  local t = k:select({})
  t:with("kernel", first_of(opt(k, "short_name"), opt(k, "name")) or nostr)
  t:with("cc", cc or nostr)
  t:with("block_size", bs or noint)
  t:with("registers", regs or noint)
  t:with("smem_bytes", type(ss_eff) ~= "number" and (ss_eff + sd_eff) or type(sd_eff) ~= "number" and (sd_eff + ss_eff)
    or tw:keep(none):fill(0))
  t:with("smem_config_bytes", oc:col("smem_config_used"))
  for _, c in ipairs({ "block_limit_sm", "block_limit_warps", "block_limit_registers", "block_limit_smem",
                       "block_limit_barriers", "active_blocks", "theoretical_warps" }) do t:with(c, oc:col(c)) end
  t:with("theoretical_occupancy_pct", pct2)
  t:with("achieved_occupancy_pct", opt(k, "achieved_occupancy_pct") or pct:keep(none))
  local my_est = oc:has("est_achieved_occupancy_pct") and oc:col("est_achieved_occupancy_pct") or nil
  t:with("est_achieved_occupancy_pct", my_est or pct:keep(none))
  -- what the input printed: ncu's theoretical occupancy, or Kineto's
  -- estimate (2021 Kineto wrote the same estimate as "theoretical occupancy %")
  local kt = opt(k, "theoretical_occupancy_pct")
  local est = is_trace and first_of(opt(k, "est_achieved_occupancy_pct"), kt) or nil
  t:with("reported_occupancy_pct", (is_trace and est or kt) or pct:keep(none))
  t:with("limiter", oc:col("limiter"))
  t:with("id", opt(k, "id") or (rn - 1))
  for _, c in ipairs({ "start_ns", "duration_ns" }) do t:with(c, opt(k, c) or tw:keep(none)) end
  -- a launch without a name is "launch N" (N its row)
  local kernel_col = t:col("kernel")
  if ntrue(kept & ~kernel_col:present()) > 0 then
    t:with("kernel", kernel_col:fill(T.sprintf("launch %d", rn:keep(~kernel_col:present()))))
  end
  t:with("_row", rn)

  -- finding groups: launches equal in kernel, CC, block size, registers,
  -- shared memory and configuration are one group (a nameless launch is
  -- its own), in the order of their first launch; the figures of a group
  -- are its first launch's
  local gkeys = { "kernel", "cc", "block_size", "registers", "smem_bytes", "smem_config_bytes" }
  local ach = opt(k, "achieved_occupancy_pct")
  local aggs = { { "first", "min", "_row", where = kept }, { "launches", "count", where = kept },
    { "time_ns", "sum", "duration_ns", where = kept } }
  if ach then
    aggs[#aggs + 1] = { "ach_sum", "sum", "achieved_occupancy_pct", where = kept }
    aggs[#aggs + 1] = { "ach_n", "count", where = kept & ach:present() }
  end
  if want_ids then aggs[#aggs + 1] = { "rows", "ids", where = kept } end
  local groups, ids = t:group_by(gkeys):agg(aggs)
  local gsel = groups:col("launches"):gt(0)
  -- the groups in order of their first launch (C; each group's first row is its own)
  local firsts = groups:filter(gsel)
  local gpos = firsts:order("first")
  firsts = firsts:take(gpos)
  local gpos_l = want_ids and gpos:to_lua() or nil
  local grows = firsts:col("first")
  local gids = want_ids and (function()
    local all, out = ids.rows, {}
    for gi, keep in ipairs(gsel:to_lua()) do if keep then out[#out + 1] = all[gi] end end
    return out
  end)() or nil
  -- the columns the group table reads, at the groups' first launches (a
  -- table of a few columns sharing t's and oc's values, then one take)
  local function take_cols(src, names)
    local x = src:select({})
    for _, c in ipairs(names) do if src:has(c) then x:with(c, src:col(c)) end end
    return x:take(grows)
  end
  local OC_COLS = { "limiter", "block_limit_sm", "block_limit_warps", "block_limit_registers", "block_limit_smem",
                    "block_limit_barriers", "active_blocks", "theoretical_warps", "theoretical_occupancy_pct",
                    "smem_config_used", "invalid" }
  local rep = take_cols(t, { "kernel", "cc", "block_size", "registers" })
  local orep = take_cols(oc, OC_COLS)
  local arep = k:select({}):with("smem_static", type(ss_eff) == "number" and tw:keep(none):fill(ss_eff) or ss_eff)
  arep:with("smem_dynamic", type(sd_eff) == "number" and tw:keep(none):fill(sd_eff) or sd_eff)
  if cfg then arep:with("smem_config", cfg) end
  if drv then arep:with("smem_driver", drv) end
  arep = arep:take(grows)
  -- the group table: one row per finding group (its first launch's
  -- figures), every column built in C; the findings are column operations
  -- over it (a trace of many launch shapes has about as many groups as
  -- launches)
  local g = rep   -- kernel, cc, block_size, registers
  for _, c in ipairs({ "launches", "time_ns", "ach_sum", "ach_n" }) do
    if firsts:has(c) then g:with(c, firsts:col(c)) end
  end
  for _, c in ipairs(OC_COLS) do
    g:with(c, orep:has(c) and orep:col(c) or rep:const(nil, c == "limiter" and "string" or "number"))
  end
  for _, c in ipairs({ "smem_static", "smem_dynamic", "smem_config", "smem_driver" }) do
    if arep:has(c) then g:with(c, arep:col(c)) end
  end
  -- the architecture's name and warps per SM, once per distinct CC (C's map)
  local rcc = rep:col("cc")
  g:with("arch_cc", rcc:map(function(c) return tostring(gpus.cc(c).cc) end))
  g:with("max_warps", rcc:map(function(c) return gpus.cc(c).max_warps_per_sm end))
  g:with("_g", g:rownum())
  local tall = t   -- (t is filtered to the kept launches below; the group rows are of all)
  local gids_of = want_ids and function(gi) return tall:take(gids[gpos_l[gi]]):col("id"):to_lua() end or nil

  -- compare with what the input printed (ncu: every block limit, the
  -- theoretical warps and occupancy; Kineto: the estimate)
  local mismatch, exception = none, none
  local diff_cols = { "block_limit_sm", "block_limit_registers", "block_limit_smem", "block_limit_warps",
      "theoretical_warps" }
  if not is_trace then
    local m = {}
    for _, c in ipairs(diff_cols) do if k:has(c) then m[c] = k:col(c):ne(oc:col(c)) end end
    if kt then m.pct = (kt - pct):abs():gt(0.01) end
    local any_diff, others = none, none
    for c, mc in pairs(m) do
      any_diff = any_diff | mc
      if c ~= "block_limit_smem" then others = others | mc end
    end
    -- the known 2020 ncu exception: Block Limit Shared Mem against the
    -- maximum carveout instead of the configuration size
    if m.block_limit_smem and cfg and cc then
      local maxc = cc:map(function(c) local a = gpus.cc(c); return a and a.smem_per_sm end)
      local cand = kept & m.block_limit_smem & ~others & cfg:lt(maxc)
      if ntrue(cand) > 0 then
        local a2 = {}
        for kk, v in pairs(args) do a2[kk] = v end
        a2.smem_config, a2.grid_size = maxc, nil
        exception = cand & cuda.columns(a2):col("block_limit_smem"):eq(k:col("block_limit_smem"))
      end
    end
    mismatch = kept & any_diff & ~exception
  elseif est and my_est then
    mismatch = kept & est:ne(my_est)
  end
  local exception_hits = ntrue(exception) > 0 and t:filter(exception):col("kernel"):to_lua() or {}
  local n_mismatch = ntrue(mismatch)
  local mismatches = {}
  if n_mismatch > 0 then
    for _, row in ipairs(t:filter(mismatch):head(5):col("_row"):to_lua()) do
      local kr, orow, kernel = k:row(row), oc:row(row), t:get(row, "kernel")
      local text
      if is_trace then
        text = string.format("perflab est. %d %%, Kineto %d %%", orow.est_achieved_occupancy_pct,
          kr.est_achieved_occupancy_pct or kr.theoretical_occupancy_pct)
      else
        local diffs = {}
        for _, c in ipairs(diff_cols) do
          if kr[c] and kr[c] ~= orow[c] then diffs[#diffs + 1] = string.format("%s %s (input %s)", c, orow[c],
              kr[c]) end
        end
        if kr.theoretical_occupancy_pct
            and math.abs(kr.theoretical_occupancy_pct - orow.theoretical_occupancy_pct) > 0.01 then
          diffs[#diffs + 1] = string.format("theoretical %.2f %% (input %.2f %%)", orow.theoretical_occupancy_pct,
            kr.theoretical_occupancy_pct)
        end
        text = table.concat(diffs, ", ")
      end
      mismatches[#mismatches + 1] = string.format("%s: %s", kernel, text)
    end
  end
  -- the assumed configuration sizes (ncu reports that print none)
  if not is_trace then
    local am = kept & oc:col("assumed")
    if ntrue(am) > 0 then
      for _, c in ipairs(t:filter(am):unique("smem_config_bytes")) do assumptions[cuda.assumption(c)] = true end
    end
  end

  t:drop("_row")   -- t holds COLS in order (its columns share their values with oc and k: no copies)
  if ntrue(kept) < n then t = t:filter(kept) end
  return {
    t = t, g = g, gids_of = gids_of, is_trace = is_trace, assumptions = assumptions, inferred = inferred,
        skipped = skipped,
    no_cc = no_cc, unknown = unknown, kineto_smem = kineto_smem, exception_hits = exception_hits,
    n_mismatch = n_mismatch, mismatches = mismatches,
  }
end

--- occupancy: ncu's three graphs for the first kernels of the table.
local function figure(report, tname, max_kernels)
  tname = tname or "occupancy"
  -- the first launch of each of the first kernels with a CC, block size
  -- and registers, found in C (the table has a row per launch)
  local t = report.tables[tname]
  if not t or t:nrows() == 0 then return end
  for _, c in ipairs({ "kernel", "cc", "block_size", "registers" }) do if not t:has(c) then return end end
  local cols = {}
  for _, c in ipairs({ "kernel", "cc", "block_size", "registers", "smem_bytes", "smem_config_bytes",
      "theoretical_occupancy_pct" }) do
    if t:has(c) then cols[#cols + 1] = c end
  end
  local ok = t:col("cc"):present() & t:col("block_size"):present() & t:col("registers"):present() & t:col("kernel"):present()
  local sel = t:select(cols):filter(ok)
  local picked = {}
  for _, g in sel:group_by("kernel"):agg { { "n", "count" } }:head(max_kernels or 3):rows() do
    picked[#picked + 1] = sel:where { kernel = g.kernel }:row(1)
  end
  if #picked == 0 then return end
  -- the theoretical occupancy of a list of {r, block size, registers,
  -- shared memory} in one call of the calculator (0 where it cannot run)
  local function occ_all(q)
    local rows = {}
    for i, e in ipairs(q) do
      rows[i] = { cc = e[1].cc, bs = e[2], regs = e[3], smem = e[4], cfg = e[1].smem_config_bytes }
    end
    local qt = T.from_rows(rows, { "cc", "bs", "regs", "smem", "cfg" })
    local o = cuda.columns { cc = qt:col("cc"), block_size = qt:col("bs"), registers = qt:col("regs"),
      smem_static = qt:col("smem"), smem_config = qt:col("cfg"):count() > 0 and qt:col("cfg") or nil }
    local pcts, inval, out = o:col("theoretical_occupancy_pct"):to_lua(), o:col("invalid"):to_lua(), {}
    for i = 1, #q do out[i] = (inval[i] or not pcts[i]) and 0 or pcts[i] end
    return out
  end
  local dims = {
    { key = "block_size", label = "threads per block", x_max = 1024, xs = function() local t = {}; for b = 32, 1024,
        32 do t[#t + 1] = b end; return t end,
      a = function(r, x) return x, r.registers, r.smem_bytes or 0 end },
    { key = "registers", label = "registers per thread", xs = function() local t = {}; for g = 8, 255,
        1 do t[#t + 1] = g end; return t end,
      a = function(r, x) return r.block_size, x, r.smem_bytes or 0 end },
    { key = "smem_bytes", label = "shared memory per block (bytes)",
      xs = function()
        local hi = 48 * 1024
        for _, r in ipairs(picked) do hi = math.max(hi, 2 * (r.smem_bytes or 0), r.smem_config_bytes or 0) end
        hi = math.min(hi, 256 * 1024)
        local t = {}
        for k = 0, 64 do t[#t + 1] = math.floor(hi * k / 64 / 128) * 128 end
        return t
      end,
      a = function(r, x) return r.block_size, r.registers, x end },
  }
  for _, d in ipairs(dims) do
    local series = {}
    local xs = d.xs()
    -- every point of every kernel (and its current configuration), one call
    local q = {}
    for _, r in ipairs(picked) do
      for _, x in ipairs(xs) do q[#q + 1] = { r, d.a(r, x) } end
      q[#q + 1] = { r, d.a(r, r[d.key] or 0) }
    end
    local res, at = occ_all(q), 0
    for i, r in ipairs(picked) do
      local pts = {}
      for _, x in ipairs(xs) do at = at + 1; pts[#pts + 1] = { x, res[at] } end
      local cur = r[d.key] or 0
      at = at + 1
      local now = res[at]
      series[#series + 1] = { name = chart.short(figures.label(r.kernel), 40), points = pts, marker = false }
      series[#series + 1] = { name = "current: " .. chart.short(figures.label(r.kernel), 24), line = false,
          marker_shape = chart.markers[i + 4],
        colour = chart.palette[(2 * i - 2) % #chart.palette + 1],
        points = { { cur, now, r = 7, title = string.format("%s: %s = %s → %s theoretical occupancy", r.kernel, d.label,
          units.count(cur), figures.pct(now)) } } }
    end
    -- a kernel's curve and its current marker share a colour
    for i = 1, #series, 2 do series[i].colour = chart.palette[(i - 1) % #chart.palette + 1] end
    report:figure("occupancy_" .. d.key .. ".svg", chart.plot {
      title = "Impact of varying " .. d.label,
          subtitle = "theoretical occupancy (perflab.gpu.occupancy), current configuration marked",
      x_label = d.label, y_label = "theoretical occupancy (%)", y_min = 0, y_max = 100, x_min = 0,
      x_max = d.x_max or (d.key == "registers" and 255) or nil, x_nice = (d.key == "smem_bytes"),
      x_format = d.key == "smem_bytes" and function(v) return units.bytes(v, 3) end or nil,
      series = series, height = 360,
    }, { title = "occupancy vs " .. d.label })
  end
end

local R
R = {
  name = "occupancy",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "theoretical occupancy per launch (CUDA occupancy calculator), its limiter, achieved gap and what-if",
  needs = { "kernels" },                       -- each report (or every input when none is one) ...
  timeline_needs = { "kernels|kernel_summary" },   -- ... and a timeline beside it
  tables = { "kernels", "kernel_summary", "devices" },   -- all it reads (devices: perflab.gpu)
  options = {
    gpu = { type = "string", default = "auto",
        help = "GPU model when the input does not say (perflab gpus lists them)" },
    threshold = { type = "number", default = ncu.thresholds.occupancy_low,
                  help = "flag theoretical occupancy below this percentage" },
    gap = { type = "number", default = ncu.thresholds.achieved_gap,
            help = "flag achieved occupancy more than this many points below theoretical" },
    timeline = weighting.option,
  },
  run = function(inputs, opts, report)
    local timelines
    inputs, timelines = weighting.inputs(inputs, opts, { recipe_def = R })
    local items = {}   -- every per-kernel finding, for the weighting
    local order_base = 0   -- the order key of the next input's first finding
    for idx, p in ipairs(inputs) do
      local ctx, err = device.context(p, opts)
      if not ctx then perflab.fail(err) end
      if ctx.vendor == "amd" then
        amd_report(p, ctx, opts, report, #inputs > 1 and ("amd_occupancy_" .. idx) or "amd_occupancy")
        goto next_input
      end
      do
      local name = #inputs > 1 and ("occupancy_" .. idx) or "occupancy"
      local c = cuda_report(p, ctx, #timelines > 0)
      local t, is_trace, assumptions, inferred = c.t, c.is_trace, c.assumptions, c.inferred
      local skipped, no_cc, kineto_smem, exception_hits = c.skipped, c.no_cc, c.kineto_smem, c.exception_hits
      local n_mismatch, mismatches = c.n_mismatch, c.mismatches
      if #exception_hits > 0 then
        report:note(string.format("%d launch(es) (%s): the input's Block Limit Shared Mem is what the maximum shared-memory carveout gives, not the printed configuration size -- the known behaviour of 2020-era ncu; the theoretical occupancy agrees",
          #exception_hits, table.concat(exception_hits, ", ")))
      end
      if kineto_smem > 0 then
        report:note(string.format("%d launches: shared memory from the trace's one total per block (static + dynamic, smem_bytes)", kineto_smem))
      end
      if is_trace then
        assumptions[string.format("trace input: the calculator assumes the runtime's default carveout (the full shared memory per SM) and no opt-in above %s per block, as Kineto's estimate does",
          "48 KB")] = true
      end
      report:table(name, t, { title = string.format("%d launches (%s), device from %s", t:nrows(), p.source,
          ctx.source),
        note = "Theoretical occupancy from perflab.gpu.occupancy; reported_occupancy_pct is what the input printed." })
      -- the findings: one set per rule, each a column operation over the
      -- group table (report:finding_set); with a timeline, each finding is
      -- weighted by the GPU time of its group's launches
      local g = c.g
      local shown = { "launches" }
      if g:col("time_ns"):count() > 0 then shown[2] = "time_ns" end
      local function add(rule, severity, tb, message, speedup, evidence)
        -- the order added: group by group, the gap after the group's other finding
        -- (order_base: after the previous inputs' findings)
        tb:with("_order", tb:col("_g") * 2 + (order_base + (rule == "occupancy.achieved_gap" and 1 or 0)))
        local fs = report:finding_set(tb:with("_message", message):with("_speedup", speedup or tb:const(nil, "number")),
          { rule = rule, severity = severity, subject = "kernel", message = "_message", order = "_order",
            speedup_pct = speedup and "_speedup" or nil, evidence = evidence, columns = shown,
            expand = #timelines > 0 })
        if fs then
          for i, gi in ipairs(tb:col("_g"):to_lua()) do
            items[#items + 1] = weighting.item(fs[i], p, fs[i].subject, c.gids_of(gi))
          end
        end
      end
      -- cuda.fmt_pct over a column: "%.1f" without a trailing ".0" (once per distinct text)
      local function fmt(x) return T.sprintf("%.1f", x):map(function(v) return (v:gsub("%.0$", "")) end) end
      local pct = g:col("theoretical_occupancy_pct")
      local invalid = g:col("invalid"):present()
      -- communication kernels: rows kept, no limiter or gap findings
      local comm = g:col("kernel"):fill(""):map(is_comm):eq(true)
      comm_note(report, g:col("launches"):keep(comm):fill(0):sum(), "launches")
      -- occupancy.invalid: the launches the calculator refuses
      local inv = g:filter(invalid)
      if inv:nrows() > 0 then
        add("occupancy.invalid", "error", inv,
          T.sprintf("%s cannot run on CC %s: %s", inv:col("kernel"), inv:col("arch_cc"), inv:col("invalid")), nil,
          function(r) return { launches = r.launches, block_size = r.block_size, registers = r.registers } end)
      end
      -- occupancy.limiter: below the threshold, with the what-if of each
      -- (cuda_occupancy.columns once over the groups)
      local low = g:filter(~invalid & ~comm & pct:lt(opts.threshold))
      if low:nrows() > 0 then
        local function wcol(cn) return low:has(cn) and low:col(cn) or nil end
        local wt = cuda.columns { cc = low:col("cc"), block_size = low:col("block_size"), registers = wcol("registers"),
          smem_static = wcol("smem_static"), smem_dynamic = wcol("smem_dynamic"), smem_config = wcol("smem_config"),
          smem_driver = wcol("smem_driver"), what_if = true }
        local function fits(b) return b:map(function(v) return v == 1 and " fits" or "s fit" end) end
        local function tip(fmt_, value, stem, extra)
          local v, bl, pc = wt:col(value), wt:col(stem .. "_blocks"), wt:col(stem .. "_pct")
          if extra then return T.sprintf(fmt_, v, extra, bl, fits(bl), fmt(pc)):fill("") end
          return T.sprintf(fmt_, v, bl, fits(bl), fmt(pc)):fill("")
        end
        local kb = low:col("cc"):map(function(cc_) return cuda.kb(cuda.arch(cc_).smem_per_sm) end)
        local lim_and = low:col("limiter"):fill(""):map(function(l)
          local parts = {}
          for x in l:gmatch("[^,]+") do parts[#parts + 1] = (x:gsub("^ ", "")) end
          return table.concat(parts, " and ")
        end)
        local lpct = low:col("theoretical_occupancy_pct")
        add("occupancy.limiter", "warn", low,
          T.sprintf("%s: theoretical occupancy %s %% (%d of %d warps per SM) is limited by %s%s%s%s",
            low:col("kernel"), fmt(lpct), low:col("theoretical_warps"), low:col("max_warps"), lim_and,
            tip("; at <= %d registers per thread, %d block%s per SM: %s %%", "what_if_registers", "what_if_registers"),
            tip("; at <= %d bytes of shared memory per block (%s configuration), %d block%s per SM: %s %%",
              "what_if_smem_bytes", "what_if_smem", kb),
            tip("; with %d threads per block (same registers and shared memory per block), %d block%s per SM: %s %%",
              "what_if_block_size", "what_if_block_size")),
          -lpct + 100,
          function(r)
            local lim = {}
            for l in (r.limiter or ""):gmatch("[^,]+") do lim[#lim + 1] = (l:gsub("^ ", "")) end
            return { launches = r.launches, theoretical_pct = round2(r.theoretical_occupancy_pct),
              threshold_pct = opts.threshold, limiter = lim, active_blocks = r.active_blocks,
              block_limit_sm = r.block_limit_sm, block_limit_warps = r.block_limit_warps,
              block_limit_registers = r.block_limit_registers, block_limit_smem = r.block_limit_smem,
              block_limit_barriers = r.block_limit_barriers,
              smem_config_bytes = r.smem_config_used, formula = "speedup = 100 - theoretical %" }
          end)
      end
      -- occupancy.achieved_gap: the measured occupancy (ncu) well below theoretical
      if g:has("ach_n") then
        local ach = g:col("ach_sum"):fill(0) / g:col("ach_n"):fill(0):max_with(1)
        local gap_m = g:col("ach_n"):fill(0):gt(0) & (pct - ach):gt(opts.gap) & pct:gt(0) & ~comm
        local gt = g:with("ach", ach):filter(gap_m)
        if gt:nrows() > 0 then
          local ga, th = gt:col("ach"), gt:col("theoretical_occupancy_pct")
          add("occupancy.achieved_gap", "opt", gt,
            T.sprintf("%s: achieved occupancy %s %% is %s points below theoretical %s %% (%s): warp scheduling overheads or workload imbalance",
              gt:col("kernel"), fmt(ga), fmt(th - ga), fmt(th),
              gt:col("launches"):map(function(n) return n == 1 and "1 launch" or (n .. " launches") end)),
            (th - ga) / th * 100,
            function(r)
              return { achieved_pct = round2(r.ach), theoretical_pct = round2(r.theoretical_occupancy_pct),
                gap_threshold = opts.gap, launches = r.launches, formula = "speedup = (T - A) / T x 100" }
            end)
        end
      end
      order_base = order_base + 2 * g:nrows() + 2
      if n_mismatch > 0 then
        report:finding { severity = "warn", rule = "occupancy.mismatch",
          message = string.format("%d launch(es) where perflab's occupancy differs from the input's own figure: %s",
            n_mismatch, table.concat(mismatches, "; ")),
          evidence = { count = n_mismatch } }
      end
      for _, a in ipairs(sorted_keys(assumptions)) do report:note(a) end
      for _, c in ipairs(sorted_keys(inferred)) do
        report:note(string.format("%s prints no compute capability; used %s, the first that fits", p.source, c))
      end
      if skipped > 0 then report:note(string.format("%d launches without block size or registers were skipped",
          skipped)) end
      local unknown = c.unknown
      table.sort(unknown)
      if #unknown > 0 then
        report:note(string.format("launches skipped: %s -- a compute capability the occupancy calculator has no "
          .. "constants for (perflab gpus lists the known ones)", table.concat(unknown, ", ")))
      end
      if no_cc > 0 then
        report:note(string.format("%d launches skipped: no compute capability in the input; pass --gpu NAME (one of: %s)",
          no_cc, device.choices()))
      end
      end
      ::next_input::
    end
    weighting.apply(report, items, timelines)
    figure(report)   -- ncu's three occupancy graphs
  end,
}
return R

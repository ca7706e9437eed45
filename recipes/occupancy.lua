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
local perflab = require "perflab"
local gpu = require "perflab.gpu"
local gpus = require "perflab.gpus"
local weighting = require "perflab.weighting"
local T = perflab.table

local COLS = { "kernel", "cc", "block_size", "registers", "smem_bytes", "smem_config_bytes",
  "block_limit_sm", "block_limit_warps", "block_limit_registers", "block_limit_smem",
  "block_limit_barriers", "active_blocks", "theoretical_warps", "theoretical_occupancy_pct",
  "achieved_occupancy_pct", "est_achieved_occupancy_pct", "reported_occupancy_pct", "limiter",
  "id", "start_ns", "duration_ns" }   -- the launch's join keys (id: the input's id or the 0-based row)

-- the keys of a set, sorted: notes in a fixed order (pairs' order changes
-- from run to run in Lua 5.4)
local function sorted_keys(t)
  local k = {}
  for x in pairs(t) do k[#k + 1] = x end
  table.sort(k)
  return k
end

-- the columns the calculator and the comparisons read: launches equal in
-- all of them are one launch shape, worked out once
local SHAPE = { "short_name", "name", "block_size", "block_x", "block_y", "block_z", "grid_size", "grid_x",
  "grid_y", "grid_z", "registers", "device", "cc", "sm_count", "smem_static_bytes", "smem_dynamic_bytes",
  "smem_bytes", "smem_config_bytes", "smem_driver_bytes", "block_limit_sm", "block_limit_warps",
  "block_limit_registers", "block_limit_smem", "block_limit_barriers", "theoretical_warps",
  "theoretical_occupancy_pct", "est_achieved_occupancy_pct" }
local function round2(x) return x and math.floor(x * 100 + 0.5) / 100 end

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
  local vg, ag, sg = col("arch_vgpr", "Arch_VGPR_Count", "registers"), col("accum_vgpr", "Accum_VGPR_Count"), col("sgpr", "SGPR_Count")
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
          waves_per_workgroup = o.waves_per_workgroup, arch_vgpr = vg[i], accum_vgpr = ag[i], vgprs_allocated = o.vgprs_allocated,
          sgpr = sg[i], lds_bytes = lds[i] or 0, limit_vgpr = o.limit_vgpr, limit_sgpr = o.limit_sgpr, limit_lds = o.limit_lds,
          waves_per_simd = o.waves_per_simd, max_waves_per_simd = o.max_waves_per_simd, occupancy_pct = o.occupancy_pct,
          limiter = table.concat(o.limiter, ", "), dispatches = 1, o = o }
        seen[key] = row
        rows[#rows + 1] = row
      end
    end
  end
  report:table(name, T.from_rows(rows, AMD_COLS), { title = string.format(
    "%d kernel configurations (%s), AMD %s (%s), device from %s", #rows, p.source, arch, amd.arch[arch].name, ctx.source),
    note = "waves per SIMD = min(8, 512 VGPRs / allocated VGPRs, 800 SGPRs / allocated SGPRs, LDS-limited workgroups "
      .. "per CU x waves per workgroup / 4 SIMDs); occupancy_pct = waves per SIMD / 8 (perflab.amd_occupancy: workgroup "
      .. "slots, barriers and reserved SGPRs are not modelled)." })
  for _, r in ipairs(rows) do
    if r.o.invalid then
      report:finding { severity = "error", rule = "occupancy.invalid", subject = r.kernel,
        message = string.format("%s cannot run on %s: %s", r.kernel, arch, r.o.invalid), evidence = { arch = arch } }
    elseif r.occupancy_pct < opts.threshold then
      report:finding { severity = "warn", rule = "occupancy.amd_limiter", subject = r.kernel,
        message = string.format("%s: theoretical occupancy %s %% (%d of %d waves per SIMD) is limited by %s",
          r.kernel, gpu.fmt_pct(r.occupancy_pct), r.waves_per_simd, r.max_waves_per_simd, r.limiter),
        evidence = { arch = arch, dispatches = r.dispatches, waves_per_simd = r.waves_per_simd,
          limit_vgpr = r.limit_vgpr, limit_sgpr = r.limit_sgpr, limit_lds = r.limit_lds, threshold_pct = opts.threshold,
          formula = "speedup = 100 - occupancy %" },
        speedup_pct = 100 - r.occupancy_pct }
    end
  end
  if skipped > 0 then report:note(string.format("%d dispatches without workgroup size or VGPR count were skipped", skipped)) end
end

local R
R = {
  name = "occupancy",
  summary = "theoretical occupancy per launch (CUDA occupancy calculator), its limiter, achieved gap and what-if",
  needs = { "kernels" },                       -- each report (or every input when none is one) ...
  timeline_needs = { "kernels|kernel_summary" },   -- ... and a timeline beside it
  tables = { "kernels", "kernel_summary", "devices" },   -- all it reads (devices: perflab.gpu)
  options = {
    gpu = { type = "string", default = "auto", help = "GPU model when the input does not say (perflab gpus lists them)" },
    threshold = { type = "number", default = gpu.thresholds.occupancy_low,
                  help = "flag theoretical occupancy below this percentage" },
    gap = { type = "number", default = gpu.thresholds.achieved_gap,
            help = "flag achieved occupancy more than this many points below theoretical" },
    timeline = weighting.option,
  },
  run = function(inputs, opts, report)
    local timelines
    inputs, timelines = weighting.inputs(inputs, opts, { recipe_def = R })
    local items = {}   -- every per-kernel finding, for the weighting
    for idx, p in ipairs(inputs) do
      local ctx, err = gpu.context(p, opts)
      if not ctx then perflab.fail(err) end
      if ctx.vendor == "amd" then
        amd_report(p, ctx, opts, report, #inputs > 1 and ("amd_occupancy_" .. idx) or "amd_occupancy")
        goto next_input
      end
      do
      local k = p:table("kernels")
      local order, represents = {}, {}
      local skipped, no_cc, inferred, unknown_cc = 0, 0, {}, {}
      local mismatches = {}
      local assumptions = {}
      local is_trace = k:has("est_achieved_occupancy_pct") or p.format == "kineto"
      local kineto_smem = 0
      local exception_hits = {}
      local keys = {}
      for _, c in ipairs(SHAPE) do if k:has(c) then keys[#keys + 1] = c end end
      local by_shape = k:group_by(keys)
      local shapes, launches = by_shape:agg { { "first_row", "ids" } }
      local res, nameless = {}, false
      local shape = {}   -- shape number -> {o, args, kernel, mismatch, exception} for the launch pass
      -- the device of each shape, resolved once per distinct device (the
      -- row's cc, its device id in the input's devices, the input's own)
      local dev_keys = {}
      for _, c in ipairs({ "cc", "device", "sm_count" }) do if shapes:has(c) then dev_keys[#dev_keys + 1] = c end end
      local by_dev = shapes:group_by(dev_keys)
      local devs = {}
      for di, d in by_dev:agg { { "n", "count" } }:rows() do
        local cc, sms, maxthr = gpu.row_device(d, ctx)
        devs[di] = { dev_cc = cc, dev_sms = sms, dev_maxthr = maxthr }
      end
      local dcols = by_dev:broadcast(T.from_rows(devs, { "dev_cc", "dev_sms", "dev_maxthr" }))
      local dev_cc, dev_sms, dev_maxthr = dcols:col("dev_cc"):to_lua(), dcols:col("dev_sms"):to_lua(), dcols:col("dev_maxthr"):to_lua()
      -- the calculator's inputs per shape, then the calculator once over all
      -- of them (C: perflab.cuda_occupancy.columns)
      local inp = { bs = {}, regs = {}, cc = {}, ss = {}, sd = {}, cfg = {}, drv = {}, grid = {}, sms = {}, maxthr = {} }
      for si, r in shapes:rows() do
        local bs, regs = gpu.dim(r, "block_size", "block"), r.registers
        if bs and regs then
          local cc, sms = dev_cc[si], dev_sms[si]
          if not cc and r.block_limit_sm then
            local c, cands, how = gpu.infer_cc_row(r, sms or ctx.sm_count)
            if c then
              cc = c
              inferred[string.format("CC %s (from %s)", table.concat(cands, " or "), how)] = true
            end
          end
          local smem_static, smem_dyn = r.smem_static_bytes, r.smem_dynamic_bytes
          if not smem_static and not smem_dyn and r.smem_bytes then smem_static = r.smem_bytes end
          inp.bs[si], inp.regs[si], inp.cc[si] = bs, regs, cc
          inp.ss[si], inp.sd[si] = smem_static or 0, smem_dyn or 0
          inp.cfg[si], inp.drv[si] = r.smem_config_bytes, r.smem_driver_bytes
          inp.grid[si], inp.sms[si], inp.maxthr[si] = is_trace and gpu.dim(r, "grid_size", "grid") or nil, sms, dev_maxthr[si]
        end
      end
      local irows = {}
      for si = 1, shapes:nrows() do
        irows[si] = { bs = inp.bs[si], regs = inp.regs[si], cc = inp.cc[si], ss = inp.ss[si], sd = inp.sd[si], cfg = inp.cfg[si],
          drv = inp.drv[si], grid = inp.grid[si], sms = inp.sms[si], maxthr = inp.maxthr[si] }
      end
      local ic = T.from_rows(irows, { "bs", "regs", "cc", "ss", "sd", "cfg", "drv", "grid", "sms", "maxthr" })
      local function icol(c) return ic:has(c) and ic:col(c) or nil end
      local oc = gpu.columns { cc = icol("cc"), block_size = icol("bs"), registers = icol("regs"), smem_static = icol("ss"),
        smem_dynamic = icol("sd"), smem_config = icol("cfg"), smem_driver = icol("drv"), grid_size = icol("grid"),
        sm_count = icol("sms"), max_threads_per_sm = icol("maxthr") }
      local O = {}
      for _, c in ipairs(oc:columns()) do O[c] = oc:col(c):to_lua() end
      -- one shape's result in occupancy()'s form
      local function result_of(si, cc, bs, regs)
        local lim = {}
        for l in (O.limiter[si] or ""):gmatch("[^,]+") do lim[#lim + 1] = l:gsub("^ ", "") end
        local a = gpus.cc(cc)
        return { cc = a.cc, block_size = bs, registers = regs, max_warps_per_sm = a.max_warps_per_sm,
          warps_per_block = O.warps_per_block[si], block_limit_sm = O.block_limit_sm[si],
          block_limit_warps = O.block_limit_warps[si], block_limit_registers = O.block_limit_registers[si],
          block_limit_smem = O.block_limit_smem[si], block_limit_barriers = O.block_limit_barriers[si],
          active_blocks = O.active_blocks[si], theoretical_warps = O.theoretical_warps[si],
          theoretical_occupancy_pct = O.theoretical_occupancy_pct[si], smem_config_used = O.smem_config_used[si],
          invalid = O.invalid[si], limiter = lim, assumed = O.assumed[si] }
      end
      for si, r in shapes:rows() do
        local nrows = #launches.first_row[si]
        res[si] = { kept = false }
        local bs = gpu.dim(r, "block_size", "block")
        local regs = r.registers
        if not bs or not regs then skipped = skipped + nrows; goto next end
        do
          local cc, sms = inp.cc[si], inp.sms[si]
          -- shared memory: ncu prints static and dynamic; Kineto writes one
          -- total ("shared memory" = static + dynamic) into smem_bytes
          local smem_static, smem_dyn = inp.ss[si], inp.sd[si]
          if not r.smem_static_bytes and not r.smem_dynamic_bytes and r.smem_bytes then kineto_smem = kineto_smem + nrows end
          if not cc then no_cc = no_cc + nrows; goto next end
          if not gpus.cc(cc) then   -- a CC the calculator has no constants for (Pascal 6.1 in nsys 2022 exports)
            unknown_cc[cc] = (unknown_cc[cc] or 0) + nrows
            goto next
          end
          local args = { cc = cc, block_size = bs, registers = regs, smem_static = smem_static,
            smem_dynamic = smem_dyn, smem_config = r.smem_config_bytes, smem_driver = r.smem_driver_bytes }
          local o = result_of(si, cc, bs, regs)
          if o.assumed and not is_trace then assumptions[gpu.assumption(o.smem_config_used)] = true end
          local kernel = r.short_name or r.name
          -- what the input printed: ncu's theoretical occupancy, or Kineto's
          -- estimate (2021 Kineto wrote the same estimate as "theoretical
          -- occupancy %")
          local est = r.est_achieved_occupancy_pct
          if is_trace and not est then est = r.theoretical_occupancy_pct end
          local my_est = O.est_achieved_occupancy_pct and O.est_achieved_occupancy_pct[si]
          local reported = is_trace and est or r.theoretical_occupancy_pct
          res[si] = {
            kept = true, kernel = kernel, cc = o.cc, block_size = bs, registers = regs,
            smem_bytes = smem_static + smem_dyn, smem_config_bytes = o.smem_config_used,
            block_limit_sm = o.block_limit_sm, block_limit_warps = o.block_limit_warps,
            block_limit_registers = o.block_limit_registers, block_limit_smem = o.block_limit_smem,
            block_limit_barriers = o.block_limit_barriers, active_blocks = o.active_blocks,
            theoretical_warps = o.theoretical_warps,
            theoretical_occupancy_pct = round2(o.theoretical_occupancy_pct),
            est_achieved_occupancy_pct = my_est,
            reported_occupancy_pct = reported,
            limiter = table.concat(o.limiter, ", "),
          }
          if not kernel then nameless = true end
          local sh = { o = o, args = args, kernel = kernel }
          shape[si] = sh
          -- compare with what the input printed (ncu: every block limit, the
          -- theoretical warps and occupancy; Kineto: the estimate)
          if not is_trace then
            local diffs = {}
            for _, c in ipairs({ "block_limit_sm", "block_limit_registers", "block_limit_smem",
                                 "block_limit_warps", "theoretical_warps" }) do
              if r[c] and r[c] ~= o[c] then diffs[#diffs + 1] = string.format("%s %s (input %s)", c, o[c], r[c]) end
            end
            if r.theoretical_occupancy_pct and math.abs(r.theoretical_occupancy_pct - o.theoretical_occupancy_pct) > 0.01 then
              diffs[#diffs + 1] = string.format("theoretical %.2f %% (input %.2f %%)", o.theoretical_occupancy_pct,
                r.theoretical_occupancy_pct)
            end
            if #diffs > 0 then
              -- the known 2020 ncu exception: Block Limit Shared Mem against
              -- the maximum carveout instead of the configuration size
              local maxc = gpus.cc(cc).smem_per_sm
              if #diffs == 1 and r.block_limit_smem and r.block_limit_smem ~= o.block_limit_smem
                 and r.smem_config_bytes and r.smem_config_bytes < maxc then
                local a2 = {}
                for kk, vv in pairs(args) do a2[kk] = vv end
                a2.smem_config = maxc
                if gpu.occupancy(a2).block_limit_smem == r.block_limit_smem then
                  sh.exception = true
                  diffs = {}
                end
              end
            end
            if #diffs > 0 then sh.mismatch = table.concat(diffs, ", ") end
          elseif est and my_est and est ~= my_est then
            sh.mismatch = string.format("perflab est. %d %%, Kineto %d %%", my_est, est)
          end
          -- identical configurations make one finding
          sh.gkey = table.concat({ kernel or "", o.cc, bs, regs, smem_static + smem_dyn, tostring(o.smem_config_used) }, "|")
          -- a finding reads the calculator's result of its group's first
          -- shape only: the others need not keep theirs
          if kernel and represents[sh.gkey] then sh.o, sh.args = nil, nil else represents[sh.gkey] = true end
        end
        ::next::
      end
      -- finding groups from the shapes (the grouping's row lists), not a
      -- pass over the launches: the shapes of one configuration (gkey) make
      -- one group, a nameless launch is its own; groups in the order of
      -- their first launch, each with its launches in order (ids, the
      -- achieved occupancy measured per launch)
      local ids = k:has("id") and k:col("id"):to_lua() or nil
      local ach = k:has("achieved_occupancy_pct") and k:col("achieved_occupancy_pct"):to_lua() or nil
      local by_key, flagged, n_mismatch = {}, {}, 0
      for si, rows in ipairs(launches.first_row) do
        local sh = shape[si]
        if sh then
          if sh.kernel then
            local g = by_key[sh.gkey]
            if not g then
              g = { kernel = sh.kernel, o = sh.o, args = sh.args, first = rows[1], parts = {} }
              by_key[sh.gkey] = g; order[#order + 1] = g
            end
            g.parts[#g.parts + 1] = rows
          else
            for _, row in ipairs(rows) do
              order[#order + 1] = { kernel = "launch " .. row, o = sh.o, args = sh.args, first = row, parts = { { row } } }
            end
          end
          -- every launch of the known ncu exception is named; of the
          -- mismatches, the count and the first five launches
          if sh.exception then
            for _, row in ipairs(rows) do flagged[#flagged + 1] = { row, sh.kernel or ("launch " .. row), sh } end
          elseif sh.mismatch then
            n_mismatch = n_mismatch + #rows
            for i = 1, math.min(#rows, 5) do
              flagged[#flagged + 1] = { rows[i], sh.kernel or ("launch " .. rows[i]), sh }
            end
          end
        end
      end
      table.sort(order, function(a, b) return a.first < b.first end)
      table.sort(flagged, function(a, b) return a[1] < b[1] end)
      for _, f in ipairs(flagged) do
        if f[3].exception then exception_hits[#exception_hits + 1] = f[2] end
        if f[3].mismatch and #mismatches < 5 then mismatches[#mismatches + 1] = string.format("%s: %s", f[2], f[3].mismatch) end
      end
      -- the launch ids (for the weighting by a timeline) and the achieved
      -- occupancy (ncu) of each group; without either, the count only
      local need_rows = #timelines > 0 or ach ~= nil
      for _, g in ipairs(order) do
        local rows = g.parts[1]
        if not need_rows then
          local n = 0
          for _, part in ipairs(g.parts) do n = n + #part end
          g.ids, g.launches, g.ach_sum, g.ach_n = {}, n, 0, 0
          goto counted
        end
        if #g.parts > 1 then
          rows = {}
          for _, part in ipairs(g.parts) do table.move(part, 1, #part, #rows + 1, rows) end
          table.sort(rows)
        end
        local gi, sum, n = {}, 0, 0
        for i, row in ipairs(rows) do
          gi[i] = ids and ids[row] or (row - 1)
          local a = ach and ach[row]
          if a then sum = sum + a; n = n + 1 end
        end
        g.ids, g.launches, g.ach_sum, g.ach_n = gi, #rows, sum, n
        ::counted::
      end
      -- the launch table: each launch gets its shape's figures and its own
      -- achieved occupancy (skipped launches are not kept)
      -- (with each launch's join keys: id, start_ns, duration_ns)
      local t = weighting.per_launch(by_shape, res, COLS, k)
      if k:has("achieved_occupancy_pct") then t:with("achieved_occupancy_pct", k:col("achieved_occupancy_pct")) end
      if nameless then
        t:add_column("kernel", function(r, i) return r.kernel or ("launch " .. i) end, "string")
      end
      t = #res > 0 and t:filter(t:col("kept")):select(COLS) or t:select(COLS)
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
      local name = #inputs > 1 and ("occupancy_" .. idx) or "occupancy"
      report:table(name, t, { title = string.format("%d launches (%s), device from %s", t:nrows(), p.source, ctx.source),
        note = "Theoretical occupancy from perflab.gpu.occupancy; reported_occupancy_pct is what the input printed." })
      -- the what-if of every group that gets a limiter finding, in one call
      local wi_rows, wi_of = {}, {}
      for _, g in ipairs(order) do
        local o = g.o
        if not o.invalid and o.theoretical_occupancy_pct < opts.threshold then
          local a = g.args
          wi_rows[#wi_rows + 1] = { cc = a.cc, bs = a.block_size, regs = a.registers, ss = a.smem_static, sd = a.smem_dynamic,
            cfg = a.smem_config, drv = a.smem_driver }
          wi_of[g] = #wi_rows
        end
      end
      local wi
      if #wi_rows > 0 then
        local w = T.from_rows(wi_rows, { "cc", "bs", "regs", "ss", "sd", "cfg", "drv" })
        local function wcol(c) return w:has(c) and w:col(c) or nil end
        wi = gpu.columns { cc = w:col("cc"), block_size = w:col("bs"), registers = wcol("regs"), smem_static = wcol("ss"),
          smem_dynamic = wcol("sd"), smem_config = wcol("cfg"), smem_driver = wcol("drv"), what_if = true }
      end
      for _, g in ipairs(order) do
        local o = g.o
        local launches = g.launches == 1 and "1 launch" or (g.launches .. " launches")
        if o.invalid then
          items[#items + 1] = weighting.item(report:finding { severity = "error", rule = "occupancy.invalid", subject = g.kernel,
            message = string.format("%s cannot run on CC %s: %s", g.kernel, o.cc, o.invalid),
            evidence = { launches = g.launches, block_size = o.block_size, registers = o.registers } }, p, g.kernel, g.ids)
        elseif o.theoretical_occupancy_pct < opts.threshold then
          local whatif = gpu.what_if_of(wi:row(wi_of[g]), o.cc)
          local tips = {}
          for _, w in ipairs(whatif) do tips[#tips + 1] = w.text end
          items[#items + 1] = weighting.item(report:finding { severity = "warn", rule = "occupancy.limiter", subject = g.kernel,
            message = string.format("%s: theoretical occupancy %s %% (%d of %d warps per SM) is limited by %s%s",
              g.kernel, gpu.fmt_pct(o.theoretical_occupancy_pct), o.theoretical_warps, o.max_warps_per_sm,
              table.concat(o.limiter, " and "), #tips > 0 and ("; " .. table.concat(tips, "; ")) or ""),
            evidence = { launches = g.launches, theoretical_pct = round2(o.theoretical_occupancy_pct),
              threshold_pct = opts.threshold, limiter = o.limiter, active_blocks = o.active_blocks,
              block_limit_sm = o.block_limit_sm, block_limit_warps = o.block_limit_warps,
              block_limit_registers = o.block_limit_registers, block_limit_smem = o.block_limit_smem,
              block_limit_barriers = o.block_limit_barriers,
              smem_config_bytes = o.smem_config_used, formula = "speedup = 100 - theoretical %" },
            speedup_pct = 100 - o.theoretical_occupancy_pct }, p, g.kernel, g.ids)
        end
        if g.ach_n > 0 then
          local ach = g.ach_sum / g.ach_n
          local th = o.theoretical_occupancy_pct
          if th - ach > opts.gap and th > 0 then
            items[#items + 1] = weighting.item(report:finding { severity = "opt", rule = "occupancy.achieved_gap", subject = g.kernel,
              message = string.format("%s: achieved occupancy %s %% is %s points below theoretical %s %% (%s): warp scheduling overheads or workload imbalance",
                g.kernel, gpu.fmt_pct(ach), gpu.fmt_pct(th - ach), gpu.fmt_pct(th), launches),
              evidence = { achieved_pct = round2(ach), theoretical_pct = round2(th), gap_threshold = opts.gap,
                launches = g.launches, formula = "speedup = (T - A) / T x 100" },
              speedup_pct = (th - ach) / th * 100 }, p, g.kernel, g.ids)
          end
        end
      end
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
      if skipped > 0 then report:note(string.format("%d launches without block size or registers were skipped", skipped)) end
      local unknown = {}
      for c, n in pairs(unknown_cc) do unknown[#unknown + 1] = string.format("%d at CC %s", n, c) end
      table.sort(unknown)
      if #unknown > 0 then
        report:note(string.format("launches skipped: %s -- a compute capability the occupancy calculator has no "
          .. "constants for (perflab gpus lists the known ones)", table.concat(unknown, ", ")))
      end
      if no_cc > 0 then
        report:note(string.format("%d launches skipped: no compute capability in the input; pass --gpu NAME (one of: %s)",
          no_cc, gpu.choices()))
      end
      end
      ::next_input::
    end
    weighting.apply(report, items, timelines)
    perflab.figures.occupancy(report)   -- ncu's three occupancy graphs
  end,
}
return R

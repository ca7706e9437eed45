--- launch: launch-configuration checks of Nsight Compute's LaunchStatistics
-- rules, offline: block size not a multiple of 32, grid smaller than the SM
-- count (and than twice the SM count), and the tail effect of a partial last
-- wave -- each with the ncu speedup formula.  One finding per rule and
-- configuration, listing the launches it covers (not one copy per launch).
--
-- Input: a `kernels` table with grid (grid_size or grid_x/y/z) and block
-- (block_size or block_x/y/z).  SM count: the row's sm_count, the input's
-- device (meta, `devices` table), what the report's own figures imply
-- (ncu's Waves Per SM with the block limits, or a rule text "the GPU's N
-- multiprocessors"), then --gpu.  Active blocks per SM for the waves come
-- from the occupancy calculator when registers are known, else from the
-- printed block limits.
--
-- Table `launch` (part of the API): kernel, grid_size, block_size,
-- sm_count, waves_per_sm, tail_pct (share of the run the partial last wave
-- can take: 100 / (whole waves + 1), 0 without a partial wave or with
-- less than one whole wave -- that case is the small-grid rule's),
-- findings (comma-separated rule ids).
--
-- Weighted by the real run: with an ncu report, any other input is a
-- timeline of the same program (Kineto, nsys stats, kernel table) -- or
-- --set timeline=FILE -- and each finding gets evidence time_share_pct,
-- kernel_time_ns, weighted_speedup_pct, saved_ns and match (a finding that
-- covers several kernels gets the sum of their times); findings are ranked
-- by saved time, with tables `weighted` and `unmatched` (perflab.weighting;
-- without an ncu report, every input is analysed).
local perflab = require "perflab"
local cuda = require "perflab.cuda_occupancy"
local ncu = require "perflab.ncu_math"
local device = require "perflab.device"
local gpus = require "perflab.gpus"
local weighting = require "perflab.weighting"
local T = perflab.table
local is_comm = require("perflab.comm").is_kernel
local graphs = require "perflab.graphs"
local chart = require "perflab.chart"
local units = require "perflab.units"
local figures = require "perflab.figures"

-- id, start_ns, duration_ns: the launch's join keys (id = the input's id
-- column or the 0-based row; start and duration where the input has them)
local COLS = { "kernel", "grid_size", "block_size", "sm_count", "active_blocks", "waves_per_sm",
  "tail_pct", "findings", "id", "start_ns", "duration_ns" }

local LIMITS = { "block_limit_sm", "block_limit_warps", "block_limit_registers", "block_limit_smem",
  "block_limit_barriers" }

-- the SM count a rule text states ("the GPU's N multiprocessors"): the
-- pattern runs once per distinct message, in C
local function sms_from_rules(p)
  local rules = p.tables.rules
  if not rules or not rules:has("message") then return nil end
  local hit = rules:filter(rules:col("message"):match("GPU's %d+ multiprocessors"))
  if hit:nrows() == 0 then return nil end
  return tonumber(hit:get(1, "message"):match("GPU's (%d+) multiprocessors"))
end

-- the active blocks ncu printed: the smallest of the block limits present
local function printed_active(k)
  local m
  for _, c in ipairs(LIMITS) do
    if k:has(c) then
      local v = k:col(c)
      m = m and m:fill(v):min_with(v:fill(m)) or v
    end
  end
  return m
end

-- Every launch's grid, block, SM count and active blocks as columns of a
-- table (the kernels' length), in C; only the device lookup and the SM
-- count implied by Waves Per SM run in Lua, once per distinct input.
-- Returns L: w (columns _grid, _bs, _sms, _active), kept (the launches with
-- grid and block size), nkept, grid, bs, sms, active, one (1 on every row),
-- none (an integer column, all missing), sources (where SM counts came
-- from, sorted), no_sm (kept launches without one).
local function launch_columns(k, ctx, rule_sms)
  local one = k:const(1)
  local L = { one = one, none = k:const(nil, "integer"), w = k:select({}):with("_one", one) }
  local w = L.w
  local grid, bs = device.dim_col(k, "grid_size", "grid"), device.dim_col(k, "block_size", "block")
  local kept = (grid and bs) and (grid:present() & bs:present()) or k:const(false)
  -- communication kernels (perflab.comm) get no grid heuristics: a
  -- collective sizes its grid by channels, not by work per block
  if k:has("name") and k:nrows() > 0 then
    local c = k:col("name"):fill(""):map(is_comm)
    L.ncomm = (kept & c):count_true()
    kept = kept & ~c
  end
  if grid and bs then w:with("_grid", grid):with("_bs", bs) end
  local nkept = kept:count_true()
  local dev = device.launch_devices(k, ctx)   -- cc, sm_count: once per distinct device
  local cc = dev:col("cc")
  -- active blocks per SM: the block limits ncu printed, else the occupancy
  -- calculator (in C) where the registers are known
  local active = printed_active(k)
  if bs and k:has("registers") then
    local need = kept & cc:present() & k:col("registers"):present()
    if active then need = need & ~active:present() end
    local function opt(c) return k:has(c) and k:col(c) or nil end
    local occ = cuda.columns { cc = cc:keep(need), block_size = bs, registers = k:col("registers"),
      smem_static = device.smem_static_col(k), smem_dynamic = opt("smem_dynamic_bytes"),
      smem_config = opt("smem_config_bytes"), smem_driver = opt("smem_driver_bytes") }
    occ = occ:col("active_blocks"):keep(need)
    active = active and active:fill(occ) or occ
  end
  active = active or L.none
  -- the SM count: the launch's device, what ncu's Waves Per SM imply (once
  -- per distinct waves, grid and active blocks), the rule text, the
  -- input-wide context
  local sms, from = dev:col("sm_count"), {}
  local function missing(c) return kept:count { where = kept & ~c:present() } end
  local function add(c, source)
    from[source] = true
    return sms:count() > 0 and sms:fill(c) or c   -- (an empty column may be typed number)
  end
  if nkept > 0 and sms:count { where = kept } > 0 then from["the input"] = true end
  if nkept > 0 and k:has("waves_per_sm") then
    local need = kept & ~sms:present() & k:col("waves_per_sm"):present() & active:present()
    if kept:count { where = need } > 0 then
      local by = k:select({}):with("w", k:col("waves_per_sm"):keep(need)):with("g", grid:keep(need))
        :with("a", active:keep(need)):group_by({ "w", "g", "a" })
      local inf = {}
      for i, r in by:agg({ { "_n", "count" } }):rows() do inf[i] = { sms = r.w
          and gpus.infer_sm_count(r.g, r.w, r.a) } end
      inf = by:broadcast(T.from_rows(inf, { "sms" })):col("sms")
      if inf:count { where = kept } > 0 then sms = add(inf, "Waves Per SM") end
    end
  end
  for _, alt in ipairs({ { rule_sms, "the rule text" }, { ctx.sm_count, ctx.source } }) do
    if alt[1] and nkept > 0 and missing(sms) > 0 then sms = add(one * alt[1], alt[2]) end
  end
  local sources = {}
  for s in pairs(from) do sources[#sources + 1] = s end
  table.sort(sources)
  w:with("_sms", sms):with("_active", active)
  L.kept, L.nkept, L.grid, L.bs, L.sms, L.active = kept, nkept, grid, bs, sms, active
  L.sources, L.no_sm = sources, nkept > 0 and missing(sms) or 0
  return L
end

-- The rules on every kept launch, as column expressions (C): returns the
-- per-launch results (waves, tail_pct, findings: the rule ids that fire,
-- comma-separated; nil without kept launches) and each rule's mask of the
-- launches that fire it.
local RULES = { "launch.block_size", "launch.small_grid", "launch.grid_below_2x_sms", "launch.tail_effect" }
local function check_launches(L, th)
  if L.nkept == 0 then return nil, {} end
  local w, kept = L.w, L.kept
  local grid, bs, sms, act = w:col("_grid"), w:col("_bs"), L.sms, L.active
  local has_sm = sms:present()
  local sg = ncu.small_grid_col(grid, sms)
  local tl = ncu.tail_col(grid, sms, act, th)
  local fire = { kept & ncu.block_size_check_col(bs).fires, kept & has_sm & sg.high, kept & has_sm & sg.low,
    kept & has_sm & act:gt(0) & tl.fires }
  local ids = w:const("")
  for i, r in ipairs(RULES) do
    local more = T.sprintf("%s, " .. r, ids):keep(ids:ne("")):fill(r)
    ids = more:keep(fire[i]):fill(ids)
  end
  local res = w:select({}):with("waves", tl.waves):with("tail_pct", tl.speedup_pct):with("findings", ids:keep(kept))
  return res, fire
end

-- The findings of one rule, each a group of the launches that fire it with
-- the same key (block size; grid and SMs; grid, SMs and active blocks), as
-- columns (group_by, order, index_of in C): launches, time_ns, created (the
-- first launch of the group's first shape, the order the groups are made
-- in), nk (kernels), who ("N launches: k1 (xn), k2, ... and M more": the
-- kernels in order of first launch, at most five), subject (the kernel when
-- only one), _gi; and the (group, kernel) pairs in that order (_gi, kn, n,
-- kfirst, and with want_ids each pair's launch rows in F).
local KEYS = { ["launch.block_size"] = { "_bs" }, ["launch.small_grid"] = { "_grid", "_sms" },
  ["launch.grid_below_2x_sms"] = { "_grid", "_sms" }, ["launch.tail_effect"] = { "_grid", "_sms", "_active" } }
local function rule_groups(w, mask, keys, want_ids)
  local F = w:filter(mask)
  local gb = F:group_by(keys)
  local G = gb:agg { { "launches", "count" }, { "created", "min", "_sf" }, { "time_ns", "sum", "duration_ns" } }
  G:with("_gi", G:rownum())
  F:with("_gi", gb:broadcast(G:select({ "_gi" })):col("_gi"))
  local spec = { { "n", "count" }, { "kfirst", "min", "_row" } }
  if want_ids then spec[#spec + 1] = { "rows", "ids" } end
  local P, lists = F:group_by({ "_gi", "kn" }):agg(spec)
  local po = P:order("_gi", "kfirst")
  P = P:take(po)
  local pg = P:group_by("_gi")
  local S = pg:agg { { "start", "first_row" }, { "nk", "count" } }
  P:with("pos", P:rownum() - pg:broadcast(S):col("start") + 1)
  local n = P:col("n")
  P:with("lab", T.sprintf("%s (x%d)", P:col("kn"), n):keep(n:gt(1)):fill(P:col("kn")))
  local gi = G:col("_gi")
  local nk = S:col("nk"):at(S:col("_gi"):index_of(gi))
  G:with("nk", nk)
  local list, first
  for p = 1, 5 do
    local Q = P:filter(P:col("pos"):eq(p))
    local at = Q:col("_gi"):index_of(gi)
    local lab = Q:col("lab"):at(at)
    if p == 1 then list, first = lab, Q:col("kn"):at(at)
    else list = T.sprintf("%s, %s", list, lab):keep(lab:present()):fill(list) end
  end
  local launches = G:col("launches")
  G:with("who", T.sprintf("%d launch%s: %s%s", launches, G:const(""):keep(launches:eq(1)):fill("es"),
    list, T.sprintf(", and %d more", nk - 5):keep(nk:gt(5)):fill("")))
  G:with("subject", first:keep(nk:eq(1)))
  local rows
  if want_ids then
    local frow = F:col("_row"):to_lua()
    rows = {}
    for j, pj in ipairs(po:to_lua()) do
      local r = {}
      for x, fr in ipairs(lists.rows[pj]) do r[x] = frow[fr] end
      rows[j] = r
    end
  end
  return G:take(G:order("created")), P, rows
end

-- the findings of every rule (report:finding_set), in the order their
-- groups are made; with a timeline, each finding becomes an item of the
-- weighting with its kernels' launch ids
local function add_findings(report, k, L, fire, th, p, items, want_ids, base)
  local w = L.w
  local kn = w:col("kernel")
  w:with("kn", kn:fill(T.sprintf("launch %d", w:rownum())))
  w:with("_row", w:rownum())
  w:with("_sf", L.w:group_by({ "_grid", "_bs", "_sms", "_active" })
    :broadcast(w:group_by({ "_grid", "_bs", "_sms", "_active" }):agg { { "_sf", "first_row" } }):col("_sf"))
  local ids = want_ids and k:has("id") and k:col("id"):to_lua() or nil
  local shown = { "launches" }
  if w:col("duration_ns"):count() > 0 then shown[2] = "time_ns" end
  for i, rule in ipairs(RULES) do
    if fire[i] and fire[i]:count_true() > 0 then
      local G, P, prow = rule_groups(w, fire[i], KEYS[rule], want_ids)
      local function kernels(r) return P:filter(P:col("_gi"):eq(r._gi)):col("kn"):to_lua() end
      local m, sp, sev, ev
      if rule == "launch.block_size" then
        local b = G:col("_bs")
        sev, sp = "warn", ncu.block_size_check_col(b).speedup_pct
        m = T.sprintf("block size %d is not a multiple of 32: the last warp of each block runs %d idle lanes (%s); 128-256 threads is a good start",
          b, -(b % 32) + 32, G:col("who"))
        ev = function(r)
          return { block_size = r._bs, launches = r.launches, kernels = kernels(r),
            formula = "speedup = (1/ceil(bs/32)) x (1 - (bs mod 32)/32) x 100" }
        end
      elseif rule == "launch.small_grid" then
        local g, s = G:col("_grid"), G:col("_sms")
        sev, sp = "warn", ncu.small_grid_col(g, s).speedup_pct
        m = T.sprintf("%d block%s on %d SMs: the grid leaves %d SMs idle (%s)", g,
          G:const(""):keep(g:eq(1)):fill("s"), s, s - g, G:col("who"))
        ev = function(r)
          return { grid_size = r._grid, sm_count = r._sms, launches = r.launches, kernels = kernels(r),
            formula = "speedup = (SMs - grid) / SMs x 100" }
        end
      elseif rule == "launch.grid_below_2x_sms" then
        sev = "info"
        m = T.sprintf("%d blocks on %d SMs is less than two blocks per SM: with __syncthreads() a second resident block hides the barrier stalls (%s)",
          G:col("_grid"), G:col("_sms"), G:col("who"))
        ev = function(r)
          return { grid_size = r._grid, sm_count = r._sms, launches = r.launches, kernels = kernels(r) }
        end
      else
        local tl = ncu.tail_col(G:col("_grid"), G:col("_sms"), G:col("_active"), th)
        sev, sp = "opt", tl.speedup_pct
        G:with("_waves", tl.waves):with("_whole", tl.whole):with("_partial", tl.partial_blocks)
        m = T.sprintf("%d blocks on %d SMs x %d active blocks = %.2f waves: the partial last wave (%d blocks) can take up to %s %% of the run (%s)",
          G:col("_grid"), G:col("_sms"), G:col("_active"), tl.waves, tl.partial_blocks,
          T.sprintf("%.1f", sp):map(function(v) return (v:gsub("%.0$", "")) end), G:col("who"))
        ev = function(r)
          return { grid_size = r._grid, sm_count = r._sms, active_blocks = r._active, waves = r._waves,
            whole_waves = r._whole, partial_blocks = r._partial, launches = r.launches,
            threshold_pct = th.tail_min_speedup, formula = "speedup = 100 / (whole waves + 1)" }
        end
      end
      G:with("_message", m)
      if sp then G:with("_speedup", sp) end
      -- group by group as made, then the rule's place (after the previous inputs')
      G:with("_order", G:col("created") * 4 + base + (i - 1))
      local fs = report:finding_set(G, { rule = rule, severity = sev, subject = "subject", message = "_message",
        order = "_order",
        speedup_pct = sp and "_speedup" or nil, evidence = ev, columns = shown, expand = want_ids })
      if fs then
        -- each finding's kernels with their launches' ids, in launch order
        local per_g = {}
        local pgi, pkn = P:col("_gi"):to_lua(), P:col("kn"):to_lua()
        for j = 1, #pgi do
          local rows, list = prow[j], {}
          table.sort(rows)
          for x, row in ipairs(rows) do list[x] = ids and ids[row] or (row - 1) end
          per_g[pgi[j]] = per_g[pgi[j]] or {}
          table.insert(per_g[pgi[j]], { pkn[j], list })
        end
        for j, gid in ipairs(G:col("_gi"):to_lua()) do
          items[#items + 1] = weighting.item(fs[j], p, nil, per_g[gid])
        end
      end
    end
  end
  return base + 4 * (w:nrows() + 1)
end

-- The launch table (COLS): each kept launch with its results and its join
-- keys (id = the input's id or the 0-based row; start and duration).
-- Sets w's kernel column (a launch without a name: missing) and returns
-- the table and whether a kept launch has no name ("launch N" in the table).
local function launch_table(k, L, res)
  local w, none = L.w, L.none
  local kernel = k:has("short_name") and k:col("short_name") or nil
  if k:has("name") then kernel = kernel and kernel:fill(k:col("name")) or k:col("name") end
  local nameless = kernel == nil or kernel:count { where = L.kept } < L.nkept
  w:with("kernel", kernel or none)
  w:with("grid_size", L.grid or none):with("block_size", L.bs or none):with("sm_count", L.sms)
  w:with("active_blocks", L.active)
  local wv = res and res:col("waves") or none * 1.0
  if k:has("waves_per_sm") then wv = res and wv:fill(k:col("waves_per_sm")) or k:col("waves_per_sm") end
  w:with("waves_per_sm", wv)
  w:with("tail_pct", res and res:col("tail_pct") or none * 1.0):with("findings", res and res:col("findings") or none)
  w:with("id", k:has("id") and k:col("id") or (w:order("_one") - 1))
  for _, c in ipairs({ "start_ns", "duration_ns" }) do w:with(c, k:has(c) and k:col(c) or none) end
  local t = w:select(COLS)
  if nameless then   -- a launch without a name is "launch N" (N its row)
    local kc = t:col("kernel")
    t:with("kernel", kc:fill(T.sprintf("launch %d", w:order("_one"):keep(~kc:present()))))
  end
  return t:filter(L.kept):select(COLS), nameless
end

--- launch: waves per SM per kernel, whole waves and the partial last wave.
local function figure(report, tname)
  tname = tname or "launch"
  local t = report.tables[tname]
  if not t or t:nrows() == 0 then return end
  -- one bar per distinct launch configuration, the first 25 in table order,
  -- with its launch count: grouped in the engine, only those rows in Lua
  local keys = {}
  for _, c in ipairs({ "kernel", "grid_size", "block_size", "sm_count", "active_blocks" }) do
    if t:has(c) then keys[#keys + 1] = c end
  end
  local firsts, counts
  if #keys > 0 then
    local g = t:group_by(keys):agg({ { "n", "count" }, { "first", "first_row" } }):head(25)
    firsts, counts = t:take(g:col("first")), g:col("n"):to_lua()
  else
    firsts, counts = t:head(1), { t:nrows() }
  end
  local rows = figures.rows_of(firsts, { "kernel", "grid_size", "block_size", "sm_count", "active_blocks",
      "waves_per_sm",
      "tail_pct" })
  for i, r in ipairs(rows) do r.n = counts[i] end
  local cats, whole, part, tw, tp = {}, {}, {}, {}, {}
  for _, r in ipairs(rows) do
    if r.waves_per_sm and r.waves_per_sm == r.waves_per_sm then
      local k = #cats + 1
      cats[k] = r.n > 1 and string.format("%s (×%d)", chart.short(figures.label(r.kernel), 32), r.n)
          or figures.label(r.kernel)
      local w = math.floor(r.waves_per_sm)
      whole[k], part[k] = w, r.waves_per_sm - w
      local desc = string.format("%s: grid %s blocks over %s SMs × %s blocks = %.3g waves", r.kernel,
          units.count(r.grid_size or 0),
        units.count(r.sm_count or 0), units.count(r.active_blocks or 0), r.waves_per_sm)
      tw[k] = desc .. string.format("; %d whole wave%s", w, w == 1 and "" or "s")
      tp[k] = desc .. string.format("; partial last wave %.0f %% full%s", 100 * (r.waves_per_sm - w),
        r.tail_pct and string.format(", tail estimate %s", figures.pct(r.tail_pct)) or "")
    end
  end
  if #cats == 0 then return end
  report:figure("launch_waves.svg", chart.bars {
    title = "Waves per SM", subtitle = "whole waves and the partial last wave (a tail that leaves SMs idle)",
    horizontal = true, stacked = true, categories = cats, value_label = "waves",
    series = { { name = "whole waves", values = whole, titles = tw },
        { name = "partial last wave", values = part, titles = tp } },
  }, { title = "waves and the partial last wave" })
end

local R
R = {
  name = "launch",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "launch configuration: block size multiple of 32, grid vs SM count, tail effect (ncu rules)",
  needs = { "kernels" },                       -- each report (or every input when none is one) ...
  timeline_needs = { "kernels|kernel_summary" },   -- ... and a timeline beside it
  -- all it reads (devices: perflab.gpu; runtime: perflab.graphs)
  tables = { "kernels", "kernel_summary", "rules", "devices", "runtime" },
  options = {
    gpu = { type = "string", default = "auto",
        help = "GPU model when the input does not say (perflab gpus lists them)" },
    tail_min = { type = "number", default = ncu.thresholds.tail_min_speedup,
                 help = "report a tail effect when 100/(whole waves + 1) is at least this" },
    timeline = weighting.option,
  },
  run = function(inputs, opts, report)
    local timelines
    inputs, timelines = weighting.inputs(inputs, opts, { recipe_def = R })
    local items = {}   -- every finding with its kernels and launches, for the weighting
    local base = 0   -- the order key of the next input's first finding (report:finding_set's order)
    local th = setmetatable({ tail_min_speedup = opts.tail_min }, { __index = ncu.thresholds })
    for idx, p in ipairs(inputs) do
      local ctx, err = device.context(p, opts)
      if not ctx then perflab.fail(err) end
      local k = p:table("kernels")
      local L = launch_columns(k, ctx, sms_from_rules(p))
      local res, fire = check_launches(L, th)
      local t = launch_table(k, L, res)
      report:table(#inputs > 1 and ("launch_" .. idx) or "launch", t,
        { title = string.format("%d launches (%s)", t:nrows(), p.source) })
      if L.nkept > 0 then base = add_findings(report, k, L, fire, th, p, items, #timelines > 0, base) end
      if #L.sources > 0 then report:note("SM count from " .. table.concat(L.sources, ", ")) end
      if ctx.vendor == "amd" then
        report:note("AMD GPU: SM count = compute units, blocks = workgroups; occupancy and tail need the CU resource model, which perflab does not have")
      end
      if (L.ncomm or 0) > 0 then
        report:note(string.format("%d communication launches (perflab.comm: nccl, rccl, ...) have no grid checks: a collective sizes its grid by its channels, not by work per block", L.ncomm))
      end
      local gn = graphs.kernel_mask(p)
      gn = gn:count { where = gn & L.kept }
      if gn > 0 then
        report:note(string.format("%d of the launches are graph nodes (replayed by a graph launch: perflab.graphs): their launch cost is the graph launch's, and a grid change means capturing the graph again", gn))
      end
      local skipped = k:nrows() - L.nkept - (L.ncomm or 0)
      if skipped > 0 then report:note(string.format("%d launches without grid or block size were skipped", skipped)) end
      if L.no_sm > 0 then
        report:note(string.format("%d launches: no SM count in the input; pass --gpu NAME (one of: %s)", L.no_sm,
            device.choices()))
      end
    end
    weighting.apply(report, items, timelines)
    figure(report)   -- waves and the partial last wave
  end,
}
return R

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

-- The rules, once per distinct (grid, block, SMs, active blocks) of the
-- kept launches.  Returns the shapes' results broadcast to the launches
-- (ri: the shape, waves, tail_pct, findings) or nil without kept launches,
-- the finding groups each shape adds to (by ri), and the finding groups in
-- order of creation (rule, fields, and room for their launches).
local function check_shapes(L, th)
  local groups, gorder, rgroups = {}, {}, {}
  if L.nkept == 0 then return nil, rgroups, gorder end
  local function add(rule, key, fields, gi)
    local gk = rule .. "|" .. key
    local g = groups[gk]
    if not g then
      g = { rule = rule, fields = fields, kernels = {}, korder = {}, ids = {}, launches = 0, parts = {} }
      groups[gk] = g; gorder[#gorder + 1] = g
    end
    gi[#gi + 1] = g
    return rule
  end
  local by = L.w:group_by({ "_grid", "_bs", "_sms", "_active" })
  local rows = {}
  for i, r in by:agg({ { "_n", "count", where = L.kept } }):rows() do
    local gi, ids = {}, {}
    rgroups[i] = gi
    rows[i] = { ri = i }
    if r._n > 0 then
      local g, b, sm, act = r._grid, r._bs, r._sms, r._active
      local bc = ncu.block_size_check(b)
      if bc then
        ids[#ids + 1] = add("launch.block_size", tostring(b), { block_size = b, speedup = bc.speedup_pct }, gi)
      end
      if sm then
        local sg = ncu.small_grid(g, sm)
        if sg and sg.severity == "high" then
          ids[#ids + 1] = add("launch.small_grid", g .. "|" .. sm, { grid = g, sms = sm, speedup = sg.speedup_pct }, gi)
        elseif sg then
          ids[#ids + 1] = add("launch.grid_below_2x_sms", g .. "|" .. sm, { grid = g, sms = sm }, gi)
        end
        if act and act > 0 then
          local t = ncu.tail(g, sm, act, th)
          rows[i].waves, rows[i].tail_pct = t.waves, t.speedup_pct
          if t.fires then
            ids[#ids + 1] = add("launch.tail_effect", string.format("%d|%d|%d", g, sm, act),
              { grid = g, sms = sm, active = act, t = t, speedup = t.speedup_pct }, gi)
          end
        end
      end
      rows[i].findings = table.concat(ids, ", ")
    end
  end
  return by:broadcast(T.from_rows(rows, { "ri", "waves", "tail_pct", "findings" }, "shapes")), rgroups, gorder
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

-- Each finding group's launches: per shape and kernel, its launches (count,
-- first row; the row lists only with need_ids); per finding group, its
-- kernels in order of first launch (korder), each with its count (kernels)
-- and its launches' ids in launch order (ids).
local function group_launches(k, L, rgroups, gorder, need_ids)
  local kept = L.kept
  local spec = { { "_n", "count", where = kept }, { "_first", "first_row", where = kept } }
  if need_ids then spec[#spec + 1] = { "_rows", "ids", where = kept } end
  local parts, lists = L.w:group_by("_ri", "kernel"):agg(spec)
  local function part(g, kn, cnt, first, rows)
    local pk = g.parts[kn]
    if not pk then
      pk = { first = first, n = 0, lists = {} }
      g.parts[kn] = pk; g.korder[#g.korder + 1] = kn
    elseif first < pk.first then pk.first = first end
    pk.n = pk.n + cnt
    pk.lists[#pk.lists + 1] = rows
  end
  for j, r in parts:rows() do
    if r._n > 0 then
      local rows = need_ids and lists._rows[j] or nil
      for _, g in ipairs(rgroups[r._ri]) do
        g.launches = g.launches + r._n
        if r.kernel then part(g, r.kernel, r._n, r._first, rows)
        else for _, row in ipairs(rows) do part(g, "launch " .. row, 1, row, { row }) end end
      end
    end
  end
  local ids = need_ids and k:has("id") and k:col("id"):to_lua() or nil
  for _, g in ipairs(gorder) do
    table.sort(g.korder, function(x, y) return g.parts[x].first < g.parts[y].first end)
    for _, kn in ipairs(g.korder) do
      local pk = g.parts[kn]
      g.kernels[kn] = pk.n
      local gi = {}
      if need_ids then
        local rows = pk.lists[1]
        if #pk.lists > 1 then   -- several shapes: their rows merged in launch order
          rows = {}
          for _, pr in ipairs(pk.lists) do table.move(pr, 1, #pr, #rows + 1, rows) end
          table.sort(rows)
        end
        for j, row in ipairs(rows) do gi[j] = ids and ids[row] or (row - 1) end
      end
      g.ids[kn] = gi
    end
    g.parts = nil
  end
end

-- the finding of one group: the rule's message, evidence and speedup
local function finding(report, g, th)
  local f = g.fields
  local list = {}
  for _, kn in ipairs(g.korder) do
    list[#list + 1] = g.kernels[kn] > 1 and string.format("%s (x%d)", kn, g.kernels[kn]) or kn
  end
  local who = string.format("%d launch%s: %s", g.launches, g.launches == 1 and "" or "es",
    table.concat(list, ", ", 1, math.min(#list, 5)) .. (#list > 5 and string.format(", and %d more", #list - 5) or ""))
  local subject = #g.korder == 1 and g.korder[1] or nil
  if g.rule == "launch.block_size" then
    return report:finding { severity = "warn", rule = g.rule, subject = subject,
      message = string.format("block size %d is not a multiple of 32: the last warp of each block runs %d idle lanes (%s); 128-256 threads is a good start",
        f.block_size, 32 - f.block_size % 32, who),
      evidence = { block_size = f.block_size, launches = g.launches, kernels = g.korder,
        formula = "speedup = (1/ceil(bs/32)) x (1 - (bs mod 32)/32) x 100" },
      speedup_pct = f.speedup }
  elseif g.rule == "launch.small_grid" then
    return report:finding { severity = "warn", rule = g.rule, subject = subject,
      message = string.format("%d block%s on %d SMs: the grid leaves %d SMs idle (%s)",
        f.grid, f.grid == 1 and "" or "s", f.sms, f.sms - f.grid, who),
      evidence = { grid_size = f.grid, sm_count = f.sms, launches = g.launches, kernels = g.korder,
        formula = "speedup = (SMs - grid) / SMs x 100" },
      speedup_pct = f.speedup }
  elseif g.rule == "launch.grid_below_2x_sms" then
    return report:finding { severity = "info", rule = g.rule, subject = subject,
      message = string.format("%d blocks on %d SMs is less than two blocks per SM: with __syncthreads() a second resident block hides the barrier stalls (%s)",
        f.grid, f.sms, who),
      evidence = { grid_size = f.grid, sm_count = f.sms, launches = g.launches, kernels = g.korder } }
  end
  local t = f.t   -- launch.tail_effect
  return report:finding { severity = "opt", rule = g.rule, subject = subject,
    message = string.format("%d blocks on %d SMs x %d active blocks = %.2f waves: the partial last wave (%d blocks) can take up to %s %% of the run (%s)",
      f.grid, f.sms, f.active, t.waves, t.partial_blocks, cuda.fmt_pct(t.speedup_pct), who),
    evidence = { grid_size = f.grid, sm_count = f.sms, active_blocks = f.active, waves = t.waves,
      whole_waves = t.whole, partial_blocks = t.partial_blocks, launches = g.launches,
      threshold_pct = th.tail_min_speedup, formula = "speedup = 100 / (whole waves + 1)" },
    speedup_pct = t.speedup_pct }
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
    local th = setmetatable({ tail_min_speedup = opts.tail_min }, { __index = ncu.thresholds })
    for idx, p in ipairs(inputs) do
      local ctx, err = device.context(p, opts)
      if not ctx then perflab.fail(err) end
      local k = p:table("kernels")
      local L = launch_columns(k, ctx, sms_from_rules(p))
      local res, rgroups, gorder = check_shapes(L, th)
      if res then L.w:with("_ri", res:col("ri")) end
      local t, nameless = launch_table(k, L, res)
      if L.nkept > 0 then group_launches(k, L, rgroups, gorder, #timelines > 0 or nameless) end
      report:table(#inputs > 1 and ("launch_" .. idx) or "launch", t,
        { title = string.format("%d launches (%s)", t:nrows(), p.source) })
      for _, g in ipairs(gorder) do
        local per = {}
        for j, kn in ipairs(g.korder) do per[j] = { kn, g.ids[kn] } end
        items[#items + 1] = weighting.item(finding(report, g, th), p, nil, per)
      end
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

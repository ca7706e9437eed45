--- perflab.weighting -- weight kernel-level findings (ncu rules, occupancy,
-- launch) by what each kernel costs in the real run.
--
-- Used by the recipes ncu-rules, occupancy and launch: M.inputs() splits
-- the inputs into kernel-level reports (ncu) and timelines (everything
-- else, plus --set timeline=FILE), the recipe collects one M.item() per
-- finding, and M.apply() adds the evidence, the order and the tables.
--
-- The join (documented in docs/gpu-recipes.md):
--   * the timeline is any profile with a `kernels` table (Kineto, nsys
--     trace, nvprof/rocprof traces) or, failing that, a `kernel_summary`
--     (nsys stats, kernel tables such as seed 000, nvprof/rocprof
--     summaries); its kernel time per name is sum(duration_ns) or total_ns;
--   * key: `short_name` (perflab's normalised name: no return type,
--     arguments or template noise, so the same kernel matches across tools,
--     including names a tool truncated with "...");
--   * when both the report's launch and the timeline's kernels carry a grid
--     and a block (x*y*z products), the key is (short name, grid, block):
--     a kernel launched with several configurations only gets the time of
--     the launches with the same configuration; if no launch of that name
--     has the same configuration, the join falls back to the name alone and
--     says so (match = "name only");
--   * a finding that covers only some of the report's launches of a kernel
--     (occupancy groups launches by configuration, so one kernel can have
--     several findings of one rule) gets that fraction of the kernel's time:
--     n of N profiled launches -> time x n / N (per configuration when the
--     join used grid and block), so the findings do not each claim it all;
--   * a finding about several kernels (launch groups by configuration: one
--     tail-effect finding for every kernel with that grid) gets the sum of
--     its kernels' times; the `kernel` column lists the matched ones;
--   * share = kernel time / total kernel time of the timeline x 100;
--     weighted speedup = share x speedup / 100 (percent of the whole GPU
--     time); saved time = kernel time x speedup / 100.
--   * kernels of the report with no timeline match, and the timeline's
--     biggest kernels that no report launch covers, are listed.
local T = require "perflab.table"
local roles = require "perflab.roles"

local M = {}

--- split(inputs) -> kernel-level reports (ncu), timelines (the rest)
function M.split(inputs) return roles.split(inputs) end

-- one copy of dim: perflab.device's (kept here under its old name)
local dim = require("perflab.device").dim
M.dim = dim

--- index(timelines) -> { total_ns, by_name = {short -> ns}, by_cfg = {key -> ns},
---   has_cfg = bool, names = {short -> full name} }
-- Kernel time per name and per (name, grid, block): the timeline grouped
-- by those columns in the table engine, the groups folded here.
local CFG = { "grid_size", "grid_x", "grid_y", "grid_z", "block_size", "block_x", "block_y", "block_z" }
function M.index(timelines)
  local ix = { total_ns = 0, by_name = {}, by_cfg = {}, has_cfg = false, names = {}, order = {} }
  for _, p in ipairs(timelines) do
    local t, dcol, cfg = p.tables.kernels, "duration_ns", true
    if not (t and t:nrows() > 0 and t:has("duration_ns")) then t, dcol, cfg = p.tables.kernel_summary, "total_ns",
        false end
    if t then
      local keys = {}
      for _, c in ipairs({ "short_name", "name" }) do if t:has(c) then keys[#keys + 1] = c end end
      if cfg then for _, c in ipairs(CFG) do if t:has(c) then keys[#keys + 1] = c end end end
      local aggs = { { "n", "count" } }
      if t:has(dcol) then aggs[2] = { "ns", "sum", dcol } end
      for _, r in t:group_by(keys):agg(aggs):rows() do
        local s = r.short_name or r.name
        local d = r.ns or 0
        if s then
          if not ix.by_name[s] then ix.by_name[s] = 0; ix.order[#ix.order + 1] = s; ix.names[s] = r.name end
          ix.by_name[s] = ix.by_name[s] + d
          ix.total_ns = ix.total_ns + d
          local g, b = dim(r, "grid_size", "grid"), dim(r, "block_size", "block")
          if cfg and g and b then
            ix.has_cfg = true
            local key = string.format("%s|%d|%d", s, g, b)
            ix.by_cfg[key] = (ix.by_cfg[key] or 0) + d
          end
        end
      end
    end
  end
  return ix
end

--- lookup(ix, short, grid, block) -> ns, how ("name, grid and block" |
--- "name only" | nil)
function M.lookup(ix, short, grid, block)
  if not short or not ix.by_name[short] then return nil, nil end
  if ix.has_cfg and grid and block then
    local v = ix.by_cfg[string.format("%s|%d|%d", short, grid, block)]
    if v then return v, "name, grid and block" end
    return ix.by_name[short], "name only (no launch with the same grid and block)"
  end
  return ix.by_name[short], "name"
end

--- The option every kernel recipe declares: `--set timeline=FILE`.
M.option = { type = "string", default = "",
  help = "a timeline of the same program (Kineto, nsys stats, kernel table) to weight findings by GPU time" }

--- inputs(inputs, opts, spec) -> reports, timelines.  The kernel-level
--- reports are the ncu inputs and every other input is a timeline; when no
--- input is an ncu report, all inputs are reports (a Kineto trace analysed
--- on its own) unless spec.ncu_only (ncu-rules), where that is an error.
--- opts.timeline (a file name) adds a timeline.  spec.need: a table every
--- report must have (the timelines need only `kernels` or
--- `kernel_summary`); spec.recipe names the recipe in errors.
function M.inputs(inputs, opts, spec)
  spec = spec or {}
  local perflab = { load = require("perflab.profile").load, fail = require("perflab.errors").fail }
  local reports, timelines = M.split(inputs)
  if #reports == 0 and not (spec.ncu_only or (spec.recipe_def and spec.recipe_def.ncu_only)) then
    reports, timelines = {}, {}
    for i, p in ipairs(inputs) do reports[i] = p end
  end
  if opts and opts.timeline and opts.timeline ~= "" then
    timelines[#timelines + 1] = perflab.load(opts.timeline)
  end
  if spec.recipe_def then
    -- the recipe's own declaration (needs, timeline_needs), as perflab run checked it
    roles.check_tables(spec.recipe_def, reports, spec.recipe_def.needs)
    roles.check_tables(spec.recipe_def, timelines, spec.recipe_def.timeline_needs or {}, "timeline ")
    return reports, timelines
  end
  if spec.need then
    for _, p in ipairs(reports) do
      if not p.tables[spec.need] then
        local hint = roles.export_hint(spec.need)
        perflab.fail(string.format("recipe '%s' needs a table %s, and %s (%s) has: %s%s", spec.recipe or "?",
          spec.need, p.source, p.format, table.concat(p:table_names(), ", "), hint and ("; " .. hint) or ""))
      end
    end
  end
  for _, p in ipairs(timelines) do
    if not (p.tables.kernels or p.tables.kernel_summary) then
      perflab.fail(string.format("timeline %s (%s) has no kernels or kernel_summary table (it has: %s)",
        p.source, p.format, table.concat(p:table_names(), ", ")))
    end
  end
  return reports, timelines
end

--- item(finding, profile, kernel, launch_ids) -> the record apply() takes
--- for a finding about one kernel; for a finding that covers several
--- kernels (launch's findings group by configuration), pass kernel = nil
--- and launch_ids = { {kernel, {ids...}}, ... }.
function M.item(finding, profile, kernel, launch_ids)
  if kernel then
    return { finding = finding, profile = profile, kernel = kernel, launch_ids = launch_ids }
  end
  local ks = {}
  for i, e in ipairs(launch_ids) do ks[i] = { kernel = e[1], launch_ids = e[2] } end
  return { finding = finding, profile = profile, kernels = ks }
end

-- per report profile: launch id -> {kernel, grid, block}; launches per
-- kernel and per (kernel, grid, block)
local function report_index(p)
  local c = { by_id = {}, n_name = {}, n_cfg = {} }
  local k = p.tables.kernels
  if not k then return c end
  for i, r in k:rows() do
    local id = r.id or (i - 1)
    local s = r.short_name or r.name or ("launch " .. id)
    local g, b = dim(r, "grid_size", "grid"), dim(r, "block_size", "block")
    c.by_id[id] = { s, g, b }
    c.n_name[s] = (c.n_name[s] or 0) + 1
    if g and b then
      local key = string.format("%s|%d|%d", s, g, b)
      c.n_cfg[key] = (c.n_cfg[key] or 0) + 1
    end
  end
  return c
end

-- kernel time for one kernel of an item: the timeline's time for the
-- kernel (per configuration when both sides have grid and block), times
-- the share of the report's launches of that kernel (or configuration) the
-- item covers -- so findings that split one kernel's launches (occupancy
-- groups them by configuration) do not each claim all of its time.
local function kernel_time(ix, rx, short, ids)
  if not short or not ix.by_name[short] then return nil end
  local n_item = #ids
  local n_rep = rx.n_name[short] or n_item
  if ix.has_cfg then
    local per, all_cfg, matched, total = {}, true, true, 0
    for _, id in ipairs(ids) do
      local l = rx.by_id[id]
      if l and l[2] and l[3] then
        local key = string.format("%s|%d|%d", short, l[2], l[3])
        per[key] = (per[key] or 0) + 1
      else all_cfg = false end
    end
    if all_cfg and next(per) then
      local keys = {}
      for key in pairs(per) do keys[#keys + 1] = key end
      table.sort(keys)                 -- the sum in a fixed order: the same bits every run
      for _, key in ipairs(keys) do
        local n = per[key]
        local v = ix.by_cfg[key]
        if not v then matched = false; break end
        total = total + v * n / (rx.n_cfg[key] or n)
      end
      if matched then
        local how = "name, grid and block"
        local n_rep_cfg = 0
        for key in pairs(per) do n_rep_cfg = n_rep_cfg + (rx.n_cfg[key] or 0) end
        if n_item < n_rep_cfg then how = string.format("%s (%d of %d profiled launches)", how, n_item, n_rep_cfg) end
        return total, how
      end
      local ns = ix.by_name[short] * n_item / n_rep
      local how = "name only (no launch with the same grid and block)"
      if n_item < n_rep then how = string.format("%s (%d of %d profiled launches)", how, n_item, n_rep) end
      return ns, how
    end
  end
  local how = "name"
  if n_item < n_rep then how = string.format("name (%d of %d profiled launches)", n_item, n_rep) end
  return ix.by_name[short] * n_item / n_rep, how
end

--- apply(report, items, timelines): items = { {finding=, kernel=, profile=,
--- launch_ids=} } (or M.item's multi-kernel form) as the kernel recipes
--- collect them.  Adds evidence (time_share_pct, kernel_time_ns, saved_ns,
--- weighted_speedup_pct, match, join) to each finding, reorders
--- report.findings by saved time, and adds the tables `weighted` and
--- `unmatched`.  No timelines: nothing to do.
function M.apply(report, items, timelines)
  if not timelines or #timelines == 0 then return end
  local ix = M.index(timelines)
  if ix.total_ns <= 0 then
    report:note("timeline given but it has no kernel durations: findings are not weighted")
    return
  end
  local rx_cache = {}
  local function rx_of(p)
    local c = rx_cache[p]
    if not c then c = report_index(p); rx_cache[p] = c end
    return c
  end
  local rows, unmatched, seen_unmatched, covered = {}, {}, {}, {}
  for _, it in ipairs(items) do
    local f = it.finding
    local ks = it.kernels or { { kernel = it.kernel, launch_ids = it.launch_ids } }
    local rx = rx_of(it.profile)
    local ns, hows, names, seen_how = nil, {}, {}, {}
    for _, e in ipairs(ks) do
      local t, how = kernel_time(ix, rx, e.kernel, e.launch_ids or {})
      if t then
        covered[e.kernel] = true
        ns = (ns or 0) + t
        names[#names + 1] = e.kernel
        if not seen_how[how] then seen_how[how] = true; hows[#hows + 1] = how end
      elseif e.kernel and not seen_unmatched[e.kernel] then
        seen_unmatched[e.kernel] = true
        unmatched[#unmatched + 1] = { side = "report", kernel = e.kernel,
          reason = "no kernel with this short name in the timeline" }
      end
    end
    if ns then
      local how = table.concat(hows, "; ")
      if #names < #ks then how = string.format("%s (%d of %d kernels matched)", how, #names, #ks) end
      local share = 100 * ns / ix.total_ns
      local sp = f.speedup_pct or 0
      f.evidence = f.evidence or {}
      f.evidence.time_share_pct = math.floor(share * 100 + 0.5) / 100
      f.evidence.kernel_time_ns = ns
      f.evidence.saved_ns = ns * sp / 100
      f.evidence.weighted_speedup_pct = share * sp / 100
      f.evidence.join = how
      f.evidence.match = how
      f.saved_ns = ns * sp / 100
      rows[#rows + 1] = { rule = f.rule, kernel = table.concat(names, ", "), speedup_pct = f.speedup_pct,
        time_share_pct = f.evidence.time_share_pct, weighted_speedup_pct = share * sp / 100,
        saved_ns = ns * sp / 100, join = how }
    end
  end
  local pos = {}
  for i, r in ipairs(rows) do pos[r] = i end    -- ties in input order (table.sort is not stable)
  table.sort(rows, function(a, b)
    if (a.saved_ns or 0) ~= (b.saved_ns or 0) then return (a.saved_ns or 0) > (b.saved_ns or 0) end
    return pos[a] < pos[b]
  end)
  for i, r in ipairs(rows) do r.rank = i end
  -- findings: weighted ones by saved time first, the rest after (stable)
  local idx = {}
  for i, f in ipairs(report.findings) do idx[i] = { i = i, f = f } end
  table.sort(idx, function(a, b)
    local sa, sb = a.f.saved_ns, b.f.saved_ns
    if sa and sb and sa ~= sb then return sa > sb end
    if (sa ~= nil) ~= (sb ~= nil) then return sa ~= nil end
    return a.i < b.i
  end)
  for i, e in ipairs(idx) do report.findings[i] = e.f; e.f.saved_ns = nil end
  report.weighted_order = true
  -- the timeline's kernels no finding covers, biggest first (top 10)
  local rest = {}
  for _, s in ipairs(ix.order) do
    if not covered[s] then rest[#rest + 1] = { s, ix.by_name[s] } end
  end
  for i, r in ipairs(rest) do r[3] = i end
  table.sort(rest, function(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return a[3] < b[3] end)
  for i = 1, math.min(10, #rest) do
    unmatched[#unmatched + 1] = { side = "timeline", kernel = rest[i][1],
      time_share_pct = math.floor(10000 * rest[i][2] / ix.total_ns + 0.5) / 100,
      reason = "no finding in the report for this kernel (not profiled, or nothing fired)" }
  end
  report:table("weighted", T.from_rows(rows, { "rank", "rule", "kernel", "speedup_pct", "time_share_pct",
    "weighted_speedup_pct", "saved_ns", "join" }),
    { title = string.format("findings weighted by the timeline's GPU time (%.3f ms of kernels)", ix.total_ns / 1e6),
      note = "weighted_speedup_pct = time share x speedup / 100 (percent of all kernel time); saved_ns = kernel time x speedup / 100." })
  report:table("unmatched", T.from_rows(unmatched, { "side", "kernel", "time_share_pct", "reason" }),
    { title = "kernels the join could not pair" })
end

--- per_launch(by_shape, res, cols, k) -> one row per launch of the kernels
-- table k: by_shape is k:group_by(the shape columns), res one result row
-- per shape (in the grouping's order) with the columns of cols and `kept`;
-- the columns id (the input's id, else the 0-based row), start_ns and
-- duration_ns in cols are each launch's own join keys, taken from k.
-- (occupancy and launch: the checks run once per shape, the table is per
-- launch.)
local KEYS = { id = true, start_ns = true, duration_ns = true }
function M.per_launch(by_shape, res, cols, k)
  local rcols = {}
  for _, c in ipairs(cols) do if not KEYS[c] then rcols[#rcols + 1] = c end end
  rcols[#rcols + 1] = "kept"
  local t = by_shape:broadcast(T.from_rows(res, rcols, "shapes"))
  if k:has("id") then t:with("id", k:col("id"))
  else
    local rn = {}   -- the 0-based row numbers, an array: no callback per row
    for i = 1, k:nrows() do rn[i] = i - 1 end
    t:with("id", rn)
  end
  for _, c in ipairs({ "start_ns", "duration_ns" }) do
    if k:has(c) then t:with(c, k:col(c)) else t:add_column(c, function() return nil end, "integer") end
  end
  return t
end

return M

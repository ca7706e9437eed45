--- perflab.weighting -- weight kernel-level findings (ncu rules, occupancy,
-- launch) by what each kernel costs in the real run.
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
--   * share = kernel time / total kernel time of the timeline x 100;
--     weighted speedup = share x speedup / 100 (percent of the whole GPU
--     time); saved time = kernel time x speedup / 100.
--   * kernels of the report with no timeline match, and the timeline's
--     biggest kernels that no report launch covers, are listed.
local T = require "perflab.table"

local M = {}

local NCU = { ["ncu-text"] = true, ["ncu-csv"] = true }

--- split(inputs) -> kernel-level reports (ncu), timelines (the rest)
function M.split(inputs)
  local reports, timelines = {}, {}
  for _, p in ipairs(inputs) do
    if NCU[p.format] then reports[#reports + 1] = p else timelines[#timelines + 1] = p end
  end
  return reports, timelines
end

local function dim(r, scalar, prefix)
  if r[scalar] then return r[scalar] end
  local x = r[prefix .. "_x"]
  if not x then return nil end
  return x * (r[prefix .. "_y"] or 1) * (r[prefix .. "_z"] or 1)
end
M.dim = dim

--- index(timelines) -> { total_ns, by_name = {short -> ns}, by_cfg = {key -> ns},
---   has_cfg = bool, names = {short -> full name} }
function M.index(timelines)
  local ix = { total_ns = 0, by_name = {}, by_cfg = {}, has_cfg = false, names = {}, order = {} }
  for _, p in ipairs(timelines) do
    local k = p.tables.kernels
    if k and k:nrows() > 0 and k:has("duration_ns") then
      for _, r in k:rows() do
        local s = r.short_name or r.name
        local d = r.duration_ns or 0
        if s then
          if not ix.by_name[s] then ix.by_name[s] = 0; ix.order[#ix.order + 1] = s; ix.names[s] = r.name end
          ix.by_name[s] = ix.by_name[s] + d
          ix.total_ns = ix.total_ns + d
          local g, b = dim(r, "grid_size", "grid"), dim(r, "block_size", "block")
          if g and b then
            ix.has_cfg = true
            local key = string.format("%s|%d|%d", s, g, b)
            ix.by_cfg[key] = (ix.by_cfg[key] or 0) + d
          end
        end
      end
    else
      local ks = p.tables.kernel_summary
      if ks then
        for _, r in ks:rows() do
          local s = r.short_name or r.name
          local d = r.total_ns or 0
          if s then
            if not ix.by_name[s] then ix.by_name[s] = 0; ix.order[#ix.order + 1] = s; ix.names[s] = r.name end
            ix.by_name[s] = ix.by_name[s] + d
            ix.total_ns = ix.total_ns + d
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

--- apply(report, items, timelines): items = { {finding=, kernel=, profile=,
--- launch_ids=} } as the kernel recipes collect them.  Adds evidence
--- (time_share_pct, saved_ns, weighted_speedup_pct, join) to each finding,
--- reorders report.findings by saved time, and adds the tables `weighted`
--- and `unmatched`.
function M.apply(report, items, timelines)
  local ix = M.index(timelines)
  if ix.total_ns <= 0 then
    report:note("timeline given but it has no kernel durations: findings are not weighted")
    return
  end
  -- grid/block per (profile, launch id) for the join
  local cfg_cache = {}
  local function launch_cfg(p, id)
    local c = cfg_cache[p]
    if not c then
      c = {}
      for i, r in p.tables.kernels:rows() do
        c[r.id or (i - 1)] = { dim(r, "grid_size", "grid"), dim(r, "block_size", "block") }
      end
      cfg_cache[p] = c
    end
    return c[id] or {}
  end
  local rows, unmatched, seen_unmatched, covered = {}, {}, {}, {}
  for _, it in ipairs(items) do
    local f = it.finding
    local cfg = launch_cfg(it.profile, it.launch_ids[1])
    local ns, how = M.lookup(ix, it.kernel, cfg[1], cfg[2])
    if ns then
      covered[it.kernel] = true
      local share = 100 * ns / ix.total_ns
      local sp = f.speedup_pct or 0
      f.evidence.time_share_pct = math.floor(share * 100 + 0.5) / 100
      f.evidence.kernel_time_ns = ns
      f.evidence.saved_ns = ns * sp / 100
      f.evidence.weighted_speedup_pct = share * sp / 100
      f.evidence.join = how
      f.saved_ns = ns * sp / 100
      rows[#rows + 1] = { rule = f.rule, kernel = it.kernel, speedup_pct = f.speedup_pct,
        time_share_pct = f.evidence.time_share_pct, weighted_speedup_pct = share * sp / 100,
        saved_ns = ns * sp / 100, join = how }
    elseif not seen_unmatched[it.kernel] then
      seen_unmatched[it.kernel] = true
      unmatched[#unmatched + 1] = { side = "report", kernel = it.kernel,
        reason = "no kernel with this short name in the timeline" }
    end
  end
  table.sort(rows, function(a, b) return (a.saved_ns or 0) > (b.saved_ns or 0) end)
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
  table.sort(rest, function(a, b) return a[2] > b[2] end)
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

return M

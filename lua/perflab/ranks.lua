--- perflab.ranks: the profiles of one multi-rank job, in rank order.
--
--   ranks.assign(profiles [, opts]) -> sorted, notes
--     Each profile's rank is what its file says (Kineto distributedInfo.rank,
--     kept as p.rank by perflab.load), else its position in the list
--     (0-based).  World size: what the files say, else the number of files
--     or the highest rank + 1, whichever is larger.
--     Raises a clear error (exit 2) when two files claim the same rank or
--     the files disagree on the world size (ranks of different jobs);
--     returns the profiles sorted by rank and notes: ranks taken from file
--     order, and ranks missing from 0 .. world size - 1.
--     opts.allow_mixed = true lets files of different world sizes through
--     (per-rank recipes that do not compare ranks).
local errors = require "perflab.errors"

local M = {}

function M.assign(profiles, opts)
  opts = opts or {}
  local notes = {}
  local from_order = {}
  for i, p in ipairs(profiles) do
    if math.type(p.rank) ~= "integer" or p.rank_from == "order" then
      p.rank = i - 1
      from_order[#from_order + 1] = p.source
    end
  end
  if #from_order > 0 then
    notes[#notes + 1] = string.format("%d file(s) carry no rank (distributedInfo): ranked by their order on the command line: %s",
      #from_order, table.concat(from_order, ", "))
  end
  -- the world size the files agree on
  local world, world_src
  for _, p in ipairs(profiles) do
    if math.type(p.world_size) == "integer" then
      if world and world ~= p.world_size and not opts.allow_mixed then
        errors.fail(string.format("ranks of different jobs: %s says world size %d, %s says %d",
          world_src, world, p.source, p.world_size), 2)
      end
      world, world_src = world or p.world_size, world_src or p.source
    end
  end
  if not world then
    -- no file says: at least as many ranks as files, and as the highest rank
    world = #profiles
    for _, p in ipairs(profiles) do if p.rank + 1 > world then world = p.rank + 1 end end
  end
  local by_rank = {}
  for _, p in ipairs(profiles) do
    local q = by_rank[p.rank]
    if q then
      errors.fail(string.format("%s and %s both are rank %d (several runs of one rank, or ranks of different jobs)",
        q.source, p.source, p.rank), 2)
    end
    by_rank[p.rank] = p
    if not opts.allow_mixed and (p.rank < 0 or p.rank >= world) then
      errors.fail(string.format("%s: rank %d outside the world size %d", p.source, p.rank, world), 2)
    end
  end
  for _, p in ipairs(profiles) do p.world_size = world end
  local sorted = {}
  for i, p in ipairs(profiles) do sorted[i] = p end
  table.sort(sorted, function(a, b) return a.rank < b.rank end)
  local missing = {}
  local hi = world - 1
  for r = 0, hi do
    if not by_rank[r] then missing[#missing + 1] = r end
  end
  if #missing > 0 then
    local shown = {}
    for i = 1, math.min(#missing, 16) do shown[i] = tostring(missing[i]) end
    notes[#notes + 1] = string.format("%d of %d ranks present; missing rank(s) %s%s: figures cover the ranks present only",
      #profiles, world, table.concat(shown, ", "), #missing > 16 and string.format(" and %d more", #missing - 16) or "")
  end
  return sorted, notes
end

--- ranks.of_job(inputs) -> true when two or more inputs each carry a rank
-- of their own (distributedInfo) and no two the same: the per-input
-- recipes (top-kernels, idle-time, launch-latency, step-breakdown) then
-- report per rank, in a leading `rank` column.
function M.of_job(inputs)
  if #inputs < 2 then return false end
  local seen = {}
  for _, p in ipairs(inputs) do
    if math.type(p.rank) ~= "integer" or p.rank_from == "order" or seen[p.rank] then return false end
    seen[p.rank] = true
  end
  return true
end

--- ranks.columns(per_rank, cols) -> cols with "rank" in front when per_rank.
function M.columns(per_rank, cols)
  if not per_rank then return cols end
  local out = { "rank" }
  for _, c in ipairs(cols) do out[#out + 1] = c end
  return out
end

--- ranks.tag(per_rank, rank, list, from): sets .rank on list[from+1 ..].
function M.tag(per_rank, rank, list, from)
  if not per_rank then return end
  for i = from + 1, #list do list[i].rank = rank end
end

--- ranks.split(profiles) -> profiles: each profile whose kernels come from
-- several processes (an nsys export of a multi-process job: kernels.pid)
-- becomes one profile per such process, in pid order; a process's rank is
-- its MPI rank (the mpi_ranks table) when the export has one, else its
-- position among the processes (p.rank_from = "mpi" or "process").  Every
-- table with a pid column keeps that process's rows; the others are
-- shared.  Profiles of one process pass through unchanged.  Raises when
-- two processes of one export claim the same MPI rank.
function M.split(profiles)
  local out, base = {}, 0
  for _, p in ipairs(profiles) do
    local kt = p.tables and p.tables.kernels
    local pids = {}
    if kt and kt:has("pid") then
      for _, v in ipairs(kt:unique("pid")) do if math.type(v) == "integer" then pids[#pids + 1] = v end end
    end
    if #pids < 2 then
      out[#out + 1] = p
    else
      table.sort(pids)
      local mpi = {}
      local mt = p.tables.mpi_ranks
      if mt and mt:has("pid") and mt:has("rank") then
        local mp, mr = mt:col("pid"):to_lua(), mt:col("rank"):to_lua()
        for i = 1, #mp do if mp[i] and mr[i] and mpi[mp[i]] == nil then mpi[mp[i]] = mr[i] end end
      end
      local all_mpi = true
      for _, pid in ipairs(pids) do if mpi[pid] == nil then all_mpi = false end end
      local seen = {}
      for i, pid in ipairs(pids) do
        local q = setmetatable({}, getmetatable(p))
        for k, v in pairs(p) do q[k] = v end
        q.tables = {}
        for name, t in pairs(p.tables) do
          if t:has("pid") then
            local f = t:where { pid = pid }
            f:freeze()
            q.tables[name] = f
          else
            q.tables[name] = t
          end
        end
        q.source = string.format("%s (pid %d)", p.source, pid)
        q.pid = pid
        if all_mpi then
          q.rank, q.rank_from = mpi[pid], "mpi"
          if seen[q.rank] then
            errors.fail(string.format("%s: processes %d and %d both are MPI rank %d", p.source, seen[q.rank], pid,
                q.rank), 2)
          end
          seen[q.rank] = pid
        else
          q.rank, q.rank_from = base + i - 1, "process"
        end
        q.world_size = nil
        out[#out + 1] = q
      end
      if not all_mpi then base = base + #pids end
    end
  end
  return out
end

return M

--- perflab.profile: what loading one file gives you.
--   p.format       format id ("kernel-table", "ncu-text", ...)
--   p.source       the file it came from
--   p.meta         {tool=, version=, device=, cc=, sm_count=, ...} when visible
--   p.tables       name -> perflab table
--   p.diagnostics  {{line=, message=}, ...}: what the parser skipped
--   p:table(name)  the table, or an error naming the tables there are
--   p:has(name)    true when the profile has that table
--   p:table_names() names in the order the parser made them
--   p.rank, p.world_size  the rank of a multi-rank job and its size, when
--                  the file says (Kineto distributedInfo); load_many fills
--                  them in by file order otherwise (p.rank_from = "order",
--                  else "trace")
local formats = require "perflab.formats"
local errors = require "perflab.errors"

local Profile = {}
Profile.__index = Profile
Profile.__name = "perflab.Profile"

local function wrap(rec, opts)
  rec.table_order = rec.table_order or {}
  if opts and opts.tables then
    -- only some tables were asked for; derived ones came with their sources
    rec.partial = true
  end
  local meta = rec.meta or {}
  if math.type(meta.rank) == "integer" then rec.rank = meta.rank end
  if math.type(meta.world_size) == "integer" then rec.world_size = meta.world_size end
  rec = require("perflab.derive").apply(setmetatable(rec, Profile))
  -- a profile's tables stay as loaded: add_column/with/drop/rename on them
  -- work on a copy (docs/table-api.md, "Stable tables")
  for _, t in pairs(rec.tables) do t:freeze() end
  return rec
end

-- The load options (strict: perflab.options names a misspelt key).
local LOAD_OPTS = { "format", "lenient", "raw_text", "tables", "jobs", "chunk_bytes" }
local check = require("perflab.options").check

-- opts with the sources of derived tables added to opts.tables; where is
-- the function the user called, for the error on an unknown key
local function load_opts(opts, where)
  check(opts, LOAD_OPTS, where, 4)
  if not (opts and opts.tables) then return opts end
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.tables = require("perflab.derive").expand(opts.tables)
  return o
end

function Profile:table_names()
  local names = {}
  for _, n in ipairs(self.table_order or {}) do
    if self.tables[n] then names[#names + 1] = n end
  end
  local rest = {}
  for n in pairs(self.tables) do
    local seen = false
    for _, m in ipairs(names) do if m == n then seen = true end end
    if not seen then rest[#rest + 1] = n end
  end
  table.sort(rest)                     -- the tables no order names: by name, not pairs'
  for _, n in ipairs(rest) do names[#names + 1] = n end
  return names
end

function Profile:has(name) return self.tables[name] ~= nil end

function Profile:table(name)
  local t = self.tables[name]
  if t then return t end
  errors.fail(string.format("%s (%s) has no table '%s' (it has: %s)", self.source, self.format,
    name, #self:table_names() > 0 and table.concat(self:table_names(), ", ") or "none"))
end

--- The first of several table names that the profile has, or nil.
function Profile:first(...)
  for _, n in ipairs({ ... }) do if self.tables[n] then return self.tables[n], n end end
  return nil
end

function Profile:summary()
  local lines = { string.format("%s: %s", self.source, self.format) }
  local keys = {}
  for k in pairs(self.meta or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do lines[#lines + 1] = string.format("  meta %-14s %s", k, tostring(self.meta[k])) end
  for _, n in ipairs(self:table_names()) do
    local t = self.tables[n]
    lines[#lines + 1] = string.format("  table %-20s %8d rows  %3d columns", n, t:nrows(), #t:columns())
  end
  if #self.diagnostics > 0 then
    lines[#lines + 1] = string.format("  %d diagnostics (what was skipped)", #self.diagnostics)
  end
  return table.concat(lines, "\n")
end
Profile.__tostring = Profile.summary

local M = { Profile = Profile }

--- load(path [, {format=, tables={...}, lenient=, raw_text=}]) -> profile;
-- raises a user-facing error (exit 2) naming FILE:LINE:COLUMN on bad input.
-- raw_text = true keeps the printed text of numbers in ncu's metrics.raw too
-- (by default only text values are kept there: numbers are in value).
function M.load(path, opts)
  local rec, err = formats.load(path, load_opts(opts, "perflab.load"))
  if not rec then errors.fail(err, 2) end
  return wrap(rec, opts)
end

--- Like load but returns nil, message instead of raising.
function M.try_load(path, opts)
  local rec, err = formats.load(path, load_opts(opts, "perflab.try_load"))
  if not rec then return nil, err end
  return wrap(rec, opts)
end

--- load_many(paths [, opts]) -> {profile...} in the order of paths: the
-- files are parsed on opts.jobs threads (default: the core count), each
-- handed to Lua when its parse ends; raises naming the first file (in
-- order) that failed.  Ranks: see perflab.ranks.assign.
function M.load_many(paths, opts)
  local jobs = opts and opts.jobs
  if jobs ~= nil and (math.type(jobs) ~= "integer" or jobs < 1) then
    errors.fail(string.format("jobs must be a whole number >= 1, got %s", tostring(jobs)), 2)
  end
  local lo                             -- the load options: opts less jobs, checked as perflab.load's
  if opts then lo = {}; for k, v in pairs(opts) do if k ~= "jobs" then lo[k] = v end end end
  local recs, err = formats.load_many(paths, load_opts(lo, "perflab.load_many"), jobs or 0)
  if not recs then errors.fail(err, 2) end
  local out = {}
  local any_world = false
  for i, rec in ipairs(recs) do
    out[i] = wrap(rec, opts)
    if out[i].world_size then any_world = true end
  end
  -- every profile knows its rank: from the trace, else its position
  for i, p in ipairs(out) do
    if p.rank == nil then p.rank, p.rank_from = i - 1, "order" else p.rank_from = "trace" end
    if not any_world then p.world_size = #out end
  end
  return out
end

--- parse(name, text [, opts]) -> profile (text already in memory)
function M.parse(name, text, opts)
  local rec, err = formats.parse(name, text, load_opts(opts, "perflab.parse"))
  if not rec then errors.fail(err, 2) end
  return wrap(rec, opts)
end

function M.is_profile(v) return getmetatable(v) == Profile end

return M

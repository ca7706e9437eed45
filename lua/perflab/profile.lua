--- perflab.profile: what loading one file gives you.
--   p.format       format id ("kernel-table", "ncu-text", ...)
--   p.source       the file it came from
--   p.meta         {tool=, version=, device=, cc=, sm_count=, ...} when visible
--   p.tables       name -> perflab table
--   p.diagnostics  {{line=, message=}, ...}: what the parser skipped
--   p:table(name)  the table, or an error naming the tables there are
--   p:has(name)    true when the profile has that table
--   p:table_names() names in the order the parser made them
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
  rec = require("perflab.derive").apply(setmetatable(rec, Profile))
  -- a profile's tables stay as loaded: add_column/with/drop/rename on them
  -- work on a copy (docs/table.md, "Stable tables")
  for _, t in pairs(rec.tables) do t:freeze() end
  return rec
end

-- opts with the sources of derived tables added to opts.tables
local function load_opts(opts)
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
  for n in pairs(self.tables) do
    local seen = false
    for _, m in ipairs(names) do if m == n then seen = true end end
    if not seen then names[#names + 1] = n end
  end
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
  local rec, err = formats.load(path, load_opts(opts))
  if not rec then errors.fail(err, 2) end
  return wrap(rec, opts)
end

--- Like load but returns nil, message instead of raising.
function M.try_load(path, opts)
  local rec, err = formats.load(path, load_opts(opts))
  if not rec then return nil, err end
  return wrap(rec, opts)
end

--- parse(name, text [, opts]) -> profile (text already in memory)
function M.parse(name, text, opts)
  local rec, err = formats.parse(name, text, load_opts(opts))
  if not rec then errors.fail(err, 2) end
  return wrap(rec, opts)
end

function M.is_profile(v) return getmetatable(v) == Profile end

return M

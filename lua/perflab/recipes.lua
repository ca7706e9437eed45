--- perflab.recipes: finding, loading and running recipes.
--
-- A recipe is a Lua file returning
--   { name, summary, needs = {"kernels|kernel_summary", ...},
--     tables = {"kernels", "kernel_summary", ...},          (optional)
--     options = { key = { help =, default =, type = "number"|"integer"|"string"|"boolean",
--                         min =, max =, choices = {...} } },      (min, max: numbers; all but help optional)
--     run = function(inputs, opts, report) ... end,
--     figure = function(report, ...) ... end }                 (optional)
-- `figure` draws the recipe's figures from the tables its run put in the
-- report (run calls it; a script or test may call it on its own report).
-- `needs` entries name tables every input must have; "a|b" means either;
-- "a.col" is table a with a column col (kernels.start_ns: a timeline, not a
-- per-kernel summary without start times).
-- `timeline_needs` (optional; the kernel recipes weighted by a timeline):
-- then `needs` is what each analysed input (an Nsight Compute report, or
-- every input when none is one) must have, and `timeline_needs` what the
-- other inputs, timelines of the same program, must have.  `perflab run`
-- checks, the recipe's --help says and perflab.weighting splits the inputs
-- by this one declaration.
-- `tables`, when given, lists every table the recipe reads from its inputs
-- (each of `needs` included): `perflab run` then has the parsers build only
-- those, which on a large file saves most of the time and memory.  A recipe
-- without it gets every table.
-- Recipes run in their own environment: reading or assigning an undeclared
-- global is an error, so a typo cannot leak state between recipes.
--
-- Search path, first match wins:
--   1. ./recipes                         (the project you are in)
--   2. $XDG_CONFIG_HOME/perflab/recipes  (default ~/.config/perflab/recipes)
--   3. each directory of $PERFLAB_PATH   (colon-separated)
--   4. the bundled recipes               (embedded in the binary, or
--                                          $PERFLAB_LUA_DIR/../recipes)
local sys = require "perflab.sys"
local load = load   -- Lua's load, whatever a session later puts in the global
local errors = require "perflab.errors"
local report_mod = require "perflab.report"
local roles = require "perflab.roles"

local M = {}
-- Lua's own load, kept before the REPL installs its load(path) helper
local lua_load = load

local function config_dir()
  local xdg = os.getenv("XDG_CONFIG_HOME")
  if xdg and xdg ~= "" then return xdg .. "/perflab" end
  local home = os.getenv("HOME")
  return home and (home .. "/.config/perflab") or nil
end
M.config_dir = config_dir

--- The directories searched, in order: {{dir=, origin=}...}
function M.search_path()
  local path = { { dir = "./recipes", origin = "project (./recipes)" } }
  local cfg = config_dir()
  if cfg then path[#path + 1] = { dir = cfg .. "/recipes", origin = "user (" .. cfg .. "/recipes)" } end
  for dir in (os.getenv("PERFLAB_PATH") or ""):gmatch("[^:]+") do
    path[#path + 1] = { dir = dir, origin = "PERFLAB_PATH (" .. dir .. ")" }
  end
  if sys.lua_dir then
    path[#path + 1] = { dir = sys.lua_dir .. "/../recipes", origin = "bundled (" .. sys.lua_dir .. "/../recipes)" }
  end
  path[#path + 1] = { embedded = true, origin = "bundled" }
  return path
end

local function read_file(p)
  local f = io.open(p, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

--- Finds a recipe by name: returns source text, chunk name, origin.
local function find(name)
  if name:find("/", 1, true) or name:match("%.lua$") then
    local src = read_file(name)
    if src then return src, "@" .. name, "file" end
    errors.fail(string.format("cannot read recipe file '%s'", name))
  end
  for _, e in ipairs(M.search_path()) do
    if e.embedded then
      local src = sys.embedded("recipes/" .. name .. ".lua")
      if src then return src, "@recipes/" .. name .. ".lua", e.origin end
    else
      local p = e.dir .. "/" .. name .. ".lua"
      local src = read_file(p)
      if src then return src, "@" .. p, e.origin end
    end
  end
  return nil
end

--- A strict environment for a recipe: reads fall back to the standard
-- globals; unknown names and assignments raise.
local function recipe_env(name)
  local env = {}
  return setmetatable(env, {
    __index = function(_, k)
      local v = _G[k]
      if v == nil then error(string.format("recipe '%s': undeclared global '%s' (declare it local)", name,
          tostring(k)), 2) end
      return v
    end,
    __newindex = function(_, k)
      error(string.format("recipe '%s': assignment to undeclared global '%s' (declare it local)", name, tostring(k)), 2)
    end,
  })
end

local cache = {}

--- load(name) -> recipe table (validated), with .origin and .chunk set.
function M.load(name)
  if type(name) == "table" then return M.validate(name, "(table)") end
  if cache[name] then return cache[name] end
  local src, chunk, origin = find(name)
  if not src then
    local names = {}
    for _, r in ipairs(M.list()) do names[#names + 1] = r.name end
    errors.fail(string.format("unknown recipe '%s' (available: %s)", name, table.concat(names, ", ")))
  end
  local fn, err = lua_load(src, chunk, "t", recipe_env(name))
  if not fn then error(err, 0) end
  local r = fn()
  M.validate(r, chunk:sub(2))
  r.origin = origin
  r.chunk = chunk:sub(2)
  cache[name] = r
  return r
end

-- the input roles and the tables they need (perflab.roles, shared with
-- perflab.weighting)
local need_parts, need_text = roles.need_parts, roles.need_text
M.export_hint = roles.export_hint

function M.validate(r, where)
  if type(r) ~= "table" then error(where .. ": a recipe must return a table", 0) end
  for _, k in ipairs({ "name", "summary" }) do
    if type(r[k]) ~= "string" then error(string.format("%s: recipe field '%s' must be a string", where, k), 0) end
  end
  if type(r.run) ~= "function" then error(where .. ": recipe field 'run' must be a function", 0) end
  if r.figure ~= nil and type(r.figure) ~= "function" then
    error(where .. ": recipe field 'figure' must be a function", 0)
  end
  r.needs = r.needs or {}
  r.options = r.options or {}
  if r.tables ~= nil then
    if type(r.tables) ~= "table" or #r.tables == 0 then
      error(where .. ": recipe field 'tables' must be a list of table names", 0)
    end
    local has = {}
    for _, n in ipairs(r.tables) do
      if type(n) ~= "string" then error(where .. ": recipe field 'tables' must be a list of table names", 0) end
      has[n] = true
    end
    local all = {}
    for _, need in ipairs(r.needs) do all[#all + 1] = need end
    for _, need in ipairs(r.timeline_needs or {}) do all[#all + 1] = need end
    for _, need in ipairs(all) do
      for alt in need:gmatch("[^|]+") do
        local t = need_parts(alt)
        if not has[t] then
          error(string.format("%s: recipe field 'tables' must list every table of 'needs' (%s is missing)", where, t),
              0)
        end
      end
    end
  end
  return r
end

--- Every recipe on the search path: {{name, summary, origin, path}...},
-- sorted by name; a name found twice lists the first (the one that runs).
function M.list()
  local seen, out = {}, {}
  local function add(name, origin, path)
    if seen[name] then return end
    seen[name] = true
    out[#out + 1] = { name = name, origin = origin, path = path }
  end
  for _, e in ipairs(M.search_path()) do
    if e.embedded then
      for _, p in ipairs(sys.embedded_list("recipes/")) do
        local n = p:match("^recipes/([^/]+)%.lua$")
        if n then add(n, e.origin, p) end
      end
    elseif sys.isdir(e.dir) then
      for _, f in ipairs(sys.listdir(e.dir, ".lua")) do add(f:gsub("%.lua$", ""), e.origin, e.dir .. "/" .. f) end
    end
  end
  table.sort(out, function(a, b) return a.name < b.name end)
  for _, r in ipairs(out) do
    local ok, rec = pcall(M.load, r.name)
    r.summary = ok and rec.summary or ("(fails to load: " .. errors.text(rec) .. ")")
  end
  return out
end

--- Coerces option values (strings from --set) to the declared types and
-- fills defaults; unknown keys are an error.
function M.options(r, given)
  local opts = {}
  for k, spec in pairs(r.options) do opts[k] = spec.default end
  for k, v in pairs(given or {}) do
    local spec = r.options[k]
    if not spec then
      local names = {}
      for n in pairs(r.options) do names[#names + 1] = n end
      table.sort(names)
      errors.fail(string.format("recipe '%s' has no option '%s' (options: %s)", r.name, k,
        #names > 0 and table.concat(names, ", ") or "none"))
    end
    local ty = spec.type or (spec.default ~= nil and type(spec.default)) or "string"
    if (ty == "number" or ty == "integer") and type(v) ~= "number" then
      local n = tonumber(v)
      if not n then errors.fail(string.format("option '%s' of recipe '%s' must be a number, got '%s'", k, r.name,
          tostring(v))) end
      v = n
    end
    if ty == "integer" then
      local i = math.tointeger(v)
      if not i then errors.fail(string.format("option '%s' of recipe '%s' must be a whole number, got '%s'", k, r.name,
          tostring(v))) end
      v = i
    end
    if ty == "number" or ty == "integer" then
      if (spec.min and v < spec.min) or (spec.max and v > spec.max) or v ~= v then
        local range = spec.min and spec.max and string.format("between %s and %s", spec.min, spec.max)
          or spec.min and string.format("at least %s", spec.min) or spec.max and string.format("at most %s", spec.max)
          or "a number"
        errors.fail(string.format("option '%s' of recipe '%s' must be %s, got '%s'", k, r.name, range, tostring(v)))
      end
    elseif ty == "boolean" and type(v) ~= "boolean" then
      local s = tostring(v):lower()
      if s == "true" or s == "1" or s == "yes" then v = true
      elseif s == "false" or s == "0" or s == "no" then v = false
      else errors.fail(string.format("option '%s' of recipe '%s' must be true or false, got '%s'", k, r.name,
          tostring(v))) end
    elseif ty == "string" then v = tostring(v) end
    if spec.choices then
      local ok = false
      for _, c in ipairs(spec.choices) do if c == v then ok = true end end
      if not ok then
        errors.fail(string.format("option '%s' of recipe '%s' must be one of: %s", k, r.name,
            table.concat(spec.choices, ", ")))
      end
    end
    opts[k] = v
  end
  return opts
end

--- The inputs a recipe analyses and the timelines beside them: with
--- `timeline_needs`, the Nsight Compute reports and the rest (all inputs are
--- analysed when none is a report, unless ncu_only); else all and none.
function M.roles(r, inputs)
  if not r.timeline_needs then return inputs, {} end
  local reports, timelines = roles.split(inputs)
  if #reports == 0 and not r.ncu_only then return inputs, {} end
  return reports, timelines
end

M.check_tables = roles.check_tables

--- Checks that every input has the tables the recipe needs (by role, with
--- timeline_needs).
function M.check_needs(r, inputs)
  local reports, timelines = M.roles(r, inputs)
  if r.ncu_only and #reports == 0 then
    -- no report among the inputs: what the recipe needs, not what a timeline lacks
    local has = {}
    for _, p in ipairs(inputs) do
      has[#has + 1] = string.format("%s (%s) has: %s", p.source, p.format, table.concat(p:table_names(), ", "))
    end
    errors.fail(string.format("recipe '%s' needs an Nsight Compute report (per-launch kernels with their metrics: "
      .. "`ncu --import R.ncu-rep --page details --csv`, or ncu's text log), and none of the inputs is one: %s",
      r.name, table.concat(has, "; ")))
  end
  M.check_tables(r, reports, r.needs)
  if r.timeline_needs then M.check_tables(r, timelines, r.timeline_needs, "timeline ") end
end

--- Device work a reader saw but did not read (meta unread_device_events:
-- a vendor category perflab has no reader for): a recipe that reads device
-- work (r.device_side, or a need or table among kernels, kernel_summary,
-- memcpy, memset) refuses an input with no device work read, and notes
-- what it leaves out where some was read.
local DEVICE_TABLES = { kernels = true, kernel_summary = true, memcpy = true, memset = true }
function M.device_side(r)
  if r.device_side ~= nil then return r.device_side end
  for _, list in ipairs({ r.needs or {}, r.tables or {} }) do
    for _, need in ipairs(list) do
      for alt in need:gmatch("[^|]+") do if DEVICE_TABLES[(need_parts(alt))] then return true end end
    end
  end
  return false
end

function M.check_device_work(r, inputs, rep)
  if not M.device_side(r) then return end
  for _, p in ipairs(inputs) do
    local n = p.meta and tonumber(p.meta.unread_device_events)
    if n and n > 0 then
      local read = 0
      for t in pairs(DEVICE_TABLES) do
        local tb = p.tables[t]
        if tb then read = read + tb:nrows() end
      end
      local cats = tostring(p.meta.unread_device_categories)
      if read == 0 then
        errors.fail(string.format("recipe '%s' reads device work, and %s (%s) has none that perflab reads: its %d device "
          .. "events are of categories it has no reader for (%s), so a verdict would rest on the host side alone "
          .. "(perflab parse %s lists them)", r.name, p.source, p.format, n, cats, p.source))
      end
      rep:note(string.format("%s (%s): %d device events of categories perflab does not read (%s) are left out of "
        .. "the device time here", p.source, p.format, n, cats))
    end
  end
end

--- origin(inputs) -> the first start_ns of the inputs' timed tables (the
--- trace start: reports show time points relative to it), or nil
function M.origin(inputs)
  local o
  for _, p in ipairs(inputs) do
    for _, tn in ipairs({ "kernels", "events", "cpu_ops", "runtime", "memcpy", "steps" }) do
      local t = p.tables and p.tables[tn]
      if t and t:nrows() > 0 and t:has("start_ns") then
        local ty = t:types().start_ns
        if ty == "integer" or ty == "number" then
          local m = t:col("start_ns"):min()
          if m and (not o or m < o) then o = m end
        end
      end
    end
  end
  return o
end

--- run(recipe, inputs, options) -> report
function M.run(name, inputs, given)
  local r = M.load(name)
  local opts = M.options(r, given)
  M.check_needs(r, inputs)
  local ins, metas = {}, {}
  for i, p in ipairs(inputs) do ins[i] = { source = p.source, format = p.format, role = p.role }; metas[i] = p.meta end
  local rep = report_mod.new { recipe = r.name, inputs = ins, options = opts, input_meta = metas }
  rep.origin_ns = M.origin(inputs)
  M.check_device_work(r, inputs, rep)
  r.run(inputs, opts, rep)
  return rep
end

-- ---- map / merge ------------------------------------------------------------
-- A multi-rank recipe may split into map(p, opts) -> summary, a pure
-- function of one profile, and merge(summaries, opts, report).  A summary
-- is {source, format, rank, world_size, role, meta = {k = boolean|string|
-- small number}, notes = {text...}, tables = {name = table},
-- table_order = {name...}}.  On disk (map_write) it is one folder: each
-- table as NAME.csv (int64 exact) and manifest.json with the rest.
-- r.map_options lists the options the map step reads: the merge refuses
-- folders mapped with other values (the others may differ: thresholds
-- applied at the merge).

local MANIFEST_SCHEMA = 1

--- map_write(recipe, profile, options, dir) -> list of files written
function M.map_write(name, p, given, dir)
  local r = M.load(name)
  if not (r.map and r.merge) then errors.fail(string.format("recipe '%s' has no map/merge steps (--map, --merge)",
      r.name)) end
  local opts = M.options(r, given)
  M.check_needs(r, { p })
  -- the map step is one rank: an nsys export of several processes is several
  local split = require("perflab.ranks").split({ p })
  if #split > 1 then
    errors.fail(string.format("%s holds %d processes with GPU work (%d ranks): --map takes one rank per file; "
      .. "run the recipe on the file directly", p.source, #split, #split), 2)
  end
  local s = r.map(p, opts)
  local sys = require "perflab.sys"
  local json = require "perflab.json"
  require("perflab.sandbox").allow_write(dir)
  local ok, err = sys.mkdir(dir)
  if not ok then errors.fail("--output: " .. err) end
  local written = {}
  local function put(file, text)
    local path = dir .. "/" .. file
    local okw, e = sys.write_atomic(path, text)
    if not okw then errors.fail("cannot write " .. e) end
    written[#written + 1] = path
  end
  for _, tn in ipairs(s.table_order) do put(tn .. ".csv", s.tables[tn]:to_csv()) end
  put("manifest.json", json.encode({
    schema = MANIFEST_SCHEMA, recipe = r.name, source = s.source, format = s.format, rank = s.rank,
    world_size = s.world_size, role = s.role, meta = json.object(s.meta or {}), notes = s.notes or {},
    tables = s.table_order, options = json.object(opts),
  }, "  ") .. "\n")
  return written
end

local function read_text(path)
  local f, err = io.open(path, "rb")
  if not f then errors.fail(string.format("--merge: cannot read %s (%s): not a folder written by --map?", path, err),
      2) end
  local t = f:read("a")
  f:close()
  return t
end

--- map_read(dir, recipe_name) -> summary (as map returned it)
function M.map_read(dir, rname)
  local cjson = require "cjson"
  local path = dir .. "/manifest.json"
  local ok, m = pcall(cjson.decode, read_text(path))
  if not ok
      or type(m) ~= "table" then errors.fail(string.format("%s: expected a JSON manifest written by --map, found %s",
      path, tostring(m)), 2) end
  if m.schema ~= MANIFEST_SCHEMA then errors.fail(string.format("%s: manifest schema %s, expected %d", path,
      tostring(m.schema), MANIFEST_SCHEMA), 2) end
  if m.recipe ~= rname then
    errors.fail(string.format("%s: written by the map step of recipe '%s', not '%s'", path, tostring(m.recipe), rname),
        2)
  end
  local function opt(v) if v == cjson.null then return nil end return v end
  local function int(v) v = opt(v); return v and math.tointeger(v) or v end
  local s = { source = m.source, format = m.format, rank = int(m.rank), world_size = int(m.world_size),
      role = opt(m.role),
              meta = {}, notes = {}, tables = {}, table_order = {} }
  for k, v in pairs(m.meta or {}) do s.meta[k] = opt(v) end
  for i, n in ipairs(m.notes or {}) do s.notes[i] = n end
  s.options = {}
  for k, v in pairs(m.options or {}) do s.options[k] = opt(v) end
  local profile = require "perflab.profile"
  for i, tn in ipairs(m.tables or {}) do
    local p = profile.parse(dir .. "/" .. tn .. ".csv", read_text(dir .. "/" .. tn .. ".csv"), { format = "csv" })
    local t = p.tables[p:table_names()[1]]
    s.tables[tn] = t
    s.table_order[i] = tn
  end
  return s
end

--- merge_dirs(recipe, dirs, options) -> report: the same report as the
-- direct run on the files the folders were mapped from.
function M.merge_dirs(name, dirs, given)
  local r = M.load(name)
  if not (r.map and r.merge) then errors.fail(string.format("recipe '%s' has no map/merge steps (--map, --merge)",
      r.name)) end
  local opts = M.options(r, given)
  local parts, ins = {}, {}
  for i, d in ipairs(dirs) do
    parts[i] = M.map_read(d, r.name)
    -- the options the map step reads (r.map_options) must be the merge's
    for _, k in ipairs(r.map_options or {}) do
      if parts[i].options[k] ~= opts[k] then
        errors.fail(string.format("%s was mapped with --set %s=%s, and the merge has %s=%s: give the map and the merge the same %s",
          d, k, tostring(parts[i].options[k]), k, tostring(opts[k]), k), 2)
      end
    end
    ins[i] = { source = parts[i].source, format = parts[i].format, role = parts[i].role }
  end
  local rep = report_mod.new { recipe = r.name, inputs = ins, options = opts }
  r.merge(parts, opts, rep)
  return rep
end

--- Help text for a recipe, generated from its declared options.
function M.help(name)
  local r = M.load(name)
  local lines = {
    r.usage or string.format("perflab run %s FILE... [--set KEY=VALUE]...", r.name),
    "",
    r.summary,
  }
  if r.description then lines[#lines + 1] = "" ; lines[#lines + 1] = r.description end
  lines[#lines + 1] = ""
  local needs = {}
  for i, n in ipairs(r.needs) do needs[i] = need_text(n) end
  lines[#lines + 1] = "needs: " .. (#needs > 0 and table.concat(needs, ", ") or "nothing")
  if r.timeline_needs then
    local tn = {}
    for i, n in ipairs(r.timeline_needs) do tn[i] = need_text(n) end
    lines[#lines - 0] = lines[#lines] .. (r.ncu_only and " (each Nsight Compute report)"
      or " (each Nsight Compute report; every input when none is one)")
    lines[#lines + 1] = "       a timeline of the same program beside a report (or --set timeline=FILE): "
      .. table.concat(tn, ", ")
  end
  if r.tables then lines[#lines + 1] = "reads (the only tables loaded): " .. table.concat(r.tables, ", ") end
  local names = {}
  for k in pairs(r.options) do names[#names + 1] = k end
  table.sort(names)
  if #names > 0 then
    lines[#lines + 1] = ""
    lines[#lines + 1] = "options (--set KEY=VALUE):"
    for _, k in ipairs(names) do
      local o = r.options[k]
      local d = o.default ~= nil and (" (default: " .. tostring(o.default) .. ")") or ""
      local ch = o.choices and (" [" .. table.concat(o.choices, "|") .. "]") or ""
      lines[#lines + 1] = string.format("  %-16s %s%s%s", k, o.help or "", ch, d)
    end
  end
  lines[#lines + 1] = ""
  lines[#lines + 1] = "from: " .. (r.origin or "?") .. " (" .. (r.chunk or "?") .. ")"
  return table.concat(lines, "\n") .. "\n"
end

--- run_all(inputs, set) -> reports, skipped: every recipe whose
-- needs the inputs meet, in name order (what `perflab run all` and the
-- pages of `perflab serve` show); skipped lists "recipe (why)".  `set`
-- applies to the recipes that declare each option; one that none declares
-- is an error.
function M.run_all(inputs, set)
  local reps, skipped, used, all = {}, {}, {}, {}
  for i, info in ipairs(M.list()) do
    all[i] = M.load(info.name)
    for k in pairs(set) do if all[i].options[k] then used[k] = true end end
  end
  local unused = {}
  for k in pairs(set) do if not used[k] then unused[#unused + 1] = k end end
  table.sort(unused)
  if #unused > 0 then errors.fail("run all: no recipe has the option " .. table.concat(unused, ", ")) end
  for _, r in ipairs(all) do
    local given = {}
    for k, v in pairs(set) do if r.options[k] then given[k] = v end end
    local ok, rep = pcall(M.check_needs, r, inputs)
    local err
    -- "recipe 'X' needs a table T, and FILE has ...": the first half says it
    if not ok and errors.is_fail(rep) then rep.message = rep.message:match("^recipe '[^']*' (needs .-), and ")
        or rep.message end
    if ok then ok, rep = pcall(M.run, r, inputs, given) end
    if ok then reps[#reps + 1] = rep
    else
      -- a recipe that cannot use these inputs says so with a user error; anything else is a bug
      if rep ~= nil and not errors.is_fail(rep) then error(rep, 0) end
      err = errors.text(rep)
      skipped[#skipped + 1] = string.format("%s (%s)", r.name, (tostring(err):gsub("\n.*", "")))
    end
  end
  return reps, skipped
end

return M

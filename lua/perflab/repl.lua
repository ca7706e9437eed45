--- perflab.repl: what the interactive session adds to plain Lua: pretty
-- printing of values (perflab tables as aligned text with a row limit,
-- profiles as their list of tables, reports as their text, Lua tables
-- nested to a depth limit) and the helpers help(), load(), run(),
-- recipes().
local perflab = require "perflab"
local ptable = require "perflab.table"
local report = require "perflab.report"
local profile = require "perflab.profile"

local M = { max_rows = 20, max_depth = 3, max_items = 40 }

local function is_ident(k) return type(k) == "string" and k:match("^[%a_][%w_]*$") end

local function show_lua(v, depth, seen)
  local ty = type(v)
  if ty == "string" then return string.format("%q", v) end
  if ty ~= "table" then return tostring(v) end
  if ptable.is_table(v) then return string.format("<table '%s': %d rows>", v:name(), v:nrows()) end
  if getmetatable(v) and getmetatable(v).__tostring then return tostring(v) end
  if seen[v] then return "<cycle>" end
  if depth >= M.max_depth then return "{…}" end
  seen[v] = true
  local parts, n = {}, 0
  local len = #v
  for i = 1, len do
    n = n + 1
    if n > M.max_items then parts[#parts + 1] = "…"; break end
    parts[#parts + 1] = show_lua(v[i], depth + 1, seen)
  end
  local keys = {}
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= len) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    n = n + 1
    if n > M.max_items then parts[#parts + 1] = "…"; break end
    local ks = is_ident(k) and k or ("[" .. show_lua(k, depth + 1, seen) .. "]")
    parts[#parts + 1] = ks .. " = " .. show_lua(v[k], depth + 1, seen)
  end
  seen[v] = nil
  return "{" .. table.concat(parts, ", ") .. "}"
end

--- Text for one value, as the REPL prints it.
function M.render(v)
  if ptable.is_table(v) then
    local head = string.format("table '%s': %d rows x %d columns\n", v:name(), v:nrows(), #v:columns())
    return head .. v:format { max_rows = M.max_rows, width = 60 }
  end
  if report.is_report(v) then return v:render("text") end
  if profile.is_profile(v) then return v:summary() .. "\n" end
  return show_lua(v, 0, {}) .. "\n"
end

function M.show(...)
  for i = 1, select("#", ...) do io.stdout:write(M.render((select(i, ...)))) end
end

local help_text = [[
perflab REPL — Lua 5.4 with the perflab API.
  load(path)                  a profile (p:table("kernels"), p.meta, ...)
  run(recipe, p [, options])  a report (prints as text)
  recipes()                   the recipes you can run
  help(x)                     help on a value: a profile, table, report or recipe name
  perflab                     the whole API; perflab.table, perflab.units
Tables: t:nrows() t:columns() t:row(i) t:where(f) t:sort_by("-col") t:top(n, "col")
        t:group_by("k"):agg{n = "count", s = "sum(col)"} t:join(u, {on = "k"})
        t:col("x"):sum() / :mean() / :quantile(0.9)   t:to_csv() t:format{markdown = true}
]]

function M.help(x)
  if x == nil then io.stdout:write(help_text); return end
  if ptable.is_table(x) then
    local types, docs = x:types(), x:docs()
    local lines = { string.format("table '%s': %d rows", x:name(), x:nrows()) }
    for _, c in ipairs(x:columns()) do
      lines[#lines + 1] = string.format("  %-28s %-8s %s", c, types[c], docs[c] or "")
    end
    io.stdout:write(table.concat(lines, "\n") .. "\n")
  elseif profile.is_profile(x) then io.stdout:write(x:summary() .. "\n")
  elseif report.is_report(x) then io.stdout:write("report of recipe " .. x.recipe .. ": " .. #x.findings .. " findings, tables: " .. table.concat(x.table_order, ", ") .. "\n")
  elseif type(x) == "string" then io.stdout:write(require("perflab.recipes").help(x))
  else io.stdout:write(M.render(x)) end
end

--- Installs the REPL globals and loads the files given.
function M.setup(opts)
  opts = opts or {}
  _G.perflab = perflab
  _G.help = M.help
  _G.load = function(path, o) return perflab.load(path, o or opts.load_opts) end
  _G.run = function(recipe, ...)
    local args = { ... }
    local options
    if #args > 0 and type(args[#args]) == "table" and not profile.is_profile(args[#args]) and #args[#args] == 0 then
      options = table.remove(args)
    end
    return perflab.run(recipe, args, options)
  end
  _G.recipes = function()
    local rows = {}
    for i, r in ipairs(perflab.recipes()) do rows[i] = { name = r.name, summary = r.summary, origin = r.origin } end
    return ptable.from_rows(rows, { "name", "summary", "origin" }, "recipes")
  end
  local profiles = {}
  for i, f in ipairs(opts.files or {}) do
    local p = perflab.load(f, opts.load_opts)
    profiles[i] = p
    _G["p" .. i] = p
  end
  _G.profiles = profiles
  if #profiles > 0 and require("perflab.sys").isatty(0) then
    for i, p in ipairs(profiles) do io.stdout:write(string.format("p%d = %s (%s)\n", i, p.source, p.format)) end
  end
end

return M

--- perflab.repl: what the interactive session adds to plain Lua.
--   render(v)            text of a value as the REPL prints it: perflab tables
--                        as aligned text with a row limit ("… N more rows"),
--                        profiles as their list of tables, reports as their
--                        text, Lua tables nested to a depth limit, numbers
--                        with full precision
--   rich(v)              {text=, markdown=, svg=, data=} for the cell protocol
--   complete(prefix)     tab completion: candidates for the word that ends
--                        `prefix` (the line up to the cursor) and where it starts
--   help([x]), setup(opts), jsonl(opts): the session helpers and the cell protocol
local perflab = require "perflab"
local ptable = require "perflab.table"
local report = require "perflab.report"
local profile = require "perflab.profile"
local json = require "perflab.json"
local sys = require "perflab.sys"

local M = { max_rows = 20, max_depth = 3, max_items = 40, width = 60 }

local lua_load = load   -- the standard `load`, kept before setup() replaces the global

local function is_ident(k) return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil end

--- A number as the shortest text that reads back exactly (tostring keeps 14 digits).
local function number_text(v)
  if math.type(v) == "integer" then return string.format("%d", v) end
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
  for _, f in ipairs({ "%.14g", "%.15g", "%.16g", "%.17g" }) do
    local s = string.format(f, v)
    if tonumber(s) == v then
      if not s:find("[%.eEn]") then s = s .. ".0" end   -- 2.0 stays a float, as in Lua
      return s
    end
  end
  return string.format("%.17g", v)
end
M.number_text = number_text

local function show_lua(v, depth, seen)
  local ty = type(v)
  if ty == "string" then return string.format("%q", v):gsub("\\\n", "\\n") end
  if ty == "number" then return number_text(v) end
  if ty ~= "table" then
    if ptable.is_table(v) then return string.format("<table '%s': %d rows>", v:name(), v:nrows()) end
    return tostring(v)
  end
  if profile.is_profile(v) then return string.format("<profile %s (%s)>", v.source, v.format) end
  if report.is_report(v) then return string.format("<report %s: %d findings>", v.recipe, v:finding_count()) end
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

local function table_head(v)
  return string.format("table '%s': %d rows x %d columns\n", v:name(), v:nrows(), #v:columns())
end

--- Text for one value, as the REPL prints it.
function M.render(v)
  if ptable.is_table(v) then return table_head(v) .. v:format { max_rows = M.max_rows, width = M.width } end
  if report.is_report(v) then return v:render("text", { width = sys.isatty(1) and sys.term_width() or nil }) end
  if profile.is_profile(v) then return v:summary() .. "\n" end
  return show_lua(v, 0, {}) .. "\n"
end

function M.show(...)
  for i = 1, select("#", ...) do io.stdout:write(M.render((select(i, ...)))) end
end

local function is_svg(v) return type(v) == "string" and v:match("^%s*<%?xml") ~= nil and v:find("<svg", 1, true) ~= nil
  or type(v) == "string" and v:match("^%s*<svg[%s>]") ~= nil end

--- The rich forms of a value for the cell protocol and notebooks:
-- {text = ..., markdown = ... (tables, reports, profiles), html = ... (tables,
-- reports: perflab.html, figures left to `figures`), svg = ... (an SVG
-- string, or a report's figures concatenated in order, each its own SVG in
-- `figures`), data = JSON text (numbers, strings, booleans, plain tables)}.
function M.rich(v)
  local r = { text = M.render(v) }
  if ptable.is_table(v) then
    r.markdown = string.format("**%s** — %d rows × %d columns\n\n", v:name(), v:nrows(), #v:columns())
      .. v:format { markdown = true, max_rows = M.max_rows }
    r.html = string.format("<p><b>%s</b> — %d rows × %d columns</p>\n", require("perflab.chart").escape(v:name()),
        v:nrows(), #v:columns())
      .. require("perflab.html").table(v, M.max_rows)
    r.data = nil
  elseif report.is_report(v) then
    r.markdown = v:render("markdown", { max_rows = M.max_rows })
    r.html = require("perflab.html").fragment(v, { no_figures = true })
    if #v.figure_order > 0 then
      r.figures = {}
      for i, name in ipairs(v.figure_order) do
        r.figures[i] = { name = name, title = v.figures[name].title, svg = v.figures[name].svg }
      end
      r.svg = r.figures[1].svg
    end
  elseif profile.is_profile(v) then
    local lines = { string.format("**`%s`** (%s)", v.source, v.format), "" }
    for _, n in ipairs(v:table_names()) do
      local t = v.tables[n]
      lines[#lines + 1] = string.format("- `%s`: %d rows, columns %s", n, t:nrows(), table.concat(t:columns(), ", "))
    end
    r.markdown = table.concat(lines, "\n") .. "\n"
  elseif is_svg(v) then
    r.svg = v
  end
  -- inline SVG without an XML declaration (nbconvert's HTML export fails on one)
  local function bare(svg) return (svg:gsub("^%s*<%?xml[^>]*%?>%s*", "")) end
  if r.svg then r.svg = bare(r.svg) end
  for _, f in ipairs(r.figures or {}) do f.svg = bare(f.svg) end
  local ty = type(v)
  if ty == "number" or ty == "boolean" or ty == "string" then
    r.data = json.encode(v)
  elseif ty == "table" and getmetatable(v) == nil then
    local ok, s = pcall(json.encode, v)
    if ok then r.data = s end
  end
  return r
end

-- ---- help ------------------------------------------------------------------

local help_text = [[
perflab REPL — Lua 5.4 with the perflab API.
  load(path)                  a profile (p:table("kernels"), p.meta, ...)
  run(recipe, p... [, opts])  a report (prints as text); opts e.g. {top = 5}
  recipes()                   the recipes you can run
  help(x)                     help on a value: a function, profile, table, report or recipe name
  perflab                     the whole API; perflab.table, perflab.units
Tables: t:nrows() t:columns() t:row(i) t:where(f) t:sort_by("-col") t:top(n, "col")
        t:group_by("k"):agg{{"n", "count"}, {"s", "sum", "col"}} t:join(u, {on = "k"})
        t:col("x"):sum() / :mean() / :quantile(0.9)   t:to_csv() t:format{markdown = true}
Keys: Tab completes names, fields, methods (t:) and column names (t:col("); Up/Down
      recall history (kept across sessions); Ctrl-C interrupts; Ctrl-D leaves.
]]

-- The text of a file of the source tree: under PERFLAB_LUA_DIR's tree when
-- set (editing needs no rebuild), else the copy embedded at build time.
local function source_text(path)
  if sys.lua_dir then
    local f = io.open(sys.lua_dir .. "/../" .. path, "rb")
    if f then local s = f:read("a"); f:close(); return s end
  end
  return sys.embedded(path)
end

-- function -> its public name ("perflab.stats.mean", "Table:sort_by"),
-- built once from perflab's modules and the method tables of its objects.
local fn_names
local function name_index()
  if fn_names then return fn_names end
  fn_names = {}
  -- own: only the functions a Lua module defines itself (a facade such as
  -- perflab.gpu re-exports others' functions: they keep their owner's name)
  local function add(t, prefix, sep, own)
    if type(t) ~= "table" then return end
    local keys = {}
    for k, v in pairs(t) do
      if type(k) == "string" and type(v) == "function" and not k:match("^__") then keys[#keys + 1] = k end
    end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local f = t[k]
      local ok = fn_names[f] == nil
      if ok and own then
        local src = debug and debug.getinfo and debug.getinfo(f, "S").source or ""
        local file = src:match("perflab/([%w_]+)%.lua$")
        ok = file == nil or "perflab." .. file == own
      end
      if ok then fn_names[f] = prefix .. sep .. k end
    end
  end
  add(perflab, "perflab", ".")
  local mods = {}
  for _, m in ipairs(perflab.modules()) do
    local ok, mod = pcall(require, "perflab." .. m)   -- a module that cannot load has no names
    if ok then mods[#mods + 1] = { mod, "perflab." .. m } end
  end
  for _, e in ipairs(mods) do add(e[1], e[2], ".", e[2]) end
  for _, e in ipairs(mods) do add(e[1], e[2], ".") end
  local T = perflab.table
  local t = T.from_rows({ { x = 1 } }, { "x" })
  add(getmetatable(t).__index, "Table", ":")
  add(getmetatable(t:col("x")).__methods, "Column", ":")
  add(getmetatable(t:group_by("x")).__index, "Group", ":")
  add(profile.Profile, "Profile", ":")
  add(getmetatable(report.new()).__index, "Report", ":")
  add(getmetatable(perflab.intervals.empty()).__index, "IntervalSet", ":")
  return fn_names
end

-- The entry of docs/api.md for name: its list item "- `NAME(...` or
-- "- `NAME`", with the indented lines that continue it.
local function api_entry(name)
  local text = source_text("docs/api.md")
  if not text then return nil end
  local out, inside = {}, false
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    if inside then
      if line:match("^  %S") then out[#out + 1] = line else break end
    elseif line:sub(1, #name + 3) == "- `" .. name then
      local nx = line:sub(#name + 4, #name + 4)
      if nx == "(" or nx == "{" or nx == "`" then inside = true; out[#out + 1] = line end
    end
  end
  return #out > 0 and table.concat(out, "\n") or nil
end

-- The section of the scripting reference (docs/table-api.md, intervals.md,
-- stats.md, charts.md) whose heading names the function: the heading and
-- every line up to the next heading of the same or a higher level.  The
-- pages write T.from_rows, t:filter, c:count, stats.mean, I.from_table.
local DOC_PAGES = { "docs/table-api.md", "docs/intervals.md", "docs/stats.md", "docs/charts.md" }
local function doc_section(name)
  local short = name:gsub("^perflab%.table%.", "T."):gsub("^Table:", "t:"):gsub("^Column:", "c:")
    :gsub("^perflab%.intervals%.", "I."):gsub("^IntervalSet:", "set:"):gsub("^Group:", "grouping:")
  local cands = { name, short, (name:gsub("^perflab%.", "")) }
  if name:match("^Column:") then cands[#cands + 1] = (name:gsub("^Column:", "m:")) end
  for _, page in ipairs(DOC_PAGES) do
    local text = source_text(page)
    if text then
      local out, level
      for line in (text .. "\n"):gmatch("([^\n]*)\n") do
        local hashes = line:match("^(#+) ")
        if level then
          if hashes and #hashes <= level then break end
          out[#out + 1] = line
        elseif line:sub(1, 1) == "|" then
          -- a row of a reference table: "| `m:count_true()` | what |"
          for _, c in ipairs(cands) do
            if line:find("`" .. c .. "(", 1, true) then return line .. "\n(" .. page .. ")" end
          end
        elseif hashes then
          for _, c in ipairs(cands) do
            local at = line:find("`" .. c, 1, true)
            local nx = at and line:sub(at + 1 + #c, at + 1 + #c)
            if at and (nx == "(" or nx == "`" or nx == "{" or nx == " ") then
              level, out = #hashes, { line }
              break
            end
          end
        end
      end
      if out then
        while out[#out] == "" do out[#out] = nil end
        return table.concat(out, "\n") .. "\n(" .. page .. ")"
      end
    end
  end
  return nil
end

-- The comment block right above a Lua function's definition.
local function source_comment(fn)
  if not debug or not debug.getinfo then return nil end
  local info = debug.getinfo(fn, "S")
  local path = info and info.what == "Lua" and info.source:match("^@(.+)$")
  if not path then return nil end
  path = path:gsub("^.*/(lua/perflab/)", "%1"):gsub("^.*/(recipes/)", "%1")
  local text = source_text(path)
  if not text then return nil end
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  local out = {}
  for i = info.linedefined - 1, 1, -1 do
    local c = lines[i] and lines[i]:match("^%s*%-%-%-?%s?(.*)$")
    if not c then break end
    table.insert(out, 1, c)
  end
  return #out > 0 and table.concat(out, "\n") or nil
end

--- doc(fn) -> the documentation of a function of the API: its name, its
-- entry in docs/api.md and the comment above its Lua definition; nil when
-- fn is not a function of perflab's modules or objects.
function M.doc(fn)
  local name = name_index()[fn]
  if not name then return nil end
  local parts = { name }
  local entry = api_entry(name)
  if entry then parts[#parts + 1] = entry end
  local sec = doc_section(name)
  if sec then parts[#parts + 1] = sec end
  local c = source_comment(fn)
  if c then parts[#parts + 1] = c end
  if #parts == 1 then parts[2] = "(no documentation: not in docs/api.md)" end
  return table.concat(parts, "\n") .. "\n"
end

function M.help(x)
  if x == nil then io.stdout:write(help_text); return end
  if type(x) == "function" then
    io.stdout:write(M.doc(x) or ("a function that is not part of perflab's API: " .. tostring(x) .. "\n"))
    return
  end
  if ptable.is_table(x) then
    local types, docs = x:types(), x:docs()
    local lines = { string.format("table '%s': %d rows", x:name(), x:nrows()) }
    for _, c in ipairs(x:columns()) do
      lines[#lines + 1] = string.format("  %-28s %-8s %s", c, types[c], docs[c] or "")
    end
    io.stdout:write(table.concat(lines, "\n") .. "\n")
  elseif profile.is_profile(x) then io.stdout:write(x:summary() .. "\n")
  elseif report.is_report(x) then
    io.stdout:write("report of recipe " .. x.recipe .. ": " .. x:finding_count() .. " findings, tables: "
      .. table.concat(x.table_order, ", ") .. "\n")
  elseif type(x) == "string" then io.stdout:write(require("perflab.recipes").help(x))
  else io.stdout:write(M.render(x)) end
end

-- ---- completion ------------------------------------------------------------

local keywords = { "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
  "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while" }

-- Methods that take a column name as a string argument.
local column_methods = { col = true, column = true, has = true, sort_by = true, select = true, group_by = true,
  drop = true, rename = true, unique = true, get = true, top = true }
-- Calls that are safe to evaluate while resolving a completion (no side effects).
local pure_calls = { table = true, col = true, column = true }

--- The value of a simple expression (names, .field, ["key"], and the pure
-- calls :table("x"), :col("x")), or nil; never runs user code.
local function resolve(expr)
  expr = expr:match("^%s*(.-)%s*$")
  local name = expr:match("^[%a_][%w_]*")
  if not name then return nil end
  local v = _G[name]
  local pos = #name + 1
  while pos <= #expr and v ~= nil do
    local f = expr:match("^%.([%a_][%w_]*)", pos)
    if f then
      if type(v) ~= "table" then return nil end
      v = v[f]
      pos = pos + 1 + #f
    else
      local q, key = expr:match("^%[%s*([\"'])(.-)%1%s*%]", pos)
      local whole = q and expr:match("^%[%s*[\"'].-[\"']%s*%]", pos)
      if whole then
        if type(v) ~= "table" then return nil end
        v = v[key]
        pos = pos + #whole
      else
        local m, _, arg = expr:match("^:([%a_][%w_]*)%s*%(%s*([\"'])(.-)%2%s*%)", pos)
        local call = m and expr:match("^:[%a_][%w_]*%s*%(%s*[\"'].-[\"']%s*%)", pos)
        if not call or not pure_calls[m] then return nil end
        local ok, r = pcall(function() return v[m](v, arg) end)
        if not ok then return nil end
        v = r
        pos = pos + #call
      end
    end
  end
  if pos <= #expr then return nil end
  return v
end
M.resolve = resolve

local function add_keys(out, t, want_fn)
  local guard = 0
  while type(t) == "table" and guard < 8 do
    for k, val in pairs(t) do
      if is_ident(k) and (not want_fn or type(val) == "function") then out[k] = true end
    end
    local mt = getmetatable(t)
    t = mt and type(mt.__index) == "table" and mt.__index or nil
    guard = guard + 1
  end
end

--- Names after `v.` (fields) or `v:` (methods).
local function members(v, methods)
  local out = {}
  if ptable.is_table(v) then
    add_keys(out, getmetatable(v).__index, false)
  elseif type(v) == "userdata" then
    local mt = getmetatable(v)
    if mt then
      if type(mt.__index) == "table" then add_keys(out, mt.__index, false) end
      if type(mt.__methods) == "table" then add_keys(out, mt.__methods, false) end
    end
  elseif type(v) == "string" then
    if methods then add_keys(out, string, true) end
  elseif type(v) == "table" then
    add_keys(out, v, methods)
    if v == perflab then   -- every module, loaded or not (C and Lua)
      for _, m in ipairs(perflab.modules()) do out[m] = true end
    end
  end
  local list = {}
  for k in pairs(out) do list[#list + 1] = k end
  return list
end

local function filter(list, partial, prefix)
  local out, seen = {}, {}
  prefix = prefix or ""
  for _, s in ipairs(list) do
    if s:sub(1, #partial) == partial and not seen[s] then
      seen[s] = true
      out[#out + 1] = prefix .. s
    end
  end
  table.sort(out)
  return out
end

--- Where the expression that ends at `stop` begins: walks back over names,
-- dots, colons and bracketed groups (strings inside them are skipped naively).
local function expr_start(s, stop)
  local i = stop
  while i >= 1 do
    local c = s:sub(i, i)
    if c:match("[%w_%.:]") then i = i - 1
    elseif c == ")" or c == "]" then
      local open = c == ")" and "(" or "["
      local depth = 0
      while i >= 1 do
        local d = s:sub(i, i)
        if d == c then depth = depth + 1 elseif d == open then depth = depth - 1 end
        i = i - 1
        if depth == 0 then break end
      end
    else break end
  end
  return i + 1
end

--- Files and directories that start with `partial` (for load(" and friends).
local function files(partial)
  local dir, base = partial:match("^(.*/)([^/]*)$")
  if not dir then dir, base = "", partial end
  local list = {}
  for _, f in ipairs(sys.listdir(dir == "" and "." or dir, "")) do
    if f:sub(1, #base) == base then
      list[#list + 1] = dir .. f .. (sys.isdir(dir .. f) and "/" or "")
    end
  end
  table.sort(list)
  return list
end

--- complete(prefix) -> candidates, start
-- prefix: the line up to the cursor.  candidates: sorted replacements for
-- prefix:sub(start).  Contexts: a string argument of a column method
-- (t:col(", t:sort_by("-), a profile's :table(", run("/help(" (recipes),
-- load(" (files); `expr:` (methods); `expr.` (fields); else globals and keywords.
function M.complete(prefix)
  -- 1. inside a string literal?
  local i, q, qpos = 1, nil, nil
  while i <= #prefix do
    local c = prefix:sub(i, i)
    if q then
      if c == "\\" then i = i + 1 elseif c == q then q = nil end
    elseif c == '"' or c == "'" then q, qpos = c, i
    elseif prefix:sub(i, i + 1) == "--" then return {}, #prefix + 1   -- a comment
    end
    i = i + 1
  end
  if q then
    local partial = prefix:sub(qpos + 1)
    local before = prefix:sub(1, qpos - 1)
    -- the innermost open call before the string: callee(args..., "
    local depth, k = 0, #before
    while k >= 1 do
      local c = before:sub(k, k)
      if c == ")" then depth = depth + 1
      elseif c == "(" then
        if depth == 0 then break end
        depth = depth - 1
      end
      k = k - 1
    end
    local cands = {}
    if k >= 1 and before:sub(k + 1):match("^[^()\"']*$") then
      local callee = before:sub(1, k - 1):gsub("%s+$", "")
      local first_arg = before:sub(k + 1):match("^%s*$") ~= nil
      local obj, sep, method = callee:match("^(.-)([%.:])([%a_][%w_]*)$")
      if obj and sep == ":" then
        local v = resolve(obj:sub(expr_start(obj, #obj)))
        if ptable.is_table(v) and column_methods[method] then
          local sign = ""
          if partial:sub(1, 1) == "-" and method == "sort_by" then sign, partial = "-", partial:sub(2) end
          cands = filter(v:columns(), partial, sign)
          if sign ~= "" then partial = sign .. partial end
        elseif profile.is_profile(v) and (method == "table" or method == "has") then
          cands = filter(v:table_names(), partial)
        end
      else
        local fname = callee:match("([%w_%.]+)$")
        if first_arg and (fname == "run" or fname == "help" or fname == "perflab.run") then
          local names = {}
          for _, r in ipairs(perflab.recipes()) do names[#names + 1] = r.name end
          cands = filter(names, partial)
        elseif first_arg and (fname == "load" or fname == "perflab.load" or fname == "perflab.try_load") then
          cands = files(partial)
        end
      end
    else
      local obj = before:match("^(.-)%[%s*$")
      if obj then
        local v = resolve(obj:sub(expr_start(obj, #obj)))
        if type(v) == "table" then cands = filter(members(v, false), partial) end
      end
    end
    return cands, qpos + 1
  end
  -- 2. expr:partial / expr.partial / partial
  local partial = prefix:match("[%a_][%w_]*$") or ""
  local wstart = #prefix - #partial + 1
  local sep = prefix:sub(wstart - 1, wstart - 1)
  if sep == ":" or sep == "." then
    if prefix:sub(wstart - 2, wstart - 1) == ".." then return {}, wstart end   -- concatenation
    local stop = wstart - 2
    local v = resolve(prefix:sub(expr_start(prefix, stop), stop))
    if v == nil then return {}, wstart end
    return filter(members(v, sep == ":"), partial), wstart
  end
  local names = {}
  for k in pairs(_G) do if is_ident(k) then names[#names + 1] = k end end
  for _, k in ipairs(keywords) do names[#names + 1] = k end
  return filter(names, partial), wstart
end

-- ---- session setup ---------------------------------------------------------

--- REPL `load`: load(path [, opts]) -> profile.  Called as Lua's load (a
-- function chunk, or a chunk name, mode or environment given, or a string
-- that is no file but compiles as Lua) it is Lua's load.
local function repl_load(path, ...)
  local n = select("#", ...)
  local o = ...
  if type(path) == "function" or n >= 2 or (n == 1 and type(o) == "string") then
    return lua_load(path, ...)
  end
  -- load("return 1"): Lua code that is not a file is Lua's load
  if n == 0 and type(path) == "string" then
    local fh = io.open(path, "rb")
    if fh then fh:close()
    else
      local f = lua_load(path)
      if f then return f end
    end
  end
  return perflab.load(path, o or M.load_opts)
end

--- Installs the REPL globals and loads the files given.
function M.setup(opts)
  opts = opts or {}
  M.load_opts = opts.load_opts
  _G.perflab = perflab
  _G.help = M.help
  _G.lua_load = lua_load
  _G.load = repl_load
  _G.run = function(recipe, ...)
    local args = table.pack(...)
    local options
    local last = args[args.n]
    if args.n > 0 and type(last) == "table" and not profile.is_profile(last) and #last == 0 then
      options = last
      args[args.n] = nil
      args.n = args.n - 1
    end
    local inputs = {}
    for k = 1, args.n do inputs[k] = args[k] end
    return perflab.run(recipe, inputs, options)
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
  if #profiles > 0 and opts.announce ~= false and sys.isatty(0) then
    for i, p in ipairs(profiles) do io.stdout:write(string.format("p%d = %s (%s)\n", i, p.source, p.format)) end
  end
end

-- ---- the cell protocol ------------------------------------------------------

--- Compiles a cell, as a notebook user expects: the whole cell as an
-- expression (`1+1`); else the statements with the last line returned when
-- that line is an expression (`p = load(f)` then `p`; a trailing `;` on the
-- last line prevents it); else the statements.  Returns the function (and
-- true when the last line was made a `return`) or nil, message.
local function compile(code, name)
  local f = lua_load("return " .. code .. "\n;", name, "t")
  if f then return f end
  local head, last = code:match("^(.*\n)([^\n]*%S[^\n]*)%s*$")
  if last and not last:match(";%s*$") and not last:match("^%s*%-%-") then
    f = lua_load(head .. "return " .. last .. "\n;", name, "t")
    if f then return f, true end
  end
  return lua_load(code, name, "t")
end
M.compile = compile

local function error_text(e)
  if type(e) == "table" and e.message then return tostring(e.message) end
  if type(e) == "string" then
    -- the traceback stops where the cell machinery begins
    local cut = e:find("\n\t%[C%]: in function 'perflab%.session%.run_cell'")
    return cut and e:sub(1, cut - 1) or e
  end
  local mt = getmetatable(e)
  if mt and mt.__tostring then return tostring(e) end
  return "(error object is a " .. type(e) .. " value)"
end

--- "complete", "incomplete" (the chunk needs more lines) or "invalid".
function M.is_complete(code)
  if lua_load("return " .. code .. "\n;", "=cell", "t") then return "complete" end
  local f, err = lua_load(code, "=cell", "t")
  if f then return "complete" end
  if err:match("<eof>$") then return "incomplete" end
  local _, experr = lua_load("return " .. code, "=cell", "t")
  if experr and experr:match("<eof>$") then return "incomplete" end   -- `1 +`
  return "invalid"
end

--- Runs one cell {id, code} and returns the reply table (not encoded).
-- Output written to stdout while the cell runs (print, io.write, C code) is
-- captured at the file-descriptor level by session.capture_*.
function M.cell(req)
  local reply = { id = req.id, ok = true, values = {}, stdout = "" }
  if type(req.code) ~= "string" then
    reply.ok, reply.error = false, "cell has no \"code\" string"
    return reply
  end
  local fn, err = compile(req.code, "=cell" .. (req.id ~= nil and ("[" .. tostring(req.id) .. "]") or ""))
  local auto_return = fn and err == true
  if not fn then
    reply.ok, reply.error = false, err
    return reply
  end
  local session = require "perflab.session"
  local cap = session.capture_begin()
  local res = table.pack(session.run_cell(fn))
  -- render inside the capture too: rendering is user-visible code (__tostring)
  local values = {}
  if res[1] then
    for k = 2, res.n do
      -- an implicit return of `io.write(...)` gives a file: not a value to show
      if auto_return and io.type(res[k]) then goto skip end
      local okr, r = pcall(M.rich, res[k])
      values[#values + 1] = okr and r or { text = "(cannot render: " .. error_text(r) .. ")\n" }
      ::skip::
    end
  end
  reply.stdout = session.capture_end(cap)
  if res[1] then
    reply.values = values
  else
    reply.ok = false
    reply.error = error_text(res[2])
    if require("perflab.errors").is_fail(res[2]) then reply.user_error = true end
    if res[3] then reply.interrupted = true end   -- run_cell says Ctrl-C stopped it
  end
  return reply
end

--- The cell loop: one JSON object per line in, one per line out, on the
-- streams given (default stdin and the process stdout as it was at start).
function M.jsonl(opts)
  opts = opts or {}
  local cjson = require "cjson"
  local input = opts.input or io.stdin
  local session = require "perflab.session"
  local out = opts.output or session.protocol_stream()
  session.ignore_sigint()   -- between cells; session.run_cell turns it into "interrupted" during one
  -- a reply that cannot be written (a full disk, a closed reader) ends the
  -- loop with the error, as the host does for stdout (exit 2)
  local function send(t)
    local ok, err = out:write(json.encode(t), "\n")
    if ok then ok, err = out:flush() end
    if not ok then require("perflab.errors").fail("error writing standard output: " .. tostring(err)) end
  end
  for line in input:lines() do
    if line:match("%S") then
      local okd, req = pcall(cjson.decode, line)
      if not okd or type(req) ~= "table" then
        send({ ok = false, error = "bad request (expected one JSON object per line): " .. tostring(req), values = {},
            stdout = "" })
      else
        if req.id == cjson.null then req.id = nil end
        if math.type(req.id) == "float" and math.tointeger(req.id) then req.id = math.tointeger(req.id) end
        if type(req.complete) == "string" then
          local ok, matches, start = pcall(M.complete, req.complete)
          send(ok and { id = req.id, ok = true, matches = matches, start = start }
                  or { id = req.id, ok = false, error = error_text(matches) })
        elseif type(req.is_complete) == "string" then
          send({ id = req.id, ok = true, status = M.is_complete(req.is_complete) })
        else
          send(M.cell(req))
        end
      end
    end
  end
  return true
end

return M

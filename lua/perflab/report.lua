--- perflab.report: what a recipe produces.  A report collects findings
-- (severity, rule id, subject, message, evidence, optional speedup
-- estimate), tables, figures (SVG text) and notes, and renders as aligned
-- text, Markdown, JSON or CSV.  The JSON shape is documented in README.md
-- and is part of the API:
--   {"schema": 1, "recipe": NAME, "inputs": [{"source","format"}...],
--    "options": {...}, "findings": [{severity, rule, subject, message,
--    evidence, speedup_pct}...], "tables": {NAME: [{col: value}...]},
--    "figures": {NAME: {"title", "bytes"}}, "notes": [TEXT...]}
local ptable = require "perflab.table"
local json = require "perflab.json"
local errors = require "perflab.errors"

local Report = {}
Report.__index = Report
Report.__name = "perflab.Report"

-- severities and time-point columns: perflab.report_terms, which the
-- HTML page (perflab.html) shares without requiring this module
local terms = require "perflab.report_terms"
local levels = terms.levels
local M = { levels = levels }

M.severity = terms.severity

-- Option tables are strict (perflab.options): a misspelt key is an error.
local check = require("perflab.options").check

function M.new(fields)
  check(fields, { "input_meta", "inputs", "options", "recipe", "title" }, "perflab.report")
  fields = fields or {}
  return setmetatable({
    recipe = fields.recipe or "script",
    title = fields.title,
    inputs = fields.inputs or {},
    options = fields.options or {},
    findings = {},
    tables = {}, table_order = {}, table_info = {},
    figures = {}, figure_order = {},
    input_meta = fields.input_meta,   -- each input's profile meta (device), for the HTML page
    notes = {},
  }, Report)
end

--- Adds a finding.  f = {severity, rule, subject | kernel, message,
-- evidence = {...}, speedup_pct = n}.  Returns the finding.
function Report:finding(f)
  if type(f) ~= "table" then error("report:finding expects a table", 2) end
  if not f.message then error("report:finding: a finding needs a message", 2) end
  check(f, { "evidence", "kernel", "message", "rule", "saved_how", "saved_ns", "severity", "speedup_pct", "subject" },
      "report:finding")
  local g = {
    severity = M.severity(f.severity or "info"),
    rule = f.rule or self.recipe,
    subject = f.subject or f.kernel,
    message = f.message,
    evidence = f.evidence or {},
    speedup_pct = f.speedup_pct,
    -- time the fix would save over the whole input (ns) and how it was
    -- worked out: the summary ranks by it (perflab.summary)
    saved_ns = f.saved_ns, saved_how = f.saved_how,
  }
  self.findings[#self.findings + 1] = g
  return g
end

--- Adds (or replaces) a table under a name.  info = {title=, note=, rows=}:
--- rows (for a table that may be long, such as a path of 400,000 nodes):
--- text, Markdown and HTML show its first `rows` rows and say how many
--- more; JSON, CSV and --output DIR keep every row.
function Report:table(name, t, info)
  if not ptable.is_table(t) then error("report:table: expected a perflab table for '" .. tostring(name) .. "'", 2) end
  check(info, { "note", "rows", "title" }, "report:table")
  if not self.tables[name] then self.table_order[#self.table_order + 1] = name end
  self.tables[name] = t
  self.table_info[name] = info or {}
  return t
end

--- Adds a figure (SVG text).
function Report:figure(name, svg, info)
  check(info, { "title" }, "report:figure")
  if not self.figures[name] then self.figure_order[#self.figure_order + 1] = name end
  self.figures[name] = { svg = svg, title = (info and info.title) or name }
end

function Report:note(text) self.notes[#self.notes + 1] = text end

--- Report:breakdown(rows [, note]): where the time goes, for the summary of
--- `perflab run all`.  rows = {{subject = "rank 0" | "GPU 0" | ..., steps = n,
--- step_ns = mean step time, computation_ns =, communication_ns =, memcpy_ns =,
--- host_bound_ns =, idle_ns =, other_ns =}...}: the mean per step of each
--- category (missing ones are 0).
function Report:breakdown(rows, note)
  if type(rows) ~= "table" then error("report:breakdown expects a list of rows", 2) end
  local keys = { "communication_ns", "computation_ns", "host_bound_ns", "idle_ns", "memcpy_ns", "other_ns",
                 "step_ns", "steps", "subject" }
  for _, r in ipairs(rows) do check(r, keys, "report:breakdown") end
  self.time_breakdown = { rows = rows, note = note }
end

--- Report:collapse(why): the recipe's answer is empty or degenerate (one
--- rank, one step, ...): text, Markdown and HTML show one line saying why
--- instead of the tables; JSON keeps the tables and adds "collapsed".
function Report:collapse(why)
  self.collapsed = tostring(why)
end

--- Highest severity among findings (nil when none).
function Report:max_severity()
  local best
  for _, f in ipairs(self.findings) do
    if not best or levels[f.severity] > levels[best] then best = f.severity end
  end
  return best
end

--- Findings ordered: severity (highest first), then speedup, then as added.
function Report:sorted_findings()
  -- a recipe that ranked its findings itself (by time saved in a
  -- timeline, perflab.weighting) keeps its order
  if self.weighted_order then return { table.unpack(self.findings) } end
  local idx = {}
  for i, f in ipairs(self.findings) do idx[i] = { i = i, f = f } end
  table.sort(idx, function(a, b)
    local la, lb = levels[a.f.severity], levels[b.f.severity]
    if la ~= lb then return la > lb end
    local sa, sb = a.f.speedup_pct or -1, b.f.speedup_pct or -1
    if sa ~= sb then return sa > sb end
    return a.i < b.i
  end)
  local out = {}
  for k, e in ipairs(idx) do out[k] = e.f end
  return out
end

local fmtval

--- A column that holds a point in time (ns): start_ns, end_ns, *_start_ns, *_end_ns.
M.is_time_point = terms.is_time_point

--- relative_times(t, origin) -> t for display, note: the time-point columns
--- of epoch-based timestamps (origin past 1e15 ns) as seconds from the
--- trace start, renamed NAME_s+ ("start_s+"); the note says so.  JSON and CSV
--- keep the recorded nanoseconds.
function M.relative_times(t, origin)
  if not origin or origin < 1e15 then return t, nil end
  local types, cols, done = t:types(), nil, {}
  for _, c in ipairs(t:columns()) do
    if M.is_time_point(c) and (types[c] == "integer" or types[c] == "number") then
      cols = cols or t:copy()
      local name = c:gsub("_ns$", "_s+")
      cols = cols:with(c, (cols:col(c) - origin) / 1e9)
      cols:rename(c, name)
      done[#done + 1] = name
    end
  end
  if not cols then return t, nil end
  return cols, string.format("(%s: seconds from the trace start, %d ns since the epoch)", table.concat(done, ", "),
      math.floor(origin))
end

--- A rule that fired on more than this many subjects is shown as one
--- finding (how many, the worst first) and a table of every one.
M.fold_above = 10

--- Findings as shown: sorted, and each rule with more than M.fold_above
--- findings folded into one, at the place of its worst; returns the list
--- and the tables of the folded rules ({name, table, title}...).  The
--- report keeps every finding (report.findings; the summary reads them).
function Report:shown_findings()
  local fs = self:sorted_findings()
  local count = {}
  for _, f in ipairs(fs) do count[f.rule] = (count[f.rule] or 0) + 1 end
  local fold = false
  for _, n in pairs(count) do if n > M.fold_above then fold = true end end
  if not fold then return fs, {} end
  local out, members, tables = {}, {}, {}
  for _, f in ipairs(fs) do
    if count[f.rule] > M.fold_above then
      local m = members[f.rule]
      if not m then
        m = { list = {}, at = #out + 1 }
        members[f.rule] = m
        out[#out + 1] = false   -- the folded finding goes here
      end
      m.list[#m.list + 1] = f
    else
      out[#out + 1] = f
    end
  end
  local names = require "perflab.names"
  for i, f in ipairs(out) do
    if f == false then
      -- which rule: the one whose slot this is
      local rule, m
      for r, mm in pairs(members) do if mm.at == i then rule, m = r, mm end end
      local worst, best, sev = {}, nil, nil
      for k, g in ipairs(m.list) do
        if k <= 3 then
          local subj = g.subject and names.display(tostring(g.subject), 60) or names.display(g.message, 60)
          worst[#worst + 1] = subj .. (g.speedup_pct and string.format(" (est. %s %%)", fmtval(g.speedup_pct)) or "")
        end
        if g.speedup_pct and (not best or g.speedup_pct > best) then best = g.speedup_pct end
        if not sev or levels[g.severity] > levels[sev] then sev = g.severity end
      end
      local tname = "findings." .. rule
      out[i] = {
        severity = sev, rule = rule,
        message = string.format("%s fired on %d subjects (table %s lists every one); the worst: %s", rule, #m.list,
            tname,
          table.concat(worst, "; ")),
        evidence = { findings = #m.list, table = tname },
        speedup_pct = best,
      }
      local rows = {}
      for k, g in ipairs(m.list) do
        rows[k] = { subject = g.subject and names.display(tostring(g.subject)) or nil, severity = g.severity,
                    speedup_pct = g.speedup_pct, message = g.message, name = g.subject and tostring(g.subject) or nil }
      end
      tables[#tables + 1] = { name = tname, table = ptable.from_rows(rows,
          { "subject", "severity", "speedup_pct", "message", "name" }, tname),
        title = string.format("every finding of %s, the worst first (name: the full subject)", rule) }
    end
  end
  table.sort(tables, function(a, b) return a.name < b.name end)
  return out, tables
end

-- ---- rendering ------------------------------------------------------------

function fmtval(v)
  if type(v) == "number" then
    if math.type(v) == "integer" or (v == math.floor(v) and math.abs(v) < 1e15) then return string.format("%d", v) end
    local s = string.format("%.4g", v)
    return s
  end
  if type(v) == "table" then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = fmtval(x) end
    return table.concat(parts, ", ")
  end
  return tostring(v)
end

local function evidence_text(ev)
  local keys = {}
  for k in pairs(ev) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. fmtval(ev[k]) end
  return table.concat(parts, "  ")
end

local function inputs_text(self)
  local parts = {}
  for _, i in ipairs(self.inputs) do
    parts[#parts + 1] = string.format("%s (%s%s)", i.source, i.format, i.role and (", " .. i.role) or "")
  end
  return table.concat(parts, ", ")
end

--- Text that fits `width` columns (perflab.textfit: names shortened, text
--- cells cut, wide tables in blocks of columns; opts.full_names keeps names).
local function fit_table(t, width, max_rows, full_names)
  return require("perflab.textfit").fit(t, width, { max_rows = max_rows, full_names = full_names })
end

--- The rows of t that text and Markdown show (info.rows), and the line
--- saying how many more there are, or t and nil.
local function shown_rows(t, info)
  local n, all = info.rows, t:nrows()
  if not n or all <= n then return t, nil end
  return t:head(n), string.format("… %d more rows (%d in all: --format csv or json, or --output DIR, has every one)",
    all - n, all)
end

local function wrap(text, width, indent)
  if not width or #text + #indent <= width then return indent .. text end
  local lines, line = {}, indent
  for word in text:gmatch("%S+") do
    if #line > #indent and #line + 1 + #word > width then
      lines[#lines + 1] = line
      line = indent .. "  " .. word
    else
      line = (#line > #indent) and (line .. " " .. word) or (line .. word)
    end
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

function Report:render_text(opts)
  opts = opts or {}
  local width = opts.width
  local out = {}
  local head = self.recipe
  if #self.inputs > 0 then head = head .. " · " .. inputs_text(self) end
  out[#out + 1] = head
  if self.title then out[#out + 1] = self.title end
  if self.collapsed then
    out[#out + 1] = wrap("Not applicable: " .. self.collapsed, width, "  ")
    return table.concat(out, "\n") .. "\n"
  end
  out[#out + 1] = ""
  local fs, folded = self:shown_findings()
  if #fs > 0 then
    out[#out + 1] = string.format("Findings (%d)", #fs)
    for _, f in ipairs(fs) do
      local tag = string.format("[%s]", f.severity)
      local line = string.format("%-7s %s", tag, f.message)
      if f.speedup_pct then line = line .. string.format(" (est. speedup %s %%)", fmtval(f.speedup_pct)) end
      out[#out + 1] = wrap(line, width, "  ")
      local ev = evidence_text(f.evidence)
      if ev ~= "" then out[#out + 1] = wrap("rule " .. f.rule .. ": " .. ev, width, "          ") end
    end
    out[#out + 1] = ""
  end
  for _, name in ipairs(self.table_order) do
    local t, info = self.tables[name], self.table_info[name]
    out[#out + 1] = wrap(info.title and (name .. " — " .. info.title) or name, width, "")
    local rel, more
    t, more = shown_rows(t, info)
    t, rel = M.relative_times(t, self.origin_ns)
    out[#out + 1] = (fit_table(t, width, opts.max_rows, opts.full_names):gsub("\n$", ""))
    if more then out[#out + 1] = more end
    if rel then out[#out + 1] = rel end
    if info.note then out[#out + 1] = "" ; out[#out + 1] = wrap(info.note, width, "") end
    out[#out + 1] = ""
  end
  for _, ft in ipairs(folded) do
    out[#out + 1] = ft.name .. " — " .. ft.title
    out[#out + 1] = (fit_table(ft.table:select({ "subject", "severity", "speedup_pct", "message" }), width,
      opts.max_rows or 20, opts.full_names):gsub("\n$", ""))
    out[#out + 1] = ""
  end
  for _, n in ipairs(self.notes) do out[#out + 1] = wrap(n, width, "") ; out[#out + 1] = "" end
  for _, name in ipairs(self.figure_order) do
    out[#out + 1] = wrap(string.format("figure %s: %s (%d bytes of SVG; --output DIR writes it)", name,
      self.figures[name].title, #self.figures[name].svg), width, "")
  end
  while out[#out] == "" do out[#out] = nil end
  return table.concat(out, "\n") .. "\n"
end

local name_columns = { kernel = true, name = true, short_name = true, ["function"] = true, subject = true,
    operator = true }

local function code(s)
  s = tostring(s)
  if s:find("`", 1, true) then return "`` " .. s .. " ``" end
  return "`" .. s .. "`"
end

local function md_table(t, max_rows)
  local cols = t:columns()
  local types = t:types()
  local copy
  for _, c in ipairs(cols) do
    if name_columns[c] and types[c] == "string" then
      copy = copy or t:copy()
      local vals = {}
      for i = 1, copy:nrows() do
        local v = copy:get(i, c)
        vals[i] = v and code(v) or nil
      end
      local arr = {}
      for i = 1, copy:nrows() do arr[i] = vals[i] == nil and "" or vals[i] end
      copy:add_column(c, arr, "string")
      -- keep the column where it was
      local order = {}
      for _, cc in ipairs(cols) do order[#order + 1] = cc end
      copy = copy:select(order)
    end
  end
  return (copy or t):format { markdown = true, max_rows = max_rows }
end

local function md_escape(s) return (tostring(s):gsub("|", "\\|")) end

function Report:render_markdown(opts)
  opts = opts or {}
  local out = { "## " .. self.recipe }
  if self.title then out[#out + 1] = "" ; out[#out + 1] = self.title end
  if #self.inputs > 0 then
    out[#out + 1] = ""
    local parts = {}
    for _, i in ipairs(self.inputs) do
      parts[#parts + 1] = string.format("%s (%s%s)", code(i.source), i.format, i.role and (", " .. i.role) or "")
    end
    out[#out + 1] = "Inputs: " .. table.concat(parts, ", ")
  end
  if self.collapsed then
    out[#out + 1] = ""
    out[#out + 1] = "Not applicable: " .. self.collapsed
    return table.concat(out, "\n") .. "\n"
  end
  local fs, folded = self:shown_findings()
  if #fs > 0 then
    out[#out + 1] = ""
    out[#out + 1] = "### Findings"
    out[#out + 1] = ""
    for _, f in ipairs(fs) do
      local msg = md_escape(f.message)
      if f.subject then
        local s = tostring(f.subject)
        local at = msg:find(md_escape(s), 1, true)
        if at then msg = msg:sub(1, at - 1) .. code(s) .. msg:sub(at + #md_escape(s)) end
      end
      local line = string.format("- **%s** %s", f.severity, msg)
      if f.speedup_pct then line = line .. string.format(" (est. speedup %s %%)", fmtval(f.speedup_pct)) end
      local ev = evidence_text(f.evidence)
      line = line .. string.format(" — rule `%s`%s", f.rule, ev ~= "" and (": " .. ev) or "")
      out[#out + 1] = line
    end
  end
  for _, name in ipairs(self.table_order) do
    local info = self.table_info[name]
    out[#out + 1] = ""
    out[#out + 1] = "### " .. name .. (info.title and (" — " .. info.title) or "")
    out[#out + 1] = ""
    local t, more = shown_rows(self.tables[name], info)
    out[#out + 1] = (md_table(t, opts.max_rows):gsub("\n$", ""))
    if more then out[#out + 1] = "" ; out[#out + 1] = more end
    if info.note then out[#out + 1] = "" ; out[#out + 1] = info.note end
  end
  for _, ft in ipairs(folded) do
    out[#out + 1] = ""
    out[#out + 1] = "### " .. ft.name .. " — " .. ft.title
    out[#out + 1] = ""
    out[#out + 1] = (md_table(ft.table:select({ "subject", "severity", "speedup_pct", "message" }),
        opts.max_rows or 50):gsub("\n$", ""))
  end
  for _, n in ipairs(self.notes) do out[#out + 1] = "" ; out[#out + 1] = n end
  return table.concat(out, "\n") .. "\n"
end

function Report:to_data()
  local tables = json.object()
  for _, name in ipairs(self.table_order) do tables[name] = self.tables[name] end
  local figures = json.object()
  for _, name in ipairs(self.figure_order) do
    figures[name] = { title = self.figures[name].title, bytes = #self.figures[name].svg }
  end
  local fs, folded = self:shown_findings()
  local findings = {}
  for i, f in ipairs(fs) do
    -- name: the subject's full text (displays shorten it), as in CSV
    if f.subject ~= nil and f.name == nil then
      local c = {}
      for k, v in pairs(f) do c[k] = v end
      c.name = tostring(f.subject)
      f = c
    end
    findings[i] = f
  end
  for _, ft in ipairs(folded) do tables[ft.name] = ft.table end
  return {
    schema = 1, recipe = self.recipe, inputs = self.inputs, options = json.object(self.options),
    findings = findings, tables = tables, figures = figures, notes = self.notes,
    collapsed = self.collapsed,
  }
end

function Report:render_json()
  return json.encode(self:to_data(), "  ", "\n")
end

--- CSV: one table (opts.table, or the only one) as plain CSV; otherwise every
-- table, each after a line "# table: NAME", separated by blank lines.
function Report:render_csv(opts)
  opts = opts or {}
  local function findings_table()
    local rows = {}
    for i, f in ipairs(self:sorted_findings()) do
      -- subject as displayed (perflab.names), name in full (as the folded tables)
      rows[i] = { severity = f.severity, rule = f.rule,
                  subject = f.subject and require("perflab.names").display(tostring(f.subject)) or nil,
                  message = f.message, speedup_pct = f.speedup_pct, evidence = evidence_text(f.evidence),
                  name = f.subject and tostring(f.subject) or nil }
    end
    return ptable.from_rows(rows, { "severity", "rule", "subject", "message", "speedup_pct", "evidence", "name" },
        "findings")
  end
  if opts.table then
    if opts.table == "findings" then return findings_table():to_csv() end
    local t = self.tables[opts.table]
    if not t then errors.fail(string.format("report has no table '%s' (it has: %s)", opts.table,
        table.concat(self.table_order, ", "))) end
    return t:to_csv()
  end
  local names = {}
  for _, n in ipairs(self.table_order) do names[#names + 1] = n end
  if #self.findings > 0 then names[#names + 1] = "findings" end
  if #names == 1 then
    return names[1] == "findings" and findings_table():to_csv() or self.tables[names[1]]:to_csv()
  end
  local out = {}
  for _, n in ipairs(names) do
    local t = n == "findings" and findings_table() or self.tables[n]
    out[#out + 1] = "# table: " .. n .. "\n" .. t:to_csv()
  end
  return table.concat(out, "\n")
end

function Report:render(format, opts)
  check(opts, { "full_names", "max_rows", "table", "width" }, "report:render")
  format = format or "text"
  if format == "text" then return self:render_text(opts)
  elseif format == "markdown" or format == "md" then return self:render_markdown(opts)
  elseif format == "json" then return self:render_json(opts)
  elseif format == "csv" then return self:render_csv(opts)
  elseif format == "html" then return require("perflab.html").page({ self }, opts)
  end
  errors.fail(string.format("unknown output format '%s' (text, markdown, json, csv, html)", tostring(format)))
end

--- Report:write(fh, format [, opts]) -> fh: render(format, opts) written to
--- the file handle; JSON piece by piece (a table's text is never copied
--- into one string with the rest of the report)
function Report:write(fh, format, opts)
  if format == "json" then
    check(opts, { "full_names", "max_rows", "table", "width" }, "report:write")
    return json.write(fh, self:to_data(), "  ", "\n")
  end
  fh:write(self:render(format, opts))
  return fh
end

Report.__tostring = function(r) return r:render_text() end

function M.is_report(v) return getmetatable(v) == Report end
M.Report = Report

return M

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

local new_report

function M.new(fields)
  check(fields, { "input_meta", "inputs", "options", "recipe", "title" }, "perflab.report")
  fields = fields or {}
  return new_report(setmetatable({
    recipe = fields.recipe or "script",
    title = fields.title,
    inputs = fields.inputs or {},
    options = fields.options or {},
    _list = {}, finding_sets = {},
    tables = {}, table_order = {}, table_info = {},
    figures = {}, figure_order = {},
    input_meta = fields.input_meta,   -- each input's profile meta (device), for the HTML page
    notes = {},
  }, Report))
end

-- report.findings (stable API): every finding in the order added, as
-- finding tables.  Report:finding's are kept in _list; with sets of
-- Report:finding_set, reading report.findings makes the sets' findings
-- (once, until more are added).
local Findings = {}
local function all_of(p)
  local self = rawget(p, "_report")
  if #self.finding_sets == 0 then return self._list end
  if not self._all then self._all = self:all_findings() end
  return self._all
end
Findings.__index = function(p, i) return all_of(p)[i] end
Findings.__newindex = function(p, i, v) all_of(p)[i] = v end
Findings.__len = function(p) return #all_of(p) end
Findings.__pairs = function(p) return next, all_of(p), nil end
function new_report(r)
  r.findings = setmetatable({ _report = r }, Findings)
  return r
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
  self._list[#self._list + 1] = g
  self._all = nil
  return g
end

-- the findings of a set as finding tables (Report:finding's fields)
local function set_findings(set)
  local out = {}
  for i = 1, set.t:nrows() do
    local r = set.t:row(i)
    out[i] = { severity = set.severity, rule = set.rule, subject = set.subject and r[set.subject] or nil,
      message = r[set.message], speedup_pct = set.speedup_pct and r[set.speedup_pct] or nil,
      evidence = set.evidence and set.evidence(r) or {} }
  end
  return out
end

--- Report:finding_set(t, spec) adds one finding per row of the table t, each
-- built by column operations (no Lua table per finding): spec = {rule =,
-- severity =, subject = COL, message = COL, speedup_pct = COL (optional),
-- evidence = fn(row) -> evidence (called only where a finding is shown on
-- its own), columns = {COL...} (figures the rule's table of every finding
-- shows beside each message: launches, time_ns, ...)}.  A set of more than
-- M.fold_above findings is folded as every rule is (shown_findings) and its
-- table is built from the columns; Report:all_findings() gives each as a
-- finding.  With spec.expand the findings are added one by one
-- (Report:finding) and returned in row order, for a recipe that needs each
-- (perflab.weighting).  spec.order names a number column: the rows of the
-- sets added one after the other (no Report:finding between them) count
-- as added in the order of that key (a recipe that makes its findings
-- per launch group, rule by rule, keeps the group order); without it, in
-- row order, set after set.
function Report:finding_set(t, spec)
  if not ptable.is_table(t) then error("report:finding_set: expected a perflab table", 2) end
  check(spec, { "columns", "evidence", "expand", "message", "order", "rule", "severity", "speedup_pct", "subject" },
      "report:finding_set")
  if not spec.message or not t:has(spec.message) then error("report:finding_set: spec.message names no column", 2) end
  for _, c in ipairs({ spec.subject, spec.speedup_pct, spec.order, table.unpack(spec.columns or {}) }) do
    if not t:has(c) then error("report:finding_set: no column '" .. tostring(c) .. "'", 2) end
  end
  local set = { t = t, rule = spec.rule or self.recipe, severity = M.severity(spec.severity or "info"),
    subject = spec.subject, message = spec.message, speedup_pct = spec.speedup_pct, evidence = spec.evidence,
    columns = spec.columns or {}, order = spec.order, after = #self._list }
  if spec.expand then
    local out = {}
    for i, f in ipairs(set_findings(set)) do out[i] = self:finding(f) end
    return out
  end
  if t:nrows() > 0 then self.finding_sets[#self.finding_sets + 1] = set; self._all = nil end
end

-- each set's place in the order added, as a number column _seq: finding i
-- of report._list is i; the sets added after finding a (one block) lie
-- between a and a + 1, in the order of their order key (or of their rows)
local function set_seqs(self)
  local out, i = {}, 1
  local sets = self.finding_sets
  while i <= #sets do
    local j = i
    while j < #sets and sets[j + 1].after == sets[i].after do j = j + 1 end
    local ords, offset, maxo = {}, 0, 0
    for x = i, j do
      local st = sets[x].t
      ords[x] = sets[x].order and st:col(sets[x].order) / 1 or (st:rownum() + offset) / 1
      offset = offset + st:nrows()
      maxo = math.max(maxo, ords[x]:max() or 0)
    end
    for x = i, j do out[x] = ords[x] / (2 * (maxo + 1)) + (sets[x].after + 0.5) end
    i = j + 1
  end
  return out
end

--- Report:all_findings() -> every finding in the order added, those of
--- Report:finding_set as finding tables too (report.findings holds the others).
function Report:all_findings()
  if #self.finding_sets == 0 then return self._list end
  local seqs, keyed = set_seqs(self), {}
  for i, f in ipairs(self._list) do keyed[#keyed + 1] = { f = f, seq = i, n = #keyed } end
  for si, set in ipairs(self.finding_sets) do
    local sq = seqs[si]:to_lua()
    for j, f in ipairs(set_findings(set)) do keyed[#keyed + 1] = { f = f, seq = sq[j], n = #keyed } end
  end
  table.sort(keyed, function(a, b)
    if a.seq ~= b.seq then return a.seq < b.seq end
    return a.n < b.n
  end)
  local out = {}
  for i, e in ipairs(keyed) do out[i] = e.f end
  return out
end

--- Report:finding_count() -> how many findings (report.findings and Report:finding_set' rows).
function Report:finding_count()
  local n = #self._list
  for _, set in ipairs(self.finding_sets) do n = n + set.t:nrows() end
  return n
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
  for _, f in ipairs(self._list) do
    if not best or levels[f.severity] > levels[best] then best = f.severity end
  end
  for _, set in ipairs(self.finding_sets) do
    if not best or levels[set.severity] > levels[best] then best = set.severity end
  end
  return best
end

--- Findings ordered: severity (highest first), then speedup, then as added.
function Report:sorted_findings()
  -- a recipe that ranked its findings itself (by time saved in a
  -- timeline, perflab.weighting) keeps its order
  local all = self:all_findings()
  if self.weighted_order then return { table.unpack(all) } end
  local idx = {}
  for i, f in ipairs(all) do idx[i] = { i = i, f = f } end
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
local shown_with_sets

function Report:shown_findings()
  if #self.finding_sets > 0 then return shown_with_sets(self) end
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

-- a column c of type ty in t (absent or untyped: every row missing)
local function typed(t, c, ty)
  if not t:has(c) or t:col(c):count() == 0 then return t:with(c, t:const(nil, ty)) end
  local have = t:col(c):type()
  if have == ty then return t end
  if ty == "number" and have == "integer" then return t:with(c, t:col(c) / 1) end
  return t:with(c, t:col(c):map(function(v) return tostring(v) end))
end

-- shown_findings where Report:finding_set added sets: the same order (severity,
-- speedup, as added) and folding, each folded rule's table built from
-- columns (concat, order and take in C; display names once per distinct name)
function shown_with_sets(self)
  local names = require "perflab.names"
  local sets = self.finding_sets
  -- the order added: report.findings interleaved with the sets' rows
  local seqs, seq_of = set_seqs(self), {}
  for i = 1, #self._list do seq_of[i] = i end
  local count = {}
  for _, set in ipairs(sets) do count[set.rule] = (count[set.rule] or 0) + set.t:nrows() end
  for _, f in ipairs(self._list) do count[f.rule] = (count[f.rule] or 0) + 1 end
  local entries, folds, fold_rules = {}, {}, {}
  local function fold_of(rule)
    if not folds[rule] then folds[rule] = { lua = {}, sets = {} }; fold_rules[#fold_rules + 1] = rule end
    return folds[rule]
  end
  for i, f in ipairs(self._list) do
    if count[f.rule] > M.fold_above then
      local l = fold_of(f.rule).lua
      l[#l + 1] = { name = f.subject and tostring(f.subject) or nil, severity = f.severity,
        speedup_pct = f.speedup_pct, message = f.message, _lvl = levels[f.severity], _seq = seq_of[i] }
    else
      entries[#entries + 1] = { lvl = levels[f.severity], sp = f.speedup_pct or -1, seq = seq_of[i], f = f }
    end
  end
  for si, set in ipairs(sets) do
    if count[set.rule] > M.fold_above then
      local l = fold_of(set.rule).sets
      l[#l + 1] = { set = set, seq = seqs[si] }
    else
      local sq = seqs[si]:to_lua()
      for j, f in ipairs(set_findings(set)) do
        entries[#entries + 1] = { lvl = levels[f.severity], sp = f.speedup_pct or -1, seq = sq[j], f = f }
      end
    end
  end
  local tables = {}
  for _, rule in ipairs(fold_rules) do
    local fd = folds[rule]
    -- the columns every part has: the findings' fields and the sets' figures
    local extra, extra_type = {}, {}
    for _, e in ipairs(fd.sets) do
      local ty = e.set.t:types()
      for _, c in ipairs(e.set.columns) do
        if not extra_type[c] then extra[#extra + 1] = c; extra_type[c] = ty[c] end
      end
    end
    local cols = { name = "string", severity = "string", speedup_pct = "number", message = "string",
      _lvl = "integer", _seq = "number" }
    for c, ty in pairs(extra_type) do cols[c] = ty end
    local order = { "name", "severity", "speedup_pct", "message", "_lvl", "_seq" }
    for _, c in ipairs(extra) do order[#order + 1] = c end
    local parts = {}
    local function conform(t)
      for _, c in ipairs(order) do t = typed(t, c, cols[c]) end
      return t:select(order)
    end
    if #fd.lua > 0 then parts[#parts + 1] = conform(ptable.from_rows(fd.lua, order)) end
    for _, e in ipairs(fd.sets) do
      local set, st = e.set, e.set.t
      local q = st:select({})
      q:with("name", set.subject and st:col(set.subject) or st:const(nil, "string"))
      q:with("severity", st:const(set.severity))
      q:with("speedup_pct", set.speedup_pct and st:col(set.speedup_pct) or st:const(nil, "number"))
      q:with("message", st:col(set.message))
      q:with("_lvl", st:const(levels[set.severity]))
      q:with("_seq", e.seq)
      for _, c in ipairs(set.columns) do q:with(c, st:col(c)) end
      parts[#parts + 1] = conform(q)
    end
    local all = #parts == 1 and parts[1] or ptable.concat(table.unpack(parts))
    all:with("_sp", all:col("speedup_pct"):fill(-1))
    local sorted = all:take(all:order("-_lvl", "-_sp", "_seq"))
    local n = sorted:nrows()
    local top = sorted:head(3):to_lua()
    local worst = {}
    for i, g in ipairs(top) do
      local subj = g.name and names.display(g.name, 60) or names.display(g.message, 60)
      worst[i] = subj .. (g.speedup_pct and string.format(" (est. %s %%)", fmtval(g.speedup_pct)) or "")
    end
    local tname = "findings." .. rule
    local f = {
      severity = top[1].severity, rule = rule,
      message = string.format("%s fired on %d subjects (table %s lists every one); the worst: %s", rule, n, tname,
        table.concat(worst, "; ")),
      evidence = { findings = n, table = tname },
      speedup_pct = sorted:col("speedup_pct"):max(),
    }
    entries[#entries + 1] = { lvl = top[1]._lvl, sp = top[1]._sp, seq = top[1]._seq, f = f }
    local out = sorted:select({})
    out:with("subject", sorted:col("name"):map(function(v) return names.display(v) end))
    for _, c in ipairs({ "severity", "speedup_pct" }) do out:with(c, sorted:col(c)) end
    for _, c in ipairs(extra) do out:with(c, sorted:col(c)) end
    out:with("message", sorted:col("message"))
    out:with("name", sorted:col("name"))
    out:name(tname)
    tables[#tables + 1] = { name = tname, table = out,
      title = string.format("every finding of %s, the worst first (name: the full subject)", rule) }
  end
  table.sort(entries, function(a, b)
    if a.lvl ~= b.lvl then return a.lvl > b.lvl end
    if a.sp ~= b.sp then return a.sp > b.sp end
    return a.seq < b.seq
  end)
  local out = {}
  for i, e in ipairs(entries) do out[i] = e.f end
  table.sort(tables, function(a, b) return a.name < b.name end)
  return out, tables
end

-- the columns of a folded rule's table that the text and Markdown show (all
-- but the full name)
local function fold_shown(t)
  local cols = {}
  for _, c in ipairs(t:columns()) do if c ~= "name" then cols[#cols + 1] = c end end
  return t:select(cols)
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

--- The rows of t that text and Markdown show (info.rows, and at most `cap`:
--- render's max_rows, which `perflab report` sets), and the line saying how
--- many more there are, or t and nil.
local function shown_rows(t, info, cap)
  local n, all = info.rows, t:nrows()
  if cap and cap > 0 and (not n or cap < n) then n = cap end
  if not n or all <= n then return t, nil end
  return t:head(n),
      string.format("… %d more rows (%d in all: --max-rows 0 prints every one; --output DIR and --format json have them)",
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
      local line = string.format("%-7s %s", tag,
        opts.full_names and f.message or require("perflab.names").lead(f.message, f.subject))
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
    t, more = shown_rows(t, info, opts.max_rows)
    t, rel = M.relative_times(t, self.origin_ns)
    out[#out + 1] = (fit_table(t, width, nil, opts.full_names):gsub("\n$", ""))
    if more then out[#out + 1] = more end
    if rel then out[#out + 1] = rel end
    if info.note then out[#out + 1] = "" ; out[#out + 1] = wrap(info.note, width, "") end
    out[#out + 1] = ""
  end
  for _, ft in ipairs(folded) do
    out[#out + 1] = ft.name .. " — " .. ft.title
    out[#out + 1] = (fit_table(fold_shown(ft.table), width,
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
    local t, more = shown_rows(self.tables[name], info, opts.max_rows)
    out[#out + 1] = (md_table(t):gsub("\n$", ""))
    if more then out[#out + 1] = "" ; out[#out + 1] = more end
    if info.note then out[#out + 1] = "" ; out[#out + 1] = info.note end
  end
  for _, ft in ipairs(folded) do
    out[#out + 1] = ""
    out[#out + 1] = "### " .. ft.name .. " — " .. ft.title
    out[#out + 1] = ""
    out[#out + 1] = (md_table(fold_shown(ft.table),
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
  if self:finding_count() > 0 then names[#names + 1] = "findings" end
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

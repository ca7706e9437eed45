--- perflab.summary: the answer first.  From the reports of several recipes
-- run on the same inputs (perflab run all, perflab report), two things:
--
--   * where the time goes: one stacked bar per device or rank (computation,
--     communication, memcpy, idle, host-bound, other) per step, from any
--     recipe that declared a breakdown (report:breakdown);
--   * what to fix first: every recipe's findings, merged by subject (one
--     kernel flagged by launch, occupancy and ncu-rules is one action with
--     the evidence of each) and ranked by the estimated time saved per step.
--
-- Nothing here names a recipe: a recipe joins by declaring a breakdown and
-- by giving its findings a speedup estimate (speedup_pct of its subject's
-- time, or saved_ns: time saved over the whole input).
--
--   summary.build(reports, inputs) -> summary
--   summary.render(s, format, opts) -> text (text, markdown)
--   summary.to_data(s) -> JSON-ready table
--   summary.html(s, anchors) -> HTML fragment
local units = require "perflab.units"
local levels = require("perflab.report_terms").levels
local names = require "perflab.names"

local M = {}

--- The categories of a breakdown, in bar order, with a letter for text bars.
M.categories = {
  { key = "computation", label = "computation", letter = "C", color = "#0072B2" },
  { key = "communication", label = "communication", letter = "N", color = "#D55E00" },
  { key = "memcpy", label = "memcpy", letter = "M", color = "#009E73" },
  { key = "host_bound", label = "host-bound", letter = "H", color = "#E69F00" },
  { key = "idle", label = "idle", letter = ".", color = "#BBBBBB" },
  { key = "other", label = "other", letter = "o", color = "#CC79A7" },
}

-- ---- where the time goes ------------------------------------------------------

--- The breakdown to show: the declaring report with the most subjects (ranks
--- over one process), then the most categories, then the first.
local function pick_breakdown(reports)
  local best, bscore
  for i, rep in ipairs(reports) do
    local b = rep.time_breakdown
    if b and #b.rows > 0 then
      local ncat = 0
      for _, c in ipairs(M.categories) do
        for _, r in ipairs(b.rows) do if (r[c.key .. "_ns"] or 0) > 0 then ncat = ncat + 1; break end end
      end
      local score = #b.rows * 100 + ncat
      if not bscore or score > bscore then best, bscore = { recipe = rep.recipe, index = i, rows = b.rows,
          note = b.note }, score end
    end
  end
  return best
end

-- ---- what to fix first ----------------------------------------------------------

--- Kernel time per short name in the timelines among the inputs.
local function kernel_index(inputs)
  local ok, weighting = pcall(require, "perflab.weighting")
  if not ok then return nil end
  local _, timelines = weighting.split(inputs or {})
  if #timelines == 0 then return nil end
  local ix = weighting.index(timelines)
  if ix.total_ns <= 0 then return nil end
  -- launches per short name, to give a finding about n of N launches n/N
  local count = {}
  for _, p in ipairs(timelines) do
    local t = p.tables.kernels
    if t and t:has("short_name") then
      for _, r in t:group_by("short_name"):agg({ { "n", "count" } }):rows() do
        if r.short_name then count[r.short_name] = (count[r.short_name] or 0) + r.n end
      end
    end
  end
  ix.count = count
  -- the run's span on the device: first kernel start to last kernel end
  local lo, hi
  for _, p in ipairs(timelines) do
    local t = p.tables.kernels
    if t and t:nrows() > 0 and t:has("start_ns") and t:has("duration_ns") then
      local s0 = t:col("start_ns"):min()
      local e1 = (t:col("start_ns") + t:col("duration_ns")):max()
      if s0 and (not lo or s0 < lo) then lo = s0 end
      if e1 and (not hi or e1 > hi) then hi = e1 end
    end
  end
  if lo and hi and hi > lo then ix.span_ns = hi - lo end
  -- summaries that list part of what the input records (a key_averages
  -- table cut by row_limit, a paddle Kernel Summary excerpt): the total
  -- the input records (meta kernel_summary_total_ns) is the basis
  local rec, cut, what = 0, false, nil
  for _, p in ipairs(timelines) do
    local k, ks = p.tables.kernels, p.tables.kernel_summary
    if not (k and k:nrows() > 0 and k:has("duration_ns")) and ks and ks:has("total_ns") then
      local listed = ks:col("total_ns"):sum() or 0
      local r = p.meta and p.meta.kernel_summary_total_ns
      if type(r) == "number" and r > listed then
        rec, cut = rec + r, true
        what = (what == nil or what == p.meta.kernel_summary_total_what) and p.meta.kernel_summary_total_what
            or "device time"
      else
        rec = rec + listed
      end
    else
      rec = nil
      break
    end
  end
  if rec and cut then ix.recorded_ns, ix.recorded_what = rec, what or "device time" end
  return ix
end

--- Steps and the mean step time: from the breakdown, else one step (the
--- whole input) measured as the kernel time of the timeline.
local function step_basis(bd, kix)
  if bd then
    local steps, step_ns = 0, 0
    for _, r in ipairs(bd.rows) do
      steps = math.max(steps, r.steps or 0)
      step_ns = math.max(step_ns, r.step_ns or 0)
    end
    if steps > 0 and step_ns > 0 then
      return { steps = steps, step_ns = step_ns, of = "step", what = string.format("%d step%s of %s (from %s)",
        steps, steps == 1 and "" or "s", units.ns(step_ns), bd.recipe), per = "step" }
    end
  end
  if kix and kix.span_ns then
    return { steps = 1, step_ns = kix.span_ns, per = "run", of = "run",
      what = string.format("no steps recorded: savings are per run, %% of the run's span on the device (%s, first kernel start to last kernel end)",
        units.ns(kix.span_ns)) }
  elseif kix and kix.recorded_ns then
    return { steps = 1, step_ns = kix.recorded_ns, per = "run", of = "recorded " .. kix.recorded_what,
      what = string.format("no steps recorded: savings are per run, %% of the %s of %s the input records (its "
        .. "tables list %s of kernel time: an excerpt, so a saving's share is of the whole, not of the list)",
        units.ns(kix.recorded_ns), kix.recorded_what, units.ns(kix.total_ns)) }
  elseif kix then
    return { steps = 1, step_ns = kix.total_ns, per = "run", of = "kernel time",
      what = string.format("no steps recorded: savings are per run, %% of the run's kernel time (%s)",
          units.ns(kix.total_ns)) }
  end
  return nil
end

local function subject_key(s)
  if s == nil then return nil end
  return names.short(tostring(s))
end

--- The reason an estimate of a per-kernel speedup cannot be a time.
local NO_TIMELINE = "no timeline among the inputs says how long the kernel runs"

--- The time a finding would save over the whole input, with the formula
--- (nil and why not; with NO_TIMELINE, the finding's speedup as a third value).
local function saving(f, kix)
  if f.saved_ns then
    return f.saved_ns, f.saved_how or "saved time as the recipe estimated it"
  end
  local ev = f.evidence or {}
  if type(ev.saved_ns) == "number" then
    return ev.saved_ns, "kernel time in the timeline x est. speedup / 100"
  end
  if not f.speedup_pct then
    return nil, "the finding carries no speedup estimate"
  end
  if not kix then
    return nil, NO_TIMELINE, f.speedup_pct
  end
  -- the kernels the finding is about: its subject, or the evidence's list
  local ks = {}
  if type(ev.kernels) == "table" and #ev.kernels > 0 then
    for _, k in ipairs(ev.kernels) do ks[#ks + 1] = k end
  elseif f.subject then
    ks[1] = f.subject
  end
  local ns, nk = 0, 0
  for _, k in ipairs(ks) do
    local short = names.short(tostring(k))
    local t = kix.by_name[short]
    if t then ns = ns + t; nk = nk + 1 end
  end
  if nk == 0 then
    return nil, string.format("est. speedup %s %%, but %s is not a kernel of the timeline", units.sig(f.speedup_pct, 3),
      f.subject and names.display(tostring(f.subject)) or "its subject")
  end
  local how = "kernel time x est. speedup / 100"
  -- a finding about n of its kernels' N launches claims n/N of their time
  if type(ev.launches) == "number" and ev.launches > 0 and kix.count then
    local all = 0
    for _, k in ipairs(ks) do all = all + (kix.count[names.short(tostring(k))] or 0) end
    if all > ev.launches then
      ns = ns * ev.launches / all
      how = string.format("kernel time x %d/%d launches x est. speedup / 100", ev.launches, all)
    end
  end
  return ns * f.speedup_pct / 100, how
end

--- build(reports, inputs) -> { breakdown, basis, actions, unestimated }
function M.build(reports, inputs)
  local bd = pick_breakdown(reports)
  local kix = kernel_index(inputs)
  local basis = step_basis(bd, kix)
  local actions, by_key = {}, {}
  for ri, rep in ipairs(reports) do
    if not rep.collapsed then
      for _, f in ipairs(rep:all_findings()) do
        local total, how, unplaced = saving(f, kix)
        local per = total and basis and total / basis.steps or nil
        local ev = { recipe = rep.recipe, section = ri, rule = f.rule, severity = f.severity, message = f.message,
                     speedup_pct = f.speedup_pct, saving_ns = per, formula = how, evidence = f.evidence,
                     subject = f.subject, unplaced_pct = unplaced }
        local key = subject_key(f.subject)
        local a = key and by_key[key]
        if not a then
          a = { key = key, subject = f.subject, items = {} }
          actions[#actions + 1] = a
          if key then by_key[key] = a end
        end
        a.items[#a.items + 1] = ev
      end
    end
  end
  -- an action's estimate: the largest of its items' (they overlap: not added)
  for i, a in ipairs(actions) do
    a.order = i
    local best, worst
    for _, it in ipairs(a.items) do
      if it.saving_ns and (not best or it.saving_ns > best.saving_ns) then best = it end
      if not worst or levels[it.severity] > levels[worst] then worst = it.severity end
    end
    a.severity = worst
    a.lead = best or a.items[1]
    -- the item that leads: the estimate's, else the most severe
    if not best then
      for _, it in ipairs(a.items) do if levels[it.severity] > levels[a.lead.severity] then a.lead = it end end
    end
    if best then
      a.saving_ns = best.saving_ns
      a.saving_pct = basis and basis.step_ns > 0 and 100 * best.saving_ns / basis.step_ns or nil
      a.formula = best.formula .. (basis and basis.steps > 1 and string.format(" / %d steps", basis.steps) or "")
      if #a.items > 1 then a.formula = a.formula
          .. " (the largest estimate of its findings: they overlap, not added)" end
    else
      -- one reason once: the speedups that no timeline sizes said together
      -- ("est. speedup 11-59.5 % of its kernel (4 findings), but no
      -- timeline ..."), and "carries no estimate" only where no item has one
      local whys, seen, lo, hi, n = {}, {}, nil, nil, 0
      for _, it in ipairs(a.items) do
        if it.unplaced_pct then
          n = n + 1
          lo = math.min(lo or it.unplaced_pct, it.unplaced_pct)
          hi = math.max(hi or it.unplaced_pct, it.unplaced_pct)
        end
      end
      if n > 0 then
        whys[1] = string.format("est. speedup %s %% of its kernel%s, but %s",
          lo == hi and units.sig(hi, 3) or (units.sig(lo, 3) .. "-" .. units.sig(hi, 3)),
          n > 1 and string.format(" (%d findings)", n) or "", NO_TIMELINE)
        seen["the finding carries no speedup estimate"] = true
      end
      for _, it in ipairs(a.items) do
        if not it.unplaced_pct and not seen[it.formula] then seen[it.formula] = true; whys[#whys + 1] = it.formula end
      end
      a.why = table.concat(whys, "; ")
    end
    local secs, sseen = {}, {}
    for _, it in ipairs(a.items) do
      if not sseen[it.recipe] then sseen[it.recipe] = true; secs[#secs + 1] = { recipe = it.recipe,
          index = it.section } end
    end
    a.sections = secs
  end
  table.sort(actions, function(x, y)
    if (x.saving_ns ~= nil) ~= (y.saving_ns ~= nil) then return x.saving_ns ~= nil end
    if x.saving_ns and x.saving_ns ~= y.saving_ns then return x.saving_ns > y.saving_ns end
    local lx, ly = levels[x.severity], levels[y.severity]
    if lx ~= ly then return lx > ly end
    return x.order < y.order
  end)
  return { breakdown = bd, basis = basis, actions = actions }
end

-- ---- rendering ---------------------------------------------------------------------

local function row_total(r)
  local t = 0
  for _, c in ipairs(M.categories) do t = t + (r[c.key .. "_ns"] or 0) end
  return t
end

local function text_bar(r, width)
  local total = row_total(r)
  if total <= 0 then return string.rep(" ", width) end
  local out, used = {}, 0
  for _, c in ipairs(M.categories) do
    local v = r[c.key .. "_ns"] or 0
    local n = math.floor(width * v / total + 0.5)
    if v > 0 and n == 0 then n = 1 end
    n = math.min(n, width - used)
    out[#out + 1] = string.rep(c.letter, n)
    used = used + n
  end
  return table.concat(out) .. string.rep(" ", width - used)
end

local function shares(r)
  local total = row_total(r)
  local parts = {}
  for _, c in ipairs(M.categories) do
    local v = r[c.key .. "_ns"] or 0
    if v > 0 and total > 0 then parts[#parts + 1] = string.format("%s %s", c.label, units.pct(100 * v / total, 3)) end
  end
  return table.concat(parts, ", ")
end

local function per_text(s)
  return s.basis and s.basis.per or "step"
end

local function action_head(a, s)
  if a.saving_ns then
    return string.format("%s per %s%s", units.ns(a.saving_ns, 3), per_text(s),
      a.saving_pct and string.format(" (%s of the %s)", units.pct(a.saving_pct, 3), s.basis.of) or "")
  end
  return "no estimate"
end

local function action_title(a, full)
  local subj = a.subject and (full and tostring(a.subject) or names.display(tostring(a.subject))) or nil
  -- a message that opens with a long kernel name shows its display name
  local msg = full and a.lead.message or names.lead(a.lead.message, a.lead.subject or a.subject)
  -- messages that open with their subject do not get it twice
  if not subj or msg:sub(1, #tostring(a.subject)) == tostring(a.subject) or msg:find(subj, 1, true) then return msg end
  return subj .. ": " .. msg
end

--- Text lines of the summary (opts.width wraps; opts.max_actions, default 10).
function M.render(s, format, opts)
  opts = opts or {}
  local md = format == "markdown"
  local out = {}
  local maxa = opts.max_actions or 10
  out[#out + 1] = md and "## Summary" or "Summary"
  out[#out + 1] = ""
  out[#out + 1] = md and "### Where the time goes" or "Where the time goes"
  local bd = s.breakdown
  if not bd then
    out[#out + 1] = (md and "" or "  ") .. "No recipe broke the time down (no steps or timeline in the inputs)."
  else
    out[#out + 1] = (md and "" or "  ") .. string.format("per step, mean; from %s%s", bd.recipe,
      bd.note and ("; " .. bd.note) or "")
    if md then out[#out + 1] = "" ; out[#out + 1] = "| subject | steps | per step | shares |" ; out[#out + 1] = "|---|--:|--:|---|" end
    local wsub = 4
    for _, r in ipairs(bd.rows) do wsub = math.max(wsub, utf8.len(tostring(r.subject)) or 4) end
    for _, r in ipairs(bd.rows) do
      if md then
        out[#out + 1] = string.format("| %s | %d | %s | %s |", tostring(r.subject), r.steps or 0,
            units.ns(r.step_ns or row_total(r), 3), shares(r))
      else
        out[#out + 1] = string.format("  %-" .. wsub .. "s  %s/step  [%s]  %s", tostring(r.subject),
          units.ns(r.step_ns or row_total(r), 3), text_bar(r, 40), shares(r))
      end
    end
    if not md then
      local leg = {}
      for _, c in ipairs(M.categories) do leg[#leg + 1] = c.letter .. " " .. c.label end
      out[#out + 1] = "  (" .. table.concat(leg, ", ") .. ")"
    end
  end
  out[#out + 1] = ""
  out[#out + 1] = md and "### What to fix first" or "What to fix first"
  if s.basis then out[#out + 1] = (md and "" or "  ") .. "ranked by estimated time saved per " .. per_text(s) .. "; "
      .. s.basis.what end
  if #s.actions == 0 then
    out[#out + 1] = (md and "" or "  ") .. "No recipe found anything to fix."
  end
  if md then out[#out + 1] = "" end
  for i, a in ipairs(s.actions) do
    if i > maxa then
      out[#out + 1] = string.format(md and "- … %d more actions (JSON and HTML list every one)"
          or "  … %d more actions (JSON and HTML list every one)", #s.actions - maxa)
      break
    end
    local secs = {}
    for _, x in ipairs(a.sections) do secs[#secs + 1] = md and ("[" .. x.recipe .. "](#" .. x.recipe .. ")")
        or x.recipe end
    if md then
      out[#out + 1] = string.format("%d. **%s** [%s] %s — see %s", i, action_head(a, s), a.severity,
        action_title(a, opts.full_names):gsub("|", "\\|"), table.concat(secs, ", "))
      out[#out + 1] = "   - " .. (a.saving_ns and ("estimate: " .. a.formula) or ("no estimate: " .. a.why))
      for _, it in ipairs(a.items) do
        if #a.items > 1 then out[#out + 1] = string.format("   - `%s`: %s", it.rule, it.message) end
      end
    else
      out[#out + 1] = string.format("  %d. %s  [%s] %s  (see %s)", i, action_head(a, s), a.severity,
          action_title(a, opts.full_names),
        table.concat(secs, ", "))
      out[#out + 1] = "     " .. (a.saving_ns and ("estimate: " .. a.formula) or ("no estimate: " .. a.why))
      if #a.items > 1 then
        for _, it in ipairs(a.items) do
          out[#out + 1] = string.format("     - %s%s: %s", it.rule,
            it.saving_ns and (" (" .. units.ns(it.saving_ns, 3) .. ")") or "",
            units.label(opts.full_names and it.message or names.lead(it.message, it.subject), 160))
        end
      end
    end
  end
  if not md then
    -- fit the terminal, or 120 columns: long lines wrap under their indent
    local width = opts.width or 120
    local wrapped = {}
    for _, l in ipairs(out) do
      if (utf8.len(l) or #l) <= width then wrapped[#wrapped + 1] = l
      else
        local indent = l:match("^%s*%d*%.?%s*") or ""
        local cont = string.rep(" ", math.min(#indent + 0, 12))
        if l:match("^%s+%- ") then cont = l:match("^(%s+)") .. "  " end
        local line = ""
        for word in l:gmatch("%S+") do
          local lead = line == "" and (l:match("^(%s*)") or "") or (line .. " ")
          if line ~= "" and (utf8.len(lead .. word) or #lead + #word) > width then
            wrapped[#wrapped + 1] = line
            line = cont .. word
          else
            line = lead .. word
          end
        end
        wrapped[#wrapped + 1] = line
      end
    end
    out = wrapped
  end
  return table.concat(out, "\n") .. "\n"
end

--- JSON-ready summary.
function M.to_data(s)
  local json = require "perflab.json"
  local bd
  if s.breakdown then
    local rows = {}
    for i, r in ipairs(s.breakdown.rows) do
      local o = json.object({ subject = tostring(r.subject), steps = r.steps, step_ns = r.step_ns })
      for _, c in ipairs(M.categories) do o[c.key .. "_ns"] = r[c.key .. "_ns"] or 0 end
      rows[i] = o
    end
    bd = { recipe = s.breakdown.recipe, rows = rows, note = s.breakdown.note }
  end
  local acts = {}
  for i, a in ipairs(s.actions) do
    local items = {}
    for k, it in ipairs(a.items) do
      items[k] = { recipe = it.recipe, rule = it.rule, severity = it.severity, message = it.message,
                   speedup_pct = it.speedup_pct, saving_ns = it.saving_ns, formula = it.formula,
                   evidence = json.object(it.evidence or {}) }
    end
    local secs = {}
    for k, x in ipairs(a.sections) do secs[k] = x.recipe end
    acts[i] = { rank = i, subject = a.subject and tostring(a.subject) or nil,
                display = a.subject and names.display(tostring(a.subject)) or nil,
                severity = a.severity, message = a.lead.message, saving_ns = a.saving_ns, saving_pct = a.saving_pct,
                formula = a.formula, no_estimate = a.why, sections = secs, findings = items }
  end
  return { breakdown = bd, per = per_text(s), basis = s.basis and s.basis.what or nil,
           steps = s.basis and s.basis.steps or nil, step_ns = s.basis and s.basis.step_ns or nil, actions = acts }
end

--- HTML: the stacked bars as inline SVG (no style attributes: the page's
--- Content-Security-Policy allows none) and the ranked actions, each
--- linking to its sections (anchors[recipe] -> id).
function M.html(s, anchors, esc)
  local out = { '<section id="summary" class="summary"><h2>Summary</h2>', "<h3>Where the time goes</h3>" }
  local bd = s.breakdown
  if not bd then
    out[#out + 1] = '<p class="muted">No recipe broke the time down (no steps or timeline in the inputs).</p>'
  else
    out[#out + 1] = string.format('<p class="muted">per step, mean; from <a href="#%s">%s</a>%s</p>',
        anchors[bd.recipe] or "",
      esc(bd.recipe), bd.note and ("; " .. esc(bd.note)) or "")
    local W, rowh, lab = 640, 22, 150
    local h = #bd.rows * (rowh + 6) + 30
    local svg = { string.format('<svg class="bars" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="time per step by category">',
      W + lab + 120, h, W + lab + 120, h) }
    local maxt = 0
    for _, r in ipairs(bd.rows) do maxt = math.max(maxt, row_total(r)) end
    for i, r in ipairs(bd.rows) do
      local y = (i - 1) * (rowh + 6)
      svg[#svg + 1] = string.format('<text x="%d" y="%d" text-anchor="end" font-size="12">%s</text>', lab - 6, y + 15,
          esc(tostring(r.subject)))
      local x = lab
      local total = row_total(r)
      for _, c in ipairs(M.categories) do
        local v = r[c.key .. "_ns"] or 0
        if v > 0 and maxt > 0 then
          local w = W * v / maxt
          svg[#svg + 1] = string.format('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s per step (%s)</title></rect>',
            x, y, w, rowh, c.color, esc(c.label), esc(units.ns(v, 3)), esc(units.pct(100 * v / total, 3)))
          x = x + w
        end
      end
      svg[#svg + 1] = string.format('<text x="%.1f" y="%d" font-size="12">%s</text>', x + 6, y + 15,
          esc(units.ns(r.step_ns or total, 3) .. "/step"))
    end
    local lx, ly = lab, #bd.rows * (rowh + 6) + 12
    for _, c in ipairs(M.categories) do
      svg[#svg + 1] = string.format('<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" font-size="12">%s</text>',
        lx, ly, c.color, lx + 16, ly + 10, esc(c.label))
      lx = lx + 30 + 8 * #c.label
    end
    svg[#svg + 1] = "</svg>"
    out[#out + 1] = '<figure data-name="summary">' .. table.concat(svg) .. "</figure>"
  end
  out[#out + 1] = "<h3>What to fix first</h3>"
  if s.basis then out[#out + 1] = '<p class="muted">ranked by estimated time saved per ' .. esc(per_text(s)) .. "; "
      .. esc(s.basis.what) .. "</p>" end
  if #s.actions == 0 then out[#out + 1] = '<p class="muted">No recipe found anything to fix.</p>' end
  out[#out + 1] = '<ol class="actions">'
  for _, a in ipairs(s.actions) do
    local secs = {}
    for _, x in ipairs(a.sections) do secs[#secs + 1] = string.format('<a href="#%s">%s</a>', anchors[x.recipe] or "",
        esc(x.recipe)) end
    local subj = a.subject and string.format('<code title="%s">%s</code>: ', esc(tostring(a.subject)),
        esc(names.display(tostring(a.subject)))) or ""
    out[#out + 1] = string.format('<li class="finding sev-%s"><span class="sev">%s</span><span class="speedup">%s</span> %s%s <span class="muted">— see %s</span>',
      a.severity, a.severity, esc(action_head(a, s)), subj, esc(a.lead.message), table.concat(secs, ", "))
    out[#out + 1] = '<div class="evidence">' .. (a.saving_ns and ("estimate: " .. esc(a.formula))
        or ("no estimate: " .. esc(a.why))) .. "</div>"
    if #a.items > 1 then
      out[#out + 1] = '<ul class="evidence">'
      for _, it in ipairs(a.items) do
        out[#out + 1] = string.format("<li><code>%s</code>%s: %s</li>", esc(it.rule),
          it.saving_ns and (" (" .. esc(units.ns(it.saving_ns, 3)) .. ")") or "", esc(it.message))
      end
      out[#out + 1] = "</ul>"
    end
    out[#out + 1] = "</li>"
  end
  out[#out + 1] = "</ol></section>"
  return table.concat(out, "\n")
end

return M

--- advice: the profiler's own advice, deduplicated across launches and
-- ranked.  Nsight Compute rules (WRN/OPT/INF) are grouped by their text
-- (numbers masked, so "0.3 full waves" and "0.4 full waves" group), with
-- the launches they fired on and the best speedup estimate; tb-profiler
-- recommendations are listed per run; and data oddities are explained:
-- a GPU utilisation above 100 % means the step timer covered only the
-- host's enqueue time (asynchronous launches), not the GPU work.  The op
-- model adds its verdicts: the tensor-core share and precision of the
-- kernel time from recorded dtypes or ncu counters, and the TF32/AMP
-- advice (perflab.ops.advise); "unknown", with the reason, where the
-- input records neither.
local perflab = require "perflab"
local T = perflab.table
local units = perflab.units

local sev_map = { WRN = "warn", OPT = "opt", INF = "info", warn = "warn", opt = "opt", info = "info" }

--- "0-3, 5, 7-9" from sorted integers
local function ranges(ids)
  table.sort(ids)
  local parts, i = {}, 1
  while i <= #ids do
    local j = i
    while j < #ids and ids[j + 1] == ids[j] + 1 do j = j + 1 end
    parts[#parts + 1] = (j > i) and (ids[i] .. "-" .. ids[j]) or tostring(ids[i])
    i = j + 1
  end
  return table.concat(parts, ", ")
end

local function template(msg)
  return (msg:gsub("%d[%d,%.]*", "#"))
end

-- the row numbers of t where mask is true, ascending
local function rows_where(t, mask)
  local g, ids = t:with("_mask", mask):group_by("_mask"):agg { { "rows", "ids" } }
  for i, r in g:rows() do if r._mask then return ids.rows[i] end end
  return {}
end

-- rules grouped by (section, severity, text with its numbers masked): the
-- key is worked out once per distinct (section, severity, message); each
-- group's rule, section and message are its first row's
local function ncu_rules(p, rows, report)
  local rules = p.tables.rules
  if not rules or rules:nrows() == 0 then return end
  local cols = {}
  for _, c in ipairs { "section", "severity", "message" } do if rules:has(c) then cols[#cols + 1] = c end end
  local t
  if #cols > 0 then
    local by = rules:group_by(cols)
    local keys = {}
    for i, r in by:agg({ { "n", "count" } }):rows() do
      keys[i] = { _key = (r.section or "") .. "\0" .. (r.severity or "") .. "\0" .. template(r.message or "") }
    end
    t = rules:with("_key", by:broadcast(T.from_rows(keys, { "_key" })):col("_key"))
  else
    return   -- a rules table has messages
  end
  local by = t:group_by("_key")
  local spec = { { "first", "ids" } }
  if t:has("message") then spec[#spec + 1] = { "variants", "count_distinct", "message" } end
  if t:has("est_speedup_pct") then spec[#spec + 1] = { "best", "max", "est_speedup_pct" } end
  if t:has("est_local_speedup_pct") then spec[#spec + 1] = { "best_local", "max", "est_local_speedup_pct" } end
  local agg, ids = by:agg(spec)
  local first = t:take(agg:col("first"))
  local kid = t:has("kernel_id") and t:col("kernel_id"):to_lua() or {}
  local groups, order = {}, {}
  for i, r in agg:rows() do
    local f = first:row(i)
    local g = { section = f.section, severity = f.severity, rule = f.rule, message = f.message,
      ids = {}, nvariants = r.variants or 0, best = r.best, best_local = r.best_local }
    local seen = {}
    for _, j in ipairs(ids.first[i]) do
      local k = kid[j]
      if k and not seen[k] then seen[k] = true; g.ids[#g.ids + 1] = k end
    end
    groups[i] = g; order[i] = i
  end
  local nlaunch = p.tables.kernels and p.tables.kernels:nrows() or nil
  for _, key in ipairs(order) do
    local g = groups[key]
    local sev = sev_map[g.severity] or "info"
    rows[#rows + 1] = {
      source = p.source, severity = sev, section = g.section, rule = g.rule, message = g.message,
      launches = #g.ids, kernel_ids = ranges(g.ids), best_speedup_pct = g.best,
      best_local_speedup_pct = g.best_local, variants = g.nvariants,
    }
    local scope = nlaunch and string.format("%d of %d launches", #g.ids, nlaunch)
        or string.format("%d launches", #g.ids)
    report:finding {
      severity = sev,
      rule = "ncu." .. (g.rule or (g.section or "rule"):gsub("%s+", "_"):lower()),
      subject = g.section,
      message = string.format("[%s, %s] %s", g.section or "?", scope, g.message),
      evidence = { launches = #g.ids, kernel_ids = ranges(g.ids), variants = g.nvariants,
                   best_local_speedup_pct = g.best_local, source = p.source },
      speedup_pct = g.best,
    }
  end
end

--- Launches ncu could not measure: its ==ERROR== message for the launch
-- (LaunchFailed, ...) and the values printed as "(!) nan" / "(!) n/a",
-- which the parsers keep as missing.  Their rules were written without
-- the missing values: read them with that in mind.
local function failed_launches(p, rows, report)
  local k = p.tables.kernels
  if not k or not (k:has("launch_error") or k:has("missing_values")) then return end
  local e = k:has("launch_error") and k:col("launch_error")
  local bad = e and (k:types().launch_error == "string" and e:ne("") or e:present()) or nil
  if k:has("missing_values") then
    local miss = k:col("missing_values"):gt(0)
    bad = bad and (bad | miss) or miss
  end
  for _, r in k:filter(bad):rows() do   -- the launches ncu could not measure: few
    local err, miss = r.launch_error, r.missing_values or 0
    local what = string.format("launch %s (%s)", tostring(r.id), units.label(r.short_name or r.name or "?"))
    local msg
    if err and err ~= "" then
      msg = string.format("%s failed under the profiler: ncu says \"%s\"; %d of its values were not collected "
        .. "(printed as (!) nan / (!) n/a, read as missing), so its figures and rules are incomplete", what, err, miss)
    else
      msg = string.format("ncu could not collect %d values of %s (printed as (!) nan / (!) n/a, read as missing); "
        .. "the launch may have failed or the device lacks those counters", miss, what)
    end
    rows[#rows + 1] = { source = p.source, severity = err and "warn" or "info", section = "launch",
                        launches = 1, kernel_ids = tostring(r.id), rule = "ncu.launch_failed", message = msg }
    report:finding { severity = err and "warn" or "info",
                     rule = err and "ncu.launch_failed" or "ncu.values_not_collected",
                     subject = r.name, message = msg,
                     evidence = { kernel_id = r.id, launch_error = err, missing_values = miss, source = p.source } }
  end
end

local function tb_recommendations(p, rows, report)
  local rec = p.tables.recommendations
  if not rec then return end
  for _, r in rec:rows() do
    local text = r.text or r.message
    if text and text ~= "" then
      rows[#rows + 1] = { source = p.source, severity = "opt", section = "recommendation",
                          message = text, launches = nil, kernel_ids = r.run and ("run " .. r.run) or nil }
      report:finding { severity = "opt", rule = "tb-profiler.recommendation",
                       message = (r.run and ("run " .. r.run .. ": ") or "") .. text,
                       evidence = { run = r.run, source = p.source } }
    end
  end
end

-- nsys expert rules (nsys analyze): each prose paragraph the reader kept
-- (table rule_findings, a few per rule); "no problems" is info
local function nsys_rule_findings(p, rows, report)
  local rf = p.tables.rule_findings
  if not rf then return end
  for _, r in rf:rows() do
    local text = r.text or ""
    local sev = (text:match("^There were no problems") or text:match("^Only the top")) and "info" or "opt"
    rows[#rows + 1] = { source = p.source, severity = sev, section = "nsys rule", rule = r.rule, message = text }
    report:finding { severity = sev, rule = "nsys." .. (r.rule or "rule"), subject = r.title,
                     message = (r.rule and (r.rule .. ": ") or "") .. text,
                     evidence = { rule = r.rule, line = r.line, source = p.source } }
  end
end

--- Utilisation figures above 100 %: any numeric column whose name says
-- "util", or long-form metric tables whose metric says "Utilization".
local function oddities(p, report)
  local seen = {}
  local function odd(where, what, value)
    local key = where .. what
    if seen[key] then return end
    seen[key] = true
    local cpu = what:upper():find("CPU") ~= nil
    local why = cpu
      and "for a process, more than 100 % means several threads were busy at once (100 % per core), not an error"
      or ("more than 100 % means the time base is not the GPU's: the step timer covers only the host's enqueue "
        .. "time (kernels launch asynchronously), so device busy time summed over the step exceeds it; compare GPU "
        .. "time with the device timeline, not with the step time")
    report:finding {
      severity = cpu and "info" or "warn", rule = "data.utilisation_above_100",
      subject = what,
      message = string.format("%s reports %.2f %% for %s: %s", where, value, what, why),
      evidence = { value_pct = value, threshold_pct = 100, table = where, source = p.source },
    }
  end
  local tnames = {}
  for name in pairs(p.tables) do tnames[#tnames + 1] = name end
  table.sort(tnames)                   -- findings in a fixed order, not pairs'
  for _, name in ipairs(tnames) do
    local t = p.tables[name]
    local types = t:types()
    local cols = t:columns()
    if t:has("metric") and t:has("value") and types.metric == "string"
      and (types.value == "number" or types.value == "integer") then
      local util = t:col("metric"):map(function(m) return m:lower():find("utili") ~= nil end)
      for _, r in t:filter(util & t:col("value"):gt(100)):rows() do
        odd(name, (r.device and (r.device .. " ") or "") .. r.metric, r.value)
      end
    end
    for _, c in ipairs(cols) do
      if types[c] == "number" and c:lower():find("util") then
        local over = t:col(c):gt(100)
        if t:col(c):count { where = over } > 0 then
          for _, i in ipairs(rows_where(t, over)) do
            local label = t:has("name") and t:get(i, "name") or (t:has("device") and t:get(i, "device"))
                or ("row " .. i)
            odd(name, tostring(label) .. " " .. c, t:get(i, c))
          end
        end
      end
    end
  end
end

--- An input with no GPU work at all (no kernels, copies, kernel summary,
-- metrics, operators or profiler rules): every GPU recipe is skipped, so
-- the report would say nothing; say what the input holds instead, and the
-- input's own reasons (its diagnostics about CUDA, HIP or kernels).
local DEVICE_WORK = { "kernels", "kernel_summary", "memcpy", "memset", "memcpy_summary", "cuda_gpu_mem_time_sum",
  "metrics", "operators", "cpu_ops", "rules", "rule_findings", "summary", "details", "steps", "step_breakdown",
  "events", "memory_events", "nvtx" }

local function no_device_work(p, report)
  -- a generic table (csv, markdown) is not a profiler's output: it may hold anything
  if p.format == "csv" or p.format == "markdown" then return end
  for _, name in ipairs(DEVICE_WORK) do
    local t = p.tables[name]
    if t and t:nrows() > 0 then return end
  end
  local held = {}
  for _, name in ipairs(p.table_order or {}) do
    local t = p.tables[name]
    if t and t:nrows() > 0 then held[#held + 1] = string.format("%s (%d rows)", name, t:nrows()) end
  end
  local why = {}
  for _, d in ipairs(p.diagnostics or {}) do
    local m = tostring(d.message or "")
    local l = m:lower()
    if #why < 3 and (m:find("CUDA") or m:find("HIP") or l:find("kernel")) then why[#why + 1] = (m:gsub("%.$", "")) end
  end
  report:finding {
    severity = "warn", rule = "data.no_device_work", subject = p.source,
    message = string.format("%s records no GPU work (no kernels, copies or kernel summary)%s%s: profile with the "
      .. "GPU trace on (nsys -t cuda / nsys stats with the cuda_gpu_* reports, rocprof --kernel-trace or --stats, "
      .. "torch.profiler with ProfilerActivity.CUDA), or check that the program ran on the GPU", p.source,
      #held > 0 and ("; it holds " .. table.concat(held, ", ")) or "; it holds no table",
      #why > 0 and ("; the input says: " .. table.concat(why, "; ")) or ""),
    evidence = { tables = #held, source = p.source },
  }
end

-- the op model's verdicts (perflab.ops.advise): tensor-core share and
-- precision from recorded dtypes and ncu counters, the TF32/AMP advice;
-- "unknown" with the reason where the input cannot tell
local function op_model(p, rows, report)
  local n0 = #report.findings
  require("perflab.ops").advise(p, report, {})
  for i = n0 + 1, #report.findings do
    local f = report.findings[i]
    rows[#rows + 1] = { source = p.source, severity = f.severity, section = "op model", rule = f.rule,
        message = f.message }
  end
end

return {
  name = "advice",
  summary = "the profiler's own advice, deduplicated across launches and ranked, plus data oddities explained",
  needs = {},
  options = {},
  run = function(inputs, opts, report)
    local rows = {}
    for _, p in ipairs(inputs) do
      failed_launches(p, rows, report)
      ncu_rules(p, rows, report)
      tb_recommendations(p, rows, report)
      nsys_rule_findings(p, rows, report)
      oddities(p, report)
      no_device_work(p, report)
      op_model(p, rows, report)
    end
    local levels = { error = 4, warn = 3, opt = 2, info = 1 }
    table.sort(rows, function(a, b)
      if levels[a.severity] ~= levels[b.severity] then return levels[a.severity] > levels[b.severity] end
      local sa, sb = a.best_speedup_pct or -1, b.best_speedup_pct or -1
      if sa ~= sb then return sa > sb end
      return (a.launches or 0) > (b.launches or 0)
    end)
    if #rows > 0 then
      report:table("advice", T.from_rows(rows, { "severity", "section", "launches", "kernel_ids",
        "best_speedup_pct", "best_local_speedup_pct", "variants", "rule", "message", "source" }, "advice"),
        { title = "advice grouped by text (numbers masked), most severe and largest speedup first" })
    end
    if #report.findings == 0 then report:note("No advice: the inputs carry no profiler rules or recommendations, and nothing odd was found.") end
  end,
}

--- perflab.report_terms: the words a report and its renderers share: the
-- severities of findings (lowest first) and which columns hold a point in
-- time.  Below both perflab.report and perflab.html, so the page does not
-- call back into the report module that renders it.
local errors = require "perflab.errors"

local M = {}

--- Severities, lowest first.  INF/OPT/WRN are Nsight Compute's spellings.
M.levels = { info = 1, opt = 2, warn = 3, error = 4 }
local aliases = { inf = "info", wrn = "warn", warning = "warn", err = "error", optimization = "opt" }

--- severity(s) -> the severity's name ("info", "opt", "warn", "error") from
--- any of its spellings; nil for nil; an error naming an unknown one.
function M.severity(s)
  if s == nil then return nil end
  local k = tostring(s):lower()
  k = aliases[k] or k
  if not M.levels[k] then
    errors.fail(string.format("unknown severity '%s' (info, opt, warn, error)", tostring(s)))
  end
  return k
end

--- A column that holds a point in time (ns): start_ns, end_ns, *_start_ns, *_end_ns.
function M.is_time_point(col)
  return col == "start_ns" or col == "end_ns" or col:match("_start_ns$") ~= nil or col:match("_end_ns$") ~= nil
end

return M

--- perflab.names: kernel names for people.
--   names.display(name [, max]) -> the name with template arguments and the
--     parameter list elided ("at::native::vectorized_elementwise_kernel<…>(…)"),
--     the return type dropped, what identifies the kernel (namespaces, the
--     function's name) kept; at most `max` characters (default 80).
--   names.lead(message, subject [, max]) -> the message with a subject it
--     opens with shown as names.display(subject): a finding's message that
--     starts with a 190-character kernel name reads as the short one (a
--     file path is kept whole).
--   names.short(name) -> the key findings about one kernel share: perflab's
--     short name (perflab.formats.short_name) for a C/C++ signature, the text
--     itself for anything else ("rank 3", "DataLoader").
-- Reports show display names; the full name stays in tables (JSON, CSV), in
-- HTML on hover, and with --full-names.
local units = require "perflab.units"

local M = {}

local function looks_like_signature(s)
  return s:find("[(<]") ~= nil or s:find("::", 1, true) ~= nil or s:match("^void ") ~= nil
end

--- Elides each outermost <...> (balanced) to <…>.
local function elide_templates(s)
  local out, depth, i = {}, 0, 1
  while i <= #s do
    local c = s:sub(i, i)
    if c == "<" then
      -- "operator<", "operator<<": not a template bracket
      if depth == 0 and s:sub(1, i - 1):match("operator%s*$") then out[#out + 1] = c
      else
        if depth == 0 then out[#out + 1] = "<…" end
        depth = depth + 1
      end
    elseif c == ">" and depth > 0 then
      depth = depth - 1
      if depth == 0 then out[#out + 1] = ">" end
    elseif depth == 0 then
      out[#out + 1] = c
    end
    i = i + 1
  end
  if depth > 0 then out[#out + 1] = ">" end
  return table.concat(out)
end

function M.display(name, max)
  if name == nil then return nil end
  local s = tostring(name)
  max = max or 80
  if looks_like_signature(s) then
    s = s:gsub("^void%s+", "")
    s = elide_templates(s)
    -- the parameter list: from the first "(" at the end (after templates)
    local head = s:match("^(.-)%(.*%)%s*[%w%s]*$")
    if head and head ~= "" then s = head .. "(…)" end
  end
  return units.label(s, max)
end

function M.lead(message, subject, max)
  if message == nil or subject == nil then return message end
  local msg, subj = tostring(message), tostring(subject)
  if #subj == 0 or msg:sub(1, #subj) ~= subj then return msg end
  -- a file's path (a finding about an input) is said in full
  if subj:find("/", 1, true) and not looks_like_signature(subj) then return msg end
  local shown = M.display(subj, max)
  if #shown >= #subj then return msg end
  return shown .. msg:sub(#subj + 1)
end

local short_name
function M.short(name)
  if name == nil then return nil end
  local s = tostring(name)
  if not looks_like_signature(s) then return s end
  short_name = short_name or require("perflab.formats").short_name
  local k = short_name(s)
  return (k and k ~= "") and k or s
end

return M

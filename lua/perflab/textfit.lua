--- perflab.textfit: report tables as text that fits a width.
--   textfit.display_names(t [, full]) -> t: the name columns (kernel, name,
--     function, operator, subject: text) through perflab.names.display
--     (template arguments and parameter lists elided); `full` keeps them.
--   textfit.fit(t, width [, opts]) -> text: t:format with its text cells cut
--     (an ellipsis) until the widest line fits `width`, never a number; a
--     table that still does not fit (many numeric columns) is printed in
--     blocks of columns, each block repeating the first column.
--     opts.max_rows as t:format; opts.full_names: names neither shortened
--     nor cut (the table is as wide as they make it).  Without a width,
--     cells are cut at 72 characters as before.
local names = require "perflab.names"

local M = {}

local NAME_COLUMNS = { kernel = true, name = true, ["function"] = true, operator = true, subject = true }
M.name_columns = NAME_COLUMNS

function M.display_names(t, full)
  if full then return t end
  local types, out = t:types(), nil
  for _, c in ipairs(t:columns()) do
    if NAME_COLUMNS[c] and types[c] == "string" and t:nrows() > 0 then
      out = out or t:copy()
      out = out:with(c, out:col(c):map(function(s) return names.display(s) end))
    end
  end
  return out or t
end

local function widest(text)
  local w = 0
  for line in text:gmatch("[^\n]+") do
    local n = utf8.len(line) or #line
    if n > w then w = n end
  end
  return w
end

-- the caps tried on text cells, widest first; below the last, columns go
-- into blocks instead of names being cut further
local CAPS = { 72, 56, 44, 36, 28, 22 }

function M.fit(t, width, opts)
  opts = opts or {}
  local max_rows = opts.max_rows
  if opts.full_names then return t:format { max_rows = max_rows } end
  t = M.display_names(t)
  if not width then return t:format { width = 72, max_rows = max_rows } end
  local text
  for _, cap in ipairs(CAPS) do
    text = t:format { width = cap, max_rows = max_rows }
    if widest(text) <= width then return text end
  end
  -- blocks of columns: each column's own width at the last cap, packed
  -- greedily after the first column (repeated in every block)
  local cols = t:columns()
  if #cols < 2 then
    for _, cap in ipairs({ 22, 16 }) do
      text = t:format { width = cap, max_rows = max_rows }
      if widest(text) <= width then break end
    end
    return text
  end
  -- each column's width at the widest cap (a text column's narrows with
  -- the cap, a number's does not); the widest cap where the first column
  -- and any other fit side by side
  local types, w72 = t:types(), {}
  for i, c in ipairs(cols) do w72[i] = widest(t:select({ c }):format { width = CAPS[1], max_rows = max_rows }) end
  local cap, w
  for _, c in ipairs(CAPS) do
    cap, w = c, {}
    for i, name in ipairs(cols) do w[i] = types[name] == "string" and math.min(w72[i], c) or w72[i] end
    local other = 0
    for i = 2, #w do other = math.max(other, w[i]) end
    if w[1] + 2 + other <= width then break end
  end
  local blocks, cur, used = {}, { cols[1] }, w[1]
  for i = 2, #cols do
    if #cur > 1 and used + 2 + w[i] > width then
      blocks[#blocks + 1] = cur
      cur, used = { cols[1] }, w[1]
    end
    cur[#cur + 1] = cols[i]
    used = used + 2 + w[i]
  end
  blocks[#blocks + 1] = cur
  local parts = {}
  for i, b in ipairs(blocks) do
    local bt = t:select(b)
    local s = bt:format { width = cap, max_rows = max_rows }
    if widest(s) > width then s = bt:format { width = 16, max_rows = max_rows } end
    parts[i] = s
  end
  return table.concat(parts, "\n")
end

return M

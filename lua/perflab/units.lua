--- perflab.units: numbers with units for people (reports, REPL).
local M = {}

local function trim(s)
  s = s:gsub("(%.%d-)0+$", "%1"):gsub("%.$", "")
  return s
end

local function sig(v, digits)
  digits = digits or 4
  if v == 0 then return "0" end
  local a = math.abs(v)
  local mag = math.floor(math.log(a, 10)) + 1
  local dec = math.max(0, digits - mag)
  return trim(string.format("%." .. dec .. "f", v))
end
M.sig = sig

--- Duration in nanoseconds -> "1.234 ms".
function M.ns(v, digits)
  if v == nil or v ~= v then return "-" end
  local a = math.abs(v)
  if a >= 1e9 then return sig(v / 1e9, digits) .. " s" end
  if a >= 1e6 then return sig(v / 1e6, digits) .. " ms" end
  if a >= 1e3 then return sig(v / 1e3, digits) .. " µs" end
  return sig(v, digits) .. " ns"
end

function M.bytes(v, digits)
  if v == nil or v ~= v then return "-" end
  local a = math.abs(v)
  if a >= 1e12 then return sig(v / 1e12, digits) .. " TB" end
  if a >= 1e9 then return sig(v / 1e9, digits) .. " GB" end
  if a >= 1e6 then return sig(v / 1e6, digits) .. " MB" end
  if a >= 1e3 then return sig(v / 1e3, digits) .. " kB" end
  return sig(v, digits) .. " B"
end

function M.pct(v, digits)
  if v == nil or v ~= v then return "-" end
  return sig(v, digits or 3) .. " %"
end

function M.count(v)
  if v == nil or v ~= v then return "-" end
  if math.type(v) == "integer" or v == math.floor(v) then
    local s = string.format("%d", v)
    return s
  end
  return sig(v)
end

--- A kernel name short enough for a sentence: names longer than `max`
-- characters (default 64) keep their head and end with "…" (the full name
-- stays in tables and in the finding's subject).
function M.label(name, max)
  name = tostring(name)
  max = max or 64
  if utf8.len(name) == nil or #name <= max then return name end
  local cut = name:sub(1, max - 1)
  -- do not end inside a UTF-8 sequence
  while #cut > 0 and not utf8.len(cut) do cut = cut:sub(1, -2) end
  return cut .. "…"
end

return M

--- perflab.json: a JSON encoder that keeps full precision (numbers print
-- with the shortest text that reads back exactly; lua-cjson keeps only 14
-- digits).  Keys of objects are written sorted, so output is stable.
-- Values: nil/NaN/inf -> null; perflab tables -> arrays of row objects.
local ptable = require "perflab.table"
local M = {}

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f',
                  ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }

local function str(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end
M.string = str

local function num(v)
  if v ~= v or v == math.huge or v == -math.huge then return "null" end
  if math.type(v) == "integer" then return string.format("%d", v) end
  if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%.0f", v) end
  local s = string.format("%.15g", v)
  if tonumber(s) ~= v then s = string.format("%.16g", v) end
  if tonumber(s) ~= v then s = string.format("%.17g", v) end
  return s
end
M.number = num

local ObjectMT = {}
--- An empty table that encodes as {} rather than [].
function M.object(t) return setmetatable(t or {}, ObjectMT) end

local function is_array(t)
  if getmetatable(t) == ObjectMT then return false end
  local n = #t
  if n == 0 then return next(t) == nil end
  local k = 0
  for _ in pairs(t) do k = k + 1 end
  return k == n
end

local function encode(v, indent, depth, out, sink)
  local ty = type(v)
  if v == nil then out[#out + 1] = "null"
  elseif ty == "boolean" then out[#out + 1] = tostring(v)
  elseif ty == "number" then out[#out + 1] = num(v)
  elseif ty == "string" then out[#out + 1] = str(v)
  elseif ptable.is_table(v) then
    -- one row per line, indented as the rest (by to_json, in C)
    if sink then sink(v, depth)
    elseif indent then out[#out + 1] = v:to_json(string.rep(indent, depth + 1), string.rep(indent, depth))
    else out[#out + 1] = v:to_json() end
  elseif ty == "table" then
    if depth > 100 then error("json: nesting too deep (cycle?)") end
    local nl = indent and ("\n" .. string.rep(indent, depth + 1)) or ""
    local close = indent and ("\n" .. string.rep(indent, depth)) or ""
    if is_array(v) then
      if #v == 0 then out[#out + 1] = "[]"; return end
      out[#out + 1] = "["
      for i = 1, #v do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = nl
        encode(v[i], indent, depth + 1, out, sink)
      end
      out[#out + 1] = close .. "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      if #keys == 0 then out[#out + 1] = "{}"; return end
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = nl .. str(k) .. (indent and ": " or ":")
        local val = v[k]
        if val == nil then val = v[tonumber(k)] end
        encode(val, indent, depth + 1, out, sink)
      end
      out[#out + 1] = close .. "}"
    end
  else
    out[#out + 1] = str(tostring(v))
  end
end

--- encode(value [, indent [, tail]]) -> text, with tail (say "\n") appended
--- in the same concatenation (no second copy of a large report's text)
function M.encode(v, indent, tail)
  local out = {}
  encode(v, indent, 0, out)
  if tail then out[#out + 1] = tail end
  return table.concat(out)
end

--- write(fh, value [, indent [, tail]]) -> fh: encode's text written to the
--- file handle piece by piece, never joined into one string (a report
--- holding a large table is written without a copy of its whole text)
function M.write(fh, v, indent, tail)
  local out = {}
  local function flush()
    for i = 1, #out, 200 do fh:write(table.unpack(out, i, math.min(i + 199, #out))) end
    for i = #out, 1, -1 do out[i] = nil end
  end
  -- to a Lua file, a perflab table's text goes straight from C in pieces
  -- (t:write_json_to), after the text before it: no table's text is held
  -- whole, nor copied into a Lua string
  -- (a failed write is left to the file's error state, as fh:write's
  -- result is: the CLI reports it once, when it closes standard output)
  local sink = io.type(fh) == "file" and function(t, depth)
    flush()
    if indent then t:write_json_to(fh, string.rep(indent, depth + 1), string.rep(indent, depth))
    else t:write_json_to(fh) end
  end or nil
  encode(v, indent, 0, out, sink)
  if tail then out[#out + 1] = tail end
  flush()
  return fh
end

return M

-- tools/lprof.lua -- where a recipe's Lua time goes, for engine work.
--   perflab tools/lprof.lua RECIPE FILE [N] [-- KEY=VALUE...]
-- Loads FILE (timed apart), then runs RECIPE with a count hook that samples
-- the running Lua line every 1000 VM instructions, and prints the N hottest
-- lines (default 25) and the N hottest functions with their share of the
-- samples, beside the wall time of load and run.  Time spent inside one C
-- call counts once, at the calling line: read the samples as "where the Lua
-- interpreter works", and time C primitives apart (perf record).
local recipe, file, n = arg[1], arg[2], tonumber(arg[3] or "") or 25
if not recipe or not file then
  io.stderr:write("usage: perflab tools/lprof.lua RECIPE FILE [N] [-- KEY=VALUE...]\n"); os.exit(2)
end
local opts = {}
local seen_dash = false
for i = 3, #arg do
  if seen_dash then
    local k, v = arg[i]:match("^([^=]+)=(.*)$")
    if k then opts[k] = tonumber(v) or v end
  elseif arg[i] == "--" then seen_dash = true end
end
local clock = os.clock
local t0 = clock()
local p = perflab.load(file)
local t1 = clock()
local lines, funcs, total = {}, {}, 0
debug.sethook(function()
  local info = debug.getinfo(2, "Sl")
  if not info then return end
  total = total + 1
  local key = info.short_src .. ":" .. (info.currentline or 0)
  lines[key] = (lines[key] or 0) + 1
  local f = debug.getinfo(2, "Sn")
  local fk = f.short_src .. ":" .. (f.linedefined or 0) .. " " .. (f.name or "?")
  funcs[fk] = (funcs[fk] or 0) + 1
end, "", 1000)
local rep = perflab.run(recipe, p, opts)
local s = rep:render("json")
debug.sethook()
local t2 = clock()
print(string.format("load %.2f s CPU, run+render %.2f s CPU, %d samples, json %d bytes",
  t1 - t0, t2 - t1, total, #s))
local function top(tbl, title)
  local ks = {}
  for k in pairs(tbl) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b) if tbl[a] ~= tbl[b] then return tbl[a] > tbl[b] end return a < b end)
  print(title)
  for i = 1, math.min(n, #ks) do
    print(string.format("  %5.1f%%  %s", 100 * tbl[ks[i]] / math.max(total, 1), ks[i]))
  end
end
top(lines, "hottest lines")
top(funcs, "hottest functions")

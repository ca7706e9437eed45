-- tests/embed/module.lua: Debian's stock lua5.4 loads perflab.so (the Lua C
-- module built into BUILD/lua) through LUA_CPATH and uses the same API as a
-- perflab script.  Run: LUA_CPATH='BUILD/lua/?.so' lua5.4 tests/embed/module.lua
local fails = 0
local function check(what, cond, detail)
  print((cond and "ok   " or "FAIL ") .. what .. (cond and "" or (": " .. tostring(detail))))
  if not cond then fails = fails + 1 end
end

local perflab = require "perflab"
check("require returns the API table", type(perflab) == "table" and type(perflab.load) == "function")
check("the C module answered (not a Lua file)", package.searchpath("perflab", package.cpath) ~= nil,
  package.cpath)
check("version", perflab.version == "0.1.0", perflab.version)

local p = perflab.load("examples/kernel-table.txt")
local k = p:table("kernels")
-- 13065 launches, 306573856 ns in all (grep -c '|' and an awk sum over the file)
check("rows", k:nrows() == 13065, k:nrows())
check("column sum", k:col("duration_ns"):sum() == 306573856, k:col("duration_ns"):sum())
local g = k:group_by("name"):agg { { "calls", "count" } }:sort_by("-calls")
check("group_by in C", g:row(1).name == "vectorized_elementwise_kernel" and g:row(1).calls == 4002, g:row(1).name)

local r = perflab.run("top-kernels", p, { top = 2 })
check("a recipe", r.tables.top_kernels:nrows() == 2 and r.findings[1].subject == "elementwise_kernel")
check("JSON with full precision", r:render("json"):find('"kernel_time_ns": 306573856', 1, true) ~= nil)

local bad, msg = perflab.try_load("/nonexistent/file.txt")
check("errors as nil, message", bad == nil and msg:find("cannot open", 1, true) ~= nil, msg)
local ok, err = pcall(perflab.load, "/nonexistent/file.txt")
check("errors raised as perflab.fail tables", not ok and type(err) == "table" and err.exit == 2, err)

local repl = require "perflab.repl"
_G.kk = k
check("the REPL's completion", (repl.complete('kk:col("dur'))[1] == "duration_ns")
check("cjson is preloaded", require("cjson").decode('{"a": 1}').a == 1)

print(fails .. " failed")
os.exit(fails == 0 and 0 or 1)

--- test_memory_cap.lua -- the command line under --max-memory caps from
-- 1 KiB up, doubling, until each command completes: every run ends with its
-- full output (exit 0, the same output as with no cap) or with the one-line
-- memory error (exit 2, "perflab: not enough memory" or the core's
-- "out of memory ... --max-memory"), never a signal, a panic or a Lua
-- traceback of a half-built value.  The commands reach every binding
-- module (table, formats, stats, intervals, sys, options) and every bundled
-- recipe through the host; tests/bind/test_bind_oom.c does the same per
-- function in a bare state, allocation by allocation.
local lu = require "luaunit"
local sys = require "perflab.sys"

local BIN = sys.exe_path()
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local SCRIPT = table.concat({
  "local T, S, IV = perflab.table, perflab.stats, perflab.intervals",
  "local p = perflab.load('tests/fixtures/kernel-table/small.txt')",
  "local t = p:table('kernels')",
  "local g = t:group_by('short_name'):agg{{'n', 'count'}, {'d', 'sum', 'duration_ns'}}:sort_by('-d')",
  "local a = IV.from_arrays({0, 5, 20}, {3, 9, 30})",
  "local r = S.describe(t:col('duration_ns'))",
  "print(g:nrows(), g:get(1, 'd'), a:length(), r.mean, #sys_list)",
}, "; ")

local CASES = {
  { "parse", { "parse", "tests/fixtures/kernel-table/small.txt" } },
  { "top-kernels", { "run", "top-kernels", "examples/kernel-table.txt" } },
  { "ncu-rules", { "run", "ncu-rules", "examples/ncu-details.txt" } },
  { "occupancy", { "run", "occupancy", "examples/ncu-details.txt" } },
  { "launch", { "run", "launch", "examples/ncu-details.txt" } },
  { "roofline", { "run", "roofline", "examples/ncu-details.txt", "--format", "json" } },
  { "advice", { "run", "advice", "examples/ncu-details.txt" } },
  { "step-breakdown", { "run", "step-breakdown", "examples/tb-profiler.json" } },
  { "script", { "-e", "sys_list = require('perflab.sys').listdir('tests/fixtures/kernel-table'); " .. SCRIPT } },
}

-- exit status and output of `perflab --max-memory CAP ARGS...`
local function run(cap, args)
  local cmd = { q(BIN) }
  if cap then cmd[#cmd + 1] = "--max-memory " .. cap end
  for _, a in ipairs(args) do cmd[#cmd + 1] = q(a) end
  local h = io.popen(table.concat(cmd, " ") .. " 2>&1; echo \"[rc $?]\"")
  local out = h:read("a")
  h:close()
  local body, rc = out:match("^(.-)%[rc (%d+)%]\n$")
  return tonumber(rc), body
end

TestMemoryCap = {}

function TestMemoryCap:test_every_cap_gives_the_result_or_a_memory_error()
  local runs, capped_fail = 0, 0
  for _, c in ipairs(CASES) do
    local rc0, want = run(nil, c[2])
    lu.assertEquals(rc0, 0, c[1] .. " without a cap: " .. want)
    local cap, done = 1024, false
    while not done and cap <= 1 << 30 do
      local rc, out = run(tostring(cap), c[2])
      runs = runs + 1
      if rc == 0 then
        lu.assertEquals(out, want, c[1] .. " at --max-memory " .. cap)
        done = true
      else
        capped_fail = capped_fail + 1
        lu.assertEquals(rc, 2, c[1] .. " at --max-memory " .. cap .. ": " .. out)
        lu.assertTrue(out == "perflab: not enough memory\n"
          or out:match("^perflab: out of memory %(allocating %d+ bytes%): .*%-%-max%-memory") ~= nil,
          c[1] .. " at --max-memory " .. cap .. ": " .. out)
      end
      cap = cap * 2
    end
    lu.assertTrue(done, c[1] .. " never completed")
  end
  print(string.format("\n%d commands, %d runs, %d stopped by the cap with the memory error", #CASES, runs, capped_fail))
  lu.assertTrue(capped_fail >= #CASES * 5, "caps too high to test anything: " .. capped_fail)
end

os.exit(lu.LuaUnit.run())

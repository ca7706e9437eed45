-- test_field_inputs.lua -- recipes on the real-world input shapes of
-- issue 22 (classes 10, 12, 13, 14, 18).  Expected values are the figures
-- written in the fixtures (tests/fixtures/README.md), worked out by hand
-- below each test.
-- Run: build/perflab tests/lua/test_field_inputs.lua -v
local lu = require "luaunit"
local perflab = require "perflab"

local FIX = "tests/fixtures/"

local function notes_with(rep, text)
  local n = 0
  for _, s in ipairs(rep.notes or {}) do if s:find(text, 1, true) then n = n + 1 end end
  return n
end

TestFieldInputs = {}

-- Class 10: two nvprof runs in one log.  Run 1: matmul_kernel 10 calls,
-- 4.62 ms (mean 462 us); run 2: 10 calls, 1.1 s (mean 110 ms).  Merged they
-- were 20 calls with a mean of 55.231 ms; per run they stay apart.
function TestFieldInputs:test_nvprof_runs_top_kernels()
  local rep = perflab.run("top-kernels", { FIX .. "nvprof/two_runs_summary.txt" })
  local t = rep.tables.top_kernels
  lu.assertEquals(t:nrows(), 2)
  local r1, r2 = t:row(1), t:row(2)
  lu.assertEquals(r1.run, 2)
  lu.assertEquals(r1.calls, 10)
  lu.assertEquals(r1.mean_ns, 110e6)
  lu.assertEquals(r2.run, 1)
  lu.assertEquals(r2.mean_ns, 462e3)
  lu.assertEquals(r2.share_pct, 100)         -- of its run's kernel time
end

-- diff FILE on the two runs: 4.62 ms -> 1100 ms, delta 1095.38 ms, slower.
function TestFieldInputs:test_nvprof_runs_diff()
  local rep = perflab.run("diff", { FIX .. "nvprof/two_runs_summary.txt" })
  local d = rep.tables.diff
  lu.assertEquals(d:nrows(), 1)
  local r = d:row(1)
  lu.assertEquals(r.kernel, "matmul_kernel")
  lu.assertEquals(r.total_ns_a, 4620000)
  lu.assertEquals(r.total_ns_b, 1100000000)
  lu.assertEquals(r.delta_ns, 1095380000)
  lu.assertEquals(r.status, "slower")
end

-- Class 12: five nsys rows, three of them the same cut name ("…").  Each
-- stays its own kernel: 5 rows, not 3; the 1000-call row keeps its own
-- min/max (1000, 2000 ns) instead of the merged 1000 / 110000.
function TestFieldInputs:test_truncated_names_not_merged()
  for _, group in ipairs({ "name", "short_name" }) do
    local rep = perflab.run("top-kernels", { FIX .. "nsys/nsys_truncated_names.txt" }, { group = group })
    local t = rep.tables.top_kernels
    lu.assertEquals(t:nrows(), 5)
    lu.assertEquals(t:col("calls"):sum(), 1460)
    local r = t:row(3)
    lu.assertEquals(r.calls, 1000)
    lu.assertEquals(r.min_ns, 1000)
    lu.assertEquals(r.max_ns, 2000)
    lu.assertEquals(notes_with(rep, "3 kernel names were cut by the tool"), 1)
  end
  -- a summary without cut names: no note, rows as they are
  local rep = perflab.run("top-kernels", { FIX .. "rocprof/rocm4_stats_unquoted_commas.csv" })
  lu.assertEquals(rep.tables.top_kernels:nrows(), 3)
  lu.assertEquals(notes_with(rep, "cut by the tool"), 0)
end

os.exit(lu.LuaUnit.run())

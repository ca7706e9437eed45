-- test_field5.lua -- held-out classes of round five (docs/field-inputs-5.md)
-- on the made-up inputs in tests/data/field5 (README there); the values are
-- worked out by hand below each test.
-- Run: build/perflab tests/lua/test_field5.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local tdata = require "tdata"

TestField5 = {}

-- distributed: copies the kernels do not overlap are memcpy, not idle.
-- Rank 0 (step 1000 us): kernel 200 us, copy 600 us, memset 100 us of which
-- 50 us overlap the kernel: memcpy 650 us, idle 1000 - 200 - 650 = 150 us.
-- Rank 1: kernel 400 us, copy 400 us: memcpy 400 us, idle 200 us.
function TestField5:test_distributed_breakdown_counts_copies()
  local rep = perflab.run("distributed", { tdata.path("field5/kineto_rank0_copies.json"),
    tdata.path("field5/kineto_rank1_copies.json") })
  local rows = rep.time_breakdown.rows
  lu.assertEquals(#rows, 2)
  lu.assertEquals(rows[1].subject, "rank 0")
  lu.assertEquals(rows[1].computation_ns, 200000)
  lu.assertEquals(rows[1].memcpy_ns, 650000)
  lu.assertEquals(rows[1].idle_ns, 150000)
  lu.assertEquals(rows[2].memcpy_ns, 400000)
  lu.assertEquals(rows[2].idle_ns, 200000)
  -- the plugin's other stays what it was: memcpy is a part of it
  local st = rep.tables.steps
  lu.assertEquals(st:col("other_ns"):to_lua(), { 800000, 600000 })
  lu.assertEquals(st:col("memcpy_ns"):to_lua(), { 650000, 400000 })
end

-- idle-time: streams 7 and 8 idle together 1100-1900 us, both waiting on
-- the host: 800 us of device idle time, counted once (stream 7).
function TestField5:test_idle_time_shares_device_idle()
  local rep = perflab.run("idle-time", { tdata.path("field5/kineto_two_streams_idle_together.json") })
  local saved, n = 0, 0
  for _, f in ipairs(rep:all_findings()) do
    if f.rule == "idle-time.host_wait" then
      n = n + 1
      saved = saved + (f.saved_ns or 0)
    end
  end
  lu.assertEquals(n, 2)
  lu.assertEquals(saved, 800000)
end

-- names.lead: a message opening with its long subject shows the display name
function TestField5:test_names_lead()
  local names = require "perflab.names"
  local long = string.rep("Cijk_Ailk_", 12)   -- 120 characters
  local msg = names.lead(long .. ": occupancy 25 %", long)
  lu.assertEquals(msg, long:sub(1, 79) .. "…: occupancy 25 %")
  lu.assertEquals(names.lead("short_kernel: x", "short_kernel"), "short_kernel: x")
  lu.assertEquals(names.lead("other text", long), "other text")
  local path = "/data/" .. string.rep("p", 100) .. ".json"
  lu.assertEquals(names.lead(path .. ": no GPU work", path), path .. ": no GPU work")
end

os.exit(lu.LuaUnit.run())

--- test_table_memory.lua -- perflab.table.memory: the C memory tables use,
-- shared pools and buffers counted once (tests/c/test_table_memory.c checks
-- the sum part by part).
local lu = require "luaunit"
local T = require "perflab.table"

TestTableMemory = {}

function TestTableMemory:test_grows_with_the_values()
  local small = T.from_columns({ n = { 1, 2, 3 } })
  local xs = {}
  for i = 1, 10000 do xs[i] = i end
  local big = T.from_columns({ n = xs })
  -- 9,997 more int64 values: 79,976 bytes more, the records alike
  lu.assertEquals(T.memory(big) - T.memory(small), 9997 * 8)
end

function TestTableMemory:test_shared_counted_once()
  local xs, ss = {}, {}
  for i = 1, 1000 do xs[i], ss[i] = i, "s" .. (i % 10) end
  local t = T.from_columns({ n = xs, s = ss }, { "n", "s" })
  local one = T.memory(t)
  -- a filter shares t's string pool: the pair costs less than the sum
  local f = t:filter(t:col("n"):gt(500))
  lu.assertTrue(T.memory(t, f) < one + T.memory(f))
  -- the same table twice: its values and pool once
  lu.assertTrue(T.memory(t, t) < 2 * one)
  -- a Lua table of tables (a profile's `tables`) is the same as the list
  lu.assertEquals(T.memory({ a = t, b = f }), T.memory(t, f))
end

function TestTableMemory:test_profile()
  local p = perflab.load("tests/fixtures/kernel-table/small.txt")
  local m = T.memory(p.tables)
  lu.assertTrue(m > 0)
  lu.assertTrue(m < 4 * 1024 * 1024) -- a few rows: far under a pool block
end

function TestTableMemory:test_bad_argument()
  lu.assertErrorMsgContains("Table", T.memory, 3)
  lu.assertErrorMsgContains("Tables", T.memory, { 1, 2 })
end

os.exit(lu.LuaUnit.run())

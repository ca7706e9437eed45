-- test_util.lua -- perflab.util, the helpers recipes share: values worked
-- out by hand.
local lu = require "luaunit"
local U = require "perflab.util"
local T = require "perflab.table"

function test_sorted_keys()
  lu.assertEquals(U.sorted_keys({ b = true, a = 1, c = false }), { "a", "b", "c" })
  lu.assertEquals(U.sorted_keys({ [3] = 1, [1] = 1, [2] = 1 }), { 1, 2, 3 })
  lu.assertEquals(U.sorted_keys({}), {})
end

function test_round()
  lu.assertEquals(U.round(1.0099), 1.01)
  lu.assertEquals(U.round(2.344), 2.34)
  lu.assertEquals(U.round(2.345, 1), 2.3)
  lu.assertEquals(U.round(-1.236), -1.24)
  lu.assertEquals(U.round(7), 7.0)
  lu.assertEquals(math.type(U.round(7)), "float")
  lu.assertEquals(U.round(1234.5678, 3), 1234.568)
  lu.assertNil(U.round(nil))
  -- a column: the same arithmetic in the engine
  local t = T.from_rows({ { x = 2.344 }, { x = -1.236 }, {} }, { "x" })
  lu.assertEquals(U.round(t:col("x")):to_lua(), { 2.34, -1.24, nil })
end

function test_basename()
  lu.assertEquals(U.basename("a/b/trace.json.gz"), "trace.json.gz")
  lu.assertEquals(U.basename("trace.json"), "trace.json")
  lu.assertEquals(U.basename("/x/"), "")
end

os.exit(lu.LuaUnit.run())

-- tests/lua/test_device_columns.lua -- perflab.device.dim_col and
-- smem_static_col over columns: the values below are worked out by hand
-- from the rows, and dim_col is also checked row by row against the
-- single-row perflab.device.dim (the second method).
local lu = require "luaunit"
local T = require "perflab.table"
local device = require "perflab.device"

TestDeviceColumns = {}

local ROWS = {
  { block_size = 96, block_x = 1, block_y = 1 },     -- the scalar wins: 96
  { block_x = 32, block_y = 4 },                       -- 32 * 4 * (z 1) = 128
  { block_x = 16, block_y = 2, block_z = 3 },          -- 96
  { block_y = 8 },                                     -- no x, no scalar: missing
  { block_x = 7 },                                     -- 7 * 1 * 1
}

function TestDeviceColumns:test_dim_col_by_hand_and_against_dim()
  local t = T.from_rows(ROWS, { "block_size", "block_x", "block_y", "block_z" })
  local c = device.dim_col(t, "block_size", "block")
  lu.assertEquals(c:to_lua(), { 96, 128, 96, nil, 7 })
  lu.assertEquals(c:type(), "integer")
  for i, r in ipairs(ROWS) do lu.assertEquals(c:to_lua()[i], device.dim(r, "block_size", "block")) end
  -- only x/y/z, only the scalar, neither
  lu.assertEquals(device.dim_col(t:select({ "block_x", "block_y" }), "block_size", "block"):to_lua(),
      { 1, 128, 32, nil, 7 })
  lu.assertEquals(device.dim_col(t:select({ "block_size" }), "block_size", "block"):to_lua(),
      { 96, nil, nil, nil, nil })
  lu.assertNil(device.dim_col(t, "grid_size", "grid"))
end

function TestDeviceColumns:test_smem_static_col()
  -- ncu: static and dynamic printed; Kineto: one total (smem_bytes)
  local t = T.from_rows({
    { smem_static_bytes = 1024, smem_dynamic_bytes = 0, smem_bytes = 9 },   -- static printed: 1024
    { smem_dynamic_bytes = 4096, smem_bytes = 9 },                        -- dynamic only: no static (missing)
    { smem_bytes = 2048 },                                                -- neither: the total, 2048
    {},                                                                   -- nothing: missing
  }, { "smem_static_bytes", "smem_dynamic_bytes", "smem_bytes" })
  local st, total = device.smem_static_col(t)
  lu.assertEquals(st:to_lua(), { 1024, nil, 2048, nil })
  lu.assertEquals(total:to_lua(), { false, false, true, false })
  -- without smem_bytes: the static column itself, no mask
  local st2, total2 = device.smem_static_col(t:select({ "smem_static_bytes", "smem_dynamic_bytes" }))
  lu.assertEquals(st2:to_lua(), { 1024, nil, nil, nil })
  lu.assertNil(total2)
  -- Kineto only: every row's total
  local st3, total3 = device.smem_static_col(t:select({ "smem_bytes" }))
  lu.assertEquals(st3:to_lua(), { 9, 9, 2048, nil })
  lu.assertEquals(total3:to_lua(), { true, true, true, false })
  -- none of the three columns
  lu.assertNil((device.smem_static_col(t:select({}))))
end

os.exit(lu.LuaUnit.run())

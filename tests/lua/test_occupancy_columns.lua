-- tests/lua/test_occupancy_columns.lua -- the C calculator over columns
-- (perflab.cuda_occupancy.columns, src/core/occupancy.c) against the
-- single-shape Lua one (occupancy, est_achieved_occupancy, what_if: the
-- second method, itself checked against ncu by test_occupancy.lua), field by
-- field, on a grid of shapes over every compute capability and on every
-- launch of the ncu corpus files in tests/data.
local lu = require "luaunit"
local T = require "perflab.table"
local occ = require "perflab.cuda_occupancy"
local gpus = require "perflab.gpus"

local data = assert(os.getenv("PERFLAB_DATA"), "PERFLAB_DATA not set")

local FIELDS = { "warps_per_block", "block_limit_sm", "block_limit_warps", "block_limit_registers", "block_limit_smem",
  "block_limit_barriers", "active_blocks", "theoretical_warps", "theoretical_occupancy_pct" }

local function ccs()
  local k = {}
  for c in pairs(gpus.arch) do k[#k + 1] = c end
  table.sort(k, function(a, b) return tonumber(a) < tonumber(b) end)
  return k
end

-- every row of rows (Lua args of occupancy) through columns() once, each
-- compared with occupancy(args)
local function check_rows(rows, extra)
  local t = T.from_rows(rows, { "cc", "block_size", "registers", "smem_static", "smem_dynamic", "smem_config",
    "smem_driver", "grid_size", "sm_count" })
  local function col(c) return t:has(c) and t:col(c) or nil end
  local spec = { cc = t:col("cc"), block_size = t:col("block_size"), registers = col("registers"),
    smem_static = col("smem_static"), smem_dynamic = col("smem_dynamic"), smem_config = col("smem_config"),
    smem_driver = col("smem_driver"), grid_size = col("grid_size"), sm_count = col("sm_count") }
  for k, v in pairs(extra or {}) do spec[k] = v end
  local out = occ.columns(spec)
  lu.assertEquals(out:nrows(), #rows)
  local n = 0
  for i, r in ipairs(rows) do
    local args = { cc = r.cc, block_size = r.block_size, registers = r.registers, smem_static = r.smem_static,
      smem_dynamic = r.smem_dynamic, smem_config = r.smem_config, smem_driver = r.smem_driver, optin = spec.optin }
    local o = occ.occupancy(args)
    local c = out:row(i)
    for _, f in ipairs(FIELDS) do
      lu.assertEquals(c[f], o[f], string.format("row %d (%s %d threads %s regs) %s", i, r.cc, r.block_size,
          tostring(r.registers), f))
    end
    lu.assertEquals(c.limiter, table.concat(o.limiter, ", "))
    lu.assertEquals(c.invalid, o.invalid)
    lu.assertEquals(c.smem_config_used, o.smem_config_used)
    lu.assertEquals(c.smem_per_block_allocated, o.smem_per_block_allocated)
    lu.assertEquals(c.assumed, o.assumption ~= nil)
    if r.grid_size then
      local e = occ.est_achieved_occupancy { cc = r.cc, block_size = r.block_size, grid_size = r.grid_size,
        registers = r.registers, smem = (r.smem_static or 0) + (r.smem_dynamic or 0), sm_count = r.sm_count }
      lu.assertEquals(c.est_achieved_occupancy_pct, e.pct, "est row " .. i)
    end
    if spec.what_if and not o.invalid then
      local want = occ.what_if(args, o)
      local got = occ.what_if_of(c, r.cc)
      lu.assertEquals(#got, #want, "what_if row " .. i)
      for j = 1, #want do lu.assertEquals(got[j], want[j]) end
    end
    n = n + 1
  end
  return n
end

TestOccupancyColumns = {}

function TestOccupancyColumns:test_grid_of_shapes()
  local rows = {}
  for _, cc in ipairs(ccs()) do
    for _, bs in ipairs({ 1, 32, 33, 96, 128, 256, 384, 640, 1024, 1056 }) do
      for _, regs in ipairs({ 0, 1, 16, 37, 64, 128, 168, 255, 256 }) do
        for _, sm in ipairs({ 0, 100, 8192, 49152, 100000, 240000 }) do
          for _, cfg in ipairs({ false, 8192, 65536 }) do
            rows[#rows + 1] = { cc = cc, block_size = bs, registers = regs, smem_static = sm, smem_dynamic = sm // 3,
              smem_config = cfg or nil, grid_size = bs * 7 + regs, sm_count = 108 }
          end
        end
      end
    end
  end
  lu.assertEquals(check_rows(rows), #rows)
  lu.assertEquals(check_rows(rows, { optin = false }), #rows)
end

function TestOccupancyColumns:test_what_if_agrees()
  local rows = {}
  for _, cc in ipairs({ "7.5", "8.0", "8.6", "9.0", "12.0" }) do
    for _, bs in ipairs({ 64, 96, 256, 1024 }) do
      for _, regs in ipairs({ 0, 40, 100, 168, 255 }) do
        for _, sm in ipairs({ 0, 9000, 40000 }) do
          rows[#rows + 1] = { cc = cc, block_size = bs, registers = regs, smem_static = sm }
        end
      end
    end
  end
  lu.assertEquals(check_rows(rows, { what_if = true }), #rows)
end

-- every launch of the ncu corpus files that prints block size, registers and a CC
function TestOccupancyColumns:test_corpus_launches()
  local sys = require "perflab.sys"
  local n = 0
  for _, dir in ipairs({ "corpus/ncu_text", "corpus/ncu_csv" }) do
    for _, f in ipairs(sys.listdir(data .. "/" .. dir)) do
      local ok, p = pcall(perflab.load, data .. "/" .. dir .. "/" .. f)
      local k = ok and p.tables.kernels
      if k and k:has("cc") and k:has("block_size") and k:has("registers") then
        local rows = {}
        for _, r in k:rows() do
          local cc = r.cc and gpus.cc_key(r.cc)
          if cc and gpus.arch[cc] and r.block_size and r.registers then
            rows[#rows + 1] = { cc = cc, block_size = r.block_size, registers = r.registers,
              smem_static = r.smem_static_bytes, smem_dynamic = r.smem_dynamic_bytes,
              smem_config = r.smem_config_bytes, smem_driver = r.smem_driver_bytes }
          end
        end
        if #rows > 0 then n = n + check_rows(rows, { what_if = true }) end
      end
    end
  end
  lu.assertTrue(n >= 29, "only " .. n .. " corpus launches")   -- 29 launches print a CC today
end

function TestOccupancyColumns:test_errors_and_missing()
  local t = T.from_rows({ { b = 256, r = 32 }, { r = 32 }, { b = 128 } }, { "b", "r" })
  local o = occ.columns { cc = "8.0", block_size = t:col("b"), registers = t:col("r") }
  -- 256 threads at 32 registers on CC 8.0: 8 blocks, 64 of 64 warps; no block size: missing;
  -- no registers: no register limit (32 by SM, 16 by warps: 16 x 4 = 64 warps)
  lu.assertEquals(o:get(1, "active_blocks"), 8)
  lu.assertNil(o:get(2, "active_blocks"))
  lu.assertEquals(o:get(3, "active_blocks"), 16)
  lu.assertEquals(o:get(3, "block_limit_registers"), 32)
  lu.assertErrorMsgContains("unknown compute capability", function() return occ.columns { cc = "4.2",
      block_size = 32 } end)
  lu.assertErrorMsgContains("block_size must be > 0", function() return occ.columns { cc = "8.0", block_size = 0 } end)
  lu.assertErrorMsgContains("unknown option 'smem'", function() return occ.columns { cc = "8.0", block_size = 32,
      smem = 1 } end)
  -- a CC column: per distinct value; an unknown CC gives a missing row
  local c = T.from_rows({ { cc = "8.6" }, { cc = "sm_90" }, { cc = "1.0" } }, { "cc" })
  local o2 = occ.columns { cc = c:col("cc"), block_size = 1024, registers = 64 }
  lu.assertEquals(o2:col("active_blocks"):to_lua(), { 1, 1, nil })
  lu.assertEquals(o2:get(1, "theoretical_occupancy_pct"), 100 * 32 / 48)
end

-- launch_devices: per launch what row_device gives (the second method,
-- row by row), from a grouping by the distinct devices
function TestOccupancyColumns:test_launch_devices()
  local device = require "perflab.device"
  local k = T.from_rows({ { device = 0 }, { device = 1 }, { device = 0, cc = "9.0" }, {},
      { device = 7, sm_count = 20 } },
    { "device", "cc", "sm_count" })
  local ctx = { cc = "8.0", sm_count = 108, source = "the input", devices = {
    [0] = { cc = "8.6", sm_count = 28, max_threads_per_sm = 1536 }, [1] = { cc = "8.0", sm_count = 108 } } }
  local d = device.launch_devices(k, ctx)
  lu.assertEquals(d:nrows(), 5)
  for i, r in k:rows() do
    local cc, sms, maxthr = device.row_device(r, ctx)
    lu.assertEquals({ d:get(i, "cc"), d:get(i, "sm_count"), d:get(i, "max_threads_per_sm") }, { cc, sms, maxthr },
        "row " .. i)
  end
  lu.assertEquals(d:col("cc"):to_lua(), { "8.6", "8.0", "9.0", "8.0", "8.0" })
  lu.assertEquals(d:col("sm_count"):to_lua(), { 28, 108, 28, 108, 20 })
end

-- Report:write (what perflab run prints with: JSON piece by piece) gives
-- render's text, byte for byte
function TestOccupancyColumns:test_report_write_is_render()
  local rep = perflab.run("occupancy", perflab.load(data .. "/corpus/ncu_text/gpumode_lecture001_ncu_logs_cc80.txt"))
  for _, fmt in ipairs({ "json", "text", "markdown" }) do
    local f = io.tmpfile()
    lu.assertIs(rep:write(f, fmt), f)
    f:seek("set")
    local s = f:read("a")
    f:close()
    lu.assertEquals(s, rep:render(fmt), fmt)
  end
  local f = io.tmpfile()
  require("perflab.json").write(f, { a = { 1, 2.5 }, b = "x" }, "  ", "\n")
  f:seek("set")
  lu.assertEquals(f:read("a"), require("perflab.json").encode({ a = { 1, 2.5 }, b = "x" }, "  ") .. "\n")
  f:close()
end

os.exit(lu.LuaUnit.run())

-- test_format_columns.lua -- docs/format-columns.md is what
-- tools/format_columns.lua generates from the readers and src/core/schema.c
-- (make docs-columns rewrites it), and a standard column a reader leaves
-- without a description of its own carries the schema's.
-- Run: build/perflab tests/lua/test_format_columns.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local formats = require "perflab.formats"

TestFormatColumns = {}

function TestFormatColumns:test_committed_doc_is_current()
  local gen = dofile("tools/format_columns.lua")
  local f = assert(io.open("docs/format-columns.md", "rb"))
  local doc = f:read("a")
  f:close()
  local want = gen.render()
  if doc ~= want then
    local i = 1
    while doc:sub(i, i) == want:sub(i, i) do i = i + 1 end
    local line = select(2, doc:sub(1, i):gsub("\n", "")) + 1
    lu.fail(string.format("docs/format-columns.md differs from the readers and schema.c at line %d: run make "
      .. "docs-columns", line))
  end
end

function TestFormatColumns:test_schema_lists_the_standard_columns()
  local s = formats.schema()
  local by = {}
  for _, c in ipairs(s) do by[c.table .. "." .. c.name] = c end
  -- three rows of src/core/schema.c, by hand
  lu.assertEquals(by["kernels.start_ns"],
    { table = "kernels", name = "start_ns", type = "integer", unit = "ns",
      doc = "start time (launch start on the device), ns on the trace's clock" })
  lu.assertEquals(by["memset.bytes"].doc, "bytes set")
  lu.assertEquals(by["devices.cc"].unit, "")
  lu.assertNil(by["runtime.pid"]) -- not standard yet: text in Kineto, an integer in nsys
  lu.assertTrue(#s >= 90, #s .. " columns")
end

-- Kineto's and nsys' kernels no longer retype the schema: their stream,
-- context, grid and start columns describe themselves as schema.c does,
-- and a reader that names a standard column without a description (rocprof
-- v1's pid) gets the schema's.
function TestFormatColumns:test_readers_take_the_schema_description()
  local doc = {}
  for _, c in ipairs(formats.schema()) do doc[c.table .. "." .. c.name] = c.doc end
  for _, path in ipairs({ "tests/fixtures/suspicion/normal_1.pt.trace.json.gz",
    "tests/fixtures/nsys_sqlite/nvtx_small.sqlite" }) do
    local d = perflab.load(path):table("kernels"):docs()
    for _, c in ipairs({ "start_ns", "stream", "context", "grid_y", "block_z" }) do
      lu.assertEquals(d[c], doc["kernels." .. c], path .. " kernels." .. c)
    end
  end
  local kd = perflab.load("tests/fixtures/suspicion/normal_1.pt.trace.json.gz")
  lu.assertEquals(kd:table("memset"):docs().bytes, "bytes set")
  lu.assertEquals(kd:table("memcpy"):docs().bytes, "bytes copied")
  local rp = perflab.load("tests/data/corpus/rocprof/rocprof_hip_programming_output_vec_add_gpu.csv")
  lu.assertEquals(rp:table("kernels"):docs().pid, "process id")
end

os.exit(lu.LuaUnit.run())

-- test_torch_table_kernels.lua -- the kernel_summary derived from a PyTorch
-- key_averages table (lua/perflab/derive.lua): the rows that ran on the
-- device alone, without the record_function ranges PyTorch mirrors on the
-- GPU and without copies and sets.  Expected values read off the files by
-- hand and, for the A100 table, by a Python reading of the text (row split on
-- runs of two spaces, CPU total "0.000us", Self CUDA > 0, name not also a row
-- with host time, not "Memcpy "/"Memset "): 40 rows, 1,868,067,000 ns.
-- Run: build/perflab tests/lua/test_torch_table_kernels.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local tdata = require "tdata"

local DIR = "corpus/torch_profiler_table/"

local function load(name) return perflab.load(tdata.path(DIR .. name)) end

local function diag(p, pat)
  for _, d in ipairs(p.diagnostics) do
    if d.message:match(pat) then return d.message end
  end
end

TestTorchTableKernels = {}

-- LookupConv2d and Conv2d have a host row and a device-only row (the range
-- mirrored on the GPU), one Memcpy HtoD row: one kernel is left
function TestTorchTableKernels:test_mirrored_ranges_and_copies_left_out()
  local p = load("unknownrepo_lcnn_key_averages_cuda_table.txt")
  local k = p.tables.kernel_summary
  lu.assertNotNil(k)
  lu.assertEquals(k:nrows(), 1)
  local r = k:row(1)
  lu.assertEquals(r.name, "void sparse_conv2d_forward_kernel<float>(float const...")
  lu.assertEquals(r.short_name, "sparse_conv2d_forward_kernel")
  lu.assertEquals(r.calls, 1)
  lu.assertEquals(r.total_ns, 10597000)
  lu.assertAlmostEquals(r.share_pct, 100, 1e-12)
  lu.assertTrue(r.truncated)
  lu.assertEquals(r.line, 12)
  lu.assertNotNil(diag(p, "^kernel_summary: 1 of 10 rows of table 1 .* 2 record_function .* 1 copies"))
end

function TestTorchTableKernels:test_a100_table()
  local p = load("unknownrepo_a100_key_averages_cuda_graph_table.txt")
  local k = p.tables.kernel_summary
  lu.assertEquals(k:nrows(), 40)
  lu.assertEquals(k:col("total_ns"):sum(), 1868067000)
  local r = k:row(1)
  lu.assertEquals(r.calls, 720)
  lu.assertEquals(r.total_ns, 239338000)
  lu.assertAlmostEquals(r.mean_ns, 239338000 / 720, 1e-6)
  lu.assertAlmostEquals(r.share_pct, 100 * 239338000 / 1868067000, 1e-9)
  lu.assertEquals(k:row(-1).total_ns, 20000)
  lu.assertEquals(k:row(-1).calls, 20)
  -- top-kernels reads it: the largest first, the same time
  local rep = perflab.run("top-kernels", p)
  local t = rep.tables[rep.table_order[1]]
  lu.assertEquals(t:get(1, "total_ns"), 239338000)
end

-- a CPU-only table has no device rows: no kernel_summary
function TestTorchTableKernels:test_cpu_only_table()
  local p = load("unknownrepo_leduc_cfr_key_averages_cpu_only_table.txt")
  lu.assertNil(p.tables.kernel_summary)
end

-- two tables: the first that has device-only rows is read, once
local function tbl(rows)
  local dash = string.rep("-", 30) .. "  " .. string.rep("-", 12) .. "  " .. string.rep("-", 12) .. "  "
      .. string.rep("-", 12) .. "  " .. string.rep("-", 12) .. "  " .. string.rep("-", 12)
  local out = { dash, string.format("%30s  %12s  %12s  %12s  %12s  %12s", "Name", "Self CPU", "CPU total",
    "Self CUDA", "CUDA total", "# of Calls"), dash }
  for _, r in ipairs(rows) do
    out[#out + 1] = string.format("%30s  %12s  %12s  %12s  %12s  %12d", r[1], r[2], r[3], r[4], r[4], r[5])
  end
  out[#out + 1] = dash
  out[#out + 1] = "Self CPU time total: 10.000ms"
  out[#out + 1] = "Self CUDA time total: 9.000ms"
  return table.concat(out, "\n") .. "\n"
end

function TestTorchTableKernels:test_first_table_with_device_rows()
  local text = tbl { { "aten::add", "1.000ms", "2.000ms", "0.000us", 4 } } .. "\n"
      .. tbl { { "aten::mm", "1.000ms", "2.000ms", "0.000us", 2 },
          { "gemm_kernel", "0.000us", "0.000us", "6.000ms", 3 },
               { "Memset (Device)", "0.000us", "0.000us", "1.000ms", 1 },
                   { "add_kernel", "0.000us", "0.000us", "2.000ms", 4 } }
  local p = perflab.parse("two.txt", text, { format = "torch-table" })
  local k = p.tables.kernel_summary
  lu.assertEquals(k:col("name"):to_lua(), { "gemm_kernel", "add_kernel" })
  lu.assertEquals(k:col("total_ns"):to_lua(), { 6000000, 2000000 })
  lu.assertEquals(k:col("calls"):to_lua(), { 3, 4 })
  lu.assertEquals(k:col("share_pct"):to_lua(), { 75, 25 })
  lu.assertNotNil(diag(p, "^kernel_summary: 2 of 4 rows of table 2 .* 0 record_function .* 1 copies"))
end

os.exit(lu.LuaUnit.run())

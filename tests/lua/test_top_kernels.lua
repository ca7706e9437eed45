-- test_top_kernels.lua -- the kernel-table parser and the top-kernels recipe
-- against an independent plain-Lua reading of the seed profile
-- (shared/seeds/000_86950a828dffa530.txt, bundled as examples/kernel-table.txt).
-- Run: build/perflab tests/lua/test_top_kernels.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local cjson = require "cjson"

local PATH = "examples/kernel-table.txt"
local SEED = (os.getenv("PERFLAB_DATA") or "tests/data") .. "/seeds/000_86950a828dffa530.txt"

local function slurp(p)
  local f = io.open(p, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- ---- the independent side: io.lines + string patterns ----------------------
-- Each row is "NAME | LATENCY TENSOR DRAM"; the first line is the header.
-- Names in this file have no templates, arguments or spaces (asserted below),
-- so the short name is: drop a trailing "...", then keep what follows the last "::".
local function read_rows(path)
  local rows, truncated_lines, lineno = {}, 0, 0
  for line in io.lines(path) do
    lineno = lineno + 1
    if lineno == 1 then
      assert(line:match("^Kernel%s+Latency%s+Tensor%s+DRAM%s*$"), "header")
    elseif line:match("%S") then
      local name, lat, ten, dram = line:match("^%s*(.-)%s*|%s*(%S+)%s+(%S+)%s+(%S+)%s*$")
      assert(name, "row " .. lineno)
      if line:find("...", 1, true) then truncated_lines = truncated_lines + 1 end
      rows[#rows + 1] = {
        name = name, short = name:gsub("%.%.%.$", ""):match("([^:]*)$"),
        lat = tonumber(lat), ten = tonumber(ten), dram = tonumber(dram),
        truncated = name:sub(-3) == "...", line = lineno,
      }
    end
  end
  return rows, truncated_lines
end

-- per-group figures: calls, total, min, max, sum(u*d) for the utilisations
local function expected_groups(rows, key)
  local g, order = {}, {}
  local grand = 0
  for _, r in ipairs(rows) do
    local k = r[key]
    local e = g[k]
    if not e then
      e = { kernel = k, calls = 0, total = 0, min = math.huge, max = -math.huge, ten_x = 0, dram_x = 0 }
      g[k] = e
      order[#order + 1] = k
    end
    e.calls = e.calls + 1
    e.total = e.total + r.lat
    e.min = math.min(e.min, r.lat)
    e.max = math.max(e.max, r.lat)
    e.ten_x = e.ten_x + r.ten * r.lat
    e.dram_x = e.dram_x + r.dram * r.lat
    grand = grand + r.lat
  end
  for _, e in pairs(g) do
    e.mean = e.total / e.calls
    e.share = 100 * e.total / grand
    e.tensor = e.total > 0 and e.ten_x / e.total or nil
    e.dram = e.total > 0 and e.dram_x / e.total or nil
  end
  return g, order, grand
end

local function rel_close(got, want, what)
  lu.assertNotNil(got, what)
  local tol = 1e-9 * math.max(math.abs(got), math.abs(want))
  if math.abs(got - want) > tol then
    lu.fail(string.format("%s: got %.17g, want %.17g", what, got, want))
  end
end

local ROWS, TRUNC_LINES = read_rows(PATH)

-- ---------------------------------------------------------------------------
TestSeed = {}

function TestSeed:test_example_is_the_seed()
  local seed = slurp(require("tdata").need(SEED))
  lu.assertTrue(seed == slurp(PATH), "examples/kernel-table.txt is a copy of the seed")
end

function TestSeed:test_independent_reading()
  -- the figures the issue states for this file
  lu.assertEquals(#ROWS, 13065)
  local total = 0
  for _, r in ipairs(ROWS) do total = total + r.lat end
  lu.assertEquals(total, 306573856)
  lu.assertEquals(TRUNC_LINES, 496)
  for _, r in ipairs(ROWS) do lu.assertNil(r.name:find("[%s<(]"), "simple names: " .. r.name) end
end

function TestSeed:test_parser_kernels_table()
  local p = perflab.load(PATH)
  lu.assertEquals(p.format, "kernel-table")
  lu.assertEquals(p.source, PATH)
  lu.assertEquals(p.meta.time_unit, "ns")
  local k = p:table("kernels")
  lu.assertEquals(k:columns(), { "name", "short_name", "latency_ns", "duration_ns", "tensor_util", "dram_util",
      "truncated", "line" })
  lu.assertEquals(k:types(), { name = "string", short_name = "string", latency_ns = "number", duration_ns = "number",
    tensor_util = "number", dram_util = "number", truncated = "boolean", line = "integer" })
  lu.assertEquals(k:nrows(), 13065)
  lu.assertEquals(k:col("latency_ns"):sum(), 306573856)
  lu.assertEquals(k:col("duration_ns"):sum(), 306573856)
  local ntrunc = 0
  for i, r in k:rows() do
    local e = ROWS[i]
    if r.name ~= e.name or r.latency_ns ~= e.lat or r.tensor_util ~= e.ten or r.dram_util ~= e.dram
       or r.truncated ~= e.truncated or r.line ~= e.line or r.short_name ~= e.short then
      lu.fail(string.format("row %d differs: %s %s %s", i, r.name, tostring(r.latency_ns), tostring(r.short_name)))
    end
    if r.truncated then ntrunc = ntrunc + 1 end
  end
  lu.assertEquals(ntrunc, TRUNC_LINES)
  -- every column is documented; the utilisations say they are fractions
  local docs = k:docs()
  for _, c in ipairs(k:columns()) do lu.assertNotNil(docs[c], "doc for " .. c) end
  lu.assertStrContains(docs.tensor_util, "fraction 0..1")
  lu.assertStrContains(docs.dram_util, "fraction 0..1")
end

-- ---------------------------------------------------------------------------
TestRecipe = {}

local function check_table(t, key)
  local g, order, grand = expected_groups(ROWS, key)
  lu.assertEquals(grand, 306573856)
  lu.assertEquals(t:nrows(), #order)
  lu.assertEquals(t:columns(), { "kernel", "calls", "total_ns", "mean_ns", "min_ns", "max_ns", "share_pct",
      "tensor_util", "dram_util" })
  local seen, prev = {}, nil
  for i, r in t:rows() do
    local e = g[r.kernel]
    lu.assertNotNil(e, "unexpected kernel " .. tostring(r.kernel))
    lu.assertNil(seen[r.kernel], "kernel listed twice: " .. r.kernel)
    seen[r.kernel] = true
    lu.assertEquals(r.calls, e.calls, r.kernel)
    lu.assertEquals(r.total_ns, e.total, r.kernel)
    lu.assertEquals(r.min_ns, e.min, r.kernel)
    lu.assertEquals(r.max_ns, e.max, r.kernel)
    rel_close(r.mean_ns, e.mean, r.kernel .. " mean")
    rel_close(r.share_pct, e.share, r.kernel .. " share")
    rel_close(r.tensor_util, e.tensor, r.kernel .. " tensor")
    rel_close(r.dram_util, e.dram, r.kernel .. " dram")
    -- sorted by total time, descending; ties by name
    if prev then
      lu.assertTrue(prev.total_ns > r.total_ns or (prev.total_ns == r.total_ns and prev.kernel < r.kernel),
        "order at row " .. i)
    end
    prev = r
  end
  return g, order
end

function TestRecipe:test_all_rows_by_name()
  local rep = perflab.run("top-kernels", PATH, { top = 0 })
  lu.assertEquals(rep.recipe, "top-kernels")
  lu.assertEquals(rep.table_order, { "top_kernels" })
  local _, order = check_table(rep.tables.top_kernels, "name")
  lu.assertEquals(#order, 85)
  -- by hand from the file: elementwise_kernel is first with 3185 calls, 56058272 ns
  local first = rep.tables.top_kernels:row(1)
  lu.assertEquals(first.kernel, "elementwise_kernel")
  lu.assertEquals(first.calls, 3185)
  lu.assertEquals(first.total_ns, 56058272)
  -- the finding names the dominant kernel
  lu.assertEquals(#rep.findings, 1)
  local f = rep.findings[1]
  lu.assertEquals(f.severity, "info")
  lu.assertEquals(f.rule, "top-kernels.dominant")
  lu.assertEquals(f.subject, "elementwise_kernel")
  lu.assertEquals(f.message, "elementwise_kernel takes 18.3 % of kernel time (56.06 ms over 3185 calls)")
  lu.assertEquals(f.evidence.kernel_time_ns, 306573856)
  -- shares add up to 100 %
  rel_close(rep.tables.top_kernels:col("share_pct"):sum(), 100, "share sum")
end

function TestRecipe:test_group_short_name()
  local rep = perflab.run("top-kernels", PATH, { top = 0, group = "short_name" })
  local g, order = check_table(rep.tables.top_kernels, "short")
  lu.assertEquals(#order, 83)   -- "Kernel", "cutlass_cudnn_infer::Kernel" and "cutlass_cudnn_train::Kernel" merge
  lu.assertTrue(g.Kernel.calls > 944)
end

-- CUTLASS launches wrap the GEMM in cutlass::Kernel<...>: the short name is
-- the template argument, so the 308 launches of the HTA sample trace's 53
-- CUTLASS GEMMs (counted with Python's json on the trace: names starting
-- "void cutlass::Kernel<", 54.787 ms in all) stay 53 groups instead of one
-- "Kernel" group of 308 (59 groups in all before, 111 now).
function TestRecipe:test_group_short_name_cutlass()
  local rep = perflab.run("top-kernels", "tests/data/corpus/kineto_trace/hta_sampled_rank-0.json.gz",
      { top = 0, group = "short_name" })
  local t = rep.tables.top_kernels
  lu.assertEquals(t:nrows(), 111)
  local groups, calls, total = 0, 0, 0
  for _, r in t:rows() do
    lu.assertNotEquals(r.kernel, "Kernel")
    if r.kernel:match("^cutlass_") then groups = groups + 1; calls = calls + r.calls; total = total + r.total_ns end
  end
  lu.assertEquals(groups, 53)
  lu.assertEquals(calls, 308)
  lu.assertEquals(total, 54787000)
end

function TestRecipe:test_default_top_and_title()
  local rep = perflab.run("top-kernels", PATH)
  lu.assertEquals(rep.tables.top_kernels:nrows(), 20)
  lu.assertEquals(rep.table_info.top_kernels.title,
      "85 kernels, 13065 launches, 306.6 ms of kernel time (top 20 shown)")
  lu.assertEquals(rep.options, { top = 20, group = "name" })
end

function TestRecipe:test_string_options_are_coerced()
  local rep = perflab.run("top-kernels", PATH, { top = "3" })
  lu.assertEquals(rep.tables.top_kernels:nrows(), 3)
end

-- ---------------------------------------------------------------------------
TestRender = {}

local function report3() return perflab.run("top-kernels", PATH, { top = 3 }) end

function TestRender:test_json_shape()
  local text = report3():render("json")
  local d = cjson.decode(text)
  lu.assertEquals(d.schema, 1)
  lu.assertEquals(d.recipe, "top-kernels")
  lu.assertEquals(d.inputs, { { source = PATH, format = "kernel-table" } })
  lu.assertEquals(d.options, { top = 3, group = "name" })
  lu.assertEquals(#d.findings, 1)
  local f = d.findings[1]
  lu.assertEquals(f.severity, "info")
  lu.assertEquals(f.rule, "top-kernels.dominant")
  lu.assertEquals(f.subject, "elementwise_kernel")
  lu.assertEquals(f.evidence.calls, 3185)
  lu.assertEquals(type(d.tables), "table")
  local rows = d.tables.top_kernels
  lu.assertEquals(#rows, 3)
  local g = expected_groups(ROWS, "name")
  for _, r in ipairs(rows) do
    lu.assertEquals(r.calls, g[r.kernel].calls)
    lu.assertEquals(r.total_ns, g[r.kernel].total)
    rel_close(r.share_pct, g[r.kernel].share, "json share")
  end
  lu.assertEquals(rows[1].kernel, "elementwise_kernel")
  -- the one figure: time share per kernel (its bars: tests/lua/test_figures.lua)
  local figs = {}
  for k in pairs(d.figures) do figs[#figs + 1] = k end
  lu.assertEquals(figs, { "top_kernels.svg" })
  lu.assertEquals(d.figures["top_kernels.svg"].title, "time share per kernel (top_kernels)")
  lu.assertEquals(d.notes, {})
end

function TestRender:test_markdown()
  local md = report3():render("markdown")
  lu.assertStrContains(md, "## top-kernels\n")
  lu.assertStrContains(md, "Inputs: `examples/kernel-table.txt` (kernel-table)")
  lu.assertStrContains(md, "- **info** `elementwise_kernel` takes 18.3 % of kernel time")
  lu.assertStrContains(md, "\n| `elementwise_kernel`            |  3185 | 56058272 |")
  lu.assertStrContains(md, "| `vectorized_elementwise_kernel` |  4002 | 33716352 |")
  lu.assertStrContains(md, "| ------------------------------- | ----: |")
end

function TestRender:test_markdown_escapes_bars()
  local rep = perflab.report { recipe = "demo" }
  rep:table("t", perflab.table.from_rows({ { kernel = "op|x", note = "a|b", v = 1 } }, { "kernel", "note", "v" }))
  rep:finding { severity = "warn", subject = "op|x", message = "op|x is slow" }
  local md = rep:render("markdown")
  lu.assertStrContains(md, "| `op\\|x` | a\\|b |")
  lu.assertStrContains(md, "- **warn** `op|x` is slow")
end

function TestRender:test_csv()
  local csv = report3():render("csv")
  local lines = {}
  for l in csv:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  lu.assertEquals(lines[1], "# table: top_kernels")
  lu.assertEquals(lines[2], "kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util")
  lu.assertStrContains(lines[3], "elementwise_kernel,3185,56058272,")
  lu.assertEquals(lines[6], "")
  lu.assertEquals(lines[7], "# table: findings")
  lu.assertEquals(lines[8], "severity,rule,subject,message,speedup_pct,evidence,name")
  -- one table asked for: plain CSV
  local only = report3():render("csv", { table = "top_kernels" })
  lu.assertEquals(only:match("^[^\n]*"), "kernel,calls,total_ns,mean_ns,min_ns,max_ns,share_pct,tensor_util,dram_util")
end

function TestRender:test_text()
  local text = report3():render("text")
  local lines = {}
  for l in text:gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  lu.assertEquals(lines[1], "top-kernels · examples/kernel-table.txt (kernel-table)")
  lu.assertEquals(lines[3], "Findings (1)")
  lu.assertEquals(lines[7], "top_kernels — 85 kernels, 13065 launches, 306.6 ms of kernel time (top 3 shown)")
  lu.assertEquals(lines[8],
      "kernel                         calls  total_ns  mean_ns  min_ns  max_ns  share_pct  tensor_util  dram_util")
  lu.assertEquals(lines[10],
      "elementwise_kernel              3185  56058272  17600.7    5120  255488    18.2854    0.0238878   0.226779")
  lu.assertEquals(lines[#lines - 2],
      "tensor_util and dram_util are fractions 0-1 as the input gives them, weighted by kernel time.")
  lu.assertNotNil(lines[#lines]:match("^figure top_kernels%.svg: time share per kernel %(top_kernels%) %(%d+ bytes of SVG; %-%-output DIR writes it%)$"), lines[#lines])
  -- a narrower terminal: kernel names are cut (numbers never are), every line fits
  local narrow = report3():render("text", { width = 100 })
  for l in narrow:gmatch("[^\n]+") do lu.assertTrue(utf8.len(l) <= 100, l) end
  lu.assertStrContains(narrow,
      "\nvectorized_elementwis…   4002  33716352  8424.88    3488  147680    10.9978   0.00475988   0.288134\n")
end

function TestRender:test_empty_kernel_table()
  local rep = perflab.run("top-kernels", "tests/fixtures/kernel-table/header-only.txt")
  lu.assertEquals(rep.tables.top_kernels:nrows(), 0)
  lu.assertEquals(#rep.findings, 0)
  lu.assertEquals(rep.notes, { "tests/fixtures/kernel-table/header-only.txt has no kernel launches." })
end

os.exit(lu.LuaUnit.run())

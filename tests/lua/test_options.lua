--- test_options.lua -- strict option tables (issue 18, part 7): an unknown
-- key in an option table of the public API is an error naming the key and
-- the accepted ones, through the one checker perflab.options (C: l_options.c,
-- pl_l_checkoptions in the bindings).  The figures a misspelt key used to
-- give are checked too, so the error is what stands between a typo and a
-- wrong answer.
local lu = require "luaunit"
local perflab = require "perflab"
local options = require "perflab.options"
local T = perflab.table
local KT = "examples/kernel-table.txt"

TestOptions = {}

function TestOptions:test_check_accepts_known_keys_and_nil()
  local o = { a = 1, b = 2 }
  lu.assertIs(options.check(o, { "a", "b", "c" }, "f"), o)
  lu.assertNil(options.check(nil, { "a" }, "f"))
  lu.assertEquals(options.check({}, {}, "f"), {})
end

function TestOptions:test_check_names_the_key_and_the_sorted_accepted_ones()
  local ok, err = pcall(options.check, { b = 1, zz = 2 }, { "c", "b", "a" }, "f")
  lu.assertFalse(ok)
  lu.assertStrContains(err, "f: unknown option 'zz'; accepted: a, b, c")
  ok, err = pcall(options.check, { 1 }, { "a" }, "g")
  lu.assertStrContains(err, "g: unexpected value without an option name; accepted: a")
  ok, err = pcall(options.check, { x = 1 }, {}, "h")
  lu.assertStrContains(err, "h: unknown option 'x'; accepted: none")
  lu.assertErrorMsgContains("option names must be strings", options.check, { a = 1 }, { 1 }, "f")
end

-- The review's case: smem is not an argument of the calculator.  With
-- smem_static = 100000 on CC 8.0 (164 KiB per SM, 1 KiB reserved per block)
-- one 256-thread block fits: 8 of 64 warps = 12.5 %; ignoring the key gave
-- the unlimited 100 %.
function TestOptions:test_gpu_occupancy_rejects_smem()
  local gpu = perflab.gpu
  local base = { cc = "8.0", block_size = 256, registers = 32 }
  lu.assertEquals(gpu.occupancy(base).theoretical_occupancy_pct, 100)
  local with = { cc = "8.0", block_size = 256, registers = 32, smem_static = 100000 }
  lu.assertEquals(gpu.occupancy(with).theoretical_occupancy_pct, 12.5)
  lu.assertErrorMsgContains("perflab.gpu.occupancy: unknown option 'smem'; accepted: barriers, block, block_size",
    gpu.occupancy, { cc = "8.0", block_size = 256, registers = 32, smem = 100000 })
  lu.assertErrorMsgContains("perflab.gpu.what_if: unknown option 'regs'",
    gpu.what_if, { cc = "8.0", block_size = 256, regs = 32 })
  lu.assertErrorMsgContains("perflab.gpu.est_achieved_occupancy: unknown option 'smem_static'",
    gpu.est_achieved_occupancy, { cc = "8.0", block_size = 256, grid_size = 1, sm_count = 108, smem_static = 1 })
end

-- perflab.load(f, {tabels = ...}) loaded every table; now an error.
function TestOptions:test_load_rejects_tabels()
  lu.assertEquals(perflab.load(KT, { tables = { "kernels" } }):table_names(), { "kernels" })
  lu.assertErrorMsgContains("perflab.load: unknown option 'tabels'; accepted: chunk_bytes, format, jobs, lenient, raw_text, tables",
    perflab.load, KT, { tabels = { "kernels" } })
  lu.assertErrorMsgContains("perflab.try_load: unknown option 'lenien'", perflab.try_load, KT, { lenien = true })
  lu.assertErrorMsgContains("perflab.parse: unknown option 'fmt'", perflab.parse, "x", "a,b\n1,2\n", { fmt = "csv" })
  -- the binding checks too (a script that calls perflab.formats directly)
  lu.assertErrorMsgContains("unknown option 'tabels'; accepted: format, lenient, raw_text, tables",
    require("perflab.formats").load, KT, { tabels = {} })
end

function TestOptions:test_stats_options()
  local S = perflab.stats
  lu.assertEquals(S.mean({ 1, 0 / 0, 3 }, { nan = "omit" }), 2)
  lu.assertErrorMsgContains("unknown option 'nans'; accepted: nan", S.mean, { 1, 2 }, { nans = "omit" })
  lu.assertErrorMsgContains("unknown option 'methd'; accepted: method, nan", S.mann_whitney_u, { 1, 2 }, { 3, 4 },
      { methd = "exact" })
  lu.assertErrorMsgContains("unknown option 'bin'; accepted: bins, edges, log, nan", S.histogram, { 1, 2 }, { bin = 3 })
  lu.assertErrorMsgContains("unknown option 'level'; accepted: alpha, n, nan, seed", S.bootstrap_ci, { 1, 2 }, "mean",
      { level = 0.9 })
  lu.assertEquals(#S.histogram({ 1, 2, 3, 4 }, { bins = 2 }).counts, 2)
end

function TestOptions:test_table_and_interval_options()
  local t = T.from_rows({ { k = "a", v = 1 }, { k = "b", v = 2 } }, { "k", "v" })
  lu.assertStrContains(t:format({ digits = 3 }), "a")
  lu.assertErrorMsgContains("unknown option 'digit'; accepted: digits, markdown, max_rows, width", t.format, t,
      { digit = 3 })
  lu.assertErrorMsgContains("unknown option 'hw'; accepted: how, on, suffix", t.join, t, t, { on = "k", hw = "left" })
  lu.assertErrorMsgContains("unknown option 'ascending'; accepted: asc", t.top, t, 1, "v", { ascending = true })
  local IV = perflab.intervals
  lu.assertEquals(IV.from_pairs({ { 1, 2 } }, { strict = true }):count(), 1)
  lu.assertErrorMsgContains("unknown option 'strick'; accepted: strict", IV.from_pairs, { { 1, 2 } }, { strick = true })
end

function TestOptions:test_report_options()
  local rep = perflab.report { recipe = "x", title = "T" }
  lu.assertEquals(rep.title, "T")
  lu.assertErrorMsgContains("perflab.report: unknown option 'titel'", perflab.report, { titel = "T" })
  lu.assertErrorMsgContains("report:finding: unknown option 'severty'", rep.finding, rep,
      { message = "m", severty = "warn" })
  local t = T.from_rows({ { v = 1 } }, { "v" })
  lu.assertErrorMsgContains("report:table: unknown option 'titel'", rep.table, rep, "t", t, { titel = "x" })
  lu.assertErrorMsgContains("report:figure: unknown option 'name'", rep.figure, rep, "f.svg", "<svg/>", { name = "x" })
  lu.assertErrorMsgContains("report:render: unknown option 'rows'", rep.render, rep, "text", { rows = 3 })
end

os.exit(lu.LuaUnit.run())

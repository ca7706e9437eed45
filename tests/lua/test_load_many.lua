-- tests/lua/test_load_many.lua -- perflab.load_many (files parsed on N
-- threads) and perflab.ranks (rank and world size of each profile).
--
-- 1. load_many on 1, 2 and 3 threads gives, file by file and in the order
--    given, the same tables (every column of every table, as CSV) as
--    perflab.load one file at a time (the second computation).
-- 2. An unreadable or malformed file: the error names that file.
-- 3. Ranks: from distributedInfo (the HTA sampled pair: ranks 0, 1 of 128,
--    a note that 126 ranks are missing); from file order when the files say
--    nothing (the tb-plugin workers); two files claiming one rank, and files
--    of different world sizes (the trace_diff pair: rank 3 of 8, rank 1 of
--    2), are errors naming both files.
local lu = require "luaunit"
local perflab = require "perflab"
local ranks = require "perflab.ranks"

local DATA = os.getenv("PERFLAB_DATA") or "tests/data"
local MR = DATA .. "/corpus/kineto_multirank/"
local FILES = {
  MR .. "hta_trace_filter_sampled_2rank/sampled_rank-1.json.gz",
  "tests/fixtures/multirank/straggler/rank-0.json.gz",
  MR .. "tbplugin_distributed_test_inline/nccl/worker0.json",
  "examples/kernel-table.txt",
  MR .. "hta_trace_filter_sampled_2rank/sampled_rank-0.json.gz",
}

local function dump(p)
  local parts = { p.source, p.format }
  for _, n in ipairs(p:table_names()) do parts[#parts + 1] = n .. "\n" .. p:table(n):to_csv() end
  return table.concat(parts, "\n")
end

TestLoadMany = {}

function TestLoadMany:test_same_as_one_by_one()
  local want = {}
  for i, f in ipairs(FILES) do want[i] = dump(perflab.load(f)) end
  for _, jobs in ipairs({ 1, 2, 3 }) do
    local got = perflab.load_many(FILES, { jobs = jobs })
    lu.assertEquals(#got, #FILES)
    for i = 1, #FILES do lu.assertEquals(dump(got[i]), want[i], string.format("jobs %d file %d", jobs, i)) end
  end
  -- the default job count is the core count
  lu.assertTrue(require("perflab.formats").cores() >= 1)
  lu.assertEquals(#perflab.load_many(FILES), #FILES)
  lu.assertEquals(#perflab.load_many({}), 0)
end

function TestLoadMany:test_error_names_the_file()
  local bad = os.tmpname()
  local f = io.open(bad, "w")
  f:write('{"traceEvents": [ {"ph": "X", "ts": 1,, } ]}')
  f:close()
  for _, jobs in ipairs({ 1, 2 }) do
    local ok, err = pcall(perflab.load_many, { FILES[1], bad, FILES[3] }, { jobs = jobs })
    lu.assertFalse(ok)
    lu.assertStrContains(tostring(err), bad .. ":1:")
    ok, err = pcall(perflab.load_many, { FILES[1], "/nonexistent/rank-9.json" }, { jobs = jobs })
    lu.assertFalse(ok)
    lu.assertStrContains(tostring(err), "/nonexistent/rank-9.json")
  end
  os.remove(bad)
  local ok, err = pcall(perflab.load_many, FILES, { jobs = 0 })
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "jobs")
end

TestRanks = {}

function TestRanks:test_from_the_trace()
  local ps = perflab.load_many({ MR .. "hta_trace_filter_sampled_2rank/sampled_rank-1.json.gz",
    MR .. "hta_trace_filter_sampled_2rank/sampled_rank-0.json.gz" }, { jobs = 2 })
  lu.assertEquals(ps[1].rank, 1)
  lu.assertEquals(ps[1].rank_from, "trace")
  lu.assertEquals(ps[1].world_size, 128)
  local sorted, notes = ranks.assign(ps)
  lu.assertEquals(sorted[1].rank, 0)
  lu.assertEquals(sorted[2].rank, 1)
  lu.assertEquals(#notes, 1)
  lu.assertStrContains(notes[1], "2 of 128 ranks present")
end

function TestRanks:test_from_file_order()
  local ps = perflab.load_many({ MR .. "tbplugin_distributed_test_inline/nccl/worker1.json",
    MR .. "tbplugin_distributed_test_inline/nccl/worker0.json" })
  -- every profile knows its rank: here from the order of the files
  lu.assertEquals({ ps[1].rank, ps[1].rank_from, ps[1].world_size }, { 0, "order", 2 })
  lu.assertEquals({ ps[2].rank, ps[2].world_size }, { 1, 2 })
  local sorted, notes = ranks.assign(ps)
  lu.assertStrContains(sorted[1].source, "worker1.json")
  lu.assertEquals(sorted[1].rank, 0)
  lu.assertEquals(sorted[2].world_size, 2)
  lu.assertStrContains(notes[1], "order on the command line")
end

function TestRanks:test_different_jobs()
  local ps = perflab.load_many({ MR .. "hta_trace_diff/control/control.json.gz",
      MR .. "hta_trace_diff/test/test.json.gz" })
  local ok, err = pcall(ranks.assign, ps)
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "ranks of different jobs")
  lu.assertStrContains(tostring(err), "world size 8")
  ps = perflab.load_many({ MR .. "hta_trace_compare/base/base.json.gz", MR .. "hta_trace_compare/test/test.json.gz" })
  ok, err = pcall(ranks.assign, ps)
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "both are rank 1")
end

-- The tb-plugin's worker files are bare JSON arrays whose kernels give their
-- stream only as tid "stream 16": the stream column still has it (read by
-- hand from the file: broadcast and all_reduce on 16, the add kernel on 7).
TestChromeVariants = {}

function TestChromeVariants:test_stream_from_tid()
  local p = perflab.load(MR .. "tbplugin_distributed_test_inline/nccl/worker0.json")
  local k = p:table("kernels")
  lu.assertEquals(k:col("stream"):to_lua(), { 16, 7, 16 })
  lu.assertEquals(k:col("start_ns"):to_lua(), { 16000, 130000, 162000 })
end

os.exit(lu.LuaUnit.run())

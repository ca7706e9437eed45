-- test_kineto_waits.lua -- the wait columns of a Kineto trace's `events`
-- (wait_on_stream, wait_on_record_corr) are there only where some event
-- records a wait, and then hold the values of exactly those events.
--
-- Expected values worked out apart from perflab, with Python's json over
-- tests/data/critical_path/event_sync_trace.json.gz: of its 56 events
-- (with "ph", not metadata) two, 0-based 39 and 43 ("Event Sync"), carry
-- wait_on_stream 7 and wait_on_cuda_event_record_corr_id 1533; the triton
-- example of the corpus has no wait (grep finds no "wait_on_stream").
local lu = require "luaunit"
local perflab = require "perflab"

local DATA = os.getenv("PERFLAB_DATA") or "tests/data"

TestKinetoWaits = {}

function TestKinetoWaits:test_present_where_recorded()
  for _, o in ipairs { { jobs = 1 }, { jobs = 2, chunk_bytes = 700 } } do
    local p = perflab.load(DATA .. "/critical_path/event_sync_trace.json.gz", o)
    local ev = p:table("events")
    lu.assertEquals(ev:nrows(), 56)
    local ws, wr = ev:col("wait_on_stream"), ev:col("wait_on_record_corr")
    lu.assertEquals(ws:count(), 2)
    lu.assertEquals(wr:count(), 2)
    lu.assertEquals({ ws[40], wr[40], ws[44], wr[44] }, { 7, 1533, 7, 1533 })
    lu.assertEquals(ev:col("name")[40], "Event Sync")
    lu.assertEquals(ws:sum(), 14)
    lu.assertEquals(wr:sum(), 3066)
    -- the last two columns, as before they became optional
    local cols = ev:columns()
    lu.assertEquals({ cols[#cols - 1], cols[#cols] }, { "wait_on_stream", "wait_on_record_corr" })
  end
end

function TestKinetoWaits:test_absent_without_waits()
  local p = perflab.load(DATA .. "/corpus/kineto_trace/hta_a100_triton_example.json.gz")
  local ev = p:table("events")
  lu.assertTrue(ev:nrows() > 0)
  lu.assertFalse(ev:has("wait_on_stream"))
  lu.assertFalse(ev:has("wait_on_record_corr"))
  lu.assertEquals(ev:columns()[#ev:columns()], "stream")
end

os.exit(lu.LuaUnit.run())

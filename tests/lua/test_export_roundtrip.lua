-- test_export_roundtrip.lua -- `perflab export chrome-trace` keeps a
-- profile's structure (issue 28, point 12): re-reading the export with the
-- Kineto reader gives the same steps, user annotations, NVTX ranges,
-- process and thread names, kernels and runtime calls (times relative to
-- the export's baseTimeNanoseconds).
-- Run: build/perflab tests/lua/test_export_roundtrip.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local trace = require "perflab.trace"

local KINETO = "tests/data/field3/kineto_structure.json"
local NSYS = "tests/fixtures/nsys_sqlite/nvtx_small.sqlite"

-- rows of t as sorted "a|b|c" strings over cols; time columns shifted by -base
local function rows(t, cols, base, times)
  local out = {}
  if not t then return out end
  local shift = {}
  for _, c in ipairs(times or {}) do shift[c] = true end
  for _, r in t:rows() do
    local parts = {}
    for i, c in ipairs(cols) do
      local v = r[c]
      if shift[c] and v then v = math.tointeger(v) - base end
      parts[i] = tostring(v)
    end
    out[#out + 1] = table.concat(parts, "|")
  end
  table.sort(out)
  return out
end

local function roundtrip(path)
  local p = perflab.load(path)
  local text = trace.chrome(p)
  local base = math.tointeger(tonumber(text:match('"baseTimeNanoseconds":(%d+)')))
  return p, perflab.parse("export.json", text), base
end

-- the rows of a ⊆ the rows of b
local function subset(a, b, what)
  local have = {}
  for _, x in ipairs(b) do have[x] = (have[x] or 0) + 1 end
  for _, x in ipairs(a) do
    lu.assertTrue((have[x] or 0) > 0, what .. ": lost " .. x)
    have[x] = have[x] - 1
  end
end

TestExportRoundTrip = {}

function TestExportRoundTrip:test_kineto_steps_annotations_names()
  local p, q, base = roundtrip(KINETO)
  lu.assertEquals(q.format, "kineto")
  -- the file's events start at 1700000000000 us = 1.7e15 ns: base is on a whole us at or below the first
  lu.assertEquals(base, 1700000000000000)
  -- steps: ProfilerStep#3 and #4, 900.5 us each, at 0 and 1000 us
  local st = rows(q.tables.steps, { "step", "name", "start_ns", "duration_ns", "pid", "tid" }, 0)
  lu.assertEquals(st, { "3|ProfilerStep#3|0|900500|4242|4242", "4|ProfilerStep#4|1000000|900500|4242|4242" })
  lu.assertEquals(st, rows(p.tables.steps, { "step", "name", "start_ns", "duration_ns", "pid", "tid" }, base,
      { "start_ns" }))
  -- user annotations on the host and on the device stream
  local function annos(prof, b)
    local ev = prof.tables.events
    local m = (ev:col("cat"):eq("user_annotation") | ev:col("cat"):eq("gpu_user_annotation")) & ~ev:col("name"):match("^ProfilerStep#")
    return rows(ev:filter(m), { "name", "cat", "ts_ns", "dur_ns", "pid", "tid" }, b, { "ts_ns" })
  end
  local a = annos(q, 0)
  lu.assertEquals(#a, 6)
  lu.assertEquals(a, annos(p, base))
  lu.assertEquals(a[1], "backward|user_annotation|1400000|200000|4242|4300")
  -- kernels, runtime calls and ops as before
  local kc = { "name", "start_ns", "duration_ns", "device", "stream", "correlation" }
  lu.assertEquals(rows(q.tables.kernels, kc, 0), rows(p.tables.kernels, kc, base, { "start_ns" }))
  local rc = { "name", "start_ns", "duration_ns", "pid", "tid", "correlation" }
  lu.assertEquals(rows(q.tables.runtime, rc, 0), rows(p.tables.runtime, rc, base, { "start_ns" }))
  local cc = { "name", "start_ns", "duration_ns", "pid", "tid" }
  lu.assertEquals(rows(q.tables.cpu_ops, cc, 0), rows(p.tables.cpu_ops, cc, base, { "start_ns" }))
  -- process and thread names, every one
  lu.assertEquals(rows(q.tables.processes, { "pid", "name" }), { "0|python3.10", "4242|python3.10" })
  lu.assertEquals(rows(q.tables.processes, { "pid", "name" }), rows(p.tables.processes, { "pid", "name" }))
  lu.assertEquals(rows(q.tables.threads, { "pid", "tid", "name" }), rows(p.tables.threads, { "pid", "tid", "name" }))
  -- and the export of the export has the same events (the reader keeps
  -- times relative to baseTimeNanoseconds: the second one's base is 0)
  local function body(t) return (t:gsub("^[^\n]*\n", "")) end
  lu.assertEquals(body(trace.chrome(q)), body(trace.chrome(p)))
end

function TestExportRoundTrip:test_nsys_nvtx_and_names()
  local p, q, base = roundtrip(NSYS)
  lu.assertEquals(base, 0)
  -- the 5 NVTX ranges (nested fwd in step on thread 101; step on 102)
  local nc = { "name", "start_ns", "duration_ns", "pid", "tid" }
  local nv = rows(q.tables.nvtx, nc, 0)
  lu.assertEquals(nv, { "fwd|1100|1400|100|101", "idle|8100|100|100|101", "step|1000|2000|100|102",
                        "step|1000|4000|100|101", "step|6000|2000|100|101" })
  lu.assertEquals(nv, rows(p.tables.nvtx, nc, base, { "start_ns" }))
  -- process and thread names: every recorded one kept (GPU processes added)
  subset(rows(p.tables.processes, { "pid", "name" }), rows(q.tables.processes, { "pid", "name" }), "processes")
  subset(rows(p.tables.threads, { "pid", "tid", "name" }), rows(q.tables.threads, { "pid", "tid", "name" }), "threads")
  lu.assertEquals(rows(q.tables.processes, { "pid", "name" }),
      { "0|GPU 0", "100|trainer", "1|GPU 1", "200|trainer", "300|helper" })
  local kc = { "name", "start_ns", "duration_ns", "device", "stream", "correlation" }
  lu.assertEquals(rows(q.tables.kernels, kc, 0), rows(p.tables.kernels, kc, base, { "start_ns" }))
end

os.exit(lu.LuaUnit.run())

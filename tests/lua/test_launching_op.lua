-- test_launching_op.lua -- perflab.timeline.launching_op: the op that
-- launched each kernel, by the trace's ids first, else by time containment.
-- Expected values come from a brute-force search written here (every op of
-- the runtime call's thread, the shortest one holding the call's start and
-- end) and from hand-made profiles.
local lu = require "luaunit"
local perflab = require "perflab"
local T = perflab.table
local IV = perflab.timeline
local DATA = os.getenv("PERFLAB_DATA") or "tests/data"

TestLaunchingOp = {}

-- the HTA alexnet trace gives GPU events their correlation as External id:
-- joining kernels to cpu_ops on external_id matches 1 of 79 kernels, to an
-- op that does not hold the launch; every kernel is placed by time instead
function TestLaunchingOp:test_alexnet_by_time()
  local p = perflab.load(DATA .. "/corpus/kineto_trace/hta_a100_alexnet_trace.json.gz")
  local ops = p.tables.cpu_ops:to_lua()
  local calls = {}
  for _, r in ipairs(p.tables.runtime:to_lua()) do if r.correlation then calls[r.correlation] = calls[r.correlation]
      or r end end
  local k = IV.launching_op(p)
  lu.assertEquals(k:nrows(), 79)
  local n = 0
  for _, r in k:rows() do
    local c = calls[r.correlation]
    local want, wl
    for _, o in ipairs(ops) do
      if o.external_id and o.pid == c.pid and o.tid == c.tid and o.start_ns <= c.start_ns
         and c.start_ns + c.duration_ns <= o.start_ns + o.duration_ns and (not wl or o.duration_ns < wl) then
        want, wl = o, o.duration_ns
      end
    end
    lu.assertEquals(r.launch_op_link, "time")
    lu.assertEquals(r.launch_op_id, want.external_id)
    lu.assertEquals(r.launch_op_name, want.name)
    n = n + 1
  end
  lu.assertEquals(n, 79)
  lu.assertEquals(k:col("launch_op_name"):to_lua()[1], "aten::uniform_")
end

-- a trace that links by ids (the tb-plugin's sample): every kernel's op is
-- the op with the kernel's External id
function TestLaunchingOp:test_ids_first()
  local p = perflab.load(DATA .. "/corpus/kineto_trace/kineto_tb_plugin_test_gpu_metrics_input_v100.json")
  local name_of = {}
  for _, r in p.tables.cpu_ops:rows() do if r.external_id then name_of[r.external_id] = name_of[r.external_id]
      or r.name end end
  local k = IV.launching_op(p)
  lu.assertEquals(k:nrows(), 30)
  for _, r in k:rows() do
    lu.assertEquals(r.launch_op_link, "id")
    lu.assertEquals(r.launch_op_id, r.external_id)
    lu.assertEquals(r.launch_op_name, name_of[r.external_id])
  end
end

-- hand-made: ops A [0,100) ext 1 (a GEMM) and B [50,150) ext 2 overlap
-- without nesting on one thread; kernel 1 names B by External id and its
-- call starts at 60, inside both: the id wins.  Kernel 2's External id 9
-- names no op, its call (External id 1) starts at 120, outside A: the ids
-- fail and time containment gives B.  Kernel 3 has no runtime call and an
-- unknown id: nothing.
function TestLaunchingOp:test_hand_made()
  local cols = { "name", "start_ns", "duration_ns", "pid", "tid", "external_id", "correlation" }
  local p = { tables = {
    cpu_ops = T.from_rows({ { name = "A", start_ns = 0, duration_ns = 100, pid = "1", tid = "1", external_id = 1 },
                            { name = "B", start_ns = 50, duration_ns = 100, pid = "1", tid = "1", external_id = 2 } },
                                cols),
    runtime = T.from_rows({ { name = "launch", start_ns = 60, duration_ns = 5, pid = "1", tid = "1", external_id = 2,
        correlation = 10 },
                            { name = "launch", start_ns = 120, duration_ns = 5, pid = "1", tid = "1", external_id = 1,
                                correlation = 11 } }, cols),
    kernels = T.from_rows({ { name = "k1", start_ns = 200, duration_ns = 1, external_id = 2, correlation = 10 },
                            { name = "k2", start_ns = 300, duration_ns = 1, external_id = 9, correlation = 11 },
                            { name = "k3", start_ns = 400, duration_ns = 1, external_id = 7, correlation = 12 } },
                                cols),
  } }
  local ids, names, links = IV.launch_links(p)
  lu.assertFalse(p.tables.kernels:has("launch_op_id"))     -- launch_links leaves the table as it was
  lu.assertEquals({ ids[1], names[1], links[1], ids[2], names[2], links[2], ids[3] },
      { 2, "B", "id", 2, "B", "time", nil })
  local k = IV.launching_op(p)
  local r = k:to_lua()
  lu.assertEquals({ r[1].launch_op_id, r[1].launch_op_name, r[1].launch_op_link }, { 2, "B", "id" })
  lu.assertEquals({ r[2].launch_op_id, r[2].launch_op_name, r[2].launch_op_link }, { 2, "B", "time" })
  lu.assertNil(r[3].launch_op_id); lu.assertNil(r[3].launch_op_link)
end

-- roofline on tests/fixtures/kineto/overlapping_ops.json: aten::add_ [1000,
-- 1100) us and aten::mm [1050, 1150) us overlap without nesting; add's
-- launch (1090-1110 us) ends inside mm only.  Placed by time alone, the add
-- kernel took a share of mm's FLOPs (arithmetic intensity 170.7 for an
-- add); by its External id it is add's, whose own work perflab.ops counts
-- (one FLOP per element of the 64x1024 float output, three float tensors
-- moved: intensity 1/12), and mm's kernel gets all 2*M*N*K =
-- 2*2048*512*2048 FLOPs
function TestLaunchingOp:test_roofline_overlapping_ops()
  local rep = perflab.run("roofline", { "tests/fixtures/kineto/overlapping_ops.json" })
  local by = {}
  for _, r in rep.tables.roofline:rows() do by[r.kernel] = r end
  lu.assertEquals(by["ampere_sgemm_128x64_nn"].flops, 2 * 2048 * 512 * 2048)
  lu.assertEquals(by["vectorized_elementwise_kernel"].flops, 64 * 1024)
  lu.assertAlmostEquals(by["vectorized_elementwise_kernel"].arithmetic_intensity, 1 / 12, 1e-12)
end

os.exit(lu.LuaUnit.run())

-- tests/lua/test_comm.lua -- the one communication rule set (perflab.comm)
-- and the recipes that use it.
--
-- 1. Names: every family the rule set claims (nccl incl. ncclDevKernel_*,
--    rccl, torch symmetric memory, custom all-reduce, Gloo, HCCL) is
--    communication, and ordinary compute kernels are not.
-- 2. Issue 22 class 15: a trace whose torch multimem_all_reduce_kernel ran
--    beside a GEMM with no nccl:* host op launching it.  step-breakdown must
--    count it as Communication (before: Kernel).  Step [0,100) us: gemm
--    [10,50), multimem_all_reduce_kernel [40,80): Kernel = 40 (the GEMM),
--    Communication = [50,80) = 30 (the overlap is Kernel, higher priority),
--    Other = 100 - 40 - 30 = 30.  launch-latency's overlap table: comm 40,
--    comp 40, overlap [40,50) = 10 -> 25 %.
local lu = require "luaunit"
local perflab = require "perflab"
local cjson = require "cjson"
local comm = require "perflab.comm"
local recipes = require "perflab.recipes"

TestCommRules = {}

function TestCommRules:test_families()
  local yes = {
    { "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "nccl", "all_reduce" },
    { "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "nccl", "all_gather" },
    { "void ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "nccl", "send_recv" },
    { "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", "nccl", "send_recv" },
    { "rcclKernel_ReduceScatter", "rccl", "reduce_scatter" },
    { "multimem_all_reduce_kernel", "torch-symm-mem", "all_reduce" },
    { "multimem_all_gather_kernel<16>", "torch-symm-mem", "all_gather" },
    { "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>", "torch-symm-mem", "all_reduce" },
    { "two_shot_all_reduce_kernel", "torch-symm-mem", "all_reduce" },
    { "reduce_scatter_kernel", "torch-symm-mem", "reduce_scatter" },
    { "void vllm::cross_device_reduce_1stage<float, 8>", "custom-all-reduce", "all_reduce" },
    { "gloo::allreduce", "gloo", "all_reduce" },
    { "hcclAllReduce_kernel", "hccl", "all_reduce" },
  }
  for _, c in ipairs(yes) do
    lu.assertTrue(comm.is_kernel(c[1]), c[1])
    lu.assertEquals(comm.library(c[1]), c[2], c[1])
    lu.assertEquals(comm.collective(c[1]), c[3], c[1])
  end
  for _, n in ipairs({ "volta_h884gemm_64x64_nn", "void at::native::reduce_kernel<512, 1>",
    "void at::native::vectorized_elementwise_kernel", "Memcpy DtoD (Device -> Device)",
    "hipMemcpyAsync", "sm90_xmma_gemm_bf16" }) do
    lu.assertFalse(comm.is_kernel(n), n)
    lu.assertNil(comm.library(n), n)
  end
  lu.assertTrue(comm.is_op("nccl:all_reduce"))
  lu.assertTrue(comm.is_op("gloo:broadcast"))
  lu.assertFalse(comm.is_op("aten::add_"))
end

function TestCommRules:test_editable()
  -- a user rule added at run time takes effect at once (no memo to reset)
  lu.assertFalse(comm.is_kernel("my_custom_allgather_v2"))
  table.insert(comm.kernel_rules, { "my_custom_", "mine" })
  lu.assertEquals(comm.library("my_custom_allgather_v2"), "mine")
  table.remove(comm.kernel_rules)
  lu.assertFalse(comm.is_kernel("my_custom_allgather_v2"))
end

local function multimem_trace()
  local evs = {
    { ph = "X", cat = "cpu_op", name = "ProfilerStep#1", pid = 1, tid = 1, ts = 0, dur = 100, args = {} },
    { ph = "X", cat = "kernel", name = "sm90_xmma_gemm_bf16", pid = 0, tid = 7, ts = 10, dur = 40,
      args = { device = 0, stream = 7, correlation = 1 } },
    { ph = "X", cat = "kernel", name = "multimem_all_reduce_kernel", pid = 0, tid = 20, ts = 40, dur = 40,
      args = { device = 0, stream = 20, correlation = 2 } },
  }
  return perflab.parse("multimem.json", cjson.encode({ traceEvents = evs }))
end

TestClass15 = {}

function TestClass15:test_step_breakdown_counts_multimem_as_communication()
  local rep = recipes.run("step-breakdown", { multimem_trace() }, {})
  local r = rep.tables.steps:row(1)
  lu.assertEquals(r.total_ns, 100000)
  lu.assertEquals(r.kernel_ns, 40000)
  lu.assertEquals(r.communication_ns, 30000)
  lu.assertEquals(r.other_ns, 30000)
end

function TestClass15:test_launch_latency_overlap()
  local rep = recipes.run("launch-latency", { multimem_trace() }, {})
  local t = rep.tables.overlap
  lu.assertNotNil(t)
  local r = t:row(1)
  lu.assertEquals(r.comm_ns, 40000)
  lu.assertEquals(r.comp_ns, 40000)
  lu.assertEquals(r.overlap_ns, 10000)
  lu.assertAlmostEquals(r.overlap_pct, 25, 1e-9)
end

os.exit(lu.LuaUnit.run())

--- perflab.comm: which kernels and host ops are collective communication.
-- The one rule set every recipe uses (step-breakdown's Communication
-- category, launch-latency's overlap, distributed, stragglers).  Edit the
-- lists below (or copy this file to a directory on PERFLAB_LUA_DIR) to add a
-- library; no rebuild is needed.
--
--   comm.is_kernel(name)   -> true when a device kernel is communication
--   comm.library(name)     -> "nccl", "rccl", "torch-symm-mem", "gloo",
--                             "hccl", ... or nil (first matching rule)
--   comm.collective(name)  -> "all_reduce", "all_gather", "reduce_scatter",
--                             "broadcast", "reduce", "send_recv",
--                             "all_to_all" or nil (kernel or op name)
--   comm.is_op(name)       -> true for a host op that is a collective call
--                             (nccl:all_reduce, gloo:broadcast, ...)
--
-- Kernel rules are Lua patterns matched against the lower-cased name, so
-- "void ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)" matches "nccl".
-- Sources: HTA's COMM class `^nccl|^hccl|ncclKernel` (hta/common/types.py),
-- widened to today's names: ncclDevKernel_* (NCCL >= 2.19), RCCL's
-- kernels, torch symmetric-memory kernels (multimem_all_reduce_kernel,
-- one_shot_all_reduce_kernel, two_shot_all_reduce_kernel,
-- cross_device_reduce_1stage from vLLM/sglang custom all-reduce), Gloo and
-- Huawei HCCL.  HTA's `^hip` is left out on purpose: it also matches
-- hipMemcpy and every HIP runtime name.
local M = {}

--- Kernel rules, first match wins: { pattern, library }.
M.kernel_rules = {
  { "nccl", "nccl" },                 -- ncclKernel_*, ncclDevKernel_*, ncclSendRecv
  { "rccl", "rccl" },
  { "^hccl", "hccl" },
  { "gloo", "gloo" },
  { "multimem_", "torch-symm-mem" },
  { "cross_device_reduce", "custom-all-reduce" },
  { "all_reduce", "torch-symm-mem" },
  { "all_gather", "torch-symm-mem" },
  { "reduce_scatter", "torch-symm-mem" },
}

--- Host ops that are collective calls (the TensorBoard plugin's
-- NcclOpNameSet and GlooOpNameSet, event_parser.py).  Kernels launched by
-- such an op (same external id) are communication whatever their name.
M.op_names = {
  ["nccl:broadcast"] = true, ["nccl:reduce"] = true, ["nccl:all_reduce"] = true,
  ["nccl:all_gather"] = true, ["nccl:reduce_scatter"] = true,
  ["gloo:broadcast"] = true, ["gloo:reduce"] = true, ["gloo:all_reduce"] = true,
  ["gloo:all_gather"] = true, ["gloo:reduce_scatter"] = true,
}

--- Collective kinds: { pattern on the lower-cased name, kind }, first match.
M.collective_rules = {
  { "reduce_?scatter", "reduce_scatter" }, { "reducescatter", "reduce_scatter" },
  { "all_?reduce", "all_reduce" }, { "allreduce", "all_reduce" },
  { "all_?gather", "all_gather" }, { "allgather", "all_gather" },
  { "all_?to_?all", "all_to_all" }, { "alltoall", "all_to_all" },
  { "sendrecv", "send_recv" }, { "send_recv", "send_recv" }, { "sendrecv", "send_recv" },
  { "broadcast", "broadcast" }, { "bcast", "broadcast" },
  { "cross_device_reduce", "all_reduce" },
  { "reduce", "reduce" },
}

-- memo tables: a trace repeats a few hundred names millions of times
local lib_memo, coll_memo = {}, {}

local function first_rule(rules, name)
  local n = name:lower()
  for _, r in ipairs(rules) do
    if n:find(r[1]) then return r[2] end
  end
  return false
end

function M.library(name)
  if name == nil then return nil end
  local v = lib_memo[name]
  if v == nil then v = first_rule(M.kernel_rules, name); lib_memo[name] = v end
  return v or nil
end

function M.is_kernel(name) return M.library(name) ~= nil end

function M.is_op(name) return name ~= nil and M.op_names[name] == true end

function M.collective(name)
  if name == nil then return nil end
  local v = coll_memo[name]
  if v == nil then v = first_rule(M.collective_rules, name); coll_memo[name] = v end
  return v or nil
end

--- Forget the memo tables (after editing the rules at run time).
function M.reset()
  lib_memo, coll_memo = {}, {}
end

return M

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

local function first_rule(rules, name)
  local n = name:lower()
  for _, r in ipairs(rules) do
    if n:find(r[1]) then return r[2] end
  end
  return nil
end

-- Callers classify a name column once per distinct value (Column:map), so
-- the rules are tried a few hundred times per trace, not once per row.
function M.library(name)
  if name == nil then return nil end
  return first_rule(M.kernel_rules, name)
end

function M.is_kernel(name) return M.library(name) ~= nil end

function M.is_op(name) return name ~= nil and M.op_names[name] == true end

function M.collective(name)
  if name == nil then return nil end
  return first_rule(M.collective_rules, name)
end

return M

--- perflab.roles: the roles of a recipe's inputs and the tables each role
-- needs.  Kernel-level reports (Nsight Compute) and timelines (everything
-- else), a recipe's `needs` checked against an input's tables, and the
-- export that gives a missing table.  Below both the recipe runner
-- (perflab.recipes) and kernel weighting (perflab.weighting), which share
-- it, so neither calls the other.
local errors = require "perflab.errors"

local M = {}

local NCU = { ["ncu-text"] = true, ["ncu-csv"] = true }

--- split(inputs) -> kernel-level reports (ncu), timelines (the rest)
function M.split(inputs)
  local reports, timelines = {}, {}
  for _, p in ipairs(inputs) do
    if NCU[p.format] then reports[#reports + 1] = p else timelines[#timelines + 1] = p end
  end
  return reports, timelines
end

-- "kernels.start_ns" -> "kernels", "start_ns"; "kernels" -> "kernels", nil
function M.need_parts(alt)
  local t, c = alt:match("^([^.]+)%.(.+)$")
  if t then return t, c end
  return alt, nil
end

-- a need as the user reads it: "kernels with start_ns or kernel_summary"
function M.need_text(need)
  return (need:gsub("%.", " with "):gsub("|", " or "))
end

-- Which export of which profiler gives a table (the "needs" messages name
-- it, so the user knows what to run).  Keyed by table, then "table.column".
local EXPORTS = {
  kernels = "kernels come from an Nsight Compute report (`ncu --import R.ncu-rep --page details --csv`, "
    .. "or its text log), an Nsight Systems export (`nsys export --type sqlite`), a PyTorch profiler/Kineto "
    .. "trace (`prof.export_chrome_trace`), `nvprof --print-gpu-trace` or a rocprof kernel trace",
  ["kernels.start_ns"] = "kernels with start times come from a timeline: `nsys export --type sqlite R.nsys-rep`, "
    .. "a PyTorch profiler/Kineto trace, `nvprof --print-gpu-trace --csv`, `rocprof --hip-trace` or "
    .. "`rocprofv3 --kernel-trace`",
  kernel_summary = "a kernel summary comes from `nsys stats --report cuda_gpu_kern_sum`, `rocprof --stats` "
    .. "or nvprof's summary",
  events = "events come from a PyTorch profiler/Kineto trace (`prof.export_chrome_trace`)",
  steps = "steps come from a PyTorch profiler trace taken with a schedule (ProfilerStep#N ranges) or from "
    .. "NVTX ranges in `nsys export --type sqlite`",
  step_breakdown = "a step breakdown comes from the PyTorch TensorBoard profiler plugin's overview",
  runtime = "runtime calls come from a timeline with the CUDA/HIP API traced: `nsys export --type sqlite` "
    .. "(nsys profile --trace=cuda), a Kineto trace, `nvprof --print-api-trace` or `rocprof --hip-trace`",
  nvtx = "NVTX ranges come from `nsys export --type sqlite` of a run profiled with --trace=nvtx",
  metrics = "metrics come from an Nsight Compute report: `ncu --import R.ncu-rep --page details --csv` "
    .. "(or `--page raw --csv`)",
  ["metrics.invocations"] = "per-kernel metrics with invocations come from `nvprof --metrics NAME,...` "
    .. "(text, or with --csv)",
  rules = "rule results come from an Nsight Compute report's details page (text, or `--page details --csv`)",
  cpu_ops = "CPU ops come from a PyTorch profiler/Kineto trace",
  memcpy = "memory copies come from a timeline: `nsys export --type sqlite`, a Kineto trace or "
    .. "`nvprof --print-gpu-trace`",
}

--- export_hint(need) -> the exports that give a need ("kernels.start_ns|
--- kernel_summary"), one sentence each, or nil.
function M.export_hint(need)
  local out, seen = {}, {}
  for alt in need:gmatch("[^|]+") do
    local h = EXPORTS[alt] or EXPORTS[(alt:match("^([^.]+)"))]
    if h and not seen[h] then seen[h] = true; out[#out + 1] = h end
  end
  if #out == 0 then return nil end
  return table.concat(out, "; ")
end

local function with_hint(msg, need)
  local h = M.export_hint(need)
  return h and (msg .. "; " .. h) or msg
end

--- Checks that each of `inputs` has the tables of `needs` (a list as in a
--- recipe's needs); `role` names them in the error ("timeline ").
function M.check_tables(r, inputs, needs, role)
  role = role or ""
  for _, p in ipairs(inputs) do
    for _, need in ipairs(needs) do
      local ok, lacking = false, nil
      for alt in need:gmatch("[^|]+") do
        local t, c = M.need_parts(alt)
        local tb = p.tables[t]
        if tb and (c == nil or tb:has(c)) then ok = true
        elseif tb then lacking = lacking or { t, c, tb } end
      end
      if not ok and lacking then
        local t, c, tb = lacking[1], lacking[2], lacking[3]
        errors.fail(with_hint(string.format("recipe '%s' needs a table %s, and %s%s (%s) has %s without %s (columns: %s)",
          r.name, M.need_text(need), role, p.source, p.format, t, c, table.concat(tb:columns(), ", ")), need))
      elseif not ok and p.partial then
        errors.fail(with_hint(string.format("recipe '%s' needs a table %s, and %s%s (%s) has none of them (perflab parse %s lists its tables)",
          r.name, M.need_text(need), role, p.source, p.format, p.source), need))
      elseif not ok then
        errors.fail(with_hint(string.format("recipe '%s' needs a table %s, and %s%s (%s) has: %s", r.name,
          M.need_text(need), role, p.source, p.format, table.concat(p:table_names(), ", ")), need))
      end
    end
  end
end

return M

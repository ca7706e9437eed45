--- perflab.critical_path: the critical path of a step of a Kineto trace, as
-- HolisticTraceAnalysis's CriticalPathAnalysis defines it
-- (docs/critical-path.md).  The graph is built and swept in C
-- (perflab.critpath, src/core/critpath.c); what decides it -- which events
-- are operators, launches, blocking calls, syncs -- is the data below, which
-- a user may edit.  The rules are applied in C (perflab.critpath.run reads
-- them, once per distinct name and category), never by a Lua loop per event.
--
--   M.analyze(profile, opts) -> result | nil, reason
--     opts: annotation ("" = whole trace; default "auto": ProfilerStep when
--     the trace has steps, else the whole trace), instance (0-based),
--     instance_last, round ("auto" | "on" | "off"), zero_weight_launch,
--     allow_missing_sync
--   result: length_ns, nodes, edges, window_lo_ns, window_hi_ns, rounded,
--     events (the events table the graph was built from, with ts_ns/dur_ns
--     as used), path (one row per path node: event, is_start, ts_ns and the
--     edge leaving it: edge_type, edge_weight_ns, edge_event), critical
--     (a boolean column over events: on the path), bound_by {name -> ns}
local T = require "perflab.table"
local comm = require "perflab.comm"

local M = {}

--- The rules as data.
M.rules = {
  -- event categories (Kineto's cat): operators and runtime calls get graph nodes
  categories = { cpu_op = "cpu_op", cuda_runtime = "runtime", cuda_driver = "runtime", cuda_sync = "sync" },
  -- launch calls: the queue of their stream grows by one (HTA's list, plus the
  -- Ex variants, HIP's and graph launches; any call whose correlation several
  -- GPU events share counts as a graph launch whatever its name)
  launch_calls = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
    "cudaMemcpyAsync", "cudaMemsetAsync", "cudaLaunchCooperativeKernel",
    "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel", "hipExtLaunchKernel", "hipExtModuleLaunchKernel", "hipModuleLaunchKernel",
    "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream",
  },
  launch_prefixes = { "cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch" },
  -- blocking calls: their own span weighs 0 (the wait shows as a sync edge)
  blocking_calls = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery", "cudaEventSynchronize",
    "cudaMemcpy",
  },
  event_record = { "cudaEventRecord" },
  wait_event_call = { "cudaStreamWaitEvent" },
  -- cuda_sync event names (PyTorch >= 2.1 with CUDA sync events)
  sync_events = { ["Context Sync"] = "context_sync", ["Stream Sync"] = "stream_sync",
                  ["Event Sync"] = "event_sync", ["Stream Wait Event"] = "stream_wait" },
}

-- HTA's bound_by per edge type
M.edge_bound = {
  critical_path_kernel_kernel_delay = "gpu_kernel_kernel_overhead",
  critical_path_kernel_launch_delay = "gpu_kernel_launch_overhead",
}
M.categories = { "cpu_bound", "gpu_compute_bound", "gpu_communication_bound",
                 "gpu_kernel_launch_overhead", "gpu_kernel_kernel_overhead" }

local function set(l) local s = {} for _, v in ipairs(l) do s[v] = true end return s end

--- The flags of one event name (perflab.critpath.codes), annotation: the
-- window's annotation text (matched as a plain substring, as HTA does) or nil.
function M.name_flags(name, annotation)
  local C = require("perflab.critpath").codes
  local r = M.rules
  M._sets = M._sets or { launch = set(r.launch_calls), blocking = set(r.blocking_calls),
                         record = set(r.event_record), wait = set(r.wait_event_call) }
  local S = M._sets
  local f = 0
  if S.launch[name] then f = f | C.launch end
  for _, p in ipairs(r.launch_prefixes) do if name:sub(1, #p) == p then f = f | C.launch end end
  if S.blocking[name] then f = f | C.blocking end
  if S.record[name] then f = f | C.event_record end
  if S.wait[name] then f = f | C.wait_event_call end
  local sk = r.sync_events[name]
  if sk then f = f | C[sk] end
  if annotation and annotation ~= "" and name:find(annotation, 1, true) then f = f | C.annotation end
  return f
end

local function text(t, c)
  c = t:col(c)
  if c:type() == "string" then return c end
  return t:const(nil, "string")
end

--- The figure's spans (perflab.critpath.spans, in C): t's rows grouped by
-- the `by` columns and merged in start order where the next start is at
-- most `gap` ns past the span's end -> a table (row: the span's first row,
-- start, stop, events: rows merged).
function M.spans(t, opts) return require("perflab.critpath").spans(t, opts) end

--- What the trace lacks for a critical path, or nil: checks on the events.
local function missing(ev, opts)
  local cat = text(ev, "cat")
  local nk = cat:isin { "kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset" }
  local nkernels = nk:count_true()
  if nkernels == 0 then
    return "no GPU work in the trace (no kernel, gpu_memcpy or gpu_memset events): a critical path needs the GPU side"
  end
  -- GPU events whose correlation a runtime call shares (masks, no copies)
  local corr = ev:col("correlation")
  local gk = nk & corr:present()
  local rt = cat:isin { "cuda_runtime", "cuda_driver" } & corr:present()
  local matched = gk:count_true() > 0 and rt:count_true() > 0 and corr:keep(gk):isin(corr:keep(rt)):count_true() or 0
  if matched == 0 then
    return string.format("no runtime↔kernel correlation: none of the %d GPU events shares a correlation id with a "
      .. "cuda_runtime/cuda_driver call, so launches cannot be tied to kernels", nkernels)
  end
  if not opts.allow_missing_sync and cat:eq("cuda_sync"):sum() == 0 then
    return "no sync events: the trace has no cuda_sync events (PyTorch before 2.1, or CUDA sync events not "
      .. "enabled: pytorch/pytorch#105187), so the GPU→CPU waits of synchronizing calls cannot be placed; "
      .. "--set allow_missing_sync=true builds the path without them (HTA does, with a warning)"
  end
  return nil
end

--- The events HTA's graph is built from (rows with a duration and a category
-- other than "Trace"), their codes, and the analysis.
-- A column of t's length and c's type, every value missing (no pass over c).
local function none(t, c) return t:const(nil, c:type()) end

-- An Nsight Systems export (SQLite): its kernel, copy, set and runtime rows
-- in the shape of a Kineto events table (no CPU operators; no sync records:
-- the reader does not take CUPTI's synchronization activity).
local function nsys_events(p)
  if not (p:has("kernels") and p:has("runtime") and p:table("kernels"):has("correlation")
          and p:table("kernels"):has("start_ns") and p:table("runtime"):has("correlation")) then
    return nil
  end
  local function const(t, v) return t:col("name"):present():map(function() return v end) end
  local parts = {}
  local function add(t, cat, gpu)
    if not (t and t:nrows() > 0 and t:has("start_ns") and t:has("duration_ns")) then return end
    local st = gpu and t:col("stream") or none(t, t:col("correlation"))
    local e = t:select("name"):with("cat", const(t, cat)):with("ph", const(t, "X"))
      :with("ts_ns", t:col("start_ns")):with("dur_ns", t:col("duration_ns"))
      :with("pid", T.sprintf("%d", gpu and t:col("device") or t:col("pid")))
      :with("tid", T.sprintf("%d", gpu and t:col("stream") or t:col("tid")))
      :with("correlation", t:col("correlation")):with("stream", st)
      :with("wait_on_stream", none(t, t:col("correlation")))
      :with("wait_on_record_corr", none(t, t:col("correlation")))
    parts[#parts + 1] = e
  end
  add(p:table("kernels"), "kernel", true)
  if p:has("memcpy") then add(p:table("memcpy"), "gpu_memcpy", true) end
  if p:has("memset") then add(p:table("memset"), "gpu_memset", true) end
  add(p:table("runtime"), "cuda_runtime", false)
  return T.concat(table.unpack(parts))
end

function M.analyze(p, opts)
  opts = opts or {}
  local CP = require "perflab.critpath"
  local ev0
  if p:has("events") and p:table("events"):has("stream") then
    ev0 = p:table("events")
  elseif p.format == "nsys-sqlite" then
    ev0 = nsys_events(p)
    if not ev0 then
      return nil, "this Nsight Systems export has no kernel and runtime rows with correlation ids (CUPTI activity "
        .. "tables CUPTI_ACTIVITY_KIND_KERNEL and CUPTI_ACTIVITY_KIND_RUNTIME)"
    end
    if not opts.allow_missing_sync then
      return nil, "no sync events: perflab reads an Nsight Systems export's kernels, copies and runtime calls "
        .. "(with correlation) but not its CUDA synchronization records, so the GPU→CPU waits of synchronizing calls "
        .. "cannot be placed; --set allow_missing_sync=true builds the path without them (and without CPU operators)"
    end
  else
    return nil, string.format("%s input has no timeline events with stream and correlation: a Kineto/Chrome trace "
      .. "from the PyTorch profiler, or an Nsight Systems SQLite export, is needed", p.format or "this")
  end
  local cat0 = text(ev0, "cat")
  local keep = ev0:col("dur_ns"):present() & ev0:col("ts_ns"):present() & cat0:present() & cat0:ne("Trace")
  -- the wait columns are in a trace's events only where some event records
  -- a wait (docs/format-columns.md): missing on every row otherwise
  local waits, cols = { "wait_on_stream", "wait_on_record_corr" },
    { "name", "cat", "ph", "ts_ns", "dur_ns", "pid", "tid", "correlation", "stream" }
  for _, w in ipairs(waits) do
    if ev0:has(w) then cols[#cols + 1] = w end
  end
  local ev = ev0:filter(keep, cols)
  for _, w in ipairs(waits) do
    if not ev:has(w) then ev = ev:with(w, none(ev, ev:col("correlation"))) end
  end
  local why = missing(ev, opts)
  if why then return nil, why end
  local name, cat = text(ev, "name"), text(ev, "cat")
  -- the window
  local annotation = opts.annotation or "auto"
  if annotation == "auto" then
    annotation = name:match("^ProfilerStep#"):sum() > 0 and "ProfilerStep" or ""
  end
  -- "auto": rounded where some time is not whole microseconds (in C)
  local round = opts.round or "auto"
  local rounded = round == "auto" and "auto" or (round == "on" or round == true)
  local inst = opts.instance or 0
  local r, err, ninst = CP.run {
    ts = ev:col("ts_ns"), dur = ev:col("dur_ns"),
    -- classified in C by the rules: flags per distinct name, category
    -- codes, dense process and (process, thread) ids
    names = name, rules = M.rules, annotation = annotation, cats = cat, categories = M.rules.categories,
    pids = ev:col("pid"), tids = ev:col("tid"),
    corr = ev:col("correlation"), stream = ev:col("stream"),
    wait_stream = ev:col("wait_on_stream"), wait_record = ev:col("wait_on_record_corr"),
    whole = annotation == "", instance_lo = inst, instance_hi = opts.instance_last or inst,
    round_us = rounded, zero_weight_launch = opts.zero_weight_launch and true or false,
    edge_bound = M.edge_bound, comm = comm.is_kernel,
  }
  if not r then
    if annotation ~= "" and ninst == 0 then
      return nil, string.format("no event named like '%s' in the trace (the step annotation); "
        .. "--set annotation= (empty) analyses the whole trace", annotation)
    end
    return nil, err
  end
  rounded = r.round_us
  r.events_raw = ev
  if r.times:has("ts_ns") then   -- rounded: the times as used
    ev = ev:with("ts_ns", r.times:col("ts_ns")):with("dur_ns", r.times:col("dur_ns"))
  end
  r.events, r.annotation, r.rounded = ev, annotation, rounded
  -- edge types and HTA's bound_by per path edge: the path's edge and
  -- bound_by columns and the time per class, from M.edge_bound and
  -- comm.is_kernel (asked once per distinct kernel name), in C
  r.bound_by, r.bound_ns = r.bound_ns, nil
  -- the critical events: a mask over events
  r.critical = r.times:col("critical")
  return r
end

return M

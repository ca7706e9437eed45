--- nvtx: NVTX ranges projected onto the GPU (Nsight Systems exports).
--
-- A kernel belongs to a range instance when the runtime call that launched
-- it (same pid and correlation id: correlation ids repeat across
-- processes) ran on the range's thread and started inside the range
-- (range start <= call start < range end).  Nested ranges each count their
-- own kernels, so a kernel counts in every range around its launch.
--
-- Per instance: gpu_start_ns = the earliest start of its kernels,
-- gpu_end_ns = the latest end, gpu_span_ns = end - start, gpu_busy_ns = the
-- length of the union of the kernels' intervals (concurrent kernels count
-- once); 0 and missing start/end when no kernel belongs to it.
-- Per range name: instances, CPU total/mean/min/max (the ranges' own
-- durations), GPU span total, GPU busy total, kernels, and busy_pct = GPU
-- busy total / CPU total x 100.  A name whose GPU busy time is a small part
-- of its CPU time (busy_pct below `busy_pct`) is host-bound: finding
-- nvtx.host_bound (the longest ranges first, at most `findings`).  Names
-- that launched no kernel at all are not flagged: their time may be spent
-- waiting for copies or other processes, which this projection does not see.
--
-- Tables: `nvtx` (per name, longest CPU total first) and, with
-- --set instances=true, `nvtx_instances` (per range instance, by start).
local perflab = require "perflab"
local units = require "perflab.units"
local I = require "perflab.intervals"
local T = perflab.table

local NAME_COLS = { "name", "instances", "cpu_total_ns", "cpu_mean_ns", "cpu_min_ns", "cpu_max_ns",
  "gpu_span_total_ns", "gpu_busy_total_ns", "kernels", "busy_pct" }
local INST_COLS = { "name", "pid", "tid", "depth", "start_ns", "end_ns", "cpu_ns", "kernels",
  "gpu_start_ns", "gpu_end_ns", "gpu_span_ns", "gpu_busy_ns" }

-- Kernels joined to their launch (pid, correlation), ordered by (pid, tid,
-- launch start): arrays and, per thread "pid:tid", its first and last index.
local function launches(p)
  local k = p:table("kernels"):select("pid", "correlation", "start_ns", "end_ns")
  local rt = p:table("runtime"):select("pid", "correlation", "tid", "start_ns")
  rt:rename("start_ns", "launch_ns")
  local j = k:join(rt, { on = { "pid", "correlation" } }):sort_by("pid", "tid", "launch_ns", "start_ns")
  local L = { n = j:nrows(), unmatched = k:nrows() - j:nrows() }
  L.ls, L.ks, L.ke = j:col("launch_ns"):to_lua(), j:col("start_ns"):to_lua(), j:col("end_ns"):to_lua()
  -- thread blocks from a group count (rows are sorted, so groups come in order)
  local g = j:group_by("pid", "tid"):agg { { "n", "count" } }
  local gp, gt, gn = g:col("pid"):to_lua(), g:col("tid"):to_lua(), g:col("n"):to_lua()
  L.block = {}
  local at = 1
  for i = 1, g:nrows() do
    L.block[tostring(gp[i]) .. ":" .. tostring(gt[i])] = { at, at + gn[i] - 1 }
    at = at + gn[i]
  end
  return L
end

-- first index in [lo, hi] with a[i] >= v (hi + 1 when none); a missing
-- value sorts last (the engine's order), so it counts as +infinity
local function lower_bound(a, lo, hi, v)
  hi = hi + 1
  while lo < hi do
    local m = (lo + hi) // 2
    local x = a[m]
    if x ~= nil and x < v then lo = m + 1 else hi = m end
  end
  return lo
end

return {
  name = "nvtx",
  summary = "NVTX ranges projected onto the GPU: per range, CPU time vs GPU span and busy time of the kernels launched inside",
  needs = { "nvtx", "kernels.start_ns", "runtime" },
  tables = { "nvtx", "kernels", "runtime" },
  options = {
    busy_pct = { type = "number", min = 0, default = 50,
                 help = "flag a range name whose GPU busy time is below this share of its CPU time (host-bound)" },
    min_cpu_ns = { type = "integer", min = 0, default = 0,
        help = "only flag range names with at least this CPU total (ns)" },
    findings = { type = "integer", min = 0, default = 10,
        help = "at most this many findings (longest CPU total first)" },
    top = { type = "integer", min = 0, default = 50, help = "rows of the per-name table (0 = all)" },
    instances = { type = "boolean", default = false, help = "also the per-instance table nvtx_instances" },
  },
  run = function(inputs, opts, report)
    for idx, p in ipairs(inputs) do
      local nv = p:table("nvtx")
      local L = launches(p)
      local nm, rs, re = nv:col("name"):to_lua(), nv:col("start_ns"):to_lua(), nv:col("end_ns"):to_lua()
      local rp, rtid = nv:col("pid"):to_lua(), nv:col("tid"):to_lua()
      local dep = nv:has("depth") and nv:col("depth"):to_lua() or {}
      local rows, open = {}, 0
      for i = 1, nv:nrows() do
        local s, e = rs[i], re[i]
        if s == nil or e == nil then open = open + 1; goto next end
        do
          local r = { name = nm[i] or "", pid = rp[i], tid = rtid[i], depth = dep[i], start_ns = s, end_ns = e,
                      cpu_ns = e - s, kernels = 0, gpu_span_ns = 0, gpu_busy_ns = 0 }
          local b = L.block[tostring(rp[i]) .. ":" .. tostring(rtid[i])]
          if b then
            local lo = lower_bound(L.ls, b[1], b[2], s)
            local hi = lower_bound(L.ls, lo, b[2], e) - 1
            if hi >= lo then
              local ks, ke, gs, ge, m = {}, {}, math.maxinteger, math.mininteger, 0
              for x = lo, hi do
                local a, z = L.ks[x], L.ke[x]
                if a and z then   -- a kernel row without times (a damaged export) counts nowhere
                  m = m + 1
                  ks[m], ke[m] = a, z
                  if a < gs then gs = a end
                  if z > ge then ge = z end
                end
              end
              if m > 0 then
                r.kernels, r.gpu_start_ns, r.gpu_end_ns = m, gs, ge
                r.gpu_span_ns = ge - gs
                r.gpu_busy_ns = I.from_arrays(ks, ke, m):length()
              end
            end
          end
          rows[#rows + 1] = r
        end
        ::next::
      end
      local inst = T.from_rows(rows, INST_COLS, "nvtx_instances")
      if inst:nrows() > 0 then inst = inst:sort_by("start_ns", "pid", "tid", "depth") end
      local by = T.from_rows({}, NAME_COLS, "nvtx")
      if inst:nrows() > 0 then
        by = inst:group_by("name"):agg {
          { "instances", "count" }, { "cpu_total_ns", "sum", "cpu_ns" }, { "cpu_mean_ns", "mean", "cpu_ns" },
          { "cpu_min_ns", "min", "cpu_ns" }, { "cpu_max_ns", "max", "cpu_ns" },
          { "gpu_span_total_ns", "sum", "gpu_span_ns" }, { "gpu_busy_total_ns", "sum", "gpu_busy_ns" },
          { "kernels", "sum", "kernels" } }
        by:add_column("busy_pct", function(r)
          return r.cpu_total_ns > 0 and 100 * r.gpu_busy_total_ns / r.cpu_total_ns or nil end, "number")
        by = by:sort_by("-cpu_total_ns", "name")
      end
      -- findings: host-bound names, longest CPU total first
      local shown = 0
      for _, r in by:rows() do
        if shown >= opts.findings then break end
        if r.kernels > 0 and r.cpu_total_ns > 0 and r.cpu_total_ns >= opts.min_cpu_ns
            and r.busy_pct < opts.busy_pct then
          shown = shown + 1
          report:finding {
            severity = r.busy_pct < opts.busy_pct / 2 and "warn" or "info",
            rule = "nvtx.host_bound",
            subject = r.name,
            message = string.format("NVTX range '%s' (%d instance%s, %s on the CPU): the GPU was busy %s with the "
              .. "%d kernels launched inside, %.1f %% of the range's time: host-bound; look at what the host does "
              .. "inside it (launch overhead, synchronisation, data preparation)", units.label(r.name, 60),
              r.instances, r.instances == 1 and "" or "s", units.ns(r.cpu_total_ns), units.ns(r.gpu_busy_total_ns),
              r.kernels, r.busy_pct),
            evidence = { busy_pct = r.busy_pct, threshold_pct = opts.busy_pct, cpu_total_ns = r.cpu_total_ns,
                         gpu_busy_total_ns = r.gpu_busy_total_ns, gpu_span_total_ns = r.gpu_span_total_ns,
                         instances = r.instances, kernels = r.kernels, source = p.source,
                         formula = "busy_pct = |union of the kernels launched inside each instance| summed / CPU time x 100" },
          }
        end
      end
      local suffix = #inputs > 1 and string.format(" (%s)", p.source) or ""
      local shown_by = opts.top > 0 and by:head(opts.top) or by
      report:table(#inputs > 1 and ("nvtx_" .. idx) or "nvtx", shown_by,
        { title = string.format("NVTX ranges projected onto the GPU: %d range names, %d instances%s",
                                by:nrows(), inst:nrows(), suffix) })
      if opts.instances then
        report:table(#inputs > 1 and ("nvtx_instances_" .. idx) or "nvtx_instances", inst,
          { title = "per range instance (kernels whose launch call starts inside it, on its thread)" })
      end
      if L.unmatched > 0 then
        report:note(string.format("%s: %d kernels have no runtime call with the same (pid, correlation) and belong to no range.",
          p.source, L.unmatched))
      end
      if open > 0 then report:note(string.format("%s: %d ranges never closed are left out.", p.source, open)) end
    end
    report:note("A kernel belongs to a range when its launch call runs on the range's thread and starts inside it; "
      .. "gpu_busy = union of those kernels' intervals; busy_pct = GPU busy / CPU time.")
  end,
}

--- roofline: where each kernel sits against the GPU's compute ceilings and
-- memory-bandwidth roof, with an SVG chart.
--
-- Per kernel (launches grouped by name), in order of what the input has:
--   1. FLOPs and bytes (columns flops and dram_bytes or bytes; from ncu
--      metrics, Kineto `flops` args, or a user CSV joined in beforehand):
--      arithmetic intensity = flops / bytes, achieved FLOP/s = flops / time,
--      attainable = min(peak, AI x bandwidth) for the precision in use,
--      efficiency = achieved / attainable.  A point above the roof is a
--      units or counting error and is reported as such.
--   2. Speed-of-Light percentages (compute_throughput_pct,
--      memory_throughput_pct from ncu).
--   3. Tensor and DRAM utilisation (tensor_util, dram_util as fractions 0-1,
--      kernel tables such as seed 000), time-weighted per kernel.
-- The bound (compute-bound, memory-bound, latency-bound, balanced) follows
-- ncu's SOLBottleneck thresholds 80 / 60 / 10 on compute % and memory %.
-- Peaks come from perflab.gpus: the input's device name, else --gpu.
--
-- Table `roofline` (part of the API): kernel, precision, flops, bytes,
-- arithmetic_intensity, achieved_flops_per_s, achieved_bytes_per_s,
-- attainable_flops_per_s, efficiency_pct, compute_pct, memory_pct, bound,
-- time_share_pct.  Figure `roofline.svg` when peaks and at least one
-- kernel's FLOPs and bytes are known.
local perflab = require "perflab"
local gpu = require "perflab.gpu"
local gpus = require "perflab.gpus"
local T = perflab.table

local COLS = { "kernel", "precision", "flops", "bytes", "arithmetic_intensity", "achieved_flops_per_s",
  "achieved_bytes_per_s", "attainable_flops_per_s", "efficiency_pct", "compute_pct", "memory_pct",
  "bound", "time_share_pct" }

-- kernel-name patterns -> precision (first match wins); editable data
local PRECISION_PATTERNS = {
  { "fp8", "fp8" }, { "e4m3", "fp8" }, { "e5m2", "fp8" },
  { "int8", "int8" }, { "i8i8", "int8" }, { "imma", "int8" },
  { "tf32", "tf32" }, { "bf16", "bf16" },
  { "fp16", "fp16" }, { "half", "fp16" }, { "h884", "fp16" }, { "h1688", "fp16" }, { "h16816", "fp16" },
  { "hmma", "fp16" }, { "f16", "fp16" },
  { "fp64", "fp64" }, { "double", "fp64" }, { "dgemm", "fp64" }, { "dmma", "fp64_tc" },
}

local function guess_precision(name)
  local n = (name or ""):lower()
  for _, pp in ipairs(PRECISION_PATTERNS) do
    if n:find(pp[1], 1, true) then return pp[2] end
  end
  return "fp32"
end

local function r2(x) return x and math.floor(x * 100 + 0.5) / 100 end

return {
  name = "roofline",
  summary = "roofline placement per kernel (AI, attainable, efficiency, bound) with an SVG chart",
  needs = { "kernels|kernel_summary" },
  options = {
    gpu = { type = "string", default = "auto", help = "GPU model when the input does not say (perflab gpus lists them)" },
    precision = { type = "string", default = "auto", help = "precision of the ceiling to use (fp64, fp32, tf32, fp16, bf16, fp8, int8; auto = from the kernel name)" },
  },
  run = function(inputs, opts, report)
    for idx, p in ipairs(inputs) do
      local ctx, err = gpu.context(p, opts)
      if not ctx then perflab.fail(err) end
      local model = ctx.model
      local peaks = model and model.peaks or {}
      local bw = model and model.dram_bw_bytes_per_s
      local k = p.tables.kernels or p:table("kernel_summary")
      local is_summary = not p.tables.kernels
      local bykernel, order = {}, {}
      local total_ns = 0
      for i, r in k:rows() do
        local name = r.short_name or r.name or ("launch " .. i)
        local g = bykernel[name]
        if not g then
          g = { kernel = name, ns = 0, flops = 0, bytes = 0, has_flops = false, has_bytes = false,
                c_w = 0, m_w = 0, sol_ns = 0, u_t = 0, u_d = 0, util_ns = 0, precision = r.precision }
          bykernel[name] = g; order[#order + 1] = name
        end
        local ns = is_summary and r.total_ns or r.duration_ns or 0
        g.ns = g.ns + ns
        total_ns = total_ns + ns
        if r.flops then g.flops = g.flops + r.flops; g.has_flops = true end
        local b = r.dram_bytes or r.bytes
        if b then g.bytes = g.bytes + b; g.has_bytes = true end
        if r.compute_throughput_pct and r.memory_throughput_pct then
          local w = ns > 0 and ns or 1
          g.c_w = g.c_w + r.compute_throughput_pct * w
          g.m_w = g.m_w + r.memory_throughput_pct * w
          g.sol_ns = g.sol_ns + w
        end
        if r.tensor_util and r.dram_util then
          local w = ns > 0 and ns or 1
          g.u_t = g.u_t + r.tensor_util * w
          g.u_d = g.u_d + r.dram_util * w
          g.util_ns = g.util_ns + w
        end
      end
      local rows, points = {}, {}
      local share_by_bound, above = {}, {}
      local basis = {}
      local missing_peak = {}
      for _, name in ipairs(order) do
        local g = bykernel[name]
        local prec = (opts.precision ~= "auto" and opts.precision) or g.precision or guess_precision(name)
        local peak = peaks[prec]
        local row = { kernel = name, precision = prec,
          time_share_pct = total_ns > 0 and r2(100 * g.ns / total_ns) or nil }
        local cpct, mpct
        if g.has_flops and g.has_bytes and g.bytes > 0 then
          basis["FLOPs and bytes"] = true
          row.flops, row.bytes = g.flops, g.bytes
          row.arithmetic_intensity = g.flops / g.bytes
          if g.ns > 0 then
            row.achieved_flops_per_s = g.flops / (g.ns * 1e-9)
            row.achieved_bytes_per_s = g.bytes / (g.ns * 1e-9)
          end
          if peak and bw and row.achieved_flops_per_s then
            row.attainable_flops_per_s = gpu.attainable(peak, bw, row.arithmetic_intensity)
            row.efficiency_pct = 100 * row.achieved_flops_per_s / row.attainable_flops_per_s
            cpct = 100 * row.achieved_flops_per_s / peak
            mpct = 100 * row.achieved_bytes_per_s / bw
            if row.efficiency_pct > 100.5 then above[#above + 1] = row end
            points[#points + 1] = { label = name, ai = row.arithmetic_intensity, flops = row.achieved_flops_per_s,
              share_pct = row.time_share_pct, above_roof = row.efficiency_pct > 100.5,
              title = string.format("%s: %.3g FLOP/byte, %s (%s of %s attainable), %.1f %% of time",
                name, row.arithmetic_intensity, gpu.si(row.achieved_flops_per_s, "FLOP/s"),
                gpu.fmt_pct(row.efficiency_pct) .. " %", gpu.si(row.attainable_flops_per_s, "FLOP/s"),
                row.time_share_pct or 0) }
          elseif not peak then
            missing_peak[prec] = true
          end
        end
        if not cpct and g.sol_ns > 0 then
          basis["Speed-of-Light percentages"] = true
          cpct, mpct = g.c_w / g.sol_ns, g.m_w / g.sol_ns
        elseif not cpct and g.util_ns > 0 then
          basis["tensor and DRAM utilisation"] = true
          cpct, mpct = 100 * g.u_t / g.util_ns, 100 * g.u_d / g.util_ns
        end
        if cpct then
          row.compute_pct, row.memory_pct = r2(cpct), r2(mpct)
          local _, bound = gpu.sol_class(cpct, mpct)
          row.bound = bound
          share_by_bound[bound] = (share_by_bound[bound] or 0) + (row.time_share_pct or 0)
        end
        rows[#rows + 1] = row
      end
      table.sort(rows, function(a, b) return (a.time_share_pct or 0) > (b.time_share_pct or 0) end)
      local tname = #inputs > 1 and ("roofline_" .. idx) or "roofline"
      local bl = {}
      for b in pairs(basis) do bl[#bl + 1] = b end
      table.sort(bl)
      report:table(tname, T.from_rows(rows, COLS), {
        title = string.format("%d kernels (%s); placement from %s; GPU: %s", #rows, p.source,
          #bl > 0 and table.concat(bl, ", ") or "nothing (no FLOPs, SOL or utilisation columns)",
          model and (model.name or model.id) or "unknown (pass --gpu for peaks)"),
        note = "bound: ncu SOLBottleneck thresholds (either >= 80 % high, both < 60 % latency, difference >= 10 points compute/memory, else balanced)." })
      -- summary of time by bound
      local parts = {}
      for _, b in ipairs({ "compute-bound", "memory-bound", "latency-bound", "balanced" }) do
        if share_by_bound[b] then parts[#parts + 1] = string.format("%s %% %s", gpu.fmt_pct(share_by_bound[b]), b) end
      end
      if #parts > 0 then
        local worst, wv = nil, -1
        for b, v in pairs(share_by_bound) do if v > wv then worst, wv = b, v end end
        report:finding { severity = worst == "latency-bound" and "warn" or "info", rule = "roofline.time_by_bound",
          message = string.format("kernel time by bound (time-weighted): %s", table.concat(parts, ", ")),
          evidence = { compute_bound_pct = r2(share_by_bound["compute-bound"]),
            memory_bound_pct = r2(share_by_bound["memory-bound"]),
            latency_bound_pct = r2(share_by_bound["latency-bound"]),
            balanced_pct = r2(share_by_bound["balanced"]), thresholds = "80 / 60 / 10", basis = bl } }
      end
      for _, row in ipairs(above) do
        report:finding { severity = "error", rule = "roofline.above_roof", subject = row.kernel,
          message = string.format("%s runs at %s, %s %% of the attainable %s: above the roof means mismatched units or FLOP/byte counting, not a win",
            row.kernel, gpu.si(row.achieved_flops_per_s, "FLOP/s"), gpu.fmt_pct(row.efficiency_pct),
            gpu.si(row.attainable_flops_per_s, "FLOP/s")),
          evidence = { flops = row.flops, bytes = row.bytes, efficiency_pct = row.efficiency_pct } }
      end
      for prec in pairs(missing_peak) do
        report:note(string.format("no %s peak for %s in perflab.gpus; add it in ~/.config/perflab/gpus.lua",
          prec, model and model.id or "this GPU"))
      end
      if #points > 0 and model and bw then
        local ceilings = {}
        for _, pr in ipairs(gpus.precisions) do
          if peaks[pr.id] then ceilings[#ceilings + 1] = { label = pr.label, flops = peaks[pr.id] } end
        end
        local svg = gpu.roofline_svg { title = string.format("Roofline: %s (%s)", model.name or model.id, p.source),
          ceilings = ceilings, bandwidth = bw, bandwidth_label = "DRAM", points = points }
        report:figure(#inputs > 1 and ("roofline_" .. idx .. ".svg") or "roofline.svg", svg,
          { title = "roofline chart (log-log)" })
      elseif #points == 0 and not model then
        report:note("no GPU model known: pass --gpu NAME for peaks and the chart (" .. gpu.choices() .. ")")
      end
    end
  end,
}

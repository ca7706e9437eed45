--- ops: FLOPs, bytes and precision per operator from the arguments a
-- PyTorch trace records (record_shapes=True), achieved TFLOP/s and TB/s,
-- the roofline with one point per op group, MFU per step and the GPU
-- timeline summary.  Formulas and denominators: docs/ops.md.
--
-- Tables (part of the API):
--   ops           one row per op group (name, input dims, dtype): family,
--                 calls, precision, tensor_core, gflops, mib, intensity,
--                 kernel_us_mean, kernel_us_sum, tflops_mean, tflops_median,
--                 tflops_min, tflops_max, tbps_mean, peak_tflops, bound,
--                 roofline_eff_pct, input_dims, input_types
--   families      per family: groups, calls, gflops (total), kernel_ms,
--                 tflops (total FLOPs / total kernel time)
--   mfu           per profiler step and all steps: wall_ms, busy_ms,
--                 gflops, precision, peak_tflops, tflops_wall,
--                 mfu_wall_pct, tflops_busy, mfu_busy_pct, mfu_user_pct
--   roofline_time compute- and memory-bound kernel time and roofline time
--   gpu_timeline  computation, exposed comm, exposed memcpy, busy, idle,
--                 total (TraceLens's definitions)
-- Figure ops_roofline.svg: intensity against achieved FLOP/s per op group
-- under the device's roofs.
local perflab = require "perflab"
local O = require "perflab.ops"
local device = require "perflab.device"
local chart = require "perflab.chart"
local gpus = require "perflab.gpus"
local T = perflab.table

local OPS_COLS = { "family", "name", "calls", "precision", "tensor_core", "gflops", "mib", "intensity",
  "kernel_us_mean", "kernel_us_sum", "tflops_mean", "tflops_median", "tflops_min", "tflops_max", "tbps_mean",
  "peak_tflops", "bound", "roofline_eff_pct", "input_dims", "input_types" }

local function r3(x) return x and string.format("%.3g", x) or "?" end

return {
  name = "ops",
  summary = "per PyTorch operator: FLOPs, bytes, precision, achieved TFLOP/s, roofline points, MFU per step",
  needs = { "cpu_ops" },
  tables = { "cpu_ops", "kernels", "runtime", "memcpy", "memset", "steps", "devices" },
  options = {
    gpu = { type = "string", default = "auto",
        help = "GPU model when the input does not say (perflab gpus lists them)" },
    peak_tflops = { type = "number", default = 0,
        help = "peak TFLOP/s to use instead of the table's (all precisions)" },
    peak_tbps = { type = "number", default = 0, help = "peak memory bandwidth TB/s to use instead of the table's" },
    window = { type = "string", default = "",
        help = "MFU over the user annotations (record_function) of this name instead of the profiler steps" },
    model_flops = { type = "number", default = 0,
        help = "model FLOPs per step as your framework counts them (6·N·tokens) for the third MFU" },
    clock = { type = "string", default = "ns", choices = { "ns", "trace_us" },
        help = "ns (exact) or trace_us (add the trace's µs floats, as TraceLens)" },
    convention = { type = "string", default = "perflab", choices = { "perflab", "tracelens" },
        help = "perflab (from the definitions) or tracelens (TraceLens's counting: a reduction's output is one element)" },
  },
  run = function(inputs, opts, report)
    for idx, p in ipairs(inputs) do
      local sfx = #inputs > 1 and ("_" .. idx) or ""
      local groups, notes, o = O.groups(p, { clock = opts.clock, convention = opts.convention })
      for _, n in ipairs(notes or {}) do report:note(n) end
      if not groups then
        report:finding { severity = "info", rule = "ops.no_shapes", subject = p.source or "input",
          message = notes[1], evidence = { source = p.source } }
        goto continue
      end
      do
        local ctx, peak, bw, bw_src = O.peaks(p, opts)
        if ctx and ctx.mixed and not ctx.model then
          report:note(string.format("the kernels ran on %d GPU models (%s): no single peak, so roofline time and the TF32 "
            .. "advice are left out (--gpu NAME or --set peak_tflops=N picks one)", #ctx.mixed,
                table.concat(ctx.mixed, ", ")))
        end
        groups = O.roofline_time(groups, peak, bw)
        -- tensor cores: from the op's dtype and the device (per group)
        local tc = {}
        local fam, prec = groups:col("family"):to_lua(), groups:col("precision"):to_lua()
        for i = 1, groups:nrows() do tc[i] = (O.tensor_core(fam[i], prec[i], ctx)) end
        groups = groups:add_column("tensor_core", setmetatable(tc, { __len = function() return groups:nrows() end }),
            "string")
        local shown = groups:take(groups:order("family", "-kernel_us_sum"))
        report:table("ops" .. sfx, shown:select(table.unpack(OPS_COLS)),
          { title = "operator groups (name, dims, dtype): FLOPs and bytes per call, achieved TFLOP/s over calls" })
        -- per family, over the outermost modelled ops (aten::linear over
        -- aten::addmm counts once)
        local leaf = o:filter(O.outer_mask(o))
        local f = leaf:group_by("family"):agg { { "calls", "count" }, { "flop", "sum", "flops" },
          { "kernel_us", "sum", "kernel_us" } }
        f = f:with("gflop", f:col("flop") / 1e9):with("kernel_ms", f:col("kernel_us") / 1000)
        f = f:with("tflops", f:col("flop") / f:col("kernel_us") * 1e-6):drop("kernel_us"):drop("flop")
        report:table("families" .. sfx, f:take(f:order("-kernel_ms")),
          { title = "per family, outermost modelled ops (an op inside another modelled op counts once, with its parent)" })
        -- roofline time
        local rt = groups:filter(groups:col("bound"):present() & groups:col("outer_calls"):gt(0))
        rt = rt:with("roof_tot", rt:col("roofline_us") * rt:col("calls"))
        if rt:nrows() > 0 then
          local g = rt:group_by("bound"):agg { { "groups", "count" }, { "kernel_us", "sum", "kernel_us_sum" },
            { "roofline_us", "sum", "roof_tot" } }
          local tot = rt:col("kernel_us_sum"):sum()
          g = g:with("kernel_pct", g:col("kernel_us") / tot * 100):with("roofline_eff_pct",
              g:col("roofline_us") / g:col("kernel_us") * 100)
          report:table("roofline_time" .. sfx, g,
              { title = "kernel time of the outermost modelled ops by bound at peak (roofline time = max(FLOPs/peak, bytes/bandwidth) per call, x calls)" })
        end
        -- FP32 matrix ops dominating: TF32 / AMP advice from the recorded dtypes
        O.precision_advice(p, groups, ctx, report)
        -- MFU
        local mopts = { model_flops = opts.model_flops }
        if opts.window ~= "" then
          local w, why = O.annotation_windows(p, opts.window)
          if w then mopts.windows, mopts.window_label = w, "'" .. opts.window .. "'"
          else report:note("MFU window: " .. why .. "; MFU over the profiler steps (or the whole trace) instead") end
        end
        local mfu, psrc, outside = O.mfu(p, o, peak, mopts)
        if mfu then
          report:table("mfu" .. sfx, mfu, { title = "MFU: model FLOPs / time / peak (" .. (psrc or "no peak")
              .. "); " ..
            "wall = the window's wall time (column window), busy = union of the window's kernel time, user = --set model_flops over wall" })
          local all = mfu:row(-1)
          if (all.mfu_busy_pct or 0) > 100 or (all.mfu_wall_pct or 0) > 100 then
            report:finding { severity = "warn", rule = "ops.mfu_above_peak", subject = p.source or "input",
              message = string.format("MFU above 100 %% (%.0f %% over busy time): the trace's kernel times and its shapes "
                .. "disagree, or the peak is wrong (--set peak_tflops=); the MFU figures are not meaningful",
                    all.mfu_busy_pct or 0),
              evidence = { mfu_busy_pct = all.mfu_busy_pct, mfu_wall_pct = all.mfu_wall_pct, peak_source = psrc } }
          end
          if all.mfu_wall_pct then
            local over = mfu:nrows() == 1 and all.window or ("the " .. (mopts.windows and "windows" or "steps")
                .. "' wall time")
            report:finding { severity = "info", rule = "ops.mfu", subject = p.source or "input",
              message = string.format("MFU %.1f %% over %s, %.1f %% over kernel busy time (%s, peak %s TFLOP/s %s)",
                all.mfu_wall_pct, over, all.mfu_busy_pct or 0, all.precision or "?", r3(all.peak_tflops), psrc),
              evidence = { gflops = all.gflops, wall_ms = all.wall_ms, busy_ms = all.busy_ms, peak_source = psrc,
                           window = all.window } }
          end
          if outside then report:note(string.format("%.3g GFLOP of modelled ops start outside every profiler step: not in the step MFU", outside / 1e9)) end
        elseif psrc then report:note("no MFU: " .. psrc) end
        if not ctx or not ctx.model then report:note("no GPU model known: pass --gpu NAME for peaks ("
            .. device.choices() .. ")") end
        -- GPU timeline
        local tl = O.gpu_timeline(p, { clock = opts.clock })
        if tl then report:table("gpu_timeline" .. sfx, tl, { title = "GPU timeline (ms; % of total)" }) end
        -- roofline figure: one point per group with FLOPs and time
        local model = ctx and ctx.model
        if model and bw then
          local points = {}
          for _, r in groups:rows() do
            if r.intensity and r.tflops_mean and r.tflops_mean > 0 then
              points[#points + 1] = { label = r.name, ai = r.intensity, flops = r.tflops_mean * 1e12,
                share_pct = 0, title = string.format("%s %s %s: %.3g FLOP/byte, %.3g TFLOP/s, %d calls", r.name,
                  r.input_dims or "", r.precision, r.intensity, r.tflops_mean, r.calls) }
            end
          end
          if #points > 0 then
            local ceilings = {}
            for _, pr in ipairs(gpus.precisions) do
              local v = opts.peak_tflops > 0 and opts.peak_tflops * 1e12 or (model.peaks or {})[pr.id]
              if v then ceilings[#ceilings + 1] = { label = pr.label, flops = v } end
              if opts.peak_tflops > 0 then break end
            end
            report:figure("ops_roofline" .. sfx .. ".svg",
                chart.roofline { title = string.format("Op roofline: %s (%s)",
              model.name or model.id, (p.source or ""):match("[^/]+$") or ""), ceilings = ceilings, bandwidth = bw,
              bandwidth_label = "DRAM (" .. (bw_src or "") .. ")", points = points },
                  { title = "op roofline (log-log), one point per op group" })
          end
        end
      end
      ::continue::
    end
  end,
}

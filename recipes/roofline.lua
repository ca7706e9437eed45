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
-- Table `roofline` (part of the API): kernel, precision, precision_from
-- (operator dtype, ncu counters, the input's column, --set precision,
-- --set work, kernel name (last resort), none), flops, bytes,
-- arithmetic_intensity, achieved_flops_per_s, achieved_bytes_per_s,
-- attainable_flops_per_s, efficiency_pct, compute_pct, memory_pct, bound,
-- time_share_pct.  Figure `roofline.svg` when peaks and at least one
-- kernel's FLOPs and bytes are known.
local perflab = require "perflab"
local cuda = require "perflab.cuda_occupancy"
local ncu = require "perflab.ncu_math"
local device = require "perflab.device"
local chart = require "perflab.chart"
local gpus = require "perflab.gpus"
local IV = require "perflab.timeline"
local T = perflab.table

local COLS = { "kernel", "precision", "precision_from", "flops", "bytes", "arithmetic_intensity",
    "achieved_flops_per_s",
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
  -- Tensile (rocBLAS/hipBLASLt) Cijk_..._HSS_/_HHS_ (half in), _BBS_/_BSS_ (bf16 in), _SS_ (fp32)
  { "_hss_", "fp16" }, { "_hhs_", "fp16" }, { "_bbs_", "bf16" }, { "_bss_", "bf16" },
  { "f32f32", "fp32" }, { "ffma", "fp32" }, { "sgemm", "fp32" },
}

-- A last resort, where neither a dtype nor a metric tells: the name's
-- precision, or "unknown" (never a default printed as a fact).  The second
-- value says where it came from.
local function guess_precision(name)
  local n = (name or ""):lower()
  for _, pp in ipairs(PRECISION_PATTERNS) do
    if n:find(pp[1], 1, true) then return pp[2], "name" end
  end
  return "unknown", "none"
end

local sorted_keys = require("perflab.util").sorted_keys

local r2 = require("perflab.util").round   -- to 2 decimals
local figures = require "perflab.figures"

---------------------------------------------------------------------------
-- FLOPs and bytes per launch, from what the input has (editable data)
---------------------------------------------------------------------------

-- ncu instruction counts (raw page / --metrics): FLOP = add + mul + 2 x fma
local NCU_FLOPS = {
  { "fp64", "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum" },
  { "fp32", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum" },
  { "fp16", "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum" },
}
-- DRAM bytes: raw names, else the details page's DRAM bandwidth x duration
local NCU_BYTES = { "dram__bytes.sum", "dram__bytes_read.sum+dram__bytes_write.sum" }
local NCU_DRAM_RATE = { "Memory Throughput@byte/s", "dram__bytes.sum.per_second@byte/s", "dram__bytes.sum.per_second" }

-- Kineto operators whose FLOPs follow from input shapes (GEMM: 2*M*N*K).
-- Each entry: op name -> function(dims) -> M, N, K, batch, {dims counted for bytes}
-- An op whose Input Dims lack the shapes (fewer of them, or empty ones)
-- gives nil: it is skipped and counted in a note.
local function mat(d, n) return type(d) == "table" and #d == n end
local GEMM_OPS = {
  ["aten::mm"] = function(d) local a, b = d[1], d[2]; if mat(a, 2) and mat(b, 2) then return a[1], b[2], a[2], 1,
      { a, b, { a[1], b[2] } } end end,
  ["aten::addmm"] = function(d) local a, b = d[2], d[3]; if mat(a, 2) and mat(b, 2) then return a[1], b[2], a[2], 1,
      { d[1] or {}, a, b, { a[1], b[2] } } end end,
  ["aten::bmm"] = function(d) local a, b = d[1], d[2]; if mat(a, 3) and mat(b, 3) then return a[2], b[3], a[3], a[1],
      { a, b, { a[1], a[2], b[3] } } end end,
  ["aten::baddbmm"] = function(d) local a, b = d[2], d[3]; if mat(a, 3) and mat(b, 3) then return a[2], b[3], a[3],
      a[1], { d[1] or {}, a, b, { a[1], a[2], b[3] } } end end,
}
local ELEM_BYTES = { float = 4, double = 8, ["c10::Half"] = 2, ["c10::BFloat16"] = 2, half = 2, bfloat16 = 2,
  int = 4, long = 8, ["signed char"] = 1, ["unsigned char"] = 1, ["c10::Float8_e4m3fn"] = 1, ["c10::Float8_e5m2"] = 1 }
local TYPE_PRECISION = { float = "fp32", double = "fp64", ["c10::Half"] = "fp16", ["c10::BFloat16"] = "bf16",
  ["c10::Float8_e4m3fn"] = "fp8", ["c10::Float8_e5m2"] = "fp8" }

local function parse_dims(s)
  local out = {}
  if type(s) ~= "string" then return out end
  local inner = s:match("^%[(.*)%]$") or ""
  for grp in inner:gmatch("%[([^%[%]]*)%]") do
    local d = {}
    for n in grp:gmatch("%-?%d+") do d[#d + 1] = tonumber(n) end
    out[#out + 1] = d
  end
  return out
end
local function parse_types(s)
  local out = {}
  if type(s) == "string" then for t in s:gmatch('"([^"]*)"') do out[#out + 1] = t end end
  return out
end
local function numel(d) local n = 1; for _, x in ipairs(d) do n = n * x end; return n end

-- Kineto: one cpu op's work from its name, input shapes and types, and the
-- trace's flops argument: {flops, bytes, precision, how, op}, or false
local function op_work(o)
  local dims = parse_dims(o.input_dims)
  local types = parse_types(o.input_types)
  local esize = ELEM_BYTES[types[1] or ""] or ELEM_BYTES[types[2] or ""] or 4
  local prec = TYPE_PRECISION[types[2] or types[1] or ""]
  local fn = GEMM_OPS[o.name]
  local flops, bytes, how
  if fn and #dims > 0 then
    local m, n, kk, b, counted = fn(dims)
    if m then
      flops = 2 * m * n * kk * b
      bytes = 0
      for _, d in ipairs(counted) do if #d > 0 then bytes = bytes + numel(d) * esize end end
      how = "input shapes (GEMM 2*M*N*K)"
    end
  end
  if o.flops and o.flops > 0 then
    flops = o.flops; how = "the trace's flops argument"
    if not bytes and #dims > 0 then
      bytes = 0
      for _, d in ipairs(dims) do if #d > 0 then bytes = bytes + numel(d) * esize end end
    end
  end
  if flops then return { flops = flops, bytes = bytes, precision = prec, how = how, op = o.name } end
  return false
end

-- Kineto: the work of the cpu ops, as a table external_id, w_flops,
-- w_bytes, w_precision, w_how (one row per External id with work), and the
-- number of GEMM ops skipped.  The ops are grouped by (name, shapes, types,
-- flops) and each group's work is worked out once: a trace repeats a few
-- hundred op signatures millions of times.  Where ops share an external
-- id, the last one with work counts.  nil without work.
local function kineto_op_work(p)
  local ops = p.tables.cpu_ops
  if not ops then return nil, 0 end
  if not ops:has("external_id") or not ops:has("name") then return nil, 0 end
  local keys = {}
  for _, c in ipairs { "name", "input_dims", "input_types", "flops" } do
    if ops:has(c) then keys[#keys + 1] = c end
  end
  -- the columns read, then the ops with an External id (a narrow copy)
  local narrow = { "external_id" }
  for i, c in ipairs(keys) do narrow[i + 1] = c end
  ops = ops:select(narrow)
  if ops:col("external_id"):count() < ops:nrows() then ops = ops:filter(ops:col("external_id"):present()) end
  local by_sig = ops:group_by(keys)
  local work, has_work, gemm_miss, gi = {}, {}, {}, {}
  for g, r in by_sig:agg({ { "n", "count" } }):rows() do
    local w = op_work(r)
    work[g], has_work[g], gemm_miss[g] = w, w and true or false, (not w and GEMM_OPS[r.name]) and true or false
    gi[g] = { g = g }
  end
  if #gi == 0 then return nil, 0 end
  local sig = by_sig:broadcast(T.from_rows(gi, { "g" })):col("g")
  local skipped = sig:count { where = sig:map(gemm_miss) }
  local with = ops:with("g", sig):filter(sig:map(has_work))
  if with:nrows() == 0 then return nil, skipped end
  local by = with:group_by("external_id"):agg({ { "g", "last", "g" } })
  local g = by:col("g")
  by:with("w_flops", g:map(function(x) return work[x].flops end))
  by:with("w_bytes", g:map(function(x) return work[x].bytes end))
  by:with("w_precision", g:map(function(x) return work[x].precision end))
  by:with("w_how", g:map(function(x) return "Kineto " .. work[x].how end))
  return by:drop("g"), skipped
end

-- perflab.ops's model (every family, precision from the recorded dtype):
-- the ops the GEMM rules above leave out get their work from it
local function merge_ops_model(p, by, skipped)
  local O = require "perflab.ops"
  local _, _, o = O.groups(p, { work_only = true })
  if not o or not o:has("external_id") then return by, skipped end
  o = o:filter(o:col("flops"):present() & o:col("bytes"):present() & o:col("external_id"):present())
  if o:nrows() == 0 then return by, skipped end
  local m = o:group_by("external_id"):agg { { "w_flops", "last", "flops" }, { "w_bytes", "last", "bytes" },
    { "w_precision", "last", "precision" } }
  local pr = m:col("w_precision")
  m:with("w_precision", pr:map(function(x) return O.peak_key[x] end))     -- bool, int64, unknown: no ceiling
  m:with("w_how", m:col("w_flops"):present():map({ [true] = "Kineto operator shapes and dtypes (perflab.ops)" }))
  if by then
    m = m:filter(~m:col("external_id"):isin(by:col("external_id")))
    if m:nrows() == 0 then return by, skipped end
    return T.concat(by, m:select("external_id", "w_flops", "w_bytes", "w_precision", "w_how")), skipped
  end
  return m, skipped
end

-- a name reduced to its last identifier without templates or arguments
local function bare(name)
  local s = (name or ""):gsub("%b()", ""):gsub("%b<>", ""):gsub("^%s*void%s+", "")
  return s:match("([%w_]+)%s*$") or s
end

local function read_work_csv(path)
  local p = perflab.load(path, { format = "csv" })
  local t = p.tables.csv or p:table(p:table_names()[1])
  local by = {}
  for _, r in t:rows() do
    if r.kernel and (r.flops or r.bytes) then
      local w = { flops = r.flops, bytes = r.bytes, precision = r.precision }
      by[r.kernel] = w; by[bare(r.kernel)] = by[bare(r.kernel)] or w
    end
  end
  return by
end

-- the ncu metrics read (a long table: kernel_id, metric, value, base_unit),
-- where "NAME@byte/s" is a metric in byte/s ("Memory Throughput" is a
-- percentage in SOL and DRAM byte/s in Memory Workload Analysis)
local NCU_READ = { "dram__bytes.sum", "dram__bytes_read.sum", "dram__bytes_write.sum" }
for _, f in ipairs(NCU_FLOPS) do for j = 2, 4 do NCU_READ[#NCU_READ + 1] = f[j] end end
for _, n in ipairs(NCU_DRAM_RATE) do NCU_READ[#NCU_READ + 1] = n end


-- ncu metrics per launch of k, pivoted wide (one row per kernel, one
-- column per metric) and gathered per launch: name -> column of k's length
-- (the launch's first value of that metric; a launch is its id, else its
-- 0-based row); nil without a metrics table
local function ncu_metrics(p, k, kid)
  local t = p.tables.metrics
  if not (t and t:has("kernel_id") and t:has("value") and t:has("metric")) then return nil end
  local cols, bases = {}, {}
  for _, name in ipairs(NCU_READ) do bases[#bases + 1] = (name:gsub("@byte/s$", "")) end
  -- only the metrics read, with a kernel and a value: one filter of the
  -- columns the pivot needs
  local keep = t:col("kernel_id"):present() & t:col("value"):present() & t:col("metric"):isin(bases)
  t = t:select(t:has("base_unit") and { "kernel_id", "metric", "value", "base_unit" }
      or { "kernel_id", "metric", "value" })
  t = t:filter(keep)
  local parts = { { t, "" } }
  if t:has("base_unit") then
    local rate = t:col("base_unit"):eq("byte/s")
    parts = { { t:filter(~rate), "" }, { t:filter(rate), "@byte/s" } }
  end
  for _, part in ipairs(parts) do
    local pt, suffix = part[1], part[2]
    if pt:nrows() > 0 then
      local w = pt:pivot { index = "kernel_id", columns = "metric", values = "value" }
      local at                                           -- each launch's row of w
      for _, name in ipairs(NCU_READ) do
        local base = suffix == "" and not name:find("@", 1, true) and name
          or (suffix ~= "" and name:sub(-#suffix) == suffix and name:sub(1, -#suffix - 1))
        if base and w:has(base) then
          at = at or w:col("kernel_id"):index_of(kid)
          cols[name] = w:col(base):at(at)
        end
      end
    end
  end
  return cols
end

-- per-launch work of k as columns (k's length): flops, bytes, precision
-- and how (what gave them), from the first source that has the launch:
-- --set work, the input's columns, ncu metrics, the launching op's Kineto
-- work (an op's work shared by its kernels in proportion to their time).
-- Each source is worked out in the engine; the first that applies wins.
local function work_columns(p, k, opts, is_summary)
  local n = k:nrows()
  local fl, b, prec, how, psrc, taken    -- taken: the launches a source has claimed
  local function claim(on, f, by, pr, h, ps)
    if taken then on = on & ~taken end
    local function put(acc, v)
      if not v then return acc end
      v = v:keep(on)
      if v:count() == 0 then return acc end   -- nothing (and maybe of no type)
      return acc and acc:fill(v) or v
    end
    fl, b, prec = put(fl, f), put(b, by), put(prec, pr)
    how = put(how, h and k:const(h) or nil)
    if pr and ps then psrc = put(psrc, k:const(ps):keep(pr:present())) end
    taken = taken and (taken | on) or on
  end
  local function col(name) return k:has(name) and k:col(name) or nil end
  -- 1. --set work CSV, by name, short name or bare name
  local csv = (opts.work and opts.work ~= "") and read_work_csv(opts.work) or nil
  if csv then
    local recs, ix = {}, {}
    local function find(key) local w = csv[key]; if w
        and not ix[w] then recs[#recs + 1] = w; ix[w] = #recs end; return w and ix[w] end
    local ci
    for _, c in ipairs({ { "name", find }, { "short_name", find },
        { "name", function(nm) return find(bare(nm)) end } }) do
      local src = col(c[1])
      if src then
        local m = src:map(c[2])
        if m:count() > 0 then ci = ci and ci:fill(m) or m end
      end
    end
    if ci and ci:count() > 0 then
      local f = ci:map(function(i) return recs[i].flops end)
      local by = ci:map(function(i) return recs[i].bytes end)
      if is_summary and col("calls") then
        f = (f * k:col("calls")):fill(f); by = (by * k:col("calls")):fill(by)
      end
      claim(ci:present(), f:count() > 0 and f or nil, by:count() > 0 and by or nil,
        (function() local pr = ci:map(function(i) return recs[i].precision end); return pr:count() > 0 and pr
            or nil end)(),
        "--set work (per launch)", "--set work")
    end
  end
  -- 2. the input's own columns
  local iflops, ibytes = col("flops"), col("dram_bytes")
  if col("bytes") then ibytes = ibytes and ibytes:fill(k:col("bytes")) or k:col("bytes") end
  if iflops or ibytes then
    local on = iflops and iflops:present()
    if ibytes then on = on and (on | ibytes:present()) or ibytes:present() end
    claim(on, iflops, ibytes, nil, "the input's columns")
  end
  -- 3. ncu instruction counts (FLOP = add + mul + 2 x fma) and DRAM bytes
  local kid = k:rownum() - 1
  if col("id") then kid = k:col("id"):fill(kid) end
  local m = ncu_metrics(p, k, kid)
  -- tensor-pipe ops by source type (sm__ops_path_tensor_*, perflab.ops):
  -- the launch's tensor FLOPs, and its precision where they dominate
  local nt = require("perflab.ops").ncu_tensor(p)
  local tops, tprec
  if nt and nt:has("tensor_ops") then
    local at = nt:col("kernel_id"):index_of(kid)
    tops = nt:col("tensor_ops"):at(at)
    tops = tops:keep(tops:gt(0))
    tprec = nt:col("tensor_precision"):at(at)
    if tops:count() == 0 then tops, tprec = nil, nil end
  end
  if m or tops then
    local flops, fprec
    for _, f in ipairs(m and NCU_FLOPS or {}) do
      local x, y, z = m[f[2]], m[f[3]], m[f[4]]
      if x and y and z then
        local v = x + y + z * 2
        v = v:keep(v:gt(0))
        local new = flops and (flops + v):fill(flops):fill(v) or v
        local up = v:present()
        if fprec then up = up & (~fprec:present() | v:gt(new - v)) end
        local name = k:const(f[1]):keep(up)
        fprec = fprec and name:fill(fprec) or name
        flops = new
      end
    end
    if tops then
      local vec = flops
      flops = flops and (flops + tops):fill(flops):fill(tops) or tops
      local dom = tops:present()
      if vec then dom = dom & (~vec:present() | tops:gt(vec)) end
      local tp = tprec:keep(dom)
      fprec = fprec and tp:fill(fprec) or tp
    end
    local bytes = m and m["dram__bytes.sum"]
    local rw = m and m["dram__bytes_read.sum"] and m["dram__bytes_write.sum"]
        and (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"])
    if rw then bytes = bytes and bytes:fill(rw) or rw end
    local rate
    for _, nm in ipairs(m and NCU_DRAM_RATE or {}) do if m[nm] then rate = rate and rate:fill(m[nm]) or m[nm] end end
    if rate and col("duration_ns") then
      local rb = rate * k:col("duration_ns") * 1e-9
      bytes = bytes and bytes:fill(rb) or rb
    end
    local on = flops and flops:present()
    if bytes then on = on and (on | bytes:present()) or bytes:present() end
    if on then claim(on, flops, bytes, fprec, "ncu instruction, tensor-pipe and DRAM metrics", "ncu counters") end
  end
  -- 4. the launching op's Kineto work, shared by duration among its kernels
  local kin, skipped = kineto_op_work(p)
  if p.tables.cpu_ops and p.tables.cpu_ops:has("input_dims") then kin, skipped = merge_ops_model(p, kin, skipped) end
  if kin and p.tables.kernels then
    local e = IV.launch_link_columns(p)
    if e then
      local dur = col("duration_ns") and k:col("duration_ns"):fill(0) or k:const(0)
      local ki = kin:col("external_id"):index_of(e)       -- each launch's row of kin
      local has = ki:present()
      local q = k:select({}):with("_e", e):with("_dur", dur)
      local ext = q:group_by("_e"):agg { { "_ext_ns", "sum", "_dur", where = has } }
      local ext_ns = ext:col("_ext_ns"):at(ext:col("_e"):index_of(e))
      local share = (dur / ext_ns):keep(ext_ns:gt(0)):fill(1)
      local function w(c) return kin:col(c):at(ki) end
      claim(has, w("w_flops") * share, w("w_bytes") * share, w("w_precision"), nil, "operator dtype")
      local wh = w("w_how"):keep(has)
      if wh:count() > 0 then how = how and how:fill(wh) or wh end
    end
  end
  return fl, b, prec, how, skipped or 0, psrc
end

--- roofline without FLOPs and bytes: ncu's Speed-of-Light view, compute
-- (SM) throughput % against memory throughput % per kernel, marker size by
-- time share; the 60 % and 80 % lines ncu's SOL rules use.
local function speed_of_light(report, tname, figname)
  local rows = figures.rows_of(report.tables[tname], { "kernel", "compute_pct", "memory_pct", "time_share_pct",
      "bound" })
  if not rows then return end
  local series, byb, order = {}, {}, {}
  for _, r in ipairs(rows) do
    if r.compute_pct and r.memory_pct then
      local b = r.bound or "kernel"
      if not byb[b] then byb[b] = { name = b, line = false, points = {}, size = {} }; order[#order + 1] = b end
      local s = byb[b]
      s.points[#s.points + 1] = { r.memory_pct, r.compute_pct,
          title = string.format("%s: compute %s, memory %s%s (%s)", r.kernel,
        figures.pct(r.compute_pct), figures.pct(r.memory_pct), r.time_share_pct
            and (", " .. figures.pct(r.time_share_pct) .. " of time")
            or "", b) }
      s.size[#s.points] = 3 + 14 * math.sqrt(math.max(r.time_share_pct or 0, 0) / 100)
    end
  end
  table.sort(order)
  for _, b in ipairs(order) do series[#series + 1] = byb[b] end
  if #series == 0 then return end
  report:figure(figname or "speed_of_light.svg", chart.plot {
    title = "Speed of Light: compute vs memory throughput", subtitle = "per kernel, marker area = share of time; "
      .. (report.inputs[1] and figures.base(report.inputs[1].source) or ""),
    x_label = "memory throughput (% of peak)", y_label = "compute (SM) throughput (% of peak)",
    x_min = 0, x_max = 100, y_min = 0, y_max = 100, width = 640, height = 560,
    regions = {
      { x0 = 0, x1 = 60, y0 = 0, y1 = 60, label = "both < 60 %: latency-bound", fill = "#F0E442" },
      { x0 = 80, x1 = 100, y0 = 0, y1 = 100, label = "≥ 80 %", fill = "#56B4E9" },
      { x0 = 0, x1 = 80, y0 = 80, y1 = 100, label = "≥ 80 %", fill = "#56B4E9" },
    },
    vlines = { { x = 60, label = "60 %" } }, hlines = { { y = 60, label = "60 %" } },
    series = series,
  }, { title = "Speed-of-Light chart (compute % vs memory %)" })
end

--- roofline: for each roofline table whose figure was not drawn (FLOPs,
-- bytes or peaks unknown), the Speed-of-Light chart instead.
local function figure(report)
  for _, name in ipairs(report.table_order) do
    local n = name:match("^roofline(_?%d*)$")
    if n and not report.figures["roofline" .. n .. ".svg"] then
      speed_of_light(report, name, "speed_of_light" .. n .. ".svg")
    end
  end
end

return {
  name = "roofline",
  figure = figure,   -- its figures from its report's tables (run calls it)
  summary = "roofline placement per kernel (AI, attainable, efficiency, bound) with an SVG chart",
  needs = { "kernels|kernel_summary" },
  options = {
    gpu = { type = "string", default = "auto",
        help = "GPU model when the input does not say (perflab gpus lists them)" },
    precision = { type = "string", default = "auto",
        help = "precision of the ceiling to use (fp64, fp32, tf32, fp16, bf16, fp8, int8; auto = from the dtype or metrics, else the kernel name, else unknown)" },
    work = { type = "string", default = "",
        help = "CSV with columns kernel,flops,bytes (per launch; optional precision) joined by kernel name" },
  },
  run = function(inputs, opts, report)
    for idx, p in ipairs(inputs) do
      local ctx, err = device.context(p, opts)
      if not ctx then perflab.fail(err) end
      local model = ctx.model
      local k = p.tables.kernels or p:table("kernel_summary")
      -- the device of the kernels, from the kernels (not the input's first
      -- device): one model, its peaks; several, no single roofline
      local knames = p.tables.kernels and device.kernel_device_names(k, ctx)
      local explicit = opts.gpu and opts.gpu ~= "" and opts.gpu ~= "auto"
      if knames and #knames == 1 and gpus.model(knames[1]) and not explicit then
        model = gpus.model(knames[1])
      elseif knames and #knames > 1 and not explicit then
        model = nil
        report:note(string.format("the kernels ran on %d GPU models (%s): one roofline cannot hold their peaks, "
          .. "so none is drawn (run perflab on one device's kernels, or pass --gpu NAME)", #knames,
          table.concat(knames, ", ")))
      end
      local peaks = model and model.peaks or {}
      local bw = model and model.dram_bw_bytes_per_s
      local is_summary = not p.tables.kernels
      -- per kernel (launches grouped by name, in first-seen order): the
      -- engine sums each launch's time, work and time-weighted SOL and
      -- utilisation; Lua then walks the kernels, not the launches
      local fl, by, wprec, how, skipped_ops, wpsrc = work_columns(p, k, opts, is_summary)
      local function col(name) return k:has(name) and k:col(name) or nil end
      local key = col("short_name")
      if col("name") then key = key and key:fill(k:col("name")) or k:col("name") end
      if not key or key:count() < k:nrows() then   -- a launch without a name: "launch i"
        local li = k:rownum():map(function(i) return "launch " .. i end)
        key = key and key:fill(li) or li
      end
      local ns = col("duration_ns")
      if is_summary and col("total_ns") then ns = ns and k:col("total_ns"):fill(ns) or k:col("total_ns") end
      ns = ns and ns:fill(0) or k:const(0)
      local a = k:select({}):with("_key", key):with("_ns", ns):with("_row", k:rownum())
      local w = ns:keep(ns:gt(0)):fill(1)                 -- a launch's weight: its time, else 1
      local spec = { { "ns", "sum", "_ns" }, { "first_row", "min", "_row" } }
      local function add(name, v, agg, where) if v then a:with(name, v); spec[#spec + 1] = { name .. "_" .. agg, agg,
          name, where = where } end end
      add("_fl", fl, "sum"); add("_fl", fl, "count"); add("_b", by, "sum"); add("_b", by, "count")
      add("_wp", wprec, "first"); add("_wps", wpsrc, "first"); add("_waves", col("waves_per_sm"), "max")
      local c, mm = col("compute_throughput_pct"), col("memory_throughput_pct")
      if c and mm then
        local sol = c:present() & mm:present()
        add("_cw", c * w, "sum", sol); add("_mw", mm * w, "sum", sol); add("_solw", w, "sum", sol)
      end
      local tu, du = col("tensor_util"), col("dram_util")
      if tu and du then
        local ut = tu:present() & du:present()
        add("_ut", tu * w, "sum", ut); add("_ud", du * w, "sum", ut); add("_uw", w, "sum", ut)
      end
      local groups = a:group_by("_key"):agg(spec)
      local first_prec = col("precision") and col("precision"):at(groups:col("first_row"))
      if first_prec then groups:with("_prec", first_prec) end
      local bykernel, order = {}, {}
      local total_ns = ns:sum()
      for _, r in groups:rows() do
        local prec, ps = r._prec, r._prec ~= nil and "the input's column" or nil
        if prec == nil then prec, ps = r._wp_first, r._wps_first end
        bykernel[r._key] = { kernel = r._key, ns = r.ns, flops = r._fl_sum or 0, bytes = r._b_sum or 0,
          has_flops = (r._fl_count or 0) > 0, has_bytes = (r._b_count or 0) > 0,
          c_w = r._cw_sum or 0, m_w = r._mw_sum or 0, sol_ns = r._solw_sum or 0,
          u_t = r._ut_sum or 0, u_d = r._ud_sum or 0, util_ns = r._uw_sum or 0, precision = prec, precision_from = ps,
          waves = r._waves_max and math.max(0, r._waves_max) }
        order[#order + 1] = r._key
      end
      local hows = {}
      if how then for _, h in ipairs(a:with("_how", how):unique("_how")) do hows[h] = true end end
      local rows, points = {}, {}
      local share_by_bound, above = {}, {}
      local basis = {}
      local missing_peak = {}
      local from_name, unknown = 0, 0
      for _, name in ipairs(order) do
        local g = bykernel[name]
        local prec = (opts.precision ~= "auto" and opts.precision) or g.precision
        local pfrom = opts.precision ~= "auto" and "--set precision" or g.precision_from
        if not prec then
          local how
          prec, how = guess_precision(name)
          if how == "name" then from_name = from_name + 1; pfrom = "kernel name (last resort)"
          else unknown = unknown + 1; pfrom = "none" end
        end
        -- precision unknown: placed against the FP32 roof, and said so
        local peak = peaks[prec] or (prec == "unknown" and peaks.fp32 or nil)
        local row = { kernel = name, precision = prec, precision_from = pfrom or "unknown source",
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
            row.attainable_flops_per_s = ncu.attainable(peak, bw, row.arithmetic_intensity)
            row.efficiency_pct = 100 * row.achieved_flops_per_s / row.attainable_flops_per_s
            cpct = 100 * row.achieved_flops_per_s / peak
            mpct = 100 * row.achieved_bytes_per_s / bw
            if row.efficiency_pct > 100.5 then above[#above + 1] = row end
            points[#points + 1] = { label = name, ai = row.arithmetic_intensity, flops = row.achieved_flops_per_s,
              share_pct = row.time_share_pct, above_roof = row.efficiency_pct > 100.5,
              title = string.format("%s: %.3g FLOP/byte, %s (%s of %s attainable), %.1f %% of time",
                name, row.arithmetic_intensity, chart.si(row.achieved_flops_per_s, "FLOP/s"),
                cuda.fmt_pct(row.efficiency_pct) .. " %", chart.si(row.attainable_flops_per_s, "FLOP/s"),
                row.time_share_pct or 0) }
          elseif not peak then
            missing_peak[prec] = true
          end
        end
        if not row.bytes and g.has_bytes and g.bytes > 0 then
          row.bytes = g.bytes
          if g.ns > 0 then row.achieved_bytes_per_s = g.bytes / (g.ns * 1e-9) end
        end
        if not row.flops and g.has_flops and g.flops > 0 then row.flops = g.flops end
        if not cpct and g.sol_ns > 0 then
          basis["Speed-of-Light percentages"] = true
          cpct, mpct = g.c_w / g.sol_ns, g.m_w / g.sol_ns
        elseif not cpct and g.util_ns > 0 then
          basis["tensor and DRAM utilisation"] = true
          cpct, mpct = 100 * g.u_t / g.util_ns, 100 * g.u_d / g.util_ns
        end
        if cpct then
          row.compute_pct, row.memory_pct = r2(cpct), r2(mpct)
          local _, bound = ncu.sol_class(cpct, mpct, g.waves)
          row.bound = bound
          share_by_bound[bound] = (share_by_bound[bound] or 0) + (row.time_share_pct or 0)
        end
        rows[#rows + 1] = row
      end
      local pos = {}
      for i, r in ipairs(rows) do pos[r] = i end   -- ties in first-seen order (table.sort is not stable)
      table.sort(rows, function(a, b)
        if (a.time_share_pct or 0) ~= (b.time_share_pct or 0) then return (a.time_share_pct or 0) > (b.time_share_pct
            or 0) end
        return pos[a] < pos[b]
      end)
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
        if share_by_bound[b] then parts[#parts + 1] = string.format("%s %% %s", cuda.fmt_pct(share_by_bound[b]), b) end
      end
      if #parts > 0 then
        local worst, wv = nil, -1
        for _, b in ipairs({ "compute-bound", "memory-bound", "latency-bound", "balanced" }) do
          local v = share_by_bound[b]
          if v and v > wv then worst, wv = b, v end
        end
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
            row.kernel, chart.si(row.achieved_flops_per_s, "FLOP/s"), cuda.fmt_pct(row.efficiency_pct),
            chart.si(row.attainable_flops_per_s, "FLOP/s")),
          evidence = { flops = row.flops, bytes = row.bytes, efficiency_pct = row.efficiency_pct } }
      end
      for _, h in ipairs(sorted_keys(hows)) do report:note("FLOPs and bytes from " .. h) end
      if skipped_ops > 0 then
        report:note(string.format("%d GEMM operator%s (aten::mm, addmm, bmm, baddbmm) skipped: Input Dims holds fewer "
          .. "or empty shapes than the FLOPs need, and the trace gives no flops for them", skipped_ops,
              skipped_ops == 1 and "" or "s"))
      end
      if from_name > 0 then
        report:note(string.format("%d kernel%s: precision read from the kernel name (a last resort: no dtype or "
          .. "metric records it)", from_name, from_name == 1 and "" or "s"))
      end
      if unknown > 0 then
        report:note(string.format("%d kernel%s: precision unknown (no dtype, metric or name records it): placed "
          .. "against the FP32 roof; --set precision= names it", unknown, unknown == 1 and "" or "s"))
      end
      for _, prec in ipairs(sorted_keys(missing_peak)) do
        report:note(string.format("no %s peak for %s in perflab.gpus; add it in ~/.config/perflab/gpus.lua",
          prec, model and model.id or "this GPU"))
      end
      if #points > 0 and model and bw then
        local ceilings = {}
        for _, pr in ipairs(gpus.precisions) do
          if peaks[pr.id] then ceilings[#ceilings + 1] = { label = pr.label, flops = peaks[pr.id] } end
        end
        local svg = chart.roofline { title = string.format("Roofline: %s (%s)", model.name or model.id,
            (p.source or ""):match("[^/]+$") or p.source),
          ceilings = ceilings, bandwidth = bw, bandwidth_label = "DRAM", points = points }
        report:figure(#inputs > 1 and ("roofline_" .. idx .. ".svg") or "roofline.svg", svg,
          { title = "roofline chart (log-log)" })
      elseif #points == 0 and not model then
        report:note("no GPU model known: pass --gpu NAME for peaks and the chart (" .. device.choices() .. ")")
      end
    end
    figure(report)   -- no roofline drawn: the Speed-of-Light chart
  end,
}

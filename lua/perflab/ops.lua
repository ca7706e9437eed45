--- perflab.ops: FLOPs, bytes and precision per operator of a PyTorch
-- (Kineto) trace recorded with record_shapes=True, from the arguments the
-- trace records ('Input Dims', 'Input type', 'Input Strides', 'Concrete
-- Inputs'; columns input_dims, input_types, input_strides,
-- concrete_inputs of cpu_ops).  Formulas and denominators: docs/ops.md.
--
-- M.models is the op model: name -> {family = ..., fn = function(inp) ->
-- {flops = , bytes = , ...} | nil}, where inp is the array of inputs
-- perflab.opargs.parse gives ({dims, dtype, bytes, strides, value} each).
-- Users extend it:
--   require("perflab.ops").models["mylib::rms"] = { family = "NORM_fwd",
--     fn = function(inp) local n = ops.numel(inp[1].dims)
--            return { flops = 4 * n, bytes = 2 * n * inp[1].bytes } end }
local T = require "perflab.table"
local I = require "perflab.intervals"
local A = require "perflab.opargs"

local M = {}

local function numel(d)
  if not d then return nil end
  local n = 1
  for i = 1, #d do n = n * d[i] end
  return n
end
M.numel = numel

-- bytes of a tensor input: numel x bytes per element (0 for a Scalar or a
-- missing input; a 0-dim tensor [] of a tensor dtype is one element)
local function tbytes(x)
  if not x or not x.dims or not x.bytes or x.bytes == 0 then return 0 end
  return numel(x.dims) * x.bytes
end
M.tensor_bytes = tbytes

local function gemm(M_, N, K, bias, bpe, batch)
  batch = batch or 1
  return { flops = batch * (2 * M_ * N * K + (bias and M_ * N or 0)),
           bytes = batch * (M_ * K + K * N + M_ * N) * bpe + (bias and N * bpe or 0),
           M = M_, N = N, K = K, B = batch, bias = bias }
end

local function truthy(v) return v == "True" or v == "true" or v == "1" end

local models = {}
M.models = models

-- GEMM: 2·M·N·K (+ M·N with a bias); bytes A, B, C once (+ a bias of N)
models["aten::mm"] = { family = "GEMM", fn = function(i)
  local a, b = i[1], i[2]
  if not (a and b and a.dims and b.dims and #a.dims == 2 and #b.dims == 2) then return nil end
  return gemm(a.dims[1], b.dims[2], a.dims[2], false, a.bytes)
end }
models["aten::addmm"] = { family = "GEMM", fn = function(i)
  local a, b = i[2], i[3]
  if not (a and b and a.dims and b.dims and #a.dims == 2 and #b.dims == 2) then return nil end
  return gemm(a.dims[1], b.dims[2], a.dims[2], true, a.bytes)
end }
models["aten::bmm"] = { family = "GEMM", fn = function(i)
  local a, b = i[1], i[2]
  if not (a and b and a.dims and b.dims and #a.dims == 3 and #b.dims == 3) then return nil end
  return gemm(a.dims[2], b.dims[3], a.dims[3], false, a.bytes, a.dims[1])
end }
models["aten::baddbmm"] = { family = "GEMM", fn = function(i)
  local a, b = i[2], i[3]
  if not (a and b and a.dims and b.dims and #a.dims == 3 and #b.dims == 3) then return nil end
  local r = gemm(a.dims[2], b.dims[3], a.dims[3], false, a.bytes, a.dims[1])
  r.flops = r.flops + a.dims[1] * a.dims[2] * b.dims[3]
  r.bytes = r.bytes + tbytes(i[1]); r.bias = true
  return r
end }
-- linear / matmul: the leading dims of the input are M
local function lead(d) local m = 1; for k = 1, #d - 1 do m = m * d[k] end; return m end
models["aten::linear"] = { family = "GEMM", fn = function(i)
  local x, w = i[1], i[2]
  if not (x and w and x.dims and w.dims and #x.dims >= 1 and #w.dims == 2) then return nil end
  local bias = i[3] and i[3].dims and #i[3].dims > 0
  return gemm(lead(x.dims), w.dims[1], w.dims[2], bias, x.bytes)
end }
models["aten::matmul"] = { family = "GEMM", fn = function(i)
  local a, b = i[1], i[2]
  if not (a and b and a.dims and b.dims and #a.dims >= 2 and #b.dims == 2) then return nil end
  return gemm(lead(a.dims), b.dims[2], b.dims[1], false, a.bytes)
end }

-- Attention: QKᵀ and PV, 2·B·H·N_Q·N_KV·d each; causal halves it.  Bytes:
-- Q, K, V and O once.  layout "bhnd" (SDPA ops) or "bnhd" (_flash_attention_*)
local function attention(q, k, v, causal, layout, backward)
  if not (q and k and v and q.dims and k.dims and v.dims and #q.dims == 4 and #k.dims == 4) then return nil end
  local B, H, NQ, d, NKV, dv
  if layout == "bnhd" then B, NQ, H, d = q.dims[1], q.dims[2], q.dims[3], q.dims[4]; NKV, dv = k.dims[2], v.dims[4]
  else B, H, NQ, d = q.dims[1], q.dims[2], q.dims[3], q.dims[4]; NKV, dv = k.dims[3], v.dims[4] end
  local f = 2 * B * H * NQ * NKV * d + 2 * B * H * NQ * NKV * dv
  if causal then f = f / 2 end
  local by = tbytes(q) + tbytes(k) + tbytes(v) + B * H * NQ * dv * q.bytes
  if backward then f = f * 2.5; by = by * 2 end     -- dQ, dK, dV (+ recomputed P): 2.5x the forward
  return { flops = f, bytes = by, B = B, H = H, N_Q = NQ, N_KV = NKV, d = d, causal = causal }
end
local function sdpa_fwd(ci) return { family = "SDPA_fwd", fn = function(i)
  return attention(i[1], i[2], i[3], i[ci] and truthy(i[ci].value), "bhnd") end } end
models["aten::_scaled_dot_product_flash_attention"] = sdpa_fwd(5)
models["aten::_scaled_dot_product_efficient_attention"] = sdpa_fwd(6)
models["aten::_scaled_dot_product_cudnn_attention"] = sdpa_fwd(7)
models["aten::_flash_attention_forward"] = { family = "SDPA_fwd", fn = function(i)
  return attention(i[1], i[2], i[3], i[9] and truthy(i[9].value), "bnhd") end }
models["aten::_scaled_dot_product_flash_attention_backward"] = { family = "SDPA_bwd", fn = function(i)
  return attention(i[2], i[3], i[4], i[10] and truthy(i[10].value), "bhnd", true) end }
models["aten::_flash_attention_backward"] = { family = "SDPA_bwd", fn = function(i)
  return attention(i[2], i[3], i[4], i[11] and truthy(i[11].value), "bnhd", true) end }

-- Convolution: 2·Π(weight[2:])·Π(output) (+ Π(output) with a bias); bytes
-- input, weight, output (+ bias) once.  aten::convolution(input, weight,
-- bias, stride, padding, dilation, transposed, output_padding, groups)
local function ints_of(v)
  local out = {}
  for x in tostring(v or ""):gmatch("%-?%d+") do out[#out + 1] = tonumber(x) end
  return out
end
local function conv(i, backward)
  local x, w, b = i[1], i[2], i[3]
  if not (x and w and x.dims and w.dims and #x.dims >= 3 and #w.dims == #x.dims) then return nil end
  local nd = #x.dims - 2
  local st, pad, dil = ints_of(i[4] and i[4].value), ints_of(i[5] and i[5].value), ints_of(i[6] and i[6].value)
  if i[7] and truthy(i[7].value) then return nil end     -- transposed: not modelled
  local out = { x.dims[1], w.dims[1] }
  for k = 1, nd do
    local s, p, d = st[k] or st[1] or 1, pad[k] or pad[1] or 0, dil[k] or dil[1] or 1
    out[#out + 1] = (x.dims[k + 2] + 2 * p - d * (w.dims[k + 2] - 1) - 1) // s + 1
  end
  local wf = 1
  for k = 2, #w.dims do wf = wf * w.dims[k] end
  local no = numel(out)
  -- the bias is not counted (TraceLens's convention: 2·Π(weight[2:])·Π(out))
  local f = 2 * wf * no
  local by = tbytes(x) + tbytes(w) + no * x.bytes
  if backward then f = 2 * f; by = 2 * by end            -- grad input + grad weight
  return { flops = f, bytes = by, output = out }
end
models["aten::convolution"] = { family = "CONV_fwd", fn = conv }
models["aten::convolution_backward"] = { family = "CONV_bwd", fn = function(i)
  local j = { i[2], i[3], nil, i[5], i[6], i[7], i[8] }
  j[3] = { dims = {} }
  return conv(j, true)
end }

-- Elementwise: one FLOP per output element; bytes each tensor input and
-- the output once (the output shape is the broadcast of the inputs; its
-- dtype the first input's)
local function bcast(a, b)
  local n = math.max(#a, #b)
  local out = {}
  for k = 1, n do
    local x, y = a[#a - n + k] or 1, b[#b - n + k] or 1
    out[k] = math.max(x, y)
  end
  return out
end
local function binary(i)
  local a, b = i[1], i[2]
  if not (a and a.dims and a.bytes and a.bytes > 0) then return nil end
  local od = a.dims
  if b and b.dims and b.bytes and b.bytes > 0 then od = bcast(a.dims, b.dims) end
  local n = numel(od)
  return { flops = n, bytes = tbytes(a) + tbytes(b) + n * a.bytes }
end
local function unary(i)
  local a = i[1]
  if not (a and a.dims and a.bytes and a.bytes > 0) then return nil end
  local n = numel(a.dims)
  return { flops = n, bytes = 2 * tbytes(a) }
end
-- copy_(dst, src): reads src, writes dst
local function copy(i)
  local d, s = i[1], i[2]
  if not (d and s and d.dims and d.bytes and s.bytes and d.bytes > 0) then return nil end
  local n = numel(d.dims)
  return { flops = n, bytes = n * (d.bytes + s.bytes) }
end
for _, n in ipairs { "add", "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "maximum", "minimum", "where" } do
  models["aten::" .. n] = { family = "BinaryElementwise", fn = binary }
end
for _, n in ipairs { "pow", "silu", "silu_", "gelu", "gelu_", "relu", "relu_", "neg", "rsqrt", "sqrt", "exp",
                     "tanh", "sigmoid", "log", "abs", "sin", "cos", "clamp", "clamp_" } do
  models["aten::" .. n] = { family = "UnaryElementwise", fn = unary }
end
models["aten::copy_"] = { family = "UnaryElementwise", fn = copy }

-- Normalisation: per element 5 FLOPs (mean: 1, variance: 2, normalise:
-- 2), + 2 with an affine weight and bias; bytes: input and output once,
-- weight and bias once.  layer_norm(input, normalized_shape, weight, bias,
-- eps); rms_norm(input, normalized_shape, weight, eps): 4 per element
-- (square, mean, normalise: 2) + 1 with a weight.
local function norm(base, wi, bi)
  return function(i)
    local x = i[1]
    if not (x and x.dims and x.bytes and x.bytes > 0) then return nil end
    local n = numel(x.dims)
    local w, b = wi and i[wi], bi and i[bi]
    local hw = w and w.dims and #w.dims > 0 and w.bytes and w.bytes > 0
    local hb = b and b.dims and #b.dims > 0 and b.bytes and b.bytes > 0
    return { flops = n * (base + (hw and 1 or 0) + (hb and 1 or 0)),
             bytes = 2 * tbytes(x) + (hw and tbytes(w) or 0) + (hb and tbytes(b) or 0) }
  end
end
models["aten::layer_norm"] = { family = "NORM_fwd", fn = norm(5, 3, 4) }
models["aten::native_layer_norm"] = { family = "NORM_fwd", fn = norm(5, 3, 4) }
models["aten::rms_norm"] = { family = "NORM_fwd", fn = norm(4, 3, nil) }
models["aten::_fused_rms_norm"] = { family = "NORM_fwd", fn = norm(4, 3, nil) }
models["aten::group_norm"] = { family = "NORM_fwd", fn = norm(5, 3, 4) }
models["aten::native_group_norm"] = { family = "NORM_fwd", fn = norm(5, 2, 3) }
models["aten::batch_norm"] = { family = "NORM_fwd", fn = norm(5, 2, 3) }
models["aten::_native_batch_norm_legit_no_training"] = { family = "NORM_fwd", fn = norm(5, 2, 3) }
models["aten::_softmax"] = { family = "NORM_fwd", fn = norm(5) }   -- max, sub, exp, sum, div
models["aten::softmax"] = { family = "NORM_fwd", fn = norm(5) }

-- Reductions over dims (input 2, a list; none: all) with keepdim: one FLOP
-- per input element; bytes: input and output once.
local function reduce(i)
  local x = i[1]
  if not (x and x.dims and x.bytes and x.bytes > 0) then return nil end
  local n = numel(x.dims)
  local dims = ints_of(i[2] and i[2].value)
  local out = n
  if #dims == 0 then out = 1
  else
    for _, d in ipairs(dims) do
      local k = d < 0 and #x.dims + d + 1 or d + 1
      if x.dims[k] and x.dims[k] > 0 then out = out // x.dims[k] end
    end
  end
  return { flops = n, bytes = tbytes(x) + out * x.bytes }
end
for _, n in ipairs { "sum", "mean", "amax", "amin", "max", "min", "prod", "norm", "all", "any" } do
  models["aten::" .. n] = { family = "Reduce_fwd", fn = reduce }
end

M.families = { "GEMM", "CONV_fwd", "CONV_bwd", "SDPA_fwd", "SDPA_bwd", "BinaryElementwise", "UnaryElementwise",
               "NORM_fwd", "Reduce_fwd" }

--- Whether cpu_ops carries recorded shapes; else the note that says how.
function M.shapes_note(p)
  local ops = p.tables and p.tables.cpu_ops
  if not ops or ops:nrows() == 0 then return "the profile has no CPU operators: no op model" end
  if not ops:has("input_dims") or ops:col("input_dims"):count() == 0 then
    return "the trace has no operator shapes: FLOPs, bytes and precision per operator need them; record with " ..
      "torch.profiler.profile(record_shapes=True)"
  end
  return nil
end

-- device work (kernels, memcpy, memset) with the thread and start of the
-- runtime call that launched it
local function device_work(p)
  local rt = p.tables.runtime
  if not (rt and rt:nrows() > 0 and rt:has("correlation")) then return nil end
  local parts = {}
  for _, tn in ipairs { "kernels", "memcpy", "memset" } do
    local t = p.tables[tn]
    if t and t:nrows() > 0 and t:has("correlation") then
      local s, d = t:col("start_ns"), t:col("duration_ns")
      parts[#parts + 1] = t:select("start_ns"):with("end_ns", s + d):with("duration_ns", d)
        :with("correlation", t:col("correlation"))
    end
  end
  if #parts == 0 then return nil end
  local k = T.concat(table.unpack(parts))
  local at = rt:col("correlation"):index_of(k:col("correlation"))
  k:with("rt_start_ns", rt:col("start_ns"):at(at)):with("pid", rt:col("pid"):at(at)):with("tid", rt:col("tid"):at(at))
  return k
end
M.device_work = device_work

local KEYS = { "name", "input_dims", "input_types", "input_strides", "concrete_inputs" }
M.keys = KEYS

local function famof(n) local m = models[n]; return m and m.family or nil end

--- The op groups of a profile: one row per unique (name, dims, types,
-- strides, concrete inputs) of the modelled ops: family, calls, precision,
-- gflops and mib (per call; MiB = 2^20 bytes), flops, bytes, intensity
-- (FLOP/byte), kernel time per call (busy: the union of the kernels,
-- copies and sets the op and its children launched) kernel_us_{mean,
-- median, min, max, sum}, and achieved tflops_{mean, median, min, max} and
-- tbps_{...} over the calls (a call that launched nothing takes no part),
-- outer_calls (calls no other modelled op encloses: M.outer_mask).
-- Returns groups (nil where the trace has no shapes), notes (array of
-- text).  opts.clock = "trace_us": each device interval ends where the
-- trace's µs floats add up (ts + dur in binary64), as TraceLens computes
-- it; the default is exact nanoseconds.  opts.work_only: only the calls
-- with their flops, bytes and precision (third value; no kernel times, no
-- groups).
function M.groups(p, opts)
  opts = opts or {}
  local notes = {}
  local why = M.shapes_note(p)
  if why then return nil, { why } end
  local ops = p.tables.cpu_ops
  local nm = ops:col("name")
  local none = nm:keep(nm:present() & ~nm:present())
  for _, c in ipairs(KEYS) do if not ops:has(c) then ops = ops:with(c, none) end end
  local fam = ops:col("name"):map(famof)
  local shaped = ops:col("input_dims"):present()
  local sel = fam:present() & shaped
  local o = ops:filter(sel)
  o = o:with("family", o:col("name"):map(famof))
  -- ops with shapes but no formula, counted (their kernels show in other tables)
  local un = ops:filter(shaped & ~fam:present(), { "name" })
  if un:nrows() > 0 then
    local names = un:group_by("name"):agg { { "n", "count" } }
    notes[#notes + 1] = string.format("%d calls of %d operators with shapes have no FLOP formula (perflab.ops.models): " ..
      "not in the FLOP totals", un:nrows(), names:nrows())
  end
  local dev = not opts.work_only and device_work(p) or nil
  -- kernels replayed by a CUDA/HIP graph launch have no op of their own
  -- (the graph handling counts them); here they are counted apart
  local rt = p.tables.runtime
  if dev and rt and rt:has("name") then
    local at = rt:col("correlation"):index_of(dev:col("correlation"))
    local gl = rt:col("name"):at(at):match("GraphLaunch")
    local ng = gl:count { where = gl }
    if ng > 0 then
      notes[#notes + 1] = string.format("%d kernels replayed by a graph launch (cudaGraphLaunch/hipGraphLaunch) have no " ..
        "operator of their own: not in any op's kernel time", ng)
      dev = dev:filter(~gl:fill(false))
    end
  end
  local busy, cnt
  if dev and o:nrows() > 0 then
    local qopts = { point = "rt_start_ns", by = { "pid", "tid" } }
    local scale = 1000
    if opts.clock == "trace_us" then
      local s_us = dev:col("start_ns") / 1000
      local e_us = s_us + dev:col("duration_ns") / 1000
      local mx = e_us:max() or 1
      scale = 2 ^ (52 - math.floor(math.log(mx, 2)))
      dev = dev:with("_qs", s_us * scale):with("_qe", e_us * scale)
      qopts.start, qopts.stop = "_qs", "_qe"
    end
    busy, cnt = I.enclosed(o, dev, qopts)
    busy = busy / scale
    if dev:has("rt_name") then end
  elseif not opts.work_only then
    notes[#notes + 1] = "no kernel links to a CPU operator (no runtime table with correlation ids): no kernel time per op"
  end
  if busy then
    local launched = cnt:gt(0)
    o = o:with("kernel_us", busy:keep(launched)):with("n_kernels", cnt)
  else
    local dn = o:col("duration_ns")
    o = o:with("kernel_us", (dn / 1):keep(dn:present() & ~dn:present()))
  end
  local g = o:group_by(table.unpack(KEYS))
  local res = g:agg { { "family", "first", "family" }, { "calls", "count" } }
  local per = {}
  local nomodel = 0
  for i, r in res:rows() do
    local inp = A.parse(r.input_dims, r.input_types, r.input_strides, r.concrete_inputs)
    local m = models[r.name]
    local ok, v = false, nil
    if inp then ok, v = pcall(m.fn, inp) end
    if not ok or not v or not v.flops then v = {}; nomodel = nomodel + r.calls end
    per[i] = { flops = v.flops, bytes = v.bytes, precision = A.precision(r.input_types) or "unknown" }
  end
  if nomodel > 0 then
    notes[#notes + 1] = string.format("%d calls of modelled operators have arguments the formula cannot read: left out", nomodel)
  end
  local pc = g:broadcast(T.from_rows(per, { "flops", "bytes", "precision" }))
  local fl, by = pc:col("flops"), pc:col("bytes")
  local ku = o:col("kernel_us")
  o = o:with("flops", fl):with("bytes", by):with("precision", pc:col("precision"))
  if opts.work_only then return nil, notes, o end
  o = o:with("tflops", fl / ku * 1e-6):with("tbps", by / ku * 1e-6)
  local spec = { { "kernel_us_sum", "sum", "kernel_us" }, { "outer_calls", "count", where = M.outer_mask(o) } }
  for _, c in ipairs { "kernel_us", "tflops", "tbps" } do
    spec[#spec + 1] = { c .. "_mean", "mean", c }
    spec[#spec + 1] = { c .. "_median", "quantile", c, 0.5 }
    spec[#spec + 1] = { c .. "_min", "min", c }
    spec[#spec + 1] = { c .. "_max", "max", c }
  end
  local st = o:group_by(table.unpack(KEYS)):agg(spec)
  local out = res:with("precision", pc:col("precision"):at(g:agg { { "r", "first_row" } }:col("r")))
  out = out:with("flops", T.from_rows(per, { "flops" }):col("flops")):with("bytes", T.from_rows(per, { "bytes" }):col("bytes"))
  out = out:with("gflops", out:col("flops") / 1e9):with("mib", out:col("bytes") / 1048576)
    :with("intensity", out:col("flops") / out:col("bytes"))
  for _, c in ipairs(st:columns()) do
    if c:match("^kernel_us") or c:match("^tflops") or c:match("^tbps") or c == "outer_calls" then out = out:with(c, st:col(c)) end
  end
  return out, notes, o
end

--- GPU timeline summary (TraceLens's definitions): computation = ∪ of the
-- kernels that are not communication (perflab.comm's kernel rules: nccl,
-- rccl, hccl, gloo, symmetric-memory all-reduce ...) and the
-- memsets; exposed_comm = |comm \ computation|; exposed_memcpy = |memcpy \
-- (computation ∪ comm)|; busy = ∪ of all device work; total = last end −
-- first start; idle = total − busy.  Where the trace has profiler steps
-- (ProfilerStep#N), only the work launched inside them counts (opts.steps
-- = false: all of it).  A table of (type, time_ms, percent of
-- total), or nil where the profile has no device work.  opts.clock as in
-- M.groups.
function M.gpu_timeline(p, opts)
  opts = opts or {}
  local srcs = {}
  local mx, any = nil, false
  -- with profiler steps: the work launched inside them (by the start of
  -- the runtime call of its correlation id), as TraceLens counts it
  local steps, rt = p.tables.steps, p.tables.runtime
  local inside
  if opts.steps ~= false and steps and steps:nrows() > 0 and rt and rt:nrows() > 0 and rt:has("correlation") then
    local sset = I.from_table(steps, "start_ns", "duration_ns", { duration = true })
    local rs = rt:col("start_ns")
    inside = function(t)
      if not t:has("correlation") then return nil end
      local at = rt:col("correlation"):index_of(t:col("correlation"))
      -- the step set is half-open: a call at the step's last instant counts too
      return sset:locate(rs:at(at)):present() | rs:at(at):eq(steps:col("start_ns"):max() + steps:col("duration_ns"):max())
    end
  end
  for _, tn in ipairs { "kernels", "memcpy", "memset" } do
    local t = p.tables[tn]
    if t and t:nrows() > 0 then
      local keep = t:col("start_ns"):present() & t:col("duration_ns"):present()
      local ins = inside and inside(t)
      if ins then keep = keep & ins end
      t = t:filter(keep, { "name", "start_ns", "duration_ns" })
      if t:nrows() > 0 then
        srcs[tn] = t; any = true
        local e = (t:col("start_ns") + t:col("duration_ns")):max() / 1000
        if not mx or e > mx then mx = e end
      end
    end
  end
  if not any then return nil end
  -- times in units of 1/scale ns: exact ns, or the trace's µs floats scaled
  -- to integers (their ulp at the largest time)
  local scale = 1
  if opts.clock == "trace_us" then scale = 2 ^ (52 - math.floor(math.log(mx, 2))) / 1000 end
  local lo, hi
  local function set(t, where)
    local s, e
    if opts.clock == "trace_us" then
      local s_us = t:col("start_ns") / 1000
      s = s_us * (scale * 1000); e = (s_us + t:col("duration_ns") / 1000) * (scale * 1000)
    else
      s = t:col("start_ns"); e = s + t:col("duration_ns")
    end
    local x = t:select("start_ns"):with("s", s):with("e", e)
    local a, b = s:min(), e:max()
    if not lo or a < lo then lo = a end
    if not hi or b > hi then hi = b end
    return I.from_table(x, "s", "e", { where = where })
  end
  local comp, comm, mc = I.empty(), I.empty(), I.empty()
  if srcs.kernels then
    local nm = srcs.kernels:col("name")
    local comm_ = require "perflab.comm"
    local isc = nm:map(function(n) return comm_.is_kernel(n) end):fill(false)
    comp = set(srcs.kernels, ~isc)
    comm = set(srcs.kernels, isc)
  end
  if srcs.memset then comp = comp:union(set(srcs.memset)) end
  if srcs.memcpy then mc = set(srcs.memcpy) end
  local all = comp:union(comm):union(mc)
  local ns = function(x) return x / scale end
  local total = ns(hi - lo)
  local busy = ns(all:length())
  local rows = {
    { "computation_time", ns(comp:length()) },
    { "exposed_comm_time", ns(comm:subtract(comp):length()) },
    { "exposed_memcpy_time", ns(mc:subtract(comp:union(comm)):length()) },
    { "busy_time", busy },
    { "idle_time", total - busy },
    { "total_time", total },
    { "total_comm_time", ns(comm:length()) },
    { "total_memcpy_time", ns(mc:length()) },
  }
  local out = {}
  for i, r in ipairs(rows) do
    out[i] = { type = r[1], time_ms = r[2] / 1e6, percent = total > 0 and r[2] / total * 100 or 0 }
  end
  return T.from_rows(out, { "type", "time_ms", "percent" })
end

---------------------------------------------------------------------------
-- peaks, MFU, roofline time, tensor cores
---------------------------------------------------------------------------

-- an op's canonical dtype -> the key of the peak it runs against
local PEAK_KEY = { bf16 = "bf16", fp16 = "fp16", fp32 = "fp32", fp64 = "fp64", fp8_e4m3 = "fp8", fp8_e5m2 = "fp8",
                   fp4 = "fp4", int8 = "int8", uint8 = "int8" }
M.peak_key = PEAK_KEY
local MATRIX = { GEMM = true, CONV_fwd = true, CONV_bwd = true, SDPA_fwd = true, SDPA_bwd = true }
M.matrix_families = MATRIX

--- The device context (perflab.device.context) and a peak function:
-- peak(precision, family) -> FLOP/s, source text; bw -> bytes/s.  Matrix
-- families (GEMM, conv, attention) run at the precision's tensor/matrix
-- peak; other ops at the vector rate (FP32 for 16-bit dtypes: their math
-- runs in FP32).  opts.peak_tflops / opts.peak_tbps override (--set).
function M.peaks(p, opts)
  opts = opts or {}
  local ctx = require("perflab.device").context(p, opts)
  local model = ctx and ctx.model
  local pk = model and model.peaks or {}
  local bw = model and model.dram_bw_bytes_per_s
  local bw_src = model and (model.id .. " (perflab.gpus)") or nil
  if opts.peak_tbps and opts.peak_tbps > 0 then bw, bw_src = opts.peak_tbps * 1e12, "--set peak_tbps" end
  local function peak(prec, family)
    if opts.peak_tflops and opts.peak_tflops > 0 then return opts.peak_tflops * 1e12, "--set peak_tflops" end
    local key = PEAK_KEY[prec or ""]
    if not key then return nil, "no peak for precision " .. tostring(prec) end
    if family and not MATRIX[family] and (key == "bf16" or key == "fp16" or key == "fp8" or key == "fp4") then key = "fp32" end
    local v = pk[key]
    if not v and not model and ctx and ctx.mixed then
      return nil, string.format("the kernels ran on %d GPU models (%s): no single peak (--gpu NAME or --set peak_tflops picks one)",
        #ctx.mixed, table.concat(ctx.mixed, ", "))
    end
    if not v then return nil, string.format("no %s peak for %s in perflab.gpus", key, model and model.id or "an unknown GPU") end
    return v, string.format("%s dense %s (perflab.gpus)", model.id, key)
  end
  return ctx, peak, bw, bw_src
end

--- A mask of the op rows (the third value of M.groups) that no other
-- modelled op encloses on their thread: the outermost modelled ops.
-- Totals (MFU, families) count these only, so aten::linear over
-- aten::addmm, or aten::convolution over its bias aten::add_, counts once.
-- The engine does it: per thread, the union of the ops' [2s + 1, 2e)
-- (a child starting with its parent joins its block; an op starting where
-- another ends does not) and an op is outermost where its block starts
-- with it.
function M.outer_mask(o)
  local s2 = o:col("start_ns") * 2 + 1
  local e2 = (o:col("start_ns") + o:col("duration_ns")) * 2
  local q = o:select("tid"):with("s2", s2):with("e2", e2):with("row", o:col("start_ns"):present():map({ [true] = 0 }))
  local out = s2:eq(-1)                                   -- all false
  local sets, keys = I.from_table(q, "s2", "e2", { by = "tid" })
  for _, k in ipairs(keys) do                             -- per thread (a few)
    local m = q:col("tid"):eq(k)
    local set = sets[k]
    local at = set:locate(s2:keep(m))
    local starts = set:to_arrays()
    local st = T.from_columns({ s = starts }, { "s" }):col("s")
    out = out | (m & st:at(at):eq(s2))
  end
  -- ops with no thread, or empty ([2s+1, 2e) empty for a zero-length op): outermost
  out = out | ~q:col("tid"):present() | e2:le(s2)
  return out
end

--- TraceLens's "roofline time" per group: compute time at peak (flops /
-- peak) and memory time at peak (bytes / bandwidth); the larger is the
-- roofline time and names the bound.  Adds columns peak_tflops,
-- compute_us, memory_us, roofline_us, bound ("compute" | "memory"),
-- roofline_eff_pct (roofline time / measured kernel time) to groups.
function M.roofline_time(groups, peak, bw)
  local pt, cu, mu, ru, bd, eff = {}, {}, {}, {}, {}, {}
  local n = groups:nrows()
  local prec, fam = groups:col("precision"):to_lua(), groups:col("family"):to_lua()
  local fl, by, ku = groups:col("flops"):to_lua(), groups:col("bytes"):to_lua(), groups:col("kernel_us_mean"):to_lua()
  for i = 1, n do    -- per group (a few hundred), not per call
    local pf = peak(prec[i], fam[i])
    pt[i] = pf and pf / 1e12
    cu[i] = pf and fl[i] and fl[i] / pf * 1e6
    mu[i] = bw and by[i] and by[i] / bw * 1e6
    if cu[i] and mu[i] then
      ru[i] = math.max(cu[i], mu[i]); bd[i] = cu[i] >= mu[i] and "compute" or "memory"
      eff[i] = ku[i] and ku[i] > 0 and 100 * ru[i] / ku[i] or nil
    end
  end
  local len = { __len = function() return n end }
  local function arr(t) return setmetatable(t, len) end
  groups = groups:add_column("peak_tflops", arr(pt), "number"):add_column("compute_us", arr(cu), "number")
  groups = groups:add_column("memory_us", arr(mu), "number"):add_column("roofline_us", arr(ru), "number")
  groups = groups:add_column("bound", arr(bd), "string"):add_column("roofline_eff_pct", arr(eff), "number")
  return groups
end

--- MFU per profiler step and for the whole trace, three ways:
--   wall  model FLOPs / step wall time / peak
--   busy  model FLOPs / union of the step's kernel time / peak
--   user  opts.model_flops (per step, as a framework counts it: 6·N·tokens)
--         / step wall time / peak
-- Model FLOPs = Σ FLOPs of the outermost modelled ops that start in the
-- step; the peak is that of the dominant precision (most FLOPs) for matrix
-- ops.  Returns a table step, wall_ms, busy_ms, gflops, precision,
-- peak_tflops, tflops_wall, mfu_wall_pct, tflops_busy, mfu_busy_pct,
-- mfu_user_pct (a row "all" for the whole trace), or nil, why.
function M.mfu(p, o, peak, opts)
  opts = opts or {}
  if not o or o:nrows() == 0 then return nil, "no modelled operator" end
  local leaf = o:filter(M.outer_mask(o) & o:col("flops"):present())
  if leaf:nrows() == 0 then return nil, "no modelled operator with FLOPs" end
  -- dominant precision by FLOPs (matrix families)
  local byp = leaf:group_by("precision"):agg { { "f", "sum", "flops" } }
  local dom, best = nil, -1
  for _, r in byp:rows() do if r.f > best then dom, best = r.precision, r.f end end
  local pf, psrc = peak(dom, "GEMM")
  local steps = p.tables.steps
  local rows = {}
  local dev = device_work(p)
  local function add(name, lo, dur, fl, busy_ns)
    local r = { step = name, wall_ms = dur / 1e6, busy_ms = busy_ns and busy_ns / 1e6, gflops = fl / 1e9,
                precision = dom, peak_tflops = pf and pf / 1e12 }
    r.tflops_wall = dur > 0 and fl / dur * 1e-3 or nil
    r.tflops_busy = busy_ns and busy_ns > 0 and fl / busy_ns * 1e-3 or nil
    if pf then
      r.mfu_wall_pct = r.tflops_wall and 100 * r.tflops_wall * 1e12 / pf
      r.mfu_busy_pct = r.tflops_busy and 100 * r.tflops_busy * 1e12 / pf
      if opts.model_flops and opts.model_flops > 0 and dur > 0 then
        r.mfu_user_pct = 100 * opts.model_flops / (dur * 1e-9) / pf
      end
    end
    rows[#rows + 1] = r
  end
  local tot_f = leaf:col("flops"):sum()
  if steps and steps:nrows() > 0 then
    local sset = I.from_table(steps, "start_ns", "duration_ns", { duration = true })
    local at = sset:locate(leaf:col("start_ns"))
    local fs = leaf:with("_st", at):group_by("_st"):agg { { "f", "sum", "flops" } }
    local fby = {}
    for _, r in fs:rows() do if r._st then fby[r._st] = r.f end end
    local busy
    if dev then busy = I.enclosed(steps, dev, { point = "rt_start_ns" }) end
    local bl = busy and busy:to_lua() or {}
    -- steps in time order: the set's interval k is the k-th step by start
    local ordl = steps:order("start_ns"):to_lua()
    local ord = steps:take(steps:order("start_ns"))
    local wall, bsum, fsum = 0, 0, 0
    for k, r in ord:rows() do    -- per step (a handful)
      local f = fby[k] or 0
      local b = busy and bl[ordl[k]] or nil
      add(r.name or ("step " .. k), r.start_ns, r.duration_ns, f, b)
      wall = wall + r.duration_ns; bsum = bsum + (b or 0); fsum = fsum + f
    end
    if fsum < tot_f then
      rows.outside = tot_f - fsum
    end
    if #rows > 1 then add("all steps", 0, wall, fsum, busy and bsum or nil) end
  else
    local lo, hi = dev and dev:col("start_ns"):min(), dev and dev:col("end_ns"):max()
    local busy = dev and I.from_table(dev, "start_ns", "end_ns"):length()
    add("whole trace (no steps)", lo or 0, (lo and hi) and (hi - lo) or 0, tot_f, busy)
  end
  local t = T.from_rows(rows, { "step", "wall_ms", "busy_ms", "gflops", "precision", "peak_tflops", "tflops_wall",
    "mfu_wall_pct", "tflops_busy", "mfu_busy_pct", "mfu_user_pct" }, "mfu")
  return t, psrc, rows.outside
end

--- Whether an op group runs on tensor (matrix) cores, from its data: a
-- GEMM, convolution or attention op in BF16/FP16/FP8/FP4 (TF32 where the
-- kernel names say so) on cc >= 7.0 (BF16 >= 8.0, FP8 >= 8.9) or an AMD
-- MFMA GPU (gfx908 and later) does; an FP32 op does not unless TF32 is
-- on; other families do not.  Returns "yes" | "no" | "unknown", and why.
function M.tensor_core(family, prec, ctx)
  if not MATRIX[family] then return "no", "not a matrix op" end
  if not prec or prec == "unknown" then return "unknown", "no dtype recorded" end
  local amd = ctx and ctx.vendor == "amd"
  local cc = ctx and tonumber(ctx.cc)
  if not amd and not cc then return "unknown", ctx and ctx.mixed and "kernels on several GPU models" or "compute capability unknown" end
  local need = ({ fp16 = 7.0, bf16 = 8.0, fp8_e4m3 = 8.9, fp8_e5m2 = 8.9, fp4 = 10.0, int8 = 7.2 })[prec]
  if prec == "fp32" then return "no", "FP32 inputs: FFMA unless TF32 is enabled" end
  if prec == "fp64" then return (cc and cc >= 8.0 and not amd) and "yes" or (amd and "yes" or "no"), "FP64 (DMMA/MFMA F64)" end
  if not need then return "no", "dtype " .. prec end
  if amd then return "yes", prec .. " on AMD matrix cores (MFMA)" end
  return cc >= need and "yes" or "no", string.format("%s on cc %s", prec, tostring(ctx.cc))
end

--- Tensor cores per kernel from data: a boolean column of the kernels
-- table's length, true / false where the launching op (the lowest op,
-- perflab.timeline.launch_link_columns) is a modelled op with a recorded
-- dtype and the device is known (M.tensor_core), missing elsewhere (the
-- caller falls back to kernel names, marked as such); an FP32 matrix op's
-- kernel counts where its name shows a TF32 tensor-core kernel (TF32 on:
-- the dtype cannot say).  Second value: {fp32_matrix_ns, fp32_matrix_tc_ns}
-- (kernel time of FP32 matrix ops, and of it on tensor cores).  nil where
-- no kernel can be decided (no shapes, no links).
function M.kernel_tensor_core(p, ctx)
  local k, ops = p.tables.kernels, p.tables.cpu_ops
  if not (k and k:nrows() > 0 and ops and ops:has("input_types") and ops:has("external_id")) then return nil end
  if ops:col("input_types"):count() == 0 then return nil end
  local id = require("perflab.timeline").launch_link_columns(p)
  if not id or id:count() == 0 then return nil end
  local at = ops:col("external_id"):index_of(id)
  local name, types = ops:col("name"):at(at), ops:col("input_types"):at(at)
  local t = k:select(k:columns()[1]):with("_n", name):with("_t", types):with("_k", k:col("name"))
    :with("_d", k:has("duration_ns") and k:col("duration_ns") or k:col(k:columns()[1]):present():map({ [true] = 0 }))
  local g = t:group_by("_n", "_t", "_k")
  local res = g:agg { { "c", "count" }, { "d", "sum", "_d" } }
  local out = {}
  local f32, f32tc = 0, 0
  for i, r in res:rows() do            -- per (op name, dtype text, kernel name): a few hundred
    local m = r._n and models[r._n]
    local v
    if m and r._t then
      local prec = A.precision(r._t) or "unknown"
      local yn = M.tensor_core(m.family, prec, ctx)
      if yn == "yes" then v = true elseif yn == "no" then v = false end
      -- an FP32 matrix op whose kernel is a TF32 tensor-core kernel (TF32
      -- is on; the trace records it only in the kernel's name)
      if prec == "fp32" and MATRIX[m.family] and yn == "no" then
        f32 = f32 + (r.d or 0)
        if M.tc_by_name(r._k or "") then v = true; f32tc = f32tc + (r.d or 0) end
      end
    end
    out[i] = { tc = v }
  end
  local col = g:broadcast(T.from_rows(out, { "tc" })):col("tc")
  if col:type() ~= "boolean" then return nil end
  return col, { fp32_matrix_ns = f32, fp32_matrix_tc_ns = f32tc }
end

--- The last-resort name rule (marked as such where used): a kernel name
-- saying tensorop, wmma, hmma, imma, gmma, mma.sync, or the list given
-- (`extra`, e.g. the TensorBoard plugin's substrings) is a tensor-core
-- kernel, unless it says ffma or f32f32_f32f32 without tf32 (plain FP32
-- FFMA GEMMs, cuBLAS sm80_xmma_gemm_f32f32_..._ffma).
function M.tc_by_name(name, extra)
  local l = (name or ""):lower()
  if (l:find("ffma", 1, true) or l:find("f32f32_f32f32", 1, true)) and not l:find("tf32", 1, true) then return false end
  for _, pat in ipairs { "tensorop", "wmma", "hmma", "imma", "gmma", "mma_", "_mma", "mma.sync", "tf32" } do
    if l:find(pat, 1, true) then return true end
  end
  for _, pat in ipairs(extra or {}) do if name:find(pat, 1, true) then return true end end
  return false
end

--- Two runs' op groups side by side (A = baseline, B = variant):
-- groups paired by (name, dims, types, strides, concrete inputs) and, per
-- op name, the kernel time summed over the modelled calls.  Returns
-- by_group (name, input_dims, input_types, calls_a, calls_b, kernel_us_a,
-- kernel_us_b, delta_us, delta_pct, tflops_a, tflops_b, status: both |
-- a only | b only), by_name (name, calls_a, calls_b, kernel_ms_a,
-- kernel_ms_b, delta_ms, delta_pct), or nil, why.
function M.diff(pa, pb, opts)
  local ga = M.groups(pa, opts)
  local gb = M.groups(pb, opts)
  if not (ga and gb) then return nil, "both runs need recorded shapes (record_shapes=True)" end
  local function side(g, sfx)
    local t = g:select(table.unpack(KEYS))
    t:with("calls" .. sfx, g:col("calls")):with("kernel_us" .. sfx, g:col("kernel_us_sum")):with("tflops" .. sfx, g:col("tflops_mean"))
    return t
  end
  local a, b = side(ga, "_a"), side(gb, "_b")
  -- an outer join from two left joins: A's groups, then B's groups A lacks
  local ab = a:join(b, { on = KEYS, how = "left" })
  local bonly = b:join(a, { on = KEYS, how = "left" })
  bonly = bonly:filter(~bonly:col("calls_a"):present())
  local cols = { "name", "input_dims", "input_types", "input_strides", "concrete_inputs", "calls_a", "calls_b",
                 "kernel_us_a", "kernel_us_b", "tflops_a", "tflops_b" }
  local all = T.concat(ab:select(table.unpack(cols)), bonly:select(table.unpack(cols)))
  local ka, kb = all:col("kernel_us_a"), all:col("kernel_us_b")
  all = all:with("delta_us", kb - ka):with("delta_pct", (kb - ka) / ka * 100)
  local st = all:col("calls_a"):present():map({ [true] = "both", [false] = "b only" })
  st = st:keep(all:col("calls_b"):present()):fill(all:col("calls_a"):present():map({ [true] = "a only", [false] = "b only" }))
  all = all:with("status", st)
  local na = ga:group_by("name"):agg { { "calls_a", "sum", "calls" }, { "kernel_ms_a", "sum", "kernel_us_sum" } }
  local nb = gb:group_by("name"):agg { { "calls_b", "sum", "calls" }, { "kernel_ms_b", "sum", "kernel_us_sum" } }
  local byn = na:join(nb, { on = { "name" }, how = "left" })
  local nbo = nb:join(na, { on = { "name" }, how = "left" })
  nbo = nbo:filter(~nbo:col("calls_a"):present())
  local ncols = { "name", "calls_a", "calls_b", "kernel_ms_a", "kernel_ms_b" }
  byn = T.concat(byn:select(table.unpack(ncols)), nbo:select(table.unpack(ncols)))
  byn = byn:with("kernel_ms_a", byn:col("kernel_ms_a") / 1000):with("kernel_ms_b", byn:col("kernel_ms_b") / 1000)
  local ma, mb = byn:col("kernel_ms_a"), byn:col("kernel_ms_b")
  byn = byn:with("delta_ms", mb - ma):with("delta_pct", (mb - ma) / ma * 100)
  return all:take(all:order("-delta_us")), byn:take(byn:order("-kernel_ms_a"))
end

return M

--- perflab.ops: FLOPs, bytes and precision per operator of a PyTorch
-- (Kineto) trace recorded with record_shapes=True, from the arguments the
-- trace records ('Input Dims', 'Input type', 'Input Strides', 'Concrete
-- Inputs'; columns input_dims, input_types, input_strides,
-- concrete_inputs of cpu_ops).  Formulas and denominators: docs/ops.md.
--
-- M.models is the op model: name -> {family = ..., fn = function(inp, cx)
-- -> {flops = , bytes = , ...} | nil}, where inp is the array of inputs
-- perflab.opargs.parse gives ({dims, dtype, bytes, strides, value} each)
-- and cx = {name = op name, convention = "tracelens" | nil, concrete =
-- whether the trace records Concrete Inputs}.
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

-- a recorded tensor argument (an absent optional tensor is [] with type "")
local function tensor_arg(t) return t and t.dims and #t.dims > 0 and t.bytes and t.bytes > 0 end
local function bool_arg(t)
  local v = t and t.value
  if v == "True" or v == "true" or v == "1" then return true end
  if v == "False" or v == "false" or v == "0" then return false end
  return nil
end

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
-- _scaled_mm(A, B, scale_a, scale_b, bias, scale_result, out_dtype,
-- use_fast_accum): an FP8 (or INT8) GEMM; 2·M·N·K (+ M·N with a bias);
-- bytes A and B at their dtype, C at out_dtype (a ScalarType code: 5
-- Half, 6 Float, 15 BFloat16, 23/24 Float8; not recorded: A's dtype)
local SCALAR_TYPE_BYTES = { [5] = 2, [6] = 4, [7] = 8, [15] = 2, [23] = 1, [24] = 1, [25] = 1, [26] = 1 }
models["aten::_scaled_mm"] = { family = "GEMM", fn = function(i)
  local a, b = i[1], i[2]
  if not (a and b and a.dims and b.dims and #a.dims == 2 and #b.dims == 2) then return nil end
  local M_, K, N = a.dims[1], a.dims[2], b.dims[2]
  local bias = i[5] and i[5].dims and #i[5].dims > 0 and i[5].bytes and i[5].bytes > 0
  local ob = SCALAR_TYPE_BYTES[tonumber(i[7] and i[7].value or "")] or a.bytes
  return { flops = 2 * M_ * N * K + (bias and M_ * N or 0),
           bytes = M_ * K * a.bytes + K * N * b.bytes + M_ * N * ob + (bias and tbytes(i[5]) or 0),
           M = M_, N = N, K = K, B = 1, bias = bias }
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

-- Attention (FlashAttention's counting, as TraceLens): QKᵀ and PV,
-- 2·B·H_Q·N_Q·N_KV·d each; causal (N_Q = N_KV) halves it; causal with
-- N_Q ≠ N_KV has no figure (the mask's alignment is not recorded).
-- Bytes: Q, K, V read and O written once.
-- Backward: the fused kernels keep no N_Q×N_KV matrix, so they recompute
-- QKᵀ, then dV = PᵀdO, dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀQ: five matmuls,
-- 2·B·H_Q·N_Q·N_KV·(3·d_qk + 2·d_v), plus B·N_KV·d·(H_Q/H_KV − 1) each for
-- dK and dV to sum the query heads of a GQA group; causal halves it.
-- Bytes: Q, K, V, dO read, dQ, dK, dV written once.  layout "bhnd" (the
-- SDPA ops) or "bnhd" (_flash_attention_*, _efficient_attention_*).
local function attention(q, k, v, causal, layout, backward)
  if not (q and k and v and q.dims and k.dims and v.dims and #q.dims == 4 and #k.dims == 4
      and #v.dims == 4) then return nil end
  if causal == nil then return nil end
  local B, H, NQ, d, NKV, HKV, dv
  if layout == "bnhd" then B, NQ, H, d = q.dims[1], q.dims[2], q.dims[3], q.dims[4]; NKV, HKV, dv = k.dims[2],
      k.dims[3], v.dims[4]
  else B, H, NQ, d = q.dims[1], q.dims[2], q.dims[3], q.dims[4]; NKV, HKV, dv = k.dims[3], k.dims[2], v.dims[4] end
  if causal and NQ ~= NKV then return nil end
  local o = B * H * NQ * dv * q.bytes
  local f, by
  if backward then
    local gqa = (HKV and HKV > 0) and (H // HKV - 1) or 0
    f = 2 * B * H * NQ * NKV * (3 * d + 2 * dv) + B * NKV * (d + dv) * gqa
    by = 2 * (tbytes(q) + tbytes(k) + tbytes(v)) + o
  else
    f = 2 * B * H * NQ * NKV * d + 2 * B * H * NQ * NKV * dv
    by = tbytes(q) + tbytes(k) + tbytes(v) + o
  end
  if causal then f = f / 2 end
  return { flops = f, bytes = by, B = B, H = H, H_KV = HKV, N_Q = NQ, N_KV = NKV, d = d, causal = causal }
end
-- the is_causal argument at position ci (a bool), or custom_mask_type (an
-- int: 0 none, else causal) where mask is set
local function causal_at(i, ci, mask)
  local t = i[ci]
  if mask then
    local n = t and tonumber(t.value)
    if n == nil then return nil end
    return n ~= 0
  end
  return bool_arg(t)
end
local function attn_model(fam, qi, ci, layout, mask)
  return { family = fam, fn = function(i)
    return attention(i[qi], i[qi + 1], i[qi + 2], causal_at(i, ci, mask), layout, fam == "SDPA_bwd")
  end }
end
-- argument positions from PyTorch's native_functions.yaml (1-based)
models["aten::_scaled_dot_product_flash_attention"] = attn_model("SDPA_fwd", 1, 5, "bhnd")
models["aten::_scaled_dot_product_efficient_attention"] = attn_model("SDPA_fwd", 1, 7, "bhnd")
models["aten::_scaled_dot_product_cudnn_attention"] = attn_model("SDPA_fwd", 1, 7, "bhnd")
models["aten::_flash_attention_forward"] = attn_model("SDPA_fwd", 1, 9, "bnhd")
models["aten::_efficient_attention_forward"] = attn_model("SDPA_fwd", 1, 10, "bnhd", true)
models["aten::_scaled_dot_product_flash_attention_backward"] = attn_model("SDPA_bwd", 2, 12, "bhnd")
models["aten::_scaled_dot_product_efficient_attention_backward"] = attn_model("SDPA_bwd", 2, 12, "bhnd")
models["aten::_scaled_dot_product_cudnn_attention_backward"] = attn_model("SDPA_bwd", 2, 15, "bhnd")
models["aten::_flash_attention_backward"] = attn_model("SDPA_bwd", 2, 12, "bnhd")
models["aten::_efficient_attention_backward"] = attn_model("SDPA_bwd", 2, 15, "bnhd", true)

-- Convolution (TraceLens's counting): 2·Π(weight[1:])·Π(output) (each
-- output element is a dot product of C_in/groups·Πkernel pairs); a
-- transposed convolution 2·Π(weight[1:])·Π(input).  The bias add is not
-- counted.  Bytes: input, weight, output once.  aten::convolution(input,
-- weight, bias, stride, padding, dilation, transposed, output_padding,
-- groups).
local function ints_of(v)
  local out = {}
  for x in tostring(v or ""):gmatch("%-?%d+") do out[#out + 1] = tonumber(x) end
  return out
end
local function bools_of(v)
  local out = {}
  for x in tostring(v or ""):gmatch("%a+") do out[#out + 1] = (x == "True" or x == "true") end
  return out
end
-- x input, w weight, the concrete stride .. groups inputs at st, pad, dil,
-- tr, opad, grp; returns flops (no bias), output dims, or nil
local function conv_shape(x, w, st, pad, dil, tr, opad, grp)
  if not (x and w and x.dims and w.dims and #x.dims >= 3 and #w.dims == #x.dims) then return nil end
  local nd = #x.dims - 2
  st, pad, dil, opad = ints_of(st), ints_of(pad), ints_of(dil), ints_of(opad)
  local transposed = tr == "True" or tr == "true"
  local g = tonumber(grp) or 1
  local out = { x.dims[1], transposed and w.dims[2] * g or w.dims[1] }
  for k = 1, nd do
    local s, p, d = st[k] or st[1] or 1, pad[k] or pad[1] or 0, dil[k] or dil[1] or 1
    local ks = w.dims[k + 2]
    if transposed then
      out[#out + 1] = (x.dims[k + 2] - 1) * s - 2 * p + d * (ks - 1) + (opad[k] or opad[1] or 0) + 1
    else
      out[#out + 1] = (x.dims[k + 2] + 2 * p - d * (ks - 1) - 1) // s + 1
    end
  end
  local wf = 1
  for k = 2, #w.dims do wf = wf * w.dims[k] end
  return 2 * wf * (transposed and numel(x.dims) or numel(out)), out
end
models["aten::convolution"] = { family = "CONV_fwd", fn = function(i)
  local v = function(k) return i[k] and i[k].value end
  local x, w = i[1], i[2]
  local f, out = conv_shape(x, w, v(4), v(5), v(6), v(7), v(8), v(9))
  if not f then return nil end
  return { flops = f, bytes = tbytes(x) + tbytes(w) + numel(out) * x.bytes, output = out }
end }
-- convolution_backward(grad_output, input, weight, bias_sizes, stride,
-- padding, dilation, transposed, output_padding, groups, output_mask):
-- the input gradient and the weight gradient each cost the forward's
-- FLOPs and read/write grad_output, input (or its gradient) and weight
-- once; the bias gradient sums grad_output (Π(grad_output) FLOPs, reads
-- it, writes C_out).  Each counts where output_mask asks for it; without
-- a recorded mask, both gradients (TraceLens's convention) and the bias
-- where bias_sizes is non-zero.
models["aten::convolution_backward"] = { family = "CONV_bwd", fn = function(i)
  local v = function(k) return i[k] and i[k].value end
  local go, x, w = i[1], i[2], i[3]
  local f, out = conv_shape(x, w, v(5), v(6), v(7), v(8), v(9), v(10))
  if not f then return nil end
  if go and go.dims and #go.dims == #out then out = go.dims end
  local mask = bools_of(v(11))
  local bs = ints_of(v(4))
  local gi, gw, gb
  if #mask >= 3 then gi, gw, gb = mask[1], mask[2], mask[3]
  else gi, gw, gb = true, true, #bs > 0 and bs[1] > 0 end
  local no, bpe = numel(out), x.bytes
  local flops, bytes = 0, 0
  local rw = (no + numel(x.dims) + numel(w.dims)) * bpe
  if gi then flops = flops + f; bytes = bytes + rw end
  if gw then flops = flops + f; bytes = bytes + rw end
  if gb then flops = flops + no; bytes = bytes + (no + out[2]) * bpe end
  return { flops = flops, bytes = bytes, output = out, grad_input = gi, grad_weight = gw, grad_bias = gb }
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


-- Normalisation (TraceLens's counting, from its definition of batch
-- normalisation: per-channel parameters, then a multiply-add per element).
-- N elements, C channels (the normalised size):
--   FLOPs = 3·C (1/std·mean, ·alpha, bias − ) + 3·C (1/sqrt(var + eps))
--           + 3·N (mean and variance, where the op computes statistics)
--           + 2·N (x·alpha + beta)
--   bytes = N·bpe (input) + N·bpe (output) + W·C·bpe, W = 2 (mean, var)
--           + 1 with a weight + 1 with weight and bias + 2 where the op
--           computes statistics (writes mean and var)
-- spec: C = "normalized_shape" (layer norm: Π of input 2, else the weight's
-- dims) or "dim1" (batch, group, instance: the input's dim 1); weight,
-- bias: input positions; training: true, false, or the position of the
-- bool argument (batch norm's training, instance norm's use_input_stats).
local function norm_generic(spec)
  return function(i)
    local x = i[1]
    if not tensor_arg(x) then return nil end
    local N = numel(x.dims)
    local w, b = spec.weight and i[spec.weight], spec.bias and i[spec.bias]
    local affine, bias = tensor_arg(w), tensor_arg(b)
    local C
    if spec.channels == "dim1" then C = x.dims[2]
    else
      local ns = ints_of(i[2] and i[2].value)
      if #ns > 0 then C = numel(ns) elseif affine then C = numel(w.dims) end
    end
    if not C or C <= 0 then return nil end
    local training = spec.training
    if type(training) == "number" then training = bool_arg(i[training]) end
    if training == nil then return nil end           -- not recorded: no guess
    local f = 3 * C + 3 * C + 2 * N + (training and 3 * N or 0)
    local W = 2 + (affine and 1 or 0) + (affine and bias and 1 or 0) + (training and 2 or 0)
    return { flops = f, bytes = 2 * N * x.bytes + W * C * x.bytes, channels = C, training = training,
             affine = affine, bias = bias }
  end
end
-- RMS norm: per row (N/C rows) 2·C + 2 (square, sum, mean, rsqrt), then
-- N (scale) + N with a weight; bytes input, output, weight once.
local function rms_norm(i)
  local x, w = i[1], i[3]
  if not tensor_arg(x) then return nil end
  local N = numel(x.dims)
  local affine = tensor_arg(w)
  local ns = ints_of(i[2] and i[2].value)
  local C = #ns > 0 and numel(ns) or (affine and numel(w.dims)) or nil
  if not C or C <= 0 then return nil end
  return { flops = N / C * (2 * C + 2) + N * (affine and 2 or 1),
           bytes = 2 * N * x.bytes + (affine and C * x.bytes or 0), channels = C, affine = affine }
end
for _, n in ipairs { "layer_norm", "native_layer_norm", "cudnn_layer_norm", "miopen_layer_norm" } do
  models["aten::" .. n] = { family = "NORM_fwd", fn = norm_generic { channels = "normalized_shape", weight = 3,
      bias = 4, training = true } }
end
for _, n in ipairs { "batch_norm", "native_batch_norm", "cudnn_batch_norm", "miopen_batch_norm",
    "_native_batch_norm_legit" } do
  models["aten::" .. n] = { family = "NORM_fwd", fn = norm_generic { channels = "dim1", weight = 2, bias = 3,
      training = 6 } }
end
models["aten::_native_batch_norm_legit_no_training"] = { family = "NORM_fwd",
  fn = norm_generic { channels = "dim1", weight = 2, bias = 3, training = false } }
models["aten::group_norm"] = { family = "NORM_fwd", fn = norm_generic { channels = "dim1", weight = 3, bias = 4,
    training = true } }
models["aten::native_group_norm"] = { family = "NORM_fwd", fn = norm_generic { channels = "dim1", weight = 2, bias = 3,
    training = true } }
models["aten::instance_norm"] = { family = "NORM_fwd", fn = norm_generic { channels = "dim1", weight = 2, bias = 3,
    training = 6 } }
models["aten::rms_norm"] = { family = "NORM_fwd", fn = rms_norm }
models["aten::_fused_rms_norm"] = { family = "NORM_fwd", fn = rms_norm }
-- softmax (perflab's own; TraceLens has no sheet for it): max, subtract,
-- exp, sum, divide: 5 per element; input and output once
local function softmax(i)
  local x = i[1]
  if not tensor_arg(x) then return nil end
  local n = numel(x.dims)
  return { flops = 5 * n, bytes = 2 * n * x.bytes }
end
models["aten::_softmax"] = { family = "NORM_fwd", fn = softmax }
models["aten::softmax"] = { family = "NORM_fwd", fn = softmax }

-- Reductions: one FLOP per input element; bytes: the input and the output
-- once.  The output has the input's elements less the reduced dims (the
-- dim argument's concrete value; none given: one element; cumsum and
-- cumprod keep every element).  Where the trace has no concrete inputs
-- the output cannot be told: no figure.  cx.convention == "tracelens":
-- the output is one element whatever the dims (TraceLens does not read
-- the dims from the trace's text; docs/ops.md).
local function reduce_at(dim_at, keep_all)
  return function(i, cx)
    local x = i[1]
    if not (x and x.dims and x.bytes and x.bytes > 0) then return nil end
    local n = numel(x.dims)
    local out
    if keep_all then out = n
    elseif cx and cx.convention == "tracelens" then out = 1
    else
      local d = i[dim_at]
      if d and d.value then
        out = n
        local seen = {}
        for _, k in ipairs(ints_of(d.value)) do
          local j = k < 0 and #x.dims + k + 1 or k + 1
          if x.dims[j] and not seen[j] then
            seen[j] = true
            out = x.dims[j] > 0 and out // x.dims[j] or 0
          end
        end
      elseif not d or (cx and cx.concrete) then out = 1    -- no dim argument, or dim=None: all
      else return nil end                                   -- dims not recorded
    end
    return { flops = n, bytes = n * x.bytes + out * x.bytes, out_elems = out }
  end
end
for _, n in ipairs { "sum", "mean", "amax", "amin", "prod", "all", "any", "std", "var", "logsumexp" } do
  models["aten::" .. n] = { family = "Reduce_fwd", fn = reduce_at(2) }
end
for _, n in ipairs { "norm", "linalg_norm", "linalg_vector_norm" } do
  models["aten::" .. n] = { family = "Reduce_fwd", fn = reduce_at(3) }
end
for _, n in ipairs { "cumsum", "cumprod" } do
  models["aten::" .. n] = { family = "Reduce_fwd", fn = reduce_at(2, true) }
end
-- max / min: a reduction (max(x), max(x, dim, keepdim)) or, with a second
-- tensor, the elementwise max of two tensors
for _, n in ipairs { "max", "min" } do
  local red = reduce_at(2)
  models["aten::" .. n] = { family = "Reduce_fwd", fn = function(i, cx)
    if tensor_arg(i[2]) then return nil end
    return red(i, cx)
  end }
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
-- it; the default is exact nanoseconds.  opts.convention = "tracelens":
-- TraceLens's counting where it departs from the definition (a reduction's
-- output is one element; docs/ops.md).  opts.work_only: only the calls
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
    if inp then ok, v = pcall(m.fn, inp, { name = r.name, convention = opts.convention,
        concrete = r.concrete_inputs ~= nil }) end
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
  out = out:with("flops", T.from_rows(per, { "flops" }):col("flops")):with("bytes",
      T.from_rows(per, { "bytes" }):col("bytes"))
  out = out:with("gflops", out:col("flops") / 1e9):with("mib", out:col("bytes") / 1048576)
    :with("intensity", out:col("flops") / out:col("bytes"))
  for _, c in ipairs(st:columns()) do
    if c:match("^kernel_us") or c:match("^tflops") or c:match("^tbps")
        or c == "outer_calls" then out = out:with(c, st:col(c)) end
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
    if family and not MATRIX[family] and (key == "bf16" or key == "fp16" or key == "fp8"
        or key == "fp4") then key = "fp32" end
    local v = pk[key]
    if not v and not model and ctx and ctx.mixed then
      return nil,
          string.format("the kernels ran on %d GPU models (%s): no single peak (--gpu NAME or --set peak_tflops picks one)",
        #ctx.mixed, table.concat(ctx.mixed, ", "))
    end
    if not v then return nil, string.format("no %s peak for %s in perflab.gpus", key,
        model and model.id or "an unknown GPU") end
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
  -- ops that start together (aten::linear and its aten::mm at the same
  -- µs): the longest holds the others; one of them is outermost
  local row = o:col("start_ns"):present():map({ [true] = 1 }):cumsum()
  local c = o:select("start_ns"):with("tid", q:col("tid")):with("_d", e2 - s2):with("_row", row):filter(out)
  if c:nrows() > 1 then
    c = c:take(c:order("tid", "start_ns", "-_d", "_row"))
    local keep = c:group_by("tid", "start_ns"):agg { { "r", "first", "_row" } }
    if keep:nrows() < c:nrows() then out = out & row:isin(keep:col("r")) end
  end
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
-- ops.  opts.windows: a table (name, start_ns, duration_ns) of windows to
-- use instead of the profiler steps (user annotations), opts.window_label
-- their name.  Returns a table step, window (what the wall time spans),
-- wall_ms, busy_ms, gflops, precision,
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
  local steps = opts.windows or p.tables.steps
  local wlabel = opts.windows and ("annotation " .. (opts.window_label or "window") .. " (CPU span)")
    or "ProfilerStep (CPU span)"
  local rows = {}
  local dev = device_work(p)
  local function add(name, lo, dur, fl, busy_ns, window)
    local r = { step = name, window = window, wall_ms = dur / 1e6, busy_ms = busy_ns and busy_ns / 1e6,
        gflops = fl / 1e9,
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
    -- [2s, 2e - 1): back-to-back steps stay apart (a union would merge them)
    local st0 = steps:col("start_ns")
    local q = steps:select("start_ns"):with("s2", st0 * 2):with("e2", (st0 + steps:col("duration_ns")) * 2 - 1)
    local sset = I.from_table(q, "s2", "e2")
    local at = sset:locate(leaf:col("start_ns") * 2)
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
      add(r.name or ("step " .. k), r.start_ns, r.duration_ns, f, b, wlabel)
      wall = wall + r.duration_ns; bsum = bsum + (b or 0); fsum = fsum + f
    end
    if fsum < tot_f then
      rows.outside = tot_f - fsum
    end
    if #rows > 1 then add(opts.windows and "all windows" or "all steps", 0, wall, fsum, busy and bsum or nil,
        "the sum of the rows above") end
  else
    local lo, hi = dev and dev:col("start_ns"):min(), dev and dev:col("end_ns"):max()
    local busy = dev and I.from_table(dev, "start_ns", "end_ns"):length()
    add("whole trace (no steps)", lo or 0, (lo and hi) and (hi - lo) or 0, tot_f, busy,
      "whole trace: the device span, first device op's start to the last one's end (no ProfilerStep annotation)")
  end
  local t = T.from_rows(rows, { "step", "window", "wall_ms", "busy_ms", "gflops", "precision", "peak_tflops",
      "tflops_wall",
    "mfu_wall_pct", "tflops_busy", "mfu_busy_pct", "mfu_user_pct" }, "mfu")
  return t, psrc, rows.outside
end

--- The windows of the user annotations (record_function, cat
-- user_annotation) named name, in time order, as a table name ("NAME #k"),
-- start_ns, duration_ns; from p.tables.events, else the file read again
-- for its events only.  nil, why where there are none.
function M.annotation_windows(p, name)
  local ev = p.tables.events
  if not ev and p.source then
    local ok, q = pcall(require("perflab.profile").load, p.source, { tables = { "events" } })
    ev = ok and q.tables.events or nil
  end
  if not (ev and ev:has("name") and ev:has("ts_ns") and ev:has("dur_ns")) then
    return nil, "the input has no trace events to find annotations in"
  end
  local m = ev:col("name"):eq(name) & ev:col("dur_ns"):present()
  if ev:has("cat") then m = m & ev:col("cat"):eq("user_annotation") end
  local w = ev:filter(m, { "ts_ns", "dur_ns" })
  if w:nrows() == 0 then return nil, string.format("no user annotation named '%s'", name) end
  w = w:take(w:order("ts_ns"))
  local names = {}
  for k = 1, w:nrows() do names[k] = name .. " #" .. k end    -- per window (few)
  local t = T.from_columns({ name = names }, { "name" })
  return t:with("start_ns", w:col("ts_ns")):with("duration_ns", w:col("dur_ns"))
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
  if not amd and not cc then return "unknown", ctx and ctx.mixed and "kernels on several GPU models"
      or "compute capability unknown" end
  local need = ({ fp16 = 7.0, bf16 = 8.0, fp8_e4m3 = 8.9, fp8_e5m2 = 8.9, fp4 = 10.0, int8 = 7.2 })[prec]
  if prec == "fp32" then return "no", "FP32 inputs: FFMA unless TF32 is enabled" end
  if prec == "fp64" then return (cc and cc >= 8.0 and not amd) and "yes" or (amd and "yes" or "no"),
      "FP64 (DMMA/MFMA F64)" end
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
-- no kernel can be decided (no shapes, no links).  Third value: the
-- launching modelled op's precision per kernel (missing elsewhere).
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
    out[i] = { tc = v, prec = (m and r._t) and (A.precision(r._t) or "unknown") or nil }
  end
  local b = g:broadcast(T.from_rows(out, { "tc", "prec" }))
  local col = b:col("tc")
  if col:type() ~= "boolean" then return nil end
  return col, { fp32_matrix_ns = f32, fp32_matrix_tc_ns = f32tc }, b:col("prec")
end

--- Nsight Compute's tensor-pipe metrics per profiled launch, where the
-- input records them (table metrics: kernel_id, metric, value):
--   sm__pipe_tensor_*_cycles_active, sm__inst_executed_pipe_tensor*:
--     the tensor pipe was used (> 0) or not (all 0);
--   sm__ops_path_tensor_src_<T>[_dst_<U>][_sparsity_*].sum: math ops on
--     the tensor path by source type T: their sum is the launch's tensor
--     FLOPs (ncu's tensor roofline counts these ops), the T with most ops
--     its tensor precision (fp16, bf16, tf32, fp8, int8, int4, fp64, fp4).
-- Returns a table kernel_id, tensor_used (boolean), tensor_ops (number,
-- missing without ops_path counters), tensor_precision (string, missing
-- where no ops were counted), or nil where no launch has such a metric:
-- then tensor-core use is unknown (never read from the name here).
local TC_SRC = { fp16 = "fp16", bf16 = "bf16", tf32 = "tf32", fp8 = "fp8", e4m3 = "fp8", e5m2 = "fp8", int8 = "int8",
                 int4 = "int4", int1 = "int1", fp64 = "fp64", fp4 = "fp4", fp6 = "fp6" }
M.ncu_tensor_sources = TC_SRC
local function tc_metric(m)
  return m:find("^sm__pipe_tensor") or m:find("^sm__inst_executed_pipe_tensor")
      or m:find("^smsp__inst_executed_pipe_tensor")
    or m:find("^sm__ops_path_tensor")
end
function M.ncu_tensor(p)
  local t = p.tables.metrics
  if not (t and t:has("kernel_id") and t:has("metric") and t:has("value")) then return nil end
  local ismetric = t:col("metric"):map(function(m) return tc_metric(m) ~= nil end):fill(false)
  t = t:filter(ismetric & t:col("kernel_id"):present() & t:col("value"):present(), { "kernel_id", "metric", "value" })
  if t:nrows() == 0 then return nil end
  local used = t:group_by("kernel_id"):agg { { "n", "count" }, { "pos", "count", where = t:col("value"):gt(0) } }
  used = used:with("tensor_used", used:col("pos"):gt(0)):select("kernel_id", "tensor_used")
  -- ops counters (.sum, or the bare name) by source type; the
  -- _sparsity_off/_on parts where the total was not collected
  local function src_of(sparse)
    return function(m)
      local tt = m:match("^sm__ops_path_tensor_src_(%w+)")
      if not tt then return nil end
      local rest = m:match("^sm__ops_path_tensor_src_[%w_]-(%.[%w_.]+)$") or ""
      if rest ~= "" and rest ~= ".sum" then return nil end
      if (m:find("_sparsity_", 1, true) ~= nil) ~= sparse then return nil end
      return TC_SRC[tt] or tt
    end
  end
  local function by_src(sparse)
    local sc = t:col("metric"):map(src_of(sparse))
    local x = t:with("src", sc):filter(sc:present())
    if x:nrows() == 0 then return nil end
    return x:group_by("kernel_id", "src"):agg { { "ops", "sum", "value" } }
  end
  local bys, sp = by_src(false), by_src(true)
  if sp and bys then
    local j = sp:join(bys:with("_have", bys:col("ops")):select("kernel_id", "src", "_have"),
        { on = { "kernel_id", "src" }, how = "left" })
    j = j:filter(~j:col("_have"):present()):select("kernel_id", "src", "ops")
    if j:nrows() > 0 then bys = T.concat(bys, j) end
  end
  bys = bys or sp
  if bys then
    local tot = bys:group_by("kernel_id"):agg { { "tensor_ops", "sum", "ops" } }
    local top = bys:filter(bys:col("ops"):gt(0))
    top = top:take(top:order("kernel_id", "-ops")):group_by("kernel_id"):agg { { "tensor_precision", "first", "src" } }
    local at = tot:col("kernel_id"):index_of(used:col("kernel_id"))
    used = used:with("tensor_ops", tot:col("tensor_ops"):at(at))
    local at2 = top:col("kernel_id"):index_of(used:col("kernel_id"))
    used = used:with("tensor_precision", top:col("tensor_precision"):at(at2))
    -- ops counted: the pipe was used exactly where they are > 0
    local o = used:col("tensor_ops")
    used = used:with("tensor_used", o:gt(0):keep(o:present()):fill(used:col("tensor_used")))
  end
  return used
end

local LOW = { bf16 = true, fp16 = true, fp8_e4m3 = true, fp8_e5m2 = true, fp4 = true, int8 = true, uint8 = true }
M.low_precisions = LOW

--- Precision advice from the recorded dtypes of the outermost matrix ops
-- (GEMM, convolution, attention) of op groups (M.groups): where FP32 ones
-- take more than half their kernel time and their kernels are not TF32
-- tensor-core kernels already, advise TF32 or BF16 autocast (NVIDIA cc >=
-- 8.0), FP16 autocast (cc 7.x), BF16 autocast (AMD with BF16 matrix
-- peaks), with the gain at the same share of peak for the compute-bound
-- ones.  A workload whose matrix time is mostly BF16, FP16, FP8 or FP4
-- never gets it (a note says so).  Emits on report; returns the verdict
-- ("advised", "low_precision", "tf32_on", "fp32_minor", "unknown", or nil
-- without matrix ops).  groups need the bound column (M.roofline_time) for
-- the gain; without it the whole FP32 time counts.
function M.precision_advice(p, groups, ctx, report)
  local src = p.source or "input"
  local fam = groups:col("family")
  local mx = groups:filter(fam:isin { "GEMM", "CONV_fwd", "CONV_bwd", "SDPA_fwd", "SDPA_bwd" }
    & groups:col("outer_calls"):gt(0) & groups:col("kernel_us_sum"):present())
  if mx:nrows() == 0 then return nil end
  local all_us = mx:col("kernel_us_sum"):sum()
  if not all_us or all_us <= 0 then return nil end
  local byp = mx:group_by("precision"):agg { { "us", "sum", "kernel_us_sum" } }
  local shares, low_us = {}, 0
  for _, r in byp:sort_by("-us"):rows() do
    shares[#shares + 1] = string.format("%s %.1f %%", r.precision, 100 * r.us / all_us)
    if LOW[r.precision] then low_us = low_us + r.us end
  end
  local mix = table.concat(shares, ", ")
  local f32 = mx:col("precision"):eq("fp32")
  local f32_us = mx:col("kernel_us_sum"):sum { where = f32 } or 0
  if low_us / all_us > 0.5 then
    report:note(string.format("%s: no mixed-precision advice: the matrix operators' kernel time is %s by their "
      .. "recorded dtypes (Input type), already low precision", src, mix))
    return "low_precision"
  end
  if f32_us / all_us <= 0.5 then
    report:note(string.format("%s: no precision advice: FP32 matrix operators take %.1f %% of matrix kernel time (%s)",
      src, 100 * f32_us / all_us, mix))
    return "fp32_minor"
  end
  local pk = ctx and ctx.model and ctx.model.peaks or {}
  local cc = ctx and tonumber(ctx.cc)
  local amd = ctx and ctx.vendor == "amd"
  local target, key, how
  if amd then target, key, how = "BF16", "bf16",
      "train or infer in BF16 autocast (torch.autocast(dtype=torch.bfloat16)) for the MFMA matrix cores"
  elseif cc and cc >= 8.0 then target, key, how = "TF32", "tf32",
      "set torch.backends.cuda.matmul.allow_tf32 = True (and "
    .. "torch.backends.cudnn.allow_tf32), or use BF16 autocast"
  elseif cc and cc >= 7.0 then target, key, how = "FP16", "fp16",
      "use FP16 autocast (torch.autocast(dtype=torch.float16)) "
    .. "with a GradScaler: cc 7.x tensor cores take FP16, not TF32 or BF16"
  end
  if not target or not pk.fp32 or not pk[key] then
    report:note(string.format("%s: FP32 matrix operators take %.1f %% of matrix kernel time, but whether tensor/matrix "
      .. "cores would take them is unknown: %s", src, 100 * f32_us / all_us,
      not (ctx and (ctx.cc or amd)) and "the input names no GPU (no compute capability)" or
      (not target and ("compute capability " .. tostring(ctx.cc) .. " has no tensor cores"))
      or not (ctx and ctx.model) and "the GPU model is not known (pass --gpu NAME)"
      or "perflab.gpus has no FP32 or " .. tostring(key) .. " peak for this GPU"))
    return "unknown"
  end
  if key == "tf32" then
    local _, tf = M.kernel_tensor_core(p, ctx)
    if tf and tf.fp32_matrix_ns > 0 and tf.fp32_matrix_tc_ns / tf.fp32_matrix_ns > 0.5 then
      report:note(string.format("%s: FP32 matrix operators run TF32 tensor-core kernels for %.0f %% of their kernel time "
        .. "(from the kernel names: TF32 is on): no TF32 advice", src, 100 * tf.fp32_matrix_tc_ns / tf.fp32_matrix_ns))
      return "tf32_on"
    end
  end
  local cb = f32
  if mx:has("bound") then cb = f32 & mx:col("bound"):eq("compute") end
  local cb_us = mx:col("kernel_us_sum"):sum { where = cb } or 0
  local gain = cb_us * (1 - pk.fp32 / pk[key])
  report:finding { severity = "opt", rule = key == "tf32" and "ops.tf32" or "ops.amp",
      subject = "FP32 matrix operators",
    message = string.format("FP32 GEMM/conv/attention operators take %.0f %% of matrix-op kernel time (%s) on %s, "
      .. "whose %s tensor/matrix rate is %.0fx its FP32 rate: %s; at the same share of peak the compute-bound ones "
      .. "would save about %.3g ms of %.3g ms", 100 * f32_us / all_us, mix,
      amd and (ctx.model.name or ctx.model.id) or ("a cc " .. tostring(ctx.cc) .. " GPU"), target,
      pk[key] / pk.fp32, how, gain / 1000, f32_us / 1000),
    evidence = { fp32_matrix_us = f32_us, matrix_us = all_us, compute_bound_fp32_us = cb_us, target = target,
                 fp32_peak = pk.fp32, target_peak = pk[key], tf32_peak = pk.tf32, est_gain_us = gain,
                 formula = "gain = compute-bound FP32 matrix time x (1 - FP32 peak / " .. target .. " peak)",
                 basis = "op dtypes recorded by the trace (Input type)", source = p.source } }
  return "advised"
end

--- The op model's verdicts on one profile, for the advice recipe:
-- tensor-core share and precision of the kernel time from what the input
-- records (ncu tensor-pipe counters; the launching operators' recorded
-- dtypes and the device), then M.precision_advice.  Where the input
-- cannot tell, a note says "unknown" and why; kernel names are never
-- read as facts here.  Findings: advice.tensor_cores (info).
function M.advise(p, report, opts)
  local src = p.source or "input"
  local k = p.tables.kernels
  if not (k and k:nrows() > 0) then return end
  local d = k:has("duration_ns") and k:col("duration_ns"):fill(0) or k:col(k:columns()[1]):present():map({ [true] = 1 })
  local total = d:sum() or 0
  if total <= 0 then return end
  local function pct(x) return 100 * (x or 0) / total end
  local function mix(by)                       -- "bf16 80.0 %, fp32 20.0 %" of kernel time
    local t = k:select(k:columns()[1]):with("_p", by:fill("unknown")):with("_d", d)
    local parts = {}
    for _, r in t:group_by("_p"):agg({ { "ns", "sum", "_d" } }):sort_by("-ns"):rows() do
      parts[#parts + 1] = string.format("%s %.1f %%", r._p, pct(r.ns))
    end
    return table.concat(parts, ", ")
  end
  local function share(used, basis, why_unknown, precision)
    local yes = d:sum { where = used:eq(true) } or 0
    local no = d:sum { where = used:eq(false) } or 0
    local unk = total - yes - no
    local msg = string.format("%.1f %% of the kernel time ran on tensor/matrix cores, %.1f %% did not", pct(yes),
        pct(no))
    if unk > 0 then msg = msg .. string.format(", %.1f %% unknown (%s)", pct(unk), why_unknown) end
    msg = msg .. " (" .. basis .. ")"
    if precision then msg = msg .. "; kernel time by precision: " .. mix(precision) end
    report:finding { severity = "info", rule = "advice.tensor_cores", subject = src, message = msg,
      evidence = { tensor_core_pct = pct(yes), not_tensor_core_pct = pct(no), unknown_pct = pct(unk), basis = basis,
                   source = p.source } }
  end
  if (p.format or ""):match("^ncu") then
    local nt = M.ncu_tensor(p)
    if not nt then
      report:note(string.format("%s: tensor-core use and precision unknown: ncu recorded no tensor-pipe metric "
        .. "(sm__pipe_tensor_*, sm__inst_executed_pipe_tensor*, sm__ops_path_tensor_*; collect them with --set full or "
        .. "--metrics); kernel names are not read as facts", src))
      return
    end
    local kid = k:has("id") and k:col("id") or (d:map(function() return 1 end):cumsum() - 1)
    local at = nt:col("kernel_id"):index_of(kid)
    local prec = nt:has("tensor_precision") and nt:col("tensor_precision"):at(at) or nil
    share(nt:col("tensor_used"):at(at), "ncu tensor-pipe counters", "no tensor-pipe metric for those launches",
      prec and prec:count() > 0 and prec:keep(nt:col("tensor_used"):at(at)):fill("no tensor ops") or nil)
    return
  end
  if not p.tables.cpu_ops then
    report:note(string.format("%s: tensor-core use and precision unknown: the input records neither operator "
      .. "dtypes nor tensor-pipe counters; kernel names are not read as facts", src))
    return
  end
  local why = M.shapes_note(p)
  if why then
    report:note(string.format("%s: tensor-core use and precision unknown: %s; kernel names are not read as facts", src,
        why))
    return
  end
  local ctx, peak, bw = M.peaks(p, opts or {})
  local tc, _, prec = M.kernel_tensor_core(p, ctx)
  if tc then
    share(tc, "from the launching operators' recorded dtypes" .. (ctx and ctx.cc and (" on cc " .. ctx.cc) or
      (ctx and ctx.vendor == "amd" and " on an AMD GPU" or "")),
      "launched by no modelled operator with a dtype, or the GPU's compute capability is not recorded", prec)
  else
    report:note(string.format("%s: tensor-core use unknown: no kernel links to a modelled operator with a recorded "
      .. "dtype on a known GPU (compute capability)", src))
  end
  local groups = M.groups(p)
  if groups then M.precision_advice(p, M.roofline_time(groups, peak, bw), ctx, report) end
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
    t:with("calls" .. sfx, g:col("calls")):with("kernel_us" .. sfx, g:col("kernel_us_sum")):with("tflops" .. sfx,
        g:col("tflops_mean"))
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
  st = st:keep(all:col("calls_b"):present()):fill(all:col("calls_a"):present():map({ [true] = "a only",
      [false] = "b only" }))
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

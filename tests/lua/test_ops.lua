-- test_ops.lua -- perflab.opargs (the argument fields' spellings),
-- perflab.intervals.enclosed, and perflab.ops totals: MFU, outermost ops,
-- peaks, tensor cores, the no-shapes note.  Expected values by hand or
-- from the TraceLens oracle README (tests/data/reference/tracelens).
local lu = require "luaunit"
local perflab = require "perflab"
local A = require "perflab.opargs"
local O = require "perflab.ops"
local I = perflab.intervals
local T = perflab.table
local DATA = os.getenv("PERFLAB_DATA") or "tests/data"
local FIX = (os.getenv("PERFLAB_FIXTURES") or "tests/fixtures") .. "/"

TestOpArgs = {}

function TestOpArgs:test_spellings()
  local x = A.parse('[[2,3],[],[4],[]]', '["c10::Half","Scalar","long int","c10::Float8_e4m3fn"]',
                    '[[3,1],[],[1],[]]', '["","0.5","",""]')
  lu.assertEquals(#x, 4)
  lu.assertEquals(x[1].dims, { 2, 3 }); lu.assertEquals(x[1].dtype, "fp16"); lu.assertEquals(x[1].bytes, 2)
  lu.assertEquals(x[1].strides, { 3, 1 }); lu.assertNil(x[1].value)
  lu.assertEquals(x[2].dims, {}); lu.assertEquals(x[2].dtype, "scalar"); lu.assertEquals(x[2].bytes, 0)
  lu.assertEquals(x[2].value, "0.5")
  lu.assertEquals(x[3].dtype, "int64"); lu.assertEquals(x[3].bytes, 8)
  lu.assertEquals(x[4].dtype, "fp8_e4m3"); lu.assertEquals(x[4].bytes, 1)
  lu.assertEquals(x[4].type, "c10::Float8_e4m3fn")
end

function TestOpArgs:test_missing_and_lists()
  -- missing fields: the keys are absent; a TensorList is a list of lists
  local x = A.parse('[[[2,3],[4,5]],[7]]', nil)
  lu.assertEquals(#x, 2)
  lu.assertEquals(x[1].list, { { 2, 3 }, { 4, 5 } }); lu.assertNil(x[1].dims)
  lu.assertEquals(x[2].dims, { 7 }); lu.assertNil(x[2].dtype)
  lu.assertEquals(A.parse(nil, nil), {})
  lu.assertEquals(A.parse("[]", "[]"), {})
  -- a spelling not known stays as written; bytes 0
  local y = A.parse("[[1]]", '["c10::Quux"]')
  lu.assertEquals(y[1].dtype, "c10::Quux"); lu.assertEquals(y[1].bytes, 0)
  lu.assertEquals(y[1].type, "c10::Quux")
end

function TestOpArgs:test_bad_text()
  local x, err = A.parse("[[1,2],", nil)
  lu.assertNil(x)
  lu.assertStrContains(err, "Input Dims:1:8: expected a value")
  x, err = A.parse("[[1]]", '{"a":1}')
  lu.assertNil(x)
  lu.assertStrContains(err, "Input type:1:1: expected '['")
end

function TestOpArgs:test_precision()
  lu.assertEquals(A.precision('["long int","c10::BFloat16","Scalar"]'), "bf16")   -- the first floating input
  lu.assertEquals(A.precision('["long int","Scalar"]'), "int64")
  lu.assertNil(A.precision('["Scalar",""]'))
  lu.assertNil(A.precision(nil))
  lu.assertEquals(select(1, A.dtype("double")), "fp64")
  lu.assertEquals(select(2, A.dtype("c10::BFloat16")), 2)
end

-- normalisation and reduction models, by hand from the formulas of
-- docs/ops.md (N elements, C channels; W weight-size tensors):
--   FLOPs = 6·C + 2·N (+ 3·N with statistics); bytes = 2·N·bpe + W·C·bpe
TestOpModels = {}

local function model(name, dims, types, conc, cx)
  local inp = assert(A.parse(dims, types, nil, conc))
  return O.models[name].fn(inp, cx or { concrete = conc ~= nil })
end

function TestOpModels:test_batch_norm()
  local dims = "[[8,64,32,32],[64],[64],[64],[64],[],[],[],[]]"
  local types = '["float","float","float","float","float","Scalar","Scalar","Scalar","Scalar"]'
  local N, C = 8 * 64 * 32 * 32, 64
  -- training: statistics (3·N) and W = 2 + weight + bias + 2 (mean, var written)
  local r = model("aten::batch_norm", dims, types, '["","","","","","True","0.1","1e-05","True"]')
  lu.assertEquals(r.flops, 6 * C + 5 * N)                 -- 2621824
  lu.assertEquals(r.bytes, 2 * N * 4 + 6 * C * 4)         -- 4195840
  -- inference: running statistics, W = 4
  r = model("aten::batch_norm", dims, types, '["","","","","","False","0.1","1e-05","True"]')
  lu.assertEquals(r.flops, 6 * C + 2 * N)
  lu.assertEquals(r.bytes, 2 * N * 4 + 4 * C * 4)
  r = model("aten::_native_batch_norm_legit_no_training", "[[8,64,32,32],[64],[64],[64],[64],[],[]]",
            '["float","float","float","float","float","Scalar","Scalar"]', '["","","","","","0.1","1e-05"]')
  lu.assertEquals(r.flops, 6 * C + 2 * N)
  -- the training flag not recorded (no Concrete Inputs): no figure, no guess
  lu.assertNil(model("aten::batch_norm", dims, types, nil))
end

function TestOpModels:test_layer_norm()
  -- no weight, no bias (absent optional tensors: [] and ""): W = 2 + 2
  local r = model("aten::layer_norm", "[[2,10],[],[],[],[],[]]", '["float","ScalarList","","","Scalar","Scalar"]',
                  '["","[10]","","","1e-05","True"]')
  lu.assertEquals(r.flops, 6 * 10 + 5 * 20)
  lu.assertEquals(r.bytes, 2 * 20 * 4 + 4 * 10 * 4)
  -- no Concrete Inputs (older PyTorch): C from the weight's dims (= normalized_shape)
  r = model("aten::layer_norm", "[[2048,125],[],[125],[125],[],[]]", '["float","","float","float","Scalar","Scalar"]',
      nil)
  lu.assertEquals(r.flops, 6 * 125 + 5 * 2048 * 125)     -- 1280750
  lu.assertEquals(r.bytes, 2 * 2048 * 125 * 4 + 6 * 125 * 4)
  -- group norm: C = dim 1
  r = model("aten::group_norm", "[[2,32,8,8],[],[32],[32],[],[]]",
      '["c10::Half","Scalar","c10::Half","c10::Half","Scalar","Scalar"]',
            '["","8","","","1e-05","True"]')
  lu.assertEquals(r.flops, 6 * 32 + 5 * 4096)
  lu.assertEquals(r.bytes, 2 * 4096 * 2 + 6 * 32 * 2)
end

function TestOpModels:test_rms_norm()
  -- rows N/C, each 2·C + 2; then N (scale) + N (weight); bytes in, out, weight
  local N, C = 4 * 128 * 4096, 4096
  local r = model("aten::rms_norm", "[[4,128,4096],[],[4096],[]]",
      '["c10::BFloat16","ScalarList","c10::BFloat16","Scalar"]',
                  '["","[4096]","","1e-06"]')
  lu.assertEquals(r.flops, N / C * (2 * C + 2) + 2 * N)   -- 8389632
  lu.assertEquals(r.bytes, 2 * N * 2 + C * 2)              -- 8396800
end

function TestOpModels:test_reduce()
  -- mean over the last dim of [16, 559, 1024] fp32 (the Qwen oracle row):
  -- the output is 16·559 elements; TraceLens counts one
  local dims, types, conc = "[[16,559,1024],[],[],[]]", '["float","ScalarList","Scalar",""]', '["","[-1]","True",""]'
  local n = 16 * 559 * 1024
  local r = model("aten::mean", dims, types, conc)
  lu.assertEquals(r.flops, n)
  lu.assertEquals(r.bytes, n * 4 + 16 * 559 * 4)
  r = model("aten::mean", dims, types, conc, { concrete = true, convention = "tracelens" })
  lu.assertEquals(r.bytes, n * 4 + 4)                       -- 34.937503814697266 MiB
  -- two dims, one negative
  r = model("aten::amax", "[[3,4,5],[],[]]", '["c10::Half","ScalarList","Scalar"]', '["","[-1,0]","False"]')
  lu.assertEquals(r.bytes, 60 * 2 + 4 * 2)
  -- dim=None (recorded as ""): everything to one element
  r = model("aten::sum", "[[2048,110],[],[],[]]", '["float","","Scalar",""]', '["","","False",""]')
  lu.assertEquals(r.bytes, 2048 * 110 * 4 + 4)
  -- the dims not recorded: no figure
  lu.assertNil(model("aten::sum", "[[2048,110],[],[],[]]", '["float","","Scalar",""]', nil))
  -- cumsum keeps every element
  r = model("aten::cumsum", "[[8,16],[],[]]", '["long int","Scalar",""]', '["","1",""]')
  lu.assertEquals(r.bytes, 2 * 128 * 8)
  -- norm(x, p, dim, keepdim): dim is the third argument
  r = model("aten::norm", "[[6,10],[],[],[]]", '["float","Scalar","ScalarList","Scalar"]', '["","2","[1]","False"]')
  lu.assertEquals(r.bytes, 60 * 4 + 6 * 4)
end

-- backward ops, by hand from the formulas of docs/ops.md
function TestOpModels:test_sdpa_backward()
  -- flash backward, B 2, H_Q 8, H_KV 2 (GQA), N 128, d 64, causal, BF16:
  -- recompute QKᵀ, dV, dP, dQ, dK: 5 x 2·B·H·N·N·d = 5 x 33554432, plus
  -- B·N_KV·d·(H_Q/H_KV − 1) = 49152 for each of dK and dV; halved (causal)
  local dims = "[[2,8,128,64],[2,8,128,64],[2,2,128,64],[2,2,128,64],[2,8,128,64],[2,8,128],[],[],[],[],[],[],[],[],[]]"
  local bf = '"c10::BFloat16"'
  local types = "[" .. table.concat({ bf, bf, bf, bf, bf, '"float"', '""', '""', '"Scalar"', '"Scalar"', '"Scalar"',
                                      '"Scalar"', '"long int"', '"long int"', '"Scalar"' }, ",") .. "]"
  local conc = '["","","","","","","","","128","128","0.0","True","","",""]'
  local r = model("aten::_scaled_dot_product_flash_attention_backward", dims, types, conc)
  lu.assertEquals(r.flops, (5 * 33554432 + 2 * 49152) / 2)          -- 83935232
  -- Q, K, V, dO read; dQ, dK, dV written: 262144 + 65536 + 65536 + 262144 + 262144 + 65536 + 65536
  lu.assertEquals(r.bytes, 1048576)
  lu.assertEquals(O.models["aten::_scaled_dot_product_flash_attention_backward"].family, "SDPA_bwd")
  -- not causal: twice that
  r = model("aten::_scaled_dot_product_flash_attention_backward", dims, types, (conc:gsub("True", "False")))
  lu.assertEquals(r.flops, 5 * 33554432 + 2 * 49152)
  -- the causal flag not recorded: no figure
  lu.assertNil(model("aten::_scaled_dot_product_flash_attention_backward", dims, types, nil))
  -- _flash_attention_backward: (B, N, H, d), is_causal the 12th argument
  r = model("aten::_flash_attention_backward",
      "[[2,128,8,64],[2,128,8,64],[2,128,2,64],[2,128,2,64],[2,128,8,64],[2,8,128]]",
            "[" .. table.concat({ bf, bf, bf, bf, bf, '"float"' }, ",") .. "]", conc)
  lu.assertEquals(r.flops, (5 * 33554432 + 2 * 49152) / 2)
  lu.assertEquals(r.bytes, 1048576)
end

function TestOpModels:test_sdpa_efficient_causal()
  -- _scaled_dot_product_efficient_attention(q, k, v, attn_bias, compute_log_sumexp,
  -- dropout_p, is_causal): is_causal is the 7th argument
  local dims = "[[1,4,64,32],[1,4,64,32],[1,4,64,32],[],[],[],[]]"
  local types = '["c10::Half","c10::Half","c10::Half","","Scalar","Scalar","Scalar"]'
  local full = 4 * 1 * 4 * 64 * 64 * 32
  lu.assertEquals(model("aten::_scaled_dot_product_efficient_attention", dims, types,
      '["","","","","True","0.0","True"]').flops, full / 2)
  lu.assertEquals(model("aten::_scaled_dot_product_efficient_attention", dims, types,
      '["","","","","True","0.0","False"]').flops, full)
end

function TestOpModels:test_conv_backward()
  -- a 3x3 conv, 512 -> 512 channels on 10x512x7x7, BF16, pad 1: forward
  -- F = 2·(512·3·3)·(10·512·7·7) = 2312110080 FLOPs
  local dims = "[[10,512,7,7],[10,512,7,7],[512,512,3,3],[],[],[],[],[],[],[],[]]"
  local bf = '"c10::BFloat16"'
  local types = "[" .. bf .. "," .. bf .. "," .. bf ..
    ',"ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"]'
  local F, out, x, w = 2312110080, 10 * 512 * 49, 10 * 512 * 49, 512 * 512 * 9
  -- output_mask [True, True, False]: input and weight gradients, each F and
  -- grad_output + input + weight once
  local r = model("aten::convolution_backward", dims, types,
                  '["","","","[0]","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1","[True, True, False]"]')
  lu.assertEquals(r.flops, 2 * F)
  lu.assertEquals(r.bytes, 2 * (out + x + w) * 2)                    -- 11444224
  lu.assertEquals(O.models["aten::convolution_backward"].family, "CONV_bwd")
  -- the first layer: no input gradient; a bias gradient (sum of grad_output)
  r = model("aten::convolution_backward", dims, types,
            '["","","","[512]","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1","[False, True, True]"]')
  lu.assertEquals(r.flops, F + out)
  lu.assertEquals(r.bytes, (out + x + w) * 2 + (out + 512) * 2)      -- 6224896
  -- no mask recorded: both gradients, the bias from bias_sizes
  r = model("aten::convolution_backward", dims, types,
      '["","","","[512]","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1",""]')
  lu.assertEquals(r.flops, 2 * F + out)
end

function TestOpModels:test_conv_transposed()
  -- transposed 4x4, stride 2, pad 1: 8x8 -> 16x16, weight (C_in 16, C_out 8, 4, 4):
  -- 2·Π(weight[1:])·Π(input) = 2·128·1024
  local r = model("aten::convolution", "[[1,16,8,8],[16,8,4,4],[],[],[],[],[],[],[]]",
                  '["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"]',
                  '["","","","[2, 2]","[1, 1]","[1, 1]","True","[0, 0]","1"]')
  lu.assertEquals(r.output, { 1, 8, 16, 16 })
  lu.assertEquals(r.flops, 262144)
  lu.assertEquals(r.bytes, (1024 + 2048 + 2048) * 4)
end

TestEnclosed = {}

-- ops [0,100] and its child [10,40] on thread a, [200,300] on b; kernels
-- launched at 20 (runs [1000,1100)), 30 ([1050,1200)), 250 on b ([2000,
-- 2010)), and 250 on a (no op of a holds it)
function TestEnclosed:test_union_per_op()
  local ops = T.from_rows({ { start_ns = 0, duration_ns = 100, tid = "a" },
      { start_ns = 10, duration_ns = 30, tid = "a" },
                            { start_ns = 200, duration_ns = 100, tid = "b" } }, { "start_ns", "duration_ns", "tid" })
  local k = T.from_rows({ { p = 20, start_ns = 1000, end_ns = 1100, tid = "a" },
      { p = 30, start_ns = 1050, end_ns = 1200, tid = "a" },
                          { p = 250, start_ns = 2000, end_ns = 2010, tid = "b" },
                              { p = 250, start_ns = 5000, end_ns = 6000, tid = "a" } },
                        { "p", "start_ns", "end_ns", "tid" })
  local busy, cnt = I.enclosed(ops, k, { point = "p", by = "tid" })
  lu.assertEquals(busy:to_lua(), { 200, 200, 10 })    -- union [1000, 1200), not the sum 250
  lu.assertEquals(cnt:to_lua(), { 2, 2, 1 })
  -- without groups the kernel at 250 on a counts for the op on b too
  busy, cnt = I.enclosed(ops, k, { point = "p" })
  lu.assertEquals(busy:to_lua(), { 200, 200, 1010 })
  lu.assertEquals(cnt:to_lua(), { 2, 2, 2 })
end

TestOpsTotals = {}

local function qwen(gpu)
  return perflab.load(DATA .. "/reference/tracelens/" .. gpu .. "/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")
end

-- model FLOPs depend on shapes only: both GPUs agree, and equal the
-- oracle's Σ GFLOPS x count over the modelled rows (5767.701307)
function TestOpsTotals:test_mfu_qwen()
  for _, g in ipairs { { "h100", 989.5e12, 31.905483154296878 }, { "mi300", 1307.4e12, 29.743927734375 } } do
    local p = qwen(g[1])
    local groups, _, o = O.groups(p)
    lu.assertNotNil(groups)
    local _, peak = O.peaks(p, {})
    local t = O.mfu(p, o, peak, { model_flops = 1e15 })
    lu.assertEquals(t:nrows(), 1)
    local r = t:row(1)
    lu.assertEquals(r.step, "ProfilerStep#6")
    lu.assertAlmostEquals(r.gflops, 5767.701307, 5767.701307 * 1e-8)   -- the README rounds
    lu.assertEquals(r.precision, "bf16")
    lu.assertEquals(r.peak_tflops * 1e12, g[2])
    -- busy: the union of the kernels launched in the step = the oracle's busy time
    -- (exact ns here; the oracle adds µs floats: 1e-5 ms apart)
    lu.assertAlmostEquals(r.busy_ms, g[3], 1e-4)
    lu.assertAlmostEquals(r.mfu_busy_pct, 100 * 5767.701307e9 / (g[3] * 1e-3) / g[2], 1e-3)
    lu.assertAlmostEquals(r.mfu_user_pct, 100 * 1e15 / (r.wall_ms * 1e-3) / g[2], 1e-9)
  end
end

-- aten::linear over aten::addmm, aten::convolution over its aten::add_:
-- each counted once, with the outer op (the oracle's matrix FLOPs 140.574563)
function TestOpsTotals:test_outermost()
  local p = perflab.load(DATA .. "/reference/tracelens/h100/Falconsai_nsfw_image_detection__1016002.json.gz")
  local _, _, o = O.groups(p)
  local outer = o:filter(O.outer_mask(o))
  local names = {}
  for _, r in outer:group_by("name"):agg({ { "n", "count" } }):rows() do names[r.name] = r.n end
  lu.assertEquals(names["aten::linear"], 73)
  lu.assertNil(names["aten::addmm"])
  lu.assertNil(names["aten::add_"])
  lu.assertEquals(names["aten::convolution"], 1)
  local m = outer:filter(outer:col("family"):isin { "GEMM", "CONV_fwd", "SDPA_fwd" })
  lu.assertAlmostEquals(m:col("flops"):sum() / 1e9, 140.574563, 1e-6)
end

function TestOpsTotals:test_peak_override()
  local p = qwen("h100")
  local _, peak, bw, src = O.peaks(p, { peak_tflops = 500, peak_tbps = 2 })
  lu.assertEquals(peak("bf16", "GEMM"), 500e12)
  lu.assertEquals(bw, 2e12); lu.assertEquals(src, "--set peak_tbps")
  _, peak, bw = O.peaks(p, {})
  lu.assertEquals(peak("bf16", "GEMM"), 989.5e12)
  lu.assertEquals(peak("bf16", "UnaryElementwise"), 67e12)      -- vector ops: FP32 rate
  lu.assertEquals(peak("fp8_e4m3", "GEMM"), 1979e12)
  lu.assertEquals(bw, 3.35e12)
  lu.assertNil((peak("unknown", "GEMM")))
end

function TestOpsTotals:test_tensor_core()
  local a100, h100, amd = { cc = "8.0" }, { cc = "9.0" }, { vendor = "amd" }
  lu.assertEquals(O.tensor_core("GEMM", "fp32", a100), "no")
  lu.assertEquals(O.tensor_core("GEMM", "bf16", h100), "yes")
  lu.assertEquals(O.tensor_core("GEMM", "fp8_e4m3", a100), "no")     -- FP8 needs cc 8.9
  lu.assertEquals(O.tensor_core("SDPA_fwd", "bf16", amd), "yes")
  lu.assertEquals(O.tensor_core("UnaryElementwise", "bf16", h100), "no")
  lu.assertEquals(O.tensor_core("GEMM", "unknown", h100), "unknown")
  lu.assertEquals(O.tensor_core("GEMM", "fp16", {}), "unknown")
end

function TestOpsTotals:test_no_shapes_note()
  local p = perflab.load(FIX .. "kineto/tc_a100_fp32.json")
  local g, notes = O.groups(p)
  lu.assertNil(g)
  lu.assertStrContains(notes[1], "record_shapes=True")
  local rep = perflab.run("ops", { FIX .. "kineto/tc_a100_fp32.json" })
  lu.assertStrContains(rep:render("text"), "record_shapes=True")
end

function TestOpsTotals:test_recipe_tables()
  local rep = perflab.run("ops",
      { DATA .. "/reference/tracelens/h100/Falconsai_nsfw_image_detection__1016002.json.gz" })
  local d = rep:to_data()
  for _, n in ipairs { "ops", "mfu", "gpu_timeline", "families", "roofline_time" } do lu.assertNotNil(d.tables[n],
      n) end
  local svg = d.figures["ops_roofline.svg"] ~= nil
  -- GEMM family over the outermost ops: the oracle's 73 GEMM ops, 0.73503662109375 ms (ops_summary_by_category)
  local fam = {}
  for _, r in d.tables.families:rows() do fam[r.family] = r end
  lu.assertEquals(fam.GEMM.calls, 73)
  lu.assertAlmostEquals(fam.GEMM.kernel_ms, 0.73503662109375, 1e-5)
  lu.assertTrue(svg)
end

-- Nsight Compute tensor-pipe metrics (fixture ncu/raw_page_tensor_pipe.csv,
-- an ncu --page raw --csv --print-units base export written by hand): the
-- counters, not the names, say which launches used the tensor pipe and at
-- which precision.  Launch 1 is named like an FP32 SGEMM but counted TF32
-- tensor ops; launch 3 is named "tensorop" but counted none.
function TestOpsTotals:test_ncu_tensor()
  local p = perflab.load(FIX .. "ncu/raw_page_tensor_pipe.csv")
  local t = O.ncu_tensor(p)
  lu.assertNotNil(t)
  local by = {}
  for _, r in t:rows() do by[r.kernel_id] = r end
  lu.assertEquals(by[0].tensor_used, true); lu.assertEquals(by[0].tensor_precision, "bf16")
  lu.assertEquals(by[0].tensor_ops, 1e12)
  lu.assertEquals(by[1].tensor_used, true); lu.assertEquals(by[1].tensor_precision, "tf32")
  lu.assertEquals(by[2].tensor_used, false); lu.assertNil(by[2].tensor_precision)
  lu.assertEquals(by[3].tensor_used, false)
  -- no tensor metric at all: nil (unknown), whatever the names say
  lu.assertNil(O.ncu_tensor(perflab.load(FIX .. "ncu/raw_page_units_base.csv")))
  -- roofline: FLOPs = tensor ops + FP32 add + mul + 2 fma; precision from the counters
  local rep = perflab.run("roofline", { FIX .. "ncu/raw_page_tensor_pipe.csv" })
  local rows = {}
  for _, r in rep.tables.roofline:rows() do rows[r.kernel] = r end
  local g = rows["ampere_sgemm_128x64_tn"]
  lu.assertEquals(g.precision, "tf32"); lu.assertEquals(g.precision_from, "ncu counters")
  lu.assertEquals(g.flops, 2e11 + 500 + 500 + 2 * 1000)
  local e = rows["vectorized_elementwise_kernel"]
  lu.assertEquals(e.precision, "fp32"); lu.assertEquals(e.flops, 1e8)
  lu.assertEquals(rows["cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x2_tn_align8"].precision_from,
                  "kernel name (last resort)")
end

-- MFU windows: back-to-back profiler steps each get their own FLOPs
-- (1024³·2 = 2.147483648 GFLOP a step); user annotations named by
-- --set window; without steps the whole trace's device span, said so
function TestOpsTotals:test_mfu_windows()
  local path = FIX .. "kineto/ops_a100_fp32_shapes.json"
  local rep = perflab.run("ops", { path })
  local t = rep.tables.mfu
  lu.assertEquals(t:nrows(), 3)
  lu.assertEquals(t:row(1).gflops, 2.147483648); lu.assertEquals(t:row(2).gflops, 2.147483648)
  lu.assertEquals(t:row(1).window, "ProfilerStep (CPU span)")
  lu.assertEquals(t:row(3).gflops, 2 * 2.147483648)
  -- the windows of an annotation (here the second step's record_function)
  rep = perflab.run("ops", { path }, { window = "ProfilerStep#2" })
  t = rep.tables.mfu
  lu.assertEquals(t:nrows(), 1)
  lu.assertEquals(t:row(1).step, "ProfilerStep#2 #1")
  lu.assertStrContains(t:row(1).window, "annotation 'ProfilerStep#2'")
  lu.assertEquals(t:row(1).gflops, 2.147483648)
  lu.assertEquals(t:row(1).wall_ms, 2)
  rep = perflab.run("ops", { path }, { window = "nope" })
  lu.assertStrContains(table.concat(rep.notes, "\n"), "no user annotation named 'nope'")
  -- no steps: the device span (first kernel start 1000130 µs to the last end 1002730 µs: 2.6 ms)
  local p = perflab.load(path)
  local _, _, o = O.groups(p)
  local _, peak = O.peaks(p, {})
  p.tables.steps = nil
  local m = O.mfu(p, o, peak, {})
  lu.assertEquals(m:nrows(), 1)
  lu.assertStrContains(m:row(1).window, "whole trace")
  lu.assertAlmostEquals(m:row(1).wall_ms, 2.6, 1e-9)
  lu.assertEquals(m:row(1).gflops, 2 * 2.147483648)
end

-- advice rests on the op model: tensor-core share from dtypes or ncu
-- counters (kernel time shares by hand: B200 600+600 of 1400 µs on FP8
-- GEMMs; ncu 2 + 1 of 4 ms), the TF32/AMP verdict, "unknown" with the
-- reason where the input cannot tell
function TestOpsTotals:test_advice_op_model()
  local function run(path)
    local rep = perflab.run("advice", { path })
    local by = {}
    for _, f in ipairs(rep.findings) do by[f.rule] = f end
    return by, table.concat(rep.notes, "\n")
  end
  local f = run(FIX .. "kineto/ops_a100_fp32_shapes.json")
  lu.assertNotNil(f["ops.tf32"])
  lu.assertEquals(f["advice.tensor_cores"].evidence.tensor_core_pct, 0)
  lu.assertEquals(f["advice.tensor_cores"].evidence.not_tensor_core_pct, 100)
  local notes
  f, notes = run(FIX .. "kineto/ops_b200_fp8_shapes.json")
  lu.assertNil(f["ops.tf32"]); lu.assertNil(f["ops.amp"])
  lu.assertAlmostEquals(f["advice.tensor_cores"].evidence.tensor_core_pct, 100 * 1200 / 1400, 1e-9)
  lu.assertStrContains(f["advice.tensor_cores"].message, "fp8_e4m3 85.7 %")
  lu.assertStrContains(notes, "already low precision")
  f = run(FIX .. "ncu/raw_page_tensor_pipe.csv")
  lu.assertEquals(f["advice.tensor_cores"].evidence.tensor_core_pct, 75)
  lu.assertStrContains(f["advice.tensor_cores"].message, "bf16 50.0 %, tf32 25.0 %")
  -- no shapes (the names say sgemm: not used), no tensor-pipe metrics: unknown, and why
  f, notes = run(FIX .. "kineto/tc_a100_fp32.json")
  lu.assertNil(f["advice.tensor_cores"])
  lu.assertStrContains(notes, "tensor-core use and precision unknown: the trace has no operator shapes")
  f, notes = run(FIX .. "ncu/launch_failed_nan.txt")
  lu.assertNil(f["advice.tensor_cores"])
  lu.assertStrContains(notes, "ncu recorded no tensor-pipe metric")
end


-- an FP32 GEMM workload on an A100 (FFMA SGEMM kernels) gets the TF32
-- advice from its recorded dtypes; one whose FP32 GEMMs already run TF32
-- tensor-core kernels (cutlass_80_tensorop_s1688gemm: the HTA A100 trace)
-- and a BF16 workload on an H100 do not
function TestOpsTotals:test_tf32_advice()
  local function tf32(path)
    local rep = perflab.run("ops", { path })
    for _, x in ipairs(rep.findings) do if x.rule == "ops.tf32" then return x, rep end end
    return nil, rep
  end
  local f = tf32(FIX .. "kineto/ops_a100_fp32_shapes.json")
  lu.assertNotNil(f)
  lu.assertStrContains(f.message, "allow_tf32")
  lu.assertEquals(f.evidence.tf32_peak / f.evidence.fp32_peak, 8)
  lu.assertEquals(f.evidence.fp32_matrix_us, f.evidence.matrix_us)
  local g, rep = tf32(DATA .. "/corpus/kineto_trace/hta_a100_sxm4_80gb_rank0.json.gz")
  lu.assertNil(g)
  lu.assertStrContains(table.concat(rep.notes, "\n"), "TF32 is on")
  lu.assertNil((tf32(DATA .. "/reference/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz")))
  -- BF16 on an MI300X, FP8 (aten::_scaled_mm) on a B200: no AMP advice of any kind, a note saying why
  for _, path in ipairs { DATA .. "/reference/tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
                          FIX .. "kineto/ops_b200_fp8_shapes.json" } do
    local x, r = tf32(path)
    lu.assertNil(x, path)
    for _, fd in ipairs(r.findings) do lu.assertNotEquals(fd.rule, "ops.amp", path) end
    lu.assertStrContains(table.concat(r.notes, "\n"), "already low precision")
  end
  -- FP32 SGEMMs on a V100 (cc 7.0): no TF32 there; FP16 autocast
  local _, r = tf32(FIX .. "kineto/ops_v100_fp32_shapes.json")
  local amp
  for _, fd in ipairs(r.findings) do if fd.rule == "ops.amp" then amp = fd end end
  lu.assertNotNil(amp)
  lu.assertEquals(amp.evidence.target, "FP16")
  lu.assertStrContains(amp.message, "FP16 autocast")
end

-- aten::_scaled_mm (FP8 GEMM): 2·M·N·K; A and B at 1 byte, C at out_dtype (15: BF16)
function TestOpModels:test_scaled_mm()
  local r = model("aten::_scaled_mm", "[[64,128],[128,32],[],[],[],[],[],[]]",
                  '["c10::Float8_e4m3fn","c10::Float8_e4m3fn","float","float","","","Scalar","Scalar"]',
                  '["","","","","","","15","False"]')
  lu.assertEquals(r.flops, 2 * 64 * 32 * 128)
  lu.assertEquals(r.bytes, 64 * 128 + 128 * 32 + 64 * 32 * 2)
end

-- the name rule (last resort): FFMA GEMMs are not tensor-core kernels,
-- CUTLASS TensorOp / WMMA ones are
function TestOpsTotals:test_tc_by_name()
  lu.assertFalse(O.tc_by_name("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__51a_cublas", { "xmma_gemm" }))
  lu.assertTrue(O.tc_by_name("cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x2_tn_align8"))
  lu.assertTrue(O.tc_by_name("void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::arch::OpClassTensorOp>>"))
  lu.assertTrue(O.tc_by_name("sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize128x128x16"))
  lu.assertFalse(O.tc_by_name("ampere_sgemm_128x64_tn"))
end


-- the roofline recipe places Kineto kernels by their op's model: the flash
-- attention kernel gets its op's FLOPs (24 calls x 10.239377408 GFLOP)
-- and the BF16 dtype
function TestOpsTotals:test_roofline_points()
  local rep = perflab.run("roofline", { DATA .. "/reference/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" })
  local by = {}
  for _, r in rep.tables.roofline:rows() do by[r.kernel] = r end
  local r = by.flash_fwd_kernel
  lu.assertNotNil(r)
  lu.assertEquals(r.precision, "bf16")
  lu.assertEquals(r.flops, 24 * 10239377408)
  lu.assertNotNil(rep.figures["roofline.svg"])
end


-- diff pairs op groups by (name, dims, dtype): TraceLens's H100 -> MI300X
-- comparison (compare_h100_mi300_qwen/ops_summary.csv, direct kernel time)
function TestOpsTotals:test_diff_h100_mi300()
  local a, b = qwen("h100"), qwen("mi300")
  local g, n = O.diff(a, b, { clock = "trace_us" })
  local by = {}
  for _, r in n:rows() do by[r.name] = r end
  local want = { ["aten::mm"] = { 6.668681640625, 8.663615234375, 29.914962225772584, 96 },
                 ["aten::mul"] = { 6.75289990234375, 4.54128857421875, -32.75054213905065, 220 },
                 ["aten::copy_"] = { 5.101934814453125, 3.1906943359375, -37.461091684302325, 197 } }
  for name, w in pairs(want) do
    local r = by[name]
    lu.assertNotNil(r, name)
    lu.assertAlmostEquals(r.kernel_ms_a, w[1], w[1] * 1e-6)
    lu.assertAlmostEquals(r.kernel_ms_b, w[2], w[2] * 1e-6)
    lu.assertAlmostEquals(r.delta_pct, w[3], math.abs(w[3]) * 1e-6)
    lu.assertEquals(r.calls_a, w[4]); lu.assertEquals(r.calls_b, w[4])
  end
  -- flash attention: its MI300X kernels include a child op's (TraceLens's subtree time)
  lu.assertAlmostEquals(by["aten::_flash_attention_forward"].kernel_ms_b, 4.01634326171875, 4e-6)
  -- same model, same shapes: every group on both sides
  for _, r in g:rows() do lu.assertEquals(r.status, "both") end
  -- the diff recipe shows them
  local rep = perflab.run("diff", { DATA .. "/reference/tracelens/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
                                    DATA .. "/reference/tracelens/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" })
  lu.assertNotNil(rep.tables.op_groups); lu.assertNotNil(rep.tables.op_names)
end

os.exit(lu.LuaUnit.run())

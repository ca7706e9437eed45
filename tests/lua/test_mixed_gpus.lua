-- test_mixed_gpus.lua -- a host with several GPU models (issue 28, point 9):
-- every device figure is taken from the kernels' own devices.  Inputs:
-- tests/data/field3/mixed_gpus_*.json (devices: id 0 NVIDIA A40, cc 8.6,
-- 84 SMs, listed first; id 1 NVIDIA A100-PCIE-40GB, cc 8.0, 108 SMs).
-- Run: build/perflab tests/lua/test_mixed_gpus.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local device = require "perflab.device"
local ops = require "perflab.ops"
local gpus = require "perflab.gpus"

local ONE = "tests/data/field3/mixed_gpus_one_used.json"    -- kernels on device 1 only
local BOTH = "tests/data/field3/mixed_gpus_both_used.json"  -- kernels on devices 0 and 1

TestMixedGpus = {}

function TestMixedGpus:test_context_takes_the_kernels_device()
  local ctx = device.context(perflab.load(ONE), {})
  -- not the first device (A40): the A100 every kernel ran on
  lu.assertEquals(ctx.name, "NVIDIA A100-PCIE-40GB")
  lu.assertEquals(ctx.cc, "8.0")
  lu.assertEquals(ctx.sm_count, 108)
  lu.assertEquals(ctx.model.id, gpus.model("NVIDIA A100-PCIE-40GB").id)
  lu.assertNil(ctx.mixed)
end

function TestMixedGpus:test_context_of_several_models()
  local p = perflab.load(BOTH)
  local ctx = device.context(p, {})
  lu.assertEquals(ctx.mixed, { "NVIDIA A100-PCIE-40GB", "NVIDIA A40" })
  lu.assertNil(ctx.model); lu.assertNil(ctx.cc); lu.assertNil(ctx.sm_count)
  lu.assertStrContains(ctx.source, "2 GPU models")
  -- per launch, each kernel keeps its own device's figures
  local cc0, sm0 = device.row_device({ device = 0 }, ctx)
  local cc1, sm1 = device.row_device({ device = 1 }, ctx)
  lu.assertEquals({ cc0, sm0, cc1, sm1 }, { "8.6", 84, "8.0", 108 })
  -- --gpu names one model for the input-wide figures
  local g = device.context(p, { gpu = "a40" })
  lu.assertEquals(g.model.id, gpus.model("a40").id)
  lu.assertEquals(g.source, "--gpu a40")
end

function TestMixedGpus:test_ops_peaks_per_model()
  -- one model: its dense FP16 tensor peak (perflab.gpus), not the A40's
  local _, peak = ops.peaks(perflab.load(ONE), {})
  local v, src = peak("fp16", "GEMM")
  lu.assertEquals(v, gpus.model("NVIDIA A100-PCIE-40GB").peaks.fp16)
  lu.assertNotEquals(v, gpus.model("NVIDIA A40").peaks.fp16)
  lu.assertStrContains(src, gpus.model("NVIDIA A100-PCIE-40GB").id)
  -- two models: no peak, and why
  local ctx, peak2 = ops.peaks(perflab.load(BOTH), {})
  local v2, why = peak2("fp16", "GEMM")
  lu.assertNil(v2)
  lu.assertStrContains(why, "the kernels ran on 2 GPU models (NVIDIA A100-PCIE-40GB, NVIDIA A40)")
  -- tensor cores: unknown, not the first device's answer
  local tc, reason = ops.tensor_core("GEMM", "bf16", ctx)
  lu.assertEquals({ tc, reason }, { "unknown", "kernels on several GPU models" })
end

os.exit(lu.LuaUnit.run())

-- test_ops_oracle.lua -- perflab.ops against TraceLens's reference reports
-- (tests/data/reference/tracelens/README.md): every row of the GEMM,
-- SDPA_fwd, CONV_fwd, BinaryElementwise and UnaryElementwise sheets and the
-- gpu_timeline sheet of ViT (Falconsai) and Qwen1.5-0.5B on an H100 and an
-- MI300X, to 1e-6 relative; Normalization and Reduce_fwd too.  TraceLens
-- works on the trace's µs floats and counts a reduction's output as one
-- element: the op model is run with clock = "trace_us" and convention =
-- "tracelens" here (docs/ops.md).
local lu = require "luaunit"
local perflab = require "perflab"
local O = require "perflab.ops"
local DATA = (os.getenv("PERFLAB_DATA") or "tests/data") .. "/reference/tracelens"

-- RFC 4180 CSV (the sheets are small): array of rows (name -> text)
local function read_csv(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("a"); f:close()
  local rows, rec, field, i, n, inq = {}, {}, {}, 1, #text, false
  local function endfield() rec[#rec + 1] = table.concat(field); field = {} end
  while i <= n do
    local c = text:sub(i, i)
    if inq then
      if c == '"' then
        if text:sub(i + 1, i + 1) == '"' then field[#field + 1] = '"'; i = i + 1 else inq = false end
      else field[#field + 1] = c end
    elseif c == '"' then inq = true
    elseif c == ',' then endfield()
    elseif c == '\n' then endfield(); rows[#rows + 1] = rec; rec = {}
    elseif c ~= '\r' then field[#field + 1] = c end
    i = i + 1
  end
  if #field > 0 or #rec > 0 then endfield(); rows[#rows + 1] = rec end
  local head, out = rows[1], {}
  for k = 2, #rows do
    local r = {}
    for j, h in ipairs(head) do r[h] = rows[k][j] end
    out[#out + 1] = r
  end
  return out
end

-- the python repr of a list and perflab's compact JSON to one spelling
local function norm(s) return ((s or ""):gsub("%s", ""):gsub("'", '"')) end

local function close(got, want, what)
  want = tonumber(want)
  if want == nil then return end
  lu.assertNotNil(got, what)
  local tol = 1e-6 * math.max(math.abs(want), 1e-300)
  if math.abs(got - want) > tol then
    lu.fail(string.format("%s: got %.17g, want %.17g (rel %.3g)", what, got, want,
        math.abs(got - want) / math.abs(want)))
  end
end

local COLS = {
  { "GFLOPS_first", "gflops" }, { "Data Moved (MB)_first", "mib" }, { "FLOPS/Byte_first", "intensity" },
  { "TFLOPS/s_mean", "tflops_mean" }, { "TFLOPS/s_median", "tflops_median" }, { "TFLOPS/s_min", "tflops_min" },
  { "TFLOPS/s_max", "tflops_max" }, { "TB/s_mean", "tbps_mean" }, { "TB/s_median", "tbps_median" },
  { "TB/s_min", "tbps_min" }, { "TB/s_max", "tbps_max" },
  { "Kernel Time (µs)_mean", "kernel_us_mean" }, { "Kernel Time (µs)_median", "kernel_us_median" },
  { "Kernel Time (µs)_min", "kernel_us_min" }, { "Kernel Time (µs)_max", "kernel_us_max" },
  { "Kernel Time (µs)_sum", "kernel_us_sum" }, { "name_count", "calls" },
}

local cache = {}
local function groups(gpu, model)
  local key = gpu .. model
  if not cache[key] then
    local p = perflab.load(string.format("%s/%s/%s.json.gz", DATA, gpu, model))
    local g = O.groups(p, { clock = "trace_us", convention = "tracelens" })
    local by = {}
    for _, r in g:rows() do
      by[table.concat({ r.name, norm(r.input_dims), norm(r.input_types), norm(r.input_strides),
          norm(r.concrete_inputs) }, "|")] = r
    end
    cache[key] = { p = p, by = by, g = g }
  end
  return cache[key]
end

local function check_sheet(gpu, model, sheet, family)
  local path = string.format("%s/%s/%s_csvs/%s.csv", DATA, gpu, model, sheet)
  local want = read_csv(path)
  lu.assertTrue(#want > 0, path)
  local got = groups(gpu, model)
  local nfam = 0
  for _, w in ipairs(want) do
    local k = table.concat({ w.name, norm(w["Input Dims_first"]), norm(w["Input type_first"]),
                             norm(w["Input Strides_first"]), norm(w["Concrete Inputs_first"]) }, "|")
    local r = got.by[k]
    lu.assertNotNil(r, sheet .. ": no group " .. k)
    lu.assertEquals(r.family, family, k)
    for _, c in ipairs(COLS) do close(r[c[2]], w[c[1]], string.format("%s %s %s %s", gpu, sheet, k, c[1])) end
    nfam = nfam + 1
  end
  return nfam
end

local MODELS = { falcon = "Falconsai_nsfw_image_detection__1016002", qwen = "Qwen_Qwen1.5-0.5B-Chat__1016005" }

TestOpsOracle = {}
for _, gpu in ipairs { "h100", "mi300" } do
  for mk, model in pairs(MODELS) do
    for _, sh in ipairs { { "GEMM", "GEMM" }, { "SDPA_fwd", "SDPA_fwd" }, { "CONV_fwd", "CONV_fwd" },
                          { "BinaryElementwise", "BinaryElementwise" }, { "UnaryElementwise", "UnaryElementwise" },
                          { "Normalization", "NORM_fwd" }, { "Reduce_fwd", "Reduce_fwd" } } do
      local path = string.format("%s/%s/%s_csvs/%s.csv", DATA, gpu, model, sh[1])
      local f = io.open(path)
      if f then
        f:close()
        TestOpsOracle[string.format("test_%s_%s_%s", gpu, mk, sh[1])] = function() check_sheet(gpu, model, sh[1],
            sh[2]) end
      end
    end
    TestOpsOracle[string.format("test_%s_%s_gpu_timeline", gpu, mk)] = function()
      local want = read_csv(string.format("%s/%s/%s_csvs/gpu_timeline.csv", DATA, gpu, model))
      local t = O.gpu_timeline(groups(gpu, model).p, { clock = "trace_us" })
      local by = {}
      for _, r in t:rows() do by[r.type] = r end
      lu.assertEquals(#want, 8)
      for _, w in ipairs(want) do
        lu.assertNotNil(by[w.type], w.type)
        close(by[w.type].time_ms, w["time ms"], gpu .. " " .. mk .. " " .. w.type)
        close(by[w.type].percent, w.percent, gpu .. " " .. mk .. " " .. w.type .. " %")
      end
    end
  end
end

-- diff pairs op groups by (name, dims, dtype, strides, concrete inputs):
-- TraceLens's H100 -> MI300X comparison, GEMM_intersect_mi300.csv (every
-- row: kernel time sum diff and %, TFLOP/s mean diff)
function TestOpsOracle:test_diff_gemm_intersect()
  local want = read_csv(DATA .. "/compare_h100_mi300_qwen/GEMM_intersect_mi300.csv")
  lu.assertEquals(#want, 5)
  local pa = groups("h100", MODELS.qwen).p
  local pb = groups("mi300", MODELS.qwen).p
  local g = O.diff(pa, pb, { clock = "trace_us" })
  local by = {}
  for _, r in g:rows() do
    by[table.concat({ r.name, norm(r.input_dims), norm(r.input_types), norm(r.input_strides),
        norm(r.concrete_inputs) }, "|")] = r
  end
  for _, w in ipairs(want) do
    local k = table.concat({ w.name, norm(w["h100::Input Dims_first"]), norm(w["h100::Input type_first"]),
                             norm(w["h100::Input Strides_first"]), norm(w["h100::Concrete Inputs_first"]) }, "|")
    local r = by[k]
    lu.assertNotNil(r, k)
    lu.assertEquals(r.status, "both")
    close(r.delta_us, w["Kernel Time (µs)_sum__mi300_diff"], k .. " kernel time diff")
    close(r.delta_pct, w["Kernel Time (µs)_sum__mi300_pct"], k .. " kernel time %")
    close(r.tflops_b - r.tflops_a, w["TFLOPS/s_mean__mi300_diff"], k .. " TFLOP/s diff")
  end
end

-- the pinned values of the oracle's README, by hand
function TestOpsOracle:test_pinned()
  local f = groups("h100", MODELS.falcon)
  local r = f.by['aten::addmm|[[768],[788,768],[768,768],[],[]]|["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"]|[[1],[768,1],[1,768],[],[]]|["","","","1","1"]']
  lu.assertNotNil(r)
  lu.assertEquals(r.flops, 2 * 788 * 768 * 768 + 788 * 768)            -- 930167808
  lu.assertEquals(r.bytes, (788 * 768 + 768 * 768 + 788 * 768 + 768) * 2)
  lu.assertEquals(r.precision, "bf16")
  close(r.tflops_mean, 111.88985263517533, "addmm TFLOP/s")
  lu.assertEquals(r.calls, 48)
end
os.exit(lu.LuaUnit.run())

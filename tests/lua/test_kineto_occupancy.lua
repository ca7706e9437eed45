-- tests/lua/test_kineto_occupancy.lua -- Oracle 2 of issue 6.
--
-- Every Kineto kernel event in tests/data/corpus/kineto_trace that carries
-- "est. achieved occupancy %" and whose trace has deviceProperties (CC, SM
-- count, max threads per SM): perflab.gpu.est_achieved_occupancy must print
-- the same integer for at least 99 % of them.  (Found 19,365 such events;
-- all match.  Traces without deviceProperties -- hta_sampled_rank-0 and
-- hta_call_stack_backward_thread, 1,155 events -- name no GPU and are
-- counted apart, not compared.)
--
-- Reads the corpus at test time ($PERFLAB_DATA, default tests/data) with
-- lua-cjson and `gzip -dc`; a missing file fails the test, naming it.
-- Run from the repository root:  lua5.4 tests/lua/test_kineto_occupancy.lua

package.path = "lua/?.lua;" .. package.path
package.path = package.path .. ";/usr/share/lua/5.4/?.lua"

local lu = require("luaunit")
local gpu = require("perflab.gpu")
local tdata = require("tdata")

local dir = tdata.dir .. "/corpus/kineto_trace/"

local FILES = {
  "hta_a100_alexnet_trace.json.gz",
  "hta_a100_simple_add_trace.json.gz",
  "hta_a100_et_simple_add_trace.json.gz",
  "hta_a100_triton_example.json.gz",
  "hta_a100_sxm4_80gb_rank0.json.gz",
  "hta_v100_ns_resolution_rank-0.pt.trace.json.gz",
  "kineto_tb_plugin_sample_resnet50_v100_worker0.1623143089861.pt.trace.json.gz",
  "hta_sampled_rank-0.json.gz",
  "hta_call_stack_backward_thread.json",
}

local function read(path)
  tdata.need(path)
  local f
  if path:match("%.gz$") then
    f = assert(io.popen("gzip -dc '" .. path .. "'", "r"))
  else
    f = assert(io.open(path, "rb"))
  end
  local s = f:read("a")
  f:close()
  assert(s and s ~= "", "empty after reading: " .. path)
  return s
end

TestOracle2 = {}

function TestOracle2:test_kineto_est_achieved_occupancy()
  local cjson = require("cjson")
  local total, match, no_props, files = 0, 0, 0, 0
  local mismatches = {}
  for _, name in ipairs(FILES) do
    local text = read(dir .. name)
    do
      files = files + 1
      local doc = cjson.decode(text)
      local props = {}
      for _, p in ipairs(doc.deviceProperties or {}) do props[p.id] = p end
      for _, e in ipairs(doc.traceEvents or {}) do
        local a = e.args
        local want = a and a["est. achieved occupancy %"]
        if want then
          local p = props[a.device]
          if not p or not p.numSms then
            no_props = no_props + 1
          else
            total = total + 1
            local est = gpu.est_achieved_occupancy{
              cc = { major = p.computeMajor, minor = p.computeMinor },
              grid = a.grid, block = a.block,
              registers = a["registers per thread"], smem = a["shared memory"],
              sm_count = p.numSms, max_threads_per_sm = p.maxThreadsPerMultiprocessor }
            if est.pct == want then
              match = match + 1
            elseif #mismatches < 20 then
              mismatches[#mismatches + 1] = string.format("%s: %s grid %s block %s regs %s smem %s: kineto %d, perflab %d",
                name, e.name:sub(1, 40), table.concat(a.grid, ","), table.concat(a.block, ","),
                a["registers per thread"], a["shared memory"], want, est.pct)
            end
          end
        end
      end
    end
  end
  print(string.format("\nOracle 2: %d / %d Kineto events match (%d without deviceProperties, not compared)",
    match, total, no_props))
  for _, m in ipairs(mismatches) do print("  mismatch: " .. m) end
  -- counts computed independently with a Python json/gzip pass over the same files
  lu.assertEquals(files, #FILES)
  lu.assertEquals(total, 19365)
  lu.assertEquals(no_props, 1155)
  lu.assertTrue(total > 0)
  lu.assertTrue(match >= 0.99 * total, string.format("only %d of %d match", match, total))
  lu.assertEquals(match, total)
end

os.exit(lu.LuaUnit.run())

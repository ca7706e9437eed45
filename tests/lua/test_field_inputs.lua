-- test_field_inputs.lua: the recipes on the field inputs of issue 22
-- (tests/fixtures/README.md says what each fixture imitates).  Expected
-- values are read off the fixtures by hand:
--   ncu/launch_failed_nan.txt: launch 1 failed (two ==ERROR== lines), 6 of
--     its values are "(!) nan" / "(!) n/a";
--   ncu/metrics_only_no_duration.txt: bsum_kernel twice, scan_kernel once,
--     no Duration anywhere;
--   ncu/occupancy_merged_paragraph_2022.txt: one OPT paragraph holding the
--     theoretical- and the achieved-occupancy sentences; theoretical 50 %,
--     achieved 33.1 % (both rules fire in perflab too);
--   kineto/roofline_short_input_dims.json: 3 GEMM ops without usable shapes,
--     one aten::mm 128x64 @ 64x32: 2*128*32*64 = 524288 FLOPs and
--     4 * (128*64 + 64*32 + 128*32) = 57344 bytes.
local lu = require "luaunit"
local perflab = require "perflab"
local R = require "perflab.ncu_rules"
local recipes = require "perflab.recipes"

local function rows(t)
  local out = {}
  for _, r in t:rows() do out[#out + 1] = r end
  return out
end

local function has_note(rep, pat)
  for _, n in ipairs(rep.notes) do if n:find(pat, 1, true) then return n end end
  return nil
end

TestFailedLaunch = {}

function TestFailedLaunch:test_kernels_keep_the_launch_and_its_error()
  local p = perflab.load("tests/fixtures/ncu/launch_failed_nan.txt")
  local k = rows(p:table("kernels"))
  lu.assertEquals(#k, 2)
  lu.assertEquals(k[2].missing_values, 6)
  lu.assertEquals(k[2].launch_error, "LaunchFailed; An error occurred while trying to profile.")
  lu.assertNil(k[2].duration_ns)
  lu.assertEquals(k[1].missing_values, 0)
  lu.assertNil(k[1].launch_error)
  lu.assertEquals(k[1].duration_ns, 3440)
  lu.assertEquals(p:table("rules"):nrows(), 1)
end

function TestFailedLaunch:test_advice_says_the_launch_failed()
  local rep = perflab.run("advice", "tests/fixtures/ncu/launch_failed_nan.txt")
  local f = rep.findings[1]
  lu.assertEquals(f.rule, "ncu.launch_failed")
  lu.assertEquals(f.severity, "warn")
  lu.assertEquals(f.evidence.kernel_id, 1)
  lu.assertEquals(f.evidence.missing_values, 6)
  lu.assertStrContains(f.message, "launch 1 (persistent_kernel) failed under the profiler")
  lu.assertStrContains(f.message, "LaunchFailed")
  -- ncu's own rule of the failed launch is still there
  lu.assertEquals(#rep.findings, 2)
  lu.assertStrContains(rep.findings[2].message, "could not be profiled")
end

TestNoDurations = {}

function TestNoDurations:test_top_kernels_shows_missing_times_with_a_note()
  local rep = perflab.run("top-kernels", "tests/fixtures/ncu/metrics_only_no_duration.txt")
  local t = rows(rep.tables.top_kernels)
  lu.assertEquals(#t, 2)
  lu.assertEquals(t[1].kernel, "bsum_kernel(const float *, float *, float)")
  lu.assertEquals(t[1].calls, 2)
  lu.assertEquals(t[2].calls, 1)
  for _, r in ipairs(t) do
    lu.assertNil(r.total_ns); lu.assertNil(r.mean_ns); lu.assertNil(r.share_pct)
  end
  lu.assertEquals(#rep.findings, 0)
  lu.assertNotNil(has_note(rep, "has no kernel durations"))
  lu.assertStrContains(rep.table_info.top_kernels.title, "kernel time unknown")
end

function TestNoDurations:test_timed_input_still_sums()
  -- the same recipe on a timed input: the total is the durations' sum
  local p = perflab.load("tests/fixtures/ncu/launch_failed_nan.txt")
  local rep = perflab.run("top-kernels", p)
  local t = rows(rep.tables.top_kernels)
  lu.assertEquals(t[1].total_ns, 3440)
  lu.assertEquals(t[1].share_pct, 100)
end

TestRuleSentences = {}

function TestRuleSentences:test_sentences()
  local s = R.sentences("This kernel's theoretical occupancy (33.3%) is limited by registers. The difference "
    .. "between calculated theoretical (33.3%) and measured achieved occupancy (30.1%) can be the result of "
    .. "e.g. imbalance. See the Guide (https://docs.nvidia.com/x.html#occupancy) for details.")
  lu.assertEquals(#s, 3)
  lu.assertEquals(s[1], "This kernel's theoretical occupancy (33.3%) is limited by registers.")
  lu.assertStrContains(s[2], "e.g. imbalance.")
end

function TestRuleSentences:test_merged_paragraph_names_both_rules()
  local p = perflab.load("tests/fixtures/ncu/occupancy_merged_paragraph_2022.txt")
  local msg = p:table("rules"):get(1, "message")
  lu.assertEquals(R.classify_all(msg), { "ncu.theoretical_occupancy", "ncu.achieved_occupancy" })
  -- the first sentence alone is what a paragraph match used to see
  lu.assertEquals(R.classify(msg), "ncu.theoretical_occupancy")
  local rep = perflab.run("ncu-rules", p)
  -- the report's ncu_compare table: ncu fired both, perflab fired both
  local n, same = 0, 0
  for _, r in rep.tables.ncu_compare:rows() do
    if r.implemented == "yes" then n = n + r.ncu_launches; same = same + r.perflab_same_launch end
  end
  lu.assertEquals(n, 2)
  lu.assertEquals(same, 2)
end

TestNeeds = {}

function TestNeeds:test_help_and_runtime_agree()
  local summary_only = "tests/data/corpus/nsys_stats/alcf_polaris_a100_babelstream_nsys_stats.txt"
  local report = "tests/data/seeds/003_ebb91119a615c85c.txt"
  for _, name in ipairs({ "occupancy", "launch" }) do
    local r = recipes.load(name)
    local help = recipes.help(name)
    lu.assertEquals(r.needs, { "kernels" })
    lu.assertEquals(r.timeline_needs, { "kernels|kernel_summary" })
    lu.assertStrContains(help, "needs: kernels (each Nsight Compute report; every input when none is one)")
    lu.assertStrContains(help, "beside a report (or --set timeline=FILE): kernels or kernel_summary")
    -- what help says: a kernel_summary-only input alone is refused ...
    local ok, err = pcall(perflab.run, name, summary_only)
    lu.assertFalse(ok)
    lu.assertStrContains(tostring(err.message or err), "recipe '" .. name .. "' needs a table kernels")
    -- ... and is a timeline beside an ncu report
    ok, err = pcall(perflab.run, name, { perflab.load(report), perflab.load(summary_only) })
    lu.assertTrue(ok, tostring(err and (err.message or err)))
  end
end

TestRoofline = {}

function TestRoofline:test_short_input_dims_are_skipped_and_counted()
  local rep = perflab.run("roofline", "tests/fixtures/kineto/roofline_short_input_dims.json")
  local n = has_note(rep, "GEMM operators")
  lu.assertNotNil(n)
  lu.assertStrContains(n, "3 GEMM operators")
  local by = {}
  for _, r in ipairs(rows(rep.tables.roofline)) do by[r.kernel] = r end
  lu.assertEquals(by.ampere_sgemm_64x32_nn.flops, 524288)
  lu.assertEquals(by.ampere_sgemm_64x32_nn.bytes, 57344)
  lu.assertNil(by.ampere_sgemm_128x64_nn.flops)
  lu.assertNil(by.ampere_sgemm_128x64_tn.flops)
  lu.assertNil(by.ampere_sgemm_bmm_nn.flops)
end

function TestNeeds:test_ncu_rules_help_and_runtime_agree()
  local r = recipes.load("ncu-rules")
  lu.assertEquals(r.needs, { "kernels" })
  lu.assertTrue(r.ncu_only)
  local help = recipes.help("ncu-rules")
  lu.assertStrContains(help, "needs: kernels (each Nsight Compute report)\n")
  lu.assertStrContains(help, "beside a report (or --set timeline=FILE): kernels or kernel_summary")
  -- an ncu report with only a kernel_summary (the per-kernel summary layout) is refused, as help says
  local ok, err = pcall(perflab.run, "ncu-rules", "tests/fixtures/ncu/print_summary_per_kernel.txt")
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err.message or err), "recipe 'ncu-rules' needs a table kernels")
  -- a kernel_summary-only timeline beside a report is accepted
  ok, err = pcall(perflab.run, "ncu-rules", { perflab.load("tests/data/seeds/003_ebb91119a615c85c.txt"),
    perflab.load("tests/data/corpus/nsys_stats/alcf_polaris_a100_babelstream_nsys_stats.txt") })
  lu.assertTrue(ok, tostring(err and (err.message or err)))
end

os.exit(lu.LuaUnit.run())

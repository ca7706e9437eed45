-- tests/lua/test_nsys_recipes.lua -- the timeline and kernel recipes on
-- Nsight Systems SQLite exports (format nsys-sqlite), against the figures of
-- tests/data/corpus/MANIFEST.md ("nsys SQLite figures", measured there with
-- the sqlite3 CLI: sums, interval unions per device, the launch join on
-- (pid, correlation), the upstream nsys-ai diff oracle O1).
local lu = require "luaunit"
local perflab = require "perflab"

local D = (os.getenv("PERFLAB_DATA") or "tests/data") .. "/corpus/nsys_sqlite/"
local CLOVER = D .. "pipit_a100_nsys2024.5.1_perlmutter-cloverleaf-cuda.sqlite"
local BEFORE = D .. "nsysai_h100x2_nsys2026.2.1_mfu_2gpu_before.sqlite"
local AFTER = D .. "nsysai_h100x2_nsys2026.2.1_mfu_2gpu_after.sqlite"
local CONC = D .. "extrap_gtx1060_nsys2022.1.1_concurrent.s1_profile1.sqlite"

local function note_with(rep, text)
  for _, n in ipairs(rep.notes) do if n:find(text, 1, true) then return n end end
  return nil
end

TestNsysRecipes = {}

function TestNsysRecipes:test_top_kernels_by_short_name()
  local rep = perflab.run("top-kernels", perflab.load(CLOVER), { group = "short_name", top = 0 })
  local _, t = next(rep.tables)
  local m = {}
  for _, r in t:rows() do m[r.kernel] = r end
  lu.assertEquals(t:nrows(), 3)
  lu.assertEquals({ m.par_ranged1d_kernel.calls, m.par_ranged1d_kernel.total_ns }, { 968, 4693354 })
  lu.assertEquals({ m.par_ranged2d_kernel.calls, m.par_ranged2d_kernel.total_ns }, { 331, 267056876 })
  lu.assertEquals({ m.par_reduce_kernel.calls, m.par_reduce_kernel.total_ns }, { 13, 22654310 })
  lu.assertEquals(t:col("total_ns"):sum(), 294404540)
end

function TestNsysRecipes:test_occupancy_and_launch_use_the_exports_device()
  local p = perflab.load(CLOVER)
  local occ = perflab.run("occupancy", p, {})
  lu.assertEquals(occ.tables.occupancy:nrows(), 1312)                 -- every launch, no --gpu
  lu.assertEquals(occ.tables.occupancy:col("theoretical_occupancy_pct"):count(), 1312)
  lu.assertEquals(occ.tables.occupancy:row(1).cc, "8.0")
  lu.assertNil(note_with(occ, "pass --gpu"))
  -- the configured shared memory of each launch (sharedMemoryExecuted: 1,309
  -- launches at 32 KB, 3 at 100 KB, measured with the sqlite3 CLI), as ncu's
  -- Shared Memory Configuration Size: no carveout assumption
  lu.assertNil(note_with(occ, "shared-memory configuration size not given"))
  local cfg = {}
  for _, r in occ.tables.occupancy:rows() do cfg[r.smem_config_bytes] = (cfg[r.smem_config_bytes] or 0) + 1 end
  lu.assertEquals(cfg, { [32768] = 1309, [102400] = 3 })
  -- weighted by the export's own kernel times (--set timeline=the same file)
  local w = perflab.run("occupancy", perflab.load(CLOVER), { timeline = CLOVER })
  lu.assertNotNil(w.tables.weighted)
  local total = 0
  for _, f in ipairs(w.findings) do
    lu.assertTrue(f.evidence.kernel_time_ns > 0, f.subject)
    total = total + f.evidence.kernel_time_ns
  end
  lu.assertTrue(total <= 294404540)
  local l = perflab.run("launch", p, {})
  lu.assertEquals(l.tables.launch:nrows(), 1312)
  lu.assertEquals(l.tables.launch:row(1).sm_count, 108)
  -- the cut mfu files have no TARGET_INFO_GPU: occupancy says to name the GPU
  local cut = perflab.run("occupancy", perflab.load(BEFORE), {})
  lu.assertNotNil(note_with(cut, "pass --gpu"))
  lu.assertEquals(perflab.run("occupancy", perflab.load(BEFORE), { gpu = "h100-sxm" }).tables.occupancy:nrows(), 4010)
  -- a GPU the calculator has no constants for (GTX 1060, CC 6.1): skipped with a note, not an error
  local pascal = perflab.run("occupancy", perflab.load(D .. "extrap_gtx1060_nsys2022.1.1_con_kernel.sqlite"), {})
  lu.assertEquals(pascal.tables.occupancy:nrows(), 0)
  lu.assertNotNil(note_with(pascal, "9 at CC 6.1"))
end

function TestNsysRecipes:test_idle_time_per_device()
  local rep = perflab.run("idle-time", perflab.load(BEFORE), {})
  local got = {}
  for _, r in rep.tables.idle:rows() do got[r.device] = { r.busy_ns, r.span_ns, r.idle_ns } end
  lu.assertEquals(got[0], { 273817787, 299848812, 26031025 })
  lu.assertEquals(got[1], { 267275916, 298661551, 31385635 })
end

function TestNsysRecipes:test_launch_latency_joins_on_pid_and_correlation()
  -- correlation alone: 4,280 matches for 4,010 kernels; (pid, correlation): 3,986
  local rep = perflab.run("launch-latency", perflab.load(BEFORE), {})
  lu.assertEquals(rep.tables.launch_delay:row(-1).launches, 3986)
end

function TestNsysRecipes:test_diff_before_after()
  local rep = perflab.run("diff", { perflab.load(BEFORE), perflab.load(AFTER) }, { top = 0 })
  local _, t = next(rep.tables)
  local a, b = t:col("calls_a"):sum(), t:col("calls_b"):sum()
  lu.assertEquals({ a, b }, { 4010, 3587 })
  -- nsys-ai's comparability workload factor: min/max kernel rows, printed truncated as 0.89
  lu.assertEquals(math.floor(b / a * 100) / 100, 0.89)
  lu.assertEquals(t:col("total_ns_a"):sum(), 535200650)
  lu.assertEquals(t:col("total_ns_b"):sum(), 488835406)
  local flash
  for _, r in t:rows() do if r.kernel == "flash_fwd_kernel" then flash = r end end
  lu.assertEquals({ flash.calls_a, flash.total_ns_a, flash.calls_b, flash.total_ns_b },
      { 68, 272317378, 60, 240755667 })
end

function TestNsysRecipes:test_step_breakdown_nvtx_steps()
  -- without --set step: one step over the capture, and a note saying how to name one
  local whole = perflab.run("step-breakdown", perflab.load(CLOVER), {})
  lu.assertEquals(whole.tables.steps:nrows(), 1)
  local r = whole.tables.steps:row(1)
  lu.assertEquals(r.kernel_ns, 294404540)    -- kernels never overlap (one stream): union = sum
  lu.assertEquals(r.memcpy_ns, 9390923)      -- copies on the same stream: none under a kernel
  lu.assertNotNil(note_with(whole, "--set step=NAME"))
  -- with an NVTX range as the step
  local rep = perflab.run("step-breakdown", perflab.load(CONC), { step = "main->test_max_par->phase" })
  lu.assertEquals(rep.tables.steps:nrows(), 1)
  local s = rep.tables.steps:row(1)
  lu.assertEquals(s.start_ns, 552666121)
  local sum = 0
  for _, c in ipairs({ "kernel_ns", "memcpy_ns", "memset_ns", "communication_ns", "runtime_ns", "dataloader_ns",
      "cpu_exec_ns", "other_ns" }) do
    sum = sum + s[c]
  end
  lu.assertEquals(sum, s.total_ns)
  -- kernel_ns: the union of the kernels within the step, worked out here
  local k = perflab.load(CONC):table("kernels")
  local I = require "perflab.intervals"
  local ks, ke = k:col("start_ns"):to_lua(), k:col("end_ns"):to_lua()
  local u = I.from_arrays(ks, ke, #ks):clip(s.start_ns, s.start_ns + s.total_ns):length()
  lu.assertEquals(s.kernel_ns, u)
  lu.assertNotNil(note_with(rep, "Steps: 1 NVTX ranges named 'main->test_max_par->phase' of process 5360"))
end

os.exit(lu.LuaUnit.run())

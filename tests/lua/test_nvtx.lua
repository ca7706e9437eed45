-- tests/lua/test_nvtx.lua -- the nvtx recipe (NVTX ranges projected onto the
-- GPU) against hand-computed values and a second computation.
--
-- Fixture tests/fixtures/nsys_sqlite/nvtx_small.sqlite (built by make.sh from
-- nvtx_small.sql; the values there are chosen for hand computation):
--   thread A (pid 100, tid 101): step [1000,5000) > fwd [1100,2500);
--     launches at 1200 (corr 1 -> kernel [2000,3000)), 1400 (corr 2 ->
--     [2500,3500)), 2600 (corr 3 -> [4000,4200)); step [6000,8000) named
--     through textId, launch 6100 (corr 4 -> [9000,9500), after the range);
--     idle [8100,8200) with no launch; a launch at 5500 outside every range.
--   thread B (tid 102): step [1000,3000), driver launch 1500 (corr 5 -> [5000,5100)).
--   pid 200 launches a kernel with correlation 1 again ([10000,10100)): a join
--   on correlation alone would give fwd and the first step one kernel more.
-- By hand:  step#A1: kernels 3, gpu [2000,4200) span 2200, busy |[2000,3500)
--   u [4000,4200)| = 1700;  fwd: 2 kernels, span 1500, busy 1500;  step#A2:
--   1 kernel, span 500, busy 500;  step#B: 1 kernel, span 100, busy 100.
--   name step: 3 instances, CPU 4000+2000+2000 = 8000 (mean 2666.67, min 2000,
--   max 4000), span 2800, busy 2300, kernels 5, busy 28.75 % -> host-bound
--   under the default 50 %;  fwd: 1400 CPU, busy 1500 (107 %) -> no finding.
-- The second computation (brute force, every range against every kernel,
-- the union by sorting in plain Lua) is run on the fixture and on the
-- 2-process mfu export of the corpus, and must equal the recipe's tables.
local lu = require "luaunit"
local perflab = require "perflab"

local data = os.getenv("PERFLAB_DATA") or "tests/data"
local SMALL = "tests/fixtures/nsys_sqlite/nvtx_small.sqlite"
local MFU = data .. "/corpus/nsys_sqlite/nsysai_h100x2_nsys2026.2.1_mfu_2gpu_before.sqlite"

local function by_name(t)
  local m = {}
  for _, r in t:rows() do m[r.name] = r end
  return m
end

-- plain Lua: the union length of intervals
local function union_len(iv)
  table.sort(iv, function(a, b) return a[1] < b[1] end)
  local total, cs, ce = 0, nil, nil
  for _, x in ipairs(iv) do
    if ce == nil or x[1] > ce then
      if ce then total = total + (ce - cs) end
      cs, ce = x[1], x[2]
    elseif x[2] > ce then ce = x[2] end
  end
  if ce then total = total + (ce - cs) end
  return total
end

-- the definition, brute force: per range instance, every kernel whose launch
-- (same pid and correlation) is on the range's thread and starts inside it
local function brute(p)
  local rt = {}
  for _, r in p:table("runtime"):rows() do
    local key = r.pid .. ":" .. r.correlation
    if rt[key] == nil then rt[key] = r end
  end
  local ks = {}   -- per launching thread
  for _, k in p:table("kernels"):rows() do
    local l = k.correlation and rt[k.pid .. ":" .. k.correlation]
    if l then
      local key = l.pid .. ":" .. l.tid
      ks[key] = ks[key] or {}
      table.insert(ks[key], { s = k.start_ns, e = k.end_ns, pid = l.pid, tid = l.tid, at = l.start_ns })
    end
  end
  local names = {}
  for _, r in p:table("nvtx"):rows() do
    if r.end_ns then
      local iv, gs, ge = {}, nil, nil
      for _, k in ipairs(ks[r.pid .. ":" .. r.tid] or {}) do
        if k.pid == r.pid and k.tid == r.tid and k.at >= r.start_ns and k.at < r.end_ns then
          iv[#iv + 1] = { k.s, k.e }
          gs = (gs == nil or k.s < gs) and k.s or gs
          ge = (ge == nil or k.e > ge) and k.e or ge
        end
      end
      local n = names[r.name]
      if not n then n = { instances = 0, cpu = 0, span = 0, busy = 0, kernels = 0 }; names[r.name] = n end
      n.instances = n.instances + 1
      n.cpu = n.cpu + (r.end_ns - r.start_ns)
      n.kernels = n.kernels + #iv
      if gs then n.span = n.span + (ge - gs); n.busy = n.busy + union_len(iv) end
    end
  end
  return names
end

local function same_as_brute(path)
  local p = perflab.load(path)
  local rep = perflab.run("nvtx", p, { top = 0 })
  local got = by_name(rep.tables.nvtx)
  local want = brute(p)
  local n = 0
  for name, w in pairs(want) do
    local g = got[name]
    lu.assertNotNil(g, name)
    lu.assertEquals({ g.instances, g.cpu_total_ns, g.gpu_span_total_ns, g.gpu_busy_total_ns, g.kernels },
                    { w.instances, w.cpu, w.span, w.busy, w.kernels }, name)
    n = n + 1
  end
  lu.assertEquals(rep.tables.nvtx:nrows(), n)
  return rep, n
end

TestNvtx = {}

function TestNvtx:test_hand_values()
  local rep = perflab.run("nvtx", perflab.load(SMALL), { instances = true })
  local m = by_name(rep.tables.nvtx)
  local s = m.step
  lu.assertEquals({ s.instances, s.cpu_total_ns, s.cpu_min_ns, s.cpu_max_ns, s.gpu_span_total_ns, s.gpu_busy_total_ns,
      s.kernels },
                  { 3, 8000, 2000, 4000, 2800, 2300, 5 })
  lu.assertAlmostEquals(s.cpu_mean_ns, 8000 / 3, 1e-9)
  lu.assertAlmostEquals(s.busy_pct, 28.75, 1e-12)
  local f = m.fwd
  lu.assertEquals({ f.instances, f.cpu_total_ns, f.gpu_span_total_ns, f.gpu_busy_total_ns, f.kernels },
      { 1, 1400, 1500, 1500, 2 })
  lu.assertEquals({ m.idle.kernels, m.idle.gpu_busy_total_ns }, { 0, 0 })
  -- per instance, by start: step A1, step B, fwd, step A2, idle
  local inst = rep.tables.nvtx_instances
  lu.assertEquals(inst:nrows(), 5)
  local r1 = inst:row(1)
  lu.assertEquals({ r1.name, r1.tid, r1.depth, r1.kernels, r1.gpu_start_ns, r1.gpu_end_ns, r1.gpu_span_ns,
      r1.gpu_busy_ns },
                  { "step", 101, 0, 3, 2000, 4200, 2200, 1700 })
  local r3 = inst:row(3)
  lu.assertEquals({ r3.name, r3.depth, r3.kernels, r3.gpu_busy_ns }, { "fwd", 1, 2, 1500 })
  local r4 = inst:row(4)
  lu.assertEquals({ r4.start_ns, r4.gpu_start_ns, r4.gpu_end_ns }, { 6000, 9000, 9500 })   -- named through textId
  lu.assertEquals(inst:row(2).tid, 102)
  lu.assertNil(inst:row(5).gpu_start_ns)
  -- one finding: step is host-bound (idle launched nothing, fwd is busy)
  lu.assertEquals(#rep.findings, 1)
  lu.assertEquals(rep.findings[1].rule, "nvtx.host_bound")
  lu.assertEquals(rep.findings[1].subject, "step")
  lu.assertAlmostEquals(rep.findings[1].evidence.busy_pct, 28.75, 1e-12)
  -- a lower threshold drops it
  lu.assertEquals(#perflab.run("nvtx", perflab.load(SMALL), { busy_pct = 20 }).findings, 0)
end

function TestNvtx:test_second_computation_small()
  same_as_brute(SMALL)
end

function TestNvtx:test_second_computation_two_processes()
  local rep, n = same_as_brute(MFU)
  lu.assertEquals(n, 18499)
  local total = 0
  for _, r in rep.tables.nvtx:rows() do total = total + r.instances end
  lu.assertEquals(total, 19118)
end

os.exit(lu.LuaUnit.run())

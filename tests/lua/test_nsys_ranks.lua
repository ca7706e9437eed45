-- tests/lua/test_nsys_ranks.lua -- distributed and stragglers on nsys
-- multi-process exports (issue 20: each process of one export is a rank),
-- and the figures of both recipes from their real report tables (issue 21).
--
-- The corpus pair nsysai_h100x2_*_mfu_2gpu_{before,after}.sqlite: torchrun
-- with 2 processes, one GPU each, NCCL SendRecv kernels, no MPI_RANKS table
-- (ranks: the processes in pid order).  Second computation: straight from
-- the unsplit profile's kernels table, per pid: the communication kernels
-- (perflab.comm), the union of kernel intervals inside the report's step
-- span, and the tb-plugin transfer time (end - shortest duration over
-- ranks of the i-th collective, end), with an interval union of the test's
-- own.
local lu = require "luaunit"
local perflab = require "perflab"
local recipes = require "perflab.recipes"
local ranks = require "perflab.ranks"
local comm = require "perflab.comm"
local tdata = require "tdata"

local BEFORE = tdata.path("corpus/nsys_sqlite/nsysai_h100x2_nsys2026.2.1_mfu_2gpu_before.sqlite")
local AFTER = tdata.path("corpus/nsys_sqlite/nsysai_h100x2_nsys2026.2.1_mfu_2gpu_after.sqlite")

local function rows_of(t)
  local out = {}
  for i, r in t:rows() do out[i] = r end
  return out
end

-- length of the union of [s, e) clipped to [lo, hi)
local function union(iv, lo, hi)
  local c = {}
  for _, x in ipairs(iv) do
    local s, e = math.max(x[1], lo or math.mininteger), math.min(x[2], hi or math.maxinteger)
    if e > s then c[#c + 1] = { s, e } end
  end
  table.sort(c, function(a, b) return a[1] < b[1] end)
  local total, cs, ce = 0, nil, nil
  for _, x in ipairs(c) do
    if cs and x[1] <= ce then
      if x[2] > ce then ce = x[2] end
    else
      if cs then total = total + (ce - cs) end
      cs, ce = x[1], x[2]
    end
  end
  if cs then total = total + (ce - cs) end
  return total
end

-- per pid: {comm = {{s, e}...} in start order (longer first), comp = {...}}
local function by_pid(p)
  local k = p.tables.kernels
  local pid, name, s, d = k:col("pid"):to_lua(), k:col("name"):to_lua(), k:col("start_ns"):to_lua(),
      k:col("duration_ns"):to_lua()
  local out = {}
  for i = 1, #pid do
    local g = out[pid[i]] or { comm = {}, comp = {} }
    out[pid[i]] = g
    local list = comm.is_kernel(name[i]) and g.comm or g.comp
    list[#list + 1] = { s[i], s[i] + d[i] }
  end
  for _, g in pairs(out) do
    table.sort(g.comm, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] > b[2] end)
  end
  return out
end

TestNsysRanks = {}

function TestNsysRanks:testSplitByProcess()
  local p = perflab.load(BEFORE)
  local ps = ranks.split({ p })
  lu.assertEquals(#ps, 2)
  lu.assertEquals({ ps[1].pid, ps[2].pid }, { 144, 145 })
  lu.assertEquals({ ps[1].rank, ps[2].rank }, { 0, 1 })
  lu.assertEquals(ps[1].rank_from, "process")
  -- every row of a pid-carrying table goes to exactly one process
  lu.assertEquals(ps[1].tables.kernels:nrows() + ps[2].tables.kernels:nrows(), p.tables.kernels:nrows())
  lu.assertEquals(ps[1].tables.kernels:nrows(), 1993)    -- sqlite3: count(*) group by globalPid >> 24
  lu.assertEquals(ps[2].tables.kernels:nrows(), 2017)
  -- the loaded profile is unchanged
  lu.assertEquals(p.tables.kernels:nrows(), 4010)
  lu.assertNil(p.pid)
  -- one process: passes through
  local one = ranks.split({ ps[1] })
  lu.assertIs(one[1], ps[1])
end

function TestNsysRanks:testDistributed()
  local p = perflab.load(BEFORE)
  local rep = recipes.run("distributed", { p }, {})
  local rk = rows_of(rep.tables.ranks)
  lu.assertEquals(#rk, 2)
  lu.assertStrContains(rk[1].source, "(pid 144)")
  lu.assertStrContains(rk[2].source, "(pid 145)")
  local g = by_pid(p)
  local gs = { g[144], g[145] }
  lu.assertEquals(#gs[1].comm, 33)
  lu.assertEquals(#gs[2].comm, 33)
  local steps = rows_of(rep.tables.steps)
  lu.assertEquals(#steps, 2)
  for k, st in ipairs(steps) do
    lu.assertEquals(st.rank, k - 1)
    local lo, hi = st.start_ns, st.start_ns + st.duration_ns
    local c1, c2 = union(gs[k].comp, lo, hi), union(gs[k].comm, lo, hi)
    local all = {}
    for _, x in ipairs(gs[k].comp) do all[#all + 1] = x end
    for _, x in ipairs(gs[k].comm) do all[#all + 1] = x end
    local ov = c1 + c2 - union(all, lo, hi)
    lu.assertEquals(st.computation_ns, c1)
    lu.assertEquals(st.communication_ns, c2)
    lu.assertEquals(st.overlap_ns, ov)
    lu.assertEquals(st.other_ns, st.duration_ns + ov - c1 - c2)
    lu.assertTrue(c1 > 0.8 * st.duration_ns)         -- a compute-bound 300 ms window
  end
  -- the collectives, matched by order: transfer = (end - min duration, end)
  -- (the ranks' totals are over their steps: a collective counts in the
  -- step that holds it)
  local tr, inside = { {}, {} }, { {}, {} }
  for i = 1, 33 do
    local m = math.min(gs[1].comm[i][2] - gs[1].comm[i][1], gs[2].comm[i][2] - gs[2].comm[i][1])
    for k = 1, 2 do
      local c, st = gs[k].comm[i], steps[k]
      if c[1] >= st.start_ns and c[2] <= st.start_ns + st.duration_ns then
        tr[k][#tr[k] + 1] = { c[2] - m, c[2] }
        inside[k][#inside[k] + 1] = c
      end
    end
  end
  for k = 1, 2 do
    lu.assertTrue(#inside[k] >= 30)
    lu.assertEquals(rk[k].transfer_ns, union(tr[k]))
    lu.assertEquals(rk[k].transfer_ns + rk[k].sync_ns, union(inside[k]))
  end
  -- the collectives table: 33 per rank
  lu.assertEquals(rep.tables.collectives:nrows(), 66)
  -- the figure: one stacked bar per rank; bar length = the rank's mean step
  -- (computation + communication - overlap + other)
  local svg = rep.figures["ranks.svg"].svg
  lu.assertNotNil(svg)
  local w = {}
  for tag, attrs, title in svg:gmatch("<(%a+)([^>]*)><title>([^<]*)</title>") do
    local r = title:match("^rank (%d) ·")
    local width = tonumber(attrs:match(' width="([%d%.]+)"'))
    if tag == "rect" and r and width then w[tonumber(r)] = (w[tonumber(r)] or 0) + width end
  end
  local function step(r) return r.computation_ns + r.communication_ns - r.overlap_ns + r.other_ns end
  lu.assertAlmostEquals(w[1] / w[0], step(rk[2]) / step(rk[1]), 0.01)
  lu.assertAlmostEquals(step(rk[1]), rk[1].step_mean_ns, 1)
end

function TestNsysRanks:testJobsAndTwoExports()
  -- two exports of two processes each: four ranks, in file then pid order;
  -- --jobs 1 and 2 give the same report
  local r1 = recipes.run("stragglers", perflab.load_many({ BEFORE, AFTER }, { jobs = 1 }), {})
  local r2 = recipes.run("stragglers", perflab.load_many({ BEFORE, AFTER }, { jobs = 2 }), {})
  lu.assertEquals(r1:render_json(), r2:render_json())
  local rk = rows_of(r1.tables.ranks)
  lu.assertEquals(#rk, 4)
  for k, pid in ipairs({ 144, 145, 148, 149 }) do
    lu.assertEquals(rk[k].rank, k - 1)
    lu.assertStrContains(rk[k].source, string.format("(pid %d)", pid))
  end
  -- no ProfilerStep in these windows: HTA's method has no iteration, and says so
  local notes = table.concat(r1.notes, "\n")
  lu.assertStrContains(notes, "ProfilerStep")
  -- distributed on both: the runs disagree on the collective count (33 vs
  -- 31 per process): a clear error naming both
  local ok, err = pcall(recipes.run, "distributed", perflab.load_many({ BEFORE, AFTER }, { jobs = 2 }), {})
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "ranks disagree on the collective count")
  lu.assertStrContains(tostring(err), "(pid 148)")
  -- distributed on one export, jobs 1 vs 2
  local d1 = recipes.run("distributed", perflab.load_many({ AFTER }, { jobs = 1 }), {})
  local d2 = recipes.run("distributed", perflab.load_many({ AFTER }, { jobs = 2 }), {})
  lu.assertEquals(d1:render_json(), d2:render_json())
  lu.assertEquals(d1.tables.ranks:nrows(), 2)
end

function TestNsysRanks:testStragglersFigureMatchesTable()
  -- the planted straggler (tests/fixtures/multirank/straggler, see
  -- test_stragglers.lua): the heat map has a cell per (rank, iteration)
  -- row of the report, and its hottest cell is the largest lateness
  local fs = {}
  for r = 0, 3 do fs[#fs + 1] = string.format("tests/fixtures/multirank/straggler/rank-%d.json.gz", r) end
  local rep = recipes.run("stragglers", perflab.load_many(fs), {})
  local svg = rep.figures["stragglers.svg"].svg
  lu.assertNotNil(svg)
  local it = rows_of(rep.tables.iterations)
  lu.assertTrue(#it > 0)
  local fill = {}
  local n = 0
  for tag, attrs, title in svg:gmatch("<(%a+)([^>]*)><title>([^<]*)</title>") do
    if tag == "rect" and title:match("^rank %d+ · ") then fill[title] = attrs:match(' fill="([^"]*)"'); n = n + 1 end
  end
  lu.assertEquals(n, #it)
  local top, bottom
  for _, r in ipairs(it) do
    if not top or r.lateness > top.lateness then top = r end
    if not bottom or r.lateness < bottom.lateness then bottom = r end
  end
  lu.assertEquals(top.rank, 2)                        -- the planted rank
  local function key(r) return string.format("rank %d · %s: %s", r.rank, tostring(r.iteration),
      perflab.units.sig(r.lateness, 3)) end
  lu.assertEquals(fill[key(top)], "#fde725")
  lu.assertEquals(fill[key(bottom)], "#440154")
end

function TestNsysRanks:testMapRefusesMultiProcessExport()
  local ok, err = pcall(recipes.map_write, "distributed", perflab.load(BEFORE), {}, os.tmpname() .. ".d")
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "2 processes")
end

function TestNsysRanks:testHeatmapLabelsFitTheirCells()
  -- a value label is drawn in its cell only where it fits (the stragglers
  -- heat map had "-0.0000524" spill over its 45 px neighbours)
  local chart = require "perflab.chart"
  local cols = {}
  for i = 1, 11 do cols[i] = tostring(i) end
  local vals = { {}, {} }
  for i = 1, 11 do vals[1][i] = -0.0000524; vals[2][i] = 0.0359 end
  local svg = chart.heatmap { rows = { "a", "b" }, cols = cols, values = vals,
      format = function(v) return perflab.units.sig(v, 3) end }
  local cw = tonumber(svg:match('<rect x="[%d%.]+" y="[%d%.]+" width="([%d%.]+)"[^>]*><title>a · 1:'))
  lu.assertTrue(cw < 10 * 5.3)                       -- too narrow for the long label
  local long, short = 0, 0
  for t in svg:gmatch('font%-size="9"[^>]*>([^<]*)</text>') do
    if t == perflab.units.sig(-0.0000524, 3) then long = long + 1 end
    if t == perflab.units.sig(0.0359, 3) then short = short + 1 end
  end
  lu.assertEquals(long, 0)
  lu.assertEquals(short, 11)
end

function TestNsysRanks:testMpiRanks()
  -- tests/fixtures/nsys_sqlite/nvtx_small.sql: processes 100 and 200 ran
  -- kernels (6 and 1), MPI_RANKS gives their main threads ranks 0 and 1;
  -- process 300 ran none and is no rank
  local p = perflab.load("tests/fixtures/nsys_sqlite/nvtx_small.sqlite")
  local ps = ranks.split({ p })
  lu.assertEquals(#ps, 2)
  lu.assertEquals({ ps[1].pid, ps[2].pid }, { 100, 200 })
  lu.assertEquals({ ps[1].rank, ps[2].rank }, { 0, 1 })
  lu.assertEquals({ ps[1].rank_from, ps[2].rank_from }, { "mpi", "mpi" })
  lu.assertEquals({ ps[1].tables.kernels:nrows(), ps[2].tables.kernels:nrows() }, { 6, 1 })
  -- the NVTX ranges go with their process (all five on pid 100's threads)
  lu.assertEquals(ps[1].tables.nvtx:nrows() + ps[2].tables.nvtx:nrows(), p.tables.nvtx:nrows())
  lu.assertEquals(ps[2].tables.nvtx:nrows(), 0)
end

function TestNsysRanks:testTimelineOnNsys()
  -- the timeline recipe on the 2-process export: its table has a GPU track
  -- per (device, stream) that ran kernels in the window and a CPU track per
  -- launching thread, and the Gantt chart has a lane for each
  local p = perflab.load(BEFORE)
  local rep = recipes.run("timeline", { p }, {})
  local svg = rep.figures["timeline.svg"].svg
  lu.assertNotNil(svg)
  local tracks = rows_of(rep.tables.timeline)
  local gpu, cpu = 0, 0
  for _, t in ipairs(tracks) do
    if t.kind == "gpu" then gpu = gpu + 1 else cpu = cpu + 1 end
    lu.assertStrContains(svg, ">" .. t.track .. "<")
  end
  -- both GPUs (device 0: pid 144, device 1: pid 145) and both processes
  lu.assertTrue(gpu >= 2)
  lu.assertTrue(cpu >= 2)
  local devs = {}
  for _, t in ipairs(tracks) do local d = t.track:match("^GPU (%d+)"); if d then devs[d] = true end end
  lu.assertTrue(devs["0"] and devs["1"])
end

os.exit(lu.LuaUnit.run())

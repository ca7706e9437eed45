-- test_figures.lua -- perflab.chart, the recipes' figures, the HTML page and
-- the Chrome-trace export.  Values are checked against the report's tables
-- or recomputed here; every SVG must be well-formed XML (xmllint) and render
-- (rsvg-convert: Debian's libxml2-utils and librsvg2-bin, in tools/deps.sh).
-- Run: build/perflab tests/lua/test_figures.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local chart = require "perflab.chart"
local html = require "perflab.html"
local trace = require "perflab.trace"
local units = perflab.units

local DATA = os.getenv("PERFLAB_DATA") or "tests/data"
local C = DATA .. "/corpus/"
local NCU = C .. "ncu_text/gpumode_lecture001_ncu_logs_cc80.txt"
local KINETO = C .. "kineto_trace/hta_a100_alexnet_trace.json.gz"
local SEED0 = DATA .. "/seeds/000_86950a828dffa530.txt"
local HOSTILE = "tests/fixtures/hostile/hostile_trace.json"
local PLAIN = "tests/fixtures/hostile/plain_trace.json"

local TMP = os.tmpname()
os.remove(TMP)

local function write(path, text) local f = assert(io.open(path, "wb")); f:write(text); f:close() end
local function sh(cmd) local ok = os.execute(cmd); return ok == true end

--- well-formed XML and renders to a PNG of some size
local function check_svg(svg, what)
  local p = TMP .. ".svg"
  write(p, svg)
  lu.assertTrue(sh("xmllint --noout " .. p .. " 2>/dev/null"), what .. ": not well-formed XML")
  lu.assertTrue(sh("rsvg-convert " .. p .. " -o " .. TMP .. ".png 2>/dev/null"), what .. ": rsvg-convert failed")
  local f = assert(io.open(TMP .. ".png", "rb"))
  local png = f:read("a"); f:close()
  lu.assertEquals(png:sub(1, 8), "\137PNG\r\n\26\n", what)
  lu.assertTrue(#png > 2000, what .. ": PNG too small to hold a chart")
  os.remove(p); os.remove(TMP .. ".png")
end

--- the marks with a hover title: {tag, attrs = {k = v}, title}
local function marks(svg)
  local out = {}
  for tag, attrs, title in svg:gmatch("<(%a+)([^>]*)><title>([^<]*)</title>") do
    local a = {}
    for k, v in attrs:gmatch('([%w%-]+)="([^"]*)"') do a[k] = tonumber(v) or v end
    out[#out + 1] = { tag = tag, attrs = a, title = title }
  end
  return out
end

local function rects(svg)
  local out = {}
  for _, m in ipairs(marks(svg)) do if m.tag == "rect" and m.attrs.stroke == "#000" then out[#out + 1] = m end end
  return out
end

-- ---- the chart module ---------------------------------------------------------

function testEscape()
  lu.assertEquals(chart.escape([[<script>a("x")</script> & 'q']]),
    "&lt;script&gt;a(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;")
  lu.assertEquals(chart.escape("ünï 核"), "ünï 核")
  -- bytes that are not UTF-8 become U+FFFD; control bytes XML forbids are dropped
  lu.assertEquals(chart.escape("a\255b\1c\tz"), "a\u{FFFD}bc\tz")
  lu.assertEquals(chart.escape(42), "42")
end

function testScales()
  local f, tk = chart.scale(1, 1000, 0, 300, true)
  lu.assertEquals(tk, { 1, 10, 100, 1000 })
  lu.assertAlmostEquals(f(10), 100, 1e-9)
  lu.assertAlmostEquals(f(100), 200, 1e-9)
  local g, tl = chart.scale(0, 7.3, 0, 80, false)
  lu.assertEquals(tl, { 0, 2, 4, 6, 8 })      -- 1-2-5 steps: 7.3 / 5 -> 2
  lu.assertAlmostEquals(g(4), 40, 1e-9)
end

function testHorizontalBarsProportional()
  local svg = chart.bars { title = "t", horizontal = true, categories = { "a", "b", "c" },
    series = { { name = "share", values = { 50, 30, 20 } } } }
  check_svg(svg, "bars")
  local r = rects(svg)
  lu.assertEquals(#r, 3)
  local w1, w2, w3 = r[1].attrs.width, r[2].attrs.width, r[3].attrs.width
  lu.assertAlmostEquals(w2 / w1, 30 / 50, 0.005)
  lu.assertAlmostEquals(w3 / w1, 20 / 50, 0.005)
  lu.assertEquals(r[1].attrs.x, r[2].attrs.x)              -- all from the same zero
end

function testStackedBarsSum()
  local svg = chart.bars { title = "steps", stacked = true, categories = { "1", "2" },
    series = { { name = "kernel", values = { 6, 2 } }, { name = "memcpy", values = { 2, 2 } },
        { name = "other", values = { 2, 0 } } } }
  check_svg(svg, "stacked")
  local r = rects(svg)
  local height = { 0, 0 }
  local x = {}
  for _, m in ipairs(r) do
    local c = m.title:match("^(%d)")
    height[tonumber(c)] = height[tonumber(c)] + m.attrs.height
    x[c] = x[c] or m.attrs.x
    lu.assertEquals(m.attrs.x, x[c])                        -- one column per category
  end
  -- the zero-height segment (other = 0 in step 2) is drawn 0.5 px high
  lu.assertAlmostEquals(height[2] / height[1], 4 / 10, 0.01)
  -- textures: series 2 and 3 are patterns, series 1 solid
  lu.assertStrContains(svg, "<pattern id=")
  lu.assertEquals(select(2, svg:gsub("<pattern ", "")), 2)
end

function testWaterfallRunningTotal()
  local svg = chart.waterfall { title = "diff", start = 100,
      items = { { label = "gemm", delta = 20 }, { label = "relu", delta = -5 } } }
  check_svg(svg, "waterfall")
  local r = rects(svg)
  lu.assertEquals(#r, 4)
  -- totals 100 and 115 from the same axis floor; the steps float
  local t1, t4 = r[1].attrs.height, r[4].attrs.height
  local s2, s3 = r[2].attrs.height, r[3].attrs.height
  lu.assertAlmostEquals(s2 / s3, 20 / 5, 0.02)
  lu.assertAlmostEquals((t4 - t1) / s3, (115 - 100) / 5, 0.02)
  lu.assertStrContains(r[4].title, "after: 115")
end

function testHeatmapRamp()
  local svg = chart.heatmap { title = "h", rows = { "rank 0", "rank 1" }, cols = { "1", "2" },
      values = { { 1, 2 }, { 3, nil } } }
  check_svg(svg, "heatmap")
  local fill = {}
  for _, m in ipairs(marks(svg)) do if m.tag == "rect" then fill[m.title] = m.attrs.fill end end
  lu.assertEquals(fill["rank 0 · 1: 1"], "#440154")          -- viridis ends
  lu.assertEquals(fill["rank 1 · 1: 3"], "#fde725")
  lu.assertEquals(fill["rank 1 · 2: no value"], "#fff")
end

function testPlotAndGantt()
  local svg = chart.plot { title = "p", x_log = true, y_log = true,
    series = { { name = "a", points = { { 1, 10 }, { 100, 1000 } } },
        { name = "b", line = false, points = { { 10, 10, title = "pt" } } } } }
  check_svg(svg, "plot")
  local m = marks(svg)
  local pt
  for _, x in ipairs(m) do if x.title == "pt" then pt = x end end
  lu.assertNotNil(pt)
  lu.assertEquals(pt.tag, "rect")                            -- second series: squares
  local g = chart.gantt { title = "g", lanes = { "cpu", "gpu" },
    items = { { lane = "cpu", start = 0, finish = 10, kind = "runtime", label = "launch" },
        { lane = "gpu", start = 20, finish = 40, kind = "kernel", label = "k" } },
    links = { { from_lane = "cpu", from = 5, to_lane = "gpu", to = 20 } } }
  check_svg(g, "gantt")
  lu.assertEquals(select(2, g:gsub("marker%-end=", "")), 1)
end

function testSha256AndBase64()
  lu.assertEquals(html.base64(html.sha256("abc")), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
  lu.assertEquals(html.base64(html.sha256("")), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
  -- two blocks (56 bytes: the length no longer fits the first block)
  lu.assertEquals(html.base64(html.sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
    "JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE=")
  lu.assertEquals(html.base64("ab"), "YWI=")
end

-- chart ids: FNV-1a (32 bits) of the chart's text, in C (perflab.sys.fnv1a).
-- The published test vectors, the per-byte Lua loop the charts used before
-- on random bytes, and a chart's id recomputed from its own text.
function testChartIdsFnv1a()
  local fnv1a = require("perflab.sys").fnv1a
  lu.assertEquals(fnv1a(""), 0x811c9dc5)
  lu.assertEquals(fnv1a("a"), 0xe40c292c)
  lu.assertEquals(fnv1a("foobar"), 0xbf9cf968)
  local function lua_fnv1a(str)
    local h = 2166136261
    for i = 1, #str do h = ((h ~ str:byte(i)) * 16777619) & 0xffffffff end
    return h
  end
  math.randomseed(17)
  for n = 0, 200 do
    local b = {}
    for i = 1, n do b[i] = string.char(math.random(0, 255)) end
    local str = table.concat(b)
    lu.assertEquals(fnv1a(str), lua_fnv1a(str))
  end
  local svg = chart.bars { title = "ids", categories = { "a", "b" }, series = { { name = "s", values = { 1, 2 } } } }
  local id = svg:match('aria%-labelledby="(c%x+)%-t"')
  lu.assertNotNil(id)
  -- the text hashed has "\1" where the id goes
  local text = svg:gsub(id, "\1")
  lu.assertEquals(id, string.format("c%08x", lua_fnv1a(text)))
end

-- ---- each recipe's figure ------------------------------------------------------

local function run(recipe, files, opts)
  local ins = {}
  for i, f in ipairs(files) do ins[i] = perflab.load(f) end
  return perflab.run(recipe, ins, opts)
end

function testTopKernelsFigure()
  local rep = run("top-kernels", { SEED0 })
  local svg = rep.figures["top_kernels.svg"].svg
  check_svg(svg, "top-kernels")
  local t = rep.tables.top_kernels
  local r = rects(svg)
  lu.assertEquals(#r, math.min(25, t:nrows()))
  lu.assertStrContains(r[1].title, t:get(1, "kernel") .. ": " .. units.sig(t:get(1, "share_pct"), 3) .. " %")
  lu.assertAlmostEquals(r[2].attrs.width / r[1].attrs.width, t:get(2, "share_pct") / t:get(1, "share_pct"), 0.01)
end

function testRooflineFallsBackToSpeedOfLight()
  for _, f in ipairs({ NCU, SEED0 }) do
    local rep = run("roofline", { f })
    lu.assertNil(rep.figures["roofline.svg"])
    local svg = rep.figures["speed_of_light.svg"].svg
    check_svg(svg, "speed of light " .. f)
    local t = rep.tables.roofline
    local n = 0
    for i = 1, t:nrows() do if t:get(i, "compute_pct") and t:get(i, "memory_pct") then n = n + 1 end end
    local pts = {}
    for _, m in ipairs(marks(svg)) do if m.title:find(": compute ", 1, true) then pts[#pts + 1] = m end end
    lu.assertEquals(#pts, n)
    -- the first kernel: its marker at (memory %, compute %) of a 0..100 plot
    local k, cp, mp = t:get(1, "kernel"), t:get(1, "compute_pct"), t:get(1, "memory_pct")
    local found
    for _, m in ipairs(pts) do
      if m.title:sub(1, #k + 2) == k .. ": " and m.title:find("compute " .. units.sig(cp, 3) .. " %", 1,
          true) then found = m end
    end
    lu.assertNotNil(found, "marker for " .. k)
    -- the plot area: x0 = 76 at 0 %, x1 = 640 - 20 at 100 %
    local cx = found.attrs.cx or found.attrs.x + found.attrs.width / 2
    lu.assertAlmostEquals(cx, 76 + mp / 100 * (620 - 76), 0.2)
  end
end

function testOccupancyFigures()
  local rep = run("occupancy", { NCU })
  local t = rep.tables.occupancy
  for _, key in ipairs({ "block_size", "registers", "smem_bytes" }) do
    local svg = rep.figures["occupancy_" .. key .. ".svg"].svg
    check_svg(svg, "occupancy " .. key)
    -- the current configuration's marker says the table's theoretical occupancy
    local k = t:get(1, "kernel")
    local want = string.format("%s: %%s = %s → %s theoretical occupancy", k, units.count(t:get(1, key)),
      units.sig(t:get(1, "theoretical_occupancy_pct"), 3) .. " %")
    local ok = false
    for _, m in ipairs(marks(svg)) do
      if m.title:sub(1, #k) == k and m.title:find(" = " .. units.count(t:get(1, key)) .. " → " ..
        units.sig(t:get(1, "theoretical_occupancy_pct"), 3) .. " %", 1, true) then ok = true end
    end
    lu.assertTrue(ok, want)
  end
end

function testLaunchWaves()
  local rep = run("launch", { NCU })
  local svg = rep.figures["launch_waves.svg"].svg
  check_svg(svg, "launch")
  local t = rep.tables.launch
  -- each bar: whole + partial = waves_per_sm of the kernel, on one scale
  local r = rects(svg)
  local per = {}
  for _, m in ipairs(r) do
    local k = m.title:match("^(.-): grid")
    per[k] = (per[k] or 0) + m.attrs.width
  end
  local k1, k2 = t:get(1, "kernel"), t:get(2, "kernel")
  lu.assertAlmostEquals(per[k1] / per[k2], t:get(1, "waves_per_sm") / t:get(2, "waves_per_sm"), 0.01)
end

function testStepBreakdownAndTimeline()
  local rep = run("step-breakdown", { HOSTILE })
  local svg = rep.figures["step_breakdown.svg"].svg
  check_svg(svg, "step-breakdown")
  local st = rep.tables.steps
  lu.assertEquals(st:nrows(), 2)
  -- one column per step whose height is the sum of its categories
  local h = {}
  for _, m in ipairs(rects(svg)) do
    local s = m.title:match("^step (%d+)")
    h[s] = (h[s] or 0) + m.attrs.height
  end
  local function cat_sum(i)
    local s = 0
    for _, c in ipairs(st:columns()) do
      if c:match("_ns$") and c ~= "total_ns" and c ~= "start_ns" then s = s + (st:get(i, c) or 0) end
    end
    return s
  end
  local s1, s2 = tostring(st:get(1, "step")), tostring(st:get(2, "step"))
  lu.assertAlmostEquals(h[s2] / h[s1], cat_sum(2) / cat_sum(1), 0.02)
  -- the Gantt chart of the slowest step: its kernels, runtime calls and ops, one arrow per launch
  local tlr = run("timeline", { HOSTILE })
  local g = tlr.figures["timeline.svg"].svg
  check_svg(g, "timeline")
  local p = perflab.load(HOSTILE)
  local steps = p.tables.steps
  local slow = steps:get(1, "duration_ns") >= steps:get(2, "duration_ns") and 1 or 2
  local a = steps:get(slow, "start_ns")
  local b = a + steps:get(slow, "duration_ns")
  local n = 0
  for _, tn in ipairs({ "kernels", "runtime", "cpu_ops" }) do
    local t = p.tables[tn]
    for i = 1, t:nrows() do
      local s, d = t:get(i, "start_ns"), t:get(i, "duration_ns")
      if s + d >= a and s <= b then n = n + 1 end
    end
  end
  lu.assertEquals(n, 12)                                        -- 4 kernels, 4 launches, 4 ops in step 2
  lu.assertEquals(#rects(g), n)
  lu.assertEquals(select(2, g:gsub("marker%-end=", "")), 4)
  -- the table: per track its events in the window and busy time (by hand:
  -- the stream's four kernels of step 2 do not overlap)
  local tt = tlr.tables.timeline
  local busy, kn = 0, 0
  local k = p.tables.kernels
  for i = 1, k:nrows() do
    local s, d = k:get(i, "start_ns"), k:get(i, "duration_ns")
    if s + d >= a and s <= b then busy = busy + d; kn = kn + 1 end
  end
  local row
  for i = 1, tt:nrows() do if tt:get(i, "track") == "GPU 0 stream 7" then row = i end end
  lu.assertEquals(tt:get(row, "events"), kn)
  lu.assertEquals(tt:get(row, "busy_ns"), busy)
  -- a chosen window: the first 300 us from the first event
  local w = run("timeline", { HOSTILE }, { window = "0us:300us" })
  local t0 = k:col("start_ns"):min()
  local cpu0 = p.tables.cpu_ops:col("start_ns"):min()
  local first = math.min(t0, cpu0, p.tables.runtime:col("start_ns"):min())
  local kin = 0
  for i = 1, k:nrows() do
    local s, d = k:get(i, "start_ns"), k:get(i, "duration_ns")
    if s + d >= first and s <= first + 300000 then kin = kin + 1 end
  end
  local wt = w.tables.timeline
  for i = 1, wt:nrows() do if wt:get(i, "track") == "GPU 0 stream 7" then row = i end end
  lu.assertEquals(wt:get(row, "events"), kin)
end

function testIdleTimeAndLaunchDelay()
  local rep = run("idle-time", { KINETO })
  local svg = rep.figures["idle_time.svg"].svg
  check_svg(svg, "idle-time")
  -- three segments per stream (one of 0 ns is still drawn, 0.5 px wide)
  lu.assertEquals(#rects(svg), 3 * rep.tables.idle:nrows())
  local rl = run("launch-latency", { KINETO })
  local h = rl.figures["launch_delay.svg"].svg
  check_svg(h, "launch delay")
  -- the histogram holds every launch: the sum of its bins is the all-streams row's count
  local total = 0
  for _, m in ipairs(marks(h)) do
    local c = m.title:match(": (%d+) launch")
    if c then total = total + tonumber(c) end
  end
  local ld = rl.tables.launch_delay
  lu.assertEquals(total, ld:get(ld:nrows(), "launches"))
  lu.assertNil(ld:get(ld:nrows(), "stream"))
end

function testDiffWaterfall()
  local rep = run("diff", { C .. "kineto_trace/hta_a100_simple_add_trace.json.gz", KINETO })
  local svg = rep.figures["diff_waterfall.svg"].svg
  check_svg(svg, "diff")
  local t = rep.tables.diff
  local sb = 0
  for i = 1, t:nrows() do sb = sb + (t:get(i, "total_ns_b") or 0) end
  local last
  for _, m in ipairs(marks(svg)) do if m.title:match("^B total: ") then last = m.title end end
  lu.assertEquals(last, "B total: " .. units.sig(sb / 1e6, 4) .. " ms")
end

function testSuspicionScores()
  local F = "tests/fixtures/suspicion/"
  local ins = {}
  for _, x in ipairs({ { "normal_1", "baseline" }, { "normal_2", "baseline" }, { "abnormal_1", "target" },
      { "abnormal_2", "target" } }) do
    local p = perflab.load(F .. x[1] .. ".pt.trace.json.gz")
    p.role = x[2]
    ins[#ins + 1] = p
  end
  local rep = perflab.run("suspicion", ins)
  local svg = rep.figures["suspicion.svg"].svg
  check_svg(svg, "suspicion")
  local d = rep.tables.details
  local r = rects(svg)
  lu.assertEquals(#r, math.min(20, d:nrows()))
  lu.assertStrContains(r[1].title, "suspicion score " .. units.sig(d:get(1, "suspicion_score"), 4))
end

function testDistributedAndStragglersFigures()
  -- tables built here by hand drive the distributed and stragglers recipes'
  -- figures
  local T = perflab.table
  local rep = perflab.report { recipe = "distributed" }
  rep:table("ranks", T.from_rows({
    { rank = 0, computation_ns = 8e6, communication_ns = 4e6, overlap_ns = 1e6, other_ns = 1e6 },
    { rank = 1, computation_ns = 6e6, communication_ns = 6e6, overlap_ns = 2e6, other_ns = 0 } },
    { "rank", "computation_ns", "communication_ns", "overlap_ns", "other_ns" }))
  require("perflab.recipes").load("distributed").figure(rep)   -- the recipe's figure, through its contract
  local svg = rep.figures["ranks.svg"].svg
  check_svg(svg, "ranks")
  local w = {}
  for _, m in ipairs(rects(svg)) do
    local r = m.title:match("^rank (%d)")
    w[r] = (w[r] or 0) + m.attrs.width
  end
  -- bar length = step = computation + communication - overlap + other: 12 ms and 10 ms
  lu.assertAlmostEquals(w["1"] / w["0"], 10 / 12, 0.01)
  lu.assertStrContains(svg, "rank 0 · overlap: 1 ms per step")
  local st = perflab.report { recipe = "stragglers" }
  st:table("iterations", T.from_rows({
    { iteration = 2, rank = 0, lateness = 0.0 }, { iteration = 1, rank = 1, lateness = 0.5 },
    { iteration = 1, rank = 0, lateness = -0.1 }, { iteration = 2, rank = 1, lateness = 0.2 } },
    { "iteration", "rank", "lateness" }))
  require("perflab.recipes").load("stragglers").figure(st)
  local h = st.figures["stragglers.svg"].svg
  check_svg(h, "stragglers")
  local fill = {}
  for _, m in ipairs(marks(h)) do if m.tag == "rect" then fill[m.title] = m.attrs.fill end end
  lu.assertEquals(fill["rank 1 · 1: 0.5"], "#fde725")     -- the latest: top of the ramp
  lu.assertEquals(fill["rank 0 · 1: -0.1"], "#440154")    -- the earliest: bottom
end

-- ---- hostile names -----------------------------------------------------------

function testHostileNamesStayData()
  local pages = {}
  for _, f in ipairs({ HOSTILE, PLAIN }) do
    local reps = {}
    for _, r in ipairs({ "top-kernels", "occupancy", "launch", "step-breakdown", "idle-time", "launch-latency",
        "roofline" }) do
      local rep = run(r, { f })
      for _, name in ipairs(rep.figure_order) do
        local svg = rep.figures[name].svg
        check_svg(svg, f .. " " .. name)
        lu.assertNil(svg:find("<script", 1, true), name)
        lu.assertNil(svg:find("<img", 1, true), name)
        lu.assertNil(svg:find(' onload="', 1, true), name)
      end
      reps[#reps + 1] = rep
    end
    pages[f] = html.page(reps)
  end
  local hp = pages[HOSTILE]
  lu.assertStrContains(hp, "&lt;script&gt;document.documentElement")
  -- one script element: the page's own
  lu.assertEquals(select(2, hp:gsub("<script", "")), 1)
  -- the same number of start tags with hostile and with plain names
  local function tags(s) return select(2, s:gsub("<%a", "")) end
  lu.assertEquals(tags(hp), tags(pages[PLAIN]))
end

-- ---- the HTML page ----------------------------------------------------------------

function testHtmlPageSelfContained()
  local rep = run("top-kernels", { SEED0 })
  local page = rep:render("html")
  lu.assertNil(page:find("https?://"))                       -- no resource reference at all
  lu.assertStrContains(page, '<figure class="chart" data-name="top_kernels.svg"><svg class="perflab-chart"')
  -- the CSP allows exactly the page's own style and script, by hash
  local css = page:match("<style>(.-)</style>")
  local js = page:match("<script>(.-)</script>")
  local csp = page:match('<meta http%-equiv="Content%-Security%-Policy" content="([^"]*)"')
  lu.assertStrContains(csp, "default-src 'none'")
  lu.assertStrContains(csp, "script-src 'sha256-" .. html.base64(html.sha256(js)) .. "'")
  lu.assertStrContains(csp, "style-src 'sha256-" .. html.base64(html.sha256(css)) .. "'")
  lu.assertNil(page:find(" style=", 1, true))                -- no inline style attribute (CSP would block it)
  lu.assertNil(page:find(" on%a+="))                          -- no inline handler
  -- readable numbers with the exact value on hover
  local t = rep.tables.top_kernels
  local v = t:get(1, "total_ns")
  lu.assertStrContains(page, string.format('data-v="%d" title="%d">%s</td>', v, v, units.ns(v, 3)))
end

-- ---- Chrome trace export -----------------------------------------------------------

local function sum(t, c) local s = 0; for i = 1, t:nrows() do s = s + t:get(i, c) end; return s end

function testChromeTraceReadsBack()
  for _, f in ipairs({ KINETO, C .. "nvprof/cuda_timeline_gtx950_nvprof_gpu_trace.csv",
                       C .. "rocprof/hpctraining_mi300a_rocprofv3_kernel_trace_head.csv",
                       -- nsys exports: two processes on two GPUs; a driver-API-only (OpenMP offload) run
                       C .. "nsys_sqlite/nsysai_h100x2_nsys2026.2.1_mfu_2gpu_before.sqlite",
                       C .. "nsys_sqlite/sc23_t4_nsys2023.3.1_openmp_heat_report3.sqlite" }) do
    local p = perflab.load(f)
    local text = trace.chrome(p)
    local q = perflab.parse("export.json", text)
    lu.assertEquals(q.format, "kineto", f)
    local k, qk = p.tables.kernels, q.tables.kernels
    lu.assertEquals(qk:nrows(), k:nrows(), f)
    lu.assertEquals(sum(qk, "duration_ns"), math.floor(sum(k, "duration_ns") + 0.5), f)
    -- every start kept to the nanosecond, relative to baseTimeNanoseconds
    local base = math.tointeger(tonumber(text:match('"baseTimeNanoseconds":(%d+)')))
    local starts = {}
    -- (an integer start as it is: start + 0.5 would make it a double, which
    -- rounds epoch nanoseconds to a multiple of 256)
    for i = 1, k:nrows() do
      local s = k:get(i, "start_ns")
      starts[#starts + 1] = (math.tointeger(s) or math.floor(s + 0.5)) - base
    end
    table.sort(starts)
    local qs = {}
    for i = 1, qk:nrows() do qs[i] = qk:get(i, "start_ns") end
    table.sort(qs)
    lu.assertEquals(qs, starts, f)
  end
end

function testChromeTraceTracksAndFlows()
  local p = perflab.load(KINETO)
  local text = trace.chrome(p)
  -- tracks: one per (device, stream) and per (pid, tid) of runtime calls and ops
  local tracks = {}
  for _, spec in ipairs({ { "kernels", "g" }, { "memcpy", "g" }, { "memset", "g" }, { "runtime", "c" },
      { "cpu_ops", "c" } }) do
    local t = p.tables[spec[1]]
    local ca, cb = spec[2] == "g" and "device" or "pid", spec[2] == "g" and "stream" or "tid"
    for i = 1, t:nrows() do tracks[spec[2] .. tostring(t:get(i, ca)) .. "/" .. tostring(t:get(i, cb))] = true end
  end
  local ntracks = 0
  for _ in pairs(tracks) do ntracks = ntracks + 1 end
  -- a thread_name per track, and the trace's names of threads without
  -- exported events (here one: pid 0, tid -1 "Device 0")
  lu.assertEquals(select(2, text:gsub('"name":"thread_name"', "")), ntracks + 1)
  lu.assertStrContains(text, '{"ph":"M","name":"thread_name","pid":0,"tid":-1,"args":{"name":"Device 0"}}')
  -- flows: one s/f pair per device op whose correlation id a runtime call has
  local rc = {}
  local rt = p.tables.runtime
  for i = 1, rt:nrows() do rc[rt:get(i, "correlation")] = true end
  local n = 0
  for _, tn in ipairs({ "kernels", "memcpy", "memset" }) do
    local t = p.tables[tn]
    for i = 1, t:nrows() do if rc[t:get(i, "correlation")] then n = n + 1 end end
  end
  lu.assertTrue(n > 0)
  lu.assertEquals(select(2, text:gsub('"ph":"s"', "")), n)
  lu.assertEquals(select(2, text:gsub('"ph":"f"', "")), n)
  lu.assertEquals(select(2, text:gsub('"bp":"e"', "")), n)
  -- the runtime calls and ops read back
  local q = perflab.parse("export.json", text)
  lu.assertEquals(q.tables.runtime:nrows(), rt:nrows())
  lu.assertEquals(q.tables.cpu_ops:nrows(), p.tables.cpu_ops:nrows())
end

function testChromeTraceNamesAreValidJson()
  -- a kernel name with a byte that is not UTF-8 and a control byte: the export stays valid UTF-8 JSON
  local p = perflab.load(HOSTILE)
  -- a profile's tables are frozen: add_column gives a copy, put back in the profile here
  local k = p.tables.kernels:add_column("name", function(r) return r.name .. "\255\1\"" end, "string")
  p.tables.kernels = k
  local text = trace.chrome(p)
  lu.assertNotNil(utf8.len(text))
  local q = perflab.parse("x.json", text)
  local want = k:get(1, "name"):gsub("\255", "\u{FFFD}")
  lu.assertStrContains(want, "\u{FFFD}\1\"")
  lu.assertEquals(q.tables.kernels:get(1, "name"), want)
end

function testChromeTraceDeterministic()
  -- many cpu ops share start, duration and thread here: the order must not
  -- depend on Lua's sort (unstable, random pivots)
  local p = perflab.load(C .. "kineto_trace/hta_a100_sxm4_80gb_rank0.json.gz")
  local a = trace.chrome(p)
  for _ = 1, 3 do lu.assertTrue(trace.chrome(p) == a) end
end

function testChromeTraceWindow()
  local p = perflab.load(KINETO)
  local k = p.tables.kernels
  local t0 = k:col("start_ns"):min()
  local a, b = t0 + 12.73e9, t0 + 12.76e9
  local want = 0
  for i = 1, k:nrows() do
    local s, d = k:get(i, "start_ns"), k:get(i, "duration_ns")
    if s + d >= a and s <= b then want = want + 1 end
  end
  lu.assertTrue(want > 0 and want < k:nrows())
  local q = perflab.parse("w.json", trace.chrome(p, { window = { a, b } }))
  lu.assertEquals(q.tables.kernels:nrows(), want)
  lu.assertEquals(trace.us(1234567), "1234.567")
  lu.assertEquals(trace.us(-500), "-0.500")
end

os.exit(lu.LuaUnit.run())

-- test_stats.lua -- the Lua API of perflab.stats and perflab.intervals:
-- names, result fields, options and error messages.  The numerical
-- agreement with SciPy is tested in C (tests/c/test_stats.c, fixtures);
-- the values here were worked out by hand or printed by SciPy 1.10 /
-- NumPy 1.24 (the call is quoted next to each).
-- Run: build/perflab tests/lua/test_stats.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local S = perflab.stats
local I = perflab.intervals
local T = perflab.table

local function near(a, b, rel) lu.assertTrue(math.abs(a - b) <= (rel or 1e-12) * math.max(1, math.abs(b)),
  string.format("%.17g vs %.17g", a, b)) end

TestDescriptive = {}

function TestDescriptive:test_describe_fields()
  local x = { 1, 2, 2, 3, 5, 8, 13 }
  local d = S.describe(x)
  lu.assertEquals(d.n, 7)
  lu.assertEquals(d.sum, 34)
  near(d.mean, 34 / 7)
  lu.assertEquals(d.min, 1); lu.assertEquals(d.max, 13); lu.assertEquals(d.median, 3)
  -- np.percentile(x, [25, 75, 90, 95, 99]) = [2, 6.5, 10, 11.5, 12.7]
  near(d.p25, 2); near(d.p75, 6.5); near(d.p90, 10); near(d.p95, 11.5); near(d.p99, 12.7)
  near(d.sd, 4.298393941484479)          -- np.std(x, ddof=1)
  near(d.var, d.sd ^ 2)
end

function TestDescriptive:test_single_values()
  local x = { 4, 1, 3, 2 }
  lu.assertEquals(S.mean(x), 2.5)
  near(S.var(x), 5 / 3)                  -- squares of deviations 2.25+2.25+.25+.25 = 5, / 3
  near(S.sd(x), math.sqrt(5 / 3))
  lu.assertEquals(S.median(x), 2.5)
  lu.assertEquals(S.sum(x), 10)
  lu.assertEquals(S.min(x), 1); lu.assertEquals(S.max(x), 4)
  near(S.geomean({ 1, 4, 16 }), 4)
  near(S.weighted_mean({ 1, 3 }, { 3, 1 }), 1.5)
end

function TestDescriptive:test_quantile_number_and_array()
  local x = { 1, 2, 2, 3, 5, 8, 13 }
  near(S.quantile(x, 0.1), 1.6)          -- np.quantile(x, 0.1)
  lu.assertEquals(S.quantile(x, 0), 1); lu.assertEquals(S.quantile(x, 1), 13)
  local q = S.quantile(x, { 0.1, 0.5, 0.99 })
  near(q[1], 1.6); near(q[2], 3); near(q[3], 12.7)
  lu.assertErrorMsgContains("bad argument #2 to 'quantile' (quantile 1.5 outside [0, 1])",
    function() return S.quantile(x, 1.5) end)
end

function TestDescriptive:test_zscores()
  local z = S.zscores({ 1, 2, 3, 4 })    -- scipy.stats.zscore: ddof = 0
  near(z[1], -1.3416407864998738, 1e-12); near(z[4], 1.3416407864998738, 1e-12)
  local z1 = S.zscores({ 1, 2, 3, 4 }, { ddof = 1 })
  near(z1[1], -1.5 / math.sqrt(5 / 3))
end

function TestDescriptive:test_columns_are_accepted()
  local t = T.from_rows({ { d = 10 }, { d = 30 }, { d = 20 } }, { "d" })
  lu.assertEquals(S.mean(t:col("d")), 20)
  lu.assertEquals(S.describe(t:col("d")).median, 20)
end

TestTests = {}

function TestTests:test_welch_and_student()
  local a, b = { 1, 2, 3, 4 }, { 3, 4, 5, 6, 7 }
  local w = S.welch_t(a, b)             -- ttest_ind(a, b, equal_var=False)
  near(w.t, -2.6111648393354674, 1e-12); near(w.p, 0.034938782359963984, 1e-9)
  near(w.df, 6.980769230769231, 1e-12)  -- (5/12+2.5/5)^2 / ((5/12)^2/3 + (0.5)^2/4)
  local s = S.student_t(a, b)           -- ttest_ind(a, b)
  near(s.t, -2.545875386086578, 1e-12); near(s.p, 0.03833372883603087, 1e-9)
  lu.assertEquals(s.df, 7)
end

function TestTests:test_mann_whitney()
  local r = S.mann_whitney_u({ 1, 2, 3, 4 }, { 3, 4, 5, 6, 7 })   -- ties: asymptotic
  lu.assertEquals(r.u, 2); near(r.p, 0.06393674600423606, 1e-9)
  lu.assertEquals(r.method, "asymptotic")
  lu.assertTrue(r.z < 0)
  -- exact, by hand: U_a = 0 of C(5,2) = 10 arrangements -> p = 2/10
  local e = S.mann_whitney_u({ 1, 2 }, { 3, 4, 5 })
  lu.assertEquals(e.u, 0); near(e.p, 0.2); lu.assertEquals(e.method, "exact")
  local f = S.mann_whitney_u({ 1, 2 }, { 3, 4, 5 }, { method = "asymptotic" })
  lu.assertEquals(f.method, "asymptotic")
end

function TestTests:test_correlations()
  local x, y = { 1, 2, 3, 4, 5 }, { 2, 1, 4, 3, 5 }
  local p = S.pearson(x, y)             -- pearsonr: 0.8, 0.10408803866182785
  near(p.r, 0.8); near(p.p, 0.10408803866182785, 1e-9)
  local s = S.spearman(x, y)
  near(s.rho, 0.8); near(s.p, 0.10408803866182788, 1e-9)
  lu.assertErrorMsgContains("bad argument #2 to 'pearson' (length 2 differs from argument #1's 5)",
    function() return S.pearson(x, { 1, 2 }) end)
end

function TestTests:test_effect_sizes()
  lu.assertEquals(S.cliffs_delta({ 5, 6 }, { 1, 2 }), 1)
  lu.assertEquals(S.cliffs_delta({ 1, 5 }, { 2, 3 }), 0)
  near(S.hellinger({ 1, 2, 3, 4 }, { 1, 2, 3, 4 }), 0)
  -- same sd (var 5/3), means 2.5 and 12.5: D_B = 100 / (4 * 10/3) = 7.5
  near(S.bhattacharyya({ 1, 2, 3, 4 }, { 11, 12, 13, 14 }), 7.5)
  near(S.hellinger({ 1, 2, 3, 4 }, { 11, 12, 13, 14 }), math.sqrt(1 - math.exp(-7.5)))
end

function TestTests:test_bootstrap_deterministic()
  local x = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5 }
  local a = S.bootstrap_ci(x, "mean", { n = 500, seed = 7 })
  local b = S.bootstrap_ci(x, "mean", { n = 500, seed = 7 })
  lu.assertEquals(a, b)
  lu.assertTrue(a.lo < S.mean(x) and S.mean(x) < a.hi)
  -- a Lua statistic draws the same resamples as the built-in one
  local c = S.bootstrap_ci(x, function(r) return S.mean(r) end, { n = 500, seed = 7 })
  near(c.lo, a.lo); near(c.hi, a.hi)
  local m = S.bootstrap_ci(x, "median", { n = 300, seed = 3, alpha = 0.1 })
  lu.assertTrue(m.lo <= 4 and 4 <= m.hi)
  lu.assertErrorMsgContains("bad argument #2 to 'bootstrap_ci' (statistic must be",
    function() return S.bootstrap_ci(x, "mode") end)
end

function TestTests:test_histogram()
  local h = S.histogram({ 1, 2, 2, 3, 5, 8, 13 }, { bins = 3 })   -- np.histogram(x, bins=3)
  lu.assertEquals(h.edges, { 1, 5, 9, 13 })
  lu.assertEquals(h.counts, { 4, 2, 1 })
  local g = S.histogram({ 1, 2, 2, 3, 5, 8, 13 }, { edges = { 0, 2, 13 } })
  lu.assertEquals(g.counts, { 1, 6 })      -- [0,2): 1;  [2,13]: 2,2,3,5,8,13
end

function TestTests:test_distributions()
  near(S.normal_cdf(0), 0.5)
  near(S.normal_cdf(-10), 7.61985302416047e-24, 1e-9)       -- norm.cdf(-10)
  near(S.t_sf(40, 3), 1.719034039457927e-05, 1e-9)           -- t.sf(40, 3)
  near(S.t_cdf(-40, 3), 1.719034039457927e-05, 1e-9)
  -- Cauchy (df = 1): sf(t) = atan(1/t)/pi, still right at 1e-250
  near(S.t_sf(1e250, 1), 1 / (math.pi * 1e250), 1e-9)
end

-- welch_t_from_stats and normal_ppf through the binding, against the
-- SciPy values of tests/fixtures/stats/from_stats.txt
-- (tools/gen_from_stats_fixtures.py)
function TestTests:test_from_stats_and_ppf_against_scipy()
  local f = assert(io.open("tests/fixtures/stats/from_stats.txt"))
  local text = f:read("a"); f:close()
  local function num(x) if x == "nan" then return 0 / 0 elseif x == "inf" then return math.huge
    elseif x == "-inf" then return -math.huge end return tonumber(x) end
  local function close(got, want, rel)
    if want ~= want then return got ~= got end
    if want == math.huge or want == -math.huge then return got == want end
    return math.abs(got - want) <= rel * math.abs(want) + 1e-300
  end
  local n = 0
  for args, t, df, p in text:gmatch("welch_t_from_stats\ns ([^\n]+)\nexpect t (%S+) df (%S+) p (%S+)") do
    local v = {}
    for x in args:gmatch("%S+") do v[#v + 1] = num(x) end
    local r = S.welch_t_from_stats(table.unpack(v))
    lu.assertTrue(close(r.t, num(t), 1e-12), args)
    lu.assertTrue(close(r.df, num(df), 1e-12), args)
    lu.assertTrue(close(r.p, num(p), 1e-9), args)
    n = n + 1
  end
  lu.assertEquals(n, 21)
  local qs, ppfs = text:match("normal_ppf\nq ([^\n]+)\nexpectv ppf ([^\n]+)")
  local q, want = {}, {}
  for x in qs:gmatch("%S+") do q[#q + 1] = num(x) end
  for x in ppfs:gmatch("%S+") do want[#want + 1] = num(x) end
  lu.assertEquals(#q, 25)
  for i = 1, #q do lu.assertTrue(close(S.normal_ppf(q[i]), want[i], 1e-14), tostring(q[i])) end
  lu.assertErrorMsgContains("probability must be in [0, 1]", S.normal_ppf, 1.5)
  lu.assertErrorMsgContains("count must be >= 1", S.welch_t_from_stats, 1, 1, 0, 2, 1, 5)
end

TestErrors = {}

function TestErrors:test_messages()
  lu.assertErrorMsgContains("bad argument #1 to 'mean' (empty input)", function() return S.mean({}) end)
  lu.assertErrorMsgContains("bad argument #1 to 'var' (need at least 2 finite values, got 1)",
    function() return S.var({ 1 }) end)
  lu.assertErrorMsgContains("bad argument #1 to 'mean' (missing value (NaN) at index 2",
    function() return S.mean({ 1, 0 / 0, 3 }) end)
  lu.assertErrorMsgContains("bad argument #2 to 'welch_t' (element 2 is a string, not a number)",
    function() return S.welch_t({ 1, 2, 3 }, { 1, "x", 3 }) end)
  lu.assertErrorMsgContains("bad argument #1 to 'describe'", function() return S.describe("abc") end)
  lu.assertErrorMsgContains("bad argument #2 to 't_sf' (degrees of freedom must be > 0)",
    function() return S.t_sf(1, 0) end)
end

function TestErrors:test_nan_omit()
  lu.assertEquals(S.mean({ 1, 0 / 0, 3 }, { nan = "omit" }), 2)
  lu.assertEquals(S.welch_t({ 1, 2, 0 / 0, 3 }, { 4, 5, 6 }, { nan = "omit" }).t,
                  S.welch_t({ 1, 2, 3 }, { 4, 5, 6 }).t)
  -- pairs are dropped together
  lu.assertEquals(S.pearson({ 1, 2, 0 / 0, 3 }, { 1, 2, 7, 4 }, { nan = "omit" }).r,
                  S.pearson({ 1, 2, 3 }, { 1, 2, 4 }).r)
  lu.assertErrorMsgContains("option nan must be", function() return S.mean({ 1 }, { nan = "skip" }) end)
  -- one option checker (pl_l_checkfieldoption): the message names both values, a non-string fails too
  lu.assertErrorMsgContains('(option nan must be "omit" or "error")', function() return S.mean({ 1 }, { nan = 1 }) end)
  lu.assertErrorMsgContains("bad argument #2", function() return S.mean({ 1 }, { nan = true }) end)
  lu.assertEquals(S.mean({ 1, 3 }, { nan = "error" }), 2)
  lu.assertEquals(S.mean({ 1, 3 }, {}), 2)
end

TestIntervals = {}

function TestIntervals:test_build_normalises()
  -- [3,5) [1,3) touch -> [1,5); [7,7) is empty; [9,10) nests in [8,12)
  local a = I.from_arrays({ 3, 1, 7, 9, 8 }, { 5, 3, 7, 10, 12 })
  lu.assertEquals(a:to_lua(), { { 1, 5 }, { 8, 12 } })
  lu.assertEquals(#a, 2); lu.assertEquals(a:count(), 2)
  lu.assertEquals(a:length(), 8)
  lu.assertEquals(tostring(a), "IntervalSet(2, length 8) [1, 5) [8, 12)")
  local s, e = a:to_arrays()
  lu.assertEquals(s, { 1, 8 }); lu.assertEquals(e, { 5, 12 })
  s, e = I.to_arrays(a)
  lu.assertEquals(e, { 5, 12 })
end

function TestIntervals:test_algebra()
  local a = I.from_pairs({ { 0, 10 }, { 20, 30 } })
  local b = I.from_pairs({ { 5, 25 } })
  lu.assertEquals(a:union(b):to_lua(), { { 0, 30 } })
  lu.assertEquals((a + b):to_lua(), { { 0, 30 } })
  lu.assertEquals(a:intersect(b):to_lua(), { { 5, 10 }, { 20, 25 } })
  lu.assertEquals((a * b):to_lua(), { { 5, 10 }, { 20, 25 } })
  lu.assertEquals((a - b):to_lua(), { { 0, 5 }, { 25, 30 } })
  lu.assertEquals(a:subtract(b):length(), 10)
  lu.assertEquals(a:clip(5, 22):to_lua(), { { 5, 10 }, { 20, 22 } })
  lu.assertEquals(a:gaps():to_lua(), { { 10, 20 } })
  lu.assertEquals(a:gaps(-5, 40):to_lua(), { { -5, 0 }, { 10, 20 }, { 30, 40 } })
  lu.assertTrue(a:contains(0)); lu.assertFalse(a:contains(10)); lu.assertTrue(a:contains(29))
  lu.assertEquals(a:find(25), 2); lu.assertNil(a:find(15))
  lu.assertEquals(I.empty():length(), 0)
  lu.assertTrue(a == I.from_pairs({ { 20, 30 }, { 0, 10 } }))
end

function TestIntervals:test_iteration_and_get()
  local a = I.from_pairs({ { 0, 10 }, { 20, 30 } })
  local got = {}
  for s, e in a:iter() do got[#got + 1] = s .. "-" .. e end
  lu.assertEquals(got, { "0-10", "20-30" })
  local s, e = a:get(2)
  lu.assertEquals({ s, e }, { 20, 30 })
  lu.assertNil(a:get(3))
end

function TestIntervals:test_nanoseconds_beyond_2_53()
  local t0 = 1700000000000000001
  local a = I.from_arrays({ t0, t0 + 2 }, { t0 + 1, t0 + 3 })
  lu.assertEquals(a:count(), 2)
  lu.assertEquals(a:length(), 2)
  lu.assertEquals(a:to_lua()[2][1], t0 + 2)
  lu.assertEquals(math.type(a:to_lua()[1][1]), "integer")
end

function TestIntervals:test_count_argument_and_columns()
  local a = I.from_arrays({ 0, 100 }, { 10, 110 }, 1)
  lu.assertEquals(a:to_lua(), { { 0, 10 } })
  local t = T.from_rows({ { s = 5, e = 9 }, { s = 1, e = 5 } }, { "s", "e" })
  lu.assertEquals(I.from_arrays(t:col("s"), t:col("e")):to_lua(), { { 1, 9 } })
end

function TestIntervals:test_errors()
  lu.assertErrorMsgContains("bad argument #2 to 'from_arrays' (end 1 before start 2 at index 2)",
    function() return I.from_arrays({ 0, 2 }, { 1, 1 }, { strict = true }) end)
  -- without strict an inverted pair is the empty set [2, 1) = {}
  lu.assertEquals(I.from_arrays({ 0, 2 }, { 1, 1 }):to_lua(), { { 0, 1 } })
  lu.assertEquals(I.from_arrays({ 0, 2 }, { 1, 1 }, 1, { strict = true }):to_lua(), { { 0, 1 } })
  lu.assertErrorMsgContains("bad argument #2 to 'from_arrays' (1 ends for 2 starts)",
    function() return I.from_arrays({ 0, 2 }, { 1 }) end)
  lu.assertErrorMsgContains("bad argument #1 to 'from_arrays' (element 2 is a string, not a number)",
    function() return I.from_arrays({ 0, "x" }, { 1, 2 }) end)
  local a = I.from_pairs({ { 0, 1 } })
  lu.assertErrorMsgContains("perflab.IntervalSet expected", function() return a:union({}) end)
end

os.exit(lu.LuaUnit.run())

-- test_summary.lua -- the summary of `perflab run all`: findings of several
-- recipes merged by subject and ranked by the time each would save per
-- step, on a planted case whose savings are worked out by hand below; the
-- breakdown a recipe declares; collapsed reports; display names.
-- Run: build/perflab tests/lua/test_summary.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local T = perflab.table
local summary = require "perflab.summary"
local names = require "perflab.names"

-- a timeline: kernel A 10 launches x 10 ms = 100 ms, B 5 x 10 ms = 50 ms,
-- C 1 x 10 ms; first start 0, last end 160 ms
local function timeline()
  local rows, t = {}, 0
  for _, k in ipairs({ { "A", 10 }, { "B", 5 }, { "C", 1 } }) do
    for _ = 1, k[2] do
      rows[#rows + 1] = { name = k[1], short_name = k[1], start_ns = t, duration_ns = 10000000 }
      t = t + 10000000
    end
  end
  return { source = "planted.json", format = "kineto",
           tables = { kernels = T.from_rows(rows, { "name", "short_name", "start_ns", "duration_ns" }) } }
end

local function planted()
  local r1 = perflab.report { recipe = "r1" }
  -- A: 10 % of 100 ms = 10 ms over 10 steps = 1 ms/step
  r1:finding { severity = "warn", rule = "r1.a", subject = "void A<float, 4>(int, float*)", message = "A is slow",
      speedup_pct = 10 }
  -- B: 50 % of 50 ms = 25 ms -> 2.5 ms/step
  r1:finding { severity = "opt", rule = "r1.b", subject = "B", message = "B is slow", speedup_pct = 50 }
  local r2 = perflab.report { recipe = "r2" }
  -- A again: 30 % of 100 ms = 30 ms -> 3 ms/step: the merged action's estimate
  r2:finding { severity = "info", rule = "r2.a", subject = "A", message = "A again", speedup_pct = 30 }
  -- A on 5 of its 10 launches, 40 %: 100 x 5/10 x 0.4 = 20 ms -> 2 ms/step (below 3)
  r2:finding { severity = "opt", rule = "r2.a_some", subject = "A", message = "A, half", speedup_pct = 40,
               evidence = { launches = 5 } }
  local r3 = perflab.report { recipe = "r3" }
  r3:finding { severity = "error", rule = "r3.none", subject = "rank 0", message = "no estimate here" }
  r3:finding { severity = "warn", rule = "r3.saved", subject = "host", message = "host waits", saved_ns = 5000000,
      saved_how = "planted" }
  r3:finding { severity = "warn", rule = "r3.unknown_kernel", subject = "Z", message = "Z is not in the timeline",
      speedup_pct = 90 }
  r3:breakdown({ { subject = "rank 0", steps = 10, step_ns = 20000000, computation_ns = 15000000, idle_ns = 5000000 } })
  return { r1, r2, r3 }
end

function test_ranking_largest_saving_first_duplicates_merged()
  local s = summary.build(planted(), { timeline() })
  lu.assertEquals(s.basis.steps, 10)
  lu.assertEquals(s.basis.step_ns, 20000000)
  local keys, savings = {}, {}
  for i, a in ipairs(s.actions) do keys[i] = a.key; savings[i] = a.saving_ns end
  lu.assertEquals(keys, { "A", "B", "host", "rank 0", "Z" })
  lu.assertAlmostEquals(savings[1], 3000000, 1e-6)
  lu.assertAlmostEquals(savings[2], 2500000, 1e-6)
  lu.assertAlmostEquals(savings[3], 500000, 1e-6)
  lu.assertNil(savings[4])
  -- A: one action with the evidence of both recipes; 15 % of the 20 ms step
  local a = s.actions[1]
  lu.assertEquals(#a.items, 3)
  lu.assertEquals(#a.sections, 2)
  lu.assertEquals(a.sections[1].recipe, "r1")
  lu.assertEquals(a.sections[2].recipe, "r2")
  lu.assertAlmostEquals(a.saving_pct, 15, 1e-9)
  lu.assertEquals(a.severity, "warn")
  lu.assertStrContains(a.formula, "kernel time x est. speedup / 100 / 10 steps")
  lu.assertAlmostEquals(a.items[3].saving_ns, 2000000, 1e-6)
  lu.assertStrContains(a.items[3].formula, "5/10 launches")
  -- without an estimate: below every estimate, saying why
  lu.assertEquals(s.actions[4].severity, "error")
  lu.assertStrContains(s.actions[4].why, "no speedup estimate")
  lu.assertStrContains(s.actions[5].why, "not a kernel of the timeline")
end

function test_render_text_markdown_json_html()
  local reps = planted()
  local s = summary.build(reps, { timeline() })
  local text = summary.render(s, "text")
  lu.assertStrContains(text, "Where the time goes")
  lu.assertStrContains(text,
      "rank 0  20 ms/step  [CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC..........]  computation 75 %, idle 25 %")
  lu.assertStrContains(text, "1. 3 ms per step (15 % of the step)  [warn] A<…>(…): A again  (see r1, r2)")
  lu.assertTrue(text:find("1%. 3 ms") < text:find("2%. 2%.5 ms"))
  local md = summary.render(s, "markdown")
  lu.assertStrContains(md, "[r1](#r1)")
  local d = summary.to_data(s)
  lu.assertEquals(d.actions[1].subject, "void A<float, 4>(int, float*)")
  lu.assertEquals(d.actions[1].display, "A<…>(…)")
  lu.assertEquals(#d.actions[1].findings, 3)
  lu.assertEquals(d.breakdown.rows[1].computation_ns, 15000000)
  local html = require("perflab.html").page(reps, { summary = s })
  lu.assertStrContains(html, '<section id="summary"')
  lu.assertStrContains(html, '<a href="#r2">r2</a>')
  lu.assertStrContains(html, 'title="void A&lt;float, 4&gt;(int, float*)"')
  lu.assertTrue(html:find('id="summary"') < html:find('id="r1"'))
end

function test_collapsed_report_is_one_line()
  local r = perflab.report { recipe = "distributed" }
  r:table("ranks", T.from_rows({ { rank = 0 } }, { "rank" }))
  r:collapse("one rank and no collective")
  lu.assertEquals(r:render("text"), "distributed\n  Not applicable: one rank and no collective\n")
  lu.assertStrContains(r:render("markdown"), "Not applicable: one rank and no collective")
  lu.assertStrContains(r:render("json"), '"collapsed": "one rank and no collective"')
  lu.assertStrContains(r:render("json"), '"ranks"')
end

function test_display_names()
  lu.assertEquals(names.display("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    .. "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"),
    "at::native::vectorized_elementwise_kernel<…>(…)")
  lu.assertEquals(names.display("ampere_sgemm_32x32_sliced1x4_tn"), "ampere_sgemm_32x32_sliced1x4_tn")
  lu.assertEquals(names.display("bool operator<(A, B)"), "bool operator<(…)")
  lu.assertEquals(names.short("Tensor Cores"), "Tensor Cores")
  lu.assertEquals(names.short("void k<int>(float)"), "k")
end

os.exit(lu.LuaUnit.run())

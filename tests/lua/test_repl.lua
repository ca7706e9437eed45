-- test_repl.lua: the REPL's Lua side without a terminal: completion
-- candidates (perflab.repl.complete), pretty printing (render) and the
-- session helpers (load, run, recipes, help).
local lu = require "luaunit"
local repl = require "perflab.repl"

repl.setup { files = { "examples/kernel-table.txt" }, announce = false }
t = p1:table("kernels")          -- luacheck: ignore (a session global)
str = "text"                     -- luacheck: ignore
bumped = 0                       -- luacheck: ignore
function bump() bumped = bumped + 1; return t end  -- luacheck: ignore

local function comp(prefix)
  local c, start = repl.complete(prefix)
  return c, start
end

TestComplete = {}

function TestComplete:test_globals_and_keywords()
  local c, s = comp("tonu")
  lu.assertEquals(c, { "tonumber" })
  lu.assertEquals(s, 1)
  c, s = comp("x = whi")
  lu.assertEquals(c, { "while" })
  lu.assertEquals(s, 5)
  c = comp("p")
  for _, want in ipairs({ "p1", "pairs", "pcall", "perflab", "print", "profiles" }) do
    local found = false
    for _, v in ipairs(c) do if v == want then found = true end end
    lu.assertTrue(found, want)
  end
end

-- every module of perflab, loaded or not: perflab.stats is a C module in
-- package.preload that nothing has touched yet (it offered nothing before)
function TestComplete:test_every_module_loaded_or_not()
  lu.assertNil(rawget(perflab, "stats"))
  lu.assertNil(package.loaded["perflab.stats"])
  local c, s = comp("perflab.sta")
  lu.assertEquals(c, { "stats" })
  lu.assertEquals(s, 9)
  c = comp("x = perflab.in")
  lu.assertEquals(c, { "intervals" })
  c = comp("perflab.")
  local have = {}
  for _, v in ipairs(c) do have[v] = true end
  for _, m in ipairs({ "gpu", "gpus", "intervals", "json", "load", "options", "stats", "table", "timeline",
      "units" }) do
    lu.assertTrue(have[m], m)
  end
end

function TestComplete:test_module_fields()
  local c, s = comp("perflab.lo")
  lu.assertEquals(c, { "load", "load_many" })
  lu.assertEquals(s, 9)
  c = comp("os.exi")
  lu.assertEquals(c, { "exit" })
  -- lazily loaded submodules of perflab are offered too
  c = comp("perflab.uni")
  lu.assertEquals(c, { "units" })
  c = comp("p1.tables.ke")
  lu.assertEquals(c, { "kernels" })
end

function TestComplete:test_methods()
  local c, s = comp("p1:ta")
  lu.assertEquals(c, { "table", "table_names" })
  lu.assertEquals(s, 4)
  c = comp("t:nr")
  lu.assertEquals(c, { "nrows" })
  c = comp("t:so")
  lu.assertEquals(c, { "sort_by" })
  c = comp('t:col("duration_ns"):qu')
  lu.assertEquals(c, { "quantile" })
  c = comp('p1:table("kernels"):group')
  lu.assertEquals(c, { "group_by" })
  c = comp("str:up")
  lu.assertEquals(c, { "upper" })
  local rep = run("top-kernels", p1, { top = 3 })
  _G.rep = rep
  c = comp("rep:ren")
  lu.assertEquals(c, { "render", "render_csv", "render_json", "render_markdown", "render_text" })
end

function TestComplete:test_column_names()
  local c, s = comp('t:col("dur')
  lu.assertEquals(c, { "duration_ns" })
  lu.assertEquals(s, 8)            -- just after the quote
  c = comp("t:col('")
  lu.assertEquals(c, { "dram_util", "duration_ns", "latency_ns", "line", "name", "short_name", "tensor_util",
      "truncated" })
  c = comp('t:sort_by("-dur')
  lu.assertEquals(c, { "-duration_ns" })
  c = comp('t:top(5, "ten')
  lu.assertEquals(c, { "tensor_util" })
  c = comp('p1:table("kernels"):col("lat')
  lu.assertEquals(c, { "latency_ns" })
  c = comp('p1:table("')
  lu.assertEquals(c, { "kernels" })
end

function TestComplete:test_strings_for_recipes_and_files()
  lu.assertEquals((comp('run("top-')), { "top-kernels" })
  lu.assertEquals((comp('help("top')), { "top-kernels" })
  lu.assertEquals((comp('x = load("examples/kernel-t')), { "examples/kernel-table.txt" })
  lu.assertEquals((comp('print("abc')), {})
end

function TestComplete:test_never_calls_user_code()
  local c = comp("bump():")
  lu.assertEquals(c, {})
  lu.assertEquals(bumped, 0)
  lu.assertEquals((comp("undefined_thing.x")), {})
  lu.assertEquals((comp("a .. b.")), {})
  lu.assertEquals((comp("x = 1 -- perflab.lo")), {})
end

TestRender = {}

function TestRender:test_numbers_full_precision()
  lu.assertEquals(repl.render(1 / 3), "0.3333333333333333\n")
  lu.assertEquals(repl.render(0.1), "0.1\n")
  lu.assertEquals(repl.render(42), "42\n")
  lu.assertEquals(repl.render(2.0), "2.0\n")
  lu.assertEquals(repl.render(2 ^ 53), "9007199254740992.0\n")
  lu.assertEquals(repl.render(123456789.123), "123456789.123\n")
end

function TestRender:test_lua_tables_to_a_depth_limit()
  lu.assertEquals(repl.render({ 1, "a", x = true }), '{1, "a", x = true}\n')
  lu.assertEquals(repl.render({ a = { b = { c = { d = 1 } } } }), "{a = {b = {c = {…}}}}\n")
  local cyc = {}
  cyc.self = cyc
  lu.assertEquals(repl.render(cyc), "{self = <cycle>}\n")
end

function TestRender:test_perflab_values()
  local text = repl.render(t)
  lu.assertStrContains(text, "table 'kernels': 13065 rows x 8 columns\n")
  -- 20 rows shown out of 13065
  lu.assertStrContains(text, "… 13045 more rows (13065 in all)")
  lu.assertStrContains(repl.render(p1), "table kernels")
  local rep = run("top-kernels", p1, { top = 2 })
  lu.assertEquals(repl.render(rep):sub(1, 12), "top-kernels ")
  lu.assertStrContains(repl.render(rep), "elementwise_kernel")
end

TestHelpers = {}

function TestHelpers:test_load_is_a_profile_loader_and_still_lua_load()
  local p = load("examples/kernel-table.txt")
  lu.assertEquals(p.format, "kernel-table")
  lu.assertEquals(load("return 6 * 7", "=chunk")(), 42)
  local parts = { "return ", "5" }
  local i = 0
  lu.assertEquals(load(function() i = i + 1; return parts[i] end)(), 5)
  lu.assertEquals(lua_load("return 1")(), 1)
end

function TestHelpers:test_run_and_recipes()
  local rep = run("top-kernels", p1, { top = 1 })
  lu.assertEquals(rep.tables.top_kernels:nrows(), 1)
  lu.assertEquals(rep.options.top, 1)
  local r = recipes()
  lu.assertTrue(r:nrows() >= 1)
  lu.assertEquals(r:columns(), { "name", "summary", "origin" })
end

os.exit(lu.LuaUnit.run())

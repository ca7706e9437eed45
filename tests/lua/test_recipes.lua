-- test_recipes.lua -- the recipe contract, the search path, strict recipe
-- environments, option coercion, needs checks, report severities and exit
-- codes.  Recipes are written into temporary directories; the search path
-- is driven through environment variables, so those cases run a child
-- perflab (os.setenv does not exist) through io.popen.
-- Run: build/perflab tests/lua/test_recipes.lua -v
local lu = require "luaunit"
local perflab = require "perflab"

local KT = "examples/kernel-table.txt"

local function sh_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local CWD = io.popen("pwd"):read("l")
local BIN = arg[-1] or "perflab"
if BIN:sub(1, 1) ~= "/" then BIN = CWD .. "/" .. BIN end

-- a fresh empty directory
local function tmpdir()
  local p = os.tmpname()
  os.remove(p)
  assert(os.execute("mkdir -p " .. sh_quote(p)))
  return p
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local DIRS = {}
local function newdir() local d = tmpdir(); DIRS[#DIRS + 1] = d; return d end

-- runs perflab ARGS in dir `cd` (default: the repository root) with env
-- {NAME = value}; returns output (stdout and stderr), exit status
local EMPTY_HOME = newdir()
local function perflab_cli(args, env, cd)
  local parts = { "cd", sh_quote(cd or CWD), "&&", "env", "XDG_CONFIG_HOME=" .. sh_quote(EMPTY_HOME),
      "HOME=" .. sh_quote(EMPTY_HOME) }
  for k, v in pairs(env or {}) do parts[#parts + 1] = k .. "=" .. sh_quote(v) end
  parts[#parts + 1] = sh_quote(BIN)
  parts[#parts + 1] = args
  local p = io.popen(table.concat(parts, " ") .. " 2>&1; echo \"__rc=$?\"")
  local out = p:read("a")
  p:close()
  local rc = tonumber(out:match("__rc=(%d+)\n?$"))
  return out:gsub("__rc=%d+\n?$", ""), rc
end

local function first_line(s) return s:match("^[^\n]*") end

-- ---- recipes used below ----------------------------------------------------
local REC = newdir()
write(REC .. "/myrec.lua", [[
return {
  name = "myrec", summary = "test recipe", needs = { "kernels" },
  options = {
    n = { type = "number", default = 1, help = "a number" },
    flag = { type = "boolean", default = false, help = "a switch" },
    word = { default = "hi", help = "a word" },
    mode = { type = "string", default = "a", choices = { "a", "b" }, help = "a choice" },
  },
  run = function(inputs, opts, report)
    local sev = opts.word == "hi" and "info" or opts.word
    report:finding { severity = sev, message = string.format("n=%s (%s) flag=%s mode=%s",
      tostring(opts.n), math.type(opts.n) or type(opts.n), tostring(opts.flag), opts.mode) }
  end,
}
]])
write(REC .. "/leak.lua", [[
return { name = "leak", summary = "assigns a global", run = function(inputs, opts, report) oops = 1 end }
]])
write(REC .. "/readg.lua", [[
return { name = "readg", summary = "reads an undeclared global", run = function(inputs, opts, report) local x = undefined_thing end }
]])
write(REC .. "/failr.lua", [[
local perflab = require "perflab"
return { name = "failr", summary = "fails on purpose", run = function() perflab.fail("custom failure", 3) end }
]])
write(REC .. "/needy.lua", [[
return { name = "needy", summary = "needs tables the input lacks", needs = { "kernels", "memcpy|api_calls" }, run = function() end }
]])
write(REC .. "/bad.lua", "return 42\n")

-- ---------------------------------------------------------------------------
TestSearchPath = {}

function TestSearchPath:test_perflab_path_listing()
  local out, rc = perflab_cli("recipes --format csv", { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 0)
  lu.assertStrContains(out, "name,summary,origin\n")
  lu.assertStrContains(out, "\nmyrec,test recipe,PERFLAB_PATH (" .. REC .. ")\n")
  lu.assertStrContains(out, "\nleak,assigns a global,PERFLAB_PATH (" .. REC .. ")\n")
  -- a recipe that fails to load is listed with the reason, not fatal
  lu.assertStrContains(out, "\nbad,(fails to load: " .. REC .. "/bad.lua: a recipe must return a table),")
  -- from the repository root, the bundled recipe comes from ./recipes
  lu.assertStrContains(out, "\ntop-kernels,")
end

function TestSearchPath:test_run_from_perflab_path()
  local out, rc = perflab_cli("run myrec " .. KT, { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 0)
  lu.assertStrContains(out, "[info]  n=1 (integer) flag=false mode=a")
end

function TestSearchPath:test_precedence()
  -- the same name in ./recipes, the user config dir, PERFLAB_PATH and bundled
  local proj, cfg, pp = newdir(), newdir(), newdir()
  assert(os.execute("mkdir -p " .. sh_quote(proj .. "/recipes") .. " " .. sh_quote(cfg .. "/perflab/recipes")))
  local function stub(summary) return "return { name = 'top-kernels', summary = '" .. summary
      .. "', run = function() end }\n" end
  write(proj .. "/recipes/top-kernels.lua", stub("from project"))
  write(cfg .. "/perflab/recipes/top-kernels.lua", stub("from user config"))
  write(pp .. "/top-kernels.lua", stub("from PERFLAB_PATH"))
  local function listed(env, cd)
    local out = perflab_cli("recipes --format csv", env, cd)
    return out:match("\ntop%-kernels,([^\n]*)")
  end
  lu.assertEquals(listed({ PERFLAB_PATH = pp, XDG_CONFIG_HOME = cfg }, proj), "from project,project (./recipes)")
  lu.assertEquals(listed({ PERFLAB_PATH = pp, XDG_CONFIG_HOME = cfg }, pp),
      "from user config,user (" .. cfg .. "/perflab/recipes)")
  lu.assertEquals(listed({ PERFLAB_PATH = pp }, pp), "from PERFLAB_PATH,PERFLAB_PATH (" .. pp .. ")")
  local bundled = listed({}, EMPTY_HOME)
  lu.assertStrContains(bundled, "kernels ranked by total GPU time")
  lu.assertStrContains(bundled, ",bundled")
  -- and the one that runs is the first one
  local out, rc = perflab_cli("help top-kernels", { PERFLAB_PATH = pp, XDG_CONFIG_HOME = cfg }, proj)
  lu.assertEquals(rc, 0)
  lu.assertStrContains(out, "\nfrom project\n")
  lu.assertStrContains(out, "from: project (./recipes) (./recipes/top-kernels.lua)")
end

function TestSearchPath:test_unknown_recipe()
  local out, rc = perflab_cli("run no-such-recipe " .. KT, { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 2)
  -- the list is sorted and names every recipe on the path (bundled ones grow)
  lu.assertStrMatches(out,
      "perflab: unknown recipe 'no%-such%-recipe' %(available: .*bad, .*failr, .*leak, .*myrec, .*needy, .*readg, .*top%-kernels.*%)\n")
end

function TestSearchPath:test_recipe_by_path()
  local rep = perflab.run(REC .. "/myrec.lua", KT, { n = 4 })
  lu.assertEquals(rep.recipe, "myrec")
  lu.assertEquals(rep.findings[1].message, "n=4 (integer) flag=false mode=a")
end

-- ---------------------------------------------------------------------------
TestStrict = {}

function TestStrict:test_global_assignment_is_an_error()
  local out, rc = perflab_cli("run leak " .. KT, { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 2)
  lu.assertEquals(first_line(out),
    "perflab: " .. REC .. "/leak.lua:1: recipe 'leak': assignment to undeclared global 'oops' (declare it local)")
end

function TestStrict:test_undeclared_global_read_is_an_error()
  local out, rc = perflab_cli("run readg " .. KT, { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 2)
  lu.assertEquals(first_line(out),
    "perflab: " .. REC .. "/readg.lua:1: recipe 'readg': undeclared global 'undefined_thing' (declare it local)")
end

function TestStrict:test_in_process_and_no_leak()
  local ok, err = pcall(perflab.run, REC .. "/leak.lua", KT)
  lu.assertFalse(ok)
  lu.assertStrContains(tostring(err), "assignment to undeclared global 'oops'")
  lu.assertNil(rawget(_G, "oops"))
end

function TestStrict:test_bad_recipe_file()
  local out, rc = perflab_cli("run bad " .. KT, { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 2)
  lu.assertEquals(first_line(out), "perflab: " .. REC .. "/bad.lua: a recipe must return a table")
end

-- ---------------------------------------------------------------------------
TestOptions = {}

function TestOptions:test_coercion_from_strings()
  local out, rc = perflab_cli("run myrec " .. KT .. " --set n=5 --set flag=yes --set mode=b", { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 0)
  lu.assertStrContains(out, "[info]  n=5 (integer) flag=true mode=b")
  out = perflab_cli("run myrec " .. KT .. " --set n=2.5 --set flag=0", { PERFLAB_PATH = REC })
  lu.assertStrContains(out, "n=2.5 (float) flag=false")
  -- top-kernels: --set top=5 lists five kernels
  out, rc = perflab_cli("run top-kernels " .. KT .. " --set top=5 --format csv --table top_kernels")
  lu.assertEquals(rc, 0)
  local n = 0
  for _ in out:gmatch("\n") do n = n + 1 end
  lu.assertEquals(n, 6)   -- header and five rows
end

-- integer options and bounds (type = "integer", min, max): a count given
-- as 0.5 or a window count of 1e9 is refused before the recipe runs
function TestOptions:test_integer_and_bounds()
  local recipes = require "perflab.recipes"
  local r = recipes.validate({ name = "x", summary = "s", run = function() end, options = {
    k = { type = "integer", min = 0, default = 3 }, w = { type = "integer", min = 1, max = 100, default = 20 },
    f = { type = "number", max = 1, default = 0.5 } } }, "x.lua")
  local o = recipes.options(r, { k = "7", w = 100, f = "-2.5" })
  lu.assertEquals({ o.k, math.type(o.k), o.w, o.f }, { 7, "integer", 100, -2.5 })
  lu.assertEquals(math.type(recipes.options(r, { k = "4.0" }).k), "integer")    -- 4.0 is a whole number
  local function msg(given)
    local ok, e = pcall(recipes.options, r, given)
    lu.assertFalse(ok)
    return e.message
  end
  lu.assertEquals(msg { k = "0.5" }, "option 'k' of recipe 'x' must be a whole number, got '0.5'")
  lu.assertEquals(msg { k = -1 }, "option 'k' of recipe 'x' must be at least 0, got '-1'")
  lu.assertEquals(msg { w = "1e9" }, "option 'w' of recipe 'x' must be between 1 and 100, got '1000000000'")
  lu.assertEquals(msg { w = 0 }, "option 'w' of recipe 'x' must be between 1 and 100, got '0'")
  lu.assertEquals(msg { f = 2 }, "option 'f' of recipe 'x' must be at most 1, got '2'")
  -- the bundled recipes declare theirs: the CLI says so, exit 2
  local out, rc = perflab_cli("run top-kernels " .. KT .. " --set top=0.5")
  lu.assertEquals(rc, 2)
  lu.assertEquals(out, "perflab: option 'top' of recipe 'top-kernels' must be a whole number, got '0.5'\n")
  out, rc = perflab_cli("run launch-latency tests/data/corpus/kineto_trace/hta_sampled_rank-0.json.gz --set windows=1e9")
  lu.assertEquals(rc, 2)
  lu.assertEquals(out,
      "perflab: option 'windows' of recipe 'launch-latency' must be between 1 and 10000, got '1000000000'\n")
end

function TestOptions:test_errors()
  local cases = {
    { "--set bogus=1", "perflab: recipe 'myrec' has no option 'bogus' (options: flag, mode, n, word)\n" },
    { "--set n=abc", "perflab: option 'n' of recipe 'myrec' must be a number, got 'abc'\n" },
    { "--set flag=maybe", "perflab: option 'flag' of recipe 'myrec' must be true or false, got 'maybe'\n" },
    { "--set mode=c", "perflab: option 'mode' of recipe 'myrec' must be one of: a, b\n" },
    { "--set n", "perflab: --set expects KEY=VALUE, got 'n'\n" },
    { "--set", "perflab: option --set needs a value\n" },
  }
  for _, c in ipairs(cases) do
    local out, rc = perflab_cli("run myrec " .. KT .. " " .. c[1], { PERFLAB_PATH = REC })
    lu.assertEquals(rc, 2, c[1])
    lu.assertEquals(out, c[2])
  end
  local ok, err = pcall(perflab.run, REC .. "/myrec.lua", KT, { nope = 1 })
  lu.assertFalse(ok)
  lu.assertEquals(err.message, "recipe 'myrec' has no option 'nope' (options: flag, mode, n, word)")
  lu.assertEquals(err.exit, 2)
end

function TestOptions:test_help_from_declared_options()
  local out, rc = perflab_cli("help myrec", { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 0)
  lu.assertEquals(out, table.concat({
    "perflab run myrec FILE... [--set KEY=VALUE]...",
    "",
    "test recipe",
    "",
    "needs: kernels",
    "",
    "options (--set KEY=VALUE):",
    "  flag             a switch (default: false)",
    "  mode             a choice [a|b] (default: a)",
    "  n                a number (default: 1)",
    "  word             a word (default: hi)",
    "",
    "from: PERFLAB_PATH (" .. REC .. ") (" .. REC .. "/myrec.lua)",
    "" }, "\n"))
end

-- ---------------------------------------------------------------------------
TestNeeds = {}

function TestNeeds:test_needs_error_text()
  local out, rc = perflab_cli("run needy " .. KT, { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 2)
  -- and names the export that gives the missing table (issue 28, point 13)
  lu.assertEquals(out, "perflab: recipe 'needy' needs a table memcpy or api_calls, and " .. KT
      .. " (kernel-table) has: kernels"
    .. "; memory copies come from a timeline: `nsys export --type sqlite`, a Kineto trace or `nvprof --print-gpu-trace`\n")
end

function TestNeeds:test_needs_input_files()
  local out, rc = perflab_cli("run myrec", { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 2)
  lu.assertEquals(out, "perflab: recipe 'myrec' needs input files: perflab run myrec FILE...\n")
end

-- "table.column" needs: the table with that column (a kernel table has
-- kernels but no start_ns: the timeline recipes refuse it with a message)
function TestNeeds:test_column_needs()
  local recipes = require "perflab.recipes"
  local T = perflab.table
  local function rec(needs) return recipes.validate({ name = "x", summary = "s", run = function() end, needs = needs },
      "x.lua") end
  local function prof(cols)
    local row = {}
    for _, c in ipairs(cols) do row[c] = 1 end
    return { source = "f.txt", format = "fmt", tables = { kernels = T.from_rows({ row }, cols) },
             table_names = function() return { "kernels" } end }
  end
  local timeline, summary = prof({ "name", "start_ns" }), prof({ "name", "duration_ns" })
  recipes.check_needs(rec { "kernels.start_ns" }, { timeline })              -- has it: no error
  recipes.check_needs(rec { "kernels.start_ns|kernels" }, { summary })       -- the other alternative
  local ok, e = pcall(recipes.check_needs, rec { "kernels.start_ns" }, { summary })
  lu.assertFalse(ok)
  lu.assertEquals(e.message, "recipe 'x' needs a table kernels with start_ns, and f.txt (fmt) has kernels without "
    .. "start_ns (columns: name, duration_ns); kernels with start times come from a timeline: `nsys export --type sqlite "
    .. "R.nsys-rep`, a PyTorch profiler/Kineto trace, `nvprof --print-gpu-trace --csv`, `rocprof --hip-trace` or "
    .. "`rocprofv3 --kernel-trace`")
  lu.assertEquals(e.exit, 2)
  -- tables must cover the table part
  lu.assertEquals(recipes.validate({ name = "x", summary = "s", run = function() end, needs = { "kernels.start_ns" },
                                     tables = { "kernels", "runtime" } }, "x.lua").tables[1], "kernels")
  lu.assertErrorMsgContains("(kernels is missing)", function()
    recipes.validate({ name = "x", summary = "s", run = function() end, needs = { "kernels.start_ns" },
                       tables = { "runtime" } }, "x.lua") end)
  -- the bundled timeline recipes on a kernel table: that message, exit 2
  local out, rc = perflab_cli("run idle-time " .. KT)
  lu.assertEquals(rc, 2)
  lu.assertStrContains(out, "perflab: recipe 'idle-time' needs a table kernels with start_ns, and " .. KT
    .. " (kernel-table) has kernels without start_ns (columns: name, short_name, latency_ns, duration_ns")
  lu.assertNotStrContains(out, "traceback")
end

-- `tables`: what a recipe reads; it must cover `needs`, and perflab run
-- then builds only those tables (the report the same: test_corpus.lua)
function TestNeeds:test_tables_field_is_checked()
  local recipes = require "perflab.recipes"
  local function rec(t) t.name = "x"; t.summary = "s"; t.run = function() end; return t end
  local ok = recipes.validate(rec { needs = { "kernels|kernel_summary" },
      tables = { "kernels", "kernel_summary", "meta" } }, "x.lua")
  lu.assertEquals(ok.tables[3], "meta")
  lu.assertErrorMsgContains("x.lua: recipe field 'tables' must list every table of 'needs' (kernel_summary is missing)",
    function() recipes.validate(rec { needs = { "kernels|kernel_summary" }, tables = { "kernels" } }, "x.lua") end)
  lu.assertErrorMsgContains("x.lua: recipe field 'tables' must be a list of table names",
    function() recipes.validate(rec { tables = "kernels" }, "x.lua") end)
  lu.assertErrorMsgContains("x.lua: recipe field 'tables' must be a list of table names",
    function() recipes.validate(rec { tables = {} }, "x.lua") end)
  lu.assertEquals(recipes.validate(rec { needs = { "kernels" } }, "x.lua").tables, nil)
end

-- ---------------------------------------------------------------------------
TestFail = {}

function TestFail:test_fail_exit_code_from_recipe()
  local out, rc = perflab_cli("run failr " .. KT, { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 3)
  lu.assertEquals(out, "perflab: custom failure\n")
end

function TestFail:test_fail_in_scripts()
  local out, rc = perflab_cli("-e " .. sh_quote('perflab.fail("from -e", 4)'))
  lu.assertEquals({ out, rc }, { "perflab: from -e\n", 4 })
  out, rc = perflab_cli("-e " .. sh_quote('perflab.fail("default code")'))
  lu.assertEquals({ out, rc }, { "perflab: default code\n", 2 })
  local ok, err = pcall(perflab.fail, "x", 5)
  lu.assertFalse(ok)
  lu.assertEquals({ err.message, err.exit, tostring(err) }, { "x", 5, "x" })
end

-- ---------------------------------------------------------------------------
TestSeverity = {}

function TestSeverity:test_fail_on()
  -- myrec with word=warn makes one warn finding
  local cases = {
    { "--fail-on info", 1 }, { "--fail-on opt", 1 }, { "--fail-on warn", 1 }, { "--fail-on WRN", 1 },
    { "--fail-on error", 0 }, { "", 0 },
  }
  for _, c in ipairs(cases) do
    local _, rc = perflab_cli("run myrec " .. KT .. " --set word=warn " .. c[1], { PERFLAB_PATH = REC })
    lu.assertEquals(rc, c[2], c[1])
  end
  local out, rc = perflab_cli("run myrec " .. KT .. " --fail-on bogus", { PERFLAB_PATH = REC })
  lu.assertEquals(rc, 2)
  lu.assertEquals(out, "perflab: unknown severity 'bogus' (info, opt, warn, error)\n")
  -- the bundled recipe's info finding trips --fail-on info
  local _, rc2 = perflab_cli("run top-kernels " .. KT .. " --fail-on info")
  lu.assertEquals(rc2, 1)
end

function TestSeverity:test_report_findings()
  local rep = perflab.report { recipe = "r" }
  rep:finding { message = "a" }                                   -- default info
  rep:finding { severity = "WRN", message = "b", speedup_pct = 5 }
  rep:finding { severity = "warn", message = "c", speedup_pct = 20 }
  rep:finding { severity = "opt", message = "d", kernel = "k1" }
  lu.assertEquals(rep.findings[1].severity, "info")
  lu.assertEquals(rep.findings[1].rule, "r")
  lu.assertEquals(rep.findings[2].severity, "warn")
  lu.assertEquals(rep.findings[4].subject, "k1")
  lu.assertEquals(rep:max_severity(), "warn")
  local order = {}
  for i, f in ipairs(rep:sorted_findings()) do order[i] = f.message end
  lu.assertEquals(order, { "c", "b", "d", "a" })    -- severity, then speedup, then as added
  lu.assertErrorMsgContains("a finding needs a message", function() rep:finding { severity = "info" } end)
  local ok, err = pcall(rep.finding, rep, { severity = "fatal", message = "x" })
  lu.assertFalse(ok)
  lu.assertEquals(err.message, "unknown severity 'fatal' (info, opt, warn, error)")
  lu.assertErrorMsgContains("expected a perflab table for 't'", function() rep:table("t", {}) end)
  lu.assertErrorMsgContains("unknown output format 'xml' (text, markdown, json, csv, html)",
      function() rep:render("xml") end)
end

-- remove the temporary directories after the run
local runner = lu.LuaUnit.new()
local status = runner:runSuite()
for _, d in ipairs(DIRS) do os.execute("rm -rf " .. sh_quote(d)) end
os.exit(status)

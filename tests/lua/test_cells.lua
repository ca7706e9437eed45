-- test_cells.lua: the cell protocol (perflab repl --jsonl) end to end through
-- a pipe, including SIGINT during a cell and between cells, and the rich
-- forms of values (perflab.repl.rich) that notebooks display.
local lu = require "luaunit"
local cjson = require "cjson"
local repl = require "perflab.repl"
local perflab = require "perflab"

-- the binary under test: ctest runs `perflab tests/lua/test_cells.lua`
local BIN = arg[-1]

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function tmpdir()
  local p = io.popen("mktemp -d")
  local d = p:read("l")
  p:close()
  return d
end

local function read_replies(path)
  local out = {}
  for line in io.lines(path) do out[#out + 1] = cjson.decode(line) end
  return out
end

TestProtocol = {}

function TestProtocol:test_sigint_interrupts_a_cell_and_the_session_goes_on()
  local d = tmpdir()
  local script = table.concat({
    "set -e",
    "cd " .. sh(d),
    "mkfifo in",
    sh(BIN) .. " repl --jsonl < in > out 2> err & pid=$!",
    "exec 3> in",
    [[echo '{"id": 1, "code": "n = 0; while true do n = n + 1 end"}' >&3]],
    "sleep 1; kill -INT $pid",      -- interrupts cell 1
    "sleep 0.5; kill -INT $pid",    -- between cells: ignored
    "sleep 0.3",
    [[echo '{"id": 2, "code": "n > 0, 6 * 7"}' >&3]],
    "exec 3>&-",
    "wait $pid; echo $? > status",
  }, "\n")
  lu.assertTrue(os.execute(script))
  local f = io.open(d .. "/status")
  lu.assertEquals(f:read("l"), "0")
  f:close()
  local r = read_replies(d .. "/out")
  lu.assertEquals(#r, 2)
  lu.assertEquals(r[1].id, 1)
  lu.assertFalse(r[1].ok)
  lu.assertTrue(r[1].interrupted)
  lu.assertStrContains(r[1].error, "interrupted")
  lu.assertEquals(r[2].id, 2)
  lu.assertTrue(r[2].ok)
  lu.assertEquals(r[2].values[1].text, "true\n")   -- state survived: n counted up
  lu.assertEquals(r[2].values[2].text, "42\n")
  os.execute("rm -rf " .. sh(d))
end

function TestProtocol:test_numbers_keep_full_precision()
  local d = tmpdir()
  -- (1 << 53) + 1 is an integer a double cannot hold; 0.1 + 0.2 needs 17 digits
  local cells = [[{"id": 1, "code": "(1 << 53) + 1, 0.1 + 0.2, 123456789012345678"}]]
  lu.assertTrue(os.execute("echo " .. sh(cells) .. " | " .. sh(BIN) .. " repl --jsonl > " .. sh(d .. "/out")))
  local f = io.open(d .. "/out")
  local line = f:read("l")
  f:close()
  lu.assertStrContains(line, [["data":"9007199254740993"]])
  lu.assertStrContains(line, [["data":"0.30000000000000004"]])
  lu.assertStrContains(line, [["data":"123456789012345678"]])
  lu.assertStrContains(line, [["text":"0.30000000000000004\n"]])
  os.execute("rm -rf " .. sh(d))
end

TestRich = {}

function TestRich:test_report_with_a_figure()
  local rep = perflab.report { recipe = "demo" }
  rep:finding { severity = "warn", rule = "demo.rule", subject = "k", message = "k is slow" }
  rep:figure("bars.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>', { title = "Bars" })
  local r = repl.rich(rep)
  lu.assertStrContains(r.text, "k is slow")
  lu.assertStrContains(r.markdown, "## demo")
  lu.assertStrContains(r.markdown, "- **warn** `k` is slow")
  lu.assertEquals(r.svg, '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>')
  lu.assertEquals(r.figures[1].name, "bars.svg")
  lu.assertEquals(r.figures[1].title, "Bars")
end

function TestRich:test_svg_strings_tables_and_profiles()
  lu.assertEquals(repl.rich('<svg width="1"></svg>').svg, '<svg width="1"></svg>')
  -- the XML declaration is dropped: nbconvert's HTML export fails on one inline
  lu.assertEquals(repl.rich('<?xml version="1.0"?>\n<svg></svg>').svg, '<svg></svg>')
  lu.assertNil(repl.rich("not an svg").svg)
  local p = perflab.load("examples/kernel-table.txt")
  local t = p:table("kernels")
  local r = repl.rich(t)
  lu.assertStrContains(r.markdown, "**kernels** — 13065 rows × 8 columns")
  lu.assertStrContains(r.markdown, "… 13045 more rows (13065 in all)")
  -- text/html for notebooks: 20 rows, the count said
  lu.assertEquals(select(2, r.html:gsub("<tr>", "")), 21)
  lu.assertStrContains(r.html, "20 of 13065 rows shown")
  lu.assertNil(r.data)
  lu.assertStrContains(repl.rich(p).markdown, "- `kernels`: 13065 rows")
end

os.exit(lu.LuaUnit.run())

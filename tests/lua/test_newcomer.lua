-- test_newcomer.lua -- what a newcomer tripped on, each fixed: a mask's
-- count of trues, stats.histogram into chart.histogram, chart arguments
-- checked by name, chart.save (SVG, PNG), perflab.formats with one meaning,
-- help(fn) showing the whole documented entry.
-- Run: build/perflab tests/lua/test_newcomer.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local T = perflab.table
local S = perflab.stats
local chart = perflab.chart

function test_mask_count_true()
  local t = T.from_rows({ { d = 10 }, { d = 40 }, {}, { d = 50 }, { d = 20 } }, { "d" })
  local m = t:col("d"):gt(30)
  lu.assertEquals(m:count_true(), 2)         -- rows 2 and 4
  lu.assertEquals(m:count(), 5)              -- every value: the missing row compares false
  lu.assertEquals(t:filter(m):nrows(), 2)
  lu.assertEquals(t:col("d"):gt(100):count_true(), 0)
  lu.assertErrorMsgContains("count_true: column 'd' is not boolean", function() return t:col("d"):count_true() end)
end

function test_stats_histogram_fits_chart_histogram()
  local h = S.histogram({ 1, 2, 2, 3, 5, 8, 13 }, { bins = 3 })   -- edges 1 5 9 13, counts 4 2 1
  local svg = chart.histogram(h, { title = "durations" })
  -- one bar per bin, its hover text the range and count
  lu.assertStrContains(svg, "<title>1 – 5: 4</title>")
  lu.assertStrContains(svg, "<title>5 – 9: 2</title>")
  lu.assertStrContains(svg, "<title>9 – 13: 1</title>")
  lu.assertEquals(svg, chart.histogram { title = "durations", bins = { { 1, 5, 4 }, { 5, 9, 2 }, { 9, 13, 1 } } })
end

function test_chart_arguments_checked_by_name()
  lu.assertErrorMsgContains("chart.histogram: bins[2] must be {lo, hi, count} (three numbers), got {1, a, 3}",
    chart.histogram, { bins = { { 0, 1, 3 }, { 1, "a", 3 } } })
  lu.assertErrorMsgContains("chart.histogram: bins must be a list of {lo, hi, count}, got 5", chart.histogram,
      { bins = 5 })
  lu.assertErrorMsgContains("chart.histogram: width must be a number", chart.histogram, { width = "wide" })
  lu.assertErrorMsgContains("edges must have one more entry than counts (2 edges, 2 counts)",
    chart.histogram, { edges = { 1, 2 }, counts = { 1, 2 } })
end

local function tmpname(ext)
  local p = os.tmpname()
  os.remove(p)
  return p .. ext
end

function test_chart_save_svg_and_png()
  local svg = chart.histogram { bins = { { 0, 1, 3 } } }
  lu.assertNotStrContains(svg, "<?xml")   -- inline in HTML and notebooks
  local p = tmpname(".svg")
  lu.assertEquals(chart.save(svg, p), p)
  local f = assert(io.open(p, "rb")); local back = f:read("a"); f:close(); os.remove(p)
  lu.assertEquals(back, svg)
  lu.assertErrorMsgContains("chart.save: the figure (argument 1) must be SVG text", chart.save, "hello", p)
  if os.execute("command -v rsvg-convert >/dev/null 2>&1") then
    local png = tmpname(".png")
    chart.save(svg, png)
    local g = assert(io.open(png, "rb")); local head = g:read(8); g:close(); os.remove(png)
    lu.assertEquals(head, "\137PNG\r\n\26\n")
  end
end

function test_formats_one_name_one_meaning()
  lu.assertIs(perflab.formats, require "perflab.formats")
  local list = perflab.formats.list()
  lu.assertEquals(#perflab.formats(), #list)
  lu.assertTrue(#list > 5)
end

function test_help_shows_the_whole_entry()
  local repl = require "perflab.repl"
  local d = repl.doc(T.from_rows)
  -- the api.md line and the whole section of docs/table-api.md, with its example and errors
  lu.assertStrContains(d, "- `perflab.table.from_rows(rows [, order] [, name])`")
  lu.assertStrContains(d, "### `T.from_rows(rows [, order] [, name])`")
  lu.assertStrContains(d, "Errors: `row 1 is not a table`")
  local c = repl.doc(T.from_rows({ { x = true } }, { "x" }):col("x").count_true)
  lu.assertStrContains(c, "Column:count_true")
  lu.assertStrContains(c, "| `m:count_true()` |")
end

os.exit(lu.LuaUnit.run())

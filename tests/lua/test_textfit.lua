-- tests/lua/test_textfit.lua -- text tables that fit a width (perflab.textfit),
-- --full-names, and the `name` column of findings in JSON and CSV.
--
-- Values checked by hand: the planted kernel name below is 135 characters;
-- perflab.names.display elides its template arguments and parameter list to
-- "at::native::vectorized_elementwise_kernel<…>(…)" (47); every number of
-- the table must appear unchanged in the fitted text, whatever the width.
local lu = require "luaunit"
local perflab = require "perflab"
local textfit = require "perflab.textfit"

local LONG = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, float, float*)"

local function widest(s)
  local w = 0
  for line in s:gmatch("[^\n]+") do w = math.max(w, utf8.len(line)) end
  return w
end

local function wide_table()
  local rows = {}
  for i = 1, 3 do
    local r = { kernel = i == 1 and LONG or ("k" .. i), calls = 1000 + i }
    for c = 1, 14 do r["metric_" .. c] = 123456789 + c * 1000 + i end
    rows[i] = r
  end
  local cols = { "kernel", "calls" }
  for c = 1, 14 do cols[#cols + 1] = "metric_" .. c end
  return perflab.table.from_rows(rows, cols, "wide"), rows
end

TestTextfit = {}

function TestTextfit:test_fits_120_numbers_whole()
  lu.assertEquals(#LONG, 135)
  local t, rows = wide_table()
  local text = textfit.fit(t, 120)
  lu.assertTrue(widest(text) <= 120, "widest line " .. widest(text))
  for _, r in ipairs(rows) do
    for k, v in pairs(r) do
      if type(v) == "number" then lu.assertStrContains(text, tostring(v), false) end
    end
  end
  -- the name is shown shortened, in every block of columns (the first
  -- column repeats)
  local _, n = text:gsub("at::native::vectorized_elementwise_kernel<…>%(…%)", "")
  lu.assertTrue(n >= 2, "blocks: " .. n)
  lu.assertNotStrContains(text, "CUDAFunctor_add")
end

function TestTextfit:test_full_names()
  local t = wide_table()
  local text = textfit.fit(t, 120, { full_names = true })
  lu.assertStrContains(text, LONG)
  -- a narrow table is not split, only its names shortened
  local s = perflab.table.from_rows({ { kernel = LONG, calls = 3 } }, { "kernel", "calls" })
  local out = textfit.fit(s, 120)
  lu.assertEquals(select(2, out:gsub("\n", "")), 3)    -- header, rule, one row
  lu.assertStrContains(out, "at::native::vectorized_elementwise_kernel<…>(…)      3")
end

function TestTextfit:test_findings_name_column()
  local rep = perflab.report { recipe = "x" }
  rep:finding { severity = "warn", rule = "x.slow", subject = LONG, message = "slow kernel" }
  rep:finding { severity = "info", rule = "x.note", message = "no subject" }
  local data = require("cjson").decode(rep:render("json"))
  lu.assertEquals(data.findings[1].name, LONG)
  lu.assertEquals(data.findings[1].subject, LONG)
  lu.assertNil(data.findings[2].name)
  local csv = rep:render("csv", { table = "findings" })
  local head = csv:match("^[^\n]+")
  lu.assertEquals(head, "severity,rule,subject,message,speedup_pct,evidence,name")
  lu.assertStrContains(csv, ',"' .. LONG .. '"')
  lu.assertStrContains(csv, "warn,x.slow,at::native::vectorized_elementwise_kernel<…>(…),")
  -- the report's text: the name shortened, in full with full_names
  rep:table("k", perflab.table.from_rows({ { kernel = LONG, calls = 1 } }, { "kernel", "calls" }))
  lu.assertNotStrContains(rep:render("text", { width = 120 }), "CUDAFunctor_add<float>, at")
  lu.assertStrContains(rep:render("text", { width = 120, full_names = true }), LONG)
end

os.exit(lu.LuaUnit.run())

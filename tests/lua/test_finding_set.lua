-- test_finding_set.lua -- Report:finding_set: findings built from a table's
-- columns render exactly as the same findings added one by one with
-- Report:finding (the second method: the per-finding path every recipe
-- used before), folded or not, mixed with findings of other rules; the
-- folded table carries the set's extra columns; report.findings,
-- all_findings, finding_count and max_severity see the set's rows.
-- Run: build/perflab tests/lua/test_finding_set.lua -v
local lu = require "luaunit"
local perflab = require "perflab"
local T = perflab.table
local report = require "perflab.report"

-- n findings of rule "r.many": subject k<i>, speedup (i * 7) % 13 (ties
-- keep the order added), message built by hand
local function rows(n)
  local out = {}
  for i = 1, n do
    out[i] = { kernel = "k" .. i, sp = (i * 7) % 13 + 0.5, launches = i, time_ns = 1000 * i,
      message = string.format("k%d: %d launches", i, i) }
  end
  return out
end

-- the same report twice: the set's rows as a finding_set, or one by one
local function build(n, as_set)
  local rep = report.new { recipe = "t" }
  rep:finding { severity = "info", rule = "r.first", subject = "x", message = "before", speedup_pct = 3 }
  local rs = rows(n)
  if as_set then
    local t = T.from_rows(rs, { "kernel", "sp", "launches", "time_ns", "message" })
    rep:finding_set(t, { rule = "r.many", severity = "warn", subject = "kernel", message = "message",
      speedup_pct = "sp", evidence = function(r) return { launches = r.launches } end })
  else
    for _, r in ipairs(rs) do
      rep:finding { severity = "warn", rule = "r.many", subject = r.kernel, message = r.message, speedup_pct = r.sp,
        evidence = { launches = r.launches } }
    end
  end
  rep:finding { severity = "error", rule = "r.last", message = "after" }
  return rep
end

TestFindingSet = {}

function TestFindingSet:test_renders_as_one_by_one()
  for _, n in ipairs({ 1, 10, 11, 40 }) do   -- around the fold (more than 10 fold)
    local a, b = build(n, true), build(n, false)
    for _, fmt in ipairs({ "text", "markdown", "json", "csv", "html" }) do
      lu.assertEquals(a:render(fmt), b:render(fmt), string.format("%d findings, %s", n, fmt))
    end
    lu.assertEquals(a:finding_count(), n + 2)
    lu.assertEquals(#a.findings, n + 2)
    lu.assertEquals(a.findings[2].subject, "k1")
    lu.assertEquals(a.findings[2].evidence, { launches = 1 })
    lu.assertEquals(a.findings[n + 2].message, "after")
    lu.assertEquals(a:max_severity(), "error")
  end
end

function TestFindingSet:test_fold_table_order_and_columns()
  local rep = report.new { recipe = "t" }
  local t = T.from_rows(rows(20), { "kernel", "sp", "launches", "time_ns", "message" })
  rep:finding_set(t, { rule = "r.many", severity = "warn", subject = "kernel", message = "message",
    speedup_pct = "sp", columns = { "launches", "time_ns" } })
  local fs, tables = rep:shown_findings()
  lu.assertEquals(#fs, 1)
  lu.assertStrContains(fs[1].message, "r.many fired on 20 subjects")
  -- (i * 7) % 13 (7 x 2 = 1 mod 13, so i = 2 x value mod 13): 12 at i = 11,
  -- 11 at i = 9, 10 at i = 7 (each once in 1..20): the worst first
  lu.assertStrContains(fs[1].message, "the worst: k11 (est. 12.5 %); k9 (est. 11.5 %); k7 (est. 10.5 %)")
  lu.assertEquals(fs[1].speedup_pct, 12.5)
  local ft = tables[1].table
  lu.assertEquals(tables[1].name, "findings.r.many")
  lu.assertEquals(ft:columns(), { "subject", "severity", "speedup_pct", "launches", "time_ns", "message", "name" })
  lu.assertEquals(ft:nrows(), 20)
  lu.assertEquals(ft:row(1), { subject = "k11", severity = "warn", speedup_pct = 12.5, launches = 11, time_ns = 11000,
    message = "k11: 11 launches", name = "k11" })
  lu.assertEquals(ft:get(3, "launches"), 7)
  -- ties keep the order added: 7.5 at i = 1 and 14
  local o = ft:filter(ft:col("speedup_pct"):eq(7.5)):col("name"):to_lua()
  lu.assertEquals(o, { "k1", "k14" })
  -- the text shows the extra columns beside the message
  lu.assertStrContains(rep:render("text"), "time_ns")
end

function TestFindingSet:test_expand_adds_each()
  local rep = report.new { recipe = "t" }
  local t = T.from_rows(rows(3), { "kernel", "sp", "launches", "time_ns", "message" })
  local fs = rep:finding_set(t, { rule = "r.many", severity = "opt", subject = "kernel", message = "message",
    speedup_pct = "sp", expand = true })
  lu.assertEquals(#fs, 3)
  lu.assertEquals(#rep.finding_sets, 0)
  lu.assertIs(rep.findings[3], fs[3])
  lu.assertEquals(fs[2].speedup_pct, 1.5)   -- (2 * 7) % 13 + 0.5
end

function TestFindingSet:test_bad_spec()
  local rep = report.new { recipe = "t" }
  local t = T.from_rows(rows(2), { "kernel", "sp", "launches", "time_ns", "message" })
  lu.assertErrorMsgContains("no column 'nope'", function()
    rep:finding_set(t, { rule = "r", message = "message", subject = "nope" })
  end)
  lu.assertErrorMsgContains("unknown", function() rep:finding_set(t,
      { rule = "r", message = "message", bogus = 1 }) end)
end

os.exit(lu.LuaUnit.run())

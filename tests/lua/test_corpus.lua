--- test_corpus.lua -- every seed and every file of ../shared/corpus loads
-- without error (skipped when the folder is absent), and top-kernels runs on
-- every one that carries kernels, with shares that add up to 100 %.
local lu = require "luaunit"
local perflab = require "perflab"
local sys = require "perflab.sys"

local shared = os.getenv("PERFLAB_SHARED") or "../shared"

local function files_under(dir, out)
  out = out or {}
  for _, name in ipairs(sys.listdir(dir)) do
    local p = dir .. "/" .. name
    if sys.isdir(p) then files_under(p, out)
    elseif name ~= "MANIFEST.md" then out[#out + 1] = p end
  end
  return out
end

TestCorpus = {}

function TestCorpus:test_every_file_loads()
  if not sys.isdir(shared .. "/corpus") then print("skipped: no " .. shared .. "/corpus"); return end
  local files = files_under(shared .. "/seeds")
  files_under(shared .. "/corpus", files)
  lu.assertTrue(#files >= 60)
  local failures = {}
  for _, f in ipairs(files) do
    local p, err = perflab.try_load(f)
    if not p then failures[#failures + 1] = err
    else
      local n = 0
      for _ in pairs(p.tables) do n = n + 1 end
      if n == 0 then failures[#failures + 1] = f .. ": no tables" end
    end
  end
  lu.assertEquals(failures, {})
end

function TestCorpus:test_top_kernels_everywhere()
  if not sys.isdir(shared .. "/corpus") then print("skipped"); return end
  local files = files_under(shared .. "/seeds")
  files_under(shared .. "/corpus", files)
  local ran, same = 0, 0
  -- perflab run loads only the tables the recipe lists (`tables`): the
  -- report from that load must be the report from a full one
  local only = require("perflab.recipes").load("top-kernels").tables
  lu.assertEquals(only, { "kernels", "kernel_summary" })
  for _, f in ipairs(files) do
    local p = perflab.try_load(f)
    local k = p and (p.tables.kernels or p.tables.kernel_summary)
    local usable = k and ((p.tables.kernels and p.tables.kernels:has("duration_ns")
      and p.tables.kernels:col("duration_ns"):count() > 0) or (p.tables.kernel_summary and p.tables.kernel_summary:nrows() > 0))
    if usable then
      local r = perflab.run("top-kernels", p, { top = 0 })
      local name, t = next(r.tables)
      lu.assertNotNil(t, f)
      local total = t:col("total_ns"):sum()
      if total > 0 then
        local runs = t:has("run") and #t:unique("run") or 1
        lu.assertAlmostEquals(t:col("share_pct"):sum(), 100 * runs, 1e-6, f)
      end
      ran = ran + 1
      local q = perflab.try_load(f, { tables = only })
      lu.assertTrue(q.partial, f)
      local r2 = perflab.run("top-kernels", q, { top = 0 })
      local n2, t2 = next(r2.tables)
      lu.assertEquals(n2, name, f)
      lu.assertEquals(t2:to_csv(), t:to_csv(), f)
      lu.assertEquals(#r2.findings, #r.findings, f)
      for i, x in ipairs(r.findings) do lu.assertEquals(r2.findings[i].message, x.message, f) end
      same = same + 1
    end
  end
  lu.assertTrue(ran >= 30, "top-kernels ran on " .. ran .. " files")
  lu.assertEquals(same, ran)
end

os.exit(lu.LuaUnit.run())

--- test_corpus.lua -- every seed and every file of the corpus families that
-- perflab reads (FAMILIES below, under tests/data/corpus) loads without
-- error, and top-kernels runs on every one that carries kernels, with shares
-- that add up to 100 %.  A family joins FAMILIES when its reader lands, so
-- corpus data that arrives ahead of its reader never turns the suite red.
local lu = require "luaunit"
local perflab = require "perflab"
local sys = require "perflab.sys"

local shared = os.getenv("PERFLAB_DATA") or "tests/data"

local function files_under(dir, out)
  out = out or {}
  for _, name in ipairs(sys.listdir(dir)) do
    local p = dir .. "/" .. name
    if sys.isdir(p) then files_under(p, out)
    elseif name ~= "MANIFEST.md" then out[#out + 1] = p end
  end
  return out
end

-- The corpus families this build reads (all of them now; a family joins
-- when its reader lands).  kineto_multirank: every rank file, bare JSON arrays too.
local FAMILIES = { "kineto_trace", "ncu_csv", "ncu_text", "nsys_sqlite", "nsys_stats", "nvprof",
  "paddle_profiler", "rocprof", "torch_profiler_table", "torch_tb_profiler", "kineto_multirank" }

-- Seeds and the files of FAMILIES; a missing folder fails the test (the
-- data lives in the repository, so absence is a broken checkout).
local function all_files()
  lu.assertTrue(sys.isdir(shared .. "/corpus"), "no " .. shared .. "/corpus")
  local files = files_under(shared .. "/seeds")
  for _, fam in ipairs(FAMILIES) do
    lu.assertTrue(sys.isdir(shared .. "/corpus/" .. fam), "no corpus family " .. fam)
    files_under(shared .. "/corpus/" .. fam, files)
  end
  return files
end

TestCorpus = {}

function TestCorpus:test_every_file_loads()
  local files = all_files()
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
  local files = all_files()
  local ran = 0
  for _, f in ipairs(files) do
    local p = perflab.try_load(f)
    local k = p and (p.tables.kernels or p.tables.kernel_summary)
    local usable = k and ((p.tables.kernels and p.tables.kernels:has("duration_ns")
      and p.tables.kernels:col("duration_ns"):count() > 0) or (p.tables.kernel_summary
          and p.tables.kernel_summary:nrows() > 0))
    if usable then
      local r = perflab.run("top-kernels", p, { top = 0 })
      local name, t = next(r.tables)
      lu.assertNotNil(t, f)
      local total = t:col("total_ns"):sum()
      if total > 0 then
        local runs = t:has("run") and #t:unique("run") or 1
        -- a summary that lists part of the time its input records (an
        -- excerpt, a table cut by row_limit): shares of the recorded total
        local recorded = tonumber(p.meta.kernel_summary_total_ns)
        local want = recorded and 100 * total / recorded or 100 * runs
        lu.assertAlmostEquals(t:col("share_pct"):sum(), want, 1e-6, f)
      end
      ran = ran + 1
    end
  end
  lu.assertTrue(ran >= 30, "top-kernels ran on " .. ran .. " files")
end

-- A recipe that lists the tables it reads (`tables`) gets only those from
-- perflab run: on every seed and corpus file it runs on, its whole report
-- (JSON) from that partial load must be the report from a full load.
function TestCorpus:test_partial_loads_give_the_same_reports()
  local recipes = require "perflab.recipes"
  local files = all_files()
  local checked = {}
  for _, name in ipairs({ "top-kernels", "diff", "occupancy", "launch", "idle-time", "launch-latency" }) do
    local only = recipes.load(name).tables
    lu.assertNotNil(only, name .. " lists the tables it reads")
    local ran = 0
    for _, f in ipairs(files) do
      local p = perflab.try_load(f)
      local ok, full = false, nil
      -- diff takes a file holding two runs, or two files (here the same twice)
      local twice = false
      if p then ok, full = pcall(perflab.run, name, { p }) end
      if p and not ok and name == "diff" then
        twice = true
        ok, full = pcall(perflab.run, name, { p, perflab.try_load(f) })
      end
      if ok then
        local q = perflab.try_load(f, { tables = only })
        lu.assertTrue(q.partial, f)
        local ok2, part = pcall(perflab.run, name, twice and { q, perflab.try_load(f, { tables = only }) } or { q })
        lu.assertTrue(ok2, name .. " " .. f .. ": " .. tostring(part))
        lu.assertEquals(part:render_json(), full:render_json(), name .. " " .. f)
        ran = ran + 1
      end
    end
    checked[#checked + 1] = name .. " " .. ran
    lu.assertTrue(ran >= 5, name .. " ran on " .. ran .. " files")
  end
  print("\npartial loads, reports compared: " .. table.concat(checked, ", "))
end

os.exit(lu.LuaUnit.run())

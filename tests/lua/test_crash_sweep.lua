--- test_crash_sweep.lua -- every bundled recipe on every field-input
-- fixture, rendered in every output format: a recipe may refuse an input
-- (a perflab.fail: "needs ...", exit 2), but never raise any other error
-- (the Lua traceback of issue 28 point 15: occupancy on a failed launch).
-- Inputs: every file under tests/fixtures that loads (the failed-launch ncu
-- logs, the field inputs of issues 22 and 25, ...) and tests/data/field3
-- (issue 28).  A file that does not load is the bad-input suite's business.
-- diff runs on the input against itself; suspicion with it as baseline and
-- target.
local lu = require "luaunit"
local perflab = require "perflab"
local recipes = require "perflab.recipes"
local errors = require "perflab.errors"
local sys = require "perflab.sys"

local function files_under(dir, out)
  for _, name in ipairs(sys.listdir(dir)) do
    local p = dir .. "/" .. name
    if sys.isdir(p) then files_under(p, out)
    elseif not name:match("%.md$") and not name:match("%.lua$") then out[#out + 1] = p end
  end
  return out
end

local FORMATS = { "text", "markdown", "json", "csv", "html" }
-- these folders must hold inputs (a checkout without them is broken)
local MUST = { "tests/fixtures/ncu/launch_failed_nan.txt", "tests/fixtures/ncu/launch_failed_zero_dims.txt" }

local function sweep(dirs)
  local files = {}
  for _, d in ipairs(dirs) do files_under(d, files) end
  table.sort(files)
  local names = {}
  for _, r in ipairs(recipes.list()) do if r.origin ~= "PERFLAB_PATH" then names[#names + 1] = r.name end end
  local bad, loaded, ran = {}, 0, 0
  for _, f in ipairs(files) do
    local ok, p = pcall(perflab.load, f, { lenient = f:find("/lenient/", 1, true) ~= nil })
    if ok then
      loaded = loaded + 1
      for _, name in ipairs(names) do
        local ins = { p }
        if name == "diff" then ins = { p, p } end
        if name == "suspicion" then
          local a = setmetatable({ role = "baseline" }, { __index = p })
          local b = setmetatable({ role = "target" }, { __index = p })
          ins = { a, b }
        end
        local rok, rep = pcall(recipes.run, name, ins, {})
        if not rok then
          if not errors.is_fail(rep) then bad[#bad + 1] = name .. " " .. f .. ": " .. errors.text(rep) end
        else
          ran = ran + 1
          for _, fmt in ipairs(FORMATS) do
            local fok, e = pcall(rep.render, rep, fmt)
            if not fok then bad[#bad + 1] = name .. " " .. f .. " --format " .. fmt .. ": " .. errors.text(e) end
          end
        end
      end
    elseif not errors.is_fail(p) then
      bad[#bad + 1] = "load " .. f .. ": " .. errors.text(p)
    end
  end
  return bad, loaded, ran
end

TestCrashSweep = {}

function TestCrashSweep:test_every_recipe_every_fixture_every_format()
  for _, f in ipairs(MUST) do lu.assertTrue(sys.isfile(f), "missing " .. f) end
  local bad, loaded, ran = sweep({ "tests/fixtures", "tests/data/field3" })
  lu.assertEquals(bad, {})
  -- the sweep saw inputs and reports (a sweep over nothing cannot fail)
  lu.assertTrue(loaded >= 70, "loaded " .. loaded)
  lu.assertTrue(ran >= 500, "ran " .. ran)
end

os.exit(lu.LuaUnit.run())

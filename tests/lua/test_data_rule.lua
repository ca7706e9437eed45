--- test_data_rule.lua -- the test-data rule, checked over the test sources:
-- tests read only files inside the repository (no reference to the
-- shared folder beside the clone, nor its old variable, in tests, CMake, Makefile or CI), and no test skips
-- silently.  A test whose data is missing fails naming the file
-- (tcheck.h tc_need, tests/lua/tdata.lua); only an absent optional tool
-- may be skipped, and then the test prints "SKIPPED (optional tool ...".
-- So a lower-case "skipped" in something a test prints is a silent skip.
local lu = require "luaunit"
local sys = require "perflab.sys"

local src = os.getenv("PERFLAB_SRC") or "."

local function files_under(dir, out)
  for _, n in ipairs(sys.listdir(dir)) do
    local p = dir .. "/" .. n
    if sys.isdir(p) then
      if n ~= "data" and n ~= "fixtures" and n ~= "regressions" then files_under(p, out) end
    elseif n:match("%.[chl][ua]?a?$") or n:match("%.sh$") or n:match("%.py$") or n:match("%.t$") then
      out[#out + 1] = p
    end
  end
  return out
end

local function read(p)
  local fh = assert(io.open(p, "rb"))
  local s = fh:read("a")
  fh:close()
  return s
end

local function test_sources()
  local files = files_under(src .. "/tests", {})
  table.sort(files)
  lu.assertTrue(#files >= 40, "found only " .. #files .. " test sources")
  return files
end

TestDataRule = {}

-- print("skipped ...") / printf("skipped ...") / echo "skipped ...": a test
-- reporting it did not run, which ctest would count as passed.
function TestDataRule:test_no_silent_skip()
  local bad = {}
  for _, p in ipairs(test_sources()) do
    if not p:match("test_data_rule%.lua$") then
      local n = 0
      for line in (read(p) .. "\n"):gmatch("([^\n]*)\n") do
        n = n + 1
        if line:match("print[f]?%s*%(%s*[\"']skipped") or line:match("echo%s+[\"']?skipped")
          or line:match("print%(\"%s*skipped") then
          bad[#bad + 1] = p:sub(#src + 2) .. ":" .. n .. ": " .. line:gsub("^%s+", "")
        end
      end
    end
  end
  lu.assertEquals(bad, {})
end

function TestDataRule:test_no_data_outside_the_repository()
  local bad = {}
  local files = test_sources()
  for _, p in ipairs({ "CMakeLists.txt", "Makefile", ".ci/run" }) do
    local fh = io.open(src .. "/" .. p, "rb")
    if fh then fh:close(); files[#files + 1] = src .. "/" .. p end
  end
  for _, p in ipairs(files) do
    if not p:match("test_data_rule%.lua$") then
      local s = read(p)
      -- the two strings are built here so that this file does not hold them
      if s:find("PERFLAB_" .. "SHARED", 1, true) or s:find("../" .. "shared", 1, true) then
        bad[#bad + 1] = p:sub(#src + 2)
      end
    end
  end
  lu.assertEquals(bad, {})
end

-- the helpers the rule is built on fail as they say
function TestDataRule:test_need_names_the_file()
  local tdata = require "tdata"
  lu.assertErrorMsgContains("test data missing: tests/data/no/such/file",
    tdata.need, "tests/data/no/such/file")
  lu.assertErrorMsgContains("test data missing: folder tests/data/nowhere",
    tdata.dir_need, "tests/data/nowhere")
  lu.assertEquals(tdata.path("seeds/000_86950a828dffa530.txt"), tdata.dir .. "/seeds/000_86950a828dffa530.txt")
end

os.exit(lu.LuaUnit.run())

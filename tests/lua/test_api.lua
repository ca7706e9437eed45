--- test_api.lua -- the public Lua API is what docs/api.md documents
-- (issue 18, parts 3 and 6): every bundled recipe and example requires only
-- modules listed there as stable or provisional; every function of those
-- modules and of the API's objects has an entry; help(fn) prints it.
local lu = require "luaunit"
local perflab = require "perflab"
local repl = require "perflab.repl"

local src = os.getenv("PERFLAB_SRC") or "."

local function read(path)
  local fh = assert(io.open(path, "rb"), "cannot open " .. path)
  local s = fh:read("a")
  fh:close()
  return s
end

-- module name -> stability, from the table under "## Modules"
local function documented_modules()
  local mods = {}
  for name, stab in read(src .. "/docs/api.md"):gmatch("\n| `([%w_.]+)` | (%a+) |") do mods[name] = stab end
  return mods
end

local function lua_files(dir)
  local out = {}
  for _, n in ipairs(require("perflab.sys").listdir(src .. "/" .. dir, ".lua")) do out[#out + 1] = dir .. "/" .. n end
  return out
end

TestApi = {}

function TestApi:test_module_table()
  local mods = documented_modules()
  lu.assertEquals(mods["perflab"], "stable")
  lu.assertEquals(mods["perflab.gpu"], "provisional")
  lu.assertEquals(mods["perflab.cuda_occupancy"], "stable")
  lu.assertEquals(mods["perflab.device"], "provisional")
  lu.assertEquals(mods["perflab.cli"], "internal")
  -- every module there is, documented (a new module needs a line)
  for _, m in ipairs(perflab.modules()) do
    lu.assertNotNil(mods["perflab." .. m], "perflab." .. m .. " is not in docs/api.md (add a row to its Modules table)")
  end
end

function TestApi:test_recipes_use_only_the_documented_api()
  local mods = documented_modules()
  local files = lua_files("recipes")
  for _, f in ipairs(lua_files("examples/recipes")) do files[#files + 1] = f end
  for _, f in ipairs(lua_files("examples")) do files[#files + 1] = f end
  lu.assertTrue(#files >= 14, "found " .. #files)
  local bad, seen = {}, 0
  for _, f in ipairs(files) do
    for name in read(src .. "/" .. f):gmatch("require%s*%(?%s*[\"']([%w_.]+)[\"']") do
      seen = seen + 1
      local st = mods[name]
      if st ~= "stable" and st ~= "provisional" then bad[#bad + 1] = f .. ": " .. name .. " (" .. tostring(st)
          .. ")" end
    end
  end
  lu.assertTrue(seen >= 30, "found " .. seen .. " requires")
  lu.assertEquals(bad, {})
end

-- Every function of a stable or provisional module, and every method of the
-- API's objects, has its entry (repl.doc finds it in docs/api.md).
function TestApi:test_every_public_function_is_documented()
  local mods = documented_modules()
  local missing, n = {}, 0
  local function each(t, prefix, sep)
    for k, v in pairs(t) do
      if type(v) == "function" and type(k) == "string" and not k:match("^__") then
        n = n + 1
        local d = repl.doc(v)
        if not (d and d:find("\n- `", 1, true)) then missing[#missing + 1] = prefix .. sep .. k end
      end
    end
  end
  for name, st in pairs(mods) do
    if st ~= "internal" then
      local mod = name == "perflab" and perflab or require(name)
      each(mod, name, ".")
    end
  end
  local t = perflab.table.from_rows({ { x = 1 } }, { "x" })
  each(getmetatable(t).__index, "Table", ":")
  each(getmetatable(t:col("x")).__methods, "Column", ":")
  each(getmetatable(perflab.intervals.empty()).__index, "IntervalSet", ":")
  each(require("perflab.profile").Profile, "Profile", ":")
  each(getmetatable(perflab.report {}).__index, "Report", ":")
  table.sort(missing)
  lu.assertEquals(missing, {}, "functions without an entry in docs/api.md (add a line '- `NAME(args)` ...')")
  lu.assertTrue(n >= 180, "only " .. n .. " functions")
end

local function help_output(x)
  local saved = io.stdout
  local tmp = io.tmpfile()
  io.stdout = tmp
  local ok, err = pcall(repl.help, x)
  io.stdout = saved
  tmp:seek("set")
  local s = tmp:read("a")
  tmp:close()
  assert(ok, err)
  return s
end

function TestApi:test_help_prints_the_documentation()
  -- a Lua function: the api.md entry and the comment above its definition
  -- (perflab.gpu re-exports it: help names the module that owns it)
  local s = help_output(perflab.gpu.occupancy)
  lu.assertStrContains(s, "perflab.cuda_occupancy.occupancy\n")
  lu.assertStrContains(s, "- `perflab.cuda_occupancy.occupancy{cc=, block_size=")
  lu.assertStrContains(s, "block_size: threads, or {x, y, z}.")
  -- a C function: its entry
  s = help_output(perflab.stats.mean)
  lu.assertEquals(s,
      "perflab.stats.mean\n- `perflab.stats.mean(x [, {nan = \"omit\" | \"error\"}])` -> the mean (compensated).\n")
  -- a method, reached through an object
  local t = perflab.table.from_rows({ { x = 1 } }, { "x" })
  s = help_output(t.sort_by)
  lu.assertStrContains(s, "Table:sort_by\n- `Table:sort_by(key, …)` -> new table sorted (stable)")
  -- never the bare address
  for _, f in ipairs({ perflab.load, perflab.units.ns, perflab.intervals.from_pairs, t.col }) do
    lu.assertNotStrContains(help_output(f), "function: 0x")
  end
  lu.assertStrContains(help_output(print), "not part of perflab's API")
end

-- The lazy loader raises a module's load error instead of making the
-- module nil (review 3.3: pcall(require) in init.lua hid a syntax error).
function TestApi:test_lazy_module_load_error_is_raised()
  local tmp = os.tmpname()
  os.remove(tmp)
  local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
  assert(os.execute("mkdir -p " .. sh(tmp) .. " && cp -r " .. sh(src .. "/lua") .. " " .. sh(tmp .. "/lua")))
  local f = assert(io.open(tmp .. "/lua/perflab/compare.lua", "a"))
  f:write("\nthis is not Lua\n")
  f:close()
  local bin = require("perflab.sys").exe_path()
  local h = io.popen("PERFLAB_LUA_DIR=" .. sh(tmp .. "/lua") .. " " .. sh(bin)
    .. " -e 'print(perflab.nosuch); print(perflab.gpus ~= nil); print(perflab.compare)' 2>&1")
  local out = h:read("a")
  h:close()
  os.execute("rm -rf " .. sh(tmp))
  lu.assertStrContains(out, "nil\ntrue\n")
  lu.assertStrContains(out, "lua/perflab/compare.lua:")
  lu.assertStrContains(out, "expected near 'this'")
end

-- perflab.gpu is a facade (issue 18): the same functions and the same
-- thresholds table as the modules it re-exports; weighting has no copy of dim.
function TestApi:test_gpu_facade_reexports_the_split_modules()
  local gpu = require "perflab.gpu"
  local n = 0
  for _, name in ipairs({ "perflab.cuda_occupancy", "perflab.ncu_math", "perflab.device" }) do
    for k, v in pairs(require(name)) do
      n = n + 1
      lu.assertIs(gpu[k], v, "perflab.gpu." .. k .. " is not " .. name .. "." .. k)
    end
  end
  lu.assertTrue(n >= 20, "only " .. n .. " fields")
  lu.assertIs(gpu.thresholds, require("perflab.ncu_math").thresholds)
  lu.assertIs(require("perflab.weighting").dim, require("perflab.device").dim)
  -- dim: 4 x 2 x 3 threads from the x/y/z columns, the scalar column first
  local dim = require("perflab.device").dim
  lu.assertEquals(dim({ block_x = 4, block_y = 2, block_z = 3 }, "block_size", "block"), 24)
  lu.assertEquals(dim({ block_size = 7, block_x = 4 }, "block_size", "block"), 7)
  lu.assertNil(dim({}, "block_size", "block"))
  -- the module a user copies needs no facade: 256 threads, 32 registers on
  -- CC 8.0: 65536 / (32 x 32 x 8 warps) = 8 blocks, 64 of 64 warps = 100 %
  local o = require("perflab.cuda_occupancy").occupancy{ cc = "8.0", block_size = 256, registers = 32 }
  lu.assertEquals(o.active_blocks, 8)
  lu.assertEquals(o.theoretical_occupancy_pct, 100)
end

os.exit(lu.LuaUnit.run())

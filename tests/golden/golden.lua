--- tests/golden/golden.lua: every report perflab writes on the repository's
-- own inputs, hashed, against tests/golden/MANIFEST.
--
--   perflab tests/golden/golden.lua check SHARD NSHARDS   (ctest golden.N)
--   perflab tests/golden/golden.lua update                (make golden-update)
--
-- Run from the source directory (paths in the manifest are relative to it).
-- Inputs: every file under tests/data, tests/fixtures and examples that is
-- not documentation, a script or a provenance note; every folder of two or
-- more of those (a job of ranks, a set of runs) as one multi-input run; and
-- the comparison runs listed in ROLES below.  For each input, every bundled
-- recipe runs on it in every output format, plus the summary-first report
-- of `perflab run all` ("report").  A line of the manifest is
--
--   RECIPE  INPUT  FORMAT  STATUS  HASH
--
-- STATUS is 0 (a report), 2 (a user error: the input refused, the recipe's
-- needs unmet: its message is what is hashed, format "-") or E (an internal
-- error: a bug).  HASH is the FNV-1a 32-bit hash of the output and its
-- length in bytes.  Load and render are those of the CLI (the same modules,
-- in-process, so one parse serves every recipe and format).
local sys = require "perflab.sys"
local profile = require "perflab.profile"
local recipes = require "perflab.recipes"
local errors = require "perflab.errors"
local summary = require "perflab.summary"
local html = require "perflab.html"
local json = require "perflab.json"

local MANIFEST = "tests/golden/MANIFEST"
local ROOTS = { "tests/data", "tests/fixtures", "examples" }
local FORMATS = { "text", "markdown", "json", "csv", "html" }
-- comparison runs in roles (suspicion): baseline files, then target files
local ROLES = {
  { name = "--baseline tests/fixtures/suspicion/normal_* --target tests/fixtures/suspicion/abnormal_*",
    baseline = { "tests/fixtures/suspicion/normal_1.pt.trace.json.gz",
        "tests/fixtures/suspicion/normal_2.pt.trace.json.gz" },
    target = { "tests/fixtures/suspicion/abnormal_1.pt.trace.json.gz",
        "tests/fixtures/suspicion/abnormal_2.pt.trace.json.gz" } },
}

-- not profiles: documentation, scripts, provenance notes, expected outputs
-- that say so in their name
local SKIP_EXT = { md = true, lua = true, py = true, sh = true, c = true, ipynb = true, sql = true }
local function is_input(name)
  if name:match("^%.") then return false end
  local ext = name:match("%.([%w]+)$")
  return not (ext and SKIP_EXT[ext:lower()])
end

--- every input file, sorted; and the folders holding two or more of them
local function collect()
  local files, groups = {}, {}
  local function walk(dir)
    local here = {}
    for _, name in ipairs(sys.listdir(dir)) do
      local p = dir .. "/" .. name
      if sys.isdir(p) then walk(p)
      elseif sys.isfile(p) and is_input(name) then here[#here + 1] = p; files[#files + 1] = p end
    end
    if #here >= 2 then groups[#groups + 1] = { name = dir .. "/*", files = here } end
  end
  for _, r in ipairs(ROOTS) do walk(r) end
  table.sort(files)
  table.sort(groups, function(a, b) return a.name < b.name end)
  local runs = {}
  for _, f in ipairs(files) do runs[#runs + 1] = { name = f, files = { f } } end
  for _, g in ipairs(groups) do runs[#runs + 1] = g end
  for _, r in ipairs(ROLES) do runs[#runs + 1] = r end
  return runs
end

local function digest(s) return string.format("%08x:%d", sys.fnv1a(s), #s) end

-- one manifest line; tabs separate the fields (paths hold no tab)
local function line(recipe, input, fmt, status, text)
  return table.concat({ recipe, input, fmt, status, digest(text) }, "\t")
end

local function message(e) return errors.text(e):gsub("\n.*", "") end

--- the lines of one run (one input or group): load, then every recipe in
-- every format, then the summary-first report
local function lines_of(run, all_recipes)
  local out = {}
  local ok, inputs = pcall(function()
    if run.baseline then
      local ps = {}
      for _, role in ipairs({ "baseline", "target" }) do
        for _, f in ipairs(run[role]) do
          local p = profile.load(f); p.role = role; ps[#ps + 1] = p
        end
      end
      return ps
    elseif #run.files == 1 then
      return { profile.load(run.files[1]) }
    end
    return profile.load_many(run.files, { jobs = 1 })
  end)
  if not ok then
    out[1] = line("load", run.name, "-", errors.is_fail(inputs) and "2" or "E", message(inputs))
    return out
  end
  local reps = {}
  for _, r in ipairs(all_recipes) do
    local okr, rep = pcall(function()
      recipes.check_needs(r, inputs)
      return recipes.run(r, inputs, {})
    end)
    if not okr then
      out[#out + 1] = line(r.name, run.name, "-", errors.is_fail(rep) and "2" or "E", message(rep))
    else
      reps[#reps + 1] = rep
      for _, fmt in ipairs(FORMATS) do
        local okf, text = pcall(rep.render, rep, fmt)
        if okf then out[#out + 1] = line(r.name, run.name, fmt, "0", text)
        else out[#out + 1] = line(r.name, run.name, fmt, errors.is_fail(text) and "2" or "E", message(text)) end
      end
    end
  end
  -- `perflab run all` / `perflab report`: the summary, then every report
  if #reps > 0 then
    local okb, sum = pcall(summary.build, reps, inputs)
    if not okb then
      out[#out + 1] = line("report", run.name, "-", errors.is_fail(sum) and "2" or "E", message(sum))
    else
      for _, fmt in ipairs({ "text", "markdown" }) do
        local parts = { summary.render(sum, fmt, {}) }
        for _, rep in ipairs(reps) do parts[#parts + 1] = "\n" .. rep:render(fmt) end
        out[#out + 1] = line("report", run.name, fmt, "0", table.concat(parts))
      end
      out[#out + 1] = line("report", run.name, "json", "0", json.encode(summary.to_data(sum), "  ", "\n"))
      out[#out + 1] = line("report", run.name, "html", "0", html.page(reps, { summary = sum }))
    end
  end
  return out
end

local function read_manifest()
  local f = io.open(MANIFEST, "r")
  if not f then return nil end
  local by_input, order = {}, {}
  for l in f:lines() do
    if l ~= "" and not l:match("^#") then
      local input = l:match("^[^\t]*\t([^\t]*)\t")
      if input then
        if not by_input[input] then by_input[input] = {}; order[#order + 1] = input end
        table.insert(by_input[input], l)
      end
    end
  end
  f:close()
  return by_input, order
end

local function load_recipes()
  local rs = {}
  for i, info in ipairs(recipes.list()) do rs[i] = recipes.load(info.name) end
  return rs
end

local HEADER = [[
# perflab golden outputs: RECIPE, INPUT, FORMAT, STATUS, HASH (FNV-1a 32:bytes)
# of every report on the repository's inputs.  Written by `make golden-update`
# (tests/golden/golden.lua); checked by the ctest tests golden.N.  A change
# here is a change in what perflab prints: name it in the commit message.
]]

local mode = arg[1]
if mode == "update" then
  local runs, rs = collect(), load_recipes()
  local all = {}
  for i, run in ipairs(runs) do
    io.stderr:write(string.format("\rgolden: %d/%d %s\27[K", i, #runs, run.name))
    for _, l in ipairs(lines_of(run, rs)) do all[#all + 1] = l end
  end
  io.stderr:write("\n")
  local ok, err = sys.write_atomic(MANIFEST, HEADER .. table.concat(all, "\n") .. "\n")
  if not ok then io.stderr:write("golden: cannot write " .. tostring(err) .. "\n"); os.exit(2) end
  local bad = 0
  for _, l in ipairs(all) do if l:match("\tE\t") then bad = bad + 1 end end
  io.stderr:write(string.format("golden: wrote %d lines over %d runs to %s (%d internal errors)\n", #all, #runs,
      MANIFEST, bad))
  os.exit(0)
elseif mode == "check" then
  local shard, nshards = math.tointeger(tonumber(arg[2])), math.tointeger(tonumber(arg[3]))
  assert(shard and nshards and shard >= 0 and shard < nshards, "usage: golden.lua check SHARD NSHARDS")
  local want, order = read_manifest()
  if not want then print("golden: no " .. MANIFEST .. "; run make golden-update"); os.exit(1) end
  local runs, rs = collect(), load_recipes()
  local problems, first = {}, nil
  local have = {}
  for i, run in ipairs(runs) do
    have[run.name] = true
    if (i - 1) % nshards == shard then
      local got = lines_of(run, rs)
      local exp = want[run.name] or {}
      local n = math.max(#got, #exp)
      for k = 1, n do
        if got[k] ~= exp[k] then
          local g, e = got[k] or "(none)", exp[k] or "(none)"
          local recipe, input, fmt = (got[k] or exp[k]):match("^([^\t]*)\t([^\t]*)\t([^\t]*)")
          local cmd = recipe == "report" and ("perflab report " .. input) or
                      recipe == "load" and ("perflab parse " .. input) or ("perflab run " .. recipe .. " " .. input)
          if fmt ~= "-" then cmd = cmd .. " --format " .. fmt end
          problems[#problems + 1] = string.format("  %s\n    manifest: %s\n    now:      %s", cmd, e, g)
          first = first or cmd
          break   -- the first differing report of this input; the rest follow from it
        end
      end
    end
  end
  if shard == 0 then
    for _, input in ipairs(order) do
      if not have[input] then problems[#problems + 1] = "  input gone: " .. input; first = first or input end
    end
  end
  if #problems > 0 then
    print(string.format("golden: %d input(s) of shard %d/%d differ; the first: %s", #problems, shard, nshards, first))
    print(table.concat(problems, "\n"))
    print("If the change is meant, run `make golden-update` and name it in the commit message.")
    os.exit(1)
  end
  print(string.format("golden: shard %d/%d: every report as in %s", shard, nshards, MANIFEST))
  os.exit(0)
end
io.stderr:write("usage: perflab tests/golden/golden.lua check SHARD NSHARDS | update\n")
os.exit(2)

--- perflab.sandbox: what --sandbox takes away from recipes and scripts.
-- No os.execute, io.popen, package.loadlib or C modules from disk; chunks
-- load as text only (no bytecode); no debug library (it could remove the
-- time-limit hook); files open for writing only under the directories
-- allowed (the --output directory).  Reading files stays possible: recipes
-- read profiles.
local sys = require "perflab.sys"

local M = { enabled = false, allowed = {} }

local function denied(what)
  return function() error(what .. " is disabled by --sandbox", 2) end
end

local function normal_dir(d)
  d = d:gsub("/+$", "")
  return d == "" and "/" or d
end

--- Allows writes under a directory (and its subdirectories).
function M.allow_write(dir)
  M.allowed[#M.allowed + 1] = normal_dir(dir)
end

local function may_write(path)
  if not M.enabled then return true end
  if path:find("%.%.") then return false end
  for _, d in ipairs(M.allowed) do
    if path == d or path:sub(1, #d + 1) == d .. "/" then return true end
  end
  return false
end
M.may_write = may_write

function M.enable()
  if M.enabled then return end
  M.enabled = true
  os.execute = denied("os.execute")
  io.popen = denied("io.popen")
  package.loadlib = denied("package.loadlib")
  -- keep the preload, embedded-library and Lua-file searchers; drop C loaders
  local keep = {}
  for i, s in ipairs(package.searchers) do if i <= 3 then keep[#keep + 1] = s end end
  for i = #package.searchers, 1, -1 do package.searchers[i] = nil end
  for i, s in ipairs(keep) do package.searchers[i] = s end
  local load0, loadfile0 = load, loadfile
  _G.load = function(chunk, name, mode, env) return load0(chunk, name, "t", env) end
  _G.loadfile = function(name, mode, env) return loadfile0(name, "t", env) end
  _G.dofile = function(name)
    local f = assert(loadfile0(name, "t"))
    return f()
  end
  _G.debug = nil
  package.loaded.debug = nil
  local open0 = io.open
  io.open = function(path, mode)
    mode = mode or "r"
    if mode:find("[wa+]") and not may_write(path) then
      return nil, path .. ": writing is disabled by --sandbox outside the --output directory"
    end
    return open0(path, mode)
  end
  local output0 = io.output
  io.output = function(f)
    if type(f) == "string" and not may_write(f) then error("io.output: writing is disabled by --sandbox", 2) end
    return output0(f)
  end
  local remove0, rename0 = os.remove, os.rename
  os.remove = function(p)
    if not may_write(p) then return nil, p .. ": disabled by --sandbox" end
    return remove0(p)
  end
  os.rename = function(a, b)
    if not (may_write(a) and may_write(b)) then return nil, "os.rename is disabled by --sandbox outside --output" end
    return rename0(a, b)
  end
  local wa, mk = sys.write_atomic, sys.mkdir
  sys.write_atomic = function(p, s)
    if not may_write(p) then return nil, p .. ": writing is disabled by --sandbox outside the --output directory" end
    return wa(p, s)
  end
  sys.mkdir = function(p)
    if not may_write(p) then return nil, p .. ": disabled by --sandbox" end
    return mk(p)
  end
end

return M

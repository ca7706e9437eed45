--- tdata.lua -- where the Lua tests find their data, and the rule for it.
-- Test data lives in the repository (tests/data: seeds and corpus copies,
-- MANIFEST.md; tests/fixtures: hand-made inputs); CMake passes the data
-- folder as PERFLAB_DATA.  A file a test reads that is not there is a
-- failure naming the file, never a skip: a clean clone has every one.
local M = {}

M.dir = os.getenv("PERFLAB_DATA") or "tests/data"

local function readable(path)
  local fh = io.open(path, "rb")
  if fh then fh:close() return true end
  return false
end

--- need(path) -> path: raises "test data missing: PATH" (at the caller's
-- line) unless the file can be opened.
function M.need(path)
  if not readable(path) then error("test data missing: " .. path, 2) end
  return path
end

--- path(rel) -> PERFLAB_DATA/rel, which must exist (need).
function M.path(rel)
  local path = M.dir .. "/" .. rel
  if not readable(path) then error("test data missing: " .. path, 2) end
  return path
end

--- dir_need(path) -> path: the same rule for a folder.
function M.dir_need(path)
  local sys = require "perflab.sys"
  if not sys.isdir(path) then error("test data missing: folder " .. path, 2) end
  return path
end

--- optional_tool(name, what): prints, loudly, that an optional tool is
-- absent and which check did not run (the only kind of skip allowed).
function M.optional_tool(name, what)
  io.stdout:write(("SKIPPED (optional tool %s not installed): %s\n"):format(name, what))
end

return M

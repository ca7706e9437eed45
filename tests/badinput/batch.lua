--- batch.lua -- runs bad-input `parse` cases inside one perflab process,
-- through the CLI's own code (perflab.cli.main), instead of a process each:
-- a process start costs more than parsing most damaged copies.
-- usage: perflab tests/badinput/batch.lua DIR LIST
-- LIST has one case a line: ID then the CLI's arguments, tab-separated.
-- For each case it writes DIR/ID.started before it begins, then DIR/ID.out
-- (what the command printed), DIR/ID.err ("perflab: MESSAGE", as the binary
-- prints a failed command) and DIR/ID.rc (the exit status the binary would
-- give).  A case that crashes or hangs ends the whole process: run.lua sees
-- a case started and not finished, records the process's exit status
-- (signal, or 124 from `timeout`) for it, and runs the rest in a new batch.
local cli = require "perflab.cli"
local errors = require "perflab.errors"
local dir, list = arg[1], arg[2]

local function put(p, s)
  local f = assert(io.open(p, "wb"))
  assert(f:write(s))
  assert(f:close())
end

local real_stdout = io.stdout
for line in assert(io.open(list)):lines() do
  local args = {}
  for a in line:gmatch("[^\t]+") do args[#args + 1] = a end
  local id = table.remove(args, 1)
  put(dir .. "/" .. id .. ".started", "")
  local out = assert(io.open(dir .. "/" .. id .. ".out", "wb"))
  io.stdout = out          -- cli.lua writes through io.stdout
  local ok, rc = pcall(cli.main, args)
  io.stdout = real_stdout
  out:close()
  local err = ""
  if not ok then
    err = "perflab: " .. errors.text(rc) .. "\n"
    rc = (type(rc) == "table" and rc.exit) or 2
  end
  put(dir .. "/" .. id .. ".err", err)
  put(dir .. "/" .. id .. ".rc", tostring(math.tointeger(rc) or 0) .. "\n")
  collectgarbage()
end

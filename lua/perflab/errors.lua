--- perflab.errors: the error convention of the Lua library.
-- Errors meant for the user (bad input, bad usage, unknown recipe) are raised
-- as tables {message = TEXT, exit = CODE}; the host prints "perflab: TEXT"
-- without a traceback and exits with CODE (2 unless told).  Any other error
-- is a bug somewhere and prints with its traceback.
local M = {}

local Fail = {}
Fail.__index = Fail
Fail.__name = "perflab.Fail"   -- how the host tells it from other errors (pl_is_fail)
Fail.__tostring = function(e) return e.message end

--- Raises a user-facing error.
function M.fail(message, exit)
  error(setmetatable({ message = message, exit = exit or 2 }, Fail), 0)
end

function M.is_fail(e) return getmetatable(e) == Fail end

--- Text of any error value.
function M.text(e)
  if type(e) == "table" and e.message then return e.message end
  return tostring(e)
end

return M

--- cram.lua -- runs a command-line transcript test (tests/cli/*.t).
-- Format: lines starting with "  $ " are shell commands (run from the
-- repository root; the word "perflab" at the start is the binary under
-- test); the lines after them starting with "  " are the exact expected
-- output (stdout and stderr together; "  " alone is an empty line); an
-- optional "  [N]" line gives the expected exit status (default 0).
-- Every other line is a comment.
-- Commands run under /bin/sh with the binary's directory first on PATH (so
-- "perflab" anywhere in a command line is the binary under test), with
-- XDG_CONFIG_HOME pointing nowhere (no user recipes), and with $CRAMTMP an
-- empty scratch directory, removed afterwards.
-- usage: perflab tests/cli/cram.lua PERFLAB_BINARY FILE.t
-- With CRAM_UPDATE=1 in the environment, the file is rewritten with the
-- output actually produced (review the diff before committing it).
local bin, file = arg[1], arg[2]
if not bin or not file then io.stderr:write("usage: cram.lua PERFLAB FILE.t\n"); os.exit(2) end

local cases, cur = {}, nil
local lineno = 0
for line in io.lines(file) do
  lineno = lineno + 1
  local cmd = line:match("^  %$ (.*)$")
  if cmd then
    cur = { cmd = cmd, out = {}, status = 0, line = lineno, last = lineno }
    cases[#cases + 1] = cur
  elseif cur and line:match("^  ") then
    cur.last = lineno
    local st = line:match("^  %[(%d+)%]$")
    if st then cur.status = tonumber(st) else cur.out[#cur.out + 1] = line:sub(3) end
  elseif cur and line == "" and #cur.out == 0 then
    -- blank line right after a command with no output: ends the case
    cur = nil
  else
    cur = nil
  end
end

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

if bin:sub(1, 1) ~= "/" then bin = io.popen("pwd"):read("l") .. "/" .. bin end
local bindir = bin:match("^(.*)/[^/]*$")
local tmp = os.tmpname()
os.remove(tmp)
assert(os.execute("mkdir -p " .. shell_quote(tmp)))
local prelude = "PATH=" .. shell_quote(bindir) .. ":\"$PATH\"; XDG_CONFIG_HOME=/nonexistent/perflab-cram; CRAMTMP=" ..
  shell_quote(tmp) .. "; export PATH XDG_CONFIG_HOME CRAMTMP; "

local passed, failed = 0, 0
local update = os.getenv("CRAM_UPDATE") == "1"
for _, c in ipairs(cases) do
  local cmd = c.cmd:gsub("^perflab ", shell_quote(bin) .. " "):gsub("| perflab ", "| " .. shell_quote(bin) .. " ")
  local p = io.popen(prelude .. "(" .. cmd .. ") 2>&1; echo \"__status=$?\"", "r")
  local text = p:read("a")
  p:close()
  local status = tonumber(text:match("__status=(%d+)\n?$"))
  text = text:gsub("__status=%d+\n?$", "")
  local got = {}
  for l in (text .. (text:sub(-1) == "\n" and "" or "\n")):gmatch("(.-)\n") do got[#got + 1] = l end
  if text == "" then got = {} end
  c.got, c.got_status = got, status
  local ok = status == c.status and #got == #c.out
  if ok then for i = 1, #got do if got[i] ~= c.out[i] then ok = false end end end
  if ok then passed = passed + 1 else
    failed = failed + 1
    io.stderr:write(string.format("%s:%d: $ %s\n", file, c.line, c.cmd))
    io.stderr:write(string.format("  expected status %d, got %s\n", c.status, tostring(status)))
    local n = math.max(#got, #c.out)
    for i = 1, n do
      if got[i] ~= c.out[i] then
        io.stderr:write(string.format("  line %d:\n    expected: %s\n    got:      %s\n", i, tostring(c.out[i]),
            tostring(got[i])))
      end
    end
  end
end
os.execute("rm -rf " .. shell_quote(tmp))
if update and failed > 0 then
  local lines = {}
  for l in io.lines(file) do lines[#lines + 1] = l end
  local out, i = {}, 1
  for _, c in ipairs(cases) do
    while i <= c.line do out[#out + 1] = lines[i]; i = i + 1 end
    for _, g in ipairs(c.got) do out[#out + 1] = "  " .. g end
    if c.got_status ~= 0 then out[#out + 1] = string.format("  [%d]", c.got_status) end
    i = c.last + 1
  end
  while i <= #lines do out[#out + 1] = lines[i]; i = i + 1 end
  local f = assert(io.open(file, "w"))
  f:write(table.concat(out, "\n"), "\n")
  f:close()
  io.stderr:write("updated " .. file .. "\n")
end
print(string.format("%d passed, %d failed", passed, failed))
os.exit(failed == 0 and #cases > 0 and 0 or 1)

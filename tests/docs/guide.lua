-- tests/docs/guide.lua BINARY SRC BUILD -- every code block of docs/guide.md
-- runs, and prints what the guide shows (as Python's doctest and Rust's
-- documentation tests do).  Run by ctest as docs.guide, inside perflab.
--
-- The blocks, in order, in one temporary folder (examples/ linked in):
--   ```lua file=NAME / ```c file=NAME   written to NAME (later blocks use it)
--   ```lua                              run as `perflab BLOCK.lua`; the next
--                                       block, when it is ```output, is its stdout
--   ```sh                               cram style: "$ command" lines (then
--                                       "> " continuations), the lines after
--                                       it its output (stdout and stderr),
--                                       "[N]" its exit status when not 0
-- `perflab` on PATH is the binary under test; `pkg-config perflab` answers
-- with the build tree's flags; LUA_CPATH finds the build's perflab.so.
local BIN, SRC, BUILD = arg[1], arg[2], arg[3]
assert(BIN and SRC and BUILD, "usage: perflab tests/docs/guide.lua BINARY SRC BUILD")

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function sh(cmd)
  local p = io.popen("{ " .. cmd .. "\n} 2>&1; echo \"@@rc=$?\"")
  local out = p:read("a"); p:close()
  local rc = tonumber(out:match("@@rc=(%d+)\n?$"))
  return out:gsub("@@rc=%d+\n?$", ""), rc
end
local function write(path, text)
  local f = assert(io.open(path, "w")); f:write(text); f:close()
end

local tmp = os.tmpname(); os.remove(tmp)
assert(os.execute("mkdir -p " .. q(tmp .. "/bin")))
assert(os.execute("ln -s " .. q(SRC .. "/examples") .. " " .. q(tmp .. "/examples")))
assert(os.execute("ln -s " .. q(BIN) .. " " .. q(tmp .. "/bin/perflab")))
local real = (sh("command -v pkg-config")):gsub("%s+$", "")
-- a sanitizer build (make asan): the library is instrumented, so a program
-- built against it is too (as tests/embed/install.sh does)
local SAN = os.getenv("PERFLAB_SANITIZE") == "1" and "-fsanitize=address,undefined" or ""
write(tmp .. "/bin/pkg-config", string.format([[#!/bin/sh
for a in "$@"; do case "$a" in perflab)
  out=""
  for b in "$@"; do case "$b" in --cflags) out="$out %s -I%s/src $(%s --cflags lua5.4)";;
    --libs) out="$out %s -L%s -Wl,-rpath,%s -lperflab $(%s --libs lua5.4)";; esac; done
  echo $out; exit 0;; esac; done
exec %s "$@"
]], SAN, SRC, real, SAN, BUILD, BUILD, real, real))
assert(os.execute("chmod +x " .. q(tmp .. "/bin/pkg-config")))
-- and a stock lua5.4 loading the instrumented perflab.so needs the
-- sanitizer runtimes preloaded (as the embed.lua_module test does)
local preload = os.getenv("PERFLAB_SAN_PRELOAD")
local lua54 = (sh("command -v lua5.4 || true")):gsub("%s+$", "")
if SAN ~= "" and preload and lua54 ~= "" then
  write(tmp .. "/bin/lua5.4", string.format('#!/bin/sh\nLD_PRELOAD=%s exec %s "$@"\n', preload, lua54))
  assert(os.execute("chmod +x " .. q(tmp .. "/bin/lua5.4")))
end
local env = string.format("cd %s && export PATH=%s:$PATH HOME=%s XDG_CONFIG_HOME=%s/.config PERFLAB_PATH= LUA_CPATH=%s COLUMNS=100; ",
  q(tmp), q(tmp .. "/bin"), q(tmp), q(tmp), q(BUILD .. "/lua/?.so;;"))

local text = assert(io.open(SRC .. "/docs/guide.md")):read("a")
local blocks = {}
local lines = {}
for l in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
local i = 1
while i <= #lines do
  local info = lines[i]:match("^```(%S.*)$")
  if info then
    local b = { info = info, line = i, body = {} }
    i = i + 1
    while i <= #lines and lines[i] ~= "```" do b.body[#b.body + 1] = lines[i]; i = i + 1 end
    b.text = table.concat(b.body, "\n") .. (#b.body > 0 and "\n" or "")
    blocks[#blocks + 1] = b
  elseif lines[i]:match("^```$") then
    error(string.format("docs/guide.md:%d: a code block without a language", i))
  end
  i = i + 1
end

local fails, ran = 0, 0
local function fail(b, msg, want, got)
  fails = fails + 1
  print(string.format("FAIL docs/guide.md:%d: %s", b.line, msg))
  if want then
    print("  expected:\n" .. want:gsub("[^\n]*", "    | %0"))
    print("  got:\n" .. got:gsub("[^\n]*", "    | %0"))
  end
end

local k = 1
while k <= #blocks do
  local b = blocks[k]
  local lang, file = b.info:match("^(%S+)%s+file=(%S+)$")
  lang = lang or b.info:match("^(%S+)")
  if file then
    local dir = file:match("^(.*)/[^/]*$")
    if dir then os.execute("mkdir -p " .. q(tmp .. "/" .. dir)) end
    write(tmp .. "/" .. file, b.text)
    ran = ran + 1
  elseif lang == "lua" then
    local name = string.format("block%d.lua", k)
    write(tmp .. "/" .. name, b.text)
    local out, rc = sh(env .. "perflab " .. name)
    ran = ran + 1
    local nxt = blocks[k + 1]
    if nxt and nxt.info == "output" then
      k = k + 1
      if out ~= nxt.text then fail(b, "the script's output differs from the guide's", nxt.text, out) end
    end
    if rc ~= 0 then fail(b, "the script exited " .. tostring(rc) .. ": " .. out) end
  elseif lang == "sh" then
    local cmds, cur = {}, nil
    for _, l in ipairs(b.body) do
      if l:sub(1, 2) == "$ " then cur = { cmd = l:sub(3), out = {} }; cmds[#cmds + 1] = cur
      elseif l:sub(1, 2) == "> " and cur and #cur.out == 0 then cur.cmd = cur.cmd .. "\n" .. l:sub(3)
      elseif cur then cur.out[#cur.out + 1] = l
      else error(string.format("docs/guide.md:%d: a sh block starts with '$ COMMAND'", b.line)) end
    end
    for _, c in ipairs(cmds) do
      local want_rc = 0
      if c.out[#c.out]
          and c.out[#c.out]:match("^%[%d+%]$") then want_rc = tonumber(c.out[#c.out]:match("%d+")); c.out[#c.out] = nil end
      local want = table.concat(c.out, "\n") .. (#c.out > 0 and "\n" or "")
      local got, rc = sh(env .. c.cmd)
      ran = ran + 1
      if got ~= want then fail(b, "$ " .. c.cmd, want, got) end
      if rc ~= want_rc then fail(b, string.format("$ %s: exit %s, the guide says %d", c.cmd, tostring(rc), want_rc)) end
    end
  elseif lang ~= "output" then
    fail(b, "a code block in " .. lang .. ": the guide test runs lua, sh, and files (lua/c file=NAME)")
  end
  k = k + 1
end
os.execute("rm -rf " .. q(tmp))
print(string.format("%d blocks and commands run, %d failed", ran, fails))
os.exit(fails == 0 and 0 or 1)

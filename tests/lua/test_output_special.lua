--- test_output_special.lua -- writing an output never replaces a special
-- file (issue 28, point 14).  `perflab export ... -o /dev/null` run as root
-- renamed its temporary file over the null device.  Here, in a temporary
-- folder (never the real /dev/null): a character device made with mknod
-- (root only), a FIFO, a symbolic link, a link to another filesystem, and
-- the other writers (run --output DIR, Table:write_csv in a script).
local lu = require "luaunit"
local tdata = require "tdata"

local BIN = arg[-1] or "perflab"
local CWD = io.popen("pwd"):read("l")
if BIN:sub(1, 1) ~= "/" then BIN = CWD .. "/" .. BIN end
local IN = "tests/fixtures/kineto/overlapping_ops.json"

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function sh(cmd) local ok = os.execute(cmd); return ok == true end
local function capture(cmd)
  local f = io.popen(cmd)
  local s = f:read("a")
  f:close()
  return s
end
local function readall(p)
  local f = io.open(p, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end
local function kind(p)   -- stat's file type, without following a link
  return capture("stat -c %F " .. q(p) .. " 2>/dev/null"):gsub("%s+$", "")
end

local TMP = os.tmpname()
os.remove(TMP)
assert(sh("mkdir -p " .. q(TMP)))
local is_root = capture("id -u"):match("^0") ~= nil

-- what the export writes to stdout: the reference for every file target
local EXPECT = capture(q(BIN) .. " export chrome-trace " .. q(IN))

TestOutputSpecial = {}

function TestOutputSpecial:setUp() tdata.need(IN); lu.assertTrue(#EXPECT > 1000) end

function TestOutputSpecial:test_char_device_stays_a_device()
  if not is_root then tdata.optional_tool("root", "mknod of a null device (the export onto it)") return end
  local dev = TMP .. "/null"
  assert(sh("mknod " .. q(dev) .. " c 1 3"))
  lu.assertEquals(kind(dev), "character special file")
  lu.assertTrue(sh(q(BIN) .. " export chrome-trace " .. q(IN) .. " -o " .. q(dev)))
  lu.assertEquals(kind(dev), "character special file")
  -- a script's table write and a recipe's --output files onto it too
  lu.assertTrue(sh(q(BIN) .. " -e " .. q("assert(perflab.load('" .. IN .. "'):table('kernels'):write_csv('" .. dev
      .. "'))")))
  lu.assertEquals(kind(dev), "character special file")
  -- nothing left beside it
  lu.assertEquals(capture("ls " .. q(TMP) .. " | grep -c tmp"), "0\n")
  os.remove(dev)
end

function TestOutputSpecial:test_fifo_reader_gets_everything()
  local fifo, got = TMP .. "/fifo", TMP .. "/got.json"
  assert(sh("mkfifo " .. q(fifo)))
  -- the reader runs in the background; the writer opens the FIFO in place
  lu.assertTrue(sh("(timeout 20 cat " .. q(fifo) .. " > " .. q(got) .. " &) ; " .. q(BIN) .. " export chrome-trace "
      .. q(IN)
    .. " -o " .. q(fifo) .. " && sleep 0.2"))
  lu.assertEquals(kind(fifo), "fifo")
  lu.assertEquals(readall(got), EXPECT)
  -- Table:write_csv onto a FIFO: the whole CSV
  local csv = capture(q(BIN) .. " -e " .. q("io.write(perflab.load('" .. IN .. "'):table('kernels'):to_csv())"))
  lu.assertTrue(#csv > 100)
  lu.assertTrue(sh("(timeout 20 cat " .. q(fifo) .. " > " .. q(got) .. " &) ; " .. q(BIN) .. " -e "
    .. q("assert(perflab.load('" .. IN .. "'):table('kernels'):write_csv('" .. fifo .. "'))") .. " && sleep 0.2"))
  lu.assertEquals(readall(got), csv)
  lu.assertEquals(kind(fifo), "fifo")
  os.remove(fifo); os.remove(got)
end

function TestOutputSpecial:test_symlink_followed_and_kept()
  local real, link = TMP .. "/real.json", TMP .. "/link.json"
  local f = io.open(real, "w"); f:write("old"); f:close()
  assert(sh("ln -s real.json " .. q(link)))   -- a relative link
  lu.assertTrue(sh(q(BIN) .. " export chrome-trace " .. q(IN) .. " -o " .. q(link)))
  lu.assertEquals(kind(link), "symbolic link")
  lu.assertEquals(readall(real), EXPECT)
  -- a dangling link: its target is created, the link stays
  local dangling = TMP .. "/dangling.json"
  assert(sh("ln -s " .. q(TMP .. "/made.json") .. " " .. q(dangling)))
  lu.assertTrue(sh(q(BIN) .. " export chrome-trace " .. q(IN) .. " -o " .. q(dangling)))
  lu.assertEquals(kind(dangling), "symbolic link")
  lu.assertEquals(readall(TMP .. "/made.json"), EXPECT)
  os.remove(link); os.remove(real); os.remove(dangling); os.remove(TMP .. "/made.json")
end

function TestOutputSpecial:test_other_filesystem()
  -- /dev/shm is a tmpfs where it exists: a link from here to a file there
  -- (the temporary file goes beside the target, so the rename stays on one
  -- filesystem); else a second folder of this one
  local other = capture("mktemp -d -p /dev/shm 2>/dev/null"):gsub("%s+$", "")
  if other == "" then other = capture("mktemp -d"):gsub("%s+$", "") end
  local link = TMP .. "/far.json"
  assert(sh("ln -s " .. q(other .. "/out.json") .. " " .. q(link)))
  lu.assertTrue(sh(q(BIN) .. " export chrome-trace " .. q(IN) .. " -o " .. q(link)))
  lu.assertEquals(readall(other .. "/out.json"), EXPECT)
  lu.assertEquals(capture("ls " .. q(other)), "out.json\n")
  sh("rm -rf " .. q(other)); os.remove(link)
end

function TestOutputSpecial:test_run_output_dir_with_a_fifo_inside()
  local dir = TMP .. "/out"
  assert(sh("mkdir -p " .. q(dir) .. " && mkfifo " .. q(dir .. "/report.txt")))
  local txt = capture(q(BIN) .. " run top-kernels " .. q(IN))
  lu.assertTrue(sh("(timeout 20 cat " .. q(dir .. "/report.txt") .. " > " .. q(TMP .. "/got.txt") .. " &) ; " .. q(BIN)
    .. " run top-kernels " .. q(IN) .. " --output " .. q(dir) .. " >/dev/null 2>&1 && sleep 0.2"))
  lu.assertEquals(kind(dir .. "/report.txt"), "fifo")
  lu.assertEquals(readall(TMP .. "/got.txt"), txt)
  lu.assertEquals(kind(dir .. "/report.json"), "regular file")
end

function TestOutputSpecial:test_regular_file_keeps_its_mode()
  local p = TMP .. "/mode.json"
  local f = io.open(p, "w"); f:write("x"); f:close()
  assert(sh("chmod 640 " .. q(p)))
  lu.assertTrue(sh(q(BIN) .. " export chrome-trace " .. q(IN) .. " -o " .. q(p)))
  lu.assertEquals(capture("stat -c %a " .. q(p)), "640\n")
  lu.assertEquals(readall(p), EXPECT)
end

local rc = lu.LuaUnit.run()
sh("rm -rf " .. q(TMP))
os.exit(rc)

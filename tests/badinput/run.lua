--- run.lua -- the bad-input suite.  For every registered format
-- (tests/badinput/formats.lua) it takes the format's sample files and feeds
-- the CLI, as a child process under `timeout`, damaged copies of them:
--   cut at ten points (mid-line, mid-number, mid-section, mid-string),
--   single-byte flips (fixed seed), CRLF line ends, UTF-16LE and UTF-8 BOM
--   copies (same tables as the sample), decimal commas,
--   invalid UTF-8 in names, numbers that overflow double and int64, a gzip
--   stream cut short, and per format: an empty file, binary garbage (alone
--   and after the first line), JSON nested 100,000 deep and a 100 MB single
--   line (made at test time in a temporary directory, deleted after).
-- Most `parse` cases run in batches in one process (batch.lua, through the
-- CLI's code); the rest as a process each under `timeout`.
-- Each case must end with
--   exit 0 and output on stdout, or
--   exit 2, nothing on stdout and an error "FILE:LINE:COLUMN: " (or
--   "FILE: byte N: " for binary or gzip input) on stderr;
-- never a signal (exit >= 128) or a hang (124).  Some cases also run a
-- recipe with --output DIR: no temporary file may be left there, and every
-- file written must be complete (report.txt the same as stdout, report.json
-- valid JSON, CSV files ending in a newline).  CRLF copies of a sample that
-- parses must give the same tables (names, rows, columns) as the sample.
-- usage: perflab tests/badinput/run.lua PERFLAB_BINARY [FORMAT...]
-- env: PERFLAB_DATA (seeds, corpus), BADINPUT_JOBS (parallel cases, 2),
--      BADINPUT_EVERY=N (run every Nth damaged copy of a sample, and all the
--      samples and per-format cases: the sanitizer build, slower, uses 6),
--      BADINPUT_KEEP=1 (keep the temporary directory)
local bin = arg[1]
if not bin then io.stderr:write("usage: run.lua PERFLAB [FORMAT...]\n"); os.exit(2) end
local only = {}
for i = 2, #arg do only[arg[i]] = true end
local shared = os.getenv("PERFLAB_DATA") or "tests/data"
local jobs = tonumber(os.getenv("BADINPUT_JOBS") or "2") or 2
local every = math.max(1, tonumber(os.getenv("BADINPUT_EVERY") or "1") or 1)
local json = require "cjson"

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function sh(cmd)
  local ok, how, code = os.execute(cmd)
  return ok and 0 or code, how
end
local function readall(p)
  local f = io.open(p, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end
local function writeall(p, s)
  local f = assert(io.open(p, "wb"))
  assert(f:write(s))
  assert(f:close())
end
local function lines_of(cmd)
  local f = assert(io.popen(cmd))
  local t = {}
  for l in f:lines() do t[#t + 1] = l end
  f:close()
  return t
end

if bin:sub(1, 1) ~= "/" then bin = io.popen("pwd"):read("l") .. "/" .. bin end
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local casesh = here .. "/case.sh"
local tmp = os.tmpname()
os.remove(tmp)
tmp = tmp .. "-badinput"
assert(sh("mkdir -p " .. sh_quote(tmp)) == 0)
local t0 = os.time()

-- ---- the formats and their samples -----------------------------------------

local registered = {}
for _, l in ipairs(lines_of("ulimit -v unlimited 2>/dev/null; " .. sh_quote(bin) .. " formats --format csv")) do
  local id = l:match("^([%w%-_]+),")
  if id and id ~= "id" then registered[#registered + 1] = id end
end
local lines = dofile(here .. "/formats.lua")
local byid = {}
for _, e in ipairs(lines) do
  -- a second line for an id adds its samples (and a recipe) to the first
  local b = byid[e[1]]
  if not b then byid[e[1]] = e
  else
    for i = 2, #e do b[#b + 1] = e[i] end
    b.recipe = b.recipe or e.recipe
  end
end

local failures, ncases = {}, 0
local function failf(fmt, ...) failures[#failures + 1] = string.format(fmt, ...) end

local function samples_of(e)
  local out, seen = {}, {}
  for i = 2, #e do
    local g = e[i]:gsub("^%$S", shared)
    local found = lines_of("ls -d " .. g .. " 2>/dev/null")
    -- test data lives in the repository: a sample pattern that matches
    -- nothing is a broken checkout or a stale line, never a skip
    if #found == 0 then failf("%s: sample %s matches no file (test data missing)", e[1], g) end
    for _, p in ipairs(found) do
      -- the same file in the corpus and in tests/fixtures is fed once
      local b = p:match("[^/]*$")
      if not seen[b] and not p:match("MANIFEST") then seen[b] = true; out[#out + 1] = p end
    end
  end
  return out
end

-- The text of a sample (gzip inflated).
local function sample_text(p)
  if p:match("%.gz$") then
    local f = assert(io.popen("gzip -dc " .. sh_quote(p)))
    local s = f:read("a")
    f:close()
    return s
  end
  return readall(p)
end

-- ---- mutations -------------------------------------------------------------

math.randomseed(20240917)

-- Finds pattern `pat` starting from a random place (wrapping round).
local function find_from(s, pat)
  local start = math.random(1, math.max(1, #s))
  local a, b = s:find(pat, start)
  if not a then a, b = s:find(pat, 1) end
  return a, b
end

-- Ten cut points: 3 mid-line, 3 mid-number, 2 mid-section, 2 mid-string.
local function cut_points(s, n)
  local pts = {}
  local function add(p, why) if p and p > 0 and p < #s then pts[#pts + 1] = { p, why } end end
  local kinds = { "line", "number", "section", "string", "line", "number", "section", "string", "line", "number" }
  for k = 1, n do
    local kind = kinds[(k - 1) % #kinds + 1]
    if kind == "line" then
      local a = find_from(s, "[^\n][^\n]")
      add(a, "mid-line")
    elseif kind == "number" then
      local a = find_from(s, "%d[%d%.]")
      add(a, "mid-number")
    elseif kind == "section" then
      local a, b = find_from(s, "\n[ \t]*\n[^\n]")
      if not a then a, b = find_from(s, "[%[{]") end
      add(b and math.min(#s - 1, b + math.random(0, 40)), "mid-section")
    else
      local a = find_from(s, "[\"'][%w_]%w")
      if not a then a = find_from(s, "%a%a%a") end
      add(a and a + 1, "mid-string")
    end
  end
  return pts
end

local function flip(s, p)
  local b = s:byte(p) ~ math.random(1, 255)
  return s:sub(1, p - 1) .. string.char(b) .. s:sub(p + 1)
end

local function garbage(n)
  local t = {}
  for i = 1, n do t[i] = string.char(math.random(0, 255)) end
  return table.concat(t)
end

local function bad_utf8(s)
  local k = 0
  local bad = { "\xff", "\xc3\x28", "\xed\xa0\x80", "\xe2\x82", "\xc0\xaf" }
  local r = s:gsub("(%a)_(%a)", function(a, b) k = k + 1; return a .. bad[k % #bad + 1] .. b end)
  if k == 0 then r = s:gsub("(%a)(%a%a)", function(a, b) k = k + 1; return a .. bad[k % #bad + 1] .. b end, 50) end
  return r
end

-- s in UTF-16LE with a BOM and CRLF line ends (a PowerShell redirect), or
-- nil when s is not valid UTF-8
local function utf16le(s)
  local ok, out = pcall(function()
    local t = { "\xff\xfe" }
    for _, c in utf8.codes((s:gsub("\r?\n", "\r\n"))) do
      if c >= 0x10000 then
        local v = c - 0x10000
        local hi, lo = 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)
        t[#t + 1] = string.char(hi & 0xFF, hi >> 8, lo & 0xFF, lo >> 8)
      else
        t[#t + 1] = string.char(c & 0xFF, c >> 8)
      end
    end
    return table.concat(t)
  end)
  return ok and out or nil
end

local function overflow_double(s)
  return (s:gsub("(%d+)%.(%d+)", function(a, b) return "1" .. b .. "e400" end))
end

local function overflow_int(s)
  local k = 0
  return (s:gsub("%f[%w%.%-]%d%d+%f[^%w%.]", function()
    k = k + 1
    return k % 2 == 0 and "99999999999999999999999" or "-9223372036854775809"
  end))
end

-- ---- the cases -------------------------------------------------------------

local cases = {}    -- { id, args, file, kind, fmt, run = bool, dir = outdir, same_as = case }
local function add_case(c)
  ncases = ncases + 1
  c.id = "c" .. ncases
  cases[#cases + 1] = c
  return c
end

local function put(name, text)
  local p = tmp .. "/" .. name
  writeall(p, text)
  return p
end

local BIG = 512 * 1024
local function cases_for(fmt, rec)
  local smp = samples_of(rec)
  if #smp == 0 then return 0 end
  local recipe = rec.recipe or "top-kernels"
  local fa = { "--input-format", fmt }
  local n = 0
  local first_line, some_line
  local function parse_case(path, kind, extra)
    n = n + 1
    local c = { args = { "parse", path, "--input-format", fmt }, file = path, kind = kind, fmt = fmt }
    for k, v in pairs(extra or {}) do c[k] = v end
    return add_case(c)
  end
  local function run_case(path, kind)
    n = n + 1
    local dir = path .. ".outdir"
    return add_case({ args = { "run", recipe, path, "--input-format", fmt, "--output", dir }, file = path,
      kind = kind, fmt = fmt, run = true, dir = dir })
  end
  for si, path in ipairs(smp) do
    local s = sample_text(path)
    local big = #s > BIG
    local base = string.format("%s-%d", fmt, si)
    first_line = first_line or s:match("^[^\n]*\n") or s
    if not some_line then
      local l = s:match("\n([^\n]*%d[^\n]*)\n")
      if l and #l > 10 then some_line = l end
    end
    local orig = parse_case(path, "sample", { always = true })
    if not big then run_case(put(base .. ".orig", s), "sample+output") end
    for k, cp in ipairs(cut_points(s, big and 3 or 10)) do
      local p = put(string.format("%s.cut%d", base, k), s:sub(1, cp[1]))
      parse_case(p, "cut " .. cp[2] .. " at byte " .. cp[1])
      if k <= 2 then run_case(p, "cut+output") end
    end
    for k = 1, big and 2 or 8 do
      local at = math.random(1, #s)
      local p = put(string.format("%s.flip%d", base, k), flip(s, at))
      parse_case(p, "flip at byte " .. at)
      if k == 1 then run_case(p, "flip+output") end
    end
    if not s:find("\r\n", 1, true) then
      parse_case(put(base .. ".crlf", (s:gsub("\n", "\r\n"))), "CRLF", { same_as = not rec.binary and orig or nil })
    end
    if not big then
      -- the same text in UTF-16LE (BOM, CRLF) and with a UTF-8 BOM reads the same
      local u16 = utf16le(s)
      -- (text formats only: a BOM in front of a binary file is damage)
      if u16 and not rec.binary then parse_case(put(base .. ".utf16", u16), "UTF-16LE with BOM and CRLF",
          { same_as = orig }) end
      if not rec.binary then parse_case(put(base .. ".bom", "\xef\xbb\xbf" .. s), "UTF-8 BOM", { same_as = orig }) end
      parse_case(put(base .. ".comma", (s:gsub("(%d)%.(%d)", "%1,%2"))), "decimal commas")
      parse_case(put(base .. ".utf8", bad_utf8(s)), "invalid UTF-8")
      parse_case(put(base .. ".ovd", overflow_double(s)), "double overflow")
      parse_case(put(base .. ".ovi", overflow_int(s)), "int64 overflow")
      local g = put(base .. ".src", s)
      assert(sh("gzip -c " .. sh_quote(g) .. " > " .. sh_quote(g .. ".gz")) == 0)
      parse_case(g .. ".gz", "gzip", { same_as = orig })
      local gz = readall(g .. ".gz")
      parse_case(put(base .. ".gzcut", gz:sub(1, math.floor(#gz * 0.6))), "gzip cut short")
    end
  end
  -- per format (always run)
  local base = fmt
  local A = { always = true }
  parse_case(put(base .. ".empty", ""), "empty file", A)
  parse_case(put(base .. ".garbage", garbage(65536)), "binary garbage", A)
  parse_case(put(base .. ".garbage2", first_line .. garbage(4096)), "garbage after the first line", A)
  n = n + 1
  add_case({ args = { "parse", tmp .. "/" .. base .. ".garbage" }, file = tmp .. "/" .. base .. ".garbage",
    kind = "binary garbage, detected", fmt = fmt, always = true })
  local deep = string.rep("[", 100000)
  parse_case(put(base .. ".deep1", deep), "JSON nested 100000 deep", A)
  parse_case(put(base .. ".deep2", '{"traceEvents": ' .. string.rep('{"a": ', 100000) .. "1"),
      "JSON objects nested 100000 deep", A)
  parse_case(put(base .. ".deep3", first_line .. deep .. string.rep("]", 100000) .. "\n"),
      "nested brackets after the first line", A)
  -- the 100 MB line is made just before it runs (below)
  parse_case(tmp .. "/" .. base .. ".huge", "100 MB single line",
      { huge = true, first = first_line, line = some_line or first_line })
  return n
end

local covered = {}
for _, fmt in ipairs(registered) do
  if next(only) == nil or only[fmt] then
    local rec = byid[fmt]
    if not rec then
      failf("%s: no line in tests/badinput/formats.lua (add one naming its sample files)", fmt)
    else
      local n = cases_for(fmt, rec)
      if n == 0 then
        failf("%s: none of its sample files exist (under %s and the repository)", fmt, shared)
      else
        covered[#covered + 1] = fmt
      end
    end
  end
end

-- ---- running ---------------------------------------------------------------

local function run_batch(list, secs)
  if #list == 0 then return end
  local cmdf = tmp .. "/cmds"
  local f = assert(io.open(cmdf, "w"))
  for _, c in ipairs(list) do
    local a = { sh_quote(tmp), c.id, tostring(secs), sh_quote(bin) }
    for _, x in ipairs(c.args) do a[#a + 1] = sh_quote(x) end
    f:write(table.concat(a, " "), "\n")
  end
  f:close()
  sh(string.format("xargs -P %d -L 1 sh %s < %s", jobs, sh_quote(casesh), sh_quote(cmdf)))
end

-- The damaged copies' `parse` cases run in batches inside perflab
-- processes (batch.lua: the CLI's own code, a process start each costs more
-- than most parses), `jobs` batches side by side.  A batch that crashes or
-- hangs names the case it was on (DIR/ID.started without DIR/ID.rc): that
-- case gets the batch's exit status (a signal, or 124 from `timeout`), and
-- the cases after it run in a new batch.  The samples, the per-format cases,
-- the --output runs and the 100 MB lines run as processes of their own, so
-- the binary's exit status, stdout and stderr are checked for every format.
local function run_inproc(list, secs_each)
  local todo = list
  while #todo > 0 do
    local shards = {}
    for i, c in ipairs(todo) do
      local k = (i - 1) % jobs + 1
      shards[k] = shards[k] or {}
      table.insert(shards[k], c)
    end
    local cmds = {}
    for k, sh_list in ipairs(shards) do
      local lf = string.format("%s/batch%d", tmp, k)
      local f = assert(io.open(lf, "w"))
      for _, c in ipairs(sh_list) do f:write(c.id, "\t", table.concat(c.args, "\t"), "\n") end
      f:close()
      -- a batch's time limit: the per-case limit, and a second per case
      cmds[#cmds + 1] = string.format("(ulimit -v unlimited 2>/dev/null; timeout -k 5 %d %s %s %s %s >%s.log 2>&1 </dev/null;"
        .. " echo $? >%s.rc) &", secs_each + #sh_list, sh_quote(bin), sh_quote(here .. "/batch.lua"), sh_quote(tmp),
        sh_quote(lf), sh_quote(lf), sh_quote(lf))
    end
    sh(table.concat(cmds, " ") .. " wait")
    local rest = {}
    for k, sh_list in ipairs(shards) do
      local brc = tonumber(readall(string.format("%s/batch%d.rc", tmp, k)) or "") or -1
      local ended = false
      for _, c in ipairs(sh_list) do
        if readall(tmp .. "/" .. c.id .. ".rc") then
          -- done
        elseif not ended and readall(tmp .. "/" .. c.id .. ".started") then
          -- the case the batch was on when it died or was stopped
          ended = true
          writeall(tmp .. "/" .. c.id .. ".rc", tostring(brc == 0 and -1 or brc) .. "\n")
          writeall(tmp .. "/" .. c.id .. ".err", readall(string.format("%s/batch%d.log", tmp, k)) or "")
        else
          rest[#rest + 1] = c
        end
      end
    end
    todo = rest
  end
end

local normal, inproc, huge = {}, {}, {}
local nth = 0
for _, c in ipairs(cases) do
  nth = nth + 1
  if every > 1 and not c.always and not c.huge and nth % every ~= 0 then c.skip = true
  elseif c.huge then huge[#huge + 1] = c
  elseif c.args[1] == "parse" and not c.always then inproc[#inproc + 1] = c
  else normal[#normal + 1] = c end
end
run_batch(normal, 30)
run_inproc(inproc, 30)
-- 100 MB single lines: one file at a time, deleted after its case ran
for _, c in ipairs(huge) do
  local f = assert(io.open(c.file, "wb"))
  f:write(c.first)
  local chunk = c.line:gsub("[\r\n]", " ") .. " "
  local piece = string.rep(chunk, math.max(1, (1 << 20) // #chunk))
  local written = #c.first
  while written < 100 * (1 << 20) do f:write(piece); written = written + #piece end
  f:close()
  run_batch({ c }, 120)
  os.remove(c.file)
end

-- ---- checking --------------------------------------------------------------

local function escape(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

-- The tables that `perflab parse` lists: "name rows columns" lines.
local function tables_of(out)
  local t = {}
  for l in out:gmatch("[^\n]+") do
    local name, rows, cols = l:match("^  (%S+)%s+(%d+) rows  (.*)$")
    if name then t[#t + 1] = name .. " " .. rows .. " " .. cols end
  end
  return table.concat(t, "\n")
end

local counts, bykind = {}, {}
local nrun = 0
for _, c in ipairs(cases) do if not c.skip then
  nrun = nrun + 1
  local rc = tonumber(readall(tmp .. "/" .. c.id .. ".rc") or "")
  local out = readall(tmp .. "/" .. c.id .. ".out") or ""
  local err = readall(tmp .. "/" .. c.id .. ".err") or ""
  c.rc, c.out = rc, out
  local what = string.format("%s: %s (%s %s)", c.fmt, c.kind, table.concat(c.args, " "):gsub(escape(tmp), "$TMP"), "")
  local function bad(why) failf("%s\n    %s\n    stderr: %s", what, why, (err:gsub("\n.*", ""):sub(1, 300))) end
  counts[c.fmt] = counts[c.fmt] or { n = 0, ok = 0, err = 0 }
  local kk = c.kind:gsub(" at byte %d+", ""):gsub("^cut .*", "cut")
  bykind[kk] = bykind[kk] or { n = 0, [0] = 0, [2] = 0 }
  bykind[kk].n = bykind[kk].n + 1
  if rc == 0 or rc == 2 then bykind[kk][rc] = bykind[kk][rc] + 1 end
  local cnt = counts[c.fmt]
  cnt.n = cnt.n + 1
  if rc == nil then bad("no exit status recorded")
  elseif rc == 124 or rc == 137 then bad("hung (killed by timeout)")
  elseif rc >= 128 then bad(string.format("killed by signal %d", rc - 128))
  elseif rc ~= 0 and rc ~= 2 then bad(string.format("exit status %d, expected 0 or 2", rc))
  elseif rc == 2 then
    cnt.err = cnt.err + 1
    if #out > 0 then bad(string.format("exit 2 with %d bytes on stdout (a partial result)", #out)) end
    local f = escape(c.file)
    if err == "" then bad("exit 2 without an error message")
    elseif not c.run and not (err:find(f .. ":%d+:%d+: ") or err:find(f .. ": byte %d+: ")) then
      bad("error does not name FILE:LINE:COLUMN (or FILE: byte N)")
    end
  else
    cnt.ok = cnt.ok + 1
    if #out == 0 then bad("exit 0 with nothing on stdout") end
  end
  if c.same_as and rc == 0 and c.same_as.rc == 0 then
    if tables_of(out) ~= tables_of(c.same_as.out) then
      bad("the tables differ from those of the sample:\n" .. tables_of(out) .. "\n  vs\n" .. tables_of(c.same_as.out))
    end
  elseif c.same_as and c.same_as.rc == 0 and rc ~= 0 then
    bad("the sample parses but this copy does not")
  end
  if c.run then
    for _, name in ipairs(lines_of("ls -A " .. sh_quote(c.dir) .. " 2>/dev/null")) do
      local p = c.dir .. "/" .. name
      local text = readall(p) or ""
      if name:find(".tmp~", 1, true) then bad("left a temporary file in --output: " .. name)
      elseif rc ~= 0 then bad("exit " .. tostring(rc) .. " but --output has " .. name)
      elseif name == "report.txt" and text ~= out then bad("report.txt differs from what was printed")
      elseif name == "report.json" and not pcall(json.decode, text) then bad("report.json is not valid JSON")
      elseif name:match("%.csv$") and text:sub(-1) ~= "\n" then bad(name .. " does not end in a newline")
      end
    end
  end
end end

local total_ok, total_err = 0, 0
for _, fmt in ipairs(covered) do
  local c = counts[fmt] or { n = 0, ok = 0, err = 0 }
  total_ok, total_err = total_ok + c.ok, total_err + c.err
  print(string.format("%-18s %4d cases: %4d exit 0, %4d exit 2", fmt, c.n, c.ok, c.err))
end
local kinds = {}
for k in pairs(bykind) do kinds[#kinds + 1] = k end
table.sort(kinds)
for _, k in ipairs(kinds) do
  print(string.format("  %-36s %4d cases: %4d exit 0, %4d exit 2", k, bykind[k].n, bykind[k][0], bykind[k][2]))
end
print(string.format("%d cases%s in %d s: %d exit 0, %d exit 2, %d failures", nrun,
  every > 1 and string.format(" (of %d: every %dth damaged copy)", ncases, every) or "", os.time() - t0,
  total_ok, total_err, #failures))
for _, f in ipairs(failures) do print("FAIL " .. f) end
if (os.getenv("BADINPUT_KEEP") or "") ~= "" then print("kept " .. tmp) else sh("rm -rf " .. sh_quote(tmp)) end
os.exit(#failures == 0 and 0 or 1)

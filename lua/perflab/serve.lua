--- perflab.serve: the pages of `perflab serve DIR` (docs/serve.md).
-- The C host (src/serve.c, module perflab.httpd) owns HTTP and the doors:
-- methods, sizes, the token, the Host header and the path rules; it calls
-- M.handle(req) for each request that passed, on a pool of workers (each a
-- Lua state with this module and its own profile cache), and every
-- file a page reads is named relative to DIR and resolved by httpd.check
-- (the same rules, and realpath containment).  The pages run the same
-- recipes as `perflab run` (recipes.run_all, recipes.run) and show
-- them with perflab.html; every name from a file is escaped by it or by
-- chart.escape here.  Routes:
--   /                      the runs: one row per profile under DIR
--   /run/REL               every recipe that can run on REL (?recipe=R: one;
--                          ?set=KEY=VALUE: its options, checked as --set)
--   /timeline/REL          a step's timeline (?window=START:END), steps listed
--   /export/REL            the Chrome-trace JSON for Perfetto (?window=)
--   /compare               ?a=REL&b=REL: diff and suspicion;
--                          ?baseline=REL...&target=REL...: suspicion
--   /job/REL               a folder of ranks: distributed and stragglers
local perflab = require "perflab"
local profile = require "perflab.profile"
local recipes = require "perflab.recipes"
local errors = require "perflab.errors"
local html = require "perflab.html"
local units = require "perflab.units"
local sys = require "perflab.sys"
local httpd = require "perflab.httpd"
local esc = require("perflab.chart").escape
local perflab_table = require "perflab.table"

local M = {}
local fail = errors.fail

-- files not offered as profiles: text that is not a profile format
local SKIP_EXT = { md = true, html = true, htm = true, svg = true, png = true, pdf = true, py = true, lua = true,
  sh = true, license = true }
local MAX_FILES, MAX_DEPTH = 5000, 12

-- ---- the cache: parsed profiles and rendered pages, least recently used out --

local cache = { items = {}, bytes = 0, cap = 0, tick = 0 }
M.cache = cache

local function cache_get(key)
  local e = cache.items[key]
  if not e then return nil end
  cache.tick = cache.tick + 1
  e.used = cache.tick
  return e.value
end

local function cache_put(key, value, bytes)
  local old = cache.items[key]
  if old then cache.bytes = cache.bytes - old.bytes; cache.items[key] = nil end
  local evicted = false
  -- a key is KIND\0PATH\0VERSION[\0...] (KIND "page\0NAME" for pages):
  -- entries of an older version of the same file can never be asked for
  -- again, so they go first
  local kind_path, version = key:match("^(page%z[^%z]*%z[^%z]*)%z([^%z]*)")
  if not kind_path then kind_path, version = key:match("^([^%z]*%z[^%z]*)%z([^%z]*)") end
  if kind_path then
    for k, e in pairs(cache.items) do
      if e.kind_path == kind_path and e.version ~= version then
        cache.items[k] = nil
        cache.bytes = cache.bytes - e.bytes
        evicted = true
      end
    end
  end
  if bytes > cache.cap then                            -- larger than the cache: not kept
    if evicted then collectgarbage("collect") end
    return value
  end
  while cache.bytes + bytes > cache.cap do
    local lk, le
    for k, e in pairs(cache.items) do if not le or e.used < le.used then lk, le = k, e end end
    if not lk then break end
    cache.items[lk] = nil
    cache.bytes = cache.bytes - le.bytes
    evicted = true
  end
  cache.tick = cache.tick + 1
  cache.items[key] = { value = value, bytes = bytes, used = cache.tick, kind_path = kind_path, version = version }
  cache.bytes = cache.bytes + bytes
  if evicted then collectgarbage("collect") end         -- the evicted tables' memory back now
  return value
end

--- The text fn() makes, cached under the key parts (file versions and
-- the query in them: a changed file or option makes a new key): in the
-- server's text cache, shared by every worker, or here when there is none.
local function cached_text(parts, fn)
  local key = table.concat(parts, "\0")
  local hit = httpd.text_get(key) or cache_get(key)
  if hit then return hit end
  local text = fn()
  if not httpd.text_put(key, text) then cache_put(key, text, #text + 256) end
  return text
end

--- A profile's memory: what its tables use in C (perflab.table.memory:
-- values and string pools, each shared one counted once), plus 4 KiB
-- for the Lua side.
local function profile_bytes(p)
  return 4096 + perflab_table.memory(p.tables)
end

-- ---- files ------------------------------------------------------------------

--- (rel) -> abs, kind, size, mtime, version; fails with the status
-- httpd.check gives.  version (size and mtime in ns) keys the cache: a
-- file rewritten is parsed again.
local function resolve(rel)
  local abs, status, why = httpd.check(rel)
  if not abs then fail(why, status) end
  local kind, size, mtime, mtime_ns = httpd.stat(abs)
  if not kind then fail("no such file", 404) end
  return abs, kind, size, mtime, size .. "/" .. mtime_ns
end

--- A profile by its path relative to DIR (cached while the file's size and
-- mtime stay).  p.source is the relative path: pages never show the
-- server's own paths.
local function load(rel)
  local abs, kind, _, _, version = resolve(rel)
  if kind ~= "file" then fail(rel .. " is not a file", 404) end
  local key = table.concat({ "p", abs, version }, "\0")
  local p = cache_get(key)
  if p then return p end
  local ok, res = pcall(profile.load, abs)
  if not ok then
    local msg = errors.text(res):gsub(abs:gsub("%p", "%%%0"), (rel:gsub("%%", "%%%%")))
    fail(msg, 422)
  end
  res.source = rel
  return cache_put(key, res, profile_bytes(res))
end

--- A copy of a cached profile that a page may change (role, rank).
local function copy(p)
  local c = {}
  for k, v in pairs(p) do c[k] = v end
  return setmetatable(c, getmetatable(p))
end

--- Every file and folder under DIR: {files = {rel...}, dirs = {rel...}}
-- (sorted, dot-files left out, every entry checked as a request path is:
-- a symlink that leaves DIR is not listed).
local function scan()
  local files, dirs = {}, {}
  local function walk(rel, depth)
    local abs = httpd.check(rel)
    if not abs then return end
    for _, name in ipairs(sys.listdir(abs)) do
      local r = rel == "" and name or (rel .. "/" .. name)
      local a = httpd.check(r)
      local kind = a and httpd.stat(a)
      if kind == "dir" and depth < MAX_DEPTH then
        dirs[#dirs + 1] = r
        walk(r, depth + 1)
      elseif kind == "file" and #files < MAX_FILES then
        local ext = (name:match("%.([^.]+)$") or ""):lower()
        if not SKIP_EXT[ext] and name:upper() ~= "LICENSE" then files[#files + 1] = r end
      end
    end
  end
  walk("", 0)
  return { files = files, dirs = dirs }
end

-- ---- URLs ---------------------------------------------------------------------

local function enc(s, keep_slash)
  return (s:gsub("[^%w%-%._~/]", function(c) return string.format("%%%02X", c:byte()) end)
    :gsub("/", keep_slash and "/" or "%%2F"))
end

local function href(route, rel, q)
  local u = route .. (rel and ("/" .. enc(rel, true)) or "")
  if q and #q > 0 then
    local parts = {}
    for i, kv in ipairs(q) do parts[i] = enc(kv[1]) .. "=" .. enc(kv[2]) end
    u = u .. "?" .. table.concat(parts, "&")
  end
  return esc(u)
end

-- ---- the page shell -------------------------------------------------------------

-- Filtering: a row of inputs under each data table's header, one per column
-- (text contained, case-insensitive; a leading > or < compares numbers).
-- Timeline zoom: buttons that widen the figure inside its scrolling box.
local JS = [[
(function(){
document.querySelectorAll("table.data").forEach(function(t){
 var head=t.tHead;if(!head||!head.rows.length)return;var n=head.rows[0].cells.length;
 var tr=document.createElement("tr");tr.className="filters";var fs=[];
 function apply(){var b=t.tBodies[0];Array.prototype.forEach.call(b.rows,function(r){var show=true;
  fs.forEach(function(f,i){var q=f.value.trim().toLowerCase();if(!q||!show)return;var c=r.cells[i];if(!c){show=false;return;}
   var v=c.getAttribute("data-v");var m=q.match(/^([<>])\s*(-?[0-9.e+]+)$/);
   if(m&&v!==null){var x=Number(v),y=Number(m[2]);show=m[1]==="<"?x<y:x>y;}
   else show=c.textContent.toLowerCase().indexOf(q)>=0;});
  r.hidden=!show;});}
 for(var i=0;i<n;i++){var td=document.createElement("td");var f=document.createElement("input");
  f.type="search";f.placeholder="filter";f.setAttribute("aria-label","filter column "+(i+1));f.size=6;
  f.addEventListener("input",apply);fs.push(f);td.appendChild(f);tr.appendChild(td);}
 head.appendChild(tr);
});
document.querySelectorAll(".zoom").forEach(function(z){var box=z.parentNode.querySelector(".zoombox");if(!box)return;var k=1;
 z.querySelectorAll("button").forEach(function(b){b.hidden=false;b.addEventListener("click",function(){
  k=b.value==="in"?k*1.5:b.value==="out"?Math.max(1,k/1.5):1;
  box.querySelectorAll("svg").forEach(function(s){s.style.width=(100*k)+"%";s.style.maxWidth="none";});});});});
})();
]]

local CSS = [[
nav.top{border-bottom:1px solid #ccc;padding:.3em 0;margin-bottom:.5em}nav.top a{margin-right:1.2em}
.err{color:#b2182b}.pill{font-size:.8em;border:1px solid #999;padding:0 .3em;margin-left:.3em}
tr.filters td{padding:.1em .3em;background:#f3f6f9}tr.filters input{width:100%;box-sizing:border-box;font-size:.85em}
form.cmp{border:1px solid #ccc;padding:.6em;margin:.6em 0}form.cmp select{max-width:100%}
.zoombox{overflow-x:auto}.zoom button{margin-right:.5em}
]]

local function hash(s) return "sha256-" .. html.base64(html.sha256(s)) end

--- A page: the report's style and sort script (perflab.html), ours beside
-- them, all under one Content-Security-Policy of their hashes.
local function shell(title, body, head)
  local css = html.CSS .. CSS
  return table.concat({
    "<!DOCTYPE html>",
    '<html lang="en"><head><meta charset="utf-8">',
    string.format("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src '%s' '%s'; "
      .. "style-src '%s'; img-src data:; base-uri 'none'; form-action 'self'\">", hash(html.JS), hash(JS), hash(css)),
    '<meta name="viewport" content="width=device-width, initial-scale=1">', head or "",
    "<title>" .. esc(title) .. "</title>",
    "<style>" .. css .. "</style></head><body>",
    '<nav class="top"><a href="/">Runs</a><a href="/compare">Compare</a><span class="muted">perflab serve</span></nav>',
    body,
    "<script>" .. html.JS .. "</script>",
    "<script>" .. JS .. "</script>",
    "</body></html>", "" }, "\n")
end

--- The body of perflab.html's page for these reports: the very markup
-- `perflab run ... --format html` writes (header, findings, figures, tables).
local function report_body(reps, title)
  local page = html.page(reps, { title = title })
  return page:match("<body>\n(.*)\n<script>") or ""
end

local function skipped_html(skipped)
  if #skipped == 0 then return "" end
  local li = {}
  for i, s in ipairs(skipped) do li[i] = "<li>" .. esc(s) .. "</li>" end
  return '<details><summary class="muted">' .. #skipped .. " recipe(s) not run on this input</summary><ul>"
    .. table.concat(li) .. "</ul></details>"
end

-- ---- query strings ---------------------------------------------------------------

--- {{k, v}...} -> values of k (a list), and the --set table from set=K=V.
local function q_all(q, key)
  local out = {}
  for _, kv in ipairs(q) do if kv[1] == key then out[#out + 1] = kv[2] end end
  return out
end
local function q_one(q, key) return q_all(q, key)[1] end

local KNOWN_KEYS = { recipe = true, set = true, window = true, a = true, b = true, baseline = true, target = true,
    token = true }

local function query_set(q)
  local set = {}
  for _, kv in ipairs(q) do
    if not KNOWN_KEYS[kv[1]] then fail(string.format("unknown query parameter '%s'", kv[1]), 400) end
  end
  for _, v in ipairs(q_all(q, "set")) do
    local k, val = v:match("^([^=]+)=(.*)$")
    if not k then fail(string.format("set expects KEY=VALUE, got '%s'", v), 400) end
    set[k] = val
  end
  return set
end

--- A recipe name from the query: one on the search path, nothing else.
local function recipe_name(name)
  for _, r in ipairs(recipes.list()) do if r.name == name then return name end end
  fail(string.format("no recipe '%s' (perflab recipes lists them)", name), 404)
end

-- ---- the runs page ------------------------------------------------------------------

local device_keys = { "device", "gpu", "device_name" }

local function device_of(p)
  local d = {}
  for _, k in ipairs(device_keys) do
    local v = p.meta and p.meta[k]
    if v ~= nil then d[#d + 1] = tostring(v); break end
  end
  if p.tables.devices and p.tables.devices:has("name") then
    local seen = {}
    for _, n in ipairs(p.tables.devices:col("name"):to_lua()) do
      if type(n) == "string" and not seen[n] then seen[n] = true; d[#d + 1] = n end
    end
  end
  local out, seen = {}, {}
  for _, x in ipairs(d) do if not seen[x] then seen[x] = true; out[#out + 1] = x end end
  return table.concat(out, ", ")
end

--- Steps and the mean step time, where the profile has steps (Kineto
-- ProfilerStep spans, nsys NVTX steps); nil otherwise.
local function steps_of(p)
  if not (p.tables.events or p.tables.kernels) then return nil end
  local ok, steps = pcall(require("perflab.steps").bound, p)
  if not ok or type(steps) ~= "table" or #steps == 0 then return nil end
  local sum = 0
  for _, s in ipairs(steps) do sum = sum + (s.e - s.s) end
  return #steps, sum / #steps, steps
end

--- The first thing to fix: the most severe finding of every recipe that
-- runs on the profile (ties: the larger speedup, then recipe order).
local levels = require("perflab.report").levels
local function first_action(reps)
  local best, brep
  for _, rep in ipairs(reps) do
    local f = rep:sorted_findings()[1]
    if f and (not best or levels[f.severity] > levels[best.severity]
        or (levels[f.severity] == levels[best.severity] and (f.speedup_pct or -1) > (best.speedup_pct or -1))) then
      best, brep = f, rep
    end
  end
  return best, brep
end

--- The reports of every recipe on one file (cached by the file's key).
local function run_all(rel, set)
  local p = load(rel)
  local abs, _, _, _, version = resolve(rel)
  local skey = {}
  for k, v in pairs(set) do skey[#skey + 1] = k .. "=" .. v end
  table.sort(skey)
  local key = table.concat({ "r", abs, version, table.concat(skey, "&") }, "\0")
  local hit = cache_get(key)
  if hit then return hit.reps, hit.skipped end
  local reps, skipped = require("perflab.recipes").run_all({ p }, set)
  local bytes, tables = 4096, {}
  for _, rep in ipairs(reps) do
    for _, t in pairs(rep.tables) do tables[#tables + 1] = t end
    for _, f in pairs(rep.figures) do bytes = bytes + #f.svg end
  end
  bytes = bytes + perflab_table.memory(tables)
  cache_put(key, { reps = reps, skipped = skipped }, bytes)
  return reps, skipped
end

--- One row of the runs page (the file's error on its row alone when it
-- cannot be read).
local function runs_row(rel, mtime)
  local ok, p = pcall(load, rel)
  local row = { '<tr><td class="name"><a href="' .. href("/run", rel) .. '">' .. esc(rel) .. "</a></td>" }
  if ok then
    local n, mean = steps_of(p)
    local fok, reps = pcall(run_all, rel, {})
    local act = ""
    if fok then
      local f, arep = first_action(reps)
      if f then act = string.format('<b class="sv">%s</b> %s <span class="muted">(%s)</span>',
        esc(f.severity), esc(f.message), esc(arep.recipe)) end
    else
      act = '<span class="err">' .. esc((errors.text(reps):gsub("\n.*", ""))) .. "</span>"
    end
    local timeline = (p.tables.kernels and p.tables.kernels:has("start_ns"))
      and (' <a href="' .. href("/timeline", rel) .. '">timeline</a>') or ""
    row[#row + 1] = "<td>" .. esc(p.format) .. timeline .. "</td>"
    row[#row + 1] = '<td class="name">' .. esc(device_of(p)) .. "</td>"
    row[#row + 1] = string.format('<td data-v="%d">%s</td>', mtime, esc(os.date("!%Y-%m-%d %H:%M", mtime)))
    row[#row + 1] = n and string.format('<td class="num" data-v="%d">%d</td>', n, n) or '<td class="num"></td>'
    row[#row + 1] = mean and string.format('<td class="num" data-v="%.0f">%s</td>', mean, esc(units.ns(mean, 3)))
      or '<td class="num"></td>'
    row[#row + 1] = "<td>" .. act .. "</td>"
  else
    row[#row + 1] = '<td class="err" colspan="6">' .. esc(errors.text(p)) .. "</td>"
  end
  row[#row + 1] = "</tr>"
  return table.concat(row)
end

-- seconds of new work (parses, recipes) one runs page does; the rest of
-- the rows come on the next reloads, so a folder of large files shows
-- progress instead of a page that hangs
local RUNS_BUDGET = 3

local function runs_page()
  local started, pending = sys.clock(), 0
  local s = scan()
  local rows, jobs = {}, {}
  local per_dir = {}
  for _, rel in ipairs(s.files) do
    local abs, _, _, mtime, version = resolve(rel)
    local key = table.concat({ "row", abs, version }, "\0")
    local hit = cache_get(key)
    if not hit then
      -- another worker's row: the text cache has it (format after a NUL)
      local shared = httpd.text_get(key)
      if shared then
        local fmt, html_row = shared:match("^([^\0]*)\0(.*)$")
        hit = { html = html_row, format = fmt ~= "" and fmt or nil }
      end
    end
    if not hit and sys.clock() - started > RUNS_BUDGET then
      -- over the page's budget: this row next time (the page reloads itself)
      pending = pending + 1
      hit = { html = '<tr><td class="name"><a href="' .. href("/run", rel) .. '">' .. esc(rel)
        .. '</a></td><td colspan="6" class="muted">not read yet: this page reloads until every file is</td></tr>' }
    elseif not hit then
      hit = { html = runs_row(rel, mtime) }
      local ok, p = pcall(load, rel)
      hit.format = ok and p.format or nil
      if not httpd.text_put(key, (hit.format or "") .. "\0" .. hit.html) then cache_put(key, hit, #hit.html + 200) end
    end
    rows[#rows + 1] = hit.html
    if hit.format then
      local dir = rel:match("^(.*)/[^/]+$") or ""
      per_dir[dir] = per_dir[dir] or {}
      per_dir[dir][#per_dir[dir] + 1] = hit.format
    end
  end
  for _, d in ipairs(s.dirs) do
    local fm = per_dir[d]
    if fm and #fm >= 2 then jobs[#jobs + 1] = d end
  end
  local out = { "<header><h1>Runs</h1>",
    string.format('<p class="meta">%d file%s under the served folder; new files appear on reload.%s</p></header>',
        #s.files,
      #s.files == 1 and "" or "s",
          pending > 0 and string.format(" <b>%d still to read</b> (this page reloads every 2 s).", pending) or "") }
  out[#out + 1] = '<div class="tbl"><table class="data" id="runs"><thead><tr><th>file</th><th>format</th><th>device(s)</th>'
    .. '<th>date (UTC)</th><th class="num">steps</th><th class="num">step time</th><th>first action</th></tr></thead><tbody>'
  out[#out + 1] = table.concat(rows, "\n")
  out[#out + 1] = "</tbody></table></div>"
  if #jobs > 0 then
    out[#out + 1] = "<h2>Job folders</h2><ul>"
    for _, d in ipairs(jobs) do
      out[#out + 1] = '<li><a href="' .. href("/job", d) .. '">' .. esc(d) .. "</a> — " .. #per_dir[d]
          .. " profiles</li>"
    end
    out[#out + 1] = "</ul>"
  end
  return shell("perflab: runs", table.concat(out, "\n"), pending > 0 and '<meta http-equiv="refresh" content="2">'
      or nil)
end

-- ---- a run, a timeline, an export -------------------------------------------------

--- The query as a key part: its pairs in order.
local function query_key(q)
  local parts = {}
  for i, kv in ipairs(q) do parts[i] = kv[1] .. "=" .. kv[2] end
  return table.concat(parts, "&")
end

local timeline_body

local function run_page(rel, q)
  local set = query_set(q)
  local one = q_one(q, "recipe")
  if one then recipe_name(one) end
  local abs, _, _, _, version = resolve(rel)
  return cached_text({ "page", "run", abs, version, query_key(q) }, function()
    local reps, skipped
    if one then
      reps, skipped = { recipes.run(one, { load(rel) }, set) }, {}
    else
      reps, skipped = run_all(rel, set)
    end
    local p = load(rel)
    local links = { '<p class="meta">' }
    if p.tables.kernels and p.tables.kernels:has("start_ns") then
      links[#links + 1] = '<a href="' .. href("/timeline", rel) .. '">step timeline</a> · '
      links[#links + 1] = '<a href="' .. href("/export", rel) .. '">Chrome trace for Perfetto</a> · '
    end
    links[#links + 1] = '<a href="' .. href("/compare", nil, { { "a", rel } }) .. '">compare with…</a></p>'
    if #reps == 0 then
      return shell("perflab: " .. rel, "<header><h1>" .. esc(rel) .. "</h1></header>" .. table.concat(links)
        .. "<p>No recipe could run on this input.</p>" .. skipped_html(skipped))
    end
    return shell("perflab: " .. rel, report_body(reps, "perflab: " .. rel) .. table.concat(links)
        .. skipped_html(skipped))
  end)
end

local function timeline_page(rel, q)
  query_set(q)
  local abs, _, _, _, version = resolve(rel)
  return cached_text({ "page", "timeline", abs, version, query_key(q) }, function() return timeline_body(rel, q) end)
end

function timeline_body(rel, q)
  local p = load(rel)
  local window = q_one(q, "window")
  local set = window and { window = window } or {}
  local rep = recipes.run("timeline", { p }, set)
  local out = { report_body({ rep }, "timeline: " .. rel) }
  out[#out + 1] = '<p class="zoom"><button type="button" value="in" hidden>zoom in</button>'
    .. '<button type="button" value="out" hidden>zoom out</button><button type="button" value="reset" hidden>reset</button>'
    .. ' <a href="' .. href("/export", rel, window and { { "window", window } } or nil)
        .. '">this window as a Chrome trace (Perfetto)</a>'
    .. ' · <a href="' .. href("/export", rel) .. '">the whole trace</a></p>'
  -- the figures scroll sideways when zoomed
  out[1] = out[1]:gsub('<figure class="chart"', '<div class="zoombox"><figure class="chart"'):gsub("</figure>",
      "</figure></div>")
  local n, _, steps = steps_of(p)
  if n then
    local t0 = require("perflab.trace").first_ns(p) or 0
    local li = {}
    for i, s in ipairs(steps) do
      local w = string.format("%d:%d", math.floor(s.s - t0), math.ceil(s.e - t0))
      li[i] = string.format('<tr><td><a href="%s">%s</a></td><td class="num" data-v="%d">%s</td></tr>',
        href("/timeline", rel, { { "window", w } }), esc(tostring(s.name)), math.floor(s.e - s.s),
            esc(units.ns(s.e - s.s, 3)))
    end
    out[#out + 1] = '<h2>Steps</h2><div class="tbl"><table class="data"><thead><tr><th>step</th><th class="num">time</th></tr></thead><tbody>'
      .. table.concat(li, "\n") .. "</tbody></table></div>"
  end
  return shell("perflab: timeline " .. rel, table.concat(out, "\n"))
end

local function export(rel, q)
  query_set(q)
  local p = load(rel)
  local trace = require "perflab.trace"
  local opts = {}
  local w = q_one(q, "window")
  if w then opts.window = trace.parse_window(w, p) end
  local name = ((rel:match("[^/]+$") or "trace"):gsub("[^%w%.%-_]", "_")):gsub("%.json%.gz$", ""):gsub("%.json$", "")
  return 200, "application/json", trace.chrome(p, opts), name .. ".chrome.json"
end

-- ---- compare and job folders ------------------------------------------------------

local function select_html(name, files, chosen, multiple)
  local out = { string.format('<select name="%s"%s>', name, multiple and ' multiple size="8"' or "") }
  if not multiple then out[#out + 1] = '<option value="">—</option>' end
  local pick = {}
  for _, c in ipairs(chosen or {}) do pick[c] = true end
  for _, f in ipairs(files) do
    out[#out + 1] = string.format('<option value="%s"%s>%s</option>', esc(f), pick[f] and " selected" or "", esc(f))
  end
  out[#out + 1] = "</select>"
  return table.concat(out)
end

local compare_body

local function compare_page(q)
  local set = query_set(q)
  local a, b = q_one(q, "a"), q_one(q, "b")
  local base, targ = q_all(q, "baseline"), q_all(q, "target")
  local files = scan().files
  local forms = {
    '<form class="cmp" method="get" action="/compare"><b>Two runs</b> (diff; suspicion with A as the baseline): A ',
    select_html("a", files, { a }), " B ", select_html("b", files, { b }),
        ' <button type="submit">compare</button></form>',
    '<form class="cmp" method="get" action="/compare"><b>Sets</b> (suspicion): baseline ',
    select_html("baseline", files, base, true), " target ", select_html("target", files, targ, true),
    ' <button type="submit">compare</button></form>' }
  local vparts = { "page", "compare", query_key(q) }
  for _, f in ipairs({ a or "", b or "", table.unpack(base) }) do
    if f ~= "" then local _, _, _, _, v = resolve(f); vparts[#vparts + 1] = v end
  end
  for _, f in ipairs(targ) do local _, _, _, _, v = resolve(f); vparts[#vparts + 1] = v end
  local result = cached_text(vparts, function() return compare_body(set, a, b, base, targ) end)
  return shell("perflab: compare", table.concat(forms) .. "\n" .. result)
end

function compare_body(set, a, b, base, targ)
  local reps, notes = {}, {}
  local function try(name, inputs)
    local r = recipes.load(name)
    local given = {}
    for k, v in pairs(set) do if r.options[k] then given[k] = v end end
    local ok, rep = pcall(recipes.run, name, inputs, given)
    if ok then reps[#reps + 1] = rep
    elseif errors.is_fail(rep) then notes[#notes + 1] = name .. ": " .. errors.text(rep)
    else error(rep, 0) end
  end
  local title = "Compare"
  if a and a ~= "" and b and b ~= "" then
    local pa, pb = copy(load(a)), copy(load(b))
    title = "Compare " .. a .. " and " .. b
    try("diff", { pa, pb })
    local ba, tb = copy(pa), copy(pb)
    ba.role, tb.role = "baseline", "target"
    try("suspicion", { ba, tb })
  elseif #base > 0 and #targ > 0 then
    local inputs = {}
    for _, f in ipairs(base) do local p = copy(load(f)); p.role = "baseline"; inputs[#inputs + 1] = p end
    for _, f in ipairs(targ) do local p = copy(load(f)); p.role = "target"; inputs[#inputs + 1] = p end
    title = string.format("Compare %d baseline and %d target run(s)", #base, #targ)
    try("suspicion", inputs)
  elseif a or b or #base > 0 or #targ > 0 then
    notes[#notes + 1] = "pick two runs (A and B), or at least one baseline and one target"
  end
  local body = {}
  for _, n in ipairs(notes) do body[#body + 1] = '<p class="err">' .. esc(n) .. "</p>" end
  if #reps > 0 then body[#body + 1] = report_body(reps, title) end
  if #reps == 0 then table.insert(body, 1, "<header><h1>" .. esc(title) .. "</h1></header>") end
  return table.concat(body, "\n")
end

local function job_page(rel, q)
  local set = query_set(q)
  local abs, kind = resolve(rel)
  if kind ~= "dir" then fail(rel .. " is not a folder", 404) end
  local _ = abs
  local inputs, notes = {}, {}
  local s = scan()
  for _, f in ipairs(s.files) do
    if (f:match("^(.*)/[^/]+$") or "") == rel then
      local ok, p = pcall(load, f)
      if ok then inputs[#inputs + 1] = copy(p) else notes[#notes + 1] = errors.text(p) end
    end
  end
  -- ranks: from the trace where it says, else the file order (as load_many)
  local any_world = false
  for _, p in ipairs(inputs) do if p.world_size then any_world = true end end
  for i, p in ipairs(inputs) do
    if p.rank == nil then p.rank, p.rank_from = i - 1, "order" else p.rank_from = "trace" end
    if not any_world then p.world_size = #inputs end
  end
  local reps = {}
  for _, name in ipairs({ "distributed", "stragglers" }) do
    local r = recipes.load(name)
    local given = {}
    for k, v in pairs(set) do if r.options[k] then given[k] = v end end
    local ok, rep = pcall(recipes.run, name, inputs, given)
    if ok then reps[#reps + 1] = rep
    elseif errors.is_fail(rep) then notes[#notes + 1] = name .. ": " .. errors.text(rep)
    else error(rep, 0) end
  end
  local body = {}
  for _, n in ipairs(notes) do body[#body + 1] = '<p class="err">' .. esc(n) .. "</p>" end
  local title = "job " .. rel .. " (" .. #inputs .. " ranks)"
  if #reps > 0 then table.insert(body, 1, report_body(reps, title))
  else table.insert(body, 1, "<header><h1>" .. esc(title) .. "</h1></header>") end
  return shell("perflab: " .. title, table.concat(body, "\n"))
end

-- ---- dispatch ---------------------------------------------------------------------

local function error_page(status, msg)
  return status, "text/html; charset=utf-8",
    shell("perflab: error " .. status, "<header><h1>Error " .. status .. '</h1></header><p class="err">' .. esc(msg)
        .. "</p>")
end

-- ---- long parses: a page that says so --------------------------------------------

-- a file at least this large, not parsed in this worker and its page not
-- cached, is read by a background job while the client gets a page that
-- reloads itself with the job's progress
-- (PERFLAB_SERVE_DEFER_BYTES sets it: the tests make every file large)
M.DEFER_BYTES = math.tointeger(tonumber(os.getenv("PERFLAB_SERVE_DEFER_BYTES") or "")) or 16 * 1024 * 1024

local function progress_page(rel, job, size)
  local what
  if job and job.total and job.total > 0 and job.done < job.total then
    what = string.format("reading: %d %% (%s of %s)", math.floor(100 * job.done / job.total),
      units.bytes(job.done), units.bytes(job.total))
  elseif job and job.total and job.total > 0 then
    what = "read; running the recipes"
  else
    what = string.format("starting to read %s", size and units.bytes(size) or "the file")
  end
  local pct = (job and job.total and job.total > 0) and math.floor(100 * job.done / job.total) or 0
  return 200, "text/html; charset=utf-8", shell("perflab: reading " .. rel,
    "<header><h1>" .. esc(rel) .. '</h1></header><p class="meta" id="progress">' .. esc(what)
    .. '</p><progress max="100" value="' .. pct .. '">' .. pct .. ' %</progress>'
    .. '<p class="muted">A large file: perflab is reading it in the background. This page reloads every second '
    .. "and shows the report when it is ready.</p>", '<meta http-equiv="refresh" content="1">')
end

--- A run or timeline page whose file another worker is reading now (its
-- progress), or that is large and cold here (defer it: req.defer).
local function long_parse(req, route, rel)
  if req.background or (route ~= "run" and route ~= "timeline") then return nil end
  for _, b in ipairs(httpd.busy()) do
    if b.path == req.path then return progress_page(rel, b) end
  end
  if not req.can_defer then return nil end
  local ok, abs, kind, size, _, version = pcall(resolve, rel)
  if not ok or kind ~= "file" or size < M.DEFER_BYTES then return nil end
  if cache.items[table.concat({ "p", abs, version }, "\0")] then return nil end
  -- read once in the background already: the rest is done here, not again there
  if httpd.text_get(table.concat({ "read", abs, version }, "\0")) then return nil end
  -- the page itself cached (any worker, this query): no parse needed
  local parts = { "page", route, abs, version, query_key(req.query or {}) }
  if httpd.text_get(table.concat(parts, "\0")) then return nil end
  req.defer = true
  return progress_page(rel, nil, size)
end

--- handle{method, path, query = {{k, v}...}, can_defer, background} ->
-- status, content type, body [, attachment name]
function M.handle(req)
  local path, q = req.path, req.query or {}
  do
    local route, rel = path:match("^/([%a]+)/(.+)$")
    if route then
      local lok, st, ct, b = pcall(long_parse, req, route, rel)
      if lok and st then return st, ct, b end
    end
  end
  if req.background then
    -- a deferred page: whatever happens, no second background read of this version
    local rok, abs, _, _, _, version = pcall(resolve, (path:match("^/[%a]+/(.+)$") or ""))
    if rok then httpd.text_put(table.concat({ "read", abs, version }, "\0"), "1") end
  end
  local ok, status, ctype, body, fname = pcall(function()
    if path == "/" then return 200, "text/html; charset=utf-8", runs_page() end
    if path == "/compare" then return 200, "text/html; charset=utf-8", compare_page(q) end
    local route, rel = path:match("^/([%a]+)/(.+)$")
    if route == "run" then return 200, "text/html; charset=utf-8", run_page(rel, q)
    elseif route == "timeline" then return 200, "text/html; charset=utf-8", timeline_page(rel, q)
    elseif route == "export" then return export(rel, q)
    elseif route == "job" then return 200, "text/html; charset=utf-8", job_page(rel:gsub("/$", ""), q) end
    fail("no such page", 404)
  end)
  if ok then return status, ctype, body, fname end
  local e = status
  if errors.is_fail(e) then
    local code = math.tointeger(e.exit) or 400
    if code < 400 or code > 599 then code = 400 end      -- a recipe's user error (exit 2): bad request
    return error_page(code, errors.text(e))
  end
  local msg = tostring(e)
  if msg:match("time limit exceeded") then return error_page(503, "this page took longer than --timeout allows") end
  if msg:match("not enough memory") then
    collectgarbage("collect")
    return error_page(507, "this page needs more memory than --max-memory allows")
  end
  if msg:match("^interrupted") then return error_page(503, "the server is stopping") end
  io.stderr:write("perflab serve: " .. path .. ": " .. msg .. "\n")
  return error_page(500, msg:gsub("\n.*", ""))
end

-- ---- main ------------------------------------------------------------------------------

local function parse_size(s, what)
  local n, u = tostring(s):match("^(%d+%.?%d*)([KMGTkmgt]?)$")
  if not n then fail(string.format("%s expects a size like 512M or 4G, got '%s'", what, s)) end
  local mult = ({ [""] = 1, K = 1024, M = 1024 ^ 2, G = 1024 ^ 3, T = 1024 ^ 4 })[u:upper()]
  return math.floor(tonumber(n) * mult)
end

local function physical_memory()
  local f = io.open("/proc/meminfo", "r")
  if f then
    local t = f:read("a")
    f:close()
    local kb = t:match("MemTotal:%s*(%d+)")
    if kb then return tonumber(kb) * 1024 end
  end
  return 4 * 1024 ^ 3
end

local function is_loopback(host)
  return host == "127.0.0.1" or host:match("^127%.%d+%.%d+%.%d+$") ~= nil or host == "::1" or host == "localhost"
end

--- A worker of the server's pool (src/serve.c starts one in a state of
-- its own): its profile cache's cap, and the handler.
function M.worker(cap)
  cache.cap = cap
  return M.handle
end

local function cores()
  local f = io.open("/proc/cpuinfo", "r")
  if not f then return 2 end
  local n = 0
  for line in f:lines() do if line:match("^processor%s*:") then n = n + 1 end end
  f:close()
  return math.max(n, 1)
end

--- perflab serve DIR with the options cli.lua parsed.
function M.main(dir, o)
  if not sys.isdir(dir) then fail(string.format("serve: '%s' is not a folder", dir)) end
  local port = 8000
  if o.port then
    port = math.tointeger(tonumber(o.port))
    if not port or port < 0 or port > 65535 then fail(string.format("--port expects 0..65535, got '%s'", o.port)) end
  end
  local host = o.host or "127.0.0.1"
  if o.token and o["no-token"] then fail("serve: --token and --no-token exclude each other") end
  local token = o.token
  if token and not token:match("^[%w%-_%.~]+$") then fail("--token: use letters, digits, '-', '_', '.' and '~'") end
  if not token and not o["no-token"] and not is_loopback(host) then token = httpd.token() end
  local timeout
  if o.timeout then
    timeout = tonumber(o.timeout)
    if not timeout
        or not (timeout > 0) then fail(string.format("--timeout expects seconds (a positive number), got '%s'",
        o.timeout)) end
  end
  local cap = o["cache-memory"] and parse_size(o["cache-memory"], "--cache-memory") or math.floor(physical_memory() / 4)
  -- workers: requests side by side (a slow report does not hold the runs
  -- page); a quarter of the cap for the pages they share, the rest split
  -- between their profile caches
  local workers = math.min(4, math.max(2, cores()))
  if o.workers then
    workers = math.tointeger(tonumber(o.workers))
    if not workers or workers < 1 or workers > 16 then fail(string.format("--workers expects 1..16, got '%s'",
        o.workers)) end
  end
  local text_cap = cap // 4
  cache.cap = (cap - text_cap) // workers
  local ok, why = httpd.serve({ root = dir, host = host, port = port, token = token, timeout = timeout,
    workers = workers, worker_cap = cache.cap, text_cache = text_cap, sandbox = require("perflab.sandbox").enabled,
    ready = function(bound)
      local shown = host:find(":", 1, true) and ("[" .. host .. "]") or host
      local url = string.format("http://%s:%d/%s", shown, bound, token and ("?token=" .. token) or "")
      io.stdout:write(string.format("perflab: serving %s at %s\n", dir, url))
      io.stdout:write("perflab: read-only; Ctrl-C stops it\n")
      io.stdout:flush()
    end }, M.handle)
  if not ok then fail("serve: " .. tostring(why)) end
  io.stderr:write(string.format("perflab: stopped (%s)\n", tostring(why)))
  return 0
end

return M

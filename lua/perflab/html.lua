--- perflab.html: reports as one self-contained HTML page.
--   html.page(reports [, opts]) -> text      (opts.title)
-- Inline CSS, inline SVG figures, one small inline script (sortable tables);
-- no network reference at all.  A Content-Security-Policy meta tag allows
-- only that script and that style (by their SHA-256), so markup that slipped
-- into the page could not run.  Every string from the input (kernel names,
-- file names, metric text) is escaped: input is data, never markup.
local chart = require "perflab.chart"
local units = require "perflab.units"
local json = require "perflab.json"
local terms = require "perflab.report_terms"

local M = {}
local esc = chart.escape

-- ---- SHA-256 (FIPS 180-4), for the CSP hashes --------------------------------

local K = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

--- sha256(bytes) -> 32 raw bytes.
function M.sha256(msg)
  local function rr(x, n) return ((x >> n) | (x << (32 - n))) & 0xffffffff end
  local h = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 }
  local ml = #msg * 8
  msg = msg .. "\128" .. string.rep("\0", (55 - #msg) % 64) .. string.pack(">I8", ml)
  local w = {}
  for blk = 1, #msg, 64 do
    for i = 0, 15 do w[i] = string.unpack(">I4", msg, blk + 4 * i) end
    for i = 16, 63 do
      local a, b = w[i - 15], w[i - 2]
      local s0 = rr(a, 7) ~ rr(a, 18) ~ (a >> 3)
      local s1 = rr(b, 17) ~ rr(b, 19) ~ (b >> 10)
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) & 0xffffffff
    end
    local a, b, c, d, e, f, g, hh = table.unpack(h)
    for i = 0, 63 do
      local t1 = (hh + (rr(e, 6) ~ rr(e, 11) ~ rr(e, 25)) + ((e & f) ~ (~e & g)) + K[i + 1] + w[i]) & 0xffffffff
      local t2 = ((rr(a, 2) ~ rr(a, 13) ~ rr(a, 22)) + ((a & b) ~ (a & c) ~ (b & c))) & 0xffffffff
      hh, g, f, e, d, c, b, a = g, f, e, (d + t1) & 0xffffffff, c, b, a, (t1 + t2) & 0xffffffff
    end
    for i, v in ipairs({ a, b, c, d, e, f, g, hh }) do h[i] = (h[i] + v) & 0xffffffff end
  end
  return string.pack(">I4I4I4I4I4I4I4I4", table.unpack(h))
end

local b64c = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
function M.base64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = (a << 16) | ((b or 0) << 8) | (c or 0)
    local k = #out
    for j = 3, 0, -1 do out[k + 4 - j] = b64c:sub(((n >> (6 * j)) & 63) + 1, ((n >> (6 * j)) & 63) + 1) end
    if not b then out[#out] = "="; out[#out - 1] = "=" elseif not c then out[#out] = "=" end
  end
  return table.concat(out)
end

-- ---- the page's own style and script ---------------------------------------

local CSS = [[
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:1em 1.5em;color:#111;background:#fff;line-height:1.4}
h1{font-size:1.5em;margin:.2em 0;overflow-wrap:anywhere}h2{font-size:1.25em;border-bottom:2px solid #0072B2;padding-bottom:.2em;margin-top:2em}h3{font-size:1.05em;margin:1.2em 0 .4em}
.meta{color:#333;font-size:.92em}.meta td{padding:0 1em 0 0;vertical-align:top}
code,.name{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9em;overflow-wrap:anywhere}
td.name{min-width:16em;max-width:40em}
nav ul{padding-left:1.2em;margin:.3em 0}
.finding{border-left:6px solid #999;padding:.4em .8em;margin:.5em 0;background:#f7f7f7}
.finding .sev{display:inline-block;min-width:3.5em;font-weight:bold;text-transform:uppercase;font-size:.8em;padding:0 .4em;border:1px solid #000;margin-right:.5em;text-align:center}
.sev-error{border-left-color:#b2182b}.sev-error .sev{background:#b2182b;color:#fff}
.sev-warn{border-left-color:#E69F00;border-left-style:double}.sev-warn .sev{background:#E69F00;color:#000}
.sev-opt{border-left-color:#0072B2;border-left-style:dashed}.sev-opt .sev{background:#0072B2;color:#fff}
.sev-info{border-left-color:#999;border-left-style:dotted}.sev-info .sev{background:#eee;color:#000}
.speedup{font-weight:bold;color:#005a8c}.evidence{font-size:.85em;color:#333;margin:.3em 0 0}.evidence span{margin-right:1.2em;white-space:nowrap}
.tbl{overflow-x:auto;max-height:32em;overflow-y:auto;border:1px solid #ccc}
table.data{border-collapse:collapse;font-size:.88em;width:100%}
table.data th{background:#eef3f8;position:sticky;top:0;text-align:left;cursor:pointer;padding:.3em .5em;border-bottom:1px solid #999;white-space:nowrap}
table.data th.num,table.data td.num{text-align:right}
table.data td{padding:.2em .5em;border-bottom:1px solid #e4e4e4;vertical-align:top}
table.data tr:nth-child(even) td{background:#fafafa}
table.data th[aria-sort=ascending]::after{content:" \25B2"}table.data th[aria-sort=descending]::after{content:" \25BC"}
.unit{font-weight:normal;color:#555;font-size:.85em}
figure{margin:1em 0;page-break-inside:avoid;break-inside:avoid}figure svg{max-width:100%;height:auto}figcaption{font-size:.9em;color:#333}
.note{font-size:.9em;color:#333}.muted{color:#666}
.summary{border:1px solid #0072B2;padding:0 1em 1em;margin-top:1em;background:#fbfdff}.summary h2{margin-top:.6em}
ol.actions{padding-left:1.6em}ol.actions li.finding{margin:.5em 0}ol.actions .speedup{margin-right:.5em}ul.evidence{margin:.2em 0;padding-left:1.2em}
@media print{body{max-width:none;padding:0}.tbl{max-height:none;overflow:visible;border:0}table.data th{position:static}h2{page-break-before:auto}section{page-break-inside:auto}}
]]

local JS = [[
(function(){
function key(td){var v=td.getAttribute("data-v");if(v!==null&&v!==""){var n=Number(v);if(!isNaN(n))return n;}return td.textContent;}
document.querySelectorAll("table.data").forEach(function(t){
 t.querySelectorAll("th").forEach(function(th,i){
  th.setAttribute("tabindex","0");
  function sort(){var asc=th.getAttribute("aria-sort")!=="ascending";
   t.querySelectorAll("th").forEach(function(h){h.removeAttribute("aria-sort");});
   th.setAttribute("aria-sort",asc?"ascending":"descending");
   var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);
   rows.sort(function(x,y){var a=key(x.cells[i]),c=key(y.cells[i]);
    if(typeof a==="number"&&typeof c==="number")return asc?a-c:c-a;
    return asc?String(a).localeCompare(String(c)):String(c).localeCompare(String(a));});
   rows.forEach(function(r){b.appendChild(r);});}
  th.addEventListener("click",sort);
  th.addEventListener("keydown",function(e){if(e.key==="Enter")sort();});
 });
});
})();
]]

-- ---- numbers ----------------------------------------------------------------

local function exact(v)
  if math.type(v) == "integer" then return string.format("%d", v) end
  if v ~= v then return "NaN" end
  return json.number(v)
end

local function unit_of(col)
  if col:match("_ns$") then return "time", "ns"
  elseif col:match("_bytes$") or col == "bytes" then return "bytes", "B"
  elseif col:match("_pct$") or col:match("_percent$") then return "pct", "%"
  end
  return nil
end

--- Readable text for a value in a column: 1.23 ms, 4.5 MB, 12.3 %, 1,234,567.
local function readable(v, col)
  if type(v) ~= "number" then return tostring(v) end
  if v ~= v then return "–" end
  local u = unit_of(col)
  if u == "time" then return units.ns(v, 3)
  elseif u == "bytes" then return units.bytes(v, 3)
  elseif u == "pct" then return units.sig(v, 3) .. " %"
  end
  if math.type(v) == "integer" or (v == math.floor(v) and math.abs(v) < 1e15) then
    local s = string.format("%d", math.floor(v))
    local neg = s:sub(1, 1) == "-"
    if neg then s = s:sub(2) end
    s = s:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")
    return (neg and "-" or "") .. s
  end
  return units.sig(v, 4)
end
M.readable = readable

-- ---- pieces -----------------------------------------------------------------

local function table_html(out, t, max_rows, origin)
  local cols, types = t:columns(), t:types()
  local n = t:nrows()
  local shown = math.min(n, max_rows or 2000)
  out[#out + 1] = '<div class="tbl"><table class="data"><thead><tr>'
  for _, c in ipairs(cols) do
    local _, u = unit_of(c)
    local num = types[c] == "number" or types[c] == "integer"
    out[#out + 1] = string.format('<th%s>%s%s</th>', num and ' class="num"' or "", esc(c),
      u and (' <span class="unit">(' .. esc(u == "ns" and "time" or u) .. ')</span>') or "")
  end
  out[#out + 1] = "</tr></thead><tbody>"
  local arrays, head = {}, shown < n and t:head(shown) or t
  local rel = {}
  if origin and origin >= 1e15 then
    local is_tp = terms.is_time_point
    for _, c in ipairs(cols) do rel[c] = is_tp(c) end
  else
    origin = nil
  end
  for _, c in ipairs(cols) do arrays[c] = head:col(c):to_lua() end
  for i = 1, shown do
    local row = { "<tr>" }
    for _, c in ipairs(cols) do
      local v = arrays[c][i]
      if type(v) == "number" and origin and rel[c] then
        -- a point in time: "+1.234 s" from the trace start, the recorded ns on hover
        row[#row + 1] = string.format('<td class="num" data-v="%s" title="%s ns since the epoch">%s</td>', exact(v),
            exact(v),
          esc("+" .. units.ns(v - origin, 4)))
      elseif type(v) == "number" then
        row[#row + 1] = string.format('<td class="num" data-v="%s" title="%s">%s</td>', exact(v), exact(v),
            esc(readable(v, c)))
      elseif v == nil then
        row[#row + 1] = '<td></td>'
      elseif type(v) == "string" then
        row[#row + 1] = '<td class="name">' .. esc(v) .. "</td>"
      else
        row[#row + 1] = "<td>" .. esc(tostring(v)) .. "</td>"
      end
    end
    row[#row + 1] = "</tr>"
    out[#out + 1] = table.concat(row)
  end
  out[#out + 1] = "</tbody></table></div>"
  if shown < n then out[#out + 1] = string.format('<p class="muted">%d of %d rows shown (--output DIR writes every row as CSV).</p>', shown, n) end
end

local function evidence_html(ev)
  local keys = {}
  for k in pairs(ev or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    local v = ev[k]
    local text
    if type(v) == "number" then
      text = string.format('<span title="%s"><b>%s</b> = %s</span>', exact(v), esc(k), esc(readable(v, k)))
    elseif type(v) == "table" then
      local xs = {}
      for i, x in ipairs(v) do xs[i] = type(x) == "number" and readable(x, k) or tostring(x) end
      text = string.format("<span><b>%s</b> = %s</span>", esc(k), esc(table.concat(xs, ", ")))
    else
      text = string.format("<span><b>%s</b> = %s</span>", esc(k), esc(tostring(v)))
    end
    parts[#parts + 1] = text
  end
  return table.concat(parts, " ")
end

local device_keys = { "device", "gpu", "device_name", "compute_capability", "cc", "sm_count" }

--- One table as an HTML <table> (readable numbers, exact values on hover):
-- for notebooks.  max_rows default 2000.
function M.table(t, max_rows)
  local out = {}
  table_html(out, t, max_rows)
  return table.concat(out, "\n") .. "\n"
end

local function section(out, rep, idx, opts)
  local sid = "r" .. idx
  out[#out + 1] = string.format('<section id="%s"><h2>%s</h2>', sid, esc(rep.recipe))
  if rep.title then out[#out + 1] = "<p>" .. esc(rep.title) .. "</p>" end
  if rep.collapsed then
    out[#out + 1] = '<p class="muted">Not applicable: ' .. esc(rep.collapsed) .. "</p></section>"
    return
  end
  if #rep.inputs > 0 then
    out[#out + 1] = '<table class="meta"><tbody>'
    for i, inp in ipairs(rep.inputs) do
      local meta = rep.input_meta and rep.input_meta[i] or {}
      local dev = {}
      for _, k in ipairs(device_keys) do if meta[k] ~= nil then dev[#dev + 1] = k .. " " .. tostring(meta[k]) end end
      out[#out + 1] = string.format("<tr><td>input</td><td><code>%s</code> (%s%s)%s</td></tr>", esc(inp.source),
          esc(inp.format),
        inp.role and (", " .. esc(inp.role)) or "", #dev > 0 and (" · " .. esc(table.concat(dev, ", "))) or "")
    end
    local okeys = {}
    for k in pairs(rep.options or {}) do okeys[#okeys + 1] = k end
    table.sort(okeys)
    if #okeys > 0 then
      local o = {}
      for _, k in ipairs(okeys) do o[#o + 1] = k .. "=" .. tostring(rep.options[k]) end
      out[#out + 1] = "<tr><td>options</td><td>" .. esc(table.concat(o, " ")) .. "</td></tr>"
    end
    out[#out + 1] = "</tbody></table>"
  end
  local fs, folded = rep:shown_findings()
  if #fs > 0 then
    out[#out + 1] = string.format("<h3>Findings (%d)</h3>", #fs)
    for _, f in ipairs(fs) do
      out[#out + 1] = string.format('<div class="finding sev-%s"><span class="sev">%s</span>%s%s', f.severity,
          f.severity,
        esc(f.message), f.speedup_pct and string.format(' <span class="speedup" title="%s">est. speedup %s %%</span>',
          exact(f.speedup_pct), esc(units.sig(f.speedup_pct, 3))) or "")
      local ev = evidence_html(f.evidence)
      out[#out + 1] = string.format('<div class="evidence">rule <code>%s</code>%s %s</div></div>', esc(f.rule),
        f.subject and (" · subject <code>" .. esc(f.subject) .. "</code>") or "", ev)
    end
  end
  for _, name in ipairs(opts and opts.no_figures and {} or rep.figure_order) do
    local fig = rep.figures[name]
    -- inline SVG needs neither the XML declaration nor the namespace URL
    local svg = fig.svg:gsub("^<%?xml[^>]*>%s*", ""):gsub('^<svg xmlns="http://www.w3.org/2000/svg"', "<svg", 1)
    out[#out + 1] = string.format('<figure class="chart" data-name="%s">%s<figcaption>%s</figcaption></figure>',
        esc(name), svg, esc(fig.title))
  end
  for _, name in ipairs(rep.table_order) do
    local info = rep.table_info[name] or {}
    out[#out + 1] = string.format("<h3>%s%s</h3>", esc(name),
        info.title and (' <span class="muted">— ' .. esc(info.title) .. "</span>") or "")
    table_html(out, rep.tables[name], info.rows, rep.origin_ns)
    if info.note then out[#out + 1] = '<p class="note">' .. esc(info.note) .. "</p>" end
  end
  for _, ft in ipairs(folded) do
    out[#out + 1] = string.format('<h3>%s <span class="muted">— %s</span></h3>', esc(ft.name), esc(ft.title))
    table_html(out, ft.table)
  end
  for _, n in ipairs(rep.notes) do out[#out + 1] = '<p class="note">' .. esc(n) .. "</p>" end
  out[#out + 1] = "</section>"
end

--- page(reports, opts) -> one HTML document for one or more reports.
function M.page(reports, opts)
  opts = opts or {}
  local css_hash = "sha256-" .. M.base64(M.sha256(CSS))
  local js_hash = "sha256-" .. M.base64(M.sha256(JS))
  local out = {}
  out[#out + 1] = "<!DOCTYPE html>"
  out[#out + 1] = '<html lang="en"><head><meta charset="utf-8">'
  out[#out + 1] = string.format(
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src '%s'; style-src '%s'; img-src data:; base-uri 'none'; form-action 'none'\">",
    js_hash, css_hash)
  out[#out + 1] = '<meta name="viewport" content="width=device-width, initial-scale=1">'
  local title = opts.title
  if not title then
    local r = reports[1]
    local src = r and r.inputs[1] and r.inputs[1].source
    title = "perflab" .. (#reports == 1 and (" " .. r.recipe) or " report") .. (src and (": " .. src) or "")
  end
  out[#out + 1] = "<title>" .. esc(title) .. "</title>"
  out[#out + 1] = "<style>" .. CSS .. "</style></head><body>"
  out[#out + 1] = "<header><h1>" .. esc(title) .. "</h1>"
  local nf, worst = 0, nil
  for _, r in ipairs(reports) do
    nf = nf + r:finding_count()
    local m = r:max_severity()
    local lv = terms.levels
    if m and (not worst or lv[m] > lv[worst]) then worst = m end
  end
  out[#out + 1] = string.format('<p class="meta">%d recipe%s, %d finding%s%s</p>', #reports,
      #reports == 1 and "" or "s",
    nf, nf == 1 and "" or "s", worst and (", the most severe: " .. worst) or "")
  out[#out + 1] = "</header><main>"
  if opts.summary then
    local anchors = {}
    for i, r in ipairs(reports) do anchors[r.recipe] = anchors[r.recipe] or ("r" .. i) end
    out[#out + 1] = require("perflab.summary").html(opts.summary, anchors, esc)
  end
  if #reports > 1 then
    out[#out + 1] = "<nav><h2>Sections</h2><ul>"
    for i, r in ipairs(reports) do
      out[#out + 1] = string.format('<li><a href="#r%d">%s</a> — %s</li>', i, esc(r.recipe),
        r.collapsed and "not applicable" or string.format("%d finding%s, %d figure%s", r:finding_count(),
        r:finding_count() == 1 and "" or "s", #r.figure_order, #r.figure_order == 1 and "" or "s"))
    end
    out[#out + 1] = "</ul></nav>"
  end

  for i, r in ipairs(reports) do section(out, r, i) end
  out[#out + 1] = "</main>"
  out[#out + 1] = "<script>" .. JS .. "</script>"
  out[#out + 1] = "</body></html>"
  return table.concat(out, "\n") .. "\n"
end

--- A report as an HTML fragment (no page, style or script): for notebooks,
-- which show the figures beside it (opts.no_figures) or inline.
function M.fragment(rep, opts)
  local out = { '<div class="perflab-report">', "<style>" .. M.scoped_css() .. "</style>" }
  section(out, rep, 1, opts)
  out[#out + 1] = "</div>"
  return table.concat(out, "\n") .. "\n"
end

--- The page's CSS scoped to .perflab-report, for a fragment inside another
--- page (a notebook, an exported notebook): every selector is prefixed,
--- body's rules apply to the wrapper, print rules are left out.
local scoped
function M.scoped_css()
  if scoped then return scoped end
  local out = {}
  for sel, body in CSS:gsub("@media print%b{}", ""):gmatch("([^{}]+)(%b{})") do
    local parts = {}
    for one in sel:gmatch("[^,]+") do
      one = one:match("^%s*(.-)%s*$")
      if one == "body" then parts[#parts + 1] = ".perflab-report"
      elseif one ~= "" then parts[#parts + 1] = ".perflab-report " .. one end
    end
    if #parts > 0 then out[#out + 1] = table.concat(parts, ",") .. body end
  end
  -- a notebook cell is narrower than a page: no max-width, no margin
  out[#out + 1] = ".perflab-report{max-width:none;margin:0;padding:0}"
  scoped = table.concat(out, "\n")
  return scoped
end

M.CSS, M.JS = CSS, JS
return M

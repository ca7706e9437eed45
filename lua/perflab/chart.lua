--- perflab.chart: small SVG charts for reports, recipes and scripts.
--   chart.bars{categories=, series={{name=, values=}...}, stacked=, horizontal=, ...}
--   chart.plot{series={{name=, points={{x, y [, title=]}...}, line=, marker=}...}, x_log=, y_log=, ...}
--   chart.histogram{bins={{lo, hi, count}...}, marks={{x=, label=}...}, ...}
--   chart.heatmap{rows=, cols=, values={{...}...}, ...}
--   chart.gantt{lanes=, items={{lane=, start=, finish=, label=, kind=}...}, links=, ...}
--   chart.waterfall{items={{label=, delta=}...}, start=, ...}
--   chart.roofline{ceilings=, bandwidth=, points=, ...}   log-log roofline
-- Each returns SVG text (a standalone document).  Every mark has a <title>
-- for hover text; series differ by colour (Okabe-Ito, safe for colour-blind
-- readers) and by texture or marker shape, so a black-and-white print still
-- tells them apart.  Every string given is data: it is escaped (and
-- invalid UTF-8 or XML control bytes replaced), never read as markup.
-- Documented in docs/charts.md.
local M = {}

--- Okabe & Ito's palette (distinct under the common colour-vision deficiencies).
M.palette = { "#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#999999" }
local textures = { "", "M0,6 L6,0", "D", "M0,0 L6,6", "M0,3 L6,3", "M0,6 L6,0 M0,0 L6,6", "M3,0 L3,6",
    "M0,3 L6,3 M3,0 L3,6" }
local markers = { "circle", "square", "triangle", "diamond", "cross", "plus", "tri-down", "star" }
local dashes = { "", "6 3", "2 2", "8 3 2 3", "1 3", "10 4" }

--- s with every byte that is not part of valid UTF-8 replaced by U+FFFD.
function M.utf8_clean(s)
  s = tostring(s)
  if not utf8.len(s) then
    local out, i = {}, 1
    while i <= #s do
      local ok, n = pcall(utf8.len, s, i, i)
      local c = s:byte(i)
      local len = c < 0x80 and 1 or c >= 0xF0 and 4 or c >= 0xE0 and 3 or c >= 0xC0 and 2 or 1
      if ok and n == 1 and utf8.len(s:sub(i, i + len - 1)) == 1 then
        out[#out + 1] = s:sub(i, i + len - 1); i = i + len
      else
        out[#out + 1] = "\u{FFFD}"; i = i + 1
      end
    end
    s = table.concat(out)
  end
  return s
end

--- XML text for any value: & < > " ' escaped, control bytes XML forbids
-- dropped, bytes that are not UTF-8 replaced by U+FFFD.
function M.escape(s)
  s = M.utf8_clean(s):gsub("[%z\1-\8\11\12\14-\31]", "")
  return (s:gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;" }))
end
local esc = M.escape

--- A label cut to n characters (on a UTF-8 boundary) with "…".
function M.short(s, n)
  s = tostring(s)
  n = n or 40
  local len = utf8.len(s)
  if not len or len <= n then return s end
  return s:sub(1, utf8.offset(s, n) - 1) .. "…"
end

--- Compact number: 1.5k, 2M, 0.25.
function M.num(v)
  if v ~= v then return "NaN" end
  local a = math.abs(v)
  for _, p in ipairs({ { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } }) do
    if a >= p[1] then return string.format("%g%s", tonumber(string.format("%.3g", v / p[1])), p[2]) end
  end
  return string.format("%g", tonumber(string.format("%.3g", v)))
end

-- ---- scales ---------------------------------------------------------------

--- Ticks for [lo, hi]: linear (1-2-5 steps) or log (decades).
local function ticks(lo, hi, log)
  local t = {}
  if log then
    for e = math.floor(math.log(lo, 10) + 1e-9), math.ceil(math.log(hi, 10) - 1e-9) do t[#t + 1] = 10.0 ^ e end
    return t, t[1], t[#t]
  end
  if hi <= lo then hi = lo + 1 end
  local raw = (hi - lo) / 5
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs({ 1, 2, 2.5, 5, 10 }) do if m * mag >= raw then step = m * mag; break end end
  local a, b = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
  local v = a
  while v <= b + step * 1e-6 do t[#t + 1] = math.abs(v) < step * 1e-9 and 0 or v; v = v + step end
  return t, a, b
end

--- scale(lo, hi, p0, p1, log): a function from data to pixels, its ticks.
local function scale(lo, hi, p0, p1, log, nice)
  if log then
    lo = (lo and lo > 0) and lo or 1
    hi = (hi and hi > lo) and hi or lo * 10
  else
    lo, hi = lo or 0, hi or 1
    if hi == lo then hi = lo + (lo == 0 and 1 or math.abs(lo)) end
  end
  local tk, a, b = ticks(lo, hi, log)
  if nice ~= false then lo, hi = a, b end
  if log then
    local l0, l1 = math.log(lo, 10), math.log(hi, 10)
    if l1 == l0 then l1 = l0 + 1 end
    return function(v) return p0 + (math.log(math.max(v, 1e-300), 10) - l0) / (l1 - l0) * (p1 - p0) end, tk, lo, hi
  end
  return function(v) return p0 + (v - lo) / (hi - lo) * (p1 - p0) end, tk, lo, hi
end
M.scale = scale

-- ---- the frame shared by every chart ---------------------------------------

--- FNV-1a, 32 bits (in C: perflab.sys.fnv1a): ids from the chart's own
-- text, so that a chart is the same bytes whatever was drawn before it, and
-- charts inlined in one page do not share ids unless they are identical.
local fnv1a = require("perflab.sys").fnv1a

local function new_svg(W, H, o)
  local id = "\1"      -- replaced by finish(); escape() drops \1 from any input
  local s = { id = id, W = W, H = H, out = {} }
  function s.add(fmt, ...) s.out[#s.out + 1] = select("#", ...) > 0 and string.format(fmt, ...) or fmt end
  -- no XML declaration: the SVG goes inline into HTML and notebooks
  -- (nbconvert 6.5 fails on a declaration inside a page); a .svg file
  -- needs none (UTF-8 is XML's default)
  s.add('<svg xmlns="http://www.w3.org/2000/svg" class="perflab-chart" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12" role="img" aria-labelledby="%s-t">',
    W, H, W, H, id)
  s.add('<title id="%s-t">%s</title>', id, esc(o.title or "chart"))
  s.add('<rect x="0" y="0" width="%d" height="%d" fill="white"/>', W, H)
  if o.title then s.add('<text x="10" y="20" font-size="15" font-weight="bold">%s</text>',
      esc(M.short(o.title, (W - 20) // 9.5))) end
  if o.subtitle then s.add('<text x="10" y="36" fill="#444">%s</text>', esc(M.short(o.subtitle, (W - 20) // 7))) end
  function s.finish()
    s.add("</svg>")
    local text = table.concat(s.out, "\n") .. "\n"
    local id = string.format("%s%08x", o.id or "c", fnv1a(text))
    return (text:gsub("\1", id))
  end
  return s
end

--- Fill for series i: its colour with its texture (a <pattern>), defined once.
local function fills(s, n)
  local f = {}
  s.add("<defs>")
  for i = 1, n do
    local col = M.palette[(i - 1) % #M.palette + 1]
    local tx = textures[(i - 1) % #textures + 1]
    if tx == "" then f[i] = col
    else
      local pid = string.format("%s-p%d", s.id, i)
      s.add('<pattern id="%s" patternUnits="userSpaceOnUse" width="6" height="6"><rect width="6" height="6" fill="%s"/>', pid, col)
      if tx == "D" then s.add('<circle cx="3" cy="3" r="1.2" fill="#000" fill-opacity="0.55"/>')
      else s.add('<path d="%s" stroke="#000" stroke-opacity="0.55" stroke-width="1"/>', tx) end
      s.add("</pattern>")
      f[i] = "url(#" .. pid .. ")"
    end
  end
  s.add("</defs>")
  return f
end

local function marker(s, kind, x, y, r, col, title)
  local t = title and ("<title>" .. esc(title) .. "</title>") or ""
  local a = string.format('fill="%s" stroke="#000" stroke-width="0.8"', col)
  if kind == "square" then s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" %s>%s</rect>', x - r, y - r,
      2 * r, 2 * r, a, t)
  elseif kind == "triangle" then s.add('<path d="M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z" %s>%s</path>', x, y - r * 1.2,
      x + r, y + r * 0.8, x - r, y + r * 0.8, a, t)
  elseif kind == "tri-down" then s.add('<path d="M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z" %s>%s</path>', x, y + r * 1.2,
      x + r, y - r * 0.8, x - r, y - r * 0.8, a, t)
  elseif kind == "diamond" then s.add('<path d="M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z" %s>%s</path>', x,
      y - r * 1.3, x + r, y, x, y + r * 1.3, x - r, y, a, t)
  elseif kind == "cross" then s.add('<path d="M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f" stroke="%s" stroke-width="2.2" fill="none">%s</path>', x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r, col, t)
  elseif kind == "plus" then s.add('<path d="M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f" stroke="%s" stroke-width="2.2" fill="none">%s</path>', x - r, y, x + r, y, x, y - r, x, y + r, col, t)
  elseif kind == "star" then
    local p = {}
    for k = 0, 9 do
      local ang, rr = math.pi / 2 + k * math.pi / 5, (k % 2 == 0) and r * 1.3 or r * 0.55
      p[#p + 1] = string.format("%.1f,%.1f", x + rr * math.cos(ang), y - rr * math.sin(ang))
    end
    s.add('<path d="M%s Z" %s>%s</path>', table.concat(p, " L"), a, t)
  else s.add('<circle cx="%.1f" cy="%.1f" r="%.1f" %s>%s</circle>', x, y, r, a, t) end
end
M.markers = markers

--- Legend: entries {{name=, fill= | marker= + colour=, dash=}} in a row under the title
-- (or a column at x, y).
local function legend(s, entries, x, y, vertical, maxw, dry)
  local cx, cy = x, y
  for _, e in ipairs(entries) do
    local label = esc(M.short(e.name, 32))
    local w = 32 + 7.6 * (utf8.len(M.short(e.name, 32)) or 33)
    if not vertical and cx > x and cx + w > x + (maxw or 1e9) then cx = x; cy = cy + 16 end
    if dry then goto next end
    if e.fill then s.add('<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s" stroke="#000" stroke-width="0.6"/>',
        cx, cy - 10, e.fill)
    elseif e.marker then
      if e.line then s.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>', cx - 2, cy - 4, cx + 14, cy - 4, e.colour, e.dash or "") end
      if e.marker ~= "none" then marker(s, e.marker, cx + 6, cy - 4, 4, e.colour) end
    end
    s.add('<text x="%.1f" y="%.1f">%s</text>', cx + 18, cy, label)
    ::next::
    if vertical then cy = cy + 16 else cx = cx + w end
  end
  return cy
end

--- rows a legend takes when laid out in a width
local function legend_rows(entries, maxw)
  return (legend(nil, entries, 0, 0, false, maxw, true)) // 16 + 1
end

local function axis_x(s, X, tk, y0, y1, fmt, label, x_mid)
  for _, v in ipairs(tk) do
    local x = X(v)
    s.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>', x, y0, x, y1)
    s.add('<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>', x, y1 + 15, esc(fmt(v)))
  end
  if label then s.add('<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>', x_mid, y1 + 34, esc(label)) end
end

local function axis_y(s, Y, tk, x0, x1, fmt, label, y_mid)
  for _, v in ipairs(tk) do
    local y = Y(v)
    s.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>', x0, y, x1, y)
    s.add('<text x="%.1f" y="%.1f" text-anchor="end">%s</text>', x0 - 5, y + 4, esc(fmt(v)))
  end
  if label then s.add('<text x="14" y="%.1f" text-anchor="middle" transform="rotate(-90 14 %.1f)">%s</text>', y_mid,
      y_mid, esc(label)) end
end

local function value_text(o, v) return (o.format or M.num)(v) end

-- ---- bars -----------------------------------------------------------------

--- bars{categories = {label...}, series = {{name=, values={v...}, titles={text...}}...},
--   stacked = bool, horizontal = bool, log = bool (value axis), value_label =, category_label =,
--   format = function(v) -> text, title =, subtitle =, width =, height =, base = {v...} (floating bars)}
function M.bars(o)
  local cats, series = o.categories or {}, o.series or {}
  local n, ns = #cats, #series
  local horiz = o.horizontal
  local W = o.width or 760
  local band = horiz and (o.stacked and 20 or math.max(12, 8 * ns + 6)) or nil
  local lab_chars = 4
  local maxlab = o.label_chars or 40
  for _, c in ipairs(cats) do lab_chars = math.max(lab_chars, utf8.len(M.short(c, maxlab)) or maxlab + 1) end
  local ml = horiz and (16 + 8.2 * lab_chars) or 70
  local entries = {}
  for i, se in ipairs(series) do entries[i] = { name = se.name or ("series " .. i), fill = "#000" } end
  local lrows = ns > 1 and legend_rows(entries, W - 20) or 0
  local mt = (o.title and 44 or 12) + 18 * lrows + (o.subtitle and 14 or 0)
  local short_cats = lab_chars <= 6      -- short category labels stand upright
  local mb = horiz and 48 or (short_cats and 54 or 90)
  local H = o.height or (horiz and (mt + mb + math.max(1, n) * band) or 380)
  local s = new_svg(W, H, o)
  local f = fills(s, ns)
  for i = 1, ns do entries[i].fill = f[i] end
  if ns > 1 then legend(s, entries, 10, mt - 16 * lrows + 6, false, W - 20) end
  local x0, x1, y0, y1 = ml, W - (o.labels and 60 or 20), mt, H - mb
  -- value range
  local lo, hi = math.huge, -math.huge
  for c = 1, n do
    local acc, accn = (o.base and o.base[c]) or 0, (o.base and o.base[c]) or 0
    for i = 1, ns do
      local v = series[i].values[c]
      if v and v == v then
        if o.stacked then
          if v >= 0 then acc = acc + v; hi = math.max(hi, acc) else accn = accn + v; lo = math.min(lo, accn) end
          lo = math.min(lo, acc, accn); hi = math.max(hi, acc, accn)
        else
          local b = (o.base and o.base[c]) or 0
          lo = math.min(lo, v, b, b + v); hi = math.max(hi, v, b, b + v)
          if not o.base then lo = math.min(lo, v); hi = math.max(hi, v) end
        end
      end
    end
  end
  if lo == math.huge then lo, hi = 0, 1 end
  if o.log then
    local mn = math.huge
    for i = 1, ns do for c = 1, n do local v = series[i].values[c]; if v and v > 0 then mn = math.min(mn, v) end end end
    lo = mn < math.huge and mn or 1
  else lo = o.min or math.min(lo, 0) end
  if o.max then hi = math.max(hi, o.max) end
  local V, tk, vlo = scale(lo, hi, horiz and x0 or y1, horiz and x1 or y0, o.log)
  local base0 = o.log and vlo or 0
  local fmt = o.format or M.num
  if horiz then
    axis_x(s, V, tk, y0, y1, fmt, o.value_label, (x0 + x1) / 2)
  else
    axis_y(s, V, tk, x0, x1, fmt, o.value_label, (y0 + y1) / 2)
  end
  s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>', x0, y0, x1 - x0, y1 - y0)
  local bw = horiz and band or (y1 - y0 > 0 and (x1 - x0) / math.max(n, 1)) or 1
  for c = 1, n do
    local p = (horiz and y0 or x0) + (c - 1) * bw
    local label = M.short(cats[c], horiz and maxlab or 16)
    if horiz then
      s.add('<text x="%.1f" y="%.1f" text-anchor="end"><title>%s</title>%s</text>', x0 - 5, p + bw / 2 + 4,
          esc(cats[c]), esc(label))
    else
      if short_cats then
        s.add('<text x="%.1f" y="%.1f" text-anchor="middle"><title>%s</title>%s</text>', p + bw / 2, y1 + 15,
            esc(cats[c]), esc(label))
      else
        s.add('<text x="%.1f" y="%.1f" text-anchor="end" transform="rotate(-40 %.1f %.1f)"><title>%s</title>%s</text>',
          p + bw / 2, y1 + 14, p + bw / 2, y1 + 14, esc(cats[c]), esc(label))
      end
    end
    local acc, accn = (o.base and o.base[c]) or base0, (o.base and o.base[c]) or base0
    for i = 1, ns do
      local v = series[i].values[c]
      if v and v == v then
        local a, b
        if o.stacked then
          if v >= 0 then a, b = acc, acc + v; acc = b else a, b = accn + v, accn; accn = a end
        else
          local bb = (o.base and o.base[c]) or base0
          if o.base then a, b = math.min(bb, bb + v), math.max(bb, bb + v) else a, b = math.min(bb, v),
              math.max(bb, v) end
        end
        local pa, pb = V(a), V(b)
        local w = o.stacked and bw * 0.7 or bw * 0.8 / ns
        local off = o.stacked and bw * 0.15 or bw * 0.1 + (i - 1) * w
        local tip = (series[i].titles and series[i].titles[c]) or string.format("%s%s: %s", cats[c],
          ns > 1 and (" · " .. (series[i].name or "")) or "", fmt(v))
        local fill = (series[i].fills and series[i].fills[c]) or f[i]
        if horiz then
          s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#000" stroke-width="0.5"><title>%s</title></rect>',
            math.min(pa, pb), p + off, math.max(math.abs(pb - pa), 0.5), w, fill, esc(tip))
        else
          s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#000" stroke-width="0.5"><title>%s</title></rect>',
            p + off, math.min(pa, pb), w, math.max(math.abs(pb - pa), 0.5), fill, esc(tip))
        end
        if o.labels and horiz and not o.stacked then
          s.add('<text x="%.1f" y="%.1f" font-size="10">%s</text>', math.max(pa, pb) + 3, p + off + w / 2 + 3,
              esc(fmt(v)))
        end
      end
    end
  end
  if o.category_label then
    if horiz then s.add('<text x="10" y="%.1f" font-weight="bold">%s</text>', y0 - 4, esc(o.category_label))
    else s.add('<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>', (x0 + x1) / 2, H - (short_cats and 14 or 6),
        esc(o.category_label)) end
  end
  return s.finish()
end

--- waterfall{items = {{label=, delta=, title=}...}, start = v, start_label =, end_label =, ...}:
-- floating bars from a starting total through each change to the final total;
-- increases and decreases differ by colour and texture.
function M.waterfall(o)
  local cats, base, up, down, tot, titles = {}, {}, {}, {}, {}, {}
  local fmt = o.format or M.num
  local acc = o.start or 0
  cats[1] = o.start_label or "before"; base[1] = 0; tot[1] = acc
  for i, it in ipairs(o.items or {}) do
    local k = i + 1
    cats[k] = it.label
    base[k] = acc
    if it.delta >= 0 then up[k] = it.delta else down[k] = it.delta end
    titles[k] = it.title or string.format("%s: %s%s", it.label, it.delta >= 0 and "+" or "", fmt(it.delta))
    acc = acc + it.delta
  end
  local k = #cats + 1
  cats[k] = o.end_label or "after"; base[k] = 0; tot[k] = acc
  -- the value axis starts near the lowest running total, so that changes
  -- small beside the totals stay visible (the subtitle says so)
  local lo, hi = math.min(o.start or 0, acc), math.max(o.start or 0, acc)
  local run = o.start or 0
  for _, it in ipairs(o.items or {}) do run = run + it.delta; lo = math.min(lo, run); hi = math.max(hi, run) end
  local floor = 0
  if lo > 0 and hi > lo then
    local _, a = ticks(math.max(0, lo - 0.15 * (hi - lo)), hi, false)
    floor = math.max(0, a)
  end
  if floor > 0 then
    base[1], base[k] = floor, floor
    tot[1], tot[k] = (o.start or 0) - floor, acc - floor
  end
  local ttl = { [1] = string.format("%s: %s", cats[1], fmt(o.start or 0)),
      [k] = string.format("%s: %s", cats[k], fmt(acc)) }
  return M.bars {
    title = o.title, categories = cats, base = base, horizontal = o.horizontal,
    value_label = o.value_label, format = fmt, width = o.width, height = o.height, id = o.id,
    min = floor > 0 and floor or nil,
    subtitle = floor > 0 and ((o.subtitle and (o.subtitle .. "; ") or "") .. "the axis starts at " .. fmt(floor))
        or o.subtitle,
    series = { { name = "total", values = tot, titles = ttl }, { name = "slower (+)", values = up, titles = titles },
               { name = "faster (−)", values = down, titles = titles } },
    stacked = true,
  }
end

-- ---- x/y plots --------------------------------------------------------------

--- plot{series = {{name=, points = {{x, y, title=}...}, line = bool, marker = bool, size = {r...}}...},
--   x_log =, y_log =, x_label =, y_label =, x_min/x_max/y_min/y_max =, x_format =, y_format =,
--   regions = {{x0=, x1=, y0=, y1=, label=, fill=}...}, vlines = {{x=, label=}...}, hlines = {{y=, label=}...},
--   labels = {{x=, y=, text=}...}}
function M.plot(o)
  local W, H = o.width or 760, o.height or 420
  local series = o.series or {}
  local entries = {}
  for i, se in ipairs(series) do
    entries[i] = { name = se.name or ("series " .. i), marker = se.marker ~= false
        and (se.marker_shape or markers[(i - 1) % #markers + 1]) or "none",
      colour = se.colour or M.palette[(i - 1) % #M.palette + 1], line = se.line ~= false,
          dash = dashes[(i - 1) % #dashes + 1] }
  end
  local ml, mr, mb = 76, 20, 50
  local lrows = (#series > 0 and o.legend ~= false) and legend_rows(entries, W - ml - mr) or 0
  local mt = (o.title and 44 or 12) + (o.subtitle and 14 or 0) + 16 * lrows + 4
  local s = new_svg(W, H, o)
  local xlo, xhi, ylo, yhi = math.huge, -math.huge, math.huge, -math.huge
  local function take(x, y)
    if x and x == x and (not o.x_log or x > 0) then xlo = math.min(xlo, x); xhi = math.max(xhi, x) end
    if y and y == y and (not o.y_log or y > 0) then ylo = math.min(ylo, y); yhi = math.max(yhi, y) end
  end
  for _, se in ipairs(series) do for _, p in ipairs(se.points or {}) do take(p[1], p[2]) end end
  for _, r in ipairs(o.regions or {}) do take(r.x0, r.y0); take(r.x1, r.y1) end
  for _, v in ipairs(o.vlines or {}) do take(v.x, nil) end
  for _, h in ipairs(o.hlines or {}) do take(nil, h.y) end
  if xlo == math.huge then xlo, xhi = o.x_log and 1 or 0, o.x_log and 10 or 1 end
  if ylo == math.huge then ylo, yhi = o.y_log and 1 or 0, o.y_log and 10 or 1 end
  if not o.y_log and ylo > 0 then ylo = 0 end
  xlo, xhi = o.x_min or xlo, o.x_max or xhi
  ylo, yhi = o.y_min or ylo, o.y_max or yhi
  local x0, x1, y0, y1 = ml, W - mr, mt, H - mb
  local X, xt = scale(xlo, xhi, x0, x1, o.x_log, o.x_nice)
  local Y, yt = scale(ylo, yhi, y1, y0, o.y_log, o.y_nice)
  s.add('<defs><clipPath id="%s-clip"><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f"/></clipPath></defs>', s.id,
      x0, y0, x1 - x0, y1 - y0)
  for _, r in ipairs(o.regions or {}) do
    local a, b = X(r.x0), X(r.x1)
    local c, d = Y(r.y0), Y(r.y1)
    s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.35" clip-path="url(#%s-clip)"><title>%s</title></rect>',
      math.min(a, b), math.min(c, d), math.abs(b - a), math.abs(d - c), r.fill or "#eee", s.id,
          esc(r.label or "region"))
    if r.label then s.add('<text x="%.1f" y="%.1f" font-size="10" fill="#444">%s</text>', math.min(a, b) + 3,
        math.min(c, d) + 12, esc(r.label)) end
  end
  axis_x(s, X, xt, y0, y1, o.x_format or M.num, o.x_label, (x0 + x1) / 2)
  axis_y(s, Y, yt, x0, x1, o.y_format or M.num, o.y_label, (y0 + y1) / 2)
  s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>', x0, y0, x1 - x0, y1 - y0)
  for _, v in ipairs(o.vlines or {}) do
    s.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-dasharray="4 3"><title>%s</title></line>', X(v.x), y0, X(v.x), y1, esc(v.label or M.num(v.x)))
    if v.label then
      -- a line in the right third is labelled to its left, so the text stays inside the plot
      local right = X(v.x) > x0 + 0.67 * (x1 - x0)
      s.add('<text x="%.1f" y="%.1f" font-size="10"%s>%s</text>', X(v.x) + (right and -3 or 3), y0 + 12,
        right and ' text-anchor="end"' or '', esc(v.label))
    end
  end
  for _, h in ipairs(o.hlines or {}) do
    s.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-dasharray="4 3"><title>%s</title></line>', x0, Y(h.y), x1, Y(h.y), esc(h.label or M.num(h.y)))
    if h.label then s.add('<text x="%.1f" y="%.1f" font-size="10" text-anchor="end">%s</text>', x1 - 3, Y(h.y) - 3,
        esc(h.label)) end
  end
  s.add('<g clip-path="url(#%s-clip)">', s.id)
  for i, se in ipairs(series) do
    local col = se.colour or M.palette[(i - 1) % #M.palette + 1]
    local mk = se.marker_shape or markers[(i - 1) % #markers + 1]
    local dash = dashes[(i - 1) % #dashes + 1]
    local pts = {}
    for _, p in ipairs(se.points or {}) do
      if p[1] == p[1] and p[2] == p[2] and (not o.x_log or p[1] > 0) and (not o.y_log or p[2] > 0) then
        pts[#pts + 1] = string.format("%.1f,%.1f", X(p[1]), Y(p[2]))
      end
    end
    if se.line ~= false and #pts > 1 then
      s.add('<polyline points="%s" fill="none" stroke="%s" stroke-width="2" stroke-dasharray="%s"><title>%s</title></polyline>',
        table.concat(pts, " "), col, dash, esc(se.name or ("series " .. i)))
    end
    if se.marker ~= false then
      for k, p in ipairs(se.points or {}) do
        if p[1] == p[1] and p[2] == p[2] and (not o.x_log or p[1] > 0) and (not o.y_log or p[2] > 0) then
          local r = (se.size and se.size[k]) or p.r or 4
          marker(s, p.marker or mk, X(p[1]), Y(p[2]), r, p.colour or col,
            p.title or string.format("%s: %s, %s", se.name or "", (o.x_format or M.num)(p[1]),
                (o.y_format or M.num)(p[2])))
        end
      end
    end
  end
  for _, l in ipairs(o.labels or {}) do
    s.add('<text x="%.1f" y="%.1f" font-size="10" fill="#222">%s</text>', X(l.x) + 6, Y(l.y) - 4,
        esc(M.short(l.text, 30)))
  end
  s.add("</g>")
  if lrows > 0 then legend(s, entries, x0, mt - 16 * lrows + 8, false, x1 - x0) end
  return s.finish()
end

--- histogram{bins = {{lo, hi, count}...}, marks = {{x=, label=}...}, x_label=, y_label=, x_log=, ...}:
-- one bar per bin (hover: range and count); marks are dashed lines (thresholds, outliers).
--- Argument checks that name the bad argument: "chart.histogram: bins[3]
--- must be {lo, hi, count}, got a string".
local function bad(fn, what, want, v, shown)
  error(string.format("chart.%s: %s must be %s, got %s", fn, what, want, shown or
    (type(v) == "table" and "a table" or (type(v) == "string" and string.format("a string (%q)", v)) or tostring(v))),
        3)
end
local function check_opts(fn, o, numbers)
  if type(o) ~= "table" then bad(fn, "its argument", "a table of options", o) end
  for _, k in ipairs(numbers or {}) do
    if o[k] ~= nil and type(o[k]) ~= "number" then bad(fn, k, "a number", o[k]) end
  end
end

--- histogram(o) or histogram(h [, o]): bins = {{lo, hi, count}...}; or the
--- result of perflab.stats.histogram (edges, counts, under, over) as it is.
function M.histogram(o, extra)
  if type(o) == "table" and o.edges ~= nil and o.counts ~= nil and o.bins == nil then
    -- stats.histogram's {edges, counts}: n + 1 edges, n counts
    local h, bins = o, {}
    if type(h.edges) ~= "table" then bad("histogram", "edges", "a list of numbers", h.edges) end
    if type(h.counts) ~= "table" then bad("histogram", "counts", "a list of numbers", h.counts) end
    if #h.edges ~= #h.counts + 1 then
      error(string.format("chart.histogram: edges must have one more entry than counts (%d edges, %d counts)",
          #h.edges, #h.counts), 2)
    end
    for i = 1, #h.counts do bins[i] = { h.edges[i], h.edges[i + 1], h.counts[i] } end
    o = {}
    for k, v in pairs(extra or {}) do o[k] = v end
    o.bins = bins
  elseif extra ~= nil then
    error("chart.histogram: a second argument (options) goes with a perflab.stats.histogram result as the first", 2)
  end
  check_opts("histogram", o, { "width", "height" })
  if o.bins ~= nil and type(o.bins) ~= "table" then bad("histogram", "bins", "a list of {lo, hi, count}", o.bins) end
  for i, b in ipairs(o.bins or {}) do
    if type(b) ~= "table" or type(b[1]) ~= "number" or type(b[2]) ~= "number" or type(b[3]) ~= "number" then
      bad("histogram", string.format("bins[%d]", i), "{lo, hi, count} (three numbers)", b, type(b) == "table" and
        string.format("{%s, %s, %s}", tostring(b[1]), tostring(b[2]), tostring(b[3])) or nil)
    end
  end
  for i, m in ipairs(o.marks or {}) do
    if type(m) ~= "table" or type(m.x) ~= "number" then bad("histogram", string.format("marks[%d].x", i), "a number",
        type(m) == "table" and m.x or m) end
  end
  local W, H = o.width or 760, o.height or 360
  local mt = (o.title and 44 or 12) + (o.subtitle and 14 or 0) + (o.legend and 20 or 0)
  local s = new_svg(W, H, o)
  local x0, x1, y0, y1 = 70, W - 20, mt, H - 50
  local lo, hi, top = math.huge, -math.huge, 0
  for _, b in ipairs(o.bins or {}) do lo = math.min(lo, b[1]); hi = math.max(hi, b[2]); top = math.max(top, b[3]) end
  for _, m in ipairs(o.marks or {}) do lo = math.min(lo, m.x); hi = math.max(hi, m.x) end
  if lo == math.huge then lo, hi = 0, 1 end
  local xf = o.x_format or M.num
  local X, xt = scale(lo, hi, x0, x1, o.x_log, false)
  local Y, yt = scale(0, math.max(top, 1), y1, y0, o.y_log)
  axis_x(s, X, xt, y0, y1, xf, o.x_label, (x0 + x1) / 2)
  axis_y(s, Y, yt, x0, x1, M.num, o.y_label or "count", (y0 + y1) / 2)
  local f = fills(s, 2)
  for _, b in ipairs(o.bins or {}) do
    if b[3] > 0 then
      local a, c = X(b[1]), X(b[2])
      s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#000" stroke-width="0.5"><title>%s</title></rect>',
        a, Y(b[3]), math.max(c - a, 0.8), y1 - Y(b[3]), b.outlier and f[2] or f[1],
        esc(b.title or string.format("%s – %s: %d", xf(b[1]), xf(b[2]), b[3])))
    end
  end
  s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>', x0, y0, x1 - x0, y1 - y0)
  for k, m in ipairs(o.marks or {}) do
    local x = X(m.x)
    s.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="%s"><title>%s</title></line>',
      x, y0, x, y1, m.colour or "#000", dashes[(k % #dashes) + 1], esc(m.label or xf(m.x)))
    if m.label then
      local right = x > x1 - 150
      s.add('<text x="%.1f" y="%.1f" font-size="10" text-anchor="%s" fill="#000" stroke="#fff" stroke-width="3" paint-order="stroke">%s</text>',
        right and x - 3 or x + 3, y0 + 12 * k, right and "end" or "start", esc(M.short(m.label, 40)))
    end
  end
  if o.legend then legend(s, { { name = o.legend[1], fill = f[1] }, { name = o.legend[2], fill = f[2] } }, x0, y0 - 8,
      false) end
  return s.finish()
end

-- ---- heat map ---------------------------------------------------------------

-- viridis, sampled: perceptually ordered, readable in grey and by colour-blind readers
local ramp = { { 68, 1, 84 }, { 59, 82, 139 }, { 33, 145, 140 }, { 94, 201, 98 }, { 253, 231, 37 } }
local function ramp_colour(t)
  t = math.max(0, math.min(1, t)) * (#ramp - 1)
  local i = math.min(math.floor(t), #ramp - 2)
  local f = t - i
  local a, b = ramp[i + 1], ramp[i + 2]
  return string.format("#%02x%02x%02x", math.floor(a[1] + (b[1] - a[1]) * f + 0.5),
    math.floor(a[2] + (b[2] - a[2]) * f + 0.5), math.floor(a[3] + (b[3] - a[3]) * f + 0.5)), t / (#ramp - 1)
end
M.ramp_colour = ramp_colour

--- heatmap{rows = {label...}, cols = {label...}, values = {{v...}...} (values[r][c], nil = none),
--   row_label =, col_label =, format =, title =}: one cell per value, a colour bar.
function M.heatmap(o)
  local rows, cols = o.rows or {}, o.cols or {}
  local ml = 20 + 7 * math.min(30, (function() local m = 4; for _,
      r in ipairs(rows) do m = math.max(m, utf8.len(M.short(r, 30)) or 30) end return m end)())
  local mt = (o.title and 44 or 12) + (o.subtitle and 14 or 0)
  local cw = math.max(8, math.min(48, math.floor(((o.width or 760) - ml - 90) / math.max(#cols, 1))))
  local ch = math.max(10, math.min(28, math.floor(400 / math.max(#rows, 1))))
  local W = o.width or math.max(360, ml + cw * #cols + 100)
  local H = mt + ch * #rows + 60
  local s = new_svg(W, H, o)
  local fmt = o.format or M.num
  local lo, hi = math.huge, -math.huge
  for r = 1, #rows do for c = 1, #cols do
    local v = o.values[r] and o.values[r][c]
    if v and v == v then lo = math.min(lo, v); hi = math.max(hi, v) end
  end end
  if lo == math.huge then lo, hi = 0, 1 end
  local span = hi > lo and hi - lo or 1
  for r = 1, #rows do
    local y = mt + (r - 1) * ch
    s.add('<text x="%.1f" y="%.1f" text-anchor="end"><title>%s</title>%s</text>', ml - 5, y + ch / 2 + 4, esc(rows[r]),
        esc(M.short(rows[r], 30)))
    for c = 1, #cols do
      local v = o.values[r] and o.values[r][c]
      local x = ml + (c - 1) * cw
      if v and v == v then
        local col, t = ramp_colour((v - lo) / span)
        s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#fff" stroke-width="0.5"><title>%s</title></rect>',
          x, y, cw, ch, col, esc(string.format("%s · %s: %s", rows[r], cols[c], fmt(v))))
        -- the value in the cell only where it fits (9 px text: about 5.3 px a character)
        local lab = fmt(v)
        if cw >= 34 and ch >= 14 and utf8.len(lab) and utf8.len(lab) * 5.3 <= cw - 2 then
          s.add('<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9" fill="%s">%s</text>', x + cw / 2,
              y + ch / 2 + 3,
            t > 0.6 and "#000" or "#fff", esc(lab))
        end
      else
        s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#fff" stroke="#ccc" stroke-width="0.5"><title>%s</title></rect>',
          x, y, cw, ch, esc(string.format("%s · %s: no value", rows[r], cols[c])))
      end
    end
  end
  local step = math.max(1, math.ceil(#cols / math.max(1, math.floor(cw * #cols / 40))))
  for c = 1, #cols, step do
    s.add('<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10">%s</text>', ml + (c - 0.5) * cw,
        mt + ch * #rows + 14, esc(M.short(cols[c], 8)))
  end
  if o.col_label then s.add('<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>', ml + cw * #cols / 2,
      mt + ch * #rows + 32, esc(o.col_label)) end
  if o.row_label then s.add('<text x="10" y="%.1f" font-weight="bold">%s</text>', mt - 4, esc(o.row_label)) end
  -- colour bar
  local bx, by, bh = ml + cw * #cols + 16, mt, math.max(60, ch * #rows)
  for k = 0, 19 do
    s.add('<rect x="%.1f" y="%.1f" width="14" height="%.1f" fill="%s"/>', bx, by + bh * (19 - k) / 20, bh / 20 + 0.5,
        (ramp_colour(k / 19)))
  end
  s.add('<rect x="%.1f" y="%.1f" width="14" height="%.1f" fill="none" stroke="#333"/>', bx, by, bh)
  s.add('<text x="%.1f" y="%.1f" font-size="10">%s</text>', bx + 18, by + 9, esc(fmt(hi)))
  s.add('<text x="%.1f" y="%.1f" font-size="10">%s</text>', bx + 18, by + bh, esc(fmt(lo)))
  return s.finish()
end

-- ---- Gantt ----------------------------------------------------------------

--- gantt{lanes = {label...}, items = {{lane=, start=, finish=, label=, title=, kind=}...},
--   kinds = {name...} (legend order), links = {{from_lane=, from=, to_lane=, to=, title=}...},
--   t0 =, t1 = (window), time_format =, time_label =}: one row per lane, a bar per item
--   (colour and texture by kind), arrows for links.
function M.gantt(o)
  local lanes = o.lanes or {}
  local kinds = o.kinds or {}
  local kidx = {}
  for i, k in ipairs(kinds) do kidx[k] = i end
  for _, it in ipairs(o.items or {}) do
    if it.kind and not kidx[it.kind] then kinds[#kinds + 1] = it.kind; kidx[it.kind] = #kinds end
  end
  local lh = 22
  local ml = 20 + 7 * math.min(28, (function() local m = 4; for _,
      r in ipairs(lanes) do m = math.max(m, utf8.len(M.short(r, 28)) or 28) end return m end)())
  local mt = (o.title and 44 or 12) + (o.subtitle and 14 or 0) + 18
  local W = o.width or 960
  local H = mt + lh * #lanes + 50
  local s = new_svg(W, H, o)
  local f = fills(s, math.max(#kinds, 1))
  -- o.kind_fills: a fixed colour for some kinds (e.g. grey for context)
  for i, k in ipairs(kinds) do if o.kind_fills and o.kind_fills[k] then f[i] = o.kind_fills[k] end end
  s.add('<defs><marker id="%s-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L8,4 L0,8 Z" fill="#333"/></marker></defs>', s.id)
  local t0, t1 = o.t0, o.t1
  if not t0 then
    t0, t1 = math.huge, -math.huge
    for _, it in ipairs(o.items or {}) do t0 = math.min(t0, it.start); t1 = math.max(t1, it.finish) end
    if t0 == math.huge then t0, t1 = 0, 1 end
  end
  local x0, x1 = ml, W - 20
  local X, xt = scale(0, t1 - t0, x0, x1, false, false)
  local tf = o.time_format or M.num
  s.add('<defs><clipPath id="%s-clip"><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f"/></clipPath></defs>', s.id,
      x0, mt, x1 - x0, lh * #lanes)
  axis_x(s, X, xt, mt, mt + lh * #lanes, tf, o.time_label, (x0 + x1) / 2)
  local lane_of = {}
  for i, l in ipairs(lanes) do
    lane_of[l] = i
    local y = mt + (i - 1) * lh
    if i % 2 == 0 then s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="#000" fill-opacity="0.04"/>', x0,
        y, x1 - x0, lh) end
    s.add('<text x="%.1f" y="%.1f" text-anchor="end"><title>%s</title>%s</text>', x0 - 5, y + lh / 2 + 4, esc(l),
        esc(M.short(l, 28)))
  end
  s.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="none" stroke="#333"/>', x0, mt, x1 - x0, lh * #lanes)
  s.add('<g clip-path="url(#%s-clip)">', s.id)
  for _, it in ipairs(o.items or {}) do
    local li = type(it.lane) == "number" and it.lane or lane_of[it.lane]
    if li and it.finish >= t0 and it.start <= t1 then
      local a, b = X(math.max(it.start, t0) - t0), X(math.min(it.finish, t1) - t0)
      local y = mt + (li - 1) * lh
      -- no outline on slivers: a crowd of them would read as black
      s.add('<rect x="%.2f" y="%.1f" width="%.2f" height="%d" fill="%s" stroke="%s" stroke-width="0.4"><title>%s</title></rect>',
        a, y + 3, math.max(b - a, 0.6), lh - 6, f[kidx[it.kind] or 1], b - a >= 3 and "#000" or "none",
        esc(it.title or string.format("%s: %s", it.label or "", tf(it.finish - it.start))))
      if b - a > 60 and it.label then
        s.add('<text x="%.1f" y="%.1f" font-size="9" fill="#000" stroke="#fff" stroke-width="2" paint-order="stroke">%s</text>', a + 2, y + lh / 2 + 3, esc(M.short(it.label, math.floor((b - a) / 6))))
      end
    end
  end
  for _, l in ipairs(o.links or {}) do
    local la = type(l.from_lane) == "number" and l.from_lane or lane_of[l.from_lane]
    local lb = type(l.to_lane) == "number" and l.to_lane or lane_of[l.to_lane]
    if la and lb and l.from >= t0 and l.to <= t1 then
      s.add('<line x1="%.2f" y1="%.1f" x2="%.2f" y2="%.1f" stroke="#333" stroke-width="0.8" marker-end="url(#%s-arrow)"><title>%s</title></line>',
        X(l.from - t0), mt + (la - 0.5) * lh, X(l.to - t0), mt + (lb - 0.5) * lh, s.id,
            esc(l.title or "launch → kernel"))
    end
  end
  s.add("</g>")
  local e = {}
  for i, k in ipairs(kinds) do e[i] = { name = k, fill = f[i] } end
  if #e > 0 then legend(s, e, x0, mt - 8, false, x1 - x0) end
  return s.finish()
end


--- 1.5 TFLOP/s: a value with an SI prefix and a unit (2 decimals).
function M.si(x, unit)
  for _, p in ipairs({ { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } }) do
    if math.abs(x) >= p[1] then return string.format("%g %s%s", math.floor(x / p[1] * 100 + 0.5) / 100, p[2], unit) end
  end
  return string.format("%g %s", math.floor(x * 100 + 0.5) / 100, unit)
end

-- ---- roofline -----------------------------------------------------------------

--- roofline{ ceilings = {{label=, flops=}...}, bandwidth = B/s,
---   bandwidth_label =, points = {{label=, ai=, flops=, share_pct=, title=}...},
---   title = } -> SVG text.  Log-log axes: arithmetic intensity (FLOP/byte)
--- and performance (FLOP/s); one horizontal ceiling per precision, the
--- bandwidth roof up to the highest ceiling, a marker at each ridge point,
--- one circle per kernel with area proportional to its share of time and a
--- <title> for hover text.
function M.roofline(c)
  local W, H = 860, 500
  local ml, mr, mt, mb = 110, 230, 40, 60
  local pw, ph = W - ml - mr, H - mt - mb
  local bw = c.bandwidth
  -- merge precisions with the same peak into one ceiling ("FP16 tensor / BF16 tensor")
  local ceilings, byval = {}, {}
  for _, ce in ipairs(c.ceilings or {}) do
    local e = byval[ce.flops]
    if e then
      if e.label:match(" tensor$") and ce.label:match(" tensor$") then
        e.label = e.label:gsub(" tensor$", "") .. "/" .. ce.label
      else
        e.label = e.label .. " / " .. ce.label
      end
    else e = { label = ce.label, flops = ce.flops }; byval[ce.flops] = e; ceilings[#ceilings + 1] = e end
  end
  table.sort(ceilings, function(a, b) return a.flops < b.flops end)
  local top = ceilings[#ceilings] and ceilings[#ceilings].flops or 1e12
  local lowc = ceilings[1] and ceilings[1].flops or top
  -- axis ranges (decades)
  local xmin_v, xmax_v = math.huge, 0
  local ymin_v, ymax_v = lowc, top
  for _, ce in ipairs(ceilings) do
    local r = ce.flops / bw
    xmin_v = math.min(xmin_v, r); xmax_v = math.max(xmax_v, r)
  end
  for _, pt in ipairs(c.points or {}) do
    if pt.ai and pt.ai > 0 and pt.flops and pt.flops > 0 then
      xmin_v = math.min(xmin_v, pt.ai); xmax_v = math.max(xmax_v, pt.ai)
      ymin_v = math.min(ymin_v, pt.flops); ymax_v = math.max(ymax_v, pt.flops)
    end
  end
  if xmin_v == math.huge then xmin_v, xmax_v = 0.1, 100 end
  local lx0 = math.floor(math.log(xmin_v, 10)) - 1
  local lx1 = math.ceil(math.log(xmax_v, 10)) + 1
  local ly1 = math.ceil(math.log(ymax_v, 10) + 0.05)
  local ly0 = math.min(math.floor(math.log(ymin_v, 10) - 0.3), ly1 - 3)
  ly0 = math.min(ly0, math.floor(math.log(bw * 10 ^ lx0, 10)))
  if ly1 - ly0 > 8 then ly0 = ly1 - 8 end
  local function X(v) return ml + (math.log(v, 10) - lx0) / (lx1 - lx0) * pw end
  local function Y(v) return mt + ph - (math.log(v, 10) - ly0) / (ly1 - ly0) * ph end
  local s = new_svg(W, H, { title = c.title or "Roofline" })
  local add = s.add
  add('<defs><clipPath id="%s-plot"><rect x="%d" y="%d" width="%d" height="%d"/></clipPath></defs>', s.id, ml, mt, pw,
      ph)
  -- grid and ticks
  for e = lx0, lx1 do
    local x = X(10 ^ e)
    add(string.format('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>', x, mt, x, mt + ph))
    add(string.format('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', x, mt + ph + 16,
        esc(string.format("%g", 10 ^ e))))
  end
  for e = ly0, ly1 do
    local y = Y(10 ^ e)
    add(string.format('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>', ml, y, ml + pw, y))
    add(string.format('<text x="%d" y="%.1f" text-anchor="end">%s</text>', ml - 6, y + 4, esc(M.si(10 ^ e, "FLOP/s"))))
  end
  add(string.format('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#333"/>', ml, mt, pw, ph))
  add(string.format('<text x="%.1f" y="%d" text-anchor="middle">Arithmetic intensity (FLOP/byte)</text>', ml + pw / 2,
      H - 18))
  add(string.format('<text x="16" y="%.1f" text-anchor="middle" transform="rotate(-90 16 %.1f)">Performance (FLOP/s)</text>', mt + ph / 2, mt + ph / 2))
  -- roofs
  add('<g clip-path="url(#%s-plot)">', s.id)
  local xlo, xhi = 10 ^ lx0, 10 ^ lx1
  local rtop = top / bw
  add(string.format('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="2"><title>%s</title></line>',
    X(xlo), Y(xlo * bw), X(rtop), Y(top), esc((c.bandwidth_label or "DRAM") .. " bandwidth " .. M.si(bw, "B/s"))))
  for i, ce in ipairs(ceilings) do
    local col = M.palette[(i - 1) % #M.palette + 1]
    local r = ce.flops / bw
    add(string.format('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="%s"><title>%s</title></line>',
      X(r), Y(ce.flops), X(xhi), Y(ce.flops), col, dashes[(i - 1) % #dashes + 1],
          esc(ce.label .. " peak " .. M.si(ce.flops, "FLOP/s"))))
    add(string.format('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s</title></circle>', X(r), Y(ce.flops),
        col,
      esc(string.format("%s ridge point: %.3g FLOP/byte", ce.label, r))))
  end
  add('</g>')
  -- legend (right margin)
  local ly = mt + 8
  add(string.format('<text x="%d" y="%d" font-weight="bold">Ceilings</text>', ml + pw + 12, ly)); ly = ly + 16
  add(string.format('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000" stroke-width="2"/>', ml + pw + 12, ly - 4,
      ml + pw + 30, ly - 4))
  add(string.format('<text x="%d" y="%d">%s %s</text>', ml + pw + 34, ly, esc(c.bandwidth_label or "DRAM"),
      esc(M.si(bw, "B/s")))); ly = ly + 16
  for i = #ceilings, 1, -1 do
    local ce = ceilings[i]
    local col = M.palette[(i - 1) % #M.palette + 1]
    add(string.format('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>',
        ml + pw + 12, ly - 4, ml + pw + 30, ly - 4, col, dashes[(i - 1) % #dashes + 1]))
    add(string.format('<text x="%d" y="%d">%s %s</text>', ml + pw + 34, ly, esc(ce.label),
        esc(M.si(ce.flops, "FLOP/s")))); ly = ly + 16
  end
  add(string.format('<text x="%d" y="%d" fill="#555">circle area = share of time;</text>', ml + pw + 12, ly + 8))
  add(string.format('<text x="%d" y="%d" fill="#555">× above the roof</text>', ml + pw + 12, ly + 22))
  -- points
  add('<g clip-path="url(#%s-plot)">', s.id)
  for _, pt in ipairs(c.points or {}) do
    if pt.ai and pt.ai > 0 and pt.flops and pt.flops > 0 then
      local share = pt.share_pct or 0
      local rad = 3 + 22 * math.sqrt(math.max(share, 0) / 100)
      local tip = pt.title or string.format("%s: %.3g FLOP/byte, %s, %.1f %% of time", pt.label or "kernel", pt.ai,
          M.si(pt.flops, "FLOP/s"), share)
      if pt.above_roof then
        marker(s, "cross", X(pt.ai), Y(pt.flops), rad, "#D55E00", tip)
      else
        add(string.format('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="#56B4E9" fill-opacity="0.55" stroke="#333"><title>%s</title></circle>',
          X(pt.ai), Y(pt.flops), rad, esc(tip)))
      end
    end
  end
  -- labels for the biggest points (by share of time)
  local big = {}
  for _, pt in ipairs(c.points or {}) do
    if pt.ai and pt.ai > 0 and pt.flops and pt.flops > 0 and pt.label then big[#big + 1] = { pt = pt, i = #big + 1 } end
  end
  table.sort(big, function(a, b)
    local x, y = a.pt.share_pct or 0, b.pt.share_pct or 0
    if x ~= y then return x > y end
    return a.i < b.i
  end)
  for k, e in ipairs(big) do big[k] = e.pt end
  for i = 1, math.min(c.max_labels or 6, #big) do
    local pt = big[i]
    local rad = 3 + 22 * math.sqrt(math.max(pt.share_pct or 0, 0) / 100)
    local lab = pt.label
    if #lab > 28 then lab = lab:sub(1, 27) .. "…" end
    add(string.format('<text x="%.1f" y="%.1f" font-size="10" fill="#333">%s</text>', X(pt.ai) + rad + 2,
        Y(pt.flops) + 3, esc(lab)))
  end
  add('</g>')
  return s.finish()
end

--- save(svg, path) -> path: writes a chart (the SVG text every chart
--- function returns) to path, atomically.  A path ending in .png is
--- converted with rsvg-convert (Debian: librsvg2-bin), an error naming it
--- when it is not installed; .svg (or anything else) is written as it is.
function M.save(svg, path)
  if type(svg) ~= "string" or not svg:find("<svg", 1, true) then bad("save", "the figure (argument 1)",
      "SVG text from a chart function", svg) end
  if type(path) ~= "string" or path == "" then bad("save", "the path (argument 2)", "a file name", path) end
  local sys = require "perflab.sys"
  local errors = require "perflab.errors"
  if path:lower():match("%.png$") then
    local tmp = path .. ".tmp.svg"
    local ok, e = sys.write_atomic(tmp, svg)
    if not ok then errors.fail("chart.save: cannot write " .. e) end
    local q = function(x) return "'" .. x:gsub("'", "'\\''") .. "'" end
    local okc = os.execute("command -v rsvg-convert >/dev/null 2>&1")
    if not okc then
      os.remove(tmp)
      errors.fail("chart.save: PNG needs rsvg-convert (Debian: apt-get install librsvg2-bin); save as .svg instead")
    end
    local okr = os.execute("rsvg-convert -f png -o " .. q(path) .. " " .. q(tmp))
    os.remove(tmp)
    if not okr then errors.fail("chart.save: rsvg-convert could not convert the chart to " .. path) end
    return path
  end
  local ok, e = sys.write_atomic(path, svg)
  if not ok then errors.fail("chart.save: cannot write " .. e) end
  return path
end

return M

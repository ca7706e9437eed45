--- perflab.trace: a profile's timeline as tracks of events, and its export
-- as Chrome-trace JSON (what ui.perfetto.dev and chrome://tracing open).
--   trace.collect(p [, opts]) -> {tracks, gpu, cpu, flows, t0, t1, what, truncated}
--     opts.window = {start_ns, end_ns}; opts.slowest_step: the longest
--     ProfilerStep when the trace has steps; opts.max_events: keep the
--     first N device events of the window (for a figure).
--   trace.chrome(p [, opts]) -> JSON text (opts as collect)
-- Sources: kernels, memcpy and memset with start times (Kineto, nvprof GPU
-- trace, rocprof kernel trace, nsys), runtime calls and cpu ops (Kineto).
-- Tracks: one per device stream (pid = device, tid = stream) and one per
-- CPU thread (pid, tid as the trace gives them), named with "M" events;
-- launch -> kernel flows ("s" on the runtime call, "f" with bp "e" on the
-- kernel, cat "ac2g", id = correlation id), as Kineto writes them.
-- Timestamps are microseconds with three decimals, relative to
-- baseTimeNanoseconds, so every nanosecond is kept.
local json = require "perflab.json"
local T = require "perflab.table"
local errors = require "perflab.errors"

local M = {}

local function cols(t, names)
  local out = {}
  for i, c in ipairs(names) do out[i] = t:has(c) and t:col(c):to_lua() or {} end
  return out
end

local function int(v) if v == nil then return nil end; return math.floor(v + 0.5) end

--- Column `name` of t in whole nanoseconds (a float rounded to the
-- nearest: int above); integer columns, what the parsers give, as they are.
local function ns_col(t, name)
  local c = t:col(name)
  if c:type() == "integer" then return c end
  local a, n = c:to_lua(), t:nrows()
  for i = 1, n do if a[i] then a[i] = int(a[i]) end end
  return t:select(name):add_column("_ns", setmetatable(a, { __len = function() return n end }), "integer"):col("_ns")
end

--- Mask of the events [s, s + d] that reach into the window [w0, w1] (all
-- timed events without a window) and start by `upto` where given.  Bounds
-- are made whole first (s + d >= w0 is s + d >= ceil(w0) for integers), so
-- the engine compares integers exactly, as Lua did.
local function in_window(s, d, w0, w1, upto)
  local m = s:present() & d:present()
  if w0 then m = m & (s + d):ge(math.ceil(w0)) & s:le(math.floor(w1)) end
  if upto then m = m & s:le(math.floor(upto)) end
  return m
end

--- The window to show: the one given, the slowest step, or everything.
local function pick_window(p, opts)
  if opts.window then return opts.window[1], opts.window[2], "window" end
  local st = p.tables.steps
  if opts.slowest_step and st and st:nrows() > 0 and st:has("start_ns") and st:has("duration_ns") then
    local c = cols(st, { "step", "start_ns", "duration_ns" })
    local best
    for i = 1, st:nrows() do
      if c[2][i] and c[3][i] and (not best or c[3][i] > c[3][best]) then best = i end
    end
    if best then return c[2][best], c[2][best] + c[3][best], string.format("slowest step (%s)",
        tostring(c[1][best])) end
  end
  return nil, nil, "whole trace"
end

-- a column of n missing values of c's type (for a column no source has)
local function none(c) return c:keep(c:present() & ~c:present()) end

--- The device events in the window as one table, in the order (start,
-- track, reading order): start, dur, name, kind, device, stream, corr,
-- track (the track's label: "GPU 0 stream 7").  The engine filters, labels
-- (once per distinct device and stream) and sorts.
local function device_events(p, w0, w1, dev_label)
  local parts = {}
  for _, spec in ipairs({ { "kernels", "kernel" }, { "memcpy", "memcpy" }, { "memset", "memset" } }) do
    local t = p.tables[spec[1]]
    if t and t:nrows() > 0 and t:has("start_ns") and t:has("duration_ns") then
      local s, d = ns_col(t, "start_ns"), ns_col(t, "duration_ns")
      local o = t:select("start_ns"):with("start", s):with("dur", d):drop("start_ns")
      if t:has("name") then o:with("name", t:col("name")) end
      o:with("kind", o:const(spec[2]))
      for _, c in ipairs({ { "device", "device" }, { "stream", "stream" }, { "corr", "correlation" } }) do
        if t:has(c[2]) then o:with(c[1], t:col(c[2])) end
      end
      parts[#parts + 1] = o:filter(in_window(s, d, w0, w1))
    end
  end
  if #parts == 0 then return nil end
  local g = T.concat(table.unpack(parts))
  for _, c in ipairs({ "device", "stream", "corr" }) do
    if not g:has(c) then g:with(c, none(g:col("start"))) end
  end
  if g:nrows() == 0 then return g end
  -- one track per (device, stream), a missing one as 0
  local IV = require "perflab.timeline"
  local key = g:select("start"):with("dev", IV.filled(g, "device", 0)):with("str", IV.filled(g, "stream", 0))
  local by = key:group_by("dev", "str")
  local labels = {}
  for i, r in by:agg({ { "n", "count" } }):rows() do
    labels[i] = { track = string.format("GPU %s stream %s", dev_label(r.dev), tostring(r.str)) }
  end
  g:with("track", by:broadcast(T.from_rows(labels, { "track" })):col("track"))
  g:with("tdev", key:col("dev")):with("tstr", key:col("str"))
  -- stable: reading order among equal (start, track)
  return g:take(g:order("start", "track"))
end

function M.collect(p, opts)
  opts = opts or {}
  local w0, w1, what = pick_window(p, opts)
  local tracks, track_ix = {}, {}
  local function track(kind, pid, tid, label)
    local key = kind .. "\0" .. tostring(pid) .. "\0" .. tostring(tid)
    if not track_ix[key] then
      tracks[#tracks + 1] = { kind = kind, pid = pid, tid = tid, label = label }
      track_ix[key] = tracks[#tracks]
    end
    return track_ix[key]
  end
  local gpu, cpu, flows = {}, {}, {}
  local by_corr = {}
  local dev_label = require("perflab.timeline").device_label(p)
  local g = device_events(p, w0, w1, dev_label)
  -- every track of the window, also those of events cut below
  if g and g:nrows() > 0 then
    for _, r in g:group_by("tdev", "tstr"):agg({ { "track", "first", "track" } }):rows() do
      track("gpu", r.tdev, r.tstr, r.track)
    end
  end
  local truncated = false
  local function ends(t) return math.max(0, (t:col("start") + t:col("dur")):max()) end
  -- a figure of a trace without steps: its last device operations (the
  -- steady state, after warm-up), not hours of idle host time
  if g and opts.slowest_step and not w0 then
    -- after the longest device idle gap while it is most of the span (warm-up, set-up):
    -- the gap before event i is its start minus the furthest end before it
    for _ = 1, 6 do
      local n = g:nrows()
      if n < 2 then break end
      local e = g:col("start") + g:col("dur")
      local reach = g:select("start"):with("reach", e:cummax())
      local gaps = g:slice(2, n):select("start")
      gaps:with("gap", gaps:col("start") - reach:slice(1, n - 1):col("reach"))
      local best = gaps:col("gap"):max()
      local last = reach:col("reach")[n]
      if not best or best <= 0 or best <= 0.5 * (last - g:col("start")[1]) then break end
      local at = gaps:order("-gap")[1] + 1              -- the first of the longest gaps
      g = g:slice(at, n)
      w0, w1, what = g:col("start")[1], last, "device activity after the longest idle gap"
    end
  end
  if g and opts.slowest_step and opts.last_ops and g:nrows() > opts.last_ops then
    g = g:slice(g:nrows() - opts.last_ops + 1, g:nrows())
    w0, w1 = g:col("start")[1], ends(g)
    what = (what == "whole trace" and "" or what .. ", ") .. string.format("last %d device operations", opts.last_ops)
  end
  if g and opts.max_events and g:nrows() > opts.max_events then
    g = g:head(opts.max_events)
    truncated = true
    if not w0 then w0 = g:col("start")[1] end
    w1 = ends(g)
  end
  if g and g:nrows() > 0 then
    local c = cols(g, { "name", "start", "dur", "kind", "track", "corr", "device", "stream", "tdev", "tstr" })
    for i = 1, g:nrows() do
      local e = { name = c[1][i] or "?", start = c[2][i], dur = c[3][i], kind = c[4][i], track = c[5][i],
                  tk = track_ix["gpu\0" .. tostring(c[9][i]) .. "\0" .. tostring(c[10][i])],
                  corr = c[6][i], device = c[7][i], stream = c[8][i], seq = i }
      gpu[i] = e
      if e.corr then by_corr[e.corr] = e end
    end
  end
  -- host events in the window (and, when the device events were cut, not
  -- after the last one kept): filtered by the engine, then one Lua pass
  local function host(t, names)
    if not (t and t:nrows() > 0 and t:has("start_ns") and t:has("duration_ns")) then return nil end
    local s, d = ns_col(t, "start_ns"), ns_col(t, "duration_ns")
    local keep = in_window(s, d, w0, w1, truncated and w1 or nil)
    local k = t:select("start_ns"):with("s", s):with("d", d)
    for _, n in ipairs(names) do if t:has(n) then k:with(n, t:col(n)) end end
    k = k:filter(keep)
    return k:nrows(), cols(k, { "name", "s", "d", "pid", "tid", "correlation" })
  end
  local n, c = host(p.tables.runtime, { "name", "pid", "tid", "correlation" })
  for i = 1, n or 0 do
    local s, d = c[2][i], c[3][i]
    local tk = track("cpu", c[4][i] or 0, c[5][i] or 0, string.format("CPU %s thread %s", tostring(c[4][i] or 0),
        tostring(c[5][i] or 0)))
    local e = { name = c[1][i] or "?", start = s, dur = d, kind = "runtime", track = tk.label, tk = tk, corr = c[6][i],
        seq = #cpu + 1 }
    cpu[#cpu + 1] = e
    local k = e.corr and by_corr[e.corr]
    if k then flows[#flows + 1] = { id = e.corr, from = s, from_track = tk.label, from_tk = tk, to = k.start,
        to_track = k.track, to_tk = k.tk, name = k.name } end
  end
  n, c = host(p.tables.cpu_ops, { "name", "pid", "tid" })
  for i = 1, n or 0 do
    local tk = track("cpu", c[4][i] or 0, c[5][i] or 0, string.format("CPU %s thread %s", tostring(c[4][i] or 0),
        tostring(c[5][i] or 0)))
    cpu[#cpu + 1] = { name = c[1][i] or "?", start = c[2][i], dur = c[3][i], kind = "cpu op", track = tk.label,
        tk = tk, seq = #cpu + 1 }
  end
  -- structure (opts.structure, the Chrome-trace export): profiler steps,
  -- user annotations (Kineto's user_annotation and gpu_user_annotation
  -- events) and NVTX ranges, each on its thread's (or stream's) track
  local marks = {}
  if opts.structure then
    local function add_marks(t, cat, cols, gpu_side)
      if not (t and t:nrows() > 0) then return end
      local n, c = host(t, cols)
      for i = 1, n or 0 do
        local pid, tid = c[4][i] or 0, c[5][i] or 0
        local tk
        if gpu_side then
          local dev, str = math.tointeger(tonumber(pid)) or 0, math.tointeger(tonumber(tid)) or 0
          tk = track("gpu", dev, str, string.format("GPU %s stream %s", dev_label(dev), tostring(str)))
        else
          tk = track("cpu", pid, tid, string.format("CPU %s thread %s", tostring(pid), tostring(tid)))
        end
        marks[#marks + 1] = { name = c[1][i] or "?", start = c[2][i], dur = c[3][i], cat = cat, kind = cat, tk = tk,
                              track = tk.label, seq = #marks + 1 }
      end
    end
    local st = p.tables.steps
    if st and st:nrows() > 0 and st:has("start_ns") and st:has("duration_ns") then
      local named = st:has("name") and st or st:add_column("name",
          function(r) return "ProfilerStep#" .. tostring(r.step) end, "string")
      add_marks(named, "user_annotation", { "name", "pid", "tid" })
    end
    local ev = p.tables.events
    if ev and ev:nrows() > 0 and ev:has("cat") and ev:has("ts_ns") and ev:has("dur_ns") then
      local cat, name = ev:col("cat"), ev:col("name")
      local x = ev:filter(ev:col("ph"):eq("X") & ~name:match("^ProfilerStep#"))
      x = x:select("name", "cat", "pid", "tid", "ts_ns", "dur_ns"):rename("ts_ns", "start_ns"):rename("dur_ns",
          "duration_ns")
      cat = x:col("cat")
      add_marks(x:filter(cat:eq("user_annotation")), "user_annotation", { "name", "pid", "tid" })
      add_marks(x:filter(cat:eq("gpu_user_annotation")), "gpu_user_annotation", { "name", "pid", "tid" }, true)
    end
    local nv = p.tables.nvtx
    if nv and nv:nrows() > 0 and nv:has("start_ns") and nv:has("duration_ns") then
      add_marks(nv:filter(nv:col("duration_ns"):present()), "nvtx", { "name", "pid", "tid" })
    end
    table.sort(marks, function(a, b)
      if a.start ~= b.start then return a.start < b.start end
      if a.dur ~= b.dur then return a.dur > b.dur end
      return a.seq < b.seq
    end)
  end
  table.sort(cpu, function(a, b)
    if a.start ~= b.start then return a.start < b.start end
    if a.dur ~= b.dur then return a.dur > b.dur end
    if a.track ~= b.track then return a.track < b.track end
    return a.seq < b.seq
  end)
  table.sort(tracks, function(a, b)
    if a.kind ~= b.kind then return a.kind == "cpu" end
    if tostring(a.pid) ~= tostring(b.pid) then return tostring(a.pid) < tostring(b.pid) end
    local x, y = tonumber(a.tid), tonumber(b.tid)
    if x and y and x ~= y then return x < y end
    return tostring(a.tid) < tostring(b.tid)
  end)
  local t0, t1 = w0, w1
  if not t0 then
    t0, t1 = math.huge, -math.huge
    for _, l in ipairs({ gpu, cpu }) do for _, e in ipairs(l) do t0 = math.min(t0, e.start); t1 = math.max(t1,
        e.start + e.dur) end end
  end
  return { tracks = tracks, gpu = gpu, cpu = cpu, flows = flows, marks = marks, t0 = t0, t1 = t1, what = what,
      truncated = truncated }
end

--- The first start time of the profile's timed events (ns), or nil.
function M.first_ns(p)
  local first
  for _, n in ipairs({ "kernels", "memcpy", "memset", "runtime", "cpu_ops" }) do
    local t = p.tables[n]
    if t and t:nrows() > 0 and t:has("start_ns") then
      local m = t:col("start_ns"):min()
      if m and m == m and (not first or m < first) then first = m end
    end
  end
  return first
end

local time_units = { ns = 1, us = 1e3, ["µs"] = 1e3, ms = 1e6, s = 1e9 }

--- "START:END" with units (2ms:5.5ms, 100us:1s; a bare number is ns), times
-- from the trace's first event -> {start_ns, end_ns} absolute.
function M.parse_window(text, p, what)
  what = what or "--window"
  local a, b = tostring(text):match("^([^:]*):([^:]*)$")
  if not a then errors.fail(string.format("%s: expected START:END (e.g. 2ms:5ms), found '%s'", what,
      tostring(text))) end
  local function t(x, which)
    local num, unit = x:match("^%s*([%d%.eE%+%-]+)%s*(%S*)%s*$")
    local v = num and tonumber(num)
    local f = time_units[(unit == nil or unit == "") and "ns" or unit]
    if not v or not f then
      errors.fail(string.format("%s: expected a time like 2ms or 1500us for %s, found '%s'", what, which, x))
    end
    return v * f
  end
  local s, e = t(a, "START"), t(b, "END")
  if e < s then errors.fail(string.format("%s: END (%s) is before START (%s)", what, b, a)) end
  local first = M.first_ns(p) or 0
  return { first + s, first + e }
end

-- ---- Chrome trace JSON -------------------------------------------------------

--- microseconds with three decimals from integer nanoseconds (exact)
local function us(ns)
  ns = math.tointeger(ns) or math.floor(ns + 0.5)
  local sign = ns < 0 and "-" or ""
  ns = math.abs(ns)
  return string.format("%s%d.%03d", sign, ns // 1000, ns % 1000)
end
M.us = us

-- names as JSON strings; bytes that are not UTF-8 become U+FFFD (a strict
-- JSON reader such as Perfetto's would refuse them)
local function jstr(s) return json.encode(require("perflab.chart").utf8_clean(s)) end

--- The keys (name, start ns, duration ns, as written) of a critical-path
-- result's events, and its dependency, launch and sync hops between them.
function M.critical_keys(r)
  local raw = r.events_raw
  local function k(i) return string.format("%s\0%d\0%d", raw:get(i, "name"), raw:get(i, "ts_ns"),
      raw:get(i, "dur_ns")) end
  local set = {}
  local path = r.path
  local ev, st, ty, w = path:col("event"), path:col("is_start"), path:col("edge"), path:col("edge_weight_ns")
  local flows = {}
  local show = { critical_path_dependency = true, critical_path_kernel_launch_delay = true,
      critical_path_sync_dependency = true }
  local n = path:nrows()
  for i = 1, n do
    set[k(ev[i])] = true
    if i < n and show[ty[i]] and ev[i] ~= ev[i + 1] then
      flows[#flows + 1] = { from = k(ev[i]), from_start = st[i], to = k(ev[i + 1]), to_start = st[i + 1], type = ty[i],
          weight = w[i] }
    end
  end
  return { set = set, flows = flows }
end

-- process and thread names the profile records (processes, threads tables:
-- Kineto metadata, nsys PROCESSES and ThreadNames), by text pid / pid\0tid
local function recorded_names(p)
  local pn, tn = {}, {}
  local pr, th = p.tables.processes, p.tables.threads
  if pr and pr:nrows() > 0 and pr:has("pid") and pr:has("name") then
    local c = cols(pr, { "pid", "name" })
    for i = 1, pr:nrows() do if c[1][i] ~= nil and c[2][i] then pn[tostring(c[1][i])] = c[2][i] end end
  end
  if th and th:nrows() > 0 and th:has("pid") and th:has("tid") and th:has("name") then
    local c = cols(th, { "pid", "tid", "name" })
    for i = 1, th:nrows() do
      if c[1][i] ~= nil and c[2][i] ~= nil and c[3][i] then tn[tostring(c[1][i]) .. "\0"
          .. tostring(c[2][i])] = c[3][i] end
    end
  end
  return pn, tn
end

function M.chrome(p, opts)
  opts = opts or {}
  opts.structure = opts.structure ~= false
  local tl = M.collect(p, opts)
  if #tl.gpu == 0 and #tl.cpu == 0 then
    errors.fail(string.format("%s (%s) has no timed device or host events to export (it needs kernels with start_ns: a Kineto, nvprof GPU-trace, rocprof or nsys trace)",
      p.source, p.format))
  end
  -- timestamps relative to a base on a whole microsecond, as Kineto writes them
  local base = math.huge
  for _, l in ipairs({ tl.gpu, tl.cpu, tl.marks }) do for _, e in ipairs(l) do base = math.min(base, e.start) end end
  base = (base // 1000) * 1000
  -- numeric pids and tids: a device keeps its index, a CPU process its pid
  -- when it is a number; others (names) are numbered after them
  local pid_of, tid_of, next_pid = {}, {}, 1000000
  local function npid(tk)
    if tk.npid then return tk.npid end
    local key = tk.kind .. "\0" .. tostring(tk.pid)
    if not pid_of[key] then
      local n = math.tointeger(tonumber(tk.pid))
      if tk.kind == "gpu" then n = n and (n >= 0 and n < 1000) and n or nil end
      if not n or n < 0 then n = next_pid; next_pid = next_pid + 1 end
      for _, v in pairs(pid_of) do if v == n then n = next_pid; next_pid = next_pid + 1; break end end
      pid_of[key] = n
    end
    tk.npid = pid_of[key]
    return tk.npid
  end
  local function ntid(tk)
    if tk.ntid then return tk.ntid end
    local key = tk.kind .. "\0" .. tostring(tk.pid) .. "\0" .. tostring(tk.tid)
    if not tid_of[key] then
      local n = math.tointeger(tonumber(tk.tid))
      if not n then
        local k = 0
        for _ in pairs(tid_of) do k = k + 1 end
        n = 2000000 + k
      end
      tid_of[key] = n
    end
    tk.ntid = tid_of[key]
    return tk.ntid
  end
  local out = {}
  local function add(s) out[#out + 1] = s end
  local named, tnamed, origin_of = {}, {}, {}
  local pn, tn = recorded_names(p)
  for _, tk in ipairs(tl.tracks) do
    local pid, tid = npid(tk), ntid(tk)
    if not named[pid] then
      named[pid] = true
      origin_of[pid] = tostring(tk.pid)
      local pname = pn[tostring(tk.pid)] or (tk.kind == "gpu" and ("GPU " .. tostring(tk.pid))
          or ("CPU process " .. tostring(tk.pid)))
      add(string.format('{"ph":"M","name":"process_name","pid":%d,"tid":0,"args":{"name":%s}}', pid, jstr(pname)))
      add(string.format('{"ph":"M","name":"process_sort_index","pid":%d,"tid":0,"args":{"sort_index":%d}}', pid,
          tk.kind == "gpu" and pid + 5000000 or pid))
    end
    tnamed[pid .. "\0" .. tid] = true
    add(string.format('{"ph":"M","name":"thread_name","pid":%d,"tid":%d,"args":{"name":%s}}', pid, tid,
      jstr(tn[tostring(tk.pid) .. "\0" .. tostring(tk.tid)]
        or (tk.kind == "gpu" and ("stream " .. tostring(tk.tid)) or ("thread " .. tostring(tk.tid))))))
  end
  -- the other recorded names of numeric processes and threads (no event of
  -- theirs is exported), where their ids are free
  local used = {}
  for _, v in pairs(pid_of) do used[v] = true end
  local pids = {}
  for k in pairs(pn) do pids[#pids + 1] = k end
  table.sort(pids)
  for _, k in ipairs(pids) do
    local n = math.tointeger(tonumber(k))
    if n and n >= 0 and not named[n] and not used[n] then
      named[n] = true
      origin_of[n] = k
      add(string.format('{"ph":"M","name":"process_name","pid":%d,"tid":0,"args":{"name":%s}}', n, jstr(pn[k])))
    end
  end
  local tids = {}
  for k in pairs(tn) do tids[#tids + 1] = k end
  table.sort(tids)
  for _, k in ipairs(tids) do
    local a, b = k:match("^(.-)%z(.*)$")
    local np, nt = math.tointeger(tonumber(a)), math.tointeger(tonumber(b))
    if np and nt and np >= 0 and (origin_of[np] == a or (origin_of[np] == nil and not used[np]))
        and not tnamed[np .. "\0" .. nt] then
      tnamed[np .. "\0" .. nt] = true
      add(string.format('{"ph":"M","name":"thread_name","pid":%d,"tid":%d,"args":{"name":%s}}', np, nt, jstr(tn[k])))
    end
  end
  local cat = { kernel = "kernel", memcpy = "gpu_memcpy", memset = "gpu_memset", runtime = "cuda_runtime",
      ["cpu op"] = "cpu_op" }
  -- --critical-path: the path's events (by name, start and duration as the
  -- trace wrote them) get args.critical = 1; the exported events by key
  local crit, by_key = opts.critical_path and M.critical_keys(opts.critical_path), {}
  local function key(e) return string.format("%s\0%d\0%d", e.name, e.start, e.dur) end
  for _, l in ipairs({ tl.cpu, tl.gpu }) do
    for _, e in ipairs(l) do
      local k = key(e)
      if crit and crit.set[k] then e.critical = true; by_key[k] = by_key[k] or e end
    end
  end
  for _, e in ipairs(tl.cpu) do
    local args = e.corr and string.format('{"correlation":%d%s}', e.corr, e.critical and ',"critical":1' or "")
      or (e.critical and '{"critical":1}' or "{}")
    add(string.format('{"ph":"X","cat":"%s","name":%s,"pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":%s}', cat[e.kind],
        jstr(e.name),
      npid(e.tk), ntid(e.tk), us(e.start - base), us(e.dur), args))
  end
  -- steps, annotations and NVTX ranges (Kineto's categories; NVTX as "nvtx")
  for _, e in ipairs(tl.marks) do
    add(string.format('{"ph":"X","cat":"%s","name":%s,"pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":{}}', e.cat,
        jstr(e.name),
      npid(e.tk), ntid(e.tk), us(e.start - base), us(e.dur)))
  end
  for _, e in ipairs(tl.gpu) do
    local a = {}
    if math.tointeger(e.device) then a[#a + 1] = string.format('"device":%d', e.device) end
    if math.tointeger(e.stream) then a[#a + 1] = string.format('"stream":%d', e.stream) end
    if e.corr then a[#a + 1] = string.format('"correlation":%d', e.corr) end
    if e.critical then a[#a + 1] = '"critical":1' end
    add(string.format('{"ph":"X","cat":"%s","name":%s,"pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":{%s}}', cat[e.kind],
        jstr(e.name),
      npid(e.tk), ntid(e.tk), us(e.start - base), us(e.dur), table.concat(a, ",")))
  end
  for _, f in ipairs(tl.flows) do
    add(string.format('{"ph":"s","id":%d,"pid":%d,"tid":%d,"ts":%s,"cat":"ac2g","name":"ac2g"}', f.id, npid(f.from_tk),
        ntid(f.from_tk), us(f.from - base)))
    add(string.format('{"ph":"f","id":%d,"pid":%d,"tid":%d,"ts":%s,"cat":"ac2g","name":"ac2g","bp":"e"}', f.id,
        npid(f.to_tk), ntid(f.to_tk), us(f.to - base)))
  end
  -- the critical path's hops (HTA draws dependency, launch and sync edges)
  if crit then
    local id = 0
    for _, f in ipairs(crit.flows) do
      local a, b = by_key[f.from], by_key[f.to]
      if a and b then
        id = id + 1
        local ta, tb = f.from_start and a.start or a.start + a.dur, f.to_start and b.start or b.start + b.dur
        add(string.format('{"ph":"s","id":%d,"pid":%d,"tid":%d,"ts":%s,"cat":%s,"name":"critical_path","args":{"weight_us":%s}}',
          id, npid(a.tk), ntid(a.tk), us(ta - base), jstr(f.type), us(f.weight)))
        add(string.format('{"ph":"f","id":%d,"pid":%d,"tid":%d,"ts":%s,"cat":%s,"name":"critical_path","bp":"e"}',
          id, npid(b.tk), ntid(b.tk), us(tb - base), jstr(f.type)))
      end
    end
  end
  return string.format('{"schemaVersion":1,"displayTimeUnit":"ns","baseTimeNanoseconds":%d,"traceName":%s,\n"traceEvents":[\n%s\n]}\n',
    base, jstr(p.source or ""), table.concat(out, ",\n"))
end

return M

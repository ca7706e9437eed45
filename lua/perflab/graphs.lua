--- perflab.graphs: launch APIs and CUDA/HIP graph replays in a timeline.
--
-- One place for two questions every timeline recipe asks (docs/graphs.md):
--
--   * What did a runtime or driver call launch?  `launch_kind(name)` names
--     the kind of each launch API ("graph", "kernel", "memcpy", "memset";
--     nil: not a launch), from the editable rule list `launch_rules`.
--     cuLaunchKernelEx, cudaLaunchKernelExC, hipExtModuleLaunchKernel ... are
--     ordinary kernel launches; cudaGraphLaunch, cuGraphLaunch and
--     hipGraphLaunch launch a whole graph.
--   * Which device operations are graph replays?  Every kernel (and copy)
--     of one graph replay carries the correlation id of the graph launch
--     that started it (CUPTI, roctracer: there is no per-kernel launch
--     call), so the ops sharing a graph launch's correlation on one device
--     are one *replay*.  Nsight Systems exports also name the graph
--     (kernels.graph_id): such rows are replays whatever their launch call.
--
-- The work is columnar: masks, group-bys, index_of gathers in the engine;
-- Lua runs once per distinct name (the rules) and once per replay (its
-- busy time), never once per kernel.
--
--   graphs.launch_kind(name)        -> "graph" | "kernel" | "memcpy" | "memset" | nil
--   graphs.is_graph_launch(name)    -> boolean
--   graphs.launch_kinds(column)     -> string column of launch kinds (per distinct name)
--   graphs.graph_launch_mask(column) -> boolean column: the name is a graph launch
--   graphs.mark(ops)                -> ops with columns graph_replay, replay, position
--   graphs.analyse(p [, ops])       -> { ops, replays, graphs, positions, empty, partial }
--   graphs.recording(p [, ops])     -> nil | { reason, partial_replays, empty_launches }
--   graphs.kernel_mask(p)           -> boolean column over p.tables.kernels: replayed by a graph
--   graphs.kernel_ops(p)            -> op_id, op_name, replayed: kernels -> op enclosing the launch
local T = require "perflab.table"
local I = require "perflab.intervals"
local IV = require "perflab.timeline"

local M = {}

--- Launch APIs, first match wins: { Lua pattern on the call's name, kind }.
-- Names as the profilers write them: Kineto/Chrome traces (cat cuda_runtime
-- and cuda_driver), roctracer (hip*), nsys (version suffix already removed
-- by the reader: cudaLaunchKernel_v7000 -> cudaLaunchKernel).  Edit to add
-- an API; no rebuild is needed when PERFLAB_LUA_DIR points at lua/.
M.launch_rules = {
  -- whole graphs: every kernel of the replay carries this call's correlation
  { "^cudaGraphLaunch", "graph" },        -- cudaGraphLaunch, cudaGraphLaunch_ptsz
  { "^cuGraphLaunch", "graph" },
  { "^hipGraphLaunch", "graph" },
  -- ordinary kernel launches, one kernel per call (HTA PR #271: cuLaunchKernelEx
  -- unrecognised broke the launch edges of a path)
  { "^cudaLaunchKernel", "kernel" },      -- cudaLaunchKernel, cudaLaunchKernelExC, _ptsz
  { "^cudaLaunchCooperativeKernel", "kernel" },
  { "^cudaLaunch$", "kernel" },           -- CUDA < 7
  { "^cuLaunchKernel", "kernel" },        -- cuLaunchKernel, cuLaunchKernelEx (Triton, CUTLASS)
  { "^cuLaunchCooperativeKernel", "kernel" },
  { "^cuLaunchGrid", "kernel" },
  { "^hipLaunchKernel", "kernel" },
  { "^hipExtLaunchKernel", "kernel" },
  { "^hipModuleLaunchKernel", "kernel" },
  { "^hipExtModuleLaunchKernel", "kernel" },
  { "^hipHccModuleLaunchKernel", "kernel" },
  { "^hipLaunchCooperativeKernel", "kernel" },
  { "^hipModuleLaunchCooperativeKernel", "kernel" },
  { "^hipExtLaunchMultiKernel", "kernel" },
  -- copies and fills
  { "^cudaMemcpy", "memcpy" }, { "^cuMemcpy", "memcpy" }, { "^hipMemcpy", "memcpy" },
  { "^cudaMemset", "memset" }, { "^cuMemset", "memset" }, { "^hipMemset", "memset" },
}

local kind_cache = {}

--- The kind of launch a runtime/driver call name makes, or nil.
function M.launch_kind(name)
  if name == nil then return nil end
  local k = kind_cache[name]
  if k == nil then
    k = false
    for _, r in ipairs(M.launch_rules) do
      if name:find(r[1]) then k = r[2]; break end
    end
    kind_cache[name] = k
  end
  return k or nil
end

function M.is_graph_launch(name) return M.launch_kind(name) == "graph" end

--- A string column of the launch kind of each name of a column (the rules
-- run once per distinct name, in Column:map).
function M.launch_kinds(col) return col:map(M.launch_kind) end

-- a mask: the names of col that are graph launches (false where missing;
-- a column with no launch name at all, or no strings, gives all false)
local function graph_launch_mask(col)
  local p = col:present()
  local none = p & ~p
  if col:type() ~= "string" then return none end
  local kinds = M.launch_kinds(col)
  if kinds:type() ~= "string" then return none end
  return kinds:eq("graph") & p
end
M.graph_launch_mask = graph_launch_mask

-- 1..n as an integer column of t's length
local function rownum(t)
  return t:col(t:columns()[1]):present():map(function() return 1 end):cumsum()
end

-- two 31-bit hashes of a name (FNV-1a with two offsets): the multiset of a
-- replay's kernel names is told by their sums (per distinct name, in map)
local function hasher(seed)
  return function(s)
    if s == nil then return 0 end
    local h = seed
    for i = 1, #s do h = ((h ~ s:byte(i)) * 16777619) & 0x7fffffff end
    return h
  end
end
local H1, H2 = hasher(2166136261 & 0x7fffffff), hasher(1315423911)

--- ops (a perflab.timeline.device_ops table) with three columns more:
--   graph_replay  true where the op belongs to a graph replay: its runtime
--                 call is a graph launch (launch_kind "graph"), or the row
--                 names a graph (graph_id, nsys)
--   replay        the replay's number (1.. in order of the replays' first
--                 op), missing for other ops
--   position      the op's place in its replay (1.. by start), missing
--                 for other ops
-- A replay is the ops of one device sharing a correlation id.
function M.mark(ops)
  local n = ops:nrows()
  local g = graph_launch_mask(ops:col("rt_name"))
  if ops:has("graph_id") then g = g | ops:col("graph_id"):present() end
  g = ops:has("correlation") and (g & ops:col("correlation"):present()) or (g & ~g)
  local row = rownum(ops)
  local none = row:keep(row:eq(0))
  if n == 0 or g:count { where = g } == 0 then
    return ops:with("graph_replay", g):with("replay", none):with("position", none)
  end
  local r = ops:filter(g)
  r:with("_row", ops:select(ops:columns()[1]):with("_row", row):filter(g):col("_row"))
  r = r:take(r:order("device", "correlation", "start_ns"))
  local by = r:group_by("device", "correlation")
  local agg = by:agg { { "_first", "first_row" }, { "_min", "min", "_row" } }
  -- replays numbered by their first op's place in ops (start order)
  local ord = agg:order("_min")
  local num = rownum(agg)
  local rank = ord:index_of(num)            -- rank[i]: place of group i in start order
  local per = by:broadcast(T.from_columns({ _rep = rank:to_lua(), _f = agg:col("_first"):to_lua() }, { "_rep", "_f" }))
  r:with("replay", per:col("_rep")):with("position", rownum(r) - per:col("_f") + 1)
  local at = r:col("_row"):index_of(row)    -- each op's row in r (missing: not a replay)
  return ops:with("graph_replay", g):with("replay", r:col("replay"):at(at)):with("position", r:col("position"):at(at))
end

-- graph-launch runtime calls with no device op of their correlation
local function empty_launches(p, ops)
  local rt = p.tables.runtime
  if not rt or rt:nrows() == 0 or not rt:has("correlation") or not rt:has("name") then return nil end
  local gl = rt:filter(graph_launch_mask(rt:col("name")) & rt:col("correlation"):present())
  if gl:nrows() == 0 then return gl end
  local hit = ops and ops:nrows() > 0 and ops:has("correlation")
      and ops:col("correlation"):index_of(gl:col("correlation"))
  if not hit then return gl end
  return gl:filter(~hit:present())
end

-- Without graph ids, a replay that lost ops has a kernel multiset of its
-- own.  It is told from a different graph by two things the trace records
-- (docs/graphs.md, "Partial recordings"):
--   * its ops are ops of a graph with more ops and more replays, in the
--     same order (a subsequence of that graph's kernel sequence), on the
--     same device and from the same launch API, and
--   * the missing ops fit: each run of missing positions fits in the idle
--     time of the replay's stream where it belongs (before the first
--     recorded op: from the launch call or the stream's previous op; between
--     two recorded ops: the gap between them; after the last: until the
--     stream's next op, or the end of the trace), counting each missing op
--     at its shortest duration over the graph's replays.
-- A stream's ops run one after another, so a replay whose stream was busy
-- with other recorded work where the missing ops belong is a graph of its
-- own (vLLM's last piecewise graph: the first 12 of the 15-op layer graph's
-- ops, the stream's next op 12 us after it, where the 3 missing ops need
-- 452 us).  Returns a map from a graph key to the key it is a partial
-- recording of, and per merged key the evidence; Lua runs per graph and per
-- candidate replay, the per-op work is in the engine.
local function truncations(reps, r, ops)
  local kg = reps:group_by("_key"):agg { { "n", "count" }, { "device", "first", "device" },
    { "launch", "first", "launch" }, { "k", "first", "kernels" }, { "rep", "min", "replay" } }
  local keys = {}
  for _, g in kg:rows() do keys[#keys + 1] = g end
  -- candidate pairs: same device and launch API, fewer ops and fewer replays
  local cand = {}
  for _, a in ipairs(keys) do
    for _, b in ipairs(keys) do
      if a._key:sub(1, 4) == "ops " and b._key:sub(1, 4) == "ops " and a.device == b.device
          and a.launch == b.launch and a.k < b.k and a.n < b.n then
        cand[a] = cand[a] or {}
        table.insert(cand[a], b)
      end
    end
  end
  if next(cand) == nil then return {} end
  -- kernel sequences of one replay per graph (the first)
  local want = {}
  for a, bs in pairs(cand) do
    want[#want + 1] = a.rep
    for _, b in ipairs(bs) do want[#want + 1] = b.rep end
  end
  local rr = r:filter(r:col("replay"):isin(want), { "replay", "position", "name" }):sort_by("replay", "position")
  local seq = {}
  local rcol, ncol = rr:col("replay"):to_lua(), rr:col("name"):to_lua()
  for i = 1, #rcol do
    seq[rcol[i]] = seq[rcol[i]] or {}
    table.insert(seq[rcol[i]], ncol[i])
  end
  -- shortest duration per position of the candidate bigger graphs
  local rk = reps:col("_key"):at(reps:col("replay"):index_of(r:col("replay")))
  local mins = r:select("position", "duration_ns"):with("_key", rk):group_by("_key", "position")
    :agg { { "d", "min", "duration_ns" } }
  local mind = {}
  for _, m in mins:rows() do
    mind[m._key] = mind[m._key] or {}
    mind[m._key][m.position] = m.d
  end
  -- each stream's ops by start and by end (once per stream asked about)
  local streams = {}
  local function stream_of(dev, st)
    local k = tostring(dev) .. "/" .. tostring(st)
    if not streams[k] then
      local m = ops:col("device"):eq(dev) & ops:col("stream"):eq(st)
      local so = ops:filter(m, { "start_ns", "end_ns" })
      streams[k] = { starts = so:sort_by("start_ns"):col("start_ns"):to_lua(),
                     ends = so:sort_by("end_ns"):col("end_ns"):to_lua() }
    end
    return streams[k]
  end
  -- first value >= t in a sorted array (nil: none); last value <= t
  local function first_ge(a, t)
    local lo, hi = 1, #a + 1
    while lo < hi do local mid = (lo + hi) // 2; if a[mid] >= t then hi = mid else lo = mid + 1 end end
    return a[lo]
  end
  local function last_le(a, t)
    local lo, hi = 0, #a
    while lo < hi do local mid = (lo + hi + 1) // 2; if a[mid] <= t then lo = mid else hi = mid - 1 end end
    return lo > 0 and a[lo] or nil
  end
  -- leftmost alignment of sequence a inside b: positions of b, or nil
  local function align(a, b)
    local pos, j = {}, 1
    for i = 1, #a do
      while j <= #b and b[j] ~= a[i] do j = j + 1 end
      if j > #b then return nil end
      pos[i] = j
      j = j + 1
    end
    return pos
  end
  local merged, evidence = {}, {}
  for a, bs in pairs(cand) do
    table.sort(bs, function(x, y) if x.n ~= y.n then return x.n > y.n end return x.k > y.k end)
    local reps_a = reps:filter(reps:col("_key"):eq(a._key))
    for _, b in ipairs(bs) do
      local pos = align(seq[a.rep], seq[b.rep])
      if pos then
        local dm, ok, need_total, idle_total = mind[b._key], true, 0, 0
        for _, ra in reps_a:rows() do
          local ro = r:filter(r:col("replay"):eq(ra.replay), { "start_ns", "end_ns" }):sort_by("start_ns")
          local st, en = ro:col("start_ns"):to_lua(), ro:col("end_ns"):to_lua()
          local so = stream_of(ra.device, ra.stream)
          -- the runs of missing positions and the idle time where each belongs
          local function fits(p_lo, p_hi, idle)
            local need = 0
            for q = p_lo, p_hi do need = need + (dm[q] or 0) end
            need_total = need_total + need
            if idle ~= math.huge then idle_total = idle_total + math.max(idle, 0) end
            return need <= idle
          end
          if pos[1] > 1 then
            local prev = last_le(so.ends, st[1])
            local from = math.max(ra.rt_start_ns or st[1], prev or st[1])
            ok = ok and fits(1, pos[1] - 1, st[1] - from)
          end
          for i = 1, #pos - 1 do
            if pos[i + 1] > pos[i] + 1 then ok = ok and fits(pos[i] + 1, pos[i + 1] - 1, st[i + 1] - en[i]) end
          end
          if pos[#pos] < b.k then
            local last_end = math.max(table.unpack(en))
            local nxt = first_ge(so.starts, last_end)
            -- no next op: the recording ended first (the window, a full buffer)
            ok = ok and fits(pos[#pos] + 1, b.k, nxt and nxt - last_end or math.huge)
          end
          if not ok then break end
        end
        if ok then
          merged[a._key] = b._key
          evidence[a._key] = { need_ns = need_total, idle_ns = idle_total, into = b._key }
          break
        end
      end
    end
  end
  -- a chain (a into b, b into c) ends at c
  for k in pairs(merged) do
    local t, guard = merged[k], 0
    while merged[t] and guard < 100 do t = merged[t]; guard = guard + 1 end
    merged[k] = t
  end
  return merged, evidence
end

--- The graph analysis of one profile.  Returns nil when the timeline has
-- no graph replay and no graph launch; else a table:
--   ops        device_ops (or the ops given) with mark's columns
--   replays    one row per replay: replay, device, stream, correlation,
--              graph, graph_id, launch (API name), kernels (ops in it),
--              usual (its graph's usual op count), partial, start_ns,
--              end_ns, span_ns, busy_ns, launch_ns (the launch call's
--              time), delay_ns (first op start - launch call end)
--   graphs     one row per graph (below; docs/graphs.md)
--   positions  graph, position, kernel, replays, mean_ns, min_ns, max_ns:
--              the op at each place across the graph's replays
--   empty      graph launch calls with no device op recorded (runtime rows)
--   partial    replays whose op count differs from their graph's usual count
-- A graph is a graph id where the input records one (nsys), else a kernel
-- multiset: replays with the same op count and the same names.
function M.analyse(p, ops)
  ops = ops or IV.device_ops(p)
  local empty = empty_launches(p, ops)
  if not ops or ops:nrows() == 0 then
    if empty and empty:nrows() > 0 then return { empty = empty, partial = 0, graphs = nil } end
    return nil
  end
  ops = M.mark(ops)
  local g = ops:col("graph_replay")
  local ngraph_ops = g:count { where = g }
  if ngraph_ops == 0 and not (empty and empty:nrows() > 0) then return nil end
  local res = { ops = ops, empty = empty }
  if ngraph_ops == 0 then res.partial = 0; return res end
  local r = ops:filter(g)
  local name = r:col("name")
  r:with("_h1", name:map(H1)):with("_h2", name:map(H2))
  if not r:has("graph_id") then r:with("graph_id", r:col("replay"):keep(r:col("replay"):eq(-1))) end
  local reps = r:group_by("replay"):agg {
    { "device", "first", "device" }, { "stream", "first", "stream" }, { "correlation", "first", "correlation" },
    { "graph_id", "first", "graph_id" }, { "launch", "first", "rt_name" }, { "kernels", "count" },
    { "first_kernel", "first", "name" },
    { "start_ns", "min", "start_ns" }, { "end_ns", "max", "end_ns" }, { "rt_start_ns", "first", "rt_start_ns" },
    { "rt_end_ns", "first", "rt_end_ns" }, { "_s1", "sum", "_h1" }, { "_s2", "sum", "_h2" } }
  reps = reps:sort_by("replay")
  -- busy time per replay: the union of its ops (one interval set per replay)
  local sets, keys = I.from_table(r, "start_ns", "end_ns", { by = "replay" })
  local busy = {}
  for i, key in ipairs(keys) do busy[i] = sets[key]:length() end
  reps:with("busy_ns", T.from_columns({ b = busy }, { "b" }):col("b"))
  reps:with("span_ns", reps:col("end_ns") - reps:col("start_ns"))
  reps:with("launch_ns", reps:col("rt_end_ns") - reps:col("rt_start_ns"))
  reps:with("delay_ns", reps:col("start_ns") - reps:col("rt_end_ns"))
  -- the graph of each replay: its graph id, else its kernel multiset
  local key = T.sprintf("id %d", reps:col("graph_id"))
  key = key:fill(T.sprintf("ops %d %d %d", reps:col("kernels"), reps:col("_s1"), reps:col("_s2")))
  reps:with("_key", key)
  -- without graph ids: replays that lost ops join the graph they are part of
  if reps:col("graph_id"):present():sum() == 0 then
    local merged = truncations(reps, r, ops)
    if next(merged) then reps:with("_key", reps:col("_key"):map(function(k) return merged[k] or k end)) end
  end
  -- the usual op count of a graph: the most frequent (ties: the larger)
  local counts = reps:group_by("device", "_key", "kernels"):agg { { "_c", "count" } }
    :sort_by("device", "_key", "-_c", "-kernels")
  local usual = counts:group_by("device", "_key"):agg { { "usual", "first", "kernels" } }
  local byg = reps:group_by("device", "_key")
  local gfirst = byg:agg { { "_r", "min", "replay" } }
  local gnum = gfirst:order("_r"):index_of(rownum(gfirst))    -- graphs numbered by first replay
  reps:with("graph", byg:broadcast(T.from_columns({ x = gnum:to_lua() }, { "x" })):col("x"))
  reps = reps:join(usual, { on = { "device", "_key" }, how = "left" })
  reps:with("partial", reps:col("kernels"):ne(reps:col("usual")))
  reps = reps:sort_by("replay")
  res.partial = reps:col("partial"):count { where = reps:col("partial") }
  -- one row per graph
  local full = ~reps:col("partial")
  local gt = reps:group_by("graph"):agg {
    { "device", "first", "device" }, { "graph_id", "first", "graph_id" }, { "launch", "first", "launch" },
    { "first_kernel", "first", "first_kernel" }, { "replays", "count" },
    { "partial_replays", "count", where = reps:col("partial") }, { "kernels_per_replay", "first", "usual" },
    { "launch_mean_ns", "mean", "launch_ns" }, { "launch_max_ns", "max", "launch_ns" },
    { "span_mean_ns", "mean", "span_ns", where = full }, { "span_min_ns", "min", "span_ns", where = full },
    { "span_max_ns", "max", "span_ns", where = full },
    { "busy_mean_ns", "mean", "busy_ns", where = full }, { "busy_min_ns", "min", "busy_ns", where = full },
    { "busy_max_ns", "max", "busy_ns", where = full }, { "busy_total_ns", "sum", "busy_ns" },
    { "delay_mean_ns", "mean", "delay_ns" }, { "delay_min_ns", "min", "delay_ns" },
    { "delay_max_ns", "max", "delay_ns" } }
  res.graphs = gt:sort_by("graph")
  -- per position across the graph's whole replays (TraceLens' per-position mean)
  local rg = reps:col("graph"):keep(~reps:col("partial"))      -- whole replays only
  local at = reps:col("replay"):index_of(r:col("replay"))
  r:with("graph", rg:at(at))
  local pos = r:filter(r:col("graph"):present()):group_by("graph", "position"):agg {
    { "kernel", "first", "name" }, { "replays", "count" }, { "mean_ns", "mean", "duration_ns" },
    { "min_ns", "min", "duration_ns" }, { "max_ns", "max", "duration_ns" }, { "total_ns", "sum", "duration_ns" } }
  res.positions = pos:sort_by("graph", "position")
  res.replays = reps:select("replay", "graph", "device", "stream", "correlation", "graph_id", "launch", "kernels",
    "usual", "partial", "start_ns", "end_ns", "span_ns", "busy_ns", "launch_ns", "delay_ns", "first_kernel")
  return res
end

--- Whether the recording of graph replays is partial: nil when it is
-- whole (or there are no graphs), else { reason = text, partial_replays,
-- empty_launches }.  idle-time and step-breakdown mark their idle and busy
-- figures unreliable with this reason.
function M.recording(p, ops, res)
  res = res or M.analyse(p, ops)
  if not res then return nil end
  local ne = res.empty and res.empty:nrows() or 0
  local np = res.partial or 0
  if ne == 0 and np == 0 then return nil end
  local parts = {}
  if ne > 0 then
    parts[#parts + 1] = string.format("%d graph launch%s recorded no GPU work", ne, ne == 1 and "" or "es")
  end
  if np > 0 then
    parts[#parts + 1] = string.format("%d graph replay%s recorded a different number of ops than %s graph's other replays",
      np, np == 1 and "" or "s", np == 1 and "its" or "their")
  end
  return { reason = table.concat(parts, "; ") .. ": the profiler dropped part of the replayed work, so the "
             .. "GPU was busier than recorded", partial_replays = np, empty_launches = ne }
end

--- A boolean column over p.tables.kernels: the kernel was replayed by a
-- graph (its runtime call, by correlation, is a graph launch, or the row
-- has a graph_id).  All false without a runtime table or correlation ids.
function M.kernel_mask(p)
  local k = p.tables.kernels
  if not k then error("kernel_mask: the profile has no kernels table", 2) end
  local first = k:col(k:columns()[1])
  local g = first:present() & ~first:present()
  if k:has("graph_id") then g = g | k:col("graph_id"):present() end
  local rt = p.tables.runtime
  if rt and rt:nrows() > 0 and rt:has("correlation") and rt:has("name") and k:has("correlation") then
    local at = rt:col("correlation"):index_of(k:col("correlation"))
    g = g | graph_launch_mask(rt:col("name"):at(at))
  end
  return g
end

--- Kernel -> op attribution for replayed kernels: three columns of the
-- kernels table's length, op_id (External id), op_name and replayed (the
-- kernel_mask).  A replayed kernel belongs to the op enclosing its graph
-- launch (aten::graph_wrapper_fwd, vLLM's model runner): its correlation
-- names the graph launch, whose External id, else its enclosing op on the
-- launching thread, is the op (perflab.timeline.launch_link_columns'
-- rules, which follow the runtime call of each kernel).  op_id and
-- op_name are missing for kernels that are not replayed, or whose launch
-- has no op; nil when the profile has no op to link.
function M.kernel_ops(p)
  local id, name = IV.launch_link_columns(p)
  local mask = M.kernel_mask(p)
  if not id then return nil, nil, mask end
  return id:keep(mask), name:keep(mask), mask
end

return M

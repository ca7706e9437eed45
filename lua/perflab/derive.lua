--- perflab.derive: standard tables derived in Lua right after a parser ran,
-- where a format carries the information in another shape.  Each entry is
-- keyed by format id and adds tables to the profile (never replaces one the
-- parser made).  Documented in README.md (Formats).
--
--   comparison-report -> kernel_summary: one row per (function, device) and
--     side (run 1 = the baseline, run 2 = the compared run), with
--     share_pct = β (the function's share of cycle time) and
--     total_ns = β/100 x average cycle time x cycles of that side; calls are
--     not in the report and stay missing.
--   torch-table -> kernel_summary: the rows that ran on the device alone
--     (below, at M["torch-table"]).
local formats = require "perflab.formats"
local T = require "perflab.table"

local M = {}

local function summary_value(s, metric, side)
  for _, r in s:rows() do
    if r.metric == metric then return r[side] end
  end
  return nil
end

M["comparison-report"] = function(p)
  local d, s = p.tables.details, p.tables.summary
  if not d or p.tables.kernel_summary then return end
  local cols = { normal = "beta_normal_pct", abnormal = "beta_abnormal_pct" }
  local sides = { { run = 1, side = "normal", label = p.meta.baseline_label or "normal" },
                  { run = 2, side = "abnormal", label = p.meta.compare_label or "abnormal" } }
  local rows, seen = {}, {}
  for _, side in ipairs(sides) do
    local cycles = s and summary_value(s, "Total Cycles", side.side)
    local avg = s and summary_value(s, "Avg Cycle Time (us)", side.side)
    local span = (cycles and avg) and cycles * avg or nil
    for _, r in d:rows() do
      local key = side.run .. "\0" .. (r["function"] or "") .. "\0" .. (r.device or "")
      local beta = r[cols[side.side]]
      if not seen[key] and r["function"] and beta then
        seen[key] = true
        local short = formats.short_name(r["function"])
        rows[#rows + 1] = { run = side.run, run_label = side.label, name = r["function"], short_name = short,
                            device = r.device, share_pct = beta,
                            total_ns = span and beta / 100 * span or nil }
      end
    end
  end
  if #rows > 0 then
    local t = T.from_rows(rows, { "run", "run_label", "name", "short_name", "device", "calls", "total_ns",
        "share_pct" },
      "kernel_summary")
    p.tables.kernel_summary = t
    p.table_order[#p.table_order + 1] = "kernel_summary"
    p.diagnostics[#p.diagnostics + 1] = { line = 0, message =
      "kernel_summary derived from details: share_pct = beta, total_ns = beta x average cycle time x cycles; calls unknown" }
  end
end

-- kineto -> nvtx: the events of category "nvtx" (what `perflab export
--   chrome-trace` writes for an Nsight Systems export's NVTX ranges): name,
--   start_ns, end_ns, duration_ns, pid, tid (text, as the trace gives them).
M.kineto = function(p)
  local ev = p.tables.events
  if p.tables.nvtx or not (ev and ev:nrows() > 0 and ev:has("cat") and ev:has("ts_ns")
      and ev:has("dur_ns")) then return end
  -- one mask (a byte a row) first: most traces have no nvtx event, and the
  -- three masks of the full test are 9 MB for the 1 GB bench trace, held
  -- until the collector runs (the peak of a plain load)
  local m = ev:col("cat"):eq("nvtx")
  if m:count_true() == 0 then return end
  m = m & ev:col("ph"):eq("X")
  local x = ev:filter(m):select("name", "ts_ns", "dur_ns", "pid", "tid")
  if x:nrows() == 0 then return end
  x = x:rename("ts_ns", "start_ns"):rename("dur_ns", "duration_ns")
  x = x:with("end_ns", x:col("start_ns") + x:col("duration_ns"))
  local t = x:select("name", "start_ns", "end_ns", "duration_ns", "pid", "tid")
  p.tables.nvtx = t
  p.table_order[#p.table_order + 1] = "nvtx"
  p.diagnostics[#p.diagnostics + 1] = { line = 0, message =
    string.format("nvtx: %d ranges read from the events of category \"nvtx\" (a chrome-trace export of an Nsight Systems profile)", t:nrows()) }
end

-- torch-table -> kernel_summary: the rows of a key_averages table that ran
--   on the device alone: no host time (CPU total 0, as printed) and device
--   time above 0.  Those are kernels, copies and sets, and the
--   record_function ranges PyTorch also records on the GPU.  A mirrored range
--   has a row with host time under the same name in the same table: left
--   out; copies and sets (the profiler's activity names "Memcpy ..." and
--   "Memset ...") are not kernels: left out.  One table: the file's first
--   that has such rows (a second table is most often the same profile
--   sorted another way).  total_ns is the row's self device time.
M["torch-table"] = function(p)
  local ops = p.tables.operators
  if p.tables.kernel_summary or not (ops and ops:nrows() > 0 and ops:has("cpu_total_ns")) then return end
  local dev
  for _, c in ipairs(ops:columns()) do
    local d = c:match("^self_(%w+)_ns$")
    if d and d ~= "cpu" then dev = d; break end
  end
  if not dev then return end
  local self_dev = ops:col("self_" .. dev .. "_ns")
  local devonly = ops:col("cpu_total_ns"):eq(0) & self_dev:gt(0)
  if devonly:count_true() == 0 then return end
  local tbl
  if ops:has("table_index") then
    tbl = ops:col("table_index"):keep(devonly):min()
    ops = ops:filter(ops:col("table_index"):eq(tbl))
    self_dev = ops:col("self_" .. dev .. "_ns")
    devonly = ops:col("cpu_total_ns"):eq(0) & self_dev:gt(0)
  end
  local name = ops:col("name")
  local host = name:keep(ops:col("cpu_total_ns"):gt(0))
  local mirrored = devonly & name:isin(host)
  local copies = devonly & (name:match("^Memcpy ") | name:match("^Memset "))
  local k = devonly & ~mirrored & ~copies
  local nk = k:count_true()
  if nk == 0 then return end
  local sd = "self_" .. dev .. "_ns"
  local cols = {}
  for _, c in ipairs({ "name", "calls", sd, "truncated", "line" }) do
    if ops:has(c) then cols[#cols + 1] = c end
  end
  local ks = ops:filter(k, cols):rename(sd, "total_ns")
  ks = ks:with("short_name", ks:col("name"):map(formats.short_name))
  if ks:has("calls") then
    ks = ks:with("mean_ns", (ks:col("total_ns") / ks:col("calls")):keep(ks:col("calls"):gt(0)))
  end
  -- the footer's "Self CUDA time total" (every device event's self time)
  -- far above the device-only rows: the table lists part of the device
  -- time (row_limit, or sorted by memory, calls, ...); shares are then of
  -- the footer's total, which p.meta.kernel_summary_total_ns carries
  local footer = tonumber(p.meta and p.meta["self_" .. dev .. "_time_total_ns"])
  local listed = self_dev:sum { where = devonly }
  local partial = footer and footer > 0 and listed < 0.9 * footer
  ks = ks:with("share_pct", ks:col("total_ns") * (100 / (partial and footer or ks:col("total_ns"):sum())))
  if partial then
    p.meta.kernel_summary_total_ns = footer
    p.meta.kernel_summary_total_what = "device time"
    p.diagnostics[#p.diagnostics + 1] = { line = 0, message = string.format(
      "kernel_summary: the table's device-only rows hold %.1f %% of the device time its footer records (Self %s "
      .. "time total %s ns): it lists part of it (row_limit, or sorted by another column); kernel shares are of "
      .. "the footer's total", 100 * listed / footer, dev:upper(), string.format("%.0f", footer)) }
  end
  local order = {}
  for _, c in ipairs({ "name", "short_name", "calls", "total_ns", "mean_ns", "share_pct", "truncated", "line" }) do
    if ks:has(c) then order[#order + 1] = c end
  end
  p.tables.kernel_summary = ks:select(table.unpack(order))
  p.table_order[#p.table_order + 1] = "kernel_summary"
  p.diagnostics[#p.diagnostics + 1] = { line = 0, message = string.format(
    "kernel_summary: %d of %d rows%s ran on the device alone (CPU total 0); left out: %d record_function "
    .. "range(s) mirrored on the GPU (same name with host time), %d copies and sets", nk, ops:nrows(),
    tbl and string.format(" of table %d", tbl) or "", mirrored:count_true(), copies:count_true()) }
end

-- paddle-summary: a Kernel Summary excerpt (the docs print part of it, a
--   long table is cut) lists part of the kernel time the Overview Summary
--   records (its GPU "Kernel" row): where the listed kernels hold < 90 %
--   of it, p.meta.kernel_summary_total_ns carries the recorded total (as
--   for torch-table) and a diagnostic says so.
M["paddle-summary"] = function(p)
  local ks, ov = p.tables.kernel_summary, p.tables.overview
  if not (ks and ov and ks:nrows() > 0 and ks:has("total_ns") and ov:has("event_type") and ov:has("time_ns")) then
    return
  end
  local m = ov:col("event_type"):eq("Kernel")
  if ov:has("side") then m = m & ov:col("side"):eq("GPU") end
  local recorded = ov:col("time_ns"):max { where = m }
  local listed = ks:col("total_ns"):sum()
  if recorded and recorded > 0 and listed < 0.9 * recorded then
    p.meta.kernel_summary_total_ns = recorded
    p.meta.kernel_summary_total_what = "kernel time"
    p.diagnostics[#p.diagnostics + 1] = { line = 0, message = string.format(
      "kernel_summary: the Kernel Summary lists %.1f %% of the kernel time the Overview Summary records (%.0f ns): "
      .. "it is an excerpt or cut", 100 * listed / recorded, recorded) }
  end
end

--- The tables each derivation reads, by the table it makes: a load asking
-- for some tables only (opts.tables) asks for these too (M.expand).
M.sources = { kernel_summary = { "details", "summary", "operators", "overview" }, nvtx = { "events" } }

--- tables plus the tables their derivations read (a new array).
function M.expand(tables)
  local out, seen = {}, {}
  local function add(n) if not seen[n] then seen[n] = true; out[#out + 1] = n end end
  for _, n in ipairs(tables) do
    add(n)
    for _, s in ipairs(M.sources[n] or {}) do add(s) end
  end
  return out
end

--- Applies the derivation for p.format, if any.
function M.apply(p)
  local f = M[p.format]
  if f and not (p.tables and next(p.tables) == nil) then f(p) end
  return p
end

return M

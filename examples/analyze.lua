--- analyze.lua: an analysis script on the perflab API.
--   perflab examples/analyze.lua FILE [SHARE_PCT]
-- Where the time of a kernel trace goes: launches and total time, the
-- launch-time distribution, how few kernels make SHARE_PCT (default 80) of
-- the time, and for those kernels their calls, total and tail latency.
local path, share = arg[1], tonumber(arg[2] or "80")
if not path or not share then
  io.stderr:write("usage: perflab analyze.lua FILE [SHARE_PCT]\n")
  return 2
end
local units = perflab.units
local k = perflab.load(path):table("kernels")
local d = k:col("duration_ns")
local total = d:sum()
print(string.format("%s: %d launches, %s of kernel time", path, k:nrows(), units.ns(total)))
print(string.format("launch time: p50 %s  p90 %s  p99 %s  max %s",
  units.ns(d:quantile(0.5)), units.ns(d:quantile(0.9)), units.ns(d:quantile(0.99)), units.ns(d:max())))

local per = k:group_by("name"):agg {
  { "calls", "count" },
  { "total_ns", "sum", "duration_ns" },
  { "p99_ns", "quantile", "duration_ns", 0.99 },
}:sort_by("-total_ns", "name")
-- the fewest kernels whose time adds up to `share` percent
local acc, n = 0, 0
for _, r in per:rows() do
  if acc >= share / 100 * total then break end
  acc = acc + r.total_ns
  n = n + 1
end
print(string.format("%d of %d kernels make %.1f %% of the time (>= %g %%):", n, per:nrows(), 100 * acc / total, share))
local top = per:head(n)
top:add_column("share_pct", function(r) return 100 * r.total_ns / total end, "number")
io.write(top:format { width = 40 })
return 0

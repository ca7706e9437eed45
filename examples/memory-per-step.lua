-- The operators that allocate more than N MB per profiler step, per device,
-- from a trace recorded with profile_memory=True:
--   perflab examples/memory-per-step.lua TRACE [MB]
-- Per operator: the bytes it allocates itself (self allocation size, the
-- memory recipe's `operators` table) divided by the number of steps.
local path, mb = arg[1], tonumber(arg[2] or "1")
if not path then io.stderr:write("usage: perflab examples/memory-per-step.lua TRACE [MB]\n"); os.exit(2) end
local p = perflab.load(path)
local rep = perflab.run("memory", p)
local ops = rep.tables.operators
if not ops then
  print(rep.notes[1] or "no memory events")
  return
end
local steps = p.tables.steps and p.tables.steps:nrows() or 0
local n = math.max(steps, 1)
local per_step = ops:col("self_alloc_bytes") / n
local t = ops:select("device", "name", "self_alloc_bytes", "self_alloc_count", "calls"):with("mb_per_step",
    per_step / 1e6)
t = t:filter(t:col("mb_per_step"):gt(mb))
t = t:take(t:order("device", "-mb_per_step"))
print(string.format("%s: %d steps; operators allocating more than %g MB per step: %d", path, steps, mb, t:nrows()))
io.write(t:format { digits = 4 })

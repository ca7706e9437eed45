--- ci-gate.lua: a CI performance gate.  Compares the kernel time of a run
-- with a baseline through examples/recipes/kernel-regression.lua and fails
-- the job when it grew by more than a threshold.
--   perflab examples/ci-gate.lua BASELINE CURRENT [THRESHOLD_PCT]   (default 5)
-- Exit status: 0 within the threshold; 1 a regression; 2 bad usage or input.
-- With $GITHUB_STEP_SUMMARY set, the report is appended there as Markdown.
local base, cur, threshold = arg[1], arg[2], tonumber(arg[3] or "5")
if not base or not cur or not threshold or arg[4] then
  io.stderr:write("usage: perflab ci-gate.lua BASELINE CURRENT [THRESHOLD_PCT]\n")
  return 2
end
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local report = perflab.run(here .. "/recipes/kernel-regression.lua", { base, cur },
  { threshold = threshold, top = 5 })
io.write(report:render("text"))
local summary = os.getenv("GITHUB_STEP_SUMMARY")
if summary and summary ~= "" then
  local f = assert(io.open(summary, "a"))
  f:write(report:render("markdown"), "\n")
  f:close()
end
if report:max_severity() == "error" then
  io.stderr:write(string.format("ci-gate: kernel time regressed by more than %g %%\n", threshold))
  return 1
end
return 0

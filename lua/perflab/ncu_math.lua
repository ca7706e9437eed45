--- perflab.ncu_math: the arithmetic of Nsight Compute's rules on one
-- kernel: roofline (attainable, ridge, bound by intensity), the
-- SOLBottleneck classification and the LaunchStatistics checks (waves, tail
-- effect, block size, small grid), with their thresholds as editable data.
-- perflab.ncu_rules holds the rule set (metric names, messages) that
-- recipes/ncu-rules.lua runs; this module is the numbers behind the
-- occupancy, launch and roofline recipes.  perflab.gpu re-exports every
-- field under its old name (gpu.thresholds is this module's table).
--
-- Reference: ../shared/reference/analysis-rules.md items 1-6.

local fmt_pct = require("perflab.cuda_occupancy").fmt_pct

local M = {}

-- Thresholds of the ncu rules (analysis-rules.md); editable data.
M.thresholds = {
  sol_high = 80,            -- SOLBottleneck: either throughput >= 80 -> high throughput
  sol_low = 60,             -- both < 60 -> latency issue (or small grid)
  sol_diff = 10,            -- |sm - mem| >= 10 -> compute / memory dominated
  occupancy_low = 80,       -- TheoreticalOccupancy: theoretical < 80 % of max
  achieved_gap = 10,        -- AchievedOccupancy: theoretical - achieved > 10 points
  tail_min_speedup = 20,    -- LaunchStatistics tail effect (2025.x): 100/(whole+1) >= 20
}

local function ceil_div(a, b) return (a + b - 1) // b end

---------------------------------------------------------------------------
-- roofline
---------------------------------------------------------------------------

--- attainable FLOP/s = min(peak, AI x bandwidth)
function M.attainable(peak, bandwidth, ai)
  return math.min(peak, ai * bandwidth)
end

--- ridge point (FLOP/byte) = peak / bandwidth
function M.ridge(peak, bandwidth) return peak / bandwidth end

--- bound by arithmetic intensity: "memory" left of the ridge, else "compute"
function M.bound_by_ai(ai, peak, bandwidth)
  if ai < peak / bandwidth then return "memory" end
  return "compute"
end

--- ncu SOLBottleneck classification from Compute (SM) % and Memory %.
--- Returns id, bound, text where id is one of "high_throughput",
--- "small_grid", "latency", "compute", "memory", "balanced" and bound one of
--- "compute-bound", "memory-bound", "latency-bound", "balanced".
function M.sol_class(compute_pct, memory_pct, waves_per_sm, th)
  th = th or M.thresholds
  local sm, mem = compute_pct, memory_pct
  if sm >= th.sol_high or mem >= th.sol_high then
    if sm >= mem then
      return "high_throughput", "compute-bound",
        string.format("compute throughput %s %% of peak: the kernel is compute-bound; shift work to a less busy unit or reduce instructions", fmt_pct(sm))
    end
    return "high_throughput", "memory-bound",
      string.format("memory throughput %s %% of peak: the kernel is memory-bound; reduce or coalesce traffic",
          fmt_pct(mem))
  end
  if sm < th.sol_low and mem < th.sol_low then
    if waves_per_sm and waves_per_sm < 1 then
      return "small_grid", "latency-bound",
        string.format("compute %s %% and memory %s %% are both below %d %% and the grid fills only %.2f waves: the grid is too small to fill the GPU",
          fmt_pct(sm), fmt_pct(mem), th.sol_low, waves_per_sm)
    end
    return "latency", "latency-bound",
      string.format("compute %s %% and memory %s %% are both below %d %%: latency issue; look at scheduler and warp-state statistics",
        fmt_pct(sm), fmt_pct(mem), th.sol_low)
  end
  if math.abs(sm - mem) >= th.sol_diff then
    if sm > mem then
      return "compute", "compute-bound",
        string.format("compute throughput %s %% is %s points above memory: compute dominates", fmt_pct(sm),
            fmt_pct(sm - mem))
    end
    return "memory", "memory-bound",
      string.format("memory throughput %s %% is %s points above compute: memory dominates", fmt_pct(mem),
          fmt_pct(mem - sm))
  end
  return "balanced", "balanced",
    string.format("compute %s %% and memory %s %% are within %d points: balanced throughput", fmt_pct(sm),
        fmt_pct(mem), th.sol_diff)
end

---------------------------------------------------------------------------
-- launch configuration (ncu LaunchStatistics rules)
---------------------------------------------------------------------------

--- waves per SM = grid / (SMs x active blocks per SM)
function M.waves(grid, sm_count, active_blocks)
  if not active_blocks or active_blocks <= 0 then return nil end
  return grid / (sm_count * active_blocks)
end

--- tail effect: whole waves, partial wave fraction, blocks in the partial
--- wave and the ncu 2025.x estimate 100/(whole+1) % (the share of the run
--- the partial wave can take); fires when partial > 0, whole >= 1 and the
--- estimate >= thresholds.tail_min_speedup.
function M.tail(grid, sm_count, active_blocks, th)
  th = th or M.thresholds
  local w = M.waves(grid, sm_count, active_blocks)
  if not w then return nil end
  local whole = math.floor(w)
  local partial = w - whole
  local r = { waves = w, whole = whole, partial = partial,
              last_wave_fill_pct = partial * 100,
              partial_blocks = (partial > 0) and math.ceil(grid * partial / w) or 0,
              speedup_pct = (partial > 1e-9 and whole >= 1) and 100 / (whole + 1) or 0 }
  r.fires = partial > 1e-9 and whole >= 1 and r.speedup_pct >= th.tail_min_speedup
  return r
end

--- block size not a multiple of 32: speedup = (1/ceil(bs/32)) x (1 - (bs mod 32)/32) x 100
function M.block_size_check(bs)
  if bs % 32 == 0 then return nil end
  return { speedup_pct = (1 / ceil_div(bs, 32)) * (1 - (bs % 32) / 32) * 100,
           wasted_threads = 32 - bs % 32 }
end

--- small grid: grid < SMs -> severity "high", speedup (SMs - grid)/SMs x 100;
--- grid < 2 x SMs -> severity "low" (advice only).  nil otherwise.
function M.small_grid(grid, sm_count)
  if grid < sm_count then
    return { severity = "high", speedup_pct = (sm_count - grid) / sm_count * 100 }
  elseif grid < 2 * sm_count then
    return { severity = "low", speedup_pct = 0 }
  end
  return nil
end

---------------------------------------------------------------------------
-- the same checks on columns (one value per launch, computed in C by
-- column expressions; docs/table-api.md): the arguments are columns of one
-- length or numbers, the results columns with the scalar functions'
-- values row by row (missing where the scalar function gives nil)
---------------------------------------------------------------------------

local T = require "perflab.table"
local function is_col(x) return type(x) == "userdata" and not T.is_table(x) end

-- where cond: a, else b (a column or number)
local function choose(cond, a, b) return a:keep(cond):fill(b) end

--- waves_col(grid, sm_count, active_blocks) -> column: grid / (SMs x
--- active), missing where active is missing or <= 0
function M.waves_col(grid, sm_count, active_blocks)
  local w = grid / (sm_count * active_blocks)
  if is_col(active_blocks) then return w:keep(active_blocks:gt(0)) end
  return w
end

--- tail_col(grid, sm_count, active_blocks [, th]) -> { waves, whole,
--- partial, last_wave_fill_pct, partial_blocks, speedup_pct, fires } as
--- columns (fires a mask; the rest missing where waves is)
function M.tail_col(grid, sm_count, active_blocks, th)
  th = th or M.thresholds
  local w = M.waves_col(grid, sm_count, active_blocks)
  local whole = w:floor()
  local partial = w - whole
  local has_partial, some = partial:gt(1e-9), whole:ge(1)
  local speedup = choose(has_partial & some, 100 / (whole + 1), 0):keep(w:present())
  return {
    waves = w, whole = whole, partial = partial, last_wave_fill_pct = partial * 100,
    partial_blocks = choose(partial:gt(0), (grid * partial / w):ceil(), 0):keep(w:present()),
    speedup_pct = speedup,
    fires = has_partial & some & speedup:ge(th.tail_min_speedup),
  }
end

--- block_size_check_col(bs) -> { speedup_pct, wasted_threads, fires }:
--- columns, the speedup and waste missing where bs is a multiple of 32
function M.block_size_check_col(bs)
  local rem = bs % 32
  local fires = rem:ne(0)
  return { fires = fires,
    speedup_pct = ((1 / ((bs + 31) // 32)) * (1 - rem / 32) * 100):keep(fires),
    wasted_threads = (32 - rem):keep(fires) }
end

--- small_grid_col(grid, sm_count) -> { high, low, speedup_pct }: masks of
--- grid < SMs and SMs <= grid < 2 x SMs; speedup (SMs - grid)/SMs x 100
--- where high, 0 where low, missing elsewhere
function M.small_grid_col(grid, sm_count)
  local high = grid:lt(sm_count)
  local low = grid:ge(sm_count) & grid:lt(sm_count * 2)
  local sp = choose(high, (sm_count - grid) / sm_count * 100, 0)
  return { high = high, low = low, speedup_pct = sp:keep(high | low) }
end

return M

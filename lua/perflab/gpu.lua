-- perflab.gpu -- kernel-level GPU arithmetic: the CUDA occupancy calculator,
-- Kineto's estimated achieved occupancy, roofline and launch-configuration
-- helpers with the thresholds and speedup formulas of Nsight Compute's rules.
--
-- Pure Lua (no host needed): runs under a stock lua5.4 with
--   package.path = "lua/?.lua;" .. package.path
--
-- References: ../shared/reference/gpu-facts.md section 1.4 (the algorithm of
-- cuda_occupancy.h restated, with ncu's Shared Memory Configuration Size as C)
-- and ../shared/reference/analysis-rules.md items 1-6 (ncu rule thresholds).

local gpus = require("perflab.gpus")

local M = {}
-- The calculators' argument tables are strict (perflab.options).
local OCC_ARGS = { "barriers", "block", "block_size", "carveout_pct", "cc", "optin", "registers",
  "smem_config", "smem_driver", "smem_dynamic", "smem_static" }
local check = require("perflab.options").check

-- Thresholds of the ncu rules (analysis-rules.md); editable data.
M.thresholds = {
  sol_high = 80,            -- SOLBottleneck: either throughput >= 80 -> high throughput
  sol_low = 60,             -- both < 60 -> latency issue (or small grid)
  sol_diff = 10,            -- |sm - mem| >= 10 -> compute / memory dominated
  occupancy_low = 80,       -- TheoreticalOccupancy: theoretical < 80 % of max
  achieved_gap = 10,        -- AchievedOccupancy: theoretical - achieved > 10 points
  tail_min_speedup = 20,    -- LaunchStatistics tail effect (2025.x): 100/(whole+1) >= 20
}

local INF = math.huge

local function ceil_div(a, b) return (a + b - 1) // b end

local function resolve_arch(cc)
  if type(cc) == "table" and cc.max_warps_per_sm then return cc end
  local a, err = gpus.cc(cc)
  if not a then error("perflab.gpu: " .. err, 3) end
  return a
end
M.arch = resolve_arch

local function threads_of(b)
  if type(b) == "table" then
    return (b[1] or b.x or 1) * (b[2] or b.y or 1) * (b[3] or b.z or 1)
  end
  return b
end

local function kb(n)
  if n % 1024 == 0 then return string.format("%d KB", n // 1024) end
  return string.format("%.1f KB", n / 1024)
end
M.kb = kb

-- smallest supported carveout capacity >= bytes (nil when none)
local function carveout_at_least(a, bytes)
  for _, c in ipairs(a.smem_carveouts_kb) do
    if c * 1024 >= bytes then return c * 1024 end
  end
  return nil
end

local LIMIT_NAMES = {
  { key = "block_limit_sm", name = "blocks" },         -- ncu "Block Limit SM"
  { key = "block_limit_warps", name = "warps" },
  { key = "block_limit_registers", name = "registers" },
  { key = "block_limit_smem", name = "shared memory" },
  { key = "block_limit_barriers", name = "barriers" },
}
M.LIMIT_NAMES = LIMIT_NAMES

--- gpu.occupancy{cc=, block_size=, registers=, smem_static=, smem_dynamic=,
---   smem_config=, smem_driver=, barriers=, carveout_pct=, optin=}
---
--- block_size: threads, or {x, y, z}.  registers: per thread.  smem_*: bytes
--- per block.  smem_config: ncu's "Shared Memory Configuration Size"
--- (launch__shared_mem_config_size) in bytes; when absent the runtime
--- occupancy API's rule is used (carveout_pct, default the full shared memory
--- per SM, rounded up to a supported capacity, raised to hold one block) and
--- `assumption` says so.  smem_driver: driver-reserved bytes per block
--- (default 1 KB from CC 8.0, 0 before).  barriers: named barriers per block
--- (default 1; only CC >= 9.0 has a barrier limit).  optin (default true):
--- the kernel may use the opt-in maximum shared memory per block; false
--- limits it to the 48 KB default (what Kineto's estimate assumes).
---
--- Returns a table with block_limit_sm, block_limit_warps,
--- block_limit_registers, block_limit_smem, block_limit_barriers (CC >= 9.0),
--- active_blocks, warps_per_block, theoretical_warps,
--- theoretical_occupancy_pct, max_warps_per_sm, limiter = {names...},
--- limiter_keys = {block_limit_*...}, smem_per_block_allocated,
--- regs_per_warp_allocated, smem_config_used, assumption (string or nil),
--- invalid (string when the launch cannot run: a limit of 0).
--- A limit that does not apply (no registers, no shared memory) is reported
--- as the SM block limit, as ncu prints it.
function M.occupancy(args)
  check(args, OCC_ARGS, "perflab.gpu.occupancy")
  local a = resolve_arch(args.cc)
  local T = threads_of(args.block_size or args.block)
  if not T or T <= 0 then error("perflab.gpu.occupancy: block_size must be > 0", 2) end
  local R = args.registers or 0
  local s_static = args.smem_static or 0
  local s_dyn = args.smem_dynamic or 0
  local s_res = args.smem_driver or a.smem_reserved_per_block
  local nbar = args.barriers or 1
  local r = { cc = a.cc, block_size = T, registers = R, max_warps_per_sm = a.max_warps_per_sm }

  -- step 0: warps per block (no rounding to 4 here)
  local W = ceil_div(T, a.warp_size)
  r.warps_per_block = W

  -- step 1
  local L_sm = a.max_blocks_per_sm
  r.block_limit_sm = L_sm

  -- step 2
  local L_warps
  if T > a.max_threads_per_block then L_warps = 0 else L_warps = a.max_warps_per_sm // W end
  r.block_limit_warps = L_warps

  -- step 3: registers, allocated per warp in units of 256
  local L_regs
  if R <= 0 then
    L_regs = INF
  else
    local rw = ceil_div(R * a.warp_size, a.reg_alloc_unit) * a.reg_alloc_unit
    r.regs_per_warp_allocated = rw
    local g = a.warp_alloc_granularity
    if R > a.max_regs_per_thread + 1 or rw * W > a.max_regs_per_block
       or rw * ceil_div(W, g) * g > a.regs_per_sm then
      L_regs = 0
    else
      local per_sub = a.regs_per_sub_partition // rw
      L_regs = (per_sub * a.sub_partitions) // W
    end
  end

  -- step 4: shared memory
  local unit = a.smem_alloc_unit
  local A = ceil_div(s_static + s_dyn + s_res, unit) * unit
  r.smem_per_block_allocated = A
  r.smem_bytes = s_static + s_dyn
  local max_block = (args.optin == false) and a.max_smem_per_block_default or a.max_smem_per_block_optin
  local C = args.smem_config
  if C == nil then
    local want
    if args.carveout_pct then
      want = math.ceil(args.carveout_pct * a.smem_per_sm / 100)
    else
      want = a.smem_per_sm
    end
    C = carveout_at_least(a, want) or a.smem_per_sm
    if C < A then C = carveout_at_least(a, A) or C end
    r.assumption = string.format(
      "shared-memory configuration size not given: assumed %s (%s), so Block Limit Shared Mem is an upper bound (the driver may configure less, as ncu's launch__shared_mem_config_size would show)",
      kb(C), args.carveout_pct and string.format("carveout %g %% rounded up", args.carveout_pct)
        or "the runtime occupancy API's default: the full carveout")
  end
  r.smem_config_used = C
  local L_smem
  if A > max_block + s_res then
    L_smem = 0
    r.invalid = string.format("%d B of shared memory per block exceeds the %s per-block maximum",
      A, kb(max_block))
  elseif A == 0 then
    L_smem = INF
  else
    L_smem = C // A
  end

  -- step 5: barriers (CC >= 9.0)
  local L_bar = INF
  if a.barrier_factor then
    L_bar = (a.barrier_factor * L_sm) // nbar
    r.block_limit_barriers = L_bar
  end

  -- step 7
  local B = math.min(L_sm, L_warps, L_regs, L_smem, L_bar)
  r.block_limit_registers = (L_regs == INF) and L_sm or L_regs
  r.block_limit_smem = (L_smem == INF) and L_sm or L_smem
  r.active_blocks = B
  r.theoretical_warps = B * W
  r.theoretical_occupancy_pct = 100 * B * W / a.max_warps_per_sm
  if B == 0 and not r.invalid then
    if L_warps == 0 then r.invalid = "block size above the 1024-thread maximum"
    elseif L_regs == 0 then r.invalid = "too many registers per block"
    else r.invalid = "launch cannot fit on an SM" end
  end
  local lim, keys = {}, {}
  local actual = { block_limit_sm = L_sm, block_limit_warps = L_warps,
                   block_limit_registers = L_regs, block_limit_smem = L_smem,
                   block_limit_barriers = L_bar }
  for _, l in ipairs(LIMIT_NAMES) do
    if actual[l.key] == B then lim[#lim + 1] = l.name; keys[#keys + 1] = l.key end
  end
  r.limiter = lim
  r.limiter_keys = keys
  return r
end

local function fmt_pct(x)
  local s = string.format("%.1f", x)
  return (s:gsub("%.0$", ""))
end
M.fmt_pct = fmt_pct

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

--- gpu.what_if(args [, result]) -> list of { resource =, value =, active_blocks =,
--- theoretical_occupancy_pct =, text = } for the change of one resource that
--- reaches the next occupancy step: the largest registers per thread, the
--- largest shared memory per block (static + dynamic), and the nearest block
--- size (same registers and shared memory per block) that raise the
--- theoretical occupancy.  The shared-memory configuration is assumed to
--- grow to the architecture's maximum carveout if that helps (the driver
--- picks it per launch), which the text says.
function M.what_if(args, res)
  check(args, OCC_ARGS, "perflab.gpu.what_if")
  res = res or M.occupancy(args)
  local a = resolve_arch(args.cc)
  local out = {}
  local base = copy(args)
  base.smem_config = a.smem_per_sm   -- driver may raise the carveout
  local cur = res.theoretical_occupancy_pct
  local B = res.active_blocks
  local W = res.warps_per_block
  if B * W >= a.max_warps_per_sm then return out end

  -- registers
  local R = args.registers or 0
  if R > 0 then
    for r2 = R - 1, 1, -1 do
      local t = copy(base); t.registers = r2
      local o = M.occupancy(t)
      if o.theoretical_occupancy_pct > cur then
        out[#out + 1] = { resource = "registers", value = r2, active_blocks = o.active_blocks,
          theoretical_occupancy_pct = o.theoretical_occupancy_pct,
          text = string.format("at <= %d registers per thread, %d block%s per SM: %s %%",
            r2, o.active_blocks, o.active_blocks == 1 and " fits" or "s fit",
            fmt_pct(o.theoretical_occupancy_pct)) }
        break
      end
      -- registers alone cannot help once the allocation is at its minimum
      if r2 <= 8 then break end
    end
  end

  -- shared memory (static + dynamic per block)
  local S = (args.smem_static or 0) + (args.smem_dynamic or 0)
  if S > 0 then
    local res_b = args.smem_driver or a.smem_reserved_per_block
    local unit = a.smem_alloc_unit
    local C = a.smem_per_sm
    for target = B + 1, a.max_blocks_per_sm do
      local A2 = (C // target) // unit * unit
      local S2 = A2 - res_b
      if S2 < 0 then break end
      if S2 >= S then goto continue end
      do
        local t = copy(base); t.smem_static = S2; t.smem_dynamic = 0
        local o = M.occupancy(t)
        if o.theoretical_occupancy_pct > cur then
          out[#out + 1] = { resource = "shared memory", value = S2, active_blocks = o.active_blocks,
            theoretical_occupancy_pct = o.theoretical_occupancy_pct,
            text = string.format("at <= %d bytes of shared memory per block (%s configuration), %d block%s per SM: %s %%",
              S2, kb(C), o.active_blocks, o.active_blocks == 1 and " fits" or "s fit",
              fmt_pct(o.theoretical_occupancy_pct)) }
        end
        break
      end
      ::continue::
    end
  end

  -- block size: nearest multiple of 32 with higher theoretical occupancy
  local T = res.block_size
  local best, best_d
  for bs = 32, a.max_threads_per_block, 32 do
    if bs ~= T then
      local t = copy(base); t.block_size = bs
      local o = M.occupancy(t)
      if o.theoretical_occupancy_pct > cur + 1e-9 then
        local d = math.abs(bs - T)
        if not best_d or d < best_d then best, best_d = { bs, o }, d end
      end
    end
  end
  if best then
    local bs, o = best[1], best[2]
    out[#out + 1] = { resource = "block size", value = bs, active_blocks = o.active_blocks,
      theoretical_occupancy_pct = o.theoretical_occupancy_pct,
      text = string.format("with %d threads per block (same registers and shared memory per block), %d block%s per SM: %s %%",
        bs, o.active_blocks, o.active_blocks == 1 and " fits" or "s fit", fmt_pct(o.theoretical_occupancy_pct)) }
  end
  return out
end

-- round a double to IEEE single precision (Kineto computes in float)
local function f32(x)
  return (string.unpack("f", string.pack("f", x)))
end
M.f32 = f32

--- gpu.est_achieved_occupancy{cc=, block_size= | block={x,y,z},
---   grid_size= | grid={x,y,z}, registers=, smem= (static + dynamic, as
---   Kineto's "shared memory" arg), sm_count=, max_threads_per_sm=}
--- Kineto's "est. achieved occupancy %" (libkineto): blocks per SM from the
--- grid = grid / SMs (float), capped by the calculator's active blocks per SM
--- (runtime API rule: default full carveout, 48 KB per-block default
--- without opt-in), times threads per block / max threads per SM, in single
--- precision, x 100 rounded to the nearest integer.
--- Returns pct (the integer Kineto prints), exact (double), blocks_per_sm
--- (from the grid), active_blocks, and warps_pct = min(active, grid blocks
--- per SM) x warps per block / max warps x 100 (the warp-granular form).
function M.est_achieved_occupancy(args)
  check(args, { "block", "block_size", "cc", "grid", "grid_size", "max_threads_per_sm", "registers", "sm_count",
    "smem" }, "perflab.gpu.est_achieved_occupancy")
  local a = resolve_arch(args.cc)
  local T = threads_of(args.block_size or args.block)
  local Gs = threads_of(args.grid_size or args.grid)
  local sms = args.sm_count
  if not sms or sms <= 0 then error("perflab.gpu.est_achieved_occupancy: sm_count needed", 2) end
  local o = M.occupancy{ cc = a, block_size = T, registers = args.registers,
    smem_static = args.smem or 0, smem_dynamic = 0, optin = false }
  local maxthr = args.max_threads_per_sm or a.max_threads_per_sm
  local bps = f32(Gs / sms)
  local b = math.min(o.active_blocks, bps)
  local occ = f32(f32(f32(b) * T) / maxthr)
  local exact = math.min(o.active_blocks, Gs / sms) * T / maxthr * 100
  return {
    pct = math.floor(occ * 100 + 0.5),
    exact = exact,
    blocks_per_sm = Gs / sms,
    active_blocks = o.active_blocks,
    warps_pct = math.min(o.active_blocks, Gs / sms) * o.warps_per_block / a.max_warps_per_sm * 100,
  }
end

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
      string.format("memory throughput %s %% of peak: the kernel is memory-bound; reduce or coalesce traffic", fmt_pct(mem))
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
        string.format("compute throughput %s %% is %s points above memory: compute dominates", fmt_pct(sm), fmt_pct(sm - mem))
    end
    return "memory", "memory-bound",
      string.format("memory throughput %s %% is %s points above compute: memory dominates", fmt_pct(mem), fmt_pct(mem - sm))
  end
  return "balanced", "balanced",
    string.format("compute %s %% and memory %s %% are within %d points: balanced throughput", fmt_pct(sm), fmt_pct(mem), th.sol_diff)
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
-- helpers shared by the kernel recipes (occupancy, roofline, launch)
---------------------------------------------------------------------------

--- product of x/y/z columns of a row, or the scalar column
function M.dim(r, scalar, prefix)
  if r[scalar] then return r[scalar] end
  local x = r[prefix .. "_x"]
  if not x then return nil end
  return x * (r[prefix .. "_y"] or 1) * (r[prefix .. "_z"] or 1)
end

--- device context of a profile: what the input says first (meta device /
--- cc / sm_count, a `devices` table), then opts.gpu (--gpu NAME).  Returns
--- { model =, cc =, sm_count =, name =, source = text } (fields may be nil
--- when nothing says) or nil, message when --gpu names no known model.
function M.context(p, opts)
  gpus.load_user_overrides()
  local meta = p.meta or {}
  local dev = p.tables and p.tables.devices
  local drow = (dev and dev:nrows() > 0) and dev:row(1) or {}
  local ctx = { name = meta.device or drow.name, cc = meta.cc or drow.cc,
                sm_count = meta.sm_count or drow.sm_count, from = {} }
  if ctx.name then ctx.model = gpus.model(ctx.name) end
  if ctx.cc or ctx.sm_count or ctx.name then ctx.from[#ctx.from + 1] = "the input" end
  local g = opts and opts.gpu
  if g and g ~= "" and g ~= "auto" then
    local m, err = gpus.model(g)
    if not m then return nil, err end
    if not ctx.model then ctx.model = m; ctx.from[#ctx.from + 1] = "--gpu " .. g end
  end
  -- AMD devices in Kineto traces carry the gfx version as "cc" (gfx90a ->
  -- 9.0) and CUs as "SMs": never feed those to the NVIDIA calculator.
  -- (The Kineto reader gives them meta vendor AMD and arch gfx942 instead.)
  if meta.vendor == "AMD" or drow.vendor == "AMD" or meta.tool == "rocprof" or M.is_amd(ctx.name, drow.warp_size)
     or (ctx.model and ctx.model.vendor == "amd") then
    ctx.vendor = "amd"; ctx.cc = nil
    ctx.gfx = meta.arch or drow.arch or (ctx.model and ctx.model.arch) or meta.gfx_version or meta.cc or drow.cc
  end
  -- per device id (Kineto traces of several GPUs): cc, sm_count, threads per SM
  ctx.devices = {}
  if dev and dev:nrows() > 0 and dev:has("id") then
    for _, d in dev:rows() do
      if d.id then
        ctx.devices[d.id] = { cc = (ctx.vendor ~= "amd") and d.cc and (gpus.cc_key(d.cc) or d.cc) or nil,
          sm_count = d.sm_count, max_threads_per_sm = d.max_threads_per_sm, name = d.name }
      end
    end
  end
  if ctx.model then
    if not ctx.cc and ctx.model.cc and ctx.vendor ~= "amd" then ctx.cc = ctx.model.cc end
    if not ctx.sm_count then ctx.sm_count = ctx.model.sm_count end
  end
  if ctx.cc then ctx.cc = gpus.cc_key(ctx.cc) or ctx.cc end
  ctx.source = #ctx.from > 0 and table.concat(ctx.from, " and ") or "nowhere (not named in the input)"
  return ctx
end

--- true when a device name (or a 64-thread wavefront) says AMD
function M.is_amd(name, warp_size)
  if warp_size == 64 then return true end
  if type(name) ~= "string" then return false end
  local n = name:lower()
  return n:find("amd", 1, true) ~= nil or n:find("radeon", 1, true) ~= nil
    or n:find("instinct", 1, true) ~= nil or n:match("^mi%d") ~= nil
end

--- device figures for one kernel row: the row's own cc / sm_count, its
--- device id in ctx.devices (Kineto), then the input-wide context.
--- Returns cc, sm_count, max_threads_per_sm (any may be nil).
function M.row_device(r, ctx)
  local d = r.device and ctx.devices and ctx.devices[r.device]
  local cc = r.cc or (d and d.cc) or ctx.cc
  if ctx.vendor == "amd" then cc = nil end
  local sms = r.sm_count or (d and d.sm_count)
  if not sms and ctx.sm_count and ctx.source:find("the input", 1, true) then sms = ctx.sm_count end
  return cc and (gpus.cc_key(cc) or cc) or nil, sms, d and d.max_threads_per_sm
end

--- compute capability of an ncu launch that prints none (2020-2021 ncu):
--- the CCs whose constants reproduce the printed Block Limit SM / Warps,
--- driver shared memory, configuration size and the maximum warps per SM
--- implied by Theoretical Active Warps / Theoretical Occupancy; when more
--- than one fits and the SM count is known, the CCs of GPU models with that
--- SM count.  Returns cc (first candidate), list of candidates, how.
function M.infer_cc_row(r, sm_count)
  local bs = M.dim(r, "block_size", "block")
  if not r.block_limit_sm or not bs then return nil, {} end
  local maxw
  if r.theoretical_warps and r.theoretical_occupancy_pct and r.theoretical_occupancy_pct > 0 then
    maxw = math.floor(r.theoretical_warps * 100 / r.theoretical_occupancy_pct + 0.5)
  end
  local cands = gpus.infer_cc{ block_limit_sm = r.block_limit_sm,
    block_limit_warps = r.block_limit_warps, warps_per_block = (bs + 31) // 32,
    smem_driver = r.smem_driver_bytes, smem_config = r.smem_config_bytes, max_warps_per_sm = maxw }
  local how = "the printed block limits"
  if #cands > 1 and sm_count then
    local narrowed, seen = {}, {}
    for _, c in ipairs(cands) do
      for _, m in ipairs(gpus.list()) do
        if m.sm_count == sm_count and m.cc == c and not seen[c] then
          narrowed[#narrowed + 1] = c; seen[c] = m.id
        end
      end
    end
    if #narrowed > 0 then
      local names = {}
      for _, c in ipairs(narrowed) do names[#names + 1] = seen[c] end
      cands = narrowed
      how = string.format("the printed block limits and %d SMs (%s)", sm_count, table.concat(names, ", "))
    end
  end
  return cands[1], cands, how
end

--- every GPU choice, for error messages
function M.choices()
  local ids = {}
  for _, m in ipairs(gpus.list()) do ids[#ids + 1] = m.id end
  return table.concat(ids, ", ")
end

---------------------------------------------------------------------------
-- formatting shared with the roofline recipe; the roofline chart itself is
-- perflab.chart.roofline (gpu.roofline_svg is kept as its old name)
---------------------------------------------------------------------------

local function si(x, unit)
  local prefixes = { { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } }
  for _, p in ipairs(prefixes) do
    if math.abs(x) >= p[1] then return string.format("%g %s%s", math.floor(x / p[1] * 100 + 0.5) / 100, p[2], unit) end
  end
  return string.format("%g %s", math.floor(x * 100 + 0.5) / 100, unit)
end
M.si = si

function M.xml_escape(s) return require("perflab.chart").escape(s) end
--- roofline_svg{ ceilings, bandwidth, bandwidth_label, points, title, max_labels } -> SVG text (perflab.chart.roofline)
function M.roofline_svg(c)
  check(c, { "bandwidth", "bandwidth_label", "ceilings", "max_labels", "points", "title" }, "perflab.gpu.roofline_svg")
  return require("perflab.chart").roofline(c)
end

return M

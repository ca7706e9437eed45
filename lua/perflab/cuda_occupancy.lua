--- perflab.cuda_occupancy: the CUDA occupancy calculator, its what-if
-- (the next occupancy step per resource) and Kineto's estimated achieved
-- occupancy.  This is the part of the old perflab.gpu a user copies: pure
-- Lua on the GPU constants of perflab.gpus, no profile, no host needed (runs
-- under a stock lua5.4 with package.path = "lua/?.lua;" .. package.path).
-- perflab.gpu re-exports every field under its old name.
-- columns() is the exception: the same calculator over whole columns of
-- launch shapes, in C (perflab.occupancy_calc, loaded on its first call),
-- checked against occupancy() by tests/lua/test_occupancy_columns.lua.
--
-- Reference: ../shared/reference/gpu-facts.md section 1.4 (the algorithm of
-- cuda_occupancy.h restated, with ncu's Shared Memory Configuration Size as
-- C).  Error messages keep the perflab.gpu.* names recipes and users know.

local gpus = require("perflab.gpus")

local M = {}
-- The calculators' argument tables are strict (perflab.options).
local OCC_ARGS = { "barriers", "block", "block_size", "carveout_pct", "cc", "optin", "registers",
  "smem_config", "smem_driver", "smem_dynamic", "smem_static" }
local check = require("perflab.options").check

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

--- assumption(config_bytes [, carveout_pct]) -> the note occupancy() gives
--- (its `assumption`) when the shared-memory configuration size was not given.
function M.assumption(C, carveout_pct)
  return string.format(
    "shared-memory configuration size not given: assumed %s (%s), so Block Limit Shared Mem is an upper bound (the driver may configure less, as ncu's launch__shared_mem_config_size would show)",
    kb(C), carveout_pct and string.format("carveout %g %% rounded up", carveout_pct)
      or "the runtime occupancy API's default: the full carveout")
end

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
    r.assumption = M.assumption(C, args.carveout_pct)
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

-- one what-if entry, with its text
local function whatif_entry(resource, value, blocks, pct, a)
  local fits = blocks == 1 and " fits" or "s fit"
  local text
  if resource == "registers" then
    text = string.format("at <= %d registers per thread, %d block%s per SM: %s %%", value, blocks, fits, fmt_pct(pct))
  elseif resource == "shared memory" then
    text = string.format("at <= %d bytes of shared memory per block (%s configuration), %d block%s per SM: %s %%",
      value, kb(a.smem_per_sm), blocks, fits, fmt_pct(pct))
  else
    text = string.format("with %d threads per block (same registers and shared memory per block), %d block%s per SM: %s %%",
      value, blocks, fits, fmt_pct(pct))
  end
  return { resource = resource, value = value, active_blocks = blocks, theoretical_occupancy_pct = pct, text = text }
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
        out[#out + 1] = whatif_entry("registers", r2, o.active_blocks, o.theoretical_occupancy_pct, a)
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
          out[#out + 1] = whatif_entry("shared memory", S2, o.active_blocks, o.theoretical_occupancy_pct, a)
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
    out[#out + 1] = whatif_entry("block size", bs, o.active_blocks, o.theoretical_occupancy_pct, a)
  end
  return out
end

--- what_if_of(row, cc) -> what_if's list from a row of columns{..., what_if =
--- true} (a Lua row: what_if_registers, what_if_registers_blocks, ...).
function M.what_if_of(row, cc)
  local a = resolve_arch(cc)
  local out = {}
  for _, w in ipairs({ { "registers", "what_if_registers" }, { "shared memory", "what_if_smem_bytes" },
                       { "block size", "what_if_block_size" } }) do
    local v = row[w[2]]
    if v then
      local stem = w[2]:gsub("_bytes$", "")
      out[#out + 1] = whatif_entry(w[1], v, row[stem .. "_blocks"], row[stem .. "_pct"], a)
    end
  end
  return out
end

--- cuda_occupancy.columns{cc=, block_size=, registers=, smem_static=,
---   smem_dynamic=, smem_config=, smem_driver=, barriers=, carveout_pct=,
---   optin=, grid_size=, sm_count=, max_threads_per_sm=, what_if=}
--- The calculator over whole columns of launch shapes in one call (C,
--- src/core/occupancy.c: the same steps as occupancy() above, checked
--- against it shape by shape).  Each input is a column (of one table's
--- length), a number for every row, or nil; cc is a compute capability
--- (as gpus.cc takes it) or a string or integer column of them (resolved
--- once per distinct value; a CC without constants gives a missing row).
--- Missing block size or cc: the row's results are missing; missing
--- registers, smem_static, smem_dynamic count as 0, smem_config as not
--- given (the runtime's rule), smem_driver as the architecture's.
--- Returns a table, one row per shape: warps_per_block, block_limit_sm,
--- block_limit_warps, block_limit_registers, block_limit_smem,
--- block_limit_barriers, active_blocks, theoretical_warps,
--- theoretical_occupancy_pct, limiter ("registers, shared memory"),
--- invalid (the reason, or missing), smem_per_block_allocated,
--- smem_config_used, regs_per_warp_allocated, assumed (smem_config was not
--- given); with grid_size, est_achieved_occupancy_pct (Kineto's estimate,
--- as est_achieved_occupancy's pct: sm_count needed); with what_if = true,
--- what_if_registers, what_if_smem_bytes, what_if_block_size and for each
--- its _blocks and _pct (what_if's three changes, missing where none helps).
local COL_ARGS = { "barriers", "block_size", "carveout_pct", "cc", "grid_size", "max_threads_per_sm", "optin",
  "registers", "sm_count", "smem_config", "smem_driver", "smem_dynamic", "smem_static", "what_if" }
function M.columns(spec)
  check(spec, COL_ARGS, "perflab.cuda_occupancy.columns")
  local archs, index = {}, {}
  local function arch_index(cc)
    local a = (type(cc) == "table" and cc.max_warps_per_sm) and cc or gpus.cc(cc)
    if not a then return nil end
    if not index[a] then archs[#archs + 1] = a; index[a] = #archs end
    return index[a]
  end
  local cc, arch = spec.cc, nil
  if type(cc) == "userdata" then
    -- (a column with no value at all may be typed number: every row missing)
    arch = (cc:type() == "number" and cc:count() == 0) and cc or cc:map(arch_index)
  else
    arch = arch_index(cc)
    if not arch then error("perflab.cuda_occupancy.columns: " .. select(2, gpus.cc(cc)), 2) end
  end
  local c = {}
  for k, v in pairs(spec) do if k ~= "cc" then c[k] = v end end
  c.arch = arch
  return require("perflab.occupancy_calc").columns(archs, c)
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

return M

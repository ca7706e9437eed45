--- perflab.device: the device context of a profile: which GPU a trace or
-- an ncu report ran on (what the input says, then --gpu), per launch row
-- (row_device; launch_devices for a whole table), the compute capability of an ncu launch that prints none
-- (infer_cc_row), launch dimensions of a row (dim) or of a whole kernel
-- table (dim_col), and its static shared memory per launch (smem_static_col).  The GPU constants
-- themselves are perflab.gpus; perflab.gpu re-exports every field here.

local gpus = require("perflab.gpus")

local M = {}

--- product of x/y/z columns of a row, or the scalar column
function M.dim(r, scalar, prefix)
  if r[scalar] then return r[scalar] end
  local x = r[prefix .. "_x"]
  if not x then return nil end
  return x * (r[prefix .. "_y"] or 1) * (r[prefix .. "_z"] or 1)
end

--- dim_col(kernels, scalar, prefix) -> the same over whole columns: the
--- scalar column where it has a value, else prefix_x * _y * _z (a missing
--- y or z counts as 1); nil when the table has neither (column
--- expressions, in C).  A size of 0 or less is missing: it is no launch
--- configuration (ncu prints "(0, 0, 0)x(0, 0, 0)" for a launch that failed).
function M.dim_col(k, scalar, prefix)
  local prod
  if k:has(prefix .. "_x") then
    prod = k:col(prefix .. "_x")
    for _, a in ipairs({ "_y", "_z" }) do
      if k:has(prefix .. a) then prod = prod * k:col(prefix .. a):fill(1) end
    end
  end
  local c = prod
  if k:has(scalar) then c = prod and k:col(scalar):fill(prod) or k:col(scalar) end
  if c and c:type() == "number" then c = c:keep(c:gt(0)) end
  return c
end

--- kernel_device_names(kernels, ctx) -> the distinct names of the devices
--- the kernels ran on (by each kernel's device id and ctx.devices, from the
--- input's devices table), sorted; nil when the input cannot tell (no device
--- column, or no name for a device id).  Once per distinct device id.
function M.kernel_device_names(k, ctx)
  if not (k and k:has("device") and ctx and ctx.devices and next(ctx.devices)) then return nil end
  local names, seen = {}, {}
  for _, r in k:select({ "device" }):filter(k:col("device"):present()):group_by("device"):agg { { "n",
      "count" } }:rows() do
    local d = ctx.devices[r.device]
    if not (d and d.name) then return nil end
    if not seen[d.name] then seen[d.name] = true; names[#names + 1] = d.name end
  end
  table.sort(names)
  return #names > 0 and names or nil
end

--- smem_static_col(kernels) -> static, total: the static shared memory per
--- block of each launch for the occupancy calculator -- smem_static_bytes,
--- else smem_bytes where a launch has neither smem_static_bytes nor
--- smem_dynamic_bytes (Kineto writes one total per block, static +
--- dynamic) -- and the mask of the launches whose value is that total
--- (nil without smem_bytes).  A column without any value counts as absent;
--- static is nil when nothing gives one.
function M.smem_static_col(k)
  local function some(c) return (k:has(c) and k:col(c):count() > 0) and k:col(c) or nil end
  local ss, sd, sb = some("smem_static_bytes"), some("smem_dynamic_bytes"), some("smem_bytes")
  if not sb then return ss, nil end
  local total = sb:present()
  if ss then total = total & ~ss:present() end
  if sd then total = total & ~sd:present() end
  local from_total = sb:keep(total)
  return ss and ss:fill(from_total) or from_total, total
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
  local gm
  if g and g ~= "" and g ~= "auto" then
    local m, err = gpus.model(g)
    if not m then return nil, err end
    gm = m
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
  -- a host with several GPU models (issue 28, point 9): the model the
  -- kernels ran on (their device ids), not the input's first device; with
  -- kernels on several models, no input-wide model (ctx.mixed lists them;
  -- per-launch figures come from ctx.devices, --gpu still names one)
  local knames = M.kernel_device_names(p.tables and p.tables.kernels, ctx)
  if knames and #knames == 1 and knames[1] ~= ctx.name then
    local d
    for _, e in pairs(ctx.devices) do if e.name == knames[1] then d = e; break end end
    ctx.name, ctx.model = knames[1], gpus.model(knames[1]) or gm
    ctx.cc, ctx.sm_count = d and d.cc, d and d.sm_count
  elseif knames and #knames > 1 then
    ctx.mixed = knames
    ctx.name, ctx.cc, ctx.sm_count, ctx.model = nil, nil, nil, gm
    ctx.from = gm and { "--gpu " .. g } or {}
  end
  if ctx.model then
    if not ctx.cc and ctx.model.cc and ctx.vendor ~= "amd" then ctx.cc = ctx.model.cc end
    if not ctx.sm_count then ctx.sm_count = ctx.model.sm_count end
  end
  if ctx.cc then ctx.cc = gpus.cc_key(ctx.cc) or ctx.cc end
  ctx.source = #ctx.from > 0 and table.concat(ctx.from, " and ")
    or (ctx.mixed and string.format("nowhere: the kernels ran on %d GPU models", #ctx.mixed))
        or "nowhere (not named in the input)"
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

--- launch_devices(kernels, ctx) -> a table of the kernels' length with the
--- columns cc, sm_count and max_threads_per_sm of row_device for each
--- launch, worked out once per distinct (cc, device, sm_count) of the table
--- (a group_by and a broadcast in C), not once per launch.
function M.launch_devices(k, ctx)
  local T = require "perflab.table"
  local keys = {}
  for _, c in ipairs({ "cc", "device", "sm_count" }) do if k:has(c) then keys[#keys + 1] = c end end
  local by = k:group_by(keys)
  local rows = {}
  for i, d in by:agg { { "n", "count" } }:rows() do
    local cc, sms, maxthr = M.row_device(d, ctx)
    rows[i] = { cc = cc, sm_count = sms, max_threads_per_sm = maxthr }
  end
  return by:broadcast(T.from_rows(rows, { "cc", "sm_count", "max_threads_per_sm" }))
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

return M

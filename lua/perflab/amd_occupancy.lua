--- perflab.amd_occupancy -- theoretical occupancy of AMD CDNA kernels:
-- waves per SIMD from the VGPR, SGPR and LDS use of a dispatch (what a
-- rocprof per-dispatch CSV or a rocprofv3 kernel trace records), the way
-- the AMDGPU backend of LLVM counts it (llvm-calc-occupancy).
--
-- Per arch (plain data; edit to add one), with where each figure is from
-- ([V] read in a primary source, [K] vendor/third-party figure not
-- re-checked):
--   wave_size 64, simds_per_cu 4, max_waves_per_simd 8: llvm-calc-occupancy
--     documentation, gfx90a example output [V]; the same for gfx942/gfx950 [K]
--   vgprs_per_simd_lane 512, one file for arch and accumulation VGPRs,
--     allocated in granules of 8, arch VGPRs aligned to 4 before the
--     accumulation VGPRs (gfx90a and later) [K]
--   sgprs_per_simd 800, granule 16 [K]
--   lds_per_cu 64 KB (CDNA2, CDNA3), 160 KB (CDNA4, gfx950) [K]
--
-- waves per SIMD = min(max_waves_per_simd,
--                      floor(512 / round8(align4(arch_vgpr) + accum_vgpr)),
--                      floor(800 / round16(sgpr)),
--                      ceil(floor(lds_per_cu / lds) * waves_per_workgroup / 4))
-- occupancy % = 100 * waves per SIMD / max_waves_per_simd.  Not modelled:
-- the per-CU workgroup-slot and barrier limits, scratch, and the extra
-- SGPRs the hardware reserves (VCC, flat scratch, XNACK) beyond what the
-- tool reports.
local M = {}

local KB = 1024

M.arch = {
  gfx90a = { name = "CDNA2 (MI200)", wave_size = 64, simds_per_cu = 4, max_waves_per_simd = 8,
             vgprs_per_lane = 512, vgpr_granule = 8, sgprs_per_simd = 800, sgpr_granule = 16, lds_per_cu = 64 * KB },
  gfx942 = { name = "CDNA3 (MI300)", wave_size = 64, simds_per_cu = 4, max_waves_per_simd = 8,
             vgprs_per_lane = 512, vgpr_granule = 8, sgprs_per_simd = 800, sgpr_granule = 16, lds_per_cu = 64 * KB },
  gfx950 = { name = "CDNA4 (MI350)", wave_size = 64, simds_per_cu = 4, max_waves_per_simd = 8,
             vgprs_per_lane = 512, vgpr_granule = 8, sgprs_per_simd = 800, sgpr_granule = 16, lds_per_cu = 160 * KB },
}

local function round_up(x, g) return ((x + g - 1) // g) * g end

--- M.occupancy{arch=, workgroup_size=, arch_vgpr=, accum_vgpr=, sgpr=, lds_bytes=, wave_size=}
--- -> { waves_per_simd, max_waves_per_simd, occupancy_pct, waves_per_workgroup,
---      limit_vgpr, limit_sgpr, limit_lds, vgprs_allocated, limiter = {...}, invalid = text|nil }
--- or nil, message for an arch without data.
function M.occupancy(a)
  local A = M.arch[a.arch or ""]
  if not A then return nil, string.format("no AMD occupancy data for arch %s (known: gfx90a, gfx942, gfx950)",
      tostring(a.arch)) end
  local wave = a.wave_size or A.wave_size
  local wg = a.workgroup_size or wave
  local maxw = A.max_waves_per_simd
  local r = { max_waves_per_simd = maxw, waves_per_workgroup = (wg + wave - 1) // wave }
  local vg = round_up(round_up(a.arch_vgpr or 0, 4) + (a.accum_vgpr or 0), A.vgpr_granule)
  r.vgprs_allocated = vg
  r.limit_vgpr = vg > 0 and math.min(maxw, A.vgprs_per_lane // vg) or maxw
  local sg = a.sgpr and a.sgpr > 0 and round_up(a.sgpr, A.sgpr_granule) or 0
  r.limit_sgpr = sg > 0 and math.min(maxw, A.sgprs_per_simd // sg) or maxw
  local lds = a.lds_bytes or 0
  if lds > A.lds_per_cu then
    r.invalid = string.format("%d bytes of LDS per workgroup, above the %d of a CU", lds, A.lds_per_cu)
    r.limit_lds = 0
  elseif lds > 0 then
    local wgs = A.lds_per_cu // lds
    r.limit_lds = math.min(maxw, (wgs * r.waves_per_workgroup + A.simds_per_cu - 1) // A.simds_per_cu)
  else
    r.limit_lds = maxw
  end
  if r.limit_vgpr == 0 then r.invalid = string.format("%d VGPRs per lane, above the %d of a SIMD", vg,
      A.vgprs_per_lane) end
  r.waves_per_simd = math.min(maxw, r.limit_vgpr, r.limit_sgpr, r.limit_lds)
  r.occupancy_pct = 100 * r.waves_per_simd / maxw
  r.limiter = {}
  if r.waves_per_simd < maxw then
    if r.limit_vgpr == r.waves_per_simd then r.limiter[#r.limiter + 1] = "VGPRs" end
    if r.limit_sgpr == r.waves_per_simd then r.limiter[#r.limiter + 1] = "SGPRs" end
    if r.limit_lds == r.waves_per_simd then r.limiter[#r.limiter + 1] = "LDS" end
  end
  return r
end

return M

--- launch: launch-configuration checks of Nsight Compute's LaunchStatistics
-- rules, offline: block size not a multiple of 32, grid smaller than the SM
-- count (and than twice the SM count), and the tail effect of a partial last
-- wave -- each with the ncu speedup formula.  One finding per rule and
-- configuration, listing the launches it covers (not one copy per launch).
--
-- Input: a `kernels` table with grid (grid_size or grid_x/y/z) and block
-- (block_size or block_x/y/z).  SM count: the row's sm_count, the input's
-- device (meta, `devices` table), what the report's own figures imply
-- (ncu's Waves Per SM with the block limits, or a rule text "the GPU's N
-- multiprocessors"), then --gpu.  Active blocks per SM for the waves come
-- from the occupancy calculator when registers are known, else from the
-- printed block limits.
--
-- Table `launch` (part of the API): kernel, grid_size, block_size,
-- sm_count, waves_per_sm, tail_pct (share of the run the partial last wave
-- can take: 100 / (whole waves + 1), 0 without a partial wave or with
-- less than one whole wave -- that case is the small-grid rule's),
-- findings (comma-separated rule ids).
--
-- Weighted by the real run: with an ncu report, any other input is a
-- timeline of the same program (Kineto, nsys stats, kernel table) -- or
-- --set timeline=FILE -- and each finding gets evidence time_share_pct,
-- kernel_time_ns, weighted_speedup_pct, saved_ns and match (a finding that
-- covers several kernels gets the sum of their times); findings are ranked
-- by saved time, with tables `weighted` and `unmatched` (perflab.weighting;
-- without an ncu report, every input is analysed).
local perflab = require "perflab"
local gpu = require "perflab.gpu"
local gpus = require "perflab.gpus"
local weighting = require "perflab.weighting"
local T = perflab.table

-- id, start_ns, duration_ns: the launch's join keys (id = the input's id
-- column or the 0-based row; start and duration where the input has them)
local COLS = { "kernel", "grid_size", "block_size", "sm_count", "active_blocks", "waves_per_sm",
  "tail_pct", "findings", "id", "start_ns", "duration_ns" }

-- the columns the checks read: launches equal in all of them are one
-- launch shape, checked once
local SHAPE = { "short_name", "name", "grid_size", "grid_x", "grid_y", "grid_z", "block_size", "block_x",
  "block_y", "block_z", "device", "cc", "sm_count", "registers", "smem_static_bytes", "smem_dynamic_bytes",
  "smem_bytes", "smem_config_bytes", "smem_driver_bytes", "waves_per_sm", "block_limit_sm",
  "block_limit_warps", "block_limit_registers", "block_limit_smem", "block_limit_barriers" }

local function sms_from_rules(p)
  local rules = p.tables.rules
  if not rules or not rules:has("message") then return nil end
  for _, r in rules:rows() do
    local n = r.message and r.message:match("GPU's (%d+) multiprocessors")
    if n then return tonumber(n) end
  end
  return nil
end

local function printed_active(r)
  local m
  for _, c in ipairs({ "block_limit_sm", "block_limit_warps", "block_limit_registers",
                       "block_limit_smem", "block_limit_barriers" }) do
    local v = r[c]
    if v and (not m or v < m) then m = v end
  end
  return m
end

local R
R = {
  name = "launch",
  summary = "launch configuration: block size multiple of 32, grid vs SM count, tail effect (ncu rules)",
  needs = { "kernels" },                       -- each report (or every input when none is one) ...
  timeline_needs = { "kernels|kernel_summary" },   -- ... and a timeline beside it
  tables = { "kernels", "kernel_summary", "rules", "devices" },   -- all it reads (devices: perflab.gpu)
  options = {
    gpu = { type = "string", default = "auto", help = "GPU model when the input does not say (perflab gpus lists them)" },
    tail_min = { type = "number", default = gpu.thresholds.tail_min_speedup,
                 help = "report a tail effect when 100/(whole waves + 1) is at least this" },
    timeline = weighting.option,
  },
  run = function(inputs, opts, report)
    local timelines
    inputs, timelines = weighting.inputs(inputs, opts, { recipe_def = R })
    local items = {}   -- every finding with its kernels and launches, for the weighting
    local th = setmetatable({ tail_min_speedup = opts.tail_min }, { __index = gpu.thresholds })
    for idx, p in ipairs(inputs) do
      local ctx, err = gpu.context(p, opts)
      if not ctx then perflab.fail(err) end
      local k = p:table("kernels")
      local rule_sms = sms_from_rules(p)
      local groups, gorder = {}, {}
      local skipped, no_sm = 0, 0
      local sm_sources = {}
      -- a finding group is filled launch by launch once every shape is in
      local shape_groups = {}   -- shape -> {{group, kernel}, ...}
      local si
      local function add(rule, key, fields, kernel)
        local gk = rule .. "|" .. key
        local g = groups[gk]
        if not g then
          g = { rule = rule, fields = fields, kernels = {}, korder = {}, ids = {}, launches = 0 }
          groups[gk] = g; gorder[#gorder + 1] = gk
        end
        local sg = shape_groups[si]
        if not sg then sg = {}; shape_groups[si] = sg end
        sg[#sg + 1] = { g, kernel }
      end
      local keys = {}
      for _, c in ipairs(SHAPE) do if k:has(c) then keys[#keys + 1] = c end end
      local by_shape = k:group_by(keys)
      local shapes, launches = by_shape:agg { { "first_row", "ids" } }
      local res, nameless = {}, false
      for i, r in shapes:rows() do
        si = i
        local rows = launches.first_row[si]
        res[si] = { kept = false }
        local grid = gpu.dim(r, "grid_size", "grid")
        local bs = gpu.dim(r, "block_size", "block")
        if not grid or not bs then skipped = skipped + #rows; goto next end
        do
          local kernel = r.short_name or r.name
          local cc, sms = gpu.row_device(r, ctx)
          local src = "the input"
          local active = printed_active(r)
          if not active and cc and r.registers and gpus.cc(cc) then
            -- Kineto: one shared-memory total per block (smem_bytes)
            local st, dy = r.smem_static_bytes, r.smem_dynamic_bytes
            if not st and not dy then st = r.smem_bytes end
            active = gpu.occupancy({ cc = cc, block_size = bs, registers = r.registers, smem_static = st,
              smem_dynamic = dy, smem_config = r.smem_config_bytes, smem_driver = r.smem_driver_bytes }).active_blocks
          end
          if not sms and r.waves_per_sm and active then
            sms = gpus.infer_sm_count(grid, r.waves_per_sm, active)
            src = "Waves Per SM"
          end
          if not sms and rule_sms then sms, src = rule_sms, "the rule text" end
          if not sms and ctx.sm_count then sms, src = ctx.sm_count, ctx.source end
          if sms then sm_sources[src] = true end
          local ids = {}
          local bc = gpu.block_size_check(bs)
          if bc then
            ids[#ids + 1] = "launch.block_size"
            add("launch.block_size", tostring(bs), { block_size = bs, speedup = bc.speedup_pct }, kernel)
          end
          local waves, tail_pct
          if sms then
            local sg = gpu.small_grid(grid, sms)
            if sg and sg.severity == "high" then
              ids[#ids + 1] = "launch.small_grid"
              add("launch.small_grid", grid .. "|" .. sms, { grid = grid, sms = sms, speedup = sg.speedup_pct }, kernel)
            elseif sg then
              ids[#ids + 1] = "launch.grid_below_2x_sms"
              add("launch.grid_below_2x_sms", grid .. "|" .. sms, { grid = grid, sms = sms }, kernel)
            end
            if active and active > 0 then
              local t = gpu.tail(grid, sms, active, th)
              waves = t.waves
              tail_pct = t.speedup_pct
              if t.fires then
                ids[#ids + 1] = "launch.tail_effect"
                add("launch.tail_effect", string.format("%d|%d|%d", grid, sms, active),
                  { grid = grid, sms = sms, active = active, t = t, speedup = t.speedup_pct }, kernel)
              end
            end
          else
            no_sm = no_sm + #rows
          end
          res[si] = { kernel = kernel, grid_size = grid, block_size = bs, sm_count = sms, active_blocks = active,
            waves_per_sm = waves or r.waves_per_sm, tail_pct = tail_pct, findings = table.concat(ids, ", "), kept = true }
          if not kernel then nameless = true end
        end
        ::next::
      end
      -- the launch table: each launch gets its shape's results (skipped
      -- launches are not kept)
      -- (with each launch's join keys: id, start_ns, duration_ns)
      local t = weighting.per_launch(by_shape, res, COLS, k)
      if nameless then
        t:add_column("kernel", function(r, i) return r.kernel or ("launch " .. i) end, "string")
      end
      t = #res > 0 and t:filter(t:col("kept")):select(COLS) or t:select(COLS)
      -- finding groups from the shapes' row lists, not a pass over the
      -- launches: per group, its kernels in order of first launch, each
      -- with its launches' ids in launch order
      local function part(g, kn, rows)
        local parts = g.parts[kn]
        if not parts then
          parts = { first = rows[1] }
          g.parts[kn] = parts; g.korder[#g.korder + 1] = kn
        elseif rows[1] < parts.first then parts.first = rows[1] end
        parts[#parts + 1] = rows
      end
      for i, rows in ipairs(launches.first_row) do
        for _, e in ipairs(shape_groups[i] or {}) do
          local g, kn = e[1], e[2]
          g.parts = g.parts or {}
          g.launches = g.launches + #rows
          if kn then part(g, kn, rows)
          else for _, row in ipairs(rows) do part(g, "launch " .. row, { row }) end end
        end
      end
      local ids = k:has("id") and k:col("id"):to_lua() or nil
      for _, gk in ipairs(gorder) do
        local g = groups[gk]
        local parts = g.parts or {}
        table.sort(g.korder, function(a, b) return parts[a].first < parts[b].first end)
        for _, kn in ipairs(g.korder) do
          local rows = parts[kn][1]
          if #parts[kn] > 1 then
            rows = {}
            for _, pr in ipairs(parts[kn]) do table.move(pr, 1, #pr, #rows + 1, rows) end
            table.sort(rows)
          end
          local gi = {}
          for j, row in ipairs(rows) do gi[j] = ids and ids[row] or (row - 1) end
          g.kernels[kn], g.ids[kn] = #rows, gi
        end
        g.parts = nil
      end
      local name = #inputs > 1 and ("launch_" .. idx) or "launch"
      report:table(name, t, { title = string.format("%d launches (%s)", t:nrows(), p.source) })
      for _, gk in ipairs(gorder) do
        local g = groups[gk]
        local f = g.fields
        local list = {}
        for _, kn in ipairs(g.korder) do
          list[#list + 1] = g.kernels[kn] > 1 and string.format("%s (x%d)", kn, g.kernels[kn]) or kn
        end
        local who = string.format("%d launch%s: %s", g.launches, g.launches == 1 and "" or "es",
          table.concat(list, ", ", 1, math.min(#list, 5)) .. (#list > 5 and string.format(", and %d more", #list - 5) or ""))
        local subject = #g.korder == 1 and g.korder[1] or nil
        local fd
        if g.rule == "launch.block_size" then
          fd = report:finding { severity = "warn", rule = g.rule, subject = subject,
            message = string.format("block size %d is not a multiple of 32: the last warp of each block runs %d idle lanes (%s); 128-256 threads is a good start",
              f.block_size, 32 - f.block_size % 32, who),
            evidence = { block_size = f.block_size, launches = g.launches, kernels = g.korder,
              formula = "speedup = (1/ceil(bs/32)) x (1 - (bs mod 32)/32) x 100" },
            speedup_pct = f.speedup }
        elseif g.rule == "launch.small_grid" then
          fd = report:finding { severity = "warn", rule = g.rule, subject = subject,
            message = string.format("%d block%s on %d SMs: the grid leaves %d SMs idle (%s)",
              f.grid, f.grid == 1 and "" or "s", f.sms, f.sms - f.grid, who),
            evidence = { grid_size = f.grid, sm_count = f.sms, launches = g.launches, kernels = g.korder,
              formula = "speedup = (SMs - grid) / SMs x 100" },
            speedup_pct = f.speedup }
        elseif g.rule == "launch.grid_below_2x_sms" then
          fd = report:finding { severity = "info", rule = g.rule, subject = subject,
            message = string.format("%d blocks on %d SMs is less than two blocks per SM: with __syncthreads() a second resident block hides the barrier stalls (%s)",
              f.grid, f.sms, who),
            evidence = { grid_size = f.grid, sm_count = f.sms, launches = g.launches, kernels = g.korder } }
        elseif g.rule == "launch.tail_effect" then
          local t = f.t
          fd = report:finding { severity = "opt", rule = g.rule, subject = subject,
            message = string.format("%d blocks on %d SMs x %d active blocks = %.2f waves: the partial last wave (%d blocks) can take up to %s %% of the run (%s)",
              f.grid, f.sms, f.active, t.waves, t.partial_blocks, gpu.fmt_pct(t.speedup_pct), who),
            evidence = { grid_size = f.grid, sm_count = f.sms, active_blocks = f.active, waves = t.waves,
              whole_waves = t.whole, partial_blocks = t.partial_blocks, launches = g.launches,
              threshold_pct = th.tail_min_speedup, formula = "speedup = 100 / (whole waves + 1)" },
            speedup_pct = t.speedup_pct }
        end
        local per = {}
        for j, kn in ipairs(g.korder) do per[j] = { kn, g.ids[kn] } end
        items[#items + 1] = weighting.item(fd, p, nil, per)
      end
      local srcs = {}
      for s in pairs(sm_sources) do srcs[#srcs + 1] = s end
      table.sort(srcs)
      if #srcs > 0 then report:note("SM count from " .. table.concat(srcs, ", ")) end
      if ctx.vendor == "amd" then
        report:note("AMD GPU: SM count = compute units, blocks = workgroups; occupancy and tail need the CU resource model, which perflab does not have")
      end
      if skipped > 0 then report:note(string.format("%d launches without grid or block size were skipped", skipped)) end
      if no_sm > 0 then
        report:note(string.format("%d launches: no SM count in the input; pass --gpu NAME (one of: %s)", no_sm, gpu.choices()))
      end
    end
    weighting.apply(report, items, timelines)
    perflab.figures.launch(report)   -- waves and the partial last wave
  end,
}
return R

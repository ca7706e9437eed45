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

local LIMITS = { "block_limit_sm", "block_limit_warps", "block_limit_registers", "block_limit_smem",
  "block_limit_barriers" }

-- the SM count a rule text states ("the GPU's N multiprocessors"): the
-- pattern runs once per distinct message, in C
local function sms_from_rules(p)
  local rules = p.tables.rules
  if not rules or not rules:has("message") then return nil end
  local hit = rules:filter(rules:col("message"):match("GPU's %d+ multiprocessors"))
  if hit:nrows() == 0 then return nil end
  return tonumber(hit:get(1, "message"):match("GPU's (%d+) multiprocessors"))
end

-- the active blocks ncu printed: the smallest of the block limits present
local function printed_active(k)
  local m
  for _, c in ipairs(LIMITS) do
    if k:has(c) then
      local v = k:col(c)
      m = m and m:fill(v):min_with(v:fill(m)) or v
    end
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
      local n = k:nrows()
      local rule_sms = sms_from_rules(p)
      local groups, gorder = {}, {}
      local sm_sources = {}
      -- every launch's values as columns of w, in C; what needs Lua (the
      -- device lookup, the rules) runs once per distinct input of it
      local w = k:select({})
      local one = k:col(k:columns()[1]):present():map(function() return 1 end)   -- 1 on every row
      local none = one:keep(one:eq(0))   -- an integer column, all missing
      w:with("_one", one)
      local grid, bs = gpu.dim_col(k, "grid_size", "grid"), gpu.dim_col(k, "block_size", "block")
      local kept = (grid and bs) and (grid:present() & bs:present()) or one:eq(0)
      if grid and bs then w:with("_grid", grid):with("_bs", bs) end
      local nkept = kept:count { where = kept }
      local skipped = n - nkept
      local dev = gpu.launch_devices(k, ctx)   -- cc, sm_count: once per distinct device
      local cc = dev:col("cc")
      -- active blocks per SM: the block limits ncu printed, else the
      -- occupancy calculator (in C) where the registers are known
      local active = printed_active(k)
      if bs and k:has("registers") then
        local need = kept & cc:present() & k:col("registers"):present()
        if active then need = need & ~active:present() end
        local smem_static = gpu.smem_static_col(k)
        local function opt(c) return k:has(c) and k:col(c) or nil end
        local occ = gpu.columns { cc = cc:keep(need), block_size = bs, registers = k:col("registers"),
          smem_static = smem_static, smem_dynamic = opt("smem_dynamic_bytes"), smem_config = opt("smem_config_bytes"),
          smem_driver = opt("smem_driver_bytes") }:col("active_blocks"):keep(need)
        active = active and active:fill(occ) or occ
      end
      active = active or none
      w:with("_active", active)
      -- the SM count: the launch's device, what ncu's Waves Per SM imply
      -- (once per distinct waves, grid and active blocks), the rule text,
      -- the input-wide context
      local sms = dev:col("sm_count")
      local function missing_where(c) return kept & ~c:present() end
      if nkept > 0 and sms:count { where = kept } > 0 then sm_sources["the input"] = true end
      if nkept > 0 and k:has("waves_per_sm") then
        local need = missing_where(sms) & k:col("waves_per_sm"):present() & active:present()
        if kept:count { where = need } > 0 then
          local by = k:select({}):with("w", k:col("waves_per_sm"):keep(need)):with("g", grid:keep(need))
            :with("a", active:keep(need)):group_by({ "w", "g", "a" })
          local inf = {}
          for i, r in by:agg({ { "_n", "count" } }):rows() do
            inf[i] = { sms = r.w and gpus.infer_sm_count(r.g, r.w, r.a) }
          end
          inf = by:broadcast(T.from_rows(inf, { "sms" })):col("sms")
          if inf:count { where = kept } > 0 then
            sm_sources["Waves Per SM"] = true
            sms = sms:count() > 0 and sms:fill(inf) or inf
          end
        end
      end
      for _, alt in ipairs({ { rule_sms, "the rule text" }, { ctx.sm_count, ctx.source } }) do
        if alt[1] and nkept > 0 and kept:count { where = missing_where(sms) } > 0 then
          sm_sources[alt[2]] = true
          sms = sms:count() > 0 and sms:fill(alt[1]) or one * alt[1]
        end
      end
      local no_sm = nkept > 0 and kept:count { where = missing_where(sms) } or 0
      w:with("_sms", sms)
      -- the rules, once per distinct (grid, block, SMs, active blocks)
      local function add(rule, key, fields, gi)
        local gk = rule .. "|" .. key
        local g = groups[gk]
        if not g then
          g = { rule = rule, fields = fields, kernels = {}, korder = {}, ids = {}, launches = 0, parts = {} }
          groups[gk] = g; gorder[#gorder + 1] = gk
        end
        gi[#gi + 1] = g
      end
      local rgroups = {}   -- R group -> the finding groups it adds to
      local RKEYS = { "_grid", "_bs", "_sms", "_active" }
      local res
      if nkept > 0 then
        local rg = w:group_by(RKEYS)
        local shapes = rg:agg({ { "_n", "count", where = kept } })
        local rows = {}
        for i, r in shapes:rows() do
          local gi = {}
          rgroups[i] = gi
          if r._n == 0 then rows[i] = { ri = i }; goto next end
          do
            local g, b, sm, act = r._grid, r._bs, r._sms, r._active
            local ids = {}
            local bc = gpu.block_size_check(b)
            if bc then
              ids[#ids + 1] = "launch.block_size"
              add("launch.block_size", tostring(b), { block_size = b, speedup = bc.speedup_pct }, gi)
            end
            local waves, tail_pct
            if sm then
              local sg = gpu.small_grid(g, sm)
              if sg and sg.severity == "high" then
                ids[#ids + 1] = "launch.small_grid"
                add("launch.small_grid", g .. "|" .. sm, { grid = g, sms = sm, speedup = sg.speedup_pct }, gi)
              elseif sg then
                ids[#ids + 1] = "launch.grid_below_2x_sms"
                add("launch.grid_below_2x_sms", g .. "|" .. sm, { grid = g, sms = sm }, gi)
              end
              if act and act > 0 then
                local t = gpu.tail(g, sm, act, th)
                waves = t.waves
                tail_pct = t.speedup_pct
                if t.fires then
                  ids[#ids + 1] = "launch.tail_effect"
                  add("launch.tail_effect", string.format("%d|%d|%d", g, sm, act),
                    { grid = g, sms = sm, active = act, t = t, speedup = t.speedup_pct }, gi)
                end
              end
            end
            rows[i] = { ri = i, waves = waves, tail_pct = tail_pct, findings = table.concat(ids, ", ") }
          end
          ::next::
        end
        res = rg:broadcast(T.from_rows(rows, { "ri", "waves", "tail_pct", "findings" }, "shapes"))
        w:with("_ri", res:col("ri"))
      end
      -- the launch table: each kept launch with its results and its join
      -- keys (id = the input's id or the 0-based row; start and duration)
      local kernel = k:has("short_name") and k:col("short_name") or nil
      if k:has("name") then kernel = kernel and kernel:fill(k:col("name")) or k:col("name") end
      local nameless = kernel == nil or kernel:count { where = kept } < nkept
      w:with("kernel", kernel or none)
      w:with("grid_size", grid or none):with("block_size", bs or none):with("sm_count", sms):with("active_blocks", active)
      if res then
        local wv = res:col("waves")
        if k:has("waves_per_sm") then wv = wv:fill(k:col("waves_per_sm")) end
        w:with("waves_per_sm", wv):with("tail_pct", res:col("tail_pct")):with("findings", res:col("findings"))
      else
        w:with("waves_per_sm", k:has("waves_per_sm") and k:col("waves_per_sm") or none * 1.0)
        w:with("tail_pct", none * 1.0):with("findings", none)
      end
      w:with("id", k:has("id") and k:col("id") or (w:order("_one") - 1))
      for _, c in ipairs({ "start_ns", "duration_ns" }) do w:with(c, k:has(c) and k:col(c) or none) end
      local t = w:select(COLS)
      if nameless then
        t:add_column("kernel", function(r, i) return r.kernel or ("launch " .. i) end, "string")
      end
      t = t:filter(kept):select(COLS)
      -- finding groups: per R group and kernel, its launches (count, first
      -- row; the row lists only where a timeline weighs the findings or a
      -- launch has no name); per finding group, its kernels in order of
      -- first launch, each with its launches' ids in launch order
      if nkept > 0 then
        local need_ids = #timelines > 0 or nameless
        local spec = { { "_n", "count", where = kept }, { "_first", "first_row", where = kept } }
        if need_ids then spec[#spec + 1] = { "_rows", "ids", where = kept } end
        local parts, lists = w:group_by("_ri", "kernel"):agg(spec)
        local function part(g, kn, cnt, first, rows)
          local pk = g.parts[kn]
          if not pk then
            pk = { first = first, n = 0, lists = {} }
            g.parts[kn] = pk; g.korder[#g.korder + 1] = kn
          elseif first < pk.first then pk.first = first end
          pk.n = pk.n + cnt
          pk.lists[#pk.lists + 1] = rows
        end
        for j, r in parts:rows() do
          if r._n > 0 then
            local rows = need_ids and lists._rows[j] or nil
            for _, g in ipairs(rgroups[r._ri]) do
              g.launches = g.launches + r._n
              if r.kernel then part(g, r.kernel, r._n, r._first, rows)
              else for _, row in ipairs(rows) do part(g, "launch " .. row, 1, row, { row }) end end
            end
          end
        end
        local ids = need_ids and k:has("id") and k:col("id"):to_lua() or nil
        for _, gk in ipairs(gorder) do
          local g = groups[gk]
          table.sort(g.korder, function(x, y) return g.parts[x].first < g.parts[y].first end)
          for _, kn in ipairs(g.korder) do
            local pk = g.parts[kn]
            g.kernels[kn] = pk.n
            if need_ids then
              local rows = pk.lists[1]
              if #pk.lists > 1 then
                rows = {}
                for _, pr in ipairs(pk.lists) do table.move(pr, 1, #pr, #rows + 1, rows) end
                table.sort(rows)
              end
              local gi = {}
              for j, row in ipairs(rows) do gi[j] = ids and ids[row] or (row - 1) end
              g.ids[kn] = gi
            else
              g.ids[kn] = {}
            end
          end
          g.parts = nil
        end
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

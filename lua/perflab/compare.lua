--- perflab.compare: helpers shared by the comparison recipes (suspicion,
-- diff): two-sample tests with SciPy's behaviour on degenerate samples,
-- input roles, and kernel-name matching across tools.
--
--   compare.welch(a, b)  -> t, p   Welch's t of mean(a) - mean(b) and its
--                                  two-sided p (SciPy ttest_ind equal_var=False):
--                                  NaN, NaN with fewer than 2 values a side;
--                                  both variances 0: t = +-inf, p = 0 when the
--                                  means differ, t = p = NaN when they are equal.
--   compare.mwu(a, b)    -> p, u   two-sided Mann-Whitney U p (SciPy's method
--                                  "auto"); NaN when a side is empty.
--   compare.suspicion_score(delta_beta, z_beta, z_log_mu) -> |Δβ|·(|Z(β)| + |Z(log μ)|)
--   compare.finite(x)    -> x, or 0 for NaN and +-inf (how a Z column prints)
--   compare.stats        -> the statistics module in use (perflab.stats)
--   compare.role(p)      -> "baseline" | "target" | nil (set by --baseline/--target)
--   compare.match_names(a_names, b_names) -> map a_name -> b_name, pairing
--                                  equal names, then names cut with "..." by prefix
local M = {}

local stats = require "perflab.stats"
M.stats = stats

local NaN = 0 / 0
M.NaN = NaN

local function isnan(x) return x ~= x end
M.isnan = isnan

function M.finite(x)
  if x == nil or x ~= x or x == math.huge or x == -math.huge then return 0 end
  return x
end

local function mean(x)
  local s = 0
  for i = 1, #x do s = s + x[i] end
  return s / #x
end
M.mean = mean

-- SciPy's degenerate cases come from the C test itself (pl_stats_welch_t:
-- both variances 0 gives t = +-inf and p = 0, or NaN when the means are
-- equal); fewer than 2 values a side is NaN here (the binding refuses it).
function M.welch(a, b)
  if #a < 2 or #b < 2 then return NaN, NaN end
  local r = stats.welch_t(a, b)
  return r.t, r.p
end

function M.mwu(a, b)
  if #a < 1 or #b < 1 then return NaN, NaN end
  local r = stats.mann_whitney_u(a, b)
  return r.p, r.u
end

function M.role(p) return p.role end

--- The suspicion score of seed 002's legend: |Δβ| · (|Z(β)| + |Z(log μ)|),
-- an undefined Z counting 0.
function M.suspicion_score(delta_beta, z_beta, z_log_mu)
  return math.abs(M.finite(delta_beta)) * (math.abs(M.finite(z_beta)) + math.abs(M.finite(z_log_mu)))
end

--- Splits inputs by role.  Without roles: two inputs are baseline, target;
-- otherwise an error naming the command line to use.
function M.split_roles(inputs, recipe)
  local base, target, none = {}, {}, {}
  for _, p in ipairs(inputs) do
    if p.role == "baseline" then base[#base + 1] = p
    elseif p.role == "target" then target[#target + 1] = p
    else none[#none + 1] = p end
  end
  if #base == 0 and #target == 0 and #none == 2 then
    none[1].role, none[2].role = "baseline", "target"
    return { none[1] }, { none[2] }
  end
  if #none > 0 or #base == 0 or #target == 0 then
    require("perflab.errors").fail(string.format(
      "%s needs baseline and target inputs: perflab run %s --baseline FILE... --target FILE...", recipe, recipe))
  end
  return base, target
end

--- Pairs names of side A with names of side B: identical names first, then a
-- name cut with "..." (or the Unicode ellipsis) on either side matches the
-- unique name of the other side that starts with its stem.  Returns
-- map[a] = b and the set of b names matched.
function M.match_names(an, bn)
  local map, used = {}, {}
  local bset = {}
  for _, b in ipairs(bn) do bset[b] = true end
  for _, a in ipairs(an) do
    if bset[a] then map[a] = a; used[a] = true end
  end
  local function stem(s)
    local t = s:match("^(.-)%.%.%.$") or s:match("^(.-)\u{2026}$")
    return t
  end
  for _, a in ipairs(an) do
    if not map[a] then
      local sa = stem(a)
      local hit, nhit = nil, 0
      for _, b in ipairs(bn) do
        if not used[b] then
          local sb = stem(b)
          local m
          if sa and sb then m = sa:sub(1, #sb) == sb:sub(1, #sa)
          elseif sa then m = b:sub(1, #sa) == sa
          elseif sb then m = a:sub(1, #sb) == sb end
          if m then hit = b; nhit = nhit + 1 end
        end
      end
      if nhit == 1 then map[a] = hit; used[hit] = true end
    end
  end
  return map, used
end

local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end

--- common_ratio(pairs [, opts]) -> {num, den, ratio, share, kernels} or nil:
-- the ratio of call counts (B / A) that the kernels of two captures share
-- when the captures differ in length (B ran den/num as many iterations).
-- pairs = {{a = calls_a, b = calls_b, w = weight (A's time)}...} of the
-- kernels on both sides.  Kernels are grouped by the exact reduced
-- fraction b/a (a kernel launched k times an iteration has k*n_a and
-- k*n_b calls: the fraction n_b/n_a, whatever k); the group holding the
-- most weight wins when it holds at least opts.min_share (default 0.5) of
-- the weight, has at least opts.min_kernels (default 2) kernels, and its
-- fraction is not 1.  nil otherwise (the counts did not move together).
function M.common_ratio(pairs, opts)
  opts = opts or {}
  local min_share, min_kernels = opts.min_share or 0.5, opts.min_kernels or 2
  local groups, order, total = {}, {}, 0
  for _, p in ipairs(pairs) do
    local a, b, w = math.tointeger(p.a), math.tointeger(p.b), p.w or 0
    if a and b and a > 0 and b > 0 and w >= 0 then
      total = total + w
      local g = gcd(a, b)
      local key = string.format("%d/%d", b // g, a // g)
      if not groups[key] then groups[key] = { num = b // g, den = a // g, w = 0, n = 0 }; order[#order + 1] = key end
      groups[key].w = groups[key].w + w
      groups[key].n = groups[key].n + 1
    end
  end
  local best
  for _, k in ipairs(order) do
    local g = groups[k]
    if not best or g.w > best.w then best = g end
  end
  if not best or total <= 0 or best.num == best.den then return nil end
  if best.n < min_kernels or best.w < min_share * total then return nil end
  return { num = best.num, den = best.den, ratio = best.num / best.den, share = best.w / total, kernels = best.n }
end

return M

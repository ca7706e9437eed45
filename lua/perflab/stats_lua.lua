--- perflab.stats_lua: TEMPORARY pure-Lua stand-in for the C module
-- perflab.stats (issue 5), with the same names and results for the calls
-- the comparison recipes use: mean, var, sd, welch_t -> {t, df, p},
-- mann_whitney_u -> {u, z, p}.  perflab.compare uses the C module when it
-- exists and this file only otherwise; delete it once perflab.stats lands.
-- Formulas: SciPy 1.10 ttest_ind(equal_var=False) and mannwhitneyu
-- (alternative="two-sided", method="auto").
local M = {}

local function arr(x)
  if type(x) == "table" then return x end
  return x:to_lua()
end

function M.mean(x)
  x = arr(x)
  local s = 0
  for i = 1, #x do s = s + x[i] end
  return s / #x
end

function M.var(x)
  x = arr(x)
  local n = #x
  if n < 2 then return 0 / 0 end
  local m = M.mean(x)
  local s = 0
  for i = 1, n do s = s + (x[i] - m) ^ 2 end
  return s / (n - 1)
end

function M.sd(x) return math.sqrt(M.var(x)) end

-- log Gamma (Lanczos, g = 7, n = 9; ~1e-15 relative)
local lg = { 0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7 }
local function lgamma(x)
  if x < 0.5 then return math.log(math.pi / math.abs(math.sin(math.pi * x))) - lgamma(1 - x) end
  x = x - 1
  local a = lg[1]
  local t = x + 7.5
  for i = 1, 8 do a = a + lg[i + 1] / (x + i) end
  return 0.5 * math.log(2 * math.pi) + (x + 0.5) * math.log(t) - t + math.log(a)
end

-- continued fraction of the incomplete beta (modified Lentz)
local function betacf(a, b, x)
  local tiny = 1e-300
  local qab, qap, qam = a + b, a + 1, a - 1
  local c, d = 1, 1 - qab * x / qap
  if math.abs(d) < tiny then d = tiny end
  d = 1 / d
  local h = d
  for m = 1, 10000 do
    local m2 = 2 * m
    local aa = m * (b - m) * x / ((qam + m2) * (a + m2))
    d = 1 + aa * d; if math.abs(d) < tiny then d = tiny end
    c = 1 + aa / c; if math.abs(c) < tiny then c = tiny end
    d = 1 / d
    h = h * d * c
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
    d = 1 + aa * d; if math.abs(d) < tiny then d = tiny end
    c = 1 + aa / c; if math.abs(c) < tiny then c = tiny end
    d = 1 / d
    local del = d * c
    h = h * del
    if math.abs(del - 1) < 1e-16 then break end
  end
  return h
end

--- regularized incomplete beta I_x(a, b)
local function betainc(a, b, x)
  if x <= 0 then return 0 end
  if x >= 1 then return 1 end
  local lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * math.log(x) + b * math.log(1 - x)
  if x < (a + 1) / (a + b + 2) then return math.exp(lbt) * betacf(a, b, x) / a end
  return 1 - math.exp(lbt) * betacf(b, a, 1 - x) / b
end

--- P(T > t) for Student t with df degrees of freedom
function M.t_sf(t, df)
  if t ~= t or df ~= df then return 0 / 0 end
  if t == math.huge then return 0 end
  if t == -math.huge then return 1 end
  local x = df / (df + t * t)
  local tail = 0.5 * betainc(df / 2, 0.5, x)
  return t > 0 and tail or 1 - tail
end

-- upper regularized incomplete gamma Q(a, x)
local function gammq(a, x)
  if x <= 0 then return 1 end
  local gln = lgamma(a)
  if x < a + 1 then
    local ap, sum = a, 1 / a
    local del = sum
    for _ = 1, 10000 do
      ap = ap + 1
      del = del * x / ap
      sum = sum + del
      if math.abs(del) < math.abs(sum) * 1e-16 then break end
    end
    return 1 - sum * math.exp(-x + a * math.log(x) - gln)
  end
  local tiny = 1e-300
  local b = x + 1 - a
  local c, d = 1 / tiny, 1 / b
  local h = d
  for i = 1, 10000 do
    local an = -i * (i - a)
    b = b + 2
    d = an * d + b; if math.abs(d) < tiny then d = tiny end
    c = b + an / c; if math.abs(c) < tiny then c = tiny end
    d = 1 / d
    local del = d * c
    h = h * del
    if math.abs(del - 1) < 1e-16 then break end
  end
  return math.exp(-x + a * math.log(x) - gln) * h
end

--- P(Z > z) for the standard normal
function M.normal_sf(z)
  if z ~= z then return z end
  if z == math.huge then return 0 end
  if z == -math.huge then return 1 end
  if z >= 0 then return 0.5 * gammq(0.5, z * z / 2) end
  return 1 - 0.5 * gammq(0.5, z * z / 2)
end

function M.welch_t(a, b)
  a, b = arr(a), arr(b)
  local na, nb = #a, #b
  if na < 2 or nb < 2 then error("bad argument to 'welch_t' (each sample needs at least 2 values)", 2) end
  local ma, mb = M.mean(a), M.mean(b)
  local va, vb = M.var(a) / na, M.var(b) / nb
  local d = ma - mb
  local se2 = va + vb
  local t = d / math.sqrt(se2)
  local df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1))
  if df ~= df then df = 1 end -- SciPy: zero variances leave df undefined; any df will do
  local p = 2 * M.t_sf(math.abs(t), df)
  if p > 1 then p = 1 end
  return { t = t, df = df, p = p }
end

-- average ranks and the tie term sum(t^3 - t)
local function ranks(all)
  local idx = {}
  for i = 1, #all do idx[i] = i end
  table.sort(idx, function(i, j) return all[i] < all[j] end)
  local r, tie = {}, 0
  local i = 1
  while i <= #idx do
    local j = i
    while j < #idx and all[idx[j + 1]] == all[idx[i]] do j = j + 1 end
    local avg = (i + j) / 2
    for k = i, j do r[idx[k]] = avg end
    local t = j - i + 1
    tie = tie + t * t * t - t
    i = j + 1
  end
  return r, tie
end

-- P(U >= k) under H0 for sample sizes m, n (exact, by counting rank sums)
local function exact_sf(k, m, n)
  -- c[j][u]: ways to pick j of the first i items with U contribution u,
  -- built over items; U = sum over chosen of (#unchosen before it)
  local f = {} -- f[j][u]: subsets of size j among the first i of n+m with "U" u
  for j = 0, m do f[j] = {} end
  f[0][0] = 1
  for i = 1, m + n do
    for j = math.min(i, m), 1, -1 do
      local unchosen_before = (i - 1) - (j - 1)
      local src, dst = f[j - 1], f[j]
      for u, c in pairs(src) do
        local v = u + unchosen_before
        dst[v] = (dst[v] or 0) + c
      end
    end
  end
  local total, above = 0, 0
  for u, c in pairs(f[m]) do
    total = total + c
    if u >= k then above = above + c end
  end
  return above / total
end

function M.mann_whitney_u(a, b)
  a, b = arr(a), arr(b)
  local n1, n2 = #a, #b
  if n1 < 1 or n2 < 1 then error("bad argument to 'mann_whitney_u' (empty sample)", 2) end
  local all = {}
  for i = 1, n1 do all[i] = a[i] end
  for i = 1, n2 do all[n1 + i] = b[i] end
  local r, tie = ranks(all)
  local r1 = 0
  for i = 1, n1 do r1 = r1 + r[i] end
  local u1 = r1 - n1 * (n1 + 1) / 2
  local u = math.max(u1, n1 * n2 - u1)
  local n = n1 + n2
  local mu = n1 * n2 / 2
  local s = math.sqrt(n1 * n2 / 12 * ((n + 1) - (n > 1 and tie / (n * (n - 1)) or 0)))
  local z
  if u1 > mu then z = (u1 - mu - 0.5) / s elseif u1 < mu then z = (u1 - mu + 0.5) / s else z = 0 end
  local p
  if (n1 <= 8 or n2 <= 8) and tie == 0 then
    p = 2 * exact_sf(math.floor(u + 0.5), n1, n2)
  else
    local zz = (u - mu - 0.5) / s
    if zz ~= zz then zz = -math.huge end
    p = 2 * M.normal_sf(zz)
  end
  if p > 1 then p = 1 end
  return { u = u1, z = z, p = p }
end

return M

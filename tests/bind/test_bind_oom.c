/*
** test_bind_oom.c -- every Lua binding (src/l_*.c) under memory failure, in
** a bare state: lua_newstate with an allocator that fails after N more
** allocations, the binding modules in package.preload, no host (no
** pl_host_newstate, no hooks, no perflab Lua library).  For each case, for
** N = 0, 1, 2, ... until the call completes:
**   - the call ends with a clean memory error (LUA_ERRMEM, or an error whose
**     message is "not enough memory"), never a crash (ASan/valgrind see
**     none, and no leak once the state is closed);
**   - every perflab table left in a global is whole afterwards (each column
**     readable in every row: no half-built table);
**   - once it completes, the result is what the same code gives with no
**     cap (the baseline run), so a failure half-way changed nothing.
** A case list that misses a function of a module fails (completeness).
** This is Lua's own ltests.c allocator idea (STYLE.md P15, layer 3).
*/
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lbind.h"

/* ---- the failing allocator ------------------------------------------------ */

typedef struct alloc_ctl {
  long count, fail_at;
} alloc_ctl; /* fail_at < 0: never */

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  alloc_ctl *c = ud;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (ptr == NULL || nsize > osize) { /* a request for more memory */
    if (c->fail_at >= 0 && c->count >= c->fail_at) return NULL;
    c->count++;
  }
  return realloc(ptr, nsize);
}

/* ---- cases ------------------------------------------------------------------ */

typedef struct bcase {
  const char *name, *code;
} bcase;

/* Run before each case with no cap: modules and objects the cases use. */
static const char *SETUP =
    "T = require 'perflab.table'; S = require 'perflab.stats'; IV = require 'perflab.intervals'\n"
    "F = require 'perflab.formats'; SYS = require 'perflab.sys'; O = require 'perflab.options'\n"
    "t0 = T.from_rows({{k='a',v=1,x=1.5},{k='b',v=2,x=2.5},{k='a',v=3,x=0.5}}, {'k','v','x'}, 't0')\n"
    "t1 = t0:copy()\n"
    "A = IV.from_pairs({{0,10},{20,30}}); B = IV.from_pairs({{5,25}})\n"
    "X = {1, 2, 3, 4}; Y = {2, 3, 4, 5}\n";

/* After every attempt, with no cap: the tables in globals are whole. */
static const char *VERIFY = "for name, t in pairs(_G) do\n"
                            "  if T.is_table(t) and pcall(t.nrows, t) then\n"
                            "    local types = t:types()\n"
                            "    for _, c in ipairs(t:columns()) do\n"
                            "      assert(types[c], name .. ': column ' .. c .. ' has no type')\n"
                            "      for i = 1, t:nrows() do t:get(i, c) end\n"
                            "      assert(#t:col(c) == t:nrows(), name .. ': column ' .. c .. ' is short')\n"
                            "    end\n"
                            "  end\n"
                            "end\n";

static const bcase cases[] = {
  /* module openers */
  { "open.table", "package.loaded['perflab.table'] = nil; return type(require 'perflab.table')" },
  { "open.stats", "package.loaded['perflab.stats'] = nil; return type(require 'perflab.stats')" },
  { "open.intervals", "package.loaded['perflab.intervals'] = nil; return type(require 'perflab.intervals')" },
  { "open.formats", "package.loaded['perflab.formats'] = nil; return type(require 'perflab.formats')" },
  { "open.sys", "package.loaded['perflab.sys'] = nil; return type(require 'perflab.sys')" },
  { "open.options", "package.loaded['perflab.options'] = nil; return type(require 'perflab.options')" },
  { "open.occupancy_calc",
    "package.loaded['perflab.occupancy_calc'] = nil; return type(require 'perflab.occupancy_calc')" },
  /* CC 8.0's constants (perflab.gpus), two shapes and a missing one: 256 threads at 32 registers = 8 blocks */
  { "occupancy_calc.columns",
    "local A = {warp_size=32, max_threads_per_block=1024, max_warps_per_sm=64, max_blocks_per_sm=32,"
    " regs_per_sm=65536, sub_partitions=4, regs_per_sub_partition=16384, max_regs_per_block=65536, "
    "max_regs_per_thread=255,"
    " reg_alloc_unit=256, warp_alloc_granularity=4, smem_per_sm=167936, max_smem_per_block_optin=166912,"
    " max_smem_per_block_default=49152, smem_alloc_unit=128, smem_reserved_per_block=1024, max_threads_per_sm=2048,"
    " smem_carveouts_kb={0, 8, 16, 32, 64, 100, 132, 164}}\n"
    "local s = T.from_rows({{b=256, r=32, g=1080}, {b=128, r=200, g=10}, {r=1}}, {'b', 'r', 'g'})\n"
    "local o = require('perflab.occupancy_calc').columns({A}, {arch = 1, block_size = s:col('b'), registers = "
    "s:col('r'),"
    " grid_size = s:col('g'), sm_count = 108, what_if = true})\n"
    "return o:nrows(), o:get(1, 'active_blocks'), o:get(2, 'limiter'), o:get(2, 'what_if_registers'), o:get(1, "
    "'est_achieved_occupancy_pct'), o:get(3, 'limiter')" },
  /* perflab.table */
  { "table.from_rows", "t2 = T.from_rows({{a=1,b='x'},{a=2}}, {'a','b'}); return t2:nrows(), t2:get(2,'b')" },
  { "table.from_columns",
    "t2 = T.from_columns({a={1,2,3}, s={'p','q','r'}}, {'a','s'}); return t2:col('a'):sum(), t2:get(3,'s')" },
  { "table.concat", "t2 = T.concat(t0, t0); return t2:nrows(), t2:col('v'):sum()" },
  { "table.is_table", "return T.is_table(t0), T.is_table({})" },
  { "table.memory", "return T.memory(t0), T.memory({ t0, t0 }), T.memory({ a = t0 }, t0)" },
  { "Table:nrows", "return t0:nrows(), #t0" },
  { "Table:name", "t1:name('renamed'); return t0:name(), t1:name()" },
  { "Table:columns", "return table.concat(t0:columns(), ',')" },
  { "Table:types", "local ty = t0:types(); return ty.k, ty.v, ty.x" },
  { "Table:docs", "return next(t0:docs()) == nil" },
  { "Table:has", "return t0:has('v'), t0:has('nope')" },
  { "Table:row", "local r = t0:row(2); return r.k, r.v, r.x" },
  { "Table:get", "return t0:get(3, 'x'), t0:get(1, 'k')" },
  { "Table:rows", "local s = 0; for _, r in t0:rows() do s = s + r.v end; return s" },
  { "Table:col", "return t0:col('v'):sum(), tostring(t0:col('x'))" },
  { "Table:column", "return t0:column('x'):sum()" },
  { "Table:where", "t2 = t0:where(function(r) return r.k == 'a' end); return t2:nrows()" },
  { "Table:sort_by", "t2 = t0:sort_by('-x'); return t2:get(1,'k') .. t2:get(3,'k')" },
  { "Table:top", "t2 = t0:top(2, 'v'); return t2:get(1,'v'), t2:get(2,'v')" },
  { "Table:head", "t2 = t0:head(2); return t2:nrows()" },
  { "Table:slice", "t2 = t0:slice(2, 3); return t2:get(1,'k'), t2:nrows()" },
  { "Table:select", "t2 = t0:select('x', 'k'); return table.concat(t2:columns(), ',')" },
  { "Table:add_column", "t1:add_column('w', {10, 20, 30}); t1:add_column('z', function(r) return r.v * 2 end); return "
                        "t1:col('w'):sum(), t1:col('z'):sum()" },
  { "Table:drop", "t1:drop('x'); return table.concat(t1:columns(), ',')" },
  { "Table:rename", "t1:rename('v', 'val'); return table.concat(t1:columns(), ',')" },
  { "Table:copy", "t2 = t0:copy(); return t2:col('x'):sum(), t2:name()" },
  { "Table:group_by",
    "t2 = t0:group_by('k'):agg{{'n','count'},{'s','sum','v'}}:sort_by('k'); return t2:get(1,'n'), t2:get(1,'s')" },
  { "Group:agg", "t2 = t0:group_by('k'):agg{n='count', m='mean(x)', q='quantile(x, 0.5)'}:sort_by('k'); return "
                 "t2:get(1,'m'), t2:get(2,'q')" },
  { "Table:join", "local u = T.from_rows({{k='a',w=7},{k='c',w=9}}, {'k','w'}); t2 = t0:join(u, {on='k', how='left'}); "
                  "return t2:nrows(), t2:col('w'):sum()" },
  { "Table:unique", "return table.concat(t0:unique('k'), ',')" },
  { "Table:to_lua", "local l = t0:to_lua(); return #l, l[3].x" },
  { "Table:to_csv", "return t0:to_csv()" },
  { "Table:to_json", "return t0:to_json(), t0:to_json('    ', '  ')" },
  { "Table:write_csv", "return t0:write_csv(TMP .. '/t.csv')" },
  { "Table:write_json", "return t0:write_json(TMP .. '/t.json')" },
  { "Table:write_json_to",
    "local g = assert(io.open(TMP .. '/tj.json', 'w')); local r = t0:write_json_to(g, '  ', ''); g:close(); "
    "local f = assert(io.open(TMP .. '/tj.json')); local s = f:read('a'); f:close(); return r == g, s" },
  { "Table:format", "return t0:format{markdown = true}, t0:format{max_rows = 1, digits = 3}" },
  { "Table:close", "t1:close(); return pcall(t1.nrows, t1) == false" },
  { "Table:__tostring", "return tostring(t0)" },
  { "Column:name", "return t0:col('x'):name()" },
  { "Column:type", "return t0:col('x'):type()" },
  { "Column:sum", "return t0:col('x'):sum()" },
  { "Column:mean", "return t0:col('x'):mean()" },
  { "Column:min", "return t0:col('x'):min()" },
  { "Column:max", "return t0:col('x'):max()" },
  { "Column:count", "return t0:col('x'):count()" },
  { "Column:count_true", "return t0:col('x'):gt(1):count_true()" },
  { "Column:quantile", "local q = t0:col('x'):quantile({0.25, 0.5}); return t0:col('x'):quantile(0.9), q[1], q[2]" },
  { "Column:abs", "return (t0:col('v') - 2):abs():sum()" },
  { "Column:clip", "return t0:col('x'):clip(1, 2):sum()" },
  { "Column:cummax", "return t0:col('v'):cummax():sum(), t0:col('x'):cummax():max()" },
  { "Column:cumsum", "return t0:col('v'):cumsum():sum(), t0:col('x'):cumsum():max()" },
  { "Column:at", "local r = t0:col('v'); return t0:col('k'):at(r):to_lua()[3], t0:col('x'):at(r):sum()" },
  { "Column:index_of", "local r = t0:col('k'):index_of(t1:col('k')):to_lua(); return r[1], r[2], r[3], "
                       "t0:col('v'):index_of(t0:col('x')):count()" },
  { "Column:searchsorted", "local r = t0:col('v'):searchsorted(t0:col('x'), 'right'):to_lua(); "
                           "return r[1], r[2], t0:col('v'):searchsorted(t0:col('v')):sum()" },
  { "Column:nth", "return t0:col('x'):nth(2), t0:col('v'):nth(3), t0:col('v'):nth(4)" },
  { "Column:min_with", "return t0:col('x'):min_with(1):sum(), t0:col('v'):min_with(t0:col('x')):sum()" },
  { "Column:max_with", "return t0:col('x'):max_with(1):sum()" },
  { "Column:floor", "return (t0:col('x') // 1):sum(), (t0:col('v') % 2):sum(), t0:col('x'):floor():sum()" },
  { "Column:ceil", "return t0:col('x'):ceil():sum()" },
  { "Column:fill", "return t0:col('v'):keep(t0:col('x'):gt(1)):fill(t0:col('v') * 10):sum()" },
  { "Column:eq", "return t0:col('k'):eq('a'):sum(), t0:col('v'):eq(t0:col('v')):sum()" },
  { "Column:ne", "return t0:col('k'):ne('a'):sum()" },
  { "Column:lt", "return t0:col('x'):lt(2):sum()" },
  { "Column:le", "return t0:col('v'):le(2):sum()" },
  { "Column:gt", "return t0:col('x'):gt(1):sum()" },
  { "Column:ge", "return t0:col('v'):ge(2):sum()" },
  { "Column:between", "return t0:col('x'):between(1, 2.5):sum()" },
  { "Column:isin", "return t0:col('k'):isin{'b', 'z'}:sum()" },
  { "Column:match", "return t0:col('k'):match('^[ab]$'):sum()" },
  { "Column:map", "return table.concat(t0:col('k'):map{a = 'A', b = 'B'}:to_lua(), ',')" },
  { "Column:keep", "return t0:col('x'):keep(t0:col('v'):gt(1)):sum()" },
  { "Column:present", "return t0:col('x'):present():sum()" },
  { "Column:fill", "return t0:col('x'):fill(0):sum(), table.concat(t0:col('k'):fill('z'):to_lua(), ',')" },
  { "Column:floor", "return (t0:col('x') * 0.5):floor():sum()" },
  { "table.sprintf", "return table.concat(T.sprintf('%s=%.2f', t0:col('k'), t0:col('x')):to_lua(), ',')" },
  { "Table:filter", "t2 = t0:filter(t0:col('k'):eq('a') | t0:col('x'):gt(2)); return t2:nrows(), t2:name()" },
  { "Table:filter(cols)", "t2 = t0:filter(t0:col('x'):gt(2), {'x', 'k'}); return t2:nrows(), t2:columns()[1]" },
  { "Table:order", "return table.concat(t0:order('-x'):to_lua(), ',')" },
  { "Table:take", "t2 = t0:take({3, 1}); return t2:get(1, 'v'), t2:nrows()" },
  { "Table:with", "t1:with('y', t1:col('v') * 2); return t1:col('y'):sum()" },
  { "Table:pivot",
    "t2 = t0:pivot{index = 'v', columns = 'k', values = 'x', agg = 'sum'}; return t2:nrows(), #t2:columns()" },
  { "Table:freeze", "t1:freeze(); local t3 = t1:with('z', t1:col('v')); return t1:has('z'), t3:has('z')" },
  { "Table:frozen", "return t0:frozen()" },
  { "Table:const", "return t0:const('k'):eq('k'):count_true(), t0:const(nil, 'integer'):count()" },
  { "Table:rownum", "return t0:rownum():sum()" },
  { "Group:agg first_row", "t2 = t0:group_by('k'):agg{{'r','first_row'},{'w','first_row',where=t0:col('v'):gt(1)}}; "
                           "return t2:get(1,'r'), t2:get(1,'w')" },
  { "Group:broadcast",
    "local g = t0:group_by('k'); t2 = g:broadcast(g:agg{{'n', 'count'}}); return t2:nrows(), t2:col('n'):sum()" },
  { "Column:to_lua", "local l = t0:col('k'):to_lua(); return #l, l[2]" },
  /* perflab.stats */
  { "stats.describe", "local d = S.describe(X); return d.n, d.mean, d.sd, d.p90" },
  { "stats.mean", "return S.mean(X), S.mean(t0:col('x'))" },
  { "stats.var", "return S.var(X)" },
  { "stats.sd", "return S.sd(X)" },
  { "stats.median", "return S.median(X)" },
  { "stats.sum", "return S.sum(X)" },
  { "stats.min", "return S.min(X)" },
  { "stats.max", "return S.max(X)" },
  { "stats.geomean", "return S.geomean(X)" },
  { "stats.weighted_mean", "return S.weighted_mean({1, 2}, {1, 3})" },
  { "stats.quantile", "local q = S.quantile(X, {0.1, 0.9}); return S.quantile(X, 0.5), q[1], q[2]" },
  { "stats.welch_t_from_stats", "local r = S.welch_t_from_stats(1, 0.5, 10, 1.4, 0.6, 12); return r.t, r.df, r.p" },
  { "stats.normal_ppf", "return S.normal_ppf(0.975), S.normal_ppf(0.5)" },
  { "stats.zscores", "local z = S.zscores(X, {ddof = 1}); return #z, z[1]" },
  { "stats.welch_t", "local r = S.welch_t(X, Y); return r.t, r.df, r.p" },
  { "stats.student_t", "local r = S.student_t(X, Y); return r.t, r.df, r.p" },
  { "stats.mann_whitney_u", "local r = S.mann_whitney_u(X, Y, {method = 'exact'}); return r.u, r.p" },
  { "stats.pearson", "local r = S.pearson(X, Y); return r.r" },
  { "stats.spearman", "local r = S.spearman(X, {4, 3, 2, 1}); return r.rho" },
  { "stats.cliffs_delta", "return S.cliffs_delta(X, Y)" },
  { "stats.hellinger", "return S.hellinger(X, Y)" },
  { "stats.bhattacharyya", "return S.bhattacharyya(X, Y)" },
  { "stats.bootstrap_ci", "local r = S.bootstrap_ci(X, 'mean', {n = 200, seed = 3}); return r[1], r[2], r.lo, r.hi" },
  { "stats.histogram", "local h = S.histogram(X, {bins = 2}); local e = S.histogram(X, {edges = {0, 2, 5}}); return "
                       "h.counts[1], e.counts[2]" },
  { "stats.normal_cdf", "return S.normal_cdf(1)" },
  { "stats.normal_sf", "return S.normal_sf(1)" },
  { "stats.t_cdf", "return S.t_cdf(1, 3)" },
  { "stats.t_sf", "return S.t_sf(1, 3)" },
  /* perflab.intervals */
  { "intervals.from_arrays",
    "local a = IV.from_arrays({0, 5}, {3, 9}, {strict = true}); return a:length(), a:count()" },
  { "intervals.from_pairs", "local a = IV.from_pairs({{1, 2}, {2, 4}}); return a:length(), a:count()" },
  { "intervals.empty", "return IV.empty():count()" },
  { "intervals.to_arrays", "local s, e = IV.to_arrays(A); return #s, e[2]" },
  { "IntervalSet:union", "return A:union(B):length(), (A + B):count()" },
  { "IntervalSet:intersect", "return A:intersect(B):length(), (A * B):count()" },
  { "IntervalSet:subtract", "return A:subtract(B):length(), (A - B):count()" },
  { "IntervalSet:clip", "return A:clip(5, 25):length()" },
  { "IntervalSet:gaps", "return A:gaps():length(), A:gaps(-5, 40):length()" },
  { "IntervalSet:length", "return A:length()" },
  { "IntervalSet:count", "return A:count(), #A" },
  { "IntervalSet:contains", "return A:contains(5), A:contains(15)" },
  { "IntervalSet:find", "return A:find(25), A:find(15)" },
  { "IntervalSet:get", "return A:get(2)" },
  { "IntervalSet:iter", "local n = 0; for s, e in A:iter() do n = n + e - s end; return n" },
  { "IntervalSet:to_lua", "local l = A:to_lua(); return #l, l[2][1]" },
  { "IntervalSet:to_arrays", "local s, e = A:to_arrays(); return s[1], e[1]" },
  { "intervals.from_table", "local sets, keys = IV.from_table(t0, 'v', 'v', {duration = true, by = 'k', where = {true, "
                            "false, true}}); return #keys, IV.from_table(t0, 'v', 'x', {duration = true}):length()" },
  { "intervals.innermost",
    "local ops = T.from_rows({{start_ns=0,duration_ns=10},{start_ns=2,duration_ns=4}}, {'start_ns','duration_ns'}); "
    "local c = IV.innermost(ops, ops); return #c:to_lua(), c:to_lua()[2]" },
  { "intervals.enclosed",
    "local ops = T.from_rows({{start_ns=0,duration_ns=10},{start_ns=2,duration_ns=4}}, {'start_ns','duration_ns'}); "
    "local q = T.from_rows({{p=3,start_ns=100,end_ns=110},{p=8,start_ns=105,end_ns=120}}, {'p','start_ns','end_ns'}); "
    "local b, c = IV.enclosed(ops, q, {point = 'p'}); return b:to_lua()[1], c:to_lua()[2]" },
  { "opargs.parse",
    "local x = require('perflab.opargs').parse('[[2,3],[],[[1],[2]]]', '[\"c10::Half\",\"Scalar\",\"TensorList\"]', "
    "'[[3,1],[],[]]', '[\"\",\"1\",\"\"]'); return #x, x[1].dims[2], x[2].value, #x[3].list" },
  { "opargs.dtype", "return require('perflab.opargs').dtype('long int')" },
  { "opargs.precision", "return require('perflab.opargs').precision('[\"long int\",\"c10::BFloat16\"]')" },
  { "formats.schema", "local s = require('perflab.formats').schema(); return #s, s[1].table, s[1].doc" },
  { "intervals.step_integral", "return IV.step_integral({0, 5}, {10, 20}, {0.5, 0.75}, {cap = 1})" },
  { "intervals.series_windows", "local a, c, at = IV.series_windows({0, 10, 20}, false, {1.0, 2.0, 3.0}, {5, 25}, {15, "
                                "40}); local g = IV.series_windows({0, 10}, false, {1.0, 2.0}, {5, 25, 1}, {15, 40, "
                                "1}, {by = {1, 1, 2}}); return a[1], c[1], at[2], g:col('area'):sum(), "
                                "g:col('points'):sum()" },
  { "intervals.step_levels", "local r = IV.step_levels({0, 2, 3, 3, 5, 6}, {1, 1, -1, 1, -1, -1}, {windows = 3}); "
                             "return r.max, r.at, r.area, r.mean, r.window_max[2], r.window_start[3]" },
  { "intervals.parents", "local ops = T.from_rows({{start_ns=0,duration_ns=10},{start_ns=2,duration_ns=4}}, "
                         "{'start_ns','duration_ns'}); local c = IV.parents(ops); return #c:to_lua(), c:to_lua()[2]" },
  { "intervals.sum_within", "local w = T.from_rows({{start_ns=0,duration_ns=10}}, {'start_ns','duration_ns'}); local p "
                            "= T.from_rows({{ts_ns=1,b=5},{ts_ns=12,b=7}}, {'ts_ns','b'}); local r = IV.sum_within(w, "
                            "p, {values = {'b'}}); return r:get(1, 'count'), r:get(1, 'b')" },
  { "intervals.first_window",
    "local w = IV.first_window({0, 10}, {10, 20}, {2, 12, 8}, {5, 14, 12}):to_lua(); return w[1], w[2], w[3]" },
  { "IntervalSet:locate", "local l = A:locate({3, 15, 25}):to_lua(); return l[1], l[2], l[3]" },
  { "IntervalSet:length_within", "return A:length_within(5, 25)" },
  { "IntervalSet:__tostring", "return tostring(A), A == IV.from_pairs({{0,10},{20,30}})" },
  /* perflab.formats */
  { "formats.load",
    "local p = F.load(SMALL); t2 = p.tables.kernels; return p.format, t2:nrows(), t2:col('duration_ns'):sum()" },
  { "formats.load_many",
    "local r = F.load_many({SMALL, SMALL}, nil, 2); return #r, r[2].format, r[2].tables.kernels:nrows()" },
  { "formats.cores", "return F.cores() >= 1" },
  { "formats.parse", "local p = F.parse('x.csv', 'a,b\\n1,x\\n2,y\\n', {format = 'csv'}); t2 = p.tables.csv; return "
                     "p.format, t2:nrows()" },
  { "formats.list", "local l = F.list(); return #l > 5, l[1].id" },
  { "formats.detect", "return F.detect('a,b\\n1,2\\n')" },
  { "formats.short_name", "return F.short_name('void foo<int>(float*)')" },
  /* perflab.sys */
  { "sys.exe_path", "return type(SYS.exe_path())" },
  { "sys.isatty", "return type(SYS.isatty(0))" },
  { "sys.term_width", "local w = SYS.term_width(); return w == nil or math.type(w) == 'integer'" },
  { "sys.clock", "return type(SYS.clock())" },
  { "sys.isdir", "return SYS.isdir(TMP), SYS.isdir(SMALL)" },
  { "sys.isfile", "return SYS.isfile(SMALL), SYS.isfile(TMP)" },
  { "sys.mkdir", "return SYS.mkdir(TMP .. '/d/e'), SYS.isdir(TMP .. '/d/e')" },
  { "sys.write_atomic", "return SYS.write_atomic(TMP .. '/w.txt', 'hello')" },
  { "sys.listdir", "return table.concat(SYS.listdir('tests/fixtures/kernel-table', '.txt'), ',')" },
  { "sys.fnv1a", "return SYS.fnv1a('foobar')" },
  /* perflab.options */
  { "options.check",
    "local ok, e = pcall(O.check, {a = 1, zz = 2}, {'b', 'a'}, 'f', 1); return O.check({a = 1}, {'a'}) ~= nil, ok, e" },
};
#define NCASES (sizeof cases / sizeof cases[0])

/* ---- running ----------------------------------------------------------------- */

static char tmpdir[] = "/tmp/perflab_bind_XXXXXX";
static int failures = 0;

static void fail(const char *name, const char *what) {
  failures++;
  fprintf(stderr, "FAIL %s: %s\n", name, what);
}

/* A bare state: standard libraries and the binding openers in preload. */
static lua_State *bare_state(alloc_ctl *ctl) {
  lua_State *L = lua_newstate(failing_alloc, ctl);
  if (!L) return NULL;
  luaL_openlibs(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE); /* [preload] */
  static const luaL_Reg mods[] = { { "perflab.table", luaopen_perflab_table },
                                   { "perflab.stats", luaopen_perflab_stats },
                                   { "perflab.intervals", luaopen_perflab_intervals },
                                   { "perflab.formats", luaopen_perflab_formats },
                                   { "perflab.sys", luaopen_perflab_sys },
                                   { "perflab.options", luaopen_perflab_options },
                                   { "perflab.occupancy_calc", luaopen_perflab_occupancy_calc },
                                   { "perflab.opargs", luaopen_perflab_opargs },
                                   { NULL, NULL } };
  luaL_setfuncs(L, mods, 0);
  lua_pop(L, 1); /* [] */
  lua_pushstring(L, tmpdir);
  lua_setglobal(L, "TMP");
  lua_pushliteral(L, "tests/fixtures/kernel-table/small.txt");
  lua_setglobal(L, "SMALL");
  return L;
}

static int run_chunk(lua_State *L, const char *code, const char *name) {
  if (luaL_loadbuffer(L, code, strlen(code), name) != LUA_OK) return -1;
  return lua_pcall(L, 0, LUA_MULTRET, 0);
}

/* The results on the stack above base, as one string (popped). */
static char *results(lua_State *L, int base) {
  luaL_Buffer b;
  int top = lua_gettop(L);
  luaL_buffinit(L, &b);
  for (int i = base + 1; i <= top; i++) {
    lua_pushvalue(L, i);                         /* may not touch the buffer's slot: */
    const char *s = luaL_tolstring(L, -1, NULL); /* copy out first */
    char *c = strdup(s);
    lua_pop(L, 2);
    luaL_addstring(&b, c);
    luaL_addchar(&b, '|');
    free(c);
  }
  luaL_pushresult(&b);
  char *out = strdup(lua_tostring(L, -1));
  lua_settop(L, base);
  return out;
}

/* One attempt with N more allocations allowed (N < 0: no cap).  Returns 1
** when the case completed (its results in *out), 0 after a clean memory
** error, -1 after a wrong outcome (reported). */
static int attempt(const bcase *c, long n, char **out) {
  alloc_ctl ctl = { 0, -1 };
  lua_State *L = bare_state(&ctl);
  if (!L) {
    fail(c->name, "no state");
    return -1;
  }
  int r = -1;
  if (run_chunk(L, SETUP, "=setup") != LUA_OK) {
    fail(c->name, lua_tostring(L, -1));
    goto done;
  }
  lua_settop(L, 0);
  if (luaL_loadbuffer(L, c->code, strlen(c->code), c->name) != LUA_OK) {
    fail(c->name, lua_tostring(L, -1));
    goto done;
  }
  if (n >= 0) ctl.fail_at = ctl.count + n;
  int st = lua_pcall(L, 0, LUA_MULTRET, 0);
  ctl.fail_at = -1;
  if (st == LUA_OK) {
    *out = results(L, 0);
    r = 1;
  } else {
    const char *m = lua_tostring(L, -1);
    if (st == LUA_ERRMEM || (m && strstr(m, "not enough memory"))) r = 0;
    else {
      char b[1024];
      snprintf(b, sizeof b, "N=%ld: status %d, not a memory error: %s", n, st, m ? m : "(no message)");
      fail(c->name, b);
      goto done;
    }
  }
  lua_settop(L, 0);
  if (run_chunk(L, VERIFY, "=verify") != LUA_OK) {
    char b[1024];
    snprintf(b, sizeof b, "N=%ld: a table is not whole after the call: %s", n, lua_tostring(L, -1));
    fail(c->name, b);
    r = -1;
  }
done:
  lua_close(L);
  return r;
}

/* Every function of the binding modules and their objects has a case. */
static void completeness(void) {
  alloc_ctl ctl = { 0, -1 };
  lua_State *L = bare_state(&ctl);
  lua_createtable(L, 0, (int)NCASES);
  for (size_t i = 0; i < NCASES; i++) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, cases[i].name);
  }
  lua_setglobal(L, "CASES");
  const char *check = "local missing = {}\n"
                      "local function each(t, prefix)\n"
                      "  for k, v in pairs(t) do\n"
                      "    if type(v) == 'function' and not CASES[prefix .. k] and not k:match('^__') then "
                      "missing[#missing + 1] = prefix .. k end\n"
                      "  end\n"
                      "end\n"
                      "for _, m in ipairs({'table', 'stats', 'intervals', 'formats', 'sys', 'options', "
                      "'occupancy_calc', 'opargs'}) do each(require('perflab.' .. m), m .. '.') end\n"
                      "each(getmetatable(t0).__index, 'Table:')\n"
                      "each(getmetatable(t0:col('x')).__methods, 'Column:')\n"
                      "each(getmetatable(t0:group_by('k')).__index, 'Group:')\n"
                      "each(getmetatable(A).__index, 'IntervalSet:')\n"
                      "table.sort(missing)\n"
                      "return table.concat(missing, ', ')\n";
  if (run_chunk(L, SETUP, "=setup") != LUA_OK || run_chunk(L, check, "=completeness") != LUA_OK)
    fail("completeness", lua_tostring(L, -1));
  else if (lua_tostring(L, -1)[0] != '\0') {
    char b[2048];
    snprintf(b, sizeof b, "no case for: %s (add one to the cases[] list of tests/bind/test_bind_oom.c)",
             lua_tostring(L, -1));
    fail("completeness", b);
  }
  lua_close(L);
}

int main(void) {
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  completeness();
  long attempts = 0;
  const char *only = getenv("BIND_OOM_CASE"); /* one case, when debugging */
  for (size_t i = 0; i < NCASES; i++) {
    const bcase *c = &cases[i];
    char *want = NULL, *got = NULL;
    if (only && strcmp(only, c->name) != 0) continue;
    if (attempt(c, -1, &want) != 1) {
      fail(c->name, "the baseline run (no cap) did not complete");
      continue;
    }
    long n;
    int r = 0;
    for (n = 0; n < 200000; n++) {
      attempts++;
      r = attempt(c, n, &got);
      if (r != 0) break;
    }
    if (getenv("BIND_OOM_VERBOSE")) printf("%-24s %5ld failing runs  %s\n", c->name, n, want);
    if (r == 1) {
      if (strcmp(got, want) != 0) {
        char b[4096];
        snprintf(b, sizeof b, "after %ld failing runs: '%s', without a cap: '%s'", n, got, want);
        fail(c->name, b);
      }
      free(got);
    } else if (r == 0) fail(c->name, "never completed");
    free(want);
  }
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  printf("%zu cases, %ld runs under a failing allocator, %d failed\n", NCASES, attempts, failures);
  return failures ? 1 : 0;
}

/*
** l_stats.c -- the Lua module perflab.stats over src/core/stats.c.
** Every sample argument is a Lua array of numbers or a column object
** (read without building a Lua table).  NaN / nil holes raise unless the
** trailing options table says {nan = "omit"}.  Argument errors read
** "bad argument #N to 'NAME' (...)".  Result field names are fixed (see
** docs/stats.md): {t, df, p}, {u, z, p}, {r, p}, {rho, p}, {lo, hi},
** {edges, counts} and describe's {n, mean, sd, var, min, max, median, p25,
** p75, p90, p95, p99, sum}.
*/
#include "lbind.h"
#include "stats.h"
#include "quantile.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- argument helpers -------------------------------------------------- */

/* Options table at arg (absent/nil allowed), which may hold only the keys
** in accepted (pl_l_checkoptions).  Returns the nan policy. */
static int opt_nan_in(lua_State *L, int arg, const char *const accepted[]) {
  static const char *const policies[] = { "omit", "error", NULL };
  if (lua_isnoneornil(L, arg)) return 0;
  luaL_checktype(L, arg, LUA_TTABLE);
  pl_l_checkoptions(L, arg, accepted);
  return pl_l_checkfieldoption(L, arg, "nan", "error", policies) == 0; /* "omit" */
}

/* The functions whose only option is nan. */
static int opt_nan_omit(lua_State *L, int arg) {
  static const char *const only_nan[] = { "nan", NULL };
  return opt_nan_in(L, arg, only_nan);
}

static lua_Number opt_number(lua_State *L, int arg, const char *key, lua_Number def) {
  if (lua_isnoneornil(L, arg)) return def;
  lua_getfield(L, arg, key);
  lua_Number v = def;
  if (!lua_isnil(L, -1)) {
    int ok;
    v = lua_tonumberx(L, -1, &ok);
    if (!ok) luaL_argerror(L, arg, lua_pushfstring(L, "option %s must be a number", key));
  }
  lua_pop(L, 1);
  return v;
}

/* Samples with at least `need` values. */
static double *checksample(lua_State *L, int arg, size_t *n, int omit, size_t need) {
  double *x = pl_l_checknumbers(L, arg, n, omit);
  if (*n < need)
    luaL_argerror(L, arg, lua_pushfstring(L, "need at least %d finite values, got %d", (int)need, (int)*n));
  return x;
}

/* Raw element i (0-based) of an array or column: NaN for nil/missing;
** raises for non-numbers. */
static double rawnum(lua_State *L, int arg, pl_lcolumn *c, size_t i) {
  if (c) return pl_cell_num(c->t, c->col, i);
  lua_geti(L, arg, (lua_Integer)i + 1);
  double v;
  if (lua_isnil(L, -1)) v = NAN;
  else if (lua_type(L, -1) != LUA_TNUMBER) {
    luaL_argerror(L, arg, lua_pushfstring(L, "element %d is a %s, not a number", (int)i + 1, luaL_typename(L, -1)));
    v = 0;
  } else v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static size_t rawlen(lua_State *L, int arg, pl_lcolumn **c) {
  *c = (pl_lcolumn *)luaL_testudata(L, arg, PL_COLUMN_T);
  if (*c) {
    if ((*c)->t->cols[(*c)->col]->type == PL_STR) luaL_argerror(L, arg, "column holds strings, not numbers");
    return (*c)->t->nrows;
  }
  if (!lua_istable(L, arg)) luaL_typeerror(L, arg, "array of numbers or column");
  return (size_t)luaL_len(L, arg);
}

/* Paired samples (pearson, spearman, weighted_mean): equal lengths; a pair
** with a NaN in either is an error, or dropped with {nan = "omit"}. */
static size_t checkpairs(lua_State *L, int ax, int ay, int omit, size_t need, double **px, double **py) {
  pl_lcolumn *cx, *cy;
  size_t nx = rawlen(L, ax, &cx), ny = rawlen(L, ay, &cy);
  if (nx != ny)
    luaL_argerror(L, ay, lua_pushfstring(L, "length %d differs from argument #%d's %d", (int)ny, ax, (int)nx));
  double *x = lua_newuserdatauv(L, (nx ? nx : 1) * 2 * sizeof *x, 0), *y = x + (nx ? nx : 1);
  size_t m = 0;
  for (size_t i = 0; i < nx; i++) {
    double a = rawnum(L, ax, cx, i), b = rawnum(L, ay, cy, i);
    if (isnan(a) || isnan(b)) {
      if (omit) continue;
      luaL_argerror(L, isnan(a) ? ax : ay,
                    lua_pushfstring(L, "missing value (NaN) at index %d; pass {nan = \"omit\"} to skip", (int)i + 1));
    }
    x[m] = a;
    y[m] = b;
    m++;
  }
  if (m == 0) luaL_argerror(L, ax, "empty input");
  if (m < need) luaL_argerror(L, ax, lua_pushfstring(L, "need at least %d finite pairs, got %d", (int)need, (int)m));
  *px = x;
  *py = y;
  return m;
}

static void setnum(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

static void pusharray(lua_State *L, const double *v, size_t n) {
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* ---- descriptive ------------------------------------------------------- */

/* mean|var|sd|median|sum|min|max(x [, {nan=}]) -> number.  Stack: [x opts]
** then the sample box checksample pushes; the result is pushed last. */
#define SIMPLE(NAME, NEED, EXPR)                                                                                       \
  static int l_##NAME(lua_State *L) {                                                                                  \
    lua_settop(L, 2);                                                                                                  \
    size_t n;                                                                                                          \
    double *x = checksample(L, 1, &n, opt_nan_omit(L, 2), NEED);                                                       \
    lua_pushnumber(L, EXPR);                                                                                           \
    return 1;                                                                                                          \
  }
SIMPLE(mean, 1, pl_stats_mean(x, n))
SIMPLE(var, 2, pl_stats_var(x, n, 1))
SIMPLE(sd, 2, pl_stats_sd(x, n, 1))
SIMPLE(median, 1, pl_stats_median_inplace(x, n))
SIMPLE(sum, 1, pl_stats_sum(x, n))
SIMPLE(min, 1, pl_stats_min(x, n))
SIMPLE(max, 1, pl_stats_max(x, n))

/* geomean(x [, {nan=}]) -> exp(mean(log x))
** [x opts] -> [x opts box g] */
static int l_geomean(lua_State *L) {
  lua_settop(L, 2); /* options slot stays put below pushed buffers */
  size_t n;
  double *x = checksample(L, 1, &n, opt_nan_omit(L, 2), 1);
  for (size_t i = 0; i < n; i++)
    if (!(x[i] > 0)) luaL_argerror(L, 1, "geomean needs positive values");
  lua_pushnumber(L, pl_stats_geomean(x, n));
  return 1;
}

/* weighted_mean(x, w [, {nan=}]) -> sum(w x) / sum(w)
** [x w opts] -> [x w opts ... m] */
static int l_weighted_mean(lua_State *L) {
  lua_settop(L, 3); /* options slot stays put below pushed buffers */
  double *x, *w;
  size_t n = checkpairs(L, 1, 2, opt_nan_omit(L, 3), 1, &x, &w);
  double r = pl_stats_weighted_mean(x, w, n);
  if (isnan(r)) luaL_argerror(L, 2, "weights sum to zero");
  lua_pushnumber(L, r);
  return 1;
}

static double checkq(lua_State *L, int arg, double q) {
  if (!(q >= 0 && q <= 1)) luaL_argerror(L, arg, lua_pushfstring(L, "quantile %f outside [0, 1]", (lua_Number)q));
  return q;
}

/* quantile(x, q | {q...} [, {nan=}]) -> number | array
** [x q opts] -> [x q opts box r | {r...}] */
static int l_quantile(lua_State *L) {
  lua_settop(L, 3); /* options slot stays put below pushed buffers */
  size_t n;
  double *x = checksample(L, 1, &n, opt_nan_omit(L, 3), 1);
  if (lua_type(L, 2) == LUA_TNUMBER) {
    double q = checkq(L, 2, lua_tonumber(L, 2));
    lua_pushnumber(L, pl_quantile_select(x, n, q)); /* x is our copy */
    return 1;
  }
  luaL_argexpected(L, lua_istable(L, 2), 2, "number or array of numbers");
  size_t nq = (size_t)luaL_len(L, 2);
  double *q = lua_newuserdatauv(L, (nq ? nq : 1) * 2 * sizeof *q, 0), *out = q + (nq ? nq : 1);
  for (size_t i = 0; i < nq; i++) {
    lua_geti(L, 2, (lua_Integer)i + 1);
    int ok;
    q[i] = lua_tonumberx(L, -1, &ok);
    if (!ok) luaL_argerror(L, 2, lua_pushfstring(L, "element %d is not a number", (int)i + 1));
    checkq(L, 2, q[i]);
    lua_pop(L, 1);
  }
  pl_stats_quantiles(x, n, q, nq, out);
  pusharray(L, out, nq);
  return 1;
}

/* zscores(x [, {ddof = 0, nan=}]) -> array
** [x opts] -> [x opts box {z...}] */
static int l_zscores(lua_State *L) {
  lua_settop(L, 2); /* options slot stays put below pushed buffers */
  size_t n;
  int ddof = (int)opt_number(L, 2, "ddof", 0);
  static const char *const accepted[] = { "ddof", "nan", NULL };
  double *x = checksample(L, 1, &n, opt_nan_in(L, 2, accepted), (size_t)ddof + 1);
  double *z = lua_newuserdatauv(L, n * sizeof *z, 0);
  pl_stats_zscores(x, n, ddof, z);
  pusharray(L, z, n);
  return 1;
}

/* describe(x [, {nan=}]) -> {n, mean, sd, var, min, max, median, p25, p75, p90, p95, p99, sum}
** [x opts] -> [x opts box {n, mean, ...}] */
static int l_describe(lua_State *L) {
  lua_settop(L, 2); /* options slot stays put below pushed buffers */
  size_t n;
  double *x = checksample(L, 1, &n, opt_nan_omit(L, 2), 1);
  pl_describe d;
  pl_stats_describe(x, n, &d);
  lua_createtable(L, 0, 13);
  lua_pushinteger(L, (lua_Integer)d.n);
  lua_setfield(L, -2, "n");
  setnum(L, "mean", d.mean);
  setnum(L, "sd", d.sd);
  setnum(L, "var", d.var);
  setnum(L, "min", d.min);
  setnum(L, "max", d.max);
  setnum(L, "median", d.median);
  setnum(L, "p25", d.p25);
  setnum(L, "p75", d.p75);
  setnum(L, "p90", d.p90);
  setnum(L, "p95", d.p95);
  setnum(L, "p99", d.p99);
  setnum(L, "sum", d.sum);
  return 1;
}

/* ---- two-sample tests -------------------------------------------------- */

/* welch_t|student_t(a, b [, {nan=}]) -> {t, df, p}.  Stack: [a b opts boxA boxB result] */
static int ttest(lua_State *L, int welch) {
  lua_settop(L, 3);
  int omit = opt_nan_omit(L, 3);
  size_t na, nb;
  double *a = checksample(L, 1, &na, omit, 2);
  double *b = checksample(L, 2, &nb, omit, 2);
  pl_ttest r;
  if (welch) pl_stats_welch_t(a, na, b, nb, &r);
  else pl_stats_student_t(a, na, b, nb, &r);
  lua_createtable(L, 0, 3);
  setnum(L, "t", r.t);
  setnum(L, "df", r.df);
  setnum(L, "p", r.p);
  return 1;
}
/* [a b opts] -> [a b opts ... {t, df, p}] */
static int l_welch_t(lua_State *L) { return ttest(L, 1); }

/* welch_t_from_stats(m1, s1, n1, m2, s2, n2) -> {t, df, p}: from means,
** sample standard deviations and counts (SciPy ttest_ind_from_stats,
** equal_var=False).  Counts must be >= 1, sds >= 0.
** [m1 s1 n1 m2 s2 n2] -> [m1 s1 n1 m2 s2 n2 {t, df, p}] */
static int l_welch_t_from_stats(lua_State *L) {
  double v[6];
  for (int i = 0; i < 6; i++) v[i] = luaL_checknumber(L, i + 1);
  for (int k = 0; k < 2; k++) {
    luaL_argcheck(L, v[3 * k + 1] >= 0, 3 * k + 2, "standard deviation must be >= 0");
    luaL_argcheck(L, v[3 * k + 2] >= 1, 3 * k + 3, "count must be >= 1");
  }
  pl_ttest r;
  pl_stats_welch_t_from_stats(v[0], v[1], v[2], v[3], v[4], v[5], &r);
  lua_createtable(L, 0, 3);
  setnum(L, "t", r.t);
  setnum(L, "df", r.df);
  setnum(L, "p", r.p);
  return 1;
}
/* [a b opts] -> [a b opts ... {t, df, p}] */
static int l_student_t(lua_State *L) { return ttest(L, 0); }

/* mann_whitney_u(a, b [, {method=, nan=}]) -> {u, z, p, method}
** [a b opts] -> [a b opts ... {u, z, p, method}] */
static int l_mann_whitney_u(lua_State *L) {
  lua_settop(L, 3); /* options slot stays put below pushed buffers */
  static const char *const accepted[] = { "method", "nan", NULL };
  int omit = opt_nan_in(L, 3, accepted);
  size_t na, nb;
  double *a = checksample(L, 1, &na, omit, 1);
  double *b = checksample(L, 2, &nb, omit, 1);
  pl_mwu_method m = PL_MWU_AUTO;
  if (!lua_isnoneornil(L, 3)) {
    lua_getfield(L, 3, "method");
    const char *s = lua_tostring(L, -1);
    if (s && strcmp(s, "exact") == 0) m = PL_MWU_EXACT;
    else if (s && strcmp(s, "asymptotic") == 0) m = PL_MWU_ASYMPTOTIC;
    else if (s && strcmp(s, "auto") != 0) luaL_argerror(L, 3, "method must be \"auto\", \"exact\" or \"asymptotic\"");
    lua_pop(L, 1);
  }
  pl_mwu r;
  pl_stats_mann_whitney_u(a, na, b, nb, m, &r);
  lua_createtable(L, 0, 4);
  setnum(L, "u", r.u);
  setnum(L, "z", r.z);
  setnum(L, "p", r.p);
  lua_pushstring(L, r.exact ? "exact" : "asymptotic");
  lua_setfield(L, -2, "method");
  return 1;
}

/* pearson(x, y [, {nan=}]) -> {r, p}; spearman -> {rho, p} */
static int corr(lua_State *L, int spearman) {
  lua_settop(L, 3);
  double *x, *y;
  size_t n = checkpairs(L, 1, 2, opt_nan_omit(L, 3), 2, &x, &y);
  pl_corr r;
  if (spearman) pl_stats_spearman(x, y, n, &r);
  else pl_stats_pearson(x, y, n, &r);
  lua_createtable(L, 0, 2);
  setnum(L, spearman ? "rho" : "r", r.r);
  setnum(L, "p", r.p);
  return 1;
}
/* [x y opts] -> [x y opts ... {r, p}] */
static int l_pearson(lua_State *L) { return corr(L, 0); }
/* [x y opts] -> [x y opts ... {rho, p}] */
static int l_spearman(lua_State *L) { return corr(L, 1); }

/* cliffs_delta|hellinger|bhattacharyya(a, b [, {nan=}]) -> number
** [a b opts] -> [a b opts boxa boxb x] */
#define TWO(NAME, NEED, FN)                                                                                            \
  static int l_##NAME(lua_State *L) {                                                                                  \
    lua_settop(L, 3);                                                                                                  \
    int omit = opt_nan_omit(L, 3);                                                                                     \
    size_t na, nb;                                                                                                     \
    double *a = checksample(L, 1, &na, omit, NEED);                                                                    \
    double *b = checksample(L, 2, &nb, omit, NEED);                                                                    \
    lua_pushnumber(L, FN(a, na, b, nb));                                                                               \
    return 1;                                                                                                          \
  }
TWO(cliffs_delta, 1, pl_stats_cliffs_delta)
TWO(hellinger, 2, pl_stats_hellinger)
TWO(bhattacharyya, 2, pl_stats_bhattacharyya)

/* ---- bootstrap --------------------------------------------------------- */

/* bootstrap_ci(x, statistic [, {n=, alpha=, seed=, nan=}]) -> {lo, hi};
** statistic: "mean", "median", ... or a function of a resample.
** [x statistic opts] -> [x statistic opts ... {lo, hi}] */
static int l_bootstrap_ci(lua_State *L) {
  lua_settop(L, 3); /* options slot stays put below pushed buffers */
  static const char *const accepted[] = { "alpha", "n", "nan", "seed", NULL };
  int omit = opt_nan_in(L, 3, accepted);
  size_t n;
  double *x = checksample(L, 1, &n, omit, 1);
  lua_Number nb = opt_number(L, 3, "n", 10000), alpha = opt_number(L, 3, "alpha", 0.05);
  lua_Number seed = opt_number(L, 3, "seed", 1);
  if (!(nb >= 1 && nb <= 1e9)) luaL_argerror(L, 3, "option n must be at least 1");
  if (!(alpha > 0 && alpha < 1)) luaL_argerror(L, 3, "option alpha must be in (0, 1)");
  size_t nboot = (size_t)nb;
  double lo, hi;
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *s = lua_tostring(L, 2);
    pl_stat_fn fn = strcmp(s, "mean") == 0 ? pl_stat_fn_mean : strcmp(s, "median") == 0 ? pl_stat_fn_median : NULL;
    if (!fn) luaL_argerror(L, 2, "statistic must be \"mean\", \"median\" or a function");
    pl_stats_bootstrap_ci(x, n, fn, NULL, nboot, alpha, (uint64_t)seed, &lo, &hi);
  } else {
    luaL_argexpected(L, lua_isfunction(L, 2), 2, "\"mean\", \"median\" or function");
    /* same draws as the C path; buffers live on the Lua stack so an error
    ** raised by the statistic leaks nothing */
    double *st = lua_newuserdatauv(L, nboot * sizeof *st, 0);
    pl_rng rng;
    pl_rng_seed(&rng, (uint64_t)seed);
    for (size_t b = 0; b < nboot; b++) {
      lua_pushvalue(L, 2);
      lua_createtable(L, (int)n, 0);
      for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, x[pl_rng_below(&rng, n)]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
      }
      lua_call(L, 1, 1);
      int ok;
      st[b] = lua_tonumberx(L, -1, &ok);
      if (!ok || isnan(st[b]))
        luaL_error(L, "bad argument #2 to 'bootstrap_ci' (statistic returned %s, not a number)", luaL_typename(L, -1));
      lua_pop(L, 1);
    }
    double q[2] = { alpha / 2, 1 - alpha / 2 }, out[2];
    pl_stats_quantiles(st, nboot, q, 2, out);
    lo = out[0];
    hi = out[1];
  }
  lua_createtable(L, 0, 2);
  setnum(L, "lo", lo);
  setnum(L, "hi", hi);
  return 1;
}

/* ---- histogram --------------------------------------------------------- */

#define PL_HIST_T "perflab.Histogram"

static void pushcounts(lua_State *L, const double *v, size_t n) {
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushinteger(L, (lua_Integer)v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

static lua_Integer hfield(lua_State *L, int h, const char *k) {
  lua_getfield(L, h, k);
  lua_Integer v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

/* h:table(): a perflab table lo, hi, count (rows for values under the
** first edge and over the last one where there are any; their open end
** missing).
** [h] -> [h edges counts ... T] */
static int hist_table(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "edges");
  lua_getfield(L, 1, "counts");
  int e = lua_gettop(L) - 1, c = e + 1;
  luaL_argcheck(L, lua_istable(L, e) && lua_istable(L, c), 1, "expected a histogram");
  size_t ne = (size_t)luaL_len(L, e);
  lua_Integer under = hfield(L, 1, "under"), over = hfield(L, 1, "over");
  pl_table *t = pl_table_new("histogram");
  pl_l_pushtable(L, t);
  int clo = pl_table_add_col(t, "lo", PL_NUM), chi = pl_table_add_col(t, "hi", PL_NUM),
      cn = pl_table_add_col(t, "count", PL_INT);
  if (ne == 0) return 1;
  lua_geti(L, e, 1);
  double first = lua_tonumber(L, -1);
  lua_pop(L, 1);
  lua_geti(L, e, (lua_Integer)ne);
  double last = lua_tonumber(L, -1);
  lua_pop(L, 1);
  if (under > 0) {
    pl_row_put_num(t, chi, first);
    pl_row_put_int(t, cn, under);
    pl_row_end(t);
  }
  for (size_t i = 1; i < ne; i++) {
    lua_geti(L, e, (lua_Integer)i);
    lua_geti(L, e, (lua_Integer)i + 1);
    lua_geti(L, c, (lua_Integer)i);
    pl_row_put_num(t, clo, lua_tonumber(L, -3));
    pl_row_put_num(t, chi, lua_tonumber(L, -2));
    pl_row_put_int(t, cn, (int64_t)lua_tointeger(L, -1));
    pl_row_end(t);
    lua_pop(L, 3);
  }
  if (over > 0) {
    pl_row_put_num(t, clo, last);
    pl_row_put_int(t, cn, over);
    pl_row_end(t);
  }
  return 1;
}

/* [h] -> [h ... text] */
static int hist_tostring(lua_State *L) {
  lua_settop(L, 1);
  hist_table(L);
  pl_table *t = pl_l_checktable(L, -1);
  pl_fmtopts o = { 0, 0, 0, 6 };
  pl_buf b;
  pl_buf_init(&b);
  pl_table_format(t, &o, &b);
  lua_pushlstring(L, b.data ? b.data : "", b.len);
  pl_buf_free(&b);
  return 1;
}

static void sethistmeta(lua_State *L) {
  if (luaL_newmetatable(L, PL_HIST_T)) {
    lua_pushcfunction(L, hist_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, hist_table);
    lua_setfield(L, -2, "table");
    lua_setfield(L, -2, "__index");
  }
  lua_setmetatable(L, -2);
}

/* {edges, counts (integers), under, over} with a metatable that prints. */
static void pushhist(lua_State *L, const double *x, size_t n, const double *e, size_t ne, const double *c) {
  size_t under, over;
  pl_stats_histogram_outside(x, n, e, ne, &under, &over);
  lua_createtable(L, 0, 4);
  pusharray(L, e, ne);
  lua_setfield(L, -2, "edges");
  pushcounts(L, c, ne - 1);
  lua_setfield(L, -2, "counts");
  lua_pushinteger(L, (lua_Integer)under);
  lua_setfield(L, -2, "under");
  lua_pushinteger(L, (lua_Integer)over);
  lua_setfield(L, -2, "over");
  sethistmeta(L);
}

/* histogram(x [, {bins= | edges=, log=, nan=}]) -> {edges, counts, under, over}
** [x opts] -> [x opts ... h] */
static int l_histogram(lua_State *L) {
  lua_settop(L, 2); /* options slot stays put below pushed buffers */
  size_t n;
  static const char *const accepted[] = { "bins", "edges", "log", "nan", NULL };
  double *x = checksample(L, 1, &n, opt_nan_in(L, 2, accepted), 1);
  int has_edges = 0, logbins = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "edges");
    has_edges = !lua_isnil(L, -1);
    lua_getfield(L, 2, "log");
    logbins = lua_toboolean(L, -1);
    lua_pop(L, 2);
  }
  if (has_edges) {
    if (logbins) luaL_argerror(L, 2, "give edges or log = true, not both");
    lua_getfield(L, 2, "edges");
    int ei = lua_gettop(L);
    if (!lua_istable(L, ei)) luaL_argerror(L, 2, "option edges must be an array of numbers");
    size_t ne = (size_t)luaL_len(L, ei);
    if (ne < 2) luaL_argerror(L, 2, "option edges needs at least 2 values");
    double *e = lua_newuserdatauv(L, ne * 2 * sizeof *e, 0), *c = e + ne;
    for (size_t i = 0; i < ne; i++) {
      lua_geti(L, ei, (lua_Integer)i + 1);
      int ok;
      e[i] = lua_tonumberx(L, -1, &ok);
      if (!ok || isnan(e[i])) luaL_argerror(L, 2, "option edges must be an array of numbers");
      lua_pop(L, 1);
    }
    if (pl_stats_histogram_edges(x, n, e, ne, c) != 0) luaL_argerror(L, 2, "option edges must be ascending");
    pushhist(L, x, n, e, ne, c);
    return 1;
  }
  lua_Number b = opt_number(L, 2, "bins", 10);
  if (!(b >= 1 && b <= 1e8) || b != floor(b)) luaL_argerror(L, 2, "option bins must be a positive integer");
  size_t nb = (size_t)b;
  double *e = lua_newuserdatauv(L, (2 * nb + 1) * sizeof *e, 0), *c = e + nb + 1;
  if (logbins) {
    if (pl_stats_log_edges(x, n, nb, e) != 0) luaL_argerror(L, 1, "log bins need at least one value > 0");
    pl_stats_histogram_edges(x, n, e, nb + 1, c);
  } else pl_stats_histogram(x, n, nb, e, c);
  pushhist(L, x, n, e, nb + 1, c);
  return 1;
}

/* ---- distributions ----------------------------------------------------- */

/* normal_cdf(x) / normal_sf(x) -> number; t_cdf(t, df) / t_sf(t, df) -> number
** [x] -> [x p] */
static int l_normal_cdf(lua_State *L) {
  lua_pushnumber(L, pl_normal_cdf(luaL_checknumber(L, 1)));
  return 1;
}
/* [x] -> [x p] */
static int l_normal_sf(lua_State *L) {
  lua_pushnumber(L, pl_normal_sf(luaL_checknumber(L, 1)));
  return 1;
}
/* [p] -> [p x] */
static int l_normal_ppf(lua_State *L) {
  double p = luaL_checknumber(L, 1);
  luaL_argcheck(L, p >= 0 && p <= 1, 1, "probability must be in [0, 1]");
  lua_pushnumber(L, pl_normal_ppf(p));
  return 1;
}

static double checkdf(lua_State *L, int arg) {
  double df = luaL_checknumber(L, arg);
  if (!(df > 0)) luaL_argerror(L, arg, "degrees of freedom must be > 0");
  return df;
}
/* [t df] -> [t df p] */
static int l_t_cdf(lua_State *L) {
  double t = luaL_checknumber(L, 1);
  lua_pushnumber(L, pl_t_cdf(t, checkdf(L, 2)));
  return 1;
}
/* [t df] -> [t df p] */
static int l_t_sf(lua_State *L) {
  double t = luaL_checknumber(L, 1);
  lua_pushnumber(L, pl_t_sf(t, checkdf(L, 2)));
  return 1;
}

static const luaL_Reg funcs[] = { { "describe", l_describe },
                                  { "mean", l_mean },
                                  { "var", l_var },
                                  { "sd", l_sd },
                                  { "median", l_median },
                                  { "sum", l_sum },
                                  { "min", l_min },
                                  { "max", l_max },
                                  { "geomean", l_geomean },
                                  { "weighted_mean", l_weighted_mean },
                                  { "quantile", l_quantile },
                                  { "zscores", l_zscores },
                                  { "welch_t", l_welch_t },
                                  { "welch_t_from_stats", l_welch_t_from_stats },
                                  { "student_t", l_student_t },
                                  { "mann_whitney_u", l_mann_whitney_u },
                                  { "pearson", l_pearson },
                                  { "spearman", l_spearman },
                                  { "cliffs_delta", l_cliffs_delta },
                                  { "hellinger", l_hellinger },
                                  { "bhattacharyya", l_bhattacharyya },
                                  { "bootstrap_ci", l_bootstrap_ci },
                                  { "histogram", l_histogram },
                                  { "normal_cdf", l_normal_cdf },
                                  { "normal_sf", l_normal_sf },
                                  { "normal_ppf", l_normal_ppf },
                                  { "t_cdf", l_t_cdf },
                                  { "t_sf", l_t_sf },
                                  { NULL, NULL } };

/* [...] -> [... module] */
int luaopen_perflab_stats(lua_State *L) {
  luaL_newlib(L, funcs);
  return 1;
}

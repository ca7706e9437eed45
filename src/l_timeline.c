/*
** l_timeline.c -- the functions of module perflab.intervals over tables of
** timed rows and over step series (docs/intervals.md has the contract):
**   I.innermost(ops, queries [, {start, duration | stop, by, where, query_where}])
**   I.enclosed(ops, queries, {point, ...}) -> busy, count
**   I.parents(ops [, {start, duration | stop, by, where}]) -> integer column
**   I.sum_within(windows, points [, {start, duration | stop, at, by, values, where, point_where}])
**   I.step_integral(starts, ends, values [, {cap, lo, hi, n}])
**   I.series_windows(ts, te, values, starts, ends) -> area, cov, at
**   I.first_window(wstarts, wends, starts, ends) -> integer column
**   I.step_levels(times, deltas [, {windows = W}])
** The interval-set object and the module's opener are l_intervals.c, which
** registers these through pl_l_timeline_open; the time and mask readers
** both use are in lbind.c; the loops run in the core (intervals.c,
** steplevels.c).
*/
#include "lbind.h"
#include "intervals.h"
#include "steplevels.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The op-time options of an interval call at stack index opts (0: none):
** start (column, "start_ns"), then stop (an end column) or duration
** ("duration_ns"), duration winning where both are given.  Pushes the three
** fields (their strings stay alive on the stack; the caller pops 3). */
static void timeopts(lua_State *L, int opts, const char **scol, const char **ecol, int *isdur) {
  *scol = "start_ns";
  *ecol = "duration_ns";
  *isdur = 1;
  if (!opts) {
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushnil(L);
    return;
  }
  lua_getfield(L, opts, "start");
  if (!lua_isnil(L, -1)) *scol = luaL_checkstring(L, -1);
  lua_getfield(L, opts, "stop");
  if (!lua_isnil(L, -1)) {
    *ecol = luaL_checkstring(L, -1);
    *isdur = 0;
  }
  lua_getfield(L, opts, "duration");
  if (!lua_isnil(L, -1)) {
    *ecol = luaL_checkstring(L, -1);
    *isdur = 1;
  }
}

/* Group codes of the rows of t by the key columns named in the string or
** array at opts.by: rows with equal values in every key column get the same
** code.  codes is a Lua table (at index ctab) mapping key values to dense
** codes, shared between calls so two tables get comparable codes.  A
** missing key value gives the row skip[i] = 1.  The array is a box on the
** stack. */
static int64_t *groupcodes(lua_State *L, pl_table *t, int opts, int ctab, unsigned char *skip, int *any) {
  size_t n = t->nrows;
  *any = 0;
  if (opts == 0 || !lua_istable(L, opts)) return NULL;
  lua_getfield(L, opts, "by");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return NULL;
  }
  if (lua_isstring(L, -1)) {
    lua_createtable(L, 1, 0);
    lua_insert(L, -2);
    lua_rawseti(L, -2, 1);
  }
  luaL_argcheck(L, lua_istable(L, -1), opts, "by: a column name or an array of names expected");
  int by = lua_gettop(L);
  int nby = (int)luaL_len(L, by);
  int64_t *g = lua_newuserdatauv(L, (n ? n : 1) * sizeof *g, 0);
  for (size_t i = 0; i < n; i++) g[i] = 0;
  *any = 1;
  for (int k = 1; k <= nby; k++) {
    lua_geti(L, by, k);
    int c = pl_l_argcol(L, t, luaL_checkstring(L, -1), opts);
    lua_pop(L, 1);
    lua_geti(L, ctab, k); /* this key column's value -> code */
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      lua_newtable(L);
      lua_pushvalue(L, -1);
      lua_rawseti(L, ctab, k);
    }
    int map = lua_gettop(L);
    lua_Integer ncode; /* codes handed out so far: map["\1n"] */
    lua_getfield(L, map, "\001n");
    ncode = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
    lua_pop(L, 1);
    pl_column *col = t->cols[c];
    size_t ids = col->type == PL_STR ? pl_pool_count(t->pool) + 1 : 0;
    int64_t *idcode = ids ? lua_newuserdatauv(L, ids * sizeof *idcode, 0) : NULL;
    for (size_t j = 0; j < ids; j++) idcode[j] = -1;
    for (size_t i = 0; i < n; i++) {
      if (pl_cell_missing(t, c, i)) {
        skip[i] = 1;
        continue;
      }
      int64_t code;
      uint32_t id = 0;
      if (idcode && idcode[id = col->v.str[i]] >= 0) code = idcode[id];
      else {
        if (col->type == PL_STR) {
          size_t len;
          const char *s = pl_cell_str(t, c, i, &len);
          lua_pushlstring(L, s, len);
        } else if (col->type == PL_NUM) lua_pushnumber(L, pl_cell_num(t, c, i));
        else lua_pushinteger(L, (lua_Integer)pl_cell_int(t, c, i));
        lua_pushvalue(L, -1);
        lua_rawget(L, map);
        if (lua_isinteger(L, -1)) {
          code = lua_tointeger(L, -1);
          lua_pop(L, 2);
        } else {
          lua_pop(L, 1);
          code = ++ncode;
          lua_pushinteger(L, code);
          lua_rawset(L, map);
        }
        if (idcode) idcode[id] = code;
      }
      if (g[i] > (INT64_MAX - code) / (1 << 20)) luaL_error(L, "by: too many distinct keys");
      g[i] = g[i] * ((int64_t)1 << 20) + code;
    }
    lua_pushinteger(L, ncode);
    lua_setfield(L, map, "\001n");
    if (ncode >= ((int64_t)1 << 20)) luaL_error(L, "by: more than 2^20 distinct values in one key column");
    if (idcode) lua_pop(L, 1);
    lua_pop(L, 1); /* map */
  }
  lua_remove(L, by); /* the box stays on top */
  return g;
}

/* I.innermost(ops, queries [, opts]) -> integer column, one row per query:
** the row (1-based) of the innermost op of ops enclosing the query in time
** within the same group, missing where none does.  opts: start (column,
** "start_ns"), duration ("duration_ns") or stop (an end column), by (a
** column name or names, both tables; equal values are one group), where
** (mask of ops that take part), query_where (mask of queries).  An op needs
** a start and an end; a query with no end is a point.
** [ops queries [opts]] -> [ops queries opts ... I] */
static int l_innermost(lua_State *L) {
  lua_settop(L, 3);
  pl_table *ot = pl_l_checktable(L, 1), *qt = pl_l_checktable(L, 2);
  int opts = lua_isnil(L, 3) ? 0 : 3;
  if (opts) luaL_checktype(L, 3, LUA_TTABLE);
  const char *scol, *ecol;
  int isdur;
  timeopts(L, opts, &scol, &ecol, &isdur);
  lua_pop(L, 3); /* the strings stay alive in opts */
  size_t n = ot->nrows, m = qt->nrows;
  unsigned char *oskip = pl_l_rowmask(L, opts, "where", n);
  unsigned char *qskip = pl_l_rowmask(L, opts, "query_where", m);
  int64_t *os, *oe, *qs, *qe;
  pl_l_rowtimes(L, ot, 1, scol, ecol, isdur, &os, &oe, oskip, 0);
  pl_l_rowtimes(L, qt, 2, scol, ecol, isdur, &qs, &qe, qskip, 1);
  lua_newtable(L);
  int ctab = lua_gettop(L);
  int any;
  int64_t *og = groupcodes(L, ot, opts, ctab, oskip, &any);
  int64_t *qg = groupcodes(L, qt, opts, ctab, qskip, &any);
  int64_t *out = lua_newuserdatauv(L, (m ? m : 1) * sizeof *out, 0);
  pl_iv_innermost(os, oe, og, oskip, n, qs, qe, qg, qskip, m, out);
  pl_l_pushindex(L, "innermost", out, m);
  return 1;
}

/* Pushes a one-column integer table "name" holding v (missing where
** v[i] == INT64_MIN) and returns its column object in place of the table. */
static void pushints(lua_State *L, const char *name, const int64_t *v, size_t n) {
  pl_table *t = pl_table_new(name);
  int c = pl_table_add_col(t, name, PL_INT);
  pl_table_reserve(t, n);
  for (size_t i = 0; i < n; i++) {
    pl_cell x;
    x.i = v[i] == INT64_MIN ? PL_INT_NA : v[i];
    pl_table_append(t, &x);
  }
  pl_l_pushtable(L, t);
  pl_l_pushcolumn(L, -1, c);
  lua_remove(L, -2);
}

/* I.enclosed(ops, queries, opts) -> busy, count: two integer columns, one
** row per op: the union length of the [start, end) of the queries whose
** point (opts.point, a column of queries) lies within the op's [start,
** start + duration] (ends included) in the same group (opts.by, columns of
** both tables), and how many queries those are; missing for an op without
** a start or duration.  opts: point (required), start ("start_ns") and stop
** ("end_ns") or duration, of the queries; op_start ("start_ns"),
** op_duration ("duration_ns"); by; where (ops), query_where.  What an op
** and everything under it launched: the queries are kernels, the point the
** start of the runtime call that launched each.
** [ops queries opts] -> [ops queries opts ... busy count] */
static int l_enclosed(lua_State *L) {
  lua_settop(L, 3);
  pl_table *ot = pl_l_checktable(L, 1), *qt = pl_l_checktable(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  const char *pcol, *qs_ = "start_ns", *qe_ = "end_ns", *os_ = "start_ns", *od_ = "duration_ns";
  int qdur = 0;
  lua_getfield(L, 3, "point");
  pcol = luaL_checkstring(L, -1);
  lua_getfield(L, 3, "start");
  if (!lua_isnil(L, -1)) qs_ = luaL_checkstring(L, -1);
  lua_getfield(L, 3, "stop");
  if (!lua_isnil(L, -1)) qe_ = luaL_checkstring(L, -1);
  lua_getfield(L, 3, "duration");
  if (!lua_isnil(L, -1)) {
    qe_ = luaL_checkstring(L, -1);
    qdur = 1;
  }
  lua_getfield(L, 3, "op_start");
  if (!lua_isnil(L, -1)) os_ = luaL_checkstring(L, -1);
  lua_getfield(L, 3, "op_duration");
  if (!lua_isnil(L, -1)) od_ = luaL_checkstring(L, -1);
  lua_pop(L, 6); /* the strings stay alive in opts */
  size_t n = ot->nrows, m = qt->nrows;
  unsigned char *oskip = pl_l_rowmask(L, 3, "where", n);
  unsigned char *qskip = pl_l_rowmask(L, 3, "query_where", m);
  int64_t *os, *oe, *qs, *qe, *qp;
  unsigned char *pm;
  pl_l_rowtimes(L, ot, 1, os_, od_, 1, &os, &oe, oskip, 0);
  pl_l_rowtimes(L, qt, 2, qs_, qe_, qdur, &qs, &qe, qskip, 0);
  pl_l_pushcolumn(L, 2, pl_l_argcol(L, qt, pcol, 3));
  pl_l_readvals(L, -1, m, &qp, NULL, &pm);
  lua_remove(L, -3);
  for (size_t i = 0; i < m; i++)
    if (pm[i]) qskip[i] = 1;
  lua_newtable(L);
  int ctab = lua_gettop(L);
  int any;
  int64_t *og = groupcodes(L, ot, 3, ctab, oskip, &any);
  int64_t *qg = groupcodes(L, qt, 3, ctab, qskip, &any);
  int64_t *len = lua_newuserdatauv(L, (n ? n : 1) * 2 * sizeof *len, 0), *cnt = len + (n ? n : 1);
  pl_iv_enclosed(os, oe, og, oskip, n, qp, qg, qs, qe, qskip, m, len, cnt);
  pushints(L, "busy", len, n);
  pushints(L, "count", cnt, n);
  return 2;
}

/* I.parents(ops [, opts]) -> integer column, one row per op: the row
** (1-based) of the innermost other op of its group containing it
** ([start, end)), missing for a top-level op.  opts: start, duration |
** stop, by, where (as innermost).
** [ops [opts]] -> [ops opts ... I] */
static int l_parents(lua_State *L) {
  lua_settop(L, 2);
  pl_table *ot = pl_l_checktable(L, 1);
  int opts = lua_isnil(L, 2) ? 0 : 2;
  if (opts) luaL_checktype(L, 2, LUA_TTABLE);
  const char *scol, *ecol;
  int isdur;
  timeopts(L, opts, &scol, &ecol, &isdur);
  lua_pop(L, 3);
  size_t n = ot->nrows;
  unsigned char *skip = pl_l_rowmask(L, opts, "where", n);
  int64_t *s, *e;
  pl_l_rowtimes(L, ot, 1, scol, ecol, isdur, &s, &e, skip, 0);
  lua_newtable(L);
  int ctab = lua_gettop(L), any;
  int64_t *g = groupcodes(L, ot, opts, ctab, skip, &any);
  int64_t *out = lua_newuserdatauv(L, (n ? n : 1) * sizeof *out, 0);
  pl_iv_parents(s, e, g, skip, n, out);
  pl_l_pushindex(L, "parents", out, n);
  return 1;
}

/* I.sum_within(windows, points [, opts]) -> table, one row per window:
** count (the points of the window's group with start <= at < end) and, per
** name in opts.values, the sum of that integer column of points over them
** (a missing value adds 0).  opts: start ("start_ns"), duration
** ("duration_ns") or stop (windows' columns), at ("ts_ns", the points'
** time column), by (a column name or names, both tables), where (mask of
** windows; the others get 0), point_where (mask of points).  Windows are
** half open; see pl_iv_sum_within.
** [W P [opts]] -> [W P opts ... T] */
static int l_sum_within(lua_State *L) {
  lua_settop(L, 3);
  pl_table *wt = pl_l_checktable(L, 1), *pt = pl_l_checktable(L, 2);
  int opts = lua_isnil(L, 3) ? 0 : 3;
  if (opts) luaL_checktype(L, 3, LUA_TTABLE);
  const char *scol, *ecol, *at = "ts_ns";
  int isdur;
  timeopts(L, opts, &scol, &ecol, &isdur);
  lua_pop(L, 3); /* the strings stay alive in opts */
  if (opts) {
    lua_getfield(L, 3, "at");
    if (!lua_isnil(L, -1)) at = luaL_checkstring(L, -1);
    lua_pop(L, 1);
  }
  size_t nw = wt->nrows, np = pt->nrows;
  unsigned char *wskip = pl_l_rowmask(L, opts, "where", nw);
  unsigned char *pskip = pl_l_rowmask(L, opts, "point_where", np);
  int64_t *ws, *we, *ps, *pe;
  pl_l_rowtimes(L, wt, 1, scol, ecol, isdur, &ws, &we, wskip, 0);
  pl_l_rowtimes(L, pt, 2, at, at, 0, &ps, &pe, pskip, 1);
  lua_newtable(L);
  int ctab = lua_gettop(L);
  int any;
  int64_t *wg = groupcodes(L, wt, opts, ctab, wskip, &any);
  int64_t *pg = groupcodes(L, pt, opts, ctab, pskip, &any);
  /* the value columns */
  size_t nv = 0;
  int vtab = 0;
  if (opts) {
    lua_getfield(L, 3, "values");
    if (!lua_isnil(L, -1)) {
      luaL_argcheck(L, lua_istable(L, -1), 3, "values: an array of column names expected");
      vtab = lua_gettop(L);
      nv = (size_t)luaL_len(L, vtab);
    }
  }
  luaL_argcheck(L, nv <= 64, 3, "values: at most 64 columns");
  const int64_t *vals[64];
  int64_t *sums[64];
  for (size_t j = 0; j < nv; j++) {
    lua_geti(L, vtab, (lua_Integer)j + 1);
    int c = pl_l_argcol(L, pt, luaL_checkstring(L, -1), 3);
    lua_pop(L, 1);
    unsigned char *miss;
    int64_t *v;
    pl_l_pushcolumn(L, 2, c);
    pl_l_readvals(L, -1, np, &v, NULL, &miss);
    for (size_t k = 0; k < np; k++)
      if (miss[k]) v[k] = 0;
    vals[j] = v;
  }
  pl_table *out = pl_table_new("sum_within");
  int ccount = pl_table_add_col(out, "count", PL_INT);
  int cols[64];
  for (size_t j = 0; j < nv; j++) {
    lua_geti(L, vtab, (lua_Integer)j + 1);
    cols[j] = pl_table_add_col_unique(out, lua_tostring(L, -1), PL_INT);
    lua_pop(L, 1);
  }
  pl_l_pushtable(L, out); /* owns out from here */
  int64_t *count = lua_newuserdatauv(L, (nw ? nw : 1) * (nv + 1) * sizeof *count, 0);
  for (size_t j = 0; j < nv; j++) sums[j] = count + (j + 1) * (nw ? nw : 1);
  pl_iv_sum_within(ws, we, wg, wskip, nw, ps, pg, pskip, np, vals, nv, count, sums);
  pl_table_reserve(out, nw);
  for (size_t w = 0; w < nw; w++) {
    pl_row_put_int(out, ccount, count[w]);
    for (size_t j = 0; j < nv; j++) pl_row_put_int(out, cols[j], sums[j][w]);
    pl_row_end(out);
  }
  lua_pop(L, 1); /* the box; the table is on top */
  return 1;
}

/* I.step_integral(starts, ends, values [, {cap = , lo = , hi = , n = }]):
** the integral over [lo, hi) (default: everything) of min(level, cap),
** level(t) = the sum of the values of the intervals [start, end) active at
** t, where level > 0 (value x ns).  Arrays (nil holes) or columns; an index
** where any of the three is missing is left out.
** [starts ends values [opts]] -> [starts ends values opts ... x] */
static int l_step_integral(lua_State *L) {
  lua_settop(L, 4);
  int opts = lua_isnil(L, 4) ? 0 : 4;
  if (opts) luaL_checktype(L, 4, LUA_TTABLE);
  double cap = HUGE_VAL;
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 1, PL_COLUMN_T);
  size_t n = c ? c->t->nrows : (lua_istable(L, 1) ? (size_t)luaL_len(L, 1) : 0);
  if (opts) {
    lua_getfield(L, 4, "cap");
    if (!lua_isnil(L, 5)) cap = luaL_checknumber(L, 5);
    lua_getfield(L, 4, "lo");
    if (!lua_isnil(L, 6)) lo = pl_l_checktime(L, 6);
    lua_getfield(L, 4, "hi");
    if (!lua_isnil(L, 7)) hi = pl_l_checktime(L, 7);
    lua_getfield(L, 4, "n");
    if (!lua_isnil(L, 8)) {
      lua_Integer k = luaL_checkinteger(L, 8);
      luaL_argcheck(L, k >= 0, 4, "n must be >= 0");
      n = (size_t)k;
    }
    lua_settop(L, 4);
  }
  int64_t *s, *e;
  double *v;
  unsigned char *ms, *me, *mv;
  pl_l_readvals(L, 1, n, &s, NULL, &ms);
  pl_l_readvals(L, 2, n, &e, NULL, &me);
  pl_l_readvals(L, 3, n, NULL, &v, &mv);
  for (size_t i = 0; i < n; i++) ms[i] = ms[i] || me[i] || mv[i];
  lua_pushnumber(L, pl_iv_step_integral(s, e, v, ms, n, cap, lo, hi));
  return 1;
}

/* I.series_windows(ts, te, v, starts, ends) -> area, cov, at: a sampled
** series (ts sorted; te the ends of interval samples, or false/nil for
** samples that hold until the next) over the windows [starts[j], ends[j]):
** per window the integral of the values (value x ns), the length covered
** (an integer) and the 1-based sample in force at the window's start (nil
** where none), as three Lua arrays.  With opts {by = G [, groups = ng]} (G
** the 1-based group of each window, a column or array; missing: none),
** the windows summed per group instead: one table, a row per group 1..ng
** (ng: the largest group), of columns area, cov, point_sum and points
** (pl_iv_series_groups).  See pl_iv_series_windows.
** [ts te v starts ends opts] -> [ts te v starts ends opts ... area cov at] */
static int l_series_windows(lua_State *L) {
  lua_settop(L, 6);
  int by = 0;
  lua_Integer ng = -1;
  if (!lua_isnoneornil(L, 6)) {
    luaL_checktype(L, 6, LUA_TTABLE);
    lua_getfield(L, 6, "groups");
    if (!lua_isnil(L, -1)) ng = luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, 6, "by");
    by = lua_isnil(L, -1) ? 0 : lua_gettop(L);
    if (!by) lua_pop(L, 1);
  }
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 1, PL_COLUMN_T);
  size_t n = c ? c->t->nrows : (lua_istable(L, 1) ? (size_t)luaL_len(L, 1) : 0);
  pl_lcolumn *w = (pl_lcolumn *)luaL_testudata(L, 4, PL_COLUMN_T);
  size_t m = w ? w->t->nrows : (lua_istable(L, 4) ? (size_t)luaL_len(L, 4) : 0);
  int64_t *ts, *te = NULL, *a, *b;
  double *v;
  unsigned char *mt, *me, *mv, *ma, *mb;
  pl_l_readvals(L, 1, n, &ts, NULL, &mt);
  if (lua_toboolean(L, 2)) pl_l_readvals(L, 2, n, &te, NULL, &me);
  pl_l_readvals(L, 3, n, NULL, &v, &mv);
  for (size_t k = 0; k < n; k++) {
    if (mt[k] || mv[k] || (te && me[k]))
      return luaL_argerror(L, mt[k] ? 1 : mv[k] ? 3 : 2, lua_pushfstring(L, "missing value at index %d", (int)k + 1));
    if (k && ts[k] < ts[k - 1]) return luaL_argerror(L, 1, "sample times must be sorted");
  }
  pl_l_readvals(L, 4, m, &a, NULL, &ma);
  pl_l_readvals(L, 5, m, &b, NULL, &mb);
  for (size_t j = 0; j < m; j++)
    if (ma[j] || mb[j])
      return luaL_argerror(L, ma[j] ? 4 : 5, lua_pushfstring(L, "missing value at index %d", (int)j + 1));
  double *area = lua_newuserdatauv(L, (m ? m : 1) * sizeof *area, 0);
  int64_t *cov = lua_newuserdatauv(L, (m ? m : 1) * 2 * sizeof *cov, 0), *at = cov + (m ? m : 1);
  if (by) {
    int64_t *g;
    unsigned char *mg;
    pl_lcolumn *gcol = (pl_lcolumn *)luaL_testudata(L, by, PL_COLUMN_T);
    if ((gcol ? gcol->t->nrows : (lua_istable(L, by) ? (size_t)luaL_len(L, by) : 0)) != m)
      return luaL_argerror(L, 6, lua_pushfstring(L, "by: expected a group for each of the %d windows", (int)m));
    pl_l_readvals(L, by, m, &g, NULL, &mg);
    int64_t top = 0;
    for (size_t j = 0; j < m; j++) {
      if (!mg[j] && g[j] < 1)
        return luaL_argerror(
            L, 6, lua_pushfstring(L, "by: group %I at window %d is not >= 1", (lua_Integer)g[j], (int)j + 1));
      g[j] = mg[j] ? -1 : g[j] - 1;
      if (g[j] + 1 > top) top = g[j] + 1;
    }
    if (ng < 0) ng = top;
    if (ng > (lua_Integer)(SIZE_MAX / 4 / sizeof(double))) return luaL_argerror(L, 6, "groups: too many");
    size_t k = (size_t)ng ? (size_t)ng : 1;
    double *ga = lua_newuserdatauv(L, 2 * k * sizeof *ga, 0), *gp = ga + k;
    int64_t *gc = lua_newuserdatauv(L, 2 * k * sizeof *gc, 0), *gn = gc + k;
    pl_iv_series_groups(ts, te, v, n, a, b, g, m, (size_t)ng, ga, gc, gp, gn);
    pl_table *t = pl_table_new("series_windows");
    int ca = pl_table_add_col(t, "area", PL_NUM), cc = pl_table_add_col(t, "cov", PL_INT);
    int cp = pl_table_add_col(t, "point_sum", PL_NUM), cn = pl_table_add_col(t, "points", PL_INT);
    pl_l_pushtable(L, t); /* owns t from here */
    pl_table_reserve(t, (size_t)ng);
    for (size_t j = 0; j < (size_t)ng; j++) {
      pl_cell x[4];
      x[ca].d = ga[j];
      x[cc].i = gc[j];
      x[cp].d = gp[j];
      x[cn].i = gn[j];
      pl_table_append(t, x);
    }
    return 1;
  }
  pl_iv_series_windows(ts, te, v, n, a, b, m, area, cov, at);
  lua_createtable(L, (int)m, 0);
  lua_createtable(L, (int)m, 0);
  lua_createtable(L, (int)m, 0);
  for (size_t j = 0; j < m; j++) {
    lua_pushnumber(L, area[j]);
    lua_rawseti(L, -4, (lua_Integer)j + 1);
    lua_pushinteger(L, (lua_Integer)cov[j]);
    lua_rawseti(L, -3, (lua_Integer)j + 1);
    if (at[j] >= 0) {
      lua_pushinteger(L, (lua_Integer)at[j] + 1);
      lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
  }
  return 3;
}

/* I.first_window(wstarts, wends, starts, ends) -> integer column, one row
** per query [starts[k], ends[k]]: the 1-based window of the windows
** [wstarts[w], wends[w]] (in that order) that the plugin's merge of the
** queries in start order ties it to, missing where none does (or a query
** value is missing).  See pl_iv_first_window.
** [ws we qs qe] -> [ws we qs qe ... I] */
static int l_first_window(lua_State *L) {
  lua_settop(L, 4);
  size_t nw, nwe;
  int64_t *ws = pl_l_checktimes(L, 1, (size_t)-1, &nw);
  int64_t *we = pl_l_checktimes(L, 2, (size_t)-1, &nwe);
  if (nw != nwe) return luaL_argerror(L, 2, lua_pushfstring(L, "%d window ends for %d starts", (int)nwe, (int)nw));
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 3, PL_COLUMN_T);
  size_t m = c ? c->t->nrows : (lua_istable(L, 3) ? (size_t)luaL_len(L, 3) : 0);
  pl_lcolumn *ce = (pl_lcolumn *)luaL_testudata(L, 4, PL_COLUMN_T);
  size_t me = ce ? ce->t->nrows : (lua_istable(L, 4) ? (size_t)luaL_len(L, 4) : 0);
  if (m != me) return luaL_argerror(L, 4, lua_pushfstring(L, "%d query ends for %d starts", (int)me, (int)m));
  int64_t *qs, *qe;
  unsigned char *ms, *mend;
  pl_l_readvals(L, 3, m, &qs, NULL, &ms);
  pl_l_readvals(L, 4, m, &qe, NULL, &mend);
  for (size_t k = 0; k < m; k++) ms[k] = ms[k] || mend[k];
  size_t *ord = lua_newuserdatauv(L, (m ? m : 1) * sizeof *ord, 0);
  int64_t *out = lua_newuserdatauv(L, (m ? m : 1) * sizeof *out, 0);
  pl_iv_first_window(ws, we, nw, qs, qe, ms, m, ord, out);
  pl_l_pushindex(L, "first_window", out, m);
  return 1;
}

/* I.step_levels(times, deltas [, {windows = W}]): the level of a counter
** that changes by deltas[i] at times[i] (a queue: +1 at each launch, -1 at
** each end), in the order (time, delta ascending, index).  Columns or
** arrays of one length; an index where either is missing is left out.
** Returns nil without events, else {max, at, area, mean, lo, hi,
** window_start = {...}, window_max = {...}} (steplevels.h).
** [times deltas [opts]] -> [times deltas opts ... r] */
static int l_step_levels(lua_State *L) {
  lua_settop(L, 3);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 1, PL_COLUMN_T);
  size_t n = c ? c->t->nrows : (lua_istable(L, 1) ? (size_t)luaL_len(L, 1) : 0);
  lua_Integer windows = 1;
  if (!lua_isnil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_getfield(L, 3, "windows");
    if (!lua_isnil(L, -1)) windows = luaL_checkinteger(L, -1);
    lua_pop(L, 1);
  }
  luaL_argcheck(L, windows >= 1 && windows <= 100000000, 3, "windows must be an integer from 1 to 1e8");
  pl_lcolumn *dc = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  size_t nd = dc ? dc->t->nrows : (lua_istable(L, 2) ? (size_t)luaL_len(L, 2) : 0);
  if (nd != n) return luaL_error(L, "step_levels: %d times and %d deltas", (int)n, (int)nd);
  int64_t *t, *d;
  unsigned char *tm, *dm;
  pl_l_readvals(L, 1, n, &t, NULL, &tm);
  pl_l_readvals(L, 2, n, &d, NULL, &dm);
  pl_step_ev *ev = lua_newuserdatauv(L, (n ? n : 1) * sizeof *ev, 0);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (tm[i] || dm[i]) continue;
    ev[m].t = t[i];
    ev[m].d = d[i];
    ev[m].i = i;
    m++;
  }
  if (m == 0) {
    lua_pushnil(L);
    return 1;
  }
  size_t w = (size_t)windows;
  int64_t *ws = lua_newuserdatauv(L, 2 * w * sizeof *ws, 0), *wm = ws + w;
  pl_levels r;
  pl_step_levels(ev, m, w, &r, ws, wm);
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, (lua_Integer)r.max);
  lua_setfield(L, -2, "max");
  lua_pushinteger(L, (lua_Integer)r.at);
  lua_setfield(L, -2, "at");
  lua_pushinteger(L, (lua_Integer)r.area);
  lua_setfield(L, -2, "area");
  lua_pushinteger(L, (lua_Integer)r.lo);
  lua_setfield(L, -2, "lo");
  lua_pushinteger(L, (lua_Integer)r.hi);
  lua_setfield(L, -2, "hi");
  /* as Lua writes hi > lo and area / (hi - lo) or 0 */
  if (r.hi > r.lo) lua_pushnumber(L, (lua_Number)r.area / (lua_Number)(r.hi - r.lo));
  else lua_pushinteger(L, 0);
  lua_setfield(L, -2, "mean");
  for (int k = 0; k < 2; k++) {
    const int64_t *v = k ? wm : ws;
    lua_createtable(L, (int)w, 0);
    for (size_t i = 0; i < w; i++) {
      lua_pushinteger(L, (lua_Integer)v[i]);
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, k ? "window_max" : "window_start");
  }
  return 1;
}

static const luaL_Reg timeline_funcs[] = {
  { "innermost", l_innermost },     { "enclosed", l_enclosed },           { "sum_within", l_sum_within },
  { "parents", l_parents },         { "step_integral", l_step_integral }, { "series_windows", l_series_windows },
  { "step_levels", l_step_levels }, { "first_window", l_first_window },   { NULL, NULL }
};

/* [... module] -> [... module] */
void pl_l_timeline_open(lua_State *L) { luaL_setfuncs(L, timeline_funcs, 0); }

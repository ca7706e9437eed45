/*
** l_table_ops.c -- the Table methods of module 'perflab.table' that make a
** new table (or a Lua array) from the rows of t: filter, order, take,
** where, pivot, sort_by, top, head, slice, select, join, unique.  The
** table object itself (constructors, accessors, in-place changes, writers)
** is l_table.c, which registers these through pl_l_table_ops_open; the
** loops run in the core (table_ops.c, table.c).  API: docs/table-api.md.
*/
#include "lbind.h"

#include <stdlib.h>
#include <string.h>

/* Each comment gives the method's Lua signature (t is argument 1). */

/* t:filter(mask [, {col, ...}]): with the list, only those columns (in
** that order) of the rows kept -- select and filter in one copy.
** [T M [cols]] -> [T M [cols] R] */
static int tbl_filter(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  const pl_column *m = pl_l_checkmask(L, 2, t->nrows, "filter");
  pl_table *r;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    int cols[256];
    size_t n = 0;
    lua_Integer k = luaL_len(L, 3);
    if (k > 256) return luaL_error(L, "filter: at most 256 columns");
    for (lua_Integer i = 1; i <= k; i++) {
      lua_geti(L, 3, i);
      int c = pl_table_col(t, luaL_checkstring(L, -1));
      if (c < 0) return luaL_error(L, "filter: %s", pl_l_push_nocol(L, t, lua_tostring(L, -1)));
      cols[n++] = c;
      lua_pop(L, 1);
    }
    r = pl_table_filter_cols(t, m, cols, n);
  } else {
    r = pl_table_filter(t, m);
  }
  pl_l_derived_name(r, "filter", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* [T key...]: the row order of t by the sort keys at 2.. (sort_by, order);
** the caller frees it. */
static size_t *order_by_keys(lua_State *L, pl_table *t) {
  int top = lua_gettop(L);
  luaL_argcheck(L, top >= 2, 2, "expected at least one sort key");
  pl_sortkey keys[32];
  size_t nk = pl_l_read_sortkeys(L, t, 2, top, keys, 32);
  return pl_table_order(t, keys, nk);
}

/* [T key...] -> [T key... ... I]  (I an integer column) */
static int tbl_order(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  size_t *ord = order_by_keys(L, t);
  pl_table *r = pl_table_new_like("order", t);
  int oc = pl_table_add_col(r, "order", PL_INT);
  pl_column *o = r->cols[oc];
  pl_column_reserve(o, t->nrows ? t->nrows : 1);
  for (size_t i = 0; i < t->nrows; i++) o->v.i64[i] = (int64_t)ord[i] + 1;
  o->len = t->nrows;
  r->nrows = t->nrows;
  free(ord);
  pl_l_pushresult(L, r);
  return 1;
}

/* [T rows] -> [T rows ... R] */
static int tbl_take(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  size_t n;
  if (c) {
    if (c->t->cols[c->col]->type != PL_INT)
      return luaL_error(L, "take: expected an integer column of row numbers, got %s",
                        pl_type_name(c->t->cols[c->col]->type));
    n = c->t->nrows;
  } else {
    luaL_argcheck(L, lua_istable(L, 2), 2, "expected an integer column or an array of row numbers");
    n = (size_t)luaL_len(L, 2);
  }
  size_t *idx = (size_t *)lua_newuserdatauv(L, (n ? n : 1) * sizeof *idx, 0);
  for (size_t i = 0; i < n; i++) {
    int64_t v;
    if (c) v = c->t->cols[c->col]->v.i64[i];
    else {
      lua_geti(L, 2, (lua_Integer)i + 1);
      v = lua_isinteger(L, -1) ? (int64_t)lua_tointeger(L, -1) : PL_INT_NA;
      lua_pop(L, 1);
    }
    if (v == PL_INT_NA) return luaL_error(L, "take: element %d is not a row number", (int)i + 1);
    if (v < 1 || (uint64_t)v > t->nrows)
      return luaL_error(L, "take: row %d out of range (table '%s' has %d rows)", (int)v, t->name, (int)t->nrows);
    idx[i] = (size_t)v - 1;
  }
  pl_table *r = pl_table_take(t, idx, n);
  pl_l_derived_name(r, "take", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* t:where{col = value, ...}: rows where every column equals its value (a
** Lua array value: is one of them).
** [T spec] -> [T spec ... R] */
static int tbl_where_eq(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  lua_pushnil(L); /* 3: the mask so far */
  lua_pushnil(L);
  while (lua_next(L, 2)) { /* key 4, value 5 */
    if (lua_type(L, 4) != LUA_TSTRING) return luaL_error(L, "where: keys must be column names");
    int col = pl_table_col(t, lua_tostring(L, 4));
    if (col < 0) return luaL_error(L, "where: %s", pl_l_push_nocol(L, t, lua_tostring(L, 4)));
    pl_operand a = { t, col, PL_NUM, 0, 0, NULL, 0 }, b;
    pl_err e;
    pl_err_clear(&e);
    pl_table *m;
    if (lua_istable(L, 5)) m = pl_vec_isin("where", t, col, pl_l_arraytable(L, 5, "set"), 0, &e);
    else {
      pl_l_tooperand(L, 5, &b);
      m = pl_vec_binary("where", &a, &b, PL_V_EQ, &e);
    }
    if (m == NULL) return luaL_error(L, "where: column '%s': %s", lua_tostring(L, 4), e.msg);
    lua_settop(L, 5);
    pl_l_pushresult(L, m);  /* 6 */
    if (!lua_isnil(L, 3)) { /* the mask so far & this one */
      pl_operand x, y;
      pl_l_tooperand(L, 3, &x);
      pl_l_tooperand(L, 6, &y);
      pl_table *both = pl_vec_binary("where", &x, &y, PL_V_AND, &e);
      if (both == NULL) return luaL_error(L, "where: %s", e.msg);
      pl_l_pushresult(L, both); /* 7 */
    }
    lua_replace(L, 3);
    lua_settop(L, 4);
  }
  pl_table *r;
  if (lua_isnil(L, 3)) {
    r = pl_table_copy(t);
  } else r = pl_table_filter(t, pl_l_checkmask(L, 3, t->nrows, "where"));
  pl_l_derived_name(r, "where", t);
  pl_l_pushtable(L, r);
  return 1;
}

static const char *const pivot_aggs[] = { "first", "last", "sum", "mean", "min", "max", "count", NULL };

static const pl_aggop pivot_ops[] = { PL_AGG_FIRST, PL_AGG_LAST, PL_AGG_SUM,  PL_AGG_MEAN,
                                      PL_AGG_MIN,   PL_AGG_MAX,  PL_AGG_COUNT };

static int fieldcol(lua_State *L, pl_table *t, const char *field) {
  lua_getfield(L, 2, field);
  const char *name = lua_tostring(L, -1);
  if (name == NULL) return luaL_error(L, "pivot: %s must be a column name", field);
  int c = pl_table_col(t, name);
  if (c < 0) return luaL_error(L, "pivot: %s: %s", field, pl_l_push_nocol(L, t, name));
  lua_pop(L, 1);
  return c;
}

/* t:pivot{index = col | {cols}, columns = col, values = col, agg = "first"}
** [T spec] -> [T spec ... R] */
static int tbl_pivot(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  int idx[16];
  size_t ni = 0;
  lua_getfield(L, 2, "index");
  if (lua_istable(L, -1)) {
    size_t k = (size_t)luaL_len(L, -1);
    for (size_t i = 1; i <= k && ni < 16; i++) {
      lua_geti(L, -1, (lua_Integer)i);
      const char *nm = luaL_checkstring(L, -1);
      if ((idx[ni++] = pl_table_col(t, nm)) < 0) return luaL_error(L, "pivot: index: %s", pl_l_push_nocol(L, t, nm));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  } else if (lua_isstring(L, -1)) {
    lua_pop(L, 1);
    idx[ni++] = fieldcol(L, t, "index");
  } else return luaL_error(L, "pivot: index must be a column name or a list of them");
  int ck = fieldcol(L, t, "columns"), cv = fieldcol(L, t, "values");
  lua_getfield(L, 2, "agg");
  const char *an = luaL_optstring(L, -1, "first");
  int k = 0;
  while (pivot_aggs[k] && strcmp(pivot_aggs[k], an) != 0) k++;
  if (!pivot_aggs[k]) return luaL_error(L, "pivot: unknown agg '%s' (first, last, sum, mean, min, max, count)", an);
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_table_pivot(t, idx, ni, ck, cv, pivot_ops[k], &e);
  if (r == NULL) return luaL_error(L, "pivot: %s", e.msg);
  pl_l_derived_name(r, "pivot", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* [T fn] -> [T fn ... R]  |  [T spec] -> as tbl_where_eq */
static int tbl_where(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  if (lua_istable(L, 2)) return tbl_where_eq(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  const char *what = lua_pushfstring(L, "where (table '%s')", t->name);
  size_t *idx = (size_t *)lua_newuserdatauv(L, (t->nrows ? t->nrows : 1) * sizeof *idx, 0);
  size_t n = 0;
  for (size_t i = 0; i < t->nrows; i++) {
    lua_pushvalue(L, 2);
    pl_l_pushrow(L, t, i);
    lua_pushinteger(L, (lua_Integer)i + 1);
    pl_l_call_row(L, 2, t, what, i);
    if (lua_toboolean(L, -1)) idx[n++] = i;
    lua_pop(L, 1);
  }
  pl_table *r = pl_table_take(t, idx, n);
  pl_l_derived_name(r, "where", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* [T key...] -> [T key... R] */
static int tbl_sort_by(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  size_t *ord = order_by_keys(L, t);
  pl_table *r = pl_table_take(t, ord, t->nrows);
  free(ord);
  pl_l_derived_name(r, "sort_by", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* top(n, col [, {asc=true}]) -- the n largest rows by col (smallest with asc).
** [T n col [opts]] -> [T n col [opts] ... R] */
static int tbl_top(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_Integer n = luaL_checkinteger(L, 2);
  luaL_argcheck(L, n >= 0, 2, "row count must not be negative");
  const char *name = luaL_checkstring(L, 3);
  int desc = 1;
  if (name[0] == '-') name++;
  else if (name[0] == '+') {
    desc = 0;
    name++;
  }
  static const char *const top_opts[] = { "asc", NULL };
  pl_l_checkoptions(L, 4, top_opts);
  if (lua_istable(L, 4)) {
    lua_getfield(L, 4, "asc");
    if (lua_toboolean(L, -1)) desc = 0;
    lua_pop(L, 1);
  }
  int c = pl_table_col(t, name);
  if (c < 0) return luaL_argerror(L, 3, pl_l_push_nocol(L, t, name));
  size_t got;
  size_t *idx = pl_table_topk(t, c, (size_t)n, desc, &got);
  pl_table *r = pl_table_take(t, idx, got);
  free(idx);
  pl_l_derived_name(r, "top", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* [T [n]] -> [T [n] R] */
static int tbl_head(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_Integer n = luaL_optinteger(L, 2, 10);
  if (n < 0) n = 0;
  size_t k = (size_t)n < t->nrows ? (size_t)n : t->nrows;
  size_t *idx = (size_t *)lua_newuserdatauv(L, (k ? k : 1) * sizeof *idx, 0);
  for (size_t i = 0; i < k; i++) idx[i] = i;
  pl_table *r = pl_table_take(t, idx, k);
  pl_l_derived_name(r, "head", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* [T from [to]] -> [T from [to] R] */
static int tbl_slice(lua_State *L) { /* t:slice(from, to) inclusive, 1-based */
  pl_table *t = pl_l_checktable(L, 1);
  lua_Integer a = luaL_checkinteger(L, 2), b = luaL_optinteger(L, 3, (lua_Integer)t->nrows);
  if (a < 1) a = 1;
  if (b > (lua_Integer)t->nrows) b = (lua_Integer)t->nrows;
  size_t k = b >= a ? (size_t)(b - a + 1) : 0;
  size_t *idx = (size_t *)lua_newuserdatauv(L, (k ? k : 1) * sizeof *idx, 0);
  for (size_t i = 0; i < k; i++) idx[i] = (size_t)a - 1 + i;
  pl_table *r = pl_table_take(t, idx, k);
  pl_l_derived_name(r, "slice", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* [T col...] -> [T col... R]  |  [T {col...}] -> [T {col...} R] */
static int tbl_select(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  int top = lua_gettop(L);
  int cols[256];
  int n = 0;
  if (top == 2 && lua_istable(L, 2)) {
    int k = (int)luaL_len(L, 2);
    for (int i = 1; i <= k && n < 256; i++) {
      lua_geti(L, 2, i);
      int c = pl_table_col(t, luaL_checkstring(L, -1));
      if (c < 0) return luaL_error(L, "select: %s", pl_l_push_nocol(L, t, lua_tostring(L, -1)));
      cols[n++] = c;
      lua_pop(L, 1);
    }
  } else {
    for (int a = 2; a <= top && n < 256; a++) cols[n++] = pl_l_checkcol(L, t, a);
  }
  pl_table *r = pl_table_select(t, cols, (size_t)n);
  pl_l_derived_name(r, "select", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* join(other, {on = "k" | {"k1","k2"} | {left = .., right = ..}, how = "inner"|"left", suffix = "_b"})
** [T other opts] -> [T other opts ... R] */
static int tbl_join(lua_State *L) {
  pl_table *a = pl_l_checktable(L, 1), *b = pl_l_checktable(L, 2);
  static const char *const join_opts[] = { "how", "on", "suffix", NULL };
  luaL_checktype(L, 3, LUA_TTABLE);
  pl_l_checkoptions(L, 3, join_opts);
  int ak[PL_MAX_GROUP_KEYS], bk[PL_MAX_GROUP_KEYS];
  size_t n = 0;
  lua_getfield(L, 3, "on");
  if (lua_isstring(L, -1)) {
    const char *k = lua_tostring(L, -1);
    ak[0] = pl_table_col(a, k);
    bk[0] = pl_table_col(b, k);
    n = 1;
    if (ak[0] < 0) return luaL_error(L, "join: key missing in the left table: %s", pl_l_push_nocol(L, a, k));
    if (bk[0] < 0) return luaL_error(L, "join: key missing in the right table: %s", pl_l_push_nocol(L, b, k));
  } else if (lua_istable(L, -1)) {
    size_t k = (size_t)luaL_len(L, -1);
    if (k > PL_MAX_GROUP_KEYS) return luaL_error(L, "join: more than %d key columns", PL_MAX_GROUP_KEYS);
    for (size_t i = 1; i <= k; i++) {
      lua_geti(L, -1, (lua_Integer)i);
      const char *l = NULL, *r = NULL;
      if (lua_istable(L, -1)) {
        lua_geti(L, -1, 1);
        lua_geti(L, -2, 2);
        l = lua_tostring(L, -2);
        r = lua_tostring(L, -1);
        lua_pop(L, 2);
      } else l = r = lua_tostring(L, -1);
      if (!l || !r) return luaL_error(L, "join: bad key list");
      ak[n] = pl_table_col(a, l);
      bk[n] = pl_table_col(b, r);
      if (ak[n] < 0) return luaL_error(L, "join: key missing in the left table: %s", pl_l_push_nocol(L, a, l));
      if (bk[n] < 0) return luaL_error(L, "join: key missing in the right table: %s", pl_l_push_nocol(L, b, r));
      n++;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  if (n == 0) return luaL_argerror(L, 3, "expected {on = KEY or {KEYS...}}");
  lua_getfield(L, 3, "how");
  const char *how = luaL_optstring(L, -1, "inner");
  pl_joinkind kind = strcmp(how, "left") == 0 ? PL_JOIN_LEFT : PL_JOIN_INNER;
  if (strcmp(how, "left") != 0 && strcmp(how, "inner") != 0)
    return luaL_error(L, "join: how must be 'inner' or 'left'");
  lua_getfield(L, 3, "suffix");
  const char *suffix = luaL_optstring(L, -1, "_b");
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_table_join(a, b, ak, bk, n, kind, suffix, &e);
  if (r == NULL) return luaL_error(L, "join: %s", e.msg);
  pl_l_derived_name(r, "join", a);
  pl_l_pushtable(L, r);
  return 1;
}

/* t:unique(col) -> {value, ...} in first-seen order, missing left out
** [T col] -> [T col {v...}] */
static int tbl_unique(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  int c = pl_l_checkcol(L, t, 2);
  pl_table *u = pl_table_unique(t, c);
  pl_l_pushtable(L, u); /* [t col U]: owned, freed by __gc on an error */
  lua_createtable(L, (int)u->nrows, 0);
  lua_Integer k = 0; /* missing is not a value: no holes in the array */
  for (size_t i = 0; i < u->nrows; i++) {
    if (pl_cell_missing(u, 0, i)) continue;
    pl_l_pushcell(L, u, 0, i);
    lua_rawseti(L, -2, ++k);
  } /* [t col U array] */
  pl_ltable *uo = (pl_ltable *)lua_touserdata(L, -2);
  pl_table_free(uo->t); /* now, not at the next collection */
  uo->t = NULL;
  return 1;
}

static const luaL_Reg ops_methods[] = { { "filter", tbl_filter },
                                        { "order", tbl_order },
                                        { "take", tbl_take },
                                        { "where", tbl_where },
                                        { "pivot", tbl_pivot },
                                        { "sort_by", tbl_sort_by },
                                        { "top", tbl_top },
                                        { "head", tbl_head },
                                        { "slice", tbl_slice },
                                        { "select", tbl_select },
                                        { "join", tbl_join },
                                        { "unique", tbl_unique },
                                        { NULL, NULL } };

/* [... methods] -> [... methods] */
void pl_l_table_ops_open(lua_State *L) { luaL_setfuncs(L, ops_methods, 0); }

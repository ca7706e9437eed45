/*
** l_column.c -- the Column half of module 'perflab.table': every method
** of a column object ("perflab.Column"): its name, type and values, the
** reductions (sum, mean, min, max, count, quantile), the expressions
** (c + d, c:gt(0), mask & mask, c:map(tbl), ...), and perflab.table.sprintf.
** Each expression is a new one-column C table wrapped as a column object;
** the work runs in src/core (table_vec.c, table_scan.c).  The table calls
** that take columns (filter, order, take, with, where, pivot) are Table
** methods, in l_table.c.  Documented in docs/table-api.md.
*/
#include "lbind.h"
#include "quantile.h"
#include "table_scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static const char *colname(const pl_lcolumn *c) { return c->t->cols[c->col]->name; }


/* A short name for an operand: the column's name or the value's text. */
static const char *opname(lua_State *L, int idx) {
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, idx, PL_COLUMN_T);
  if (c) return lua_pushstring(L, colname(c));
  return luaL_tolstring(L, idx, NULL);
}

static int binary(lua_State *L, int a, int b, pl_vop op, const char *sym) {
  pl_operand x, y;
  pl_l_tooperand(L, a, &x);
  pl_l_tooperand(L, b, &y);
  const char *na = opname(L, a), *nb = opname(L, b);
  const char *name = lua_pushfstring(L, "%s %s %s", na, sym, nb);
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_binary(name, &x, &y, op, &e);
  if (r == NULL) return luaL_error(L, "%s: %s", sym, e.msg);
  pl_l_pushresult(L, r);
  return 1;
}

/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_add(lua_State *L) { return binary(L, 1, 2, PL_V_ADD, "+"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_sub(lua_State *L) { return binary(L, 1, 2, PL_V_SUB, "-"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_mul(lua_State *L) { return binary(L, 1, 2, PL_V_MUL, "*"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_div(lua_State *L) { return binary(L, 1, 2, PL_V_DIV, "/"); }
/* [C x] -> [C x 0 ... R]  (0 - C) */
static int col_unm(lua_State *L) {
  lua_pushinteger(L, 0);
  return binary(L, lua_gettop(L), 1, PL_V_SUB, "-");
}
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_idiv(lua_State *L) { return binary(L, 1, 2, PL_V_IDIV, "//"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_mod(lua_State *L) { return binary(L, 1, 2, PL_V_MOD, "%"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_band(lua_State *L) { return binary(L, 1, 2, PL_V_AND, "&"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_bor(lua_State *L) { return binary(L, 1, 2, PL_V_OR, "|"); }
/* [C x] -> [C x ... R] */
static int col_min_with(lua_State *L) {
  pl_l_checkcolumn(L, 1);
  luaL_checkany(L, 2);
  return binary(L, 1, 2, PL_V_MIN, "min");
}
/* [C x] -> [C x ... R]  (C's values, x's where C is missing) */
/* [C x] -> [C x ... R] */
static int col_max_with(lua_State *L) {
  pl_l_checkcolumn(L, 1);
  luaL_checkany(L, 2);
  return binary(L, 1, 2, PL_V_MAX, "max");
}

static int compare(lua_State *L, pl_vop op, const char *sym) {
  pl_l_checkcolumn(L, 1);
  luaL_checkany(L, 2);
  return binary(L, 1, 2, op, sym);
}
/* [C v] -> [C v ... M]  (M a mask) */
static int col_eq(lua_State *L) { return compare(L, PL_V_EQ, "=="); }
/* [C v] -> [C v ... M]  (M a mask) */
static int col_ne(lua_State *L) { return compare(L, PL_V_NE, "~="); }
/* [C v] -> [C v ... M]  (M a mask) */
static int col_lt(lua_State *L) { return compare(L, PL_V_LT, "<"); }
/* [C v] -> [C v ... M]  (M a mask) */
static int col_le(lua_State *L) { return compare(L, PL_V_LE, "<="); }
/* [C v] -> [C v ... M]  (M a mask) */
static int col_gt(lua_State *L) { return compare(L, PL_V_GT, ">"); }
/* [C v] -> [C v ... M]  (M a mask) */
static int col_ge(lua_State *L) { return compare(L, PL_V_GE, ">="); }

/* A one-column operation named FMT(column): [C] -> [C name R] */
typedef pl_table *(*unary_fn)(const char *name, const pl_table *t, int col, pl_err *err);
static int unary(lua_State *L, const char *fmt, unary_fn fn) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  const char *name = lua_pushfstring(L, fmt, colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = fn(name, c->t, c->col, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  pl_l_pushresult(L, r);
  return 1;
}

/* [M] -> [M name R] */
static int col_bnot(lua_State *L) { return unary(L, "~%s", pl_vec_not); }

/* [C lo hi] -> [C lo hi ... M] */
static int col_between(lua_State *L) {
  pl_l_checkcolumn(L, 1);
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  binary(L, 1, 2, PL_V_GE, ">=");
  int lo = lua_gettop(L);
  binary(L, 1, 3, PL_V_LE, "<=");
  return binary(L, lo, lua_gettop(L), PL_V_AND, "&");
}

/* [C] -> [C name R] */
static int col_abs(lua_State *L) { return unary(L, "abs(%s)", pl_vec_abs); }
static pl_table *vec_floor(const char *name, const pl_table *t, int col, pl_err *err) {
  return pl_vec_round(name, t, col, 0, err);
}
static pl_table *vec_ceil(const char *name, const pl_table *t, int col, pl_err *err) {
  return pl_vec_round(name, t, col, 1, err);
}
/* [C] -> [C name R] */
static int col_floor(lua_State *L) { return unary(L, "floor(%s)", vec_floor); }
/* [C] -> [C name R] */
static int col_ceil(lua_State *L) { return unary(L, "ceil(%s)", vec_ceil); }

/* [C lo hi] -> [C lo hi ... R] */
static int col_clip(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  double lo = lua_isnoneornil(L, 2) ? NAN : luaL_checknumber(L, 2);
  double hi = lua_isnoneornil(L, 3) ? NAN : luaL_checknumber(L, 3);
  const char *name = lua_pushfstring(L, "clip(%s)", colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_clip(name, c->t, c->col, lo, hi, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  pl_l_pushresult(L, r);
  return 1;
}


/* c:isin{v...} or c:isin(column): the set's values as a Lua array, or
** the values of a column (of any table: no Lua array in between).
** [C {v...} | S] -> [C {v...} | S ... M] */
static int col_isin(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  pl_lcolumn *sc = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  pl_table *set;
  int setcol = 0;
  if (sc) {
    set = sc->t;
    setcol = sc->col;
  } else {
    luaL_checktype(L, 2, LUA_TTABLE);
    set = pl_l_arraytable(L, 2, "set");
  }
  const char *name = lua_pushfstring(L, "%s in set", colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_l_pushresult(L, pl_vec_isin(name, c->t, c->col, set, setcol, &e));
  return 1;
}

/* c:match(pattern): string.find(value, pattern) once per distinct string.
** [C pattern] -> [C pattern ... M] */
static int col_match(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  luaL_checkstring(L, 2);
  const pl_table *t = c->t;
  if (t->cols[c->col]->type != PL_STR)
    return luaL_error(L, "match: column '%s' holds %s, not strings", colname(c), pl_type_name(t->cols[c->col]->type));
  size_t np = pl_pool_count(t->pool) + 1;
  unsigned char *memo = (unsigned char *)lua_newuserdatauv(L, np, 0);
  memset(memo, 0, np);
  pl_column_used_ids(t, c->col, memo); /* 1: used, not yet tried */
  /* string.find of the string library itself (package.loaded), not the
  ** global `string` a script may have replaced */
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE); /* [C pat memo loaded] */
  if (lua_getfield(L, -1, "string") != LUA_TTABLE || lua_getfield(L, -1, "find") != LUA_TFUNCTION)
    return luaL_error(L, "match: the string library is not loaded");
  int find = lua_gettop(L); /* [C pat memo loaded string find] */
  for (size_t id = 1; id < np; id++) {
    if (memo[id] != 1) continue;
    size_t ln;
    const char *s = pl_pool_str(t->pool, (uint32_t)id, &ln);
    lua_pushvalue(L, find);
    lua_pushlstring(L, s, ln);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    memo[id] = lua_isnil(L, -1) ? 2 : 3;
    lua_pop(L, 1);
  }
  const char *name = lua_pushfstring(L, "%s matches", colname(c));
  pl_table *r = pl_table_new_like(name, t);
  int oc = pl_table_add_col(r, name, PL_BOOL);
  pl_column *o = r->cols[oc];
  pl_column_reserve(o, t->nrows ? t->nrows : 1);
  const uint32_t *ids = t->cols[c->col]->v.str;
  for (size_t i = 0; i < t->nrows; i++) o->v.b[i] = ids[i] ? memo[ids[i]] == 3 : 0;
  o->len = t->nrows;
  r->nrows = t->nrows;
  pl_l_pushresult(L, r);
  return 1;
}

/* c:map(tbl | fn): one lookup or call per distinct value, broadcast.
** [C tbl|fn] -> [C tbl|fn ... R] */
static int col_map(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  int isfn = lua_isfunction(L, 2);
  if (!isfn) luaL_checktype(L, 2, LUA_TTABLE);
  const pl_table *t = c->t;
  pl_type ct = t->cols[c->col]->type;
  if (ct != PL_STR && ct != PL_INT && ct != PL_BOOL)
    return luaL_error(L, "map: column '%s' holds numbers; map takes string, integer or boolean columns", colname(c));
  size_t *gid = (size_t *)lua_newuserdatauv(L, (t->nrows ? t->nrows : 1) * sizeof *gid, 0);
  /* fb (collected) is made before the group ids: between pl_table_group_ids
  ** and free(first) nothing may raise, or first would leak */
  size_t *fb = (size_t *)lua_newuserdatauv(L, (t->nrows ? t->nrows : 1) * sizeof *fb, 0);
  size_t ng;
  if (ct == PL_BOOL) { /* three values at most: no hashing */
    size_t slot[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
    const uint8_t *bv = t->cols[c->col]->v.b;
    ng = 0;
    for (size_t i = 0; i < t->nrows; i++) {
      int k = bv[i] == PL_BOOL_NA ? 2 : bv[i] != 0;
      if (slot[k] == SIZE_MAX) {
        slot[k] = ng;
        fb[ng++] = i;
      }
      gid[i] = slot[k];
    }
  } else {
    size_t *first = NULL;
    ng = pl_table_group_ids(t, &c->col, 1, gid, &first);
    memcpy(fb, first, ng * sizeof *fb);
    free(first);
  }
  lua_createtable(L, (int)ng, 0);
  int vals = lua_gettop(L);
  pl_type ty = PL_NUM;
  int seen = 0;
  for (size_t g = 0; g < ng; g++) {
    if (pl_cell_missing(t, c->col, fb[g])) continue;
    lua_pushvalue(L, 2);
    pl_l_pushcell(L, t, c->col, fb[g]);
    if (isfn) lua_call(L, 1, 1);
    else {
      lua_gettable(L, -2);
      lua_remove(L, -2);
    }
    ty = pl_l_infer_type(L, -1, ty, &seen);
    lua_rawseti(L, vals, (lua_Integer)g + 1);
  }
  const char *name = lua_pushfstring(L, "map(%s)", colname(c));
  pl_table *gt = pl_table_new_like(name, t);
  pl_l_pushtable(L, gt);
  pl_table_add_col(gt, name, ty);
  for (size_t g = 0; g < ng; g++) {
    lua_rawgeti(L, vals, (lua_Integer)g + 1);
    pl_l_putvalue(L, gt, 0, -1);
    lua_pop(L, 1);
    pl_row_end(gt);
  }
  pl_l_pushresult(L, pl_table_take(gt, gid, t->nrows));
  return 1;
}

/* c:keep(mask): the values where mask is true, missing elsewhere.
** [C M] -> [C M R] */
static int col_keep(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  const pl_column *m = pl_l_checkmask(L, 2, c->t->nrows, "keep");
  pl_l_pushresult(L, pl_vec_keep(colname(c), c->t, c->col, m));
  return 1;
}

/* c:present(): true where the value is not missing.
** [C] -> [C ... M] */
static int col_present(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  const char *name = lua_pushfstring(L, "present(%s)", colname(c));
  pl_table *r = pl_table_new_like(name, c->t);
  int oc = pl_table_add_col(r, name, PL_BOOL);
  pl_column *o = r->cols[oc];
  pl_column_reserve(o, c->t->nrows ? c->t->nrows : 1);
  for (size_t i = 0; i < c->t->nrows; i++) o->v.b[i] = !pl_cell_missing(c->t, c->col, i);
  o->len = c->t->nrows;
  r->nrows = c->t->nrows;
  pl_l_pushresult(L, r);
  return 1;
}

/* c:nth(k): the k-th smallest (1-based) of the values that are not
** missing, by O(n) selection; nil when there are fewer than k.  Integer
** columns give exact integers.  (launch-latency's figure marks the median
** and p99 launch delay as order statistics.)
** [C k] -> [C k ... buf v] */
static int col_nth(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  lua_Integer k = luaL_checkinteger(L, 2);
  luaL_argcheck(L, k >= 1, 2, "k must be 1 or more");
  pl_type ty = c->t->cols[c->col]->type;
  if (ty != PL_INT && ty != PL_NUM)
    return luaL_error(L, "nth: column '%s' holds %s, not numbers", colname(c), pl_type_name(ty));
  size_t n = c->t->nrows, m = 0;
  if (ty == PL_INT) {
    int64_t *x = lua_newuserdatauv(L, (n ? n : 1) * sizeof *x, 0);
    for (size_t i = 0; i < n; i++)
      if (!pl_cell_missing(c->t, c->col, i)) x[m++] = pl_cell_int(c->t, c->col, i);
    if ((size_t)k > m) lua_pushnil(L);
    else lua_pushinteger(L, (lua_Integer)pl_select_kth_i64(x, m, (size_t)k - 1));
  } else {
    double *x = lua_newuserdatauv(L, (n ? n : 1) * sizeof *x, 0);
    for (size_t i = 0; i < n; i++)
      if (!pl_cell_missing(c->t, c->col, i)) x[m++] = pl_cell_num(c->t, c->col, i);
    if ((size_t)k > m) lua_pushnil(L);
    else lua_pushnumber(L, pl_select_kth(x, m, (size_t)k - 1));
  }
  return 1;
}

/* c:fill(x): the missing values of c replaced by x (a column or a value).
** [C x] -> [C x ... R] */
static int col_fill(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  luaL_checkany(L, 2);
  pl_operand x;
  pl_l_tooperand(L, 2, &x);
  const char *name = lua_pushfstring(L, "fill(%s)", colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_fill(name, c->t, c->col, &x, &e);
  if (r == NULL) return luaL_error(L, "fill: %s", e.msg);
  pl_l_pushresult(L, r);
  return 1;
}


/* T.sprintf(fmt, v1, ...): one string per row, printf-formatted from
** columns (and values); missing where a column value is missing.
** [fmt v...] -> [fmt v... ... R] */
static int mod_sprintf(lua_State *L) {
  const char *fmt = luaL_checkstring(L, 1);
  int n = lua_gettop(L) - 1;
  luaL_argcheck(L, n <= 64, 66, "at most 64 values");
  pl_operand *ops = (pl_operand *)lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *ops, 0);
  for (int k = 0; k < n; k++) {
    if (lua_isnil(L, k + 2)) return luaL_error(L, "sprintf: value %d is nil", k + 1);
    pl_l_tooperand(L, k + 2, &ops[k]);
  }
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_sprintf("sprintf", fmt, ops, (size_t)n, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  pl_l_pushresult(L, r);
  return 1;
}


/* c:cummax(): the running maximum (missing until the first value).
** [C] -> [C name R] */
static int col_cummax(lua_State *L) { return unary(L, "cummax(%s)", pl_vec_cummax); }

/* c:cumsum(): the running sum.
** [C] -> [C name R] */
static int col_cumsum(lua_State *L) { return unary(L, "cumsum(%s)", pl_vec_cumsum); }

/* c:at(rows): the values of c at those rows (an integer column of 1-based
** row numbers of c's table), missing where a row number is missing.
** [C I] -> [C I name R] */
static int col_at(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  pl_lcolumn *ix = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  if (ix == NULL) return luaL_error(L, "at: expected an integer column of row numbers, got %s", luaL_typename(L, 2));
  const char *name = lua_pushfstring(L, "at(%s)", colname(c));
  pl_err e;
  pl_err_clear(&e);
  size_t bad = 0;
  pl_table *r = pl_vec_at(name, c->t, c->col, ix->t, ix->col, &bad, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  pl_l_pushresult(L, r);
  return 1;
}

/* c:index_of(values): for each value of the column `values`, the 1-based
** row of c's first equal value, missing where there is none.
** [C V] -> [C V name R] */
static int col_index_of(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  pl_lcolumn *v = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  if (v == NULL) return luaL_error(L, "index_of: expected a column of values, got %s", luaL_typename(L, 2));
  const char *name = lua_pushfstring(L, "index_of(%s)", colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_index_of(name, c->t, c->col, v->t, v->col, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  pl_l_pushresult(L, r);
  return 1;
}

/* c:searchsorted(values [, "left" | "right"]): per value, the number of
** values of c (sorted ascending) below it ("left", the default) or at most
** it ("right"), as an integer column; missing where the value is.
** [C V side] -> [C V side name R] */
static int col_searchsorted(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  pl_lcolumn *v = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  if (v == NULL) return luaL_error(L, "searchsorted: expected a column of values, got %s", luaL_typename(L, 2));
  static const char *const sides[] = { "left", "right", NULL };
  int right = luaL_checkoption(L, 3, "left", sides);
  lua_settop(L, 3);
  const char *name = lua_pushfstring(L, "searchsorted(%s)", colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_searchsorted(name, c->t, c->col, v->t, v->col, right, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  pl_l_pushresult(L, r);
  return 1;
}

/* ---- name, type, values and reductions --------------------------------- */

/* [C x] -> [C x n]  (__len) */
static int col_len(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  lua_pushinteger(L, (lua_Integer)c->t->nrows);
  return 1;
}

/* [C i] -> [C i v]  |  [C i] (out of range)  |  [C name] -> [C name methods method] */
static int col_index(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  if (lua_isinteger(L, 2)) {
    lua_Integer i = lua_tointeger(L, 2);
    if (i < 1 || (size_t)i > c->t->nrows) return 0;
    pl_l_pushcell(L, c->t, c->col, (size_t)i - 1);
    return 1;
  }
  luaL_getmetafield(L, 1, "__methods");
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

/* [C] -> [C name] */
static int col_name(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  lua_pushstring(L, c->t->cols[c->col]->name);
  return 1;
}
/* [C] -> [C type] */
static int col_type(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  lua_pushstring(L, pl_type_name(c->t->cols[c->col]->type));
  return 1;
}

/* Numeric reductions skip missing values (and, with {where = mask}, the
** rows where the mask is not true); the work is pl_col_reduce.
** [C [opts]] -> [C [opts] [mask] x | nil] */
enum col_red { RED_SUM, RED_MEAN, RED_MIN, RED_MAX, RED_COUNT };
static int col_reduce(lua_State *L, enum col_red what) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  const pl_column *col = c->t->cols[c->col];
  if (col->type == PL_STR && what != RED_COUNT)
    return luaL_error(L, "column '%s' holds strings, not numbers", col->name);
  const pl_column *wh = NULL; /* c:sum{where = mask} */
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "where");
    if (!lua_isnil(L, -1)) wh = pl_l_checkmask(L, -1, c->t->nrows, col->name);
  }
  pl_col_summary r;
  pl_col_reduce(c->t, c->col, wh, &r);
  int ints = col->type == PL_INT;
  switch (what) {
    case RED_SUM:
      if (ints && !r.isum_over) lua_pushinteger(L, (lua_Integer)r.isum);
      else lua_pushnumber(L, r.sum); /* beyond int64: the double sum */
      break;
    case RED_MEAN:
      if (r.n == 0) lua_pushnil(L);
      else lua_pushnumber(L, r.sum / (double)r.n);
      break;
    case RED_MIN:
    case RED_MAX:
      /* integers exactly, in int64: through a double, 2^60 + 3 came back 2^60 */
      if (r.n == 0) lua_pushnil(L);
      else if (ints) lua_pushinteger(L, (lua_Integer)(what == RED_MIN ? r.imin : r.imax));
      else lua_pushnumber(L, what == RED_MIN ? r.min : r.max);
      break;
    case RED_COUNT: lua_pushinteger(L, (lua_Integer)r.n); break;
  }
  return 1;
}
/* [C [opts]] -> [C [opts] [mask] x | nil] (each of the five; count: n) */
static int col_sum(lua_State *L) { return col_reduce(L, RED_SUM); }
/* [C [opts]] -> [C [opts] [mask] x | nil] */
static int col_mean(lua_State *L) { return col_reduce(L, RED_MEAN); }
/* [C [opts]] -> [C [opts] [mask] x | nil] */
static int col_min(lua_State *L) { return col_reduce(L, RED_MIN); }
/* [C [opts]] -> [C [opts] [mask] x | nil] */
static int col_max(lua_State *L) { return col_reduce(L, RED_MAX); }
/* [C [opts]] -> [C [opts] [mask] n] */
static int col_count(lua_State *L) { return col_reduce(L, RED_COUNT); }

/* [M] -> [M n]: how many values of a boolean column (a mask) are true
** (count() counts the values that are not missing, false ones included) */
static int col_count_true(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  const pl_column *col = c->t->cols[c->col];
  if (col->type != PL_BOOL)
    return luaL_error(L, "count_true: column '%s' is not boolean (a mask); count() counts values that are not missing",
                      col->name);
  lua_pushinteger(L, (lua_Integer)pl_col_count_true(c->t, c->col));
  return 1;
}

/* [C q | {q...}] -> [C q ... x | {x...}] */
static int col_quantile(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  if (c->t->cols[c->col]->type == PL_STR)
    return luaL_error(L, "column '%s' holds strings, not numbers", c->t->cols[c->col]->name);
  size_t n = 0;
  double *x = (double *)lua_newuserdatauv(L, (c->t->nrows ? c->t->nrows : 1) * sizeof *x, 0);
  for (size_t i = 0; i < c->t->nrows; i++) {
    double v = pl_cell_num(c->t, c->col, i);
    if (!isnan(v)) x[n++] = v;
  }
  if (lua_istable(L, 2)) {
    size_t k = (size_t)luaL_len(L, 2);
    if (n) pl_sort_doubles(x, n);
    lua_createtable(L, (int)k, 0);
    for (size_t i = 1; i <= k; i++) {
      lua_geti(L, 2, (lua_Integer)i);
      double q = luaL_checknumber(L, -1);
      lua_pop(L, 1);
      luaL_argcheck(L, q >= 0 && q <= 1, 2, "quantile must be in [0, 1]");
      if (n) lua_pushnumber(L, pl_quantile_sorted(x, n, q));
      else lua_pushnil(L);
      lua_rawseti(L, -2, (lua_Integer)i);
    }
    return 1;
  }
  double q = luaL_checknumber(L, 2);
  luaL_argcheck(L, q >= 0 && q <= 1, 2, "quantile must be in [0, 1]");
  if (n == 0) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushnumber(L, pl_quantile_select(x, n, q));
  return 1;
}

/* [C] -> [C {v...}] */
static int col_to_lua(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  lua_createtable(L, (int)c->t->nrows, 0);
  for (size_t i = 0; i < c->t->nrows; i++) {
    pl_l_pushcell(L, c->t, c->col, i);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* [C] -> [C text] */
static int col_tostring(lua_State *L) {
  pl_lcolumn *c = pl_l_checkcolumn(L, 1);
  lua_pushfstring(L, "column '%s' (%s, %d values)", c->t->cols[c->col]->name, pl_type_name(c->t->cols[c->col]->type),
                  (int)c->t->nrows);
  return 1;
}

/* ---- registration ------------------------------------------------------ */

static const luaL_Reg col_methods[] = {
  { "name", col_name },         { "type", col_type },     { "sum", col_sum },     { "mean", col_mean },
  { "min", col_min },           { "max", col_max },       { "count", col_count }, { "count_true", col_count_true },
  { "quantile", col_quantile }, { "to_lua", col_to_lua }, { NULL, NULL }
};

static const luaL_Reg col_fns[] = { { "abs", col_abs },
                                    { "clip", col_clip },
                                    { "min_with", col_min_with },
                                    { "max_with", col_max_with },
                                    { "fill", col_fill },
                                    { "floor", col_floor },
                                    { "ceil", col_ceil },
                                    { "eq", col_eq },
                                    { "ne", col_ne },
                                    { "lt", col_lt },
                                    { "le", col_le },
                                    { "gt", col_gt },
                                    { "ge", col_ge },
                                    { "between", col_between },
                                    { "isin", col_isin },
                                    { "match", col_match },
                                    { "map", col_map },
                                    { "keep", col_keep },
                                    { "present", col_present },
                                    { "nth", col_nth },
                                    { "cummax", col_cummax },
                                    { "cumsum", col_cumsum },
                                    { "at", col_at },
                                    { "index_of", col_index_of },
                                    { "searchsorted", col_searchsorted },
                                    { NULL, NULL } };

static const luaL_Reg col_metas[] = { { "__add", col_add },   { "__sub", col_sub },   { "__mul", col_mul },
                                      { "__div", col_div },   { "__unm", col_unm },   { "__idiv", col_idiv },
                                      { "__mod", col_mod },   { "__band", col_band }, { "__bor", col_bor },
                                      { "__bnot", col_bnot }, { NULL, NULL } };

void pl_l_column_open(lua_State *L, int module) {
  module = lua_absindex(L, module);
  if (luaL_newmetatable(L, PL_COLUMN_T)) { /* [... meta] */
    luaL_setfuncs(L, col_metas, 0);
    lua_pushcfunction(L, col_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, col_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, col_index);
    lua_setfield(L, -2, "__index");
    luaL_newlib(L, col_methods); /* [... meta methods] */
    luaL_setfuncs(L, col_fns, 0);
    lua_setfield(L, -2, "__methods");
  }
  lua_pop(L, 1); /* [...] */
  lua_pushcfunction(L, mod_sprintf);
  lua_setfield(L, module, "sprintf");
}

/*
** l_column.c -- the vector half of module 'perflab.table': column
** expressions (c + d, c:gt(0), mask & mask, c:map(tbl)), and the table
** calls that take them (filter, order, take, with, where{...}, pivot).
** Each expression is a new one-column C table wrapped as a column object;
** the work runs in src/core/table_vec.c.  Documented in docs/table.md.
*/
#include "lbind.h"
#include "quantile.h"
#include "table_scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pushes a column object over column 0 of r (a new table, owned from here). */
static void push_result(lua_State *L, pl_table *r) {
  pl_l_pushtable(L, r);
  pl_lcolumn *u = (pl_lcolumn *)lua_newuserdatauv(L, sizeof *u, 1);
  u->t = r; u->col = 0;
  luaL_setmetatable(L, PL_COLUMN_T);
  lua_pushvalue(L, -2);
  lua_setiuservalue(L, -2, 1);
  lua_remove(L, -2);
}

static pl_lcolumn *checkcolumn(lua_State *L, int arg) { return (pl_lcolumn *)luaL_checkudata(L, arg, PL_COLUMN_T); }

static const char *colname(const pl_lcolumn *c) { return c->t->cols[c->col]->name; }

/* The value at idx as an operand: a column, number, string or boolean. */
static void to_operand(lua_State *L, int idx, pl_operand *op) {
  memset(op, 0, sizeof *op);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, idx, PL_COLUMN_T);
  if (c) { op->t = c->t; op->col = c->col; return; }
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) { op->type = PL_INT; op->i = (int64_t)lua_tointeger(L, idx); }
      else { op->type = PL_NUM; op->d = lua_tonumber(L, idx); }
      return;
    case LUA_TSTRING: op->type = PL_STR; op->s = lua_tolstring(L, idx, &op->slen); return;
    case LUA_TBOOLEAN: op->type = PL_BOOL; op->i = lua_toboolean(L, idx); return;
    case LUA_TNIL: op->type = PL_NUM; op->d = NAN; return;
    default: luaL_typeerror(L, idx, "column, number, string or boolean");
  }
}

/* A short name for an operand: the column's name or the value's text. */
static const char *opname(lua_State *L, int idx) {
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, idx, PL_COLUMN_T);
  if (c) return lua_pushstring(L, colname(c));
  return luaL_tolstring(L, idx, NULL);
}

static int binary(lua_State *L, int a, int b, pl_vop op, const char *sym) {
  pl_operand x, y;
  to_operand(L, a, &x);
  to_operand(L, b, &y);
  const char *na = opname(L, a), *nb = opname(L, b);
  const char *name = lua_pushfstring(L, "%s %s %s", na, sym, nb);
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_binary(name, &x, &y, op, &e);
  if (r == NULL) return luaL_error(L, "%s: %s", sym, e.msg);
  push_result(L, r);
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
static int col_unm(lua_State *L) { lua_pushinteger(L, 0); return binary(L, lua_gettop(L), 1, PL_V_SUB, "-"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_idiv(lua_State *L) { return binary(L, 1, 2, PL_V_IDIV, "//"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_mod(lua_State *L) { return binary(L, 1, 2, PL_V_MOD, "%"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_band(lua_State *L) { return binary(L, 1, 2, PL_V_AND, "&"); }
/* [a b] -> [a b ... C]  (a or b a column; the other a column or number) */
static int col_bor(lua_State *L) { return binary(L, 1, 2, PL_V_OR, "|"); }
/* [C x] -> [C x ... R] */
static int col_min_with(lua_State *L) { checkcolumn(L, 1); luaL_checkany(L, 2); return binary(L, 1, 2, PL_V_MIN, "min"); }
/* [C x] -> [C x ... R]  (C's values, x's where C is missing) */
/* [C x] -> [C x ... R] */
static int col_max_with(lua_State *L) { checkcolumn(L, 1); luaL_checkany(L, 2); return binary(L, 1, 2, PL_V_MAX, "max"); }

static int compare(lua_State *L, pl_vop op, const char *sym) {
  checkcolumn(L, 1);
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
  pl_lcolumn *c = checkcolumn(L, 1);
  const char *name = lua_pushfstring(L, fmt, colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = fn(name, c->t, c->col, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  push_result(L, r);
  return 1;
}

/* [M] -> [M name R] */
static int col_bnot(lua_State *L) { return unary(L, "~%s", pl_vec_not); }

/* [C lo hi] -> [C lo hi ... M] */
static int col_between(lua_State *L) {
  checkcolumn(L, 1);
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
static pl_table *vec_floor(const char *name, const pl_table *t, int col, pl_err *err) { return pl_vec_round(name, t, col, 0, err); }
static pl_table *vec_ceil(const char *name, const pl_table *t, int col, pl_err *err) { return pl_vec_round(name, t, col, 1, err); }
/* [C] -> [C name R] */
static int col_floor(lua_State *L) { return unary(L, "floor(%s)", vec_floor); }
/* [C] -> [C name R] */
static int col_ceil(lua_State *L) { return unary(L, "ceil(%s)", vec_ceil); }

/* [C lo hi] -> [C lo hi ... R] */
static int col_clip(lua_State *L) {
  pl_lcolumn *c = checkcolumn(L, 1);
  double lo = lua_isnoneornil(L, 2) ? NAN : luaL_checknumber(L, 2);
  double hi = lua_isnoneornil(L, 3) ? NAN : luaL_checknumber(L, 3);
  const char *name = lua_pushfstring(L, "clip(%s)", colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_clip(name, c->t, c->col, lo, hi, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  push_result(L, r);
  return 1;
}

/* A one-column table of the values of the Lua array at idx. */
static pl_table *array_table(lua_State *L, int idx, const char *name) {
  size_t n = (size_t)luaL_len(L, idx);
  pl_type ty = PL_NUM;
  int seen = 0;
  for (size_t i = 1; i <= n; i++) { lua_geti(L, idx, (lua_Integer)i); ty = pl_l_infer_type(L, -1, ty, &seen); lua_pop(L, 1); }
  pl_table *t = pl_table_new(name);
  pl_l_pushtable(L, t);                     /* freed by the collector */
  pl_table_add_col(t, name, ty);
  for (size_t i = 1; i <= n; i++) { lua_geti(L, idx, (lua_Integer)i); pl_l_putvalue(L, t, 0, -1); lua_pop(L, 1); pl_row_end(t); }
  return t;
}

/* c:isin{v...} or c:isin(column): the set's values as a Lua array, or
** the values of a column (of any table: no Lua array in between).
** [C {v...} | S] -> [C {v...} | S ... M] */
static int col_isin(lua_State *L) {
  pl_lcolumn *c = checkcolumn(L, 1);
  pl_lcolumn *sc = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  pl_table *set;
  int setcol = 0;
  if (sc) { set = sc->t; setcol = sc->col; }
  else { luaL_checktype(L, 2, LUA_TTABLE); set = array_table(L, 2, "set"); }
  const char *name = lua_pushfstring(L, "%s in set", colname(c));
  pl_err e;
  pl_err_clear(&e);
  push_result(L, pl_vec_isin(name, c->t, c->col, set, setcol, &e));
  return 1;
}

/* c:match(pattern): string.find(value, pattern) once per distinct string.
** [C pattern] -> [C pattern ... M] */
static int col_match(lua_State *L) {
  pl_lcolumn *c = checkcolumn(L, 1);
  luaL_checkstring(L, 2);
  const pl_table *t = c->t;
  if (t->cols[c->col]->type != PL_STR) return luaL_error(L, "match: column '%s' holds %s, not strings", colname(c), pl_type_name(t->cols[c->col]->type));
  size_t np = pl_pool_count(t->pool) + 1;
  unsigned char *memo = (unsigned char *)lua_newuserdatauv(L, np, 0);
  memset(memo, 0, np);
  pl_column_used_ids(t, c->col, memo);       /* 1: used, not yet tried */
  /* string.find of the string library itself (package.loaded), not the
  ** global `string` a script may have replaced */
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);        /* [C pat memo loaded] */
  if (lua_getfield(L, -1, "string") != LUA_TTABLE || lua_getfield(L, -1, "find") != LUA_TFUNCTION)
    return luaL_error(L, "match: the string library is not loaded");
  int find = lua_gettop(L);                                    /* [C pat memo loaded string find] */
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
  o->len = t->nrows; r->nrows = t->nrows;
  push_result(L, r);
  return 1;
}

/* c:map(tbl | fn): one lookup or call per distinct value, broadcast.
** [C tbl|fn] -> [C tbl|fn ... R] */
static int col_map(lua_State *L) {
  pl_lcolumn *c = checkcolumn(L, 1);
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
  if (ct == PL_BOOL) {                       /* three values at most: no hashing */
    size_t slot[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
    const uint8_t *bv = t->cols[c->col]->v.b;
    ng = 0;
    for (size_t i = 0; i < t->nrows; i++) {
      int k = bv[i] == PL_BOOL_NA ? 2 : bv[i] != 0;
      if (slot[k] == SIZE_MAX) { slot[k] = ng; fb[ng++] = i; }
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
    else { lua_gettable(L, -2); lua_remove(L, -2); }
    ty = pl_l_infer_type(L, -1, ty, &seen);
    lua_rawseti(L, vals, (lua_Integer)g + 1);
  }
  const char *name = lua_pushfstring(L, "map(%s)", colname(c));
  pl_table *gt = pl_table_new_like(name, t);
  pl_l_pushtable(L, gt);
  pl_table_add_col(gt, name, ty);
  for (size_t g = 0; g < ng; g++) { lua_rawgeti(L, vals, (lua_Integer)g + 1); pl_l_putvalue(L, gt, 0, -1); lua_pop(L, 1); pl_row_end(gt); }
  push_result(L, pl_table_take(gt, gid, t->nrows));
  return 1;
}

/* ---- table calls that take columns ------------------------------------- */

/* The boolean column at arg, of n rows. */
static const pl_column *checkmask(lua_State *L, int arg, size_t n, const char *fn) {
  pl_lcolumn *m = (pl_lcolumn *)luaL_testudata(L, arg, PL_COLUMN_T);
  if (m == NULL) luaL_error(L, "%s: expected a boolean column (a mask), got %s", fn, luaL_typename(L, arg));
  const pl_column *c = m->t->cols[m->col];
  if (c->type != PL_BOOL) luaL_error(L, "%s: expected a boolean column (a mask), got column '%s' of %s", fn, c->name, pl_type_name(c->type));
  if (m->t->nrows != n) luaL_error(L, "%s: the mask has %d rows, the table %d", fn, (int)m->t->nrows, (int)n);
  return c;
}

const pl_column *pl_l_checkmask(lua_State *L, int arg, size_t n, const char *fn) { return checkmask(L, arg, n, fn); }

/* t:filter(mask [, {col, ...}]): with the list, only those columns (in
** that order) of the rows kept -- select and filter in one copy.
** [T M [cols]] -> [T M [cols] R] */
static int tbl_filter(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  const pl_column *m = checkmask(L, 2, t->nrows, "filter");
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

/* [T key...] -> [T key... ... I]  (I an integer column) */
static int tbl_order(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  int top = lua_gettop(L);
  luaL_argcheck(L, top >= 2, 2, "expected at least one sort key");
  pl_sortkey keys[32];
  size_t nk = pl_l_read_sortkeys(L, t, 2, top, keys, 32);
  size_t *ord = pl_table_order(t, keys, nk);
  pl_table *r = pl_table_new_like("order", t);
  int oc = pl_table_add_col(r, "order", PL_INT);
  pl_column *o = r->cols[oc];
  pl_column_reserve(o, t->nrows ? t->nrows : 1);
  for (size_t i = 0; i < t->nrows; i++) o->v.i64[i] = (int64_t)ord[i] + 1;
  o->len = t->nrows; r->nrows = t->nrows;
  free(ord);
  push_result(L, r);
  return 1;
}

/* [T rows] -> [T rows ... R] */
static int tbl_take(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  size_t n;
  if (c) {
    if (c->t->cols[c->col]->type != PL_INT) return luaL_error(L, "take: expected an integer column of row numbers, got %s", pl_type_name(c->t->cols[c->col]->type));
    n = c->t->nrows;
  } else {
    luaL_argcheck(L, lua_istable(L, 2), 2, "expected an integer column or an array of row numbers");
    n = (size_t)luaL_len(L, 2);
  }
  size_t *idx = (size_t *)lua_newuserdatauv(L, (n ? n : 1) * sizeof *idx, 0);
  for (size_t i = 0; i < n; i++) {
    int64_t v;
    if (c) v = c->t->cols[c->col]->v.i64[i];
    else { lua_geti(L, 2, (lua_Integer)i + 1); v = lua_isinteger(L, -1) ? (int64_t)lua_tointeger(L, -1) : PL_INT_NA; lua_pop(L, 1); }
    if (v == PL_INT_NA) return luaL_error(L, "take: element %d is not a row number", (int)i + 1);
    if (v < 1 || (uint64_t)v > t->nrows) return luaL_error(L, "take: row %d out of range (table '%s' has %d rows)", (int)v, t->name, (int)t->nrows);
    idx[i] = (size_t)v - 1;
  }
  pl_table *r = pl_table_take(t, idx, n);
  pl_l_derived_name(r, "take", t);
  pl_l_pushtable(L, r);
  return 1;
}

/* t:with(name, column) -- in place (a frozen table: on a copy), returns it.
** [T name C|{v...}] -> [T'] (T, or its copy when frozen) */
static int tbl_with(lua_State *L) {
  pl_l_checktable(L, 1);
  const char *name = luaL_checkstring(L, 2);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 3, PL_COLUMN_T);
  if (c == NULL) {
    luaL_argcheck(L, lua_istable(L, 3), 3, "expected a column or an array of values");
    lua_getfield(L, 1, "add_column");
    lua_pushvalue(L, 1); lua_pushvalue(L, 2); lua_pushvalue(L, 3);
    lua_call(L, 3, 1);
    return 1;
  }
  pl_table *t = pl_l_writable(L, 1);
  if (c->t->nrows != t->nrows)
    return luaL_error(L, "with '%s': the column has %d rows, table '%s' %d", name, (int)c->t->nrows, t->name, (int)t->nrows);
  if (c->t->cols[c->col]->type != PL_STR || c->t->pool == t->pool) {
    /* no copy: the two tables share the values until either changes them */
    pl_table_put_shared(t, name, c->t, c->col);
    lua_settop(L, 1);
    return 1;
  }
  pl_table *one = pl_column_copy(name, c->t, c->col);
  pl_column *col = one->cols[0];
  if (col->type == PL_STR && c->t->pool != t->pool) {   /* another pool: re-intern each text once */
    size_t np = pl_pool_count(c->t->pool) + 1;
    uint32_t *map = pl_xcalloc(np, sizeof *map);
    for (size_t i = 0; i < t->nrows; i++) {
      uint32_t id = col->v.str[i];
      if (id && !map[id]) { size_t ln; const char *s = pl_pool_str(c->t->pool, id, &ln); map[id] = pl_pool_intern(t->pool, s, ln); }
      col->v.str[i] = map[id];
    }
    free(map);
  }
  pl_table_take_col(one, 0);
  pl_table_free(one);
  pl_table_set_col(t, col);
  lua_settop(L, 1);
  return 1;
}

/* t:where{col = value, ...}: rows where every column equals its value (a
** Lua array value: is one of them).
** [T spec] -> [T spec ... R] */
int pl_l_where_eq(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  lua_pushnil(L);                            /* 3: the mask so far */
  lua_pushnil(L);
  while (lua_next(L, 2)) {                   /* key 4, value 5 */
    if (lua_type(L, 4) != LUA_TSTRING) return luaL_error(L, "where: keys must be column names");
    int col = pl_table_col(t, lua_tostring(L, 4));
    if (col < 0) return luaL_error(L, "where: %s", pl_l_push_nocol(L, t, lua_tostring(L, 4)));
    pl_operand a = { t, col, PL_NUM, 0, 0, NULL, 0 }, b;
    pl_err e;
    pl_err_clear(&e);
    pl_table *m;
    if (lua_istable(L, 5)) m = pl_vec_isin("where", t, col, array_table(L, 5, "set"), 0, &e);
    else { to_operand(L, 5, &b); m = pl_vec_binary("where", &a, &b, PL_V_EQ, &e); }
    if (m == NULL) return luaL_error(L, "where: column '%s': %s", lua_tostring(L, 4), e.msg);
    lua_settop(L, 5);
    push_result(L, m);                       /* 6 */
    if (!lua_isnil(L, 3)) { binary(L, 3, 6, PL_V_AND, "&"); lua_replace(L, 3); }
    else lua_replace(L, 3);
    lua_settop(L, 4);
  }
  pl_table *r;
  if (lua_isnil(L, 3)) { r = pl_table_copy(t); }
  else r = pl_table_filter(t, checkmask(L, 3, t->nrows, "where"));
  pl_l_derived_name(r, "where", t);
  pl_l_pushtable(L, r);
  return 1;
}

static const char *const pivot_aggs[] = { "first", "last", "sum", "mean", "min", "max", "count", NULL };
static const pl_aggop pivot_ops[] = { PL_AGG_FIRST, PL_AGG_LAST, PL_AGG_SUM, PL_AGG_MEAN, PL_AGG_MIN, PL_AGG_MAX, PL_AGG_COUNT };

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
  } else if (lua_isstring(L, -1)) { lua_pop(L, 1); idx[ni++] = fieldcol(L, t, "index"); }
  else return luaL_error(L, "pivot: index must be a column name or a list of them");
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

/* c:keep(mask): the values where mask is true, missing elsewhere.
** [C M] -> [C M R] */
static int col_keep(lua_State *L) {
  pl_lcolumn *c = checkcolumn(L, 1);
  const pl_column *m = checkmask(L, 2, c->t->nrows, "keep");
  push_result(L, pl_vec_keep(colname(c), c->t, c->col, m));
  return 1;
}

/* c:present(): true where the value is not missing.
** [C] -> [C ... M] */
static int col_present(lua_State *L) {
  pl_lcolumn *c = checkcolumn(L, 1);
  const char *name = lua_pushfstring(L, "present(%s)", colname(c));
  pl_table *r = pl_table_new_like(name, c->t);
  int oc = pl_table_add_col(r, name, PL_BOOL);
  pl_column *o = r->cols[oc];
  pl_column_reserve(o, c->t->nrows ? c->t->nrows : 1);
  for (size_t i = 0; i < c->t->nrows; i++) o->v.b[i] = !pl_cell_missing(c->t, c->col, i);
  o->len = c->t->nrows; r->nrows = c->t->nrows;
  push_result(L, r);
  return 1;
}

/* c:nth(k): the k-th smallest (1-based) of the values that are not
** missing, by O(n) selection; nil when there are fewer than k.  Integer
** columns give exact integers.  (launch-latency's figure marks the median
** and p99 launch delay as order statistics.)
** [C k] -> [C k ... buf v] */
static int col_nth(lua_State *L) {
  pl_lcolumn *c = checkcolumn(L, 1);
  lua_Integer k = luaL_checkinteger(L, 2);
  luaL_argcheck(L, k >= 1, 2, "k must be 1 or more");
  pl_type ty = c->t->cols[c->col]->type;
  if (ty != PL_INT && ty != PL_NUM)
    return luaL_error(L, "nth: column '%s' holds %s, not numbers", colname(c), pl_type_name(ty));
  size_t n = c->t->nrows, m = 0;
  if (ty == PL_INT) {
    int64_t *x = lua_newuserdatauv(L, (n ? n : 1) * sizeof *x, 0);
    for (size_t i = 0; i < n; i++) if (!pl_cell_missing(c->t, c->col, i)) x[m++] = pl_cell_int(c->t, c->col, i);
    if ((size_t)k > m) lua_pushnil(L);
    else lua_pushinteger(L, (lua_Integer)pl_select_kth_i64(x, m, (size_t)k - 1));
  } else {
    double *x = lua_newuserdatauv(L, (n ? n : 1) * sizeof *x, 0);
    for (size_t i = 0; i < n; i++) if (!pl_cell_missing(c->t, c->col, i)) x[m++] = pl_cell_num(c->t, c->col, i);
    if ((size_t)k > m) lua_pushnil(L);
    else lua_pushnumber(L, pl_select_kth(x, m, (size_t)k - 1));
  }
  return 1;
}

/* c:fill(x): the missing values of c replaced by x (a column or a value).
** [C x] -> [C x ... R] */
static int col_fill(lua_State *L) {
  pl_lcolumn *c = checkcolumn(L, 1);
  luaL_checkany(L, 2);
  pl_operand x;
  to_operand(L, 2, &x);
  const char *name = lua_pushfstring(L, "fill(%s)", colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_fill(name, c->t, c->col, &x, &e);
  if (r == NULL) return luaL_error(L, "fill: %s", e.msg);
  push_result(L, r);
  return 1;
}


/* T.sprintf(fmt, v1, ...): one string per row, printf-formatted from
** columns (and values); missing where a column value is missing.
** [fmt v...] -> [fmt v... ... R] */
int pl_l_sprintf(lua_State *L) {
  const char *fmt = luaL_checkstring(L, 1);
  int n = lua_gettop(L) - 1;
  luaL_argcheck(L, n <= 64, 66, "at most 64 values");
  pl_operand *ops = (pl_operand *)lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *ops, 0);
  for (int k = 0; k < n; k++) {
    if (lua_isnil(L, k + 2)) return luaL_error(L, "sprintf: value %d is nil", k + 1);
    to_operand(L, k + 2, &ops[k]);
  }
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_sprintf("sprintf", fmt, ops, (size_t)n, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  push_result(L, r);
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
  pl_lcolumn *c = checkcolumn(L, 1);
  pl_lcolumn *ix = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  if (ix == NULL) return luaL_error(L, "at: expected an integer column of row numbers, got %s", luaL_typename(L, 2));
  const char *name = lua_pushfstring(L, "at(%s)", colname(c));
  pl_err e;
  pl_err_clear(&e);
  size_t bad = 0;
  pl_table *r = pl_vec_at(name, c->t, c->col, ix->t, ix->col, &bad, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  push_result(L, r);
  return 1;
}

/* c:index_of(values): for each value of the column `values`, the 1-based
** row of c's first equal value, missing where there is none.
** [C V] -> [C V name R] */
static int col_index_of(lua_State *L) {
  pl_lcolumn *c = checkcolumn(L, 1);
  pl_lcolumn *v = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  if (v == NULL) return luaL_error(L, "index_of: expected a column of values, got %s", luaL_typename(L, 2));
  const char *name = lua_pushfstring(L, "index_of(%s)", colname(c));
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_vec_index_of(name, c->t, c->col, v->t, v->col, &e);
  if (r == NULL) return luaL_error(L, "%s", e.msg);
  push_result(L, r);
  return 1;
}

static const luaL_Reg col_fns[] = {
  {"abs", col_abs}, {"clip", col_clip}, {"min_with", col_min_with}, {"max_with", col_max_with},
  {"fill", col_fill}, {"floor", col_floor}, {"ceil", col_ceil},
  {"eq", col_eq}, {"ne", col_ne}, {"lt", col_lt}, {"le", col_le}, {"gt", col_gt}, {"ge", col_ge},
  {"between", col_between}, {"isin", col_isin}, {"match", col_match}, {"map", col_map}, {"keep", col_keep},
  {"present", col_present},
  {"nth", col_nth}, {"cummax", col_cummax}, {"cumsum", col_cumsum}, {"at", col_at},
  {"index_of", col_index_of},
  {NULL, NULL}
};

static const luaL_Reg col_metas[] = {
  {"__add", col_add}, {"__sub", col_sub}, {"__mul", col_mul}, {"__div", col_div}, {"__unm", col_unm},
  {"__idiv", col_idiv}, {"__mod", col_mod},
  {"__band", col_band}, {"__bor", col_bor}, {"__bnot", col_bnot},
  {NULL, NULL}
};

static const luaL_Reg tbl_fns[] = {
  {"filter", tbl_filter}, {"order", tbl_order}, {"take", tbl_take}, {"with", tbl_with}, {"pivot", tbl_pivot},
  {NULL, NULL}
};

void pl_l_column_register(lua_State *L, int tbl_methods, int col_methods, int col_meta) {
  tbl_methods = lua_absindex(L, tbl_methods);
  col_methods = lua_absindex(L, col_methods);
  col_meta = lua_absindex(L, col_meta);
  lua_pushvalue(L, tbl_methods); luaL_setfuncs(L, tbl_fns, 0); lua_pop(L, 1);
  lua_pushvalue(L, col_methods); luaL_setfuncs(L, col_fns, 0); lua_pop(L, 1);
  lua_pushvalue(L, col_meta); luaL_setfuncs(L, col_metas, 0); lua_pop(L, 1);
}

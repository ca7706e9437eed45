/*
** l_table.c -- Lua module 'perflab.table': the columnar table engine of the
** core as userdata.  This file binds every method of a table
** ("perflab.Table", owning a pl_table) and of a grouping
** ("perflab.Grouping"), the module functions, and the opener; the Column
** methods are in l_column.c (pl_l_column_open), the plumbing both share in
** lbind.c.  Heavy work (sort, top-k, group-by, join, writers) runs in C.
** API documented in docs/table-api.md.
*/
#include "lbind.h"
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#define PL_GROUP_T        "perflab.Grouping"
#define PL_MAX_GROUP_KEYS 64 /* key columns of group_by and join */

/* ---- helpers ----------------------------------------------------------- */

/* Key names sorted in C, as table.sort would order them (strings by
** strcoll, numbers by value; a mix is an error), without calling the global
** `table.sort` that a script may have replaced.
** The array at idx (1..n) is rewritten in order.  [...] -> [...] */
typedef struct {
  const char *s;
  lua_Number d;
  int pos;
} sortkey_t;

static int cmp_sortkey(const void *a, const void *b) {
  const sortkey_t *x = (const sortkey_t *)a, *y = (const sortkey_t *)b;
  if (x->s) return strcoll(x->s, y->s);
  return (x->d > y->d) - (x->d < y->d);
}

static void sort_names(lua_State *L, int idx, int n) {
  if (n < 2) return;
  idx = lua_absindex(L, idx);
  sortkey_t *v = (sortkey_t *)lua_newuserdatauv(L, (size_t)n * sizeof *v, 0); /* [... box] */
  int strings = 0;
  for (int i = 0; i < n; i++) {
    int ty = lua_rawgeti(L, idx, i + 1); /* [... box k] */
    if (ty != LUA_TSTRING && ty != LUA_TNUMBER) luaL_error(L, "attempt to compare %s values", luaL_typename(L, -1));
    if (i == 0) strings = ty == LUA_TSTRING;
    else if (strings != (ty == LUA_TSTRING)) luaL_error(L, "attempt to compare number with string");
    v[i].s = strings ? lua_tostring(L, -1) : NULL; /* anchored in the array */
    v[i].d = strings ? 0 : lua_tonumber(L, -1);
    v[i].pos = i + 1;
    lua_pop(L, 1); /* [... box] */
  }
  qsort(v, (size_t)n, sizeof *v, cmp_sortkey);
  lua_createtable(L, n, 0); /* [... box sorted] */
  for (int i = 0; i < n; i++) {
    lua_rawgeti(L, idx, v[i].pos);
    lua_rawseti(L, -2, i + 1);
  }
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    lua_rawseti(L, idx, i);
  }
  lua_pop(L, 2); /* [...] */
}


/* t:freeze(): the table becomes a profile's table (see pl_ltable).
** [T] -> [T] */
static int tbl_freeze(lua_State *L) {
  pl_ltable *u = (pl_ltable *)luaL_checkudata(L, 1, PL_TABLE_T);
  u->frozen = 1;
  lua_settop(L, 1);
  return 1;
}

/* [T] -> [T b] */
static int tbl_frozen(lua_State *L) {
  pl_ltable *u = (pl_ltable *)luaL_checkudata(L, 1, PL_TABLE_T);
  lua_pushboolean(L, u->frozen);
  return 1;
}

/* Calls the function at the top (with nargs arguments below it... as
** lua_call) and, on error, raises "WHAT, row I: MESSAGE" (error objects
** that are not strings pass through unchanged). */
/* __index of the row proxy below: notes the column read last.
** [proxy k] -> [proxy k v]  (upvalues: the row, the box) */
static int proxy_index(lua_State *L) {
  lua_pushvalue(L, 2);
  lua_setfield(L, lua_upvalueindex(2), "last");
  lua_pushvalue(L, 2);
  lua_gettable(L, lua_upvalueindex(1));
  return 1;
}

/* Calls fn (at fnidx) with row i of t and i, as pushed by the caller; on
** an error raises "WHAT, row I, column 'C': MESSAGE", C being the column
** the callback read last before failing (found by calling it once more on
** that row through a proxy that notes its reads).  Error objects that are
** not strings pass through unchanged. */
static void call_row(lua_State *L, int fnidx, const pl_table *t, const char *what, size_t row) {
  if (lua_pcall(L, 2, 1, 0) == LUA_OK) return;
  if (lua_type(L, -1) != LUA_TSTRING) lua_error(L);
  int msg = lua_gettop(L);
  lua_newtable(L); /* box: {last = column} */
  int box = lua_gettop(L);
  lua_pushvalue(L, fnidx);
  lua_newtable(L); /* the proxy row */
  lua_createtable(L, 0, 1);
  pl_l_pushrow(L, t, row);
  lua_pushvalue(L, box);
  lua_pushcclosure(L, proxy_index, 2);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_pushinteger(L, (lua_Integer)row + 1);
  int again = lua_pcall(L, 2, 1, 0);
  lua_getfield(L, box, "last");
  if (again != LUA_OK && lua_type(L, -1) == LUA_TSTRING)
    luaL_error(L, "%s, row %d, column '%s': %s", what, (int)row + 1, lua_tostring(L, -1), lua_tostring(L, msg));
  luaL_error(L, "%s, row %d: %s", what, (int)row + 1, lua_tostring(L, msg));
}


/* A column type by name at idx.  [...] -> [...] */
static pl_type parse_typename(lua_State *L, int idx) {
  static const char *const names[] = { "number", "integer", "boolean", "string", NULL };
  static const pl_type types[] = { PL_NUM, PL_INT, PL_BOOL, PL_STR };
  return types[luaL_checkoption(L, idx, NULL, names)];
}

/* ---- constructors ------------------------------------------------------ */

/* from_columns({name = {...}, ...} [, {order...}] [, tablename])
** [cols [order] [name]] -> [cols [order] [name] T] */
static int tbl_from_columns(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  int hasorder = lua_istable(L, 2);
  const char *tname = luaL_optstring(L, hasorder ? 3 : 2, "table");
  pl_table *t = pl_table_new(tname);
  pl_l_pushtable(L, t); /* owned from here on */
  int tidx = lua_gettop(L);
  /* column names: the order list, else sorted keys */
  lua_newtable(L);
  int names = lua_gettop(L);
  int n = 0;
  if (hasorder) {
    int k = (int)luaL_len(L, 2);
    for (int i = 1; i <= k; i++) {
      lua_geti(L, 2, i);
      lua_rawseti(L, names, ++n);
    }
  } else {
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      lua_rawseti(L, names, ++n);
    }
    sort_names(L, names, n);
  }
  size_t nrows = 0;
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, names, i);
    const char *cname = lua_tostring(L, -1);
    if (cname == NULL) return luaL_error(L, "column names must be strings");
    if (lua_getfield(L, 1, cname) != LUA_TTABLE)
      return luaL_error(L, "column '%s': expected an array of values", cname);
    size_t len = (size_t)luaL_len(L, -1);
    if (i > 1 && len != nrows)
      return luaL_error(L, "column '%s' has %d values, expected %d", cname, (int)len, (int)nrows);
    nrows = len;
    pl_type ty = PL_NUM;
    int seen = 0;
    for (size_t r = 1; r <= len; r++) {
      lua_geti(L, -1, (lua_Integer)r);
      ty = pl_l_infer_type(L, -1, ty, &seen);
      lua_pop(L, 1);
    }
    pl_table_add_col(t, cname, ty);
    lua_pop(L, 2);
  }
  for (size_t r = 1; r <= nrows; r++) {
    for (int i = 1; i <= n; i++) {
      lua_rawgeti(L, names, i);
      lua_getfield(L, 1, lua_tostring(L, -1));
      lua_geti(L, -1, (lua_Integer)r);
      pl_l_putvalue(L, t, i - 1, -1);
      lua_pop(L, 3);
    }
    pl_row_end(t);
  }
  lua_settop(L, tidx);
  return 1;
}

/* from_rows({{a=1,b="x"}, ...} [, {order...}] [, tablename])
** [rows [order] [name]] -> [rows [order] [name] ... T] */
static int tbl_from_rows(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  int hasorder = lua_istable(L, 2);
  const char *tname = luaL_optstring(L, hasorder ? 3 : 2, "table");
  size_t nrows = (size_t)luaL_len(L, 1);
  lua_newtable(L); /* [args info]: column -> type code (-1: none yet) */
  int info = lua_gettop(L);
  lua_newtable(L); /* [args info names]: the column names in order */
  int names = lua_gettop(L);
  int n = 0;
  if (hasorder) {
    int k = (int)luaL_len(L, 2);
    for (int i = 1; i <= k; i++) {
      lua_geti(L, 2, i);
      lua_rawseti(L, names, ++n);
    }
  }
  /* pass 1: the names and the type of each column */
  for (size_t r = 1; r <= nrows; r++) {
    if (lua_geti(L, 1, (lua_Integer)r) != LUA_TTABLE) return luaL_error(L, "row %d is not a table", (int)r);
    lua_pushnil(L);           /* [... names row nil] */
    while (lua_next(L, -2)) { /* [... names row k v] */
      if (lua_type(L, -2) != LUA_TSTRING) {
        lua_pop(L, 1);
        continue;
      }
      lua_pushvalue(L, -2);
      if (lua_rawget(L, info) == LUA_TNIL) { /* [... row k v code|nil] */
        lua_pop(L, 1);                       /* a new column: */
        if (!hasorder) {
          lua_pushvalue(L, -2);
          lua_rawseti(L, names, ++n);
        }
        lua_pushvalue(L, -2);
        lua_pushinteger(L, -1);
        lua_rawset(L, info); /* info[k] = -1 */
        lua_pushvalue(L, -2);
        lua_rawget(L, info); /* [... row k v -1] */
      }
      int code = (int)lua_tointeger(L, -1);
      lua_pop(L, 1); /* [... row k v] */
      int seen = code >= 0;
      pl_type ty = pl_l_infer_type(L, -1, seen ? (pl_type)code : PL_NUM, &seen);
      lua_pushvalue(L, -2);
      lua_pushinteger(L, (lua_Integer)ty);
      lua_rawset(L, info); /* info[k] = ty */
      lua_pop(L, 1);       /* [... row k] */
    }
    lua_pop(L, 1); /* [args info names] */
    PL_L_BALANCE(L, names);
  }
  if (!hasorder) sort_names(L, names, n);
  pl_table *t = pl_table_new(tname);
  pl_l_pushtable(L, t); /* [args info names T] */
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, names, i);
    lua_pushvalue(L, -1);
    lua_rawget(L, info); /* [... T name code] */
    lua_Integer code = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
    pl_table_add_col(t, lua_tostring(L, -2), code < 0 ? PL_NUM : (pl_type)code);
    lua_pop(L, 2); /* [... T] */
  }
  /* pass 2: the values, row by row */
  for (size_t r = 1; r <= nrows; r++) {
    lua_geti(L, 1, (lua_Integer)r); /* [... T row] */
    for (int i = 1; i <= n; i++) {
      lua_rawgeti(L, names, i);
      lua_gettable(L, -2); /* [... T row v] */
      pl_l_putvalue(L, t, i - 1, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1); /* [... T] */
    pl_row_end(t);
  }
  PL_L_BALANCE(L, names + 1);
  return 1; /* T */
}

/* ---- table methods ----------------------------------------------------- */
/* Each comment gives the method's Lua signature (t is argument 1); a
** method returns what it pushed last, as Lua's own libraries do. */

/* t:nrows() -> n  (also #t)
** [T] -> [T n] */
static int tbl_nrows(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)pl_l_checktable(L, 1)->nrows);
  return 1;
}

/* t:name() -> name | t:name(new) -> t (renamed in place)
** [T] -> [T name]  |  [T new] -> [T'] (renamed; a frozen T: its copy) */
static int tbl_name(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  if (lua_isstring(L, 2)) {
    t = pl_l_writable(L, 1);
    pl_table_set_name(t, lua_tostring(L, 2));
    lua_settop(L, 1);
    return 1;
  }
  lua_pushstring(L, t->name);
  return 1;
}

/* t:columns() -> {name, ...} in order
** [T] -> [T {name...}] */
static int tbl_columns(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_createtable(L, (int)t->ncols, 0); /* [t names] */
  for (size_t j = 0; j < t->ncols; j++) {
    lua_pushstring(L, t->cols[j]->name);
    lua_rawseti(L, -2, (lua_Integer)j + 1);
  }
  return 1;
}

/* t:types() -> {name = "number" | "integer" | "boolean" | "string"}
** [T] -> [T {name = type}] */
static int tbl_types(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_createtable(L, 0, (int)t->ncols); /* [t types] */
  for (size_t j = 0; j < t->ncols; j++) {
    lua_pushstring(L, pl_type_name(t->cols[j]->type));
    lua_setfield(L, -2, t->cols[j]->name);
  }
  return 1;
}

/* t:docs() -> {name = description} for the columns that have one
** [T] -> [T {name = doc}] */
static int tbl_docs(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_createtable(L, 0, (int)t->ncols); /* [t docs] */
  for (size_t j = 0; j < t->ncols; j++) {
    if (t->cols[j]->doc) {
      lua_pushstring(L, t->cols[j]->doc);
      lua_setfield(L, -2, t->cols[j]->name);
    }
  }
  return 1;
}

/* t:has(name) -> boolean
** [T name] -> [T name b] */
static int tbl_has(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_pushboolean(L, pl_table_col(t, luaL_checkstring(L, 2)) >= 0);
  return 1;
}

/* t:row(i) -> {col = value, ...} (i < 0 counts from the end)
** [T i] -> [T i row] */
static int tbl_row(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  if (i < 0) i += (lua_Integer)t->nrows + 1;
  luaL_argcheck(L, i >= 1 && (size_t)i <= t->nrows, 2, "row index out of range");
  pl_l_pushrow(L, t, (size_t)i - 1);
  return 1;
}

/* t:get(i, col) -> value | nil (missing)
** [T i col] -> [T i col v] */
static int tbl_get(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  luaL_argcheck(L, i >= 1 && (size_t)i <= t->nrows, 2, "row index out of range");
  pl_l_pushcell(L, t, pl_l_checkcol(L, t, 3), (size_t)i - 1);
  return 1;
}

/* (t, i) -> i + 1, row | nothing: the iterator t:rows() returns
** [T i] -> [T i i+1 row]  |  [T i] (past the end) */
static int rows_iter(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2) + 1;
  if ((size_t)i > t->nrows) return 0;
  lua_pushinteger(L, i);
  pl_l_pushrow(L, t, (size_t)i - 1);
  return 2;
}

/* t:rows() -> iterator, t, 0  (for i, r in t:rows() do ... end)
** [T] -> [T iter T 0] */
static int tbl_rows(lua_State *L) {
  pl_l_checktable(L, 1);
  lua_pushcfunction(L, rows_iter); /* [t iter] */
  lua_pushvalue(L, 1);             /* [t iter t] */
  lua_pushinteger(L, 0);           /* [t iter t 0] */
  return 3;
}

/* t:col(name) -> column object (also t:column)
** [T name] -> [T name C] */
static int tbl_col(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  int c = pl_l_checkcol(L, t, 2);
  pl_l_pushcolumn(L, 1, c); /* [t name C]: C keeps t alive */
  return 1;
}

/* t:const(v [, type]): a column of t's length, every row v (a number,
** string or boolean), or every row missing when v is nil and type
** ("number", "integer", "string", "boolean") is given.  type converts a
** number: "number" makes 1 a float, "integer" takes only integral values.
** [T v [type]] -> [T v [type] ... C] */
static int tbl_const(lua_State *L) {
  static const char *const names[] = { "number", "integer", "string", "boolean", NULL };
  static const pl_type types[] = { PL_NUM, PL_INT, PL_STR, PL_BOOL };
  pl_table *t = pl_l_checktable(L, 1);
  int vt = lua_type(L, 2);
  luaL_argexpected(L, vt == LUA_TNIL || vt == LUA_TNUMBER || vt == LUA_TSTRING || vt == LUA_TBOOLEAN, 2,
                   "number, string, boolean or nil");
  pl_operand x;
  memset(&x, 0, sizeof x);
  pl_type ty;
  if (vt == LUA_TNUMBER) {
    if (lua_isinteger(L, 2)) {
      x.type = ty = PL_INT;
      x.i = (int64_t)lua_tointeger(L, 2);
    } else {
      x.type = ty = PL_NUM;
      x.d = lua_tonumber(L, 2);
    }
  } else if (vt == LUA_TSTRING) {
    x.type = ty = PL_STR;
    x.s = lua_tolstring(L, 2, &x.slen);
  } else if (vt == LUA_TBOOLEAN) {
    x.type = ty = PL_BOOL;
    x.i = lua_toboolean(L, 2);
  } else ty = PL_NUM;
  if (!lua_isnoneornil(L, 3)) {
    pl_type want = types[luaL_checkoption(L, 3, NULL, names)];
    int numeric = want == PL_NUM || want == PL_INT;
    if (vt != LUA_TNIL && (numeric ? vt != LUA_TNUMBER : ty != want))
      return luaL_error(L, "const: %s cannot make a column of %s", luaL_typename(L, 2), lua_tostring(L, 3));
    if (vt == LUA_TNUMBER && want == PL_INT && x.type == PL_NUM) {
      int exact = 0;
      x.i = (int64_t)lua_tointegerx(L, 2, &exact); /* 3.0 -> 3; 2.5: not exact */
      if (!exact) return luaL_error(L, "const: %s is not an integer", lua_tostring(L, 2));
      x.type = PL_INT;
    }
    ty = want;
  } else if (vt == LUA_TNIL) {
    return luaL_argerror(L, 3,
                         "a type for a column of missing values (\"number\", \"integer\", \"string\" or \"boolean\")");
  }
  pl_table *r = pl_vec_const("const", t, ty, vt == LUA_TNIL ? NULL : &x);
  pl_l_pushresult(L, r);
  return 1;
}

/* t:rownum(): an integer column of t's length, 1..n.
** [T] -> [T ... C] */
static int tbl_rownum(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  pl_l_pushresult(L, pl_vec_rownum("rownum", t));
  return 1;
}

/* ---- calls that take columns ------------------------------------------ */

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

/* t:with(name, column) -- in place (a frozen table: on a copy), returns it.
** [T name C|{v...}] -> [T'] (T, or its copy when frozen) */
static int tbl_with(lua_State *L) {
  pl_l_checktable(L, 1);
  const char *name = luaL_checkstring(L, 2);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 3, PL_COLUMN_T);
  if (c == NULL) {
    luaL_argcheck(L, lua_istable(L, 3), 3, "expected a column or an array of values");
    lua_getfield(L, 1, "add_column");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_call(L, 3, 1);
    return 1;
  }
  pl_table *t = pl_l_writable(L, 1);
  if (c->t->nrows != t->nrows)
    return luaL_error(L, "with '%s': the column has %d rows, table '%s' %d", name, (int)c->t->nrows, t->name,
                      (int)t->nrows);
  pl_table_put_col_from(t, name, c->t, c->col); /* shared, or re-interned into t's pool */
  lua_settop(L, 1);
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
    call_row(L, 2, t, what, i);
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

/* add_column(name, values | function(row, i) [, type]) -- in place; returns t
** [T name vals|fn [type]] -> [T'] (T, or its copy when frozen) */
static int tbl_add_column(lua_State *L) {
  pl_table *t = pl_l_writable(L, 1);
  const char *name = luaL_checkstring(L, 2);
  int isfn = lua_isfunction(L, 3);
  if (!isfn) luaL_checktype(L, 3, LUA_TTABLE);
  lua_settop(L, 4);
  /* compute values into a Lua array first (type inference, length check) */
  lua_createtable(L, (int)t->nrows, 0);
  int vals = lua_gettop(L);
  pl_type ty = PL_NUM;
  int seen = 0;
  if (isfn) {
    const char *what = lua_pushfstring(L, "add_column '%s' (table '%s')", name, t->name);
    for (size_t i = 0; i < t->nrows; i++) {
      lua_pushvalue(L, 3);
      pl_l_pushrow(L, t, i);
      lua_pushinteger(L, (lua_Integer)i + 1);
      call_row(L, 3, t, what, i);
      ty = pl_l_infer_type(L, -1, ty, &seen);
      lua_rawseti(L, vals, (lua_Integer)i + 1);
    }
  } else {
    size_t len = (size_t)luaL_len(L, 3);
    if (len != t->nrows) return luaL_error(L, "add_column '%s': %d values for %d rows", name, (int)len, (int)t->nrows);
    for (size_t i = 0; i < len; i++) {
      lua_geti(L, 3, (lua_Integer)i + 1);
      ty = pl_l_infer_type(L, -1, ty, &seen);
      lua_rawseti(L, vals, (lua_Integer)i + 1);
    }
  }
  if (!lua_isnoneornil(L, 4)) ty = parse_typename(L, 4);
  /* build the column in a temporary table, anchored on the stack (an error
  ** in putvalue frees it through __gc), then hand it to t through the core
  ** (pl_table_set_col: in place of the column of that name, which keeps its
  ** place, else at the end; review 1.4: the binding no longer edits t->cols
  ** itself, whose realloc lost the array on failure) */
  pl_table *tmp = pl_table_new_like(name, t);
  pl_l_pushtable(L, tmp); /* [t name v type vals [what] tmp] */
  int c = pl_table_add_col(tmp, name, ty);
  for (size_t i = 0; i < t->nrows; i++) {
    lua_rawgeti(L, vals, (lua_Integer)i + 1);
    pl_l_putvalue(L, tmp, c, -1);
    lua_pop(L, 1);
    pl_row_end(tmp);
  }
  pl_table_set_col(t, pl_table_take_col(tmp, c));
  lua_settop(L, 1); /* [t]; tmp (no columns) goes with the GC */
  return 1;
}

/* [T col...] -> [T'] (T, or its copy when frozen) */
static int tbl_drop(lua_State *L) { /* drop columns in place */
  pl_table *t = pl_l_checktable(L, 1);
  for (int a = 2; a <= lua_gettop(L); a++) pl_l_checkcol(L, t, a);
  t = pl_l_writable(L, 1);
  for (int a = 2; a <= lua_gettop(L); a++) pl_table_drop_col(t, pl_l_checkcol(L, t, a));
  lua_settop(L, 1);
  return 1;
}

/* [T old new] -> [T'] (T, or its copy when frozen) */
static int tbl_rename(lua_State *L) { /* rename(old, new) in place */
  pl_table *t = pl_l_checktable(L, 1);
  int c = pl_l_checkcol(L, t, 2);
  const char *nn = luaL_checkstring(L, 3);
  luaL_argcheck(L, pl_table_col(t, nn) < 0 || pl_table_col(t, nn) == c, 3, "a column of that name exists");
  t = pl_l_writable(L, 1);
  free(t->cols[c]->name);
  t->cols[c]->name = pl_xstrdup(nn);
  lua_settop(L, 1);
  return 1;
}

/* [T] -> [T R] */
static int tbl_copy(lua_State *L) {
  pl_l_pushtable(L, pl_table_copy(pl_l_checktable(L, 1)));
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

/* t:to_lua() -> {row, ...}
** [T] -> [T {row...}] */
static int tbl_to_lua(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  lua_createtable(L, (int)t->nrows, 0);
  for (size_t i = 0; i < t->nrows; i++) {
    pl_l_pushrow(L, t, i);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* (light buf) -> [text]
** [buf*] -> [buf* text] */
static int pushbuf_p(lua_State *L) {
  const pl_buf *b = (const pl_buf *)lua_touserdata(L, 1);
  lua_pushlstring(L, b->data ? b->data : "", b->len);
  return 1;
}

/* [...] -> [... text]; b is freed whether or not the string could be made. */
static void pushbuf(lua_State *L, pl_buf *b) {
  lua_pushcfunction(L, pushbuf_p);
  lua_pushlightuserdata(L, b);
  int st = lua_pcall(L, 1, 1, 0);
  pl_buf_free(b);
  if (st != LUA_OK) lua_error(L);
}

/* t:to_csv() -> text (RFC 4180, a header row)
** [T] -> [T ... text] */
static int tbl_to_csv(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  pl_buf b;
  pl_buf_init(&b);
  pl_table_write_csv(t, &b);
  pushbuf(L, &b);
  return 1;
}

/* t:to_json([row_indent [, end_indent]]) -> text (an array of row objects,
** one a line after row_indent, default " "; the "]" after end_indent)
** [T [ri [ei]]] -> [T [ri [ei]] ... text] */
static int tbl_to_json(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  const char *ri = luaL_optstring(L, 2, " "), *ei = luaL_optstring(L, 3, "");
  pl_buf b;
  pl_buf_init(&b);
  pl_table_write_json_indent(t, &b, ri, ei);
  pushbuf(L, &b);
  return 1;
}

static int sink_file(void *ctx, const char *data, size_t n) {
  return (n && fwrite(data, 1, n, (FILE *)ctx) != n) ? (errno ? errno : EIO) : 0;
}

/* t:write_json_to(fh [, row_indent [, end_indent]]) -> fh | fail, msg: to_json's
** text written to an open Lua file handle in pieces of about a megabyte (a
** large table's text is never held whole, nor copied into a Lua string)
** [T fh ...] -> [T fh ... fh]  |  [T fh ... nil msg] */
static int tbl_write_json_to(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  luaL_Stream *p = (luaL_Stream *)luaL_checkudata(L, 2, LUA_FILEHANDLE);
  if (p->closef == NULL) return luaL_error(L, "attempt to use a closed file");
  const char *ri = luaL_optstring(L, 3, " "), *ei = luaL_optstring(L, 4, "");
  pl_buf b;
  pl_buf_init(&b);
  errno = 0;
  int st = pl_table_write_json_sink(t, &b, ri, ei, sink_file, p->f);
  pl_buf_free(&b);
  if (st) {
    luaL_pushfail(L);
    lua_pushfstring(L, "cannot write: %s", strerror(st));
    return 2;
  }
  lua_pushvalue(L, 2);
  return 1;
}

static int write_file(lua_State *L, const char *path, pl_buf *b) {
  /* atomic for a regular file, in place for a device or FIFO
  ** (pl_write_output); nothing is pushed while b holds memory (a memory
  ** error would lose it) */
  int r = pl_write_output(path, b->data, b->len);
  int en = errno;
  pl_buf_free(b);
  if (r != 0) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: cannot write: %s", path, strerror(en));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* t:write_csv(path) -> true | fail, msg
** [T path] -> [T path ... true]  |  [T path ... nil msg] */
static int tbl_write_csv(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  const char *path = luaL_checkstring(L, 2);
  pl_buf b;
  pl_buf_init(&b);
  pl_table_write_csv(t, &b);
  return write_file(L, path, &b);
}

/* t:write_json(path) -> true | fail, msg
** [T path] -> [T path ... true]  |  [T path ... nil msg] */
static int tbl_write_json(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  const char *path = luaL_checkstring(L, 2);
  pl_buf b;
  pl_buf_init(&b);
  pl_table_write_json(t, &b);
  return write_file(L, path, &b);
}

/* format{markdown=bool, max_rows=n, width=n, digits=n}
** [T [opts]] -> [T [opts] ... text] */
static int tbl_format(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  pl_fmtopts o = { 0, 0, 0, 6 };
  static const char *const format_opts[] = { "digits", "markdown", "max_rows", "width", NULL };
  pl_l_checkoptions(L, 2, format_opts);
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "markdown");
    o.markdown = lua_toboolean(L, -1);
    lua_getfield(L, 2, "max_rows");
    o.max_rows = (size_t)luaL_optinteger(L, -1, 0);
    lua_getfield(L, 2, "width");
    o.max_width = (size_t)luaL_optinteger(L, -1, 0);
    lua_getfield(L, 2, "digits");
    o.digits = (int)luaL_optinteger(L, -1, 6);
    lua_pop(L, 4);
  }
  pl_buf b;
  pl_buf_init(&b);
  pl_table_format(t, &o, &b);
  pushbuf(L, &b);
  return 1;
}

/* tostring(t) -> "table 'NAME': R rows x C columns" and up to 20 rows
** [T] -> [T ... text] */
static int tbl_tostring(lua_State *L) {
  pl_ltable *u = (pl_ltable *)luaL_checkudata(L, 1, PL_TABLE_T);
  if (u->t == NULL) {
    lua_pushstring(L, "table (closed)");
    return 1;
  }
  pl_fmtopts o = { 0, 20, 60, 6 };
  pl_buf b;
  pl_buf_init(&b);
  pl_buf_printf(&b, "table '%s': %zu rows x %zu columns\n", u->t->name, u->t->nrows, u->t->ncols);
  pl_table_format(u->t, &o, &b);
  pushbuf(L, &b);
  return 1;
}

/* [T x] -> [T x n]  (__len) */
static int tbl_len(lua_State *L) { return tbl_nrows(L); }

/* t:close(), __gc, __close: frees the C table; safe to call twice
** [T ...] -> [T ...] (no results; T closed) */
static int tbl_release(lua_State *L) {
  pl_ltable *u = (pl_ltable *)luaL_checkudata(L, 1, PL_TABLE_T);
  if (u->t) {
    pl_table_free(u->t);
    u->t = NULL;
  }
  return 0;
}

static const char *article(const char *word) { return word[0] == 'i' ? "an" : "a"; }

/* concat(t1, t2, ...) -- rows of all, columns united (missing filled).
** [T1 T2 ...] -> [T1 T2 ... R] */
static int tbl_concat(lua_State *L) {
  int n = lua_gettop(L);
  luaL_argcheck(L, n >= 1, 1, "expected tables");
  pl_table *first = pl_l_checktable(L, 1);
  pl_table *r = pl_table_new(first->name);
  pl_l_pushtable(L, r);
  for (int a = 1; a <= n; a++) {
    pl_table *t = pl_l_checktable(L, a);
    for (size_t j = 0; j < t->ncols; j++) {
      int c = pl_table_add_col(r, t->cols[j]->name, t->cols[j]->type);
      if (c < 0) {
        int ex = pl_table_col(r, t->cols[j]->name);
        if (pl_table_retype(r, ex, PL_NUM) != 0 || t->cols[j]->type == PL_STR)
          return luaL_error(L, "concat: column '%s' is %s %s in one table and %s %s in another", t->cols[j]->name,
                            article(pl_type_name(r->cols[ex]->type)), pl_type_name(r->cols[ex]->type),
                            article(pl_type_name(t->cols[j]->type)), pl_type_name(t->cols[j]->type));
      }
    }
  }
  for (int a = 1; a <= n; a++) {
    pl_table *t = pl_l_checktable(L, a);
    int *map = (int *)lua_newuserdatauv(L, (t->ncols ? t->ncols : 1) * sizeof *map, 0);
    for (size_t j = 0; j < t->ncols; j++) map[j] = pl_table_col(r, t->cols[j]->name);
    for (size_t i = 0; i < t->nrows; i++) {
      for (size_t j = 0; j < t->ncols; j++) {
        if (pl_cell_missing(t, (int)j, i)) continue;
        const pl_column *c = t->cols[j];
        switch (c->type) {
          case PL_NUM: pl_row_put_num(r, map[j], c->v.num[i]); break;
          case PL_INT: pl_row_put_int(r, map[j], c->v.i64[i]); break;
          case PL_BOOL: pl_row_put_bool(r, map[j], c->v.b[i]); break;
          case PL_STR: {
            size_t len;
            const char *s = pl_pool_str(t->pool, c->v.str[i], &len);
            pl_row_put_str(r, map[j], s, len);
            break;
          }
        }
      }
      pl_row_end(r);
    }
    lua_pop(L, 1);
  }
  return 1;
}

/* ---- group_by ---------------------------------------------------------- */

typedef struct pl_lgroup {
  int nkeys;
  int keys[PL_MAX_GROUP_KEYS];
} pl_lgroup;

/* [T key...] -> [T key... G] */
static int tbl_group_by(lua_State *L) {
  pl_table *t = pl_l_checktable(L, 1);
  int top = lua_gettop(L);
  pl_lgroup *g = (pl_lgroup *)lua_newuserdatauv(L, sizeof *g, 1);
  g->nkeys = 0;
  for (int a = 2; a <= top; a++) {
    if (lua_istable(L, a)) {
      int k = (int)luaL_len(L, a);
      if (g->nkeys + k > PL_MAX_GROUP_KEYS)
        return luaL_error(L, "group_by: more than %d key columns", PL_MAX_GROUP_KEYS);
      for (int i = 1; i <= k; i++) {
        lua_geti(L, a, i);
        int c = pl_table_col(t, luaL_checkstring(L, -1));
        if (c < 0) return luaL_error(L, "group_by: %s", pl_l_push_nocol(L, t, lua_tostring(L, -1)));
        g->keys[g->nkeys++] = c;
        lua_pop(L, 1);
      }
    } else {
      if (g->nkeys >= PL_MAX_GROUP_KEYS) return luaL_error(L, "group_by: more than %d key columns", PL_MAX_GROUP_KEYS);
      g->keys[g->nkeys++] = pl_l_checkcol(L, t, a);
    }
  }
  luaL_setmetatable(L, PL_GROUP_T);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

static const char *const aggnames[] = { "count",     "sum", "mean",           "min",   "max",  "quantile",
                                        "first",     "sd",  "count_distinct", "wmean", "last", "ids",
                                        "first_row", NULL };
static const pl_aggop aggops[] = { PL_AGG_COUNT,    PL_AGG_SUM,  PL_AGG_MEAN,
                                   PL_AGG_MIN,      PL_AGG_MAX,  PL_AGG_QUANTILE,
                                   PL_AGG_FIRST,    PL_AGG_SD,   PL_AGG_COUNT_DISTINCT,
                                   PL_AGG_WMEAN,    PL_AGG_LAST, PL_AGG_IDS,
                                   PL_AGG_FIRST_ROW };
#define AGG_LIST "count, sum, mean, min, max, quantile, first, sd, count_distinct, wmean, last, ids, first_row"

/* One aggregate spec at the top of the stack: "count", "sum(col)",
** "quantile(col, 0.9)", or {op, col [, q]}. */
static void read_agg(lua_State *L, pl_table *t, const char *out, pl_agg *ag) {
  char op[32] = "", col[256] = "", col2[256] = "";
  double q = 0.5;
  if (lua_type(L, -1) == LUA_TSTRING) {
    const char *s = lua_tostring(L, -1);
    const char *lp = strchr(s, '(');
    size_t on = lp ? (size_t)(lp - s) : strlen(s);
    if (on >= sizeof op) {
      luaL_error(L, "agg '%s': unknown aggregate '%s'", out, s);
      return;
    }
    memcpy(op, s, on);
    op[on] = '\0';
    if (lp) {
      const char *rp = strrchr(lp, ')');
      if (!rp) {
        luaL_error(L, "agg '%s': missing ')' in '%s'", out, s);
        return;
      }
      const char *comma = memchr(lp, ',', (size_t)(rp - lp));
      const char *ce = comma ? comma : rp;
      const char *cs = lp + 1;
      while (*cs == ' ') cs++;
      while (ce > cs && ce[-1] == ' ') ce--;
      if ((size_t)(ce - cs) >= sizeof col) {
        luaL_error(L, "agg '%s': column name too long", out);
        return;
      }
      memcpy(col, cs, (size_t)(ce - cs));
      col[ce - cs] = '\0';
      if (comma) {
        const char *a = comma + 1, *z = rp;
        while (*a == ' ') a++;
        while (z > a && z[-1] == ' ') z--;
        if ((size_t)(z - a) < sizeof col2) {
          memcpy(col2, a, (size_t)(z - a));
          col2[z - a] = '\0';
        }
        q = strtod(comma + 1, NULL);
      }
    }
  } else if (lua_istable(L, -1)) {
    lua_geti(L, -1, 1);
    snprintf(op, sizeof op, "%s", luaL_optstring(L, -1, ""));
    lua_geti(L, -2, 2);
    snprintf(col, sizeof col, "%s", luaL_optstring(L, -1, ""));
    lua_geti(L, -3, 3);
    if (lua_type(L, -1) == LUA_TSTRING) snprintf(col2, sizeof col2, "%s", lua_tostring(L, -1));
    else q = luaL_optnumber(L, -1, 0.5);
    lua_pop(L, 3);
  } else {
    luaL_error(L, "agg '%s': expected \"op(column)\" or {op, column}", out);
    return;
  }
  int k = 0;
  while (aggnames[k] && strcmp(aggnames[k], op) != 0) k++;
  if (!aggnames[k]) {
    luaL_error(L, "agg '%s': unknown aggregate '%s' (" AGG_LIST ")", out, op);
    return;
  }
  ag->out = out;
  ag->op = aggops[k];
  ag->q = q;
  ag->col = -1;
  ag->col2 = -1;
  ag->where = NULL;
  if (ag->op != PL_AGG_COUNT && ag->op != PL_AGG_IDS && ag->op != PL_AGG_FIRST_ROW) {
    ag->col = pl_table_col(t, col);
    if (ag->col < 0) {
      luaL_error(L, "agg '%s': %s", out, pl_l_push_nocol(L, t, col));
      return;
    }
  }
  if (ag->op == PL_AGG_WMEAN) {
    if (col2[0] == '\0') {
      luaL_error(L, "agg '%s': wmean needs a weight column: {\"%s\", \"wmean\", column, weight}", out, out);
      return;
    }
    ag->col2 = pl_table_col(t, col2);
    if (ag->col2 < 0) {
      luaL_error(L, "agg '%s': weight: %s", out, pl_l_push_nocol(L, t, col2));
      return;
    }
  }
  if (ag->op == PL_AGG_QUANTILE && !(q >= 0 && q <= 1)) {
    luaL_error(L, "agg '%s': quantile must be in [0, 1]", out);
    return;
  }
}

/* grouping:agg{out = spec, ...} (outputs sorted by name) or
** grouping:agg{{out, op, col [, q]}, ...} (outputs in the given order)
** [G spec] -> [G spec ... R]  |  with an "ids" aggregate: [G spec ... R {out = {{row...}...}}] */
static int grp_agg(lua_State *L) {
  pl_lgroup *g = (pl_lgroup *)luaL_checkudata(L, 1, PL_GROUP_T);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_getiuservalue(L, 1, 1);
  pl_table *t = pl_l_checktable(L, -1);
  lua_pop(L, 1);
  pl_agg aggs[64];
  size_t n = 0;
  size_t alen = (size_t)luaL_len(L, 2);
  if (alen > 0) {
    luaL_checkstack(L, 70, "too many aggregates");
    int base = lua_gettop(L); /* [G spec] */
    for (size_t i = 1; i <= alen && n < 64; i++) {
      lua_geti(L, 2, (lua_Integer)i); /* [G spec row1 ... row_i] */
      luaL_argcheck(L, lua_istable(L, -1), 2, "expected {out, op, column}");
      lua_geti(L, -1, 1);
      const char *out = luaL_checkstring(L, -1);
      lua_pop(L, 1);
      lua_createtable(L, 3, 0);
      for (int k = 2; k <= 4; k++) {
        lua_geti(L, -2, k);
        lua_rawseti(L, -2, k - 1);
      }
      read_agg(L, t, out, &aggs[n]);
      lua_pop(L, 1);                                  /* the spec; keep the row table (anchors out) */
      if (lua_getfield(L, -1, "where") != LUA_TNIL) { /* anchored by argument 2 */
        const char *fn = lua_pushfstring(L, "agg '%s'", out);
        aggs[n].where = pl_l_checkmask(L, -2, t->nrows, fn);
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      n++;
      PL_L_BALANCE(L, base + (int)i); /* one spec row kept per aggregate */
    }
  } else {
    lua_newtable(L);
    int keys = lua_gettop(L);
    int nk = 0;
    lua_pushnil(L);
    while (lua_next(L, 2)) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      lua_rawseti(L, keys, ++nk);
    }
    sort_names(L, keys, nk);
    for (int i = 1; i <= nk && n < 64; i++) {
      lua_rawgeti(L, keys, i);
      const char *out = luaL_checkstring(L, -1);
      lua_getfield(L, 2, out);
      read_agg(L, t, out, &aggs[n]);
      if (lua_istable(L, -1) && lua_getfield(L, -1, "where") != LUA_TNIL) { /* out = {op, col, where = mask} */
        const char *fn = lua_pushfstring(L, "agg '%s'", out);
        aggs[n].where = pl_l_checkmask(L, -2, t->nrows, fn);
        lua_pop(L, 1);
      }
      lua_settop(L, keys + i); /* the spec goes; the name string stays (also in keys) */
      n++;
      PL_L_BALANCE(L, keys + i);
    }
  }
  pl_err e;
  pl_err_clear(&e);
  pl_table *r = pl_table_group(t, g->keys, (size_t)g->nkeys, aggs, n, &e);
  if (r == NULL) return luaL_error(L, "agg: %s", e.msg);
  pl_l_derived_name(r, "agg", t);
  pl_l_pushtable(L, r);
  int nids = 0;
  for (size_t a = 0; a < n; a++) nids += aggs[a].op == PL_AGG_IDS;
  if (nids == 0) return 1;
  /* ids: the row numbers of each group, as a second result {out = {{rows}...}} */
  size_t *gid = (size_t *)lua_newuserdatauv(L, (t->nrows ? t->nrows : 1) * sizeof *gid, 0);
  size_t *first = NULL;
  size_t ng = pl_table_group_ids(t, g->keys, (size_t)g->nkeys, gid, &first);
  free(first);
  lua_createtable(L, 0, nids);
  for (size_t a = 0; a < n; a++) {
    if (aggs[a].op != PL_AGG_IDS) continue;
    lua_createtable(L, (int)ng, 0);
    int lists = lua_gettop(L);
    for (size_t k = 0; k < ng; k++) {
      lua_newtable(L);
      lua_rawseti(L, lists, (lua_Integer)k + 1);
    }
    for (size_t i = 0; i < t->nrows; i++) {
      if (aggs[a].where && aggs[a].where->v.b[i] != 1) continue;
      lua_rawgeti(L, lists, (lua_Integer)gid[i] + 1);
      lua_pushinteger(L, (lua_Integer)i + 1);
      lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
      lua_pop(L, 1);
    }
    lua_setfield(L, -2, aggs[a].out);
  }
  lua_remove(L, -2); /* gid */
  return 2;
}

/* ---- registration ------------------------------------------------------ */

static const luaL_Reg tbl_methods[] = { { "nrows", tbl_nrows },
                                        { "name", tbl_name },
                                        { "columns", tbl_columns },
                                        { "types", tbl_types },
                                        { "docs", tbl_docs },
                                        { "has", tbl_has },
                                        { "row", tbl_row },
                                        { "get", tbl_get },
                                        { "rows", tbl_rows },
                                        { "col", tbl_col },
                                        { "column", tbl_col },
                                        { "where", tbl_where },
                                        { "sort_by", tbl_sort_by },
                                        { "top", tbl_top },
                                        { "head", tbl_head },
                                        { "slice", tbl_slice },
                                        { "select", tbl_select },
                                        { "add_column", tbl_add_column },
                                        { "drop", tbl_drop },
                                        { "rename", tbl_rename },
                                        { "copy", tbl_copy },
                                        { "group_by", tbl_group_by },
                                        { "join", tbl_join },
                                        { "unique", tbl_unique },
                                        { "to_lua", tbl_to_lua },
                                        { "to_csv", tbl_to_csv },
                                        { "to_json", tbl_to_json },
                                        { "write_json_to", tbl_write_json_to },
                                        { "write_csv", tbl_write_csv },
                                        { "write_json", tbl_write_json },
                                        { "format", tbl_format },
                                        { "close", tbl_release },
                                        { "freeze", tbl_freeze },
                                        { "frozen", tbl_frozen },
                                        { "const", tbl_const },
                                        { "rownum", tbl_rownum },
                                        { "filter", tbl_filter },
                                        { "order", tbl_order },
                                        { "take", tbl_take },
                                        { "with", tbl_with },
                                        { "pivot", tbl_pivot },
                                        { NULL, NULL } };

static const luaL_Reg tbl_meta[] = { { "__gc", tbl_release },
                                     { "__close", tbl_release },
                                     { "__tostring", tbl_tostring },
                                     { "__len", tbl_len },
                                     { NULL, NULL } };

/* grouping:broadcast(res): res has one row per group (in the groups' order,
** as agg gives them); the result has one row per row of the grouped table,
** the row of its group.
** [G res] -> [G res ... R] */
static int grp_broadcast(lua_State *L) {
  pl_lgroup *g = (pl_lgroup *)luaL_checkudata(L, 1, PL_GROUP_T);
  pl_table *res = pl_l_checktable(L, 2);
  lua_getiuservalue(L, 1, 1);
  pl_table *t = pl_l_checktable(L, -1);
  lua_pop(L, 1);
  size_t *gid = (size_t *)lua_newuserdatauv(L, (t->nrows ? t->nrows : 1) * sizeof *gid, 0);
  size_t *first = NULL;
  size_t ng = pl_table_group_ids(t, g->keys, (size_t)g->nkeys, gid, &first);
  free(first);
  if (res->nrows != ng)
    return luaL_error(L, "broadcast: table '%s' has %d rows for %d groups", res->name, (int)res->nrows, (int)ng);
  pl_table *r = pl_table_take(res, gid, t->nrows);
  pl_l_derived_name(r, "broadcast", res);
  pl_l_pushtable(L, r);
  return 1;
}

static const luaL_Reg grp_methods[] = { { "agg", grp_agg }, { "broadcast", grp_broadcast }, { NULL, NULL } };

static const luaL_Reg funcs[] = {
  { "from_rows", tbl_from_rows }, { "from_columns", tbl_from_columns }, { "concat", tbl_concat }, { NULL, NULL }
};

/* [v] -> [v b] */
static int is_table(lua_State *L) {
  lua_pushboolean(L, pl_l_totable(L, 1) != NULL);
  return 1;
}

/* The Table objects at idx: a Table, or a Lua table of them (its values,
** one level: a profile's `tables`).  Counts them, and stores them in ts
** when it is not NULL. */
static size_t memory_collect(lua_State *L, int idx, pl_table **ts, size_t n) {
  pl_table *t = pl_l_totable(L, idx);
  if (t) {
    if (ts) ts[n] = t;
    return n + 1;
  }
  luaL_argexpected(L, lua_istable(L, idx), idx, "a Table or a Lua table of Tables");
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    t = pl_l_totable(L, -1);
    luaL_argexpected(L, t != NULL, idx, "a Lua table whose values are Tables");
    if (ts) ts[n] = t;
    n++;
    lua_pop(L, 1);
  }
  return n;
}

/* perflab.table.memory(t, ...) -> bytes of C memory the tables hold
** together (shared buffers and pools counted once).
** [t ...] -> [t ... n] */
static int tbl_memory(lua_State *L) {
  int top = lua_gettop(L);
  size_t n = 0;
  for (int a = 1; a <= top; a++) n = memory_collect(L, a, NULL, n);
  pl_table **ts = (pl_table **)lua_newuserdatauv(L, (n ? n : 1) * sizeof *ts, 0);
  size_t k = 0;
  for (int a = 1; a <= top; a++) k = memory_collect(L, a, ts, k);
  lua_pushinteger(L, (lua_Integer)pl_tables_memory((const pl_table *const *)ts, k));
  return 1;
}

/* [...] -> [... module]  (registers the metatables) */
int luaopen_perflab_table(lua_State *L) {
  if (luaL_newmetatable(L, PL_TABLE_T)) {
    luaL_setfuncs(L, tbl_meta, 0);
    luaL_newlib(L, tbl_methods);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "perflab.Table");
    lua_setfield(L, -2, "__name");
  }
  lua_pop(L, 1);
  if (luaL_newmetatable(L, PL_GROUP_T)) {
    luaL_newlib(L, grp_methods);
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
  luaL_newlib(L, funcs);
  lua_pushcfunction(L, is_table);
  lua_setfield(L, -2, "is_table");
  lua_pushcfunction(L, tbl_memory);
  lua_setfield(L, -2, "memory");
  pl_l_column_open(L, -1);
  return 1;
}

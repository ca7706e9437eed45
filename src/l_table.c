/*
** l_table.c -- Lua module 'perflab.table': the columnar table engine of the
** core as userdata.  This file binds the table object ("perflab.Table",
** owning a pl_table): the constructors (from_rows, from_columns, concat),
** the accessors, the calls that change t in place, the writers (CSV, JSON,
** text), and the module's opener.  The methods that make a new table from
** t's rows are in l_table_ops.c, the Grouping object in l_grouping.c, the
** Column methods in l_column.c; the plumbing they share in lbind.c.  Heavy
** work (sort, top-k, group-by, join, writers) runs in C.
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

/* ---- small helpers ----------------------------------------------------- */

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
    pl_l_sort_names(L, names, n);
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
  if (!hasorder) pl_l_sort_names(L, names, n);
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
      pl_l_call_row(L, 3, t, what, i);
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
                                        { "add_column", tbl_add_column },
                                        { "drop", tbl_drop },
                                        { "rename", tbl_rename },
                                        { "copy", tbl_copy },
                                        { "group_by", pl_l_tbl_group_by },
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
                                        { "with", tbl_with },
                                        { NULL, NULL } };

static const luaL_Reg tbl_meta[] = { { "__gc", tbl_release },
                                     { "__close", tbl_release },
                                     { "__tostring", tbl_tostring },
                                     { "__len", tbl_len },
                                     { NULL, NULL } };

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
    lua_createtable(L, 0, 48); /* the methods: these, l_table_ops.c's */
    luaL_setfuncs(L, tbl_methods, 0);
    pl_l_table_ops_open(L);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "perflab.Table");
    lua_setfield(L, -2, "__name");
  }
  lua_pop(L, 1);
  pl_l_grouping_open(L);
  luaL_newlib(L, funcs);
  lua_pushcfunction(L, is_table);
  lua_setfield(L, -2, "is_table");
  lua_pushcfunction(L, tbl_memory);
  lua_setfield(L, -2, "memory");
  pl_l_column_open(L, -1);
  return 1;
}

/*
** lbind.c -- the userdata plumbing every binding file shares (lbind.h):
** table and column objects (push, check, make writable), cells and rows
** to and from Lua values, column names in errors, sort keys, masks,
** operands and number arrays, key names in order, row callbacks, and the
** time, value and row-mask readers of the interval bindings.  No Lua
** module lives here: l_table.c, l_table_ops.c and l_grouping.c bind the
** Table and Grouping methods, l_column.c the Column methods, and the other
** l_*.c files take tables and columns through these functions.
*/
#include "lbind.h"

#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- table objects ------------------------------------------------------ */

pl_table *pl_l_totable(lua_State *L, int arg) {
  pl_ltable *u = (pl_ltable *)luaL_testudata(L, arg, PL_TABLE_T);
  return u ? u->t : NULL;
}

pl_table *pl_l_checktable(lua_State *L, int arg) {
  pl_ltable *u = (pl_ltable *)luaL_checkudata(L, arg, PL_TABLE_T);
  luaL_argcheck(L, u->t != NULL, arg, "table already closed");
  return u->t;
}

/* (light t) -> [T]: the object, created closed, then given t.
** [t*] -> [t* T] */
static int pushtable_p(lua_State *L) {
  pl_table *t = (pl_table *)lua_touserdata(L, 1);
  pl_ltable *u = (pl_ltable *)lua_newuserdatauv(L, sizeof *u, 0); /* [t T] */
  u->t = NULL;
  u->frozen = 0;
  luaL_setmetatable(L, PL_TABLE_T);
  u->t = t;
  return 1;
}

/* [...] -> [... T].  Built in a protected call: if making the object fails
** (no memory), t is freed and the error raised again, so the caller's
** table is never lost. */
void pl_l_pushtable(lua_State *L, pl_table *t) {
  size_t bytes = 0; /* what t holds in C memory */
  for (size_t j = 0; j < t->ncols; j++) {
    const pl_column *c = t->cols[j];
    bytes += c->cap * (c->type == PL_BOOL ? 1 : c->type == PL_STR ? 4 : 8);
  }
  lua_pushcfunction(L, pushtable_p); /* light C function: no allocation */
  lua_pushlightuserdata(L, t);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) { /* [... err] */
    pl_table_free(t);
    lua_error(L);
  } /* [... T] */
  /* The object is a few bytes of userdata to Lua's collector, which paces
  ** itself by what it allocates: tell it of the columns too, so that the
  ** tables a chain of column expressions leaves behind are collected at
  ** the pace of the memory they hold, not only at the next full cycle. */
  if (bytes >= 65536) lua_gc(L, LUA_GCSTEP, (int)(bytes / 1024 > INT_MAX ? INT_MAX : bytes / 1024));
}

pl_table *pl_l_writable(lua_State *L, int arg) {
  pl_ltable *u = (pl_ltable *)luaL_checkudata(L, arg, PL_TABLE_T);
  luaL_argcheck(L, u->t != NULL, arg, "table already closed");
  if (!u->frozen) return u->t;
  pl_table *c = pl_table_copy(u->t);
  pl_l_pushtable(L, c);
  lua_replace(L, arg);
  return c;
}

void pl_l_derived_name(pl_table *r, const char *op, const pl_table *src) {
  size_t n = strlen(op) + strlen(src->name) + 3;
  char *nm = pl_xmalloc(n);
  snprintf(nm, n, "%s(%s)", op, src->name);
  free(r->name);
  r->name = nm;
}

/* ---- column objects ----------------------------------------------------- */

pl_lcolumn *pl_l_checkcolumn(lua_State *L, int arg) { return (pl_lcolumn *)luaL_checkudata(L, arg, PL_COLUMN_T); }

void pl_l_pushcolumn(lua_State *L, int tidx, int col) {
  tidx = lua_absindex(L, tidx);
  pl_table *t = pl_l_checktable(L, tidx);
  pl_lcolumn *u = (pl_lcolumn *)lua_newuserdatauv(L, sizeof *u, 1); /* [... C] */
  u->t = t;
  u->col = col;
  luaL_setmetatable(L, PL_COLUMN_T);
  lua_pushvalue(L, tidx);      /* [... C T] */
  lua_setiuservalue(L, -2, 1); /* [... C]: C's user value keeps T alive */
}

/* Pushes a column object over column 0 of r (a new table, owned from here). */
void pl_l_pushresult(lua_State *L, pl_table *r) {
  pl_l_pushtable(L, r);
  pl_l_pushcolumn(L, -1, 0);
  lua_remove(L, -2);
}

/* The value at idx as an operand: a column, number, string or boolean. */
void pl_l_tooperand(lua_State *L, int idx, pl_operand *op) {
  memset(op, 0, sizeof *op);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, idx, PL_COLUMN_T);
  if (c) {
    op->t = c->t;
    op->col = c->col;
    return;
  }
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) {
        op->type = PL_INT;
        op->i = (int64_t)lua_tointeger(L, idx);
      } else {
        op->type = PL_NUM;
        op->d = lua_tonumber(L, idx);
      }
      return;
    case LUA_TSTRING:
      op->type = PL_STR;
      op->s = lua_tolstring(L, idx, &op->slen);
      return;
    case LUA_TBOOLEAN:
      op->type = PL_BOOL;
      op->i = lua_toboolean(L, idx);
      return;
    case LUA_TNIL:
      op->type = PL_NUM;
      op->d = NAN;
      return;
    default: luaL_typeerror(L, idx, "column, number, string or boolean");
  }
}

/* A one-column table of the values of the Lua array at idx. */
pl_table *pl_l_arraytable(lua_State *L, int idx, const char *name) {
  size_t n = (size_t)luaL_len(L, idx);
  pl_type ty = PL_NUM;
  int seen = 0;
  for (size_t i = 1; i <= n; i++) {
    lua_geti(L, idx, (lua_Integer)i);
    ty = pl_l_infer_type(L, -1, ty, &seen);
    lua_pop(L, 1);
  }
  pl_table *t = pl_table_new(name);
  pl_l_pushtable(L, t); /* freed by the collector */
  pl_table_add_col(t, name, ty);
  for (size_t i = 1; i <= n; i++) {
    lua_geti(L, idx, (lua_Integer)i);
    pl_l_putvalue(L, t, 0, -1);
    lua_pop(L, 1);
    pl_row_end(t);
  }
  return t;
}

const pl_column *pl_l_checkmask(lua_State *L, int arg, size_t n, const char *fn) {
  pl_lcolumn *m = (pl_lcolumn *)luaL_testudata(L, arg, PL_COLUMN_T);
  if (m == NULL) luaL_error(L, "%s: expected a boolean column (a mask), got %s", fn, luaL_typename(L, arg));
  const pl_column *c = m->t->cols[m->col];
  if (c->type != PL_BOOL)
    luaL_error(L, "%s: expected a boolean column (a mask), got column '%s' of %s", fn, c->name, pl_type_name(c->type));
  if (m->t->nrows != n) luaL_error(L, "%s: the mask has %d rows, the table %d", fn, (int)m->t->nrows, (int)n);
  return c;
}

/* ---- cells, rows and values -------------------------------------------- */

/* Pushes "no column 'NAME' in table 'T' (columns: a, b, ...)"; returns it. */
const char *pl_l_push_nocol(lua_State *L, const pl_table *t, const char *name) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (size_t i = 0; i < t->ncols && i < 40; i++) {
    if (i) luaL_addstring(&b, ", ");
    luaL_addstring(&b, t->cols[i]->name);
  }
  if (t->ncols > 40) luaL_addstring(&b, ", ...");
  luaL_pushresult(&b);
  const char *msg = lua_pushfstring(L, "no column '%s' in table '%s' (columns: %s)", name, t->name,
                                    t->ncols ? lua_tostring(L, -1) : "none");
  lua_remove(L, -2);
  return msg;
}

int pl_l_checkcol(lua_State *L, pl_table *t, int arg) {
  const char *name = luaL_checkstring(L, arg);
  int c = pl_table_col(t, name);
  if (c < 0) return luaL_argerror(L, arg, pl_l_push_nocol(L, t, name));
  return c;
}

void pl_l_pushcell(lua_State *L, const pl_table *t, int col, size_t row) {
  const pl_column *c = t->cols[col];
  if (pl_cell_missing(t, col, row)) {
    lua_pushnil(L);
    return;
  }
  switch (c->type) {
    case PL_NUM: lua_pushnumber(L, c->v.num[row]); break;
    case PL_INT: lua_pushinteger(L, (lua_Integer)c->v.i64[row]); break;
    case PL_BOOL: lua_pushboolean(L, c->v.b[row] != 0); break;
    case PL_STR: {
      size_t n;
      const char *s = pl_pool_str(t->pool, c->v.str[row], &n);
      lua_pushlstring(L, s, n);
      break;
    }
  }
}

void pl_l_pushrow(lua_State *L, const pl_table *t, size_t row) {
  lua_createtable(L, 0, (int)t->ncols);
  for (size_t j = 0; j < t->ncols; j++) {
    pl_l_pushcell(L, t, (int)j, row);
    lua_setfield(L, -2, t->cols[j]->name);
  }
}

/* Puts the Lua value at idx into the row being built. */
void pl_l_putvalue(lua_State *L, pl_table *t, int col, int idx) {
  int ty = lua_type(L, idx);
  if (ty == LUA_TNIL) return;
  switch (t->cols[col]->type) {
    case PL_NUM: pl_row_put_num(t, col, lua_tonumber(L, idx)); break;
    case PL_INT:
      if (lua_isinteger(L, idx)) pl_row_put_int(t, col, (int64_t)lua_tointeger(L, idx));
      else pl_row_put_num(t, col, lua_tonumber(L, idx));
      break;
    case PL_BOOL: pl_row_put_bool(t, col, lua_toboolean(L, idx)); break;
    case PL_STR: {
      size_t n;
      const char *s = luaL_tolstring(L, idx, &n);
      pl_row_put_str(t, col, s, n);
      lua_pop(L, 1);
      break;
    }
  }
}

/* The column type a set of Lua values needs: integers stay int64, any
** float makes a number column, any string a string column. */
pl_type pl_l_infer_type(lua_State *L, int idx, pl_type cur, int *seen) {
  int ty = lua_type(L, idx);
  pl_type t;
  if (ty == LUA_TNIL) return cur;
  if (ty == LUA_TBOOLEAN) t = PL_BOOL;
  else if (ty == LUA_TNUMBER) t = lua_isinteger(L, idx) ? PL_INT : PL_NUM;
  else t = PL_STR;
  if (!*seen) {
    *seen = 1;
    return t;
  }
  if (cur == t) return cur;
  if ((cur == PL_INT && t == PL_NUM) || (cur == PL_NUM && t == PL_INT)) return PL_NUM;
  return PL_STR;
}

/* Sort keys: "col" ascending, "-col" descending, or {"col", desc=true}. */
size_t pl_l_read_sortkeys(lua_State *L, pl_table *t, int first, int last, pl_sortkey *keys, size_t max) {
  size_t n = 0;
  for (int a = first; a <= last && n < max; a++) {
    const char *name;
    int desc = 0;
    if (lua_istable(L, a)) {
      lua_geti(L, a, 1);
      name = luaL_checkstring(L, -1);
      lua_getfield(L, a, "desc");
      desc = lua_toboolean(L, -1);
      lua_pop(L, 2);
    } else {
      name = luaL_checkstring(L, a);
      if (name[0] == '-') {
        desc = 1;
        name++;
      }
    }
    int c = pl_table_col(t, name);
    if (c < 0) return (size_t)luaL_argerror(L, a, pl_l_push_nocol(L, t, name));
    keys[n].col = c;
    keys[n].desc = desc;
    n++;
  }
  return n;
}

/* ---- names in order, and callbacks per row (Table and Grouping) -------- */

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

void pl_l_sort_names(lua_State *L, int idx, int n) {
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

/* __index of the row proxy below: notes the column read last.
** [proxy k] -> [proxy k v]  (upvalues: the row, the box) */
static int proxy_index(lua_State *L) {
  lua_pushvalue(L, 2);
  lua_setfield(L, lua_upvalueindex(2), "last");
  lua_pushvalue(L, 2);
  lua_gettable(L, lua_upvalueindex(1));
  return 1;
}

void pl_l_call_row(lua_State *L, int fnidx, const pl_table *t, const char *what, size_t row) {
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

double *pl_l_checknumbers(lua_State *L, int arg, size_t *n, int nan_omit) {
  const char *fname = "?";
  lua_Debug ar;
  if (lua_getstack(L, 0, &ar)) {
    lua_getinfo(L, "n", &ar);
    if (ar.name) fname = ar.name;
  }
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, arg, PL_COLUMN_T);
  size_t len;
  if (c) {
    if (c->t->cols[c->col]->type == PL_STR)
      luaL_argerror(L, arg, lua_pushfstring(L, "column '%s' holds strings, not numbers", c->t->cols[c->col]->name));
    len = c->t->nrows;
  } else {
    if (!lua_istable(L, arg)) luaL_typeerror(L, arg, "array of numbers or column");
    len = (size_t)luaL_len(L, arg);
  }
  double *x = (double *)lua_newuserdatauv(L, (len ? len : 1) * sizeof *x, 0);
  size_t m = 0;
  for (size_t i = 0; i < len; i++) {
    double v;
    if (c) v = pl_cell_num(c->t, c->col, i);
    else {
      lua_geti(L, arg, (lua_Integer)i + 1);
      if (!lua_isnumber(L, -1) || lua_type(L, -1) == LUA_TSTRING) {
        if (lua_isnil(L, -1)) v = NAN;
        else {
          luaL_argerror(L, arg,
                        lua_pushfstring(L, "element %d is a %s, not a number", (int)i + 1, luaL_typename(L, -1)));
          v = 0;
        }
      } else v = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    if (isnan(v)) {
      if (nan_omit) continue;
      luaL_argerror(L, arg,
                    lua_pushfstring(L, "missing value (NaN) at index %d; pass {nan = \"omit\"} to skip", (int)i + 1));
    }
    x[m++] = v;
  }
  if (m == 0) luaL_argerror(L, arg, "empty input");
  (void)fname;
  *n = m;
  return x;
}

/* ---- times, values and row masks (perflab.intervals) ------------------- */

int64_t pl_l_roundts(lua_State *L, int arg, const char *what, size_t i, lua_Number nv) {
  if (!(nv >= -9.2233720368547748e18 && nv < 9.2233720368547748e18))
    luaL_argerror(L, arg, lua_pushfstring(L, "%s %d is not a finite time", what, (int)i + 1));
  return (int64_t)llround(nv);
}

int64_t *pl_l_checktimes(lua_State *L, int arg, size_t limit, size_t *n) {
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, arg, PL_COLUMN_T);
  size_t len;
  if (c) {
    if (c->t->cols[c->col]->type == PL_STR) luaL_argerror(L, arg, "column holds strings, not times");
    len = c->t->nrows;
  } else {
    if (!lua_istable(L, arg)) luaL_typeerror(L, arg, "array of numbers or column");
    len = (size_t)luaL_len(L, arg);
  }
  if (len > limit) len = limit;
  int64_t *v = lua_newuserdatauv(L, (len ? len : 1) * sizeof *v, 0);
  for (size_t i = 0; i < len; i++) {
    if (c) {
      if (pl_cell_missing(c->t, c->col, i))
        luaL_argerror(L, arg, lua_pushfstring(L, "missing value at index %d", (int)i + 1));
      if (c->t->cols[c->col]->type == PL_INT) v[i] = pl_cell_int(c->t, c->col, i);
      else v[i] = pl_l_roundts(L, arg, "element", i, pl_cell_num(c->t, c->col, i));
    } else {
      lua_geti(L, arg, (lua_Integer)i + 1);
      if (lua_isinteger(L, -1)) v[i] = (int64_t)lua_tointeger(L, -1);
      else if (lua_type(L, -1) == LUA_TNUMBER) v[i] = pl_l_roundts(L, arg, "element", i, lua_tonumber(L, -1));
      else if (lua_isnil(L, -1)) luaL_argerror(L, arg, lua_pushfstring(L, "missing value at index %d", (int)i + 1));
      else
        luaL_argerror(L, arg, lua_pushfstring(L, "element %d is a %s, not a number", (int)i + 1, luaL_typename(L, -1)));
      lua_pop(L, 1);
    }
  }
  *n = len;
  return v;
}

int64_t pl_l_checktime(lua_State *L, int arg) {
  if (lua_isinteger(L, arg)) return (int64_t)lua_tointeger(L, arg);
  lua_Number v = luaL_checknumber(L, arg);
  return pl_l_roundts(L, arg, "argument", (size_t)arg - 1, v);
}

/* ---- tables and columns ------------------------------------------------- */

void pl_l_readvals(lua_State *L, int arg, size_t n, int64_t **iv, double **dv, unsigned char **miss) {
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, arg, PL_COLUMN_T);
  if (!c && !lua_istable(L, arg)) luaL_typeerror(L, arg, "array of numbers or column");
  if (c && c->t->cols[c->col]->type == PL_STR)
    luaL_argerror(L, arg, lua_pushfstring(L, "column '%s' holds strings, not numbers", c->t->cols[c->col]->name));
  size_t len = c ? c->t->nrows : n; /* an array is read to n: nil holes */
  *miss = lua_newuserdatauv(L, n ? n : 1, 0);
  if (iv) *iv = lua_newuserdatauv(L, (n ? n : 1) * sizeof **iv, 0);
  if (dv) *dv = lua_newuserdatauv(L, (n ? n : 1) * sizeof **dv, 0);
  if (c && c->t->cols[c->col]->type == PL_INT && len >= n) { /* int64 column: read directly */
    const int64_t *x = c->t->cols[c->col]->v.i64;
    for (size_t i = 0; i < n; i++) {
      int m = x[i] == PL_INT_NA;
      (*miss)[i] = (unsigned char)m;
      if (iv) (*iv)[i] = m ? 0 : x[i];
      if (dv) (*dv)[i] = m ? 0 : (double)x[i];
    }
    return;
  }
  for (size_t i = 0; i < n; i++) {
    int m = 1, isint = 0;
    int64_t x = 0;
    double d = 0;
    if (i < len && c) {
      if (!pl_cell_missing(c->t, c->col, i)) {
        m = 0;
        if (c->t->cols[c->col]->type == PL_NUM) d = pl_cell_num(c->t, c->col, i);
        else {
          x = pl_cell_int(c->t, c->col, i);
          isint = 1;
        }
      }
    } else if (i < len) {
      lua_geti(L, arg, (lua_Integer)i + 1);
      if (lua_isinteger(L, -1)) {
        x = (int64_t)lua_tointeger(L, -1);
        isint = 1;
        m = 0;
      } else if (lua_type(L, -1) == LUA_TNUMBER) {
        d = lua_tonumber(L, -1);
        m = 0;
      } else if (!lua_isnil(L, -1))
        luaL_argerror(L, arg, lua_pushfstring(L, "element %d is a %s, not a number", (int)i + 1, luaL_typename(L, -1)));
      lua_pop(L, 1);
    }
    if (!m && !isint && d != d) m = 1; /* NaN: missing */
    (*miss)[i] = (unsigned char)m;
    if (iv) (*iv)[i] = m ? 0 : isint ? x : pl_l_roundts(L, arg, "element", i, d);
    if (dv) (*dv)[i] = m ? 0 : isint ? (double)x : d;
  }
}

int pl_l_argcol(lua_State *L, pl_table *t, const char *name, int arg) {
  int c = pl_table_col(t, name);
  if (c < 0) luaL_argerror(L, arg, lua_pushfstring(L, "no column '%s' in table '%s'", name, t->name ? t->name : "?"));
  return c;
}

void pl_l_pushindex(lua_State *L, const char *name, const int64_t *v, size_t n) {
  pl_table *t = pl_table_new(name);
  int c = pl_table_add_col(t, "index", PL_INT);
  pl_table_reserve(t, n);
  for (size_t i = 0; i < n; i++) {
    pl_cell x;
    x.i = v[i] < 0 ? PL_INT_NA : v[i] + 1;
    pl_table_append(t, &x);
  }
  pl_l_pushtable(L, t);
  pl_l_pushcolumn(L, -1, c);
  lua_remove(L, -2);
}

/* opts.where as skip flags for n rows: a boolean column (or an array of
** booleans) that keeps the rows where it is true, or a function(row) that
** keeps the rows where it returns a true value.  NULL when absent. */
static unsigned char *keep_all(lua_State *L, size_t n) {
  unsigned char *skip = lua_newuserdatauv(L, n ? n : 1, 0);
  memset(skip, 0, n ? n : 1);
  return skip;
}

unsigned char *pl_l_rowmask(lua_State *L, int opts, const char *field, size_t n) {
  if (opts == 0 || !lua_istable(L, opts)) return keep_all(L, n);
  lua_getfield(L, opts, field);
  int w = lua_gettop(L);
  if (lua_isnil(L, w)) {
    lua_pop(L, 1);
    return keep_all(L, n);
  }
  unsigned char *skip = lua_newuserdatauv(L, n ? n : 1, 0);
  lua_insert(L, w); /* box below the value */
  w = lua_gettop(L);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, w, PL_COLUMN_T);
  if (c) {
    if (c->t->cols[c->col]->type != PL_BOOL || c->t->nrows != n)
      luaL_error(L, "%s: a boolean column of %d rows expected, found a %s column of %d rows", field, (int)n,
                 pl_type_name(c->t->cols[c->col]->type), (int)c->t->nrows);
    const uint8_t *b = c->t->cols[c->col]->v.b; /* 0, 1 or PL_BOOL_NA: only 1 keeps */
    for (size_t i = 0; i < n; i++) skip[i] = b[i] != 1;
  } else if (lua_isfunction(L, w)) {
    for (size_t i = 0; i < n; i++) {
      lua_pushvalue(L, w);
      lua_pushinteger(L, (lua_Integer)i + 1);
      lua_call(L, 1, 1);
      skip[i] = !lua_toboolean(L, -1);
      lua_pop(L, 1);
    }
  } else if (lua_istable(L, w)) {
    for (size_t i = 0; i < n; i++) {
      lua_geti(L, w, (lua_Integer)i + 1);
      skip[i] = !lua_toboolean(L, -1);
      lua_pop(L, 1);
    }
  } else {
    luaL_error(L, "%s: a boolean column, an array of booleans or a function expected, found a %s", field,
               luaL_typename(L, w));
  }
  lua_pop(L, 1); /* the value; the box stays */
  return skip;
}

void pl_l_rowtimes(lua_State *L, pl_table *t, int tix, const char *scol, const char *ecol, int isdur, int64_t **s,
                   int64_t **e, unsigned char *skip, int point_ok) {
  size_t n = t->nrows;
  unsigned char *ms, *me;
  int sc = pl_l_argcol(L, t, scol, 2), ec = pl_l_argcol(L, t, ecol, 2);
  pl_l_pushcolumn(L, tix, sc);
  pl_l_readvals(L, -1, n, s, NULL, &ms);
  lua_remove(L, -3);
  pl_l_pushcolumn(L, tix, ec);
  pl_l_readvals(L, -1, n, e, NULL, &me);
  lua_remove(L, -3);
  for (size_t i = 0; i < n; i++) {
    if (ms[i]) {
      skip[i] = 1;
      continue;
    }
    if (me[i]) {
      if (point_ok) (*e)[i] = (*s)[i];
      else skip[i] = 1;
    } else if (isdur) (*e)[i] = (*s)[i] + (*e)[i];
  }
}

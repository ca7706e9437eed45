/*
** l_intervals.c -- the Lua module perflab.intervals over
** src/core/intervals.c.  A set is userdata "perflab.IntervalSet" holding
** half-open [start, end) intervals on integer nanoseconds, always
** normalised (sorted, overlapping and touching intervals merged, empty
** ones dropped).  Lua integers are taken exactly; floats are rounded to
** the nearest integer; int64 columns are read without going through doubles.
**
**   I.from_arrays(starts, ends [, n] [, {strict = true}]) / I.empty()
**   I.from_pairs({{s, e}, ...} [, {strict = true}])
** A pair with end <= start is empty and dropped; with strict = true an end
** before its start raises instead.
**   set:union(o) set:intersect(o) set:subtract(o)   also  a + b, a * b, a - b
**   set:clip(lo, hi)  set:gaps([lo, hi])  set:length()  set:count()  #set
**   set:contains(t)   set:find(t)  set:get(i) -> s, e
**   for s, e in set:iter() do ... end
**   set:to_lua() -> {{s, e}, ...}      set:to_arrays() / I.to_arrays(set) -> starts, ends
**   I.from_table(t, start_col, end_col [, {duration = true, by = col, where = mask}])
**   set:locate(points) -> integer column   set:length_within(lo, hi)
**   I.innermost(ops, queries [, {start, duration | stop, by, where, query_where}])
**   I.parents(ops [, {start, duration | stop, by, where}]) -> integer column
**   I.sum_within(windows, points [, {start, duration | stop, at, by, values, where, point_where}])
**   I.step_integral(starts, ends, values [, {cap, lo, hi, n}])
**   I.series_windows(ts, te, values, starts, ends) -> area, cov, at
**   I.first_window(wstarts, wends, starts, ends) -> integer column
** (docs/intervals.md has the whole contract.)
*/
#include "lbind.h"
#include "intervals.h"
#include "steplevels.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PL_IVSET_T "perflab.IntervalSet"

typedef struct liv {
  pl_ivset set;
} liv;

static pl_ivset *checkset(lua_State *L, int arg) { return &((liv *)luaL_checkudata(L, arg, PL_IVSET_T))->set; }

/* A new empty userdata set on the stack. */
static pl_ivset *newset(lua_State *L) {
  liv *u = lua_newuserdatauv(L, sizeof *u, 0);
  pl_iv_init(&u->set);
  luaL_setmetatable(L, PL_IVSET_T);
  return &u->set;
}

static int64_t checkts(lua_State *L, int arg, const char *what, size_t i, int isnum, lua_Integer iv, lua_Number nv) {
  if (isnum == 1) return (int64_t)iv;
  if (!(nv >= -9.2233720368547748e18 && nv < 9.2233720368547748e18))
    luaL_argerror(L, arg, lua_pushfstring(L, "%s %d is not a finite time", what, (int)i + 1));
  return (int64_t)llround(nv);
}

/* int64 values of an array or column at arg (at most limit of them). */
static int64_t *checktimes(lua_State *L, int arg, size_t limit, size_t *n) {
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
      else v[i] = checkts(L, arg, "element", i, 0, 0, pl_cell_num(c->t, c->col, i));
    } else {
      lua_geti(L, arg, (lua_Integer)i + 1);
      if (lua_isinteger(L, -1)) v[i] = (int64_t)lua_tointeger(L, -1);
      else if (lua_type(L, -1) == LUA_TNUMBER) v[i] = checkts(L, arg, "element", i, 0, 0, lua_tonumber(L, -1));
      else if (lua_isnil(L, -1)) luaL_argerror(L, arg, lua_pushfstring(L, "missing value at index %d", (int)i + 1));
      else
        luaL_argerror(L, arg, lua_pushfstring(L, "element %d is a %s, not a number", (int)i + 1, luaL_typename(L, -1)));
      lua_pop(L, 1);
    }
  }
  *n = len;
  return v;
}

static int64_t checktime(lua_State *L, int arg) {
  if (lua_isinteger(L, arg)) return (int64_t)lua_tointeger(L, arg);
  lua_Number v = luaL_checknumber(L, arg);
  return checkts(L, arg, "argument", (size_t)arg - 1, 0, 0, v);
}

static void build(lua_State *L, pl_ivset *out, const int64_t *s, const int64_t *e, size_t n, int strict, int arg_end) {
  size_t bad = 0;
  pl_ivset tmp;
  if (pl_iv_build(&tmp, s, e, n, strict, &bad) != 0)
    luaL_argerror(L, arg_end,
                  lua_pushfstring(L, "end %I before start %I at index %d", (lua_Integer)e[bad], (lua_Integer)s[bad],
                                  (int)bad + 1));
  *out = tmp;
}

/* Options {strict = true}: an end before its start is an error (by
** default such a pair, like a zero-length one, is the empty set). */
static int opt_strict(lua_State *L, int arg) {
  static const char *const accepted[] = { "strict", NULL };
  if (lua_isnoneornil(L, arg)) return 0;
  luaL_checktype(L, arg, LUA_TTABLE);
  pl_l_checkoptions(L, arg, accepted);
  lua_getfield(L, arg, "strict");
  int v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* [starts ends [n] [opts]] -> [starts ends n opts S] */
static int l_from_arrays(lua_State *L) {
  lua_settop(L, 4);
  size_t limit = (size_t)-1;
  int optarg = 4;
  if (lua_istable(L, 3)) {
    lua_settop(L, 3);
    lua_pushnil(L);
    lua_insert(L, 3);
  } /* (s, e, opts) */
  if (!lua_isnil(L, 3)) {
    lua_Integer n = luaL_checkinteger(L, 3);
    luaL_argcheck(L, n >= 0, 3, "count must be >= 0");
    limit = (size_t)n;
  }
  int strict = opt_strict(L, optarg);
  size_t ns, ne;
  int64_t *s = checktimes(L, 1, limit, &ns);
  int64_t *e = checktimes(L, 2, limit, &ne);
  if (ns != ne) luaL_argerror(L, 2, lua_pushfstring(L, "%d ends for %d starts", (int)ne, (int)ns));
  pl_ivset *out = newset(L);
  build(L, out, s, e, ns, strict, 2);
  return 1;
}

/* [pairs [opts]] -> [pairs opts ... S] */
static int l_from_pairs(lua_State *L) {
  lua_settop(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  int strict = opt_strict(L, 2);
  size_t n = (size_t)luaL_len(L, 1);
  int64_t *s = lua_newuserdatauv(L, (n ? n : 1) * 2 * sizeof *s, 0), *e = s + (n ? n : 1);
  for (size_t i = 0; i < n; i++) {
    lua_geti(L, 1, (lua_Integer)i + 1);
    if (!lua_istable(L, -1))
      luaL_argerror(L, 1, lua_pushfstring(L, "element %d is not a {start, end} pair", (int)i + 1));
    for (int k = 0; k < 2; k++) {
      lua_geti(L, -1, k + 1);
      if (lua_isinteger(L, -1)) (k ? e : s)[i] = (int64_t)lua_tointeger(L, -1);
      else if (lua_type(L, -1) == LUA_TNUMBER) (k ? e : s)[i] = checkts(L, 1, "element", i, 0, 0, lua_tonumber(L, -1));
      else luaL_argerror(L, 1, lua_pushfstring(L, "element %d is not a {start, end} pair", (int)i + 1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  pl_ivset *out = newset(L);
  build(L, out, s, e, n, strict, 1);
  return 1;
}

/* [] -> [S] */
static int l_empty(lua_State *L) {
  newset(L);
  return 1;
}


/* ---- tables and columns ------------------------------------------------- */

/* Values of a source at arg: a column object or a Lua array (nil holes
** allowed), read as int64 times (iv) or doubles (dv), with miss[i] = 1 for
** a missing value; n values (a column shorter than n is missing beyond its
** end; an array is read at 1..n, nil is missing).  The arrays are boxes pushed on the stack. */
static void readvals(lua_State *L, int arg, size_t n, int64_t **iv, double **dv, unsigned char **miss) {
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
    if (iv) (*iv)[i] = m ? 0 : isint ? x : checkts(L, arg, "element", i, 0, 0, d);
    if (dv) (*dv)[i] = m ? 0 : isint ? (double)x : d;
  }
}

/* The index of column name of t; an argument error at arg naming the column and table when it has none. */
static int tcol(lua_State *L, pl_table *t, const char *name, int arg) {
  int c = pl_table_col(t, name);
  if (c < 0) luaL_argerror(L, arg, lua_pushfstring(L, "no column '%s' in table '%s'", name, t->name ? t->name : "?"));
  return c;
}

/* Pushes the column object for column c of the table object at index tix. */
static void pushcol(lua_State *L, int tix, pl_table *t, int c) {
  tix = lua_absindex(L, tix);
  pl_lcolumn *u = (pl_lcolumn *)lua_newuserdatauv(L, sizeof *u, 1);
  u->t = t;
  u->col = c;
  luaL_setmetatable(L, PL_COLUMN_T);
  lua_pushvalue(L, tix);
  lua_setiuservalue(L, -2, 1);
}

/* Pushes a one-column integer table "name" holding 1-based v[i] + 1 (missing
** where v[i] < 0) and returns its column object in place of the table. */
static void pushindex(lua_State *L, const char *name, const int64_t *v, size_t n) {
  pl_table *t = pl_table_new(name);
  int c = pl_table_add_col(t, "index", PL_INT);
  pl_table_reserve(t, n);
  for (size_t i = 0; i < n; i++) {
    pl_cell x;
    x.i = v[i] < 0 ? PL_INT_NA : v[i] + 1;
    pl_table_append(t, &x);
  }
  pl_l_pushtable(L, t);
  pushcol(L, -1, t, c);
  lua_remove(L, -2);
}

/* opts.where as skip flags for n rows: a boolean column (or an array of
** booleans) that keeps the rows where it is true, or a function(row) that
** keeps the rows where it returns a true value.  NULL when absent. */
static unsigned char *wheremask(lua_State *L, int opts, const char *field, size_t n) {
  if (opts == 0 || !lua_istable(L, opts)) return NULL;
  lua_getfield(L, opts, field);
  int w = lua_gettop(L);
  if (lua_isnil(L, w)) {
    lua_pop(L, 1);
    return NULL;
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
    int c = tcol(L, t, luaL_checkstring(L, -1), opts);
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

/* Start and end times of the rows of t: opts.stop names an end column or
** opts.duration (default "duration_ns" when neither is given) a duration
** column; end = start + duration.  Rows with a missing start get skip[i];
** a missing end or duration gives skip[i] too unless point_ok, where the
** row is a point (end = start). */
static void rowtimes(lua_State *L, pl_table *t, int tix, const char *scol, const char *ecol, int isdur, int64_t **s,
                     int64_t **e, unsigned char *skip, int point_ok) {
  size_t n = t->nrows;
  unsigned char *ms, *me;
  int sc = tcol(L, t, scol, 2), ec = tcol(L, t, ecol, 2);
  pushcol(L, tix, t, sc);
  readvals(L, -1, n, s, NULL, &ms);
  lua_remove(L, -3);
  pushcol(L, tix, t, ec);
  readvals(L, -1, n, e, NULL, &me);
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

/* I.from_table(t, start_col, end_col [, {duration = true, by = col(s), where = mask}])
** One set of the rows' [start, end) (end_col holds durations with
** duration = true); rows with a missing start or end are left out, and so
** are the rows a where mask drops.  With by (one column): a Lua table
** value -> set, and second the values in the table engine's sort order
** (numbers ascending, strings bytewise); rows with no value are left out.
** [T scol ecol [opts]] -> [T scol ecol opts ... S]  |  with by: [... {key = S} {key...}] */
static int l_from_table(lua_State *L) {
  lua_settop(L, 4);
  pl_table *t = pl_l_checktable(L, 1);
  const char *scol = luaL_checkstring(L, 2), *ecol = luaL_checkstring(L, 3);
  int opts = lua_isnil(L, 4) ? 0 : 4;
  if (opts) luaL_checktype(L, 4, LUA_TTABLE);
  int isdur = 0;
  if (opts) {
    lua_getfield(L, 4, "duration");
    isdur = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  size_t n = t->nrows;
  unsigned char *skip = wheremask(L, opts, "where", n);
  if (!skip) {
    skip = lua_newuserdatauv(L, n ? n : 1, 0);
    memset(skip, 0, n ? n : 1);
  }
  const char *by = NULL;
  if (opts) {
    lua_getfield(L, 4, "by");
    by = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  if (!by) { /* int64 columns: only the rows kept are read */
    int sc = tcol(L, t, scol, 2), ec = tcol(L, t, ecol, 2);
    if (t->cols[sc]->type == PL_INT && t->cols[ec]->type == PL_INT) {
      const int64_t *sv = t->cols[sc]->v.i64, *ev = t->cols[ec]->v.i64;
      size_t m = 0;
      for (size_t i = 0; i < n; i++) m += !skip[i] && sv[i] != PL_INT_NA && ev[i] != PL_INT_NA;
      int64_t *S = lua_newuserdatauv(L, (m ? m : 1) * 2 * sizeof *S, 0), *E = S + (m ? m : 1);
      m = 0;
      for (size_t i = 0; i < n; i++)
        if (!skip[i] && sv[i] != PL_INT_NA && ev[i] != PL_INT_NA) {
          S[m] = sv[i];
          E[m] = isdur ? sv[i] + ev[i] : ev[i];
          m++;
        }
      pl_ivset *out = newset(L);
      build(L, out, S, E, m, 0, 3);
      return 1;
    }
  }
  int64_t *s, *e;
  rowtimes(L, t, 1, scol, ecol, isdur, &s, &e, skip, 0);
  if (!by) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (!skip[i]) {
        s[m] = s[i];
        e[m] = e[i];
        m++;
      }
    pl_ivset *out = newset(L);
    build(L, out, s, e, m, 0, 3);
    return 1;
  }
  int bc = tcol(L, t, by, 4);
  pl_column *col = t->cols[bc];
  /* order rows by key (stable), then one set per run of equal keys */
  pl_sortkey key = { bc, 0 };
  size_t *box =
      lua_newuserdatauv(L, (n ? n : 1) * sizeof *box, 0); /* before ord: nothing may raise while ord is held */
  size_t *ord = pl_table_order(t, &key, 1);
  if (n) memcpy(box, ord, n * sizeof *box);
  free(ord);
  lua_newtable(L); /* sets */
  int sets = lua_gettop(L);
  lua_newtable(L); /* keys, sorted */
  int keys = lua_gettop(L);
  int64_t *S = lua_newuserdatauv(L, (n ? n : 1) * 2 * sizeof *S, 0), *E = S + (n ? n : 1);
  size_t nk = 0;
  int base = lua_gettop(L); /* [... box sets keys S] */
  for (size_t a = 0; a < n;) {
    size_t r = box[a];
    if (pl_cell_missing(t, bc, r)) break; /* missing keys sort last */
    size_t b = a, m = 0;
    while (b < n && !pl_cell_missing(t, bc, box[b]) &&
           (col->type == PL_STR   ? col->v.str[box[b]] == col->v.str[r]
            : col->type == PL_NUM ? pl_cell_num(t, bc, box[b]) == pl_cell_num(t, bc, r)
                                  : pl_cell_int(t, bc, box[b]) == pl_cell_int(t, bc, r))) {
      size_t i = box[b++];
      if (!skip[i]) {
        S[m] = s[i];
        E[m] = e[i];
        m++;
      }
    }
    if (col->type == PL_STR) {
      size_t len;
      const char *str = pl_cell_str(t, bc, r, &len);
      lua_pushlstring(L, str, len);
    } else if (col->type == PL_NUM) lua_pushnumber(L, pl_cell_num(t, bc, r));
    else if (col->type == PL_BOOL) lua_pushboolean(L, pl_cell_int(t, bc, r) != 0);
    else lua_pushinteger(L, (lua_Integer)pl_cell_int(t, bc, r));
    lua_pushvalue(L, -1);
    lua_rawseti(L, keys, (lua_Integer)++nk);
    pl_ivset *out = newset(L); /* [... S key set] */
    build(L, out, S, E, m, 0, 3);
    lua_rawset(L, sets); /* sets[key] = set; [... S] */
    a = b;
    PL_L_BALANCE(L, base);
  }
  lua_pushvalue(L, sets);
  lua_pushvalue(L, keys);
  return 2;
}

/* set:locate(points) -> integer column: the 1-based index of the interval
** holding each point, missing where none does (or the point is missing).
** [S points] -> [S points ... I] */
static int m_locate(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 2, PL_COLUMN_T);
  size_t n = c ? c->t->nrows : (lua_istable(L, 2) ? (size_t)luaL_len(L, 2) : 0);
  int64_t *t;
  unsigned char *miss;
  readvals(L, 2, n, &t, NULL, &miss);
  int64_t *out = lua_newuserdatauv(L, (n ? n : 1) * sizeof *out, 0);
  size_t m = 0; /* the present points, packed */
  for (size_t i = 0; i < n; i++)
    if (!miss[i]) t[m++] = t[i];
  pl_iv_locate(a, t, m, out);
  for (size_t i = n, k = m; i-- > 0;) out[i] = miss[i] ? -1 : out[--k];
  pushindex(L, "locate", out, n);
  return 1;
}

/* [S lo hi] -> [S lo hi n] */
static int m_length_within(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  lua_pushinteger(L, (lua_Integer)pl_iv_length_within(a, checktime(L, 2), checktime(L, 3)));
  return 1;
}

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
  unsigned char *oskip = wheremask(L, opts, "where", n);
  if (!oskip) {
    oskip = lua_newuserdatauv(L, n ? n : 1, 0);
    memset(oskip, 0, n ? n : 1);
  }
  unsigned char *qskip = wheremask(L, opts, "query_where", m);
  if (!qskip) {
    qskip = lua_newuserdatauv(L, m ? m : 1, 0);
    memset(qskip, 0, m ? m : 1);
  }
  int64_t *os, *oe, *qs, *qe;
  rowtimes(L, ot, 1, scol, ecol, isdur, &os, &oe, oskip, 0);
  rowtimes(L, qt, 2, scol, ecol, isdur, &qs, &qe, qskip, 1);
  lua_newtable(L);
  int ctab = lua_gettop(L);
  int any;
  int64_t *og = groupcodes(L, ot, opts, ctab, oskip, &any);
  int64_t *qg = groupcodes(L, qt, opts, ctab, qskip, &any);
  int64_t *out = lua_newuserdatauv(L, (m ? m : 1) * sizeof *out, 0);
  pl_iv_innermost(os, oe, og, oskip, n, qs, qe, qg, qskip, m, out);
  pushindex(L, "innermost", out, m);
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
  pushcol(L, -1, t, c);
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
  unsigned char *oskip = wheremask(L, 3, "where", n);
  if (!oskip) {
    oskip = lua_newuserdatauv(L, n ? n : 1, 0);
    memset(oskip, 0, n ? n : 1);
  }
  unsigned char *qskip = wheremask(L, 3, "query_where", m);
  if (!qskip) {
    qskip = lua_newuserdatauv(L, m ? m : 1, 0);
    memset(qskip, 0, m ? m : 1);
  }
  int64_t *os, *oe, *qs, *qe, *qp;
  unsigned char *pm;
  rowtimes(L, ot, 1, os_, od_, 1, &os, &oe, oskip, 0);
  rowtimes(L, qt, 2, qs_, qe_, qdur, &qs, &qe, qskip, 0);
  pushcol(L, 2, qt, tcol(L, qt, pcol, 3));
  readvals(L, -1, m, &qp, NULL, &pm);
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
  unsigned char *skip = wheremask(L, opts, "where", n);
  if (!skip) {
    skip = lua_newuserdatauv(L, n ? n : 1, 0);
    memset(skip, 0, n ? n : 1);
  }
  int64_t *s, *e;
  rowtimes(L, ot, 1, scol, ecol, isdur, &s, &e, skip, 0);
  lua_newtable(L);
  int ctab = lua_gettop(L), any;
  int64_t *g = groupcodes(L, ot, opts, ctab, skip, &any);
  int64_t *out = lua_newuserdatauv(L, (n ? n : 1) * sizeof *out, 0);
  pl_iv_parents(s, e, g, skip, n, out);
  pushindex(L, "parents", out, n);
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
  unsigned char *wskip = wheremask(L, opts, "where", nw);
  if (!wskip) {
    wskip = lua_newuserdatauv(L, nw ? nw : 1, 0);
    memset(wskip, 0, nw ? nw : 1);
  }
  unsigned char *pskip = wheremask(L, opts, "point_where", np);
  if (!pskip) {
    pskip = lua_newuserdatauv(L, np ? np : 1, 0);
    memset(pskip, 0, np ? np : 1);
  }
  int64_t *ws, *we, *ps, *pe;
  rowtimes(L, wt, 1, scol, ecol, isdur, &ws, &we, wskip, 0);
  rowtimes(L, pt, 2, at, at, 0, &ps, &pe, pskip, 1);
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
    int c = tcol(L, pt, luaL_checkstring(L, -1), 3);
    lua_pop(L, 1);
    unsigned char *miss;
    int64_t *v;
    pushcol(L, 2, pt, c);
    readvals(L, -1, np, &v, NULL, &miss);
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
    if (!lua_isnil(L, 6)) lo = checktime(L, 6);
    lua_getfield(L, 4, "hi");
    if (!lua_isnil(L, 7)) hi = checktime(L, 7);
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
  readvals(L, 1, n, &s, NULL, &ms);
  readvals(L, 2, n, &e, NULL, &me);
  readvals(L, 3, n, NULL, &v, &mv);
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
  readvals(L, 1, n, &ts, NULL, &mt);
  if (lua_toboolean(L, 2)) readvals(L, 2, n, &te, NULL, &me);
  readvals(L, 3, n, NULL, &v, &mv);
  for (size_t k = 0; k < n; k++) {
    if (mt[k] || mv[k] || (te && me[k]))
      return luaL_argerror(L, mt[k] ? 1 : mv[k] ? 3 : 2, lua_pushfstring(L, "missing value at index %d", (int)k + 1));
    if (k && ts[k] < ts[k - 1]) return luaL_argerror(L, 1, "sample times must be sorted");
  }
  readvals(L, 4, m, &a, NULL, &ma);
  readvals(L, 5, m, &b, NULL, &mb);
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
    readvals(L, by, m, &g, NULL, &mg);
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
  int64_t *ws = checktimes(L, 1, (size_t)-1, &nw);
  int64_t *we = checktimes(L, 2, (size_t)-1, &nwe);
  if (nw != nwe) return luaL_argerror(L, 2, lua_pushfstring(L, "%d window ends for %d starts", (int)nwe, (int)nw));
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, 3, PL_COLUMN_T);
  size_t m = c ? c->t->nrows : (lua_istable(L, 3) ? (size_t)luaL_len(L, 3) : 0);
  pl_lcolumn *ce = (pl_lcolumn *)luaL_testudata(L, 4, PL_COLUMN_T);
  size_t me = ce ? ce->t->nrows : (lua_istable(L, 4) ? (size_t)luaL_len(L, 4) : 0);
  if (m != me) return luaL_argerror(L, 4, lua_pushfstring(L, "%d query ends for %d starts", (int)me, (int)m));
  int64_t *qs, *qe;
  unsigned char *ms, *mend;
  readvals(L, 3, m, &qs, NULL, &ms);
  readvals(L, 4, m, &qe, NULL, &mend);
  for (size_t k = 0; k < m; k++) ms[k] = ms[k] || mend[k];
  size_t *ord = lua_newuserdatauv(L, (m ? m : 1) * sizeof *ord, 0);
  int64_t *out = lua_newuserdatauv(L, (m ? m : 1) * sizeof *out, 0);
  pl_iv_first_window(ws, we, nw, qs, qe, ms, m, ord, out);
  pushindex(L, "first_window", out, m);
  return 1;
}

/* ---- methods ----------------------------------------------------------- */

typedef void (*binop)(pl_ivset *, const pl_ivset *, const pl_ivset *);
static int setop(lua_State *L, binop op) {
  pl_ivset *a = checkset(L, 1), *b = checkset(L, 2);
  pl_ivset *o = newset(L);
  op(o, a, b);
  return 1;
}
/* [S other] -> [S other R] */
static int m_union(lua_State *L) { return setop(L, pl_iv_union); }
/* [S other] -> [S other R] */
static int m_intersect(lua_State *L) { return setop(L, pl_iv_intersect); }
/* [S other] -> [S other R] */
static int m_subtract(lua_State *L) { return setop(L, pl_iv_subtract); }

/* [S lo hi] -> [S lo hi R] */
static int m_clip(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  int64_t lo = checktime(L, 2), hi = checktime(L, 3);
  pl_ivset *o = newset(L);
  pl_iv_clip(o, a, lo, hi);
  return 1;
}

/* [S] -> [S R]  |  [S lo hi] -> [S lo hi R] */
static int m_gaps(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  if (lua_isnoneornil(L, 2)) {
    pl_ivset *o = newset(L);
    pl_iv_gaps(o, a);
    return 1;
  }
  int64_t lo = checktime(L, 2), hi = checktime(L, 3);
  pl_ivset *o = newset(L);
  pl_iv_complement(o, a, lo, hi);
  return 1;
}

/* [S] -> [S n] */
static int m_length(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)pl_iv_length(checkset(L, 1)));
  return 1;
}
/* [S] -> [S n] */
static int m_count(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)checkset(L, 1)->n);
  return 1;
}
/* [S t] -> [S t b] */
static int m_contains(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  lua_pushboolean(L, pl_iv_contains(a, checktime(L, 2)));
  return 1;
}
/* [S t] -> [S t i | nil] */
static int m_find(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  long long i = pl_iv_find(a, checktime(L, 2));
  if (i < 0) lua_pushnil(L);
  else lua_pushinteger(L, (lua_Integer)i + 1);
  return 1;
}
/* [S i] -> [S i s e]  |  [S i] (out of range) */
static int m_get(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  if (i < 1 || (size_t)i > a->n) return 0;
  lua_pushinteger(L, (lua_Integer)a->s[i - 1]);
  lua_pushinteger(L, (lua_Integer)a->e[i - 1]);
  return 2;
}

/* [...] -> [... s e]  |  [] at the end  (upvalues: S, the index) */
static int iter_next(lua_State *L) {
  pl_ivset *a = checkset(L, lua_upvalueindex(1));
  lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
  if ((size_t)i >= a->n) return 0;
  lua_pushinteger(L, i + 1);
  lua_replace(L, lua_upvalueindex(2));
  lua_pushinteger(L, (lua_Integer)a->s[i]);
  lua_pushinteger(L, (lua_Integer)a->e[i]);
  return 2;
}
/* [S] -> [S iter] */
static int m_iter(lua_State *L) {
  checkset(L, 1);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, iter_next, 2);
  return 1;
}

/* [S] -> [S {{s, e}...}] */
static int m_to_lua(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  lua_createtable(L, (int)a->n, 0);
  for (size_t i = 0; i < a->n; i++) {
    lua_createtable(L, 2, 0);
    lua_pushinteger(L, (lua_Integer)a->s[i]);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, (lua_Integer)a->e[i]);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* [S] -> [S starts ends] */
static int m_to_arrays(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  for (int k = 0; k < 2; k++) {
    const int64_t *v = k ? a->e : a->s;
    lua_createtable(L, (int)a->n, 0);
    for (size_t i = 0; i < a->n; i++) {
      lua_pushinteger(L, (lua_Integer)v[i]);
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
  }
  return 2;
}

/* [S] -> [S] (no results; freed) */
static int m_gc(lua_State *L) {
  pl_iv_free(checkset(L, 1));
  return 0;
}
/* [S x] -> [S x n]  (__len) */
static int m_len(lua_State *L) { return m_count(L); }
/* [S other] -> [S other b] */
static int m_eq(lua_State *L) {
  pl_ivset *a = checkset(L, 1), *b = checkset(L, 2);
  int eq = a->n == b->n;
  for (size_t i = 0; eq && i < a->n; i++) eq = a->s[i] == b->s[i] && a->e[i] == b->e[i];
  lua_pushboolean(L, eq);
  return 1;
}

/* [S] -> [S ... text] */
static int m_tostring(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  lua_pushfstring(L, "IntervalSet(%d, length %I)", (int)a->n, (lua_Integer)pl_iv_length(a));
  luaL_addvalue(&b);
  for (size_t i = 0; i < a->n && i < 5; i++) {
    lua_pushfstring(L, " [%I, %I)", (lua_Integer)a->s[i], (lua_Integer)a->e[i]);
    luaL_addvalue(&b);
  }
  if (a->n > 5) luaL_addstring(&b, " ...");
  luaL_pushresult(&b);
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
  readvals(L, 1, n, &t, NULL, &tm);
  readvals(L, 2, n, &d, NULL, &dm);
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

static const luaL_Reg methods[] = { { "union", m_union },
                                    { "intersect", m_intersect },
                                    { "subtract", m_subtract },
                                    { "clip", m_clip },
                                    { "gaps", m_gaps },
                                    { "length", m_length },
                                    { "count", m_count },
                                    { "contains", m_contains },
                                    { "find", m_find },
                                    { "get", m_get },
                                    { "iter", m_iter },
                                    { "to_lua", m_to_lua },
                                    { "to_arrays", m_to_arrays },
                                    { "locate", m_locate },
                                    { "length_within", m_length_within },
                                    { NULL, NULL } };

static const luaL_Reg meta[] = { { "__gc", m_gc },        { "__len", m_len },   { "__tostring", m_tostring },
                                 { "__eq", m_eq },        { "__add", m_union }, { "__mul", m_intersect },
                                 { "__sub", m_subtract }, { NULL, NULL } };

static const luaL_Reg funcs[] = { { "from_arrays", l_from_arrays },
                                  { "from_pairs", l_from_pairs },
                                  { "empty", l_empty },
                                  { "to_arrays", m_to_arrays },
                                  { "from_table", l_from_table },
                                  { "innermost", l_innermost },
                                  { "enclosed", l_enclosed },
                                  { "sum_within", l_sum_within },
                                  { "parents", l_parents },
                                  { "step_integral", l_step_integral },
                                  { "series_windows", l_series_windows },
                                  { "step_levels", l_step_levels },
                                  { "first_window", l_first_window },
                                  { NULL, NULL } };

/* [...] -> [... module]  (registers the metatable) */
int luaopen_perflab_intervals(lua_State *L) {
  if (luaL_newmetatable(L, PL_IVSET_T)) {
    luaL_setfuncs(L, meta, 0);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, PL_IVSET_T);
    lua_setfield(L, -2, "__name");
  }
  lua_pop(L, 1);
  luaL_newlib(L, funcs);
  return 1;
}

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
*/
#include "lbind.h"
#include "intervals.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define PL_IVSET_T "perflab.IntervalSet"

typedef struct liv { pl_ivset set; } liv;

static pl_ivset *checkset(lua_State *L, int arg) {
  return &((liv *)luaL_checkudata(L, arg, PL_IVSET_T))->set;
}

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
      else luaL_argerror(L, arg, lua_pushfstring(L, "element %d is a %s, not a number", (int)i + 1, luaL_typename(L, -1)));
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

static void build(lua_State *L, pl_ivset *out, const int64_t *s, const int64_t *e, size_t n,
                  int strict, int arg_end) {
  size_t bad = 0;
  pl_ivset tmp;
  if (pl_iv_build(&tmp, s, e, n, strict, &bad) != 0)
    luaL_argerror(L, arg_end, lua_pushfstring(L, "end %I before start %I at index %d",
                  (lua_Integer)e[bad], (lua_Integer)s[bad], (int)bad + 1));
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

static int l_from_arrays(lua_State *L) {
  lua_settop(L, 4);
  size_t limit = (size_t)-1;
  int optarg = 4;
  if (lua_istable(L, 3)) { lua_settop(L, 3); lua_pushnil(L); lua_insert(L, 3); }  /* (s, e, opts) */
  if (!lua_isnil(L, 3)) {
    lua_Integer n = luaL_checkinteger(L, 3);
    luaL_argcheck(L, n >= 0, 3, "count must be >= 0");
    limit = (size_t)n;
  }
  int strict = opt_strict(L, optarg);
  size_t ns, ne;
  int64_t *s = checktimes(L, 1, limit, &ns);
  int64_t *e = checktimes(L, 2, limit, &ne);
  if (ns != ne)
    luaL_argerror(L, 2, lua_pushfstring(L, "%d ends for %d starts", (int)ne, (int)ns));
  pl_ivset *out = newset(L);
  build(L, out, s, e, ns, strict, 2);
  return 1;
}

static int l_from_pairs(lua_State *L) {
  lua_settop(L, 2);
  luaL_checktype(L, 1, LUA_TTABLE);
  int strict = opt_strict(L, 2);
  size_t n = (size_t)luaL_len(L, 1);
  int64_t *s = lua_newuserdatauv(L, (n ? n : 1) * 2 * sizeof *s, 0), *e = s + (n ? n : 1);
  for (size_t i = 0; i < n; i++) {
    lua_geti(L, 1, (lua_Integer)i + 1);
    if (!lua_istable(L, -1)) luaL_argerror(L, 1, lua_pushfstring(L, "element %d is not a {start, end} pair", (int)i + 1));
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

static int l_empty(lua_State *L) { newset(L); return 1; }

/* ---- methods ----------------------------------------------------------- */

typedef void (*binop)(pl_ivset *, const pl_ivset *, const pl_ivset *);
static int setop(lua_State *L, binop op) {
  pl_ivset *a = checkset(L, 1), *b = checkset(L, 2);
  pl_ivset *o = newset(L);
  op(o, a, b);
  return 1;
}
static int m_union(lua_State *L) { return setop(L, pl_iv_union); }
static int m_intersect(lua_State *L) { return setop(L, pl_iv_intersect); }
static int m_subtract(lua_State *L) { return setop(L, pl_iv_subtract); }

static int m_clip(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  int64_t lo = checktime(L, 2), hi = checktime(L, 3);
  pl_ivset *o = newset(L);
  pl_iv_clip(o, a, lo, hi);
  return 1;
}

static int m_gaps(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  if (lua_isnoneornil(L, 2)) { pl_ivset *o = newset(L); pl_iv_gaps(o, a); return 1; }
  int64_t lo = checktime(L, 2), hi = checktime(L, 3);
  pl_ivset *o = newset(L);
  pl_iv_complement(o, a, lo, hi);
  return 1;
}

static int m_length(lua_State *L) { lua_pushinteger(L, (lua_Integer)pl_iv_length(checkset(L, 1))); return 1; }
static int m_count(lua_State *L) { lua_pushinteger(L, (lua_Integer)checkset(L, 1)->n); return 1; }
static int m_contains(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  lua_pushboolean(L, pl_iv_contains(a, checktime(L, 2)));
  return 1;
}
static int m_find(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  long long i = pl_iv_find(a, checktime(L, 2));
  if (i < 0) lua_pushnil(L); else lua_pushinteger(L, (lua_Integer)i + 1);
  return 1;
}
static int m_get(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  if (i < 1 || (size_t)i > a->n) return 0;
  lua_pushinteger(L, (lua_Integer)a->s[i - 1]);
  lua_pushinteger(L, (lua_Integer)a->e[i - 1]);
  return 2;
}

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
static int m_iter(lua_State *L) {
  checkset(L, 1);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, iter_next, 2);
  return 1;
}

static int m_to_lua(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  lua_createtable(L, (int)a->n, 0);
  for (size_t i = 0; i < a->n; i++) {
    lua_createtable(L, 2, 0);
    lua_pushinteger(L, (lua_Integer)a->s[i]); lua_rawseti(L, -2, 1);
    lua_pushinteger(L, (lua_Integer)a->e[i]); lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int m_to_arrays(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  for (int k = 0; k < 2; k++) {
    const int64_t *v = k ? a->e : a->s;
    lua_createtable(L, (int)a->n, 0);
    for (size_t i = 0; i < a->n; i++) { lua_pushinteger(L, (lua_Integer)v[i]); lua_rawseti(L, -2, (lua_Integer)i + 1); }
  }
  return 2;
}

static int m_gc(lua_State *L) { pl_iv_free(checkset(L, 1)); return 0; }
static int m_len(lua_State *L) { return m_count(L); }
static int m_eq(lua_State *L) {
  pl_ivset *a = checkset(L, 1), *b = checkset(L, 2);
  int eq = a->n == b->n;
  for (size_t i = 0; eq && i < a->n; i++) eq = a->s[i] == b->s[i] && a->e[i] == b->e[i];
  lua_pushboolean(L, eq);
  return 1;
}

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

static const luaL_Reg methods[] = {
  {"union", m_union}, {"intersect", m_intersect}, {"subtract", m_subtract},
  {"clip", m_clip}, {"gaps", m_gaps}, {"length", m_length}, {"count", m_count},
  {"contains", m_contains}, {"find", m_find}, {"get", m_get}, {"iter", m_iter},
  {"to_lua", m_to_lua}, {"to_arrays", m_to_arrays},
  {NULL, NULL}
};

static const luaL_Reg meta[] = {
  {"__gc", m_gc}, {"__len", m_len}, {"__tostring", m_tostring}, {"__eq", m_eq},
  {"__add", m_union}, {"__mul", m_intersect}, {"__sub", m_subtract},
  {NULL, NULL}
};

static const luaL_Reg funcs[] = {
  {"from_arrays", l_from_arrays}, {"from_pairs", l_from_pairs},
  {"empty", l_empty}, {"to_arrays", m_to_arrays},
  {NULL, NULL}
};

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

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
** The module's functions over tables of timed rows and step series
** (innermost, parents, sum_within, step_integral, ...) are l_timeline.c,
** registered by the opener here; the time and mask readers both files use
** are in lbind.c.  (docs/intervals.md has the whole contract.)
*/
#include "lbind.h"
#include "intervals.h"

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
  int64_t *s = pl_l_checktimes(L, 1, limit, &ns);
  int64_t *e = pl_l_checktimes(L, 2, limit, &ne);
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
      else if (lua_type(L, -1) == LUA_TNUMBER) (k ? e : s)[i] = pl_l_roundts(L, 1, "element", i, lua_tonumber(L, -1));
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

/* ---- sets from tables ------------------------------------------------------ */

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
  unsigned char *skip = pl_l_rowmask(L, opts, "where", n);
  const char *by = NULL;
  if (opts) {
    lua_getfield(L, 4, "by");
    by = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  if (!by) { /* int64 columns: only the rows kept are read */
    int sc = pl_l_argcol(L, t, scol, 2), ec = pl_l_argcol(L, t, ecol, 2);
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
  pl_l_rowtimes(L, t, 1, scol, ecol, isdur, &s, &e, skip, 0);
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
  int bc = pl_l_argcol(L, t, by, 4);
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
  pl_l_readvals(L, 2, n, &t, NULL, &miss);
  int64_t *out = lua_newuserdatauv(L, (n ? n : 1) * sizeof *out, 0);
  size_t m = 0; /* the present points, packed */
  for (size_t i = 0; i < n; i++)
    if (!miss[i]) t[m++] = t[i];
  pl_iv_locate(a, t, m, out);
  for (size_t i = n, k = m; i-- > 0;) out[i] = miss[i] ? -1 : out[--k];
  pl_l_pushindex(L, "locate", out, n);
  return 1;
}

/* [S lo hi] -> [S lo hi n] */
static int m_length_within(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  lua_pushinteger(L, (lua_Integer)pl_iv_length_within(a, pl_l_checktime(L, 2), pl_l_checktime(L, 3)));
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
  int64_t lo = pl_l_checktime(L, 2), hi = pl_l_checktime(L, 3);
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
  int64_t lo = pl_l_checktime(L, 2), hi = pl_l_checktime(L, 3);
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
  lua_pushboolean(L, pl_iv_contains(a, pl_l_checktime(L, 2)));
  return 1;
}
/* [S t] -> [S t i | nil] */
static int m_find(lua_State *L) {
  pl_ivset *a = checkset(L, 1);
  long long i = pl_iv_find(a, pl_l_checktime(L, 2));
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

static const luaL_Reg funcs[] = {
  { "from_arrays", l_from_arrays }, { "from_pairs", l_from_pairs }, { "empty", l_empty },
  { "to_arrays", m_to_arrays },     { "from_table", l_from_table }, { NULL, NULL }
};

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
  pl_l_timeline_open(L);
  return 1;
}

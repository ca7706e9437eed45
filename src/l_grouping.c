/*
** l_grouping.c -- the Grouping object of module 'perflab.table'
** ("perflab.Grouping"): t:group_by(key...) makes one, grouping:agg{...}
** computes one row per group, grouping:broadcast(res) spreads a per-group
** result back over the rows.  A grouping keeps its table alive (user value
** 1) and holds only the key columns; the work is pl_table_group in the
** core.  luaopen_perflab_table registers group_by (pl_l_tbl_group_by) and
** the metatable (pl_l_grouping_open).
** API: docs/table-api.md.
*/
#include "lbind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PL_GROUP_T "perflab.Grouping"

typedef struct pl_lgroup {
  int nkeys;
  int keys[PL_MAX_GROUP_KEYS];
} pl_lgroup;

/* [T key...] -> [T key... G] */
int pl_l_tbl_group_by(lua_State *L) {
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
    pl_l_sort_names(L, keys, nk);
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

/* [...] -> [...] */
void pl_l_grouping_open(lua_State *L) {
  if (luaL_newmetatable(L, PL_GROUP_T)) {
    luaL_newlib(L, grp_methods);
    lua_setfield(L, -2, "__index");
  }
  lua_pop(L, 1);
}

/*
** l_critpath.c -- Lua module 'perflab.critpath': the critical path of a
** trace window (src/core/critpath.c) over whole columns, one call per
** analysis.  perflab.critical_path hands it the events' columns and its
** rules (Lua data: tables of names); the classification of every event by
** those rules -- flags per distinct name, category codes, dense process and
** thread ids -- runs here, once per distinct string and in one pass over the
** rows, not in Lua.
*/
#include "lbind.h"
#include "critpath.h"
#include "bigmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const SPEC_KEYS[] = { "ts",     "dur",         "cat",         "flags",       "pid",
                                         "thread", "corr",        "stream",      "wait_stream", "wait_record",
                                         "whole",  "instance_lo", "instance_hi", "round_us",    "zero_weight_launch",
                                         "names",  "rules",       "annotation",  "cats",        "categories",
                                         "pids",   "tids",        "edge_bound",  "comm",        NULL };

/* ---- classification by the rules (perflab.critical_path.rules) ---- */

/* The string column spec[key] (a column object), or NULL where it is absent
** or not text (as the Lua side's text(): such a column counts as missing). */
static const pl_lcolumn *str_col(lua_State *L, int spec, const char *key, size_t n) {
  lua_getfield(L, spec, key);
  const pl_lcolumn *c = (const pl_lcolumn *)luaL_testudata(L, -1, PL_COLUMN_T);
  lua_pop(L, 1); /* the spec keeps it */
  if (!c) return NULL;
  if (c->t->nrows != n) luaL_error(L, "critpath.run: %s: %d rows, expected %d", key, (int)c->t->nrows, (int)n);
  return c->t->cols[c->col]->type == PL_STR ? c : NULL;
}

/* lst[name] (a set or a map) for the string s, left on the stack; t the
** index of the Lua table or 0 */
static int rule_get(lua_State *L, int t, const char *s, size_t len) {
  if (!t) return LUA_TNIL;
  lua_pushlstring(L, s, len);
  return lua_rawget(L, t);
}

/* A Lua array of names as a set (name -> true) at the top of the stack. */
static int rule_set(lua_State *L, int rules, const char *key) {
  lua_getfield(L, rules, key);
  if (lua_isnil(L, -1)) return 0;
  if (!lua_istable(L, -1)) luaL_error(L, "critpath.run: rules.%s must be a table of names", key);
  int src = lua_gettop(L);
  lua_newtable(L);
  for (lua_Integer i = 1;; i++) {
    if (lua_rawgeti(L, src, i) == LUA_TNIL) {
      lua_pop(L, 1);
      break;
    }
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "critpath.run: rules.%s[%d] must be a name", key, (int)i);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
  }
  lua_remove(L, src);
  return lua_gettop(L);
}

static int has_sub(const char *s, size_t n, const char *p, size_t m) {
  if (m == 0) return 1;
  for (size_t i = 0; i + m <= n; i++)
    if (s[i] == p[0] && memcmp(s + i, p, m) == 0) return 1;
  return 0;
}

/* flags[i] for every row from the names column and spec.rules (the names
** of launch calls, launch prefixes, blocking calls, event records, wait-
** event calls, sync events) and spec.annotation (plain substring): each
** distinct name is classified once (perflab.critical_path.name_flags is
** the same rule for one name). */
static void classify_names(lua_State *L, int spec, const pl_lcolumn *c, size_t n, uint32_t *fl) {
  const pl_table *t = c->t;
  const pl_column *col = t->cols[c->col];
  size_t np = pl_pool_count(t->pool);
  uint32_t *byid = lua_newuserdatauv(L, (np + 1) * sizeof *byid, 0);
  unsigned char *used = lua_newuserdatauv(L, np + 1, 0);
  memset(used, 0, np + 1);
  pl_column_used_ids(t, c->col, used);
  lua_getfield(L, spec, "rules");
  int rules = lua_gettop(L);
  luaL_checktype(L, rules, LUA_TTABLE);
  int launch = rule_set(L, rules, "launch_calls"), blocking = rule_set(L, rules, "blocking_calls");
  int record = rule_set(L, rules, "event_record"), wait = rule_set(L, rules, "wait_event_call");
  lua_getfield(L, rules, "sync_events");
  int sync = lua_istable(L, -1) ? lua_gettop(L) : 0;
  lua_getfield(L, rules, "launch_prefixes");
  int prefixes = lua_istable(L, -1) ? lua_gettop(L) : 0;
  size_t alen = 0;
  lua_getfield(L, spec, "annotation");
  const char *ann = lua_isstring(L, -1) ? lua_tolstring(L, -1, &alen) : NULL;
  static const struct {
    const char *kind;
    uint32_t flag;
  } SYNC[] = { { "context_sync", PL_CP_N_CONTEXT_SYNC },
               { "stream_sync", PL_CP_N_STREAM_SYNC },
               { "event_sync", PL_CP_N_EVENT_SYNC },
               { "stream_wait", PL_CP_N_STREAM_WAIT } };
  byid[0] = 0;
  for (size_t id = 1; id <= np; id++) {
    byid[id] = 0;
    if (!used[id]) continue;
    size_t len;
    const char *s = pl_pool_str(t->pool, (uint32_t)id, &len);
    uint32_t f = 0;
    if (rule_get(L, launch, s, len) != LUA_TNIL) f |= PL_CP_N_LAUNCH;
    if (launch) lua_pop(L, 1);
    if (prefixes)
      for (lua_Integer k = 1;; k++) {
        size_t pl;
        if (lua_rawgeti(L, prefixes, k) == LUA_TNIL) {
          lua_pop(L, 1);
          break;
        }
        const char *p = lua_tolstring(L, -1, &pl);
        if (p && pl <= len && memcmp(s, p, pl) == 0) f |= PL_CP_N_LAUNCH;
        lua_pop(L, 1);
      }
    if (rule_get(L, blocking, s, len) != LUA_TNIL) f |= PL_CP_N_BLOCKING;
    if (blocking) lua_pop(L, 1);
    if (rule_get(L, record, s, len) != LUA_TNIL) f |= PL_CP_N_EVENT_RECORD;
    if (record) lua_pop(L, 1);
    if (rule_get(L, wait, s, len) != LUA_TNIL) f |= PL_CP_N_WAIT_EVENT_CALL;
    if (wait) lua_pop(L, 1);
    if (rule_get(L, sync, s, len) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -1);
      for (size_t q = 0; q < sizeof SYNC / sizeof SYNC[0]; q++)
        if (strcmp(k, SYNC[q].kind) == 0) f |= SYNC[q].flag;
    }
    if (sync) lua_pop(L, 1);
    if (ann && alen > 0 && has_sub(s, len, ann, alen)) f |= PL_CP_N_ANNOTATION;
    byid[id] = f;
  }
  const uint32_t *v = col->v.str;
  for (size_t i = 0; i < n; i++) fl[i] = v[i] <= np ? byid[v[i]] : 0;
  lua_settop(L, rules - 3); /* byid, used, rules and what followed */
}

/* cat[i] from the categories column and spec.categories (category ->
** "cpu_op" | "runtime" | "sync"), once per distinct category. */
static void classify_cats(lua_State *L, int spec, const pl_lcolumn *c, size_t n, uint8_t *cat) {
  if (!c) {
    memset(cat, PL_CP_CAT_OTHER, n);
    return;
  }
  const pl_table *t = c->t;
  size_t np = pl_pool_count(t->pool);
  uint8_t *byid = lua_newuserdatauv(L, np + 1, 0);
  unsigned char *used = lua_newuserdatauv(L, np + 1, 0);
  memset(used, 0, np + 1);
  memset(byid, PL_CP_CAT_OTHER, np + 1);
  pl_column_used_ids(t, c->col, used);
  lua_getfield(L, spec, "categories");
  int cats = lua_gettop(L);
  luaL_checktype(L, cats, LUA_TTABLE);
  for (size_t id = 1; id <= np; id++) {
    if (!used[id]) continue;
    size_t len;
    const char *s = pl_pool_str(t->pool, (uint32_t)id, &len);
    if (rule_get(L, cats, s, len) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -1);
      byid[id] = strcmp(k, "cpu_op") == 0    ? PL_CP_CAT_CPU_OP
                 : strcmp(k, "runtime") == 0 ? PL_CP_CAT_RUNTIME
                 : strcmp(k, "sync") == 0    ? PL_CP_CAT_SYNC
                                             : PL_CP_CAT_OTHER;
    }
    lua_pop(L, 1);
  }
  const uint32_t *v = t->cols[c->col]->v.str;
  for (size_t i = 0; i < n; i++) cat[i] = v[i] <= np ? byid[v[i]] : PL_CP_CAT_OTHER;
  lua_settop(L, cats - 3);
}

/* Dense ids 1.. in order of first appearance of the rows' keys (the pid
** column; the (pid, tid) pair), -1 where a key is missing; pids and tids
** text columns of one table (as the Lua side's text(): a column that is
** not text counts as missing). */
static void dense_ids(lua_State *L, const pl_lcolumn *pc, const pl_lcolumn *tc, size_t n, int64_t *pid, int64_t *thr) {
  for (size_t i = 0; i < n; i++) pid[i] = thr[i] = -1;
  if (!pc) return;
  const pl_table *t = pc->t;
  if (tc && tc->t != t) luaL_error(L, "critpath.run: pids and tids must be columns of one table");
  /* by the strings' pool ids: a process per id, a thread per (process,
  ** id) pair where processes times ids stay small; else by grouping */
  size_t np = pl_pool_count(t->pool) + 1;
  const uint32_t *pv = t->cols[pc->col]->v.str, *tv = tc ? t->cols[tc->col]->v.str : NULL;
  int64_t *pnum = lua_newuserdatauv(L, np * sizeof *pnum, 0);
  for (size_t id = 0; id < np; id++) pnum[id] = 0;
  int64_t k = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t a = pv[i];
    if (!a || a >= np) continue;
    if (!pnum[a]) pnum[a] = ++k;
    pid[i] = pnum[a];
  }
  size_t cells = (size_t)k * np;
  if (tc && cells <= ((size_t)1 << 22)) {
    int32_t *tnum = lua_newuserdatauv(L, (cells ? cells : 1) * sizeof *tnum, 0);
    for (size_t q = 0; q < cells; q++) tnum[q] = 0;
    int32_t m = 0;
    for (size_t i = 0; i < n; i++) {
      uint32_t b = tv[i];
      if (pid[i] < 0 || !b || b >= np) continue;
      size_t q = (size_t)(pid[i] - 1) * np + b;
      if (!tnum[q]) tnum[q] = ++m;
      thr[i] = tnum[q];
    }
    lua_pop(L, 2);
    return;
  }
  lua_pop(L, 1);
  if (!tc) return;
  /* many processes: the (pid, tid) pairs grouped */
  size_t *gid = lua_newuserdatauv(L, (n ? n : 1) * sizeof *gid, 0);
  int keys[2] = { pc->col, tc->col };
  size_t *first = NULL;
  size_t ng = pl_table_group_ids(t, keys, 2, gid, &first);
  /* a group with a missing key gets -1; the others 1.. in order */
  int64_t *num = malloc((ng ? ng : 1) * sizeof *num);
  if (!num) {
    free(first);
    luaL_error(L, "critpath.run: out of memory");
  }
  int64_t m = 0;
  for (size_t g = 0; g < ng; g++) {
    size_t r = first[g];
    num[g] = pv[r] == 0 || tv[r] == 0 ? -1 : ++m;
  }
  free(first);
  for (size_t i = 0; i < n; i++) thr[i] = num[gid[i]];
  free(num);
  lua_pop(L, 1);
}

/* spec[name] as an int64 array of n values (missing -> def), in a box on
** the stack (freed with it).  Sets *n from the first column. */
static int64_t *int_col(lua_State *L, int spec, const char *name, size_t *n, int64_t def, int required) {
  lua_getfield(L, spec, name);
  pl_lcolumn *c = (pl_lcolumn *)luaL_testudata(L, -1, PL_COLUMN_T);
  if (!c) {
    if (!required && lua_isnil(L, -1)) {
      lua_pop(L, 1);
      int64_t *a = lua_newuserdatauv(L, (*n ? *n : 1) * sizeof *a, 0);
      for (size_t i = 0; i < *n; i++) a[i] = def;
      return a;
    }
    luaL_error(L, "critpath.run: %s must be a column", name);
  }
  if (*n == (size_t)-1) *n = c->t->nrows;
  else if (c->t->nrows != *n) luaL_error(L, "critpath.run: %s: %d rows, expected %d", name, (int)c->t->nrows, (int)*n);
  const pl_column *col = c->t->cols[c->col];
  int64_t *a = lua_newuserdatauv(L, (*n ? *n : 1) * sizeof *a, 0);
  for (size_t i = 0; i < *n; i++) {
    if (col->type == PL_INT || col->type == PL_BOOL) {
      int64_t v = col->type == PL_INT ? col->v.i64[i] : (col->v.b[i] == PL_BOOL_NA ? PL_INT_NA : col->v.b[i]);
      a[i] = v == PL_INT_NA ? def : v;
    } else if (col->type == PL_NUM) {
      double d = col->v.num[i];
      if (isnan(d)) a[i] = def;
      else if (d != floor(d) || fabs(d) > 9.2e18) {
        luaL_error(L, "critpath.run: %s: row %d: expected an integer, found %f", name, (int)i + 1, d);
      } else a[i] = (int64_t)d;
    } else luaL_error(L, "critpath.run: %s must be a number column", name);
    if (required == 2 && a[i] == def) luaL_error(L, "critpath.run: %s: row %d is missing", name, (int)i + 1);
  }
  lua_remove(L, -2); /* the column (the spec keeps it) */
  return a;
}

static pl_column *newcol(pl_table *r, const char *name, pl_type ty, size_t n) {
  int k = pl_table_add_col(r, name, ty);
  pl_column *c = r->cols[k];
  pl_column_reserve(c, n ? n : 1);
  c->len = n;
  return c;
}

static void setint(lua_State *L, const char *k, int64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

/* The events on the path, in path order: the event (1-based), the path
** row where it first appears (1-based) and the path time attributed to it
** (the weights of the path edges whose edge_event it is), ns. */
static pl_table *on_path(const pl_cp_out *o, size_t n, size_t ncrit) {
  pl_table *t = pl_table_new("on_path");
  pl_column *c_ev = newcol(t, "event", PL_INT, ncrit), *c_row = newcol(t, "row", PL_INT, ncrit);
  pl_column *c_ns = newcol(t, "on_path_ns", PL_INT, ncrit);
  int64_t *acc = pl_mem_xcalloc(n ? n : 1, sizeof *acc); /* per event: its path time; INT64_MIN once listed */
  for (size_t p = 0; p + 1 < o->npath; p++)
    if (o->edge_event[p] >= 0 && (size_t)o->edge_event[p] < n) acc[o->edge_event[p]] += o->edge_weight[p];
  size_t k = 0;
  for (size_t p = 0; p < o->npath && k < ncrit; p++) {
    size_t e = (size_t)o->path_event[p];
    if (e >= n || acc[e] == INT64_MIN) continue;
    c_ev->v.i64[k] = (int64_t)e + 1;
    c_row->v.i64[k] = (int64_t)p + 1;
    c_ns->v.i64[k++] = acc[e];
    acc[e] = INT64_MIN;
  }
  pl_mem_free(acc);
  t->nrows = k;
  return t;
}

/* What bounds each path edge (HTA's bound_by), column "bound_by" of the
** path, and the path time per class into the table at the stack top
** (class -> ns; "none" left out).  spec.edge_bound: edge type name ->
** class (perflab.critical_path.edge_bound); an operator edge not named
** there is "cpu_bound" where its event has no stream, else
** "gpu_communication_bound" where spec.comm(name) is true (once per
** distinct name), else "gpu_compute_bound"; any other edge is "none". */
static const char *const EDGE_TYPES[] = { "critical_path_operator", "critical_path_dependency",
                                          "critical_path_kernel_launch_delay", "critical_path_kernel_kernel_delay",
                                          "critical_path_sync_dependency" };

static void bound_by(lua_State *L, int spec, const pl_cp_out *o, const int64_t *stream, size_t n, pl_table *t,
                     pl_column *c_edge, pl_column *c_bound) {
  int sums = lua_gettop(L);
  enum { CPU = 5, GPU, COMM, NONE, NCLS };
  static const char *const CLS[] = { "cpu_bound", "gpu_compute_bound", "gpu_communication_bound", "none" };
  const char *cls[NCLS];
  uint32_t cid[NCLS], tid[5];
  int64_t sum[NCLS] = { 0 };
  int used[NCLS] = { 0 };
  lua_getfield(L, spec, "edge_bound");
  int eb = lua_istable(L, -1) ? lua_gettop(L) : 0;
  for (int k = 0; k < 5; k++) {
    tid[k] = pl_pool_intern(t->pool, EDGE_TYPES[k], strlen(EDGE_TYPES[k]));
    cls[k] = NULL;
    if (!eb) continue;
    if (lua_getfield(L, eb, EDGE_TYPES[k]) == LUA_TSTRING) cls[k] = lua_tostring(L, -1); /* eb keeps it */
    lua_pop(L, 1);
  }
  for (int k = 0; k < 4; k++) cls[CPU + k] = CLS[k];
  for (int k = 0; k < NCLS; k++) cid[k] = cls[k] ? pl_pool_intern(t->pool, cls[k], strlen(cls[k])) : 0;
  /* comm(name) per distinct name id, asked where an operator edge's event is on the GPU */
  const pl_lcolumn *nc = str_col(L, spec, "names", n);
  size_t nid = nc ? pl_pool_count(nc->t->pool) : 0;
  signed char *comm = NULL;
  lua_getfield(L, spec, "comm");
  int fn = lua_isfunction(L, -1) ? lua_gettop(L) : 0;
  if (nc && fn) {
    comm = lua_newuserdatauv(L, nid + 1, 0);
    memset(comm, -1, nid + 1);
  }
  size_t np = o->npath;
  for (size_t p = 0; p + 1 < np; p++) {
    int ty = o->edge_type[p] < 5 ? o->edge_type[p] : 1, k = ty;
    if (!cls[ty]) {
      int64_t e = o->edge_event[p];
      if (ty != PL_CP_E_OPERATOR) k = NONE;
      else if (e < 0 || (size_t)e >= n || stream[e] < 0) k = CPU;
      else {
        k = GPU;
        uint32_t id = comm ? nc->t->cols[nc->col]->v.str[e] : 0;
        if (id && id <= nid) {
          if (comm[id] < 0) {
            size_t len;
            const char *nm = pl_pool_str(nc->t->pool, id, &len);
            lua_pushvalue(L, fn);
            lua_pushlstring(L, nm, len);
            lua_call(L, 1, 1);
            comm[id] = (signed char)lua_toboolean(L, -1);
            lua_pop(L, 1);
          }
          if (comm[id]) k = COMM;
        }
      }
    }
    c_edge->v.str[p] = tid[ty];
    c_bound->v.str[p] = cid[k];
    sum[k] += o->edge_weight[p];
    used[k] = 1;
  }
  if (np) c_edge->v.str[np - 1] = c_bound->v.str[np - 1] = 0;
  /* the sums by class name (edge_bound may name a class twice) */
  for (int k = 0; k < NCLS; k++) {
    if (!used[k] || !cls[k] || strcmp(cls[k], "none") == 0) continue;
    lua_getfield(L, sums, cls[k]);
    int64_t had = (int64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    lua_pushinteger(L, (lua_Integer)(had + sum[k]));
    lua_setfield(L, sums, cls[k]);
  }
  lua_settop(L, sums);
}

/* run(spec) -> result table | nil, message, instances */
static int l_run(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  pl_l_checkoptions(L, 1, SPEC_KEYS);
  int top = lua_gettop(L);
  size_t n = (size_t)-1;
  pl_cp_in in;
  memset(&in, 0, sizeof in);
  int64_t *ts = int_col(L, 1, "ts", &n, PL_INT_NA, 2);
  int64_t *dur = int_col(L, 1, "dur", &n, PL_INT_NA, 2);
  lua_getfield(L, 1, "names");
  int by_rules = !lua_isnil(L, -1);
  lua_pop(L, 1);
  int64_t *cat = by_rules ? NULL : int_col(L, 1, "cat", &n, 0, 1);
  int64_t *flags = by_rules ? NULL : int_col(L, 1, "flags", &n, 0, 1);
  if (by_rules) {
    int64_t *pid = lua_newuserdatauv(L, (n ? n : 1) * sizeof *pid, 0);
    int64_t *thr = lua_newuserdatauv(L, (n ? n : 1) * sizeof *thr, 0);
    lua_getfield(L, 1, "tids");
    int tids = !lua_isnil(L, -1);
    lua_pop(L, 1);
    dense_ids(L, str_col(L, 1, "pids", n), tids ? str_col(L, 1, "tids", n) : NULL, n, pid, thr);
    in.pid = pid;
    in.thread = thr;
  } else {
    in.pid = int_col(L, 1, "pid", &n, -1, 1);
    in.thread = int_col(L, 1, "thread", &n, -1, 1);
  }
  in.corr = int_col(L, 1, "corr", &n, -1, 1);
  in.stream = int_col(L, 1, "stream", &n, -1, 0);
  in.wait_stream = int_col(L, 1, "wait_stream", &n, -1, 0);
  in.wait_record = int_col(L, 1, "wait_record", &n, -1, 0);
  uint8_t *cat8 = lua_newuserdatauv(L, n ? n : 1, 0);
  uint32_t *fl = lua_newuserdatauv(L, (n ? n : 1) * sizeof *fl, 0);
  if (by_rules) {
    const pl_lcolumn *nc = str_col(L, 1, "names", n);
    if (nc) classify_names(L, 1, nc, n, fl);
    else memset(fl, 0, n * sizeof *fl);
    classify_cats(L, 1, str_col(L, 1, "cats", n), n, cat8);
  } else
    for (size_t i = 0; i < n; i++) {
      cat8[i] = (uint8_t)cat[i];
      fl[i] = (uint32_t)flags[i];
    }
  in.n = n;
  in.ts = ts;
  in.dur = dur;
  in.cat = cat8;
  in.flags = fl;
  lua_getfield(L, 1, "whole");
  in.whole = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, 1, "instance_lo");
  in.inst_lo = (int64_t)luaL_optinteger(L, -1, 0);
  lua_pop(L, 1);
  lua_getfield(L, 1, "instance_hi");
  in.inst_hi = (int64_t)luaL_optinteger(L, -1, in.inst_lo);
  lua_pop(L, 1);
  /* round_us = "auto": HTA's rounding where some time is not whole
  ** microseconds (a fractional trace) */
  lua_getfield(L, 1, "round_us");
  if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "auto") == 0) {
    in.round_us = 0;
    for (size_t i = 0; i < n && !in.round_us; i++) in.round_us = ts[i] % 1000 != 0 || dur[i] % 1000 != 0;
  } else in.round_us = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, 1, "zero_weight_launch");
  in.zero_weight_launch = lua_toboolean(L, -1);
  lua_pop(L, 1);
  pl_cp_out o;
  int rc = pl_cp_run(&in, &o);
  if (rc != 0) {
    lua_settop(L, top);
    lua_pushnil(L);
    lua_pushstring(L, o.err[0] ? o.err : "critical path failed");
    lua_pushinteger(L, (lua_Integer)o.ninst);
    pl_cp_free(&o);
    return 3;
  }
  /* the path: one row per node; the edge leaving it on the path */
  pl_table *t = pl_table_new("critical_path");
  size_t np = o.npath;
  pl_column *c_ev = newcol(t, "event", PL_INT, np);
  pl_column *c_st = newcol(t, "is_start", PL_BOOL, np);
  pl_column *c_ts = newcol(t, "ts_ns", PL_INT, np);
  pl_column *c_ty = newcol(t, "edge_type", PL_INT, np);
  pl_column *c_w = newcol(t, "edge_weight_ns", PL_INT, np);
  pl_column *c_ee = newcol(t, "edge_event", PL_INT, np);
  pl_column *c_edge = newcol(t, "edge", PL_STR, np), *c_bound = newcol(t, "bound_by", PL_STR, np);
  for (size_t p = 0; p < np; p++) {
    c_ev->v.i64[p] = o.path_event[p] + 1;
    c_st->v.b[p] = o.path_start[p];
    c_ts->v.i64[p] = o.path_ts[p];
    int last = p + 1 == np;
    c_ty->v.i64[p] = last ? PL_INT_NA : o.edge_type[p];
    c_w->v.i64[p] = last ? PL_INT_NA : o.edge_weight[p];
    c_ee->v.i64[p] = last || o.edge_event[p] < 0 ? PL_INT_NA : o.edge_event[p] + 1;
  }
  t->nrows = np;
  lua_newtable(L); /* bound_ns */
  int bound_ns = lua_gettop(L);
  bound_by(L, 1, &o, in.stream, n, t, c_edge, c_bound);
  /* per event: on the path, and the times as used where they were
  ** rounded (else they are the input's: no copy) */
  pl_table *u = pl_table_new("times");
  if (in.round_us) {
    pl_column *u_ts = newcol(u, "ts_ns", PL_INT, n), *u_dur = newcol(u, "dur_ns", PL_INT, n);
    memcpy(u_ts->v.i64, o.ts_r, n * sizeof *o.ts_r);
    memcpy(u_dur->v.i64, o.dur_r, n * sizeof *o.dur_r);
  }
  pl_column *u_cr = newcol(u, "critical", PL_BOOL, n);
  memset(u_cr->v.b, 0, n);
  size_t ncrit = 0;
  for (size_t p = 0; p < np; p++) {
    size_t e = (size_t)o.path_event[p];
    if (e < n && !u_cr->v.b[e]) {
      u_cr->v.b[e] = 1;
      ncrit++;
    }
  }
  u->nrows = n;
  pl_table *v = on_path(&o, n, ncrit);
  lua_pushvalue(L, bound_ns); /* the sums stay, the arrays' boxes go */
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
  lua_createtable(L, 0, 17);
  lua_rotate(L, -2, 1);
  lua_setfield(L, -2, "bound_ns");
  setint(L, "length_ns", o.length);
  setint(L, "nodes", (int64_t)o.nnodes);
  setint(L, "edges", (int64_t)o.nedges);
  setint(L, "launch_edges", (int64_t)o.nlaunch);
  setint(L, "kernel_kernel_edges", (int64_t)o.nkk);
  setint(L, "sync_edges", (int64_t)o.nsync);
  setint(L, "overlapping_kernels", (int64_t)o.noverlap);
  setint(L, "graph_launches", (int64_t)o.ngraph_launch);
  lua_createtable(L, 0, 5);
  for (int i = 0; i < 5; i++) {
    lua_pushinteger(L, (lua_Integer)o.nedge_type[i]);
    lua_setfield(L, -2, EDGE_TYPES[i]);
  }
  lua_setfield(L, -2, "edge_types");
  setint(L, "window_lo_ns", o.win_lo);
  setint(L, "window_hi_ns", o.win_hi);
  setint(L, "instances", (int64_t)o.ninst);
  setint(L, "critical_events", (int64_t)ncrit);
  lua_pushboolean(L, in.round_us);
  lua_setfield(L, -2, "round_us");
  pl_cp_free(&o);
  pl_l_pushtable(L, t);
  lua_setfield(L, -2, "path");
  pl_l_pushtable(L, u);
  lua_setfield(L, -2, "times");
  pl_l_pushtable(L, v);
  lua_setfield(L, -2, "on_path");
  return 1;
}

/* spans(t, {start =, stop =, by = {col, ...}, gap = ns}) -> a table of the
** rows merged where a timeline `gap` ns to the pixel cannot tell them apart
** (pl_cp_spans): row (1-based, the span's first row), start, stop (the
** columns' names), events (rows merged); groups by the `by` columns (in
** order of first appearance), then start order.  Rows with a missing start
** or stop are left out. */
static int l_spans(lua_State *L) {
  lua_settop(L, 2);
  pl_table *t = pl_l_checktable(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  static const char *const keys[] = { "start", "stop", "by", "gap", NULL };
  pl_l_checkoptions(L, 2, keys);
  lua_getfield(L, 2, "start");
  lua_getfield(L, 2, "stop");
  const char *scol = luaL_checkstring(L, 3), *ecol = luaL_checkstring(L, 4);
  lua_getfield(L, 2, "gap");
  int64_t gap = (int64_t)luaL_optinteger(L, 5, 0);
  if (gap < 0) return luaL_error(L, "critpath.spans: gap must be >= 0");
  size_t n = t->nrows;
  int bycols[8];
  size_t nby = 0;
  lua_getfield(L, 2, "by");
  if (lua_istable(L, 6))
    for (lua_Integer q = 1; q <= 8; q++) {
      if (lua_rawgeti(L, 6, q) == LUA_TNIL) {
        lua_pop(L, 1);
        break;
      }
      bycols[nby++] = pl_l_argcol(L, t, luaL_checkstring(L, -1), 2);
      lua_pop(L, 1);
    }
  else if (!lua_isnil(L, 6)) return luaL_error(L, "critpath.spans: by must be a list of at most 8 columns");
  unsigned char *skip = lua_newuserdatauv(L, n ? n : 1, 0);
  memset(skip, 0, n ? n : 1);
  int64_t *sv, *ev;
  pl_l_rowtimes(L, t, 1, scol, ecol, 0, &sv, &ev, skip, 0);
  size_t *grp = lua_newuserdatauv(L, (n ? n : 1) * sizeof *grp, 0);
  if (nby) {
    size_t *first = NULL;
    pl_table_group_ids(t, bycols, nby, grp, &first);
    free(first);
  } else memset(grp, 0, (n ? n : 1) * sizeof *grp);
  int64_t *o;
  size_t ns = pl_cp_spans(grp, sv, ev, skip, n, gap, &o);
  if (ns == (size_t)-1) return luaL_error(L, "critpath.spans: out of memory");
  pl_table *r = pl_table_new("spans");
  pl_column *c_row = newcol(r, "row", PL_INT, ns), *c_s = newcol(r, scol, PL_INT, ns);
  pl_column *c_e = newcol(r, ecol, PL_INT, ns), *c_n = newcol(r, "events", PL_INT, ns);
  for (size_t q = 0; q < ns; q++) {
    c_row->v.i64[q] = o[4 * q] + 1;
    c_s->v.i64[q] = o[4 * q + 1];
    c_e->v.i64[q] = o[4 * q + 2];
    c_n->v.i64[q] = o[4 * q + 3];
  }
  r->nrows = ns;
  pl_mem_free(o);
  pl_l_pushtable(L, r);
  return 1;
}

int luaopen_perflab_critpath(lua_State *L) {
  static const luaL_Reg fns[] = { { "run", l_run }, { "spans", l_spans }, { NULL, NULL } };
  luaL_newlib(L, fns);
  lua_createtable(L, 0, 5);
  static const char *const et[] = { "critical_path_operator", "critical_path_dependency",
                                    "critical_path_kernel_launch_delay", "critical_path_kernel_kernel_delay",
                                    "critical_path_sync_dependency" };
  for (int i = 0; i < 5; i++) {
    lua_pushstring(L, et[i]);
    lua_rawseti(L, -2, i);
  }
  lua_setfield(L, -2, "edge_types");
  lua_createtable(L, 0, 12);
  setint(L, "cat_cpu_op", PL_CP_CAT_CPU_OP);
  setint(L, "cat_runtime", PL_CP_CAT_RUNTIME);
  setint(L, "cat_sync", PL_CP_CAT_SYNC);
  setint(L, "launch", PL_CP_N_LAUNCH);
  setint(L, "blocking", PL_CP_N_BLOCKING);
  setint(L, "event_record", PL_CP_N_EVENT_RECORD);
  setint(L, "wait_event_call", PL_CP_N_WAIT_EVENT_CALL);
  setint(L, "context_sync", PL_CP_N_CONTEXT_SYNC);
  setint(L, "stream_sync", PL_CP_N_STREAM_SYNC);
  setint(L, "event_sync", PL_CP_N_EVENT_SYNC);
  setint(L, "stream_wait", PL_CP_N_STREAM_WAIT);
  setint(L, "annotation", PL_CP_N_ANNOTATION);
  lua_setfield(L, -2, "codes");
  return 1;
}

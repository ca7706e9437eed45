/*
** l_formats.c -- Lua module 'perflab.formats': the input formats of the C
** core.  load() reads a file into a plain profile record (the Lua library
** wraps it, see lua/perflab/profile.lua); errors in the data are returned
** as nil, "FILE:LINE:COLUMN: message" (the caller decides to raise).
*/
#include "lbind.h"
#include "format.h"
#include "names.h"
#include "pl_limits.h"
#include "pl_loadmany.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Set by the host's SIGINT handler while a parse runs. */
volatile int pl_parse_interrupt = 0;

void pl_l_pushprofile(lua_State *L, pl_profile *p) {
  lua_createtable(L, 0, 6);
  lua_pushstring(L, p->format); lua_setfield(L, -2, "format");
  lua_pushstring(L, p->source); lua_setfield(L, -2, "source");
  lua_createtable(L, 0, (int)p->nmeta);
  for (size_t i = 0; i < p->nmeta; i++) {
    double v = p->meta[i].num;
    if (p->meta[i].text) lua_pushstring(L, p->meta[i].text);
    else if (v == (double)(lua_Integer)v && v > -9007199254740992.0 && v < 9007199254740992.0) lua_pushinteger(L, (lua_Integer)v);
    else lua_pushnumber(L, v);
    lua_setfield(L, -2, p->meta[i].key);
  }
  lua_setfield(L, -2, "meta");
  lua_createtable(L, 0, (int)p->ntables);
  lua_createtable(L, (int)p->ntables, 0);     /* table order as the parser made them */
  for (size_t i = 0; i < p->ntables; i++) {
    pl_table *t = p->tables[i];
    p->tables[i] = NULL;
    lua_pushstring(L, t->name);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
    pl_l_pushtable(L, t);
    lua_setfield(L, -3, t->name);
  }
  p->ntables = 0;
  lua_setfield(L, -3, "table_order");
  lua_setfield(L, -2, "tables");
  lua_createtable(L, (int)p->ndiags, 0);
  for (size_t i = 0; i < p->ndiags; i++) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, (lua_Integer)p->diags[i].line); lua_setfield(L, -2, "line");
    lua_pushstring(L, p->diags[i].msg); lua_setfield(L, -2, "message");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  if (p->ndiags_dropped) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, 0); lua_setfield(L, -2, "line");
    lua_pushfstring(L, "%d more diagnostics not kept", (int)p->ndiags_dropped); lua_setfield(L, -2, "message");
    lua_rawseti(L, -2, (lua_Integer)p->ndiags + 1);
  }
  lua_setfield(L, -2, "diagnostics");
}

/* ---- progress bar ------------------------------------------------------
** Parsers report (done, total) bytes now and then (every few MB or few
** thousand lines).  When stderr is a terminal and a parse has run for half a
** second, a one-line bar with the rate goes to stderr, redrawn at most ten
** times a second and erased when the parse ends. */
typedef struct progress {
  double t0, last;
  int shown;
} progress;

static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void on_progress(void *ud, size_t done, size_t total) {
  progress *pg = ud;
  double now = mono();
  if (now - pg->t0 < 0.5 || now - pg->last < 0.1) return;
  pg->last = now;
  pg->shown = 1;
  enum { W = 30 };
  if (done > total) done = total;
  int fill = total ? (int)((double)W * (double)done / (double)total) : W;
  char bar[W + 1];
  for (int i = 0; i < W; i++) bar[i] = i < fill ? '#' : '.';
  bar[W] = '\0';
  fprintf(stderr, "\rreading [%s] %3d%%  %.0f MB of %.0f MB  %.0f MB/s ", bar,
          total ? (int)(100.0 * (double)done / (double)total) : 100, (double)done / 1e6, (double)total / 1e6,
          (double)done / 1e6 / (now - pg->t0));
  fflush(stderr);
}

static void progress_end(progress *pg) {
  if (pg->shown) { fprintf(stderr, "\r%78s\r", ""); fflush(stderr); }
}

typedef struct loadopts {
  const char *format;
  const char *tables[64];
  pl_parse_opts o;
  progress pg;
} loadopts;

static void read_opts(lua_State *L, int arg, loadopts *lo) {
  memset(lo, 0, sizeof *lo);
  lo->o.interrupt = &pl_parse_interrupt;
  if (isatty(2)) {
    lo->pg.t0 = mono();
    lo->o.progress = on_progress;
    lo->o.progress_ud = &lo->pg;
  }
  if (!lua_istable(L, arg)) return;
  lua_getfield(L, arg, "format");
  lo->format = lua_tostring(L, -1);      /* anchored in the options table */
  lua_pop(L, 1);
  lua_getfield(L, arg, "lenient");
  lo->o.lenient = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, arg, "raw_text");
  lo->o.raw_text = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, arg, "tables");
  if (lua_istable(L, -1)) {
    int n = (int)luaL_len(L, -1);
    if (n > 63) n = 63;
    for (int i = 1; i <= n; i++) {
      lua_geti(L, -1, i);
      lo->tables[i - 1] = lua_tostring(L, -1);
      lua_pop(L, 1);
    }
    lo->tables[n] = NULL;
    lo->o.tables = lo->tables;
  }
  lua_pop(L, 1);
}

static int finish(lua_State *L, pl_profile *p, pl_err *e) {
  if (p == NULL) {
    char msg[2048];
    if (pl_time_up()) snprintf(e->msg, sizeof e->msg, "time limit exceeded while reading (--timeout)");
    pl_err_format(e, msg, sizeof msg);
    luaL_pushfail(L);
    lua_pushstring(L, msg);
    return 2;
  }
  pl_l_pushprofile(L, p);
  pl_profile_free(p);
  return 1;
}

/* load(path [, {format=, tables={...}, lenient=, raw_text=}]) -> record | nil, msg */
static int fmt_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  loadopts lo;
  read_opts(L, 2, &lo);
  pl_err e;
  pl_parse_interrupt = 0;
  pl_oom_file = path;
  pl_profile *p = pl_load_file(path, lo.format, &lo.o, &e);
  pl_oom_file = NULL;
  progress_end(&lo.pg);
  return finish(L, p, &e);
}

/* load_many(paths, opts, jobs) -> {record...} | nil, msg: the files parsed
** on `jobs` threads (0 or nil: the core count); each record is built as
** soon as its file (and those before it) are parsed.  The first error in
** file order stops the rest and is returned, naming its file. */
static int fmt_load_many(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer n = luaL_len(L, 1);
  if (n < 0) n = 0;
  const char **paths = lua_newuserdatauv(L, sizeof *paths * (size_t)(n ? n : 1), 0);  /* freed by the GC */
  lua_createtable(L, (int)n, 0);   /* anchors the path strings */
  int anchor = lua_gettop(L);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 1, i);
    if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "load_many: element %d of the file list is not a string", (int)i);
    paths[i - 1] = lua_tostring(L, -1);
    lua_rawseti(L, anchor, i);
  }
  loadopts lo;
  read_opts(L, 2, &lo);
  int jobs = (int)luaL_optinteger(L, 3, 0);
  pl_parse_interrupt = 0;
  pl_many *m = pl_many_start(paths, (size_t)n, lo.format, &lo.o, jobs);
  lua_createtable(L, (int)n, 0);
  for (lua_Integer i = 0; i < n; i++) {
    pl_err e;
    pl_profile *p = pl_many_take(m, (size_t)i, &e);
    if (!p) {
      pl_many_finish(m);
      return finish(L, NULL, &e);
    }
    pl_l_pushprofile(L, p);
    pl_profile_free(p);
    lua_rawseti(L, -2, i + 1);
  }
  pl_many_finish(m);
  return 1;
}

/* cores() -> the number of online CPU cores (load_many's default) */
static int fmt_cores(lua_State *L) {
  lua_pushinteger(L, pl_many_cores());
  return 1;
}

/* parse(name, text [, opts]) -> record | nil, msg */
static int fmt_parse(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  size_t len;
  const char *text = luaL_checklstring(L, 2, &len);
  loadopts lo;
  read_opts(L, 3, &lo);
  pl_err e;
  pl_parse_interrupt = 0;
  pl_profile *p = pl_load_buffer(name, text, len, lo.format, &lo.o, &e);
  progress_end(&lo.pg);
  return finish(L, p, &e);
}

static int fmt_list(lua_State *L) {
  size_t n;
  const pl_format *const *f = pl_formats(&n);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, f[i]->id); lua_setfield(L, -2, "id");
    lua_pushstring(L, f[i]->summary); lua_setfield(L, -2, "summary");
    lua_pushstring(L, f[i]->tables); lua_setfield(L, -2, "tables");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* detect(text) -> format id or nil */
static int fmt_detect(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  const pl_format *f = pl_format_detect(s, len);
  if (f) lua_pushstring(L, f->id); else luaL_pushfail(L);
  return 1;
}

/* short_name(name) -> the kernel's short name (core/names.c), truncated -> bool */
static int fmt_short_name(lua_State *L) {
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  char buf[1024];
  size_t k = pl_short_name(s, n, buf, sizeof buf);
  lua_pushlstring(L, buf, k);
  lua_pushboolean(L, pl_name_truncated(s, n));
  return 2;
}

static const luaL_Reg funcs[] = {
  {"short_name", fmt_short_name},
  {"load", fmt_load}, {"load_many", fmt_load_many}, {"cores", fmt_cores}, {"parse", fmt_parse}, {"list", fmt_list}, {"detect", fmt_detect},
  {NULL, NULL}
};

int luaopen_perflab_formats(lua_State *L) {
  luaL_newlib(L, funcs);
  return 1;
}

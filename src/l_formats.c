/*
** l_formats.c -- Lua module 'perflab.formats': the input formats of the C
** core.  load() reads a file into a plain profile record (the Lua library
** wraps it, see lua/perflab/profile.lua); errors in the data are returned
** as nil, "FILE:LINE:COLUMN: message" (the caller decides to raise).
** Interrupts, the progress bar and the host's advice in messages come from
** the parse hooks the host lends (lbind.h); this file knows no host.
*/
#include "lbind.h"
#include "format.h"
#include "names.h"
#include "schema.h"
#include "loadmany.h"
#include "par.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const char hooks_key = 'h'; /* registry[&hooks_key] = light pl_l_parsehooks* */

void pl_l_sethooks(lua_State *L, const pl_l_parsehooks *h) {
  if (h) lua_pushlightuserdata(L, (void *)h);
  else lua_pushnil(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &hooks_key);
}

static const pl_l_parsehooks *gethooks(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &hooks_key); /* [... h] */
  const pl_l_parsehooks *h = (const pl_l_parsehooks *)lua_touserdata(L, -1);
  lua_pop(L, 1); /* [...] */
  return h;
}

/* [...] -> [... record].  Tables move into table objects one by one: each
** leaves p (p->tables[i] = NULL) as pl_l_pushtable takes it (which frees it
** if the object cannot be made), so a memory error half-way leaves every
** table owned by exactly one of p, an object, or nobody (freed). */
void pl_l_pushprofile(lua_State *L, pl_profile *p) {
  int top = lua_gettop(L);
  lua_createtable(L, 0, 6); /* [rec] */
  lua_pushstring(L, p->format);
  lua_setfield(L, -2, "format");
  lua_pushstring(L, p->source);
  lua_setfield(L, -2, "source");
  lua_createtable(L, 0, (int)p->nmeta); /* [rec meta] */
  for (size_t i = 0; i < p->nmeta; i++) {
    double v = p->meta[i].num;
    if (p->meta[i].text) lua_pushstring(L, p->meta[i].text);
    else if (v == (double)(lua_Integer)v && v > -9007199254740992.0 && v < 9007199254740992.0)
      lua_pushinteger(L, (lua_Integer)v);
    else lua_pushnumber(L, v);           /* [rec meta v] */
    lua_setfield(L, -2, p->meta[i].key); /* meta[key] = v */
  }
  lua_setfield(L, -2, "meta");            /* [rec] */
  lua_createtable(L, 0, (int)p->ntables); /* [rec tables] */
  lua_createtable(L, (int)p->ntables, 0); /* [rec tables order]: as the parser made them */
  for (size_t i = 0; i < p->ntables; i++) {
    pl_table *t = p->tables[i];
    lua_pushstring(L, t->name);             /* [rec tables order name] */
    lua_rawseti(L, -2, (lua_Integer)i + 1); /* order[i+1] = name */
    p->tables[i] = NULL;                    /* pl_l_pushtable owns t from here */
    pl_l_pushtable(L, t);                   /* [rec tables order T] */
    lua_setfield(L, -3, t->name);           /* tables[name] = T */
  }
  p->ntables = 0;
  lua_setfield(L, -3, "table_order");    /* [rec tables] */
  lua_setfield(L, -2, "tables");         /* [rec] */
  lua_createtable(L, (int)p->ndiags, 0); /* [rec diags] */
  for (size_t i = 0; i < p->ndiags; i++) {
    lua_createtable(L, 0, 2); /* [rec diags d] */
    lua_pushinteger(L, (lua_Integer)p->diags[i].line);
    lua_setfield(L, -2, "line");
    lua_pushstring(L, p->diags[i].msg);
    lua_setfield(L, -2, "message");
    lua_rawseti(L, -2, (lua_Integer)i + 1); /* [rec diags] */
  }
  if (p->ndiags_dropped) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, 0);
    lua_setfield(L, -2, "line");
    lua_pushfstring(L, "%d more diagnostics not kept", (int)p->ndiags_dropped);
    lua_setfield(L, -2, "message");
    lua_rawseti(L, -2, (lua_Integer)p->ndiags + 1);
  }
  lua_setfield(L, -2, "diagnostics"); /* [rec] */
  assert(lua_gettop(L) == top + 1);   /* pushed exactly the record */
  (void)top;
}

/* A profile in a box whose __gc frees it: a memory error while the record
** is built (or before the parse returns) frees what the core made. */
#define PL_PROFILEBOX_T "perflab.ProfileBox"

static int pbox_gc(lua_State *L) {
  pl_profile **b = (pl_profile **)luaL_checkudata(L, 1, PL_PROFILEBOX_T);
  if (*b) {
    pl_profile_free(*b);
    *b = NULL;
  }
  return 0;
}

/* [...] -> [... box], empty */
static pl_profile **newbox(lua_State *L) {
  pl_profile **b = (pl_profile **)lua_newuserdatauv(L, sizeof *b, 0);
  *b = NULL;                                   /* empty until filled: __gc is safe */
  if (luaL_newmetatable(L, PL_PROFILEBOX_T)) { /* [... box mt] */
    lua_pushcfunction(L, pbox_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2); /* [... box] */
  return b;
}

typedef struct loadopts {
  const char *format;
  const char *tables[64];
  pl_parse_opts o;
  const pl_l_parsehooks *hooks; /* NULL in a bare state */
} loadopts;

/* Reads the options table at arg (strings stay anchored in it). */
static void read_opts(lua_State *L, int arg, loadopts *lo) {
  static const char *const accepted[] = { "format", "lenient", "raw_text", "tables", "jobs", "chunk_bytes", NULL };
  memset(lo, 0, sizeof *lo);
  lo->hooks = gethooks(L);
  if (!lua_istable(L, arg)) return;
  pl_l_checkoptions(L, arg, accepted);
  lua_getfield(L, arg, "format");
  lo->format = lua_tostring(L, -1); /* anchored in the options table */
  lua_pop(L, 1);
  lua_getfield(L, arg, "lenient");
  lo->o.lenient = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, arg, "raw_text");
  lo->o.raw_text = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, arg, "jobs"); /* threads for one file (0 or nil: the core count) */
  lua_Integer jobs = luaL_optinteger(L, -1, 0);
  lo->o.jobs = jobs < 0 ? 0 : jobs > 1024 ? 1024 : (int)jobs;
  lua_pop(L, 1);
  lua_getfield(L, arg, "chunk_bytes"); /* the piece each thread reads (tests) */
  lua_Integer cb = luaL_optinteger(L, -1, 0);
  lo->o.chunk_bytes = cb < 0 ? 0 : (size_t)cb;
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

static void begin(loadopts *lo) {
  if (lo->hooks) lo->hooks->begin(&lo->o);
}

/* [... box] -> [... box record] | [... box nil msg]; returns the number
** pushed.  The box holds the profile until the record owns its tables. */
static int finish(lua_State *L, loadopts *lo, pl_profile **box, pl_err *e) {
  if (lo->hooks) lo->hooks->end(&lo->o, *box ? NULL : e);
  if (*box == NULL) {
    char msg[2048];
    pl_err_format(e, msg, sizeof msg);
    luaL_pushfail(L);
    lua_pushstring(L, msg);
    return 2;
  }
  pl_l_pushprofile(L, *box);
  pl_profile_free(*box); /* what is left: meta, diagnostics */
  *box = NULL;
  return 1;
}

/* load(path [, {format=, tables={...}, lenient=, raw_text=}]) -> record | nil, msg */
static int fmt_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  loadopts lo;
  read_opts(L, 2, &lo);
  pl_err e;
  pl_profile **box = newbox(L);
  begin(&lo);
  pl_oom_file = path; /* named by an out-of-memory message */
  *box = pl_load_file(path, lo.format, &lo.o, &e);
  pl_oom_file = NULL;
  return finish(L, &lo, box, &e);
}

static int many_gc(lua_State *L) {
  pl_many **b = (pl_many **)luaL_checkudata(L, 1, "perflab.ManyLoad");
  if (*b) {
    pl_many_finish(*b);
    *b = NULL;
  }
  return 0;
}

/* load_many(paths, opts, jobs) -> {record...} | nil, msg: the files parsed
** on `jobs` threads (0 or nil: the core count); each record is built as
** soon as its file (and those before it) are parsed.  The first error in
** file order stops the rest and is returned, naming its file. */
static int fmt_load_many(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer n = luaL_len(L, 1);
  if (n < 0) n = 0;
  const char **paths = lua_newuserdatauv(L, sizeof *paths * (size_t)(n ? n : 1), 0); /* [... paths]: freed by the GC */
  lua_createtable(L, (int)n, 0); /* [... paths anchor]: keeps the path strings */
  int anchor = lua_gettop(L);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, 1, i); /* [... anchor path] */
    if (lua_type(L, -1) != LUA_TSTRING)
      return luaL_error(L, "load_many: element %d of the file list is not a string", (int)i);
    paths[i - 1] = lua_tostring(L, -1);
    lua_rawseti(L, anchor, i); /* [... anchor] */
  }
  loadopts lo;
  read_opts(L, 2, &lo);
  int jobs = (int)luaL_optinteger(L, 3, 0);
  /* the running load in a box whose __gc stops and joins it, so a memory
  ** error while a record is built leaves no thread behind */
  pl_many **mb = (pl_many **)lua_newuserdatauv(L, sizeof *mb, 0); /* [... anchor mbox] */
  *mb = NULL;
  if (luaL_newmetatable(L, "perflab.ManyLoad")) {
    lua_pushcfunction(L, many_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  begin(&lo);
  *mb = pl_many_start(paths, (size_t)n, lo.format, &lo.o, jobs);
  lua_createtable(L, (int)n, 0); /* [... mbox records] */
  for (lua_Integer i = 0; i < n; i++) {
    pl_err e;
    pl_profile **box = newbox(L); /* [... mbox records box] */
    *box = pl_many_take(*mb, (size_t)i, &e);
    if (!*box) {
      pl_many_finish(*mb);
      *mb = NULL;
      return finish(L, &lo, box, &e); /* [... box nil msg] */
    }
    pl_l_pushprofile(L, *box); /* [... mbox records box rec] */
    pl_profile_free(*box);
    *box = NULL;
    lua_rawseti(L, -3, i + 1); /* records[i+1] = rec */
    lua_pop(L, 1);             /* [... mbox records] */
  }
  pl_many_finish(*mb);
  *mb = NULL;
  if (lo.hooks) lo.hooks->end(&lo.o, NULL);
  return 1;
}

/* cores() -> the number of online CPU cores (load_many's default) */
static int fmt_cores(lua_State *L) {
  lua_pushinteger(L, pl_par_cores());
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
  pl_profile **box = newbox(L);
  begin(&lo);
  *box = pl_load_buffer(name, text, len, lo.format, &lo.o, &e);
  return finish(L, &lo, box, &e);
}

static int fmt_list(lua_State *L) {
  size_t n;
  const pl_format *const *f = pl_formats(&n);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, f[i]->id);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, f[i]->summary);
    lua_setfield(L, -2, "summary");
    lua_pushstring(L, f[i]->tables);
    lua_setfield(L, -2, "tables");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* detect(text) -> format id or nil */
static int fmt_detect(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  const pl_format *f = pl_format_detect(s, len);
  if (f) lua_pushstring(L, f->id);
  else luaL_pushfail(L);
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

/* schema() -> {{table =, name =, type =, unit =, doc =}, ...}: the standard
** columns of src/core/schema.c, in documentation order (a column's unit ""
** when it has none). */
static int fmt_schema(lua_State *L) {
  lua_newtable(L);
  pl_std_column c;
  for (size_t i = 0; pl_schema_column(i, &c); i++) {
    lua_createtable(L, 0, 5);
    lua_pushstring(L, c.table);
    lua_setfield(L, -2, "table");
    lua_pushstring(L, c.name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, pl_type_name(c.type));
    lua_setfield(L, -2, "type");
    lua_pushstring(L, c.unit);
    lua_setfield(L, -2, "unit");
    lua_pushstring(L, c.doc);
    lua_setfield(L, -2, "doc");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static const luaL_Reg funcs[] = { { "short_name", fmt_short_name },
                                  { "load", fmt_load },
                                  { "schema", fmt_schema },
                                  { "load_many", fmt_load_many },
                                  { "cores", fmt_cores },
                                  { "parse", fmt_parse },
                                  { "list", fmt_list },
                                  { "detect", fmt_detect },
                                  { NULL, NULL } };

int luaopen_perflab_formats(lua_State *L) {
  luaL_newlib(L, funcs);
  return 1;
}

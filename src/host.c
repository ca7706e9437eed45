/*
** host.c -- creates perflab Lua states.  The one list of built-in C modules
** lives here and goes into package.preload (nothing becomes a global); the
** Lua library under lua/perflab/ is found by a searcher that reads the copy
** embedded at build time (the table embedded_lua.c generates), or the files
** under $PERFLAB_LUA_DIR when set, so editing Lua needs no rebuild.
**
** Layers (docs/design-notes.md): host.c -> session.c, pl_call.c and the
** bindings (l_*.c); the bindings -> the core only.  What only the host
** knows reaches Lua as functions the host adds (perflab.sys.embedded) and
** reaches the bindings as hooks it lends (pl_call_lend_hooks).
*/
#include "host.h"
#include "lbind.h"
#include "pl_call.h"
#include "pl_limits.h"
#include "serve.h"
#include "session.h"

#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua-cjson.h>

/* ---- embedded files ---------------------------------------------------- */

typedef struct pl_embedded {
  const char *path;
  const unsigned char *data;
  size_t len;
} pl_embedded;
extern const pl_embedded pl_embedded_files[]; /* generated: embedded_lua.c */

const char *pl_host_embedded(const char *path, size_t *len) {
  for (const pl_embedded *e = pl_embedded_files; e->path; e++)
    if (strcmp(e->path, path) == 0) {
      *len = e->len;
      return (const char *)e->data;
    }
  return NULL;
}

/* embedded(path) -> text | fail */
static int host_embedded(lua_State *L) {
  size_t len;
  const char *s = pl_host_embedded(luaL_checkstring(L, 1), &len);
  if (s) lua_pushlstring(L, s, len);
  else luaL_pushfail(L);
  return 1;
}

/* embedded_list([prefix]) -> the embedded paths starting with prefix */
static int host_embedded_list(lua_State *L) {
  const char *prefix = luaL_optstring(L, 1, "");
  size_t pl = strlen(prefix);
  lua_newtable(L); /* [prefix list] */
  int n = 0;
  for (const pl_embedded *e = pl_embedded_files; e->path; e++)
    if (strncmp(e->path, prefix, pl) == 0) {
      lua_pushstring(L, e->path);
      lua_rawseti(L, -2, ++n);
    }
  return 1;
}

/* perflab.sys as the host gives it: the binding's OS facts (l_sys.c) and
** the embedded files, which only the host has. */
static int open_sys(lua_State *L) {
  luaopen_perflab_sys(L); /* [sys] */
  lua_pushcfunction(L, host_embedded);
  lua_setfield(L, -2, "embedded"); /* sys.embedded = ... */
  lua_pushcfunction(L, host_embedded_list);
  lua_setfield(L, -2, "embedded_list");
  return 1;
}

/* ---- modules and the searcher --------------------------------------------- */

/* The only list of built-in C modules. */
static const luaL_Reg builtin_modules[] = { { "perflab.table", luaopen_perflab_table },
                                            { "perflab.formats", luaopen_perflab_formats },
                                            { "perflab.sys", open_sys },
                                            { "perflab.session", luaopen_perflab_session },
                                            { "perflab.httpd", luaopen_perflab_httpd },
                                            { "perflab.stats", luaopen_perflab_stats },
                                            { "perflab.intervals", luaopen_perflab_intervals },
                                            { "perflab.options", luaopen_perflab_options },
                                            { "perflab.occupancy_calc", luaopen_perflab_occupancy_calc },
                                            { "perflab.opargs", luaopen_perflab_opargs },
                                            { "perflab.critpath", luaopen_perflab_critpath },
                                            { "cjson", luaopen_cjson },
                                            { NULL, NULL } };

/* Module name -> embedded path: "perflab" -> lua/perflab/init.lua,
** "perflab.report" -> lua/perflab/report.lua. */
static void module_path(const char *name, char *out, size_t outsz) {
  char tmp[512];
  snprintf(tmp, sizeof tmp, "%s", name);
  for (char *p = tmp; *p; p++)
    if (*p == '.') *p = '/';
  if (strcmp(name, "perflab") == 0) snprintf(out, outsz, "lua/perflab/init.lua");
  else snprintf(out, outsz, "lua/%s.lua", tmp);
}

/* package.searchers entry: embedded library, or $PERFLAB_LUA_DIR on disk.
** (name) -> loader, path | message */
static int searcher(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  if (strncmp(name, "perflab", 7) != 0 || (name[7] != '\0' && name[7] != '.')) {
    lua_pushfstring(L, "no embedded module '%s'", name);
    return 1;
  }
  char path[600];
  module_path(name, path, sizeof path);
  const char *dir = getenv("PERFLAB_LUA_DIR");
  if (dir && *dir) {
    /* path is "lua/..."; PERFLAB_LUA_DIR names the "lua" directory */
    const char *file = lua_pushfstring(L, "%s/%s", dir, path + 4); /* [name file] */
    FILE *f = fopen(file, "r");
    if (f) {
      fclose(f);
      if (luaL_loadfile(L, file) != LUA_OK) return lua_error(L);
      lua_pushstring(L, file); /* [name file chunk file] */
      return 2;
    }
    lua_pop(L, 1); /* [name] */
  }
  size_t len;
  const char *src = pl_host_embedded(path, &len);
  if (src == NULL) {
    lua_pushfstring(L, "no file '%s' in the embedded library", path);
    return 1;
  }
  const char *chunk = lua_pushfstring(L, "@%s", path); /* [name @path] */
  if (luaL_loadbufferx(L, src, len, chunk, "t") != LUA_OK) return lua_error(L);
  lua_pushstring(L, path); /* [name @path chunk path] */
  return 2;
}

/* preload[name] = opener for every built-in module, and the searcher at
** package.searchers[2] (after the preload searcher).  Raw table operations
** only: no call into Lua code (a script may have replaced `table`). */
static void install_preloads(lua_State *L) {
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE); /* [preload] */
  luaL_setfuncs(L, builtin_modules, 0);
  lua_pop(L, 1);                                                              /* [] */
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);                   /* [loaded] */
  lua_getfield(L, -1, LUA_LOADLIBNAME);                                       /* [loaded package] */
  if (lua_istable(L, -1) && lua_getfield(L, -1, "searchers") == LUA_TTABLE) { /* [loaded package s] */
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = n; i >= 2; i--) { /* s[i+1] = s[i] */
      lua_rawgeti(L, -1, i);
      lua_rawseti(L, -2, i + 1);
    }
    lua_pushcfunction(L, searcher);
    lua_rawseti(L, -2, 2); /* s[2] = searcher */
  }
  lua_settop(L, top);
}

static int panic(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "perflab: unprotected error in Lua: %s\n", msg ? msg : "(not a string)");
  return 0;
}

void pl_host_install(lua_State *L) {
  install_preloads(L);
  pl_call_lend_hooks(L);
}

lua_State *pl_host_newstate(void) {
  lua_State *L = lua_newstate(pl_limit_alloc, NULL);
  if (L == NULL) return NULL;
  lua_atpanic(L, panic);
  luaL_openlibs(L);
  pl_host_install(L);
  return L;
}

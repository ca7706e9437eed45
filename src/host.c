/*
** host.c -- creates perflab Lua states.  The one list of built-in C modules
** lives here and goes into package.preload (nothing becomes a global); the
** Lua library under lua/perflab/ is found by a searcher that reads the copy
** embedded at build time, or the files under $PERFLAB_LUA_DIR when set, so
** editing Lua needs no rebuild.  Every call into Lua is protected and
** reports a traceback; Ctrl-C arms a count hook that raises "interrupted".
*/
#include "host.h"
#include "lbind.h"
#include "pl_limits.h"

#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua-cjson.h>

int luaopen_perflab_sys(lua_State *L);

/* The only list of built-in C modules. */
static const luaL_Reg builtin_modules[] = {
  {"perflab.table", luaopen_perflab_table},
  {"perflab.formats", luaopen_perflab_formats},
  {"perflab.sys", luaopen_perflab_sys},
#ifdef PERFLAB_HAVE_STATS
  {"perflab.stats", luaopen_perflab_stats},
  {"perflab.intervals", luaopen_perflab_intervals},
#endif
  {"cjson", luaopen_cjson},
  {NULL, NULL}
};

/* Module name -> embedded path: "perflab" -> lua/perflab/init.lua,
** "perflab.report" -> lua/perflab/report.lua. */
static void module_path(const char *name, char *out, size_t outsz) {
  char tmp[512];
  snprintf(tmp, sizeof tmp, "%s", name);
  for (char *p = tmp; *p; p++) if (*p == '.') *p = '/';
  if (strcmp(name, "perflab") == 0) snprintf(out, outsz, "lua/perflab/init.lua");
  else snprintf(out, outsz, "lua/%s.lua", tmp);
}

/* package.searchers entry: embedded library, or $PERFLAB_LUA_DIR on disk. */
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
    const char *file = lua_pushfstring(L, "%s/%s", dir, path + 4);
    FILE *f = fopen(file, "r");
    if (f) {
      fclose(f);
      if (luaL_loadfile(L, file) != LUA_OK) return lua_error(L);
      lua_pushstring(L, file);
      return 2;
    }
    lua_pop(L, 1);
  }
  size_t len;
  const char *src = pl_host_embedded(path, &len);
  if (src == NULL) {
    lua_pushfstring(L, "no file '%s' in the embedded library", path);
    return 1;
  }
  const char *chunk = lua_pushfstring(L, "@%s", path);
  if (luaL_loadbufferx(L, src, len, chunk, "t") != LUA_OK) return lua_error(L);
  lua_pushstring(L, path);
  return 2;
}

static void install_preloads(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  luaL_setfuncs(L, builtin_modules, 0);
  lua_pop(L, 1);
  /* searcher goes right after the preload searcher */
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchers");
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "insert");
  lua_pushvalue(L, -3);
  lua_pushinteger(L, 2);
  lua_pushcfunction(L, searcher);
  lua_call(L, 3, 0);
  lua_pop(L, 3);
}

static int panic(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  fprintf(stderr, "perflab: unprotected error in Lua: %s\n", msg ? msg : "(not a string)");
  return 0;
}

void pl_host_install(lua_State *L) {
  install_preloads(L);
}

lua_State *pl_host_newstate(void) {
  lua_State *L = lua_newstate(pl_limit_alloc, NULL);
  if (L == NULL) return NULL;
  lua_atpanic(L, panic);
  luaL_openlibs(L);
  install_preloads(L);
  return L;
}

/* ---- protected calls ---------------------------------------------------- */

static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  /* Errors raised on purpose by perflab for the user (bad input, bad usage)
  ** are tables {perflab_error = msg, exit = n}; they pass through as is. */
  luaL_traceback(L, L, msg, 1);
  return 1;
}


int pl_host_msghandler(lua_State *L) {
  if (lua_istable(L, 1)) return 1;   /* a perflab.fail{} error: no traceback */
  return msghandler(L);
}

static lua_State *volatile sig_L = NULL;

static void interrupt_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  /* the bare word: where it stopped is in the traceback (scripts, REPL) */
  lua_pushliteral(L, "interrupted");
  lua_error(L);
}

extern volatile int pl_parse_interrupt;

static void on_sigint(int sig) {
  signal(sig, SIG_DFL);   /* a second Ctrl-C ends the process */
  pl_parse_interrupt = 1;
  if (sig_L) lua_sethook(sig_L, interrupt_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

void pl_host_catch_sigint(lua_State *L) {
  sig_L = L;
  signal(SIGINT, on_sigint);
}

void pl_host_release_sigint(void) {
  signal(SIGINT, SIG_DFL);
  sig_L = NULL;
}

int pl_host_docall(lua_State *L, int narg, int nres) {
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, pl_host_msghandler);
  lua_insert(L, base);
  /* the SIGINT disposition in force before (an outer call's, or the
  ** embedding program's) is put back afterwards */
  struct sigaction old;
  lua_State *old_L = sig_L;
  sigaction(SIGINT, NULL, &old);
  pl_host_catch_sigint(L);
  int status = lua_pcall(L, narg, nres, base);
  sig_L = old_L;
  sigaction(SIGINT, &old, NULL);
  lua_remove(L, base);
  return status;
}

int pl_host_report(lua_State *L, int status) {
  if (status == LUA_OK) return status;
  const char *msg = NULL;
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "message");
    msg = lua_tostring(L, -1);
    lua_pop(L, 1);
  } else msg = lua_tostring(L, -1);
  /* a traceback's last frame is main.c's pmain: not the user's */
  size_t n = msg ? strlen(msg) : 0;
  static const char tail[] = "\n\t[C]: in ?";
  if (n >= sizeof tail - 1 && strcmp(msg + n - (sizeof tail - 1), tail) == 0) n -= sizeof tail - 1;
  if (msg) fprintf(stderr, "perflab: %.*s\n", (int)n, msg);
  else fprintf(stderr, "perflab: (error object is not a string)\n");
  fflush(stderr);
  lua_pop(L, 1);
  return status;
}

/*
** l_sys.c -- Lua module 'perflab.sys': the few host facts the Lua library
** needs and the Lua standard library lacks: terminal queries, a monotonic
** clock, directories, atomic file writes, and the embedded Lua files.
*/
#include "lbind.h"
#include "host.h"
#include "repl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

typedef struct pl_embedded { const char *path; const unsigned char *data; size_t len; } pl_embedded;
extern const pl_embedded pl_embedded_files[];

const char *pl_host_embedded(const char *path, size_t *len) {
  for (const pl_embedded *e = pl_embedded_files; e->path; e++)
    if (strcmp(e->path, path) == 0) { *len = e->len; return (const char *)e->data; }
  return NULL;
}

static int sys_isatty(lua_State *L) {
  lua_pushboolean(L, isatty((int)luaL_optinteger(L, 1, 1)));
  return 1;
}

static int sys_term_width(lua_State *L) {
  struct winsize ws;
  const char *cols = getenv("COLUMNS");
  if (cols && atoi(cols) > 0) { lua_pushinteger(L, atoi(cols)); return 1; }
  if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) lua_pushinteger(L, ws.ws_col);
  else lua_pushnil(L);
  return 1;
}

static int sys_clock(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
  return 1;
}

static int sys_embedded(lua_State *L) {
  size_t len;
  const char *s = pl_host_embedded(luaL_checkstring(L, 1), &len);
  if (s) lua_pushlstring(L, s, len); else luaL_pushfail(L);
  return 1;
}

static int sys_embedded_list(lua_State *L) {
  const char *prefix = luaL_optstring(L, 1, "");
  size_t pl = strlen(prefix);
  lua_newtable(L);
  int n = 0;
  for (const pl_embedded *e = pl_embedded_files; e->path; e++)
    if (strncmp(e->path, prefix, pl) == 0) { lua_pushstring(L, e->path); lua_rawseti(L, -2, ++n); }
  return 1;
}

static int sys_isdir(lua_State *L) {
  struct stat st;
  lua_pushboolean(L, stat(luaL_checkstring(L, 1), &st) == 0 && S_ISDIR(st.st_mode));
  return 1;
}

static int sys_isfile(lua_State *L) {
  struct stat st;
  lua_pushboolean(L, stat(luaL_checkstring(L, 1), &st) == 0 && S_ISREG(st.st_mode));
  return 1;
}

static int sys_mkdir(lua_State *L) {   /* mkdir -p */
  const char *path = luaL_checkstring(L, 1);
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return luaL_fileresult(L, 0, buf);
    *p = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return luaL_fileresult(L, 0, buf);
  struct stat st;      /* an existing file of that name is not a directory */
  if (stat(buf, &st) != 0) return luaL_fileresult(L, 0, buf);
  if (!S_ISDIR(st.st_mode)) { errno = ENOTDIR; return luaL_fileresult(L, 0, buf); }
  lua_pushboolean(L, 1);
  return 1;
}

/* listdir(dir [, suffix]) -> sorted array of entry names (ending in suffix) */
static int sys_listdir(lua_State *L) {
  const char *dir = luaL_checkstring(L, 1);
  const char *suffix = luaL_optstring(L, 2, "");
  size_t sl = strlen(suffix);
  lua_newtable(L);
  DIR *d = opendir(dir);
  if (d == NULL) return 1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t k = strlen(e->d_name);
    if (e->d_name[0] == '.' || k < sl || strcmp(e->d_name + k - sl, suffix) != 0) continue;
    lua_pushstring(L, e->d_name);
    lua_rawseti(L, -2, ++n);
  }
  closedir(d);
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "sort");
  lua_pushvalue(L, -3);
  lua_call(L, 1, 0);
  lua_pop(L, 1);
  return 1;
}

/* write_atomic(path, text): writes a temporary file and renames it. */
static int sys_write_atomic(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  const char *tmp = lua_pushfstring(L, "%s.tmp~%d", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return luaL_fileresult(L, 0, path);   /* name the file asked for */
  int bad = len && fwrite(s, 1, len, f) != len;
  bad |= fflush(f) != 0;
  bad |= fclose(f) != 0;
  if (bad) { remove(tmp); return luaL_fileresult(L, 0, path); }
  if (rename(tmp, path) != 0) { int en = errno; remove(tmp); errno = en; return luaL_fileresult(L, 0, path); }
  lua_pushboolean(L, 1);
  return 1;
}

/* repl([interactive]) runs the REPL on stdin/stdout in this state; returns ok */
static int sys_repl(lua_State *L) {
  int interactive = lua_isnoneornil(L, 1) ? isatty(0) : lua_toboolean(L, 1);
  lua_pushboolean(L, pl_repl(L, interactive) == 0);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"repl", sys_repl},
  {"isatty", sys_isatty}, {"term_width", sys_term_width}, {"clock", sys_clock},
  {"embedded", sys_embedded}, {"embedded_list", sys_embedded_list},
  {"isdir", sys_isdir}, {"isfile", sys_isfile}, {"mkdir", sys_mkdir},
  {"write_atomic", sys_write_atomic}, {"listdir", sys_listdir},
  {NULL, NULL}
};

int luaopen_perflab_sys(lua_State *L) {
  luaL_newlib(L, funcs);
  const char *dir = getenv("PERFLAB_LUA_DIR");
  if (dir && *dir) { lua_pushstring(L, dir); lua_setfield(L, -2, "lua_dir"); }
#ifdef PERFLAB_VERSION
  lua_pushstring(L, PERFLAB_VERSION);
#else
  lua_pushstring(L, "0");
#endif
  lua_setfield(L, -2, "version");
#ifdef PERFLAB_SOURCE_DIR
  lua_pushstring(L, PERFLAB_SOURCE_DIR);
  lua_setfield(L, -2, "source_dir");
#endif
  return 1;
}

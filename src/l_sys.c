/*
** l_sys.c -- Lua module 'perflab.sys': the few OS facts the Lua library
** needs and the Lua standard library lacks: terminal queries, a monotonic
** clock, directories, atomic file writes, a text hash (the charts' ids).
** The perflab host adds what only
** it knows to this table (the embedded Lua files: host.c, open_sys); the
** REPL and the cell protocol are perflab.session (session.c).
*/
#include "lbind.h"
#include "pl_util.h"
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

/* Each function's comment gives its Lua signature; results are pushed last
** to first as written, and failures of the OS are `fail, "PATH: reason",
** errno` (luaL_fileresult), as in Lua's io library. */

/* isatty([fd = 1]) -> boolean */
static int sys_isatty(lua_State *L) {
  lua_pushboolean(L, isatty((int)luaL_optinteger(L, 1, 1)));
  return 1;
}

/* term_width() -> columns | nil: $COLUMNS, else the terminal on fd 1 */
static int sys_term_width(lua_State *L) {
  struct winsize ws;
  const char *cols = getenv("COLUMNS");
  if (cols && atoi(cols) > 0) {
    lua_pushinteger(L, atoi(cols));
    return 1;
  }
  if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) lua_pushinteger(L, ws.ws_col);
  else lua_pushnil(L);
  return 1;
}

/* clock() -> seconds (monotonic, a float) */
static int sys_clock(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
  return 1;
}

/* isdir(path) -> boolean */
static int sys_isdir(lua_State *L) {
  struct stat st;
  lua_pushboolean(L, stat(luaL_checkstring(L, 1), &st) == 0 && S_ISDIR(st.st_mode));
  return 1;
}

/* isfile(path) -> boolean (a regular file) */
static int sys_isfile(lua_State *L) {
  struct stat st;
  lua_pushboolean(L, stat(luaL_checkstring(L, 1), &st) == 0 && S_ISREG(st.st_mode));
  return 1;
}

/* mkdir(path) -> true | fail, msg, errno: mkdir -p */
static int sys_mkdir(lua_State *L) {
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
  struct stat st; /* an existing file of that name is not a directory */
  if (stat(buf, &st) != 0) return luaL_fileresult(L, 0, buf);
  if (!S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    return luaL_fileresult(L, 0, buf);
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* An open directory in a box whose __gc closes it: a memory error while the
** names are read leaves no DIR open (created empty first, as liolib.c). */
#define PL_DIR_T "perflab.Dir"
typedef struct dirbox {
  DIR *d;
} dirbox;

static int dirbox_gc(lua_State *L) {
  dirbox *b = (dirbox *)luaL_checkudata(L, 1, PL_DIR_T);
  if (b->d) {
    closedir(b->d);
    b->d = NULL;
  }
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcoll(*(const char *const *)a, *(const char *const *)b); /* as table.sort */
}

/* listdir(dir [, suffix]) -> sorted array of entry names (ending in suffix);
** an empty array when dir cannot be opened. */
static int sys_listdir(lua_State *L) {
  const char *dir = luaL_checkstring(L, 1);
  const char *suffix = luaL_optstring(L, 2, "");
  size_t sl = strlen(suffix);
  lua_settop(L, 2);
  dirbox *b = (dirbox *)lua_newuserdatauv(L, sizeof *b, 0); /* [dir suf box] */
  b->d = NULL;
  if (luaL_newmetatable(L, PL_DIR_T)) { /* [dir suf box mt] */
    lua_pushcfunction(L, dirbox_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, 3); /* [dir suf box] */
  lua_newtable(L);        /* [dir suf box names] */
  b->d = opendir(dir);
  if (b->d == NULL) return 1;
  lua_Integer n = 0;
  struct dirent *e;
  while ((e = readdir(b->d)) != NULL) {
    size_t k = strlen(e->d_name);
    if (e->d_name[0] == '.' || k < sl || strcmp(e->d_name + k - sl, suffix) != 0) continue;
    lua_pushstring(L, e->d_name);
    lua_rawseti(L, 4, ++n); /* names[n] = name */
  }
  closedir(b->d);
  b->d = NULL;
  /* sort: pointers to the names (anchored in `names`), then a new array */
  const char **v = (const char **)lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *v, 0); /* [.. names v] */
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, 4, i);
    v[i - 1] = lua_tostring(L, -1);
    lua_pop(L, 1); /* still anchored in names */
  }
  qsort(v, (size_t)n, sizeof *v, cmp_names);
  lua_createtable(L, (int)n, 0); /* [.. names v out] */
  for (lua_Integer i = 1; i <= n; i++) {
    lua_pushstring(L, v[i - 1]);
    lua_rawseti(L, -2, i);
  }
  return 1;
}

/* write_atomic(path, text) -> true | fail, msg, errno: a regular file (or a
** new name) is written to a temporary file beside it, then renamed over it;
** a device, FIFO or socket is written in place; a link is followed
** (pl_write_output). */
static int sys_write_atomic(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  return luaL_fileresult(L, pl_write_output(path, s, len) == 0, path);
}

/* exe_path() -> the absolute path of the running program (nil if unknown;
** in a stock lua5.4 that loaded perflab.so it is the lua5.4 binary). */
static int sys_exe_path(lua_State *L) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) {
    luaL_pushfail(L);
    return 1;
  }
  lua_pushlstring(L, buf, (size_t)n);
  return 1;
}

/* fnv1a(s) -> the 32-bit FNV-1a hash of the bytes of s, an integer in
** [0, 2^32): the charts' element ids.
** [s] -> [s h] */
static int sys_fnv1a(lua_State *L) {
  size_t n;
  const char *s = luaL_checklstring(L, 1, &n);
  lua_pushinteger(L, (lua_Integer)pl_fnv1a32(s, n));
  return 1;
}

static const luaL_Reg funcs[] = { { "exe_path", sys_exe_path },
                                  { "isatty", sys_isatty },
                                  { "term_width", sys_term_width },
                                  { "clock", sys_clock },
                                  { "isdir", sys_isdir },
                                  { "isfile", sys_isfile },
                                  { "mkdir", sys_mkdir },
                                  { "write_atomic", sys_write_atomic },
                                  { "listdir", sys_listdir },
                                  { "fnv1a", sys_fnv1a },
                                  { NULL, NULL } };

/* -> the module table, with version, source_dir and lua_dir fields */
int luaopen_perflab_sys(lua_State *L) {
  luaL_newlib(L, funcs); /* [sys] */
  const char *dir = getenv("PERFLAB_LUA_DIR");
  if (dir && *dir) {
    lua_pushstring(L, dir);
    lua_setfield(L, -2, "lua_dir");
  }
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

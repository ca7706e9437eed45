/*
** l_sys.c -- Lua module 'perflab.sys': the few host facts the Lua library
** needs and the Lua standard library lacks: terminal queries, a monotonic
** clock, directories, atomic file writes, and the embedded Lua files.
*/
#include "lbind.h"
#include "host.h"
#include "repl.h"

#include <errno.h>
#include <signal.h>
#include <lualib.h>
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

/* ---- the cell protocol: output capture and interruptible cells ---------- */

/* A file handle for Lua's io library over a stdio stream we opened. */
static int stream_close(lua_State *L) {
  luaL_Stream *p = (luaL_Stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
  int ok = fclose(p->f) == 0;
  return luaL_fileresult(L, ok, NULL);
}

static void push_stream(lua_State *L, FILE *f) {
  luaL_Stream *p = (luaL_Stream *)lua_newuserdatauv(L, sizeof(luaL_Stream), 0);
  p->closef = NULL;                  /* closed until set up */
  luaL_setmetatable(L, LUA_FILEHANDLE);
  p->f = f;
  p->closef = stream_close;
}

/* protocol_stream() -> a file on a duplicate of fd 1 as it is now: replies
** keep going to the real stdout while a cell's fd 1 is redirected. */
static int sys_protocol_stream(lua_State *L) {
  fflush(stdout);
  int fd = dup(1);
  if (fd < 0) return luaL_fileresult(L, 0, "stdout");
  FILE *f = fdopen(fd, "w");
  if (!f) { close(fd); return luaL_fileresult(L, 0, "stdout"); }
  push_stream(L, f);
  return 1;
}

#define PL_CAPTURE_T "perflab.Capture"
typedef struct capture { int saved; FILE *tmp; } capture;

static void capture_restore(capture *c) {
  if (c->saved >= 0) {
    fflush(stdout);
    dup2(c->saved, 1);
    close(c->saved);
    c->saved = -1;
  }
}

static int capture_gc(lua_State *L) {
  capture *c = (capture *)luaL_checkudata(L, 1, PL_CAPTURE_T);
  capture_restore(c);
  if (c->tmp) { fclose(c->tmp); c->tmp = NULL; }
  return 0;
}

/* capture_begin() -> handle: from now on fd 1 (print, io.write, C code,
** child processes) goes to a temporary file. */
static int sys_capture_begin(lua_State *L) {
  capture *c = (capture *)lua_newuserdatauv(L, sizeof *c, 0);
  c->saved = -1;
  c->tmp = NULL;
  if (luaL_newmetatable(L, PL_CAPTURE_T)) {
    lua_pushcfunction(L, capture_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  fflush(stdout);
  c->tmp = tmpfile();
  if (!c->tmp) return luaL_error(L, "capture: cannot create a temporary file: %s", strerror(errno));
  c->saved = dup(1);
  if (c->saved < 0 || dup2(fileno(c->tmp), 1) < 0) {
    int en = errno;
    if (c->saved >= 0) { close(c->saved); c->saved = -1; }
    return luaL_error(L, "capture: cannot redirect stdout: %s", strerror(en));
  }
  return 1;
}

/* capture_end(handle) -> text written to fd 1 since capture_begin */
static int sys_capture_end(lua_State *L) {
  capture *c = (capture *)luaL_checkudata(L, 1, PL_CAPTURE_T);
  capture_restore(c);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  if (c->tmp) {
    rewind(c->tmp);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, c->tmp)) > 0) luaL_addlstring(&b, buf, n);
    fclose(c->tmp);
    c->tmp = NULL;
  }
  luaL_pushresult(&b);
  return 1;
}

extern volatile int pl_parse_interrupt;
static lua_State *volatile cell_L = NULL;

static void cell_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  luaL_error(L, "interrupted");
}

/* SIGINT while a cell runs: arm a hook that raises "interrupted" at the next
** Lua instruction, and stop parsers.  The handler stays installed: every
** Ctrl-C (or Jupyter interrupt) interrupts, none ends the process. */
static void cell_sigint(int sig) {
  (void)sig;
  pl_parse_interrupt = 1;
  if (cell_L) lua_sethook(cell_L, cell_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

static void set_sigint(void (*h)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, NULL);
}

/* ignore_sigint(): between cells, SIGINT does nothing. */
static int sys_ignore_sigint(lua_State *L) {
  (void)L;
  set_sigint(SIG_IGN);
  return 0;
}

/* run_cell(f, ...) -> true, results... | false, error: calls f protected,
** with a traceback for errors that are not perflab.fail{} tables, and SIGINT
** turned into the error "interrupted".  SIGINT is ignored afterwards. */
static int sys_run_cell(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  int n = lua_gettop(L);
  lua_pushcfunction(L, pl_host_msghandler);
  lua_insert(L, 1);
  pl_parse_interrupt = 0;
  cell_L = L;
  set_sigint(cell_sigint);
  int st = lua_pcall(L, n - 1, LUA_MULTRET, 1);
  set_sigint(SIG_IGN);
  cell_L = NULL;
  lua_sethook(L, NULL, 0, 0);   /* a Ctrl-C that came after the cell ended */
  pl_parse_interrupt = 0;
  lua_pushboolean(L, st == LUA_OK);
  lua_replace(L, 1);             /* the handler's slot */
  return lua_gettop(L);
}

/* repl([interactive]) runs the REPL on stdin/stdout in this state; returns ok */
static int sys_repl(lua_State *L) {
  int interactive = lua_isnoneornil(L, 1) ? isatty(0) : lua_toboolean(L, 1);
  lua_pushboolean(L, pl_repl(L, interactive) == 0);
  return 1;
}

/* exe_path() -> the absolute path of the running program (nil if unknown;
** in a stock lua5.4 that loaded perflab.so it is the lua5.4 binary). */
static int sys_exe_path(lua_State *L) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) { luaL_pushfail(L); return 1; }
  lua_pushlstring(L, buf, (size_t)n);
  return 1;
}

static const luaL_Reg funcs[] = {
  {"exe_path", sys_exe_path},
  {"repl", sys_repl},
  {"protocol_stream", sys_protocol_stream}, {"capture_begin", sys_capture_begin},
  {"capture_end", sys_capture_end}, {"run_cell", sys_run_cell}, {"ignore_sigint", sys_ignore_sigint},
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

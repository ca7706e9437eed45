/*
** session.c -- Lua module 'perflab.session': what an interactive session
** needs from the host, beside the plain OS facts of perflab.sys.  The REPL
** on the process's streams (repl.c), and the notebook cell protocol that
** lua/perflab/repl.lua drives (perflab repl --jsonl, the Jupyter kernel):
** a protocol stream that stays on the real stdout, capture of fd 1 while a
** cell runs, and cells run through the interrupt service (pl_call.c), where
** every Ctrl-C interrupts and none ends the process.
**
** Host layer: it calls pl_call.c and repl.c; host.c lists it among the
** modules.  No binding calls it.
*/
#include "session.h"
#include "pl_call.h"
#include "repl.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- streams ------------------------------------------------------------ */

/* __close of a Lua file handle over a stdio stream we opened. */
static int stream_close(lua_State *L) {
  luaL_Stream *p = (luaL_Stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
  int ok = fclose(p->f) == 0;
  return luaL_fileresult(L, ok, NULL);
}

/* [...] -> [... file]: a Lua file handle owning f, created closed first. */
static void push_stream(lua_State *L, FILE *f) {
  luaL_Stream *p = (luaL_Stream *)lua_newuserdatauv(L, sizeof(luaL_Stream), 0);
  p->closef = NULL; /* closed until set up */
  luaL_setmetatable(L, LUA_FILEHANDLE);
  p->f = f;
  p->closef = stream_close;
}

/* protocol_stream() -> file on a duplicate of fd 1 as it is now: replies
** keep going to the real stdout while a cell's fd 1 is redirected. */
static int session_protocol_stream(lua_State *L) {
  fflush(stdout);
  int fd = dup(1);
  if (fd < 0) return luaL_fileresult(L, 0, "stdout");
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    return luaL_fileresult(L, 0, "stdout");
  }
  push_stream(L, f); /* [file] */
  return 1;
}

/* ---- capture of fd 1 ------------------------------------------------------ */

#define PL_CAPTURE_T "perflab.Capture"
typedef struct capture {
  int saved;
  FILE *tmp;
} capture;

static void capture_restore(capture *c) {
  if (c->saved >= 0) {
    fflush(stdout);
    dup2(c->saved, 1);
    close(c->saved);
    c->saved = -1;
  }
}

/* __gc: fd 1 back, the file closed; safe on a half-built or ended capture. */
static int capture_gc(lua_State *L) {
  capture *c = (capture *)luaL_checkudata(L, 1, PL_CAPTURE_T);
  capture_restore(c);
  if (c->tmp) {
    fclose(c->tmp);
    c->tmp = NULL;
  }
  return 0;
}

/* capture_begin() -> handle: from now on fd 1 (print, io.write, C code,
** child processes) goes to a temporary file. */
static int session_capture_begin(lua_State *L) {
  capture *c = (capture *)lua_newuserdatauv(L, sizeof *c, 0); /* [c] */
  c->saved = -1;                                              /* empty until set up: __gc is safe */
  c->tmp = NULL;
  if (luaL_newmetatable(L, PL_CAPTURE_T)) { /* [c mt] */
    lua_pushcfunction(L, capture_gc);
    lua_setfield(L, -2, "__gc"); /* mt.__gc = capture_gc */
  }
  lua_setmetatable(L, -2); /* [c] */
  fflush(stdout);
  c->tmp = tmpfile();
  if (!c->tmp) return luaL_error(L, "capture: cannot create a temporary file: %s", strerror(errno));
  c->saved = dup(1);
  if (c->saved < 0 || dup2(fileno(c->tmp), 1) < 0) {
    int en = errno;
    if (c->saved >= 0) {
      close(c->saved);
      c->saved = -1;
    }
    return luaL_error(L, "capture: cannot redirect stdout: %s", strerror(en));
  }
  return 1;
}

/* capture_end(handle) -> text written to fd 1 since capture_begin */
static int session_capture_end(lua_State *L) {
  capture *c = (capture *)luaL_checkudata(L, 1, PL_CAPTURE_T);
  capture_restore(c);
  luaL_Buffer b;
  luaL_buffinit(L, &b); /* only luaL_add* until pushresult */
  if (c->tmp) {
    rewind(c->tmp);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, c->tmp)) > 0) luaL_addlstring(&b, buf, n);
    fclose(c->tmp);
    c->tmp = NULL;
  }
  luaL_pushresult(&b); /* [c text] */
  return 1;
}

/* ---- cells ------------------------------------------------------------------ */

/* ignore_sigint(): between cells, SIGINT does nothing. */
static int session_ignore_sigint(lua_State *L) {
  (void)L;
  pl_sigint_ignore();
  return 0;
}

/* run_cell(f, ...) -> true, results... | false, error, interrupted: calls f
** through pl_docell (a traceback for errors that are not perflab.fail{}
** tables; Ctrl-C raises "interrupted" and interrupted is then true).
** SIGINT is ignored afterwards. */
static int session_run_cell(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  int n = lua_gettop(L); /* [f args...] */
  int interrupted = 0;
  int st = pl_docell(L, n - 1, LUA_MULTRET, &interrupted); /* [results...] | [err] */
  luaL_checkstack(L, 2, "cell results");
  lua_pushboolean(L, st == LUA_OK);
  lua_insert(L, 1); /* [true results...] | [false err] */
  if (st == LUA_OK) return lua_gettop(L);
  lua_pushboolean(L, interrupted); /* [false err interrupted] */
  return 3;
}

/* repl([interactive]) -> ok: the REPL on stdin/stdout in this state
** (interactive by default when stdin is a terminal). */
static int session_repl(lua_State *L) {
  int interactive = lua_isnoneornil(L, 1) ? isatty(0) : lua_toboolean(L, 1);
  lua_pushboolean(L, pl_repl(L, interactive) == 0);
  return 1;
}

static const luaL_Reg funcs[] = { { "repl", session_repl },
                                  { "protocol_stream", session_protocol_stream },
                                  { "capture_begin", session_capture_begin },
                                  { "capture_end", session_capture_end },
                                  { "run_cell", session_run_cell },
                                  { "ignore_sigint", session_ignore_sigint },
                                  { NULL, NULL } };

int luaopen_perflab_session(lua_State *L) {
  luaL_newlib(L, funcs); /* [module] */
  return 1;
}

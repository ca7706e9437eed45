/*
** repl.c -- the perflab read-eval-print loop, after lua.c: a line is first
** tried as `return LINE` (so expressions print their values), then as a
** statement; a chunk that ends in <eof> reads continuation lines; errors
** print and the loop goes on.  Values print through perflab.repl.show
** (tables as aligned text with a row limit, profiles as their tables).
*/
#include "repl.h"
#include "host.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PERFLAB_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

#define PROMPT1 "perflab> "
#define PROMPT2 "      >> "
#define EOFMARK "<eof>"

static char *read_line(int interactive, const char *prompt) {
#ifdef PERFLAB_HAVE_LIBEDIT
  if (interactive) return readline(prompt);
#endif
  if (interactive) { fputs(prompt, stdout); fflush(stdout); }
  size_t cap = 256, n = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  int c;
  while ((c = getchar()) != EOF && c != '\n') {
    if (n + 2 > cap) { cap *= 2; char *nb = realloc(buf, cap); if (!nb) { free(buf); return NULL; } buf = nb; }
    buf[n++] = (char)c;
  }
  if (c == EOF && n == 0) { free(buf); return NULL; }
  buf[n] = '\0';
  return buf;
}

static int incomplete(lua_State *L, int status) {
  if (status == LUA_ERRSYNTAX) {
    size_t lmsg;
    const char *msg = lua_tolstring(L, -1, &lmsg);
    size_t lmark = sizeof(EOFMARK) - 1;
    if (lmsg >= lmark && strcmp(msg + lmsg - lmark, EOFMARK) == 0) { lua_pop(L, 1); return 1; }
  }
  return 0;
}

/* Prints the values on the stack above base through perflab.repl.show. */
static int print_values(lua_State *L, int base) {
  int n = lua_gettop(L) - base;
  if (n == 0) return LUA_OK;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "perflab.repl");
  int st = pl_host_docall(L, 1, 1);
  if (st != LUA_OK) return st;
  lua_getfield(L, -1, "show");
  lua_remove(L, -2);
  lua_insert(L, base + 1);
  return pl_host_docall(L, n, 0);
}

int pl_repl(lua_State *L, int interactive) {
  int failed = 0;
  if (interactive) {
    printf("perflab %s (%s) -- help() for help, Ctrl-D to leave\n",
#ifdef PERFLAB_VERSION
           PERFLAB_VERSION,
#else
           "0",
#endif
           LUA_RELEASE);
  }
  for (;;) {
    char *line = read_line(interactive, PROMPT1);
    if (line == NULL) break;
    const char *src = line;
    if (src[0] == '=') src++;   /* "=expr" as in Lua 5.1-5.3 */
    int base = lua_gettop(L);
    /* 1: as an expression */
    const char *ret = lua_pushfstring(L, "return %s;", src);
    int status = luaL_loadbuffer(L, ret, strlen(ret), "=stdin");
    lua_remove(L, -2);
    if (status != LUA_OK) {
      lua_pop(L, 1);
      /* 2: as statements, reading more lines while incomplete */
      int eof = 0;
      lua_pushstring(L, src);
      for (;;) {
        size_t len;
        const char *chunk = lua_tolstring(L, -1, &len);
        status = luaL_loadbuffer(L, chunk, len, "=stdin");
        if (eof || !incomplete(L, status)) break;
        char *more = read_line(interactive, PROMPT2);
        if (more == NULL) { eof = 1; continue; }   /* load once more: its error is the report */
        lua_pushliteral(L, "\n");
        lua_pushstring(L, more);
        lua_concat(L, 3);              /* what we had .. "\n" .. the new line */
        free(more);
      }
      lua_remove(L, -2);               /* the source text */
    }
#ifdef PERFLAB_HAVE_LIBEDIT
    if (interactive && line[0]) add_history(line);
#endif
    free(line);
    if (status == LUA_OK) status = pl_host_docall(L, 0, LUA_MULTRET);
    if (status == LUA_OK) status = print_values(L, base);
    if (status != LUA_OK) {
      failed = 1;
      const char *msg = NULL;
      if (lua_istable(L, -1)) { lua_getfield(L, -1, "message"); msg = lua_tostring(L, -1); lua_pop(L, 1); }
      else msg = lua_tostring(L, -1);
      /* the traceback ends at the chunk: the frames of the REPL itself
      ** (perflab repl runs it from Lua) are noise to the user */
      const char *cut = msg ? strstr(msg, "\n\t[C]: in function 'perflab.sys.repl'") : NULL;
      if (cut) fprintf(stderr, "%.*s\n", (int)(cut - msg), msg);
      else fprintf(stderr, "%s\n", msg ? msg : "(error object is not a string)");
      fflush(stderr);
    }
    lua_settop(L, base);
    fflush(stdout);
  }
  if (interactive) putchar('\n');
  return failed;
}

/*
** repl.c -- the perflab read-eval-print loop, after lua.c: a line is first
** tried as `return LINE` (so expressions print their values), then as a
** statement; a chunk that ends in <eof> reads continuation lines; errors
** print and the loop goes on.  Values print through perflab.repl.render
** (tables as aligned text with a row limit, profiles as their tables).
**
** On a terminal, libedit gives line editing, history kept in
** ${XDG_STATE_HOME:-~/.local/state}/perflab/history (a multi-line chunk is
** one entry), and Tab completion whose candidates come from
** perflab.repl.complete (Lua, testable without a terminal).  Ctrl-C while a
** chunk runs raises "interrupted" through the interrupt service (pl_call.c);
** Ctrl-C at the prompt drops the line being typed; Ctrl-D on an empty line
** leaves.
*/
#include "repl.h"
#include "pl_call.h"

#include <lauxlib.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef PERFLAB_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

#define PROMPT1     "perflab> "
#define PROMPT2     "      >> "
#define EOFMARK     "<eof>"
#define HISTORY_MAX 1000

typedef struct rio {
  FILE *in, *out, *err;
  int interactive; /* prompts and banner */
  int edit;        /* libedit on a terminal */
  char *histfile;  /* NULL: no history file */
} rio;

/* While at the prompt, Ctrl-C interrupts the read (pl_prompt_catch_sigint:
** no SA_RESTART) and sets a flag; the line being typed is dropped and a
** fresh prompt is shown. */

/* ---- reading lines ------------------------------------------------------- */

enum { LINE_OK, LINE_EOF, LINE_INTR };

/* Reads one line without line editing (a pipe, or no libedit). */
static int plain_line(rio *io, const char *prompt, char **out) {
  if (io->interactive) {
    fputs(prompt, io->out);
    fflush(io->out);
  }
  size_t cap = 256, n = 0;
  char *buf = malloc(cap);
  if (!buf) return LINE_EOF;
  int c;
  for (;;) {
    c = getc(io->in);
    if (c == EOF) {
      if (ferror(io->in) && errno == EINTR && pl_prompt_interrupted()) {
        clearerr(io->in);
        free(buf);
        return LINE_INTR;
      }
      break;
    }
    if (c == '\n') break;
    if (n + 2 > cap) {
      cap *= 2;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        return LINE_EOF;
      }
      buf = nb;
    }
    buf[n++] = (char)c;
  }
  if (c == EOF && n == 0) {
    free(buf);
    return LINE_EOF;
  }
  buf[n] = '\0';
  *out = buf;
  return LINE_OK;
}

static int read_line(rio *io, const char *prompt, char **out) {
  *out = NULL;
  pl_prompt_clear();
#ifdef PERFLAB_HAVE_LIBEDIT
  if (io->edit) {
    char *line = readline(prompt);
    if (pl_prompt_interrupted()) {
      free(line);
      fputs("^C\n", io->out);
      fflush(io->out);
      return LINE_INTR;
    }
    if (line == NULL) return LINE_EOF;
    *out = line;
    return LINE_OK;
  }
#endif
  int st = plain_line(io, prompt, out);
  if (st == LINE_INTR) {
    fputs("\n", io->out);
    fflush(io->out);
  }
  return st;
}

/* ---- history and completion ------------------------------------------------ */

#ifdef PERFLAB_HAVE_LIBEDIT
static int mkdirs(char *path) { /* mkdir -p of the directory part of path */
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    int bad = mkdir(path, 0700) != 0 && errno != EEXIST;
    *p = '/';
    if (bad) return -1;
  }
  return 0;
}

/* ${XDG_STATE_HOME:-$HOME/.local/state}/perflab/history, or NULL. */
static char *history_file(void) {
  const char *env = getenv("PERFLAB_HISTORY");
  if (env) return *env ? strdup(env) : NULL; /* PERFLAB_HISTORY= turns it off */
  const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
  char buf[4096];
  if (xdg && *xdg) snprintf(buf, sizeof buf, "%s/perflab/history", xdg);
  else if (home && *home) snprintf(buf, sizeof buf, "%s/.local/state/perflab/history", home);
  else return NULL;
  return strdup(buf);
}

static lua_State *complete_L = NULL;
static const char complete_key = 'c'; /* registry: perflab.repl.complete */

/* libedit's attempted-completion hook.  perflab.repl.complete(line up to the
** cursor) returns candidates and the 1-based position where the word they
** replace starts; libedit replaces text[start..end) by matches[0], so each
** candidate is re-based from the Lua word start to libedit's. */
static char **complete_hook(const char *text, int start, int end) {
  (void)text;
  rl_attempted_completion_over = 1;
  lua_State *L = complete_L;
  if (L == NULL || rl_line_buffer == NULL || end < start) return NULL;
  int top = lua_gettop(L);
  char **m = NULL;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &complete_key);
  lua_pushlstring(L, rl_line_buffer, (size_t)end);
  if (lua_pcall(L, 1, 2, 0) != LUA_OK || !lua_istable(L, -2)) goto done;
  long wstart = (long)lua_tointeger(L, -1) - 1; /* 0-based */
  if (wstart < 0 || wstart > end) goto done;
  lua_Integer n = luaL_len(L, -2);
  if (n <= 0) goto done;
  m = calloc((size_t)n + 3, sizeof *m);
  if (!m) goto done;
  int k = 1;
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, -2, i);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    if (s) {
      char *c = NULL;
      if (wstart >= start) { /* prepend what libedit's word has before ours */
        size_t pre = (size_t)(wstart - start);
        c = malloc(pre + len + 1);
        if (c) {
          memcpy(c, rl_line_buffer + start, pre);
          memcpy(c + pre, s, len + 1);
        }
      } else if ((size_t)(start - wstart) <= len) {
        c = strdup(s + (start - wstart));
      }
      if (c) m[k++] = c;
    }
    lua_pop(L, 1);
  }
  if (k == 1) {
    free(m);
    m = NULL;
    goto done;
  }
  /* matches[0]: the longest common prefix (the candidate itself when one) */
  size_t lcp = strlen(m[1]);
  for (int i = 2; i < k; i++) {
    size_t j = 0;
    while (j < lcp && m[i][j] == m[1][j]) j++;
    lcp = j;
  }
  if (k == 2) {
    m[0] = m[1];
    m[1] = NULL;
  } else {
    m[0] = malloc(lcp + 1);
    if (m[0]) {
      memcpy(m[0], m[1], lcp);
      m[0][lcp] = '\0';
    } else {
      for (int i = 1; i < k; i++) free(m[i]);
      free(m);
      m = NULL;
    }
  }
done:
  lua_settop(L, top);
  return m;
}

static void edit_setup(lua_State *L, rio *io) {
  static int initialised = 0;
  rl_readline_name = "perflab";
  rl_instream = io->in;
  rl_outstream = io->out;
  rl_catch_signals = 0;
  if (!initialised) {
    rl_initialize();
    initialised = 1;
  }
  using_history();
  stifle_history(HISTORY_MAX);
  if (io->histfile) read_history(io->histfile);
  /* the completion candidates come from Lua */
  lua_getglobal(L, "require");
  lua_pushliteral(L, "perflab.repl");
  if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
    lua_getfield(L, -1, "complete");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &complete_key);
    complete_L = L;
    rl_attempted_completion_function = complete_hook;
    rl_basic_word_break_characters = " \t\n\"\\'`@$><=;|&{(,)}[]+-*/%^~#.:";
    rl_completion_append_character = '\0';
  }
  lua_pop(L, 1);
}

static void edit_remember(rio *io, const char *chunk) {
  if (!chunk[0]) return;
  add_history(chunk);
  if (io->histfile) {
    char *tmp = strdup(io->histfile);
    if (tmp) {
      mkdirs(tmp);
      free(tmp);
    }
    write_history(io->histfile);
  }
}
#endif

/* ---- evaluation ----------------------------------------------------------- */

static int incomplete(lua_State *L, int status) {
  if (status == LUA_ERRSYNTAX) {
    size_t lmsg;
    const char *msg = lua_tolstring(L, -1, &lmsg);
    size_t lmark = sizeof(EOFMARK) - 1;
    if (lmsg >= lmark && strcmp(msg + lmsg - lmark, EOFMARK) == 0) {
      lua_pop(L, 1);
      return 1;
    }
  }
  return 0;
}

/* Writes the values on the stack above base, each rendered by
** perflab.repl.render, to io->out. */
static int print_values(lua_State *L, rio *io, int base) {
  int n = lua_gettop(L) - base;
  for (int i = 1; i <= n; i++) {
    lua_getglobal(L, "require");
    lua_pushliteral(L, "perflab.repl");
    int st = pl_docall(L, 1, 1);
    if (st != LUA_OK) return st;
    lua_getfield(L, -1, "render");
    lua_remove(L, -2);
    lua_pushvalue(L, base + i);
    st = pl_docall(L, 1, 1);
    if (st != LUA_OK) return st;
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    if (s) fwrite(s, 1, len, io->out);
    lua_pop(L, 1);
  }
  return LUA_OK;
}

/* Reads a chunk (one line, or more while the chunk is incomplete) and leaves
** the compiled function on the stack.  Returns a lua_load status, or -1 at
** end of input, -2 when Ctrl-C dropped the chunk.  *text: the source text. */
static int read_chunk(lua_State *L, rio *io, char **text) {
  char *line;
  *text = NULL;
  int r = read_line(io, PROMPT1, &line);
  if (r == LINE_EOF) return -1;
  if (r == LINE_INTR) return -2;
  const char *src = line;
  if (src[0] == '=') src++; /* "=expr" as in Lua 5.1-5.3 */
  /* 1: as an expression */
  const char *ret = lua_pushfstring(L, "return %s;", src);
  int status = luaL_loadbuffer(L, ret, strlen(ret), "=stdin");
  lua_remove(L, -2);
  if (status == LUA_OK) {
    *text = line;
    return status;
  }
  lua_pop(L, 1);
  /* 2: as statements, reading more lines while incomplete */
  lua_pushstring(L, src);
  free(line);
  for (;;) {
    size_t len;
    const char *chunk = lua_tolstring(L, -1, &len);
    status = luaL_loadbuffer(L, chunk, len, "=stdin");
    if (!incomplete(L, status)) break;
    char *more;
    r = read_line(io, PROMPT2, &more);
    if (r == LINE_EOF) {
      /* input ended inside a chunk: that is a syntax error to report (load
      ** once more for its message); the next read then ends the session */
      size_t n;
      const char *c = lua_tolstring(L, -1, &n);
      status = luaL_loadbuffer(L, c, n, "=stdin");
      break;
    }
    if (r != LINE_OK) {
      lua_pop(L, 1);
      return -2;
    }
    lua_pushliteral(L, "\n"); /* what we had .. "\n" .. more */
    lua_pushstring(L, more);
    free(more);
    lua_concat(L, 3);
  }
  *text = strdup(lua_tostring(L, -2));
  lua_remove(L, -2); /* the source text */
  return status;
}

static void report_error(lua_State *L, rio *io) {
  const char *msg = NULL;
  if (pl_is_fail(L, -1)) {
    lua_getfield(L, -1, "message");
    msg = lua_tostring(L, -1);
    lua_pop(L, 1);
  } else if (!lua_isstring(L, -1) && luaL_callmeta(L, -1, "__tostring")) {
    msg = lua_tostring(L, -1);
  } else msg = lua_tostring(L, -1);
  if (msg == NULL) msg = "(error object is not a string)";
  /* the traceback stops where the REPL itself begins */
  const char *cut = strstr(msg, "\n\t[C]: in function 'perflab.session.repl'");
  if (cut == NULL) cut = strstr(msg, "\n\t[C]: in ?");
  fprintf(io->err, "%.*s\n", (int)(cut ? (size_t)(cut - msg) : strlen(msg)), msg);
  fflush(io->err);
}

/* Prints the text `print` would, to io->out: the REPL's print while it runs
** on other streams than stdout. */
static int repl_print(lua_State *L) {
  FILE *out = (FILE *)lua_touserdata(L, lua_upvalueindex(1));
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    size_t len;
    const char *s = luaL_tolstring(L, i, &len);
    if (i > 1) fputc('\t', out);
    fwrite(s, 1, len, out);
    lua_pop(L, 1);
  }
  fputc('\n', out);
  return 0;
}

int pl_repl_io(lua_State *L, FILE *in, FILE *out, FILE *err, int interactive) {
  rio io = { in, out, err, interactive, 0, NULL };
  int failed = 0;
  int base = lua_gettop(L);
  struct sigaction old_sigint;
  sigaction(SIGINT, NULL, &old_sigint);
  /* print goes to `out` while the loop runs on other streams than stdout */
  int own_print = out != stdout;
  if (own_print) {
    lua_getglobal(L, "print");
    lua_pushlightuserdata(L, out);
    lua_pushcclosure(L, repl_print, 1);
    lua_setglobal(L, "print");
  }
#ifdef PERFLAB_HAVE_LIBEDIT
  if (interactive && isatty(fileno(in)) && isatty(fileno(out))) {
    io.edit = 1;
    io.histfile = history_file();
    edit_setup(L, &io);
  }
#endif
  if (interactive) {
    fprintf(out, "perflab %s (%s) -- help() for help, Tab completes, Ctrl-D to leave\n",
#ifdef PERFLAB_VERSION
            PERFLAB_VERSION,
#else
            "0",
#endif
            LUA_RELEASE);
  }
  for (;;) {
    if (interactive) pl_prompt_catch_sigint();
    char *text;
    int top = lua_gettop(L);
    int status = read_chunk(L, &io, &text);
    if (status == -1) break;
    if (status == -2) continue;
#ifdef PERFLAB_HAVE_LIBEDIT
    if (io.edit && text) edit_remember(&io, text);
#endif
    free(text);
    if (interactive && pl_prompt_interrupted() && status == LUA_OK) {
      /* Ctrl-C after the line was read but before it ran: it is not run */
      fputs("interrupted\n", err);
      lua_settop(L, top);
      continue;
    }
    if (status == LUA_OK) status = pl_docall(L, 0, LUA_MULTRET);
    if (status == LUA_OK) status = print_values(L, &io, top);
    if (status != LUA_OK) {
      failed = 1;
      report_error(L, &io);
    }
    lua_settop(L, top);
    fflush(out);
  }
  if (interactive) {
    fputc('\n', out);
    fflush(out);
  }
#ifdef PERFLAB_HAVE_LIBEDIT
  if (io.edit) {
    rl_attempted_completion_function = NULL;
    complete_L = NULL;
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &complete_key);
  }
#endif
  free(io.histfile);
  sigaction(SIGINT, &old_sigint, NULL);
  if (own_print) lua_setglobal(L, "print"); /* the saved print, still on the stack */
  lua_settop(L, base);
  return failed;
}

int pl_repl(lua_State *L, int interactive) { return pl_repl_io(L, stdin, stdout, stderr, interactive); }

/*
** pl_call.c -- protected calls, the error report and the one interrupt
** service (see pl_call.h).  Three things can stop Lua code: Ctrl-C at a
** command or a REPL chunk (once; a second Ctrl-C ends the process), Ctrl-C
** in a notebook cell (every time), and the --timeout budget.  All three set
** pl_interrupted for the C parsers and arm stop_hook on `running`, the one
** state a signal may touch (a handler only sets the flag and arms a hook,
** as lua.c's laction does: lua_sethook is safe in a signal handler).
*/
#include "pl_call.h"
#include "lbind.h"
#include "pl_util.h"

#include <lauxlib.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

volatile int pl_interrupted = 0;

static lua_State *volatile running = NULL; /* the state Ctrl-C stops */
static lua_State *volatile time_L = NULL;  /* the state under a time budget */
static volatile sig_atomic_t time_up = 0;
static volatile sig_atomic_t stop_pending = 0; /* a Ctrl-C not yet raised in Lua */
static volatile sig_atomic_t sigint_seen = 0;  /* a Ctrl-C since start (or this cell) */
static volatile sig_atomic_t prompt_flag = 0;
static double time_budget = 0;

#define STOP_MASK (LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT)

/* ---- the hook ------------------------------------------------------------- */

/* Raises why the code is stopped.  A spent time budget stays armed (every
** instruction), so a pcall that catches the error gets it again at once;
** an interrupt fires once, then the periodic budget check (if any) is
** back.  "interrupted" is the bare word: where it stopped is in the
** traceback. */
static void stop_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  if (time_up && L == time_L) {
    lua_sethook(L, stop_hook, LUA_MASKCOUNT, 1);
    lua_pushfstring(L, "time limit exceeded (--timeout %f s)", time_budget);
    lua_error(L);
  }
  if (!stop_pending) return; /* the periodic budget check */
  stop_pending = 0;
  if (L == time_L && time_budget > 0) lua_sethook(L, stop_hook, LUA_MASKCOUNT, 100000);
  else lua_sethook(L, NULL, 0, 0);
  lua_pushliteral(L, "interrupted");
  lua_error(L);
}

static void arm(lua_State *L, int mask) {
  if (L) lua_sethook(L, stop_hook, mask, 1);
}

/* ---- SIGINT --------------------------------------------------------------- */

static void on_sigint_once(int sig) {
  signal(sig, SIG_DFL); /* a second Ctrl-C ends the process */
  pl_interrupted = 1;
  sigint_seen = 1;
  stop_pending = 1;
  arm(running, STOP_MASK);
}

static void on_sigint_cell(int sig) {
  (void)sig; /* stays installed: every Ctrl-C interrupts */
  pl_interrupted = 1;
  sigint_seen = 1;
  stop_pending = 1;
  arm(running, STOP_MASK);
}

static void on_sigint_prompt(int sig) {
  (void)sig;
  prompt_flag = 1;
}

static void set_sigint(void (*h)(int), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = flags;
  sigaction(SIGINT, &sa, NULL);
}

void pl_sigint_ignore(void) { set_sigint(SIG_IGN, SA_RESTART); }

void pl_prompt_catch_sigint(void) { set_sigint(on_sigint_prompt, 0); }
int pl_prompt_interrupted(void) { return prompt_flag != 0; }
void pl_prompt_clear(void) { prompt_flag = 0; }

/* ---- protected calls ------------------------------------------------------ */

int pl_is_fail(lua_State *L, int idx) {
  if (!lua_istable(L, idx) || !lua_getmetatable(L, idx)) return 0; /* [... mt] */
  int is = lua_getfield(L, -1, "__name") == LUA_TSTRING && strcmp(lua_tostring(L, -1), "perflab.Fail") == 0;
  lua_pop(L, 2); /* [...] */
  return is;
}

int pl_msghandler(lua_State *L) {
  if (pl_is_fail(L, 1)) return 1; /* the user's error: no traceback */
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

int pl_docall(lua_State *L, int narg, int nres) {
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, pl_msghandler); /* [f args... h] */
  lua_insert(L, base);                 /* [h f args...] */
  struct sigaction old;
  lua_State *outer = running;
  sigaction(SIGINT, NULL, &old);
  running = L;
  signal(SIGINT, on_sigint_once);
  int status = lua_pcall(L, narg, nres, base);
  running = outer;
  sigaction(SIGINT, &old, NULL);
  lua_remove(L, base); /* [results...] */
  return status;
}

int pl_docell(lua_State *L, int narg, int nres, int *interrupted) {
  int base = lua_gettop(L) - narg;
  lua_pushcfunction(L, pl_msghandler);
  lua_insert(L, base); /* [h f args...] */
  pl_interrupted = 0;
  sigint_seen = 0;
  running = L;
  set_sigint(on_sigint_cell, SA_RESTART);
  int status = lua_pcall(L, narg, nres, base);
  pl_sigint_ignore();
  running = NULL;
  stop_pending = 0;
  if (!(time_budget > 0 && L == time_L)) lua_sethook(L, NULL, 0, 0); /* a Ctrl-C after the end */
  if (interrupted) *interrupted = status != LUA_OK && sigint_seen;
  pl_interrupted = 0;
  lua_remove(L, base); /* [results...] */
  return status;
}

int pl_report(lua_State *L, int status) {
  if (status == LUA_OK) return status;
  const char *msg = NULL;
  if (pl_is_fail(L, -1)) {
    lua_getfield(L, -1, "message"); /* [err msg] */
    msg = lua_tostring(L, -1);
    lua_pop(L, 1); /* [err]: msg stays anchored in it */
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

/* ---- the time budget ------------------------------------------------------ */

static void on_alarm(int sig) {
  (void)sig;
  time_up = 1;
  pl_interrupted = 1;
  arm(time_L, LUA_MASKCOUNT | LUA_MASKCALL);
}

int pl_time_up(void) { return time_up != 0; }

int pl_call_stopped(void) { return sigint_seen || time_up; }

void pl_limit_time(lua_State *L, double seconds) {
  time_L = L;
  time_budget = seconds;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it;
  memset(&it, 0, sizeof it);
  it.it_value.tv_sec = (time_t)seconds;
  it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
  if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0) it.it_value.tv_usec = 1;
  setitimer(ITIMER_REAL, &it, NULL);
  /* also check periodically, in case the signal lands between hooks */
  lua_sethook(L, stop_hook, LUA_MASKCOUNT, 100000);
}

void pl_limit_time_clear(lua_State *L) {
  struct itimerval it;
  memset(&it, 0, sizeof it);
  setitimer(ITIMER_REAL, &it, NULL);
  time_L = NULL;
  time_budget = 0;
  time_up = 0;
  pl_interrupted = 0;
  lua_sethook(L, NULL, 0, 0);
}

void pl_call_interrupt(lua_State *L) {
  pl_interrupted = 1;
  stop_pending = 1;
  arm(L, STOP_MASK);
}

/* ---- what the parsers get: the flag, a progress bar, the host's words ----
** Parsers report (done, total) bytes now and then (every few MB or few
** thousand lines).  When stderr is a terminal and a parse has run for half a
** second, a one-line bar with the rate goes to stderr, redrawn at most ten
** times a second and erased when the parse ends.  One parse runs at a time
** (a parse calls no Lua), so the bar's state is static. */
static struct {
  double t0, last;
  int shown;
} bar;

static double mono(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void on_progress(void *ud, size_t done, size_t total) {
  (void)ud;
  double now = mono();
  if (now - bar.t0 < 0.5 || now - bar.last < 0.1) return;
  bar.last = now;
  bar.shown = 1;
  enum { W = 30 };
  if (done > total) done = total;
  int fill = total ? (int)((double)W * (double)done / (double)total) : W;
  char b[W + 1];
  for (int i = 0; i < W; i++) b[i] = i < fill ? '#' : '.';
  b[W] = '\0';
  fprintf(stderr, "\rreading [%s] %3d%%  %.0f MB of %.0f MB  %.0f MB/s ", b,
          total ? (int)(100.0 * (double)done / (double)total) : 100, (double)done / 1e6, (double)total / 1e6,
          (double)done / 1e6 / (now - bar.t0));
  fflush(stderr);
}

/* A thread's own stop flag and progress callback (perflab serve's
** workers: several parses at once, each stopped and reported on its own). */
static _Thread_local volatile int *tl_interrupt;
static _Thread_local void (*tl_progress)(void *, size_t, size_t);
static _Thread_local void *tl_progress_ud;

void pl_call_thread_parse_hooks(volatile int *interrupt, void (*progress)(void *, size_t, size_t), void *ud) {
  tl_interrupt = interrupt;
  tl_progress = progress;
  tl_progress_ud = ud;
}

static void parse_begin(pl_parse_opts *o) {
  if (tl_interrupt) {
    o->interrupt = tl_interrupt;
    o->progress = tl_progress;
    o->progress_ud = tl_progress_ud;
    return;
  }
  pl_interrupted = 0;
  o->interrupt = &pl_interrupted;
  memset(&bar, 0, sizeof bar);
  if (isatty(2)) {
    bar.t0 = mono();
    o->progress = on_progress;
    o->progress_ud = NULL;
  }
}

/* The core's messages name no command-line flag; the advice that does is
** added here, by the kind of error (pl_err.kind). */
static _Atomic int bigpages_after_load;

void pl_call_bigpages_after_load(int on) { atomic_store(&bigpages_after_load, on); }

static void parse_end(pl_parse_opts *o, pl_err *e) {
  (void)o;
  if (e == NULL && atomic_load(&bigpages_after_load)) pl_mem_bigpages();
  if (tl_interrupt) {
    if (e && *tl_interrupt)
      snprintf(e->msg, sizeof e->msg, "interrupted while reading (--timeout, or the server stopping)");
    return;
  }
  if (bar.shown) {
    fprintf(stderr, "\r%78s\r", "");
    fflush(stderr);
    bar.shown = 0;
  }
  if (e == NULL) return;
  const char *advice = NULL;
  switch (e->kind) {
    case PL_ERR_FORMAT_UNKNOWN: advice = " (see: perflab formats)"; break;
    case PL_ERR_UNDETECTED: advice = "; name the format with --input-format (see: perflab formats)"; break;
    case PL_ERR_TOO_BIG:
      advice = " (--max-memory, default 80% of physical memory); raise --max-memory, or split the input";
      break;
    default: break;
  }
  if (pl_time_up()) snprintf(e->msg, sizeof e->msg, "time limit exceeded while reading (--timeout)");
  else if (advice) {
    size_t n = strlen(e->msg);
    snprintf(e->msg + n, sizeof e->msg - n, "%s", advice);
  }
}

static const pl_l_parsehooks hooks = { parse_begin, parse_end };

void pl_call_lend_hooks(lua_State *L) { pl_l_sethooks(L, &hooks); }

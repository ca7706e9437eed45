/*
** pl_limits.c -- memory and time limits (see pl_limits.h).
*/
#include "pl_limits.h"

#include <lauxlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define PL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PL_ASAN 1
#endif
#endif

static size_t mem_limit = 0;     /* 0: no Lua-side cap */
static size_t mem_used = 0;

int pl_parse_size(const char *s, size_t *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || v < 0) return -1;
  double mult = 1;
  switch (*end) {
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1048576.0; end++; break;
    case 'g': case 'G': mult = 1073741824.0; end++; break;
    case 't': case 'T': mult = 1099511627776.0; end++; break;
    default: break;
  }
  if (*end == 'B' || *end == 'b') end++;
  if (*end != '\0') return -1;
  *out = (size_t)(v * mult);
  return 0;
}

size_t pl_default_memory_limit(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psize <= 0) return 0;
  return (size_t)((double)pages * (double)psize * 0.8);
}

void pl_limit_memory(size_t bytes) {
  mem_limit = bytes;
#ifndef PL_ASAN
  /* The C core allocates tables with malloc: an address-space limit makes an
  ** oversized load fail in pl_xmalloc (clear message, exit 2) instead of
  ** the machine swapping or the kernel killing the process.  Address space
  ** exceeds resident memory (code, stacks, mapped input), hence the margin. */
  struct rlimit rl;
  if (bytes > 0 && getrlimit(RLIMIT_AS, &rl) == 0) {
    rlim_t want = (rlim_t)bytes + ((rlim_t)512 << 20);
    if (rl.rlim_max == RLIM_INFINITY || want < rl.rlim_max) {
      rl.rlim_cur = want;
      setrlimit(RLIMIT_AS, &rl);
    }
  }
#endif
}

size_t pl_memory_in_use(void) { return mem_used; }

void *pl_limit_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (ptr == NULL) osize = 0;
  if (nsize == 0) {
    free(ptr);
    mem_used -= osize;
    return NULL;
  }
  if (mem_limit && nsize > osize && mem_used + (nsize - osize) > mem_limit) return NULL;
  void *p = realloc(ptr, nsize);
  if (p == NULL) return NULL;
  mem_used += nsize - osize;
  return p;
}

/* ---- time ------------------------------------------------------------- */

static volatile sig_atomic_t time_up = 0;
static lua_State *time_L = NULL;
static double time_budget = 0;
extern volatile int pl_parse_interrupt;

static void time_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  if (time_up) {
    /* Stays armed: a pcall that catches this error gets it again at the
    ** next check, so the budget cannot be swallowed. */
    lua_sethook(L, time_hook, LUA_MASKCOUNT, 1);   /* every instruction, every frame */
    lua_pushfstring(L, "time limit exceeded (--timeout %f s)", time_budget);
    lua_error(L);
  }
}

static void on_alarm(int sig) {
  (void)sig;
  time_up = 1;
  pl_parse_interrupt = 1;
  if (time_L) lua_sethook(time_L, time_hook, LUA_MASKCOUNT | LUA_MASKCALL, 1);
}

int pl_time_up(void) { return time_up != 0; }

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
  lua_sethook(L, time_hook, LUA_MASKCOUNT, 100000);
}

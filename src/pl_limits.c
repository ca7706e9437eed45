/*
** pl_limits.c -- the memory limits (see pl_limits.h); the time budget is
** part of the interrupt service in pl_call.c.
*/
#include "pl_limits.h"
#include "bigmem.h"

#include <lauxlib.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* PL_ASAN: a sanitizer that reserves vast address space (ASan, TSan):
** no RLIMIT_AS cap */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PL_ASAN 1
#endif
#endif

static size_t mem_limit = 0;        /* 0: no Lua-side cap */
static _Atomic size_t mem_used = 0; /* atomic: perflab serve's workers allocate side by side */

int pl_parse_size(const char *s, size_t *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || v < 0) return -1;
  double mult = 1;
  switch (*end) {
    case 'k':
    case 'K':
      mult = 1024.0;
      end++;
      break;
    case 'm':
    case 'M':
      mult = 1048576.0;
      end++;
      break;
    case 'g':
    case 'G':
      mult = 1073741824.0;
      end++;
      break;
    case 't':
    case 'T':
      mult = 1099511627776.0;
      end++;
      break;
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

size_t pl_memory_in_use(void) { return atomic_load_explicit(&mem_used, memory_order_relaxed); }

/* Lua's blocks: malloc's, but for those of PL_MEM_BIG bytes or more
** (userdata arrays, big strings), which are bigmem.c's and share its cache
** of freed big blocks with the table columns.  Lua gives every block's
** size, so a block is big exactly while its size is: no header on the
** small ones. */
static void *lua_block(void *ptr, size_t osize, size_t nsize) {
  int was = ptr && osize >= PL_MEM_BIG, big = nsize >= PL_MEM_BIG;
  if (was == big) return was ? pl_mem_realloc(ptr, nsize) : realloc(ptr, nsize);
  void *p = big ? pl_mem_alloc(nsize) : malloc(nsize);
  if (p == NULL) return NULL;
  if (ptr) memcpy(p, ptr, osize < nsize ? osize : nsize);
  if (was) pl_mem_free(ptr);
  else free(ptr);
  return p;
}

void *pl_limit_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (ptr == NULL) osize = 0;
  if (nsize == 0) {
    if (osize >= PL_MEM_BIG) pl_mem_free(ptr);
    else free(ptr);
    atomic_fetch_sub_explicit(&mem_used, osize, memory_order_relaxed);
    return NULL;
  }
  if (mem_limit && nsize > osize && atomic_load_explicit(&mem_used, memory_order_relaxed) + (nsize - osize) > mem_limit)
    return NULL;
  void *p = lua_block(ptr, osize, nsize);
  if (p == NULL) return NULL;
  if (nsize > osize) atomic_fetch_add_explicit(&mem_used, nsize - osize, memory_order_relaxed);
  else atomic_fetch_sub_explicit(&mem_used, osize - nsize, memory_order_relaxed);
  return p;
}

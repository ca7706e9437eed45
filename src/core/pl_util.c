/*
** pl_util.c -- checked allocation, the byte buffer, error records and
** round-trip number formatting for the C core.
*/
#include "pl_util.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

_Thread_local const char *pl_oom_file = NULL;

static pl_oom_handler oom_handler = NULL;

void pl_set_oom_handler(pl_oom_handler h) { oom_handler = h; }

/* The allocator itself failed: the host's handler decides what the user
** sees (it may name pl_oom_file) and ends the process; the core neither
** prints nor picks an exit status. */
static void pl_oom(size_t n) {
  if (oom_handler) oom_handler(n);
  abort();
}

/* ---- big blocks on transparent huge pages --------------------------------
** A column buffer is written whole right after it is allocated.  On a VM
** each first touch of a 4 KiB page is a fault that costs microseconds: a
** recipe after the load spent a third of its CPU time in them (occupancy
** on a 300 MB trace of wild launch shapes: 46 k faults for 180 MB of new
** columns).  pl_mem_bigpages() makes the blocks that follow come from a
** heap advised MADV_HUGEPAGE as it grows, as glibc's tunable
** glibc.malloc.hugetlb=1 does (a process cannot set a tunable for itself),
** so that a fault maps 2 MiB: 4 k faults instead of 46 k, and the recipe's
** CPU time after the load 1.27 -> 0.57 s.  To that end blocks up to 32 MiB
** come from the heap (glibc's dynamic threshold maps such blocks one by
** one, each faulted in anew and given back at free), the heap grows in
** steps of 32 MiB of address space (advised before malloc touches more of
** them than a header) and keeps up to 64 MiB free at its top.  Blocks of
** PL_THP_BIG bytes and more, which glibc may still map on their own, are
** advised themselves.  Only advice: where the kernel's THP mode is "never"
** the pages stay small.  Not for a parse (the loaders place their own
** columns: pl_table_hugepages, pl_table_populate): on the 1 GB bench trace
** it raises the parse's peak RSS by a sixth. */
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE)
#define PL_THP_MIN ((size_t)64 << 10)
#define PL_THP_BIG ((size_t)4 << 20)
static _Atomic int thp_on;
static _Atomic uintptr_t thp_marked; /* the heap is advised up to here */

void pl_mem_bigpages(void) {
  int off = 0;
  if (!atomic_compare_exchange_strong(&thp_on, &off, 1)) return;
  mallopt(M_TOP_PAD, 32 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  atomic_store(&thp_marked, (uintptr_t)sbrk(0));
}

/* after a block of n bytes at p: the heap's growth advised, and p itself
** when it is big and outside the heap */
static void thp_advise(void *p, size_t n) {
  const uintptr_t pg = 4096;
  uintptr_t end = (uintptr_t)sbrk(0), m = atomic_load(&thp_marked);
  if (end != m && atomic_compare_exchange_strong(&thp_marked, &m, end) && end > m) {
    uintptr_t a = (m + pg - 1) & ~(pg - 1);
    if (end > a) madvise((void *)a, end - a, MADV_HUGEPAGE);
  }
  if (n >= PL_THP_BIG && (uintptr_t)p >= end) {
    uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), b = ((uintptr_t)p + n) & ~(pg - 1);
    if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE);
  }
}
#define THP_ADVISE(p, n)                                                                                               \
  do {                                                                                                                 \
    if ((n) >= PL_THP_MIN && atomic_load_explicit(&thp_on, memory_order_relaxed)) thp_advise((p), (n));                \
  } while (0)
int pl_mem_bigpages_on(void) { return atomic_load_explicit(&thp_on, memory_order_relaxed); }
void pl_mem_advised(void *p, size_t n) { THP_ADVISE(p, n); }
#else
void pl_mem_bigpages(void) {}
int pl_mem_bigpages_on(void) { return 0; }
void pl_mem_advised(void *p, size_t n) {
  (void)p;
  (void)n;
}
#define THP_ADVISE(p, n) ((void)0)
#endif

void pl_oom_fail(size_t n) { pl_oom(n); }

void *pl_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) pl_oom(n);
  THP_ADVISE(p, n);
  return p;
}

void *pl_xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz ? sz : 1);
  if (p == NULL) pl_oom(n * sz);
  THP_ADVISE(p, n * sz);
  return p;
}

void *pl_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (q == NULL) pl_oom(n);
  THP_ADVISE(q, n);
  return q;
}

char *pl_xstrndup(const char *s, size_t n) {
  char *d = pl_xmalloc(n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *pl_xstrdup(const char *s) { return pl_xstrndup(s, strlen(s)); }

void pl_buf_init(pl_buf *b) {
  b->data = NULL;
  b->len = b->cap = 0;
}

void pl_buf_free(pl_buf *b) {
  free(b->data);
  pl_buf_init(b);
}

void pl_buf_reserve(pl_buf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  b->data = pl_xrealloc(b->data, cap);
  b->cap = cap;
}

void pl_buf_add(pl_buf *b, const char *s, size_t n) {
  pl_buf_reserve(b, n);
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void pl_buf_adds(pl_buf *b, const char *s) { pl_buf_add(b, s, strlen(s)); }

void pl_buf_addc(pl_buf *b, char c) {
  pl_buf_reserve(b, 1);
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
}

void pl_buf_printf(pl_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[256];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    pl_buf_add(b, tmp, (size_t)n);
    return;
  }
  pl_buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

const char *pl_buf_cstr(pl_buf *b) {
  if (b->data == NULL) pl_buf_reserve(b, 0), b->data[0] = '\0';
  return b->data;
}

void pl_err_clear(pl_err *e) {
  e->file[0] = '\0';
  e->line = e->col = 0;
  e->offset = -1;
  e->kind = PL_ERR_DATA;
  e->msg[0] = '\0';
}

int pl_err_set(pl_err *e, size_t line, size_t col, const char *fmt, ...) {
  if (e == NULL) return -1;
  e->line = line;
  e->col = col;
  e->offset = -1;
  e->kind = PL_ERR_DATA;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return -1;
}

int pl_err_expected(pl_err *e, size_t line, size_t col, const char *what, const char *found, size_t n) {
  char ex[64];
  size_t k = 0;
  while (k < n && k < 40 && found[k] != '\n' && found[k] != '\r') k++;
  if (found == NULL) return pl_err_set(e, line, col, "expected %s, found end of file", what);
  if (k == 0) return pl_err_set(e, line, col, "expected %s, found end of line", what);
  size_t j = 0;
  for (size_t i = 0; i < k && j + 5 < sizeof ex; i++) {
    unsigned char c = (unsigned char)found[i];
    if (c < 0x20 || c == 0x7f) j += (size_t)snprintf(ex + j, sizeof ex - j, "\\x%02x", c);
    else ex[j++] = (char)c;
  }
  ex[j] = '\0';
  int cut = k < n && found[k] != '\n' && found[k] != '\r';
  return pl_err_set(e, line, col, "expected %s, found \"%s%s\"", what, ex, cut ? "..." : "");
}

void pl_err_format(const pl_err *e, char *out, size_t outsz) {
  const char *f = e->file[0] ? e->file : "input";
  if (e->line > 0) snprintf(out, outsz, "%s:%zu:%zu: %s", f, e->line, e->col ? e->col : 1, e->msg);
  else if (e->offset >= 0) snprintf(out, outsz, "%s: byte %lld: %s", f, e->offset, e->msg);
  else snprintf(out, outsz, "%s: %s", f, e->msg);
}

int pl_fmt_double(char *out, size_t outsz, double v) {
  if (isnan(v)) return snprintf(out, outsz, "nan");
  if (isinf(v)) return snprintf(out, outsz, v > 0 ? "inf" : "-inf");
  if (v == 0) return snprintf(out, outsz, signbit(v) ? "-0" : "0");
  /* the shortest of 15, 16, 17 significant digits that reads back exactly */
  int n = snprintf(out, outsz, "%.15g", v);
  if (strtod(out, NULL) != v) n = snprintf(out, outsz, "%.16g", v);
  if (strtod(out, NULL) != v) n = snprintf(out, outsz, "%.17g", v);
  return n;
}

uint32_t pl_fnv1a32(const void *data, size_t n) {
  const unsigned char *p = data;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

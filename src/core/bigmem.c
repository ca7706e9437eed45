/*
** bigmem.c -- memory for big arrays with a cache of freed large blocks
** (bigmem.h).
**
** Every block has a header that ends where the caller's bytes begin: its
** kind and length.  A big block (PL_MEM_BIG bytes or more when made) is a
** private anonymous mapping, the header in its first 64 bytes (the
** caller's bytes stay 64-byte aligned); a small one is malloc's, the header
** in its first 16.  A big block keeps its kind when it shrinks.
**
** The cache: freed big blocks, at most CACHE_BLOCKS of them and
** CACHE_BYTES in all, the oldest going first (their pages stay resident:
** that is the point, and the cost in memory).  A big request takes the
** smallest cached block that holds it; what it does not need past its end
** goes back to the cache as a block of its own (unmapped where too small
** for a big request).  Where no block is large enough, the request grows
** the largest one (mremap: its pages move, the new ones are fresh), so that
** cached memory is used before any is mapped anew.
**
** Why: on the machines perflab is measured on, a fresh page costs a fault
** (a trap to the hypervisor) and the kernel clearing it; a 1 GB trace's
** critical path spent a quarter of its cycles there, and its arrays and
** columns, freed and asked for again phase after phase, are the same sizes
** (docs/critical-path.md, "Speed").
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bigmem.h"
#include "pl_util.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ASan: malloc's blocks, which it checks (ThreadSanitizer checks the cache
** itself: its lock and the blocks handed between threads) */
#if defined(__SANITIZE_ADDRESS__)
#define PL_MEM_PLAIN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define PL_MEM_PLAIN 1
#endif
#endif
#if !defined(__linux__)
#define PL_MEM_PLAIN 1
#endif

#ifndef PL_MEM_PLAIN
#include <sys/mman.h>
#include <unistd.h>
#endif

/* ThreadSanitizer does not follow mremap (the moved pages keep the old
** addresses' history, and it reports races that are not there): under it,
** a block grows by a copy */
#if defined(__SANITIZE_THREAD__)
#define PL_MEM_MREMAP(b, l, n) MAP_FAILED
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PL_MEM_MREMAP(b, l, n) MAP_FAILED
#endif
#endif
#ifndef PL_MEM_MREMAP
#define PL_MEM_MREMAP(b, l, n)      mremap((b), (l), (n), MREMAP_MAYMOVE)
#define PL_FILL_MREMAP(b, l, n, to) mremap((b), (l), (n), MREMAP_MAYMOVE | MREMAP_FIXED, (to))
#else
#define PL_FILL_MREMAP(b, l, n, to) MAP_FAILED
#endif

void *pl_mem_xalloc(size_t n) {
  void *p = pl_mem_alloc(n);
  if (!p) pl_oom_fail(n);
  return p;
}

void *pl_mem_xcalloc(size_t n, size_t sz) {
  void *p = pl_mem_calloc(n, sz);
  if (!p) pl_oom_fail(n * sz);
  return p;
}

void *pl_mem_xrealloc(void *p, size_t n) {
  void *q = pl_mem_realloc(p, n);
  if (!q) pl_oom_fail(n);
  return q;
}

#ifdef PL_MEM_PLAIN

void *pl_mem_alloc(size_t n) { return malloc(n ? n : 1); }
void *pl_mem_calloc(size_t n, size_t sz) {
  if (sz && n > SIZE_MAX / sz) {
    errno = ENOMEM;
    return NULL;
  }
  return calloc(n ? n : 1, sz ? sz : 1);
}
void *pl_mem_realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }
void pl_mem_free(void *p) { free(p); }
void pl_mem_cache_stats(size_t *blocks, size_t *bytes) {
  *blocks = 0;
  *bytes = 0;
}
void pl_mem_cache_drop(void) {}
void pl_mem_hugepages(void *p) { (void)p; }
void *pl_mem_alloc_fill(size_t n, uint64_t pattern) {
  (void)n;
  (void)pattern;
  errno = ENOSYS;
  return NULL;
}
int pl_mem_fills(const void *p) {
  (void)p;
  return 0;
}

#else

#define TAG_SMALL      ((size_t)0x706c6d656d736d6cu) /* "plmemsml" */
#define TAG_BIG        ((size_t)0x706c6d656d626967u) /* "plmembig" */
#define TAG_FILL       ((size_t)0x706c6d656d66696cu) /* "plmemfil" */
#define HDR_SMALL      16
#define HDR_BIG        64
#define PAGE           ((size_t)4096)
#define CACHE_BLOCKS   32
#define CACHE_BYTES    ((size_t)512 << 20)
/* Once pl_mem_bigpages() is in force (after the command line's first load),
** blocks under 4 MiB are malloc's, from its heap on huge pages, and a fresh
** mapping is advised too: a mapping of 1 to 4 MiB holds at most one huge
** page, and each of its small pages is a fault. */
#define PL_MEM_BIG_THP ((size_t)4 << 20)

static size_t big_min(void) { return pl_mem_bigpages_on() ? PL_MEM_BIG_THP : PL_MEM_BIG; }

/* The header's last 16 bytes, just before the caller's: for a big block
** the mapping's length, for a small one the caller's size. */
typedef struct tail {
  size_t len, tag;
} tail;

static tail *tail_of(void *p) { return (tail *)((char *)p - sizeof(tail)); }

static struct {
  pthread_mutex_t mu;
  struct {
    char *base;
    size_t len;
  } b[CACHE_BLOCKS];
  size_t n, bytes;
} cache = { PTHREAD_MUTEX_INITIALIZER, { { NULL, 0 } }, 0, 0 };

static size_t pages(size_t bytes) { return (bytes + PAGE - 1) & ~(PAGE - 1); }

static void *big_user(char *base, size_t len) {
  tail *t = (tail *)(base + HDR_BIG - sizeof(tail));
  t->len = len;
  t->tag = TAG_BIG;
  return base + HDR_BIG;
}

/* Takes cache entry i out (the lock held); the others keep their order
** (oldest first). */
static void cache_take(size_t i, char **base, size_t *len) {
  *base = cache.b[i].base;
  *len = cache.b[i].len;
  cache.bytes -= *len;
  cache.n--;
  memmove(&cache.b[i], &cache.b[i + 1], (cache.n - i) * sizeof cache.b[0]);
}

void pl_mem_cache_drop(void) {
  pthread_mutex_lock(&cache.mu);
  while (cache.n) {
    char *base;
    size_t len;
    cache_take(cache.n - 1, &base, &len);
    munmap(base, len);
  }
  pthread_mutex_unlock(&cache.mu);
}

void pl_mem_cache_stats(size_t *blocks, size_t *bytes) {
  pthread_mutex_lock(&cache.mu);
  *blocks = cache.n;
  *bytes = cache.bytes;
  pthread_mutex_unlock(&cache.mu);
}

static char *map_fresh(size_t len) {
  void *q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (q == MAP_FAILED) { /* out of address space: the cache's blocks go first */
    pl_mem_cache_drop();
    q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  if (q == MAP_FAILED) {
    errno = ENOMEM;
    return NULL;
  }
#if defined(MADV_HUGEPAGE)
  if (pl_mem_bigpages_on()) (void)madvise(q, len, MADV_HUGEPAGE);
#endif
  return q;
}

static void big_free(char *base, size_t len);

/* mremap of a big block to need bytes, MAP_FAILED where it cannot.  A
** block advised in part (pl_table_hugepages keeps a column's last pages
** small) is two mappings, which mremap cannot move: advised whole, they
** are one again (the kernel merges them), and it moves. */
static char *grow_map(char *base, size_t len, size_t need) {
  char *q = PL_MEM_MREMAP(base, len, need);
#if defined(MADV_HUGEPAGE)
  if (q == MAP_FAILED && errno == EFAULT && madvise(base, len, MADV_HUGEPAGE) == 0) q = PL_MEM_MREMAP(base, len, need);
#endif
  return q;
}

/* A big block for n bytes; zeroed where zero is set (a fresh mapping is). */
static void *big_new(size_t n, int zero) {
  if (n > SIZE_MAX - HDR_BIG - PAGE) {
    errno = ENOMEM;
    return NULL;
  }
  size_t need = pages(n + HDR_BIG);
  char *base = NULL;
  size_t len = 0;
  int fit = -1, grow = -1;
  pthread_mutex_lock(&cache.mu);
  for (size_t i = 0; i < cache.n; i++) {
    if (cache.b[i].len >= need && (fit < 0 || cache.b[i].len < cache.b[fit].len)) fit = (int)i;
    if (grow < 0 || cache.b[i].len > cache.b[grow].len) grow = (int)i;
  }
  if (fit >= 0) cache_take((size_t)fit, &base, &len);
  else if (grow >= 0) cache_take((size_t)grow, &base, &len);
  pthread_mutex_unlock(&cache.mu);
  if (base && len >= need) { /* it holds the request: the rest is a block of its own */
    if (len - need >= PL_MEM_BIG + PAGE) big_free(base + need, len - need);
    else if (len > need) munmap(base + need, len - need);
    if (zero) memset(base + HDR_BIG, 0, n);
    return big_user(base, need);
  }
  if (base) { /* the largest cached block, grown: its pages are kept */
    char *q = grow_map(base, len, need);
    if (q != MAP_FAILED) {
      if (zero) memset(q + HDR_BIG, 0, len - HDR_BIG); /* the part that was in use; the rest is fresh */
      return big_user(q, need);
    }
    munmap(base, len);
  }
  base = map_fresh(need);
  return base ? big_user(base, need) : NULL;
}

static void big_free(char *base, size_t len) {
  pthread_mutex_lock(&cache.mu);
  if (len <= CACHE_BYTES) {
    /* room: the oldest blocks go first */
    while (cache.n && (cache.n == CACHE_BLOCKS || cache.bytes + len > CACHE_BYTES)) {
      char *ob;
      size_t ol;
      cache_take(0, &ob, &ol);
      pthread_mutex_unlock(&cache.mu);
      munmap(ob, ol);
      pthread_mutex_lock(&cache.mu);
    }
    if (cache.n < CACHE_BLOCKS && cache.bytes + len <= CACHE_BYTES) {
      cache.b[cache.n].base = base;
      cache.b[cache.n].len = len;
      cache.n++;
      cache.bytes += len;
      pthread_mutex_unlock(&cache.mu);
      return;
    }
  }
  pthread_mutex_unlock(&cache.mu);
  munmap(base, len);
}

static void *small_new(size_t n, int zero) {
  if (n > SIZE_MAX - HDR_SMALL) {
    errno = ENOMEM;
    return NULL;
  }
  char *base = zero ? calloc(1, n + HDR_SMALL) : malloc(n + HDR_SMALL);
  if (!base) return NULL;
  pl_mem_advised(base, n + HDR_SMALL);
  tail *t = (tail *)base;
  t->len = n;
  t->tag = TAG_SMALL;
  return base + HDR_SMALL;
}

void *pl_mem_alloc(size_t n) { return n >= big_min() ? big_new(n, 0) : small_new(n, 0); }

void *pl_mem_calloc(size_t n, size_t sz) {
  if (sz && n > SIZE_MAX / sz) {
    errno = ENOMEM;
    return NULL;
  }
  size_t b = n * sz;
  return b >= big_min() ? big_new(b, 1) : small_new(b, 1);
}

/* ---- fill blocks (pl_mem_alloc_fill) -------------------------------------
** A block whose bytes read as an 8-byte pattern without memory: for the
** pattern 0, a private anonymous mapping (its unwritten pages read as the
** kernel's zero page, which no process is charged for); for any other, a
** row of private mappings of one small memfd that holds the pattern
** (FILL_CHUNK bytes, written once per pattern): reading maps the memfd's
** page, writing copies that one 4 KiB page into the process (copy on
** write), and the other pages stay shared.  Chunk k of a block is the
** mapping [k * FILL_CHUNK, min((k + 1) * FILL_CHUNK, len)) of the memfd's
** offset 0: one mapping each (they never merge, their offsets do not
** follow on), which is how it grows: each chunk moved to the new place by
** mremap (its written pages go with it), the last one stretched up to the
** memfd's end, and fresh chunks after it.  A plain mremap of the whole
** block would fail (several mappings) or reach past the memfd (SIGBUS).
** The pattern sits in the header, just before the tail. */
#define FILL_CHUNK ((size_t)2 << 20)
#define FILL_FDS   4

static struct {
  pthread_mutex_t mu;
  uint64_t pat[FILL_FDS];
  int fd[FILL_FDS];
  size_t n;
} fills = { PTHREAD_MUTEX_INITIALIZER, { 0 }, { 0 }, 0 };

/* The memfd holding pattern pat, made on first use; -1 where the system
** has none (or out of descriptors). */
static int fill_fd(uint64_t pat) {
  int fd = -1;
  pthread_mutex_lock(&fills.mu);
  for (size_t i = 0; i < fills.n && fd < 0; i++)
    if (fills.pat[i] == pat) fd = fills.fd[i];
  if (fd < 0 && fills.n < FILL_FDS) {
#if defined(MFD_CLOEXEC)
    fd = memfd_create("perflab-fill", MFD_CLOEXEC);
#endif
    uint64_t *buf = fd >= 0 ? malloc(65536) : NULL;
    int ok = buf && ftruncate(fd, (off_t)FILL_CHUNK) == 0;
    for (size_t i = 0; ok && i < 65536 / 8; i++) buf[i] = pat;
    for (size_t off = 0; ok && off < FILL_CHUNK; off += 65536) ok = pwrite(fd, buf, 65536, (off_t)off) == 65536;
    free(buf);
    if (ok) {
      fills.pat[fills.n] = pat;
      fills.fd[fills.n++] = fd;
    } else if (fd >= 0) {
      close(fd);
      fd = -1;
    }
  }
  pthread_mutex_unlock(&fills.mu);
  return fd;
}

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* Maps the pattern's chunks over [at + from, at + to) (from a multiple of
** FILL_CHUNK), replacing what is there; -1 where one cannot be mapped. */
static int fill_map(char *at, size_t from, size_t to, int fd) {
  for (size_t off = from; off < to; off += FILL_CHUNK) {
    void *q = mmap(at + off, min_sz(FILL_CHUNK, to - off), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
    if (q == MAP_FAILED) return -1;
  }
  return 0;
}

static uint64_t *fill_pat(char *base) { return (uint64_t *)(base + HDR_BIG - sizeof(tail) - 8); }

static void *fill_user(char *base, size_t len, uint64_t pat) {
  *fill_pat(base) = pat;
  tail *t = (tail *)(base + HDR_BIG - sizeof(tail));
  t->len = len;
  t->tag = TAG_FILL;
  return base + HDR_BIG;
}

static void no_huge(char *base, size_t len) {
#if defined(MADV_NOHUGEPAGE)
  /* a write must copy 4 KiB, not fill a huge page ("always" mode) */
  (void)madvise(base, len, MADV_NOHUGEPAGE);
#else
  (void)base;
  (void)len;
#endif
}

/* The mapping of a fill block of len bytes (no header written); NULL
** where the system cannot. */
static char *fill_mapping(size_t len, uint64_t pat) {
  int fd = pat ? fill_fd(pat) : -1;
  if (pat && fd < 0) return NULL;
  void *q =
      mmap(NULL, len, pat ? PROT_NONE : PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (q == MAP_FAILED) return NULL;
  if (pat && fill_map(q, 0, len, fd) != 0) {
    munmap(q, len);
    return NULL;
  }
  no_huge(q, len);
  return q;
}

void *pl_mem_alloc_fill(size_t n, uint64_t pattern) {
  if (n > SIZE_MAX - HDR_BIG - PAGE) {
    errno = ENOMEM;
    return NULL;
  }
  size_t len = pages(n + HDR_BIG);
  char *base = fill_mapping(len, pattern);
  if (!base) {
    errno = ENOMEM;
    return NULL;
  }
  return fill_user(base, len, pattern);
}

int pl_mem_fills(const void *p) { return p && tail_of((void *)p)->tag == TAG_FILL; }

/* A fill block grown to `need` bytes (pages), its written pages moved, not
** copied: NULL (the block untouched) where the new mappings cannot be
** made. */
static char *fill_grow(char *base, size_t len, size_t need, uint64_t pat) {
  if (!pat) { /* one anonymous mapping: mremap moves it whole */
    char *q = PL_MEM_MREMAP(base, len, need);
    if (q != MAP_FAILED) return q;
  }
  char *q = fill_mapping(need, pat);
  if (!q) return NULL;
  /* every chunk of the old block into its place in the new one (the new
  ** one's chunk there is replaced), the last one stretched to the new
  ** chunk's length; where mremap cannot (a ThreadSanitizer build, out of
  ** mappings), its bytes are copied over the pattern instead */
  size_t step = pat ? FILL_CHUNK : len;
  for (size_t off = 0; off < len; off += step) {
    size_t sl = min_sz(step, len - off), dl = min_sz(step, need - off);
    void *m = pat ? PL_FILL_MREMAP(base + off, sl, dl, q + off) : MAP_FAILED;
    if (m == MAP_FAILED) {
      memcpy(q + off, base + off, sl);
      munmap(base + off, sl);
    }
  }
  return q;
}

static void *fill_realloc(void *p, size_t n) {
  char *base = (char *)p - HDR_BIG;
  size_t len = tail_of(p)->len;
  uint64_t pat = *fill_pat(base);
  if (n > SIZE_MAX - HDR_BIG - PAGE) {
    errno = ENOMEM;
    return NULL;
  }
  size_t need = pages(n + HDR_BIG);
  if (need <= len) { /* shrink in place: the chunks past the end go */
    if (need < len) munmap(base + need, len - need);
    tail_of(p)->len = need;
    return p;
  }
  char *q = fill_grow(base, len, need, pat);
  if (q) return fill_user(q, need, pat);
  /* no mappings left: an ordinary block, the pattern written past the old
  ** bytes (it still reads as before; it is not a fill block any more) */
  char *r = big_new(n, 0);
  if (!r) return NULL;
  memcpy(r, p, len - HDR_BIG);
  for (size_t off = len - HDR_BIG; off + 8 <= n; off += 8) memcpy(r + off, &pat, 8);
  munmap(base, len);
  return r;
}

void pl_mem_free(void *p) {
  if (!p) return;
  tail *t = tail_of(p);
  if (t->tag == TAG_SMALL) {
    t->tag = 0;
    free((char *)p - HDR_SMALL);
  } else if (t->tag == TAG_BIG) {
    t->tag = 0;
    big_free((char *)p - HDR_BIG, t->len);
  } else if (t->tag == TAG_FILL) {
    t->tag = 0;
    munmap((char *)p - HDR_BIG, t->len); /* never cached: its pages are mostly not there */
  } else abort();                        /* not a pl_mem block: a bug, not an input */
}

void *pl_mem_realloc(void *p, size_t n) {
  if (!p) return pl_mem_alloc(n);
  tail *t = tail_of(p);
  if (t->tag == TAG_SMALL) {
    if (n < big_min()) {
      char *base = realloc((char *)p - HDR_SMALL, n + HDR_SMALL);
      if (!base) return NULL;
      pl_mem_advised(base, n + HDR_SMALL);
      ((tail *)base)->len = n;
      return base + HDR_SMALL;
    }
    void *q = big_new(n, 0);
    if (!q) return NULL;
    memcpy(q, p, t->len);
    pl_mem_free(p);
    return q;
  }
  if (t->tag == TAG_FILL) return fill_realloc(p, n);
  if (t->tag != TAG_BIG) abort();
  char *base = (char *)p - HDR_BIG;
  size_t len = t->len, need = pages((n > SIZE_MAX - HDR_BIG - PAGE ? SIZE_MAX - HDR_BIG - PAGE : n) + HDR_BIG);
  if (need <= len) { /* shrink in place: the pages past the end go back */
    if (len - need >= PL_MEM_BIG) {
      munmap(base + need, len - need);
      t->len = need;
    }
    return p;
  }
  if (n > SIZE_MAX - HDR_BIG - PAGE) {
    errno = ENOMEM;
    return NULL;
  }
  char *q = grow_map(base, len, need);
  if (q != MAP_FAILED) return big_user(q, need);
  /* else a copy */
  void *r = big_new(n, 0);
  if (!r) return NULL;
  memcpy(r, p, len - HDR_BIG);
  pl_mem_free(p);
  return r;
}

void pl_mem_hugepages(void *p) {
#if defined(MADV_HUGEPAGE)
  if (!p || tail_of(p)->tag != TAG_BIG) return;
  char *base = (char *)p - HDR_BIG;
  size_t len = tail_of(p)->len;
  if (len >= ((size_t)4 << 20)) (void)madvise(base, len, MADV_HUGEPAGE);
#else
  (void)p;
#endif
}

#endif

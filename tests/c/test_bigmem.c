/* test_bigmem.c -- bigmem.c: big blocks come back from the cache of freed
** ones (the same pages, zeroed where asked), the rest of a reused block
** stays cached, contents survive growth (in place, from a small block,
** after huge-page advice), and the cache keeps to its bounds.  Under a
** sanitizer the blocks are malloc's and the cache stays empty: only the
** contents are checked there. */
#include "tcheck.h"
#include "bigmem.h"

#include <pthread.h>
#include <stdint.h>

static int all(const unsigned char *p, size_t n, unsigned char v) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != v) return 0;
  return 1;
}

static int pattern_ok(const uint32_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (uint32_t)(i * 2654435761u)) return 0;
  return 1;
}

static void pattern(uint32_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint32_t)(i * 2654435761u);
}

/* Threads taking blocks from the cache and giving them back at once: each
** block holds what its thread wrote (no block is handed out twice). */
static void *churn(void *arg) {
  uintptr_t id = (uintptr_t)arg;
  int ok = 1;
  for (int r = 0; r < 40; r++) {
    size_t n = PL_MEM_BIG + (size_t)((r * 7 + id * 13) % 11) * 65536;
    unsigned char *p = pl_mem_alloc(n);
    if (!p) return (void *)0;
    memset(p, (int)(id + 1), n);
    if (r % 3 == 0) p = pl_mem_realloc(p, 2 * n);
    ok = ok && all(p, n, (unsigned char)(id + 1));
    pl_mem_free(p);
  }
  return ok ? (void *)1 : (void *)0;
}

int main(void) {
  size_t blocks, bytes;
  pl_mem_cache_drop();
  pl_mem_cache_stats(&blocks, &bytes);
  TC_EQ_INT(blocks, 0);

  /* small blocks: malloc's, with contents kept across realloc */
  unsigned char *s = pl_mem_calloc(100, 3);
  TC_CHECK(s && all(s, 300, 0));
  memset(s, 7, 300);
  s = pl_mem_realloc(s, 5000);
  TC_CHECK(s && all(s, 300, 7));
  pl_mem_free(s);
  pl_mem_free(NULL);
  pl_mem_cache_stats(&blocks, &bytes);
  TC_EQ_INT(blocks, 0); /* small blocks never go to the cache */

  /* a big block, freed, then asked for again smaller: the same pages,
  ** zeroed by calloc; the rest of the block stays cached */
  size_t big = (size_t)8 << 20;
  unsigned char *a = pl_mem_alloc(big);
  TC_CHECK(a != NULL);
  memset(a, 0x5a, big);
  pl_mem_free(a);
  pl_mem_cache_stats(&blocks, &bytes);
  int cached = blocks > 0; /* 0 under a sanitizer */
  if (cached) {
    TC_EQ_INT(blocks, 1);
    TC_CHECK(bytes >= big && bytes <= big + 8192);
  }
  unsigned char *b = pl_mem_calloc(big / 2, 1);
  TC_CHECK(b != NULL && all(b, big / 2, 0));
  if (cached) {
    TC_CHECK(b == a); /* the cached block, not fresh pages */
    pl_mem_cache_stats(&blocks, &bytes);
    TC_EQ_INT(blocks, 1); /* its second half */
    TC_CHECK(bytes >= big / 2 - 8192 && bytes <= big / 2 + 8192);
  }
  /* pl_mem_alloc does not clear a reused block: the old bytes are there */
  unsigned char *c = pl_mem_alloc(big / 4);
  TC_CHECK(c != NULL);
  if (cached) TC_CHECK(all(c + 4096, big / 4 - 8192, 0x5a));
  pl_mem_free(c);

  /* growth keeps the contents: in place, and after huge-page advice (one
  ** mapping, so mremap can still move it) */
  size_t n = (big / 2) / sizeof(uint32_t);
  uint32_t *g = (uint32_t *)b;
  pattern(g, n);
  pl_mem_hugepages(g);
  g = pl_mem_realloc(g, 6 * big);
  TC_CHECK(g != NULL && pattern_ok(g, n));
  pattern(g, 6 * big / sizeof(uint32_t));
  g = pl_mem_realloc(g, 12 * big);
  TC_CHECK(g != NULL && pattern_ok(g, 6 * big / sizeof(uint32_t)));
  /* shrinking keeps the head */
  g = pl_mem_realloc(g, 1000 * sizeof(uint32_t));
  TC_CHECK(g != NULL && pattern_ok(g, 1000));
  pl_mem_free(g);

  /* a small block grown past the threshold becomes a big one, contents kept */
  uint32_t *h = pl_mem_alloc(4000 * sizeof(uint32_t));
  pattern(h, 4000);
  h = pl_mem_realloc(h, 2 * PL_MEM_BIG);
  TC_CHECK(h != NULL && pattern_ok(h, 4000));
  pl_mem_free(h);

  /* the cache's bounds: at most 32 blocks, 512 MB */
  void *many[40];
  for (int i = 0; i < 40; i++) many[i] = pl_mem_alloc(PL_MEM_BIG + (size_t)i * 4096 * 3);
  for (int i = 0; i < 40; i++) pl_mem_free(many[i]);
  pl_mem_cache_stats(&blocks, &bytes);
  TC_CHECK(blocks <= 32 && bytes <= ((size_t)512 << 20));
  if (cached) TC_CHECK(blocks > 0);
  pl_mem_cache_drop();
  pl_mem_cache_stats(&blocks, &bytes);
  TC_EQ_INT(blocks, 0);
  TC_EQ_INT(bytes, 0);

  /* four threads at once (make tsan) */
  pthread_t th[4];
  for (uintptr_t i = 0; i < 4; i++) pthread_create(&th[i], NULL, churn, (void *)i);
  for (int i = 0; i < 4; i++) {
    void *rv = NULL;
    pthread_join(th[i], &rv);
    TC_CHECK(rv == (void *)1);
  }
  pl_mem_cache_stats(&blocks, &bytes);
  TC_CHECK(blocks <= 32 && bytes <= ((size_t)512 << 20));

  /* overflow is refused, not wrapped */
  TC_CHECK(pl_mem_calloc(SIZE_MAX / 2, 4) == NULL);
  return tc_done();
}

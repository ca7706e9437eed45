/* test_mem_fill.c -- bigmem.c's fill blocks (pl_mem_alloc_fill): a block
** reads as its 8-byte pattern everywhere, a write changes that one value
** only, growth keeps the written values and reads as the pattern past them
** (across the memfd's chunks: a 2 MiB one, so 5 MB spans three), a shrink
** and a free work and never feed the cache, and (where /proc/self/status
** can be read) an untouched 64 MB block costs the process under 1 MB of
** its own memory (RssAnon) even once read through.  The table level: a
** column given such storage (pl_table_reserve_sparse) reads as missing,
** takes values, grows, and is not pre-faulted.  Where the system cannot
** (a sanitizer build), pl_mem_alloc_fill returns NULL and the table falls
** back to ordinary storage: the values are checked either way. */
#include "tcheck.h"
#include "bigmem.h"
#include "table.h"

#include <stdint.h>

static const uint64_t NA = 0x8000000000000000ull; /* PL_INT_NA's bits */

static int reads_as(const uint64_t *p, size_t from, size_t to, uint64_t v) {
  for (size_t i = from; i < to; i++)
    if (p[i] != v) return 0;
  return 1;
}

/* ThreadSanitizer keeps shadow memory (anonymous) for what is read: the
** resident-set checks do not hold under it */
#if defined(__SANITIZE_THREAD__)
#define NO_RSS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NO_RSS 1
#endif
#endif

/* RssAnon of this process in kB, or -1 where it cannot be read. */
static long rss_anon_kb(void) {
#ifdef NO_RSS
  return -1;
#endif
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "RssAnon: %ld", &kb) == 1) break;
  fclose(f);
  return kb;
}

static void blocks(void) {
  size_t n = (size_t)5 << 20; /* 5 MB: chunks of 2 + 2 + 1 MiB */
  uint64_t *p = pl_mem_alloc_fill(n, NA);
  if (!p) {
    printf("# no fill blocks here (sanitizer build or no memfd): table fallback only\n");
    TC_CHECK(!pl_mem_fills(NULL));
    return;
  }
  size_t w = n / 8;
  TC_CHECK(pl_mem_fills(p));
  TC_CHECK(reads_as(p, 0, w, NA));
  /* one write: that value only, in a chunk's middle and across a chunk edge */
  p[1000] = 42;
  p[(((size_t)2 << 20)) / 8 - 1] = 7;
  p[(((size_t)2 << 20)) / 8] = 8;
  TC_EQ_INT(p[1000], 42);
  TC_CHECK(reads_as(p, 0, 1000, NA) && reads_as(p, 1001, ((size_t)2 << 20) / 8 - 1, NA));
  TC_CHECK(reads_as(p, ((size_t)2 << 20) / 8 + 1, w, NA));
  /* growth: old values kept, the rest the pattern (a partial last chunk
  ** stretched, fresh chunks after it) */
  p[w - 1] = 99;
  uint64_t *q = pl_mem_realloc(p, 3 * n);
  TC_CHECK(q != NULL && pl_mem_fills(q));
  TC_EQ_INT(q[1000], 42);
  TC_EQ_INT(q[((size_t)2 << 20) / 8 - 1], 7);
  TC_EQ_INT(q[((size_t)2 << 20) / 8], 8);
  TC_EQ_INT(q[w - 1], 99);
  TC_CHECK(reads_as(q, 1001, ((size_t)2 << 20) / 8 - 1, NA));
  TC_CHECK(reads_as(q, w, 3 * w, NA));
  q[3 * w - 1] = 5; /* the grown part takes writes */
  TC_EQ_INT(q[3 * w - 1], 5);
  TC_CHECK(reads_as(q, w, 3 * w - 1, NA));
  /* shrink in place, then grow again: past the cut it reads as the pattern */
  uint64_t *s = pl_mem_realloc(q, n / 2);
  TC_CHECK(s == q);
  TC_EQ_INT(s[1000], 42);
  s = pl_mem_realloc(s, 2 * n);
  TC_CHECK(s && s[1000] == 42 && reads_as(s, n / 16 + 512, 2 * w, NA));
  size_t cb, cbytes, cb2, cbytes2;
  pl_mem_cache_stats(&cb, &cbytes);
  pl_mem_free(s);
  pl_mem_cache_stats(&cb2, &cbytes2);
  TC_EQ_INT(cb2, cb); /* not cached */
  TC_EQ_INT(cbytes2, cbytes);

  /* pattern 0 (a string column's): plain anonymous pages, growth by mremap */
  uint32_t *z = pl_mem_alloc_fill(n, 0);
  TC_CHECK(z && pl_mem_fills(z));
  z[12345] = 3;
  z = pl_mem_realloc(z, 4 * n);
  TC_CHECK(z && z[12345] == 3 && z[12344] == 0 && z[4 * n / 4 - 1] == 0);
  pl_mem_free(z);

  /* a big untouched block, read through: no anonymous memory of ours */
  long a0 = rss_anon_kb();
  size_t big = (size_t)64 << 20;
  uint64_t *b = pl_mem_alloc_fill(big, NA);
  TC_CHECK(b && reads_as(b, 0, big / 8, NA));
  long a1 = rss_anon_kb();
  if (a0 >= 0 && a1 >= 0) {
    printf("# RssAnon %ld kB -> %ld kB after a 64 MB fill block read through\n", a0, a1);
    TC_CHECK(a1 - a0 < 1024);
  }
  pl_mem_free(b);
}

/* A table's column given fill storage while all missing. */
static void table(void) {
  pl_table *t = pl_table_new("t");
  int ci = pl_table_add_col(t, "i", PL_INT), cn = pl_table_add_col(t, "n", PL_NUM);
  int cs = pl_table_add_col(t, "s", PL_STR), cb = pl_table_add_col(t, "b", PL_BOOL);
  int cd = pl_table_add_col(t, "dense", PL_INT);
  for (int r = 0; r < 100; r++) {
    pl_row_put_int(t, cd, r);
    pl_row_end(t);
  }
  size_t rows = 1100000; /* the boolean column too: over PL_MEM_BIG bytes */
  pl_table_reserve_sparse(t, rows);
  void *probe = pl_mem_alloc_fill(8, NA);
  int fills = probe != NULL; /* the system can */
  pl_mem_free(probe);
  TC_EQ_INT(pl_column_fills(t->cols[ci]), fills);
  TC_EQ_INT(pl_column_fills(t->cols[cn]), fills);
  TC_EQ_INT(pl_column_fills(t->cols[cs]), fills);
  TC_EQ_INT(pl_column_fills(t->cols[cb]), fills);
  TC_EQ_INT(pl_column_fills(t->cols[cd]), 0); /* has values: ordinary storage */
  TC_CHECK(t->cols[ci]->cap >= rows && t->cols[cd]->cap >= rows);
  /* pre-faulting skips them: only the dense column's 8 MB comes in */
  long a0 = rss_anon_kb();
  pl_table_populate(t, 0, rows);
  long a1 = rss_anon_kb();
  if (fills && a0 >= 0 && a1 >= 0) {
    printf("# RssAnon %ld kB -> %ld kB populating 1 M rows (one dense column of 8 MB)\n", a0, a1);
    TC_CHECK(a1 - a0 < 12 * 1024);
  }
  /* the rows so far read as missing; rows past them too (the fill's promise) */
  for (size_t r = 0; r < rows; r += 997) {
    size_t rr = r < 100 ? r : 99;
    TC_CHECK(pl_cell_missing(t, ci, rr) && pl_cell_missing(t, cn, rr) && pl_cell_missing(t, cs, rr) &&
             pl_cell_missing(t, cb, rr));
  }
  /* values put later, and a row discarded: the discarded value does not stay */
  pl_row_put_int(t, ci, 17);
  pl_row_put_num(t, cn, 2.5);
  pl_row_put_str(t, cs, "x", 1);
  pl_row_put_bool(t, cb, 1);
  pl_row_end(t);
  pl_row_put_int(t, ci, 18);
  pl_row_discard(t);
  pl_row_put_int(t, cd, 1);
  pl_row_end(t);
  TC_EQ_INT(t->nrows, 102);
  TC_EQ_INT(pl_cell_int(t, ci, 100), 17);
  TC_CHECK(pl_cell_num(t, cn, 100) == 2.5);
  TC_EQ_STR(pl_cell_str(t, cs, 100, NULL), "x");
  TC_EQ_INT(pl_cell_int(t, cb, 100), 1);
  TC_CHECK(pl_cell_missing(t, ci, 101) && pl_cell_missing(t, cn, 101) && pl_cell_missing(t, cb, 101));
  /* growth past the reservation keeps values and reads missing after them */
  pl_column_reserve(t->cols[ci], 3 * rows);
  TC_EQ_INT(pl_cell_int(t, ci, 100), 17);
  /* (the storage past the values reads as missing only in a fill block:
  ** the fallback's reservation is uninitialised, as any column's) */
  if (fills) TC_CHECK(t->cols[ci]->v.i64[3 * rows - 1] == PL_INT_NA && t->cols[ci]->v.i64[rows + 5] == PL_INT_NA);
  pl_table_trim(t);
  TC_EQ_INT(pl_cell_int(t, ci, 100), 17);
  pl_table_free(t);
}

int main(void) {
  blocks();
  table();
  return tc_done();
}

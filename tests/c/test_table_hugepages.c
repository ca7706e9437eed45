/* test_table_hugepages.c -- pl_table_hugepages advises a column's buffer
** but for its last eighth, and a realloc past the reservation still moves
** the buffer (mremap) instead of copying it.
**
** The advice splits the buffer's mapping in two (the huge part, the small
** tail); mremap fails on a range of several mappings (EFAULT), and a copy
** faults in every page of the copy (the 4 GB .gz read on two threads:
** 270 k faults, seconds), so the realloc advises the whole block again,
** which makes it one mapping, before it moves it (bigmem.c).  Checked on
** the process's own memory map (/proc/self/maps) and its page-fault count
** (getrusage): split after the advice, one mapping after growing, no
** fault a page for the move; and the same for such a buffer freed into
** the cache of big blocks and grown there for a larger request.  Skipped where there is no /proc or the
** allocator is a sanitizer's (its big blocks are not mappings of their
** own). */
#include "tcheck.h"
#include "table.h"
#include "bigmem.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifndef SANITIZED
/* 1 when [a, b) lies in one line of /proc/self/maps, 0 when not, -1 when
** the map cannot be read. */
static int one_mapping(uintptr_t a, uintptr_t b) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  char line[512];
  int r = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx", &lo, &hi) != 2) continue;
    if (lo <= a && a < hi) {
      r = b <= hi;
      break;
    }
  }
  fclose(f);
  return r;
}

static int whole(const pl_column *c) {
  uintptr_t a = (uintptr_t)c->v.any;
  return one_mapping(a, a + c->cap * sizeof(int64_t));
}
#endif

int main(void) {
#ifdef SANITIZED
  fprintf(stderr, "skipped: a sanitizer's allocator\n");
  return tc_done();
#else
  pl_table *t = pl_table_new("t");
  int c = pl_table_add_col(t, "x", PL_INT);
  size_t rows = 5u << 20; /* 40 MiB: past malloc's largest mmap threshold */
  pl_table_reserve(t, rows);
  for (size_t r = 0; r < 1000; r++) {
    pl_row_put_int(t, c, (int64_t)r * 7);
    pl_row_end(t);
  }
  pl_column *col = t->cols[c];
  int before = whole(col);
  if (before < 0) {
    fprintf(stderr, "skipped: no /proc/self/maps\n");
    pl_table_free(t);
    return tc_done();
  }
  TC_EQ_INT(before, 1);
  pl_table_hugepages(t, 16u << 20);
  TC_EQ_INT(whole(col), 0); /* split: the last eighth is a mapping of its own */
  uintptr_t last = (uintptr_t)col->v.any + col->cap * sizeof(int64_t);
  TC_EQ_INT(one_mapping(last - (col->cap * sizeof(int64_t)) / 8, last), 1);
  struct rusage r0, r1;
  getrusage(RUSAGE_SELF, &r0);
  pl_column_reserve(col, rows + rows / 2);
  getrusage(RUSAGE_SELF, &r1);
  TC_CHECK(col->cap >= rows + rows / 2);
  TC_EQ_INT(whole(col), 1);
  /* moved, not copied: a copy of 40 MiB faults in ~10 k pages */
  TC_CHECK(r1.ru_minflt - r0.ru_minflt < 1000);
  int same = 1;
  for (size_t r = 0; r < 1000; r++) same = same && col->v.i64[r] == (int64_t)r * 7;
  TC_CHECK(same);
  pl_table_free(t);

  /* the same for a freed column kept in the cache of big blocks, grown
  ** for a larger request: its pages stay (no fault a page to write them) */
  pl_mem_cache_drop();
  t = pl_table_new("t");
  c = pl_table_add_col(t, "x", PL_INT);
  pl_table_reserve(t, rows);
  col = t->cols[c];
  memset(col->v.i64, 1, col->cap * sizeof(int64_t)); /* every page in */
  pl_table_hugepages(t, 16u << 20);
  TC_EQ_INT(whole(col), 0);
  size_t held = col->cap * sizeof(int64_t);
  pl_table_free(t); /* the buffer goes to the cache */
  char *big = pl_mem_xalloc(2 * held);
  getrusage(RUSAGE_SELF, &r0);
  memset(big, 2, held - 4096);
  getrusage(RUSAGE_SELF, &r1);
  TC_CHECK(r1.ru_minflt - r0.ru_minflt < 1000); /* fresh: ~10 k faults */
  pl_mem_free(big);
  return tc_done();
#endif
}

/*
** fresh_pages.c -- what writing fresh anonymous memory costs on this
** machine, the way a parse writes its columns (docs/performance.md,
** "Fresh memory, not the stores").
**
**   cc -O2 -o /tmp/fresh_pages bench/fresh_pages.c && /tmp/fresh_pages [MB]
**
** For MB (default 333) of fresh memory each line gives the CPU time
** (user + system, this process) of: faulting the pages in ahead
** (MADV_POPULATE_WRITE, as pl_table_populate does) and of the first pass
** of 25 KB copies over them (a piece's column), with plain stores and with
** streaming stores; a second pass over the same pages; the first pass with
** no populate (a fault a page); and the same on huge pages, fresh and again
** after an munmap (the freed huge pages taken back).  A benchmark tool,
** not part of perflab.
*/
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define PIECE 25600

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* dst 64-byte aligned, n a multiple of 64 */
static void copy_stream(char *d, const char *s, size_t n) {
#if defined(__SSE2__)
  for (size_t o = 0; o < n; o += 64)
    for (int k = 0; k < 64; k += 16)
      _mm_stream_si128((__m128i *)(d + o + k), _mm_loadu_si128((const __m128i *)(s + o + k)));
  _mm_sfence();
#else
  memcpy(d, s, n);
#endif
}

static void pass(char *d, size_t n, const char *src, int stream) {
  for (size_t o = 0; o + PIECE <= n; o += PIECE)
    if (stream) copy_stream(d + o, src, PIECE);
    else memcpy(d + o, src, PIECE);
}

static char *fresh(size_t n, int huge) {
  char *d = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (d == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
#if defined(MADV_HUGEPAGE)
  if (huge) madvise(d, n, MADV_HUGEPAGE);
#else
  (void)huge;
#endif
  return d;
}

static void run(const char *what, size_t n, const char *src, int huge, int populate, int stream, int again) {
  char *d = fresh(n, huge);
  double t0 = cpu();
#if defined(MADV_POPULATE_WRITE)
  if (populate && madvise(d, n, MADV_POPULATE_WRITE) != 0) perror("MADV_POPULATE_WRITE");
#else
  (void)populate;
#endif
  double t1 = cpu();
  pass(d, n, src, stream);
  double t2 = cpu();
  printf("%-34s populate %6.3f s  first pass %6.3f s", what, t1 - t0, t2 - t1);
  if (again) {
    pass(d, n, src, stream);
    printf("  second pass %6.3f s", cpu() - t2);
  }
  printf("  (%.1f us a 4 KB page)\n", (t2 - t0) * 1e6 / (double)(n / 4096));
  munmap(d, n);
}

int main(int argc, char **argv) {
  size_t mb = argc > 1 ? (size_t)atol(argv[1]) : 333;
  size_t n = (mb << 20) / PIECE * PIECE;
  char *src = aligned_alloc(64, PIECE);
  memset(src, 7, PIECE);
  run("4 KB pages, populated, plain", n, src, 0, 1, 0, 1);
  run("4 KB pages, populated, streamed", n, src, 0, 1, 1, 1);
  run("4 KB pages, faulted by the writes", n, src, 0, 0, 0, 0);
  run("huge pages, populated, plain", n, src, 1, 1, 0, 0);
  run("huge pages again (pages reused)", n, src, 1, 1, 0, 0);
  free(src);
  return 0;
}

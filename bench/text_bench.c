/*
** text_bench.c -- throughput of one text parser on one file, next to a
** memchr line count (the machine's limit): best of N, MB/s (1e6 bytes).
**
**   text_bench FILE FORMAT [RUNS=3]
*/
#include "format.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: text_bench FILE FORMAT [RUNS]\n");
    return 2;
  }
  int runs = argc > 3 ? atoi(argv[3]) : 3;
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) {
    perror(argv[1]);
    return 2;
  }
  struct stat sb;
  fstat(fd, &sb);
  size_t len = (size_t)sb.st_size;
  char *data = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  close(fd);
  double mb = len / 1e6, b0 = 1e30, b1 = 1e30;
  size_t rows = 0;
  for (int r = 0; r < runs; r++) {
    double t0 = now();
    size_t n = 0;
    const char *p = data, *e = data + len;
    while ((p = memchr(p, '\n', (size_t)(e - p)))) {
      n++;
      p++;
    }
    double t1 = now();
    if (t1 - t0 < b0) b0 = t1 - t0;
    pl_err err;
    t0 = now();
    pl_profile *pr = pl_load_buffer(argv[1], data, len, argv[2], NULL, &err);
    t1 = now();
    if (!pr) {
      char b[2048];
      pl_err_format(&err, b, sizeof b);
      fprintf(stderr, "%s\n", b);
      return 1;
    }
    rows = 0;
    for (size_t i = 0; i < pr->ntables; i++) rows += pr->tables[i]->nrows;
    pl_profile_free(pr);
    if (t1 - t0 < b1) b1 = t1 - t0;
    (void)n;
  }
  printf("%s (%s, %.1f MB, %zu rows in all tables): memchr %.0f MB/s, perflab %.1f MB/s (%.1f%% of memchr)\n", argv[1],
         argv[2], mb, rows, mb / b0, mb / b1, 100 * b0 / b1);
  return 0;
}

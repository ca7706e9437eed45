/*
** csv_bench.c -- CSV reading speed on one file, side by side in one run:
**   memchr line count (the machine's limit),
**   bare libcsv tokenising (csv_parse with empty callbacks, strict mode),
**   perflab's generic csv format (libcsv + line numbers + typed columns),
** each the best of N runs, in MB/s (1 MB = 1e6 bytes), plus peak RSS.
** pandas.read_csv is timed by bench/csv_pandas.py (run by `make bench`).
**
**   csv_bench FILE [RUNS=3]
*/
#include "format.h"

#include <csv.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static size_t nf, nr;
static void cb1(void *s, size_t n, void *d) {
  (void)s;
  (void)n;
  (void)d;
  nf++;
}
static void cb2(int c, void *d) {
  (void)c;
  (void)d;
  nr++;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: csv_bench FILE [RUNS]\n");
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 3;
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
  double mb = len / 1e6, best[3] = { 1e30, 1e30, 1e30 };
  size_t lines = 0, rows = 0;
  for (int r = 0; r < runs; r++) {
    double t0 = now();
    size_t n = 0;
    const char *p = data, *e = data + len;
    while ((p = memchr(p, '\n', (size_t)(e - p)))) {
      n++;
      p++;
    }
    double t1 = now();
    lines = n;
    if (t1 - t0 < best[0]) best[0] = t1 - t0;
    struct csv_parser cp;
    csv_init(&cp, CSV_STRICT | CSV_STRICT_FINI);
    nf = nr = 0;
    t0 = now();
    if (csv_parse(&cp, data, len, cb1, cb2, NULL) != len) {
      fprintf(stderr, "libcsv: %s\n", csv_strerror(csv_error(&cp)));
      return 1;
    }
    csv_fini(&cp, cb1, cb2, NULL);
    t1 = now();
    csv_free(&cp);
    if (t1 - t0 < best[1]) best[1] = t1 - t0;
    pl_err err;
    t0 = now();
    pl_profile *pr = pl_load_buffer(argv[1], data, len, "csv", NULL, &err);
    t1 = now();
    if (!pr) {
      char b[2048];
      pl_err_format(&err, b, sizeof b);
      fprintf(stderr, "%s\n", b);
      return 1;
    }
    rows = pl_profile_find(pr, "csv")->nrows;
    pl_profile_free(pr);
    if (t1 - t0 < best[2]) best[2] = t1 - t0;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("file %s: %.1f MB, %zu lines, %zu records (libcsv), %zu rows (perflab)\n", argv[1], mb, lines, nr, rows);
  printf("%-34s %9.1f MB/s\n", "memchr line count", mb / best[0]);
  printf("%-34s %9.1f MB/s\n", "libcsv bare tokenising", mb / best[1]);
  printf("%-34s %9.1f MB/s  (%.2fx libcsv's time, %.1f%% of memchr)\n", "perflab csv (typed table)", mb / best[2],
         best[2] / best[1], 100.0 * best[0] / best[2]);
  printf("peak RSS %.1f MB (file mapped: %.1f MB)\n", ru.ru_maxrss / 1024.0, mb);
  return 0;
}

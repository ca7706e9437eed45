/*
** load_bench.c -- one measurement of bench/run.sh, timed inside the process
** (no start-up), repeated RUNS times; prints one machine-readable line
**
**   RESULT median_wall_s min_wall_s peak_rss_kb rows bytes median_cpu_s
**
** (CPU time is the process's own, user + system: on a machine shared with
** other work it is the fair figure; wall time is given too)
** and a human line on stderr.  Modes:
**
**   load_bench memchr FILE [RUNS=3]           map the file, count newlines (the machine's limit)
**   load_bench libcsv FILE [RUNS=3]           map the file, bare libcsv tokenising (strict, empty callbacks)
**   load_bench load FILE FORMAT [RUNS=3] [TABLE...]
**                                             pl_load_file: perflab's full load (map, detect
**                                             nothing: FORMAT is given, parse, build every
**                                             table or only the TABLEs named), then free;
**                                             with LB_RAW_TEXT set in the environment,
**                                             as with the raw_text load option; LB_JOBS=N
**                                             reads on N threads (--jobs N)
**
** Each mode maps the file anew in every run (the page cache is warm after the
** first), exactly as pl_load_file does, so the three are comparable.  Peak
** RSS is getrusage's ru_maxrss: the mapped file's pages count (as they do
** for any reader of the file), the C process itself is about 2 MB.
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

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmpd);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}


static size_t nfields, nrecords;
static void cb1(void *s, size_t n, void *d) {
  (void)s;
  (void)n;
  (void)d;
  nfields++;
}
static void cb2(int c, void *d) {
  (void)c;
  (void)d;
  nrecords++;
}

static const char *map_file(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    perror(path);
    exit(2);
  }
  struct stat sb;
  fstat(fd, &sb);
  *len = (size_t)sb.st_size;
  void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  madvise(m, *len, MADV_SEQUENTIAL);
  return m;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr,
            "usage: load_bench memchr|libcsv FILE [RUNS]\n       load_bench load FILE FORMAT [RUNS] [TABLE...]\n");
    return 2;
  }
  const char *mode = argv[1], *file = argv[2], *fmt = NULL;
  int runs = 3, ai = 3;
  if (strcmp(mode, "load") == 0) {
    if (argc < 4) {
      fprintf(stderr, "load_bench load FILE FORMAT [RUNS] [TABLE...]\n");
      return 2;
    }
    fmt = argv[3];
    ai = 4;
  }
  if (argc > ai) runs = atoi(argv[ai++]);
  if (runs < 1) runs = 1;
  const char *tables[64];
  size_t nt = 0;
  while (ai < argc && nt < 63) tables[nt++] = argv[ai++];
  tables[nt] = NULL;
  double *t = calloc((size_t)runs, sizeof *t), *tc = calloc((size_t)runs, sizeof *tc);
  size_t rows = 0, bytes = 0;
  for (int r = 0; r < runs; r++) {
    double t0 = now(), c0 = cpu(), t1;
    if (strcmp(mode, "memchr") == 0) {
      size_t len;
      const char *p = map_file(file, &len), *base = p, *e = p + len;
      size_t n = 0;
      while ((p = memchr(p, '\n', (size_t)(e - p)))) {
        n++;
        p++;
      }
      munmap((void *)base, len);
      t1 = now();
      rows = n;
      bytes = len;
    } else if (strcmp(mode, "libcsv") == 0) {
      size_t len;
      const char *p = map_file(file, &len);
      struct csv_parser cp;
      csv_init(&cp, CSV_STRICT | CSV_STRICT_FINI);
      nfields = nrecords = 0;
      if (csv_parse(&cp, p, len, cb1, cb2, NULL) != len) {
        fprintf(stderr, "libcsv: %s\n", csv_strerror(csv_error(&cp)));
        return 1;
      }
      csv_fini(&cp, cb1, cb2, NULL);
      csv_free(&cp);
      munmap((void *)p, len);
      t1 = now();
      rows = nrecords;
      bytes = len;
    } else if (strcmp(mode, "load") == 0) {
      pl_parse_opts o;
      memset(&o, 0, sizeof o);
      if (nt) o.tables = tables;
      o.raw_text = getenv("LB_RAW_TEXT") != NULL;              /* ncu: numbers' texts kept too (--raw-text) */
      if (getenv("LB_JOBS")) o.jobs = atoi(getenv("LB_JOBS")); /* threads for one file (default: the cores) */
      pl_err err;
      pl_profile *pr = pl_load_file(file, fmt, &o, &err);
      if (!pr) {
        char b[2048];
        pl_err_format(&err, b, sizeof b);
        fprintf(stderr, "%s\n", b);
        return 1;
      }
      rows = 0;
      for (size_t i = 0; i < pr->ntables; i++) rows += pr->tables[i]->nrows;
      pl_profile_free(pr);
      t1 = now();
      struct stat sb;
      if (stat(file, &sb) == 0) bytes = (size_t)sb.st_size;
    } else {
      fprintf(stderr, "load_bench: unknown mode '%s'\n", mode);
      return 2;
    }
    tc[r] = cpu() - c0;
    t[r] = t1 - t0;
  }
  double best = t[0];
  for (int r = 1; r < runs; r++)
    if (t[r] < best) best = t[r];
  double med = median(t, runs), medc = median(tc, runs);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("RESULT %.6f %.6f %ld %zu %zu %.6f\n", med, best, ru.ru_maxrss, rows, bytes, medc);
  fprintf(stderr, "  %s %s%s%s: median %.3f s wall, %.3f s CPU (%.1f MB/s CPU), %zu rows, peak RSS %.1f MB\n", mode,
          file, fmt ? " as " : "", fmt ? fmt : "", med, medc, (double)bytes / 1e6 / medc, rows,
          (double)ru.ru_maxrss / 1024.0);
  free(t);
  free(tc);
  return 0;
}

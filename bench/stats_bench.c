/* stats_bench.c -- times perflab's statistics and interval union on the
** data sets the issue names, inside this process (no start-up counted):
**   describe and quantile(0.99) of 10^7 durations, welch_t and
**   mann_whitney_u on two 10^6 samples, union of 10^7 random intervals.
** Usage: stats_bench [DIR]  -- writes the data as raw little-endian files
** into DIR (default /tmp) so bench/stats_numpy.py times NumPy/SciPy on the
** same numbers.  Prints "name seconds" lines (best of 3). */
#include "stats.h"
#include "intervals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double normal(pl_rng *r) { /* Box-Muller */
  double u = pl_rng_double(r), v = pl_rng_double(r);
  return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

static void dump(const char *dir, const char *name, const void *p, size_t bytes) {
  char path[1024];
  snprintf(path, sizeof path, "%s/perflab_bench_%s.bin", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) {
    perror(path);
    exit(1);
  }
  fclose(f);
}

static volatile double sink;

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  enum { N = 10000000, M = 1000000 };
  pl_rng r;
  pl_rng_seed(&r, 12345);
  /* durations: lognormal, rounded to whole nanoseconds (ties as in real traces) */
  double *x = malloc(N * sizeof *x), *a = malloc(M * sizeof *a), *b = malloc(M * sizeof *b);
  for (size_t i = 0; i < N; i++) x[i] = round(exp(9 + 1.2 * normal(&r)));
  for (size_t i = 0; i < M; i++) a[i] = round(exp(9 + 1.2 * normal(&r)));
  for (size_t i = 0; i < M; i++) b[i] = round(exp(9.01 + 1.2 * normal(&r)));
  int64_t *s = malloc(N * sizeof *s), *e = malloc(N * sizeof *e);
  for (size_t i = 0; i < N; i++) {
    s[i] = (int64_t)pl_rng_below(&r, 1000000000000ull); /* 1000 s of timeline */
    e[i] = s[i] + (int64_t)round(exp(9 + 1.2 * normal(&r)));
  }
  dump(dir, "x", x, N * sizeof *x);
  dump(dir, "a", a, M * sizeof *a);
  dump(dir, "b", b, M * sizeof *b);
  dump(dir, "s", s, N * sizeof *s);
  dump(dir, "e", e, N * sizeof *e);

  double best[5] = { 1e9, 1e9, 1e9, 1e9, 1e9 };
  size_t nunion = 0;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now();
    pl_describe d;
    pl_stats_describe(x, N, &d);
    sink = d.p99;
    double t1 = now();
    sink = pl_stats_quantile(x, N, 0.99);
    double t2 = now();
    pl_ttest tt;
    pl_stats_welch_t(a, M, b, M, &tt);
    sink = tt.p;
    double t3 = now();
    pl_mwu mw;
    pl_stats_mann_whitney_u(a, M, b, M, PL_MWU_AUTO, &mw);
    sink = mw.p;
    double t4 = now();
    pl_ivset u;
    pl_iv_build(&u, s, e, N, 1, NULL);
    nunion = u.n;
    double t5 = now();
    pl_iv_free(&u);
    double t[5] = { t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4 };
    for (int i = 0; i < 5; i++)
      if (t[i] < best[i]) best[i] = t[i];
    if (rep == 0)
      fprintf(stderr, "check: p99 %.17g welch p %.17g mwu u %.17g p %.17g union n %zu\n", d.p99, tt.p, mw.u, mw.p,
              nunion);
  }
  const char *names[5] = { "describe_1e7", "quantile99_1e7", "welch_t_2x1e6", "mann_whitney_u_2x1e6", "union_1e7" };
  for (int i = 0; i < 5; i++) printf("%s %.6f\n", names[i], best[i]);
  free(x);
  free(a);
  free(b);
  free(s);
  free(e);
  return 0;
}

/* test_stats.c -- perflab's statistics against NumPy 1.24 / SciPy 1.10
** (expected values in tests/fixtures/stats/, written by
** tools/gen_stats_fixtures.py, whose header describes the format).  Tolerances (issue
** 5): statistics 1e-9 relative or 1e-12 absolute near 0; p-values 1e-6
** relative.  Plus hand-worked checks of selection and the PRNG contract. */
#include "tcheck.h"
#include "stats.h"
#include "quantile.h"

#include <stdint.h>

#define MAXV 24
typedef struct vec {
  char name[32];
  double *v;
  size_t n;
} vec;
typedef struct tcase {
  char name[128], func[48];
  vec in[MAXV];
  int nin;
  char ek[MAXV][32];
  double ev[MAXV];
  int ne;
  vec exv[MAXV];
  int nexv;
  const char *file;
} tcase;

static int ncases, nchecked;

static const vec *getv(const tcase *c, const char *name) {
  for (int i = 0; i < c->nin; i++)
    if (strcmp(c->in[i].name, name) == 0) return &c->in[i];
  fprintf(stderr, "%s: case %s lacks input %s\n", c->file, c->name, name);
  exit(2);
}

static int is_pkey(const char *k) {
  return strcmp(k, "p") == 0 || strcmp(k, "q") == 0 || strcmp(k, "sf") == 0 || strcmp(k, "cdf") == 0;
}

static void cmp1(const tcase *c, const char *key, double got, double want) {
  nchecked++;
  int ok;
  if (isnan(want)) ok = isnan(got);
  else if (isinf(want)) ok = got == want;
  else if (is_pkey(key)) ok = fabs(got - want) <= 1e-6 * fabs(want) || (want == 0 && got < 1e-300);
  else ok = fabs(got - want) <= 1e-9 * fabs(want) || fabs(got - want) <= 1e-12;
  if (ok) tc_pass++;
  else {
    tc_fail++;
    fprintf(stderr, "%s: %s %s: %s = %.17g, expected %.17g (rel %.3g)\n", c->file, c->func, c->name, key, got, want,
            fabs(got - want) / fabs(want));
  }
}

static double expect(const tcase *c, const char *key, int *found) {
  for (int i = 0; i < c->ne; i++)
    if (strcmp(c->ek[i], key) == 0) {
      *found = 1;
      return c->ev[i];
    }
  *found = 0;
  return NAN;
}
#define CHK(key, got)                                                                                                  \
  do {                                                                                                                 \
    int _f;                                                                                                            \
    double _w = expect(c, key, &_f);                                                                                   \
    if (_f) cmp1(c, key, got, _w);                                                                                     \
  } while (0)

static void chkv(const tcase *c, const char *key, const double *got, size_t n) {
  for (int i = 0; i < c->nexv; i++) {
    if (strcmp(c->exv[i].name, key) != 0) continue;
    if (c->exv[i].n != n) {
      tc_fail++;
      fprintf(stderr, "%s %s: length %zu vs %zu\n", c->func, c->name, n, c->exv[i].n);
      return;
    }
    for (size_t j = 0; j < n; j++) cmp1(c, key, got[j], c->exv[i].v[j]);
  }
}

static double stat_mean_cb(double *x, size_t n, void *ud) {
  (void)ud;
  return pl_stats_mean(x, n);
}

static void run_case(const tcase *c) {
  ncases++;
  const char *f = c->func;
  if (strcmp(f, "describe") == 0) {
    const vec *x = getv(c, "x");
    pl_describe d;
    pl_stats_describe(x->v, x->n, &d);
    CHK("n", (double)d.n);
    CHK("mean", d.mean);
    CHK("sum", d.sum);
    CHK("min", d.min);
    CHK("max", d.max);
    CHK("median", d.median);
    CHK("var", d.var);
    CHK("sd", d.sd);
    CHK("p25", d.p25);
    CHK("p75", d.p75);
    CHK("p90", d.p90);
    CHK("p95", d.p95);
    CHK("p99", d.p99);
    /* the single-value functions agree with describe's */
    CHK("mean", pl_stats_mean(x->v, x->n));
    CHK("sum", pl_stats_sum(x->v, x->n));
    CHK("var", pl_stats_var(x->v, x->n, 1));
    CHK("sd", pl_stats_sd(x->v, x->n, 1));
    CHK("median", pl_stats_median(x->v, x->n));
    CHK("min", pl_stats_min(x->v, x->n));
    CHK("max", pl_stats_max(x->v, x->n));
  } else if (strcmp(f, "geomean") == 0) {
    const vec *x = getv(c, "x");
    CHK("geomean", pl_stats_geomean(x->v, x->n));
  } else if (strcmp(f, "weighted_mean") == 0) {
    const vec *x = getv(c, "x"), *w = getv(c, "w");
    CHK("weighted_mean", pl_stats_weighted_mean(x->v, w->v, x->n));
  } else if (strcmp(f, "quantile") == 0) {
    const vec *x = getv(c, "x"), *q = getv(c, "q");
    double *out = malloc(q->n * sizeof *out), *one = malloc(q->n * sizeof *one);
    pl_stats_quantiles(x->v, x->n, q->v, q->n, out);
    for (size_t i = 0; i < q->n; i++) one[i] = pl_stats_quantile(x->v, x->n, q->v[i]);
    chkv(c, "quantile", out, q->n);
    chkv(c, "quantile", one, q->n);
    free(out);
    free(one);
  } else if (strcmp(f, "zscores") == 0) {
    const vec *x = getv(c, "x"), *dd = getv(c, "ddof");
    double *z = malloc(x->n * sizeof *z);
    pl_stats_zscores(x->v, x->n, (int)dd->v[0], z);
    chkv(c, "z", z, x->n);
    free(z);
  } else if (strcmp(f, "welch_t") == 0 || strcmp(f, "student_t") == 0) {
    const vec *a = getv(c, "a"), *b = getv(c, "b");
    pl_ttest r;
    if (f[0] == 'w') pl_stats_welch_t(a->v, a->n, b->v, b->n, &r);
    else pl_stats_student_t(a->v, a->n, b->v, b->n, &r);
    CHK("t", r.t);
    CHK("df", r.df);
    CHK("p", r.p);
  } else if (strcmp(f, "welch_t_from_stats") == 0) {
    const vec *v = getv(c, "s"); /* m1 s1 n1 m2 s2 n2 */
    pl_ttest r;
    pl_stats_welch_t_from_stats(v->v[0], v->v[1], v->v[2], v->v[3], v->v[4], v->v[5], &r);
    CHK("t", r.t);
    CHK("df", r.df);
    CHK("p", r.p);
  } else if (strcmp(f, "normal_ppf") == 0) {
    const vec *q = getv(c, "q");
    double *out = malloc(q->n * sizeof *out);
    for (size_t i = 0; i < q->n; i++) out[i] = pl_normal_ppf(q->v[i]);
    chkv(c, "ppf", out, q->n);
    for (size_t i = 0; i < q->n; i++) /* and back through the cdf */
      if (q->v[i] > 1e-300 && q->v[i] < 1 - 1e-9) TC_NEAR(pl_normal_cdf(out[i]), q->v[i], 4e-16 + 1e-14 * q->v[i]);
    free(out);
  } else if (strcmp(f, "mann_whitney_u") == 0) {
    const vec *a = getv(c, "a"), *b = getv(c, "b");
    pl_mwu r;
    pl_stats_mann_whitney_u(a->v, a->n, b->v, b->n, PL_MWU_AUTO, &r);
    CHK("u", r.u);
    CHK("p", r.p);
    CHK("exact", (double)r.exact);
    /* z has the sign of U_a - mean */
    double mu = (double)a->n * (double)b->n / 2;
    TC_CHECK((r.u > mu + 0.5 && r.z > 0) || (r.u < mu - 0.5 && r.z < 0) || (fabs(r.u - mu) <= 0.5 && r.z == 0));
  } else if (strcmp(f, "cliffs_delta") == 0) {
    const vec *a = getv(c, "a"), *b = getv(c, "b");
    CHK("cliffs_delta", pl_stats_cliffs_delta(a->v, a->n, b->v, b->n));
  } else if (strcmp(f, "hellinger") == 0) {
    const vec *a = getv(c, "a"), *b = getv(c, "b");
    CHK("hellinger", pl_stats_hellinger(a->v, a->n, b->v, b->n));
  } else if (strcmp(f, "bhattacharyya") == 0) {
    const vec *a = getv(c, "a"), *b = getv(c, "b");
    CHK("bhattacharyya", pl_stats_bhattacharyya(a->v, a->n, b->v, b->n));
  } else if (strcmp(f, "pearson") == 0 || strcmp(f, "spearman") == 0) {
    const vec *x = getv(c, "x"), *y = getv(c, "y");
    pl_corr r;
    if (f[0] == 'p') {
      pl_stats_pearson(x->v, y->v, x->n, &r);
      CHK("r", r.r);
    } else {
      pl_stats_spearman(x->v, y->v, x->n, &r);
      CHK("rho", r.r);
    }
    CHK("p", r.p);
  } else if (strcmp(f, "normal_cdf") == 0) {
    double x = getv(c, "x")->v[0];
    CHK("cdf", pl_normal_cdf(x));
    CHK("sf", pl_normal_sf(x));
  } else if (strcmp(f, "t_dist") == 0) {
    double t = getv(c, "t")->v[0], df = getv(c, "df")->v[0];
    CHK("sf", pl_t_sf(t, df));
    CHK("cdf", pl_t_cdf(t, df));
  } else if (strcmp(f, "betainc") == 0) {
    double a = getv(c, "a")->v[0], b = getv(c, "b")->v[0], x = getv(c, "x")->v[0];
    CHK("p", pl_betainc(a, b, x));
    CHK("q", pl_betaincc(a, b, x));
  } else if (strcmp(f, "histogram") == 0) {
    const vec *x = getv(c, "x");
    size_t nb = (size_t)getv(c, "bins")->v[0];
    double *e = malloc((nb + 1) * sizeof *e), *cnt = malloc(nb * sizeof *cnt);
    pl_stats_histogram(x->v, x->n, nb, e, cnt);
    chkv(c, "edges", e, nb + 1);
    chkv(c, "counts", cnt, nb);
    free(e);
    free(cnt);
  } else if (strcmp(f, "histogram_edges") == 0) {
    const vec *x = getv(c, "x"), *e = getv(c, "edges");
    double *cnt = malloc(e->n * sizeof *cnt);
    TC_EQ_INT(pl_stats_histogram_edges(x->v, x->n, e->v, e->n, cnt), 0);
    chkv(c, "counts", cnt, e->n - 1);
    free(cnt);
  } else if (strcmp(f, "rng") == 0) {
    pl_rng r;
    pl_rng_seed(&r, (uint64_t)getv(c, "seed")->v[0]);
    double v[8];
    for (int i = 0; i < 8; i++) v[i] = (double)(pl_rng_next(&r) >> 32);
    chkv(c, "u32hi", v, 8);
  } else if (strncmp(f, "bootstrap_", 10) == 0) {
    const vec *x = getv(c, "x");
    size_t nb = (size_t)getv(c, "nboot")->v[0];
    uint64_t seed = (uint64_t)getv(c, "seed")->v[0];
    double alpha = getv(c, "alpha")->v[0], lo, hi;
    pl_stat_fn fn = strcmp(f + 10, "mean") == 0 ? pl_stat_fn_mean : pl_stat_fn_median;
    TC_EQ_INT(pl_stats_bootstrap_ci(x->v, x->n, fn, NULL, nb, alpha, seed, &lo, &hi), 0);
    CHK("lo", lo);
    CHK("hi", hi);
    if (fn == pl_stat_fn_mean) { /* a user callback gives the same */
      double lo2, hi2;
      pl_stats_bootstrap_ci(x->v, x->n, stat_mean_cb, NULL, nb, alpha, seed, &lo2, &hi2);
      TC_CHECK(lo2 == lo && hi2 == hi);
    }
  } else {
    fprintf(stderr, "%s: unknown func %s\n", c->file, f);
    tc_fail++;
  }
}

static size_t parse_nums(char *s, double **out) {
  size_t cap = 16, n = 0;
  double *v = malloc(cap * sizeof *v);
  char *end;
  for (;;) {
    while (*s == ' ') s++;
    if (!*s) break;
    double d = strtod(s, &end);
    if (end == s) {
      fprintf(stderr, "bad number near '%.20s'\n", s);
      exit(2);
    }
    if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    v[n++] = d;
    s = end;
  }
  *out = v;
  return n;
}

static void free_case(tcase *c) {
  for (int i = 0; i < c->nin; i++) free(c->in[i].v);
  for (int i = 0; i < c->nexv; i++) free(c->exv[i].v);
  memset(c, 0, sizeof *c);
}

static void run_file(const char *path) {
  size_t len;
  char *buf = tc_slurp(path, &len);
  if (!buf) {
    fprintf(stderr, "missing fixture %s (run tools/gen_stats_fixtures.py)\n", path);
    tc_fail++;
    return;
  }
  tcase c;
  memset(&c, 0, sizeof c);
  for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#') continue;
    if (strncmp(line, "case ", 5) == 0) {
      sscanf(line + 5, "%127s %47s", c.name, c.func);
      c.file = path;
    } else if (strcmp(line, "end") == 0) {
      run_case(&c);
      free_case(&c);
    } else if (strncmp(line, "expectv ", 8) == 0) {
      char *k = line + 8, *sp = strchr(k, ' ');
      *sp = 0;
      if (c.nexv == MAXV) {
        fprintf(stderr, "too many expectv\n");
        exit(2);
      }
      vec *v = &c.exv[c.nexv++];
      snprintf(v->name, sizeof v->name, "%s", k);
      v->n = parse_nums(sp + 1, &v->v);
    } else if (strncmp(line, "expect ", 7) == 0) {
      char *s = line + 7, *end;
      while (*s) {
        if (c.ne == MAXV) {
          fprintf(stderr, "too many expect keys\n");
          exit(2);
        }
        while (*s == ' ') s++;
        if (!*s) break;
        char *sp = strchr(s, ' ');
        *sp = 0;
        snprintf(c.ek[c.ne], sizeof c.ek[0], "%s", s);
        c.ev[c.ne++] = strtod(sp + 1, &end);
        s = end;
      }
    } else {
      char *sp = strchr(line, ' ');
      *sp = 0;
      if (c.nin == MAXV) {
        fprintf(stderr, "too many inputs\n");
        exit(2);
      }
      vec *v = &c.in[c.nin++];
      snprintf(v->name, sizeof v->name, "%s", line);
      v->n = parse_nums(sp + 1, &v->v);
    }
  }
  free(buf);
}

/* ---------------------------------------------------------------- by hand */
static void hand_checks(void) {
  /* type 7 on 1..5: q=0.3 -> h = 1.2 -> 2 + 0.2 = 2.2; q=0.9 -> h = 3.6 ->
  ** t >= 0.5 branch 5 - 1*0.4 = 4.6 */
  double x[5] = { 5, 3, 1, 4, 2 };
  TC_NEAR(pl_stats_quantile(x, 5, 0.3), 2.2, 1e-15);
  TC_NEAR(pl_stats_quantile(x, 5, 0.9), 4.6, 1e-15);
  TC_CHECK(isnan(pl_stats_quantile(x, 5, 1.5)));
  /* multi-selection leaves every requested order statistic in place */
  enum { N = 100003 };
  double *y = malloc(N * sizeof *y), *s = malloc(N * sizeof *s);
  pl_rng r;
  pl_rng_seed(&r, 99);
  for (size_t i = 0; i < N; i++) y[i] = s[i] = (double)pl_rng_below(&r, 1000); /* many ties */
  pl_sort_doubles(s, N);
  size_t ks[6] = { 0, 17, 50001, 50002, 99000, N - 1 };
  pl_select_multi(y, N, ks, 6);
  for (int i = 0; i < 6; i++) TC_CHECK(y[ks[i]] == s[ks[i]]);
  /* radix sort agrees with qsort, negative zero and signs included */
  for (size_t i = 0; i < N; i++) y[i] = s[i] = (pl_rng_double(&r) - 0.5) * pow(10, (double)pl_rng_below(&r, 40) - 20);
  y[5] = s[5] = -0.0;
  y[6] = s[6] = 0.0;
  y[7] = s[7] = -INFINITY;
  y[8] = s[8] = INFINITY;
  pl_sort_doubles(s, N);
  pl_radix_sort_doubles(y, N);
  int same = 1;
  for (size_t i = 0; i < N; i++)
    if (y[i] != s[i]) same = 0;
  TC_CHECK(same);
  free(y);
  free(s);
  /* rng_below stays in range and hits every value of a small range */
  int seen[7] = { 0 };
  for (int i = 0; i < 1000; i++) {
    uint64_t v = pl_rng_below(&r, 7);
    TC_CHECK(v < 7);
    seen[v]++;
  }
  for (int i = 0; i < 7; i++) TC_CHECK(seen[i] > 100);
  /* t tails: with 1 df, sf(t) = atan(1/t)/pi ~ 1/(pi t) for large t */
  TC_NEAR(pl_t_sf(1e100, 1) / (1 / (M_PI * 1e100)), 1.0, 1e-9);
  TC_NEAR(pl_t_sf(1e300, 1) / (1 / (M_PI * 1e300)), 1.0, 1e-9);
  /* exact MWU, hand count: a = {1,2}, b = {3,4,5}: U_a = 0, C(5,2) = 10
  ** arrangements, P(U <= 0) = 1/10 -> two-sided p = 0.2 */
  double a2[2] = { 1, 2 }, b3[3] = { 3, 4, 5 };
  pl_mwu m;
  pl_stats_mann_whitney_u(a2, 2, b3, 3, PL_MWU_AUTO, &m);
  TC_NEAR(m.u, 0, 0);
  TC_NEAR(m.p, 0.2, 1e-15);
  TC_EQ_INT(m.exact, 1);
  /* cliffs: a = {1,5}, b = {2,3}: pairs > : (5,2),(5,3); < : (1,2),(1,3) -> 0 */
  double ca[2] = { 1, 5 }, cb[2] = { 2, 3 };
  TC_NEAR(pl_stats_cliffs_delta(ca, 2, cb, 2), 0.0, 0);
  /* same normals: hellinger 0, bhattacharyya 0 */
  double h1[4] = { 1, 2, 3, 4 };
  TC_NEAR(pl_stats_hellinger(h1, 4, h1, 4), 0.0, 1e-15);
  TC_NEAR(pl_stats_bhattacharyya(h1, 4, h1, 4), 0.0, 1e-15);
}

int main(void) {
  const char *files[] = { "descriptive.txt", "tests.txt",     "corr.txt",      "dist.txt",
                          "histogram.txt",   "bootstrap.txt", "from_stats.txt" };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/stats/%s", files[i]);
    run_file(path);
  }
  printf("%d fixture cases, %d values compared\n", ncases, nchecked);
  TC_CHECK(ncases > 300);
  hand_checks();
  return tc_done();
}

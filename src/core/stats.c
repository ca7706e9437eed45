/*
** stats.c -- see stats.h.  Reference implementations the numbers are
** checked against: NumPy 1.24 and SciPy 1.10 (tests/fixtures/stats/).
*/
#include "stats.h"
#include "quantile.h"
#include "pl_util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
** sorting
** ==================================================================== */

#define RADIX_BITS   11
#define RADIX_SIZE   (1u << RADIX_BITS)
#define RADIX_PASSES 6 /* 6 * 11 >= 64 */

/* Ascending LSD radix sort of unsigned 64-bit keys; skips passes where every
** key has the same digit (common for the high bits of durations). */
static void radix_u64(uint64_t *k, size_t n) {
  if (n < 2) return;
  if (n < 64) {
    for (size_t i = 1; i < n; i++) {
      uint64_t v = k[i];
      size_t j = i;
      while (j > 0 && k[j - 1] > v) {
        k[j] = k[j - 1];
        j--;
      }
      k[j] = v;
    }
    return;
  }
  size_t(*cnt)[RADIX_SIZE] = pl_xcalloc(RADIX_PASSES, sizeof *cnt);
  for (size_t i = 0; i < n; i++) {
    uint64_t v = k[i];
    for (int p = 0; p < RADIX_PASSES; p++) cnt[p][(v >> (p * RADIX_BITS)) & (RADIX_SIZE - 1)]++;
  }
  uint64_t *tmp = pl_xmalloc(n * sizeof *tmp);
  uint64_t *src = k, *dst = tmp;
  for (int p = 0; p < RADIX_PASSES; p++) {
    size_t *c = cnt[p];
    unsigned shift = (unsigned)(p * RADIX_BITS);
    if (c[(src[0] >> shift) & (RADIX_SIZE - 1)] == n) continue; /* trivial pass */
    size_t sum = 0;
    for (size_t d = 0; d < RADIX_SIZE; d++) {
      size_t t = c[d];
      c[d] = sum;
      sum += t;
    }
    for (size_t i = 0; i < n; i++) {
      uint64_t v = src[i];
      dst[c[(v >> shift) & (RADIX_SIZE - 1)]++] = v;
    }
    uint64_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != k) memcpy(k, src, n * sizeof *k);
  free(tmp);
  free(cnt);
}

static inline uint64_t dkey(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}
static inline double dunkey(uint64_t u) {
  u = (u >> 63) ? (u & 0x7fffffffffffffffull) : ~u;
  double d;
  memcpy(&d, &u, 8);
  return d;
}

void pl_radix_sort_doubles(double *x, size_t n) {
  uint64_t *k = (uint64_t *)(void *)x; /* same size, in place */
  for (size_t i = 0; i < n; i++) k[i] = dkey(x[i]);
  radix_u64(k, n);
  for (size_t i = 0; i < n; i++) x[i] = dunkey(k[i]);
}

void pl_radix_sort_i64(int64_t *x, size_t n) {
  uint64_t *k = (uint64_t *)(void *)x;
  for (size_t i = 0; i < n; i++) k[i] ^= 0x8000000000000000ull;
  radix_u64(k, n);
  for (size_t i = 0; i < n; i++) k[i] ^= 0x8000000000000000ull;
}

/* ======================================================================
** descriptive
** ==================================================================== */

/* Four independent TwoSum lanes: exact error terms, no branches, and enough
** instruction-level parallelism to run near memory speed. */
static double csum(const double *x, size_t n, double shift) {
  double s[4] = { 0, 0, 0, 0 }, c[4] = { 0, 0, 0, 0 };
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int l = 0; l < 4; l++) {
      double v = x[i + l] - shift;
      double t = s[l] + v;
      double bp = t - s[l];
      c[l] += (s[l] - (t - bp)) + (v - bp);
      s[l] = t;
    }
  }
  for (; i < n; i++) {
    double v = x[i] - shift;
    double t = s[0] + v, bp = t - s[0];
    c[0] += (s[0] - (t - bp)) + (v - bp);
    s[0] = t;
  }
  /* combine the lanes, again compensated */
  double tot = 0, err = 0;
  for (int l = 0; l < 4; l++) {
    double parts[2] = { s[l], c[l] };
    for (int q = 0; q < 2; q++) {
      double t = tot + parts[q], bp = t - tot;
      err += (tot - (t - bp)) + (parts[q] - bp);
      tot = t;
    }
  }
  return tot + err;
}

double pl_stats_sum(const double *x, size_t n) { return csum(x, n, 0.0); }

double pl_stats_mean(const double *x, size_t n) {
  if (n == 0) return NAN;
  double m = csum(x, n, 0.0) / (double)n;
  if (isfinite(m)) return m;
  /* overflow of the sum for huge magnitudes: scale down */
  double s = 0;
  for (size_t i = 0; i < n; i++) s += x[i] / (double)n;
  return s;
}

/* sum of squared deviations from m, compensated, plus the two-pass
** correction term -(sum d)^2 / n. */
static double ssd(const double *x, size_t n, double m) {
  double s[4] = { 0, 0, 0, 0 }, c[4] = { 0, 0, 0, 0 }, d1 = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int l = 0; l < 4; l++) {
      double d = x[i + l] - m;
      d1 += d;
      double v = d * d;
      double t = s[l] + v, bp = t - s[l];
      c[l] += (s[l] - (t - bp)) + (v - bp);
      s[l] = t;
    }
  }
  for (; i < n; i++) {
    double d = x[i] - m;
    d1 += d;
    double v = d * d, t = s[0] + v, bp = t - s[0];
    c[0] += (s[0] - (t - bp)) + (v - bp);
    s[0] = t;
  }
  double tot = (s[0] + s[1]) + (s[2] + s[3]) + ((c[0] + c[1]) + (c[2] + c[3]));
  tot -= d1 * d1 / (double)n;
  return tot < 0 ? 0 : tot;
}

double pl_stats_var(const double *x, size_t n, int ddof) {
  if (ddof < 0 || n <= (size_t)ddof) return NAN;
  double m = pl_stats_mean(x, n);
  double q = ssd(x, n, m);
  if (!isfinite(q)) { /* huge magnitudes: scale */
    double sc = 0;
    for (size_t i = 0; i < n; i++)
      if (fabs(x[i]) > sc) sc = fabs(x[i]);
    double acc = 0, ms = m / sc;
    for (size_t i = 0; i < n; i++) {
      double d = x[i] / sc - ms;
      acc += d * d;
    }
    return acc / (double)(n - (size_t)ddof) * sc * sc;
  }
  return q / (double)(n - (size_t)ddof);
}

double pl_stats_sd(const double *x, size_t n, int ddof) {
  double v = pl_stats_var(x, n, ddof);
  if (v != INFINITY) return sqrt(v);
  /* the variance overflows (|x| ~ 1e300) but the sd need not: scale */
  double m = pl_stats_mean(x, n), sc = 0;
  for (size_t i = 0; i < n; i++)
    if (fabs(x[i]) > sc) sc = fabs(x[i]);
  double acc = 0, ms = m / sc;
  for (size_t i = 0; i < n; i++) {
    double d = x[i] / sc - ms;
    acc += d * d;
  }
  return sqrt(acc / (double)(n - (size_t)ddof)) * sc;
}

double pl_stats_min(const double *x, size_t n) {
  if (n == 0) return NAN;
  double m = x[0];
  for (size_t i = 1; i < n; i++) m = x[i] < m ? x[i] : m;
  return m;
}

double pl_stats_max(const double *x, size_t n) {
  if (n == 0) return NAN;
  double m = x[0];
  for (size_t i = 1; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}

double pl_stats_geomean(const double *x, size_t n) {
  if (n == 0) return NAN;
  double *l = pl_xmalloc(n * sizeof *l);
  for (size_t i = 0; i < n; i++) {
    if (!(x[i] > 0)) {
      free(l);
      return NAN;
    }
    l[i] = log(x[i]);
  }
  double r = exp(pl_stats_mean(l, n));
  free(l);
  return r;
}

double pl_stats_weighted_mean(const double *x, const double *w, size_t n) {
  if (n == 0) return NAN;
  double *p = pl_xmalloc(n * sizeof *p);
  for (size_t i = 0; i < n; i++) p[i] = x[i] * w[i];
  double num = csum(p, n, 0.0), den = csum(w, n, 0.0);
  free(p);
  if (den == 0) return NAN;
  return num / den;
}

double pl_stats_median_inplace(double *x, size_t n) {
  if (n == 0) return NAN;
  size_t k[2] = { (n - 1) / 2, n / 2 };
  pl_select_multi(x, n, k, k[0] == k[1] ? 1 : 2);
  if (k[0] == k[1]) return x[k[0]];
  double a = x[k[0]], b = x[k[1]];
  double m = (a + b) / 2; /* np.mean of the two */
  return isfinite(m) ? m : a / 2 + b / 2;
}

double pl_stats_median(const double *x, size_t n) {
  if (n == 0) return NAN;
  double *c = pl_xmalloc(n * sizeof *c);
  memcpy(c, x, n * sizeof *c);
  double m = pl_stats_median_inplace(c, n);
  free(c);
  return m;
}

double pl_stats_quantile(const double *x, size_t n, double q) {
  if (n == 0 || !(q >= 0 && q <= 1)) return NAN;
  double *c = pl_xmalloc(n * sizeof *c);
  memcpy(c, x, n * sizeof *c);
  double r = pl_quantile_select(c, n, q);
  free(c);
  return r;
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* Quantiles of a scratch array c (reordered): one multi-selection. */
static void quantiles_inplace(double *c, size_t n, const double *q, size_t nq, double *out) {
  size_t *ks = pl_xmalloc((2 * nq + 1) * sizeof *ks), nk = 0;
  for (size_t i = 0; i < nq; i++) {
    if (!(q[i] >= 0 && q[i] <= 1)) continue;
    double h = (double)(n - 1) * q[i];
    size_t k = (size_t)floor(h);
    if (k >= n - 1) {
      ks[nk++] = n - 1;
      continue;
    }
    ks[nk++] = k;
    ks[nk++] = k + 1;
  }
  qsort(ks, nk, sizeof *ks, cmp_size);
  size_t u = 0;
  for (size_t i = 0; i < nk; i++)
    if (u == 0 || ks[i] != ks[u - 1]) ks[u++] = ks[i];
  pl_select_multi(c, n, ks, u);
  free(ks);
  for (size_t i = 0; i < nq; i++) {
    if (!(q[i] >= 0 && q[i] <= 1)) {
      out[i] = NAN;
      continue;
    }
    double h = (double)(n - 1) * q[i];
    size_t k = (size_t)floor(h);
    if (k >= n - 1) out[i] = c[n - 1];
    else out[i] = pl_lerp7(c[k], c[k + 1], h - (double)k);
  }
}

void pl_stats_quantiles(const double *x, size_t n, const double *q, size_t nq, double *out) {
  if (n == 0) {
    for (size_t i = 0; i < nq; i++) out[i] = NAN;
    return;
  }
  double *c = pl_xmalloc(n * sizeof *c);
  memcpy(c, x, n * sizeof *c);
  quantiles_inplace(c, n, q, nq, out);
  free(c);
}

void pl_stats_zscores(const double *x, size_t n, int ddof, double *out) {
  double m = pl_stats_mean(x, n), s = pl_stats_sd(x, n, ddof);
  for (size_t i = 0; i < n; i++) out[i] = (x[i] - m) / s;
}

void pl_stats_describe(const double *x, size_t n, pl_describe *d) {
  memset(d, 0, sizeof *d);
  d->n = n;
  if (n == 0) {
    d->mean = d->sd = d->var = d->min = d->max = d->median = NAN;
    d->p25 = d->p75 = d->p90 = d->p95 = d->p99 = d->sum = NAN;
    return;
  }
  d->sum = pl_stats_sum(x, n);
  d->mean = pl_stats_mean(x, n);
  d->var = pl_stats_var(x, n, 1);
  d->sd = d->var == INFINITY ? pl_stats_sd(x, n, 1) : sqrt(d->var);
  double *c = pl_xmalloc(n * sizeof *c);
  double mn = x[0], mx = x[0];
  for (size_t i = 0; i < n; i++) {
    double v = x[i];
    c[i] = v;
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  d->min = mn;
  d->max = mx;
  /* all order statistics in one multi-selection; the median as np.median */
  static const double qs[5] = { 0.25, 0.75, 0.90, 0.95, 0.99 };
  double out[5];
  size_t *ks = pl_xmalloc(12 * sizeof *ks), nk = 0;
  ks[nk++] = (n - 1) / 2;
  ks[nk++] = n / 2;
  for (int i = 0; i < 5; i++) {
    size_t k = (size_t)floor((double)(n - 1) * qs[i]);
    ks[nk++] = k < n - 1 ? k : n - 1;
    ks[nk++] = k + 1 < n - 1 ? k + 1 : n - 1;
  }
  qsort(ks, nk, sizeof *ks, cmp_size);
  size_t u = 0;
  for (size_t i = 0; i < nk; i++)
    if (u == 0 || ks[i] != ks[u - 1]) ks[u++] = ks[i];
  pl_select_multi(c, n, ks, u);
  free(ks);
  for (int i = 0; i < 5; i++) {
    double h = (double)(n - 1) * qs[i];
    size_t k = (size_t)floor(h);
    out[i] = k >= n - 1 ? c[n - 1] : pl_lerp7(c[k], c[k + 1], h - (double)k);
  }
  if ((n & 1) == 1) d->median = c[n / 2];
  else {
    double a = c[n / 2 - 1], b = c[n / 2], m = (a + b) / 2;
    d->median = isfinite(m) ? m : a / 2 + b / 2;
  }
  d->p25 = out[0];
  d->p75 = out[1];
  d->p90 = out[2];
  d->p95 = out[3];
  d->p99 = out[4];
  free(c);
}

/* ======================================================================
** special functions
** ==================================================================== */

double pl_normal_cdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
double pl_normal_sf(double x) { return 0.5 * erfc(x * M_SQRT1_2); }

/* Lower tail, 0 < p <= 0.5: Acklam's rational approximation (relative
** error 1.2e-9), then one Halley step on cdf(x) - p, computed with erfc
** (no cancellation in the lower tail), which brings it to rounding. */
static double ppf_lower(double p) {
  static const double a[6] = { -3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                               1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00 };
  static const double b[5] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01 };
  static const double c[6] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00 };
  static const double d[4] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00 };
  double x;
  if (p < 0.02425) {
    double q = sqrt(-2 * log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  for (int k = 0; k < 2; k++) { /* Halley; the second step is a check */
    double e = 0.5 * erfc(-x * M_SQRT1_2) - p;
    double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    x = x - u / (1 + x * u / 2);
  }
  return x;
}

double pl_normal_ppf(double p) {
  if (isnan(p) || p < 0 || p > 1) return NAN;
  if (p == 0) return -INFINITY;
  if (p == 1) return INFINITY;
  if (p <= 0.5) return ppf_lower(p);
  return -ppf_lower(1 - p); /* 1 - p is exact for p >= 0.5 */
}

/* Stirling remainder lgamma(x) - ((x-0.5) log x - x + log(2 pi)/2), x >= 10. */
static double stirling_corr(double x) {
  double r = 1.0 / x, r2 = r * r;
  return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680))));
}

/* log B(a, b), avoiding the cancellation of lgamma differences when a
** and/or b are large (large degrees of freedom). */
static double lbeta(double a, double b) {
  if (a < b) {
    double t = a;
    a = b;
    b = t;
  } /* a >= b */
  if (a < 10) return lgamma(a) + lgamma(b) - lgamma(a + b);
  if (b < 10) {
    /* lgamma(a+b) - lgamma(a) = (a-0.5) log1p(b/a) + b log(a+b) - b + corr */
    double d = (a - 0.5) * log1p(b / a) + b * log(a + b) - b + stirling_corr(a + b) - stirling_corr(a);
    return lgamma(b) - d;
  }
  double s = a + b;
  return 0.5 * log(2 * M_PI) - 0.5 * log(s) + (a - 0.5) * log(a / s) + (b - 0.5) * log(b / s) + stirling_corr(a) +
         stirling_corr(b) - stirling_corr(s);
}

/* Continued fraction for I_x(a,b) (DLMF 8.17.22), modified Lentz; x is
** given with y = 1 - x computed by the caller without cancellation, and
** log x, log y likewise.  Converges fast for x < (a+1)/(a+b+2). */
static double ibeta_cf(double a, double b, double x, double lx, double ly) {
  const double tiny = 1e-300;
  double lfront = a * lx + b * ly - lbeta(a, b) - log(a);
  double f = 1.0, c = 1.0, d = 0.0;
  for (int i = 0; i <= 200000; i++) {
    int m = i / 2;
    double num;
    if (i == 0) num = 1.0;
    else if (i % 2 == 0) num = (m * (b - m) * x) / ((a + 2.0 * m - 1) * (a + 2.0 * m));
    else num = -((a + m) * (a + b + m) * x) / ((a + 2.0 * m) * (a + 2.0 * m + 1));
    d = 1.0 + num * d;
    if (fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    c = 1.0 + num / c;
    if (fabs(c) < tiny) c = tiny;
    double cd = c * d;
    f *= cd;
    if (fabs(1.0 - cd) < 1e-16) break;
  }
  /* f = 1 + CF terms; I = front * (f - 1) with the leading 1 removed */
  return exp(lfront) * (f - 1.0);
}

/* I_x(a,b) and its complement from (x, y = 1 - x, log x, log y). */
static double ibeta_xy(double a, double b, double x, double y, double lx, double ly, int upper) {
  if (x <= 0) return upper ? 1.0 : 0.0;
  if (y <= 0) return upper ? 0.0 : 1.0;
  if (x < (a + 1) / (a + b + 2)) {
    double v = ibeta_cf(a, b, x, lx, ly);
    return upper ? 1.0 - v : v;
  }
  double v = ibeta_cf(b, a, y, ly, lx); /* = 1 - I_x(a,b) */
  return upper ? v : 1.0 - v;
}

double pl_betainc(double a, double b, double x) {
  if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1)) return NAN;
  return ibeta_xy(a, b, x, 1.0 - x, log(x), log1p(-x), 0);
}

double pl_betaincc(double a, double b, double x) {
  if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1)) return NAN;
  return ibeta_xy(a, b, x, 1.0 - x, log(x), log1p(-x), 1);
}

double pl_t_sf(double t, double df) {
  if (isnan(t) || !(df > 0)) return NAN;
  if (t == INFINITY) return 0.0;
  if (t == -INFINITY) return 1.0;
  if (t < 0) return 1.0 - pl_t_sf(-t, df); /* >= 0.5: no cancellation issue */
  if (t == 0) return 0.5;
  if (isinf(df)) return pl_normal_sf(t);
  /* P(T > t) = I_x(df/2, 1/2) / 2 with x = df / (df + t^2) */
  double t2 = t * t, x, y, lx, ly;
  if (isfinite(t2) && isfinite(df + t2)) {
    double s = df + t2;
    x = df / s;
    y = t2 / s;
    lx = log(df) - log(s);
    ly = log(t2) - log(s);
    if (t2 < df) ly = log(y);
    else lx = log(x);
    if (x == 0) lx = log(df) - 2 * log(t);
  } else { /* t^2 overflows: x ~ df / t^2 */
    x = 0;
    y = 1;
    lx = log(df) - 2 * log(t);
    ly = 0;
    double a = df / 2;
    return 0.5 * exp(a * lx - lbeta(a, 0.5) - log(a));
  }
  if (x == 0) { /* x underflowed; use logs */
    double a = df / 2;
    return 0.5 * exp(a * lx - lbeta(a, 0.5) - log(a));
  }
  return 0.5 * ibeta_xy(df / 2, 0.5, x, y, lx, ly, 0);
}

double pl_t_cdf(double t, double df) {
  if (isnan(t) || !(df > 0)) return NAN;
  return pl_t_sf(-t, df);
}

/* ======================================================================
** t tests
** ==================================================================== */

static void ttest_finish(double d, double denom, double df, pl_ttest *r) {
  r->df = df;
  r->t = d / denom;
  if (isnan(r->t) || isnan(df)) {
    r->p = NAN;
    return;
  }
  r->p = 2.0 * pl_t_sf(fabs(r->t), df); /* = 2 stdtr(df, -|t|) */
  if (r->p > 1) r->p = 1;
}

void pl_stats_welch_t(const double *a, size_t na, const double *b, size_t nb, pl_ttest *r) {
  double m1 = pl_stats_mean(a, na), m2 = pl_stats_mean(b, nb);
  double v1 = pl_stats_var(a, na, 1), v2 = pl_stats_var(b, nb, 1);
  double n1 = (double)na, n2 = (double)nb;
  double vn1 = v1 / n1, vn2 = v2 / n2;
  double df = (vn1 + vn2) * (vn1 + vn2) / (vn1 * vn1 / (n1 - 1) + vn2 * vn2 / (n2 - 1));
  if (isnan(df)) df = 1; /* as SciPy: 0/0 -> 1 */
  ttest_finish(m1 - m2, sqrt(vn1 + vn2), df, r);
}

void pl_stats_welch_t_from_stats(double m1, double s1, double n1, double m2, double s2, double n2, pl_ttest *r) {
  double vn1 = s1 * s1 / n1, vn2 = s2 * s2 / n2;
  double df = (vn1 + vn2) * (vn1 + vn2) / (vn1 * vn1 / (n1 - 1) + vn2 * vn2 / (n2 - 1));
  if (isnan(df)) df = 1; /* as SciPy: 0/0 -> 1 */
  ttest_finish(m1 - m2, sqrt(vn1 + vn2), df, r);
}

void pl_stats_student_t(const double *a, size_t na, const double *b, size_t nb, pl_ttest *r) {
  double m1 = pl_stats_mean(a, na), m2 = pl_stats_mean(b, nb);
  double n1 = (double)na, n2 = (double)nb;
  double df = n1 + n2 - 2;
  double v1 = na > 1 ? pl_stats_var(a, na, 1) : 0, v2 = nb > 1 ? pl_stats_var(b, nb, 1) : 0;
  if (na < 2) v1 = NAN;
  if (nb < 2) v2 = NAN;
  /* SciPy: v = var(ddof=1) which is NaN for n = 1, and svar uses (n-1) v */
  double svar = ((n1 - 1) * v1 + (n2 - 1) * v2) / df;
  ttest_finish(m1 - m2, sqrt(svar * (1.0 / n1 + 1.0 / n2)), df, r);
}

/* ======================================================================
** rank tests
** ==================================================================== */

/* Exact two-sided p of SciPy's MWU: 2 * P(U <= m n - u) under H0, where
** the count of arrangements with U = k is the coefficient of q^k in the
** Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i)
** (m the smaller size), truncated at kmax. */
static double mwu_exact_p(size_t m, size_t n, double u) {
  if (m > n) {
    size_t t = m;
    m = n;
    n = t;
  }
  double kd = (double)m * (double)n - u;
  if (kd < 0) kd = 0;
  size_t kmax = (size_t)kd;
  long double *c = pl_xcalloc(kmax + 1, sizeof *c);
  c[0] = 1;
  for (size_t i = 1; i <= m; i++) {
    for (size_t k = i; k <= kmax; k++) c[k] += c[k - i]; /* / (1 - q^i) */
    size_t s = n + i;
    if (s <= kmax)
      for (size_t k = kmax; k >= s; k--) c[k] -= c[k - s]; /* * (1 - q^(n+i)) */
  }
  long double cum = 0;
  for (size_t k = 0; k <= kmax; k++) cum += c[k];
  free(c);
  long double binom = 1; /* C(m+n, m) */
  for (size_t i = 1; i <= m; i++) binom = binom * (long double)(n + i) / (long double)i;
  double p = (double)(2 * cum / binom);
  return p > 1 ? 1 : p;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n) {
  double *c = pl_xmalloc((n ? n : 1) * sizeof *c);
  memcpy(c, x, n * sizeof *c);
  if (n < 256) qsort(c, n, sizeof *c, cmp_double);
  else pl_radix_sort_doubles(c, n);
  return c;
}

int pl_stats_mann_whitney_u(const double *a, size_t na, const double *b, size_t nb, pl_mwu_method method, pl_mwu *r) {
  memset(r, 0, sizeof *r);
  if (na == 0 || nb == 0) {
    r->u = r->z = r->p = NAN;
    return 0;
  }
  double *sa = sorted_copy(a, na), *sb = sorted_copy(b, nb);
  /* merge walk over the two sorted samples: average ranks of tie groups */
  size_t i = 0, j = 0, pos = 0;
  double r1 = 0, tie = 0;
  int ties = 0;
  while (i < na || j < nb) {
    double v = (j >= nb || (i < na && sa[i] <= sb[j])) ? sa[i] : sb[j];
    size_t ca = 0, cb = 0;
    while (i < na && sa[i] == v) {
      i++;
      ca++;
    }
    while (j < nb && sb[j] == v) {
      j++;
      cb++;
    }
    double c = (double)(ca + cb);
    r1 += (double)ca * ((double)pos + (c + 1) / 2);
    if (ca + cb > 1) {
      ties = 1;
      tie += c * c * c - c;
    }
    pos += ca + cb;
  }
  free(sa);
  free(sb);
  double n1 = (double)na, n2 = (double)nb, n = n1 + n2;
  double u1 = r1 - n1 * (n1 + 1) / 2;
  double u2 = n1 * n2 - u1;
  double u = u1 > u2 ? u1 : u2;
  double mu = n1 * n2 / 2;
  double s = sqrt(n1 * n2 / 12 * ((n + 1) - tie / (n * (n - 1))));
  int exact;
  if (method == PL_MWU_EXACT) exact = 1;
  else if (method == PL_MWU_ASYMPTOTIC) exact = 0;
  else exact = !(na > 8 && nb > 8) && !ties;
  r->u = u1;
  r->exact = exact;
  double dev = u1 - mu;
  r->z = dev > 0.5 ? (dev - 0.5) / s : dev < -0.5 ? (dev + 0.5) / s : 0.0;
  if (exact) r->p = mwu_exact_p(na, nb, u);
  else {
    double z = (u - mu - 0.5) / s;
    double p = 2 * pl_normal_sf(z);
    if (isnan(z)) p = NAN;
    r->p = p > 1 ? 1 : p;
  }
  return 0;
}

typedef struct {
  double v;
  size_t i;
} vi;
static int cmp_vi(const void *a, const void *b) {
  const vi *x = a, *y = b;
  if (x->v < y->v) return -1;
  if (x->v > y->v) return 1;
  return (x->i > y->i) - (x->i < y->i);
}

void pl_stats_rank(const double *x, size_t n, double *ranks) {
  vi *p = pl_xmalloc((n ? n : 1) * sizeof *p);
  for (size_t i = 0; i < n; i++) {
    p[i].v = x[i];
    p[i].i = i;
  }
  qsort(p, n, sizeof *p, cmp_vi);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && p[j].v == p[i].v) j++;
    double r = ((double)i + 1 + (double)j) / 2; /* average of i+1 .. j */
    for (size_t k = i; k < j; k++) ranks[p[k].i] = r;
    i = j;
  }
  free(p);
}

static int all_equal(const double *x, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (x[i] != x[0]) return 0;
  return 1;
}

/* Pearson r as SciPy: deviations from the means, normalised, dotted. */
static double pearson_r(const double *x, const double *y, size_t n) {
  double mx = pl_stats_mean(x, n), my = pl_stats_mean(y, n);
  /* scale by the largest deviation first so huge/tiny magnitudes survive */
  double sx = 0, sy = 0;
  for (size_t i = 0; i < n; i++) {
    if (fabs(x[i] - mx) > sx) sx = fabs(x[i] - mx);
    if (fabs(y[i] - my) > sy) sy = fabs(y[i] - my);
  }
  double sxx = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < n; i++) {
    double dx = (x[i] - mx) / sx, dy = (y[i] - my) / sy;
    sxx += dx * dx;
    syy += dy * dy;
    sxy += dx * dy;
  }
  double r = sxy / (sqrt(sxx) * sqrt(syy));
  return r > 1 ? 1 : r < -1 ? -1 : r;
}

void pl_stats_pearson(const double *x, const double *y, size_t n, pl_corr *r) {
  r->r = r->p = NAN;
  if (n < 2 || all_equal(x, n) || all_equal(y, n)) return;
  if (n == 2) {
    double sx = (x[1] > x[0]) - (x[1] < x[0]), sy = (y[1] > y[0]) - (y[1] < y[0]);
    r->r = sx * sy;
    r->p = 1.0;
    return;
  }
  r->r = pearson_r(x, y, n);
  /* 2 * sf of Beta(n/2-1, n/2-1) on [-1, 1] at |r| = 2 I_{(1-|r|)/2}(ab, ab) */
  double ab = (double)n / 2 - 1;
  double p = 2 * pl_betainc(ab, ab, (1 - fabs(r->r)) / 2);
  r->p = p > 1 ? 1 : p;
}

void pl_stats_spearman(const double *x, const double *y, size_t n, pl_corr *r) {
  r->r = r->p = NAN;
  if (n < 2 || all_equal(x, n) || all_equal(y, n)) return;
  double *rx = pl_xmalloc(n * sizeof *rx), *ry = pl_xmalloc(n * sizeof *ry);
  pl_stats_rank(x, n, rx);
  pl_stats_rank(y, n, ry);
  double rs = pearson_r(rx, ry, n);
  free(rx);
  free(ry);
  r->r = rs;
  double dof = (double)n - 2;
  double q = dof / ((rs + 1.0) * (1.0 - rs));
  if (q < 0) q = 0;
  double t = rs * sqrt(q);
  if (dof <= 0 || isnan(t)) {
    r->p = NAN;
    return;
  }
  double p = 2 * pl_t_sf(fabs(t), dof);
  r->p = p > 1 ? 1 : p;
}

double pl_stats_cliffs_delta(const double *a, size_t na, const double *b, size_t nb) {
  if (na == 0 || nb == 0) return NAN;
  double *sa = sorted_copy(a, na), *sb = sorted_copy(b, nb);
  /* for each a value: #b below and #b above, by a merge walk */
  double gt = 0, lt = 0;
  size_t lo = 0, hi = 0; /* sb[0..lo) < v, sb[0..hi) <= v */
  for (size_t i = 0; i < na; i++) {
    double v = sa[i];
    while (lo < nb && sb[lo] < v) lo++;
    if (hi < lo) hi = lo;
    while (hi < nb && sb[hi] <= v) hi++;
    gt += (double)lo;
    lt += (double)(nb - hi);
  }
  free(sa);
  free(sb);
  return (gt - lt) / ((double)na * (double)nb);
}

static double bhatt_coef_log(const double *a, size_t na, const double *b, size_t nb) {
  if (na < 2 || nb < 2) return NAN;
  double m1 = pl_stats_mean(a, na), m2 = pl_stats_mean(b, nb);
  double v1 = pl_stats_var(a, na, 1), v2 = pl_stats_var(b, nb, 1);
  if (!(v1 > 0 && v2 > 0)) return NAN;
  double s = v1 + v2, d = m1 - m2, s1 = sqrt(v1), s2 = sqrt(v2);
  /* -ln BC; s / (2 s1 s2) = 1 + (s1 - s2)^2 / (2 s1 s2), exact 0 for equal sds */
  return d * d / (4 * s) + 0.5 * log1p((s1 - s2) * (s1 - s2) / (2 * s1 * s2));
}

double pl_stats_bhattacharyya(const double *a, size_t na, const double *b, size_t nb) {
  return bhatt_coef_log(a, na, b, nb);
}

double pl_stats_hellinger(const double *a, size_t na, const double *b, size_t nb) {
  double db = bhatt_coef_log(a, na, b, nb);
  if (isnan(db)) return NAN;
  return sqrt(-expm1(-db)); /* sqrt(1 - BC) */
}

/* ======================================================================
** PRNG and bootstrap
** ==================================================================== */

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void pl_rng_seed(pl_rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t pl_rng_next(pl_rng *r) {
  uint64_t *s = r->s;
  uint64_t res = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return res;
}

uint64_t pl_rng_below(pl_rng *r, uint64_t bound) {
  if (bound == 0) return 0;
  unsigned __int128 m = (unsigned __int128)pl_rng_next(r) * bound;
  uint64_t l = (uint64_t)m;
  if (l < bound) {
    uint64_t t = (0 - bound) % bound;
    while (l < t) {
      m = (unsigned __int128)pl_rng_next(r) * bound;
      l = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

double pl_rng_double(pl_rng *r) { return (double)(pl_rng_next(r) >> 11) * 0x1.0p-53; }

double pl_stat_fn_mean(double *x, size_t n, void *ud) {
  (void)ud;
  return pl_stats_mean(x, n);
}
double pl_stat_fn_median(double *x, size_t n, void *ud) {
  (void)ud;
  return pl_stats_median_inplace(x, n);
}

int pl_stats_bootstrap_ci(const double *x, size_t n, pl_stat_fn fn, void *ud, size_t nboot, double alpha, uint64_t seed,
                          double *lo, double *hi) {
  *lo = *hi = NAN;
  if (n == 0 || nboot == 0 || !(alpha > 0 && alpha < 1)) return -1;
  pl_rng rng;
  pl_rng_seed(&rng, seed);
  double *buf = pl_xmalloc(n * sizeof *buf), *st = pl_xmalloc(nboot * sizeof *st);
  for (size_t b = 0; b < nboot; b++) {
    for (size_t i = 0; i < n; i++) buf[i] = x[pl_rng_below(&rng, n)];
    st[b] = fn(buf, n, ud);
    if (isnan(st[b])) {
      free(buf);
      free(st);
      return -1;
    }
  }
  double q[2] = { alpha / 2, 1 - alpha / 2 }, out[2];
  quantiles_inplace(st, nboot, q, 2, out);
  *lo = out[0];
  *hi = out[1];
  free(buf);
  free(st);
  return 0;
}

/* ======================================================================
** histogram
** ==================================================================== */

void pl_stats_histogram(const double *x, size_t n, size_t nbins, double *edges, double *counts) {
  double first = n ? pl_stats_min(x, n) : 0, last = n ? pl_stats_max(x, n) : 1;
  if (first == last) {
    first -= 0.5;
    last += 0.5;
  }
  /* np.linspace(first, last, nbins + 1) */
  double delta = last - first, step = delta / (double)nbins;
  for (size_t i = 0; i <= nbins; i++) edges[i] = (double)i * step + first;
  edges[nbins] = last;
  for (size_t i = 0; i < nbins; i++) counts[i] = 0;
  double norm = (double)nbins / delta;
  for (size_t i = 0; i < n; i++) {
    double v = x[i];
    if (v < first || v > last) continue;
    /* NumPy's fast path, then its correction against the real edges */
    size_t k = (size_t)((v - first) * norm);
    if (k >= nbins) k = nbins - 1;
    if (v < edges[k]) k--;
    else if (v >= edges[k + 1] && k != nbins - 1) k++;
    counts[k] += 1;
  }
}

int pl_stats_histogram_edges(const double *x, size_t n, const double *edges, size_t nedges, double *counts) {
  if (nedges < 2) return -1;
  for (size_t i = 1; i < nedges; i++)
    if (!(edges[i] >= edges[i - 1])) return -1;
  size_t nb = nedges - 1;
  for (size_t i = 0; i < nb; i++) counts[i] = 0;
  for (size_t i = 0; i < n; i++) {
    double v = x[i];
    if (v < edges[0] || v > edges[nb]) continue;
    if (v == edges[nb]) {
      counts[nb - 1] += 1;
      continue;
    }
    /* last edge <= v: binary search (searchsorted side='right') */
    size_t lo = 0, hi = nedges; /* edges[lo] <= v < edges[hi] */
    while (hi - lo > 1) {
      size_t mid = lo + (hi - lo) / 2;
      if (edges[mid] <= v) lo = mid;
      else hi = mid;
    }
    if (lo >= nb) lo = nb - 1;
    counts[lo] += 1;
  }
  return 0;
}

void pl_stats_histogram_outside(const double *x, size_t n, const double *edges, size_t nedges, size_t *under,
                                size_t *over) {
  size_t u = 0, o = 0;
  for (size_t i = 0; i < n; i++) {
    if (x[i] < edges[0]) u++;
    else if (x[i] > edges[nedges - 1]) o++;
  }
  *under = u;
  *over = o;
}

int pl_stats_log_edges(const double *x, size_t n, size_t nbins, double *edges) {
  double lo = INFINITY, hi = 0;
  for (size_t i = 0; i < n; i++) {
    if (!(x[i] > 0)) continue;
    if (x[i] < lo) lo = x[i];
    if (x[i] > hi) hi = x[i];
  }
  if (!(hi > 0)) return -1;
  if (lo == hi) {
    lo /= 10;
    hi *= 10;
  }
  double a = log10(lo), step = (log10(hi) - a) / (double)nbins;
  for (size_t i = 0; i <= nbins; i++) edges[i] = pow(10, a + (double)i * step);
  edges[0] = lo;
  edges[nbins] = hi;
  return 0;
}

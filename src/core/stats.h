/*
** stats.h -- descriptive statistics, hypothesis tests and distribution
** functions for the C core (no Lua).  Numbers follow NumPy 1.24 / SciPy 1.10
** (Debian 12): tests/fixtures/stats/ holds their values and
** tests/c/test_stats.c checks agreement (1e-9 relative for statistics,
** 1e-6 relative for p-values).
**
** Conventions: inputs are arrays of finite doubles (callers drop or reject
** NaN first); n is the element count.  Functions that need n >= k return NaN
** (or -1 where they return int) when it is not met, never abort.  Input
** arrays are const unless the name says "_inplace".  Formulas: docs/stats.md.
*/
#ifndef PL_STATS_H
#define PL_STATS_H
#include <stddef.h>
#include <stdint.h>

/* ---- descriptive ------------------------------------------------------- */
/* Compensated (TwoSum / Neumaier-style, several lanes) sum. */
double pl_stats_sum(const double *x, size_t n);
double pl_stats_mean(const double *x, size_t n);
/* Variance with divisor n - ddof (ddof = 1: sample variance; NaN if n <= ddof). */
double pl_stats_var(const double *x, size_t n, int ddof);
double pl_stats_sd(const double *x, size_t n, int ddof);
double pl_stats_min(const double *x, size_t n);
double pl_stats_max(const double *x, size_t n);
/* exp(mean(log x)); NaN if any x <= 0 (SciPy gives 0 / NaN with warnings). */
double pl_stats_geomean(const double *x, size_t n);
/* sum(w x) / sum(w) (np.average); NaN when sum(w) == 0. */
double pl_stats_weighted_mean(const double *x, const double *w, size_t n);
/* np.median: mean of the two middle values for even n.  Reorders x. */
double pl_stats_median_inplace(double *x, size_t n);
double pl_stats_median(const double *x, size_t n);
/* Type-7 quantile (np.quantile default, with NumPy's lerp).  q in [0,1].
** Single q: O(n) selection on a copy. */
double pl_stats_quantile(const double *x, size_t n, double q);
/* Several q at once: one multi-selection pass over a copy of x. */
void pl_stats_quantiles(const double *x, size_t n, const double *q, size_t nq, double *out);
/* (x - mean) / sd(ddof) into out (scipy.stats.zscore default ddof = 0). */
void pl_stats_zscores(const double *x, size_t n, int ddof, double *out);

typedef struct pl_describe {
  size_t n;
  double mean, sd, var, min, max, median, p25, p75, p90, p95, p99, sum;
} pl_describe;
/* sd/var are sample (n-1): NaN for n = 1. */
void pl_stats_describe(const double *x, size_t n, pl_describe *d);

/* ---- tests ------------------------------------------------------------- */
typedef struct pl_ttest {
  double t, df, p;
} pl_ttest;
/* Two-sided; scipy.stats.ttest_ind(a, b, equal_var=False / True). */
void pl_stats_welch_t(const double *a, size_t na, const double *b, size_t nb, pl_ttest *r);
void pl_stats_student_t(const double *a, size_t na, const double *b, size_t nb, pl_ttest *r);
/* Welch's t from summaries: means, sample standard deviations (n - 1) and
** counts; scipy.stats.ttest_ind_from_stats(equal_var=False).  Both sd 0:
** t = +-inf and p = 0 when the means differ, t = p = NaN when equal; a
** count below 2 gives df from SciPy's formula (p NaN where it is). */
void pl_stats_welch_t_from_stats(double m1, double s1, double n1, double m2, double s2, double n2, pl_ttest *r);

typedef enum { PL_MWU_AUTO = 0, PL_MWU_EXACT, PL_MWU_ASYMPTOTIC } pl_mwu_method;
typedef struct pl_mwu {
  double u;  /* U statistic of sample a (SciPy's "statistic") */
  double z;  /* (U_a - n_a n_b / 2 -+ 0.5) / sigma_tie: continuity
                     correction toward 0, tie-corrected sigma; > 0 when a
                     tends to be larger (0 when U_a is exactly the mean) */
  double p;  /* two-sided p, SciPy's */
  int exact; /* 1 when the exact null distribution was used */
} pl_mwu;
/* scipy.stats.mannwhitneyu(a, b, alternative="two-sided", method=...).
** auto: exact when min(na, nb) <= 8 and there are no ties.  Returns 0, or
** -1 on allocation size overflow (never for sane n). */
int pl_stats_mann_whitney_u(const double *a, size_t na, const double *b, size_t nb, pl_mwu_method method, pl_mwu *r);

typedef struct pl_corr {
  double r, p;
} pl_corr;
/* scipy.stats.pearsonr / spearmanr, two-sided.  n >= 2; constant input
** gives r = p = NaN as SciPy does. */
void pl_stats_pearson(const double *x, const double *y, size_t n, pl_corr *r);
void pl_stats_spearman(const double *x, const double *y, size_t n, pl_corr *r);
/* Average ranks (1-based, ties averaged) like scipy.stats.rankdata. */
void pl_stats_rank(const double *x, size_t n, double *ranks);

/* (#(a_i > b_j) - #(a_i < b_j)) / (na nb), in O((na+nb) log). */
double pl_stats_cliffs_delta(const double *a, size_t na, const double *b, size_t nb);
/* Between normal fits N(mean, sd^2) (sample sd, n-1) of a and b:
**   BC = sqrt(2 s1 s2 / (s1^2 + s2^2)) exp(-(m1 - m2)^2 / (4 (s1^2 + s2^2)))
**   hellinger     = sqrt(1 - BC)              in [0, 1]
**   bhattacharyya = -ln BC = (m1-m2)^2 / (4 (s1^2+s2^2))
**                          + 0.5 ln((s1^2 + s2^2) / (2 s1 s2))
** NaN when a sample has n < 2 or zero variance. */
double pl_stats_hellinger(const double *a, size_t na, const double *b, size_t nb);
double pl_stats_bhattacharyya(const double *a, size_t na, const double *b, size_t nb);

/* ---- resampling -------------------------------------------------------- */
/* xoshiro256** seeded through splitmix64: deterministic for a seed. */
typedef struct pl_rng {
  uint64_t s[4];
} pl_rng;
void pl_rng_seed(pl_rng *r, uint64_t seed);
uint64_t pl_rng_next(pl_rng *r);
/* Uniform integer in [0, bound) (Lemire's multiply-shift with rejection). */
uint64_t pl_rng_below(pl_rng *r, uint64_t bound);
/* Uniform double in [0, 1) with 53 random bits. */
double pl_rng_double(pl_rng *r);

/* A statistic of a resample (x has n values, may be reordered). */
typedef double (*pl_stat_fn)(double *x, size_t n, void *ud);
double pl_stat_fn_mean(double *x, size_t n, void *ud);
double pl_stat_fn_median(double *x, size_t n, void *ud);
/* Percentile bootstrap: nboot resamples of size n with replacement, drawn as
** idx = pl_rng_below(rng, n) in order; the statistic of each; lo/hi the
** type-7 quantiles alpha/2 and 1 - alpha/2 of those values.  fn may return
** NaN to signal an error; it stops and returns -1 (lo = hi = NaN). */
int pl_stats_bootstrap_ci(const double *x, size_t n, pl_stat_fn fn, void *ud, size_t nboot, double alpha, uint64_t seed,
                          double *lo, double *hi);

/* ---- histogram (np.histogram) ------------------------------------------ */
/* nbins equal bins over [min, max] (min-0.5, max+0.5 when all equal);
** edges has nbins + 1 slots; counts nbins.  The last bin is closed. */
void pl_stats_histogram(const double *x, size_t n, size_t nbins, double *edges, double *counts);
/* Given ascending edges (nedges >= 2): bin i holds edges[i] <= x < edges[i+1],
** the last bin also x == edges[nedges-1]; values outside are not counted.
** Returns 0, -1 if the edges are not ascending. */
int pl_stats_histogram_edges(const double *x, size_t n, const double *edges, size_t nedges, double *counts);
/* The values below edges[0] and above edges[nedges-1] (what the edges
** leave out), so a caller never drops them silently. */
void pl_stats_histogram_outside(const double *x, size_t n, const double *edges, size_t nedges, size_t *under,
                                size_t *over);
/* nbins + 1 log-spaced edges from the smallest to the largest positive
** value (a decade either side when they are equal); values <= 0 fall under
** edges[0].  -1 when no value is positive. */
int pl_stats_log_edges(const double *x, size_t n, size_t nbins, double *edges);

/* ---- distributions ----------------------------------------------------- */
double pl_normal_cdf(double x);
double pl_normal_sf(double x);
/* Inverse of pl_normal_cdf (scipy.stats.norm.ppf): -inf at 0, +inf at 1,
** NaN outside [0, 1]; relative error ~1e-15 (Acklam's rational start and
** one Halley step on erfc). */
double pl_normal_ppf(double p);
/* Student t with df > 0 degrees of freedom (df may be fractional).
** Accurate far into the tails: t_sf(1e10, 3) ~ 1e-30 and smaller down to
** the double range (no 1 - cdf cancellation). */
double pl_t_cdf(double t, double df);
double pl_t_sf(double t, double df);
/* Regularized incomplete beta I_x(a, b), a, b > 0, x in [0, 1]. */
double pl_betainc(double a, double b, double x);
/* 1 - I_x(a, b) computed without cancellation (= I_{1-x}(b, a)). */
double pl_betaincc(double a, double b, double x);

/* ---- sorting helpers (also used by intervals.c) ------------------------ */
/* LSD radix sort of doubles / int64 ascending (NaN-free input).  Falls back
** to an insertion sort for small n.  Uses an n-element scratch buffer. */
void pl_radix_sort_doubles(double *x, size_t n);
void pl_radix_sort_i64(int64_t *x, size_t n);

#endif

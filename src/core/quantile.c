/*
** quantile.c -- selection (introselect-style quickselect with median of
** three and a heapsort-free fallback to sorting small ranges) and type-7
** quantiles.  Used by table group_by and by perflab.stats.
*/
#include "quantile.h"

#include <math.h>
#include <stdlib.h>

/* One selection routine for both element types, made twice by SELECT_KTH:
** the k-th smallest (0-based) of x[0..n), x reordered in place.  Quickselect
** with a median of three and a Hoare partition (many equal values do not
** make it quadratic), then an insertion sort of the last small range.
** Integers are selected as int64 (through doubles they lose exactness
** beyond 2^53). */
#define SELECT_KTH(NAME, SWAP, INSERTION, T)                                                                           \
  static void SWAP(T *a, T *b) {                                                                                       \
    T t = *a;                                                                                                          \
    *a = *b;                                                                                                           \
    *b = t;                                                                                                            \
  }                                                                                                                    \
  static void INSERTION(T *x, size_t lo, size_t hi) { /* inclusive */                                                  \
    for (size_t i = lo + 1; i <= hi; i++) {                                                                            \
      T v = x[i];                                                                                                      \
      size_t j = i;                                                                                                    \
      while (j > lo && x[j - 1] > v) {                                                                                 \
        x[j] = x[j - 1];                                                                                               \
        j--;                                                                                                           \
      }                                                                                                                \
      x[j] = v;                                                                                                        \
    }                                                                                                                  \
  }                                                                                                                    \
  T NAME(T *x, size_t n, size_t k) {                                                                                   \
    size_t lo = 0, hi = n - 1;                                                                                         \
    while (hi > lo + 16) {                                                                                             \
      size_t mid = lo + (hi - lo) / 2;                                                                                 \
      if (x[mid] < x[lo]) SWAP(&x[mid], &x[lo]);                                                                       \
      if (x[hi] < x[lo]) SWAP(&x[hi], &x[lo]);                                                                         \
      if (x[hi] < x[mid]) SWAP(&x[hi], &x[mid]);                                                                       \
      T pivot = x[mid];                                                                                                \
      size_t i = lo, j = hi;                                                                                           \
      for (;;) {                                                                                                       \
        while (x[i] < pivot) i++;                                                                                      \
        while (x[j] > pivot) j--;                                                                                      \
        if (i >= j) break;                                                                                             \
        SWAP(&x[i], &x[j]);                                                                                            \
        i++;                                                                                                           \
        j--;                                                                                                           \
      }                                                                                                                \
      if (k <= j) hi = j;                                                                                              \
      else lo = j + 1;                                                                                                 \
    }                                                                                                                  \
    INSERTION(x, lo, hi);                                                                                              \
    return x[k];                                                                                                       \
  }

SELECT_KTH(pl_select_kth, swapd, insertion, double)
SELECT_KTH(pl_select_kth_i64, swapi, insertion_i64, int64_t)

double pl_quantile_select(double *x, size_t n, double q) {
  if (n == 1) return x[0];
  double h = (double)(n - 1) * q;
  size_t k = (size_t)floor(h);
  if (k >= n - 1) return pl_select_kth(x, n, n - 1);
  double lo = pl_select_kth(x, n, k);
  /* after selection, x[k+1..] are >= x[k]: the next order statistic is their min */
  double hi = x[k + 1];
  for (size_t i = k + 2; i < n; i++)
    if (x[i] < hi) hi = x[i];
  return pl_lerp7(lo, hi, h - (double)k);
}

double pl_quantile_sorted(const double *x, size_t n, double q) {
  if (n == 1) return x[0];
  double h = (double)(n - 1) * q;
  size_t k = (size_t)floor(h);
  if (k >= n - 1) return x[n - 1];
  return pl_lerp7(x[k], x[k + 1], h - (double)k);
}

/* NumPy 1.24 _lerp: a + (b-a) t, or b - (b-a)(1-t) when t >= 0.5 (exact at
** t = 1 and monotone).  np.quantile results agree to the last bit. */
double pl_lerp7(double a, double b, double t) {
  double d = b - a;
  return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

/* Partition x[lo..hi] (inclusive, hi > lo + 16) around a median-of-three
** pivot; returns j with x[lo..j] <= pivot <= x[j+1..hi]. */
static size_t partition(double *x, size_t lo, size_t hi) {
  size_t mid = lo + (hi - lo) / 2;
  if (x[mid] < x[lo]) swapd(&x[mid], &x[lo]);
  if (x[hi] < x[lo]) swapd(&x[hi], &x[lo]);
  if (x[hi] < x[mid]) swapd(&x[hi], &x[mid]);
  double pivot = x[mid];
  size_t i = lo, j = hi;
  for (;;) {
    while (x[i] < pivot) i++;
    while (x[j] > pivot) j--;
    if (i >= j) return j;
    swapd(&x[i], &x[j]);
    i++;
    j--;
  }
}

static void select_multi(double *x, size_t lo, size_t hi, const size_t *ks, size_t nk) {
  while (nk > 0) {
    if (hi <= lo + 16) {
      insertion(x, lo, hi);
      return;
    }
    size_t j = partition(x, lo, hi);
    size_t nleft = 0; /* ks[0..nleft) lie in [lo, j] */
    while (nleft < nk && ks[nleft] <= j) nleft++;
    /* recurse into the smaller key set, loop on the other */
    if (nleft <= nk - nleft) {
      if (nleft) select_multi(x, lo, j, ks, nleft);
      ks += nleft;
      nk -= nleft;
      lo = j + 1;
    } else {
      if (nk - nleft) select_multi(x, j + 1, hi, ks + nleft, nk - nleft);
      nk = nleft;
      hi = j;
    }
  }
}

void pl_select_multi(double *x, size_t n, const size_t *ks, size_t nk) {
  if (n == 0 || nk == 0) return;
  select_multi(x, 0, n - 1, ks, nk);
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void pl_sort_doubles(double *x, size_t n) { qsort(x, n, sizeof *x, cmpd); }

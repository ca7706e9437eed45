/*
** quantile.c -- selection (introselect-style quickselect with median of
** three and a heapsort-free fallback to sorting small ranges) and type-7
** quantiles.  Used by table group_by and by perflab.stats.
*/
#include "quantile.h"

#include <math.h>
#include <stdlib.h>

static void swapd(double *a, double *b) { double t = *a; *a = *b; *b = t; }

static void insertion(double *x, size_t lo, size_t hi) {  /* inclusive */
  for (size_t i = lo + 1; i <= hi; i++) {
    double v = x[i];
    size_t j = i;
    while (j > lo && x[j - 1] > v) { x[j] = x[j - 1]; j--; }
    x[j] = v;
  }
}

double pl_select_kth(double *x, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (hi > lo + 16) {
    size_t mid = lo + (hi - lo) / 2;
    if (x[mid] < x[lo]) swapd(&x[mid], &x[lo]);
    if (x[hi] < x[lo]) swapd(&x[hi], &x[lo]);
    if (x[hi] < x[mid]) swapd(&x[hi], &x[mid]);
    double pivot = x[mid];
    /* Hoare partition: tolerates many equal values without quadratic time. */
    size_t i = lo, j = hi;
    for (;;) {
      while (x[i] < pivot) i++;
      while (x[j] > pivot) j--;
      if (i >= j) break;
      swapd(&x[i], &x[j]);
      i++; j--;
    }
    if (k <= j) hi = j; else lo = j + 1;
  }
  insertion(x, lo, hi);
  return x[k];
}

double pl_quantile_select(double *x, size_t n, double q) {
  if (n == 1) return x[0];
  double h = (double)(n - 1) * q;
  size_t k = (size_t)floor(h);
  if (k >= n - 1) return pl_select_kth(x, n, n - 1);
  double lo = pl_select_kth(x, n, k);
  /* after selection, x[k+1..] are >= x[k]: the next order statistic is their min */
  double hi = x[k + 1];
  for (size_t i = k + 2; i < n; i++) if (x[i] < hi) hi = x[i];
  double f = h - (double)k;
  return lo + (hi - lo) * f;
}

double pl_quantile_sorted(const double *x, size_t n, double q) {
  if (n == 1) return x[0];
  double h = (double)(n - 1) * q;
  size_t k = (size_t)floor(h);
  if (k >= n - 1) return x[n - 1];
  double f = h - (double)k;
  return x[k] + (x[k + 1] - x[k]) * f;
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void pl_sort_doubles(double *x, size_t n) { qsort(x, n, sizeof *x, cmpd); }

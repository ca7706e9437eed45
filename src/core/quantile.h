/*
** quantile.h -- order statistics shared by the table engine and the
** statistics module: Hyndman-Fan type 7 quantiles (NumPy's default,
** linear interpolation between order statistics) by O(n) selection.
*/
#ifndef PL_QUANTILE_H
#define PL_QUANTILE_H
#include <stddef.h>
#include <stdint.h>

/* q in [0,1]; x has n > 0 finite values and is reordered in place. */
double pl_quantile_select(double *x, size_t n, double q);
/* k-th smallest (0-based) of x[0..n), reordering x in place. */
double pl_select_kth(double *x, size_t n, size_t k);
/* q on an ascending sorted array. */
double pl_quantile_sorted(const double *x, size_t n, double q);
/* After this, x[ks[i]] is the ks[i]-th smallest for every i; ks ascending,
** each < n.  One pass of nested partitioning (O(n log nk)). */
void pl_select_multi(double *x, size_t n, const size_t *ks, size_t nk);
/* NumPy's interpolation between neighbouring order statistics. */
double pl_lerp7(double a, double b, double t);
/* Sorts doubles ascending (NaN-free input). */
void pl_sort_doubles(double *x, size_t n);

/* k-th smallest (0-based) of n > k int64 values, exact; reorders x. */
int64_t pl_select_kth_i64(int64_t *x, size_t n, size_t k);

#endif

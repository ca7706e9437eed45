/*
** intervals.h -- sets of half-open time intervals [start, end) on int64
** nanoseconds (timeline timestamps exceed 2^53, so doubles would lose
** nanoseconds).  A set is always normalised: sorted by start, non-empty
** intervals only (start < end), overlapping AND touching intervals merged
** ([1,3) + [3,5) = [1,5)), so consecutive intervals have s[i+1] > e[i].
** All operations return normalised sets; building is O(n log n) (radix
** sort of starts and ends), the set algebra is linear.
*/
#ifndef PL_INTERVALS_H
#define PL_INTERVALS_H
#include <stddef.h>
#include <stdint.h>

typedef struct pl_ivset {
  int64_t *s, *e;     /* n starts and ends */
  size_t n, cap;
} pl_ivset;

void pl_iv_init(pl_ivset *a);
void pl_iv_free(pl_ivset *a);
/* Appends [s, e) which must start after everything already in a (s >= last
** end); merges when touching/overlapping the last one; ignores s >= e. */
void pl_iv_push(pl_ivset *a, int64_t s, int64_t e);

/* Builds out (initialised by the call) from n (start, end) pairs in any
** order.  [s, e) = {t : s <= t < e} is empty when e <= s: zero-length and
** inverted pairs are dropped -- unless strict, where an inverted pair
** (e < s) is an error: returns -1 with *bad = its index.  Returns 0. */
int pl_iv_build(pl_ivset *out, const int64_t *start, const int64_t *end, size_t n,
                int strict, size_t *bad);
/* Same from doubles (rounded to the nearest integer nanosecond); -1 with
** *bad for a NaN/infinite value, one outside int64, or (strict) e < s. */
int pl_iv_build_d(pl_ivset *out, const double *start, const double *end, size_t n,
                  int strict, size_t *bad);

/* out is initialised by each call; out must not alias the inputs. */
void pl_iv_union(pl_ivset *out, const pl_ivset *a, const pl_ivset *b);
void pl_iv_intersect(pl_ivset *out, const pl_ivset *a, const pl_ivset *b);
void pl_iv_subtract(pl_ivset *out, const pl_ivset *a, const pl_ivset *b);   /* a \ b */
void pl_iv_clip(pl_ivset *out, const pl_ivset *a, int64_t lo, int64_t hi);   /* a within [lo, hi) */
/* The uncovered stretches within [lo, hi): complement of a clipped there. */
void pl_iv_complement(pl_ivset *out, const pl_ivset *a, int64_t lo, int64_t hi);
/* The gaps between consecutive intervals: [e[i], s[i+1]) for i < n-1. */
void pl_iv_gaps(pl_ivset *out, const pl_ivset *a);
void pl_iv_copy(pl_ivset *out, const pl_ivset *a);

/* Total covered length (sum of e - s; saturates at INT64_MAX). */
int64_t pl_iv_length(const pl_ivset *a);
/* 1 when some interval has s <= t < e. O(log n). */
int pl_iv_contains(const pl_ivset *a, int64_t t);
/* Index of the interval holding t, or -1. */
long long pl_iv_find(const pl_ivset *a, int64_t t);

#endif

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
  int64_t *s, *e; /* n starts and ends */
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
int pl_iv_build(pl_ivset *out, const int64_t *start, const int64_t *end, size_t n, int strict, size_t *bad);
/* Same from doubles (rounded to the nearest integer nanosecond); -1 with
** *bad for a NaN/infinite value, one outside int64, or (strict) e < s. */
int pl_iv_build_d(pl_ivset *out, const double *start, const double *end, size_t n, int strict, size_t *bad);

/* out is initialised by each call; out must not alias the inputs. */
void pl_iv_union(pl_ivset *out, const pl_ivset *a, const pl_ivset *b);
void pl_iv_intersect(pl_ivset *out, const pl_ivset *a, const pl_ivset *b);
void pl_iv_subtract(pl_ivset *out, const pl_ivset *a, const pl_ivset *b);  /* a \ b */
void pl_iv_clip(pl_ivset *out, const pl_ivset *a, int64_t lo, int64_t hi); /* a within [lo, hi) */
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

/* Length of a within [lo, hi), without building the clipped set. */
int64_t pl_iv_length_within(const pl_ivset *a, int64_t lo, int64_t hi);

/* Point location: out[k] = index of the interval holding t[k], or -1, for m
** points in any order (a merge when they are sorted, a binary search per
** point otherwise). */
void pl_iv_locate(const pl_ivset *a, const int64_t *t, size_t m, int64_t *out);

/* Innermost enclosing interval per group.  Ops are n raw intervals
** [os, oe] (any order, may nest) in groups og; queries are m intervals
** [qs, qe] (qe = qs for a point) in groups qg.  out[k] = the index of the
** innermost op of group qg[k] enclosing query k, or -1.  One sweep per
** group in the order (start, ops before queries, longer first, then index)
** with a stack of open ops: an op closes the open ops that end before it
** does, and a query gets the innermost open op with os <= qs and qe <= oe
** (ends included).  Where ops nest or follow one another this is the
** innermost op containing the query; of ops that overlap without nesting
** the later one closes the earlier (a profiler never writes those on one
** thread).  A row
** with skip[i] (ops, when oskip) / qskip[k] set takes no part (out -1). */
void pl_iv_innermost(const int64_t *os, const int64_t *oe, const int64_t *og, const unsigned char *oskip, size_t n,
                     const int64_t *qs, const int64_t *qe, const int64_t *qg, const unsigned char *qskip, size_t m,
                     int64_t *out);
/* The same for ops given as columns: [start, start + dur - 1] in group
** (pid, tid) (ops with start or dur missing, or dur <= 0, take no part),
** and point queries at[k] in group (qpid, qtid) (missing: no part).  No
** copy of the columns is made (the memory attribution of a large trace). */
void pl_iv_innermost_ops(const int64_t *start, const int64_t *dur, const uint32_t *opid, const uint32_t *otid, size_t n,
                         const int64_t *at, const uint32_t *qpid, const uint32_t *qtid, size_t m, int64_t *out);

/* For each op i: the union length of the intervals [qs[k], qe[k]) of the
** queries k whose point qp[k] lies within [os[i], oe[i]] (ends included)
** in the same group (qg[k] == og[i]; NULL groups: one group), into
** out_len[i], and how many queries that is into out_cnt[i] (the work an op
** and its children launched: a query is a kernel, its point the start of
** the runtime call that launched it).  Skipped ops get INT64_MIN in both;
** skipped queries take no part.  O((n + m) log m + the enclosed pairs). */
void pl_iv_enclosed(const int64_t *os, const int64_t *oe, const int64_t *og, const unsigned char *oskip, size_t n,
                    const int64_t *qp, const int64_t *qg, const int64_t *qs, const int64_t *qe,
                    const unsigned char *qskip, size_t m, int64_t *out_len, int64_t *out_cnt);

/* Step-function integral: level(t) = sum of v[i] over the intervals
** [s[i], e[i]) active at t (overlaps add up); returns the integral of
** min(level(t), cap) over [lo, hi) where level > 0, in value x ns.  The
** steps are taken in time order, a start before an end at the same instant,
** then in index order, so the sum is reproducible to the bit.  Intervals
** with skip[i] set, or e < s, are left out.  cap = INFINITY for none. */
double pl_iv_step_integral(const int64_t *s, const int64_t *e, const double *v, const unsigned char *skip, size_t n,
                           double cap, int64_t lo, int64_t hi);

/* A sampled series over windows.  Samples k = 0..n-1, sorted by ts, with
** values v: with te an interval sample covers [ts[k], te[k]); without
** (te NULL) a sample holds its value from ts[k] to the next sample's ts
** (the last one to the window's end).  For each window j, [a[j], b[j]):
**   area[j] = sum over samples of v[k] x |cover_k within the window|,
**   cov[j]  = sum of those lengths (interval samples that overlap count
**             twice), both 0 for an empty window;
**   at[j]   = the sample in force at a[j] (the last with ts <= a[j]; an
**             interval sample only when te >= a[j]), or -1.
** The sums run over the samples in index order (reproducible to the bit). */
void pl_iv_series_windows(const int64_t *ts, const int64_t *te, const double *v, size_t n, const int64_t *a,
                          const int64_t *b, size_t m, double *area, int64_t *cov, int64_t *at);

/* pl_iv_series_windows summed per group of windows: group[j] is window j's
** group (0..ng-1; negative: none).  Per group g, left to right in window
** order: area[g] and cov[g] the sums of its windows' area and cov, and over
** its windows that cover nothing but have a sample in force at their start,
** psum[g] the sum of those samples' values and pn[g] their count (so
** area / cov, else psum / pn, is the series' mean over the group). */
void pl_iv_series_groups(const int64_t *ts, const int64_t *te, const double *v, size_t n, const int64_t *a,
                         const int64_t *b, const int64_t *group, size_t m, size_t ng, double *area, int64_t *cov,
                         double *psum, int64_t *pn);

/* Queries against windows in order (steps): windows w = 0..nw-1 are
** [ws[w], we[w]], queries k = 0..m-1 are [qs[k], qe[k]].  The tb-profiler
** plugin's tie of a runtime call to its profiler step: a merge of the
** queries in start order (ties in index order) against the windows in
** order, from the first window: a query that starts before the current
** window gets none; one that ends by the window's end (qe <= we) gets it;
** one that starts inside and ends after it gets none; one that starts at or
** after the window's end moves the merge to the next window and is tried
** there.  out[k] = the window, or -1 (also for queries with qskip[k] set,
** which take no part; qskip may be NULL).  For windows that follow one
** another this is the window holding the query.  ord: scratch of m
** indices.  O(nw + m), plus a sort when the starts are out of order. */
void pl_iv_first_window(const int64_t *ws, const int64_t *we, size_t nw, const int64_t *qs, const int64_t *qe,
                        const unsigned char *qskip, size_t m, size_t *ord, int64_t *out);

/* The parent of each interval in its group: out[i] = the index of the
** innermost other interval j of group g[i] with s[j] <= s[i] and
** e[i] <= e[j] (half open: it contains [s[i], e[i])), or -1.  Of
** intervals with equal bounds the one earlier in (start, longer first,
** index) order is the parent of the next.  One sort by (group, start,
** end descending, index) and a stack; skipped rows take no part (-1). */
void pl_iv_parents(const int64_t *s, const int64_t *e, const int64_t *g, const unsigned char *skip, size_t n,
                   int64_t *out);

/* Sums of point values within windows, per group.  Windows w = 0..nw-1
** are [ws[w], we[w]) in groups wg (any order, may overlap); points
** k = 0..np-1 at pt[k] in groups pg carry nv int64 values vals[j][k].  For
** each window: count[w] = the points of its group with ws <= pt < we, and
** sums[j][w] = the sum of their vals[j] (wrapping int64 addition).
** Skipped windows (wskip) get 0; skipped points (pskip) take no part.
** One sort of the points by (group, time) and prefix sums, then two binary
** searches per window: O((np + nw) log np).  Fails
** never (pl_xmalloc aborts): returns 0. */
int pl_iv_sum_within(const int64_t *ws, const int64_t *we, const int64_t *wg, const unsigned char *wskip, size_t nw,
                     const int64_t *pt, const int64_t *pg, const unsigned char *pskip, size_t np,
                     const int64_t *const *vals, size_t nv, int64_t *count, int64_t **sums);

#endif

/* test_intervals.c -- interval sets against a brute-force model.
** Model: endpoints are integers in [0, W), so a set of half-open intervals
** is exactly the set of unit cells [t, t+1) it covers -- a bitmap.  Random
** sets (fixed seed) with zero-length, nested, touching and duplicate
** intervals; every operation's result is compared cell by cell, and its
** normal form (sorted, s < e, s[i+1] > e[i]) is checked. */
#include "tcheck.h"
#include "intervals.h"
#include "stats.h"
#include "table.h"

#include <stdint.h>

#define W 160
typedef struct {
  unsigned char c[W];
} bits;

static int normal_form(const pl_ivset *a) {
  for (size_t i = 0; i < a->n; i++) {
    if (!(a->s[i] < a->e[i])) return 0;
    if (i && !(a->s[i] > a->e[i - 1])) return 0; /* not touching, not overlapping */
  }
  return 1;
}

static bits cells(const pl_ivset *a) {
  bits b;
  memset(&b, 0, sizeof b);
  for (size_t i = 0; i < a->n; i++)
    for (int64_t t = a->s[i]; t < a->e[i]; t++)
      if (t >= 0 && t < W) b.c[t] = 1;
  return b;
}

static int same(const pl_ivset *a, const bits *m) {
  bits b = cells(a);
  return normal_form(a) && memcmp(b.c, m->c, W) == 0;
}

static void random_set(pl_rng *r, pl_ivset *out, bits *m, int64_t *S, int64_t *E, size_t *nout) {
  size_t n = pl_rng_below(r, 12); /* 0..11, often empty-ish */
  memset(m, 0, sizeof *m);
  for (size_t i = 0; i < n; i++) {
    int64_t s = (int64_t)pl_rng_below(r, W - 40);
    int64_t len = pl_rng_below(r, 4) == 0 ? 0 : (int64_t)pl_rng_below(r, 40); /* zero-length 1/4 */
    if (i > 0 && pl_rng_below(r, 4) == 0) {                                   /* nested in / touching the previous */
      if (pl_rng_below(r, 2)) {
        s = S[i - 1] + (E[i - 1] > S[i - 1] ? (int64_t)pl_rng_below(r, (uint64_t)(E[i - 1] - S[i - 1])) : 0);
        len = (E[i - 1] - s) / 2;
      } else {
        s = E[i - 1];
      }
    }
    if (s > W) s = W; /* keep the model in range */
    if (s + len > W) len = W - s;
    S[i] = s;
    E[i] = s + len;
    for (int64_t t = s; t < s + len; t++) m->c[t] = 1;
  }
  size_t bad;
  int rc = pl_iv_build(out, S, E, n, 1, &bad);
  TC_EQ_INT(rc, 0);
  *nout = n;
}


/* Ops that nest or follow one another (a laminar family, as a profiler
** writes one thread's ops): each op holds children at random, each
** starting after its parent and a gap after its previous sibling (ends
** count as inside, so touching siblings would share a point). */
static size_t laminar(pl_rng *r, int64_t s, int64_t e, int depth, int64_t *S, int64_t *E, size_t n, size_t cap) {
  if (n >= cap || e - s < 2) return n;
  S[n] = s;
  E[n] = e;
  n++;
  if (depth == 0) return n;
  int64_t t = s;
  while (t < e && n < cap) {
    int64_t a = t + 1 + (int64_t)pl_rng_below(r, 4), b = a + 1 + (int64_t)pl_rng_below(r, (uint64_t)(e - s) / 2 + 1);
    if (b > e) b = e;
    if (a >= b) break;
    n = laminar(r, a, b, depth - 1, S, E, n, cap);
    t = b;
  }
  return n;
}

/* locate, length_within, the step integral and innermost against brute force */
static void test_queries(pl_rng *r) {
  int64_t S1[16], E1[16];
  for (int iter = 0; iter < 2000; iter++) {
    pl_ivset a;
    bits ma;
    size_t na;
    random_set(r, &a, &ma, S1, E1, &na);
    /* locate: sorted points (the merge) and shuffled ones (binary search) */
    int64_t pt[40], out[40];
    for (int k = 0; k < 40; k++) pt[k] = (int64_t)pl_rng_below(r, W + 10) - 5;
    if (iter % 2)
      for (int k = 1; k < 40; k++)
        for (int j = k; j > 0 && pt[j] < pt[j - 1]; j--) {
          int64_t x = pt[j];
          pt[j] = pt[j - 1];
          pt[j - 1] = x;
        }
    pl_iv_locate(&a, pt, 40, out);
    int ok = 1;
    for (int k = 0; k < 40; k++) {
      long long want = -1;
      for (size_t i = 0; i < a.n; i++)
        if (a.s[i] <= pt[k] && pt[k] < a.e[i]) want = (long long)i;
      if (out[k] != want) ok = 0;
      if ((out[k] >= 0) != (pt[k] >= 0 && pt[k] < W && ma.c[pt[k]])) ok = 0;
    }
    TC_CHECK(ok);
    int64_t lo = (int64_t)pl_rng_below(r, W) - 5, hi = (int64_t)pl_rng_below(r, W + 5);
    int64_t inside = 0;
    for (int64_t t = lo; t < hi; t++)
      if (t >= 0 && t < W && ma.c[t]) inside++;
    TC_EQ_INT(pl_iv_length_within(&a, lo, hi), inside);
    /* step integral: unit cells, level = sum of the values of the raw
    ** intervals holding the cell */
    double v[16];
    unsigned char skip[16];
    for (size_t i = 0; i < na; i++) {
      v[i] = (double)(1 + pl_rng_below(r, 8)) / 4;
      skip[i] = pl_rng_below(r, 5) == 0;
    }
    double cap = (double)(1 + pl_rng_below(r, 12)) / 4, want = 0;
    for (int64_t t = lo; t < hi; t++) {
      double level = 0;
      for (size_t i = 0; i < na; i++)
        if (!skip[i] && S1[i] <= t && t < E1[i]) level += v[i];
      if (level > 0) want += level < cap ? level : cap;
    }
    TC_NEAR(pl_iv_step_integral(S1, E1, v, skip, na, cap, lo, hi), want, 1e-9);
    pl_iv_free(&a);
  }
  /* innermost: two groups of laminar ops; a query's answer is the shortest
  ** op of its group holding [qs, qe] (unique in a laminar family, ends
  ** included), or -1 */
  enum { NO = 400, NQ = 300 };
  int64_t os[NO], oe[NO], og[NO], qs[NQ], qe[NQ], qg[NQ], out[NQ];
  for (int iter = 0; iter < 50; iter++) {
    size_t n = 0;
    for (int g = 0; g < 2; g++) {
      size_t from = n;
      n = laminar(r, 0, 1000, 4, os, oe, n, NO / 2 * (size_t)(g + 1));
      for (size_t i = from; i < n; i++) og[i] = g * 7 + 3;
    }
    for (size_t i = n; i-- > 1;) { /* shuffle: any input order */
      size_t j = pl_rng_below(r, i + 1);
      int64_t t;
      t = os[i];
      os[i] = os[j];
      os[j] = t;
      t = oe[i];
      oe[i] = oe[j];
      oe[j] = t;
      t = og[i];
      og[i] = og[j];
      og[j] = t;
    }
    for (int k = 0; k < NQ; k++) {
      qs[k] = (int64_t)pl_rng_below(r, 1010) - 5;
      qe[k] = qs[k] + (pl_rng_below(r, 2) ? 0 : (int64_t)pl_rng_below(r, 20));
      qg[k] = pl_rng_below(r, 3) == 0 ? 10 : 3;
    }
    pl_iv_innermost(os, oe, og, NULL, n, qs, qe, qg, NULL, NQ, out);
    int ok = 1;
    for (int k = 0; k < NQ; k++) {
      long long want = -1;
      for (size_t i = 0; i < n; i++)
        if (og[i] == qg[k] && os[i] <= qs[k] && qe[k] <= oe[i] &&
            (want < 0 || oe[i] - os[i] < oe[want] - os[want] ||
             (oe[i] - os[i] == oe[want] - os[want] && i > (size_t)want))) /* equal ops: the later row */
          want = (long long)i;
      if (out[k] != want) ok = 0;
    }
    TC_CHECK(ok);
  }
  /* by hand: ops [0,100] [10,30] [50,60] on thread 1, [0,100] on thread 2 */
  int64_t hs[4] = { 0, 10, 50, 0 }, he[4] = { 100, 30, 60, 100 }, hg[4] = { 1, 1, 1, 2 };
  int64_t hq[5] = { 15, 55, 70, 5, 200 }, hqe[5] = { 16, 55, 71, 6, 201 }, hqg[5] = { 1, 1, 1, 2, 2 }, ho[5];
  unsigned char hskip[4] = { 0, 1, 0, 0 };
  pl_iv_innermost(hs, he, hg, NULL, 4, hq, hqe, hqg, NULL, 5, ho);
  TC_EQ_INT(ho[0], 1);
  TC_EQ_INT(ho[1], 2);
  TC_EQ_INT(ho[2], 0);
  TC_EQ_INT(ho[3], 3);
  TC_EQ_INT(ho[4], -1);
  pl_iv_innermost(hs, he, hg, hskip, 4, hq, hqe, hqg, NULL, 5, ho); /* [10,30] left out */
  TC_EQ_INT(ho[0], 0);
  /* pl_iv_innermost_ops (only the ops holding a point take part) gives the
  ** sweep over every op: random ops on two threads, overlapping, nested,
  ** equal, zero and missing durations, missing points, ties everywhere */
  for (int iter = 0; iter < 2000; iter++) {
    enum { MO = 60, MQ = 40 };
    int64_t st[MO], du[MO], at[MQ], ros[MO], roe[MO], rog[MO], rqs[MQ], rqg[MQ], o1[MQ], o2[MQ];
    uint32_t opid[MO], otid[MO], qpid[MQ], qtid[MQ];
    unsigned char oskip[MO], qskip[MQ];
    size_t n = pl_rng_below(r, MO + 1), m = pl_rng_below(r, MQ + 1);
    int span = 5 + (int)pl_rng_below(r, 60);
    for (size_t i = 0; i < n; i++) {
      st[i] = pl_rng_below(r, 20) == 0 ? PL_INT_NA : (int64_t)pl_rng_below(r, (uint64_t)span);
      du[i] = pl_rng_below(r, 20) == 0 ? PL_INT_NA : (int64_t)pl_rng_below(r, (uint64_t)span / 2 + 2) - 1;
      opid[i] = 1 + (uint32_t)pl_rng_below(r, 2);
      otid[i] = 7;
      oskip[i] = st[i] == PL_INT_NA || du[i] == PL_INT_NA || du[i] <= 0;
      ros[i] = st[i];
      roe[i] = oskip[i] ? 0 : st[i] + du[i] - 1;
      rog[i] = (int64_t)(((uint64_t)opid[i] << 32) | otid[i]);
    }
    for (size_t k = 0; k < m; k++) {
      at[k] = pl_rng_below(r, 15) == 0 ? PL_INT_NA : (int64_t)pl_rng_below(r, (uint64_t)span + 4) - 2;
      qpid[k] = 1 + (uint32_t)pl_rng_below(r, 2);
      qtid[k] = 7;
      qskip[k] = at[k] == PL_INT_NA;
      rqs[k] = at[k];
      rqg[k] = (int64_t)(((uint64_t)qpid[k] << 32) | qtid[k]);
    }
    pl_iv_innermost_ops(st, du, opid, otid, n, at, qpid, qtid, m, o1);
    pl_iv_innermost(ros, roe, rog, oskip, n, rqs, NULL, rqg, qskip, m, o2);
    int same = 1;
    for (size_t k = 0; k < m; k++) same &= o1[k] == o2[k];
    TC_CHECK(same);
  }
  /* series over windows vs unit cells (point samples hold to the next;
  ** interval samples add up where they overlap) */
  for (int iter = 0; iter < 300; iter++) {
    int64_t ts[10], te[10], a[8], b[8], at[8], cov[8];
    double v[10], area[8];
    size_t n = pl_rng_below(r, 10);
    int64_t t = (int64_t)pl_rng_below(r, 10);
    for (size_t k = 0; k < n; k++) {
      t += (int64_t)pl_rng_below(r, 6);
      ts[k] = t;
      te[k] = t + (int64_t)pl_rng_below(r, 12);
      v[k] = ((double)pl_rng_below(r, 13) - 4) / 2;
    }
    for (int j = 0; j < 8; j++) {
      a[j] = (int64_t)pl_rng_below(r, 70) - 5;
      b[j] = a[j] + (int64_t)pl_rng_below(r, 24) - 3;
    }
    for (int iv = 0; iv < 2; iv++) {
      pl_iv_series_windows(ts, iv ? te : NULL, v, n, a, b, 8, area, cov, at);
      int ok = 1;
      for (int j = 0; j < 8; j++) {
        double wa = 0;
        int64_t wc = 0;
        long long wat = -1;
        for (int64_t x = a[j]; x < b[j]; x++) {
          if (iv) {
            for (size_t k = 0; k < n; k++)
              if (ts[k] <= x && x < te[k]) {
                wa += v[k];
                wc++;
              }
          } else {
            long long last = -1;
            for (size_t k = 0; k < n; k++)
              if (ts[k] <= x) last = (long long)k;
            if (last >= 0) {
              wa += v[last];
              wc++;
            }
          }
        }
        for (size_t k = 0; k < n; k++)
          if (ts[k] <= a[j]) wat = (long long)k;
        if (iv && wat >= 0 && te[wat] < a[j]) wat = -1;
        if (fabs(area[j] - wa) > 1e-9 || cov[j] != wc || at[j] != wat) ok = 0;
      }
      TC_CHECK(ok);
      /* summed per group (windows 0..7 in groups j % 3, window 7 in none):
      ** left to right in window order, so equal to the bit */
      int64_t grp[8], gc[3], gn[3];
      double ga[3], gp[3], wa2[3] = { 0, 0, 0 }, wp2[3] = { 0, 0, 0 };
      int64_t wc2[3] = { 0, 0, 0 }, wn2[3] = { 0, 0, 0 };
      for (int j = 0; j < 8; j++) {
        grp[j] = j == 7 ? -1 : j % 3;
        if (j == 7) continue;
        wa2[j % 3] += area[j];
        wc2[j % 3] += cov[j];
        if (cov[j] == 0 && at[j] >= 0) {
          wp2[j % 3] += v[at[j]];
          wn2[j % 3]++;
        }
      }
      pl_iv_series_groups(ts, iv ? te : NULL, v, n, a, b, grp, 8, 3, ga, gc, gp, gn);
      for (int g = 0; g < 3; g++) TC_CHECK(ga[g] == wa2[g] && gc[g] == wc2[g] && gp[g] == wp2[g] && gn[g] == wn2[g]);
    }
  }
  /* step integral by hand: [0,10) 0.5 and [5,20) 0.75, cap 1: 2.5 + 5 + 7.5 */
  int64_t ss[2] = { 0, 5 }, se[2] = { 10, 20 };
  double sv[2] = { 0.5, 0.75 };
  TC_NEAR(pl_iv_step_integral(ss, se, sv, NULL, 2, 1.0, 0, 100), 15.0, 1e-12);
  TC_NEAR(pl_iv_step_integral(ss, se, sv, NULL, 2, INFINITY, 0, 100), 16.25, 1e-12);
  TC_NEAR(pl_iv_step_integral(ss, se, sv, NULL, 2, 1.0, 6, 12), 5.5, 1e-12);
}

/* first_window against the loop it replaces: the tb-profiler plugin's merge
** of the queries sorted by start (a stable insertion sort here, ties in
** index order) against the windows in order (a query before the current
** window's start gets none, one that ends by its end gets it, one that
** starts inside and ends after it gets none, one that starts at or after
** its end moves to the next window), on random windows that follow one
** another, overlap, nest, are empty or inverted, and random queries
** (sorted, or in any order), zero-length ones included.  Plus one case
** worked by hand. */
static void test_first_window(pl_rng *r) {
  /* by hand: windows [0,10] [10,20] [15,40]; in start order: [-5,-1]
  ** starts before window 1 -> none; [2,5] -> 1; [8,12] starts in window 1
  ** and ends after it -> none; [10,20] starts at window 1's end -> window
  ** 2, which holds it (ends included) -> 2; [25,30] -> past window 2's end
  ** -> 3; [40,41] -> past every window -> none; a skipped query -> none */
  int64_t ws[3] = { 0, 10, 15 }, we[3] = { 10, 20, 40 };
  int64_t qs[7] = { 2, 8, 10, 25, -5, 40, 3 }, qe[7] = { 5, 12, 20, 30, -1, 41, 4 };
  unsigned char qk[7] = { 0, 0, 0, 0, 0, 0, 1 };
  size_t ord[7];
  int64_t out[7];
  pl_iv_first_window(ws, we, 3, qs, qe, qk, 7, ord, out);
  int64_t want[7] = { 0, -1, 1, 2, -1, -1, -1 };
  for (int k = 0; k < 7; k++) TC_EQ_INT(out[k], want[k]);
  for (int iter = 0; iter < 3000; iter++) {
    int64_t S[12], E[12], a[60], b[60], got[60], model[60];
    size_t ordr[60], idx[60];
    size_t nw = (size_t)pl_rng_below(r, 13), m = 60;
    int64_t t = 0;
    for (size_t w = 0; w < nw; w++) {
      t += (int64_t)pl_rng_below(r, 12) - (iter % 3 == 0 ? 5 : 0); /* every third: starts may go back */
      S[w] = t;
      E[w] = t + (int64_t)pl_rng_below(r, 25) - (iter % 5 == 0 ? 3 : 0); /* some inverted */
    }
    for (size_t k = 0; k < m; k++) {
      a[k] = (int64_t)pl_rng_below(r, 140) - 10;
      b[k] = a[k] + (int64_t)pl_rng_below(r, 15) - (iter % 7 == 0 ? 2 : 0);
    }
    if (iter % 2) { /* sorted queries: no sort inside */
      for (size_t k = 1; k < m; k++)
        for (size_t j = k; j > 0 && a[j] < a[j - 1]; j--) {
          int64_t x = a[j];
          a[j] = a[j - 1];
          a[j - 1] = x;
          x = b[j];
          b[j] = b[j - 1];
          b[j - 1] = x;
        }
    }
    pl_iv_first_window(S, E, nw, a, b, NULL, m, ordr, got);
    for (size_t k = 0; k < m; k++) {
      model[k] = -1;
      idx[k] = k;
    }
    for (size_t k = 1; k < m; k++)
      for (size_t j = k; j > 0 && a[idx[j]] < a[idx[j - 1]]; j--) {
        size_t x = idx[j];
        idx[j] = idx[j - 1];
        idx[j - 1] = x;
      }
    size_t w = 0, k = 0;
    while (w < nw && k < m) {
      size_t q = idx[k];
      if (a[q] < S[w]) k++;
      else if (b[q] <= E[w]) {
        model[q] = (int64_t)w;
        k++;
      } else if (a[q] < E[w]) k++;
      else w++;
    }
    int ok = 1;
    for (size_t q = 0; q < m; q++)
      if (got[q] != model[q]) ok = 0;
    TC_CHECK(ok);
  }
}

/* step_integral against the same integral over the steps sorted by qsort
** with the documented order (time, a start before an end, index): equal to
** the bit, on random intervals with many ties, zero-length and inverted
** ones, sorted or not, with a cap and a window. */
typedef struct rstep {
  int64_t t;
  size_t idx;
  int end;
} rstep;
static int rstep_cmp(const void *pa, const void *pb) {
  const rstep *a = pa, *b = pb;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  if (a->end != b->end) return a->end - b->end;
  return (a->idx > b->idx) - (a->idx < b->idx);
}
static double ref_integral(const int64_t *s, const int64_t *e, const double *v, size_t n, double cap, int64_t lo,
                           int64_t hi) {
  rstep *p = malloc((2 * n + 1) * sizeof *p);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (e[i] < s[i]) continue;
    p[k].t = s[i];
    p[k].idx = i;
    p[k].end = 0;
    k++;
    p[k].t = e[i];
    p[k].idx = i;
    p[k].end = 1;
    k++;
  }
  double total = 0, level = 0;
  qsort(p, k, sizeof *p, rstep_cmp);
  for (size_t j = 0; j < k; j++) {
    if (j > 0 && p[j].t > p[j - 1].t && level > 0) {
      int64_t a = p[j - 1].t > lo ? p[j - 1].t : lo, b = p[j].t < hi ? p[j].t : hi;
      if (b > a) total += (level < cap ? level : cap) * (double)(b - a);
    }
    if (p[j].end) level -= v[p[j].idx];
    else level += v[p[j].idx];
  }
  free(p);
  return total;
}
static void test_step_integral_order(pl_rng *r) {
  for (int iter = 0; iter < 500; iter++) {
    size_t n = (size_t)pl_rng_below(r, 200);
    int64_t S[200], E[200];
    double V[200];
    int64_t t = 0;
    for (size_t i = 0; i < n; i++) {
      if (iter % 2) t += (int64_t)pl_rng_below(r, 4);
      else t = (int64_t)pl_rng_below(r, 300);
      S[i] = t;
      E[i] = t + (int64_t)pl_rng_below(r, 30) - 2;
      V[i] = (double)((int64_t)pl_rng_below(r, 1000) - 100) / 7.0; /* not exact in binary: order shows */
    }
    double cap = iter % 3 ? INFINITY : 1.5;
    int64_t lo = iter % 4 ? INT64_MIN : 20, hi = iter % 4 ? INT64_MAX : 250;
    double got = pl_iv_step_integral(S, E, V, NULL, n, cap, lo, hi), want = ref_integral(S, E, V, n, cap, lo, hi);
    TC_CHECK(memcmp(&got, &want, sizeof got) == 0);
  }
}


/* pl_iv_sum_within against a brute-force count and sum per window */
static void test_sum_within(pl_rng *r) {
  for (int iter = 0; iter < 300; iter++) {
    size_t nw = (size_t)pl_rng_below(r, 40), np = (size_t)pl_rng_below(r, 120);
    int64_t ws[40], we[40], wg[40], pt[120], pg[120], v0[120], v1[120];
    unsigned char wskip[40], pskip[120];
    for (size_t w = 0; w < nw; w++) {
      ws[w] = (int64_t)pl_rng_below(r, 100);
      we[w] = ws[w] + (int64_t)pl_rng_below(r, 40) - 3;
      wg[w] = (int64_t)pl_rng_below(r, 3);
      wskip[w] = pl_rng_below(r, 10) == 0;
    }
    for (size_t k = 0; k < np; k++) {
      pt[k] = (int64_t)pl_rng_below(r, 140);
      pg[k] = (int64_t)pl_rng_below(r, 3);
      v0[k] = (int64_t)pl_rng_below(r, 1000) - 500;
      v1[k] = (int64_t)pl_rng_below(r, 7);
      pskip[k] = pl_rng_below(r, 8) == 0;
    }
    const int64_t *vals[2] = { v0, v1 };
    int64_t count[40], s0[40], s1[40], *sums[2] = { s0, s1 };
    pl_iv_sum_within(ws, we, wg, wskip, nw, pt, pg, pskip, np, vals, 2, count, sums);
    for (size_t w = 0; w < nw; w++) {
      int64_t c = 0, a = 0, b = 0;
      for (size_t k = 0; k < np; k++)
        if (!wskip[w] && !pskip[k] && pg[k] == wg[w] && pt[k] >= ws[w] && pt[k] < we[w]) {
          c++;
          a += v0[k];
          b += v1[k];
        }
      TC_EQ_INT(count[w], c);
      TC_EQ_INT(s0[w], a);
      TC_EQ_INT(s1[w], b);
    }
  }
}

/* pl_iv_parents on random trees: intervals built as a call tree, so each
** one's parent is known */
static void test_parents(pl_rng *r) {
  for (int iter = 0; iter < 300; iter++) {
    int64_t s[64], e[64], g[64], want[64], out[64];
    size_t n = 0;
    /* a recursive layout: node i gets [lo, hi) and children inside it */
    struct {
      int64_t lo, hi;
      int64_t parent;
      int depth;
    } q[64];
    size_t nq = 0;
    int64_t grp = (int64_t)pl_rng_below(r, 2);
    q[nq].lo = 0;
    q[nq].hi = 1000000;
    q[nq].parent = -1;
    q[nq].depth = 0;
    nq++;
    for (size_t h = 0; h < nq && n < 64; h++) {
      size_t i = n++;
      s[i] = q[h].lo;
      e[i] = q[h].hi;
      g[i] = grp;
      want[i] = q[h].parent;
      if (q[h].depth >= 4) continue;
      int kids = (int)pl_rng_below(r, 4);
      int64_t span = q[h].hi - q[h].lo, at = q[h].lo;
      for (int c = 0; c < kids && nq < 64; c++) {
        int64_t lo = at + (int64_t)pl_rng_below(r, 2) * (span / 16); /* may start with its parent */
        int64_t hi = lo + span / 8;
        if (hi > q[h].hi) break;
        q[nq].lo = lo;
        q[nq].hi = hi;
        q[nq].parent = (int64_t)i;
        q[nq].depth = q[h].depth + 1;
        nq++;
        at = hi;
      }
    }
    /* a second group with the same times: no parent across groups */
    size_t n1 = n;
    for (size_t i = 0; i < n1 && n < 64; i++) {
      s[n] = s[i];
      e[n] = e[i];
      g[n] = 5;
      want[n] = want[i] < 0 ? -1 : want[i] + (int64_t)n1;
      n++;
    }
    if (n < 2 * n1) continue;
    pl_iv_parents(s, e, g, NULL, n, out);
    for (size_t i = 0; i < n; i++) TC_EQ_INT(out[i], want[i]);
  }
}

int main(void) {
  pl_rng r;
  pl_rng_seed(&r, 2024);
  test_sum_within(&r);
  test_parents(&r);
  int64_t S1[16], E1[16], S2[16], E2[16];
  for (int iter = 0; iter < 3000; iter++) {
    pl_ivset a, b, o;
    bits ma, mb, mo;
    size_t na, nb;
    random_set(&r, &a, &ma, S1, E1, &na);
    random_set(&r, &b, &mb, S2, E2, &nb);
    TC_CHECK(same(&a, &ma));
    TC_CHECK(same(&b, &mb));

    pl_iv_union(&o, &a, &b);
    for (int t = 0; t < W; t++) mo.c[t] = ma.c[t] | mb.c[t];
    TC_CHECK(same(&o, &mo));
    pl_iv_free(&o);

    pl_iv_intersect(&o, &a, &b);
    for (int t = 0; t < W; t++) mo.c[t] = ma.c[t] & mb.c[t];
    TC_CHECK(same(&o, &mo));
    pl_iv_free(&o);

    pl_iv_subtract(&o, &a, &b);
    for (int t = 0; t < W; t++) mo.c[t] = ma.c[t] & !mb.c[t];
    TC_CHECK(same(&o, &mo));
    pl_iv_free(&o);

    int64_t lo = (int64_t)pl_rng_below(&r, W), hi = (int64_t)pl_rng_below(&r, W);
    pl_iv_clip(&o, &a, lo, hi);
    for (int t = 0; t < W; t++) mo.c[t] = ma.c[t] && t >= lo && t < hi;
    TC_CHECK(same(&o, &mo));
    pl_iv_free(&o);

    pl_iv_complement(&o, &a, lo, hi);
    for (int t = 0; t < W; t++) mo.c[t] = !ma.c[t] && t >= lo && t < hi;
    TC_CHECK(same(&o, &mo));
    pl_iv_free(&o);

    pl_iv_gaps(&o, &a);
    int first = -1, last = -1;
    for (int t = 0; t < W; t++)
      if (ma.c[t]) {
        if (first < 0) first = t;
        last = t;
      }
    for (int t = 0; t < W; t++) mo.c[t] = first >= 0 && !ma.c[t] && t > first && t < last;
    TC_CHECK(same(&o, &mo));
    TC_EQ_INT(o.n, a.n ? a.n - 1 : 0);
    pl_iv_free(&o);

    int64_t len = 0;
    for (int t = 0; t < W; t++) len += ma.c[t];
    TC_EQ_INT(pl_iv_length(&a), len);
    int ok = 1;
    for (int64_t t = -3; t < W + 3; t++)
      if (pl_iv_contains(&a, t) != (t >= 0 && t < W && ma.c[t])) ok = 0;
    TC_CHECK(ok);
    /* the double entry point gives the same set */
    double dS[16], dE[16];
    for (size_t i = 0; i < na; i++) {
      dS[i] = (double)S1[i];
      dE[i] = (double)E1[i];
    }
    pl_ivset d;
    TC_EQ_INT(pl_iv_build_d(&d, dS, dE, na, 1, NULL), 0);
    TC_CHECK(same(&d, &ma));
    pl_iv_free(&d);
    pl_iv_free(&a);
    pl_iv_free(&b);
  }

  /* worked by hand: [1,3) [3,5) touch -> [1,5); [7,7) empty; [8,12) holds [9,10) */
  int64_t s[5] = { 3, 1, 7, 9, 8 }, e[5] = { 5, 3, 7, 10, 12 };
  pl_ivset a;
  TC_EQ_INT(pl_iv_build(&a, s, e, 5, 1, NULL), 0);
  TC_EQ_INT(a.n, 2);
  TC_EQ_INT(a.s[0], 1);
  TC_EQ_INT(a.e[0], 5);
  TC_EQ_INT(a.s[1], 8);
  TC_EQ_INT(a.e[1], 12);
  TC_EQ_INT(pl_iv_length(&a), 8);
  TC_CHECK(pl_iv_contains(&a, 1) && !pl_iv_contains(&a, 5) && pl_iv_contains(&a, 11) && !pl_iv_contains(&a, 12));
  pl_iv_free(&a);
  /* end before start: strict -> error with its index; otherwise empty, dropped */
  int64_t bs[3] = { 0, 5, 9 }, be[3] = { 1, 4, 10 };
  size_t bad = 99;
  TC_EQ_INT(pl_iv_build(&a, bs, be, 3, 1, &bad), -1);
  TC_EQ_INT(bad, 1);
  TC_EQ_INT(pl_iv_build(&a, bs, be, 3, 0, &bad), 0);
  TC_EQ_INT(a.n, 2);
  TC_EQ_INT(a.s[1], 9);
  TC_EQ_INT(pl_iv_length(&a), 2);
  pl_iv_free(&a);
  double ds[2] = { 0, NAN }, de[2] = { 1, 2 };
  TC_EQ_INT(pl_iv_build_d(&a, ds, de, 2, 0, &bad), -1);
  TC_EQ_INT(bad, 1);
  /* empty input */
  TC_EQ_INT(pl_iv_build(&a, bs, be, 0, 1, NULL), 0);
  TC_EQ_INT(a.n, 0);
  TC_EQ_INT(pl_iv_length(&a), 0);
  TC_CHECK(!pl_iv_contains(&a, 0));
  pl_iv_free(&a);
  /* big timestamps keep nanoseconds (beyond 2^53) */
  int64_t bs2[2] = { 1700000000000000001LL, 1700000000000000003LL },
          be2[2] = { 1700000000000000002LL, 1700000000000000004LL };
  TC_EQ_INT(pl_iv_build(&a, bs2, be2, 2, 1, NULL), 0);
  TC_EQ_INT(a.n, 2);
  TC_EQ_INT(pl_iv_length(&a), 2);
  pl_iv_free(&a);

  /* 200000 random intervals (radix path) vs. a sort-by-start merge model */
  enum { N = 200000 };
  int64_t *S = malloc(N * sizeof *S), *E = malloc(N * sizeof *E);
  for (size_t i = 0; i < N; i++) {
    S[i] = (int64_t)pl_rng_below(&r, 1000000000) - 500000000;
    E[i] = S[i] + (int64_t)pl_rng_below(&r, 6000);
  }
  TC_EQ_INT(pl_iv_build(&a, S, E, N, 1, NULL), 0);
  pl_ivset m;
  pl_iv_init(&m);
  /* model: insertion into start order via qsort of indices, then merge */
  size_t *ord = malloc(N * sizeof *ord);
  for (size_t i = 0; i < N; i++) ord[i] = i;
  /* simple shell sort on starts to stay independent of the radix code */
  for (size_t gap = N / 2; gap > 0; gap /= 2)
    for (size_t i = gap; i < N; i++) {
      size_t v = ord[i], j = i;
      while (j >= gap && S[ord[j - gap]] > S[v]) {
        ord[j] = ord[j - gap];
        j -= gap;
      }
      ord[j] = v;
    }
  for (size_t i = 0; i < N; i++) pl_iv_push(&m, S[ord[i]], E[ord[i]]);
  int eq = a.n == m.n;
  for (size_t i = 0; eq && i < a.n; i++) eq = a.s[i] == m.s[i] && a.e[i] == m.e[i];
  TC_CHECK(eq);
  TC_CHECK(normal_form(&a));
  free(ord);
  free(S);
  free(E);
  pl_iv_free(&a);
  pl_iv_free(&m);
  test_queries(&r);
  test_first_window(&r);
  test_step_integral_order(&r);
  return tc_done();
}

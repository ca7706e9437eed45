/*
** intervals.c -- see intervals.h.
**
** Normalising n intervals sorts the starts and the ends separately (radix
** sort, stats.c) and walks them once: with S and E ascending, the covered
** depth just after E[k] is (#S <= t) - (#E <= t), which is 0 exactly when
** S[k+1] > E[k] -- so a union interval closes at E[k] iff the next start is
** strictly beyond it (a start equal to E[k] touches and continues it).  No
** pairing of starts with their own ends is needed.
*/
#include "intervals.h"
#include "stats.h"
#include "pl_util.h"
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pl_iv_init(pl_ivset *a) { memset(a, 0, sizeof *a); }

void pl_iv_free(pl_ivset *a) {
  free(a->s);
  free(a->e);
  memset(a, 0, sizeof *a);
}

static void reserve(pl_ivset *a, size_t n) {
  if (n <= a->cap) return;
  size_t c = a->cap ? a->cap : 8;
  while (c < n) c *= 2;
  a->s = pl_xrealloc(a->s, c * sizeof *a->s);
  a->e = pl_xrealloc(a->e, c * sizeof *a->e);
  a->cap = c;
}

void pl_iv_push(pl_ivset *a, int64_t s, int64_t e) {
  if (s >= e) return;
  if (a->n > 0 && s <= a->e[a->n - 1]) {
    if (e > a->e[a->n - 1]) a->e[a->n - 1] = e;
    return;
  }
  if (a->n == a->cap) reserve(a, a->n + 1);
  a->s[a->n] = s;
  a->e[a->n] = e;
  a->n++;
}

int pl_iv_build(pl_ivset *out, const int64_t *start, const int64_t *end, size_t n, int strict, size_t *bad) {
  pl_iv_init(out);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (strict && end[i] < start[i]) {
      if (bad) *bad = i;
      return -1;
    }
    if (end[i] > start[i]) m++;
  }
  if (m == 0) return 0;
  int64_t *S = pl_xmalloc(m * sizeof *S), *E = pl_xmalloc(m * sizeof *E);
  for (size_t i = 0, k = 0; i < n; i++)
    if (end[i] > start[i]) {
      S[k] = start[i];
      E[k] = end[i];
      k++;
    }
  /* already sorted input (the common case for timelines) skips the sort */
  int sorted_s = 1, sorted_e = 1;
  for (size_t k = 1; k < m; k++) {
    if (S[k] < S[k - 1]) sorted_s = 0;
    if (E[k] < E[k - 1]) sorted_e = 0;
  }
  if (!sorted_s) pl_radix_sort_i64(S, m);
  if (!sorted_e) pl_radix_sort_i64(E, m);
  /* count the output first, then fill S/E in place (out index <= k) */
  size_t o = 0;
  int64_t cur = S[0];
  for (size_t k = 0; k < m; k++) {
    if (k + 1 == m || S[k + 1] > E[k]) {
      S[o] = cur;
      E[o] = E[k];
      o++;
      if (k + 1 < m) cur = S[k + 1];
    }
  }
  out->s = pl_xrealloc(S, o * sizeof *S);
  out->e = pl_xrealloc(E, o * sizeof *E);
  out->n = out->cap = o;
  return 0;
}

static int d2i(double d, int64_t *v) {
  if (!(d >= -9.2233720368547748e18 && d < 9.2233720368547748e18)) return -1;
  *v = (int64_t)llround(d);
  return 0;
}

int pl_iv_build_d(pl_ivset *out, const double *start, const double *end, size_t n, int strict, size_t *bad) {
  pl_iv_init(out);
  int64_t *S = pl_xmalloc((n ? n : 1) * sizeof *S), *E = pl_xmalloc((n ? n : 1) * sizeof *E);
  for (size_t i = 0; i < n; i++) {
    if (d2i(start[i], &S[i]) || d2i(end[i], &E[i])) {
      free(S);
      free(E);
      if (bad) *bad = i;
      return -1;
    }
  }
  int r = pl_iv_build(out, S, E, n, strict, bad);
  free(S);
  free(E);
  return r;
}

void pl_iv_copy(pl_ivset *out, const pl_ivset *a) {
  pl_iv_init(out);
  reserve(out, a->n);
  if (a->n) {
    memcpy(out->s, a->s, a->n * sizeof *a->s);
    memcpy(out->e, a->e, a->n * sizeof *a->e);
  }
  out->n = a->n;
}

void pl_iv_union(pl_ivset *out, const pl_ivset *a, const pl_ivset *b) {
  pl_iv_init(out);
  reserve(out, a->n + b->n);
  size_t i = 0, j = 0;
  while (i < a->n || j < b->n) {
    if (j >= b->n || (i < a->n && a->s[i] <= b->s[j])) {
      pl_iv_push(out, a->s[i], a->e[i]);
      i++;
    } else {
      pl_iv_push(out, b->s[j], b->e[j]);
      j++;
    }
  }
}

void pl_iv_intersect(pl_ivset *out, const pl_ivset *a, const pl_ivset *b) {
  pl_iv_init(out);
  size_t i = 0, j = 0;
  while (i < a->n && j < b->n) {
    int64_t lo = a->s[i] > b->s[j] ? a->s[i] : b->s[j];
    int64_t hi = a->e[i] < b->e[j] ? a->e[i] : b->e[j];
    if (lo < hi) pl_iv_push(out, lo, hi);
    if (a->e[i] < b->e[j]) i++;
    else j++;
  }
}

void pl_iv_subtract(pl_ivset *out, const pl_ivset *a, const pl_ivset *b) {
  pl_iv_init(out);
  size_t j = 0;
  for (size_t i = 0; i < a->n; i++) {
    int64_t s = a->s[i], e = a->e[i];
    while (j < b->n && b->e[j] <= s) j++; /* b entirely before */
    size_t k = j;
    while (k < b->n && b->s[k] < e) { /* b overlapping [s, e) */
      if (b->s[k] > s) pl_iv_push(out, s, b->s[k]);
      if (b->e[k] > s) s = b->e[k];
      if (s >= e) break;
      k++;
    }
    if (s < e) pl_iv_push(out, s, e);
  }
}

void pl_iv_clip(pl_ivset *out, const pl_ivset *a, int64_t lo, int64_t hi) {
  pl_ivset w = { &lo, &hi, lo < hi ? 1 : 0, 1 };
  pl_iv_intersect(out, a, &w);
}

void pl_iv_complement(pl_ivset *out, const pl_ivset *a, int64_t lo, int64_t hi) {
  pl_ivset w = { &lo, &hi, lo < hi ? 1 : 0, 1 };
  pl_iv_subtract(out, &w, a);
}

void pl_iv_gaps(pl_ivset *out, const pl_ivset *a) {
  pl_iv_init(out);
  if (a->n > 1) reserve(out, a->n - 1);
  for (size_t i = 0; i + 1 < a->n; i++) pl_iv_push(out, a->e[i], a->s[i + 1]);
}

int64_t pl_iv_length(const pl_ivset *a) {
  int64_t t = 0;
  for (size_t i = 0; i < a->n; i++) {
    uint64_t d = (uint64_t)a->e[i] - (uint64_t)a->s[i]; /* no signed overflow */
    if (d > (uint64_t)(INT64_MAX - t)) return INT64_MAX;
    t += (int64_t)d;
  }
  return t;
}

long long pl_iv_find(const pl_ivset *a, int64_t t) {
  /* last interval with s <= t */
  size_t lo = 0, hi = a->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a->s[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return -1;
  return t < a->e[lo - 1] ? (long long)(lo - 1) : -1;
}

int pl_iv_contains(const pl_ivset *a, int64_t t) { return pl_iv_find(a, t) >= 0; }

int64_t pl_iv_length_within(const pl_ivset *a, int64_t lo, int64_t hi) {
  if (hi <= lo || a->n == 0) return 0;
  size_t l = 0, h = a->n; /* first interval with e > lo */
  while (l < h) {
    size_t mid = l + (h - l) / 2;
    if (a->e[mid] > lo) h = mid;
    else l = mid + 1;
  }
  int64_t t = 0;
  for (size_t i = l; i < a->n && a->s[i] < hi; i++) {
    int64_t x = a->s[i] < lo ? lo : a->s[i], y = a->e[i] > hi ? hi : a->e[i];
    if (y > x) t += y - x;
  }
  return t;
}

void pl_iv_locate(const pl_ivset *a, const int64_t *t, size_t m, int64_t *out) {
  size_t j = 0;
  for (size_t k = 0; k < m; k++) {
    if (k > 0 && t[k] < t[k - 1]) { /* out of order: binary search */
      out[k] = pl_iv_find(a, t[k]);
      j = out[k] >= 0 ? (size_t)out[k] : 0;
      continue;
    }
    while (j < a->n && a->e[j] <= t[k]) j++;
    out[k] = (j < a->n && a->s[j] <= t[k]) ? (int64_t)j : -1;
  }
}

/* ---- innermost enclosing op -------------------------------------------- */

typedef struct ivitem {
  int64_t g, s, e;
  size_t idx;
  int kind;
} ivitem;

static int item_cmp(const void *pa, const void *pb) {
  const ivitem *a = pa, *b = pb;
  if (a->g != b->g) return a->g < b->g ? -1 : 1;
  if (a->s != b->s) return a->s < b->s ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1; /* ops first */
  if (a->e != b->e) return a->e > b->e ? -1 : 1;             /* longer first */
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Sorts a[0..n) by item_cmp in place (qsort's merge sort takes a copy of
** the array: tens of MB at the end of a large trace's read).  item_cmp is
** a total order (idx is unique per kind), so the result is qsort's.
** Quicksort, median of three, the smaller side first; heapsort below a
** depth of 2 log2 n; insertion sort for short runs. */
static void item_sift(ivitem *a, size_t i, size_t n) {
  ivitem x = a[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && item_cmp(&a[c], &a[c + 1]) < 0) c++;
    if (item_cmp(&x, &a[c]) >= 0) break;
    a[i] = a[c];
    i = c;
  }
  a[i] = x;
}

static void items_sort(ivitem *a, size_t n, int depth) {
  while (n > 16) {
    if (depth-- <= 0) {
      for (size_t i = n / 2; i-- > 0;) item_sift(a, i, n);
      for (size_t e = n; e-- > 1;) {
        ivitem t = a[0];
        a[0] = a[e];
        a[e] = t;
        item_sift(a, 0, e);
      }
      return;
    }
    size_t mid = n / 2;
    ivitem t;
#define IV_SWAP(x, y) (t = a[x], a[x] = a[y], a[y] = t)
    if (item_cmp(&a[mid], &a[0]) < 0) IV_SWAP(mid, 0);
    if (item_cmp(&a[n - 1], &a[mid]) < 0) {
      IV_SWAP(n - 1, mid);
      if (item_cmp(&a[mid], &a[0]) < 0) IV_SWAP(mid, 0);
    }
    ivitem pv = a[mid];
    size_t i = 0, j = n - 1;
    for (;;) { /* Hoare: a[0] <= pv <= a[n-1] stop the scans */
      while (item_cmp(&a[i], &pv) < 0) i++;
      while (item_cmp(&pv, &a[j]) < 0) j--;
      if (i >= j) break;
      IV_SWAP(i, j);
      i++;
      j--;
    }
#undef IV_SWAP
    /* [0, j] <= pv <= [j+1, n) */
    size_t nl = j + 1, nr = n - nl;
    if (nl < nr) {
      items_sort(a, nl, depth);
      a += nl;
      n = nr;
    } else {
      items_sort(a + nl, nr, depth);
      n = nl;
    }
  }
  for (size_t i = 1; i < n; i++) {
    ivitem x = a[i];
    size_t j = i;
    while (j > 0 && item_cmp(&x, &a[j - 1]) < 0) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = x;
  }
}

/* The sweep of pl_iv_innermost over its k items (ops and queries, n ops at most). */
static void innermost_items(ivitem *it, size_t k, size_t n, int64_t *out) {
  int depth = 0;
  for (size_t x = k; x > 1; x >>= 1) depth += 2;
  items_sort(it, k, depth);
  size_t *stack = pl_xmalloc((n ? n : 1) * sizeof *stack), top = 0;
  for (size_t i = 0; i < k; i++) {
    if (i == 0 || it[i].g != it[i - 1].g) top = 0; /* a new group */
    if (it[i].kind == 0) {                         /* an op: close what it outlasts */
      while (top > 0 && it[stack[top - 1]].e < it[i].e) top--;
      stack[top++] = i;
    } else { /* a query: close what ended before it */
      while (top > 0 && it[stack[top - 1]].e < it[i].s) top--;
      size_t j = top; /* the innermost open op reaching its end */
      while (j > 0 && it[stack[j - 1]].e < it[i].e) j--;
      if (j > 0) out[it[i].idx] = (int64_t)it[stack[j - 1]].idx;
    }
  }
  free(stack);
}

void pl_iv_innermost(const int64_t *os, const int64_t *oe, const int64_t *og, const unsigned char *oskip, size_t n,
                     const int64_t *qs, const int64_t *qe, const int64_t *qg, const unsigned char *qskip, size_t m,
                     int64_t *out) {
  for (size_t k = 0; k < m; k++) out[k] = -1;
  ivitem *it = pl_xmalloc((n + m ? n + m : 1) * sizeof *it);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (!oskip || !oskip[i]) it[k++] = (ivitem){ og ? og[i] : 0, os[i], oe[i], i, 0 };
  for (size_t i = 0; i < m; i++)
    if (!qskip || !qskip[i]) it[k++] = (ivitem){ qg ? qg[i] : 0, qs[i], qe ? qe[i] : qs[i], i, 1 };
  innermost_items(it, k, n, out);
  free(it);
}

typedef struct ivpoint {
  int64_t g, t;
} ivpoint;
static int point_cmp(const void *pa, const void *pb) {
  const ivpoint *a = pa, *b = pb;
  if (a->g != b->g) return a->g < b->g ? -1 : 1;
  return (a->t > b->t) - (a->t < b->t);
}

/* The first point in p[lo, hi) at or past time s (hi: none); the points
** of one group, sorted by time. */
static size_t point_from(const ivpoint *p, size_t lo, size_t hi, int64_t s) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p[mid].t < s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* A group's run of points [lo, hi) in the sorted points, and where its
** last search ended: at, the first point at or past time s.  The ops of a
** thread mostly come in time order, so the next search gallops from there
** instead of a binary search over every point (the 1 GB bench trace's
** 733 k ops: a third of the serial time after its read). */
typedef struct ivgroup {
  int64_t g, s;
  size_t lo, hi, at;
} ivgroup;

/* Does a point of group g lie in [s, e]?  G: the ng groups, by g. */
static int points_within(const ivpoint *p, ivgroup *G, size_t ng, int64_t g, int64_t s, int64_t e) {
  size_t lo = 0, hi = ng;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (G[mid].g < g) lo = mid + 1;
    else hi = mid;
  }
  if (lo == ng || G[lo].g != g) return 0;
  ivgroup *q = &G[lo];
  size_t i = q->at;                                 /* every point before at is before q->s */
  if (s < q->s) i = point_from(p, q->lo, q->at, s); /* and p[at] (if any) past s */
  else if (i < q->hi && p[i].t < s) { /* gallop: p[a] before s */ size_t a = i, b = i + 1, step = 1;
    while (b < q->hi && p[b].t < s) {
      a = b;
      step *= 2;
      b = a + step;
    }
    i = point_from(p, a + 1, b < q->hi ? b : q->hi, s);
  }
  q->at = i;
  q->s = s;
  return i < q->hi && p[i].t <= e;
}

/* Only the ops that hold a query point take part: the many that hold none
** (most operators of a trace hold no allocator event) are never an answer
** and never hide one.  Such an op X is popped before any later point q is
** answered (X.s <= q.s, q not in X: X.e < q.s); an op it pops on entry
** ends before it, so before any later point too; and an op Y that stops
** at X (Y.e <= X.e, inside X) holds no point either, so what X kept below
** it ends before Y and goes with it.  The items then take (kept ops +
** points) x 40 bytes instead of (all ops + points): 30 MB less at the end
** of the 1 GB bench trace's read, where the reader's peak was. */
void pl_iv_innermost_ops(const int64_t *start, const int64_t *dur, const uint32_t *opid, const uint32_t *otid, size_t n,
                         const int64_t *at, const uint32_t *qpid, const uint32_t *qtid, size_t m, int64_t *out) {
  for (size_t k = 0; k < m; k++) out[k] = -1;
  ivpoint *pt = pl_xmalloc((m ? m : 1) * sizeof *pt);
  size_t np = 0;
  for (size_t i = 0; i < m; i++)
    if (at[i] != PL_INT_NA) pt[np++] = (ivpoint){ (int64_t)(((uint64_t)qpid[i] << 32) | qtid[i]), at[i] };
  if (np == 0) {
    free(pt);
    return;
  }
  qsort(pt, np, sizeof *pt, point_cmp);
  ivgroup *G = pl_xmalloc(np * sizeof *G);
  size_t ng = 0;
  for (size_t i = 0; i < np; i++)
    if (i == 0 || pt[i].g != pt[i - 1].g) {
      if (ng) G[ng - 1].hi = i;
      G[ng++] = (ivgroup){ pt[i].g, INT64_MIN, i, np, i };
    }
  unsigned char *hold = pl_xmalloc(n ? n : 1); /* op i holds a point */
  size_t nops = 0;
  for (size_t i = 0; i < n; i++) {
    hold[i] = start[i] != PL_INT_NA && dur[i] != PL_INT_NA && dur[i] > 0 &&
              points_within(pt, G, ng, (int64_t)(((uint64_t)opid[i] << 32) | otid[i]), start[i],
                            (int64_t)((uint64_t)start[i] + (uint64_t)dur[i] - 1));
    nops += hold[i];
  }
  free(G);
  free(pt);
  ivitem *it = pl_xmalloc((nops + np) * sizeof *it);
  size_t k = 0;
  for (size_t i = 0; i < n && k < nops; i++)
    if (hold[i])
      it[k++] = (ivitem){ (int64_t)(((uint64_t)opid[i] << 32) | otid[i]), start[i],
                          (int64_t)((uint64_t)start[i] + (uint64_t)dur[i] - 1), i, 0 };
  free(hold);
  for (size_t i = 0; i < m; i++)
    if (at[i] != PL_INT_NA) it[k++] = (ivitem){ (int64_t)(((uint64_t)qpid[i] << 32) | qtid[i]), at[i], at[i], i, 1 };
  innermost_items(it, k, nops, out);
  free(it);
}

/* ---- step-function integral -------------------------------------------- */

typedef struct ivstep {
  int64_t t;
  size_t idx;
  int end;
} ivstep;

/* Sorts x[0..n) by (t, idx), stably: x arrives in idx order, so a stable
** sort by t alone gives it.  A natural merge sort (runs already in order are
** kept; sorted input costs one pass), tmp: n scratch entries. */
static void steps_sort(ivstep *x, ivstep *tmp, size_t n) {
  size_t *run = pl_xmalloc((n + 1) * sizeof *run), nr = 0; /* run starts, then n */
  for (size_t i = 0; i < n; i++)
    if (i == 0 || x[i].t < x[i - 1].t) run[nr++] = i;
  run[nr] = n;
  ivstep *a = x, *b = tmp;
  while (nr > 1) {
    size_t w = 0;
    for (size_t r = 0; r < nr; r += 2) {
      size_t lo = run[r], mid = run[r + 1], hi = r + 2 <= nr ? run[r + 2] : n;
      if (r + 1 >= nr) {
        memcpy(b + lo, a + lo, (n - lo) * sizeof *a);
        run[w++] = lo;
        break;
      }
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi) b[o++] = a[j].t < a[i].t ? a[j++] : a[i++]; /* ties: the left (earlier) first */
      while (i < mid) b[o++] = a[i++];
      while (j < hi) b[o++] = a[j++];
      run[w++] = lo;
    }
    run[w] = n;
    nr = w;
    ivstep *t = a;
    a = b;
    b = t;
  }
  if (a != x) memcpy(x, a, n * sizeof *x);
  free(run);
}

double pl_iv_step_integral(const int64_t *s, const int64_t *e, const double *v, const unsigned char *skip, size_t n,
                           double cap, int64_t lo, int64_t hi) {
  /* the steps in (t, starts first, idx) order: the starts and the ends
  ** each sorted by (t, idx), then merged with a start first at a tie --
  ** the order step_cmp gives, without a comparison call per step */
  ivstep *p = pl_xmalloc((n ? 4 * n : 1) * sizeof *p);
  ivstep *ps = p + (n ? 2 * n : 0), *pe = ps + n;
  size_t k = 0, m = 0;
  for (size_t i = 0; i < n; i++) {
    if ((skip && skip[i]) || e[i] < s[i]) continue;
    ps[m] = (ivstep){ s[i], i, 0 };
    pe[m] = (ivstep){ e[i], i, 1 };
    m++;
  }
  steps_sort(ps, p, m);
  steps_sort(pe, p, m);
  for (size_t i = 0, j = 0; i < m || j < m;) p[k++] = (j >= m || (i < m && ps[i].t <= pe[j].t)) ? ps[i++] : pe[j++];
  double total = 0.0;
  if (k > 0) {
    int64_t last = p[0].t;
    double level = v[p[0].idx];
    for (size_t j = 1; j < k; j++) {
      int64_t t = p[j].t;
      if (t > last && level > 0) {
        int64_t a = last > lo ? last : lo, b = t < hi ? t : hi;
        if (b > a) total += (level < cap ? level : cap) * (double)(b - a);
      }
      last = t;
      if (p[j].end) level -= v[p[j].idx];
      else level += v[p[j].idx];
    }
  }
  free(p);
  return total;
}

/* ---- a sampled series over windows -------------------------------------- */

/* The number of samples with ts <= t (so the last one is that - 1). */
static size_t upto(const int64_t *ts, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ts[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void pl_iv_series_windows(const int64_t *ts, const int64_t *te, const double *v, size_t n, const int64_t *a,
                          const int64_t *b, size_t m, double *area, int64_t *cov, int64_t *at) {
  /* interval samples: the running maximum of the ends, so the first sample
  ** that can reach past a window's start is found by binary search */
  int64_t *maxe = NULL;
  if (te && n) {
    maxe = pl_xmalloc(n * sizeof *maxe);
    for (size_t k = 0; k < n; k++) maxe[k] = k && maxe[k - 1] > te[k] ? maxe[k - 1] : te[k];
  }
  for (size_t j = 0; j < m; j++) {
    double ar = 0;
    int64_t cv = 0;
    size_t u = upto(ts, n, a[j]);
    at[j] = u == 0 || (te && te[u - 1] < a[j]) ? -1 : (int64_t)(u - 1);
    if (n > 0 && b[j] > a[j]) {
      if (te) {
        size_t lo = 0, hi = n; /* first k with maxe[k] > a */
        while (lo < hi) {
          size_t mid = lo + (hi - lo) / 2;
          if (maxe[mid] > a[j]) hi = mid;
          else lo = mid + 1;
        }
        for (size_t k = lo; k < n && ts[k] < b[j]; k++) {
          int64_t x = ts[k] > a[j] ? ts[k] : a[j], y = te[k] < b[j] ? te[k] : b[j];
          if (y > x) {
            ar += v[k] * (double)(y - x);
            cv += y - x;
          }
        }
      } else {
        for (size_t k = u ? u - 1 : 0; k < n && ts[k] < b[j]; k++) {
          int64_t x = ts[k] > a[j] ? ts[k] : a[j];
          int64_t y = k + 1 < n ? (ts[k + 1] < b[j] ? ts[k + 1] : b[j]) : b[j];
          if (y > x) {
            ar += v[k] * (double)(y - x);
            cv += y - x;
          }
        }
      }
    }
    area[j] = ar;
    cov[j] = cv;
  }
  free(maxe);
}

void pl_iv_series_groups(const int64_t *ts, const int64_t *te, const double *v, size_t n, const int64_t *a,
                         const int64_t *b, const int64_t *group, size_t m, size_t ng, double *area, int64_t *cov,
                         double *psum, int64_t *pn) {
  double *wa = pl_xmalloc((m ? m : 1) * sizeof *wa);
  int64_t *wc = pl_xmalloc((m ? m : 1) * 2 * sizeof *wc), *wt = wc + (m ? m : 1);
  pl_iv_series_windows(ts, te, v, n, a, b, m, wa, wc, wt);
  for (size_t g = 0; g < ng; g++) {
    area[g] = psum[g] = 0;
    cov[g] = pn[g] = 0;
  }
  for (size_t j = 0; j < m; j++) {
    if (group[j] < 0 || (size_t)group[j] >= ng) continue;
    size_t g = (size_t)group[j];
    area[g] += wa[j];
    cov[g] += wc[j];
    if (wc[j] == 0 && wt[j] >= 0) {
      psum[g] += v[wt[j]];
      pn[g]++;
    }
  }
  free(wa);
  free(wc);
}

static _Thread_local const int64_t
    *fw_keys; /* the query starts, for the sort below (per thread: perflab serve sorts in several at once) */
static int fw_cmp(const void *x, const void *y) {
  size_t i = *(const size_t *)x, j = *(const size_t *)y;
  if (fw_keys[i] != fw_keys[j]) return fw_keys[i] < fw_keys[j] ? -1 : 1;
  return (i > j) - (i < j);
}

void pl_iv_first_window(const int64_t *ws, const int64_t *we, size_t nw, const int64_t *qs, const int64_t *qe,
                        const unsigned char *qskip, size_t m, size_t *ord, int64_t *out) {
  int sorted = 1;
  size_t n = 0; /* the queries that take part, in start order */
  for (size_t k = 0; k < m; k++) {
    out[k] = -1;
    if (qskip && qskip[k]) continue;
    if (n && qs[k] < qs[ord[n - 1]]) sorted = 0;
    ord[n++] = k;
  }
  if (!sorted) {
    fw_keys = qs;
    qsort(ord, n, sizeof *ord, fw_cmp);
    fw_keys = NULL;
  }
  size_t w = 0;
  for (size_t j = 0; j < n && w < nw; j++) {
    size_t k = ord[j];
    while (w < nw) {
      if (qs[k] < ws[w]) break; /* before the window: none */
      if (qe[k] <= we[w]) {
        out[k] = (int64_t)w;
        break;
      }
      if (qs[k] < we[w]) break; /* starts inside, ends after it: none */
      w++;                      /* at or after its end: the next window */
    }
  }
}

/* ---- busy time of the work each op encloses ------------------------------ */

typedef struct encl {
  int64_t g, p;
  size_t idx;
} encl;
static int encl_cmp(const void *a, const void *b) {
  const encl *x = a, *y = b;
  if (x->g != y->g) return x->g < y->g ? -1 : 1;
  if (x->p != y->p) return x->p < y->p ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}
typedef struct se {
  int64_t s, e;
} se;
static int se_cmp(const void *a, const void *b) {
  const se *x = a, *y = b;
  if (x->s != y->s) return x->s < y->s ? -1 : 1;
  return x->e < y->e ? -1 : x->e > y->e;
}
/* first k in q[0..m) with (g, p) >= (g0, p0) (after = 0) or > (after = 1) */
static size_t encl_bound(const encl *q, size_t m, int64_t g0, int64_t p0, int after) {
  size_t lo = 0, hi = m;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int less = q[mid].g < g0 || (q[mid].g == g0 && (after ? q[mid].p <= p0 : q[mid].p < p0));
    if (less) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void pl_iv_enclosed(const int64_t *os, const int64_t *oe, const int64_t *og, const unsigned char *oskip, size_t n,
                    const int64_t *qp, const int64_t *qg, const int64_t *qs, const int64_t *qe,
                    const unsigned char *qskip, size_t m, int64_t *out_len, int64_t *out_cnt) {
  encl *q = pl_xmalloc((m ? m : 1) * sizeof *q);
  size_t k = 0;
  for (size_t i = 0; i < m; i++)
    if (!qskip || !qskip[i]) q[k++] = (encl){ qg ? qg[i] : 0, qp[i], i };
  qsort(q, k, sizeof *q, encl_cmp);
  se *buf = pl_xmalloc((k ? k : 1) * sizeof *buf);
  for (size_t i = 0; i < n; i++) {
    out_len[i] = 0;
    out_cnt[i] = 0;
    if (oskip && oskip[i]) {
      out_len[i] = out_cnt[i] = INT64_MIN;
      continue;
    }
    int64_t g = og ? og[i] : 0;
    size_t lo = encl_bound(q, k, g, os[i], 0), hi = encl_bound(q, k, g, oe[i], 1);
    size_t c = 0;
    for (size_t j = lo; j < hi; j++) {
      size_t x = q[j].idx;
      if (qe[x] > qs[x]) buf[c++] = (se){ qs[x], qe[x] };
    }
    out_cnt[i] = (int64_t)(hi > lo ? hi - lo : 0);
    if (c == 0) continue;
    /* already in start order when the launches were (the usual case) */
    int sorted = 1;
    for (size_t j = 1; j < c && sorted; j++) sorted = buf[j - 1].s <= buf[j].s;
    if (!sorted) qsort(buf, c, sizeof *buf, se_cmp);
    int64_t tot = 0, cs = buf[0].s, ce = buf[0].e;
    for (size_t j = 1; j < c; j++) {
      if (buf[j].s > ce) {
        tot += ce - cs;
        cs = buf[j].s;
        ce = buf[j].e;
      } else if (buf[j].e > ce) ce = buf[j].e;
    }
    out_len[i] = tot + (ce - cs);
  }
  free(buf);
  free(q);
}

/* ---- sums of point values within windows -------------------------------- */

typedef struct swpt {
  int64_t g, t;
  size_t k;
} swpt;

static int swpt_cmp(const void *a, const void *b) {
  const swpt *x = a, *y = b;
  if (x->g != y->g) return x->g < y->g ? -1 : 1;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

/* first index in p[lo, hi) (one group, by time) with p.t >= t */
static size_t sw_lower(const swpt *p, size_t lo, size_t hi, int64_t t) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int pl_iv_sum_within(const int64_t *ws, const int64_t *we, const int64_t *wg, const unsigned char *wskip, size_t nw,
                     const int64_t *pt, const int64_t *pg, const unsigned char *pskip, size_t np,
                     const int64_t *const *vals, size_t nv, int64_t *count, int64_t **sums) {
  swpt *p = pl_xmalloc((np ? np : 1) * sizeof *p);
  size_t m = 0;
  for (size_t k = 0; k < np; k++)
    if (!(pskip && pskip[k])) {
      p[m].g = pg ? pg[k] : 0;
      p[m].t = pt[k];
      p[m].k = k;
      m++;
    }
  qsort(p, m, sizeof *p, swpt_cmp);
  /* prefix sums: pre[j][i] = sum of vals[j] over p[0..i) (uint64: wraps) */
  uint64_t *pre = pl_xmalloc((nv ? nv : 1) * (m + 1) * sizeof *pre);
  for (size_t j = 0; j < nv; j++) {
    uint64_t *q = pre + j * (m + 1), acc = 0;
    q[0] = 0;
    for (size_t i = 0; i < m; i++) {
      acc += (uint64_t)vals[j][p[i].k];
      q[i + 1] = acc;
    }
  }
  for (size_t w = 0; w < nw; w++) {
    count[w] = 0;
    for (size_t j = 0; j < nv; j++) sums[j][w] = 0;
    if ((wskip && wskip[w]) || we[w] <= ws[w]) continue;
    int64_t g = wg ? wg[w] : 0;
    /* the group's range [glo, ghi) */
    size_t lo = 0, hi = m;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (p[mid].g < g) lo = mid + 1;
      else hi = mid;
    }
    size_t glo = lo;
    hi = m;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (p[mid].g <= g) lo = mid + 1;
      else hi = mid;
    }
    size_t ghi = lo;
    size_t a = sw_lower(p, glo, ghi, ws[w]), b = sw_lower(p, a, ghi, we[w]);
    count[w] = (int64_t)(b - a);
    for (size_t j = 0; j < nv; j++) {
      const uint64_t *q = pre + j * (m + 1);
      sums[j][w] = (int64_t)(q[b] - q[a]);
    }
  }
  free(pre);
  free(p);
  return 0;
}

/* ---- parents of nested intervals ---------------------------------------- */

typedef struct pariv {
  int64_t g, s, e;
  size_t i;
} pariv;

static int pariv_cmp(const void *a, const void *b) {
  const pariv *x = a, *y = b;
  if (x->g != y->g) return x->g < y->g ? -1 : 1;
  if (x->s != y->s) return x->s < y->s ? -1 : 1;
  if (x->e != y->e) return x->e > y->e ? -1 : 1; /* longer first */
  return x->i < y->i ? -1 : x->i > y->i;
}

void pl_iv_parents(const int64_t *s, const int64_t *e, const int64_t *g, const unsigned char *skip, size_t n,
                   int64_t *out) {
  pariv *v = pl_xmalloc((n ? n : 1) * sizeof *v);
  size_t *stack = pl_xmalloc((n ? n : 1) * sizeof *stack);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    out[i] = -1;
    if (skip && skip[i]) continue;
    v[m].g = g ? g[i] : 0;
    v[m].s = s[i];
    v[m].e = e[i];
    v[m].i = i;
    m++;
  }
  qsort(v, m, sizeof *v, pariv_cmp);
  size_t top = 0;
  for (size_t k = 0; k < m; k++) {
    /* close what ended by this start, or cannot hold this interval, or is another group's */
    while (top > 0) {
      const pariv *t = &v[stack[top - 1]];
      if (t->g == v[k].g && v[k].e <= t->e && v[k].s < t->e) break;
      top--;
    }
    if (top > 0) out[v[k].i] = (int64_t)v[stack[top - 1]].i;
    stack[top++] = k;
  }
  free(v);
  free(stack);
}

/*
** steplevels.c -- see steplevels.h.
*/
#include "steplevels.h"

#include <stdlib.h>

static int ev_cmp(const void *pa, const void *pb) {
  const pl_step_ev *a = pa, *b = pb;
  if (a->t != b->t) return a->t < b->t ? -1 : 1;
  if (a->d != b->d) return a->d < b->d ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* Lua's integer arithmetic: wraps around, floor division */
static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t wbegin(int64_t lo, int64_t span, int64_t w, int64_t k) { /* window k's start, k 1-based */
  return wadd(lo, fdiv(wmul(span, k - 1), w));
}

void pl_step_levels(pl_step_ev *ev, size_t n, size_t windows, pl_levels *out, int64_t *wstart, int64_t *wmax) {
  qsort(ev, n, sizeof *ev, ev_cmp);
  int64_t lo = ev[0].t, hi = ev[n - 1].t, span = hi - lo, w = (int64_t)windows;
  int64_t q = 0, qmax = 0, at = lo, area = 0;
  for (size_t k = 0; k < windows; k++) {
    wstart[k] = wbegin(lo, span, w, (int64_t)k + 1);
    wmax[k] = INT64_MIN;
  }
  for (size_t i = 0; i < n; i++) {
    int64_t t = ev[i].t;
    if (i > 0) area = wadd(area, wmul(q, t - ev[i - 1].t));
    q = wadd(q, ev[i].d);
    if (q > qmax) {
      qmax = q;
      at = t;
    }
    int64_t k = 1;
    if (span > 0) {
      k = fdiv(wmul(t - lo, w), span) + 1;
      if (k > w) k = w;
      while (k > 1 && t < wstart[k - 1]) k--;
      while (k < w && t >= wstart[k]) k++;
    }
    if (wmax[k - 1] == INT64_MIN || q > wmax[k - 1]) wmax[k - 1] = q;
  }
  /* the level entering window k: after the last event before its start */
  int64_t level = 0;
  size_t j = 0;
  for (size_t k = 0; k < windows; k++) {
    while (j < n && ev[j].t < wstart[k]) {
      level = wadd(level, ev[j].d);
      j++;
    }
    if (wmax[k] == INT64_MIN || level > wmax[k]) wmax[k] = level;
  }
  out->max = qmax;
  out->at = at;
  out->area = area;
  out->lo = lo;
  out->hi = hi;
}

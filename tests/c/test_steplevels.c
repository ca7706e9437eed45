/* test_steplevels.c -- pl_step_levels (a counter's level from +/- steps)
** against a hand-worked example and against a unit-time simulation: with
** integer times in [0, W) the level can be stepped instant by instant
** (the deltas of one instant in ascending order, then the level held for
** one unit), which shares no code with the event walk under test. */
#include "tcheck.h"
#include "steplevels.h"

#include <stdint.h>

#define W 60

static void hand_example(void) {
  /* +1@0, +1@2, -1@3, +1@3, -1@5, -1@6 (given out of order): levels
  ** 1, 2, 1, 2, 1, 0 -> max 2 first at 2; area 1*2 + 2*1 + 2*2 + 1*1 = 9 */
  pl_step_ev ev[] = { { 5, -1, 0 }, { 3, 1, 1 }, { 0, 1, 2 }, { 6, -1, 3 }, { 3, -1, 4 }, { 2, 1, 5 } };
  int64_t ws[3], wm[3];
  pl_levels r;
  pl_step_levels(ev, 6, 3, &r, ws, wm);
  TC_EQ_INT(r.max, 2);
  TC_EQ_INT(r.at, 2);
  TC_EQ_INT(r.area, 9);
  TC_EQ_INT(r.lo, 0);
  TC_EQ_INT(r.hi, 6);
  /* windows [0,2) [2,4) [4,6]: maxima 1, 2 (events 2, 3, 3), 2 (carried in) */
  TC_EQ_INT(ws[0], 0);
  TC_EQ_INT(ws[1], 2);
  TC_EQ_INT(ws[2], 4);
  TC_EQ_INT(wm[0], 1);
  TC_EQ_INT(wm[1], 2);
  TC_EQ_INT(wm[2], 2);
  /* one instant: all in window 1, max 0 when the level never rises */
  pl_step_ev one[] = { { 7, -1, 0 }, { 7, -2, 1 } };
  int64_t ws1[2], wm1[2];
  pl_step_levels(one, 2, 2, &r, ws1, wm1);
  TC_EQ_INT(r.max, 0);
  TC_EQ_INT(r.at, 7);
  TC_EQ_INT(r.area, 0);
  /* levels -2 then -3 (the larger decrement first); both windows start at
  ** 7 with level 0 carried in, higher than any level after an event */
  TC_EQ_INT(wm1[0], 0);
  TC_EQ_INT(wm1[1], 0);
}

static int cmpi(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static void random_vs_simulation(void) {
  srand(17);
  for (int round = 0; round < 400; round++) {
    size_t n = 1 + (size_t)(rand() % 30), windows = 1 + (size_t)(rand() % 7);
    pl_step_ev ev[40];
    int64_t t[40], d[40];
    for (size_t i = 0; i < n; i++) {
      t[i] = rand() % (round % 3 == 0 ? 3 : W); /* some rounds crowd a few instants */
      d[i] = (rand() % 5) - 2;
      ev[i].t = t[i];
      ev[i].d = d[i];
      ev[i].i = i;
    }
    int64_t ws[8], wm[8];
    pl_levels r;
    pl_step_levels(ev, n, windows, &r, ws, wm);
    /* simulation: instant by instant, the deltas of an instant in
    ** ascending order; pt/pl: each event's time and the level after it */
    int64_t lo = W, hi = -1;
    for (size_t i = 0; i < n; i++) {
      if (t[i] < lo) lo = t[i];
      if (t[i] > hi) hi = t[i];
    }
    int64_t pt[40], pl[40];
    size_t np = 0;
    int64_t level = 0, max = 0, at = lo, area = 0;
    for (int64_t x = lo; x <= hi; x++) {
      int64_t ds[40];
      size_t m = 0;
      for (size_t i = 0; i < n; i++)
        if (t[i] == x) ds[m++] = d[i];
      qsort(ds, m, sizeof *ds, cmpi);
      for (size_t i = 0; i < m; i++) {
        level += ds[i];
        if (level > max) {
          max = level;
          at = x;
        }
        pt[np] = x;
        pl[np] = level;
        np++;
      }
      if (x < hi) area += level; /* held over [x, x + 1) */
    }
    TC_EQ_INT(r.max, max);
    TC_EQ_INT(r.at, at);
    TC_EQ_INT(r.area, area);
    TC_EQ_INT(r.lo, lo);
    TC_EQ_INT(r.hi, hi);
    /* window k: [start k, start k+1) (the last one to hi); its maximum is
    ** the level carried in or a higher one after one of its events */
    int64_t span = hi - lo;
    for (size_t k = 0; k < windows; k++) {
      int64_t a = lo + span * (int64_t)k / (int64_t)windows;
      int64_t b = k + 1 < windows ? lo + span * (int64_t)(k + 1) / (int64_t)windows : hi + 1;
      if (span == 0) b = k == 0 ? hi + 1 : lo; /* one instant: every event in window 1 */
      int64_t carried = 0, best;
      for (size_t i = 0; i < np; i++)
        if (pt[i] < a) carried = pl[i];
      best = carried;
      for (size_t i = 0; i < np; i++)
        if (pt[i] >= a && pt[i] < b && pl[i] > best) best = pl[i];
      TC_EQ_INT(ws[k], a);
      TC_EQ_INT(wm[k], best);
    }
  }
}

int main(void) {
  hand_example();
  random_vs_simulation();
  return tc_done();
}

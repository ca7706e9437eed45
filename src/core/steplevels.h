/*
** steplevels.h -- the level of a counter that changes by steps: a queue
** length (+1 at each launch, -1 at each end), the number of open
** requests, ...  One sort and one pass in C instead of a walk per event
** in Lua (launch-latency's queue_length and queue_series).
*/
#ifndef PL_STEPLEVELS_H
#define PL_STEPLEVELS_H
#include <stddef.h>
#include <stdint.h>

typedef struct pl_step_ev {
  int64_t t, d;
  size_t i;
} pl_step_ev;

typedef struct pl_levels {
  int64_t max;    /* the highest level reached (0 when it never rises above 0) */
  int64_t at;     /* the first time it was reached (lo when max is 0) */
  int64_t area;   /* integral of the level over [lo, hi] (level x time) */
  int64_t lo, hi; /* the first and last event time */
} pl_levels;

/* ev[0..n) (n >= 1, any order; sorted in place by time, then delta
** ascending -- at one instant decrements come before increments -- then
** index).  The level starts at 0 and after each event is the sum of the
** deltas so far.  windows >= 1 equal windows split [lo, hi]: window k
** (1-based) starts at lo + ((hi - lo) * (k - 1)) // windows (integer
** arithmetic, so epoch-nanosecond bounds stay exact); an event belongs to
** the window holding its time (all to window 1 when hi == lo).  wstart[k]
** gets window k+1's start and wmax[k] its maximum level: the highest level
** after an event in it, or the level carried into it where that is higher
** (or where it has no event).  Arithmetic wraps as Lua integers do. */
void pl_step_levels(pl_step_ev *ev, size_t n, size_t windows, pl_levels *out, int64_t *wstart, int64_t *wmax);

#endif

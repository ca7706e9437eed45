/*
** memattr.c -- the operator that holds each allocator event: for every row
** of a memory_events table, the deepest operator of cpu_ops that contains
** the event's time on the same thread (pid, tid), through the interval
** engine (pl_iv_innermost), not a walk per event.
**
** Containment is half open, [start, start + duration): an event at an
** operator's end belongs to whatever follows, as in the TensorBoard
** profiler plugin's memory parser (which says why: an event at one
** operator's end and the next one's start would otherwise count twice).
** Times are integer nanoseconds, so [s, s + d) is the closed [s, s + d - 1]
** that pl_iv_innermost takes; a zero-length operator contains nothing.
*/
#include "memattr.h"
#include "intervals.h"
#include "pl_util.h"

#include <stdlib.h>
#include <string.h>

static int col_of(const pl_table *t, const char *name, pl_type type) {
  int c = pl_table_col(t, name);
  return c >= 0 && t->cols[c]->type == type ? c : -1;
}

int pl_mem_attribute(pl_table *mem, const pl_table *ops, int opcol, int rowcol) {
  if (!mem || !ops || mem->nrows == 0 || ops->nrows == 0) return 0;
  if (mem->pool != ops->pool) return -1; /* string ids compared as numbers below */
  int mts = col_of(mem, "ts_ns", PL_INT), mpid = col_of(mem, "pid", PL_STR), mtid = col_of(mem, "tid", PL_STR);
  int ost = col_of(ops, "start_ns", PL_INT), odur = col_of(ops, "duration_ns", PL_INT);
  int opid = col_of(ops, "pid", PL_STR), otid = col_of(ops, "tid", PL_STR), oname = col_of(ops, "name", PL_STR);
  if (mts < 0 || mpid < 0 || mtid < 0 || ost < 0 || odur < 0 || opid < 0 || otid < 0 || oname < 0) return -1;
  size_t n = ops->nrows, m = mem->nrows;
  int64_t *out = pl_xmalloc((m ? m : 1) * sizeof *out);
  pl_iv_innermost_ops(ops->cols[ost]->v.i64, ops->cols[odur]->v.i64, ops->cols[opid]->v.str, ops->cols[otid]->v.str, n,
                      mem->cols[mts]->v.i64, mem->cols[mpid]->v.str, mem->cols[mtid]->v.str, m, out);
  uint32_t *name = mem->cols[opcol]->v.str;
  int64_t *row = rowcol >= 0 ? mem->cols[rowcol]->v.i64 : NULL;
  const uint32_t *ON = ops->cols[oname]->v.str;
  for (size_t k = 0; k < m; k++) {
    name[k] = out[k] >= 0 ? ON[out[k]] : 0;
    if (row) row[k] = out[k] >= 0 ? out[k] + 1 : PL_INT_NA;
  }
  free(out);
  return 0;
}

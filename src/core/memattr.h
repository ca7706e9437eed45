/*
** memattr.h -- allocator events attributed to operators (memattr.c).
*/
#ifndef PL_MEMATTR_H
#define PL_MEMATTR_H
#include "table.h"

/* Fills column opcol (PL_STR) of mem with the name of the deepest row of
** ops (cpu_ops: start_ns, duration_ns, pid, tid, name) containing the
** row's ts_ns, [start, start + duration), on the same pid and tid; missing
** where none does.  rowcol (PL_INT, or -1) gets that op's 1-based row.
** Both tables share one string pool.  0, or -1 when a column is lacking. */
int pl_mem_attribute(pl_table *mem, const pl_table *ops, int opcol, int rowcol);

#endif

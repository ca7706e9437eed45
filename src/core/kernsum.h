/*
** kernsum.h -- helpers shared by parsers that read per-launch tables:
** a kernel_summary (name, short_name, calls, total_ns, mean_ns, min_ns,
** max_ns, share_pct) computed from a kernels-like table, and filling a
** short_name column from a name column.
*/
#ifndef PL_KERNSUM_H
#define PL_KERNSUM_H
#include "table.h"

/* Groups t by column `name` (in order of first appearance) over
** `duration_ns`; share_pct is each kernel's share of the total time.
** Rows sorted by total_ns, largest first.  NULL when the columns are absent. */
pl_table *pl_kernel_summary_from(const pl_table *t, const char *out_name);

/* Adds (or refills) column "short_name" from column `name_col` using
** pl_short_name; also drops an AMD code-object suffix " [clone .kd]" / ".kd". */
void pl_fill_short_names(pl_table *t, int name_col);
#endif

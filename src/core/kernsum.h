/*
** kernsum.h -- helpers shared by parsers that read per-launch tables:
** a kernel_summary (name, short_name, calls, total_ns, mean_ns, min_ns,
** max_ns, share_pct) computed from a kernels-like table, and filling a
** short_name column from a name column.
*/
#ifndef PL_KERNSUM_H
#define PL_KERNSUM_H
#include "table.h"
#include "profile.h"

/* Groups t by column `name` (in order of first appearance) over
** `duration_ns`; share_pct is each kernel's share of the total time.
** Rows sorted by total_ns, largest first.  NULL when the columns are absent. */
pl_table *pl_kernel_summary_from(const pl_table *t, const char *out_name);

/* Adds (or refills) column "short_name" from column `name_col` using
** pl_short_name; also drops an AMD code-object suffix " [clone .kd]" / ".kd". */
void pl_fill_short_names(pl_table *t, int name_col);
/* 1 when a kernel name is a pseudo row: a whole "<words>" such as rocprof's
** "<barrier packet>" (AQL barrier and wait packets, not kernels). */
int pl_name_is_pseudo(const char *s, size_t n);
/* Moves the pseudo rows of p's kernels and kernel_summary into a table
** pseudo_kernels (name, calls, total_ns, ...; no share), recomputes the
** summary's share_pct without them, and says so in a diagnostic.  The
** loader calls it for every input, so every reader and recipe agrees. */
void pl_split_pseudo_kernels(pl_profile *p);
#endif

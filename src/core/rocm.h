/*
** rocm.h -- the tables the ROCm readers fill (rocpd / KERN SQLite in
** fmt_rocpd.c, rocprofv3 JSON in fmt_rocprofv3_json.c): one column list per
** table, so that every AMD timeline has the same columns.
*/
#ifndef PL_ROCM_H
#define PL_ROCM_H

#include "schema.h"

enum {
  AK_NAME,
  AK_SHORT,
  AK_START,
  AK_END,
  AK_DUR,
  AK_LAUNCH,
  AK_DEV,
  AK_DEVNAME,
  AK_STREAM,
  AK_CORR,
  AK_PID,
  AK_TID,
  AK_GX,
  AK_GY,
  AK_GZ,
  AK_BX,
  AK_BY,
  AK_BZ,
  AK_GIX,
  AK_GIY,
  AK_GIZ,
  AK_REGS,
  AK_VGPR,
  AK_AGPR,
  AK_SGPR,
  AK_LDS,
  AK_SCRATCH,
  AK_WAVE,
  AK_DISPATCH,
  AK_NCOLS
};
enum { AR_NAME, AR_START, AR_END, AR_DUR, AR_CORR, AR_CAT, AR_PID, AR_TID, AR_NCOLS };
enum {
  AM_NAME,
  AM_KIND,
  AM_START,
  AM_END,
  AM_DUR,
  AM_DEV,
  AM_STREAM,
  AM_CORR,
  AM_PID,
  AM_BYTES,
  AM_SRC,
  AM_DST,
  AM_NCOLS
};

extern const pl_coldef pl_rocm_kernel_cols[AK_NCOLS];
extern const pl_coldef pl_rocm_runtime_cols[AR_NCOLS];
extern const pl_coldef pl_rocm_memcpy_cols[AM_NCOLS];

/* A row of kernels from what the tool records: grid_items_* (work-items)
** and block_* given, grid_* (workgroups) and duration worked out here;
** registers = arch_vgpr. */
void pl_rocm_kernel_finish(pl_cell *v);
/* "MEMORY_COPY_HOST_TO_DEVICE" (any prefix) -> "HtoD"; NULL when unknown. */
const char *pl_rocm_copy_kind(const char *s, size_t n);
/* Fills short_name, and adds kernel_summary from a kernels table (both p's). */
void pl_rocm_add_kernels(pl_profile *p, const pl_parse_opts *o, pl_table *k);

#endif

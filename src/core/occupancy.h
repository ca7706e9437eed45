/*
** occupancy.h -- the CUDA occupancy calculator over launch shapes: the
** algorithm of cuda_occupancy.h with ncu's Shared Memory Configuration Size
** (reference: gpu-facts.md section 1.4), Kineto's estimated achieved
** occupancy, and the what-if (the change of one resource that reaches the
** next occupancy step).  The same arithmetic as lua/perflab/cuda_occupancy.lua
** (the single-shape form a user copies), here for whole columns of shapes:
** the occupancy recipe calls it once per table, not once per launch.
** The per-architecture constants come from the caller (perflab.gpus is Lua
** data a user may override); no Lua here.
*/
#ifndef PL_OCCUPANCY_H
#define PL_OCCUPANCY_H

#include <stdint.h>

#include "table.h"

#define PL_OCC_MAX_CARVEOUTS 32

/* One compute capability's constants (gpus.arch[cc]); sizes in bytes. */
typedef struct pl_occ_arch {
  int64_t warp_size, max_threads_per_block, max_warps_per_sm, max_blocks_per_sm;
  int64_t regs_per_sm, sub_partitions, regs_per_sub_partition, max_regs_per_block;
  int64_t max_regs_per_thread, reg_alloc_unit, warp_alloc_granularity;
  int64_t smem_per_sm, max_smem_per_block_optin, max_smem_per_block_default;
  int64_t smem_alloc_unit, smem_reserved_per_block, max_threads_per_sm;
  int64_t barrier_factor; /* 0: no barrier limit (CC < 9.0) */
  int ncarveouts;
  int64_t carveouts[PL_OCC_MAX_CARVEOUTS]; /* supported capacities, bytes, ascending */
} pl_occ_arch;

/* One launch shape.  Sizes in bytes; -1 where not given. */
typedef struct pl_occ_shape {
  int64_t threads;   /* threads per block, > 0 */
  int64_t registers; /* per thread; <= 0: no register limit */
  int64_t smem_static, smem_dynamic;
  int64_t smem_config; /* ncu's configuration size; -1: the runtime's rule */
  int64_t smem_driver; /* reserved per block; -1: the architecture's */
  int64_t barriers;    /* named barriers per block (>= 1) */
  double carveout_pct; /* the carveout preference; NaN: none (the full carveout) */
  int optin;           /* 1: the opt-in per-block maximum; 0: the 48 KB default */
} pl_occ_shape;

/* The limits, in ncu's order (limiter bits). */
enum { PL_OCC_LIM_SM = 1, PL_OCC_LIM_WARPS = 2, PL_OCC_LIM_REGS = 4, PL_OCC_LIM_SMEM = 8, PL_OCC_LIM_BARRIERS = 16 };
/* Why a launch cannot run (result.invalid). */
enum { PL_OCC_VALID = 0, PL_OCC_SMEM_ABOVE_MAX, PL_OCC_BLOCK_ABOVE_MAX, PL_OCC_REGS_ABOVE_MAX, PL_OCC_NO_FIT };

typedef struct pl_occ_result {
  int64_t warps_per_block;
  int64_t limit_sm, limit_warps;
  int64_t limit_regs, limit_smem; /* as ncu prints them: the SM limit where none applies */
  int64_t limit_barriers;         /* -1: none (CC < 9.0) */
  int64_t active_blocks, theoretical_warps;
  int64_t smem_allocated, smem_config_used, max_smem_per_block;
  int64_t regs_per_warp; /* -1 when registers <= 0 */
  double occupancy_pct;  /* theoretical, 0-100 */
  int limiter;           /* PL_OCC_LIM_* bits: every limit equal to active_blocks */
  int invalid;           /* PL_OCC_* reason, PL_OCC_VALID when it runs */
  int assumed;           /* 1: smem_config was not given (the runtime's rule) */
} pl_occ_result;

void pl_occ_compute(const pl_occ_arch *a, const pl_occ_shape *s, pl_occ_result *r);

/* Kineto's "est. achieved occupancy %": blocks per SM from the grid (in
** float) capped by the calculator's active blocks (runtime rule, 48 KB
** default per block, smem = static + dynamic as one total), times threads
** per block over max_threads_per_sm (<= 0: the architecture's), in single
** precision, x 100 rounded.  -1 when sm_count <= 0. */
int64_t pl_occ_est_pct(const pl_occ_arch *a, int64_t threads, int64_t registers, int64_t smem, int64_t grid,
                       int64_t sm_count, int64_t max_threads_per_sm);

/* The what-if of one shape whose result is r: for registers, shared memory
** and block size (index 0, 1, 2), the value of the one change that raises
** the theoretical occupancy (the shared-memory configuration grown to the
** maximum carveout), with its active blocks and occupancy; found = 0 where
** none does.  The rules of cuda_occupancy.lua's what_if. */
typedef struct pl_occ_whatif {
  int found;
  int64_t value, active_blocks;
  double occupancy_pct;
} pl_occ_whatif;
enum { PL_OCC_WI_REGS = 0, PL_OCC_WI_SMEM = 1, PL_OCC_WI_BLOCK = 2 };
void pl_occ_what_if(const pl_occ_arch *a, const pl_occ_shape *s, const pl_occ_result *r, pl_occ_whatif out[3]);

/* "blocks", "warps", "registers", "shared memory", "barriers" joined by sep
** for the bits of limiter (ncu's order) into out; returns the length. */
int pl_occ_limiter_text(int limiter, const char *sep, char *out, int outsz);
/* The text of an invalid reason (the shared-memory one names the sizes). */
int pl_occ_invalid_text(const pl_occ_result *r, char *out, int outsz);
/* Bytes as the reports print them: "48 KB", "1.5 KB". */
int pl_occ_kb(int64_t n, char *out, int outsz);

/* ---- whole columns of shapes -------------------------------------------- */

/* The inputs of one row of pl_occ_columns, in this order. */
enum {
  PL_OCC_IN_ARCH,
  PL_OCC_IN_THREADS,
  PL_OCC_IN_REGS,
  PL_OCC_IN_SSTATIC,
  PL_OCC_IN_SDYN,
  PL_OCC_IN_SCONFIG,
  PL_OCC_IN_SDRIVER,
  PL_OCC_IN_BARRIERS,
  PL_OCC_IN_GRID,
  PL_OCC_IN_SMS,
  PL_OCC_IN_MAXTHR,
  PL_OCC_NIN
};

/* n rows of inputs, checked by the caller: row i's input k is
** vals[i * PL_OCC_NIN + k] where has[i * PL_OCC_NIN + k] is 1 (absent or
** missing where 0).  The arch input is a 1-based index into archs (1 to
** narch), the block size > 0, the barriers >= 1. */
typedef struct pl_occ_rows {
  size_t n;
  const int64_t *vals;
  const unsigned char *has;
  const pl_occ_arch *archs;
  int narch;
  double carveout_pct; /* as pl_occ_shape */
  int optin;           /* as pl_occ_shape */
  int est;             /* 1: add est_achieved_occupancy_pct (needs grid and SM count) */
  int what_if;         /* 1: add the nine what_if_* columns */
} pl_occ_rows;

/* The table "occupancy", one row per input row: warps_per_block, the five
** block limits, active_blocks, theoretical_warps,
** theoretical_occupancy_pct, limiter, invalid, smem_per_block_allocated,
** smem_config_used, regs_per_warp_allocated, assumed [,
** est_achieved_occupancy_pct] [, what_if_*].  A row without an arch or a
** block size is missing in every column. */
pl_table *pl_occ_columns(const pl_occ_rows *in);

#endif

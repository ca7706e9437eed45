/* test_occupancy.c -- pl_occ_columns (occupancy.c): the occupancy table of
** whole columns of launch shapes, on CC 8.0's constants (perflab.gpus).
** Expected values worked by hand from gpu-facts.md section 1.4:
**   256 threads, 32 registers: 8 warps per block; registers per warp
**     ceil(32 * 32 / 256) * 256 = 1024, 16384 / 1024 = 16 warps per
**     sub-partition, 64 per SM: 8 blocks; warps 64 / 8 = 8 blocks; so 8
**     active blocks, 64 warps, 100 %, limited by warps and registers.
**   128 threads, 200 registers: 4 warps per block; 6400 registers per warp,
**     2 warps per sub-partition, 8 per SM: 2 blocks; 8 warps, 12.5 %.
**   no block size: every column missing. */
#include "tcheck.h"
#include "occupancy.h"

static const char *str(const pl_table *r, const char *col, size_t i) {
  size_t n;
  const char *s = pl_cell_str(r, pl_table_col(r, col), i, &n);
  return s ? s : "(missing)";
}
static int64_t ival(const pl_table *r, const char *col, size_t i) { return r->cols[pl_table_col(r, col)]->v.i64[i]; }

int main(void) {
  pl_occ_arch a = {
    32,   1024,   64,     32,    65536,
    4,    16384,  65536,  255,   256,
    4,    167936, 166912, 49152, 128,
    1024, 2048,   0,      8,     { 0, 8 * 1024, 16 * 1024, 32 * 1024, 64 * 1024, 100 * 1024, 132 * 1024, 164 * 1024 }
  };
  int64_t vals[3 * PL_OCC_NIN] = { 0 };
  unsigned char has[3 * PL_OCC_NIN] = { 0 };
  int64_t shapes[3][2] = { { 256, 32 }, { 128, 200 }, { 0, 1 } };
  for (int i = 0; i < 3; i++) {
    vals[i * PL_OCC_NIN + PL_OCC_IN_ARCH] = 1;
    has[i * PL_OCC_NIN + PL_OCC_IN_ARCH] = 1;
    vals[i * PL_OCC_NIN + PL_OCC_IN_THREADS] = shapes[i][0];
    has[i * PL_OCC_NIN + PL_OCC_IN_THREADS] = i < 2;
    vals[i * PL_OCC_NIN + PL_OCC_IN_REGS] = shapes[i][1];
    has[i * PL_OCC_NIN + PL_OCC_IN_REGS] = 1;
  }
  pl_occ_rows in = { 3, vals, has, &a, 1, NAN, 1, 0, 1 };
  pl_table *r = pl_occ_columns(&in);
  TC_EQ_INT(r->nrows, 3);
  TC_EQ_INT(pl_table_col(r, "est_achieved_occupancy_pct"), -1); /* est = 0: no column */
  TC_CHECK(pl_table_col(r, "what_if_block_size_pct") >= 0);
  TC_EQ_INT(ival(r, "warps_per_block", 0), 8);
  TC_EQ_INT(ival(r, "block_limit_warps", 0), 8);
  TC_EQ_INT(ival(r, "block_limit_registers", 0), 8);
  TC_EQ_INT(ival(r, "active_blocks", 0), 8);
  TC_EQ_INT(ival(r, "theoretical_warps", 0), 64);
  TC_NEAR(r->cols[pl_table_col(r, "theoretical_occupancy_pct")]->v.num[0], 100, 1e-12);
  TC_EQ_STR(str(r, "limiter", 0), "warps, registers");
  TC_EQ_STR(str(r, "invalid", 0), "(missing)");
  TC_EQ_INT(ival(r, "warps_per_block", 1), 4);
  TC_EQ_INT(ival(r, "block_limit_registers", 1), 2);
  TC_EQ_INT(ival(r, "active_blocks", 1), 2);
  TC_EQ_INT(ival(r, "theoretical_warps", 1), 8);
  TC_NEAR(r->cols[pl_table_col(r, "theoretical_occupancy_pct")]->v.num[1], 12.5, 1e-12);
  TC_EQ_STR(str(r, "limiter", 1), "registers");
  /* row 3: no block size */
  TC_EQ_INT(ival(r, "active_blocks", 2), PL_INT_NA);
  TC_CHECK(isnan(r->cols[pl_table_col(r, "theoretical_occupancy_pct")]->v.num[2]));
  TC_EQ_STR(str(r, "limiter", 2), "(missing)");
  TC_EQ_INT(r->cols[pl_table_col(r, "assumed")]->v.b[2], PL_BOOL_NA);
  TC_EQ_INT(ival(r, "what_if_registers", 2), PL_INT_NA);
  pl_table_free(r);
  return tc_done();
}

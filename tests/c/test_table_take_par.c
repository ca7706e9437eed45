/* test_table_take_par.c -- large gathers (pl_table_take, the filter and
** take_cols behind t:filter(mask, cols)) run their columns on two
** threads (table.c's gather_cols, par.c's schedule): every cell of the
** result must be the source's at the row taken, values written from
** formulas here, not from a second run.  make tsan runs this test under
** ThreadSanitizer. */
#include "tcheck.h"
#include "table.h"

#include <stdlib.h>

#define N 1500000 /* 5 columns x 1.5 M rows: past the two-thread threshold (4 M cells) */

int main(void) {
  pl_table *t = pl_table_new("big");
  int ci = pl_table_add_col(t, "i", PL_INT), cn = pl_table_add_col(t, "half", PL_NUM);
  int cb = pl_table_add_col(t, "odd", PL_BOOL), cs = pl_table_add_col(t, "s", PL_STR);
  int cm = pl_table_add_col(t, "neg", PL_INT);
  const char *names[] = { "x", "yy", "zzz" };
  for (size_t r = 0; r < N; r++) {
    pl_row_put_int(t, ci, (int64_t)r * 3);
    pl_row_put_num(t, cn, (double)r * 0.5);
    pl_row_put_bool(t, cb, (int)(r % 2));
    pl_row_put_str(t, cs, names[r % 3], r % 3 + 1);
    if (r % 5) pl_row_put_int(t, cm, -(int64_t)r);
    pl_row_end(t);
  }
  TC_EQ_INT(t->nrows, N);
  /* every 3rd row, the columns named in another order, one twice */
  pl_table *mt = pl_table_new("m");
  int mc = pl_table_add_col(mt, "keep", PL_BOOL);
  for (size_t r = 0; r < N; r++) {
    pl_row_put_bool(mt, mc, r % 3 == 0);
    pl_row_end(mt);
  }
  const pl_column *mask = mt->cols[mc];
  int cols[] = { cs, ci, cm, ci, cn };
  pl_table *f = pl_table_filter_cols(t, mask, cols, 5);
  TC_EQ_INT(f->nrows, N / 3);
  TC_EQ_INT(f->ncols, 4); /* "i" once */
  TC_EQ_STR(f->cols[0]->name, "s");
  TC_EQ_STR(f->cols[1]->name, "i");
  TC_EQ_STR(f->cols[2]->name, "neg");
  TC_EQ_STR(f->cols[3]->name, "half");
  size_t bad = 0;
  for (size_t k = 0; k < f->nrows; k++) {
    size_t r = 3 * k;
    size_t len;
    const char *s = pl_pool_str(f->pool, f->cols[0]->v.str[k], &len);
    bad += len != r % 3 + 1 || s[0] != names[r % 3][0];
    bad += f->cols[1]->v.i64[k] != (int64_t)r * 3;
    bad += f->cols[2]->v.i64[k] != (r % 5 ? -(int64_t)r : PL_INT_NA);
    bad += f->cols[3]->v.num[k] != (double)r * 0.5;
  }
  TC_EQ_INT(bad, 0);
  /* the whole table at rows in reverse order */
  size_t *idx = malloc(N * sizeof *idx);
  for (size_t k = 0; k < N; k++) idx[k] = N - 1 - k;
  pl_table *rev = pl_table_take(t, idx, N);
  TC_EQ_INT(rev->ncols, 5);
  bad = 0;
  for (size_t k = 0; k < N; k++) {
    size_t r = N - 1 - k;
    bad += rev->cols[ci]->v.i64[k] != (int64_t)r * 3 || rev->cols[cb]->v.b[k] != r % 2;
    bad += rev->cols[cn]->v.num[k] != (double)r * 0.5 || rev->cols[cm]->v.i64[k] != (r % 5 ? -(int64_t)r : PL_INT_NA);
  }
  TC_EQ_INT(bad, 0);
  free(idx);
  pl_table_free(rev);
  pl_table_free(f);
  pl_table_free(mt);
  pl_table_free(t);
  return tc_done();
}

/* test_table_reduce.c -- the column reductions (pl_col_reduce,
** pl_col_count_true in table_scan.c) and pl_table_put_col_from (a column
** of another table, re-interned across pools); expected values by hand. */
#include "tcheck.h"
#include "table.h"
#include "table_scan.h"

#include <stdint.h>

int main(void) {
  /* n: 3, NA, -5, 10;  x: 0.1, 0.2, NA, 0.3;  m: true, false, true, NA */
  pl_table *t = pl_table_new("t");
  int cn = pl_table_add_col(t, "n", PL_INT), cx = pl_table_add_col(t, "x", PL_NUM),
      cm = pl_table_add_col(t, "m", PL_BOOL);
  int cs = pl_table_add_col(t, "s", PL_STR);
  int64_t ns[] = { 3, PL_INT_NA, -5, 10 };
  double xs[] = { 0.1, 0.2, NAN, 0.3 };
  int ms[] = { 1, 0, 1, -1 };
  const char *ss[] = { "a", "b", NULL, "a" };
  for (int i = 0; i < 4; i++) {
    if (ns[i] != PL_INT_NA) pl_row_put_int(t, cn, ns[i]);
    if (!isnan(xs[i])) pl_row_put_num(t, cx, xs[i]);
    if (ms[i] >= 0) pl_row_put_bool(t, cm, ms[i]);
    if (ss[i]) pl_row_put_str(t, cs, ss[i], 1);
    pl_row_end(t);
  }
  pl_col_summary r;
  pl_col_reduce(t, cn, NULL, &r);
  TC_EQ_INT(r.n, 3);
  TC_EQ_INT(r.isum, 8);
  TC_EQ_INT(r.isum_over, 0);
  TC_EQ_INT(r.imin, -5);
  TC_EQ_INT(r.imax, 10);
  TC_NEAR(r.sum, 8, 0);
  /* where m: rows 1 and 3 -> 3 and -5 */
  const pl_column *m = t->cols[cm];
  pl_col_reduce(t, cn, m, &r);
  TC_EQ_INT(r.n, 2);
  TC_EQ_INT(r.isum, -2);
  TC_EQ_INT(r.imin, -5);
  TC_EQ_INT(r.imax, 3);
  /* compensated: 0.1 + 0.2 + 0.3 is 0.6 exactly as the nearest double of the true sum */
  pl_col_reduce(t, cx, NULL, &r);
  TC_EQ_INT(r.n, 3);
  TC_CHECK(r.sum == 0.6);
  TC_CHECK(r.min == 0.1 && r.max == 0.3);
  /* strings are counted only */
  pl_col_reduce(t, cs, NULL, &r);
  TC_EQ_INT(r.n, 3);
  /* nothing kept: min/max stay at their empty values */
  pl_table *e = pl_table_new("e");
  pl_table_add_col(e, "x", PL_NUM);
  pl_col_reduce(e, 0, NULL, &r);
  TC_EQ_INT(r.n, 0);
  TC_CHECK(isinf(r.min) && r.min > 0 && isinf(r.max) && r.max < 0);
  pl_table_free(e);
  /* int64 overflow: 2^62 + 2^62 leaves int64; the double sum is 2^63 */
  pl_table *o = pl_table_new("o");
  pl_table_add_col(o, "n", PL_INT);
  for (int i = 0; i < 2; i++) {
    pl_row_put_int(o, 0, INT64_C(1) << 62);
    pl_row_end(o);
  }
  pl_col_reduce(o, 0, NULL, &r);
  TC_EQ_INT(r.isum_over, 1);
  TC_CHECK(r.sum == 9223372036854775808.0);
  pl_table_free(o);
  /* count_true: rows 1 and 3 are true (row 2 false, row 4 missing) */
  TC_EQ_INT(pl_col_count_true(t, cm), 2);

  /* put_col_from: a string column of a table with its own pool */
  pl_table *u = pl_table_new("u");
  pl_table_add_col(u, "k", PL_STR);
  const char *us[] = { "zz", "a", NULL, "zz" };
  for (int i = 0; i < 4; i++) {
    if (us[i]) pl_row_put_str(u, 0, us[i], strlen(us[i]));
    pl_row_end(u);
  }
  TC_CHECK(u->pool != t->pool);
  pl_table_put_col_from(t, "k", u, 0);
  int ck = pl_table_col(t, "k");
  TC_CHECK(ck >= 0);
  size_t ln;
  TC_EQ_STR(pl_cell_str(t, ck, 0, &ln), "zz");
  TC_EQ_STR(pl_cell_str(t, ck, 1, &ln), "a");
  TC_CHECK(pl_cell_missing(t, ck, 2));
  TC_EQ_INT(t->cols[ck]->v.str[0], t->cols[ck]->v.str[3]);
  TC_EQ_INT(t->cols[ck]->v.str[1], t->cols[cs]->v.str[0]); /* "a" interned once in t's pool */
  /* a number column is shared, not copied */
  pl_table_put_col_from(t, "n2", t, cn);
  TC_EQ_INT(pl_cell_int(t, pl_table_col(t, "n2"), 3), 10);
  pl_table_free(u);
  pl_table_free(t);
  return tc_done();
}

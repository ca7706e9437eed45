/* test_searchsorted.c -- pl_vec_searchsorted (table_scan.c): sorted search
** of integer and number columns against a linear count done by hand, both
** sides, missing values, and the errors (unsorted, missing or text in the
** sorted column). */
#include "tcheck.h"
#include "stats.h"
#include "table.h"
#include "table_scan.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* a one-column table of n values (NA: PL_INT_NA / NAN) */
static pl_table *ints(const int64_t *v, size_t n) {
  pl_table *t = pl_table_new("t");
  int c = pl_table_add_col(t, "v", PL_INT);
  for (size_t i = 0; i < n; i++) {
    if (v[i] != PL_INT_NA) pl_row_put_int(t, c, v[i]);
    pl_row_end(t);
  }
  return t;
}
static pl_table *nums(const double *v, size_t n) {
  pl_table *t = pl_table_new("q");
  int c = pl_table_add_col(t, "v", PL_NUM);
  for (size_t i = 0; i < n; i++) {
    if (!isnan(v[i])) pl_row_put_num(t, c, v[i]);
    pl_row_end(t);
  }
  return t;
}

int main(void) {
  pl_err e;
  /* sorted 1 3 3 7; queries 0 3 NA 9 2 7 */
  int64_t sv[] = { 1, 3, 3, 7 }, qv[] = { 0, 3, PL_INT_NA, 9, 2, 7 };
  int64_t right[] = { 0, 3, PL_INT_NA, 4, 1, 4 }, left[] = { 0, 1, PL_INT_NA, 4, 1, 3 };
  pl_table *s = ints(sv, 4), *q = ints(qv, 6);
  for (int side = 0; side < 2; side++) {
    pl_err_clear(&e);
    pl_table *r = pl_vec_searchsorted("r", s, 0, q, 0, side, &e);
    TC_CHECK(r != NULL);
    if (!r) continue;
    TC_EQ_INT(r->nrows, 6);
    for (int i = 0; i < 6; i++) TC_EQ_INT(r->cols[0]->v.i64[i], side ? right[i] : left[i]);
    pl_table_free(r);
  }
  /* numbers against integers: 2.5 sits between 1 and 3; 3.0 equals 3 */
  double dq[] = { 2.5, 3.0, 7.5, -1 };
  int64_t dr[] = { 1, 3, 4, 0 };
  pl_table *qd = nums(dq, 4);
  pl_err_clear(&e);
  pl_table *r = pl_vec_searchsorted("r", s, 0, qd, 0, 1, &e);
  TC_CHECK(r != NULL);
  for (int i = 0; r && i < 4; i++) TC_EQ_INT(r->cols[0]->v.i64[i], dr[i]);
  pl_table_free(r);
  /* random sorted columns against a linear count */
  pl_rng g;
  pl_rng_seed(&g, 7);
  for (int iter = 0; iter < 200; iter++) {
    int64_t a[20], b[20];
    size_t n = pl_rng_below(&g, 20), m = 1 + pl_rng_below(&g, 19);
    int64_t x = (int64_t)pl_rng_below(&g, 5) - 2;
    for (size_t i = 0; i < n; i++) a[i] = x += (int64_t)pl_rng_below(&g, 3);
    for (size_t i = 0; i < m; i++) b[i] = (int64_t)pl_rng_below(&g, 40) - 5;
    pl_table *ta = ints(a, n), *tb = ints(b, m);
    for (int side = 0; side < 2; side++) {
      pl_err_clear(&e);
      pl_table *rr = pl_vec_searchsorted("r", ta, 0, tb, 0, side, &e);
      int ok = rr != NULL;
      for (size_t i = 0; ok && i < m; i++) {
        int64_t want = 0;
        for (size_t k = 0; k < n; k++) want += side ? a[k] <= b[i] : a[k] < b[i];
        ok = rr->cols[0]->v.i64[i] == want;
      }
      TC_CHECK(ok);
      pl_table_free(rr);
    }
    pl_table_free(ta);
    pl_table_free(tb);
  }
  /* errors: unsorted, missing in the sorted column, strings */
  int64_t un[] = { 1, 5, 4 }, na[] = { 1, PL_INT_NA, 4 };
  pl_table *tu = ints(un, 3), *tn = ints(na, 3);
  pl_err_clear(&e);
  TC_CHECK(pl_vec_searchsorted("r", tu, 0, q, 0, 1, &e) == NULL);
  TC_CHECK(strstr(e.msg, "not sorted ascending (row 3)") != NULL);
  pl_err_clear(&e);
  TC_CHECK(pl_vec_searchsorted("r", tn, 0, q, 0, 1, &e) == NULL);
  TC_CHECK(strstr(e.msg, "missing value at row 2") != NULL);
  pl_table *ts = pl_table_new("s");
  int cs = pl_table_add_col(ts, "s", PL_STR);
  pl_row_put_str(ts, cs, "a", 1);
  pl_row_end(ts);
  pl_err_clear(&e);
  TC_CHECK(pl_vec_searchsorted("r", ts, 0, q, 0, 1, &e) == NULL);
  TC_CHECK(strstr(e.msg, "expected numbers, got string") != NULL);
  pl_table_free(ts);
  pl_table_free(tu);
  pl_table_free(tn);
  pl_table_free(qd);
  pl_table_free(s);
  pl_table_free(q);
  return tc_done();
}

/* test_table_vec2.c -- fill and sprintf of the table engine
** (table_vec2.c) on a small table; the expected texts are written out by
** hand in the comments (C printf rules: %.4g of 12345 is 1.234e+04). */
#include "tcheck.h"
#include "table.h"

static pl_table *sample(void) {
  /* k     x       n
  ** "a"   1.5     3
  ** NA    -2.25   NA
  ** "b"   NA      12345
  ** "c"   40      7 */
  pl_table *t = pl_table_new("s");
  int ck = pl_table_add_col(t, "k", PL_STR), cx = pl_table_add_col(t, "x", PL_NUM),
      cn = pl_table_add_col(t, "n", PL_INT);
  const char *ks[] = { "a", NULL, "b", "c" };
  double xs[] = { 1.5, -2.25, NAN, 40 };
  int64_t ns[] = { 3, PL_INT_NA, 12345, 7 };
  for (int i = 0; i < 4; i++) {
    if (ks[i]) pl_row_put_str(t, ck, ks[i], 1);
    if (!isnan(xs[i])) pl_row_put_num(t, cx, xs[i]);
    if (ns[i] != PL_INT_NA) pl_row_put_int(t, cn, ns[i]);
    pl_row_end(t);
  }
  return t;
}

static pl_operand colop(const pl_table *t, int c) {
  pl_operand o = { t, c, PL_NUM, 0, 0, NULL, 0 };
  return o;
}
static pl_operand numop(double v) {
  pl_operand o = { NULL, 0, PL_NUM, v, 0, NULL, 0 };
  return o;
}
static pl_operand intop(int64_t v) {
  pl_operand o = { NULL, 0, PL_INT, 0, v, NULL, 0 };
  return o;
}
static pl_operand strop(const char *s) {
  pl_operand o = { NULL, 0, PL_STR, 0, 0, s, strlen(s) };
  return o;
}

static const char *str(const pl_table *r, size_t i) {
  size_t n;
  return pl_cell_str(r, 0, i, &n);
}

int main(void) {
  pl_table *t = sample();
  pl_err e;
  pl_err_clear(&e);

  /* x filled with n: 1.5 -2.25 12345 40 (numbers) */
  pl_operand n = colop(t, 2), x = colop(t, 1), k = colop(t, 0);
  pl_table *r = pl_vec_fill("f", t, 1, &n, &e);
  TC_EQ_INT(r->cols[0]->type, PL_NUM);
  TC_NEAR(r->cols[0]->v.num[1], -2.25, 0);
  TC_NEAR(r->cols[0]->v.num[2], 12345, 0);
  pl_table_free(r);
  /* n filled with 0 stays integer: 3 0 12345 7 */
  pl_operand zero = intop(0);
  r = pl_vec_fill("f", t, 2, &zero, &e);
  TC_EQ_INT(r->cols[0]->type, PL_INT);
  TC_EQ_INT(r->cols[0]->v.i64[1], 0);
  TC_EQ_INT(r->cols[0]->v.i64[2], 12345);
  pl_table_free(r);
  /* k filled with "z": a z b c; with a number: an error */
  pl_operand z = strop("z");
  r = pl_vec_fill("f", t, 0, &z, &e);
  TC_EQ_STR(str(r, 1), "z");
  TC_EQ_STR(str(r, 3), "c");
  pl_table_free(r);
  pl_operand half = numop(0.5);
  TC_CHECK(pl_vec_fill("f", t, 0, &half, &e) == NULL);
  TC_EQ_STR(e.msg, "cannot fill strings with numbers");

  /* "%s: %.4g of %d (%5.1f%%)" over k, x, n, x:
  ** row 1 "a: 1.5 of 3 (  1.5%)"; row 2 missing (k); row 3 missing (x);
  ** row 4 "c: 40 of 7 ( 40.0%)" */
  pl_err_clear(&e);
  pl_operand ops[] = { k, x, n, x };
  r = pl_vec_sprintf("s", "%s: %.4g of %d (%5.1f%%)", ops, 4, &e);
  TC_CHECK(r != NULL);
  TC_EQ_STR(str(r, 0), "a: 1.5 of 3 (  1.5%)");
  TC_CHECK(str(r, 1) == NULL && str(r, 2) == NULL);
  TC_EQ_STR(str(r, 3), "c: 40 of 7 ( 40.0%)");
  pl_table_free(r);
  /* %.4g of 12345 is 1.234e+04; %s of numbers as Lua's tostring: 12345 and 40.0 */
  pl_operand ops2[] = { n, n, x };
  r = pl_vec_sprintf("s", "%.4g|%s|%s", ops2, 3, &e);
  TC_EQ_STR(str(r, 2) ? "?" : "-", "-");
  TC_EQ_STR(str(r, 3), "7|7|40.0");
  pl_table_free(r);
  pl_operand ops3[] = { n, x };
  r = pl_vec_sprintf("s", "%.4g %x", ops3, 1, &e);
  TC_CHECK(r == NULL);
  TC_EQ_STR(e.msg, "sprintf: the format has 2 conversions for 1 values");
  pl_operand big[] = { n };
  r = pl_vec_sprintf("s", "%.4g", big, 1, &e);
  TC_EQ_STR(str(r, 2), "1.234e+04");
  pl_table_free(r);
  /* %d of a number that is not integral: an error naming the row */
  pl_operand bad[] = { x };
  TC_CHECK(pl_vec_sprintf("s", "%d", bad, 1, &e) == NULL);
  TC_EQ_STR(e.msg, "sprintf: row 1: %d: number 1.5 has no integer representation");
  TC_CHECK(pl_vec_sprintf("s", "%q", bad, 1, &e) == NULL);
  TC_EQ_STR(e.msg, "sprintf: invalid conversion '%q' in the format");
  pl_operand scal[] = { numop(1) };
  TC_CHECK(pl_vec_sprintf("s", "%g", scal, 1, &e) == NULL);

  pl_table_free(t);
  return tc_done();
}

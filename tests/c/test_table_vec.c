/* test_table_vec.c -- the vector operations of the table engine
** (table_vec.c) and the new aggregates, on a small table whose expected
** values are worked out by hand in the comments. */
#include "tcheck.h"
#include "table.h"

static pl_table *sample(void) {
  /* name   dur  n    w
  ** a      10   1    1
  ** b      30   2    3
  ** a      20   NA   1
  ** c      NA   4    2
  ** b      40   5    1 */
  pl_table *t = pl_table_new("k");
  int cn = pl_table_add_col(t, "name", PL_STR);
  int cd = pl_table_add_col(t, "dur", PL_NUM);
  int ci = pl_table_add_col(t, "n", PL_INT);
  int cw = pl_table_add_col(t, "w", PL_INT);
  const char *names[] = { "a", "b", "a", "c", "b" };
  double durs[] = { 10, 30, 20, NAN, 40 };
  int64_t ns[] = { 1, 2, PL_INT_NA, 4, 5 }, ws[] = { 1, 3, 1, 2, 1 };
  for (int i = 0; i < 5; i++) {
    pl_row_put_str(t, cn, names[i], 1);
    if (!isnan(durs[i])) pl_row_put_num(t, cd, durs[i]);
    if (ns[i] != PL_INT_NA) pl_row_put_int(t, ci, ns[i]);
    pl_row_put_int(t, cw, ws[i]);
    pl_row_end(t);
  }
  return t;
}

static pl_operand colop(const pl_table *t, int c) {
  pl_operand o = { t, c, PL_NUM, 0, 0, NULL, 0 };
  return o;
}
static pl_operand intop(int64_t v) {
  pl_operand o = { NULL, 0, PL_INT, 0, v, NULL, 0 };
  return o;
}
static pl_operand numop(double v) {
  pl_operand o = { NULL, 0, PL_NUM, v, 0, NULL, 0 };
  return o;
}
static pl_operand strop(const char *s) {
  pl_operand o = { NULL, 0, PL_STR, 0, 0, s, strlen(s) };
  return o;
}

int main(void) {
  pl_table *t = sample();
  pl_err e;
  pl_err_clear(&e);

  /* n * 2 stays integer: 2 4 NA 8 10 */
  pl_operand n = colop(t, 2), two = intop(2);
  pl_table *r = pl_vec_binary("x", &n, &two, PL_V_MUL, &e);
  TC_EQ_INT(r->cols[0]->type, PL_INT);
  TC_EQ_INT(r->cols[0]->v.i64[1], 4);
  TC_CHECK(r->cols[0]->v.i64[2] == PL_INT_NA);
  TC_EQ_INT(r->cols[0]->v.i64[4], 10);
  pl_table_free(r);

  /* dur / n: 10 15 NA NA 8 (a number column) */
  pl_operand d = colop(t, 1);
  r = pl_vec_binary("x", &d, &n, PL_V_DIV, &e);
  TC_EQ_INT(r->cols[0]->type, PL_NUM);
  TC_NEAR(r->cols[0]->v.num[1], 15, 0);
  TC_CHECK(isnan(r->cols[0]->v.num[2]) && isnan(r->cols[0]->v.num[3]));
  TC_NEAR(r->cols[0]->v.num[4], 8, 0);
  pl_table_free(r);

  /* dur >= 20: F T T F(missing) T */
  pl_operand twenty = numop(20);
  r = pl_vec_binary("m", &d, &twenty, PL_V_GE, &e);
  TC_EQ_INT(r->cols[0]->type, PL_BOOL);
  int64_t want_ge[] = { 0, 1, 1, 0, 1 };
  for (int i = 0; i < 5; i++) TC_EQ_INT(r->cols[0]->v.b[i], want_ge[i]);

  /* name == "b": F T F F T; AND with the mask above: F T F F T; OR: F T T F T */
  pl_operand nm = colop(t, 0), b = strop("b");
  pl_table *m2 = pl_vec_binary("m2", &nm, &b, PL_V_EQ, &e);
  pl_operand o1 = colop(r, 0), o2 = colop(m2, 0);
  pl_table *an = pl_vec_binary("and", &o1, &o2, PL_V_AND, &e), *orr = pl_vec_binary("or", &o1, &o2, PL_V_OR, &e);
  int64_t want_and[] = { 0, 1, 0, 0, 1 }, want_or[] = { 0, 1, 1, 0, 1 };
  for (int i = 0; i < 5; i++) {
    TC_EQ_INT(an->cols[0]->v.b[i], want_and[i]);
    TC_EQ_INT(orr->cols[0]->v.b[i], want_or[i]);
  }

  /* filter by the OR mask: rows 2 3 5 -> durations 30 20 40 */
  pl_table *f = pl_table_filter(t, orr->cols[0]);
  TC_EQ_INT(f->nrows, 3);
  TC_NEAR(pl_cell_num(f, 1, 0), 30, 0);
  TC_NEAR(pl_cell_num(f, 1, 1), 20, 0);
  TC_NEAR(pl_cell_num(f, 1, 2), 40, 0);
  pl_table_free(f);

  /* name < "b" (bytewise): T F T F F, missing never true */
  r->cols[0]->v.b[0] = 0;
  pl_table *lt = pl_vec_binary("lt", &nm, &b, PL_V_LT, &e);
  int64_t want_lt[] = { 1, 0, 1, 0, 0 };
  for (int i = 0; i < 5; i++) TC_EQ_INT(lt->cols[0]->v.b[i], want_lt[i]);
  pl_table_free(lt);

  /* string with number: an error */
  TC_CHECK(pl_vec_binary("bad", &nm, &twenty, PL_V_EQ, &e) == NULL);
  TC_CHECK(strstr(e.msg, "cannot compare strings with numbers") != NULL);

  /* clip dur to [15, 35]: 15 30 20 NA 35 */
  pl_table *c = pl_vec_clip("c", t, 1, 15, 35, &e);
  double want_clip[] = { 15, 30, 20, NAN, 35 };
  for (int i = 0; i < 5; i++) {
    if (isnan(want_clip[i])) TC_CHECK(isnan(c->cols[0]->v.num[i]));
    else TC_NEAR(c->cols[0]->v.num[i], want_clip[i], 0);
  }
  pl_table_free(c);

  /* wmean of dur weighted by w per name, rows where dur present:
  ** a: (10*1 + 20*1) / 2 = 15; b: (30*3 + 40*1) / 4 = 32.5; c: missing.
  ** last(n): a: 1 (row 3 missing), b: 5, c: 4.
  ** sum(w) where dur >= 20: a: 1, b: 4, c: 0. */
  int key = 0;
  pl_agg aggs[3] = { { "wm", PL_AGG_WMEAN, 1, 0, 3, NULL },
                     { "last", PL_AGG_LAST, 2, 0, -1, NULL },
                     { "s", PL_AGG_SUM, 3, 0, -1, r->cols[0] } };
  r->cols[0]->v.b[0] = 0;
  pl_table *g = pl_table_group(t, &key, 1, aggs, 3, &e);
  TC_NEAR(pl_cell_num(g, 1, 0), 15, 1e-15);
  TC_NEAR(pl_cell_num(g, 1, 1), 32.5, 1e-15);
  TC_CHECK(isnan(pl_cell_num(g, 1, 2)));
  TC_EQ_INT(pl_cell_int(g, 2, 0), 1);
  TC_EQ_INT(pl_cell_int(g, 2, 1), 5);
  TC_EQ_INT(pl_cell_int(g, 2, 2), 4);
  TC_EQ_INT(pl_cell_int(g, 3, 0), 1);
  TC_EQ_INT(pl_cell_int(g, 3, 1), 4);
  TC_EQ_INT(pl_cell_int(g, 3, 2), 0);
  pl_table_free(g);

  /* first_row per name: a 1, b 2, c 4; where dur >= 20 (mask F T T F T):
  ** a 3, b 2, c missing */
  r->cols[0]->v.b[0] = 0;
  pl_agg fr[2] = { { "fr", PL_AGG_FIRST_ROW, -1, 0, -1, NULL }, { "frw", PL_AGG_FIRST_ROW, -1, 0, -1, r->cols[0] } };
  g = pl_table_group(t, &key, 1, fr, 2, &e);
  TC_EQ_INT(g->cols[1]->type, PL_INT);
  TC_EQ_INT(pl_cell_int(g, 1, 0), 1);
  TC_EQ_INT(pl_cell_int(g, 1, 1), 2);
  TC_EQ_INT(pl_cell_int(g, 1, 2), 4);
  TC_EQ_INT(pl_cell_int(g, 2, 0), 3);
  TC_EQ_INT(pl_cell_int(g, 2, 1), 2);
  TC_CHECK(pl_cell_int(g, 2, 2) == PL_INT_NA);
  pl_table_free(g);

  /* fill: n with w: 1 2 1 4 5 (integer); dur with 0: 10 30 20 0 40 */
  pl_operand wo = colop(t, 3), zero = intop(0);
  pl_table *fl = pl_vec_fill("f", t, 2, &wo, &e);
  TC_EQ_INT(fl->cols[0]->type, PL_INT);
  int64_t want_fill[] = { 1, 2, 1, 4, 5 };
  for (int i = 0; i < 5; i++) TC_EQ_INT(fl->cols[0]->v.i64[i], want_fill[i]);
  pl_table_free(fl);
  fl = pl_vec_fill("f", t, 1, &zero, &e);
  TC_EQ_INT(fl->cols[0]->type, PL_NUM);
  double want_fd[] = { 10, 30, 20, 0, 40 };
  for (int i = 0; i < 5; i++) TC_NEAR(fl->cols[0]->v.num[i], want_fd[i], 0);
  pl_table_free(fl);

  /* group ids: a a -> 0, b -> 1, c -> 2 */
  size_t gid[5], *first = NULL;
  TC_EQ_INT(pl_table_group_ids(t, &key, 1, gid, &first), 3);
  size_t want_gid[] = { 0, 1, 0, 2, 1 };
  for (int i = 0; i < 5; i++) TC_EQ_INT(gid[i], want_gid[i]);
  TC_EQ_INT(first[2], 3);
  free(first);

  /* pivot: index name, columns w, values dur, sum:
  **        1    3    2
  ** a     30    -    -
  ** b     40   30    -
  ** c      -    -    0 (a pair whose only value is missing sums to 0) */
  pl_table *p = pl_table_pivot(t, &key, 1, 3, 1, PL_AGG_SUM, &e);
  TC_EQ_INT(p->ncols, 4);
  TC_EQ_STR(p->cols[1]->name, "1");
  TC_EQ_STR(p->cols[2]->name, "3");
  TC_EQ_STR(p->cols[3]->name, "2");
  TC_NEAR(pl_cell_num(p, 1, 0), 30, 0);
  TC_NEAR(pl_cell_num(p, 1, 1), 40, 0);
  TC_NEAR(pl_cell_num(p, 2, 1), 30, 0);
  TC_CHECK(pl_cell_missing(p, 2, 0));
  TC_CHECK(pl_cell_missing(p, 1, 2));
  TC_NEAR(pl_cell_num(p, 3, 2), 0, 0);
  pl_table_free(p);

  /* isin {"c", "a"}: T F T T F */
  pl_table *set = pl_table_new("set");
  int sc = pl_table_add_col(set, "v", PL_STR);
  pl_row_put_str(set, sc, "c", 1);
  pl_row_end(set);
  pl_row_put_str(set, sc, "a", 1);
  pl_row_end(set);
  pl_table *in = pl_vec_isin("in", t, 0, set, 0, &e);
  int64_t want_in[] = { 1, 0, 1, 1, 0 };
  for (int i = 0; i < 5; i++) TC_EQ_INT(in->cols[0]->v.b[i], want_in[i]);
  pl_table_free(in);
  pl_table_free(set);

  /* booleans take one byte; a missing one is PL_BOOL_NA */
  TC_EQ_INT(sizeof r->cols[0]->v.b[0], 1);
  pl_table *nb = pl_vec_not("not", an, 0, &e);
  TC_EQ_INT(nb->cols[0]->v.b[1], 0);
  TC_EQ_INT(nb->cols[0]->v.b[0], 1);
  pl_table_free(nb);

  /* an alias shares the values (one buffer) until one of the two is written */
  {
    pl_table *a = pl_table_new("alias");
    int cl = pl_table_add_col(a, "lat", PL_NUM), cx = pl_table_add_col(a, "x", PL_INT);
    for (int i = 0; i < 3; i++) {
      pl_row_put_num(a, cl, 10.0 * (i + 1));
      pl_row_put_int(a, cx, i);
      pl_row_end(a);
    }
    int cd = pl_table_add_alias(a, "dur", cl, cl + 1);
    TC_EQ_INT(cd, 1);
    TC_EQ_STR(a->cols[1]->name, "dur");
    TC_EQ_STR(a->cols[2]->name, "x");
    TC_CHECK(a->cols[0]->v.num == a->cols[1]->v.num);
    TC_EQ_INT(pl_table_add_alias(a, "lat", 0, 0), -1); /* the name is taken */
    pl_table *cp = pl_table_copy(a);                   /* copies own their values */
    TC_CHECK(cp->cols[1]->v.num != a->cols[1]->v.num);
    /* a new row writes both columns: each gets its own buffer first */
    pl_row_put_num(a, 0, 40);
    pl_row_put_num(a, 1, 41);
    pl_row_end(a);
    TC_CHECK(a->cols[0]->v.num != a->cols[1]->v.num);
    TC_NEAR(pl_cell_num(a, 0, 3), 40, 0);
    TC_NEAR(pl_cell_num(a, 1, 3), 41, 0);
    TC_NEAR(pl_cell_num(a, 1, 2), 30, 0);
    TC_NEAR(pl_cell_num(cp, 1, 2), 30, 0);
    /* dropping one of two sharing columns leaves the other's values */
    pl_table *b = pl_table_copy(cp);
    pl_table_add_alias(b, "d2", 0, -1);
    pl_table_drop_col(b, 0);
    TC_NEAR(pl_cell_num(b, pl_table_col(b, "d2"), 1), 20, 0);
    pl_table_retype(b, pl_table_col(b, "d2"), PL_INT);
    TC_EQ_INT(pl_cell_int(b, pl_table_col(b, "d2"), 2), 30);
    pl_table_free(b);
    pl_table_free(cp);
    pl_table_free(a);
  }

  /* const and rownum: columns of t's 5 rows */
  {
    pl_operand seven = intop(7), half = numop(0.5), word = strop("gemm");
    pl_table *ci = pl_vec_const("c", t, PL_INT, &seven);
    TC_EQ_INT(ci->nrows, 5);
    TC_EQ_INT(ci->cols[0]->type, PL_INT);
    TC_EQ_INT(pl_cell_int(ci, 0, 0), 7);
    TC_EQ_INT(pl_cell_int(ci, 0, 4), 7);
    pl_table *cn = pl_vec_const("c", t, PL_NUM, &seven); /* 7 as a float */
    TC_NEAR(pl_cell_num(cn, 0, 3), 7.0, 0);
    pl_table *ch = pl_vec_const("c", t, PL_NUM, &half);
    TC_NEAR(pl_cell_num(ch, 0, 2), 0.5, 0);
    pl_table *cs = pl_vec_const("c", t, PL_STR, &word); /* shares t's pool */
    TC_CHECK(cs->pool == t->pool);
    size_t len = 0;
    const char *s4 = pl_cell_str(cs, 0, 4, &len);
    TC_CHECK(s4 != NULL && len == 4 && memcmp(s4, "gemm", 4) == 0);
    pl_table *cm = pl_vec_const("c", t, PL_INT, NULL); /* all missing */
    for (size_t i = 0; i < 5; i++) TC_CHECK(pl_cell_missing(cm, 0, i));
    pl_table *cb = pl_vec_const("c", t, PL_BOOL, NULL);
    TC_EQ_INT(cb->cols[0]->v.b[0], PL_BOOL_NA);
    pl_table *rn = pl_vec_rownum("r", t);
    TC_EQ_INT(rn->cols[0]->type, PL_INT);
    for (size_t i = 0; i < 5; i++) TC_EQ_INT(pl_cell_int(rn, 0, i), (long long)i + 1);
    pl_table *empty = pl_table_new("e");
    pl_table *rz = pl_vec_rownum("r", empty), *cz = pl_vec_const("c", empty, PL_STR, &word);
    TC_EQ_INT(rz->nrows, 0);
    TC_EQ_INT(cz->nrows, 0);
    pl_table_free(ci);
    pl_table_free(cn);
    pl_table_free(ch);
    pl_table_free(cs);
    pl_table_free(cm);
    pl_table_free(cb);
    pl_table_free(rn);
    pl_table_free(rz);
    pl_table_free(cz);
    pl_table_free(empty);
  }

  pl_table_free(an);
  pl_table_free(orr);
  pl_table_free(m2);
  pl_table_free(r);
  pl_table_free(t);
  return tc_done();
}

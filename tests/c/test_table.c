/* test_table.c -- the table engine: building, sorting, top-k, grouping,
** joining and writing, with expected values worked out by hand. */
#include "tcheck.h"
#include "table.h"
#include "scan.h"
#include "names.h"
#include "quantile.h"

static pl_table *sample(void) {
  /* name   dur  n
  ** a      10   1
  ** b      30   2
  ** a      20   3
  ** c      (NA) 4
  ** b      40   5 */
  pl_table *t = pl_table_new("k");
  int cn = pl_table_add_col(t, "name", PL_STR);
  int cd = pl_table_add_col(t, "dur", PL_NUM);
  int ci = pl_table_add_col(t, "n", PL_INT);
  const char *names[] = { "a", "b", "a", "c", "b" };
  double durs[] = { 10, 30, 20, NAN, 40 };
  for (int i = 0; i < 5; i++) {
    pl_row_put_str(t, cn, names[i], 1);
    if (!isnan(durs[i])) pl_row_put_num(t, cd, durs[i]);
    pl_row_put_int(t, ci, i + 1);
    pl_row_end(t);
  }
  return t;
}

int main(void) {
  pl_table *t = sample();
  TC_EQ_INT(t->nrows, 5);
  TC_EQ_INT(t->ncols, 3);
  TC_CHECK(pl_cell_missing(t, 1, 3));
  size_t n;
  TC_EQ_STR(pl_cell_str(t, 0, 2, &n), "a");
  TC_EQ_INT(pl_pool_count(t->pool), 3); /* a, b, c interned once */

  /* a column added later is back-filled with missing */
  int late = pl_table_add_col(t, "late", PL_NUM);
  TC_CHECK(pl_cell_missing(t, late, 0) && pl_cell_missing(t, late, 4));
  pl_table_drop_col(t, late);

  /* stable sort by name asc then dur desc: a20 a10 b40 b30 c */
  pl_sortkey keys[2] = { { 0, 0 }, { 1, 1 } };
  size_t *ord = pl_table_order(t, keys, 2);
  size_t want[5] = { 2, 0, 4, 1, 3 };
  for (int i = 0; i < 5; i++) TC_EQ_INT(ord[i], want[i]);
  free(ord);
  /* descending by dur: missing still last */
  pl_sortkey k1 = { 1, 1 };
  ord = pl_table_order(t, &k1, 1);
  TC_EQ_INT(ord[0], 4);
  TC_EQ_INT(ord[4], 3);
  free(ord);

  /* top 2 by dur: rows 4 (40), 1 (30) */
  size_t *top = pl_table_topk(t, 1, 2, 1, &n);
  TC_EQ_INT(n, 2);
  TC_EQ_INT(top[0], 4);
  TC_EQ_INT(top[1], 1);
  free(top);

  /* group by name: a: count 2 sum 30 mean 15; b: 2, 70, 35; c: 1, 0, NA */
  int gk[1] = { 0 };
  pl_agg aggs[4] = { { "calls", PL_AGG_COUNT, -1, 0, -1, NULL },
                     { "total", PL_AGG_SUM, 1, 0, -1, NULL },
                     { "mean", PL_AGG_MEAN, 1, 0, -1, NULL },
                     { "p50", PL_AGG_QUANTILE, 1, 0.5, -1, NULL } };
  pl_err e;
  pl_table *g = pl_table_group(t, gk, 1, aggs, 4, &e);
  TC_EQ_INT(g->nrows, 3);
  TC_EQ_STR(pl_cell_str(g, 0, 1, &n), "b");
  TC_EQ_INT(pl_cell_int(g, 1, 1), 2);
  TC_NEAR(pl_cell_num(g, 2, 1), 70, 0);
  TC_NEAR(pl_cell_num(g, 3, 0), 15, 0);
  TC_NEAR(pl_cell_num(g, 4, 1), 35, 0);
  TC_CHECK(isnan(pl_cell_num(g, 3, 2)));
  pl_table_free(g);

  /* join with a table built on another pool */
  pl_table *u = pl_table_new("u");
  int un = pl_table_add_col(u, "name", PL_STR), uw = pl_table_add_col(u, "weight", PL_NUM);
  pl_row_put_str(u, un, "b", 1);
  pl_row_put_num(u, uw, 2);
  pl_row_end(u);
  pl_row_put_str(u, un, "a", 1);
  pl_row_put_num(u, uw, 1);
  pl_row_end(u);
  int ak[1] = { 0 }, bk[1] = { 0 };
  pl_table *j = pl_table_join(t, u, ak, bk, 1, PL_JOIN_INNER, "_u", &e);
  TC_EQ_INT(j->nrows, 4); /* c has no match */
  TC_NEAR(pl_cell_num(j, pl_table_col(j, "weight"), 1), 2, 0);
  pl_table_free(j);
  j = pl_table_join(t, u, ak, bk, 1, PL_JOIN_LEFT, "_u", &e);
  TC_EQ_INT(j->nrows, 5);
  TC_CHECK(pl_cell_missing(j, pl_table_col(j, "weight"), 3));
  pl_table_free(j);
  pl_table_free(u);

  /* writers */
  pl_buf b;
  pl_buf_init(&b);
  pl_table_write_csv(t, &b);
  TC_EQ_STR(b.data, "name,dur,n\na,10,1\nb,30,2\na,20,3\nc,,4\nb,40,5\n");
  pl_buf_free(&b);
  pl_table *h = pl_table_new("x");
  int hs = pl_table_add_col(h, "s", PL_STR), hv = pl_table_add_col(h, "v", PL_NUM);
  pl_row_put_str(h, hs, "a,\"b\"", 5);
  pl_row_put_num(h, hv, 0.1);
  pl_row_end(h);
  pl_buf_init(&b);
  pl_table_write_csv(h, &b);
  TC_EQ_STR(b.data, "s,v\n\"a,\"\"b\"\"\",0.1\n");
  pl_buf_free(&b);
  pl_buf_init(&b);
  pl_table_write_json(h, &b);
  TC_EQ_STR(b.data, "[\n {\"s\":\"a,\\\"b\\\"\", \"v\":0.1}\n]");
  pl_buf_free(&b);
  pl_fmtopts fo = { 1, 0, 0, 6 };
  pl_buf_init(&b);
  pl_row_put_str(h, hs, "x|y", 3);
  pl_row_put_num(h, hv, 1234.5);
  pl_row_end(h);
  pl_table_format(h, &fo, &b);
  TC_EQ_STR(b.data, "| s     |      v |\n| ----- | -----: |\n| a,\"b\" |    0.1 |\n| x\\|y  | 1234.5 |\n");
  pl_buf_free(&b);
  pl_table_free(h);
  pl_table_free(t);

  /* numbers */
  double v;
  TC_CHECK(pl_parse_double("4160", 4, &v) == 0 && v == 4160);
  TC_CHECK(pl_parse_double("0.1", 3, &v) == 0 && v == 0.1);
  TC_CHECK(pl_parse_double("1.5e-3", 6, &v) == 0 && v == 1.5e-3);
  TC_CHECK(pl_parse_double("12345678901234567890", 20, &v) == 0 && v == 12345678901234567890.0);
  TC_CHECK(pl_parse_double("1.2.3", 5, &v) != 0);
  TC_CHECK(pl_parse_double("", 0, &v) != 0);
  TC_CHECK(pl_parse_number_sep("1,532,524,284", 13, 0, &v) == 0 && v == 1532524284.0);
  TC_CHECK(pl_parse_number_sep("1,53", 4, 0, &v) != 0);
  TC_CHECK(pl_parse_number_sep("23 982 976", 10, 1, &v) == 0 && v == 23982976.0);
  TC_CHECK(pl_parse_number_sep("866,86", 6, 1, &v) == 0 && v == 866.86);
  int64_t iv;
  TC_CHECK(pl_parse_int64("9223372036854775807", 19, &iv) == 0 && iv == INT64_MAX);
  TC_CHECK(pl_parse_int64("9223372036854775808", 19, &iv) != 0);
  char tmp[64];
  pl_fmt_double(tmp, sizeof tmp, 0.1);
  TC_EQ_STR(tmp, "0.1");
  /* shortest text that reads back: 16 digits for 1/3 (repr() in Python), 17 for 0.1+0.2 */
  pl_fmt_double(tmp, sizeof tmp, 1.0 / 3);
  TC_EQ_STR(tmp, "0.3333333333333333");
  pl_fmt_double(tmp, sizeof tmp, 0.1 + 0.2);
  TC_EQ_STR(tmp, "0.30000000000000004");
  pl_fmt_double(tmp, sizeof tmp, 1e300);
  TC_EQ_STR(tmp, "1e+300");

  /* short names */
  char sn[256];
  pl_short_name("void at::native::vectorized_elementwise_kernel<4, F>(int, F)", 61, sn, sizeof sn);
  TC_EQ_STR(sn, "vectorized_elementwise_kernel");
  pl_short_name("sm80_xmma_fprop_implicit_gemm_indexed_wo_smem_f...", 50, sn, sizeof sn);
  TC_EQ_STR(sn, "sm80_xmma_fprop_implicit_gemm_indexed_wo_smem_f");
  pl_short_name("ampere_sgemm_128x64_tn", 22, sn, sizeof sn);
  TC_EQ_STR(sn, "ampere_sgemm_128x64_tn");
  /* launch wrappers: the first template argument names the kernel */
  {
    static const char *const cases[][2] = {
      { "void "
        "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_"
        "32x3_nn_align4::Params)",
        "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4" },
      { "void "
        "cutlass::Kernel<cutlass::conv::kernel::ImplicitGemmConvolution<cutlass::conv::threadblock::"
        "ImplicitGemmMultistage<cutlass::gemm::GemmShape<(int)128, (int)128, (int)64>, int>, int, "
        "(cutlass::conv::Operator)0>>(T1::Params)",
        "ImplicitGemmConvolution" },
      { "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int>, void>>(T1::Params)",
        "GemmUniversal" },
      { "cutlass::Kernel2<cutlass_80_wmma_tensorop_h161616gemm_32x32_128x2_nn_align8>(Params)",
        "cutlass_80_wmma_tensorop_h161616gemm_32x32_128x2_nn_align8" },
      { "void cutlass::Kernel<cutlass_80_tensorop_f16_s16816g...",
        "cutlass_80_tensorop_f16_s16816g" }, /* cut by the tool */
      { "cutlass::Kernel", "Kernel" },       /* no argument: the wrapper's name */
      { "cutlass_cudnn_infer::Kernel", "Kernel" },
      { "void mykernel<cutlass::Kernel<X>>(int)", "mykernel" }, /* a wrapper as an argument: not taken */
      { "void cutlass::Kernel<>(int)", "Kernel" },              /* an empty argument: the wrapper's name */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      pl_short_name(cases[i][0], strlen(cases[i][0]), sn, sizeof sn);
      TC_EQ_STR(sn, cases[i][1]);
    }
  }

  /* group ids of one string key: by interned id (a small pool) and by hash
  ** (a pool far larger than the table takes the hash path) give the same
  ** groups, in order of first appearance, by hand: x y NA x z y NA ->
  ** 0 1 2 0 3 1 2, first rows 0 1 2 4 */
  {
    const char *keys[7] = { "x", "y", NULL, "x", "z", "y", NULL };
    pl_table *g[2];
    for (int k = 0; k < 2; k++) {
      g[k] = pl_table_new("g");
      int gc = pl_table_add_col(g[k], "k", PL_STR);
      if (k == 1)
        for (int j = 0; j < 5000; j++) {
          char b[16];
          snprintf(b, sizeof b, "pad%d", j);
          pl_pool_intern(g[k]->pool, b, strlen(b));
        }
      for (int i = 0; i < 7; i++) {
        if (keys[i]) pl_row_put_str(g[k], gc, keys[i], 1);
        pl_row_end(g[k]);
      }
    }
    TC_CHECK(pl_pool_count(g[1]->pool) > 4 * 7 + 1024);
    size_t want[7] = { 0, 1, 2, 0, 3, 1, 2 }, wfirst[4] = { 0, 1, 2, 4 };
    for (int k = 0; k < 2; k++) {
      size_t gid[7], *first = NULL;
      int key = 0;
      TC_EQ_INT(pl_table_group_ids(g[k], &key, 1, gid, &first), 4);
      for (int i = 0; i < 7; i++) TC_EQ_INT(gid[i], want[i]);
      for (int i = 0; i < 4; i++) TC_EQ_INT(first[i], wfirst[i]);
      free(first);
      pl_table_free(g[k]);
    }
  }

  /* quantiles, type 7: [1,2,3,4] q=0.25 -> 1.75 */
  double xs[4] = { 4, 1, 3, 2 };
  TC_NEAR(pl_quantile_select(xs, 4, 0.25), 1.75, 1e-15);
  return tc_done();
}

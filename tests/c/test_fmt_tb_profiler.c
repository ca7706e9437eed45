/* test_fmt_tb_profiler.c -- format "tb-profiler" (TensorBoard profiler plugin
** views, one JSON document per line) on seed 001 and the corpus file.
**
** Expected figures computed with /usr/bin/python3 and json:
**   L = [json.loads(l) for l in open(FILE)]
**   operators: len(L[2]['data']), sum(x['device_self_duration'] for x in L[2]['data']) (and L[7])
**   kernels:   len(L[3]['data']['rows']), sum(r[3] for r in L[3]['data']['rows']) (and L[8])
**   steps:     [x for x in L[0]['steps']['rows'][0] if not an HTML tooltip]
** Seed 001 is read from $PERFLAB_DATA/seeds (a failure when absent); the
** corpus file (BSD-3-Clause) is a fixture. */
#include "tcheck.h"
#include "format.h"
#include "table.h"

#include <stdint.h>

static double sum_run(const pl_table *t, const char *col, int run) {
  int c = pl_table_col(t, col), cr = pl_table_col(t, "run");
  double s = 0;
  for (size_t r = 0; r < t->nrows; r++)
    if (pl_cell_int(t, cr, r) == run && !pl_cell_missing(t, c, r)) s += pl_cell_num(t, c, r);
  return s;
}

static long count_run(const pl_table *t, int run) {
  int cr = pl_table_col(t, "run");
  long n = 0;
  for (size_t r = 0; r < t->nrows; r++) n += pl_cell_int(t, cr, r) == run;
  return n;
}

static double cell(const pl_table *t, const char *col, size_t row) { return pl_cell_num(t, pl_table_col(t, col), row); }

int main(void) {
  pl_err err;
  char path[4096];
  const char *shared = getenv("PERFLAB_DATA");
  if (!shared) shared = "tests/data";

  snprintf(path, sizeof path, "%s/seeds/001_e0954df1c8df0a17.txt", shared);
  size_t len;
  char *seed = tc_slurp(path, &len);
  if (!seed) tc_need(path);
  else {
    pl_profile *p = pl_load_buffer("001.txt", seed, len, NULL, NULL, &err); /* by content */
    TC_CHECK(p != NULL);
    TC_EQ_STR(p->format, "tb-profiler");
    TC_NEAR(pl_profile_meta_get(p, "runs")->num, 2, 0);
    const pl_table *ops = pl_profile_find(p, "operators");
    TC_EQ_INT(count_run(ops, 1), 93);
    TC_EQ_INT(count_run(ops, 2), 93);
    TC_NEAR(sum_run(ops, "device_self_ns", 1), 641443e3, 0);
    TC_NEAR(sum_run(ops, "device_self_ns", 2), 631880e3, 0);
    /* first operator row: aten::convolution_backward, 106 calls, 145962 / 26499 / 60063 us */
    size_t n;
    TC_EQ_STR(pl_cell_str(ops, pl_table_col(ops, "name"), 0, &n), "aten::convolution_backward");
    TC_EQ_INT(pl_cell_int(ops, pl_table_col(ops, "calls"), 0), 106);
    TC_NEAR(cell(ops, "device_total_ns", 0), 145962e3, 0);
    TC_NEAR(cell(ops, "host_self_ns", 0), 26499e3, 0);
    TC_NEAR(cell(ops, "host_total_ns", 0), 60063e3, 0);
    TC_EQ_INT(pl_cell_int(ops, pl_table_col(ops, "tc_eligible"), 0), 0);

    const pl_table *k = pl_profile_find(p, "kernel_summary");
    TC_EQ_INT(count_run(k, 1), 61);
    TC_EQ_INT(count_run(k, 2), 62);
    TC_NEAR(sum_run(k, "total_ns", 1), 578421e3, 0);
    TC_NEAR(sum_run(k, "total_ns", 2), 583538e3, 0);
    TC_NEAR(sum_run(k, "share_pct", 1), 100, 1e-9);
    /* first kernel: BatchNormBackward, No, 106 calls, 96916 total, 914 mean, 4001 max, 103 min */
    TC_EQ_STR(pl_cell_str(k, pl_table_col(k, "short_name"), 0, &n), "MLUUnionXKernelBatchNormBackward");
    TC_EQ_INT(pl_cell_int(k, pl_table_col(k, "calls"), 0), 106);
    TC_NEAR(cell(k, "mean_ns", 0), 914e3, 0);
    TC_NEAR(cell(k, "max_ns", 0), 4001e3, 0);
    TC_NEAR(cell(k, "min_ns", 0), 103e3, 0);
    TC_EQ_INT(pl_cell_int(k, pl_table_col(k, "tensor_cores_used"), 0), 0);

    /* run 1 step 0 exactly as the overview lists it (us):
    ** Kernel 576891, Memcpy 45666, Memset 0, Communication 9843, Runtime 4826274,
    ** DataLoader 0, CPU Exec 778361, Other 49752 */
    const pl_table *st = pl_profile_find(p, "steps");
    TC_EQ_INT(st->nrows, 2);
    TC_EQ_INT(pl_cell_int(st, pl_table_col(st, "run"), 0), 1);
    TC_EQ_INT(pl_cell_int(st, pl_table_col(st, "step"), 0), 0);
    TC_NEAR(cell(st, "kernel_ns", 0), 576891e3, 0);
    TC_NEAR(cell(st, "memcpy_ns", 0), 45666e3, 0);
    TC_NEAR(cell(st, "memset_ns", 0), 0, 0);
    TC_NEAR(cell(st, "communication_ns", 0), 9843e3, 0);
    TC_NEAR(cell(st, "runtime_ns", 0), 4826274e3, 0);
    TC_NEAR(cell(st, "dataloader_ns", 0), 0, 0);
    TC_NEAR(cell(st, "cpu_exec_ns", 0), 778361e3, 0);
    TC_NEAR(cell(st, "other_ns", 0), 49752e3, 0);
    TC_NEAR(cell(st, "total_ns", 0), 6286787e3, 0); /* = Average Step Time of run 1 */
    TC_NEAR(cell(st, "kernel_ns", 1), 580157e3, 0); /* run 2 */

    const pl_table *dm = pl_profile_find(p, "device_metrics");
    TC_EQ_STR(pl_cell_str(dm, pl_table_col(dm, "metric"), 0, &n), "MLU Utilization");
    TC_EQ_STR(pl_cell_str(dm, pl_table_col(dm, "device"), 0, &n), "MLU 0");
    TC_NEAR(cell(dm, "value", 0), 9.18, 0);
    TC_EQ_STR(pl_cell_str(dm, pl_table_col(dm, "raw"), 0, &n), "9.18 %");

    const pl_table *rec = pl_profile_find(p, "recommendations");
    TC_EQ_INT(rec->nrows, 1); /* run 2 says only N/A */
    TC_EQ_STR(pl_cell_str(rec, pl_table_col(rec, "text"), 0, &n),
              "MLU 0 has low utilization. You could try to increase batch size to improve. "
              "Note: Increasing batch size may affect the speed and stability of model convergence.");
    const pl_table *env = pl_profile_find(p, "environment");
    TC_EQ_INT(env->nrows, 4);
    TC_EQ_STR(pl_cell_str(env, pl_table_col(env, "value"), 1, &n), "MLU");
    TC_EQ_INT(p->ndiags, 4); /* the four pie views */
    pl_profile_free(p);

    /* a JSON line cut in half: FILE:LINE:COLUMN, -1, nothing partial */
    const char *l3 = seed;
    for (int i = 0; i < 2; i++) l3 = strchr(l3, '\n') + 1;
    const char *l4 = strchr(l3, '\n') + 1;
    size_t half = (size_t)(l4 - l3) / 2;
    pl_buf b;
    pl_buf_init(&b);
    pl_buf_add(&b, seed, (size_t)(l3 - seed) + half);
    pl_buf_addc(&b, '\n');
    pl_buf_add(&b, l4, len - (size_t)(l4 - seed));
    p = pl_load_buffer("cut.txt", b.data, b.len, "tb-profiler", NULL, &err);
    TC_CHECK(p == NULL);
    TC_EQ_INT(err.line, 3);
    TC_CHECK(err.col >= 1 && err.col <= half + 1);
    char m[2048];
    pl_err_format(&err, m, sizeof m);
    TC_CHECK(strncmp(m, "cut.txt:3:", 10) == 0);
    fprintf(stderr, "(cut line: %s)\n", m);
    const pl_format *f = pl_format_find("tb-profiler");
    pl_profile *q = pl_profile_new("tb-profiler", "x");
    pl_input in = { "x", b.data, b.len };
    TC_EQ_INT(f->parse(&in, q, NULL, &err), -1);
    TC_EQ_INT(q->ntables, 0);
    pl_profile_free(q);
    /* only the first half of the first line, no newline: also an error */
    p = pl_load_buffer("one.txt", seed, (size_t)(strchr(seed, '\n') - seed) / 2, "tb-profiler", NULL, &err);
    TC_CHECK(p == NULL);
    TC_EQ_INT(err.line, 1);
    pl_buf_free(&b);
    /* --table operators */
    const char *want[] = { "operators", NULL };
    pl_parse_opts o;
    memset(&o, 0, sizeof o);
    o.tables = want;
    p = pl_load_buffer("001.txt", seed, len, NULL, &o, &err);
    TC_EQ_INT(p->ntables, 1);
    TC_EQ_INT(pl_profile_find(p, "operators")->nrows, 186);
    pl_profile_free(p);
    free(seed);
  }

  /* the corpus file: plugin API outputs for two resnet50 runs (V100).
  ** python: operators 76 / 69 rows, device self 603558 / 614413 us;
  ** kernels 67 / 62 rows, total 591532 / 594868 us; 6 steps in run 1, 6 in run 2 */
  const char *fx = "tests/data/corpus/torch_tb_profiler/kineto_tb_plugin_test_result_check_file.txt";
  pl_profile *p = pl_load_file(fx, NULL, NULL, &err);
  TC_CHECK(p != NULL);
  if (p) {
    TC_EQ_STR(p->format, "tb-profiler");
    TC_NEAR(pl_profile_meta_get(p, "runs")->num, 2, 0);
    TC_EQ_STR(pl_profile_meta_get(p, "device")->text, "Tesla V100-DGXS-32GB");
    const pl_table *ops = pl_profile_find(p, "operators"), *k = pl_profile_find(p, "kernel_summary");
    TC_EQ_INT(count_run(ops, 1), 76);
    TC_EQ_INT(count_run(ops, 2), 69);
    TC_NEAR(sum_run(ops, "device_self_ns", 1), 603558e3, 0);
    TC_NEAR(sum_run(ops, "device_self_ns", 2), 614413e3, 0);
    TC_EQ_INT(count_run(k, 1), 67);
    TC_EQ_INT(count_run(k, 2), 62);
    TC_NEAR(sum_run(k, "total_ns", 1), 591532e3, 0);
    TC_NEAR(sum_run(k, "total_ns", 2), 594868e3, 0);
    /* first kernel row: Mean Blocks Per SM 42.25, Mean Est. Achieved Occupancy 29.97 */
    TC_NEAR(cell(k, "mean_blocks_per_sm", 0), 42.25, 0);
    TC_NEAR(cell(k, "mean_est_achieved_occupancy_pct", 0), 29.97, 0);
    const pl_table *st = pl_profile_find(p, "steps");
    TC_EQ_INT(count_run(st, 1), 6);
    TC_EQ_INT(count_run(st, 2), 6);
    TC_EQ_INT(pl_cell_int(st, pl_table_col(st, "step"), 0), 5);
    TC_NEAR(cell(st, "dataloader_ns", 0), 69317e3, 0);
    TC_CHECK(pl_table_col(st, "communication_ns") < 0); /* this plugin version has none */
    const pl_table *rec = pl_profile_find(p, "recommendations");
    size_t n;
    const char *r0 = pl_cell_str(rec, pl_table_col(rec, "text"), 0, &n);
    TC_CHECK(r0 &&
             strstr(r0, "enable multi-processes on data loading "
                        "(https://pytorch.org/docs/stable/data.html#single-and-multi-process-data-loading)") != NULL);
    pl_profile_free(p);
  }
  /* the expected gpu-metrics file of the same plugin is a Kineto trace */
  p = pl_load_file("tests/data/corpus/torch_tb_profiler/kineto_tb_plugin_test_gpu_metrics_expected.json", NULL, NULL,
                   &err);
  TC_CHECK(p != NULL);
  if (p) {
    TC_EQ_STR(p->format, "kineto");
    pl_profile_free(p);
  }
  return tc_done();
}

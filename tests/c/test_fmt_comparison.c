/* test_fmt_comparison.c -- format comparison-report on seed 002 (copied into
** tests/fixtures), the generic `markdown` format, the shared mdtable helper,
** and the error cases.
**
** Expected values were computed independently with a python3 one-off over the
** seed: the detail rows (lines 59-322) split on '|' and stripped, numbers read
** after removing ',' -> 264 rows, suspicion scores summing to 6746.6419,
** mu_normal summing to 1858558319.81, 102 "nan" p-values(mu); the cycle table
** (lines 14-25): normal times summing to 9000651.5 us, abnormal 7850018.0 us
** over 10 rows, 2 "-" cells.  The key findings and legend were counted by eye
** (3 findings with 3 metric lines each; 6 legend bullets).
*/
#include "fmt_helpers.h"
#include "mdtable.h"

static void seed002(void) {
  const char *path = "tests/fixtures/seed002_comparison_report.txt";
  pl_profile *p = fh_load(path, "comparison-report");
  if (!p) return;
  const pl_meta *m = pl_profile_meta_get(p, "pid");
  TC_CHECK(m && m->num == 944615);
  m = pl_profile_meta_get(p, "title");
  TC_CHECK(m && m->text &&
           strcmp(m->text, "Strict Performance Comparison: Processed\\SGLang\\gpu_instability (PID: 944615)") == 0);
  m = pl_profile_meta_get(p, "subject");
  TC_CHECK(m && m->text && strcmp(m->text, "Processed\\SGLang\\gpu_instability") == 0);

  const pl_table *d = pl_profile_find(p, "details");
  TC_EQ_INT(fh_rows(p, "details"), 264);
  TC_NEAR(fh_sum(d, "suspicion_score"), 6746.6419, 1e-9);
  TC_NEAR(fh_sum(d, "mu_normal"), 1858558319.81, 1e-9);
  static const char *cols[] = {
    "function", "metric", "device",   "suspicion_score", "beta_normal_pct", "beta_abnormal_pct", "delta_beta_pct",
    "z_beta",   "p_beta", "u_p_beta", "mu_normal",       "mu_abnormal",     "delta_mu",          "z_mu",
    "z_log_mu", "p_mu",   "u_p_mu"
  };
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
    int c = fh_col(d, cols[i]);
    TC_EQ_INT(c, (int)i); /* in the seed's order */
  }
  TC_EQ_STR(fh_str(d, "function", 0), "ampere_bf16_s16816gemm_bf16_64x64_sliced1x2_ldg8_f2f_stages_64x5_tn");
  TC_EQ_STR(fh_str(d, "metric", 0), "process_gpu_usage");
  TC_EQ_STR(fh_str(d, "device", 0), "GPU 7");
  TC_NEAR(fh_num(d, "suspicion_score", 0), 1561.72, 1e-12);
  TC_NEAR(fh_num(d, "mu_normal", 3), 118687.50, 1e-12); /* "118,687.50" */
  TC_NEAR(fh_num(d, "delta_mu", 3), -97687.5, 1e-12);
  int nan_p = 0, pc = fh_col(d, "p_mu");
  for (size_t r = 0; pc >= 0 && r < d->nrows; r++)
    if (isnan(pl_cell_num(d, pc, r))) nan_p++;
  TC_EQ_INT(nan_p, 102);
  TC_EQ_STR(fh_str(d, "metric", 263), "gpu_usage");

  const pl_table *cy = pl_profile_find(p, "cycle_distribution");
  TC_EQ_INT(fh_rows(p, "cycle_distribution"), 12);
  TC_NEAR(fh_sum(cy, "normal_ns"), 9000651.5e3, 1e-12);
  TC_NEAR(fh_sum(cy, "abnormal_ns"), 7850018.0e3, 1e-12);
  TC_CHECK(pl_cell_missing(cy, fh_col(cy, "abnormal_ns"), 10));
  TC_CHECK(pl_cell_missing(cy, fh_col(cy, "delta_pct"), 11));
  TC_NEAR(fh_num(cy, "delta_pct", 0), 29.74, 1e-12);
  TC_EQ_INT(fh_num(cy, "rank", 11), 12);

  const pl_table *s = pl_profile_find(p, "summary");
  TC_EQ_INT(fh_rows(p, "summary"), 2);
  TC_EQ_INT(fh_num(s, "normal", 0), 12);
  TC_NEAR(fh_num(s, "normal", 1), 750054.29e3, 1e-12); /* us -> ns */
  TC_EQ_STR(fh_str(s, "normal_raw", 1), "750,054.29");
  TC_EQ_STR(fh_str(s, "unit", 1), "ns");
  TC_NEAR(fh_num(s, "change_pct", 1), 4.66, 1e-12);
  TC_CHECK(pl_cell_missing(s, fh_col(s, "change_pct"), 0));

  const pl_table *k = pl_profile_find(p, "key_findings");
  TC_EQ_INT(fh_rows(p, "key_findings"), 3);
  TC_EQ_STR(fh_str(k, "function", 1), "ampere_bf16_s16816gemm_bf16_64x64_sliced1x2_ldg8_f2f_stages_64x6_tn");
  TC_EQ_STR(fh_str(k, "device", 1), "GPU 7");
  TC_NEAR(fh_num(k, "beta_from", 0), 2.71, 1e-12);
  TC_NEAR(fh_num(k, "beta_to", 0), 8.62, 1e-12);
  TC_NEAR(fh_num(k, "delta_ppt", 2), 1.49, 1e-12);
  TC_EQ_INT(fh_num(k, "p_value", 0), 0);
  TC_EQ_INT(fh_num(k, "significant", 0), 1);
  TC_EQ_STR(fh_str(k, "correlated", 0), "process_gpu_usage: increased from 6.32 to 21.57; "
                                        "gpu_sm_frequency: decreased from 118,687.50 to 21,000.00; gpu_frequency: "
                                        "decreased from 118,687.50 to 21,000.00");
  const pl_table *fm = pl_profile_find(p, "finding_metrics");
  TC_EQ_INT(fh_rows(p, "finding_metrics"), 9);
  TC_NEAR(fh_num(fm, "from", 1), 118687.5, 1e-12);
  TC_NEAR(fh_num(fm, "to", 1), 21000, 1e-12);

  const pl_table *lg = pl_profile_find(p, "legend");
  TC_EQ_INT(fh_rows(p, "legend"), 6);
  TC_EQ_STR(fh_str(lg, "term", 0), "\xce\xb2 (Beta)");
  TC_EQ_STR(fh_str(lg, "definition", 0), "The percentage of total cycle time consumed by this function.");
  TC_EQ_STR(fh_str(lg, "term", 5), "Suspicion Score");
  pl_profile_free(p);

  /* a detail row with a word in a numeric column */
  size_t n;
  char *buf = tc_slurp(path, &n);
  if (buf) {
    char *at = strstr(buf, "1561.72");
    TC_CHECK(at != NULL);
    if (at) memcpy(at, "15x1.72", 7); /* byte column 1010: python3, line 59 .index(b"1561.72") + 1 */
    TC_EQ_STR(fh_error("badnum.md", buf, n, NULL),
              "badnum.md:59:1010: expected a number in column 'Suspicion Score', found \"15x1.72\"");
    free(buf);
  }
  /* a detail row that lost a cell */
  static const char short_row[] =
      "# Strict Performance Comparison: x (PID: 1)\n### Detailed comparison table\n"
      "| Function Name | Metric Name | Device | Suspicion Score |\n|:--|:--|:--|--:|\n| f | m | GPU 0 |\n";
  TC_EQ_STR(fh_error("short.md", short_row, sizeof short_row - 1, NULL),
            "short.md:5:1: expected a row of 4 cells like the header of line 3, found 3 cells");
}

static void generic(void) {
  static const char md[] =
      "# Notes\n\nSome prose.\n\n## Results\n\n| Kernel | Time (us) | Speedup |\n|---|--:|:-:|\n"
      "| gemm | 1,234.5 | 2.0x |\n| conv | - | 50% |\n\n## Results\n| a | b |\n|---|---|\n| 1 | x \\| y |\n";
  pl_err e;
  pl_profile *p = pl_load_buffer("g.md", md, sizeof md - 1, NULL, NULL, &e);
  TC_CHECK(p != NULL);
  if (!p) return;
  TC_EQ_STR(p->format, "markdown");
  const pl_table *t = pl_profile_find(p, "results");
  TC_EQ_INT(fh_rows(p, "results"), 2);
  TC_NEAR(fh_num(t, "time_us", 0), 1234.5, 0);
  TC_CHECK(pl_cell_missing(t, fh_col(t, "time_us"), 1));
  TC_EQ_STR(fh_str(t, "speedup", 1), "50%"); /* "2.0x" makes it a text column */
  const pl_table *t2 = pl_profile_find(p, "results_2");
  TC_EQ_INT(fh_rows(p, "results_2"), 1);
  TC_EQ_STR(fh_str(t2, "b", 0), "x \\| y");
  pl_profile_free(p);
  /* a header that spells the parser's own "line" column keeps both */
  static const char clash[] = "| Line | x |\n|---|---|\n| a | 1 |\n";
  p = pl_load_buffer("c.md", clash, sizeof clash - 1, "markdown", NULL, &e);
  TC_CHECK(p != NULL);
  if (p) {
    const pl_table *ct = pl_profile_find(p, "table");
    TC_EQ_STR(fh_str(ct, "line", 0), "a");
    TC_EQ_INT(fh_num(ct, "line_2", 0), 3);
    pl_profile_free(p);
  }
  /* detection: the comparison seed goes to comparison-report, not markdown */
  size_t n;
  char *buf = tc_slurp("tests/fixtures/seed002_comparison_report.txt", &n);
  if (buf) {
    const pl_format *f = pl_format_detect(buf, n);
    TC_EQ_STR(f ? f->id : "none", "comparison-report");
    free(buf);
  }
  /* helpers */
  char snake[64];
  pl_md_snake("\xce\x94\xce\xb2(%)", 6, snake, sizeof snake);
  TC_EQ_STR(snake, "delta_beta_pct");
  pl_md_snake("Z-Score(log_\xce\xbc)", 15, snake, sizeof snake);
  TC_EQ_STR(snake, "z_score_log_mu");
  double v;
  TC_EQ_INT(pl_md_number("+4.66%", 6, &v), 0);
  TC_NEAR(v, 4.66, 0);
  TC_EQ_INT(pl_md_number("-2,297.25", 9, &v), 0);
  TC_NEAR(v, -2297.25, 0);
  TC_EQ_INT(pl_md_number("-", 1, &v), 1);
  TC_EQ_INT(pl_md_number("1,23", 4, &v), -1);
}

int main(void) {
  seed002();
  generic();
  return tc_done();
}

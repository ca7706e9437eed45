/* test_fmt_paddle.c -- format paddle-summary on seed 004 (copied into
** tests/fixtures) and on the corpus file (licence unknown: read from
** $PERFLAB_DATA/corpus at test time, a failure when absent).
**
** Expected values were computed independently of the parser:
**  - seed 004 by reading the file (the figures: kernels 100 calls /
**    61.13 ms and 300 calls / 16.68 ms; 8 operator rows at depths
**    0,1,1,2,1,0,1,1 counted from the indentation; CPU(Process) 112.50 %,
**    GPU0 811.58 %; ProfileStep 100 calls);
**  - the corpus file with a python3 one-off: sections cut at the
**    "---Title---" banners, body rows between the 2nd and 3rd dash lines,
**    split with re.split(r'\s{2,}'), depth = leading spaces // 2, '#' lines
**    dropped: Device 3 rows, Overview 8 host rows (+3 device rows below the
**    second header), Model 5, Operator 21 (depths: 2 at 0, 5 at 1, 14 at 2;
**    GPU totals sum 2136.83 ms), Kernel 7 (calls 1158, totals 676.18 ms),
**    Memory Manipulation 5 (CPU totals 1029.59 ms).
*/
#include "fmt_helpers.h"

static char *slurp_lines(const char *path, size_t first, size_t last, size_t *len) {
  /* lines [first, last] (1-based) of a file, with their newlines */
  size_t n;
  char *all = tc_slurp(path, &n);
  if (!all) return NULL;
  char *out = malloc(n + 1);
  size_t k = 0, line = 1;
  for (size_t i = 0; i < n; i++) {
    if (line >= first && line <= last) out[k++] = all[i];
    if (all[i] == '\n') line++;
  }
  out[k] = '\0';
  free(all);
  *len = k;
  return out;
}

/* The file without line `drop` (1-based). */
static char *without_line(const char *path, size_t drop, size_t *len) {
  size_t n;
  char *all = tc_slurp(path, &n);
  if (!all) return NULL;
  char *out = malloc(n + 1);
  size_t k = 0, line = 1;
  for (size_t i = 0; i < n; i++) {
    if (line != drop) out[k++] = all[i];
    if (all[i] == '\n') line++;
  }
  out[k] = '\0';
  free(all);
  *len = k;
  return out;
}

static void seed004(void) {
  const char *path = "tests/fixtures/seed004_paddle_summary.txt";
  pl_profile *p = fh_load(path, "paddle-summary");
  if (!p) return;
  const pl_table *k = pl_profile_find(p, "kernel_summary");
  TC_EQ_INT(fh_rows(p, "kernel_summary"), 2);
  TC_EQ_INT(fh_num(k, "calls", 0), 100);
  TC_NEAR(fh_num(k, "total_ns", 0), 61.13e6, 1e-9);
  TC_EQ_INT(fh_num(k, "calls", 1), 300);
  TC_NEAR(fh_num(k, "total_ns", 1), 16.68e6, 1e-9);
  TC_NEAR(fh_num(k, "mean_ns", 0), 0.61e6, 1e-9);
  TC_NEAR(fh_num(k, "max_ns", 0), 0.62e6, 1e-9);
  TC_NEAR(fh_num(k, "min_ns", 1), 0.05e6, 1e-9);
  TC_NEAR(fh_num(k, "share_pct", 0), 78.57, 1e-12);
  TC_EQ_STR(fh_str(k, "short_name", 0), "flash_fwd_kernel");
  TC_EQ_STR(fh_str(k, "short_name", 1), "EigenMetaKernel");
  TC_EQ_INT(fh_num(k, "truncated", 0), 1);

  const pl_table *op = pl_profile_find(p, "operators");
  TC_EQ_INT(fh_rows(p, "operators"), 8);
  static const int depth[8] = { 0, 1, 1, 2, 1, 0, 1, 1 };
  for (int i = 0; i < 8; i++) TC_EQ_INT(fh_num(op, "depth", i), depth[i]);
  TC_EQ_STR(fh_str(op, "name", 0), "flash_attn dygraph");
  TC_EQ_STR(fh_str(op, "name", 3), "void flash_fwd_kernel<Flash_fwd_kernel_traits...");
  TC_EQ_INT(fh_num(op, "truncated", 3), 1);
  TC_EQ_INT(fh_num(op, "parent", 3), 2);          /* the kernel under "flash_attn compute" */
  TC_CHECK(isnan(fh_num(op, "parent", 5)));       /* transpose dygraph is a root */
  TC_CHECK(isnan(fh_num(op, "cpu_total_ns", 3))); /* "- / - / - / - / -" */
  TC_NEAR(fh_num(op, "cpu_total_ns", 0), 6.21e6, 1e-9);
  TC_NEAR(fh_num(op, "cpu_ratio_pct", 0), 91.02, 1e-12);
  TC_NEAR(fh_num(op, "gpu_total_ns", 0), 77.80e6, 1e-9);
  TC_EQ_INT(fh_num(op, "flops", 0), 0);
  TC_CHECK(isnan(fh_num(op, "flops", 1)));
  TC_EQ_STR(fh_str(op, "thread", 0), "All threads merged");

  const pl_table *d = pl_profile_find(p, "devices");
  TC_EQ_INT(fh_rows(p, "devices"), 3);
  TC_EQ_STR(fh_str(d, "name", 0), "CPU(Process)");
  TC_NEAR(fh_num(d, "utilization_pct", 0), 112.50, 1e-12);
  TC_EQ_STR(fh_str(d, "name", 2), "GPU0");
  TC_NEAR(fh_num(d, "utilization_pct", 2), 811.58, 1e-12);
  TC_EQ_INT(fh_num(d, "id", 2), 0);

  const pl_table *ov = pl_profile_find(p, "overview");
  TC_EQ_INT(fh_rows(p, "overview"), 6); /* 5 host rows + Kernel */
  TC_EQ_STR(fh_str(ov, "event_type", 0), "ProfileStep");
  TC_EQ_INT(fh_num(ov, "calls", 0), 100);
  TC_NEAR(fh_num(ov, "time_ns", 0), 9.59e6, 1e-9);
  TC_EQ_STR(fh_str(ov, "side", 5), "GPU");
  TC_NEAR(fh_num(ov, "time_ns", 5), 77.80e6, 1e-9);
  TC_NEAR(fh_num(ov, "ratio_pct", 5), 811.58, 1e-12);

  const pl_table *ps = pl_profile_find(p, "perf_summary");
  TC_EQ_INT(fh_rows(p, "perf_summary"), 2);
  TC_EQ_STR(fh_str(ps, "metric", 0), "batch_cost");
  TC_NEAR(fh_num(ps, "avg", 0), 0.00040e9, 1e-9); /* Time Unit: s */
  TC_NEAR(fh_num(ps, "max", 1), 13977.00950, 1e-12);
  TC_EQ_INT(fh_rows(p, "notes"), 2);
  const pl_meta *m = pl_profile_meta_get(p, "time_unit");
  TC_CHECK(m && m->text && strcmp(m->text, "ms") == 0);
  /* the two program-output lines after the last table are listed, not parsed */
  TC_EQ_INT(p->ndiags, 1);
  if (p->ndiags) TC_EQ_INT(p->diags[0].line, 80);
  pl_profile_free(p);

  /* --table: only what is asked for */
  const char *want[] = { "kernel_summary", NULL };
  pl_parse_opts o = { 0 };
  o.tables = want;
  pl_err e;
  p = pl_load_file(path, NULL, &o, &e);
  TC_CHECK(p && p->ntables == 1 && pl_profile_find(p, "kernel_summary"));
  pl_profile_free(p);

  /* errors */
  size_t n;
  char *buf = without_line(path, 72, &n); /* the Kernel Summary header line */
  TC_EQ_STR(fh_error("noheader.txt", buf, n, NULL),
            "noheader.txt:72:1: expected the column header line 'Name  Calls  GPU Total / Avg / Max / Min / Ratio(%)', "
            "found \"----------------------------------------...\"");
  free(buf);
  buf = slurp_lines(path, 1, 60, &n); /* cut after the row of line 60 */
  TC_EQ_STR(fh_error("cut.txt", buf, n, NULL),
            "cut.txt:61:1: expected a row or the closing '----' line of the Operator Summary table, found end of file");
  free(buf);
  buf = slurp_lines(path, 1, 61, &n); /* cut inside the row of line 61 */
  n -= 40;
  TC_EQ_STR(fh_error("cutrow.txt", buf, n, NULL), "cutrow.txt:61:119: expected a row of 5 columns (Name, ... FLOPs) in "
                                                  "the Operator Summary table, found 4 columns");
  free(buf);
  static const char four[] = "-----Kernel Summary-----\nTime unit: ms\n----  ------  ------\nName  Calls   GPU Total / "
                             "Avg / Max / Min / Ratio(%)\n"
                             "----  ------  ------\nk1    3       1.00 / 1.00 / 1.00 / 100.00\n----  ------  ------\n";
  TC_EQ_STR(fh_error("four.txt", four, sizeof four - 1, "paddle-summary"),
            "four.txt:6:15: expected five values 'Total / Avg / Max / Min / Ratio(%)', found \"1.00 / 1.00 / 1.00 / "
            "100.00\"");
  static const char bad[] =
      "-----Kernel Summary-----\nTime unit: ms\n----  ------  ------\nName  Calls   GPU Total / Avg / Max / Min / "
      "Ratio(%)\n"
      "----  ------  ------\nk1    ten     1.00 / 1.00 / 1.00 / 1.00 / 100.00\n----  ------  ------\n";
  TC_EQ_STR(fh_error("bad.txt", bad, sizeof bad - 1, "paddle-summary"),
            "bad.txt:6:7: expected the number of calls (an integer or '-'), found \"ten\"");
}

static void corpus(void) {
  const char *path = fh_shared("corpus/paddle_profiler/fleetx_gpt_v100_paddle_profiler_summary_excerpts.txt");
  FILE *f = fopen(path, "rb");
  if (!f) {
    tc_need(path);
    return;
  }
  fclose(f);
  pl_profile *p = fh_load(path, "paddle-summary");
  if (!p) return;
  const pl_meta *m = pl_profile_meta_get(p, "summaries");
  TC_CHECK(m && m->num == 7); /* seven summaries */
  TC_EQ_INT(fh_rows(p, "perf_summary"), 3);
  TC_EQ_INT(fh_rows(p, "devices"), 3);
  TC_EQ_INT(fh_rows(p, "overview"), 11);
  TC_EQ_INT(fh_rows(p, "model_summary"), 5);
  TC_EQ_INT(fh_rows(p, "operators"), 21);
  TC_EQ_INT(fh_rows(p, "kernel_summary"), 7);
  TC_EQ_INT(fh_rows(p, "memory_summary"), 5);
  const pl_table *k = pl_profile_find(p, "kernel_summary");
  TC_EQ_INT(fh_sum(k, "calls"), 1158);
  TC_NEAR(fh_sum(k, "total_ns"), 676.18e6, 1e-9);
  const pl_table *op = pl_profile_find(p, "operators");
  int cnt[3] = { 0, 0, 0 };
  int dc = fh_col(op, "depth");
  for (size_t r = 0; dc >= 0 && r < op->nrows; r++) {
    int64_t d = pl_cell_int(op, dc, r);
    if (d >= 0 && d < 3) cnt[d]++;
  }
  TC_EQ_INT(cnt[0], 2);
  TC_EQ_INT(cnt[1], 5);
  TC_EQ_INT(cnt[2], 14);
  TC_NEAR(fh_sum(op, "gpu_total_ns"), 2136.83e6, 1e-9);
  TC_NEAR(fh_sum(pl_profile_find(p, "memory_summary"), "cpu_total_ns"), 1029.59e6, 1e-9);
  const pl_table *ms = pl_profile_find(p, "model_summary");
  TC_EQ_STR(fh_str(ms, "name", 4), "Others");
  TC_CHECK(isnan(fh_num(ms, "calls", 4)) || pl_cell_missing(ms, fh_col(ms, "calls"), 4));
  TC_NEAR(fh_num(ms, "cpu_total_ns", 4), 1056.52e6, 1e-9);
  TC_CHECK(pl_cell_missing(ms, fh_col(ms, "cpu_avg_ns"), 4));
  m = pl_profile_meta_get(p, "reader_ratio_pct");
  TC_CHECK(m && fabs(m->num - 0.009) < 1e-12);
  TC_EQ_INT(p->ndiags, 2); /* the two "# 此处有省略" (rows elided) lines */
  pl_profile_free(p);
}

/* Issue 22 class 9: summaries pasted into Markdown; the Device Summary is
** closed by the code fence instead of its '----' line: the table ends
** there with a diagnostic and the Kernel Summary after it is kept
** (tests/fixtures/paddle/markdown_fenced.md; figures as written there). */
static void markdown_fenced(void) {
  pl_profile *p = fh_load("tests/fixtures/paddle/markdown_fenced.md", "paddle-summary");
  if (!p) return;
  const pl_table *d = pl_profile_find(p, "devices"), *k = pl_profile_find(p, "kernel_summary");
  TC_EQ_INT(fh_rows(p, "devices"), 2);
  TC_NEAR(fh_num(d, "utilization_pct", 1), 811.58, 1e-12);
  TC_EQ_INT(fh_rows(p, "kernel_summary"), 2);
  TC_NEAR(fh_num(k, "calls", 1), 300, 0);
  TC_NEAR(fh_num(k, "total_ns", 1), 16.68e6, 1e-6);
  TC_NEAR(fh_num(k, "share_pct", 0), 78.57, 1e-12);
  const pl_meta *m = pl_profile_meta_get(p, "summaries");
  TC_CHECK(m && m->num == 2);
  int fence = 0;
  for (size_t i = 0; i < p->ndiags; i++)
    if (p->diags[i].line == 12 && strstr(p->diags[i].msg, "Device Summary table ends at a Markdown code fence"))
      fence++;
  TC_EQ_INT(fence, 1);
  pl_profile_free(p);
}

int main(void) {
  seed004();
  markdown_fenced();
  corpus();
  return tc_done();
}

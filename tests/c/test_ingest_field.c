/* test_ingest_field.c -- what the field writes (issue 22): ncu launches that
** failed ("(!) nan"), UTF-16 and BOM inputs, long ncu runs, ncu logs whose
** results went to a .ncu-rep, the --print-summary per-kernel layout (read:
** kernel_summary and min/max/avg metrics), and exact decimal unit scaling.
**
** Expected values are read off the fixtures by hand (tests/fixtures/README.md
** says what each imitates): launch_failed_nan.txt has 2 launches; the second
** prints 6 values as "(!) nan" / "(!) n/a" and follows two ==ERROR== lines
** after '==PROF== Profiling "persistent_kernel" - 1'.  Its first launch's
** Duration is "3.44 usecond" (3440 ns) and DRAM Frequency "9.26
** cycle/nsecond" (9 260 000 000 Hz).  The encoding fixtures are that file
** and tests/fixtures/kernel-table/small.txt re-encoded by a Python one-liner
** (codecs.BOM_UTF16_LE + text.encode('utf-16-le'), ...).
*/
#include "tcheck.h"
#include "format.h"
#include "fmt_helpers.h"
#include "textenc.h"
#include "units.h"

static pl_profile *load_file(const char *path, pl_err *e) {
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  return pl_load_file(path, NULL, &o, e);
}

static const char *meta_text(const pl_profile *p, const char *key) {
  const pl_meta *m = pl_profile_meta_get(p, key);
  return m ? m->text : NULL;
}

static void test_failed_launch(void) {
  pl_err e;
  pl_profile *p = load_file("tests/fixtures/ncu/launch_failed_nan.txt", &e);
  TC_CHECK(p != NULL);
  if (!p) {
    char b[2048];
    pl_err_format(&e, b, sizeof b);
    fprintf(stderr, "%s\n", b);
    return;
  }
  TC_EQ_STR(p->format, "ncu-text");
  const pl_table *k = pl_profile_find(p, "kernels");
  TC_EQ_INT(k->nrows, 2);
  TC_EQ_INT(fh_num(k, "missing_values", 0), 0);
  TC_EQ_INT(fh_num(k, "missing_values", 1), 6);
  TC_CHECK(fh_str(k, "launch_error", 0) == NULL);
  TC_EQ_STR(fh_str(k, "launch_error", 1), "LaunchFailed; An error occurred while trying to profile.");
  TC_EQ_STR(fh_str(k, "short_name", 1), "persistent_kernel");
  /* the failed launch keeps what it has (launch statistics) and misses the rest */
  TC_CHECK(isnan(fh_num(k, "duration_ns", 1)));
  TC_CHECK(isnan(fh_num(k, "dram_frequency_hz", 1)));
  TC_CHECK(isnan(fh_num(k, "l2_throughput_pct", 1)));
  TC_EQ_INT(fh_num(k, "registers", 1), 64);
  TC_EQ_INT(fh_num(k, "threads", 1), 83968);
  /* exact decimal scaling: equal, not near */
  TC_CHECK(fh_num(k, "duration_ns", 0) == 3440.0);
  TC_CHECK(fh_num(k, "dram_frequency_hz", 0) == 9260000000.0);
  TC_CHECK(fh_num(k, "sm_frequency_hz", 0) == 1400000.0);
  /* the rule of the failed launch is kept */
  const pl_table *r = pl_profile_find(p, "rules");
  TC_EQ_INT(r->nrows, 1);
  TC_EQ_INT(fh_num(r, "kernel_id", 0), 1);
  /* metrics: the printed text of the missing values stays in raw */
  const pl_table *m = pl_profile_find(p, "metrics");
  size_t nraw = 0;
  int cr = pl_table_col(m, "raw"), cv = pl_table_col(m, "value"), ck = pl_table_col(m, "kernel_id");
  for (size_t i = 0; i < m->nrows; i++) {
    size_t n;
    const char *s = pl_cell_str(m, cr, i, &n);
    if (s && strncmp(s, "(!) n", 5) == 0) {
      nraw++;
      TC_CHECK(pl_cell_missing(m, cv, i));
      TC_EQ_INT(pl_cell_num(m, ck, i), 1);
    }
  }
  TC_EQ_INT(nraw, 6);
  pl_profile_free(p);
}

/* An ==ERROR== line belongs to the launch of the ==PROF== Profiling line
** right above it (with other ==ERROR== and ==WARNING== lines between);
** after the program's output it is the run's, not the launch's. */
static void test_error_attribution(void) {
  size_t n;
  char *page = tc_slurp("tests/fixtures/ncu/launch_failed_nan.txt", &n);
  TC_CHECK(page != NULL);
  if (!page) return;
  pl_buf b;
  pl_buf_init(&b);
  pl_buf_printf(&b,
                "==PROF== Profiling \"scale_kernel\" - 0: 0%%....50%%....100%% - 9 passes\n"
                "==PROF== Profiling \"persistent_kernel\" - 1: 0%%....50%%....100%% - 9 passes\n"
                "==WARNING== Launch 1: counters may be incomplete\n"
                "==ERROR== LaunchFailed\n"
                "result: FAILED\n"
                "==ERROR== The application returned an error code (1).\n"
                "%s",
                strstr(page, "[4242]"));
  pl_err e;
  pl_profile *p = pl_load_buffer("err.txt", b.data, b.len, NULL, NULL, &e);
  TC_CHECK(p != NULL);
  if (p) {
    const pl_table *k = pl_profile_find(p, "kernels");
    TC_EQ_INT(k->nrows, 2);
    TC_CHECK(fh_str(k, "launch_error", 0) == NULL);
    TC_EQ_STR(fh_str(k, "launch_error", 1), "LaunchFailed");
    TC_EQ_INT(fh_num(k, "missing_values", 1), 6);
  }
  pl_profile_free(p);
  pl_buf_free(&b);
  free(page);
}

/* "(!) 32.06": a number ncu flags; read as the number, its text kept in raw */
static void test_flagged_number(void) {
  const char *t = "  k(int) (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 8.6\n"
                  "    Section: GPU Speed Of Light Throughput\n"
                  "    ----------------------- --------------- ------------\n"
                  "    Metric Name               Metric Unit   Metric Value\n"
                  "    ----------------------- --------------- ------------\n"
                  "    Duration                        usecond    (!) 32.06\n"
                  "    Memory Throughput                     %      (!) nan\n"
                  "    ----------------------- --------------- ------------\n";
  pl_err e;
  pl_profile *p = pl_load_buffer("flag.txt", t, strlen(t), NULL, NULL, &e);
  TC_CHECK(p != NULL);
  if (!p) return;
  const pl_table *k = pl_profile_find(p, "kernels"), *m = pl_profile_find(p, "metrics");
  TC_CHECK(fh_num(k, "duration_ns", 0) == 32060.0);
  TC_EQ_INT(fh_num(k, "missing_values", 0), 1);
  TC_CHECK(isnan(fh_num(k, "memory_throughput_pct", 0)));
  TC_CHECK(fh_num(m, "value", 0) == 32060.0);
  TC_EQ_STR(fh_str(m, "raw", 0), "(!) 32.06");
  TC_EQ_STR(fh_str(m, "raw", 1), "(!) nan");
  pl_profile_free(p);
}

static int same_table_csv(const pl_profile *a, const pl_profile *b, const char *name) {
  const pl_table *x = pl_profile_find(a, name), *y = pl_profile_find(b, name);
  if (!x || !y || x->nrows != y->nrows || x->ncols != y->ncols) return 0;
  for (size_t c = 0; c < x->ncols; c++)
    for (size_t i = 0; i < x->nrows; i++) {
      if (pl_cell_missing(x, (int)c, i) != pl_cell_missing(y, (int)c, i)) return 0;
      if (x->cols[c]->type == PL_STR) {
        size_t n1, n2;
        const char *s1 = pl_cell_str(x, (int)c, i, &n1), *s2 = pl_cell_str(y, (int)c, i, &n2);
        if ((s1 == NULL) != (s2 == NULL) || (s1 && (n1 != n2 || memcmp(s1, s2, n1) != 0))) return 0;
      } else if (!pl_cell_missing(x, (int)c, i) && pl_cell_num(x, (int)c, i) != pl_cell_num(y, (int)c, i)) return 0;
    }
  return 1;
}

static void test_encodings(void) {
  static const struct {
    const char *path, *orig, *fmt, *enc;
  } cases[] = {
    { "tests/fixtures/encoding/ncu_utf16le_bom_crlf.txt", "tests/fixtures/ncu/launch_failed_nan.txt", "ncu-text",
      "UTF-16LE" },
    { "tests/fixtures/encoding/ncu_utf16le_nobom.txt", "tests/fixtures/ncu/launch_failed_nan.txt", "ncu-text",
      "UTF-16LE" },
    { "tests/fixtures/encoding/kernel_table_utf16be_bom.txt", "tests/fixtures/kernel-table/small.txt", "kernel-table",
      "UTF-16BE" },
    { "tests/fixtures/encoding/kernel_table_utf8_bom.txt", "tests/fixtures/kernel-table/small.txt", "kernel-table",
      "UTF-8 with BOM" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pl_err e;
    pl_profile *p = load_file(cases[i].path, &e), *q = load_file(cases[i].orig, &e);
    TC_CHECK(p != NULL && q != NULL);
    if (!p || !q) {
      fprintf(stderr, "%s does not load\n", cases[i].path);
      pl_profile_free(p);
      pl_profile_free(q);
      continue;
    }
    TC_EQ_STR(p->format, cases[i].fmt);
    TC_EQ_STR(meta_text(p, "encoding"), cases[i].enc);
    TC_CHECK(meta_text(q, "encoding") == NULL);
    TC_CHECK(same_table_csv(p, q, "kernels"));
    pl_profile_free(p);
    pl_profile_free(q);
  }
  /* forcing the format reads the transcoded text too */
  pl_err e;
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  pl_profile *p = pl_load_file("tests/fixtures/encoding/ncu_utf16le_bom_crlf.txt", "ncu-text", &o, &e);
  TC_CHECK(p != NULL);
  if (p) TC_EQ_INT(pl_profile_find(p, "kernels")->nrows, 2);
  pl_profile_free(p);

  /* transcoding by hand: "A" U+00E9 U+20AC U+1F600, then an unpaired high surrogate */
  const char le[] = "\xff\xfe"
                    "A\0"
                    "\xe9\0"
                    "\xac\x20"
                    "\x3d\xd8\x00\xde"
                    "\x3d\xd8"
                    "B\0";
  size_t n;
  char *owned;
  TC_EQ_INT(pl_text_encoding(le, sizeof le - 1), PL_ENC_UTF16LE);
  const char *u = pl_text_utf8(le, sizeof le - 1, PL_ENC_UTF16LE, &n, &owned);
  const char want[] = "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd"
                      "B";
  TC_EQ_INT(n, sizeof want - 1);
  TC_CHECK(n == sizeof want - 1 && memcmp(u, want, n) == 0);
  free(owned);
  const char be[] = "\xfe\xff"
                    "\0A"
                    "\0B"
                    "\0"; /* a final odd byte */
  u = pl_text_utf8(be, sizeof be - 1, pl_text_encoding(be, sizeof be - 1), &n, &owned);
  TC_CHECK(n == 5 && memcmp(u, "AB\xef\xbf\xbd", 5) == 0);
  free(owned);
  TC_EQ_INT(pl_text_encoding("plain text", 10), PL_ENC_UTF8);
}

/* ncu's progress lines, then a result page */
static char *long_run(int nlines, const char *tail) {
  pl_buf b;
  pl_buf_init(&b);
  pl_buf_printf(&b, "==PROF== Connected to process 7 (/bin/app)\n");
  for (int i = 0; i < nlines; i++)
    pl_buf_printf(&b, "==PROF== Profiling \"scale_kernel\" - %d: 0%%....50%%....100%% - 9 passes\n", i);
  pl_buf_printf(&b, "==PROF== Disconnected from process 7\n%s", tail);
  char *out = pl_xstrndup(b.data, b.len);
  pl_buf_free(&b);
  return out;
}

static void test_long_run(void) {
  size_t n;
  char *page = tc_slurp("tests/fixtures/ncu/launch_failed_nan.txt", &n);
  TC_CHECK(page != NULL);
  if (!page) return;
  /* the first result starts after line 7 of the fixture */
  const char *res = strstr(page, "[4242]");
  char *text = long_run(3000, res);
  TC_CHECK(strlen(text) > 65536 * 2);
  pl_err e;
  pl_profile *p = pl_load_buffer("long.txt", text, strlen(text), NULL, NULL, &e);
  TC_CHECK(p != NULL);
  if (p) {
    TC_EQ_STR(p->format, "ncu-text");
    TC_EQ_INT(pl_profile_find(p, "kernels")->nrows, 2);
  }
  pl_profile_free(p);
  free(text);
  /* the same run with --csv: the CSV page after the progress lines decides */
  text = long_run(
      3000,
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block "
      "Size\",\"Grid Size\","
      "\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"7\",\"app\",\"127.0.0.1\",\"scale_kernel\",\"1\",\"7\",\"(256, 1, 1)\",\"(128, 1, 1)\",\"0\",\"8.6\","
      "\"GPU Speed Of Light Throughput\",\"Duration\",\"usecond\",\"32.06\"\n");
  p = pl_load_buffer("long.csv", text, strlen(text), NULL, NULL, &e);
  TC_CHECK(p != NULL);
  if (p) {
    TC_EQ_STR(p->format, "ncu-csv");
    const pl_table *k = pl_profile_find(p, "kernels");
    TC_EQ_INT(k->nrows, 1);
    TC_CHECK(fh_num(k, "duration_ns", 0) == 32060.0);
  }
  pl_profile_free(p);
  free(text);
  /* only progress lines: ncu's signature still names the format */
  text = long_run(3000, "");
  TC_CHECK(pl_format_detect(text, strlen(text)) == pl_format_find("ncu-text"));
  p = pl_load_buffer("prof.txt", text, strlen(text), NULL, NULL, &e);
  TC_CHECK(p == NULL);
  TC_CHECK(strstr(e.msg, "found no kernel launch") != NULL);
  free(text);
  free(page);
}

static void test_refusals(void) {
  pl_err e;
  pl_profile *p = load_file("tests/fixtures/ncu/report_only_log.txt", &e);
  TC_CHECK(p == NULL);
  TC_EQ_INT(e.line, 7);
  TC_CHECK(strstr(e.msg, "'ncu --import /home/user/attn/profiles/attn_fwd.ncu-rep --page details' (or --csv)") != NULL);
}

/* --print-summary per-kernel, read: one kernel_summary row per kernel with
** its invocations, and min/max/avg per metric.  By hand from the fixture:
** transposeNaive Invocations 3, Duration 32.06 / 33.10 / 32.58 usecond
** (total = 3 x 32580 = 97740 ns); transposeShared 1, 12.42 usecond;
** shares 97740 / 110160 and 12420 / 110160. */
static void test_print_summary(void) {
  pl_err e;
  pl_profile *p = load_file("tests/fixtures/ncu/print_summary_per_kernel.txt", &e);
  TC_CHECK(p != NULL);
  if (!p) {
    char b[2048];
    pl_err_format(&e, b, sizeof b);
    fprintf(stderr, "%s\n", b);
    return;
  }
  TC_EQ_STR(p->format, "ncu-text");
  TC_EQ_STR(meta_text(p, "layout"), "print-summary per-kernel");
  TC_CHECK(pl_profile_find(p, "kernels") == NULL);
  const pl_table *k = pl_profile_find(p, "kernel_summary");
  TC_EQ_INT(k->nrows, 2);
  TC_EQ_STR(fh_str(k, "short_name", 0), "transposeNaive");
  TC_EQ_INT(fh_num(k, "calls", 0), 3);
  TC_CHECK(fh_num(k, "min_ns", 0) == 32060.0);
  TC_CHECK(fh_num(k, "max_ns", 0) == 33100.0);
  TC_CHECK(fh_num(k, "mean_ns", 0) == 32580.0);
  TC_CHECK(fh_num(k, "total_ns", 0) == 97740.0);
  TC_NEAR(fh_num(k, "share_pct", 0), 100.0 * 97740 / 110160, 1e-12);
  TC_EQ_INT(fh_num(k, "calls", 1), 1);
  TC_CHECK(fh_num(k, "total_ns", 1) == 12420.0);
  TC_EQ_INT(fh_num(k, "block_size", 1), 256);
  TC_EQ_INT(fh_num(k, "grid_size", 1), 1024);
  TC_EQ_STR(fh_str(k, "cc", 0), "8.6");
  const pl_table *m = pl_profile_find(p, "metrics");
  TC_EQ_INT(m->nrows, 8);
  /* row 4: Achieved Occupancy % 86.10 88.02 87.01 */
  TC_EQ_STR(fh_str(m, "metric", 4), "Achieved Occupancy");
  TC_EQ_STR(fh_str(m, "section", 4), "Occupancy");
  TC_CHECK(fh_num(m, "min", 4) == 86.10 && fh_num(m, "max", 4) == 88.02 && fh_num(m, "value", 4) == 87.01);
  TC_CHECK(fh_num(m, "value", 0) == 9260000000.0);
  TC_EQ_INT(fh_num(m, "kernel_id", 5), 1);
  /* the program's own line between the progress lines */
  const pl_table *po = pl_profile_find(p, "program_output");
  TC_EQ_INT(po->nrows, 1);
  TC_EQ_STR(fh_str(po, "text", 0), "transpose: 3 runs done");
  pl_profile_free(p);

  /* the older layout: "NAME, Block Size 256, Grid Size 32, Device 0, 1 invocations",
  ** header above the rule, left-aligned values; gpu__time_duration.sum 9.998720 msecond */
  p = load_file("tests/fixtures/ncu/print_summary_per_kernel_old.txt", &e);
  TC_CHECK(p != NULL);
  if (!p) return;
  k = pl_profile_find(p, "kernel_summary");
  TC_EQ_INT(k->nrows, 1);
  TC_EQ_INT(fh_num(k, "calls", 0), 1);
  TC_EQ_INT(fh_num(k, "block_size", 0), 256);
  TC_EQ_INT(fh_num(k, "grid_size", 0), 32);
  TC_CHECK(fh_num(k, "mean_ns", 0) == 9998720.0);
  m = pl_profile_find(p, "metrics");
  TC_EQ_INT(m->nrows, 4);
  TC_EQ_STR(fh_str(m, "unit", 1), "cycle");
  TC_CHECK(fh_num(m, "value", 1) == 13479154.0);
  TC_CHECK(fh_num(m, "value", 0) == 6701347000.0);
  pl_profile_free(p);
  /* detected from its kernel line alone */
  const char *old = "  k(int), Block Size 256, Grid Size 32, Device 0, 1 invocations \n";
  TC_CHECK(pl_format_detect(old, strlen(old)) == pl_format_find("ncu-text"));
  /* a metric row that is not one: FILE:LINE:COLUMN, exit 2 */
  const char *bad = "  k(int) (1, 1, 1)x(32, 1, 1), Device 0, CC 8.6, Invocations 2\n"
                    "    Section: S\n"
                    "    -------- ---- ---- ---- ----\n"
                    "    Metric Name Metric Unit Minimum Maximum Average\n"
                    "    -------- ---- ---- ---- ----\n"
                    "    Duration usecond 1.0 oops 2.0\n";
  p = pl_load_buffer("bad.txt", bad, strlen(bad), NULL, NULL, &e);
  TC_CHECK(p == NULL);
  TC_EQ_INT(e.line, 6);
  TC_EQ_INT(e.col, 5);
  TC_CHECK(strstr(e.msg, "MINIMUM MAXIMUM AVERAGE") != NULL);
}

static void test_unit_scale(void) {
  /* the plain product is off by one ulp; the scaled one is exact */
  TC_CHECK(32.06 * 1e3 != 32060.0);
  TC_CHECK(pl_unit_scale(32.06, 1e3) == 32060.0);
  TC_CHECK(pl_unit_scale(-32.06, 1e3) == -32060.0);
  TC_CHECK(pl_unit_scale(1.2345678, 1e3) == 1234.5678);
  TC_CHECK(pl_unit_scale(0.1, 1e9) == 1e8);
  TC_CHECK(pl_unit_scale(4.35, 1e6) == 4350000.0);
  TC_CHECK(pl_unit_scale(1.21, 1e9) == 1210000000.0);
  TC_CHECK(pl_unit_scale(0.000123, 1e3) == 0.123);
  TC_CHECK(pl_unit_scale(2.5, 1024) == 2560.0);
  TC_CHECK(pl_unit_scale(7.0, 1e3) == 7000.0);
  TC_CHECK(pl_unit_scale(3.3, 1) == 3.3);
  TC_CHECK(isnan(pl_unit_scale(NAN, 1e3)));
  /* every 2-decimal value 0.00 .. 99.99 in us comes out as its exact ns */
  int bad = 0;
  for (int i = 0; i < 10000; i++) {
    char s[16];
    snprintf(s, sizeof s, "%d.%02d", i / 100, i % 100);
    if (pl_unit_scale(strtod(s, NULL), 1e3) != (double)(i * 10)) bad++;
  }
  TC_EQ_INT(bad, 0);
}

/* The shared conversion in every parser: values printed with decimals in
** ms / us / cycle/nsecond read back as the exact figure (the plain product
** was one ulp off in each of these).  Text read off the files:
**   nvprof: "API calls:    51.65  262.2986  5 ..." in ms (the units row);
**   torch-table: row 11, Self CUDA "65.469ms";
**   ncu-text: "SM Frequency  cycle/nsecond  1.07" of the first launch. */
static void test_unit_scale_formats(void) {
  const char *d = getenv("PERFLAB_DATA");
  char path[1024];
  struct {
    const char *file, *fmt, *table, *col;
    size_t row;
    double want;
  } cases[] = {
    { "corpus/nvprof/xplacer_v100_aws_nvprof_cfd_000_097K.log", "nvprof", "api_summary", "total_ns", 0, 262298600.0 },
    { "corpus/torch_profiler_table/unknownrepo_a100_key_averages_cuda_graph_table.txt", "torch-table", "operators",
      "self_cuda_ns", 10, 65469000.0 },
    { "corpus/ncu_text/gpumode_lecture001_ncu_logs_cc80.txt", "ncu-text", "kernels", "sm_frequency_hz", 0,
      1070000000.0 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", d && *d ? d : "tests/data", cases[i].file);
    pl_profile *p = fh_load(path, cases[i].fmt);
    if (!p) continue;
    const pl_table *t = pl_profile_find(p, cases[i].table);
    TC_CHECK(t != NULL);
    if (t) {
      double v = fh_num(t, cases[i].col, cases[i].row);
      if (v != cases[i].want) fprintf(stderr, "%s: %.17g, expected %.17g\n", cases[i].file, v, cases[i].want);
      TC_CHECK(v == cases[i].want);
    }
    pl_profile_free(p);
  }
}

int main(void) {
  test_failed_launch();
  test_error_attribution();
  test_flagged_number();
  test_encodings();
  test_long_run();
  test_refusals();
  test_print_summary();
  test_unit_scale();
  test_unit_scale_formats();
  return tc_done();
}

/* test_fmt_csv.c -- the shared CSV reader (csvread.h) and the generic csv
** format: typing per column, missing values, line numbers, quoted fields
** across lines, the second pass for late text columns, and exact errors.
** Figures are worked out by hand from the inline inputs.  The corpus CSVs of
** other formats are also read as plain csv (--format csv) and their row
** counts checked against python3's csv module (len(rows) - 1).
*/
#include "tload.h"
#include "csvread.h"

typedef struct rec {
  size_t rows, fields, lines[8], cols[8];
  char f[8][32];
} rec;

static int on_row(void *ud, const pl_csv_row *r, pl_err *err) {
  (void)err;
  rec *x = ud;
  if (x->rows < 8) {
    x->lines[x->rows] = r->line;
    x->cols[x->rows] = r->n > 1 ? pl_csv_field_col(r, 1) : 0;
    snprintf(x->f[x->rows], sizeof x->f[0], "%s", r->n > 1 ? r->f[1] : "");
  }
  x->rows++;
  x->fields += r->n;
  return 0;
}

static void reader(void) {
  /* blank line skipped, quoted field across lines, "" escape, spaces trimmed */
  const char *s = "a,b\n\n1, \"x\"\"y\"\n2,\"multi\nline\"\n3,  z\n";
  rec x;
  memset(&x, 0, sizeof x);
  pl_err e;
  pl_csv_opts o = { ',', 10, NULL, NULL, NULL, 0, 0 };
  TC_EQ_INT(pl_csv_read(s, strlen(s), &o, on_row, &x, &e), 0);
  TC_EQ_INT(x.rows, 4);
  TC_EQ_INT(x.fields, 8);
  TC_EQ_INT(x.lines[0], 10);
  TC_EQ_INT(x.lines[1], 12);
  TC_EQ_INT(x.lines[2], 13);
  TC_EQ_INT(x.lines[3], 15);
  TC_EQ_STR(x.f[1], "x\"y");
  TC_EQ_STR(x.f[2], "multi\nline");
  TC_EQ_STR(x.f[3], "z");
  TC_EQ_INT(x.cols[1], 4); /* the quote of ' "x""y"' */
  TC_EQ_INT(x.cols[3], 5); /* "  z": the text after the trimmed spaces */
  /* strict mode errors */
  TL_ERR("a,b\n1,x\"y\n", "csv", "t:2:4: expected a quote only at the start of a field, found \"\"y\"");
  TL_ERR("a,b\n1,\"x\"y\n", "csv", "t:2:6: expected a delimiter or end of line after the closing quote, found \"y\"");
  TL_ERR("a,b\n1,\"xy\n2,3\n", "csv",
         "t:4:1: expected a closing quote for the field opened at line 2 column 3, found end of file");
  int64_t iv;
  double dv;
  TC_EQ_INT(pl_csv_number("123", 3, &iv, &dv), 1);
  TC_EQ_INT(iv, 123);
  TC_EQ_INT(pl_csv_number("-9223372036854775807", 20, &iv, &dv), 1);
  TC_CHECK(iv == -9223372036854775807LL);
  TC_EQ_INT(pl_csv_number("1.5e3", 5, &iv, &dv), 2);
  TC_NEAR(dv, 1500, 0);
  TC_EQ_INT(pl_csv_number("nan", 3, &iv, &dv), 0);
  TC_EQ_INT(pl_csv_number("0x10", 4, &iv, &dv), 0);
  TC_EQ_INT(pl_csv_number("", 0, &iv, &dv), -1);
}

static void generic(void) {
  const char *s = "id,time,name,flag,mixed,empty\n"
                  "1,1.5,alpha,,10,\n"
                  "2,2,beta,1,20,\n"
                  "9007199254740993,3.25,\"gam,ma\",0,x30,\n";
  TC_CHECK(pl_format_detect(s, strlen(s)) == pl_format_find("csv"));
  pl_profile *p = tl_text(s, NULL);
  if (!p) return;
  TC_EQ_STR(p->format, "csv");
  const pl_table *t = tl_table(p, "csv");
  TC_EQ_INT(t ? t->nrows : 0, 3);
  TC_EQ_INT(t ? t->ncols : 0, 6);
  if (!t) {
    pl_profile_free(p);
    return;
  }
  TC_EQ_INT(t->cols[0]->type, PL_INT);
  TC_CHECK(pl_cell_int(t, 0, 2) == 9007199254740993LL); /* 2^53 + 1 stays exact */
  TC_EQ_INT(t->cols[1]->type, PL_NUM);
  TC_NEAR(tl_sum(p, "csv", "time"), 6.75, 0);
  TC_EQ_INT(t->cols[2]->type, PL_STR);
  TC_EQ_STR(tl_str(t, "name", 2), "gam,ma");
  TC_EQ_INT(t->cols[3]->type, PL_INT);
  TC_CHECK(pl_cell_missing(t, 3, 0));
  /* numbers first, text later: the whole column is text, as written */
  TC_EQ_INT(t->cols[4]->type, PL_STR);
  TC_EQ_STR(tl_str(t, "mixed", 0), "10");
  TC_EQ_STR(tl_str(t, "mixed", 2), "x30");
  TC_CHECK(pl_cell_missing(t, 5, 1));
  pl_profile_free(p);
  /* a truncated record, a record too long, an unterminated quote */
  TL_ERR("a,b,c\n1,2,3\n4,5\n", "csv",
         "t:3:4: expected 3 fields as in the header (line 1), found 2: the record ends early");
  TL_ERR("a,b\n1,2,3\n", "csv", "t:2:5: expected 2 fields as in the header (line 1), found 3");
  TL_ERR("a,b\n1,\"2\n", "csv",
         "t:3:1: expected a closing quote for the field opened at line 2 column 3, found end of file");
  TL_ERR("", "csv", "t:1:1: expected a CSV header row, found end of file");
}

/* Files of other formats read as plain csv; row counts from python3 csv. */
static void corpus_as_csv(void) {
  static const struct {
    const char *file;
    size_t rows, cols;
  } f[] = {
    { "rocprof/rocprof_ozaki_tests_results.stats.csv", 19, 5 },
    { "rocprof/hpctraining_mi300a_rocprofv3_agent_info.csv", 8, 53 },
    { "nsys_stats/unknownrepo_dotllm_rtx4090_nsys2024.6.2_cuda_gpu_kern_sum.csv", 15, 9 },
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/%s", tl_shared(), f[i].file);
    if (!tc_need(path)) continue;
    pl_err e;
    pl_profile *p = pl_load_file(path, "csv", NULL, &e);
    TC_CHECK(p != NULL);
    if (!p) continue;
    const pl_table *t = tl_table(p, "csv");
    TC_EQ_INT(t ? t->nrows : 0, f[i].rows);
    TC_EQ_INT(t ? t->ncols : 0, f[i].cols);
    pl_profile_free(p);
  }
  /* ... and detection still picks the specific format */
  char path[1024];
  snprintf(path, sizeof path, "%s/corpus/rocprof/rocprof_ozaki_tests_results.stats.csv", tl_shared());
  size_t len;
  char *d = tc_slurp(path, &len);
  if (d) {
    TC_EQ_STR(pl_format_detect(d, len)->id, "rocprof");
    free(d);
  }
}

int main(void) {
  reader();
  generic();
  corpus_as_csv();
  return tc_done();
}

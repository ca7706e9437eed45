/*
** fmt_csv.c -- format "csv": any comma-separated file with a header row,
** read through libcsv in strict mode (csvread.c) into one typed table
** named "csv": int64 columns where every value is an integer, numbers
** where every value is a number, strings otherwise; empty cells missing.
**
** Detection gives at most a low score (10) so that every specific CSV
** format (nsys, nvprof, rocprof, ncu) wins on its own markers.
*/
#include "format.h"
#include "csvread.h"
#include "scan.h"

#include <string.h>

/* Fields of one line (quote-aware, no libcsv): -1 when a quote is left open. */
static int count_fields(const char *s, size_t n) {
  int k = 1, inq = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') inq = !inq;
    else if (s[i] == ',' && !inq) k++;
  }
  return inq ? -1 : k;
}

static int csv_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  int first = -1, same = 0, lines = 0;
  while (pl_lines_next(&c, &l) && lines < 8) {
    if (pl_is_blank(l.s, l.n)) continue; /* rocprofv2 writes a blank line after the header */
    if (lines == 0 && (l.s[0] == '{' || l.s[0] == '[' || l.s[0] == '=' || l.s[0] == '<' || l.s[0] == '#')) return 0;
    int k = count_fields(l.s, l.n);
    if (k < 0) break; /* a quoted newline or junk: stop sampling */
    if (lines == 0) first = k;
    else if (k == first) same++;
    else return 0;
    lines++;
  }
  if (first < 2) return 0;
  return same >= 1 ? 10 : 0;
}

static int csv_parse_fmt(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_csv_opts co = pl_csv_opts_whole(o);
  pl_table *t = pl_csv_table_lenient(in->data, in->len, "csv", &co, o && o->lenient ? p : NULL, err);
  if (t == NULL) return -1;
  for (size_t i = 0; i < t->ncols; i++) {
    const char *what = t->cols[i]->type == PL_INT   ? "column as written (every value an integer)"
                       : t->cols[i]->type == PL_NUM ? "column as written (numbers)"
                                                    : "column as written (text)";
    pl_table_set_doc(t, (int)i, what);
  }
  pl_profile_meta_num(p, "rows", (double)t->nrows);
  pl_profile_meta_num(p, "columns", (double)t->ncols);
  if (pl_want_table(o, "csv")) pl_profile_add_table(p, t);
  else pl_table_free(t);
  return 0;
}

const pl_format pl_fmt_csv = {
  "csv", "any CSV with a header row, typed per column (libcsv, strict)", "csv", csv_detect, csv_parse_fmt,
};

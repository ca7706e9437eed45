/*
** fmt_kernel_table.c -- format "kernel-table": a per-kernel latency table,
**
**   Kernel                                   Latency Tensor   DRAM
**   elementwise_kernel_with_index       |       4160   0.00   0.00
**
** one row per kernel launch: NAME | LATENCY TENSOR DRAM.  Latency is in
** nanoseconds; Tensor and DRAM are utilisation fractions 0..1 as the tool
** gives them (kept as given).  A name the tool cut is marked with "...".
** Blank lines are skipped; anything else that is not a row is an error.
*/
#include "format.h"
#include "names.h"
#include "scan.h"

#include <math.h>
#include <string.h>

static int is_header(const char *s, size_t n) {
  pl_trim(&s, &n);
  if (!pl_starts(s, n, "Kernel")) return 0;
  return pl_find(s, n, "Latency") != NULL && pl_find(s, n, "Tensor") != NULL &&
         pl_find(s, n, "DRAM") != NULL;
}

static int kt_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  int rows = 0, seen = 0;
  while (pl_lines_next(&c, &l) && seen < 20) {
    if (pl_is_blank(l.s, l.n)) continue;
    if (seen == 0 && is_header(l.s, l.n)) return 90;
    seen++;
    const char *bar = memchr(l.s, '|', l.n);
    if (bar && memchr(bar + 1, '|', l.n - (size_t)(bar + 1 - l.s)) == NULL) rows++;
  }
  return rows >= 3 && rows == seen ? 40 : 0;
}

/* Reads the next whitespace-separated token starting at *i. */
static int next_token(const char *s, size_t n, size_t *i, size_t *start, size_t *len) {
  while (*i < n && (s[*i] == ' ' || s[*i] == '\t')) (*i)++;
  if (*i >= n) { *start = *i; *len = 0; return 0; }
  *start = *i;
  while (*i < n && s[*i] != ' ' && s[*i] != '\t') (*i)++;
  *len = *i - *start;
  return 1;
}

static int kt_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, in->data, in->len);
  int header = 0;
  pl_table *t = pl_table_new("kernels");
  int c_name = pl_table_add_col(t, "name", PL_STR);
  int c_short = pl_table_add_col(t, "short_name", PL_STR);
  int c_lat = pl_table_add_col(t, "latency_ns", PL_NUM);
  int c_dur = pl_table_add_col(t, "duration_ns", PL_NUM);
  int c_ten = pl_table_add_col(t, "tensor_util", PL_NUM);
  int c_dram = pl_table_add_col(t, "dram_util", PL_NUM);
  int c_trunc = pl_table_add_col(t, "truncated", PL_BOOL);
  int c_line = pl_table_add_col(t, "line", PL_INT);
  pl_table_set_doc(t, c_name, "kernel name as the tool printed it (may end in '...' where it was cut)");
  pl_table_set_doc(t, c_short, "short name: no namespaces, template arguments, parameters or '...'");
  pl_table_set_doc(t, c_lat, "kernel latency as the tool printed it, nanoseconds");
  pl_table_set_doc(t, c_dur, "same as latency_ns: the standard duration column");
  pl_table_set_doc(t, c_ten, "tensor-core utilisation, a fraction 0..1 as given (not percent)");
  pl_table_set_doc(t, c_dram, "DRAM bandwidth utilisation, a fraction 0..1 as given (not percent)");
  pl_table_set_doc(t, c_trunc, "true where the tool cut the name with '...'");
  pl_table_set_doc(t, c_line, "line number in the input");
  char shortbuf[1024];
  while (pl_lines_next(&c, &l)) {
    if (o && o->interrupt && *o->interrupt) { pl_table_free(t); return pl_err_set(err, c.lineno, 1, "interrupted"); }
    if (pl_is_blank(l.s, l.n)) continue;
    if (!header) {
      if (!is_header(l.s, l.n)) {
        pl_table_free(t);
        return pl_err_expected(err, c.lineno, 1, "the header 'Kernel  Latency Tensor DRAM'", l.s, l.n);
      }
      header = 1;
      continue;
    }
    const char *bar = memchr(l.s, '|', l.n);
    if (bar == NULL) {
      size_t col = 1;
      while (col <= l.n && (l.s[col - 1] == ' ')) col++;
      pl_err_expected(err, c.lineno, col, "a row 'NAME | LATENCY TENSOR DRAM'", l.s + col - 1, l.n - (col - 1));
      if (pl_lenient_skip(o, p, err)) continue;
      pl_table_free(t);
      return -1;
    }
    const char *name = l.s;
    size_t nn = (size_t)(bar - l.s);
    pl_trim(&name, &nn);
    if (nn == 0) {
      pl_err_expected(err, c.lineno, 1, "a kernel name before '|'", l.s, l.n);
      if (pl_lenient_skip(o, p, err)) continue;
      pl_table_free(t);
      return -1;
    }
    size_t i = (size_t)(bar - l.s) + 1, st, tl;
    double v[3];
    int bad = 0;
    static const char *what[3] = { "the latency in ns (a number >= 0)", "the tensor utilisation (a number)", "the DRAM utilisation (a number)" };
    for (int k = 0; k < 3; k++) {
      if (!next_token(l.s, l.n, &i, &st, &tl) || pl_parse_double(l.s + st, tl, &v[k]) != 0 ||
          (k == 0 && !(isfinite(v[0]) && v[0] >= 0))) {   /* a latency is a finite time >= 0 */
        /* a last line without its newline that stops early: the file was cut */
        int cut = tl == 0 && l.s + l.n == in->data + in->len;
        pl_err_expected(err, c.lineno, st + 1, what[k], cut ? NULL : l.s + st, tl);  /* the token */
        bad = 1;
        break;
      }
    }
    if (!bad && next_token(l.s, l.n, &i, &st, &tl)) {
      pl_err_expected(err, c.lineno, st + 1, "end of line after the DRAM utilisation", l.s + st, tl);
      bad = 1;
    }
    if (bad) {
      if (pl_lenient_skip(o, p, err)) continue;
      pl_table_free(t);
      return -1;
    }
    size_t sn = pl_short_name(name, nn, shortbuf, sizeof shortbuf);
    pl_row_put_str(t, c_name, name, nn);
    pl_row_put_str(t, c_short, shortbuf, sn);
    pl_row_put_num(t, c_lat, v[0]);
    pl_row_put_num(t, c_dur, v[0]);
    pl_row_put_num(t, c_ten, v[1]);
    pl_row_put_num(t, c_dram, v[2]);
    pl_row_put_bool(t, c_trunc, pl_name_truncated(name, nn));
    pl_row_put_int(t, c_line, (int64_t)c.lineno);
    pl_row_end(t);
  }
  if (!header) { pl_table_free(t); return pl_err_expected(err, c.lineno ? c.lineno : 1, 1, "the header 'Kernel  Latency Tensor DRAM'", NULL, 0); }
  if (pl_want_table(o, "kernels")) pl_profile_add_table(p, t); else pl_table_free(t);
  pl_profile_meta_str(p, "tool", "kernel latency table", strlen("kernel latency table"));
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  return 0;
}

const pl_format pl_fmt_kernel_table = {
  "kernel-table",
  "per-kernel latency tables: 'NAME | LATENCY TENSOR DRAM' rows under a header",
  "kernels",
  kt_detect,
  kt_parse,
};

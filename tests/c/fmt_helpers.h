/* fmt_helpers.h -- small helpers shared by the parser tests (test_fmt_*.c). */
#ifndef FMT_HELPERS_H
#define FMT_HELPERS_H
#include "tcheck.h"
#include "format.h"

/* The table's column index, or -1 (and a failed check) when missing. */
__attribute__((unused)) static int fh_col(const pl_table *t, const char *name) {
  int c = t ? pl_table_col(t, name) : -1;
  if (c < 0) {
    tc_fail++;
    fprintf(stderr, "missing column %s.%s\n", t ? t->name : "(null)", name);
  }
  return c;
}
__attribute__((unused)) static double fh_num(const pl_table *t, const char *col, size_t row) {
  int c = fh_col(t, col);
  return c < 0 || row >= t->nrows ? NAN : pl_cell_num(t, c, row);
}
__attribute__((unused)) static const char *fh_str(const pl_table *t, const char *col, size_t row) {
  int c = fh_col(t, col);
  size_t n;
  return c < 0 || row >= t->nrows ? NULL : pl_cell_str(t, c, row, &n);
}
/* Sum of a column over the rows, missing values skipped. */
__attribute__((unused)) static double fh_sum(const pl_table *t, const char *col) {
  int c = fh_col(t, col);
  double s = 0;
  for (size_t r = 0; c >= 0 && r < t->nrows; r++)
    if (!pl_cell_missing(t, c, r)) s += pl_cell_num(t, c, r);
  return s;
}
__attribute__((unused)) static size_t fh_rows(const pl_profile *p, const char *name) {
  const pl_table *t = pl_profile_find(p, name);
  if (!t) {
    tc_fail++;
    fprintf(stderr, "missing table %s\n", name);
    return 0;
  }
  return t->nrows;
}
/* Loads a file (format detected); prints the error and fails the check when it does not load. */
__attribute__((unused)) static pl_profile *fh_load(const char *path, const char *want_format) {
  pl_err e;
  pl_profile *p = pl_load_file(path, NULL, NULL, &e);
  if (!p) {
    char b[2048];
    pl_err_format(&e, b, sizeof b);
    tc_fail++;
    fprintf(stderr, "load failed: %s\n", b);
    return NULL;
  }
  TC_EQ_STR(p->format, want_format);
  return p;
}
/* Parses a buffer that must fail; returns the formatted error ("NAME:L:C: msg"). */
__attribute__((unused)) static const char *fh_error(const char *name, const char *data, size_t len,
                                                    const char *format) {
  static char b[2048];
  pl_err e;
  pl_profile *p = pl_load_buffer(name, data, len, format, NULL, &e);
  if (p) {
    pl_profile_free(p);
    snprintf(b, sizeof b, "(no error)");
    return b;
  }
  pl_err_format(&e, b, sizeof b);
  return b;
}
/* Path under $PERFLAB_DATA (fallback tests/data). */
__attribute__((unused)) static const char *fh_shared(const char *rel) {
  static char b[1024];
  const char *s = getenv("PERFLAB_DATA");
  snprintf(b, sizeof b, "%s/%s", s && *s ? s : "tests/data", rel);
  return b;
}
/* ncu's metrics table read with raw_text (`all`) and without (`dflt`): the
** same rows and cells but raw, which without raw_text holds the text of a
** value that is not a number and is missing where value holds a number.
** Returns the number of rows whose raw text was dropped (a failed check,
** with the row printed, on any other difference). */
__attribute__((unused)) static size_t fh_ncu_raw_rule(const pl_table *all, const pl_table *dflt) {
  size_t dropped = 0;
  if (!all || !dflt || all->nrows != dflt->nrows || all->ncols != dflt->ncols) {
    tc_fail++;
    fprintf(stderr, "metrics with and without raw_text: different shapes\n");
    return 0;
  }
  int cv = fh_col(all, "value"), cr = fh_col(all, "raw");
  if (cv < 0 || cr < 0) return 0;
  char x[512], y[512];
  for (size_t r = 0; r < all->nrows; r++)
    for (size_t c = 0; c < all->ncols; c++) {
      pl_cell_text(all, (int)c, r, x, sizeof x);
      pl_cell_text(dflt, (int)c, r, y, sizeof y);
      int ok;
      if ((int)c != cr) ok = strcmp(x, y) == 0;
      else if (pl_cell_missing(all, cv, r))
        ok = strcmp(x, y) == 0 && pl_cell_missing(all, cr, r) == pl_cell_missing(dflt, cr, r);
      else {
        ok = pl_cell_missing(dflt, cr, r);
        dropped += ok && !pl_cell_missing(all, cr, r);
      }
      if (!ok) {
        tc_fail++;
        fprintf(stderr, "metrics row %zu column %s: '%s' with raw_text, '%s' without\n", r, all->cols[c]->name, x, y);
        return dropped;
      }
    }
  return dropped;
}

/* An ncu file loaded with the printed text of numbers kept in metrics.raw. */
__attribute__((unused)) static pl_profile *fh_load_raw_text(const char *path, pl_err *e) {
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  o.raw_text = 1;
  return pl_load_file(path, NULL, &o, e);
}

/* The metrics of `path` read with raw_text and `dflt` (read without)
** differ only in the raw texts of numbers (fh_ncu_raw_rule); returns how
** many were dropped. */
__attribute__((unused)) static size_t fh_raw_rule(const char *path, const pl_profile *dflt) {
  pl_err e;
  pl_profile *q = fh_load_raw_text(path, &e);
  if (!q) {
    tc_fail++;
    fprintf(stderr, "%s: could not be read with raw_text\n", path);
    return 0;
  }
  size_t n = fh_ncu_raw_rule(pl_profile_find(q, "metrics"), pl_profile_find(dflt, "metrics"));
  pl_profile_free(q);
  return n;
}

#endif

/*
** tload.h -- helpers for the format tests: load a corpus file (failing,
** with its path, when it is absent from $PERFLAB_DATA/corpus), sum a column, find a row, and
** check the exact FILE:LINE:COLUMN error text of a malformed input.
*/
#ifndef TLOAD_H
#define TLOAD_H
#include "tcheck.h"
#include "format.h"
#include <unistd.h>

__attribute__((unused)) static const char *tl_shared(void) {
  const char *s = getenv("PERFLAB_DATA");
  return s && *s ? s : "tests/data";
}

/* Loads corpus/REL with detection and checks the detected format.  NULL
** (and a failure naming the file) when the file is absent. */
__attribute__((unused)) static pl_profile *tl_corpus(const char *rel, const char *fmt) {
  char path[1024];
  snprintf(path, sizeof path, "%s/corpus/%s", tl_shared(), rel);
  if (!tc_need(path)) return NULL;
  size_t len;
  char *data = tc_slurp(path, &len);
  TC_CHECK(data != NULL);
  if (!data) return NULL;
  const pl_format *f = pl_format_detect(data, len);
  TC_CHECK(f != NULL);
  if (f) TC_EQ_STR(f->id, fmt);
  free(data);
  pl_err e;
  pl_profile *p = pl_load_file(path, NULL, NULL, &e);
  if (!p) {
    char b[2048];
    pl_err_format(&e, b, sizeof b);
    fprintf(stderr, "load failed: %s\n", b);
  }
  TC_CHECK(p != NULL);
  if (p) TC_EQ_STR(p->format, fmt);
  return p;
}

__attribute__((unused)) static const pl_table *tl_table(const pl_profile *p, const char *name) {
  const pl_table *t = pl_profile_find(p, name);
  if (!t) fprintf(stderr, "no table %s\n", name);
  return t;
}

__attribute__((unused)) static size_t tl_rows(const pl_profile *p, const char *name) {
  const pl_table *t = pl_profile_find(p, name);
  return t ? t->nrows : (size_t)-1;
}

__attribute__((unused)) static double tl_sum(const pl_profile *p, const char *tab, const char *col) {
  const pl_table *t = pl_profile_find(p, tab);
  if (!t) return NAN;
  int c = pl_table_col(t, col);
  if (c < 0) return NAN;
  double s = 0;
  for (size_t i = 0; i < t->nrows; i++) {
    double v = pl_cell_num(t, c, i);
    if (!isnan(v)) s += v;
  }
  return s;
}

/* Row index where column col equals text s, or -1. */
__attribute__((unused)) static long tl_find(const pl_table *t, const char *col, const char *s) {
  if (!t) return -1;
  int c = pl_table_col(t, col);
  if (c < 0) return -1;
  for (size_t i = 0; i < t->nrows; i++) {
    size_t n;
    const char *v = pl_cell_str(t, c, i, &n);
    if (v && strcmp(v, s) == 0) return (long)i;
  }
  return -1;
}

__attribute__((unused)) static double tl_num(const pl_table *t, const char *col, long row) {
  if (!t || row < 0) return NAN;
  int c = pl_table_col(t, col);
  return c < 0 ? NAN : pl_cell_num(t, c, (size_t)row);
}

__attribute__((unused)) static const char *tl_str(const pl_table *t, const char *col, long row) {
  if (!t || row < 0) return NULL;
  int c = pl_table_col(t, col);
  size_t n;
  return c < 0 ? NULL : pl_cell_str(t, c, (size_t)row, &n);
}

/* Parses text as format fmt and checks the formatted error equals want. */
#define TL_ERR(text, fmt, want)                                                                                        \
  do {                                                                                                                 \
    pl_err e_;                                                                                                         \
    char b_[2048];                                                                                                     \
    pl_profile *p_ = pl_load_buffer("t", text, strlen(text), fmt, NULL, &e_);                                          \
    TC_CHECK(p_ == NULL);                                                                                              \
    if (p_) pl_profile_free(p_);                                                                                       \
    else {                                                                                                             \
      pl_err_format(&e_, b_, sizeof b_);                                                                               \
      TC_EQ_STR(b_, want);                                                                                             \
    }                                                                                                                  \
  } while (0)

/* Parses text as format fmt (NULL: detect) and returns the profile. */
__attribute__((unused)) static pl_profile *tl_text(const char *text, const char *fmt) {
  pl_err e;
  pl_profile *p = pl_load_buffer("t", text, strlen(text), fmt, NULL, &e);
  if (!p) {
    char b[2048];
    pl_err_format(&e, b, sizeof b);
    fprintf(stderr, "parse failed: %s\n", b);
  }
  TC_CHECK(p != NULL);
  return p;
}
#endif

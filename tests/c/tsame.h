/*
** tsame.h -- are two profiles the same, exactly: every table (names,
** order, columns, types, every cell, string ids included), the metadata
** and the diagnostics.  Prints the first difference.  Shared by
** test_kineto_par.c, test_line_par.c and test_gzstream.c.
*/
#ifndef TSAME_H
#define TSAME_H
#include "tcheck.h"
#include "profile.h"

__attribute__((unused)) static int same_table(const pl_table *a, const pl_table *b, const char *what) {
  if (strcmp(a->name, b->name) != 0 || a->nrows != b->nrows || a->ncols != b->ncols) {
    fprintf(stderr, "%s: table %s (%zu rows, %zu cols) vs %s (%zu rows, %zu cols)\n", what, a->name, a->nrows, a->ncols,
            b->name, b->nrows, b->ncols);
    return 0;
  }
  if (pl_pool_count(a->pool) != pl_pool_count(b->pool)) {
    fprintf(stderr, "%s: table %s: %zu vs %zu pooled strings\n", what, a->name, pl_pool_count(a->pool),
            pl_pool_count(b->pool));
    return 0;
  }
  for (size_t c = 0; c < a->ncols; c++) {
    const pl_column *x = a->cols[c], *y = b->cols[c];
    if (strcmp(x->name, y->name) != 0 || x->type != y->type || x->len != y->len || !x->doc != !y->doc ||
        (x->doc && strcmp(x->doc, y->doc) != 0)) {
      fprintf(stderr, "%s: %s column %zu: %s vs %s\n", what, a->name, c, x->name, y->name);
      return 0;
    }
    for (size_t r = 0; r < a->nrows; r++) {
      int same;
      if (x->type == PL_STR) {
        size_t la, lb;
        const char *sa = x->v.str[r] ? pl_pool_str(a->pool, x->v.str[r], &la) : "";
        const char *sb = y->v.str[r] ? pl_pool_str(b->pool, y->v.str[r], &lb) : "";
        if (!x->v.str[r]) la = 0;
        if (!y->v.str[r]) lb = 0;
        /* the same text, and the same id: interning order is the serial one */
        same = x->v.str[r] == y->v.str[r] && la == lb && memcmp(sa, sb, la) == 0;
      } else if (x->type == PL_BOOL) same = x->v.b[r] == y->v.b[r];
      else same = memcmp(&x->v.i64[r], &y->v.i64[r], 8) == 0; /* NaN bits too */
      if (!same) {
        fprintf(stderr, "%s: %s.%s row %zu differs\n", what, a->name, x->name, r + 1);
        return 0;
      }
    }
  }
  return 1;
}

__attribute__((unused)) static int same_profile(const pl_profile *a, const pl_profile *b, const char *what) {
  if (a->ntables != b->ntables || a->nmeta != b->nmeta || a->ndiags != b->ndiags ||
      a->ndiags_dropped != b->ndiags_dropped) {
    fprintf(stderr, "%s: %zu/%zu tables, %zu/%zu meta, %zu/%zu diagnostics\n", what, a->ntables, b->ntables, a->nmeta,
            b->nmeta, a->ndiags, b->ndiags);
    return 0;
  }
  if (pl_pool_count(a->tables[0]->pool) != pl_pool_count(b->tables[0]->pool)) {
    fprintf(stderr, "%s: %zu vs %zu pooled strings\n", what, pl_pool_count(a->tables[0]->pool),
            pl_pool_count(b->tables[0]->pool));
    return 0;
  }
  for (size_t i = 0; i < a->ntables; i++)
    if (!same_table(a->tables[i], b->tables[i], what)) return 0;
  for (size_t i = 0; i < a->nmeta; i++) {
    const pl_meta *x = &a->meta[i], *y = &b->meta[i];
    int same = strcmp(x->key, y->key) == 0 && !x->text == !y->text &&
               (x->text ? strcmp(x->text, y->text) == 0 : memcmp(&x->num, &y->num, sizeof x->num) == 0);
    if (!same) {
      fprintf(stderr, "%s: meta %s differs\n", what, x->key);
      return 0;
    }
  }
  for (size_t i = 0; i < a->ndiags; i++)
    if (a->diags[i].line != b->diags[i].line || strcmp(a->diags[i].msg, b->diags[i].msg) != 0) {
      fprintf(stderr, "%s: diagnostic %zu: %s vs %s\n", what, i + 1, a->diags[i].msg, b->diags[i].msg);
      return 0;
    }
  return 1;
}

#endif

/*
** table_scan.c -- see table_scan.h.
*/
#include "table_scan.h"

#include <math.h>

pl_table *pl_vec_cummax(const char *name, const pl_table *t, int col, pl_err *err) {
  const pl_column *s = t->cols[col];
  if (s->type != PL_INT && s->type != PL_NUM) {
    pl_err_set(err, 0, 0, "cummax: column '%s' holds %s, not numbers", s->name, pl_type_name(s->type));
    return NULL;
  }
  size_t n = t->nrows;
  pl_table *r = pl_table_new_like(name, t);
  int oc = pl_table_add_col(r, name, s->type);
  pl_column *c = r->cols[oc];
  pl_column_reserve(c, n ? n : 1);
  c->len = n; r->nrows = n;
  if (s->type == PL_INT) {
    int64_t m = PL_INT_NA;
    for (size_t i = 0; i < n; i++) {
      int64_t v = pl_cell_missing(t, col, i) ? PL_INT_NA : pl_cell_int(t, col, i);
      if (v != PL_INT_NA && (m == PL_INT_NA || v > m)) m = v;
      c->v.i64[i] = m;
    }
  } else {
    double m = NAN;
    for (size_t i = 0; i < n; i++) {
      double v = pl_cell_num(t, col, i);
      if (!isnan(v) && (isnan(m) || v > m)) m = v;
      c->v.num[i] = m;
    }
  }
  return r;
}

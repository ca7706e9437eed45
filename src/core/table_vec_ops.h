/*
** table_vec_ops.h -- the operand helpers of the column-expression files
** (table_vec.c, table_vec2.c): an operand's type, its value at a row as a
** number, an integer or a string, whether it is missing there, and the
** one-column result table.  Private to the core.
*/
#ifndef PL_TABLE_VEC_OPS_H
#define PL_TABLE_VEC_OPS_H

#include "table.h"

#include <math.h>

static inline pl_type optype(const pl_operand *a) { return a->t ? a->t->cols[a->col]->type : a->type; }

/* the value at row i as a double (a missing integer scalar: NaN) */
static inline double opnum(const pl_operand *a, size_t i) {
  if (a->t) return pl_cell_num(a->t, a->col, i);
  return a->type == PL_NUM ? a->d : a->i == PL_INT_NA ? NAN : (double)a->i;
}

/* the value at row i of an integer or boolean operand (missing: PL_INT_NA) */
static inline int64_t opint(const pl_operand *a, size_t i) {
  if (!a->t) return a->i;
  const pl_column *c = a->t->cols[a->col];
  if (c->type == PL_BOOL) return c->v.b[i] == PL_BOOL_NA ? PL_INT_NA : c->v.b[i];
  return c->v.i64[i];
}

static inline const char *opstr(const pl_operand *a, size_t i, size_t *len) {
  if (a->t) return pl_cell_str(a->t, a->col, i, len);
  *len = a->slen;
  return a->s;
}

static inline int opmissing(const pl_operand *a, size_t i) {
  if (a->t) return pl_cell_missing(a->t, a->col, i);
  switch (a->type) {
    case PL_NUM: return isnan(a->d);
    case PL_STR: return a->s == NULL;
    default: return 0;
  }
}

/* A new column of n values (contents the caller's) in an empty table. */
static inline pl_column *newcol(pl_table *r, const char *name, pl_type type, size_t n) {
  int c = pl_table_add_col(r, name, type);
  pl_column *col = r->cols[c];
  pl_column_reserve(col, n ? n : 1);
  col->len = n;
  r->nrows = n;
  return col;
}

/* "numbers", "integers", ...: a type in an error message */
static inline const char *what(pl_type t) {
  switch (t) {
    case PL_NUM: return "numbers";
    case PL_INT: return "integers";
    case PL_BOOL: return "booleans";
    case PL_STR: return "strings";
  }
  return "?";
}

#endif

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

pl_table *pl_vec_cumsum(const char *name, const pl_table *t, int col, pl_err *err) {
  const pl_column *s = t->cols[col];
  if (s->type != PL_INT && s->type != PL_NUM) {
    pl_err_set(err, 0, 0, "cumsum: column '%s' holds %s, not numbers", s->name, pl_type_name(s->type));
    return NULL;
  }
  size_t n = t->nrows;
  pl_table *r = pl_table_new_like(name, t);
  if (s->type == PL_INT) {
    int oc = pl_table_add_col(r, name, PL_INT);
    pl_column *c = r->cols[oc];
    pl_column_reserve(c, n ? n : 1);
    c->len = n; r->nrows = n;
    int64_t acc = 0;
    size_t i = 0;
    for (; i < n; i++) {
      if (!pl_cell_missing(t, col, i) && (__builtin_add_overflow(acc, pl_cell_int(t, col, i), &acc) || acc == PL_INT_NA)) break;
      c->v.i64[i] = acc;
    }
    if (i == n) return r;
    pl_table_drop_col(r, oc);           /* left int64: the whole column as doubles */
  }
  int oc = pl_table_add_col(r, name, PL_NUM);
  pl_column *c = r->cols[oc];
  pl_column_reserve(c, n ? n : 1);
  c->len = n; r->nrows = n;
  double acc = 0;
  for (size_t i = 0; i < n; i++) {
    double v = pl_cell_num(t, col, i);
    if (!isnan(v)) acc += v;
    c->v.num[i] = acc;
  }
  return r;
}

pl_table *pl_vec_at(const char *name, const pl_table *t, int col, const pl_table *it, int ic,
                    size_t *bad, pl_err *err) {
  size_t m = it->nrows;
  const pl_column *ix = it->cols[ic];
  if (ix->type != PL_INT) {
    pl_err_set(err, 0, 0, "at: expected an integer column of row numbers, got %s", pl_type_name(ix->type));
    return NULL;
  }
  for (size_t i = 0; i < m; i++) {
    int64_t v = ix->v.i64[i];
    if (v != PL_INT_NA && (v < 1 || (uint64_t)v > t->nrows)) {
      *bad = i;
      pl_err_set(err, 0, 0, "at: row %lld out of range (table '%s' has %zu rows)", (long long)v, t->name ? t->name : "?", t->nrows);
      return NULL;
    }
  }
  const pl_column *s = t->cols[col];
  pl_table *r = pl_table_new_like(name, t);
  int oc = pl_table_add_col(r, name, s->type);
  pl_column *c = r->cols[oc];
  pl_column_reserve(c, m ? m : 1);
  c->len = m; r->nrows = m;
  for (size_t i = 0; i < m; i++) {
    int64_t v = ix->v.i64[i];
    size_t j = v == PL_INT_NA ? 0 : (size_t)v - 1;
    int miss = v == PL_INT_NA;
    switch (s->type) {
      case PL_NUM: c->v.num[i] = miss ? NAN : s->v.num[j]; break;
      case PL_STR: c->v.str[i] = miss ? 0 : s->v.str[j]; break;
      case PL_BOOL: c->v.b[i] = miss ? PL_BOOL_NA : s->v.b[j]; break;
      default: c->v.i64[i] = miss ? PL_INT_NA : s->v.i64[j]; break;
    }
  }
  return r;
}

pl_table *pl_vec_coalesce(const char *name, const pl_table *t, int col, const pl_operand *b, pl_err *err) {
  pl_type ta = t->cols[col]->type, tb = b->t ? b->t->cols[b->col]->type : b->type;
  int numa = ta == PL_INT || ta == PL_NUM, numb = tb == PL_INT || tb == PL_NUM;
  if (ta != tb && !(numa && numb)) {
    pl_err_set(err, 0, 0, "coalesce: column '%s' holds %s, the other %s", t->cols[col]->name, pl_type_name(ta), pl_type_name(tb));
    return NULL;
  }
  if (b->t && b->t->nrows != t->nrows) {
    pl_err_set(err, 0, 0, "coalesce: columns of different lengths (%zu and %zu rows)", t->nrows, b->t->nrows);
    return NULL;
  }
  size_t n = t->nrows;
  pl_type out = ta == tb ? ta : PL_NUM;
  pl_table *r = pl_table_new_like(name, t);
  int oc = pl_table_add_col(r, name, out);
  pl_column *c = r->cols[oc];
  pl_column_reserve(c, n ? n : 1);
  c->len = n; r->nrows = n;
  uint32_t sid = 0;                       /* a scalar string, interned once */
  if (out == PL_STR && !b->t && b->s) sid = pl_pool_intern(r->pool, b->s, b->slen);
  for (size_t i = 0; i < n; i++) {
    int have = !pl_cell_missing(t, col, i);
    switch (out) {
      case PL_NUM: {
        double v = pl_cell_num(t, col, i);
        if (!have) v = b->t ? pl_cell_num(b->t, b->col, i) : (b->type == PL_NUM ? b->d : b->i == PL_INT_NA ? NAN : (double)b->i);
        c->v.num[i] = v;
        break;
      }
      case PL_INT:
        c->v.i64[i] = have ? pl_cell_int(t, col, i) : b->t ? (pl_cell_missing(b->t, b->col, i) ? PL_INT_NA : pl_cell_int(b->t, b->col, i)) : b->i;
        break;
      case PL_BOOL: {
        const pl_column *sc = t->cols[col];
        c->v.b[i] = have ? sc->v.b[i] : b->t ? b->t->cols[b->col]->v.b[i] : (uint8_t)b->i;
        break;
      }
      default: {
        uint32_t id = t->cols[col]->v.str[i];
        if (!have) {
          if (!b->t) id = sid;
          else {
            id = b->t->cols[b->col]->v.str[i];
            if (id && b->t->pool != r->pool) {
              size_t ln;
              const char *s = pl_pool_str(b->t->pool, id, &ln);
              id = pl_pool_intern(r->pool, s, ln);
            }
          }
        }
        c->v.str[i] = id;
      }
    }
  }
  return r;
}

/*
** table_scan.c -- see table_scan.h.
*/
#include "table_scan.h"

#include "pl_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
  c->len = n;
  r->nrows = n;
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
    c->len = n;
    r->nrows = n;
    int64_t acc = 0;
    size_t i = 0;
    for (; i < n; i++) {
      if (!pl_cell_missing(t, col, i) &&
          (__builtin_add_overflow(acc, pl_cell_int(t, col, i), &acc) || acc == PL_INT_NA))
        break;
      c->v.i64[i] = acc;
    }
    if (i == n) return r;
    pl_table_drop_col(r, oc); /* left int64: the whole column as doubles */
  }
  int oc = pl_table_add_col(r, name, PL_NUM);
  pl_column *c = r->cols[oc];
  pl_column_reserve(c, n ? n : 1);
  c->len = n;
  r->nrows = n;
  double acc = 0;
  for (size_t i = 0; i < n; i++) {
    double v = pl_cell_num(t, col, i);
    if (!isnan(v)) acc += v;
    c->v.num[i] = acc;
  }
  return r;
}

pl_table *pl_vec_at(const char *name, const pl_table *t, int col, const pl_table *it, int ic, size_t *bad,
                    pl_err *err) {
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
      pl_err_set(err, 0, 0, "at: row %lld out of range (table '%s' has %zu rows)", (long long)v,
                 t->name ? t->name : "?", t->nrows);
      return NULL;
    }
  }
  const pl_column *s = t->cols[col];
  pl_table *r = pl_table_new_like(name, t);
  int oc = pl_table_add_col(r, name, s->type);
  pl_column *c = r->cols[oc];
  pl_column_reserve(c, m ? m : 1);
  c->len = m;
  r->nrows = m;
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

/* ---- index_of ---------------------------------------------------------- */

static uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t bytes_hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 1099511628211ULL;
  }
  return mix64(h);
}

/* the kind of key a value is read as: 0 integer (int64), 1 number, 2 string */
typedef struct ikey {
  int kind;
  int64_t i;
  double d;
  const char *s;
  size_t n;
} ikey;

static int read_key(const pl_table *t, int col, size_t r, int kind, ikey *k) {
  const pl_column *c = t->cols[col];
  k->kind = kind;
  if (kind == 0 && c->type == PL_INT) {
    k->i = c->v.i64[r];
    return k->i != PL_INT_NA;
  } /* the common case, inline */
  if (pl_cell_missing(t, col, r)) return 0;
  if (kind == 0) k->i = pl_cell_int(t, col, r);
  else if (kind == 1) {
    k->d = pl_cell_num(t, col, r);
    if (k->d == 0) k->d = 0;
  } /* -0 is 0 */
  else
    k->s = pl_pool_str(t->pool, t->cols[col]->v.str[r], &k->n);
  return 1;
}

static uint64_t key_hash(const ikey *k) {
  if (k->kind == 0) return mix64((uint64_t)k->i);
  if (k->kind == 1) {
    uint64_t b;
    memcpy(&b, &k->d, sizeof b);
    return mix64(b);
  }
  return bytes_hash(k->s, k->n);
}

static int key_eq(const ikey *a, const ikey *b) {
  if (a->kind == 0) return a->i == b->i;
  if (a->kind == 1) return a->d == b->d;
  return a->n == b->n && (a->n == 0 || memcmp(a->s, b->s, a->n) == 0);
}

/* A table like q of one integer column `name`, m rows to fill. */
static pl_table *int_result(const char *name, const pl_table *q, size_t m) {
  pl_table *res = pl_table_new_like(name, q);
  int oc = pl_table_add_col(res, name, PL_INT);
  pl_column *c = res->cols[oc];
  pl_column_reserve(c, m ? m : 1);
  c->len = m;
  res->nrows = m;
  return res;
}

/* a slot: the key's 64-bit hash (a bijection of an integer or a number's
** bits, so equal hashes are equal keys; strings are compared on a match)
** and row + 1 of its first value (0: empty) */
typedef struct islot {
  uint64_t h;
  size_t row;
} islot;

pl_table *pl_vec_index_of(const char *name, const pl_table *t, int col, const pl_table *q, int qc, pl_err *err) {
  pl_type ta = t->cols[col]->type, tq = q->cols[qc]->type;
  if ((ta == PL_STR) != (tq == PL_STR)) {
    pl_err_set(err, 0, 0, "index_of: cannot look up %s in %s", pl_type_name(tq), pl_type_name(ta));
    return NULL;
  }
  int kind = ta == PL_STR ? 2 : (ta == PL_NUM || tq == PL_NUM) ? 1 : 0; /* booleans read as integers */
  size_t n = t->nrows, m = q->nrows, cap = 16;
  while (cap < 2 * n) cap *= 2;
  islot *slot = pl_xcalloc(cap, sizeof *slot);
  ikey a, b;
  for (size_t r = 0; r < n; r++) {
    if (!read_key(t, col, r, kind, &a)) continue;
    uint64_t hv = key_hash(&a);
    size_t h = (size_t)hv & (cap - 1);
    for (;;) {
      if (slot[h].row == 0) {
        slot[h].h = hv;
        slot[h].row = r + 1;
        break;
      }
      if (slot[h].h == hv) {
        if (kind != 2) break; /* a later duplicate: the first row stays */
        read_key(t, col, slot[h].row - 1, kind, &b);
        if (key_eq(&a, &b)) break;
      }
      h = (h + 1) & (cap - 1);
    }
  }
  pl_table *res = int_result(name, q, m);
  pl_column *c = res->cols[0];
  for (size_t r = 0; r < m; r++) {
    c->v.i64[r] = PL_INT_NA;
    if (!read_key(q, qc, r, kind, &a)) continue;
    uint64_t hv = key_hash(&a);
    size_t h = (size_t)hv & (cap - 1);
    while (slot[h].row != 0) {
      if (slot[h].h == hv) {
        if (kind != 2) {
          c->v.i64[r] = (int64_t)slot[h].row;
          break;
        }
        read_key(t, col, slot[h].row - 1, kind, &b);
        if (key_eq(&a, &b)) {
          c->v.i64[r] = (int64_t)slot[h].row;
          break;
        }
      }
      h = (h + 1) & (cap - 1);
    }
  }
  free(slot);
  return res;
}

/* ---- searchsorted ------------------------------------------------------ */

pl_table *pl_vec_searchsorted(const char *name, const pl_table *t, int col, const pl_table *q, int qc, int right,
                              pl_err *err) {
  pl_type ta = t->cols[col]->type, tq = q->cols[qc]->type;
  if (ta == PL_STR || tq == PL_STR) {
    pl_err_set(err, 0, 0, "searchsorted: expected numbers, got %s", pl_type_name(ta == PL_STR ? ta : tq));
    return NULL;
  }
  size_t n = t->nrows, m = q->nrows;
  int ints = ta != PL_NUM && tq != PL_NUM; /* integers (and booleans) compare exactly */
  for (size_t i = 0; i < n; i++) {
    if (pl_cell_missing(t, col, i)) {
      pl_err_set(err, 0, 0, "searchsorted: missing value at row %zu of the sorted column", i + 1);
      return NULL;
    }
    if (i && (ints ? pl_cell_int(t, col, i) < pl_cell_int(t, col, i - 1)
                   : pl_cell_num(t, col, i) < pl_cell_num(t, col, i - 1))) {
      pl_err_set(err, 0, 0, "searchsorted: the column is not sorted ascending (row %zu)", i + 1);
      return NULL;
    }
  }
  pl_table *res = int_result(name, q, m);
  pl_column *c = res->cols[0];
  for (size_t r = 0; r < m; r++) {
    if (pl_cell_missing(q, qc, r)) {
      c->v.i64[r] = PL_INT_NA;
      continue;
    }
    int64_t iv = ints ? pl_cell_int(q, qc, r) : 0;
    double dv = ints ? 0 : pl_cell_num(q, qc, r);
    size_t lo = 0, hi = n; /* the first row whose value is > v (right) or >= v (left) */
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int after = ints ? (right ? pl_cell_int(t, col, mid) > iv : pl_cell_int(t, col, mid) >= iv)
                       : (right ? pl_cell_num(t, col, mid) > dv : pl_cell_num(t, col, mid) >= dv);
      if (after) hi = mid;
      else lo = mid + 1;
    }
    c->v.i64[r] = (int64_t)lo;
  }
  return res;
}

/* ---- reductions ---------------------------------------------------------- */

void pl_col_reduce(const pl_table *t, int col, const pl_column *where, pl_col_summary *out) {
  const pl_column *c = t->cols[col];
  memset(out, 0, sizeof *out);
  double s = 0, comp = 0, mn = INFINITY, mx = -INFINITY;
  int64_t acc = 0, imn = 0, imx = 0;
  int over = 0;
  for (size_t i = 0; i < t->nrows; i++) {
    if (pl_cell_missing(t, col, i) || (where && where->v.b[i] != 1)) continue;
    out->n++;
    if (c->type == PL_STR) continue;
    double v = pl_cell_num(t, col, i);
    double tt = s + v;
    comp += fabs(s) >= fabs(v) ? (s - tt) + v : (v - tt) + s;
    s = tt;
    if (v < mn) mn = v;
    if (v > mx) mx = v;
    if (c->type == PL_INT) {
      int64_t x = c->v.i64[i];
      if (!over) over = __builtin_add_overflow(acc, x, &acc);
      if (out->n == 1 || x < imn) imn = x;
      if (out->n == 1 || x > imx) imx = x;
    }
  }
  out->sum = s + comp;
  out->min = mn;
  out->max = mx;
  out->isum = over ? 0 : acc;
  out->isum_over = over;
  out->imin = imn;
  out->imax = imx;
}

size_t pl_col_count_true(const pl_table *t, int col) {
  const pl_column *c = t->cols[col];
  size_t n = 0;
  for (size_t i = 0; i < t->nrows; i++) n += c->v.b[i] == 1;
  return n;
}

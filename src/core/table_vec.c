/*
** table_vec.c -- column expressions of the table engine: arithmetic,
** comparisons, boolean masks, membership, clipping, filtering by mask and
** long-to-wide pivots.  Every operation makes a new one-column table (the
** binding wraps it as a column object), so a chain of them never touches
** the source tables.
*/
#include "table.h"
#include "table_vec_ops.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t pl_operand_len(const pl_operand *a) { return a->t ? a->t->nrows : SIZE_MAX; }

/* The values of a number column operand; NULL for any other operand. */
static const double *numvals(const pl_operand *a) {
  return a->t && a->t->cols[a->col]->type == PL_NUM ? a->t->cols[a->col]->v.num : NULL;
}

static pl_table *result_table(const char *name, const pl_table *src) {
  return src ? pl_table_new_like(name, src) : pl_table_new(name);
}

static int isnumtype(pl_type t) { return t != PL_STR; }

/* ---- arithmetic -------------------------------------------------------- */

static int int_op(pl_vop op, int64_t x, int64_t y, int64_t *out) {
  switch (op) {
    case PL_V_ADD: return __builtin_add_overflow(x, y, out) || *out == PL_INT_NA;
    case PL_V_SUB: return __builtin_sub_overflow(x, y, out) || *out == PL_INT_NA;
    case PL_V_MUL: return __builtin_mul_overflow(x, y, out) || *out == PL_INT_NA;
    case PL_V_MIN: *out = x < y ? x : y; return 0;
    case PL_V_MAX: *out = x > y ? x : y; return 0;
    case PL_V_IDIV:
      if (y == 0) {
        *out = PL_INT_NA;
        return 0;
      }
      *out = x / y;
      if (x % y != 0 && ((x < 0) != (y < 0))) (*out)--;
      return 0;
    case PL_V_MOD:
      if (y == 0) {
        *out = PL_INT_NA;
        return 0;
      }
      *out = x % y;
      if (*out != 0 && ((*out < 0) != (y < 0))) *out += y;
      return 0;
    default: return 1;
  }
}

static double num_op(pl_vop op, double x, double y) {
  if (isnan(x) || isnan(y)) return NAN;
  switch (op) {
    case PL_V_ADD: return x + y;
    case PL_V_SUB: return x - y;
    case PL_V_MUL: return x * y;
    case PL_V_DIV: return x / y;
    case PL_V_MIN: return x < y ? x : y;
    case PL_V_MAX: return x > y ? x : y;
    case PL_V_IDIV: return floor(x / y);
    case PL_V_MOD: { /* as Lua: fmod, moved to the divisor's sign */
      double m = fmod(x, y);
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return m;
    }
    default: return NAN;
  }
}

static pl_table *arith(const char *name, const pl_operand *a, const pl_operand *b, pl_vop op, size_t n, pl_err *err) {
  pl_type ta = optype(a), tb = optype(b);
  if (!isnumtype(ta) || !isnumtype(tb)) {
    pl_err_set(err, 0, 0, "arithmetic on %s: expected numbers", what(!isnumtype(ta) ? ta : tb));
    return NULL;
  }
  const pl_table *src = a->t ? a->t : b->t;
  pl_table *r = result_table(name, src);
  if (ta != PL_NUM && tb != PL_NUM && op != PL_V_DIV) {
    pl_column *c = newcol(r, name, PL_INT, n);
    size_t i = 0;
    for (; i < n; i++) {
      int64_t x = opint(a, i), y = opint(b, i);
      if (x == PL_INT_NA || y == PL_INT_NA) {
        c->v.i64[i] = PL_INT_NA;
        continue;
      }
      if (int_op(op, x, y, &c->v.i64[i])) break;
    }
    if (i == n) return r;
    pl_table_drop_col(r, 0); /* left int64: the whole column as doubles */
  }
  pl_column *c = newcol(r, name, PL_NUM, n);
  const double *xa = numvals(a), *xb = numvals(b);
  if ((xa || !a->t) && (xb || !b->t)) { /* number columns and scalars: straight off the arrays */
    double ka = a->t ? 0 : opnum(a, 0), kb = b->t ? 0 : opnum(b, 0);
    for (size_t i = 0; i < n; i++) c->v.num[i] = num_op(op, xa ? xa[i] : ka, xb ? xb[i] : kb);
    return r;
  }
  for (size_t i = 0; i < n; i++) c->v.num[i] = num_op(op, opnum(a, i), opnum(b, i));
  return r;
}

/* ---- comparisons ------------------------------------------------------- */

static int cmp_bytes(const char *x, size_t lx, const char *y, size_t ly) {
  size_t m = lx < ly ? lx : ly;
  int r = m ? memcmp(x, y, m) : 0;
  if (r == 0) r = (lx > ly) - (lx < ly);
  return (r > 0) - (r < 0);
}

static int cmp_holds(pl_vop op, int r) {
  switch (op) {
    case PL_V_EQ: return r == 0;
    case PL_V_NE: return r != 0;
    case PL_V_LT: return r < 0;
    case PL_V_LE: return r <= 0;
    case PL_V_GT: return r > 0;
    case PL_V_GE: return r >= 0;
    default: return 0;
  }
}

static pl_table *compare(const char *name, const pl_operand *a, const pl_operand *b, pl_vop op, size_t n, pl_err *err) {
  pl_type ta = optype(a), tb = optype(b);
  if ((ta == PL_STR) != (tb == PL_STR)) {
    pl_err_set(err, 0, 0, "cannot compare %s with %s", what(ta), what(tb));
    return NULL;
  }
  const pl_table *src = a->t ? a->t : b->t;
  pl_table *r = result_table(name, src);
  pl_column *c = newcol(r, name, PL_BOOL, n);
  if (ta != PL_STR) {
    int ints = ta != PL_NUM && tb != PL_NUM;
    if (ints && ta == PL_INT && tb == PL_INT && a->t) { /* int64 column against a column or a number */
      const int64_t *x = a->t->cols[a->col]->v.i64, *y = b->t ? b->t->cols[b->col]->v.i64 : NULL;
      int64_t yv = b->i;
      for (size_t i = 0; i < n; i++) {
        int64_t u = x[i], w = y ? y[i] : yv;
        c->v.b[i] = (uint8_t)(u != PL_INT_NA && w != PL_INT_NA && cmp_holds(op, (u > w) - (u < w)));
      }
      return r;
    }
    const double *xa = numvals(a), *xb = numvals(b);
    double ka = a->t ? 0 : opnum(a, 0), kb = b->t ? 0 : opnum(b, 0);
    for (size_t i = 0; i < n; i++) {
      int res;
      if (ints) {
        int64_t x = opint(a, i), y = opint(b, i);
        res = x != PL_INT_NA && y != PL_INT_NA && cmp_holds(op, (x > y) - (x < y));
      } else {
        double x = xa ? xa[i] : a->t ? opnum(a, i) : ka, y = xb ? xb[i] : b->t ? opnum(b, i) : kb;
        res = !isnan(x) && !isnan(y) && cmp_holds(op, (x > y) - (x < y));
      }
      c->v.b[i] = (uint8_t)res;
    }
    return r;
  }
  /* strings: one column against a scalar is decided once per pool id */
  const pl_operand *col = a->t ? a : b, *other = a->t ? b : a;
  if (!other->t) {
    const pl_table *t = col->t;
    size_t np = pl_pool_count(t->pool) + 1;
    unsigned char *memo = pl_xcalloc(np, 1); /* 0 unknown, 1 false, 2 true */
    const uint32_t *ids = t->cols[col->col]->v.str;
    int flip = col != a; /* scalar on the left */
    for (size_t i = 0; i < n; i++) {
      uint32_t id = ids[i];
      if (id == 0) {
        c->v.b[i] = 0;
        continue;
      }
      if (!memo[id]) {
        size_t ln;
        const char *s = pl_pool_str(t->pool, id, &ln);
        int rr = cmp_bytes(s, ln, other->s, other->slen);
        memo[id] = (unsigned char)(1 + cmp_holds(op, flip ? -rr : rr));
      }
      c->v.b[i] = (uint8_t)(memo[id] - 1);
    }
    free(memo);
    return r;
  }
  int samepool = a->t->pool == b->t->pool;
  for (size_t i = 0; i < n; i++) {
    size_t lx, ly;
    if (samepool && (op == PL_V_EQ || op == PL_V_NE)) {
      uint32_t x = a->t->cols[a->col]->v.str[i], y = b->t->cols[b->col]->v.str[i];
      c->v.b[i] = x && y && cmp_holds(op, x == y ? 0 : 1);
      continue;
    }
    const char *x = opstr(a, i, &lx), *y = opstr(b, i, &ly);
    c->v.b[i] = x && y && cmp_holds(op, cmp_bytes(x, lx, y, ly));
  }
  return r;
}

/* ---- booleans ---------------------------------------------------------- */

static int opbool(const pl_operand *a, size_t i) { /* 1, 0, or -1 missing */
  int64_t v = opint(a, i);
  return v == PL_INT_NA ? -1 : v != 0;
}

static pl_table *logic(const char *name, const pl_operand *a, const pl_operand *b, pl_vop op, size_t n, pl_err *err) {
  pl_type ta = optype(a), tb = optype(b);
  if (ta != PL_BOOL || tb != PL_BOOL) {
    pl_err_set(err, 0, 0, "expected booleans, got %s", what(ta != PL_BOOL ? ta : tb));
    return NULL;
  }
  pl_table *r = result_table(name, a->t ? a->t : b->t);
  pl_column *c = newcol(r, name, PL_BOOL, n);
  if (a->t && b->t) { /* two columns: the same rule on the bytes (0, 1, PL_BOOL_NA) */
    const uint8_t *x = a->t->cols[a->col]->v.b, *y = b->t->cols[b->col]->v.b;
    uint8_t *o = c->v.b;
    if (op == PL_V_AND)
      for (size_t i = 0; i < n; i++)
        o[i] = (x[i] == 0 || y[i] == 0) ? 0 : (x[i] == PL_BOOL_NA || y[i] == PL_BOOL_NA) ? PL_BOOL_NA : 1;
    else
      for (size_t i = 0; i < n; i++)
        o[i] = (x[i] == 1 || y[i] == 1) ? 1 : (x[i] == PL_BOOL_NA || y[i] == PL_BOOL_NA) ? PL_BOOL_NA : 0;
    return r;
  }
  for (size_t i = 0; i < n; i++) {
    int x = opbool(a, i), y = opbool(b, i), v;
    if (op == PL_V_AND) v = (x == 0 || y == 0) ? 0 : (x < 0 || y < 0) ? -1 : 1;
    else v = (x == 1 || y == 1) ? 1 : (x < 0 || y < 0) ? -1 : 0;
    c->v.b[i] = v < 0 ? PL_BOOL_NA : (uint8_t)v;
  }
  return r;
}

pl_table *pl_vec_binary(const char *name, const pl_operand *a, const pl_operand *b, pl_vop op, pl_err *err) {
  size_t la = pl_operand_len(a), lb = pl_operand_len(b);
  if (la == SIZE_MAX && lb == SIZE_MAX) {
    pl_err_set(err, 0, 0, "expected at least one column");
    return NULL;
  }
  if (la != SIZE_MAX && lb != SIZE_MAX && la != lb) {
    pl_err_set(err, 0, 0, "columns of different lengths (%zu and %zu rows)", la, lb);
    return NULL;
  }
  size_t n = la != SIZE_MAX ? la : lb;
  if (op <= PL_V_MOD) return arith(name, a, b, op, n, err);
  if (op <= PL_V_GE) return compare(name, a, b, op, n, err);
  return logic(name, a, b, op, n, err);
}

pl_table *pl_vec_not(const char *name, const pl_table *t, int col, pl_err *err) {
  const pl_column *s = t->cols[col];
  if (s->type != PL_BOOL) {
    pl_err_set(err, 0, 0, "~: expected booleans, got %s", what(s->type));
    return NULL;
  }
  pl_table *r = pl_table_new_like(name, t);
  pl_column *c = newcol(r, name, PL_BOOL, t->nrows);
  for (size_t i = 0; i < t->nrows; i++) c->v.b[i] = s->v.b[i] == PL_BOOL_NA ? PL_BOOL_NA : !s->v.b[i];
  return r;
}

/* ---- unary numeric ----------------------------------------------------- */

pl_table *pl_vec_abs(const char *name, const pl_table *t, int col, pl_err *err) {
  const pl_column *s = t->cols[col];
  if (s->type == PL_STR || s->type == PL_BOOL) {
    pl_err_set(err, 0, 0, "abs: expected numbers, got %s", what(s->type));
    return NULL;
  }
  pl_table *r = pl_table_new_like(name, t);
  pl_column *c = newcol(r, name, s->type, t->nrows);
  for (size_t i = 0; i < t->nrows; i++) {
    if (s->type == PL_NUM) c->v.num[i] = fabs(s->v.num[i]);
    else c->v.i64[i] = s->v.i64[i] == PL_INT_NA ? PL_INT_NA : s->v.i64[i] < 0 ? -s->v.i64[i] : s->v.i64[i];
  }
  return r;
}

pl_table *pl_vec_round(const char *name, const pl_table *t, int col, int up, pl_err *err) {
  const pl_column *s = t->cols[col];
  if (s->type == PL_STR || s->type == PL_BOOL) {
    pl_err_set(err, 0, 0, "%s: expected numbers, got %s", up ? "ceil" : "floor", what(s->type));
    return NULL;
  }
  pl_table *r = pl_table_new_like(name, t);
  if (s->type == PL_INT) {
    pl_column *c = newcol(r, name, PL_INT, t->nrows);
    if (t->nrows) memcpy(c->v.i64, s->v.i64, t->nrows * sizeof *c->v.i64);
    return r;
  }
  int fits = 1; /* [-2^63, 2^63) and not the missing marker */
  for (size_t i = 0; i < t->nrows && fits; i++) {
    double v = s->v.num[i];
    if (isnan(v)) continue;
    v = up ? ceil(v) : floor(v);
    fits = v >= -9223372036854775808.0 && v < 9223372036854775808.0 && (int64_t)v != PL_INT_NA;
  }
  pl_column *c = newcol(r, name, fits ? PL_INT : PL_NUM, t->nrows);
  for (size_t i = 0; i < t->nrows; i++) {
    double v = s->v.num[i];
    double f = isnan(v) ? v : up ? ceil(v) : floor(v);
    if (fits) c->v.i64[i] = isnan(f) ? PL_INT_NA : (int64_t)f;
    else c->v.num[i] = f;
  }
  return r;
}

static int integral(double v) { return isnan(v) || (v == floor(v) && fabs(v) < 9007199254740992.0); }

pl_table *pl_vec_clip(const char *name, const pl_table *t, int col, double lo, double hi, pl_err *err) {
  const pl_column *s = t->cols[col];
  if (s->type == PL_STR || s->type == PL_BOOL) {
    pl_err_set(err, 0, 0, "clip: expected numbers, got %s", what(s->type));
    return NULL;
  }
  if (!isnan(lo) && !isnan(hi) && lo > hi) {
    pl_err_set(err, 0, 0, "clip: lower bound %g above upper bound %g", lo, hi);
    return NULL;
  }
  pl_table *r = pl_table_new_like(name, t);
  if (s->type == PL_INT && integral(lo) && integral(hi)) {
    pl_column *c = newcol(r, name, PL_INT, t->nrows);
    int64_t l = isnan(lo) ? INT64_MIN : (int64_t)lo, h = isnan(hi) ? INT64_MAX : (int64_t)hi;
    for (size_t i = 0; i < t->nrows; i++) {
      int64_t v = s->v.i64[i];
      c->v.i64[i] = v == PL_INT_NA ? v : v < l ? l : v > h ? h : v;
    }
    return r;
  }
  pl_column *c = newcol(r, name, PL_NUM, t->nrows);
  for (size_t i = 0; i < t->nrows; i++) {
    double v = pl_cell_num(t, col, i);
    if (!isnan(v)) {
      if (!isnan(lo) && v < lo) v = lo;
      if (!isnan(hi) && v > hi) v = hi;
    }
    c->v.num[i] = v;
  }
  return r;
}

/* ---- membership -------------------------------------------------------- */

static uint64_t fnv(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

pl_table *pl_vec_isin(const char *name, const pl_table *t, int col, const pl_table *set, int setcol, pl_err *err) {
  (void)err;
  const pl_column *s = t->cols[col];
  pl_table *r = pl_table_new_like(name, t);
  pl_column *c = newcol(r, name, PL_BOOL, t->nrows);
  int setstr = set->ncols > 0 && set->cols[setcol]->type == PL_STR;
  if (s->type == PL_STR) {
    /* a hash set of the set's strings; each distinct id looked up once */
    size_t m = setstr ? set->nrows : 0, ns = 16;
    while (ns < 2 * m) ns *= 2;
    size_t *slot = pl_xcalloc(ns, sizeof *slot); /* row + 1, 0 empty */
    for (size_t j = 0; j < m; j++) {
      size_t ln;
      const char *x = pl_cell_str(set, setcol, j, &ln);
      if (!x) continue;
      size_t h = (size_t)fnv(x, ln) & (ns - 1);
      while (slot[h]) h = (h + 1) & (ns - 1);
      slot[h] = j + 1;
    }
    size_t np = pl_pool_count(t->pool) + 1;
    unsigned char *memo = pl_xcalloc(np, 1);
    for (size_t i = 0; i < t->nrows; i++) {
      uint32_t id = s->v.str[i];
      if (id == 0) {
        c->v.b[i] = 0;
        continue;
      }
      if (!memo[id]) {
        size_t ln, ly;
        const char *x = pl_pool_str(t->pool, id, &ln);
        int hit = 0;
        for (size_t h = (size_t)fnv(x, ln) & (ns - 1); slot[h] && !hit; h = (h + 1) & (ns - 1)) {
          const char *y = pl_cell_str(set, setcol, slot[h] - 1, &ly);
          hit = ly == ln && memcmp(x, y, ln) == 0;
        }
        memo[id] = (unsigned char)(1 + hit);
      }
      c->v.b[i] = (uint8_t)(memo[id] - 1);
    }
    free(memo);
    free(slot);
    return r;
  }
  if (s->type == PL_INT && !setstr && set->ncols > 0 && set->cols[setcol]->type == PL_INT) {
    /* int64 on both sides: a hash set of the values as doubles (the same
    ** equality as the sorted doubles below), one probe a row */
    size_t m = set->nrows, ns = 64;
    while (ns < 2 * m) ns *= 2;
    uint64_t *key = pl_xmalloc(ns * sizeof *key);
    unsigned char *used = pl_xcalloc(ns, 1);
    const int64_t *sv = set->cols[setcol]->v.i64, *tv = s->v.i64;
    for (size_t j = 0; j < m; j++) {
      if (sv[j] == PL_INT_NA) continue;
      double d = (double)sv[j];
      uint64_t b;
      memcpy(&b, &d, sizeof b);
      size_t h = (size_t)(fnv((const char *)&b, sizeof b) & (ns - 1));
      while (used[h] && key[h] != b) h = (h + 1) & (ns - 1);
      used[h] = 1;
      key[h] = b;
    }
    for (size_t i = 0; i < t->nrows; i++) {
      if (tv[i] == PL_INT_NA) {
        c->v.b[i] = 0;
        continue;
      }
      double d = (double)tv[i];
      uint64_t b;
      memcpy(&b, &d, sizeof b);
      size_t h = (size_t)(fnv((const char *)&b, sizeof b) & (ns - 1));
      while (used[h] && key[h] != b) h = (h + 1) & (ns - 1);
      c->v.b[i] = used[h];
    }
    free(key);
    free(used);
    return r;
  }
  size_t m = 0;
  double *vals = pl_xmalloc((set->nrows ? set->nrows : 1) * sizeof *vals);
  if (!setstr)
    for (size_t j = 0; j < set->nrows; j++) {
      double v = pl_cell_num(set, setcol, j);
      if (!isnan(v)) vals[m++] = v;
    }
  qsort(vals, m, sizeof *vals, cmp_double);
  for (size_t i = 0; i < t->nrows; i++) {
    double v = pl_cell_num(t, col, i);
    c->v.b[i] = !isnan(v) && m && bsearch(&v, vals, m, sizeof *vals, cmp_double) != NULL;
  }
  free(vals);
  return r;
}

/* ---- rows by mask ------------------------------------------------------ */

pl_table *pl_vec_keep(const char *name, const pl_table *t, int col, const pl_column *mask) {
  pl_table *r = pl_column_copy(name, t, col);
  pl_column *c = r->cols[0];
  for (size_t i = 0; i < t->nrows; i++) {
    if (mask->v.b[i] == 1) continue;
    switch (c->type) {
      case PL_NUM: c->v.num[i] = NAN; break;
      case PL_STR: c->v.str[i] = 0; break;
      case PL_BOOL: c->v.b[i] = PL_BOOL_NA; break;
      default: c->v.i64[i] = PL_INT_NA; break;
    }
  }
  return r;
}

pl_table *pl_table_filter(const pl_table *t, const pl_column *mask) {
  size_t n = 0;
  size_t *idx = pl_xmalloc((t->nrows ? t->nrows : 1) * sizeof *idx);
  for (size_t i = 0; i < t->nrows; i++)
    if (mask->v.b[i] == 1) idx[n++] = i;
  pl_table *r = pl_table_take(t, idx, n);
  free(idx);
  return r;
}

pl_table *pl_table_filter_cols(const pl_table *t, const pl_column *mask, const int *cols, size_t ncols) {
  size_t n = 0;
  size_t *idx = pl_xmalloc((t->nrows ? t->nrows : 1) * sizeof *idx);
  for (size_t i = 0; i < t->nrows; i++)
    if (mask->v.b[i] == 1) idx[n++] = i;
  pl_table *r = pl_table_take_cols(t, idx, n, cols, ncols);
  free(idx);
  return r;
}

void pl_column_used_ids(const pl_table *t, int col, unsigned char *out) {
  const uint32_t *ids = t->cols[col]->v.str;
  for (size_t i = 0; i < t->nrows; i++) out[ids[i]] = 1;
  out[0] = 0;
}

pl_table *pl_column_copy(const char *name, const pl_table *t, int col) {
  pl_table *r = pl_table_select(t, &col, 1);
  pl_table_set_name(r, name);
  free(r->cols[0]->name);
  r->cols[0]->name = pl_xstrdup(name);
  return r;
}

void pl_table_put_col_from(pl_table *t, const char *name, const pl_table *src, int col) {
  if (src->cols[col]->type != PL_STR || src->pool == t->pool) {
    pl_table_put_shared(t, name, src, col);
    return;
  }
  pl_table *one = pl_column_copy(name, src, col); /* another pool: re-intern each text once */
  pl_column *c = one->cols[0];
  uint32_t *map = pl_xcalloc(pl_pool_count(src->pool) + 1, sizeof *map);
  for (size_t i = 0; i < one->nrows; i++) {
    uint32_t id = c->v.str[i];
    if (id && !map[id]) {
      size_t ln;
      const char *s = pl_pool_str(src->pool, id, &ln);
      map[id] = pl_pool_intern(t->pool, s, ln);
    }
    c->v.str[i] = map[id];
  }
  free(map);
  pl_table_take_col(one, 0);
  pl_table_free(one);
  pl_table_set_col(t, c);
}

/* ---- pivot ------------------------------------------------------------- */

/* pivot with agg first / last: no grouped table in between; each row's
** value goes straight to its (index group, column) cell: the first (last)
** value that is not missing.  Same rows, columns and order as the general
** path (both in order of first appearance). */
static pl_table *pivot_pick(const pl_table *t, const int *index, size_t nindex, int colkey, int val, int last) {
  size_t n = t->nrows;
  size_t *row = pl_xmalloc((n ? n : 1) * sizeof *row), *first = NULL;
  size_t *cid = pl_xmalloc((n ? n : 1) * sizeof *cid), *cfirst = NULL;
  size_t nrow = pl_table_group_ids(t, index, nindex, row, &first);
  size_t ncol = pl_table_group_ids(t, &colkey, 1, cid, &cfirst);
  pl_table *sel = pl_table_select(t, index, nindex);
  pl_table *r = pl_table_take(sel, first, nrow);
  pl_table_free(sel);
  pl_table_set_name(r, "pivot");
  pl_type vt = t->cols[val]->type;
  int *col = pl_xmalloc((ncol ? ncol : 1) * sizeof *col);
  for (size_t j = 0; j < ncol; j++) {
    char nm[512];
    if (pl_cell_missing(t, colkey, cfirst[j])) snprintf(nm, sizeof nm, "NA");
    else pl_cell_text(t, colkey, cfirst[j], nm, sizeof nm);
    col[j] = pl_table_add_col_unique(r, nm, vt);
  }
  const pl_column *src = t->cols[val];
  for (size_t i = 0; i < n; i++) {
    if (pl_cell_missing(t, val, i)) continue;
    pl_column *dst = r->cols[col[cid[i]]];
    size_t o = row[i];
    if (!last && !pl_cell_missing(r, col[cid[i]], o)) continue;
    switch (vt) {
      case PL_NUM: dst->v.num[o] = src->v.num[i]; break;
      case PL_STR: dst->v.str[o] = src->v.str[i]; break;
      case PL_BOOL: dst->v.b[o] = src->v.b[i]; break;
      default: dst->v.i64[o] = src->v.i64[i]; break;
    }
  }
  free(col);
  free(row);
  free(first);
  free(cid);
  free(cfirst);
  return r;
}

pl_table *pl_table_pivot(const pl_table *t, const int *index, size_t nindex, int colkey, int val, pl_aggop op,
                         pl_err *err) {
  /* aggregate per (index..., colkey), then scatter into one column per key */
  int keys[17];
  if (nindex > 16) {
    pl_err_set(err, 0, 0, "pivot: at most 16 index columns");
    return NULL;
  }
  if (op == PL_AGG_FIRST || op == PL_AGG_LAST) return pivot_pick(t, index, nindex, colkey, val, op == PL_AGG_LAST);
  memcpy(keys, index, nindex * sizeof *keys);
  keys[nindex] = colkey;
  pl_agg ag = { "value", op, val, 0.5, -1, NULL };
  pl_table *g = pl_table_group(t, keys, nindex + 1, &ag, 1, err);
  if (g == NULL) return NULL;
  int gv = (int)nindex + 1, gk = (int)nindex;
  int gidx[16];
  for (size_t k = 0; k < nindex; k++) gidx[k] = (int)k;
  size_t *row = pl_xmalloc((g->nrows ? g->nrows : 1) * sizeof *row), *first = NULL;
  size_t *cid = pl_xmalloc((g->nrows ? g->nrows : 1) * sizeof *cid), *cfirst = NULL;
  size_t nrow = pl_table_group_ids(g, gidx, nindex, row, &first);
  size_t ncol = pl_table_group_ids(g, &gk, 1, cid, &cfirst);
  pl_table *r = pl_table_take(g, first, nrow);
  pl_table_set_name(r, "pivot");
  pl_table_drop_col(r, gv);
  pl_table_drop_col(r, gk);
  pl_type vt = g->cols[gv]->type;
  size_t base = r->ncols;
  for (size_t j = 0; j < ncol; j++) {
    char nm[512];
    if (pl_cell_missing(g, gk, cfirst[j])) snprintf(nm, sizeof nm, "NA");
    else pl_cell_text(g, gk, cfirst[j], nm, sizeof nm);
    int c = pl_table_add_col_unique(r, nm, vt);
    if (op == PL_AGG_COUNT)
      for (size_t i = 0; i < nrow; i++) r->cols[c]->v.i64[i] = 0;
  }
  const pl_column *src = g->cols[gv];
  for (size_t i = 0; i < g->nrows; i++) {
    pl_column *dst = r->cols[base + cid[i]];
    switch (vt) {
      case PL_NUM: dst->v.num[row[i]] = src->v.num[i]; break;
      case PL_STR: dst->v.str[row[i]] = src->v.str[i]; break;
      case PL_BOOL: dst->v.b[row[i]] = src->v.b[i]; break;
      default: dst->v.i64[row[i]] = src->v.i64[i]; break;
    }
  }
  free(row);
  free(first);
  free(cid);
  free(cfirst);
  pl_table_free(g);
  return r;
}

/* ---- constants and row numbers ----------------------------------------- */

pl_table *pl_vec_const(const char *name, const pl_table *t, pl_type type, const pl_operand *x) {
  size_t n = t->nrows;
  pl_table *r = pl_table_new_like(name, t);
  pl_column *c = newcol(r, name, type, n);
  int miss = x == NULL || opmissing(x, 0);
  switch (type) {
    case PL_NUM: {
      double v = miss ? NAN : opnum(x, 0);
      for (size_t i = 0; i < n; i++) c->v.num[i] = v;
      break;
    }
    case PL_INT: {
      int64_t v = miss ? PL_INT_NA : x->type == PL_NUM ? (int64_t)x->d : x->i;
      for (size_t i = 0; i < n; i++) c->v.i64[i] = v;
      break;
    }
    case PL_BOOL: {
      uint8_t v = miss ? PL_BOOL_NA : (uint8_t)(x->i != 0);
      for (size_t i = 0; i < n; i++) c->v.b[i] = v;
      break;
    }
    case PL_STR: {
      uint32_t v = miss ? 0 : pl_pool_intern(r->pool, x->s, x->slen);
      for (size_t i = 0; i < n; i++) c->v.str[i] = v;
      break;
    }
  }
  return r;
}

pl_table *pl_vec_rownum(const char *name, const pl_table *t) {
  size_t n = t->nrows;
  pl_table *r = pl_table_new_like(name, t);
  pl_column *c = newcol(r, name, PL_INT, n);
  for (size_t i = 0; i < n; i++) c->v.i64[i] = (int64_t)i + 1;
  return r;
}

/*
** table_vec2.c -- more column expressions of the table engine: filling
** missing values (fill) and text built from columns row by row with a printf format (sprintf).  Like table_vec.c, each makes
** a new one-column table of the operands' length.
*/
#include "table.h"
#include "table_vec_ops.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fill -------------------------------------------------------------- */

pl_table *pl_vec_fill(const char *name, const pl_table *t, int col, const pl_operand *x, pl_err *err) {
  pl_type ta = t->cols[col]->type, tx = optype(x);
  if (x->t && x->t->nrows != t->nrows) {
    pl_err_set(err, 0, 0, "columns of different lengths (%zu and %zu rows)", t->nrows, x->t->nrows);
    return NULL;
  }
  int numeric = ta != PL_STR && ta != PL_BOOL && tx != PL_STR && tx != PL_BOOL;
  if (!numeric && ta != tx) {
    pl_err_set(err, 0, 0, "cannot fill %s with %s", what(ta), what(tx));
    return NULL;
  }
  size_t n = t->nrows;
  pl_table *r = pl_table_new_like(name, t);
  pl_type ty = numeric ? (ta == PL_INT && tx == PL_INT ? PL_INT : PL_NUM) : ta;
  pl_column *c = newcol(r, name, ty, n);
  const pl_column *s = t->cols[col];
  int samepool = x->t && x->t->pool == t->pool;
  pl_operand self = { t, col, PL_NUM, 0, 0, NULL, 0 };
  if (ty == PL_NUM && ta == PL_NUM && (!x->t || tx == PL_NUM)) { /* numbers: straight off the arrays */
    const double *xv = x->t ? x->t->cols[x->col]->v.num : NULL;
    double k = x->t ? 0 : opnum(x, 0);
    for (size_t i = 0; i < n; i++) c->v.num[i] = isnan(s->v.num[i]) ? (xv ? xv[i] : k) : s->v.num[i];
    return r;
  }
  for (size_t i = 0; i < n; i++) {
    int miss = opmissing(&self, i);
    switch (ty) {
      case PL_NUM: c->v.num[i] = miss ? opnum(x, i) : pl_cell_num(t, col, i); break;
      case PL_INT: c->v.i64[i] = miss ? opint(x, i) : s->v.i64[i]; break;
      case PL_BOOL: c->v.b[i] = miss ? (opmissing(x, i) ? PL_BOOL_NA : (uint8_t)(opint(x, i) != 0)) : s->v.b[i]; break;
      case PL_STR:
        if (!miss) c->v.str[i] = s->v.str[i];
        else if (samepool) c->v.str[i] = x->t->cols[x->col]->v.str[i];
        else {
          size_t ln;
          const char *v = opstr(x, i, &ln);
          c->v.str[i] = v ? pl_pool_intern(r->pool, v, ln) : 0;
        }
        break;
    }
  }
  return r;
}

/* ---- sprintf ----------------------------------------------------------- */

/* One piece of a format: literal text fmt[from, to), or a conversion
** (spec holds "%...c" for snprintf, conv its letter). */
typedef struct piece {
  size_t from, to;
  char spec[32];
  char conv;
} piece;

static const char *FLAGS = "-+ #0";

/* Splits fmt into pieces; returns the count, or -1 with err set. */
static long parse_format(const char *fmt, piece **out, pl_err *err) {
  size_t cap = 8, n = 0, i = 0, len = strlen(fmt);
  piece *p = pl_xmalloc(cap * sizeof *p);
  while (i < len) {
    if (n + 1 > cap) {
      cap *= 2;
      p = pl_xrealloc(p, cap * sizeof *p);
    }
    piece *q = &p[n];
    memset(q, 0, sizeof *q);
    if (fmt[i] != '%' || (fmt[i + 1] == '%')) {
      size_t j = i;
      if (fmt[i] == '%') {
        q->from = i + 1;
        q->to = i + 2;
        i += 2;
        n++;
        continue;
      }
      while (j < len && fmt[j] != '%') j++;
      q->from = i;
      q->to = j;
      i = j;
      n++;
      continue;
    }
    size_t j = i + 1;
    while (j < len && strchr(FLAGS, fmt[j]) && j - i <= 5) j++;
    size_t w = 0;
    while (j < len && fmt[j] >= '0' && fmt[j] <= '9' && w < 2) {
      j++;
      w++;
    }
    if (j < len && fmt[j] == '.') {
      j++;
      w = 0;
      while (j < len && fmt[j] >= '0' && fmt[j] <= '9' && w < 2) {
        j++;
        w++;
      }
    }
    char cv = j < len ? fmt[j] : '\0';
    if (cv == '\0' || !strchr("diouxXeEfFgGaAs", cv)) {
      pl_err_set(err, 0, 0, "sprintf: invalid conversion '%.*s' in the format", (int)(j - i + (cv ? 1 : 0)), fmt + i);
      free(p);
      return -1;
    }
    size_t sl = j - i; /* "%" flags width precision, without the letter */
    memcpy(q->spec, fmt + i, sl);
    if (strchr("diouxX", cv)) {
      memcpy(q->spec + sl, PRId64, strlen(PRId64) - 1);
      sl += strlen(PRId64) - 1;
    }
    q->spec[sl] = cv;
    q->conv = cv;
    n++;
    i = j + 1;
  }
  *out = p;
  return (long)n;
}

/* Lua's tostring of a number: integers as "%d", floats as "%.14g" with
** ".0" added when that looks like an integer. */
static void add_lua_number(pl_buf *b, const pl_operand *a, size_t i) {
  pl_type ty = optype(a);
  if (ty == PL_INT || ty == PL_BOOL) {
    if (ty == PL_BOOL) {
      pl_buf_adds(b, opint(a, i) ? "true" : "false");
      return;
    }
    pl_buf_printf(b, "%" PRId64, opint(a, i));
    return;
  }
  char tmp[64];
  double v = opnum(a, i);
  snprintf(tmp, sizeof tmp, "%.14g", v);
  pl_buf_adds(b, tmp);
  if (tmp[strspn(tmp, "-0123456789")] == '\0') pl_buf_adds(b, ".0");
}

/* The text of one double under one floating conversion, cached by its
** bits: 16 k texts, so that a column of ten thousand distinct percentages
** is printed about once per value (printf's %g is most of sprintf's time). */
typedef struct numtext {
  uint64_t bits;
  unsigned char len;
  char text[47];
} numtext;
enum { NT_BITS = 14, NT_SLOTS = 1 << NT_BITS };

/* Appends one conversion of operand a at row i; 0, or -1 with err set.
** cache: the texts of this conversion's numbers, or NULL.
** (pl_buf_printf sizes the text: a long string under %20s is not cut.) */
static int add_conv(pl_buf *b, const piece *q, const pl_operand *a, size_t i, numtext *cache, pl_err *err) {
  pl_type ty = optype(a);
  if (q->conv == 's') {
    size_t ln;
    if (ty == PL_STR) {
      const char *s = opstr(a, i, &ln);
      if (strcmp(q->spec, "%s") == 0) pl_buf_add(b, s, ln);
      else pl_buf_printf(b, q->spec, s);
      return 0;
    }
    if (strcmp(q->spec, "%s") == 0) {
      add_lua_number(b, a, i);
      return 0;
    }
    pl_buf tb;
    pl_buf_init(&tb);
    add_lua_number(&tb, a, i);
    pl_buf_printf(b, q->spec, pl_buf_cstr(&tb));
    pl_buf_free(&tb);
    return 0;
  }
  if (ty == PL_STR) {
    pl_err_set(err, 0, 0, "sprintf: %%%c expects a number, got strings", q->conv);
    return -1;
  }
  if (strchr("diouxX", q->conv)) {
    int64_t v;
    if (ty == PL_NUM) {
      double d = opnum(a, i);
      if (d != floor(d) || !(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
        pl_err_set(err, 0, 0, "sprintf: row %zu: %%%c: number %.14g has no integer representation", i + 1, q->conv, d);
        return -1;
      }
      v = (int64_t)d;
    } else v = opint(a, i);
    pl_buf_printf(b, q->spec, v);
  } else {
    double v = opnum(a, i);
    numtext *e = NULL;
    if (cache) { /* a column repeats its values: each text once */
      uint64_t bits;
      memcpy(&bits, &v, sizeof bits);
      e = &cache[(size_t)((bits * 0x9E3779B97F4A7C15ull) >> (64 - NT_BITS))];
      if (e->len && e->bits == bits) {
        pl_buf_add(b, e->text, e->len);
        return 0;
      }
    }
    size_t at = b->len;
    pl_buf_printf(b, q->spec, v);
    if (e && b->len - at < sizeof e->text) {
      memcpy(e->text, b->data + at, b->len - at);
      e->len = (unsigned char)(b->len - at);
      memcpy(&e->bits, &v, sizeof e->bits);
    }
  }
  return 0;
}

static void free_caches(numtext **caches, size_t n) {
  for (size_t k = 0; k < n; k++) free(caches[k]);
  free(caches);
}

pl_table *pl_vec_sprintf(const char *name, const char *fmt, const pl_operand *ops, size_t nops, pl_err *err) {
  const pl_table *src = NULL;
  size_t n = 0;
  for (size_t k = 0; k < nops; k++) {
    if (!ops[k].t) continue;
    if (src && ops[k].t->nrows != n) {
      pl_err_set(err, 0, 0, "sprintf: columns of different lengths (%zu and %zu rows)", n, ops[k].t->nrows);
      return NULL;
    }
    if (!src) {
      src = ops[k].t;
      n = src->nrows;
    }
  }
  if (!src) {
    pl_err_set(err, 0, 0, "sprintf: expected at least one column among the values");
    return NULL;
  }
  piece *p = NULL;
  long np = parse_format(fmt, &p, err);
  if (np < 0) return NULL;
  size_t nconv = 0;
  for (long k = 0; k < np; k++)
    if (p[k].conv) nconv++;
  if (nconv != nops) {
    pl_err_set(err, 0, 0, "sprintf: the format has %zu conversions for %zu values", nconv, nops);
    free(p);
    return NULL;
  }
  pl_table *r = pl_table_new_like(name, src);
  pl_column *c = newcol(r, name, PL_STR, n);
  pl_buf b;
  pl_buf_init(&b);
  /* a cache per floating conversion of a number column of many rows */
  numtext **caches = pl_xcalloc(nops ? nops : 1, sizeof *caches);
  for (long j = 0, k = 0; j < np; j++) {
    if (!p[j].conv) continue;
    if (ops[k].t && n >= 4096 && optype(&ops[k]) == PL_NUM && strchr("eEfFgGaA", p[j].conv))
      caches[k] = pl_xcalloc(NT_SLOTS, sizeof **caches);
    k++;
  }
  for (size_t i = 0; i < n; i++) {
    int miss = 0;
    for (size_t k = 0; k < nops && !miss; k++) miss = opmissing(&ops[k], i);
    if (miss) {
      c->v.str[i] = 0;
      continue;
    }
    b.len = 0;
    size_t k = 0;
    for (long j = 0; j < np; j++) {
      if (!p[j].conv) {
        pl_buf_add(&b, fmt + p[j].from, p[j].to - p[j].from);
        continue;
      }
      if (add_conv(&b, &p[j], &ops[k], i, caches[k], err) < 0) {
        pl_buf_free(&b);
        free(p);
        free_caches(caches, nops);
        pl_table_free(r);
        return NULL;
      }
      k++;
    }
    c->v.str[i] = pl_pool_intern(r->pool, b.len ? b.data : "", b.len);
  }
  pl_buf_free(&b);
  free(p);
  free_caches(caches, nops);
  return r;
}

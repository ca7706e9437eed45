/*
** table.c -- columnar tables: construction, row building, cell access and
** derived tables (take, select, copy).  Sorting, grouping and joining live
** in table_ops.c; writers and human formatting in table_write.c.
*/
#include "table.h"
#include "bigmem.h"
#include "par.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

const char *pl_type_name(pl_type t) {
  switch (t) {
    case PL_NUM: return "number";
    case PL_INT: return "integer";
    case PL_BOOL: return "boolean";
    case PL_STR: return "string";
  }
  return "?";
}

static size_t elsize(pl_type t) {
  return t == PL_NUM ? sizeof(double) : t == PL_STR ? sizeof(uint32_t) : t == PL_BOOL ? 1 : sizeof(int64_t);
}

pl_table *pl_table_new(const char *name) {
  pl_table *t = pl_xcalloc(1, sizeof *t);
  t->name = pl_xstrdup(name ? name : "");
  t->pool = pl_pool_new();
  return t;
}

pl_table *pl_table_new_like(const char *name, const pl_table *src) {
  pl_table *t = pl_xcalloc(1, sizeof *t);
  t->name = pl_xstrdup(name ? name : src->name);
  t->pool = src->pool;
  pl_pool_retain(t->pool);
  return t;
}

static void col_free(pl_column *c) {
  if (c->shared && --*c->shared > 0) c->v.any = NULL; /* another column keeps the buffer */
  else {
    free(c->shared);
    pl_mem_free(c->v.any);
  }
  free(c->name);
  free(c->doc);
  free(c);
}

/* Gives a column that shares its buffer its own copy (before a write). */
static void col_own(pl_column *c) {
  if (!c->shared) return;
  if (*c->shared == 1) {
    free(c->shared);
    c->shared = NULL;
    return;
  } /* the last holder owns it */
  size_t bytes = (c->cap ? c->cap : 1) * elsize(c->type);
  void *v = pl_mem_xalloc(bytes);
  if (c->v.any) memcpy(v, c->v.any, c->cap * elsize(c->type));
  --*c->shared;
  c->shared = NULL;
  c->v.any = v;
}

void pl_table_free(pl_table *t) {
  if (t == NULL) return;
  for (size_t i = 0; i < t->ncols; i++) col_free(t->cols[i]);
  free(t->cols);
  free(t->name);
  pl_pool_release(t->pool);
  free(t);
}

void pl_table_set_name(pl_table *t, const char *name) {
  free(t->name);
  t->name = pl_xstrdup(name);
}

int pl_table_col(const pl_table *t, const char *name) {
  for (size_t i = 0; i < t->ncols; i++)
    if (strcmp(t->cols[i]->name, name) == 0) return (int)i;
  return -1;
}

void pl_column_reserve(pl_column *c, size_t n) {
  col_own(c);
  if (n <= c->cap) return;
  size_t cap = c->cap ? c->cap : 16;
  while (cap < n) cap = cap < (1u << 20) ? cap * 2 : cap + cap / 2;
  c->v.any = pl_mem_xrealloc(c->v.any, cap * elsize(c->type));
  c->cap = cap;
}

static void col_push_missing(pl_column *c) {
  pl_column_reserve(c, c->len + 1);
  switch (c->type) {
    case PL_NUM: c->v.num[c->len] = NAN; break;
    case PL_INT: c->v.i64[c->len] = PL_INT_NA; break;
    case PL_BOOL: c->v.b[c->len] = PL_BOOL_NA; break;
    case PL_STR: c->v.str[c->len] = 0; break;
  }
  c->len++;
}

int pl_table_add_col(pl_table *t, const char *name, pl_type type) {
  int i = pl_table_col(t, name);
  if (i >= 0) return t->cols[i]->type == type ? i : -1;
  if (t->ncols == t->capcols) {
    t->capcols = t->capcols ? t->capcols * 2 : 8;
    t->cols = pl_xrealloc(t->cols, t->capcols * sizeof *t->cols);
  }
  pl_column *c = pl_xcalloc(1, sizeof *c);
  c->name = pl_xstrdup(name);
  c->type = type;
  pl_column_reserve(c, t->nrows > 0 ? t->nrows : 0);
  while (c->len < t->nrows) col_push_missing(c);
  t->cols[t->ncols] = c;
  return (int)t->ncols++;
}

int pl_table_append_col(pl_table *t, const char *name, pl_type type) {
  if (t->ncols == t->capcols) {
    t->capcols = t->capcols ? t->capcols * 2 : 8;
    t->cols = pl_xrealloc(t->cols, t->capcols * sizeof *t->cols);
  }
  pl_column *c = pl_xcalloc(1, sizeof *c);
  c->name = pl_xstrdup(name);
  c->type = type;
  pl_column_reserve(c, t->nrows > 0 ? t->nrows : 0);
  while (c->len < t->nrows) col_push_missing(c);
  t->cols[t->ncols] = c;
  return (int)t->ncols++;
}

int pl_table_add_col_unique(pl_table *t, const char *name, pl_type type) {
  int c = pl_table_add_col(t, name, type);
  for (int k = 2; c < 0; k++) {
    char alt[160];
    snprintf(alt, sizeof alt, "%.140s_%d", name, k);
    c = pl_table_add_col(t, alt, type);
  }
  return c;
}

int pl_table_add_doc_col(pl_table *t, const char *name, pl_type type, const char *doc) {
  int c = pl_table_add_col_unique(t, name, type);
  pl_table_set_doc(t, c, doc);
  return c;
}

void pl_table_set_doc(pl_table *t, int col, const char *doc) {
  pl_column *c = t->cols[col];
  free(c->doc);
  c->doc = doc ? pl_xstrdup(doc) : NULL;
}

static void table_push_col(pl_table *t, pl_column *c);

int pl_table_add_alias(pl_table *t, const char *name, int src, int at) {
  if (pl_table_col(t, name) >= 0) return -1;
  pl_column *s = t->cols[src];
  pl_column *c = pl_xcalloc(1, sizeof *c);
  c->name = pl_xstrdup(name);
  c->type = s->type;
  c->len = s->len;
  c->cap = s->cap;
  c->v.any = s->v.any;
  if (!s->shared) {
    s->shared = pl_xmalloc(sizeof *s->shared);
    *s->shared = 1;
  }
  c->shared = s->shared;
  ++*c->shared;
  table_push_col(t, c);
  if (at >= 0 && (size_t)at < t->ncols - 1) {
    memmove(t->cols + at + 1, t->cols + at, (t->ncols - 1 - (size_t)at) * sizeof *t->cols);
    t->cols[at] = c;
    return at;
  }
  return (int)t->ncols - 1;
}

void pl_table_set_col(pl_table *t, pl_column *c) {
  int at = pl_table_col(t, c->name);
  if (at >= 0) {
    col_free(t->cols[at]);
    t->cols[at] = c;
    return;
  }
  table_push_col(t, c);
}

void pl_table_put_shared(pl_table *t, const char *name, const pl_table *src, int col) {
  pl_column *s = src->cols[col]; /* its count of holders changes, not its values */
  pl_column *c = pl_xcalloc(1, sizeof *c);
  c->name = pl_xstrdup(name);
  c->doc = s->doc ? pl_xstrdup(s->doc) : NULL;
  c->type = s->type;
  c->len = s->len;
  c->cap = s->cap;
  c->v.any = s->v.any;
  if (!s->shared) {
    s->shared = pl_xmalloc(sizeof *s->shared);
    *s->shared = 1;
  }
  c->shared = s->shared;
  ++*c->shared;
  pl_table_set_col(t, c);
}

pl_column *pl_table_take_col(pl_table *t, int col) {
  pl_column *c = t->cols[col];
  memmove(t->cols + col, t->cols + col + 1, (t->ncols - (size_t)col - 1) * sizeof *t->cols);
  t->ncols--;
  return c;
}

void pl_table_drop_col(pl_table *t, int col) {
  if (col < 0 || (size_t)col >= t->ncols) return;
  col_free(t->cols[col]);
  memmove(t->cols + col, t->cols + col + 1, (t->ncols - (size_t)col - 1) * sizeof *t->cols);
  t->ncols--;
}

int pl_table_retype(pl_table *t, int col, pl_type to) {
  pl_column *c = t->cols[col];
  if (c->type == to) return 0;
  col_own(c);
  if ((c->type == PL_INT || c->type == PL_BOOL) && to == PL_NUM) {
    double *d = pl_mem_xalloc((c->cap ? c->cap : 1) * sizeof *d);
    for (size_t i = 0; i < c->len; i++)
      d[i] = c->type == PL_BOOL         ? (c->v.b[i] == PL_BOOL_NA ? NAN : (double)c->v.b[i])
             : c->v.i64[i] == PL_INT_NA ? NAN
                                        : (double)c->v.i64[i];
    pl_mem_free(c->v.any);
    c->v.num = d;
    c->type = PL_NUM;
    return 0;
  }
  if (c->type == PL_NUM && to == PL_INT) {
    for (size_t i = 0; i < c->len; i++) {
      double v = c->v.num[i];
      if (!isnan(v) && (v != floor(v) || fabs(v) > 9007199254740992.0)) return -1;
    }
    int64_t *d = pl_mem_xalloc((c->cap ? c->cap : 1) * sizeof *d);
    for (size_t i = 0; i < c->len; i++) d[i] = pl_int_of(c->v.num[i]);
    pl_mem_free(c->v.any);
    c->v.i64 = d;
    c->type = PL_INT;
    return 0;
  }
  if (c->type == PL_INT && to == PL_BOOL) {
    for (size_t i = 0; i < c->len; i++)
      if (c->v.i64[i] != PL_INT_NA && c->v.i64[i] != 0 && c->v.i64[i] != 1) return -1;
    uint8_t *d = pl_mem_xalloc(c->cap ? c->cap : 1);
    for (size_t i = 0; i < c->len; i++) d[i] = c->v.i64[i] == PL_INT_NA ? PL_BOOL_NA : (uint8_t)c->v.i64[i];
    pl_mem_free(c->v.any);
    c->v.b = d;
    c->type = PL_BOOL;
    return 0;
  }
  return -1;
}

/* Row building: a put writes at index nrows, growing the column to nrows+1. */
static pl_column *put_slot(pl_table *t, int col) {
  pl_column *c = t->cols[col];
  col_own(c);
  t->rowopen = 1;
  if (c->len == t->nrows && c->len < c->cap) {
    c->len++;
    return c;
  } /* the caller writes the value */
  while (c->len < t->nrows) col_push_missing(c);
  if (c->len == t->nrows) col_push_missing(c);
  return c;
}

void pl_row_put_num(pl_table *t, int col, double v) {
  pl_column *c = put_slot(t, col);
  if (c->type == PL_NUM) c->v.num[t->nrows] = v;
  else if (c->type == PL_STR) c->v.str[t->nrows] = 0;
  else if (c->type == PL_BOOL) c->v.b[t->nrows] = isnan(v) ? PL_BOOL_NA : v != 0;
  else c->v.i64[t->nrows] = isnan(v) ? PL_INT_NA : (int64_t)v;
}

void pl_row_put_int(pl_table *t, int col, int64_t v) {
  pl_column *c = put_slot(t, col);
  if (c->type == PL_NUM) c->v.num[t->nrows] = v == PL_INT_NA ? NAN : (double)v;
  else if (c->type == PL_STR) c->v.str[t->nrows] = 0;
  else if (c->type == PL_BOOL) c->v.b[t->nrows] = v == PL_INT_NA ? PL_BOOL_NA : v != 0;
  else c->v.i64[t->nrows] = v;
}

void pl_row_put_bool(pl_table *t, int col, int v) { pl_row_put_int(t, col, v ? 1 : 0); }

void pl_row_put_strid(pl_table *t, int col, uint32_t id) {
  pl_column *c = put_slot(t, col);
  if (c->type == PL_STR) c->v.str[t->nrows] = id;
}

void pl_row_put_str(pl_table *t, int col, const char *s, size_t n) {
  pl_column *c = put_slot(t, col);
  if (c->type != PL_STR) return;
  if (s && t->nrows > 0) {
    /* the same text as the row above (sections, units, names in runs):
    ** its id without hashing */
    size_t ln;
    uint32_t prev = c->v.str[t->nrows - 1];
    const char *ps = prev ? pl_pool_str(t->pool, prev, &ln) : NULL;
    if (ps && ln == n && memcmp(ps, s, n) == 0) {
      c->v.str[t->nrows] = prev;
      return;
    }
  }
  c->v.str[t->nrows] = s ? pl_pool_intern(t->pool, s, n) : 0;
}

void pl_row_end(pl_table *t) {
  for (size_t i = 0; i < t->ncols; i++) {
    pl_column *c = t->cols[i];
    while (c->len < t->nrows + 1) col_push_missing(c);
  }
  t->nrows++;
  t->rowopen = 0;
}

void pl_table_append(pl_table *t, const pl_cell *v) {
  for (size_t i = 0; i < t->ncols; i++) {
    pl_column *c = t->cols[i];
    col_own(c);
    if (c->len >= c->cap) pl_column_reserve(c, c->len + 1);
    switch (c->type) {
      case PL_NUM: c->v.num[c->len] = v[i].d; break;
      case PL_STR: c->v.str[c->len] = v[i].s; break;
      case PL_BOOL: c->v.b[c->len] = v[i].i == PL_INT_NA ? PL_BOOL_NA : v[i].i != 0; break;
      default: c->v.i64[c->len] = v[i].i; break;
    }
    c->len++;
  }
  t->nrows++;
}

int pl_table_populate(pl_table *t, size_t from, size_t to) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  const uintptr_t pg = 4096;
  for (size_t i = 0; i < t->ncols; i++) {
    const pl_column *c = t->cols[i];
    if (pl_column_fills(c)) continue; /* its missing values are free: faulting it in would undo that */
    size_t el = elsize(c->type), lim = to < c->cap ? to : c->cap;
    if (lim <= from) continue;
    uintptr_t a = ((uintptr_t)c->v.any + from * el) & ~(pg - 1), e = ((uintptr_t)c->v.any + lim * el) & ~(pg - 1);
    if (e > a && madvise((void *)a, e - a, MADV_POPULATE_WRITE) != 0) return -1;
  }
  return 0;
#else
  (void)t;
  (void)from;
  (void)to;
  return -1;
#endif
}

/* The run [a, b) of whole pages (huge ones: 2 MiB) within column c's
** buffer from byte offset from to byte offset to. */
#if defined(__linux__)
static int col_pages(const pl_column *c, size_t from, size_t to, uintptr_t pg, uintptr_t *a, uintptr_t *b) {
  uintptr_t base = (uintptr_t)c->v.any;
  *a = (base + from + pg - 1) & ~(pg - 1);
  *b = (base + to) & ~(pg - 1);
  return *b > *a;
}
#endif

void pl_table_hugepages(pl_table *t, size_t min_bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = 2u << 20, pg = 4096;
  for (size_t i = 0; i < t->ncols; i++) {
    const pl_column *c = t->cols[i];
    size_t bytes = c->cap * elsize(c->type);
    if (c->shared || bytes < min_bytes || bytes < 2 * huge || pl_column_fills(c)) continue;
    /* from the buffer's first page (a big block is a mapping of its own,
    ** page-aligned but for malloc's header).  Advised in part, the
    ** mapping is two of two kinds, which mremap cannot move: a realloc
    ** past the reservation advises the whole block first (bigmem.c),
    ** else it would copy it, faulting in every page of the copy (the
    ** 4 GB .gz read on two threads: 270 k faults, seconds) */
    uintptr_t a = (uintptr_t)c->v.any & ~(pg - 1), b = ((uintptr_t)c->v.any + bytes + pg - 1) & ~(pg - 1);
    /* but the last eighth (2 MiB at least) on small pages: where the
    ** values end, as the reservation is sized, no huge page is resident
    ** past them (each column's front would hold up to 2 MiB) */
    size_t tail = bytes / 8 > 2 * huge ? bytes / 8 : 2 * huge;
    b = ((uintptr_t)c->v.any + bytes - tail) & ~(huge - 1);
    if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE);
  }
#else
  (void)t;
  (void)min_bytes;
#endif
}

void pl_table_hugepages_end(pl_table *t, size_t min_bytes, size_t rows) {
#if defined(__linux__) && defined(MADV_NOHUGEPAGE)
  const uintptr_t huge = 2u << 20, pg = 4096;
  for (size_t i = 0; i < t->ncols; i++) {
    const pl_column *c = t->cols[i];
    size_t el = elsize(c->type), bytes = c->cap * el;
    if (c->shared || bytes < min_bytes || bytes < 2 * huge || pl_column_fills(c) || rows >= c->cap) continue;
    /* from the huge page that row `rows` falls in, or the one after the
    ** values written so far where that one is in already, to the end */
    uintptr_t base = (uintptr_t)c->v.any, end = (base + bytes + pg - 1) & ~(pg - 1);
    uintptr_t a = (base + rows * el) & ~(huge - 1), front = (base + c->len * el + huge - 1) & ~(huge - 1);
    if (a < front) a = front;
    if (a < end) madvise((void *)a, end - a, MADV_NOHUGEPAGE);
  }
#else
  (void)t;
  (void)min_bytes;
  (void)rows;
#endif
}

void pl_table_trim(pl_table *t) {
#if defined(__linux__) && defined(MADV_DONTNEED)
  for (size_t i = 0; i < t->ncols; i++) {
    const pl_column *c = t->cols[i];
    uintptr_t a, b;
    if (c->shared) continue;
    if (col_pages(c, c->len * elsize(c->type), c->cap * elsize(c->type), 4096, &a, &b))
      madvise((void *)a, b - a, MADV_DONTNEED);
  }
#else
  (void)t;
#endif
}

void pl_table_reserve(pl_table *t, size_t rows) {
  for (size_t i = 0; i < t->ncols; i++) pl_column_reserve(t->cols[i], rows);
}

void pl_row_discard(pl_table *t) {
  for (size_t i = 0; i < t->ncols; i++) {
    pl_column *c = t->cols[i];
    if (c->len <= t->nrows) continue;
    /* a fill column's cells past its length read as missing: the values
    ** put there go back to that (col_push_missing writes the marker) */
    if (pl_column_fills(c)) {
      size_t n = c->len;
      c->len = t->nrows;
      while (c->len < n) col_push_missing(c);
    }
    c->len = t->nrows;
  }
  t->rowopen = 0;
}

int pl_column_fills(const pl_column *c) { return !c->shared && pl_mem_fills(c->v.any); }

uint64_t pl_missing_bits(pl_type type) {
  double nan = NAN;
  uint64_t u = 0;
  switch (type) {
    case PL_NUM: memcpy(&u, &nan, 8); break;
    case PL_INT: u = (uint64_t)PL_INT_NA; break;
    case PL_BOOL: u = 0x0101010101010101ull * PL_BOOL_NA; break;
    case PL_STR: u = 0; break;
  }
  return u;
}

static int col_all_missing(const pl_table *t, int col) {
  for (size_t r = 0; r < t->cols[col]->len; r++)
    if (!pl_cell_missing(t, col, r)) return 0;
  return 1;
}

void pl_table_reserve_sparse(pl_table *t, size_t rows) {
  for (size_t i = 0; i < t->ncols; i++) {
    pl_column *c = t->cols[i];
    size_t el = elsize(c->type);
    if (!c->shared && !pl_column_fills(c) && rows > c->cap && rows * el >= PL_MEM_BIG && col_all_missing(t, (int)i)) {
      void *v = pl_mem_alloc_fill(rows * el, pl_missing_bits(c->type));
      if (v) {
        pl_mem_free(c->v.any);
        c->v.any = v;
        c->cap = rows;
        continue;
      }
    }
    pl_column_reserve(c, rows);
  }
}

double pl_cell_num(const pl_table *t, int col, size_t row) {
  const pl_column *c = t->cols[col];
  switch (c->type) {
    case PL_NUM: return c->v.num[row];
    case PL_INT: return c->v.i64[row] == PL_INT_NA ? NAN : (double)c->v.i64[row];
    case PL_BOOL: return c->v.b[row] == PL_BOOL_NA ? NAN : (double)c->v.b[row];
    case PL_STR: return NAN;
  }
  return NAN;
}

int64_t pl_cell_int(const pl_table *t, int col, size_t row) {
  const pl_column *c = t->cols[col];
  if (c->type == PL_INT) return c->v.i64[row];
  if (c->type == PL_BOOL) return c->v.b[row] == PL_BOOL_NA ? PL_INT_NA : c->v.b[row];
  /* a number outside int64 (or NaN) has no integer value: missing, not UB */
  if (c->type == PL_NUM) return pl_int_of(c->v.num[row]);
  return PL_INT_NA;
}

const char *pl_cell_str(const pl_table *t, int col, size_t row, size_t *len) {
  const pl_column *c = t->cols[col];
  if (c->type != PL_STR) {
    if (len) *len = 0;
    return NULL;
  }
  return pl_pool_str(t->pool, c->v.str[row], len);
}

int pl_cell_missing(const pl_table *t, int col, size_t row) {
  const pl_column *c = t->cols[col];
  switch (c->type) {
    case PL_NUM: return isnan(c->v.num[row]);
    case PL_INT: return c->v.i64[row] == PL_INT_NA;
    case PL_BOOL: return c->v.b[row] == PL_BOOL_NA;
    case PL_STR: return c->v.str[row] == 0;
  }
  return 1;
}

int pl_cell_text(const pl_table *t, int col, size_t row, char *out, size_t outsz) {
  const pl_column *c = t->cols[col];
  if (pl_cell_missing(t, col, row)) {
    if (outsz) out[0] = '\0';
    return 0;
  }
  switch (c->type) {
    case PL_NUM: return pl_fmt_double(out, outsz, c->v.num[row]);
    case PL_INT: return snprintf(out, outsz, "%lld", (long long)c->v.i64[row]);
    case PL_BOOL: return snprintf(out, outsz, "%s", c->v.b[row] ? "true" : "false");
    case PL_STR: {
      size_t n;
      const char *s = pl_pool_str(t->pool, c->v.str[row], &n);
      return snprintf(out, outsz, "%s", s);
    }
  }
  return 0;
}

static pl_column *col_clone_empty(const pl_column *src, size_t cap) {
  pl_column *c = pl_xcalloc(1, sizeof *c);
  c->name = pl_xstrdup(src->name);
  c->doc = src->doc ? pl_xstrdup(src->doc) : NULL;
  c->type = src->type;
  c->v.any = pl_mem_xalloc((cap ? cap : 1) * elsize(src->type));
  c->cap = cap ? cap : 1;
  return c;
}

static void table_push_col(pl_table *t, pl_column *c) {
  if (t->ncols == t->capcols) {
    t->capcols = t->capcols ? t->capcols * 2 : 8;
    t->cols = pl_xrealloc(t->cols, t->capcols * sizeof *t->cols);
  }
  t->cols[t->ncols++] = c;
}

/* column s gathered at rows idx[0..n) */
static pl_column *col_gather(const pl_column *s, const size_t *idx, size_t n) {
  pl_column *c = col_clone_empty(s, n);
  switch (s->type) {
    case PL_NUM:
      for (size_t i = 0; i < n; i++) c->v.num[i] = s->v.num[idx[i]];
      break;
    case PL_INT:
      for (size_t i = 0; i < n; i++) c->v.i64[i] = s->v.i64[idx[i]];
      break;
    case PL_BOOL:
      for (size_t i = 0; i < n; i++) c->v.b[i] = s->v.b[idx[i]];
      break;
    case PL_STR:
      for (size_t i = 0; i < n; i++) c->v.str[i] = s->v.str[idx[i]];
      break;
  }
  c->len = n;
  return c;
}

/* Columns src[0..m) gathered at rows idx[0..n) into out[0..m): on two
** threads where the gather is large (par.c's schedule, a piece per
** column: a worker takes columns while this thread does the others; the
** same columns for any number of threads). */
#define GATHER_PAR_CELLS ((size_t)1 << 22)
typedef struct gather_job {
  const pl_column *const *src;
  pl_column **out;
  const size_t *idx;
  size_t n;
} gather_job;

static void gather_piece(pl_par *P, void *ud, size_t i) {
  (void)P;
  gather_job *g = ud;
  g->out[i] = col_gather(g->src[i], g->idx, g->n);
}

static void gather_cols(const pl_column *const *src, size_t m, const size_t *idx, size_t n, pl_column **out) {
  int jobs = m >= 2 && n * m >= GATHER_PAR_CELLS ? pl_par_cores() : 1;
  if (jobs < 2) {
    for (size_t k = 0; k < m; k++) out[k] = col_gather(src[k], idx, n);
    return;
  }
  gather_job g = { src, out, idx, n };
  pl_par *P = pl_par_start(m, jobs > (int)m ? (int)m : jobs, gather_piece, &g);
  out[0] = col_gather(src[0], idx, n);
  for (size_t k = 1; k < m; k++) {
    pl_par_wait(P, k);
    pl_par_done(P, k);
  }
  pl_par_stop(P);
}

pl_table *pl_table_take(const pl_table *t, const size_t *idx, size_t n) {
  pl_table *r = pl_table_new_like(t->name, t);
  pl_column **out = pl_xmalloc((t->ncols ? t->ncols : 1) * sizeof *out);
  gather_cols((const pl_column *const *)t->cols, t->ncols, idx, n, out);
  for (size_t j = 0; j < t->ncols; j++) table_push_col(r, out[j]);
  free(out);
  r->nrows = n;
  return r;
}

pl_table *pl_table_take_cols(const pl_table *t, const size_t *idx, size_t n, const int *cols, size_t ncols) {
  pl_table *r = pl_table_new_like(t->name, t);
  const pl_column **src = pl_xmalloc((ncols ? ncols : 1) * sizeof *src);
  pl_column **out = pl_xmalloc((ncols ? ncols : 1) * sizeof *out);
  size_t m = 0;
  for (size_t k = 0; k < ncols; k++) {
    const pl_column *s = t->cols[cols[k]];
    int dup = 0; /* a column named twice: once, as select */
    for (size_t q = 0; q < m && !dup; q++) dup = strcmp(src[q]->name, s->name) == 0;
    if (!dup) src[m++] = s;
  }
  gather_cols(src, m, idx, n, out);
  for (size_t k = 0; k < m; k++) table_push_col(r, out[k]);
  free(src);
  free(out);
  r->nrows = n;
  return r;
}

pl_table *pl_table_select(const pl_table *t, const int *cols, size_t n) {
  pl_table *r = pl_table_new_like(t->name, t);
  for (size_t j = 0; j < n; j++) {
    const pl_column *s = t->cols[cols[j]];
    pl_column *c = col_clone_empty(s, t->nrows);
    if (t->nrows) memcpy(c->v.any, s->v.any, t->nrows * elsize(s->type));
    c->len = t->nrows;
    if (pl_table_col(r, c->name) >= 0) {
      col_free(c);
      continue;
    }
    table_push_col(r, c);
  }
  r->nrows = t->nrows;
  return r;
}

pl_table *pl_table_copy(const pl_table *t) {
  int *cols = pl_xmalloc((t->ncols ? t->ncols : 1) * sizeof *cols);
  for (size_t j = 0; j < t->ncols; j++) cols[j] = (int)j;
  pl_table *r = pl_table_select(t, cols, t->ncols);
  free(cols);
  return r;
}

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (const void *const *)a, y = (uintptr_t) * (const void *const *)b;
  return x < y ? -1 : x > y;
}

static size_t elem_size(pl_type t) { return t == PL_BOOL ? 1 : t == PL_STR ? 4 : 8; }

size_t pl_tables_memory(const pl_table *const *ts, size_t n) {
  size_t nptr = 0, m = 0;
  for (size_t i = 0; i < n; i++) nptr += ts[i]->ncols + 1;
  /* each buffer or pool once: its address, with its size next to it */
  struct item {
    const void *p;
    size_t bytes;
  } *it = pl_xmalloc((nptr ? nptr : 1) * sizeof *it);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const pl_table *t = ts[i];
    m += sizeof *t + t->capcols * sizeof *t->cols + (t->name ? strlen(t->name) + 1 : 0);
    if (t->pool) it[k++] = (struct item){ t->pool, pl_pool_memory(t->pool) };
    for (size_t j = 0; j < t->ncols; j++) {
      const pl_column *c = t->cols[j];
      m += sizeof *c + strlen(c->name) + 1 + (c->doc ? strlen(c->doc) + 1 : 0);
      if (c->v.any) it[k++] = (struct item){ c->v.any, c->len * elem_size(c->type) };
    }
  }
  qsort(it, k, sizeof *it, cmp_ptr);
  for (size_t i = 0; i < k; i++)
    if (i == 0 || it[i].p != it[i - 1].p) m += it[i].bytes;
  free(it);
  return m;
}

/*
** table_ops.c -- the heavy table operations, all in C: stable multi-key
** sort, top-k, hash group-by with aggregates, hash join and unique.
*/
#include "table.h"
#include "quantile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- comparison -------------------------------------------------------- */

/* Compares row i and j of one column; missing sorts after everything,
** whatever the direction. */
static int cmp_cell(const pl_table *t, const pl_column *c, size_t i, size_t j, int desc) {
  int r = 0;
  switch (c->type) {
    case PL_NUM: {
      double a = c->v.num[i], b = c->v.num[j];
      int na = isnan(a), nb = isnan(b);
      if (na || nb) return na - nb;
      r = (a > b) - (a < b);
      break;
    }
    case PL_INT:
    case PL_BOOL: {
      int64_t a = c->type == PL_INT ? c->v.i64[i] : c->v.b[i] == PL_BOOL_NA ? PL_INT_NA : c->v.b[i];
      int64_t b = c->type == PL_INT ? c->v.i64[j] : c->v.b[j] == PL_BOOL_NA ? PL_INT_NA : c->v.b[j];
      int na = a == PL_INT_NA, nb = b == PL_INT_NA;
      if (na || nb) return na - nb;
      r = (a > b) - (a < b);
      break;
    }
    case PL_STR: {
      uint32_t a = c->v.str[i], b = c->v.str[j];
      if (a == b) return 0;
      if (a == 0 || b == 0) return (a == 0) - (b == 0);
      size_t la, lb;
      const char *sa = pl_pool_str(t->pool, a, &la), *sb = pl_pool_str(t->pool, b, &lb);
      size_t m = la < lb ? la : lb;
      r = memcmp(sa, sb, m);
      if (r == 0) r = (la > lb) - (la < lb);
      r = (r > 0) - (r < 0);
      break;
    }
  }
  return desc ? -r : r;
}

typedef struct sortctx {
  const pl_table *t;
  const pl_sortkey *keys;
  size_t nkeys;
} sortctx;

static int cmp_rows(const sortctx *s, size_t i, size_t j) {
  for (size_t k = 0; k < s->nkeys; k++) {
    int r = cmp_cell(s->t, s->t->cols[s->keys[k].col], i, j, s->keys[k].desc);
    if (r) return r;
  }
  return 0;
}

static void merge_sort(const sortctx *s, size_t *a, size_t *tmp, size_t n) {
  if (n < 24) {
    for (size_t i = 1; i < n; i++) {
      size_t v = a[i], j = i;
      while (j > 0 && cmp_rows(s, a[j - 1], v) > 0) {
        a[j] = a[j - 1];
        j--;
      }
      a[j] = v;
    }
    return;
  }
  size_t h = n / 2;
  merge_sort(s, a, tmp, h);
  merge_sort(s, a + h, tmp, n - h);
  if (cmp_rows(s, a[h - 1], a[h]) <= 0) return; /* already in order */
  memcpy(tmp, a, h * sizeof *a);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) a[k++] = cmp_rows(s, a[j], tmp[i]) < 0 ? a[j++] : tmp[i++];
  while (i < h) a[k++] = tmp[i++];
}

size_t *pl_table_order(const pl_table *t, const pl_sortkey *keys, size_t nkeys) {
  size_t n = t->nrows;
  size_t *idx = pl_xmalloc((n ? n : 1) * sizeof *idx);
  for (size_t i = 0; i < n; i++) idx[i] = i;
  if (n < 2 || nkeys == 0) return idx;
  size_t *tmp = pl_xmalloc((n / 2 + 1) * sizeof *tmp);
  sortctx s = { t, keys, nkeys };
  merge_sort(&s, idx, tmp, n);
  free(tmp);
  return idx;
}

/* Top-k with a bounded binary heap keyed on (value, row) so ties keep row
** order; O(n log k). */
typedef struct topctx {
  const pl_table *t;
  int col;
  int desc;
} topctx;

/* "a ranks before b" in the output order */
static int top_before(const topctx *c, size_t a, size_t b) {
  int r = cmp_cell(c->t, c->t->cols[c->col], a, b, c->desc);
  return r < 0 || (r == 0 && a < b);
}

static void heap_sift_down(const topctx *c, size_t *h, size_t n, size_t i) {
  /* max-heap on "ranks last": the root is the worst kept row */
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, w = i;
    if (l < n && top_before(c, h[w], h[l])) w = l;
    if (r < n && top_before(c, h[w], h[r])) w = r;
    if (w == i) return;
    size_t tmp = h[i];
    h[i] = h[w];
    h[w] = tmp;
    i = w;
  }
}

size_t *pl_table_topk(const pl_table *t, int col, size_t n, int desc, size_t *nout) {
  topctx c = { t, col, desc };
  size_t k = n < t->nrows ? n : t->nrows;
  size_t *h = pl_xmalloc((k ? k : 1) * sizeof *h);
  size_t m = 0;
  for (size_t i = 0; i < t->nrows && k > 0; i++) {
    if (m < k) {
      h[m++] = i;
      if (m == k)
        for (size_t j = k / 2 + 1; j-- > 0;) heap_sift_down(&c, h, m, j);
    } else if (top_before(&c, i, h[0])) {
      h[0] = i;
      heap_sift_down(&c, h, m, 0);
    }
  }
  if (m < k)
    for (size_t j = m / 2 + 1; j-- > 0;) heap_sift_down(&c, h, m, j);
  /* heap sort into output order */
  for (size_t e = m; e > 1; e--) {
    size_t tmp = h[0];
    h[0] = h[e - 1];
    h[e - 1] = tmp;
    heap_sift_down(&c, h, e - 1, 0);
  }
  *nout = m;
  return h;
}

/* ---- hashing keys ------------------------------------------------------ */

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

static uint64_t hash_bytes(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

/* A cell's identity for hashing: numbers by value (so 1 == 1.0 across NUM and
** INT), strings by content (so keys match across string pools) or, where
** every cell hashed comes from one pool (byid), by id: a pool holds each
** text once, so equal ids are equal texts, and a long kernel name is not
** hashed byte by byte on every row of a group-by. */
static uint64_t cell_hash(const pl_table *t, int col, size_t row, int byid) {
  const pl_column *c = t->cols[col];
  if (c->type == PL_STR && byid) return mix64(0x5bd1e9955bd1e995ull ^ c->v.str[row]);
  if (c->type == PL_STR) {
    size_t n;
    const char *s = pl_pool_str(t->pool, c->v.str[row], &n);
    return s ? hash_bytes(s, n) : 0x9e3779b97f4a7c15ull;
  }
  double v = pl_cell_num(t, col, row);
  if (isnan(v)) return 0x7ff8000000000000ull;
  if (v == 0) v = 0; /* -0 == 0 */
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return mix64(bits);
}

static int cell_eq(const pl_table *a, int ca, size_t ra, const pl_table *b, int cb, size_t rb) {
  const pl_column *x = a->cols[ca], *y = b->cols[cb];
  if ((x->type == PL_STR) != (y->type == PL_STR)) return 0;
  if (x->type == PL_STR) {
    if (a->pool == b->pool) return x->v.str[ra] == y->v.str[rb];
    size_t la, lb;
    const char *sa = pl_pool_str(a->pool, x->v.str[ra], &la);
    const char *sb = pl_pool_str(b->pool, y->v.str[rb], &lb);
    if (sa == NULL || sb == NULL) return sa == sb;
    return la == lb && memcmp(sa, sb, la) == 0;
  }
  if (x->type != PL_NUM && y->type != PL_NUM) return pl_cell_int(a, ca, ra) == pl_cell_int(b, cb, rb);
  double u = pl_cell_num(a, ca, ra), v = pl_cell_num(b, cb, rb);
  return (isnan(u) && isnan(v)) || u == v;
}

static uint64_t row_hash(const pl_table *t, const int *keys, size_t nkeys, size_t row, int byid) {
  uint64_t h = 0x12345678abcdefull;
  for (size_t k = 0; k < nkeys; k++) h = mix64(h ^ cell_hash(t, keys[k], row, byid)) + k;
  return h;
}

static int row_eq(const pl_table *a, const int *ak, size_t ra, const pl_table *b, const int *bk, size_t rb,
                  size_t nkeys) {
  for (size_t k = 0; k < nkeys; k++)
    if (!cell_eq(a, ak[k], ra, b, bk[k], rb)) return 0;
  return 1;
}

/* ---- group by ---------------------------------------------------------- */

typedef struct hashrow {
  uint64_t h;
  size_t row;
} hashrow;

static int cmp_hashrow(const void *a, const void *b) {
  const hashrow *x = a, *y = b;
  if (x->h != y->h) return x->h < y->h ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

/* One string key: the groups by interned id (a string has one id in its
** table's pool), without hashing -- the same groups in the same order
** (first appearance) as the hash path.  0 when the pool is too large for
** an array indexed by id to pay. */
static size_t group_ids_str(const pl_table *t, int key, size_t *gid, size_t **firstp) {
  size_t n = t->nrows, np = pl_pool_count(t->pool) + 1;
  if (np > 4 * n + 1024) return 0;
  const uint32_t *ids = t->cols[key]->v.str;
  size_t *grp = pl_xmalloc(np * sizeof *grp); /* id -> group + 1, 0 none */
  memset(grp, 0, np * sizeof *grp);
  size_t *first = pl_xmalloc(16 * sizeof *first);
  size_t ngroups = 0, capg = 16;
  for (size_t i = 0; i < n; i++) {
    size_t g = grp[ids[i]];
    if (g == 0) {
      if (ngroups == capg) {
        capg *= 2;
        first = pl_xrealloc(first, capg * sizeof *first);
      }
      first[ngroups] = i;
      g = grp[ids[i]] = ++ngroups;
    }
    gid[i] = g - 1;
  }
  free(grp);
  *firstp = first;
  return ngroups;
}

/* One int64 key: open addressing on the values themselves, key and group
** side by side (one cache miss a row instead of the hash path's chain of
** row lookups); missing (PL_INT_NA) is a value like any other, as there.
** The same groups in the same order (first appearance). */
typedef struct islot {
  int64_t k;
  size_t g;
} islot; /* g: group + 1, 0 empty */

static size_t islots_for(size_t n) {
  size_t m = 64;
  while (m < n * 2) m *= 2;
  return m;
}

static size_t islot_find(const islot *tab, size_t mask, int64_t k) {
  size_t s = (size_t)mix64((uint64_t)k) & mask;
  while (tab[s].g && tab[s].k != k) s = (s + 1) & mask;
  return s;
}

static size_t group_ids_int(const pl_table *t, int key, size_t *gid, size_t **firstp) {
  size_t n = t->nrows, nslots = islots_for(n);
  const int64_t *v = t->cols[key]->v.i64;
  islot *tab = pl_xcalloc(nslots, sizeof *tab);
  size_t *first = pl_xmalloc(16 * sizeof *first);
  size_t ngroups = 0, capg = 16;
  for (size_t i = 0; i < n; i++) {
    size_t s = islot_find(tab, nslots - 1, v[i]);
    if (!tab[s].g) {
      if (ngroups == capg) {
        capg *= 2;
        first = pl_xrealloc(first, capg * sizeof *first);
      }
      first[ngroups] = i;
      tab[s].k = v[i];
      tab[s].g = ++ngroups;
    }
    gid[i] = tab[s].g - 1;
  }
  free(tab);
  *firstp = first;
  return ngroups;
}

size_t pl_table_group_ids(const pl_table *t, const int *keys, size_t nkeys, size_t *gid, size_t **firstp) {
  size_t n = t->nrows;
  if (nkeys == 1 && n > 0 && t->cols[keys[0]]->type == PL_STR && t->pool) {
    size_t ng = group_ids_str(t, keys[0], gid, firstp);
    if (ng > 0) return ng;
  }
  if (nkeys == 1 && t->cols[keys[0]]->type == PL_INT) return group_ids_int(t, keys[0], gid, firstp);
  size_t *first = pl_xmalloc(16 * sizeof *first); /* group -> first row */
  size_t ngroups = 0, capg = 16;
  size_t nslots = 64;
  while (nslots < n * 2) nslots *= 2;
  size_t *slots = pl_xmalloc(nslots * sizeof *slots); /* group+1, 0 empty */
  memset(slots, 0, nslots * sizeof *slots);
  uint64_t *ghash = pl_xmalloc(16 * sizeof *ghash);
  for (size_t i = 0; i < n; i++) {
    uint64_t h = nkeys ? row_hash(t, keys, nkeys, i, 1) : 0;
    size_t s = (size_t)h & (nslots - 1);
    for (;;) {
      size_t g = slots[s];
      if (g == 0) {
        if (ngroups == capg) {
          capg *= 2;
          first = pl_xrealloc(first, capg * sizeof *first);
          ghash = pl_xrealloc(ghash, capg * sizeof *ghash);
        }
        first[ngroups] = i;
        ghash[ngroups] = h;
        slots[s] = ++ngroups;
        gid[i] = ngroups - 1;
        break;
      }
      if (ghash[g - 1] == h && row_eq(t, keys, first[g - 1], t, keys, i, nkeys)) {
        gid[i] = g - 1;
        break;
      }
      s = (s + 1) & (nslots - 1);
    }
  }
  free(slots);
  free(ghash);
  *firstp = first;
  return ngroups;
}

/* Neumaier summation: sums of many durations stay exact */
typedef struct ksum {
  double s, c;
} ksum;
static void ksum_add(ksum *k, double y) {
  double tt = k->s + y;
  k->c += fabs(k->s) >= fabs(y) ? (k->s - tt) + y : (y - tt) + k->s;
  k->s = tt;
}

/* The aggregates' columns and masks, checked against t: 0, or -1 with
** the error set. */
static int check_aggs(const pl_table *t, const pl_agg *aggs, size_t naggs, pl_err *err) {
  for (size_t a = 0; a < naggs; a++) {
    if (aggs[a].op == PL_AGG_COUNT || aggs[a].op == PL_AGG_IDS || aggs[a].op == PL_AGG_FIRST_ROW) continue;
    if (aggs[a].col < 0 || (size_t)aggs[a].col >= t->ncols) {
      pl_err_set(err, 0, 0, "aggregate '%s': no such column", aggs[a].out);
      return -1;
    }
    pl_type ty = t->cols[aggs[a].col]->type;
    if (ty == PL_STR && aggs[a].op != PL_AGG_FIRST && aggs[a].op != PL_AGG_LAST &&
        aggs[a].op != PL_AGG_COUNT_DISTINCT) {
      pl_err_set(err, 0, 0, "aggregate '%s': column '%s' holds strings, not numbers", aggs[a].out,
                 t->cols[aggs[a].col]->name);
      return -1;
    }
    if (aggs[a].op == PL_AGG_WMEAN) {
      if (aggs[a].col2 < 0 || (size_t)aggs[a].col2 >= t->ncols) {
        pl_err_set(err, 0, 0, "aggregate '%s': no weight column", aggs[a].out);
        return -1;
      }
      if (t->cols[aggs[a].col2]->type == PL_STR) {
        pl_err_set(err, 0, 0, "aggregate '%s': weight column '%s' holds strings, not numbers", aggs[a].out,
                   t->cols[aggs[a].col2]->name);
        return -1;
      }
    }
    if (aggs[a].where && (aggs[a].where->type != PL_BOOL || aggs[a].where->len != t->nrows)) {
      pl_err_set(err, 0, 0, "aggregate '%s': where must be a boolean column of %zu rows", aggs[a].out, t->nrows);
      return -1;
    }
  }
  return 0;
}

/* The output's key columns: the first row of each group, only the key
** columns, in the order given. */
static pl_table *group_keys(const pl_table *t, const int *keys, size_t nkeys, const size_t *first, size_t ngroups) {
  pl_table *r = pl_table_take(t, first, ngroups);
  for (size_t j = r->ncols; j-- > 0;) {
    int keep = 0;
    for (size_t k = 0; k < nkeys; k++)
      if (strcmp(r->cols[j]->name, t->cols[keys[k]]->name) == 0) keep = 1;
    if (!keep) pl_table_drop_col(r, (int)j);
  }
  /* order key columns as given */
  for (size_t k = 0; k < nkeys; k++) {
    int at = pl_table_col(r, t->cols[keys[k]]->name);
    if (at >= 0 && (size_t)at != k) {
      pl_column *c = r->cols[at];
      memmove(r->cols + k + 1, r->cols + k, ((size_t)at - k) * sizeof *r->cols);
      r->cols[k] = c;
    }
  }
  return r;
}

/* The rows of each group: group g's rows are rows[start[g] .. start[g+1]),
** in row order; first[g] its first row; vals scratch for n doubles. */
typedef struct grows {
  size_t ngroups;
  size_t *start, *rows, *first;
  double *vals;
} grows;

/* A row an aggregate takes: no mask, or the mask true there. */
static inline int passes(const pl_column *wh, size_t row) { return wh == NULL || wh->v.b[row] == 1; }

/* The type of an aggregate's output column. */
static pl_type agg_type(const pl_table *t, const pl_agg *ag) {
  if (ag->op == PL_AGG_COUNT || ag->op == PL_AGG_COUNT_DISTINCT || ag->op == PL_AGG_IDS || ag->op == PL_AGG_FIRST_ROW)
    return PL_INT;
  if (ag->op == PL_AGG_FIRST || ag->op == PL_AGG_LAST) return t->cols[ag->col]->type;
  if ((ag->op == PL_AGG_MIN || ag->op == PL_AGG_MAX || ag->op == PL_AGG_SUM) && t->cols[ag->col]->type == PL_INT)
    return PL_INT;
  return PL_NUM;
}

/* count: the rows of the group that pass the mask */
static inline int64_t agg_count(const pl_agg *ag, const size_t *rows, size_t b, size_t e) {
  if (ag->where == NULL) return (int64_t)(e - b);
  int64_t k = 0;
  for (size_t i = b; i < e; i++) k += passes(ag->where, rows[i]);
  return k;
}

/* first_row: the first row (1-based) that passes the mask */
static inline int64_t agg_first_row(const pl_agg *ag, const size_t *rows, size_t b, size_t e) {
  int64_t fr = PL_INT_NA;
  for (size_t i = b; i < e && fr == PL_INT_NA; i++)
    if (passes(ag->where, rows[i])) fr = (int64_t)rows[i] + 1;
  return fr;
}

/* wmean: sum(x w) / sum(w) over the rows with both present */
static double agg_wmean(const pl_table *t, const pl_agg *ag, const size_t *rows, size_t b, size_t e) {
  ksum sx = { 0, 0 }, sw = { 0, 0 };
  for (size_t i = b; i < e; i++) {
    if (!passes(ag->where, rows[i])) continue;
    double x = pl_cell_num(t, ag->col, rows[i]), w = pl_cell_num(t, ag->col2, rows[i]);
    if (isnan(x) || isnan(w)) continue;
    ksum_add(&sx, x * w);
    ksum_add(&sw, w);
  }
  double den = sw.s + sw.c;
  return den != 0 ? (sx.s + sx.c) / den : NAN;
}

/* first, last: the first (last) non-missing value, into out[g] */
static void agg_first_last(const pl_table *t, const pl_agg *ag, pl_column *out, size_t g, const size_t *rows, size_t b,
                           size_t e) {
  pl_type outt = out->type;
  size_t i = e;
  if (ag->op == PL_AGG_FIRST) {
    for (size_t x = b; x < e && i == e; x++)
      if (passes(ag->where, rows[x]) && !pl_cell_missing(t, ag->col, rows[x])) i = x;
  } else {
    for (size_t x = e; x-- > b && i == e;)
      if (passes(ag->where, rows[x]) && !pl_cell_missing(t, ag->col, rows[x])) i = x;
  }
  if (i == e) {
    if (outt == PL_NUM) out->v.num[g] = NAN;
    else if (outt == PL_STR) out->v.str[g] = 0;
    else if (outt == PL_BOOL) out->v.b[g] = PL_BOOL_NA;
    else out->v.i64[g] = PL_INT_NA;
    return;
  }
  size_t row = rows[i];
  const pl_column *sc = t->cols[ag->col];
  if (outt == PL_NUM) out->v.num[g] = sc->v.num[row];
  else if (outt == PL_STR) out->v.str[g] = sc->v.str[row];
  else if (outt == PL_BOOL) out->v.b[g] = sc->v.b[row];
  else out->v.i64[g] = sc->v.i64[row];
}

/* count_distinct: sort the group's rows by value hash; equal hashes are
** compared exactly within their run, so collisions cannot miscount.
** Missing values are not a distinct value. */
static int64_t agg_count_distinct(const pl_table *t, const pl_agg *ag, const size_t *rows, size_t b, size_t e) {
  size_t m2 = 0;
  hashrow *hr = pl_xmalloc((e - b ? e - b : 1) * sizeof *hr);
  for (size_t i = b; i < e; i++) {
    if (!passes(ag->where, rows[i]) || pl_cell_missing(t, ag->col, rows[i])) continue;
    hr[m2].h = cell_hash(t, ag->col, rows[i], 1);
    hr[m2].row = rows[i];
    m2++;
  }
  qsort(hr, m2, sizeof *hr, cmp_hashrow);
  int64_t cnt = 0;
  for (size_t i = 0; i < m2;) {
    size_t j = i;
    while (j < m2 && hr[j].h == hr[i].h) j++;
    for (size_t x = i; x < j; x++) {
      int seen = 0;
      for (size_t y = i; y < x && !seen; y++) seen = cell_eq(t, ag->col, hr[y].row, t, ag->col, hr[x].row);
      if (!seen) cnt++;
    }
    i = j;
  }
  free(hr);
  return cnt;
}

/* sum, min, max of an int64 column into *acc (a sum of no value: 0, a
** min/max: missing): 0, or -1 when the sum leaves int64. */
static inline int agg_int(const pl_table *t, const pl_agg *ag, const size_t *rows, size_t b, size_t e, int64_t *out) {
  const int64_t *src = t->cols[ag->col]->v.i64;
  int64_t acc = PL_INT_NA;
  for (size_t i = b; i < e; i++) {
    int64_t v = src[rows[i]];
    if (v == PL_INT_NA || !passes(ag->where, rows[i])) continue;
    if (acc == PL_INT_NA) acc = ag->op == PL_AGG_SUM ? 0 : v;
    if (ag->op == PL_AGG_SUM) {
      if (__builtin_add_overflow(acc, v, &acc) || acc == PL_INT_NA) return -1;
    } else if (ag->op == PL_AGG_MIN ? v < acc : v > acc) acc = v;
  }
  if (ag->op == PL_AGG_SUM && acc == PL_INT_NA) acc = 0;
  *out = acc;
  return 0;
}

/* sum, mean, sd, min, max, quantile over the present values as doubles
** (vals: scratch) */
static double agg_num(const pl_table *t, const pl_agg *ag, const size_t *rows, size_t b, size_t e, double *vals) {
  size_t m = 0;
  for (size_t i = b; i < e; i++) {
    double v = pl_cell_num(t, ag->col, rows[i]);
    if (!isnan(v) && passes(ag->where, rows[i])) vals[m++] = v;
  }
  if (ag->op == PL_AGG_SUM) {
    /* Neumaier summation: sums of many durations stay exact */
    double s = 0, c = 0;
    for (size_t i = 0; i < m; i++) {
      double y = vals[i], tt = s + y;
      c += fabs(s) >= fabs(y) ? (s - tt) + y : (y - tt) + s;
      s = tt;
    }
    return s + c;
  }
  if (m == 0) return NAN;
  double res = NAN;
  switch (ag->op) {
    case PL_AGG_MEAN:
    case PL_AGG_SD: {
      double mean = 0;
      for (size_t i = 0; i < m; i++) mean += (vals[i] - mean) / (double)(i + 1);
      if (ag->op == PL_AGG_MEAN) return mean;
      if (m < 2) return NAN;
      double ss = 0;
      for (size_t i = 0; i < m; i++) ss += (vals[i] - mean) * (vals[i] - mean);
      return sqrt(ss / (double)(m - 1));
    }
    case PL_AGG_MIN:
      res = vals[0];
      for (size_t i = 1; i < m; i++)
        if (vals[i] < res) res = vals[i];
      break;
    case PL_AGG_MAX:
      res = vals[0];
      for (size_t i = 1; i < m; i++)
        if (vals[i] > res) res = vals[i];
      break;
    case PL_AGG_QUANTILE: res = pl_quantile_select(vals, m, ag->q); break;
    default: break;
  }
  return res;
}

/* One aggregate's output column of r, one row per group. */
static void agg_column(pl_table *r, const pl_table *t, const pl_agg *ag, const grows *gr) {
  pl_type outt = agg_type(t, ag);
  int oc = pl_table_col(r, ag->out);
  if (oc >= 0) pl_table_drop_col(r, oc);
  oc = pl_table_add_col(r, ag->out, outt);
  pl_column *out = r->cols[oc];
  const size_t *rows = gr->rows;
  for (size_t g = 0; g < gr->ngroups; g++) {
    size_t b = gr->start[g], e = gr->start[g + 1];
    switch (ag->op) {
      case PL_AGG_COUNT: out->v.i64[g] = agg_count(ag, rows, b, e); break;
      case PL_AGG_IDS: out->v.i64[g] = (int64_t)gr->first[g] + 1; break;
      case PL_AGG_FIRST_ROW: out->v.i64[g] = agg_first_row(ag, rows, b, e); break;
      case PL_AGG_WMEAN: out->v.num[g] = agg_wmean(t, ag, rows, b, e); break;
      case PL_AGG_FIRST:
      case PL_AGG_LAST: agg_first_last(t, ag, out, g, rows, b, e); break;
      case PL_AGG_COUNT_DISTINCT: out->v.i64[g] = agg_count_distinct(t, ag, rows, b, e); break;
      default:
        if (outt != PL_INT) {
          out->v.num[g] = agg_num(t, ag, rows, b, e, gr->vals);
        } else if (agg_int(t, ag, rows, b, e, &out->v.i64[g]) != 0) {
          /* the sum leaves int64: this output column becomes a double */
          pl_table_retype(r, oc, PL_NUM);
          out = r->cols[oc];
          outt = PL_NUM;
          g = (size_t)-1; /* recompute every group as doubles */
        }
        break;
    }
  }
}

pl_table *pl_table_group(const pl_table *t, const int *keys, size_t nkeys, const pl_agg *aggs, size_t naggs,
                         pl_err *err) {
  if (check_aggs(t, aggs, naggs, err) != 0) return NULL;
  size_t n = t->nrows;
  /* 1. assign a group id to each row */
  size_t *gid = pl_xmalloc((n ? n : 1) * sizeof *gid);
  grows gr;
  gr.first = NULL;
  gr.ngroups = pl_table_group_ids(t, keys, nkeys, gid, &gr.first);
  size_t ngroups = gr.ngroups;

  /* 2. output: key columns (first row of each group), then aggregates */
  pl_table *r = group_keys(t, keys, nkeys, gr.first, ngroups);
  /* group row lists (counting sort) for aggregates that need all values */
  gr.start = pl_xcalloc(ngroups + 1, sizeof *gr.start);
  for (size_t i = 0; i < n; i++) gr.start[gid[i] + 1]++;
  for (size_t g = 0; g < ngroups; g++) gr.start[g + 1] += gr.start[g];
  gr.rows = pl_xmalloc((n ? n : 1) * sizeof *gr.rows);
  size_t *fill = pl_xmalloc((ngroups ? ngroups : 1) * sizeof *fill);
  memcpy(fill, gr.start, (ngroups ? ngroups : 0) * sizeof *fill);
  for (size_t i = 0; i < n; i++) gr.rows[fill[gid[i]]++] = i;
  free(fill);
  gr.vals = pl_xmalloc((n ? n : 1) * sizeof *gr.vals);
  for (size_t a = 0; a < naggs; a++) agg_column(r, t, &aggs[a], &gr);
  free(gr.vals);
  free(gr.rows);
  free(gr.start);
  free(gid);
  free(gr.first);
  return r;
}

/* ---- join -------------------------------------------------------------- */

/* Appends the row pair (i, j) to the join's two row lists (j = -1: no
** match, a left join's row), doubling them when full. */
static inline void pair_push(size_t **ra, size_t **rb, size_t *n, size_t *cap, size_t i, size_t j) {
  if (*n == *cap) {
    *cap *= 2;
    *ra = pl_xrealloc(*ra, *cap * sizeof **ra);
    *rb = pl_xrealloc(*rb, *cap * sizeof **rb);
  }
  (*ra)[*n] = i;
  (*rb)[*n] = j;
  (*n)++;
}

pl_table *pl_table_join(const pl_table *a, const pl_table *b, const int *akeys, const int *bkeys, size_t nkeys,
                        pl_joinkind kind, const char *suffix, pl_err *err) {
  for (size_t k = 0; k < nkeys; k++) {
    if ((a->cols[akeys[k]]->type == PL_STR) != (b->cols[bkeys[k]]->type == PL_STR)) {
      const char *ta = pl_type_name(a->cols[akeys[k]]->type), *tb = pl_type_name(b->cols[bkeys[k]]->type);
      pl_err_set(err, 0, 0, "join key '%s' is %s %s on one side and %s %s on the other", a->cols[akeys[k]]->name,
                 ta[0] == 'i' ? "an" : "a", ta, tb[0] == 'i' ? "an" : "a", tb);
      return NULL;
    }
  }
  /* hash b: chains of rows per slot (text keys by id when both tables share a pool) */
  int byid = a->pool == b->pool;
  size_t nb = b->nrows, nslots = 64;
  size_t cap = a->nrows + 16, n = 0;
  size_t *ra = pl_xmalloc(cap * sizeof *ra), *rb = pl_xmalloc(cap * sizeof *rb);
  if (nkeys == 1 && a->cols[akeys[0]]->type == PL_INT && b->cols[bkeys[0]]->type == PL_INT) {
    /* one int64 key on both sides: b's distinct values in an open table
    ** (islot.g = the first row of the value + 1), its rows chained in order;
    ** equal int64 values match (missing with missing, as cell_eq has it) */
    const int64_t *bv = b->cols[bkeys[0]]->v.i64, *av = a->cols[akeys[0]]->v.i64;
    size_t ns = islots_for(nb), mask = ns - 1;
    islot *tab = pl_xcalloc(ns, sizeof *tab);
    size_t *tail = pl_xmalloc(ns * sizeof *tail);
    size_t *next = pl_xmalloc((nb ? nb : 1) * sizeof *next);
    for (size_t i = 0; i < nb; i++) {
      size_t s = islot_find(tab, mask, bv[i]);
      next[i] = (size_t)-1;
      if (!tab[s].g) {
        tab[s].k = bv[i];
        tab[s].g = i + 1;
      } else next[tail[s]] = i;
      tail[s] = i;
    }
    for (size_t i = 0; i < a->nrows; i++) {
      size_t s = islot_find(tab, mask, av[i]);
      int hit = 0;
      for (size_t j = tab[s].g ? tab[s].g - 1 : (size_t)-1; j != (size_t)-1; j = next[j]) {
        pair_push(&ra, &rb, &n, &cap, i, j);
        hit = 1;
      }
      if (!hit && kind == PL_JOIN_LEFT) { pair_push(&ra, &rb, &n, &cap, i, (size_t)-1); }
    }
    free(tab);
    free(tail);
    free(next);
    goto gather;
  }
  while (nslots < nb * 2) nslots *= 2;
  size_t *head = pl_xmalloc(nslots * sizeof *head);
  for (size_t s = 0; s < nslots; s++) head[s] = (size_t)-1;
  size_t *next = pl_xmalloc((nb ? nb : 1) * sizeof *next);
  for (size_t i = nb; i-- > 0;) { /* reverse so chains list rows in order */
    size_t s = (size_t)row_hash(b, bkeys, nkeys, i, byid) & (nslots - 1);
    next[i] = head[s];
    head[s] = i;
  }
  for (size_t i = 0; i < a->nrows; i++) {
    size_t s = (size_t)row_hash(a, akeys, nkeys, i, byid) & (nslots - 1);
    int hit = 0;
    for (size_t j = head[s]; j != (size_t)-1; j = next[j]) {
      if (!row_eq(a, akeys, i, b, bkeys, j, nkeys)) continue;
      pair_push(&ra, &rb, &n, &cap, i, j);
      hit = 1;
    }
    if (!hit && kind == PL_JOIN_LEFT) { pair_push(&ra, &rb, &n, &cap, i, (size_t)-1); }
  }
  free(head);
  free(next);
gather:;
  pl_table *r = pl_table_take(a, ra, n);
  for (size_t j = 0; j < b->ncols; j++) {
    int iskey = 0;
    for (size_t k = 0; k < nkeys; k++)
      if (bkeys[k] == (int)j) iskey = 1;
    if (iskey) continue;
    const pl_column *bc = b->cols[j];
    char name[512];
    snprintf(name, sizeof name, "%s", bc->name);
    if (pl_table_col(r, name) >= 0) snprintf(name, sizeof name, "%s%s", bc->name, suffix ? suffix : "_b");
    int oc = pl_table_add_col(r, name, bc->type);
    if (oc < 0) continue;
    pl_column *c = r->cols[oc];
    for (size_t i = 0; i < n; i++) {
      size_t row = rb[i];
      if (row == (size_t)-1) continue; /* stays missing */
      switch (bc->type) {
        case PL_NUM: c->v.num[i] = bc->v.num[row]; break;
        case PL_INT: c->v.i64[i] = bc->v.i64[row]; break;
        case PL_BOOL: c->v.b[i] = bc->v.b[row]; break;
        case PL_STR: {
          size_t len;
          const char *s = pl_pool_str(b->pool, bc->v.str[row], &len);
          c->v.str[i] = s ? pl_pool_intern(r->pool, s, len) : 0;
          break;
        }
      }
    }
  }
  free(ra);
  free(rb);
  return r;
}

pl_table *pl_table_unique(const pl_table *t, int col) {
  int keys[1] = { col };
  pl_err e;
  pl_table *g = pl_table_group(t, keys, 1, NULL, 0, &e);
  return g;
}

/*
** csvread.c -- CSV records through libcsv (strict mode), with line numbers,
** and the generic typed-table builder.  See csvread.h.
**
** The input is fed to libcsv one line at a time (a memchr per line), which
** is what gives every record its starting line and raw text; libcsv keeps
** its state between calls, so quoted fields spanning lines still work.
*/
#include "csvread.h"
#include "bigmem.h"
#include "par.h"
#include "scan.h"

#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
  /* fields of the record being built: bytes in arena, offsets and lengths */
  char *arena;
  size_t alen, acap;
  size_t *off, *lens;
  size_t nf, capf;
  const char **ptrs;
  size_t capp;
  pl_csv_row_fn fn;
  void *ud;
  pl_err *err;
  pl_csv_field_fn ffn; /* streaming mode: fields are not copied */
  int stop;
  unsigned char delim;
  size_t index;
  size_t row_line;
  const char *row_src; /* where the open record started */
  const char *line_s;
  size_t line_n; /* the line being fed */
} reader;

static void on_field(void *field, size_t len, void *data) {
  reader *r = data;
  if (r->stop) return;
  if (r->ffn) {
    if (r->ffn(r->ud, r->nf, field ? (const char *)field : "", len, r->err) != 0) r->stop = 1;
    r->nf++;
    return;
  }
  if (r->nf == r->capf) {
    r->capf = r->capf ? r->capf * 2 : 64;
    r->off = pl_xrealloc(r->off, r->capf * sizeof *r->off);
    r->lens = pl_xrealloc(r->lens, r->capf * sizeof *r->lens);
  }
  if (r->alen + len + 1 > r->acap) {
    while (r->alen + len + 1 > r->acap) r->acap = r->acap ? r->acap * 2 : 4096;
    r->arena = pl_xrealloc(r->arena, r->acap);
  }
  r->off[r->nf] = r->alen;
  r->lens[r->nf] = len;
  if (len) memcpy(r->arena + r->alen, field, len);
  r->alen += len;
  r->arena[r->alen++] = '\0';
  r->nf++;
}

static void on_record(int c, void *data) {
  (void)c;
  reader *r = data;
  if (r->stop) {
    r->nf = 0;
    r->alen = 0;
    return;
  }
  pl_csv_row row;
  if (!r->ffn) {
    if (r->nf > r->capp) {
      r->capp = r->nf * 2;
      r->ptrs = pl_xrealloc(r->ptrs, r->capp * sizeof *r->ptrs);
    }
    for (size_t i = 0; i < r->nf; i++) r->ptrs[i] = r->arena + r->off[i];
    row.f = r->ptrs;
    row.len = r->lens;
  } else {
    row.f = NULL;
    row.len = NULL;
  }
  row.n = r->nf;
  row.line = r->row_line;
  row.index = r->index++;
  row.src = r->row_src;
  row.srclen = r->line_s ? (size_t)(r->line_s + r->line_n - r->row_src) : 0;
  row.delim = r->delim;
  if (r->fn(r->ud, &row, r->err) != 0) r->stop = 1;
  r->nf = 0;
  r->alen = 0;
}

/* Column (1-based) in its line of byte p, and the line number, counting
** from a known (line, start) pair. */
static void locate(const char *start, size_t line, const char *p, size_t *outline, size_t *outcol) {
  const char *ls = start;
  for (const char *q = start; q < p; q++)
    if (*q == '\n') {
      line++;
      ls = q + 1;
    }
  *outline = line;
  *outcol = (size_t)(p - ls) + 1;
}

size_t pl_csv_field_col(const pl_csv_row *row, size_t i) {
  const char *s = row->src, *e = row->src + row->srclen;
  const char *fs = s;
  size_t k = 0;
  int inq = 0, atstart = 1;
  const char *p = s;
  while (p < e && k < i) {
    char c = *p;
    if (inq) {
      if (c == '"') {
        if (p + 1 < e && p[1] == '"') p++;
        else inq = 0;
      }
    } else if (c == '"' && atstart) {
      inq = 1;
      atstart = 0;
    } else if ((unsigned char)c == row->delim) {
      k++;
      fs = p + 1;
      atstart = 1;
      p++;
      continue;
    } else if (c != ' ' && c != '\t') atstart = 0;
    p++;
  }
  if (k < i) fs = e;
  /* skip libcsv's trimmed spaces so the column points at the text */
  while (fs < e && (*fs == ' ' || *fs == '\t')) fs++;
  size_t line, col;
  locate(row->src, row->line, fs, &line, &col);
  return col;
}

static int read_impl(const char *data, size_t len, const pl_csv_opts *o, pl_csv_field_fn ffn, pl_csv_row_fn fn,
                     void *ud, pl_err *err) {
  struct csv_parser p;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) return pl_err_set(err, 0, 0, "libcsv initialisation failed");
  reader r;
  memset(&r, 0, sizeof r);
  r.fn = fn;
  r.ud = ud;
  r.err = err;
  r.ffn = ffn;
  r.delim = (o && o->delim) ? o->delim : ',';
  csv_set_delim(&p, r.delim);
  size_t lineno = (o && o->first_line) ? o->first_line : 1;
  volatile int *intr = o ? o->interrupt : NULL;
  const char *s = data, *end = data + len;
  int rc = 0, open = 0;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);
    if (!open) {
      r.row_line = lineno;
      r.row_src = s;
    }
    r.line_s = s;
    r.line_n = nl ? n - 1 : n;
    if (r.line_n && s[r.line_n - 1] == '\r') r.line_n--;
    pl_csv_grow_hint(&p, n);
    size_t got = csv_parse(&p, s, n, on_field, on_record, &r);
    if (r.stop) {
      rc = -1;
      goto done;
    }
    if (got != n) {
      if (csv_error(&p) == CSV_EPARSE) {
        const char *at = s + got;
        if (*at == '"')
          pl_err_expected(err, lineno, got + 1, "a quote only at the start of a field", at, (size_t)(end - at));
        else
          pl_err_expected(err, lineno, got + 1, "a delimiter or end of line after the closing quote", at,
                          (size_t)(end - at));
      } else {
        pl_err_set(err, lineno, 1, "CSV reader failed: %s", csv_strerror(csv_error(&p)));
      }
      rc = -1;
      goto done;
    }
    open = p.pstate != 0;
    lineno++;
    s += n;
    if (intr && *intr) {
      rc = pl_err_set(err, lineno - 1, 1, "interrupted");
      goto done;
    }
  }
  if (csv_fini(&p, on_field, on_record, &r) != 0) {
    /* find the quote that opened the unterminated field */
    const char *q = r.row_src, *qe = end, *openq = r.row_src;
    int inq = 0, atstart = 1;
    for (; q < qe; q++) {
      char c = *q;
      if (inq) {
        if (c == '"') {
          if (q + 1 < qe && q[1] == '"') q++;
          else inq = 0;
        }
      } else if (c == '"' && atstart) {
        inq = 1;
        openq = q;
        atstart = 0;
      } else if ((unsigned char)c == r.delim || c == '\n' || c == '\r') atstart = 1;
      else if (c != ' ' && c != '\t') atstart = 0;
    }
    size_t ql, qc;
    locate(r.row_src, r.row_line, openq, &ql, &qc);
    char what[128];
    snprintf(what, sizeof what, "a closing quote for the field opened at line %zu column %zu", ql, qc);
    size_t el, ec;
    locate(r.row_src, r.row_line, end, &el, &ec);
    pl_err_expected(err, el, ec, what, NULL, 0);
    rc = -1;
    goto done;
  }
  if (r.stop) rc = -1;
done:
  csv_free(&p);
  free(r.arena);
  free(r.off);
  free(r.lens);
  free(r.ptrs);
  return rc;
}

void pl_csv_grow_hint(struct csv_parser *p, size_t n) {
  size_t blk = p->entry_size > n ? p->entry_size : n;
  csv_set_blk_size(p, blk < 128 ? 128 : blk);
}

int pl_csv_read(const char *data, size_t len, const pl_csv_opts *o, pl_csv_row_fn fn, void *ud, pl_err *err) {
  return read_impl(data, len, o, NULL, fn, ud, err);
}

int pl_csv_read_fields(const char *data, size_t len, const pl_csv_opts *o, pl_csv_field_fn field_fn,
                       pl_csv_row_fn row_fn, void *ud, pl_err *err) {
  return read_impl(data, len, o, field_fn, row_fn, ud, err);
}

const char *pl_csv_boundary(const char *p, const char *lim, const char *end, size_t *nlines) {
  size_t lines = 0;
  unsigned q = 0;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl + 1 : end;
    unsigned k = 0;
    for (const char *s = p; s < e; s++) k += *s == '"';
    q += k;
    lines++;
    p = e;
    if (p >= lim && (q & 1) == 0) break;
  }
  *nlines = lines;
  return p;
}

static const double p10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

int pl_csv_number(const char *s, size_t n, int64_t *iv, double *dv) {
  if (n == 0) return -1;
  char c = s[0];
  if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.')) return 0;
  /* one pass: digits, optional fraction and exponent.  An integer of up to
  ** 18 digits is returned exactly; a decimal of up to 15 significant
  ** digits whose power of ten is within 1e22 is converted by one correctly
  ** rounded * or / (Clinger's fast path); anything else goes to
  ** pl_parse_double / pl_parse_int64. */
  size_t j = (c == '-' || c == '+') ? 1 : 0;
  uint64_t m = 0;
  int nd = 0, sig = 0, frac = 0, dot = 0;
  while (j < n) {
    unsigned d = (unsigned)(s[j] - '0');
    if (d < 10) {
      m = m * 10 + d;
      nd++;
      if (m) sig++;
      if (dot) frac++;
      if (nd > 18) break;
    } else if (s[j] == '.' && !dot) dot = 1;
    else break;
    j++;
  }
  if (nd > 18) {
    if (!dot && pl_parse_int64(s, n, iv) == 0) return 1;
    return pl_parse_double(s, n, dv) == 0 ? 2 : 0;
  }
  if (nd == 0) return 0;
  if (j == n && !dot) {
    *iv = c == '-' ? -(int64_t)m : (int64_t)m;
    return 1;
  }
  int ex = 0;
  if (j < n && (s[j] == 'e' || s[j] == 'E')) {
    j++;
    int eneg = 0;
    if (j < n && (s[j] == '-' || s[j] == '+')) {
      eneg = s[j] == '-';
      j++;
    }
    size_t e0 = j;
    while (j < n && s[j] >= '0' && s[j] <= '9' && ex < 1000) {
      ex = ex * 10 + (s[j] - '0');
      j++;
    }
    if (j == e0) return 0;
    if (eneg) ex = -ex;
  }
  if (j != n) return 0;
  int net = ex - frac;
  if (sig <= 15 && net >= -22 && net <= 22) {
    double v = (double)m;
    v = net < 0 ? v / p10[-net] : v * p10[net];
    *dv = c == '-' ? -v : v;
    return 2;
  }
  return pl_parse_double(s, n, dv) == 0 ? 2 : 0;
}

/* ---- the typed table ---------------------------------------------------- */

enum { K_NONE, K_INT, K_NUM, K_STR, K_LATE }; /* K_LATE: text seen after numbers */

typedef struct tbuild {
  pl_table *t;
  int *kind;
  size_t ncols;
  size_t header_line;
  size_t row; /* index of the row being filled */
  int late;   /* some column is K_LATE */
  int header_done;
  uint32_t *last;      /* per column: id of the previous row's text */
  pl_profile *lenient; /* skip records of the wrong width, listing them here */
  size_t lrow;         /* late pass: the row being refilled */
  /* lenient: the records to skip (ascending record indexes, found by a
  ** first pass) so that a skipped record never types a column */
  size_t *skip, nskip, kskip, rec;
} tbuild;

/* Turns column col (holding only missing values, or to be refilled) into a
** string column of missing values. */
static void force_str(pl_table *t, int col) {
  pl_column *c = t->cols[col];
  uint32_t *v = pl_mem_xcalloc(c->cap ? c->cap : 1, sizeof *v);
  pl_mem_free(c->v.any);
  c->v.str = v;
  c->type = PL_STR;
}

/* Past this many header columns, names are appended unchecked and made
** unique once the header ends (dedupe_header): checking each against all
** before it is quadratic. */
#define WIDE_HEADER 1024

static int unique_name(pl_table *t, const char *s, size_t n, size_t i) {
  char name[256];
  if (n == 0) snprintf(name, sizeof name, "col_%zu", i + 1);
  else snprintf(name, sizeof name, "%.*s", (int)(n < 200 ? n : 200), s);
  if (t->ncols >= WIDE_HEADER) return pl_table_append_col(t, name, PL_INT);
  if (pl_table_col(t, name) < 0) return pl_table_add_col(t, name, PL_INT);
  char alt[280];
  for (int k = 2;; k++) {
    snprintf(alt, sizeof alt, "%s_%d", name, k);
    if (pl_table_col(t, alt) < 0) return pl_table_add_col(t, alt, PL_INT);
  }
}

static _Thread_local const pl_table *dedupe_t; /* per thread: perflab serve parses in several at once */
static int name_cmp(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  int c = strcmp(dedupe_t->cols[x]->name, dedupe_t->cols[y]->name);
  return c ? c : (x > y) - (x < y);
}

/* A wide header's repeated names: the first keeps its name, each later one
** takes NAME_2, NAME_3, ... (the first not taken), in column order. */
static void dedupe_header(pl_table *t) {
  if (t->ncols <= WIDE_HEADER) return;
  size_t n = t->ncols, *ix = pl_xmalloc(n * sizeof *ix);
  for (size_t i = 0; i < n; i++) ix[i] = i;
  dedupe_t = t;
  qsort(ix, n, sizeof *ix, name_cmp);
  for (size_t a = 0; a < n;) {
    size_t z = a + 1;
    while (z < n && strcmp(t->cols[ix[a]]->name, t->cols[ix[z]]->name) == 0) z++;
    for (size_t k = a + 1; k < z; k++) {
      char alt[280];
      for (int j = 2;; j++) {
        snprintf(alt, sizeof alt, "%s_%d", t->cols[ix[a]]->name, j);
        if (pl_table_col(t, alt) < 0) break;
      }
      free(t->cols[ix[k]]->name);
      t->cols[ix[k]]->name = pl_xstrdup(alt);
    }
    a = z;
  }
  free(ix);
}

/* Room for index `row` in column c (the table's own growth rule). */
static inline void col_room(pl_column *c, size_t row) {
  if (row >= c->cap) pl_column_reserve(c, row + 1);
}

static int typed_field(void *ud, size_t i, const char *s, size_t n, pl_err *err) {
  (void)err;
  tbuild *b = ud;
  pl_table *t = b->t;
  if (!b->header_done) {
    unique_name(t, s, n, i);
    return 0;
  }
  if (i >= b->ncols) return 0;                                      /* counted and reported at the record's end */
  if (b->kskip < b->nskip && b->skip[b->kskip] == b->rec) return 0; /* lenient: skipped */
  pl_column *c = t->cols[i];
  size_t row = b->row;
  int k = b->kind[i];
  col_room(c, row);
  if (n == 0) {
    switch (c->type) {
      case PL_NUM: c->v.num[row] = NAN; break;
      case PL_STR: c->v.str[row] = 0; break;
      default: c->v.i64[row] = PL_INT_NA; break;
    }
    return 0;
  }
  if (k == K_STR) {
    /* repeated text (process, host, launch shapes) skips the hash */
    uint32_t id = b->last[i];
    size_t ln;
    const char *ls = pl_pool_str(t->pool, id, &ln);
    if (!(ls && ln == n && memcmp(ls, s, n) == 0)) id = b->last[i] = pl_pool_intern(t->pool, s, n);
    c->v.str[row] = id;
    return 0;
  }
  if (k == K_LATE) {
    c->v.str[row] = 0;
    return 0;
  }
  int64_t iv;
  double dv;
  int got = pl_csv_number(s, n, &iv, &dv);
  if (got == 1) {
    if (k == K_NUM) c->v.num[row] = (double)iv;
    else {
      if (k == K_NONE) b->kind[i] = K_INT;
      c->v.i64[row] = iv;
    }
  } else if (got == 2) {
    if (k != K_NUM) {
      pl_table_retype(t, (int)i, PL_NUM);
      b->kind[i] = K_NUM;
      c = t->cols[i];
      col_room(c, row);
    }
    c->v.num[row] = dv;
  } else if (k == K_NONE) {
    force_str(t, (int)i);
    b->kind[i] = K_STR;
    c = t->cols[i];
    c->v.str[row] = pl_pool_intern(t->pool, s, n);
  } else {
    /* text after numbers: refilled as text by a second pass */
    force_str(t, (int)i);
    b->kind[i] = K_LATE;
    b->late = 1;
  }
  return 0;
}

static int typed_end(void *ud, const pl_csv_row *r, pl_err *err) {
  tbuild *b = ud;
  pl_table *t = b->t;
  if (b->kskip < b->nskip && b->skip[b->kskip] == b->rec) b->kskip++;
  b->rec++;
  if (!b->header_done) {
    b->header_done = 1;
    dedupe_header(t);
    b->ncols = r->n;
    b->header_line = r->line;
    b->kind = pl_xcalloc(r->n ? r->n : 1, sizeof *b->kind);
    b->last = pl_xcalloc(r->n ? r->n : 1, sizeof *b->last);
    return 0;
  }
  if (r->n != b->ncols) {
    char what[96];
    snprintf(what, sizeof what, "%zu fields as in the header (line %zu), found %zu", b->ncols, b->header_line, r->n);
    if (b->lenient) { /* the row's cells are overwritten by the next record */
      pl_profile_diag(b->lenient, r->line, "skipped: expected %s (column %zu)", what,
                      pl_csv_field_col(r, r->n < b->ncols ? r->n : b->ncols));
      return 0;
    }
    if (r->n < b->ncols)
      return pl_err_set(err, r->line, pl_csv_field_col(r, r->n), "expected %s: the record ends early", what);
    return pl_err_set(err, r->line, pl_csv_field_col(r, b->ncols), "expected %s", what);
  }
  b->row++;
  for (size_t i = 0; i < b->ncols; i++) t->cols[i]->len = b->row;
  t->nrows = b->row;
  return 0;
}

static int late_row(void *ud, const pl_csv_row *r, pl_err *err) {
  (void)err;
  tbuild *b = ud;
  if (r->index == 0) return 0;
  if (r->n != b->ncols) return 0; /* skipped (lenient) in the first pass */
  size_t row = b->lrow++;
  for (size_t i = 0; i < r->n && i < b->ncols; i++) {
    if (b->kind[i] != K_LATE || r->len[i] == 0) continue;
    b->t->cols[i]->v.str[row] = pl_pool_intern(b->t->pool, r->f[i], r->len[i]);
  }
  return 0;
}

/* Lenient first pass: the indexes of the records whose width differs from
** the header's.  Their fields must not take part in typing the columns: a
** skipped record with one field too many would otherwise turn a number
** column into text (a `calls` column once read as strings). */
typedef struct widths {
  size_t ncols, *skip, n, cap;
} widths;

static int width_row(void *ud, const pl_csv_row *r, pl_err *err) {
  (void)err;
  widths *w = ud;
  if (r->index == 0) {
    w->ncols = r->n;
    return 0;
  }
  if (r->n == w->ncols) return 0;
  if (w->n == w->cap) {
    w->cap = w->cap ? w->cap * 2 : 16;
    w->skip = pl_xrealloc(w->skip, w->cap * sizeof *w->skip);
  }
  w->skip[w->n++] = r->index;
  return 0;
}

/* The line-tracking reader: exact error positions, and --lenient (records
** of the wrong width are skipped and listed in `lenient`'s diagnostics). */
static pl_table *slow_table(const char *data, size_t len, const char *name, const pl_csv_opts *o, pl_profile *lenient,
                            pl_err *err) {
  tbuild b;
  memset(&b, 0, sizeof b);
  if (lenient) {
    widths w;
    memset(&w, 0, sizeof w);
    if (pl_csv_read(data, len, o, width_row, &w, err) != 0) {
      free(w.skip);
      return NULL;
    }
    b.skip = w.skip;
    b.nskip = w.n;
  }
  b.t = pl_table_new(name);
  b.lenient = lenient;
  if (pl_csv_read_fields(data, len, o, typed_field, typed_end, &b, err) != 0) {
    pl_table_free(b.t);
    free(b.kind);
    free(b.last);
    free(b.skip);
    return NULL;
  }
  free(b.skip);
  free(b.last);
  if (!b.header_done) {
    pl_table_free(b.t);
    pl_err_expected(err, o && o->first_line ? o->first_line : 1, 1, "a CSV header row", NULL, 0);
    return NULL;
  }
  if (b.late) {
    for (size_t i = 0; i < b.ncols; i++)
      if (b.kind[i] == K_LATE) force_str(b.t, (int)i);
    if (pl_csv_read(data, len, o, late_row, &b, err) != 0) {
      pl_table_free(b.t);
      free(b.kind);
      return NULL;
    }
  }
  free(b.kind);
  return b.t;
}

/* ---- the typed table, fast path ------------------------------------------
** The whole input goes to libcsv in large pieces (no per-line feeding, no
** line numbers) and its field callback types and stores each value at once.
** The callback is the hot loop (one call per field): a value of its
** column's kind is converted from libcsv's field buffer in one byte-wise
** pass and stored, with only tail calls (no saved registers); everything
** else (header, empty cells, growth, a change of kind, forms pl_csv_number
** must decide) goes to f_field_slow.  Text is interned through a small
** per-column cache and a local map in front of the pool; columns are sized
** from the input's line density and their pages asked for ahead.  Any
** error (malformed CSV, a record of the wrong length) abandons the fast
** path and the input is read again by slow_table above, which reports it
** with its line and column.  Both give the same table. */

#if defined(__GNUC__)
#define F_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define F_NOINLINE    __attribute__((noinline))
#define F_INLINE      inline __attribute__((always_inline))
#define F_PREFETCH(p) __builtin_prefetch(p)
#else
#define F_INLINE      inline
#define F_UNLIKELY(x) (x)
#define F_NOINLINE
#define F_PREFETCH(p) ((void)(p))
#endif

typedef struct fcache {
  const char *s;
  uint32_t n, id;
  uint64_t key;
} fcache;
typedef struct fmiss {
  uint32_t looks, news;
  int direct;
} fmiss; /* a column's map lookups */

/* the hot part of a column, contiguous for all columns (refreshed from the
** pl_column whenever that grows or changes type); kind mirrors b->kind */
typedef struct fcol {
  void *v;
  size_t cap;
  int kind;
} fcol;

/* the table's text so far, for the fast path: a pool id by the text's
** full hash, the first 16 bytes kept in the entry (one cache line or less
** per lookup where the pool's own table takes several) */
typedef struct sent {
  uint64_t h;
  uint32_t id, n;
  char s[16];
} sent;
#define SMAP_MAX (1u << 20) /* entries at most; past that it answers, new texts go to the pool only */

/* A text of a column of mostly new values, looked up at the end of its
** record (map, then pool): its map entry and pool slot were asked for when
** the field was read, and have loaded by then.  The text is copied (libcsv
** reuses its buffer). */
#define FPEND_MAX  16
#define FPEND_TEXT 32
typedef struct fpend {
  size_t col, row;
  uint32_t n, tag;
  uint64_t key, h;
  char s[FPEND_TEXT];
} fpend;

typedef struct fbuild {
  fcol *fc;
  size_t nf, row;
  size_t lim; /* ncols once the header is read, 0 before it or after a failure */
  pl_table *t;
  struct csv_parser *cp;
  int *kind;
  fcache *cache; /* 8 slots per column */
  fmiss *miss;
  sent *map;
  size_t mapcap, mapn;
  size_t faulted, lastrow; /* prefault: rows whose pages are in, row at the last call */
  int nofault;
  size_t ncols;
  size_t est, mincap; /* rows reserved after the header; least room of the columns */
  int header_done, fail, late;
  fpend pend[FPEND_MAX]; /* direct texts of the record being read (f_pend_flush) */
  size_t npend;
} fbuild;

/* pl_csv_number's common forms (plain integers and decimals, byte loads:
** libcsv has just written the field byte by byte, and a wider load of it
** waits for those stores): the same results, or -2 where pl_csv_number
** must decide. */
static F_INLINE int num_core(const char *s, size_t n, int64_t *iv, double *dv) {
  size_t j = 0;
  int neg = 0;
  if (n && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    j = 1;
  }
  /* digits [. digits] [e[+-]digits]: up to 15 digits in all, exact as in pl_csv_number */
  uint64_t m = 0;
  size_t i = j, digits = 0, frac = 0;
  unsigned d;
  while (i < n && (d = (unsigned)(unsigned char)s[i] - '0') < 10) {
    m = m * 10 + d;
    i++;
  }
  digits = i - j;
  if (i < n && s[i] == '.') {
    size_t f0 = ++i;
    while (i < n && (d = (unsigned)(unsigned char)s[i] - '0') < 10) {
      m = m * 10 + d;
      i++;
    }
    frac = i - f0;
    digits += frac;
  } else if (i == n && digits > 0 && digits <= 18) {
    *iv = neg ? -(int64_t)m : (int64_t)m;
    return 1;
  }
  if (digits == 0 || digits > 15) return -2;
  int ex = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    int eneg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) {
      eneg = s[i] == '-';
      i++;
    }
    size_t e0 = i;
    while (i < n && s[i] >= '0' && s[i] <= '9' && ex < 1000) {
      ex = ex * 10 + (s[i] - '0');
      i++;
    }
    if (i == e0) return 0;
    if (eneg) ex = -ex;
  }
  if (i != n) return -2;
  int net = ex - (int)frac;
  if (net < -22 || net > 22) return -2;
  double v = (double)m;
  v = net < 0 ? v / p10[-net] : v * p10[net];
  *dv = neg ? -v : v;
  return 2;
}

/* num_core for a field that libcsv has ended with a NUL (CSV_APPEND_NULL):
** the NUL stops every digit loop, so a loop tests one byte per digit; a NUL
** inside the field stops it early and the form is then not taken. */
static F_INLINE int num_core_z(const char *s, size_t n, int64_t *iv, double *dv) {
  const unsigned char *u = (const unsigned char *)s;
  int neg = u[0] == '-';
  size_t j = neg || u[0] == '+', i = j, frac = 0;
  uint64_t m = 0;
  unsigned d;
  while ((d = (unsigned)u[i] - '0') < 10) {
    m = m * 10 + d;
    i++;
  }
  size_t digits = i - j;
  if (u[i] == '.') {
    size_t f0 = ++i;
    while ((d = (unsigned)u[i] - '0') < 10) {
      m = m * 10 + d;
      i++;
    }
    frac = i - f0;
    digits += frac;
  } else if (i == n && digits - 1 < 18) {
    *iv = neg ? -(int64_t)m : (int64_t)m;
    return 1;
  }
  if (digits - 1 >= 15) return -2; /* none, or more than 15 */
  int ex = 0;
  if ((u[i] | 0x20) == 'e') {
    i++;
    int eneg = u[i] == '-';
    if (eneg || u[i] == '+') i++;
    size_t e0 = i;
    while ((d = (unsigned)u[i] - '0') < 10 && ex < 1000) {
      ex = ex * 10 + (int)d;
      i++;
    }
    if (i == e0) return i == n ? 0 : -2;
    if (eneg) ex = -ex;
  }
  if (i != n) return -2;
  int net = ex - (int)frac;
  if (net < -22 || net > 22) return -2;
  double v = (double)(int64_t)m; /* m < 10^15: the same value */
  v = net < 0 ? v / p10[-net] : v * p10[net];
  *dv = neg ? -v : v;
  return 2;
}

static inline int fast_number(const char *s, size_t n, int64_t *iv, double *dv) {
  int got = num_core(s, n, iv, dv);
  return got == -2 ? pl_csv_number(s, n, iv, dv) : got;
}

static uint64_t text_hash(const char *s, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n, w;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, s + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  if (i < n) {
    w = 0;
    for (size_t k = 0; i + k < n; k++) w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  }
  return h ^ (h >> 29);
}

static void smap_grow(fbuild *b) {
  size_t nc = b->mapcap ? b->mapcap * 2 : 1024;
  sent *m = pl_xcalloc(nc, sizeof *m);
  for (size_t i = 0; i < b->mapcap; i++) {
    sent *e = &b->map[i];
    if (!e->id) continue;
    size_t j = e->h & (nc - 1);
    while (m[j].id) j = (j + 1) & (nc - 1);
    m[j] = *e;
  }
  free(b->map);
  b->map = m;
  b->mapcap = nc;
}

/* The map's entry for s[0..n) (hash h): the text's, or the empty one where
** it goes; NULL when the map is full (SMAP_MAX) and the text not in it. */
static sent *map_slot(fbuild *b, uint64_t h, const char *s, size_t n) {
  if (b->mapn * 2 >= b->mapcap) {
    if (b->mapcap < SMAP_MAX) smap_grow(b);
  }
  size_t mask = b->mapcap - 1, i = h & mask;
  for (;;) {
    sent *e = &b->map[i];
    if (!e->id) return b->mapn * 2 >= b->mapcap ? NULL : e;
    if (e->h == h && e->n == n) {
      const char *t = n <= sizeof e->s ? e->s : pl_pool_str(b->t->pool, e->id, NULL);
      if (memcmp(t, s, n) == 0) return e;
    }
    i = (i + 1) & mask;
  }
}

/* s[0..n)'s pool id through the map; q, where given, holds the text's pool
** key already computed (and its slot prefetched) */
static uint32_t map_intern(fbuild *b, const char *s, size_t n, uint64_t h, const fpend *q, int *isnew) {
  sent *e = map_slot(b, h, s, n);
  if (e && e->id) return e->id;
  uint32_t id = q ? pl_pool_intern_key(b->t->pool, s, n, q->tag, q->key) : pl_pool_intern(b->t->pool, s, n);
  if (e) {
    e->h = h;
    e->id = id;
    e->n = (uint32_t)n;
    if (n <= sizeof e->s) memcpy(e->s, s, n);
    b->mapn++;
    *isnew = 1;
  }
  return id;
}

static uint32_t cached_intern(fbuild *b, size_t col, const char *s, size_t n) {
  uint64_t key = (uint64_t)n * 0x9E3779B97F4A7C15ull, w;
  if (n >= 8) {
    memcpy(&w, s, 8);
    key ^= w * 0xff51afd7ed558ccdull;
    memcpy(&w, s + n - 8, 8);
    key ^= w * 0xc4ceb9fe1a85ec53ull;
    if (n >= 24) {
      memcpy(&w, s + n / 2, 8);
      key ^= w * 0x94d049bb133111ebull;
    }
  } else {
    w = 0;
    memcpy(&w, s, n);
    key ^= w * 0xff51afd7ed558ccdull;
  }
  key ^= key >> 31;
  fcache *c = &b->cache[col * 8 + (key & 7)];
  if (c->id && c->key == key && c->n == n && memcmp(c->s, s, n) == 0) return c->id;
  /* a column whose text is mostly new (a grid shape, an id) skips the
  ** column cache and waits for the record's end (f_pend_flush), with its
  ** map entry and pool slot prefetched: a lookup then finds them loaded */
  uint32_t id;
  fmiss *ms = &b->miss[col];
  if (ms->direct) {
    if (n <= FPEND_TEXT && b->npend < FPEND_MAX && b->header_done) {
      /* interned at the record's end (f_pend_flush): 0 until then */
      fpend *q = &b->pend[b->npend++];
      q->col = col;
      q->row = b->row;
      q->n = (uint32_t)n;
      memcpy(q->s, s, n);
      q->tag = pl_pool_key(s, n, &q->key);
      q->h = text_hash(s, n);
      pl_pool_prefetch_tag(b->t->pool, q->tag);
      if (b->mapcap) F_PREFETCH(&b->map[q->h & (b->mapcap - 1)]);
      return 0;
    }
    id = pl_pool_intern(b->t->pool, s, n);
  } else {
    int isnew = 0;
    id = map_intern(b, s, n, text_hash(s, n), NULL, &isnew);
    ms->news += (uint32_t)isnew;
    if (++ms->looks == 1024) {
      if (ms->news > 512) ms->direct = 1;
      ms->looks = ms->news = 0;
    }
  }
  c->id = id;
  c->key = key;
  c->n = (uint32_t)n;
  c->s = pl_pool_str(b->t->pool, id, NULL);
  return id;
}

/* The direct texts of the record just read, looked up in the map and
** interned in the pool (their entries asked for when each was read) and put
** in their cells.  The column caches do not learn them: these columns hold
** mostly new texts. */
static void f_pend_flush(fbuild *b) {
  for (size_t k = 0; k < b->npend; k++) {
    fpend *q = &b->pend[k];
    int isnew = 0;
    b->t->cols[q->col]->v.str[q->row] = map_intern(b, q->s, q->n, q->h, q, &isnew);
  }
  b->npend = 0;
}

static void f_refresh(fbuild *b, size_t i) {
  pl_column *c = b->t->cols[i];
  b->fc[i].v = c->v.any;
  b->fc[i].cap = c->cap;
  b->fc[i].kind = b->kind[i];
}

/* Everything but a value of a column's own kind: the header, a record too
** long, room to grow, an empty field, a change of kind. */
static void f_field_slow(fbuild *b, size_t i, const char *s, size_t n, int got, int64_t iv, double dv) {
  if (!b->header_done) {
    unique_name(b->t, s ? s : "", n, i);
    return;
  }
  if (b->fail || i >= b->ncols) {
    b->fail = 1;
    b->lim = 0;
    return;
  }
  size_t row = b->row;
  pl_table *t = b->t;
  pl_column *c = t->cols[i];
  if (row >= b->fc[i].cap) {
    col_room(c, row);
    f_refresh(b, i);
  }
  int k = b->kind[i];
  if (n == 0) {
    switch (c->type) {
      case PL_NUM: c->v.num[row] = NAN; break;
      case PL_STR: c->v.str[row] = 0; break;
      default: c->v.i64[row] = PL_INT_NA; break;
    }
    return;
  }
  if (k == K_STR) {
    c->v.str[row] = cached_intern(b, i, s, n);
    return;
  }
  if (k == K_LATE) {
    c->v.str[row] = 0;
    return;
  }
  if (got < 0) got = fast_number(s, n, &iv, &dv);
  if (got == 1) {
    if (k == K_NUM) c->v.num[row] = (double)iv;
    else {
      if (k == K_NONE) {
        b->kind[i] = K_INT;
        f_refresh(b, i);
      }
      c->v.i64[row] = iv;
    }
  } else if (got == 2) {
    if (k != K_NUM) {
      c->len = row;
      pl_table_retype(t, (int)i, PL_NUM);
      b->kind[i] = K_NUM;
      c = t->cols[i];
      col_room(c, row);
    }
    c->v.num[row] = dv;
  } else if (k == K_NONE) {
    force_str(t, (int)i);
    b->kind[i] = K_STR;
    c = t->cols[i];
    c->v.str[row] = cached_intern(b, i, s, n);
  } else {
    force_str(t, (int)i);
    b->kind[i] = K_LATE;
    b->late = 1;
  }
  f_refresh(b, i);
}

/* a text value (a call of its own so that f_field only makes tail calls
** and needs no saved registers) */
static F_NOINLINE void str_field(fbuild *b, fcol *f, size_t row, size_t i, const char *s, size_t n) {
  ((uint32_t *)f->v)[row] = cached_intern(b, i, s, n);
}

/* f_field_slow for the field just counted (fewer values live in f_field) */
static F_NOINLINE void f_slow(fbuild *b, const char *s, size_t n) { f_field_slow(b, b->nf - 1, s, n, -1, 0, 0); }

static void f_field(void *field, size_t n, void *ud) {
  fbuild *b = ud;
  size_t i = b->nf++;
  const char *s = field;
  /* lim is 0 before the header, after a failure, and on a row some column
  ** has no room for */
  if (F_UNLIKELY(i >= b->lim)) {
    f_slow(b, s, n);
    return;
  }
  fcol *f = &b->fc[i];
  int k = f->kind;
  if (k == K_NUM || k == K_INT) {
    int64_t iv = 0;
    double dv = 0;
    int got = num_core_z(s, n, &iv, &dv);
    if (got == 2 && k == K_NUM) ((double *)f->v)[b->row] = dv;
    else if (got == 1 && k == K_INT) ((int64_t *)f->v)[b->row] = iv;
    else if (got == 1 && k == K_NUM) ((double *)f->v)[b->row] = (double)iv;
    else f_slow(b, s, n);
    return;
  }
  if (k == K_STR && n) {
    str_field(b, f, b->row, i, s, n);
    return;
  }
  if (k == K_LATE && n) {
    ((uint32_t *)f->v)[b->row] = 0;
    return;
  }
  f_slow(b, s, n);
}

/* lim for the row about to be read: ncols where every column has room for
** it, else 0 (f_field_slow grows the columns) */
static void f_limit(fbuild *b) {
  if (b->row < b->mincap) {
    b->lim = b->ncols;
    return;
  }
  size_t mc = SIZE_MAX;
  for (size_t i = 0; i < b->ncols; i++)
    if (b->fc[i].cap < mc) mc = b->fc[i].cap;
  b->mincap = mc;
  b->lim = b->row < mc ? b->ncols : 0;
}

/* The builder's column state once the header's b->nf columns are known.
** kind0, where given (a piece read on a worker): the kinds the main
** reader's columns had when the pieces began; its text columns (K_STR,
** K_LATE) stay text, so the piece's texts are kept for the merge. */
static void f_begin(fbuild *b, const int *kind0) {
  size_t n = b->nf ? b->nf : 1;
  b->header_done = 1;
  b->ncols = b->nf;
  b->kind = pl_xcalloc(n, sizeof *b->kind);
  b->cache = pl_xcalloc(n * 8, sizeof *b->cache);
  b->miss = pl_xcalloc(n, sizeof *b->miss);
  b->fc = pl_xcalloc(n, sizeof *b->fc);
  pl_table_reserve(b->t, b->est);
  for (size_t i = 0; i < b->nf; i++) {
    if (kind0 && (kind0[i] == K_STR || kind0[i] == K_LATE)) {
      force_str(b->t, (int)i);
      b->kind[i] = kind0[i];
    }
    f_refresh(b, i);
  }
  b->nf = 0;
  b->mincap = 0;
  f_limit(b);
}

static void f_record(int ch, void *ud) {
  (void)ch;
  fbuild *b = ud;
  if (b->fail) return;
  if (!b->header_done) {
    dedupe_header(b->t);
    f_begin(b, NULL);
    return;
  }
  if (b->nf != b->ncols) {
    b->fail = 1;
    b->lim = 0;
    return;
  }
  if (b->npend) f_pend_flush(b);
  b->row++;
  b->nf = 0;
  if (F_UNLIKELY(b->row >= b->mincap)) f_limit(b);
}

/* The rows just ahead populated (pl_table_populate): a window a little
** ahead of the rows read, within what the columns have reserved. */
static void prefault(fbuild *b) {
  size_t step = b->row - b->lastrow, win = step * 2 > 8192 ? step * 2 : 8192;
  b->lastrow = b->row;
  if (b->nofault || b->row + win / 2 < b->faulted) return;
  size_t from = b->faulted > b->row ? b->faulted : b->row, to = b->row + win;
  if (pl_table_populate(b->t, from, to) != 0) {
    b->nofault = 1;
    return;
  }
  b->faulted = to;
}

/* The builder's work buffers (not its table, not its kinds). */
static void f_free_work(fbuild *b) {
  free(b->cache);
  free(b->map);
  free(b->miss);
  free(b->fc);
  b->cache = NULL;
  b->map = NULL;
  b->miss = NULL;
  b->fc = NULL;
}

/* Feeds s[0..n) to libcsv in pieces of 4 MiB: 0, -1 when the fast path
** must give up (malformed CSV, a record of the wrong length), -2 when
** interrupted.  o (interrupt, progress over data[0..len)): the main
** reader's, NULL on a worker. */
static int f_feed(fbuild *b, struct csv_parser *p, const char *s, size_t n, const pl_csv_opts *o, const char *data,
                  size_t len) {
  size_t chunk = 4u << 20;
  volatile int *intr = o ? o->interrupt : NULL;
  for (size_t off = 0; off < n;) {
    size_t k = n - off < chunk ? n - off : chunk;
    pl_csv_grow_hint(p, k);
    if (csv_parse(p, s + off, k, f_field, f_record, b) != k || b->fail) return -1;
    off += k;
    if (b->header_done) prefault(b);
    if (intr && *intr) return -2;
    if (o && o->progress) o->progress(o->progress_ud, (size_t)(s + off - data), len);
  }
  return 0;
}

/* ---- the typed table on several threads ----------------------------------
** Past the main reader's first piece (pl_csv_opts.chunk_bytes, 4 MiB by
** default, holding the header), the input is cut at guessed offsets.  A
** worker reads piece i from its first line start with a builder of its own
** (own table and string pool, its columns' kinds from the main reader's at
** the start: a text column stays text), up to the first line start at or
** past the next guess where its libcsv parser stands between records.  The
** main thread walks the pieces in file order: it feeds libcsv up to a
** piece's start itself; where its own parser then stands between records
** (a fresh parser reads on from there the same: the line did not sit in a
** quoted field), the piece was read cleanly and its kinds can be combined
** with the main reader's (f_fits), it appends the piece (f_merge) and goes
** on from where the worker stopped; else it reads the piece itself.  The
** merge decides the kinds as the one-thread read would have (an integer
** column meeting decimals becomes decimal, a number column meeting text
** becomes K_LATE and is refilled by the second pass), and interns the
** piece's texts through the main builder's own caches, row by row, in the
** order the one-thread read interns them, so that every string id is that
** read's.  Any error is left to the one-thread reader (slow_table). */
#define F_CHUNK_DEFAULT (4u << 20)

typedef struct fpiece {
  const char *guess, *start, *stop; /* [start, stop): the piece read; start NULL when none */
  int ok;
  fbuild b;
} fpiece;

typedef struct fpar {
  const char *data, *end;
  unsigned char delim;
  size_t ncols;
  int *
      kind0; /* the main reader's text columns (K_STR, K_LATE) so far: written by it, read by the workers, atomically */
  double rows_per_byte; /* of the main reader's first piece: room for a piece's rows */
  fpiece *pc;
  size_t n;
} fpar;

static size_t f_merged, f_reread;
void pl_csv_par_counts(size_t *merged, size_t *reread) {
  *merged = __atomic_load_n(&f_merged, __ATOMIC_RELAXED);
  *reread = __atomic_load_n(&f_reread, __ATOMIC_RELAXED);
}

/* The first line start at or past p. */
static const char *line_from(const char *data, const char *p, const char *end) {
  if (p <= data || p >= end || p[-1] == '\n') return p < end ? p : end;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  return nl ? nl + 1 : end;
}

static void fp_free(fpiece *w) {
  if (w->b.t) pl_table_free(w->b.t);
  free(w->b.kind);
  f_free_work(&w->b);
  memset(&w->b, 0, sizeof w->b);
}

static void fp_read(pl_par *S, void *ud, size_t i) {
  (void)S;
  fpar *P = ud;
  fpiece *w = &P->pc[i];
  const char *end = P->end, *lim = i + 1 < P->n ? P->pc[i + 1].guess : end;
  const char *q = line_from(P->data, w->guess, end);
  if (q >= lim) return;
  const char *to = line_from(P->data, lim, end);
  struct csv_parser p;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) return;
  csv_set_delim(&p, P->delim);
  w->start = q;
  fbuild *b = &w->b;
  b->t = pl_table_new("csv");
  for (size_t c = 0; c < P->ncols; c++) pl_table_append_col(b->t, "c", PL_INT);
  b->nf = P->ncols;
  b->est = (size_t)((double)(to - q) * P->rows_per_byte * 1.1) + 64;
  int *kind0 = pl_xmalloc((P->ncols ? P->ncols : 1) * sizeof *kind0);
  for (size_t c = 0; c < P->ncols; c++) kind0[c] = __atomic_load_n(&P->kind0[c], __ATOMIC_RELAXED);
  f_begin(b, kind0);
  free(kind0);
  int r = f_feed(b, &p, q, (size_t)(to - q), NULL, NULL, 0);
  /* on to the first line start where the parser stands between records */
  const char *at = to;
  while (r == 0 && p.pstate != 0 && at < end) {
    const char *nl = memchr(at, '\n', (size_t)(end - at)), *nx = nl ? nl + 1 : end;
    r = f_feed(b, &p, at, (size_t)(nx - at), NULL, NULL, 0);
    at = nx;
  }
  if (r == 0 && at == end && (csv_fini(&p, f_field, f_record, b) != 0 || b->fail)) r = -1;
  csv_free(&p);
  f_free_work(b);
  w->stop = at;
  w->ok = r == 0;
  if (!w->ok) fp_free(w);
}

/* Can the piece's kinds be combined with the main reader's as the
** one-thread read would have: not where a text column meets numbers (their
** text as written was not kept)? */
static int f_fits(const fbuild *m, const fbuild *w) {
  for (size_t i = 0; i < m->ncols; i++)
    if (m->kind[i] == K_STR && (w->kind[i] == K_INT || w->kind[i] == K_NUM || w->kind[i] == K_LATE)) return 0;
  return 1;
}

/* Appends the rows of the piece w to b (f_fits holds; b between records). */
static void f_merge(fbuild *b, const fbuild *w) {
  size_t n0 = b->row, add = w->row;
  if (add == 0) return;
  pl_table *t = b->t;
  pl_table_reserve(t, n0 + add);
  /* the rows' pages asked for in one call a column (one fault a page costs more) */
  if (!b->nofault && b->faulted < n0 + add && pl_table_populate(t, b->faulted > n0 ? b->faulted : n0, n0 + add) != 0)
    b->nofault = 1;
  size_t *str = pl_xmalloc((b->ncols ? b->ncols : 1) * sizeof *str), nstr = 0;
  for (size_t i = 0; i < b->ncols; i++) {
    int km = b->kind[i], kw = w->kind[i];
    if (km != K_LATE && (kw == K_LATE || (kw == K_STR && (km == K_INT || km == K_NUM)))) {
      /* text after numbers: refilled by the second pass */
      force_str(t, (int)i);
      b->kind[i] = km = K_LATE;
      b->late = 1;
    } else if (km == K_NONE && kw == K_STR) {
      force_str(t, (int)i);
      b->kind[i] = km = K_STR;
    } else if (kw == K_NUM && (km == K_NONE || km == K_INT)) {
      t->cols[i]->len = n0;
      pl_table_retype(t, (int)i, PL_NUM);
      b->kind[i] = km = K_NUM;
      pl_column_reserve(t->cols[i], n0 + add);
    } else if (kw == K_INT && km == K_NONE) b->kind[i] = km = K_INT;
    pl_column *c = t->cols[i];
    const pl_column *s = w->t->cols[i];
    if (km == K_LATE || km == K_STR) {
      memset(c->v.str + n0, 0, add * sizeof *c->v.str);
      if (km == K_STR && kw == K_STR) str[nstr++] = i;
    } else if (kw == K_NONE) {
      for (size_t r = 0; r < add; r++)
        if (km == K_NUM) c->v.num[n0 + r] = NAN;
        else c->v.i64[n0 + r] = PL_INT_NA;
    } else if (km == K_NUM && kw == K_INT) {
      for (size_t r = 0; r < add; r++) c->v.num[n0 + r] = s->v.i64[r] == PL_INT_NA ? NAN : (double)s->v.i64[r];
    } else memcpy(c->v.i64 + n0, s->v.i64, add * sizeof *c->v.i64); /* the same kind, 8 bytes a cell */
  }
  /* the texts, interned as the one-thread read interns them */
  for (size_t r = 0; r < add && nstr; r++) {
    b->row = n0 + r;
    for (size_t k = 0; k < nstr; k++) {
      size_t i = str[k], n;
      uint32_t id = w->t->cols[i]->v.str[r];
      if (!id) continue;
      const char *s = pl_pool_str(w->t->pool, id, &n);
      t->cols[i]->v.str[n0 + r] = cached_intern(b, i, s, n);
    }
    if (b->npend) f_pend_flush(b);
  }
  free(str);
  b->row = n0 + add;
  b->lastrow = b->row;
  if (b->faulted < b->row) b->faulted = b->row;
  for (size_t i = 0; i < b->ncols; i++) f_refresh(b, i);
  b->mincap = 0;
  f_limit(b);
}

/* How many of b's columns are text (K_STR, K_LATE). */
static int f_text_cols(const fbuild *b) {
  int n = 0;
  for (size_t c = 0; c < b->ncols; c++) n += b->kind[c] == K_STR || b->kind[c] == K_LATE;
  return n;
}

/* Reads data[from, len) on jobs threads (see above): f_feed's codes. */
static int f_par(fbuild *b, struct csv_parser *p, const char *data, size_t len, size_t from, int jobs, size_t chunk,
                 const pl_csv_opts *o) {
  fpar P;
  memset(&P, 0, sizeof P);
  P.data = data;
  P.end = data + len;
  P.delim = (o && o->delim) ? o->delim : ',';
  P.ncols = b->ncols;
  int *kind0 = pl_xmalloc((b->ncols ? b->ncols : 1) * sizeof *kind0);
  memcpy(kind0, b->kind, b->ncols * sizeof *kind0);
  P.kind0 = kind0;
  int ntext = f_text_cols(b);
  P.rows_per_byte = (double)b->row / (double)from;
  P.n = (len - from + chunk - 1) / chunk + 1; /* piece 0: the main reader's [0, from) */
  P.pc = pl_xcalloc(P.n, sizeof *P.pc);
  for (size_t i = 1; i < P.n; i++) P.pc[i].guess = data + from + (i - 1) * chunk;
  pl_par *S = pl_par_start(P.n, jobs, fp_read, &P);
  const char *pos = data + from;
  volatile int *intr = o ? o->interrupt : NULL;
  int r = 0;
  for (size_t i = 1; i < P.n && r == 0; i++) {
    pl_par_wait(S, i);
    fpiece *w = &P.pc[i];
    if (w->start && w->start >= pos) {
      r = f_feed(b, p, pos, (size_t)(w->start - pos), o, data, len);
      pos = w->start;
      if (r == 0 && w->ok && p->pstate == 0 && f_fits(b, &w->b)) {
        f_merge(b, &w->b);
        pos = w->stop;
        __atomic_add_fetch(&f_merged, 1, __ATOMIC_RELAXED);
        if (intr && *intr) r = -2;
        else if (o && o->progress) o->progress(o->progress_ud, (size_t)(pos - data), len);
      } else __atomic_add_fetch(&f_reread, 1, __ATOMIC_RELAXED);
    } else __atomic_add_fetch(&f_reread, 1, __ATOMIC_RELAXED);
    fp_free(w);
    /* a column the main reader now reads as text: later pieces keep its texts */
    if (f_text_cols(b) != ntext) {
      ntext = f_text_cols(b);
      for (size_t c = 0; c < b->ncols; c++)
        if (b->kind[c] == K_STR || b->kind[c] == K_LATE) __atomic_store_n(&kind0[c], b->kind[c], __ATOMIC_RELAXED);
    }
    pl_par_done(S, i);
  }
  pl_par_stop(S);
  for (size_t i = 1; i < P.n; i++) fp_free(&P.pc[i]);
  free(P.pc);
  free(kind0);
  if (r == 0) r = f_feed(b, p, pos, (size_t)(P.end - pos), o, data, len);
  return r;
}

/* NULL with *redo = 1 when the slow path must read the input (an error to
** report with its position); NULL with *redo = 0 and err set when stopped. */
static pl_table *fast_table(const char *data, size_t len, const char *name, const pl_csv_opts *o, pl_err *err,
                            int *redo) {
  *redo = 1;
  struct csv_parser p;
  /* CSV_APPEND_NULL: every field ends with a NUL for num_core_z */
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) return NULL;
  csv_set_delim(&p, (o && o->delim) ? o->delim : ',');
  fbuild b;
  memset(&b, 0, sizeof b);
  b.t = pl_table_new(name);
  b.cp = &p;
  /* expected rows from the line density of the first 256 KiB */
  size_t sample = len < (256u << 10) ? len : (256u << 10), nl = 0;
  for (const char *q = data, *e = data + sample; (q = memchr(q, '\n', (size_t)(e - q))); q++) nl++;
  size_t est = sample ? (size_t)((double)len / (double)sample * (double)(nl + 1) * 1.05) + 16 : 16;
  b.est = est;
  int jobs = o && o->jobs > 1 ? o->jobs : 1;
  size_t chunk = o && o->chunk_bytes ? o->chunk_bytes : F_CHUNK_DEFAULT;
  size_t first = jobs >= 2 && len / 2 >= chunk ? chunk : len;
  int r = f_feed(&b, &p, data, first, o, data, len);
  if (r == 0 && first < len) {
    /* the header read: the rest on several threads */
    if (b.header_done && b.row > 0) r = f_par(&b, &p, data, len, first, jobs, chunk, o);
    else r = f_feed(&b, &p, data + first, len - first, o, data, len);
  }
  if (r == -2) {
    csv_free(&p);
    pl_table_free(b.t);
    free(b.kind);
    f_free_work(&b);
    *redo = 0;
    pl_err_set(err, 0, 0, "interrupted");
    return NULL;
  }
  if (r != 0) goto redo;
  if (csv_fini(&p, f_field, f_record, &b) != 0 || b.fail || !b.header_done) goto redo;
  csv_free(&p);
  f_free_work(&b);
  for (size_t i = 0; i < b.ncols; i++) b.t->cols[i]->len = b.row;
  b.t->nrows = b.row;
  if (b.late) {
    tbuild tb;
    memset(&tb, 0, sizeof tb);
    tb.t = b.t;
    tb.kind = b.kind;
    tb.ncols = b.ncols;
    for (size_t i = 0; i < b.ncols; i++)
      if (b.kind[i] == K_LATE) force_str(b.t, (int)i);
    if (pl_csv_read(data, len, o, late_row, &tb, err) != 0) {
      pl_table_free(b.t);
      free(b.kind);
      *redo = 0;
      return NULL;
    }
  }
  free(b.kind);
  *redo = 0;
  return b.t;
redo:
  csv_free(&p);
  pl_table_free(b.t);
  free(b.kind);
  f_free_work(&b);
  return NULL;
}

pl_table *pl_csv_table(const char *data, size_t len, const char *name, const pl_csv_opts *o, pl_err *err) {
  int redo;
  pl_table *t = fast_table(data, len, name, o, err, &redo);
  if (t || !redo) return t;
  return slow_table(data, len, name, o, NULL, err);
}

pl_table *pl_csv_table_lenient(const char *data, size_t len, const char *name, const pl_csv_opts *o,
                               pl_profile *lenient, pl_err *err) {
  /* the fast path has no per-record recovery: lenient loads take the
  ** line-tracking reader */
  if (lenient == NULL) return pl_csv_table(data, len, name, o, err);
  return slow_table(data, len, name, o, lenient, err);
}

pl_csv_opts pl_csv_opts_whole(const pl_parse_opts *o) {
  pl_csv_opts co = { ',',
                     1,
                     o ? o->interrupt : NULL,
                     o ? o->progress : NULL,
                     o ? o->progress_ud : NULL,
                     pl_par_jobs(o),
                     o ? o->chunk_bytes : 0 };
  return co;
}

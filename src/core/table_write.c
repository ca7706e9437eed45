/*
** table_write.c -- tables out: CSV (RFC 4180), JSON (array of row objects,
** numbers that read back exactly), and the human layouts (aligned text and
** Markdown) with row limits and cell widths counted in UTF-8 characters.
*/
#include "table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void csv_field(pl_buf *o, const char *s, size_t n) {
  int quote = 0;
  for (size_t i = 0; i < n; i++)
    if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') {
      quote = 1;
      break;
    }
  if (n > 0 && (s[0] == ' ' || s[n - 1] == ' ')) quote = 1;
  if (!quote) {
    pl_buf_add(o, s, n);
    return;
  }
  pl_buf_addc(o, '"');
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') pl_buf_addc(o, '"');
    pl_buf_addc(o, s[i]);
  }
  pl_buf_addc(o, '"');
}

void pl_table_write_csv(const pl_table *t, pl_buf *o) {
  char tmp[64];
  for (size_t j = 0; j < t->ncols; j++) {
    if (j) pl_buf_addc(o, ',');
    csv_field(o, t->cols[j]->name, strlen(t->cols[j]->name));
  }
  pl_buf_addc(o, '\n');
  for (size_t i = 0; i < t->nrows; i++) {
    for (size_t j = 0; j < t->ncols; j++) {
      if (j) pl_buf_addc(o, ',');
      const pl_column *c = t->cols[j];
      if (pl_cell_missing(t, (int)j, i)) continue;
      if (c->type == PL_STR) {
        size_t n;
        const char *s = pl_pool_str(t->pool, c->v.str[i], &n);
        csv_field(o, s, n);
      } else {
        int n = pl_cell_text(t, (int)j, i, tmp, sizeof tmp);
        pl_buf_add(o, tmp, (size_t)n);
      }
    }
    pl_buf_addc(o, '\n');
  }
}

static void json_string(pl_buf *o, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  pl_buf_reserve(o, n + 2);
  pl_buf_addc(o, '"');
  for (size_t i = 0; i < n; i++) {
    /* a run of characters that need no escape, copied at once */
    size_t j = i;
    while (j < n && (unsigned char)s[j] >= 0x20 && s[j] != '"' && s[j] != '\\' && s[j] != 0x7f) j++;
    if (j > i) {
      pl_buf_add(o, s + i, j - i);
      i = j;
      if (i == n) break;
    }
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"': pl_buf_add(o, "\\\"", 2); break;
      case '\\': pl_buf_add(o, "\\\\", 2); break;
      case '\n': pl_buf_add(o, "\\n", 2); break;
      case '\r': pl_buf_add(o, "\\r", 2); break;
      case '\t': pl_buf_add(o, "\\t", 2); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
          pl_buf_add(o, e, 6);
        } else pl_buf_addc(o, (char)c);
    }
  }
  pl_buf_addc(o, '"');
}

/* a number's JSON text, cached by its bits (NCACHE entries per column) */
#define NCACHE 256
typedef struct numcache {
  uint64_t bits;
  unsigned char used, len;
  char text[40];
} numcache;

/* the decimal digits of v (as "%lld" prints them) into out; the length */
static int fmt_i64(char *out, int64_t v) {
  char b[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    b[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) b[n++] = '-';
  for (int k = 0; k < n; k++) out[k] = b[n - 1 - k];
  return n;
}

void pl_table_write_json(const pl_table *t, pl_buf *o) { pl_table_write_json_indent(t, o, " ", ""); }

void pl_table_write_json_indent(const pl_table *t, pl_buf *o, const char *row_indent, const char *close_indent) {
  (void)pl_table_write_json_sink(t, o, row_indent, close_indent, NULL, NULL);
}

/* As pl_table_write_json_indent; with a sink, o is handed to it (and
** emptied) whenever it holds PL_JSON_SINK_CHUNK bytes or more after a row,
** and at the end: the text of a large table is never held whole.  Returns
** 0, or the first nonzero value the sink returned (writing stops there). */
#define PL_JSON_SINK_CHUNK (1u << 20)
int pl_table_write_json_sink(const pl_table *t, pl_buf *o, const char *row_indent, const char *close_indent,
                             int (*sink)(void *ctx, const char *data, size_t n), void *ctx) {
  int st = 0;
  char tmp[64];
  size_t nri = strlen(row_indent);
  /* each column's key, written once: ", "NAME":" (the first without ", ") */
  pl_buf keys;
  pl_buf_init(&keys);
  size_t *kat = pl_xmalloc((t->ncols + 1) * sizeof *kat);
  for (size_t j = 0; j < t->ncols; j++) {
    kat[j] = keys.len;
    if (j) pl_buf_add(&keys, ", ", 2);
    json_string(&keys, t->cols[j]->name, strlen(t->cols[j]->name));
    pl_buf_addc(&keys, ':');
  }
  kat[t->ncols] = keys.len;
  numcache *cache = pl_xcalloc((t->ncols ? t->ncols : 1) * NCACHE, sizeof *cache);
  pl_buf_addc(o, '[');
  size_t start = o->len;
  /* room for a row but its strings: the keys, the indent, and at most 40
  ** bytes a value (an int64 is 20, a shortest double 24); a string cell
  ** reserves its own, then the row's room is asked for again */
  size_t rowroom = nri + 8 + keys.len + t->ncols * 40;
#define PUT(src, n)                                                                                                    \
  do {                                                                                                                 \
    size_t n_ = (n);                                                                                                   \
    memcpy(o->data + o->len, (src), n_);                                                                               \
    o->len += n_;                                                                                                      \
  } while (0)
  for (size_t i = 0; i < t->nrows; i++) {
    /* after the first rows, room for all at their mean size (and a tenth
    ** more): one allocation instead of a copy at each doubling */
    if (!sink && i == 1024 && t->nrows > 2048) pl_buf_reserve(o, (o->len - start) / 1024 * (t->nrows - 1024) / 10 * 11);
    pl_buf_reserve(o, rowroom);
    PUT(i ? ",\n" : "\n", i ? 2 : 1);
    PUT(row_indent, nri);
    PUT("{", 1);
    for (size_t j = 0; j < t->ncols; j++) {
      const pl_column *c = t->cols[j];
      PUT(keys.data + kat[j], kat[j + 1] - kat[j]);
      /* integers (and integral doubles below 1e15, which print as their
      ** digits) without printf: most cells of a large table */
      if (c->type == PL_INT ||
          (c->type == PL_NUM && c->v.num[i] == floor(c->v.num[i]) && fabs(c->v.num[i]) < 1e15 && c->v.num[i] != 0)) {
        int64_t v = c->type == PL_INT ? c->v.i64[i] : (int64_t)c->v.num[i];
        if (v == PL_INT_NA) {
          PUT("null", 4);
          continue;
        }
        o->len += (size_t)fmt_i64(o->data + o->len, v);
        continue;
      }
      if (pl_cell_missing(t, (int)j, i)) {
        PUT("null", 4);
        continue;
      }
      if (c->type == PL_STR) {
        size_t n;
        const char *s = pl_pool_str(t->pool, c->v.str[i], &n);
        json_string(o, s, n);
        pl_buf_reserve(o, rowroom);
      } else if (c->type == PL_NUM && isinf(c->v.num[i])) {
        PUT("null", 4);
      } else if (c->type == PL_NUM) {
        /* the shortest round-trip text (printf and strtod: slow), once per
        ** value in a small cache per column: a table repeats its values */
        uint64_t bits;
        memcpy(&bits, &c->v.num[i], sizeof bits);
        numcache *e = &cache[j * NCACHE + (size_t)((bits * 0x9E3779B97F4A7C15ull) >> 56)];
        if (!e->used || e->bits != bits) {
          e->used = 1;
          e->bits = bits;
          e->len = (unsigned char)pl_cell_text(t, (int)j, i, e->text, sizeof e->text);
        }
        PUT(e->text, e->len);
      } else {
        int n = pl_cell_text(t, (int)j, i, tmp, sizeof tmp);
        PUT(tmp, (size_t)n);
      }
    }
    PUT("}", 1);
    o->data[o->len] = '\0';
    if (sink && o->len >= PL_JSON_SINK_CHUNK) {
      st = sink(ctx, o->data, o->len);
      o->len = 0;
      if (st) break;
    }
  }
#undef PUT
  if (!st) {
    if (t->nrows) {
      pl_buf_addc(o, '\n');
      pl_buf_adds(o, close_indent);
    }
    pl_buf_addc(o, ']');
    if (sink) {
      st = sink(ctx, o->data, o->len);
      o->len = 0;
    }
  }
  pl_buf_free(&keys);
  free(kat);
  free(cache);
  return st;
}

int pl_fmt_human(char *out, size_t outsz, double v, int digits) {
  if (isnan(v)) return snprintf(out, outsz, "%s", "");
  if (isinf(v)) return snprintf(out, outsz, v > 0 ? "inf" : "-inf");
  if (v == floor(v) && fabs(v) < 1e15) return snprintf(out, outsz, "%.0f", v == 0 ? 0.0 : v);
  if (digits <= 0) digits = 6;
  double a = fabs(v);
  if (a >= 1e-4 && a < 1e15) {
    /* fixed notation with `digits` significant digits, trailing zeros dropped */
    int mag = (int)floor(log10(a)) + 1;
    int dec = digits - mag;
    if (dec < 0) dec = 0;
    if (dec > 12) dec = 12;
    int n = snprintf(out, outsz, "%.*f", dec, v);
    if (dec > 0 && n > 0 && (size_t)n < outsz) {
      while (n > 1 && out[n - 1] == '0') out[--n] = '\0';
      if (out[n - 1] == '.') out[--n] = '\0';
    }
    return n;
  }
  return snprintf(out, outsz, "%.*g", digits, v);
}

/* Width in characters of UTF-8 text (continuation bytes do not count). */
static size_t utf8_width(const char *s, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) w++;
  return w;
}

/* Byte length of the first `chars` characters. */
static size_t utf8_prefix(const char *s, size_t n, size_t chars) {
  size_t i = 0, w = 0;
  while (i < n) {
    if (((unsigned char)s[i] & 0xC0) != 0x80) {
      if (w == chars) break;
      w++;
    }
    i++;
  }
  return i;
}

typedef struct cell {
  char *s;
  size_t n, w;
} cell;

static void md_escape(pl_buf *o, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '|') pl_buf_addc(o, '\\');
    if (s[i] == '\n' || s[i] == '\r') {
      pl_buf_addc(o, ' ');
      continue;
    }
    pl_buf_addc(o, s[i]);
  }
}

void pl_table_format(const pl_table *t, const pl_fmtopts *opt, pl_buf *o) {
  pl_fmtopts d = { 0, 0, 0, 6 };
  if (opt == NULL) opt = &d;
  size_t nr = t->nrows, nc = t->ncols;
  if (opt->max_rows && nr > opt->max_rows) nr = opt->max_rows;
  cell *cells = pl_xcalloc((nr + 1) * (nc ? nc : 1), sizeof *cells);
  size_t *w = pl_xcalloc(nc ? nc : 1, sizeof *w);
  char tmp[96];
  for (size_t j = 0; j < nc; j++) {
    cell *c = &cells[j];
    c->s = pl_xstrdup(t->cols[j]->name);
    c->n = strlen(c->s);
  }
  for (size_t i = 0; i < nr; i++) {
    for (size_t j = 0; j < nc; j++) {
      cell *c = &cells[(i + 1) * nc + j];
      const pl_column *col = t->cols[j];
      if (pl_cell_missing(t, (int)j, i)) {
        c->s = pl_xstrdup(opt->markdown ? "" : "-");
        c->n = strlen(c->s);
        continue;
      }
      if (col->type == PL_STR) {
        size_t n;
        const char *s = pl_pool_str(t->pool, col->v.str[i], &n);
        c->s = pl_xstrndup(s, n);
        c->n = n;
      } else if (col->type == PL_NUM) {
        int n = pl_fmt_human(tmp, sizeof tmp, col->v.num[i], opt->digits);
        c->s = pl_xstrndup(tmp, (size_t)n);
        c->n = (size_t)n;
      } else {
        int n = pl_cell_text(t, (int)j, i, tmp, sizeof tmp);
        c->s = pl_xstrndup(tmp, (size_t)n);
        c->n = (size_t)n;
      }
    }
  }
  for (size_t k = 0; k < (nr + 1) * nc; k++) {
    cell *c = &cells[k];
    for (size_t b = 0; b < c->n; b++)
      if (c->s[b] == '\n' || c->s[b] == '\t' || c->s[b] == '\r') c->s[b] = ' ';
    if (opt->markdown && memchr(c->s, '|', c->n)) {
      pl_buf e;
      pl_buf_init(&e);
      md_escape(&e, c->s, c->n);
      free(c->s);
      c->s = e.data;
      c->n = e.len;
    }
    c->w = utf8_width(c->s, c->n);
    /* only text is cut: a cut number would read as another number */
    int cuttable = k < nc || t->cols[k % nc]->type == PL_STR;
    if (cuttable && opt->max_width > 1 && c->w > opt->max_width) {
      size_t keep = utf8_prefix(c->s, c->n, opt->max_width - 1);
      c->s = pl_xrealloc(c->s, keep + 4);
      memcpy(c->s + keep, "\xe2\x80\xa6", 3); /* … */
      c->n = keep + 3;
      c->s[c->n] = '\0';
      c->w = opt->max_width;
    }
    if (c->w > w[k % (nc ? nc : 1)]) w[k % (nc ? nc : 1)] = c->w;
  }
  for (size_t i = 0; i <= nr; i++) {
    if (opt->markdown) pl_buf_add(o, "|", 1);
    for (size_t j = 0; j < nc; j++) {
      cell *c = &cells[i * nc + j];
      int right = t->cols[j]->type != PL_STR;
      size_t pad = w[j] - c->w;
      if (opt->markdown) pl_buf_addc(o, ' ');
      else if (j) pl_buf_add(o, "  ", 2);
      if (right)
        for (size_t p = 0; p < pad; p++) pl_buf_addc(o, ' ');
      pl_buf_add(o, c->s, c->n);
      if (!right && (opt->markdown || j + 1 < nc))
        for (size_t p = 0; p < pad; p++) pl_buf_addc(o, ' ');
      if (opt->markdown) pl_buf_add(o, " |", 2);
    }
    pl_buf_addc(o, '\n');
    if (i == 0) {
      if (opt->markdown) {
        pl_buf_addc(o, '|');
        for (size_t j = 0; j < nc; j++) {
          int right = t->cols[j]->type != PL_STR;
          pl_buf_addc(o, ' ');
          for (size_t p = 0; p + (right ? 1 : 0) < (w[j] < 3 ? 3 : w[j]); p++) pl_buf_addc(o, '-');
          if (right) pl_buf_addc(o, ':');
          pl_buf_add(o, " |", 2);
        }
        pl_buf_addc(o, '\n');
      } else {
        for (size_t j = 0; j < nc; j++) {
          if (j) pl_buf_add(o, "  ", 2);
          for (size_t p = 0; p < w[j]; p++) pl_buf_addc(o, '-');
        }
        pl_buf_addc(o, '\n');
      }
    }
  }
  if (nr < t->nrows)
    pl_buf_printf(o, "%s… %zu more rows (%zu in all)\n", opt->markdown ? "\n" : "", t->nrows - nr, t->nrows);
  for (size_t k = 0; k < (nr + 1) * nc; k++) free(cells[k].s);
  free(cells);
  free(w);
}

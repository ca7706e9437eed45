/*
** fmt_kernel_table.c -- format "kernel-table": a per-kernel latency table,
**
**   Kernel                                   Latency Tensor   DRAM
**   elementwise_kernel_with_index       |       4160   0.00   0.00
**
** one row per kernel launch: NAME | LATENCY TENSOR DRAM.  Latency is in
** nanoseconds; Tensor and DRAM are utilisation fractions 0..1 as the tool
** gives them (kept as given).  A name the tool cut is marked with "...".
** Blank lines are skipped; anything else that is not a row is an error.
*/
#include "format.h"
#include "names.h"
#include "scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_header(const char *s, size_t n) {
  pl_trim(&s, &n);
  if (!pl_starts(s, n, "Kernel")) return 0;
  return pl_find(s, n, "Latency") != NULL && pl_find(s, n, "Tensor") != NULL &&
         pl_find(s, n, "DRAM") != NULL;
}

static int kt_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  int rows = 0, seen = 0;
  while (pl_lines_next(&c, &l) && seen < 20) {
    if (pl_is_blank(l.s, l.n)) continue;
    if (seen == 0 && is_header(l.s, l.n)) return 90;
    seen++;
    const char *bar = memchr(l.s, '|', l.n);
    if (bar && memchr(bar + 1, '|', l.n - (size_t)(bar + 1 - l.s)) == NULL) rows++;
  }
  return rows >= 3 && rows == seen ? 40 : 0;
}

/* Reads the next whitespace-separated token starting at *i. */
static int next_token(const char *s, size_t n, size_t *i, size_t *start, size_t *len) {
  while (*i < n && (s[*i] == ' ' || s[*i] == '\t')) (*i)++;
  if (*i >= n) { *start = *i; *len = 0; return 0; }
  *start = *i;
  while (*i < n && s[*i] != ' ' && s[*i] != '\t') (*i)++;
  *len = *i - *start;
  return 1;
}

/* next_token and pl_parse_double in one pass: 1 with the value when the
** token is a number, 0 when there is no token or it is not a number
** (*start and *len say which). */
static inline int num_token(const char *s, size_t n, size_t *i, size_t *start, size_t *len, double *v) {
  static const double p10[9] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8 };
  size_t k = *i;
  while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
  *start = k;
  uint64_t m = 0;
  size_t dot = 0, nd = 0;
  int plain = 1;
  for (; k < n && s[k] != ' ' && s[k] != '\t'; k++) {
    unsigned d = (unsigned)(unsigned char)s[k] - '0';
    if (d < 10) { m = m * 10 + d; nd++; }
    else if (s[k] == '.' && !dot) dot = k + 1;
    else plain = 0;
  }
  *i = k;
  *len = k - *start;
  if (*len == 0) return 0;
  size_t frac = dot ? k - dot : 0;
  if (plain && nd > 0 && nd <= 15 && frac <= 8) { *v = frac ? (double)m / p10[frac] : (double)m; return 1; }
  return pl_parse_double(s + *start, *len, v) == 0;
}

/* a[0..n) == b[0..n), 8 bytes at a time (names are a few dozen bytes) */
static inline int same_bytes(const char *a, const char *b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    memcpy(&x, a + i, 8); memcpy(&y, b + i, 8);
    if (x != y) return 0;
  }
  for (; i < n; i++) if (a[i] != b[i]) return 0;
  return 1;
}

/* Room for one more row in every column (they grow together). */
static inline void kt_room(pl_table *t) {
  for (size_t j = 0; j < t->ncols; j++)
    if (t->cols[j]->len >= t->cols[j]->cap) { pl_table_reserve(t, t->nrows < 4096 ? 8192 : t->nrows * 2); return; }
}

static int kt_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, in->data, in->len);
  int header = 0;
  pl_table *t = pl_table_new("kernels");
  int c_name = pl_table_add_col(t, "name", PL_STR);
  int c_short = pl_table_add_col(t, "short_name", PL_STR);
  int c_lat = pl_table_add_col(t, "latency_ns", PL_NUM);
  int c_dur = pl_table_add_col(t, "duration_ns", PL_NUM);
  int c_ten = pl_table_add_col(t, "tensor_util", PL_NUM);
  int c_dram = pl_table_add_col(t, "dram_util", PL_NUM);
  int c_trunc = pl_table_add_col(t, "truncated", PL_BOOL);
  int c_line = pl_table_add_col(t, "line", PL_INT);
  pl_table_set_doc(t, c_name, "kernel name as the tool printed it (may end in '...' where it was cut)");
  pl_table_set_doc(t, c_short, "short name: no namespaces, template arguments, parameters or '...'");
  pl_table_set_doc(t, c_lat, "kernel latency as the tool printed it, nanoseconds");
  pl_table_set_doc(t, c_dur, "same as latency_ns: the standard duration column");
  pl_table_set_doc(t, c_ten, "tensor-core utilisation, a fraction 0..1 as given (not percent)");
  pl_table_set_doc(t, c_dram, "DRAM bandwidth utilisation, a fraction 0..1 as given (not percent)");
  pl_table_set_doc(t, c_trunc, "true where the tool cut the name with '...'");
  pl_table_set_doc(t, c_line, "line number in the input");
  char shortbuf[1024];
  /* Names repeat: the raw name field (the bytes before '|', padding
  ** included) is interned in a side pool whose ids index the trimmed name's
  ** id, its short name's id and its truncation flag, so trimming, short
  ** names and the table's own interning run once per distinct field. */
  pl_pool *raw = pl_pool_new();
  struct nm { uint32_t name, shortn; int trunc; } *nm = NULL;
  size_t cap_nm = 0;
  struct kslot { const char *s; size_t n; uint32_t rid; } *slot = pl_xcalloc(1024, sizeof *slot);
  pl_table_reserve(t, in->len / 80 + 16);
  size_t next_poll = 0;
  while (pl_lines_next(&c, &l)) {
    if ((size_t)(l.s - in->data) >= next_poll) {
      next_poll = (size_t)(l.s - in->data) + (1u << 20);
      if (o && o->interrupt && *o->interrupt) { pl_pool_release(raw); free(nm); free(slot); pl_table_free(t); return pl_err_set(err, c.lineno, 1, "interrupted"); }
      if (o && o->progress) o->progress(o->progress_ud, (size_t)(l.s - in->data), in->len);
    }
    const char *bar = l.n ? memchr(l.s, '|', l.n) : NULL;
    if (bar == NULL || !header) {
      if (pl_is_blank(l.s, l.n)) continue;
      if (!header) {
        if (!is_header(l.s, l.n)) {
          pl_pool_release(raw); free(nm); free(slot); pl_table_free(t);
          return pl_err_expected(err, c.lineno, 1, "the header 'Kernel  Latency Tensor DRAM'", l.s, l.n);
        }
        header = 1;
        continue;
      }
      size_t col = 1;
      while (col <= l.n && (l.s[col - 1] == ' ')) col++;
      pl_err_expected(err, c.lineno, col, "a row 'NAME | LATENCY TENSOR DRAM'", l.s + col - 1, l.n - (col - 1));
      goto row_error;
    }
    /* a direct-mapped cache in front of the side pool: the raw field is
    ** compared in full against the line that last filled the slot */
    size_t rn = (size_t)(bar - l.s);
    uint64_t h = rn * 0x9E3779B97F4A7C15ull;
    if (rn >= 8) {
      uint64_t w;
      memcpy(&w, l.s, 8); h ^= w * 0xff51afd7ed558ccdull;
      memcpy(&w, l.s + rn - 8, 8); h ^= w * 0xc4ceb9fe1a85ec53ull;
      if (rn >= 24) { memcpy(&w, l.s + 16, 8); h ^= w * 0x94d049bb133111ebull; }
    } else if (rn) h ^= (unsigned char)l.s[0] * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
    struct kslot *sl = &slot[h & 1023];
    uint32_t rid;
    if (sl->rid && sl->n == rn && same_bytes(sl->s, l.s, rn)) rid = sl->rid;
    else { rid = pl_pool_intern(raw, l.s, rn); sl->rid = rid; sl->n = rn; sl->s = l.s; }
    if (rid >= cap_nm) {
      size_t nc = cap_nm ? cap_nm * 2 : 256;
      while (nc <= rid) nc *= 2;
      nm = pl_xrealloc(nm, nc * sizeof *nm);
      memset(nm + cap_nm, 0, (nc - cap_nm) * sizeof *nm);
      cap_nm = nc;
    }
    if (nm[rid].name == 0) {
      const char *name = l.s;
      size_t nn = (size_t)(bar - l.s);
      pl_trim(&name, &nn);
      if (nn == 0) { pl_err_expected(err, c.lineno, 1, "a kernel name before '|'", l.s, l.n); goto row_error; }
      size_t sn = pl_short_name(name, nn, shortbuf, sizeof shortbuf);
      nm[rid].name = pl_pool_intern(t->pool, name, nn);
      nm[rid].shortn = pl_pool_intern(t->pool, shortbuf, sn);
      nm[rid].trunc = pl_name_truncated(name, nn);
    }
    size_t i = (size_t)(bar - l.s) + 1, st, tl;
    double v[3];
    static const char *what[3] = { "the latency in ns (a number >= 0)", "the tensor utilisation (a number)", "the DRAM utilisation (a number)" };
    for (int k = 0; k < 3; k++) {
      if (!num_token(l.s, l.n, &i, &st, &tl, &v[k]) ||
          (k == 0 && !(isfinite(v[0]) && v[0] >= 0))) {   /* a latency is a finite time >= 0 */
        /* a last line without its newline that stops early: the file was cut */
        int cut = tl == 0 && l.s + l.n == in->data + in->len;
        pl_err_expected(err, c.lineno, st + 1, what[k], cut ? NULL : l.s + st, tl);  /* the token */
        goto row_error;
      }
    }
    if (next_token(l.s, l.n, &i, &st, &tl)) {
      pl_err_expected(err, c.lineno, st + 1, "end of line after the DRAM utilisation", l.s + st, tl);
      goto row_error;
    }
    /* every column is set on every row: straight stores */
    kt_room(t);
    size_t r = t->nrows;
    pl_column *const *cl = t->cols;
    cl[c_name]->v.str[r] = nm[rid].name;
    cl[c_short]->v.str[r] = nm[rid].shortn;
    cl[c_lat]->v.num[r] = v[0];
    cl[c_dur]->v.num[r] = v[0];
    cl[c_ten]->v.num[r] = v[1];
    cl[c_dram]->v.num[r] = v[2];
    cl[c_trunc]->v.i64[r] = nm[rid].trunc;
    cl[c_line]->v.i64[r] = (int64_t)c.lineno;
    for (size_t j = 0; j < t->ncols; j++) cl[j]->len = r + 1;
    t->nrows = r + 1;
    continue;
  row_error:
    /* --lenient: the row is listed in the diagnostics and skipped */
    if (pl_lenient_skip(o, p, err)) continue;
    pl_pool_release(raw); free(nm); free(slot); pl_table_free(t);
    return -1;
  }
  pl_pool_release(raw);
  free(nm); free(slot);
  if (!header) { pl_table_free(t); return pl_err_expected(err, c.lineno ? c.lineno : 1, 1, "the header 'Kernel  Latency Tensor DRAM'", NULL, 0); }
  if (pl_want_table(o, "kernels")) pl_profile_add_table(p, t); else pl_table_free(t);
  pl_profile_meta_str(p, "tool", "kernel latency table", strlen("kernel latency table"));
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  return 0;
}

const pl_format pl_fmt_kernel_table = {
  "kernel-table",
  "per-kernel latency tables: 'NAME | LATENCY TENSOR DRAM' rows under a header",
  "kernels",
  kt_detect,
  kt_parse,
};

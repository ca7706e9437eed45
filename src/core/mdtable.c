/*
** mdtable.c -- Markdown pipe tables (see mdtable.h).
*/
#include "mdtable.h"
#include "units.h"
#include "format.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int pl_md_split(const char *s, size_t n, pl_md_cell *cells, int max) {
  size_t i = 0;
  while (i < n && i < 4 && s[i] == ' ') i++;
  if (i >= n || s[i] != '|') return -1;
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
  i++; /* past the leading '|' */
  int k = 0;
  for (;;) {
    size_t start = i;
    while (i < n && !(s[i] == '|' && (i == 0 || s[i - 1] != '\\'))) i++;
    if (i >= n && start >= n) break; /* trailing '|' closed the last cell */
    if (k >= max) return -1;
    const char *cs = s + start;
    size_t cn = i - start;
    pl_trim(&cs, &cn);
    cells[k].s = cs;
    cells[k].n = cn;
    cells[k].col = (size_t)(cs - s) + 1;
    k++;
    if (i >= n) break; /* row without a closing '|' */
    i++;
  }
  return k;
}

int pl_md_is_delim(const pl_md_cell *cells, int n) {
  if (n <= 0) return 0;
  for (int k = 0; k < n; k++) {
    const char *s = cells[k].s;
    size_t m = cells[k].n, i = 0, dashes = 0;
    if (m == 0) return 0;
    if (s[i] == ':') i++;
    while (i < m && s[i] == '-') {
      i++;
      dashes++;
    }
    if (i < m && s[i] == ':') i++;
    if (i != m || dashes == 0) return 0;
  }
  return 1;
}

int pl_md_table_starts(const pl_lines *c, const char *s, size_t n) {
  pl_md_cell a[PL_MD_MAXCELLS], b[PL_MD_MAXCELLS];
  int na = pl_md_split(s, n, a, PL_MD_MAXCELLS);
  if (na <= 0) return 0;
  pl_line next;
  if (!pl_lines_peek(c, &next)) return 0;
  int nb = pl_md_split(next.s, next.n, b, PL_MD_MAXCELLS);
  return nb == na && pl_md_is_delim(b, nb) && !pl_md_is_delim(a, na);
}

static size_t put_word(char *out, size_t k, size_t outsz, const char *w) {
  if (k > 0 && out[k - 1] != '_' && k + 1 < outsz) out[k++] = '_';
  for (; *w && k + 1 < outsz; w++) out[k++] = *w;
  if (k + 1 < outsz) out[k++] = '_';
  return k;
}

size_t pl_md_snake(const char *s, size_t n, char *out, size_t outsz) {
  size_t k = 0;
  if (outsz == 0) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      if (k + 1 < outsz) out[k++] = (char)c;
      continue;
    }
    if (c >= 'A' && c <= 'Z') {
      if (k + 1 < outsz) out[k++] = (char)(c - 'A' + 'a');
      continue;
    }
    if (c == '%') {
      k = put_word(out, k, outsz, "pct");
      continue;
    }
    if (i + 1 < n) {
      unsigned char d = (unsigned char)s[i + 1];
      const char *w = NULL;
      if (c == 0xCE && (d == 0xB2 || d == 0x92)) w = "beta"; /* β Β */
      else if (c == 0xCE && d == 0xBC) w = "mu";             /* μ */
      else if (c == 0xC2 && d == 0xB5) w = "mu";             /* µ (micro sign) */
      else if (c == 0xCE && d == 0x94) w = "delta";          /* Δ */
      else if (c == 0xCE && d == 0xB4) w = "delta";          /* δ */
      else if (c == 0xCF && d == 0x83) w = "sigma";          /* σ */
      if (w) {
        k = put_word(out, k, outsz, w);
        i++;
        continue;
      }
    }
    if (k > 0 && out[k - 1] != '_' && k + 1 < outsz) out[k++] = '_';
  }
  while (k > 0 && out[k - 1] == '_') k--;
  size_t st = 0;
  while (st < k && out[st] == '_') st++;
  memmove(out, out + st, k - st);
  k -= st;
  out[k] = '\0';
  return k;
}

int pl_md_number(const char *s, size_t n, double *out) {
  pl_trim(&s, &n);
  if (n == 0) return 1;
  if ((n == 1 && s[0] == '-') || (n == 2 && memcmp(s, "--", 2) == 0) ||
      (n == 3 && (memcmp(s, "N/A", 3) == 0 || memcmp(s, "n/a", 3) == 0)) ||
      (n == 3 && memcmp(s, "\xe2\x80\x94", 3) == 0) || (n == 3 && memcmp(s, "\xe2\x80\x93", 3) == 0))
    return 1;
  if (s[n - 1] == '%') {
    n--;
    while (n > 0 && s[n - 1] == ' ') n--;
  }
  if (n == 0) return -1;
  if (pl_parse_number_sep(s, n, 0, out) == 0) return 0;
  return -1;
}

/* Adds a column; when the name is taken by a column of another type (a
** header that spells one of the parser's own column names), the new column
** gets a "_2", "_3", ... suffix instead. */
static int is_missing(const char *s, size_t n) {
  double v;
  return pl_md_number(s, n, &v) == 1;
}

pl_table *pl_md_read_table(pl_lines *c, const pl_line *header, const char *tname, pl_md_mapfn map, void *ud,
                           pl_err *err) {
  return pl_md_read_table_lenient(c, header, tname, map, ud, NULL, NULL, err);
}

pl_table *pl_md_read_table_lenient(pl_lines *c, const pl_line *header, const char *tname, pl_md_mapfn map, void *ud,
                                   const pl_parse_opts *o, pl_profile *p, pl_err *err) {
  /* rows skipped under --lenient (their line numbers, ascending) */
  size_t *skipped = NULL, nskip = 0, capskip = 0;
  pl_md_cell hc[PL_MD_MAXCELLS], cells[PL_MD_MAXCELLS];
  size_t hline = c->lineno;
  int nh = pl_md_split(header->s, header->n, hc, PL_MD_MAXCELLS);
  if (nh <= 0) {
    pl_err_expected(err, hline, 1, "a Markdown table header row '| ... |'", header->s, header->n);
    return NULL;
  }
  pl_md_colspec spec[PL_MD_MAXCELLS];
  for (int k = 0; k < nh; k++) {
    memset(&spec[k], 0, sizeof spec[k]);
    size_t sn = pl_md_snake(hc[k].s, hc[k].n, spec[k].name, sizeof spec[k].name);
    if (sn == 0) snprintf(spec[k].name, sizeof spec[k].name, "col%d", k + 1);
    spec[k].kind = PL_MD_AUTO;
    if (map) map(ud, k, hc[k].s, hc[k].n, &spec[k]);
    if (spec[k].factor == 0) spec[k].factor = 1;
    /* unique names */
    for (int dup = 2;; dup++) {
      int clash = 0;
      for (int j = 0; j < k; j++)
        if (strcmp(spec[j].name, spec[k].name) == 0) clash = 1;
      if (!clash) break;
      char base[96];
      snprintf(base, sizeof base, "%.90s", spec[k].name);
      size_t bl = strlen(base);
      if (dup > 2 && bl > 2 && base[bl - 2] == '_') base[bl - 2] = '\0';
      snprintf(spec[k].name, sizeof spec[k].name, "%.80s_%d", base, dup);
    }
  }
  /* the delimiter row */
  pl_line l;
  if (!pl_lines_next(c, &l)) {
    pl_err_expected(err, c->lineno + 1, 1, "the Markdown delimiter row '|---|'", NULL, 0);
    return NULL;
  }
  int nd = pl_md_split(l.s, l.n, cells, PL_MD_MAXCELLS);
  if (nd != nh || !pl_md_is_delim(cells, nd)) {
    pl_err_expected(err, c->lineno, 1, "the Markdown delimiter row '|---|' with one cell per header cell", l.s, l.n);
    return NULL;
  }
  /* pass 1: check the rows, infer AUTO columns */
  int isnum[PL_MD_MAXCELLS], anyval[PL_MD_MAXCELLS];
  for (int k = 0; k < nh; k++) {
    isnum[k] = 1;
    anyval[k] = 0;
  }
  pl_lines scan = *c;
  pl_line r;
  while (pl_lines_peek(&scan, &r)) {
    int nc = pl_md_split(r.s, r.n, cells, PL_MD_MAXCELLS);
    if (nc < 0) break;
    pl_lines_next(&scan, &r);
    if (nc != nh) {
      pl_err_set(err, scan.lineno, 1, "expected a row of %d cells like the header of line %zu, found %d cells", nh,
                 hline, nc);
      goto bad_row;
    }
    for (int k = 0; k < nh; k++) {
      double v;
      int rc = pl_md_number(cells[k].s, cells[k].n, &v);
      if (rc == 1) continue;
      anyval[k] = 1;
      if (rc == 0 && spec[k].kind == PL_MD_INT && (v != floor(v) || fabs(v) >= 9.2e18)) rc = -1;
      if (rc != 0) {
        isnum[k] = 0;
        if (spec[k].kind == PL_MD_NUM || spec[k].kind == PL_MD_INT) {
          char what[200];
          snprintf(what, sizeof what, "a number in column '%.*s'", (int)(hc[k].n > 80 ? 80 : hc[k].n), hc[k].s);
          pl_err_expected(err, scan.lineno, cells[k].col, what, cells[k].s, cells[k].n);
          goto bad_row;
        }
      }
    }
    continue;
  bad_row:
    /* --lenient: the row is listed in the diagnostics and left out */
    if (!pl_lenient_skip(o, p, err)) {
      free(skipped);
      return NULL;
    }
    if (nskip == capskip) {
      capskip = capskip ? capskip * 2 : 16;
      skipped = pl_xrealloc(skipped, capskip * sizeof *skipped);
    }
    skipped[nskip++] = scan.lineno;
  }
  pl_table *t = pl_table_new(tname);
  int col[PL_MD_MAXCELLS], rawcol[PL_MD_MAXCELLS];
  for (int k = 0; k < nh; k++) {
    int kind = spec[k].kind;
    if (kind == PL_MD_AUTO) kind = (isnum[k] && anyval[k]) ? PL_MD_NUM : PL_MD_TEXT;
    spec[k].kind = kind;
    col[k] = pl_table_add_col_unique(t, spec[k].name,
                                     kind == PL_MD_TEXT  ? PL_STR
                                     : kind == PL_MD_INT ? PL_INT
                                                         : PL_NUM);
    if (spec[k].doc) pl_table_set_doc(t, col[k], spec[k].doc);
    rawcol[k] = -1;
    if (spec[k].keep_raw) {
      char rn[128];
      snprintf(rn, sizeof rn, "%.95s_raw", spec[k].name);
      rawcol[k] = pl_table_add_col_unique(t, rn, PL_STR);
      char doc[160];
      snprintf(doc, sizeof doc, "%.95s as printed, before unit conversion", spec[k].name);
      pl_table_set_doc(t, rawcol[k], doc);
    }
  }
  int cline = pl_table_add_col_unique(t, "line", PL_INT);
  pl_table_set_doc(t, cline, "input line of the row");
  /* pass 2: fill */
  size_t nextskip = 0;
  while (pl_lines_peek(c, &r)) {
    int nc = pl_md_split(r.s, r.n, cells, PL_MD_MAXCELLS);
    if (nc < 0) break;
    pl_lines_next(c, &r);
    if (nextskip < nskip && skipped[nextskip] == c->lineno) {
      nextskip++;
      continue;
    }
    for (int k = 0; k < nh; k++) {
      const char *s = cells[k].s;
      size_t n = cells[k].n;
      if (rawcol[k] >= 0 && n > 0) pl_row_put_str(t, rawcol[k], s, n);
      if (spec[k].kind == PL_MD_TEXT) {
        if (n > 0) pl_row_put_str(t, col[k], s, n);
        continue;
      }
      double v;
      if (is_missing(s, n) || pl_md_number(s, n, &v) != 0) continue;
      if (spec[k].kind == PL_MD_INT) pl_row_put_int(t, col[k], (int64_t)v);
      else pl_row_put_num(t, col[k], pl_unit_scale(v, spec[k].factor));
    }
    pl_row_put_int(t, cline, (int64_t)c->lineno);
    pl_row_end(t);
  }
  free(skipped);
  return t;
}

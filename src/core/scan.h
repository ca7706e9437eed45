/*
** scan.h -- the text-scanning helpers every text parser shares: a line
** cursor over a memory buffer (no per-line allocation), whitespace
** trimming, and locale-free number conversion.
*/
#ifndef PL_SCAN_H
#define PL_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct pl_lines {
  const char *p, *end; /* unread part of the buffer */
  const char *base;
  size_t lineno; /* number of the line last returned (1-based) */
} pl_lines;

typedef struct pl_line {
  const char *s; /* start of the line */
  size_t n;      /* length without the line end (\n or \r\n) */
} pl_line;

void pl_lines_init(pl_lines *c, const char *data, size_t len);
/* Next line; returns 0 at end of input.  A final line without '\n' counts.
** (inline: every text parser calls it once a line) */
static inline int pl_lines_next(pl_lines *c, pl_line *out) {
  if (c->p >= c->end) return 0;
  const char *s = c->p;
  const char *nl = memchr(s, '\n', (size_t)(c->end - s));
  size_t n = nl ? (size_t)(nl - s) : (size_t)(c->end - s);
  c->p = nl ? nl + 1 : c->end;
  if (n > 0 && s[n - 1] == '\r') n--;
  out->s = s;
  out->n = n;
  c->lineno++;
  return 1;
}
/* Looks at the next line without consuming it. */
int pl_lines_peek(const pl_lines *c, pl_line *out);

/* The first byte of s[0..n) that is a or b, or NULL; reads s[0..n) only
** (16 bytes at a time where SSE2 is there).  For a field delimiter that
** must come before the line's end: pl_find2(s, n, '|', '\n'). */
const char *pl_find2(const char *s, size_t n, char a, char b);

/* Trims spaces and tabs (and a trailing \r). */
static inline void pl_trim(const char **s, size_t *n) {
  const char *p = *s;
  size_t k = *n;
  while (k > 0 && (*p == ' ' || *p == '\t')) {
    p++;
    k--;
  }
  while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\t' || p[k - 1] == '\r')) k--;
  *s = p;
  *n = k;
}
/* The first index from i on (below n) whose byte is not a space, else n:
** the padding of a column-aligned cell skipped 8 bytes at a time, reading
** s[i..n) only. */
static inline size_t pl_skip_spaces(const char *s, size_t i, size_t n) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (i < n && n - i >= 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    w ^= 0x2020202020202020ull;
    if (w) return i + (size_t)__builtin_ctzll(w) / 8;
    i += 8;
  }
#endif
  while (i < n && s[i] == ' ') i++;
  return i;
}
static inline int pl_is_blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
  return 1;
}
int pl_starts(const char *s, size_t n, const char *prefix);
/* memmem-like search; returns pointer or NULL. */
const char *pl_find(const char *s, size_t n, const char *needle);

/* Parses a decimal number (optional sign, digits, '.', exponent, "nan",
** "inf") occupying exactly s[0..n).  Returns 0 on success.  Locale-free:
** '.' is the only decimal point.  Exact for up to 15 significant digits
** without a strtod call; falls back to strtod (C locale) otherwise.
** A finite literal too large for a double ("1e400") is not a number
** (-1): it would read as infinity; "inf" written as such still is. */
int pl_parse_double(const char *s, size_t n, double *out);
/* The common case of pl_parse_double inline: s[0..n) is digits with at
** most one '.', 1 to 15 digits in all, at most 8 after the point.  Then
** *out is exactly what pl_parse_double gives and 1 is returned; otherwise
** 0 (call pl_parse_double). */
static inline int pl_parse_plain(const char *s, size_t n, double *out) {
  static const double p10[9] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8 };
  if (n == 0 || n > 16) return 0;
  uint64_t m = 0;
  size_t dot = n;
  for (size_t i = 0; i < n; i++) {
    unsigned d = (unsigned)(unsigned char)s[i] - '0';
    if (d < 10) m = m * 10 + d;
    else if (s[i] == '.' && dot == n) dot = i;
    else return 0;
  }
  size_t frac = dot == n ? 0 : n - dot - 1;
  if (n - (dot == n ? 0 : 1) == 0 || n - (dot == n ? 0 : 1) > 15 || frac > 8) return 0;
  *out = frac && m ? (double)m / p10[frac] : (double)m; /* 0 / 10^frac is +0.0: no division */
  return 1;
}

/* The common case of pl_parse_number_sep(s, n, 0, out) inline: s[0..n)
** is one or more digits, then any number of ',' each followed by exactly
** three digits, then optionally '.' and digits ("5,126,736,469",
** "69,104.7", "43.6", "12."); no sign, no exponent; 1 to 15 digits in
** all.  Then *out is exactly what pl_parse_number_sep (and
** pl_parse_double on the text without the commas) gives and 1 is
** returned; otherwise 0 (use the general function).  Reads s[0..n) only. */
static inline int pl_parse_grouped(const char *s, size_t n, double *out) {
  static const double p10[16] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15
  };
  size_t i = 0;
  uint64_t m = 0;
  unsigned nd = 0;
  while (i < n && (unsigned)(unsigned char)s[i] - '0' < 10) {
    m = m * 10 + (unsigned)((unsigned char)s[i] - '0');
    nd++;
    i++;
    if (nd > 15) return 0;
  }
  if (nd == 0) return 0;
  while (i < n && s[i] == ',') {
    if (n - i < 4) return 0;
    unsigned a = (unsigned)(unsigned char)s[i + 1] - '0', b = (unsigned)(unsigned char)s[i + 2] - '0',
             c = (unsigned)(unsigned char)s[i + 3] - '0';
    if (a > 9 || b > 9 || c > 9) return 0;
    if (i + 4 < n && (unsigned)(unsigned char)s[i + 4] - '0' < 10) return 0; /* a group of more than three */
    m = m * 1000 + a * 100 + b * 10 + c;
    nd += 3;
    if (nd > 15) return 0;
    i += 4;
  }
  unsigned frac = 0;
  if (i < n && s[i] == '.') {
    i++;
    while (i < n && (unsigned)(unsigned char)s[i] - '0' < 10) {
      m = m * 10 + (unsigned)((unsigned char)s[i] - '0');
      frac++;
      i++;
      if (nd + frac > 15) return 0;
    }
  }
  if (i != n) return 0;
  *out = frac && m ? (double)m / p10[frac] : (double)m;
  return 1;
}

/* Like pl_parse_double but accepts thousands separators: ',' groups
** ("1,234.5"); and, with locale=1, space/NBSP groups and a decimal comma
** ("23 982 976", "866,86"). */
int pl_parse_number_sep(const char *s, size_t n, int locale, double *out);
/* Parses an integer that fits int64 exactly. 0 on success, -1 otherwise. */
int pl_parse_int64(const char *s, size_t n, int64_t *out);

#endif

/*
** scan.c -- line cursor and locale-free number conversion for text parsers.
*/
#include "scan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

void pl_lines_init(pl_lines *c, const char *data, size_t len) {
  c->p = data;
  c->end = data + len;
  c->base = data;
  c->lineno = 0;
}

int pl_lines_peek(const pl_lines *c, pl_line *out) {
  pl_lines tmp = *c;
  return pl_lines_next(&tmp, out);
}

const char *pl_find2(const char *s, size_t n, char a, char b) {
  size_t i = 0;
#ifdef __SSE2__
  const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
  for (; i + 16 <= n; i += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
    int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)));
    if (m) return s + i + (size_t)__builtin_ctz((unsigned)m);
  }
#endif
  for (; i < n; i++)
    if (s[i] == a || s[i] == b) return s + i;
  return NULL;
}

int pl_starts(const char *s, size_t n, const char *prefix) {
  size_t k = strlen(prefix);
  return n >= k && memcmp(s, prefix, k) == 0;
}

const char *pl_find(const char *s, size_t n, const char *needle) {
  size_t k = strlen(needle);
  if (k == 0) return s;
  if (k > n) return NULL;
  const char *end = s + n - k + 1;
  for (const char *p = s; p < end; p++) {
    p = memchr(p, needle[0], (size_t)(end - p));
    if (p == NULL) return NULL;
    if (memcmp(p, needle, k) == 0) return p;
  }
  return NULL;
}

static const double pow10tab[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

static int ieq(const char *s, size_t n, const char *w) {
  size_t k = strlen(w);
  if (n != k) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != w[i]) return 0;
  }
  return 1;
}

int pl_parse_double(const char *s, size_t n, double *out) {
  if (n == 0) return -1;
  size_t i = 0;
  int neg = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == n) return -1;
  if ((unsigned)(s[i] - '0') > 9 && s[i] != '.') {
    if (ieq(s + i, n - i, "nan")) {
      *out = NAN;
      return 0;
    }
    if (ieq(s + i, n - i, "inf") || ieq(s + i, n - i, "infinity")) {
      *out = neg ? -INFINITY : INFINITY;
      return 0;
    }
    return -1;
  }
  uint64_t mant = 0;
  int digits = 0, frac = 0, any = 0, dropped = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    any = 1;
    if (digits < 19) {
      mant = mant * 10 + (uint64_t)(s[i] - '0');
      if (mant) digits++;
    } else {
      dropped++;
    }
  }
  if (i < n && s[i] == '.') {
    i++;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
      any = 1;
      if (digits < 19) {
        mant = mant * 10 + (uint64_t)(s[i] - '0');
        if (mant) digits++;
        frac++;
      }
    }
  }
  if (!any) return -1;
  int exp = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    int eneg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) {
      eneg = s[i] == '-';
      i++;
    }
    if (i == n || s[i] < '0' || s[i] > '9') return -1;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
      if (exp < 100000) exp = exp * 10 + (s[i] - '0');
    if (eneg) exp = -exp;
  }
  if (i != n) return -1;
  int e10 = exp - frac + dropped;
  if (digits <= 15 && e10 >= -22 && e10 <= 22) {
    /* exact: both mantissa and power of ten are exact doubles */
    double v = (double)mant;
    v = e10 < 0 ? v / pow10tab[-e10] : v * pow10tab[e10];
    *out = neg ? -v : v;
    return 0;
  }
  char buf[128];
  if (n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = '\0';
  errno = 0;
  char *end;
  double v = strtod(buf, &end); /* the host keeps LC_NUMERIC = "C" */
  if (end != buf + n) return -1;
  if (isinf(v)) return -1; /* overflow: the literal was finite */
  *out = v;
  return 0;
}

int pl_parse_number_sep(const char *s, size_t n, int locale, double *out) {
  if (pl_parse_double(s, n, out) == 0) return 0;
  char buf[128];
  size_t k = 0;
  int seen_dot = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (k + 1 >= sizeof buf) return -1;
    if (c == ',' && !locale) {
      /* a group separator: digits before it and exactly 3 digits after it */
      size_t d = 0;
      while (i + 1 + d < n && s[i + 1 + d] >= '0' && s[i + 1 + d] <= '9') d++;
      if (d != 3 || k == 0 || seen_dot) return -1;
      continue;
    }
    if (c == '.' && !locale) seen_dot = 1;
    if (locale) {
      if (c == ' ') continue;
      if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0xA0) {
        i++;
        continue;
      } /* NBSP */
      if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 && (unsigned char)s[i + 2] == 0xAF) {
        i += 2;
        continue;
      }
      if (c == ',') {
        if (seen_dot) return -1;
        seen_dot = 1;
        buf[k++] = '.';
        continue;
      }
      if (c == '.') return -1;
    }
    buf[k++] = (char)c;
  }
  return pl_parse_double(buf, k, out);
}

int pl_parse_int64(const char *s, size_t n, int64_t *out) {
  if (n == 0) return -1;
  size_t i = 0;
  int neg = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == n) return -1;
  uint64_t v = 0;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    uint64_t d = (uint64_t)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  if (neg) {
    if (v > (uint64_t)INT64_MAX + 1) return -1;
    *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
  } else {
    if (v > (uint64_t)INT64_MAX) return -1;
    *out = (int64_t)v;
  }
  return 0;
}

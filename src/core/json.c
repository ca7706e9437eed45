/*
** json.c -- the pull JSON tokenizer and the small DOM (see json.h).
*/
#include "json.h"
#include "scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { S_VALUE, S_KEY, S_KEY_OR_END, S_VALUE_OR_END, S_COMMA_OR_END, S_DONE };

void pl_json_init(pl_json *j, const char *data, size_t len, pl_err *err) {
  memset(j, 0, offsetof(pl_json, sbuf));
  j->base = data;
  j->p = data;
  j->end = data + len;
  j->limit = data + len;
  j->err = err;
  j->state = S_VALUE;
  pl_buf_init(&j->sbuf);
}

void pl_json_reset(pl_json *j, size_t start, size_t stop) {
  j->p = j->base + start;
  j->end = j->base + stop;
  j->depth = 0;
  j->state = S_VALUE;
  j->type = PL_JSON_EOF;
}

void pl_json_free(pl_json *j) { pl_buf_free(&j->sbuf); }

void pl_json_linecol(const pl_json *j, const char *at, size_t *line, size_t *col) {
  size_t ln = 1 + j->line0, c0 = j->col0;
  const char *ls = j->base, *q = j->base;
  for (;;) {
    const char *nl = memchr(q, '\n', (size_t)(at - q));
    if (nl == NULL) break;
    ln++;
    q = nl + 1;
    ls = q;
    c0 = 0;
  }
  *line = ln;
  *col = c0 + (size_t)(at - ls) + 1;
}

/* '\n' bytes in [p, e), and the last of them (NULL: none) */
static size_t count_nl(const char *p, const char *e, const char **last) {
  size_t n = 0;
  *last = NULL;
#if defined(__SSE2__)
  const __m128i vn = _mm_set1_epi8('\n');
  while (e - p >= 16) {
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), vn));
    if (m) {
      n += (size_t)__builtin_popcount(m);
      *last = p + 31 - __builtin_clz(m);
    }
    p += 16;
  }
#endif
  for (; p < e; p++)
    if (*p == '\n') {
      n++;
      *last = p;
    }
  return n;
}

void pl_json_drop(pl_json *j, const char *keep) {
  const char *last;
  size_t n = count_nl(j->base, keep, &last);
  if (n) {
    j->line0 += n;
    j->col0 = (size_t)(keep - last - 1);
  } else j->col0 += (size_t)(keep - j->base);
  j->base = keep;
  j->tok = NULL;
}

void pl_json_move(pl_json *j, const char *nb, size_t nlen) {
  j->p = nb + (j->p - j->base);
  j->base = nb;
  j->end = j->limit = nb + nlen;
  j->tok = NULL;
}

size_t pl_json_line(const pl_json *j) {
  size_t l, c;
  pl_json_linecol(j, j->tok ? j->tok : j->p, &l, &c);
  return l;
}

int pl_json_fail(pl_json *j, const char *at, const char *what) {
  if (at == NULL) at = j->p;
  if (at > j->end) at = j->end;
  size_t line, col;
  pl_json_linecol(j, at, &line, &col);
  j->type = PL_JSON_ERROR;
  if (j->err) {
    if (at == j->end && j->end < j->limit) pl_err_set(j->err, line, col, "expected %s, found end of line", what);
    else pl_err_expected(j->err, line, col, what, at < j->limit ? at : NULL, (size_t)(j->end - at));
  }
  return -1;
}

static inline const char *skip_ws(const char *p, const char *end) {
  while (p < end && (unsigned char)*p <= ' ' && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Scans a string body starting after the opening quote; returns the
** position of the closing quote or NULL (error set). */
static const char *scan_string(pl_json *j, const char *p, int *esc) {
  const char *bad, *what;
  const char *q = pl_json_str_end(p, j->end, esc, &bad, &what);
  if (q == NULL) pl_json_fail(j, bad, what);
  return q;
}

static void put_utf8(pl_buf *b, uint32_t cp) {
  char u[4];
  if (cp < 0x80) {
    pl_buf_addc(b, (char)cp);
    return;
  }
  if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    pl_buf_add(b, u, 2);
    return;
  }
  if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    pl_buf_add(b, u, 3);
    return;
  }
  u[0] = (char)(0xF0 | (cp >> 18));
  u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  u[3] = (char)(0x80 | (cp & 0x3F));
  pl_buf_add(b, u, 4);
}

static uint32_t hex4(const char *s) {
  return (uint32_t)(hexval(s[0]) << 12 | hexval(s[1]) << 8 | hexval(s[2]) << 4 | hexval(s[3]));
}

void pl_json_unescape(const char *s, size_t n, pl_buf *out) {
  size_t i = 0;
  pl_buf_reserve(out, n + 1);
  while (i < n) {
    const char *bs = memchr(s + i, '\\', n - i);
    size_t run = bs ? (size_t)(bs - (s + i)) : n - i;
    pl_buf_add(out, s + i, run);
    i += run;
    if (i >= n) break;
    if (i + 1 >= n) {
      i++;
      break;
    } /* validated by the scanner; defensive */
    char c = s[i + 1];
    switch (c) {
      case 'b':
        pl_buf_addc(out, '\b');
        i += 2;
        break;
      case 'f':
        pl_buf_addc(out, '\f');
        i += 2;
        break;
      case 'n':
        pl_buf_addc(out, '\n');
        i += 2;
        break;
      case 'r':
        pl_buf_addc(out, '\r');
        i += 2;
        break;
      case 't':
        pl_buf_addc(out, '\t');
        i += 2;
        break;
      case 'u': {
        if (i + 6 > n) {
          i = n;
          break;
        }
        uint32_t cp = hex4(s + i + 2);
        i += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
            uint32_t lo = hex4(s + i + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              i += 6;
            } else cp = 0xFFFD;
          } else cp = 0xFFFD;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) cp = 0xFFFD;
        put_utf8(out, cp);
        break;
      }
      default:
        pl_buf_addc(out, c);
        i += 2;
        break; /* " \ / */
    }
  }
  pl_buf_cstr(out);
}

const char *pl_json_str(pl_json *j, size_t *n) {
  if (!j->esc) {
    /* the raw bytes; not NUL-terminated in the input, so copy when asked */
    j->sbuf.len = 0;
    pl_buf_add(&j->sbuf, j->tok, j->toklen);
    if (n) *n = j->toklen;
    return pl_buf_cstr(&j->sbuf);
  }
  j->sbuf.len = 0;
  pl_json_unescape(j->tok, j->toklen, &j->sbuf);
  if (n) *n = j->sbuf.len;
  return pl_buf_cstr(&j->sbuf);
}

int pl_json_eq(pl_json *j, const char *s) {
  size_t n = strlen(s);
  if (!j->esc) return j->toklen == n && memcmp(j->tok, s, n) == 0;
  size_t m;
  const char *u = pl_json_str(j, &m);
  return m == n && memcmp(u, s, n) == 0;
}

/* Reads a number at p (syntax checked); sets tok/toklen/isint/ival. */
static const char *scan_number(pl_json *j, const char *p) {
  const char *s = p, *end = j->end;
  int neg = 0;
  j->special = 0;
  if (p < end && *p == '-') {
    neg = 1;
    p++;
  }
  if (p < end && *p == 'I') {
    if (end - p >= 8 && memcmp(p, "Infinity", 8) == 0) {
      j->tok = s;
      j->toklen = (size_t)(p + 8 - s);
      j->isint = 0;
      j->special = neg ? 3 : 2;
      return p + 8;
    }
    pl_json_fail(j, s, "a number");
    return NULL;
  }
  if (p >= end || *p < '0' || *p > '9') {
    pl_json_fail(j, s, "a digit");
    return NULL;
  }
  uint64_t v = 0;
  int over = 0;
  if (*p == '0') {
    p++;
  } else {
    const char *lim = end - p > 19 ? p + 19 : end; /* 19 digits cannot overflow uint64 */
    while (p < lim && *p >= '0' && *p <= '9') v = v * 10 + (unsigned)(*p++ - '0');
    while (p < end && *p >= '0' && *p <= '9') {
      unsigned d = (unsigned)(*p - '0');
      if (v > (UINT64_MAX - d) / 10) over = 1;
      else v = v * 10 + d;
      p++;
    }
  }
  int isint = 1;
  if (p < end && *p == '.') {
    p++;
    if (p >= end || *p < '0' || *p > '9') {
      pl_json_fail(j, p, "a digit after the decimal point");
      return NULL;
    }
    while (p < end && *p >= '0' && *p <= '9') p++;
    isint = 0;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (p >= end || *p < '0' || *p > '9') {
      pl_json_fail(j, p, "a digit in the exponent");
      return NULL;
    }
    while (p < end && *p >= '0' && *p <= '9') p++;
    isint = 0;
  }
  j->tok = s;
  j->toklen = (size_t)(p - s);
  if (isint && !over) {
    if (!neg && v <= (uint64_t)INT64_MAX) {
      j->isint = 1;
      j->ival = (int64_t)v;
    } else if (neg && v <= (uint64_t)INT64_MAX + 1) {
      j->isint = 1;
      j->ival = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else j->isint = 0;
  } else j->isint = 0;
  return p;
}

double pl_json_num(const pl_json *j) {
  if (j->special == 1) return NAN;
  if (j->special == 2) return INFINITY;
  if (j->special == 3) return -INFINITY;
  if (j->isint) return (double)j->ival;
  double d;
  if (pl_parse_double(j->tok, j->toklen, &d) != 0) return NAN;
  return d;
}

int pl_json_text_scaled(const char *s, size_t n, int scale, int64_t *out) {
  size_t i = 0;
  int neg = 0;
  if (scale < 0 || scale > 18) return -1;
  if (i < n && (s[i] == '-' || s[i] == '+')) {
    neg = s[i] == '-';
    i++;
  }
  /* the significant digits (leading zeros dropped) and a decimal exponent:
  ** value = int(dig) * 10^exp10 */
  char dig[64];
  int nd = 0, exp10 = 0, seen = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    seen = 1;
    if (nd == 0 && s[i] == '0') continue;
    if (nd == 64) return -1;
    dig[nd++] = s[i];
  }
  if (i < n && s[i] == '.') {
    i++;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
      seen = 1;
      exp10--;
      if (nd == 0 && s[i] == '0') continue;
      if (nd == 64) {
        exp10++;
        continue;
      } /* beyond 64 digits: cannot change the rounding digit */
      dig[nd++] = s[i];
    }
  }
  if (!seen) return -1;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    int eneg = 0, e = 0, ed = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
      eneg = s[i] == '-';
      i++;
    }
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
      if (e < 10000) e = e * 10 + (s[i] - '0');
      ed++;
    }
    if (!ed) return -1;
    exp10 += eneg ? -e : e;
  }
  if (i != n) return -1;
  int e = exp10 + scale, keep = nd, round_digit = 0;
  if (e < 0) {
    int drop = -e;
    keep = nd - drop;
    if (keep >= 0 && keep < nd) round_digit = dig[keep] - '0';
    if (keep < 0) keep = 0;
    e = 0;
  }
  uint64_t v = 0;
  for (int k = 0; k < keep; k++) {
    unsigned d = (unsigned)(dig[k] - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  for (int k = 0; k < e && v != 0; k++) {
    if (v > UINT64_MAX / 10) return -1;
    v *= 10;
  }
  if (round_digit >= 5) v++;
  if (v > (uint64_t)INT64_MAX) return -1;
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 0;
}

int pl_json_num_scaled(const char *tok, size_t toklen, int isint, int64_t ival, int scale, int64_t *out) {
  if (isint) {
    int64_t v = ival;
    for (int k = 0; k < scale; k++) {
      if (v > INT64_MAX / 10 || v < INT64_MIN / 10) return -1;
      v *= 10;
    }
    *out = v;
    return 0;
  }
  if (scale == 3 && toklen < 24) {
    /* fast path for the usual "123456.789" microseconds */
    const char *s = tok, *e = s + toklen;
    int neg = *s == '-';
    if (neg) s++;
    uint64_t v = 0;
    const char *d0 = s;
    while (s < e && *s >= '0' && *s <= '9') v = v * 10 + (uint64_t)(*s++ - '0');
    if (s < e && *s == '.' && s - d0 <= 16) { /* 16 + 3 digits fit in uint64 */
      s++;
      int nd = 0;
      while (s < e && nd < 3 && *s >= '0' && *s <= '9') {
        v = v * 10 + (uint64_t)(*s++ - '0');
        nd++;
      }
      if (s == e) {
        while (nd++ < 3) v *= 10;
        if (v <= (uint64_t)INT64_MAX) {
          *out = neg ? -(int64_t)v : (int64_t)v;
          return 0;
        }
      }
    }
  }
  return pl_json_text_scaled(tok, toklen, scale, out);
}

int pl_json_scaled(const pl_json *j, int scale, int64_t *out) {
  if (j->type == PL_JSON_NUM) {
    if (j->special) return -1;
    return pl_json_num_scaled(j->tok, j->toklen, j->isint, j->ival, scale, out);
  }
  if (j->type == PL_JSON_STR && !j->esc) {
    const char *s = j->tok;
    size_t n = j->toklen;
    pl_trim(&s, &n);
    return pl_json_text_scaled(s, n, scale, out);
  }
  return -1;
}

static inline void after_value(pl_json *j) { j->state = j->depth ? S_COMMA_OR_END : S_DONE; }

/* The token of pl_json_next at p, by what the state expects there.  Each
** sets j's token, position and state, and returns its type (or
** PL_JSON_ERROR, the error set).  Forced inline: pl_json_next is the
** tokenizer's hot loop (a pass over kineto-300.json's 30 M tokens takes
** 0.25 s of CPU). */
#define JSON_INLINE static inline __attribute__((always_inline))

/* The '}' or ']' at p closing the innermost container. */
JSON_INLINE pl_json_type close_container(pl_json *j, const char *p, pl_json_type type) {
  j->tok = p;
  j->toklen = 1;
  j->p = p + 1;
  j->depth--;
  after_value(j);
  return j->type = type;
}

/* A literal of n bytes (true, false, null, NaN) already matched at p. */
JSON_INLINE pl_json_type literal(pl_json *j, const char *p, size_t n, pl_json_type type) {
  j->tok = p;
  j->toklen = n;
  j->p = p + n;
  after_value(j);
  return j->type = type;
}

/* A member name and its ':'. */
JSON_INLINE pl_json_type next_key(pl_json *j, const char *p) {
  const char *end = j->end;
  if (p >= end || *p != '"') {
    pl_json_fail(j, p, "a member name in double quotes");
    return PL_JSON_ERROR;
  }
  const char *q = scan_string(j, p + 1, &j->esc);
  if (q == NULL) return PL_JSON_ERROR;
  j->tok = p + 1;
  j->toklen = (size_t)(q - (p + 1));
  p = skip_ws(q + 1, end);
  if (p >= end || *p != ':') {
    pl_json_fail(j, p, "':' after the member name");
    return PL_JSON_ERROR;
  }
  j->p = p + 1;
  j->state = S_VALUE;
  return j->type = PL_JSON_KEY;
}

/* A value: a string, the start of an object or array, a literal, a number. */
JSON_INLINE pl_json_type next_value(pl_json *j, const char *p) {
  const char *end = j->end;
  if (p >= end) {
    pl_json_fail(j, p, "a JSON value");
    return PL_JSON_ERROR;
  }
  switch (*p) {
    case '"': {
      const char *q = scan_string(j, p + 1, &j->esc);
      if (q == NULL) return PL_JSON_ERROR;
      j->tok = p + 1;
      j->toklen = (size_t)(q - (p + 1));
      j->p = q + 1;
      after_value(j);
      return j->type = PL_JSON_STR;
    }
    case '{':
    case '[':
      if (j->depth >= PL_JSON_MAXDEPTH) {
        pl_json_fail(j, p, "at most 512 levels of nesting");
        return PL_JSON_ERROR;
      }
      j->stack[++j->depth] = (unsigned char)*p;
      j->tok = p;
      j->toklen = 1;
      j->p = p + 1;
      j->state = *p == '{' ? S_KEY_OR_END : S_VALUE_OR_END;
      return j->type = *p == '{' ? PL_JSON_OBJ : PL_JSON_ARR;
    case 't':
      if (end - p >= 4 && memcmp(p, "true", 4) == 0) return literal(j, p, 4, PL_JSON_TRUE);
      break;
    case 'f':
      if (end - p >= 5 && memcmp(p, "false", 5) == 0) return literal(j, p, 5, PL_JSON_FALSE);
      break;
    case 'n':
      if (end - p >= 4 && memcmp(p, "null", 4) == 0) return literal(j, p, 4, PL_JSON_NULL);
      break;
    case 'N':
      if (end - p >= 3 && memcmp(p, "NaN", 3) == 0) {
        j->isint = 0;
        j->special = 1;
        return literal(j, p, 3, PL_JSON_NUM);
      }
      break;
    default:
      if (*p == '-' || (*p >= '0' && *p <= '9') || *p == 'I') {
        const char *q = scan_number(j, p);
        if (q == NULL) return PL_JSON_ERROR;
        j->p = q;
        after_value(j);
        return j->type = PL_JSON_NUM;
      }
      break;
  }
  pl_json_fail(j, p, "a JSON value");
  return PL_JSON_ERROR;
}

/* After the last value: the end of the input (or of one value of many). */
static pl_json_type next_done(pl_json *j, const char *p) {
  j->p = p;
  if (p < j->end && !j->multi) {
    pl_json_fail(j, p, "end of input after the JSON value");
    return PL_JSON_ERROR;
  }
  j->tok = p;
  j->toklen = 0;
  return j->type = PL_JSON_EOF;
}

pl_json_type pl_json_next(pl_json *j) {
  const char *p = skip_ws(j->p, j->end), *end = j->end;
  if (j->type == PL_JSON_ERROR) return PL_JSON_ERROR;
  switch (j->state) {
    case S_DONE: return next_done(j, p);
    case S_COMMA_OR_END: { /* after a member or element: ',' and the next one, or the container's end */
      unsigned char top = j->stack[j->depth];
      if (p < end && *p == ',') {
        p = skip_ws(p + 1, end);
        if (top == '{') goto key;
        goto value;
      }
      if (p < end && *p == (top == '{' ? '}' : ']'))
        return close_container(j, p, top == '{' ? PL_JSON_OBJ_END : PL_JSON_ARR_END);
      pl_json_fail(j, p, top == '{' ? "',' or '}'" : "',' or ']'");
      return PL_JSON_ERROR;
    }
    case S_KEY_OR_END:
      if (p < end && *p == '}') return close_container(j, p, PL_JSON_OBJ_END);
      goto key;
    case S_VALUE_OR_END:
      if (p < end && *p == ']') return close_container(j, p, PL_JSON_ARR_END);
      goto value;
    case S_KEY: goto key;
    default: goto value;
  }
  /* one call site each, as the labels of one function were before */
key:
  return next_key(j, p);
value:
  return next_value(j, p);
}

void pl_json_close_at(pl_json *j, const char *p) {
  unsigned char top = j->stack[j->depth];
  j->tok = p - 1;
  j->toklen = 1;
  j->p = p;
  j->depth--;
  after_value(j);
  j->type = top == '{' ? PL_JSON_OBJ_END : PL_JSON_ARR_END;
}

int pl_json_skip(pl_json *j) {
  if (j->type != PL_JSON_OBJ && j->type != PL_JSON_ARR) return j->type == PL_JSON_ERROR ? -1 : 0;
  int d = j->depth - 1;
  while (j->depth > d) {
    pl_json_type t = pl_json_next(j);
    if (t == PL_JSON_ERROR) return -1;
    if (t == PL_JSON_EOF) return pl_json_fail(j, j->p, "the end of the open object or array");
  }
  return 0;
}

/* ---- DOM ---------------------------------------------------------------- */

void pl_jdoc_init(pl_jdoc *d) {
  memset(d, 0, sizeof *d);
  pl_buf_init(&d->text);
}
void pl_jdoc_clear(pl_jdoc *d) {
  d->nn = 0;
  d->text.len = 0;
}
void pl_jdoc_free(pl_jdoc *d) {
  free(d->n);
  pl_buf_free(&d->text);
  memset(d, 0, sizeof *d);
}

static int new_node(pl_jdoc *d, int type, size_t at) {
  if (d->nn == d->capn) {
    d->capn = d->capn ? d->capn * 2 : 64;
    d->n = pl_xrealloc(d->n, d->capn * sizeof *d->n);
  }
  pl_jnode *n = &d->n[d->nn];
  memset(n, 0, sizeof *n);
  n->type = type;
  n->first = n->next = -1;
  n->dval = NAN;
  n->at = at;
  return (int)d->nn++;
}

static size_t add_text(pl_jdoc *d, const char *s, size_t n, int esc) {
  size_t off = d->text.len;
  if (esc) pl_json_unescape(s, n, &d->text);
  else pl_buf_add(&d->text, s, n);
  pl_buf_addc(&d->text, '\0');
  return off;
}

static int jdoc_value(pl_jdoc *d, pl_json *j) {
  pl_json_type t = j->type;
  size_t at = (size_t)(j->tok - j->base);
  int me;
  switch (t) {
    case PL_JSON_STR:
      me = new_node(d, t, at);
      {
        size_t off = add_text(d, j->tok, j->toklen, j->esc);
        d->n[me].str = off;
        d->n[me].len = d->text.len - off - 1;
      }
      return me;
    case PL_JSON_NUM:
      me = new_node(d, t, at);
      {
        size_t off = add_text(d, j->tok, j->toklen, 0);
        d->n[me].str = off;
        d->n[me].len = j->toklen;
        d->n[me].isint = j->isint;
        d->n[me].ival = j->ival;
        d->n[me].dval = pl_json_num(j);
      }
      return me;
    case PL_JSON_TRUE:
    case PL_JSON_FALSE:
    case PL_JSON_NULL: return new_node(d, t, at);
    case PL_JSON_OBJ:
    case PL_JSON_ARR: {
      me = new_node(d, t, at);
      int last = -1;
      for (;;) {
        pl_json_type u = pl_json_next(j);
        if (u == PL_JSON_ERROR) return -1;
        if (u == PL_JSON_OBJ_END || u == PL_JSON_ARR_END) break;
        size_t koff = 0, klen = 0;
        if (u == PL_JSON_KEY) {
          koff = add_text(d, j->tok, j->toklen, j->esc);
          klen = d->text.len - koff - 1;
          u = pl_json_next(j);
          if (u == PL_JSON_ERROR) return -1;
        }
        int c = jdoc_value(d, j);
        if (c < 0) return -1;
        d->n[c].key = koff;
        d->n[c].keylen = klen;
        if (last < 0) d->n[me].first = c;
        else d->n[last].next = c;
        last = c;
        d->n[me].nchild++;
      }
      return me;
    }
    default: pl_json_fail(j, j->tok, "a JSON value"); return -1;
  }
}

int pl_jdoc_read(pl_jdoc *d, pl_json *j) { return jdoc_value(d, j); }

int pl_jdoc_get(const pl_jdoc *d, int o, const char *key) {
  if (o < 0 || d->n[o].type != PL_JSON_OBJ) return -1;
  size_t kl = strlen(key);
  for (int c = d->n[o].first; c >= 0; c = d->n[c].next)
    if (d->n[c].keylen == kl && memcmp(d->text.data + d->n[c].key, key, kl) == 0) return c;
  return -1;
}

int pl_jdoc_at(const pl_jdoc *d, int a, size_t i) {
  if (a < 0 || (d->n[a].type != PL_JSON_ARR && d->n[a].type != PL_JSON_OBJ)) return -1;
  int c = d->n[a].first;
  while (c >= 0 && i > 0) {
    c = d->n[c].next;
    i--;
  }
  return c;
}

const char *pl_jdoc_str(const pl_jdoc *d, int i, size_t *n) {
  if (i < 0 || (d->n[i].type != PL_JSON_STR && d->n[i].type != PL_JSON_NUM)) {
    if (n) *n = 0;
    return NULL;
  }
  if (n) *n = d->n[i].len;
  return d->text.data + d->n[i].str;
}

const char *pl_jdoc_key(const pl_jdoc *d, int i, size_t *n) {
  if (i < 0) {
    if (n) *n = 0;
    return NULL;
  }
  if (n) *n = d->n[i].keylen;
  return d->text.data ? d->text.data + d->n[i].key : "";
}

double pl_jdoc_num(const pl_jdoc *d, int i) {
  if (i < 0 || d->n[i].type != PL_JSON_NUM) return NAN;
  return d->n[i].dval;
}

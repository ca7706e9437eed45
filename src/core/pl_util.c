/*
** pl_util.c -- checked allocation, the byte buffer, error records and
** round-trip number formatting for the C core.
*/
#include "pl_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Thread_local const char *pl_oom_file = NULL;

static pl_oom_handler oom_handler = NULL;

void pl_set_oom_handler(pl_oom_handler h) { oom_handler = h; }

/* The allocator itself failed: the host's handler decides what the user
** sees (it may name pl_oom_file) and ends the process; the core neither
** prints nor picks an exit status. */
static void pl_oom(size_t n) {
  if (oom_handler) oom_handler(n);
  abort();
}

void pl_oom_fail(size_t n) { pl_oom(n); }

void *pl_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) pl_oom(n);
  return p;
}

void *pl_xcalloc(size_t n, size_t sz) {
  void *p = calloc(n ? n : 1, sz ? sz : 1);
  if (p == NULL) pl_oom(n * sz);
  return p;
}

void *pl_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (q == NULL) pl_oom(n);
  return q;
}

char *pl_xstrndup(const char *s, size_t n) {
  char *d = pl_xmalloc(n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *pl_xstrdup(const char *s) { return pl_xstrndup(s, strlen(s)); }

void pl_buf_init(pl_buf *b) {
  b->data = NULL;
  b->len = b->cap = 0;
}

void pl_buf_free(pl_buf *b) {
  free(b->data);
  pl_buf_init(b);
}

void pl_buf_reserve(pl_buf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  b->data = pl_xrealloc(b->data, cap);
  b->cap = cap;
}

void pl_buf_add(pl_buf *b, const char *s, size_t n) {
  pl_buf_reserve(b, n);
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void pl_buf_adds(pl_buf *b, const char *s) { pl_buf_add(b, s, strlen(s)); }

void pl_buf_addc(pl_buf *b, char c) {
  pl_buf_reserve(b, 1);
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
}

void pl_buf_printf(pl_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[256];
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    pl_buf_add(b, tmp, (size_t)n);
    return;
  }
  pl_buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

const char *pl_buf_cstr(pl_buf *b) {
  if (b->data == NULL) pl_buf_reserve(b, 0), b->data[0] = '\0';
  return b->data;
}

void pl_err_clear(pl_err *e) {
  e->file[0] = '\0';
  e->line = e->col = 0;
  e->offset = -1;
  e->kind = PL_ERR_DATA;
  e->msg[0] = '\0';
}

int pl_err_set(pl_err *e, size_t line, size_t col, const char *fmt, ...) {
  if (e == NULL) return -1;
  e->line = line;
  e->col = col;
  e->offset = -1;
  e->kind = PL_ERR_DATA;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return -1;
}

int pl_err_expected(pl_err *e, size_t line, size_t col, const char *what, const char *found, size_t n) {
  char ex[64];
  size_t k = 0;
  while (k < n && k < 40 && found[k] != '\n' && found[k] != '\r') k++;
  if (found == NULL) return pl_err_set(e, line, col, "expected %s, found end of file", what);
  if (k == 0) return pl_err_set(e, line, col, "expected %s, found end of line", what);
  size_t j = 0;
  for (size_t i = 0; i < k && j + 5 < sizeof ex; i++) {
    unsigned char c = (unsigned char)found[i];
    if (c < 0x20 || c == 0x7f) j += (size_t)snprintf(ex + j, sizeof ex - j, "\\x%02x", c);
    else ex[j++] = (char)c;
  }
  ex[j] = '\0';
  int cut = k < n && found[k] != '\n' && found[k] != '\r';
  return pl_err_set(e, line, col, "expected %s, found \"%s%s\"", what, ex, cut ? "..." : "");
}

void pl_err_format(const pl_err *e, char *out, size_t outsz) {
  const char *f = e->file[0] ? e->file : "input";
  if (e->line > 0) snprintf(out, outsz, "%s:%zu:%zu: %s", f, e->line, e->col ? e->col : 1, e->msg);
  else if (e->offset >= 0) snprintf(out, outsz, "%s: byte %lld: %s", f, e->offset, e->msg);
  else snprintf(out, outsz, "%s: %s", f, e->msg);
}

int pl_fmt_double(char *out, size_t outsz, double v) {
  if (isnan(v)) return snprintf(out, outsz, "nan");
  if (isinf(v)) return snprintf(out, outsz, v > 0 ? "inf" : "-inf");
  if (v == 0) return snprintf(out, outsz, signbit(v) ? "-0" : "0");
  /* the shortest of 15, 16, 17 significant digits that reads back exactly */
  int n = snprintf(out, outsz, "%.15g", v);
  if (strtod(out, NULL) != v) n = snprintf(out, outsz, "%.16g", v);
  if (strtod(out, NULL) != v) n = snprintf(out, outsz, "%.17g", v);
  return n;
}

uint32_t pl_fnv1a32(const void *data, size_t n) {
  const unsigned char *p = data;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

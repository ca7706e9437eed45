/*
** opargs.c -- operator arguments of a Kineto trace (see opargs.h): the
** top-level elements of a compact JSON array, the integers of a dims or
** strides element, the text of a string element, and dtype spellings.
*/
#include "opargs.h"

#include <stdio.h>
#include <string.h>

static size_t ws(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
  return i;
}

/* The end of the JSON value starting at s[i] (strings, nested arrays and
** objects, scalars), or (size_t)-1 when it is cut short. */
static size_t value_end(const char *s, size_t n, size_t i) {
  int depth = 0;
  for (; i < n; i++) {
    char c = s[i];
    if (c == '"') {
      for (i++; i < n && s[i] != '"'; i++)
        if (s[i] == '\\') i++;
      if (i >= n) return (size_t)-1;
      if (depth == 0) return i + 1;
    } else if (c == '[' || c == '{') depth++;
    else if (c == ']' || c == '}') {
      if (depth == 0) return i; /* the enclosing array's end */
      if (--depth == 0) return i + 1;
    } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r')) return i;
  }
  return depth == 0 ? n : (size_t)-1;
}

static void found(char *err, size_t errsz, const char *what, const char *s, size_t n, size_t i) {
  if (!err || !errsz) return;
  if (i >= n) snprintf(err, errsz, "expected %s, found the end of the text", what);
  else snprintf(err, errsz, "expected %s, found '%c'", what, s[i]);
}

int pl_args_items(const char *s, size_t n, pl_argspan *items, size_t cap, size_t *nitems, size_t *errpos, char *err,
                  size_t errsz) {
  size_t i = ws(s, n, 0), k = 0;
  *nitems = 0;
  if (i >= n || s[i] != '[') {
    if (errpos) *errpos = i;
    found(err, errsz, "'['", s, n, i);
    return -1;
  }
  i = ws(s, n, i + 1);
  if (i < n && s[i] == ']') return 0;
  for (;;) {
    size_t a = ws(s, n, i);
    size_t b = value_end(s, n, a);
    if (b == (size_t)-1 || b == a) {
      if (errpos) *errpos = a;
      found(err, errsz, "a value", s, n, a);
      return -1;
    }
    if (k < cap) {
      items[k].off = a;
      items[k].len = b - a;
    }
    k++;
    i = ws(s, n, b);
    if (i < n && s[i] == ',') {
      i++;
      continue;
    }
    if (i < n && s[i] == ']') break;
    if (errpos) *errpos = i;
    found(err, errsz, "',' or ']'", s, n, i);
    return -1;
  }
  *nitems = k;
  return 0;
}

int pl_args_ints(const char *s, size_t n, int64_t *v, size_t cap, size_t *nv, int *depth) {
  size_t k = 0;
  int d = 0, maxd = 0, sawnum = 0;
  *nv = 0;
  size_t i = ws(s, n, 0);
  if (i >= n || !(s[i] == '[' || s[i] == '-' || (s[i] >= '0' && s[i] <= '9'))) {
    *depth = -1;
    return 0;
  }
  for (; i < n; i++) {
    char c = s[i];
    if (c == '[') {
      if (++d > maxd) maxd = d;
    } else if (c == ']') d--;
    else if (c == '-' || (c >= '0' && c <= '9')) {
      int neg = c == '-';
      if (neg) i++;
      int64_t x = 0;
      size_t st = i;
      while (i < n && s[i] >= '0' && s[i] <= '9') {
        if (x > (INT64_MAX - (s[i] - '0')) / 10) return -1;
        x = x * 10 + (s[i] - '0');
        i++;
      }
      if (i == st || (i < n && (s[i] == '.' || s[i] == 'e' || s[i] == 'E'))) return -1;
      i--;
      if (k < cap) v[k] = neg ? -x : x;
      k++;
      sawnum = 1;
    } else if (c == ',' || c == ' ') continue;
    else {
      *depth = -1;
      return 0;
    }
  }
  (void)sawnum;
  *nv = k;
  *depth = maxd;
  return 0;
}

size_t pl_args_str(const char *s, size_t n, char *out, size_t cap) {
  size_t i = ws(s, n, 0), k = 0;
  if (i >= n || s[i] != '"') return (size_t)-1;
  for (i++; i < n && s[i] != '"'; i++) {
    char c = s[i];
    if (c == '\\' && i + 1 < n) {
      c = s[++i];
      if (c == 'n') c = '\n';
      else if (c == 't') c = '\t';
      else if (c == 'u') {
        c = '?';
        i += 4;
      }
    }
    if (k + 1 < cap) out[k] = c;
    k++;
  }
  if (cap) out[k < cap ? k : cap - 1] = '\0';
  return k;
}

typedef struct dtdef {
  const char *spell, *canon;
  int bytes;
} dtdef;
static const dtdef DTYPES[] = {
  { "c10::BFloat16", "bf16", 2 },
  { "c10::Half", "fp16", 2 },
  { "float", "fp32", 4 },
  { "double", "fp64", 8 },
  { "c10::Float8_e4m3fn", "fp8_e4m3", 1 },
  { "c10::Float8_e4m3fnuz", "fp8_e4m3", 1 },
  { "c10::Float8_e5m2", "fp8_e5m2", 1 },
  { "c10::Float8_e5m2fnuz", "fp8_e5m2", 1 },
  { "c10::Float8_e8m0fnu", "fp8_e8m0", 1 },
  { "c10::Float4_e2m1fn_x2", "fp4", 1 },
  { "long int", "int64", 8 },
  { "long", "int64", 8 },
  { "int64_t", "int64", 8 },
  { "long long", "int64", 8 },
  { "int", "int32", 4 },
  { "short int", "int16", 2 },
  { "short", "int16", 2 },
  { "signed char", "int8", 1 },
  { "int8_t", "int8", 1 },
  { "unsigned char", "uint8", 1 },
  { "uint8_t", "uint8", 1 },
  { "bool", "bool", 1 },
  { "c10::complex<float>", "complex64", 8 },
  { "c10::complex<double>", "complex128", 16 },
  { "c10::complex<c10::Half>", "complex32", 4 },
  { "Scalar", "scalar", 0 },
  { "ScalarList", "scalarlist", 0 },
  { "TensorList", "tensorlist", 0 },
  { "GenericList", "list", 0 },
  { "", "", 0 },
};

const char *pl_dtype_canon(const char *s, size_t n, int *bytes) {
  for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
    if (strlen(DTYPES[i].spell) == n && memcmp(DTYPES[i].spell, s, n) == 0) {
      if (bytes) *bytes = DTYPES[i].bytes;
      return DTYPES[i].canon;
    }
  if (bytes) *bytes = 0;
  return NULL;
}

int pl_dtype_is_float(const char *c) {
  return c && (strcmp(c, "bf16") == 0 || strcmp(c, "fp16") == 0 || strcmp(c, "fp32") == 0 || strcmp(c, "fp64") == 0 ||
               strncmp(c, "fp8", 3) == 0 || strcmp(c, "fp4") == 0);
}

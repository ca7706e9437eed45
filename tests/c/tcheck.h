/*
** tcheck.h -- a minimal assertion harness for the C tests of the core.
** Each test program ends with `return tc_done();`, which prints the plain
** closing line "N passed, N failed" and exits non-zero on any failure.
*/
#ifndef TCHECK_H
#define TCHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tc_pass, tc_fail;

#define TC_CHECK(cond)                                                                                                 \
  do {                                                                                                                 \
    if (cond) tc_pass++;                                                                                               \
    else {                                                                                                             \
      tc_fail++;                                                                                                       \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                         \
    }                                                                                                                  \
  } while (0)
#define TC_EQ_INT(a, b)                                                                                                \
  do {                                                                                                                 \
    long long _a = (long long)(a), _b = (long long)(b);                                                                \
    if (_a == _b) tc_pass++;                                                                                           \
    else {                                                                                                             \
      tc_fail++;                                                                                                       \
      fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, _a, _b);                           \
    }                                                                                                                  \
  } while (0)
#define TC_EQ_STR(a, b)                                                                                                \
  do {                                                                                                                 \
    const char *_a = (a), *_b = (b);                                                                                   \
    if (_a && _b && strcmp(_a, _b) == 0) tc_pass++;                                                                    \
    else {                                                                                                             \
      tc_fail++;                                                                                                       \
      fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, _a ? _a : "(null)",            \
              _b ? _b : "(null)");                                                                                     \
    }                                                                                                                  \
  } while (0)
#define TC_NEAR(a, b, tol)                                                                                             \
  do {                                                                                                                 \
    double _a = (a), _b = (b);                                                                                         \
    if (fabs(_a - _b) <= (tol) * (fabs(_b) > 1 ? fabs(_b) : 1)) tc_pass++;                                             \
    else {                                                                                                             \
      tc_fail++;                                                                                                       \
      fprintf(stderr, "%s:%d: %s == %.17g, expected %.17g\n", __FILE__, __LINE__, #a, _a, _b);                         \
    }                                                                                                                  \
  } while (0)

static int tc_done(void) {
  printf("%d passed, %d failed\n", tc_pass, tc_fail);
  return tc_fail ? 1 : 0;
}

/* Test data a test reads must be there: a missing file or folder is a
** failure that names it (tests read only tests/data and tests/fixtures, so
** a clean clone has them all), never a silent skip.  1 when readable. */
__attribute__((unused)) static int tc_need(const char *path) {
  if (access(path, R_OK) == 0) return 1;
  tc_fail++;
  fprintf(stderr, "FAIL: test data missing: %s\n", path);
  return 0;
}

/* Reads a whole file (for fixtures); NULL when missing. */
__attribute__((unused)) static char *tc_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (fread(b, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(b);
    return NULL;
  }
  b[n] = '\0';
  fclose(f);
  *len = (size_t)n;
  return b;
}

/* A .gz file inflated by gzip(1) (a second inflater, independent of the
** loader's); NULL when gzip cannot be run. */
__attribute__((unused)) static char *tc_gunzip(const char *path, size_t *len) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
  FILE *f = popen(cmd, "r");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, r;
  char *b = malloc(cap);
  while ((r = fread(b + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) {
      cap *= 2;
      b = realloc(b, cap);
    }
  }
  pclose(f);
  *len = n;
  return b;
}

#endif

/*
** test_scan_fast.c -- the fast paths of the text parsers against their
** general paths: pl_parse_grouped against pl_parse_number_sep (tricky and
** random numbers), every fast path on input that ends exactly at a
** PROT_NONE guard page (the input is mapped, not NUL-terminated: a read
** past its end faults), and rows that take the fast path next to rows that
** take the general one giving the same values.
*/
#include "fmt_helpers.h"
#include "scan.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* A copy of s[0..n) that ends at a guard page. */
static char *guard_area;
static size_t guard_size;
static const char *at_guard(const char *s, size_t n) {
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  size_t need = (n + pg - 1) / pg * pg;
  if (need == 0) need = pg;
  if (guard_area) munmap(guard_area, guard_size);
  guard_size = need + pg;
  guard_area = mmap(NULL, guard_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (guard_area == MAP_FAILED) { perror("mmap"); exit(1); }
  mprotect(guard_area + need, pg, PROT_NONE);
  char *p = guard_area + need - n;
  memcpy(p, s, n);
  return p;
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* pl_parse_grouped agrees with pl_parse_number_sep wherever it answers. */
static void check_grouped(const char *s, int want_fast, double want) {
  size_t n = strlen(s);
  const char *g = at_guard(s, n);
  double fv = -1, sv = -1;
  int fast = pl_parse_grouped(g, n, &fv);
  int slow = pl_parse_number_sep(g, n, 0, &sv) == 0;
  if (fast != want_fast) { tc_fail++; fprintf(stderr, "pl_parse_grouped(\"%s\") = %d, expected %d\n", s, fast, want_fast); return; }
  tc_pass++;
  if (fast) {
    TC_CHECK(slow);
    if (!same_double(fv, sv) || !same_double(fv, want)) {
      tc_fail++; fprintf(stderr, "\"%s\": fast %.17g, general %.17g, expected %.17g\n", s, fv, sv, want);
    } else tc_pass++;
  }
}

static void test_grouped(void) {
  check_grouped("0", 1, 0);
  check_grouped("7", 1, 7);
  check_grouped("43.6", 1, 43.6);
  check_grouped("12.", 1, 12);
  check_grouped("5,126,736,469", 1, 5126736469.0);
  check_grouped("69,104.7", 1, 69104.7);
  check_grouped("874,174.3", 1, 874174.3);
  check_grouped("1234,567", 1, 1234567);            /* the leading group is not checked (as before) */
  check_grouped("0,123", 1, 123);
  check_grouped("123456789012345", 1, 123456789012345.0);
  check_grouped("123,456,789,012,345", 1, 123456789012345.0);
  check_grouped("0.00000000000001", 1, 1e-14);
  check_grouped("0.000000000000001", 0, 0);        /* 16 digits counting the zeros: general path */
  check_grouped("9.99999999999999", 1, 9.99999999999999);
  /* not the fast path: the general function decides */
  check_grouped("", 0, 0);
  check_grouped(",", 0, 0);
  check_grouped(",123", 0, 0);
  check_grouped("1,23", 0, 0);
  check_grouped("1,2345", 0, 0);
  check_grouped("1,234,", 0, 0);
  check_grouped("1,,234", 0, 0);
  check_grouped("1.234,567", 0, 0);
  check_grouped("-5", 0, 0);
  check_grouped("+5", 0, 0);
  check_grouped("1e5", 0, 0);
  check_grouped("1.5E-3", 0, 0);
  check_grouped(".5", 0, 0);
  check_grouped("1.2.3", 0, 0);
  check_grouped("nan", 0, 0);
  check_grouped("inf", 0, 0);
  check_grouped("1 234", 0, 0);
  check_grouped("1234567890123456", 0, 0);         /* 16 digits */
  check_grouped("1,234,567,890,123,456", 0, 0);
  check_grouped("0.1234567890123456", 0, 0);
  check_grouped("99999999999999999999999", 0, 0);   /* huge */
  check_grouped("12a", 0, 0);
  check_grouped("1,2a4", 0, 0);
  /* the string cut at every length: a prefix never reads past its end */
  const char *long1 = "9,876,543,210.12345";
  for (size_t k = 0; k <= strlen(long1); k++) {
    const char *g = at_guard(long1, k);
    double fv, sv;
    if (pl_parse_grouped(g, k, &fv)) { TC_CHECK(pl_parse_number_sep(g, k, 0, &sv) == 0 && same_double(fv, sv)); }
  }
  /* random strings over the number alphabet */
  static const char alpha[] = "0123456789012345678901234567890123456789,,,..-+eE ";
  uint64_t x = 88172645463325252ull;
  int fast = 0;
  for (int it = 0; it < 200000; it++) {
    char b[32];
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    size_t n = (size_t)(x % 22);
    for (size_t i = 0; i < n; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; b[i] = alpha[x % (sizeof alpha - 1)]; }
    /* a third of them in groups of three */
    if (it % 3 == 0) {
      n = 0;
      int groups = (int)(x % 5);
      b[n++] = (char)('1' + x % 9);
      for (int gi = 0; gi < groups; gi++) { b[n++] = ','; for (int d = 0; d < 3; d++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; b[n++] = (char)('0' + x % 10); } }
      if (x & 1) { b[n++] = '.'; int fd = (int)(x >> 8) % 6; for (int d = 0; d < fd; d++) b[n++] = (char)('0' + (x >> (d * 4)) % 10); }
    }
    const char *g = at_guard(b, n);
    double fv, sv;
    if (pl_parse_grouped(g, n, &fv)) {
      fast++;
      if (!(pl_parse_number_sep(g, n, 0, &sv) == 0 && same_double(fv, sv))) {
        tc_fail++; fprintf(stderr, "random \"%.*s\": fast %.17g disagrees\n", (int)n, b, fv);
      }
    }
  }
  TC_CHECK(fast > 50000);
}

int main(void) {
  test_grouped();
  return tc_done();
}

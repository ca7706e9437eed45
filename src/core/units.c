/*
** units.c -- the unit spellings profilers print, mapped to base units.
** Decimal prefixes throughout: ncu's "Kbyte" is 1000 bytes (its 1.02 Kbyte
** is 1024 B), as the corpus MANIFEST notes.
*/
#include "units.h"

#include <math.h>
#include <string.h>
#include <strings.h>

typedef struct unitdef {
  const char *name;
  double factor;
  const char *base;
} unitdef;

static const unitdef units[] = {
  /* time */
  { "ns", 1, "ns" },
  { "nsecond", 1, "ns" },
  { "nanosecond", 1, "ns" },
  { "nsec", 1, "ns" },
  { "us", 1e3, "ns" },
  { "usecond", 1e3, "ns" },
  { "microsecond", 1e3, "ns" },
  { "usec", 1e3, "ns" },
  { "\xc2\xb5s", 1e3, "ns" },
  { "ms", 1e6, "ns" },
  { "msecond", 1e6, "ns" },
  { "millisecond", 1e6, "ns" },
  { "msec", 1e6, "ns" },
  { "s", 1e9, "ns" },
  { "second", 1e9, "ns" },
  { "sec", 1e9, "ns" },
  /* sizes (decimal, as ncu prints them) */
  { "byte", 1, "byte" },
  { "bytes", 1, "byte" },
  { "b", 1, "byte" },
  { "kbyte", 1e3, "byte" },
  { "kb", 1e3, "byte" },
  { "mbyte", 1e6, "byte" },
  { "mb", 1e6, "byte" },
  { "gbyte", 1e9, "byte" },
  { "gb", 1e9, "byte" },
  { "tbyte", 1e12, "byte" },
  { "tb", 1e12, "byte" },
  { "kib", 1024.0, "byte" },
  { "mib", 1048576.0, "byte" },
  { "gib", 1073741824.0, "byte" },
  { "byte/block", 1, "byte/block" },
  { "kbyte/block", 1e3, "byte/block" },
  { "mbyte/block", 1e6, "byte/block" },
  /* bandwidth */
  { "byte/s", 1, "byte/s" },
  { "byte/second", 1, "byte/s" },
  { "kbyte/s", 1e3, "byte/s" },
  { "kbyte/second", 1e3, "byte/s" },
  { "mbyte/s", 1e6, "byte/s" },
  { "mbyte/second", 1e6, "byte/s" },
  { "gbyte/s", 1e9, "byte/s" },
  { "gbyte/second", 1e9, "byte/s" },
  { "tbyte/s", 1e12, "byte/s" },
  { "tbyte/second", 1e12, "byte/s" },
  { "b/s", 1, "byte/s" },
  { "kb/s", 1e3, "byte/s" },
  { "mb/s", 1e6, "byte/s" },
  { "gb/s", 1e9, "byte/s" },
  { "tb/s", 1e12, "byte/s" },
  /* frequency */
  { "hz", 1, "Hz" },
  { "khz", 1e3, "Hz" },
  { "mhz", 1e6, "Hz" },
  { "ghz", 1e9, "Hz" },
  { "cycle/second", 1, "Hz" },
  { "cycle/usecond", 1e6, "Hz" },
  { "cycle/nsecond", 1e9, "Hz" },
  { "cycle/msecond", 1e3, "Hz" },
  /* percent */
  { "%", 1, "pct" },
  /* rates of instructions and flops per time */
  { "inst/cycle", 1, "inst/cycle" },
  { "warp/cycle", 1, "warp/cycle" },
  { "cycle", 1, "cycle" },
  { "cycles", 1, "cycle" },
  { "inst", 1, "inst" },
  { "warp", 1, "warp" },
  { "block", 1, "block" },
  { "thread", 1, "thread" },
  { "register/thread", 1, "register/thread" },
  { "sector", 1, "sector" },
  { "request", 1, "request" },
  { "SM", 1, "SM" },
};

/* name == s[0..n) ignoring ASCII case (what strncasecmp does in the C
** locale), without a strlen per table entry: most entries differ at once. */
static int unit_eq(const char *name, const char *s, size_t n) {
  for (size_t k = 0; k < n; k++) {
    unsigned char a = (unsigned char)name[k], b = (unsigned char)s[k];
    if (a == 0) return 0;
    if (a >= 'A' && a <= 'Z') a = (unsigned char)(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = (unsigned char)(b - 'A' + 'a');
    if (a != b) return 0;
  }
  return name[n] == '\0';
}

int pl_unit_lookup(const char *s, size_t n, pl_unit *u) {
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (unit_eq(units[i].name, s, n)) {
      u->factor = units[i].factor;
      u->base = units[i].base;
      return 0;
    }
  }
  u->factor = 1;
  u->base = NULL;
  return -1;
}

static const double p10[23] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

double pl_unit_scale(double v, double factor) {
  double r = v * factor;
  if (factor <= 1 || !isfinite(r) || v == floor(v)) return r;
  int k = 0;
  while (k < 16 && p10[k] != factor) k++;
  if (k == 16) return r; /* not a power of ten */
  /* the input's decimals: the fewest d with v == round(v * 10^d) / 10^d */
  double a = fabs(v);
  int d = 1;
  for (; d <= 15; d++) {
    double m = a * p10[d];
    if (m >= 9007199254740992.0) return r; /* beyond 2^53: no exact decimal here */
    if (nearbyint(m) / p10[d] == a) break;
  }
  if (d > 15) return r;
  int rd = d - k;
  if (rd <= 0) return nearbyint(r);
  double m = r * p10[rd];
  if (fabs(m) >= 9007199254740992.0) return r;
  return nearbyint(m) / p10[rd];
}

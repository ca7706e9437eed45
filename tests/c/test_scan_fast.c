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
  if (guard_area == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
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
  if (fast != want_fast) {
    tc_fail++;
    fprintf(stderr, "pl_parse_grouped(\"%s\") = %d, expected %d\n", s, fast, want_fast);
    return;
  }
  tc_pass++;
  if (fast) {
    TC_CHECK(slow);
    if (!same_double(fv, sv) || !same_double(fv, want)) {
      tc_fail++;
      fprintf(stderr, "\"%s\": fast %.17g, general %.17g, expected %.17g\n", s, fv, sv, want);
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
  check_grouped("1234,567", 1, 1234567); /* the leading group is not checked (as before) */
  check_grouped("0,123", 1, 123);
  check_grouped("123456789012345", 1, 123456789012345.0);
  check_grouped("123,456,789,012,345", 1, 123456789012345.0);
  check_grouped("0.00000000000001", 1, 1e-14);
  check_grouped("0.000000000000001", 0, 0); /* 16 digits counting the zeros: general path */
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
  check_grouped("1234567890123456", 0, 0); /* 16 digits */
  check_grouped("1,234,567,890,123,456", 0, 0);
  check_grouped("0.1234567890123456", 0, 0);
  check_grouped("99999999999999999999999", 0, 0); /* huge */
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
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    size_t n = (size_t)(x % 22);
    for (size_t i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      b[i] = alpha[x % (sizeof alpha - 1)];
    }
    /* a third of them in groups of three */
    if (it % 3 == 0) {
      n = 0;
      int groups = (int)(x % 5);
      b[n++] = (char)('1' + x % 9);
      for (int gi = 0; gi < groups; gi++) {
        b[n++] = ',';
        for (int d = 0; d < 3; d++) {
          x ^= x << 13;
          x ^= x >> 7;
          x ^= x << 17;
          b[n++] = (char)('0' + x % 10);
        }
      }
      if (x & 1) {
        b[n++] = '.';
        int fd = (int)(x >> 8) % 6;
        for (int d = 0; d < fd; d++) b[n++] = (char)('0' + (x >> (d * 4)) % 10);
      }
    }
    const char *g = at_guard(b, n);
    double fv, sv;
    if (pl_parse_grouped(g, n, &fv)) {
      fast++;
      if (!(pl_parse_number_sep(g, n, 0, &sv) == 0 && same_double(fv, sv))) {
        tc_fail++;
        fprintf(stderr, "random \"%.*s\": fast %.17g disagrees\n", (int)n, b, fv);
      }
    }
  }
  TC_CHECK(fast > 50000);
}

/* Loads text placed at a guard page; NULL (and the error in errbuf) on failure. */
static char errbuf[2048];
static pl_profile *load_at_guard(const char *text, size_t n, const char *format) {
  const char *g = at_guard(text, n);
  pl_err e;
  pl_profile *p = pl_load_buffer("t.txt", g, n, format, NULL, &e);
  if (!p) pl_err_format(&e, errbuf, sizeof errbuf);
  else errbuf[0] = '\0';
  return p;
}

static double tokval(const char *s) {
  double v = NAN;
  pl_parse_double(s, strlen(s), &v);
  return v;
}

/* kernel-table: rows the fast path takes and rows it leaves to the general
** path (exponents, long numbers, '\r', tabs, no final newline) give the
** values pl_parse_double gives for their tokens; the errors stay. */
static void test_kernel_table(void) {
  static const struct {
    const char *row, *lat, *ten, *dram;
  } rows[] = {
    { "elementwise_kernel           |       4160   0.00   0.22\n", "4160", "0.00", "0.22" },
    { "elementwise_kernel           |       4160   0.00   0.22\r\n", "4160", "0.00", "0.22" },
    { "elementwise_kernel           |\t4160\t0.125\t1.00 \n", "4160", "0.125", "1.00" },
    { "reduce_kernel                |  123456789   0.3333   0.99999999\n", "123456789", "0.3333", "0.99999999" },
    { "reduce_kernel                |   12345678   12345678.12345678   0.5\n", "12345678", "12345678.12345678", "0.5" },
    { "reduce_kernel                |   1.5e3   0.10   7.\n", "1.5e3", "0.10", "7." },
    { "reduce_kernel                |   0   1000.5   0.000000001\n", "0", "1000.5", "0.000000001" },
    { "cudnn::ops::nchwToNhwcKernel |  99999999999999   0.99   0.01   \n", "99999999999999", "0.99", "0.01" },
    { "x|1 2 3\n", "1", "2", "3" },
    { "vectorized_elementwise_kernel|   64   0.5   0.25", "64", "0.5", "0.25" }, /* last, no newline */
  };
  size_t nr = sizeof rows / sizeof rows[0];
  char buf[4096];
  for (size_t cut = 0; cut < 2; cut++) {
    size_t k = (size_t)snprintf(buf, sizeof buf, "Kernel     Latency Tensor   DRAM\n");
    for (size_t i = 0; i < nr - cut; i++) k += (size_t)snprintf(buf + k, sizeof buf - k, "%s", rows[i].row);
    if (cut) k += (size_t)snprintf(buf + k, sizeof buf - k, "\n"); /* a blank last line */
    pl_profile *p = load_at_guard(buf, k, "kernel-table");
    TC_CHECK(p != NULL);
    if (!p) {
      fprintf(stderr, "%s\n", errbuf);
      continue;
    }
    const pl_table *t = pl_profile_find(p, "kernels");
    TC_EQ_INT(t->nrows, nr - cut);
    for (size_t i = 0; i < t->nrows; i++) {
      TC_CHECK(same_double(fh_num(t, "latency_ns", i), tokval(rows[i].lat)));
      TC_CHECK(same_double(fh_num(t, "duration_ns", i), tokval(rows[i].lat)));
      TC_CHECK(same_double(fh_num(t, "tensor_util", i), tokval(rows[i].ten)));
      TC_CHECK(same_double(fh_num(t, "dram_util", i), tokval(rows[i].dram)));
      TC_EQ_INT(pl_cell_int(t, pl_table_col(t, "line"), i), i + 2);
    }
    TC_EQ_STR(fh_str(t, "name", 0), "elementwise_kernel");
    TC_EQ_STR(fh_str(t, "name", 8), "x");
    pl_profile_free(p);
  }
  /* errors as before, at the buffer's end too */
  static const struct {
    const char *text, *err;
  } bad[] = {
    { "Kernel     Latency Tensor   DRAM\nabc        |       4160   0.00   0.22\nabc        |       4160   0.00",
      "t.txt:3:31: expected the DRAM utilisation (a number), found end of file" },
    { "Kernel     Latency Tensor   DRAM\nabc        |       4160   0.00   0.22\nabc        |       41x60   0.00 0.1\n",
      "t.txt:3:20: expected the latency in ns (a number >= 0), found \"41x60\"" },
    { "Kernel     Latency Tensor   DRAM\nabc        |       4160   0.00   0.22\r\r\n",
      "t.txt:2:34: expected the DRAM utilisation (a number), found \"0.22\"" },
    { "Kernel     Latency Tensor   DRAM\n   |  4160   0.00   0.22\n",
      "t.txt:2:1: expected a kernel name before '|', found \"   |  4160   0.00   0.22\"" },
    { "Kernel     Latency Tensor   DRAM\nabc |  4160   0.00   0.22 9\n",
      "t.txt:2:27: expected end of line after the DRAM utilisation, found \"9\"" },
    { "Kernel     Latency Tensor   DRAM\nabc |  4160   0.00   0.22\nabc |  4160   0.00   0.22\rx\n",
      "t.txt:3:22: expected the DRAM utilisation (a number), found \"0.22\"" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pl_profile *p = load_at_guard(bad[i].text, strlen(bad[i].text), "kernel-table");
    TC_CHECK(p == NULL);
    if (p) pl_profile_free(p);
    else TC_EQ_STR(errbuf, bad[i].err);
  }
}

/* nsys-stats text rows: the fast path (plain and ',' grouped numbers) next
** to rows only the general path reads ("+5", "1e3", tabs) give the same
** values; a table at the buffer's end without a newline. */
static void test_nsys(void) {
  static const struct {
    const char *share, *total, *calls, *avg, *name;
    double vs, vt;
    long long vc;
    double va;
  } rows[] = {
    { "43.6", "5,126,736,469", "74,188", "69,104.7", "kern_a", 43.6, 5126736469.0, 74188, 69104.7 },
    { "+43.6", "1.5e3", "+7", "1e-1", "kern_b", 43.6, 1500, 7, 0.1 },
    { "0.0", "0", "0", "0", "kern_a", 0, 0, 0, 0 },
    { "100.0", "123456789012345678", "1", "12345678901234567", "kern_c", 100, 123456789012345678.0, 1,
      12345678901234567.0 },
    { "100.0", "1,234,567,890,123,456", "1,000", "0.1234567890123456", "kern_c", 100, 1234567890123456.0, 1000,
      0.1234567890123456 },
    { "1.0", "1,234", "1", "1.5", "kern d with spaces", 1, 1234, 1, 1.5 },
  };
  char buf[4096];
  size_t k = (size_t)snprintf(buf, sizeof buf,
                              "[6/8] Executing 'cuda_gpu_kern_sum' stats report\n\n"
                              "%9s  %24s  %9s  %24s  %s\n%9s  %24s  %9s  %24s  %s\n",
                              "Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Name", "---------",
                              "------------------------", "---------", "------------------------", "------");
  size_t nr = sizeof rows / sizeof rows[0];
  for (size_t i = 0; i < nr; i++)
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%9s  %24s  %9s  %24s  %s%s", rows[i].share, rows[i].total,
                          rows[i].calls, rows[i].avg, rows[i].name,
                          i + 1 < nr ? "\n" : ""); /* the last without a newline */
  pl_profile *p = load_at_guard(buf, k, "nsys-stats");
  TC_CHECK(p != NULL);
  if (!p) {
    fprintf(stderr, "%s\n", errbuf);
    return;
  }
  const pl_table *t = pl_profile_find(p, "cuda_gpu_kern_sum");
  TC_EQ_INT(t ? t->nrows : 0, nr);
  for (size_t i = 0; t && i < t->nrows; i++) {
    TC_CHECK(same_double(fh_num(t, "share_pct", i), rows[i].vs));
    TC_CHECK(same_double(fh_num(t, "total_ns", i), rows[i].vt));
    TC_EQ_INT(pl_cell_int(t, pl_table_col(t, "calls"), i), rows[i].vc);
    TC_CHECK(same_double(fh_num(t, "mean_ns", i), rows[i].va));
    TC_EQ_STR(fh_str(t, "name", i), rows[i].name);
    TC_EQ_INT(pl_cell_int(t, pl_table_col(t, "line"), i), i + 5);
  }
  pl_profile_free(p);
  /* a bad cell: the general path's error */
  k = (size_t)snprintf(buf, sizeof buf,
                       "[6/8] Executing 'cuda_gpu_kern_sum' stats report\n\n"
                       " Time (%%)  Total Time (ns)  Avg (ns)  Name\n --------  ---------------  --------  ----\n"
                       "     43.6    5,126,736,469   69,10.7  kern_a\n");
  p = load_at_guard(buf, k, "nsys-stats");
  TC_CHECK(p == NULL);
  if (p) pl_profile_free(p);
  else TC_EQ_STR(errbuf, "t.txt:5:30: expected a number in column 'Avg (ns)', found \"69,10.7\"");
}

/* torch-table: rows the fast split takes and rows only assign_cells reads
** (a cell wider than its column, an empty cell, a tab, '--') give the same
** cells; the table ends at the buffer's end without a newline. */
/* A torch-table body row as written and the values it must read as. */
typedef struct tt_row {
  const char *name, *pct, *t, *calls;
  double vp, vt;
  long long vc;
} tt_row;

/* The operators table holds rows[0..nr) in order, from line 4 on. */
static void check_tt_rows(const pl_table *t, const tt_row *rows, size_t nr) {
  TC_EQ_INT(t ? t->nrows : 0, nr);
  for (size_t i = 0; t && i < t->nrows; i++) {
    TC_EQ_STR(fh_str(t, "name", i), rows[i].name);
    double vp = fh_num(t, "self_cpu_pct", i);
    TC_CHECK(isnan(rows[i].vp) ? isnan(vp) : same_double(vp, rows[i].vp));
    TC_CHECK(same_double(fh_num(t, "self_cpu_ns", i), rows[i].vt));
    TC_EQ_INT(pl_cell_int(t, pl_table_col(t, "calls"), i), rows[i].vc);
    TC_EQ_INT(pl_cell_int(t, pl_table_col(t, "line"), i), i + 4);
  }
}

static void test_torch(void) {
  const char *sep = "------------------  ------------  ------------  ------------  ";
  char buf[4096];
  size_t k = (size_t)snprintf(buf, sizeof buf, "%s\n%18s  %12s  %12s  %12s  \n%s\n", sep, "Name", "Self CPU %",
                              "Self CPU", "# of Calls", sep);
  static const tt_row rows[] = {
    { "aten::mm", "33.95%", "2.485s", "420", 33.95, 2.485e9, 420 },
    { "aten::add_", "0.00%", "0.000us", "7", 0, 0, 7 },
    { "Memcpy HtoD (Dev)", "1.50%", "315.110us", "1", 1.5, 315110, 1 },
    { "aten::copy_", "12.00%", "1234567890.123us", "2", 12, 1234567890123.0, 2 }, /* ditto */
    { "aten::to", "--", "1.091ms", "3", NAN, 1091000, 3 },
    { "aten::relu", "\t4.10%", "28.041us", "4", 4.1, 28041, 4 },
    { "aten::empty", "5.00%", "12ns", "5", 5, 12, 5 },
  };
  size_t nr = sizeof rows / sizeof rows[0];
  for (size_t i = 0; i < nr; i++)
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%18s  %12s  %12s  %12s  \n", rows[i].name, rows[i].pct, rows[i].t,
                          rows[i].calls);
  k += (size_t)snprintf(buf + k, sizeof buf - k, "%s\nSelf CPU time total: 7.320s", sep); /* no final newline */
  pl_profile *p = load_at_guard(buf, k, "torch-table");
  TC_CHECK(p != NULL);
  if (!p) {
    fprintf(stderr, "%s\n", errbuf);
    return;
  }
  const pl_table *t = pl_profile_find(p, "operators");
  check_tt_rows(t, rows, nr);
  const pl_meta *m = pl_profile_meta_get(p, "self_cpu_time_total_ns");
  TC_CHECK(m && m->num == 7.32e9);
  pl_profile_free(p);
  /* a body row at the buffer's end, no closing line */
  k = (size_t)snprintf(buf, sizeof buf, "%s\n%18s  %12s  %12s  %12s  \n%s\n%18s  %12s  %12s  %12s", sep, "Name",
                       "Self CPU %", "Self CPU", "# of Calls", sep, "aten::mm", "33.95%", "2.485s", "420");
  p = load_at_guard(buf, k, "torch-table");
  TC_CHECK(p == NULL);
  if (p) pl_profile_free(p);
  else
    TC_EQ_STR(errbuf,
              "t.txt:5:1: expected a row or the closing '----' line of the key_averages table, found end of file");
}

/* torch-table, the bitmap split: name columns 18 to 1100 wide (a span
** that fits the 64-bit window, one that does not, lines over several
** words and over the bitmap's 1024 bytes), shifted by 0 to 9 columns so
** spans straddle word boundaries; rows the fast split takes next to rows
** it gives up on (two spaces or a tab inside a name, a cell over its span,
** long counts, signs) read the same as the hand-computed values; the last
** row at the buffer's end. */
static void test_torch_wide(void) {
  static const int widths[] = { 18, 55, 60, 62, 63, 64, 65, 70, 127, 130, 1000, 1100 };
  static const tt_row rows[] = {
    { "aten::mm", "33.95%", "2.485s", "420", 33.95, 2.485e9, 420 },
    { "aten::add_", "0.00%", "0.000us", "7", 0, 0, 7 },
    { "Memcpy HtoD (Dev)", "1.50%", "315.110us", "123456789012345", 1.5, 315110, 123456789012345LL },
    { "a  b", "2.00%", "1.000ms", "1234567890123456", 2, 1e6, 1234567890123456LL }, /* two spaces: general */
    { "c\td", "3.00%", "2.000ms", "+7", 3, 2e6, 7 },                                /* a tab: general */
    { "aten::to", "--", "1.091ms", "-", NAN, 1091000, PL_INT_NA },
    { "aten::empty", "5.00%", "12ns", "0", 5, 12, 0 },
    { "x", "100.00%", "1234567890.123us", "99", 100, 1234567890123.0, 99 },
  };
  size_t nr = sizeof rows / sizeof rows[0];
  static char buf[40000];
  char sep[1300];
  for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
    for (int shift = 0; shift < 10; shift += 3) {
      int w = widths[wi] + shift;
      int k0 = 0;
      for (int j = 0; j < w; j++) sep[k0++] = '-';
      k0 += snprintf(sep + k0, sizeof sep - (size_t)k0, "  ------------  ------------  ------------");
      size_t k = (size_t)snprintf(buf, sizeof buf, "%s\n%*s  %12s  %12s  %12s\n%s\n", sep, w, "Name", "Self CPU %",
                                  "Self CPU", "# of Calls", sep);
      for (size_t i = 0; i < nr; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%*s  %12s  %12s  %12s\n", w, rows[i].name, rows[i].pct,
                              rows[i].t, rows[i].calls);
      k += (size_t)snprintf(buf + k, sizeof buf - k, "%s\nSelf CPU time total: 7.320s", sep);
      pl_profile *p = load_at_guard(buf, k, "torch-table");
      TC_CHECK(p != NULL);
      if (!p) {
        fprintf(stderr, "width %d: %s\n", w, errbuf);
        continue;
      }
      const pl_table *t = pl_profile_find(p, "operators");
      check_tt_rows(t, rows, nr);
      pl_profile_free(p);
      /* the last row at the buffer's end (no newline, no closing line) */
      k = (size_t)snprintf(buf, sizeof buf, "%s\n%*s  %12s  %12s  %12s\n%s\n%*s  %12s  %12s  %12s", sep, w, "Name",
                           "Self CPU %", "Self CPU", "# of Calls", sep, w, "aten::mm", "33.95%", "2.485s", "420");
      p = load_at_guard(buf, k, "torch-table");
      TC_CHECK(p == NULL);
      if (p) pl_profile_free(p);
    }
}

/* pl_skip_spaces against a byte loop: every start of every prefix of
** random space runs, the text ending at the guard page */
static void test_skip_spaces(void) {
  unsigned seed = 7;
  char b[64];
  for (int t = 0; t < 400; t++) {
    size_t n = (size_t)(t % 40);
    for (size_t i = 0; i < n; i++) {
      seed = seed * 1103515245u + 12345u;
      unsigned r = (seed >> 16) % 10;
      b[i] = r < 7 ? ' ' : r == 7 ? 'x' : r == 8 ? '\t' : '\0'; /* tabs and NULs are not spaces */
    }
    const char *g = at_guard(b, n);
    for (size_t i = 0; i <= n; i++) {
      size_t want = i;
      while (want < n && g[want] == ' ') want++;
      TC_EQ_INT((long long)pl_skip_spaces(g, i, n), (long long)want);
    }
  }
  /* a long run: the word loop to the end */
  memset(b, ' ', 64);
  const char *g = at_guard(b, 64);
  TC_EQ_INT((long long)pl_skip_spaces(g, 0, 64), 64);
  TC_EQ_INT((long long)pl_skip_spaces(g, 3, 64), 64);
  TC_EQ_INT((long long)pl_skip_spaces(g, 5, 3), 5); /* past the end: as given */
}

int main(void) {
  test_skip_spaces();
  test_grouped();
  test_kernel_table();
  test_nsys();
  test_torch();
  test_torch_wide();
  return tc_done();
}

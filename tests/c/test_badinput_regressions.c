/* test_badinput_regressions.c -- bugs the bad-input suite (tests/badinput)
** found, each pinned here at the C level, and the --lenient contract of
** pl_lenient_skip. */
#include "tcheck.h"
#include "format.h"
#include "scan.h"

static const char *diag(const pl_profile *p, size_t i) { return i < p->ndiags ? p->diags[i].msg : ""; }

int main(void) {
  double v = 0;
  /* 1. A finite literal that overflows a double read as infinity, so "1e400"
  **    became an inf in tables (kernel-table utilisation, ncu metrics,
  **    rocprof times).  Now it is not a number. */
  TC_EQ_INT(pl_parse_double("1e400", 5, &v), -1);
  TC_EQ_INT(pl_parse_double("-123456789012345678e300", 23, &v), -1);
  TC_EQ_INT(pl_parse_double("1.7976931348623157e308", 22, &v), 0); /* DBL_MAX stays */
  TC_CHECK(v > 1.79e308);
  TC_EQ_INT(pl_parse_double("1e-400", 6, &v), 0); /* underflow: 0 */
  TC_CHECK(v == 0);
  TC_EQ_INT(pl_parse_double("inf", 3, &v), 0); /* written as inf: kept */
  TC_EQ_INT(pl_parse_double("-Infinity", 9, &v), 0);
  {
    /* the DRAM value of row 2 overflows: line 3, column 73 ("1e999"; counted with python) */
    const char *t = "Kernel                                                 Latency Tensor   DRAM\n"
                    "a_kernel                                          |       4160   0.00   0.00\n"
                    "b_kernel                                          |       4160   0.00   1e999\n";
    pl_err e;
    pl_profile *p = pl_load_buffer("t.txt", t, strlen(t), "kernel-table", NULL, &e);
    TC_CHECK(p == NULL);
    TC_EQ_INT(e.line, 3);
    TC_EQ_INT(e.col, 73);
    TC_EQ_STR(e.msg, "expected the DRAM utilisation (a number), found \"1e999\"");
    pl_profile_free(p);
    /* --lenient: row 2 skipped and listed, row 1 kept */
    pl_parse_opts o;
    memset(&o, 0, sizeof o);
    o.lenient = 1;
    p = pl_load_buffer("t.txt", t, strlen(t), "kernel-table", &o, &e);
    TC_CHECK(p != NULL);
    if (p) {
      TC_EQ_INT(pl_profile_find(p, "kernels")->nrows, 1);
      TC_EQ_INT(p->ndiags, 1);
      TC_EQ_INT(p->diags[0].line, 3);
      TC_EQ_STR(diag(p, 0), "skipped: expected the DRAM utilisation (a number), found \"1e999\" (column 73)");
    }
    pl_profile_free(p);
  }
  /* 1b. Doubles cast to int64 out of range (UB; the fuzzers' finds in
  **     ncu-csv grid sizes, nvprof counts, rocprof timestamps): pl_int_of
  **     gives "missing" instead. */
  TC_EQ_INT(pl_int_of(3.62678e+75), PL_INT_NA);
  TC_EQ_INT(pl_int_of(NAN), PL_INT_NA);
  TC_EQ_INT(pl_int_of(-1e19), PL_INT_NA);
  TC_EQ_INT(pl_int_of(9007199254740993.0), 9007199254740992LL); /* the double nearest */
  TC_EQ_INT(pl_int_of(-42.9), -42);
  /* 2. Content detection that found no format gave "FILE: cannot tell ..."
  **    with no position; now FILE:1:1, or the byte of the first NUL for
  **    binary data. */
  {
    pl_err e;
    const char *t = "hello\nworld\n";
    TC_CHECK(pl_load_buffer("x", t, strlen(t), NULL, NULL, &e) == NULL);
    TC_EQ_INT(e.line, 1);
    TC_EQ_INT(e.col, 1);
    char out[2048];
    pl_err_format(&e, out, sizeof out);
    /* the core's words; the host adds "name the format with --input-format" by kind */
    TC_EQ_STR(out, "x:1:1: cannot tell which profiler wrote this file");
    TC_EQ_INT(e.kind, PL_ERR_UNDETECTED);
    const char bin[] = "\x7f"
                       "ELF\x02\x01\x01\x00\x00\x00garbage";
    TC_CHECK(pl_load_buffer("y", bin, sizeof bin - 1, NULL, NULL, &e) == NULL);
    TC_EQ_INT(e.line, 0);
    TC_EQ_INT(e.offset, 7); /* the first NUL */
    pl_err_format(&e, out, sizeof out);
    TC_CHECK(strncmp(out, "y: byte 7: cannot tell", 22) == 0);
  }
  /* 3. pl_lenient_skip: no-op without lenient, keeps the file name with it */
  {
    pl_profile *p = pl_profile_new("x", "f");
    pl_err e;
    pl_err_clear(&e);
    snprintf(e.file, sizeof e.file, "f.txt");
    pl_err_set(&e, 4, 9, "expected a number, found \"q\"");
    TC_EQ_INT(pl_lenient_skip(NULL, p, &e), 0);
    TC_EQ_INT(e.line, 4);
    pl_parse_opts o;
    memset(&o, 0, sizeof o);
    TC_EQ_INT(pl_lenient_skip(&o, p, &e), 0);
    o.lenient = 1;
    TC_EQ_INT(pl_lenient_skip(&o, p, &e), 1);
    TC_EQ_STR(e.msg, "");
    TC_EQ_STR(e.file, "f.txt");
    TC_EQ_INT(p->ndiags, 1);
    TC_EQ_STR(diag(p, 0), "skipped: expected a number, found \"q\" (column 9)");
    pl_profile_free(p);
  }
  return tc_done();
}

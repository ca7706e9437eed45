/*
** test_load_limits.c -- a file larger than the memory allowed gives a clear
** error from pl_load_file (no crash, no kill), and an interrupt flag set
** before the parse stops it with "interrupted".  The memory limit is an
** address-space limit (what perflab --max-memory sets); not under ASan,
** whose shadow memory needs an unlimited address space.
*/
#include "tcheck.h"
#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

/* a kernel table of about `mb` MB */
static void write_table(const char *path, size_t mb) {
  FILE *f = fopen(path, "w");
  fputs("Kernel                                                 Latency Tensor   DRAM\n", f);
  size_t n = 0, rows = mb * 1000000 / 77;
  for (size_t r = 0; r < rows; r++)
    n += (size_t)fprintf(f, "%-50s| %10zu %6.2f %6.2f\n", r % 2 ? "elementwise_kernel" : "reduce_kernel",
                         1000 + r % 977, 0.0, 0.25);
  (void)n;
  fclose(f);
}

#ifndef ASAN
static size_t vm_size(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (f) {
    if (fscanf(f, "%lu", &pages) != 1) pages = 0;
    fclose(f);
  }
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}
#endif

int main(void) {
  char path[] = "/tmp/perflab_limits_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    tc_fail++;
    fprintf(stderr, "FAIL: cannot create %s\n", path);
    return tc_done();
  }
  close(fd);
  write_table(path, 40);
  /* interrupt set: the kernel-table parser polls it every MB */
  volatile int stop = 1;
  pl_parse_opts o;
  memset(&o, 0, sizeof o);
  o.interrupt = &stop;
  pl_err e;
  pl_profile *p = pl_load_file(path, "kernel-table", &o, &e);
  TC_CHECK(p == NULL);
  TC_EQ_STR(e.msg, "interrupted");
  pl_profile_free(p);
  /* without it, the whole file loads: 519480 rows (40e6 / 77) */
  /* (the loader releases the pages of the mapped file the parser has passed:
  ** the values must be those written all the same, and the peak resident
  ** set stays below file + tables: 40 MB + 519480 rows x 56 bytes = 69 MB) */
  p = pl_load_file(path, "kernel-table", NULL, &e);
  TC_CHECK(p != NULL);
  if (p) {
    const pl_table *t = pl_profile_find(p, "kernels");
    TC_EQ_INT(t->nrows, 519480);
    double sum = 0, want = 0;
    for (size_t r = 0; r < 519480; r++) {
      sum += pl_cell_num(t, 2, r);
      want += (double)(1000 + r % 977);
    }
    TC_NEAR(sum, want, 0);
    pl_profile_free(p);
  }
#ifndef ASAN
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  TC_CHECK(ru.ru_maxrss < 55 * 1024); /* KB: tables (29 MB) + a window of the input, not all 40 MB */
#endif
#ifndef ASAN
  /* 16 MB of address space beyond what the process uses now: the 40 MB
  ** file cannot even be mapped */
  struct rlimit rl;
  getrlimit(RLIMIT_AS, &rl);
  struct rlimit lim = rl;
  lim.rlim_cur = vm_size() + (16u << 20);
  if (setrlimit(RLIMIT_AS, &lim) == 0) {
    p = pl_load_file(path, "kernel-table", NULL, &e);
    TC_CHECK(p == NULL);
    /* the core names no command-line flag: the host adds --max-memory by kind */
    TC_EQ_STR(e.msg, "the file (40 MB) does not fit in the memory allowed");
    TC_EQ_INT(e.kind, PL_ERR_TOO_BIG);
    setrlimit(RLIMIT_AS, &rl);
  } else {
    printf("SKIPPED (setrlimit refused a lower RLIMIT_AS): the address-space limit check\n");
  }
#else
  printf("SKIPPED (ASan reserves the address space): the address-space limit check\n");
#endif
  unlink(path);
  return tc_done();
}

/*
** test_kineto_par.c -- the Kineto reader on several threads gives the
** profile of the one-thread read, exactly: every table (names, order,
** columns, types, every cell, string ids included), the metadata and the
** diagnostics, or the same error.
**
** Inputs: every file under tests/data that detects as Kineto, read with
** jobs 1 and with jobs 2 and 4 at piece sizes small enough that the
** guessed splits land everywhere: inside strings, escaped quotes, nested
** arrays of objects, numbers.  And a made-up trace built for the purpose:
** names holding "}, {" and escaped quotes, args with arrays of objects,
** events the fast path declines (NaN), a non-object element; read with
** piece sizes from 5 to 299 bytes.  And a made-up trace of 6 MB, past the
** 4 MB at which the reader sizes its columns for the rows to come and
** starts faulting their pages in ahead: its later events are shorter, so
** that sizing falls short and the columns grow while pieces are being
** copied into them on other threads (kineto_par.c's finishes); new names
** keep appearing, so the string ids depend on the interning order.
*/
#include "tload.h"
#include "tsame.h"
#include "profile.h"

#include <dirent.h>
#include <sys/stat.h>

static size_t nfiles;
/* PERFLAB_TEST_LIGHT=1 (make tsan: ThreadSanitizer runs ~15x slower): one
** split of each file, a third of the piece sizes of the made-up trace */
static int light;

/* One Kineto trace of tests/data: about 100 and 30 pieces (splits at odd
** offsets, inside strings and numbers), and three. */
static void check_file(const char *path, const char *data, size_t len) {
  const int jobs[] = { 2, 4, 3 };
  const size_t chunks[] = { len / 100 + 61, len / 30 + 7, len / 3 + 1 };
  TC_CHECK(tsame_jobs("kineto", path, data, len, jobs, chunks, light ? 1 : 3, 0));
}

/* A trace made to break a naive splitter. */
static char *tricky(size_t *len) {
  static const char *const ev[] = {
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k}, {\\\"ph\\\": \\\"X\\\"}\", \"pid\": 0, \"tid\": 7, \"ts\": "
    "10.5, \"dur\": 2,"
    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1, \"grid\": [1, 2, 3], \"block\": [32, 1, 1]}}",
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 9, \"dur\": 5,"
    " \"args\": {\"External id\": 3, \"Input Dims\": [[2, 3], [3, 4]], \"nested\": [{\"a\": 1}, {\"b\": \"}, {\"}]}}",
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 9.25, "
    "\"dur\": 1,"
    " \"args\": {\"correlation\": 1, \"cbid\": 211}}",
    "{\"ph\": \"C\", \"name\": \"GPU 0 Utilization\", \"pid\": 0, \"ts\": 11, \"args\": {\"GPU Utilization\": NaN}}",
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"\\\\}, {\\\"\", \"pid\": 0, \"tid\": \"stream 9\", \"ts\": 12, "
    "\"dur\": 1.125}",
    "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 9.5,"
    " \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Bytes\": 512, \"Addr\": 77}}",
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ProfilerStep#4\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": "
    "100}",
    "{}",
    "17",
    "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\", \"pid\": 0, \"tid\": 7, \"ts\": 13, \"dur\": "
    "3,"
    " \"args\": {\"bytes\": 4096, \"memory bandwidth (GB/s)\": 1.5}}",
    /* a wait: the columns that only traces with waits have (a row index
    ** kept apart from the table while it is read) */
    "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"pid\": 0, \"tid\": 7, \"ts\": 14, "
    "\"dur\": 1, \"args\": {\"stream\": 7, \"wait_on_stream\": 9, \"wait_on_cuda_event_record_corr_id\": 1}}",
  };
  size_t nev = sizeof ev / sizeof ev[0];
  pl_buf b;
  pl_buf_init(&b);
  const char *head = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  pl_buf_add(&b, head, strlen(head));
  for (int rep = 0; rep < 4; rep++)
    for (size_t i = 0; i < nev; i++) {
      if (rep || i) pl_buf_add(&b, rep % 3 ? ",\n  " : ",", rep % 3 ? 4 : 1);
      pl_buf_add(&b, ev[(i + (size_t)rep) % nev], strlen(ev[(i + (size_t)rep) % nev]));
    }
  const char *tail = "\n], \"displayTimeUnit\": \"ms\"}\n";
  pl_buf_add(&b, tail, strlen(tail));
  *len = b.len;
  return b.data;
}

/* A trace of about mb MB: kernels, CPU ops and runtime calls, new names
** all along; past 4.25 MB its events are a quarter as long (four times
** the rows a byte). */
static char *big(size_t mb, size_t *len) {
  pl_buf b;
  pl_buf_init(&b);
  const char *head = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  pl_buf_add(&b, head, strlen(head));
  char ev[512];
  for (size_t i = 0; b.len < (mb << 20); i++) {
    int half = b.len > (17u << 18);
    size_t name = i % (7 + i / 50); /* a new name now and then */
    int n;
    switch (i % 3) {
      case 0:
        n = snprintf(ev, sizeof ev,
                     "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%zu\", \"pid\": 0, \"tid\": %zu, \"ts\": "
                     "%zu.%zu, \"dur\": %zu%s}",
                     name, 7 + i % 4, 1000 + i, i % 1000, 1 + i % 97,
                     half ? ""
                          : ", \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 12345, \"grid\": [1, 2, 3], "
                            "\"block\": [128, 1, 1], \"registers per thread\": 32, \"shared memory\": 0, \"pad\": "
                            "\"................................................................................\"}");
        break;
      case 1:
        n = snprintf(
            ev, sizeof ev,
            "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%zu\", \"pid\": 1, \"tid\": 1, "
            "\"ts\": %zu, \"dur\": %zu%s}",
            name, 1000 + i, 2 + i % 31,
            half ? ""
                 : ", \"args\": {\"External id\": 77, \"Input Dims\": [[2, 3], [3, 4]], \"Sequence number\": 5, "
                   "\"pad\": \"..................................................................................."
                   "...........................................................................\"}");
        break;
      default:
        n = snprintf(
            ev, sizeof ev,
            "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
            "\"tid\": %zu, \"ts\": %zu, \"dur\": 1%s}",
            1 + i % 2, 1000 + i,
            half ? ""
                 : ", \"args\": {\"correlation\": 12345, \"cbid\": 211, \"pad\": \"......................."
                   "..............................................................................................."
                   "................................\"}");
    }
    if (i) pl_buf_add(&b, ",\n", 2);
    pl_buf_add(&b, ev, (size_t)n);
  }
  const char *tail = "\n]}\n";
  pl_buf_add(&b, tail, strlen(tail));
  *len = b.len;
  return b.data;
}

int main(void) {
  size_t m0, r0, m1, r1;
  light = getenv("PERFLAB_TEST_LIGHT") != NULL;
  pl_kineto_par_counts(&m0, &r0);
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", tl_shared());
  if (tc_need(dir)) nfiles = tsame_walk(dir, "kineto", check_file);
  TC_CHECK(nfiles >= 10); /* tests/data holds 15 Kineto traces */
  pl_kineto_par_counts(&m1, &r1);
  TC_CHECK(m1 - m0 > (light ? 200u : 500u)); /* the parallel path ran and merged pieces */

  size_t len;
  char *t = tricky(&len);
  /* piece sizes 5, 8, ... 299 bytes: splits at most offsets of each event */
  int jobs[100];
  size_t chunks[100];
  for (int i = 0; i < 99; i++) {
    jobs[i] = 2 + i % 3;
    chunks[i] = 5 + 3 * (size_t)i;
  }
  pl_kineto_par_counts(&m0, &r0);
  size_t nsz = light ? 33 : 99;
  TC_CHECK(tsame_jobs("kineto", "tricky.json", t, len, jobs, chunks, nsz, 0));
  TC_CHECK(tsame_jobs("kineto", "tricky.json", t, len, jobs, chunks, nsz, 1));
  pl_kineto_par_counts(&m1, &r1);
  fprintf(stderr, "tricky trace: %zu bytes, %zu pieces merged, %zu read again\n", len, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 150u : 500u)); /* pieces merged ... */
  TC_CHECK(r1 - r0 > (light ? 150u : 500u)); /* ... and guesses inside strings caught and read again */
  /* a cut trace: the same error whatever the split */
  TC_CHECK(tsame_jobs("kineto", "cut.json", t, len / 2, jobs, chunks, light ? 10 : 30, 0));
  /* a damaged event in the middle: the same error */
  char *bad = strstr(t + len / 2, "\"dur\": 5");
  if (bad) {
    bad[7] = 'x';
    TC_CHECK(tsame_jobs("kineto", "bad.json", t, len, jobs, chunks, light ? 10 : 30, 0));
  }
  free(t);

  /* 8 MB: past the sizing at 4 MB (fmt_kineto.c's pl_kin_progress), which
  ** falls short */
  t = big(8, &len);
  TC_CHECK(len > (7u << 20));
  const int bjobs[] = { 2, 3 };
  const size_t bchunks[] = { 65536 + 13, 300007 };
  pl_kineto_par_counts(&m0, &r0);
  TC_CHECK(tsame_jobs("kineto", "big.json", t, len, bjobs, bchunks, light ? 1 : 2, 0));
  pl_kineto_par_counts(&m1, &r1);
  fprintf(stderr, "big trace: %zu bytes, %zu pieces merged, %zu read again\n", len, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > 120); /* about 128 pieces of 64 KB, all merged but the first */
  free(t);
  return tc_done();
}

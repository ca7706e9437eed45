/*
** test_line_par.c -- the line-based readers on several threads give the
** profile of the one-thread read, exactly: every table (names, order,
** columns, docs, types, every cell, string ids and pool sizes included),
** the metadata and the diagnostics, or the same error.
**
** ncu text (fmt_ncu_text.c, cut at launch blocks): every file under
** tests/data that detects as ncu-text, with jobs 1 and with jobs 2, 3 and
** 4 at about 100, 30 and 3 pieces; and a made-up report built to break a
** naive split (process lines and kernel lines with and without each
** other, blank lines between them, a rule message that a deeper-indented
** kernel-shaped line continues, ==ERROR== lines waiting for a later
** launch, an automatic kernel column whose first value is text in one
** launch and a number in another, a locale number, the 2019 layout with
** its NVTX ranges and pending sections, program output, prompts), at
** piece sizes from 7 to 1500 bytes, plain and --lenient, cut short and
** damaged; and the --print-summary layout behind a long program output
** (the body's end for par.c's driver).  ncu CSV the same way.  The
** kernel table and the nvprof GPU trace (par.c's pl_par_body_read, as ncu
** text): made-up inputs cut short, damaged in a later piece, --lenient.  The generic typed CSV table
** (csvread.c: formats csv and rocprof): every such file under tests/data,
** and a made-up CSV whose column kinds change from piece to piece, with
** quoted line ends and texts new on every row (csv_tricky).
*/
#include "tload.h"
#include "tsame.h"
#include "profile.h"
#include "pl_util.h"
#include "csvread.h"
#include "par.h"

#include <dirent.h>
#include <sys/stat.h>

static const char *fmt_id; /* the format under test */

static pl_profile *load(const char *name, const char *data, size_t len, int jobs, size_t chunk, int lenient,
                        char *errbuf, size_t errsz) {
  return tsame_load(fmt_id, name, data, len, jobs, chunk, lenient, errbuf, errsz);
}

static size_t nfiles;
/* PERFLAB_TEST_LIGHT=1 (make tsan: ThreadSanitizer runs ~15x slower):
** one split of each file, fewer piece sizes of the made-up inputs */
static int light;

/* One file of tests/data in the format under test: about 100 and 30
** pieces, and three; and once with --lenient. */
static void check_file(const char *path, const char *data, size_t len) {
  const int jobs[] = { 2, 4, 3 };
  const size_t chunks[] = { len / 100 + 61, len / 30 + 7, len / 3 + 1 };
  TC_CHECK(tsame_jobs(fmt_id, path, data, len, jobs, chunks, light ? 1 : 3, 0));
  if (!light) TC_CHECK(tsame_jobs(fmt_id, path, data, len, jobs, chunks, 1, 1));
}

/* ---- ncu text ----------------------------------------------------------- */

static void add(pl_buf *b, const char *s) { pl_buf_add(b, s, strlen(s)); }

/* One launch block of the current layout. */
static void ncu_block(pl_buf *b, int i, int with_proc, int blank, const char *launch_val, const char *regs) {
  char line[512];
  if (with_proc) {
    snprintf(line, sizeof line, "[%d] app%d@127.0.0.1\n", 400 + i % 2, i % 2);
    add(b, line);
    for (int k = 0; k < blank; k++) add(b, k % 2 ? "   \n" : "\n");
  }
  snprintf(line, sizeof line,
           "  kern_%d(float *, int) (%d, 1, 1)x(128, 1, 1), Context 1, Stream %d, Device 0, CC 8.%d\n", i % 3, 8 + i,
           7 + i % 2, i % 2 ? 6 : 0);
  add(b, line);
  add(b, "    Section: GPU Speed Of Light Throughput\n"
         "    ----------------------- ------------- ------------\n"
         "    Metric Name               Metric Unit Metric Value\n"
         "    ----------------------- ------------- ------------\n");
  snprintf(line, sizeof line, "    Duration                      usecond        %d.%02d\n", 3 + i, i * 7 % 100);
  add(b, line);
  add(b, "    Memory Throughput                   %        41.25\n"
         "    ----------------------- ------------- ------------\n\n");
  add(b, "    WRN   This kernel uses 128 threads of the GPU's 108 multiprocessors; see\n"
         "          https://docs.nvidia.com/nsight-compute/ for more.\n\n");
  add(b, "    Section: Launch Statistics\n"
         "    -------------------------------- --------------- ---------------\n"
         "    Metric Name                          Metric Unit    Metric Value\n"
         "    -------------------------------- --------------- ---------------\n");
  snprintf(line, sizeof line, "    Registers Per Thread             register/thread %15s\n", regs);
  add(b, line);
  snprintf(line, sizeof line, "    Odd Launch Thing                                 %15s\n", launch_val);
  add(b, line);
  add(b, "    Grid Size                                                      8\n"
         "    -------------------------------- --------------- ---------------\n\n");
}

/* The 2019-2020 layout: the range, the sections, then the kernel line. */
static void ncu_block_2019(pl_buf *b, int i) {
  char line[512];
  snprintf(line, sizeof line, "==PROF==   %d: Range %d\n", i, i);
  add(b, line);
  add(b, "    Section: GPU Speed Of Light\n"
         "    ---------------------------------------- --------------- ------------\n");
  snprintf(line, sizeof line, "    Duration                                         msecond         1.%d\n", i);
  add(b, line);
  add(b, "    ---------------------------------------- --------------- ------------\n\n");
  snprintf(line, sizeof line, "  old_kernel_%d, 2020-Feb-20 22:42:2%d, Context 1, Stream 23\n\n", i, i % 10);
  add(b, line);
}

static char *ncu_tricky(size_t *len) {
  pl_buf b;
  pl_buf_init(&b);
  add(&b, "$ ncu --set full ./app\n"
          "starting the app\n"
          "==PROF== Connected to process 400 (/tmp/app)\n"
          "==PROF== Profiling \"kern_0\" - 0: 0%....50%....100% - 8 passes\n"
          "==PROF== Profiling \"kern_1\" - 1: 0%....50%....100% - 8 passes\n"
          "==PROF== Profiling \"kern_2\" - 9: 0%....50%....100% - 8 passes\n"
          "==ERROR== LaunchFailed\n"
          "==ERROR== again\n"
          "==PROF== Disconnected from process 400\n");
  for (int i = 0; i < 14; i++) {
    int proc = i % 4 != 2;
    ncu_block(&b, i, proc, i % 3, i == 2 ? "tex(t)" : i == 5 ? "(!) nan" : "12", i == 11 ? "1 024,5" : "32");
    if (i == 4) add(&b, "program output between launches\n");
    if (i == 6) {
      /* a rule message whose next line is deeper and kernel-shaped: it continues the message */
      add(&b, "    Section: Occupancy\n"
              "    INF   A message that goes on\n"
              "              kern_x(int) (1, 1, 1)x(1, 1, 1), Context 1, Stream 1, Device 0, CC 8.0\n");
    }
  }
  /* launches without process lines at all, then the 2019 layout */
  pl_buf c;
  pl_buf_init(&c);
  for (int i = 0; i < 4; i++) ncu_block(&c, 20 + i, 0, 0, "3", "32");
  for (int i = 0; i < 4; i++) ncu_block_2019(&c, i);
  add(&b, "==PROF== Report: /tmp/out.ncu-rep\n");
  pl_buf_add(&b, c.data, c.len);
  pl_buf_free(&c);
  *len = b.len;
  return b.data;
}

static char *ncu_noproc(size_t *len) {
  pl_buf b;
  pl_buf_init(&b);
  for (int i = 0; i < 12; i++) ncu_block(&b, i, 0, 0, i == 3 ? "word" : "7", "32");
  *len = b.len;
  return b.data;
}

/* The --print-summary per-kernel layout after a long program output: the
** reader meets it at its first kernel line and reads the input again with
** the summary reader. */
static char *ncu_summary(size_t *len) {
  pl_buf b;
  pl_buf_init(&b);
  char line[512];
  for (int i = 0; i < 120; i++) {
    snprintf(line, sizeof line, "program output line %d\n", i);
    add(&b, line);
  }
  add(&b, "[69642] transpose@127.0.0.1\n");
  for (int i = 0; i < 10; i++) {
    snprintf(line, sizeof line, "  k%d(float *) (32, 32, 1)x(32, 32, 1), Device 0, CC 8.6, Invocations %d\n", i, i + 1);
    add(&b, line);
    add(&b, "    Section: GPU Speed Of Light Throughput\n"
            "    ------------- ----------- --------- --------- ---------\n"
            "    Metric Name   Metric Unit   Minimum   Maximum   Average\n"
            "    ------------- ----------- --------- --------- ---------\n");
    snprintf(line, sizeof line, "    Duration          usecond     32.06     33.10     %d.58\n", 32 + i);
    add(&b, line);
    add(&b, "    ------------- ----------- --------- --------- ---------\n\n");
  }
  *len = b.len;
  return b.data;
}

static void ncu_made_up(void) {
  size_t m0, r0, m1, r1;
  int jobs[200];
  size_t chunks[200];
  size_t nsz = 0;
  for (size_t c = 7; c <= 1500; c += light ? 61 : 13) {
    jobs[nsz] = 2 + (int)(nsz % 3);
    chunks[nsz++] = c;
  }
  size_t len;
  char *t = ncu_tricky(&len);
  /* what the one-thread read finds in it (so that the cases are there) */
  char e1[512];
  pl_profile *ref = load("tricky.txt", t, len, 1, 0, 0, e1, sizeof e1);
  TC_CHECK(ref != NULL);
  if (ref) {
    const pl_table *k = tl_table(ref, "kernels");
    TC_EQ_INT(k->nrows, 22); /* 14 + 4 blocks, 4 in the 2019 layout (the continued kernel line is no launch) */
    int le = pl_table_col(k, "launch_error"), pr = pl_table_col(k, "process");
    TC_CHECK(le >= 0 && pr >= 0 && pl_table_col(k, "odd_launch_thing") >= 0);
    if (le >= 0 && pr >= 0 && k->nrows == 22) {
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[le]->v.str[9], NULL), "LaunchFailed; again");
      TC_EQ_INT(k->cols[le]->v.str[8], 0);
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[pr]->v.str[1], NULL), "app1");
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[pr]->v.str[2], NULL), "app1"); /* no process line: the last one's */
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[pr]->v.str[10], NULL), "app1");
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[pr]->v.str[12], NULL), "app0");
    }
    const pl_meta *nf = pl_profile_meta_get(ref, "number_format");
    TC_CHECK(nf != NULL && nf->text && strstr(nf->text, "locale"));
    TC_CHECK(ref->ndiags > 0);
  }
  pl_profile_free(ref);
  pl_par_body_counts(&m0, &r0);
  TC_CHECK(tsame_jobs(fmt_id, "tricky.txt", t, len, jobs, chunks, nsz, 0));
  TC_CHECK(tsame_jobs(fmt_id, "tricky.txt", t, len, jobs, chunks, nsz, 1));
  pl_par_body_counts(&m1, &r1);
  fprintf(stderr, "tricky ncu text: %zu bytes, %zu pieces merged, %zu read again\n", len, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 50u : 300u)); /* pieces merged ... */
  TC_CHECK(r1 - r0 > (light ? 20u : 100u)); /* ... and blocks in a state a fresh reader lacks read again */
  /* cut short (inside a table at some sizes): the same error or profile */
  for (size_t cut = len / 3; cut < len; cut += len / 7)
    TC_CHECK(tsame_jobs(fmt_id, "cut.txt", t, cut, jobs, chunks, light ? 5 : 30, 0));
  TC_CHECK(tsame_jobs(fmt_id, "cut.txt", t, len * 2 / 3, jobs, chunks, light ? 5 : 30, 1));
  /* a bad value in the middle: the same error, and under --lenient the same diagnostics */
  char *bad = strstr(t + len / 2, "register/thread");
  if (bad) {
    char *v = strchr(bad, '\n');
    v[-1] = 'x';
    v[-2] = 'x';
    TC_CHECK(tsame_jobs(fmt_id, "bad.txt", t, len, jobs, chunks, light ? 10 : 40, 0));
    TC_CHECK(tsame_jobs(fmt_id, "bad.txt", t, len, jobs, chunks, light ? 10 : 40, 1));
  }
  free(t);
  t = ncu_noproc(&len);
  TC_CHECK(tsame_jobs(fmt_id, "noproc.txt", t, len, jobs, chunks, nsz, 0));
  free(t);
  t = ncu_summary(&len);
  ref = load("summary.txt", t, len, 1, 0, 0, e1, sizeof e1);
  TC_CHECK(ref != NULL && tl_rows(ref, "kernel_summary") == 10);
  pl_profile_free(ref);
  TC_CHECK(tsame_jobs(fmt_id, "summary.txt", t, len, jobs, chunks, light ? 5 : nsz, 0));
  TC_CHECK(tsame_jobs(fmt_id, "summary.txt", t, len, jobs, chunks, light ? 5 : 30, 1));
  free(t);
}

/* ---- ncu CSV ------------------------------------------------------------ */

/* The details page: launches of a few metric rows and a rule row each;
** rule texts with quoted newlines, escaped quotes and lines inside them
** that look like a launch's first record; program output and ==PROF==
** lines between records; a launch without a process name; a locale
** number late. */
static char *ncu_csv_tricky(size_t *len) {
  pl_buf b;
  pl_buf_init(&b);
  add(&b, "==PROF== Connected to process 77 (/tmp/app)\nsome output\n");
  add(&b, "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
          "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
          "\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule Description\",\"Estimated Speedup Type\","
          "\"Estimated Speedup\"\n");
  char line[1024];
  for (int i = 0; i < 40; i++) {
    const char *pn = i % 7 == 5 ? "" : i % 2 ? "app1" : "app0";
    char head[400];
    snprintf(head, sizeof head,
             "\"%d\",\"%d\",\"%s\",\"127.0.0.1\",\"k_%d(int, float)\",\"1\",\"7\",\"(%d, 1, 1)\","
             "\"(8, 1, 1)\",\"0\",\"8.%d\"",
             i, 70 + i % 2, pn, i % 4, 32 * (1 + i % 3), i % 2 ? 6 : 0);
    snprintf(line, sizeof line, "%s,\"GPU Speed Of Light Throughput\",\"Duration\",\"usecond\",\"%d.%d\",\n", head,
             3 + i, i % 10);
    add(&b, line);
    snprintf(line, sizeof line, "%s,\"GPU Speed Of Light Throughput\",\"Memory Throughput\",\"%%\",\"%s\",\n", head,
             i == 33 ? "1 024,5" : "41.5");
    add(&b, line);
    snprintf(line, sizeof line, "%s,\"Launch Statistics\",\"Odd Thing\",\"\",\"%s\",\n", head, i == 3 ? "word" : "12");
    add(&b, line);
    if (i % 3 == 1) {
      /* a rule whose text holds line ends, quotes and a line that looks like a launch's first record */
      snprintf(
          line, sizeof line,
          "%s,\"GPU Speed Of Light Throughput\",\"\",\"\",\"\",\"SOLBottleneck\",\"WRN\",\"Low \"\"throughput\"\",\n"
          "\"\"%d\"\",\"\"x\"\", see\n%d,more\",\"global\",\"12.5\"\n",
          head, i + 1, i + 1);
      add(&b, line);
    }
    if (i % 9 == 4) add(&b, "program output line\n==PROF== Disconnected from process 77\n\n");
  }
  *len = b.len;
  return b.data;
}

static void ncu_csv_made_up(void) {
  size_t m0, r0, m1, r1;
  int jobs[200];
  size_t chunks[200];
  size_t nsz = 0;
  for (size_t c = 7; c <= 3000; c += light ? 97 : 23) {
    jobs[nsz] = 2 + (int)(nsz % 3);
    chunks[nsz++] = c;
  }
  size_t len;
  char *t = ncu_csv_tricky(&len);
  char e1[512];
  pl_profile *ref = load("tricky.csv", t, len, 1, 0, 0, e1, sizeof e1);
  if (!ref) fprintf(stderr, "tricky.csv: %s\n", e1);
  TC_CHECK(ref != NULL);
  if (ref) {
    TC_EQ_INT(tl_rows(ref, "kernels"), 40);
    TC_EQ_INT(tl_rows(ref, "rules"), 13);
    TC_EQ_INT(tl_rows(ref, "metrics"), 120);
    const pl_table *k = tl_table(ref, "kernels");
    int pr = pl_table_col(k, "process");
    TC_CHECK(pr >= 0);
    if (pr >= 0 && k->nrows == 40)
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[pr]->v.str[5], NULL), "app0"); /* the last one's */
    const pl_table *r = tl_table(ref, "rules");
    int msg = pl_table_col(r, "message");
    if (msg >= 0 && r->nrows > 0)
      TC_CHECK(strstr(pl_pool_str(r->pool, r->cols[msg]->v.str[0], NULL), "\n\"2\",\"x\", see\n2,more") != NULL);
  }
  pl_profile_free(ref);
  pl_par_body_counts(&m0, &r0);
  TC_CHECK(tsame_jobs(fmt_id, "tricky.csv", t, len, jobs, chunks, nsz, 0));
  TC_CHECK(tsame_jobs(fmt_id, "tricky.csv", t, len, jobs, chunks, nsz, 1));
  pl_par_body_counts(&m1, &r1);
  fprintf(stderr, "tricky ncu CSV: %zu bytes, %zu pieces merged, %zu read again\n", len, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 50u : 300u));
  TC_CHECK(r1 - r0 > (light ? 20u : 100u));
  /* cut short (inside a quoted field at some sizes), damaged: the same error or profile */
  for (size_t cut = len / 3; cut < len; cut += len / 7)
    TC_CHECK(tsame_jobs(fmt_id, "cut.csv", t, cut, jobs, chunks, light ? 5 : 30, 0));
  TC_CHECK(tsame_jobs(fmt_id, "cut.csv", t, len * 2 / 3, jobs, chunks, light ? 5 : 30, 1));
  char *bad = strstr(t + len / 2, "\"Duration\",\"usecond\",\"");
  if (bad) {
    bad[strlen("\"Duration\",\"usecond\",\"")] = 'x';
    TC_CHECK(tsame_jobs(fmt_id, "bad.csv", t, len, jobs, chunks, light ? 10 : 40, 0));
    TC_CHECK(tsame_jobs(fmt_id, "bad.csv", t, len, jobs, chunks, light ? 10 : 40, 1));
  }
  bad = strstr(t + len / 3, "\"Odd Thing\"");
  if (bad) {
    bad[0] = 'Q'; /* text after... a quote inside an unquoted field */
    TC_CHECK(tsame_jobs(fmt_id, "bad2.csv", t, len, jobs, chunks, light ? 10 : 40, 0));
    TC_CHECK(tsame_jobs(fmt_id, "bad2.csv", t, len, jobs, chunks, light ? 10 : 40, 1));
  }
  free(t);
}


/* ---- the generic CSV reader (csvread.c's typed table) --------------------- */

/* A typed table built to break a naive split: quoted fields holding line
** ends, escaped quotes and lines that look like records; CRLF line ends,
** blank lines and trimmed spaces; an integer column that turns decimal in
** a later piece; a column empty at first that turns text; a number column
** that turns text late (refilled by the second pass); a column empty until
** a text value deep in the file and numbers after it (a worker types it as
** numbers: that piece is read again); two columns of new texts every row
** (interned at the record's end once their map misses) before one of
** texts often new (interned at once): string ids must follow the
** one-thread read's order. */
static char *csv_tricky(size_t *len, size_t rows) {
  pl_buf b;
  pl_buf_init(&b);
  add(&b, "id,uniq_a,uniq_b,name,val,grows,late,empty,note,later,unit\n");
  char line[1024];
  for (size_t i = 0; i < rows; i++) {
    char note[300] = "";
    if (i % 17 == 3)
      snprintf(note, sizeof note, "\"say \"\"hi\"\",\n%zu,u%zu,v%zu,k,1,,2,,\"\"x\"\",,\n\nok\"", i + 1, i + 1, i + 1);
    else if (i % 11 == 5) snprintf(note, sizeof note, "\"a, b\"");
    char val[32], grows[32], late[32], later[32];
    if (i < rows * 2 / 3) snprintf(val, sizeof val, "%zu", i * 3);
    else snprintf(val, sizeof val, "%zu.%zu", i, i % 10);
    if (i < rows / 3) grows[0] = '\0';
    else snprintf(grows, sizeof grows, "\"g%zu\"", i % 50);
    if (i == rows * 3 / 4) snprintf(late, sizeof late, "late-text");
    else snprintf(late, sizeof late, "%zu.50", i % 7);
    if (i < rows * 2 / 5) later[0] = '\0';
    else if (i == rows * 2 / 5) snprintf(later, sizeof later, "n/a");
    else snprintf(later, sizeof later, "%zu", i % 13);
    snprintf(line, sizeof line, "%zu,ua%zu,\"ub,%zu\",%s%zu,%s,%s, %s ,,%s,%s,%s%s", i, i, i * 7,
             i % 5 == 0 ? "new" : "k", i % 5 == 0 ? i : i % 3, val, grows, late, note, later, i % 2 ? "ms" : "us",
             i % 9 == 2 ? "\r\n" : "\n");
    add(&b, line);
    if (i % 23 == 7) add(&b, i % 2 ? "\n" : "  \n");
  }
  *len = b.len;
  return b.data;
}

static void csv_made_up(void) {
  size_t m0, r0, m1, r1;
  int jobs[64];
  size_t chunks[64];
  size_t nsz = 0;
  size_t len;
  char *t = csv_tricky(&len, 1600);
  for (size_t c = 29; c < len / 2; c = c * 2 + (light ? 97 : 11)) {
    for (int j = 2; j <= 4; j += light ? 2 : 1) {
      jobs[nsz] = j;
      chunks[nsz++] = c;
    }
  }
  size_t nfew = light ? 4 : nsz; /* cut short and damaged: the smallest pieces only under make tsan */
  char e1[512];
  pl_profile *ref = load("tricky.csv", t, len, 1, 0, 0, e1, sizeof e1);
  if (!ref) fprintf(stderr, "tricky.csv: %s\n", e1);
  TC_CHECK(ref != NULL);
  if (ref) {
    /* what the one-thread read makes of it, so that the cases are there */
    const pl_table *k = tl_table(ref, "csv");
    TC_EQ_INT(k->nrows, 1600);
    const char *cols[] = { "id", "val", "grows", "late", "empty", "note", "later" };
    const pl_type types[] = { PL_INT, PL_NUM, PL_STR, PL_STR, PL_INT, PL_STR, PL_STR };
    for (size_t i = 0; i < 7; i++) {
      int c = pl_table_col(k, cols[i]);
      TC_CHECK(c >= 0);
      if (c >= 0) TC_EQ_INT(k->cols[c]->type, types[i]);
    }
    int late = pl_table_col(k, "late"), note = pl_table_col(k, "note"), later = pl_table_col(k, "later");
    if (late >= 0 && note >= 0 && later >= 0 && k->nrows == 1600) {
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[late]->v.str[1], NULL), "1.50"); /* as written */
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[late]->v.str[1200], NULL), "late-text");
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[note]->v.str[20], NULL), "say \"hi\",\n21,u21,v21,k,1,,2,,\"x\",,\n\nok");
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[later]->v.str[641], NULL), "4"); /* 641 % 13, as text */
      TC_EQ_INT(k->cols[later]->v.str[0], 0);
    }
  }
  pl_profile_free(ref);
  pl_csv_par_counts(&m0, &r0);
  TC_CHECK(tsame_jobs(fmt_id, "tricky.csv", t, len, jobs, chunks, nsz, 0));
  pl_csv_par_counts(&m1, &r1);
  fprintf(stderr, "tricky CSV: %zu bytes, %zu pieces merged, %zu read again\n", len, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 100u : 1000u)); /* pieces merged ... */
  TC_CHECK(r1 - r0 > (light ? 20u : 100u));   /* ... and pieces cut in a quoted field, or typed apart, read again */
  /* cut short (inside a quoted field at some sizes): the same table or error */
  for (size_t cut = len / 3; cut < len; cut += len / 7)
    TC_CHECK(tsame_jobs(fmt_id, "cut.csv", t, cut, jobs, chunks, nfew, 0));
  /* damaged: the same FILE:LINE:COLUMN error at any jobs */
  const char *damage[] = { ",k1,", ",\"ub,", "ms\n" };
  const char *with[] = { ",k\"1,", ",\"ub\"x", "ms,\n" };
  for (size_t d = 0; d < 3; d++) {
    char *copy = pl_xmalloc(len + 2);
    memcpy(copy, t, len);
    copy[len] = '\0';
    char *at = strstr(copy + len / 2, damage[d]);
    TC_CHECK(at != NULL);
    if (!at) {
      free(copy);
      continue;
    }
    size_t dl = strlen(damage[d]), wl = strlen(with[d]);
    memmove(at + wl, at + dl, len - (size_t)(at - copy) - dl); /* wl == dl + 1 */
    memcpy(at, with[d], wl);
    char e2[512];
    pl_profile *p = load("bad.csv", copy, len + 1, 1, 0, 0, e2, sizeof e2);
    TC_CHECK(p == NULL && strstr(e2, "bad.csv:") != NULL);
    pl_profile_free(p);
    TC_CHECK(tsame_jobs(fmt_id, "bad.csv", copy, len + 1, jobs, chunks, nfew, 0));
    free(copy);
  }
  free(t);
}


/* ---- the kernel latency table (fmt_kernel_table.c) ---------------------- */

/* Rows whose names repeat with other padding, templated names (their
** short names differ), names cut with "...", numbers the fast row declines
** (an exponent, 16 digits, a sign), tabs, CRLF, blank lines, and a last
** line without its newline. */
static char *kt_tricky(size_t *len, size_t rows) {
  pl_buf b;
  pl_buf_init(&b);
  add(&b, "Kernel                                   Latency Tensor   DRAM\n");
  char line[512];
  for (size_t i = 0; i < rows; i++) {
    char name[200];
    switch (i % 6) {
      case 0: snprintf(name, sizeof name, "elementwise_kernel_%zu", i % 40); break;
      case 1: snprintf(name, sizeof name, "void at::native::k%zu<float, %zu>(int)", i % 9, i % 4); break;
      case 2: snprintf(name, sizeof name, "ampere_sgemm_%zux64_nn...", 32 * (i % 5)); break;
      case 3: snprintf(name, sizeof name, "new_kernel_%zu", i); break;
      default: snprintf(name, sizeof name, "gemv2T_kernel"); break;
    }
    const char *lat = i % 13 == 4 ? "4.5e3" : i % 17 == 5 ? "1234567890123456" : "4160";
    snprintf(line, sizeof line, "%-*s|%*s%s\t%s   0.%02zu%s", (int)(40 + i % 3 * 4), name, (int)(5 + i % 4), "", lat,
             i % 11 == 3 ? "+0.5" : "0.25", i % 100, i % 7 == 2 ? "\r\n" : "\n");
    add(&b, line);
    if (i % 19 == 6) add(&b, i % 2 ? "\n" : "   \n");
  }
  add(&b, "last_kernel | 1 0.5 0.5");
  *len = b.len;
  return b.data;
}

static void kt_made_up(void) {
  size_t m0, r0, m1, r1;
  int jobs[64];
  size_t chunks[64];
  size_t nsz = 0, len;
  char *t = kt_tricky(&len, 1500);
  for (size_t c = 23; c < len / 2; c = c * 2 + 7)
    for (int j = 2; j <= 4; j += light ? 2 : 1) {
      jobs[nsz] = j;
      chunks[nsz++] = c;
    }
  size_t nfew = light ? 4 : nsz; /* cut short and damaged: the smallest pieces only under make tsan */
  char e1[512];
  pl_profile *ref = load("tricky.txt", t, len, 1, 0, 0, e1, sizeof e1);
  if (!ref) fprintf(stderr, "tricky.txt: %s\n", e1);
  TC_CHECK(ref != NULL);
  if (ref) {
    const pl_table *k = tl_table(ref, "kernels");
    TC_EQ_INT(k->nrows, 1501);
    int ln = pl_table_col(k, "line"), sh = pl_table_col(k, "short_name");
    TC_CHECK(ln >= 0 && sh >= 0);
    if (ln >= 0 && sh >= 0 && k->nrows == 1501) {
      /* row 1000: 1 header line, 1001 rows and the blank lines after rows 6, 25, ..., 994 (53) */
      TC_EQ_INT(k->cols[ln]->v.i64[1000], 1055);
      TC_EQ_STR(pl_pool_str(k->pool, k->cols[sh]->v.str[1], NULL), "k1");
    }
  }
  pl_profile_free(ref);
  pl_par_body_counts(&m0, &r0);
  TC_CHECK(tsame_jobs(fmt_id, "tricky.txt", t, len, jobs, chunks, nsz, 0));
  pl_par_body_counts(&m1, &r1);
  fprintf(stderr, "tricky kernel table: %zu bytes, %zu pieces merged, %zu read again\n", len, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 100u : 1000u));
  /* cut short (inside a row at most sizes): the same table or error */
  for (size_t cut = len / 3; cut < len; cut += len / 7)
    TC_CHECK(tsame_jobs(fmt_id, "cut.txt", t, cut, jobs, chunks, nfew, 0));
  /* bad rows: the same FILE:LINE:COLUMN error, and under --lenient the same diagnostics */
  char *bad = strstr(t + len / 2, "gemv2T_kernel");
  TC_CHECK(bad != NULL);
  if (bad) {
    char *bar = strchr(bad, '|');
    bar[-1] = '\n'; /* a row that is no row, then one without a name */
    char *bad2 = strstr(t + len * 3 / 4, "0.25");
    if (bad2) bad2[1] = 'x';
    char e2[512];
    pl_profile *p = load("bad.txt", t, len, 1, 0, 0, e2, sizeof e2);
    TC_CHECK(p == NULL && strstr(e2, "bad.txt:") != NULL);
    pl_profile_free(p);
    p = load("bad.txt", t, len, 1, 0, 1, e2, sizeof e2);
    TC_CHECK(p != NULL && p->ndiags == 3);
    pl_profile_free(p);
    pl_par_body_counts(&m0, &r0);
    TC_CHECK(tsame_jobs(fmt_id, "bad.txt", t, len, jobs, chunks, nfew, 0));
    TC_CHECK(tsame_jobs(fmt_id, "bad.txt", t, len, jobs, chunks, nfew, 1));
    pl_par_body_counts(&m1, &r1);
    TC_CHECK(r1 - r0 >= nfew); /* the bad pieces read again */
  }
  free(t);
  /* blank lines before the header, over several pieces: the piece that
  ** holds the header is read again (a worker takes the header for a bad
  ** row), then the table as before */
  pl_buf b;
  pl_buf_init(&b);
  for (int i = 0; i < 200; i++) add(&b, i % 3 ? "   \n" : "\n");
  t = kt_tricky(&len, 300);
  pl_buf_add(&b, t, len);
  free(t);
  pl_profile *p = load("early.txt", b.data, b.len, 1, 0, 0, e1, sizeof e1);
  TC_CHECK(p != NULL);
  if (p) {
    const pl_table *k = tl_table(p, "kernels");
    int ln = pl_table_col(k, "line");
    TC_EQ_INT(k->nrows, 301);
    if (ln >= 0 && k->nrows > 0) TC_EQ_INT(k->cols[ln]->v.i64[0], 202); /* 200 blank lines, the header */
  }
  pl_profile_free(p);
  pl_par_body_counts(&m0, &r0);
  TC_CHECK(tsame_jobs(fmt_id, "early.txt", b.data, b.len, jobs, chunks, light ? nfew : nsz, 0));
  TC_CHECK(tsame_jobs(fmt_id, "early.txt", b.data, b.len, jobs, chunks, nfew, 1));
  pl_par_body_counts(&m1, &r1);
  TC_CHECK(r1 - r0 >= (light ? nfew : nsz) / 2); /* the piece with the header read again, where not piece 0 */
  pl_buf_free(&b);
}


/* ---- nvprof GPU trace (fmt_nvprof.c through par.c's pl_par_body_read) ---- */

/* A --print-gpu-trace text: kernel, memcpy and Unified Memory rows, dash
** cells, a second and a third device first met deep in the file (device
** indexes follow the order of first appearance), kernel names new on some
** rows, a ==PID== line that ends the trace, rows after a blank line that
** are program output, and a second trace with other columns whose last
** line has no line end. */
static const char *const nvt_lab[] = { "Start",      "Duration",   "Grid Size",      "Block Size",
                                       "Regs*",      "SSMem*",     "DSMem*",         "Size",
                                       "Throughput", "SrcMemType", "DstMemType",     "Device",
                                       "Context",    "Stream",     "Unified Memory", "Virtual Address" };
static const int nvt_w[] = { 10, 10, 20, 15, 9, 9, 9, 9, 11, 11, 11, 16, 9, 9, 21, 16 };

static void nvt_row(pl_buf *b, const char *const *cells, const char *name) {
  char line[1024];
  size_t k = 0;
  for (int i = 0; i < 16; i++) k += (size_t)snprintf(line + k, sizeof line - k, "%*s  ", nvt_w[i], cells[i]);
  snprintf(line + k, sizeof line - k, "%s\n", name);
  add(b, line);
}

static char *nvt_tricky(size_t *len, size_t rows) {
  pl_buf b;
  pl_buf_init(&b);
  add(&b, "==100== NVPROF is profiling process 100, command: ./app\n==100== Profiling application: ./app\n"
          "==100== Profiling result:\n");
  nvt_row(&b, nvt_lab, "Name");
  for (size_t i = 0; i < rows; i++) {
    char st[32], du[32], gr[32], ds[32], sz[32], dev[32], nm[128];
    snprintf(st, sizeof st, "%zu.%02zums", 500 + i / 100, i % 100);
    snprintf(du, sizeof du, "%zu.%zuus", 1 + i % 50, i % 10);
    snprintf(gr, sizeof gr, "(%zu 1 1)", 1 + i % 700);
    snprintf(ds, sizeof ds, "%zuB", i % 3 * 1024);
    snprintf(sz, sizeof sz, "%zu.000KB", 1 + i % 96);
    snprintf(dev, sizeof dev, "Tesla V100 (%d)",
             i > rows * 3 / 4 && i % 5 == 1 ? 2
             : i > rows * 2 / 3 && i % 2    ? 1
                                            : 0);
    if (i % 10 == 3) {
      const char *c[16] = { st,           du,         "-",      "-", "-", "-", "-", sz,
                            "13.369GB/s", "Pageable", "Device", dev, "1", "7", "-", "-" };
      nvt_row(&b, c, i % 20 == 3 ? "[CUDA memcpy HtoD]" : "[CUDA memcpy DtoH]");
    } else if (i % 10 == 7) {
      const char *c[16] = {
        st, du, "-", "-", "-", "-", "-", "-", "-", "-", "-", dev, "-", "-", "128", "0x200060000000"
      };
      nvt_row(&b, c, "[Unified Memory GPU page faults]");
    } else {
      const char *c[16] = { st, du, gr, "(128 1 1)", "32", "0B", ds, "-", "-", "-", "-", dev, "1", "7", "-", "-" };
      if (i % 7 == 2) snprintf(nm, sizeof nm, "new_kernel_%zu(int) [%zu]", i, i * 3);
      else snprintf(nm, sizeof nm, "void k%zu<float>(float*, int) [%zu]", i % 9, i * 3);
      nvt_row(&b, c, nm);
    }
  }
  add(&b, "==100== Generated result file: /tmp/x.nvvp\n\nprogram output\n");
  char line[256], c0[32], c1[32], c2[32];
  snprintf(line, sizeof line, "%10s  %10s  %12s  Name\n", "Start", "Duration", "Device");
  add(&b, line);
  for (size_t i = 0; i < rows / 4; i++) {
    snprintf(c0, sizeof c0, "%zu.5us", i);
    snprintf(c1, sizeof c1, "%zuns", i % 90);
    snprintf(c2, sizeof c2, "GTX (%zu)", i % 2);
    snprintf(line, sizeof line, "%10s  %10s  %12s  late_k%zu [%zu]%s", c0, c1, c2, i % 4, i,
             i + 1 < rows / 4 ? "\n" : "");
    add(&b, line);
  }
  *len = b.len;
  return b.data;
}

/* The --csv trace: units row, quoted cells, names with commas, escaped
** quotes and line ends (and a line inside one that looks like a record),
** empty cells, memcpy rows, devices first met late, a blank line ending
** the block. */
static char *nvc_tricky(size_t *len, size_t rows) {
  pl_buf b;
  pl_buf_init(&b);
  add(&b, "==200== NVPROF is profiling process 200, command: ./app\n==200== Profiling result:\n"
          "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\","
          "\"Registers Per Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\",\"Throughput\",\"SrcMemType\","
          "\"DstMemType\",\"Device\",\"Context\",\"Stream\",\"Name\"\nms,us,,,,,,,,B,B,KB,GB/s,,,,,,\n");
  char line[1024], nm[300], dev[64];
  for (size_t i = 0; i < rows; i++) {
    snprintf(dev, sizeof dev, "\"Tesla V100 (%d)\"",
             i > rows * 3 / 4 && i % 5 == 1 ? 2
             : i > rows / 2 && i % 2        ? 1
                                            : 0);
    if (i % 10 == 3) {
      snprintf(line, sizeof line,
               "%zu.%06zu,%zu.5,,,,,,,,,,%zu.0625,4.5,\"Pageable\",\"Device\",%s,\"1\",\"7\",\"%s\"\n", 215 + i / 1000,
               i % 1000 * 997, 1 + i % 40, 1 + i % 90, dev, i % 20 == 3 ? "[CUDA memcpy HtoD]" : "[CUDA memcpy DtoH]");
    } else {
      if (i % 13 == 5) snprintf(nm, sizeof nm, "say \"\"hi\"\", k(int,\n%zu.5,1.5,,,\"\"x\"\",\nfloat) [%zu]", i, i);
      else if (i % 7 == 2) snprintf(nm, sizeof nm, "new_kernel_%zu(float*, int) [%zu]", i, i);
      else snprintf(nm, sizeof nm, "void k%zu<float, 2>(float*, int) [%zu]", i % 9, i);
      snprintf(
          line, sizeof line,
          "%zu.%06zu,%zu.%zu,\"%zu\",\"1\",\"1\",\"128\",\"1\",\"1\",\"32\",\"0\",\"%zu\",,,,,%s,\"1\",\"7\",\"%s\"%s",
          215 + i / 1000, i % 1000 * 997, 1 + i % 40, i % 10, 1 + i % 500, i % 3 * 1024, dev, nm,
          i % 9 == 4 ? "\r\n" : "\n");
    }
    add(&b, line);
  }
  add(&b, "\n==200== Generated result file: /tmp/y.nvvp\n");
  *len = b.len;
  return b.data;
}

/* Replaces the first `what` at or past data + from with `with` (one byte
** longer): a copy, its length in *len. */
static char *damaged(const char *data, size_t *len, size_t from, const char *what, const char *with) {
  char *copy = pl_xmalloc(*len + 2);
  memcpy(copy, data, *len);
  copy[*len] = '\0';
  char *at = strstr(copy + from, what);
  if (!at) {
    free(copy);
    return NULL;
  }
  size_t dl = strlen(what), wl = strlen(with);
  memmove(at + wl, at + dl, *len - (size_t)(at - copy) - dl + 1);
  memcpy(at, with, wl);
  *len += wl - dl;
  return copy;
}

static void nvprof_made_up(int csv) {
  size_t m0, r0, m1, r1;
  int jobs[64];
  size_t chunks[64];
  size_t nsz = 0, len, rows = light ? 400 : 900; /* a multiple of 20 */
  char *t = csv ? nvc_tricky(&len, rows) : nvt_tricky(&len, rows);
  const char *name = csv ? "trace.csv" : "trace.txt";
  /* under make tsan (light): fewer and larger pieces (29-byte pieces are
  ** 8,000 schedules a load, minutes under ThreadSanitizer) */
  for (size_t c = light ? 211 : 29; c < len / 2; c = c * 2 + (light ? 97 : 11))
    for (int j = 2; j <= 4; j += light ? 2 : 1) {
      jobs[nsz] = j;
      chunks[nsz++] = c;
    }
  size_t nfew = light ? 4 : nsz;
  char e1[512];
  pl_profile *ref = load(name, t, len, 1, 0, 0, e1, sizeof e1);
  if (!ref) fprintf(stderr, "%s: %s\n", name, e1);
  TC_CHECK(ref != NULL);
  if (ref) {
    /* what the one-thread read makes of it, so that the cases are there */
    const pl_table *k = tl_table(ref, "kernels"), *m = tl_table(ref, "memcpy");
    TC_EQ_INT(m->nrows, rows / 10);
    TC_EQ_INT(k->nrows, csv ? rows - rows / 10 : rows - rows / 5 + rows / 4);
    if (!csv) TC_EQ_INT(tl_rows(ref, "unified_memory_events"), rows / 10);
    int dev = pl_table_col(k, "device"), line = pl_table_col(k, "line"), nm = pl_table_col(k, "name");
    TC_CHECK(dev >= 0 && line >= 0 && nm >= 0);
    if (dev >= 0 && line >= 0 && nm >= 0 && k->nrows > rows / 2) {
      int64_t maxdev = 0;
      for (size_t r = 0; r < k->nrows; r++)
        if (k->cols[dev]->v.i64[r] > maxdev) maxdev = k->cols[dev]->v.i64[r];
      TC_EQ_INT(maxdev, csv ? 2 : 4); /* text: the second trace's two GTX devices come after three V100s */
      TC_EQ_INT(k->cols[line]->v.i64[0], csv ? 5 : 5);
      if (csv) /* row 5 of the trace: the name with a line end, on line 5 + 5 */
        TC_EQ_STR(pl_pool_str(k->pool, k->cols[nm]->v.str[4], NULL), "say \"hi\", k(int,\n5.5,1.5,,,\"x\",\nfloat)");
      else {
        char last[32];
        snprintf(last, sizeof last, "late_k%zu", (rows / 4 - 1) % 4);
        TC_EQ_STR(pl_pool_str(k->pool, k->cols[nm]->v.str[k->nrows - 1], NULL), last);
      }
    }
  }
  pl_profile_free(ref);
  pl_par_body_counts(&m0, &r0);
  TC_CHECK(tsame_jobs(fmt_id, name, t, len, jobs, chunks, nsz, 0));
  pl_par_body_counts(&m1, &r1);
  fprintf(stderr, "made-up nvprof %s trace: %zu bytes, %zu pieces merged, %zu read again\n", csv ? "CSV" : "text", len,
          m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 50u : 500u));        /* pieces merged ... */
  if (csv) TC_CHECK(r1 - r0 > (light ? 5u : 20u)); /* ... and pieces cut inside a quoted name read again */
  /* cut short (inside a quoted field at some sizes): the same tables or error */
  for (size_t cut = len / 3; cut < len; cut += len / 7)
    TC_CHECK(tsame_jobs(fmt_id, name, t, cut, jobs, chunks, nfew, 0));
  /* damaged in a later piece: the same FILE:LINE:COLUMN error at any jobs,
  ** the same diagnostics under --lenient */
  const char *what = csv ? ",\"128\"," : "(128 1 1)";
  const char *with = csv ? ",1\"28\"," : "(128 1 x1)";
  size_t blen = len;
  char *bad = damaged(t, &blen, len * 3 / 4, what, with);
  TC_CHECK(bad != NULL);
  if (bad) {
    char e2[512];
    pl_profile *p = load(name, bad, blen, 1, 0, 0, e2, sizeof e2);
    TC_CHECK(p == NULL && strstr(e2, name) != NULL);
    fprintf(stderr, "damaged: %s\n", e2);
    pl_profile_free(p);
    pl_par_body_counts(&m0, &r0);
    TC_CHECK(tsame_jobs(fmt_id, name, bad, blen, jobs, chunks, nfew, 0));
    pl_par_body_counts(&m1, &r1);
    TC_CHECK(r1 - r0 >= nfew); /* the damaged piece read again */
    TC_CHECK(tsame_jobs(fmt_id, name, bad, blen, jobs, chunks, nfew, 1));
    free(bad);
  }
  free(t);
}

int main(void) {
  size_t m0, r0, m1, r1;
  light = getenv("PERFLAB_TEST_LIGHT") != NULL;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", tl_shared());
  if (!tc_need(dir)) return tc_done();

  fmt_id = "ncu-text";
  pl_par_body_counts(&m0, &r0);
  nfiles = tsame_walk(dir, fmt_id, check_file);
  TC_CHECK(nfiles >= 10); /* tests/data holds 11 ncu text reports */
  pl_par_body_counts(&m1, &r1);
  fprintf(stderr, "ncu text: %zu files, %zu pieces merged, %zu read again\n", nfiles, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 5u : 20u)); /* the parallel path ran and merged pieces */
  ncu_made_up();

  fmt_id = "ncu-csv";
  pl_par_body_counts(&m0, &r0);
  nfiles = tsame_walk(dir, fmt_id, check_file);
  TC_CHECK(nfiles >= 3); /* tests/data holds 5 ncu CSV files */
  pl_par_body_counts(&m1, &r1);
  fprintf(stderr, "ncu CSV: %zu files, %zu pieces merged, %zu read again\n", nfiles, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 2u : 10u));
  ncu_csv_made_up();

  fmt_id = "csv";
  pl_csv_par_counts(&m0, &r0);
  nfiles = tsame_walk(dir, fmt_id, check_file);
  TC_CHECK(nfiles >= 10);
  pl_csv_par_counts(&m1, &r1);
  fprintf(stderr, "CSV: %zu files, %zu pieces merged, %zu read again\n", nfiles, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 5u : 20u));
  csv_made_up();
  fmt_id = "rocprof";
  nfiles = tsame_walk(dir, fmt_id, check_file);
  TC_CHECK(nfiles >= 5);
  fprintf(stderr, "rocprof: %zu files\n", nfiles);

  fmt_id = "kernel-table";
  pl_par_body_counts(&m0, &r0);
  nfiles = tsame_walk(dir, fmt_id, check_file);
  TC_CHECK(nfiles >= 1);
  pl_par_body_counts(&m1, &r1);
  fprintf(stderr, "kernel table: %zu files, %zu pieces merged, %zu read again\n", nfiles, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > 2u);
  kt_made_up();

  fmt_id = "nvprof";
  pl_par_body_counts(&m0, &r0);
  nfiles = tsame_walk(dir, fmt_id, check_file);
  TC_CHECK(nfiles >= 8); /* tests/data holds 8 nvprof logs, two of them GPU traces */
  pl_par_body_counts(&m1, &r1);
  fprintf(stderr, "nvprof: %zu files, %zu pieces merged, %zu read again\n", nfiles, m1 - m0, r1 - r0);
  TC_CHECK(m1 - m0 > (light ? 2u : 10u));
  nvprof_made_up(0);
  nvprof_made_up(1);
  return tc_done();
}

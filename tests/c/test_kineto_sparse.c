/*
** test_kineto_sparse.c -- a Kineto trace whose optional columns are empty
** when the reader sizes its columns (after the first 4 MB: fmt_kineto.c's
** pl_kin_progress) gets storage for them that reads as missing without
** memory (pl_table_reserve_sparse, bigmem's fill blocks), and the values
** read are still every one the trace holds: missing where an event has
** none, the value where a later event has one (a 4 KiB page of such a
** column copied in), at jobs 1 and 2 alike.
**
** The trace is made here: 300,000 short cpu_op events (24 MB, so that the
** sizing reserves over 1 MiB for each column: a fill block's minimum);
** past 6 MB every 997th event records "Sequence number", "Fwd thread id",
** "Input Strides", "Concrete Inputs" and "flops", and the last one does.
** The expected cells come from the generator's own rule, not the reader.
*/
#include "tload.h"
#include "tsame.h"
#include "bigmem.h"
#include "profile.h"

#define NEV 300000

static int has_args(size_t i, size_t off) { return (off > (6u << 20) && i % 997 == 0) || i == NEV - 1; }

/* The trace; with[i]: event i has the optional args. */
static char *make(size_t *len, unsigned char *with) {
  pl_buf b;
  pl_buf_init(&b);
  const char *head = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  pl_buf_add(&b, head, strlen(head));
  char ev[512];
  for (size_t i = 0; i < NEV; i++) {
    with[i] = (unsigned char)has_args(i, b.len);
    int n = snprintf(ev, sizeof ev,
                     "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%zu\",\"pid\":1,\"tid\":1,"
                     "\"ts\":%zu,\"dur\":3",
                     i ? ",\n" : "", i % 13, 1000 + 10 * i);
    pl_buf_add(&b, ev, (size_t)n);
    if (with[i])
      n = snprintf(ev, sizeof ev,
                   ",\"args\":{\"Sequence number\":%zu,\"Fwd thread id\":%zu,\"Input Strides\":[[%zu,1]],"
                   "\"Concrete Inputs\":[\"\",\"%zu\"],\"flops\":%zu.5}}",
                   i, i % 7 + 1, i % 5 + 2, i % 3, i);
    else n = snprintf(ev, sizeof ev, "}");
    pl_buf_add(&b, ev, (size_t)n);
  }
  pl_buf_add(&b, "\n]}\n", 4);
  *len = b.len;
  return b.data;
}

static int col(const pl_table *t, const char *name) {
  int c = pl_table_col(t, name);
  TC_CHECK(c >= 0);
  return c;
}

/* Every cell of the optional columns against the generator's rule. */
static void check(pl_profile *p, const unsigned char *with, int jobs, int fills) {
  pl_table *t = pl_profile_find(p, "cpu_ops");
  TC_CHECK(t != NULL);
  if (!t) return;
  TC_EQ_INT(t->nrows, NEV);
  int cs = col(t, "seq"), cf = col(t, "fwd_tid"), ci = col(t, "input_strides"), cc = col(t, "concrete_inputs"),
      cl = col(t, "flops"), cd = col(t, "duration_ns");
  if (cs < 0 || cf < 0 || ci < 0 || cc < 0 || cl < 0 || cd < 0) return;
  size_t bad = 0, nwith = 0;
  char want[64];
  for (size_t i = 0; i < NEV && bad < 5; i++) {
    int ok;
    if (with[i]) {
      nwith++;
      snprintf(want, sizeof want, "[[%zu,1]]", i % 5 + 2); /* the raw text */
      const char *s = pl_cell_str(t, ci, i, NULL);
      ok = pl_cell_int(t, cs, i) == (int64_t)i && pl_cell_int(t, cf, i) == (int64_t)(i % 7 + 1) &&
           pl_cell_num(t, cl, i) == (double)i + 0.5 && s && strcmp(s, want) == 0 && !pl_cell_missing(t, cc, i);
    } else
      ok = pl_cell_missing(t, cs, i) && pl_cell_missing(t, cf, i) && pl_cell_missing(t, ci, i) &&
           pl_cell_missing(t, cc, i) && pl_cell_missing(t, cl, i);
    ok = ok && pl_cell_int(t, cd, i) == 3000;
    if (!ok) {
      bad++;
      const char *s = pl_cell_str(t, ci, i, NULL), *c = pl_cell_str(t, cc, i, NULL);
      fprintf(stderr,
              "jobs %d: cpu_ops row %zu (args %d) read wrong: seq %lld fwd %lld flops %g strides %s concrete %s\n",
              jobs, i, with[i], (long long)pl_cell_int(t, cs, i), (long long)pl_cell_int(t, cf, i),
              pl_cell_num(t, cl, i), s ? s : "-", c ? c : "-");
    }
  }
  TC_EQ_INT(bad, 0);
  TC_CHECK(nwith > 200);
  /* the storage: fill blocks where the system has them (not pre-faulted,
  ** no huge pages), ordinary ones elsewhere (ASan) */
  TC_EQ_INT(pl_column_fills(t->cols[cs]), fills);
  TC_EQ_INT(pl_column_fills(t->cols[cl]), fills);
  TC_EQ_INT(pl_column_fills(t->cols[ci]), fills);
  TC_EQ_INT(pl_column_fills(t->cols[cd]), 0); /* filled from the start */
}

int main(void) {
  static unsigned char with[NEV];
  size_t len;
  char *data = make(&len, with);
  TC_CHECK(len > (20u << 20));
  void *probe = pl_mem_alloc_fill(8, 0x8000000000000000ull);
  int fills = probe != NULL;
  pl_mem_free(probe);
  char err[2048];
  for (int jobs = 1; jobs <= 2; jobs++) {
    pl_profile *p = tsame_load("kineto", "sparse.json", data, len, jobs, 0, 0, err, sizeof err);
    TC_CHECK(p != NULL);
    if (!p) fprintf(stderr, "%s\n", err);
    else check(p, with, jobs, fills);
    pl_profile_free(p);
  }
  /* jobs 2 with small pieces: the same profile as jobs 1, cell for cell */
  const int jobs[] = { 2 };
  const size_t chunks[] = { 65536 + 13 };
  TC_CHECK(tsame_jobs("kineto", "sparse.json", data, len, jobs, chunks, 1, 0));
  free(data);
  return tc_done();
}

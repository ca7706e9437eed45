/*
** test_critpath.c -- the critical-path graph on a hand-made step, values
** worked out by hand (docs/critical-path.md's rules).
**
** CPU thread: op A [0,100] us holds a launch L [10,20] (correlation 1) and a
** blocking cudaDeviceSynchronize S [85,95] (correlation 2); GPU stream 7:
** kernel K [30,90] (correlation 1); the Context Sync of S (correlation 2,
** stream -1) ends at 95.  Edges: A.s->L.s 10, L.s->L.e 10, L.e->S.s 65,
** S.s->S.e 0 (blocking), S.e->A.e 5, L.s->K.s 20 (launch: queue 1 at the
** call, 0 at the kernel), K.s->K.e 60, K.e->S.e 0 (sync).  Longest:
** A.s L.s K.s K.e S.e A.e = 10 + 20 + 60 + 0 + 5 = 95 us (the CPU route
** is 90); with K [30,80] the CPU route wins with 90 us.
**
** The graph is built on two threads (make_nodes beside the kernels' prep,
** call stacks beside the kernels' edges): the hand-made case runs with 1
** and 2 jobs, and a generated trace of many threads, launches and kernels
** must give the same path, edge for edge, with 1 job as with 2 (make tsan
** runs this test under ThreadSanitizer).
*/
#include "critpath.h"
#include "tcheck.h"

#include <stdlib.h>
#include <string.h>

#define US 1000

static int run(int64_t kend, int jobs, pl_cp_out *o) {
  /*               A        L         K          S         ContextSync */
  int64_t ts[] = { 0, 10 * US, 30 * US, 85 * US, 86 * US };
  int64_t du[] = { 100 * US, 10 * US, (kend - 30) * US, 10 * US, 9 * US };
  uint8_t cat[] = { PL_CP_CAT_CPU_OP, PL_CP_CAT_RUNTIME, 0, PL_CP_CAT_RUNTIME, PL_CP_CAT_SYNC };
  uint32_t fl[] = { 0, PL_CP_N_LAUNCH, 0, PL_CP_N_BLOCKING, PL_CP_N_CONTEXT_SYNC };
  int64_t pid[] = { 1, 1, 2, 1, 2 }, thr[] = { 1, 1, 2, 1, 3 };
  int64_t corr[] = { -1, 1, 1, 2, 2 }, stream[] = { -1, -1, 7, -1, -1 };
  int64_t none[] = { -1, -1, -1, -1, -1 };
  pl_cp_in in = { .n = 5,
                  .ts = ts,
                  .dur = du,
                  .cat = cat,
                  .flags = fl,
                  .pid = pid,
                  .thread = thr,
                  .corr = corr,
                  .stream = stream,
                  .wait_stream = none,
                  .wait_record = none,
                  .whole = 1,
                  .jobs = jobs };
  return pl_cp_run(&in, o);
}

/* A generated trace: T CPU threads, each a run of ops holding launches
** (every 7th a blocking sync with its Context Sync record), kernels on S
** streams of one device, lengths from a fixed LCG. */
typedef struct gen {
  size_t n;
  int64_t *ts, *du, *pid, *thr, *corr, *stream, *none;
  uint8_t *cat;
  uint32_t *fl;
} gen;

static uint64_t lcg(uint64_t *x) {
  *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
  return *x >> 33;
}

static void gen_make(gen *g, int threads, int ops) {
  size_t cap = (size_t)threads * (size_t)ops * 4;
  memset(g, 0, sizeof *g);
  g->ts = calloc(cap, 8), g->du = calloc(cap, 8), g->pid = calloc(cap, 8), g->thr = calloc(cap, 8);
  g->corr = calloc(cap, 8), g->stream = calloc(cap, 8), g->none = calloc(cap, 8);
  g->cat = calloc(cap, 1), g->fl = calloc(cap, 4);
  uint64_t x = 12345;
  int64_t corr = 1, kend[4] = { 0, 0, 0, 0 };
  for (int t = 0; t < threads; t++) {
    int64_t now = ((int64_t)t * ops * 100 + (int64_t)(lcg(&x) % 50)) * US; /* mostly one after another */
    for (int k = 0; k < ops; k++) {
      size_t op = g->n++;
      int64_t len = (int64_t)(20 + lcg(&x) % 80) * US;
      g->ts[op] = now, g->du[op] = len, g->pid[op] = 1, g->thr[op] = t + 1, g->corr[op] = -1, g->stream[op] = -1;
      g->cat[op] = PL_CP_CAT_CPU_OP;
      /* the call inside the op */
      size_t l = g->n++;
      int blocking = k % 7 == 6;
      g->ts[l] = now + 5 * US, g->du[l] = (int64_t)(3 + lcg(&x) % 10) * US, g->pid[l] = 1, g->thr[l] = t + 1;
      g->corr[l] = corr, g->stream[l] = -1, g->cat[l] = PL_CP_CAT_RUNTIME;
      g->fl[l] = blocking ? PL_CP_N_BLOCKING : PL_CP_N_LAUNCH;
      if (blocking) { /* its Context Sync record */
        size_t y = g->n++;
        g->ts[y] = g->ts[l] + US, g->du[y] = g->du[l] - 2 * US, g->pid[y] = 2, g->thr[y] = 100;
        g->corr[y] = corr, g->stream[y] = -1, g->cat[y] = PL_CP_CAT_SYNC, g->fl[y] = PL_CP_N_CONTEXT_SYNC;
      } else { /* its kernel: after the call, behind the stream's last one */
        int st = lcg(&x) % 5 ? t % 4 : (int)(lcg(&x) % 4);
        size_t y = g->n++;
        int64_t at = g->ts[l] + (int64_t)(2 + lcg(&x) % 20) * US;
        if (lcg(&x) % 3 && at < kend[st]) at = kend[st] + US;
        g->ts[y] = at, g->du[y] = (int64_t)(5 + lcg(&x) % 60) * US, g->pid[y] = 2, g->thr[y] = 200 + st;
        g->corr[y] = corr, g->stream[y] = 7 + st, g->cat[y] = 0;
        kend[st] = at + g->du[y];
      }
      corr++;
      now += len + (int64_t)(lcg(&x) % 10) * US;
    }
  }
  for (size_t i = 0; i < g->n; i++) g->none[i] = -1;
}

static int gen_run(const gen *g, int jobs, pl_cp_out *o) {
  pl_cp_in in = { .n = g->n,
                  .ts = g->ts,
                  .dur = g->du,
                  .cat = g->cat,
                  .flags = g->fl,
                  .pid = g->pid,
                  .thread = g->thr,
                  .corr = g->corr,
                  .stream = g->stream,
                  .wait_stream = g->none,
                  .wait_record = g->none,
                  .whole = 1,
                  .jobs = jobs };
  return pl_cp_run(&in, o);
}

static void gen_free(gen *g) {
  free(g->ts), free(g->du), free(g->pid), free(g->thr), free(g->corr), free(g->stream), free(g->none);
  free(g->cat), free(g->fl);
}

static void hand_made(int jobs) {
  pl_cp_out o;
  TC_EQ_INT(run(90, jobs, &o), 0);
  TC_EQ_INT(o.length, 95 * US);
  TC_EQ_INT(o.npath, 6);
  TC_EQ_INT(o.nnodes, 8);
  TC_EQ_INT(o.nlaunch, 1);
  TC_EQ_INT(o.nsync, 1);
  if (o.npath == 6) {
    int64_t ev[] = { 0, 1, 2, 2, 3, 0 };
    uint8_t st[] = { 1, 1, 1, 0, 0, 0 };
    uint8_t ty[] = { PL_CP_E_OPERATOR, PL_CP_E_LAUNCH, PL_CP_E_OPERATOR, PL_CP_E_SYNC, PL_CP_E_OPERATOR };
    int64_t w[] = { 10, 20, 60, 0, 5 };
    for (int i = 0; i < 6; i++) {
      TC_EQ_INT(o.path_event[i], ev[i]);
      TC_EQ_INT(o.path_start[i], st[i]);
    }
    for (int i = 0; i < 5; i++) {
      TC_EQ_INT(o.edge_type[i], ty[i]);
      TC_EQ_INT(o.edge_weight[i], w[i] * US);
    }
  }
  pl_cp_free(&o);
  /* a shorter kernel: the CPU route (A.s L.s L.e S.s S.e A.e) is longer */
  TC_EQ_INT(run(80, jobs, &o), 0);
  TC_EQ_INT(o.length, 90 * US);
  TC_EQ_INT(o.npath, 6);
  if (o.npath == 6) TC_EQ_INT(o.path_event[2], 1);
  pl_cp_free(&o);
}

int main(void) {
  hand_made(1);
  hand_made(2);
  /* the generated trace: 1 job and 2 jobs give the same graph and path */
  gen g;
  gen_make(&g, 6, 400);
  pl_cp_out a, b;
  TC_EQ_INT(gen_run(&g, 1, &a), 0);
  TC_EQ_INT(gen_run(&g, 2, &b), 0);
  TC_CHECK(a.nlaunch > 100); /* the trace exercises launch, kernel-kernel and sync edges */
  TC_CHECK(a.nkk > 100);
  TC_CHECK(a.nsync > 10);
  TC_CHECK(a.npath > 100);
  TC_EQ_INT(b.length, a.length);
  TC_EQ_INT(b.nnodes, a.nnodes);
  TC_EQ_INT(b.nedges, a.nedges);
  TC_EQ_INT(b.nlaunch, a.nlaunch);
  TC_EQ_INT(b.nkk, a.nkk);
  TC_EQ_INT(b.nsync, a.nsync);
  TC_EQ_INT(b.noverlap, a.noverlap);
  TC_EQ_INT(b.npath, a.npath);
  if (a.npath == b.npath) {
    size_t diff = 0;
    for (size_t i = 0; i < a.npath; i++) {
      diff += a.path_event[i] != b.path_event[i] || a.path_start[i] != b.path_start[i] || a.path_ts[i] != b.path_ts[i];
      if (i + 1 < a.npath)
        diff += a.edge_type[i] != b.edge_type[i] || a.edge_weight[i] != b.edge_weight[i] ||
                a.edge_event[i] != b.edge_event[i];
    }
    TC_EQ_INT(diff, 0);
  }
  pl_cp_free(&a);
  pl_cp_free(&b);
  gen_free(&g);
  return tc_done();
}

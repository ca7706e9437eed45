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
*/
#include "critpath.h"
#include "tcheck.h"

#define US 1000

static int run(int64_t kend, pl_cp_out *o) {
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
                  .whole = 1 };
  return pl_cp_run(&in, o);
}

int main(void) {
  pl_cp_out o;
  TC_EQ_INT(run(90, &o), 0);
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
  TC_EQ_INT(run(80, &o), 0);
  TC_EQ_INT(o.length, 90 * US);
  TC_EQ_INT(o.npath, 6);
  if (o.npath == 6) TC_EQ_INT(o.path_event[2], 1);
  pl_cp_free(&o);
  return tc_done();
}

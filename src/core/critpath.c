/*
** critpath.c -- the dependency graph of a trace window and its longest path
** (HTA's CriticalPathAnalysis; the rules are in docs/critical-path.md).
**
** Everything is arrays indexed by event (trace order) or by graph node; the
** graph is an edge list turned into predecessor lists, and the longest path
** is one sweep in topological order (Kahn), O(V + E) after the sorts that
** order nodes by time and endpoints per thread.
*/
#include "critpath.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE (-1)
#define QNA  INT64_MIN

typedef struct edge {
  int64_t u, v, w, attr, seq;
  uint8_t type;
} edge;

typedef struct cp {
  const pl_cp_in *in;
  pl_cp_out *out;
  size_t n;
  int64_t *ts, *end, *dur; /* rounded */
  uint8_t *gpu_side;       /* HTA's GPU side of a correlation */
  int64_t *ic;             /* index correlation: the linked event, or NONE */
  int64_t *grp_first;      /* per event: first GPU event (by time) of its correlation group */
  uint8_t *inc;            /* in the window (HTA's clipped frame) */
  int64_t *snode, *enode;  /* per event: start/end node or NONE */
  size_t nn;
  int64_t *node_ev, *node_ts;
  uint8_t *node_start;
  edge *e;
  size_t ne, cape;
  int oom;
} cp;

static void *xcalloc(cp *c, size_t n, size_t sz) {
  if (c->oom) return NULL;
  void *p = calloc(n ? n : 1, sz);
  if (!p) c->oom = 1;
  return p;
}


static void add_edge(cp *c, int64_t u, int64_t v, uint8_t type, int zero, int64_t attr) {
  if (u < 0 || v < 0 || u == v || c->oom) return;
  if (c->ne == c->cape) {
    size_t nc = c->cape ? c->cape * 2 : 1024;
    edge *ne = realloc(c->e, nc * sizeof *ne);
    if (!ne) {
      c->oom = 1;
      return;
    }
    c->e = ne;
    c->cape = nc;
  }
  edge *x = &c->e[c->ne];
  x->u = u;
  x->v = v;
  x->type = type;
  x->attr = attr;
  x->seq = (int64_t)c->ne;
  x->w = (type == PL_CP_E_DEPENDENCY || type == PL_CP_E_SYNC || zero) ? 0 : c->node_ts[v] - c->node_ts[u];
  c->ne++;
}

/* ---- sorting helpers: an index array sorted by a key of int64s -------- */

typedef struct key4 {
  int64_t k[4];
  int64_t i;
} key4;
static int cmp_key4(const void *a, const void *b) {
  const key4 *x = a, *y = b;
  for (int j = 0; j < 4; j++)
    if (x->k[j] != y->k[j]) return x->k[j] < y->k[j] ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* ---- index correlation ---------------------------------------------- */

static void index_correlation(cp *c) {
  const pl_cp_in *in = c->in;
  size_t n = c->n, m = 0;
  key4 *k = xcalloc(c, n, sizeof *k);
  if (!k) return;
  for (size_t i = 0; i < n; i++) {
    int64_t co = in->corr[i];
    c->gpu_side[i] =
        (uint8_t)((in->stream[i] >= 0 && co >= 0) || (in->flags[i] & (PL_CP_N_EVENT_SYNC | PL_CP_N_CONTEXT_SYNC)));
    c->ic[i] = NONE;
    c->grp_first[i] = NONE;
    if (co == -1) continue;
    k[m].k[0] = co;
    k[m].k[1] = c->gpu_side[i];
    k[m].k[2] = 0;
    k[m].k[3] = 0;
    k[m].i = (int64_t)i;
    m++;
  }
  qsort(k, m, sizeof *k, cmp_key4);
  for (size_t a = 0; a < m;) {
    size_t b = a;
    while (b < m && k[b].k[0] == k[a].k[0]) b++;
    int64_t last_cpu = NONE, last_gpu = NONE, first_gpu = NONE;
    for (size_t j = a; j < b; j++) {
      int64_t i = k[j].i;
      if (c->gpu_side[i]) {
        last_gpu = i; /* trace order within the group: the last one wins, as pandas' assignment */
        if (first_gpu == NONE || c->ts[i] < c->ts[first_gpu]) first_gpu = i;
      } else last_cpu = i;
    }
    if (last_cpu != NONE && last_gpu != NONE) {
      for (size_t j = a; j < b; j++) {
        int64_t i = k[j].i;
        if (c->gpu_side[i]) c->ic[i] = last_cpu;
        else {
          c->ic[i] = last_gpu;
          c->grp_first[i] = first_gpu;
        }
      }
      /* graph launches: one CPU call, several GPU events */
      size_t ng = 0;
      for (size_t j = a; j < b; j++)
        if (c->gpu_side[k[j].i] && !(in->flags[k[j].i] & (PL_CP_N_EVENT_SYNC | PL_CP_N_CONTEXT_SYNC |
                                                          PL_CP_N_STREAM_SYNC | PL_CP_N_STREAM_WAIT)))
          ng++;
      if (ng > 1) c->out->ngraph_launch++;
    }
    a = b;
  }
  free(k);
}

/* ---- the window and HTA's clipping ---------------------------------- */

static int window(cp *c) {
  const pl_cp_in *in = c->in;
  pl_cp_out *o = c->out;
  size_t n = c->n;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  if (in->whole) {
    for (size_t i = 0; i < n; i++) {
      if (c->ts[i] < lo) lo = c->ts[i];
      if (c->end[i] > hi) hi = c->end[i];
    }
  } else {
    /* the instances in time order (HTA's frame is sorted by time) */
    size_t seen = 0;
    for (size_t i = 0; i < n; i++)
      if (in->flags[i] & PL_CP_N_ANNOTATION) seen++;
    key4 *a = xcalloc(c, seen, sizeof *a);
    if (!a) return -1;
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
      if (in->flags[i] & PL_CP_N_ANNOTATION) a[j++] = (key4){ { c->ts[i], 0, 0, 0 }, (int64_t)i };
    qsort(a, seen, sizeof *a, cmp_key4);
    for (size_t q = 0; q < seen; q++) {
      if ((int64_t)q < in->inst_lo || (int64_t)q > in->inst_hi) continue;
      int64_t i = a[q].i;
      if (c->ts[i] < lo) lo = c->ts[i];
      if (c->end[i] > hi) hi = c->end[i];
    }
    free(a);
    o->ninst = seen;
    if (in->inst_lo < 0 || in->inst_hi < in->inst_lo || (int64_t)seen <= in->inst_hi) {
      snprintf(o->err, sizeof o->err, "instance %lld of the annotation not found: the trace has %zu",
               (long long)in->inst_hi, seen);
      return -1;
    }
  }
  if (lo > hi) {
    snprintf(o->err, sizeof o->err, "the trace has no events");
    return -1;
  }
  o->win_lo = lo;
  o->win_hi = hi;
  /* CPU side: events starting in the window with a positive duration */
  for (size_t i = 0; i < n; i++)
    if (in->stream[i] == -1) c->inc[i] = (uint8_t)(c->ts[i] >= lo && c->ts[i] <= hi && c->dur[i] > 0);
  /* GPU side: events whose CPU call (stream -1) is in; Stream Wait Event always */
  for (size_t i = 0; i < n; i++) {
    if (in->stream[i] == -1) continue;
    if (in->flags[i] & PL_CP_N_STREAM_WAIT) {
      c->inc[i] = 1;
      continue;
    }
    int64_t x = c->ic[i];
    c->inc[i] = (uint8_t)(x >= 0 && in->stream[x] == -1 && c->inc[x]);
  }
  return 0;
}

/* ---- nodes ------------------------------------------------------------ */

static int cmp_node(const void *a, const void *b) {
  const int64_t *x = a, *y = b; /* {ts, seq} */
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

static void make_nodes(cp *c) {
  const pl_cp_in *in = c->in;
  size_t n = c->n, m = 0;
  for (size_t i = 0; i < n; i++) {
    c->snode[i] = c->enode[i] = NONE;
    if (!c->inc[i]) continue;
    if (in->cat[i] == PL_CP_CAT_CPU_OP || in->cat[i] == PL_CP_CAT_RUNTIME || (in->stream[i] != -1 && in->corr[i] != -1))
      m++;
  }
  int64_t(*k)[2] = xcalloc(c, 2 * m, sizeof *k);
  int64_t *evof = xcalloc(c, 2 * m, sizeof *evof);
  c->node_ev = xcalloc(c, 2 * m, sizeof *c->node_ev);
  c->node_ts = xcalloc(c, 2 * m, sizeof *c->node_ts);
  c->node_start = xcalloc(c, 2 * m, sizeof *c->node_start);
  if (c->oom) {
    free(k);
    free(evof);
    return;
  }
  size_t j = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      if (!c->inc[i]) continue;
      if (!(in->cat[i] == PL_CP_CAT_CPU_OP || in->cat[i] == PL_CP_CAT_RUNTIME ||
            (in->stream[i] != -1 && in->corr[i] != -1)))
        continue;
      k[j][0] = pass == 0 ? c->ts[i] : c->end[i];
      k[j][1] = (int64_t)j;
      evof[j] = (int64_t)i;
      j++;
    }
  qsort(k, 2 * m, sizeof *k, cmp_node);
  for (size_t q = 0; q < 2 * m; q++) {
    size_t src = (size_t)k[q][1];
    int64_t ev = evof[src];
    c->node_ev[q] = ev;
    c->node_ts[q] = k[q][0];
    c->node_start[q] = (uint8_t)(src < m);
    if (src < m) c->snode[ev] = (int64_t)q;
    else c->enode[ev] = (int64_t)q;
  }
  c->nn = 2 * m;
  free(k);
  free(evof);
}

/* ---- call stacks: nesting edges per CPU thread ------------------------ */

typedef struct ept {
  int64_t idx, time, dur;
  int type;
} ept; /* type 1 start, -1 end */

static int cmp_ept(const void *a, const void *b) {
  const ept *x = a, *y = b;
  if (x->idx == y->idx) return x->type == 1 ? (y->type == 1 ? 0 : -1) : (y->type == 1 ? 1 : 0);
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  if (x->type == y->type) {
    if (x->type == 1) {
      if (x->dur == y->dur) return x->idx < y->idx ? -1 : 1;
      return x->dur < y->dur ? 1 : -1;
    }
    if (x->dur == y->dur) return x->idx < y->idx ? 1 : -1;
    return x->dur < y->dur ? -1 : 1;
  }
  if (x->dur > 0 && y->dur > 0) return x->type == 1 ? 1 : -1;
  if (x->dur == 0 && y->dur == 0) return x->idx < y->idx ? -1 : 1;
  return x->type == 1 ? -1 : 1;
}

static void call_stacks(cp *c) {
  const pl_cp_in *in = c->in;
  size_t n = c->n, m = 0;
  for (size_t i = 0; i < n; i++)
    if (c->inc[i]) m++;
  key4 *k = xcalloc(c, m, sizeof *k);
  int64_t *parent = xcalloc(c, n, sizeof *parent);
  int64_t *first = xcalloc(c, n, sizeof *first), *last = xcalloc(c, n, sizeof *last);
  int64_t *next = xcalloc(c, n, sizeof *next);
  ept *ep = xcalloc(c, 2 * m, sizeof *ep);
  int64_t *stack = xcalloc(c, m + 1, sizeof *stack);
  if (c->oom) goto done;
  /* group by thread: a counting sort over the dense thread ids (trace order kept) */
  int64_t tmax = 0;
  for (size_t i = 0; i < n; i++)
    if (c->inc[i] && in->thread[i] > tmax) tmax = in->thread[i];
  size_t *cnt = xcalloc(c, (size_t)tmax + 3, sizeof *cnt);
  if (!cnt) goto done;
  for (size_t i = 0; i < n; i++)
    if (c->inc[i]) cnt[(in->thread[i] < 0 ? 0 : (size_t)in->thread[i] + 1) + 1]++;
  for (size_t t = 1; t < (size_t)tmax + 3; t++) cnt[t] += cnt[t - 1];
  for (size_t i = 0; i < n; i++)
    if (c->inc[i]) {
      size_t t = in->thread[i] < 0 ? 0 : (size_t)in->thread[i] + 1;
      key4 *x = &k[cnt[t]++];
      x->k[0] = in->thread[i];
      x->k[1] = x->k[2] = x->k[3] = 0;
      x->i = (int64_t)i;
    }
  free(cnt);
  for (size_t a = 0; a < m;) {
    size_t b = a;
    while (b < m && k[b].k[0] == k[a].k[0]) b++;
    /* a CPU thread: every event of it has a negative stream */
    int cpu = 1;
    for (size_t q = a; q < b; q++)
      if (in->stream[k[q].i] >= 0) {
        cpu = 0;
        break;
      }
    if (!cpu) {
      a = b;
      continue;
    }
    size_t ne = 0;
    for (size_t q = a; q < b; q++) {
      int64_t i = k[q].i, d = c->dur[i] > 0 ? c->dur[i] : 0;
      ep[ne++] = (ept){ i, c->ts[i], d, 1 };
      ep[ne++] = (ept){ i, c->ts[i] + d, d, -1 };
      parent[i] = NONE;
      first[i] = last[i] = next[i] = NONE;
    }
    qsort(ep, ne, sizeof *ep, cmp_ept);
    /* the tree: a start's parent is the top of the stack; an end pops */
    int64_t root_first = NONE, root_last = NONE;
    size_t sp = 0;
    for (size_t q = 0; q < ne; q++) {
      int64_t i = ep[q].idx;
      if (ep[q].type == 1) {
        int64_t p = sp ? stack[sp - 1] : NONE;
        parent[i] = p;
        if (p == NONE) {
          if (root_last == NONE) root_first = i;
          else next[root_last] = i;
          root_last = i;
        } else {
          if (last[p] == NONE) first[p] = i;
          else next[last[p]] = i;
          last[p] = i;
        }
        stack[sp++] = i;
      } else if (sp) sp--;
    }
    /* depth-first: enter links the previous node to this start, exit links
    ** the previous node to this end (HTA's _construct_graph_from_call_stack) */
    int64_t last_node = NONE, last_high = NONE, last_parent = NONE;
    int depth = 0;
    int64_t cur = root_first;
    while (cur != NONE) {
      /* enter cur */
      int64_t s = c->snode[cur], e = c->enode[cur];
      if (s != NONE && e != NONE) {
        if (depth == 0 && last_high != NONE) add_edge(c, last_high, s, PL_CP_E_DEPENDENCY, 0, NONE);
        depth++;
        if (last_node != NONE) {
          /* attribution: start->start: src; end->start: the parent */
          int64_t attr = c->node_start[last_node] ? c->node_ev[last_node] : last_parent;
          add_edge(c, last_node, s, PL_CP_E_OPERATOR, 0, attr);
        }
        last_node = s;
        last_parent = parent[cur];
      }
      if (first[cur] != NONE) {
        cur = first[cur];
        continue;
      }
      /* exit cur and the ancestors whose last child it is */
      for (;;) {
        int64_t xs = c->snode[cur], xe = c->enode[cur];
        if (xs != NONE && xe != NONE) {
          depth--;
          if (last_node != NONE) {
            int64_t attr = c->node_start[last_node] ? c->node_ev[last_node] : c->node_ev[xe];
            add_edge(c, last_node, xe, PL_CP_E_OPERATOR, (in->flags[cur] & PL_CP_N_BLOCKING) != 0, attr);
          }
          if (depth == 0) {
            last_node = NONE;
            last_high = xe;
          } else {
            last_node = xe;
            last_parent = parent[cur];
          }
        }
        if (next[cur] != NONE) {
          cur = next[cur];
          break;
        }
        cur = parent[cur];
        if (cur == NONE) break;
      }
    }
    a = b;
  }
done:
  free(k);
  free(parent);
  free(first);
  free(last);
  free(next);
  free(ep);
  free(stack);
}

/* ---- GPU side: queue lengths, event records, stream waits, kernels ---- */

static int is_launch(const cp *c, size_t i) {
  return (c->in->flags[i] & PL_CP_N_LAUNCH) && !c->gpu_side[i] && c->ic[i] >= 0 && c->grp_first[i] >= 0;
}

/* Queue length per (device, stream) over the whole trace: +1 at a launch
** call, -1 when its first GPU event starts.  qrt[x]: after the call; qk[y]:
** after the GPU event. */
static void queue_lengths(cp *c, int64_t *qrt, int64_t *qk) {
  const pl_cp_in *in = c->in;
  size_t n = c->n, m = 0;
  for (size_t i = 0; i < n; i++) {
    qrt[i] = qk[i] = QNA;
    if (is_launch(c, i)) m++;
  }
  key4 *k = xcalloc(c, 2 * m, sizeof *k);
  if (!k) return;
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    if (!is_launch(c, i)) continue;
    int64_t y = c->grp_first[i];
    k[j++] = (key4){ { in->pid[y], in->stream[y], c->ts[i], 0 }, (int64_t)i };
    k[j++] = (key4){ { in->pid[y], in->stream[y], c->ts[y], 1 }, -1 - y };
  }
  /* order: stream, time, calls before GPU events, trace order */
  for (size_t q = 0; q < j; q++)
    if (k[q].i < 0) { k[q].k[3] = 1; }
  qsort(k, j, sizeof *k, cmp_key4);
  int64_t q = 0;
  for (size_t a = 0; a < j; a++) {
    if (a == 0 || k[a].k[0] != k[a - 1].k[0] || k[a].k[1] != k[a - 1].k[1]) q = 0;
    if (k[a].i >= 0) {
      q++;
      qrt[k[a].i] = q;
    } else {
      q--;
      qk[-1 - k[a].i] = q;
    }
  }
  free(k);
}

/* For each launch call (sorted by time), the previous launch on the stream
** a cudaEventRecord recorded on, and the next launch on a cudaStreamWaitEvent's
** thread and stream. */
static void event_links(cp *c, int64_t *rec_launch, int64_t *wait_next) {
  const pl_cp_in *in = c->in;
  size_t n = c->n;
  for (size_t i = 0; i < n; i++) rec_launch[i] = wait_next[i] = NONE;
  /* record correlation -> (device, stream) from the sync events that wait on it */
  size_t nr = 0;
  for (size_t i = 0; i < n; i++)
    if (in->wait_stream[i] > -1 && in->wait_record[i] >= 0) nr++;
  size_t nl = 0;
  for (size_t i = 0; i < n; i++)
    if (is_launch(c, i) || (in->flags[i] & (PL_CP_N_EVENT_RECORD | PL_CP_N_WAIT_EVENT_CALL))) nl++;
  key4 *rs = xcalloc(c, nr, sizeof *rs);
  key4 *k = xcalloc(c, nl + 1, sizeof *k);
  if (c->oom) {
    free(rs);
    free(k);
    return;
  }
  size_t j = 0;
  for (size_t i = 0; i < n; i++)
    if (in->wait_stream[i] > -1 && in->wait_record[i] >= 0)
      rs[j++] = (key4){ { in->wait_record[i], in->pid[i], in->wait_stream[i], 0 }, (int64_t)i };
  qsort(rs, nr, sizeof *rs, cmp_key4);
  /* previous launch of a record: sweep (device, stream, time) */
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (is_launch(c, i)) {
      int64_t y = c->ic[i];
      k[m++] = (key4){ { in->pid[y], in->stream[y], c->ts[i], 0 }, (int64_t)i };
    } else if ((in->flags[i] & PL_CP_N_EVENT_RECORD) && in->corr[i] >= 0) {
      /* binary search the record's stream */
      size_t lo = 0, hi = nr;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rs[mid].k[0] < in->corr[i]) lo = mid + 1;
        else hi = mid;
      }
      if (lo < nr && rs[lo].k[0] == in->corr[i])
        k[m++] = (key4){ { rs[lo].k[1], rs[lo].k[2], c->ts[i], 1 }, (int64_t)i };
    }
  }
  qsort(k, m, sizeof *k, cmp_key4);
  int64_t prev = NONE;
  for (size_t a = 0; a < m; a++) {
    if (a == 0 || k[a].k[0] != k[a - 1].k[0] || k[a].k[1] != k[a - 1].k[1]) prev = NONE;
    if (k[a].k[3] == 0) prev = k[a].i;
    else rec_launch[k[a].i] = prev;
  }
  /* next launch of a stream wait: sweep (pid, thread, stream, time) backwards */
  m = 0;
  for (size_t i = 0; i < n; i++) {
    if (is_launch(c, i)) {
      int64_t y = c->ic[i];
      k[m++] = (key4){ { in->thread[i], in->stream[y], c->ts[i], 1 }, (int64_t)i };
    } else if ((in->flags[i] & PL_CP_N_WAIT_EVENT_CALL) && !c->gpu_side[i] && c->ic[i] >= 0 &&
               in->stream[c->ic[i]] != -1) {
      k[m++] = (key4){ { in->thread[i], in->stream[c->ic[i]], c->ts[i], 0 }, (int64_t)i };
    }
  }
  qsort(k, m, sizeof *k, cmp_key4);
  int64_t nxt = NONE;
  for (size_t a = m; a-- > 0;) {
    if (a == m - 1 || k[a].k[0] != k[a + 1].k[0] || k[a].k[1] != k[a + 1].k[1]) nxt = NONE;
    if (k[a].k[3] == 1) nxt = k[a].i;
    else wait_next[k[a].i] = nxt;
  }
  /* rec_launch is indexed by the record call; re-key it by record correlation
  ** lookups done at use (see kernels()) */
  free(rs);
  free(k);
}

/* The event record call with correlation corr, via a sorted (corr, i) list. */
typedef struct corrmap {
  key4 *k;
  size_t n;
} corrmap;
static int64_t corr_lookup(const corrmap *cm, int64_t corr) {
  size_t lo = 0, hi = cm->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (cm->k[mid].k[0] < corr) lo = mid + 1;
    else hi = mid;
  }
  return lo < cm->n && cm->k[lo].k[0] == corr ? cm->k[lo].i : NONE;
}

static void kernels(cp *c) {
  const pl_cp_in *in = c->in;
  size_t n = c->n;
  int64_t *qrt = xcalloc(c, n, sizeof *qrt), *qk = xcalloc(c, n, sizeof *qk);
  int64_t *rec_launch = xcalloc(c, n, sizeof *rec_launch), *wait_next = xcalloc(c, n, sizeof *wait_next);
  int64_t *ksync = xcalloc(c, n, sizeof *ksync);
  size_t ngpu = 0, nrec = 0;
  for (size_t i = 0; i < n; i++) {
    if (in->stream[i] != -1 || (in->flags[i] & (PL_CP_N_EVENT_SYNC | PL_CP_N_CONTEXT_SYNC))) ngpu++;
    if (in->flags[i] & PL_CP_N_EVENT_RECORD) nrec++;
  }
  key4 *rows = xcalloc(c, ngpu, sizeof *rows), *sk = xcalloc(c, ngpu, sizeof *sk);
  key4 *recs = xcalloc(c, nrec, sizeof *recs);
  int64_t *sid = xcalloc(c, n, sizeof *sid), *lastn = NULL, *order = NULL;
  if (c->oom) goto done;
  queue_lengths(c, qrt, qk);
  event_links(c, rec_launch, wait_next);
  if (c->oom) goto done;
  corrmap rm = { recs, 0 };
  for (size_t i = 0; i < n; i++)
    if ((in->flags[i] & PL_CP_N_EVENT_RECORD) && in->corr[i] >= 0)
      recs[rm.n++] = (key4){ { in->corr[i], 0, 0, 0 }, (int64_t)i };
  qsort(recs, rm.n, sizeof *recs, cmp_key4);
  /* dense (device, stream) ids */
  size_t ns = 0;
  size_t nk = 0;
  for (size_t i = 0; i < n; i++) {
    ksync[i] = NONE;
    sid[i] = 0;
    if (in->stream[i] != -1) sk[nk++] = (key4){ { in->pid[i], in->stream[i], 0, 0 }, (int64_t)i };
  }
  qsort(sk, nk, sizeof *sk, cmp_key4);
  for (size_t a = 0; a < nk; a++) {
    if (a > 0 && (sk[a].k[0] != sk[a - 1].k[0] || sk[a].k[1] != sk[a - 1].k[1])) ns++;
    sid[sk[a].i] = (int64_t)ns;
  }
  ns++;
  lastn = xcalloc(c, ns, sizeof *lastn);
  order = xcalloc(c, ns, sizeof *order); /* streams in the order they got a kernel */
  if (c->oom) goto done;
  for (size_t s = 0; s < ns; s++) lastn[s] = NONE;
  size_t norder = 0;
  /* the GPU rows: kernels, copies, sets by start; sync events by end */
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (!c->inc[i] || in->corr[i] == -1) continue;
    if (!(in->stream[i] != -1 || (in->flags[i] & (PL_CP_N_EVENT_SYNC | PL_CP_N_CONTEXT_SYNC)))) continue;
    int64_t sb = in->cat[i] == PL_CP_CAT_SYNC ? c->end[i] : c->ts[i];
    rows[m++] = (key4){ { sb, 0, 0, 0 }, (int64_t)i };
  }
  qsort(rows, m, sizeof *rows, cmp_key4);
  for (size_t r = 0; r < m; r++) {
    int64_t i = rows[r].i;
    uint32_t f = in->flags[i];
    if (in->cat[i] == PL_CP_CAT_SYNC) {
      if (f & (PL_CP_N_STREAM_WAIT | PL_CP_N_EVENT_SYNC)) {
        if (in->wait_record[i] < 0) continue;
        int64_t rec = corr_lookup(&rm, in->wait_record[i]);
        if (rec == NONE || rec_launch[rec] == NONE) continue;
        int64_t src_kernel = c->ic[rec_launch[rec]];
        if (src_kernel < 0) continue;
        if (f & PL_CP_N_STREAM_WAIT) {
          int64_t w = c->ic[i];
          if (w < 0 || wait_next[w] == NONE) continue;
          int64_t dest = c->ic[wait_next[w]];
          if (dest >= 0) ksync[dest] = src_kernel;
        } else if (c->enode[src_kernel] != NONE && c->ic[i] >= 0) {
          add_edge(c, c->enode[src_kernel], c->enode[c->ic[i]], PL_CP_E_SYNC, 0, NONE);
        }
        continue;
      }
      if (f & (PL_CP_N_STREAM_SYNC | PL_CP_N_CONTEXT_SYNC)) {
        int64_t rt = c->ic[i];
        if (rt < 0 || c->enode[rt] == NONE) continue;
        if (f & PL_CP_N_CONTEXT_SYNC) {
          for (size_t q = 0; q < norder; q++)
            if (lastn[order[q]] != NONE) add_edge(c, lastn[order[q]], c->enode[rt], PL_CP_E_SYNC, 0, NONE);
        } else if (lastn[sid[i]] != NONE) {
          add_edge(c, lastn[sid[i]], c->enode[rt], PL_CP_E_SYNC, 0, NONE);
        }
      }
      continue;
    }
    int64_t s = c->snode[i], e = c->enode[i];
    if (s == NONE || e == NONE) continue;
    add_edge(c, s, e, PL_CP_E_OPERATOR, 0, i);
    int64_t ks = ksync[i], ks_end = NONE;
    if (ks != NONE) {
      ks_end = c->enode[ks];
      if (ks_end == NONE) ks = NONE;
      else add_edge(c, ks_end, s, PL_CP_E_SYNC, 0, NONE);
      ksync[i] = NONE;
    }
    int64_t rt = c->ic[i];
    int64_t ln = lastn[sid[i]];
    int launch_added = 0;
    if (rt >= 0 && qrt[rt] == 1 && qk[i] == 0 && (ln == NONE || c->node_ts[ln] < c->ts[rt]) &&
        (ks == NONE || c->node_ts[ks_end] < c->ts[rt])) {
      if (c->snode[rt] != NONE) {
        add_edge(c, c->snode[rt], s, PL_CP_E_LAUNCH, 0, NONE);
        launch_added = 1;
      }
    } else if (ln != NONE && (ks == NONE || c->node_ts[ks_end] < c->node_ts[ln]) &&
               (rt < 0 || c->ts[rt] <= c->node_ts[ln])) {
      /* a kernel-kernel delay only where the kernel waited behind the
      ** previous one: its launch call started before that one ended.  A
      ** kernel launched onto an idle stream that missed the launch test
      ** (another launch came before it started) gets neither edge, as in
      ** HTA's results at f4d0062 (docs/critical-path.md, "Agreement") */
      add_edge(c, ln, s, PL_CP_E_KERNEL_KERNEL, 0, c->node_ev[ln]);
    }
    if (in->zero_weight_launch && !launch_added && rt >= 0 && c->snode[rt] != NONE)
      add_edge(c, c->snode[rt], s, PL_CP_E_LAUNCH, 1, NONE);
    if (lastn[sid[i]] == NONE) order[norder++] = sid[i];
    lastn[sid[i]] = e;
  }
done:
  free(qrt);
  free(qk);
  free(rec_launch);
  free(wait_next);
  free(ksync);
  free(rows);
  free(sk);
  free(recs);
  free(sid);
  free(lastn);
  free(order);
}

/* ---- longest path ------------------------------------------------------ */

static int longest(cp *c) {
  pl_cp_out *o = c->out;
  size_t nn = c->nn;
  /* one edge per (u, v): the last added wins (a graph keeps one).  Edges
  ** into a node are few: a duplicate is found among them (counting sort
  ** by target, then a scan of each target's list) */
  {
    size_t *cnt = xcalloc(c, nn + 1, sizeof *cnt), *ord = xcalloc(c, c->ne, sizeof *ord);
    uint8_t *drop = xcalloc(c, c->ne, 1);
    if (c->oom) {
      free(cnt);
      free(ord);
      free(drop);
      return -1;
    }
    for (size_t a = 0; a < c->ne; a++) cnt[c->e[a].v + 1]++;
    for (size_t v = 0; v < nn; v++) cnt[v + 1] += cnt[v];
    size_t *fill = xcalloc(c, nn, sizeof *fill);
    if (!fill) {
      free(cnt);
      free(ord);
      free(drop);
      return -1;
    }
    for (size_t a = 0; a < c->ne; a++) {
      size_t v = (size_t)c->e[a].v;
      ord[cnt[v] + fill[v]++] = a;
    }
    for (size_t v = 0; v < nn; v++)
      for (size_t x = cnt[v]; x < cnt[v + 1]; x++)
        for (size_t y = x + 1; y < cnt[v + 1]; y++)
          if (c->e[ord[x]].u == c->e[ord[y]].u) {
            drop[ord[x]] = 1;
            break;
          }
    size_t w = 0;
    for (size_t a = 0; a < c->ne; a++)
      if (!drop[a]) {
        c->e[w] = c->e[a];
        c->e[w].seq = (int64_t)w;
        w++;
      }
    c->ne = w;
    free(cnt);
    free(ord);
    free(drop);
    free(fill);
  }
  /* the graph's size as HTA counts it: nodes enter its networkx graph
  ** with their first edge, so an event without edges (a cuda_sync event)
  ** adds none; edges by type after the duplicates went */
  {
    uint8_t *touched = xcalloc(c, nn, 1);
    if (!touched) return -1;
    memset(o->nedge_type, 0, sizeof o->nedge_type);
    for (size_t a = 0; a < c->ne; a++) {
      touched[c->e[a].u] = touched[c->e[a].v] = 1;
      if (c->e[a].type < 5) o->nedge_type[c->e[a].type]++;
    }
    o->nnodes = 0;
    for (size_t v = 0; v < nn; v++) o->nnodes += touched[v];
    free(touched);
  }
  o->nedges = c->ne;
  o->nlaunch = o->nedge_type[PL_CP_E_LAUNCH];
  o->nkk = o->nedge_type[PL_CP_E_KERNEL_KERNEL];
  o->nsync = o->nedge_type[PL_CP_E_SYNC];
  size_t *pstart = xcalloc(c, nn + 1, sizeof *pstart), *pe = xcalloc(c, c->ne, sizeof *pe);
  size_t *sstart = xcalloc(c, nn + 1, sizeof *sstart), *se = xcalloc(c, c->ne, sizeof *se);
  size_t *indeg = xcalloc(c, nn, sizeof *indeg), *queue = xcalloc(c, nn, sizeof *queue);
  int64_t *dist = xcalloc(c, nn, sizeof *dist), *from = xcalloc(c, nn, sizeof *from);
  int rc = -1;
  if (c->oom) goto done;
  for (size_t a = 0; a < c->ne; a++) {
    pstart[c->e[a].v + 1]++;
    sstart[c->e[a].u + 1]++;
  }
  for (size_t v = 0; v < nn; v++) {
    pstart[v + 1] += pstart[v];
    sstart[v + 1] += sstart[v];
  }
  {
    size_t *pf = xcalloc(c, nn, sizeof *pf), *sf = xcalloc(c, nn, sizeof *sf);
    if (c->oom) {
      free(pf);
      free(sf);
      goto done;
    }
    for (size_t a = 0; a < c->ne; a++) { /* insertion order kept */
      size_t v = (size_t)c->e[a].v, u = (size_t)c->e[a].u;
      pe[pstart[v] + pf[v]++] = a;
      se[sstart[u] + sf[u]++] = a;
    }
    free(pf);
    free(sf);
  }
  for (size_t v = 0; v < nn; v++) indeg[v] = pstart[v + 1] - pstart[v];
  size_t qh = 0, qt = 0;
  for (size_t v = 0; v < nn; v++)
    if (indeg[v] == 0) queue[qt++] = v;
  int64_t best = -1, bestv = -1;
  while (qh < qt) {
    size_t v = queue[qh++];
    int64_t d = 0, f = -1;
    for (size_t q = pstart[v]; q < pstart[v + 1]; q++) {
      const edge *x = &c->e[pe[q]];
      int64_t wt = x->w < 0 ? 0 : x->w;
      if (f < 0 || dist[x->u] + wt > d) {
        d = dist[x->u] + wt;
        f = (int64_t)pe[q];
      }
    }
    dist[v] = d;
    from[v] = f;
    if (d > best) {
      best = d;
      bestv = (int64_t)v;
    }
    for (size_t q = sstart[v]; q < sstart[v + 1]; q++) {
      size_t t = (size_t)c->e[se[q]].v;
      if (--indeg[t] == 0) queue[qt++] = t;
    }
  }
  if (qt < nn) {
    snprintf(o->err, sizeof o->err, "the dependency graph has a cycle (%zu of %zu nodes never become ready)", nn - qt,
             nn);
    goto done;
  }
  if (bestv < 0) {
    snprintf(o->err, sizeof o->err, "the window has no events to build a graph from");
    goto done;
  }
  o->length = best;
  size_t np = 1;
  for (int64_t v = bestv; from[v] >= 0; v = c->e[from[v]].u) np++;
  o->npath = np;
  o->path_event = calloc(np, sizeof *o->path_event);
  o->path_start = calloc(np, sizeof *o->path_start);
  o->path_ts = calloc(np, sizeof *o->path_ts);
  o->edge_type = calloc(np, sizeof *o->edge_type);
  o->edge_weight = calloc(np, sizeof *o->edge_weight);
  o->edge_event = calloc(np, sizeof *o->edge_event);
  if (!o->path_event || !o->path_start || !o->path_ts || !o->edge_type || !o->edge_weight || !o->edge_event) {
    c->oom = 1;
    goto done;
  }
  size_t p = np;
  for (int64_t v = bestv;;) {
    p--;
    o->path_event[p] = c->node_ev[v];
    o->path_start[p] = c->node_start[v];
    o->path_ts[p] = c->node_ts[v];
    if (from[v] < 0) break;
    const edge *x = &c->e[from[v]];
    o->edge_type[p - 1] = x->type;
    o->edge_weight[p - 1] = x->w;
    o->edge_event[p - 1] = x->attr;
    v = x->u;
  }
  rc = 0;
done:
  free(pstart);
  free(pe);
  free(sstart);
  free(se);
  free(indeg);
  free(queue);
  free(dist);
  free(from);
  return rc;
}

int pl_cp_run(const pl_cp_in *in, pl_cp_out *out) {
  memset(out, 0, sizeof *out);
  cp c;
  memset(&c, 0, sizeof c);
  c.in = in;
  c.out = out;
  c.n = in->n;
  size_t n = in->n;
  int rc = -1;
  c.ts = xcalloc(&c, n, sizeof *c.ts);
  c.end = xcalloc(&c, n, sizeof *c.end);
  c.dur = xcalloc(&c, n, sizeof *c.dur);
  c.gpu_side = xcalloc(&c, n, 1);
  c.ic = xcalloc(&c, n, sizeof *c.ic);
  c.grp_first = xcalloc(&c, n, sizeof *c.grp_first);
  c.inc = xcalloc(&c, n, 1);
  c.snode = xcalloc(&c, n, sizeof *c.snode);
  c.enode = xcalloc(&c, n, sizeof *c.enode);
  if (c.oom) goto done;
  for (size_t i = 0; i < n; i++) {
    int64_t t = in->ts[i], e = in->ts[i] + in->dur[i];
    if (in->round_us) {
      /* as HTA computes it: the microseconds as doubles (the trace's text
      ** read by a JSON parser), end = ts + dur in double arithmetic, then ts
      ** up and end down to whole microseconds.  At 1.7e15 us a double's step
      ** is 0.25 us, so an end within 0.125 us below a whole us rounds up to
      ** it first; the exact ns would give 1 us less there. */
      double td = (double)(in->ts[i] / 1000) + (double)(in->ts[i] % 1000) / 1000.0;
      double dd = (double)(in->dur[i] / 1000) + (double)(in->dur[i] % 1000) / 1000.0;
      double ed = td + dd;
      t = (int64_t)ceil(td) * 1000;
      e = (int64_t)floor(ed) * 1000;
    }
    c.ts[i] = t;
    c.end[i] = e;
    c.dur[i] = e - t;
  }
  index_correlation(&c);
  if (c.oom) goto done;
  if (window(&c) != 0) goto keep;
  make_nodes(&c);
  call_stacks(&c);
  kernels(&c);
  if (c.oom) goto done;
  rc = longest(&c);
  if (c.oom) {
    rc = -1;
    goto done;
  }
  goto keep;
done:
  if (c.oom) snprintf(out->err, sizeof out->err, "out of memory building the dependency graph");
keep:
  out->ts_r = c.ts;
  out->dur_r = c.dur;
  c.ts = c.dur = NULL;
  free(c.ts);
  free(c.end);
  free(c.dur);
  free(c.gpu_side);
  free(c.ic);
  free(c.grp_first);
  free(c.inc);
  free(c.snode);
  free(c.enode);
  free(c.node_ev);
  free(c.node_ts);
  free(c.node_start);
  free(c.e);
  return rc;
}

void pl_cp_free(pl_cp_out *o) {
  free(o->path_event);
  free(o->path_start);
  free(o->path_ts);
  free(o->edge_type);
  free(o->edge_weight);
  free(o->edge_event);
  free(o->ts_r);
  free(o->dur_r);
  memset(o, 0, sizeof *o);
}

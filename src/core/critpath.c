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
#include "bigmem.h"
#include "par.h"

#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE (-1)
#define QNA  INT64_MIN

/* 16 bytes: node and event ids fit 32 bits (pl_cp_run refuses more); the
** weight is computed from the node times where it is used (edge_w) */
typedef struct edge {
  int32_t u, v, attr;
  uint8_t type, zero;
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
  int32_t *node_ev;
  int64_t *node_ts;
  uint8_t *node_start;
  edge *e;
  size_t ne, cape;
  int oom;
} cp;

/* Arrays of 4 MB or more are backed by huge pages where the kernel allows
** it (transparent huge pages in "madvise" mode): the graph's arrays are
** large, written once and freed, and one fault per 4 KB page cost more
** than the sweeps over them (a 1 GB trace: ~180,000 faults).  Each is a
** block of bigmem.c's, advised whole; freed, it goes to bigmem's cache,
** from which the next arrays (and table columns) are drawn without fresh
** pages. */
static void huge_pages(void *p, size_t bytes) {
  if (bytes >= ((size_t)4 << 20)) pl_mem_hugepages(p);
}

static void *xcalloc(cp *c, size_t n, size_t sz) {
  if (c->oom) return NULL;
  void *p = pl_mem_calloc(n ? n : 1, sz);
  if (!p) c->oom = 1;
  else huge_pages(p, (n ? n : 1) * sz);
  return p;
}


static void add_edge(cp *c, int64_t u, int64_t v, uint8_t type, int zero, int64_t attr) {
  if (u < 0 || v < 0 || u == v || c->oom) return;
  if (c->ne == c->cape) {
    size_t nc = c->cape ? c->cape * 2 : 1024;
    if (c->ne >= UINT32_MAX / 2) { /* edge ids are 32-bit */
      c->oom = 1;
      return;
    }
    edge *ne = pl_mem_realloc(c->e, nc * sizeof *ne);
    if (!ne) {
      c->oom = 1;
      return;
    }
    c->e = ne;
    c->cape = nc;
  }
  edge *x = &c->e[c->ne];
  x->u = (int32_t)u;
  x->v = (int32_t)v;
  x->type = type;
  x->attr = (int32_t)attr;
  x->zero = (uint8_t)(type == PL_CP_E_DEPENDENCY || type == PL_CP_E_SYNC || zero);
  c->ne++;
}

/* the edge's weight, ns: its nodes' time difference (negative where the
** trace's nesting is off), 0 for dependency, sync and zero-weight edges */
static int64_t edge_w(const cp *c, const edge *x) { return x->zero ? 0 : c->node_ts[x->v] - c->node_ts[x->u]; }

/* ---- sorting: records by a key of int64s ------------------------------ */

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

/* A node time and its creation order (make_nodes). */
typedef struct tsq {
  int64_t ts, seq;
} tsq;

/* Stable LSD radix sort of m records of type T by int64 fields (byte
** offsets off[0..nf), the least significant first), RADIX_BITS-bit digits
** over each field's range; a field that is constant or already in order is skipped.
** The same order as qsort with the lexicographic comparison (equal keys
** keep their order), in O(m) per digit.  0, or -1 without memory. */
/* 11-bit digits: 2048 counters and as many write streams stay in cache;
** 16-bit digits (one pass fewer) scatter over 65536 places of a large
** array and miss the cache and the TLB on nearly every write. */
#define RADIX_BITS  11
#define RADIX_N     (1 << RADIX_BITS)
#define FIELD(p, o) (*(const int64_t *)(const void *)((const char *)(p) + (o)))
#define DEFINE_RADIX(T, NAME)                                                                                          \
  static int NAME(T *a, size_t m, const size_t *off, int nf) {                                                         \
    T *tmp = NULL, *src = a, *dst;                                                                                     \
    uint32_t *cnt = NULL;                                                                                              \
    for (int f = 0; f < nf; f++) {                                                                                     \
      int64_t lo = m ? FIELD(&src[0], off[f]) : 0, hi = lo;                                                            \
      int sorted = 1;                                                                                                  \
      for (size_t j = 1; j < m; j++) {                                                                                 \
        int64_t v = FIELD(&src[j], off[f]);                                                                            \
        if (v < FIELD(&src[j - 1], off[f])) sorted = 0;                                                                \
        if (v < lo) lo = v;                                                                                            \
        if (v > hi) hi = v;                                                                                            \
      }                                                                                                                \
      if (sorted) continue;                                                                                            \
      if (!tmp) {                                                                                                      \
        tmp = pl_mem_alloc(m * sizeof *tmp);                                                                           \
        if (tmp) huge_pages(tmp, m * sizeof *tmp);                                                                     \
        cnt = pl_mem_alloc(RADIX_N * sizeof *cnt);                                                                     \
        if (!tmp || !cnt) {                                                                                            \
          pl_mem_free(tmp);                                                                                            \
          pl_mem_free(cnt);                                                                                            \
          return -1;                                                                                                   \
        }                                                                                                              \
      }                                                                                                                \
      uint64_t range = (uint64_t)hi - (uint64_t)lo;                                                                    \
      for (int sh = 0; sh < 64 && (range >> sh) != 0; sh += RADIX_BITS) {                                              \
        memset(cnt, 0, RADIX_N * sizeof *cnt);                                                                         \
        for (size_t j = 0; j < m; j++)                                                                                 \
          cnt[(((uint64_t)FIELD(&src[j], off[f]) - (uint64_t)lo) >> sh) & (RADIX_N - 1)]++;                            \
        uint32_t sum = 0;                                                                                              \
        for (size_t d = 0; d < RADIX_N; d++) {                                                                         \
          uint32_t x = cnt[d];                                                                                         \
          cnt[d] = sum;                                                                                                \
          sum += x;                                                                                                    \
        }                                                                                                              \
        dst = src == a ? tmp : a;                                                                                      \
        for (size_t j = 0; j < m; j++)                                                                                 \
          dst[cnt[(((uint64_t)FIELD(&src[j], off[f]) - (uint64_t)lo) >> sh) & (RADIX_N - 1)]++] = src[j];              \
        src = dst;                                                                                                     \
      }                                                                                                                \
    }                                                                                                                  \
    if (src != a) memcpy(a, src, m * sizeof *a);                                                                       \
    pl_mem_free(tmp);                                                                                                  \
    pl_mem_free(cnt);                                                                                                  \
    return 0;                                                                                                          \
  }
DEFINE_RADIX(key4, radix_key4)
DEFINE_RADIX(tsq, radix_tsq)

/* key4 records in cmp_key4's order (k[0..3], then i) */
static void sort_key4(cp *c, key4 *a, size_t m) {
  static const size_t off[] = { offsetof(key4, i), offsetof(key4, k[3]), offsetof(key4, k[2]), offsetof(key4, k[1]),
                                offsetof(key4, k[0]) };
  if (m < 1024) qsort(a, m, sizeof *a, cmp_key4);
  else if (radix_key4(a, m, off, 5) != 0) c->oom = 1;
}

/* ---- index correlation ---------------------------------------------- */

/* The groups of events that share a correlation id, HTA's index
** correlation (a GPU event links to its group's last CPU call, a CPU call
** to the group's last GPU event), and graph launches.  Where the ids span
** a range not much larger than the trace (CUPTI numbers them densely), one
** pass over per-id arrays; else the events are sorted by id
** (index_correlation_sorted).  Both give the same links. */
static int index_correlation_dense(cp *c) {
  const pl_cp_in *in = c->in;
  size_t n = c->n;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = 0; i < n; i++) {
    int64_t co = in->corr[i];
    if (co == -1) continue;
    if (co < lo) lo = co;
    if (co > hi) hi = co;
  }
  if (lo > hi) return 0; /* no correlation at all: nothing links */
  if ((uint64_t)hi - (uint64_t)lo >= 2 * (uint64_t)n + 1024) return -1;
  size_t r = (size_t)((uint64_t)hi - (uint64_t)lo) + 1;
  /* per id: last CPU call, last GPU event, first GPU event by time (ties:
  ** trace order), GPU events that are not sync records */
  int32_t *lcpu = pl_mem_alloc(r * sizeof *lcpu), *lgpu = pl_mem_alloc(r * sizeof *lgpu),
          *fgpu = pl_mem_alloc(r * sizeof *fgpu);
  uint32_t *ng = pl_mem_calloc(r, sizeof *ng);
  if (!lcpu || !lgpu || !fgpu || !ng) {
    pl_mem_free(lcpu);
    pl_mem_free(lgpu);
    pl_mem_free(fgpu);
    pl_mem_free(ng);
    c->oom = 1;
    return 0;
  }
  for (size_t g = 0; g < r; g++) lcpu[g] = lgpu[g] = fgpu[g] = NONE;
  for (size_t i = 0; i < n; i++) {
    int64_t co = in->corr[i];
    if (co == -1) continue;
    size_t g = (size_t)((uint64_t)co - (uint64_t)lo);
    if (c->gpu_side[i]) {
      lgpu[g] = (int32_t)i;
      if (fgpu[g] == NONE || c->ts[i] < c->ts[fgpu[g]]) fgpu[g] = (int32_t)i;
      if (!(in->flags[i] & (PL_CP_N_EVENT_SYNC | PL_CP_N_CONTEXT_SYNC | PL_CP_N_STREAM_SYNC | PL_CP_N_STREAM_WAIT)))
        ng[g]++;
    } else lcpu[g] = (int32_t)i;
  }
  for (size_t i = 0; i < n; i++) {
    int64_t co = in->corr[i];
    if (co == -1) continue;
    size_t g = (size_t)((uint64_t)co - (uint64_t)lo);
    if (lcpu[g] == NONE || lgpu[g] == NONE) continue;
    if (c->gpu_side[i]) c->ic[i] = lcpu[g];
    else {
      c->ic[i] = lgpu[g];
      c->grp_first[i] = fgpu[g];
    }
  }
  for (size_t g = 0; g < r; g++)
    if (lcpu[g] != NONE && lgpu[g] != NONE && ng[g] > 1) c->out->ngraph_launch++;
  pl_mem_free(lcpu);
  pl_mem_free(lgpu);
  pl_mem_free(fgpu);
  pl_mem_free(ng);
  return 0;
}

static void index_correlation_sorted(cp *c) {
  const pl_cp_in *in = c->in;
  size_t n = c->n, m = 0;
  key4 *k = xcalloc(c, n, sizeof *k);
  if (!k) return;
  for (size_t i = 0; i < n; i++) {
    int64_t co = in->corr[i];
    if (co == -1) continue;
    k[m].k[0] = co;
    k[m].k[1] = c->gpu_side[i];
    k[m].k[2] = 0;
    k[m].k[3] = 0;
    k[m].i = (int64_t)i;
    m++;
  }
  sort_key4(c, k, m);
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
  pl_mem_free(k);
}

static void index_correlation(cp *c) {
  const pl_cp_in *in = c->in;
  for (size_t i = 0; i < c->n; i++) {
    c->gpu_side[i] = (uint8_t)((in->stream[i] >= 0 && in->corr[i] >= 0) ||
                               (in->flags[i] & (PL_CP_N_EVENT_SYNC | PL_CP_N_CONTEXT_SYNC)));
    c->ic[i] = NONE;
    c->grp_first[i] = NONE;
  }
  if (index_correlation_dense(c) != 0) index_correlation_sorted(c);
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
    sort_key4(c, a, seen);
    for (size_t q = 0; q < seen; q++) {
      if ((int64_t)q < in->inst_lo || (int64_t)q > in->inst_hi) continue;
      int64_t i = a[q].i;
      if (c->ts[i] < lo) lo = c->ts[i];
      if (c->end[i] > hi) hi = c->end[i];
    }
    pl_mem_free(a);
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

static int node_kept(const cp *c, size_t i) {
  const pl_cp_in *in = c->in;
  return c->inc[i] && (in->cat[i] == PL_CP_CAT_CPU_OP || in->cat[i] == PL_CP_CAT_RUNTIME ||
                       (in->stream[i] != -1 && in->corr[i] != -1));
}

/* A start and an end node per kept event, numbered in time order (ties:
** starts in trace order, then ends in trace order). */
static void make_nodes(cp *c) {
  size_t n = c->n, m = 0;
  for (size_t i = 0; i < n; i++) {
    c->snode[i] = c->enode[i] = NONE;
    if (node_kept(c, i)) m++;
  }
  tsq *k = xcalloc(c, 2 * m, sizeof *k);
  int32_t *evof = xcalloc(c, m, sizeof *evof);
  c->node_ev = xcalloc(c, 2 * m, sizeof *c->node_ev);
  c->node_ts = xcalloc(c, 2 * m, sizeof *c->node_ts);
  c->node_start = xcalloc(c, 2 * m, sizeof *c->node_start);
  if (c->oom) {
    pl_mem_free(k);
    pl_mem_free(evof);
    return;
  }
  size_t j = 0;
  for (size_t i = 0; i < n; i++)
    if (node_kept(c, i)) {
      k[j] = (tsq){ c->ts[i], (int64_t)j };
      k[m + j] = (tsq){ c->end[i], (int64_t)(m + j) };
      evof[j++] = (int32_t)i;
    }
  static const size_t off[] = { offsetof(tsq, ts) };
  if (radix_tsq(k, 2 * m, off, 1) != 0) c->oom = 1;
  for (size_t q = 0; q < 2 * m && !c->oom; q++) {
    size_t src = (size_t)k[q].seq;
    int32_t ev = evof[src < m ? src : src - m];
    c->node_ev[q] = ev;
    c->node_ts[q] = k[q].ts;
    c->node_start[q] = (uint8_t)(src < m);
    if (src < m) c->snode[ev] = (int64_t)q;
    else c->enode[ev] = (int64_t)q;
  }
  c->nn = 2 * m;
  pl_mem_free(k);
  pl_mem_free(evof);
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

/* Event i, a child of p (NONE: a root), appended to its parent's list of
** children (first, last, next) or to the roots' list. */
static void attach(int32_t i, int32_t p, int32_t *root_first, int32_t *root_last, int32_t *parent, int32_t *first,
                   int32_t *last, int32_t *next) {
  parent[i] = p;
  first[i] = last[i] = next[i] = NONE;
  if (p == NONE) {
    if (*root_last == NONE) *root_first = i;
    else next[*root_last] = i;
    *root_last = i;
  } else {
    if (last[p] == NONE) first[p] = i;
    else next[last[p]] = i;
    last[p] = i;
  }
}

/* The forest of one thread's events from its endpoints in order ep[0..ne):
** a start's parent is the top of the stack; an end pops.  Returns the first
** root; roots and children are linked by next[] in start order. */
static int32_t thread_tree(const ept *ep, size_t ne, int32_t *stack, int32_t *parent, int32_t *first, int32_t *last,
                           int32_t *next) {
  int32_t root_first = NONE, root_last = NONE;
  size_t sp = 0;
  for (size_t q = 0; q < ne; q++) {
    int32_t i = (int32_t)ep[q].idx;
    if (ep[q].type == 1) {
      int32_t p = sp ? stack[sp - 1] : NONE;
      attach(i, p, &root_first, &root_last, parent, first, last, next);
      stack[sp++] = i;
    } else if (sp) sp--;
  }
  return root_first;
}

/* The same forest where every duration is positive, from the starts alone
** (st[0..nb): by time, longer first, trace order): cmp_ept's order is then
** the starts merged with the ends by time, ends first at equal times, and
** as an end pops whatever is on top, only how many ends come before each
** start matters: those at or before its time, kept in a min-heap of end
** times (its size is the stack's depth). */
static int32_t thread_tree_positive(const cp *c, const int32_t *st, size_t nb, int32_t *stack, int64_t *heap,
                                    int32_t *parent, int32_t *first, int32_t *last, int32_t *next) {
  int32_t root_first = NONE, root_last = NONE;
  size_t sp = 0, h = 0;
  for (size_t q = 0; q < nb; q++) {
    int32_t i = st[q];
    int64_t t = c->ts[i];
    while (h > 0 && heap[0] <= t) { /* pop the earliest end */
      int64_t x = heap[--h];
      size_t k = 0;
      for (;;) {
        size_t l = 2 * k + 1;
        if (l >= h) break;
        if (l + 1 < h && heap[l + 1] < heap[l]) l++;
        if (heap[l] >= x) break;
        heap[k] = heap[l];
        k = l;
      }
      if (h) heap[k] = x;
      if (sp) sp--;
    }
    int32_t p = sp ? stack[sp - 1] : NONE;
    attach(i, p, &root_first, &root_last, parent, first, last, next);
    stack[sp++] = i;
    int64_t e = t + c->dur[i]; /* push the end */
    size_t k = h++;
    while (k > 0 && heap[(k - 1) / 2] > e) {
      heap[k] = heap[(k - 1) / 2];
      k = (k - 1) / 2;
    }
    heap[k] = e;
  }
  return root_first;
}

/* Depth-first over one thread's forest: entering an event links the
** previous node to its start, leaving it links the previous node to its end
** (HTA's _construct_graph_from_call_stack). */
static void thread_edges(cp *c, int32_t root, const int32_t *parent, const int32_t *first, const int32_t *next) {
  const pl_cp_in *in = c->in;
  int64_t last_node = NONE, last_high = NONE, last_parent = NONE;
  int depth = 0;
  int32_t cur = root;
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
}

/* One thread's starts st[0..nb) (trace order) put in order by time, longer
** first, then trace order; sorted only where the trace does not have them
** so (tmp: nb records of scratch).  0, or -1 without memory. */
static int thread_starts(cp *c, int32_t *st, size_t nb, key4 *tmp) {
  size_t q = 1;
  for (; q < nb; q++) {
    int32_t a = st[q - 1], b = st[q];
    int64_t da = c->dur[a] > 0 ? c->dur[a] : 0, db = c->dur[b] > 0 ? c->dur[b] : 0;
    if (c->ts[a] > c->ts[b] || (c->ts[a] == c->ts[b] && da < db)) break;
  }
  if (q >= nb) return 0;
  for (size_t j = 0; j < nb; j++) {
    int32_t i = st[j];
    int64_t d = c->dur[i] > 0 ? c->dur[i] : 0;
    tmp[j] = (key4){ { c->ts[i], -d, 0, 0 }, (int64_t)i };
  }
  sort_key4(c, tmp, nb);
  if (c->oom) return -1;
  for (size_t j = 0; j < nb; j++) st[j] = (int32_t)tmp[j].i;
  return 0;
}

/* The call-stack edges of every CPU thread (a thread none of whose events
** has a stream), threads in id order. */
static void call_stacks(cp *c) {
  const pl_cp_in *in = c->in;
  size_t n = c->n, m = 0;
  int64_t tlo = INT64_MAX, thi = INT64_MIN;
  for (size_t i = 0; i < n; i++)
    if (c->inc[i]) {
      int64_t th = in->thread[i] < 0 ? -1 : in->thread[i];
      if (th < tlo) tlo = th;
      if (th > thi) thi = th;
      m++;
    }
  if (!m) return;
  /* the window's events grouped by thread (ids in order), trace order within */
  int32_t *ord = xcalloc(c, m, sizeof *ord);
  key4 *tmp = xcalloc(c, m, sizeof *tmp);
  int32_t *parent = xcalloc(c, n, sizeof *parent);
  int32_t *first = xcalloc(c, n, sizeof *first), *last = xcalloc(c, n, sizeof *last);
  int32_t *next = xcalloc(c, n, sizeof *next);
  int32_t *stack = xcalloc(c, m + 1, sizeof *stack);
  int64_t *heap = xcalloc(c, m + 1, sizeof *heap);
  ept *ep = NULL;
  size_t *gstart = NULL;
  if (c->oom) goto done;
  uint64_t range = (uint64_t)thi - (uint64_t)tlo;
  if (range < 2 * (uint64_t)m + 1024) { /* dense thread ids: a counting sort */
    size_t r = (size_t)range + 1;
    gstart = xcalloc(c, r + 1, sizeof *gstart);
    if (!gstart) goto done;
    for (size_t i = 0; i < n; i++)
      if (c->inc[i]) gstart[(uint64_t)(in->thread[i] < 0 ? -1 : in->thread[i]) - (uint64_t)tlo + 1]++;
    for (size_t g = 0; g < r; g++) gstart[g + 1] += gstart[g];
    for (size_t i = 0; i < n; i++)
      if (c->inc[i]) ord[gstart[(uint64_t)(in->thread[i] < 0 ? -1 : in->thread[i]) - (uint64_t)tlo]++] = (int32_t)i;
  } else {
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
      if (c->inc[i]) tmp[j++] = (key4){ { in->thread[i] < 0 ? -1 : in->thread[i], 0, 0, 0 }, (int64_t)i };
    sort_key4(c, tmp, m);
    if (c->oom) goto done;
    for (size_t q = 0; q < m; q++) ord[q] = (int32_t)tmp[q].i;
  }
  for (size_t a = 0; a < m;) {
    int64_t th = in->thread[ord[a]] < 0 ? -1 : in->thread[ord[a]];
    size_t b = a;
    int cpu = 1, positive = 1; /* every event of the thread has a negative stream */
    for (; b < m && (in->thread[ord[b]] < 0 ? -1 : in->thread[ord[b]]) == th; b++) {
      if (in->stream[ord[b]] >= 0) cpu = 0;
      if (c->dur[ord[b]] <= 0) positive = 0;
    }
    if (cpu) {
      if (thread_starts(c, ord + a, b - a, tmp) != 0) goto done;
      int32_t root;
      if (positive) root = thread_tree_positive(c, ord + a, b - a, stack, heap, parent, first, last, next);
      else {
        /* a zero duration: cmp_ept's ties differ from the merge */
        if (!ep && !(ep = xcalloc(c, 2 * m, sizeof *ep))) goto done;
        size_t ne = 0;
        for (size_t q = a; q < b; q++) {
          int64_t i = ord[q], d = c->dur[i] > 0 ? c->dur[i] : 0;
          ep[ne++] = (ept){ i, c->ts[i], d, 1 };
          ep[ne++] = (ept){ i, c->ts[i] + d, d, -1 };
        }
        qsort(ep, ne, sizeof *ep, cmp_ept);
        root = thread_tree(ep, ne, stack, parent, first, last, next);
      }
      thread_edges(c, root, parent, first, next);
    }
    a = b;
  }
done:
  pl_mem_free(ord);
  pl_mem_free(tmp);
  pl_mem_free(parent);
  pl_mem_free(first);
  pl_mem_free(last);
  pl_mem_free(next);
  pl_mem_free(stack);
  pl_mem_free(heap);
  pl_mem_free(ep);
  pl_mem_free(gstart);
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
  sort_key4(c, k, j);
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
  pl_mem_free(k);
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
    pl_mem_free(rs);
    pl_mem_free(k);
    return;
  }
  size_t j = 0;
  for (size_t i = 0; i < n; i++)
    if (in->wait_stream[i] > -1 && in->wait_record[i] >= 0)
      rs[j++] = (key4){ { in->wait_record[i], in->pid[i], in->wait_stream[i], 0 }, (int64_t)i };
  sort_key4(c, rs, nr);
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
  sort_key4(c, k, m);
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
  sort_key4(c, k, m);
  int64_t nxt = NONE;
  for (size_t a = m; a-- > 0;) {
    if (a == m - 1 || k[a].k[0] != k[a + 1].k[0] || k[a].k[1] != k[a + 1].k[1]) nxt = NONE;
    if (k[a].k[3] == 1) nxt = k[a].i;
    else wait_next[k[a].i] = nxt;
  }
  /* rec_launch is indexed by the record call; re-key it by record correlation
  ** lookups done at use (see kernels()) */
  pl_mem_free(rs);
  pl_mem_free(k);
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

/* What the kernels' edges need that does not depend on the graph's nodes
** (kernels_prep: queue lengths, event links, streams, the GPU rows in
** order), so that it can be worked out beside make_nodes. */
typedef struct kprep {
  int64_t *qrt, *qk, *rec_launch, *wait_next, *ksync, *sid, *lastn, *order;
  key4 *rows, *sk, *recs;
  corrmap rm;
  size_t m; /* GPU rows */
} kprep;

static void kprep_free(kprep *k) {
  pl_mem_free(k->qrt);
  pl_mem_free(k->qk);
  pl_mem_free(k->rec_launch);
  pl_mem_free(k->wait_next);
  pl_mem_free(k->ksync);
  pl_mem_free(k->rows);
  pl_mem_free(k->sk);
  pl_mem_free(k->recs);
  pl_mem_free(k->sid);
  pl_mem_free(k->lastn);
  pl_mem_free(k->order);
  memset(k, 0, sizeof *k);
}

static void kernels_prep(cp *c, kprep *kp) {
  const pl_cp_in *in = c->in;
  size_t n = c->n;
  memset(kp, 0, sizeof *kp);
  int64_t *qrt = kp->qrt = xcalloc(c, n, sizeof *qrt), *qk = kp->qk = xcalloc(c, n, sizeof *qk);
  int64_t *rec_launch = kp->rec_launch = xcalloc(c, n, sizeof *rec_launch);
  int64_t *wait_next = kp->wait_next = xcalloc(c, n, sizeof *wait_next);
  int64_t *ksync = kp->ksync = xcalloc(c, n, sizeof *ksync);
  size_t ngpu = 0, nrec = 0;
  for (size_t i = 0; i < n; i++) {
    if (in->stream[i] != -1 || (in->flags[i] & (PL_CP_N_EVENT_SYNC | PL_CP_N_CONTEXT_SYNC))) ngpu++;
    if (in->flags[i] & PL_CP_N_EVENT_RECORD) nrec++;
  }
  key4 *rows = kp->rows = xcalloc(c, ngpu, sizeof *rows), *sk = kp->sk = xcalloc(c, ngpu, sizeof *sk);
  key4 *recs = kp->recs = xcalloc(c, nrec, sizeof *recs);
  int64_t *sid = kp->sid = xcalloc(c, n, sizeof *sid), *lastn = NULL, *order = NULL;
  if (c->oom) return;
  queue_lengths(c, qrt, qk);
  event_links(c, rec_launch, wait_next);
  if (c->oom) return;
  corrmap rm = { recs, 0 };
  for (size_t i = 0; i < n; i++)
    if ((in->flags[i] & PL_CP_N_EVENT_RECORD) && in->corr[i] >= 0)
      recs[rm.n++] = (key4){ { in->corr[i], 0, 0, 0 }, (int64_t)i };
  sort_key4(c, recs, rm.n);
  /* dense (device, stream) ids */
  size_t ns = 0;
  size_t nk = 0;
  for (size_t i = 0; i < n; i++) {
    ksync[i] = NONE;
    sid[i] = 0;
    if (in->stream[i] != -1) sk[nk++] = (key4){ { in->pid[i], in->stream[i], 0, 0 }, (int64_t)i };
  }
  sort_key4(c, sk, nk);
  for (size_t a = 0; a < nk; a++) {
    if (a > 0 && (sk[a].k[0] != sk[a - 1].k[0] || sk[a].k[1] != sk[a - 1].k[1])) ns++;
    sid[sk[a].i] = (int64_t)ns;
  }
  ns++;
  lastn = kp->lastn = xcalloc(c, ns, sizeof *lastn);
  order = kp->order = xcalloc(c, ns, sizeof *order); /* streams in the order they got a kernel */
  if (c->oom) return;
  for (size_t s = 0; s < ns; s++) lastn[s] = NONE;
  /* the GPU rows: kernels, copies, sets by start; sync events by end */
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (!c->inc[i] || in->corr[i] == -1) continue;
    if (!(in->stream[i] != -1 || (in->flags[i] & (PL_CP_N_EVENT_SYNC | PL_CP_N_CONTEXT_SYNC)))) continue;
    int64_t sb = in->cat[i] == PL_CP_CAT_SYNC ? c->end[i] : c->ts[i];
    rows[m++] = (key4){ { sb, 0, 0, 0 }, (int64_t)i };
  }
  sort_key4(c, rows, m);
  pl_mem_free(kp->sk); /* the streams are numbered */
  kp->sk = NULL;
  kp->rm = rm;
  kp->m = m;
}

/* The kernels' edges (HTA's launch, kernel-kernel and sync edges), from
** kernels_prep's arrays and the graph's nodes. */
static void kernels_edges(cp *c, kprep *kp) {
  const pl_cp_in *in = c->in;
  int64_t *qrt = kp->qrt, *qk = kp->qk, *rec_launch = kp->rec_launch, *wait_next = kp->wait_next;
  int64_t *ksync = kp->ksync, *sid = kp->sid, *lastn = kp->lastn, *order = kp->order;
  key4 *rows = kp->rows;
  corrmap rm = kp->rm;
  size_t m = kp->m, norder = 0;
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
      if (c->node_ts[ln] <= c->node_ts[s]) add_edge(c, ln, s, PL_CP_E_KERNEL_KERNEL, 0, c->node_ev[ln]);
      else {
        /* the kernel started before the previous one on its stream ended
        ** (programmatic dependent launch, or timestamps out of order): an
        ** edge back in time would weigh less than 0 and the path, which
        ** counts it 0, would run longer than the window.  The previous
        ** kernel's start to this one's is its running time until then
        ** (docs/critical-path.md, "Overlapping kernels") */
        add_edge(c, c->snode[c->node_ev[ln]], s, PL_CP_E_OPERATOR, 0, c->node_ev[ln]);
        c->out->noverlap++;
      }
    }
    if (in->zero_weight_launch && !launch_added && rt >= 0 && c->snode[rt] != NONE)
      add_edge(c, c->snode[rt], s, PL_CP_E_LAUNCH, 1, NONE);
    if (lastn[sid[i]] == NONE) order[norder++] = sid[i];
    lastn[sid[i]] = e;
  }
}

/* ---- the graph, on two threads --------------------------------------- */

/* The kernels' side of the graph build, as piece 1 of par.c's schedule (on
** a worker, or on the calling thread where there is one job): its own cp
** (the shared arrays, read only; its own edge list and memory flag). */
typedef struct cp_side {
  cp k;
  kprep kp;
  int phase; /* 0: kernels_prep, 1: kernels_edges */
} cp_side;

static void cp_side_run(pl_par *P, void *ud, size_t i) {
  (void)P;
  (void)i;
  cp_side *s = ud;
  if (s->phase == 0) kernels_prep(&s->k, &s->kp);
  else kernels_edges(&s->k, &s->kp);
}

/* s->k: a copy of c with no edges of its own, for the next phase */
static void side_of(const cp *c, cp_side *s) {
  s->k = *c;
  s->k.e = NULL;
  s->k.ne = s->k.cape = 0;
  s->k.oom = 0;
}

/* The nodes and edges: make_nodes beside kernels_prep (neither reads what
** the other writes), then call_stacks beside kernels_edges, each side into
** its own edge list; the kernels' edges follow the call stacks', the order
** one thread adds them in, so the graph (and its ties) is the same for any
** number of jobs.  0, or -1 (c->oom) without memory. */
static int build_graph(cp *c) {
  const pl_cp_in *in = c->in;
  int jobs = in->jobs > 0 ? in->jobs : pl_par_cores();
  if (jobs > 2) jobs = 2;
  cp_side *s = pl_mem_calloc(1, sizeof *s);
  if (!s) {
    c->oom = 1;
    return -1;
  }
  side_of(c, s);
  pl_par *P = pl_par_start(2, jobs, cp_side_run, s);
  make_nodes(c);
  pl_par_wait(P, 1);
  pl_par_done(P, 1);
  pl_par_stop(P);
  if (!c->oom && !s->k.oom) {
    side_of(c, s);
    s->phase = 1;
    P = pl_par_start(2, jobs, cp_side_run, s);
    call_stacks(c);
    pl_par_wait(P, 1);
    pl_par_done(P, 1);
    pl_par_stop(P);
  }
  if (s->k.oom) c->oom = 1;
  if (!c->oom && s->k.ne) {
    if (c->ne + s->k.ne >= UINT32_MAX / 2) c->oom = 1; /* edge ids are 32-bit */
    else if (!c->ne) {
      pl_mem_free(c->e);
      c->e = s->k.e;
      c->ne = s->k.ne;
      c->cape = s->k.cape;
      s->k.e = NULL;
    } else {
      edge *ne = c->cape >= c->ne + s->k.ne ? c->e : pl_mem_realloc(c->e, (c->ne + s->k.ne) * sizeof *ne);
      if (!ne) c->oom = 1;
      else {
        memcpy(ne + c->ne, s->k.e, s->k.ne * sizeof *ne);
        c->e = ne;
        c->ne += s->k.ne;
        if (c->cape < c->ne) c->cape = c->ne;
      }
    }
  }
  pl_mem_free(s->k.e);
  kprep_free(&s->kp);
  pl_mem_free(s);
  return c->oom ? -1 : 0;
}

/* ---- longest path ------------------------------------------------------ */

/* One edge per (u, v): the last added wins (a graph keeps one).  Edges
** into a node are few: a duplicate is found among them (a counting sort by
** target, then a scan of each target's list).  The survivors keep their
** order. */
static int dedupe_edges(cp *c) {
  size_t nn = c->nn, ne = c->ne;
  uint32_t *cnt = xcalloc(c, nn + 1, sizeof *cnt), *ord = xcalloc(c, ne, sizeof *ord);
  uint8_t *drop = xcalloc(c, ne, 1);
  if (c->oom) {
    pl_mem_free(cnt);
    pl_mem_free(ord);
    pl_mem_free(drop);
    return -1;
  }
  for (size_t a = 0; a < ne; a++) cnt[c->e[a].v + 1]++;
  for (size_t v = 0; v < nn; v++) cnt[v + 1] += cnt[v];
  for (size_t a = 0; a < ne; a++) ord[cnt[c->e[a].v]++] = (uint32_t)a; /* cnt[v]: end of v's list */
  for (size_t v = 0, x0 = 0; v < nn; x0 = cnt[v], v++)
    for (size_t x = x0; x < cnt[v]; x++)
      for (size_t y = x + 1; y < cnt[v]; y++)
        if (c->e[ord[x]].u == c->e[ord[y]].u) {
          drop[ord[x]] = 1;
          break;
        }
  size_t w = 0;
  for (size_t a = 0; a < ne; a++)
    if (!drop[a]) c->e[w++] = c->e[a];
  c->ne = w;
  pl_mem_free(cnt);
  pl_mem_free(ord);
  pl_mem_free(drop);
  return 0;
}

/* The graph's size as HTA counts it: nodes enter its networkx graph with
** their first edge, so an event without edges (a cuda_sync event) adds
** none; edges by type after the duplicates went. */
static int graph_size(cp *c) {
  pl_cp_out *o = c->out;
  uint8_t *touched = xcalloc(c, c->nn, 1);
  if (!touched) return -1;
  memset(o->nedge_type, 0, sizeof o->nedge_type);
  for (size_t a = 0; a < c->ne; a++) {
    touched[c->e[a].u] = touched[c->e[a].v] = 1;
    if (c->e[a].type < 5) o->nedge_type[c->e[a].type]++;
  }
  o->nnodes = 0;
  for (size_t v = 0; v < c->nn; v++) o->nnodes += touched[v];
  pl_mem_free(touched);
  o->nedges = c->ne;
  o->nlaunch = o->nedge_type[PL_CP_E_LAUNCH];
  o->nkk = o->nedge_type[PL_CP_E_KERNEL_KERNEL];
  o->nsync = o->nedge_type[PL_CP_E_SYNC];
  return 0;
}

/* Edge lists per node in insertion order: predecessors of v are
** e[pe[pstart[v] .. pstart[v + 1])], successors of u likewise in se. */
typedef struct adj {
  uint32_t *pstart, *pe, *sstart, *se;
} adj;

static void adj_free(adj *g) {
  pl_mem_free(g->pstart);
  pl_mem_free(g->pe);
  pl_mem_free(g->sstart);
  pl_mem_free(g->se);
  memset(g, 0, sizeof *g);
}

static int adj_build(cp *c, adj *g) {
  size_t nn = c->nn, ne = c->ne;
  g->pstart = xcalloc(c, nn + 1, sizeof *g->pstart);
  g->pe = xcalloc(c, ne, sizeof *g->pe);
  g->sstart = xcalloc(c, nn + 1, sizeof *g->sstart);
  g->se = xcalloc(c, ne, sizeof *g->se);
  if (c->oom) return -1;
  for (size_t a = 0; a < ne; a++) {
    g->pstart[c->e[a].v + 1]++;
    g->sstart[c->e[a].u + 1]++;
  }
  for (size_t v = 0; v < nn; v++) {
    g->pstart[v + 1] += g->pstart[v];
    g->sstart[v + 1] += g->sstart[v];
  }
  /* fill in insertion order, each start advancing to its list's end, then
  ** shift the starts back */
  for (size_t a = 0; a < ne; a++) {
    g->pe[g->pstart[c->e[a].v]++] = (uint32_t)a;
    g->se[g->sstart[c->e[a].u]++] = (uint32_t)a;
  }
  memmove(g->pstart + 1, g->pstart, nn * sizeof *g->pstart);
  memmove(g->sstart + 1, g->sstart, nn * sizeof *g->sstart);
  g->pstart[0] = g->sstart[0] = 0;
  return 0;
}

/* Kahn's sweep (FIFO, sources in node order): dist[v] the longest path
** into v (negative weights count 0), from[v] the edge it came by (the first
** best in insertion order) or -1.  Returns the first node (in sweep order)
** of greatest distance, or -1 with out->err set. */
static int64_t sweep(cp *c, const adj *g, int64_t *dist, int32_t *from) {
  size_t nn = c->nn;
  uint32_t *indeg = xcalloc(c, nn, sizeof *indeg), *queue = xcalloc(c, nn, sizeof *queue);
  int64_t best = -1, bestv = -1;
  if (c->oom) goto done;
  for (size_t v = 0; v < nn; v++) indeg[v] = g->pstart[v + 1] - g->pstart[v];
  size_t qh = 0, qt = 0;
  for (size_t v = 0; v < nn; v++)
    if (indeg[v] == 0) queue[qt++] = (uint32_t)v;
  while (qh < qt) {
    size_t v = queue[qh++];
    int64_t d = 0;
    int32_t f = -1;
    for (size_t q = g->pstart[v]; q < g->pstart[v + 1]; q++) {
      const edge *x = &c->e[g->pe[q]];
      int64_t wt = edge_w(c, x);
      if (wt < 0) wt = 0;
      if (f < 0 || dist[x->u] + wt > d) {
        d = dist[x->u] + wt;
        f = (int32_t)g->pe[q];
      }
    }
    dist[v] = d;
    from[v] = f;
    if (d > best) {
      best = d;
      bestv = (int64_t)v;
    }
    for (size_t q = g->sstart[v]; q < g->sstart[v + 1]; q++) {
      size_t t = (size_t)c->e[g->se[q]].v;
      if (--indeg[t] == 0) queue[qt++] = (uint32_t)t;
    }
  }
  if (qt < nn) {
    snprintf(c->out->err, sizeof c->out->err, "the dependency graph has a cycle (%zu of %zu nodes never become ready)",
             nn - qt, nn);
    bestv = -1;
  } else if (bestv < 0) {
    snprintf(c->out->err, sizeof c->out->err, "the window has no events to build a graph from");
  }
done:
  pl_mem_free(indeg);
  pl_mem_free(queue);
  return bestv;
}

/* The path into bestv, walked back along from[], into out. */
static int emit_path(cp *c, const int32_t *from, int64_t bestv) {
  pl_cp_out *o = c->out;
  size_t np = 1;
  for (int64_t v = bestv; from[v] >= 0; v = c->e[from[v]].u) np++;
  o->npath = np;
  o->path_event = pl_mem_calloc(np, sizeof *o->path_event);
  o->path_start = pl_mem_calloc(np, sizeof *o->path_start);
  o->path_ts = pl_mem_calloc(np, sizeof *o->path_ts);
  o->edge_type = pl_mem_calloc(np, sizeof *o->edge_type);
  o->edge_weight = pl_mem_calloc(np, sizeof *o->edge_weight);
  o->edge_event = pl_mem_calloc(np, sizeof *o->edge_event);
  if (!o->path_event || !o->path_start || !o->path_ts || !o->edge_type || !o->edge_weight || !o->edge_event) {
    c->oom = 1;
    return -1;
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
    o->edge_weight[p - 1] = edge_w(c, x);
    o->edge_event[p - 1] = x->attr;
    v = x->u;
  }
  return 0;
}

/* The arrays of the graph build that the longest-path sweep does not read. */
static void drop_unswept(cp *c) {
  pl_mem_free(c->end);
  pl_mem_free(c->gpu_side);
  pl_mem_free(c->ic);
  pl_mem_free(c->grp_first);
  pl_mem_free(c->inc);
  pl_mem_free(c->snode);
  pl_mem_free(c->enode);
  c->end = c->ic = c->grp_first = c->snode = c->enode = NULL;
  c->gpu_side = c->inc = NULL;
}

static int longest(cp *c) {
  if (dedupe_edges(c) != 0 || graph_size(c) != 0) return -1;
  adj g = { NULL, NULL, NULL, NULL };
  int64_t *dist = xcalloc(c, c->nn, sizeof *dist);
  int32_t *from = xcalloc(c, c->nn, sizeof *from);
  int rc = -1;
  if (!c->oom && adj_build(c, &g) == 0) {
    int64_t bestv = sweep(c, &g, dist, from);
    adj_free(&g); /* before the path's arrays */
    if (bestv >= 0) {
      c->out->length = dist[bestv];
      rc = emit_path(c, from, bestv);
    }
  }
  adj_free(&g);
  pl_mem_free(dist);
  pl_mem_free(from);
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
  if (n > (size_t)INT32_MAX / 2) { /* node and event ids are 32-bit */
    snprintf(out->err, sizeof out->err, "too many events for a critical path (%zu; at most %d)", n, INT32_MAX / 2);
    return -1;
  }
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
  if (build_graph(&c) != 0) goto done;
  drop_unswept(&c); /* what the sweep does not read goes first */
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
  pl_mem_free(c.ts);
  pl_mem_free(c.dur);
  drop_unswept(&c);
  pl_mem_free(c.node_ev);
  pl_mem_free(c.node_ts);
  pl_mem_free(c.node_start);
  pl_mem_free(c.e);
  return rc;
}

void pl_cp_free(pl_cp_out *o) {
  pl_mem_free(o->path_event);
  pl_mem_free(o->path_start);
  pl_mem_free(o->path_ts);
  pl_mem_free(o->edge_type);
  pl_mem_free(o->edge_weight);
  pl_mem_free(o->edge_event);
  pl_mem_free(o->ts_r);
  pl_mem_free(o->dur_r);
  memset(o, 0, sizeof *o);
}

/* ---- the figure: spans of rows merged at a resolution ------------------ */

size_t pl_cp_spans(const size_t *grp, const int64_t *start, const int64_t *stop, const unsigned char *skip, size_t n,
                   int64_t gap, int64_t **out) {
  *out = NULL;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) m += !skip[i];
  key4 *k = pl_mem_calloc(m ? m : 1, sizeof *k);
  int64_t *o = pl_mem_alloc((m ? m : 1) * 4 * sizeof *o);
  if (!k || !o) {
    pl_mem_free(k);
    pl_mem_free(o);
    return (size_t)-1;
  }
  /* by group (a counting sort: row order within), then each group by
  ** start where it is not in order already (a lane's events mostly are):
  ** the order of (group, start, row) */
  size_t ng = 0;
  for (size_t i = 0; i < n; i++)
    if (!skip[i] && grp[i] + 1 > ng) ng = grp[i] + 1;
  size_t *gs = pl_mem_calloc(ng + 1, sizeof *gs);
  if (!gs) {
    pl_mem_free(k);
    pl_mem_free(o);
    return (size_t)-1;
  }
  for (size_t i = 0; i < n; i++)
    if (!skip[i]) gs[grp[i] + 1]++;
  for (size_t g = 0; g < ng; g++) gs[g + 1] += gs[g];
  for (size_t i = 0; i < n; i++)
    if (!skip[i]) k[gs[grp[i]]++] = (key4){ { (int64_t)grp[i], start[i], 0, 0 }, (int64_t)i };
  cp c;
  memset(&c, 0, sizeof c);
  for (size_t g = 0, a = 0; g < ng; a = gs[g], g++) {
    size_t b = gs[g], q = a + 1; /* the group's rows: k[a..b) */
    while (q < b && k[q - 1].k[1] <= k[q].k[1]) q++;
    if (q < b) sort_key4(&c, k + a, b - a);
  }
  pl_mem_free(gs);
  if (c.oom) {
    pl_mem_free(k);
    pl_mem_free(o);
    return (size_t)-1;
  }
  size_t ns = 0;
  for (size_t a = 0; a < m;) {
    int64_t i = k[a].i, hi = stop[i] > start[i] ? stop[i] : start[i];
    size_t b = a + 1;
    while (b < m && k[b].k[0] == k[a].k[0] && start[k[b].i] <= hi + gap) {
      if (stop[k[b].i] > hi) hi = stop[k[b].i];
      b++;
    }
    o[4 * ns] = i;
    o[4 * ns + 1] = start[i];
    o[4 * ns + 2] = hi;
    o[4 * ns + 3] = (int64_t)(b - a);
    ns++;
    a = b;
  }
  pl_mem_free(k);
  *out = o;
  return ns;
}

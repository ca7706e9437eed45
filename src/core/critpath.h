/*
** critpath.h -- the critical path of a trace window (the dependency graph of
** HTA's CriticalPathAnalysis, built over integer arrays, and its longest path
** by one topological sweep).  The rules that decide the graph are written out
** in docs/critical-path.md; the caller (perflab.critpath, recipes/
** critical-path.lua) classifies the events into the codes below, column-wise.
*/
#ifndef PL_CRITPATH_H
#define PL_CRITPATH_H

#include <stddef.h>
#include <stdint.h>

/* event category */
enum { PL_CP_CAT_OTHER = 0, PL_CP_CAT_CPU_OP = 1, PL_CP_CAT_RUNTIME = 2, PL_CP_CAT_SYNC = 3 };

/* event name flags (an event may carry several) */
enum {
  PL_CP_N_LAUNCH = 1,          /* a launch call (kernel, copy, set, graph) */
  PL_CP_N_BLOCKING = 2,        /* a blocking call: its own span weighs 0 */
  PL_CP_N_EVENT_RECORD = 4,    /* cudaEventRecord */
  PL_CP_N_WAIT_EVENT_CALL = 8, /* cudaStreamWaitEvent */
  PL_CP_N_CONTEXT_SYNC = 16,   /* cuda_sync "Context Sync" */
  PL_CP_N_STREAM_SYNC = 32,    /* cuda_sync "Stream Sync" */
  PL_CP_N_EVENT_SYNC = 64,     /* cuda_sync "Event Sync" */
  PL_CP_N_STREAM_WAIT = 128,   /* cuda_sync "Stream Wait Event" */
  PL_CP_N_ANNOTATION = 256     /* names the window (an instance of the step annotation) */
};

/* edge types (HTA's CPEdgeType) */
enum { PL_CP_E_OPERATOR = 0, PL_CP_E_DEPENDENCY = 1, PL_CP_E_LAUNCH = 2, PL_CP_E_KERNEL_KERNEL = 3, PL_CP_E_SYNC = 4 };

typedef struct pl_cp_in {
  size_t n;                /* events, in trace order */
  const int64_t *ts, *dur; /* ns (dur >= 0 or negative as written) */
  const uint8_t *cat;
  const uint32_t *flags;
  const int64_t *pid;         /* dense process ids (device for GPU events) */
  const int64_t *thread;      /* dense (pid, tid) ids */
  const int64_t *corr;        /* correlation, -1 where missing */
  const int64_t *stream;      /* 'stream' argument, -1 where missing */
  const int64_t *wait_stream; /* wait_on_stream, -1 where missing */
  const int64_t *wait_record; /* wait_on_cuda_event_record_corr_id, -1 where missing */
  int whole;                  /* the window is the whole trace */
  int64_t inst_lo, inst_hi;   /* else: annotation instances lo..hi (0-based, in trace order) */
  int round_us;               /* HTA's rounding: ts up, end down to whole microseconds */
  int zero_weight_launch;     /* a 0-weight launch edge for every kernel without a launch edge */
  int jobs;                   /* threads for the graph build (at most 2 are used): 0 the core count; the
                              ** result is the same for any number */
} pl_cp_in;

typedef struct pl_cp_out {
  int64_t win_lo, win_hi;     /* the window, ns */
  size_t ninst;               /* annotation instances in the trace */
  size_t nnodes, nedges;      /* the graph: nodes with an edge (as HTA's networkx graph counts them), edges */
  size_t nedge_type[5];       /* its edges by type (PL_CP_E_*) */
  size_t nlaunch, nkk, nsync; /* its launch, kernel-kernel and sync edges */
  size_t ngraph_launch;       /* launch calls whose correlation several GPU events share */
  size_t noverlap;            /* kernels that started before the previous one on their stream ended */
  int64_t length;             /* the longest path, ns */
  size_t npath;               /* nodes on it */
  int64_t *path_event;        /* per path node: event index */
  uint8_t *path_start;        /* 1: the event's start node, 0: its end */
  int64_t *path_ts;           /* the node's time, ns (rounded when round_us) */
  /* per path edge (npath - 1): type, weight (ns, as computed: negative
  ** where the trace's nesting is off; the path used 0 there), and the
  ** event the edge is attributed to (HTA's rules; -1 for launch, sync and
  ** dependency edges) */
  uint8_t *edge_type;
  int64_t *edge_weight;
  int64_t *edge_event;
  int64_t *ts_r, *dur_r; /* every event's ts and dur as used (rounded), n each */
  char err[256];
} pl_cp_out;

/* Builds the graph and finds its longest path.  0 on success; -1 with
** out->err on failure (no such instance, a cycle, no memory).  out is
** filled even on failure where it can be; free it with pl_cp_free. */
int pl_cp_run(const pl_cp_in *in, pl_cp_out *out);
void pl_cp_free(pl_cp_out *out);

/* The figure's spans: rows grouped by grp[i] (ids 0..), and within a group
** in start order (ties: row order), merged into one span while the next
** start is at most `gap` past the span's end (the end is the largest
** stop[i] so far): what a timeline at that resolution cannot tell apart.
** Rows with skip[i] are left out.  *out (malloc'd, 4 values per span:
** first row (the row that opens it), start, end, rows merged) in group
** order, then start order.  Returns the span count, or (size_t)-1 without
** memory. */
size_t pl_cp_spans(const size_t *grp, const int64_t *start, const int64_t *stop, const unsigned char *skip, size_t n,
                   int64_t gap, int64_t **out);

#endif

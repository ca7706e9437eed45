/*
** kineto.h -- private to the Kineto reader (fmt_kineto.c), its fast path
** (kineto_fast.c) and its parallel driver (kineto_par.c): the per-event
** struct, the args key table, the one list of event keys, and the reader's
** context.  Not part of the core's API.
*/
#ifndef PL_KINETO_H
#define PL_KINETO_H
#include "format.h"
#include "json.h"
#include "devwork.h"
#include "gzstream.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- string views: into the input, or into the per-event scratch buffer */
typedef struct sv {
  size_t off;
  uint32_t n;
  uint8_t set, scratch;
} sv;

typedef struct ctrarg {
  sv key;
  sv val;
  int isint;
  int64_t ival;
} ctrarg;

typedef struct kev {
  sv name, cat, ph, pid, tid, kind, dims, types, strides, concrete;
  sv argname; /* args "name": a process_name metadata event's name */
  int64_t ts, dur, flow_id;
  int64_t corr, ext, device, stream, context, regs, bytes, cbid, seq, fwd;
  int64_t wait_stream, wait_record; /* cuda_sync: wait_on_stream, wait_on_cuda_event_record_corr_id */
  int64_t begin_ns, end_ns;         /* rocprof's Chrome trace: args BeginNs / EndNs, exact ns */
  double smem, bps, wps, occ, theo, bw, flops;
  int64_t grid[3], block[3];
  int has_grid, has_block;
  ctrarg *ctr;
  size_t nctr, capctr;
} kev;

/* The args keys the reader keeps, one list for both the tokenizer path
** (parse_args) and the fast path (fast_args), sorted by length (entries of one length
** together: arg_ranges finds each length's range). */
enum { AK_INT, AK_NUM, AK_GRID, AK_BLOCK, AK_KIND, AK_DIMS, AK_TYPES, AK_ARGNAME, AK_STRIDES, AK_CONCRETE };
typedef struct argdef {
  const char *name;
  uint8_t len, kind;
  uint16_t off;
} argdef;
#define AI(s, f)                                                                                                       \
  { s, sizeof(s) - 1, AK_INT, offsetof(kev, f) }
#define AN(s, f)                                                                                                       \
  { s, sizeof(s) - 1, AK_NUM, offsetof(kev, f) }
#define AS(s, kd)                                                                                                      \
  { s, sizeof(s) - 1, kd, 0 }
extern const argdef pl_kin_args[];
#define ARGS          pl_kin_args
#define ARG_INT(e, a) (*(int64_t *)(void *)((char *)(e) + (a)->off))
#define ARG_NUM(e, a) (*(double *)(void *)((char *)(e) + (a)->off))

/* Each length's range [arg_lo, arg_hi) of ARGS, worked out once from the
** list itself (so a new entry needs no hand-kept index), and a case per
** common length: the memcmp length and names are then constants, so each
** compiles to a few word compares (this runs for every args key of every
** event); any other length takes the general loop. */
#define ARG_MAXLEN 64
extern uint8_t pl_kin_arg_lo[ARG_MAXLEN], pl_kin_arg_hi[ARG_MAXLEN]; /* set by pl_kin_arg_ranges */
#define arg_lo pl_kin_arg_lo
#define arg_hi pl_kin_arg_hi
void pl_kin_arg_ranges(void);
/* a switch of macro cases clang-format cannot lay out */
/* clang-format off */
static inline const argdef *arg_find(const char *s, size_t n) {
#define ARG_LEN(L) case L: \
    for (size_t i = arg_lo[L]; i < arg_hi[L]; i++) if (memcmp(ARGS[i].name, s, L) == 0) return &ARGS[i]; \
    return NULL;
  if (n >= ARG_MAXLEN) return NULL;
  switch (n) {
    ARG_LEN(4) ARG_LEN(5) ARG_LEN(6) ARG_LEN(7) ARG_LEN(9) ARG_LEN(10) ARG_LEN(11)
    ARG_LEN(12) ARG_LEN(13) ARG_LEN(14) ARG_LEN(15) ARG_LEN(20) ARG_LEN(23) ARG_LEN(25)
    default:
      for (size_t i = arg_lo[n]; i < arg_hi[n]; i++) if (memcmp(ARGS[i].name, s, n) == 0) return &ARGS[i];
      return NULL;
  }
#undef ARG_LEN
}
/* clang-format on */

/* The event keys the reader keeps: one list for the tokenizer path
** (parse_event) and the fast path (fast_event). */
typedef enum { EK_OTHER, EK_PH, EK_TS, EK_ID, EK_CAT, EK_PID, EK_TID, EK_DUR, EK_NAME, EK_ARGS } ev_key;
static inline ev_key ev_key_of(const char *s, size_t n) {
  switch (n) {
    case 2:
      if (s[0] == 'p' && s[1] == 'h') return EK_PH;
      if (s[0] == 't' && s[1] == 's') return EK_TS;
      if (s[0] == 'i' && s[1] == 'd') return EK_ID;
      break;
    case 3:
      if (memcmp(s, "cat", 3) == 0) return EK_CAT;
      if (memcmp(s, "pid", 3) == 0) return EK_PID;
      if (memcmp(s, "tid", 3) == 0) return EK_TID;
      if (memcmp(s, "dur", 3) == 0) return EK_DUR;
      break;
    case 4:
      if (memcmp(s, "name", 4) == 0) return EK_NAME;
      if (memcmp(s, "args", 4) == 0) return EK_ARGS;
      break;
  }
  return EK_OTHER;
}

typedef struct tcols {
  pl_table *t;
  int c[32];
  size_t room;       /* fast_row: rows every column has room for */
  uint64_t strmask;  /* fast_row: the PL_STR columns */
  uint64_t fillmask; /* fast_row: the columns whose storage reads as missing (pl_column_fills) */
  size_t faulted;    /* rows whose pages are in (pl_table_populate); SIZE_MAX: stop asking */
} tcols;

struct kstream;
typedef struct kctx {
  pl_json j;
  const pl_input *in; /* the input, or the stream's window (kineto_stream.c) */
  struct kstream *ks; /* the stream read through a window, or NULL */
  size_t in_off;      /* where in->data lies in the stream (0 without one) */
  pl_profile *p;
  const pl_parse_opts *o;
  pl_err *err;
  pl_buf scratch, tmp;
  kev e;
  kev e0;        /* an event with nothing set (ev_reset's) */
  pl_pool *pool; /* shared by every table */
  /* tables (NULL when not wanted) */
  tcols ev, kn, cpu, rt, mc, ms, st, ct, mem, dv;
  tcols pr, th;   /* process_name / thread_name metadata */
  pl_devwork *dw; /* device work of categories not read */
  /* short-name cache: name id -> short id (0 = not computed) */
  uint32_t *shortof;
  size_t nshort;
  /* AMD: launch args on the runtime event, matched to kernels by correlation */
  struct launch {
    int64_t corr;
    int64_t grid[3], block[3];
    double smem;
  } * launch;
  size_t nlaunch, caplaunch;
  /* the events that record what a cuda_sync waits on (few: columns of
  ** their own only where a trace has any, see add_waits) */
  struct evwait {
    size_t row; /* 0-based row of `events` */
    int64_t stream, record;
  } * wait;
  size_t nwait, capwait;
  /* rocprof's Chrome trace (rocprof --hip-trace, results.json): its
  ** processes are named "GPU<n>" (kernels), "CPU HIP API" (runtime calls)
  ** and "COPY" (copies), its events have no "cat" */
  struct rocpid {
    char pid[32];
    int cls;
    int64_t dev;
  } * rp;
  size_t nrp;
  size_t nevents, nmeta_events, nother;
  int64_t min_ts;          /* the first event's time (meta start_ns) */
  size_t ncat, napi_named; /* events with a "cat"; API calls (cu, cuda, hip) read by name */
  int saw_schema;          /* a top-level "schemaVersion" (Kineto writes one) */
  size_t next_progress;
  int reserved; /* the tables' columns sized from the first MBs */
  int huge_end; /* pl_table_hugepages_end asked (near the input's end) */
  /* kineto_par.c: called before pl_kin_events_until reads an element
  ** (the main thread's rows must not meet a worker's copy of a piece's) */
  void (*before_read)(void *ud);
  void *before_ud;
  int ndevices;
  /* direct-mapped cache of short strings (ph, cat, pid, tid) -> pool id */
  struct {
    uint64_t w[3];
    uint32_t n, id;
  } scache[256];
  /* and of longer strings: id and its pooled text (stable) */
  struct {
    const char *s;
    uint32_t n, id;
  } lcache[1024];
  /* ph, cat, pid, tid of up to 8 bytes read from the input -> pool id */
  struct wid {
    uint64_t w;
    uint32_t n, id;
  } wcache[64];
} kctx;

/* fmt_kineto.c */
void pl_kin_compact_copy(kctx *k, const char *start, const char *stop, sv *out);
void pl_kin_emit_event(kctx *k);
/* A reader context with its own pool and the wanted (empty) tables. */
kctx *pl_kin_ctx_new(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err);
void pl_kin_ctx_free(kctx *k);
/* Progress, interrupt and the one-time column reservation, at k->j.p. */
int pl_kin_progress(kctx *k);
/* The serial reader of the open traceEvents array, up to its end (0) or up
** to the first object element at or past stream offset limit (SIZE_MAX:
** none) (1, *at = the offset of its '{'); -1 on error. */
int pl_kin_events_until(kctx *k, size_t limit, size_t *at);

/* The whole read of a trace in k (after pl_kin_ctx_new): 0, or -1 with
** k->err set. */
int pl_kin_read(kctx *k);
/* The stream offset of a position in the input (its window). */
static inline size_t pl_kin_pos(const kctx *k, const char *p) { return k->in_off + (size_t)(p - k->in->data); }

/* kineto_stream.c: a .gz read while it is inflated.  Before the reader
** looks at the next token (KN_TOKEN), the next member of the top-level
** object (KN_MEMBER: key and whole value, or only the '[' of traceEvents),
** the next element of the events array (KN_ELEMENT), or the end of the
** input (KN_REST), pl_kin_need makes the window hold it whole (or the
** stream end): 0, or -1 with k->err set (a damaged stream).  Without a
** stream it does nothing. */
enum { KN_TOKEN, KN_MEMBER, KN_ELEMENT, KN_REST };
int pl_kin_need_stream(kctx *k, int what);
static inline int pl_kin_need(kctx *k, int what) { return k->ks ? pl_kin_need_stream(k, what) : 0; }
/* The stream (NULL: the input is whole), for kineto_par.c's workers. */
pl_gzs *pl_kin_gzs(const kctx *k);
/* The main thread's tokenizer, just past the '{' of a piece's first event
** (read on a worker), goes on past its events, as if it had read them:
** stop, the stream offset past the last one's '}'; nl, the newlines from
** that '{' to stop, tail the bytes after the last of them.  0, or -1
** with k->err set. */
int pl_kin_stream_skip(kctx *k, size_t stop, size_t nl, size_t tail);
/* The input's total size, estimated while it is streamed. */
size_t pl_kin_total(kctx *k);
/* The format's parse_stream. */
int pl_kin_parse_stream(pl_gzs *s, pl_profile *p, const pl_parse_opts *o, pl_err *err);

/* kineto_par.c: the open traceEvents array read on several threads when
** the options and its size call for it: 0 done (to its closing ']'), -1
** error, 1 not attempted (read it with pl_kin_events_until). */
int pl_kin_events_par(kctx *k);
/* kineto_fast.c: parse_event from just past the event's '{' into k->e;
** returns the end of the object, or NULL (nothing consumed: read it with
** the tokenizer).  pl_kin_fws: past the whitespace at p. */
const char *pl_kin_fast_event(kctx *k, const char *p);
const char *pl_kin_fws(const char *p, const char *end);

#endif

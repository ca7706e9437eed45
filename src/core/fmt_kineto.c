/*
** fmt_kineto.c -- format "kineto": Chrome-trace JSON written by the PyTorch
** profiler (Kineto), plain or gzip (the loader inflates .gz to memory).
**
** The trace is read in one pass with the pull tokenizer of json.c: no tree
** of the file is built; each event's fields are collected in a small
** struct and appended to the tables that want it.  Timestamps are
** microseconds in the Chrome format whatever "displayTimeUnit" says (that
** key only changes the viewer's display); ts and dur are converted from
** their decimal text to exact int64 nanoseconds (1712195495505582.988 us ->
** 1712195495505582988 ns), never through a double.
**
** Tables (see docs/formats-json.md): events, kernels, cpu_ops, runtime,
** memcpy, memset, steps, counters, memory_events, devices.
*/
#include "format.h"
#include "schema.h"
#include "json.h"
#include "names.h"
#include "memattr.h"
#include "devwork.h"
#include "scan.h"

#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "kineto.h"
#define AI(s, f)                                                                                                       \
  { s, sizeof(s) - 1, AK_INT, offsetof(kev, f) }
#define AN(s, f)                                                                                                       \
  { s, sizeof(s) - 1, AK_NUM, offsetof(kev, f) }
#define AS(s, kd)                                                                                                      \
  { s, sizeof(s) - 1, kd, 0 }
const argdef pl_kin_args[] = {
  AI("cbid", cbid),
  AS("grid", AK_GRID),
  AS("kind", AK_KIND),
  AS("name", AK_ARGNAME),
  AS("block", AK_BLOCK),
  AI("bytes", bytes),
  AI("Bytes", bytes),
  AN("flops", flops),
  AI("EndNs", end_ns),
  AI("device", device),
  AI("stream", stream),
  AI("context", context),
  AI("BeginNs", begin_ns),
  AI("Device Id", device),
  AS("Input Dims", AK_DIMS),
  AS("Input type", AK_TYPES),
  AI("correlation", corr),
  AI("External id", ext),
  AI("external id", ext),
  AN("warps per SM", wps),
  AN("shared memory", smem),
  AN("blocks per SM", bps),
  AI("Fwd thread id", fwd),
  AS("Input Strides", AK_STRIDES),
  AI("wait_on_stream", wait_stream),
  AI("Sequence number", seq),
  AS("Concrete Inputs", AK_CONCRETE),
  AI("registers per thread", regs),
  AN("memory bandwidth (GB/s)", bw),
  AN("theoretical occupancy %", theo),
  AN("est. achieved occupancy %", occ),
  AI("wait_on_cuda_event_record_corr_id", wait_record),
};
#undef AI
#undef AN
#undef AS
#define NARGS (sizeof pl_kin_args / sizeof pl_kin_args[0])

uint8_t pl_kin_arg_lo[ARG_MAXLEN], pl_kin_arg_hi[ARG_MAXLEN];
static pthread_once_t arg_once = PTHREAD_ONCE_INIT; /* load_many parses on threads */
static void arg_ranges_init(void) {
  for (size_t i = 0; i < NARGS; i++) {
    size_t L = ARGS[i].len;
    if (!arg_hi[L]) arg_lo[L] = (uint8_t)i;
    arg_hi[L] = (uint8_t)(i + 1);
  }
}
void pl_kin_arg_ranges(void) { pthread_once(&arg_once, arg_ranges_init); }
/* category classes */
enum { C_OTHER, C_KERNEL, C_CPU, C_RUNTIME, C_MEMCPY, C_MEMSET, C_PROFRANGE, C_GPU_ANNOT };


static const char *svp(kctx *k, const sv *s) { return s->scratch ? k->scratch.data + s->off : k->in->data + s->off; }

/* The current STR/KEY (or NUM text) token as a view. */
static sv tok_sv(kctx *k) {
  sv s;
  s.set = 1;
  if ((k->j.type == PL_JSON_STR || k->j.type == PL_JSON_KEY) && k->j.esc) {
    size_t off = k->scratch.len;
    pl_json_unescape(k->j.tok, k->j.toklen, &k->scratch);
    s.off = off;
    s.n = (uint32_t)(k->scratch.len - off);
    s.scratch = 1;
  } else {
    s.off = (size_t)(k->j.tok - k->in->data);
    s.n = (uint32_t)k->j.toklen;
    s.scratch = 0;
  }
  return s;
}


static inline uint64_t bytemask(uint32_t k) { return k >= 8 ? ~0ull : (1ull << (8 * k)) - 1; }

static uint32_t intern(kctx *k, const sv *s) {
  if (!s->set) return 0;
  const char *p = svp(k, s);
  uint32_t n = s->n;
  if (n <= 24) {
    uint64_t w[3];
    if (!s->scratch && (size_t)(k->in->data + k->in->len - p) >= 24) {
      /* whole words from the input (the bytes past the string masked off):
      ** no byte copy through memory */
      memcpy(&w[0], p, 8);
      memcpy(&w[1], p + 8, 8);
      memcpy(&w[2], p + 16, 8);
      w[0] &= bytemask(n);
      w[1] &= n > 8 ? bytemask(n - 8) : 0;
      w[2] &= n > 16 ? bytemask(n - 16) : 0;
    } else {
      w[0] = w[1] = w[2] = 0;
      memcpy(w, p, n);
    }
    uint64_t h = (w[0] ^ (w[1] * 0x9E3779B97F4A7C15ull) ^ (w[2] * 0xC2B2AE3D27D4EB4Full) ^ n) * 0x9E3779B97F4A7C15ull;
    unsigned slot = (unsigned)(h >> 56);
    if (k->scache[slot].id && k->scache[slot].n == n && k->scache[slot].w[0] == w[0] && k->scache[slot].w[1] == w[1] &&
        k->scache[slot].w[2] == w[2])
      return k->scache[slot].id;
    uint32_t id = pl_pool_intern(k->pool, p, n);
    k->scache[slot].w[0] = w[0];
    k->scache[slot].w[1] = w[1];
    k->scache[slot].w[2] = w[2];
    k->scache[slot].n = n;
    k->scache[slot].id = id;
    return id;
  }
  /* long strings (kernel names, shapes): a cache on the length and a few
  ** words, checked against the pooled string itself */
  uint64_t a, b, c;
  memcpy(&a, p, 8);
  memcpy(&b, p + n / 2 - 4, 8);
  memcpy(&c, p + n - 8, 8);
  uint64_t h = ((a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ c ^ n) * 0x9E3779B97F4A7C15ull;
  unsigned slot = (unsigned)(h >> 54);
  if (k->lcache[slot].id && k->lcache[slot].n == n && memcmp(k->lcache[slot].s, p, n) == 0) return k->lcache[slot].id;
  uint32_t id = pl_pool_intern(k->pool, p, n);
  k->lcache[slot].s = pl_pool_str(k->pool, id, NULL);
  k->lcache[slot].n = n;
  k->lcache[slot].id = id;
  return id;
}

/* intern for the short fields that repeat (ph, cat, pid, tid): up to 8
** bytes, read as one word, looked up by that word in a small cache */
static inline uint32_t intern_w(kctx *k, const sv *s) {
  if (!s->set) return 0;
  if (s->n <= 8 && !s->scratch && k->in->len - s->off >= 8) {
    uint64_t w;
    memcpy(&w, k->in->data + s->off, 8);
    w &= bytemask(s->n);
    struct wid *c = &k->wcache[((w + s->n) * 0x9E3779B97F4A7C15ull) >> 58];
    if (c->id && c->n == s->n && c->w == w) return c->id;
    c->id = intern(k, s);
    c->n = s->n;
    c->w = w;
    return c->id;
  }
  return intern(k, s);
}

/* ---- table set-up ------------------------------------------------------- */
typedef pl_coldef coldef;

static void make_table(kctx *k, tcols *tc, const char *name, const coldef *defs, size_t n) {
  tc->t = pl_table_declare(k->o, name, k->pool, defs, n, tc->c); /* standard columns typed by the schema */
}

static const coldef EV_COLS[] = {
  { "name", PL_STR, "event name" },
  { "cat", PL_STR, "event category as written (kernel, cpu_op, cuda_runtime, Kernel, Operator, ...)" },
  { "ph", PL_STR, "Chrome-trace phase: X complete, i/I instant, C counter, s/f flow start/end, B/E, b/e" },
  { "ts_ns", PL_INT, "start timestamp, ns (exact: the trace's microseconds times 1000)" },
  { "dur_ns", PL_INT, "duration, ns (complete events)" },
  { "pid", PL_STR, "process id or device as given (text)" },
  { "tid", PL_STR, "thread id or stream as given (text: numbers and names like 'stream 7')" },
  { "flow_id", PL_INT, "flow id (s/f events)" },
  { "correlation", PL_INT, "CUPTI/roctracer correlation id (links a launch to its kernel)" },
  { "external_id", PL_INT, "'External id' / 'external id': links GPU work to the CPU operator" },
  { "stream", PL_INT, "the 'stream' argument as written (GPU work, cuda_sync events; missing elsewhere)" },
};
/* Columns of `events` only in a trace where some event records them
** (add_waits): missing on nearly every row, they would take 16 bytes per
** event of every trace (50 MB of a 1 GB one) to say nothing. */
static const coldef EV_WAIT_COLS[] = {
  { "wait_on_stream", PL_INT, "cuda_sync: the stream an event sync or stream-wait-event waits on" },
  { "wait_on_record_corr", PL_INT, "cuda_sync: correlation id of the cudaEventRecord it waits on" },
};
enum { EV_NAME, EV_CAT, EV_PH, EV_TS, EV_DUR, EV_PID, EV_TID, EV_FLOW, EV_CORR, EV_EXT, EV_STREAM };

static const coldef KN_COLS[] = {
  { "name", PL_STR, NULL },
  { "short_name", PL_STR, NULL },
  { "start_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, NULL },
  { "device", PL_INT, "device index (args.device)" },
  { "stream", PL_INT, NULL },
  { "context", PL_INT, NULL },
  { "correlation", PL_INT, NULL },
  { "external_id", PL_INT, "external id of the CPU operator that launched it" },
  { "grid_x", PL_INT, NULL },
  { "grid_y", PL_INT, NULL },
  { "grid_z", PL_INT, NULL },
  { "block_x", PL_INT, NULL },
  { "block_y", PL_INT, NULL },
  { "block_z", PL_INT, NULL },
  { "registers", PL_INT, "registers per thread" },
  { "smem_bytes", PL_INT, "shared memory per block, bytes, as Kineto writes it: static + dynamic together" },
  { "smem_static_bytes", PL_INT,
    "static shared memory per block, bytes: missing, Kineto records only the sum (smem_bytes)" },
  { "smem_dynamic_bytes", PL_INT,
    "dynamic shared memory per block, bytes: missing, Kineto records only the sum (smem_bytes)" },
  { "warps_per_sm", PL_NUM, "warps per SM (trace's 'warps per SM')" },
  { "blocks_per_sm", PL_NUM, "blocks per SM (trace's 'blocks per SM')" },
  { "est_achieved_occupancy_pct", PL_NUM, "the trace's 'est. achieved occupancy %', percent 0-100" },
  { "theoretical_occupancy_pct", PL_NUM,
    "the trace's 'theoretical occupancy %' (2021 tb-plugin traces), percent 0-100" },
  { "kind", PL_STR, "args.kind (AMD: 'Dispatch Kernel')" },
  { "cat", PL_STR, "category as written (kernel or Kernel)" },
};
enum {
  KN_NAME,
  KN_SHORT,
  KN_START,
  KN_DUR,
  KN_DEV,
  KN_STREAM,
  KN_CTX,
  KN_CORR,
  KN_EXT,
  KN_GX,
  KN_GY,
  KN_GZ,
  KN_BX,
  KN_BY,
  KN_BZ,
  KN_REGS,
  KN_SMEM,
  KN_SMEM_S,
  KN_SMEM_D,
  KN_WPS,
  KN_BPS,
  KN_OCC,
  KN_THEO,
  KN_KIND,
  KN_CAT
};

static const coldef CPU_COLS[] = {
  { "name", PL_STR, "operator name (aten::..., user functions)" },
  { "start_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, "duration (inclusive of children), ns" },
  { "pid", PL_STR, "process id" },
  { "tid", PL_STR, "thread id" },
  { "external_id", PL_INT, "external id (GPU work launched inside carries it)" },
  { "seq", PL_INT, "autograd sequence number" },
  { "fwd_tid", PL_INT, "forward thread id (backward ops)" },
  { "input_dims", PL_STR, "'Input Dims' as compact JSON text, when shapes were recorded" },
  { "input_types", PL_STR, "'Input type' as compact JSON text" },
  { "input_strides", PL_STR, "'Input Strides' as compact JSON text" },
  { "concrete_inputs", PL_STR, "'Concrete Inputs' as compact JSON text (scalar arguments as written)" },
  { "flops", PL_NUM, "floating-point operations when the profiler recorded them (with_flops)" },
};
enum {
  CPU_NAME,
  CPU_START,
  CPU_DUR,
  CPU_PID,
  CPU_TID,
  CPU_EXT,
  CPU_SEQ,
  CPU_FWD,
  CPU_DIMS,
  CPU_TYPES,
  CPU_STRIDES,
  CPU_CONCRETE,
  CPU_FLOPS
};

static const coldef RT_COLS[] = {
  { "name", PL_STR, "runtime/driver call (cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel, ...)" },
  { "start_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, NULL },
  { "pid", PL_STR, "process id" },
  { "tid", PL_STR, "thread id" },
  { "correlation", PL_INT, NULL },
  { "external_id", PL_INT, "external id of the CPU operator" },
  { "cbid", PL_INT, "CUPTI callback id" },
  { "cat", PL_STR, "category (cuda_runtime, cuda_driver, Runtime)" },
};
enum { RT_NAME, RT_START, RT_DUR, RT_PID, RT_TID, RT_CORR, RT_EXT, RT_CBID, RT_CAT };

static const coldef MC_COLS[] = {
  { "name", PL_STR, "e.g. 'Memcpy HtoD (Pageable -> Device)'" },
  { "start_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, NULL },
  { "device", PL_INT, NULL },
  { "stream", PL_INT, NULL },
  { "correlation", PL_INT, NULL },
  { "external_id", PL_INT, "external id" },
  { "bytes", PL_INT, NULL },
  { "bandwidth_bytes_per_s", PL_NUM, "the trace's 'memory bandwidth (GB/s)' in bytes/s (x 1e9)" },
};
enum { MC_NAME, MC_START, MC_DUR, MC_DEV, MC_STREAM, MC_CORR, MC_EXT, MC_BYTES, MC_BW };

static const coldef ST_COLS[] = {
  { "step", PL_INT, "N of ProfilerStep#N" }, { "name", PL_STR, "span name" }, { "start_ns", PL_INT, NULL },
  { "duration_ns", PL_INT, NULL },           { "pid", PL_STR, "process id" }, { "tid", PL_STR, "thread id" },
};
enum { ST_STEP, ST_NAME, ST_START, ST_DUR, ST_PID, ST_TID };

static const coldef CT_COLS[] = {
  { "ts_ns", PL_INT, "sample time, ns" },
  { "dur_ns", PL_INT, "range duration, ns (cuda_profiler_range counters; missing for C events)" },
  { "name", PL_STR, "counter event name (e.g. 'GPU 0 Utilization') or profiler range name" },
  { "series", PL_STR, "argument name of the value (e.g. 'GPU Utilization', a CUPTI metric name)" },
  { "value", PL_NUM, "value as recorded" },
  { "pid", PL_STR, "process id or device as given" },
  { "tid", PL_STR, "thread id as given" },
};
enum { CT_TS, CT_DUR, CT_NAME, CT_SERIES, CT_VALUE, CT_PID, CT_TID };

static const coldef MEM_COLS[] = {
  { "ts_ns", PL_INT, NULL },
  { "device_type", PL_INT, "args 'Device Type' (c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP on ROCm builds)" },
  { "device", PL_INT, "args 'Device Id' (-1 for the CPU)" },
  { "bytes", PL_INT, "bytes allocated (> 0) or freed (< 0)" },
  { "addr", PL_INT, "args 'Addr' (PyTorch >= 1.10): pairs an allocation with its free" },
  { "total_allocated_bytes", PL_INT,
    "args 'Total Allocated': the caching allocator's allocated bytes after this event (PyTorch >= 1.10)" },
  { "total_reserved_bytes", PL_INT,
    "args 'Total Reserved': bytes the caching allocator holds from the device after this event" },
  { "pid", PL_STR, "process id" },
  { "tid", PL_STR, "thread id" },
  { "op", PL_STR,
    "the deepest cpu_ops operator containing the event on its thread, [start, end) (missing outside any, or without "
    "cpu_ops)" },
  { "op_row", PL_INT, "that operator's row in cpu_ops (1-based)" },
};
enum { MEM_TS, MEM_DEVTYPE, MEM_DEV, MEM_BYTES, MEM_ADDR, MEM_TALLOC, MEM_TRES, MEM_PID, MEM_TID, MEM_OP, MEM_OPROW };

static const coldef DV_COLS[] = {
  { "id", PL_INT, NULL },
  { "name", PL_STR, "device name" },
  { "cc", PL_STR, "compute capability 'major.minor'" },
  { "cc_major", PL_INT, "compute capability major (AMD: HIP's gfx major)" },
  { "cc_minor", PL_INT, "compute capability minor (AMD: HIP's gfx minor)" },
  { "sm_count", PL_INT, "multiprocessors (numSms / multiProcessorCount)" },
  { "warp_size", PL_INT, "threads per warp" },
  { "max_threads_per_block", PL_INT, "max threads per block" },
  { "max_threads_per_sm", PL_INT, "max resident threads per SM" },
  { "max_warps_per_sm", PL_INT, "max_threads_per_sm / warp_size" },
  { "regs_per_block", PL_INT, "32-bit registers per block" },
  { "regs_per_sm", PL_INT, "32-bit registers per SM" },
  { "smem_per_block_bytes", PL_INT, "shared memory per block, bytes" },
  { "smem_per_block_optin_bytes", PL_INT, "opt-in shared memory per block, bytes" },
  { "smem_per_sm_bytes", PL_INT, "shared memory per SM, bytes" },
  { "memory_bytes", PL_INT, NULL },
  { "vendor", PL_STR, "NVIDIA or AMD (AMD: a 64-thread wavefront, an AMD/Radeon/Instinct name or gcnArchName)" },
  { "arch", PL_STR,
    "AMD: the gfx target (gcnArchName, or from HIP's major.minor and the CU count); cc is then missing" },
};
/* process and thread names (ph "M" process_name, thread_name events) */
static const coldef PR_COLS[] = { { "pid", PL_STR, "process id as given (text)" }, { "name", PL_STR, "process name" } };
static const coldef TH_COLS[] = { { "pid", PL_STR, "process id as given (text)" },
                                  { "tid", PL_STR, "thread id as given (text)" },
                                  { "name", PL_STR, "thread name" } };

enum {
  DV_ID,
  DV_NAME,
  DV_CC,
  DV_MAJ,
  DV_MIN,
  DV_SMS,
  DV_WARP,
  DV_TPB,
  DV_TPSM,
  DV_WPSM,
  DV_RPB,
  DV_RPSM,
  DV_SMB,
  DV_SMBO,
  DV_SMSM,
  DV_MEM,
  DV_VENDOR,
  DV_ARCH
};

#define NCOLS(a) (sizeof(a) / sizeof(a[0]))

/* ---- event parsing ---------------------------------------------------- */

static void ev_reset(kev *e) {
  ctrarg *ctr = e->ctr;
  size_t cap = e->capctr;
  memset(e, 0, sizeof *e);
  e->ctr = ctr;
  e->capctr = cap;
  e->ts = e->dur = e->flow_id = PL_INT_NA;
  e->corr = e->ext = e->device = e->stream = e->context = e->regs = e->bytes = e->cbid = e->seq = e->fwd = PL_INT_NA;
  e->wait_stream = e->wait_record = PL_INT_NA;
  e->begin_ns = e->end_ns = PL_INT_NA;
  e->smem = e->bps = e->wps = e->occ = e->theo = e->bw = e->flops = NAN;
}


/* Integer arg: an integral NUM (or a number in a string); NA otherwise. */
static int64_t tok_int(pl_json *j) {
  if (j->type == PL_JSON_NUM && j->isint) return j->ival;
  int64_t v;
  if ((j->type == PL_JSON_NUM || j->type == PL_JSON_STR) && pl_json_scaled(j, 0, &v) == 0) return v;
  return PL_INT_NA;
}

static double tok_num(pl_json *j) {
  if (j->type == PL_JSON_NUM) return pl_json_num(j);
  if (j->type == PL_JSON_STR && !j->esc) {
    double d;
    if (j->toklen == 3 && memcmp(j->tok, "inf", 3) == 0) return INFINITY;
    if (pl_parse_double(j->tok, j->toklen, &d) == 0) return d;
  }
  return NAN;
}

/* Reads a value that should be [x, y, z]; anything else is skipped. */
static int read_dim3(kctx *k, int64_t out[3], int *has) {
  pl_json *j = &k->j;
  if (j->type != PL_JSON_ARR) return pl_json_skip(j);
  int i = 0;
  for (;;) {
    pl_json_type t = pl_json_next(j);
    if (t == PL_JSON_ERROR) return -1;
    if (t == PL_JSON_ARR_END) break;
    if (t == PL_JSON_NUM && i < 3) out[i] = tok_int(j);
    else if (pl_json_skip(j) != 0) return -1;
    i++;
  }
  if (i == 3) *has = 1;
  return 0;
}

/* Copies JSON text start..stop into scratch without the whitespace
** outside strings. */
void pl_kin_compact_copy(kctx *k, const char *start, const char *stop, sv *out) {
  size_t off = k->scratch.len;
  pl_buf_reserve(&k->scratch, (size_t)(stop - start));
  char *d = k->scratch.data + off;
  const char *q = start;
  while (q < stop) {
    char c = *q;
    if (c == '"') {
      /* a string: as it is, to its closing quote (a backslash takes the
      ** byte after it along) */
      const char *s0 = q++;
      while (q < stop) {
        if (*q == '\\') {
          q += 2;
          continue;
        }
        if (*q++ == '"') break;
      }
      if (q > stop) q = stop;
      memcpy(d, s0, (size_t)(q - s0));
      d += q - s0;
    } else {
      *d = c;
      d += !(c == ' ' || c == '\n' || c == '\r' || c == '\t');
      q++;
    }
  }
  *d = '\0';
  k->scratch.len = (size_t)(d - k->scratch.data);
  out->off = off;
  out->n = (uint32_t)(k->scratch.len - off);
  out->set = 1;
  out->scratch = 1;
}

/* Copies the value just begun as compact JSON text into scratch. */
static int read_compact(kctx *k, sv *out) {
  pl_json *j = &k->j;
  const char *start = j->tok;
  if (j->type == PL_JSON_STR) start--; /* include the quote */
  if (pl_json_skip(j) != 0) return -1;
  const char *stop = j->type == PL_JSON_STR ? j->tok + j->toklen + 1 : j->tok + j->toklen;
  pl_kin_compact_copy(k, start, stop, out);
  return 0;
}

static int parse_args(kctx *k) {
  pl_json *j = &k->j;
  kev *e = &k->e;
  for (;;) {
    pl_json_type t = pl_json_next(j);
    if (t == PL_JSON_ERROR) return -1;
    if (t == PL_JSON_OBJ_END) return 0;
    const char *key = j->tok;
    size_t kn = j->toklen;
    int kesc = j->esc;
    sv keysv = tok_sv(k);
    t = pl_json_next(j);
    if (t == PL_JSON_ERROR) return -1;
    const argdef *a = kesc ? NULL : arg_find(key, kn);
    int handled = a != NULL;
    if (a) switch (a->kind) {
        case AK_INT: ARG_INT(e, a) = tok_int(j); break;
        case AK_NUM: ARG_NUM(e, a) = tok_num(j); break;
        case AK_GRID:
          if (read_dim3(k, e->grid, &e->has_grid)) return -1;
          break;
        case AK_BLOCK:
          if (read_dim3(k, e->block, &e->has_block)) return -1;
          break;
        case AK_KIND:
          if (t == PL_JSON_STR) e->kind = tok_sv(k);
          else if (pl_json_skip(j)) return -1;
          break;
        case AK_ARGNAME:
          if (t == PL_JSON_STR) e->argname = tok_sv(k);
          else if (pl_json_skip(j)) return -1;
          break;
        case AK_DIMS:
          if (read_compact(k, &e->dims)) return -1;
          break;
        case AK_TYPES:
          if (read_compact(k, &e->types)) return -1;
          break;
        case AK_STRIDES:
          if (read_compact(k, &e->strides)) return -1;
          break;
        case AK_CONCRETE:
          if (read_compact(k, &e->concrete)) return -1;
          break;
        default: handled = 0; break;
      }
    if (handled) continue;
    if (t == PL_JSON_NUM) {
      /* kept for counter events and profiler ranges */
      if (e->nctr == e->capctr) {
        e->capctr = e->capctr ? e->capctr * 2 : 16;
        e->ctr = pl_xrealloc(e->ctr, e->capctr * sizeof *e->ctr);
      }
      ctrarg *c = &e->ctr[e->nctr++];
      c->key = keysv;
      c->val = tok_sv(k);
      c->isint = j->isint;
      c->ival = j->ival;
      if (j->special) {
        c->isint = 0;
        c->val.set = 2 + (uint8_t)j->special;
      }
    } else if (pl_json_skip(j) != 0) return -1;
  }
}

static int ts_field(kctx *k, int64_t *out, const char *what) {
  pl_json *j = &k->j;
  if (j->type == PL_JSON_NUM || j->type == PL_JSON_STR) {
    if (pl_json_scaled(j, 3, out) == 0) return 0;
  }
  if (j->type == PL_JSON_NULL) return 0;
  return pl_json_fail(j, j->type == PL_JSON_STR ? j->tok - 1 : j->tok, what);
}

/* Other vendors' categories (MTIA: mtia_runtime, mtia_ccp_events): a
** lowercase vendor prefix, then "_runtime" (runtime calls) or a device-side
** suffix, "_ccp_events" or "_kernel" (device work, read as kernels). */
static int ends_with(const char *s, size_t n, const char *suf) {
  size_t m = strlen(suf);
  return n > m && memcmp(s + n - m, suf, m) == 0;
}
static int vendor_class(const char *s, size_t n) {
  size_t p = 0;
  while (p < n && ((s[p] >= 'a' && s[p] <= 'z') || (s[p] >= '0' && s[p] <= '9'))) p++;
  if (p == 0 || p >= n || s[p] != '_') return C_OTHER;
  if (ends_with(s, n, "_runtime") && p + 8 == n) return C_RUNTIME;
  if ((ends_with(s, n, "_ccp_events") && p + 11 == n) || (ends_with(s, n, "_kernel") && p + 7 == n)) return C_KERNEL;
  return C_OTHER;
}

static int cat_class(kctx *k, const sv *c) {
  if (!c->set) return C_OTHER;
  const char *s = svp(k, c);
  switch (c->n) {
    case 6:
      if (strncasecmp(s, "kernel", 6) == 0) return C_KERNEL;
      if (memcmp(s, "cpu_op", 6) == 0 || memcmp(s, "Memcpy", 6) == 0) return s[0] == 'c' ? C_CPU : C_MEMCPY;
      if (memcmp(s, "Memset", 6) == 0) return C_MEMSET;
      break;
    case 7:
      if (memcmp(s, "Runtime", 7) == 0) return C_RUNTIME;
      break;
    case 8:
      if (memcmp(s, "Operator", 8) == 0) return C_CPU;
      break;
    case 10:
      if (memcmp(s, "gpu_memcpy", 10) == 0) return C_MEMCPY;
      if (memcmp(s, "gpu_memset", 10) == 0) return C_MEMSET;
      break;
    case 11:
      if (memcmp(s, "cuda_driver", 11) == 0) return C_RUNTIME;
      break;
    case 12:
      if (memcmp(s, "cuda_runtime", 12) == 0) return C_RUNTIME;
      break;
    case 19:
      if (memcmp(s, "cuda_profiler_range", 19) == 0) return C_PROFRANGE;
      if (memcmp(s, "gpu_user_annotation", 19) == 0) return C_GPU_ANNOT;
      break;
  }
  return vendor_class(s, c->n);
}

static uint32_t short_id(kctx *k, uint32_t nameid) {
  if (nameid == 0) return 0;
  if (nameid >= k->nshort) {
    size_t n = k->nshort ? k->nshort : 1024;
    while (n <= nameid) n *= 2;
    k->shortof = pl_xrealloc(k->shortof, n * sizeof *k->shortof);
    memset(k->shortof + k->nshort, 0, (n - k->nshort) * sizeof *k->shortof);
    k->nshort = n;
  }
  if (k->shortof[nameid] == 0) {
    size_t len;
    const char *s = pl_pool_str(k->pool, nameid, &len);
    k->tmp.len = 0;
    pl_buf_reserve(&k->tmp, len + 64);
    size_t sn = pl_short_name(s, len, k->tmp.data, k->tmp.cap);
    k->shortof[nameid] = pl_pool_intern(k->pool, k->tmp.data, sn);
  }
  return k->shortof[nameid];
}

static double ctr_value(kctx *k, const ctrarg *c) {
  if (c->val.set == 3) return NAN;
  if (c->val.set == 4) return INFINITY;
  if (c->val.set == 5) return -INFINITY;
  if (c->isint) return (double)c->ival;
  double d;
  if (pl_parse_double(svp(k, &c->val), c->val.n, &d) == 0) return d;
  return NAN;
}

/* Appending whole rows straight into the columns (every column of a table
** built here is set on every row, missing values written as the table's
** own missing markers): avoids the per-cell bookkeeping of pl_row_put_*. */
typedef union cell {
  int64_t i;
  double d;
  uint32_t s;
} cell;

/* Whether v is the missing marker of a column of type ty, bit for bit as
** fast_row would store it (a NaN of other bits is stored). */
static int cell_missing(pl_type ty, const cell *v) {
  if (ty == PL_STR) return v->s == 0;
  if (ty == PL_BOOL) return v->i == PL_INT_NA; /* a cell's missing boolean */
  uint64_t u;
  memcpy(&u, v, 8);
  return u == pl_missing_bits(ty);
}

static void fast_row(tcols *tc, const cell *v) {
  pl_table *t = tc->t;
  size_t n = t->nrows, nc = t->ncols;
  if (n >= tc->room) {
    /* grow the full columns; then the room of the fullest, and the types */
    size_t room = SIZE_MAX;
    uint64_t mask = 0, fill = 0;
    for (size_t i = 0; i < nc; i++) {
      pl_column *c = t->cols[i];
      if (c->len == c->cap) pl_column_reserve(c, c->len < 1024 ? 1024 : c->len + 1);
      if (c->cap < room) room = c->cap;
      if (c->type == PL_STR && i < 64) mask |= 1ull << i;
      if (i < 64 && pl_column_fills(c)) fill |= 1ull << i;
    }
    tc->room = room;
    tc->strmask = mask;
    tc->fillmask = fill;
  }
  /* 8-byte cells (integers, numbers: the union's bytes as they are) or ids */
  pl_column *const *cols = t->cols;
  for (size_t i = 0; i < nc; i++) {
    pl_column *c = cols[i];
    /* a missing value in storage that reads as missing: not stored */
    if ((tc->fillmask >> i) & 1 && cell_missing(c->type, &v[i])) {
      c->len = n + 1;
      continue;
    }
    if ((tc->strmask >> i) & 1) c->v.str[n] = v[i].s;
    else if (c->type == PL_BOOL) c->v.b[n] = v[i].i == PL_INT_NA ? PL_BOOL_NA : v[i].i != 0;
    else memcpy(&c->v.i64[n], &v[i], 8);
    c->len = n + 1;
  }
  t->nrows = n + 1;
}

static void put_int(pl_table *t, int col, int64_t v) {
  if (v != PL_INT_NA) pl_row_put_int(t, col, v);
}
static void put_id(pl_table *t, int col, uint32_t id) {
  if (id) pl_row_put_strid(t, col, id);
}

/* An integer arg kept among the numeric args (e->ctr): NA when absent. */
static int64_t ctr_int(kctx *k, const char *key) {
  kev *e = &k->e;
  size_t n = strlen(key);
  for (size_t i = 0; i < e->nctr; i++) {
    const ctrarg *c = &e->ctr[i];
    if (c->key.n == n && memcmp(svp(k, &c->key), key, n) == 0) return c->isint ? c->ival : pl_int_of(ctr_value(k, c));
  }
  return PL_INT_NA;
}

/* A GPU event without a "stream" argument: the stream from its tid, which
** Kineto sets to the stream ("7"), and older writers (the TensorBoard
** plugin's test traces) to "stream 7". */
static int64_t stream_of_tid(kctx *k, const kev *e) {
  if (e->stream != PL_INT_NA || !e->tid.set) return e->stream;
  const char *t = svp(k, &e->tid);
  size_t n = e->tid.n, i = 0;
  if (n > 7 && memcmp(t, "stream ", 7) == 0) i = 7;
  if (i >= n || n - i > 18) return PL_INT_NA;
  int64_t v = 0;
  for (; i < n; i++) {
    if (t[i] < '0' || t[i] > '9') return PL_INT_NA;
    v = v * 10 + (t[i] - '0');
  }
  return v;
}

/* A "[memory]" instant event of the profiler's memory tracking
** (profile_memory=True): one row of `memory_events` (its operator is
** filled in after the pass: pl_mem_attribute). */
static void emit_memory(kctx *k, uint32_t pidid, uint32_t tidid) {
  kev *e = &k->e;
  pl_table *t = k->mem.t;
  int *c = k->mem.c;
  put_int(t, c[MEM_TS], e->ts);
  put_int(t, c[MEM_DEVTYPE], ctr_int(k, "Device Type"));
  put_int(t, c[MEM_DEV], e->device);
  put_int(t, c[MEM_BYTES], e->bytes);
  put_int(t, c[MEM_ADDR], ctr_int(k, "Addr"));
  put_int(t, c[MEM_TALLOC], ctr_int(k, "Total Allocated"));
  put_int(t, c[MEM_TRES], ctr_int(k, "Total Reserved"));
  put_id(t, c[MEM_PID], pidid);
  put_id(t, c[MEM_TID], tidid);
  pl_row_end(t);
}

/* A process_name metadata event of rocprof's Chrome trace: remembers the
** class of the process's events. */
static void roc_process(kctx *k, const kev *e) {
  const char *a = svp(k, &e->argname), *pid = svp(k, &e->pid);
  size_t n = e->argname.n;
  int cls = C_OTHER;
  int64_t dev = PL_INT_NA;
  if (n > 3 && n < 12 && memcmp(a, "GPU", 3) == 0) {
    int64_t d;
    if (pl_parse_int64(a + 3, n - 3, &d) == 0) {
      cls = C_KERNEL;
      dev = d;
    }
  } else if ((n == 11 && memcmp(a, "CPU HIP API", 11) == 0) || (n == 7 && memcmp(a, "HIP API", 7) == 0))
    cls = C_RUNTIME;
  else if (n == 4 && memcmp(a, "COPY", 4) == 0) cls = C_MEMCPY;
  if (cls == C_OTHER || e->pid.n >= sizeof k->rp[0].pid) return;
  k->rp = pl_xrealloc(k->rp, (k->nrp + 1) * sizeof *k->rp);
  struct rocpid *r = &k->rp[k->nrp++];
  memcpy(r->pid, pid, e->pid.n);
  r->pid[e->pid.n] = '\0';
  r->cls = cls;
  r->dev = dev;
}

/* An event of rocprof's Chrome trace (no "cat"): its class from its
** process, its device from "GPU<n>", its times from BeginNs/EndNs (exact). */
static int roc_class(kctx *k, kev *e) {
  if (!e->pid.set) return C_OTHER;
  const char *pid = svp(k, &e->pid);
  for (size_t i = 0; i < k->nrp; i++) {
    struct rocpid *r = &k->rp[i];
    if (strlen(r->pid) != e->pid.n || memcmp(r->pid, pid, e->pid.n) != 0) continue;
    if (e->device == PL_INT_NA) e->device = r->dev;
    if (e->begin_ns != PL_INT_NA && e->end_ns != PL_INT_NA && e->end_ns >= e->begin_ns) {
      e->ts = e->begin_ns;
      e->dur = e->end_ns - e->begin_ns;
    }
    return r->cls;
  }
  return C_OTHER;
}

/* process_name and thread_name metadata: the processes and threads tables,
** and the device processes for pl_devwork */
static void meta_names(kctx *k, const kev *e) {
  if (!e->argname.set || !e->pid.set) return;
  const char *nm = svp(k, &e->name);
  int proc = e->name.n == 12 && memcmp(nm, "process_name", 12) == 0;
  int thr = e->name.n == 11 && memcmp(nm, "thread_name", 11) == 0;
  if (!proc && !thr) return;
  uint32_t pid = intern_w(k, &e->pid), name = intern(k, &e->argname);
  if (proc) pl_devwork_process_name(k->dw, pid, svp(k, &e->argname), e->argname.n);
  tcols *tc = proc ? &k->pr : &k->th;
  if (!tc->t) return;
  pl_row_put_strid(tc->t, tc->c[0], pid);
  if (thr) put_id(tc->t, tc->c[1], intern_w(k, &e->tid));
  put_id(tc->t, tc->c[proc ? 1 : 2], name);
  pl_row_end(tc->t);
}

/* a CUDA runtime/driver or HIP API name (cudaLaunchKernel, cuMemAlloc_v2,
** hipMemcpyAsync): read as a runtime call whatever its category (an eBPF
** monitor's trace has none) */
static int api_name(const char *s, size_t n) {
  size_t p = 0;
  if (n > 4 && memcmp(s, "cuda", 4) == 0) p = 4;
  else if (n > 3 && memcmp(s, "hip", 3) == 0) p = 3;
  else if (n > 2 && memcmp(s, "cu", 2) == 0) p = 2;
  else return 0;
  if (!(s[p] >= 'A' && s[p] <= 'Z')) return 0;
  for (size_t i = p; i < n; i++)
    if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return 0;
  return 1;
}

/* ---- one event into its tables (pl_kin_emit_event) ---------------------- */

/* The event's name, pid and tid as pool ids, each interned on first use
** (0: not yet), so an event that fills no table interns none of them. */
typedef struct evids {
  uint32_t name, pid, tid;
} evids;

static inline uint32_t ev_name(kctx *k, evids *d) { return d->name ? d->name : (d->name = intern(k, &k->e.name)); }
static inline uint32_t ev_pid(kctx *k, evids *d) { return d->pid ? d->pid : (d->pid = intern_w(k, &k->e.pid)); }
static inline uint32_t ev_tid(kctx *k, evids *d) { return d->tid ? d->tid : (d->tid = intern_w(k, &k->e.tid)); }

/* A metadata event (ph "M"): rocprof's process classes, the processes and
** threads tables. */
static void emit_meta(kctx *k) {
  kev *e = &k->e;
  k->nmeta_events++;
  if (e->argname.set && e->name.n == 12 && memcmp(svp(k, &e->name), "process_name", 12) == 0 && e->pid.set)
    roc_process(k, e);
  meta_names(k, e);
}

/* The event's class (C_KERNEL, C_CPU, ...) from its category, rocprof's
** process, or a runtime API name; counts the categories and API names. */
static inline int event_class(kctx *k) {
  kev *e = &k->e;
  int cls = cat_class(k, &e->cat);
  if (k->nrp && !e->cat.set) cls = roc_class(k, e);
  if (e->cat.set) k->ncat++;
  if (cls == C_OTHER && api_name(svp(k, &e->name), e->name.n)) {
    cls = C_RUNTIME;
    k->napi_named++;
  }
  return cls;
}

/* The row of the `events` table (every event that is not metadata). */
static inline void emit_ev_row(kctx *k, evids *d) {
  kev *e = &k->e;
  cell v[NCOLS(EV_COLS)];
  d->name = intern(k, &e->name);
  d->pid = intern_w(k, &e->pid);
  d->tid = intern_w(k, &e->tid);
  v[EV_NAME].s = d->name;
  v[EV_CAT].s = intern_w(k, &e->cat);
  v[EV_PH].s = intern_w(k, &e->ph);
  v[EV_TS].i = e->ts;
  v[EV_DUR].i = e->dur;
  v[EV_PID].s = d->pid;
  v[EV_TID].s = d->tid;
  v[EV_FLOW].i = e->flow_id;
  v[EV_CORR].i = e->corr;
  v[EV_EXT].i = e->ext;
  v[EV_STREAM].i = e->stream;
  if (e->wait_stream != PL_INT_NA || e->wait_record != PL_INT_NA) {
    if (k->nwait == k->capwait) {
      k->capwait = k->capwait ? 2 * k->capwait : 64;
      k->wait = pl_xrealloc(k->wait, k->capwait * sizeof *k->wait);
    }
    k->wait[k->nwait++] = (struct evwait){ k->ev.t->nrows, e->wait_stream, e->wait_record };
  }
  fast_row(&k->ev, v);
}

/* The wait columns of `events` (EV_WAIT_COLS), where some event has a
** value for them: added at the end, missing but on those events. */
static void add_waits(kctx *k) {
  pl_table *t = k->ev.t;
  if (!t || k->nwait == 0) return;
  int cs = pl_table_add_doc_col(t, EV_WAIT_COLS[0].name, PL_INT, EV_WAIT_COLS[0].doc);
  int cr = pl_table_add_doc_col(t, EV_WAIT_COLS[1].name, PL_INT, EV_WAIT_COLS[1].doc);
  int64_t *s = t->cols[cs]->v.i64, *r = t->cols[cr]->v.i64;
  for (size_t i = 0; i < k->nwait; i++) {
    s[k->wait[i].row] = k->wait[i].stream;
    r[k->wait[i].row] = k->wait[i].record;
  }
}

/* A complete kernel event: a row of `kernels`. */
static inline void emit_kernel(kctx *k, evids *d) {
  kev *e = &k->e;
  cell v[NCOLS(KN_COLS)];
  v[KN_NAME].s = ev_name(k, d);
  v[KN_SHORT].s = short_id(k, d->name);
  v[KN_START].i = e->ts;
  v[KN_DUR].i = e->dur;
  v[KN_DEV].i = e->device;
  v[KN_STREAM].i = stream_of_tid(k, e);
  v[KN_CTX].i = e->context;
  v[KN_CORR].i = e->corr;
  v[KN_EXT].i = e->ext;
  for (int i = 0; i < 3; i++) {
    v[KN_GX + i].i = e->has_grid ? e->grid[i] : PL_INT_NA;
    v[KN_BX + i].i = e->has_block ? e->block[i] : PL_INT_NA;
  }
  v[KN_REGS].i = e->regs;
  v[KN_SMEM].i = pl_int_of(e->smem);
  v[KN_SMEM_S].i = PL_INT_NA;
  v[KN_SMEM_D].i = PL_INT_NA;
  v[KN_WPS].d = e->wps;
  v[KN_BPS].d = e->bps;
  v[KN_OCC].d = e->occ;
  v[KN_THEO].d = e->theo;
  v[KN_KIND].s = intern(k, &e->kind);
  v[KN_CAT].s = intern_w(k, &e->cat);
  fast_row(&k->kn, v);
}

/* A complete CPU operator event: a row of `cpu_ops`. */
static inline void emit_cpu_op(kctx *k, evids *d) {
  kev *e = &k->e;
  cell v[NCOLS(CPU_COLS)];
  v[CPU_NAME].s = ev_name(k, d);
  v[CPU_START].i = e->ts;
  v[CPU_DUR].i = e->dur;
  v[CPU_PID].s = ev_pid(k, d);
  v[CPU_TID].s = ev_tid(k, d);
  v[CPU_EXT].i = e->ext;
  v[CPU_SEQ].i = e->seq;
  v[CPU_FWD].i = e->fwd;
  v[CPU_DIMS].s = intern(k, &e->dims);
  v[CPU_TYPES].s = intern(k, &e->types);
  v[CPU_STRIDES].s = intern(k, &e->strides);
  v[CPU_CONCRETE].s = intern(k, &e->concrete);
  v[CPU_FLOPS].d = e->flops;
  fast_row(&k->cpu, v);
}

/* roctracer writes the launch configuration on the runtime call: kept by
** correlation id for the kernels (fill_launches). */
static void keep_launch(kctx *k) {
  kev *e = &k->e;
  if (k->nlaunch == k->caplaunch) {
    k->caplaunch = k->caplaunch ? k->caplaunch * 2 : 64;
    k->launch = pl_xrealloc(k->launch, k->caplaunch * sizeof *k->launch);
  }
  struct launch *l = &k->launch[k->nlaunch++];
  l->corr = e->corr;
  for (int i = 0; i < 3; i++) {
    l->grid[i] = e->has_grid ? e->grid[i] : PL_INT_NA;
    l->block[i] = e->has_block ? e->block[i] : PL_INT_NA;
  }
  l->smem = e->smem;
}

/* A complete runtime call: a row of `runtime`, and its launch
** configuration when it records one. */
static inline void emit_runtime(kctx *k, evids *d) {
  kev *e = &k->e;
  if (k->rt.t) {
    cell v[NCOLS(RT_COLS)];
    v[RT_NAME].s = ev_name(k, d);
    v[RT_START].i = e->ts;
    v[RT_DUR].i = e->dur;
    v[RT_PID].s = ev_pid(k, d);
    v[RT_TID].s = ev_tid(k, d);
    v[RT_CORR].i = e->corr;
    v[RT_EXT].i = e->ext;
    v[RT_CBID].i = e->cbid;
    v[RT_CAT].s = intern_w(k, &e->cat);
    fast_row(&k->rt, v);
  }
  if (k->kn.t && (e->has_grid || e->has_block) && e->corr != PL_INT_NA) keep_launch(k);
}

/* A complete memcpy or memset event: a row of `memcpy` or `memset`. */
static inline void emit_copy(kctx *k, tcols *tc, evids *d) {
  kev *e = &k->e;
  pl_table *t = tc->t;
  int *c = tc->c;
  put_id(t, c[MC_NAME], ev_name(k, d));
  put_int(t, c[MC_START], e->ts);
  put_int(t, c[MC_DUR], e->dur);
  put_int(t, c[MC_DEV], e->device);
  put_int(t, c[MC_STREAM], stream_of_tid(k, e));
  put_int(t, c[MC_CORR], e->corr);
  put_int(t, c[MC_EXT], e->ext);
  put_int(t, c[MC_BYTES], e->bytes);
  if (!isnan(e->bw)) pl_row_put_num(t, c[MC_BW], e->bw * 1e9);
  pl_row_end(t);
}

/* A complete "ProfilerStep#N" event: a row of `steps`. */
static void emit_step(kctx *k, evids *d) {
  kev *e = &k->e;
  int64_t step;
  const char *s = svp(k, &e->name);
  if (pl_parse_int64(s + 13, e->name.n - 13, &step) != 0) return;
  pl_table *t = k->st.t;
  int *c = k->st.c;
  pl_row_put_int(t, c[ST_STEP], step);
  put_id(t, c[ST_NAME], ev_name(k, d));
  put_int(t, c[ST_START], e->ts);
  put_int(t, c[ST_DUR], e->dur);
  put_id(t, c[ST_PID], ev_pid(k, d));
  put_id(t, c[ST_TID], ev_tid(k, d));
  pl_row_end(t);
}

/* A counter event (ph "C", or a profiler range): one row of `counters`
** per series. */
static void emit_counters(kctx *k, evids *d) {
  kev *e = &k->e;
  pl_table *t = k->ct.t;
  int *c = k->ct.c;
  for (size_t i = 0; i < e->nctr; i++) {
    put_int(t, c[CT_TS], e->ts);
    put_int(t, c[CT_DUR], e->dur);
    put_id(t, c[CT_NAME], ev_name(k, d));
    put_id(t, c[CT_SERIES], intern(k, &e->ctr[i].key));
    pl_row_put_num(t, c[CT_VALUE], ctr_value(k, &e->ctr[i]));
    put_id(t, c[CT_PID], ev_pid(k, d));
    put_id(t, c[CT_TID], ev_tid(k, d));
    pl_row_end(t);
  }
}

static inline int is_step_name(kctx *k) {
  return k->e.name.n > 13 && memcmp(svp(k, &k->e.name), "ProfilerStep#", 13) == 0;
}

/* A complete event (ph "X"): its device, the device-work tally, and its
** row in the table of its class. */
static inline void emit_complete(kctx *k, int cls, evids *d) {
  kev *e = &k->e;
  if (cls == C_KERNEL && e->device == PL_INT_NA && e->pid.set && e->cat.n != 6) {
    /* a vendor's device-side event: the device is the process holding it */
    int64_t dv;
    if (pl_parse_int64(svp(k, &e->pid), e->pid.n, &dv) == 0) e->device = dv;
  }
  if (e->cat.set) { /* device work: read (its process), or not (tallied) */
    if (cls == C_OTHER) pl_devwork_other(k->dw, intern_w(k, &e->cat), ev_pid(k, d), e->dur, e->device != PL_INT_NA);
    else if (cls == C_KERNEL || cls == C_MEMCPY || cls == C_MEMSET) pl_devwork_device_pid(k->dw, ev_pid(k, d));
  }
  if (cls == C_KERNEL && k->kn.t) emit_kernel(k, d);
  else if (cls == C_CPU && k->cpu.t && !is_step_name(k)) emit_cpu_op(k, d);
  else if (cls == C_RUNTIME) emit_runtime(k, d);
  else if ((cls == C_MEMCPY && k->mc.t) || (cls == C_MEMSET && k->ms.t))
    emit_copy(k, cls == C_MEMCPY ? &k->mc : &k->ms, d);
  if (k->st.t && cls != C_GPU_ANNOT && is_step_name(k)) emit_step(k, d);
}

void pl_kin_emit_event(kctx *k) {
  kev *e = &k->e;
  if (!e->ph.set) {
    k->nother++;
    return;
  }
  const char *ph = svp(k, &e->ph);
  if (e->ph.n == 1 && ph[0] == 'M') {
    emit_meta(k);
    return;
  }
  k->nevents++;
  if (e->ts < k->min_ts && e->ts != PL_INT_NA) k->min_ts = e->ts;
  evids d = { 0, 0, 0 };
  int cls = event_class(k);
  int complete = e->ph.n == 1 && ph[0] == 'X';
  if (k->ev.t) emit_ev_row(k, &d);
  if (complete) emit_complete(k, cls, &d);
  if (k->mem.t && e->ph.n == 1 && (ph[0] == 'i' || ph[0] == 'I') && e->name.n == 8 &&
      memcmp(svp(k, &e->name), "[memory]", 8) == 0)
    emit_memory(k, ev_pid(k, &d), ev_tid(k, &d));
  if (k->ct.t && ((e->ph.n == 1 && ph[0] == 'C') || (complete && cls == C_PROFRANGE))) emit_counters(k, &d);
}

/* A field of an event with a value of the wrong type or form (the JSON
** itself is sound; pl_json_fail has set the error): under --lenient the
** event is dropped and listed and reading goes on after the value. */
static int bad_field(kctx *k, pl_json_type t, int *bad) {
  pl_json *j = &k->j;
  if (!pl_lenient_skip(k->o, k->p, k->err)) return -1;
  j->type = t;
  if (pl_json_skip(j)) return -1;
  *bad = 1;
  return 0;
}

static int parse_event(kctx *k) {
  pl_json *j = &k->j;
  kev *e = &k->e;
  int bad = 0;
  ev_reset(e);
  k->scratch.len = 0;
  for (;;) {
    pl_json_type t = pl_json_next(j);
    if (t == PL_JSON_OBJ_END) break;
    if (t == PL_JSON_ERROR) return -1;
    /* t is a KEY */
    ev_key which = j->esc ? EK_OTHER : ev_key_of(j->tok, j->toklen);
    t = pl_json_next(j);
    if (t == PL_JSON_ERROR) return -1;
    switch (which) {
      case EK_PH:
        if (t == PL_JSON_STR) e->ph = tok_sv(k);
        else {
          pl_json_fail(j, j->tok, "the phase \"ph\" as a string");
          if (bad_field(k, t, &bad)) return -1;
        }
        break;
      case EK_TS:
        if (ts_field(k, &e->ts, "the timestamp \"ts\" as a number of microseconds") && bad_field(k, t, &bad)) return -1;
        break;
      case EK_DUR:
        if (ts_field(k, &e->dur, "the duration \"dur\" as a number of microseconds") && bad_field(k, t, &bad))
          return -1;
        break;
      case EK_ID:
        if (t == PL_JSON_NUM) e->flow_id = tok_int(j);
        else if (pl_json_skip(j)) return -1;
        break;
      case EK_CAT:
        if (t == PL_JSON_STR) e->cat = tok_sv(k);
        else if (pl_json_skip(j)) return -1;
        break;
      case EK_PID:
      case EK_TID:
      case EK_NAME: {
        sv *dst = which == EK_PID ? &e->pid : which == EK_TID ? &e->tid : &e->name;
        if (t == PL_JSON_STR || t == PL_JSON_NUM) *dst = tok_sv(k);
        else if (pl_json_skip(j)) return -1;
        break;
      }
      case EK_ARGS:
        if (t == PL_JSON_OBJ) {
          if (parse_args(k)) return -1;
        } else if (pl_json_skip(j)) return -1;
        break;
      default:
        if (pl_json_skip(j)) return -1;
    }
  }
  if (!bad) pl_kin_emit_event(k);
  return 0;
}

/* ---- devices and top-level keys ---------------------------------------- */

static int64_t dom_int(const pl_jdoc *d, int o, const char *key) {
  int i = pl_jdoc_get(d, o, key);
  if (i < 0 || d->n[i].type != PL_JSON_NUM) return PL_INT_NA;
  if (d->n[i].isint) return d->n[i].ival;
  return pl_int_of(d->n[i].dval);
}

/* An AMD device in deviceProperties: HIP fills computeMajor/Minor with the
** gfx version (gfx90a -> 9.0, gfx942 -> 9.4), which is no CUDA compute
** capability.  Its gfx target goes to *arch ("" when it cannot be told):
** gcnArchName when present ("gfx942:sramecc+:xnack-"), else 9.4 -> gfx942
** (MI300A/X; gfx940/941 were never shipped), 9.5 -> gfx950, 9.0 with 104
** or 110 CUs -> gfx90a (MI250/MI250X GCD), 9.0 with 120 CUs -> gfx908
** (MI100); the CU counts are those of gpu-facts.md and the ROCm table. */
static int amd_device(const pl_jdoc *d, int o, const char *name, size_t nl, int64_t warp, int64_t maj, int64_t min,
                      int64_t cus, char *arch, size_t archsz) {
  size_t gl = 0;
  const char *gcn = pl_jdoc_str(d, pl_jdoc_get(d, o, "gcnArchName"), &gl);
  int amd = warp == 64 || (gcn && gl > 3 && memcmp(gcn, "gfx", 3) == 0) ||
            (name && (pl_find(name, nl, "AMD") || pl_find(name, nl, "Radeon") || pl_find(name, nl, "Instinct")));
  arch[0] = '\0';
  if (!amd) return 0;
  if (gcn && gl > 3 && memcmp(gcn, "gfx", 3) == 0) {
    size_t n = 0;
    while (n < gl && gcn[n] != ':') n++;
    snprintf(arch, archsz, "%.*s", (int)(n < 31 ? n : 31), gcn);
  } else if (maj == 9 && min == 4) snprintf(arch, archsz, "gfx942");
  else if (maj == 9 && min == 5) snprintf(arch, archsz, "gfx950");
  else if (maj == 9 && min == 0 && (cus == 104 || cus == 110)) snprintf(arch, archsz, "gfx90a");
  else if (maj == 9 && min == 0 && cus == 120) snprintf(arch, archsz, "gfx908");
  return 1;
}

static int parse_devices(kctx *k) {
  pl_json *j = &k->j;
  if (j->type != PL_JSON_ARR) return pl_json_skip(j);
  pl_jdoc d;
  pl_jdoc_init(&d);
  for (;;) {
    pl_json_type t = pl_json_next(j);
    if (t == PL_JSON_ERROR) {
      pl_jdoc_free(&d);
      return -1;
    }
    if (t == PL_JSON_ARR_END) break;
    pl_jdoc_clear(&d);
    int o = pl_jdoc_read(&d, j);
    if (o < 0) {
      pl_jdoc_free(&d);
      return -1;
    }
    if (d.n[o].type != PL_JSON_OBJ) continue;
    int64_t id = dom_int(&d, o, "id");
    int64_t maj = dom_int(&d, o, "computeMajor"), min = dom_int(&d, o, "computeMinor");
    if (maj == PL_INT_NA) {
      maj = dom_int(&d, o, "major");
      min = dom_int(&d, o, "minor");
    }
    int64_t sms = dom_int(&d, o, "numSms");
    if (sms == PL_INT_NA) sms = dom_int(&d, o, "multiProcessorCount");
    int64_t tpsm = dom_int(&d, o, "maxThreadsPerMultiprocessor");
    if (tpsm == PL_INT_NA) tpsm = dom_int(&d, o, "maxThreadsPerMultiProcessor");
    int64_t warp = dom_int(&d, o, "warpSize");
    int64_t smsm = dom_int(&d, o, "sharedMemPerMultiprocessor");
    if (smsm == PL_INT_NA) smsm = dom_int(&d, o, "maxSharedMemoryPerMultiProcessor");
    size_t nl = 0;
    const char *name = pl_jdoc_str(&d, pl_jdoc_get(&d, o, "name"), &nl);
    char cc[48] = "", arch[32] = "";
    if (maj != PL_INT_NA) snprintf(cc, sizeof cc, "%lld.%lld", (long long)maj, (long long)(min == PL_INT_NA ? 0 : min));
    int amd = amd_device(&d, o, name, nl, warp, maj, min, sms, arch, sizeof arch);
    if (k->ndevices == 0) {
      if (name) pl_profile_meta_str(k->p, "device", name, nl);
      if (amd) {
        /* no "cc": the NVIDIA rules must not take the gfx version for one */
        pl_profile_meta_str(k->p, "vendor", "AMD", 3);
        if (arch[0]) pl_profile_meta_str(k->p, "arch", arch, strlen(arch));
        if (cc[0]) pl_profile_meta_str(k->p, "gfx_version", cc, strlen(cc));
      } else if (cc[0]) pl_profile_meta_str(k->p, "cc", cc, strlen(cc));
      if (sms != PL_INT_NA) pl_profile_meta_num(k->p, "sm_count", (double)sms);
    }
    k->ndevices++;
    if (k->dv.t) {
      pl_table *t = k->dv.t;
      int *c = k->dv.c;
      put_int(t, c[DV_ID], id);
      if (name) pl_row_put_str(t, c[DV_NAME], name, nl);
      if (cc[0] && !amd) pl_row_put_str(t, c[DV_CC], cc, strlen(cc));
      if (amd) pl_row_put_str(t, c[DV_VENDOR], "AMD", 3);
      else if (cc[0]) pl_row_put_str(t, c[DV_VENDOR], "NVIDIA", 6);
      if (arch[0]) pl_row_put_str(t, c[DV_ARCH], arch, strlen(arch));
      put_int(t, c[DV_MAJ], maj);
      put_int(t, c[DV_MIN], min);
      put_int(t, c[DV_SMS], sms);
      put_int(t, c[DV_WARP], warp);
      put_int(t, c[DV_TPB], dom_int(&d, o, "maxThreadsPerBlock"));
      put_int(t, c[DV_TPSM], tpsm);
      if (tpsm != PL_INT_NA && warp != PL_INT_NA && warp > 0) pl_row_put_int(t, c[DV_WPSM], tpsm / warp);
      put_int(t, c[DV_RPB], dom_int(&d, o, "regsPerBlock"));
      put_int(t, c[DV_RPSM], dom_int(&d, o, "regsPerMultiprocessor"));
      put_int(t, c[DV_SMB], dom_int(&d, o, "sharedMemPerBlock"));
      put_int(t, c[DV_SMBO], dom_int(&d, o, "sharedMemPerBlockOptin"));
      put_int(t, c[DV_SMSM], smsm);
      put_int(t, c[DV_MEM], dom_int(&d, o, "totalGlobalMem"));
      pl_row_end(t);
    }
  }
  pl_jdoc_free(&d);
  return 0;
}

/* Columns of this many bytes or more go on huge pages (pl_kin_progress). */
#define KIN_HUGE_MIN (4u << 20)

int pl_kin_progress(kctx *k) {
  size_t done = pl_kin_pos(k, k->j.p);
  if (done < k->next_progress) return 0;
  k->next_progress = done + (4u << 20);
  if (!k->reserved && done >= (4u << 20)) {
    /* the rows to come, estimated from the rows per byte so far (5 % over):
    ** each column allocated once instead of grown by realloc and copy
    ** (pages past the rows written are never touched) */
    k->reserved = 1;
    tcols *all[] = { &k->ev, &k->kn, &k->cpu, &k->rt, &k->mc, &k->ms, &k->st, &k->ct, &k->mem };
    double scale = (double)pl_kin_total(k) / (double)done * 1.05;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
      pl_table *t = all[i]->t;
      if (t && t->nrows > 0 && scale > 1.5) {
        /* the columns still empty get storage that reads as missing
        ** and costs nothing until written (fast_row then skips their
        ** missing values): 33 MB of the 1 GB bench trace's peak */
        pl_table_reserve_sparse(t, (size_t)((double)t->nrows * scale) + 1024);
        all[i]->room = 0; /* fast_row: the columns' room and kinds again */
        /* the columns of 4 MB and more on huge pages, but for their
        ** last eighth (no huge page resident past the values at the end).
        ** The events table's integers alone: -1.3 s user time and -100 k
        ** page faults on the 1 GB bench trace; every column of 4 MB:
        ** -6 % CPU more (docs/performance.md, "Fresh memory, not the
        ** stores": on the VMs measured, the first write to a fresh 4 KB
        ** page costs ~10 us, to a huge page's share much less). */
        pl_table_hugepages(t, KIN_HUGE_MIN);
      }
    }
  }
  if (k->reserved && !k->huge_end && done >= pl_kin_total(k) / 20 * 17) {
    /* 85 % read: the rows to come estimated again (closely now), and the
    ** huge pages from the one the last row should fall in made small, so
    ** that no column ends the read with a huge page partly written */
    k->huge_end = 1;
    tcols *all[] = { &k->ev, &k->kn, &k->cpu, &k->rt, &k->mc, &k->ms, &k->st, &k->ct, &k->mem };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
      pl_table *t = all[i]->t;
      if (t && t->nrows > 0)
        pl_table_hugepages_end(t, KIN_HUGE_MIN, (size_t)((double)t->nrows * (double)pl_kin_total(k) / (double)done));
    }
  }
  if (k->reserved) {
    /* the rows of the next 8 MB of input faulted in ahead, one call per
    ** column (pl_table_populate) instead of a fault per page: -1 s of
    ** system time on the 1 GB bench trace */
    tcols *all[] = { &k->ev, &k->kn, &k->cpu, &k->rt, &k->mc, &k->ms, &k->st, &k->ct, &k->mem };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
      tcols *tc = all[i];
      pl_table *t = tc->t;
      if (!t || tc->faulted == SIZE_MAX || t->nrows == 0) continue;
      size_t to = t->nrows + (size_t)((double)t->nrows * (double)(8u << 20) / (double)done) + 64;
      size_t from = tc->faulted > t->nrows ? tc->faulted : t->nrows;
      if (to > from) tc->faulted = pl_table_populate(t, from, to) == 0 ? to : SIZE_MAX;
    }
  }
  if (k->o && k->o->interrupt &&
      __atomic_load_n(k->o->interrupt, __ATOMIC_RELAXED)) { /* set by another thread (load_many) */
    size_t l, c;
    pl_json_linecol(&k->j, k->j.p, &l, &c);
    return pl_err_set(k->err, l, c, "interrupted");
  }
  if (k->o && k->o->progress) k->o->progress(k->o->progress_ud, done, pl_kin_total(k));
  return 0;
}

/* Reads the elements of the open traceEvents array: to its end (0), or
** up to the first object element that starts at or past stream offset
** limit (SIZE_MAX: none) (1, *at = the offset of its '{', not read; the
** tokenizer is left just before it).  -1 on error. */
int pl_kin_events_until(kctx *k, size_t limit, size_t *at) {
  pl_json *j = &k->j;
  for (;;) {
    if (pl_kin_need(k, KN_ELEMENT)) return -1;
    const char *end = j->end;
    if (limit != SIZE_MAX) {
      const char *r = pl_kin_fws(j->p, end);
      if (r < end && *r == ',') r = pl_kin_fws(r + 1, end);
      if (pl_kin_pos(k, r) >= limit && r < end && *r == '{') {
        *at = pl_kin_pos(k, r);
        return 1;
      }
    }
    if (k->before_read) k->before_read(k->before_ud);
    pl_json_type t = pl_json_next(j);
    if (t == PL_JSON_ERROR) return -1;
    if (t == PL_JSON_ARR_END) return 0;
    if (t != PL_JSON_OBJ) {
      pl_profile_diag(k->p, pl_json_line(j), "traceEvents: skipped an element that is not an object");
      if (pl_json_skip(j)) return -1;
      continue;
    }
    const char *q = pl_kin_fast_event(k, j->p);
    if (q != NULL) {
      pl_kin_emit_event(k);
      /* the events that follow, while they take the fast path too (up to
      ** the next progress report, and short of limit) */
      const char *lim = k->next_progress > k->in_off ? k->in->data + (k->next_progress - k->in_off) : k->in->data;
      while (q < lim) {
        const char *r = pl_kin_fws(q, end);
        if (r >= end || *r != ',') break;
        r = pl_kin_fws(r + 1, end);
        if (r >= end || *r != '{' || pl_kin_pos(k, r) >= limit) break;
        const char *q2 = pl_kin_fast_event(k, r + 1);
        if (q2 == NULL) break;
        pl_kin_emit_event(k);
        q = q2;
      }
      pl_json_close_at(j, q);
    } else if (parse_event(k)) return -1;
    if (pl_kin_pos(k, j->p) >= k->next_progress && pl_kin_progress(k)) return -1;
  }
}

static int parse_events(kctx *k) {
  pl_json *j = &k->j;
  if (j->type != PL_JSON_ARR) return pl_json_fail(j, j->tok, "\"traceEvents\" as an array of events");
  int rc = pl_kin_events_par(k);
  if (rc != 1) return rc;
  size_t at;
  return pl_kin_events_until(k, SIZE_MAX, &at);
}

static void meta_scalar(kctx *k, const char *key, size_t kn) {
  pl_json *j = &k->j;
  char name[128];
  if (kn >= sizeof name) return;
  memcpy(name, key, kn);
  name[kn] = '\0';
  if (strcmp(name, "displayTimeUnit") == 0) strcpy(name, "display_time_unit");
  else if (strcmp(name, "schemaVersion") == 0) {
    strcpy(name, "schema_version");
    k->saw_schema = 1;
  } else if (strcmp(name, "baseTimeNanoseconds") == 0) strcpy(name, "base_time_ns");
  else if (strcmp(name, "traceName") == 0) strcpy(name, "trace_name");
  if (j->type == PL_JSON_STR) {
    size_t n;
    const char *s = pl_json_str(j, &n);
    if (n <= 1024) pl_profile_meta_str(k->p, name, s, n);
  } else if (j->type == PL_JSON_NUM) {
    if (j->isint && (j->ival > (1ll << 53) || j->ival < -(1ll << 53)))
      pl_profile_meta_str(k->p, name, j->tok, j->toklen); /* keep exact */
    else pl_profile_meta_num(k->p, name, pl_json_num(j));
  }
}

static int parse_distributed(kctx *k) {
  pl_json *j = &k->j;
  if (j->type != PL_JSON_OBJ) return pl_json_skip(j);
  pl_jdoc d;
  pl_jdoc_init(&d);
  int o = pl_jdoc_read(&d, j);
  if (o < 0) {
    pl_jdoc_free(&d);
    return -1;
  }
  int64_t v;
  if ((v = dom_int(&d, o, "rank")) != PL_INT_NA) pl_profile_meta_num(k->p, "rank", (double)v);
  if ((v = dom_int(&d, o, "world_size")) != PL_INT_NA) pl_profile_meta_num(k->p, "world_size", (double)v);
  size_t n;
  const char *s = pl_jdoc_str(&d, pl_jdoc_get(&d, o, "backend"), &n);
  if (s) pl_profile_meta_str(k->p, "backend", s, n);
  pl_jdoc_free(&d);
  return 0;
}

static size_t line_of(const pl_json *j, const char *at) {
  size_t l, c;
  pl_json_linecol(j, at, &l, &c);
  return l;
}

static int launch_cmp(const void *a, const void *b) {
  int64_t x = ((const struct launch *)a)->corr, y = ((const struct launch *)b)->corr;
  return x < y ? -1 : x > y;
}

/* AMD traces: kernels carry no grid/block; the hipLaunchKernel runtime event
** with the same correlation does. */
static void fill_launches(kctx *k) {
  if (!k->kn.t || k->nlaunch == 0) return;
  qsort(k->launch, k->nlaunch, sizeof *k->launch, launch_cmp);
  pl_table *t = k->kn.t;
  int *c = k->kn.c;
  size_t filled = 0;
  for (size_t r = 0; r < t->nrows; r++) {
    int64_t corr = pl_cell_int(t, c[KN_CORR], r);
    if (corr == PL_INT_NA || !pl_cell_missing(t, c[KN_GX], r)) continue;
    size_t lo = 0, hi = k->nlaunch;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (k->launch[mid].corr < corr) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= k->nlaunch || k->launch[lo].corr != corr) continue;
    struct launch *l = &k->launch[lo];
    int gc[3] = { c[KN_GX], c[KN_GY], c[KN_GZ] }, bc[3] = { c[KN_BX], c[KN_BY], c[KN_BZ] };
    for (int i = 0; i < 3; i++) {
      t->cols[gc[i]]->v.i64[r] = l->grid[i];
      t->cols[bc[i]]->v.i64[r] = l->block[i];
    }
    if (!isnan(l->smem) && pl_cell_missing(t, c[KN_SMEM], r)) t->cols[c[KN_SMEM]]->v.i64[r] = pl_int_of(l->smem);
    filled++;
  }
  if (filled)
    pl_profile_diag(
        k->p, 0, "kernels: grid/block/shared memory of %zu kernels taken from their launch call (same correlation id)",
        filled);
}

static void free_tables(kctx *k) {
  tcols *all[] = { &k->ev, &k->kn, &k->cpu, &k->rt, &k->mc, &k->ms, &k->st, &k->ct, &k->mem, &k->dv, &k->pr, &k->th };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    pl_table_free(all[i]->t);
    all[i]->t = NULL;
  }
}

kctx *pl_kin_ctx_new(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  kctx *k = pl_xcalloc(1, sizeof *k);
  k->in = in;
  k->p = p;
  k->o = o;
  k->err = err;
  pl_json_init(&k->j, in->data, in->len, err);
  pl_buf_init(&k->scratch);
  pl_buf_init(&k->tmp);
  k->pool = pl_pool_new();
  ev_reset(&k->e0);
  k->min_ts = INT64_MAX;
  make_table(k, &k->ev, "events", EV_COLS, NCOLS(EV_COLS));
  make_table(k, &k->kn, "kernels", KN_COLS, NCOLS(KN_COLS));
  make_table(k, &k->cpu, "cpu_ops", CPU_COLS, NCOLS(CPU_COLS));
  make_table(k, &k->rt, "runtime", RT_COLS, NCOLS(RT_COLS));
  make_table(k, &k->mc, "memcpy", MC_COLS, NCOLS(MC_COLS));
  make_table(k, &k->ms, "memset", MC_COLS, NCOLS(MC_COLS));
  make_table(k, &k->st, "steps", ST_COLS, NCOLS(ST_COLS));
  make_table(k, &k->ct, "counters", CT_COLS, NCOLS(CT_COLS));
  make_table(k, &k->mem, "memory_events", MEM_COLS, NCOLS(MEM_COLS));
  make_table(k, &k->dv, "devices", DV_COLS, NCOLS(DV_COLS));
  make_table(k, &k->pr, "processes", PR_COLS, NCOLS(PR_COLS));
  make_table(k, &k->th, "threads", TH_COLS, NCOLS(TH_COLS));
  k->dw = pl_devwork_new();
  return k;
}

void pl_kin_ctx_free(kctx *k) {
  if (!k) return;
  free_tables(k);
  pl_pool_release(k->pool);
  pl_json_free(&k->j);
  pl_buf_free(&k->scratch);
  pl_buf_free(&k->tmp);
  free(k->e.ctr);
  free(k->shortof);
  free(k->launch);
  free(k->wait);
  free(k->rp);
  pl_devwork_free(k->dw);
  free(k);
}

static void drop_if_empty_col(pl_table *t, const char *name) {
  int c = pl_table_col(t, name);
  if (c < 0) return;
  for (size_t r = 0; r < t->nrows; r++)
    if (!pl_cell_missing(t, c, r)) return;
  pl_table_drop_col(t, c);
}

int pl_kin_read(kctx *k) {
  pl_profile *p = k->p;
  pl_err *err = k->err;
  if (k->ms.t) { pl_table_set_doc(k->ms.t, k->ms.c[MC_NAME], "e.g. 'Memset (Device)'"); }
  pl_json *j = &k->j;
  int rc = -1, seen_events = 0;
  if (pl_kin_need(k, KN_TOKEN)) goto done;
  pl_json_type t = pl_json_next(j);
  if (t == PL_JSON_ERROR) goto done;
  if (t == PL_JSON_ARR) {
    /* the bare form: an array of events */
    if (parse_events(k)) goto done;
    seen_events = 1;
  } else if (t == PL_JSON_OBJ) {
    for (;;) {
      if (pl_kin_need(k, KN_MEMBER)) goto done;
      t = pl_json_next(j);
      if (t == PL_JSON_ERROR) goto done;
      if (t == PL_JSON_OBJ_END) break;
      const char *key = j->tok;
      size_t kn = j->toklen;
      const char *keyat = key;
      t = pl_json_next(j);
      if (t == PL_JSON_ERROR) goto done;
#define TOPKEY(lit) (kn == sizeof(lit) - 1 && memcmp(key, lit, kn) == 0)
      if (TOPKEY("traceEvents")) {
        if (parse_events(k)) goto done;
        seen_events = 1;
      } else if (TOPKEY("deviceProperties") || TOPKEY("computeProperties")) {
        if (parse_devices(k)) goto done;
      } else if (TOPKEY("distributedInfo")) {
        if (parse_distributed(k)) goto done;
      } else if (t == PL_JSON_STR || t == PL_JSON_NUM) {
        meta_scalar(k, key, kn);
      } else {
        if (t == PL_JSON_OBJ || t == PL_JSON_ARR)
          pl_profile_diag(p, line_of(j, keyat), "top-level \"%.*s\" (%s) not read", (int)(kn > 60 ? 60 : kn), key,
                          t == PL_JSON_OBJ ? "object" : "array");
        if (pl_json_skip(j)) goto done;
      }
    }
  } else {
    pl_json_fail(j, j->tok, "a Chrome trace: '{' with \"traceEvents\", or '[' of events");
    goto done;
  }
  if (pl_kin_need(k, KN_REST)) goto done;
  t = pl_json_next(j);
  if (t != PL_JSON_EOF) goto done;
  if (!seen_events) {
    pl_err_set(err, 1, 1, "expected a Chrome trace with \"traceEvents\", found none");
    goto done;
  }
  {
    /* the text is read: its pages (the loader's progress) and the
    ** reservations' unused pages go before the work on the tables */
    tcols *all[] = { &k->ev, &k->kn, &k->cpu, &k->rt, &k->mc, &k->ms, &k->st, &k->ct, &k->mem };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
      if (all[i]->t) pl_table_trim(all[i]->t);
    if (!k->ks && k->o && k->o->progress) k->o->progress(k->o->progress_ud, k->in->len, k->in->len);
  }
  fill_launches(k);
  add_waits(k);
  if (k->mem.t) pl_mem_attribute(k->mem.t, k->cpu.t, k->mem.c[MEM_OP], k->mem.c[MEM_OPROW]);
  if (k->nmeta_events)
    pl_profile_diag(p, 0, "%zu metadata (ph \"M\") events (process/thread names) not kept as events", k->nmeta_events);
  if (k->nother) pl_profile_diag(p, 0, "%zu events without \"ph\" skipped", k->nother);
  if (k->kn.t) {
    drop_if_empty_col(k->kn.t, "theoretical_occupancy_pct");
    drop_if_empty_col(k->kn.t, "kind");
  }
  if (k->nrp) {
    pl_profile_meta_str(p, "tool", "rocprof --hip-trace (Chrome trace)", strlen("rocprof --hip-trace (Chrome trace)"));
    pl_profile_meta_str(p, "vendor", "AMD", 3);
  } else if (k->ncat == 0 && !k->saw_schema) {
    /* no category on any event and no schemaVersion: not Kineto's */
    pl_profile_meta_str(p, "tool", "Chrome-trace JSON (origin unknown)", strlen("Chrome-trace JSON (origin unknown)"));
  } else pl_profile_meta_str(p, "tool", "PyTorch Profiler (Kineto)", strlen("PyTorch Profiler (Kineto)"));
  if (k->napi_named)
    pl_profile_diag(p, 0,
                    "%zu events without a runtime category read as runtime calls by their API name (cu*, cuda*, hip*)",
                    k->napi_named);
  pl_devwork_report(k->dw, k->pool, p);
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  pl_profile_meta_num(p, "events", (double)k->nevents);
  if (k->min_ts != INT64_MAX) { /* text: int64 ns exceed a double's integers */
    char b[24];
    int n = snprintf(b, sizeof b, "%lld", (long long)k->min_ts);
    pl_profile_meta_str(p, "start_ns", b, (size_t)n);
  }
  pl_profile_meta_num(p, "devices", (double)k->ndevices);
  {
    tcols *all[] = { &k->ev, &k->kn, &k->cpu, &k->rt, &k->mc, &k->ms, &k->st, &k->ct, &k->mem, &k->dv, &k->pr, &k->th };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
      if (all[i]->t) {
        pl_profile_add_table(p, all[i]->t);
        all[i]->t = NULL;
      }
  }
  rc = 0;
done:
  return rc;
}

static int kineto_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_kin_arg_ranges();
  kctx *k = pl_kin_ctx_new(in, p, o, err);
  int rc = pl_kin_read(k);
  if (o && o->progress && rc == 0) o->progress(o->progress_ud, in->len, in->len);
  pl_kin_ctx_free(k);
  return rc;
}

static int kineto_detect(const char *data, size_t len) {
  size_t i = 0;
  if (len >= 3 && (unsigned char)data[0] == 0xEF && (unsigned char)data[1] == 0xBB && (unsigned char)data[2] == 0xBF)
    i = 3;
  while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) i++;
  if (i >= len) return 0;
  if (data[i] == '{') {
    if (pl_find(data + i, len - i, "\"traceEvents\"")) return 90;
    if (pl_find(data + i, len - i, "\"schemaVersion\"") &&
        (pl_find(data + i, len - i, "\"deviceProperties\"") || pl_find(data + i, len - i, "\"computeProperties\"")))
      return 80;
    return 0;
  }
  if (data[i] == '[') {
    if (pl_find(data + i, len - i, "\"ph\"") && pl_find(data + i, len - i, "\"ts\"")) return 60;
  }
  return 0;
}

const pl_format pl_fmt_kineto = {
  "kineto",
  "PyTorch profiler / Kineto Chrome-trace JSON (.json, .json.gz), read in one streaming pass",
  "events kernels cpu_ops runtime memcpy memset steps counters memory_events devices processes threads",
  kineto_detect,
  kineto_parse,
};

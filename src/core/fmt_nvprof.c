/*
** fmt_nvprof.c -- format "nvprof": what nvprof prints (text) or writes
** with --csv.
**
**  - the summary ("==N== Profiling result:"): "Type Time(%) Time Calls Avg
**    Min Max Name" with a "GPU activities:" / "API calls:" group label on
**    the first row of each group, values with a unit suffix per cell
**    (225.83ms, 148ns, 97.39%) or without one and a units row under the
**    header ("%  ms  ms ms ms"); older nvprof prints no Type column and an
**    "==N== API calls:" line before the API group.
**  - "==N== Unified Memory profiling result:" blocks (Device "...", Count,
**    Avg/Min/Max/Total Size, Total Time, Name; "Total CPU Page faults: N").
**  - --print-gpu-trace: a column table (Start, Duration, Grid Size "(8 1 1)",
**    Block Size, Regs*, SSMem*, DSMem*, Size, Throughput, ..., Name) whose
**    cells are right-aligned under their header label (Name left-aligned).
**  - --metrics / --events: "Invocations  Metric Name  Metric Description
**    Min Max Avg" tables under "Kernel: NAME" lines; values like "Low (1)"
**    stay text.
**  - --csv of the summary, the GPU trace and the metrics: a header row, then
**    (summary, trace) a units row ("ms,us,,,...,B,B,KB,GB/s").
** nvprof's size units are binary (KB = 1024 B, GB/s = 2^30 B/s).
**
** Tables: summary (every row with its type), kernel_summary, memcpy_summary,
** api_summary, kernels, memcpy, unified_memory, unified_memory_events,
** metrics.
*/
#include "format.h"
#include "schema.h"
#include "units.h"
#include "csvread.h"
#include "kernsum.h"
#include "names.h"
#include "par.h"
#include "scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- units -------------------------------------------------------------- */

/* Factor to base units for an nvprof unit spelling; 0 when unknown. */
static double nv_unit(const char *u, size_t n, int *kind) {
  static const struct {
    const char *s;
    size_t n;
    double f;
    int kind;
  } units[] = {
    { "ns", 2, 1, 1 },
    { "us", 2, 1e3, 1 },
    { "ms", 2, 1e6, 1 },
    { "s", 1, 1e9, 1 },
    { "B", 1, 1, 2 },
    { "KB", 2, 1024.0, 2 },
    { "MB", 2, 1048576.0, 2 },
    { "GB", 2, 1073741824.0, 2 },
    { "TB", 2, 1099511627776.0, 2 },
    { "B/s", 3, 1, 3 },
    { "KB/s", 4, 1024.0, 3 },
    { "MB/s", 4, 1048576.0, 3 },
    { "GB/s", 4, 1073741824.0, 3 },
    { "TB/s", 4, 1099511627776.0, 3 },
    { "%", 1, 1, 4 },
    { "Hz", 2, 1, 5 },
    { "KHz", 3, 1e3, 5 },
    { "MHz", 3, 1e6, 5 },
    { "GHz", 3, 1e9, 5 },
  };
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (units[i].n == n && units[i].s[0] == u[0] && memcmp(units[i].s, u, n) == 0) {
      if (kind) *kind = units[i].kind;
      return units[i].f;
    }
  return 0;
}

/* "225.83ms" -> value in base units.  With no suffix the default factor
** applies.  Returns 0 on success. */
static int nv_value(const char *s, size_t n, double deffactor, double *out, int *kind) {
  size_t i = 0;
  while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-' || s[i] == '+' ||
                   ((s[i] == 'e' || s[i] == 'E') && i > 0 && i + 1 < n &&
                    (s[i + 1] == '-' || s[i + 1] == '+' || (s[i + 1] >= '0' && s[i + 1] <= '9')))))
    i++;
  if (i == 0) return -1;
  double v;
  if (pl_parse_double(s, i, &v) != 0) return -1;
  double f = deffactor;
  if (kind) *kind = 0;
  if (i < n) {
    f = nv_unit(s + i, n - i, kind);
    if (f == 0) return -1;
  }
  *out = pl_unit_scale(v, f);
  return 0;
}

static int is_unit_token(const char *s, size_t n) { return nv_unit(s, n, NULL) != 0; }

/* ---- tables -------------------------------------------------------------- */

typedef struct sumtab {
  pl_table *t;
  int name, type, share, total, calls, mean, min, max, line;
} sumtab;

static void sum_init(sumtab *s, const char *name) {
  pl_table *t = s->t = pl_table_new(name);
  s->type = pl_table_add_doc_col(t, "type", PL_STR, "nvprof group: GPU activities or API calls");
  s->name = pl_table_add_doc_col(t, "name", PL_STR, "kernel, memory operation or API function");
  s->calls = pl_table_add_doc_col(t, "calls", PL_INT, "calls");
  s->total = pl_table_add_doc_col(t, "total_ns", PL_NUM, "total time, ns");
  s->mean = pl_table_add_doc_col(t, "mean_ns", PL_NUM, "mean time per call, ns");
  s->min = pl_table_add_doc_col(t, "min_ns", PL_NUM, "shortest call, ns");
  s->max = pl_table_add_doc_col(t, "max_ns", PL_NUM, "longest call, ns");
  s->share = pl_table_add_doc_col(t, "share_pct", PL_NUM, "share of the group's time, percent 0-100");
  s->line = pl_table_add_doc_col(t, "line", PL_INT, "line number in the input");
}

typedef struct tracetab {
  pl_table *k, *m, *u; /* kernels, memcpy, unified_memory_events */
  int k_name, k_start, k_dur, k_g[3], k_b[3], k_regs, k_ss, k_ds, k_dev, k_devn, k_ctx, k_str, k_id, k_line;
  int m_name, m_start, m_dur, m_size, m_thr, m_src, m_dst, m_dev, m_devn, m_ctx, m_str, m_line;
  int u_name, u_start, u_dur, u_dev, u_devn, u_val, u_addr, u_line;
} tracetab;

static void trace_init(tracetab *x) {
  pl_table *t = x->k = pl_table_new("kernels");
  x->k_name = pl_std_col(t, "name", "kernel name (launch id suffix removed)");
  x->k_start = pl_std_col(t, "start_ns", NULL);
  x->k_dur = pl_std_col(t, "duration_ns", NULL);
  static const char *gn[3] = { "grid_x", "grid_y", "grid_z" }, *bn[3] = { "block_x", "block_y", "block_z" };
  for (int d = 0; d < 3; d++) x->k_g[d] = pl_std_col(t, gn[d], NULL);
  for (int d = 0; d < 3; d++) x->k_b[d] = pl_std_col(t, bn[d], NULL);
  x->k_regs = pl_table_add_doc_col(t, "registers", PL_INT, "registers per thread");
  x->k_ss = pl_table_add_doc_col(t, "smem_static_bytes", PL_NUM, "static shared memory per block, bytes");
  x->k_ds = pl_table_add_doc_col(t, "smem_dynamic_bytes", PL_NUM, "dynamic shared memory per block, bytes");
  x->k_dev = pl_std_col(t, "device", NULL);
  x->k_devn = pl_std_col(t, "device_name", NULL);
  x->k_ctx = pl_std_col(t, "context", NULL);
  x->k_str = pl_std_col(t, "stream", NULL);
  x->k_id = pl_table_add_doc_col(t, "launch_id", PL_INT, "the [N] nvprof appends to kernel names");
  x->k_line = pl_table_add_doc_col(t, "line", PL_INT, NULL);
  t = x->m = pl_table_new("memcpy");
  x->m_name = pl_std_col(t, "name", "operation, e.g. [CUDA memcpy HtoD]");
  x->m_start = pl_std_col(t, "start_ns", NULL);
  x->m_dur = pl_std_col(t, "duration_ns", NULL);
  x->m_size = pl_table_add_doc_col(t, "size_bytes", PL_NUM, "bytes moved (nvprof KB = 1024 B)");
  x->m_thr = pl_table_add_doc_col(t, "throughput_bytes_per_s", PL_NUM, "bytes per second (nvprof GB/s = 2^30 B/s)");
  x->m_src = pl_table_add_doc_col(t, "src_mem_type", PL_STR, "source memory type");
  x->m_dst = pl_table_add_doc_col(t, "dst_mem_type", PL_STR, "destination memory type");
  x->m_dev = pl_std_col(t, "device", NULL);
  x->m_devn = pl_std_col(t, "device_name", NULL);
  x->m_ctx = pl_std_col(t, "context", NULL);
  x->m_str = pl_std_col(t, "stream", NULL);
  x->m_line = pl_table_add_doc_col(t, "line", PL_INT, "line number in the input");
  t = x->u = pl_table_new("unified_memory_events");
  x->u_name = pl_table_add_doc_col(t, "name", PL_STR, "event, e.g. [Unified Memory GPU page faults]");
  x->u_start = pl_table_add_doc_col(t, "start_ns", PL_INT, "start time, ns");
  x->u_dur = pl_table_add_doc_col(t, "duration_ns", PL_INT, "duration, ns (missing for CPU faults)");
  x->u_dev = pl_table_add_doc_col(t, "device", PL_INT, "device index, in order of first appearance in the file");
  x->u_devn = pl_table_add_doc_col(t, "device_name", PL_STR, "device name");
  x->u_val = pl_table_add_doc_col(t, "value", PL_STR, "the Unified Memory cell as printed (fault count, bytes, PC)");
  x->u_addr = pl_table_add_doc_col(t, "virtual_address", PL_STR, "virtual address");
  x->u_line = pl_table_add_doc_col(t, "line", PL_INT, "line number in the input");
}

typedef struct nvstate {
  pl_profile *p;
  const pl_parse_opts *o;
  sumtab sum;
  tracetab tr;
  pl_table *um;
  int um_dev, um_devn, um_name, um_count, um_avg, um_min, um_max, um_total, um_time;
  pl_table *met;
  int mt_kid, mt_kernel, mt_dev, mt_devn, mt_inv, mt_metric, mt_desc, mt_unit, mt_min, mt_max, mt_avg, mt_total,
      mt_value, mt_minr, mt_maxr, mt_avgr, mt_raw, mt_line;
  char device[256];
  char **devs;
  size_t ndevs; /* device names in order of first appearance: device = index */
  char kernel[4096];
  size_t kernel_n;
  int kernel_id;
  char deftype[32];
  int found;
  /* runs: a log of several profiled processes holds one run per
  ** "NVPROF is profiling process" / "Profiling result:" block.  snap holds,
  ** per run, the row count of each of the NV_TABLES tables when it began
  ** (rows are appended in file order, so a run's rows are a range). */
  int run, run_header;
  size_t *snap;
  struct nvrun {
    char pid[24], command[512], device[256];
  } * runs;
} nvstate;

enum { NV_TABLES = 6 };

static void nv_tables(nvstate *s, pl_table *out[NV_TABLES]) {
  out[0] = s->sum.t;
  out[1] = s->tr.k;
  out[2] = s->tr.m;
  out[3] = s->tr.u;
  out[4] = s->um;
  out[5] = s->met;
}

/* Puts device name s[0..n) in row-building table t: its index (in order of
** first appearance in the file) in column dev, the name in column devn. */
static void put_device(nvstate *st, pl_table *t, int dev, int devn, const char *s, size_t n) {
  size_t i = 0;
  while (i < st->ndevs && !(strlen(st->devs[i]) == n && memcmp(st->devs[i], s, n) == 0)) i++;
  if (i == st->ndevs) {
    st->devs = pl_xrealloc(st->devs, (st->ndevs + 1) * sizeof *st->devs);
    st->devs[st->ndevs] = pl_xmalloc(n + 1);
    memcpy(st->devs[st->ndevs], s, n);
    st->devs[st->ndevs][n] = '\0';
    st->ndevs++;
  }
  pl_row_put_int(t, dev, (int64_t)i);
  pl_row_put_str(t, devn, s, n);
}

static void free_devices(nvstate *st) {
  for (size_t i = 0; i < st->ndevs; i++) free(st->devs[i]);
  free(st->devs);
}

/* Rows read since the current run began. */
static size_t run_rows(nvstate *s) {
  pl_table *t[NV_TABLES];
  nv_tables(s, t);
  size_t n = 0;
  for (int k = 0; k < NV_TABLES; k++) n += t[k]->nrows - s->snap[(size_t)(s->run - 1) * NV_TABLES + (size_t)k];
  return n;
}

static void new_run(nvstate *s) {
  pl_table *t[NV_TABLES];
  nv_tables(s, t);
  s->run++;
  s->snap = pl_xrealloc(s->snap, (size_t)s->run * NV_TABLES * sizeof *s->snap);
  s->runs = pl_xrealloc(s->runs, (size_t)s->run * sizeof *s->runs);
  memset(&s->runs[s->run - 1], 0, sizeof *s->runs);
  for (int k = 0; k < NV_TABLES; k++) s->snap[(size_t)(s->run - 1) * NV_TABLES + (size_t)k] = t[k]->nrows;
  s->run_header = 0;
}

/* With several runs: a `run` column (1, 2, ...) on every table, from the
** row ranges of the runs, and meta runs, runN.pid, runN.command,
** runN.device.  One run keeps the tables as they were. */
static void add_runs(nvstate *s) {
  if (s->run < 2) return;
  pl_table *t[NV_TABLES];
  nv_tables(s, t);
  for (int k = 0; k < NV_TABLES; k++) {
    int c = pl_table_add_doc_col(t[k], "run", PL_INT,
                                 "run number (1, 2, ...): one per profiled process "
                                 "(\"NVPROF is profiling process\" / \"Profiling result:\" block) in file order");
    if (c < 0) continue;
    for (int r = 0; r < s->run; r++) {
      size_t a = s->snap[(size_t)r * NV_TABLES + (size_t)k];
      size_t b = r + 1 < s->run ? s->snap[(size_t)(r + 1) * NV_TABLES + (size_t)k] : t[k]->nrows;
      for (size_t i = a; i < b; i++) t[k]->cols[c]->v.i64[i] = r + 1;
    }
  }
  pl_profile_meta_num(s->p, "runs", s->run);
  for (int r = 0; r < s->run; r++) {
    char key[48];
    const struct nvrun *u = &s->runs[r];
    if (u->pid[0]) {
      snprintf(key, sizeof key, "run%d.pid", r + 1);
      pl_profile_meta_str(s->p, key, u->pid, strlen(u->pid));
    }
    if (u->command[0]) {
      snprintf(key, sizeof key, "run%d.command", r + 1);
      pl_profile_meta_str(s->p, key, u->command, strlen(u->command));
    }
    if (u->device[0]) {
      snprintf(key, sizeof key, "run%d.device", r + 1);
      pl_profile_meta_str(s->p, key, u->device, strlen(u->device));
    }
  }
}

/* The run column first, as in the other formats with runs (tb-profiler). */
static pl_table *run_first(pl_table *t) {
  int c = pl_table_col(t, "run");
  if (c <= 0) return t;
  int *cols = pl_xmalloc(t->ncols * sizeof *cols);
  size_t n = 0;
  cols[n++] = c;
  for (size_t i = 0; i < t->ncols; i++)
    if ((int)i != c) cols[n++] = (int)i;
  pl_table *o = pl_table_select(t, cols, n);
  free(cols);
  if (!o) return t;
  pl_table_free(t);
  return o;
}

static void um_init(nvstate *s) {
  pl_table *t = s->um = pl_table_new("unified_memory");
  s->um_dev = pl_table_add_doc_col(t, "device", PL_INT,
                                   "device index (order of first appearance in the file) the block is for");
  s->um_devn = pl_table_add_doc_col(t, "device_name", PL_STR, "device name");
  s->um_name = pl_table_add_doc_col(t, "name", PL_STR, "Host To Device, Device To Host, Gpu page fault groups, ...");
  s->um_count = pl_table_add_doc_col(t, "count", PL_INT, "number of events");
  s->um_avg = pl_table_add_doc_col(t, "avg_size_bytes", PL_NUM, "mean size, bytes (KB = 1024 B)");
  s->um_min = pl_table_add_doc_col(t, "min_size_bytes", PL_NUM, "smallest size, bytes");
  s->um_max = pl_table_add_doc_col(t, "max_size_bytes", PL_NUM, "largest size, bytes");
  s->um_total = pl_table_add_doc_col(t, "total_size_bytes", PL_NUM, "total size, bytes");
  s->um_time = pl_table_add_doc_col(t, "total_time_ns", PL_NUM, "total time, ns");
}

static void met_init(nvstate *s) {
  pl_table *t = s->met = pl_table_new("metrics");
  s->mt_kid = pl_table_add_doc_col(t, "kernel_id", PL_INT, "0-based index of the Kernel: block");
  s->mt_kernel = pl_table_add_doc_col(t, "kernel", PL_STR, "kernel name");
  s->mt_dev = pl_table_add_doc_col(t, "device", PL_INT, "device index, in order of first appearance in the file");
  s->mt_devn = pl_table_add_doc_col(t, "device_name", PL_STR, "device name");
  s->mt_inv = pl_table_add_doc_col(t, "invocations", PL_INT, "kernel invocations measured");
  s->mt_metric = pl_table_add_doc_col(t, "metric", PL_STR, "metric or event name");
  s->mt_desc = pl_table_add_doc_col(t, "description", PL_STR, "metric description");
  s->mt_unit = pl_table_add_doc_col(t, "unit", PL_STR, "base unit of min/max/avg: pct, ns, byte, byte/s, Hz or empty");
  s->mt_min =
      pl_table_add_doc_col(t, "min", PL_NUM, "minimum over invocations, base units (missing when not a number)");
  s->mt_max = pl_table_add_doc_col(t, "max", PL_NUM, "maximum, base units");
  s->mt_avg = pl_table_add_doc_col(t, "avg", PL_NUM, "average, base units");
  s->mt_total = pl_table_add_doc_col(t, "total", PL_NUM, "total (events), base units");
  s->mt_value = pl_table_add_doc_col(t, "value", PL_NUM, "the standard value column: avg");
  s->mt_minr = pl_table_add_doc_col(t, "min_raw", PL_STR, "min as printed");
  s->mt_maxr = pl_table_add_doc_col(t, "max_raw", PL_STR, "max as printed");
  s->mt_avgr = pl_table_add_doc_col(t, "avg_raw", PL_STR, "avg as printed");
  s->mt_raw = pl_table_add_doc_col(t, "raw", PL_STR, "the standard raw column: avg as printed");
  s->mt_line = pl_table_add_doc_col(t, "line", PL_INT, "line number in the input");
}

/* ---- helpers ------------------------------------------------------------- */

static int is_prof_line(const char *s, size_t n) {
  if (n < 5 || s[0] != '=' || s[1] != '=') return 0;
  size_t i = 2;
  while (i < n && s[i] >= '0' && s[i] <= '9') i++;
  return i > 2 && i + 1 < n && s[i] == '=' && s[i + 1] == '=';
}

/* Text after "==N== ". */
static void prof_body(const char *s, size_t n, const char **b, size_t *bn) {
  size_t i = 2;
  while (i < n && s[i] != '=') i++;
  i += 2;
  *b = s + (i < n ? i : n);
  *bn = i < n ? n - i : 0;
  pl_trim(b, bn);
}

static int next_tok(const char *s, size_t n, size_t *i, size_t *st, size_t *len) {
  while (*i < n && (s[*i] == ' ' || s[*i] == '\t')) (*i)++;
  *st = *i;
  while (*i < n && s[*i] != ' ' && s[*i] != '\t') (*i)++;
  *len = *i - *st;
  return *len > 0;
}

typedef struct label {
  size_t a, b;
  char text[48];
} label;

/* Header labels separated by two or more spaces. */
static size_t split_labels(const char *s, size_t n, label *lab, size_t max) {
  size_t k = 0, i = 0;
  while (i < n && k < max) {
    while (i < n && s[i] == ' ') i++;
    if (i >= n) break;
    size_t a = i;
    while (i < n && !(s[i] == ' ' && (i + 1 >= n || s[i + 1] == ' '))) i++;
    lab[k].a = a;
    lab[k].b = i;
    snprintf(lab[k].text, sizeof lab[k].text, "%.*s", (int)(i - a < 47 ? i - a : 47), s + a);
    k++;
  }
  return k;
}

/* Cell k of a right-aligned layout (the last label "Name" is left-aligned). */
static void cell_of(const char *s, size_t n, const label *lab, size_t nl, size_t k, size_t *a, size_t *len) {
  size_t from = k == 0 ? 0 : lab[k - 1].b, to = lab[k].b;
  if (k == nl - 1) {
    to = n;
    if (strcmp(lab[k].text, "Name") == 0) from = lab[k].a;
  }
  if (from > n) from = n;
  if (to > n) to = n;
  if (to < from) to = from;
  from = pl_skip_spaces(s, from, to);
  while (to > from && (s[to - 1] == ' ' || s[to - 1] == '\r')) to--;
  *a = from;
  *len = to - from;
}

static int is_dash(const char *s, size_t n) { return n == 1 && s[0] == '-'; }

/* "(8 1 1)" -> three ints; 0 on success. */
static int parse_dim3(const char *s, size_t n, int64_t v[3]) {
  if (n < 2 || s[0] != '(' || s[n - 1] != ')') return -1;
  size_t i = 1, st, len;
  for (int d = 0; d < 3; d++) {
    if (!next_tok(s, n - 1, &i, &st, &len) || pl_parse_int64(s + st, len, &v[d]) != 0) return -1;
  }
  if (next_tok(s, n - 1, &i, &st, &len)) return -1;
  return 0;
}

/* Strips " [123]" from a kernel name; returns the id or PL_INT_NA. */
static int64_t strip_launch_id(const char *s, size_t *n) {
  size_t k = *n;
  if (k < 4 || s[k - 1] != ']') return PL_INT_NA;
  size_t j = k - 1;
  while (j > 0 && s[j - 1] >= '0' && s[j - 1] <= '9') j--;
  if (j == k - 1 || j < 2 || s[j - 1] != '[' || s[j - 2] != ' ') return PL_INT_NA;
  int64_t id;
  if (pl_parse_int64(s + j, k - 1 - j, &id) != 0) return PL_INT_NA;
  *n = j - 2;
  return id;
}

/* ---- summary ------------------------------------------------------------- */

typedef struct units6 {
  double f[6];
} units6; /* share, time, calls(unused), avg, min, max */

static int sum_row_text(nvstate *s, const char *line, size_t n, size_t lineno, const units6 *u, char *type,
                        size_t typesz, pl_err *err) {
  size_t i = 0;
  while (i < n && line[i] == ' ') i++;
  /* "GPU activities:" / "API calls:" label */
  const char *colon = memchr(line + i, ':', n - i);
  if (colon && (line[i] < '0' || line[i] > '9')) {
    size_t ln = (size_t)(colon - (line + i));
    snprintf(type, typesz, "%.*s", (int)(ln < typesz - 1 ? ln : typesz - 1), line + i);
    i = (size_t)(colon - line) + 1;
  }
  static const char *what[6] = { "the time share (e.g. 97.39%)",
                                 "the total time (e.g. 225.83ms)",
                                 "the number of calls",
                                 "the average time",
                                 "the minimum time",
                                 "the maximum time" };
  double v[6];
  for (int k = 0; k < 6; k++) {
    size_t st, len;
    if (!next_tok(line, n, &i, &st, &len)) return pl_err_expected(err, lineno, st + 1, what[k], NULL, 0);
    int kind;
    if (k == 2) {
      int64_t c;
      if (pl_parse_int64(line + st, len, &c) != 0)
        return pl_err_expected(err, lineno, st + 1, what[k], line + st, n - st);
      v[k] = (double)c;
    } else if (nv_value(line + st, len, u ? u->f[k] : 1, &v[k], &kind) != 0 || (!u && k > 0 && kind != 1)) {
      /* without a units row every time needs its own unit suffix */
      return pl_err_expected(err, lineno, st + 1, what[k], line + st, n - st);
    }
  }
  size_t st, len;
  while (i < n && line[i] == ' ') i++;
  st = i;
  len = n - i;
  while (len > 0 && (line[st + len - 1] == ' ' || line[st + len - 1] == '\r')) len--;
  if (len == 0) return pl_err_expected(err, lineno, n + 1, "a name after the maximum time", NULL, 0);
  sumtab *t = &s->sum;
  pl_row_put_str(t->t, t->type, type, strlen(type));
  pl_row_put_str(t->t, t->name, line + st, len);
  pl_row_put_num(t->t, t->share, v[0]);
  pl_row_put_num(t->t, t->total, v[1]);
  pl_row_put_int(t->t, t->calls, pl_int_of(v[2]));
  pl_row_put_num(t->t, t->mean, v[3]);
  pl_row_put_num(t->t, t->min, v[4]);
  pl_row_put_num(t->t, t->max, v[5]);
  pl_row_put_int(t->t, t->line, (int64_t)lineno);
  pl_row_end(t->t);
  return 0;
}

/* Splits the summary into kernel_summary, memcpy_summary, api_summary. */
static void split_summary(nvstate *s) {
  pl_table *t = s->sum.t;
  size_t *ik = pl_xmalloc((t->nrows + 1) * sizeof *ik), *im = pl_xmalloc((t->nrows + 1) * sizeof *im),
         *ia = pl_xmalloc((t->nrows + 1) * sizeof *ia);
  size_t nk = 0, nm = 0, na = 0;
  for (size_t i = 0; i < t->nrows; i++) {
    size_t len;
    const char *ty = pl_cell_str(t, s->sum.type, i, &len);
    const char *nm_ = pl_cell_str(t, s->sum.name, i, &len);
    if (!ty || !nm_) continue;
    if (strcmp(ty, "API calls") == 0) ia[na++] = i;
    else if (strcmp(ty, "GPU activities") == 0) {
      if (strncmp(nm_, "[CUDA ", 6) == 0) im[nm++] = i;
      else ik[nk++] = i;
    }
  }
  if (nk && pl_want_table(s->o, "kernel_summary")) {
    pl_table *k = pl_table_take(t, ik, nk);
    pl_table_set_name(k, "kernel_summary");
    pl_fill_short_names(k, pl_table_col(k, "name"));
    pl_profile_add_table(s->p, run_first(k));
  }
  if (nm && pl_want_table(s->o, "memcpy_summary")) {
    pl_table *m = pl_table_take(t, im, nm);
    pl_table_set_name(m, "memcpy_summary");
    pl_profile_add_table(s->p, run_first(m));
  }
  if (na && pl_want_table(s->o, "api_summary")) {
    pl_table *a = pl_table_take(t, ia, na);
    pl_table_set_name(a, "api_summary");
    pl_profile_add_table(s->p, run_first(a));
  }
  free(ik);
  free(im);
  free(ia);
}

/* ---- GPU trace rows (text and CSV share this) ---------------------------- */

enum {
  T_START,
  T_DUR,
  T_GRID,
  T_BLOCK,
  T_GX,
  T_GY,
  T_GZ,
  T_BX,
  T_BY,
  T_BZ,
  T_REGS,
  T_SS,
  T_DS,
  T_SIZE,
  T_THR,
  T_SRC,
  T_DST,
  T_DEV,
  T_CTX,
  T_STREAM,
  T_UM,
  T_VA,
  T_NAME,
  T_OTHER
};

static int trace_field(const char *label) {
  static const struct {
    const char *l;
    int f;
  } m[] = {
    { "Start", T_START },        { "Duration", T_DUR },   { "Grid Size", T_GRID }, { "Block Size", T_BLOCK },
    { "Grid X", T_GX },          { "Grid Y", T_GY },      { "Grid Z", T_GZ },      { "Block X", T_BX },
    { "Block Y", T_BY },         { "Block Z", T_BZ },     { "Regs*", T_REGS },     { "Registers Per Thread", T_REGS },
    { "SSMem*", T_SS },          { "Static SMem", T_SS }, { "DSMem*", T_DS },      { "Dynamic SMem", T_DS },
    { "Size", T_SIZE },          { "Throughput", T_THR }, { "SrcMemType", T_SRC }, { "DstMemType", T_DST },
    { "Device", T_DEV },         { "Context", T_CTX },    { "Stream", T_STREAM },  { "Unified Memory", T_UM },
    { "Virtual Address", T_VA }, { "Name", T_NAME },
  };
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
    if (strcmp(m[i].l, label) == 0) return m[i].f;
  return T_OTHER;
}

/* A time in ns (a double from nv_value) as the int64 of the timelines. */
static int64_t ns_int(double v) { return isnan(v) ? PL_INT_NA : pl_int_of(round(v)); }

typedef struct tcell {
  const char *s;
  size_t n;
  size_t col;
} tcell;

/* One trace row from its cells by field; factors[] default units (CSV units row). */
static int trace_row(nvstate *st, const tcell *c, const int *field, size_t nc, const double *factors, size_t lineno,
                     const char *const *labels, pl_err *err) {
  const tcell *cell[T_OTHER] = { 0 };
  double fac[T_OTHER];
  for (int k = 0; k < T_OTHER; k++) fac[k] = 0;
  for (size_t i = 0; i < nc; i++)
    if (field[i] != T_OTHER) {
      cell[field[i]] = &c[i];
      fac[field[i]] = factors ? factors[i] : 0;
    }
  if (!cell[T_NAME]) return pl_err_set(err, lineno, 1, "expected a Name column in the GPU trace");
  const char *nm = cell[T_NAME]->s;
  size_t nn = cell[T_NAME]->n;
  tracetab *x = &st->tr;
  int kind = (nn >= 16 && memcmp(nm, "[Unified Memory", 15) == 0) ? 2
             : (nn >= 6 && memcmp(nm, "[CUDA ", 6) == 0)          ? 1
                                                                  : 0;
  pl_table *t = kind == 0 ? x->k : kind == 1 ? x->m : x->u;
  double v[T_OTHER];
  static const int numeric[] = { T_START, T_DUR, T_SS, T_DS, T_SIZE, T_THR };
  for (size_t q = 0; q < sizeof numeric / sizeof numeric[0]; q++) {
    int f = numeric[q];
    v[f] = NAN;
    const tcell *ce = cell[f];
    if (!ce || ce->n == 0 || is_dash(ce->s, ce->n)) continue;
    if (nv_value(ce->s, ce->n, fac[f] ? fac[f] : 1, &v[f], NULL) != 0) {
      char what[96];
      snprintf(what, sizeof what, "a number with a unit in column '%s'", labels[ce - c]);
      return pl_err_expected(err, lineno, ce->col, what, ce->s, ce->n);
    }
  }
  static const int ints[] = { T_GX, T_GY, T_GZ, T_BX, T_BY, T_BZ, T_REGS, T_CTX, T_STREAM };
  int64_t iv[T_OTHER];
  for (size_t q = 0; q < sizeof ints / sizeof ints[0]; q++) {
    int f = ints[q];
    iv[f] = PL_INT_NA;
    const tcell *ce = cell[f];
    if (!ce || ce->n == 0 || is_dash(ce->s, ce->n)) continue;
    if (pl_parse_int64(ce->s, ce->n, &iv[f]) != 0) {
      char what[96];
      snprintf(what, sizeof what, "an integer in column '%s'", labels[ce - c]);
      return pl_err_expected(err, lineno, ce->col, what, ce->s, ce->n);
    }
  }
  for (int g = 0; g < 2; g++) {
    const tcell *ce = cell[g == 0 ? T_GRID : T_BLOCK];
    if (!ce || ce->n == 0 || is_dash(ce->s, ce->n)) continue;
    int64_t d[3];
    if (parse_dim3(ce->s, ce->n, d) != 0) {
      char what[96];
      snprintf(what, sizeof what, "'(X Y Z)' in column '%s'", labels[ce - c]);
      return pl_err_expected(err, lineno, ce->col, what, ce->s, ce->n);
    }
    for (int k = 0; k < 3; k++) iv[(g == 0 ? T_GX : T_BX) + k] = d[k];
  }
#define STRCELL(f, col)                                                                                                \
  do {                                                                                                                 \
    const tcell *ce_ = cell[f];                                                                                        \
    if (ce_ && ce_->n && !is_dash(ce_->s, ce_->n)) pl_row_put_str(t, col, ce_->s, ce_->n);                             \
  } while (0)
#define DEVCELL(col, ncol)                                                                                             \
  do {                                                                                                                 \
    const tcell *ce_ = cell[T_DEV];                                                                                    \
    if (ce_ && ce_->n && !is_dash(ce_->s, ce_->n)) put_device(st, t, col, ncol, ce_->s, ce_->n);                       \
  } while (0)
  if (kind == 0) {
    int64_t id = strip_launch_id(nm, &nn);
    pl_row_put_str(t, x->k_name, nm, nn);
    pl_row_put_int(t, x->k_start, ns_int(v[T_START]));
    pl_row_put_int(t, x->k_dur, ns_int(v[T_DUR]));
    for (int k = 0; k < 3; k++) {
      pl_row_put_int(t, x->k_g[k], iv[T_GX + k]);
      pl_row_put_int(t, x->k_b[k], iv[T_BX + k]);
    }
    pl_row_put_int(t, x->k_regs, iv[T_REGS]);
    pl_row_put_num(t, x->k_ss, v[T_SS]);
    pl_row_put_num(t, x->k_ds, v[T_DS]);
    DEVCELL(x->k_dev, x->k_devn);
    pl_row_put_int(t, x->k_ctx, iv[T_CTX]);
    pl_row_put_int(t, x->k_str, iv[T_STREAM]);
    pl_row_put_int(t, x->k_id, id);
    pl_row_put_int(t, x->k_line, (int64_t)lineno);
  } else if (kind == 1) {
    pl_row_put_str(t, x->m_name, nm, nn);
    pl_row_put_int(t, x->m_start, ns_int(v[T_START]));
    pl_row_put_int(t, x->m_dur, ns_int(v[T_DUR]));
    pl_row_put_num(t, x->m_size, v[T_SIZE]);
    pl_row_put_num(t, x->m_thr, v[T_THR]);
    STRCELL(T_SRC, x->m_src);
    STRCELL(T_DST, x->m_dst);
    DEVCELL(x->m_dev, x->m_devn);
    pl_row_put_int(t, x->m_ctx, iv[T_CTX]);
    pl_row_put_int(t, x->m_str, iv[T_STREAM]);
    pl_row_put_int(t, x->m_line, (int64_t)lineno);
  } else {
    pl_row_put_str(t, x->u_name, nm, nn);
    pl_row_put_int(t, x->u_start, ns_int(v[T_START]));
    pl_row_put_int(t, x->u_dur, ns_int(v[T_DUR]));
    DEVCELL(x->u_dev, x->u_devn);
    STRCELL(T_UM, x->u_val);
    STRCELL(T_VA, x->u_addr);
    pl_row_put_int(t, x->u_line, (int64_t)lineno);
  }
#undef STRCELL
#undef DEVCELL
  pl_row_end(t);
  return 0;
}

/* ---- metrics -------------------------------------------------------------- */

static void met_value(nvstate *s, const char *v, size_t n, int numcol, int rawcol, char *unit, size_t unitsz) {
  double d;
  int kind = 0;
  pl_row_put_str(s->met, rawcol, v, n);
  if (nv_value(v, n, 1, &d, &kind) == 0) {
    pl_row_put_num(s->met, numcol, d);
    if (unit[0] == '\0') {
      const char *u = kind == 1   ? "ns"
                      : kind == 2 ? "byte"
                      : kind == 3 ? "byte/s"
                      : kind == 4 ? "pct"
                      : kind == 5 ? "Hz"
                                  : "";
      snprintf(unit, unitsz, "%s", u);
    }
  }
}

static void met_row(nvstate *s, const char *kernel, size_t kn, const char *dev, size_t dn, int64_t inv,
                    const char *metric, size_t mn, const char *desc, size_t dsn, const tcell *mn_, const tcell *mx,
                    const tcell *av, const tcell *tot, size_t lineno) {
  pl_table *t = s->met;
  char unit[16] = "";
  pl_row_put_int(t, s->mt_kid, s->kernel_id);
  if (kn) pl_row_put_str(t, s->mt_kernel, kernel, kn);
  if (dn) put_device(s, t, s->mt_dev, s->mt_devn, dev, dn);
  pl_row_put_int(t, s->mt_inv, inv);
  pl_row_put_str(t, s->mt_metric, metric, mn);
  if (desc) pl_row_put_str(t, s->mt_desc, desc, dsn);
  if (mn_) met_value(s, mn_->s, mn_->n, s->mt_min, s->mt_minr, unit, sizeof unit);
  if (mx) met_value(s, mx->s, mx->n, s->mt_max, s->mt_maxr, unit, sizeof unit);
  if (av) {
    met_value(s, av->s, av->n, s->mt_avg, s->mt_avgr, unit, sizeof unit);
    double d;
    if (nv_value(av->s, av->n, 1, &d, NULL) == 0) pl_row_put_num(t, s->mt_value, d);
    pl_row_put_str(t, s->mt_raw, av->s, av->n);
  }
  if (tot) {
    double d;
    if (nv_value(tot->s, tot->n, 1, &d, NULL) == 0) pl_row_put_num(t, s->mt_total, d);
  }
  pl_row_put_str(t, s->mt_unit, unit, strlen(unit));
  pl_row_put_int(t, s->mt_line, (int64_t)lineno);
  pl_row_end(t);
}

/* ---- CSV blocks ------------------------------------------------------------ */

enum { CSV_TRACE, CSV_SUMMARY, CSV_METRICS };

typedef struct csvblk {
  nvstate *s;
  int kind;
  size_t n;
  int field[64];
  char labels[64][48];
  const char *lp[64];
  double factor[64];
  int units_seen;
  size_t header_line;
  size_t rejoined, first_rejoined; /* summary rows whose unquoted name held commas */
  size_t rec, idx;                 /* records read so far; the index of the one being read (0: header) */
  tcell cells[64];
} csvblk;

static int csv_label_kind(const char *lab) {
  /* summary/metrics columns */
  static const char *const names[] = { "Type",
                                       "Time(%)",
                                       "Time",
                                       "Calls",
                                       "Avg",
                                       "Min",
                                       "Max",
                                       "Name",
                                       "Device",
                                       "Kernel",
                                       "Invocations",
                                       "Metric Name",
                                       "Metric Description",
                                       "Event Name",
                                       "Total",
                                       NULL };
  for (int i = 0; names[i]; i++)
    if (strcmp(lab, names[i]) == 0) return i;
  return -1;
}

static int nv_csv_row1(void *ud, const pl_csv_row *r, pl_err *err);

/* A bad row after the header is skipped and listed under --lenient. */
static int nv_csv_row(void *ud, const pl_csv_row *r, pl_err *err) {
  csvblk *b = ud;
  b->idx = b->rec++; /* counted here: a block may be read in several calls (nv_csv_serial) */
  if (nv_csv_row1(ud, r, err) == 0) return 0;
  return b->idx > 0 && pl_lenient_skip(b->s->o, b->s->p, err) ? 0 : -1;
}

static int nv_csv_row1(void *ud, const pl_csv_row *r, pl_err *err) {
  csvblk *b = ud;
  nvstate *s = b->s;
  if (b->idx == 0) {
    if (r->n > 64) return pl_err_set(err, r->line, 1, "expected at most 64 columns, found %zu", r->n);
    b->n = r->n;
    b->header_line = r->line;
    for (size_t i = 0; i < r->n; i++) {
      snprintf(b->labels[i], sizeof b->labels[i], "%s", r->f[i]);
      b->lp[i] = b->labels[i];
      b->field[i] = b->kind == CSV_TRACE ? trace_field(r->f[i]) : csv_label_kind(r->f[i]);
      b->factor[i] = 0;
    }
    return 0;
  }
  /* A summary written without quotes (a hand-made or converted nvprof --csv
  ** summary): a kernel name such as "k(float*, int)" splits at its commas.
  ** Name is the last column, so the rest of the record is the name. */
  size_t nfields = r->n;
  const char *joined = NULL;
  size_t joinedn = 0;
  if (r->n > b->n && b->kind == CSV_SUMMARY && b->n > 1 && b->field[b->n - 1] == 7 && b->idx > 0) {
    size_t col = pl_csv_field_col(r, b->n - 1);
    if (col >= 1 && col - 1 < r->srclen && r->src[col - 1] != '"') {
      joined = r->src + col - 1;
      joinedn = r->srclen - (col - 1);
      while (joinedn && (joined[joinedn - 1] == '\r' || joined[joinedn - 1] == ' ')) joinedn--;
      nfields = b->n;
      if (b->rejoined++ == 0) b->first_rejoined = r->line;
    }
  }
  if (nfields != b->n) {
    char what[96];
    snprintf(what, sizeof what, "%zu fields as in the header (line %zu)", b->n, b->header_line);
    return pl_err_expected(err, r->line, pl_csv_field_col(r, r->n < b->n ? r->n : b->n), what,
                           r->n < b->n ? NULL : r->f[b->n], r->n < b->n ? 0 : r->len[b->n]);
  }
  /* the units row: every field empty or a unit */
  if (b->idx == 1 && b->kind != CSV_METRICS) {
    int units = 1, any = 0;
    for (size_t i = 0; i < r->n; i++) {
      if (r->len[i] == 0) continue;
      if (!is_unit_token(r->f[i], r->len[i])) {
        units = 0;
        break;
      }
      any = 1;
    }
    if (units && any) {
      for (size_t i = 0; i < r->n; i++) b->factor[i] = r->len[i] ? nv_unit(r->f[i], r->len[i], NULL) : 0;
      b->units_seen = 1;
      return 0;
    }
  }
  for (size_t i = 0; i < nfields; i++) {
    b->cells[i].s = r->f[i];
    b->cells[i].n = r->len[i];
    b->cells[i].col = pl_csv_field_col(r, i);
  }
  if (joined) {
    b->cells[nfields - 1].s = joined;
    b->cells[nfields - 1].n = joinedn;
  }
  if (b->kind == CSV_TRACE) return trace_row(s, b->cells, b->field, b->n, b->factor, r->line, b->lp, err);
  if (b->kind == CSV_SUMMARY) {
    /* Type,Time(%),Time,Calls,Avg,Min,Max,Name */
    const tcell *c[8] = { 0 };
    double f[8] = { 0 };
    for (size_t i = 0; i < b->n; i++)
      if (b->field[i] >= 0 && b->field[i] < 8) {
        c[b->field[i]] = &b->cells[i];
        f[b->field[i]] = b->factor[i];
      }
    if (!c[7] || !c[2]) return pl_err_set(err, r->line, 1, "expected Time and Name columns in the nvprof CSV summary");
    double v[7] = { NAN, NAN, NAN, NAN, NAN, NAN, NAN };
    for (int k = 1; k < 7; k++) {
      if (!c[k] || c[k]->n == 0) continue;
      if (nv_value(c[k]->s, c[k]->n, f[k] ? f[k] : 1, &v[k], NULL) != 0) {
        char what[96];
        snprintf(what, sizeof what, "a number in column '%s'", b->labels[c[k] - b->cells]);
        return pl_err_expected(err, r->line, c[k]->col, what, c[k]->s, c[k]->n);
      }
    }
    sumtab *t = &s->sum;
    const char *ty = c[0] ? c[0]->s : s->deftype;
    size_t tn = c[0] ? c[0]->n : strlen(s->deftype);
    pl_row_put_str(t->t, t->type, ty, tn);
    pl_row_put_str(t->t, t->name, c[7]->s, c[7]->n);
    pl_row_put_num(t->t, t->share, v[1]);
    pl_row_put_num(t->t, t->total, v[2]);
    pl_row_put_int(t->t, t->calls, pl_int_of(v[3]));
    pl_row_put_num(t->t, t->mean, v[4]);
    pl_row_put_num(t->t, t->min, v[5]);
    pl_row_put_num(t->t, t->max, v[6]);
    pl_row_put_int(t->t, t->line, (int64_t)r->line);
    pl_row_end(t->t);
    return 0;
  }
  /* metrics: Device,Kernel,Invocations,Metric Name,Metric Description,Min,Max,Avg */
  const tcell *c[15] = { 0 };
  for (size_t i = 0; i < b->n; i++)
    if (b->field[i] >= 0) c[b->field[i]] = &b->cells[i];
  const tcell *metric = c[11] ? c[11] : c[13];
  if (!metric || !c[10])
    return pl_err_set(err, r->line, 1, "expected Invocations and Metric Name columns in the nvprof CSV metrics");
  int64_t inv;
  if (pl_parse_int64(c[10]->s, c[10]->n, &inv) != 0)
    return pl_err_expected(err, r->line, c[10]->col, "an integer in column 'Invocations'", c[10]->s, c[10]->n);
  const char *kn = c[9] ? c[9]->s : "";
  size_t knn = c[9] ? c[9]->n : 0;
  if (knn != s->kernel_n || memcmp(kn, s->kernel, knn) != 0) {
    s->kernel_id++;
    s->kernel_n = knn < sizeof s->kernel ? knn : sizeof s->kernel - 1;
    memcpy(s->kernel, kn, s->kernel_n);
  }
  met_row(s, kn, knn, c[8] ? c[8]->s : "", c[8] ? c[8]->n : 0, inv, metric->s, metric->n, c[12] ? c[12]->s : NULL,
          c[12] ? c[12]->n : 0, c[5], c[6], c[4], c[14], r->line);
  return 0;
}

/* ---- detection ---------------------------------------------------------- */

static int nv_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  int n = 0;
  while (pl_lines_next(&c, &l) && n++ < 200) {
    if (is_prof_line(l.s, l.n)) {
      if (pl_find(l.s, l.n, "NVPROF is profiling") || pl_find(l.s, l.n, "Profiling result:") ||
          pl_find(l.s, l.n, "Metric result:") || pl_find(l.s, l.n, "Event result:") ||
          pl_find(l.s, l.n, "Profiling application:"))
        return 95;
    }
    if (pl_starts(l.s, l.n, "\"Start\",\"Duration\",\"Grid X\"")) return 90;
    if (pl_starts(l.s, l.n, "\"Type\",\"Time(%)\",\"Time\",\"Calls\"")) return 90;
    if (pl_starts(l.s, l.n, "Type,Time(%),Time,Calls,Avg,Min,Max,Name") ||
        pl_starts(l.s, l.n, "Time(%),Time,Calls,Avg,Min,Max,Name"))
      return 85;
    if (pl_starts(l.s, l.n, "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\"")) return 90;
    if (pl_starts(l.s, l.n, "Invocations") && pl_find(l.s, l.n, "Metric Name") &&
        pl_find(l.s, l.n, "Metric Description"))
      return 85;
    if (pl_find(l.s, l.n, " GPU activities: ")) return 85;
  }
  return 0;
}

/* ---- parse ---------------------------------------------------------------- */

enum { S_NONE, S_SUMMARY, S_TRACE, S_UM, S_METRICS };

/* What a line handler tells the loop: the line is read (NV_NEXT), it holds
** a bad row and err is set (NV_ROW: under --lenient it is skipped and
** listed, otherwise the parse fails), or the parse fails (NV_FAIL). */
enum { NV_NEXT, NV_ROW, NV_FAIL };

/* The line loop's state: the block being read and its header. */
typedef struct nvparse {
  nvstate *s;
  pl_err *err;
  pl_lines c;
  int mode;
  units6 units;
  int have_units;
  char type[64];
  label lab[32];
  size_t nlab;
  int field[32];
  const char *labels[32];
  int body; /* the GPU trace header was just read: its rows follow */
} nvparse;

static int csv_trace_par(nvparse *x, csvblk *blk, const char *bs, const char *be, size_t first);

/* "==PID== ..." lines: a new process, a result page, a block heading. */
static void prof_line(nvparse *x, const char *t, size_t tn) {
  nvstate *s = x->s;
  const char *b;
  size_t bn;
  prof_body(t, tn, &b, &bn);
  if (pl_starts(b, bn, "NVPROF is profiling process")) {
    if (s->run_header || run_rows(s)) new_run(s);
    s->run_header = 1;
    x->mode = S_NONE;
    struct nvrun *u = &s->runs[s->run - 1];
    size_t d = 2; /* "==PID==": is_prof_line checked the digits */
    while (d < tn && d < 22 && t[d] >= '0' && t[d] <= '9') d++;
    snprintf(u->pid, sizeof u->pid, "%.*s", (int)(d - 2), t + 2);
    const char *cm = pl_find(b, bn, "command: ");
    if (cm) {
      size_t cn = (size_t)(b + bn - cm - 9);
      if (!pl_profile_meta_get(s->p, "command")) pl_profile_meta_str(s->p, "command", cm + 9, cn);
      snprintf(u->command, sizeof u->command, "%.*s", (int)(cn < 511 ? cn : 511), cm + 9);
    }
    x->type[0] = '\0';
  } else if (pl_starts(b, bn, "API calls:")) {
    snprintf(x->type, sizeof x->type, "API calls");
  } else if (pl_starts(b, bn, "Unified Memory profiling result")) {
    x->mode = S_UM;
  } else if (pl_starts(b, bn, "Metric result") || pl_starts(b, bn, "Event result")) {
    x->mode = S_METRICS;
    x->nlab = 0;
  } else if (pl_starts(b, bn, "Profiling result")) {
    x->mode = S_NONE;
    if (run_rows(s)) new_run(s); /* a second result page: another run */
    x->type[0] = '\0';
  } else if (bn) pl_profile_diag(s->p, x->c.lineno, "skipped: %.*s", (int)(bn < 200 ? bn : 200), b);
}

/* The kind of CSV block whose header is t[0..tn), or -1. */
static int csv_kind(const char *t, size_t tn) {
  if (t[0] == '"') { /* every CSV header starts with a quote: trace rows skip these tests */
    if (pl_starts(t, tn, "\"Start\",\"Duration\"")) return CSV_TRACE;
    if (pl_starts(t, tn, "\"Type\",\"Time(%)\"") || pl_starts(t, tn, "\"Time(%)\",\"Time\"")) return CSV_SUMMARY;
    if (pl_starts(t, tn, "\"Device\",\"Kernel\",\"Invocations\"")) return CSV_METRICS;
  } else if (pl_starts(t, tn, "Type,Time(%),Time,Calls,") || pl_starts(t, tn, "Time(%),Time,Calls,"))
    return CSV_SUMMARY; /* unquoted */
  return -1;
}

/* A CSV block of kind ck, from its header line l to the next blank or
** ==PID== line, read by the CSV reader. */
static int csv_block(nvparse *x, const pl_line *l, int ck) {
  nvstate *s = x->s;
  const char *bs = l->s, *be = l->s + l->n;
  size_t first = x->c.lineno;
  pl_line m;
  while (pl_lines_peek(&x->c, &m) && !pl_is_blank(m.s, m.n) && !is_prof_line(m.s, m.n)) {
    pl_lines_next(&x->c, &m);
    be = m.s + m.n;
  }
  csvblk *blk = pl_xcalloc(1, sizeof *blk);
  blk->s = s;
  blk->kind = ck;
  pl_csv_opts co = { ',', first, s->o ? s->o->interrupt : NULL, NULL, NULL, 0, 0 };
  int r = ck == CSV_TRACE ? csv_trace_par(x, blk, bs, be, first)
                          : pl_csv_read(bs, (size_t)(be - bs), &co, nv_csv_row, blk, x->err);
  if (r == 0 && blk->rejoined)
    pl_profile_diag(s->p, blk->first_rejoined,
                    "%zu summary row%s with unquoted commas in the name, first on this line: "
                    "the fields after Max re-joined as the name",
                    blk->rejoined, blk->rejoined == 1 ? "" : "s");
  free(blk);
  if (r != 0) return NV_FAIL;
  s->found = 1;
  x->mode = S_NONE;
  return NV_NEXT;
}

/* The summary header; a units row may follow it. */
static void summary_header(nvparse *x) {
  x->mode = S_SUMMARY;
  x->have_units = 0;
  x->s->found = 1;
  if (!x->type[0]) snprintf(x->type, sizeof x->type, "GPU activities");
  pl_line m;
  if (!pl_lines_peek(&x->c, &m)) return;
  size_t i = 0, st, len, k = 0;
  char u[6][8];
  while (next_tok(m.s, m.n, &i, &st, &len)) {
    if (k >= 5 || !is_unit_token(m.s + st, len)) return;
    snprintf(u[k], sizeof u[k], "%.*s", (int)(len < 7 ? len : 7), m.s + st);
    k++;
  }
  if (k != 5) return;
  pl_lines_next(&x->c, &m);
  static const int map[5] = { 0, 1, 3, 4, 5 };
  for (int q = 0; q < 6; q++) x->units.f[q] = 1;
  for (int q = 0; q < 5; q++) x->units.f[map[q]] = nv_unit(u[q], strlen(u[q]), NULL);
  x->have_units = 1;
}

/* The GPU trace header: the columns of the rows below. */
static void trace_header(nvparse *x, const pl_line *l) {
  x->nlab = split_labels(l->s, l->n, x->lab, 32);
  for (size_t k = 0; k < x->nlab; k++) {
    x->field[k] = trace_field(x->lab[k].text);
    x->labels[k] = x->lab[k].text;
  }
  x->mode = S_TRACE;
  x->s->found = 1;
  x->body = 1;
}

/* A GPU trace row, cut at the header's columns. */
static int trace_line(nvparse *x, const pl_line *l) {
  tcell cells[32];
  for (size_t k = 0; k < x->nlab; k++) {
    size_t a, len;
    cell_of(l->s, l->n, x->lab, x->nlab, k, &a, &len);
    cells[k].s = l->s + a;
    cells[k].n = len;
    cells[k].col = a + 1;
  }
  if (cells[x->nlab - 1].n == 0) {
    pl_err_expected(x->err, x->c.lineno, l->n + 1, "a name at the end of the GPU trace row", NULL, 0);
    return NV_ROW;
  }
  if (trace_row(x->s, cells, x->field, x->nlab, NULL, x->c.lineno, x->labels, x->err) != 0) return NV_ROW;
  return NV_NEXT;
}

/* 'Total CPU Page faults: N' and the like, under the Unified Memory
** result: a metadata value; 0 when t[0..tn) is not one. */
static int um_total(nvparse *x, const char *t, size_t tn) {
  const char *colon = memchr(t, ':', tn);
  double v;
  if (!colon) return 0;
  const char *vs = colon + 1;
  size_t vn = (size_t)(t + tn - vs);
  pl_trim(&vs, &vn);
  if (pl_parse_double(vs, vn, &v) != 0) return 0;
  char key[64];
  const char *k0 = t + 10;
  size_t kn = (size_t)(colon - k0);
  size_t q = 0;
  snprintf(key, sizeof key, "um_cpu_");
  q = strlen(key);
  for (size_t i = 0; i < kn && q + 1 < sizeof key; i++) key[q++] = k0[i] == ' ' ? '_' : (char)(k0[i] | 0x20);
  key[q] = '\0';
  pl_profile_meta_num(x->s->p, key, v);
  return 1;
}

/* A line of the Unified Memory result:
** Count AvgSize MinSize MaxSize TotalSize TotalTime Name */
static int um_line(nvparse *x, const pl_line *l, const char *t, size_t tn) {
  nvstate *s = x->s;
  if (pl_starts(t, tn, "Count") && pl_find(t, tn, "Total Time")) {
    s->found = 1;
    return NV_NEXT;
  }
  if (pl_starts(t, tn, "Total CPU ") && um_total(x, t, tn)) return NV_NEXT;
  size_t i = 0, st, len;
  double v[6];
  static const char *what[6] = { "a count",          "the average size", "the minimum size",
                                 "the maximum size", "the total size",   "the total time" };
  for (int k = 0; k < 6; k++) {
    if (!next_tok(l->s, l->n, &i, &st, &len)) {
      pl_err_expected(x->err, x->c.lineno, st + 1, what[k], NULL, 0);
      return NV_ROW;
    }
    if (is_dash(l->s + st, len)) {
      v[k] = NAN;
      continue;
    }
    if (nv_value(l->s + st, len, 1, &v[k], NULL) != 0) {
      pl_err_expected(x->err, x->c.lineno, st + 1, what[k], l->s + st, l->n - st);
      return NV_ROW;
    }
  }
  while (i < l->n && l->s[i] == ' ') i++;
  const char *nm = l->s + i;
  size_t nn = l->n - i;
  pl_trim(&nm, &nn);
  if (nn == 0) {
    pl_err_expected(x->err, x->c.lineno, l->n + 1, "a name after the total time", NULL, 0);
    return NV_ROW;
  }
  pl_table *u = s->um;
  if (s->device[0]) put_device(s, u, s->um_dev, s->um_devn, s->device, strlen(s->device));
  pl_row_put_str(u, s->um_name, nm, nn);
  pl_row_put_int(u, s->um_count, pl_int_of(v[0]));
  pl_row_put_num(u, s->um_avg, v[1]);
  pl_row_put_num(u, s->um_min, v[2]);
  pl_row_put_num(u, s->um_max, v[3]);
  pl_row_put_num(u, s->um_total, v[4]);
  pl_row_put_num(u, s->um_time, v[5]);
  pl_row_end(u);
  return NV_NEXT;
}

/* A metrics (or events) row, cut at the header's columns. */
static int metric_line(nvparse *x, const pl_line *l, const char *t, size_t tn) {
  nvstate *s = x->s;
  tcell cells[32];
  const tcell *inv = NULL, *met = NULL, *desc = NULL, *mn = NULL, *mx = NULL, *av = NULL, *tot = NULL;
  for (size_t k = 0; k < x->nlab; k++) {
    size_t a, len;
    cell_of(l->s, l->n, x->lab, x->nlab, k, &a, &len);
    cells[k].s = l->s + a;
    cells[k].n = len;
    cells[k].col = a + 1;
    const char *lt = x->lab[k].text;
    if (strcmp(lt, "Invocations") == 0) inv = &cells[k];
    else if (strcmp(lt, "Metric Name") == 0 || strcmp(lt, "Event Name") == 0) met = &cells[k];
    else if (strcmp(lt, "Metric Description") == 0) desc = &cells[k];
    else if (strcmp(lt, "Min") == 0) mn = &cells[k];
    else if (strcmp(lt, "Max") == 0) mx = &cells[k];
    else if (strcmp(lt, "Avg") == 0) av = &cells[k];
    else if (strcmp(lt, "Total") == 0) tot = &cells[k];
  }
  int64_t iv;
  if (!(t[0] >= '0' && t[0] <= '9')) {
    /* not a metrics row (a shell prompt, program output): the block
    ** ends here, as ncu-text ends a section at program output */
    pl_profile_diag(s->p, x->c.lineno, "the metrics block ends before this line (not a metrics row): %.*s",
                    (int)(tn < 200 ? tn : 200), t);
    x->mode = S_NONE;
    x->nlab = 0;
    return NV_NEXT;
  }
  if (!inv || pl_parse_int64(inv->s, inv->n, &iv) != 0) {
    size_t col = inv ? inv->col : 1;
    pl_err_expected(x->err, x->c.lineno, col, "the number of invocations", inv ? inv->s : l->s, inv ? inv->n : l->n);
    return NV_ROW;
  }
  if (!met || met->n == 0) {
    pl_err_expected(x->err, x->c.lineno, inv->col + inv->n, "a metric name", NULL, 0);
    return NV_ROW;
  }
  if (av && av->n == 0) {
    pl_err_expected(x->err, x->c.lineno, l->n + 1, "the Avg value", NULL, 0);
    return NV_ROW;
  }
  met_row(s, s->kernel, s->kernel_n, s->device, strlen(s->device), iv, met->s, met->n, desc ? desc->s : NULL,
          desc ? desc->n : 0, mn, mx, av, tot, x->c.lineno);
  return NV_NEXT;
}

/* A line of the metrics block: its header, a 'Kernel:' line or a row. */
static int metrics_block(nvparse *x, const pl_line *l, const char *t, size_t tn) {
  nvstate *s = x->s;
  if (pl_starts(t, tn, "Invocations")) {
    x->nlab = split_labels(l->s, l->n, x->lab, 32);
    x->mode = S_METRICS;
    s->found = 1;
    return NV_NEXT;
  }
  if (pl_starts(t, tn, "Kernel:")) {
    const char *kn = t + 7;
    size_t knn = tn - 7;
    pl_trim(&kn, &knn);
    s->kernel_n = knn < sizeof s->kernel ? knn : sizeof s->kernel - 1;
    memcpy(s->kernel, kn, s->kernel_n);
    s->kernel_id++;
    return NV_NEXT;
  }
  if (x->nlab == 0) {
    pl_profile_diag(s->p, x->c.lineno, "skipped a line before the metrics header");
    return NV_NEXT;
  }
  return metric_line(x, l, t, tn);
}

/* 'Device "NAME"' (not the opening quote alone). */
static void device_line(nvstate *s, const char *t, size_t tn) {
  snprintf(s->device, sizeof s->device, "%.*s", (int)(tn - 9 < 255 ? tn - 9 : 255), t + 8);
  if (!pl_profile_meta_get(s->p, "device")) pl_profile_meta_str(s->p, "device", t + 8, tn - 9);
  if (!s->runs[s->run - 1].device[0]) snprintf(s->runs[s->run - 1].device, sizeof s->runs[0].device, "%s", s->device);
}

/* ---- the GPU trace on several threads -------------------------------------
** A GPU trace (--print-gpu-trace) runs to millions of rows: its text rows
** (from the header to the first line that is not a row) and its CSV rows
** (a block up to a blank or ==PID== line, past the header and the units
** row) are read through pl_par_body_read (par.h): pieces cut at line starts
** (in CSV, where the count of quotes says the line starts a record:
** pl_csv_boundary), each read by a worker into trace tables of its own,
** appended in file order (nv_merge_trace: texts re-interned in the order
** the piece met them, device indexes and line numbers moved on).  A piece
** with a bad row, or one that began inside a record, the main thread reads
** itself, so that errors and --lenient are the one-thread read's. */
#define NV_CHUNK_DEFAULT (4u << 20)

static int is_summary_header(const char *t, size_t tn) {
  return pl_find(t, tn, "Time(%)") && pl_find(t, tn, "Calls") && pl_find(t, tn, "Name") && pl_find(t, tn, "Avg");
}

static int is_trace_header(const char *t, size_t tn) {
  return pl_starts(t, tn, "Start") && pl_find(t, tn, "Duration") && pl_find(t, tn, "Name");
}

/* Is trimmed line t[0..tn) a row of the text GPU trace being read (what
** nv_line hands to trace_line), not the line that ends it? */
static int trace_body_line(const char *t, size_t tn) {
  return tn > 0 && !is_prof_line(t, tn) && csv_kind(t, tn) < 0 && !is_summary_header(t, tn) && !is_trace_header(t, tn);
}

/* A worker's reader: trace tables and devices of its own. */
static nvstate *nv_worker(void) {
  nvstate *w = pl_xcalloc(1, sizeof *w);
  trace_init(&w->tr);
  return w;
}

static void nv_worker_free(void *piece) {
  nvstate *w = piece;
  pl_table_free(w->tr.k);
  pl_table_free(w->tr.m);
  pl_table_free(w->tr.u);
  free_devices(w);
  free(w);
}

/* Appends the trace rows of w to s's tables, line numbers + line_off. */
static void nv_merge_trace(nvstate *s, const nvstate *w, size_t line_off) {
  int64_t *dmap = pl_xmalloc((w->ndevs ? w->ndevs : 1) * sizeof *dmap);
  for (size_t j = 0; j < w->ndevs; j++) { /* w's devices, in its order of first appearance */
    size_t i = 0, n = strlen(w->devs[j]);
    while (i < s->ndevs && strcmp(s->devs[i], w->devs[j]) != 0) i++;
    if (i == s->ndevs) {
      s->devs = pl_xrealloc(s->devs, (s->ndevs + 1) * sizeof *s->devs);
      s->devs[s->ndevs] = pl_xmalloc(n + 1);
      memcpy(s->devs[s->ndevs], w->devs[j], n + 1);
      s->ndevs++;
    }
    dmap[j] = (int64_t)i;
  }
  pl_table *d[3] = { s->tr.k, s->tr.m, s->tr.u };
  const pl_table *src[3] = { w->tr.k, w->tr.m, w->tr.u };
  int dev[3] = { s->tr.k_dev, s->tr.m_dev, s->tr.u_dev }, line[3] = { s->tr.k_line, s->tr.m_line, s->tr.u_line };
  for (int k = 0; k < 3; k++) {
    if (src[k]->nrows == 0) continue;
    size_t n0 = d[k]->nrows;
    uint32_t *map = pl_par_pool_map(d[k]->pool, src[k]->pool);
    pl_par_append_rows(d[k], src[k], map);
    free(map);
    pl_par_offset_ints(d[k], line[k], n0, (int64_t)line_off);
    int64_t *v = d[k]->cols[dev[k]]->v.i64;
    for (size_t r = n0; r < d[k]->nrows; r++)
      if (v[r] != PL_INT_NA) v[r] = dmap[v[r]];
  }
  free(dmap);
}

/* The main reader and, for CSV, its block. */
typedef struct nvbody {
  nvparse *x;
  csvblk *blk;
} nvbody;

static void *trace_text_piece(void *ud, const char *start, const char *lim, const char *end, const char **stop,
                              size_t *nlines, int *ended) {
  const nvparse *m = ((nvbody *)ud)->x;
  nvparse *x = pl_xcalloc(1, sizeof *x);
  pl_err e;
  pl_err_clear(&e);
  x->s = nv_worker();
  x->err = &e;
  x->mode = S_TRACE;
  x->nlab = m->nlab;
  memcpy(x->lab, m->lab, sizeof x->lab);
  memcpy(x->field, m->field, sizeof x->field);
  for (size_t k = 0; k < x->nlab; k++) x->labels[k] = x->lab[k].text;
  pl_lines_init(&x->c, start, (size_t)(end - start));
  int ok = 1;
  while (x->c.p < lim) {
    pl_lines nx = x->c;
    pl_line l;
    if (!pl_lines_next(&nx, &l)) break;
    const char *t = l.s;
    size_t tn = l.n;
    pl_trim(&t, &tn);
    if (!trace_body_line(t, tn)) {
      *ended = 1;
      break;
    }
    x->c = nx;
    if (trace_line(x, &l) != NV_NEXT) {
      ok = 0;
      break;
    }
  }
  *stop = x->c.p;
  *nlines = x->c.lineno;
  nvstate *w = x->s;
  free(x);
  if (ok) return w;
  nv_worker_free(w);
  return NULL;
}

static int trace_text_serial(void *ud, pl_lines *c, const char *upto) {
  nvparse *x = ((nvbody *)ud)->x;
  const pl_parse_opts *o = x->s->o;
  while (c->p < upto) {
    pl_lines nx = *c;
    pl_line l;
    if (!pl_lines_next(&nx, &l)) break;
    const char *t = l.s;
    size_t tn = l.n;
    pl_trim(&t, &tn);
    if (!trace_body_line(t, tn)) return 1;
    *c = nx;
    if (o && o->interrupt && *o->interrupt) return pl_err_set(x->err, c->lineno, 1, "interrupted");
    if (trace_line(x, &l) != NV_NEXT && !pl_lenient_skip(o, x->s->p, x->err)) return -1;
  }
  return 0;
}

static int trace_merge(void *ud, void *piece, size_t line_off) {
  nv_merge_trace(((nvbody *)ud)->x->s, piece, line_off);
  return 0;
}

static const pl_par_body trace_text_ops = { trace_text_piece, trace_text_serial, trace_merge, nv_worker_free, NULL };

/* The rows of a CSV trace block from start to the first record boundary
** at or past lim. */
static void *trace_csv_piece(void *ud, const char *start, const char *lim, const char *end, const char **stop,
                             size_t *nlines, int *ended) {
  const csvblk *m = ((nvbody *)ud)->blk;
  *ended = 0;
  *stop = pl_csv_boundary(start, lim, end, nlines);
  csvblk *b = pl_xcalloc(1, sizeof *b);
  b->s = nv_worker();
  b->kind = m->kind;
  b->n = m->n;
  b->units_seen = m->units_seen;
  b->header_line = m->header_line;
  b->rec = 2; /* past the header and the units row */
  for (size_t i = 0; i < m->n; i++) {
    b->field[i] = m->field[i];
    b->factor[i] = m->factor[i];
    memcpy(b->labels[i], m->labels[i], sizeof b->labels[i]);
    b->lp[i] = b->labels[i];
  }
  pl_err e;
  pl_err_clear(&e);
  pl_csv_opts co = { ',', 1, NULL, NULL, NULL, 0, 0 };
  int r = pl_csv_read(start, (size_t)(*stop - start), &co, nv_csv_row, b, &e);
  nvstate *w = b->s;
  free(b);
  if (r == 0) return w;
  nv_worker_free(w);
  return NULL;
}

static int trace_csv_serial(void *ud, pl_lines *c, const char *upto) {
  nvbody *B = ud;
  if (c->p >= upto || c->p >= c->end) return 0;
  size_t nl;
  const char *to = pl_csv_boundary(c->p, upto, c->end, &nl);
  const pl_parse_opts *o = B->x->s->o;
  pl_csv_opts co = { ',', c->lineno + 1, o ? o->interrupt : NULL, NULL, NULL, 0, 0 };
  if (pl_csv_read(c->p, (size_t)(to - c->p), &co, nv_csv_row, B->blk, B->x->err) != 0) return -1;
  c->p = to;
  c->lineno += nl;
  return 0;
}

static int trace_csv_merge(void *ud, void *piece, size_t line_off) {
  nvbody *B = ud;
  if (B->blk->rec < 2) return -1; /* the header and units row are the main reader's */
  nv_merge_trace(B->x->s, piece, line_off);
  return 0;
}

static const pl_par_body trace_csv_ops = { trace_csv_piece, trace_csv_serial, trace_csv_merge, nv_worker_free, NULL };

static int nv_jobs_chunk(const pl_parse_opts *o, size_t *chunk) {
  *chunk = o && o->chunk_bytes ? o->chunk_bytes : NV_CHUNK_DEFAULT;
  return pl_par_jobs(o);
}

/* The CSV GPU trace block [bs, be) (its header on line first): 0, or -1
** with err set. */
static int csv_trace_par(nvparse *x, csvblk *blk, const char *bs, const char *be, size_t first) {
  const pl_parse_opts *o = x->s->o;
  size_t chunk;
  int jobs = nv_jobs_chunk(o, &chunk);
  pl_lines c;
  pl_lines_init(&c, bs, (size_t)(be - bs));
  c.base = x->c.base;
  c.lineno = first - 1;
  nvbody B = { x, blk };
  if (jobs < 2 || (size_t)(be - bs) < 2 * chunk) {
    pl_csv_opts co = { ',', first, o ? o->interrupt : NULL, NULL, NULL, 0, 0 };
    return pl_csv_read(bs, (size_t)(be - bs), &co, nv_csv_row, blk, x->err);
  }
  /* the header and the units row first: the workers copy what they set */
  const char *two = bs;
  for (int k = 0; k < 2 && two < be; k++) {
    const char *nl = memchr(two, '\n', (size_t)(be - two));
    two = nl ? nl + 1 : be;
  }
  if (trace_csv_serial(&B, &c, two) != 0) return -1;
  size_t total = (size_t)(x->c.end - x->c.base);
  return pl_par_body_read(&trace_csv_ops, &B, &c, jobs, chunk, o, total, x->err) < 0 ? -1 : 0;
}

/* The text GPU trace's rows from x->c on, its header just read: 0, or -1
** with err set; x->c stops before the line that ends the trace. */
static int text_trace_par(nvparse *x) {
  const pl_parse_opts *o = x->s->o;
  size_t chunk;
  int jobs = nv_jobs_chunk(o, &chunk);
  nvbody B = { x, NULL };
  if (jobs < 2 || (size_t)(x->c.end - x->c.p) < 2 * chunk) return 0; /* the line loop reads them */
  size_t total = (size_t)(x->c.end - x->c.base);
  return pl_par_body_read(&trace_text_ops, &B, &x->c, jobs, chunk, o, total, x->err) < 0 ? -1 : 0;
}

/* One line: a block heading or header, or a row of the block being read. */
static int nv_line(nvparse *x, const pl_line *l) {
  const char *t = l->s;
  size_t tn = l->n;
  pl_trim(&t, &tn);
  if (tn == 0) {
    x->mode = S_NONE;
    return NV_NEXT;
  }
  if (is_prof_line(t, tn)) {
    prof_line(x, t, tn);
    return NV_NEXT;
  }
  int ck = csv_kind(t, tn);
  if (ck >= 0) return csv_block(x, l, ck);
  if (is_summary_header(t, tn)) {
    summary_header(x);
    return NV_NEXT;
  }
  if (is_trace_header(t, tn)) {
    trace_header(x, l);
    return NV_NEXT;
  }
  if (x->mode == S_SUMMARY)
    return sum_row_text(x->s, l->s, l->n, x->c.lineno, x->have_units ? &x->units : NULL, x->type, sizeof x->type,
                        x->err) != 0
               ? NV_ROW
               : NV_NEXT;
  if (x->mode == S_TRACE) return trace_line(x, l);
  if (tn > 8 && pl_starts(t, tn, "Device \"") && t[tn - 1] == '"') {
    device_line(x->s, t, tn);
    return NV_NEXT;
  }
  if (x->mode == S_UM) return um_line(x, l, t, tn);
  if (x->mode == S_METRICS ||
      (pl_starts(t, tn, "Invocations") && (pl_find(t, tn, "Metric Name") || pl_find(t, tn, "Event Name"))))
    return metrics_block(x, l, t, tn);
  return NV_NEXT; /* anything else: program output */
}

/* Hands the tables over to p, with the kernel summary and the devices. */
static void nv_finish(nvstate *s, pl_profile *p, const pl_parse_opts *o) {
  pl_profile_meta_str(p, "tool", "nvprof", 6);
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  add_runs(s);
  if (s->sum.t->nrows) split_summary(s);
  pl_table *keep[6] = { s->sum.t, s->tr.k, s->tr.m, s->tr.u, s->um, s->met };
  const char *names[6] = { "summary", "kernels", "memcpy", "unified_memory_events", "unified_memory", "metrics" };
  if (s->tr.k->nrows) {
    pl_fill_short_names(s->tr.k, s->tr.k_name);
    if (pl_want_table(o, "kernel_summary") && !pl_profile_find(p, "kernel_summary")) {
      pl_table *ks = pl_kernel_summary_from(s->tr.k, "kernel_summary");
      if (ks) pl_profile_add_table(p, run_first(ks));
    }
    size_t len;
    const char *dv = pl_cell_str(s->tr.k, s->tr.k_devn, 0, &len);
    if (dv && !pl_profile_meta_get(p, "device")) pl_profile_meta_str(p, "device", dv, len);
    for (int r = 0; r < s->run && s->run > 1; r++) { /* each run's device: its first launch's */
      size_t i = s->snap[(size_t)r * NV_TABLES + 1];
      char key[32];
      snprintf(key, sizeof key, "run%d.device", r + 1);
      if (i < s->tr.k->nrows && !pl_profile_meta_get(p, key) && (dv = pl_cell_str(s->tr.k, s->tr.k_devn, i, &len)))
        pl_profile_meta_str(p, key, dv, len);
    }
  }
  if (s->met->nrows) {
    int cs = pl_table_add_col(s->met, "short_name", PL_STR);
    (void)cs;
    pl_fill_short_names(s->met, s->mt_kernel);
  }
  for (int i = 0; i < 6; i++) {
    if (keep[i]->nrows && pl_want_table(o, names[i])) pl_profile_add_table(p, run_first(keep[i]));
    else pl_table_free(keep[i]);
  }
}

static void nv_free(nvstate *s, int tables) {
  if (tables) {
    pl_table_free(s->sum.t);
    pl_table_free(s->tr.k);
    pl_table_free(s->tr.m);
    pl_table_free(s->tr.u);
    pl_table_free(s->um);
    pl_table_free(s->met);
  }
  free(s->snap);
  free(s->runs);
  free_devices(s);
  free(s);
}

static int nv_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  nvstate *s = pl_xcalloc(1, sizeof *s);
  s->p = p;
  s->o = o;
  s->kernel_id = -1;
  snprintf(s->deftype, sizeof s->deftype, "GPU activities");
  sum_init(&s->sum, "summary");
  trace_init(&s->tr);
  um_init(s);
  met_init(s);
  new_run(s);
  nvparse x;
  memset(&x, 0, sizeof x);
  x.s = s;
  x.err = err;
  x.mode = S_NONE;
  pl_line l;
  pl_lines_init(&x.c, in->data, in->len);
  while (pl_lines_next(&x.c, &l)) {
    if (o && o->interrupt && *o->interrupt) {
      pl_err_set(err, x.c.lineno, 1, "interrupted");
      nv_free(s, 1);
      return -1;
    }
    if (o && o->progress && (x.c.lineno & 4095) == 0) o->progress(o->progress_ud, (size_t)(l.s - in->data), in->len);
    int r = nv_line(&x, &l);
    if (r == NV_NEXT && x.body) {
      x.body = 0;
      if (text_trace_par(&x) == 0) continue;
      r = NV_FAIL;
    }
    if (r == NV_NEXT || (r == NV_ROW && pl_lenient_skip(o, p, err))) continue;
    nv_free(s, 1);
    return -1;
  }
  if (!s->found) {
    pl_err_expected(err, x.c.lineno ? x.c.lineno : 1, 1, "an nvprof result (summary, GPU trace, metrics or CSV)", NULL,
                    0);
    nv_free(s, 1);
    return -1;
  }
  nv_finish(s, p, o);
  nv_free(s, 0);
  return 0;
}

const pl_format pl_fmt_nvprof = {
  "nvprof",
  "nvprof summary, --print-gpu-trace, --metrics/--events text and --csv output",
  "summary kernel_summary memcpy_summary api_summary kernels memcpy unified_memory unified_memory_events metrics",
  nv_detect,
  nv_parse,
};

/*
** schema.c -- the standard tables' columns (see schema.h), as data.
**
** Only the columns that mean the same thing in every format that has them
** are here; a column a format adds beside them (a tool's metrics, raw
** text) is that format's own.  A column whose type still differs between
** formats is left out until the formats agree (`loose` below; docs/standard-tables.md,
** "Not yet standard", lists them).
*/
#include "schema.h"

#include <stdio.h>
#include <string.h>

static const pl_std_table tables[] = {
  { "kernels", "kernel launch" },
  { "kernel_summary", "kernel name (per run where the input holds several)" },
  { "memcpy", "memory copy on the device timeline" },
  { "memset", "memory set on the device timeline" },
  { "runtime", "CUDA/HIP runtime or driver API call on the host" },
  { "cpu_ops", "framework operator on the host timeline" },
  { "nvtx", "NVTX range" },
  { "steps", "profiler step" },
  { "operators", "framework operator (summary)" },
  { "metrics", "(launch, metric) value" },
  { "rules", "tool-emitted advice for a launch" },
  { "devices", "device" },
  { "memory_events", "allocation or free of the framework's allocator (a Kineto [memory] event, an nsys "
                     "cudaMalloc/cudaFree or memory-usage event, a row of PyTorch's raw memory timeline)" },
};

#define TL_START(what)                                                                                                 \
  { "start_ns", PL_INT, "ns", "start time (" what "), ns on the trace's clock" }
#define TL_END                                                                                                         \
  { "end_ns", PL_INT, "ns", "end time, ns on the trace's clock" }
#define TL_DUR                                                                                                         \
  { "duration_ns", PL_INT, "ns", "duration, ns" }
#define DEVICE                                                                                                         \
  { "device", PL_INT, "", "device index (0, 1, ...; the tool's ordinal, else order of first appearance in the file)" }
#define DEVICE_NAME                                                                                                    \
  { "device_name", PL_STR, "", "device name, where the input gives one" }
#define STREAM                                                                                                         \
  { "stream", PL_INT, "", "CUDA/HIP stream" }
#define CONTEXT                                                                                                        \
  { "context", PL_INT, "", "CUDA context" }
#define CORR                                                                                                           \
  { "correlation", PL_INT, "", "correlation id joining a device operation to its runtime call" }
#define NAME(d)                                                                                                        \
  { "name", PL_STR, "", d }

typedef struct scol {
  const char *name;
  pl_type type;
  const char *unit, *doc;
} scol;
typedef struct stab {
  const char *table;
  const scol *cols;
  size_t n;
} stab;

static const scol kernels[] = {
  NAME("kernel name as the tool printed it"),
  { "short_name", PL_STR, "", "name without return type, namespaces, template and argument lists" },
  TL_START("launch start on the device"),
  TL_END,
  TL_DUR,
  DEVICE,
  DEVICE_NAME,
  CONTEXT,
  STREAM,
  CORR,
  { "grid_x", PL_INT, "blocks", "grid dimension x" },
  { "grid_y", PL_INT, "blocks", "grid dimension y" },
  { "grid_z", PL_INT, "blocks", "grid dimension z" },
  { "block_x", PL_INT, "threads", "block dimension x" },
  { "block_y", PL_INT, "threads", "block dimension y" },
  { "block_z", PL_INT, "threads", "block dimension z" },
  { "pid", PL_INT, "", "process id" },
  { "line", PL_INT, "", "input line of the launch" },
  { "launch_ns", PL_INT, "ns",
    "when the host enqueued the launch, where the device record keeps it (rocprof DispatchNs), ns on the trace's "
    "clock" },
};
static const scol kernel_summary[] = {
  NAME("kernel name as the tool printed it"),
  { "short_name", PL_STR, "", "name without return type, namespaces, template and argument lists" },
  { "total_ns", PL_NUM, "ns", "total time of its launches, ns" },
  { "mean_ns", PL_NUM, "ns", "mean time per launch, ns" },
  { "share_pct", PL_NUM, "percent", "share of all kernels' time, percent 0-100" },
  { "run", PL_INT, "", "run number (1, 2, ...) where the input holds several runs" },
  { "line", PL_INT, "", "input line of the row" },
};
static const scol memcpy_[] = {
  NAME("operation, e.g. [CUDA memcpy HtoD]"),
  TL_START("on the device"),
  TL_END,
  TL_DUR,
  DEVICE,
  DEVICE_NAME,
  CONTEXT,
  STREAM,
  CORR,
  { "bytes", PL_INT, "bytes", "bytes copied" },
};
static const scol memset_[] = {
  NAME("operation"),
  TL_START("on the device"),
  TL_END,
  TL_DUR,
  DEVICE,
  DEVICE_NAME,
  STREAM,
  CORR,
  { "bytes", PL_INT, "bytes", "bytes set" },
};
static const scol runtime[] = {
  NAME("API function"), TL_START("on the host"), TL_END, TL_DUR, CORR, { "cat", PL_STR, "", "event category" },
};
static const scol cpu_ops[] = { TL_START("on the host"), TL_END, TL_DUR };
static const scol nvtx[] = { TL_START("range push/start"), TL_END, TL_DUR };
static const scol steps[] = {
  { "step", PL_INT, "", "profiler step number" },
  TL_START("step start"),
  TL_END,
  TL_DUR,
};
static const scol operators[] = {
  NAME("operator name"),
  { "calls", PL_INT, "", "number of calls" },
  { "cpu_total_ns", PL_NUM, "ns", "host time including child operators, ns" },
  { "truncated", PL_BOOL, "", "true where the tool cut the name with '...'" },
  { "line", PL_INT, "", "input line of the row" },
};
static const scol metrics[] = {
  { "kernel_id", PL_INT, "", "the launch the value belongs to (kernels.id, 0-based)" },
  DEVICE,
  DEVICE_NAME,
  { "metric", PL_STR, "", "metric name as printed" },
  { "unit", PL_STR, "", "unit (as printed, or the base unit of value)" },
  { "value", PL_NUM, "", "value in base units (ns, bytes, Hz, percent 0-100); missing when it is text" },
  { "raw", PL_STR, "", "value text as printed" },
};
static const scol rules[] = {
  { "kernel_id", PL_INT, "", "the launch the rule is for (kernels.id)" },
  { "section", PL_STR, "", "section the rule belongs to" },
  { "rule", PL_STR, "", "rule identifier" },
  { "severity", PL_STR, "", "WRN, INF, OPT or ERR" },
  { "message", PL_STR, "", "message text" },
  { "est_speedup_pct", PL_NUM, "percent", "estimated global speedup, percent" },
  { "line", PL_INT, "", "input line of the rule" },
};
static const scol devices[] = {
  { "id", PL_INT, "", "device index (kernels.device)" },    NAME("device name"),
  { "cc", PL_STR, "", "compute capability, e.g. \"8.6\"" }, { "sm_count", PL_INT, "", "streaming multiprocessors" },
  { "memory_bytes", PL_INT, "bytes", "device memory" },
};

static const scol memory_events[] = {
  { "ts_ns", PL_INT, "ns", "time of the allocation or free, ns on the trace's clock" },
  { "device_type", PL_INT, "",
    "c10::DeviceType: 0 CPU, 1 CUDA, 6 HIP (ROCm builds); missing where the input does not say" },
  { "device", PL_INT, "", "device index (-1 for the CPU in Kineto traces)" },
  { "addr", PL_INT, "", "address of the block: pairs an allocation with its free" },
  { "bytes", PL_INT, "bytes", "bytes allocated (> 0) or freed (< 0)" },
  { "total_allocated_bytes", PL_INT, "bytes", "the allocator's allocated bytes on the device after this event" },
  { "total_reserved_bytes", PL_INT, "bytes", "bytes the caching allocator holds from the device after this event" },
  { "op", PL_STR, "", "the deepest operator containing the event on its thread ([start, end)); missing outside any" },
};

/* Columns several formats share under one name whose type still differs by
** format: not standard yet (printed in docs/standard-tables.md so nobody relies on
** them being one type). */
static const struct {
  const char *table, *name, *why;
} loose[] = {
  { "kernels", "registers", "a number in ncu (a metric as printed), an integer in the timelines" },
  { "kernels", "smem_static_bytes", "a number in ncu and nvprof, an integer in Kineto, nsys and rocprof" },
  { "kernels", "smem_dynamic_bytes", "a number in ncu and nvprof, an integer in Kineto and nsys" },
  { "kernel_summary", "calls", "a number in comparison reports, an integer elsewhere" },
  { "kernel_summary", "min_ns",
    "an integer where computed from an int64 timeline (rocprof, nvprof traces), a number where the tool printed it "
    "(also max_ns)" },
  { "kernel_summary", "device", "a device name in comparison reports" },
  { "runtime", "pid", "text in Kineto (as the trace writes it), an integer in nsys (also tid)" },
  { "devices", "clock_hz", "an integer in nsys, a number in rocprof" },
};

#define T(name, arr)                                                                                                   \
  { name, arr, sizeof arr / sizeof arr[0] }
static const stab by_table[] = {
  T("kernels", kernels),
  T("kernel_summary", kernel_summary),
  T("memcpy", memcpy_),
  T("memset", memset_),
  T("runtime", runtime),
  T("cpu_ops", cpu_ops),
  T("nvtx", nvtx),
  T("steps", steps),
  T("operators", operators),
  T("metrics", metrics),
  T("rules", rules),
  T("devices", devices),
  T("memory_events", memory_events),
};
#define NTAB (sizeof by_table / sizeof by_table[0])

const pl_std_table *pl_schema_tables(size_t *n) {
  *n = sizeof tables / sizeof tables[0];
  return tables;
}

int pl_schema_column(size_t i, pl_std_column *out) {
  for (size_t t = 0; t < NTAB; t++) {
    if (i < by_table[t].n) {
      const scol *c = &by_table[t].cols[i];
      *out = (pl_std_column){ by_table[t].table, c->name, c->type, c->unit, c->doc };
      return 1;
    }
    i -= by_table[t].n;
  }
  return 0;
}

int pl_schema_find(const char *table, const char *name, pl_std_column *out) {
  for (size_t t = 0; t < NTAB; t++) {
    if (strcmp(by_table[t].table, table) != 0) continue;
    for (size_t k = 0; k < by_table[t].n; k++) {
      const scol *c = &by_table[t].cols[k];
      if (strcmp(c->name, name) == 0) {
        *out = (pl_std_column){ by_table[t].table, c->name, c->type, c->unit, c->doc };
        return 1;
      }
    }
  }
  return 0;
}

int pl_std_col(pl_table *t, const char *name, const char *doc) {
  pl_std_column c;
  if (!pl_schema_find(t->name, name, &c)) return -1;
  return pl_table_add_doc_col(t, name, c.type, doc ? doc : c.doc);
}

void pl_add_cols(pl_table *t, const pl_coldef *defs, size_t n, int *cols) {
  for (size_t i = 0; i < n; i++) {
    int c = pl_std_col(t, defs[i].name, defs[i].doc);
    if (c < 0) c = pl_table_add_doc_col(t, defs[i].name, defs[i].type, defs[i].doc);
    if (cols) cols[i] = c;
  }
}

pl_table *pl_table_declare(const pl_parse_opts *o, const char *name, pl_pool *pool, const pl_coldef *defs, size_t n,
                           int *cols) {
  if (!pl_want_table(o, name)) return NULL;
  pl_table *t = pl_table_new(name);
  if (pool) {
    pl_pool_release(t->pool);
    t->pool = pool;
    pl_pool_retain(pool);
  }
  pl_add_cols(t, defs, n, cols);
  return t;
}

void pl_schema_markdown(pl_buf *out) {
  char line[512];
  pl_buf_adds(out, "# Standard tables\n\n"
                   "<!-- Generated from src/core/schema.c by `build/test_schema print`; "
                   "tests/c/test_schema.c checks that this file matches. -->\n\n"
                   "A standard table has the same name, and its standard columns the same names, types and\n"
                   "units, in every format that provides it (which formats provide which table:\n"
                   "`perflab formats`).  A format may add columns of its own beside these.  Times on a\n"
                   "timeline (`start_ns`, `end_ns`, `duration_ns`) are int64 nanoseconds; `device` is an\n"
                   "integer index and the device's name, where the input gives one, is `device_name`.\n"
                   "Where a tool measures a duration without a timeline (ncu, kernel tables),\n"
                   "`kernels.duration_ns` is a number (tests/c/test_schema.c checks both).\n");
  for (size_t i = 0; i < NTAB; i++) {
    snprintf(line, sizeof line,
             "\n## `%s`\n\nOne row per %s.\n\n| column | type | unit | meaning |\n|---|---|---|---|\n",
             by_table[i].table, tables[i].row);
    pl_buf_adds(out, line);
    for (size_t k = 0; k < by_table[i].n; k++) {
      const scol *c = &by_table[i].cols[k];
      snprintf(line, sizeof line, "| `%s` | %s | %s | %s |\n", c->name, pl_type_name(c->type), c->unit, c->doc);
      pl_buf_adds(out, line);
    }
  }
  pl_buf_adds(out, "\n## Not yet standard\n\nShared names whose type still differs by format "
                   "(not in the schema; check the type before use):\n\n");
  for (size_t i = 0; i < sizeof loose / sizeof loose[0]; i++) {
    snprintf(line, sizeof line, "- `%s.%s`: %s.\n", loose[i].table, loose[i].name, loose[i].why);
    pl_buf_adds(out, line);
  }
}

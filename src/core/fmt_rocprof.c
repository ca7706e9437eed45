/*
** fmt_rocprof.c -- format "rocprof": the CSV files of AMD's rocprof (v1/v2)
** and rocprofv3, recognised by their header row:
**
**   "Name","Calls","TotalDurationNs","AverageNs","Percentage"[,"MinNs","MaxNs","StdDev"]
**        results.stats.csv / kernel_stats.csv  -> kernel_summary
**        results.hip_stats.csv / hip_api_stats  -> api_summary   (names hip*, hsa*, __hip*)
**        results.copy_stats.csv / memory_copy_stats -> memcpy_summary (names Copy*, MEMORY_COPY*)
**   Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,...
**        v1 per-dispatch results.csv (PMC counters as extra columns) -> kernels (+ kernel_summary when timed)
**   "Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name",...,"Start_Timestamp","End_Timestamp",...
**        rocprofv3 kernel_trace.csv -> kernels, kernel_summary
**   "Correlation_Id","Dispatch_Id",...,"Kernel_Name",...,"Counter_Name","Counter_Value"[,...]
**        rocprofv3 --pmc counter_collection.csv (one row per dispatch and
**        counter) -> kernels (one row per dispatch) and metrics (one row per
**        dispatch and counter; + kernel_summary when timed)
**   "Node_Id","Logical_Node_Id","Agent_Type",...
**        rocprofv3 agent_info.csv -> devices
**   Domain,Function,Start_Timestamp,End_Timestamp,Correlation_ID (a blank
**   line may follow the header)
**        rocprofv2 / rocprofv3 hip_api_trace.csv (and hsa_api_trace) -> runtime
**   Dispatch_ID,...,Kernel_Name,...[,Start_Timestamp,End_Timestamp][,counters]
**        rocprof-compute (Omniperf) timestamps.csv / pmc_perf.csv -> kernels
**        (+ kernel_summary when timed)
**
** Per-dispatch files that record when the host enqueued the dispatch
** (rocprof v1's and rocprof-compute's DispatchNs) keep it as launch_ns.
** Timestamps a spreadsheet rewrote in scientific notation (8.1097E+14: five
** significant digits, start == end) are not times any more: the reader says
** so in a diagnostic and leaves start, end and duration missing rather than
** report zero-length kernels.
**
** Every file is read by the shared typed CSV reader (csvread.c, libcsv
** strict), so every column of the file is kept with its own name; the
** standard columns are added next to them.  Sizes: rocprof's grid sizes are
** in work-items; grid_x here is in workgroups (Grid_Size_X / Workgroup_Size_X)
** like CUDA's, and the work-item totals stay in grid_items_x/y/z.
*/
#include "format.h"
#include "csvread.h"
#include "kernsum.h"
#include "scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { R_NONE, R_STATS, R_V1, R_V3TRACE, R_AGENT, R_API, R_COMPUTE, R_V3COUNTER };

/* The first field of a header line, quotes removed, is `name`. */
static int first_field_is(const char *s, size_t n, const char *name) {
  size_t k = strlen(name);
  if (n > 0 && s[0] == '"') {
    s++;
    n--;
    if (n < k + 1 || memcmp(s, name, k) != 0 || s[k] != '"') return 0;
    s++;
    n--;
  } else if (n < k || memcmp(s, name, k) != 0) return 0;
  return n == k || s[k] == ',';
}

static int header_kind(const char *s, size_t n) {
  if (pl_starts(s, n, "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"") ||
      pl_starts(s, n, "Name,Calls,TotalDurationNs,AverageNs,Percentage"))
    return R_STATS;
  if (pl_starts(s, n, "Index,KernelName,gpu-id,queue-id") || pl_starts(s, n, "\"Index\",\"KernelName\",\"gpu-id\""))
    return R_V1;
  if (pl_starts(s, n, "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\"") ||
      (pl_starts(s, n, "\"Kind\",\"Agent_Id\",\"Queue_Id\"") && pl_find(s, n, "\"Kernel_Name\"") &&
       pl_find(s, n, "\"Start_Timestamp\"")))
    return R_V3TRACE;
  if (pl_find(s, n, "Counter_Name") && pl_find(s, n, "Counter_Value") && pl_find(s, n, "Dispatch_Id") &&
      pl_find(s, n, "Kernel_Name"))
    return R_V3COUNTER;
  if (pl_starts(s, n, "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\"") ||
      pl_starts(s, n, "Node_Id,Logical_Node_Id,Agent_Type"))
    return R_AGENT;
  if (first_field_is(s, n, "Domain") && pl_find(s, n, "Function") && pl_find(s, n, "Start_Timestamp") &&
      pl_find(s, n, "End_Timestamp"))
    return R_API;
  if (first_field_is(s, n, "Dispatch_ID") && pl_find(s, n, "Kernel_Name")) return R_COMPUTE;
  return R_NONE;
}

static int roc_detect(const char *data, size_t len) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, data, len);
  while (pl_lines_next(&c, &l)) {
    if (pl_is_blank(l.s, l.n)) continue;
    return header_kind(l.s, l.n) != R_NONE ? 90 : 0;
  }
  return 0;
}

/* Renames column `from` to `to`; returns its index or -1. */
static int rename_col(pl_table *t, const char *from, const char *to, const char *doc) {
  int c = pl_table_col(t, from);
  if (c < 0) return -1;
  if (pl_table_col(t, to) >= 0) return c;
  free(t->cols[c]->name);
  t->cols[c]->name = pl_xstrdup(to);
  if (doc) pl_table_set_doc(t, c, doc);
  return c;
}

/* Integer columns that carry times become numbers only where the standard
** table says so (summaries); traces keep exact int64 nanoseconds. */
static void to_num(pl_table *t, int c) {
  if (c >= 0 && t->cols[c]->type == PL_INT) pl_table_retype(t, c, PL_NUM);
}

static int name_prefix_all(const pl_table *t, int cn, const char *const *prefixes) {
  if (cn < 0 || t->nrows == 0) return 0;
  for (size_t i = 0; i < t->nrows; i++) {
    size_t len;
    const char *s = pl_cell_str(t, cn, i, &len);
    if (!s) return 0;
    int ok = 0;
    for (const char *const *p = prefixes; *p; p++)
      if (strncmp(s, *p, strlen(*p)) == 0) {
        ok = 1;
        break;
      }
    if (!ok) return 0;
  }
  return 1;
}

static void doc_kernels(pl_table *t) {
  /* NULL: the schema's description (pl_profile_add_table) */
  static const char *docs[][2] = {
    { "name", NULL },
    { "device", "GPU agent / gpu-id" },
    { "stream", "queue id" },
    { "correlation", "correlation id (rocprofv3)" },
    { "start_ns", NULL },
    { "end_ns", NULL },
    { "block_x", "workgroup size x (threads)" },
    { "block_y", NULL },
    { "block_z", NULL },
    { "grid_items_x", "grid size x in work-items (as rocprof prints it)" },
    { "grid_items_y", "grid size y in work-items" },
    { "grid_items_z", "grid size z in work-items" },
    { "smem_static_bytes", "LDS (group segment) bytes per workgroup" },
    { "scratch_bytes", "private segment (scratch) bytes per work-item" },
    { "registers", "architected VGPRs per work-item" },
    { "launch_ns", NULL },
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    int c = pl_table_col(t, docs[i][0]);
    if (c >= 0) pl_table_set_doc(t, c, docs[i][1]);
  }
}

/* grid_x = items / workgroup size (CUDA-style blocks). */
/* The standard `registers` column: an integer copy of the VGPR column the
** rocprof form names `vgpr` (architected VGPRs per work-item). */
static void registers_from(pl_table *t, const char *vgpr) {
  int cv = pl_table_col(t, vgpr);
  if (cv < 0) return;
  int cr = pl_table_add_col(t, "registers", PL_INT);
  if (cr >= 0)
    for (size_t i = 0; i < t->nrows; i++) t->cols[cr]->v.i64[i] = pl_cell_int(t, cv, i);
}

static void add_grid(pl_table *t, const char *items, const char *wg, const char *out) {
  int ci = pl_table_col(t, items), cw = pl_table_col(t, wg);
  if (ci < 0 || cw < 0) return;
  int co = pl_table_add_col(t, out, PL_INT);
  if (co < 0) return;
  pl_table_set_doc(t, co, "grid size in workgroups (work-items / workgroup size, rounded up)");
  for (size_t i = 0; i < t->nrows; i++) {
    int64_t a = pl_cell_int(t, ci, i), b = pl_cell_int(t, cw, i);
    t->cols[co]->v.i64[i] = (a == PL_INT_NA || b == PL_INT_NA || b <= 0) ? PL_INT_NA : (a + b - 1) / b;
  }
}

/* A field of a stats row that must be a number (or empty). */
static int numeric_field(const char *s, size_t n) {
  while (n && (*s == ' ' || *s == '\t')) {
    s++;
    n--;
  }
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  int64_t iv;
  double dv;
  return n == 0 || pl_csv_number(s, n, &iv, &dv) > 0;
}

/* ROCm 4's rocprof wrote stats rows with the kernel name unquoted, commas
** and all ("void k<float, 4>(int, float*)",...).  A row that does not start
** with a quote and has more fields than the header, whose last ncols-1
** fields are numbers (Calls, TotalDurationNs, AverageNs, Percentage[, ...]),
** has the rest re-joined as its name: the text is rewritten with that name
** quoted (line for line, so line numbers stay), to be read by the shared
** CSV reader.  Returns NULL when no row needed it; *nfixed, *first say how
** many rows were re-joined and the first one's line. */
static char *rejoin_stats_names(const char *data, size_t len, size_t *outlen, size_t *nfixed, size_t *first) {
  size_t ncols = 0, lineno = 0;
  const char *s = data, *end = data + len;
  pl_buf b;
  int have = 0;
  *nfixed = 0;
  *first = 0;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *le = nl ? nl : end, *next = nl ? nl + 1 : end;
    size_t n = (size_t)(le - s);
    if (n && s[n - 1] == '\r') n--;
    lineno++;
    size_t commas = 0;
    for (size_t i = 0; i < n; i++) commas += s[i] == ',';
    size_t cut = 0; /* offset of the comma that ends the name */
    if (ncols == 0) {
      if (!pl_is_blank(s, n)) ncols = commas + 1;
    } else if (n && s[0] != '"' && commas + 1 > ncols && ncols > 1) {
      /* the (ncols-1)-th comma from the right */
      size_t k = 0, i = n;
      while (i > 0) {
        i--;
        if (s[i] == ',' && ++k == ncols - 1) break;
      }
      int ok = 1;
      for (size_t a = i + 1; ok && a <= n;) {
        size_t z = a;
        while (z < n && s[z] != ',') z++;
        ok = numeric_field(s + a, z - a);
        a = z + 1;
      }
      if (ok) cut = i;
    }
    if (cut && !have) {
      pl_buf_init(&b);
      pl_buf_add(&b, data, (size_t)(s - data));
      have = 1;
    }
    if (cut) {
      if ((*nfixed)++ == 0) *first = lineno;
      size_t a = 0, z = cut;
      while (a < z && (s[a] == ' ' || s[a] == '\t')) a++;
      while (z > a && (s[z - 1] == ' ' || s[z - 1] == '\t')) z--;
      pl_buf_addc(&b, '"');
      for (size_t i = a; i < z; i++) {
        if (s[i] == '"') pl_buf_addc(&b, '"');
        pl_buf_addc(&b, s[i]);
      }
      pl_buf_addc(&b, '"');
      pl_buf_add(&b, s + cut, (size_t)(next - s) - cut);
    } else if (have) {
      pl_buf_add(&b, s, (size_t)(next - s));
    }
    s = next;
  }
  if (!have) return NULL;
  *outlen = b.len;
  return b.data;
}

/* Start and end columns that are not exact integers as written: where
** every value is a whole number of at most 6 significant digits above 1e9
** (a spreadsheet's "8.1097E+14"), the times are gone: a diagnostic, and
** the columns become missing (0 is returned so the caller adds no
** duration).  Other fractional nanoseconds are rounded to integers.
** Returns 1 when the times are usable. */
static int check_times(pl_table *t, int cs, int ce, pl_profile *p) {
  if (cs < 0 || ce < 0) return 0;
  if (t->cols[cs]->type == PL_STR || t->cols[ce]->type == PL_STR) return 1; /* the caller reports text */
  if (t->cols[cs]->type == PL_INT && t->cols[ce]->type == PL_INT) return 1;
  size_t n = 0, coarse = 0, same = 0;
  double res = 0;
  const int cc[2] = { cs, ce };
  for (size_t i = 0; i < t->nrows; i++) {
    double a = pl_cell_num(t, cs, i), b = pl_cell_num(t, ce, i);
    if (isnan(a) || isnan(b)) continue;
    n++;
    if (a == b) same++;
    int ok = 1;
    for (int k = 0; k < 2; k++) {
      double v = fabs(k ? b : a);
      if (v < 1e9 || v != floor(v)) {
        ok = 0;
        break;
      }
      double unit = pow(10.0, floor(log10(v)) - 5); /* 6 significant digits */
      if (fmod(v, unit) != 0) {
        ok = 0;
        break;
      }
      if (unit > res) res = unit;
    }
    coarse += ok;
  }
  if (n > 0 && coarse == n) {
    pl_profile_diag(p, 1,
                    "%s and %s are written in scientific notation with at most 6 significant digits "
                    "(a spreadsheet's rewrite, e.g. 8.1097E+14): their resolution is %.0e ns and %zu of %zu dispatches "
                    "have start == end, so start, end and duration are left missing, not reported as zero-length "
                    "kernels; export the timestamps again as integers",
                    t->cols[cs]->name, t->cols[ce]->name, res, same, n);
    for (int k = 0; k < 2; k++) {
      pl_table_retype(t, cc[k], PL_INT);
      for (size_t i = 0; i < t->nrows; i++) t->cols[cc[k]]->v.i64[i] = PL_INT_NA;
    }
    return 0;
  }
  for (int k = 0; k < 2; k++) {
    int c = cc[k];
    if (t->cols[c]->type != PL_NUM) continue;
    double *v = t->cols[c]->v.num;
    size_t m = t->nrows;
    double *keep = pl_xmalloc((m ? m : 1) * sizeof *keep);
    memcpy(keep, v, m * sizeof *keep);
    pl_table_retype(t, c, PL_INT);
    for (size_t i = 0; i < m; i++) t->cols[c]->v.i64[i] = isnan(keep[i]) ? PL_INT_NA : pl_int_of(llround(keep[i]));
    free(keep);
  }
  return 1;
}

/* results.stats.csv and its kin: kernel_summary, api_summary or
** memcpy_summary, by the names it holds.  t is handed over or freed. */
static int read_stats(pl_table *t, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  int cn = rename_col(t, "Name", "name", "kernel, API function or copy name");
  int cc = rename_col(t, "Calls", "calls", "number of calls");
  to_num(t, rename_col(t, "TotalDurationNs", "total_ns", "total duration, ns"));
  to_num(t, rename_col(t, "AverageNs", "mean_ns", "mean duration, ns"));
  to_num(t, rename_col(t, "Percentage", "share_pct", "share of the total, percent 0-100"));
  to_num(t, rename_col(t, "MinNs", "min_ns", "shortest call, ns"));
  to_num(t, rename_col(t, "MaxNs", "max_ns", "longest call, ns"));
  to_num(t, rename_col(t, "StdDev", "stddev_ns", "standard deviation of the duration, ns"));
  if (cn < 0 || cc < 0 || t->cols[cn]->type != PL_STR) {
    pl_table_free(t);
    return pl_err_set(err, 1, 1, "expected a Name column of text and a Calls column");
  }
  static const char *const api[] = { "hip", "__hip", "hsa_", "roctx", NULL };
  static const char *const copy[] = { "Copy", "MEMORY_COPY", "Fill", NULL };
  const char *name = "kernel_summary";
  if (name_prefix_all(t, cn, api)) name = "api_summary";
  else if (name_prefix_all(t, cn, copy)) name = "memcpy_summary";
  else {
    pl_fill_short_names(t, cn);
    /* a kernel summary's own text only restates the schema's (pl_profile_add_table gives it) */
    static const char *const restated[] = { "name", "total_ns", "mean_ns", "share_pct" };
    for (size_t i = 0; i < sizeof restated / sizeof restated[0]; i++) {
      int c = pl_table_col(t, restated[i]);
      if (c >= 0) pl_table_set_doc(t, c, NULL);
    }
  }
  pl_table_set_name(t, name);
  pl_profile_meta_str(p, "rocprof_file", name, strlen(name));
  if (pl_want_table(o, name)) pl_profile_add_table(p, t);
  else pl_table_free(t);
  return 0;
}

/* rocprofv3 agent_info.csv: the devices table and the first GPU's
** metadata.  t is handed over or freed. */
static int read_agent(pl_table *t, pl_profile *p, const pl_parse_opts *o) {
  pl_table_set_name(t, "devices");
  int cid = pl_table_col(t, "Node_Id"), cpn = pl_table_col(t, "Product_Name"), cnm = pl_table_col(t, "Name");
  int ccu = pl_table_col(t, "Cu_Count"), cty = pl_table_col(t, "Agent_Type"),
      cclk = pl_table_col(t, "Max_Engine_Clk_Fcompute");
  int sid = pl_table_add_col_unique(t, "id", PL_INT), sname = pl_table_add_col_unique(t, "name", PL_STR);
  int sarch = pl_table_add_col_unique(t, "arch", PL_STR), stype = pl_table_add_col_unique(t, "type", PL_STR);
  int ssm = pl_table_add_col_unique(t, "sm_count", PL_INT), sclk = pl_table_add_col_unique(t, "clock_hz", PL_NUM);
  pl_table_set_doc(t, sid, "agent node id");
  pl_table_set_doc(t, sname, NULL);
  pl_table_set_doc(t, sarch, "GPU architecture (gfx target) for GPU agents");
  pl_table_set_doc(t, stype, "agent type: CPU or GPU");
  pl_table_set_doc(t, ssm, "compute units (GPU agents)");
  pl_table_set_doc(t, sclk, "maximum engine clock, Hz (GPU: Max_Engine_Clk_Fcompute MHz)");
  int firstgpu = -1;
  for (size_t i = 0; i < t->nrows; i++) {
    size_t len;
    const char *ty = cty >= 0 ? pl_cell_str(t, cty, i, &len) : NULL;
    int gpu = ty && strcmp(ty, "GPU") == 0;
    if (gpu && firstgpu < 0) firstgpu = (int)i;
    if (cid >= 0) t->cols[sid]->v.i64[i] = pl_cell_int(t, cid, i);
    if (cpn >= 0 && t->cols[cpn]->type == PL_STR) t->cols[sname]->v.str[i] = t->cols[cpn]->v.str[i];
    if (cty >= 0 && t->cols[cty]->type == PL_STR) t->cols[stype]->v.str[i] = t->cols[cty]->v.str[i];
    if (gpu && cnm >= 0 && t->cols[cnm]->type == PL_STR) t->cols[sarch]->v.str[i] = t->cols[cnm]->v.str[i];
    if (gpu && ccu >= 0) t->cols[ssm]->v.i64[i] = pl_cell_int(t, ccu, i);
    if (gpu && cclk >= 0) {
      double mhz = pl_cell_num(t, cclk, i);
      t->cols[sclk]->v.num[i] = mhz > 0 ? mhz * 1e6 : NAN;
    }
  }
  if (firstgpu >= 0) {
    size_t len;
    const char *s;
    if ((s = pl_cell_str(t, sname, (size_t)firstgpu, &len))) pl_profile_meta_str(p, "device", s, len);
    if ((s = pl_cell_str(t, sarch, (size_t)firstgpu, &len))) pl_profile_meta_str(p, "arch", s, len);
    int64_t cu = pl_cell_int(t, ssm, (size_t)firstgpu);
    if (cu != PL_INT_NA) pl_profile_meta_num(p, "sm_count", (double)cu);
  }
  if (pl_want_table(o, "devices")) pl_profile_add_table(p, t);
  else pl_table_free(t);
  return 0;
}

/* hip_api_trace.csv / hsa_api_trace.csv: the runtime table.  t is handed
** over or freed. */
static int read_api(pl_table *t, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_table_set_name(t, "runtime");
  rename_col(t, "Function", "name", NULL); /* NULL: the schema's description */
  rename_col(t, "Domain", "cat", "rocprof tracing domain (HIP_API_DOMAIN, HSA_API_DOMAIN, ...)");
  rename_col(t, "Start_Timestamp", "start_ns", NULL);
  rename_col(t, "End_Timestamp", "end_ns", NULL);
  if (rename_col(t, "Correlation_ID", "correlation", NULL) < 0) rename_col(t, "Correlation_Id", "correlation", NULL);
  if (rename_col(t, "Process_Id", "pid", "process id") < 0) rename_col(t, "PID", "pid", "process id");
  if (rename_col(t, "Thread_Id", "tid", "thread id") < 0) rename_col(t, "TID", "tid", "thread id");
  int cn = pl_table_col(t, "name"), cs = pl_table_col(t, "start_ns"), ce = pl_table_col(t, "end_ns");
  if (cn < 0 || t->cols[cn]->type != PL_STR) {
    pl_table_free(t);
    return pl_err_set(err, 1, 1, "expected a Function column of text");
  }
  if (check_times(t, cs, ce, p)) {
    int cd = pl_table_add_col_unique(t, "duration_ns", PL_INT);
    pl_table_set_doc(t, cd, NULL);
    for (size_t i = 0; i < t->nrows; i++) {
      int64_t a = pl_cell_int(t, cs, i), b = pl_cell_int(t, ce, i);
      t->cols[cd]->v.i64[i] = (a == PL_INT_NA || b == PL_INT_NA || b < a) ? PL_INT_NA : b - a;
    }
  }
  if (pl_want_table(o, "runtime")) pl_profile_add_table(p, t);
  else pl_table_free(t);
  return 0;
}

/* The standard names of a per-dispatch trace's columns, by layout. */
static void dispatch_columns(pl_table *t, int kind, pl_profile *p) {
  if (kind == R_V1) {
    rename_col(t, "KernelName", "name", NULL);
    rename_col(t, "gpu-id", "device", NULL);
    rename_col(t, "queue-id", "stream", NULL);
    rename_col(t, "wgr", "block_x", NULL);
    rename_col(t, "grd", "grid_items_x", NULL);
    rename_col(t, "lds", "smem_static_bytes", NULL);
    rename_col(t, "scr", "scratch_bytes", NULL);
    registers_from(t, pl_table_col(t, "arch_vgpr") >= 0 ? "arch_vgpr" : "vgpr");
    add_grid(t, "grid_items_x", "block_x", "grid_x");
    int cb = pl_table_col(t, "BeginNs"), ce = pl_table_col(t, "EndNs");
    if (cb >= 0 && ce >= 0) {
      rename_col(t, "BeginNs", "start_ns", NULL);
      rename_col(t, "EndNs", "end_ns", NULL);
    }
    rename_col(t, "DispatchNs", "launch_ns", NULL);
  } else if (kind == R_COMPUTE) {
    rename_col(t, "Kernel_Name", "name", NULL);
    rename_col(t, "GPU_ID", "device", NULL);
    if (rename_col(t, "Queue_ID", "stream", NULL) < 0) rename_col(t, "queue-id", "stream", NULL);
    if (rename_col(t, "PID", "pid", NULL) < 0) rename_col(t, "pid", "pid", NULL);
    if (rename_col(t, "TID", "tid", NULL) < 0) rename_col(t, "tid", "tid", NULL);
    rename_col(t, "Correlation_ID", "correlation", NULL);
    rename_col(t, "Workgroup_Size", "block_x", NULL);
    rename_col(t, "Grid_Size", "grid_items_x", NULL);
    rename_col(t, "LDS_Per_Workgroup", "smem_static_bytes", NULL);
    rename_col(t, "Scratch_Per_Workitem", "scratch_bytes", NULL);
    rename_col(t, "Start_Timestamp", "start_ns", NULL);
    rename_col(t, "End_Timestamp", "end_ns", NULL);
    rename_col(t, "DispatchNs", "launch_ns", NULL);
    registers_from(t, "Arch_VGPR");
    add_grid(t, "grid_items_x", "block_x", "grid_x");
    pl_profile_meta_str(p, "tool", "rocprof-compute", 15);
  } else if (kind == R_V3COUNTER) {
    /* counter_collection.csv: sizes are totals (x*y*z), so the workgroup
    ** is all in block_x and the grid in grid_items_x / grid_x */
    rename_col(t, "Kernel_Name", "name", NULL);
    rename_col(t, "Agent_Id", "device", NULL);
    rename_col(t, "Queue_Id", "stream", NULL);
    rename_col(t, "Correlation_Id", "correlation", NULL);
    rename_col(t, "Process_Id", "pid", NULL);
    rename_col(t, "Thread_Id", "tid", "thread id");
    rename_col(t, "Dispatch_Id", "dispatch_id", "rocprofv3 dispatch id");
    rename_col(t, "Start_Timestamp", "start_ns", NULL);
    rename_col(t, "End_Timestamp", "end_ns", NULL);
    rename_col(t, "Workgroup_Size", "block_x", "workgroup size (threads, x*y*z as rocprofv3 prints it)");
    rename_col(t, "Grid_Size", "grid_items_x", "grid size in work-items (x*y*z as rocprofv3 prints it)");
    rename_col(t, "LDS_Block_Size", "smem_static_bytes", "LDS bytes per workgroup (LDS_Block_Size)");
    rename_col(t, "Scratch_Size", "scratch_bytes", NULL);
    registers_from(t, pl_table_col(t, "Arch_VGPR_Count") >= 0 ? "Arch_VGPR_Count" : "VGPR_Count");
    add_grid(t, "grid_items_x", "block_x", "grid_x");
  } else {
    rename_col(t, "Kernel_Name", "name", NULL);
    rename_col(t, "Agent_Id", "device", NULL);
    rename_col(t, "Queue_Id", "stream", NULL);
    rename_col(t, "Correlation_Id", "correlation", NULL);
    rename_col(t, "Start_Timestamp", "start_ns", NULL);
    rename_col(t, "End_Timestamp", "end_ns", NULL);
    rename_col(t, "Private_Segment_Size", "scratch_bytes", NULL);
    rename_col(t, "Group_Segment_Size", "smem_static_bytes", NULL);
    rename_col(t, "Workgroup_Size_X", "block_x", NULL);
    rename_col(t, "Workgroup_Size_Y", "block_y", NULL);
    rename_col(t, "Workgroup_Size_Z", "block_z", NULL);
    rename_col(t, "Grid_Size_X", "grid_items_x", NULL);
    rename_col(t, "Grid_Size_Y", "grid_items_y", NULL);
    rename_col(t, "Grid_Size_Z", "grid_items_z", NULL);
    registers_from(t, "Arch_VGPR_Count");
    add_grid(t, "grid_items_x", "block_x", "grid_x");
    add_grid(t, "grid_items_y", "block_y", "grid_y");
    add_grid(t, "grid_items_z", "block_z", "grid_z");
  }
}

/* The per-dispatch traces (results.csv, kernel_trace.csv, rocprof-compute's
** files): the kernels table, its durations and kernel_summary.  t is
** handed over or freed. */
static int read_dispatches(pl_table *t, int kind, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_table_set_name(t, "kernels");
  dispatch_columns(t, kind, p);
  int cn = pl_table_col(t, "name");
  if (cn < 0 || t->cols[cn]->type != PL_STR) {
    pl_table_free(t);
    return pl_err_set(err, 1, 1, "expected a kernel-name column of text");
  }
  int cs = pl_table_col(t, "start_ns"), ce = pl_table_col(t, "end_ns");
  if (check_times(t, cs, ce, p)) {
    int cd = pl_table_add_col_unique(t, "duration_ns", PL_INT);
    pl_table_set_doc(t, cd, NULL);
    for (size_t i = 0; i < t->nrows; i++) {
      int64_t a = pl_cell_int(t, cs, i), b = pl_cell_int(t, ce, i);
      if (a != PL_INT_NA && b != PL_INT_NA && b < a && o && o->lenient) {
        /* lenient: the row stays, without a duration */
        pl_profile_diag(p, i + 2, "skipped the duration of row %zu: its end %lld is before its start %lld", i + 1,
                        (long long)b, (long long)a);
        t->cols[cd]->v.i64[i] = PL_INT_NA;
        continue;
      }
      if (a != PL_INT_NA && b != PL_INT_NA && b < a) {
        pl_table_free(t);
        return pl_err_set(err, i + 2, 1, "expected an end timestamp not before the start, found start %lld end %lld",
                          (long long)a, (long long)b);
      }
      t->cols[cd]->v.i64[i] = (a == PL_INT_NA || b == PL_INT_NA) ? PL_INT_NA : b - a;
    }
  }
  pl_fill_short_names(t, cn);
  doc_kernels(t);
  if (pl_table_col(t, "duration_ns") >= 0 && pl_want_table(o, "kernel_summary")) {
    pl_table *s = pl_kernel_summary_from(t, "kernel_summary");
    if (s) pl_profile_add_table(p, s);
  }
  if (pl_want_table(o, "kernels")) pl_profile_add_table(p, t);
  else pl_table_free(t);
  return 0;
}

/* The row (0-based) of the first value of text column c that is not a
** number, or -1. */
static long first_not_number(const pl_table *t, int c) {
  if (t->cols[c]->type != PL_STR) return -1;
  for (size_t i = 0; i < t->nrows; i++) {
    size_t len;
    const char *s = pl_cell_str(t, c, i, &len);
    if (s && !numeric_field(s, len)) return (long)i;
  }
  return -1;
}

/* rocprofv3 counter_collection.csv, the "long" form: one row per dispatch
** and counter, the dispatch's launch columns repeated on each.  Gives
** kernels (one row per dispatch: its first row's launch columns, `id` its
** 0-based index, then read_dispatches' standard columns and summary) and
** the standard metrics table (kernel_id = kernels.id, device, metric,
** value, unit "", kernel, dispatch_id, line): long, like every other
** reader's metrics, so a recipe pivots the counters it reads (ncu_rules'
** frame, docs/formats-nsys-nvprof-rocprof.md).  t is handed over or freed. */
static int read_counters(pl_table *t, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  int cd = pl_table_col(t, "Dispatch_Id"), cn = pl_table_col(t, "Counter_Name");
  int cv = pl_table_col(t, "Counter_Value"), ck = pl_table_col(t, "Kernel_Name");
  int ca = pl_table_col(t, "Agent_Id"), cp = pl_table_col(t, "Process_Id");
  if (cd < 0 || cn < 0 || cv < 0 || ck < 0) {
    pl_table_free(t);
    return pl_err_set(err, 1, 1, "expected Dispatch_Id, Kernel_Name, Counter_Name and Counter_Value columns");
  }
  long bad = first_not_number(t, cv);
  if (bad >= 0 || t->cols[cv]->type == PL_BOOL) {
    size_t len = 0;
    const char *s = bad >= 0 ? pl_cell_str(t, cv, (size_t)bad, &len) : NULL;
    int rc = pl_err_set(err, bad >= 0 ? (size_t)bad + 2 : 2, (size_t)cv + 1,
                        "expected a number in Counter_Value, found '%.*s'", (int)(len > 60 ? 60 : len), s ? s : "");
    pl_table_free(t);
    return rc;
  }
  bad = first_not_number(t, cd);
  if (bad >= 0 || t->cols[cd]->type == PL_NUM || t->cols[cd]->type == PL_BOOL) {
    pl_table_free(t);
    return pl_err_set(err, bad >= 0 ? (size_t)bad + 2 : 2, (size_t)cd + 1, "expected an integer Dispatch_Id");
  }
  if (t->cols[cn]->type != PL_STR && t->nrows > 0) {
    pl_table_free(t);
    return pl_err_set(err, 2, (size_t)cn + 1, "expected a counter name (text) in Counter_Name");
  }
  /* one kernel per (process, agent, dispatch), in order of first appearance */
  int keys[3];
  size_t nk = 0;
  if (cp >= 0) keys[nk++] = cp;
  if (ca >= 0) keys[nk++] = ca;
  keys[nk++] = cd;
  size_t n = t->nrows;
  size_t *gid = pl_xmalloc((n ? n : 1) * sizeof *gid), *first = NULL;
  size_t ng = pl_table_group_ids(t, keys, nk, gid, &first);
  int *kc = pl_xmalloc(t->ncols * sizeof *kc);
  size_t nkc = 0;
  for (int c = 0; c < (int)t->ncols; c++)
    if (c != cn && c != cv) kc[nkc++] = c;
  pl_table *k = pl_table_take_cols(t, first, ng, kc, nkc);
  free(kc);
  int kid = pl_table_add_col_unique(k, "id", PL_INT), kl = pl_table_add_col_unique(k, "line", PL_INT);
  pl_table_set_doc(k, kid, "0-based index of the dispatch (metrics.kernel_id)");
  pl_table_set_doc(k, kl, "input line of the dispatch's first counter row");
  for (size_t g = 0; g < ng; g++) {
    k->cols[kid]->v.i64[g] = (int64_t)g;
    k->cols[kl]->v.i64[g] = (int64_t)first[g] + 2;
  }
  free(first);
  /* metrics: the counter rows, long */
  size_t *idx = pl_xmalloc((n ? n : 1) * sizeof *idx);
  for (size_t i = 0; i < n; i++) idx[i] = i;
  int mc[5] = { cn, cv, ck, cd, ca };
  pl_table *m = pl_table_take_cols(t, idx, n, mc, ca >= 0 ? 5 : 4);
  free(idx);
  pl_table_free(t);
  pl_table_set_name(m, "metrics");
  rename_col(m, "Counter_Name", "metric", "counter name as rocprofv3 prints it (e.g. SQ_WAVES, GRBM_GUI_ACTIVE)");
  int mv = rename_col(m, "Counter_Value", "value", "counter value (a count, or what the derived counter computes)");
  if (m->cols[mv]->type != PL_NUM) pl_table_retype(m, mv, PL_NUM);
  rename_col(m, "Kernel_Name", "kernel", "kernel name");
  rename_col(m, "Dispatch_Id", "dispatch_id", "rocprofv3 dispatch id");
  rename_col(m, "Agent_Id", "device", NULL);
  int mk = pl_table_add_col_unique(m, "kernel_id", PL_INT), mu = pl_table_add_col_unique(m, "unit", PL_STR);
  int ml = pl_table_add_col_unique(m, "line", PL_INT);
  pl_table_set_doc(m, mk, NULL);
  pl_table_set_doc(m, mu, "empty: rocprofv3 prints no unit");
  pl_table_set_doc(m, ml, "input line of the row");
  for (size_t i = 0; i < n; i++) {
    m->cols[mk]->v.i64[i] = (int64_t)gid[i];
    m->cols[ml]->v.i64[i] = (int64_t)i + 2;
  }
  free(gid);
  pl_profile_meta_str(p, "rocprof_file", "counter_collection", 18);
  if (pl_want_table(o, "metrics")) pl_profile_add_table(p, m);
  else pl_table_free(m);
  return read_dispatches(k, R_V3COUNTER, p, o, err);
}

static int roc_parse(const pl_input *in, pl_profile *p, const pl_parse_opts *o, pl_err *err) {
  pl_lines c;
  pl_line l;
  pl_lines_init(&c, in->data, in->len);
  int kind = R_NONE;
  while (pl_lines_next(&c, &l)) {
    if (pl_is_blank(l.s, l.n)) continue;
    kind = header_kind(l.s, l.n);
    if (kind == R_NONE)
      return pl_err_expected(
          err, c.lineno, 1, "a rocprof CSV header (results.stats.csv, results.csv, kernel_trace.csv or agent_info.csv)",
          l.s, l.n);
    break;
  }
  if (kind == R_NONE) return pl_err_expected(err, 1, 1, "a rocprof CSV header", NULL, 0);
  pl_csv_opts co = pl_csv_opts_whole(o);
  size_t jlen = 0, nfixed = 0, first = 0;
  char *joined = kind == R_STATS ? rejoin_stats_names(in->data, in->len, &jlen, &nfixed, &first) : NULL;
  pl_table *t = pl_csv_table_lenient(joined ? joined : in->data, joined ? jlen : in->len, "rocprof", &co,
                                     o && o->lenient ? p : NULL, err);
  free(joined);
  if (t == NULL) return -1;
  if (nfixed)
    pl_profile_diag(
        p, first,
        "%zu row%s with an unquoted comma in the name (rocprof of ROCm 4), first on this line: "
        "the last fields read as Calls, TotalDurationNs, AverageNs, Percentage, the rest re-joined as the name",
        nfixed, nfixed == 1 ? "" : "s");
  pl_profile_meta_str(p, "tool", "rocprof", 7);
  pl_profile_meta_str(p, "time_unit", "ns", 2);
  if (kind == R_STATS) return read_stats(t, p, o, err);
  if (kind == R_AGENT) return read_agent(t, p, o);
  if (kind == R_API) return read_api(t, p, o, err);
  if (kind == R_V3COUNTER) return read_counters(t, p, o, err);
  return read_dispatches(t, kind, p, o, err);
}

const pl_format pl_fmt_rocprof = {
  "rocprof",
  "AMD rocprof / rocprofv3 CSV: stats (kernel, HIP API, copy), per-dispatch results, kernel_trace, agent_info, "
  "hip_api_trace, counter_collection; rocprof-compute (Omniperf) timestamps.csv / pmc_perf.csv",
  "kernels kernel_summary api_summary memcpy_summary devices runtime metrics",
  roc_detect,
  roc_parse,
};
